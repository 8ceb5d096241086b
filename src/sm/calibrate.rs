//! `smrtl calibrate`: the micro-benchmark kernels
//! (`testbenches/kernels/micro/`, docs/calibration.md) on the RTL SM, their
//! figures in hot cycles beside the hardware's.
//!
//! Each case runs on the Rust SM with the golden-model check off, for
//! speed: the kernels store `SR_CLOCK` differences, core cycles on the SM
//! (warp instructions in the golden model; a checked run, `smrtl run
//! --rtl`, hands the SM's values to the golden model, docs/calibration.md).
//! What the figures are made of:
//! * latency (`lat_*`, `smem_lat`, `gmem_lat`, `bar_lat`): (delta - delta of
//!   `lat_loop`) x 2 / (32 x iters) hot cycles per instruction, delta read
//!   from thread 0 (the largest thread's for `bar_lat`);
//! * throughput (`tput_*` including `tput_imul`, `mix_mad_mul`): 128 x iters x threads / (largest
//!   delta x 2) thread instructions per hot cycle (every warp is resident
//!   for the whole loop, so the loops overlap);
//! * `smem_stride`: hot cycles per `LDS` warp instruction, (delta - delta of
//!   `lat_loop`) x 2 / (32 x iters).

use crate::config::SmConfig;
use crate::golden::asm::assemble;
use crate::sm::run::{run_program, RtlOptions};
use crate::testbenches::kernels::micro::{micro_cases, MicroCase};

/// One row of the calibration table.
#[derive(Debug, Clone)]
pub struct Row {
    pub label: String,
    /// What the figure is ("hot cycles per op", "ops per hot cycle").
    pub unit: &'static str,
    pub rtl: f64,
    /// Hardware figure where one is sourced (docs/calibration.md).
    pub hw: Option<f64>,
    pub core_cycles: u64,
    /// The SM's performance report of the measured run (issue slots,
    /// register-file conflicts, ...), as `smrtl run --rtl` prints it.
    pub report: String,
}

impl Row {
    /// Deviation from hardware in percent.
    pub fn dev(&self) -> Option<f64> {
        self.hw.map(|h| 100.0 * (self.rtl - h) / h)
    }
}

/// The hardware figure for a case on a preset (hot cycles, or ops per hot
/// cycle for throughput), from docs/calibration.md's sources.
pub fn hardware(cfg: &SmConfig, label: &str) -> Option<f64> {
    let gt = cfg.name == "gt200" || cfg.name == "tesla";
    let fermi = cfg.name == "fermi" || cfg.name == "gpucc";
    match label {
        "lat_fadd" | "lat_fmad" | "lat_iadd" if gt => Some(24.0),
        "lat_fadd" | "lat_ffma" | "lat_iadd" if fermi => Some(22.0),
        "lat_imul" if gt => Some(96.0),
        "lat_rsq" | "lat_lg2" if gt => Some(28.0),
        "lat_dadd" | "lat_dfma" if gt => Some(48.0),
        "tput_fmad" if gt => Some(cfg.sp_lanes as f64),
        "tput_ffma" if fermi => Some(cfg.sp_lanes as f64),
        // 32-bit integer multiply: 16 clocks per warp on compute 1.x (a
        // quarter of the SP rate), 16 per clock per SM on 2.0 (half).
        "tput_imul" if gt => Some(cfg.sp_lanes as f64 / 4.0),
        "tput_imul" if fermi => Some(cfg.sp_lanes as f64 / 2.0),
        // 93.5% of 3 flops per SP per hot cycle = 2.805 flops; FMAD is 2
        // flops, FMUL 1; the mix is half FMAD, half FMUL by instruction.
        "mix_mad_mul" if gt && cfg.dual_issue => Some(0.935 * 3.0 * cfg.sp_lanes as f64 / 1.5),
        "gmem_lat" if gt => Some(442.5),
        "gmem_lat" if fermi => Some(600.0),
        _ => None,
    }
}

fn word(img: &[u8], at: usize) -> u32 {
    img.get(at..at + 4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .unwrap_or(0)
}

/// Run `c` on the RTL SM; the largest delta over `threads` records of
/// `stride` bytes, and the core cycles of the run.
fn delta(cfg: &SmConfig, c: &MicroCase, stride: usize, threads: usize) -> Result<(u32, u64, String), String> {
    let prog = assemble(c.source, &format!("{}.s", c.name)).map_err(|e| e.to_string())?;
    let opts = RtlOptions {
        check: false,
        max_cycles: 20_000_000,
        ..RtlOptions::default()
    };
    let r = run_program(cfg, &prog, &c.launch, c.gmem.clone(), &opts).map_err(|e| format!("{}: {e}", c.label))?;
    let d = (0..threads).map(|t| word(&r.gmem, t * stride)).max().unwrap_or(0);
    Ok((d, r.report.core_cycles, r.report.render()))
}

/// Every micro case of `cfg` on the RTL SM.
pub fn calibrate(cfg: &SmConfig, mut progress: impl FnMut(&str)) -> Result<Vec<Row>, String> {
    let cases = micro_cases(cfg);
    let iters = |c: &MicroCase| {
        c.launch
            .params
            .get(if c.name == "gmem_lat" { 2 } else { 1 })
            .copied()
            .unwrap_or(1) as f64
    };
    let lp = cases.iter().find(|c| c.name == "lat_loop").ok_or("no lat_loop case")?;
    let (loop_d, _, _) = delta(cfg, lp, 8, 1)?;
    // The loop's overhead per iteration, for cases with another count.
    let loop_n = iters(lp);
    let mut rows = vec![];
    for c in &cases {
        if c.name == "lat_loop" {
            continue;
        }
        progress(&c.label);
        let threads = (c.launch.grid[0] * c.launch.grid[1] * c.launch.block.iter().product::<u32>()) as usize;
        let n = iters(c);
        let (unit, rtl, cycles, report) = match c.name {
            "tput_fmad" | "tput_ffma" | "tput_imul" | "mix_mad_mul" => {
                let (d, cyc, rep) = delta(cfg, c, 20, threads)?;
                (
                    "thread ops per hot cycle",
                    crate::testbenches::kernels::micro::TPUT_OPS as f64 * n * threads as f64 / (2.0 * d as f64),
                    cyc,
                    rep,
                )
            }
            "bar_lat" => {
                let (d, cyc, rep) = delta(cfg, c, 4, threads)?;
                (
                    "hot cycles per BAR",
                    2.0 * (d as f64 - loop_d as f64) / (32.0 * n),
                    cyc,
                    rep,
                )
            }
            "smem_stride" => {
                let (d, cyc, rep) = delta(cfg, c, 8, 1)?;
                (
                    "hot cycles per LDS",
                    2.0 * (d as f64 - loop_d as f64) / (32.0 * n),
                    cyc,
                    rep,
                )
            }
            _ => {
                let (d, cyc, rep) = delta(cfg, c, 8, 1)?;
                (
                    "hot cycles per op",
                    2.0 * (d as f64 - loop_d as f64 * n / loop_n) / (32.0 * n),
                    cyc,
                    rep,
                )
            }
        };
        rows.push(Row {
            label: c.label.clone(),
            unit,
            rtl,
            // The L1 row of the chase has no sourced hardware figure.
            hw: if c.label.contains(" l1 ") {
                None
            } else {
                hardware(cfg, c.name)
            },
            core_cycles: cycles,
            report,
        });
    }
    Ok(rows)
}

/// The rows as a Markdown table.
pub fn render(cfg: &SmConfig, rows: &[Row]) -> String {
    let mut s = format!(
        "| {} case | figure | RTL | hardware | deviation | core cycles |\n|---|---|---|---|---|---|\n",
        cfg.name
    );
    for r in rows {
        s += &format!(
            "| `{}` | {} | {:.2} | {} | {} | {} |\n",
            r.label,
            r.unit,
            r.rtl,
            r.hw.map(|h| format!("{h:.1}")).unwrap_or_else(|| "-".into()),
            r.dev().map(|d| format!("{d:+.1}%")).unwrap_or_else(|| "-".into()),
            r.core_cycles
        );
    }
    s
}
