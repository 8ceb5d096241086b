//! GPU-CC mode on the golden model (docs/gpucc.md): the GPU-CC kernels of
//! `testbenches/kernels/gpucc/` against the host references of
//! `testbenches/kernels` (bit for bit), mode switches between SIMT and
//! GPU-CC code, and the errors of GPU-CC mode (deadlock, runaway, bad
//! launches, a switch in divergent code, a preset without the network).
//!
//! Run: `cargo test --test gpucc`.

use smrtl::config::SmConfig;
use smrtl::golden::asm::{assemble, disassemble};
use smrtl::golden::gpucc::{NodeCfg, Source, CORES};
use smrtl::golden::isa::Op;
use smrtl::golden::model::{run_kernel, Golden, Launch, Reason, RunError};
use smrtl::testbenches::kernels::{conv_gpucc, gpucc_kernels, Case, Fp32};

fn gpucc() -> SmConfig {
    SmConfig::load("gpucc").unwrap()
}

fn run_case(case: &Case) {
    let cfg = gpucc();
    let prog = assemble(case.source, case.file).unwrap_or_else(|e| panic!("{}", e.render(case.source)));
    let (out, stats) =
        run_kernel(&cfg, &prog, &case.launch(), case.gmem.clone()).unwrap_or_else(|e| panic!("{}: {e}", case.label));
    if let Err(m) = case.check(&out) {
        panic!("{m}");
    }
    eprintln!("{}: ok, {} warp instrs", case.label, stats.warp_instrs);
}

#[test]
fn gpucc_kernels_match_the_host_reference() {
    for k in gpucc_kernels() {
        for case in (k.cases)(Fp32::Ieee) {
            run_case(&case);
        }
    }
}

#[test]
fn gpucc_conv_edge_sizes() {
    for ksize in [3, 5] {
        for (w, h, seed) in [(1, 1, 1), (1, 7, 2), (9, 1, 3), (2, 2, 4), (64, 3, 5), (3, 5, 6)] {
            run_case(&conv_gpucc(ksize, w, h, seed));
        }
    }
}

#[test]
fn gpucc_kernels_round_trip_through_the_disassembler() {
    for k in gpucc_kernels() {
        let p = assemble(k.source, k.file).unwrap();
        let text = disassemble(&p);
        let q = assemble(&text, k.file).unwrap_or_else(|e| panic!("{}: {e}\n{text}", k.file));
        assert_eq!(q.code, p.code, "{}", k.file);
    }
}

fn word(m: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(m[4 * i..4 * i + 4].try_into().unwrap())
}

fn run_src(
    src: &str,
    cfg: &SmConfig,
    grid: [u32; 2],
    block: u32,
    params: Vec<u32>,
    gmem: Vec<u8>,
) -> Result<Vec<u8>, RunError> {
    let prog = assemble(src, "t.s").unwrap_or_else(|e| panic!("{}", e.render(src)));
    let l = Launch {
        grid,
        block: [block, 1, 1],
        params,
    };
    run_kernel(cfg, &prog, &l, gmem).map(|(m, _)| m)
}

/// SIMT code writes a[i] = i (as FP32), GPU-CC computes b = a * 3 + 1
/// and, reconfigured, c = b * 0.5; SIMT code then writes d[i] = c[i] + 1.
/// Every value is exact in FP32, so the host reference is plain f32 math.
const SWITCH: &str = "\
.kernel switch
.regs 8
.param base
        LDC R1, c[base]
        S2R R0, SR_TID.X
        SHL R2, R0, 2
        IADD R2, R2, R1
        I2F R3, R0
        STG [R2], R3                ; a[tid] = tid
        IADD R4, R1, 128            ; b
        IADD R5, R1, 256            ; c
.gpucc
        grid 32, 1
core0   IADD x, 0                   -> A
lsu1    LDG [core0*4 + R1]          -> B
core2   FMUL lsu1, 3.0              -> C
core3   FADD core2, 1.0             -> C
core5   IADD x, 0                   -> D
lsu3    STG [core5*4 + R4], core3
.endgpucc
.gpucc
        grid 32, 1
core0   IADD x, 0                   -> A
lsu1    LDG [core0*4 + R4]          -> B
core2   FMUL lsu1, 0.5              -> C
core3   IADD x, 0                   -> D
lsu2    STG [core3*4 + R5], core2
.endgpucc
        IADD R6, R2, 256
        LDG R7, [R6]                ; c[tid]
        FADD R7, R7, 1.0
        STG [R6+128], R7            ; d[tid]
        EXIT
";

#[test]
fn simt_then_gpucc_then_simt() {
    let out = run_src(SWITCH, &gpucc(), [1, 1], 32, vec![0], vec![0; 512]).unwrap();
    // The same run, traced: every firing is recorded.
    let prog = assemble(SWITCH, "switch.s").unwrap();
    let l = Launch {
        grid: [1, 1],
        block: [32, 1, 1],
        params: vec![0],
    };
    let mut g = Golden::new(&gpucc(), &prog, &l, vec![0; 512]).unwrap();
    g.trace_gpucc(true);
    g.run(10_000).unwrap();
    assert_eq!(g.gmem(), &out[..]);
    let runs = g.gpucc_runs();
    assert_eq!(runs.len(), 2);
    assert_eq!(
        (runs[0].loads, runs[0].stores, runs[1].loads, runs[1].stores),
        (32, 32, 32, 32)
    );
    assert_eq!(runs[0].firings.iter().sum::<u64>(), 6 * 32);
    assert_eq!(runs[1].firings.iter().sum::<u64>(), 5 * 32);
    let t = g.gpucc_trace();
    assert_eq!(t.len(), 11 * 32);
    // The first run's store LSU (lsu3 = node 35): b[i] at 128 + 4i.
    let st: Vec<_> = t[..192].iter().filter(|f| f.node == CORES + 3).collect();
    assert_eq!(st.len(), 32);
    for (i, f) in st.iter().enumerate() {
        assert_eq!((f.seq, f.addr), (i as u64, Some(128 + 4 * i as u32)));
        assert_eq!(f.operands[1], (i as f32 * 3.0 + 1.0).to_bits());
    }
    for i in 0..32usize {
        let a = i as f32;
        let (b, c) = (a * 3.0 + 1.0, (a * 3.0 + 1.0) * 0.5);
        assert_eq!(word(&out, i), a.to_bits(), "a[{i}]");
        assert_eq!(word(&out, 32 + i), b.to_bits(), "b[{i}]");
        assert_eq!(word(&out, 64 + i), c.to_bits(), "c[{i}]");
        assert_eq!(word(&out, 96 + i), (c + 1.0).to_bits(), "d[{i}]");
    }
}

/// A configuration written with raw GCSET words that deadlocks: core0
/// sends 40 tokens, core1 takes 2 and is done, so core0 waits on a full
/// FIFO forever.
fn deadlock_src() -> String {
    let core0 = NodeCfg {
        op: Op::Iadd as u8,
        src: [Source::X.code() as u8, Source::Zero.code() as u8, 0],
        out_lane: 1,
        ..NodeCfg::default()
    };
    let core1 = NodeCfg {
        op: Op::Iadd as u8,
        src: [Source::Fifo(0).code() as u8, Source::Zero.code() as u8, 0],
        fifo_lane: [1, 0, 0],
        out_lane: 2,
        ..NodeCfg::default()
    };
    let lsu1 = NodeCfg {
        op: Op::Stg as u8,
        m: 2,
        src: [Source::Fifo(0).code() as u8, Source::Fifo(1).code() as u8, 0],
        fifo_lane: [2, 2, 0],
        ..NodeCfg::default()
    };
    let on = NodeCfg {
        counter: true,
        ..NodeCfg::default()
    }
    .counter_word();
    format!(
        ".regs 2\n GCSET 0, 0, 0x{:x}\n GCSET 0, 1, 0x{on:x}\n GCSET 0, 3, 40\n GCSET 0, 4, 1\n\
         GCSET 1, 0, 0x{:x}\n GCSET 1, 1, 0x{on:x}\n GCSET 1, 3, 2\n GCSET 1, 4, 1\n\
         GCSET {}, 0, 0x{:x}\n GCRUN\n EXIT\n",
        core0.op_word(),
        core1.op_word(),
        CORES + 1,
        lsu1.op_word()
    )
}

#[test]
fn deadlock_is_reported_at_gcrun_with_every_node() {
    let src = deadlock_src();
    let e = run_src(&src, &gpucc(), [1, 1], 32, vec![], vec![0; 256]).unwrap_err();
    let Reason::Gpucc(m) = &e.reason else { panic!("{e}") };
    assert!(m.contains("GPU-CC deadlock"), "{m}");
    assert!(
        m.contains("core0") && m.contains("output full (core1 FIFO 0 holds 16/16)"),
        "{m}"
    );
    assert!(m.contains("lsu1") && m.contains("input FIFO 0 empty"), "{m}");
    assert_eq!((e.place.pc, e.place.line), (Some(9), Some(11)), "{e}");
}

#[test]
fn runaway_stops_at_the_budget() {
    let case = conv_gpucc(3, 37, 21, 7);
    let prog = assemble(case.source, case.file).unwrap();
    let mut g = Golden::new(&gpucc(), &prog, &case.launch(), case.gmem.clone()).unwrap();
    let e = g.run(200).unwrap_err();
    let Reason::Gpucc(m) = &e.reason else { panic!("{e}") };
    assert!(m.contains("runaway"), "{m}");
}

#[test]
fn mode_switch_errors() {
    let conv = conv_gpucc(3, 5, 3, 9);
    let prog = assemble(conv.source, conv.file).unwrap();
    // Two CTAs.
    let mut l = conv.launch();
    l.grid = [2, 1];
    let e = run_kernel(&gpucc(), &prog, &l, conv.gmem.clone()).unwrap_err();
    assert!(e.to_string().contains("one CTA of one warp"), "{e}");
    // A preset without the network.
    let fermi = SmConfig::load("fermi").unwrap();
    let e = run_kernel(&fermi, &prog, &conv.launch(), conv.gmem.clone()).unwrap_err();
    assert!(e.to_string().contains("no GPU-CC network"), "{e}");
    // A switch in divergent code.
    let src = ".regs 2\n S2R R0, SR_TID.X\n ISETP.LT P0, R0, 16\n SSY j\n @P0 BRA j\n GCRUN\nj: SYNC\n EXIT\n";
    let e = run_src(src, &gpucc(), [1, 1], 32, vec![], vec![]).unwrap_err();
    assert!(e.to_string().contains("GCRUN in divergent code"), "{e}");
    assert_eq!(e.place.line, Some(6), "{e}");
}

/// `smrtl run` runs the GPU-CC kernel on the golden model; `--rtl` on a
/// preset without the network refuses it with a clear error naming the pc
/// and line.
#[test]
fn cli_runs_gpucc_and_refuses_rtl_without_the_network() {
    let case = conv_gpucc(3, 37, 21, 11);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.bin");
    let output = dir.path().join("out.bin");
    std::fs::write(&input, &case.gmem).unwrap();
    let kernel = concat!(env!("CARGO_MANIFEST_DIR"), "/testbenches/kernels/gpucc/conv3x3.s");
    let args = case.cli_args(kernel, "gpucc", input.to_str().unwrap(), output.to_str().unwrap());
    let bin = env!("CARGO_BIN_EXE_smrtl");
    let r = std::process::Command::new(bin).arg("run").args(&args).output().unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    case.check(&std::fs::read(&output).unwrap()).unwrap();
    let fermi = case.cli_args(kernel, "fermi", input.to_str().unwrap(), output.to_str().unwrap());
    let r = std::process::Command::new(bin)
        .arg("run")
        .args(&fermi)
        .arg("--rtl")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(!r.status.success());
    assert!(
        err.contains("GCSET at pc 16") && err.contains("the fermi preset has no GPU-CC network"),
        "{err}"
    );
    assert!(err.contains("conv3x3.s line 50") && !err.contains("panicked"), "{err}");
}

/// The library entry of the RTL runner refuses GPU-CC kernels on a preset
/// without the network (before building the SM), naming the pc.
#[test]
fn rtl_runner_refuses_gpucc_kernels_without_the_network() {
    let case = conv_gpucc(3, 5, 3, 13);
    let prog = assemble(case.source, case.file).unwrap();
    let opts = smrtl::sm::run::RtlOptions::default();
    let fermi = SmConfig::load("fermi").unwrap();
    let e = smrtl::sm::run::run_program(&fermi, &prog, &case.launch(), case.gmem.clone(), &opts).unwrap_err();
    assert!(
        e.msg
            .contains("GCSET at pc 16, the kernel line 50: the fermi preset has no GPU-CC network"),
        "{}",
        e.msg
    );
    assert_eq!(e.gmem, case.gmem);
}

// ---------------------------------------------------------------------------
// GPU-CC mode in the RTL SM (`smrtl run --rtl --config gpucc`;
// docs/gpucc.md section 11): every run lock-step against the golden model
// (issues, write-backs, the final image), GPU-CC runs on the SM's network.

fn rtl(src: &str, file: &str, cfg: &SmConfig, l: &Launch, gmem: Vec<u8>) -> Result<smrtl::sm::run::RtlResult, String> {
    let prog = assemble(src, file).unwrap_or_else(|e| panic!("{}", e.render(src)));
    smrtl::sm::run::run_program(cfg, &prog, l, gmem, &smrtl::sm::run::RtlOptions::default()).map_err(|e| e.to_string())
}

/// The GPU-CC kernels on the RTL SM: host reference bit for bit; in
/// GPU-CC mode nothing issues, nothing is fetched, no register is written.
#[test]
fn gpucc_kernels_on_the_rtl_sm() {
    let cfg = gpucc();
    for (k, w, h, seed) in [(3, 37, 21, 31), (5, 9, 5, 32), (3, 1, 7, 33), (5, 6, 1, 34)] {
        let case = conv_gpucc(k, w, h, seed);
        let r = rtl(case.source, case.file, &cfg, &case.launch(), case.gmem.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", case.label));
        case.check(&r.gmem).unwrap_or_else(|m| panic!("{m}"));
        let rep = &r.report;
        assert!(rep.gc_runs >= 1 && rep.gc_cycles > 0, "{}", rep.render());
        assert_eq!(
            (rep.gc_issued, rep.gc_fetched, rep.gc_rf_access),
            (0, 0, 0),
            "{}",
            rep.render()
        );
        assert_eq!(rep.gc_node_fire.iter().sum::<u64>(), rep.gc_fire, "{}", rep.render());
        // Every token checked against the golden dataflow model: each
        // firing drives one, but a store's (3x3: one per pixel; 5x5: one
        // per padded column, W + 4 per row).
        let stores = if k == 5 { ((w + 4) * h) as u64 } else { (w * h) as u64 };
        assert_eq!(rep.gc_tokens_checked, rep.gc_fire - stores, "{}", rep.render());
        eprintln!(
            "{}: {} core cycles, {} in GPU-CC mode, {} firings",
            case.label, rep.core_cycles, rep.gc_cycles, rep.gc_fire
        );
    }
}

/// SIMT, GPU-CC, GPU-CC again and SIMT in one kernel on the RTL SM: the
/// golden model's image, and the firings the golden model counts.
#[test]
fn simt_then_gpucc_then_simt_on_the_rtl_sm() {
    let l = Launch {
        grid: [1, 1],
        block: [32, 1, 1],
        params: vec![0],
    };
    let want = run_src(SWITCH, &gpucc(), [1, 1], 32, vec![0], vec![0; 512]).unwrap();
    let r = rtl(SWITCH, "switch.s", &gpucc(), &l, vec![0; 512]).unwrap();
    assert_eq!(r.gmem, want);
    assert_eq!(
        (r.report.gc_runs, r.report.gc_fire),
        (2, 11 * 32),
        "{}",
        r.report.render()
    );
    // Tokens: every firing but the stores' (lsu3 and lsu2, 32 each).
    assert_eq!(r.report.gc_tokens_checked, 11 * 32 - 2 * 32, "{}", r.report.render());
}

/// The token-level check inside the SM fails where a token differs: one
/// golden token flipped (a planted fault) stops the run at the token
/// that carries it, naming the node, the index and both values.
#[test]
fn gpucc_token_check_catches_a_planted_fault() {
    use smrtl::hdl::Concrete;
    use smrtl::sm::run::{run_checked, RtlOptions, RtlResult, SimtChecker};
    use smrtl::sm::top::{SmIn, SmOut};
    struct Go {
        cfg: SmConfig,
        node: usize,
        k: usize,
    }
    impl smrtl::sm::top::SmFn for Go {
        type Out = Result<RtlResult, String>;
        fn call<K>(&mut self, sm: K) -> anyhow::Result<Self::Out>
        where
            K: smrtl::hdl::Block<In<Concrete> = SmIn<Concrete>, Out<Concrete> = SmOut<Concrete>> + Clone + 'static,
        {
            let prog = assemble(SWITCH, "switch.s").unwrap();
            let l = Launch {
                grid: [1, 1],
                block: [32, 1, 1],
                params: vec![0],
            };
            let mut sim = smrtl::hdl::Sim::new(sm).map_err(|e| anyhow::anyhow!("{e}"))?;
            let mut chk = SimtChecker::new(&self.cfg, &prog, &l, vec![0; 512], false).map_err(anyhow::Error::msg)?;
            chk.plant_gc_token_fault(self.node, self.k);
            let o = RtlOptions::default();
            Ok(run_checked(&mut sim, &mut chk, &self.cfg, &prog, &l, vec![0; 512], &o).map_err(|e| e.to_string()))
        }
    }
    // core2 (FMUL by 3.0) token 5: 5.0 * 3 = 15.0 = 0x41700000.
    let mut go = Go {
        cfg: gpucc(),
        node: 2,
        k: 5,
    };
    let e = smrtl::sm::top::with_sm(&gpucc(), &mut go).unwrap().unwrap_err();
    assert!(
        e.contains("GPU-CC token mismatch: core2 token 5: RTL 0x41700000, golden 0x41700001"),
        "{e}"
    );
    assert!(e.contains("GPU-CC nodes (fired;"), "{e}");
    // Out of range: node 47 drives no token, so nothing is planted.
    go.node = 47;
    let r = smrtl::sm::top::with_sm(&gpucc(), &mut go).unwrap().unwrap();
    assert_eq!(r.report.gc_tokens_checked, 11 * 32 - 2 * 32);
}

/// SIMT kernels on the gpucc preset's RTL SM run exactly as on fermi's:
/// the same cycles, issues, stall causes and image.
#[test]
fn simt_kernels_on_the_gpucc_sm_run_as_on_fermi() {
    use smrtl::testbenches::kernels as k;
    let (fermi, gc) = (SmConfig::load("fermi").unwrap(), gpucc());
    for case in [
        k::vadd(Fp32::Ieee, 300, 128, 1),
        k::reduce(Fp32::Ieee, 200, 64, 2),
        k::conv(k::ConvForm::Strip, 3, true, 19, 7, 3),
    ] {
        let a = rtl(case.source, case.file, &fermi, &case.launch(), case.gmem.clone()).unwrap();
        let b = rtl(case.source, case.file, &gc, &case.launch(), case.gmem.clone()).unwrap();
        case.check(&b.gmem).unwrap();
        assert_eq!(a.gmem, b.gmem, "{}", case.label);
        let (ra, rb) = (&a.report, &b.report);
        assert_eq!(
            (ra.core_cycles, ra.issued, ra.stall, ra.retired, ra.gm_requests),
            (rb.core_cycles, rb.issued, rb.stall, rb.retired, rb.gm_requests),
            "{}",
            case.label
        );
        assert_eq!(rb.gc_runs, 0);
    }
}

/// Bad GPU-CC use on the RTL SM stops with the SM's own error, at the
/// place the golden model names: a configuration that deadlocks (every
/// node's firings, stalls and FIFO levels listed), GCRUN in divergent
/// code, a launch of two CTAs.
#[test]
fn gpucc_errors_on_the_rtl_sm() {
    let one = Launch {
        grid: [1, 1],
        block: [32, 1, 1],
        params: vec![],
    };
    let e = rtl(&deadlock_src(), "dead.s", &gpucc(), &one, vec![0; 256]).unwrap_err();
    assert!(
        e.contains("error 15") && e.contains("raised by gpucc") && e.contains("pc 9 (line 11)"),
        "{e}"
    );
    assert!(
        e.contains("the golden model stops there too") && e.contains("GPU-CC deadlock"),
        "{e}"
    );
    assert!(e.contains("core1  fired 2;") && e.contains("F0 16/16"), "{e}");
    let src = ".regs 2\n S2R R0, SR_TID.X\n ISETP.LT P0, R0, 16\n SSY j\n @P0 BRA j\n GCRUN\nj: SYNC\n EXIT\n";
    let e = rtl(src, "div.s", &gpucc(), &one, vec![]).unwrap_err();
    assert!(
        e.contains("error 17") && e.contains("pc 4 (line 6)") && e.contains("info 0x1"),
        "{e}"
    );
    let conv = conv_gpucc(3, 5, 3, 9);
    let mut two = conv.launch();
    two.grid = [2, 1];
    let e = rtl(conv.source, conv.file, &gpucc(), &two, conv.gmem.clone()).unwrap_err();
    assert!(e.contains("error 17") && e.contains("info 0x2"), "{e}");
}

/// The gpucc SM's save file has the GPU-CC group: the mode, the counters
/// and every node's firing, stall and token-valid bits and its token, in
/// node order.
#[test]
fn gpucc_sm_waves_have_the_gpucc_group() {
    let cfg = gpucc();
    let case = conv_gpucc(3, 5, 3, 35);
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gpucc_waves");
    std::fs::create_dir_all(&dir).unwrap();
    let vcd = dir.join("c3.vcd");
    let prog = assemble(case.source, case.file).unwrap();
    let opts = smrtl::sm::run::RtlOptions {
        vcd: Some(vcd.clone()),
        ..smrtl::sm::run::RtlOptions::default()
    };
    let r = smrtl::sm::run::run_program(&cfg, &prog, &case.launch(), case.gmem.clone(), &opts).unwrap();
    case.check(&r.gmem).unwrap_or_else(|m| panic!("{m}"));
    let gtkw = std::fs::read_to_string(dir.join("c3.vcd.gtkw")).unwrap();
    for want in [
        "-GPU-CC\n",
        "+{mode} sm_gpucc.gc_mode_o\n",
        "-fired [node]\n",
        "-input empty [node]\n",
        "-output full [node]\n",
        // Node n is bits 2n+1..2n of the 96-bit bus; GTKWave counts bit
        // indices from the left.
        "#{core0} (94)sm_gpucc.gc_fire_o[95:0] (95)sm_gpucc.gc_fire_o[95:0]\n",
        "#{lsu15} (0)sm_gpucc.gc_stall_out_o[95:0] (1)sm_gpucc.gc_stall_out_o[95:0]\n",
        "-token valid [node]\n",
        "-token [node]\n",
        // Node 0's token of the sampled hot cycle: bits 63..32 of the
        // 3,072-bit bus, GTKWave indices 3008..3039 from the left.
        "#{core0} (3008)sm_gpucc.gc_tok_o[3071:0] (3009)sm_gpucc.gc_tok_o[3071:0]",
    ] {
        assert!(gtkw.contains(want), "{want:?} not in the save file");
    }
}

/// The hand-placed kernel `src` made symbolic: `coreN` -> `cN`, `lsuN` ->
/// `mN`, output lanes dropped and the node lines of each block reversed,
/// so the mapper has to find its own order, places and lanes.
fn symbolic(src: &str) -> String {
    let rename = |s: &str| -> String {
        let mut out = String::new();
        let b = s.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let word = |p: &str| s[i..].starts_with(p) && (i == 0 || !(b[i - 1] as char).is_ascii_alphanumeric());
            let (pre, to) = if word("core") {
                ("core", "c")
            } else if word("lsu") {
                ("lsu", "m")
            } else {
                ("", "")
            };
            let j = i + pre.len();
            if !pre.is_empty() && j < b.len() && (b[j] as char).is_ascii_digit() {
                out.push_str(to);
                i = j;
            } else {
                out.push(b[i] as char);
                i += 1;
            }
        }
        out
    };
    let mut out: Vec<String> = Vec::new();
    let mut block: Option<Vec<String>> = None;
    for line in src.lines() {
        let t = line.trim_start().to_ascii_lowercase();
        if t.starts_with(".endgpucc") {
            let mut b = block.take().unwrap();
            b.reverse();
            out.append(&mut b);
            out.push(line.to_string());
        } else if t.starts_with(".gpucc") {
            out.push(line.to_string());
            block = Some(Vec::new());
        } else if let Some(b) = block.as_mut() {
            let code = line.split(';').next().unwrap_or("");
            if t.starts_with("grid") || code.trim().is_empty() {
                out.push(line.to_string());
            } else {
                b.push(rename(code.split("->").next().unwrap()).trim_end().to_string());
            }
        } else {
            out.push(line.to_string());
        }
    }
    out.join("\n") + "\n"
}

/// `smrtl gpucc-map` on the hand-placed convolutions made symbolic: every
/// block maps in under a second, on at most 5 lanes, and the mapped kernel
/// gives the host reference bit for bit on the golden model (one block
/// each; the 5x5's delayed sources `m2[-4]` carry over to the placed
/// nodes).
#[test]
fn mapped_convolutions_match_the_host_reference() {
    use smrtl::golden::gpucc::map::{map_source, MapOptions};
    for (k, w, h, seed) in [(3, 37, 21, 41), (5, 9, 5, 42), (3, 1, 7, 43), (5, 6, 1, 44)] {
        let case = conv_gpucc(k, w, h, seed);
        let sym = symbolic(case.source);
        for line in sym.lines() {
            let code = line.split(';').next().unwrap_or("");
            let placed = ["core", "lsu"].iter().any(|p| {
                code.match_indices(p)
                    .any(|(i, _)| code[i + p.len()..].starts_with(|c: char| c.is_ascii_digit()))
            });
            assert!(!placed && !code.contains("->"), "{line}");
        }
        let (text, maps) = map_source(&sym, &MapOptions::default()).unwrap_or_else(|e| panic!("{e:?}\n{sym}"));
        assert_eq!(maps.len(), 1);
        for m in &maps {
            assert!(m.lanes <= 5 && m.micros < 1_000_000, "{m:?}");
            eprintln!(
                "{}: block at line {}: {} cores, {} LSUs, {} lanes, {} states, {} us",
                case.label, m.line, m.cores, m.lsus, m.lanes, m.states, m.micros
            );
        }
        let prog = assemble(&text, "mapped.s").unwrap_or_else(|e| panic!("{}", e.render(&text)));
        let (out, _) = run_kernel(&gpucc(), &prog, &case.launch(), case.gmem.clone())
            .unwrap_or_else(|e| panic!("{}: {e}\n{text}", case.label));
        case.check(&out).unwrap_or_else(|m| panic!("{m}\n{text}"));
    }
}

/// The symbolic SAXPY (`testbenches/kernels/gpucc/map/saxpy.s`) mapped and
/// run on the golden model: out[i] = fma(a, x[i], y[i]) bit for bit, for
/// counts that end inside and at the end of a warp's worth.
#[test]
fn mapped_saxpy_matches_fma() {
    use smrtl::golden::gpucc::map::{map_source, MapOptions};
    let src = include_str!("../testbenches/kernels/gpucc/map/saxpy.s");
    let (text, maps) = map_source(src, &MapOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!((maps[0].cores, maps[0].lsus), (2, 3), "{maps:?}");
    let prog = assemble(&text, "saxpy.s").unwrap_or_else(|e| panic!("{}", e.render(&text)));
    for n in [1usize, 37, 64] {
        let a = -1.75f32;
        let xs: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin() * 1e3).collect();
        let ys: Vec<f32> = (0..n).map(|i| (i as f32 * 0.11).cos() / 3.0).collect();
        let (bx, by, bo) = (0x100usize, 0x100 + 4 * n, 0x100 + 8 * n);
        let mut gmem = vec![0u8; bo + 4 * n];
        for i in 0..n {
            gmem[bx + 4 * i..bx + 4 * i + 4].copy_from_slice(&xs[i].to_le_bytes());
            gmem[by + 4 * i..by + 4 * i + 4].copy_from_slice(&ys[i].to_le_bytes());
        }
        let l = Launch {
            grid: [1, 1],
            block: [32, 1, 1],
            params: vec![bx as u32, by as u32, bo as u32, n as u32, a.to_bits()],
        };
        let (out, _) = run_kernel(&gpucc(), &prog, &l, gmem).unwrap_or_else(|e| panic!("n {n}: {e}"));
        for i in 0..n {
            let want = a.mul_add(xs[i], ys[i]).to_bits();
            assert_eq!(word(&out, bo / 4 + i), want, "n {n} element {i}");
        }
    }
}

/// The measurement variant `testbenches/kernels/gpucc/map/conv5x5_stream.s`
/// (docs/gpucc.md section 9) maps onto 29 cores and 13 LSUs and computes
/// what its header says: the host reference's 5x5 at rows 2..H-3, columns
/// 2..W-3, bit for bit, on the golden model; the input and the weights are
/// left as they were.
#[test]
fn stream_variant_of_the_5x5_computes_the_interior() {
    use smrtl::golden::gpucc::map::{map_source, MapOptions};
    let src = include_str!("../testbenches/kernels/gpucc/map/conv5x5_stream.s");
    let (text, maps) = map_source(src, &MapOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!((maps[0].cores, maps[0].lsus), (29, 13), "{maps:?}");
    let prog = assemble(&text, "conv5x5_stream.s").unwrap_or_else(|e| panic!("{}", e.render(&text)));
    for (w, h, seed) in [(37u32, 21u32, 51u64), (9, 5, 52), (64, 9, 53)] {
        let case = conv_gpucc(5, w, h, seed);
        let p = |n: &str| case.params.iter().find(|x| x.0 == n).unwrap().1 as usize;
        let (pin, pout) = (p("in"), p("out"));
        let (out, _) = run_kernel(&gpucc(), &prog, &case.launch(), case.gmem.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", case.label));
        let word = |img: &[u8], a: usize| u32::from_le_bytes(img[a..a + 4].try_into().unwrap());
        let mut checked = 0;
        for y in 2..h as usize - 2 {
            for x in 2..w as usize - 2 {
                let a = pout + 4 * (y * w as usize + x);
                assert_eq!(word(&out, a), word(&case.expected, a), "{} at ({x}, {y})", case.label);
                checked += 1;
            }
        }
        assert_eq!(checked, (h as usize - 4) * (w as usize - 4));
        // Nothing but out is written: the input image and the weights.
        assert_eq!(out[pin..pout], case.gmem[pin..pout], "{}", case.label);
    }
}

/// The two-stream variant `testbenches/kernels/gpucc/map/conv3x3_rows2.s`
/// (docs/gpucc.md section 12.1) maps onto 23 cores and 8 LSUs and is a
/// whole 3x3 convolution: the host reference bit for bit on the golden
/// model at the sizes of the kernel's tests and the edge shapes (one row,
/// one column, an odd and an even number of inner rows), and on the RTL SM
/// (lock-step, every token against the golden dataflow model) at one.
#[test]
fn two_stream_variant_of_the_3x3_matches_the_host_reference() {
    use smrtl::golden::gpucc::map::{map_source, MapOptions};
    let src = include_str!("../testbenches/kernels/gpucc/map/conv3x3_rows2.s");
    let (text, maps) = map_source(src, &MapOptions::default()).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!((maps.len(), maps[0].cores, maps[0].lsus), (1, 30, 8), "{maps:?}");
    let prog = assemble(&text, "conv3x3_rows2.s").unwrap_or_else(|e| panic!("{}", e.render(&text)));
    let sizes = [
        (37u32, 21u32),
        (100, 37),
        (1000, 7),
        (1, 1),
        (1, 7),
        (9, 1),
        (2, 2),
        (64, 3),
        (3, 5),
        (4, 4),
        (7, 6),
        (1, 2),
        (2, 1),
        (2, 3),
        (3, 3),
        (5, 2),
        (8, 9),
    ];
    for (i, &(w, h)) in sizes.iter().enumerate() {
        let case = conv_gpucc(3, w, h, 60 + i as u64);
        let (out, _) = run_kernel(&gpucc(), &prog, &case.launch(), case.gmem.clone())
            .unwrap_or_else(|e| panic!("{}: {e}", case.label));
        case.check(&out).unwrap_or_else(|m| panic!("{m}"));
    }
    let case = conv_gpucc(3, 37, 21, 70);
    let r = rtl(&text, "conv3x3_rows2.s", &gpucc(), &case.launch(), case.gmem.clone())
        .unwrap_or_else(|e| panic!("{}: {e}", case.label));
    case.check(&r.gmem).unwrap_or_else(|m| panic!("{m}"));
    // One run; every firing but the stores' drives a token, and each was
    // checked: W + 2 stores per row and stream, 2 x 11 rows (21 rows, the
    // middle one twice).
    assert_eq!(r.report.gc_runs, 1, "{}", r.report.render());
    assert_eq!(
        r.report.gc_tokens_checked,
        r.report.gc_fire - 39 * 22,
        "{}",
        r.report.render()
    );
}
