//! SIMT control block: random lock-step against the reference (proptest
//! here, a million cycles in the ignored test), directed nesting, stack
//! errors, and the divergence kernel's branch traces against the golden
//! model on every shape and preset.

use proptest::prelude::*;
use rand::SeedableRng;
use smrtl::golden::asm;
use smrtl::sm::SmConfig;
use smrtl::testbenches::kernels::{self, Fp32};
use smrtl::testbenches::simt_ref::SimtStim;
use smrtl::testbenches::simt_tb::{random_stim, replay_golden, SimtCheck};
use smrtl::units::simt::{OP_BRA, OP_EXIT, OP_SSY, OP_SYNC};

fn run_random<const MW: usize, const NS: usize>(seed: u64, cycles: u64, depth: u32) -> u64 {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut c = SimtCheck::<MW, NS>::new(depth).unwrap();
    let mut errs = 0;
    for n in 0..cycles {
        let bias = if (n / 5000) % 2 == 0 { 0.3 } else { 0.8 };
        let s = random_stim(&mut rng, MW as u32, NS, bias);
        let o = c.step(&s).unwrap_or_else(|e| panic!("{e}"));
        errs += o.err.is_some() as u64;
    }
    errs
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]
    #[test]
    fn random_lockstep_matches_reference(seed in any::<u64>()) {
        run_random::<32, 1>(seed, 3000, 40);
        run_random::<48, 2>(seed ^ 1, 3000, 40);
        run_random::<8, 1>(seed ^ 2, 3000, 3);
    }
}

/// A million random core cycles per preset shape against the reference.
#[test]
#[ignore]
fn million_random_cycles() {
    let e1 = run_random::<32, 1>(1, 1_000_000, 40);
    let e2 = run_random::<48, 2>(2, 1_000_000, 40);
    let e3 = run_random::<16, 1>(3, 1_000_000, 4);
    eprintln!("simt: 3 x 1,000,000 cycles, 0 mismatches; stack errors raised: {e1}, {e2}, {e3}");
}

fn ctl(w: u32, op: u64, t: u32, taken: u32) -> SimtStim {
    SimtStim {
        ctl: Some((w, op as u32, t, taken)),
        s_warp: w,
        f_warp: w,
        ..SimtStim::default()
    }
}

fn idle(w: u32) -> SimtStim {
    SimtStim {
        s_warp: w,
        f_warp: w,
        ..SimtStim::default()
    }
}

/// Step until the pop engine lets go; the last outputs.
fn settle(c: &mut SimtCheck<32, 1>, w: u32) -> smrtl::testbenches::simt_ref::SimtObs {
    for _ in 0..100 {
        let o = c.step(&idle(w)).unwrap();
        if o.ctl_ready {
            return o;
        }
    }
    panic!("engine never idle");
}

/// Nested divergence 8 deep: each level halves the active lanes (SSY then a
/// divergent BRA), then the SYNCs unwind level by level back to all 32
/// lanes; every step checked against the reference and the expected masks.
#[test]
fn nested_divergence_eight_deep() {
    let mut c = SimtCheck::<32, 1>::new(40).unwrap();
    c.step(&SimtStim {
        start: Some((3, u32::MAX)),
        ..idle(3)
    })
    .unwrap();
    let mut active = u32::MAX;
    let mut pc = 0;
    for level in 0..8u32 {
        c.step(&ctl(3, OP_SSY, 900 - level, 0)).unwrap();
        pc += 1;
        // Taken: all active lanes but the lowest (it parks on the stack).
        let taken = active & (active - 1);
        let o = c.step(&ctl(3, OP_BRA, 100 + level * 10, taken)).unwrap();
        assert_eq!((o.s_pc, o.s_active), (pc, active));
        active = taken;
        pc = 100 + level * 10;
        let o = c.step(&idle(3)).unwrap();
        assert_eq!((o.s_pc, o.s_active, o.s_depth), (pc, active, 2 * (level + 1)));
        assert_eq!(o.redir, Some((3, pc)));
    }
    assert_eq!(active, 0xffff_ff00);
    // Unwind: each SYNC first runs the parked (not-taken) lanes, the next
    // SYNC reconverges at the SSY target.
    for level in (0..8u32).rev() {
        c.step(&ctl(3, OP_SYNC, 0, 0)).unwrap();
        let o = settle(&mut c, 3);
        let parked = 1u32 << level;
        assert_eq!(
            (o.s_pc, o.s_active),
            (pc_after_bra(level), parked),
            "level {level} else path"
        );
        c.step(&ctl(3, OP_SYNC, 0, 0)).unwrap();
        let o = settle(&mut c, 3);
        assert_eq!(
            (o.s_pc, o.s_active),
            (900 - level, !0u32 << level),
            "level {level} reconverged"
        );
    }
    let o = c.step(&idle(3)).unwrap();
    assert_eq!((o.s_active, o.s_depth), (u32::MAX, 0));
}

/// The pc after level `level`'s BRA: the not-taken path resumes there.
fn pc_after_bra(level: u32) -> u32 {
    // Level 0's SSY is at pc 0 and BRA at 1; deeper levels sit at the
    // previous level's target: SSY at 100 + 10 (l - 1), BRA one later.
    if level == 0 {
        2
    } else {
        100 + 10 * (level - 1) + 2
    }
}

/// Overflow and SYNC on an empty stack raise code 5 naming warp and pc;
/// the erring op changes nothing.
#[test]
fn stack_errors_name_warp_and_pc() {
    let mut c = SimtCheck::<32, 1>::new(4).unwrap();
    c.step(&SimtStim {
        start: Some((5, u32::MAX)),
        ..idle(5)
    })
    .unwrap();
    c.step(&ctl(5, OP_SYNC, 0, 0)).unwrap();
    let o = c.step(&idle(5)).unwrap();
    assert_eq!(o.err, Some((5, 5, 0, true)));
    for k in 0..4 {
        c.step(&ctl(5, OP_SSY, 50, 0)).unwrap();
        assert!(c.step(&idle(5)).unwrap().err.is_none(), "push {k}");
    }
    c.step(&ctl(5, OP_SSY, 50, 0)).unwrap();
    let o = c.step(&idle(5)).unwrap();
    assert_eq!(o.err, Some((5, 5, 4, false)));
    assert_eq!((o.s_pc, o.s_depth), (4, 4));
    // EXIT of every lane with entries left: the pops find the lanes gone
    // and the warp exits.
    c.step(&ctl(5, OP_EXIT, 0, u32::MAX)).unwrap();
    let mut exited = false;
    for _ in 0..10 {
        exited |= c.step(&idle(5)).unwrap().exit == Some(5);
    }
    assert!(exited);
    assert_eq!(c.step(&idle(5)).unwrap().run & 1 << 5, 0);
}

fn replay_kernel<const MW: usize, const NS: usize>(preset: &str, name: &str) -> usize {
    let cfg = SmConfig::preset(preset).unwrap();
    let k = kernels::by_name(name).unwrap();
    let mut rows = 0;
    for case in (k.cases)(Fp32::of(&cfg)) {
        let prog = asm::assemble(case.source, case.file).unwrap();
        let mut c = SimtCheck::<MW, NS>::new(cfg.simt_stack_depth).unwrap();
        let t = replay_golden(&cfg, &prog, &case.launch(), case.gmem.clone(), &mut c)
            .unwrap_or_else(|e| panic!("{preset} {}: {e}", case.label));
        rows += t.len();
    }
    rows
}

/// The divergence kernel's branch traces (pc and active mask before and
/// after every issued warp instruction) equal the golden model's on every
/// shape, on both clusters' warp counts.
#[test]
fn divergence_kernel_traces_match_golden() {
    let a = replay_kernel::<32, 1>("gt200", "divergence");
    let b = replay_kernel::<48, 2>("fermi", "divergence");
    assert!(a > 1000 && b > 1000, "{a} {b}");
}

/// Every benchmark kernel's control flow through the block (gt200).
#[test]
#[ignore]
fn every_kernel_trace_matches_golden() {
    let cfg = SmConfig::load("gt200").unwrap();
    for k in kernels::all_kernels() {
        // FFMA kernels stop with error 1 on gt200 (its multiply-add is FMAD).
        let prog = asm::assemble(k.source, k.file).unwrap();
        if smrtl::golden::model::program_lacks(&prog, &cfg).is_some() {
            continue;
        }
        let n = replay_kernel::<32, 1>("gt200", k.name);
        eprintln!("{}: {n} warp instructions, traces equal", k.name);
    }
}
