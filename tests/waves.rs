//! GTKWave save files and the RTL run's report, run as a newcomer runs
//! them: the README's main job from a fresh directory (`waves/` relative
//! to it), then GTKWave on the save file from that directory and from
//! `waves/` (under `xvfb-run`, when GTKWave and Xvfb are installed),
//! reading back what it shows.

use smrtl::golden::asm::assemble;
use smrtl::golden::isa::Op;
use smrtl::golden::model::Launch;
use smrtl::sm::run::{run_program, RtlOptions};
use smrtl::sm::SmConfig;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

mod common;

fn smrtl(dir: &Path, args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_smrtl"))
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "smrtl {args:?}:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// GTKWave and a virtual X server to run it on.
fn gtkwave_here() -> bool {
    let ok = |c: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {c}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let here = ok("gtkwave") && ok("xvfb-run");
    if !here {
        assert!(
            std::env::var_os("CI").is_none(),
            "gtkwave or xvfb-run missing in CI (.ci/run installs gtkwave xvfb)"
        );
        eprintln!("skipped the GTKWave part: needs gtkwave and xvfb-run (apt-get install gtkwave xvfb)");
    }
    here
}

/// Open `save` with GTKWave in `dir`, put the marker at `marker` and read
/// the dump's name and every trace's name and value there.
fn gtkwave_view(dir: &Path, save: &str, marker: u64) -> (String, Vec<(String, String)>) {
    let tcl = dir.join("read_view.tcl");
    std::fs::write(
        &tcl,
        format!(
            "gtkwave::setMarker {marker}\n\
             puts \"DUMP [gtkwave::getDumpFileName]\"\n\
             set n [gtkwave::getTotalNumTraces]\n\
             for {{set i 0}} {{$i < $n}} {{incr i}} {{\n\
               puts \"TRACE [gtkwave::getTraceNameFromIndex $i]=[gtkwave::getTraceValueAtMarkerFromIndex $i]\"\n\
             }}\n\
             gtkwave::/File/Quit\n"
        ),
    )
    .unwrap();
    let o = Command::new("timeout")
        .current_dir(dir)
        .args(["120", "xvfb-run", "-a", "gtkwave", "-S"])
        .arg(&tcl)
        .arg(save)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    let dump = out
        .lines()
        .find_map(|l| l.strip_prefix("DUMP "))
        .unwrap_or_else(|| panic!("GTKWave did not load {save} in {}:\n{out}", dir.display()))
        .to_string();
    let traces = out
        .lines()
        .filter_map(|l| l.strip_prefix("TRACE "))
        .filter_map(|l| l.split_once('='))
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    (dump, traces)
}

/// The VCD's signals (hierarchical name -> id) and, for `watch`, every
/// value change as (time, value).
fn vcd_changes(path: &Path, watch: &[&str]) -> (Vec<String>, BTreeMap<String, Vec<(u64, u64)>>) {
    let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut p = vcd::Parser::new(f);
    let h = p.parse_header().unwrap();
    let names = common::vcd_names(&h);
    let ids: BTreeMap<vcd::IdCode, String> = names
        .iter()
        .filter(|(n, _)| watch.contains(&n.as_str()))
        .map(|(n, c)| (*c, n.clone()))
        .collect();
    let mut changes: BTreeMap<String, Vec<(u64, u64)>> = BTreeMap::new();
    let mut t = 0;
    for cmd in p {
        match cmd.unwrap() {
            vcd::Command::Timestamp(x) => t = x,
            vcd::Command::ChangeScalar(i, v) if ids.contains_key(&i) => {
                changes
                    .entry(ids[&i].clone())
                    .or_default()
                    .push((t, (v == vcd::Value::V1) as u64));
            }
            vcd::Command::ChangeVector(i, v) if ids.contains_key(&i) => {
                let n = v.iter().fold(0u64, |a, b| (a << 1) | (b == vcd::Value::V1) as u64);
                changes.entry(ids[&i].clone()).or_default().push((t, n));
            }
            _ => {}
        }
    }
    (names.into_iter().map(|(n, _)| n).collect(), changes)
}

/// The units of a report's `unit busy` line.
fn units_listed(report: &str) -> Vec<&str> {
    let busy = report
        .lines()
        .find(|l| l.trim_start().starts_with("unit busy"))
        .unwrap();
    let names = busy.split_once(':').unwrap().1.split_whitespace();
    names.filter(|w| !w.ends_with('%')).collect()
}

/// The signals a save file names (`name[..]` traces, `+{alias} name`,
/// `#{alias} (i)name[..] ...`).
fn save_file_signals(g: &str) -> Vec<String> {
    let mut out = vec![];
    for l in g.lines() {
        let l = match l.strip_prefix(['+', '#']) {
            Some(rest) => rest.split_once("} ").map_or("", |(_, r)| r),
            None if l.starts_with(['@', '-', '[', '^', '*']) => "",
            None => l,
        };
        for tok in l.split_whitespace() {
            // `(i)name[w-1:0]`: bit i of name.
            let tok = match tok.strip_prefix('(') {
                Some(r) => r.split_once(')').map_or(r, |x| x.1),
                None => tok,
            };
            out.push(tok.split('[').next().unwrap().to_string());
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The README's main job, from a fresh directory: the report counts the
/// CTAs resident at once (2 for a grid of 2, not the 4 the kernel's
/// occupancy allows) and lists only gt200's units; the save file names
/// the dump and itself as given, opens on the issue of scheduler 0 near
/// the first issue, writes the translate filter files (every opcode of
/// the ISA table; the kernel's instructions), splits the 1024-bit memory
/// ports per word, and names only signals of the VCD; GTKWave opens it
/// from the run's directory and from `waves/` and shows the issued
/// instructions as text.
#[test]
fn sm_main_job_waves_and_report() {
    let root = tempfile::tempdir().unwrap();
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sm_demo.s");
    smrtl(
        root.path(),
        &[
            "run",
            demo,
            "--rtl",
            "--config",
            "gt200",
            "--grid",
            "2",
            "--block",
            "128",
            "--param",
            "out=0",
            "--gmem-size",
            "1024",
            "--vcd",
            "waves/sm_demo_gt200.vcd",
            "--report",
            "waves/sm_demo_gt200.txt",
        ],
    );
    let waves = root.path().join("waves");
    let report = std::fs::read_to_string(waves.join("sm_demo_gt200.txt")).unwrap();
    let occ = report.lines().find(|l| l.contains("occupancy:")).unwrap();
    assert!(occ.contains(" 2 resident CTAs"), "{report}");
    assert!(!occ.contains(" 4 resident CTAs"), "{report}");
    // gt200: one scheduler, so one SP group; one FP64 unit.
    assert_eq!(units_listed(&report), ["sp0", "sfu", "dpu", "lsu"], "{report}");

    let g = std::fs::read_to_string(waves.join("sm_demo_gt200.vcd.gtkw")).unwrap();
    assert!(
        g.starts_with("[dumpfile] \"waves/sm_demo_gt200.vcd\"\n[savefile] \"waves/sm_demo_gt200.vcd.gtkw\"\n"),
        "{}",
        &g[..200.min(g.len())]
    );
    let groups: Vec<&str> = g.lines().filter_map(|l| l.strip_prefix('-')).collect();
    assert_eq!(groups.first(), Some(&"scheduler 0: issue"), "{groups:?}");
    assert!(!groups.iter().any(|x| x.starts_with("scheduler 1")), "{groups:?}");
    for want in [
        "write-back 0",
        "units busy (not ready)",
        "gm_resp_rdata_i [0..31]",
        "u_sched0 (",
    ] {
        assert!(
            groups.iter().any(|x| x.starts_with(want)),
            "no group {want}: {groups:?}"
        );
    }
    assert!(
        g.contains("^1 waves/sm_demo_gt200.mnemonics.txt\n#{op} sm_gt200.iss0_valid_o (0)sm_gt200.iss0_tag_o[31:0]"),
        "the op trace: the valid bit, then the pc field, through the mnemonics filter"
    );
    // No 1024-bit bus as one trace.
    assert!(
        !g.lines().any(|l| !l.starts_with('#') && l.ends_with("[1023:0]")),
        "a whole 1024-bit bus"
    );
    let (names, ch) = vcd_changes(
        &waves.join("sm_demo_gt200.vcd"),
        &["sm_gt200.iss0_valid_o", "sm_gt200.iss0_tag_o"],
    );
    for s in save_file_signals(&g) {
        assert!(names.contains(&s), "{s} of the save file is not in the VCD");
    }

    // The filters: every opcode of the ISA table by the value of its field
    // in an encoded instruction (bits 63..57, docs/isa.md), as GTKWave
    // shows a 7-bit field in hex.
    let ops = std::fs::read_to_string(waves.join("sm_demo_gt200.ops.txt")).unwrap();
    let lines: Vec<&str> = ops.lines().collect();
    assert_eq!(lines.len(), Op::ALL.len());
    for op in Op::ALL {
        let m = op.info().mnemonic;
        assert!(
            lines.contains(&format!("{:02X} {m}", *op as u8).as_str()),
            "{m}:\n{ops}"
        );
    }
    for (src, m) in [("FFMA R1, R2, R3, R4", "FFMA"), ("LDG R1, [R2]", "LDG"), ("BAR", "BAR")] {
        let p = assemble(&format!(".kernel k\n.regs 8\n    {src}\n    EXIT\n"), "k.s").unwrap();
        let field = p.code[0].encode() >> 57;
        assert!(lines.contains(&format!("{field:02X} {m}").as_str()), "{src}:\n{ops}");
    }
    // examples/sm_demo.s: BAR is the twelfth instruction, STG the 22nd; a
    // cycle without an issue shows a no-break space.
    for (file, want) in [
        (
            "instructions",
            &[
                "10000 S2R R0, SR_TID.X",
                "1000B BAR",
                "10015 STG [R9], R11",
                "0000B \u{a0}",
            ][..],
        ),
        ("mnemonics", &["10000 S2R", "1000B BAR", "10015 STG", "10003 IMAD"]),
        (
            "fields",
            &[
                "4 scoreboard",
                "4B 11",
                "0B \u{a0}",
                "1000B 11",
                "5C5 R197",
                "6C5 R197:R198",
                "7C5 P1",
            ],
        ),
    ] {
        let text = std::fs::read_to_string(waves.join(format!("sm_demo_gt200.{file}.txt"))).unwrap();
        for w in want {
            assert!(text.lines().any(|l| l == *w), "no `{w}` in {file}.txt:\n{text}");
        }
    }

    // The view starts before the first issue and shows it.
    let ts: u64 = g
        .lines()
        .find_map(|l| l.strip_prefix("[timestart] "))
        .unwrap()
        .parse()
        .unwrap();
    let valid = &ch["sm_gt200.iss0_valid_o"];
    let first = valid.iter().find(|(_, v)| *v == 1).unwrap().0;
    assert!(
        ts < first && first - ts <= 4 * 16,
        "view from {ts}, first issue at {first}"
    );

    if !gtkwave_here() {
        return;
    }
    // The issue of BAR (pc 11): the tag's pc field is bits 31..16.
    let tag = &ch["sm_gt200.iss0_tag_o"];
    let value_at = |c: &[(u64, u64)], t: u64| c.iter().take_while(|(x, _)| *x <= t).last().map_or(0, |x| x.1);
    let bar = tag
        .iter()
        .find(|&&(t, v)| v >> 16 == 11 && value_at(valid, t) == 1)
        .expect("BAR issued")
        .0
        + 1;
    assert_eq!(
        value_at(tag, first) >> 16,
        0,
        "the first issue is the kernel's first instruction"
    );
    for (dir, save) in [
        (root.path(), "waves/sm_demo_gt200.vcd.gtkw"),
        (waves.as_path(), "sm_demo_gt200.vcd.gtkw"),
    ] {
        let (dump, traces) = gtkwave_view(dir, save, bar);
        assert!(dump.ends_with("waves/sm_demo_gt200.vcd"), "{dump}");
        let shown = |n: &str| traces.iter().find(|(x, _)| x == n).map(|x| x.1.as_str());
        assert_eq!(shown("op"), Some("BAR"), "{traces:?}");
        assert_eq!(shown("instruction"), Some("BAR"), "{traces:?}");
        assert_eq!(shown("pc"), Some("11"), "{traces:?}");
        assert_eq!(shown("stall"), Some("issued"), "{traces:?}");
        let (_, at_first) = gtkwave_view(dir, save, first + 1);
        let shown = |n: &str| at_first.iter().find(|(x, _)| x == n).map(|x| x.1.as_str());
        assert_eq!(shown("instruction"), Some("S2R R0, SR_TID.X"), "{at_first:?}");
        assert_eq!(shown("op"), Some("S2R"), "{at_first:?}");
        let w = (value_at(tag, first) & 63).to_string();
        assert_eq!(shown("warp"), Some(w.as_str()), "{at_first:?}");
    }
}

/// The report lists the units each preset has: tesla has one SP group and
/// no FP64 unit, fermi two SP groups and its FP64 cores.
#[test]
fn report_lists_the_units_of_the_preset() {
    let prog = assemble(".kernel one\n.regs 1\n    EXIT\n", "one.s").unwrap();
    let launch = Launch {
        grid: [1, 1],
        block: [32, 1, 1],
        params: vec![],
    };
    for (preset, want) in [
        ("tesla", &["sp0", "sfu", "lsu"][..]),
        ("fermi", &["sp0", "sp1", "sfu", "dpu", "lsu"]),
    ] {
        let cfg = SmConfig::load(preset).unwrap();
        let r = run_program(&cfg, &prog, &launch, vec![], &RtlOptions::default()).unwrap();
        let text = r.report.render();
        assert_eq!(units_listed(&text), want, "{preset}:\n{text}");
        assert_eq!(r.report.resident_ctas, 1, "{preset}:\n{text}");
    }
}

/// A block's generic save file (`smrtl sim`) opens with GTKWave from the
/// run's directory and from the save file's own.
#[test]
fn block_save_file_opens_from_either_directory() {
    let root = tempfile::tempdir().unwrap();
    smrtl(
        root.path(),
        &["sim", "mad-rf", "--cycles", "200", "--vcd", "waves/mad_rf.vcd"],
    );
    let g = std::fs::read_to_string(root.path().join("waves/mad_rf.vcd.gtkw")).unwrap();
    assert!(
        g.starts_with("[dumpfile] \"waves/mad_rf.vcd\"\n[savefile] \"waves/mad_rf.vcd.gtkw\"\n"),
        "{g}"
    );
    if !gtkwave_here() {
        return;
    }
    let waves = root.path().join("waves");
    for (dir, save) in [
        (root.path(), "waves/mad_rf.vcd.gtkw"),
        (waves.as_path(), "mad_rf.vcd.gtkw"),
    ] {
        let (dump, traces) = gtkwave_view(dir, save, 100);
        assert!(dump.ends_with("waves/mad_rf.vcd"), "{dump}");
        assert!(traces.len() > 10, "{traces:?}");
    }
}
