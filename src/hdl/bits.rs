//! `Bits<W>`: a fixed-width bit vector with the width in the type.
//!
//! Storage is two 64-bit words (so 1 <= W <= 128; the widest signal of the
//! design is the FP64 FMA's 109-bit aligned adder). Every signal, a 1-bit
//! one too, is this big, and the simulator's speed follows the size: two
//! words instead of three made the gt200 SM about 1.2x
//! faster (docs/results.md, section 2). Every operation branches on the constant `W`, so after
//! monomorphization a 32-bit add is one machine add and a mask; widths up to
//! 64 bits take a one-word path, wider ones a carry chain over `(W+63)/64`
//! words. Bits above `W` are always zero (every constructor masks).
//!
//! Width mistakes are compile-time errors where Rust allows: `W` outside
//! 1..=128, a slice past the top, a concat whose result width is not the sum,
//! an extension to a narrower width all fail during monomorphization
//! (`const { assert!(..) }`), i.e. when the offending block is compiled.
//!
//! ```
//! use smrtl::hdl::Bits;
//! let a = Bits::<8>::new(0xa5);
//! let hi: Bits<4> = a.slice::<4, 4>();
//! let w: Bits<12> = hi.concat(a);
//! assert_eq!(w.to_u64(), 0xaa5);
//! ```
//!
//! A slice past the top does not compile:
//!
//! ```compile_fail
//! use smrtl::hdl::Bits;
//! let a = Bits::<8>::new(1);
//! let b: Bits<4> = a.slice::<6, 4>();
//! ```
//!
//! Nor does a concat whose result width is not the sum:
//!
//! ```compile_fail
//! use smrtl::hdl::Bits;
//! let w: Bits<16> = Bits::<8>::new(1).concat(Bits::<4>::new(2));
//! ```
//!
//! Nor a width over 128 bits:
//!
//! ```compile_fail
//! let _ = smrtl::hdl::Bits::<300>::zero();
//! ```

use std::fmt;

/// Number of 64-bit words of storage.
pub const WORDS: usize = 2;
/// Largest supported width.
pub const MAX_WIDTH: usize = 64 * WORDS;

/// A `W`-bit unsigned bit vector.
#[derive(Clone, Copy, Default)]
pub struct Bits<const W: usize> {
    w: [u64; WORDS],
}

#[inline(always)]
const fn top_mask(w: usize) -> u64 {
    if w.is_multiple_of(64) {
        !0
    } else {
        (1u64 << (w % 64)) - 1
    }
}

/// Number of words a `w`-bit value occupies.
#[inline(always)]
pub const fn words_for(w: usize) -> usize {
    w.div_ceil(64)
}

impl<const W: usize> Bits<W> {
    pub(crate) const CHECK: () = assert!(W >= 1 && W <= MAX_WIDTH, "Bits<W>: W must be in 1..=128 (MAX_WIDTH)");
    const NW: usize = words_for(W);

    /// All zeros.
    #[inline(always)]
    pub fn zero() -> Self {
        let () = Self::CHECK;
        Bits { w: [0; WORDS] }
    }

    /// All ones.
    #[inline(always)]
    pub fn ones() -> Self {
        Self::from_words([!0; WORDS])
    }

    /// From words (little-endian), truncated to `W` bits.
    #[inline(always)]
    pub fn from_words(mut w: [u64; WORDS]) -> Self {
        let () = Self::CHECK;
        let mut i = Self::NW;
        while i < WORDS {
            w[i] = 0;
            i += 1;
        }
        w[Self::NW - 1] &= top_mask(W);
        Bits { w }
    }

    /// From a slice of at least `(W+63)/64` words.
    #[inline(always)]
    pub fn from_slice(s: &[u64]) -> Self {
        let mut w = [0u64; WORDS];
        w[..Self::NW].copy_from_slice(&s[..Self::NW]);
        Self::from_words(w)
    }

    /// From a `u64`, truncated to `W` bits.
    #[inline(always)]
    pub fn new(v: u64) -> Self {
        let mut w = [0; WORDS];
        w[0] = v;
        Self::from_words(w)
    }

    /// From a `u128`, truncated to `W` bits.
    #[inline(always)]
    pub fn from_u128(v: u128) -> Self {
        let mut w = [0; WORDS];
        w[0] = v as u64;
        w[1] = (v >> 64) as u64;
        Self::from_words(w)
    }

    /// The width.
    pub const fn width(&self) -> usize {
        W
    }

    /// The low 64 bits.
    #[inline(always)]
    pub fn to_u64(self) -> u64 {
        self.w[0]
    }

    /// The low 128 bits.
    #[inline(always)]
    pub fn to_u128(self) -> u128 {
        self.w[0] as u128 | (self.w[1] as u128) << 64
    }

    /// The storage words.
    #[inline(always)]
    pub fn words(&self) -> &[u64; WORDS] {
        &self.w
    }

    /// Write the `(W+63)/64` significant words into `out`.
    #[inline(always)]
    pub fn write_to(&self, out: &mut [u64]) {
        out[..Self::NW].copy_from_slice(&self.w[..Self::NW]);
    }

    /// Bit `i` (0 = LSB).
    #[inline(always)]
    pub fn bit(self, i: usize) -> bool {
        i < W && (self.w[i / 64] >> (i % 64)) & 1 == 1
    }

    /// True when any bit is set.
    #[inline(always)]
    pub fn any(self) -> bool {
        let mut r = 0;
        for i in 0..Self::NW {
            r |= self.w[i];
        }
        r != 0
    }

    /// Wrapping add.
    #[inline(always)]
    pub fn add(self, o: Self) -> Self {
        if W <= 64 {
            return Self::new(self.w[0].wrapping_add(o.w[0]));
        }
        self.ripple(o, u64::overflowing_add)
    }

    /// Wrapping subtract.
    #[inline(always)]
    pub fn sub(self, o: Self) -> Self {
        if W <= 64 {
            return Self::new(self.w[0].wrapping_sub(o.w[0]));
        }
        self.ripple(o, u64::overflowing_sub)
    }

    /// Word-wise `f` (`overflowing_add` or `_sub`) with the carry or
    /// borrow rippling from word to word.
    #[inline(always)]
    fn ripple(self, o: Self, f: impl Fn(u64, u64) -> (u64, bool)) -> Self {
        let mut r = [0u64; WORDS];
        let mut c = false;
        for i in 0..Self::NW {
            let (s1, c1) = f(self.w[i], o.w[i]);
            let (s2, c2) = f(s1, c as u64);
            r[i] = s2;
            c = c1 | c2;
        }
        Self::from_words(r)
    }

    #[inline(always)]
    fn zip(self, o: Self, f: impl Fn(u64, u64) -> u64) -> Self {
        let mut r = [0u64; WORDS];
        for i in 0..Self::NW {
            r[i] = f(self.w[i], o.w[i]);
        }
        Bits { w: r }
    }

    /// Bitwise and.
    #[inline(always)]
    pub fn and(self, o: Self) -> Self {
        self.zip(o, |a, b| a & b)
    }
    /// Bitwise or.
    #[inline(always)]
    pub fn or(self, o: Self) -> Self {
        self.zip(o, |a, b| a | b)
    }
    /// Bitwise xor.
    #[inline(always)]
    pub fn xor(self, o: Self) -> Self {
        self.zip(o, |a, b| a ^ b)
    }
    /// Bitwise not.
    #[inline(always)]
    pub fn not(self) -> Self {
        let mut r = [0u64; WORDS];
        for i in 0..Self::NW {
            r[i] = !self.w[i];
        }
        Self::from_words(r)
    }

    /// A shift by `n` that needs no word loop: zero when `n >= W`, `one`
    /// of the only word when the value has one.
    #[inline(always)]
    fn shift_short(self, n: u64, one: impl Fn(u64) -> u64) -> Option<Self> {
        if n >= W as u64 {
            Some(Self::zero())
        } else if W <= 64 {
            Some(Self::new(one(self.w[0])))
        } else {
            None
        }
    }

    /// Shift left by `n` (zero when `n >= W`).
    #[inline(always)]
    pub fn shl(self, n: u64) -> Self {
        if let Some(r) = self.shift_short(n, |w| w << n) {
            return r;
        }
        let (ws, bs) = ((n / 64) as usize, (n % 64) as u32);
        let mut r = [0u64; WORDS];
        for i in (ws..Self::NW).rev() {
            let lo = self.w[i - ws];
            r[i] = lo << bs;
            if bs != 0 && i > ws {
                r[i] |= self.w[i - ws - 1] >> (64 - bs);
            }
        }
        Self::from_words(r)
    }

    /// Logical shift right by `n` (zero when `n >= W`).
    #[inline(always)]
    pub fn shr(self, n: u64) -> Self {
        if let Some(r) = self.shift_short(n, |w| w >> n) {
            return r;
        }
        let (ws, bs) = ((n / 64) as usize, (n % 64) as u32);
        let mut r = [0u64; WORDS];
        for i in 0..Self::NW - ws {
            r[i] = self.w[i + ws] >> bs;
            if bs != 0 && i + ws + 1 < Self::NW {
                r[i] |= self.w[i + ws + 1] << (64 - bs);
            }
        }
        Self::from_words(r)
    }

    /// Arithmetic shift right by `n` (all sign bits when `n >= W`).
    #[inline(always)]
    pub fn sar(self, n: u64) -> Self {
        let neg = self.bit(W - 1);
        if !neg {
            return self.shr(n);
        }
        if n >= W as u64 {
            return Self::ones();
        }
        // Fill the vacated top n bits with ones.
        self.shr(n).or(Self::ones().shl(W as u64 - n))
    }

    /// Unsigned less-than.
    #[inline(always)]
    pub fn ult(self, o: Self) -> bool {
        for i in (0..Self::NW).rev() {
            if self.w[i] != o.w[i] {
                return self.w[i] < o.w[i];
            }
        }
        false
    }

    /// Signed (two's complement) less-than.
    #[inline(always)]
    pub fn slt(self, o: Self) -> bool {
        let (sa, sb) = (self.bit(W - 1), o.bit(W - 1));
        if sa != sb {
            sa
        } else {
            self.ult(o)
        }
    }

    /// Bits `LO .. LO+N`.
    #[inline(always)]
    pub fn slice<const LO: usize, const N: usize>(self) -> Bits<N> {
        const { assert!(LO + N <= W, "slice past the top of the vector") };
        if W <= 64 {
            return Bits::<N>::new(self.w[0] >> LO);
        }
        let s = self.shr(LO as u64);
        Bits::<N>::from_words(s.w)
    }

    /// `{self, lo}`: self in the high bits. `N` must be `W + M`.
    #[inline(always)]
    pub fn concat<const M: usize, const N: usize>(self, lo: Bits<M>) -> Bits<N> {
        const { assert!(N == W + M, "concat: result width must be the sum of the operand widths") };
        if N <= 64 {
            return Bits::<N>::new((self.w[0] << M) | lo.w[0]);
        }
        let hi = Bits::<N>::from_words(self.w).shl(M as u64);
        hi.or(Bits::<N>::from_words(lo.w))
    }

    /// Zero-extend to `N >= W` bits.
    #[inline(always)]
    pub fn zext<const N: usize>(self) -> Bits<N> {
        const { assert!(N >= W, "zext to a narrower width") };
        Bits::<N>::from_words(self.w)
    }

    /// The low `N` bits, zero-extended when `N > W`.
    #[inline(always)]
    pub fn resize<const N: usize>(self) -> Bits<N> {
        Bits::<N>::from_words(self.w)
    }

    /// Sign-extend to `N >= W` bits.
    #[inline(always)]
    pub fn sext<const N: usize>(self) -> Bits<N> {
        const { assert!(N >= W, "sext to a narrower width") };
        let z = Bits::<N>::from_words(self.w);
        if self.bit(W - 1) && N > W {
            z.or(Bits::<N>::ones().shl(W as u64))
        } else {
            z
        }
    }

    /// Product of `self` and `o`, both zero-extended, truncated to `N` bits
    /// (`N = W + M` is the full widening product).
    #[inline(always)]
    pub fn mul<const M: usize, const N: usize>(self, o: Bits<M>) -> Bits<N> {
        const { assert!(N >= W && N >= M, "mul: result narrower than an operand") };
        if N <= 64 {
            return Bits::<N>::new(self.w[0].wrapping_mul(o.w[0]));
        }
        if N <= 128 {
            return Bits::<N>::from_u128(self.to_u128().wrapping_mul(o.to_u128()));
        }
        let mut r = [0u64; WORDS];
        for i in 0..Self::NW {
            let mut carry: u128 = 0;
            for j in 0..words_for(M) {
                if i + j >= WORDS {
                    break;
                }
                let t = self.w[i] as u128 * o.w[j] as u128 + r[i + j] as u128 + carry;
                r[i + j] = t as u64;
                carry = t >> 64;
            }
            let k = i + words_for(M);
            if k < WORDS {
                r[k] = r[k].wrapping_add(carry as u64);
            }
        }
        Bits::<N>::from_words(r)
    }
}

impl<const W: usize> std::hash::Hash for Bits<W> {
    /// Hashes the significant words, the same ones `eq` compares.
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.w[..Self::NW].hash(h);
    }
}

impl<const W: usize> PartialEq for Bits<W> {
    /// Compares only the `(W+63)/64` significant words (the rest are zero),
    /// word by word, so narrow compares stay scalar.
    #[inline(always)]
    fn eq(&self, o: &Self) -> bool {
        if W <= 64 {
            return self.w[0] == o.w[0];
        }
        let mut d = 0;
        for i in 0..Self::NW {
            d |= self.w[i] ^ o.w[i];
        }
        d == 0
    }
}
impl<const W: usize> Eq for Bits<W> {}

impl<const W: usize> fmt::Debug for Bits<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{W}'h{self:x}")
    }
}

impl<const W: usize> fmt::LowerHex for Bits<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex_words(&self.w, W))
    }
}

/// Hex digits of a `width`-bit value held in little-endian words, no prefix,
/// exactly `ceil(width/4)` digits.
pub fn hex_words(w: &[u64], width: usize) -> String {
    let digits = width.div_ceil(4);
    let mut s = String::with_capacity(digits);
    for d in (0..digits).rev() {
        let nib = (w[d * 4 / 64] >> ((d * 4) % 64)) & 0xf;
        s.push(char::from_digit(nib as u32, 16).unwrap());
    }
    s
}

/// Pack `n` elements of `w` bits, each stored in `words_for(w)` words of
/// `src` (element 0 first), into one bit vector (element k at bit `k*w`).
/// Bits of `src` above `w` are ignored. Word-wise: each 64-bit chunk of an
/// element is shifted into place (one or two destination words).
pub fn pack_elems(src: &[u64], w: usize, n: usize, out: &mut Vec<u64>) {
    out.clear();
    out.resize(words_for(w * n), 0);
    let nw = words_for(w);
    for k in 0..n {
        let mut at = k * w;
        let mut left = w;
        let mut j = 0;
        while left > 0 {
            let take = left.min(64);
            let v = src[k * nw + j] & low_mask(take);
            let (wi, bi) = (at / 64, at % 64);
            out[wi] |= v << bi;
            if bi != 0 && bi + take > 64 {
                out[wi + 1] |= v >> (64 - bi);
            }
            at += take;
            left -= take;
            j += 1;
        }
    }
}

/// Inverse of [`pack_elems`].
pub fn unpack_elems(packed: &[u64], w: usize, n: usize, out: &mut [u64]) {
    let nw = words_for(w);
    out[..n * nw].fill(0);
    for k in 0..n {
        let mut at = k * w;
        let mut left = w;
        let mut j = 0;
        while left > 0 {
            let take = left.min(64);
            let (wi, bi) = (at / 64, at % 64);
            let mut v = packed[wi] >> bi;
            if bi != 0 && bi + take > 64 {
                v |= packed[wi + 1] << (64 - bi);
            }
            out[k * nw + j] = v & low_mask(take);
            at += take;
            left -= take;
            j += 1;
        }
    }
}

/// The low `n` bits set (`n` in 1..=64).
#[inline(always)]
fn low_mask(n: usize) -> u64 {
    if n >= 64 {
        !0
    } else {
        (1u64 << n) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn big(v: &Bits<120>) -> u128 {
        v.to_u128()
    }

    #[test]
    fn masking_and_basic_ops() {
        let a = Bits::<8>::new(0x1ff);
        assert_eq!(a.to_u64(), 0xff);
        assert_eq!(a.add(Bits::new(1)).to_u64(), 0);
        assert_eq!(Bits::<8>::new(0).sub(Bits::new(1)).to_u64(), 0xff);
        assert_eq!(Bits::<8>::new(0x80).sar(3).to_u64(), 0xf0);
        assert_eq!(Bits::<8>::new(0x0f).not().to_u64(), 0xf0);
        assert!(Bits::<8>::new(0x80).slt(Bits::new(1)));
        assert!(!Bits::<8>::new(0x80).ult(Bits::new(1)));
        assert_eq!(Bits::<8>::new(0xa5).slice::<4, 4>().to_u64(), 0xa);
        assert_eq!(Bits::<4>::new(0xa).concat::<4, 8>(Bits::new(5)).to_u64(), 0xa5);
        assert_eq!(Bits::<4>::new(0xa).sext::<8>().to_u64(), 0xfa);
        assert_eq!(format!("{:?}", Bits::<12>::new(0xabc)), "12'habc");
    }

    #[test]
    fn wide_109_bit_add_carries_across_words() {
        // The FP64 FMA adder's width.
        let a = Bits::<109>::from_words([!0, 0]);
        let s = a.add(Bits::new(1));
        assert_eq!(s.words(), &[0, 1]);
        let top = Bits::<109>::ones();
        assert_eq!(top.add(Bits::new(1)), Bits::zero());
        assert_eq!(top.words()[1], (1 << 45) - 1);
        let full = Bits::<128>::ones();
        assert_eq!(full.add(Bits::new(1)), Bits::zero());
        assert_eq!(Bits::<128>::from_words([!0, 5]).add(Bits::new(1)).words(), &[0, 6]);
    }

    #[test]
    fn wide_mul_matches_schoolbook_in_u128_range() {
        let a = Bits::<60>::from_u128(0xead_beef_1234_5678);
        let b = Bits::<60>::from_u128(0x1_0000_0001);
        let p: Bits<120> = a.mul(b);
        assert_eq!(big(&p), 0xead_beef_1234_5678_u128 * 0x1_0000_0001);
        // 128-bit product of two 64-bit all-ones values: (2^64-1)^2 =
        // 2^128 - 2^65 + 1.
        let m = Bits::<64>::ones();
        let p: Bits<128> = m.mul(m);
        assert_eq!(p.words(), &[1, 0xffff_ffff_ffff_fffe]);
        // The FP64 significand product, 53 x 53 -> 106 bits.
        let s = Bits::<53>::ones();
        let p: Bits<106> = s.mul(s);
        assert_eq!(p.to_u128(), ((1u128 << 53) - 1) * ((1u128 << 53) - 1));
    }

    #[test]
    fn pack_unpack_round_trip() {
        let src: Vec<u64> = (0..32u64).map(|k| k * 0x0101 + 3).collect();
        let mut packed = vec![];
        pack_elems(&src, 16, 32, &mut packed);
        assert_eq!(packed.len(), 8);
        assert_eq!(packed[0] & 0xffff, 3);
        assert_eq!((packed[0] >> 16) & 0xffff, 0x0104);
        let mut back = vec![0u64; 32];
        unpack_elems(&packed, 16, 32, &mut back);
        assert_eq!(back, src);
    }

    /// Bit-at-a-time packing, the reference for the word-wise one.
    fn pack_bitwise(src: &[u64], w: usize, n: usize) -> Vec<u64> {
        let nw = words_for(w);
        let mut out = vec![0u64; words_for(w * n)];
        for k in 0..n {
            for b in 0..w {
                if (src[k * nw + b / 64] >> (b % 64)) & 1 == 1 {
                    let at = k * w + b;
                    out[at / 64] |= 1 << (at % 64);
                }
            }
        }
        out
    }

    proptest! {
        #[test]
        fn pack_matches_bitwise_reference(w in 1usize..200, n in 1usize..40, seed: u64) {
            use rand::{Rng, SeedableRng};
            let mut r = rand::rngs::SmallRng::seed_from_u64(seed);
            let nw = words_for(w);
            let src: Vec<u64> = (0..n * nw).map(|_| r.gen()).collect();
            let mut packed = vec![];
            pack_elems(&src, w, n, &mut packed);
            prop_assert_eq!(&packed, &pack_bitwise(&src, w, n));
            let mut back = vec![0u64; n * nw];
            unpack_elems(&packed, w, n, &mut back);
            for k in 0..n {
                for j in 0..nw {
                    let keep = if (j + 1) * 64 <= w { !0 } else { (1u64 << (w - j * 64)) - 1 };
                    prop_assert_eq!(back[k * nw + j], src[k * nw + j] & keep);
                }
            }
        }
    }

    proptest! {
        #[test]
        fn ops_match_u128_reference(a: u128, b: u128, n in 0u64..140) {
            let m = (1u128 << 100) - 1;
            let (x, y) = (Bits::<100>::from_u128(a), Bits::<100>::from_u128(b));
            let (a, b) = (a & m, b & m);
            prop_assert_eq!(x.add(y).to_u128(), a.wrapping_add(b) & m);
            prop_assert_eq!(x.sub(y).to_u128(), a.wrapping_sub(b) & m);
            prop_assert_eq!(x.shl(n).to_u128(), if n >= 100 { 0 } else { (a << n) & m });
            prop_assert_eq!(x.shr(n).to_u128(), if n >= 100 { 0 } else { a >> n });
            prop_assert_eq!(x.ult(y), a < b);
            let sa = ((a << 28) as i128) >> 28;
            let sb = ((b << 28) as i128) >> 28;
            prop_assert_eq!(x.slt(y), sa < sb);
            prop_assert_eq!(x.sar(n).to_u128(), ((sa >> n.min(127)) as u128) & m);
            prop_assert_eq!(x.slice::<30, 50>().to_u128(), (a >> 30) & ((1 << 50) - 1));
            let c: Bits<128> = x.slice::<0, 28>().concat(y);
            prop_assert_eq!(c.shr(100).to_u128(), a & ((1 << 28) - 1));
            prop_assert_eq!(c.slice::<0, 100>().to_u128(), b);
        }

        #[test]
        fn narrow_ops_match_u32(a: u32, b: u32) {
            let (x, y) = (Bits::<32>::new(a as u64), Bits::<32>::new(b as u64));
            prop_assert_eq!(x.add(y).to_u64() as u32, a.wrapping_add(b));
            let p: Bits<64> = x.mul(y);
            prop_assert_eq!(p.to_u64(), a as u64 * b as u64);
            let q: Bits<32> = x.mul(y);
            prop_assert_eq!(q.to_u64() as u32, a.wrapping_mul(b));
            prop_assert_eq!(x.sext::<64>().to_u64(), a as i32 as i64 as u64);
        }
    }
}
