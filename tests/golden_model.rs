//! The golden model on bad input: every class stops with a clear error
//! naming the place (CTA, warp, lane, pc, source line) and the reason,
//! never a hang or a panic; and `smrtl run` end to end.

use smrtl::golden::asm::assemble;
use smrtl::golden::isa::{Instr, Op, Program};
use smrtl::golden::model::{run_kernel, Golden, Launch, Reason, RunError};
use smrtl::sm::SmConfig;
use std::process::{Command, Output};

fn cfg(name: &str) -> SmConfig {
    SmConfig::load(name).unwrap()
}

fn launch(grid: [u32; 2], block: [u32; 3], params: Vec<u32>) -> Launch {
    Launch { grid, block, params }
}

/// Assemble `src` and run it on gt200 with `threads` threads in each of
/// `ctas` CTAs, `gmem` bytes of global memory; expect an error.
fn fails(src: &str, ctas: u32, threads: u32, params: Vec<u32>, gmem: usize) -> RunError {
    let p = assemble(src, "bad.s").unwrap();
    match run_kernel(
        &cfg("gt200"),
        &p,
        &launch([ctas, 1], [threads, 1, 1], params),
        vec![0; gmem],
    ) {
        Ok(_) => panic!("expected an error"),
        Err(e) => e,
    }
}

/// Like [`fails`], with instruction `pc`'s branch target patched to
/// `target` after assembly (the assembler rejects targets outside the
/// program; a program built in memory can still hold one).
fn fails_with_target(src: &str, pc: usize, target: u32) -> RunError {
    let mut p = assemble(src, "bad.s").unwrap();
    p.code[pc].b = smrtl::golden::isa::Src::Imm(target);
    run_kernel(&cfg("gt200"), &p, &launch([1, 1], [32, 1, 1], vec![]), vec![]).expect_err("expected an error")
}

fn has(e: &RunError, needles: &[&str]) {
    let s = e.to_string();
    for n in needles {
        assert!(s.contains(n), "error message lacks `{n}`:\n{s}");
    }
}

#[test]
fn kernel_that_never_exits_hits_the_budget() {
    let p = assemble(".regs 4\nloop:\n  IADD R1, R1, 1\n  BRA loop\n", "spin.s").unwrap();
    let mut g = Golden::new(&cfg("gt200"), &p, &launch([1, 1], [64, 1, 1], vec![]), vec![]).unwrap();
    let e = g.run(10_000).unwrap_err();
    assert!(matches!(e.reason, Reason::Budget { budget: 10_000 }));
    has(
        &e,
        &[
            "cta 0 (0,0)",
            "warp 0",
            "pc 0",
            "line 3",
            "budget of 10000 warp instructions",
        ],
    );
    assert_eq!(g.stats().warp_instrs, 10_000);
}

#[test]
fn branch_out_of_the_program() {
    let e = fails_with_target(".regs 4\n  NOP\n  BRA 0\n  EXIT\n", 1, 17);
    assert!(matches!(e.reason, Reason::BranchOutOfCode { target: 17, len: 3 }));
    has(
        &e,
        &[
            "warp 0",
            "pc 1",
            "line 3",
            "branch target 17 is outside the code (0..3)",
        ],
    );
}

#[test]
fn ssy_target_out_of_the_program() {
    let e = fails_with_target(".regs 4\n  SSY 1\n  EXIT\n", 0, 99);
    has(&e, &["pc 0", "branch target 99 is outside the code"]);
}

#[test]
fn running_off_the_end() {
    let e = fails(".regs 4\n  MOV R1, 1\n  IADD R1, R1, 1\n", 1, 32, vec![], 0);
    has(
        &e,
        &[
            "warp 0",
            "pc 2",
            "ran off the end of the code (2 instructions) without EXIT",
            // Regression: the message must name a source line (pc 2 has none).
            "the last instruction is at line 3",
        ],
    );
}

/// Regression: `--param 1e39` must not become +inf, nor `1e-50` 0, silently.
#[test]
fn param_values_fp32_cannot_hold_are_errors() {
    use smrtl::golden::model::parse_param_value as p;
    for (t, needle) in [
        ("1e39", "overflows FP32"),
        ("-1e39", "overflows FP32"),
        ("1e400", "overflows FP32"),
        ("1e-50", "underflows FP32 to zero"),
        ("-1e-46f", "underflows FP32 to zero"),
        ("1.5e-45", "not exact in FP32's subnormal range"),
    ] {
        let e = p(t).expect_err(t);
        assert!(e.contains(needle) && e.contains(t) && e.contains("hex"), "{t}: {e}");
    }
    // What FP32 holds (or rounds within its normal range) still parses.
    assert_eq!(p("3.4028235e38"), Ok(0x7f7f_ffff));
    assert_eq!(p("1.1754944e-38"), Ok(0x0080_0000));
    assert_eq!(p("1.401298464324817e-45"), Ok(1));
    assert_eq!(p("0.1"), Ok(0x3dcc_cccd));
    assert_eq!(p("0.0"), Ok(0));
    assert_eq!(p("-0e5"), Ok(0x8000_0000));
    assert_eq!(p("-inf"), Ok(0xff80_0000));
    assert_eq!(p("0x7f800000"), Ok(0x7f80_0000));
}

#[test]
fn out_of_bounds_global_names_the_lane_and_address() {
    // Lane 4 of CTA 1 reads word 36: past a 144-byte image.
    let src =
        ".regs 8\n S2R R0, SR_TID.X\n S2R R1, SR_CTAID.X\n IMAD R0, R1, 32, R0\n SHL R0, R0, 2\n LDG R2, [R0]\n EXIT\n";
    let src = src.replace("IMAD R0, R1, 32, R0", "SHL R1, R1, 5\n IADD R0, R0, R1");
    let e = fails(&src, 2, 32, vec![], 144);
    has(
        &e,
        &[
            "cta 1 (1,0)",
            "warp 0",
            "lane 4",
            "pc 5",
            "line 7",
            "global access of 4 bytes at address 0x90 is out of bounds (global memory is 144 bytes)",
        ],
    );
}

#[test]
fn out_of_bounds_global_store_and_wrapping_offset() {
    let e = fails(".regs 4\n STG [RZ-4], R1\n EXIT\n", 1, 1, vec![], 64);
    has(&e, &["lane 0", "address 0xfffffffc is out of bounds"]);
}

#[test]
fn misaligned_global() {
    let e = fails(".regs 4\n LDG R1, [RZ+2]\n EXIT\n", 1, 32, vec![], 64);
    has(
        &e,
        &[
            "lane 0",
            "misaligned global access at address 0x2 (needs 4-byte alignment",
        ],
    );
    let e = fails(".regs 4\n STG.64 [RZ+4], R2\n EXIT\n", 1, 32, vec![], 64);
    has(&e, &["misaligned global access at address 0x4 (needs 8-byte alignment"]);
}

#[test]
fn out_of_bounds_and_misaligned_shared() {
    let e = fails(
        ".regs 4\n.shared 64\n S2R R0, SR_TID.X\n SHL R0, R0, 2\n STS [R0], R0\n EXIT\n",
        1,
        32,
        vec![],
        0,
    );
    has(
        &e,
        &[
            "lane 16",
            "pc 2",
            "shared access of 4 bytes at address 0x40 is out of bounds (shared memory is 64 bytes)",
        ],
    );
    let e = fails(".regs 4\n.shared 64\n LDS R1, [RZ+6]\n EXIT\n", 1, 32, vec![], 0);
    has(&e, &["misaligned shared access at address 0x6"]);
    let e = fails(".regs 4\n ATOMS.ADD R1, [RZ+0], R2\n EXIT\n", 1, 32, vec![], 0);
    has(
        &e,
        &["shared access of 4 bytes at address 0x0 is out of bounds (shared memory is 0 bytes)"],
    );
}

#[test]
fn too_many_threads_for_the_preset() {
    let p = assemble(".regs 4\n EXIT\n", "k.s").unwrap();
    let e = Golden::new(&cfg("tesla"), &p, &launch([1, 1], [32, 17, 1], vec![]), vec![])
        .err()
        .unwrap();
    has(
        &e,
        &["544 threads per CTA exceed max_threads = 512 of the tesla preset"],
    );
}

#[test]
fn too_many_registers_for_the_preset() {
    let p = assemble(".regs 64\n EXIT\n", "k.s").unwrap();
    let e = Golden::new(&cfg("fermi"), &p, &launch([1, 1], [32, 1, 1], vec![]), vec![])
        .err()
        .unwrap();
    has(&e, &[".regs 64 exceeds max_regs_per_thread = 63 of the fermi preset"]);
    // Register file: 40 x 416 threads (13 warps) > 16384 on gt200.
    let p = assemble(".regs 40\n EXIT\n", "k.s").unwrap();
    let e = Golden::new(&cfg("gt200"), &p, &launch([1, 1], [400, 1, 1], vec![]), vec![])
        .err()
        .unwrap();
    has(
        &e,
        &["40 registers x 416 threads (whole warps) = 16640 exceed the register file (registers = 16384)"],
    );
}

#[test]
fn register_beyond_regs_is_rejected_at_load() {
    // Built directly (the assembler may reject it first).
    let mut i = Instr::new(Op::Mov);
    i.d = 9;
    i.b = smrtl::golden::isa::Src::Imm(1);
    let p = Program {
        name: "k".into(),
        regs: 8,
        shared_bytes: 0,
        params: vec![],
        code: vec![Instr::new(Op::Nop), i, Instr::new(Op::Exit)],
        src_lines: vec![1, 2, 3],
    };
    let e = Golden::new(&cfg("gt200"), &p, &launch([1, 1], [32, 1, 1], vec![]), vec![])
        .err()
        .unwrap();
    has(&e, &["pc 1", "line 2", "register R9 is not below .regs 8"]);
    // A DADD pair whose odd half is past .regs.
    let mut d = Instr::new(Op::Dadd);
    d.d = 6;
    let p = Program {
        code: vec![d, Instr::new(Op::Exit)],
        regs: 7,
        src_lines: vec![],
        ..p
    };
    let e = Golden::new(&cfg("gt200"), &p, &launch([1, 1], [32, 1, 1], vec![]), vec![])
        .err()
        .unwrap();
    has(&e, &["pc 0", "register R7 is not below .regs 7"]);
}

#[test]
fn too_much_shared_memory_for_the_preset() {
    let p = assemble(".regs 4\n.shared 20000\n EXIT\n", "k.s").unwrap();
    let e = Golden::new(&cfg("gt200"), &p, &launch([1, 1], [32, 1, 1], vec![]), vec![])
        .err()
        .unwrap();
    has(
        &e,
        &[".shared 20000 bytes exceed smem_bytes = 16384 of the gt200 preset"],
    );
}

#[test]
fn parameter_count_mismatch() {
    let p = assemble(".regs 4\n.param a\n.param n\n EXIT\n", "k.s").unwrap();
    let e = Golden::new(&cfg("gt200"), &p, &launch([1, 1], [32, 1, 1], vec![1]), vec![])
        .err()
        .unwrap();
    has(&e, &["declares 2 parameter words (.param) but the launch gives 1"]);
    // A register-indexed LDC past the end of the parameters.
    let e = fails(
        ".regs 4\n.param a\n S2R R0, SR_TID.X\n LDC R1, c[R0+0]\n EXIT\n",
        1,
        32,
        vec![5],
        0,
    );
    has(
        &e,
        &[
            "lane 1",
            "pc 1",
            "parameter word index 1 is out of range (the launch has 1 words)",
        ],
    );
}

#[test]
fn empty_launch() {
    let p = assemble(".regs 4\n EXIT\n", "k.s").unwrap();
    let e = Golden::new(&cfg("gt200"), &p, &launch([1, 0], [32, 1, 1], vec![]), vec![])
        .err()
        .unwrap();
    has(&e, &["grid y is 0"]);
    let e = Golden::new(
        &cfg("gt200"),
        &p,
        &launch([100_000, 100_000], [32, 1, 1], vec![]),
        vec![],
    )
    .err()
    .unwrap();
    has(&e, &["a grid of 10000000000 CTAs is too large"]);
}

#[test]
fn barrier_deadlock() {
    // Lanes 0-15 reach BAR, lanes 16-31 are parked on the stack: the
    // barrier can never see them.
    let src = "
.regs 4
    S2R R0, SR_TID.X
    SSY join
    ISETP.GE P0, R0, 16
    @P0 BRA other
    BAR
    SYNC
other:
    SYNC
join:
    EXIT
";
    let e = fails(src, 1, 64, vec![], 0);
    assert!(matches!(
        e.reason,
        Reason::Deadlock {
            arrived: 0xffff,
            parked: 0xffff_0000
        }
    ));
    has(
        &e,
        &[
            "warp 0",
            "pc 4",
            "line 7",
            "barrier deadlock",
            "lanes 0000ffff",
            "lanes ffff0000 are parked",
        ],
    );
}

#[test]
fn barrier_with_finished_warps_releases() {
    // Warp 1 exits early; warp 0's BAR must not wait for it.
    let src = "
.regs 4
    S2R R0, SR_WARPID
    ISETP.EQ P0, R0, 1
    @P0 EXIT
    BAR
    MOV R1, 7
    EXIT
";
    let p = assemble(src, "k.s").unwrap();
    let (_, s) = run_kernel(&cfg("gt200"), &p, &launch([1, 1], [64, 1, 1], vec![]), vec![]).unwrap();
    assert_eq!(s.ctas, 1);
}

#[test]
fn sync_on_an_empty_stack() {
    let e = fails(".regs 4\n NOP\n SYNC\n EXIT\n", 1, 32, vec![], 0);
    assert!(matches!(e.reason, Reason::SyncEmptyStack));
    has(
        &e,
        &["warp 0", "pc 1", "line 3", "SYNC with an empty reconvergence stack"],
    );
}

#[test]
fn stack_overflow() {
    let e = fails(".regs 4\nloop:\n SSY loop\n BRA loop\n", 1, 32, vec![], 0);
    has(&e, &["pc 0", "reconvergence stack overflow (more than 40 entries)"]);
}

#[test]
fn guarded_ssy_is_rejected_at_load() {
    let p = Program {
        name: "k".into(),
        regs: 4,
        code: vec![
            {
                let mut i = Instr::new(Op::Ssy);
                i.b = smrtl::golden::isa::Src::Imm(1);
                i.guard.pred = 0;
                i
            },
            Instr::new(Op::Exit),
        ],
        ..Program::default()
    };
    let e = Golden::new(&cfg("gt200"), &p, &launch([1, 1], [32, 1, 1], vec![]), vec![])
        .err()
        .unwrap();
    has(&e, &["pc 0", "SSY must not have a guard predicate"]);
}

// ---------------------------------------------------------------------------
// smrtl run
// ---------------------------------------------------------------------------

fn smrtl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_smrtl")).args(args).output().unwrap()
}

const VADD: &str = "
.kernel addc
.regs 8
.param n
.param c
    S2R R0, SR_TID.X
    S2R R1, SR_CTAID.X
    S2R R2, SR_NTID.X
    IMAD R0, R1, R2, R0
    LDC R3, c[n]
    ISETP.GE P0, R0, R3
    @P0 EXIT
    SHL R4, R0, 2
    LDG R5, [R4]
    LDC R6, c[c]
    FADD R5, R5, R6
    STG [R4], R5
    EXIT
";

#[test]
fn cli_run_writes_the_output_image_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("addc.s");
    std::fs::write(&k, VADD).unwrap();
    let input = dir.path().join("in.bin");
    let img: Vec<u8> = (0..100).flat_map(|i| (i as f32).to_bits().to_le_bytes()).collect();
    std::fs::write(&input, &img).unwrap();
    let out = dir.path().join("out.bin");
    let o = smrtl(&[
        "run",
        k.to_str().unwrap(),
        "--config",
        "gt200",
        "--grid",
        "4",
        "--block",
        "32",
        "--param",
        "n=100",
        "--param",
        "c=0.5",
        "--input",
        input.to_str().unwrap(),
        "--gmem-size",
        "512",
        "--output",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let res = std::fs::read(&out).unwrap();
    assert_eq!(res.len(), 512);
    for i in 0..128usize {
        let v = f32::from_le_bytes(res[4 * i..4 * i + 4].try_into().unwrap());
        let want = if i < 100 { i as f32 + 0.5 } else { 0.0 };
        assert_eq!(v, want, "word {i}");
    }
    // 100 threads run FADD: 4 warp instructions, 100 thread instructions.
    assert!(
        stdout
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["fp32", "4", "100"]),
        "{stdout}"
    );
    assert!(stdout.contains("CTAs completed: 4"), "{stdout}");
}

#[test]
fn cli_run_failure_still_writes_the_image_and_names_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("addc.s");
    std::fs::write(&k, VADD).unwrap();
    let out = dir.path().join("out.bin");
    let o = smrtl(&[
        "run",
        k.to_str().unwrap(),
        "--grid",
        "2",
        "--block",
        "32",
        "--param",
        "64",
        "--param",
        "1.0",
        "--gmem-size",
        "160",
        "--output",
        out.to_str().unwrap(),
    ]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(!e.contains("panicked"), "{e}");
    assert!(
        e.contains("cta 1 (1,0), warp 0, lane 8, pc 8, line 14: global access"),
        "{e}"
    );
    // CTA 0 finished its 32 words before the error.
    let res = std::fs::read(&out).unwrap();
    assert_eq!(res.len(), 160);
    assert_eq!(f32::from_le_bytes(res[124..128].try_into().unwrap()), 1.0);
}

#[test]
fn cli_run_bad_params_and_trace() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("addc.s");
    std::fs::write(&k, VADD).unwrap();
    let ks = k.to_str().unwrap();
    let o = smrtl(&["run", ks, "--param", "n=1"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing --param for: c"));
    let o = smrtl(&["run", ks, "--param", "1"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("declares 2 parameter words (.param) but the launch gives 1"));
    let o = smrtl(&["run", ks, "--param", "n=zz", "--param", "c=1"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("parameter value `zz`"));
    let o = smrtl(&["run", ks, "--grid", "1,2,3", "--param", "0", "--param", "0"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--grid `1,2,3`"));
    let o = smrtl(&["run", ks, "--block", "2", "--param", "0", "--param", "0", "--trace"]);
    assert!(o.status.success());
    let t = String::from_utf8_lossy(&o.stderr);
    assert!(
        t.contains("cta 0 warp 0 pc 0 mask 00000003  S2R R0, SR_TID.X  -> R0: 0=00000000 1=00000001"),
        "{t}"
    );
    assert!(t.contains("pc 6 mask 00000003  @P0 EXIT"), "{t}");
    std::fs::write(&k, ".regs 4\n FOO R1\n").unwrap();
    let o = smrtl(&["run", ks]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("addc.s:2"), "{e}");
}

#[test]
fn cli_run_loads_a_program_file() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("addc.bin");
    std::fs::write(&bin, assemble(VADD, "addc.s").unwrap().to_bytes()).unwrap();
    let out = dir.path().join("out.bin");
    let o = smrtl(&[
        "run",
        bin.to_str().unwrap(),
        "--param",
        "2",
        "--param",
        "0x3f800000",
        "--gmem-size",
        "8",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        [1.0f32.to_le_bytes(), 1.0f32.to_le_bytes()].concat()
    );
    // A file that is not a program.
    std::fs::write(&bin, b"garbage").unwrap();
    let o = smrtl(&["run", bin.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && e.contains("not an smrtl program file"), "{e}");
}

/// PSETP and IMAD with an immediate on the model: PSETP (AND/OR/XOR with negated
/// operands, under a guard) and IMAD with an immediate (addend = d).
/// Expected values are written per lane in plain Rust.
#[test]
fn psetp_and_imad_immediate_execute() {
    let src = "\
.regs 8
    S2R R0, SR_TID.X
    ISETP.LT P0, R0, 10
    AND R1, R0, 1
    ISETP.NE P1, R1, 0
    MOV R4, 0
    MOV R6, 1
    PSETP.AND P2, P0, !P1
    SEL R4, R6, 0, P2
    PSETP.OR P3, !P0, P1
    @P3 OR R4, R4, 2
    PSETP.XOR P2, P0, P1
    @P2 OR R4, R4, 4
    PSETP.AND P2, PT, !P0
    @P2 OR R4, R4, 8
    @P0 PSETP.OR P1, PT, PT
    @P1 OR R4, R4, 16
    MOV R3, 100
    IMAD R3, R0, 7, R3
    SHL R7, R0, 3
    STG [R7], R4
    STG [R7+4], R3
    EXIT
";
    let p = assemble(src, "psetp.s").unwrap_or_else(|e| panic!("{}", e.render(src)));
    let (out, _) = run_kernel(&cfg("gt200"), &p, &launch([1, 1], [64, 1, 1], vec![]), vec![0; 512]).unwrap();
    for t in 0..64u32 {
        let lt = t < 10;
        let odd = t & 1 == 1;
        let want = (lt && !odd) as u32
            | ((!lt || odd) as u32) << 1
            | ((lt ^ odd) as u32) << 2
            | (!lt as u32) << 3
            | ((odd || lt) as u32) << 4;
        let at = (t * 8) as usize;
        let word = |o: usize| u32::from_le_bytes(out[at + o..at + o + 4].try_into().unwrap());
        assert_eq!(word(0), want, "thread {t} predicate bits");
        assert_eq!(word(4), 7 * t + 100, "thread {t} IMAD immediate");
    }
    use smrtl::golden::isa::Unit;
    assert_eq!(Op::Psetp.unit(), Unit::Ctrl);
    assert_eq!(Op::Imad.unit(), Unit::Sp);
}

/// An instruction the preset does not implement stops the run where it
/// executes, as the RTL SM's error code 1 does: FFMA on gt200, FMAD on
/// fermi, FP64 on tesla. Never executed (a branch around it), it is no
/// error; on the preset that has it, it runs.
#[test]
fn instructions_the_preset_lacks_are_errors_where_they_execute() {
    let run = |preset: &str, src: &str| {
        let p = assemble(src, "lack.s").unwrap();
        run_kernel(&cfg(preset), &p, &launch([1, 1], [32, 1, 1], vec![]), vec![])
    };
    let cases = [
        ("gt200", "fermi", "FFMA R1, R2, R3, R4", "FFMA", "mul_add = \"fmad\""),
        ("fermi", "gt200", "FMAD R1, R2, R3, R4", "FMAD", "mul_add = \"ffma\""),
        ("tesla", "gt200", "DADD R2, R4, R6", "DADD", "fp64_rate_divisor = 0"),
    ];
    for (lacks, has_it, instr, op, why) in cases {
        let src = format!(".regs 8\n  IADD R1, R1, 1\n  {instr}\n  EXIT\n");
        let e = run(lacks, &src).expect_err(lacks);
        assert!(
            matches!(&e.reason, Reason::NotOnPreset { op: o, .. } if *o == op),
            "{e}"
        );
        has(&e, &["warp 0", "pc 1", "line 3", op, lacks, why, "error code 1"]);
        run(has_it, &src).unwrap_or_else(|e| panic!("{has_it}: {e}"));
        // Guarded off for every lane: still an error (the RTL decodes it).
        let guarded = format!(".regs 8\n  @P0 {instr}\n  EXIT\n");
        assert!(run(lacks, &guarded).is_err(), "{lacks}: guarded {op}");
        // Branched around: no error.
        let skipped = format!(".regs 8\n  BRA done\n  {instr}\ndone:\n  EXIT\n");
        run(lacks, &skipped).unwrap_or_else(|e| panic!("{lacks}, skipped {op}: {e}"));
    }
}
