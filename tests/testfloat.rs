//! `smrtl testfloat` end to end: vectors in Berkeley TestFloat's line format
//! are piped into the binary, which must accept SoftFloat's answers for every
//! IEEE op and rounding mode, report a corrupted line with its number and
//! operands (exit 1), name a malformed line (exit 2), and check the Tesla ops
//! on hand-checked vectors.
//!
//! The IEEE vectors are made here with `softfloat-wrapper` (Berkeley
//! SoftFloat 3), the same way `examples/softfloat_gen.rs` makes them.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use softfloat_wrapper::{ExceptionFlags, Float, RoundingMode, F32, F64};
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn smrtl_testfloat(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_smrtl"))
        .arg("testfloat")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_owned();
    // Write from another thread so a large input cannot deadlock on a full
    // stdout pipe.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const IEEE_OPS: [&str; 6] = ["f32_add", "f32_mul", "f32_mulAdd", "f64_add", "f64_mul", "f64_mulAdd"];
const MODES: [(&str, RoundingMode); 5] = [
    ("near_even", RoundingMode::TiesToEven),
    ("minMag", RoundingMode::TowardZero),
    ("min", RoundingMode::TowardNegative),
    ("max", RoundingMode::TowardPositive),
    ("near_maxMag", RoundingMode::TiesToAway),
];

/// An operand of `bits` width (32 or 64): random bits, an edge value, or a
/// number whose exponent field is near `near`.
fn operand(rng: &mut SmallRng, bits: u32, near: Option<i64>) -> u64 {
    let (eb, fb) = if bits == 32 { (8u32, 23u32) } else { (11, 52) };
    let top = (1u64 << eb) - 1;
    let fmask = (1u64 << fb) - 1;
    let sign = (rng.gen::<bool>() as u64) << (bits - 1);
    let frac = match rng.gen_range(0..3) {
        0 => rng.gen::<u64>() & fmask,
        1 => fmask >> rng.gen_range(0..fb),
        _ => 1 << rng.gen_range(0..fb),
    };
    let field = match rng.gen_range(0..12) {
        0..=1 => return rng.gen::<u64>() >> (64 - bits),
        2 => 0,
        3 => top,
        4 => return sign | [0, 1, fmask, 1 << fb, top << fb][rng.gen_range(0..5)],
        _ => match near {
            Some(e) => (e + rng.gen_range(-(fb as i64 + 3)..=fb as i64 + 3)).clamp(1, top as i64 - 1) as u64,
            None => rng.gen_range(1..top),
        },
    };
    sign | field << fb | frac
}

/// `count` lines of TestFloat vectors for `op` in mode `rm`, computed by
/// SoftFloat (tininess as already set in this thread).
fn softfloat_vectors(op: &str, rm: RoundingMode, count: usize, seed: u64) -> String {
    let mut rng = SmallRng::seed_from_u64(seed);
    let bits = if op.starts_with("f32") { 32 } else { 64 };
    let bias = if bits == 32 { 127 } else { 1023 };
    let w = (bits / 4) as usize;
    let mut text = String::new();
    for _ in 0..count {
        let a = operand(&mut rng, bits, None);
        let ea = ((a << 1) >> (if bits == 32 { 56 } else { 53 })) as i64 & if bits == 32 { 0xff } else { 0x7ff };
        let v: Vec<u64> = match op.split('_').nth(1).unwrap() {
            "add" => vec![a, operand(&mut rng, bits, Some(ea))],
            "mul" => {
                let near = 2 * bias - ea + rng.gen_range(-2..=2);
                vec![a, operand(&mut rng, bits, Some(near))]
            }
            _ => {
                let b = operand(&mut rng, bits, Some(bias));
                let eb =
                    ((b << 1) >> (if bits == 32 { 56 } else { 53 })) as i64 & if bits == 32 { 0xff } else { 0x7ff };
                vec![a, b, operand(&mut rng, bits, Some(ea + eb - bias))]
            }
        };
        ExceptionFlags::from_bits(0).set();
        let r = if bits == 32 {
            let x = |i: usize| F32::from_bits(v[i] as u32);
            (match v.len() {
                3 => x(0).fused_mul_add(x(1), x(2), rm),
                _ if op.ends_with("add") => x(0).add(x(1), rm),
                _ => x(0).mul(x(1), rm),
            })
            .to_bits() as u64
        } else {
            let x = |i: usize| F64::from_bits(v[i]);
            (match v.len() {
                3 => x(0).fused_mul_add(x(1), x(2), rm),
                _ if op.ends_with("add") => x(0).add(x(1), rm),
                _ => x(0).mul(x(1), rm),
            })
            .to_bits()
        };
        let mut flags = ExceptionFlags::default();
        flags.get();
        for x in &v {
            text += &format!("{x:0w$X} ");
        }
        text += &format!("{r:0w$X} {:02X}\n", flags.to_bits());
    }
    text
}

#[test]
fn softfloat_vectors_pass_for_every_ieee_op_and_mode() {
    for (i, op) in IEEE_OPS.iter().enumerate() {
        for (j, (name, rm)) in MODES.iter().enumerate() {
            let text = softfloat_vectors(op, *rm, 2000, (i * 10 + j) as u64);
            // TestFloat's attached spelling for half the runs, ours for the rest.
            let attached = format!("-r{name}");
            let args: Vec<&str> = if j % 2 == 0 {
                vec![op, &attached]
            } else {
                vec![op, "-r", name]
            };
            let o = smrtl_testfloat(&args, &text);
            let out = stdout(&o);
            assert_eq!(o.status.code(), Some(0), "{op} {name}:\n{out}{}", stderr(&o));
            assert!(
                out.ends_with(&format!("{op} {name}: 2000 vectors, 0 mismatches\n")),
                "{out}"
            );
        }
    }
}

#[test]
fn softfloat_vectors_pass_with_tininess_before_rounding() {
    // SoftFloat's tininess mode is a thread-local global of the C library.
    unsafe { softfloat_sys::softfloat_detectTininess_write_helper(softfloat_sys::softfloat_tininess_beforeRounding) };
    for op in ["f32_mul", "f32_mulAdd", "f64_mul", "f64_mulAdd"] {
        for (name, rm) in MODES {
            let text = softfloat_vectors(op, rm, 1000, 99);
            let spelled = format!("-r{name}");
            let o = smrtl_testfloat(&[op, &spelled, "-tininessbefore"], &text);
            let out = stdout(&o);
            assert_eq!(o.status.code(), Some(0), "{op} {name}:\n{out}{}", stderr(&o));
            assert!(out.contains(&format!("{op} {name} tininess-before: 1000 vectors, 0 mismatches")));
        }
    }
    unsafe { softfloat_sys::softfloat_detectTininess_write_helper(softfloat_sys::softfloat_tininess_afterRounding) };
}

#[test]
fn the_checker_sees_tininess_mode_differences() {
    // 0x1FFFFFFE = (1 - 2^-23) * 2^-63 times 0x20000001 = (1 + 2^-23) *
    // 2^-63 is (1 - 2^-46) * 2^-126, just below 2^-126. Nearest even gives
    // 2^-126 (0x00800000), inexact. Rounded to 24 bits with an unbounded
    // exponent it is 2^-126 too, so after rounding it is not tiny (flags
    // 01); before rounding it is (underflow + inexact, 03).
    let after = "1FFFFFFE 20000001 00800000 01\n";
    let before = "1FFFFFFE 20000001 00800000 03\n";
    assert_eq!(smrtl_testfloat(&["f32_mul"], after).status.code(), Some(0));
    assert_eq!(
        smrtl_testfloat(&["f32_mul", "-tininessbefore"], before).status.code(),
        Some(0)
    );
    assert_eq!(
        smrtl_testfloat(&["f32_mul", "--tininess", "before"], before)
            .status
            .code(),
        Some(0)
    );
    assert_eq!(smrtl_testfloat(&["f32_mul"], before).status.code(), Some(1));
}

#[test]
fn a_corrupted_result_is_reported_with_its_line_and_operands() {
    let text = softfloat_vectors("f32_add", RoundingMode::TiesToEven, 50, 5);
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    // Flip bit 0 of line 7's result (field 3); keep the rest.
    let fields: Vec<&str> = lines[6].split(' ').collect();
    let good = u32::from_str_radix(fields[2], 16).unwrap();
    let bad = good ^ 1;
    let wrong = format!("{} {} {bad:08X} {}", fields[0], fields[1], fields[3]);
    let expect = format!(
        "line 7: f32_add {} {}: expected {bad:08X} {}, got {good:08X} {}",
        fields[0], fields[1], fields[3], fields[3]
    );
    lines[6] = wrong;
    let o = smrtl_testfloat(&["f32_add"], &(lines.join("\n") + "\n"));
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains(&expect), "wanted `{expect}` in:\n{out}");
    assert!(out.ends_with("f32_add near_even: 50 vectors, 1 mismatches\n"), "{out}");
}

#[test]
fn wrong_flags_are_a_mismatch() {
    // 1 + 1 = 2 exactly: flags 00. Claiming inexact (01) must fail.
    let o = smrtl_testfloat(&["f32_add"], "3F800000 3F800000 40000000 01\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("line 1: f32_add 3F800000 3F800000: expected 40000000 01, got 40000000 00"));
}

#[test]
fn ieee_nans_match_any_nan_unless_checked() {
    // inf - inf: invalid (10), some NaN. TestFloat's default accepts any NaN.
    let line = "7F800000 FF800000 7FC00001 10\n";
    assert_eq!(smrtl_testfloat(&["f32_add"], line).status.code(), Some(0));
    // With -checkNaNs the bits must match; no implementation returns this
    // payload for inf - inf.
    assert_eq!(smrtl_testfloat(&["f32_add", "-checkNaNs"], line).status.code(), Some(1));
    assert_eq!(
        smrtl_testfloat(&["f32_add", "--check-nans"], line).status.code(),
        Some(1)
    );
    // A non-NaN result where a NaN is expected still fails.
    let o = smrtl_testfloat(&["f32_add"], "7F800000 3F800000 7FC00000 00\n");
    assert_eq!(o.status.code(), Some(1));
}

#[test]
fn a_malformed_line_exits_2_naming_it() {
    let text = softfloat_vectors("f64_mul", RoundingMode::TowardZero, 20, 9);
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    // Line 17 loses its flags column.
    let cut = lines[16].rfind(' ').unwrap();
    lines[16].truncate(cut);
    let o = smrtl_testfloat(&["f64_mul", "-rminMag"], &(lines.join("\n") + "\n"));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("line 17: expected 2 hex operands, a result and flags for f64_mul, got"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    // The summary of what was checked before it.
    assert!(stdout(&o).contains("f64_mul minMag: 16 vectors, 0 mismatches"));
    // f32 operands where f64 ones are expected: wrong width.
    let o = smrtl_testfloat(&["f64_add"], "3F800000 3F800000 40000000 00\n");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("line 1: operand \"3F800000\" (field 1) is not 16 hex digits"));
}

#[test]
fn bad_options_are_clean_errors() {
    let o = smrtl_testfloat(&["f32_sqrt"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown operation `f32_sqrt`"));
    let o = smrtl_testfloat(&["f32_add", "-rnearest"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown rounding mode `nearest`"));
    let o = smrtl_testfloat(&["f32_mad_tesla", "-rmax"], "");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("f32_mad_tesla has no rounding mode but near_even"));
}

/// Hand-checked Tesla vectors (the reasoning is in the unit tests of
/// `src/golden/arith/tesla.rs`; repeated briefly here).
#[test]
fn tesla_ops_on_hand_checked_vectors() {
    // FMAD: truncated product (1+2^-23)^2 -> 1+2^-22, minus (1+2^-22) = +0
    // (IEEE FMA: 2^-46); 1.5*(1+2^-23) truncated, -1.5 -> 2^-23; zero c ->
    // rounded product 0x3FC00002; 2^-126 - 2^-150 on the denormal grid ->
    // 2^-126; c infinite -> c; inf*0 -> canonical NaN.
    let mad = "\
3F800001 3F800001 BF800002 00000000
3F800001 3F800001 33800000 3F800002
3FC00000 3F800001 BFC00000 34000000
3FC00000 3F800001 00000000 3FC00002
9A000000 1A000000 00800000 00800000
3F800000 40000000 FF800000 FF800000
7F800000 00000000 3F800000 7FFFFFFF
";
    let o = smrtl_testfloat(&["f32_mad_tesla"], mad);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).contains("f32_mad_tesla near_even: 7 vectors, 0 mismatches"));

    // FADD toward +inf: 1 + 2^-24 -> 1 + 2^-23; 1 + denormal -> 1 (flushed);
    // 1 - 1 -> +0; MAX + MAX -> inf.
    let add_max = "\
3F800000 33800000 3F800001
3F800000 00000001 3F800000
3F800000 BF800000 00000000
7F7FFFFF 7F7FFFFF 7F800000
";
    let o = smrtl_testfloat(&["f32_add_tesla", "-rmax"], add_max);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    // Toward -inf: 1 - 1 is still +0 (IEEE: -0); -MAX - MAX -> -inf.
    let add_min = "3F800000 BF800000 00000000\nFF7FFFFF FF7FFFFF FF800000\n";
    let o = smrtl_testfloat(&["f32_add_tesla", "-r", "min"], add_min);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    // FMUL toward zero: 3 * (1+2^-23) -> 0x40400001; (1-2^-46)*2^-126 ->
    // (1-2^-24)*2^-126 -> flushed +0; 2^64 * 2^64 -> MAX.
    let mul = "\
40400000 3F800001 40400001
1FFFFFFE 20000001 00000000
5F800000 5F800000 7F7FFFFF
";
    let o = smrtl_testfloat(&["f32_mul_tesla", "-rminMag"], mul);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));

    // A quiet NaN other than the canonical one is wrong for Tesla ops.
    let o = smrtl_testfloat(&["f32_mul_tesla"], "7F800000 00000000 7FC00000\n");
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("line 1: f32_mul_tesla 7F800000 00000000: expected 7FC00000, got 7FFFFFFF"));
}

#[test]
fn sfu_lines_are_parsed_and_compared() {
    // Parsing only: the expected value is made by the function under test,
    // so this checks the line format and dispatch, not the SFU algorithm
    // (which has its own tests).
    use smrtl::golden::arith::sfu;
    let x = 0x4040_0000; // 3.0
    let ops: [(&str, fn(u32) -> u32); 6] = [
        ("sfu_rcp", sfu::rcp),
        ("sfu_rsqrt", sfu::rsqrt),
        ("sfu_lg2", sfu::lg2),
        ("sfu_ex2", sfu::ex2),
        ("sfu_sin", sfu::sin),
        ("sfu_cos", sfu::cos),
    ];
    for (name, f) in ops {
        let r = f(x);
        let o = smrtl_testfloat(&[name], &format!("{x:08X} {r:08X}\n"));
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stdout(&o));
        assert!(stdout(&o).contains(&format!("{name}: 1 vectors, 0 mismatches")));
        let o = smrtl_testfloat(&[name], &format!("{x:08X} {:08X}\n", r ^ 1));
        assert_eq!(o.status.code(), Some(1), "{name}");
        // Two fields only: a flags column is malformed for SFU ops.
        let o = smrtl_testfloat(&[name], &format!("{x:08X} {r:08X} 00\n"));
        assert_eq!(o.status.code(), Some(2), "{name}");
    }
}
