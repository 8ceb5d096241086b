//! Instruction fetch with the instruction cache (seed 003: "instruction
//! cache", "multithreaded instruction buffer"): each of its `FP` fetch
//! ports picks one warp per core cycle, looks its fetch pc up in a
//! set-associative cache and pushes the instruction word into the warp's
//! instruction buffer (`ibuffer`); a miss fetches the whole line from the
//! instruction memory port `im_*`. `FP` = `warp_schedulers`: port p
//! serves the warps w with w mod FP = p, the warps of scheduler p, so a
//! two-scheduler SM (fermi) fetches two instructions per core cycle, as
//! it can issue two (docs/calibration.md: with one port, fermi's FFMA
//! throughput stopped at 14.5 of 32 thread ops per hot cycle, fetch-bound).
//!
//! ```text
//!  per warp w: fpc_q[w] (next pc to fetch), wm_q[w] (waits on the miss),
//!              rep_q[w] (pc error reported)
//!  per port p (registers rr, l1v, l1w, l1pc; named with a suffix p when
//!  FP = 2), warps w mod FP = p only:
//!   stage 0 (cycle k): eligible[w] = run & room & !wm & fpc < plen
//!                      & not in stage 1 & no st/redir of w now; no pick
//!                      in a fill cycle.  Round robin from rr_q + 1.
//!                      tag RAMs (one per way) and data RAMs (one per way
//!                      and word of the line) read at the set of fpc
//!                      through read port p
//!   stage 1 (cycle k+1): l1v_q l1w_q l1pc_q + RAM data
//!        hit  -> push_* to the ibuffer, fpc := pc + 1
//!        miss -> wm[w]; if the miss unit is idle it requests the line
//!   miss unit (shared; the lowest port that misses in a cycle starts it,
//!              a miss on the other port waits like any miss under a miss):
//!              IDLE -> REQ (im_req_valid_o, line address) -> WAIT ->
//!              fill at im_resp_valid_i (whole line, victim way of the set,
//!              per-set round-robin pointer) -> IDLE, all wm cleared
//! ```
//!
//! * Clock domain: core, every port, register and RAM.
//! * Inputs: `st_valid_i`, `st_warp_i[6]` (cta's warp start: fpc := 0, the
//!   warp's lookup in stage 1 is dropped); `redir_valid_i`, `redir_warp_i`,
//!   `redir_pc_i[16]` (simt: fpc := redir pc, lookup dropped; a start wins
//!   over a redirect of the same warp); `run_i[w]` (simt `run_o`), `busy_i[w]`
//!   (simt `busy_o`), `room_i[w]` and `hv_i[w]` (ibuffer `room_o`, `hv_o`);
//!   `plen_i[16]` (program length in instructions, constant during a run);
//!   `im_req_ready_i`, `im_resp_valid_i`, `im_resp_data_i[64; LW]` (one
//!   whole line per response, word k = instruction `line * LW + k`);
//!   `hold_i` (GPU-CC mode, registered in the SM top: a miss waiting to
//!   request its line keeps it until `hold_i` falls, so the instruction
//!   memory sees no request in the mode; 0 on presets without GPU-CC).
//! * Outputs: `push_valid_o[p]`, `push_warp_o[p]`, `push_pc_o[p]`,
//!   `push_word_o[p]` (ibuffer push port p; at most one per port and core
//!   cycle, only where `room_i` is high and not for a warp started or
//!   redirected in that cycle);
//!   `im_req_valid_o` (the request state and not `hold_i`),
//!   `im_req_addr_o[16]` (line address = pc / LW);
//!   `err_o`, `err_code_o` (10), `err_warp_o`, `err_pc_o`; `cnt_hit_o[32]`
//!   (words pushed), `cnt_miss_o[32]` (lines requested); `miss_o[w]` (Moore:
//!   the warp waits for the line being fetched).
//! * Latency: a hit picked in cycle k is pushed in cycle k+1 (visible in the
//!   ibuffer in k+2). A warp is not picked in two consecutive cycles (its
//!   room would not yet show the push), so one warp fetches at most every 2
//!   core cycles; with two or more of its warps running a port pushes
//!   every cycle. A miss: request in the cycle after the lookup, the line arrives
//!   `imem_latency` cycles after the request is taken, fill at that edge,
//!   the warp is eligible again in the next cycle and hits.
//! * One outstanding miss (documented simplification): a lookup that misses
//!   while the miss unit is busy marks its warp waiting (`miss_o`); every
//!   waiting warp retries after the fill. Hits of other warps continue under
//!   the miss. No pick in the fill cycle (a lookup then would read the tag
//!   RAM being written). Replacement: per set a round-robin pointer (FIFO
//!   order; after reset the ways fill 0, 1, 2, ... so free ways go first).
//! * Pc error (code 10), only when it is certain the warp needs the
//!   instruction: running, not held by simt's pop engine (`busy_i`), its
//!   instruction buffer empty (`hv_i` low), its fetch pc >= `plen_i`, and
//!   no start or redirect of it in that cycle (simt pulses a redirect one
//!   cycle after a taken branch or reconvergence; EXIT as the last
//!   instruction clears `run_o` at the issuing edge). Fetch never reads
//!   beyond the program (prefetching up to `plen` past an EXIT is normal).
//!   The lowest such warp is reported, registered (one cycle later), once
//!   until the warp is started or redirected again.
//! * Sizes: `MW` = `max_warps` (per-warp state), `LW` =
//!   `icache_line_bytes / 8` instructions per line, `SB` = log2 of the sets
//!   (`icache_bytes / icache_line_bytes / icache_ways`), `ways` =
//!   `icache_ways` (1..=8), `FP` = `warp_schedulers` (1..=2) fetch ports.
//!   RAMs: `ways` tag RAMs of 2^SB x 16 bits ({valid, tag}) and `ways * LW`
//!   data RAMs of 2^SB x 64 bits, `FP` read + 1 write port each (all word
//!   RAMs of the victim way are written at a fill). The module name carries
//!   `_p2` for two ports.

use crate::hdl::logic::index;
use crate::hdl::small::SmallBuf;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Mem, Reg, Sig, S};

/// Error code of a pc outside the program (docs/sm.md 7).
pub const ERR_PC: u64 = crate::codes::ERR_PC;

crate::ports! {
    /// Warp starts, redirects, warp state, instruction memory responses.
    pub struct IfIn[MW, LW] {
        st_valid_i: 1 @ Core,
        st_warp_i: 6 @ Core,
        redir_valid_i: 1 @ Core,
        redir_warp_i: 6 @ Core,
        redir_pc_i: 16 @ Core,
        run_i: [1; MW] @ Core,
        busy_i: [1; MW] @ Core,
        room_i: [1; MW] @ Core,
        hv_i: [1; MW] @ Core,
        plen_i: 16 @ Core,
        im_req_ready_i: 1 @ Core,
        im_resp_valid_i: 1 @ Core,
        im_resp_data_i: [64; LW] @ Core,
        hold_i: 1 @ Core,
    }
}
crate::ports! {
    /// Pushes to the instruction buffer (one per fetch port), memory
    /// requests, errors, counters.
    pub struct IfOut[MW, FP] {
        push_valid_o: [1; FP] @ Core,
        push_warp_o: [6; FP] @ Core,
        push_pc_o: [16; FP] @ Core,
        push_word_o: [64; FP] @ Core,
        im_req_valid_o: 1 @ Core,
        im_req_addr_o: 16 @ Core,
        err_o: 1 @ Core,
        err_code_o: 8 @ Core,
        err_warp_o: 6 @ Core,
        err_pc_o: 16 @ Core,
        cnt_hit_o: 32 @ Core,
        cnt_miss_o: 32 @ Core,
        miss_o: [1; MW] @ Core,
    }
}

/// Miss unit states.
const MS_IDLE: u64 = 0;
const MS_REQ: u64 = 1;
const MS_WAIT: u64 = 2;

/// Name of a per-port register or signal: the plain name with one port
/// (so a one-port unit keeps the names it always had), `<name><p>` with two.
/// Static strings: `eval` runs every cycle and must not allocate.
fn pname<const FP: usize>(names: [&'static str; 3], p: usize) -> &'static str {
    if FP == 1 {
        names[0]
    } else {
        names[1 + p]
    }
}

/// Instruction fetch of `MW` warps with a cache of `2^SB` sets x `ways`
/// ways of `LW`-instruction lines and `FP` fetch ports.
#[derive(Debug, Clone)]
pub struct Ifetch<const MW: usize, const LW: usize, const SB: usize, const FP: usize> {
    decl: Decl,
    ways: usize,
    fpc: Vec<Reg<16>>,
    wm: Vec<Reg<1>>,
    rep: Vec<Reg<1>>,
    rr: Vec<Reg<6>>,
    l1v: Vec<Reg<1>>,
    l1w: Vec<Reg<6>>,
    l1pc: Vec<Reg<16>>,
    ms: Reg<2>,
    mline: Reg<16>,
    mway: Reg<3>,
    vict: Vec<Reg<3>>,
    cnt_hit: Reg<32>,
    cnt_miss: Reg<32>,
    err_v: Reg<1>,
    err_warp: Reg<6>,
    err_pc: Reg<16>,
    tag: Vec<Mem<16, SB>>,
    data: Vec<Vec<Mem<64, SB>>>,
}

impl<const MW: usize, const LW: usize, const SB: usize, const FP: usize> Ifetch<MW, LW, SB, FP> {
    /// A fetch unit with `ways` ways (1..=8).
    pub fn new(ways: usize) -> Result<Self, String> {
        const {
            assert!(MW >= 2 && MW <= 64 && LW >= 2 && LW <= 64 && LW.is_power_of_two() && SB >= 1 && SB <= 10);
            assert!(FP >= 1 && FP <= 2 && MW.is_multiple_of(FP));
        };
        if !(1..=8).contains(&ways) {
            return Err(format!("icache_ways = {ways}: the ifetch block supports 1..=8 ways"));
        }
        let lb = LW.trailing_zeros() as usize;
        if lb + SB >= 16 {
            return Err(format!(
                "{} sets of {LW}-instruction lines exceed the 16-bit pc: nothing left for the tag",
                1 << SB
            ));
        }
        let mut d = Decl::new();
        let c = Domain::Core;
        let fpc = (0..MW).map(|w| d.reg(&format!("fpc{w}"), c, 0)).collect();
        let wm = (0..MW).map(|w| d.reg(&format!("wm{w}"), c, 0)).collect();
        let rep = (0..MW).map(|w| d.reg(&format!("rep{w}"), c, 0)).collect();
        let vict = (0..1usize << SB).map(|s| d.reg(&format!("vict{s}"), c, 0)).collect();
        // One read port per fetch port; the fill writes through port 0.
        let tag = (0..ways).map(|k| d.mem(&format!("tag{k}"), c, FP, 1)).collect();
        let data = (0..ways)
            .map(|k| (0..LW).map(|j| d.mem(&format!("data{k}_{j}"), c, FP, 1)).collect())
            .collect();
        let rr = (0..FP)
            .map(|p| d.reg(pname::<FP>(["rr", "rr0", "rr1"], p), c, (MW - 1) as u64))
            .collect();
        let l1v = (0..FP)
            .map(|p| d.reg(pname::<FP>(["l1v", "l1v0", "l1v1"], p), c, 0))
            .collect();
        let l1w = (0..FP)
            .map(|p| d.reg(pname::<FP>(["l1w", "l1w0", "l1w1"], p), c, 0))
            .collect();
        let l1pc = (0..FP)
            .map(|p| d.reg(pname::<FP>(["l1pc", "l1pc0", "l1pc1"], p), c, 0))
            .collect();
        Ok(Ifetch {
            ways,
            fpc,
            wm,
            rep,
            rr,
            l1v,
            l1w,
            l1pc,
            ms: d.reg("ms", c, MS_IDLE),
            mline: d.reg("mline", c, 0),
            mway: d.reg("mway", c, 0),
            vict,
            cnt_hit: d.reg("cnt_hit", c, 0),
            cnt_miss: d.reg("cnt_miss", c, 0),
            err_v: d.reg("err_v", c, 0),
            err_warp: d.reg("err_warp", c, 0),
            err_pc: d.reg("err_pc", c, 0),
            tag,
            data,
            decl: d,
        })
    }

    /// Ways of the cache.
    pub fn ways(&self) -> usize {
        self.ways
    }
}

/// Lowest index whose bit is set (0 when none).
fn lowest<C: Ctx>(cx: &mut C, e: &[S<C, 1>]) -> S<C, 6> {
    let mut idx = cx.lit::<6>(0);
    for w in (0..e.len()).rev() {
        let l = cx.lit::<6>(w as u64);
        idx = e[w].mux(l, idx);
    }
    idx
}

impl<const MW: usize, const LW: usize, const SB: usize, const FP: usize> Block for Ifetch<MW, LW, SB, FP> {
    type In<B: Backend> = IfIn<B, MW, LW>;
    type Out<B: Backend> = IfOut<B, MW, FP>;

    fn module_name(&self) -> String {
        let ports = if FP == 1 { String::new() } else { format!("_p{FP}") };
        format!("ifetch_w{MW}_l{LW}_s{}_a{}{ports}", 1usize << SB, self.ways)
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    /// Warps in range (1 in 32 out), starts and redirects now and then,
    /// most warps running with room, programs of 1..1024 instructions,
    /// redirect pcs mostly inside the program, memory responses now and then.
    fn constrain(&self, r: u64, i: &mut IfIn<crate::hdl::Concrete, MW, LW>) {
        use crate::hdl::Bits;
        let mw = MW as u64;
        let warp = |x: u64| if x % 32 == 31 { 63 } else { x % mw };
        i.st_valid_i = Bits::new((r & 15 == 0) as u64);
        i.st_warp_i = Bits::new(warp(r >> 4));
        i.redir_valid_i = Bits::new((r >> 10 & 7 == 0) as u64);
        i.redir_warp_i = Bits::new(warp(r >> 13));
        let plen = 1 + (r >> 19 & 0x3ff);
        // The program length changes rarely (every 4096 core cycles would be
        // closer to a run; random is fine for the lock-step).
        i.plen_i = Bits::new(plen);
        i.redir_pc_i = Bits::new(i.redir_pc_i.to_u64() % (plen + 2));
        for w in 0..MW {
            if r >> (29 + w % 8) & 1 == 1 {
                i.run_i[w] = Bits::new(1);
                i.room_i[w] = Bits::new(1);
            }
        }
        i.im_resp_valid_i = Bits::new((r >> 37 & 7 == 0) as u64);
        i.hold_i = Bits::new((r >> 40 & 15 == 0) as u64);
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &IfIn<C::B, MW, LW>) -> IfOut<C::B, MW, FP> {
        let lb = LW.trailing_zeros() as u64;
        let z1 = cx.lit::<1>(0);
        let one16 = cx.lit::<16>(1);
        let one32 = cx.lit::<32>(1);
        let fpc: SmallBuf<S<C, 16>, 64> = self.fpc.iter().map(|r| cx.q(*r)).collect();
        let wm: SmallBuf<S<C, 1>, 64> = self.wm.iter().map(|r| cx.q(*r)).collect();
        let rep: SmallBuf<S<C, 1>, 64> = self.rep.iter().map(|r| cx.q(*r)).collect();
        let ms = cx.q(self.ms);
        let mline = cx.q(self.mline);
        let mway = cx.q(self.mway);
        let s_idle = ms.eq(cx.lit::<2>(MS_IDLE));
        let s_req = ms.eq(cx.lit::<2>(MS_REQ));
        let s_wait = ms.eq(cx.lit::<2>(MS_WAIT));
        let fill = cx.name("fill", s_wait & i.im_resp_valid_i);
        let plen = i.plen_i;
        let lbl = cx.lit::<4>(lb);
        let sbl = cx.lit::<4>(SB as u64);

        // ---- per-warp kill (start or redirect now)
        let mut kill: SmallBuf<S<C, 1>, 64> = SmallBuf::filled(z1, MW);
        let mut st: SmallBuf<S<C, 1>, 64> = SmallBuf::filled(z1, MW);
        for (w, k) in kill.iter_mut().enumerate() {
            let wl = cx.lit::<6>(w as u64);
            st[w] = i.st_valid_i & i.st_warp_i.eq(wl);
            *k = st[w] | (i.redir_valid_i & i.redir_warp_i.eq(wl));
        }

        // ---- per fetch port p (warps w with w % FP == p)
        let mut push = [z1; FP];
        let mut push_warp = [cx.lit::<6>(0); FP];
        let mut push_pc = [cx.lit::<16>(0); FP];
        let mut push_word = [cx.lit::<64>(0); FP];
        let mut miss1 = [z1; FP];
        for p in 0..FP {
            let rr = cx.q(self.rr[p]);
            let l1v = cx.q(self.l1v[p]);
            let l1w = cx.q(self.l1w[p]);
            let l1pc = cx.q(self.l1pc[p]);

            // stage 0: pick a warp of this port (round robin after rr_q),
            // read the RAMs through read port p
            let mut elig = vec![z1; MW];
            for w in (p..MW).step_by(FP) {
                let wl = cx.lit::<6>(w as u64);
                let in1 = l1v & l1w.eq(wl);
                elig[w] = i.run_i[w] & i.room_i[w] & !wm[w] & fpc[w].ult(plen) & !in1 & !kill[w] & !fill;
            }
            let mut after = vec![z1; MW];
            for w in 1..MW {
                let wl = cx.lit::<6>(w as u64);
                after[w] = elig[w] & rr.ult(wl);
            }
            let mut any_after = z1;
            let mut any = z1;
            for w in 0..MW {
                any_after = any_after | after[w];
                any = any | elig[w];
            }
            let first_after = lowest(cx, &after);
            let first = lowest(cx, &elig);
            let sel = any_after.mux(first_after, first);
            let sel = cx.name(pname::<FP>(["pick_warp", "pick_warp0", "pick_warp1"], p), sel);
            let pick_v = cx.name(pname::<FP>(["pick_valid", "pick_valid0", "pick_valid1"], p), any);
            let pc0 = index(cx, &fpc, sel);
            let set0: S<C, SB> = pc0.shr(lbl).slice::<0, SB>();
            cx.d(self.rr[p], pick_v.mux(sel, rr));
            cx.d(self.l1v[p], pick_v);
            cx.d(self.l1w[p], pick_v.mux(sel, l1w));
            cx.d(self.l1pc[p], pick_v.mux(pc0, l1pc));

            // stage 1: tag compare, push or miss
            let tag1: S<C, 16> = l1pc.shr(lbl).shr(sbl) | cx.lit::<16>(1 << 15);
            let widx: S<C, 16> = l1pc & cx.lit::<16>(LW as u64 - 1);
            let k1 = index(cx, &kill, l1w);
            let room1 = index(cx, &i.room_i, l1w);
            let v1 = l1v & !k1;
            let mut hit_any = z1;
            let mut word = cx.lit::<64>(0);
            for k in 0..self.ways {
                let t = cx.mem_read(self.tag[k], p, pick_v, set0);
                let h = t.eq(tag1);
                let mut wd = cx.lit::<64>(0);
                for j in 0..LW {
                    let d = cx.mem_read(self.data[k][j], p, pick_v, set0);
                    let at = widx.eq(cx.lit::<16>(j as u64));
                    wd = at.mux(d, wd);
                }
                word = h.mux(wd, word);
                hit_any = hit_any | h;
            }
            let hit = cx.name(pname::<FP>(["hit", "hit0", "hit1"], p), v1 & hit_any);
            push[p] = cx.name(pname::<FP>(["push", "push0", "push1"], p), hit & room1);
            miss1[p] = cx.name(pname::<FP>(["miss", "miss0", "miss1"], p), v1 & !hit_any);
            push_warp[p] = l1w;
            push_pc[p] = l1pc;
            push_word[p] = word;
        }

        // ---- miss unit fill: victim way of the missing line's set
        let mset: S<C, SB> = mline.slice::<0, SB>();
        let mtag: S<C, 16> = mline.shr(sbl) | cx.lit::<16>(1 << 15);
        for k in 0..self.ways {
            let kw = fill & mway.eq(cx.lit::<3>(k as u64));
            cx.mem_write(self.tag[k], 0, kw, mset, mtag);
            for j in 0..LW {
                cx.mem_write(self.data[k][j], 0, kw, mset, i.im_resp_data_i[j]);
            }
        }

        // ---- the miss unit takes the lowest missing port's line
        let mut start_miss = z1;
        let mut line1 = cx.lit::<16>(0);
        for p in (0..FP).rev() {
            start_miss = start_miss | miss1[p];
            line1 = miss1[p].mux(push_pc[p].shr(lbl), line1);
        }
        let start_miss = start_miss & s_idle;
        let set1: S<C, SB> = line1.slice::<0, SB>();
        let mut vsel = cx.lit::<3>(0);
        for (s, v) in self.vict.iter().enumerate() {
            let vq = cx.q(*v);
            let here = set1.eq(cx.lit::<SB>(s as u64));
            vsel = here.mux(vq, vsel);
            // Advance the set's pointer at its fill.
            let fh = fill & mset.eq(cx.lit::<SB>(s as u64));
            let nx = vq + cx.lit::<3>(1);
            let wrap = nx.eq(cx.lit::<3>(self.ways as u64));
            let nx = wrap.mux(cx.lit::<3>(0), nx);
            cx.d(*v, fh.mux(nx, vq));
        }
        let ms_n = start_miss.mux(cx.lit::<2>(MS_REQ), ms);
        let req = cx.name("im_req", s_req & !i.hold_i);
        let ms_n = (req & i.im_req_ready_i).mux(cx.lit::<2>(MS_WAIT), ms_n);
        let ms_n = fill.mux(cx.lit::<2>(MS_IDLE), ms_n);
        cx.d(self.ms, ms_n);
        cx.d(self.mline, start_miss.mux(line1, mline));
        cx.d(self.mway, start_miss.mux(vsel, mway));
        let ch = cx.q(self.cnt_hit);
        let mut ch_n = ch;
        for x in push {
            ch_n = x.mux(ch_n + one32, ch_n);
        }
        cx.d(self.cnt_hit, ch_n);
        let cm = cx.q(self.cnt_miss);
        cx.d(self.cnt_miss, start_miss.mux(cm + one32, cm));

        // ---- per-warp state and the pc error
        let mut miss_o = [z1; MW];
        let mut bad = vec![z1; MW];
        for w in 0..MW {
            let p = w % FP;
            let wl = cx.lit::<6>(w as u64);
            let here1 = push_warp[p].eq(wl);
            let adv = push[p] & here1;
            let n = adv.mux(push_pc[p] + one16, fpc[w]);
            let n = (i.redir_valid_i & i.redir_warp_i.eq(wl)).mux(i.redir_pc_i, n);
            let n = st[w].mux(cx.lit::<16>(0), n);
            cx.d(self.fpc[w], n);
            let keep = wm[w] & !fill & !kill[w];
            cx.d(self.wm[w], keep | (miss1[p] & here1 & !fill));
            miss_o[w] = wm[w];
            bad[w] = i.run_i[w] & !i.busy_i[w] & !i.hv_i[w] & fpc[w].uge(plen) & !kill[w] & !rep[w];
        }
        let mut err = z1;
        for b in &bad {
            err = err | *b;
        }
        let err = cx.name("pc_err", err);
        let ew = lowest(cx, &bad);
        for w in 0..MW {
            let wl = cx.lit::<6>(w as u64);
            let mine = err & ew.eq(wl);
            cx.d(self.rep[w], (rep[w] & !kill[w]) | mine);
        }
        let epc = index(cx, &fpc, ew);
        cx.d(self.err_v, err);
        let ewq = cx.q(self.err_warp);
        let epq = cx.q(self.err_pc);
        cx.d(self.err_warp, err.mux(ew, ewq));
        cx.d(self.err_pc, err.mux(epc, epq));
        let ev = cx.q(self.err_v);
        let code = cx.lit::<8>(ERR_PC);
        let z8 = cx.lit::<8>(0);
        IfOut {
            push_valid_o: push,
            push_warp_o: push_warp,
            push_pc_o: push_pc,
            push_word_o: push_word,
            im_req_valid_o: req,
            im_req_addr_o: mline,
            err_o: ev,
            err_code_o: ev.mux(code, z8),
            err_warp_o: ewq,
            err_pc_o: epq,
            cnt_hit_o: ch,
            cnt_miss_o: cm,
            miss_o,
        }
    }
}

/// Build the fetch unit for `cfg` and hand it to `f`. Warps and fetch ports
/// (= `warp_schedulers`) are type parameters from the config's warp shape
/// (`crate::shapes`); instructions per line and set bits are type
/// parameters too, one arm per supported cache geometry.
pub fn with_ifetch<F: crate::blocks::BlockFn>(cfg: &crate::config::SmConfig, f: &mut F) -> anyhow::Result<F::Out> {
    let lw = cfg.icache_line_bytes as usize / 8;
    let ways = cfg.icache_ways as usize;
    let sets = cfg.icache_bytes as usize / cfg.icache_line_bytes.max(1) as usize / ways.max(1);
    let e = |e: String| anyhow::anyhow!("config `{}`: {e}", cfg.name);
    crate::with_warp_shape!(cfg, "ifetch", |MW, NS, NC| match (lw, sets) {
        (8, 32) => f.call(Ifetch::<MW, 8, 5, NS>::new(ways).map_err(e)?),
        (8, 16) => f.call(Ifetch::<MW, 8, 4, NS>::new(ways).map_err(e)?),
        (8, 64) => f.call(Ifetch::<MW, 8, 6, NS>::new(ways).map_err(e)?),
        (16, 16) => f.call(Ifetch::<MW, 16, 4, NS>::new(ways).map_err(e)?),
        (lw, sets) => anyhow::bail!(
            "config `{}`: an instruction cache of {sets} sets of {lw}-instruction lines is not supported by the \
             ifetch block (32, 16 or 64 sets of 8 instructions, or 16 sets of 16)",
            cfg.name
        ),
    })
}

#[cfg(test)]
mod tests {
    use crate::testbenches::ifetch_tb::ifetch_random;

    #[test]
    fn random_matches_reference() {
        let a = ifetch_random::<32, 8, 5, 1>(1, 6_000, 4, 20).unwrap();
        assert!(
            a.pushes > 1000 && a.misses >= 10 && a.errors > 0 && a.dual == 0,
            "{a:?}"
        );
        let b = ifetch_random::<48, 8, 5, 2>(2, 4_000, 4, 3).unwrap();
        assert!(b.pushes > 1000 && b.dual > 100, "{b:?}");
        ifetch_random::<16, 8, 4, 1>(3, 4_000, 1, 1).unwrap();
        ifetch_random::<16, 8, 4, 2>(4, 4_000, 1, 1).unwrap();
    }
}
