//! The SM's GTKWave save file (`smrtl run --rtl --vcd PATH`): it opens on
//! the kernel running (docs/waves.md).
//!
//! * One open group per scheduler: the issue monitor (`iss<s>_valid_o`),
//!   the warp and pc cut from `iss<s>_tag_o` (docs/sm.md "The tag"), the
//!   opcode's mnemonic and the whole instruction, the lanes that execute
//!   (`iss<s>_mask_o`) and why nothing issued (`stall<s>_o`, by name).
//! * One open group per write channel (`ret<w>_*`: the same fields,
//!   the destination, the values of each lane in collapsed groups), the
//!   units' busy bits (`unit_busy_o`, only the units the preset has), the
//!   warp starts (`st_*`) and the global-memory requests and responses.
//! * On a preset with GPU-CC, an open group "GPU-CC": the mode, the
//!   firing and run counters, and per node (`core0`..`lsu15`) collapsed
//!   groups of its firings and stall causes (two bits: this hot cycle
//!   and the one before).
//! * A collapsed group of the operand collectors (valid, warp, opcode),
//!   then the generic groups of every port and block
//!   (`hdl::gtkw::design_groups`, collapsed).
//! * Text comes from translate filter files beside the VCD, keyed by the
//!   value GTKWave shows in hex ([`filters`]). The SM has no opcode port at
//!   issue or write-back: the instruction is looked up by the pc the tag
//!   carries, so the issue and write-back traces are vectors of the valid
//!   bit and a field, and a cycle without a valid bit shows blank (a
//!   no-break space: GTKWave ignores an empty translation).
//! * The view starts [`LEAD_CORE_CYCLES`] before the first issue and spans
//!   [`VIEW_CORE_CYCLES`] (4 VCD time units each): one core cycle is then
//!   wide enough for a mnemonic. GTKWave's zoom-out shows the rest.

use crate::golden::asm::format_instr_with;
use crate::golden::isa::{Op, Program};
use crate::hdl::gtkw::{design_groups, Fmt, Gtkw};
use crate::hdl::Design;
use crate::sm::top::{units_present, STALL_NAMES, UNIT_BUSY_NAMES};
use crate::sm::SmConfig;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Core cycles the save file shows at first.
pub const VIEW_CORE_CYCLES: u64 = 36;
/// Core cycles shown before the first issue.
pub const LEAD_CORE_CYCLES: u64 = 3;
/// GTKWave 3.3 shows `5 * 2^-zoom` VCD time units across the wave pane of
/// the save file's window (1400 pixels wide, signal pane 200): measured
/// with `gtkwave::getWindowEndTime` under Xvfb.
const UNITS_AT_ZOOM_0: f64 = 5.0;
/// What a cycle without a valid bit shows: a no-break space.
const BLANK: &str = "\u{a0}";

/// The SM's translate filter files, beside the VCD `vcd` (`<stem>.<x>.txt`).
pub struct Filters {
    /// Every opcode of the ISA table (7 bits, two hex digits) as its
    /// mnemonic (`ops.txt`).
    pub ops: PathBuf,
    /// {valid, pc} (17 bits, five hex digits) as the mnemonic of the
    /// instruction at pc (`mnemonics.txt`).
    pub mnemonics: PathBuf,
    /// {valid, pc} as the whole instruction at pc (`instructions.txt`).
    pub instructions: PathBuf,
    /// The fields of the monitors, each with its own key width: a stall
    /// cause (one hex digit) as its name, {valid, warp} (two) as the warp,
    /// {valid, kind, dst} (three) as the destination, {valid, pc} (five)
    /// as the pc in decimal (`fields.txt`).
    pub fields: PathBuf,
}

/// The filter files of `vcd`.
pub fn filters(vcd: &Path) -> Filters {
    let f = |x: &str| vcd.with_extension(x);
    Filters {
        ops: f("ops.txt"),
        mnemonics: f("mnemonics.txt"),
        instructions: f("instructions.txt"),
        fields: f("fields.txt"),
    }
}

/// `ops.txt`: every opcode of the ISA table as its mnemonic.
pub fn ops_filter() -> String {
    let mut s = String::new();
    for op in Op::ALL {
        let _ = writeln!(s, "{:02X} {}", *op as u8, op.info().mnemonic);
    }
    s
}

/// {valid, pc} of every pc of `prog` as `text(pc)`; not valid as blank.
fn pc_filter(prog: &Program, text: impl Fn(usize) -> String) -> String {
    let n = prog.code.len().min(1 << 16);
    let mut s = String::new();
    for pc in 0..n {
        let _ = writeln!(s, "1{pc:04X} {}", text(pc));
    }
    for pc in 0..n {
        let _ = writeln!(s, "0{pc:04X} {BLANK}");
    }
    s
}

/// `mnemonics.txt` of `prog`.
pub fn mnemonics_filter(prog: &Program) -> String {
    pc_filter(prog, |pc| prog.code[pc].op.info().mnemonic.to_string())
}

/// `instructions.txt` of `prog` (the disassembler's text).
pub fn instructions_filter(prog: &Program) -> String {
    pc_filter(prog, |pc| format_instr_with(&prog.code[pc], None, &prog.params))
}

/// `fields.txt` for `prog`.
pub fn fields_filter(prog: &Program) -> String {
    let mut s = String::new();
    for (k, n) in STALL_NAMES.iter().enumerate() {
        let _ = writeln!(s, "{k:X} {n}");
    }
    for w in 0..64 {
        let _ = writeln!(s, "{:02X} {w}\n{w:02X} {BLANK}", 64 + w);
    }
    // The tag's kind: 0 none, 1 register, 2 register pair, 3 predicate.
    for kind in 0..4 {
        for dst in 0..256 {
            let text = match kind {
                0 => "-".to_string(),
                1 => format!("R{dst}"),
                2 => format!("R{dst}:R{}", dst + 1),
                _ => format!("P{}", dst & 3),
            };
            let key = kind << 8 | dst;
            let _ = writeln!(s, "{:03X} {text}\n{key:03X} {BLANK}", 1 << 10 | key);
        }
    }
    s.push_str(&pc_filter(prog, |pc| pc.to_string()));
    s
}

/// GTKWave's zoom for `core` core cycles across the wave pane.
fn zoom_for(core: u64) -> f64 {
    (UNITS_AT_ZOOM_0 / (4 * core) as f64).log2()
}

/// Write `<vcd>.gtkw` and its filter files for the SM of `cfg` (design
/// `d`) running `prog`; `first_issue` is the VCD time of the first issue,
/// if any.
pub fn write_sm_gtkw(
    vcd: &Path,
    d: &Design,
    cfg: &SmConfig,
    prog: &Program,
    first_issue: Option<u64>,
) -> std::io::Result<()> {
    let f = filters(vcd);
    for (p, text) in [
        (&f.ops, ops_filter()),
        (&f.mnemonics, mnemonics_filter(prog)),
        (&f.instructions, instructions_filter(prog)),
        (&f.fields, fields_filter(prog)),
    ] {
        std::fs::write(p, text).map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", p.display())))?;
    }
    let top = d.modules[d.top].name.clone();
    let t = |n: &str| format!("{top}.{n}");
    let mut g = Gtkw::new(vcd);
    let start = first_issue.map_or(0, |x| x.saturating_sub(4 * LEAD_CORE_CYCLES));
    g.view((1400, 900), 200, start, Some(zoom_for(VIEW_CORE_CYCLES)));
    g.line("[sst_expanded] 0");
    // The tag fields of a monitor, blank while `v` is low.
    let tag_fields = |g: &mut Gtkw, v: &str, tag: &str| {
        let vb = (v, 1, 0, 0);
        g.alias("valid", v, 1, Fmt::Bin, None);
        g.bits("warp", &[vb, (tag, 32, 5, 0)], Fmt::Hex, Some(&f.fields));
        g.bits("pc", &[vb, (tag, 32, 31, 16)], Fmt::Hex, Some(&f.fields));
        g.bits("op", &[vb, (tag, 32, 31, 16)], Fmt::Hex, Some(&f.mnemonics));
        g.bits("instruction", &[vb, (tag, 32, 31, 16)], Fmt::Hex, Some(&f.instructions));
    };
    for s in 0..cfg.warp_schedulers as usize {
        let (v, tag) = (t(&format!("iss{s}_valid_o")), t(&format!("iss{s}_tag_o")));
        g.group(&format!("scheduler {s}: issue"), true, |g| {
            tag_fields(g, &v, &tag);
            g.alias("lanes", &t(&format!("iss{s}_mask_o")), 32, Fmt::Hex, None);
            g.alias("stall", &t(&format!("stall{s}_o")), 3, Fmt::Hex, Some(&f.fields));
        });
    }
    // One write channel per scheduler (src/units/wb).
    for w in 0..cfg.warp_schedulers as usize {
        let (v, tag) = (t(&format!("ret{w}_valid_o")), t(&format!("ret{w}_tag_o")));
        g.group(&format!("write-back {w}"), true, |g| {
            tag_fields(g, &v, &tag);
            g.bits(
                "destination",
                &[(&v, 1, 0, 0), (&tag, 32, 15, 6)],
                Fmt::Hex,
                Some(&f.fields),
            );
            g.alias("lanes", &t(&format!("ret{w}_mask_o")), 32, Fmt::Hex, None);
            for half in ["lo", "hi"] {
                let vals = t(&format!("ret{w}_{half}_o"));
                g.group(&format!("values {half} [0..31]"), false, |g| {
                    for l in 0..32 {
                        g.bits(
                            &format!("lane {l}"),
                            &[(&vals, 1024, 32 * l + 31, 32 * l)],
                            Fmt::Hex,
                            None,
                        );
                    }
                });
            }
        });
    }
    g.group("units busy (not ready)", true, |g| {
        for k in units_present(cfg.warp_schedulers, cfg.has_dpu()) {
            g.bits(UNIT_BUSY_NAMES[k], &[(&t("unit_busy_o"), 5, k, k)], Fmt::Bin, None);
        }
    });
    g.group("warp starts", true, |g| {
        g.alias("valid", &t("st_valid_o"), 1, Fmt::Bin, None);
        g.alias("warp slot", &t("st_warp_o"), 6, Fmt::Dec, None);
        g.alias("CTA slot", &t("st_cta_o"), 4, Fmt::Dec, None);
    });
    g.group("global memory", true, |g| {
        g.alias("request", &t("gm_req_valid_o"), 1, Fmt::Bin, None);
        g.alias("write", &t("gm_req_write_o"), 1, Fmt::Bin, None);
        g.alias("id", &t("gm_req_id_o"), 8, Fmt::Dec, None);
        g.alias("address", &t("gm_req_addr_o"), 32, Fmt::Hex, None);
        g.alias("response", &t("gm_resp_valid_i"), 1, Fmt::Bin, None);
        g.alias("response id", &t("gm_resp_id_i"), 8, Fmt::Dec, None);
    });
    if cfg.gpucc.is_some() {
        // GPU-CC mode (docs/gpucc.md section 12): per node two bits, the
        // hot cycle sampled at the core edge and the one before.
        g.group("GPU-CC", true, |g| {
            g.alias("mode", &t("gc_mode_o"), 1, Fmt::Bin, None);
            g.alias("firings (count)", &t("cnt_gc_fire_o"), 32, Fmt::Dec, None);
            g.alias("runs", &t("cnt_gc_runs_o"), 32, Fmt::Dec, None);
            let nodes = crate::golden::gpucc::NODES;
            for (label, port) in [
                ("fired [node]", "gc_fire_o"),
                ("input empty [node]", "gc_stall_in_o"),
                ("output full [node]", "gc_stall_out_o"),
            ] {
                let bus = t(port);
                g.group(label, false, |g| {
                    for n in 0..nodes {
                        g.bits(
                            crate::golden::gpucc::node_name(n).as_str(),
                            &[(&bus, 2 * nodes, 2 * n + 1, 2 * n)],
                            Fmt::Bin,
                            None,
                        );
                    }
                });
            }
            // The token each node drove on its lane in the hot cycle
            // sampled at the core edge (bits 64n+63..64n+32 of
            // `gc_tok_o`; the one before is bits 64n+31..64n) and the two
            // valid bits.
            let (tv, tk) = (t("gc_tok_valid_o"), t("gc_tok_o"));
            g.group("token valid [node]", false, |g| {
                for n in 0..nodes {
                    let name = crate::golden::gpucc::node_name(n);
                    g.bits(name.as_str(), &[(&tv, 2 * nodes, 2 * n + 1, 2 * n)], Fmt::Bin, None);
                }
            });
            g.group("token [node]", false, |g| {
                for n in 0..nodes {
                    let name = crate::golden::gpucc::node_name(n);
                    g.bits(
                        name.as_str(),
                        &[(&tk, 64 * nodes, 64 * n + 63, 64 * n + 32)],
                        Fmt::Hex,
                        None,
                    );
                }
            });
        });
    }
    let oc = d.modules[d.top]
        .insts
        .iter()
        .find(|i| i.name == "u_oc")
        .map(|i| &d.modules[i.module]);
    if let Some(m) = oc {
        let n = (0..)
            .take_while(|c| m.decl.regs.iter().any(|r| r.name == format!("c{c}_op")))
            .count();
        g.group("operand collectors", false, |g| {
            for c in 0..n {
                let p = |x: &str| t(&format!("u_oc.c{c}_{x}_q"));
                g.alias(&format!("c{c} valid"), &p("valid"), 1, Fmt::Bin, None);
                g.bits(&format!("c{c} warp"), &[(&p("tag"), 32, 5, 0)], Fmt::Dec, None);
                g.alias(&format!("c{c} op"), &p("op"), 7, Fmt::Hex, Some(&f.ops));
            }
        });
    }
    design_groups(&mut g, d, false);
    g.write(vcd)
}
