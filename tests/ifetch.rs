//! Instruction fetch block: random lock-step against the reference with the
//! instruction memory model in the loop (proptest here, a million cycles in
//! the ignored test), and directed timing tests: cold miss latency, one push
//! per core cycle with two warps, the pc error (code 10) raised for a warp
//! that runs off the program and not for one whose last instruction is EXIT.

use proptest::prelude::*;
use smrtl::testbenches::ifetch_ref::{IfObs, IfStim};
use smrtl::testbenches::ifetch_tb::{ifetch_random, IfCheck};
use smrtl::testbenches::imem::Imem;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4))]
    #[test]
    fn random_lockstep_matches_reference(seed in any::<u64>()) {
        ifetch_random::<32, 8, 5, 1>(seed, 3000, 4, 20).unwrap();
        ifetch_random::<48, 8, 5, 2>(seed ^ 1, 3000, 4, 5).unwrap();
        ifetch_random::<16, 8, 4, 1>(seed ^ 2, 3000, 2, 1).unwrap();
    }
}

#[test]
#[ignore]
fn million_random_cycles() {
    let a = ifetch_random::<32, 8, 5, 1>(1, 1_000_000, 4, 20).unwrap();
    let b = ifetch_random::<48, 8, 5, 2>(2, 1_000_000, 4, 20).unwrap();
    let c = ifetch_random::<16, 8, 4, 1>(3, 1_000_000, 1, 2).unwrap();
    eprintln!("ifetch: 3 x 1,000,000 core cycles, 0 mismatches: {a:?} {b:?} {c:?}");
}

/// A program of `n` words (distinct values).
fn prog(n: u32) -> Vec<u64> {
    (0..n as u64).map(|k| 0x1000_0000_0000 + k * 0x101).collect()
}

/// One warp (0) started at cycle 0, an instruction buffer of 2 entries
/// popped every cycle it holds one (the "issue"), `exit_at`: the pc whose
/// issue stops the warp (simt's `run_o` falls at that edge). Returns the
/// cycles of the pushes and of the pc errors.
fn one_warp(n: u32, latency: u32, cycles: u64, exit_at: Option<u32>) -> (Events, Events) {
    one_warp_held(n, latency, cycles, exit_at, 0).0
}

/// (cycle, pc) pairs: pushes or pc errors.
type Events = Vec<(u64, u32)>;

/// [`one_warp`] with `hold_i` high in cycles `0..hold_until` (GPU-CC mode);
/// also returns the cycles in which the line requests were taken.
fn one_warp_held(
    n: u32,
    latency: u32,
    cycles: u64,
    exit_at: Option<u32>,
    hold_until: u64,
) -> ((Events, Events), Vec<u64>) {
    let words = prog(n);
    let mut reqs = vec![];
    let mut c = IfCheck::<32, 8, 5, 1>::new(4).unwrap();
    let mut mem = Imem::new(words.clone(), 8, latency);
    let mut buf: std::collections::VecDeque<u32> = Default::default();
    let (mut run, mut pushes, mut errs) = (false, vec![], vec![]);
    for t in 0..cycles {
        let s = IfStim {
            st: (t == 0).then_some(0),
            run: run as u64,
            room: (buf.len() < 2) as u64,
            hv: !buf.is_empty() as u64,
            plen: n,
            im_req_ready: mem.ready(),
            im_resp: mem.resp(),
            hold: t < hold_until,
            ..IfStim::default()
        };
        let o = c.step(&s).unwrap();
        if o.im_req.is_some() && s.im_req_ready {
            reqs.push(t);
        }
        mem.edge(o.im_req.filter(|_| s.im_req_ready));
        if let Some(pc) = buf.pop_front() {
            if Some(pc) == exit_at {
                run = false;
            }
        }
        if let Some((w, pc, word)) = o.push {
            assert_eq!((w, word), (0, words[pc as usize]));
            pushes.push((t, pc));
            buf.push_back(pc);
        }
        if let Some((w, pc)) = o.err {
            assert_eq!(w, 0);
            errs.push((t, pc));
        }
        if t == 0 {
            run = true;
        }
    }
    ((pushes, errs), reqs)
}

/// GPU-CC mode (`hold_i`) keeps a miss's request back: the cold miss found
/// in cycle 2 requests its line in cycle 50, the first cycle without the
/// hold, instead of 3; the line arrives 20 cycles later and the warp's
/// first push follows 2 cycles after it, as in the cold start above.
#[test]
fn hold_keeps_the_line_request_until_it_falls() {
    let ((p, e), reqs) = one_warp_held(16, 20, 200, Some(15), 50);
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(reqs[0], 50, "{reqs:?}");
    assert_eq!(p[0], (72, 0), "request 50 + 20 + 2 cycles");
    assert_eq!(p.len(), 16);
    let ((p0, _), reqs0) = one_warp_held(16, 20, 200, Some(15), 0);
    assert_eq!((reqs0[0], p0[0]), (3, (25, 0)));
}

/// Cold start: pick in cycle 1, miss found in 2, request in 3 (taken),
/// line in cycle 3 + latency, fill at that edge, pick, push two cycles
/// later; then the warp's 8 words come every 2 cycles (a warp is not
/// picked twice in a row) and the next line misses again.
#[test]
fn cold_miss_latency_and_sequential_fetch() {
    let (p, e) = one_warp(16, 20, 200, Some(15));
    assert!(e.is_empty(), "{e:?}");
    assert_eq!(p[0], (25, 0), "first push: 2 + 1 + 20 + 2 cycles");
    assert_eq!(p[1], (27, 1));
    assert_eq!(p.len(), 16);
    // Second line: pc 8 picked in cycle 40 (pc 7 pushed in 39), miss found
    // in 41, request 42, line 62, pick 63, push 64: 24 cycles as the first.
    assert_eq!(p[8], (64, 8));
}

/// EXIT as the last instruction: prefetching stops at plen, the warp stops
/// at the EXIT's issue edge, no pc error. Without the EXIT the warp runs
/// on and the error names pc = plen, once, one cycle after it is certain.
#[test]
fn pc_error_only_when_certain() {
    let (p, e) = one_warp(10, 3, 100, Some(9));
    assert_eq!(p.len(), 10);
    assert!(e.is_empty(), "EXIT at the end: no error, got {e:?}");
    let (p, e) = one_warp(10, 3, 100, None);
    assert_eq!(p.len(), 10);
    let last_push = p[9].0;
    // pushed in t, head in t+1, popped at edge t+1, buffer empty in t+2,
    // error registered: visible in t+3; reported once.
    assert_eq!(e, vec![(last_push + 3, 10)]);
}

/// One cycle of the looping-warp tests: warps 0..n started in cycles
/// 0..n, all running with room from cycle n, the 64-word program in `mem`
/// answering requests.
fn loop_cycle<const FP: usize>(
    c: &mut IfCheck<32, 8, 5, FP>,
    mem: &mut Imem,
    t: u64,
    n: u32,
    redir: Option<(u32, u32)>,
) -> IfObs {
    let all = (1u64 << n) - 1;
    let s = IfStim {
        st: (t < n as u64).then_some(t as u32),
        redir,
        run: if t >= n as u64 { all } else { 0 },
        room: all,
        plen: 64,
        im_req_ready: mem.ready(),
        im_resp: mem.resp(),
        ..IfStim::default()
    };
    let o = c.step(&s).unwrap();
    mem.edge(o.im_req.filter(|_| s.im_req_ready));
    o
}

/// Two warps looping over a cached program (a redirect to 0 after the
/// last word): the port pushes every core cycle, alternating warps (round
/// robin), except a bubble in the cycle after a redirect (the redirected
/// warp is not picked in the redirect's cycle, the other was picked just
/// before).
#[test]
fn two_warps_push_every_cycle() {
    let words = prog(64);
    let mut c = IfCheck::<32, 8, 5, 1>::new(4).unwrap();
    let mut mem = Imem::new(words, 8, 2);
    let mut got = vec![];
    let mut redir_at = vec![];
    let mut redir = None;
    for t in 0..600u64 {
        let r = redir.take();
        let o = loop_cycle(&mut c, &mut mem, t, 2, r);
        if let Some((w, 63, _)) = o.push {
            redir = Some((w, 0));
        }
        if t >= 300 {
            got.push((t, o.push.map(|p| p.0)));
        }
        if r.is_some() {
            redir_at.push(t);
        }
        if t == 599 {
            assert_eq!(o.misses, 8, "8 lines of the 64-word program, each missed once");
        }
    }
    let bubbles: Vec<u64> = got.iter().filter(|(_, p)| p.is_none()).map(|(t, _)| *t).collect();
    assert!(bubbles.len() <= 6, "{bubbles:?}");
    for t in &bubbles {
        assert!(
            redir_at.contains(&(t - 1)),
            "bubble in cycle {t} without a redirect before it"
        );
    }
    for p in got.windows(2) {
        if let [(_, Some(a)), (_, Some(b))] = p {
            assert_ne!(a, b, "alternating warps");
        }
    }
}

/// Two fetch ports (fermi: one per scheduler, port p serves the warps w
/// with w mod 2 = p): four warps looping over a cached program push two
/// instructions in most core cycles, port 0 only even warps and port 1
/// only odd ones; a missing cycle on a port follows a redirect of one of
/// its warps.
#[test]
fn two_ports_push_two_per_cycle() {
    let words = prog(64);
    let mut c = IfCheck::<32, 8, 5, 2>::new(4).unwrap();
    let mut mem = Imem::new(words.clone(), 8, 2);
    let mut redir: Vec<(u32, u32)> = vec![];
    let mut redir_at: Vec<(u64, u32)> = vec![];
    let (mut both, mut gaps) = (0u64, vec![]);
    for t in 0..800u64 {
        let r = redir.pop();
        let o = loop_cycle(&mut c, &mut mem, t, 4, r);
        if let Some((w, _)) = r {
            redir_at.push((t, w));
        }
        for (p, push) in [o.push, o.push1].into_iter().enumerate() {
            if let Some((w, pc, word)) = push {
                assert_eq!(w as usize % 2, p, "port {p} pushed warp {w}");
                assert_eq!(word, words[pc as usize]);
                if pc == 63 {
                    redir.push((w, 0));
                }
            } else if t >= 400 {
                gaps.push((t, p as u32));
            }
        }
        if t >= 400 {
            both += (o.push.is_some() && o.push1.is_some()) as u64;
        }
        // One redirect per cycle on the port: keep the rest for later.
        redir.sort_by_key(|x| std::cmp::Reverse(x.0));
    }
    assert!(both >= 370, "both ports pushed in {both} of 400 cycles");
    for (t, p) in gaps {
        assert!(
            redir_at.iter().any(|&(rt, w)| w % 2 == p && rt + 2 >= t && rt < t),
            "port {p} idle in cycle {t} without a redirect of its warps just before"
        );
    }
}
