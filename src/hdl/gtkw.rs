//! GTKWave save files (`.gtkw`) for the simulator's VCDs.
//!
//! * Paths. GTKWave 3.3 opens `[dumpfile]` relative to the directory it
//!   was started in; when that fails, it takes the dump's path relative to
//!   `[savefile]` and resolves it from the directory of the save file being
//!   opened (GTKWave's `get_relative_adjusted_name`; translate filter files,
//!   `^1 path`, go through the same rule once `[savefile]` has been read).
//!   Every save file written here names the dump, itself and its filter
//!   files as the writer was given them (`waves/x.vcd`,
//!   `waves/x.vcd.gtkw`), so `gtkwave waves/x.vcd.gtkw` works from the
//!   directory of the run (the repository root), `gtkwave x.vcd.gtkw` from
//!   `waves/`, and a moved folder still opens.
//! * [`Gtkw`] builds the text: traces of whole signals, bit ranges of a
//!   signal or of several (`#{alias} (i)sig[w-1:0] ...`, GTKWave's own
//!   form for a vector made of bits; `(i)` counts from the MSB), groups
//!   (open or collapsed), translate filter files, the first time shown and
//!   the zoom.
//! * [`write_gtkw`] is the generic save file of a design: the clocks, the
//!   top module's ports grouped by their prefix (`join_*`, `arr_*`, ...: one
//!   group per interface; a port array wider than 64 bits, such as a
//!   1024-bit memory port, as a collapsed group of its elements), its
//!   registers (plain ones in one group; indexed ones, `pc3`, `act3`, one
//!   collapsed group per index holding every stem that shares that index
//!   range), then one collapsed group per child instance, nested the same
//!   way. [`design_groups`] writes that body after another writer's own
//!   groups (the SM's, `src/sm/waves.rs`).

use super::block::RegInfo;
use super::trace::{Design, Inst, PortInfo};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The save file of `vcd`: `<vcd>.gtkw`.
pub fn save_path(vcd: &Path) -> PathBuf {
    let mut out = vcd.as_os_str().to_owned();
    out.push(".gtkw");
    PathBuf::from(out)
}

/// The first lines of the save file of `dump` (a VCD or FST) written to
/// `save`: `[dumpfile]` and `[savefile]`, each as given (see the module
/// documentation).
pub fn header(dump: &Path, save: &Path) -> String {
    format!("[dumpfile] \"{}\"\n[savefile] \"{}\"\n", dump.display(), save.display())
}

/// How a trace shows its value (GTKWave's trace flags, right-justified).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fmt {
    Bin,
    Hex,
    Dec,
}

impl Fmt {
    fn flags(self) -> u32 {
        // TR_RJUSTIFY 0x20 with TR_BIN 0x8, TR_HEX 0x2 or TR_DEC 0x4.
        0x20 | match self {
            Fmt::Bin => 0x8,
            Fmt::Hex => 0x2,
            Fmt::Dec => 0x4,
        }
    }
}

/// GTKWave's flag for a value shown through a translate filter file.
const TR_FTRANSLATED: u32 = 0x2000;

/// A save file being written.
#[derive(Debug, Clone)]
pub struct Gtkw {
    s: String,
}

impl Gtkw {
    /// A save file for `dump`, to be written to `<dump>.gtkw`.
    pub fn new(dump: &Path) -> Self {
        Gtkw {
            s: header(dump, &save_path(dump)),
        }
    }

    /// Window size, signal pane width, the first time shown and the zoom
    /// (GTKWave's: `2^-zoom` time units per pixel).
    pub fn view(&mut self, size: (u32, u32), signals_width: u32, timestart: u64, zoom: Option<f64>) {
        let _ = writeln!(
            self.s,
            "[timestart] {timestart}\n[size] {} {}\n[signals_width] {signals_width}",
            size.0, size.1
        );
        if let Some(z) = zoom {
            let _ = writeln!(self.s, "*{z:.6} -1");
        }
    }

    /// A whole signal `path.name` of `width` bits (bits in binary, buses in
    /// hex).
    pub fn sig(&mut self, path: &str, name: &str, width: usize) {
        if width == 1 {
            let _ = writeln!(self.s, "@{:x}\n{path}.{name}", Fmt::Bin.flags());
        } else {
            let _ = writeln!(self.s, "@{:x}\n{path}.{name}[{}:0]", Fmt::Hex.flags(), width - 1);
        }
    }

    /// A whole signal shown as `alias`, through `filter` when given.
    pub fn alias(&mut self, alias: &str, full: &str, width: usize, fmt: Fmt, filter: Option<&Path>) {
        self.flags(fmt, filter);
        if width == 1 {
            let _ = writeln!(self.s, "+{{{alias}}} {full}");
        } else {
            let _ = writeln!(self.s, "+{{{alias}}} {full}[{}:0]", width - 1);
        }
    }

    /// A vector `alias` made of bit ranges, most significant first: each
    /// `(full, width, hi, lo)` is bits `hi..=lo` of the `width`-bit signal
    /// `full` (a 1-bit signal is named whole).
    pub fn bits(&mut self, alias: &str, parts: &[(&str, usize, usize, usize)], fmt: Fmt, filter: Option<&Path>) {
        self.flags(fmt, filter);
        let _ = write!(self.s, "#{{{alias}}}");
        for &(full, width, hi, lo) in parts {
            if width == 1 {
                let _ = write!(self.s, " {full}");
                continue;
            }
            for b in (lo..=hi).rev() {
                let _ = write!(self.s, " ({}){full}[{}:0]", width - 1 - b, width - 1);
            }
        }
        self.s.push('\n');
    }

    fn flags(&mut self, fmt: Fmt, filter: Option<&Path>) {
        match filter {
            Some(f) => {
                let _ = writeln!(self.s, "@{:x}\n^1 {}", fmt.flags() | TR_FTRANSLATED, f.display());
            }
            None => {
                let _ = writeln!(self.s, "@{:x}", fmt.flags());
            }
        }
    }

    /// A group (open or collapsed) around what `body` writes.
    pub fn group(&mut self, label: &str, open: bool, body: impl FnOnce(&mut Gtkw)) {
        // TR_GRP_BEGIN|TR_BLANK, TR_GRP_END|TR_BLANK; collapsed: with
        // TR_CLOSED (begin) and TR_CLOSED|TR_COLLAPSED (end).
        let (b, e) = if open {
            ("800200", "1000200")
        } else {
            ("c00200", "1401200")
        };
        let _ = writeln!(self.s, "@{b}\n-{label}");
        body(self);
        let _ = writeln!(self.s, "@{e}\n-{label}");
    }

    /// A line of the save file as it is (`[sst_expanded] 0`, ...).
    pub fn line(&mut self, line: &str) {
        self.s.push_str(line);
        self.s.push('\n');
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.s
    }

    /// Write the save file of `dump` (`<dump>.gtkw`).
    pub fn write(&self, dump: &Path) -> std::io::Result<()> {
        let p = save_path(dump);
        std::fs::write(&p, &self.s).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", p.display())))
    }
}

/// Write `<vcd>.gtkw`, the generic save file of design `d` (module
/// documentation), ports open.
pub fn write_gtkw(vcd: &Path, d: &Design) -> std::io::Result<()> {
    let mut g = Gtkw::new(vcd);
    g.view((1400, 900), 280, 0, None);
    design_groups(&mut g, d, true);
    g.write(vcd)
}

/// The clocks, the top's ports and registers, and one collapsed group per
/// child instance; the clock and port groups open when `open`.
pub fn design_groups(g: &mut Gtkw, d: &Design, open: bool) {
    let top = &d.modules[d.top];
    let path = top.name.clone();
    g.group("clocks", open, |g| {
        for c in ["clk_core_i", "clk_hot_i", "rst_ni"] {
            g.sig(&path, c, 1);
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
            g.group(&format!("{pre} ({dir})"), open, |g| {
                for p in ports.iter().filter(|p| port_prefix(&p.name) == pre) {
                    port(g, &path, p);
                }
            });
        }
    }
    let (plain, families) = reg_families(&top.decl.regs);
    g.group("registers", open, |g| {
        for r in &plain {
            g.sig(&path, &format!("{}_q", r.name), r.width);
        }
    });
    // The top's families: one collapsed group per index.
    for (ks, sts) in &families {
        for &k in ks {
            g.group(&format!("[{k}] {}", sts.join(" ")), false, |g| {
                family_member(g, &path, &top.decl.regs, sts, k);
            });
        }
    }
    for inst in &top.insts {
        inst_group(g, d, &path, inst);
    }
}

/// A port: whole, or, for an array wider than 64 bits, a collapsed group
/// of its elements (`name[k]`, element 0 in the low bits).
fn port(g: &mut Gtkw, path: &str, p: &PortInfo) {
    if p.count == 1 || p.bits() <= 64 {
        g.sig(path, &p.name, p.bits());
        return;
    }
    let full = format!("{path}.{}", p.name);
    let n = p.bits();
    g.group(&format!("{} [0..{}]", p.name, p.count - 1), false, |g| {
        for k in 0..p.count {
            let (lo, hi) = (k * p.width, k * p.width + p.width - 1);
            g.bits(&format!("{}[{k}]", p.name), &[(&full, n, hi, lo)], Fmt::Hex, None);
        }
    });
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
fn family_member(g: &mut Gtkw, path: &str, regs: &[RegInfo], sts: &[&str], k: usize) {
    for st in sts {
        let name = format!("{st}{k}");
        if let Some(r) = regs.iter().find(|r| r.name == name) {
            g.sig(path, &format!("{name}_q"), r.width);
        }
    }
}

/// A child instance as one collapsed group: its plain registers, each
/// register family as a nested group (index by index), then its children.
fn inst_group(g: &mut Gtkw, d: &Design, parent: &str, inst: &Inst) {
    let m = &d.modules[inst.module];
    let path = format!("{parent}.{}", inst.name);
    g.group(&format!("{} ({})", inst.name, m.name), false, |g| {
        let (plain, families) = reg_families(&m.decl.regs);
        for r in &plain {
            g.sig(&path, &format!("{}_q", r.name), r.width);
        }
        for (ks, sts) in &families {
            let (lo, hi) = (
                ks.iter().min().copied().unwrap_or(0),
                ks.iter().max().copied().unwrap_or(0),
            );
            g.group(&format!("{} [{lo}..{hi}]", sts.join(" ")), false, |g| {
                for &k in ks {
                    family_member(g, &path, &m.decl.regs, sts, k);
                }
            });
        }
        for c in &m.insts {
            inst_group(g, d, &path, c);
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
mod tests {
    use super::{header, indexed, port_prefix, Fmt, Gtkw};
    use std::path::Path;

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

    /// The dump and the save file are named as given, the save file beside
    /// the dump.
    #[test]
    fn dumpfile_and_savefile_as_given() {
        let g = Gtkw::new(Path::new("waves/sm_demo_gt200.vcd"));
        assert_eq!(
            g.text(),
            "[dumpfile] \"waves/sm_demo_gt200.vcd\"\n[savefile] \"waves/sm_demo_gt200.vcd.gtkw\"\n"
        );
        assert_eq!(
            header(Path::new("/tmp/a b/x.fst"), Path::new("/tmp/a b/x.fst.gtkw")),
            "[dumpfile] \"/tmp/a b/x.fst\"\n[savefile] \"/tmp/a b/x.fst.gtkw\"\n"
        );
    }

    /// Bit ranges count from the MSB in GTKWave's `(i)` form: bits 5..0 of
    /// a 32-bit signal are `(26)`..`(31)`, MSB first; a 1-bit part is named
    /// whole; a filter file comes after the flags.
    #[test]
    fn bit_ranges_and_filters() {
        let mut g = Gtkw::new(Path::new("w.vcd"));
        g.bits("warp", &[("t.tag_o", 32, 5, 0)], Fmt::Dec, None);
        g.bits(
            "op",
            &[("t.v_o", 1, 0, 0), ("t.tag_o", 32, 17, 16)],
            Fmt::Hex,
            Some(Path::new("w.pcs.txt")),
        );
        let body = &g.text()[g.text().find("@24").unwrap()..];
        assert_eq!(
            body,
            "@24\n#{warp} (26)t.tag_o[31:0] (27)t.tag_o[31:0] (28)t.tag_o[31:0] (29)t.tag_o[31:0] (30)t.tag_o[31:0] (31)t.tag_o[31:0]\n\
             @2022\n^1 w.pcs.txt\n#{op} t.v_o (14)t.tag_o[31:0] (15)t.tag_o[31:0]\n"
        );
    }
}
