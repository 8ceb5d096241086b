//! Floating-point datapath building blocks, written as hardware over the
//! substrate's signals: leading-zero normalizer, sticky right shifter,
//! aligned adder, rounder for the four ISA modes, multiplier arrays, and the
//! complete FP32/FP64 operations the SP lanes, the FP64 unit and the SFU
//! instantiate.
//!
//! Every function is generic over the [`Backend`] (so it runs natively in
//! the simulator and records a netlist in the tracing backend) and, where
//! the two formats share the structure, over the format widths, so the FP32
//! lane and the FP64 unit use one datapath. The format widths are const
//! parameters named alike everywhere:
//!
//! | param | meaning | FP32 | FP64 |
//! |---|---|---|---|
//! | `N` | encoding width | 32 | 64 |
//! | `E` | exponent field | 8 | 11 |
//! | `F` | fraction field | 23 | 52 |
//! | `P` | significand (F + 1) | 24 | 53 |
//! | `P2` | product (2P) | 48 | 106 |
//! | `D` | adder window (2P + 3) | 51 | 109 |
//! | `MW` | packed magnitude (N + 16, signed) | 48 | 80 |
//!
//! # The datapath
//!
//! ```text
//!  a b c --unpack--> sign, exponent (16-bit two's complement), significand
//!  a.sig x b.sig ---multiplier array (P x P -> 2P)---> normalize (LZC)
//!  c.sig --------------------------------------------> normalize (LZC)
//!        both placed with the leading one at bit T = D-2 of a D-bit window
//!  compare (exp, sig) -> swap -> smaller shifted right with sticky (jam)
//!  add / subtract (D bits) -> normalize (LZC) -> leading one at T
//!  round: optional shift to the subnormal position (sticky), increment
//!         by mode (RN half / RP,RM all-ones / RZ none), tie-to-even fix,
//!         pack (exponent + significand, the carry adds into the exponent),
//!         overflow per mode, optional flush of results below the normal
//!         range (Tesla)
//! ```
//!
//! The window keeps two spare bits below the product and the addend, so an
//! exponent difference of 0 or 1 (the only case with cancellation) loses no
//! bit, and a larger difference leaves a sticky bit far below the rounding
//! position. Exponents are 16-bit two's complement (`XW`): the FP64 product
//! exponent spans about -2200..2100.
//!
//! # Flavours
//!
//! * IEEE 754-2008 ([`fma`], used as FFMA/FADD/FMUL and DFMA/DADD/DMUL):
//!   subnormals in and out, one rounding, every NaN result the canonical
//!   NaN (`0x7fffffff`, `0x7fffffffffffffff`), exact zero sums `+0` except
//!   `-0` in RM, `0 * inf` invalid whatever the addend. No exception flags
//!   (the ISA has none).
//! * Tesla/GT200 FP32 ([`tesla_fmul`], [`tesla_fadd`], [`tesla_fmad`],
//!   shared in the lane by [`tesla_fp32`]): denormal inputs flushed, NaN
//!   and invalid give the canonical NaN, rounding with an unbounded exponent
//!   then results below 2^-126 flushed to a signed zero, `x + (-x) = +0` in
//!   every mode; FMAD truncates the product to 24 bits, adds, aligns a tiny
//!   sum to the subnormal grid, rounds to nearest even and flushes; with a
//!   zero operand FMAD is a rounded FMUL then a rounded FADD.
//!
//! None of this code calls or copies `golden::arith`; the tests compare the
//! two, which is only meaningful because they are independent.

use crate::hdl::{Backend, Bits, Sig};

mod units;
pub use units::*;

/// Signal of width `W` in backend `B`.
pub type S<B, const W: usize> = <B as Backend>::S<W>;

/// Exponent work width (two's complement).
pub const XW: usize = 16;

/// FP32 canonical NaN.
pub const NAN32: u64 = 0x7fff_ffff;
/// FP64 canonical NaN.
pub const NAN64: u64 = 0x7fff_ffff_ffff_ffff;

/// A constant.
#[inline(always)]
pub fn k<B: Backend, const W: usize>(v: u64) -> S<B, W> {
    B::lit(Bits::<W>::new(v))
}

/// A 16-bit (exponent-width) constant from a signed value.
#[inline(always)]
pub fn kx<B: Backend>(v: i64) -> S<B, XW> {
    B::lit(Bits::<XW>::new(v as u64))
}

/// Bits `[lo, lo+N)` of `x` with a shift amount known at elaboration.
#[inline(always)]
pub fn field<B: Backend, const W: usize, const N: usize>(x: S<B, W>, lo: usize) -> S<B, N> {
    x.shr(k::<B, XW>(lo as u64)).slice::<0, N>()
}

/// `x << n` for a constant `n`.
#[inline(always)]
pub fn shl_c<B: Backend, const W: usize>(x: S<B, W>, n: usize) -> S<B, W> {
    x.shl(k::<B, XW>(n as u64))
}

/// `x >> n` for a constant `n`.
#[inline(always)]
pub fn shr_c<B: Backend, const W: usize>(x: S<B, W>, n: usize) -> S<B, W> {
    x.shr(k::<B, XW>(n as u64))
}

/// Leading-zero normalizer: returns `x` shifted left until its top bit is
/// set, and the shift (the leading-zero count, 16 bits). A log-depth chain
/// of "top 2^s bits zero? shift by 2^s" stages; for `x == 0` the count is
/// `2^ceil(log2 W) - 1` and the value stays 0 (callers flag zero apart).
#[inline(always)]
pub fn normalize<B: Backend, const W: usize>(x: S<B, W>) -> (S<B, W>, S<B, XW>) {
    let zero = k::<B, W>(0);
    let mut x = x;
    let mut n = k::<B, XW>(0);
    let stages = usize::BITS - (W.max(2) - 1).leading_zeros();
    for s in (0..stages).rev() {
        let step = 1usize << s;
        if step >= W {
            continue;
        }
        let top_zero = shr_c::<B, W>(x, W - step).eq(zero);
        x = top_zero.mux(shl_c::<B, W>(x, step), x);
        n = n | top_zero.mux(k::<B, XW>(step as u64), k::<B, XW>(0));
    }
    (x, n)
}

/// Logical right shift by `n` with every bit shifted out ORed into bit 0
/// (sticky). Any `n >= W` leaves only the sticky bit.
#[inline(always)]
pub fn shr_jam<B: Backend, const W: usize>(x: S<B, W>, n: S<B, XW>) -> S<B, W> {
    let ones = !k::<B, W>(0);
    let lost = x & !ones.shl(n);
    x.shr(n) | lost.any().zext::<W>()
}

/// `shr_jam` by one bit.
#[inline(always)]
pub fn shr1_jam<B: Backend, const W: usize>(x: S<B, W>) -> S<B, W> {
    shr_c::<B, W>(x, 1) | x.slice::<0, 1>().zext::<W>()
}

/// An unpacked IEEE operand.
#[derive(Clone, Copy)]
pub struct Unpacked<B: Backend, const P: usize> {
    pub sign: S<B, 1>,
    pub zero: S<B, 1>,
    pub inf: S<B, 1>,
    pub nan: S<B, 1>,
    /// Effective biased exponent (1 for zero and subnormals).
    pub exp: S<B, XW>,
    /// Significand with the hidden bit (0 for subnormals).
    pub sig: S<B, P>,
}

/// Unpack an IEEE encoding. With `flush`, a subnormal reads as a zero of
/// its sign (Tesla).
#[inline(always)]
pub fn unpack<B: Backend, const N: usize, const E: usize, const F: usize, const P: usize>(
    x: S<B, N>,
    flush: bool,
) -> Unpacked<B, P> {
    const { assert!(P == F + 1 && N == E + F + 1) };
    let frac = x.slice::<0, F>();
    let ef = field::<B, N, E>(x, F);
    let sign = field::<B, N, 1>(x, N - 1);
    let e_zero = ef.eq(k::<B, E>(0));
    let e_ones = ef.eq(!k::<B, E>(0));
    let f_zero = frac.eq(k::<B, F>(0));
    let hidden = !e_zero;
    let sig: S<B, P> = hidden.concat::<F, P>(frac);
    let exp = e_zero.mux(k::<B, XW>(1), ef.zext::<XW>());
    let zero = if flush { e_zero } else { e_zero & f_zero };
    Unpacked {
        sign,
        zero,
        inf: e_ones & f_zero,
        nan: e_ones & !f_zero,
        exp,
        sig,
    }
}

/// Round the nonzero value `(-1)^sign * r * 2^(e - T)` (leading one of `r`
/// at bit `T = D-2`, sticky in the low bits) to format `(N, E, F)` in ISA
/// mode `rm` (0 RN, 1 RZ, 2 RM, 3 RP).
///
/// * `denorm`: a value below the normal range is first shifted to the
///   subnormal position (IEEE, and FMAD's subnormal grid); otherwise the
///   exponent is unbounded.
/// * `flush`: a rounded result below 2^emin becomes a zero of its sign.
///
/// Two halves, a pipeline cut apart in the SP lane: [`round_shift`] and
/// [`round_fin`].
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn round_pack<B: Backend, const N: usize, const E: usize, const F: usize, const D: usize, const MW: usize>(
    sign: S<B, 1>,
    e: S<B, XW>,
    r: S<B, D>,
    rm: S<B, 2>,
    denorm: S<B, 1>,
    flush: S<B, 1>,
) -> S<B, N> {
    let (be, r) = round_shift::<B, E, D>(e, r, denorm);
    round_fin::<B, N, E, F, D, MW>(sign, be, r, rm, flush)
}

/// First half of [`round_pack`]: the biased exponent and, with `denorm`,
/// the shift of a value below the normal range to the subnormal position.
/// Returns `(be, r)` for [`round_fin`].
#[inline(always)]
pub fn round_shift<B: Backend, const E: usize, const D: usize>(
    e: S<B, XW>,
    r: S<B, D>,
    denorm: S<B, 1>,
) -> (S<B, XW>, S<B, D>) {
    let bias = (1i64 << (E - 1)) - 1;
    let be = e + kx::<B>(bias);
    let tiny = be.slt(kx::<B>(1));
    let do_den = denorm & tiny;
    let r = do_den.mux(shr_jam::<B, D>(r, kx::<B>(1) - be), r);
    (do_den.mux(kx::<B>(1), be), r)
}

/// Second half of [`round_pack`]: increment by mode, tie-to-even, pack,
/// overflow and flush, from the biased exponent `be` and window `r` of
/// [`round_shift`].
#[inline(always)]
pub fn round_fin<B: Backend, const N: usize, const E: usize, const F: usize, const D: usize, const MW: usize>(
    sign: S<B, 1>,
    be: S<B, XW>,
    r: S<B, D>,
    rm: S<B, 2>,
    flush: S<B, 1>,
) -> S<B, N> {
    const { assert!(D <= 256 && N + 16 == MW && D >= N && D - 2 > F + 1) };
    let t = D - 2;
    let rb = t - F;
    let mask = k::<B, D>((1u64 << rb) - 1);
    let half = k::<B, D>(1u64 << (rb - 1));
    let rbits = r & mask;
    let rm_rn = rm.eq(k::<B, 2>(0));
    let up = (rm.eq(k::<B, 2>(3)) & !sign) | (rm.eq(k::<B, 2>(2)) & sign);
    let inc = rm_rn.mux(half, up.mux(mask, k::<B, D>(0)));
    let s = shr_c::<B, D>(r + inc, rb);
    let tie = rm_rn & rbits.eq(half);
    let s = s & !tie.zext::<D>();
    let s: S<B, MW> = s.slice::<0, N>().zext::<MW>();
    let mag = shl_c::<B, MW>((be - kx::<B>(1)).sext::<MW>(), F) + s;
    let inf = k::<B, MW>(((1u64 << E) - 1) << F);
    let overflow = !mag.slt(inf);
    let tiny_out = flush & mag.slt(k::<B, MW>(1u64 << F));
    let away = rm_rn | up;
    let ovf = away.mux(inf, inf - k::<B, MW>(1));
    let m = overflow.mux(ovf, tiny_out.mux(k::<B, MW>(0), mag));
    let m: S<B, N> = m.slice::<0, N>();
    shl_c::<B, N>(sign.zext::<N>(), N - 1) | m
}

// The exact sum of two values `(-1)^s * x * 2^(e - T)` in a `D`-bit window
// (leading ones at `T = D-2`; operand 2 reads as zero when `z2`), as the
// four pipeline stages of the FP units (`units.rs`): [`add_swap`],
// [`add_shift`], [`add_add`], [`add_norm`].

/// The two addends of the sum, ordered by magnitude ([`add_swap`]) and
/// aligned ([`add_shift`]).
#[derive(Clone, Copy)]
pub struct Aligned<B: Backend, const D: usize> {
    /// Sign of the larger magnitude (the sum's sign).
    pub sign: S<B, 1>,
    /// Exponent of the larger magnitude.
    pub e: S<B, XW>,
    /// The larger magnitude.
    pub hi: S<B, D>,
    /// The smaller magnitude shifted to `hi`'s exponent (sticky in bit 0).
    pub lo: S<B, D>,
    /// Effective subtraction.
    pub sub: S<B, 1>,
}

/// The alignment's first part: order the addends by magnitude (compare
/// exponents, then significands). Returns the addends with `lo` not yet
/// shifted (0 when `z2`) and the shift, `hi`'s exponent minus `lo`'s.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn add_swap<B: Backend, const D: usize>(
    s1: S<B, 1>,
    e1: S<B, XW>,
    x1: S<B, D>,
    s2: S<B, 1>,
    e2: S<B, XW>,
    x2: S<B, D>,
    z2: S<B, 1>,
) -> (Aligned<B, D>, S<B, XW>) {
    let swap = !z2 & (e1.slt(e2) | (e1.eq(e2) & x1.ult(x2)));
    let ehi = swap.mux(e2, e1);
    let elo = swap.mux(e1, e2);
    let al = Aligned {
        sign: swap.mux(s2, s1),
        e: ehi,
        hi: swap.mux(x2, x1),
        lo: z2.mux(k::<B, D>(0), swap.mux(x1, x2)),
        sub: s1 ^ s2,
    };
    (al, ehi - elo)
}

/// The alignment's second part: `lo` shifted right by `d` with sticky.
#[inline(always)]
pub fn add_shift<B: Backend, const D: usize>(x: Aligned<B, D>, d: S<B, XW>) -> Aligned<B, D> {
    Aligned {
        lo: shr_jam::<B, D>(x.lo, d),
        ..x
    }
}

/// The aligned addends' sum (`hi - lo` for an effective subtraction).
#[inline(always)]
pub fn add_add<B: Backend, const D: usize>(x: Aligned<B, D>) -> S<B, D> {
    x.sub.mux(x.hi - x.lo, x.hi + x.lo)
}

/// The sum normalized: `(e, r, zero)`, the exponent adjusted by the
/// leading-zero count, the window with its leading one at `T` (sticky in
/// bit 0), and whether the sum is exactly zero.
#[inline(always)]
pub fn add_norm<B: Backend, const D: usize>(e: S<B, XW>, sum: S<B, D>) -> (S<B, XW>, S<B, D>, S<B, 1>) {
    let zero = sum.eq(k::<B, D>(0));
    let (xn, lz) = normalize::<B, D>(sum);
    (e + kx::<B>(1) - lz, shr1_jam::<B, D>(xn), zero)
}

/// A `P`-bit significand placed in the window with its leading one at `T`
/// (normalized with the LZC, so subnormal significands work), and the
/// exponent adjustment (`-shift`) to add to its exponent.
#[inline(always)]
pub(crate) fn place<B: Backend, const P: usize, const D: usize>(sig: S<B, P>) -> (S<B, D>, S<B, XW>) {
    let (xn, lz) = normalize::<B, D>(sig.zext::<D>());
    // The leading one lands at D-1; T = D-2 is one below, and the bit
    // shifted out is a shifted-in zero. A normal significand has lz = D-P.
    (shr_c::<B, D>(xn, 1), kx::<B>((D - P) as i64) - lz)
}

/// `{sign, 0...}`.
#[inline(always)]
pub(crate) fn signed_zero<B: Backend, const N: usize>(sign: S<B, 1>) -> S<B, N> {
    shl_c::<B, N>(sign.zext::<N>(), N - 1)
}

/// `{sign, inf}`.
#[inline(always)]
pub(crate) fn signed_inf<B: Backend, const N: usize, const E: usize, const F: usize>(sign: S<B, 1>) -> S<B, N> {
    signed_zero::<B, N>(sign) | k::<B, N>(((1u64 << E) - 1) << F)
}

// ------------------------------------------------------ compare, min/max

/// Relation of two IEEE values as a one-hot nibble: bit 0 less, 1 equal,
/// 2 greater, 3 unordered (+0 == -0).
#[inline(always)]
pub fn fcmp_rel<B: Backend, const N: usize, const E: usize, const F: usize>(a: S<B, N>, b: S<B, N>) -> S<B, 4> {
    let an = is_nan::<B, N, E, F>(a);
    let bn = is_nan::<B, N, E, F>(b);
    let un = an | bn;
    let mag_mask = k::<B, N>(if N == 64 { u64::MAX >> 1 } else { (1u64 << (N - 1)) - 1 });
    let both_zero = ((a | b) & mag_mask).eq(k::<B, N>(0));
    let eq = !un & (a.eq(b) | both_zero);
    let lt = !un & !eq & order_key::<B, N>(a).ult(order_key::<B, N>(b));
    let gt = !un & !eq & !lt;
    un.concat::<3, 4>(gt.concat::<2, 3>(eq.concat::<1, 2>(lt)))
}

/// FSETP/DSETP: the 4-bit condition code has a bit per relation
/// (`docs/isa.md`); true when the operands' relation has its bit set.
#[inline(always)]
pub fn fsetp<B: Backend, const N: usize, const E: usize, const F: usize>(
    code: S<B, 4>,
    a: S<B, N>,
    b: S<B, N>,
) -> S<B, 1> {
    (code & fcmp_rel::<B, N, E, F>(a, b)).any()
}

/// NaN test.
#[inline(always)]
pub fn is_nan<B: Backend, const N: usize, const E: usize, const F: usize>(x: S<B, N>) -> S<B, 1> {
    let ef = field::<B, N, E>(x, F);
    ef.eq(!k::<B, E>(0)) & x.slice::<0, F>().ne(k::<B, F>(0))
}

/// Monotonic unsigned key of a non-NaN encoding (-0 < +0).
#[inline(always)]
fn order_key<B: Backend, const N: usize>(x: S<B, N>) -> S<B, N> {
    let sign = field::<B, N, 1>(x, N - 1);
    let top = signed_zero::<B, N>(k::<B, 1>(1));
    sign.mux(!x, x | top)
}

/// FMIN (`max = 0`) / FMAX (`max = 1`) on FP32: IEEE minNum/maxNum, a NaN
/// operand yields the other, two NaNs the canonical NaN, -0 < +0.
#[inline(always)]
pub fn f32_minmax<B: Backend>(max: S<B, 1>, a: S<B, 32>, b: S<B, 32>) -> S<B, 32> {
    let an = is_nan::<B, 32, 8, 23>(a);
    let bn = is_nan::<B, 32, 8, 23>(b);
    let (ka, kb) = (order_key::<B, 32>(a), order_key::<B, 32>(b));
    // min picks a when ka <= kb; max picks a when ka >= kb.
    let pick_a = max.mux(!ka.ult(kb), !kb.ult(ka));
    let r = pick_a.mux(a, b);
    let r = an.mux(b, bn.mux(a, r));
    (an & bn).mux(k::<B, 32>(NAN32), r)
}

// ----------------------------------------------------------- conversions

/// 32-bit integer (signed when `signed`) to format `(N, E, F)`, rounded in
/// `rm`. Two halves, a pipeline cut apart in the SP lane:
/// [`int_to_fp_norm`] and [`int_to_fp_round`].
#[inline(always)]
pub fn int_to_fp<B: Backend, const N: usize, const E: usize, const F: usize, const D: usize, const MW: usize>(
    x: S<B, 32>,
    signed: S<B, 1>,
    rm: S<B, 2>,
) -> S<B, N> {
    let (neg, zero, e, xn) = int_to_fp_norm::<B, D>(x, signed);
    int_to_fp_round::<B, N, E, F, D, MW>(neg, zero, e, xn, rm)
}

/// First half of [`int_to_fp`]: the magnitude normalized in the window
/// (leading one at the top bit). Returns `(negative, zero, exponent,
/// window)`.
#[inline(always)]
pub fn int_to_fp_norm<B: Backend, const D: usize>(
    x: S<B, 32>,
    signed: S<B, 1>,
) -> (S<B, 1>, S<B, 1>, S<B, XW>, S<B, D>) {
    let neg = signed & x.slice::<31, 1>();
    let mag = neg.mux(k::<B, 32>(0) - x, x);
    let (xn, lz) = normalize::<B, D>(mag.zext::<D>());
    (neg, mag.eq(k::<B, 32>(0)), kx::<B>(D as i64 - 1) - lz, xn)
}

/// Second half of [`int_to_fp`]: round and pack (0 for a zero input).
#[inline(always)]
pub fn int_to_fp_round<B: Backend, const N: usize, const E: usize, const F: usize, const D: usize, const MW: usize>(
    neg: S<B, 1>,
    zero: S<B, 1>,
    e: S<B, XW>,
    xn: S<B, D>,
    rm: S<B, 2>,
) -> S<B, N> {
    // A nonzero 32-bit integer is at least 1, never below the normal
    // range of FP32 or FP64: no subnormal shift (`denorm` 0).
    let z = k::<B, 1>(0);
    let r = round_pack::<B, N, E, F, D, MW>(neg, e, shr_c::<B, D>(xn, 1), rm, z, z);
    zero.mux(k::<B, N>(0), r)
}

/// [`int_to_fp_round`] where the format holds every 32-bit integer
/// exactly (FP64: I2D): no rounding, [`pack_exact`].
#[inline(always)]
pub fn int_to_fp_exact<B: Backend, const N: usize, const E: usize, const F: usize, const D: usize>(
    neg: S<B, 1>,
    zero: S<B, 1>,
    e: S<B, XW>,
    xn: S<B, D>,
) -> S<B, N> {
    const { assert!(F >= 31) };
    zero.mux(k::<B, N>(0), pack_exact::<B, N, E, F, D>(neg, e, shr_c::<B, D>(xn, 1)))
}

/// Pack a nonzero value the format holds exactly and in its normal range
/// (a 32-bit integer or an FP32 value in FP64): the window `r` has its
/// leading one at `T = D-2` and no bits below the fraction, so rounding in
/// any mode changes nothing and the fields are wiring: the biased exponent
/// `e + bias` and the `F` bits below the leading one ([`round_pack`] of
/// such a value, without its adders and range checks).
#[inline(always)]
pub fn pack_exact<B: Backend, const N: usize, const E: usize, const F: usize, const D: usize>(
    sign: S<B, 1>,
    e: S<B, XW>,
    r: S<B, D>,
) -> S<B, N> {
    const { assert!(D >= N && D - 2 > F && E + F + 1 == N) };
    let bias = (1i64 << (E - 1)) - 1;
    let be: S<B, E> = (e + kx::<B>(bias)).slice::<0, E>();
    let frac: S<B, N> = shr_c::<B, D>(r, D - 2 - F).slice::<0, N>() & k::<B, N>((1u64 << F) - 1);
    signed_zero::<B, N>(sign) | shl_c::<B, N>(be.zext::<N>(), F) | frac
}

/// Format `(N, E, F)` to a 32-bit integer, GPU semantics: rounded in `rm`,
/// saturated to the destination range (signed or unsigned), NaN -> 0. Two
/// halves, a pipeline cut apart in the SP lane: [`fp_to_int_shift`] and
/// [`fp_to_int_round`].
#[inline(always)]
pub fn fp_to_int<B: Backend, const N: usize, const E: usize, const F: usize, const P: usize>(
    x: S<B, N>,
    signed: S<B, 1>,
    rm: S<B, 2>,
) -> S<B, 32> {
    let (v, big, nan, neg) = fp_to_int_shift::<B, N, E, F, P>(x);
    fp_to_int_round::<B>(v, big, nan, neg, signed, rm)
}

/// First half of [`fp_to_int`]: the significand shifted to the integer
/// position with two guard bits (round, sticky). Returns `(v, too big,
/// NaN, negative)`.
#[inline(always)]
pub fn fp_to_int_shift<B: Backend, const N: usize, const E: usize, const F: usize, const P: usize>(
    x: S<B, N>,
) -> (S<B, 64>, S<B, 1>, S<B, 1>, S<B, 1>) {
    let u = unpack::<B, N, E, F, P>(x, false);
    let bias = (1i64 << (E - 1)) - 1;
    // value = sig * 2^(e - F), e = exp - bias; the shift right is F - e,
    // taken from the biased exponent in one subtraction.
    let d = kx::<B>(F as i64 + bias) - u.exp;
    let big = !u.exp.slt(kx::<B>(33 + bias)) | u.inf;
    let x64 = shl_c::<B, 64>(u.sig.zext::<64>(), 2);
    let left = x64.shl(kx::<B>(0) - d);
    let right = shr_jam::<B, 64>(x64, d);
    (d.slt(kx::<B>(0)).mux(left, right), big, u.nan, u.sign)
}

/// Second half of [`fp_to_int`]: round in `rm`, saturate, NaN -> 0.
#[inline(always)]
pub fn fp_to_int_round<B: Backend>(
    v: S<B, 64>,
    big: S<B, 1>,
    nan: S<B, 1>,
    neg: S<B, 1>,
    signed: S<B, 1>,
    rm: S<B, 2>,
) -> S<B, 32> {
    let int = shr_c::<B, 64>(v, 2);
    let g = v.slice::<1, 1>();
    let st = v.slice::<0, 1>();
    let up = rm.eq(k::<B, 2>(0)).mux(
        g & (st | int.slice::<0, 1>()),
        rm.eq(k::<B, 2>(2))
            .mux(neg & (g | st), rm.eq(k::<B, 2>(3)).mux(!neg & (g | st), k::<B, 1>(0))),
    );
    let mag = int + up.zext::<64>();
    let sat = |lim: u64| -> S<B, 64> { (big | k::<B, 64>(lim).ult(mag)).mux(k::<B, 64>(lim), mag) };
    let pos_s = sat(0x7fff_ffff);
    let neg_s = k::<B, 64>(0) - sat(0x8000_0000);
    let pos_u = sat(0xffff_ffff);
    let r = signed.mux(neg.mux(neg_s, pos_s), neg.mux(k::<B, 64>(0), pos_u));
    nan.mux(k::<B, 32>(0), r.slice::<0, 32>())
}

/// I2F: integer to FP32.
#[inline(always)]
pub fn i2f<B: Backend>(x: S<B, 32>, signed: S<B, 1>, rm: S<B, 2>) -> S<B, 32> {
    int_to_fp::<B, 32, 8, 23, 51, 48>(x, signed, rm)
}

/// I2D: integer to FP64 (exact).
#[inline(always)]
pub fn i2d<B: Backend>(x: S<B, 32>, signed: S<B, 1>) -> S<B, 64> {
    let (neg, zero, e, xn) = int_to_fp_norm::<B, 109>(x, signed);
    int_to_fp_exact::<B, 64, 11, 52, 109>(neg, zero, e, xn)
}

/// F2I: FP32 to integer.
#[inline(always)]
pub fn f2i<B: Backend>(x: S<B, 32>, signed: S<B, 1>, rm: S<B, 2>) -> S<B, 32> {
    fp_to_int::<B, 32, 8, 23, 24>(x, signed, rm)
}

/// D2I: FP64 to integer.
#[inline(always)]
pub fn d2i<B: Backend>(x: S<B, 64>, signed: S<B, 1>, rm: S<B, 2>) -> S<B, 32> {
    fp_to_int::<B, 64, 11, 52, 53>(x, signed, rm)
}

/// A conversion between its two halves (a pipeline cut apart in the FP64
/// lane): sign, the operand's class, exponent and the value normalized in
/// a `D`-bit window.
#[derive(Clone, Copy)]
pub struct CvtHalf<B: Backend, const D: usize> {
    pub sign: S<B, 1>,
    pub zero: S<B, 1>,
    pub inf: S<B, 1>,
    pub nan: S<B, 1>,
    pub e: S<B, XW>,
    pub x: S<B, D>,
}

/// F2D: FP32 to FP64 (exact; NaN -> canonical). Two halves:
/// [`f2d_norm`], [`f2d_round`].
#[inline(always)]
pub fn f2d<B: Backend>(x: S<B, 32>) -> S<B, 64> {
    f2d_round::<B>(f2d_norm::<B>(x))
}

/// First half of [`f2d`]: unpack, the significand normalized in the FP64
/// window (D = 109, T = 107).
#[inline(always)]
pub fn f2d_norm<B: Backend>(x: S<B, 32>) -> CvtHalf<B, 109> {
    let u = unpack::<B, 32, 8, 23, 24>(x, false);
    let (xn, lz) = normalize::<B, 109>(u.sig.zext::<109>());
    // A normal significand has its leading one at bit 23 (lz = 85 before
    // the window's one-bit drop to T).
    CvtHalf {
        sign: u.sign,
        zero: u.zero,
        inf: u.inf,
        nan: u.nan,
        e: u.exp - kx::<B>(127) + kx::<B>(85) - lz,
        x: xn,
    }
}

/// Second half of [`f2d`]: pack (exact, [`pack_exact`]), special operands.
#[inline(always)]
pub fn f2d_round<B: Backend>(h: CvtHalf<B, 109>) -> S<B, 64> {
    // Every FP32 value is an FP64 normal: exact.
    let r = pack_exact::<B, 64, 11, 52, 109>(h.sign, h.e, shr_c::<B, 109>(h.x, 1));
    let r = h.zero.mux(signed_zero::<B, 64>(h.sign), r);
    let r = h.inf.mux(signed_inf::<B, 64, 11, 52>(h.sign), r);
    h.nan.mux(k::<B, 64>(NAN64), r)
}

/// D2F: FP64 to FP32 rounded in `rm` (subnormal results; NaN ->
/// canonical). Two halves: [`d2f_norm`], [`d2f_round`].
#[inline(always)]
pub fn d2f<B: Backend>(x: S<B, 64>, rm: S<B, 2>) -> S<B, 32> {
    d2f_round::<B>(d2f_norm::<B>(x), rm)
}

/// First half of [`d2f`]: unpack, normalize, the FP32 window (T = 49).
#[inline(always)]
pub fn d2f_norm<B: Backend>(x: S<B, 64>) -> CvtHalf<B, 51> {
    let u = unpack::<B, 64, 11, 52, 53>(x, false);
    let (xn, lz) = normalize::<B, 64>(u.sig.zext::<64>());
    // Leading one at 63 -> window T = 49: shift right 14 with sticky.
    // A normal significand has its leading one at bit 52 (lz = 11).
    CvtHalf {
        sign: u.sign,
        zero: u.zero,
        inf: u.inf,
        nan: u.nan,
        e: u.exp - kx::<B>(1023) + kx::<B>(11) - lz,
        x: shr_jam::<B, 64>(xn, kx::<B>(14)).slice::<0, 51>(),
    }
}

/// Second half of [`d2f`]: round in `rm`, pack, special operands
/// ([`d2f_shift`], then [`d2f_fin`]).
#[inline(always)]
pub fn d2f_round<B: Backend>(h: CvtHalf<B, 51>, rm: S<B, 2>) -> S<B, 32> {
    d2f_fin::<B>(d2f_shift::<B>(h), rm)
}

/// [`d2f_round`], first part: the biased exponent and the shift of a
/// result below the FP32 normal range to the subnormal position
/// ([`round_shift`]); `e` becomes the biased exponent.
#[inline(always)]
pub fn d2f_shift<B: Backend>(h: CvtHalf<B, 51>) -> CvtHalf<B, 51> {
    let (be, x) = round_shift::<B, 8, 51>(h.e, h.x, k::<B, 1>(1));
    CvtHalf { e: be, x, ..h }
}

/// [`d2f_round`], second part: round in `rm` and pack ([`round_fin`]),
/// special operands.
#[inline(always)]
pub fn d2f_fin<B: Backend>(h: CvtHalf<B, 51>, rm: S<B, 2>) -> S<B, 32> {
    let r = round_fin::<B, 32, 8, 23, 51, 48>(h.sign, h.e, h.x, rm, k::<B, 1>(0));
    let r = h.zero.mux(signed_zero::<B, 32>(h.sign), r);
    let r = h.inf.mux(signed_inf::<B, 32, 8, 23>(h.sign), r);
    h.nan.mux(k::<B, 32>(NAN32), r)
}

#[cfg(test)]
mod tests;
