//! The standing robustness check: a few thousand fuzz cases over every
//! target of the default run in-process (seconds), a few cases of the RTL
//! SM target, plus regressions for rough edges the driver or a newcomer
//! found that live outside one module. Long runs: `smrtl fuzz --seconds
//! 3600` and `smrtl fuzz --targets rtl --seconds 3600` (docs/fuzz.md).

use std::time::Duration;

use smrtl::fuzz::{self, Kind};
use smrtl::golden::arith::{tesla, Round};

#[test]
fn fuzz_smoke_every_target_no_findings() {
    let targets = fuzz::select_targets(&[]).unwrap();
    assert_eq!(targets.len(), 5, "the default run: every target but rtl");
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

/// A short run of the RTL SM target: both kinds of case (mutated kernels
/// with small cycle budgets, valid random programs lock-step) and no
/// finding.
#[test]
fn fuzz_rtl_target_smoke() {
    let targets = fuzz::select_targets(&["rtl".to_string()]).unwrap();
    let corpus = fuzz::Corpus::new();
    let (seed, n) = (37, 16);
    let progen = (0..n)
        .filter(|&c| {
            fuzz::case_input(&targets, &corpus, seed, c)
                .1
                .starts_with(b"; fuzz-rtl progen")
        })
        .count();
    assert!(progen >= 3 && progen <= n as usize - 3, "{progen} progen cases of {n}");
    let dir = tempfile::tempdir().unwrap();
    let t = std::time::Instant::now();
    let rep = fuzz::run_in_process(&targets, seed, n, Duration::from_secs(20), Some(dir.path()));
    println!("{rep}({progen} progen cases, {:.1} s)", t.elapsed().as_secs_f64());
    assert_eq!(rep.tried, vec![("rtl", n)]);
    for k in Kind::ALL {
        assert_eq!(rep.count(k), 0, "{rep}");
    }
}

/// The RTL target's checks can fail: a valid program that cannot finish
/// within its cycle budget is a `lockstep` finding whose message says how
/// to replay it; a launch the SM refuses is an error with its place (no
/// finding).
#[test]
fn fuzz_rtl_target_reports_a_lockstep_failure_with_its_replay() {
    let t = fuzz::rtl::RtlTarget;
    let corpus = fuzz::Corpus::new();
    let input = b"; fuzz-rtl progen --config gt200 --seed 5 --max-cycles 300 --gmem-latency 4\n";
    let f = fuzz::Target::execute(&t, input, &corpus).unwrap_err();
    assert_eq!(f.kind, Kind::Lockstep, "{}", f.msg);
    assert!(f.msg.contains("cycle budget of 300"), "{}", f.msg);
    assert!(
        f.msg.contains("smrtl progen --config gt200 --seed 5")
            && f.msg.contains("--rtl --max-cycles 300 --gmem-latency 4"),
        "{}",
        f.msg
    );
    // The same program with a budget it fits in runs clean.
    let ok = b"; fuzz-rtl progen --config gt200 --seed 5 --max-cycles 400000 --gmem-latency 4\n";
    assert_eq!(fuzz::Target::execute(&t, ok, &corpus), Ok(()));
    // A block the SM's launch port cannot hold: an error naming the launch.
    let big = b"; fuzz-run --config gt200 --grid 1 --block 4096 --gmem-size 4096 --budget 100 --rtl --max-cycles 100\n\
.kernel k\n.regs 2\nEXIT\n";
    assert_eq!(fuzz::Target::execute(&t, big, &corpus), Ok(()));
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
