//! SIMT control: per warp the pc, the active mask, the live (not exited)
//! lanes and the branch synchronization stack (seed 001: "branch
//! synchronization stack"; semantics of `docs/isa.md` and the golden model's
//! `golden::model::warp`).
//!
//! ```text
//!  start_* (cta) ------------+   per warp w (registers)       stack RAM
//!  adv<s>_* (sched, plain) --+-> pc_q[w] act_q[w] live_q[w]   2^12 x 49
//!  ctl_* (sched, BRA SSY ----+   depth_q[w] run_q[w]          {warp, idx}
//!       SYNC EXIT)           |         |                       kind|mask|pc
//!                            v         v                          ^  |
//!                      pop engine (pe_*: one entry per cycle) <---+--+
//!  f_warp_i -> f_pc_o f_active_o      s_warp_i -> s_pc_o s_active_o
//!  redir_* exit_* err_* (registered pulses)   run_o[w] busy_o[w] ctl_ready_o
//! ```
//!
//! * Clock domain: core (`clk_core_i`) for every port, register and the RAM.
//! * `start_valid_i`, `start_warp_i[6]`, `start_mask_i[1;32]` (cta): warp
//!   `start_warp_i` begins at pc 0 with active = live = the mask, an empty
//!   stack; it runs when the mask is not zero. A start wins over every other
//!   input for that warp at that edge.
//! * `adv_valid_i[s]`, `adv_warp_i[s]` (one per scheduler): the scheduler
//!   issued a non-control instruction (also `BAR` and `NOP`) of that warp:
//!   pc + 1 at the edge. Ignored for a warp that does not run or that the pop
//!   engine holds, and when the control port takes the same warp.
//! * `ctl_valid_i`, `ctl_warp_i[6]`, `ctl_op_i[3]` (1 `BRA`, 2 `SSY`,
//!   3 `SYNC`, 4 `EXIT`, other codes: a plain advance), `ctl_target_i[16]`,
//!   `ctl_taken_i[1;32]` (lanes whose guard is true; the block ANDs them
//!   with the active mask): taken at the edge where `ctl_valid_i &&
//!   ctl_ready_o` and the warp runs. `ctl_ready_o` (Moore) is low while the
//!   pop engine works.
//!   - `BRA t`: taken = none: pc + 1; all active lanes: pc = t, redirect;
//!     some: push (DIV, not-taken lanes, pc + 1), active = taken, pc = t,
//!     redirect.
//!   - `SSY t`: push (SYNC, active, t), pc + 1.
//!   - `SYNC`: pop into the pop engine (empty stack: error).
//!   - `EXIT`: the taken lanes leave live and active; when active becomes
//!     empty, pop into the pop engine (empty stack: the warp exits).
//! * Pop engine: in the cycle after a pop the RAM's entry is there; its mask
//!   AND the warp's live lanes (lanes that exited since the push drop out
//!   here, the same result as the golden model clearing them in every entry
//!   at `EXIT`) not empty: active = that, pc = entry pc, redirect; empty and
//!   the stack empty: the warp exits (`exit_valid_o`); otherwise pop the
//!   next entry. So `SYNC` takes 1 + k cycles when k entries are popped.
//!   `busy_o[w]` is high for the warp the engine holds.
//! * Read ports (combinational, Mealy in the warp index only): `f_warp_i`
//!   -> `f_pc_o`, `f_active_o` (fetch), `s_warp_i` -> `s_pc_o`,
//!   `s_active_o`, `s_live_o` (lanes not exited; the barrier needs them
//!   with a `BAR`), `s_depth_o` (the scheduler's chosen warp).
//! * Pulses one cycle after the edge that caused them (registered):
//!   `redir_valid_o`/`redir_warp_o`/`redir_pc_o` (fetch flushes the warp's
//!   buffer and refetches), `exit_valid_o`/`exit_warp_o` (cta, barrier,
//!   scoreboard), `err_o`/`err_code_o` = 5 with `err_warp_o`, `err_pc_o`
//!   (the instruction's pc) and `err_sync_o` (1: SYNC on an empty stack,
//!   0: overflow). A push onto a stack holding `simt_stack_depth` entries
//!   overflows; the erring instruction changes nothing.
//! * Sizes: `MW` = `max_warps` warps (registers per warp, `run_o`/`busy_o`
//!   widths), `NS` = `warp_schedulers` advance ports, `depth` =
//!   `simt_stack_depth` (<= 64) entries per warp in a RAM addressed
//!   {warp[6], index[6]}, 49-bit words {kind, mask[32], pc[16]}.

use crate::hdl::logic::index;
use crate::hdl::small::SmallBuf;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Mem, Reg, Sig, S};

/// Control op codes on `ctl_op_i`.
pub const OP_BRA: u64 = 1;
pub const OP_SSY: u64 = 2;
pub const OP_SYNC: u64 = 3;
pub const OP_EXIT: u64 = 4;
/// Error code of a stack overflow or SYNC on an empty stack (docs/sm.md 7).
pub const ERR_STACK: u64 = crate::codes::ERR_STACK;

crate::ports! {
    /// Warp start, issue reports and read addresses.
    pub struct SimtIn[NS] {
        start_valid_i: 1 @ Core,
        start_warp_i: 6 @ Core,
        start_mask_i: [1; 32] @ Core,
        adv_valid_i: [1; NS] @ Core,
        adv_warp_i: [6; NS] @ Core,
        ctl_valid_i: 1 @ Core,
        ctl_warp_i: 6 @ Core,
        ctl_op_i: 3 @ Core,
        ctl_target_i: 16 @ Core,
        ctl_taken_i: [1; 32] @ Core,
        f_warp_i: 6 @ Core,
        s_warp_i: 6 @ Core,
    }
}
crate::ports! {
    /// Read ports, per-warp state, pulses and errors.
    pub struct SimtOut[MW] {
        f_pc_o: 16 @ Core,
        f_active_o: [1; 32] @ Core,
        s_pc_o: 16 @ Core,
        s_active_o: [1; 32] @ Core,
        s_live_o: [1; 32] @ Core,
        s_depth_o: 7 @ Core,
        run_o: [1; MW] @ Core,
        act_o: [32; MW] @ Core,
        busy_o: [1; MW] @ Core,
        ctl_ready_o: 1 @ Core,
        redir_valid_o: 1 @ Core,
        redir_warp_o: 6 @ Core,
        redir_pc_o: 16 @ Core,
        exit_valid_o: 1 @ Core,
        exit_warp_o: 6 @ Core,
        err_o: 1 @ Core,
        err_code_o: 8 @ Core,
        err_warp_o: 6 @ Core,
        err_pc_o: 16 @ Core,
        err_sync_o: 1 @ Core,
    }
}

/// Per-warp state registers.
#[derive(Debug, Clone)]
struct WarpRegs {
    pc: Reg<16>,
    act: Reg<32>,
    live: Reg<32>,
    depth: Reg<7>,
    run: Reg<1>,
}

/// The SIMT control block of `MW` warps and `NS` advance ports.
#[derive(Debug, Clone)]
pub struct Simt<const MW: usize, const NS: usize> {
    decl: Decl,
    depth: u64,
    w: Vec<WarpRegs>,
    stack: Mem<49, 12>,
    pe_busy: Reg<1>,
    pe_warp: Reg<6>,
    redir_v: Reg<1>,
    redir_warp: Reg<6>,
    redir_pc: Reg<16>,
    exit_v: Reg<1>,
    exit_warp: Reg<6>,
    err_v: Reg<1>,
    err_warp: Reg<6>,
    err_pc: Reg<16>,
    err_sync: Reg<1>,
}

impl<const MW: usize, const NS: usize> Simt<MW, NS> {
    /// A block with `depth` stack entries per warp (2..=64).
    pub fn new(depth: u32) -> Result<Self, String> {
        const { assert!(MW >= 1 && MW <= 64 && NS >= 1 && NS <= 2) };
        if !(2..=64).contains(&depth) {
            return Err(format!("simt_stack_depth = {depth}: the simt block supports 2..=64"));
        }
        let mut d = Decl::new();
        let c = Domain::Core;
        let w = (0..MW)
            .map(|k| WarpRegs {
                pc: d.reg(&format!("pc{k}"), c, 0),
                act: d.reg(&format!("act{k}"), c, 0),
                live: d.reg(&format!("live{k}"), c, 0),
                depth: d.reg(&format!("depth{k}"), c, 0),
                run: d.reg(&format!("run{k}"), c, 0),
            })
            .collect();
        Ok(Simt {
            depth: depth as u64,
            w,
            stack: d.mem("stack", c, 1, 1),
            pe_busy: d.reg("pe_busy", c, 0),
            pe_warp: d.reg("pe_warp", c, 0),
            redir_v: d.reg("redir_v", c, 0),
            redir_warp: d.reg("redir_warp", c, 0),
            redir_pc: d.reg("redir_pc", c, 0),
            exit_v: d.reg("exit_v", c, 0),
            exit_warp: d.reg("exit_warp", c, 0),
            err_v: d.reg("err_v", c, 0),
            err_warp: d.reg("err_warp", c, 0),
            err_pc: d.reg("err_pc", c, 0),
            err_sync: d.reg("err_sync", c, 0),
            decl: d,
        })
    }

    /// Stack entries per warp.
    pub fn depth(&self) -> u32 {
        self.depth as u32
    }
}

/// Pack 32 one-bit lanes into a mask (lane k in bit k).
pub(crate) fn pack32<C: Ctx>(cx: &mut C, bits: &[S<C, 1>; 32]) -> S<C, 32> {
    let mut acc = cx.lit::<32>(0);
    for (k, b) in bits.iter().enumerate() {
        let z: S<C, 32> = b.zext();
        let sh = cx.lit::<5>(k as u64);
        acc = acc | z.shl(sh);
    }
    acc
}

/// Unpack a mask into 32 one-bit lanes.
pub(crate) fn unpack32<C: Ctx>(cx: &mut C, m: S<C, 32>) -> [S<C, 1>; 32] {
    std::array::from_fn(|k| {
        let sh = cx.lit::<5>(k as u64);
        m.shr(sh).slice::<0, 1>()
    })
}

impl<const MW: usize, const NS: usize> Block for Simt<MW, NS> {
    type In<B: Backend> = SimtIn<B, NS>;
    type Out<B: Backend> = SimtOut<B, MW>;

    fn module_name(&self) -> String {
        format!("simt_w{MW}_s{NS}_d{}", self.depth)
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    /// Warp indices inside `MW` (1 in 32 out of range), frequent starts with
    /// full, partial and empty masks, control ops 3 in 4 of the cycles (op
    /// codes 1-4 mostly, sometimes others), taken masks all, none or random.
    fn constrain(&self, r: u64, i: &mut SimtIn<crate::hdl::Concrete, NS>) {
        use crate::hdl::Bits;
        let mw = MW as u64;
        let warp = |x: u64| {
            if x % 32 == 31 {
                63 - x % (64 - mw).max(1)
            } else {
                x % mw
            }
        };
        i.start_valid_i = Bits::new((r & 7 == 0) as u64);
        i.start_warp_i = Bits::new(warp(r >> 3));
        let sm = match (r >> 9) & 3 {
            0 => u32::MAX as u64,
            1 => 0,
            _ => i
                .start_mask_i
                .iter()
                .enumerate()
                .fold(0, |a, (k, b)| a | b.to_u64() << k),
        };
        for k in 0..32 {
            i.start_mask_i[k] = Bits::new(sm >> k & 1);
        }
        for s in 0..NS {
            i.adv_warp_i[s] = Bits::new(warp(r >> (11 + 6 * s)));
        }
        i.ctl_valid_i = Bits::new(((r >> 23) & 3 != 0) as u64);
        i.ctl_warp_i = Bits::new(warp(r >> 25));
        let op = (r >> 31) & 15;
        i.ctl_op_i = Bits::new(if op < 12 { 1 + op % 4 } else { op % 8 });
        i.ctl_target_i = Bits::new(i.ctl_target_i.to_u64() & 0x3ff);
        let t = match (r >> 35) & 3 {
            0 => u32::MAX as u64,
            1 => 0,
            _ => i
                .ctl_taken_i
                .iter()
                .enumerate()
                .fold(0, |a, (k, b)| a | b.to_u64() << k),
        };
        for k in 0..32 {
            i.ctl_taken_i[k] = Bits::new(t >> k & 1);
        }
        i.f_warp_i = Bits::new(warp(r >> 37));
        i.s_warp_i = Bits::new(warp(r >> 43));
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &SimtIn<C::B, NS>) -> SimtOut<C::B, MW> {
        let pc: SmallBuf<S<C, 16>, 64> = self.w.iter().map(|w| cx.q(w.pc)).collect();
        let act: SmallBuf<S<C, 32>, 64> = self.w.iter().map(|w| cx.q(w.act)).collect();
        let live: SmallBuf<S<C, 32>, 64> = self.w.iter().map(|w| cx.q(w.live)).collect();
        let depth: SmallBuf<S<C, 7>, 64> = self.w.iter().map(|w| cx.q(w.depth)).collect();
        let run: SmallBuf<S<C, 1>, 64> = self.w.iter().map(|w| cx.q(w.run)).collect();
        let pe_busy = cx.q(self.pe_busy);
        let pe_warp = cx.q(self.pe_warp);
        let one16 = cx.lit::<16>(1);
        let one7 = cx.lit::<7>(1);
        let zero1 = cx.lit::<1>(0);
        let one1 = cx.lit::<1>(1);
        let zero32 = cx.lit::<32>(0);
        let zero7 = cx.lit::<7>(0);
        let dmax = cx.lit::<7>(self.depth);

        // ---- control op on the selected warp
        let cw = i.ctl_warp_i;
        let c_pc = index(cx, &pc, cw);
        let c_act = index(cx, &act, cw);
        let c_live = index(cx, &live, cw);
        let c_depth = index(cx, &depth, cw);
        let c_run = index(cx, &run, cw);
        let ctl_ready = !pe_busy;
        let ctl = cx.name("ctl_take", i.ctl_valid_i & ctl_ready & c_run);
        let op = i.ctl_op_i;
        let is_bra = ctl & op.eq(cx.lit::<3>(OP_BRA));
        let is_ssy = ctl & op.eq(cx.lit::<3>(OP_SSY));
        let is_sync = ctl & op.eq(cx.lit::<3>(OP_SYNC));
        let is_exit = ctl & op.eq(cx.lit::<3>(OP_EXIT));
        let taken_in = pack32(cx, &i.ctl_taken_i);
        let taken = cx.name("ctl_lanes", taken_in & c_act);
        let none = !taken.any();
        let all = taken.eq(c_act);
        let full = cx.name("stack_full", c_depth.uge(dmax));
        let empty = c_depth.eq(zero7);
        let c_next = c_pc + one16;
        let bra_div = is_bra & !none & !all;
        let push = bra_div | is_ssy;
        let overflow = push & full;
        let sync_empty = is_sync & empty;
        let err = cx.name("stack_err", overflow | sync_empty);
        let push_ok = push & !full;
        let bra_jump = is_bra & !none & (all | !full);
        let exit_act = c_act & !taken;
        let exit_live = c_live & !taken;
        let exit_some = is_exit & !none;
        let exit_empty = exit_some & !exit_act.any();
        let pop_req = (is_sync & !empty) | (exit_empty & !empty);
        let exit_done = exit_empty & empty;
        // New state of the control warp (applied only when ctl & !err).
        let target = i.ctl_target_i;
        let n_pc = bra_jump.mux(target, c_next);
        let n_act = bra_div.mux(taken, c_act);
        let n_act = exit_some.mux(exit_act, n_act);
        let n_live = exit_some.mux(exit_live, c_live);
        let n_depth = push_ok.mux(c_depth + one7, c_depth);
        let n_depth = pop_req.mux(c_depth - one7, n_depth);
        let n_run = !exit_done;
        // Stack push: {kind, mask, pc}; kind 1 = SYNC, 0 = DIV.
        let push_mask = is_ssy.mux(c_act, c_act & !taken);
        let push_pc = is_ssy.mux(target, c_next);
        let kind: S<C, 1> = is_ssy;
        let e_hi: S<C, 33> = kind.concat(push_mask);
        let entry: S<C, 49> = e_hi.concat(push_pc);
        let c_idx: S<C, 6> = c_depth.slice::<0, 6>();
        let waddr: S<C, 12> = cw.concat(c_idx);
        cx.mem_write(self.stack, 0, push_ok, waddr, entry);

        // ---- pop engine: the entry read at the previous edge
        let p_live = index(cx, &live, pe_warp);
        let p_depth = index(cx, &depth, pe_warp);
        let m_idx_ctl: S<C, 6> = (c_depth - one7).slice::<0, 6>();
        let ctl_raddr: S<C, 12> = cw.concat(m_idx_ctl);
        let m_idx_pe: S<C, 6> = (p_depth - one7).slice::<0, 6>();
        let pe_raddr: S<C, 12> = pe_warp.concat(m_idx_pe);
        // While the engine works it reads the next entry down every cycle
        // (used only when the current one turns out empty), so the read
        // enable never depends on the data it returns.
        let rd_en = (ctl & pop_req & !err) | pe_busy;
        let raddr = pe_busy.mux(pe_raddr, ctl_raddr);
        let rd = cx.mem_read(self.stack, 0, rd_en, raddr);
        let e_mask: S<C, 32> = rd.slice::<16, 32>();
        let e_pc: S<C, 16> = rd.slice::<0, 16>();
        let m = cx.name("pe_mask", e_mask & p_live);
        let has = m.any();
        let resume = cx.name("pe_resume", pe_busy & has);
        let p_empty = p_depth.eq(zero7);
        let pe_done = pe_busy & !has & p_empty;
        let pe_more = pe_busy & !has & !p_empty;

        // ---- per-warp next state
        let ctl_ok = ctl & !err;
        let mut run_o = [zero1; MW];
        let mut act_o = [zero32; MW];
        let mut busy_o = [zero1; MW];
        for (k, w) in self.w.iter().enumerate() {
            let kl = cx.lit::<6>(k as u64);
            let st = i.start_valid_i & i.start_warp_i.eq(kl);
            let ch = ctl_ok & cw.eq(kl);
            let ph = pe_busy & pe_warp.eq(kl);
            let mut adv = zero1;
            for s in 0..NS {
                adv = adv | (i.adv_valid_i[s] & i.adv_warp_i[s].eq(kl));
            }
            let adv = adv & run[k] & !ph & !(ctl & cw.eq(kl));
            let smask = pack32(cx, &i.start_mask_i);
            let npc = adv.mux(pc[k] + one16, pc[k]);
            let npc = ch.mux(n_pc, npc);
            let npc = (ph & resume).mux(e_pc, npc);
            let zpc = cx.lit::<16>(0);
            let npc = st.mux(zpc, npc);
            cx.d(w.pc, npc);
            let na = ch.mux(n_act, act[k]);
            let na = (ph & resume).mux(m, na);
            let na = (ph & pe_done).mux(zero32, na);
            let na = st.mux(smask, na);
            cx.d(w.act, na);
            let nl = ch.mux(n_live, live[k]);
            let nl = st.mux(smask, nl);
            cx.d(w.live, nl);
            let nd = ch.mux(n_depth, depth[k]);
            let nd = (ph & pe_more).mux(p_depth - one7, nd);
            let nd = st.mux(zero7, nd);
            cx.d(w.depth, nd);
            let nr = ch.mux(n_run, run[k]);
            let nr = (ph & pe_done).mux(zero1, nr);
            let nr = st.mux(smask.any(), nr);
            cx.d(w.run, nr);
            run_o[k] = run[k];
            act_o[k] = act[k];
            busy_o[k] = ph;
        }
        // A start of the engine's warp cancels the engine.
        let pe_warp_n = (ctl_ok & pop_req).mux(cw, pe_warp);
        let st_pe = i.start_valid_i & i.start_warp_i.eq(pe_warp_n);
        let pe_next = (pe_more | (ctl_ok & pop_req)) & !st_pe;
        let pe_next = cx.name("pe_next", pe_next);
        cx.d(self.pe_busy, pe_next);
        cx.d(self.pe_warp, pe_warp_n);

        // ---- pulses
        let redir = (ctl_ok & bra_jump) | resume;
        cx.d(self.redir_v, redir);
        cx.d(self.redir_warp, resume.mux(pe_warp, cw));
        cx.d(self.redir_pc, resume.mux(e_pc, target));
        let exit = (ctl_ok & exit_done) | pe_done;
        cx.d(self.exit_v, exit);
        cx.d(self.exit_warp, pe_done.mux(pe_warp, cw));
        cx.d(self.err_v, err);
        let ew = cx.q(self.err_warp);
        let ep = cx.q(self.err_pc);
        let es = cx.q(self.err_sync);
        cx.d(self.err_warp, err.mux(cw, ew));
        cx.d(self.err_pc, err.mux(c_pc, ep));
        cx.d(self.err_sync, err.mux(sync_empty, es));
        let _ = one1;

        // ---- read ports
        let fw = i.f_warp_i;
        let f_pc = index(cx, &pc, fw);
        let f_act = index(cx, &act, fw);
        let sw = i.s_warp_i;
        let s_pc = index(cx, &pc, sw);
        let s_act = index(cx, &act, sw);
        let s_live = index(cx, &live, sw);
        let s_depth = index(cx, &depth, sw);
        let ev = cx.q(self.err_v);
        let code = cx.lit::<8>(ERR_STACK);
        let z8 = cx.lit::<8>(0);
        SimtOut {
            f_pc_o: f_pc,
            f_active_o: unpack32(cx, f_act),
            s_pc_o: s_pc,
            s_active_o: unpack32(cx, s_act),
            s_live_o: unpack32(cx, s_live),
            s_depth_o: s_depth,
            run_o,
            act_o,
            busy_o,
            ctl_ready_o: ctl_ready,
            redir_valid_o: cx.q(self.redir_v),
            redir_warp_o: cx.q(self.redir_warp),
            redir_pc_o: cx.q(self.redir_pc),
            exit_valid_o: cx.q(self.exit_v),
            exit_warp_o: cx.q(self.exit_warp),
            err_o: ev,
            err_code_o: ev.mux(code, z8),
            err_warp_o: ew,
            err_pc_o: ep,
            err_sync_o: es,
        }
    }
}
