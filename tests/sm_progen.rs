//! Random valid programs (`testbenches/progen.rs`) on the RTL SM, lock-step
//! against the golden model: every issue (pc, lanes), every write-back
//! (bit for bit), every PSETP predicate and the final memory image
//! (`smrtl::sm::run_program`), with a global memory of latency 4 to 300
//! core cycles that answers in order or out of order. 17 seeds per preset (51 programs) run here; the
//! acceptance run, 1,000 per preset, is ignored:
//! `SM_PROGEN_N=1000 cargo test --release --test sm_progen -- --ignored --nocapture`.

use smrtl::sm::run::{run_program, RtlOptions};
use smrtl::sm::SmConfig;
use smrtl::testbenches::gmem::GmemConfig;
use smrtl::testbenches::progen::generate;

/// Seeds `range` of `preset`: every one runs to the end with no divergence.
/// Returns (programs, core cycles, instructions checked). A failing seed
/// does not stop the others; the test fails at the end listing them all.
fn run_seeds(preset: &str, range: std::ops::Range<u64>) -> (u64, u64, u64) {
    let cfg = SmConfig::load(preset).unwrap();
    let (mut n, mut cycles, mut checked) = (0, 0, 0);
    let mut failed: Vec<String> = vec![];
    let t = std::time::Instant::now();
    for seed in range {
        let c = generate(&cfg, seed);
        // Latencies from a fast memory (the programs finish sooner) to the
        // presets' own (many loads in flight in the LSU's slots and tags),
        // in order or out of order by seed.
        let latency = match seed % 4 {
            0 | 1 => 4 + (seed % 13) as u32,
            2 => 40 + (seed % 61) as u32,
            _ => 300,
        };
        let opts = RtlOptions {
            max_cycles: 2_000_000,
            gmem: Some(GmemConfig {
                latency,
                milli_bytes_per_cycle: 64_000,
                out_of_order: seed % 2 == 1,
                seed,
            }),
            ..RtlOptions::default()
        };
        n += 1;
        match run_program(&cfg, &c.program, &c.launch, c.gmem.clone(), &opts) {
            Ok(r) => {
                cycles += r.report.core_cycles;
                checked += r.report.checked;
            }
            Err(e) => {
                let g = opts.gmem.expect("set above");
                let ooo = if g.out_of_order {
                    format!(" --gmem-ooo-seed {}", g.seed)
                } else {
                    String::new()
                };
                let msg = format!(
                    "{preset} seed {seed}: {e}\nreproduce: smrtl progen --config {preset} --seed {seed}, then the \
                     `smrtl run` command it prints with --rtl --gmem-latency {} --gmem-bandwidth 64{ooo}",
                    g.latency
                );
                eprintln!("{msg}");
                failed.push(msg);
            }
        }
        if n % 50 == 0 {
            eprintln!(
                "{preset}: {n} programs, {} failed, {cycles} core cycles, {checked} instructions checked ({:.0} s)",
                failed.len(),
                t.elapsed().as_secs_f64()
            );
        }
    }
    assert!(
        failed.is_empty(),
        "{preset}: {} of {n} programs failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
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

// With a fast out-of-order memory, `S2R R13` (written through the front end
// two cycles after its issue) could overtake the operand read of the
// `STG [R1+0x8], R13` before it, whose collector waits for its bank group,
// and the store would write the new R13. The SM top holds an issue that
// would write a register a collector of its warp has still to read
// (docs/sm.md, write after read).
#[test]
fn write_after_read_fermi_seed_199() {
    run_seeds("fermi", 199..200);
}

// The acceptance run: `SM_PROGEN_N` (default 1,000) seeds per preset,
// from `SM_PROGEN_FROM` (default 0).
fn from_env() -> u64 {
    std::env::var("SM_PROGEN_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

#[test]
#[ignore]
fn thousand_random_programs_on_the_rtl_sm_tesla() {
    let f = from_env();
    run_seeds("tesla", f..f + n_env(1000));
}

#[test]
#[ignore]
fn thousand_random_programs_on_the_rtl_sm_gt200() {
    let f = from_env();
    run_seeds("gt200", f..f + n_env(1000));
}

#[test]
#[ignore]
fn thousand_random_programs_on_the_rtl_sm_fermi() {
    let f = from_env();
    run_seeds("fermi", f..f + n_env(1000));
}
