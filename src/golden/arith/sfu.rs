//! The special-function unit's algorithm.
//!
//! STUB (issue 3): host-libm bodies; the real implementation (quadratic
//! interpolation over generated tables) replaces them with the same
//! signatures.
//!
//! Program order on the GPU: `SIN(PRESIN(x))`, `COS(PRESIN(x))`,
//! `EX2(PREEX2(x))`; RCP, RSQ, LG2 take the FP32 value directly.

/// Range reduction for SIN/COS: the argument as a fixed-point fraction of
/// a period (format defined by the real implementation).
pub fn presin(x: u32) -> u32 {
    (f32::from_bits(x) / (2.0 * std::f32::consts::PI)).to_bits()
}
/// Range reduction for EX2.
pub fn preex2(x: u32) -> u32 {
    x
}
pub fn rcp(x: u32) -> u32 {
    (1.0 / f32::from_bits(x)).to_bits()
}
pub fn rsqrt(x: u32) -> u32 {
    (1.0 / f32::from_bits(x).sqrt()).to_bits()
}
pub fn lg2(x: u32) -> u32 {
    f32::from_bits(x).log2().to_bits()
}
/// 2^x of a PREEX2 result.
pub fn ex2(x: u32) -> u32 {
    f32::from_bits(x).exp2().to_bits()
}
/// sin of a PRESIN result.
pub fn sin(x: u32) -> u32 {
    (f32::from_bits(x) * 2.0 * std::f32::consts::PI).sin().to_bits()
}
/// cos of a PRESIN result.
pub fn cos(x: u32) -> u32 {
    (f32::from_bits(x) * 2.0 * std::f32::consts::PI).cos().to_bits()
}
