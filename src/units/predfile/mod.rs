//! Predicate file: P0..P3 of every thread of every resident warp
//! (docs/sm.md section 6).
//!
//! ```text
//!  wr_* (wb's pr_wr_*) ----+
//!  sw_*[s] (sched, predicate-combining ops at issue) --+--> p<w>_q[128] --> p_o[w]
//!  clr_* (warp start: all predicates false) -----------+
//! ```
//!
//! * Clock domain: core. State: one 128-bit register per warp, bit
//!   `32*p + lane` = predicate `p` of lane `lane` (the golden model's
//!   `Warp::preds[p]` bit `lane`).
//! * Writes commit at the core edge: `wr_valid_i`, `wr_warp_i[6]`,
//!   `wr_idx_i[2]`, `wr_mask_i[1;32]` (lanes written), `wr_val_i[1;32]`
//!   (wb's `pr_wr_*`, docs/sm.md 5.5); one more write channel per scheduler
//!   (`sw_*`, mask and value packed in 32 bits) for predicate ops the front
//!   end executes at issue. When several write the same bit at one edge the
//!   later channel wins (wb, then scheduler 0, then 1); `clr_valid_i`
//!   (`clr_warp_i`) clears a starting warp and wins over writes.
//! * Reads: `p_o[w]` is the register itself (Moore), so the scheduler
//!   reads the guard and the `pa`/`pb` operands of its chosen warp in the
//!   issuing cycle without a combinational path back into this block. A
//!   write at edge k is seen by an issue at edge k+1.
//! * Sizes: `max_warps` (MW) warps, `warp_schedulers` (NS) issue channels.

use crate::hdl::logic::pack;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};

crate::ports! {
    /// Writes and clears.
    pub struct PfIn[NS] {
        wr_valid_i: 1 @ Core,
        wr_warp_i: 6 @ Core,
        wr_idx_i: 2 @ Core,
        wr_mask_i: [1; 32] @ Core,
        wr_val_i: [1; 32] @ Core,
        sw_valid_i: [1; NS] @ Core,
        sw_warp_i: [6; NS] @ Core,
        sw_idx_i: [2; NS] @ Core,
        sw_mask_i: [32; NS] @ Core,
        sw_val_i: [32; NS] @ Core,
        clr_valid_i: 1 @ Core,
        clr_warp_i: 6 @ Core,
    }
}
crate::ports! {
    /// Every warp's predicates.
    pub struct PfOut[MW] { p_o: [128; MW] @ Core }
}

/// The predicate file of `MW` warps with `NS` scheduler write channels.
#[derive(Debug, Clone)]
pub struct Predfile<const MW: usize, const NS: usize> {
    decl: Decl,
    p: Vec<Reg<128>>,
}

impl<const MW: usize, const NS: usize> Predfile<MW, NS> {
    pub fn new() -> Self {
        const { assert!(MW <= 64 && NS >= 1 && NS <= 2) };
        let mut d = Decl::new();
        let p = (0..MW).map(|w| d.reg(&format!("p{w}"), Domain::Core, 0)).collect();
        Predfile { decl: d, p }
    }
}

impl<const MW: usize, const NS: usize> Default for Predfile<MW, NS> {
    fn default() -> Self {
        Self::new()
    }
}

/// `(mask, value)` placed at predicate `idx` of a 128-bit warp row.
fn place<C: Ctx>(cx: &mut C, idx: S<C, 2>, mask: S<C, 32>, val: S<C, 32>) -> (S<C, 128>, S<C, 128>) {
    let sh: S<C, 7> = idx.zext::<7>().shl(cx.lit::<3>(5));
    (mask.zext::<128>().shl(sh), (val & mask).zext::<128>().shl(sh))
}

impl<const MW: usize, const NS: usize> Block for Predfile<MW, NS> {
    type In<B: Backend> = PfIn<B, NS>;
    type Out<B: Backend> = PfOut<B, MW>;
    fn module_name(&self) -> String {
        format!("predfile_w{MW}_s{NS}")
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    /// Warp ids of resident warps; clears rare.
    fn constrain(&self, r: u64, i: &mut PfIn<crate::hdl::Concrete, NS>) {
        use crate::hdl::Bits;
        let mw = MW as u64;
        i.wr_warp_i = Bits::new(i.wr_warp_i.to_u64() % mw);
        for s in 0..NS {
            i.sw_warp_i[s] = Bits::new((i.sw_warp_i[s].to_u64() + (r >> s & 1) * i.wr_warp_i.to_u64()) % mw);
        }
        i.clr_warp_i = Bits::new(i.clr_warp_i.to_u64() % mw);
        i.clr_valid_i = Bits::new((r >> 8 & 15 == 0) as u64);
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &PfIn<C::B, NS>) -> PfOut<C::B, MW> {
        let wm = pack(cx, &i.wr_mask_i);
        let wv = pack(cx, &i.wr_val_i);
        let mut chans = vec![(i.wr_valid_i, i.wr_warp_i, place(cx, i.wr_idx_i, wm, wv))];
        for s in 0..NS {
            let pl = place(cx, i.sw_idx_i[s], i.sw_mask_i[s], i.sw_val_i[s]);
            chans.push((i.sw_valid_i[s], i.sw_warp_i[s], pl));
        }
        let z128 = cx.lit::<128>(0);
        let mut out = [z128; MW];
        for (w, o) in out.iter_mut().enumerate() {
            let wl = cx.lit::<6>(w as u64);
            let q = cx.q(self.p[w]);
            let mut n = q;
            for &(v, warp, (m, val)) in &chans {
                let hit = v & warp.eq(wl);
                n = hit.mux((n & !m) | val, n);
            }
            let clr = i.clr_valid_i & i.clr_warp_i.eq(wl);
            cx.d(self.p[w], clr.mux(z128, n));
            *o = q;
        }
        PfOut { p_o: out }
    }
}

#[cfg(test)]
mod tests {
    use crate::testbenches::fe_tb::predfile_random;

    #[test]
    fn random_matches_reference() {
        predfile_random::<32, 1>(1, 3_000).unwrap();
        predfile_random::<48, 2>(2, 3_000).unwrap();
    }
}
