//! `smrtl fe-waves simt|barrier`: directed, readable waves of two front-end
//! blocks, each run with its checking testbench (every output compared with
//! the block's reference every core cycle, so a wave this writes is a wave
//! of a passing run). The `.gtkw` beside the VCD groups the ports per
//! interface and the registers per warp and per CTA slot
//! (`crate::hdl::gtkw::write_gtkw`).
//!
//! * `simt`: the `divergence` kernel (nested if/else, a Collatz loop per
//!   thread) on one CTA of 64 threads replayed through the block against
//!   the golden model's branch trace (`simt_tb::replay_golden`): per warp
//!   `pc<k>_q`, `act<k>_q`, `live<k>_q` and the stack depth `depth<k>_q`
//!   move as the warps diverge and reconverge.
//! * `barrier`: a script that shows each rule once: CTA 0 (4 warps) arrives
//!   staggered and releases at the edge after the last arrival; CTA 1 (2
//!   warps) completes because its second warp exits instead of arriving;
//!   CTA 2 (3 warps) deadlocks because one warp reached `BAR` with lanes
//!   parked on its reconvergence stack (code 6, reported once).

use super::barrier_ref::BarStim;
use super::barrier_tb::BarCheck;
use super::kernels;
use super::simt_tb::{replay_golden, SimtCheck};
use crate::config::SmConfig;
use crate::golden::asm;
use anyhow::{anyhow, Result};
use std::fmt::Write as _;
use std::path::Path;

/// Replay the divergence kernel (one CTA of 64 threads) through the
/// preset's simt block with a VCD; the summary to print.
pub fn simt_waves(cfg: &SmConfig, vcd: &Path) -> Result<String> {
    crate::with_warp_shape!(cfg, "simt", |MW, NS, NC| simt_run::<MW, NS>(cfg, vcd))
}

fn simt_run<const MW: usize, const NS: usize>(cfg: &SmConfig, vcd: &Path) -> Result<String> {
    let case = kernels::divergence(64, 64, 0x8000_0000, 7);
    let prog = asm::assemble(case.source, case.file).map_err(|e| anyhow!("{e}"))?;
    let mut c = SimtCheck::<MW, NS>::new(cfg.simt_stack_depth).map_err(|e| anyhow!("{e}"))?;
    c.sim.open_vcd(vcd)?;
    let r = replay_golden(cfg, &prog, &case.launch(), case.gmem.clone(), &mut c);
    let cycles = c.cycle;
    c.sim.close_vcd()?;
    let rows = r.map_err(|e| anyhow!("simt waves: {e} (VCD so far: {})", vcd.display()))?;
    let diverged = rows
        .iter()
        .filter(|r| r.golden_after.1 != r.golden_before && r.golden_after.1 != 0)
        .count();
    let mut s = String::new();
    let _ = writeln!(
        s,
        "simt_w{MW}_s{NS}_d{} ({}): divergence kernel, 1 CTA of 64 threads (2 warps)",
        cfg.simt_stack_depth, cfg.name
    );
    let _ = writeln!(
        s,
        "  {} warp instructions replayed, {diverged} changed the active mask, {cycles} core cycles, \
         every output equal to the reference every cycle, branch trace equal to the golden model's",
        rows.len()
    );
    let _ = writeln!(
        s,
        "VCD          {}  (open with: gtkwave {}.gtkw)",
        vcd.display(),
        vcd.display()
    );
    Ok(s)
}

/// Run the barrier script on the preset's barrier block with a VCD; the
/// summary to print.
pub fn barrier_waves(cfg: &SmConfig, vcd: &Path) -> Result<String> {
    crate::with_warp_shape!(cfg, "barrier", |MW, NS, NC| barrier_run::<MW, NC>(cfg, vcd))
}

fn barrier_run<const MW: usize, const NC: usize>(cfg: &SmConfig, vcd: &Path) -> Result<String> {
    let mut c = BarCheck::<MW, NC>::new();
    c.sim.open_vcd(vcd)?;
    let r = barrier_script(&mut c);
    c.sim.close_vcd()?;
    let log = r.map_err(|e| anyhow!("barrier waves: {e} (VCD so far: {})", vcd.display()))?;
    let mut s = format!("barrier_w{MW}_c{NC} ({}): {} core cycles\n", cfg.name, c.cycle);
    for l in log {
        let _ = writeln!(s, "  {l}");
    }
    let _ = writeln!(
        s,
        "VCD          {}  (open with: gtkwave {}.gtkw)",
        vcd.display(),
        vcd.display()
    );
    Ok(s)
}

/// The directed script; one line per event seen on the outputs.
fn barrier_script<const MW: usize, const NC: usize>(c: &mut BarCheck<MW, NC>) -> Result<Vec<String>, String> {
    let mut log = vec![];
    let idle = BarStim::default;
    let step = |c: &mut BarCheck<MW, NC>, s: BarStim, log: &mut Vec<String>| -> Result<(), String> {
        let o = c.step(&s)?;
        if let Some(r) = o.rel {
            log.push(format!("cycle {:>3}: rel_valid_o, CTA {r} released", c.cycle - 1));
        }
        if let Some(d) = o.err {
            log.push(format!(
                "cycle {:>3}: err_o code 6 (deadlock), CTA {}, waiting warps {:#x}, warp {} at pc {} \
                 arrived {:#010x} parked {:#010x}",
                c.cycle - 1,
                d.cta,
                d.warps,
                d.warp,
                d.pc,
                d.arrived,
                d.parked
            ));
        }
        Ok(())
    };
    let join = |w: u32, cta: u32| BarStim {
        join: Some((w, cta)),
        ..BarStim::default()
    };
    let arr = |w: u32, pc: u32, active: u32| BarStim {
        arr: Some((w, pc, active, u32::MAX)),
        ..BarStim::default()
    };
    // CTA 0: warps 0..4; CTA 1: warps 4, 5; CTA 2: warps 6..9.
    for w in 0..9u32 {
        step(c, join(w, [0, 0, 0, 0, 1, 1, 2, 2, 2][w as usize]), &mut log)?;
    }
    step(c, idle(), &mut log)?;
    // CTA 0 arrives one warp every other cycle; CTA 1's warp 4 arrives.
    for w in 0..4 {
        step(c, arr(w, 12, u32::MAX), &mut log)?;
        step(c, idle(), &mut log)?;
    }
    step(c, arr(4, 30, u32::MAX), &mut log)?;
    for _ in 0..3 {
        step(c, idle(), &mut log)?;
    }
    // Warp 5 exits: every live warp of CTA 1 now waits.
    step(
        c,
        BarStim {
            leave: Some(5),
            ..BarStim::default()
        },
        &mut log,
    )?;
    for _ in 0..3 {
        step(c, idle(), &mut log)?;
    }
    // CTA 2: warp 7 arrives with half its lanes (the others parked).
    step(c, arr(6, 40, u32::MAX), &mut log)?;
    step(c, arr(7, 40, 0x0000_ffff), &mut log)?;
    step(c, arr(8, 40, u32::MAX), &mut log)?;
    for _ in 0..6 {
        step(c, idle(), &mut log)?;
    }
    Ok(log)
}
