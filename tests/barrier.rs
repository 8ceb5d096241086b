//! Barrier block: random lock-step against the reference (proptest here, a
//! million cycles in the ignored test), release and deadlock directed
//! tests.

use proptest::prelude::*;
use rand::SeedableRng;
use smrtl::testbenches::barrier_ref::BarStim;
use smrtl::testbenches::barrier_tb::{BarCheck, BarGen};

fn run<const MW: usize, const NC: usize>(seed: u64, cycles: u64, p_partial: f64) -> (u64, u64) {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut c = BarCheck::<MW, NC>::new();
    let mut g = BarGen::new(MW, p_partial);
    let (mut rels, mut dead) = (0, 0);
    let mut wait = 0;
    for n in 0..cycles {
        // Now and then a warp leaves (its CTA finishes) to start afresh.
        let s = match (n % 3000 == 2999).then(|| g.retire(wait)).flatten() {
            Some(s) => s,
            None => g.next(&mut rng, NC as u32, wait),
        };
        let o = c.step(&s).unwrap_or_else(|e| panic!("{e}"));
        // Deadlocked CTAs never release: restart the generator's world.
        if o.err.is_some() || n % 20000 == 19999 {
            dead += o.err.is_some() as u64;
            c = BarCheck::<MW, NC>::new();
            g = BarGen::new(MW, p_partial);
            wait = 0;
            continue;
        }
        rels += o.rel.is_some() as u64;
        wait = o.wait;
    }
    (rels, dead)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]
    #[test]
    fn random_lockstep_matches_reference(seed in any::<u64>()) {
        run::<32, 8>(seed, 4000, 0.02);
        run::<48, 8>(seed ^ 1, 4000, 0.0);
        run::<16, 2>(seed ^ 2, 4000, 0.05);
    }
}

#[test]
#[ignore]
fn million_random_cycles() {
    let a = run::<32, 8>(1, 1_000_000, 0.002);
    let b = run::<48, 8>(2, 1_000_000, 0.0);
    let c = run::<16, 8>(3, 1_000_000, 0.01);
    eprintln!("barrier: 3 x 1,000,000 cycles, 0 mismatches; (releases, deadlocks) {a:?} {b:?} {c:?}");
}

fn arr(w: u32, pc: u32, active: u32, live: u32) -> BarStim {
    BarStim {
        arr: Some((w, pc, active, live)),
        ..BarStim::default()
    }
}

/// 32 warps of a 1024-thread CTA: the last arrival releases all at the
/// next edge; one warp exiting instead of arriving also completes it.
#[test]
fn release_after_last_warp_of_1024_threads() {
    let mut c = BarCheck::<32, 8>::new();
    for w in 0..32 {
        c.step(&BarStim {
            join: Some((w, 3)),
            ..BarStim::default()
        })
        .unwrap();
    }
    for w in 0..31 {
        c.step(&arr(w, 7, !0, !0)).unwrap();
    }
    let o = c.step(&BarStim::default()).unwrap();
    assert_eq!(o.wait, 0x7fff_ffff);
    // Warp 31 exits: every live warp now waits.
    c.step(&BarStim {
        leave: Some(31),
        ..BarStim::default()
    })
    .unwrap();
    let o = c.step(&BarStim::default()).unwrap();
    assert_eq!(o.wait, 0x7fff_ffff, "counts settle");
    let o = c.step(&BarStim::default()).unwrap();
    assert_eq!((o.wait, o.rel), (0, Some(3)));
}

/// A BAR reached by only some lanes of a warp deadlocks once every other
/// warp waits: code 6 naming the CTA, the waiting warps, the warp, pc and
/// lanes.
#[test]
fn deadlock_names_cta_warps_and_pc() {
    let mut c = BarCheck::<32, 8>::new();
    for w in 0..4 {
        c.step(&BarStim {
            join: Some((w, 5)),
            ..BarStim::default()
        })
        .unwrap();
    }
    c.step(&arr(0, 12, !0, !0)).unwrap();
    c.step(&arr(2, 40, 0x0000_ffff, !0)).unwrap();
    c.step(&arr(1, 12, !0, !0)).unwrap();
    let o = c.step(&BarStim::default()).unwrap();
    assert!(o.err.is_none());
    c.step(&arr(3, 12, !0, !0)).unwrap();
    c.step(&BarStim::default()).unwrap();
    let o = c.step(&BarStim::default()).unwrap();
    let d = o.err.expect("deadlock reported");
    assert_eq!(
        (d.cta, d.warps, d.warp, d.pc, d.arrived, d.parked),
        (5, 0xf, 2, 40, 0xffff, 0xffff_0000)
    );
    for _ in 0..5 {
        assert!(c.step(&BarStim::default()).unwrap().err.is_none(), "reported once");
    }
}
