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

use super::bits::{pack_elems, words_for};
use super::trace::Design;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use vcd::{IdCode, TimescaleUnit, Writer};

#[derive(Debug, Clone, Copy)]
enum Src {
    ClkCore,
    ClkHot,
    Rst,
    /// Flattened word offset, element width, element count.
    In(usize, usize, usize),
    Out(usize, usize, usize),
    Reg(usize, usize),
    MemRd(usize, usize),
}

struct Var {
    src: Src,
    width: usize,
    /// The VCD identifier code, as text.
    code: Vec<u8>,
    last: Vec<u64>,
    fresh: bool,
}

/// A VCD being written by a [`Sim`](super::sim::Sim).
pub struct VcdWriter {
    w: Writer<BufWriter<File>>,
    vars: Vec<Var>,
    time: u64,
    line: Vec<u8>,
    packed: Vec<u64>,
}

/// ASCII '0'/'1' of each byte value, MSB first.
static BYTE_BITS: [[u8; 8]; 256] = {
    let mut t = [[b'0'; 8]; 256];
    let mut v = 0;
    while v < 256 {
        let mut b = 0;
        while b < 8 {
            if (v >> (7 - b)) & 1 == 1 {
                t[v][b] = b'1';
            }
            b += 1;
        }
        v += 1;
    }
    t
};

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
            let id: IdCode = w.add_wire(width as u32, name)?;
            vars.push(Var {
                src,
                width,
                code: id.to_string().into_bytes(),
                last: vec![0; words_for(width)],
                fresh: true,
            });
            Ok(())
        };
        add(&mut w, Src::ClkCore, 1, "clk_core_i")?;
        add(&mut w, Src::ClkHot, 1, "clk_hot_i")?;
        add(&mut w, Src::Rst, 1, "rst_ni")?;
        let mut off = 0;
        for p in &top.inputs {
            add(&mut w, Src::In(off, p.width, p.count), p.bits(), &p.name)?;
            off += p.words();
        }
        off = 0;
        for p in &top.outputs {
            add(&mut w, Src::Out(off, p.width, p.count), p.bits(), &p.name)?;
            off += p.words();
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
                add(
                    w,
                    Src::Reg(r.dom as usize, q[r.dom as usize] + r.off),
                    r.width,
                    &format!("{}_q", r.name),
                )?;
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
        Ok(VcdWriter {
            w,
            vars,
            time: 0,
            line: Vec::with_capacity((1 << 20) + 4096),
            packed: vec![],
        })
    }

    /// Write a value change of var `k` if it changed. Value changes are
    /// formatted here (the `vcd` crate formats bit by bit through `Display`,
    /// which dominated the run time).
    fn emit(&mut self, k: usize, words: &[u64]) -> std::io::Result<()> {
        let v = &mut self.vars[k];
        let nw = words_for(v.width);
        if nw == 1 {
            // Most signals: one word, compared and stored without a call.
            if !v.fresh && v.last[0] == words[0] {
                return Ok(());
            }
            v.last[0] = words[0];
        } else {
            if !v.fresh && v.last[..] == words[..nw] {
                return Ok(());
            }
            v.last.copy_from_slice(&words[..nw]);
        }
        v.fresh = false;
        // Value changes and timestamps are formatted into one large buffer
        // that goes to the file when full (the `vcd` crate writes the header).
        let buf = &mut self.line;
        if v.width == 1 {
            buf.extend_from_slice(&[b'0' + (words[0] & 1) as u8]);
            buf.extend_from_slice(&v.code);
            buf.extend_from_slice(b"\n");
        } else if v.width <= 256 {
            // Common case: format in a stack buffer, append once.
            let mut tmp = [0u8; 256 + 2 + 8 + 1];
            tmp[0] = b'b';
            let mut n = 1;
            let top = (0..nw)
                .rev()
                .find(|&i| words[i] != 0)
                .map(|i| 64 * i + 63 - words[i].leading_zeros() as usize);
            let mut b = top.unwrap_or(0) as isize;
            while b >= 0 && (b + 1) % 8 != 0 {
                tmp[n] = b'0' + ((words[b as usize / 64] >> (b as usize % 64)) & 1) as u8;
                n += 1;
                b -= 1;
            }
            while b >= 7 {
                let byte = (words[b as usize / 64] >> ((b as usize - 7) % 64)) as u8;
                tmp[n..n + 8].copy_from_slice(&BYTE_BITS[byte as usize]);
                n += 8;
                b -= 8;
            }
            tmp[n] = b' ';
            n += 1;
            buf.extend_from_slice(&tmp[..n]);
            buf.extend_from_slice(&v.code);
            buf.extend_from_slice(b"\n");
        } else {
            buf.push(b'b');
            // Leading zeros are dropped (VCD left-extends with 0); the rest
            // is written a byte (8 characters) at a time from a table.
            let top = (0..nw)
                .rev()
                .find(|&i| words[i] != 0)
                .map(|i| 64 * i + 63 - words[i].leading_zeros() as usize);
            let top = top.unwrap_or(0);
            let mut b = top as isize;
            while b >= 0 && (b + 1) % 8 != 0 {
                buf.push(b'0' + ((words[b as usize / 64] >> (b as usize % 64)) & 1) as u8);
                b -= 1;
            }
            while b >= 7 {
                let byte = (words[b as usize / 64] >> ((b as usize - 7) % 64)) as u8;
                buf.extend_from_slice(&BYTE_BITS[byte as usize]);
                b -= 8;
            }
            buf.push(b' ');
            buf.extend_from_slice(&v.code);
            buf.push(b'\n');
        }
        if buf.len() >= 1 << 20 {
            self.w.writer().write_all(buf)?;
            buf.clear();
        }
        Ok(())
    }

    fn at(&mut self, t: u64) -> std::io::Result<()> {
        if t > self.time || t == 0 {
            let _ = writeln!(self.line, "#{t}");
            self.time = t;
        }
        Ok(())
    }

    /// Clocks, reset, registers and memory read registers.
    fn state<'a>(
        &mut self,
        clk: (u64, u64),
        q: &[Vec<u64>; 2],
        rdata: &dyn Fn(usize) -> &'a [u64],
    ) -> std::io::Result<()> {
        for k in 0..self.vars.len() {
            let (src, nw) = (self.vars[k].src, words_for(self.vars[k].width));
            match src {
                Src::ClkCore => self.emit(k, &[clk.0])?,
                Src::ClkHot => self.emit(k, &[clk.1])?,
                Src::Rst => self.emit(k, &[1])?,
                Src::In(..) | Src::Out(..) => {}
                Src::Reg(dom, o) => self.emit(k, &q[dom][o..o + nw])?,
                Src::MemRd(m, p) => self.emit(k, &rdata(m)[p * nw..(p + 1) * nw])?,
            }
        }
        Ok(())
    }

    pub(crate) fn initial(&mut self, t: u64, q: &[Vec<u64>; 2], rdata: &[Vec<u64>]) -> std::io::Result<()> {
        self.at(2 * t)?;
        self.state((t % 2, 0), q, &|m| &rdata[m][..])?;
        // Ports start at zero until the first step shows them.
        for k in 0..self.vars.len() {
            if matches!(self.vars[k].src, Src::In(..) | Src::Out(..)) {
                self.emit(k, &vec![0; words_for(self.vars[k].width)])?;
            }
        }
        Ok(())
    }

    pub(crate) fn pre_edge(&mut self, t: u64, inputs: &[u64], outputs: &[u64]) -> std::io::Result<()> {
        self.at(2 * t + 1)?;
        for k in 0..self.vars.len() {
            match self.vars[k].src {
                Src::ClkCore => self.emit(k, &[t % 2])?,
                Src::ClkHot => self.emit(k, &[0])?,
                Src::In(o, _, 1) => self.emit(k, &inputs[o..])?,
                Src::Out(o, _, 1) => self.emit(k, &outputs[o..])?,
                Src::In(o, w, n) => {
                    pack_elems(&inputs[o..], w, n, &mut self.packed);
                    let packed = std::mem::take(&mut self.packed);
                    self.emit(k, &packed)?;
                    self.packed = packed;
                }
                Src::Out(o, w, n) => {
                    pack_elems(&outputs[o..], w, n, &mut self.packed);
                    let packed = std::mem::take(&mut self.packed);
                    self.emit(k, &packed)?;
                    self.packed = packed;
                }
                _ => {}
            }
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
        self.state((1 - t % 2, 1), q, &|m| &rdata(m)[..])
    }

    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        let buf = std::mem::take(&mut self.line);
        self.w.writer().write_all(&buf)?;
        self.w.writer().flush()
    }
}
