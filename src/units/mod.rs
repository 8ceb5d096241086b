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

/// Build front-end block `name` (decode, scoreboard, predfile, sched) for
/// `cfg`: warp counts are type parameters, one arm per supported count.
pub fn frontend_blocks<F: crate::blocks::BlockFn>(
    name: crate::blocks::BlockName,
    cfg: &crate::config::SmConfig,
    f: &mut F,
) -> anyhow::Result<F::Out> {
    use crate::blocks::BlockName as B;
    let (mw, ns) = (cfg.max_warps as usize, cfg.warp_schedulers as usize);
    let unsupported = || {
        anyhow::anyhow!(
            "config `{}`: {mw} warps on {ns} schedulers are not supported by the front-end blocks \\
             (16, 32 or 48 warps; 1 or 2 schedulers)",
            cfg.name
        )
    };
    match name {
        B::Decode => f.call(decode::Decode::new(cfg.fp64_rate_divisor > 0)),
        B::Scoreboard => match (mw, ns) {
            (16, 1) => f.call(scoreboard::Scoreboard::<16, 1>::new()),
            (32, 1) => f.call(scoreboard::Scoreboard::<32, 1>::new()),
            (48, 2) => f.call(scoreboard::Scoreboard::<48, 2>::new()),
            (32, 2) => f.call(scoreboard::Scoreboard::<32, 2>::new()),
            _ => Err(unsupported()),
        },
        B::Predfile => match (mw, ns) {
            (16, 1) => f.call(predfile::Predfile::<16, 1>::new()),
            (32, 1) => f.call(predfile::Predfile::<32, 1>::new()),
            (48, 2) => f.call(predfile::Predfile::<48, 2>::new()),
            (32, 2) => f.call(predfile::Predfile::<32, 2>::new()),
            _ => Err(unsupported()),
        },
        B::Sched => {
            let p = sched::SchedParams::of(cfg, cfg.warp_schedulers - 1);
            match (mw, ns) {
                (16, 1) | (32, 2) => f.call(sched::Sched::<16>::new(p)),
                (32, 1) => f.call(sched::Sched::<32>::new(p)),
                (48, 2) => f.call(sched::Sched::<24>::new(p)),
                _ => Err(unsupported()),
            }
        }
        B::Ibuffer => {
            let fp64 = cfg.fp64_rate_divisor > 0;
            match (mw, ns, cfg.ibuffer_entries) {
                (16, 1, 2) => f.call(ibuffer::Ibuffer::<16, 1, 2>::new(fp64)),
                (32, 1, 2) => f.call(ibuffer::Ibuffer::<32, 1, 2>::new(fp64)),
                (48, 2, 2) => f.call(ibuffer::Ibuffer::<48, 2, 2>::new(fp64)),
                (16, 1, 1) => f.call(ibuffer::Ibuffer::<16, 1, 1>::new(fp64)),
                (32, 1, 1) => f.call(ibuffer::Ibuffer::<32, 1, 1>::new(fp64)),
                (48, 2, 1) => f.call(ibuffer::Ibuffer::<48, 2, 1>::new(fp64)),
                _ => Err(unsupported()),
            }
        }
        _ => Err(anyhow::anyhow!("{name:?} is not a front-end block")),
    }
}
