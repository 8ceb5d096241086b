//! Tests of the GPU-CC network against the golden dataflow model through
//! `testbenches::gpucc_tb` (every token, every request, the final image).

use crate::config::SmConfig;
use crate::golden::gpucc::text::assemble_block;
use crate::golden::gpucc::{Network, NodeCfg, NODES};
use crate::testbenches::gpucc_tb::{run, TbOpts, TbReport, Variant};

fn gpucc() -> SmConfig {
    SmConfig::load("gpucc").unwrap()
}

/// Assemble a `.gpucc` block body of literals only into a network.
fn network(block: &str, cfg: &SmConfig) -> Network {
    let lines: Vec<(u32, &str)> = block.lines().enumerate().map(|(n, t)| (n as u32 + 1, t)).collect();
    let code = assemble_block(&lines, 999).unwrap_or_else(|e| panic!("{e:?}"));
    let mut nodes = vec![NodeCfg::default(); NODES];
    for (ins, _) in code {
        match (ins.op, ins.b) {
            (crate::golden::isa::Op::Gcset, crate::golden::isa::Src::Imm(v)) => nodes[ins.d as usize].write(ins.a, v),
            (crate::golden::isa::Op::Gcset, b) => panic!("{b:?}: literals only"),
            _ => {}
        }
    }
    Network::build(&nodes, cfg).unwrap_or_else(|e| panic!("{e}"))
}

/// A counter core, a load, an FP add, a store: out[i] = in[i] + 1.0.
const CHAIN: &str = "\
grid 16, 3
core0 IMAD y, 16, x -> A
lsu1 LDG [core0*4 + 0x0] -> B
core2 FADD lsu1, 1.0 -> C
core3 IMAD y, 16, x -> A
lsu2 STG [core3*4 + 0x200], core2";

fn image(words: usize, seed: u32) -> Vec<u8> {
    (0..words as u32)
        .map(|i| ((i.wrapping_mul(2654435761) ^ seed) % 1000) as f32 / 7.0)
        .flat_map(|f| f.to_bits().to_le_bytes())
        .collect()
}

#[test]
fn chain_matches_the_golden_model() {
    let cfg = gpucc();
    let net = network(CHAIN, &cfg);
    for (latency, seed) in [(1, 0), (20, 0), (300, 0), (40, 7)] {
        let mut mem = image(256, 3);
        let r = run(
            &net,
            &cfg,
            &mut mem,
            &TbOpts {
                latency,
                seed,
                ..TbOpts::default()
            },
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.stores, 48);
        assert_eq!(r.loads, 48);
        // out[i] = in[i] + 1.0, written by hand from the input image.
        for i in 0..48 {
            let x = f32::from_le_bytes(mem[4 * i..4 * i + 4].try_into().unwrap());
            let y = f32::from_le_bytes(mem[0x200 + 4 * i..0x200 + 4 * i + 4].try_into().unwrap());
            assert_eq!(y.to_bits(), (x + 1.0).to_bits(), "word {i}");
        }
        eprintln!(
            "latency {latency} seed {seed}: {} hot cycles, {} checked",
            r.hot_cycles, r.checked
        );
        // Stall accounting: a node either fires or stalls in a cycle, never
        // more cycles than the run; at latency 300 the load (lsu1) waits
        // for output space (its 16 credits) and the add (core2) for data.
        for n in 0..NODES {
            assert!(
                r.firings[n] + r.stall_in[n] + r.stall_out[n] <= r.hot_cycles,
                "node {n}"
            );
        }
        if latency == 300 {
            let (lsu1, core2) = (crate::golden::gpucc::CORES + 1, 2);
            assert!(
                r.stall_out[lsu1] > 300 && r.stall_in[core2] > 300,
                "{}",
                r.per_node(&net)
            );
        }
    }
}

/// Run a GPU-CC kernel case on the golden model, keeping each `GCRUN`'s
/// network, then replay every run on the RTL network (each checked against
/// the golden dataflow model) and check the last image against the host
/// reference: each run's report.
fn rtl_case(case: &crate::testbenches::kernels::Case, o: &TbOpts) -> Vec<TbReport> {
    use crate::golden::asm::assemble;
    use crate::golden::model::{Golden, DEFAULT_BUDGET};
    let cfg = gpucc();
    let prog = assemble(case.source, case.file).unwrap();
    let mut g = Golden::new(&cfg, &prog, &case.launch(), case.gmem.clone()).unwrap();
    g.keep_gpucc_runs(true);
    g.run(DEFAULT_BUDGET).unwrap();
    let mut mem = Vec::new();
    let mut reps = Vec::new();
    for (k, (net, start)) in g.gpucc_kept().iter().enumerate() {
        if k > 0 {
            // No SIMT code between the runs writes memory.
            assert_eq!(&mem, start, "{}: the SIMT code between runs changed memory", case.label);
        }
        mem = start.clone();
        let r = run(net, &cfg, &mut mem, o).unwrap_or_else(|e| panic!("{} run {k}: {e}", case.label));
        reps.push(r);
    }
    case.check(&mem).unwrap_or_else(|e| panic!("{e}"));
    reps
}

#[test]
fn conv_kernels_on_the_rtl_network() {
    use crate::testbenches::kernels::conv_gpucc;
    // Both RTL variants: each core with its own lane, and the cores on
    // the SP array's lanes (lane mode) as in the SM. Each is checked
    // against the golden model and the host reference; then the two runs
    // must be the same cycle for cycle: hot cycles, firings and stall
    // cycles per node.
    for (ksize, w, h, seed) in [(3, 37, 21, 1), (3, 1, 7, 2), (5, 9, 5, 3), (3, 2, 2, 4)] {
        let case = conv_gpucc(ksize, w, h, seed);
        let o = |variant| TbOpts {
            variant,
            latency: 30,
            seed,
            ..TbOpts::default()
        };
        let own = rtl_case(&case, &o(Variant::OwnLanes));
        let sp = rtl_case(&case, &o(Variant::SpArray));
        assert_eq!(own, sp, "{}: own lanes vs the SP array's", case.label);
        let cyc: Vec<u64> = own.iter().map(|r| r.hot_cycles).collect();
        let checked: u64 = own.iter().map(|r| r.checked).sum();
        eprintln!("conv{ksize}x{ksize} {w}x{h}: hot cycles per run {cyc:?}, {checked} checked, same on the SP array");
    }
}

/// The network on the SP array's lanes (`testbenches::gpucc_sp`) against
/// the golden model and against the network with its own lanes, on the
/// same random configurations, images and memory timing: both pass the
/// golden checks, and their reports (hot cycles, firings, stall cycles
/// per node, loads, stores, checks) and final images are equal.
#[test]
fn sp_array_lanes_match_own_lanes_on_random_configurations() {
    use crate::testbenches::gpucc_gen;
    let cfg = gpucc();
    let (mut cycles, mut checked) = (0, 0);
    for seed in (0..12).chain([0x5eed_0000_0001, 0xdead_beef_cafe, u64::MAX - 3]) {
        let (net, _) = gpucc_gen::network(&cfg, seed);
        let run_on = |variant| {
            let mut mem = gpucc_gen::image(seed);
            let o = TbOpts {
                variant,
                latency: [1, 7, 40, 300][(seed % 4) as usize],
                seed: seed % 3,
                ..TbOpts::default()
            };
            let r = run(&net, &cfg, &mut mem, &o).unwrap_or_else(|e| panic!("seed {seed} {variant:?}: {e}"));
            (r, mem)
        };
        let (own, own_mem) = run_on(Variant::OwnLanes);
        let (sp, sp_mem) = run_on(Variant::SpArray);
        assert_eq!(own, sp, "seed {seed}: own lanes vs the SP array's");
        assert!(own_mem == sp_mem, "seed {seed}: final images differ");
        cycles += own.hot_cycles;
        checked += own.checked;
    }
    eprintln!("15 random configurations on both variants: {cycles} hot cycles each, {checked} tokens and requests checked each");
    assert!(checked > 1000, "{checked}");
}

/// The planted wiring fault: the SP groups never in lane mode, so no lane
/// result comes back. The cores report it (`err_o`), the run fails.
#[test]
fn sp_array_without_lane_mode_is_an_error() {
    let cfg = gpucc();
    let net = network(CHAIN, &cfg);
    let mut mem = image(256, 3);
    let o = TbOpts {
        variant: Variant::SpArrayNoLaneMode,
        ..TbOpts::default()
    };
    let e = run(&net, &cfg, &mut mem, &o).expect_err("a run without lane mode must fail");
    assert!(e.contains("a lane raised an error"), "{e}");
}

/// One random configuration (`testbenches::gpucc_gen`) on the RTL network
/// against the golden model: hot cycles of the run.
fn random_case(seed: u64) -> u64 {
    use crate::testbenches::gpucc_gen;
    let cfg = gpucc();
    let (net, _) = gpucc_gen::network(&cfg, seed);
    let mut mem = gpucc_gen::image(seed);
    let o = TbOpts {
        latency: [1, 7, 40, 300][(seed % 4) as usize],
        seed: seed % 3,
        ..TbOpts::default()
    };
    run(&net, &cfg, &mut mem, &o)
        .unwrap_or_else(|e| panic!("seed {seed}: {e}"))
        .hot_cycles
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 50, ..Default::default() })]
    #[test]
    fn random_configurations_match_the_golden_model(seed in 0u64..u64::MAX) {
        random_case(seed);
    }
}

#[test]
fn generated_configurations_use_the_network() {
    // The generator's configurations are not trivial: over 40 seeds they
    // configure many nodes, loads and stores.
    let cfg = gpucc();
    let (mut nodes, mut loads, mut stores) = (0, 0, 0);
    for seed in 0..40 {
        let (net, used) = crate::testbenches::gpucc_gen::network(&cfg, seed);
        nodes += used;
        for c in &net.nodes {
            loads += (c.op == crate::golden::isa::Op::Ldg as u8) as usize;
            stores += (c.op == crate::golden::isa::Op::Stg as u8) as usize;
        }
    }
    eprintln!("40 configurations: {nodes} nodes, {loads} loads, {stores} stores");
    assert!(nodes > 40 * 8 && loads > 40 && stores > 40, "{nodes} {loads} {stores}");
}

/// Initial tokens (docs/gpucc.md section 5): core1 adds its producer's
/// stream read 2 and 3 firings late; the RTL and the golden model store
/// the values worked out by hand, and the run ends with the unread tokens
/// dropped (the network idles).
#[test]
fn delayed_inputs_read_late() {
    use crate::golden::gpucc::{Network, NodeCfg, Source};
    use crate::golden::isa::Op;
    let cfg = gpucc();
    let src = |s: Source| s.code() as u8;
    let mut nodes = vec![NodeCfg::default(); 48];
    let counted = |c: &mut NodeCfg| {
        c.counter = true;
        c.nx = 5;
        c.ny = 2;
    };
    // core0: IADD x, 100 -> A (100..104, twice)
    nodes[0].op = Op::Iadd as u8;
    nodes[0].src = [src(Source::X), src(Source::Imm), 0];
    nodes[0].imm = 100;
    nodes[0].out_lane = 1;
    counted(&mut nodes[0]);
    // core1: IADD core0[-2], core0[-3] -> B
    nodes[1].op = Op::Iadd as u8;
    nodes[1].src = [src(Source::Fifo(0)), src(Source::Fifo(1)), 0];
    nodes[1].fifo_lane = [1, 1, 0];
    nodes[1].delay = [2, 3, 0];
    nodes[1].out_lane = 2;
    counted(&mut nodes[1]);
    // core2: IMAD y, 5, x -> C; lsu2: STG [C*4], B
    nodes[2].op = Op::Imad as u8;
    nodes[2].src = [src(Source::Y), src(Source::Imm), src(Source::X)];
    nodes[2].imm = 5;
    nodes[2].out_lane = 3;
    counted(&mut nodes[2]);
    let st = &mut nodes[34];
    st.op = Op::Stg as u8;
    st.m = 2;
    st.src = [src(Source::Fifo(0)), src(Source::Fifo(1)), 0];
    st.fifo_lane = [3, 2, 0];
    let net = Network::build(&nodes, &cfg).expect("legal");
    for latency in [1, 7, 40] {
        let mut mem = vec![0xffu8; 4096];
        let o = TbOpts {
            latency,
            ..TbOpts::default()
        };
        run(&net, &cfg, &mut mem, &o).expect("runs and drains");
        let words: Vec<u32> = (0..10)
            .map(|k| u32::from_le_bytes(mem[4 * k..4 * k + 4].try_into().expect("4")))
            .collect();
        // s = 100,101,102,103,104,100,...; out[i] = s[i-2] + s[i-3], 0 before.
        assert_eq!(words, [0, 0, 100, 201, 203, 205, 207, 204, 201, 203]);
    }
}
