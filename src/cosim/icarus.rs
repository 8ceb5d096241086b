//! Icarus Verilog check: an independent, 4-state simulator.
//!
//! The Rust model is run on random, domain-respecting stimulus and records
//! one vector per hot cycle (inputs, then expected pre-edge outputs). A
//! generated Verilog-2005 testbench reads the vectors with `$readmemh`,
//! pulses `rst_ni`, drives the clocks exactly as the Verilator harness does,
//! and compares every output with `!==`, so an X or Z where the Rust model
//! has a value counts as a mismatch. Keep runs short (~20k hot cycles): Icarus
//! simulates about 100k cycles per second.

use super::CosimError;
use crate::hdl::bits::words_for;
use crate::hdl::sim::flatten;
use crate::hdl::verilog::range;
use crate::hdl::{verilog, Block, Sim};
use crate::testbenches::stimulus::block_inputs;
use rand::SeedableRng;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Result of an Icarus run.
#[derive(Debug, Clone)]
pub struct IcarusReport {
    pub hot_cycles: u64,
    pub mismatches: u64,
    /// The first few mismatch lines Icarus printed.
    pub first: Vec<String>,
}

/// Run `blk` for `hot_cycles` in Icarus, in `work` (created), against
/// `texts` (its exported Verilog when `None`).
pub fn check<K: Block>(
    blk: K,
    texts: Option<Vec<(String, String)>>,
    hot_cycles: u64,
    seed: u64,
    p_one: f64,
    work: &Path,
) -> Result<IcarusReport, CosimError> {
    let err = |e: std::io::Error| CosimError::Other(format!("{}: {e}", work.display()));
    let mut sim = Sim::new(blk)?;
    let texts = texts.unwrap_or_else(|| verilog::emit(sim.design()));
    let top = sim.design().modules[sim.design().top].clone();
    std::fs::create_dir_all(work).map_err(err)?;
    let in_w: usize = top.inputs.iter().map(|p| p.bits()).sum();
    let out_w: usize = top.outputs.iter().map(|p| p.bits()).sum();
    let total = in_w + out_w;

    // Vectors: inputs (first port in the top bits) then outputs.
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let (mut prev, mut ro) = (vec![], vec![]);
    let mut vec_text = String::new();
    for t in 0..hot_cycles {
        let i = block_inputs(sim.block(), &mut rng, t, &prev, p_one);
        flatten(&i, &mut prev);
        let o = sim.step(&i);
        flatten(&o, &mut ro);
        let mut line = String::new();
        let mut pos = 0;
        for p in &top.inputs {
            line.push_str(&bin_port(&prev[pos..], p));
            pos += p.words();
        }
        pos = 0;
        for p in &top.outputs {
            line.push_str(&bin_port(&ro[pos..], p));
            pos += p.words();
        }
        vec_text.push_str(&line);
        vec_text.push('\n');
    }
    let vec_path = work.join("vectors.bin");
    std::fs::write(&vec_path, vec_text).map_err(err)?;

    // Testbench.
    let mut tb = String::new();
    let _ = writeln!(tb, "`timescale 1ns/1ps\nmodule tb;");
    let _ = writeln!(tb, "  reg clk_core_i, clk_hot_i, rst_ni;");
    for p in &top.inputs {
        let _ = writeln!(tb, "  reg  {}{};", range(p.bits()), p.name);
    }
    for p in &top.outputs {
        let _ = writeln!(tb, "  wire {}{};", range(p.bits()), p.name);
    }
    let mut conns = vec![
        ".clk_core_i(clk_core_i)".to_string(),
        ".clk_hot_i(clk_hot_i)".into(),
        ".rst_ni(rst_ni)".into(),
    ];
    conns.extend(
        top.inputs
            .iter()
            .chain(&top.outputs)
            .map(|p| format!(".{0}({0})", p.name)),
    );
    let _ = writeln!(tb, "  {} dut ({});", top.name, conns.join(", "));
    let _ = writeln!(tb, "  reg [{}:0] vecs [0:{}];", total - 1, hot_cycles.max(1) - 1);
    let _ = writeln!(tb, "  reg [{}:0] v;\n  integer t, errors;", total - 1);
    let _ = writeln!(tb, "  initial begin");
    let _ = writeln!(tb, "    $readmemb(\"{}\", vecs);", vec_path.display());
    let _ = writeln!(tb, "    errors = 0; clk_core_i = 0; clk_hot_i = 0; rst_ni = 1;");
    let _ = writeln!(tb, "    #1 rst_ni = 0;\n    #1 rst_ni = 1;\n    #1;");
    let _ = writeln!(tb, "    for (t = 0; t < {hot_cycles}; t = t + 1) begin");
    let _ = writeln!(tb, "      v = vecs[t];");
    let mut hi = total;
    for p in &top.inputs {
        let _ = writeln!(tb, "      {} = v[{}:{}];", p.name, hi - 1, hi - p.bits());
        hi -= p.bits();
    }
    let _ = writeln!(tb, "      clk_hot_i = 0; clk_core_i = (t % 2 == 1);\n      #1;");
    for p in &top.outputs {
        let _ = writeln!(
            tb,
            "      if ({} !== v[{}:{}]) begin errors = errors + 1; if (errors <= 5) $display(\"MISMATCH hot_cycle=%0d port={} expected=%h got=%h\", t, v[{}:{}], {}); end",
            p.name,
            hi - 1,
            hi - p.bits(),
            p.name,
            hi - 1,
            hi - p.bits(),
            p.name
        );
        hi -= p.bits();
    }
    let _ = writeln!(
        tb,
        "      clk_hot_i = 1; clk_core_i = (t % 2 == 0);\n      #1;\n    end"
    );
    let _ = writeln!(
        tb,
        "    $display(\"ICARUS DONE cycles=%0d errors=%0d\", t, errors);\n    $finish;\n  end\nendmodule"
    );
    let tb_path = work.join("tb.v");
    std::fs::write(&tb_path, tb).map_err(err)?;
    let mut files = super::write_rtl(&texts, &work.join("rtl")).map_err(err)?;
    files.push(tb_path);

    let out = work.join("sim.vvp");
    let o = Command::new("iverilog")
        .args(["-g2005", "-o"])
        .arg(&out)
        .args(&files)
        .output()
        .map_err(|e| CosimError::Other(format!("cannot run iverilog: {e} (apt-get install iverilog)")))?;
    if !o.status.success() {
        return Err(CosimError::Other(format!(
            "iverilog failed:\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )));
    }
    let o = Command::new("vvp")
        .arg("-n")
        .arg(&out)
        .output()
        .map_err(|e| CosimError::Other(format!("cannot run vvp: {e}")))?;
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let done = text
        .lines()
        .find_map(|l| l.strip_prefix("ICARUS DONE "))
        .ok_or_else(|| {
            CosimError::Other(format!(
                "vvp did not finish:\n{text}{}",
                String::from_utf8_lossy(&o.stderr)
            ))
        })?;
    let field = |k: &str| -> u64 {
        done.split_whitespace()
            .find_map(|f| f.strip_prefix(k))
            .and_then(|v| v.parse().ok())
            .unwrap_or(u64::MAX)
    };
    Ok(IcarusReport {
        hot_cycles: field("cycles="),
        mismatches: field("errors="),
        first: text
            .lines()
            .filter(|l| l.starts_with("MISMATCH"))
            .map(String::from)
            .collect(),
    })
}

/// A port's value in binary, last element first (so element k sits in bits
/// `k*width ..` of the Verilog port).
fn bin_port(words: &[u64], p: &crate::hdl::trace::PortInfo) -> String {
    let nw = words_for(p.width);
    (0..p.count).rev().map(|k| bin(&words[k * nw..], p.width)).collect()
}

fn bin(words: &[u64], width: usize) -> String {
    (0..width)
        .rev()
        .map(|b| if (words[b / 64] >> (b % 64)) & 1 == 1 { '1' } else { '0' })
        .collect()
}
