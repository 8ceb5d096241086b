//! Reference arithmetic, bit-exact, written for clarity.
//!
//! * [`ieee`]: IEEE 754-2008 binary32/binary64 add, mul, fused multiply-add
//!   (all five rounding modes, the five exception flags, subnormals,
//!   tininess before or after rounding), conversions, min/max, compares.
//! * [`tesla`]: the Tesla/GT200 FP32 datapath: FADD/FMUL with flushed
//!   denormals and the canonical NaN, and the unfused FMAD.
//! * [`sfu`]: the special-function unit's quadratic interpolation over
//!   generated coefficient tables (rcp, rsqrt, lg2, ex2, sin, cos) and its
//!   range-reduction steps.

pub mod ieee;
pub mod sfu;
pub mod tesla;

/// IEEE 754-2008 rounding-direction attributes (TestFloat's names in the
/// comments).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Round {
    /// roundTiesToEven (`near_even`): the default.
    NearEven,
    /// roundTowardZero (`minMag`).
    MinMag,
    /// roundTowardNegative (`min`).
    Min,
    /// roundTowardPositive (`max`).
    Max,
    /// roundTiesToAway (`near_maxMag`).
    NearMaxMag,
}

impl Round {
    pub const ALL: [Round; 5] = [
        Round::NearEven,
        Round::MinMag,
        Round::Min,
        Round::Max,
        Round::NearMaxMag,
    ];
}

/// When an IEEE operation detects tininess (for the underflow flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Tininess {
    BeforeRounding,
    /// SoftFloat's and x86's default.
    #[default]
    AfterRounding,
}

/// IEEE exception flags; the bit values are SoftFloat's and TestFloat's
/// (`softfloat_flag_*`), so a TestFloat flags column compares directly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(pub u8);

impl Flags {
    pub const INEXACT: u8 = 1;
    pub const UNDERFLOW: u8 = 2;
    pub const OVERFLOW: u8 = 4;
    pub const INFINITE: u8 = 8;
    pub const INVALID: u8 = 16;
    pub const NONE: Flags = Flags(0);
}

/// The canonical NaN every GPU FP32 operation returns.
pub const F32_CANONICAL_NAN: u32 = 0x7fff_ffff;
/// The canonical FP64 NaN (high word 0x7fffffff, low word all ones).
pub const F64_CANONICAL_NAN: u64 = 0x7fff_ffff_ffff_ffff;
