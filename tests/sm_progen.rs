//! Random valid programs (`testbenches/progen.rs`) on the RTL SM, lock-step
//! against the golden model: every issue (pc, lanes), every write-back
//! (bit for bit), every PSETP predicate and the final memory image
//! (`smrtl::sm::run_program`), with a fast global memory that answers in
//! order or out of order. 17 seeds per preset (51 programs) run here; the
//! acceptance run, 1,000 per preset, is ignored:
//! `SM_PROGEN_N=1000 cargo test --release --test sm_progen -- --ignored --nocapture`.

use smrtl::sm::run::{run_program, RtlOptions};
use smrtl::sm::SmConfig;
use smrtl::testbenches::gmem::GmemConfig;
use smrtl::testbenches::progen::generate;

/// Seeds `range` of `preset`: every one runs to the end with no divergence.
/// Returns (programs, core cycles, instructions checked).
fn run_seeds(preset: &str, range: std::ops::Range<u64>) -> (u64, u64, u64) {
    let cfg = SmConfig::load(preset).unwrap();
    let (mut n, mut cycles, mut checked) = (0, 0, 0);
    let t = std::time::Instant::now();
    for seed in range {
        let c = generate(&cfg, seed);
        // A fast memory (the RTL is the same; the programs finish sooner),
        // in order or out of order by seed.
        let opts = RtlOptions {
            max_cycles: 2_000_000,
            gmem: Some(GmemConfig {
                latency: 4 + (seed % 13) as u32,
                milli_bytes_per_cycle: 64_000,
                out_of_order: seed % 2 == 1,
                seed,
            }),
            ..RtlOptions::default()
        };
        let r = run_program(&cfg, &c.program, &c.launch, c.gmem.clone(), &opts).unwrap_or_else(|e| {
            panic!(
                "{preset} seed {seed}: {e}\nreproduce: smrtl progen --config {preset} --seed {seed} ...\n{}",
                c.source
            )
        });
        n += 1;
        cycles += r.report.core_cycles;
        checked += r.report.checked;
        if n % 100 == 0 {
            eprintln!(
                "{preset}: {n} programs, {cycles} core cycles, {checked} instructions checked ({:.0} s)",
                t.elapsed().as_secs_f64()
            );
        }
    }
    eprintln!(
        "{preset}: {n} programs on the RTL SM, 0 divergences; {cycles} core cycles, {checked} instructions checked ({:.1} s)",
        t.elapsed().as_secs_f64()
    );
    (n, cycles, checked)
}

fn n_env(default: u64) -> u64 {
    std::env::var("SM_PROGEN_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

// Each preset is its own test, so the harness runs them in parallel.
// `cargo test`: 17 seeds per preset (51 programs; SM_PROGEN_N overrides).
fn quick(k: u64, preset: &str) {
    let n = n_env(17);
    let s = 10_000 + 1_000 * k;
    let (_, _, checked) = run_seeds(preset, s..s + n);
    assert!(checked > 0);
}

#[test]
fn random_programs_on_the_rtl_sm_tesla() {
    quick(0, "tesla");
}

#[test]
fn random_programs_on_the_rtl_sm_gt200() {
    quick(1, "gt200");
}

#[test]
fn random_programs_on_the_rtl_sm_fermi() {
    quick(2, "fermi");
}

// The acceptance run: `SM_PROGEN_N` (default 1,000) seeds per preset.

#[test]
#[ignore]
fn thousand_random_programs_on_the_rtl_sm_tesla() {
    run_seeds("tesla", 0..n_env(1000));
}

#[test]
#[ignore]
fn thousand_random_programs_on_the_rtl_sm_gt200() {
    run_seeds("gt200", 0..n_env(1000));
}

#[test]
#[ignore]
fn thousand_random_programs_on_the_rtl_sm_fermi() {
    run_seeds("fermi", 0..n_env(1000));
}
