//! GPU-CC mode on the golden model (docs/gpucc.md): the GPU-CC kernels of
//! `testbenches/kernels/gpucc/` against the host references of
//! `testbenches/kernels` (bit for bit), mode switches between SIMT and
//! GPU-CC code, and the errors of GPU-CC mode (deadlock, runaway, bad
//! launches, a switch in divergent code, a preset without the network).
//!
//! Run: `cargo test --test gpucc`.

use smrtl::config::SmConfig;
use smrtl::golden::asm::{assemble, disassemble};
use smrtl::golden::model::{run_kernel, Golden, Launch, Reason};
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
fn conv3x3_gpucc_matches_the_host_reference() {
    let k = &gpucc_kernels()[0];
    for case in (k.cases)(Fp32::Ieee) {
        run_case(&case);
    }
}

#[test]
fn conv3x3_gpucc_edge_sizes() {
    for (w, h, seed) in [(1, 1, 1), (1, 7, 2), (9, 1, 3), (2, 2, 4), (64, 3, 5)] {
        run_case(&conv_gpucc(3, w, h, seed));
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
