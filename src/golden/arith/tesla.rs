//! The Tesla/GT200 FP32 datapath (seed 000, SPEC section 3): FADD, FMUL and
//! the unfused FMAD exactly as the hardware computes them, bit for bit.
//!
//! Used by the golden model's interpreter (FADD/FMUL/FMAD on the SP lanes)
//! and by `smrtl testfloat f32_{add,mul,mad}_tesla`. Everything is integer
//! arithmetic on `u64` with no heap, so it is cheap enough for the inner loop.
//!
//! # FADD and FMUL ([`fadd`], [`fmul`])
//!
//! * A denormal input is flushed to a zero of the same sign before anything
//!   else (so `inf * denormal` is `inf * 0`, an invalid operation).
//! * Any NaN input, and every invalid operation (`inf - inf`, `inf * 0`),
//!   gives the canonical NaN `0x7fffffff`. No exception flags exist.
//! * Otherwise the exact result is rounded to 24 significant bits in the
//!   selected mode as if the exponent range were unbounded; a rounded value
//!   below 2^-126 in magnitude then becomes a zero of its sign. (So a value
//!   just under 2^-126 that rounds up to 2^-126 survives.)
//! * Overflow follows the mode as in IEEE: to infinity for the two nearest
//!   modes, to the largest finite value when rounding toward zero, and for
//!   `min`/`max` to infinity only in the direction of rounding.
//! * An exact zero sum is -0 only when both addends are negative (including
//!   negative zeros), in every rounding mode: `x + (-x)` is +0 even when
//!   rounding toward -inf, unlike IEEE.
//! * [`Round::NearMaxMag`] is not a Tesla mode; it is accepted and gives the
//!   IEEE-style ties-away-from-zero result with the rules above (decision:
//!   the callers never pass it for the hardware; rejecting it would need a
//!   `Result` in the inner loop).
//!
//! # FMAD ([`fmad`], nearest-even only)
//!
//! 1. Inputs are flushed and NaNs give the canonical NaN, as for FADD.
//! 2. `inf * 0` is invalid (canonical NaN), as IEEE.
//! 3. A infinite `c` gives `c`, unless the product is an infinity of the
//!    other sign (`inf - inf`, canonical NaN, as IEEE).
//! 4. An infinite product (a or b infinite, c finite) gives that infinity.
//! 5. If `a`, `b` or `c` is zero (after flushing), the result is
//!    `fadd(fmul(a, b, NearEven), c, NearEven)`: a rounded multiply then a
//!    rounded add.
//! 6. Otherwise the exact 48-bit product is normalized and truncated toward
//!    zero to 24 significant bits, keeping an unbounded exponent (a product
//!    beyond 2^128 is not infinity yet; one below 2^-126 is not zero yet).
//!    It is added to `c` exactly (the guard/round/sticky adder gives the
//!    correctly rounded sum). A sum below 2^-126 is aligned to the denormal
//!    grid (multiples of 2^-149) before it is rounded to nearest even; a
//!    rounded result below 2^-126 becomes a zero of its sign, and an
//!    overflowing one becomes infinity (nearest even).
//! 7. An exact zero sum is -0 only when the product and `c` are both
//!    negative (in step 6 that cannot happen, since a zero sum needs
//!    opposite signs, so it is +0).
use super::{Round, F32_CANONICAL_NAN};

const SIGN: u32 = 0x8000_0000;
const INF: u32 = 0x7f80_0000;
const MAX_FINITE: u32 = 0x7f7f_ffff;

/// An FP32 operand after denormal flushing.
#[derive(Clone, Copy)]
enum Class {
    Zero,
    /// The value `m * 2^e`, with `m` a 24-bit significand (bit 23 set).
    Finite {
        e: i32,
        m: u64,
    },
    Inf,
    Nan,
}

/// Splits `x` into its sign and class, flushing a denormal to zero.
#[inline(always)]
fn unpack(x: u32) -> (bool, Class) {
    let neg = x & SIGN != 0;
    let field = (x >> 23) & 0xff;
    let frac = x & 0x7f_ffff;
    let class = match field {
        0 => Class::Zero,
        0xff if frac == 0 => Class::Inf,
        0xff => Class::Nan,
        _ => Class::Finite {
            e: field as i32 - 150,
            m: (frac | 0x80_0000) as u64,
        },
    };
    (neg, class)
}

#[inline]
fn signed_zero(neg: bool) -> u32 {
    if neg {
        SIGN
    } else {
        0
    }
}

#[inline]
fn signed_inf(neg: bool) -> u32 {
    signed_zero(neg) | INF
}

/// The result of an overflow in mode `rm`.
#[inline(always)]
fn overflow(neg: bool, rm: Round) -> u32 {
    let to_inf = match rm {
        Round::NearEven | Round::NearMaxMag => true,
        Round::MinMag => false,
        Round::Min => neg,
        Round::Max => !neg,
    };
    signed_zero(neg) | if to_inf { INF } else { MAX_FINITE }
}

/// `sig >> shift` rounded in mode `rm` (the value's sign is `neg`).
#[inline(always)]
fn shift_round(sig: u64, shift: u32, neg: bool, rm: Round) -> u64 {
    use std::cmp::Ordering::{Equal, Greater, Less};
    if shift == 0 {
        return sig;
    }
    // Compare the dropped bits with half a unit of the kept LSB.
    let (q, vs_half, inexact) = if shift < 64 {
        let rem = sig & ((1u64 << shift) - 1);
        (sig >> shift, rem.cmp(&(1u64 << (shift - 1))), rem != 0)
    } else if shift == 64 {
        (0, sig.cmp(&(1u64 << 63)), sig != 0)
    } else {
        (0, Less, sig != 0)
    };
    let up = match rm {
        Round::NearEven => vs_half == Greater || (vs_half == Equal && q & 1 == 1),
        Round::NearMaxMag => vs_half != Less,
        Round::MinMag => false,
        Round::Min => neg && inexact,
        Round::Max => !neg && inexact,
    };
    q + up as u64
}

/// Rounds the nonzero value `(-1)^neg * sig * 2^e` to FP32 in mode `rm`
/// with an unbounded exponent (or, with `denormal_grid`, to a multiple of
/// 2^-149 when the value is below 2^-126), then flushes a result below
/// 2^-126 to a signed zero and maps overflow per `rm`.
#[inline(always)]
fn round_pack(neg: bool, sig: u64, e: i32, rm: Round, denormal_grid: bool) -> u32 {
    debug_assert!(sig != 0);
    let top = 63 - sig.leading_zeros() as i32; // value in [2^(e+top), 2^(e+top+1))
    let mut shift = top - 23;
    if denormal_grid && e + top < -126 {
        shift = -149 - e;
    }
    let (mut q, mut lsb) = if shift <= 0 {
        (sig << (-shift) as u32, e + shift)
    } else {
        (shift_round(sig, shift as u32, neg, rm), e + shift)
    };
    if q >> 24 != 0 {
        // Rounded up to 2^24 exactly.
        q >>= 1;
        lsb += 1;
    }
    if q < 1 << 23 {
        // Below 2^-126 on the denormal grid (or rounded to zero).
        return signed_zero(neg);
    }
    let biased = lsb + 150;
    if biased >= 255 {
        overflow(neg, rm)
    } else if biased < 1 {
        signed_zero(neg)
    } else {
        signed_zero(neg) | (biased as u32) << 23 | (q as u32 & 0x7f_ffff)
    }
}

/// Guard bits kept below a 24-bit significand in [`add_exact`].
const GUARD: u32 = 38;

/// `x >> d` with every bit shifted out ORed into bit 0 (sticky). `x` must
/// be below 2^63 (then any `d >= 63` leaves just the sticky bit).
#[inline(always)]
fn shift_right_jam(x: u64, d: u32) -> u64 {
    let d = d.min(63);
    (x >> d) | (x & ((1u64 << d) - 1) != 0) as u64
}

/// The sum of two nonzero values `(-1)^s * m * 2^e` with 24-bit normalized
/// significands, as `(sign, sig, e)` of `sig * 2^e`: exact, or with a
/// sticky bit far below any rounding position; `None` for an exact zero.
/// Written without data-dependent branches (random signs and magnitudes
/// would defeat branch prediction in the golden model's inner loop).
#[inline(always)]
fn add_exact(sa: bool, ea: i32, ma: u64, sb: bool, eb: i32, mb: u64) -> Option<(bool, u64, i32)> {
    // Both significands have bit 23 set, so (e, m) orders the magnitudes.
    let a_big = ((ea as i64) << 32 | ma as i64) >= ((eb as i64) << 32 | mb as i64);
    let (sx, ex, mx) = if a_big { (sa, ea, ma) } else { (sb, eb, mb) };
    let (ey, my) = if a_big { (eb, mb) } else { (ea, ma) };
    let d = (ex - ey) as u32;
    let x = mx << GUARD;
    let y = shift_right_jam(my << GUARD, d);
    // Subtract when the signs differ: add the two's complement of y.
    let neg = ((sa != sb) as u64).wrapping_neg();
    let sig = x.wrapping_add((y ^ neg).wrapping_sub(neg));
    if sig == 0 {
        None
    } else {
        Some((sx, sig, ex - GUARD as i32))
    }
}

/// Tesla FADD: `a + b` rounded in `rm` (see the module doc for the rules).
#[inline]
pub fn fadd(a: u32, b: u32, rm: Round) -> u32 {
    let (sa, ca) = unpack(a);
    let (sb, cb) = unpack(b);
    match (ca, cb) {
        (Class::Nan, _) | (_, Class::Nan) => F32_CANONICAL_NAN,
        (Class::Inf, Class::Inf) if sa != sb => F32_CANONICAL_NAN,
        (Class::Inf, _) => signed_inf(sa),
        (_, Class::Inf) => signed_inf(sb),
        (Class::Zero, Class::Zero) => signed_zero(sa && sb),
        (Class::Zero, Class::Finite { .. }) => b,
        (Class::Finite { .. }, Class::Zero) => a,
        (Class::Finite { e: ea, m: ma }, Class::Finite { e: eb, m: mb }) => match add_exact(sa, ea, ma, sb, eb, mb) {
            // An exact zero needs opposite signs: +0.
            None => 0,
            Some((s, sig, e)) => round_pack(s, sig, e, rm, false),
        },
    }
}

/// Tesla FMUL: `a * b` rounded in `rm` (see the module doc for the rules).
#[inline]
pub fn fmul(a: u32, b: u32, rm: Round) -> u32 {
    let (sa, ca) = unpack(a);
    let (sb, cb) = unpack(b);
    let s = sa != sb;
    match (ca, cb) {
        (Class::Nan, _) | (_, Class::Nan) => F32_CANONICAL_NAN,
        (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf) => F32_CANONICAL_NAN,
        (Class::Inf, _) | (_, Class::Inf) => signed_inf(s),
        (Class::Zero, _) | (_, Class::Zero) => signed_zero(s),
        (Class::Finite { e: ea, m: ma }, Class::Finite { e: eb, m: mb }) => round_pack(s, ma * mb, ea + eb, rm, false),
    }
}

/// Tesla FMAD: `a * b + c`, the product truncated to 24 bits, not fused;
/// nearest-even only (see the module doc for the rules).
#[inline]
pub fn fmad(a: u32, b: u32, c: u32) -> u32 {
    if is_normal(a) && is_normal(b) && is_normal(c) {
        return fmad_normal(a, b, c);
    }
    let (sa, ca) = unpack(a);
    let (sb, cb) = unpack(b);
    let (sc, cc) = unpack(c);
    let sp = sa != sb;
    if matches!(ca, Class::Nan) || matches!(cb, Class::Nan) || matches!(cc, Class::Nan) {
        return F32_CANONICAL_NAN;
    }
    let product_inf = match (ca, cb) {
        (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf) => return F32_CANONICAL_NAN,
        (Class::Inf, _) | (_, Class::Inf) => true,
        _ => false,
    };
    if let Class::Inf = cc {
        return if product_inf && sp != sc {
            F32_CANONICAL_NAN
        } else {
            signed_inf(sc)
        };
    }
    if product_inf {
        return signed_inf(sp);
    }
    match (ca, cb, cc) {
        (Class::Finite { .. }, Class::Finite { .. }, Class::Finite { .. }) => fmad_normal(a, b, c),
        // Some operand is zero: a rounded multiply, then a rounded add.
        _ => fadd(fmul(a, b, Round::NearEven), c, Round::NearEven),
    }
}

/// Whether `x` is a normal number (exponent field 1..=254).
#[inline(always)]
fn is_normal(x: u32) -> bool {
    ((x >> 23) & 0xff).wrapping_sub(1) < 254
}

/// FMAD step 6: `a`, `b`, `c` all normal.
#[inline(always)]
fn fmad_normal(a: u32, b: u32, c: u32) -> u32 {
    let sig = |x: u32| (x & 0x7f_ffff | 0x80_0000) as u64;
    let exp = |x: u32| ((x >> 23) & 0xff) as i32 - 150;
    let sp = (a ^ b) & SIGN != 0;
    let prod = sig(a) * sig(b); // in [2^46, 2^48)
    let drop = if prod >> 47 != 0 { 24i32 } else { 23 };
    let (pm, pe) = (prod >> drop, exp(a) + exp(b) + drop);
    let sc = c & SIGN != 0;
    match add_exact(sp, pe, pm, sc, exp(c), sig(c)) {
        None => signed_zero(sp && sc),
        Some((s, sig, e)) => round_pack(s, sig, e, Round::NearEven, true),
    }
}

#[cfg(test)]
mod tests {
    //! Every expected value below is worked out by hand in the comment next
    //! to it (bit patterns: sign | exponent field << 23 | fraction, with
    //! value 1.f * 2^(field - 127)).
    use super::*;
    use Round::*;

    const NAN: u32 = F32_CANONICAL_NAN;
    const ONE: u32 = 0x3f80_0000;
    const NEG_ONE: u32 = 0xbf80_0000;
    const TWO: u32 = 0x4000_0000;
    const ONE_P: u32 = 0x3f80_0001; // 1 + 2^-23
    const ONE_AND_HALF: u32 = 0x3fc0_0000; // 1.5
    const TWO_M24: u32 = 0x3380_0000; // 2^-24: field 127 - 24 = 103 = 0x67
    const MIN_NORMAL: u32 = 0x0080_0000; // 2^-126
    const POS_INF: u32 = 0x7f80_0000;
    const NEG_INF: u32 = 0xff80_0000;
    const DENORM: u32 = 0x0000_0001; // 2^-149
    const NEG_DENORM: u32 = 0x8000_0001;

    // ---------------------------------------------------------------- FADD

    #[test]
    fn fadd_plain() {
        // 1 + 1 = 2: field 128, fraction 0.
        for rm in Round::ALL {
            assert_eq!(fadd(ONE, ONE, rm), TWO);
        }
        // 1.5 + 1.5 = 3 = 1.5 * 2^1: field 128, fraction 0x400000.
        assert_eq!(fadd(ONE_AND_HALF, ONE_AND_HALF, NearEven), 0x4040_0000);
        // 2 + (-1) = 1: a true subtraction.
        assert_eq!(fadd(TWO, NEG_ONE, NearEven), ONE);
    }

    #[test]
    fn fadd_flushes_denormal_inputs() {
        // 1 + 2^-149: IEEE rounding up would give 1 + 2^-23 (0x3f800001);
        // the flushed denormal is 0, so the sum is exactly 1 in every mode.
        for rm in Round::ALL {
            assert_eq!(fadd(ONE, DENORM, rm), ONE, "{rm:?}");
            assert_eq!(fadd(NEG_ONE, NEG_DENORM, rm), NEG_ONE, "{rm:?}");
        }
        // -denormal + +0 is (-0) + (+0): +0. -denormal + -0 is -0 + -0 = -0.
        assert_eq!(fadd(NEG_DENORM, 0, Min), 0);
        assert_eq!(fadd(NEG_DENORM, SIGN, NearEven), SIGN);
        // The largest denormal 0x007fffff flushes too: 2^-126 + it = 2^-126.
        assert_eq!(fadd(MIN_NORMAL, 0x007f_ffff, Max), MIN_NORMAL);
    }

    #[test]
    fn fadd_nans_and_invalid_give_canonical_nan() {
        assert_eq!(fadd(0x7fc0_0000, ONE, NearEven), NAN); // quiet NaN
        assert_eq!(fadd(ONE, 0xffc0_1234, Max), NAN); // negative NaN, payload
        assert_eq!(fadd(0x7f80_0001, POS_INF, Min), NAN); // signaling NaN
        assert_eq!(fadd(POS_INF, NEG_INF, NearEven), NAN); // inf - inf
                                                           // Infinities of one sign add to themselves; inf + finite = inf.
        assert_eq!(fadd(NEG_INF, NEG_INF, MinMag), NEG_INF);
        assert_eq!(fadd(POS_INF, 0xff7f_ffff, Min), POS_INF);
        assert_eq!(fadd(NEG_DENORM, NEG_INF, Max), NEG_INF);
    }

    #[test]
    fn fadd_rounding_modes() {
        // 1 + 2^-24 is exactly half way between 1 (fraction 0, even) and
        // 1 + 2^-23 (fraction 1): even -> 1; away -> up; RZ/RD -> 1; RU -> up.
        assert_eq!(fadd(ONE, TWO_M24, NearEven), ONE);
        assert_eq!(fadd(ONE, TWO_M24, NearMaxMag), ONE_P);
        assert_eq!(fadd(ONE, TWO_M24, MinMag), ONE);
        assert_eq!(fadd(ONE, TWO_M24, Min), ONE);
        assert_eq!(fadd(ONE, TWO_M24, Max), ONE_P);
        // (1 + 2^-23) + 2^-24: half way between fraction 1 (odd) and
        // fraction 2 (even): nearest even goes up to 0x3f800002.
        assert_eq!(fadd(ONE_P, TWO_M24, NearEven), 0x3f80_0002);
        assert_eq!(fadd(ONE_P, TWO_M24, MinMag), ONE_P);
        // Negative: -1 - 2^-24. Toward -inf grows the magnitude (0xbf800001),
        // toward +inf and toward zero keep -1.
        let neg_two_m24 = SIGN | TWO_M24;
        assert_eq!(fadd(NEG_ONE, neg_two_m24, Min), 0xbf80_0001);
        assert_eq!(fadd(NEG_ONE, neg_two_m24, Max), NEG_ONE);
        assert_eq!(fadd(NEG_ONE, neg_two_m24, MinMag), NEG_ONE);
        assert_eq!(fadd(NEG_ONE, neg_two_m24, NearEven), NEG_ONE);
        // 1 - 2^-25 (2^-25: field 102 = 0x66 -> 0x33000000): the exact value
        // lies in [0.5, 1) where the ulp is 2^-24, so it is the tie between
        // 1 - 2^-24 (0x3f7fffff, odd) and 1 (even): nearest even -> 1; toward
        // zero or -inf -> 0x3f7fffff.
        let neg_two_m25 = 0xb300_0000;
        assert_eq!(fadd(ONE, neg_two_m25, NearEven), ONE);
        assert_eq!(fadd(ONE, neg_two_m25, MinMag), 0x3f7f_ffff);
        assert_eq!(fadd(ONE, neg_two_m25, Min), 0x3f7f_ffff);
        assert_eq!(fadd(ONE, neg_two_m25, Max), ONE);
    }

    #[test]
    fn fadd_exact_zero_is_negative_only_for_two_negative_addends() {
        // x + (-x) = +0 in every mode, even toward -inf (IEEE would give -0).
        for rm in Round::ALL {
            assert_eq!(fadd(ONE, NEG_ONE, rm), 0, "{rm:?}");
            assert_eq!(fadd(0xc2f6_0000, 0x42f6_0000, rm), 0, "{rm:?}");
            assert_eq!(fadd(0, SIGN, rm), 0, "{rm:?}");
            assert_eq!(fadd(SIGN, SIGN, rm), SIGN, "{rm:?}");
        }
        // x + 0 is x exactly, whatever the zero's sign.
        assert_eq!(fadd(NEG_ONE, 0, Max), NEG_ONE);
        assert_eq!(fadd(SIGN, 0x1234_5678, Min), 0x1234_5678);
    }

    #[test]
    fn fadd_tiny_results_flush_to_signed_zero() {
        // (2^-126 + 2^-149) - 2^-126 = 2^-149 exactly: IEEE gives the
        // denormal 0x00000001; Tesla flushes it to +0, in every mode.
        for rm in Round::ALL {
            assert_eq!(fadd(0x0080_0001, SIGN | MIN_NORMAL, rm), 0, "{rm:?}");
            // Same with the signs swapped: -2^-149 -> -0.
            assert_eq!(fadd(0x8080_0001, MIN_NORMAL, rm), SIGN, "{rm:?}");
        }
        // 1.5 * 2^-126 - 2^-126 = 2^-127 (IEEE: 0x00400000) -> +0.
        assert_eq!(fadd(0x00c0_0000, SIGN | MIN_NORMAL, NearEven), 0);
        // 2^-125 - 2^-126 = 2^-126 stays (field 1).
        assert_eq!(fadd(0x0100_0000, SIGN | MIN_NORMAL, NearEven), MIN_NORMAL);
    }

    #[test]
    fn fadd_overflow_follows_the_mode() {
        // MAX = (2 - 2^-23) * 2^127; MAX + MAX = (2 - 2^-23) * 2^128 overflows.
        let max = MAX_FINITE;
        assert_eq!(fadd(max, max, NearEven), POS_INF);
        assert_eq!(fadd(max, max, NearMaxMag), POS_INF);
        assert_eq!(fadd(max, max, MinMag), max);
        assert_eq!(fadd(max, max, Min), max);
        assert_eq!(fadd(max, max, Max), POS_INF);
        let nmax = SIGN | max;
        assert_eq!(fadd(nmax, nmax, Min), NEG_INF);
        assert_eq!(fadd(nmax, nmax, Max), nmax);
        assert_eq!(fadd(nmax, nmax, MinMag), nmax);
        // MAX + 2^103 (half an ulp of MAX, ulp = 2^104; field 230 = 0xe6 ->
        // 0x73000000) is the tie between MAX (odd fraction) and 2^128 (even):
        // nearest even rounds to 2^128 = overflow -> inf; toward zero -> MAX.
        assert_eq!(fadd(max, 0x7300_0000, NearEven), POS_INF);
        assert_eq!(fadd(max, 0x7300_0000, MinMag), max);
        // Just under the tie (2^102, 0x72800000) stays MAX.
        assert_eq!(fadd(max, 0x7280_0000, NearEven), max);
    }

    #[test]
    fn fadd_far_apart_operands_only_leave_a_sticky_bit() {
        // 1 + 2^-100 (field 27 -> 0x0d800000): far below half an ulp.
        // Nearest -> 1, toward +inf -> 1 + 2^-23, toward zero -> 1.
        assert_eq!(fadd(ONE, 0x0d80_0000, NearEven), ONE);
        assert_eq!(fadd(ONE, 0x0d80_0000, Max), ONE_P);
        // 1 - 2^-100: toward zero / -inf -> 1 - 2^-24 (0x3f7fffff).
        assert_eq!(fadd(ONE, 0x8d80_0000, MinMag), 0x3f7f_ffff);
        assert_eq!(fadd(ONE, 0x8d80_0000, NearEven), ONE);
    }

    // ---------------------------------------------------------------- FMUL

    #[test]
    fn fmul_plain() {
        // 1.5 * 1.5 = 2.25 = 1.125 * 2: field 128, fraction 0.125 * 2^23 = 0x100000.
        assert_eq!(fmul(ONE_AND_HALF, ONE_AND_HALF, NearEven), 0x4010_0000);
        // -2 * 1.5 = -3 (0xc0400000).
        assert_eq!(fmul(SIGN | TWO, ONE_AND_HALF, Min), 0xc040_0000);
    }

    #[test]
    fn fmul_rounding_modes() {
        // (1 + 2^-23)^2 = 1 + 2^-22 + 2^-46: a bit above 1 + 2^-22 (fraction 2).
        assert_eq!(fmul(ONE_P, ONE_P, NearEven), 0x3f80_0002);
        assert_eq!(fmul(ONE_P, ONE_P, MinMag), 0x3f80_0002);
        assert_eq!(fmul(ONE_P, ONE_P, Max), 0x3f80_0003);
        // 3 * (1 + 2^-23) = 2 * (1.5 + 2^-23 + 2^-24): the tie between
        // fraction 0x400001 (odd) and 0x400002 (even), times 2 (field 128).
        let three = 0x4040_0000;
        assert_eq!(fmul(three, ONE_P, NearEven), 0x4040_0002);
        assert_eq!(fmul(three, ONE_P, NearMaxMag), 0x4040_0002);
        assert_eq!(fmul(three, ONE_P, MinMag), 0x4040_0001);
        assert_eq!(fmul(three, ONE_P, Min), 0x4040_0001);
        assert_eq!(fmul(three, ONE_P, Max), 0x4040_0002);
        // Negated: toward -inf grows the magnitude.
        assert_eq!(fmul(SIGN | three, ONE_P, Min), 0xc040_0002);
        assert_eq!(fmul(SIGN | three, ONE_P, Max), 0xc040_0001);
        // (1 - 2^-24)(1 + 2^-23) = 1 + 2^-24 - 2^-47: just under the tie
        // between 1 and 1 + 2^-23: nearest (both) -> 1; toward +inf -> 1 + 2^-23.
        assert_eq!(fmul(0x3f7f_ffff, ONE_P, NearEven), ONE);
        assert_eq!(fmul(0x3f7f_ffff, ONE_P, NearMaxMag), ONE);
        assert_eq!(fmul(0x3f7f_ffff, ONE_P, Max), ONE_P);
    }

    #[test]
    fn fmul_tiny_results() {
        // 2^-63 (field 64 -> 0x20000000) * 2^-64 (field 63 -> 0x1f800000)
        // = 2^-127: IEEE denormal 0x00400000; Tesla +0 in every mode.
        for rm in Round::ALL {
            assert_eq!(fmul(0x2000_0000, 0x1f80_0000, rm), 0, "{rm:?}");
            assert_eq!(fmul(0xa000_0000, 0x1f80_0000, rm), SIGN, "{rm:?}");
        }
        // a = (1 - 2^-23) * 2^-63 = (2 - 2^-22) * 2^-64: field 63, fraction
        // 0x7ffffe -> 0x1ffffffe. b = (1 + 2^-23) * 2^-63 -> 0x20000001.
        // a * b = (1 - 2^-46) * 2^-126, just under 2^-126 (the 24-bit ulp
        // there is 2^-150). Nearest and toward +inf round up to 2^-126, which
        // is kept (0x00800000); toward zero gives (1 - 2^-24) * 2^-126 < 2^-126,
        // flushed to +0 (IEEE would give the denormal 0x007fffff).
        let (a, b) = (0x1fff_fffe, 0x2000_0001);
        assert_eq!(fmul(a, b, NearEven), MIN_NORMAL);
        assert_eq!(fmul(a, b, Max), MIN_NORMAL);
        assert_eq!(fmul(a, b, MinMag), 0);
        assert_eq!(fmul(a, b, Min), 0);
        assert_eq!(fmul(SIGN | a, b, Min), SIGN | MIN_NORMAL);
        assert_eq!(fmul(SIGN | a, b, Max), SIGN);
    }

    #[test]
    fn fmul_overflow_follows_the_mode() {
        // 2^64 (field 191 = 0xbf -> 0x5f800000) squared = 2^128.
        let big = 0x5f80_0000;
        assert_eq!(fmul(big, big, NearEven), POS_INF);
        assert_eq!(fmul(big, big, MinMag), MAX_FINITE);
        assert_eq!(fmul(big, big, Min), MAX_FINITE);
        assert_eq!(fmul(big, big, Max), POS_INF);
        assert_eq!(fmul(SIGN | big, big, Min), NEG_INF);
        assert_eq!(fmul(SIGN | big, big, Max), SIGN | MAX_FINITE);
        assert_eq!(fmul(SIGN | big, big, MinMag), SIGN | MAX_FINITE);
    }

    #[test]
    fn fmul_specials() {
        assert_eq!(fmul(POS_INF, 0, NearEven), NAN); // inf * 0
        assert_eq!(fmul(SIGN, NEG_INF, NearEven), NAN);
        assert_eq!(fmul(POS_INF, DENORM, Max), NAN); // the denormal is 0
        assert_eq!(fmul(NEG_INF, TWO, NearEven), NEG_INF);
        assert_eq!(fmul(NEG_INF, SIGN | TWO, NearEven), POS_INF);
        assert_eq!(fmul(0x7fc0_0000, 0, NearEven), NAN);
        assert_eq!(fmul(ONE, 0xff80_0001, NearEven), NAN);
        // -0 * 5 = -0; -0 * -5 = +0.
        assert_eq!(fmul(SIGN, 0x40a0_0000, Max), SIGN);
        assert_eq!(fmul(SIGN, 0xc0a0_0000, Max), 0);
        // 2^-149 * 2^127 would be 2^-22 in IEEE; the denormal flushes: +0.
        assert_eq!(fmul(DENORM, 0x7f00_0000, NearEven), 0);
        assert_eq!(fmul(NEG_DENORM, 0x7f00_0000, NearEven), SIGN);
    }

    // ---------------------------------------------------------------- FMAD

    #[test]
    fn fmad_truncated_product_differs_from_ieee_fma() {
        // a = b = 1 + 2^-23: exact product 1 + 2^-22 + 2^-46, truncated to
        // 1 + 2^-22. c = -(1 + 2^-22) (0xbf800002): truncated sum is exactly
        // 0 -> +0. IEEE FMA would give 2^-46 (field 81 -> 0x28800000).
        assert_eq!(fmad(ONE_P, ONE_P, 0xbf80_0002), 0);
        // Same product, c = 2^-24: 1 + 2^-22 + 2^-24 is the tie between
        // fraction 2 (even) and 3: -> 0x3f800002. IEEE FMA sees the extra
        // 2^-46, is above the tie and gives 0x3f800003.
        assert_eq!(fmad(ONE_P, ONE_P, TWO_M24), 0x3f80_0002);
        // 1.5 * (1 + 2^-23) = 1.5 + 2^-23 + 2^-24, truncated to 1.5 + 2^-23.
        // c = -1.5: result 2^-23 (field 104 -> 0x34000000). A rounded
        // product (tie to even: 1.5 + 2^-22) would give 2^-22 (0x34800000),
        // IEEE FMA gives 1.5 * 2^-23 (0x34400000).
        assert_eq!(fmad(ONE_AND_HALF, ONE_P, 0xbfc0_0000), 0x3400_0000);
        // Truncation is toward zero for a negative product as well:
        // -(1.5 + 2^-23) + 1.5 = -2^-23.
        assert_eq!(fmad(SIGN | ONE_AND_HALF, ONE_P, ONE_AND_HALF), 0xb400_0000);
        // The product's binade: 1.5 * 1.5 = 2.25 has 48-bit top bit 47 set
        // (no truncation needed here); + 1 = 3.25 = 1.625 * 2 -> 0x40500000.
        assert_eq!(fmad(ONE_AND_HALF, ONE_AND_HALF, ONE), 0x4050_0000);
    }

    #[test]
    fn fmad_sum_rounds_to_nearest_even() {
        // (1.5 + 2^-23) (truncated 1.5 * (1 + 2^-23)) + 2^-24: the tie between
        // fraction 0x400001 (odd) and 0x400002 (even) -> 0x3fc00002.
        assert_eq!(fmad(ONE_AND_HALF, ONE_P, TWO_M24), 0x3fc0_0002);
        // 1 * 1 + 2^-24: tie between 1 (even) and 1 + 2^-23 -> 1.
        assert_eq!(fmad(ONE, ONE, TWO_M24), ONE);
    }

    #[test]
    fn fmad_with_a_zero_operand_rounds_the_product() {
        // c = +0: result = RN(1.5 * (1 + 2^-23)) = 1.5 + 2^-22 (tie to even,
        // fraction 0x400002) -> 0x3fc00002; the truncated product would be
        // 0x3fc00001. A denormal c is a zero too.
        assert_eq!(fmad(ONE_AND_HALF, ONE_P, 0), 0x3fc0_0002);
        assert_eq!(fmad(ONE_AND_HALF, ONE_P, DENORM), 0x3fc0_0002);
        assert_eq!(fmad(ONE_AND_HALF, ONE_P, SIGN), 0x3fc0_0002);
        // a = 0 (or a denormal): the product is a zero, the result is c.
        assert_eq!(fmad(0, 0x7149_f2ca, ONE), ONE);
        assert_eq!(fmad(DENORM, 0x7149_f2ca, NEG_ONE), NEG_ONE);
        // Zero signs: (-0 * 1) + -0 = -0 + -0 = -0; (+0 * -1) + -0 = -0;
        // (-0 * -1) + -0 = +0 + -0 = +0; (-0 * 1) + +0 = +0.
        assert_eq!(fmad(SIGN, ONE, SIGN), SIGN);
        assert_eq!(fmad(0, NEG_ONE, SIGN), SIGN);
        assert_eq!(fmad(SIGN, NEG_ONE, SIGN), 0);
        assert_eq!(fmad(SIGN, ONE, 0), 0);
        // Rounded product (1 - 2^-46) * 2^-126 (see fmul_tiny_results) rounds
        // up to 2^-126 and survives; + (-0) keeps it.
        assert_eq!(fmad(0x1fff_fffe, 0x2000_0001, SIGN), MIN_NORMAL);
        // A product that rounds below 2^-126: 2^-63 * 2^-64 -> +0, + -0 = +0.
        assert_eq!(fmad(0x2000_0000, 0x1f80_0000, SIGN), 0);
        assert_eq!(fmad(0xa000_0000, 0x1f80_0000, SIGN), SIGN);
    }

    #[test]
    fn fmad_tiny_sum_on_the_denormal_grid() {
        // -2^-75 (field 52 -> 0x9a000000) * 2^-75 = -2^-150 exactly (kept,
        // unbounded exponent). + 2^-126: sum 2^-126 - 2^-150 < 2^-126. On the
        // grid of 2^-149 it is the tie between (2^23 - 1) * 2^-149 (odd) and
        // 2^23 * 2^-149 = 2^-126 (even) -> 2^-126, kept. (Rounding with an
        // unbounded exponent would keep 2^-126 - 2^-150, 24 bits, then flush.)
        assert_eq!(fmad(0x9a00_0000, 0x1a00_0000, MIN_NORMAL), MIN_NORMAL);
        // Mirror: 2^-150 - 2^-126 -> -2^-126.
        assert_eq!(fmad(0x1a00_0000, 0x1a00_0000, SIGN | MIN_NORMAL), SIGN | MIN_NORMAL);
        // -1.5 * 2^-75 (0x9a400000) * 2^-75 = -1.5 * 2^-150 = -0.75 * 2^-149.
        // Sum 2^-126 - 0.75 * 2^-149 is nearer (2^23 - 1) * 2^-149 -> below
        // 2^-126 -> +0; mirrored -> -0.
        assert_eq!(fmad(0x9a40_0000, 0x1a00_0000, MIN_NORMAL), 0);
        assert_eq!(fmad(0x1a40_0000, 0x1a00_0000, SIGN | MIN_NORMAL), SIGN);
        // -1.5 * 2^-75 * 2^-76 (field 51 -> 0x19800000) = -0.375 * 2^-149:
        // 2^-126 - 0.375 * 2^-149 is nearer 2^-126 -> kept.
        assert_eq!(fmad(0x9a40_0000, 0x1980_0000, MIN_NORMAL), MIN_NORMAL);
        // 2^-125 (0x01000000) - 2^-126 * 1 = 2^-126 exactly.
        assert_eq!(fmad(SIGN | MIN_NORMAL, ONE, 0x0100_0000), MIN_NORMAL);
        // 1.5 * 2^-126 - 2^-126 = 2^-127 -> +0 (IEEE: 0x00400000).
        assert_eq!(fmad(MIN_NORMAL, ONE_AND_HALF, SIGN | MIN_NORMAL), 0);
        // A tiny product next to a normal c only rounds: 2^-100 * 2^-100 + 1 = 1.
        assert_eq!(fmad(0x0d80_0000, 0x0d80_0000, ONE), ONE);
    }

    #[test]
    fn fmad_exponent_range_of_the_product_is_unbounded() {
        // 2^127 (0x7f000000) * 2 = 2^128, not yet infinite: + (-2^127) = 2^127.
        assert_eq!(fmad(0x7f00_0000, TWO, 0xff00_0000), 0x7f00_0000);
        // 2^128 + 1 rounds to 2^128: overflow -> +inf (nearest even).
        assert_eq!(fmad(0x7f00_0000, TWO, ONE), POS_INF);
        assert_eq!(fmad(0xff00_0000, TWO, ONE), NEG_INF);
        // MAX * 1 + MAX overflows -> inf.
        assert_eq!(fmad(MAX_FINITE, ONE, MAX_FINITE), POS_INF);
    }

    #[test]
    fn fmad_specials() {
        // NaN anywhere -> canonical NaN.
        assert_eq!(fmad(0x7fc0_0000, ONE, ONE), NAN);
        assert_eq!(fmad(ONE, 0xff80_0001, ONE), NAN);
        assert_eq!(fmad(ONE, ONE, 0x7fa0_0000), NAN);
        assert_eq!(fmad(POS_INF, 0, POS_INF), NAN); // inf * 0, even with c = inf
        assert_eq!(fmad(DENORM, NEG_INF, ONE), NAN); // denormal flushed: inf * 0
                                                     // c infinite gives c.
        assert_eq!(fmad(ONE, TWO, POS_INF), POS_INF);
        assert_eq!(fmad(0x7f00_0000, 0x4080_0000, NEG_INF), NEG_INF); // huge finite product
        assert_eq!(fmad(NEG_INF, ONE, NEG_INF), NEG_INF);
        // inf - inf -> NaN.
        assert_eq!(fmad(POS_INF, ONE, NEG_INF), NAN);
        assert_eq!(fmad(NEG_INF, NEG_ONE, NEG_INF), NAN);
        // Infinite product, finite c: the product's infinity.
        assert_eq!(fmad(POS_INF, 0xc000_0000, 0x40a0_0000), NEG_INF);
        assert_eq!(fmad(POS_INF, ONE, 0), POS_INF);
    }

    #[test]
    fn fmad_exact_zero_sum_is_positive() {
        // 1 * 1 - 1 = +0; -1 * 1 + 1 = +0.
        assert_eq!(fmad(ONE, ONE, NEG_ONE), 0);
        assert_eq!(fmad(NEG_ONE, ONE, ONE), 0);
    }
}

#[cfg(test)]
mod props {
    //! Property tests: algebraic invariants, and agreement with Berkeley
    //! SoftFloat (IEEE) wherever the Tesla rules and IEEE coincide.
    use super::*;
    use proptest::prelude::*;
    use softfloat_wrapper::{Float, RoundingMode, F32};

    fn sf_mode(rm: Round) -> RoundingMode {
        match rm {
            Round::NearEven => RoundingMode::TiesToEven,
            Round::MinMag => RoundingMode::TowardZero,
            Round::Min => RoundingMode::TowardNegative,
            Round::Max => RoundingMode::TowardPositive,
            Round::NearMaxMag => RoundingMode::TiesToAway,
        }
    }
    fn sf_add(a: u32, b: u32, rm: Round) -> u32 {
        F32::from_bits(a).add(F32::from_bits(b), sf_mode(rm)).to_bits()
    }
    fn sf_mul(a: u32, b: u32, rm: Round) -> u32 {
        F32::from_bits(a).mul(F32::from_bits(b), sf_mode(rm)).to_bits()
    }
    fn sf_fma(a: u32, b: u32, c: u32) -> u32 {
        F32::from_bits(a)
            .fused_mul_add(F32::from_bits(b), F32::from_bits(c), RoundingMode::TiesToEven)
            .to_bits()
    }
    fn field(x: u32) -> u32 {
        (x >> 23) & 0xff
    }
    fn is_nan(x: u32) -> bool {
        field(x) == 0xff && x & 0x7f_ffff != 0
    }
    fn flush(x: u32) -> u32 {
        if field(x) == 0 {
            x & SIGN
        } else {
            x
        }
    }
    /// Checks a Tesla result `t` against the IEEE result `i` of the same
    /// operation on normal inputs.
    fn agrees_with_ieee(t: u32, i: u32) -> Result<(), TestCaseError> {
        if is_nan(i) {
            prop_assert_eq!(t, F32_CANONICAL_NAN);
        } else if field(i) == 0 && i & 0x7f_ffff != 0 {
            // IEEE denormal: Tesla gives a zero of its sign.
            prop_assert_eq!(t, i & SIGN, "ieee {:08x}", i);
        } else if field(i) != 0 && i & 0x7fff_ffff != MIN_NORMAL_BITS {
            // Normal (above 2^-126) or infinite: identical.
            prop_assert_eq!(t, i);
        } else if i & 0x7fff_ffff == 0 {
            // IEEE underflow to zero: the same zero.
            prop_assert_eq!(t, i);
        } else if i & 0x7fff_ffff == MIN_NORMAL_BITS {
            // IEEE 2^-126 may come from rounding on the denormal grid, which
            // the unbounded-exponent rounding can leave below 2^-126.
            prop_assert!(t == i || t == i & SIGN, "tesla {:08x} ieee {:08x}", t, i);
        }
        Ok(())
    }
    const MIN_NORMAL_BITS: u32 = 0x0080_0000;

    /// FMAD of normals computed another way, when it can be: the truncated
    /// product t (the exact f64 product with its low 29 fraction bits
    /// cleared) plus c is exact in an f64 when their exponents are within 28
    /// (at most 53 bits); the host's f64 -> f32 conversion then rounds it to
    /// nearest even on the denormal grid, and a result below 2^-126 becomes a
    /// zero of its sign. `None` when the sum would not be exact.
    fn tiny_sum_reference(a: u32, b: u32, c: u32) -> Option<u32> {
        let p = f32::from_bits(a) as f64 * f32::from_bits(b) as f64;
        let t = f64::from_bits(p.to_bits() & !((1u64 << 29) - 1));
        let cf = f32::from_bits(c) as f64;
        let (et, ec) = ((t.to_bits() >> 52) & 0x7ff, (cf.to_bits() >> 52) & 0x7ff);
        if et.abs_diff(ec) > 28 {
            return None;
        }
        let sum = t + cf;
        Some(if sum == 0.0 {
            0 // opposite signs: +0
        } else {
            let r = (sum as f32).to_bits();
            if field(r) == 0 {
                r & SIGN
            } else {
                r
            }
        })
    }

    /// FADD of normals against IEEE: a sum of normals is exact when it is
    /// tiny, so IEEE gives zero only for an exact cancellation, which is +0
    /// for Tesla in every mode (IEEE: -0 toward -inf).
    fn fadd_agrees(a: u32, b: u32, rm: Round) -> Result<(), TestCaseError> {
        let (t, i) = (fadd(a, b, rm), sf_add(a, b, rm));
        if i & 0x7fff_ffff == 0 {
            prop_assert_eq!(t, 0);
            Ok(())
        } else {
            agrees_with_ieee(t, i)
        }
    }

    fn rounding() -> impl Strategy<Value = Round> {
        prop::sample::select(Round::ALL.to_vec())
    }
    /// Any bit pattern, biased toward specials, denormals and the edges.
    fn any_f32() -> impl Strategy<Value = u32> {
        prop_oneof![
            4 => any::<u32>(),
            1 => prop::sample::select(vec![
                0, SIGN, 1, 0x8000_0001, 0x007f_ffff, 0x0080_0000, 0x8080_0000, 0x3f80_0000, 0xbf80_0000,
                0x7f7f_ffff, 0xff7f_ffff, INF, SIGN | INF, 0x7fc0_0000, 0x7f80_0001, 0xffff_ffff,
            ]),
            2 => (any::<bool>(), 0u32..3, any::<u32>()).prop_map(|(s, f, m)| (s as u32) << 31 | f << 23 | (m & 0x7f_ffff)),
        ]
    }
    /// A normal number with the given exponent field range.
    fn normal_in(lo: u32, hi: u32) -> impl Strategy<Value = u32> {
        (any::<bool>(), lo..=hi, 0u32..1 << 23).prop_map(|(s, f, m)| (s as u32) << 31 | f << 23 | m)
    }
    fn normal() -> impl Strategy<Value = u32> {
        prop_oneof![
            normal_in(1, 254),
            normal_in(100, 154),
            normal_in(1, 40),
            normal_in(215, 254)
        ]
    }
    /// Two normals with close exponents (cancellation, ties).
    fn close_pair() -> impl Strategy<Value = (u32, u32)> {
        (normal(), -26i32..=26, any::<bool>(), 0u32..1 << 23).prop_map(|(a, d, s, m)| {
            let f = (field(a) as i32 + d).clamp(1, 254) as u32;
            (a, (s as u32) << 31 | f << 23 | m)
        })
    }

    /// The same agreements as the property tests on 10M random vectors per
    /// operation (all modes for FADD/FMUL): run once with `--ignored`.
    #[test]
    #[ignore = "long: 3 x 10M vectors; cargo test --lib golden::arith::tesla -- --ignored"]
    fn long_random_agreement_with_softfloat() {
        use rand::{rngs::SmallRng, Rng, SeedableRng};
        const N: u64 = 10_000_000;
        let mut rng = SmallRng::seed_from_u64(2026);
        let normal = |rng: &mut SmallRng, near: Option<u32>| -> u32 {
            let f = match near {
                Some(e) if rng.gen::<bool>() => (e as i32 + rng.gen_range(-26..=26)).clamp(1, 254) as u32,
                _ => rng.gen_range(1..=254),
            };
            (rng.gen::<u32>() & SIGN) | f << 23 | (rng.gen::<u32>() & 0x7f_ffff)
        };
        let mut fmad_checked = 0u64;
        for i in 0..N {
            let rm = Round::ALL[(i % 5) as usize];
            let a = normal(&mut rng, None);
            let b = normal(&mut rng, Some(field(a)));
            fadd_agrees(a, b, rm).unwrap_or_else(|e| panic!("fadd {a:08x} {b:08x} {rm:?}: {e}"));
            let b = normal(&mut rng, Some(254 - field(a)));
            agrees_with_ieee(fmul(a, b, rm), sf_mul(a, b, rm))
                .unwrap_or_else(|e| panic!("fmul {a:08x} {b:08x} {rm:?}: {e}"));
            let c = normal(&mut rng, Some((field(a) + field(b)).saturating_sub(127).max(1)));
            let p = f32::from_bits(a) as f64 * f32::from_bits(b) as f64;
            let t = (f64::from_bits(p.to_bits() & !((1u64 << 29) - 1)) as f32).to_bits();
            if field(t) != 0 && field(t) != 0xff {
                fmad_checked += 1;
                let i = sf_add(t, c, Round::NearEven);
                let r = fmad(a, b, c);
                if i & 0x7fff_ffff == 0 {
                    assert_eq!(r, 0, "fmad {a:08x} {b:08x} {c:08x}");
                } else {
                    agrees_with_ieee(r, i).unwrap_or_else(|e| panic!("fmad {a:08x} {b:08x} {c:08x}: {e}"));
                }
            }
        }
        println!("fadd {N}, fmul {N}, fmad {fmad_checked} vectors agree with SoftFloat");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        #[test]
        fn commutative(a in any_f32(), b in any_f32(), rm in rounding()) {
            prop_assert_eq!(fadd(a, b, rm), fadd(b, a, rm));
            prop_assert_eq!(fmul(a, b, rm), fmul(b, a, rm));
            prop_assert_eq!(fmad(a, b, 0x3f80_0000), fmad(b, a, 0x3f80_0000));
        }

        #[test]
        fn outputs_are_never_denormal_nor_other_nans(a in any_f32(), b in any_f32(), c in any_f32(), rm in rounding()) {
            for r in [fadd(a, b, rm), fmul(a, b, rm), fmad(a, b, c)] {
                prop_assert!(field(r) != 0 || r & 0x7f_ffff == 0, "denormal {:08x}", r);
                prop_assert!(!is_nan(r) || r == F32_CANONICAL_NAN, "nan {:08x}", r);
            }
        }

        #[test]
        fn denormal_inputs_act_as_signed_zeros(a in any_f32(), b in any_f32(), c in any_f32(), rm in rounding()) {
            prop_assert_eq!(fadd(a, b, rm), fadd(flush(a), flush(b), rm));
            prop_assert_eq!(fmul(a, b, rm), fmul(flush(a), flush(b), rm));
            prop_assert_eq!(fmad(a, b, c), fmad(flush(a), flush(b), flush(c)));
        }

        #[test]
        fn negation_symmetry(a in any_f32(), b in any_f32()) {
            // Nearest-even is symmetric: -(a + b) = (-a) + (-b) unless the sum is
            // an exact +0 (x + (-x)) or a NaN.
            let s = fadd(a, b, Round::NearEven);
            if s != 0 && s != F32_CANONICAL_NAN {
                prop_assert_eq!(fadd(a ^ SIGN, b ^ SIGN, Round::NearEven), s ^ SIGN);
            }
            // Toward +inf of a negated pair is toward -inf, negated.
            let s = fadd(a, b, Round::Max);
            if s != 0 && s != F32_CANONICAL_NAN {
                prop_assert_eq!(fadd(a ^ SIGN, b ^ SIGN, Round::Min), s ^ SIGN);
            }
        }

        #[test]
        fn fadd_matches_ieee_on_normals(a in normal(), b in normal(), rm in rounding()) {
            fadd_agrees(a, b, rm)?;
        }

        #[test]
        fn fadd_matches_ieee_on_close_normals((a, b) in close_pair(), rm in rounding()) {
            fadd_agrees(a, b, rm)?;
        }

        #[test]
        fn fmul_matches_ieee_on_normals(a in normal(), b in normal(), rm in rounding()) {
            agrees_with_ieee(fmul(a, b, rm), sf_mul(a, b, rm))?;
        }

        #[test]
        fn fmad_is_the_truncated_product_added_to_c((a, c) in close_pair(), b in normal_in(100, 154)) {
            // The exact product of two 24-bit significands fits an f64 (48 bits);
            // clearing its low 29 fraction bits truncates it to 24 bits toward
            // zero. When that value is a normal f32, FMAD is FADD(t, c).
            let p = f32::from_bits(a) as f64 * f32::from_bits(b) as f64;
            let t = f64::from_bits(p.to_bits() & !((1u64 << 29) - 1)) as f32;
            let t = t.to_bits();
            if field(t) != 0 && field(t) != 0xff {
                prop_assert_eq!(fmad(a, b, c), fadd(t, c, Round::NearEven));
                agrees_with_ieee(fmad(a, b, c), sf_add(t, c, Round::NearEven))?;
            }
        }

        #[test]
        fn fmad_equals_ieee_fma_when_the_product_is_exact((a, c) in close_pair(), e in 60u32..=194, neg in any::<bool>()) {
            // b a power of two: the product needs no truncation, so FMAD is
            // the correctly rounded a * b + c, as IEEE's fused multiply-add.
            let b = (neg as u32) << 31 | e << 23;
            let t = fmad(a, b, c);
            let i = sf_fma(a, b, c);
            if i & 0x7fff_ffff == 0 {
                prop_assert_eq!(t, 0);
            } else if field(i) == 0 {
                prop_assert_eq!(t, i & SIGN);
            } else {
                prop_assert_eq!(t, i);
            }
        }

        #[test]
        fn fmad_tiny_sums_round_on_the_denormal_grid(
            a in normal_in(55, 90), b in normal_in(55, 90), d in -25i32..=25, c_bits in any::<u32>()
        ) {
            // c's exponent field is near the product's, within 1..=40.
            let fc = (field(a) as i32 + field(b) as i32 - 127 + d).clamp(1, 40) as u32;
            let c = (c_bits & (SIGN | 0x7f_ffff)) | fc << 23;
            // Products from 2^-144 to 2^-74, c from 2^-126 to 2^-87: the
            // region where the sum can fall below 2^-126.
            let expected = tiny_sum_reference(a, b, c);
            prop_assume!(expected.is_some());
            prop_assert_eq!(fmad(a, b, c), expected.unwrap());
        }

        #[test]
        fn fmad_sums_next_to_2_pow_minus_126(
            fa in 40u32..64, db in -1i32..=1, fra in 0u32..1 << 23, frb in 0u32..1 << 23,
            sa in any::<bool>(), sb in any::<bool>(), cf in 1u32..=2, cfrac in 0u32..4, sc in any::<bool>()
        ) {
            // Products near 2^-150 against c a few ulps above 2^-126: sums
            // straddle 2^-126 and land on the grid's ties.
            let fb = (104 - fa as i32 + db) as u32;
            let a = (sa as u32) << 31 | fa << 23 | fra;
            let b = (sb as u32) << 31 | fb << 23 | frb;
            let c = (sc as u32) << 31 | cf << 23 | cfrac;
            let expected = tiny_sum_reference(a, b, c);
            prop_assume!(expected.is_some());
            prop_assert_eq!(fmad(a, b, c), expected.unwrap());
        }

        #[test]
        fn fmad_with_zero_c_is_the_rounded_product(a in normal(), b in normal()) {
            let p = fmul(a, b, Round::NearEven);
            if p & 0x7fff_ffff != 0 {
                prop_assert_eq!(fmad(a, b, 0), p);
                prop_assert_eq!(fmad(a, b, SIGN), p);
            }
        }

        #[test]
        fn fmad_never_exceeds_ieee_fma_by_more_than_the_truncation(a in normal_in(100, 154), b in normal_in(100, 154), c in normal_in(100, 154)) {
            // The truncated product is below the exact one in magnitude by less
            // than one ulp of the product, so FMAD and the IEEE FMA, both normal,
            // differ by less than ulp(product) + one ulp of the result.
            let t = f32::from_bits(fmad(a, b, c)) as f64;
            let i = f32::from_bits(sf_fma(a, b, c)) as f64;
            let p = (f32::from_bits(a) as f64 * f32::from_bits(b) as f64).abs();
            let bound = p * 2f64.powi(-23) + t.abs().max(i.abs()) * 2f64.powi(-23);
            prop_assert!((t - i).abs() <= bound, "fmad {} fma {} bound {}", t, i, bound);
        }
    }
}
