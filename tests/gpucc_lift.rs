//! Standard-mode kernels lifted to GPU-CC mode and mapped by `smrtl
//! gpucc-map` (docs/gpucc.md section 14): SAXPY, vector add and the 8- and
//! 16-tap FIR filters run on the gpucc preset, golden model and RTL SM,
//! and give the image of the standard-mode kernel's host reference bit for
//! bit; bodies the network cannot run are refused with the line and the
//! reason.

use smrtl::config::SmConfig;
use smrtl::golden::asm::assemble;
use smrtl::golden::gpucc::lift::{lift, map_kernel};
use smrtl::golden::gpucc::map::MapOptions;
use smrtl::golden::model::{run_kernel, Launch};
use smrtl::testbenches::kernels::{by_name, Case, Fp32};

fn gpucc() -> SmConfig {
    SmConfig::load("gpucc").unwrap()
}

/// Map standard-mode kernel `name`; returns the GPU-CC text and the
/// configurations it uses.
fn mapped(name: &str) -> (String, usize) {
    let k = by_name(name).unwrap();
    let (text, maps, lifted) =
        map_kernel(k.source, k.file, &MapOptions::default()).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    let lifted = lifted.expect("a standard-mode kernel is lifted");
    assert_eq!(maps.len(), lifted.blocks);
    (text, maps.len())
}

/// The GPU-CC launch of a standard-mode case: one CTA of one warp, the
/// same parameters and memory.
fn gpucc_launch(case: &Case) -> Launch {
    Launch {
        grid: [1, 1],
        block: [32, 1, 1],
        params: case.param_values(),
    }
}

#[test]
fn lifted_kernels_match_the_standard_mode_reference() {
    let cfg = gpucc();
    for (name, blocks) in [("vadd", 1), ("saxpy_ffma", 1), ("fir8", 1), ("fir16", 2), ("copy", 1)] {
        let (text, n) = mapped(name);
        assert_eq!(n, blocks, "{name}: configurations\n{text}");
        let prog = assemble(&text, "lifted.s").unwrap_or_else(|e| panic!("{name}: {}", e.render(&text)));
        for case in (by_name(name).unwrap().cases)(Fp32::Ieee) {
            let (out, stats) = run_kernel(&cfg, &prog, &gpucc_launch(&case), case.gmem.clone())
                .unwrap_or_else(|e| panic!("{}: {e}", case.label));
            case.check(&out)
                .unwrap_or_else(|m| panic!("{} in GPU-CC mode: {m}", case.label));
            eprintln!("{} in GPU-CC mode: ok, {} warp instrs", case.label, stats.warp_instrs);
        }
    }
}

#[test]
fn lifted_kernels_on_the_rtl_sm() {
    let cfg = gpucc();
    for name in ["vadd", "fir16"] {
        let (text, _) = mapped(name);
        let prog = assemble(&text, "lifted.s").unwrap();
        let case = (by_name(name).unwrap().cases)(Fp32::Ieee)
            .into_iter()
            .min_by_key(|c| c.gmem.len())
            .unwrap();
        let r = smrtl::sm::run::run_program(
            &cfg,
            &prog,
            &gpucc_launch(&case),
            case.gmem.clone(),
            &smrtl::sm::run::RtlOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", case.label));
        case.check(&r.gmem)
            .unwrap_or_else(|m| panic!("{} on the RTL SM: {m}", case.label));
        let rep = &r.report;
        assert!(rep.gc_runs >= 1 && rep.gc_tokens_checked > 0, "{}", rep.render());
        // Nothing issues in the mode; a fetch already requested when the
        // mode begins is the most the instruction memory sees.
        assert_eq!(rep.gc_issued, 0, "{}", rep.render());
        assert!(rep.gc_fetched <= 1, "{}", rep.render());
    }
}

/// A standard-mode body with `body` in place of the arithmetic of vadd.s
/// (a and b loaded into R6 and R7, R6 stored to c[i]).
fn vadd_with(body: &str) -> String {
    format!(
        ".kernel t\n.regs 12\n.param a\n.param b\n.param c\n.param n\n\
         S2R R0, SR_TID.X\nS2R R1, SR_CTAID.X\nS2R R2, SR_NTID.X\nIMAD R0, R1, R2, R0\n\
         LDC R3, c[n]\nISETP.GE P0, R0, R3\n@P0 EXIT\nSHL R4, R0, 2\n\
         LDC R5, c[a]\nIADD R5, R5, R4\nLDG R6, [R5]\n\
         LDC R8, c[b]\nIADD R8, R8, R4\nLDG R7, [R8]\n\
         {body}\n\
         LDC R9, c[c]\nIADD R9, R9, R4\nSTG [R9], R6\nEXIT\n"
    )
}

/// The first line of `src` containing `needle` (1-based).
fn line_of(src: &str, needle: &str) -> u32 {
    src.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
}

#[test]
fn lifter_refuses_what_the_network_cannot_run() {
    let cases: Vec<(String, &str, &str)> = vec![
        (vadd_with("RCP R6, R6"), "RCP R6", "does not run on an SP lane"),
        (vadd_with("DADD R6, R6, R8"), "DADD", "does not run on an SP lane"),
        (vadd_with("@P0 FADD R6, R6, R7"), "@P0 FADD", "divergent control flow"),
        (vadd_with("BRA skip\nskip:"), "BRA", "divergent control flow"),
        // A backward branch whose loop does not step the index.
        (vadd_with("BRA 3"), "BRA", "does not step the element index"),
        (vadd_with("BAR"), "BAR", "barrier"),
        (vadd_with("LDS R6, [R4]"), "LDS", "shared memory"),
        (vadd_with("FSETP.LT P1, R6, R7"), "FSETP", "predicates"),
        // An address not traced to a parameter may alias the output.
        (vadd_with("LDG R6, [R0]"), "LDG R6, [R0]", "memory dependence"),
        (
            vadd_with("SHL R10, R0, 4\nLDC R11, c[a]\nIADD R10, R10, R11\nLDG R6, [R10]"),
            "LDG R6, [R10]",
            "steps by 16 bytes",
        ),
        // A load of the next element of the output: the network cannot
        // order it after the previous element's store.
        (
            vadd_with("LDC R10, c[c]\nIADD R10, R10, R4\nLDG R11, [R10+4]\nFADD R6, R6, R11"),
            "LDG R11",
            "memory dependence",
        ),
        // The stored word read by a load the stored value does not use.
        (
            vadd_with("LDC R10, c[c]\nIADD R10, R10, R4\nLDG R11, [R10]\nFADD R6, R6, R7"),
            "LDG R11",
            "does not depend on the load",
        ),
        // Filter taps read from the output array.
        (
            vadd_with("LDC R10, c[c]\nLDG R11, [R10]\nFMUL R6, R6, R11"),
            "LDG R11",
            "done once before the mode",
        ),
        (
            vadd_with("S2R R10, SR_TID.Y\nIADD R6, R6, R10"),
            "SR_TID.Y",
            "1-D kernels",
        ),
    ];
    for (src, at, why) in &cases {
        let e = lift(src, "t.s").expect_err(at);
        let want = line_of(src, at);
        assert_eq!(e[0].line, want, "{at}: {:?}", e[0]);
        assert!(e[0].msg.contains(why), "{at}: {:?}", e[0]);
    }
    // A grid-stride loop whose sum runs from one element to the next.
    let grid_stride = |body: &str| {
        format!(
            ".kernel g\n.regs 10\n.param src\n.param dst\n.param n\n\
             S2R R0, SR_TID.X\nS2R R1, SR_CTAID.X\nS2R R2, SR_NTID.X\nS2R R3, SR_NCTAID.X\n\
             IMAD R0, R1, R2, R0\nIMUL R3, R3, R2\nLDC R4, c[n]\nLDC R5, c[src]\nLDC R6, c[dst]\nMOV R8, 0\n\
             next:\nISETP.GE P0, R0, R4\n@P0 EXIT\nSHL R7, R0, 2\nIADD R1, R5, R7\nLDG R2, [R1]\n\
             {body}\nIADD R1, R6, R7\nSTG [R1], R8\nIADD R0, R0, R3\nBRA next\n"
        )
    };
    let acc = grid_stride("FADD R8, R8, R2");
    let e = lift(&acc, "t.s").unwrap_err();
    assert_eq!(e[0].line, line_of(&acc, "FADD R8"), "{e:?}");
    assert!(e[0].msg.contains("R8 is carried from one element to the next"), "{e:?}");
    // The same loop without the carried sum lifts.
    let ok = grid_stride("FADD R8, R2, R2");
    assert_eq!(lift(&ok, "t.s").unwrap().cores, 1);
    // A loop that does not step by the grid's threads.
    let bad_step = ok.replace("IADD R0, R0, R3", "IADD R0, R0, 1");
    let e = lift(&bad_step, "t.s").unwrap_err();
    assert!(e[0].msg.contains("does not step the element index"), "{e:?}");
    // No bound on the index, no store, an unwritten register.
    let no_bound = vadd_with("").replace("@P0 EXIT\n", "");
    assert!(lift(&no_bound, "t.s").unwrap_err()[0].msg.contains("no bound"));
    let no_store = vadd_with("").replace("STG [R9], R6\n", "");
    assert!(lift(&no_store, "t.s").unwrap_err()[0].msg.contains("stores nothing"));
    let unset = vadd_with("FADD R6, R6, R11");
    let e = lift(&unset, "t.s").unwrap_err();
    assert!(e[0].msg.contains("R11, which is never written"), "{e:?}");
    // Two per-element constants on one core: the assembler's error comes
    // back at the standard-mode line.
    let two = vadd_with("LDC R10, c[n]\nFFMA R6, R10, R6, R3");
    let e = map_kernel(&two, "t.s", &MapOptions::default()).unwrap_err();
    assert_eq!(e[0].line, line_of(&two, "FFMA"), "{e:?}");
}

/// The lifted text names each node after its standard-mode line and keeps
/// the uniform work (parameters, taps) as SIMT code before the mode.
#[test]
fn lifted_fir_keeps_the_taps_in_registers() {
    let k = by_name("fir8").unwrap();
    let l = lift(k.source, k.file).unwrap();
    assert_eq!((l.cores, l.lsus, l.blocks), (8, 9, 1));
    let pre: Vec<&str> = l.text.lines().take_while(|t| !t.starts_with(".gpucc")).collect();
    assert_eq!(
        pre.iter().filter(|t| t.trim_start().starts_with("LDG")).count(),
        8,
        "{}",
        l.text
    );
    let body: Vec<&str> = l.text.lines().skip_while(|t| !t.starts_with(".gpucc")).collect();
    assert_eq!(body.iter().filter(|t| t.contains("FFMA")).count(), 7, "{}", l.text);
    assert_eq!(body.iter().filter(|t| t.contains(" LDG ")).count(), 8, "{}", l.text);
    assert_eq!(l.lines.len(), l.text.lines().count());
}
