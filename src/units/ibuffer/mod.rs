//! Per-warp instruction buffer (seed 003: "multithreaded instruction
//! buffer", 1-2 entries per warp): holds decoded instructions between
//! instruction fetch and the warp schedulers.
//!
//! ```text
//!  push[p] (fetch port p: warp, pc, word) --> decode_word --> pack --+
//!                                                                   v
//!   warp w: ent<w>_0_q (head), ent<w>_1_q, cnt<w>_q  <-- pop[s] (issue), flush[k]
//!        |
//!        +--> hv_o[w], room_o[w], h_*[w] (decoded head, its pc)
//! ```
//!
//! * Clock domain: core. Latency: a word pushed at edge k is the head in
//!   cycle k+1 (when the buffer was empty) and can issue at edge k+1.
//! * Ports: `push_valid_i[p]`, `push_warp_i[p]`, `push_pc_i[p]`,
//!   `push_word_i[p]` (one push port per fetch port, `NS` of them: port p
//!   carries the warps w with w mod NS = p, the warps of scheduler p; each
//!   decoded here once with [`crate::units::decode::decode_word`], so the
//!   ISA table is the only decoder); `pop_valid_i[s]`, `pop_warp_i[s]` (the schedulers' `iss_valid_o`/`iss_warp_o`; scheduler
//!   s only pops its own warps, so two pops never hit one warp);
//!   `fl_valid_i[k]`, `fl_warp_i[k]` (two flush ports: simt's redirect and
//!   cta's warp start) empty the warp and drop a push to it at that edge.
//! * Outputs per warp: `hv_o` (head valid), `room_o` (fewer than E entries:
//!   Moore; the fetch pushes only where it is high, a push to a full buffer
//!   without a pop is dropped), head fields `h_*` as the scheduler's
//!   `h_*_i` (decode's outputs plus `h_pc_o`).
//! * Sizes: `max_warps` (MW), `warp_schedulers` (NS) push and pop ports,
//!   `ibuffer_entries` (E, 1 or 2) entries of 111 bits (94 decoded bits,
//!   16-bit pc, valid).

use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};
use crate::units::decode::{decode_word_as, Fields};

crate::ports! {
    /// Push from fetch, pops from issue, flushes.
    pub struct IbIn[NS] {
        push_valid_i: [1; NS] @ Core,
        push_warp_i: [6; NS] @ Core,
        push_pc_i: [16; NS] @ Core,
        push_word_i: [64; NS] @ Core,
        pop_valid_i: [1; NS] @ Core,
        pop_warp_i: [6; NS] @ Core,
        fl_valid_i: [1; 2] @ Core,
        fl_warp_i: [6; 2] @ Core,
    }
}
crate::ports! {
    /// Heads of every warp.
    pub struct IbOut[MW] {
        hv_o: [1; MW] @ Core,
        room_o: [1; MW] @ Core,
        h_err_o: [1; MW] @ Core,
        h_unit_o: [3; MW] @ Core,
        h_fmul_o: [1; MW] @ Core,
        h_op_o: [7; MW] @ Core,
        h_mod_o: [4; MW] @ Core,
        h_gpred_o: [3; MW] @ Core,
        h_gneg_o: [1; MW] @ Core,
        h_ra_o: [8; MW] @ Core,
        h_rb_o: [8; MW] @ Core,
        h_rc_o: [8; MW] @ Core,
        h_pair_o: [3; MW] @ Core,
        h_kind_o: [2; MW] @ Core,
        h_dst_o: [8; MW] @ Core,
        h_use_imm_o: [1; MW] @ Core,
        h_imm_o: [32; MW] @ Core,
        h_prd_o: [4; MW] @ Core,
        h_pc_o: [16; MW] @ Core,
    }
}

/// Entry bits: decoded fields (94) and pc (16) packed in 110 bits.
const EW: usize = 110;

fn pack<C: Ctx>(f: &Fields<C::B>, pc: S<C, 16>) -> S<C, EW> {
    let v: S<C, 4> = f.err.concat::<3, 4>(f.unit);
    let v: S<C, 5> = v.concat::<1, 5>(f.fmul);
    let v: S<C, 12> = v.concat::<7, 12>(f.op);
    let v: S<C, 16> = v.concat::<4, 16>(f.m);
    let v: S<C, 19> = v.concat::<3, 19>(f.gpred);
    let v: S<C, 20> = v.concat::<1, 20>(f.gneg);
    let v: S<C, 28> = v.concat::<8, 28>(f.ra);
    let v: S<C, 36> = v.concat::<8, 36>(f.rb);
    let v: S<C, 44> = v.concat::<8, 44>(f.rc);
    let v: S<C, 47> = v.concat::<3, 47>(f.pair);
    let v: S<C, 49> = v.concat::<2, 49>(f.kind);
    let v: S<C, 57> = v.concat::<8, 57>(f.dst);
    let v: S<C, 58> = v.concat::<1, 58>(f.use_imm);
    let v: S<C, 90> = v.concat::<32, 90>(f.imm);
    let v: S<C, 94> = v.concat::<4, 94>(f.prd);
    v.concat::<16, EW>(pc)
}

/// The instruction buffer of `MW` warps, `E` entries each, `NS` pop ports.
#[derive(Debug, Clone)]
pub struct Ibuffer<const MW: usize, const NS: usize, const E: usize> {
    decl: Decl,
    fp64_ok: bool,
    /// The SM has GPU-CC: `GCSET`/`GCRUN` decode (module name ends `_gc`).
    gpucc: bool,
    ent: Vec<[Reg<EW>; E]>,
    cnt: Vec<Reg<2>>,
}

impl<const MW: usize, const NS: usize, const E: usize> Ibuffer<MW, NS, E> {
    pub fn new(fp64_ok: bool) -> Self {
        Self::with_gpucc(fp64_ok, false)
    }
    /// The buffer of an SM with GPU-CC (`gpucc`) or without.
    pub fn with_gpucc(fp64_ok: bool, gpucc: bool) -> Self {
        const { assert!(MW <= 64 && NS >= 1 && NS <= 2 && E >= 1 && E <= 2) };
        let mut d = Decl::new();
        let ent = (0..MW)
            .map(|w| std::array::from_fn(|k| d.reg(&format!("ent{w}_{k}"), Domain::Core, 0)))
            .collect();
        let cnt = (0..MW).map(|w| d.reg(&format!("cnt{w}"), Domain::Core, 0)).collect();
        Ibuffer {
            decl: d,
            fp64_ok,
            gpucc,
            ent,
            cnt,
        }
    }
}

impl<const MW: usize, const NS: usize, const E: usize> Block for Ibuffer<MW, NS, E> {
    type In<B: Backend> = IbIn<B, NS>;
    type Out<B: Backend> = IbOut<B, MW>;
    fn module_name(&self) -> String {
        format!(
            "ibuffer_w{MW}_s{NS}_e{E}_{}{}",
            if self.fp64_ok { "fp64" } else { "nofp64" },
            if self.gpucc { "_gc" } else { "" }
        )
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    /// Warp ids of resident warps, plausible instruction words, flushes rare.
    fn constrain(&self, r: u64, i: &mut IbIn<crate::hdl::Concrete, NS>) {
        use crate::hdl::Bits;
        let mw = MW as u64;
        // Push port p and scheduler p carry only warps w % NS == p.
        for s in 0..NS {
            let l = i.push_warp_i[s].to_u64() % (mw / NS as u64);
            i.push_warp_i[s] = Bits::new(l * NS as u64 + s as u64);
            i.push_word_i[s] = Bits::new(crate::testbenches::fe_ref::plausible_word(
                r >> (8 * s),
                i.push_word_i[s].to_u64(),
            ));
            let l = i.pop_warp_i[s].to_u64() % (mw / NS as u64);
            i.pop_warp_i[s] = Bits::new(l * NS as u64 + s as u64);
        }
        for k in 0..2 {
            i.fl_warp_i[k] = Bits::new(i.fl_warp_i[k].to_u64() % mw);
            i.fl_valid_i[k] = Bits::new((r >> (20 + 4 * k) & 7 == 0) as u64);
        }
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &IbIn<C::B, NS>) -> IbOut<C::B, MW> {
        let pes: [S<C, EW>; NS] = std::array::from_fn(|p| {
            // Names without a suffix with one port (as before two ports).
            let q = if NS == 1 { 0 } else { p + 1 };
            let names = [
                ["dec_row", "dec_err"],
                ["dec_row0", "dec_err0"],
                ["dec_row1", "dec_err1"],
            ][q];
            let f = decode_word_as(cx, i.push_word_i[p], self.fp64_ok, self.gpucc, names);
            let pe = pack::<C>(&f, i.push_pc_i[p]);
            cx.name(["push_entry", "push_entry0", "push_entry1"][q], pe)
        });
        let z1 = cx.lit::<1>(0);
        let c0 = cx.lit::<2>(0);
        let c1 = cx.lit::<2>(1);
        let ce = cx.lit::<2>(E as u64);
        let mut heads = Vec::with_capacity(MW);
        let mut hv = [z1; MW];
        let mut room = [z1; MW];
        for w in 0..MW {
            let wl = cx.lit::<6>(w as u64);
            let cnt = cx.q(self.cnt[w]);
            let e: [S<C, EW>; E] = std::array::from_fn(|k| cx.q(self.ent[w][k]));
            let mut pop = z1;
            for s in 0..NS {
                pop = pop | (i.pop_valid_i[s] & i.pop_warp_i[s].eq(wl));
            }
            let pop = pop & cnt.ne(c0);
            let mut fl = z1;
            for k in 0..2 {
                fl = fl | (i.fl_valid_i[k] & i.fl_warp_i[k].eq(wl));
            }
            let after_pop = pop.mux(cnt - c1, cnt);
            let p = w % NS;
            let pe = pes[p];
            let push = i.push_valid_i[p] & i.push_warp_i[p].eq(wl) & after_pop.ult(ce);
            // Shift on pop, then write the push at the first free slot.
            for k in 0..E {
                let shifted = if k + 1 < E { pop.mux(e[k + 1], e[k]) } else { e[k] };
                let here = push & after_pop.eq(cx.lit::<2>(k as u64));
                cx.d(self.ent[w][k], here.mux(pe, shifted));
            }
            let n = push.mux(after_pop + c1, after_pop);
            cx.d(self.cnt[w], fl.mux(c0, n));
            hv[w] = cnt.ne(c0);
            room[w] = cnt.ult(ce);
            heads.push(e[0]);
        }
        macro_rules! field {
            ($lo:literal, $n:literal) => {
                std::array::from_fn(|w| heads[w].slice::<$lo, $n>())
            };
        }
        IbOut {
            hv_o: hv,
            room_o: room,
            h_pc_o: field!(0, 16),
            h_prd_o: field!(16, 4),
            h_imm_o: field!(20, 32),
            h_use_imm_o: field!(52, 1),
            h_dst_o: field!(53, 8),
            h_kind_o: field!(61, 2),
            h_pair_o: field!(63, 3),
            h_rc_o: field!(66, 8),
            h_rb_o: field!(74, 8),
            h_ra_o: field!(82, 8),
            h_gneg_o: field!(90, 1),
            h_gpred_o: field!(91, 3),
            h_mod_o: field!(94, 4),
            h_op_o: field!(98, 7),
            h_fmul_o: field!(105, 1),
            h_unit_o: field!(106, 3),
            h_err_o: field!(109, 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testbenches::fe_tb::ibuffer_random;

    #[test]
    fn random_matches_reference() {
        ibuffer_random::<32, 1, 2>(1, 4_000, true).unwrap();
        ibuffer_random::<48, 2, 2>(2, 3_000, true).unwrap();
        ibuffer_random::<16, 1, 1>(3, 3_000, false).unwrap();
    }
}
