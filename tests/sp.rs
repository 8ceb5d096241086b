//! SP array: clocked random warp traffic against the reference (values,
//! masks, tags, errors, result cycle), per preset; and the long #[ignore]
//! bit-exact lane sweep (10M per op and mode). The FP64 unit: `tests/dpu.rs`.

mod common;

use common::{par, sweep_n};
use rand::SeedableRng;
use smrtl::hdl::Sim;
use smrtl::sm::SmConfig;
use smrtl::testbenches::sp_tb::run_random;
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

/// `SP_SWEEP_N` operand sets per op and rounding / multiply mode through
/// the SP lane's combinational datapath (both flavours) against
/// golden::arith, plus every 16-bit integer window.
/// `SP_SWEEP_N=10000000 cargo test --release --test sp -- --ignored --nocapture sp_lane_long`
#[test]
#[ignore]
fn sp_lane_long_sweep() {
    use smrtl::golden::isa::Op;
    use smrtl::testbenches::sp_ref::{int_windows, mod_groups, sp_sweep};
    use smrtl::units::sp::lane::Flavor;
    let n = sweep_n();
    let only = std::env::var("SP_SWEEP_OPS").unwrap_or_default();
    let mut jobs: Vec<(String, Box<dyn Fn() -> Result<(), String> + Send + Sync>)> = vec![];
    for flavor in [Flavor::Tesla, Flavor::Ieee] {
        for &op in Op::ALL.iter().filter(|o| flavor.implements(**o)) {
            let mn = op.info().mnemonic;
            if !only.is_empty() && !only.split(',').any(|o| o == mn) {
                continue;
            }
            for (gi, mods) in mod_groups(op).into_iter().enumerate() {
                let name = format!("{flavor:?} {mn} mods {mods:?}: {n}");
                jobs.push((
                    name,
                    Box::new(move || {
                        sp_sweep(
                            flavor,
                            op,
                            &mods,
                            n,
                            0x5eed ^ (op as u64) << 8 ^ gi as u64,
                            smrtl::units::sp::lane::lane_fn(flavor),
                        )
                    }),
                ));
                if matches!(op.info().class, smrtl::golden::isa::Class::Int) && flavor == Flavor::Ieee {
                    let m = mod_groups(op)[gi][0];
                    jobs.push((
                        format!("{mn} mod {m} exhaustive 18 16-bit windows (1,179,648 pairs)"),
                        Box::new(move || {
                            int_windows(flavor, op, m, 18, smrtl::units::sp::lane::lane_fn(flavor)).map(|_| ())
                        }),
                    ));
                }
            }
        }
    }
    par(jobs);
}
