//! The SM blocks, one folder per block.
//!
//! * [`mad_rf`]: dual-clock proof block (hot-clock multiply-add pipeline
//!   feeding a core-clock banked register file).

pub mod decode;
pub mod mad_rf;
pub mod smem;
pub mod scoreboard;
pub mod predfile;
pub mod sched;
