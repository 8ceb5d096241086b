//! The Tesla/GT200 FP32 datapath (seed 000, SPEC section 3).
//!
//! STUB (issue 3): host-FPU bodies; the real implementation replaces them
//! with the same signatures.
use super::{Round, F32_CANONICAL_NAN};

fn ftz(x: u32) -> f32 {
    let f = f32::from_bits(x);
    if f.is_subnormal() {
        f32::from_bits(x & 0x8000_0000)
    } else {
        f
    }
}
fn out(x: f32) -> u32 {
    if x.is_nan() {
        F32_CANONICAL_NAN
    } else if x.is_subnormal() {
        x.to_bits() & 0x8000_0000
    } else {
        x.to_bits()
    }
}
/// Tesla FADD.
pub fn fadd(a: u32, b: u32, _rm: Round) -> u32 {
    out(ftz(a) + ftz(b))
}
/// Tesla FMUL.
pub fn fmul(a: u32, b: u32, _rm: Round) -> u32 {
    out(ftz(a) * ftz(b))
}
/// Tesla FMAD: a * b + c, product truncated, not fused; nearest-even only.
pub fn fmad(a: u32, b: u32, c: u32) -> u32 {
    out(ftz(a) * ftz(b) + ftz(c))
}
