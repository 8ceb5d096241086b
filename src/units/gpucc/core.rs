//! `gpucc_core`: one GPU-CC core (`docs/gpucc.md` sections 3-5): an SP
//! lane with one fixed instruction, its five configuration registers,
//! three input FIFOs, the x/y counter and the firing rule with credits.
//!
//! ```text
//!  lane_valid_i[5] lane_data_i[5]          cfg_we_i cfg_sel_i cfg_data_i clear_i
//!     |  (5:1 mux per FIFO, lane = fifo_lane field)      |
//!  +--v--------+ +-----------+ +-----------+   +---------v-----------------+
//!  | u_fifo0   | | u_fifo1   | | u_fifo2   |   | cfg_op_q cfg_ctr_q        |
//!  | 16 x 32   | | 16 x 32   | | 16 x 32   |   | cfg_imm_q cfg_nx_q cfg_ny_q|
//!  +--+--------+ +--+--------+ +--+--------+   | xcnt_q ycnt_q (counter)   |
//!     | empty/count  |              |          +---------+-----------------+
//!     +-------> fire = run & on & !done & every read FIFO non-empty
//!                      & space_i > inflight_q (credits)
//!     | rdata (the cycle after the pop)       | imm, 0, x, y (xv_q yv_q)
//!  +--v-----------------------------------------v--+
//!  | operand select a/b/c (source field)          |   s1_valid_q
//!  +----------------------+-----------------------+
//!                         v
//!              u_lane (sp_lane, LAT hot cycles)      vld_q[LAT]
//!                         v
//!                 tok_valid_o tok_o  --> the output lane (parent)
//! ```
//!
//! * Clock domain: hot, every port and register (the lanes run on the hot
//!   clock; the SM top crosses the configuration writes into it).
//! * Ports in: `cfg_we_i`, `cfg_sel_i[3]`, `cfg_data_i[32]` write
//!   configuration register `sel` (0 operation word, 1 counter word, 2
//!   immediate, 3 `nx`, 4 `ny`; the layout of
//!   [`NodeCfg`](crate::golden::gpucc::NodeCfg)); `clear_i` clears the
//!   configuration and the counter (the end of a GPU-CC run); `run_i`
//!   allows firing; `lane_valid_i[1;5]`, `lane_data_i[32;5]` the lanes A-E
//!   as they arrive at this position (the nearest upstream driver's
//!   token); `space_i[9]` the least free space among the FIFOs listening on
//!   this node's output segment (the parent's backward chain; 511 = none).
//! * Ports out: `out_lane_o[3]` (0 none, 1..5 = A..E), `tok_valid_o`,
//!   `tok_o[32]` (the result driven on the output lane this cycle),
//!   `free_o[9;5]` per lane the least free space of this node's FIFOs that
//!   listen on it (511 when none does), `fire_o`, `idle_o` (nothing left
//!   to do: off, or done or uncounted, with empty FIFOs and nothing in
//!   flight), `level_o[9;3]` the FIFO counts, `err_o` (the lane raised an
//!   error for the token on `tok_o`), and why a node with work left did not
//!   fire: `stall_in_o` (an input FIFO it reads is empty), `stall_out_o`
//!   (its inputs are there but its output segment has no space). All but
//!   `fire_o` and the stalls are Moore outputs.
//! * Firing: a node fires in cycle `t` when `run_i`, its opcode is not 0,
//!   its counter (if on) has not reached `nx * ny` firings, every input
//!   FIFO an operand reads is non-empty, and `space_i` exceeds
//!   `inflight_q`, the firings whose token has not reached its listeners
//!   yet. That is the exact credit count: `space_i` comes from the FIFO
//!   counts of this cycle, which include every token pushed before it.
//! * Initial tokens (`docs/gpucc.md` section 5): writing the counter word
//!   loads `ins_q[k]` and `drop_q[k]` with FIFO k's delay (bits 21..17,
//!   26..22, 31..27). A firing that reads FIFO k while `ins_q[k]` is not 0
//!   takes +0 instead of popping (`zero_q[k]` selects 0 in the operand
//!   stage) and counts `ins_q[k]` down; FIFO k counts as holding a token
//!   while `ins_q[k]` is not 0. Once the counter is done (and `run_i`),
//!   the core drops `drop_q[k]` tokens, one per cycle: its unread initial
//!   tokens first, then words popped from the FIFO as they arrive. `idle_o`
//!   waits for every drop.
//! * Latency: fire in cycle `t` pops the FIFOs at the edge; the words are
//!   on the FIFOs' `rdata_o` in `t + 1`, which feeds the lane with the
//!   other operands (registered at the fire: x, y); the result is on
//!   `tok_o` in `t + 1 + LAT` and in the listeners' FIFOs (their `count_o`)
//!   from `t + 2 + LAT`: `LAT + 2` hot cycles from firing to a token a
//!   reader can fire on. One firing per hot cycle at most.
//! * Without its own lane (`GpuccCore<1>`, [`GpuccCore::external`],
//!   module `gpucc_core_<flavour>_l<LAT>_x`): no `u_lane`; the lane's
//!   inputs leave on `ln_valid_o` (the operand stage: 1 in `t + 1` for a
//!   firing in `t`), `ln_op_o[7]`, `ln_mod_o[4]`, `ln_a_o`, `ln_b_o`,
//!   `ln_c_o[32]`, `ln_pa_o` (0), and its result comes back on
//!   `ln_valid_i`, `ln_res_i[32]`, `ln_pred_i` (unused), `ln_err_i`,
//!   `ln_err_code_i[8]` (unused) exactly `LAT` hot cycles later, as from
//!   an SP group in lane mode. Everything else, the valid bits `vld_q`
//!   included, is the core's: same cycles, same tokens. `err_o` also
//!   rises when `ln_valid_i` differs from the core's valid bit
//!   (`ln_lost`: a lost or extra result). `tok_o` is then `ln_res_i`
//!   gated by that bit, not a Moore output: the net drives the lanes from
//!   its own `ln<j>_res_i`.
//! * Sizes: `LAT` = `sp_latency`; FIFOs of 16 words (`gpucc.fifo_depth`;
//!   the only depth built: [`super::GpuccNet::new`] checks the preset);
//!   counters 32 bits (as `nx` and `ny`).

use super::{field, free_space, lane_pick, SPACE_W};
use crate::hdl::fifo::{Fifo, FifoIn, HOT};
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig};
use crate::units::fp::{k, S};
use crate::units::sp::lane::{Flavor, SpLane, SpLaneIn};
use crate::units::sp::{SpLnIn, SpLnOut};

crate::bundle! {
    /// The operation a core without its own lane sends to its SP lane
    /// (`ln_*_o`): the fields of the SP array's [`SpLnIn`], named `ln_*`.
    pub struct CoreLnReq {
        ln_valid: 1 @ Hot,
        ln_op: 7 @ Hot,
        ln_md = "ln_mod": 4 @ Hot,
        ln_a: 32 @ Hot,
        ln_b: 32 @ Hot,
        ln_c: 32 @ Hot,
        ln_pa: 1 @ Hot,
    }
}
crate::bundle! {
    /// The SP lane's result back in a core without its own lane
    /// (`ln_*_i`), `sp_latency` hot cycles after the operation: the fields
    /// of the SP array's [`SpLnOut`], named `ln_*`.
    pub struct CoreLnRes {
        ln_valid: 1 @ Hot,
        ln_res: 32 @ Hot,
        ln_pred: 1 @ Hot,
        ln_err: 1 @ Hot,
        ln_err_code: 8 @ Hot,
    }
}

impl<B: Backend> CoreLnReq<B> {
    /// The SP array's lane input this drives (same signals).
    pub fn sp(&self) -> SpLnIn<B> {
        SpLnIn {
            valid: self.ln_valid,
            op: self.ln_op,
            md: self.ln_md,
            a: self.ln_a,
            b: self.ln_b,
            c: self.ln_c,
            pa: self.ln_pa,
        }
    }
}

impl<B: Backend> CoreLnRes<B> {
    /// From the SP array's lane output (same signals).
    pub fn from_sp(o: &SpLnOut<B>) -> Self {
        CoreLnRes {
            ln_valid: o.valid,
            ln_res: o.res,
            ln_pred: o.pred,
            ln_err: o.err,
            ln_err_code: o.err_code,
        }
    }
}

crate::ports! {
    /// Configuration, mode and the lanes at this position; with `X` = 1
    /// (no own SP lane) the lane's result `ln_*_i`.
    pub struct CoreIn[X] {
        cfg_we_i: 1 @ Hot,
        cfg_sel_i: 3 @ Hot,
        cfg_data_i: 32 @ Hot,
        clear_i: 1 @ Hot,
        run_i: 1 @ Hot,
        lane_valid_i: [1; 5] @ Hot,
        lane_data_i: [32; 5] @ Hot,
        space_i: 9 @ Hot,
        ln: [CoreLnRes; X] @ in "",
    }
}
crate::ports! {
    /// The node's token, its listening space and state; with `X` = 1 the
    /// operation for the SP lane `ln_*_o`.
    pub struct CoreOut[X] {
        out_lane_o: 3 @ Hot,
        tok_valid_o: 1 @ Hot,
        tok_o: 32 @ Hot,
        free_o: [9; 5] @ Hot,
        fire_o: 1 @ Hot,
        stall_in_o: 1 @ Hot,
        stall_out_o: 1 @ Hot,
        idle_o: 1 @ Hot,
        level_o: [9; 3] @ Hot,
        err_o: 1 @ Hot,
        ln: [CoreLnReq; X] @ out "",
    }
}

/// The five configuration registers and the counter, shared by
/// [`GpuccCore`] and [`super::lsu::GpuccLsu`].
#[derive(Debug, Clone, Copy)]
pub struct CfgRegs {
    pub op: Reg<32>,
    pub ctr: Reg<17>,
    pub imm: Reg<32>,
    pub nx: Reg<32>,
    pub ny: Reg<32>,
    pub xcnt: Reg<32>,
    pub ycnt: Reg<32>,
}

/// The decoded configuration of one node in one cycle.
pub struct Cfg<B: Backend> {
    pub word: S<B, 32>,
    pub opcode: S<B, 7>,
    pub m: S<B, 4>,
    pub src: [S<B, 3>; 3],
    pub fifo_lane: [S<B, 3>; 3],
    pub out_lane: S<B, 3>,
    pub ctr_on: S<B, 1>,
    pub imm: S<B, 32>,
    /// Configured (opcode not 0).
    pub on: S<B, 1>,
    /// The counter is on and has fired `nx * ny` times.
    pub done: S<B, 1>,
    /// x0 + xcnt, y0 + ycnt.
    pub xv: S<B, 32>,
    pub yv: S<B, 32>,
}

impl CfgRegs {
    pub fn declare(d: &mut Decl) -> CfgRegs {
        // Control state: reset, so an SM out of reset has every node off.
        CfgRegs {
            op: d.reg::<32>("cfg_op", Domain::Hot, 0),
            // Enable, x0, y0; the word's delay bits load the cores'
            // initial-token counters, not this register.
            ctr: d.reg::<17>("cfg_ctr", Domain::Hot, 0),
            imm: d.reg::<32>("cfg_imm", Domain::Hot, 0),
            nx: d.reg::<32>("cfg_nx", Domain::Hot, 0),
            ny: d.reg::<32>("cfg_ny", Domain::Hot, 0),
            xcnt: d.reg::<32>("xcnt", Domain::Hot, 0),
            ycnt: d.reg::<32>("ycnt", Domain::Hot, 0),
        }
    }

    /// Decode the registers (no state change).
    pub fn read<C: Ctx>(&self, cx: &mut C) -> Cfg<C::B> {
        let word = cx.q(self.op);
        let ctr = cx.q(self.ctr);
        let opcode: S<C::B, 7> = word.slice::<0, 7>();
        let on = cx.name("cfg_on", opcode.any());
        let ctr_on: S<C::B, 1> = ctr.slice::<0, 1>();
        let xcnt = cx.q(self.xcnt);
        let ycnt = cx.q(self.ycnt);
        let ny = cx.q(self.ny);
        let done = cx.name("done", ctr_on & ycnt.eq(ny));
        let x0: S<C::B, 8> = ctr.slice::<1, 8>();
        let y0: S<C::B, 8> = ctr.slice::<9, 8>();
        Cfg {
            word,
            opcode,
            m: word.slice::<7, 4>(),
            src: [
                field::<C::B>(word, 11),
                field::<C::B>(word, 14),
                field::<C::B>(word, 17),
            ],
            fifo_lane: [
                field::<C::B>(word, 20),
                field::<C::B>(word, 23),
                field::<C::B>(word, 26),
            ],
            out_lane: field::<C::B>(word, 29),
            ctr_on,
            imm: cx.q(self.imm),
            on,
            done,
            xv: x0.sext::<32>() + xcnt,
            yv: y0.sext::<32>() + ycnt,
        }
    }

    /// Next state: configuration writes, clear, and the counter's step on
    /// a firing (x wraps at `nx`, then y counts).
    pub fn update<C: Ctx>(
        &self,
        cx: &mut C,
        we: S<C::B, 1>,
        sel: S<C::B, 3>,
        data: S<C::B, 32>,
        clear: S<C::B, 1>,
        fire: S<C::B, 1>,
    ) {
        let z32 = cx.lit::<32>(0);
        let one = cx.lit::<32>(1);
        let w = |cx: &mut C, k: u64| {
            let kk = cx.lit::<3>(k);
            we & sel.eq(kk)
        };
        let (w0, w1, w2, w3, w4) = (w(cx, 0), w(cx, 1), w(cx, 2), w(cx, 3), w(cx, 4));
        let op = cx.q(self.op);
        cx.d(self.op, clear.mux(z32, w0.mux(data, op)));
        let ctr = cx.q(self.ctr);
        let z17 = cx.lit::<17>(0);
        cx.d(self.ctr, clear.mux(z17, w1.mux(data.slice::<0, 17>(), ctr)));
        let imm = cx.q(self.imm);
        cx.d(self.imm, clear.mux(z32, w2.mux(data, imm)));
        let nx = cx.q(self.nx);
        cx.d(self.nx, clear.mux(z32, w3.mux(data, nx)));
        let ny = cx.q(self.ny);
        cx.d(self.ny, clear.mux(z32, w4.mux(data, ny)));
        let xcnt = cx.q(self.xcnt);
        let ycnt = cx.q(self.ycnt);
        let x1 = xcnt + one;
        let wrap = x1.eq(nx);
        let x_n = wrap.mux(z32, x1);
        let y_n = wrap.mux(ycnt + one, ycnt);
        cx.d(self.xcnt, clear.mux(z32, fire.mux(x_n, xcnt)));
        cx.d(self.ycnt, clear.mux(z32, fire.mux(y_n, ycnt)));
    }
}

/// One GPU-CC core: with its own SP lane (`X` = 0, `u_lane`), or without
/// (`X` = 1, [`GpuccCore::external`]: ports `ln_*_o` to an SP lane and
/// `ln_*_i` from it, module name ending `_x`), cycle for cycle the same.
#[derive(Debug, Clone)]
pub struct GpuccCore<const X: usize = 0> {
    decl: Decl,
    lat: usize,
    cfg: CfgRegs,
    fifo: Fifo<32, 4, 5, HOT>,
    lane: SpLane,
    s1_valid: Reg<1>,
    xv: Reg<32>,
    yv: Reg<32>,
    vld: Vec<Reg<1>>,
    inflight: Reg<8>,
    /// Per input FIFO: initial tokens not read yet, tokens to drop once
    /// done, and "the operand stage reads an initial token".
    ins: [Reg<5>; 3],
    drop: [Reg<5>; 3],
    zero: [Reg<1>; 3],
}

impl GpuccCore {
    /// A core with its own lane of the preset's flavour and `sp_latency`
    /// (1..=200).
    pub fn new(flavor: Flavor, lat: usize) -> Self {
        GpuccCore::build(flavor, lat)
    }
}

impl GpuccCore<1> {
    /// A core that drives an SP lane outside it (the SM's SP array in lane
    /// mode) through `ln_*_o` and takes its result on `ln_*_i`, which must
    /// come `lat` hot cycles after the operation (the `sp_lane` timing);
    /// `err_o` also flags a result valid (`ln_valid_i`) that is not the
    /// core's own count of its operations in the lane.
    pub fn external(flavor: Flavor, lat: usize) -> Self {
        GpuccCore::build(flavor, lat)
    }
}

impl<const X: usize> GpuccCore<X> {
    fn build(flavor: Flavor, lat: usize) -> Self {
        assert!(
            (1..=200).contains(&lat),
            "sp_latency {lat} out of 1..=200 (SmConfig::validate)"
        );
        let mut d = Decl::new();
        let cfg = CfgRegs::declare(&mut d);
        let s1_valid = d.reg::<1>("s1_valid", Domain::Hot, 0);
        // x and y of the firing, held for the operand stage: datapath.
        let xv = d.reg_noreset::<32>("xv", Domain::Hot);
        let yv = d.reg_noreset::<32>("yv", Domain::Hot);
        let vld = (0..lat)
            .map(|s| d.reg::<1>(&format!("vld{s}"), Domain::Hot, 0))
            .collect();
        // Firings not yet in the listeners' FIFOs: at most LAT + 2 (one
        // firing per cycle), 8 bits for LAT up to 200.
        let inflight = d.reg::<8>("inflight", Domain::Hot, 0);
        // Loaded with the counter word's delays (control: reset).
        let ins = std::array::from_fn(|k| d.reg::<5>(&format!("ins{k}"), Domain::Hot, 0));
        let drop = std::array::from_fn(|k| d.reg::<5>(&format!("drop{k}"), Domain::Hot, 0));
        let zero = std::array::from_fn(|k| d.reg::<1>(&format!("zero{k}"), Domain::Hot, 0));
        GpuccCore {
            decl: d,
            lat,
            cfg,
            fifo: Fifo::new(),
            lane: SpLane::new(flavor, lat),
            s1_valid,
            xv,
            yv,
            vld,
            inflight,
            ins,
            drop,
            zero,
        }
    }
}

/// FIFO depth of a core input FIFO.
const DEPTH: u64 = 16;

impl<const X: usize> Block for GpuccCore<X> {
    type In<B: Backend> = CoreIn<B, X>;
    type Out<B: Backend> = CoreOut<B, X>;

    fn module_name(&self) -> String {
        format!(
            "gpucc_core_{}{}",
            self.lane.module_name().trim_start_matches("sp_lane_"),
            if X > 0 { "_x" } else { "" }
        )
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &CoreIn<C::B, X>) -> CoreOut<C::B, X> {
        let c = self.cfg.read(cx);
        let names = ["u_fifo0", "u_fifo1", "u_fifo2"];
        let mut hs = Vec::new();
        let mut fo = Vec::new();
        for n in names {
            let (h, o) = cx.instance_begin(n, &self.fifo);
            hs.push(h);
            fo.push(o);
        }
        // FIFO k is read by some operand when a source field is k + 1.
        let used: [S<C::B, 1>; 3] = std::array::from_fn(|f| {
            let code = k::<C::B, 3>(f as u64 + 1);
            c.src[0].eq(code) | c.src[1].eq(code) | c.src[2].eq(code)
        });
        let want = c.on & !c.done & i.run_i;
        // Initial tokens: FIFO k has a token to read when it holds one or
        // an initial token is left.
        let z5 = k::<C::B, 5>(0);
        let one5 = k::<C::B, 5>(1);
        let ins: [S<C::B, 5>; 3] = std::array::from_fn(|k| cx.q(self.ins[k]));
        let drp: [S<C::B, 5>; 3] = std::array::from_fn(|k| cx.q(self.drop[k]));
        let mut ready = want;
        for k in 0..3 {
            let has = !fo[k].empty_o | !ins[k].eq(z5);
            ready = ready & !(used[k] & !has);
        }
        let inflight = cx.q(self.inflight);
        let space_ok = inflight.zext::<SPACE_W>().ult(i.space_i);
        let fire = cx.name("fire", ready & space_ok);
        // Writing the counter word loads the delays; clear empties them.
        let load = i.cfg_we_i & i.cfg_sel_i.eq(k::<C::B, 3>(1));
        // (While configuring, a counter with `ny` still 0 looks done.)
        let done = c.on & c.done & i.run_i;
        let mut drops_left = k::<C::B, 1>(0);
        for k in 0..3 {
            let (v, d) = lane_pick::<C::B>(c.fifo_lane[k], &i.lane_valid_i, &i.lane_data_i);
            let has_ins = !ins[k].eq(z5);
            let take = fire & used[k];
            // Once done: drop `delay` tokens, the unread initial ones first.
            let dropping = done & !drp[k].eq(z5);
            let drop_zero = dropping & has_ins;
            let drop_real = dropping & !has_ins & !fo[k].empty_o;
            let fi = FifoIn {
                push_i: v,
                wdata_i: d,
                pop_i: (take & !has_ins) | drop_real,
            };
            cx.instance_end(hs[k], &self.fifo, &fi);
            let dk = match k {
                0 => i.cfg_data_i.slice::<17, 5>(),
                1 => i.cfg_data_i.slice::<22, 5>(),
                _ => i.cfg_data_i.slice::<27, 5>(),
            };
            let ins_step = ((take & has_ins) | drop_zero).mux(ins[k] - one5, ins[k]);
            cx.d(self.ins[k], i.clear_i.mux(z5, load.mux(dk, ins_step)));
            let drop_step = (drop_zero | drop_real).mux(drp[k] - one5, drp[k]);
            cx.d(self.drop[k], i.clear_i.mux(z5, load.mux(dk, drop_step)));
            cx.d(self.zero[k], take & has_ins);
            drops_left = drops_left | !drp[k].eq(z5);
        }
        self.cfg
            .update(cx, i.cfg_we_i, i.cfg_sel_i, i.cfg_data_i, i.clear_i, fire);
        // Operand stage (the cycle after the fire).
        let s1 = cx.q(self.s1_valid);
        cx.d(self.s1_valid, fire);
        cx.d_en(self.xv, fire, |_| c.xv);
        cx.d_en(self.yv, fire, |_| c.yv);
        let xv = cx.q(self.xv);
        let yv = cx.q(self.yv);
        let z = k::<C::B, 32>(0);
        // A FIFO's word, or 0 for an initial token.
        let fv: [S<C::B, 32>; 3] = std::array::from_fn(|k| {
            let zq = cx.q(self.zero[k]);
            zq.mux(z, fo[k].rdata_o)
        });
        let operand = |src: S<C::B, 3>| -> S<C::B, 32> {
            let is = |v: u64| src.eq(k::<C::B, 3>(v));
            let mut r = z;
            r = is(1).mux(fv[0], r);
            r = is(2).mux(fv[1], r);
            r = is(3).mux(fv[2], r);
            r = is(4).mux(c.imm, r);
            r = is(6).mux(xv, r);
            is(7).mux(yv, r)
        };
        let (a, b, cc) = (operand(c.src[0]), operand(c.src[1]), operand(c.src[2]));
        let a = cx.name("opa", a);
        let b = cx.name("opb", b);
        let cc = cx.name("opc", cc);
        let li = SpLaneIn {
            op_i: c.opcode,
            mod_i: c.m,
            a_i: a,
            b_i: b,
            c_i: cc,
            pa_i: k::<C::B, 1>(0),
        };
        // Own lane: its result; external: the operation goes out (valid in
        // the operand stage) and the result comes in LAT cycles later.
        let lane_res = match i.ln.first() {
            None => {
                let lo = cx.instance("u_lane", &self.lane, &li);
                (lo.res_o, lo.err_o)
            }
            Some(r) => (r.ln_res, r.ln_err),
        };
        // Valid bits beside the lane's pipeline.
        let mut v = s1;
        for s in 0..self.lat {
            let q = cx.q(self.vld[s]);
            cx.d(self.vld[s], v);
            v = q;
        }
        let tok_valid = v;
        let one8 = k::<C::B, 8>(1);
        let z8 = k::<C::B, 8>(0);
        let inc = fire.mux(one8, z8);
        let dec = tok_valid.mux(one8, z8);
        cx.d(self.inflight, inflight + inc - dec);
        let empty = fo[0].empty_o & fo[1].empty_o & fo[2].empty_o;
        let idle = !c.on | ((!c.ctr_on | c.done) & empty & inflight.eq(z8) & !drops_left);
        let counts: [S<C::B, 9>; 3] = std::array::from_fn(|k| fo[k].count_o.zext::<9>());
        CoreOut {
            out_lane_o: c.out_lane,
            tok_valid_o: tok_valid,
            // Zero between tokens (the lane's registers hold no reset).
            tok_o: tok_valid.mux(lane_res.0, z),
            free_o: free_space::<C::B>(&c.fifo_lane, &counts.map(|n| Some(k::<C::B, 9>(DEPTH) - n))),
            fire_o: fire,
            stall_in_o: want & !ready,
            stall_out_o: ready & !space_ok,
            idle_o: cx.name("idle", idle),
            level_o: counts,
            // External lane: a result valid that is not the count beside
            // it is an error (wrong latency, lane mode off).
            err_o: match i.ln.first() {
                None => tok_valid & lane_res.1,
                Some(r) => {
                    let lost = cx.name("ln_lost", r.ln_valid ^ tok_valid);
                    (tok_valid & lane_res.1) | lost
                }
            },
            // Operands zero outside the operand stage: a FIFO word never
            // written is unknown in a four-state simulator.
            ln: std::array::from_fn(|_| CoreLnReq {
                ln_valid: s1,
                ln_op: li.op_i,
                ln_md: li.mod_i,
                ln_a: s1.mux(li.a_i, z),
                ln_b: s1.mux(li.b_i, z),
                ln_c: s1.mux(li.c_i, z),
                ln_pa: li.pa_i,
            }),
        }
    }
}
