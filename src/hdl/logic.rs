//! Reusable combinational building blocks for block code: reductions,
//! one-hot and indexed selection, packing of per-lane bits. Every block
//! takes them from here, so each piece of logic is written once.
//!
//! Each helper is ordinary block code over a [`Ctx`]: in the concrete
//! simulator it runs natively (and [`index`] looks its answer up when the
//! index is known), in the tracer it records the full logic, which the
//! Verilog emitter writes:
//!
//! | helper | Verilog it records |
//! |---|---|
//! | [`or_all`], [`and_all`] | a chain of `\|` / `&` |
//! | [`pick`] | `\|` of `sel[k] ? v[k] : 0` (one-hot or zero select) |
//! | [`index`] | a binary mux tree on the index bits (0 beyond `v`) |
//! | [`index_within`] | a binary mux tree on select bits, no padded leaves |
//! | [`bit_of`] | `(v >> b)[0]` |
//! | [`pack`] | `{v[31], ..., v[0]}` (lane k in bit k) |
//! | [`first_one`] | lowest set element as a one-hot vector |
//!
//! Register loads with an enable and lazily evaluated selects are
//! [`Ctx::d_en`] and [`Ctx::select`].

use super::{Ctx, Sig, S};

/// OR of 1-bit signals (0 for an empty list).
pub fn or_all<C: Ctx>(cx: &mut C, v: &[S<C, 1>]) -> S<C, 1> {
    let mut acc = cx.lit::<1>(0);
    for &x in v {
        acc = acc | x;
    }
    acc
}

/// AND of 1-bit signals (1 for an empty list).
pub fn and_all<C: Ctx>(cx: &mut C, v: &[S<C, 1>]) -> S<C, 1> {
    let mut acc = cx.lit::<1>(1);
    for &x in v {
        acc = acc & x;
    }
    acc
}

/// `v[k]` for a one-hot (or all-zero) select: the OR of the selected
/// values, 0 when nothing is selected.
pub fn pick<C: Ctx, const W: usize>(cx: &mut C, sel: &[S<C, 1>], v: &[S<C, W>]) -> S<C, W> {
    let zero = cx.lit::<W>(0);
    let mut acc = zero;
    for (s, x) in sel.iter().zip(v) {
        acc = acc | s.mux(*x, zero);
    }
    acc
}

/// `v[idx]`, 0 beyond `v`: a binary mux tree on the index bits. The
/// simulator reads the element directly when it knows the index.
pub fn index<C: Ctx, const W: usize, const K: usize>(cx: &mut C, v: &[S<C, W>], idx: S<C, K>) -> S<C, W> {
    if let Some(k) = cx.known(idx) {
        return match v.get(k as usize) {
            Some(&x) => x,
            None => cx.lit::<W>(0),
        };
    }
    let zero = cx.lit::<W>(0);
    let mut level: Vec<S<C, W>> = (0..1usize << K).map(|k| v.get(k).copied().unwrap_or(zero)).collect();
    for b in 0..K {
        let sel = bit_of(cx, idx, b);
        level = level.chunks(2).map(|p| sel.mux(p[1], p[0])).collect();
    }
    level[0]
}

/// `v[k]` for a select `k` given as its bits, low first, where the caller
/// knows `k < v.len()` (the collectors' bank group, for one): the mux tree
/// of [`index`], but an element without a pair passes up a level instead
/// of meeting a zero leaf, so a length that is not a power of two costs no
/// logic for the leaves it lacks. Uses the low `ceil(log2(v.len()))` bits
/// of `sel`. The simulator reads the element when it knows the bits; for a
/// `k` at or past the length it gives what the tree gives.
pub fn index_within<C: Ctx, const W: usize>(cx: &mut C, v: &[S<C, W>], sel: &[S<C, 1>]) -> S<C, W> {
    let levels = tree_levels(v.len());
    assert!(
        sel.len() >= levels,
        "index_within: {} select bits for {} elements",
        sel.len(),
        v.len()
    );
    let mut k = 0usize;
    for (b, &s) in sel[..levels].iter().enumerate() {
        match cx.known(s) {
            Some(x) => k |= (x as usize & 1) << b,
            None => return pass_up_tree::<C::B, W>(v, sel),
        }
    }
    match v.get(k) {
        Some(&x) => x,
        None => pass_up_tree::<C::B, W>(v, sel),
    }
}

/// Levels of a tree over `n` leaves: `ceil(log2(n))`, 0 for one leaf.
fn tree_levels(n: usize) -> usize {
    assert!(n > 0, "a selection among no elements");
    (usize::BITS - (n - 1).leading_zeros()) as usize
}

/// The logic of [`index_within`]: level by level, pairs `(2j, 2j+1)` meet
/// in a 2:1 mux on the level's select bit; a last element without a pair
/// goes up unchanged.
fn pass_up_tree<B: crate::hdl::Backend, const W: usize>(v: &[B::S<W>], sel: &[B::S<1>]) -> B::S<W> {
    let mut layer: Vec<B::S<W>> = v.to_vec();
    let mut bit = 0;
    while layer.len() > 1 {
        layer = layer
            .chunks(2)
            .map(|p| if p.len() == 2 { sel[bit].mux(p[1], p[0]) } else { p[0] })
            .collect();
        bit += 1;
    }
    layer[0]
}

/// Bit `b` of `v`.
pub fn bit_of<C: Ctx, const K: usize>(cx: &mut C, v: S<C, K>, b: usize) -> S<C, 1> {
    let k = cx.lit::<K>(b as u64);
    v.shr(k).slice::<0, 1>()
}

/// Per-lane bits packed into a word, lane `k` in bit `k` (`W` lanes).
pub fn pack<C: Ctx, const W: usize>(cx: &mut C, v: &[S<C, 1>; W]) -> S<C, W> {
    let mut acc = cx.lit::<W>(0);
    for (k, &b) in v.iter().enumerate() {
        let sh = cx.lit::<W>(k as u64);
        acc = acc | b.zext::<W>().shl(sh);
    }
    acc
}

/// The lowest set element of `v` as a one-hot vector (all zero when none).
pub fn first_one<C: Ctx, const N: usize>(cx: &mut C, v: &[S<C, 1>; N]) -> [S<C, 1>; N] {
    let mut seen = cx.lit::<1>(0);
    std::array::from_fn(|k| {
        let f = v[k] & !seen;
        seen = seen | v[k];
        f
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdl::{Backend, Bits, Block, Concrete, Decl, Sim};
    use rand::{Rng, SeedableRng};

    crate::ports! {
        struct HIn { a_i: [1; 8] @ Core, sel_i: [1; 3] @ Core, v_i: [8; 3] @ Core, idx_i: 2 @ Core }
    }
    crate::ports! {
        struct HOut { or_o: 1 @ Core, and_o: 1 @ Core, pick_o: 8 @ Core, index_o: 8 @ Core,
                      bit_o: 1 @ Core, pack_o: 8 @ Core, first_o: 8 @ Core, within_o: 8 @ Core }
    }
    /// Every helper on one set of inputs (combinational only).
    struct Helpers(Decl);
    impl Block for Helpers {
        type In<B: Backend> = HIn<B>;
        type Out<B: Backend> = HOut<B>;
        fn module_name(&self) -> String {
            "logic_helpers".into()
        }
        fn decl(&self) -> &Decl {
            &self.0
        }
        fn eval<C: Ctx>(&self, cx: &mut C, i: &HIn<C::B>) -> HOut<C::B> {
            let f = first_one(cx, &i.a_i);
            HOut {
                or_o: or_all(cx, &i.a_i),
                and_o: and_all(cx, &i.a_i),
                pick_o: pick(cx, &i.sel_i, &i.v_i),
                index_o: index(cx, &i.v_i, i.idx_i),
                bit_o: bit_of(cx, i.idx_i, 1),
                pack_o: pack(cx, &i.a_i),
                first_o: pack(cx, &f),
                within_o: index_within(cx, &i.v_i, &[i.idx_i.slice::<0, 1>(), i.idx_i.slice::<1, 1>()]),
            }
        }
    }

    /// `index_within` against its definition for every length up to 8 and
    /// every select, both its simulator shortcut and the tree the tracer
    /// records (the tree evaluated on concrete values); the two agree past
    /// the length too.
    #[test]
    fn index_within_selects_without_padding() {
        let v: Vec<Bits<8>> = (0..8).map(|k| Bits::new(0x11 * (k + 1))).collect();
        for n in 1..=8usize {
            for k in 0..8u64 {
                let sel: [Bits<1>; 3] = std::array::from_fn(|b| Bits::new(k >> b & 1));
                let tree = pass_up_tree::<Concrete, 8>(&v[..n], &sel);
                // The element a select reaches, walking down from the root:
                // bit `lvl` takes the upper half of the subtree at `lo` where
                // that half has leaves (k itself for k < n).
                let mut lo = 0usize;
                for lvl in (0..tree_levels(n)).rev() {
                    let half = 1usize << lvl;
                    if k >> lvl & 1 == 1 && lo + half < n {
                        lo += half;
                    }
                }
                let want = lo;
                if (k as usize) < n {
                    assert_eq!(want, k as usize);
                }
                assert_eq!(tree.to_u64(), v[want].to_u64(), "n {n} k {k}");
            }
        }
        assert_eq!(tree_levels(1), 0);
        assert_eq!(tree_levels(4), 2);
        assert_eq!(tree_levels(5), 3);
    }

    /// Against plain integer definitions, on random inputs; the design
    /// also elaborates (the tracer path).
    #[test]
    fn helpers_compute_their_definitions() {
        let mut s = Sim::new(Helpers(Decl::new())).unwrap();
        let mut rng = rand::rngs::SmallRng::seed_from_u64(3);
        for _ in 0..2000 {
            let a: u8 = rng.gen();
            // A one-hot or zero select.
            let sel: u8 = [0, 1, 2, 4][rng.gen_range(0..4)];
            let v: [u8; 3] = rng.gen();
            let idx: u8 = rng.gen_range(0..4);
            let i = HIn::<Concrete> {
                a_i: std::array::from_fn(|k| Bits::new((a >> k) as u64 & 1)),
                sel_i: std::array::from_fn(|k| Bits::new((sel >> k) as u64 & 1)),
                v_i: v.map(|x| Bits::new(x as u64)),
                idx_i: Bits::new(idx as u64),
            };
            let o = s.step_core(&i);
            assert_eq!(o.or_o.to_u64(), (a != 0) as u64);
            assert_eq!(o.and_o.to_u64(), (a == 0xff) as u64);
            let want_pick = (0..3).filter(|k| sel >> k & 1 == 1).map(|k| v[k]).next().unwrap_or(0);
            assert_eq!(o.pick_o.to_u64(), want_pick as u64);
            assert_eq!(o.index_o.to_u64(), v.get(idx as usize).copied().unwrap_or(0) as u64);
            // Three elements: index 3 reaches the unpaired v[2].
            assert_eq!(o.within_o.to_u64(), v[(idx as usize).min(2)] as u64);
            assert_eq!(o.bit_o.to_u64(), (idx >> 1 & 1) as u64);
            assert_eq!(o.pack_o.to_u64(), a as u64);
            assert_eq!(o.first_o.to_u64(), (a & a.wrapping_neg()) as u64);
        }
    }
}
