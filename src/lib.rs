//! smrtl: a bit-accurate, cycle-accurate RTL model of a GPU streaming
//! multiprocessor (NVIDIA Tesla/GT200/Fermi class) and of its GPU-CC
//! extension.
//!
//! * [`hdl`]: the embedded HDL every block is written in (bit vectors,
//!   `Backend` trait with a concrete and a tracing interpretation, registers,
//!   memories, clock scheduler, VCD writer, Verilog emitter).
//! * [`cosim`]: Verilator and Icarus harnesses for lock-step co-simulation.
//! * [`units`]: the SM blocks; [`blocks`]: the blocks by name.
//! * [`config`]: `SmConfig`, the presets and their validation.
//! * [`sm`]: the SM top, the runner, calibration and benchmarks.
//! * [`fuzz`]: the fuzz driver behind `smrtl fuzz` (docs/fuzz.md).
//! * [`testbenches`]: reusable stimulus, reference models and monitors
//!   (source in the top-level `testbenches/` folder).

pub mod blocks;
pub mod codes;
pub mod config;
pub mod cosim;
pub mod flows;
pub mod fpga;
pub mod fuzz;
pub mod golden;
pub mod hdl;
pub mod shapes;
pub mod sm;
#[path = "../testbenches/mod.rs"]
pub mod testbenches;
pub mod units;
