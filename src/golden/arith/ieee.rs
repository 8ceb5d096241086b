//! IEEE 754-2008 binary32 / binary64 reference arithmetic, bit-exact, in
//! software (no host FPU).
//!
//! The golden model calls the typed wrappers ([`f32_add`], [`f32_mul`],
//! [`f32_fma`], their `f64_*` twins, the conversions and [`f32_min`] /
//! [`f32_max`]); they take and return raw bit patterns and return the IEEE
//! exception [`Flags`] next to the result.
//!
//! # How it works
//!
//! One generic implementation serves both formats. A [`Format`] gives the
//! exponent and fraction widths and a working integer `W` wide enough to hold
//! an exact product of two significands (`u64` for binary32, `u128` for
//! binary64). Every finite operand is unpacked to a sign, an unbiased
//! exponent and a normalized significand. An operation computes its exact
//! result as `sig * 2^(exp - T)` with the leading one of `sig` at bit
//! `T = W::BITS - 2` (the top bit stays free for a carry); bits shifted out
//! to the right are ORed into bit 0 ("jamming"), which keeps the rounding
//! decision exact because at least two bits always separate bit 0 from the
//! rounding position. A single routine, [`round_pack`], then rounds to the
//! format.
//!
//! # Rounding rule
//!
//! Let `r` be the bits of the exact significand below the last kept bit
//! (`half` its midpoint). roundTiesToEven adds `half` and, on an exact tie,
//! clears the last bit; roundTiesToAway adds `half`; roundTowardZero adds
//! nothing; roundTowardPositive / Negative add `half*2 - 1` when the result
//! is positive / negative (i.e. round up in magnitude on any nonzero `r`).
//! A result whose exponent is below the normal range is first shifted right
//! (with jamming) to the subnormal position, then rounded the same way; a
//! carry out of the significand raises the exponent (to the smallest normal,
//! or to infinity). Overflow gives infinity in the directions that round
//! away from zero and the largest finite number otherwise.
//!
//! # Flags
//!
//! * inexact: the rounded result differs from the exact one;
//! * overflow: the rounded result (unbounded exponent) exceeds the largest
//!   finite number (always with inexact);
//! * underflow: the result is tiny AND inexact, tiny meaning below the
//!   smallest normal magnitude either before rounding or after rounding to
//!   the format's precision with an unbounded exponent ([`Tininess`]);
//! * invalid: a signalling NaN operand, `inf - inf`, `0 * inf` (in an FMA
//!   even when the addend is a quiet NaN, as in Berkeley SoftFloat);
//! * infinite (division by zero) never occurs for these operations.
//!
//! Every NaN result is the canonical NaN ([`F32_CANONICAL_NAN`],
//! [`F64_CANONICAL_NAN`]) as GPUs return it. An exact zero sum is `+0`,
//! except in roundTowardNegative (`-0`); `(-0) + (-0) = -0`.
use super::{Flags, Round, Tininess, F32_CANONICAL_NAN, F64_CANONICAL_NAN};
use std::ops::{Add, BitAnd, BitOr, BitXor, Mul, Not, Shl, Shr, Sub};

/// An unsigned machine integer used as working significand.
pub trait UInt:
    Copy
    + Eq
    + Ord
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
{
    const BITS: u32;
    const ZERO: Self;
    const ONE: Self;
    fn lz(self) -> u32;
    fn from_u64(x: u64) -> Self;
    fn low_u64(self) -> u64;
    fn wrapping_add(self, o: Self) -> Self;
}

macro_rules! uint {
    ($t:ty) => {
        impl UInt for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn lz(self) -> u32 {
                self.leading_zeros()
            }
            #[inline(always)]
            fn from_u64(x: u64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn low_u64(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn wrapping_add(self, o: Self) -> Self {
                <$t>::wrapping_add(self, o)
            }
        }
    };
}
uint!(u64);
uint!(u128);

/// An IEEE 754 binary interchange format.
pub trait Format {
    /// Working integer: holds the raw encoding and an exact significand
    /// product with two spare top bits.
    type W: UInt;
    /// Exponent field width.
    const EXP_BITS: u32;
    /// Fraction field width (precision p minus one).
    const FRAC_BITS: u32;
    /// The canonical NaN returned for every NaN result.
    const NAN: u64;
}

/// binary32 (FP32): 8-bit exponent, 23-bit fraction, p = 24.
pub struct Binary32;
/// binary64 (FP64): 11-bit exponent, 52-bit fraction, p = 53.
pub struct Binary64;

impl Format for Binary32 {
    type W = u64;
    const EXP_BITS: u32 = 8;
    const FRAC_BITS: u32 = 23;
    const NAN: u64 = F32_CANONICAL_NAN as u64;
}
impl Format for Binary64 {
    type W = u128;
    const EXP_BITS: u32 = 11;
    const FRAC_BITS: u32 = 52;
    const NAN: u64 = F64_CANONICAL_NAN;
}

/// Constants derived from a [`Format`].
struct K<F: Format>(F);
impl<F: Format> K<F> {
    const BIAS: i32 = (1 << (F::EXP_BITS - 1)) - 1;
    const EXP_MAX: u32 = (1 << F::EXP_BITS) - 1;
    const SIGN_SHIFT: u32 = F::EXP_BITS + F::FRAC_BITS;
    /// Bit position of the leading one of a normalized working significand.
    const T: u32 = <F::W as UInt>::BITS - 2;
    /// Bits of a normalized working significand below the last kept bit.
    const EXTRA: u32 = Self::T - F::FRAC_BITS;
}

#[inline(always)]
fn w<F: Format>(x: u64) -> F::W {
    <F::W as UInt>::from_u64(x)
}
#[inline(always)]
fn one<F: Format>() -> F::W {
    <F::W as UInt>::ONE
}
#[inline(always)]
fn zero<F: Format>() -> F::W {
    <F::W as UInt>::ZERO
}
#[inline(always)]
fn inf_bits<F: Format>() -> F::W {
    w::<F>(K::<F>::EXP_MAX as u64) << F::FRAC_BITS
}
#[inline(always)]
fn sign_bit<F: Format>(s: bool) -> F::W {
    w::<F>(s as u64) << K::<F>::SIGN_SHIFT
}

/// All ones if `b`, else zero.
#[inline(always)]
fn all_or_none<F: Format>(b: bool) -> F::W {
    !zero::<F>() * w::<F>(b as u64)
}

/// Shift right by `n`, ORing every bit shifted out into bit 0.
///
/// Requires the top bit of `x` clear (always true of working
/// significands): a shift by `BITS - 1` or more then leaves only the jam
/// bit, so `n` can be clamped.
#[inline(always)]
fn shr_jam<W: UInt>(x: W, n: u32) -> W {
    if n == 0 {
        return x;
    }
    let n = n.min(W::BITS - 1);
    let lost = x & ((W::ONE << n) - W::ONE);
    (x >> n) | W::from_u64((lost != W::ZERO) as u64)
}

/// Operand class after unpacking.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class<W> {
    Zero,
    /// `sig * 2^(exp - FRAC_BITS)`, leading one of `sig` at bit FRAC_BITS
    /// (subnormals are normalized here).
    Finite {
        exp: i32,
        sig: W,
    },
    Inf,
    QNaN,
    SNaN,
}

impl<W> Class<W> {
    #[inline(always)]
    fn is_nan(&self) -> bool {
        matches!(self, Class::QNaN | Class::SNaN)
    }
    #[inline(always)]
    fn is_snan(&self) -> bool {
        matches!(self, Class::SNaN)
    }
}

#[inline(always)]
fn unpack<F: Format>(x: F::W) -> (bool, Class<F::W>) {
    let sign = (x >> K::<F>::SIGN_SHIFT) & one::<F>() != zero::<F>();
    let field = (x >> F::FRAC_BITS).low_u64() as u32 & K::<F>::EXP_MAX;
    let frac = x & ((one::<F>() << F::FRAC_BITS) - one::<F>());
    let class = if field == K::<F>::EXP_MAX {
        if frac == zero::<F>() {
            Class::Inf
        } else if frac >> (F::FRAC_BITS - 1) != zero::<F>() {
            Class::QNaN
        } else {
            Class::SNaN
        }
    } else if field == 0 {
        if frac == zero::<F>() {
            Class::Zero
        } else {
            let sh = frac.lz() - (<F::W as UInt>::BITS - 1 - F::FRAC_BITS);
            Class::Finite {
                exp: 1 - K::<F>::BIAS - sh as i32,
                sig: frac << sh,
            }
        }
    } else {
        Class::Finite {
            exp: field as i32 - K::<F>::BIAS,
            sig: frac | (one::<F>() << F::FRAC_BITS),
        }
    };
    (sign, class)
}

/// Exponent field of an encoding.
#[inline(always)]
fn field<F: Format>(x: F::W) -> u32 {
    (x >> F::FRAC_BITS).low_u64() as u32 & K::<F>::EXP_MAX
}

/// Whether an exponent field is that of a normal number.
#[inline(always)]
fn is_normal_field<F: Format>(f: u32) -> bool {
    f.wrapping_sub(1) < K::<F>::EXP_MAX - 1
}

/// Sign, unbiased exponent and significand (leading one at bit T) of a
/// normal encoding with exponent field `f`: the fast path's unpacking.
#[inline(always)]
fn normal_parts<F: Format>(x: F::W, f: u32) -> (bool, i32, F::W) {
    let frac = x & ((one::<F>() << F::FRAC_BITS) - one::<F>());
    (
        (x >> K::<F>::SIGN_SHIFT) & one::<F>() != zero::<F>(),
        f as i32 - K::<F>::BIAS,
        (frac | (one::<F>() << F::FRAC_BITS)) << (K::<F>::T - F::FRAC_BITS),
    )
}

#[inline(always)]
fn nan<F: Format>(invalid: bool) -> (F::W, u8) {
    (w::<F>(F::NAN), if invalid { Flags::INVALID } else { 0 })
}

#[inline(always)]
fn signed_zero<F: Format>(s: bool) -> (F::W, u8) {
    (sign_bit::<F>(s), 0)
}

/// Round the exact value `(-1)^sign * sig * 2^(exp - T)` (leading one of
/// `sig` at bit `T`, sticky information jammed into the low bits) to the
/// format, and return its encoding and flags (see the module doc).
#[inline(always)]
pub fn round_pack<F: Format>(sign: bool, exp: i32, sig: F::W, rm: Round, tin: Tininess) -> (F::W, u8) {
    let e = K::<F>::EXTRA;
    let mask = (one::<F>() << e) - one::<F>();
    let half = one::<F>() << (e - 1);
    // Increment added below the last kept bit: half for the two nearest
    // modes, all ones (round up on any remainder) for the directed mode
    // pointing away from zero, zero otherwise. Written without branches:
    // the mode often changes from one instruction to the next.
    let nearest = matches!(rm, Round::NearEven | Round::NearMaxMag);
    let up = (rm == Round::Max && !sign) || (rm == Round::Min && sign);
    let inc = (half & all_or_none::<F>(nearest)) | (mask & all_or_none::<F>(up));
    let mut be = exp + K::<F>::BIAS;
    let mut sig = sig;
    let mut flags = 0u8;
    if be <= 0 {
        // Tiny after rounding unless rounding to p bits at this exponent
        // carries up to exactly the smallest normal.
        let tiny = tin == Tininess::BeforeRounding || be < 0 || sig + inc < (one::<F>() << (K::<F>::T + 1));
        sig = shr_jam(sig, (1 - be) as u32);
        be = 1;
        if tiny && sig & mask != zero::<F>() {
            flags |= Flags::UNDERFLOW;
        }
    }
    let rbits = sig & mask;
    if rbits != zero::<F>() {
        flags |= Flags::INEXACT;
    }
    let tie_even = rm == Round::NearEven && rbits == half;
    let s = ((sig + inc) >> e) & !w::<F>(tie_even as u64);
    // The leading one of `s` (bit FRAC_BITS, or FRAC_BITS + 1 after a
    // carry) adds into the exponent field.
    let mag = (w::<F>((be - 1) as u64) << F::FRAC_BITS) + s;
    if mag >= inf_bits::<F>() {
        let away = match rm {
            Round::NearEven | Round::NearMaxMag => true,
            Round::MinMag => false,
            Round::Min => sign,
            Round::Max => !sign,
        };
        let m = if away {
            inf_bits::<F>()
        } else {
            inf_bits::<F>() - one::<F>()
        };
        return (sign_bit::<F>(sign) | m, flags | Flags::OVERFLOW | Flags::INEXACT);
    }
    (sign_bit::<F>(sign) | mag, flags)
}

/// Add two exact nonzero values with leading ones at bit T, then round.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn sum_round<F: Format>(
    sx: bool,
    ex: i32,
    mx: F::W,
    sy: bool,
    ey: i32,
    my: F::W,
    rm: Round,
    tin: Tininess,
) -> (F::W, u8) {
    // Order by magnitude (selects rather than branches: which operand is
    // larger is data dependent and unpredictable).
    let swap = ex < ey || (ex == ey && mx < my);
    let m = all_or_none::<F>(swap);
    let (hi, lo) = ((mx & !m) | (my & m), (my & !m) | (mx & m));
    let (ehi, elo) = if swap { (ey, ex) } else { (ex, ey) };
    let sign = if swap { sy } else { sx };
    let lo = shr_jam(lo, (ehi - elo) as u32);
    // hi + lo or hi - lo (lo <= hi, and hi + lo < 2^(T+2) fits).
    let neg = all_or_none::<F>(sx != sy);
    let r = hi.wrapping_add((lo ^ neg).wrapping_add(neg & one::<F>()));
    if r == zero::<F>() {
        return signed_zero::<F>(rm == Round::Min);
    }
    // Renormalize to the leading one at T: one step right after a carry
    // (jamming the bit shifted out), or left after cancellation.
    let lz = r.lz();
    let carry = (lz == 0) as u32;
    let r = (r >> carry) | (r & w::<F>(carry as u64));
    let sh = lz + carry - 1;
    round_pack::<F>(sign, ehi + carry as i32 - sh as i32, r << sh, rm, tin)
}

/// Exact product of two finite operands, normalized to leading one at T.
#[inline(always)]
fn product<F: Format>(ea: i32, ma: F::W, eb: i32, mb: F::W) -> (i32, F::W) {
    let p = ma * mb;
    let sh = p.lz() - 1;
    let msb = K::<F>::T - sh;
    (ea + eb + msb as i32 - 2 * F::FRAC_BITS as i32, p << sh)
}

/// `a + b` in format `F` (operands and result are raw encodings).
#[inline(always)]
pub fn add<F: Format>(a: F::W, b: F::W, rm: Round, tin: Tininess) -> (F::W, u8) {
    let (fa, fb) = (field::<F>(a), field::<F>(b));
    if is_normal_field::<F>(fa) & is_normal_field::<F>(fb) {
        let (sa, ea, ma) = normal_parts::<F>(a, fa);
        let (sb, eb, mb) = normal_parts::<F>(b, fb);
        return sum_round::<F>(sa, ea, ma, sb, eb, mb, rm, tin);
    }
    let (sa, ca) = unpack::<F>(a);
    let (sb, cb) = unpack::<F>(b);
    let up = K::<F>::T - F::FRAC_BITS;
    if let (Class::Finite { exp: ea, sig: ma }, Class::Finite { exp: eb, sig: mb }) = (ca, cb) {
        return sum_round::<F>(sa, ea, ma << up, sb, eb, mb << up, rm, tin);
    }
    if ca.is_nan() || cb.is_nan() {
        return nan::<F>(ca.is_snan() || cb.is_snan());
    }
    match (ca, cb) {
        (Class::Inf, Class::Inf) if sa != sb => nan::<F>(true),
        (Class::Inf, _) => (a, 0),
        (_, Class::Inf) => (b, 0),
        (Class::Zero, Class::Zero) => signed_zero::<F>(if sa == sb { sa } else { rm == Round::Min }),
        (Class::Zero, _) => (b, 0),
        _ => (a, 0),
    }
}

/// `a * b` in format `F`.
#[inline(always)]
pub fn mul<F: Format>(a: F::W, b: F::W, rm: Round, tin: Tininess) -> (F::W, u8) {
    let (sa, ca) = unpack::<F>(a);
    let (sb, cb) = unpack::<F>(b);
    let s = sa != sb;
    if let (Class::Finite { exp: ea, sig: ma }, Class::Finite { exp: eb, sig: mb }) = (ca, cb) {
        let (e, m) = product::<F>(ea, ma, eb, mb);
        return round_pack::<F>(s, e, m, rm, tin);
    }
    if ca.is_nan() || cb.is_nan() {
        return nan::<F>(ca.is_snan() || cb.is_snan());
    }
    match (ca, cb) {
        (Class::Inf, Class::Zero) | (Class::Zero, Class::Inf) => nan::<F>(true),
        (Class::Inf, _) | (_, Class::Inf) => (sign_bit::<F>(s) | inf_bits::<F>(), 0),
        _ => signed_zero::<F>(s),
    }
}

/// `a * b + c` with a single rounding, in format `F`.
#[inline(always)]
pub fn fma<F: Format>(a: F::W, b: F::W, c: F::W, rm: Round, tin: Tininess) -> (F::W, u8) {
    let (fa, fb, fc) = (field::<F>(a), field::<F>(b), field::<F>(c));
    if is_normal_field::<F>(fa) & is_normal_field::<F>(fb) & is_normal_field::<F>(fc) {
        // Fast path: three normal operands.
        let (sa, ea, ma) = normal_parts::<F>(a, fa);
        let (sb, eb, mb) = normal_parts::<F>(b, fb);
        let (sc, ec, mc) = normal_parts::<F>(c, fc);
        let up = K::<F>::T - F::FRAC_BITS;
        let (ep, mp) = product::<F>(ea, ma >> up, eb, mb >> up);
        return sum_round::<F>(sa != sb, ep, mp, sc, ec, mc, rm, tin);
    }
    let (sa, ca) = unpack::<F>(a);
    let (sb, cb) = unpack::<F>(b);
    let (sc, cc) = unpack::<F>(c);
    let sp = sa != sb;
    let up = K::<F>::T - F::FRAC_BITS;
    if let (Class::Finite { exp: ea, sig: ma }, Class::Finite { exp: eb, sig: mb }) = (ca, cb) {
        let (ep, mp) = product::<F>(ea, ma, eb, mb);
        return match cc {
            Class::Finite { exp: ec, sig: mc } => sum_round::<F>(sp, ep, mp, sc, ec, mc << up, rm, tin),
            Class::Zero => round_pack::<F>(sp, ep, mp, rm, tin),
            Class::Inf => (c, 0),
            _ => nan::<F>(cc.is_snan()),
        };
    }
    if ca.is_nan() || cb.is_nan() {
        return nan::<F>(ca.is_snan() || cb.is_snan() || cc.is_snan());
    }
    if ca == Class::Inf || cb == Class::Inf {
        if ca == Class::Zero || cb == Class::Zero {
            // 0 * inf is invalid whatever the addend (SoftFloat agrees).
            return nan::<F>(true);
        }
        return match cc {
            Class::QNaN | Class::SNaN => nan::<F>(cc.is_snan()),
            Class::Inf if sc != sp => nan::<F>(true),
            _ => (sign_bit::<F>(sp) | inf_bits::<F>(), 0),
        };
    }
    // The product is an exact zero.
    match cc {
        Class::QNaN | Class::SNaN => nan::<F>(cc.is_snan()),
        Class::Zero => signed_zero::<F>(if sp == sc { sp } else { rm == Round::Min }),
        _ => (c, 0),
    }
}

/// Convert between formats (rounded in `rm`; NaN -> canonical).
#[inline(always)]
pub fn convert<S: Format, D: Format>(x: S::W, rm: Round) -> (D::W, u8) {
    let (s, c) = unpack::<S>(x);
    match c {
        Class::Finite { exp, sig } => round_pack::<D>(
            s,
            exp,
            w::<D>(sig.low_u64()) << (K::<D>::T - S::FRAC_BITS),
            rm,
            Tininess::AfterRounding,
        ),
        Class::Zero => signed_zero::<D>(s),
        Class::Inf => (sign_bit::<D>(s) | inf_bits::<D>(), 0),
        Class::QNaN | Class::SNaN => nan::<D>(c.is_snan()),
    }
}

/// Signed-magnitude integer to format `F`, rounded in `rm`.
#[inline(always)]
fn from_int<F: Format>(neg: bool, mag: u64, rm: Round) -> (F::W, u8) {
    if mag == 0 {
        return signed_zero::<F>(false);
    }
    let m = w::<F>(mag);
    let sh = m.lz() - 1;
    round_pack::<F>(neg, (K::<F>::T - sh) as i32, m << sh, rm, Tininess::AfterRounding)
}

/// Format `F` to a 32-bit integer with GPU semantics: round in `rm`,
/// saturate to the destination range, NaN -> 0.
#[inline(always)]
fn to_int<F: Format>(x: F::W, signed: bool, rm: Round) -> u32 {
    let (neg, c) = unpack::<F>(x);
    let mag: u128 = match c {
        Class::QNaN | Class::SNaN => return 0,
        Class::Zero => 0,
        Class::Inf => u128::MAX,
        Class::Finite { exp, sig } => {
            if exp > 40 {
                u128::MAX
            } else {
                // Fixed point with 64 fraction bits; values below 2^-70 keep
                // their sticky bit and round like any value in (0, 1/2).
                let exp = exp.max(-70);
                let sig = sig.low_u64() as u128;
                let sh = exp - F::FRAC_BITS as i32 + 64;
                let fx = if sh >= 0 { sig << sh } else { shr_jam(sig, (-sh) as u32) };
                let int = fx >> 64;
                let frac = fx as u64;
                const HALF: u64 = 1 << 63;
                let up = match rm {
                    Round::NearEven => frac > HALF || (frac == HALF && int & 1 == 1),
                    Round::NearMaxMag => frac >= HALF,
                    Round::MinMag => false,
                    Round::Min => neg && frac != 0,
                    Round::Max => !neg && frac != 0,
                };
                int + up as u128
            }
        }
    };
    match (signed, neg) {
        (true, false) => mag.min(i32::MAX as u128) as u32,
        (true, true) => (mag.min(1 << 31) as u32).wrapping_neg(),
        (false, false) => mag.min(u32::MAX as u128) as u32,
        (false, true) => 0,
    }
}

/// FP32 `a + b`.
#[inline]
pub fn f32_add(a: u32, b: u32, rm: Round, t: Tininess) -> (u32, Flags) {
    let (r, f) = add::<Binary32>(a as u64, b as u64, rm, t);
    (r as u32, Flags(f))
}
/// FP32 `a * b`.
#[inline]
pub fn f32_mul(a: u32, b: u32, rm: Round, t: Tininess) -> (u32, Flags) {
    let (r, f) = mul::<Binary32>(a as u64, b as u64, rm, t);
    (r as u32, Flags(f))
}
/// a * b + c with one rounding.
#[inline]
pub fn f32_fma(a: u32, b: u32, c: u32, rm: Round, t: Tininess) -> (u32, Flags) {
    let (r, f) = fma::<Binary32>(a as u64, b as u64, c as u64, rm, t);
    (r as u32, Flags(f))
}
/// FP64 `a + b`.
#[inline]
pub fn f64_add(a: u64, b: u64, rm: Round, t: Tininess) -> (u64, Flags) {
    let (r, f) = add::<Binary64>(a as u128, b as u128, rm, t);
    (r as u64, Flags(f))
}
/// FP64 `a * b`.
#[inline]
pub fn f64_mul(a: u64, b: u64, rm: Round, t: Tininess) -> (u64, Flags) {
    let (r, f) = mul::<Binary64>(a as u128, b as u128, rm, t);
    (r as u64, Flags(f))
}
/// FP64 `a * b + c` with one rounding (GT200/Fermi DFMA).
#[inline]
pub fn f64_fma(a: u64, b: u64, c: u64, rm: Round, t: Tininess) -> (u64, Flags) {
    let (r, f) = fma::<Binary64>(a as u128, b as u128, c as u128, rm, t);
    (r as u64, Flags(f))
}

/// Integer -> FP32 (`signed` selects s32 or u32 reading of `x`), rounded in
/// `rm`.
pub fn i32_to_f32(x: u32, signed: bool, rm: Round) -> u32 {
    let (neg, mag) = if signed && (x as i32) < 0 {
        (true, (x as i32).unsigned_abs() as u64)
    } else {
        (false, x as u64)
    };
    from_int::<Binary32>(neg, mag, rm).0 as u32
}
/// FP32 -> integer, GPU semantics: rounded in `rm`, saturated to the
/// destination range, NaN -> 0.
pub fn f32_to_i32(x: u32, signed: bool, rm: Round) -> u32 {
    to_int::<Binary32>(x as u64, signed, rm)
}
/// Integer -> FP64 (exact).
pub fn i32_to_f64(x: u32, signed: bool) -> u64 {
    let (neg, mag) = if signed && (x as i32) < 0 {
        (true, (x as i32).unsigned_abs() as u64)
    } else {
        (false, x as u64)
    };
    from_int::<Binary64>(neg, mag, Round::NearEven).0 as u64
}
/// FP64 -> integer, GPU semantics as [`f32_to_i32`].
pub fn f64_to_i32(x: u64, signed: bool, rm: Round) -> u32 {
    to_int::<Binary64>(x as u128, signed, rm)
}
/// FP32 -> FP64 (exact; NaN -> canonical).
pub fn f32_to_f64(x: u32) -> u64 {
    convert::<Binary32, Binary64>(x as u64, Round::NearEven).0 as u64
}
/// FP64 -> FP32 rounded in `rm` (NaN -> canonical).
pub fn f64_to_f32(x: u64, rm: Round) -> u32 {
    convert::<Binary64, Binary32>(x as u128, rm).0 as u32
}

/// Order key of a non-NaN FP32 encoding: monotonic, with -0 < +0.
#[inline(always)]
fn order_key(x: u32) -> u32 {
    if x & 0x8000_0000 != 0 {
        !x
    } else {
        x | 0x8000_0000
    }
}
#[inline(always)]
fn is_nan32(x: u32) -> bool {
    x & 0x7fff_ffff > 0x7f80_0000
}

/// IEEE 754-2008 minNum/maxNum as GPUs do them: a NaN operand yields the
/// other operand; two NaNs give the canonical NaN; -0 < +0.
pub fn f32_min(a: u32, b: u32) -> u32 {
    match (is_nan32(a), is_nan32(b)) {
        (true, true) => F32_CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        _ => {
            if order_key(a) <= order_key(b) {
                a
            } else {
                b
            }
        }
    }
}
/// maxNum counterpart of [`f32_min`].
pub fn f32_max(a: u32, b: u32) -> u32 {
    match (is_nan32(a), is_nan32(b)) {
        (true, true) => F32_CANONICAL_NAN,
        (true, false) => b,
        (false, true) => a,
        _ => {
            if order_key(a) >= order_key(b) {
                a
            } else {
                b
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! Hand-checked values (decoded by hand from the encodings).
    use super::*;

    const A: Tininess = Tininess::AfterRounding;
    const B: Tininess = Tininess::BeforeRounding;
    const NX: u8 = Flags::INEXACT;
    const UF: u8 = Flags::UNDERFLOW;
    const OF: u8 = Flags::OVERFLOW;
    const NV: u8 = Flags::INVALID;

    fn add32(a: u32, b: u32, rm: Round) -> (u32, u8) {
        let (r, f) = f32_add(a, b, rm, A);
        (r, f.0)
    }

    #[test]
    fn f32_add_simple_and_rounding() {
        // 1 + 2 = 3 exactly.
        assert_eq!(add32(0x3f80_0000, 0x4000_0000, Round::NearEven), (0x4040_0000, 0));
        // 1 + 2^-24 is a tie between 1 and 1+2^-23: even -> 1, away -> up.
        assert_eq!(add32(0x3f80_0000, 0x3380_0000, Round::NearEven), (0x3f80_0000, NX));
        assert_eq!(add32(0x3f80_0000, 0x3380_0000, Round::NearMaxMag), (0x3f80_0001, NX));
        assert_eq!(add32(0x3f80_0000, 0x3380_0000, Round::Max), (0x3f80_0001, NX));
        assert_eq!(add32(0x3f80_0000, 0x3380_0000, Round::Min), (0x3f80_0000, NX));
        // (1+2^-23) + 2^-24: tie, odd last bit -> even rounds up to 1+2^-22.
        assert_eq!(add32(0x3f80_0001, 0x3380_0000, Round::NearEven), (0x3f80_0002, NX));
        // -1 - 2^-24 toward -inf rounds away in magnitude.
        assert_eq!(add32(0xbf80_0000, 0xb380_0000, Round::Min), (0xbf80_0001, NX));
        assert_eq!(add32(0xbf80_0000, 0xb380_0000, Round::Max), (0xbf80_0000, NX));
        assert_eq!(add32(0xbf80_0000, 0xb380_0000, Round::MinMag), (0xbf80_0000, NX));
        // 1 - 2^-30 toward zero -> 1 - 2^-24 (0x3f7fffff).
        assert_eq!(add32(0x3f80_0000, 0xb080_0000, Round::MinMag), (0x3f7f_ffff, NX));
    }

    #[test]
    fn f32_add_zeros_and_specials() {
        for rm in Round::ALL {
            let neg = rm == Round::Min;
            // x + (-x) = +0 (or -0 toward negative).
            let z = if neg { 0x8000_0000 } else { 0 };
            assert_eq!(add32(0x4049_0fdb, 0xc049_0fdb, rm), (z, 0));
            assert_eq!(add32(0x0000_0000, 0x8000_0000, rm), (z, 0));
            assert_eq!(add32(0x8000_0000, 0x8000_0000, rm), (0x8000_0000, 0));
            assert_eq!(add32(0x0000_0000, 0x0000_0000, rm), (0, 0));
            // inf - inf invalid; sNaN invalid; qNaN quiet.
            assert_eq!(add32(0x7f80_0000, 0xff80_0000, rm), (F32_CANONICAL_NAN, NV));
            assert_eq!(add32(0x7f80_0001, 0x3f80_0000, rm), (F32_CANONICAL_NAN, NV));
            assert_eq!(add32(0x7fc0_0000, 0x3f80_0000, rm), (F32_CANONICAL_NAN, 0));
            assert_eq!(add32(0xff80_0000, 0x3f80_0000, rm), (0xff80_0000, 0));
            // Subnormal + zero is exact, no underflow.
            assert_eq!(add32(0x0000_0001, 0x8000_0000, rm), (0x0000_0001, 0));
            // Two subnormals: exact sum, no flags.
            assert_eq!(add32(0x0000_0003, 0x0000_0005, rm), (0x0000_0008, 0));
        }
    }

    #[test]
    fn f32_overflow() {
        let max = 0x7f7f_ffff;
        assert_eq!(add32(max, max, Round::NearEven), (0x7f80_0000, OF | NX));
        assert_eq!(add32(max, max, Round::MinMag), (max, OF | NX));
        assert_eq!(add32(max, max, Round::Min), (max, OF | NX));
        assert_eq!(add32(max | 1 << 31, max | 1 << 31, Round::Min), (0xff80_0000, OF | NX));
        assert_eq!(add32(max | 1 << 31, max | 1 << 31, Round::Max), (0xff7f_ffff, OF | NX));
        // max + half an ulp (2^103) ties to even -> infinity.
        assert_eq!(add32(max, 0x7300_0000, Round::NearEven), (0x7f80_0000, OF | NX));
        // max + a quarter ulp rounds back to max, inexact only.
        assert_eq!(add32(max, 0x7280_0000, Round::NearEven), (max, NX));
    }

    #[test]
    fn f32_underflow_and_tininess() {
        // (1 + 2^-23) * 2^-126 (1 - 2^-23) = 2^-126 (1 - 2^-46): tiny before
        // rounding; rounded to 24 bits (unbounded exponent) it is 2^-126,
        // so not tiny after rounding.
        let (a, b) = (0x3f80_0001, 0x007f_ffff);
        let (r, f) = f32_mul(a, b, Round::NearEven, A);
        assert_eq!((r, f.0), (0x0080_0000, NX));
        let (r, f) = f32_mul(a, b, Round::NearEven, B);
        assert_eq!((r, f.0), (0x0080_0000, NX | UF));
        let (r, f) = f32_mul(a, b, Round::MinMag, A);
        assert_eq!((r, f.0), (0x007f_ffff, NX | UF));
        // (1 - 2^-24) * 2^-126 = 2^-126 - 2^-150 is exact in 24 bits, hence
        // tiny after rounding too; as a subnormal it ties up to 2^-126.
        let (r, f) = f32_mul(0x3f7f_ffff, 0x0080_0000, Round::NearEven, A);
        assert_eq!((r, f.0), (0x0080_0000, NX | UF));
        // Smallest subnormal * 0.5 = tie between 0 and 2^-149 -> 0 (even).
        let (r, f) = f32_mul(0x0000_0001, 0x3f00_0000, Round::NearEven, A);
        assert_eq!((r, f.0), (0, NX | UF));
        let (r, f) = f32_mul(0x0000_0001, 0x3f00_0000, Round::Max, A);
        assert_eq!((r, f.0), (1, NX | UF));
        // Exact subnormal result: no underflow flag.
        let (r, f) = f32_mul(0x0000_0002, 0x3f00_0000, Round::NearEven, B);
        assert_eq!((r, f.0), (1, 0));
    }

    #[test]
    fn f32_fma_cases() {
        let one = 0x3f80_0000;
        // (1+2^-23)^2 - (1+2^-22) = 2^-46 exactly (lost by an unfused FMAD).
        let (r, f) = f32_fma(0x3f80_0001, 0x3f80_0001, 0xbf80_0002, Round::NearEven, A);
        assert_eq!((r, f.0), (0x2880_0000, 0));
        // 0 * inf + qNaN raises invalid (SoftFloat's choice).
        let (r, f) = f32_fma(0, 0x7f80_0000, 0x7fc0_0000, Round::NearEven, A);
        assert_eq!((r, f.0), (F32_CANONICAL_NAN, NV));
        // inf * 1 + qNaN is quiet.
        let (r, f) = f32_fma(0x7f80_0000, one, 0x7fc0_0000, Round::NearEven, A);
        assert_eq!((r, f.0), (F32_CANONICAL_NAN, 0));
        // inf * 1 - inf invalid.
        let (r, f) = f32_fma(0x7f80_0000, one, 0xff80_0000, Round::NearEven, A);
        assert_eq!((r, f.0), (F32_CANONICAL_NAN, NV));
        // qNaN * 1 + sNaN invalid.
        let (r, f) = f32_fma(0x7fc0_0000, one, 0x7f80_0001, Round::NearEven, A);
        assert_eq!((r, f.0), (F32_CANONICAL_NAN, NV));
        // 1 * 1 - 1 = +0, -0 toward negative.
        let (r, _) = f32_fma(one, one, 0xbf80_0000, Round::NearEven, A);
        assert_eq!(r, 0);
        let (r, _) = f32_fma(one, one, 0xbf80_0000, Round::Min, A);
        assert_eq!(r, 0x8000_0000);
        // (-0) * 1 + (-0) = -0.
        let (r, _) = f32_fma(0x8000_0000, one, 0x8000_0000, Round::NearEven, A);
        assert_eq!(r, 0x8000_0000);
        // Tiny product plus large c: 1 + 2^-100 toward +inf -> 1 + 2^-23.
        let (r, f) = f32_fma(0x0d80_0000, one, one, Round::Max, A);
        assert_eq!((r, f.0), (0x3f80_0001, NX));
    }

    #[test]
    fn f64_cases() {
        let one = 0x3ff0_0000_0000_0000u64;
        // 1 + 2^-53 ties to even -> 1.
        let (r, f) = f64_add(one, 0x3ca0_0000_0000_0000, Round::NearEven, A);
        assert_eq!((r, f.0), (one, NX));
        let (r, f) = f64_add(one, 0x3ca0_0000_0000_0000, Round::NearMaxMag, A);
        assert_eq!((r, f.0), (one + 1, NX));
        // 3 * 3 = 9.
        let (r, f) = f64_mul(0x4008_0000_0000_0000, 0x4008_0000_0000_0000, Round::NearEven, A);
        assert_eq!((r, f.0), (0x4022_0000_0000_0000, 0));
        // (1+2^-52)^2 - (1+2^-51) = 2^-104.
        let (r, f) = f64_fma(one + 1, one + 1, (one + 2) | 1 << 63, Round::NearEven, A);
        assert_eq!((r, f.0), (0x3970_0000_0000_0000, 0));
        // max * 2 overflows.
        let (r, f) = f64_mul(0x7fef_ffff_ffff_ffff, 0x4000_0000_0000_0000, Round::MinMag, A);
        assert_eq!((r, f.0), (0x7fef_ffff_ffff_ffff, OF | NX));
        // smallest subnormal * 0.75 -> rounds to 2^-1074 (nearest).
        let (r, f) = f64_mul(1, 0x3fe8_0000_0000_0000, Round::NearEven, A);
        assert_eq!((r, f.0), (1, NX | UF));
        let (r, f) = f64_mul(0x7ff0_0000_0000_0000, 0, Round::NearEven, A);
        assert_eq!((r, f.0), (F64_CANONICAL_NAN, NV));
    }

    #[test]
    fn int_conversions() {
        // 2^24 + 1 is a tie between 2^24 and 2^24 + 2.
        assert_eq!(i32_to_f32(16_777_217, true, Round::NearEven), 0x4b80_0000);
        assert_eq!(i32_to_f32(16_777_217, true, Round::Max), 0x4b80_0001);
        assert_eq!(i32_to_f32(16_777_219, true, Round::NearEven), 0x4b80_0002);
        assert_eq!(i32_to_f32(-1i32 as u32, true, Round::NearEven), 0xbf80_0000);
        assert_eq!(i32_to_f32(-1i32 as u32, false, Round::NearEven), 0x4f80_0000);
        assert_eq!(i32_to_f32(0xffff_ffff, false, Round::MinMag), 0x4f7f_ffff);
        assert_eq!(i32_to_f32(i32::MIN as u32, true, Round::NearEven), 0xcf00_0000);
        assert_eq!(i32_to_f32(0, true, Round::Min), 0);
        assert_eq!(i32_to_f64(-3i32 as u32, true), 0xc008_0000_0000_0000);
        assert_eq!(i32_to_f64(0xffff_ffff, false), 0x41ef_ffff_ffe0_0000);
        assert_eq!(i32_to_f64(0, false), 0);

        // 2.5 -> 2 (even), 3 (away), 2 (zero), 2 (down), 3 (up).
        let x = 0x4020_0000;
        let got: Vec<u32> = Round::ALL.iter().map(|&r| f32_to_i32(x, true, r)).collect();
        assert_eq!(got, vec![2, 2, 2, 3, 3]);
        // -2.5 -> -2, -2, -3, -2, -3.
        let got: Vec<i32> = Round::ALL
            .iter()
            .map(|&r| f32_to_i32(x | 1 << 31, true, r) as i32)
            .collect();
        assert_eq!(got, vec![-2, -2, -3, -2, -3]);
        // Saturation and NaN.
        assert_eq!(f32_to_i32(0x4f00_0000, true, Round::NearEven), i32::MAX as u32); // 2^31
        assert_eq!(f32_to_i32(0xcf00_0000, true, Round::NearEven), i32::MIN as u32); // -2^31
        assert_eq!(f32_to_i32(0xff80_0000, true, Round::NearEven), i32::MIN as u32);
        assert_eq!(f32_to_i32(0x7f80_0000, false, Round::NearEven), u32::MAX);
        assert_eq!(f32_to_i32(0xbf80_0000, false, Round::NearEven), 0); // -1 -> 0
        assert_eq!(f32_to_i32(0x7fc0_0000, true, Round::NearEven), 0);
        assert_eq!(f32_to_i32(0x4f80_0000, false, Round::NearEven), u32::MAX); // 2^32
        assert_eq!(f32_to_i32(0x4f7f_ffff, false, Round::NearEven), 0xffff_ff00);
        // Tiny values: 2^-149 up -> 1, down -> 0; -2^-149 down -> -1.
        assert_eq!(f32_to_i32(1, true, Round::Max), 1);
        assert_eq!(f32_to_i32(1, true, Round::NearEven), 0);
        assert_eq!(f32_to_i32(0x8000_0001, true, Round::Min), -1i32 as u32);
        // FP64: 2147483647.5 -> 2^31 (even) saturates; toward zero fits.
        let v = 0x41df_ffff_ffe0_0000u64;
        assert_eq!(f64_to_i32(v, true, Round::NearEven), i32::MAX as u32);
        assert_eq!(f64_to_i32(v, true, Round::MinMag), i32::MAX as u32);
        assert_eq!(
            f64_to_i32(0xc1e0_0000_0000_0000, true, Round::NearEven),
            i32::MIN as u32
        );
        assert_eq!(f64_to_i32(0xc1e0_0000_0020_0000, true, Round::MinMag), i32::MIN as u32);
        assert_eq!(f64_to_i32(0x7ff8_0000_0000_0000, false, Round::Max), 0);
        assert_eq!(f64_to_i32(0x4008_0000_0000_0000, false, Round::Max), 3);
    }

    #[test]
    fn float_conversions() {
        assert_eq!(f32_to_f64(0x3f80_0000), 0x3ff0_0000_0000_0000);
        // Smallest FP32 subnormal 2^-149 is a normal FP64.
        assert_eq!(f32_to_f64(0x0000_0001), 0x36a0_0000_0000_0000);
        assert_eq!(f32_to_f64(0x8000_0000), 0x8000_0000_0000_0000);
        assert_eq!(f32_to_f64(0xff80_0000), 0xfff0_0000_0000_0000);
        assert_eq!(f32_to_f64(0x7f80_0001), F64_CANONICAL_NAN);
        // 1 + 2^-24 (FP64) ties to 1 (even) / 1+2^-23 (away).
        let x = 0x3ff0_0000_1000_0000u64;
        assert_eq!(f64_to_f32(x, Round::NearEven), 0x3f80_0000);
        assert_eq!(f64_to_f32(x, Round::NearMaxMag), 0x3f80_0001);
        assert_eq!(f64_to_f32(x | 1 << 63, Round::Min), 0xbf80_0001);
        // 2^128 overflows; 2^-150 ties to 0; 2^-1074 -> 0 or 2^-149.
        assert_eq!(f64_to_f32(0x47f0_0000_0000_0000, Round::NearEven), 0x7f80_0000);
        assert_eq!(f64_to_f32(0x47f0_0000_0000_0000, Round::MinMag), 0x7f7f_ffff);
        assert_eq!(f64_to_f32(0x3690_0000_0000_0000, Round::NearEven), 0);
        assert_eq!(f64_to_f32(1, Round::Max), 1);
        assert_eq!(f64_to_f32(0x7ff0_0000_0000_0001, Round::NearEven), F32_CANONICAL_NAN);
    }

    #[test]
    fn min_max() {
        let (one, two, qnan) = (0x3f80_0000, 0x4000_0000, 0x7fc0_0000);
        assert_eq!(f32_min(one, two), one);
        assert_eq!(f32_max(one, two), two);
        assert_eq!(f32_min(0xbf80_0000, one), 0xbf80_0000);
        assert_eq!(f32_max(0xc000_0000, 0xbf80_0000), 0xbf80_0000);
        assert_eq!(f32_min(0, 0x8000_0000), 0x8000_0000);
        assert_eq!(f32_min(0x8000_0000, 0), 0x8000_0000);
        assert_eq!(f32_max(0x8000_0000, 0), 0);
        assert_eq!(f32_max(0, 0x8000_0000), 0);
        assert_eq!(f32_min(qnan, two), two);
        assert_eq!(f32_max(two, 0x7f80_0001), two);
        assert_eq!(f32_min(qnan, 0xff80_0001), F32_CANONICAL_NAN);
        assert_eq!(f32_max(0xff80_0000, 1), 1);
        assert_eq!(f32_min(0xff80_0000, 1), 0xff80_0000);
        assert_eq!(f32_max(1, 2), 2);
    }

    mod props {
        //! Identities that tie the add, mul and fma paths together
        //! (independent of SoftFloat): they hold for every encoding, every
        //! rounding mode and both tininess modes, flags included.
        use super::super::*;
        use proptest::prelude::*;

        fn rm_of(i: u8) -> Round {
            Round::ALL[i as usize % 5]
        }
        fn tin_of(b: bool) -> Tininess {
            if b {
                Tininess::BeforeRounding
            } else {
                Tininess::AfterRounding
            }
        }

        proptest! {
            #[test]
            fn f32_commutative(a: u32, b: u32, c: u32, m: u8, t: bool) {
                let (rm, t) = (rm_of(m), tin_of(t));
                prop_assert_eq!(f32_add(a, b, rm, t), f32_add(b, a, rm, t));
                prop_assert_eq!(f32_mul(a, b, rm, t), f32_mul(b, a, rm, t));
                prop_assert_eq!(f32_fma(a, b, c, rm, t), f32_fma(b, a, c, rm, t));
            }

            /// a + c = fma(a, 1, c) and a * b = fma(a, b, -0) (unless the
            /// product is an exact zero, where -0 changes the zero's sign).
            #[test]
            fn f32_fma_reduces_to_add_and_mul(a: u32, b: u32, c: u32, m: u8, t: bool) {
                let (rm, t) = (rm_of(m), tin_of(t));
                prop_assert_eq!(f32_fma(a, 0x3f80_0000, c, rm, t), f32_add(a, c, rm, t));
                let p = f32_mul(a, b, rm, t);
                if p.0 & 0x7fff_ffff != 0 {
                    prop_assert_eq!(f32_fma(a, b, 0x8000_0000, rm, t), p);
                }
            }

            #[test]
            fn f64_fma_reduces_to_add_and_mul(a: u64, b: u64, c: u64, m: u8, t: bool) {
                let (rm, t) = (rm_of(m), tin_of(t));
                let one = 0x3ff0_0000_0000_0000;
                prop_assert_eq!(f64_fma(a, one, c, rm, t), f64_add(a, c, rm, t));
                prop_assert_eq!(f64_add(a, c, rm, t), f64_add(c, a, rm, t));
                let p = f64_mul(a, b, rm, t);
                if p.0 & !(1 << 63) != 0 {
                    prop_assert_eq!(f64_fma(a, b, 1 << 63, rm, t), p);
                }
            }

            /// Widening is exact, so narrowing it back is the identity.
            #[test]
            fn f32_f64_round_trip(x: u32, m: u8) {
                let back = f64_to_f32(f32_to_f64(x), rm_of(m));
                if x & 0x7fff_ffff > 0x7f80_0000 {
                    prop_assert_eq!(back, F32_CANONICAL_NAN);
                } else {
                    prop_assert_eq!(back, x);
                }
            }
        }
    }
}
