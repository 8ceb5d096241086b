//! SP array and FP64 unit: clocked random warp traffic against the
//! reference (values, masks, tags, errors, result cycle), per preset; and
//! the long #[ignore] bit-exact sweeps (10M per op and mode).

use rand::SeedableRng;
use smrtl::hdl::Sim;
use smrtl::sm::SmConfig;
use smrtl::testbenches::sp_tb::run_random;
use smrtl::units::dpu::Dpu;
use smrtl::units::sp::{SpArray1, SpArray2, SpGeom};

fn cfg(name: &str) -> SmConfig {
    SmConfig::preset(name).unwrap()
}

#[test]
fn gt200_sp_array_random_warps() {
    let mut sim = Sim::new(SpArray1::new(SpGeom::of(&cfg("gt200"))).unwrap()).unwrap();
    let mut r = rand::rngs::SmallRng::seed_from_u64(1);
    for p in [1.0, 0.3] {
        let s = run_random(&mut sim, &mut r, 3000, p).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.warps > 300, "{s:?}");
        assert!(s.errors_flagged > 0, "{s:?}");
    }
}

#[test]
fn fermi_sp_array_random_warps() {
    let mut sim = Sim::new(SpArray2::new(SpGeom::of(&cfg("fermi"))).unwrap()).unwrap();
    let mut r = rand::rngs::SmallRng::seed_from_u64(2);
    for p in [1.0, 0.4] {
        let s = run_random(&mut sim, &mut r, 2000, p).unwrap_or_else(|e| panic!("{e}"));
        assert!(s.warps > 800, "{s:?}");
    }
}

#[test]
fn sp_array_odd_latency_and_one_pass_imul() {
    // Odd sp_latency publishes at the collecting edge itself; imul32_passes 1.
    let mut c = cfg("gt200");
    c.sp_latency = 5;
    c.imul32_passes = 2;
    let mut sim = Sim::new(SpArray1::new(SpGeom::of(&c)).unwrap()).unwrap();
    let mut r = rand::rngs::SmallRng::seed_from_u64(3);
    run_random(&mut sim, &mut r, 2000, 0.8).unwrap_or_else(|e| panic!("{e}"));
    let mut c = cfg("fermi");
    c.sp_latency = 1;
    c.imul32_passes = 1;
    let mut sim = Sim::new(SpArray2::new(SpGeom::of(&c)).unwrap()).unwrap();
    run_random(&mut sim, &mut r, 2000, 0.8).unwrap_or_else(|e| panic!("{e}"));
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
