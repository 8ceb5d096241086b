//! Scoreboard: per warp, the registers and predicates an issued instruction
//! will still write (seed 003: "scoreboarding"; results complete out of
//! order, so each destination is tracked on its own).
//!
//! ```text
//!  set<s> (issue, tag) --+                          +--> pend_o[w], ppend_o[w]
//!  rel<s> (wb, tag) -----+--> pend_q[w] (128b) -----+
//!  clr (warp start) -----+    ppend_q[w] (4b)       +--> idle_o[w]: nothing pending
//!
//!  readiness (the SM top, per warp): head_ok(pend_o[w], ppend_o[w], head of w)
//! ```
//!
//! * Clock domain: core. State: `pend<w>_q` (one bit per register R0..R127)
//!   and `ppend<w>_q` (P0..P3) for each of the `max_warps` warps. No
//!   combinational path from an input to an output (Moore).
//! * `set_valid_i[s]`/`set_tag_i[s]` (one per scheduler): an issued
//!   instruction's tag (docs/sm.md section 3); its destination (kind 1 a
//!   register, 2 a pair, 3 a predicate) becomes pending at that edge.
//! * `rel_valid_i[w]`/`rel_tag_i[w]` (wb's `sb_rel<w>_*`): the destination
//!   of the tag is free from that edge on. A set and a release of the same
//!   bit at one edge: the set wins (cannot happen in the SM: an instruction
//!   only issues when its destination is not pending).
//! * `clr_valid_i`/`clr_warp_i`: warp start (cta), clears the warp.
//! * `pend_o[w]`, `ppend_o[w]`: the pending bits; `idle_o[w]`: none set.
//! * Readiness is not in this block: the SM top evaluates [`head_ok`] on
//!   `pend_o`/`ppend_o` and each warp's head instruction (sources: no RAW;
//!   destination: no WAW; RZ (255) and registers >= 128 are never pending),
//!   so the scoreboard sits in the SM's issue ring without a combinational
//!   path, and the logic exists once. A release at edge k lets the
//!   dependent instruction issue at edge k+1 (docs/sm.md section 8).
//!   [`SbQuery`] wraps `head_ok` as a block of its own for the reference
//!   bench.
//! * Sizes: `max_warps` (MW) warps, `warp_schedulers` (NS) set and release
//!   channels; 128 register bits per warp (the ISA's R0..R127).

use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};

crate::ports! {
    /// Set, release and clear.
    pub struct SbIn[NS] {
        set_valid_i: [1; NS] @ Core,
        set_tag_i: [32; NS] @ Core,
        rel_valid_i: [1; NS] @ Core,
        rel_tag_i: [32; NS] @ Core,
        clr_valid_i: 1 @ Core,
        clr_warp_i: 6 @ Core,
    }
}
crate::ports! {
    /// Every warp's pending state.
    pub struct SbOut[MW] {
        idle_o: [1; MW] @ Core,
        pend_o: [128; MW] @ Core,
        ppend_o: [4; MW] @ Core,
    }
}
crate::ports! {
    /// [`SbQuery`]'s inputs: every warp's pending state and head fields.
    pub struct SbQueryIn[MW] {
        pend_i: [128; MW] @ Core,
        ppend_i: [4; MW] @ Core,
        q_ra_i: [8; MW] @ Core,
        q_rb_i: [8; MW] @ Core,
        q_rc_i: [8; MW] @ Core,
        q_pair_i: [3; MW] @ Core,
        q_kind_i: [2; MW] @ Core,
        q_dst_i: [8; MW] @ Core,
        q_prd_i: [4; MW] @ Core,
    }
}
crate::ports! {
    /// [`SbQuery`]'s output: per warp, the head may issue.
    pub struct SbQueryOut[MW] { ok_o: [1; MW] @ Core }
}

/// The scoreboard of `MW` warps and `NS` channels.
#[derive(Debug, Clone)]
pub struct Scoreboard<const MW: usize, const NS: usize> {
    decl: Decl,
    pend: Vec<Reg<128>>,
    ppend: Vec<Reg<4>>,
}

impl<const MW: usize, const NS: usize> Scoreboard<MW, NS> {
    pub fn new() -> Self {
        const { assert!(MW <= 64 && NS >= 1 && NS <= 2) };
        let mut d = Decl::new();
        let pend = (0..MW).map(|w| d.reg(&format!("pend{w}"), Domain::Core, 0)).collect();
        let ppend = (0..MW).map(|w| d.reg(&format!("ppend{w}"), Domain::Core, 0)).collect();
        Scoreboard { decl: d, pend, ppend }
    }
}

impl<const MW: usize, const NS: usize> Default for Scoreboard<MW, NS> {
    fn default() -> Self {
        Self::new()
    }
}

/// (register mask, predicate mask) a tag's destination covers.
pub fn tag_masks<C: Ctx>(cx: &mut C, tag: S<C, 32>) -> (S<C, 128>, S<C, 4>) {
    let kind: S<C, 2> = tag.slice::<14, 2>();
    let dst: S<C, 8> = tag.slice::<6, 8>();
    let z128 = cx.lit::<128>(0);
    let one = cx.lit::<128>(1);
    let three = cx.lit::<128>(3);
    let k1 = kind.eq(cx.lit::<2>(1));
    let k2 = kind.eq(cx.lit::<2>(2));
    let k3 = kind.eq(cx.lit::<2>(3));
    let r = k2.mux(three.shl(dst), k1.mux(one.shl(dst), z128));
    let p1 = cx.lit::<4>(1);
    let z4 = cx.lit::<4>(0);
    let p = k3.mux(p1.shl(dst.slice::<0, 2>()), z4);
    (r, p)
}

/// Is register `r` (and `r+1` when `pair`) pending in `pend`?
fn reg_busy<C: Ctx>(cx: &mut C, pend: S<C, 128>, r: S<C, 8>, pair: S<C, 1>) -> S<C, 1> {
    let two: S<C, 2> = pend.shr(r).slice::<0, 2>();
    let m = pair.mux(cx.lit::<2>(3), cx.lit::<2>(1));
    (two & m).any()
}

/// The head fields a readiness query reads (the `q_*` inputs of one warp).
#[derive(Clone, Copy)]
pub struct Query<B: Backend> {
    pub ra: B::S<8>,
    pub rb: B::S<8>,
    pub rc: B::S<8>,
    pub pair: B::S<3>,
    pub kind: B::S<2>,
    pub dst: B::S<8>,
    pub prd: B::S<4>,
}

/// `ok`: the head `q` reads nothing pending in `pend`/`pp` (RAW, pairs,
/// predicates) and its destination is not pending (WAW). The SM top
/// computes readiness with it from the Moore `pend_o`/`ppend_o`, so the
/// scoreboard can sit in its ring.
pub fn head_ok<C: Ctx>(cx: &mut C, pend: S<C, 128>, pp: S<C, 4>, q: &Query<C::B>) -> S<C, 1> {
    let busy = reg_busy(cx, pend, q.ra, q.pair.slice::<0, 1>())
        | reg_busy(cx, pend, q.rb, q.pair.slice::<1, 1>())
        | reg_busy(cx, pend, q.rc, q.pair.slice::<2, 1>());
    // Destination: as a query tag (kind, dst) on this warp.
    let qtag: S<C, 32> = q.kind.zext::<16>().shl(cx.lit::<4>(14)).zext::<32>() | q.dst.zext::<32>().shl(cx.lit::<3>(6));
    let (dr, dp) = tag_masks(cx, qtag);
    let busy = busy | (dr & pend).any() | (dp & pp).any() | (q.prd & pp).any();
    !busy
}

impl<const MW: usize, const NS: usize> Block for Scoreboard<MW, NS> {
    type In<B: Backend> = SbIn<B, NS>;
    type Out<B: Backend> = SbOut<B, MW>;
    fn module_name(&self) -> String {
        format!("scoreboard_w{MW}_s{NS}")
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    /// Tags on warps that exist, registers R0..R15 (so sets and releases
    /// collide); clears rare.
    fn constrain(&self, r: u64, i: &mut SbIn<crate::hdl::Concrete, NS>) {
        use crate::hdl::Bits;
        let fix_tag = |t: u64, k: u64| (t & !0x3fff) | ((t >> 6) % 16) << 6 | ((t ^ k) % MW as u64);
        for s in 0..NS {
            i.set_tag_i[s] = Bits::new(fix_tag(i.set_tag_i[s].to_u64(), r >> (8 * s)));
            i.rel_tag_i[s] = Bits::new(fix_tag(i.rel_tag_i[s].to_u64(), r >> (8 * s + 16)));
        }
        i.clr_warp_i = Bits::new(i.clr_warp_i.to_u64() % MW as u64);
        i.clr_valid_i = Bits::new((r >> 40 & 15 == 0) as u64);
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SbIn<C::B, NS>) -> SbOut<C::B, MW> {
        let z128 = cx.lit::<128>(0);
        let z4 = cx.lit::<4>(0);
        let sets: [(S<C, 128>, S<C, 4>); NS] = std::array::from_fn(|s| tag_masks(cx, i.set_tag_i[s]));
        let rels: [(S<C, 128>, S<C, 4>); NS] = std::array::from_fn(|s| tag_masks(cx, i.rel_tag_i[s]));
        let mut idle = [cx.lit::<1>(0); MW];
        let mut pend_o = [z128; MW];
        let mut ppend_o = [z4; MW];
        for w in 0..MW {
            let wl = cx.lit::<6>(w as u64);
            let pend = cx.q(self.pend[w]);
            let pp = cx.q(self.ppend[w]);
            pend_o[w] = pend;
            ppend_o[w] = pp;
            idle[w] = !(pend.any() | pp.any());
            let (mut setr, mut setp, mut relr, mut relp) = (z128, z4, z128, z4);
            for s in 0..NS {
                let hs = i.set_valid_i[s] & i.set_tag_i[s].slice::<0, 6>().eq(wl);
                setr = setr | hs.mux(sets[s].0, z128);
                setp = setp | hs.mux(sets[s].1, z4);
                let hr = i.rel_valid_i[s] & i.rel_tag_i[s].slice::<0, 6>().eq(wl);
                relr = relr | hr.mux(rels[s].0, z128);
                relp = relp | hr.mux(rels[s].1, z4);
            }
            let clr = i.clr_valid_i & i.clr_warp_i.eq(wl);
            cx.d(self.pend[w], clr.mux(z128, (pend & !relr) | setr));
            cx.d(self.ppend[w], clr.mux(z4, (pp & !relp) | setp));
        }
        SbOut {
            idle_o: idle,
            pend_o,
            ppend_o,
        }
    }
}

/// The readiness query of the SM top ([`head_ok`] per warp) as a block of
/// its own, combinational, for the reference bench: the scoreboard's state
/// in, `ok_o` out. Not part of the SM's Verilog (the top holds the logic).
#[derive(Debug, Clone, Default)]
pub struct SbQuery<const MW: usize> {
    decl: Decl,
}

impl<const MW: usize> SbQuery<MW> {
    pub fn new() -> Self {
        SbQuery { decl: Decl::new() }
    }
}

impl<const MW: usize> Block for SbQuery<MW> {
    type In<B: Backend> = SbQueryIn<B, MW>;
    type Out<B: Backend> = SbQueryOut<B, MW>;
    fn module_name(&self) -> String {
        format!("sb_query_w{MW}")
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    /// Registers R0..R15 (so queries meet pending bits), RZ now and then.
    fn constrain(&self, _r: u64, i: &mut SbQueryIn<crate::hdl::Concrete, MW>) {
        use crate::hdl::Bits;
        let reg = |v: u64| if v % 16 == 15 { 255 } else { v % 16 };
        for w in 0..MW {
            i.q_ra_i[w] = Bits::new(reg(i.q_ra_i[w].to_u64()));
            i.q_rb_i[w] = Bits::new(reg(i.q_rb_i[w].to_u64()));
            i.q_rc_i[w] = Bits::new(reg(i.q_rc_i[w].to_u64()));
            i.q_dst_i[w] = Bits::new(reg(i.q_dst_i[w].to_u64()));
        }
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SbQueryIn<C::B, MW>) -> SbQueryOut<C::B, MW> {
        let ok = std::array::from_fn(|w| {
            let q = Query {
                ra: i.q_ra_i[w],
                rb: i.q_rb_i[w],
                rc: i.q_rc_i[w],
                pair: i.q_pair_i[w],
                kind: i.q_kind_i[w],
                dst: i.q_dst_i[w],
                prd: i.q_prd_i[w],
            };
            head_ok(cx, i.pend_i[w], i.ppend_i[w], &q)
        });
        SbQueryOut { ok_o: ok }
    }
}

#[cfg(test)]
mod tests {
    use crate::testbenches::fe_tb::scoreboard_random;

    #[test]
    fn random_matches_reference() {
        scoreboard_random::<32, 1>(1, 6_000).unwrap();
        scoreboard_random::<48, 2>(2, 4_000).unwrap();
        scoreboard_random::<16, 1>(3, 4_000).unwrap();
    }
}
