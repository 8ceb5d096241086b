//! The SM top's GPU-CC mode (configs with a `[gpucc]` section;
//! docs/gpucc.md section 12): the network (`u_gcnet`, its cores on the SP
//! groups' lane ports), its memory front end (`u_gcmem`, on the L1's
//! requester 0 in GPU-CC mode), the mode register and the glue that takes
//! `GCSET` off the SP dispatch port and holds the front end while the
//! network runs.
//!
//! ```text
//!  sched: GCSET (unit SP, kind 0) --> u_oc (reads b) --> sp<g> dispatch --x--> u_sp<g> (not given)
//!                                                                        |
//!                           cfg_we/node (tag dst)/sel (mod)/data (b, lowest lane)
//!                                                                        v
//!  sched: GCRUN (ctrl; held until drained) --> gc_mode_q --run_i--> u_gcnet (hot) <--ln<j>--> u_sp<g>
//!  gc_mode_q: every warp held, fetch off                             |  mem, pf
//!  end: done_o, then u_gcmem flushed and idle -> clear_i       u_gcmem --> u_l1 requester 0
//! ```
//!
//! * Clock domains: the mode register and counters are core domain; the
//!   network and the front end are hot. Configuration writes, `run_i`,
//!   `clear_i` and the lane mode cross into the hot domain (a core-cycle
//!   write is written twice: the same value); `done_o`, `idle_o`,
//!   `fire_o` and `err_o` cross back, sampled at the core edge.
//! * `GCSET node, sel, b` decodes as an SP-unit instruction without a
//!   destination (`decode::gpucc_row`): its node is the tag's `dst` field,
//!   its register number the modifier, its value `b` of the lowest lane of
//!   the dispatch mask. It is not given to the SP group and takes no
//!   write-back credit; `gc_pend_q` counts those issued and not yet
//!   dispatched.
//! * `GCRUN` issues as a control op once its warp is drained: no `GCSET`
//!   waiting in a collector, no memory instruction in flight (stores have
//!   reached the L1, which keeps them in order with the network's
//!   requests), nothing in the SP groups (`gc_spq<g>_q`, dispatches not yet
//!   answered) and nothing pending in the scoreboard. At its issue edge
//!   `gc_mode_q` rises: every warp is held and instruction fetch stops
//!   (the register file and the front end are idle), the SP groups take
//!   their lane ports, the L1's requester 0 is the front end's. The mode
//!   ends in the cycle the network is done (`done_o`: counted nodes
//!   finished, FIFOs empty, nothing in flight) and the front end is idle
//!   after sending its buffered stores (`flush_i` from `done_o`); in that
//!   cycle `clear_i` clears every configuration register and line buffer,
//!   and the warp issues the instruction after `GCRUN` from the next cycle.
//! * Errors (source `gpucc`): [`DEADLOCK_CYCLES`] core cycles in GPU-CC
//!   mode without a firing while the network is not done raise
//!   `ERR_GC_DEADLOCK`; a lane error `ERR_GC_LANE` (both at the `GCRUN`'s
//!   warp and pc); `GCSET`/`GCRUN` beside another warp or in divergent code
//!   `ERR_GC_LAUNCH` at that instruction.
//! * Counters and monitors (core domain, for the report):
//!   `cnt_gc_cycles_o` (core cycles in GPU-CC mode), `cnt_gc_runs_o`,
//!   `cnt_gc_fire_o` (firings, summed per hot cycle), per node
//!   `gc_fire_o`, `gc_stall_in_o`, `gc_stall_out_o` (two bits: this hot
//!   cycle and the one before); `gc_tok_valid_o` and `gc_tok_o` (two
//!   bits, two 32-bit words: the token each node drove on its lane in the
//!   same two hot cycles), which the runner checks token by token against
//!   the golden dataflow model.

use super::{Ring, SmTop, Zeros};
use crate::codes;
use crate::golden::isa::Op;
use crate::hdl::logic::{first_one, or_all, pick};
use crate::hdl::small::SmallBuf;
use crate::hdl::{Ctx, Decl, Domain, Pending, Reg, Sig, S};
use crate::units::gpucc::mem::{GpuccMem, MemIn, MemOut};
use crate::units::gpucc::{GpuccNet, GpuccNetX, NetIn, NetOut};
use crate::units::l1::L1Out;
use crate::units::opcoll::OpcollOut;

/// Core cycles in GPU-CC mode without a firing that make a deadlock.
pub const DEADLOCK_CYCLES: u64 = 1 << 14;

/// The GPU-CC parts of an SM with a `[gpucc]` section.
#[derive(Debug, Clone)]
pub(super) struct GcParts {
    net: GpuccNetX,
    mem: GpuccMem,
    mode: Reg<1>,
    pend: Reg<4>,
    spq: [Reg<4>; 2],
    still: Reg<15>,
    cnt_cycles: Reg<32>,
    cnt_runs: Reg<32>,
    cnt_fire: Reg<32>,
    /// The GCRUN running: its warp and pc (the place of a GPU-CC error).
    warp: Reg<6>,
    pc: Reg<16>,
    /// Per node, `fire_o`, `stall_in_o`, `stall_out_o` of the hot cycle
    /// before (hot domain): the monitors show both hot cycles of a core
    /// cycle.
    prev: [Vec<Reg<1>>; 4],
    /// Per node, the token it drove in the hot cycle before (0 when it
    /// drove none).
    tok_prev: Vec<Reg<32>>,
}

impl GcParts {
    /// The parts for `cfg`, registers declared in `d`.
    pub(super) fn new(cfg: &crate::config::SmConfig, d: &mut Decl) -> Result<GcParts, String> {
        let net = GpuccNet::external(cfg)?;
        let mem = GpuccMem::of(cfg)?;
        let c = Domain::Core;
        Ok(GcParts {
            net,
            mem,
            mode: d.reg("gc_mode", c, 0),
            pend: d.reg("gc_pend", c, 0),
            spq: [d.reg("gc_spq0", c, 0), d.reg("gc_spq1", c, 0)],
            still: d.reg("gc_still", c, 0),
            cnt_cycles: d.reg("cnt_gc_cycles", c, 0),
            cnt_runs: d.reg("cnt_gc_runs", c, 0),
            // Summed per hot cycle: a hot-domain register.
            cnt_fire: d.reg("cnt_gc_fire", Domain::Hot, 0),
            warp: d.reg("gc_warp", c, 0),
            pc: d.reg("gc_pc", c, 0),
            prev: ["fire", "stall_in", "stall_out", "tok_valid"].map(|n| {
                (0..crate::golden::gpucc::NODES)
                    .map(|k| d.reg(&format!("gc_{n}_prev{k}"), Domain::Hot, 0))
                    .collect()
            }),
            tok_prev: (0..crate::golden::gpucc::NODES)
                .map(|k| d.reg(&format!("gc_tok_prev{k}"), Domain::Hot, 0))
                .collect(),
        })
    }
}

/// The network begun, and the mode of this cycle.
pub(super) struct GcRing<B: crate::hdl::Backend> {
    h_net: Pending,
    pub(super) net: NetOut<B, 32>,
    h_mem: Pending,
    /// The memory front end's Moore outputs (its L1 request).
    pub(super) mem: MemOut<B>,
    /// `gc_mode_q`.
    pub(super) mode: B::S<1>,
    /// The last cycle of GPU-CC mode: the network done and the memory
    /// front end idle (its buffered stores sent).
    pub(super) end: B::S<1>,
    /// Nothing of the (one) warp's work is in flight: `GCRUN` may issue.
    pub(super) drained: B::S<1>,
}

/// The active and live lanes of the simt stack's read port (`s_*`): warp
/// slot 0 unless a BAR issues; GPU-CC runs one warp, in slot 0.
pub(super) struct Converged<B: crate::hdl::Backend> {
    pub(super) active: [B::S<1>; 32],
    pub(super) live: [B::S<1>; 32],
}

/// What the GPU-CC glue gives the rest of the SM after dispatch.
pub(super) struct GcDispatch<B: crate::hdl::Backend> {
    /// Per SP group: its dispatch is a `GCSET` (not given to the group).
    pub(super) gcset: [B::S<1>; 2],
}

/// The GPU-CC outputs of the SM: errors and counters.
pub(super) struct GcOut<B: crate::hdl::Backend> {
    pub(super) mode: B::S<1>,
    pub(super) err: B::S<1>,
    pub(super) err_code: B::S<8>,
    pub(super) cnt_cycles: B::S<32>,
    pub(super) cnt_runs: B::S<32>,
    pub(super) cnt_fire: B::S<32>,
    pub(super) warp: B::S<6>,
    pub(super) pc: B::S<16>,
    pub(super) info: B::S<32>,
    /// Per node, bit 1 this hot cycle (the one the outputs are sampled in,
    /// with a core edge at its end), bit 0 the hot cycle before: fired,
    /// stalled on an input, stalled on its output. Sampled once per core
    /// cycle they count every hot cycle once.
    pub(super) fire: [B::S<2>; 48],
    pub(super) stall_in: [B::S<2>; 48],
    pub(super) stall_out: [B::S<2>; 48],
    /// Per node, the same two hot cycles: drove a token on its lane (bit 1
    /// this hot cycle, bit 0 the one before), and the tokens (bits 63:32
    /// this hot cycle, 31:0 the one before; 0 where none), for the
    /// runner's token-level check against the golden dataflow model.
    pub(super) tok_valid: [B::S<2>; 48],
    pub(super) tok: [B::S<64>; 48],
}

sm_impl! {
    /// Begin the network; the mode and the drained condition (`mem_q`:
    /// memory instructions in flight, read before the memory step).
    pub(super) fn gc_begin<C: Ctx>(&self, cx: &mut C, r: &Ring<C::B, MW, NS>) -> Option<GcRing<C::B>> {
        let gc = self.gc.as_ref()?;
        let (h_net, net) = cx.instance_begin("u_gcnet", &gc.net);
        let (h_mem, mem) = cx.instance_begin("u_gcmem", &gc.mem);
        let mode = cx.q(gc.mode);
        let pend = cx.q(gc.pend);
        let mem_q = cx.q(self.mem_q);
        let mut drained = !pend.any() & !mem_q.any() & r.lsu.lsu_idle_o;
        for g in 0..NS {
            drained = drained & !cx.q(gc.spq[g]).any();
        }
        let mut all_idle = cx.lit::<1>(1);
        for w in 0..MW {
            all_idle = all_idle & r.sb.idle_o[w];
        }
        let done = net.done_o & mem.idle_o;
        let end = mode & cx.cross(done, Domain::Core);
        Some(GcRing {
            h_net,
            net,
            h_mem,
            mem,
            mode,
            end,
            drained: drained & all_idle,
        })
    }

    /// After dispatch: which SP dispatch is a `GCSET`; the pending count
    /// and the SP groups' outstanding dispatches updated.
    pub(super) fn gc_dispatch<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        so: &super::frontend::Scheds<C::B, NS>,
        oc_r: &OpcollOut<C::B>,
        z: &Zeros<C::B>,
    ) -> GcDispatch<C::B> {
        let gc = self.gc.as_ref().expect("gc_dispatch without GPU-CC parts");
        let op_set = cx.lit::<7>(Op::Gcset as u64);
        let one4 = cx.lit::<4>(1);
        // GCSETs issued (each scheduler) and dispatched (each SP port).
        let mut pend_n = cx.q(gc.pend);
        for o in so {
            let inc = o.is_valid_o & o.is_op_o.eq(op_set);
            pend_n = inc.mux(pend_n + one4, pend_n);
        }
        let mut gcset = [z.z1; 2];
        for (k, gs) in gcset.iter_mut().enumerate().take(NS) {
            *gs = oc_r.sp[k].valid & r.sp_ready(k, z.z1) & oc_r.sp[k].op.eq(op_set);
        }
        for gs in &gcset {
            pend_n = gs.mux(pend_n - one4, pend_n);
        }
        cx.d(gc.pend, pend_n);
        // SP dispatches not yet answered, per group.
        for k in 0..NS {
            let q = cx.q(gc.spq[k]);
            let inc = oc_r.sp[k].valid & r.sp_ready(k, z.z1) & !gcset[k];
            let dec = r.spo[k].out.res_valid;
            let n = inc.mux(q + one4, q);
            let n = dec.mux(n - one4, n);
            cx.d(gc.spq[k], n);
        }
        GcDispatch { gcset }
    }

    /// After the memory step: the configuration write, the mode register,
    /// the memory front end (on the L1's requester 0 in GPU-CC mode) and
    /// the network ended; errors and counters.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn gc_end<C: Ctx>(
        &self,
        cx: &mut C,
        r: &Ring<C::B, MW, NS>,
        g: &GcRing<C::B>,
        gd: &GcDispatch<C::B>,
        so: &super::frontend::Scheds<C::B, NS>,
        oc_r: &OpcollOut<C::B>,
        conv: &Converged<C::B>,
        l1: &L1Out<C::B, 0, 8>,
        gm_size: S<C, 32>,
        z: &Zeros<C::B>,
    ) -> GcOut<C::B> {
        let gc = self.gc.as_ref().expect("gc_end without GPU-CC parts");
        let op_set = cx.lit::<7>(Op::Gcset as u64);
        let op_run = cx.lit::<7>(Op::Gcrun as u64);
        let gcset = gd.gcset;
        // The configuration write: one GCSET per cycle reaches a port
        // (a warp's instructions dispatch in order; one warp).
        let sets: SmallBuf<S<C, 1>, 2> = gcset[..NS].iter().copied().collect();
        let we = or_all(cx, &sets);
        let tags: SmallBuf<S<C, 32>, 2> = (0..NS).map(|k| oc_r.sp[k].tag).collect();
        let mods: SmallBuf<S<C, 4>, 2> = (0..NS).map(|k| oc_r.sp[k].md).collect();
        let datas: SmallBuf<S<C, 32>, 2> = (0..NS)
            .map(|k| {
                let low = first_one(cx, &oc_r.sp[k].mask);
                pick(cx, &low, &oc_r.sp[k].b)
            })
            .collect();
        let tag = pick(cx, &sets, &tags);
        let md = pick(cx, &sets, &mods);
        let data = pick(cx, &sets, &datas);
        // The mode: set by GCRUN's issue, cleared after a done cycle.
        let mut run_iss = z.z1;
        let (mut warp_n, mut pc_n) = (cx.q(gc.warp), cx.q(gc.pc));
        for o in so {
            let v = o.ctl_valid_o & o.ctl_op_o.eq(op_run);
            run_iss = run_iss | v;
            warp_n = v.mux(o.iss_warp_o, warp_n);
            pc_n = v.mux(o.ctl_pc_o, pc_n);
        }
        let (warp_q, pc_q) = (cx.q(gc.warp), cx.q(gc.pc));
        cx.d(gc.warp, warp_n);
        cx.d(gc.pc, pc_n);
        cx.d(gc.mode, run_iss | (g.mode & !g.end));
        // The end: the network done, then its buffered stores sent
        // (`flush_i`) and the memory front end idle.
        let done_h = g.net.done_o;
        let hot = Domain::Hot;
        let mode_h = cx.cross(g.mode, hot);
        let flush = mode_h & done_h;
        // The L1's requester 0 is the front end's in GPU-CC mode.
        let mresp = crate::units::gm::GmResp {
            valid: l1.lsu_resp.valid & g.mode,
            id: l1.lsu_resp.id,
            rdata: l1.lsu_resp.rdata,
        };
        let mi = MemIn {
            mem_req_valid_i: g.net.mem_req_valid_o,
            mem_req_we_i: g.net.mem_req_we_o,
            mem_req_addr_i: g.net.mem_req_addr_o,
            mem_req_wdata_i: g.net.mem_req_wdata_o,
            pf_valid_i: g.net.pf_valid_o,
            pf_line_i: g.net.pf_line_o,
            clear_i: cx.cross(g.end, hot),
            flush_i: flush,
            gm_size_i: gm_size,
            l1_req_ready_i: l1.lsu_req_ready_o & g.mode,
            l1_resp: mresp,
        };
        let mo = cx.instance_end(g.h_mem, &gc.mem, &mi);
        let ni = NetIn {
            cfg_we_i: cx.cross(we, hot),
            cfg_node_i: cx.cross(tag.slice::<6, 6>(), hot),
            cfg_sel_i: cx.cross(md.slice::<0, 3>(), hot),
            cfg_data_i: cx.cross(data, hot),
            clear_i: cx.cross(g.end, hot),
            run_i: mode_h,
            mem_req_ready_i: mo.mem_req_ready_o,
            mem_resp_valid_i: mo.mem_resp_valid_o,
            mem_resp_data_i: mo.mem_resp_data_o,
            // The lanes' results, core j on lane j % 16 of group j / 16.
            ln: std::array::from_fn(|j| r.spln[j / 16][j % 16]),
        };
        let net = cx.instance_end(g.h_net, &gc.net, &ni);
        // Progress and counters.
        let fired = or_all(cx, &net.fire_o);
        let fired = cx.cross(fired, Domain::Core);
        let still = cx.q(gc.still);
        let one15 = cx.lit::<15>(1);
        let z15 = cx.lit::<15>(0);
        // No firing while the network is not done (waiting for its
        // buffered stores at the end is not a deadlock).
        let net_done = cx.cross(g.net.done_o, Domain::Core);
        let still_n = (g.mode & !fired & !net_done).mux(still + one15, z15);
        cx.d(gc.still, still_n);
        let deadlock = still.eq(cx.lit::<15>(DEADLOCK_CYCLES - 1));
        let lane_err = g.mode & cx.cross(net.err_o, Domain::Core);
        // GCSET or GCRUN issued by a warp other than slot 0, beside another
        // warp, or in divergent code (docs/gpucc.md section 3).
        let mut gc_iss = z.z1;
        let mut not0 = z.z1;
        let mut iss_v: SmallBuf<S<C, 1>, NS> = SmallBuf::new();
        let iss_w: SmallBuf<S<C, 6>, NS> = so.iter().map(|o| o.iss_warp_o).collect();
        let iss_pc: SmallBuf<S<C, 16>, NS> = so.iter().map(|o| o.is_tag_o.slice::<16, 16>()).collect();
        let z6 = cx.lit::<6>(0);
        for o in so {
            let v = (o.is_valid_o & o.is_op_o.eq(op_set)) | (o.ctl_valid_o & o.ctl_op_o.eq(op_run));
            gc_iss = gc_iss | v;
            iss_v.push(v);
            not0 = not0 | (v & o.iss_warp_o.ne(z6));
        }
        let mut others = z.z1;
        for w in 1..MW {
            others = others | r.cta.wv_o[w];
        }
        let mut diverged = z.z1;
        for l in 0..32 {
            diverged = diverged | (conv.active[l] ^ conv.live[l]);
        }
        let launch_err = gc_iss & (not0 | others | diverged);
        let launch_info = (not0 | others).mux(cx.lit::<32>(2), cx.lit::<32>(1));
        let err = deadlock | lane_err | launch_err;
        let err_code = lane_err.mux(cx.lit::<8>(codes::ERR_GC_LANE), cx.lit::<8>(codes::ERR_GC_DEADLOCK));
        let err_code = launch_err.mux(cx.lit::<8>(codes::ERR_GC_LAUNCH), err_code);
        let one32 = cx.lit::<32>(1);
        let cyc = cx.q(gc.cnt_cycles);
        cx.d(gc.cnt_cycles, g.mode.mux(cyc + one32, cyc));
        let runs = cx.q(gc.cnt_runs);
        cx.d(gc.cnt_runs, run_iss.mux(runs + one32, runs));
        // Firings of this hot cycle.
        let mut nf = cx.lit::<6>(0);
        for f in net.fire_o {
            nf = nf + f.zext::<6>();
        }
        let fire_q = cx.q(gc.cnt_fire);
        cx.d(gc.cnt_fire, fire_q + nf.zext::<32>());
        // Monitors: this hot cycle's and the one before.
        let mon = |cx: &mut C, k: usize, now: &[S<C, 1>; 48]| -> [S<C, 2>; 48] {
            std::array::from_fn(|n| {
                let prev = cx.q(gc.prev[k][n]);
                cx.d(gc.prev[k][n], now[n]);
                let v = now[n].concat::<1, 2>(prev);
                cx.cross(v, Domain::Core)
            })
        };
        let fire = mon(cx, 0, &net.fire_o);
        let stall_in = mon(cx, 1, &net.stall_in_o);
        let stall_out = mon(cx, 2, &net.stall_out_o);
        let tok_valid = mon(cx, 3, &net.tok_valid_o);
        let tok: [S<C, 64>; 48] = std::array::from_fn(|n| {
            let prev = cx.q(gc.tok_prev[n]);
            cx.d(gc.tok_prev[n], net.tok_o[n]);
            let v = net.tok_o[n].concat::<32, 64>(prev);
            cx.cross(v, Domain::Core)
        });
        GcOut {
            mode: g.mode,
            err,
            err_code,
            cnt_cycles: cyc,
            cnt_runs: runs,
            cnt_fire: cx.cross(fire_q, Domain::Core),
            // A launch error is at the issuing instruction, the others
            // at the GCRUN running.
            warp: launch_err.mux(pick(cx, &iss_v, &iss_w), warp_q),
            pc: launch_err.mux(pick(cx, &iss_v, &iss_pc), pc_q),
            info: launch_err.mux(launch_info, z.z32),
            fire,
            stall_in,
            stall_out,
            tok_valid,
            tok,
        }
    }
}
