//! The flows behind the `smrtl` commands: export, simulate, co-simulate,
//! benchmark. Each takes a block by name and an `SmConfig`, builds the block
//! with the sizes the config implies, and returns a report or a clear error.

use crate::config::SmConfig;
use crate::cosim::{self, icarus, verilator::PortsOf, verilator::Verilated, Options};
use crate::hdl::fifo::Fifo;
use crate::hdl::sim::flatten;
use crate::hdl::{verilog, Block, Concrete, Sim};
use crate::testbenches::stimulus::block_inputs;
use crate::units::barrier::Barrier;
use crate::units::mad_rf::MadRf;
use crate::units::sfu::Sfu;
use crate::units::simt::Simt;
use crate::units::smem::Smem;
use anyhow::{bail, Context, Result};
use rand::SeedableRng;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub use crate::blocks::{BlockFn, BlockName, Emit};

/// Build block `name` for `cfg` and hand it to `f`.
pub fn with_block<F: BlockFn>(name: BlockName, cfg: &SmConfig, f: &mut F) -> Result<F::Out> {
    match name {
        BlockName::Fifo => {
            let depth = cfg.gpucc.as_ref().map(|g| g.fifo_depth).unwrap_or(16);
            // The depth is a type parameter (address width A = log2(depth)),
            // so each supported depth is one monomorphized block.
            match depth {
                2 => f.call(Fifo::<32, 1, 2>::new()),
                4 => f.call(Fifo::<32, 2, 3>::new()),
                8 => f.call(Fifo::<32, 3, 4>::new()),
                16 => f.call(Fifo::<32, 4, 5>::new()),
                32 => f.call(Fifo::<32, 5, 6>::new()),
                64 => f.call(Fifo::<32, 6, 7>::new()),
                128 => f.call(Fifo::<32, 7, 8>::new()),
                256 => f.call(Fifo::<32, 8, 9>::new()),
                d => bail!(
                    "config `{}`: gpucc.fifo_depth = {d} is not supported by the fifo block (2..=256, a power of two)",
                    cfg.name
                ),
            }
        }
        BlockName::MadRf => f.call(MadRf::new()),
        BlockName::Opcoll => crate::units::opcoll::with_opcoll(cfg, f),
        BlockName::Sp => {
            let g = crate::units::sp::SpGeom::of(cfg);
            let e = |e: crate::units::sp::SpError| anyhow::anyhow!("config `{}`: {e}", cfg.name);
            match (g.groups, crate::units::sp::lane_ports(cfg)) {
                (1, false) => f.call(crate::units::sp::SpArray1::new(g).map_err(e)?),
                (2, false) => f.call(crate::units::sp::SpArray2::new(g).map_err(e)?),
                // The lane-port shapes (GPU-CC) are type parameters.
                (2, true) if g.lanes == 16 => f.call(crate::units::sp::SpArray2Ln16::new(g).map_err(e)?),
                (n, true) => bail!(
                    "config `{}`: SP lane ports (a [gpucc] section) are built for 2 groups of 16 lanes, not {n} of {}",
                    cfg.name,
                    g.lanes
                ),
                (n, false) => bail!(
                    "config `{}`: {n} SP groups (warp_schedulers) are not supported (1 or 2)",
                    cfg.name
                ),
            }
        }
        BlockName::Dpu => f.call(crate::units::dpu::Dpu::of(cfg).map_err(|e| anyhow::anyhow!("{e}"))?),
        BlockName::Decode | BlockName::Scoreboard | BlockName::Predfile | BlockName::Sched | BlockName::Ibuffer => {
            crate::units::frontend_blocks(name, cfg, f)
        }
        BlockName::Sfu => f.call(Sfu::from_config(cfg).map_err(|e| anyhow::anyhow!("config `{}`: {e}", cfg.name))?),
        BlockName::Smem => {
            let words = cfg.smem_bytes as usize / 4;
            let banks = cfg.smem_banks as usize;
            let depth = (words / banks).next_power_of_two();
            let (group, mc) = (cfg.smem_request_threads as usize, cfg.smem_multicast);
            // Banks (2^LB) and entries per bank (2^A) are type parameters.
            macro_rules! smem {
                ($lb:literal, $a:literal) => {
                    f.call(
                        Smem::<$lb, $a>::new(words, group, mc)
                            .map_err(|e| anyhow::anyhow!("config `{}`: {e}", cfg.name))?,
                    )
                };
            }
            match (banks, depth) {
                (16, 256) => smem!(4, 8),
                (16, 512) => smem!(4, 9),
                (16, 1024) => smem!(4, 10),
                (32, 256) => smem!(5, 8),
                (32, 512) => smem!(5, 9),
                (32, 1024) => smem!(5, 10),
                _ => bail!(
                    "config `{}`: {banks} shared-memory banks of {} words are not supported by the smem block \
                     (16 or 32 banks of up to 1024 words)",
                    cfg.name,
                    words / banks
                ),
            }
        }
        BlockName::Simt => {
            let d = cfg.simt_stack_depth;
            let e = |e: String| anyhow::anyhow!("config `{}`: {e}", cfg.name);
            crate::with_warp_shape!(cfg, "simt", |MW, NS, NC| f.call(Simt::<MW, NS>::new(d).map_err(e)?))
        }
        BlockName::Lsu => crate::units::lsu::with_lsu(cfg, f),
        BlockName::Ifetch => crate::units::ifetch::with_ifetch(cfg, f),
        BlockName::Cta => crate::units::cta::with_cta(cfg, f),
        BlockName::Wb => {
            let p = crate::units::wb::WbParams::of(cfg, crate::units::lsu::max_out(cfg));
            let e = |e: crate::units::wb::WbError| anyhow::anyhow!("config `{}`: {e}", cfg.name);
            crate::with_warp_shape!(cfg, "wb", |MW, NS, NC| f
                .call(crate::units::wb::Wb::<NS>::new(p).map_err(e)?))
        }
        BlockName::L1 => {
            const LA: usize = crate::sm::top::L1_LINE_BITS;
            // Extra requesters (RX) and the memory id width (IW) are type
            // parameters: one block per `gm_requesters`.
            macro_rules! l1 {
                ($rx:literal, $iw:literal) => {
                    f.call(
                        crate::units::l1::L1::<LA, $rx, $iw>::of(cfg)
                            .map_err(|e| anyhow::anyhow!("config `{}`: {e}", cfg.name))?
                            .ok_or_else(|| {
                                anyhow::anyhow!(
                                    "config `{}`: l1_bytes = 0, the SM has no L1 data cache (fermi and gpucc have one)",
                                    cfg.name
                                )
                            })?,
                    )
                };
            }
            match cfg.gm_requesters {
                1 => l1!(0, 8),
                2 => l1!(1, 9),
                3 => l1!(2, 10),
                4 => l1!(3, 10),
                n => bail!("config `{}`: gm_requesters = {n} (1..=4)", cfg.name),
            }
        }
        BlockName::GmArb => match cfg.gm_requesters {
            1 => f.call(crate::units::gmarb::GmArb::<0, 8>::new()),
            2 => f.call(crate::units::gmarb::GmArb::<1, 9>::new()),
            3 => f.call(crate::units::gmarb::GmArb::<2, 10>::new()),
            4 => f.call(crate::units::gmarb::GmArb::<3, 10>::new()),
            n => bail!("config `{}`: gm_requesters = {n} (1..=4)", cfg.name),
        },
        BlockName::Imuldly => {
            let e = |e: crate::units::imuldly::ImdError| anyhow::anyhow!("config `{}`: {e}", cfg.name);
            let none = || {
                anyhow::anyhow!(
                    "config `{}`: imul32_latency = 0, the SM has no IMUL delay table (set it > 0)",
                    cfg.name
                )
            };
            crate::with_warp_shape!(cfg, "imuldly", |MW, NS, NC| f.call(
                crate::units::imuldly::ImulDelay::<NS>::of(cfg)
                    .map_err(e)?
                    .ok_or_else(none)?
            ))
        }
        BlockName::Gpucc => {
            f.call(crate::units::gpucc::GpuccNet::new(cfg).map_err(|e| anyhow::anyhow!("config `{}`: {e}", cfg.name))?)
        }
        BlockName::GpuccX => f.call(
            crate::units::gpucc::GpuccNet::external(cfg).map_err(|e| anyhow::anyhow!("config `{}`: {e}", cfg.name))?,
        ),
        BlockName::GpuccMem => f.call(
            crate::units::gpucc::mem::GpuccMem::of(cfg).map_err(|e| anyhow::anyhow!("config `{}`: {e}", cfg.name))?,
        ),
        BlockName::Sm => {
            struct Adapt<'a, F>(&'a mut F);
            impl<F: BlockFn> crate::sm::top::SmFn for Adapt<'_, F> {
                type Out = F::Out;
                fn call<K>(&mut self, sm: K) -> Result<F::Out>
                where
                    K: Block<
                            In<crate::hdl::Concrete> = crate::sm::top::SmIn<crate::hdl::Concrete>,
                            Out<crate::hdl::Concrete> = crate::sm::top::SmOut<crate::hdl::Concrete>,
                        > + Clone
                        + 'static,
                {
                    self.0.call(sm)
                }
            }
            crate::sm::top::with_sm(cfg, &mut Adapt(f))
        }
        BlockName::Barrier => crate::with_warp_shape!(cfg, "barrier", |MW, NS, NC| f.call(Barrier::<MW, NC>::new())),
    }
}

/// The blocks and configs whose Verilog is kept in `rtl/` (regenerate with
/// `smrtl export-all`; a test fails when a file there is stale).
pub const RTL_SET: &[(BlockName, &str)] = &[
    (BlockName::Fifo, "gpucc"),
    (BlockName::MadRf, "gt200"),
    (BlockName::Smem, "gt200"),
    (BlockName::Smem, "fermi"),
    (BlockName::Opcoll, "gt200"),
    (BlockName::Opcoll, "fermi"),
    (BlockName::Sp, "gt200"),
    (BlockName::Sp, "fermi"),
    (BlockName::Dpu, "gt200"),
    (BlockName::Dpu, "fermi"),
    (BlockName::Decode, "gt200"),
    (BlockName::Decode, "tesla"),
    (BlockName::Scoreboard, "gt200"),
    (BlockName::Scoreboard, "fermi"),
    (BlockName::Predfile, "gt200"),
    (BlockName::Predfile, "fermi"),
    (BlockName::Sched, "gt200"),
    (BlockName::Sched, "fermi"),
    (BlockName::Simt, "gt200"),
    (BlockName::Simt, "fermi"),
    (BlockName::Sfu, "gt200"),
    (BlockName::Sfu, "fermi"),
    (BlockName::Ibuffer, "gt200"),
    (BlockName::Ibuffer, "fermi"),
    (BlockName::Barrier, "gt200"),
    (BlockName::Barrier, "fermi"),
    (BlockName::Lsu, "gt200"),
    (BlockName::Lsu, "fermi"),
    (BlockName::Ifetch, "gt200"),
    (BlockName::Ifetch, "fermi"),
    (BlockName::Cta, "gt200"),
    (BlockName::Cta, "fermi"),
    (BlockName::Wb, "gt200"),
    (BlockName::Wb, "fermi"),
    (BlockName::Imuldly, "gt200"),
    (BlockName::L1, "fermi"),
    (BlockName::Gpucc, "gpucc"),
    (BlockName::GpuccX, "gpucc"),
    (BlockName::GpuccMem, "gpucc"),
    // The whole SM (top `sm_<preset>` and every block module it uses).
    (BlockName::Sm, "gt200"),
    (BlockName::Sm, "fermi"),
    (BlockName::Sm, "gpucc"),
];

/// The Verilog of [`RTL_SET`], deduplicated by module name.
pub fn rtl_set_texts() -> Result<Vec<(String, String)>> {
    let mut all: Vec<(String, String)> = vec![];
    for &(b, c) in RTL_SET {
        for t in with_block(b, &SmConfig::preset(c)?, &mut Emit)? {
            if !all.iter().any(|(n, _)| *n == t.0) {
                all.push(t);
            }
        }
    }
    Ok(all)
}

/// `smrtl export`: write the block's modules to `out`, one file each.
pub struct Export {
    pub out: PathBuf,
}

impl BlockFn for Export {
    type Out = Vec<PathBuf>;
    fn call<K: Block + Clone>(&mut self, blk: K) -> Result<Vec<PathBuf>> {
        let sim = Sim::new(blk)?;
        let texts = verilog::emit(sim.design());
        cosim::write_rtl(&texts, &self.out).with_context(|| format!("cannot write Verilog into {}", self.out.display()))
    }
}

/// [`Export`] that also names the top module: what `smrtl fpga --config`
/// exports before it synthesizes.
pub struct ExportTop {
    pub out: PathBuf,
}

impl BlockFn for ExportTop {
    type Out = (String, Vec<PathBuf>);
    fn call<K: Block + Clone>(&mut self, blk: K) -> Result<(String, Vec<PathBuf>)> {
        let d = crate::hdl::elaborate(&blk)?;
        let top = d.modules[d.top].name.clone();
        let files = cosim::write_rtl(&verilog::emit(&d), &self.out)
            .with_context(|| format!("cannot write Verilog into {}", self.out.display()))?;
        Ok((top, files))
    }
}

/// `smrtl sim`: random stimulus, VCD, activity report.
pub struct Simulate {
    pub hot_cycles: u64,
    pub seed: u64,
    pub p_one: f64,
    pub vcd: Option<PathBuf>,
}

impl BlockFn for Simulate {
    type Out = String;
    fn call<K: Block + Clone>(&mut self, blk: K) -> Result<String> {
        let mut sim = Sim::new(blk)?;
        let top = sim.design().modules[sim.design().top].clone();
        let path = self
            .vcd
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("waves/{}.vcd", top.name)));
        sim.open_vcd(&path)
            .with_context(|| format!("cannot write VCD {}", path.display()))?;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(self.seed);
        let (mut prev, mut ro) = (vec![], vec![]);
        let mut high = vec![0u64; top.outputs.len()];
        let t0 = Instant::now();
        for t in 0..self.hot_cycles {
            let i = block_inputs(sim.block(), &mut rng, t, &prev, self.p_one);
            flatten(&i, &mut prev);
            let o = sim.step(&i);
            flatten(&o, &mut ro);
            let mut pos = 0;
            for (k, p) in top.outputs.iter().enumerate() {
                if p.bits() == 1 && ro[pos] & 1 == 1 {
                    high[k] += 1;
                }
                pos += p.words();
            }
        }
        sim.close_vcd()
            .with_context(|| format!("cannot finish VCD {}", path.display()))?;
        let secs = t0.elapsed().as_secs_f64();
        let mut r = String::new();
        let _ = writeln!(r, "block        {}", top.name);
        let _ = writeln!(
            r,
            "cycles       {} hot, {} core (seed {})",
            self.hot_cycles,
            self.hot_cycles / 2,
            self.seed
        );
        let _ = writeln!(
            r,
            "time         {secs:.3} s with VCD ({:.0} core cycles/s)",
            self.hot_cycles as f64 / 2.0 / secs
        );
        let _ = writeln!(
            r,
            "VCD          {}  (open with: gtkwave {})",
            path.display(),
            path.display()
        );
        let _ = writeln!(r, "1-bit outputs, cycles high:");
        for (k, p) in top.outputs.iter().enumerate() {
            if p.bits() == 1 {
                let _ = writeln!(
                    r,
                    "  {:<16} {:>10} of {} hot cycles ({} domain)",
                    p.name,
                    high[k],
                    self.hot_cycles,
                    p.dom.name()
                );
            }
        }
        Ok(r)
    }
}

/// `smrtl cosim`: lock-step against Verilator, then a short Icarus run.
pub struct Cosim {
    pub opts: Options,
    pub icarus_cycles: u64,
}

impl BlockFn for Cosim {
    type Out = (String, bool);
    fn call<K: Block + Clone>(&mut self, blk: K) -> Result<(String, bool)> {
        let t0 = Instant::now();
        let r = cosim::lockstep(&blk, None, &self.opts)?;
        let secs = t0.elapsed().as_secs_f64();
        let mut s = String::new();
        let mut ok = true;
        match &r.mismatch {
            None => {
                let _ = writeln!(
                    s,
                    "verilator  {}: {} hot cycles ({} core) lock-step, 0 mismatches, every output compared every hot cycle ({secs:.1} s)",
                    r.top,
                    r.hot_cycles,
                    r.hot_cycles / 2
                );
            }
            Some(m) => {
                ok = false;
                let _ = writeln!(s, "verilator  {}: {m}", r.top);
            }
        }
        if self.icarus_cycles > 0 {
            let work = self.opts.wave_dir.join(format!("icarus_{}", r.top));
            let ir = icarus::check(blk, None, self.icarus_cycles, self.opts.seed, self.opts.p_one, &work)?;
            ok &= ir.mismatches == 0;
            let _ = writeln!(
                s,
                "icarus     {}: {} hot cycles, {} mismatches (4-state, X counts)",
                r.top, ir.hot_cycles, ir.mismatches
            );
            for l in ir.first {
                let _ = writeln!(s, "  {l}");
            }
        }
        Ok((s, ok))
    }
}

/// `smrtl bench`: Rust model vs Verilated export, same stimulus, same run.
pub struct Bench {
    pub hot_cycles: u64,
    pub wave_dir: PathBuf,
}

/// One line of the benchmark table.
#[derive(Debug, Clone)]
pub struct BenchRow {
    pub what: String,
    pub core_cycles_per_s: f64,
}

impl BlockFn for Bench {
    type Out = Vec<BenchRow>;
    fn call<K: Block + Clone>(&mut self, blk: K) -> Result<Vec<BenchRow>> {
        // Stimulus is generated up front and replayed, so neither side pays
        // for random numbers.
        const N: usize = 4096;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        let mut prev = vec![];
        let mut stim: Vec<K::In<Concrete>> = Vec::with_capacity(N);
        let mut flat: Vec<Vec<u64>> = Vec::with_capacity(N);
        for t in 0..N as u64 {
            let i = block_inputs(&blk, &mut rng, t, &prev, 0.6);
            flatten(&i, &mut prev);
            stim.push(i);
            flat.push(prev.clone());
        }
        let n = self.hot_cycles;
        let core = n as f64 / 2.0;
        // Runs with a VCD are capped: a full-hierarchy VCD of a wide block
        // grows by tens of kilobytes per cycle (the fermi SP array wrote
        // over 40 GB in 1,000,000 hot cycles), and its rate is steady long
        // before that.
        let nv = n.min(BENCH_VCD_HOT_CYCLES);
        let core_v = nv as f64 / 2.0;
        let mut rows = vec![];
        let name = crate::hdl::elaborate(&blk)?.modules.last().unwrap().name.clone();

        // A block with no hot-domain state changes only at core edges and
        // its core-domain inputs hold for the core cycle: both sides then
        // take the outputs once per core cycle (`Sim::step_core`, which
        // evaluates once; Verilator still evaluates both clock edges).
        let mut sim = Sim::new(blk.clone())?;
        let core_only = sim.core_only();
        let t0 = Instant::now();
        if core_only {
            for t in (0..n).step_by(2) {
                std::hint::black_box(sim.step_core(&stim[t as usize % N]));
            }
        } else {
            for t in 0..n {
                std::hint::black_box(sim.step(&stim[t as usize % N]));
            }
        }
        rows.push(BenchRow {
            what: format!("{name} rust"),
            core_cycles_per_s: core / t0.elapsed().as_secs_f64(),
        });

        let mut sim = Sim::new(blk.clone())?;
        let rv = self.wave_dir.join(format!("bench_{name}_rust.vcd"));
        sim.open_vcd(&rv)?;
        let t0 = Instant::now();
        for t in 0..nv {
            std::hint::black_box(sim.step(&stim[t as usize % N]));
        }
        sim.close_vcd()?;
        rows.push(BenchRow {
            what: format!("{name} rust + VCD"),
            core_cycles_per_s: core_v / t0.elapsed().as_secs_f64(),
        });
        let _ = std::fs::remove_file(&rv);

        let texts = verilog::emit(sim.design());
        let top = PortsOf::top(sim.design());
        for with_vcd in [false, true] {
            let mut v = Verilated::new(&texts, &top)?;
            let vv = self.wave_dir.join(format!("bench_{name}_verilator.vcd"));
            if with_vcd {
                v.open_vcd(&vv)?;
            }
            v.reset();
            let mut out = vec![];
            let t0 = Instant::now();
            let nn = if with_vcd { nv } else { n };
            for t in 0..nn {
                let read = !core_only || t % 2 == 0;
                if read {
                    v.set_inputs(&flat[t as usize % N]);
                }
                v.pre_edge(t);
                if read {
                    v.get_outputs(&mut out);
                }
                if with_vcd {
                    v.dump(2 * t + 1);
                }
                v.edge(t);
                if with_vcd {
                    v.dump(2 * t + 2);
                }
                std::hint::black_box(&out);
            }
            let secs = t0.elapsed().as_secs_f64();
            if with_vcd {
                v.close_vcd();
                let _ = std::fs::remove_file(&vv);
            }
            let what = if with_vcd { "verilator + VCD" } else { "verilator" };
            rows.push(BenchRow {
                what: format!("{name} {what}"),
                core_cycles_per_s: if with_vcd { core_v } else { core } / secs,
            });
        }
        Ok(rows)
    }
}

/// Hot cycles of a benchmark run that writes a VCD (at most).
pub const BENCH_VCD_HOT_CYCLES: u64 = 50_000;

/// Format benchmark rows with the Rust/Verilator ratios.
pub fn bench_table(rows: &[BenchRow], hot_cycles: u64) -> String {
    let mut s = format!(
        "{hot_cycles} hot cycles each ({} core cycles); runs with a VCD {} hot cycles\n",
        hot_cycles / 2,
        hot_cycles.min(BENCH_VCD_HOT_CYCLES)
    );
    for r in rows {
        let _ = writeln!(s, "  {:<36} {:>14.0} core cycles/s", r.what, r.core_cycles_per_s);
    }
    let find = |k: &str| rows.iter().find(|r| r.what.ends_with(k)).map(|r| r.core_cycles_per_s);
    if let (Some(a), Some(b)) = (find(" rust"), find(" verilator")) {
        let _ = writeln!(s, "  ratio rust / verilator (no VCD):   {:.2}x", a / b);
    }
    if let (Some(a), Some(b)) = (find(" rust + VCD"), find(" verilator + VCD")) {
        let _ = writeln!(s, "  ratio rust / verilator (with VCD): {:.2}x", a / b);
    }
    s
}

/// Ensure `dir` exists and is writable (clear error otherwise).
pub fn writable_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create output folder {}", dir.display()))?;
    let probe = dir.join(".smrtl-write-test");
    std::fs::write(&probe, b"").with_context(|| format!("output folder {} is not writable", dir.display()))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

/// `smrtl smem-patterns`: the shared-memory testbench.
pub struct SmemPatterns {
    pub cfg: SmConfig,
    pub random: usize,
    pub vcd: PathBuf,
}

impl BlockFn for SmemPatterns {
    type Out = (String, bool);
    fn call<K: Block + Clone>(&mut self, _blk: K) -> Result<(String, bool)> {
        use crate::testbenches::smem_ref::SmemGeom;
        use crate::testbenches::smem_tb::{check_request, patterns, random_request};
        let g = SmemGeom::from_config(&self.cfg);
        let words = g.words;
        let depth = (words / g.banks).next_power_of_two();
        macro_rules! go {
            ($lb:literal, $a:literal) => {{
                let mut sim = Sim::new(Smem::<$lb, $a>::new(words, g.group, g.multicast)?)?;
                sim.open_vcd(&self.vcd)
                    .with_context(|| format!("cannot write VCD {}", self.vcd.display()))?;
                let mut shadow = vec![0u32; words];
                let mut r = String::new();
                let mut ok = true;
                let _ = writeln!(
                    r,
                    "smem {} ({} banks, {} words, {}-lane groups, {})",
                    self.cfg.name,
                    g.banks,
                    words,
                    g.group,
                    if g.multicast {
                        "multicast"
                    } else {
                        "single broadcast word per pass"
                    }
                );
                let _ = writeln!(r, "  {:<40} {:>6} {:>8}", "pattern", "passes", "checked");
                for (name, req) in patterns(&g) {
                    match check_request(&mut sim, &g, &mut shadow, &req) {
                        Ok(e) => {
                            let _ = writeln!(r, "  {name:<40} {:>6} {:>8}", e.passes, "ok");
                        }
                        Err(e) => {
                            ok = false;
                            let _ = writeln!(r, "  {name:<40} MISMATCH {e}");
                        }
                    }
                }
                let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
                let (mut passes, mut bad) = (0u64, 0usize);
                for n in 0..self.random {
                    let w = [2, 8, 40, 400][n % 4];
                    match check_request(&mut sim, &g, &mut shadow, &random_request(&mut rng, &g, w, true)) {
                        Ok(e) => passes += e.passes as u64,
                        Err(e) => {
                            bad += 1;
                            ok = false;
                            if bad == 1 {
                                let _ = writeln!(r, "  random: first mismatch {e}");
                            }
                        }
                    }
                }
                let _ = writeln!(
                    r,
                    "  {:<40} {:>6} {:>8}",
                    format!("{} random requests", self.random),
                    passes,
                    if bad == 0 {
                        "ok".to_string()
                    } else {
                        format!("{bad} bad")
                    }
                );
                let _ = writeln!(
                    r,
                    "  core cycles: {}   VCD: {}",
                    sim.core_cycle(),
                    self.vcd.display()
                );
                sim.close_vcd()?;
                Ok((r, ok))
            }};
        }
        match (g.banks, depth) {
            (16, 256) => go!(4, 8),
            (16, 512) => go!(4, 9),
            (32, 512) => go!(5, 9),
            (32, 256) => go!(5, 8),
            _ => bail!(
                "smem-patterns: {} banks x {depth} entries is not a supported geometry",
                g.banks
            ),
        }
    }
}

/// `smrtl kernels`: run the benchmark kernels (`testbenches/kernels/`) on
/// the golden model, every launch shape each has, and compare each result
/// image with the kernel's host reference. Returns the report and whether
/// every case matched. Cases the preset cannot run (an instruction it
/// lacks, [`crate::golden::model::preset_lacks`]; a block over `max_threads`) are listed
/// as skipped. With `cases_dir`, also writes each case's input
/// image, reference image and the `smrtl run` command line that reproduces
/// it, with `--config config_arg` (the preset name or file the config was
/// loaded from, so a case of a config file reruns as it is).
pub fn kernel_suite(
    cfg: &SmConfig,
    config_arg: &str,
    names: &[String],
    cases_dir: Option<&Path>,
) -> Result<(String, bool)> {
    use crate::golden::{asm, model};
    use crate::testbenches::kernels::{self, Fp32};
    // A preset with the GPU-CC network also runs the GPU-CC kernels.
    let extra: &[kernels::Kernel] = if crate::golden::gpucc::gpucc_section(cfg).is_ok() {
        kernels::gpucc_kernels()
    } else {
        &[]
    };
    let all: Vec<&kernels::Kernel> = kernels::all_kernels().iter().chain(extra).collect();
    let chosen: Vec<&kernels::Kernel> = if names.is_empty() {
        all.clone()
    } else {
        names
            .iter()
            .map(|n| {
                all.iter().find(|k| k.name == n.as_str()).copied().with_context(|| {
                    let known: Vec<&str> = all.iter().map(|k| k.name).collect();
                    format!("unknown kernel '{n}' (known: {})", known.join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    if let Some(d) = cases_dir {
        writable_dir(d)?;
    }
    let mut out = String::new();
    let _ = writeln!(out, "golden model, preset {}", cfg.name);
    let _ = writeln!(
        out,
        "{:<56} {:>10} {:>12} {:>9}  result",
        "case", "warp instr", "thread instr", "ms"
    );
    let (mut pass, mut fail, mut skip) = (0, 0, 0);
    for k in chosen {
        let prog = asm::assemble(k.source, k.file).with_context(|| format!("assembling {}", k.file))?;
        // A kernel using an instruction the preset lacks stops with error 1
        // on the RTL and on the golden model, and one whose CTA does not fit
        // the SM (threads, registers, shared memory) is refused at launch:
        // skipped, not failed.
        let lacks = model::program_lacks(&prog, cfg);
        for (i, case) in (k.cases)(Fp32::of(cfg)).into_iter().enumerate() {
            let threads: u64 = case.block.iter().map(|&b| b as u64).product();
            let skipped = if let Some((op, why)) = lacks {
                Some(format!("{}: {why}", op.info().mnemonic))
            } else if let Err(r) = model::check_fits(cfg, &prog, threads) {
                Some(r.to_string())
            } else {
                None
            };
            if let Some(why) = skipped {
                skip += 1;
                let _ = writeln!(
                    out,
                    "{:<56} {:>10} {:>12} {:>9}  SKIP ({why})",
                    case.label, "-", "-", "-"
                );
                continue;
            }
            if let Some(d) = cases_dir {
                let stem = d.join(format!("{}-{}-{i}", k.name, cfg.name));
                let p = |ext: &str| PathBuf::from(format!("{}.{ext}", stem.display()));
                std::fs::write(p("gmem.bin"), &case.gmem)?;
                std::fs::write(p("expected.bin"), &case.expected)?;
                let args = case.cli_args(
                    &format!("testbenches/kernels/{}", k.file),
                    config_arg,
                    &p("gmem.bin").display().to_string(),
                    &p("out.bin").display().to_string(),
                );
                std::fs::write(p("cmd"), format!("smrtl run {}\n", args.join(" ")))?;
            }
            let t = Instant::now();
            let r = model::run_kernel(cfg, &prog, &case.launch(), case.gmem.clone());
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let (w, th, verdict) = match r {
                Ok((img, stats)) => (
                    stats.warp_instrs.to_string(),
                    stats.thread_instrs.to_string(),
                    match case.check(&img) {
                        Ok(()) if stats.uninit.lanes > 0 => format!(
                            "PASS, warning: {} lanes read shared words their CTA never wrote, first at {}",
                            stats.uninit.lanes,
                            stats.uninit.first.first().map(|e| e.to_string()).unwrap_or_default()
                        ),
                        Ok(()) => "PASS".to_string(),
                        Err(m) => format!("FAIL {m}"),
                    },
                ),
                Err(e) => ("-".into(), "-".into(), format!("ERROR {e}")),
            };
            if verdict.starts_with("PASS") {
                pass += 1;
            } else {
                fail += 1;
            }
            let _ = writeln!(out, "{:<56} {w:>10} {th:>12} {ms:>9.1}  {verdict}", case.label);
        }
    }
    let _ = writeln!(
        out,
        "{pass} passed, {fail} failed, {skip} skipped (the preset cannot run them)"
    );
    Ok((out, fail == 0))
}
