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
use super::block::RegInfo;
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

/// Write `<vcd>.gtkw`, a GTKWave save file that opens `vcd` with the clocks,
/// the top module's ports grouped by their prefix (`join_*`, `arr_*`, ...:
/// one group per interface), and its registers: the ones without an index
/// in one group, the indexed ones (`pc3`, `act3`, `live3`: per warp, per CTA
/// slot, per lane) in one collapsed group per index, holding every stem that
/// shares that index range (so per-warp and per-CTA registers of the same
/// block land in different groups). Then one collapsed group per child
/// instance (`u_sched0 (sched_w32_s0of1)`, ...), holding its registers the
/// same way (an indexed family as one nested group, index by index) and its
/// own children nested inside. Buses in hex.
pub fn write_gtkw(vcd: &Path, d: &Design) -> std::io::Result<()> {
    let top = &d.modules[d.top];
    let mut s = String::new();
    let file = vcd
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    s.push_str(&format!(
        "[dumpfile] \"{file}\"\n[timestart] 0\n[size] 1400 900\n[signals_width] 280\n"
    ));
    let path = top.name.clone();
    group(&mut s, "clocks", true, &|s| {
        for c in ["clk_core_i", "clk_hot_i", "rst_ni"] {
            gtkw_sig(s, &path, c, 1);
        }
    });
    // Ports: one group per prefix, in declaration order, inputs first.
    for (dir, ports) in [("in", &top.inputs), ("out", &top.outputs)] {
        let mut prefixes: Vec<&str> = vec![];
        for p in ports.iter() {
            let pre = port_prefix(&p.name);
            if !prefixes.contains(&pre) {
                prefixes.push(pre);
            }
        }
        for pre in prefixes {
            group(&mut s, &format!("{pre} ({dir})"), true, &|s| {
                for p in ports.iter().filter(|p| port_prefix(&p.name) == pre) {
                    gtkw_sig(s, &path, &p.name, p.bits());
                }
            });
        }
    }
    let (plain, families) = reg_families(&top.decl.regs);
    group(&mut s, "registers", true, &|s| {
        for r in &plain {
            gtkw_sig(s, &path, &format!("{}_q", r.name), r.width);
        }
    });
    // The top's families: one collapsed group per index.
    for (ks, sts) in &families {
        for &k in ks {
            group(&mut s, &format!("[{k}] {}", sts.join(" ")), false, &|s| {
                family_member(s, &path, &top.decl.regs, sts, k);
            });
        }
    }
    for inst in &top.insts {
        inst_group(&mut s, d, &path, inst);
    }
    let mut out = vcd.as_os_str().to_owned();
    out.push(".gtkw");
    std::fs::write(out, s)
}

/// One trace line: `path.name`, a bit or a hex bus.
fn gtkw_sig(s: &mut String, path: &str, name: &str, width: usize) {
    if width == 1 {
        s.push_str(&format!("@28\n{path}.{name}\n"));
    } else {
        s.push_str(&format!("@22\n{path}.{name}[{}:0]\n", width - 1));
    }
}

/// A group (open or collapsed) around what `body` writes.
fn group(s: &mut String, label: &str, open: bool, body: &dyn Fn(&mut String)) {
    s.push_str(&format!("@{}\n-{label}\n", if open { "800200" } else { "c00200" }));
    body(s);
    s.push_str(&format!("@{}\n-{label}\n", if open { "1000200" } else { "1401200" }));
}

/// Registers split into the plain ones and families: stems `stem<index>`
/// with the same index set (a stem seen once is plain).
fn reg_families(regs: &[RegInfo]) -> (Vec<&RegInfo>, Vec<(Vec<usize>, Vec<&str>)>) {
    let mut stems: Vec<(&str, Vec<usize>)> = vec![];
    for r in regs {
        if let Some((stem, k)) = indexed(&r.name) {
            match stems.iter_mut().find(|(st, _)| *st == stem) {
                Some((_, ks)) => ks.push(k),
                None => stems.push((stem, vec![k])),
            }
        }
    }
    stems.retain(|(_, ks)| ks.len() > 1);
    let in_family = |name: &str| indexed(name).is_some_and(|(st, _)| stems.iter().any(|(s2, _)| *s2 == st));
    let plain = regs.iter().filter(|r| !in_family(&r.name)).collect();
    let mut families: Vec<(Vec<usize>, Vec<&str>)> = vec![];
    for (st, ks) in &stems {
        match families.iter_mut().find(|(k2, _)| k2 == ks) {
            Some((_, sts)) => sts.push(st),
            None => families.push((ks.clone(), vec![st])),
        }
    }
    (plain, families)
}

/// The registers `stem<k>` of every stem in `sts`.
fn family_member(s: &mut String, path: &str, regs: &[RegInfo], sts: &[&str], k: usize) {
    for st in sts {
        let name = format!("{st}{k}");
        if let Some(r) = regs.iter().find(|r| r.name == name) {
            gtkw_sig(s, path, &format!("{name}_q"), r.width);
        }
    }
}

/// A child instance as one collapsed group: its plain registers, each
/// register family as a nested group (index by index), then its children.
fn inst_group(s: &mut String, d: &Design, parent: &str, inst: &super::trace::Inst) {
    let m = &d.modules[inst.module];
    let path = format!("{parent}.{}", inst.name);
    group(s, &format!("{} ({})", inst.name, m.name), false, &|s| {
        let (plain, families) = reg_families(&m.decl.regs);
        for r in &plain {
            gtkw_sig(s, &path, &format!("{}_q", r.name), r.width);
        }
        for (ks, sts) in &families {
            let (lo, hi) = (
                ks.iter().min().copied().unwrap_or(0),
                ks.iter().max().copied().unwrap_or(0),
            );
            group(s, &format!("{} [{lo}..{hi}]", sts.join(" ")), false, &|s| {
                for &k in ks {
                    family_member(s, &path, &m.decl.regs, sts, k);
                }
            });
        }
        for c in &m.insts {
            inst_group(s, d, &path, c);
        }
    });
}

/// The interface a port belongs to: its name up to the first `_`
/// (`arr_warp_i` -> `arr`), or the whole name before `_i`/`_o`.
fn port_prefix(name: &str) -> &str {
    let base = name
        .strip_suffix("_i")
        .or_else(|| name.strip_suffix("_o"))
        .unwrap_or(name);
    base.split('_').next().unwrap_or(base)
}

/// `pc12` -> (`pc`, 12); names without a trailing index, or with digits
/// before it (`r0_d5`), are not indexed.
fn indexed(name: &str) -> Option<(&str, usize)> {
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if stem.is_empty() || stem.len() == name.len() || stem.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((stem, name[stem.len()..].parse().ok()?))
}

#[cfg(test)]
mod gtkw_tests {
    use super::{indexed, port_prefix};

    #[test]
    fn register_indices_and_port_interfaces() {
        assert_eq!(indexed("pc12"), Some(("pc", 12)));
        assert_eq!(indexed("err_wait3"), Some(("err_wait", 3)));
        assert_eq!(indexed("r0_d5"), None);
        assert_eq!(indexed("state"), None);
        assert_eq!(indexed("7"), None);
        assert_eq!(port_prefix("arr_warp_i"), "arr");
        assert_eq!(port_prefix("wait_o"), "wait");
        assert_eq!(port_prefix("clk"), "clk");
    }
}
