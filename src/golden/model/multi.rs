//! Multi-CTA mode: several CTAs resident at once, stepped in an order the
//! caller chooses (the RTL SM's retire order), for lock-step checking.
//!
//! [`Golden::step_cta_warp`]`(cta, warp)` executes the next instruction of
//! one warp of one CTA. A CTA becomes resident on its first reference with
//! exactly the state a CTA start gives in the one-CTA-at-a-time mode
//! (registers and predicates zero, shared memory zero, every warp at pc 0
//! with its thread indices); any number of CTAs may be resident, each with
//! its own warps, shared memory and barrier; global memory is shared. When
//! the last live thread of a CTA arrives at its barrier, the CTA's waiting
//! warps are released at once (their next step is allowed). A CTA whose
//! warps have all exited is retired (its state freed) and may not be
//! referenced again.
//!
//! Shared memory starts zeroed here but is undefined in hardware, which
//! keeps whatever an earlier CTA left in the window: each resident CTA has
//! its record of the words it has written (`uninit`, as in the
//! one-CTA-at-a-time mode), and a read of any other word is reported in
//! [`Retired::undef`] so a checker can accept the hardware's value there
//! and hand it back with [`Golden::set_cta_reg`].
//!
//! Every instruction executes through the same code as [`Golden::run`]: the
//! resident CTA's warps and shared memory are swapped into the model's
//! current-CTA slot for the step, so special registers (`SR_CTAID`,
//! `SR_CLOCK` per warp, ...) and the [`Retired`] records are those of the
//! one-CTA-at-a-time mode.
//!
//! The two modes do not mix in one launch: after the first
//! [`Golden::step_cta_warp`], `run`, `step` and `step_warp` report
//! [`Reason::ModeMix`], and `step_cta_warp` after them does too.
//!
//! A barrier that can never release (every live warp of a CTA waits but
//! some lanes are parked on a reconvergence stack) does not fail the step
//! that completes it: [`Golden::deadlock`] reports it with the same error as
//! the one-CTA-at-a-time mode, and [`Golden::barrier_state`] lists each
//! warp's pc and barrier state, so a checker can name the waiting warps
//! when the RTL stops making progress.

#[cfg(test)]
use super::report::{AtomValues, Write};
use super::report::{Place, Reason, Retired, RunError};
use super::uninit::Written;
use super::warp::Warp;
use super::Golden;

/// One resident CTA of the multi-CTA mode.
pub(super) struct Resident {
    warps: Vec<Warp>,
    shared: Vec<u8>,
    /// The shared words this CTA has written.
    written: Written,
}

/// One warp of a resident CTA as [`Golden::barrier_state`] shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarpView {
    /// Warp index in the CTA.
    pub warp: u32,
    /// pc of the next instruction (past the `BAR` when waiting).
    pub pc: u32,
    /// Active mask.
    pub active: u32,
    /// Lanes that exist and have not exited.
    pub live: u32,
    /// Waiting at the barrier.
    pub waiting: bool,
    /// Lanes that arrived at the barrier (the active mask at its `BAR`).
    pub arrived: u32,
    /// Exited.
    pub done: bool,
    /// Reconvergence stack depth.
    pub stack: usize,
}

impl WarpView {
    /// May [`Golden::step_cta_warp`] step this warp?
    pub fn runnable(&self) -> bool {
        !self.done && !self.waiting
    }
}

/// The warps of one resident CTA ([`Golden::barrier_state`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CtaWarps {
    /// Linear CTA index.
    pub cta: u32,
    pub warps: Vec<WarpView>,
}

impl std::fmt::Display for CtaWarps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cta {}:", self.cta)?;
        for w in &self.warps {
            let state = if w.done {
                "done".to_string()
            } else if w.waiting {
                format!(
                    "waits at BAR pc {} (arrived {:08x} of live {:08x})",
                    w.pc.wrapping_sub(1),
                    w.arrived,
                    w.live
                )
            } else {
                format!("runnable at pc {} (active {:08x})", w.pc, w.active)
            };
            write!(f, " [warp {} {state}]", w.warp)?;
        }
        Ok(())
    }
}

fn view(i: usize, w: &Warp) -> WarpView {
    WarpView {
        warp: i as u32,
        pc: w.pc,
        active: w.active,
        live: w.live,
        waiting: w.waiting,
        arrived: w.arrived,
        done: w.done,
        stack: w.stack.len(),
    }
}

impl Golden {
    /// The one-CTA-at-a-time entry points refuse to run in multi-CTA mode.
    pub(super) fn single_mode(&self) -> Result<(), RunError> {
        if self.multi {
            return Err(RunError::launch(Reason::ModeMix));
        }
        Ok(())
    }

    /// Number of CTAs in the grid.
    pub fn grid_ctas(&self) -> u32 {
        self.ncta
    }

    /// (x, y) of linear CTA `cta`.
    pub fn cta_xy(&self, cta: u32) -> [u32; 2] {
        [cta % self.ctx.grid[0], cta / self.ctx.grid[0]]
    }

    fn cta_place(&self, cta: u32, warp: Option<u32>) -> Place {
        Place {
            cta: Some((cta, self.cta_xy(cta))),
            warp,
            ..Place::default()
        }
    }

    /// Multi-CTA mode: execute the next instruction of warp `warp` of
    /// linear CTA `cta` (x + y * grid x) and describe it. The CTA becomes
    /// resident on its first reference; its waiting warps are released when
    /// the step completes its barrier; it retires when its last warp exits.
    /// Errors: a CTA outside the grid ([`Reason::NoSuchCta`]) or already
    /// finished ([`Reason::CtaFinished`]), a warp that does not exist, has
    /// exited or waits at the barrier ([`Reason::NotRunnable`]), every run
    /// time error of [`Golden::run`] (with its place), the instruction
    /// budget ([`Golden::set_budget`]), and mixing with the
    /// one-CTA-at-a-time mode ([`Reason::ModeMix`]).
    pub fn step_cta_warp(&mut self, cta: u32, warp: usize) -> Result<Retired, RunError> {
        if !self.multi {
            if self.issued > 0 || self.cur_cta > 0 {
                return Err(RunError::launch(Reason::ModeMix));
            }
            self.multi = true;
        }
        if cta >= self.ncta {
            return Err(RunError {
                place: Place::default(),
                reason: Reason::NoSuchCta { cta, ctas: self.ncta },
            });
        }
        if self.retired_ctas.contains(&cta) {
            return Err(RunError {
                place: self.cta_place(cta, Some(warp as u32)),
                reason: Reason::CtaFinished { cta },
            });
        }
        let mut st = match self.resident.remove(&cta) {
            Some(st) => st,
            None => Resident {
                warps: self.fresh.clone(),
                shared: vec![0; self.prog.shared_bytes as usize],
                written: Written::new(self.prog.shared_bytes),
            },
        };
        self.swap_cta(&mut st);
        self.cur_cta = cta;
        self.ctx.cta_xy = self.cta_xy(cta);
        let runnable = self.warps.get(warp).is_some_and(|w| !w.done && !w.waiting);
        let r = if runnable {
            self.step_warp_inner(warp)
        } else {
            Err(RunError {
                place: self.cta_place(cta, Some(warp as u32)),
                reason: Reason::NotRunnable,
            })
        };
        // Barrier: released the moment every live thread has arrived.
        let finished = self.warps.iter().all(|w| w.done);
        if !finished && self.warps.iter().all(|w| w.done || (w.waiting && w.arrived == w.live)) {
            for w in self.warps.iter_mut() {
                w.waiting = false;
                w.arrived = 0;
            }
        }
        self.swap_cta(&mut st);
        if finished {
            self.retired_ctas.insert(cta);
            self.stats.ctas += 1;
            self.finished = self.retired_ctas.len() as u64 == self.ncta as u64;
        } else {
            self.resident.insert(cta, st);
        }
        self.sync_stats();
        r
    }

    /// Swap resident CTA `st` with the current-CTA slot (warps, shared
    /// memory and its written words).
    fn swap_cta(&mut self, st: &mut Resident) {
        std::mem::swap(&mut self.warps, &mut st.warps);
        std::mem::swap(&mut self.shared, &mut st.shared);
        std::mem::swap(&mut self.written, &mut st.written);
    }

    /// Multi-CTA mode: set lane `lane` of register `reg` of warp `warp` of
    /// resident CTA `cta` (a checker adopting the hardware's value of an
    /// undefined load, [`Retired::undef`]). Returns false if there is no
    /// such CTA, warp or register.
    pub fn set_cta_reg(&mut self, cta: u32, warp: usize, reg: u8, lane: usize, value: u32) -> bool {
        let Some(r) = self
            .resident
            .get_mut(&cta)
            .and_then(|st| st.warps.get_mut(warp))
            .and_then(|w| w.regs.get_mut(reg as usize))
        else {
            return false;
        };
        match r.get_mut(lane) {
            Some(x) => {
                *x = value;
                true
            }
            None => false,
        }
    }

    /// Multi-CTA mode: has CTA `cta` started and finished?
    pub fn cta_done(&self, cta: u32) -> bool {
        self.retired_ctas.contains(&cta)
    }

    /// Multi-CTA mode: has every CTA of the grid started and finished? (In
    /// the one-CTA-at-a-time mode, the same as [`Golden::finished`].) The
    /// final global memory is then [`Golden::gmem`].
    pub fn all_done(&self) -> bool {
        self.finished
    }

    /// Multi-CTA mode: the resident CTAs (started, not finished), ascending.
    pub fn resident_ctas(&self) -> Vec<u32> {
        self.resident.keys().copied().collect()
    }

    /// Multi-CTA mode: may warp `warp` of CTA `cta` be stepped now? A CTA
    /// not yet started counts as started fresh (every warp runnable).
    pub fn cta_warp_runnable(&self, cta: u32, warp: usize) -> bool {
        if cta >= self.ncta || self.retired_ctas.contains(&cta) {
            return false;
        }
        match self.resident.get(&cta) {
            Some(st) => st.warps.get(warp).is_some_and(|w| !w.done && !w.waiting),
            None => warp < self.fresh.len(),
        }
    }

    /// Multi-CTA mode: every warp of resident CTA `cta` (pc, masks, barrier
    /// state); `None` when the CTA is not resident.
    pub fn barrier_state(&self, cta: u32) -> Option<CtaWarps> {
        let st = self.resident.get(&cta)?;
        Some(CtaWarps {
            cta,
            warps: st.warps.iter().enumerate().map(|(i, w)| view(i, w)).collect(),
        })
    }

    /// Multi-CTA mode: register `reg` of every lane of warp `warp` of
    /// resident CTA `cta`.
    pub fn cta_reg(&self, cta: u32, warp: usize, reg: u8) -> Option<[u32; 32]> {
        self.resident
            .get(&cta)?
            .warps
            .get(warp)?
            .regs
            .get(reg as usize)
            .copied()
    }

    /// Multi-CTA mode: shared memory of resident CTA `cta`.
    pub fn cta_shared(&self, cta: u32) -> Option<&[u8]> {
        self.resident.get(&cta).map(|st| st.shared.as_slice())
    }

    /// Multi-CTA mode: the barrier deadlock of resident CTA `cta`, if any:
    /// every live warp waits but some arrived with lanes parked on its
    /// reconvergence stack (a `BAR` in divergent code), so the barrier can
    /// never release. The error is the one [`Golden::run`] reports (the
    /// first such warp, the pc of its `BAR`).
    pub fn deadlock(&self, cta: u32) -> Option<RunError> {
        let st = self.resident.get(&cta)?;
        if !st.warps.iter().all(|w| w.done || w.waiting) {
            return None;
        }
        let (wi, w) = st
            .warps
            .iter()
            .enumerate()
            .find(|(_, w)| !w.done && w.arrived != w.live)?;
        let pc = w.pc.wrapping_sub(1);
        Some(RunError {
            place: Place {
                pc: Some(pc),
                line: self.prog.src_lines.get(pc as usize).copied(),
                ..self.cta_place(cta, Some(wi as u32))
            },
            reason: Reason::Deadlock {
                arrived: w.arrived,
                parked: w.live & !w.arrived,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SmConfig;
    use crate::golden::asm::assemble;
    use crate::golden::model::Launch;

    /// Two warps per CTA: each thread stores its CTA id into shared memory,
    /// meets the barrier, reads its neighbour warp's word back and writes
    /// it to global memory at its global index.
    const BARRIER: &str = "
.regs 6
.shared 256
    S2R R0, SR_TID.X
    S2R R1, SR_CTAID.X
    SHL R2, R0, 2
    STS [R2], R1
    BAR
    XOR R3, R2, 0x80        ; the other warp's word
    LDS R4, [R3]
    SHL R5, R1, 6
    IADD R5, R5, R0
    SHL R5, R5, 2
    STG [R5], R4
    EXIT
";

    fn golden(src: &str, grid: u32, threads: u32, gmem: usize) -> Golden {
        let p = assemble(src, "t.s").unwrap();
        let l = Launch {
            grid: [grid, 1],
            block: [threads, 1, 1],
            params: vec![],
        };
        Golden::new(&SmConfig::load("gt200").unwrap(), &p, &l, vec![0; gmem]).unwrap()
    }

    fn step_to_bar(g: &mut Golden, cta: u32, warp: usize) {
        for _ in 0..5 {
            g.step_cta_warp(cta, warp).unwrap();
        }
    }

    #[test]
    fn ctas_are_resident_together_and_barriers_release_at_once() {
        let mut g = golden(BARRIER, 3, 64, 3 * 64 * 4);
        assert!(g.cta_warp_runnable(2, 1) && !g.cta_warp_runnable(3, 0) && !g.cta_warp_runnable(0, 2));
        step_to_bar(&mut g, 0, 0);
        step_to_bar(&mut g, 2, 1);
        assert_eq!(g.resident_ctas(), vec![0, 2]);
        // Warp 0 of CTA 0 waits; stepping it is an error naming the place.
        assert!(!g.cta_warp_runnable(0, 0));
        let e = g.step_cta_warp(0, 0).unwrap_err();
        assert_eq!(e.reason, Reason::NotRunnable);
        assert_eq!((e.place.cta, e.place.warp), (Some((0, [0, 0])), Some(0)));
        let s = g.barrier_state(0).unwrap();
        assert!(s.warps[0].waiting && !s.warps[1].waiting);
        assert_eq!(s.warps[0].pc, 5);
        assert!(g.deadlock(0).is_none());
        // The last warp of CTA 0 arrives: both released by that step.
        step_to_bar(&mut g, 0, 1);
        assert!(g.cta_warp_runnable(0, 0) && g.cta_warp_runnable(0, 1));
        // CTA 2's barrier is its own: warp 1 still waits.
        assert!(!g.cta_warp_runnable(2, 1) && g.cta_warp_runnable(2, 0));
        for w in [1, 0] {
            for _ in 0..7 {
                g.step_cta_warp(0, w).unwrap();
            }
        }
        assert!(g.cta_done(0) && g.barrier_state(0).is_none());
        let e = g.step_cta_warp(0, 0).unwrap_err();
        assert_eq!(e.reason, Reason::CtaFinished { cta: 0 });
        assert!(!g.all_done());
        for c in [2, 1] {
            for w in 0..2 {
                while g.cta_warp_runnable(c, w) {
                    g.step_cta_warp(c, w).unwrap();
                }
            }
            for w in 0..2 {
                while g.cta_warp_runnable(c, w) {
                    g.step_cta_warp(c, w).unwrap();
                }
            }
        }
        assert!(g.all_done() && g.finished());
        assert_eq!(g.stats().ctas, 3);
        assert_eq!(g.stats().warp_instrs, 3 * 2 * 12);
        // Each thread read its CTA's id, written by the other warp.
        let words: Vec<u32> = g
            .gmem()
            .chunks(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(words, (0..3 * 64).map(|i| i / 64).collect::<Vec<u32>>());
    }

    /// Shared memory is undefined until the CTA stores it: loads of other
    /// words (32- and 64-bit), and atomics on them, are flagged per lane;
    /// an atomic does not define its word; adopted values are stepped on;
    /// the one-CTA-at-a-time mode flags the same lanes.
    #[test]
    fn loads_of_never_stored_shared_words_are_flagged_undefined() {
        let src = "
.regs 8
.shared 512
    S2R R0, SR_TID.X
    SHL R2, R0, 2
    LDS R1, [R2]            ; nothing stored yet: undefined
    MOV R3, 7
    ISETP.LT P0, R0, 4
@P0 STS [R2], R3           ; lanes 0..3 store
    LDS R1, [R2]            ; lanes 4.. still undefined
    SHL R5, R0, 3
    LDS.64 R4, [R5+8]       ; words 2+2l, 3+2l: defined for lane 0
    ATOMS.ADD R6, [R2+32], R3 ; words 8+l: undefined; stay undefined
    LDS R7, [R2+32]
    IADD R7, R7, 1
    EXIT
";
        let mut g = golden(src, 1, 32, 64);
        let mut step = || g.step_cta_warp(0, 0).unwrap();
        let undef: Vec<u32> = (0..13).map(|_| step().undef).collect();
        let all = u32::MAX;
        assert_eq!(undef, vec![0, 0, all, 0, 0, 0, all & !0xf, 0, all & !1, all, all, 0, 0]);
        // The checker adopts a value of lane 9 of R7 (the undefined LDS); the
        // IADD then computes from it.
        let mut g = golden(src, 2, 32, 64);
        for _ in 0..11 {
            g.step_cta_warp(1, 0).unwrap();
        }
        assert!(g.set_cta_reg(1, 0, 7, 9, 41));
        assert!(!g.set_cta_reg(0, 0, 7, 9, 41) && !g.set_cta_reg(1, 1, 7, 0, 0) && !g.set_cta_reg(1, 0, 7, 32, 0));
        let r = g.step_cta_warp(1, 0).unwrap();
        match r.write {
            Some(Write::Reg { values, .. }) => assert_eq!((values[9], values[8]), (42, 8)),
            w => panic!("{w:?}"),
        }
        // The one-CTA-at-a-time mode flags the same lanes and counts them.
        let mut g = golden(src, 1, 32, 64);
        let mut got = vec![];
        while let Some(r) = g.step().unwrap() {
            got.push(r.undef);
        }
        assert_eq!(got, undef);
        let log = &g.stats().uninit;
        let lanes: u32 = undef.iter().map(|m| m.count_ones()).sum();
        assert_eq!((log.lanes, log.instrs, log.first.len()), (lanes as u64, 5, 5));
    }

    #[test]
    fn bad_references_and_mixed_modes_are_errors() {
        let mut g = golden(BARRIER, 2, 64, 512);
        let e = g.step_cta_warp(2, 0).unwrap_err();
        assert_eq!(e.reason, Reason::NoSuchCta { cta: 2, ctas: 2 });
        assert_eq!(g.step_cta_warp(1, 2).unwrap_err().reason, Reason::NotRunnable);
        g.step_cta_warp(1, 0).unwrap();
        assert_eq!(g.step().unwrap_err().reason, Reason::ModeMix);
        assert_eq!(g.run(10).unwrap_err().reason, Reason::ModeMix);
        assert_eq!(g.step_warp(0).unwrap_err().reason, Reason::ModeMix);
        let mut g = golden(BARRIER, 2, 64, 512);
        g.step().unwrap();
        assert_eq!(g.step_cta_warp(0, 0).unwrap_err().reason, Reason::ModeMix);
        // The budget holds across CTAs.
        let mut g = golden(BARRIER, 2, 64, 512);
        g.set_budget(3);
        for c in 0..2 {
            g.step_cta_warp(c, 0).unwrap();
        }
        g.step_cta_warp(0, 1).unwrap();
        let e = g.step_cta_warp(1, 1).unwrap_err();
        assert_eq!(e.reason, Reason::Budget { budget: 3 });
        assert_eq!(e.place.cta, Some((1, [1, 0])));
    }

    /// A `BAR` reached by half of a warp (the other half parked on the
    /// stack): once every warp of the CTA waits, `deadlock` names it.
    #[test]
    fn a_divergent_barrier_is_reported_as_deadlock() {
        let src = "
.regs 2
    S2R R0, SR_LANEID
    ISETP.LT P0, R0, 16
    SSY join
    @!P0 BRA skip
    BAR
    SYNC
skip:
    SYNC
join:
    EXIT
";
        let mut g = golden(src, 2, 64, 0);
        for _ in 0..6 {
            g.step_cta_warp(1, 0).unwrap();
        }
        assert!(g.deadlock(1).is_none()); // warp 1 may still run
        for _ in 0..6 {
            g.step_cta_warp(1, 1).unwrap();
        }
        let e = g.deadlock(1).unwrap();
        assert_eq!(
            e.reason,
            Reason::Deadlock {
                arrived: 0xffff,
                parked: 0xffff_0000
            }
        );
        assert_eq!(
            (e.place.cta, e.place.warp, e.place.pc, e.place.line),
            (Some((1, [1, 0])), Some(0), Some(4), Some(7))
        );
        let s = g.barrier_state(1).unwrap();
        assert!(s.warps.iter().all(|w| w.waiting && !w.runnable()));
        assert!(s.to_string().contains("waits at BAR pc 4"), "{s}");
        assert!(g.deadlock(0).is_none() && g.barrier_state(0).is_none());
    }

    #[test]
    fn retired_diff_names_the_first_difference() {
        let mut g = golden(BARRIER, 1, 40, 256);
        let a = g.step_cta_warp(0, 1).unwrap();
        assert_eq!(a.diff(&a, AtomValues::Exact), None);
        let flip = |r: &Retired, lane: usize| {
            let mut r = r.clone();
            if let Some(Write::Reg { values, .. }) = &mut r.write {
                values[lane] ^= 1;
            }
            r
        };
        // Lane 9 is outside the 8 executed lanes: not compared.
        assert_eq!(a.diff(&flip(&a, 9), AtomValues::Exact), None);
        let b = flip(&a, 3);
        assert_eq!(
            a.diff(&b, AtomValues::Exact).unwrap(),
            "lane 3 value 00000023 vs 00000022"
        );
        let mut c = a.clone();
        c.pc = 1;
        assert!(a.diff(&c, AtomValues::Exact).unwrap().starts_with("place"));
        let mut d = a.clone();
        d.active = 0x7f;
        assert!(a.diff(&d, AtomValues::Exact).unwrap().starts_with("executed lanes"));
    }
}
