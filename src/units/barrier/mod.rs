//! Barrier: one `BAR` barrier per CTA slot (seed 001: "barrier
//! synchronization"; seed 003: the 512-thread barrier), with deadlock
//! detection.
//!
//! ```text
//!  join_* (cta: warp w joins CTA slot c) --+   per CTA c: nlive_q nwait_q
//!  leave_* (simt exit pulse) --------------+-> partial record (lowest warp
//!  arr_* (sched: BAR of warp w with its    |   whose BAR came with parked
//!         active and live lanes) ----------+   lanes: warp, pc, masks)
//!                                              per warp: cta_q member_q wait_q
//!  wait_o[w] (scheduler excludes) <------------+
//!  rel_* err_* (registered pulses)
//! ```
//!
//! * Clock domain: core, every port and register.
//! * `join_valid_i`, `join_warp_i[6]`, `join_cta_i[4]`: the warp belongs to
//!   CTA slot `join_cta_i` from this edge (cta, with `warp_start`).
//!   `leave_valid_i`, `leave_warp_i[6]`: the warp exited (simt's
//!   `exit_valid_o`).
//! * `arr_valid_i`, `arr_warp_i[6]`, `arr_pc_i[16]`, `arr_active_i[1;32]`,
//!   `arr_live_i[1;32]`: the warp issued `BAR` at `arr_pc_i` with those
//!   active and live lanes (simt's `s_active_o`/`s_live_o`). It waits from
//!   this edge: `wait_o[w]` is high from the next cycle until the release.
//!   Arrivals of a warp that is not a member, or already waits, are ignored.
//! * Preconditions (the SM keeps them): a waiting warp neither leaves nor
//!   joins before its release; a join of a member moves it between CTAs.
//! * Counting: per CTA the live warps (joined, not left) and the waiting
//!   warps. When every live warp of a CTA waits (`nwait == nlive`, not 0)
//!   and every waiting warp arrived with all its live lanes, the barrier
//!   releases at the next edge: the CTA's `wait_o` bits clear and
//!   `rel_valid_o`/`rel_cta_o` pulse the cycle after. This is the golden
//!   model's thread rule ("releases when every non-exited thread of the CTA
//!   has arrived"): arrived threads = live threads exactly when every live
//!   warp waits with active = live. Warp counts (7 bits) cover every
//!   preset's thread limit (512 / 1024 / 1536 threads = 16 / 32 / 48 warps).
//! * Deadlock (code 6): every live warp waits but some arrived with lanes
//!   parked on its reconvergence stack (BAR in divergent code): the barrier
//!   can never complete. `err_o` pulses once per CTA with `err_code_o` = 6,
//!   `err_cta_o`, `err_warps_o[w]` (the warps waiting), and the lowest such
//!   warp `err_warp_o` with its BAR pc `err_pc_o`, arrived and parked lanes
//!   (`err_arrived_o`, `err_parked_o`): the golden model reports that warp
//!   with pc = its pc - 1 (the BAR). The lowest CTA slot is reported first
//!   when several deadlock at once.
//! * Latency: arrival at edge e, release at edge e + 1 when it was the last
//!   one (a leave likewise), pulse visible in cycle e + 2.
//! * Sizes: `MW` = `max_warps` per-warp bits, `NC` = `max_ctas` CTA slots.

use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};
use crate::units::simt::{pack32, unpack32};

/// Error code of a barrier deadlock (docs/sm.md 7).
pub const ERR_DEADLOCK: u64 = crate::codes::ERR_DEADLOCK;

crate::ports! {
    /// Membership, exits and arrivals.
    pub struct BarIn {
        join_valid_i: 1 @ Core,
        join_warp_i: 6 @ Core,
        join_cta_i: 4 @ Core,
        leave_valid_i: 1 @ Core,
        leave_warp_i: 6 @ Core,
        arr_valid_i: 1 @ Core,
        arr_warp_i: 6 @ Core,
        arr_pc_i: 16 @ Core,
        arr_active_i: [1; 32] @ Core,
        arr_live_i: [1; 32] @ Core,
    }
}
crate::ports! {
    /// Waiting warps, releases, deadlock reports.
    pub struct BarOut[MW] {
        wait_o: [1; MW] @ Core,
        rel_valid_o: 1 @ Core,
        rel_cta_o: 4 @ Core,
        err_o: 1 @ Core,
        err_code_o: 8 @ Core,
        err_cta_o: 4 @ Core,
        err_warps_o: [1; MW] @ Core,
        err_warp_o: 6 @ Core,
        err_pc_o: 16 @ Core,
        err_arrived_o: [1; 32] @ Core,
        err_parked_o: [1; 32] @ Core,
    }
}

#[derive(Debug, Clone)]
struct CtaRegs {
    nlive: Reg<7>,
    nwait: Reg<7>,
    partial: Reg<1>,
    reported: Reg<1>,
    pwarp: Reg<6>,
    ppc: Reg<16>,
    parr: Reg<32>,
    ppark: Reg<32>,
}

#[derive(Debug, Clone)]
struct WarpRegs {
    cta: Reg<4>,
    member: Reg<1>,
    wait: Reg<1>,
}

/// Barriers for `NC` CTA slots over `MW` warps.
#[derive(Debug, Clone)]
pub struct Barrier<const MW: usize, const NC: usize> {
    decl: Decl,
    c: Vec<CtaRegs>,
    w: Vec<WarpRegs>,
    rel_v: Reg<1>,
    rel_cta: Reg<4>,
    err_v: Reg<1>,
    err_cta: Reg<4>,
    err_warps: Vec<Reg<1>>,
    err_warp: Reg<6>,
    err_pc: Reg<16>,
    err_arr: Reg<32>,
    err_park: Reg<32>,
}

impl<const MW: usize, const NC: usize> Barrier<MW, NC> {
    pub fn new() -> Self {
        const { assert!(MW >= 1 && MW <= 64 && NC >= 1 && NC <= 16) };
        let mut d = Decl::new();
        let k = Domain::Core;
        let c = (0..NC)
            .map(|i| CtaRegs {
                nlive: d.reg(&format!("nlive{i}"), k, 0),
                nwait: d.reg(&format!("nwait{i}"), k, 0),
                partial: d.reg(&format!("partial{i}"), k, 0),
                reported: d.reg(&format!("reported{i}"), k, 0),
                pwarp: d.reg(&format!("pwarp{i}"), k, 0),
                ppc: d.reg(&format!("ppc{i}"), k, 0),
                parr: d.reg(&format!("parr{i}"), k, 0),
                ppark: d.reg(&format!("ppark{i}"), k, 0),
            })
            .collect();
        let w = (0..MW)
            .map(|i| WarpRegs {
                cta: d.reg(&format!("cta{i}"), k, 0),
                member: d.reg(&format!("member{i}"), k, 0),
                wait: d.reg(&format!("wait{i}"), k, 0),
            })
            .collect();
        Barrier {
            c,
            w,
            rel_v: d.reg("rel_v", k, 0),
            rel_cta: d.reg("rel_cta", k, 0),
            err_v: d.reg("err_v", k, 0),
            err_cta: d.reg("err_cta", k, 0),
            err_warps: (0..MW).map(|i| d.reg(&format!("err_wait{i}"), k, 0)).collect(),
            err_warp: d.reg("err_warp", k, 0),
            err_pc: d.reg("err_pc", k, 0),
            err_arr: d.reg("err_arr", k, 0),
            err_park: d.reg("err_park", k, 0),
            decl: d,
        }
    }
}

impl<const MW: usize, const NC: usize> Default for Barrier<MW, NC> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const MW: usize, const NC: usize> Block for Barrier<MW, NC> {
    type In<B: Backend> = BarIn<B>;
    type Out<B: Backend> = BarOut<B, MW>;

    fn module_name(&self) -> String {
        format!("barrier_w{MW}_c{NC}")
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    /// Warps and CTA slots in range (1 in 32 out), joins and leaves often
    /// enough that CTAs fill and empty, arrivals mostly with active = live
    /// (sometimes partial).
    fn constrain(&self, r: u64, i: &mut BarIn<crate::hdl::Concrete>) {
        use crate::hdl::Bits;
        let mw = MW as u64;
        let warp = |x: u64| if x % 32 == 31 { 63 } else { x % mw };
        i.join_valid_i = Bits::new((r & 7 == 0) as u64);
        i.join_warp_i = Bits::new(warp(r >> 3));
        i.join_cta_i = Bits::new((r >> 9) % (NC as u64 + (r >> 13 & 1)));
        i.leave_valid_i = Bits::new((r >> 14 & 15 == 0) as u64);
        i.leave_warp_i = Bits::new(warp(r >> 18));
        i.arr_valid_i = Bits::new((r >> 24 & 3 != 0) as u64);
        i.arr_warp_i = Bits::new(warp(r >> 26));
        if r >> 32 & 7 != 0 {
            for k in 0..32 {
                i.arr_active_i[k] = i.arr_live_i[k];
            }
        }
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &BarIn<C::B>) -> BarOut<C::B, MW> {
        let zero1 = cx.lit::<1>(0);
        let one7 = cx.lit::<7>(1);
        let zero7 = cx.lit::<7>(0);
        let wcta: Vec<S<C, 4>> = self.w.iter().map(|w| cx.q(w.cta)).collect();
        let member: Vec<S<C, 1>> = self.w.iter().map(|w| cx.q(w.member)).collect();
        let wait: Vec<S<C, 1>> = self.w.iter().map(|w| cx.q(w.wait)).collect();
        // The arriving and the leaving warp: CTA slot, member, waiting.
        let mut a_cta = cx.lit::<4>(0);
        let mut a_ok = zero1;
        let mut l_cta = cx.lit::<4>(0);
        let mut l_ok = zero1;
        let mut j_cta = cx.lit::<4>(0);
        let mut j_mem = zero1;
        for k in 0..MW {
            let kl = cx.lit::<6>(k as u64);
            let jh = i.join_warp_i.eq(kl);
            j_cta = jh.mux(wcta[k], j_cta);
            j_mem = jh.mux(member[k], j_mem);
            let ah = i.arr_warp_i.eq(kl);
            a_cta = ah.mux(wcta[k], a_cta);
            a_ok = ah.mux(member[k] & !wait[k], a_ok);
            let lh = i.leave_warp_i.eq(kl);
            l_cta = lh.mux(wcta[k], l_cta);
            l_ok = lh.mux(member[k], l_ok);
        }
        let arr = cx.name("arr_take", i.arr_valid_i & a_ok);
        let leave = cx.name("leave_take", i.leave_valid_i & l_ok);
        // A join of a member moves it: its old CTA loses it (once, also when
        // the same warp leaves in this cycle).
        let same = i.leave_valid_i & i.leave_warp_i.eq(i.join_warp_i);
        let rejoin = i.join_valid_i & j_mem & !same;
        let act = pack32(cx, &i.arr_active_i);
        let live = pack32(cx, &i.arr_live_i);
        let parked = live & !act;
        let is_partial = parked.any();

        // Per CTA: complete (release) or deadlocked; the lowest deadlocked
        // slot not yet reported is reported.
        let mut rel = vec![zero1; NC];
        let mut dead_sel = vec![zero1; NC];
        let mut seen = zero1;
        let mut rel_any = zero1;
        let mut rel_cta = cx.lit::<4>(0);
        for (c, cr) in self.c.iter().enumerate() {
            let nlive = cx.q(cr.nlive);
            let nwait = cx.q(cr.nwait);
            let partial = cx.q(cr.partial);
            let reported = cx.q(cr.reported);
            let all = nwait.eq(nlive) & !nlive.eq(zero7);
            rel[c] = all & !partial;
            let dead = all & partial & !reported;
            dead_sel[c] = dead & !seen;
            seen = seen | dead;
            let cl = cx.lit::<4>(c as u64);
            rel_cta = (rel[c] & !rel_any).mux(cl, rel_cta);
            rel_any = rel_any | rel[c];
            // Next state.
            let jh = i.join_valid_i & i.join_cta_i.eq(cl);
            let lh = leave & l_cta.eq(cl);
            let ah = arr & a_cta.eq(cl);
            let jz: S<C, 7> = jh.zext();
            let lz: S<C, 7> = lh.zext();
            let rz: S<C, 7> = (rejoin & j_cta.eq(cl)).zext();
            cx.d(cr.nlive, nlive + jz - lz - rz);
            let nw = rel[c].mux(zero7, nwait);
            cx.d(cr.nwait, ah.mux(nw + one7, nw));
            let p = rel[c].mux(zero1, partial);
            let pwarp = cx.q(cr.pwarp);
            let lower = i.arr_warp_i.ult(pwarp) | !p;
            let take = ah & is_partial & lower;
            cx.d(cr.partial, p | (ah & is_partial));
            cx.d(cr.reported, rel[c].mux(zero1, reported | dead_sel[c]));
            cx.d(cr.pwarp, take.mux(i.arr_warp_i, pwarp));
            let ppc = cx.q(cr.ppc);
            cx.d(cr.ppc, take.mux(i.arr_pc_i, ppc));
            let parr = cx.q(cr.parr);
            cx.d(cr.parr, take.mux(act, parr));
            let ppark = cx.q(cr.ppark);
            cx.d(cr.ppark, take.mux(parked, ppark));
        }
        // Deadlock report context (the selected CTA).
        let mut e_cta = cx.lit::<4>(0);
        let mut e_warp = cx.lit::<6>(0);
        let mut e_pc = cx.lit::<16>(0);
        let mut e_arr = cx.lit::<32>(0);
        let mut e_park = cx.lit::<32>(0);
        for (c, cr) in self.c.iter().enumerate() {
            let s = dead_sel[c];
            e_cta = s.mux(cx.lit::<4>(c as u64), e_cta);
            let v = cx.q(cr.pwarp);
            e_warp = s.mux(v, e_warp);
            let v = cx.q(cr.ppc);
            e_pc = s.mux(v, e_pc);
            let v = cx.q(cr.parr);
            e_arr = s.mux(v, e_arr);
            let v = cx.q(cr.ppark);
            e_park = s.mux(v, e_park);
        }
        let err = cx.name("deadlock", seen);
        // Per warp.
        let mut wait_o = [zero1; MW];
        let mut err_warps_o = [zero1; MW];
        for (k, wr) in self.w.iter().enumerate() {
            let kl = cx.lit::<6>(k as u64);
            let jh = i.join_valid_i & i.join_warp_i.eq(kl);
            let lh = leave & i.leave_warp_i.eq(kl);
            let ah = arr & i.arr_warp_i.eq(kl);
            let mut released = zero1;
            let mut in_dead = zero1;
            for c in 0..NC {
                let at = wcta[k].eq(cx.lit::<4>(c as u64));
                released = released | (rel[c] & at);
                in_dead = in_dead | (dead_sel[c] & at);
            }
            cx.d(wr.cta, jh.mux(i.join_cta_i, wcta[k]));
            let one1 = cx.lit::<1>(1);
            cx.d(wr.member, jh.mux(one1, lh.mux(zero1, member[k])));
            let nw = released.mux(zero1, wait[k]) | ah;
            cx.d(wr.wait, jh.mux(zero1, lh.mux(zero1, nw)));
            let ew = cx.q(self.err_warps[k]);
            cx.d(self.err_warps[k], err.mux(in_dead & wait[k] & member[k], ew));
            wait_o[k] = wait[k];
            err_warps_o[k] = ew;
        }
        cx.d(self.rel_v, rel_any);
        let rc = cx.q(self.rel_cta);
        cx.d(self.rel_cta, rel_any.mux(rel_cta, rc));
        cx.d(self.err_v, err);
        let ec = cx.q(self.err_cta);
        cx.d(self.err_cta, err.mux(e_cta, ec));
        let ewp = cx.q(self.err_warp);
        cx.d(self.err_warp, err.mux(e_warp, ewp));
        let epc = cx.q(self.err_pc);
        cx.d(self.err_pc, err.mux(e_pc, epc));
        let ea = cx.q(self.err_arr);
        cx.d(self.err_arr, err.mux(e_arr, ea));
        let ep = cx.q(self.err_park);
        cx.d(self.err_park, err.mux(e_park, ep));
        let ev = cx.q(self.err_v);
        let code = cx.lit::<8>(ERR_DEADLOCK);
        let z8 = cx.lit::<8>(0);
        BarOut {
            wait_o,
            rel_valid_o: cx.q(self.rel_v),
            rel_cta_o: rc,
            err_o: ev,
            err_code_o: ev.mux(code, z8),
            err_cta_o: ec,
            err_warps_o,
            err_warp_o: ewp,
            err_pc_o: epc,
            err_arrived_o: unpack32(cx, ea),
            err_parked_o: unpack32(cx, ep),
        }
    }
}
