//! The SM blocks, one folder per block.
//!
//! * [`decode`], [`ibuffer`], [`scoreboard`], [`predfile`], [`sched`]: the front end
//!   (docs/frontend.md).
//! * [`mad_rf`]: dual-clock proof block (hot-clock multiply-add pipeline
//!   feeding a core-clock banked register file).
//! * [`fp`]: FP datapath building blocks (shared by sp, dpu, sfu).
//! * [`sp`]: SP array and `sp_lane`; [`dpu`]: the FP64 unit.
//! * [`sfu`]: the special-function units (quadratic interpolators).

pub mod barrier;
pub mod cta;
pub mod decode;
pub mod dpu;
pub mod fp;
pub mod gm;
pub mod gmarb;
pub mod gpucc;
pub mod ibuffer;
pub mod ifetch;
pub mod imuldly;
pub mod l1;
pub mod lsu;
pub mod mad_rf;
pub mod opcoll;
pub mod predfile;
pub mod regfile;
pub mod sched;
pub mod scoreboard;
pub mod sfu;
pub mod simt;
pub mod smem;
pub mod sp;
pub mod testfloat_rtl;
pub mod wb;

/// Build front-end block `name` (decode, scoreboard, predfile, sched,
/// ibuffer) for `cfg`: warps and schedulers are type parameters, from the
/// config's warp shape (`crate::shapes`).
pub fn frontend_blocks<F: crate::blocks::BlockFn>(
    name: crate::blocks::BlockName,
    cfg: &crate::config::SmConfig,
    f: &mut F,
) -> anyhow::Result<F::Out> {
    use crate::blocks::BlockName as B;
    let fp64 = cfg.fp64_rate_divisor > 0;
    match name {
        B::Decode => f.call(decode::Decode::new(fp64)),
        B::Scoreboard => crate::with_warp_shape!(cfg, "scoreboard", |MW, NS, NC| f
            .call(scoreboard::Scoreboard::<MW, NS>::new())),
        B::Predfile => crate::with_warp_shape!(cfg, "predfile", |MW, NS, NC| f
            .call(predfile::Predfile::<MW, NS>::new())),
        // One scheduler's block: `max_warps / warp_schedulers` warps.
        B::Sched => crate::with_warp_shape!(cfg, "sched", |MW, NS, NC| f.call(sched::Sched::<{ MW / NS }>::new(
            sched::SchedParams::of(cfg, cfg.warp_schedulers - 1)
        ))),
        B::Ibuffer => crate::with_warp_shape!(cfg, "ibuffer", |MW, NS, NC| match cfg.ibuffer_entries {
            1 => f.call(ibuffer::Ibuffer::<MW, NS, 1>::new(fp64)),
            2 => f.call(ibuffer::Ibuffer::<MW, NS, 2>::new(fp64)),
            n => anyhow::bail!("config `{}`: ibuffer_entries = {n} is not supported (1 or 2)", cfg.name),
        }),
        _ => Err(anyhow::anyhow!("{name:?} is not a front-end block")),
    }
}
