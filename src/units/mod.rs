//! The SM blocks, one folder per block.
//!
//! * [`mad_rf`]: dual-clock proof block (hot-clock multiply-add pipeline
//!   feeding a core-clock banked register file).
//! * [`fp`]: FP datapath building blocks (shared by sp, dpu, sfu).
//! * [`sp`]: SP array and `sp_lane`; [`dpu`]: the FP64 unit.

pub mod decode;
pub mod dpu;
pub mod fp;
pub mod mad_rf;
pub mod opcoll;
pub mod predfile;
pub mod regfile;
pub mod sched;
pub mod scoreboard;
pub mod smem;
pub mod sp;
