//! The command line on bad input: a clear message naming the problem, a
//! non-zero exit, never a panic.

use std::process::{Command, Output};

fn smrtl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_smrtl")).args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn assert_clean_failure(o: &Output, needles: &[&str]) {
    let e = stderr(o);
    assert!(!o.status.success(), "expected failure, got success: {e}");
    assert!(!e.contains("panicked"), "panic instead of an error:\n{e}");
    for n in needles {
        assert!(e.contains(n), "error message lacks `{n}`:\n{e}");
    }
}

#[test]
fn unknown_block_name() {
    let o = smrtl(&["export", "warp_sched9"]);
    assert_clean_failure(&o, &["invalid value 'warp_sched9'", "fifo", "mad-rf"]);
}

#[test]
fn unreadable_config() {
    let o = smrtl(&["export", "fifo", "--config", "/nonexistent/sm.toml"]);
    assert_clean_failure(&o, &["/nonexistent/sm.toml", "neither a preset"]);
}

/// Regression: an unknown name must give one error listing the presets, not
/// "No such file or directory" twice.
#[test]
fn unknown_config_name_lists_the_presets_once() {
    for args in [&["config", "gt300"][..], &["run", "x.s", "--config", "gt300"][..]] {
        let o = smrtl(args);
        assert_clean_failure(&o, &["gt300", "tesla, gt200, fermi, gpucc"]);
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(!e.contains("No such file"), "{e}");
    }
}

/// Regression: huge power-of-two bank counts must be errors, not a panic (divide by zero).
#[test]
fn huge_bank_count_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/gt200.toml")).unwrap();
    for (from, to, field) in [
        ("reg_banks = 16 ", "reg_banks = 134217728 ", "reg_banks"),
        ("smem_banks = 16\n", "smem_banks = 2147483648\n", "smem_banks"),
    ] {
        let cfg = dir.path().join("big.toml");
        std::fs::write(&cfg, text.replace(from, to)).unwrap();
        let o = smrtl(&["config", cfg.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert_clean_failure(&o, &[field, "must be 1..="]);
    }
}

/// Regression: a launch error still writes --output, as the help says the
/// image is written when the run fails.
#[test]
fn launch_error_still_writes_the_output_image() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("k.s");
    std::fs::write(&k, ".regs 4\n.param n\nEXIT\n").unwrap();
    let input = dir.path().join("in.bin");
    std::fs::write(&input, [1u8, 2, 3, 4]).unwrap();
    for (bad, needle) in [
        (&["--block", "1000000,16"][..], "16000000 threads"),
        (&["--grid", "0"][..], "grid x"),
        (&["--param", "zz"][..], "zz"),
    ] {
        let out = dir.path().join("out.bin");
        let _ = std::fs::remove_file(&out);
        let mut args = vec![
            "run",
            k.to_str().unwrap(),
            "--input",
            input.to_str().unwrap(),
            "--gmem-size",
            "8",
            "--output",
            out.to_str().unwrap(),
        ];
        if !bad.contains(&"--param") {
            args.extend(["--param", "1"]);
        }
        args.extend(bad);
        let o = smrtl(&args);
        assert_clean_failure(&o, &[needle]);
        assert_eq!(std::fs::read(&out).unwrap(), [1, 2, 3, 4, 0, 0, 0, 0], "{bad:?}");
    }
}

#[test]
fn invalid_config_bank_count_not_power_of_two() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("bad.toml");
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/gt200.toml")).unwrap();
    // 24 banks are valid since the register file allows multiples of 4.
    std::fs::write(&cfg, text.replace("reg_banks = 16", "reg_banks = 10")).unwrap();
    let o = smrtl(&[
        "export",
        "mad-rf",
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_clean_failure(&o, &["reg_banks", "10", "multiple of 4", "bad.toml"]);
    assert!(
        !dir.path().join("mad_rf_slice.v").exists(),
        "nothing written on a bad config"
    );
}

#[test]
fn malformed_config_toml() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("broken.toml");
    std::fs::write(&cfg, "name = \"x\"\nsp_lanes = [oops\n").unwrap();
    let o = smrtl(&["sim", "fifo", "--config", cfg.to_str().unwrap()]);
    assert_clean_failure(&o, &["broken.toml", "not valid TOML"]);
}

#[test]
fn unsupported_fifo_depth_from_config() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("deep.toml");
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/gpucc.toml")).unwrap();
    std::fs::write(&cfg, text.replace("fifo_depth = 16", "fifo_depth = 1024")).unwrap();
    let o = smrtl(&[
        "export",
        "fifo",
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_clean_failure(&o, &["fifo_depth = 1024", "not supported"]);
}

#[test]
fn unwritable_output_path() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a_file");
    std::fs::write(&file, "x").unwrap();
    // A folder below a regular file cannot be created (even as root).
    let out = file.join("rtl");
    let o = smrtl(&["export", "fifo", "--out", out.to_str().unwrap()]);
    assert_clean_failure(&o, &["cannot create output folder", "a_file/rtl"]);
    let vcd = file.join("w.vcd");
    let o = smrtl(&["sim", "mad-rf", "--cycles", "10", "--vcd", vcd.to_str().unwrap()]);
    assert_clean_failure(&o, &["cannot write VCD", "a_file/w.vcd"]);
}

#[test]
fn export_and_sim_work() {
    let dir = tempfile::tempdir().unwrap();
    let o = smrtl(&[
        "export",
        "fifo",
        "--config",
        "gpucc",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v = std::fs::read_to_string(dir.path().join("fifo_w32_d16.v")).unwrap();
    assert!(v.contains("module fifo_w32_d16 (") && v.contains("input  wire clk_core_i"));
    let vcd = dir.path().join("s.vcd");
    let o = smrtl(&["sim", "mad-rf", "--cycles", "1000", "--vcd", vcd.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("1000 hot, 500 core") && out.contains("conflict_o"),
        "{out}"
    );
    assert!(std::fs::read_to_string(&vcd).unwrap().contains("$var wire 32"));
}

#[test]
fn unsupported_smem_geometry_from_config() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("wide.toml");
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/fermi.toml")).unwrap();
    std::fs::write(&cfg, text.replace("smem_banks = 32", "smem_banks = 64")).unwrap();
    let o = smrtl(&[
        "export",
        "smem",
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_clean_failure(&o, &["64 shared-memory banks", "not supported"]);
}

#[test]
fn smem_patterns_report_seed_pass_counts() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("s.vcd");
    let o = smrtl(&[
        "smem-patterns",
        "--config",
        "gt200",
        "--random",
        "20",
        "--vcd",
        vcd.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    for (pattern, passes) in [
        ("load stride 1", 2),
        ("load stride 2", 4),
        ("load stride 16 (= banks)", 32),
        ("load broadcast", 2),
    ] {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(pattern))
            .unwrap_or_else(|| panic!("{out}"));
        let got: u32 = line.split_whitespace().rev().nth(1).unwrap().parse().unwrap();
        assert_eq!(got, passes, "{line}");
    }
    assert!(std::fs::metadata(&vcd).unwrap().len() > 1000);
}

#[test]
fn kernels_command_runs_checks_and_writes_cases() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    let o = smrtl(&[
        "kernels",
        "vadd",
        "histogram",
        "transpose_naive",
        "transpose_padded",
        "--config",
        "fermi",
        "--cases",
        cases.to_str().unwrap(),
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(out.contains("preset fermi"), "{out}");
    // vadd has 3 shapes, histogram 3, each transpose 2 (one with partial
    // tiles): every one checked against its host reference, none reading
    // shared memory its CTA never wrote.
    assert!(out.contains("10 passed, 0 failed"), "{out}");
    assert_eq!(out.matches(" PASS").count(), 10, "{out}");
    assert!(!out.contains("warning"), "{out}");
    // The written case reproduces through `smrtl run`.
    let cmd = std::fs::read_to_string(cases.join("vadd-fermi-0.cmd")).unwrap();
    let args: Vec<&str> = cmd.trim().split(' ').skip(2).collect();
    let kernel = concat!(env!("CARGO_MANIFEST_DIR"), "/testbenches/kernels/vadd.s");
    let mut run = vec!["run", kernel];
    run.extend(&args[1..]);
    let r = smrtl(&run);
    assert!(r.status.success(), "{}", stderr(&r));
    let got = std::fs::read(cases.join("vadd-fermi-0.out.bin")).unwrap();
    let want = std::fs::read(cases.join("vadd-fermi-0.expected.bin")).unwrap();
    assert!(got == want, "smrtl run output differs from the reference image");
}

/// A case whose CTA does not fit the preset's SM is skipped with the
/// reason, not failed: the shared-tile 5x5 needs more registers per CTA
/// than tesla's 8,192.
#[test]
fn kernels_command_skips_ctas_that_do_not_fit() {
    let o = smrtl(&["kernels", "conv5x5_tile_fmad", "--config", "tesla"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(out.contains("0 passed, 0 failed, 2 skipped"), "{out}");
    assert!(
        out.contains("exceed the register file (registers = 8192) of the tesla preset"),
        "{out}"
    );
    // gt200's register file holds it: both shapes pass.
    let o = smrtl(&["kernels", "conv5x5_tile_fmad", "--config", "gt200"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(out.contains("2 passed, 0 failed"), "{out}");
}

#[test]
fn kernels_command_unknown_kernel() {
    let o = smrtl(&["kernels", "vad"]);
    assert_clean_failure(&o, &["unknown kernel 'vad'", "vadd", "conv5x5"]);
}

/// Directed front-end waves: the barrier script's events land where the
/// block's documented latency puts them (pulse two cycles after the last
/// arrival or exit edge), the simt replay passes, and both `.gtkw` files
/// group the registers per warp and per CTA slot.
#[test]
fn fe_waves_write_grouped_waves_of_passing_runs() {
    let dir = tempfile::tempdir().unwrap();
    let vcd = dir.path().join("bar.vcd");
    let o = smrtl(&["fe-waves", "barrier", "--vcd", vcd.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // Last arrival of CTA 0 at cycle 16, warp 5 exits at 22, CTA 2's last
    // arrival at 28 (script in testbenches/fe_waves.rs).
    for l in [
        "cycle  18: rel_valid_o, CTA 0 released",
        "cycle  24: rel_valid_o, CTA 1 released",
        "cycle  30: err_o code 6 (deadlock), CTA 2, waiting warps 0x1c0, warp 7 at pc 40",
    ] {
        assert!(out.contains(l), "missing `{l}` in\n{out}");
    }
    let g = std::fs::read_to_string(dir.path().join("bar.vcd.gtkw")).unwrap();
    assert!(
        g.contains("-[7] cta member wait err_wait") && g.contains("-[2] nlive nwait partial"),
        "{g}"
    );
    assert!(g.contains("barrier_w32_c8.member7_q") && g.contains("-arr (in)"), "{g}");
    let vcd = dir.path().join("simt.vcd");
    let o = smrtl(&["fe-waves", "simt", "--config", "fermi", "--vcd", vcd.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("branch trace equal to the golden model's"), "{out}");
    let g = std::fs::read_to_string(dir.path().join("simt.vcd.gtkw")).unwrap();
    assert!(
        g.contains("-[47] pc act live depth run") && g.contains("simt_w48_s2_d40.depth1_q"),
        "{g}"
    );
    assert!(std::fs::read_to_string(&vcd).unwrap().contains("depth1_q"));
}

/// `smrtl run --rtl --vcd x.fst`: the VCD is converted with `vcd2fst`, the
/// `.gtkw` opens the FST, and no VCD is left behind.
#[test]
fn rtl_run_writes_fst_when_asked() {
    if std::process::Command::new("vcd2fst").arg("--help").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "vcd2fst missing in CI (apt-get install gtkwave)"
        );
        eprintln!("skipped: no vcd2fst");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let fst = dir.path().join("demo.fst");
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sm_demo.s");
    let o = smrtl(&[
        "run",
        demo,
        "--rtl",
        "--config",
        "gt200",
        "--grid",
        "1",
        "--block",
        "64",
        "--param",
        "out=0",
        "--gmem-size",
        "256",
        "--vcd",
        fst.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("demo.fst"), "{out}");
    assert!(std::fs::metadata(&fst).unwrap().len() > 0);
    assert!(!dir.path().join("demo.fst.vcd").exists(), "the VCD was left behind");
    let g = std::fs::read_to_string(dir.path().join("demo.fst.gtkw")).unwrap();
    assert!(
        g.contains(&format!(
            "[dumpfile] \"{}\"\n[savefile] \"{}.gtkw\"",
            fst.display(),
            fst.display()
        )) && g.contains("-u_sched0 ("),
        "{g}"
    );
}

/// A 64-bin histogram that never zeroes its shared bins: every `ATOMS.ADD`
/// and every `LDS` of a bin reads a word its CTA never wrote.
const HIST_NOZERO: &str = ".kernel histogram_nozero
.regs 8
.shared 256
.param keys
.param hist
.param n
    S2R R0, SR_TID.X
    S2R R1, SR_CTAID.X
    S2R R2, SR_NTID.X
    IMAD R3, R1, R2, R0
    LDC R4, c[n]
    ISETP.LT.U32 P0, R3, R4
    SHL R5, R3, 2
    LDC R6, c[keys]
    IADD R5, R5, R6
    @P0 LDG R5, [R5]
    AND R5, R5, 63
    SHL R5, R5, 2
    MOV R6, 1
    @P0 ATOMS.ADD RZ, [R5], R6
    BAR
    ISETP.LT P1, R0, 64
    SHL R5, R0, 2
    @P1 LDS R6, [R5]
    LDC R7, c[hist]
    IADD R5, R5, R7
    @P1 ATOMG.ADD RZ, [R5], R6
    EXIT
";

/// Reads of shared words the CTA never wrote: a warning with the counts and
/// the first places on the golden model and on the RTL SM (the run
/// succeeds), an error naming the place with `--strict-init` (the output
/// image and the report still written).
#[test]
fn uninitialized_shared_reads_warn_and_strict_init_fails() {
    let dir = tempfile::tempdir().unwrap();
    let k = dir.path().join("hist.s");
    std::fs::write(&k, HIST_NOZERO).unwrap();
    // 256 keys 5i + 3 at byte 0, the global histogram at 1024.
    let mut img: Vec<u8> = (0..256u32).flat_map(|i| (5 * i + 3).to_le_bytes()).collect();
    img.resize(1280, 0);
    let input = dir.path().join("in.bin");
    std::fs::write(&input, &img).unwrap();
    let out = dir.path().join("out.bin");
    let rep = dir.path().join("rep.txt");
    let base = [
        "run",
        k.to_str().unwrap(),
        "--grid",
        "4",
        "--block",
        "64",
        "--param",
        "keys=0",
        "--param",
        "hist=1024",
        "--param",
        "n=256",
        "--input",
        input.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ];
    // 256 ATOMS lanes (8 warp instructions) and 256 LDS lanes (8).
    let counts = "warning: 512 lanes in 16 warp instructions read shared-memory words their CTA never wrote";
    let first = "cta 0 (0,0), warp 0, lane 0, pc 13, line 20: ATOMS reads shared memory at 0xc, a word this CTA \
                 never wrote (undefined at CTA start; 32 lanes of the instruction read such words)";
    for (config, rtl) in [
        ("gt200", &[][..]),
        ("gt200", &["--rtl", "--report", rep.to_str().unwrap()][..]),
        ("fermi", &["--rtl"][..]),
    ] {
        let mut args = base.to_vec();
        args.extend(["--config", config]);
        args.extend(rtl);
        let _ = std::fs::remove_file(&out);
        let o = smrtl(&args);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{config} {rtl:?}: {text}{}", stderr(&o));
        assert!(
            text.contains(counts) && text.contains(first),
            "{config} {rtl:?}: {text}"
        );
        assert!(
            text.contains("... and 11 more warp instructions"),
            "{config} {rtl:?}: {text}"
        );
        assert_eq!(std::fs::read(&out).unwrap().len(), 1280);
        args.push("--strict-init");
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(&rep);
        let o = smrtl(&args);
        assert_clean_failure(&o, &[first, "--strict-init"][..if rtl.is_empty() { 1 } else { 2 }]);
        assert_eq!(
            std::fs::read(&out).unwrap().len(),
            1280,
            "{config} {rtl:?}: no output image"
        );
        if rtl.contains(&"--report") {
            assert!(std::fs::read_to_string(&rep).unwrap().contains("cycles:"), "no report");
        }
    }
    let mut args = base.to_vec();
    args.extend(["--rtl", "--no-check", "--strict-init"]);
    assert_clean_failure(&smrtl(&args), &["--strict-init needs the golden model's check"]);
}

/// `smrtl sp-waves` writes checked waves of the SP array and, with `--dpu`,
/// of the FP64 unit (`units::dpu::waves`), each with its save file; a
/// preset without FP64 is an error that says so.
#[test]
fn sp_waves_of_the_sp_array_and_the_fp64_unit() {
    let dir = tempfile::tempdir().unwrap();
    for (dpu, top) in [(false, "sp_array_"), (true, "dpu_")] {
        let vcd = dir.path().join(if dpu { "dpu.vcd" } else { "sp.vcd" });
        let mut args = vec![
            "sp-waves",
            "--config",
            "fermi",
            "--cycles",
            "150",
            "--vcd",
            vcd.to_str().unwrap(),
        ];
        if dpu {
            args.push("--dpu");
        }
        let o = smrtl(&args);
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{out}{}", stderr(&o));
        assert!(
            out.starts_with(top) && out.contains("warp instructions checked"),
            "{out}"
        );
        let text = std::fs::read_to_string(&vcd).unwrap();
        assert!(text.contains(&format!("$scope module {top}")), "{dpu}: VCD scope");
        assert!(dir
            .path()
            .join(format!("{}.gtkw", vcd.file_name().unwrap().to_str().unwrap()))
            .exists());
    }
    let vcd = dir.path().join("t.vcd");
    let o = smrtl(&["sp-waves", "--config", "tesla", "--dpu", "--vcd", vcd.to_str().unwrap()]);
    assert_clean_failure(&o, &["no FP64"]);
}

#[test]
fn gpucc_kernels_run_on_the_rtl_network() {
    // `smrtl kernels --config gpucc` runs the GPU-CC kernels too.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_gpucc_rtl");
    let d = dir.display().to_string();
    let o = smrtl(&["kernels", "conv3x3_gpucc", "--config", "gpucc", "--cases", &d]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(out.contains("4 passed, 0 failed, 0 skipped"), "{out}");
    // Its 37 x 21 case with the GPU-CC run on the RTL network: the image
    // equals the host reference and the run reports its checks.
    let cmd = std::fs::read_to_string(dir.join("conv3x3_gpucc-gpucc-1.cmd")).unwrap();
    let mut args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
    let vcd = dir.join("c3.vcd").display().to_string();
    args.extend(["--gpucc-rtl", "--gmem-latency", "20", "--vcd", &vcd]);
    let o = smrtl(&args);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(
        out.contains("GPU-CC run 0 on the RTL network:") && out.contains(", 0 mismatches"),
        "{out}"
    );
    let got = std::fs::read(dir.join("conv3x3_gpucc-gpucc-1.out.bin")).unwrap();
    let want = std::fs::read(dir.join("conv3x3_gpucc-gpucc-1.expected.bin")).unwrap();
    assert!(got == want, "image differs from the host reference");
    assert!(dir.join("c3.vcd").exists() && dir.join("c3.vcd.gtkw").exists());
    // A preset without the network refuses --gpucc-rtl.
    let o = smrtl(&[
        "run",
        "testbenches/kernels/gpucc/conv3x3.s",
        "--config",
        "fermi",
        "--gpucc-rtl",
    ]);
    assert_clean_failure(&o, &["--gpucc-rtl", "no GPU-CC network"]);
}

/// `smrtl fpga` needs a module or a config, takes them apart from `--rtl`
/// as documented, and names a config it cannot load, before any tool runs.
#[test]
fn fpga_needs_a_module_or_a_config() {
    let o = smrtl(&["fpga"]);
    assert_clean_failure(&o, &["--module"]);
    let o = smrtl(&["fpga", "--config", "gt300"]);
    assert_clean_failure(&o, &["gt300", "tesla, gt200, fermi, gpucc"]);
    let o = smrtl(&["fpga", "--config", "tesla", "--rtl", "rtl"]);
    assert_clean_failure(&o, &["--rtl", "cannot be used with"]);
}

/// The smallest Tesla-shaped config (configs/tesla_min.toml, the FPGA
/// flow's lower bound): a case written by `smrtl kernels --cases` for a
/// config file reruns as written, on the RTL SM lock-step against the
/// golden model, and gives the host reference's image.
#[test]
fn tesla_min_runs_a_kernel_case_on_the_rtl_sm() {
    let root = env!("CARGO_MANIFEST_DIR");
    let cfg = format!("{root}/configs/tesla_min.toml");
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases");
    let o = smrtl(&["kernels", "vadd", "--config", &cfg, "--cases", cases.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    assert!(out.contains("preset tesla_min") && out.contains("0 failed"), "{out}");
    let cmd = std::fs::read_to_string(cases.join("vadd-tesla_min-2.cmd")).unwrap();
    assert!(cmd.contains(&format!("--config {cfg} ")), "{cmd}");
    let args: Vec<&str> = cmd.trim().split(' ').skip(2).collect();
    let kernel = format!("{root}/testbenches/kernels/vadd.s");
    let report = dir.path().join("report.txt");
    let mut run = vec!["run", kernel.as_str()];
    run.extend(&args[1..]);
    run.extend(["--rtl", "--report", report.to_str().unwrap()]);
    let r = smrtl(&run);
    assert!(r.status.success(), "{}", stderr(&r));
    let got = std::fs::read(cases.join("vadd-tesla_min-2.out.bin")).unwrap();
    let want = std::fs::read(cases.join("vadd-tesla_min-2.expected.bin")).unwrap();
    assert!(got == want, "the RTL SM's image differs from the host reference");
    let rep = std::fs::read_to_string(&report).unwrap();
    assert!(rep.contains("on the RTL SM `tesla_min`"), "{rep}");
}
