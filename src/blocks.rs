//! The blocks by name ([`BlockName`]) and what is done with a block
//! whatever its type ([`BlockFn`]): the vocabulary the units' builders
//! (`with_lsu`, `with_cta`, ...) and the flows share. It sits below the
//! units, so they do not import the flows (which re-export it).

use crate::hdl::{verilog, Block};
use anyhow::Result;

/// The blocks the command line knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum BlockName {
    /// Synchronous FIFO, 32 bits wide; depth = `gpucc.fifo_depth` of the
    /// config, 16 when the config has no GPU-CC section.
    Fifo,
    /// Dual-clock proof slice: hot-clock multiply-add pipeline feeding a
    /// 4-bank x 64 x 32 register file on the core clock.
    MadRf,
    /// Shared-memory unit: `smem_banks` banks, `smem_bytes`, requests served
    /// per `smem_request_threads` lanes, `smem_multicast` broadcast rule.
    Smem,
    /// Operand collectors with the banked register file (`u_rf`):
    /// `reg_banks / 4` groups, `opcoll_units` collectors pooled per
    /// scheduler, `warp_schedulers` issue ports and write channels.
    Opcoll,
    /// SP array: `warp_schedulers` groups of `sp_lanes / warp_schedulers`
    /// lanes, FP32 flavour from `mul_add`, `sp_latency`, `imul32_passes`.
    Sp,
    /// FP64 unit: `fp64_units` lanes (else `sp_lanes / fp64_rate_divisor`),
    /// `dpu_latency`.
    Dpu,
    /// Instruction decode (ISA table); FP64 instructions are errors when
    /// `fp64_rate_divisor = 0`.
    Decode,
    /// Scoreboard of `max_warps` warps, `warp_schedulers` channels.
    Scoreboard,
    /// Predicate file of `max_warps` warps, `warp_schedulers` channels.
    Predfile,
    /// Warp scheduler `warp_schedulers - 1` (Fermi: the odd-warp one, with
    /// the FP64/SP peer rule) over `max_warps / warp_schedulers` warps.
    Sched,
    /// SIMT control: per-warp pc, active mask and reconvergence stack;
    /// `max_warps` warps, `warp_schedulers` advance ports,
    /// `simt_stack_depth` entries.
    Simt,
    /// Special-function units: `sfu_units` interpolators serving `sp_lanes`
    /// lanes, datapath depth `sfu_latency`.
    Sfu,
    /// Instruction buffer: `max_warps` warps x `ibuffer_entries` decoded
    /// entries, `warp_schedulers` pop ports.
    Ibuffer,
    /// Barrier: one per CTA slot (`max_ctas`) over `max_warps` warps, with
    /// deadlock detection.
    Barrier,
    /// Load/store unit: `max_warps` shared windows, coalescing per
    /// `smem_request_threads` lanes (16: GT200 segments, 32: Fermi lines).
    Lsu,
    /// Instruction fetch and instruction cache: `max_warps` warps,
    /// `icache_bytes` in `icache_ways` ways of `icache_line_bytes` lines.
    Ifetch,
    /// CTA launcher: `max_warps` warp slots, `max_ctas` CTA slots,
    /// occupancy from the preset's limits, special registers for S2R.
    Cta,
    /// Write-back: per-source result queues, write channels, credits.
    Wb,
    /// IMUL delay table between wb and the scoreboard: `imul32_latency`
    /// (must be > 0: GT200/Tesla), `warp_schedulers` channels.
    Imuldly,
    /// L1 data cache between the LSU and the global port: `l1_bytes` (must
    /// be 16 KB: Fermi), `l1_ways`, `l1_latency`, `gm_requesters`.
    L1,
    /// Global-memory arbiter of `gm_requesters` requesters (the L1's
    /// requester side without a cache, for an SM without an L1).
    GmArb,
    /// The GPU-CC network (`src/units/gpucc/`): 32 cores of `sp_latency`
    /// in the preset's lane flavour, 16 LSUs, lanes A-E; needs a
    /// `[gpucc]` section (the gpucc preset).
    Gpucc,
    /// The GPU-CC network whose 32 cores have no SP lane of their own:
    /// core `j` drives the SM's SP lane `j` through `ln<j>_*` (the SP
    /// array's lane ports in lane mode); otherwise as `gpucc`.
    GpuccX,
    /// The GPU-CC network's memory front end (`src/units/gpucc/mem.rs`):
    /// 16 LSU ports coalesced into line requests on one L1 requester
    /// port with ids below `32 ceil(lsu_tags / 32)`.
    GpuccMem,
    /// The whole SM of the preset (`src/sm/top/`).
    Sm,
}

/// Something to do with a block, whatever its type.
pub trait BlockFn {
    type Out;
    fn call<K: Block + Clone>(&mut self, blk: K) -> Result<Self::Out>;
}

/// `(module, verilog)` of every module of the block it is handed.
pub struct Emit;

impl BlockFn for Emit {
    type Out = Vec<(String, String)>;
    fn call<K: Block + Clone>(&mut self, blk: K) -> Result<Vec<(String, String)>> {
        Ok(verilog::emit(&crate::hdl::elaborate(&blk)?))
    }
}
