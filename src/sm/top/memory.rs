//! The SM top's memory side: the load/store unit (`u_lsu`) with shared
//! memory (`u_smem`) behind it, Fermi's L1 data cache (`u_l1`) between the
//! LSU's global port and the SM's `gm_*` port, and the count of memory
//! instructions in flight that the CTA launcher waits for before it
//! releases a CTA (stores have no scoreboard entry).

use super::frontend::Scheds;
use super::{Ring, SmIn, SmTop};
use crate::golden::isa::Unit;
use crate::hdl::{Ctx, Sig, S};
use crate::units::l1::{L1In, L1Out};
use crate::units::lsu::{LsuIn, LsuOut};
use crate::units::opcoll::OpcollOut;
use crate::units::smem::SmemIn;

/// The global-memory side after the memory step: the L1's outputs (Fermi)
/// and the LSU's, ended.
pub(super) struct GmSide<B: crate::hdl::Backend> {
    pub(super) l1: Option<L1Out<B, 0, 8>>,
    pub(super) lsu: LsuOut<B>,
}

sm_impl! {
    /// Memory instructions in flight (issue to LSU result), updated; returns
    /// "no memory instruction in flight and the LSU idle".
    pub(super) fn mem_inflight<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        so: &Scheds<C::B, NS>,
    ) -> S<C, 1> {
        let mem_q = cx.q(self.mem_q);
        let u_lsu = cx.lit::<3>(Unit::Lsu as u64);
        let one8 = cx.lit::<8>(1);
        let mut mem_n = mem_q;
        for o in so {
            let inc = o.is_valid_o & o.is_unit_o.eq(u_lsu);
            mem_n = inc.mux(mem_n + one8, mem_n);
        }
        // An LSU result leaves when the write-back takes it.
        let took = r.lsu.lsu_res_valid_o & r.wb.wb_room_lsu_o;
        let mem_n = took.mux(mem_n - one8, mem_n);
        cx.d(self.mem_q, mem_n);
        !mem_q.any() & r.lsu.lsu_idle_o
    }

    /// The L1 (Fermi: its LSU side takes the LSU's global port, Moore
    /// outputs; its ready and responses go back to the LSU), then the LSU
    /// and shared memory ended.
    pub(super) fn memory<C: Ctx>(
        &self,
        cx: &mut C,
        i: &SmIn<C::B>,
        r: &Ring<C::B, MW, NS>,
        oc_r: &OpcollOut<C::B>,
        gc: Option<&super::gpucc::GcRing<C::B>>,
    ) -> GmSide<C::B> {
        let (lsu, smem) = (&r.lsu, &r.smem);
        // GPU-CC: the L1's requester 0 is the network's memory front end
        // while the mode is on (the LSU is idle then), the LSU's otherwise.
        let req = match gc {
            Some(g) => crate::units::gm::GmReq {
                valid: g.mode.mux(g.mem.l1_req.valid, lsu.gm_req.valid),
                id: g.mode.mux(g.mem.l1_req.id, lsu.gm_req.id),
                write: g.mode.mux(g.mem.l1_req.write, lsu.gm_req.write),
                atom: g.mode.mux(g.mem.l1_req.atom, lsu.gm_req.atom),
                addr: g.mode.mux(g.mem.l1_req.addr, lsu.gm_req.addr),
                size: g.mode.mux(g.mem.l1_req.size, lsu.gm_req.size),
                wmask: std::array::from_fn(|k| g.mode.mux(g.mem.l1_req.wmask[k], lsu.gm_req.wmask[k])),
                wdata: std::array::from_fn(|k| g.mode.mux(g.mem.l1_req.wdata[k], lsu.gm_req.wdata[k])),
            },
            None => lsu.gm_req,
        };
        let lsu_mode = gc.map(|g| !g.mode);
        let l1o = self.l1.as_ref().map(|c| {
            // The front end's prefetches refresh their lines in the L1 (an
            // L1 built without the refresh mode ignores it).
            let refresh = match gc {
                Some(g) => g.mode & g.mem.l1_req_refresh_o,
                None => cx.lit::<1>(0),
            };
            cx.instance(
                "u_l1",
                c,
                &L1In {
                    lsu_req: req,
                    lsu_req_refresh_i: refresh,
                    gm_req_ready_i: i.gm_req_ready_i,
                    gm_resp: i.gm_resp,
                    rq: [],
                    rq_fill: [],
                },
            )
        });
        let lsu_r = cx.instance_end(
            r.h_lsu,
            &self.lsu,
            &LsuIn::<C::B, MW> {
                lsu_valid_i: oc_r.lsu_valid_o,
                lsu_op_i: oc_r.lsu_op_o,
                lsu_mod_i: oc_r.lsu_mod_o,
                lsu_mask_i: oc_r.lsu_mask_o,
                lsu_a_i: oc_r.lsu_a_o,
                lsu_b_i: oc_r.lsu_b_o,
                lsu_c_i: oc_r.lsu_c_o,
                lsu_off_i: oc_r.lsu_off_o,
                lsu_tag_i: oc_r.lsu_tag_o,
                sbase_i: r.cta.sbase_o,
                ssize_i: r.cta.ssize_o,
                param_we_i: i.param_we_i,
                param_addr_i: i.param_addr_i,
                param_data_i: i.param_data_i,
                gm_size_i: i.gm_size_i,
                sm_ready_i: smem.ready_o,
                sm_resp_valid_i: smem.resp_valid_o,
                sm_rdata_i: smem.rdata_o,
                sm_passes_i: smem.passes_o,
                sm_err_i: smem.err_o,
                sm_pass_i: smem.pass_o,
                sm_conflict_i: smem.conflict_o,
                gm_req_ready_i: match (l1o, lsu_mode) {
                    (Some(o), Some(m)) => o.lsu_req_ready_o & m,
                    (Some(o), None) => o.lsu_req_ready_o,
                    (None, _) => i.gm_req_ready_i,
                },
                gm_resp: match (l1o, lsu_mode) {
                    (Some(o), Some(m)) => crate::units::gm::GmResp {
                        valid: o.lsu_resp.valid & m,
                        ..o.lsu_resp
                    },
                    (Some(o), None) => o.lsu_resp,
                    (None, _) => i.gm_resp,
                },
                lsu_res_ready_i: r.wb.wb_room_lsu_o,
            },
        );
        cx.instance_end_sink(
            r.h_smem,
            &self.smem,
            &SmemIn {
                req_valid_i: lsu_r.sm_req_valid_o,
                op_i: lsu_r.sm_op_o,
                active_i: lsu_r.sm_active_o,
                addr_i: lsu_r.sm_addr_o,
                data_i: lsu_r.sm_data_o,
                cmp_i: lsu_r.sm_cmp_o,
            },
        );
        GmSide { l1: l1o, lsu: lsu_r }
    }
}
