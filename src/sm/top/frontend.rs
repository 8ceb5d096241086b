//! The SM top's front end: per-warp readiness and holds (scoreboard, write
//! after read, barrier, simt, S2R credit, errors), the warp schedulers,
//! the control ops they issue (simt BRA SSY SYNC EXIT, barrier BAR, S2R:
//! single ports, at most one scheduler uses each per cycle), instruction
//! fetch, and the end of the front end's children (simt, barrier, CTA
//! launcher, instruction buffer, IMUL delay table, scoreboard, predicate
//! file). docs/sm.md 5.7 states the glue.

use super::{slot, Ring, SmIn, SmTop, Zeros, IM_WORDS};
use crate::golden::isa::{Op, Unit};
use crate::hdl::logic::{bit_of, index, or_all, pack, pick};
use crate::hdl::small::SmallBuf;
use crate::hdl::{Backend, Ctx, Sig, S};
use crate::units::barrier::BarIn;
use crate::units::cta::CtaIn;
use crate::units::ibuffer::IbIn;
use crate::units::ifetch::{IfIn as IfetchIn, IfOut};
use crate::units::imuldly::{ImdIn, ImdOut};
use crate::units::predfile::PfIn;
use crate::units::sched::{SchedIn, SchedOut};
use crate::units::scoreboard::{head_ok, Query, SbIn};
use crate::units::simt::SimtIn;
use crate::units::sp::is_imul32;

/// Per warp: may its head issue as far as its registers go (`ok`), is it
/// held by the front end (`hold`), is its head a control op (`is_ctrl`).
pub(super) struct Ready<B: Backend, const MW: usize> {
    pub(super) ok: SmallBuf<B::S<1>, MW>,
    pub(super) hold: SmallBuf<B::S<1>, MW>,
    pub(super) is_ctrl: SmallBuf<B::S<1>, MW>,
    /// The S2R opcode (7 bits), shared with the control-op decode.
    s2r_op: B::S<7>,
}

/// The control ops of this cycle, per scheduler and merged onto the single
/// simt, barrier and S2R ports.
pub(super) struct Ctl<B: Backend, const NS: usize> {
    c_sim: SmallBuf<B::S<1>, NS>,
    c_s2r: SmallBuf<B::S<1>, NS>,
    ctl_valid: B::S<1>,
    ctl_warp: B::S<6>,
    ctl_code: B::S<3>,
    ctl_imm: B::S<32>,
    ctl_taken: B::S<32>,
    bar_valid: B::S<1>,
    bar_warp: B::S<6>,
    bar_pc: B::S<16>,
    /// An S2R goes to the CTA launcher this cycle (a front-end result).
    pub(super) s2r_any: B::S<1>,
}

/// The schedulers' outputs, one per scheduler.
pub(super) type Scheds<B, const NS: usize> = SmallBuf<SchedOut<B>, NS>;

/// The simt control ops, with simt's codes.
const SIMT_OPS: [(Op, u64); 4] = [
    (Op::Bra, crate::units::simt::OP_BRA),
    (Op::Ssy, crate::units::simt::OP_SSY),
    (Op::Sync, crate::units::simt::OP_SYNC),
    (Op::Exit, crate::units::simt::OP_EXIT),
];

/// Is `op` (7 bits) a simt control op (BRA SSY SYNC EXIT)?
fn is_simt_op<C: Ctx>(cx: &mut C, op: S<C, 7>) -> S<C, 1> {
    let mut v = cx.lit::<1>(0);
    for (o, _) in SIMT_OPS {
        v = v | op.eq(cx.lit::<7>(o as u64));
    }
    v
}

/// simt's 3-bit code of a control op (0 for others).
fn simt_op_code<C: Ctx>(cx: &mut C, op: S<C, 7>) -> S<C, 3> {
    let mut v = cx.lit::<3>(0);
    for (o, code) in SIMT_OPS {
        let c = cx.lit::<3>(code);
        v = op.eq(cx.lit::<7>(o as u64)).mux(c, v);
    }
    v
}

fn lanes_of<C: Ctx>(cx: &mut C, v: S<C, 32>) -> [S<C, 1>; 32] {
    std::array::from_fn(|l| bit_of(cx, v, l))
}

sm_impl! {
    /// Write after read, per warp: a head that writes a register an issued
    /// instruction of its warp has still to read (a collector with the
    /// read pending, opcoll's Moore `war_*`) waits; otherwise a fast result
    /// (S2R through the front end, a load) could overwrite the source
    /// before the collector reads it. Per collector: the head of its warp,
    /// compared with the registers still to be read.
    fn war_hazards<C: Ctx>(&self, cx: &mut C, r: &Ring<C::B, MW, NS>, z1: S<C, 1>) -> SmallBuf<S<C, 1>, MW> {
        let (oc, ib) = (&r.oc, &r.ib);
        let ncoll = self.oc.geom().collectors;
        let mut war: SmallBuf<S<C, 1>, MW> = SmallBuf::filled(z1, MW);
        let (k1, k2) = (cx.lit::<2>(1), cx.lit::<2>(2));
        let one8 = cx.lit::<8>(1);
        for c in 0..ncoll {
            if cx.known_low(oc.war_v_o[c]) {
                continue;
            }
            let w = oc.war_warp_o[c];
            let kind = index(cx, &ib.h_kind_o, w);
            let dst = index(cx, &ib.h_dst_o, w);
            let dpair = kind.eq(k2);
            let writes = kind.eq(k1) | dpair;
            let mut hit = z1;
            for o in 0..3 {
                let r = oc.war_reg_o[3 * c + o];
                let rp = oc.war_pair_o[3 * c + o];
                let none = r.eq(cx.lit::<8>(255));
                let h = dst.eq(r) | (rp & dst.eq(r + one8)) | (dpair & (dst + one8).eq(r));
                hit = hit | (h & !none);
            }
            let hz = oc.war_v_o[c] & writes & hit;
            for (g, wg) in war.iter_mut().enumerate() {
                let gl = cx.lit::<6>(g as u64);
                *wg = *wg | (hz & w.eq(gl));
            }
        }
        war
    }

    /// Per-warp readiness and holds (docs/sm.md 5.7): a warp is held while
    /// it waits at a barrier, simt's pop engine holds it, simt redirects it
    /// this cycle, its head is a simt control op while simt's control port
    /// is not ready, its head is S2R without write-back credit, or after
    /// the SM latched an error.
    pub(super) fn readiness<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        err_q: S<C, 1>,
        gc: Option<&super::gpucc::GcRing<C::B>>,
        z: &Zeros<C::B>,
    ) -> Ready<C::B, MW> {
        let (ib, sb, simt, bar) = (&r.ib, &r.sb, &r.simt, &r.bar);
        let u_ctrl = cx.lit::<3>(Unit::Ctrl as u64);
        let s2r_op = cx.lit::<7>(Op::S2r as u64);
        let mut ok = SmallBuf::new();
        let mut hold = SmallBuf::new();
        let mut is_ctrl = SmallBuf::new();
        let war = self.war_hazards(cx, r, z.z1);
        for g in 0..MW {
            let q = Query {
                ra: ib.h_ra_o[g],
                rb: ib.h_rb_o[g],
                rc: ib.h_rc_o[g],
                pair: ib.h_pair_o[g],
                kind: ib.h_kind_o[g],
                dst: ib.h_dst_o[g],
                prd: ib.h_prd_o[g],
            };
            let sb_ok = head_ok(cx, sb.pend_o[g], sb.ppend_o[g], &q);
            // A 32-bit IMUL waits while the IMUL delay table is full.
            ok.push(match r.imd_full {
                Some(full) => {
                    let imul = is_imul32::<C::B>(ib.h_op_o[g], ib.h_mod_o[g]);
                    sb_ok & !war[g] & !(full & imul)
                }
                None => sb_ok & !war[g],
            });
            let gl = cx.lit::<6>(g as u64);
            let redir_now = simt.redir_valid_o & simt.redir_warp_o.eq(gl);
            let simt_ctl = is_simt_op(cx, ib.h_op_o[g]);
            let s2r = ib.h_op_o[g].eq(s2r_op);
            let h = bar.wait_o[g]
                | simt.busy_o[g]
                | redir_now
                | (simt_ctl & !simt.ctl_ready_o)
                | (s2r & !r.wb.wb_room_fe_o)
                | err_q;
            // GPU-CC: every warp waits while the network runs; GCRUN waits
            // until its warp's work has drained (gpucc.rs).
            let h = match gc {
                Some(gc) => {
                    let gcrun = ib.h_op_o[g].eq(cx.lit::<7>(Op::Gcrun as u64));
                    h | gc.mode | (gcrun & !gc.drained)
                }
                None => h,
            };
            hold.push(h);
            is_ctrl.push(ib.h_unit_o[g].eq(u_ctrl));
        }
        Ready {
            ok,
            hold,
            is_ctrl,
            s2r_op,
        }
    }

    /// The schedulers, scheduler `s` owning warps `l * NS + s`. Returns
    /// their outputs and, for GT200 dual issue, the SP-class instructions
    /// waiting for the SP group (`sp_wait_q`). A later scheduler is also
    /// held on a control op when scheduler 0 issues one (the simt control
    /// port, the barrier arrival and the S2R port are single).
    pub(super) fn schedulers<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        rd: &Ready<C::B, MW>,
        z: &Zeros<C::B>,
    ) -> (Scheds<C::B, NS>, Option<S<C, 2>>) {
        let (cta, ib, simt, oc) = (&r.cta, &r.ib, &r.simt, &r.oc);
        // Dual issue: with three SP instructions already waiting for the SP
        // group the scheduler sees the SP class as not ready, so an FMUL
        // goes to the SFU's multipliers beside them (docs/sm.md 5.8).
        let sp_wait_q = self.sp_wait.map(|q| cx.q(q));
        let sp_full = match sp_wait_q {
            Some(q) => q.eq(cx.lit::<2>(3)).zext::<4>(),
            None => cx.lit::<4>(0),
        };
        // opcoll's issue readiness per scheduler (two issue ports).
        let ready: SmallBuf<S<C, 4>, NS> =
            (0..NS).map(|s| if s == 0 { oc.is0_ready_o & !sp_full } else { oc.is1_ready_o }).collect();
        let mut so: Scheds<C::B, NS> = SmallBuf::new();
        for s in 0..NS {
            let gw = |l: usize| l * NS + s;
            let (peer_v, peer_u, peer_ctl) = if s == 0 {
                (z.z1, cx.lit::<3>(0), z.z1)
            } else {
                (so[0].is_valid_o, so[0].is_unit_o, so[0].ctl_valid_o)
            };
            let si = SchedIn::<C::B, LW> {
                wv_i: std::array::from_fn(|l| cta.wv_o[gw(l)] & simt.run_o[gw(l)]),
                bw_i: std::array::from_fn(|l| rd.hold[gw(l)] | (peer_ctl & rd.is_ctrl[gw(l)])),
                hv_i: std::array::from_fn(|l| ib.hv_o[gw(l)]),
                sb_ok_i: std::array::from_fn(|l| rd.ok[gw(l)]),
                h_err_i: std::array::from_fn(|l| ib.h_err_o[gw(l)]),
                h_unit_i: std::array::from_fn(|l| ib.h_unit_o[gw(l)]),
                h_fmul_i: std::array::from_fn(|l| ib.h_fmul_o[gw(l)]),
                h_op_i: std::array::from_fn(|l| ib.h_op_o[gw(l)]),
                h_mod_i: std::array::from_fn(|l| ib.h_mod_o[gw(l)]),
                h_gpred_i: std::array::from_fn(|l| ib.h_gpred_o[gw(l)]),
                h_gneg_i: std::array::from_fn(|l| ib.h_gneg_o[gw(l)]),
                h_ra_i: std::array::from_fn(|l| ib.h_ra_o[gw(l)]),
                h_rb_i: std::array::from_fn(|l| ib.h_rb_o[gw(l)]),
                h_rc_i: std::array::from_fn(|l| ib.h_rc_o[gw(l)]),
                h_pair_i: std::array::from_fn(|l| ib.h_pair_o[gw(l)]),
                h_kind_i: std::array::from_fn(|l| ib.h_kind_o[gw(l)]),
                h_dst_i: std::array::from_fn(|l| ib.h_dst_o[gw(l)]),
                h_use_imm_i: std::array::from_fn(|l| ib.h_use_imm_o[gw(l)]),
                h_imm_i: std::array::from_fn(|l| ib.h_imm_o[gw(l)]),
                h_pc_i: std::array::from_fn(|l| ib.h_pc_o[gw(l)]),
                act_i: std::array::from_fn(|l| simt.act_o[gw(l)]),
                pred_i: std::array::from_fn(|l| r.pf.p_o[gw(l)]),
                ready_i: ready[s],
                peer_valid_i: peer_v,
                peer_unit_i: peer_u,
            };
            so.push(cx.instance(&self.sched_names[s], &self.sched[s], &si));
        }
        (so, sp_wait_q)
    }

    /// The control ops of this cycle (at most one scheduler issues one),
    /// merged onto the simt, barrier and S2R ports.
    pub(super) fn control_ops<C: Ctx>(
        &self,
        cx: &mut C,
        so: &Scheds<C::B, NS>,
        rd: &Ready<C::B, MW>,
    ) -> Ctl<C::B, NS> {
        let bar_op = cx.lit::<7>(Op::Bar as u64);
        let mut c_sim: SmallBuf<S<C, 1>, NS> = SmallBuf::new();
        let mut c_bar: SmallBuf<S<C, 1>, NS> = SmallBuf::new();
        let mut c_s2r: SmallBuf<S<C, 1>, NS> = SmallBuf::new();
        for o in so {
            let sim = o.ctl_valid_o & is_simt_op(cx, o.ctl_op_o);
            c_sim.push(sim);
            c_bar.push(o.ctl_valid_o & o.ctl_op_o.eq(bar_op));
            c_s2r.push(o.ctl_valid_o & o.ctl_op_o.eq(rd.s2r_op));
        }
        let warps: SmallBuf<S<C, 6>, NS> = so.iter().map(|o| o.iss_warp_o).collect();
        let ctl_valid = or_all(cx, &c_sim);
        let ctl_warp = pick(cx, &c_sim, &warps);
        let ops: SmallBuf<S<C, 7>, NS> = so.iter().map(|o| o.ctl_op_o).collect();
        let ctl_op7 = pick(cx, &c_sim, &ops);
        let ctl_code = simt_op_code(cx, ctl_op7);
        let imms: SmallBuf<S<C, 32>, NS> = so.iter().map(|o| o.ctl_imm_o).collect();
        let ctl_imm = pick(cx, &c_sim, &imms);
        let takens: SmallBuf<S<C, 32>, NS> = so.iter().map(|o| pack(cx, &o.ctl_taken_o)).collect();
        let ctl_taken = pick(cx, &c_sim, &takens);
        let bar_valid = or_all(cx, &c_bar);
        let bar_warp = pick(cx, &c_bar, &warps);
        let pcs: SmallBuf<S<C, 16>, NS> = so.iter().map(|o| o.ctl_pc_o).collect();
        let bar_pc = pick(cx, &c_bar, &pcs);
        let s2r_any = or_all(cx, &c_s2r);
        Ctl {
            c_sim,
            c_s2r,
            ctl_valid,
            ctl_warp,
            ctl_code,
            ctl_imm,
            ctl_taken,
            bar_valid,
            bar_warp,
            bar_pc,
            s2r_any,
        }
    }

    /// Instruction fetch (and the instruction cache) into the buffer.
    pub(super) fn fetch<C: Ctx>(
        &self,
        cx: &mut C,
        i: &SmIn<C::B>,
        r: &Ring<C::B, MW, NS>,
        gc_mode: Option<S<C, 1>>,
    ) -> IfOut<C::B, MW, NS> {
        let (simt, ib) = (&r.simt, &r.ib);
        // In GPU-CC mode fetch stops (docs/gpucc.md section 12): no warp
        // runs, and a miss looked up before the mode keeps its request of
        // the line until the mode ends.
        let run = match gc_mode {
            Some(m) => std::array::from_fn(|w| simt.run_o[w] & !m),
            None => simt.run_o,
        };
        let hold = gc_mode.unwrap_or_else(|| cx.lit::<1>(0));
        cx.instance(
            "u_ifetch",
            &self.ifetch,
            &IfetchIn::<C::B, MW, IM_WORDS> {
                st_valid_i: r.cta.st_valid_o,
                st_warp_i: r.cta.st_warp_o,
                redir_valid_i: simt.redir_valid_o,
                redir_warp_i: simt.redir_warp_o,
                redir_pc_i: simt.redir_pc_o,
                run_i: run,
                busy_i: simt.busy_o,
                room_i: ib.room_o,
                hv_i: ib.hv_o,
                plen_i: i.plen_i,
                im_req_ready_i: i.im_req_ready_i,
                im_resp_valid_i: i.im_resp_valid_i,
                im_resp_data_i: i.im_resp_data_i,
                hold_i: hold,
            },
        )
    }

    /// End simt (its read port feeds the barrier), the barrier and the CTA
    /// launcher (warp starts and exits, the S2R port of each scheduler).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn end_control<C: Ctx>(
        &self,
        cx: &mut C,
        i: &SmIn<C::B>,
        r: &Ring<C::B, MW, NS>,
        so: &Scheds<C::B, NS>,
        ctl: &Ctl<C::B, NS>,
        mem_idle: S<C, 1>,
        z: &Zeros<C::B>,
    ) -> super::gpucc::Converged<C::B> {
        let (cta, simt) = (&r.cta, &r.simt);
        let ctl_taken_l = lanes_of(cx, ctl.ctl_taken);
        let simt_r = cx.instance_end(
            r.h_simt,
            &self.simt,
            &SimtIn::<C::B, NS> {
                start_valid_i: cta.st_valid_o,
                start_warp_i: cta.st_warp_o,
                start_mask_i: cta.st_mask_o,
                adv_valid_i: std::array::from_fn(|s| so[s].iss_valid_o & !ctl.c_sim[s]),
                adv_warp_i: std::array::from_fn(|s| so[s].iss_warp_o),
                ctl_valid_i: ctl.ctl_valid,
                ctl_warp_i: ctl.ctl_warp,
                ctl_op_i: ctl.ctl_code,
                ctl_target_i: ctl.ctl_imm.slice::<0, 16>(),
                ctl_taken_i: ctl_taken_l,
                f_warp_i: z.z6,
                s_warp_i: ctl.bar_warp,
            },
        );
        cx.instance_end_sink(
            r.h_bar,
            &self.bar,
            &BarIn {
                join_valid_i: cta.st_valid_o,
                join_warp_i: cta.st_warp_o,
                join_cta_i: cta.st_cta_o,
                leave_valid_i: simt.exit_valid_o,
                leave_warp_i: simt.exit_warp_o,
                arr_valid_i: ctl.bar_valid,
                arr_warp_i: ctl.bar_warp,
                arr_pc_i: ctl.bar_pc,
                arr_active_i: simt_r.s_active_o,
                arr_live_i: simt_r.s_live_o,
            },
        );
        // The S2R request of each scheduler: valid, warp, index, lanes, tag.
        let s2r: SmallBuf<_, NS> = so
            .iter()
            .zip(&ctl.c_s2r)
            .map(|(o, &v)| (v, o.iss_warp_o, o.ctl_imm_o.slice::<0, 8>(), o.ctl_taken_o, o.is_tag_o))
            .collect();
        let none = (z.z1, z.z6, z.z8, [z.z1; 32], z.z32);
        let (r0, r1) = (slot(&s2r, 0, none), slot(&s2r, 1, none));
        cx.instance_end_sink(
            r.h_cta,
            &self.cta,
            &CtaIn::<C::B, MW> {
                launch: i.launch,
                exit_valid_i: simt.exit_valid_o,
                exit_warp_i: simt.exit_warp_o,
                idle_i: r.sb.idle_o,
                lsu_idle_i: mem_idle,
                s2r_valid_i: r0.0,
                s2r_warp_i: r0.1,
                s2r_idx_i: r0.2,
                s2r_mask_i: r0.3,
                s2r_tag_i: r0.4,
                s2r1_valid_i: r1.0,
                s2r1_warp_i: r1.1,
                s2r1_idx_i: r1.2,
                s2r1_mask_i: r1.3,
                s2r1_tag_i: r1.4,
            },
        );
        // The barrier's warp (warp slot 0 when no BAR issues): GPU-CC's
        // check that its one warp is converged.
        super::gpucc::Converged {
            active: simt_r.s_active_o,
            live: simt_r.s_live_o,
        }
    }

    /// End the per-warp issue state: the instruction buffer (fetch pushes,
    /// issue pops, redirects and starts flush), the IMUL delay table
    /// (between wb's releases and the scoreboard, GT200/Tesla), the
    /// scoreboard and the predicate file.
    pub(super) fn end_issue_state<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        so: &Scheds<C::B, NS>,
        ifo: &IfOut<C::B, MW, NS>,
    ) {
        let (cta, wb, simt) = (&r.cta, &r.wb, &r.simt);
        cx.instance_end_sink(
            r.h_ib,
            &self.ibuf,
            &IbIn::<C::B, NS> {
                push_valid_i: ifo.push_valid_o,
                push_warp_i: ifo.push_warp_o,
                push_pc_i: ifo.push_pc_o,
                push_word_i: ifo.push_word_o,
                pop_valid_i: std::array::from_fn(|s| so[s].iss_valid_o),
                pop_warp_i: std::array::from_fn(|s| so[s].iss_warp_o),
                fl_valid_i: [simt.redir_valid_o, cta.st_valid_o],
                fl_warp_i: [simt.redir_warp_o, cta.st_warp_o],
            },
        );
        // wb's releases, through the IMUL delay table where there is one.
        let (rel_valid, rel_tag) = match (r.h_imd, self.imd.as_ref()) {
            (Some(h), Some(d)) => {
                let io: ImdOut<C::B, NS> = cx.instance_end(
                    h,
                    d,
                    &ImdIn::<C::B, NS> {
                        set_valid_i: std::array::from_fn(|s| {
                            so[s].is_valid_o & so[s].iss_set_o & is_imul32::<C::B>(so[s].is_op_o, so[s].is_mod_o)
                        }),
                        set_tag_i: std::array::from_fn(|s| so[s].is_tag_o),
                        rel_valid_i: wb.rel_valid_o,
                        rel_tag_i: wb.rel_tag_o,
                    },
                );
                (io.rel_valid_o, io.rel_tag_o)
            }
            _ => (wb.rel_valid_o, wb.rel_tag_o),
        };
        cx.instance_end_sink(
            r.h_sb,
            &self.sb,
            &SbIn::<C::B, NS> {
                set_valid_i: std::array::from_fn(|s| so[s].iss_set_o),
                set_tag_i: std::array::from_fn(|s| so[s].is_tag_o),
                rel_valid_i: rel_valid,
                rel_tag_i: rel_tag,
                clr_valid_i: cta.st_valid_o,
                clr_warp_i: cta.st_warp_o,
            },
        );
        cx.instance_end_sink(
            r.h_pf,
            &self.pf,
            &PfIn::<C::B, NS> {
                wr_valid_i: wb.pr_wr_valid_o,
                wr_warp_i: wb.pr_wr_warp_o,
                wr_idx_i: wb.pr_wr_idx_o,
                wr_mask_i: wb.pr_wr_mask_o,
                wr_val_i: wb.pr_wr_val_o,
                // PSETP, executed by the schedulers at issue.
                sw_valid_i: std::array::from_fn(|s| so[s].sw_valid_o),
                sw_warp_i: std::array::from_fn(|s| so[s].iss_warp_o),
                sw_idx_i: std::array::from_fn(|s| so[s].sw_idx_o),
                sw_mask_i: std::array::from_fn(|s| so[s].sw_mask_o),
                sw_val_i: std::array::from_fn(|s| so[s].sw_val_o),
                clr_valid_i: cta.st_valid_o,
                clr_warp_i: cta.st_warp_o,
            },
        );
    }
}
