//! The SM top's monitors and host outputs: why each scheduler did not
//! issue (`stall<s>_o`, [`codes`] `STALL_*`), the issue monitors
//! (`iss<s>_*`: tag and lanes, the taken lanes for a control op), the
//! retire monitors (`ret<w>_*`, from wb), the units' busy bits, the
//! latched error, the blocks' counters and the host ports.

use super::frontend::{Ready, Scheds};
use super::memory::GmSide;
use super::{slot, Ring, SmOut, SmTop, Zeros};
use crate::codes;
use crate::hdl::small::SmallBuf;
use crate::hdl::{Ctx, Sig, S};
use crate::units::ifetch::IfOut;

/// The stall cause of each scheduler, and the constant for a port slot
/// without a scheduler.
pub(super) struct Stalls<C: Ctx, const NS: usize> {
    per: SmallBuf<S<C, 3>, NS>,
    none: S<C, 3>,
}

sm_impl! {
    /// Why each scheduler did not issue, from the first condition its warps
    /// all fail: no running warp, all at a barrier, no head, all held by
    /// the front end, all waiting for registers (memory when the LSU is
    /// busy), else their units are busy.
    pub(super) fn stall_causes<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        so: &Scheds<C::B, NS>,
        rd: &Ready<C::B, MW>,
        z1: S<C, 1>,
    ) -> Stalls<C, NS> {
        let (cta, simt, bar, ib) = (&r.cta, &r.simt, &r.bar, &r.ib);
        let none = cx.lit::<3>(0);
        let mut per = SmallBuf::new();
        for (s, o) in so.iter().enumerate() {
            let mut any_v = z1;
            let mut any_nb = z1;
            let mut any_h = z1;
            let mut any_c = z1;
            let mut any_ok = z1;
            for l in 0..LW {
                let g = l * NS + s;
                let v = cta.wv_o[g] & simt.run_o[g];
                let nb = v & !bar.wait_o[g];
                let h = nb & ib.hv_o[g];
                let c = h & !rd.hold[g];
                let k = c & rd.ok[g];
                any_v = any_v | v;
                any_nb = any_nb | nb;
                any_h = any_h | h;
                any_c = any_c | c;
                any_ok = any_ok | k;
            }
            let lit = |cx: &mut C, v: u64| cx.lit::<3>(v);
            let sc_mem = (!r.lsu.lsu_idle_o).mux(lit(cx, codes::STALL_MEMORY), lit(cx, codes::STALL_SCOREBOARD));
            let mut cause = lit(cx, codes::STALL_UNIT_BUSY);
            cause = (!any_ok).mux(sc_mem, cause);
            cause = (!any_c).mux(lit(cx, codes::STALL_CONTROL), cause);
            cause = (!any_h).mux(lit(cx, codes::STALL_FETCH), cause);
            cause = (!any_nb).mux(lit(cx, codes::STALL_BARRIER), cause);
            cause = (!any_v).mux(lit(cx, codes::STALL_NO_WARP), cause);
            per.push(o.iss_valid_o.mux(lit(cx, codes::STALL_ISSUED), cause));
        }
        Stalls { per, none }
    }

    /// `unit_busy_o`: bit 0..1 SP groups 0 and 1, 2 SFU, 3 DPU, 4 LSU; a
    /// unit the SM does not have is never busy.
    fn unit_busy<C: Ctx>(&self, cx: &mut C, r: &Ring<C::B, MW, NS>, z1: S<C, 1>) -> S<C, 5> {
        let mut ub: SmallBuf<S<C, 1>, 5> = SmallBuf::new();
        ub.push(!r.spo[0].out.ready);
        for g in 1..codes::MAX_SCHEDULERS {
            let busy = !r.sp_ready(g, z1);
            ub.push(busy & cx.lit::<1>((g < NS) as u64));
        }
        ub.push(!r.sfu.sfu_ready_o);
        let busy = !r.dpu.dpu_ready_o;
        ub.push(busy & cx.lit::<1>(self.dpu.is_some() as u64));
        ub.push(!r.lsu.lsu_ready_o);
        let mut unit_busy = cx.lit::<5>(0);
        for (k, b) in ub.iter().enumerate() {
            unit_busy = unit_busy | b.zext::<5>().shl(cx.lit::<3>(k as u64));
        }
        unit_busy
    }

    /// The monitors and host outputs.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn outputs<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        ifo: &IfOut<C::B, MW, NS>,
        gm: &GmSide<C::B>,
        so: &Scheds<C::B, NS>,
        stall: &Stalls<C, NS>,
        err_q: S<C, 1>,
        gc: Option<&super::gpucc::GcOut<C::B>>,
        z: &Zeros<C::B>,
    ) -> SmOut<C::B> {
        let (cta, wb, oc, l1o, lsu_r) = (&r.cta, &r.wb, &r.oc, gm.l1, &gm.lsu);
        // Issue monitors: the lanes are the taken lanes for a control op.
        let mon: SmallBuf<_, NS> = so
            .iter()
            .map(|o| {
                let m: [S<C, 1>; 32] = std::array::from_fn(|l| o.ctl_valid_o.mux(o.ctl_taken_o[l], o.is_mask_o[l]));
                (o.iss_valid_o, o.is_tag_o, m)
            })
            .collect();
        let idle = (z.z1, z.z32, [z.z1; 32]);
        let (m0, m1) = (slot(&mon, 0, idle), slot(&mon, 1, idle));
        let unit_busy = self.unit_busy(cx, r, z.z1);
        let z2 = cx.lit::<2>(0);
        let z64 = cx.lit::<64>(0);
        let e = &self.err;
        SmOut {
            launch_ready_o: cta.launch_ready_o,
            busy_o: cta.busy_o,
            done_o: cta.done_o,
            im_req_valid_o: ifo.im_req_valid_o,
            im_req_addr_o: ifo.im_req_addr_o,
            gm_req: l1o.map_or(lsu_r.gm_req, |o| o.gm_req),
            iss0_valid_o: m0.0,
            iss0_tag_o: m0.1,
            iss0_mask_o: m0.2,
            iss1_valid_o: m1.0,
            iss1_tag_o: m1.1,
            iss1_mask_o: m1.2,
            iss0_psw_o: so.first().map_or(z.z32, |o| o.sw_val_o),
            iss1_psw_o: so.get(1).map_or(z.z32, |o| o.sw_val_o),
            ret0_valid_o: wb.ret0_valid_o,
            ret0_tag_o: wb.ret0_tag_o,
            ret0_mask_o: wb.ret0_mask_o,
            ret0_lo_o: wb.rf_wr[0].lo,
            ret0_hi_o: wb.rf_wr[0].hi,
            ret1_valid_o: wb.ret1_valid_o,
            ret1_tag_o: wb.ret1_tag_o,
            ret1_mask_o: wb.ret1_mask_o,
            ret1_lo_o: wb.rf_wr[1].lo,
            ret1_hi_o: wb.rf_wr[1].hi,
            ret_pred_o: wb.pr_wr_val_o,
            st_valid_o: cta.st_valid_o,
            st_warp_o: cta.st_warp_o,
            st_cta_o: cta.st_cta_o,
            stall0_o: slot(&stall.per, 0, stall.none),
            stall1_o: slot(&stall.per, 1, stall.none),
            unit_busy_o: unit_busy,
            err_o: err_q,
            err_code_o: cx.q(e.code),
            err_src_o: cx.q(e.src),
            err_warp_o: cx.q(e.warp),
            err_pc_o: cx.q(e.pc),
            err_info_o: cx.q(e.info),
            cnt_rr_o: oc.cnt_rr_o,
            cnt_wr_o: oc.cnt_wr_o,
            cnt_oc_stall_o: oc.cnt_stall_o,
            cnt_wb_wait_o: wb.cnt_wait_o,
            cnt_ic_hit_o: ifo.cnt_hit_o,
            cnt_ic_miss_o: ifo.cnt_miss_o,
            cnt_gm_req_o: r.lsu.cnt_gm_req_o,
            cnt_sm_conf_o: r.lsu.cnt_sm_conf_o,
            cnt_l1_hit_o: l1o.map_or(z.z32, |o| o.cnt_l1_hit_o),
            cnt_l1_miss_o: l1o.map_or(z.z32, |o| o.cnt_l1_miss_o),
            occ_ctas_o: cta.occ_ctas_o,
            res_warps_o: cta.res_warps_o,
            gc_mode_o: gc.map_or(z.z1, |g| g.mode),
            cnt_gc_cycles_o: gc.map_or(z.z32, |g| g.cnt_cycles),
            cnt_gc_runs_o: gc.map_or(z.z32, |g| g.cnt_runs),
            cnt_gc_fire_o: gc.map_or(z.z32, |g| g.cnt_fire),
            gc_fire_o: gc.map_or([z2; 48], |g| g.fire),
            gc_stall_in_o: gc.map_or([z2; 48], |g| g.stall_in),
            gc_stall_out_o: gc.map_or([z2; 48], |g| g.stall_out),
            gc_tok_valid_o: gc.map_or([z2; 48], |g| g.tok_valid),
            gc_tok_o: gc.map_or([z64; 48], |g| g.tok),
        }
    }
}
