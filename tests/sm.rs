//! The RTL SM (`src/sm/top.rs`) running the benchmark kernels lock-step
//! against the golden model (`smrtl run --rtl`): every issued warp
//! instruction, every write-back and the final global memory are checked
//! (`sm::run`), and the final image against the kernel's host reference.
//!
//! Shapes are small so that the default `cargo test` stays short; the
//! ignored test runs the kernels' own shapes.

use smrtl::golden::asm::assemble;
use smrtl::sm::run::{run_program, RtlOptions};
use smrtl::sm::SmConfig;
use smrtl::testbenches::kernels::{self, Case, Fp32};

fn run(cfg: &SmConfig, case: &Case) -> String {
    let prog = assemble(case.source, case.file).unwrap();
    let t = std::time::Instant::now();
    let r = run_program(cfg, &prog, &case.launch(), case.gmem.clone(), &RtlOptions::default())
        .unwrap_or_else(|e| panic!("{} on {}: {e}\n{}", case.label, cfg.name, e.report.render()));
    case.check(&r.gmem)
        .unwrap_or_else(|m| panic!("{} on {}: {m}", case.label, cfg.name));
    let rep = &r.report;
    let line = format!(
        "{} [{}]: {} core cycles, IPC {:.3}, {} checked, {:.1} s",
        case.label,
        cfg.name,
        rep.core_cycles,
        rep.issued.iter().sum::<u64>() as f64 / rep.core_cycles as f64,
        rep.checked,
        t.elapsed().as_secs_f64()
    );
    eprintln!("{line}");
    line
}

/// Small shapes of every kernel for preset `p`.
fn small_cases(cfg: &SmConfig) -> Vec<Case> {
    let fp = Fp32::of(cfg);
    let fused = cfg.mul_add == smrtl::sm::config::MulAdd::Ffma;
    vec![
        kernels::vadd(fp, 300, 128, 1),
        kernels::saxpy(200, 64, 2),
        kernels::reduce(fp, 256, 128, 3),
        kernels::matmul(fused, 16, 16, 8, 4),
        kernels::histogram(300, 2, 64, 4, 5),
        kernels::transpose(false, 32, 16, 6),
        kernels::transpose(true, 32, 16, 7),
        kernels::divergence(100, 64, 7, 8),
        kernels::conv(3, 16, 8, 9),
        kernels::sfu(64, 32, 10),
    ]
}

#[test]
fn kernels_on_gt200() {
    let cfg = SmConfig::load("gt200").unwrap();
    for c in small_cases(&cfg) {
        run(&cfg, &c);
    }
}

#[test]
fn kernels_on_fermi() {
    let cfg = SmConfig::load("fermi").unwrap();
    for c in small_cases(&cfg) {
        // FMAD (Tesla multiply-add: saxpy, matmul_fmad, conv, sfu) is not
        // in Fermi's lanes (error 1, see `fmad_on_fermi_is_error_1`).
        if c.source.lines().any(|l| l.trim_start().starts_with("FMAD")) {
            continue;
        }
        run(&cfg, &c);
    }
}

#[test]
fn fmad_on_fermi_is_error_1() {
    let cfg = SmConfig::load("fermi").unwrap();
    let case = kernels::saxpy(64, 32, 2);
    let prog = assemble(case.source, case.file).unwrap();
    let e = run_program(&cfg, &prog, &case.launch(), case.gmem.clone(), &RtlOptions::default()).unwrap_err();
    assert!(e.msg.contains("error 1 ") && e.msg.contains("sp0"), "{}", e.msg);
}

#[test]
fn a_kernel_that_never_exits_stops_at_the_budget() {
    let cfg = SmConfig::load("gt200").unwrap();
    let src = ".kernel spin\n.regs 2\nL: IADD R0, R0, 1\n    BRA L\n";
    let prog = assemble(src, "spin.s").unwrap();
    let launch = smrtl::golden::model::Launch {
        grid: [1, 1],
        block: [32, 1, 1],
        params: vec![],
    };
    let opts = RtlOptions {
        max_cycles: 500,
        ..RtlOptions::default()
    };
    let e = run_program(&cfg, &prog, &launch, vec![], &opts).unwrap_err();
    assert!(e.msg.contains("error 11") && e.cycle == 500, "{}", e.msg);
    assert!(e.report.issued[0] > 10, "the report so far is kept");
}

/// SEL with a negated predicate and PSETP-free predicates through the
/// whole SM: the raw predicate reaches the SP lane, which negates it once.
#[test]
fn sel_with_negated_predicate() {
    let cfg = SmConfig::load("gt200").unwrap();
    let src = ".kernel sel\n.regs 4\n.param out\n    S2R R0, SR_TID.X\n    ISETP.LT P1, R0, 5\n    \
               SEL R1, R0, 100, !P1\n    SEL R2, R0, 200, P1\n    IADD R1, R1, R2\n    LDC R3, c[out]\n    \
               SHL R2, R0, 2\n    IADD R3, R3, R2\n    STG [R3], R1\n    EXIT\n";
    let prog = assemble(src, "sel.s").unwrap();
    let launch = smrtl::golden::model::Launch {
        grid: [1, 1],
        block: [32, 1, 1],
        params: vec![0],
    };
    let r = run_program(&cfg, &prog, &launch, vec![0; 128], &RtlOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    for t in 0..32u32 {
        let v = u32::from_le_bytes(r.gmem[4 * t as usize..4 * t as usize + 4].try_into().unwrap());
        let want = if t < 5 { 100 + t } else { t + 200 };
        assert_eq!(v, want, "thread {t}");
    }
}
