//! The SM blocks, one folder per block.
//!
//! * [`mad_rf`]: dual-clock proof block (hot-clock multiply-add pipeline
//!   feeding a core-clock banked register file).

pub mod barrier;
pub mod mad_rf;
pub mod simt;
pub mod smem;
