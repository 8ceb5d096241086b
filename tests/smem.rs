//! Shared-memory unit: long random runs against the reference (ignored by
//! default: `cargo test --release --test smem -- --ignored`) and Verilator
//! lock-step of both presets.

use rand::SeedableRng;
use smrtl::cosim::{self, require_tools, Options};
use smrtl::hdl::Sim;
use smrtl::sm::SmConfig;
use smrtl::testbenches::smem_ref::SmemGeom;
use smrtl::testbenches::smem_tb::{check_request, random_request};
use smrtl::units::smem::Smem;
use std::path::PathBuf;

fn gt200() -> (Smem<4, 8>, SmemGeom) {
    let g = SmemGeom::from_config(&SmConfig::preset("gt200").unwrap());
    (Smem::new(g.words, g.group, g.multicast).unwrap(), g)
}

fn fermi() -> (Smem<5, 9>, SmemGeom) {
    let g = SmemGeom::from_config(&SmConfig::preset("fermi").unwrap());
    (Smem::new(g.words, g.group, g.multicast).unwrap(), g)
}

/// 100,000 random warp requests per preset: read data, final memory, pass
/// counts, conflict cycles, error flag and latency against the reference.
#[test]
#[ignore]
fn hundred_thousand_random_requests_per_preset() {
    fn run<const LB: usize, const A: usize>(blk: Smem<LB, A>, g: SmemGeom, seed: u64) {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let mut s = Sim::new(blk).unwrap();
        let mut shadow = vec![0u32; g.words];
        let mut passes = 0u64;
        for n in 0..100_000 {
            let w = [2, 8, 40, 400, 4000][n % 5];
            passes += check_request(&mut s, &g, &mut shadow, &random_request(&mut rng, &g, w, true))
                .unwrap()
                .passes as u64;
        }
        // Final memory, word by word, through load requests.
        for base in (0..g.words).step_by(32) {
            let r = smrtl::testbenches::smem_tb::strided(smrtl::testbenches::smem_ref::SmemOp::Load, base as u16, 1);
            check_request(&mut s, &g, &mut shadow, &r).unwrap();
        }
        eprintln!(
            "{}: 100000 requests, {passes} passes, 0 mismatches",
            s.design().modules[0].name
        );
    }
    let (b, g) = gt200();
    run(b, g, 1);
    let (b, g) = fermi();
    run(b, g, 2);
}

#[test]
fn verilator_lockstep_both_presets() {
    require_tools(&["verilator"]);
    let o = Options {
        hot_cycles: 20_000,
        seed: 6,
        p_one: 0.6,
        wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
        window: 16,
    };
    let r = cosim::lockstep(&gt200().0, None, &o).unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
    let r = cosim::lockstep(&fermi().0, None, &o).unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
}
