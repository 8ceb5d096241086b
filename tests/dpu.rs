//! FP64 unit (DPU): clocked random warp traffic against the reference
//! (values, masks, tags, errors, result cycle) on gt200 and fermi, its
//! absence on tesla, and the long #[ignore] bit-exact lane sweep (10M per
//! op and mode).

mod common;

use common::{par, sweep_n};
use rand::SeedableRng;
use smrtl::hdl::Sim;
use smrtl::sm::SmConfig;
use smrtl::testbenches::sp_tb::run_random;
use smrtl::units::dpu::Dpu;

fn cfg(name: &str) -> SmConfig {
    SmConfig::preset(name).unwrap()
}

#[test]
fn dpu_random_warps_gt200_and_fermi() {
    let mut r = rand::rngs::SmallRng::seed_from_u64(4);
    let mut sim = Sim::new(Dpu::of(&cfg("gt200")).unwrap()).unwrap();
    let s = run_random(&mut sim, &mut r, 3000, 0.7).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.warps > 150, "{s:?}");
    let mut sim = Sim::new(Dpu::of(&cfg("fermi")).unwrap()).unwrap();
    let s = run_random(&mut sim, &mut r, 1000, 0.7).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.warps > 400, "{s:?}");
}

#[test]
fn no_dpu_on_tesla() {
    let e = Dpu::of(&cfg("tesla")).unwrap_err().to_string();
    assert!(e.contains("no FP64"), "{e}");
}

/// The FP64 lane: `SP_SWEEP_N` per op and mode.
#[test]
#[ignore]
fn dpu_lane_long_sweep() {
    use smrtl::golden::isa::{Op, Unit};
    use smrtl::testbenches::sp_ref::{dpu_sweep, mod_groups};
    let n = sweep_n();
    let mut jobs: Vec<(String, Box<dyn Fn() -> Result<(), String> + Send + Sync>)> = vec![];
    for &op in Op::ALL.iter().filter(|o| o.unit() == Unit::Dpu) {
        for (gi, mods) in mod_groups(op).into_iter().enumerate() {
            jobs.push((
                format!("{} mods {mods:?}: {n}", op.info().mnemonic),
                Box::new(move || {
                    dpu_sweep(
                        op,
                        &mods,
                        n,
                        0xd00 ^ (op as u64) << 8 ^ gi as u64,
                        smrtl::units::dpu::dpu_fn,
                    )
                }),
            ));
        }
    }
    par(jobs);
}
