//! `smrtl export-proto`: a small vadd launch on gt200 exported as the
//! prototyping top, run with the exported `run_icarus.sh` (no Rust in the
//! loop), and its `gmem_out.bin` compared byte for byte with the image
//! `smrtl run --output` writes for the same launch and with the kernel's
//! host reference; the top is linted with `verilator -Wall`; bad input
//! gives an error, not a panic. Skipped (with a message) when iverilog is
//! absent; the lint part when Verilator is.
//!
//! Run: `cargo test --release --test proto -- --nocapture` (about a minute:
//! Icarus simulates the whole SM at tens of core cycles per second).

use smrtl::config::SmConfig;
use smrtl::testbenches::kernels::{self, Fp32};
use std::path::Path;
use std::process::{Command, Output};

fn smrtl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_smrtl")).args(args).output().unwrap()
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn vadd_through_icarus_matches_the_rust_model() {
    if !have("iverilog") || !have("vvp") || !have("python3") {
        eprintln!("SKIPPED: iverilog, vvp or python3 not installed (apt-get install iverilog python3)");
        return;
    }
    let cfg = SmConfig::preset("gt200").unwrap();
    // 77 elements in CTAs of 32: a partial last warp and CTA.
    let case = kernels::vadd(Fp32::of(&cfg), 77, 32, 41);
    let tmp = tempfile::tempdir().unwrap();
    let input = tmp.path().join("in.bin");
    std::fs::write(&input, &case.gmem).unwrap();
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("testbenches/kernels/vadd.s");
    let golden = tmp.path().join("golden.bin");
    let mut args = case.cli_args(
        kernel.to_str().unwrap(),
        "gt200",
        input.to_str().unwrap(),
        golden.to_str().unwrap(),
    );
    // The Rust model's image (`smrtl run --output`).
    let mut run_args = vec!["run".to_string()];
    run_args.extend(args.iter().cloned());
    let o = smrtl(&run_args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "smrtl run: {}", text(&o));
    // The same launch arguments minus --output, into export-proto.
    args.truncate(args.len() - 2);
    let dir = tmp.path().join("proto");
    let mut exp = vec!["export-proto".to_string()];
    exp.extend(args);
    exp.extend(["--out".into(), dir.to_str().unwrap().into()]);
    let o = smrtl(&exp.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "export-proto: {}", text(&o));
    for f in [
        "rtl/sm_gt200.v",
        "rtl/sm_gt200_proto.v",
        "imem.hex",
        "gmem.hex",
        "launch.hex",
        "tb_proto.v",
        "run_verilator.sh",
    ] {
        assert!(dir.join(f).is_file(), "export-proto did not write {f}");
    }

    if have("verilator") {
        let o = Command::new("verilator")
            .args(["--lint-only", "-Wall", "--top-module", "sm_gt200_proto"])
            .args(
                std::fs::read_dir(dir.join("rtl"))
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .filter(|p| p.extension().is_some_and(|x| x == "v")),
            )
            .output()
            .unwrap();
        assert!(
            o.status.success() && o.stderr.is_empty(),
            "verilator -Wall on the prototyping top:\n{}",
            text(&o)
        );
    } else {
        eprintln!("verilator not installed: lint of the prototyping top skipped");
    }

    let o = Command::new(dir.join("run_icarus.sh")).output().unwrap();
    let log = text(&o);
    assert!(o.status.success(), "run_icarus.sh failed:\n{log}");
    assert!(log.contains("PROTO DONE"), "no PROTO DONE line:\n{log}");
    eprintln!("{log}");
    let out = std::fs::read(dir.join("gmem_out.bin")).unwrap();
    let rust = std::fs::read(&golden).unwrap();
    assert_eq!(out.len(), rust.len(), "image sizes differ");
    assert!(out == rust, "Icarus image differs from the Rust model's");
    if let Err(m) = case.check(&out) {
        panic!("Icarus image against the host reference: {m}");
    }
    assert!(out == case.expected);
    // The input image had no result: the comparison is not vacuous.
    assert!(case.gmem != case.expected);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let kernel = Path::new(env!("CARGO_MANIFEST_DIR")).join("testbenches/kernels/vadd.s");
    let k = kernel.to_str().unwrap();
    let out = tmp.path().join("o");
    let o = out.to_str().unwrap();
    let bad = tmp.path().join("bad.s");
    std::fs::write(&bad, ".kernel k\n.regs 4\n    FROB R1, R2\n").unwrap();
    let file = tmp.path().join("file");
    std::fs::write(&file, "").unwrap();
    let sub = file.join("sub");
    // A valid config whose SM shape has no SM top (24 warps).
    let odd = tmp.path().join("odd.toml");
    std::fs::write(
        &odd,
        "base = \"gt200\"\nname = \"odd\"\nmax_warps = 24\nmax_threads = 768\n",
    )
    .unwrap();
    let bad_s = bad.to_str().unwrap();
    // vadd with its four parameters on `cfg`, then the option under test.
    let four = |cfg: &str, extra: &[&'static str], out: &str| -> Vec<String> {
        let mut v: Vec<String> = [k, "--config", cfg].iter().map(|x| x.to_string()).collect();
        for p in ["1", "2", "3", "4"] {
            v.extend(["--param".to_string(), p.to_string()]);
        }
        v.extend(extra.iter().map(|x| x.to_string()));
        v.extend(["--out".to_string(), out.to_string()]);
        v
    };
    let owned = |v: &[&str]| -> Vec<String> { v.iter().map(|x| x.to_string()).collect() };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (owned(&[k, "--config", "nosuch", "--out", o]), "nosuch"),
        (owned(&[bad_s, "--config", "gt200", "--out", o]), "bad.s"),
        (four("gt200", &[], sub.to_str().unwrap()), "cannot create output folder"),
        (owned(&[k, "--config", "gt200", "--param", "1", "--out", o]), "param"),
        (four("gt200", &["--gmem-latency", "1"], o), "latency"),
        (four(odd.to_str().unwrap(), &[], o), "no exported SM"),
    ];
    for (args, want) in cases {
        let mut a = vec!["export-proto"];
        a.extend(args.iter().map(String::as_str));
        let r = smrtl(&a);
        let t = text(&r);
        assert_eq!(r.status.code(), Some(1), "{a:?}: {t}");
        assert!(t.contains("error:") && t.contains(want), "{a:?}: want `{want}` in\n{t}");
        assert!(!t.contains("panicked"), "{a:?}: {t}");
    }
}
