//! The warp-streaming engine shared by the SP groups and the FP64 unit: a
//! core->hot dispatch buffer, the pass sequencer that streams a 32-thread
//! warp instruction through `L` lanes, a control pipeline beside the lanes'
//! `LAT` stages, a result collector, and the hot->core result registers.
//!
//! ```text
//!  core: valid ready op mod mask a b c pa tag
//!        | cross (sampled at the hot edge that is a core edge, ph_q = 0)
//!  [buffer: op mod mask[32] a[32] b[32] c[32] pa[32] tag reps]
//!        | pass p (0 .. 32/L-1), each repeated `reps` hot cycles:
//!        | lane l gets thread p*L + l
//!  lane 0 .. lane L-1  (LAT stages)     [ctl pipeline: valid pass last tag mask]
//!        |                                   |
//!  [collector: res[32] pred[32]] <-----------+
//!        | published at a hot edge with ph_q = 1 (mid core cycle)
//!  [out: valid tag mask res[32] pred[32] err code]  -> cross -> core ports
//! ```
//!
//! Timing (hot cycles; `t0` = the core edge where `valid && ready`):
//! pass `k`, repetition `r` is issued in hot cycle `t0 + 1 + k*reps + r`;
//! only the last repetition's lane outputs are collected. The last pass
//! leaves the lanes in hot cycle `tc = t0 + passes*reps + LAT`. The result
//! registers change at the first hot edge `>= tc` with `ph_q = 1` (edge `tc`
//! when `LAT` is odd, `tc + 1` when even), so `res_valid_o` is seen by
//! exactly one core edge: the core edge `t0 + passes*reps + LAT + 1`
//! (LAT odd) or `+ 2` (LAT even). `ready_o` (Moore, updated at `ph_q = 1`
//! edges) is high when the sequencer issues its last pass cycle no later
//! than the next core edge, so warps stream back to back: one every
//! `passes*reps/2` core cycles. Results leave in issue order.

use crate::hdl::{Ctx, Decl, Domain, Reg, Sig, S};
use crate::units::fp::k;

/// Threads in a warp (the bus width of every port).
pub const WARP: usize = 32;

/// The inputs of one lane operation: opcode, modifiers, `DW`-bit operands
/// and the predicate operand.
#[derive(Clone, Copy)]
pub struct LaneOps<B: crate::hdl::Backend, const DW: usize> {
    pub op: B::S<7>,
    pub md: B::S<4>,
    pub a: B::S<DW>,
    pub b: B::S<DW>,
    pub c: B::S<DW>,
    pub pa: B::S<1>,
}

/// A lane datapath the engine drives (`DW`-bit operands and results) in
/// context `C`.
pub trait LaneUnit<C: Ctx, const DW: usize> {
    /// Instantiate lane `idx` with its inputs; returns (result, predicate,
    /// error code) after the lane's latency.
    fn lane(&self, cx: &mut C, idx: usize, x: LaneOps<C::B, DW>) -> (S<C, DW>, S<C, 1>, S<C, 8>);
    /// Pipeline depth of a lane (hot cycles).
    fn latency(&self) -> usize;
}

/// Dispatch port values (core domain).
/// The lane arrays are borrowed from the block's input ports (no copy per
/// hot cycle).
pub struct EngIn<'a, C: Ctx, const DW: usize> {
    pub valid: S<C, 1>,
    pub op: S<C, 7>,
    pub md: S<C, 4>,
    pub mask: &'a [S<C, 1>; WARP],
    pub a: &'a [S<C, DW>; WARP],
    pub b: &'a [S<C, DW>; WARP],
    pub c: &'a [S<C, DW>; WARP],
    pub pa: &'a [S<C, 1>; WARP],
    pub tag: S<C, 32>,
    /// Repetitions of each pass for this instruction (1..=4), from the
    /// dispatch op/mod (32-bit IMUL on GT200: 4).
    pub reps: S<C, 3>,
}

/// Result port values (core domain).
pub struct EngOut<C: Ctx, const DW: usize> {
    pub ready: S<C, 1>,
    pub res_valid: S<C, 1>,
    pub res_tag: S<C, 32>,
    pub res_mask: [S<C, 1>; WARP],
    pub res_data: [S<C, DW>; WARP],
    pub res_pred: [S<C, 1>; WARP],
    pub res_err: S<C, 1>,
    pub res_err_code: S<C, 8>,
    /// Each lane's outputs (result, predicate, error code), hot domain.
    pub lanes: Vec<(S<C, DW>, S<C, 1>, S<C, 8>)>,
}

/// The engine's registers (all hot domain).
#[derive(Debug, Clone)]
pub struct Engine<const DW: usize> {
    lanes: usize,
    ph: Reg<1>,
    ready: Reg<1>,
    busy: Reg<8>,
    pass: Reg<6>,
    rep: Reg<3>,
    b_op: Reg<7>,
    b_md: Reg<4>,
    b_reps: Reg<3>,
    b_tag: Reg<32>,
    b_mask: Vec<Reg<1>>,
    b_a: Vec<Reg<DW>>,
    b_b: Vec<Reg<DW>>,
    b_c: Vec<Reg<DW>>,
    b_pa: Vec<Reg<1>>,
    c_v: Vec<Reg<1>>,
    c_pass: Vec<Reg<6>>,
    c_last: Vec<Reg<1>>,
    c_tag: Vec<Reg<32>>,
    c_mask: Vec<Reg<32>>,
    col_res: Vec<Reg<DW>>,
    col_pred: Vec<Reg<1>>,
    col_err: Reg<8>,
    col_tag: Reg<32>,
    col_mask: Reg<32>,
    pend: Reg<1>,
    o_valid: Reg<1>,
    o_tag: Reg<32>,
    o_mask: Reg<32>,
    o_res: Vec<Reg<DW>>,
    o_pred: Vec<Reg<1>>,
    o_err: Reg<8>,
}

impl<const DW: usize> Engine<DW> {
    /// Declare the registers of an engine with `lanes` lanes (dividing 32)
    /// whose lanes have `lat` stages.
    pub fn new(d: &mut Decl, lanes: usize, lat: usize) -> Self {
        assert!(lanes >= 1 && WARP.is_multiple_of(lanes) && lat >= 1);
        let h = Domain::Hot;
        let v = |d: &mut Decl, n: &str, c: usize| -> Vec<Reg<1>> {
            (0..c).map(|i| d.reg(&format!("{n}{i}"), h, 0)).collect()
        };
        let w = |d: &mut Decl, n: &str, c: usize| -> Vec<Reg<DW>> {
            (0..c).map(|i| d.reg(&format!("{n}{i}"), h, 0)).collect()
        };
        Engine {
            lanes,
            ph: d.reg("ph", h, 0),
            ready: d.reg("ready", h, 1),
            busy: d.reg("busy", h, 0),
            pass: d.reg("pass", h, 0),
            rep: d.reg("rep", h, 0),
            b_op: d.reg("buf_op", h, 0),
            b_md: d.reg("buf_mod", h, 0),
            b_reps: d.reg("buf_reps", h, 1),
            b_tag: d.reg("buf_tag", h, 0),
            b_mask: v(d, "buf_mask", WARP),
            b_a: w(d, "buf_a", WARP),
            b_b: w(d, "buf_b", WARP),
            b_c: w(d, "buf_c", WARP),
            b_pa: v(d, "buf_pa", WARP),
            c_v: v(d, "ctl_valid_s", lat),
            c_pass: (0..lat).map(|i| d.reg(&format!("ctl_pass_s{i}"), h, 0)).collect(),
            c_last: v(d, "ctl_last_s", lat),
            c_tag: (0..lat).map(|i| d.reg(&format!("ctl_tag_s{i}"), h, 0)).collect(),
            c_mask: (0..lat).map(|i| d.reg(&format!("ctl_mask_s{i}"), h, 0)).collect(),
            col_res: w(d, "col_res", WARP),
            col_pred: v(d, "col_pred", WARP),
            col_err: d.reg("col_err", h, 0),
            col_tag: d.reg("col_tag", h, 0),
            col_mask: d.reg("col_mask", h, 0),
            pend: d.reg("pend", h, 0),
            o_valid: d.reg("out_valid", h, 0),
            o_tag: d.reg("out_tag", h, 0),
            o_mask: d.reg("out_mask", h, 0),
            o_res: w(d, "out_res", WARP),
            o_pred: v(d, "out_pred", WARP),
            o_err: d.reg("out_err", h, 0),
        }
    }

    /// Passes per warp instruction.
    pub fn passes(&self) -> usize {
        WARP / self.lanes
    }

    /// The engine's logic; `unit` instantiates the lanes.
    pub fn eval<C: Ctx, U: LaneUnit<C, DW>>(&self, cx: &mut C, unit: &U, i: &EngIn<'_, C, DW>) -> EngOut<C, DW> {
        let hot = Domain::Hot;
        let l = self.lanes;
        let np = self.passes();
        let ph = cx.q(self.ph);
        cx.d(self.ph, !ph);
        let ready = cx.q(self.ready);
        let busy = cx.q(self.busy);
        let pass = cx.q(self.pass);
        let rep = cx.q(self.rep);
        let reps = cx.q(self.b_reps);

        // Core -> hot: a dispatch is taken at the hot edge that is a core
        // edge (ph_q = 0) when valid && ready.
        let valid = cx.cross(i.valid, hot);
        let acc = cx.name("accept", valid & ready & !ph);
        // The dispatch buffer loads on an accepted dispatch.
        fn cap<C: Ctx, const W: usize>(cx: &mut C, acc: S<C, 1>, r: Reg<W>, v: S<C, W>) {
            cx.d_en(r, acc, |cx| cx.cross(v, Domain::Hot));
        }
        cap(cx, acc, self.b_op, i.op);
        cap(cx, acc, self.b_md, i.md);
        cap(cx, acc, self.b_tag, i.tag);
        cap(cx, acc, self.b_reps, i.reps);
        for t in 0..WARP {
            cap(cx, acc, self.b_mask[t], i.mask[t]);
            cap(cx, acc, self.b_a[t], i.a[t]);
            cap(cx, acc, self.b_b[t], i.b[t]);
            cap(cx, acc, self.b_c[t], i.c[t]);
            cap(cx, acc, self.b_pa[t], i.pa[t]);
        }

        // Pass sequencer.
        let issuing = busy.ne(k::<C::B, 8>(0));
        let last_rep = rep.eq(reps - k::<C::B, 3>(1));
        let in_reps = cx.cross(i.reps, hot);
        // passes * reps issue cycles (reps is 1, 2 or 4).
        let total = in_reps.zext::<8>().mul::<8, 8>(k::<C::B, 8>(np as u64));
        let busy_next = issuing.mux(busy - k::<C::B, 8>(1), busy);
        cx.d(self.busy, acc.mux(total, busy_next));
        let rep_next = (issuing & !last_rep).mux(rep + k::<C::B, 3>(1), k::<C::B, 3>(0));
        cx.d(self.rep, acc.mux(k::<C::B, 3>(0), rep_next));
        let pass_next = (issuing & last_rep).mux(pass + k::<C::B, 6>(1), pass);
        cx.d(self.pass, acc.mux(k::<C::B, 6>(0), pass_next));
        // ready for the next core edge: at most the cycle before it and the
        // cycle ending at it are left to issue.
        cx.d(self.ready, ph.mux(busy.ult(k::<C::B, 8>(3)), ready));

        // Lanes: lane j gets thread pass*L + j.
        let op = cx.q(self.b_op);
        let md = cx.q(self.b_md);
        let mut lane_out = Vec::with_capacity(l);
        // Simulation only: with the pass known, the pass mux is a lookup
        // (pass values past the last one select pass 0, as the chain does).
        let known_pass = cx.known(pass).map(|p| if (p as usize) < np { p as usize } else { 0 });
        for j in 0..l {
            let pick = |cx: &mut C, regs: &[Reg<DW>]| -> S<C, DW> {
                if let Some(p) = known_pass {
                    return cx.q(regs[p * l + j]);
                }
                let mut v = cx.q(regs[j]);
                for p in 1..np {
                    let x = cx.q(regs[p * l + j]);
                    v = pass.eq(k::<C::B, 6>(p as u64)).mux(x, v);
                }
                v
            };
            let a = pick(cx, &self.b_a);
            let b = pick(cx, &self.b_b);
            let c = pick(cx, &self.b_c);
            let mut pa = cx.q(self.b_pa[known_pass.unwrap_or(0) * l + j]);
            for p in (1..np).filter(|_| known_pass.is_none()) {
                let x = cx.q(self.b_pa[p * l + j]);
                pa = pass.eq(k::<C::B, 6>(p as u64)).mux(x, pa);
            }
            lane_out.push(unit.lane(cx, j, LaneOps { op, md, a, b, c, pa }));
        }

        // Control pipeline beside the lanes.
        let mut mask_w = k::<C::B, 32>(0);
        for t in 0..WARP {
            let m = cx.q(self.b_mask[t]);
            mask_w = mask_w | m.zext::<32>().shl(k::<C::B, 8>(t as u64));
        }
        let mut v = issuing & last_rep;
        let mut ps = pass;
        let mut last = pass.eq(k::<C::B, 6>(np as u64 - 1));
        let mut tag = cx.q(self.b_tag);
        let mut msk = mask_w;
        for s in 0..unit.latency() {
            cx.d(self.c_v[s], v);
            cx.d(self.c_pass[s], ps);
            cx.d(self.c_last[s], last);
            cx.d(self.c_tag[s], tag);
            cx.d(self.c_mask[s], msk);
            v = cx.q(self.c_v[s]);
            ps = cx.q(self.c_pass[s]);
            last = cx.q(self.c_last[s]);
            tag = cx.q(self.c_tag[s]);
            msk = cx.q(self.c_mask[s]);
        }
        let v = cx.name("col_write", v);

        // Collector: thread t is written by lane t % L in pass t / L.
        let mut col_d = Vec::with_capacity(WARP);
        let mut colp_d = Vec::with_capacity(WARP);
        let mut err_any = k::<C::B, 8>(0);
        for o in &lane_out {
            err_any = err_any | o.2;
        }
        for t in 0..WARP {
            let (res, pred, _) = lane_out[t % l];
            let on = v & ps.eq(k::<C::B, 6>((t / l) as u64));
            let active = |_: &mut C| msk.slice::<0, 32>().shr(k::<C::B, 8>(t as u64)).slice::<0, 1>();
            let rq = cx.q(self.col_res[t]);
            let pq = cx.q(self.col_pred[t]);
            let rd = cx.d_en(self.col_res[t], on, |cx| active(cx).mux(res, k::<C::B, DW>(0)));
            let pd = cx.d_en(self.col_pred[t], on, |cx| active(cx) & pred);
            col_d.push((rd, rq));
            colp_d.push((pd, pq));
        }
        let fin = v & last;
        let err_q = cx.q(self.col_err);
        let err_d = fin.mux(err_any, err_q);
        cx.d(self.col_err, err_d);
        let ctq = cx.q(self.col_tag);
        cx.d(self.col_tag, fin.mux(tag, ctq));
        let cmq = cx.q(self.col_mask);
        cx.d(self.col_mask, fin.mux(msk, cmq));

        // Hot -> core: publish at the first ph_q = 1 edge at or after the
        // last pass is collected (the collector's next value when that is
        // this edge, else its current value).
        let pend = cx.q(self.pend);
        cx.d(self.pend, ph.mux(k::<C::B, 1>(0), fin | pend));
        let publish = cx.name("publish", ph & (fin | pend));
        let upd = |cx: &mut C, r: Reg<1>, now: S<C, 1>| {
            let q = cx.q(r);
            cx.d(r, ph.mux(now, q));
        };
        upd(cx, self.o_valid, publish);
        let pick_tag = fin.mux(tag, ctq);
        let pick_mask = fin.mux(msk, cmq);
        let pick_err = fin.mux(err_any, err_q);
        cx.d_en(self.o_tag, publish, |_| pick_tag);
        cx.d_en(self.o_mask, publish, |_| pick_mask);
        cx.d_en(self.o_err, publish, |_| pick_err);
        for t in 0..WARP {
            cx.d_en(self.o_res[t], publish, |_| fin.mux(col_d[t].0, col_d[t].1));
            cx.d_en(self.o_pred[t], publish, |_| fin.mux(colp_d[t].0, colp_d[t].1));
        }

        let core = Domain::Core;
        let o_mask = cx.q(self.o_mask);
        let o_mask = cx.cross(o_mask, core);
        let o_err = cx.q(self.o_err);
        let o_err = cx.cross(o_err, core);
        let o_valid = cx.q(self.o_valid);
        let o_tag = cx.q(self.o_tag);
        EngOut {
            ready: cx.cross(ready, core),
            res_valid: cx.cross(o_valid, core),
            res_tag: cx.cross(o_tag, core),
            res_mask: std::array::from_fn(|t| o_mask.shr(k::<C::B, 8>(t as u64)).slice::<0, 1>()),
            res_data: std::array::from_fn(|t| {
                let q = cx.q(self.o_res[t]);
                cx.cross(q, core)
            }),
            res_pred: std::array::from_fn(|t| {
                let q = cx.q(self.o_pred[t]);
                cx.cross(q, core)
            }),
            res_err: o_err.any(),
            res_err_code: o_err,
            lanes: lane_out,
        }
    }
}
