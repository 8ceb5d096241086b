//! The SFU reference algorithm (`golden::arith::sfu`): special values,
//! exact points, the range-reduction formats, exhaustive monotonicity over
//! one binade, scaling and sign properties, a sampled accuracy check
//! against the host f64 libm (>= 22 good bits), and the
//! `smrtl sfu-accuracy` command.

use proptest::prelude::*;
use rand::{rngs::SmallRng, Rng, SeedableRng};
use smrtl::golden::arith::sfu::{self, *};
use smrtl::golden::arith::F32_CANONICAL_NAN as NAN;
use std::process::Command;

const PINF: u32 = 0x7f80_0000;
const NINF: u32 = 0xff80_0000;
const PZERO: u32 = 0;
const NZERO: u32 = 0x8000_0000;
const QNAN: u32 = 0x7fc0_0000;
const SNAN_NEG: u32 = 0xff80_0001;
const DENORM: u32 = 0x0000_1234;
const NDENORM: u32 = 0x8000_1234;

fn b(x: f32) -> u32 {
    x.to_bits()
}

#[test]
fn rcp_special_values() {
    assert_eq!(rcp(PZERO), PINF);
    assert_eq!(rcp(NZERO), NINF);
    assert_eq!(rcp(DENORM), PINF, "denormal input flushed to +0");
    assert_eq!(rcp(NDENORM), NINF);
    assert_eq!(rcp(PINF), PZERO);
    assert_eq!(rcp(NINF), NZERO);
    assert_eq!(rcp(QNAN), NAN);
    assert_eq!(rcp(SNAN_NEG), NAN);
    // 1/x below 2^-126 is flushed: x = 1.5 * 2^126.
    assert_eq!(rcp(b(1.5 * 2f32.powi(126))), PZERO);
}

#[test]
fn rsqrt_special_values() {
    assert_eq!(rsqrt(PZERO), PINF);
    assert_eq!(rsqrt(NZERO), NINF);
    assert_eq!(rsqrt(DENORM), PINF);
    assert_eq!(rsqrt(PINF), PZERO);
    assert_eq!(rsqrt(NINF), NAN);
    assert_eq!(rsqrt(b(-4.0)), NAN);
    assert_eq!(rsqrt(QNAN), NAN);
}

#[test]
fn lg2_special_values() {
    assert_eq!(lg2(PZERO), NINF);
    assert_eq!(lg2(NZERO), NINF);
    assert_eq!(lg2(DENORM), NINF);
    assert_eq!(lg2(PINF), PINF);
    assert_eq!(lg2(NINF), NAN);
    assert_eq!(lg2(b(-1.0)), NAN);
    assert_eq!(lg2(QNAN), NAN);
}

#[test]
fn ex2_and_preex2_special_values() {
    assert_eq!(preex2(QNAN), PRE_NAN);
    assert_eq!(preex2(QNAN | 0x8000_0000), PRE_NAN, "PREEX2's NaN code has no sign");
    assert_eq!(ex2(preex2(QNAN)), NAN);
    assert_eq!(preex2(PINF), 0x4080_0000);
    assert_eq!(preex2(NINF), 0xc080_0000);
    assert_eq!(ex2(preex2(PINF)), PINF);
    assert_eq!(ex2(preex2(NINF)), PZERO);
    assert_eq!(ex2(preex2(b(128.0))), PINF);
    assert_eq!(ex2(preex2(b(1000.0))), PINF);
    assert_eq!(ex2(preex2(b(-1000.0))), PZERO);
    // 2^-127 is below the normal range: flushed.
    assert_eq!(ex2(preex2(b(-127.0))), PZERO);
    assert_eq!(ex2(preex2(DENORM)), b(1.0));
    // Bit 30 with bit 23 clear is NaN whatever the other bits.
    assert_eq!(ex2(0x4000_0000), NAN);
    assert_eq!(ex2(0xc07f_ffff), NAN);
    assert_eq!(ex2(0xc0ff_ffff), PZERO);
}

#[test]
fn preex2_format() {
    // Sign in bit 31, |x| truncated to 7.23 fixed point in bits 29..0.
    assert_eq!(preex2(b(1.5)), 0x00c0_0000);
    assert_eq!(preex2(b(-1.5)), 0x80c0_0000);
    assert_eq!(preex2(b(-126.0)), 0x8000_0000 | 126 << 23);
    assert_eq!(preex2(b(127.5)), 0x3fc0_0000);
    assert_eq!(preex2(0x42ff_ffff), 0x3fff_ffc0); // 127.99999: 0xffffff << 6
    assert_eq!(preex2(b(128.0)), 0x4080_0000);
    assert_eq!(preex2(b(-256.0)), 0xc080_0000);
    // Truncated toward zero: 2^-23 is one unit, 2^-24 and 1.5 * 2^-23 are not.
    assert_eq!(preex2(b(2f32.powi(-23))), 1);
    assert_eq!(preex2(b(2f32.powi(-24))), 0);
    assert_eq!(preex2(b(1.5 * 2f32.powi(-23))), 1);
    assert_eq!(preex2(b(-(2f32.powi(-23)))), 0x8000_0001);
    assert_eq!(preex2(0x3fff_ffff), 0x00ff_ffff); // 1.99999988
    assert_eq!(preex2(PZERO), 0);
    assert_eq!(preex2(NZERO), 0x8000_0000);
    assert_eq!(preex2(DENORM), 0);
}

#[test]
fn presin_format() {
    assert_eq!(presin(PINF), 0x4080_0000);
    assert_eq!(presin(NINF), 0xc080_0000);
    assert_eq!(presin(QNAN), 0x4000_0000);
    assert_eq!(
        presin(QNAN | 0x8000_0000),
        0xc000_0000,
        "PRESIN's NaN code keeps the sign"
    );
    assert_eq!(presin(PZERO), 0);
    assert_eq!(presin(NZERO), 0x8000_0000);
    assert_eq!(presin(DENORM), 0);
    assert_eq!(sin(presin(QNAN)), NAN);
    assert_eq!(cos(presin(PINF)), NAN);
    // 1.0 * 0xA2F983 * 2^-24 quadrants, truncated to 23 fraction bits:
    // 2^23 * 0xA2F983 / 2^24 = 0x517cc1.8 -> 0x517cc1.
    assert_eq!(presin(b(1.0)), 0x0051_7cc1);
    assert_eq!(presin(b(-1.0)), 0x8051_7cc1);
    // f32(pi/2) = 0x3fc90fdb: 0xc90fdb * 0xa2f983 >> 24 = 0x7fffff, just
    // below a quarter period (the 24-bit constant is below 2/pi).
    assert_eq!(presin(0x3fc9_0fdb), 0x007f_ffff);
    // f32(pi): one more bit of scale.
    assert_eq!(presin(0x4049_0fdb), 0x00ff_ffff);
    // 4 * 2^k quarter periods vanish mod 4; 2^100 has no fraction bits left.
    assert_eq!(presin(b(2f32.powi(100))), 0);
    // |x| * 2/pi >= 4 wraps: 8.0 -> 5.09296 quadrants -> 1.09296.
    assert_eq!(presin(b(8.0)), ((0xa2_f983u32 << 2) & 0x1ff_ffff));
}

#[test]
fn exact_points() {
    // The rows pinned by the generator make these exact.
    assert_eq!(rcp(b(1.0)), b(1.0));
    assert_eq!(rcp(b(2.0)), b(0.5));
    assert_eq!(rcp(b(-4.0)), b(-0.25));
    assert_eq!(rcp(b(2f32.powi(-126))), b(2f32.powi(126)));
    assert_eq!(rcp(b(2f32.powi(126))), b(2f32.powi(-126)));
    assert_eq!(rsqrt(b(1.0)), b(1.0));
    assert_eq!(rsqrt(b(4.0)), b(0.5));
    assert_eq!(rsqrt(b(0.25)), b(2.0));
    assert_eq!(sfu::sqrt(b(16.0)), b(4.0));
    assert_eq!(sfu::sqrt(PZERO), PZERO);
    assert_eq!(sfu::sqrt(PINF), PINF);
    assert_eq!(lg2(b(1.0)), PZERO);
    assert_eq!(lg2(b(2.0)), b(1.0));
    assert_eq!(lg2(b(0.25)), b(-2.0));
    assert_eq!(lg2(b(2f32.powi(-126))), b(-126.0));
    assert_eq!(ex2(preex2(b(0.0))), b(1.0));
    assert_eq!(ex2(preex2(b(3.0))), b(8.0));
    assert_eq!(ex2(preex2(b(-1.0))), b(0.5));
    assert_eq!(ex2(preex2(b(-126.0))), b(2f32.powi(-126)));
    assert_eq!(ex2(preex2(b(127.0))), b(2f32.powi(127)));
    assert_eq!(sin(presin(b(0.0))), PZERO);
    assert_eq!(cos(presin(b(0.0))), b(1.0));
    // Quadrant boundaries of the angle format itself.
    assert_eq!(sin(1 << 23), b(1.0));
    assert_eq!(sin(2 << 23), PZERO, "an exact zero is +0");
    assert_eq!(sin(3 << 23), b(-1.0));
    assert_eq!(cos(1 << 23), PZERO);
    assert_eq!(cos(2 << 23), b(-1.0));
    assert_eq!(cos(0x8000_0000 | 2 << 23), b(-1.0), "cos ignores the sign");
}

/// Positive normals of one binade, in bit order: every table row and every
/// X_lo of the 23-bit-input functions.
fn binade(e: u32) -> impl Iterator<Item = u32> {
    (0..1u32 << 23).map(move |f| (e << 23) | f)
}

#[test]
fn rcp_is_monotonic_over_a_binade_and_at_its_ends() {
    let mut prev = rcp(b(1.0));
    for x in binade(127).skip(1).chain([b(2.0)]) {
        let y = rcp(x);
        assert!(y <= prev, "rcp not monotonic at {x:#x}: {prev:#x} then {y:#x}");
        prev = y;
    }
}

#[test]
fn rsqrt_is_monotonic_over_two_binades() {
    let mut prev = rsqrt(b(1.0));
    for x in binade(127).skip(1).chain(binade(128)).chain([b(4.0)]) {
        let y = rsqrt(x);
        assert!(y <= prev, "rsqrt not monotonic at {x:#x}: {prev:#x} then {y:#x}");
        prev = y;
    }
}

#[test]
fn lg2_is_monotonic_over_two_binades() {
    let mut prev = lg2(b(0.5));
    for x in binade(126).skip(1).chain(binade(127)).chain([b(2.0)]) {
        let y = f32::from_bits(lg2(x));
        let p = f32::from_bits(prev);
        assert!(y >= p, "lg2 not monotonic at {x:#x}: {p} then {y}");
        prev = y.to_bits();
    }
}

#[test]
fn ex2_is_monotonic_over_its_table() {
    // Every PREEX2 fraction in [0, 1): all rows, all X_lo.
    let mut prev = ex2(0);
    for v in 1..1u32 << 23 {
        let y = ex2(v);
        assert!(y >= prev, "ex2 not monotonic at {v:#x}: {prev:#x} then {y:#x}");
        prev = y;
    }
    assert!(ex2(1 << 23) >= prev);
}

#[test]
fn sin_steps_back_at_most_its_error_bound() {
    // sin is computed in fixed point with a 2^-26 accumulator; one FP32
    // step of x below 1 moves sin by at most a few accumulator units, so
    // the truncated terms' noise can swap neighbours. Every FP32 x in
    // [2^-4, 1]: count the steps back and bound them by 2^-23.
    let mut prev = f32::from_bits(sin(presin(b(0.0625))));
    let mut back = 0u32;
    for x in (b(0.0625) + 1)..=b(1.0) {
        let y = f32::from_bits(sin(presin(x)));
        if y < prev {
            back += 1;
            assert!(prev - y <= 2f32.powi(-23), "sin steps back by {} at {x:#x}", prev - y);
        }
        prev = y;
    }
    eprintln!("sin: {back} steps back over [2^-4, 1]");
}

#[allow(clippy::too_many_arguments)]
fn good_bits_sample(
    name: &str,
    n: usize,
    floor: f64,
    gen: impl Fn(&mut SmallRng) -> u32,
    f: impl Fn(u32) -> u32,
    r: impl Fn(f64) -> f64,
) {
    good_bits_sample_min(22.0, name, n, floor, gen, f, r)
}

fn good_bits_sample_min(
    min: f64,
    name: &str,
    n: usize,
    floor: f64,
    gen: impl Fn(&mut SmallRng) -> u32,
    f: impl Fn(u32) -> u32,
    r: impl Fn(f64) -> f64,
) {
    let mut rng = SmallRng::seed_from_u64(0x5f0);
    let mut worst = (0.0f64, 0u32);
    for _ in 0..n {
        let x = gen(&mut rng);
        let y = f32::from_bits(f(x)) as f64;
        let want = r(f32::from_bits(x) as f64);
        let err = (y - want).abs() / want.abs().max(floor);
        assert!(!err.is_nan(), "{name}({x:#x}) gave NaN");
        if err > worst.0 {
            worst = (err, x);
        }
    }
    let bits = -worst.0.log2();
    assert!(
        bits >= min,
        "{name}: {bits:.2} good bits at {:#x} ({})",
        worst.1,
        f32::from_bits(worst.1)
    );
}

fn any_bits_where(pred: impl Fn(f32) -> bool) -> impl Fn(&mut SmallRng) -> u32 {
    move |rng: &mut SmallRng| loop {
        let x: u32 = rng.gen();
        let v = f32::from_bits(x);
        if pred(v) {
            return x;
        }
    }
}

const N: usize = 100_000;

#[test]
fn sampled_accuracy_rcp() {
    let dom = |v: f32| v.is_normal() && v.abs() <= 2f32.powi(126);
    good_bits_sample("rcp", N, 0.0, any_bits_where(dom), rcp, |v| 1.0 / v);
}

#[test]
fn sampled_accuracy_rsqrt() {
    let dom = |v: f32| v.is_normal() && v > 0.0;
    good_bits_sample("rsqrt", N, 0.0, any_bits_where(dom), rsqrt, |v| 1.0 / v.sqrt());
}

#[test]
fn sampled_accuracy_lg2() {
    let dom = |v: f32| v.is_normal() && v > 0.0;
    good_bits_sample("lg2", N, 1.0, any_bits_where(dom), lg2, f64::log2);
    // Near 1, where the result is near 0 (absolute error).
    good_bits_sample(
        "lg2 near 1",
        N,
        1.0,
        any_bits_where(|v| (0.5..2.0).contains(&v)),
        lg2,
        f64::log2,
    );
}

#[test]
fn sampled_accuracy_ex2() {
    let dom = |v: f32| (-126.0..128.0).contains(&v);
    good_bits_sample("ex2", N, 0.0, any_bits_where(dom), |x| ex2(preex2(x)), f64::exp2);
    // Uniform in value over [-126, 128) too (bit patterns crowd near 0).
    let uni = |rng: &mut SmallRng| rng.gen_range(-126.0f32..128.0).to_bits();
    good_bits_sample("ex2 uniform", N, 0.0, uni, |x| ex2(preex2(x)), f64::exp2);
}

#[test]
fn sampled_accuracy_sin_cos() {
    let pi = std::f64::consts::PI;
    let dom = move |v: f32| (v as f64).abs() <= pi;
    let uni = move |rng: &mut SmallRng| rng.gen_range(-std::f32::consts::PI..std::f32::consts::PI).to_bits();
    // Tesla's PRESIN (a 24-bit 2/pi, truncated 23-bit angle) costs up to
    // about 2 units of 2^-23 near |x| = pi; the bound is real hardware's
    // (2.73 units for sin, 3.20 for cos: 21.55 and 21.32 good bits).
    let hw_sin = -(2.73 * 2f64.powi(-23)).log2();
    let hw_cos = -(3.20 * 2f64.powi(-23)).log2();
    good_bits_sample_min(hw_sin, "sin", N, 1.0, any_bits_where(dom), |x| sin(presin(x)), f64::sin);
    good_bits_sample_min(hw_cos, "cos", N, 1.0, any_bits_where(dom), |x| cos(presin(x)), f64::cos);
    good_bits_sample_min(hw_sin, "sin uniform", N, 1.0, uni, |x| sin(presin(x)), f64::sin);
    good_bits_sample_min(hw_cos, "cos uniform", N, 1.0, uni, |x| cos(presin(x)), f64::cos);
}

proptest! {
    #[test]
    fn rcp_and_rsqrt_scale_exactly(f in 0u32..1 << 23, e in 2u32..250) {
        let x = (e << 23) | f;
        let x4 = ((e + 2) << 23) | f;
        // rcp(-x) = -rcp(x); rcp(4x) = rcp(x)/4; rsqrt(4x) = rsqrt(x)/2.
        prop_assert_eq!(rcp(x | 0x8000_0000), rcp(x) | 0x8000_0000);
        let (r, r4) = (f32::from_bits(rcp(x)), f32::from_bits(rcp(x4)));
        if r.is_normal() && r4.is_normal() {
            prop_assert_eq!(r4, r / 4.0);
        }
        prop_assert_eq!(f32::from_bits(rsqrt(x4)), f32::from_bits(rsqrt(x)) / 2.0);
    }

    #[test]
    fn lg2_of_a_power_of_two_is_exact(e in 1u32..255) {
        prop_assert_eq!(f32::from_bits(lg2(e << 23)), e as f32 - 127.0);
    }

    #[test]
    fn cos_is_sin_a_quarter_period_later(a in 0u32..1 << 25, neg: bool) {
        prop_assert_eq!(cos(a | (neg as u32) << 31), sin((a + (1 << 23)) & 0x1ff_ffff));
    }

    #[test]
    fn sin_cos_odd_even_within_tolerance(x in -3.0f32..3.0) {
        let s = f32::from_bits(sin(presin(x.to_bits())));
        let sn = f32::from_bits(sin(presin((-x).to_bits())));
        let c = f32::from_bits(cos(presin(x.to_bits())));
        let cn = f32::from_bits(cos(presin((-x).to_bits())));
        prop_assert!((s + sn).abs() <= 2f32.powi(-22));
        prop_assert!((c - cn).abs() <= 2f32.powi(-22));
    }
}

fn smrtl(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_smrtl")).args(args).output().unwrap()
}

#[test]
fn cli_sfu_accuracy_sample() {
    let o = smrtl(&["sfu-accuracy", "rcp", "--inputs", "sample:10000", "--threads", "2"]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{out}\n{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("| fn | domain | inputs |"), "{out}");
    assert!(out.contains("| rcp | "), "{out}");
    assert!(out.contains("| 10000 |"), "{out}");
    assert!(out.contains("all >= 22 good bits"), "{out}");
}

#[test]
fn cli_sfu_accuracy_bad_input() {
    for (args, needle) in [
        (&["sfu-accuracy", "tan"][..], "unknown SFU function `tan`"),
        (&["sfu-accuracy", "rcp", "--inputs", "sample:x"][..], "bad sample size"),
        (&["sfu-accuracy", "rcp", "--inputs", "some"][..], "bad --inputs"),
        (&["sfu-accuracy", "rcp", "--threads", "0"][..], "--threads"),
    ] {
        let o = smrtl(args);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?} succeeded");
        assert!(!e.contains("panicked"), "{e}");
        assert!(e.contains(needle), "{args:?}: {e}");
    }
}
