//! `gpucc_lsu`: one GPU-CC load-store unit (`docs/gpucc.md` sections 3-5):
//! a 256-word address FIFO, a 16-word data FIFO, the configuration
//! registers of a node, and one memory request port.
//!
//! ```text
//!  lane_valid_i[5] lane_data_i[5]               cfg_* clear_i run_i
//!     | 5:1 per FIFO                                  |
//!  +--v---------------+ +------------------+    +-----v------------+
//!  | u_addr 256 x 32  | | u_data 16 x 32   |<-+ | cfg regs, counter|
//!  +--+---------------+ +--+---------------+  | +------------------+
//!     |   STG: data word --^  LDG: loaded word --+ (mem_resp_*_i)
//!     | fire = run & on & !done & addr non-empty & (STG: data non-empty)
//!     |        & stage free or moving on
//!     |        & (LDG: inflight_q < 16 - data FIFO count)
//!     v  (the cycle after the pop)
//!  addr = imm + (index << m[1:0])    s1_valid_q
//!     v
//!  req_valid_q req_we_q req_addr_q req_wdata_q --> mem_req_*_o  (held until mem_req_ready_i)
//!  LDG: data FIFO head, popped when space_i > tok_valid_q --> tok_valid_q,
//!       u_data.rdata_o --> tok_*_o (the output lane)
//! ```
//!
//! * Clock domain: hot, every port and register.
//! * Ports: the configuration, mode and lane ports of
//!   [`gpucc_core`](super::core); `mem_req_valid_o`, `mem_req_we_o`,
//!   `mem_req_addr_o[32]`, `mem_req_wdata_o[32]` with `mem_req_ready_i`
//!   (a request is taken in a cycle where valid and ready are both high);
//!   `mem_resp_valid_i`, `mem_resp_data_i[32]`: the data of this LSU's
//!   loads, in request order (stores get no response); the prefetch hint
//!   `pf_valid_o`, `pf_line_o[25]`: a load LSU's index pushed into the
//!   address FIFO whose 128-byte line (`(imm + (index << shift)) >> 7`)
//!   differs from the previous hint's (none after `clear_i`), one cycle
//!   after the push, for one cycle (`gpucc_mem` reads the line ahead).
//! * Operation (opcode in the configuration): `LDG` takes an index from
//!   FIFO 0, loads the word into the data FIFO and drives it on its output
//!   lane from there; `STG` takes an index from FIFO 0 and a word from
//!   FIFO 1 (the data FIFO, fed by a lane) and writes it. The byte address
//!   is `imm + (index << shift)`, `shift` = modifier bits 1..0.
//! * Stalls: `stall_in_o` (work left, an input FIFO empty), `stall_out_o`
//!   (inputs there, but the data FIFO has no word free beyond the loads in
//!   flight, or the request path is busy).
//! * Credits: a load fires only while `inflight_q` (loads requested and
//!   not yet answered) is below the data FIFO's free words, so every
//!   response has a place; the data FIFO's head leaves for the lane when
//!   the listeners' space (`space_i`) exceeds the token on the lane now
//!   (`tok_valid_q`). So a load LSU has its 16 words of slack besides its
//!   listeners' FIFOs (docs/gpucc.md section 9: what the 5x5 needs).
//! * Latency: fire in `t`, address in `t + 1`, request on `mem_req_*_o`
//!   from `t + 2`; a response in cycle `r` is in the data FIFO in `r + 1`,
//!   popped then if the listeners have space, and on `tok_o` in `r + 2`. A
//!   two-stage pipeline (address stage `s1_valid_q`, request register
//!   `req_valid_q`): the stage moves on when the request register is empty
//!   or taken in that cycle, and a firing enters the stage when it is empty
//!   or moves on, so an LSU makes one request per hot cycle while the port
//!   takes one per hot cycle (`gpucc_mem` does for buffered lines).
//! * Sizes: the preset's 256-word address and 16-word data FIFOs (the only
//!   depths built; [`super::GpuccNet::new`] checks them).

use super::core::CfgRegs;
use super::{free_space, lane_pick};
use crate::golden::isa::Op;
use crate::hdl::fifo::{Fifo, FifoIn, HOT};
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig};
use crate::units::fp::{k, S};

crate::ports! {
    /// Configuration, mode, lanes and the memory port.
    pub struct LsuIn {
        cfg_we_i: 1 @ Hot,
        cfg_sel_i: 3 @ Hot,
        cfg_data_i: 32 @ Hot,
        clear_i: 1 @ Hot,
        run_i: 1 @ Hot,
        lane_valid_i: [1; 5] @ Hot,
        lane_data_i: [32; 5] @ Hot,
        space_i: 9 @ Hot,
        mem_req_ready_i: 1 @ Hot,
        mem_resp_valid_i: 1 @ Hot,
        mem_resp_data_i: 32 @ Hot,
    }
}
crate::ports! {
    /// The load's token, listening space, state and the memory request.
    pub struct LsuOut {
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
        mem_req_valid_o: 1 @ Hot,
        mem_req_we_o: 1 @ Hot,
        mem_req_addr_o: 32 @ Hot,
        mem_req_wdata_o: 32 @ Hot,
        pf_valid_o: 1 @ Hot,
        pf_line_o: 25 @ Hot,
    }
}

/// One GPU-CC LSU.
#[derive(Debug, Clone)]
pub struct GpuccLsu {
    decl: Decl,
    cfg: CfgRegs,
    addr_fifo: Fifo<32, 8, 9, HOT>,
    data_fifo: Fifo<32, 4, 5, HOT>,
    s1_valid: Reg<1>,
    req_valid: Reg<1>,
    req_we: Reg<1>,
    req_addr: Reg<32>,
    req_wdata: Reg<32>,
    tok_valid: Reg<1>,
    inflight: Reg<9>,
    pf_valid: Reg<1>,
    pf_line: Reg<25>,
    pf_last_v: Reg<1>,
}

impl Default for GpuccLsu {
    fn default() -> Self {
        Self::new()
    }
}

impl GpuccLsu {
    pub fn new() -> Self {
        let mut d = Decl::new();
        let cfg = CfgRegs::declare(&mut d);
        let s1_valid = d.reg::<1>("s1_valid", Domain::Hot, 0);
        let req_valid = d.reg::<1>("req_valid", Domain::Hot, 0);
        let req_we = d.reg_noreset::<1>("req_we", Domain::Hot);
        let req_addr = d.reg_noreset::<32>("req_addr", Domain::Hot);
        let req_wdata = d.reg_noreset::<32>("req_wdata", Domain::Hot);
        let tok_valid = d.reg::<1>("tok_valid", Domain::Hot, 0);
        // Loads in flight (requested, not yet in the data FIFO): at most
        // the data FIFO's free words, so at most 16.
        let inflight = d.reg::<9>("inflight", Domain::Hot, 0);
        // Prefetch hint: the line of the last index pushed (`pf_line_q`,
        // valid since the clear when `pf_last_v_q`), raised in `pf_valid_q`.
        let pf_valid = d.reg::<1>("pf_valid", Domain::Hot, 0);
        let pf_line = d.reg::<25>("pf_line", Domain::Hot, 0);
        let pf_last_v = d.reg::<1>("pf_last_v", Domain::Hot, 0);
        GpuccLsu {
            decl: d,
            cfg,
            addr_fifo: Fifo::new(),
            data_fifo: Fifo::new(),
            s1_valid,
            req_valid,
            req_we,
            req_addr,
            req_wdata,
            tok_valid,
            inflight,
            pf_valid,
            pf_line,
            pf_last_v,
        }
    }
}

impl Block for GpuccLsu {
    type In<B: Backend> = LsuIn<B>;
    type Out<B: Backend> = LsuOut<B>;

    fn module_name(&self) -> String {
        "gpucc_lsu_a256_d16".into()
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &LsuIn<C::B>) -> LsuOut<C::B> {
        let c = self.cfg.read(cx);
        let (ha, fa) = cx.instance_begin("u_addr", &self.addr_fifo);
        let (hd, fd) = cx.instance_begin("u_data", &self.data_fifo);
        let is_st = c.opcode.eq(k::<C::B, 7>(Op::Stg as u64));
        let is_ld = c.opcode.eq(k::<C::B, 7>(Op::Ldg as u64));
        let s1 = cx.q(self.s1_valid);
        let req_v = cx.q(self.req_valid);
        let inflight = cx.q(self.inflight);
        // The request register takes the stage's address at this edge when
        // it is empty or its request is taken now; the stage takes a new
        // firing when it is empty or moves on now. A pipeline: one request
        // per hot cycle while the port takes one per hot cycle.
        let taken = req_v & i.mem_req_ready_i;
        let adv = !req_v | taken;
        let path_free = !s1 | adv;
        // A load may have as many loads out as its data FIFO has free
        // words: the loaded words wait there for the listeners.
        let dfree = k::<C::B, 9>(16) - fd.count_o.zext::<9>();
        let space_ok = !is_ld | inflight.ult(dfree);
        let inputs = !fa.empty_o & (!is_st | !fd.empty_o);
        let want = i.run_i & c.on & !c.done & (is_ld | is_st);
        let fire = cx.name("fire", want & inputs & path_free & space_ok);
        // The address FIFO pops at every firing, the data FIFO at a store's.
        let fifo_in = |lane: S<C::B, 3>, pop: S<C::B, 1>| {
            let (v, d) = lane_pick::<C::B>(lane, &i.lane_valid_i, &i.lane_data_i);
            FifoIn {
                push_i: v,
                wdata_i: d,
                pop_i: pop,
            }
        };
        let addr_in = fifo_in(c.fifo_lane[0], fire);
        cx.instance_end(ha, &self.addr_fifo, &addr_in);
        // A load's responses go into the data FIFO (a store's data words
        // come from its lane); a load pops the head when the listeners
        // have space beyond the token on the lane now, and the popped word
        // (`rdata_o`, registered) drives the lane in the next cycle.
        let tok_valid = cx.q(self.tok_valid);
        let drive = is_ld & !fd.empty_o & tok_valid.zext::<9>().ult(i.space_i);
        let st_in = fifo_in(c.fifo_lane[1], fire & is_st);
        let d_in = FifoIn {
            push_i: is_ld.mux(i.mem_resp_valid_i, st_in.push_i),
            wdata_i: is_ld.mux(i.mem_resp_data_i, st_in.wdata_i),
            pop_i: is_ld.mux(drive, st_in.pop_i),
        };
        cx.instance_end(hd, &self.data_fifo, &d_in);
        self.cfg
            .update(cx, i.cfg_we_i, i.cfg_sel_i, i.cfg_data_i, i.clear_i, fire);
        cx.d(self.s1_valid, fire | (s1 & !adv));
        // Address stage: the popped index (and data) are on rdata_o now.
        let shift: S<C::B, 2> = c.m.slice::<0, 2>();
        let addr = cx.name("addr", c.imm + fa.rdata_o.shl(shift));
        let load = s1 & adv;
        cx.d(self.req_valid, load | (req_v & !taken));
        cx.d_en(self.req_we, load, |_| is_st);
        cx.d_en(self.req_addr, load, |_| addr);
        cx.d_en(self.req_wdata, load, |_| fd.rdata_o);
        // Prefetch hint: a load's index pushed into the address FIFO, its
        // line differing from the last hint's (none since the clear).
        let pf_addr: S<C::B, 32> = c.imm + addr_in.wdata_i.shl(shift);
        let pf_line: S<C::B, 25> = pf_addr.slice::<7, 25>();
        let last_v = cx.q(self.pf_last_v);
        let new_line = !last_v | !pf_line.eq(cx.q(self.pf_line));
        let hint = addr_in.push_i & is_ld & !i.clear_i & new_line;
        cx.d(self.pf_valid, hint);
        cx.d_en(self.pf_line, hint, |_| pf_line);
        cx.d(self.pf_last_v, !i.clear_i & (last_v | hint));
        cx.d(self.tok_valid, drive);
        let one = k::<C::B, 9>(1);
        let z = k::<C::B, 9>(0);
        let inc = (fire & is_ld).mux(one, z);
        let dec = i.mem_resp_valid_i.mux(one, z);
        cx.d(self.inflight, inflight + inc - dec);
        let empty = fa.empty_o & fd.empty_o;
        let idle = !c.on | ((!c.ctr_on | c.done) & empty & !s1 & !req_v & inflight.eq(z) & !tok_valid);
        let counts = [fa.count_o, fd.count_o.zext::<9>(), z];
        LsuOut {
            out_lane_o: c.out_lane,
            tok_valid_o: tok_valid,
            // Zero between tokens and requests (datapath registers without
            // reset: no X on the ports in a 4-state simulator).
            tok_o: tok_valid.mux(fd.rdata_o, k::<C::B, 32>(0)),
            free_o: free_space::<C::B>(&c.fifo_lane, &[Some(k::<C::B, 9>(256) - fa.count_o), Some(dfree), None]),
            fire_o: fire,
            stall_in_o: want & !inputs,
            stall_out_o: want & inputs & !(path_free & space_ok),
            idle_o: cx.name("idle", idle),
            level_o: counts,
            err_o: k::<C::B, 1>(0),
            mem_req_valid_o: req_v,
            mem_req_we_o: req_v & cx.q(self.req_we),
            mem_req_addr_o: req_v.mux(cx.q(self.req_addr), k::<C::B, 32>(0)),
            mem_req_wdata_o: req_v.mux(cx.q(self.req_wdata), k::<C::B, 32>(0)),
            pf_valid_o: cx.q(self.pf_valid),
            pf_line_o: cx.q(self.pf_line),
        }
    }
}
