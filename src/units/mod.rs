//! The SM blocks, one folder per block.
//!
//! * [`mad_rf`]: dual-clock proof block (hot-clock multiply-add pipeline
//!   feeding a core-clock banked register file).
//! * [`sfu`]: the special-function units (quadratic interpolators).

pub mod mad_rf;
pub mod sfu;
pub mod smem;
