//! Reusable stimulus, reference models and monitors for the testbenches,
//! the co-simulation tests and the benchmarks.
//!
//! * [`stimulus`]: random port values that respect clock domains.
//! * [`fifo_ref`]: a plain-Rust model of the FIFO's cycle behaviour.
//! * [`mad_rf_ref`]: a plain-Rust model of the dual-clock slice.
//! * [`kernels`]: the benchmark kernels (assembly) with bit-exact host
//!   references.

pub mod barrier_ref;
pub mod barrier_tb;
pub mod cta_ref;
pub mod cta_tb;
pub mod fe_ref;
pub mod fe_tb;
pub mod fe_waves;
pub mod fifo_pair;
pub mod fifo_ref;
pub mod fp_vec;
pub mod gmarb_ref;
pub mod gmarb_tb;
pub mod gmem;
pub mod gpucc_gen;
pub mod gpucc_mem_tb;
pub mod gpucc_sp;
pub mod gpucc_tb;
pub mod ifetch_ref;
pub mod ifetch_tb;
pub mod imem;
pub mod kernels;
pub mod l1_ref;
pub mod l1_tb;
pub mod lanes;
pub mod lsu_ref;
pub mod lsu_tb;
pub mod mad_rf_ref;
pub mod mem_ports;
pub mod opcoll_ref;
pub mod opcoll_tb;
pub mod progen;
pub mod sfu_tb;
pub mod simt_ref;
pub mod simt_tb;
pub mod smem_ref;
pub mod smem_tb;
pub mod sp_ref;
pub mod sp_tb;
pub mod stimulus;
pub mod wb_ref;
pub mod wb_tb;
