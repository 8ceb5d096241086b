//! A config's global-memory fields reach the RTL SM's memory model: the
//! pointer-chase micro-benchmark (`gmem_lat`, every load depends on the
//! previous one) slows by the latency a layered config adds.

use smrtl::config::SmConfig;
use smrtl::sm::run::{run_program, RtlOptions};
use smrtl::testbenches::kernels::micro::micro_cases;

fn chase_cycles(cfg: &SmConfig) -> (u64, u32) {
    let c = micro_cases(cfg)
        .into_iter()
        .find(|c| c.name == "gmem_lat")
        .expect("gmem_lat case");
    let prog = smrtl::golden::asm::assemble(c.source, "gmem_lat.s").unwrap();
    let opts = RtlOptions {
        check: false,
        max_cycles: 5_000_000,
        ..RtlOptions::default()
    };
    let r = run_program(cfg, &prog, &c.launch, c.gmem.clone(), &opts).expect("run");
    // Dependent loads: one per iteration of each of the 32 records.
    (r.report.core_cycles, 32 * c.launch.params[2])
}

#[test]
fn custom_memory_latency_and_bandwidth_reach_the_run() {
    let base = SmConfig::preset("gt200").unwrap();
    let slow = SmConfig::from_toml(
        "base = \"gt200\"\nname = \"gt200_slowmem\"\ngmem_latency = 320\ngmem_milli_bytes_per_cycle = 4000\n",
        "gt200_slowmem.toml",
    )
    .unwrap();
    assert_eq!(base.gmem_latency, 220);
    let (c0, loads) = chase_cycles(&base);
    let (c1, _) = chase_cycles(&slow);
    // 100 more core cycles per dependent load (a 4-byte request is never
    // held by 4 bytes per core cycle of bandwidth for long).
    let extra = c1 as i64 - c0 as i64;
    let want = 100 * loads as i64;
    assert!(
        (extra - want).abs() <= want / 20,
        "gt200 {c0} core cycles, +100 latency {c1}: {extra} more, want about {want} ({loads} dependent loads)"
    );
}
