//! Co-simulation of the proof blocks: Rust vs Verilator (lock-step, every
//! output every hot cycle) and Rust vs Icarus (4-state), plus the negative
//! tests: a deliberately wrong Verilog must be caught.

use smrtl::cosim::{self, icarus, Options};
use smrtl::hdl::fifo::Fifo;
use smrtl::hdl::{elaborate, verilog};
use smrtl::units::mad_rf::MadRf;
use std::path::PathBuf;

fn tools() -> bool {
    cosim::require_tools(&["verilator", "iverilog", "vvp", "g++", "make"]);
    true
}

fn opts(cycles: u64, seed: u64, p: f64, tag: &str) -> Options {
    Options {
        hot_cycles: cycles,
        seed,
        p_one: p,
        wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(tag),
        window: 32,
    }
}

#[test]
fn fifo_lockstep_verilator() {
    if !tools() {
        return;
    }
    for (seed, p) in [(1, 0.5), (2, 0.8), (3, 0.2)] {
        let r = cosim::lockstep(&Fifo::<32, 4, 5>::new(), None, &opts(100_000, seed, p, "fifo")).unwrap();
        assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
        assert_eq!(r.hot_cycles, 100_000);
    }
}

#[test]
fn mad_rf_lockstep_verilator() {
    if !tools() {
        return;
    }
    let r = cosim::lockstep(&MadRf::new(), None, &opts(200_000, 11, 0.7, "mad_rf")).unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
}

#[test]
fn flipped_bit_is_caught_with_vcd_window() {
    if !tools() {
        return;
    }
    for (name, texts) in [
        ("fifo", verilog::emit(&elaborate(&Fifo::<32, 4, 5>::new()).unwrap())),
        ("mad_rf", verilog::emit(&elaborate(&MadRf::new()).unwrap())),
    ] {
        let mut texts = texts;
        let last = texts.len() - 1;
        let (bad, reg) = cosim::flip_one_bit(&texts[last].1).expect("an assign to mutate");
        texts[last].1 = bad;
        let o = opts(10_000, 5, 0.6, &format!("flip_{name}"));
        let r = if name == "fifo" {
            cosim::lockstep(&Fifo::<32, 4, 5>::new(), Some(texts), &o).unwrap()
        } else {
            cosim::lockstep(&MadRf::new(), Some(texts), &o).unwrap()
        };
        let m = r
            .mismatch
            .unwrap_or_else(|| panic!("flipping {reg} in {name} was not caught"));
        assert!(m.hot_cycle < 100, "{m}");
        assert_ne!(m.rust, m.verilog);
        for p in &m.vcd {
            let text = std::fs::read_to_string(p).unwrap();
            assert!(text.contains("$enddefinitions"), "{}", p.display());
            assert!(text.contains(&m.signal), "VCD {} lacks {}", p.display(), m.signal);
        }
    }
}

#[test]
fn icarus_agrees_on_short_runs() {
    if !tools() {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let r = icarus::check(Fifo::<32, 4, 5>::new(), None, 20_000, 3, 0.5, &dir.join("icarus_fifo")).unwrap();
    assert_eq!((r.hot_cycles, r.mismatches), (20_000, 0), "{:?}", r.first);
    let r = icarus::check(MadRf::new(), None, 20_000, 4, 0.7, &dir.join("icarus_mad_rf")).unwrap();
    assert_eq!((r.hot_cycles, r.mismatches), (20_000, 0), "{:?}", r.first);
}

#[test]
fn icarus_catches_a_flipped_bit() {
    if !tools() {
        return;
    }
    let mut texts = verilog::emit(&elaborate(&MadRf::new()).unwrap());
    let last = texts.len() - 1;
    texts[last].1 = cosim::flip_one_bit(&texts[last].1).unwrap().0;
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("icarus_flip");
    let r = icarus::check(MadRf::new(), Some(texts), 2_000, 4, 0.7, &dir).unwrap();
    assert!(r.mismatches > 0);
    assert!(r.first[0].starts_with("MISMATCH hot_cycle="), "{:?}", r.first);
}

/// The acceptance run: 1,000,000 core cycles (2,000,000 hot cycles) of
/// lock-step per proof block. Run with
/// `cargo test --release --test cosim -- --ignored`.
#[test]
#[ignore]
fn one_million_core_cycles_lockstep() {
    tools();
    let o = opts(2_000_000, 2024, 0.6, "long");
    let r = cosim::lockstep(&Fifo::<32, 4, 5>::new(), None, &o).unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
    let r = cosim::lockstep(&MadRf::new(), None, &o).unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
    let r = cosim::lockstep(&smrtl::testbenches::fifo_pair::FifoPair::new(), None, &o).unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
}
