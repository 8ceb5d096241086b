//! PRESIN (Tesla/GT200 range reduction for SIN/COS) against the hardware
//! rule, computed here on its own in `u128` arithmetic: the 24-bit
//! significand `m` (implicit 1) times the 24-bit constant `0xA2F983`, only
//! the top 32 bits of the 48-bit product kept (`P = ((m * C) >> 16) << 16`),
//! scaled by `2^k` with `k = e - 151` (`e` the biased exponent) and taken
//! mod 2^25 as the 2.23 quarter-turn count; the sign in bit 31. Zeros and
//! denormals give a signed zero, infinities `0x40800000 | sign`, NaN
//! `0x40000000 | sign`.
//!
//! Checked against the reference (`golden::arith::sfu::presin`), the RTL
//! datapath (`units::sfu::datapath::eval_comb`) and the clocked SFU block of
//! gt200 and fermi, on vectors made from the rule and on three outputs of
//! real Tesla hardware written as literals.

use rand::{rngs::SmallRng, Rng, SeedableRng};
use smrtl::golden::arith::sfu::presin;
use smrtl::hdl::Sim;
use smrtl::sm::SmConfig;
use smrtl::testbenches::sfu_tb::{rtl_apply, SfuStepper};
use smrtl::units::sfu::{datapath, Sfu};

/// PRESIN's opcode (function code 6 of the datapath).
const OP_PRESIN: u8 = 0x36;

/// Inputs and outputs of NVIDIA Tesla hardware (from the hardware-validated
/// envytools model of the G80 FP unit), as the issue quotes them.
const HARDWARE: [(u32, u32); 3] = [
    (0x466c_5ccb, 0x0122_f540),
    (0x4a7f_fff6, 0x0194_4000),
    (0x4d70_c166, 0x00d8_0000), // 252450400.0
];

/// The rule, written directly from its statement.
fn rule(x: u32) -> u32 {
    let sign = x & 0x8000_0000;
    let e = (x >> 23) & 0xff;
    let frac = x & 0x7f_ffff;
    if e == 0xff {
        return if frac != 0 {
            0x4000_0000 | sign
        } else {
            0x4080_0000 | sign
        };
    }
    if e == 0 {
        return sign;
    }
    let m = (frac | 0x80_0000) as u128;
    let p = ((m * 0xa2_f983) >> 16) << 16;
    let k = e as i32 - 151;
    // k is in -150..=103: a left shift below 128 drops only bits above the
    // 25 kept; a right shift of 128 or more leaves nothing.
    let v = if k >= 0 {
        p << k
    } else {
        p.checked_shr(-k as u32).unwrap_or(0)
    };
    sign | (v % (1 << 25)) as u32
}

/// Vectors from the rule: every biased exponent with both signs and edge and
/// random fractions, then random bit patterns.
fn vectors() -> Vec<u32> {
    let mut rng = SmallRng::seed_from_u64(37);
    let mut v: Vec<u32> = HARDWARE.iter().map(|&(x, _)| x).collect();
    for e in 0u32..=255 {
        for s in [0u32, 0x8000_0000] {
            for f in [0, 1, 0x40_0000, 0x7f_fffe, 0x7f_ffff] {
                v.push(s | e << 23 | f);
            }
            for _ in 0..40 {
                v.push(s | e << 23 | rng.gen_range(0..1u32 << 23));
            }
        }
    }
    v.extend((0..1 << 15).map(|_| rng.gen::<u32>()));
    v
}

#[test]
fn rule_reproduces_the_hardware_outputs() {
    for (x, hw) in HARDWARE {
        assert_eq!(rule(x), hw, "the rule written here, input {x:#010x}");
    }
}

/// Asserts that every `(input, output)` of `what` is the rule's.
fn assert_follows_rule(what: &str, results: impl Iterator<Item = (u32, u32)>) {
    let mut n = 0;
    let mut bad = Vec::new();
    for (x, got) in results {
        n += 1;
        if got != rule(x) {
            bad.push((x, got, rule(x)));
        }
    }
    assert!(
        bad.is_empty(),
        "{what}: {} of {n} vectors differ from the rule (input, {what}, rule): {:x?}",
        bad.len(),
        &bad[..bad.len().min(8)]
    );
}

#[test]
fn reference_follows_the_rule() {
    for (x, hw) in HARDWARE {
        assert_eq!(presin(x), hw, "reference on hardware input {x:#010x}");
    }
    assert_follows_rule("reference", vectors().into_iter().map(|x| (x, presin(x))));
}

#[test]
fn rtl_datapath_follows_the_rule() {
    let rom = datapath::rom_words();
    let f = (OP_PRESIN & 7) as u32;
    assert_follows_rule(
        "RTL datapath",
        vectors().into_iter().map(|x| (x, datapath::eval_comb(&rom, f, x))),
    );
}

#[test]
fn clocked_block_follows_the_rule() {
    // The exponent sweep (the hardware inputs first) and 1024 random patterns.
    let vs = vectors();
    let vs = &vs[..vs.len() - (1 << 15) + 1024];
    for preset in ["gt200", "fermi"] {
        let c = SmConfig::preset(preset).unwrap();
        let sim = Sim::new(Sfu::from_config(&c).unwrap()).unwrap();
        let mut st = SfuStepper::Native(Box::new(sim));
        let out = rtl_apply(&mut st, OP_PRESIN, vs).unwrap_or_else(|e| panic!("{preset}: {e}"));
        assert_eq!(out.len(), vs.len());
        for (k, &(x, hw)) in HARDWARE.iter().enumerate() {
            assert_eq!(out[k], hw, "{preset}: clocked block on hardware input {x:#010x}");
        }
        assert_follows_rule(
            &format!("{preset} clocked block"),
            vs.iter().copied().zip(out.iter().copied()),
        );
    }
}
