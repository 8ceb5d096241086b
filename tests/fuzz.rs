//! The standing robustness check: a few thousand fuzz cases
//! over every target in-process (seconds), plus regressions for rough
//! edges the driver or a newcomer found that live outside one module.
//! Long runs: `smrtl fuzz --seconds 3600` (docs/fuzz.md).

use std::time::Duration;

use smrtl::fuzz::{self, Kind};
use smrtl::golden::arith::{tesla, Round};

#[test]
fn fuzz_smoke_every_target_no_findings() {
    let targets = fuzz::all_targets();
    let dir = tempfile::tempdir().unwrap();
    let rep = fuzz::run_in_process(&targets, 14, 3000, Duration::from_secs(5), Some(dir.path()));
    println!("{rep}");
    for (name, n) in &rep.tried {
        assert_eq!(*n, 600, "{name}");
    }
    for k in Kind::ALL {
        assert_eq!(rep.count(k), 0, "{rep}");
    }
}

#[test]
fn fuzz_cli_reports_counts_per_target() {
    let dir = tempfile::tempdir().unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_smrtl"))
        .args(["fuzz", "--cases", "200", "--seed", "5", "--targets", "asm,bin", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("200 cases"), "{out}");
    assert!(out.contains("asm") && out.contains("100"), "{out}");
    assert!(out.contains("findings: 0 panic, 0 abort, 0 hang, 0 roundtrip"), "{out}");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_smrtl"))
        .args(["fuzz", "--targets", "nope"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && e.contains("unknown fuzz target `nope`") && e.contains("asm"),
        "{e}"
    );
}

/// The product of two FP32 normals truncated to 24 significant bits,
/// computed in f64 (exact: 48 bits) independently of the model.
fn truncated_product(a: u32, b: u32) -> u32 {
    let p = f32::from_bits(a) as f64 * f32::from_bits(b) as f64;
    let bits = p.to_bits() & !((1u64 << 29) - 1);
    (f64::from_bits(bits) as f32).to_bits()
}

/// With a zero addend the model rounds FMAD's product (as the hardware
/// does), and docs/isa.md says so.
#[test]
fn fmad_with_zero_addend_rounds_the_product_and_the_doc_says_so() {
    let mut differ = 0;
    let mut x = 0x1234_5678u32;
    for _ in 0..2000 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let a = 0x3f80_0000 | (x & 0x7f_ffff);
        let b = 0x4000_0000 | (x.rotate_left(11) & 0x7f_ffff);
        let fmul = tesla::fmul(a, b, Round::NearEven);
        assert_eq!(tesla::fmad(a, b, 0), fmul, "{a:08x} {b:08x}");
        if fmul != truncated_product(a, b) {
            differ += 1;
        }
    }
    assert!(
        differ > 100,
        "the sample must contain products where rounding differs from truncation"
    );
    let doc = include_str!("../docs/isa.md");
    assert!(doc.contains("`FMAD d, a, b, RZ` equals `FMUL d, a, b`"));
}
