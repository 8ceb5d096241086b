//! Front-end blocks: scheduler acceptance (one issue per core
//! cycle with every warp ready, round-robin fairness bound, GT200 SP+SFU
//! dual issue, Fermi odd/even schedulers and FP64 not co-issued with SP),
//! and the long random runs against the reference models (ignored; run
//! with `cargo test --release --test frontend -- --ignored`).

use smrtl::golden::isa::{Instr, Op, Src};
use smrtl::sm::SmConfig;
use smrtl::testbenches::fe_tb::{max_wait, run_schedulers, UnitStandIn};

fn instr(op: Op, d: u8) -> Instr {
    let mut i = Instr::new(op);
    i.d = d;
    i.a = 1;
    i.b = Src::Reg(2);
    if op.info().form.uses().c {
        i.c = 3;
    }
    i
}

#[test]
fn gt200_one_issue_per_cycle_and_round_robin() {
    let cfg = SmConfig::preset("gt200").unwrap();
    let always = UnitStandIn::new([1; 4], 1);
    let t = run_schedulers::<32>(&cfg, 32, always, &|_, _| instr(Op::Fmad, 4), 3_200).unwrap();
    assert_eq!(t.len(), 3_200, "one issue every core cycle");
    assert!(t.iter().enumerate().all(|(k, x)| x.cycle == k as u64));
    // Strict rotation: warp k at cycle k mod 32; a warp waits 31 issues.
    assert!(t.iter().all(|x| x.warp as u64 == x.cycle % 32));
    assert_eq!(max_wait(&t, 0), 31);
}

#[test]
fn gt200_dual_issue_sp_and_sfu_alternate() {
    let cfg = SmConfig::preset("gt200").unwrap();
    // SP takes a warp instruction every 2 core cycles (8 lanes, 4 hot
    // cycles), the SFU an FMUL every 2 core cycles too (seed 000).
    let units = UnitStandIn::new([2, 8, 16, 1], 2);
    let mad_mul = |_w: usize, n: u64| instr(if n.is_multiple_of(2) { Op::Fmad } else { Op::Fmul }, 4 + (n % 2) as u8);
    let t = run_schedulers::<32>(&cfg, 32, units.clone(), &mad_mul, 2_000).unwrap();
    assert_eq!(t.len(), 2_000, "an issue every core cycle");
    let sp = t.iter().filter(|x| x.unit == 0).count();
    let sfu = t.iter().filter(|x| x.unit == 1).count();
    assert_eq!((sp, sfu), (1_000, 1_000));
    // After the first cycle the units alternate: SP, SFU, SP, SFU ...
    assert!(t.windows(2).all(|p| p[0].unit != p[1].unit), "SP and SFU alternate");
    // FMAD + RCP warps: SFU busy 8 cycles per op, SP every 2 cycles in between.
    let mad_rcp = |w: usize, _n: u64| instr(if w.is_multiple_of(4) { Op::Rcp } else { Op::Fmad }, 4);
    let t = run_schedulers::<32>(&cfg, 32, units, &mad_rcp, 1_600).unwrap();
    let sp = t.iter().filter(|x| x.unit == 0).count();
    let sfu = t.iter().filter(|x| x.unit == 1).count();
    assert_eq!((sp, sfu), (800, 200), "SP every 2 cycles and SFU every 8, at once");
    // Without sfu_fmul every FMUL waits for the SP: one issue per 2 cycles.
    let mut no_fmul = cfg.clone();
    no_fmul.sfu_fmul = false;
    let t = run_schedulers::<32>(&no_fmul, 32, UnitStandIn::new([2, 8, 16, 1], 2), &mad_mul, 1_000).unwrap();
    assert_eq!(t.len(), 500);
    assert!(t.iter().all(|x| x.unit == 0));
}

#[test]
fn fermi_two_schedulers_odd_even_and_fp64_not_with_sp() {
    let cfg = SmConfig::preset("fermi").unwrap();
    let always = UnitStandIn::new([1; 4], 1);
    let t = run_schedulers::<24>(&cfg, 48, always.clone(), &|_, _| instr(Op::Ffma, 4), 1_200).unwrap();
    assert_eq!(t.len(), 2_400, "two issues per core cycle");
    assert!(
        t.iter().all(|x| x.warp as usize % 2 == x.sched),
        "even warps on 0, odd on 1"
    );
    assert_eq!((max_wait(&t, 0), max_wait(&t, 1)), (23, 23));
    // Every warp alternates DADD and FFMA: whenever scheduler 0 issues
    // DPU, scheduler 1 issues no SP in that cycle (and vice versa).
    let mix = |_w: usize, n: u64| {
        let mut i = instr(if n.is_multiple_of(2) { Op::Dadd } else { Op::Ffma }, 4);
        i.a = 2;
        i.b = Src::Reg(6);
        i
    };
    let t = run_schedulers::<24>(&cfg, 48, always, &mix, 1_000).unwrap();
    let dpu = t.iter().filter(|x| x.unit == 2).count();
    assert!(dpu > 200, "{dpu} FP64 issues");
    for c in 0..1_000 {
        let u: Vec<u8> = t.iter().filter(|x| x.cycle == c).map(|x| x.unit).collect();
        assert!(
            !(u.contains(&0) && u.contains(&2)),
            "cycle {c}: SP and DPU co-issued {u:?}"
        );
    }
}

mod random {
    use smrtl::testbenches::fe_tb::{decode_random, ibuffer_random, predfile_random, sched_random, scoreboard_random};
    use smrtl::units::sched::SchedParams;

    const N: u64 = 1_000_000;

    /// 1,000,000 core cycles per block and preset shape against the
    /// reference models: `cargo test --release --test frontend -- --ignored`.
    #[test]
    #[ignore]
    fn one_million_cycles_each_block() {
        let (n, rej) = decode_random(11, N, true).unwrap();
        println!("decode fp64: {n} words, {rej} rejected, 0 mismatches");
        let (n, rej) = decode_random(12, N, false).unwrap();
        println!("decode nofp64: {n} words, {rej} rejected, 0 mismatches");
        scoreboard_random::<32, 1>(13, N).unwrap();
        scoreboard_random::<48, 2>(14, N).unwrap();
        println!("scoreboard 32x1, 48x2: {N} cycles each, 0 mismatches");
        predfile_random::<32, 1>(15, N).unwrap();
        predfile_random::<48, 2>(16, N).unwrap();
        println!("predfile 32x1, 48x2: {N} cycles each, 0 mismatches");
        let gt = SchedParams {
            sidx: 0,
            ns: 1,
            alt: true,
            sfu_fmul: true,
        };
        let fe = SchedParams {
            sidx: 1,
            ns: 2,
            alt: false,
            sfu_fmul: false,
        };
        let a = sched_random::<32>(gt, 17, N).unwrap();
        let b = sched_random::<24>(fe, 18, N).unwrap();
        println!("sched gt200 {N} cycles {a} issues, fermi s1 {N} cycles {b} issues, 0 mismatches");
        ibuffer_random::<32, 1, 2>(19, N, true).unwrap();
        ibuffer_random::<48, 2, 2>(20, N, true).unwrap();
        println!("ibuffer 32x1x2, 48x2x2: {N} cycles each, 0 mismatches");
    }
}

mod props {
    use proptest::prelude::*;
    use smrtl::testbenches::fe_tb::{ibuffer_random, predfile_random, sched_random, scoreboard_random};
    use smrtl::units::sched::SchedParams;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]
        /// Any seed: the scoreboard, predicate file and scheduler agree with
        /// their references over 300 random cycles.
        #[test]
        fn blocks_agree_with_references(seed in any::<u64>(), alt in any::<bool>(), fmul in any::<bool>()) {
            scoreboard_random::<16, 1>(seed, 300).map_err(TestCaseError::fail)?;
            predfile_random::<16, 2>(seed, 300).map_err(TestCaseError::fail)?;
            let p = SchedParams { sidx: 0, ns: 1, alt, sfu_fmul: fmul };
            sched_random::<16>(p, seed, 300).map_err(TestCaseError::fail)?;
            ibuffer_random::<16, 2, 2>(seed, 300, fmul).map_err(TestCaseError::fail)?;
        }
    }
}
