//! The SM top's first-error latch: every block's error (the units' with
//! their result pulse) is a source of [`codes`] `SRC_*`; the first one
//! (lowest source number when several arrive together) is latched with
//! its code, warp, pc and block-specific information (`err_*_o`, sticky),
//! and issue stops (`readiness` holds every warp).

use super::frontend::Scheds;
use super::{Ring, SmTop, Zeros};
use crate::codes;
use crate::hdl::small::SmallBuf;
use crate::hdl::{Backend, Ctx, Sig, S};
use crate::units::ifetch::IfOut;

/// One error source: valid, code, `err_src_o` value, warp, pc, information.
type Source<B> = (
    <B as Backend>::S<1>,
    <B as Backend>::S<8>,
    u64,
    <B as Backend>::S<6>,
    <B as Backend>::S<16>,
    <B as Backend>::S<32>,
);

sm_impl! {
    /// The error sources of this cycle, in source order.
    fn error_sources<B: Backend>(
        &self,
        r: &Ring<B, MW, NS>,
        ifo: &IfOut<B, MW, NS>,
        so: &Scheds<B, NS>,
        gc: Option<&super::gpucc::GcOut<B>>,
        z: &Zeros<B>,
        z16: B::S<16>,
    ) -> SmallBuf<Source<B>, 16> {
        let (cta, simt, bar, oc, sfu, dpu, lsu, wb) = (&r.cta, &r.simt, &r.bar, &r.oc, &r.sfu, &r.dpu, &r.lsu, &r.wb);
        let (z6, z32) = (z.z6, z.z32);
        let tagw = |t: B::S<32>| -> B::S<6> { t.slice::<0, 6>() };
        let tagpc = |t: B::S<32>| -> B::S<16> { t.slice::<16, 16>() };
        let mut srcs = SmallBuf::new();
        srcs.push((cta.err_o, cta.err_code_o, codes::SRC_CTA, z6, z16, cta.err_reason_o.zext::<32>()));
        srcs.push((ifo.err_o, ifo.err_code_o, codes::SRC_IFETCH, ifo.err_warp_o, ifo.err_pc_o, z32));
        for (s, o) in so.iter().enumerate() {
            srcs.push((o.err_o, o.err_code_o, codes::SRC_SCHED + s as u64, o.err_warp_o, o.err_pc_o, z32));
        }
        srcs.push((simt.err_o, simt.err_code_o, codes::SRC_SIMT, simt.err_warp_o, simt.err_pc_o, z32));
        srcs.push((
            bar.err_o,
            bar.err_code_o,
            codes::SRC_BARRIER,
            bar.err_warp_o,
            bar.err_pc_o,
            bar.err_cta_o.zext::<32>(),
        ));
        srcs.push((oc.err_o, oc.err_code_o, codes::SRC_OPCOLL, oc.err_warp_o, z16, oc.err_reg_o.zext::<32>()));
        // The units' errors come with their result pulse; warp and pc from
        // the tag.
        for (g, o) in r.spo.iter().enumerate() {
            let v = o.out.res_valid & o.out.err;
            srcs.push((v, o.out.err_code, codes::SRC_SP + g as u64, tagw(o.out.res_tag), tagpc(o.out.res_tag), z32));
        }
        let v = sfu.sfu_res_valid_o & sfu.sfu_err_o;
        srcs.push((v, sfu.sfu_err_code_o, codes::SRC_SFU, tagw(sfu.sfu_res_tag_o), tagpc(sfu.sfu_res_tag_o), z32));
        let v = dpu.dpu_res_valid_o & dpu.dpu_err_o;
        srcs.push((v, dpu.dpu_err_code_o, codes::SRC_DPU, tagw(dpu.dpu_res_tag_o), tagpc(dpu.dpu_res_tag_o), z32));
        // The LSU holds a result until the write-back takes it.
        let v = lsu.lsu_res_valid_o & lsu.lsu_res_err_o & wb.wb_room_lsu_o;
        srcs.push((
            v,
            lsu.lsu_res_err_code_o,
            codes::SRC_LSU,
            tagw(lsu.lsu_res_tag_o),
            tagpc(lsu.lsu_res_tag_o),
            lsu.err_addr_o,
        ));
        srcs.push((lsu.err_o, lsu.err_code_o, codes::SRC_LSU, lsu.err_warp_o, z16, lsu.err_addr_o));
        srcs.push((wb.err_o, wb.err_code_o, codes::SRC_WB, z6, z16, wb.err_src_o.zext::<32>()));
        if let Some(g) = gc {
            srcs.push((g.err, g.err_code, codes::SRC_GPUCC, g.warp, g.pc, g.info));
        }
        srcs
    }

    /// Latch the first error (`err_q`: one is latched already).
    pub(super) fn first_error<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        ifo: &IfOut<C::B, MW, NS>,
        so: &Scheds<C::B, NS>,
        err_q: S<C, 1>,
        gc: Option<&super::gpucc::GcOut<C::B>>,
        z: &Zeros<C::B>,
    ) {
        let z16 = cx.lit::<16>(0);
        let srcs = self.error_sources(r, ifo, so, gc, z, z16);
        let (mut nv, mut ncode, mut nsrc, mut nwarp, mut npc, mut ninfo) =
            (z.z1, cx.lit::<8>(0), cx.lit::<4>(0), z.z6, z16, z.z32);
        for &(v, code, src, w, pc, info) in srcs.iter().rev() {
            let srcl = cx.lit::<4>(src);
            ncode = v.mux(code, ncode);
            nsrc = v.mux(srcl, nsrc);
            nwarp = v.mux(w, nwarp);
            npc = v.mux(pc, npc);
            ninfo = v.mux(info, ninfo);
            nv = nv | v;
        }
        let e = &self.err;
        let take = nv & !err_q;
        let (qc, qs, qw, qp, qi) = (cx.q(e.code), cx.q(e.src), cx.q(e.warp), cx.q(e.pc), cx.q(e.info));
        cx.d(e.v, err_q | nv);
        cx.d(e.code, take.mux(ncode, qc));
        cx.d(e.src, take.mux(nsrc, qs));
        cx.d(e.warp, take.mux(nwarp, qw));
        cx.d(e.pc, take.mux(npc, qp));
        cx.d(e.info, take.mux(ninfo, qi));
    }
}
