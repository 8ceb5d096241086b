//! Co-simulation of a Rust block against its exported Verilog.
//!
//! * [`lockstep`]: the Rust simulator and the Verilated model run the same
//!   random, domain-respecting stimulus hot cycle by hot cycle; every output
//!   is compared every hot cycle, before the edge. The first mismatch is
//!   reported with the hot and core cycle, the port, and both values, and
//!   both simulations are re-run to write a VCD window around it
//!   (`waves/cosim_<top>_{rust,verilator}.vcd`).
//! * [`icarus`]: a short independent 4-state check: a generated Verilog
//!   testbench replays vectors recorded from the Rust model in Icarus and
//!   flags any output that differs or is X/Z.

pub mod icarus;
pub mod verilator;

use crate::hdl::bits::{hex_words, words_for};
use crate::hdl::sim::flatten;
use crate::hdl::trace::PortInfo;
use crate::hdl::{verilog, Block, ElabError, Sim};
use crate::testbenches::stimulus::block_inputs;
use rand::SeedableRng;
use std::path::{Path, PathBuf};
use verilator::{PortsOf, Verilated, VerilatorError};

/// Errors of a co-simulation run (not mismatches: those are results).
#[derive(Debug, thiserror::Error)]
pub enum CosimError {
    #[error(transparent)]
    Elab(#[from] ElabError),
    #[error(transparent)]
    Verilator(#[from] VerilatorError),
    #[error("{0}")]
    Other(String),
}

/// The first disagreement between the Rust model and the Verilog.
#[derive(Debug, Clone)]
pub struct Mismatch {
    pub hot_cycle: u64,
    pub core_cycle: u64,
    pub signal: String,
    pub rust: String,
    pub verilog: String,
    /// VCD windows written around the mismatch.
    pub vcd: Vec<PathBuf>,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "mismatch at hot cycle {} (core cycle {}): `{}` rust=0x{} verilog=0x{}",
            self.hot_cycle, self.core_cycle, self.signal, self.rust, self.verilog
        )?;
        for p in &self.vcd {
            write!(f, "\n  VCD window: {}", p.display())?;
        }
        Ok(())
    }
}

/// Result of a lock-step run.
#[derive(Debug, Clone)]
pub struct CosimReport {
    pub top: String,
    /// Hot cycles compared (up to and including a mismatch).
    pub hot_cycles: u64,
    pub mismatch: Option<Mismatch>,
}

/// Options of a lock-step run.
#[derive(Debug, Clone)]
pub struct Options {
    pub hot_cycles: u64,
    pub seed: u64,
    /// Probability of a 1 on single-bit inputs.
    pub p_one: f64,
    /// Where VCD windows go.
    pub wave_dir: PathBuf,
    /// Hot cycles of VCD before a mismatch.
    pub window: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hot_cycles: 100_000,
            seed: 1,
            p_one: 0.5,
            wave_dir: PathBuf::from("waves"),
            window: 64,
        }
    }
}

/// The first output port (name, Rust value, Verilog value) where the
/// flattened outputs differ.
pub fn compare(outs: &[PortInfo], rust: &[u64], ver: &[u64]) -> Option<(String, String, String)> {
    let mut pos = 0;
    for p in outs {
        let nw = words_for(p.width);
        for k in 0..p.count {
            if rust[pos..pos + nw] != ver[pos..pos + nw] {
                let name = if p.count > 1 {
                    format!("{}[{k}]", p.name)
                } else {
                    p.name.clone()
                };
                return Some((name, hex_words(&rust[pos..], p.width), hex_words(&ver[pos..], p.width)));
            }
            pos += nw;
        }
    }
    None
}

/// Run `blk` in lock-step against `texts` (its exported Verilog when `None`).
pub fn lockstep<K: Block + Clone>(
    blk: &K,
    texts: Option<Vec<(String, String)>>,
    opt: &Options,
) -> Result<CosimReport, CosimError> {
    let sim = Sim::new(blk.clone())?;
    let texts = texts.unwrap_or_else(|| verilog::emit(sim.design()));
    let top = PortsOf::top(sim.design());
    let mut v = Verilated::new(&texts, &top)?;
    let found = run(sim, &mut v, &top, opt, None)?;
    let Some((t, signal, rust, verilog)) = found else {
        return Ok(CosimReport {
            top: top.name,
            hot_cycles: opt.hot_cycles,
            mismatch: None,
        });
    };
    // Re-run both from reset with VCD around the mismatch.
    let from = t.saturating_sub(opt.window);
    let rust_vcd = opt.wave_dir.join(format!("cosim_{}_rust.vcd", top.name));
    let ver_vcd = opt.wave_dir.join(format!("cosim_{}_verilator.vcd", top.name));
    let mut v2 = Verilated::new(&texts, &top)?;
    let mut o2 = opt.clone();
    o2.hot_cycles = t + 3;
    run(
        Sim::new(blk.clone())?,
        &mut v2,
        &top,
        &o2,
        Some((from, rust_vcd.clone(), ver_vcd.clone())),
    )?;
    drop(v2);
    Ok(CosimReport {
        top: top.name,
        hot_cycles: t + 1,
        mismatch: Some(Mismatch {
            hot_cycle: t,
            core_cycle: t / 2,
            signal,
            rust,
            verilog,
            vcd: vec![rust_vcd, ver_vcd],
        }),
    })
}

type Found = Option<(u64, String, String, String)>;

fn run<K: Block>(
    mut sim: Sim<K>,
    v: &mut Verilated,
    top: &PortsOf,
    opt: &Options,
    vcd: Option<(u64, PathBuf, PathBuf)>,
) -> Result<Found, CosimError> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(opt.seed);
    let (mut prev, mut ro, mut vo) = (vec![], vec![], vec![]);
    v.reset();
    let mut first: Found = None;
    for t in 0..opt.hot_cycles {
        if let Some((from, rp, vp)) = &vcd {
            if t == *from {
                sim.open_vcd(rp)
                    .map_err(|e| CosimError::Other(format!("{}: {e}", rp.display())))?;
                v.open_vcd(vp)?;
            }
        }
        let i = block_inputs(sim.block(), &mut rng, t, &prev, opt.p_one);
        flatten(&i, &mut prev);
        let o = sim.step(&i);
        flatten(&o, &mut ro);
        v.set_inputs(&prev);
        v.pre_edge(t);
        v.get_outputs(&mut vo);
        let dumping = matches!(&vcd, Some((from, ..)) if t >= *from);
        if dumping {
            v.dump(2 * t + 1);
        }
        if first.is_none() {
            if let Some((name, r, x)) = compare(&top.outputs, &ro, &vo) {
                first = Some((t, name, r, x));
                if vcd.is_none() {
                    return Ok(first);
                }
            }
        }
        v.edge(t);
        if dumping {
            v.dump(2 * t + 2);
        }
    }
    if vcd.is_some() {
        v.close_vcd();
        sim.close_vcd().map_err(|e| CosimError::Other(e.to_string()))?;
    }
    Ok(first)
}

/// Flip bit 0 of the right-hand side of the first `assign <reg>_d = ...;`
/// in `text` (a deliberately wrong Verilog for negative tests). Returns the
/// mutated text and the register whose logic was changed.
pub fn flip_one_bit(text: &str) -> Option<(String, String)> {
    let mut out = String::new();
    let mut changed = None;
    for line in text.lines() {
        let l = line.trim_start();
        if changed.is_none() && l.starts_with("assign ") && l.contains("_d = ") && l.ends_with(';') {
            let (lhs, rhs) = l.trim_end_matches(';').split_once(" = ").unwrap();
            let reg = lhs.trim_start_matches("assign ").to_string();
            out.push_str(&format!("  {lhs} = ({rhs}) ^ 1'b1;\n"));
            changed = Some(reg);
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    changed.map(|r| (out, r))
}

/// Is `tool` an executable on the PATH?
pub fn have_tool(tool: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::env::var_os("PATH")
        .map(|paths| {
            std::env::split_paths(&paths).any(|d| {
                std::fs::metadata(d.join(tool))
                    .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                    .unwrap_or(false)
            })
        })
        .unwrap_or(false)
}

/// Panic with an install hint unless every tool is on the PATH.
pub fn require_tools(tools: &[&str]) {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !have_tool(t)).collect();
    assert!(
        missing.is_empty(),
        "missing tools {missing:?}: run `apt-get update && apt-get install -y verilator iverilog yosys gtkwave g++ make cmake`"
    );
}

/// Write the exported Verilog of a design into `dir`, one file per module.
pub fn write_rtl(texts: &[(String, String)], dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut files = vec![];
    for (n, t) in texts {
        let f = dir.join(format!("{n}.v"));
        std::fs::write(&f, t)?;
        files.push(f);
    }
    Ok(files)
}
