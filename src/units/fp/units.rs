//! The complete FP operations, written as pipeline stages: the IEEE fused
//! multiply-add (FFMA/FADD/FMUL, DFMA/DADD/DMUL) and the Tesla FP32 unit
//! (FADD/FMUL/FMAD with flushed denormals). Each stage is a function from
//! one [`pipe_stage!`](crate::pipe_stage) cut to the next; the one-cycle
//! operations ([`fma`], [`tesla_fp32`], ...) are the stages composed, so
//! the pipelined SP lane and every other user run one datapath.
//!
//! ```text
//!  stage  IEEE (fma)                         Tesla (tesla_fp32)
//!  1      unpack, significand product         unpack, significand product
//!         -> FpMul {a b c prod}                -> FpMul {a b c prod}
//!  2      place product and addend (LZC),     FMUL placed, FMAD truncation,
//!         special operands -> FmaPlaced       adder operands ordered
//!  3      adder operands ordered (exponent    -> TeslaSwapped
//!         and magnitude compare, swap)        FMUL round and pack, adder
//!         -> FpSwapped                        alignment shift -> TeslaAligned
//!  4      alignment shift with sticky         add; specials -> FpAdded
//!         -> FpAligned
//!  5      add -> FpAdded                      normalize -> FpSum
//!  6      normalize -> FpSum                  subnormal shift -> FpRound
//!  7      subnormal shift -> FpRound          increment, pack, specials
//!  8      increment, pack, specials
//! ```
//!
//! Signals keep the names of the one-cycle datapath documented in the
//! module above ([`super`]).

use super::{
    add_add, add_norm, add_shift, add_swap, k, kx, place, round_fin, round_shift, signed_inf, signed_zero, unpack,
    Aligned, Unpacked, NAN32, S, XW,
};
use crate::hdl::{Backend, Sig};

crate::pipe_stage! {
    /// After the multiplier (both flavours): the operands (FADD and FMUL
    /// already mapped onto `a * b + c`) and the significand product.
    pub struct FpMul, FpMulRegs [N, P2] { a: N, b: N, c: N, prod: P2 }
}

crate::pipe_stage! {
    /// IEEE: product and addend placed in the adder window, the result of
    /// special operands decided (`spec`, `sval`).
    pub struct FmaPlaced, FmaPlacedRegs [N, D] {
        spec: 1, sval: N, sp: 1, ep: XW, xp: D, sc: 1, ec: XW, xc: D, cz: 1
    }
}

crate::pipe_stage! {
    /// Tesla: the operands (for the special cases), FMUL placed for
    /// rounding (`fsg`, `fe`, `fx`), and the adder's ordered addends
    /// (`lo` not yet shifted; `d` the shift).
    pub struct TeslaSwapped, TeslaSwappedRegs {
        a: 32, b: 32, c: 32, fsg: 1, fe: XW, fx: 51, sign: 1, e: XW, d: XW, hi: 51, lo: 51, sub: 1
    }
}

crate::pipe_stage! {
    /// Tesla: the operands (for the special cases), the rounded FMUL
    /// result, and the adder's aligned addends.
    pub struct TeslaAligned, TeslaAlignedRegs {
        a: 32, b: 32, c: 32, fm: 32, sign: 1, e: XW, hi: 51, lo: 51, sub: 1
    }
}

crate::pipe_stage! {
    /// IEEE: the ordered addends (`lo` not yet shifted, `d` the shift) and
    /// the special result.
    pub struct FpSwapped, FpSwappedRegs [N, D] {
        spec: 1, sval: N, sign: 1, e: XW, d: XW, hi: D, lo: D, sub: 1
    }
}

crate::pipe_stage! {
    /// IEEE: the aligned addends ([`Aligned`]) and the special result.
    pub struct FpAligned, FpAlignedRegs [N, D] { spec: 1, sval: N, sign: 1, e: XW, hi: D, lo: D, sub: 1 }
}

crate::pipe_stage! {
    /// Both: the sum before normalization and the special result.
    pub struct FpAdded, FpAddedRegs [N, D] { spec: 1, sval: N, sign: 1, e: XW, s: D }
}

crate::pipe_stage! {
    /// Both: the normalized sum (`z` exact zero) and the special result.
    pub struct FpSum, FpSumRegs [N, D] { spec: 1, sval: N, sign: 1, e: XW, r: D, z: 1 }
}

crate::pipe_stage! {
    /// Both: the sum after [`round_shift`], ready for [`round_fin`].
    pub struct FpRound, FpRoundRegs [N, D] { spec: 1, sval: N, sign: 1, z: 1, be: XW, r: D }
}

/// The [`Aligned`] addends carried flat in a cut.
#[inline(always)]
fn aligned<B: Backend, const D: usize>(
    sign: S<B, 1>,
    e: S<B, XW>,
    hi: S<B, D>,
    lo: S<B, D>,
    sub: S<B, 1>,
) -> Aligned<B, D> {
    Aligned { sign, e, hi, lo, sub }
}

/// Stage 1: the significand product of `a` and `b` (with `flush`, Tesla,
/// a denormal's significand is still multiplied; its zero flag wins later).
#[inline(always)]
pub fn fp_mul<B: Backend, const N: usize, const E: usize, const F: usize, const P: usize, const P2: usize>(
    a: S<B, N>,
    b: S<B, N>,
    c: S<B, N>,
    flush: bool,
) -> FpMul<B, N, P2> {
    let ua = unpack::<B, N, E, F, P>(a, flush);
    let ub = unpack::<B, N, E, F, P>(b, flush);
    FpMul {
        a,
        b,
        c,
        prod: ua.sig.mul::<P, P2>(ub.sig),
    }
}

/// IEEE stage 2: place the product and the addend (normalizing, so
/// subnormals work); decide NaN, infinity and zero-product results.
#[inline(always)]
pub fn fma_place<
    B: Backend,
    const N: usize,
    const E: usize,
    const F: usize,
    const P: usize,
    const P2: usize,
    const D: usize,
>(
    x: FpMul<B, N, P2>,
    rm: S<B, 2>,
    mul_only: S<B, 1>,
) -> FmaPlaced<B, N, D> {
    const { assert!(P2 == 2 * P && D == 2 * P + 3) };
    let bias = (1i64 << (E - 1)) - 1;
    let ua = unpack::<B, N, E, F, P>(x.a, false);
    let ub = unpack::<B, N, E, F, P>(x.b, false);
    let uc = unpack::<B, N, E, F, P>(x.c, false);
    let sp = ua.sign ^ ub.sign;
    let (xp, adj_p) = place::<B, P2, D>(x.prod);
    // Leading product bit 2P-1 weighs 2^(ea + eb - 2 bias + 1).
    let ep = ua.exp + ub.exp - kx::<B>(2 * bias - 1) + adj_p;
    let (xc, adj_c) = place::<B, P, D>(uc.sig);
    let ec = uc.exp - kx::<B>(bias) + adj_c;
    let cz = mul_only | uc.zero;
    let sc = mul_only.mux(sp, uc.sign);
    // Special operands, in priority order NaN, infinite product, infinite
    // addend, zero product.
    let rm_rm = rm.eq(k::<B, 2>(2));
    let c_inf = !mul_only & uc.inf;
    let p_inf = ua.inf | ub.inf;
    let p_zero = ua.zero | ub.zero;
    let nan = ua.nan | ub.nan | (!mul_only & uc.nan) | (p_inf & p_zero) | (p_inf & c_inf & (sp ^ uc.sign));
    let zsign = (sp ^ sc).mux(rm_rm, sp);
    let zero_prod = cz.mux(signed_zero::<B, N>(zsign), x.c);
    let sval = c_inf.mux(signed_inf::<B, N, E, F>(uc.sign), zero_prod);
    let sval = p_inf.mux(signed_inf::<B, N, E, F>(sp), sval);
    FmaPlaced {
        spec: nan | p_inf | c_inf | p_zero,
        sval: nan.mux(k::<B, N>((1u64 << (N - 1)) - 1), sval),
        sp,
        ep,
        xp,
        sc,
        ec,
        xc,
        cz,
    }
}

/// IEEE stage 3: order the adder's operands.
#[inline(always)]
pub fn fma_swap<B: Backend, const N: usize, const D: usize>(x: FmaPlaced<B, N, D>) -> FpSwapped<B, N, D> {
    let (al, d) = add_swap::<B, D>(x.sp, x.ep, x.xp, x.sc, x.ec, x.xc, x.cz);
    FpSwapped {
        spec: x.spec,
        sval: x.sval,
        sign: al.sign,
        e: al.e,
        d,
        hi: al.hi,
        lo: al.lo,
        sub: al.sub,
    }
}

/// IEEE stage 4: the alignment shift.
#[inline(always)]
pub fn fp_shift<B: Backend, const N: usize, const D: usize>(x: FpSwapped<B, N, D>) -> FpAligned<B, N, D> {
    let al = add_shift::<B, D>(aligned::<B, D>(x.sign, x.e, x.hi, x.lo, x.sub), x.d);
    FpAligned {
        spec: x.spec,
        sval: x.sval,
        sign: al.sign,
        e: al.e,
        hi: al.hi,
        lo: al.lo,
        sub: al.sub,
    }
}

/// IEEE stage 5: add.
#[inline(always)]
pub fn fp_add<B: Backend, const N: usize, const D: usize>(x: FpAligned<B, N, D>) -> FpAdded<B, N, D> {
    FpAdded {
        spec: x.spec,
        sval: x.sval,
        sign: x.sign,
        e: x.e,
        s: add_add::<B, D>(aligned::<B, D>(x.sign, x.e, x.hi, x.lo, x.sub)),
    }
}

/// Stage 6 (IEEE; Tesla's 5): normalize the sum.
#[inline(always)]
pub fn fp_norm<B: Backend, const N: usize, const D: usize>(x: FpAdded<B, N, D>) -> FpSum<B, N, D> {
    let (e, r, z) = add_norm::<B, D>(x.e, x.s);
    FpSum {
        spec: x.spec,
        sval: x.sval,
        sign: x.sign,
        e,
        r,
        z,
    }
}

/// Stage 7 (IEEE; Tesla's 6): the biased exponent and, with `denorm`, the
/// shift to the subnormal position.
#[inline(always)]
pub fn fp_round_shift<B: Backend, const N: usize, const E: usize, const D: usize>(
    x: FpSum<B, N, D>,
    denorm: S<B, 1>,
) -> FpRound<B, N, D> {
    let (be, r) = round_shift::<B, E, D>(x.e, x.r, denorm);
    FpRound {
        spec: x.spec,
        sval: x.sval,
        sign: x.sign,
        z: x.z,
        be,
        r,
    }
}

/// Last stage (both): round and pack, then the special result (`spec`) or
/// `zval` for an exact zero sum.
#[inline(always)]
pub fn fp_fin<B: Backend, const N: usize, const E: usize, const F: usize, const D: usize, const MW: usize>(
    x: FpRound<B, N, D>,
    rm: S<B, 2>,
    flush: S<B, 1>,
    zval: S<B, N>,
) -> S<B, N> {
    let fin = round_fin::<B, N, E, F, D, MW>(x.sign, x.be, x.r, rm, flush);
    x.spec.mux(x.sval, x.z.mux(zval, fin))
}

/// IEEE 754-2008 fused multiply-add `a * b + c` with one rounding in mode
/// `rm`; with `mul_only` the addend is absent (an exact `a * b`, so FMUL
/// has its own zero signs). FADD is `fma(a, 1.0, b)`. Subnormals in and
/// out; every NaN result is the canonical NaN. The eight stages composed.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn fma<
    B: Backend,
    const N: usize,
    const E: usize,
    const F: usize,
    const P: usize,
    const P2: usize,
    const D: usize,
    const MW: usize,
>(
    a: S<B, N>,
    b: S<B, N>,
    c: S<B, N>,
    rm: S<B, 2>,
    mul_only: S<B, 1>,
) -> S<B, N> {
    let m = fp_mul::<B, N, E, F, P, P2>(a, b, c, false);
    let pl = fma_place::<B, N, E, F, P, P2, D>(m, rm, mul_only);
    let s = fp_norm::<B, N, D>(fp_add::<B, N, D>(fp_shift::<B, N, D>(fma_swap::<B, N, D>(pl))));
    let r = fp_round_shift::<B, N, E, D>(s, k::<B, 1>(1));
    fp_fin::<B, N, E, F, D, MW>(r, rm, k::<B, 1>(0), fma_zero::<B, N>(rm))
}

/// IEEE: the exact zero sum of nonzero operands, `-0` in RM, `+0` else.
#[inline(always)]
pub fn fma_zero<B: Backend, const N: usize>(rm: S<B, 2>) -> S<B, N> {
    signed_zero::<B, N>(rm.eq(k::<B, 2>(2)))
}

/// IEEE FP32 FMA (FFMA; FADD and FMUL through [`f32_op`]).
#[inline(always)]
pub fn f32_fma<B: Backend>(a: S<B, 32>, b: S<B, 32>, c: S<B, 32>, rm: S<B, 2>, mul_only: S<B, 1>) -> S<B, 32> {
    fma::<B, 32, 8, 23, 24, 48, 51, 48>(a, b, c, rm, mul_only)
}

/// IEEE FP64 FMA (DFMA; DADD and DMUL through [`f64_op`]).
#[inline(always)]
pub fn f64_fma<B: Backend>(a: S<B, 64>, b: S<B, 64>, c: S<B, 64>, rm: S<B, 2>, mul_only: S<B, 1>) -> S<B, 64> {
    fma::<B, 64, 11, 52, 53, 106, 109, 80>(a, b, c, rm, mul_only)
}

/// The operands of the shared IEEE datapath for FADD (`add`: `a * 1.0 +
/// b`), FMUL (`mul`: the addend dropped by `mul_only`) and FFMA (neither):
/// `(a, b, c)` as the multiply-add sees them.
#[inline(always)]
pub fn fma_operands<B: Backend, const N: usize>(
    add: S<B, 1>,
    a: S<B, N>,
    b: S<B, N>,
    c: S<B, N>,
    one: u64,
) -> (S<B, N>, S<B, N>, S<B, N>) {
    (a, add.mux(k::<B, N>(one), b), add.mux(b, c))
}

/// One shared IEEE FP32 datapath for FADD (`add`), FMUL (`mul`) and FFMA
/// (neither): FADD feeds `a * 1.0 + b`, FMUL drops the addend.
#[inline(always)]
pub fn f32_op<B: Backend>(add: S<B, 1>, mul: S<B, 1>, a: S<B, 32>, b: S<B, 32>, c: S<B, 32>, rm: S<B, 2>) -> S<B, 32> {
    let (a, b, c) = fma_operands::<B, 32>(add, a, b, c, 0x3f80_0000);
    f32_fma::<B>(a, b, c, rm, mul)
}

/// FP64 counterpart of [`f32_op`] (DADD, DMUL, DFMA).
#[inline(always)]
pub fn f64_op<B: Backend>(add: S<B, 1>, mul: S<B, 1>, a: S<B, 64>, b: S<B, 64>, c: S<B, 64>, rm: S<B, 2>) -> S<B, 64> {
    let (a, b, c) = fma_operands::<B, 64>(add, a, b, c, 0x3ff0_0000_0000_0000);
    f64_fma::<B>(a, b, c, rm, mul)
}

// ------------------------------------------------------------------ Tesla

/// Tesla FP32 unpack: denormals read as zero.
#[inline(always)]
fn tunpack<B: Backend>(x: S<B, 32>) -> Unpacked<B, 24> {
    unpack::<B, 32, 8, 23, 24>(x, true)
}

/// The window exponent and significand of a Tesla operand (normal).
#[inline(always)]
fn tplace<B: Backend>(u: &Unpacked<B, 24>) -> (S<B, XW>, S<B, 51>) {
    // Leading one at T = 49: shift the 24-bit significand up by 26.
    (u.exp - kx::<B>(127), super::shl_c::<B, 51>(u.sig.zext::<51>(), 26))
}

/// Tesla FMUL: `a * b` in mode `rm`, denormal inputs flushed, canonical
/// NaN, rounded with an unbounded exponent, results below 2^-126 flushed
/// to a signed zero. The SFU's co-issued FMUL reuses this datapath.
#[inline(always)]
pub fn tesla_fmul<B: Backend>(a: S<B, 32>, b: S<B, 32>, rm: S<B, 2>) -> S<B, 32> {
    let ua = tunpack::<B>(a);
    let ub = tunpack::<B>(b);
    tesla_fmul_p::<B>(&ua, &ub, ua.sig.mul::<24, 48>(ub.sig), rm)
}

/// Tesla FMUL on unpacked operands and their exact 48-bit significand
/// product.
#[inline(always)]
fn tesla_fmul_p<B: Backend>(ua: &Unpacked<B, 24>, ub: &Unpacked<B, 24>, prod: S<B, 48>, rm: S<B, 2>) -> S<B, 32> {
    let (sp, ep, xp) = tesla_fmul_place::<B>(ua, ub, prod);
    tesla_fmul_fin::<B>(ua, ub, sp, ep, xp, rm)
}

/// Tesla FMUL, first part: the product's sign, exponent and window.
#[inline(always)]
fn tesla_fmul_place<B: Backend>(
    ua: &Unpacked<B, 24>,
    ub: &Unpacked<B, 24>,
    prod: S<B, 48>,
) -> (S<B, 1>, S<B, XW>, S<B, 51>) {
    let sp = ua.sign ^ ub.sign;
    // Both significands are normal: the product's top bit is 47 or 46.
    let top = prod.slice::<47, 1>();
    let x0 = super::shl_c::<B, 51>(prod.zext::<51>(), 2);
    let xp = top.mux(x0, super::shl_c::<B, 51>(x0, 1));
    let ep = ua.exp + ub.exp - kx::<B>(253) - (!top).zext::<XW>();
    (sp, ep, xp)
}

/// Tesla FMUL, second part: round in `rm` (unbounded exponent, flush),
/// special operands.
#[inline(always)]
fn tesla_fmul_fin<B: Backend>(
    ua: &Unpacked<B, 24>,
    ub: &Unpacked<B, 24>,
    sp: S<B, 1>,
    ep: S<B, XW>,
    xp: S<B, 51>,
    rm: S<B, 2>,
) -> S<B, 32> {
    let one = k::<B, 1>(1);
    let fin = super::round_pack::<B, 32, 8, 23, 51, 48>(sp, ep, xp, rm, !one, one);
    let nan = ua.nan | ub.nan | ((ua.inf | ub.inf) & (ua.zero | ub.zero));
    let r = (ua.zero | ub.zero).mux(signed_zero::<B, 32>(sp), fin);
    let r = (ua.inf | ub.inf).mux(signed_inf::<B, 32, 8, 23>(sp), r);
    nan.mux(k::<B, 32>(NAN32), r)
}

/// Tesla FADD: `a + b` in mode `rm` (flushed inputs, canonical NaN,
/// unbounded-exponent rounding then flush; an exact zero sum of nonzero
/// operands is +0 in every mode).
#[inline(always)]
pub fn tesla_fadd<B: Backend>(a: S<B, 32>, b: S<B, 32>, rm: S<B, 2>) -> S<B, 32> {
    let c = k::<B, 32>(0);
    let z = k::<B, 1>(0);
    tesla_fp32::<B>(z, z, a, b, c, rm).0
}

/// Tesla FMAD `a * b + c` (nearest even only; the caller raises the error
/// for other modes).
#[inline(always)]
pub fn tesla_fmad<B: Backend>(a: S<B, 32>, b: S<B, 32>, c: S<B, 32>) -> S<B, 32> {
    let rn = k::<B, 2>(0);
    tesla_fp32::<B>(k::<B, 1>(0), k::<B, 1>(1), a, b, c, rn).0
}

/// The rounding mode the Tesla unit's FMUL and adder use: `rm`, or RN for
/// FMAD.
#[inline(always)]
pub fn tesla_rm<B: Backend>(mad: S<B, 1>, rm: S<B, 2>) -> S<B, 2> {
    mad.mux(k::<B, 2>(0), rm)
}

/// Tesla stage 2: FMUL placed for rounding; FMAD's product truncated
/// toward zero to 24 bits; the adder's operands (FADD `a + b`, FMAD
/// product + `c`) selected and ordered.
#[inline(always)]
pub fn tesla_swap<B: Backend>(x: FpMul<B, 32, 48>, mad: S<B, 1>) -> TeslaSwapped<B> {
    let ua = tunpack::<B>(x.a);
    let ub = tunpack::<B>(x.b);
    let uc = tunpack::<B>(x.c);
    let prod = x.prod;
    let (fsg, fe, fx) = tesla_fmul_place::<B>(&ua, &ub, prod);
    let sp = ua.sign ^ ub.sign;
    // FMAD: the product truncated toward zero to 24 bits (normalized).
    let top = prod.slice::<47, 1>();
    let pm: S<B, 24> = top.mux(prod.slice::<24, 24>(), prod.slice::<23, 24>());
    let ep = ua.exp + ub.exp - kx::<B>(253) - (!top).zext::<XW>();
    let xpm = super::shl_c::<B, 51>(pm.zext::<51>(), 26);
    let (ea, xa) = tplace::<B>(&ua);
    let (eb, xb) = tplace::<B>(&ub);
    let (ec, xc) = tplace::<B>(&uc);
    let (al, d) = add_swap::<B, 51>(
        mad.mux(sp, ua.sign),
        mad.mux(ep, ea),
        mad.mux(xpm, xa),
        mad.mux(uc.sign, ub.sign),
        mad.mux(ec, eb),
        mad.mux(xc, xb),
        k::<B, 1>(0),
    );
    TeslaSwapped {
        a: x.a,
        b: x.b,
        c: x.c,
        fsg,
        fe,
        fx,
        sign: al.sign,
        e: al.e,
        d,
        hi: al.hi,
        lo: al.lo,
        sub: al.sub,
    }
}

/// Tesla stage 3: FMUL rounded and packed (mode `rm`, RN for FMAD); the
/// adder's alignment shift.
#[inline(always)]
pub fn tesla_shift<B: Backend>(x: TeslaSwapped<B>, mad: S<B, 1>, rm: S<B, 2>) -> TeslaAligned<B> {
    let ua = tunpack::<B>(x.a);
    let ub = tunpack::<B>(x.b);
    let fm = tesla_fmul_fin::<B>(&ua, &ub, x.fsg, x.fe, x.fx, tesla_rm::<B>(mad, rm));
    let al = add_shift::<B, 51>(aligned::<B, 51>(x.sign, x.e, x.hi, x.lo, x.sub), x.d);
    TeslaAligned {
        a: x.a,
        b: x.b,
        c: x.c,
        fm,
        sign: al.sign,
        e: al.e,
        hi: al.hi,
        lo: al.lo,
        sub: al.sub,
    }
}

/// Tesla stage 4: add; decide the results that do not come from the adder
/// (FMUL, and FADD's and FMAD's special operands).
#[inline(always)]
pub fn tesla_add<B: Backend>(x: TeslaAligned<B>, mul: S<B, 1>, mad: S<B, 1>) -> FpAdded<B, 32, 51> {
    let sum = add_add::<B, 51>(aligned::<B, 51>(x.sign, x.e, x.hi, x.lo, x.sub));
    let ua = tunpack::<B>(x.a);
    let ub = tunpack::<B>(x.b);
    let uc = tunpack::<B>(x.c);
    let nan_c = k::<B, 32>(NAN32);
    let sp = ua.sign ^ ub.sign;

    // FADD specials (priority: NaN, a infinite, b infinite, zeros).
    let fadd_nan = ua.nan | ub.nan | (ua.inf & ub.inf & (ua.sign ^ ub.sign));
    let fadd_spec = fadd_nan | ua.inf | ub.inf | ua.zero | ub.zero;
    let fadd = (ua.zero & ub.zero).mux(signed_zero::<B, 32>(ua.sign & ub.sign), ua.zero.mux(x.b, x.a));
    let fadd = ub.inf.mux(signed_inf::<B, 32, 8, 23>(ub.sign), fadd);
    let fadd = ua.inf.mux(signed_inf::<B, 32, 8, 23>(ua.sign), fadd);
    let fadd = fadd_nan.mux(nan_c, fadd);

    // FMAD specials (priority: NaN, c infinite, product infinite, a zero
    // operand: rounded multiply then rounded add).
    let p_inf = ua.inf | ub.inf;
    let p_zero = ua.zero | ub.zero;
    let mad_nan = ua.nan | ub.nan | uc.nan | (p_inf & p_zero) | (p_inf & uc.inf & (sp ^ uc.sign));
    let mad_spec = mad_nan | uc.inf | p_inf | p_zero | uc.zero;
    let zc = signed_zero::<B, 32>(sp & uc.sign);
    let fm_zero = x.fm.slice::<0, 31>().eq(k::<B, 31>(0));
    let fmad = p_zero.mux(uc.zero.mux(zc, x.c), fm_zero.mux(zc, x.fm));
    let fmad = p_inf.mux(signed_inf::<B, 32, 8, 23>(sp), fmad);
    let fmad = uc.inf.mux(signed_inf::<B, 32, 8, 23>(uc.sign), fmad);
    let fmad = mad_nan.mux(nan_c, fmad);

    FpAdded {
        spec: mul | mad.mux(mad_spec, fadd_spec),
        sval: mul.mux(x.fm, mad.mux(fmad, fadd)),
        sign: x.sign,
        e: x.e,
        s: sum,
    }
}

/// Tesla last stage: round (RN on the subnormal grid for FMAD, mode `rm`
/// with an unbounded exponent for FADD), flush, specials; an exact zero
/// sum is `+0`.
#[inline(always)]
pub fn tesla_fin<B: Backend>(x: FpRound<B, 32, 51>, mad: S<B, 1>, rm: S<B, 2>) -> S<B, 32> {
    fp_fin::<B, 32, 8, 23, 51, 48>(x, tesla_rm::<B>(mad, rm), k::<B, 1>(1), k::<B, 32>(0))
}

/// The Tesla FP32 unit of an SP lane: one multiplier (FMUL, and FMAD's
/// product), one aligned adder and rounder shared by FADD (`a + b`, mode
/// `rm`) and FMAD (truncated product + `c`, RN on the subnormal grid).
/// Selects: `mul` FMUL, `mad` FMAD, neither FADD. Returns the result and the
/// FMUL result alone. The seven stages composed.
#[inline(always)]
pub fn tesla_fp32<B: Backend>(
    mul: S<B, 1>,
    mad: S<B, 1>,
    a: S<B, 32>,
    b: S<B, 32>,
    c: S<B, 32>,
    rm: S<B, 2>,
) -> (S<B, 32>, S<B, 32>) {
    let sw = tesla_swap::<B>(fp_mul::<B, 32, 8, 23, 24, 48>(a, b, c, true), mad);
    let al = tesla_shift::<B>(sw, mad, rm);
    let fm = al.fm;
    let s = fp_norm::<B, 32, 51>(tesla_add::<B>(al, mul, mad));
    let r = fp_round_shift::<B, 32, 8, 51>(s, mad);
    (tesla_fin::<B>(r, mad, rm), fm)
}
