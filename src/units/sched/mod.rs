//! Warp scheduler: picks one ready warp per core cycle, round robin, and
//! issues its head instruction to the operand collectors (`is_*`, docs/sm.md
//! 5.1) or completes it in the front end (control ops, `ctl_*`).
//!
//! ```text
//!  per local warp w: wv bw hv sb_ok h_*(decoded head) act pred
//!        |  eligible[w] = wv & hv & !bw & sb_ok & !h_err & unit ready & !peer conflict
//!        v
//!  [prefer: unit class != last issued class (dual issue, 1 scheduler)]
//!        v
//!  round robin from rr_q+1 ----> one-hot sel ---> mux head fields
//!        |                                     guard: mask = act & P[g]^neg
//!   rr_q, last_sp_q                            SEL's Pm -> pa
//!        v
//!  is_* (unit SP/SFU/DPU/LSU) | ctl_* (unit CTRL) | iss_* (advance, pop, scoreboard set)
//! ```
//!
//! * Clock domain: core. One instance per scheduler `s` of
//!   `warp_schedulers` (NS); it owns warps `w` with `w % NS == s` (GT200: all
//!   32; Fermi: even warps on scheduler 0, odd on 1, seed 004). Local warp
//!   `l` is global warp `l * NS + s`. The SM top names this instance's
//!   `is_*` ports `is<s>_*`.
//! * Latency: combinational issue; the choice, `rr_q` and `last_sp_q`
//!   update at the issuing core edge. At most one issue per core cycle.
//! * Eligible warp: valid (`wv_i`, cta), not waiting at a barrier (`bw_i`),
//!   head present (`hv_i`, instruction buffer), scoreboard clear
//!   (`sb_ok_i`), head decoded without error, and its unit free:
//!   `ready_i[unit]` (opcoll's `is<s>_ready_o`, Moore); control ops (unit 4)
//!   need no collector. FMUL (`h_fmul_i`) on presets with `sfu_fmul`: to
//!   the SFU when `ready_i[SFU]` and, on `alt` presets, the last issue went
//!   to the SP (the MUL beside the MAD, seed 000 figure 6); otherwise to
//!   the SP when `ready_i[SP]`, else to the SFU when `ready_i[SFU]`.
//! * Round robin: the first eligible warp after the last issued one
//!   (`rr_q`), wrapping: a warp that stays eligible issues within LW issues
//!   of this scheduler (it waits at most LW-1 = 31 on GT200, 23 on Fermi).
//! * Dual issue (`alt`: GT200, 1 scheduler with `dual_issue`): warps whose
//!   head goes to another class than the last issue (SP vs. not SP) are
//!   preferred, so SP and SFU instructions alternate (seed 000 figure 6: one
//!   issue every 2 hot cycles, SP and SFU in flight at once); if none,
//!   any eligible warp.
//! * Fermi FP64 (seed 004, not co-issued with SP): scheduler 1 gets
//!   scheduler 0's issue (`peer_valid_i`, `peer_unit_i`) and does not issue
//!   an SP instruction in a cycle where scheduler 0 issues DPU, nor DPU
//!   where 0 issues SP. Scheduler 0 has `peer_valid_i` tied low.
//! * Outputs: `is_*` as docs/sm.md 5.1 (`is_mask_o` = active mask & guard;
//!   `is_pa_o` = SEL's predicate Pm, the raw value (all ones for PT; the
//!   SP lane applies the `!` in mod bit 3); `is_pb_o` = 0, reserved for predicate ops); `iss_valid_o`,
//!   `iss_warp_o` (any issue, control ops included: simt advance, ibuffer
//!   pop), `iss_set_o` (scoreboard set with `is_tag_o`); `ctl_valid_o`,
//!   `ctl_op_o`, `ctl_pc_o`, `ctl_imm_o` (BRA/SSY target, S2R register
//!   number), `ctl_taken_o` (active & guard lanes) for unit-CTRL ops;
//!   `is_tag_o` is valid for both. `err_o` (`err_code_o` 1, else 0) with
//!   `err_warp_o` and `err_pc_o`: the lowest valid warp whose head failed
//!   to decode; that warp never issues.
//! * PSETP is executed here: `sw_valid_o`, `sw_idx_o` (Pd), `sw_mask_o`
//!   (active & guard lanes), `sw_val_o` (`(Pa ^ neg a) op (Pb ^ neg b)` on
//!   those lanes; Pa, Pb from decode's `imm_o`, PT = all ones) go to the
//!   predicate file's `sw_*[s]` channel and commit at the issuing edge, so
//!   the warp's next issue sees them. PSETP sets no scoreboard entry
//!   (`iss_set_o` low): nothing of it is in flight.

use crate::golden::isa::{Op, Unit};
use crate::hdl::logic::pick;
use crate::hdl::small::SmallBuf;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};

/// A per-warp list in `eval` (at most 64 warps), without heap.
type Lw<T> = SmallBuf<T, 64>;

crate::ports! {
    /// Per local warp state and head, unit readiness, peer issue.
    pub struct SchedIn[LW] {
        wv_i: [1; LW] @ Core,
        bw_i: [1; LW] @ Core,
        hv_i: [1; LW] @ Core,
        sb_ok_i: [1; LW] @ Core,
        h_err_i: [1; LW] @ Core,
        h_unit_i: [3; LW] @ Core,
        h_fmul_i: [1; LW] @ Core,
        h_op_i: [7; LW] @ Core,
        h_mod_i: [4; LW] @ Core,
        h_gpred_i: [3; LW] @ Core,
        h_gneg_i: [1; LW] @ Core,
        h_ra_i: [8; LW] @ Core,
        h_rb_i: [8; LW] @ Core,
        h_rc_i: [8; LW] @ Core,
        h_pair_i: [3; LW] @ Core,
        h_kind_i: [2; LW] @ Core,
        h_dst_i: [8; LW] @ Core,
        h_use_imm_i: [1; LW] @ Core,
        h_imm_i: [32; LW] @ Core,
        h_pc_i: [16; LW] @ Core,
        act_i: [32; LW] @ Core,
        pred_i: [128; LW] @ Core,
        ready_i: 4 @ Core,
        peer_valid_i: 1 @ Core,
        peer_unit_i: 3 @ Core,
    }
}
crate::ports! {
    /// Issue, control, advance, error.
    pub struct SchedOut {
        is_valid_o: 1 @ Core,
        is_unit_o: 3 @ Core,
        is_op_o: 7 @ Core,
        is_mod_o: 4 @ Core,
        is_tag_o: 32 @ Core,
        is_ra_o: 8 @ Core,
        is_rb_o: 8 @ Core,
        is_rc_o: 8 @ Core,
        is_pair_o: 3 @ Core,
        is_use_imm_o: 1 @ Core,
        is_imm_o: 32 @ Core,
        is_mask_o: [1; 32] @ Core,
        is_pa_o: [1; 32] @ Core,
        is_pb_o: [1; 32] @ Core,
        iss_valid_o: 1 @ Core,
        iss_warp_o: 6 @ Core,
        iss_set_o: 1 @ Core,
        ctl_valid_o: 1 @ Core,
        ctl_op_o: 7 @ Core,
        ctl_pc_o: 16 @ Core,
        ctl_imm_o: 32 @ Core,
        ctl_taken_o: [1; 32] @ Core,
        sw_valid_o: 1 @ Core,
        sw_idx_o: 2 @ Core,
        sw_mask_o: 32 @ Core,
        sw_val_o: 32 @ Core,
        err_o: 1 @ Core,
        err_code_o: 8 @ Core,
        err_warp_o: 6 @ Core,
        err_pc_o: 16 @ Core,
    }
}

/// Parameters of one scheduler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchedParams {
    /// This scheduler's index `s`.
    pub sidx: u32,
    /// Schedulers in the SM (`warp_schedulers`).
    pub ns: u32,
    /// Prefer alternating SP / non-SP issues (GT200 dual issue).
    pub alt: bool,
    /// FMUL may go to the SFU (`sfu_fmul`).
    pub sfu_fmul: bool,
}

impl SchedParams {
    /// The parameters of scheduler `sidx` of `cfg`.
    pub fn of(cfg: &crate::config::SmConfig, sidx: u32) -> Self {
        SchedParams {
            sidx,
            ns: cfg.warp_schedulers,
            alt: cfg.dual_issue && cfg.warp_schedulers == 1,
            sfu_fmul: cfg.sfu_fmul,
        }
    }
}

/// One warp scheduler over `LW` local warps.
#[derive(Debug, Clone)]
pub struct Sched<const LW: usize> {
    decl: Decl,
    p: SchedParams,
    /// `elig<w>` signal names, made once (`eval` runs every cycle).
    elig_names: Vec<String>,
    rr: Reg<6>,
    last_sp: Reg<1>,
}

impl<const LW: usize> Sched<LW> {
    pub fn new(p: SchedParams) -> Self {
        const { assert!(LW >= 2 && LW <= 64) };
        let mut d = Decl::new();
        // Reset to the last warp so that local warp 0 has priority first.
        let rr = d.reg("rr", Domain::Core, LW as u64 - 1);
        let last_sp = d.reg("last_sp", Domain::Core, 0);
        Sched {
            decl: d,
            p,
            elig_names: (0..LW).map(|w| format!("elig{w}")).collect(),
            rr,
            last_sp,
        }
    }
    pub fn params(&self) -> SchedParams {
        self.p
    }
}

/// One-hot of the first set bit of `v` at or after the rotation: the first
/// of `v[k] & hi[k]`, else the first of `v`.
fn rr_pick<C: Ctx>(cx: &mut C, v: &[S<C, 1>], hi: &[S<C, 1>]) -> (Lw<S<C, 1>>, S<C, 1>) {
    let z = cx.lit::<1>(0);
    let first = |v: &[S<C, 1>]| {
        let mut seen = z;
        let mut out: Lw<S<C, 1>> = SmallBuf::new();
        for &b in v {
            out.push(b & !seen);
            seen = seen | b;
        }
        (out, seen)
    };
    let vh: Lw<S<C, 1>> = v.iter().zip(hi).map(|(&a, &b)| a & b).collect();
    let (fh, any_h) = first(&vh);
    let (fa, any) = first(v);
    let sel = fh.iter().zip(&fa).map(|(&h, &a)| any_h.mux(h, a)).collect();
    (sel, any)
}

impl<const LW: usize> Block for Sched<LW> {
    type In<B: Backend> = SchedIn<B, LW>;
    type Out<B: Backend> = SchedOut<B>;
    fn module_name(&self) -> String {
        let p = self.p;
        format!(
            "sched_w{LW}_s{}of{}{}{}",
            p.sidx,
            p.ns,
            if p.alt { "_alt" } else { "" },
            if p.sfu_fmul { "_fmul" } else { "" }
        )
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    /// Heads are decoded random instructions (1 in 32 with a decode error),
    /// the state inputs random.
    fn constrain(&self, r: u64, i: &mut SchedIn<crate::hdl::Concrete, LW>) {
        crate::testbenches::fe_tb::constrain_sched(r, i);
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SchedIn<C::B, LW>) -> SchedOut<C::B> {
        let p = self.p;
        let rr = cx.q(self.rr);
        let last_sp = cx.q(self.last_sp);
        let u = |cx: &mut C, x: Unit| cx.lit::<3>(x as u64);
        let (u_sp, u_sfu, u_dpu, u_ctrl) = (u(cx, Unit::Sp), u(cx, Unit::Sfu), u(cx, Unit::Dpu), u(cx, Unit::Ctrl));
        let rdy = |k: usize| -> S<C, 1> {
            match k {
                0 => i.ready_i.slice::<0, 1>(),
                1 => i.ready_i.slice::<1, 1>(),
                2 => i.ready_i.slice::<2, 1>(),
                _ => i.ready_i.slice::<3, 1>(),
            }
        };
        let fmul_sfu_ok = if p.sfu_fmul { rdy(1) } else { cx.lit::<1>(0) };
        let alt_after_sp = if p.alt { last_sp } else { cx.lit::<1>(0) };
        let peer_dpu = i.peer_valid_i & i.peer_unit_i.eq(u_dpu);
        let peer_sp = i.peer_valid_i & i.peer_unit_i.eq(u_sp);
        let mut elig: Lw<S<C, 1>> = SmallBuf::new();
        let mut eff: Lw<S<C, 3>> = SmallBuf::new();
        let mut pref: Lw<S<C, 1>> = SmallBuf::new();
        let mut hi: Lw<S<C, 1>> = SmallBuf::new();
        let mut bad: Lw<S<C, 1>> = SmallBuf::new();
        for w in 0..LW {
            let unit = i.h_unit_i[w];
            // FMUL (sfu_fmul): the SFU's multipliers right after an SP
            // issue on `alt` presets (seed 000 figure 6), else the SP when
            // free, else the SFU.
            let to_sfu = i.h_fmul_i[w] & fmul_sfu_ok & (!rdy(0) | alt_after_sp);
            let e = to_sfu.mux(u_sfu, unit);
            let mut ur = unit.eq(u_ctrl);
            for k in 0..4 {
                let uk = cx.lit::<3>(k as u64);
                ur = ur | (e.eq(uk) & rdy(k));
            }
            let conflict = (peer_dpu & e.eq(u_sp)) | (peer_sp & e.eq(u_dpu));
            let base = i.wv_i[w] & i.hv_i[w] & !i.bw_i[w];
            let el = base & i.sb_ok_i[w] & !i.h_err_i[w] & ur & !conflict;
            let el = cx.name(&self.elig_names[w], el);
            let is_sp = e.eq(u_sp);
            pref.push(el & is_sp.ne(last_sp));
            elig.push(el);
            eff.push(e);
            // Warp 0 is never after the pointer (a constant, so no `rr < 0`).
            let after = if w == 0 {
                cx.lit::<1>(0)
            } else {
                rr.ult(cx.lit::<6>(w as u64))
            };
            hi.push(after);
            bad.push(i.wv_i[w] & i.hv_i[w] & i.h_err_i[w]);
        }
        let (sel, any) = if p.alt {
            let (sp, anyp) = rr_pick(cx, &pref, &hi);
            let (se, anye) = rr_pick(cx, &elig, &hi);
            let sel: Lw<S<C, 1>> = sp.iter().zip(&se).map(|(&a, &b)| anyp.mux(a, b)).collect();
            (sel, anye)
        } else {
            rr_pick(cx, &elig, &hi)
        };
        let any = cx.name("issue", any);
        let lidx: Lw<S<C, 6>> = (0..LW).map(|w| cx.lit::<6>(w as u64)).collect();
        let gidx: Lw<S<C, 6>> = (0..LW)
            .map(|w| cx.lit::<6>((w as u32 * p.ns + p.sidx) as u64))
            .collect();
        let l = pick(cx, &sel, &lidx);
        let gw = pick(cx, &sel, &gidx);
        let unit = pick(cx, &sel, &eff);
        let op = pick(cx, &sel, &i.h_op_i);
        let m = pick(cx, &sel, &i.h_mod_i);
        let gpred = pick(cx, &sel, &i.h_gpred_i);
        let gneg = pick(cx, &sel, &i.h_gneg_i);
        let kind = pick(cx, &sel, &i.h_kind_i);
        let dst = pick(cx, &sel, &i.h_dst_i);
        let pc = pick(cx, &sel, &i.h_pc_i);
        let imm = pick(cx, &sel, &i.h_imm_i);
        let act = pick(cx, &sel, &i.act_i);
        let pred = pick(cx, &sel, &i.pred_i);
        // Guard and SEL's Pm: predicate rows read in the issuing cycle.
        let ones = cx.lit::<32>(u32::MAX as u64);
        let z32 = cx.lit::<32>(0);
        let pt = cx.lit::<3>(7);
        let prow = |cx: &mut C, idx: S<C, 3>, neg: S<C, 1>| {
            let sh: S<C, 7> = idx.slice::<0, 2>().zext::<7>().shl(cx.lit::<3>(5));
            let v: S<C, 32> = pred.shr(sh).slice::<0, 32>();
            // PT reads all ones, and `!PT` none (the negation applies to PT
            // as to any predicate; `PSETP Pd, Pa, !PT` is a progen idiom).
            idx.eq(pt).mux(ones, v) ^ neg.mux(ones, z32)
        };
        let g = prow(cx, gpred, gneg);
        let mask = cx.name("mask", act & g);
        let is_sel = op.eq(cx.lit::<7>(Op::Sel as u64));
        // Raw value (PT: all ones); the SP lane applies SEL's negation (mod
        // bit 3) itself (docs/sm.md 5.1).
        let raw = cx.lit::<1>(0);
        let pa = prow(cx, m.slice::<0, 3>(), raw);
        let pa = is_sel.mux(pa, z32);
        // PSETP: Pd = (Pa ^ !a) op (Pb ^ !b) on the guarded lanes, written to
        // the predicate file at this edge (`sw_*`); decode put Pa, Pb in imm.
        let is_psetp = op.eq(cx.lit::<7>(Op::Psetp as u64));
        let psa = prow(cx, imm.slice::<0, 3>(), m.slice::<2, 1>());
        let psb = prow(cx, imm.slice::<3, 3>(), m.slice::<3, 1>());
        let lg: S<C, 2> = m.slice::<0, 2>();
        let pv = lg
            .eq(cx.lit::<2>(0))
            .mux(psa & psb, lg.eq(cx.lit::<2>(1)).mux(psa | psb, psa ^ psb));
        let k3 = cx.lit::<2>(3);
        let sw_valid = any & is_psetp & kind.eq(k3);
        let tag: S<C, 32> = pc.concat::<2, 18>(kind).concat::<8, 26>(dst).concat::<6, 32>(gw);
        let ctrl = unit.eq(u_ctrl);
        let z1 = cx.lit::<1>(0);
        cx.d(self.rr, any.mux(l, rr));
        cx.d(self.last_sp, any.mux(unit.eq(u_sp), last_sp));
        // First warp whose head failed to decode.
        let (bsel, bany) = rr_pick(cx, &bad, &Lw::filled(z1, LW));
        let bw = pick(cx, &bsel, &gidx);
        let bpc = pick(cx, &bsel, &i.h_pc_i);
        let bits = |cx: &mut C, v: S<C, 32>| -> [S<C, 1>; 32] {
            std::array::from_fn(|k| v.shr(cx.lit::<5>(k as u64)).slice::<0, 1>())
        };
        let mask_l = bits(cx, mask);
        let pa_l = bits(cx, pa);
        SchedOut {
            is_valid_o: any & !ctrl,
            is_unit_o: unit,
            is_op_o: op,
            is_mod_o: m,
            is_tag_o: tag,
            is_ra_o: pick(cx, &sel, &i.h_ra_i),
            is_rb_o: pick(cx, &sel, &i.h_rb_i),
            is_rc_o: pick(cx, &sel, &i.h_rc_i),
            is_pair_o: pick(cx, &sel, &i.h_pair_i),
            is_use_imm_o: pick(cx, &sel, &i.h_use_imm_i),
            is_imm_o: imm,
            is_mask_o: mask_l,
            is_pa_o: pa_l,
            is_pb_o: [z1; 32],
            iss_valid_o: any,
            iss_warp_o: gw,
            // PSETP completes at issue: nothing pending.
            iss_set_o: any & kind.ne(cx.lit::<2>(0)) & !is_psetp,
            ctl_valid_o: any & ctrl,
            ctl_op_o: op,
            ctl_pc_o: pc,
            ctl_imm_o: imm,
            ctl_taken_o: mask_l,
            sw_valid_o: sw_valid,
            sw_idx_o: dst.slice::<0, 2>(),
            sw_mask_o: mask,
            sw_val_o: pv & mask,
            err_o: bany,
            err_code_o: bany.zext::<8>(),
            err_warp_o: bw,
            err_pc_o: bpc,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testbenches::fe_tb::sched_random;

    fn params(sidx: u32, ns: u32, alt: bool, sfu_fmul: bool) -> SchedParams {
        SchedParams {
            sidx,
            ns,
            alt,
            sfu_fmul,
        }
    }

    #[test]
    fn random_matches_reference() {
        let n = sched_random::<32>(params(0, 1, true, true), 1, 3_000).unwrap();
        assert!(n > 1_000, "{n} issues");
        sched_random::<24>(params(1, 2, false, false), 2, 3_000).unwrap();
        sched_random::<16>(params(0, 1, false, true), 3, 2_000).unwrap();
    }
}
