//! `smrtl bench sm`: the whole SM running a kernel (`examples/sm_demo.s`,
//! grid `grid` x 128 threads) on the Rust model and on its Verilated
//! export in one run, with and without a VCD, and the golden model on the
//! same launch. The four timed runs are repeated in [`REPS`] interleaved
//! rounds and each keeps its fastest.
//!
//! The Verilated SM is built (or taken from the cache) before the timed
//! runs. The RTL runs use `sm::run` with the golden check off (it would time the
//! golden model too); every run must finish with the same image as the
//! golden model, else the bench is an error. Rates are core cycles of the
//! SM per second of wall time; the golden model's rate is given as the
//! SM's core cycles of the same launch divided by the golden run's time
//! (what a golden-only run costs per simulated core cycle), with its warp
//! instructions per second beside it.

use crate::config::SmConfig;
use crate::golden::asm::assemble;
use crate::golden::model::{run_kernel, Launch};
use crate::sm::run::{run_program, Engine, RtlOptions};
use std::fmt::Write as _;
use std::time::Instant;

/// Rounds of the four timed runs (Rust and Verilator, each without and
/// with a VCD); each keeps its fastest.
pub const REPS: usize = 3;

/// The bench kernel's source.
pub const KERNEL: &str = include_str!("../../examples/sm_demo.s");

/// Run the bench; returns the table. `wave_dir` takes the VCDs (deleted
/// after each run).
pub fn bench_sm(cfg: &SmConfig, grid: u32, wave_dir: &std::path::Path) -> Result<String, String> {
    let prog = assemble(KERNEL, "sm_demo.s").map_err(|e| e.to_string())?;
    let block = 128;
    let launch = Launch {
        grid: [grid, 1],
        block: [block, 1, 1],
        params: vec![0],
    };
    let bytes = 4 * (grid * block) as usize;
    // The golden model is fast: repeat it for at least 0.2 s.
    let t0 = Instant::now();
    let mut reps = 0u32;
    let (want, stats) = loop {
        let r = run_kernel(cfg, &prog, &launch, vec![0; bytes]).map_err(|e| e.to_string())?;
        reps += 1;
        if t0.elapsed().as_secs_f64() >= 0.2 {
            break r;
        }
    };
    let golden_s = t0.elapsed().as_secs_f64() / reps as f64;
    std::fs::create_dir_all(wave_dir).map_err(|e| format!("{}: {e}", wave_dir.display()))?;
    // Build (or load from the cache) the Verilated SM before timing.
    let warm = RtlOptions {
        engine: Engine::Verilator,
        check: false,
        max_cycles: 10,
        ..RtlOptions::default()
    };
    let _ = run_program(cfg, &prog, &launch, vec![0; bytes], &warm);
    let mut rows: Vec<(String, f64, u64)> = vec![];
    let mut cycles = 0;
    // REPS rounds, each running all four configurations in turn; each
    // configuration keeps its fastest round (the machine's speed drifts
    // during a bench on a shared host; interleaving exposes every
    // configuration to the same drift, the minimum drops interference).
    let configs = [
        (Engine::Rust, "rust", false),
        (Engine::Rust, "rust", true),
        (Engine::Verilator, "verilator", false),
        (Engine::Verilator, "verilator", true),
    ];
    for round in 0..REPS {
        for (k, &(engine, name, vcd)) in configs.iter().enumerate() {
            let path = wave_dir.join(format!("bench_sm_{}_{name}.vcd", cfg.name));
            let opts = RtlOptions {
                engine,
                check: false,
                vcd: vcd.then(|| path.clone()),
                ..RtlOptions::default()
            };
            let t = Instant::now();
            let r = run_program(cfg, &prog, &launch, vec![0; bytes], &opts).map_err(|e| format!("{name}: {e}"))?;
            let s = t.elapsed().as_secs_f64();
            if vcd {
                let _ = std::fs::remove_file(&path);
                let _ = std::fs::remove_file(path.with_extension("gtkw"));
                let _ = std::fs::remove_file(path.with_extension("vcd.gtkw"));
                let f = crate::sm::waves::filters(&path);
                for p in [f.ops, f.mnemonics, f.instructions, f.fields] {
                    let _ = std::fs::remove_file(p);
                }
            }
            if r.gmem != want {
                return Err(format!("{name}: the final image differs from the golden model's"));
            }
            cycles = r.report.core_cycles;
            if round == 0 {
                rows.push((
                    format!("{name}{}", if vcd { " + VCD" } else { "" }),
                    s,
                    r.report.core_cycles,
                ));
            } else {
                rows[k].1 = rows[k].1.min(s);
            }
        }
    }
    let mut out = format!(
        "sm_{} running sm_demo.s, grid {grid} x block {block}: {cycles} core cycles, {} warp instructions \
         (best of {REPS} interleaved rounds)\n",
        cfg.name, stats.warp_instrs
    );
    for (what, s, c) in &rows {
        let _ = writeln!(out, "  {what:<20} {:>10.0} core cycles/s ({s:.2} s)", *c as f64 / s);
    }
    let _ = writeln!(
        out,
        "  {:<20} {:>10.0} core cycles/s ({:.1} us per run; {:.0} warp instructions/s)",
        "golden model",
        cycles as f64 / golden_s,
        golden_s * 1e6,
        stats.warp_instrs as f64 / golden_s
    );
    let rate = |k: usize| rows[k].2 as f64 / rows[k].1;
    let _ = writeln!(out, "  ratio rust / verilator (no VCD):   {:.3}x", rate(0) / rate(2));
    let _ = writeln!(out, "  ratio rust / verilator (with VCD): {:.3}x", rate(1) / rate(3));
    Ok(out)
}
