//! IEEE 754-2008 binary32 / binary64 reference arithmetic.
//!
//! STUB (issue 3): bodies below use the host FPU and are correct only for
//! round-to-nearest-even results, without flags. The real implementation
//! replaces them with the same signatures.
use super::{Flags, Round, Tininess, F32_CANONICAL_NAN, F64_CANONICAL_NAN};

fn nan32(x: f32) -> u32 {
    if x.is_nan() {
        F32_CANONICAL_NAN
    } else {
        x.to_bits()
    }
}
fn nan64(x: f64) -> u64 {
    if x.is_nan() {
        F64_CANONICAL_NAN
    } else {
        x.to_bits()
    }
}

pub fn f32_add(a: u32, b: u32, _rm: Round, _t: Tininess) -> (u32, Flags) {
    (nan32(f32::from_bits(a) + f32::from_bits(b)), Flags::NONE)
}
pub fn f32_mul(a: u32, b: u32, _rm: Round, _t: Tininess) -> (u32, Flags) {
    (nan32(f32::from_bits(a) * f32::from_bits(b)), Flags::NONE)
}
/// a * b + c with one rounding.
pub fn f32_fma(a: u32, b: u32, c: u32, _rm: Round, _t: Tininess) -> (u32, Flags) {
    (
        nan32(f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c))),
        Flags::NONE,
    )
}
pub fn f64_add(a: u64, b: u64, _rm: Round, _t: Tininess) -> (u64, Flags) {
    (nan64(f64::from_bits(a) + f64::from_bits(b)), Flags::NONE)
}
pub fn f64_mul(a: u64, b: u64, _rm: Round, _t: Tininess) -> (u64, Flags) {
    (nan64(f64::from_bits(a) * f64::from_bits(b)), Flags::NONE)
}
pub fn f64_fma(a: u64, b: u64, c: u64, _rm: Round, _t: Tininess) -> (u64, Flags) {
    (
        nan64(f64::from_bits(a).mul_add(f64::from_bits(b), f64::from_bits(c))),
        Flags::NONE,
    )
}

/// Integer -> FP32 (`signed` selects s32 or u32 reading of `x`).
pub fn i32_to_f32(x: u32, signed: bool, _rm: Round) -> u32 {
    if signed {
        (x as i32 as f32).to_bits()
    } else {
        (x as f32).to_bits()
    }
}
/// FP32 -> integer, GPU semantics: rounded in `rm`, saturated to the
/// destination range, NaN -> 0.
pub fn f32_to_i32(x: u32, signed: bool, _rm: Round) -> u32 {
    let v = f32::from_bits(x).trunc();
    if signed {
        v as i32 as u32
    } else {
        v as u32
    }
}
/// Integer -> FP64 (exact).
pub fn i32_to_f64(x: u32, signed: bool) -> u64 {
    if signed {
        (x as i32 as f64).to_bits()
    } else {
        (x as f64).to_bits()
    }
}
/// FP64 -> integer, GPU semantics as [`f32_to_i32`].
pub fn f64_to_i32(x: u64, signed: bool, _rm: Round) -> u32 {
    let v = f64::from_bits(x).trunc();
    if signed {
        v as i32 as u32
    } else {
        v as u32
    }
}
/// FP32 -> FP64 (exact; NaN -> canonical).
pub fn f32_to_f64(x: u32) -> u64 {
    nan64(f32::from_bits(x) as f64)
}
/// FP64 -> FP32 rounded in `rm`.
pub fn f64_to_f32(x: u64, _rm: Round) -> u32 {
    nan32(f64::from_bits(x) as f32)
}
/// IEEE 754-2008 minNum/maxNum as GPUs do them: a NaN operand yields the
/// other operand; -0 < +0.
pub fn f32_min(a: u32, b: u32) -> u32 {
    nan32(f32::from_bits(a).min(f32::from_bits(b)))
}
pub fn f32_max(a: u32, b: u32) -> u32 {
    nan32(f32::from_bits(a).max(f32::from_bits(b)))
}
