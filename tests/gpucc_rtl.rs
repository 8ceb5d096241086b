//! The GPU-CC network's Verilog (`gpucc_net_*`, src/units/gpucc) against
//! the Rust block: Verilator lock-step on random configurations and
//! traffic (`GpuccNet::constrain_hot`), every output every hot cycle;
//! Icarus on a short run. The network against the golden dataflow model
//! is in the unit tests (`cargo test --lib units::gpucc`).
//!
//! Run: `cargo test --release --test gpucc_rtl`.

use smrtl::config::SmConfig;
use smrtl::cosim::{self, icarus, Options};
use smrtl::units::gpucc::GpuccNet;
use std::path::PathBuf;

fn net() -> GpuccNet {
    GpuccNet::new(&SmConfig::load("gpucc").unwrap()).unwrap()
}

fn opts(cycles: u64, seed: u64, tag: &str) -> Options {
    Options {
        hot_cycles: cycles,
        seed,
        p_one: 0.5,
        wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(tag),
        window: 32,
    }
}

#[test]
fn gpucc_net_lockstep_verilator() {
    cosim::require_tools(&["verilator", "g++", "make"]);
    let r = cosim::lockstep(&net(), None, &opts(200_000, 5, "gpucc_net")).unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
    assert_eq!(r.hot_cycles, 200_000);
}

#[test]
fn gpucc_net_icarus() {
    cosim::require_tools(&["iverilog", "vvp"]);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("icarus_gpucc_net");
    let r = icarus::check(net(), None, 4_000, 7, 0.5, &dir).unwrap();
    assert_eq!((r.hot_cycles, r.mismatches), (4_000, 0), "{:?}", r.first);
}

/// Random legal configurations and images (`testbenches::gpucc_gen`) on
/// the RTL network against the golden dataflow model until the runs add
/// up to `SMRTL_GPUCC_CYCLES` hot cycles (default 2,000,000), memory
/// latencies 1, 7, 40 and 300 hot cycles, ready stalls and jitter on two
/// seeds in three. Run: `cargo test --release --test gpucc_rtl -- --ignored
/// --nocapture random_configurations_two_million_cycles`.
#[test]
#[ignore]
fn random_configurations_two_million_cycles() {
    use smrtl::testbenches::{gpucc_gen, gpucc_tb};
    let cfg = SmConfig::load("gpucc").unwrap();
    let want: u64 = std::env::var("SMRTL_GPUCC_CYCLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000_000);
    let from: u64 = std::env::var("SMRTL_GPUCC_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let (mut cycles, mut checked, mut nodes, mut n) = (0u64, 0u64, 0usize, 0u64);
    let mut seed = from;
    while cycles < want {
        let (net, used) = gpucc_gen::network(&cfg, seed);
        let mut mem = gpucc_gen::image(seed);
        let o = gpucc_tb::TbOpts {
            latency: [1, 7, 40, 300][(seed % 4) as usize],
            seed: seed % 3,
            ..Default::default()
        };
        let r = gpucc_tb::run(&net, &cfg, &mut mem, &o).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        cycles += r.hot_cycles;
        checked += r.checked;
        nodes += used;
        n += 1;
        seed += 1;
    }
    eprintln!(
        "{n} configurations (seeds {from}..{seed}), {nodes} nodes configured, {cycles} hot cycles, {checked} tokens and requests checked, 0 mismatches"
    );
}

/// Verilator lock-step of the network on random configurations and
/// traffic for 2,000,000 hot cycles (1,000,000 core cycles). Run: `cargo
/// test --release --test gpucc_rtl -- --ignored gpucc_net_lockstep_long`.
#[test]
#[ignore]
fn gpucc_net_lockstep_long() {
    cosim::require_tools(&["verilator", "g++", "make"]);
    let r = cosim::lockstep(&net(), None, &opts(2_000_000, 17, "gpucc_net_long")).unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
    assert_eq!(r.hot_cycles, 2_000_000);
}

/// The network whose cores drive external SP lanes (`gpucc_net_*_x`):
/// Verilator lock-step on random configurations, traffic and lane
/// results (`ln<j>_*_i` random), every output every hot cycle.
#[test]
fn gpucc_net_x_lockstep_verilator() {
    cosim::require_tools(&["verilator", "g++", "make"]);
    let x = GpuccNet::external(&SmConfig::load("gpucc").unwrap()).unwrap();
    let r = cosim::lockstep(&x, None, &opts(50_000, 11, "gpucc_net_x")).unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
    assert_eq!(r.hot_cycles, 50_000);
}

#[test]
fn gpucc_net_x_icarus() {
    cosim::require_tools(&["iverilog", "vvp"]);
    let x = GpuccNet::external(&SmConfig::load("gpucc").unwrap()).unwrap();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("icarus_gpucc_net_x");
    let r = icarus::check(x, None, 4_000, 13, 0.5, &dir).unwrap();
    assert_eq!((r.hot_cycles, r.mismatches), (4_000, 0), "{:?}", r.first);
}

/// The memory front end (`gpucc_mem_i64_p16_ra_j` on the gpucc preset, src/units/gpucc/mem.rs): its
/// Verilog against the Rust block on random inputs, every output every
/// hot cycle (Verilator), and a short Icarus run.
fn mem_block() -> smrtl::units::gpucc::mem::GpuccMem {
    smrtl::units::gpucc::mem::GpuccMem::of(&SmConfig::load("gpucc").unwrap()).unwrap()
}

#[test]
fn gpucc_mem_lockstep_verilator() {
    cosim::require_tools(&["verilator", "g++", "make"]);
    let r = cosim::lockstep(&mem_block(), None, &opts(100_000, 11, "gpucc_mem")).unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
    assert_eq!(r.hot_cycles, 100_000);
}

#[test]
fn gpucc_mem_icarus() {
    cosim::require_tools(&["iverilog", "vvp"]);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("icarus_gpucc_mem");
    let r = icarus::check(mem_block(), None, 4_000, 13, 0.5, &dir).unwrap();
    assert_eq!((r.hot_cycles, r.mismatches), (4_000, 0), "{:?}", r.first);
}
