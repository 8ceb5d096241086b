//! VCD writer for the simulator (uses the `vcd` crate).
//!
//! Scopes follow the Verilog hierarchy: the root scope is the top module's
//! name and holds `clk_core_i`, `clk_hot_i`, `rst_ni`, every port, every
//! register (`<name>_q`) and every memory read register
//! (`<mem>_rdata<k>_q`); each instance is a nested scope of the same name as
//! in the Verilog, holding its registers. Names are the Verilog names, so a
//! Rust VCD and a Verilator VCD of the same block compare signal for signal
//! (Verilator adds an outer `TOP` scope).
//!
//! Timing: `$timescale 1ns`; one hot cycle is 2 time units (hot clock
//! 500 MHz in wave time, core clock 250 MHz). The edge of hot cycle `t` is at
//! time `2t+2`, where `clk_hot_i` rises (and `clk_core_i` rises when `t` is
//! even, falls when `t` is odd) and registers take their new values; inputs
//! and outputs of cycle `t` are shown from time `2t+1`, half a hot cycle
//! before that edge.

use super::bits::words_for;
use super::trace::Design;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use vcd::{IdCode, TimescaleUnit, Value, Writer};

#[derive(Debug, Clone, Copy)]
enum Src {
    ClkCore,
    ClkHot,
    Rst,
    In(usize),
    Out(usize),
    Reg(usize, usize),
    MemRd(usize, usize),
}

struct Var {
    src: Src,
    width: usize,
    id: IdCode,
    last: Vec<u64>,
    fresh: bool,
}

/// A VCD being written by a [`Sim`](super::sim::Sim).
pub struct VcdWriter {
    w: Writer<BufWriter<File>>,
    vars: Vec<Var>,
    time: u64,
}

fn values(words: &[u64], width: usize) -> impl Iterator<Item = Value> + '_ {
    (0..width).rev().map(move |b| if (words[b / 64] >> (b % 64)) & 1 == 1 { Value::V1 } else { Value::V0 })
}

impl VcdWriter {
    pub(crate) fn create(path: &Path, d: &Design, layout: &[([usize; 2], usize)]) -> std::io::Result<Self> {
        if let Some(dir) = path.parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir)?;
            }
        }
        let f = File::create(path).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let mut w = Writer::new(BufWriter::with_capacity(1 << 20, f));
        w.version(concat!("smrtl ", env!("CARGO_PKG_VERSION")))?;
        w.timescale(1, TimescaleUnit::NS)?;
        let mut vars = vec![];
        let top = &d.modules[d.top];
        w.add_module(&top.name)?;
        let mut add = |w: &mut Writer<_>, src, width: usize, name: &str| -> std::io::Result<()> {
            let id = w.add_wire(width as u32, name)?;
            vars.push(Var { src, width, id, last: vec![0; words_for(width)], fresh: true });
            Ok(())
        };
        add(&mut w, Src::ClkCore, 1, "clk_core_i")?;
        add(&mut w, Src::ClkHot, 1, "clk_hot_i")?;
        add(&mut w, Src::Rst, 1, "rst_ni")?;
        let mut off = 0;
        for p in &top.inputs {
            add(&mut w, Src::In(off), p.width, &p.name)?;
            off += words_for(p.width);
        }
        off = 0;
        for p in &top.outputs {
            add(&mut w, Src::Out(off), p.width, &p.name)?;
            off += words_for(p.width);
        }
        // Pre-order walk matching the simulator's layout.
        fn walk(
            d: &Design,
            m: usize,
            li: &mut usize,
            layout: &[([usize; 2], usize)],
            w: &mut Writer<BufWriter<File>>,
            add: &mut dyn FnMut(&mut Writer<BufWriter<File>>, Src, usize, &str) -> std::io::Result<()>,
        ) -> std::io::Result<()> {
            let md = &d.modules[m];
            let (q, mb) = layout[*li];
            for r in &md.decl.regs {
                add(w, Src::Reg(r.dom as usize, q[r.dom as usize] + r.off), r.width, &format!("{}_q", r.name))?;
            }
            for (k, mi) in md.decl.mems.iter().enumerate() {
                for p in 0..mi.read_ports {
                    add(w, Src::MemRd(mb + k, p), mi.width, &format!("{}_rdata{p}_q", mi.name))?;
                }
            }
            for inst in &md.insts {
                *li += 1;
                w.add_module(&inst.name)?;
                walk(d, inst.module, li, layout, w, add)?;
                w.upscope()?;
            }
            Ok(())
        }
        let mut li = 0;
        walk(d, d.top, &mut li, layout, &mut w, &mut add)?;
        w.upscope()?;
        w.enddefinitions()?;
        Ok(VcdWriter { w, vars, time: 0 })
    }

    fn emit(&mut self, k: usize, words: &[u64]) -> std::io::Result<()> {
        let v = &mut self.vars[k];
        let nw = words_for(v.width);
        if !v.fresh && v.last[..] == words[..nw] {
            return Ok(());
        }
        v.fresh = false;
        v.last.copy_from_slice(&words[..nw]);
        if v.width == 1 {
            self.w.change_scalar(v.id, if words[0] & 1 == 1 { Value::V1 } else { Value::V0 })
        } else {
            self.w.change_vector(v.id, values(words, v.width))
        }
    }

    fn at(&mut self, t: u64) -> std::io::Result<()> {
        if t > self.time || t == 0 {
            self.w.timestamp(t)?;
            self.time = t;
        }
        Ok(())
    }

    /// Clocks, reset, registers and memory read registers.
    fn state(&mut self, clk: (u64, u64), q: &[Vec<u64>; 2], rdata: &dyn Fn(usize) -> Vec<u64>) -> std::io::Result<()> {
        for k in 0..self.vars.len() {
            let v: Vec<u64> = match self.vars[k].src {
                Src::ClkCore => vec![clk.0],
                Src::ClkHot => vec![clk.1],
                Src::Rst => vec![1],
                Src::In(_) | Src::Out(_) => continue,
                Src::Reg(dom, o) => q[dom][o..].to_vec(),
                Src::MemRd(m, p) => {
                    let nw = words_for(self.vars[k].width);
                    rdata(m)[p * nw..].to_vec()
                }
            };
            self.emit(k, &v)?;
        }
        Ok(())
    }

    pub(crate) fn initial(&mut self, t: u64, q: &[Vec<u64>; 2], rdata: &[Vec<u64>]) -> std::io::Result<()> {
        self.at(2 * t)?;
        self.state((t % 2, 0), q, &|m| rdata[m].clone())?;
        // Ports start at zero until the first step shows them.
        for k in 0..self.vars.len() {
            if matches!(self.vars[k].src, Src::In(_) | Src::Out(_)) {
                self.emit(k, &vec![0; words_for(self.vars[k].width)])?;
            }
        }
        Ok(())
    }

    pub(crate) fn pre_edge(&mut self, t: u64, inputs: &[u64], outputs: &[u64]) -> std::io::Result<()> {
        self.at(2 * t + 1)?;
        for k in 0..self.vars.len() {
            let v: Vec<u64> = match self.vars[k].src {
                Src::ClkCore => vec![t % 2],
                Src::ClkHot => vec![0],
                Src::In(o) => inputs[o..].to_vec(),
                Src::Out(o) => outputs[o..].to_vec(),
                _ => continue,
            };
            self.emit(k, &v)?;
        }
        Ok(())
    }

    pub(crate) fn post_edge<'a>(
        &mut self,
        t: u64,
        q: &[Vec<u64>; 2],
        rdata: impl Fn(usize) -> &'a Vec<u64>,
    ) -> std::io::Result<()> {
        self.at(2 * t + 2)?;
        self.state((1 - t % 2, 1), q, &|m| rdata(m).clone())
    }

    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        self.w.writer().flush()
    }
}
