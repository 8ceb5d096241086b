//! The SM top's dispatch: the operand collectors (`u_oc`, the register
//! file inside) take each scheduler's issue, the CTA launcher's register
//! allocation, wb's register writes and the units' readiness and
//! write-back room; their dispatch outputs feed the units (`exec.rs`,
//! `memory.rs`). GT200 dual issue counts the SP-class instructions waiting
//! for the SP group (`sp_wait`).

use super::frontend::Scheds;
use super::{Ring, SmTop, Zeros};
use crate::golden::isa::Unit;
use crate::hdl::{Ctx, Sig, S};
use crate::units::opcoll::{Issue, OpcollIn, OpcollOut};
use crate::units::sched::SchedOut;

sm_impl! {
    /// End the operand collectors; returns all their outputs.
    pub(super) fn dispatch<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        so: &Scheds<C::B, NS>,
        sp_wait_q: Option<S<C, 2>>,
        z: &Zeros<C::B>,
    ) -> OpcollOut<C::B> {
        let (cta, wb) = (&r.cta, &r.wb);
        let issue = |o: &SchedOut<C::B>| Issue::<C::B> {
            valid: o.is_valid_o,
            unit: o.is_unit_o,
            op: o.is_op_o,
            md: o.is_mod_o,
            tag: o.is_tag_o,
            ra: o.is_ra_o,
            rb: o.is_rb_o,
            rc: o.is_rc_o,
            pair: o.is_pair_o,
            use_imm: o.is_use_imm_o,
            imm: o.is_imm_o,
            mask: o.is_mask_o,
            pa: o.is_pa_o,
            pb: o.is_pb_o,
        };
        let zl1 = [z.z1; 32];
        let idle = || Issue::<C::B> {
            valid: z.z1,
            unit: z.z3,
            op: z.z7,
            md: z.z4,
            tag: z.z32,
            ra: z.z8,
            rb: z.z8,
            rc: z.z8,
            pair: z.z3,
            use_imm: z.z1,
            imm: z.z32,
            mask: zl1,
            pa: zl1,
            pb: zl1,
        };
        // opcoll's two issue ports; idle without a scheduler.
        let port = |k: usize| so.get(k).map_or_else(idle, issue);
        let (a0, a1) = (port(0), port(1));
        let one1 = cx.lit::<1>(1);
        let oc_r = cx.instance_end(
            r.h_oc,
            &self.oc,
            &OpcollIn {
                is: [a0, a1],
                al_valid_i: cta.al_valid_o,
                al_warp_i: cta.al_warp_o,
                al_base_i: cta.al_base_o,
                al_nregs_i: cta.al_nregs_o,
                rf_wr: wb.rf_wr,
                sp0_ready_i: r.sp_ready(0, z.z1),
                sp1_ready_i: r.sp_ready(1, z.z1),
                sfu_ready_i: r.sfu.sfu_ready_o,
                dpu_ready_i: r.dpu.dpu_ready_o,
                lsu_ready_i: r.lsu.lsu_ready_o,
                wb_room_sp0_i: wb.wb_room_sp0_o,
                wb_room_sp1_i: wb.wb_room_sp1_o,
                wb_room_sfu_i: wb.wb_room_sfu_o,
                wb_room_dpu_i: wb.wb_room_dpu_o,
                // The LSU's results wait in the LSU for the write-back's
                // room (`lsu_res_ready_i`): dispatch needs no credit.
                wb_room_lsu_i: one1,
            },
        );
        // GT200 dual issue (one scheduler): SP-class issues in, SP group
        // dispatches out.
        if let (Some(reg), Some(q)) = (self.sp_wait, sp_wait_q) {
            let u_sp = cx.lit::<3>(Unit::Sp as u64);
            let one2 = cx.lit::<2>(1);
            let inc = so[0].is_valid_o & so[0].is_unit_o.eq(u_sp);
            let n = inc.mux(q + one2, q);
            let n = oc_r.sp[0].valid.mux(n - one2, n);
            cx.d(reg, n);
        }
        oc_r
    }
}
