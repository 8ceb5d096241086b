//! Random valid programs (`testbenches/progen.rs`): every seed assembles
//! from its printed text back to the same program, runs in the golden
//! model without an error, covers what the generator promises, and gives
//! the same final image in any order of warps and CTAs. 300 seeds per
//! preset here; `cargo test --release --test progen -- --ignored
//! --nocapture` runs 10,000 per preset.

use std::collections::{BTreeSet, HashMap, VecDeque};

use rand::{Rng, SeedableRng};

use smrtl::config::{MulAdd, SmConfig};
use smrtl::golden::asm::{assemble, disassemble};
use smrtl::golden::isa::{Op, Sreg};
use smrtl::golden::model::{run_kernel, AtomValues, Golden, Retired};
use smrtl::testbenches::progen::{generate, ProgenCase};

/// Round trip and a clean run; returns the warp instructions executed.
fn check(cfg: &SmConfig, c: &ProgenCase) -> u64 {
    let p = &c.program;
    let text = c.text("k.sasm", "k.gmem.bin");
    let q = assemble(&text, "progen.s").unwrap_or_else(|e| panic!("seed {}: {e}\n{text}", c.seed));
    assert_eq!(
        (&q.name, q.regs, q.shared_bytes, &q.params, &q.code),
        (&p.name, p.regs, p.shared_bytes, &p.params, &p.code),
        "seed {}",
        c.seed
    );
    assert_eq!(disassemble(&q), disassemble(p));
    let (_, stats) = run_kernel(cfg, p, &c.launch, c.gmem.clone())
        .unwrap_or_else(|e| panic!("seed {} on {}: {e}\n{}", c.seed, cfg.name, c.source));
    assert_eq!(stats.ctas, c.launch.grid[0] * c.launch.grid[1]);
    stats.warp_instrs
}

/// Seeds on one preset: the opcodes and special registers seen, the warp
/// instructions run.
fn seeds(preset: &str, range: std::ops::Range<u64>) -> (BTreeSet<Op>, BTreeSet<u16>, u64) {
    let cfg = SmConfig::load(preset).unwrap();
    let (mut ops, mut sregs, mut instrs) = (BTreeSet::new(), BTreeSet::new(), 0);
    let (mut exchanges, mut exits, mut regions, n) = (0, 0, 0, range.end - range.start);
    for seed in range {
        let c = generate(&cfg, seed);
        instrs += check(&cfg, &c);
        let count = |op: Op| c.program.code.iter().filter(|i| i.op == op).count();
        exchanges += (count(Op::Bar) > 1) as u64;
        exits += (count(Op::Exit) > 1) as u64;
        regions += (count(Op::Ssy) > 0) as u64;
        for i in &c.program.code {
            ops.insert(i.op);
            if i.op == Op::S2r {
                sregs.insert(i.e);
            }
        }
    }
    // The structures the generator promises are common, not one-offs.
    eprintln!("{preset}: of {n} programs {exchanges} with BAR exchanges, {exits} with early EXITs, {regions} with SSY regions");
    assert!(exchanges * 5 > n && exits * 5 > n && regions * 2 > n);
    (ops, sregs, instrs)
}

/// 300 seeds on one preset, and what they cover: every opcode but NOP,
/// FMAD or FFMA per the preset's multiply-add, FP64 only with an FP64
/// unit; every special register but SR_CLOCK.
fn preset_300(preset: &str) {
    let (ops, sregs, instrs) = seeds(preset, 0..300);
    eprintln!("{preset}: 300 programs, {instrs} warp instructions");
    let cfg = SmConfig::load(preset).unwrap();
    let fp64 = cfg.fp64_rate_divisor > 0;
    let fmad = cfg.mul_add == MulAdd::Fmad;
    for &op in Op::ALL {
        let expected = match op {
            Op::Nop => false,
            // GPU-CC configuration: never generated (docs/gpucc.md).
            Op::Gcset | Op::Gcrun => false,
            Op::Fmad => fmad,
            Op::Ffma => !fmad,
            Op::Dadd | Op::Dmul | Op::Dfma | Op::Dsetp | Op::I2d | Op::D2i | Op::F2d | Op::D2f => fp64,
            _ => true,
        };
        assert_eq!(ops.contains(&op), expected, "{preset}: {op:?}");
    }
    for s in Sreg::ALL {
        assert_eq!(sregs.contains(&(s as u16)), s != Sreg::Clock, "{preset}: {s:?}");
    }
}

#[test]
fn tesla_300_seeds() {
    preset_300("tesla");
}

#[test]
fn gt200_300_seeds() {
    preset_300("gt200");
}

#[test]
fn fermi_300_seeds() {
    preset_300("fermi");
}

/// Multi-CTA lock-step of one case as the SM checker does it: up to three
/// CTAs resident, random runnable warps; every retired record equals the
/// one-CTA-at-a-time record of that warp (`Retired::diff`, atomic values
/// ignored: the RZ atomics on shared words see order-dependent old
/// values), and the final image equals `run`'s.
fn lockstep(cfg: &SmConfig, c: &ProgenCase, order_seed: u64) {
    let mut single = Golden::new(cfg, &c.program, &c.launch, c.gmem.clone()).unwrap();
    let mut want: HashMap<(u32, u32), VecDeque<Retired>> = HashMap::new();
    while let Some(r) = single.step().unwrap() {
        want.entry((r.cta, r.warp)).or_default().push_back(r);
    }
    let mut g = Golden::new(cfg, &c.program, &c.launch, c.gmem.clone()).unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(order_seed);
    let (ncta, nw) = (g.grid_ctas(), g.warps_per_cta());
    let mut res: Vec<u32> = (0..ncta.min(3)).collect();
    let mut next = res.len() as u32;
    while !res.is_empty() {
        let cta = res[rng.gen_range(0..res.len())];
        let ws: Vec<usize> = (0..nw).filter(|&w| g.cta_warp_runnable(cta, w)).collect();
        assert!(!ws.is_empty(), "seed {}: {:?}", c.seed, g.barrier_state(cta));
        let w = ws[rng.gen_range(0..ws.len())];
        let r = g
            .step_cta_warp(cta, w)
            .unwrap_or_else(|e| panic!("seed {}: {e}", c.seed));
        let exp = want.get_mut(&(cta, w as u32)).and_then(|q| q.pop_front());
        let exp = exp.unwrap_or_else(|| panic!("seed {}: cta {cta} warp {w} retired more", c.seed));
        if let Some(d) = exp.diff(&r, AtomValues::Ignore) {
            panic!(
                "seed {} on {}: {d}\n  one at a time: {exp}\n  interleaved:   {r}",
                c.seed, cfg.name
            );
        }
        if g.cta_done(cta) {
            res.retain(|&x| x != cta);
            if next < ncta {
                res.push(next);
                next += 1;
            }
        }
    }
    assert!(g.all_done());
    assert!(
        want.values().all(|q| q.is_empty()),
        "seed {}: warps retired less",
        c.seed
    );
    assert!(
        g.gmem() == single.gmem(),
        "seed {}: final image depends on the order",
        c.seed
    );
}

#[test]
fn results_do_not_depend_on_the_warp_order() {
    for preset in ["gt200", "fermi"] {
        let cfg = SmConfig::load(preset).unwrap();
        for seed in 0..20 {
            lockstep(&cfg, &generate(&cfg, seed), seed);
        }
    }
}

/// `cargo test --release --test progen -- --ignored`: 1,000 seeds per
/// preset in multi-CTA lock-step.
#[test]
#[ignore]
fn lockstep_thousand_seeds_per_preset() {
    for preset in ["tesla", "gt200", "fermi"] {
        let cfg = SmConfig::load(preset).unwrap();
        for seed in 0..1000 {
            lockstep(&cfg, &generate(&cfg, seed), seed ^ 0xabc);
        }
        eprintln!("{preset}: 1000 programs in multi-CTA lock-step ok");
    }
}

/// The same seed gives the same case; different seeds differ.
#[test]
fn generation_is_deterministic() {
    let cfg = SmConfig::load("fermi").unwrap();
    let (a, b) = (generate(&cfg, 7), generate(&cfg, 7));
    assert_eq!((&a.program, &a.launch, &a.gmem), (&b.program, &b.launch, &b.gmem));
    assert_ne!(a.program.code, generate(&cfg, 8).program.code);
}

/// `smrtl progen` writes a program and an image that `smrtl run` runs with
/// the command in the file's header.
#[test]
fn cli_progen_then_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.sasm");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_smrtl"))
        .args(["progen", "--seed", "3", "--config", "fermi", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    let cmd = text.lines().nth(1).unwrap().strip_prefix("; smrtl run ").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_smrtl"))
        .arg("run")
        .args(cmd.split(' '))
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cfg = SmConfig::load("fermi").unwrap();
    let c = generate(&cfg, 3);
    let (want, _) = run_kernel(&cfg, &c.program, &c.launch, c.gmem.clone()).unwrap();
    assert!(std::fs::read(dir.path().join("out.bin")).unwrap() == want);
}

/// `cargo test --release --test progen -- --ignored --nocapture`.
#[test]
#[ignore]
fn ten_thousand_seeds_per_preset() {
    for preset in ["tesla", "gt200", "fermi"] {
        let t = std::time::Instant::now();
        let (_, _, instrs) = seeds(preset, 0..10_000);
        eprintln!(
            "{preset}: 10000 programs ok, {instrs} warp instructions, {:.1} s",
            t.elapsed().as_secs_f64()
        );
    }
}
