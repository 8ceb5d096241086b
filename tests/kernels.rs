//! The benchmark kernels (`testbenches/kernels/*.s`) on the golden model,
//! each against its bit-exact host reference, for at least two launch
//! shapes (partial CTAs and warps where the kernel allows them), on the
//! gt200 preset and, for the FP32 add flavour and the FFMA kernels, on
//! fermi. A kernel whose multiply-add the preset lacks (FFMA on gt200,
//! FMAD on fermi) must stop with that error instead. No kernel reads a
//! shared-memory word its CTA has not written (undefined at CTA start).
//!
//! Run: `cargo test --test kernels` (`-- --nocapture` prints the
//! instruction counts and run times).

use std::time::Instant;

use proptest::prelude::*;

use smrtl::config::SmConfig;
use smrtl::golden::asm::{assemble, disassemble};
use smrtl::golden::model::{program_lacks, run_kernel, Reason, Stats};
use smrtl::testbenches::kernels::{self, all_kernels, by_name, Case, ConvForm, Fp32};

/// Assemble, run and compare one case; returns the model's statistics.
fn run_case(cfg: &SmConfig, case: &Case) -> Stats {
    let prog = assemble(case.source, case.file).unwrap_or_else(|e| panic!("{}: {e}", case.file));
    let t = Instant::now();
    let (out, stats) =
        run_kernel(cfg, &prog, &case.launch(), case.gmem.clone()).unwrap_or_else(|e| panic!("{}: {e}", case.label));
    if let Err(m) = case.check(&out) {
        panic!("{m}");
    }
    // The project's kernels write every shared word before reading it.
    assert_eq!(
        stats.uninit.lanes,
        0,
        "{} [{}]: {}",
        case.label,
        cfg.name,
        stats.uninit.render("golden model")
    );
    eprintln!(
        "{} [{}]: ok, {} warp instrs, {} thread instrs, {:.2} s",
        case.label,
        cfg.name,
        stats.warp_instrs,
        stats.thread_instrs,
        t.elapsed().as_secs_f64()
    );
    stats
}

/// Every test case of one kernel on one preset.
fn run_kernel_cases(name: &str, preset: &str) {
    let cfg = SmConfig::load(preset).unwrap();
    let k = by_name(name).unwrap();
    let cases = (k.cases)(Fp32::of(&cfg));
    assert!(cases.len() >= 2);
    let prog = assemble(k.source, k.file).unwrap();
    let lacks = program_lacks(&prog, &cfg).map(|(op, _)| op);
    for case in &cases {
        match lacks {
            None => {
                run_case(&cfg, case);
            }
            // The other multiply-add flavour: error 1, as on the RTL SM.
            Some(lacked) => match run_kernel(&cfg, &prog, &case.launch(), case.gmem.clone()) {
                Err(e) => assert!(
                    matches!(e.reason, Reason::NotOnPreset { op, .. } if op == lacked.info().mnemonic),
                    "{}: {e}",
                    case.label
                ),
                Ok(_) => panic!("{} ran on {preset}, which lacks {lacked:?}", case.label),
            },
        }
    }
}

#[test]
fn vadd_gt200() {
    run_kernel_cases("vadd", "gt200");
}

#[test]
fn vadd_fermi() {
    run_kernel_cases("vadd", "fermi");
}

#[test]
fn saxpy_gt200_and_fermi() {
    run_kernel_cases("saxpy", "gt200");
    run_kernel_cases("saxpy", "fermi");
}

#[test]
fn reduce_gt200() {
    run_kernel_cases("reduce", "gt200");
}

#[test]
fn reduce_fermi() {
    run_kernel_cases("reduce", "fermi");
}

#[test]
fn matmul_fmad_gt200() {
    run_kernel_cases("matmul_fmad", "gt200");
}

#[test]
fn matmul_ffma_fermi_and_gt200() {
    run_kernel_cases("matmul_ffma", "fermi");
    run_kernel_cases("matmul_ffma", "gt200");
}

#[test]
fn histogram_gt200() {
    run_kernel_cases("histogram", "gt200");
}

#[test]
fn transpose_naive_gt200() {
    run_kernel_cases("transpose_naive", "gt200");
}

#[test]
fn transpose_padded_gt200() {
    run_kernel_cases("transpose_padded", "gt200");
}

#[test]
fn divergence_gt200() {
    run_kernel_cases("divergence", "gt200");
}

#[test]
fn conv3x3_gt200() {
    run_kernel_cases("conv3x3", "gt200");
}

#[test]
fn conv3x3_fermi() {
    run_kernel_cases("conv3x3", "fermi");
}

#[test]
fn conv5x5_fermi() {
    run_kernel_cases("conv5x5", "fermi");
}

#[test]
fn conv5x5_gt200() {
    run_kernel_cases("conv5x5", "gt200");
}

#[test]
fn sfu_gt200() {
    run_kernel_cases("sfu", "gt200");
}

// The other multiply-add flavour of saxpy, sfu and the convolutions, so that
// each preset class has every kernel in the flavour its lanes implement.
#[test]
fn saxpy_ffma_fermi() {
    run_kernel_cases("saxpy_ffma", "fermi");
}

#[test]
fn fir8_fermi() {
    run_kernel_cases("fir8", "fermi");
}

#[test]
fn fir16_fermi() {
    run_kernel_cases("fir16", "fermi");
}

#[test]
fn sfu_ffma_fermi() {
    run_kernel_cases("sfu_ffma", "fermi");
}

#[test]
fn conv3x3_ffma_fermi() {
    run_kernel_cases("conv3x3_ffma", "fermi");
}

#[test]
fn conv5x5_fmad_gt200() {
    run_kernel_cases("conv5x5_fmad", "gt200");
}

// The register-strip and shared-tile convolutions, each in the flavour of
// its preset class (FMAD on gt200, FFMA on fermi) and, for the golden model,
// FFMA also on gt200.

#[test]
fn conv3x3_strip_gt200() {
    run_kernel_cases("conv3x3_strip", "gt200");
}

#[test]
fn conv3x3_strip_ffma_fermi_and_gt200() {
    run_kernel_cases("conv3x3_strip_ffma", "fermi");
    run_kernel_cases("conv3x3_strip_ffma", "gt200");
}

#[test]
fn conv5x5_strip_fmad_gt200() {
    run_kernel_cases("conv5x5_strip_fmad", "gt200");
}

#[test]
fn conv5x5_strip_fermi_and_gt200() {
    run_kernel_cases("conv5x5_strip", "fermi");
    run_kernel_cases("conv5x5_strip", "gt200");
}

#[test]
fn conv3x3_tile_gt200() {
    run_kernel_cases("conv3x3_tile", "gt200");
}

#[test]
fn conv3x3_tile_ffma_fermi_and_gt200() {
    run_kernel_cases("conv3x3_tile_ffma", "fermi");
    run_kernel_cases("conv3x3_tile_ffma", "gt200");
}

#[test]
fn conv5x5_tile_fmad_gt200() {
    run_kernel_cases("conv5x5_tile_fmad", "gt200");
}

#[test]
fn conv5x5_tile_fermi_and_gt200() {
    run_kernel_cases("conv5x5_tile", "fermi");
    run_kernel_cases("conv5x5_tile", "gt200");
}

#[test]
fn copy_gt200() {
    run_kernel_cases("copy", "gt200");
}

#[test]
fn every_kernel_has_a_test() {
    let src = include_str!("kernels.rs");
    for k in all_kernels() {
        assert!(
            src.contains(&format!("run_kernel_cases(\"{}\"", k.name)),
            "{} untested",
            k.name
        );
    }
}

/// Every kernel survives the disassembler: the canonical text assembles
/// back to the same code and directives.
#[test]
fn kernels_round_trip_through_the_disassembler() {
    for k in all_kernels() {
        let p = assemble(k.source, k.file).unwrap();
        assert_eq!(p.name, k.name);
        let text = disassemble(&p);
        let q = assemble(&text, k.file).unwrap_or_else(|e| panic!("{}: {e}\n{text}", k.file));
        assert_eq!(
            (&q.name, q.regs, q.shared_bytes, &q.params, &q.code),
            (&p.name, p.regs, p.shared_bytes, &p.params, &p.code),
            "{}",
            k.file
        );
    }
}

/// The comparison can fail: the IEEE-add reference does not match a run
/// on the Tesla-FADD preset (the inputs hold subnormals), and the first
/// differing element is reported.
#[test]
fn wrong_fadd_flavour_is_caught() {
    let cfg = SmConfig::load("gt200").unwrap();
    let case = kernels::vadd(Fp32::Ieee, 1000, 256, 1);
    let prog = assemble(case.source, case.file).unwrap();
    let (out, _) = run_kernel(&cfg, &prog, &case.launch(), case.gmem.clone()).unwrap();
    let m = case.check(&out).unwrap_err();
    assert_eq!(m.region, "c");
    assert!(m.to_string().contains("expected"), "{m}");
}

/// The two transposes do the same work; the padded one differs only in
/// the tile pitch (its bank behaviour shows in the RTL, not here).
#[test]
fn transposes_agree_on_instruction_counts() {
    let cfg = SmConfig::load("gt200").unwrap();
    let a = run_case(&cfg, &kernels::transpose(false, 64, 48, 5));
    let b = run_case(&cfg, &kernels::transpose(true, 64, 48, 5));
    assert_eq!(a.warp_instrs, b.warp_instrs);
}

/// The tests can fail: small edits to a kernel's source (wrong multiply-add,
/// wrong atomic, missing clamp, tile read row-wise) make its case
/// mismatch the reference or stop with an error.
#[test]
fn mutated_kernels_are_caught() {
    let cfg = SmConfig::load("gt200").unwrap();
    let mutations: [(Case, &str, &str); 4] = [
        (
            kernels::matmul(false, 32, 32, 32, 9),
            "FMAD R10, R18, R19, R10",
            "FFMA R10, R18, R19, R10",
        ),
        (kernels::histogram(1000, 2, 96, 3, 9), "ATOMS.ADD", "ATOMS.MAX"),
        (
            kernels::conv(ConvForm::Naive, 3, false, 37, 21, 9),
            "IMAX R0, R0, 0",
            "IMAX R0, R0, 1",
        ),
        (
            kernels::transpose(true, 64, 48, 9),
            "IMAD R12, R0, R11, R1",
            "IMAD R12, R1, R11, R0",
        ),
    ];
    for (case, from, to) in mutations {
        assert!(case.source.contains(from), "{}: `{from}` not in source", case.file);
        let src = case.source.replace(from, to);
        let prog = assemble(&src, case.file).unwrap();
        let caught = match run_kernel(&cfg, &prog, &case.launch(), case.gmem.clone()) {
            Err(_) => true,
            Ok((out, _)) => case.check(&out).is_err(),
        };
        assert!(caught, "{}: `{from}` -> `{to}` not detected", case.label);
    }
}

/// The first case of every kernel through the command line (`smrtl run`
/// with the case's `cli_args`): the written image matches the reference.
#[test]
fn smrtl_run_cli_matches_reference() {
    let dir = tempfile::tempdir().unwrap();
    let gt200 = SmConfig::load("gt200").unwrap();
    for k in all_kernels() {
        // gt200, or fermi for the FFMA kernels (gt200 lacks FFMA).
        let (preset, fp) = if lacks(&gt200, k.source, k.file) {
            ("fermi", Fp32::Ieee)
        } else {
            ("gt200", Fp32::Tesla)
        };
        // The smallest case keeps the process runs short.
        let case = (k.cases)(fp).into_iter().min_by_key(|c| c.gmem.len()).unwrap();
        let kpath = dir.path().join(k.file);
        let input = dir.path().join(format!("{}.gmem.bin", k.name));
        let output = dir.path().join(format!("{}.out.bin", k.name));
        std::fs::write(&kpath, k.source).unwrap();
        std::fs::write(&input, &case.gmem).unwrap();
        let args = case.cli_args(
            kpath.to_str().unwrap(),
            preset,
            input.to_str().unwrap(),
            output.to_str().unwrap(),
        );
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_smrtl"))
            .arg("run")
            .args(&args)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "smrtl run {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&o.stderr)
        );
        let out = std::fs::read(&output).unwrap();
        if let Err(m) = case.check(&out) {
            panic!("smrtl run {}: {m}", args.join(" "));
        }
    }
}

/// Writes every test case's input image, reference image and `smrtl run`
/// command line into `$SMRTL_KERNEL_DIR` (default `target/kernel-cases`),
/// for running the kernels by hand:
/// `cargo test --test kernels write_case_files -- --ignored`.
#[test]
#[ignore]
fn write_case_files() {
    let dir = std::env::var("SMRTL_KERNEL_DIR").unwrap_or_else(|_| "target/kernel-cases".into());
    let dir = std::path::Path::new(&dir);
    std::fs::create_dir_all(dir).unwrap();
    for (preset, fp) in [("gt200", Fp32::Tesla), ("fermi", Fp32::Ieee)] {
        let cfg = SmConfig::load(preset).unwrap();
        for k in all_kernels() {
            if lacks(&cfg, k.source, k.file) {
                continue;
            }
            for (i, case) in (k.cases)(fp).iter().enumerate() {
                let stem = format!("{}-{preset}-{i}", k.name);
                let input = dir.join(format!("{stem}.gmem.bin"));
                std::fs::write(&input, &case.gmem).unwrap();
                std::fs::write(dir.join(format!("{stem}.expected.bin")), &case.expected).unwrap();
                let args = case.cli_args(
                    &format!("testbenches/kernels/{}", k.file),
                    preset,
                    input.to_str().unwrap(),
                    dir.join(format!("{stem}.out.bin")).to_str().unwrap(),
                );
                let cmd = format!("# {}\nsmrtl run {}\n", case.label, args.join(" "));
                std::fs::write(dir.join(format!("{stem}.cmd")), cmd).unwrap();
            }
        }
    }
    eprintln!("case files in {}", dir.display());
}

/// Whether the preset lacks an instruction of the kernel source.
fn lacks(cfg: &SmConfig, source: &str, file: &str) -> bool {
    program_lacks(&assemble(source, file).unwrap(), cfg).is_some()
}

/// Run one case on gt200 (fermi for FFMA kernels, whose host references
/// do not depend on the FADD flavour) and report a mismatch, a model
/// error or a read of a never-written shared word as text.
fn outcome(case: &Case) -> Result<(), String> {
    let mut cfg = SmConfig::load("gt200").unwrap();
    if lacks(&cfg, case.source, case.file) {
        cfg = SmConfig::load("fermi").unwrap();
    }
    let prog = assemble(case.source, case.file).map_err(|e| e.to_string())?;
    let (out, stats) =
        run_kernel(&cfg, &prog, &case.launch(), case.gmem.clone()).map_err(|e| format!("{}: {e}", case.label))?;
    if stats.uninit.lanes > 0 {
        return Err(format!("{}: {}", case.label, stats.uninit.render("golden model")));
    }
    case.check(&out).map_err(|m| m.to_string())
}

proptest! {
    // 24 cases each (PROPTEST_CASES overrides it for a long run); failing
    // inputs are printed, no regression file next to tests/.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Any size and block shape, including partial warps and CTAs.
    #[test]
    fn vadd_any_shape(n in 1u32..700, block in 1u32..=512, seed: u64) {
        prop_assert_eq!(outcome(&kernels::vadd(Fp32::Tesla, n, block, seed)), Ok(()));
    }

    #[test]
    fn divergence_any_shape(n in 1u32..400, block in 1u32..=256, thresh: u32, seed: u64) {
        prop_assert_eq!(outcome(&kernels::divergence(n, block, thresh, seed)), Ok(()));
    }

    #[test]
    fn histogram_any_shape(n in 0u32..2000, grid in 1u32..6, block in 1u32..=300, shift in 0u32..26, seed: u64) {
        prop_assert_eq!(outcome(&kernels::histogram(n, grid, block, shift, seed)), Ok(()));
    }

    #[test]
    fn reduce_any_shape(n in 1u32..3000, log_block in 1u32..=10, seed: u64) {
        prop_assert_eq!(outcome(&kernels::reduce(Fp32::Tesla, n, 1 << log_block, seed)), Ok(()));
    }

    #[test]
    fn tiled_kernels_any_shape(m in 1u32..40, n in 1u32..40, k in 1u32..40, seed: u64) {
        prop_assert_eq!(outcome(&kernels::matmul(seed % 2 == 0, m, n, k, seed)), Ok(()));
        prop_assert_eq!(outcome(&kernels::transpose(seed % 2 == 1, m, n, seed)), Ok(()));
        let form = [ConvForm::Naive, ConvForm::Strip, ConvForm::Tile][(seed % 5 % 3) as usize];
        prop_assert_eq!(outcome(&kernels::conv(form, if seed % 2 == 0 { 3 } else { 5 }, seed % 3 == 0, m, n, seed)), Ok(()));
    }
}

/// `divergence.s` really diverges: its warps run with far fewer active
/// lanes on average than the convergent `vadd.s` on the same warp count.
#[test]
fn divergence_kernel_diverges() {
    let cfg = SmConfig::load("gt200").unwrap();
    let lanes = |s: &Stats| s.thread_instrs as f64 / s.warp_instrs as f64;
    let d = run_case(&cfg, &kernels::divergence(1024, 128, 0x8000_0000, 3));
    let v = run_case(&cfg, &kernels::vadd(Fp32::Tesla, 1024, 128, 3));
    eprintln!(
        "active lanes per warp instruction: divergence {:.2}, vadd {:.2}",
        lanes(&d),
        lanes(&v)
    );
    assert!(lanes(&v) > 28.0); // guarded EXITs count only their exiting lanes
    assert!(lanes(&d) < 16.0);
}

/// The flavour variants are their base kernel with the multiply-add swapped,
/// line for line (only the comments and the kernel name differ), so a fix
/// to one cannot silently miss the other.
#[test]
fn flavour_variants_match_their_base_kernels() {
    let code = |name: &str| -> Vec<String> {
        by_name(name)
            .unwrap()
            .source
            .lines()
            .map(|l| l.split(';').next().unwrap().trim().to_string())
            .filter(|l| !l.is_empty() && !l.starts_with(".kernel"))
            .collect()
    };
    for (base, variant, from, to) in [
        ("saxpy", "saxpy_ffma", "FMAD ", "FFMA "),
        ("sfu", "sfu_ffma", "FMAD ", "FFMA "),
        ("conv3x3", "conv3x3_ffma", "FMAD ", "FFMA "),
        ("conv5x5", "conv5x5_fmad", "FFMA ", "FMAD "),
        ("conv3x3_strip", "conv3x3_strip_ffma", "FMAD ", "FFMA "),
        ("conv5x5_strip", "conv5x5_strip_fmad", "FFMA ", "FMAD "),
        ("conv3x3_tile", "conv3x3_tile_ffma", "FMAD ", "FFMA "),
        ("conv5x5_tile", "conv5x5_tile_fmad", "FFMA ", "FMAD "),
        ("matmul_fmad", "matmul_ffma", "FMAD ", "FFMA "),
    ] {
        let want: Vec<String> = code(base).iter().map(|l| l.replace(from, to)).collect();
        assert_eq!(code(variant), want, "{variant} is not {base} with {from}-> {to}");
        assert!(code(base).iter().any(|l| l.starts_with(from)), "{base} has no {from}");
    }
}
