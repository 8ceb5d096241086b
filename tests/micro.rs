//! The micro-benchmark kernels (`testbenches/kernels/micro`) on the golden
//! model: every case a preset can run leaves exactly the reference image
//! (results bit-exact, `SR_CLOCK` deltas equal to the warp instruction
//! counts the kernels' headers state), on tesla, gt200 and fermi.

use smrtl::config::SmConfig;
use smrtl::golden::asm::assemble;
use smrtl::golden::model::run_kernel;
use smrtl::testbenches::kernels::micro::{micro_cases, MICRO_KERNELS};

fn preset(name: &str) -> usize {
    let cfg = SmConfig::load(name).unwrap();
    let cases = micro_cases(&cfg);
    for c in &cases {
        let prog = assemble(c.source, &format!("{}.s", c.name)).unwrap_or_else(|e| panic!("{}: {e}", c.name));
        assert_eq!(prog.name, c.name);
        let (out, _) =
            run_kernel(&cfg, &prog, &c.launch, c.gmem.clone()).unwrap_or_else(|e| panic!("{} on {name}: {e}", c.label));
        if out != c.expected {
            let w = |b: &[u8], i: usize| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap());
            let i = (0..out.len() / 4).find(|&i| w(&out, i) != w(&c.expected, i)).unwrap();
            panic!(
                "{} on {name}: word {i} is {:08x}, expected {:08x}",
                c.label,
                w(&out, i),
                w(&c.expected, i)
            );
        }
    }
    cases.len()
}

#[test]
fn micro_kernels_on_every_preset() {
    let mut seen = std::collections::BTreeSet::new();
    for p in ["tesla", "gt200", "fermi"] {
        let n = preset(p);
        eprintln!("{p}: {n} micro cases ok");
        for c in micro_cases(&SmConfig::load(p).unwrap()) {
            seen.insert(c.name);
        }
    }
    // Every kernel file runs on some preset.
    for (name, _) in MICRO_KERNELS {
        assert!(seen.contains(name), "{name} never runs");
    }
}

/// The references can fail: a changed constant in a kernel is caught.
#[test]
fn a_wrong_kernel_is_caught() {
    let cfg = SmConfig::load("gt200").unwrap();
    let c = micro_cases(&cfg).into_iter().find(|c| c.name == "lat_fadd").unwrap();
    let src = c.source.replace("MOV R3, 1.5", "MOV R3, 1.25");
    let prog = assemble(&src, "lat_fadd.s").unwrap();
    let (out, _) = run_kernel(&cfg, &prog, &c.launch, c.gmem.clone()).unwrap();
    assert_ne!(out, c.expected);
}
