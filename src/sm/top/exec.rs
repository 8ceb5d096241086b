//! The SM top's execution units and write-back: the SP groups (`u_sp<g>`),
//! the SFU and the FP64 unit (where the preset has one) take the operand
//! collectors' dispatch; the write-back (`u_wb`) takes their result pulses
//! (Moore outputs), the LSU's and the front end's (S2R), and the dispatch
//! handshakes that return its credits.

use super::{Ring, SmTop, Zeros};
use crate::codes;
use crate::hdl::small::SmallBuf;
use crate::hdl::{Ctx, Sig, S};
use crate::units::dpu::DpuIn;
use crate::units::opcoll::OpcollOut;
use crate::units::sfu::SfuIn;
use crate::units::sp::SpGroupOut;
use crate::units::wb::WbIn;

sm_impl! {
    /// End the SP groups, the SFU and the FP64 unit with the collectors'
    /// dispatch.
    /// `gcset`: per group, its dispatch is a GPU-CC `GCSET`, which the
    /// group is not given (gpucc.rs).
    pub(super) fn end_units<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        oc_r: &OpcollOut<C::B>,
        gc: Option<(&super::gpucc::GcRing<C::B>, [S<C, 1>; 2])>,
    ) {
        // opcoll's two SP dispatch ports, one per group.
        let mut sp_in = [oc_r.sp[0].group_in(), oc_r.sp[1].group_in()];
        if let Some((g, gs)) = gc {
            for (p, s) in sp_in.iter_mut().zip(gs) {
                p.valid_i = p.valid_i & !s;
            }
            // The groups with lane ports: in GPU-CC mode the network's cores
            // drive the lanes (gpucc.rs).
            let mode = cx.cross(g.mode, crate::hdl::Domain::Hot);
            for (k, (&h, grp)) in r.h_sp.iter().zip(&self.sp_ln).enumerate() {
                let ln = std::array::from_fn(|i| g.net.ln[16 * k + i]);
                let mut inp = oc_r.sp[k].group_in_ln([crate::units::sp::SpLnMode { ln_mode: mode }], ln);
                inp.valid_i = sp_in[k].valid_i;
                cx.instance_end_sink(h, grp, &inp);
            }
        }
        for ((&h, grp), inp) in r.h_sp.iter().zip(&self.sp).zip(&sp_in) {
            cx.instance_end_sink(h, grp, inp);
        }
        cx.instance_end_sink(
            r.h_sfu,
            &self.sfu,
            &SfuIn {
                sfu_valid_i: oc_r.sfu_valid_o,
                sfu_op_i: oc_r.sfu_op_o,
                sfu_mod_i: oc_r.sfu_mod_o,
                sfu_mask_i: oc_r.sfu_mask_o,
                sfu_a_i: oc_r.sfu_a_o,
                sfu_b_i: oc_r.sfu_b_o,
                sfu_tag_i: oc_r.sfu_tag_o,
            },
        );
        if let (Some(h), Some(d)) = (r.h_dpu, self.dpu.as_ref()) {
            cx.instance_end_sink(
                h,
                d,
                &DpuIn {
                    dpu_valid_i: oc_r.dpu_valid_o,
                    dpu_op_i: oc_r.dpu_op_o,
                    dpu_mod_i: oc_r.dpu_mod_o,
                    dpu_mask_i: oc_r.dpu_mask_o,
                    dpu_a_i: oc_r.dpu_a_o,
                    dpu_b_i: oc_r.dpu_b_o,
                    dpu_c_i: oc_r.dpu_c_o,
                    dpu_tag_i: oc_r.dpu_tag_o,
                },
            );
        }
    }

    /// End the write-back: results (Moore outputs of the units; the front
    /// end's S2R results from the CTA launcher's two ports), credits.
    pub(super) fn write_back<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        oc_r: &OpcollOut<C::B>,
        s2r_any: S<C, 1>,
        gcset: Option<[S<C, 1>; 2]>,
        z: &Zeros<C::B>,
    ) {
        let (cta, sfu, dpu, lsu) = (&r.cta, &r.sfu, &r.dpu, &r.lsu);
        // A GCSET dispatch takes no write-back credit (gpucc.rs).
        let disp_sp = |k: usize| {
            let d = oc_r.sp[k].valid & r.sp_ready(k, z.z1);
            gcset.map_or(d, |gs| d & !gs[k])
        };
        let (disp_sp0, disp_sp1) = (disp_sp(0), disp_sp(1));
        let fe_sel = cta.fe_res_valid_o;
        let fe_mask: [S<C, 1>; 32] = std::array::from_fn(|l| fe_sel.mux(cta.fe_res_mask_o[l], cta.fe_res1_mask_o[l]));
        let fe_data: [S<C, 32>; 32] = std::array::from_fn(|l| fe_sel.mux(cta.fe_res_data_o[l], cta.fe_res1_data_o[l]));
        // wb's SP result ports, one per group; constant zero without one.
        let sp: SmallBuf<SpGroupOut<C::B>, { codes::MAX_SCHEDULERS }> = (0..codes::MAX_SCHEDULERS)
            .map(|g| match r.spo.get(g) {
                Some(o) => *o,
                None => <SpGroupOut<C::B> as crate::hdl::Ports<C::B>>::build(&mut crate::hdl::block::ZeroPorts),
            })
            .collect();
        cx.instance_end_sink(
            r.h_wb,
            &self.wb,
            &WbIn {
                sp0_res_valid_i: sp[0].out.res_valid,
                sp0_res_tag_i: sp[0].out.res_tag,
                sp0_res_mask_i: sp[0].out.res_mask,
                sp0_res_data_i: sp[0].out.res_data,
                sp0_res_pred_i: sp[0].out.res_pred,
                sp1_res_valid_i: sp[1].out.res_valid,
                sp1_res_tag_i: sp[1].out.res_tag,
                sp1_res_mask_i: sp[1].out.res_mask,
                sp1_res_data_i: sp[1].out.res_data,
                sp1_res_pred_i: sp[1].out.res_pred,
                sfu_res_valid_i: sfu.sfu_res_valid_o,
                sfu_res_tag_i: sfu.sfu_res_tag_o,
                sfu_res_mask_i: sfu.sfu_res_mask_o,
                sfu_res_data_i: sfu.sfu_res_data_o,
                dpu_res_valid_i: dpu.dpu_res_valid_o,
                dpu_res_tag_i: dpu.dpu_res_tag_o,
                dpu_res_mask_i: dpu.dpu_res_mask_o,
                dpu_res_data_i: dpu.dpu_res_data_o,
                dpu_res_pred_i: dpu.dpu_res_pred_o,
                // The LSU holds its result until the queue has room, so its
                // credits count results taken, not instructions dispatched.
                lsu_res_valid_i: lsu.lsu_res_valid_o & r.wb.wb_room_lsu_o,
                lsu_res_tag_i: lsu.lsu_res_tag_o,
                lsu_res_mask_i: lsu.lsu_res_mask_o,
                lsu_res_data_i: lsu.lsu_res_data_o,
                fe_res_valid_i: cta.fe_res_valid_o | cta.fe_res1_valid_o,
                fe_res_tag_i: fe_sel.mux(cta.fe_res_tag_o, cta.fe_res1_tag_o),
                fe_res_mask_i: fe_mask,
                fe_res_data_i: fe_data,
                disp_sp0_i: disp_sp0,
                disp_sp1_i: disp_sp1,
                disp_sfu_i: oc_r.sfu_valid_o & sfu.sfu_ready_o,
                disp_dpu_i: oc_r.dpu_valid_o & dpu.dpu_ready_o,
                disp_lsu_i: lsu.lsu_res_valid_o & r.wb.wb_room_lsu_o,
                disp_fe_i: s2r_any,
            },
        );
    }
}
