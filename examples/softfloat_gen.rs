//! A `testfloat_gen` stand-in built on Berkeley SoftFloat (crate
//! `softfloat-wrapper`): prints test vectors for an IEEE operation in exactly
//! TestFloat's line format, so `smrtl testfloat` can be checked on vectors
//! made by SoftFloat itself (Debian ships no testfloat package).
//!
//! ```text
//! cargo run --release --example softfloat_gen -- f32_mulAdd -rmin -n 1000000 --seed 7 \
//!     | cargo run --release -- testfloat f32_mulAdd -rmin
//! ```
//!
//! Ops: f32_add, f32_mul, f32_mulAdd, f64_add, f64_mul, f64_mulAdd (SoftFloat
//! has no Tesla op). Options: `-r MODE` / `-rMODE` (near_even, minMag, min,
//! max, near_maxMag), `-n COUNT` (default 10000), `--seed S` (default 1),
//! `-tininessbefore` / `-tininessafter` or `--tininess before|after`.
//!
//! Operands mix random bit patterns, edge values (zeros, the smallest and
//! largest denormals and normals, one, infinities, quiet and signaling
//! NaNs) and structured numbers (runs of ones or a few set bits in the
//! significand) whose exponents are drawn close to the other operands', so
//! that cancellation, ties, overflow and underflow all occur.

use anyhow::{bail, Context, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use softfloat_wrapper::{ExceptionFlags, Float, RoundingMode, F32, F64};
use std::io::{BufWriter, ErrorKind, Write};

#[derive(Clone, Copy, PartialEq)]
enum Op {
    Add,
    Mul,
    MulAdd,
}

/// A binary format's field widths.
#[derive(Clone, Copy)]
struct Format {
    exp_bits: u32,
    frac_bits: u32,
}

impl Format {
    const F32: Format = Format {
        exp_bits: 8,
        frac_bits: 23,
    };
    const F64: Format = Format {
        exp_bits: 11,
        frac_bits: 52,
    };
    fn max_field(self) -> u64 {
        (1 << self.exp_bits) - 1
    }
    fn bias(self) -> i64 {
        (1 << (self.exp_bits - 1)) - 1
    }
    fn frac_mask(self) -> u64 {
        (1 << self.frac_bits) - 1
    }
    fn field(self, x: u64) -> u64 {
        (x >> self.frac_bits) & self.max_field()
    }
    fn pack(self, neg: bool, field: u64, frac: u64) -> u64 {
        (neg as u64) << (self.exp_bits + self.frac_bits) | field << self.frac_bits | (frac & self.frac_mask())
    }
    fn digits(self) -> usize {
        ((1 + self.exp_bits + self.frac_bits) / 4) as usize
    }

    /// A significand's fraction bits: random, a run of ones, a few set bits,
    /// or all zeros / all ones.
    fn fraction(self, rng: &mut SmallRng) -> u64 {
        let n = self.frac_bits;
        match rng.gen_range(0..5) {
            0 | 1 => rng.gen::<u64>() & self.frac_mask(),
            2 => {
                let len = rng.gen_range(1..=n);
                let at = rng.gen_range(0..=n - len);
                ((1u64 << len) - 1) << at
            }
            3 => (0..rng.gen_range(1..4)).fold(0, |f, _| f | 1 << rng.gen_range(0..n)),
            _ => {
                if rng.gen() {
                    0
                } else {
                    self.frac_mask()
                }
            }
        }
    }

    /// One operand; `near` suggests an exponent field to stay close to.
    fn operand(self, rng: &mut SmallRng, near: Option<i64>) -> u64 {
        let neg = rng.gen();
        let top = self.max_field();
        match rng.gen_range(0..20) {
            0..=3 => rng.gen::<u64>() & (u64::MAX >> (64 - 1 - self.exp_bits - self.frac_bits)),
            4..=6 => {
                let (field, frac) = match rng.gen_range(0..10) {
                    0 => (0, 0),
                    1 => (0, 1),
                    2 => (0, self.frac_mask()),
                    3 => (1, 0),
                    4 => (self.bias() as u64, 0),
                    5 => (top - 1, self.frac_mask()),
                    6 => (top, 0),
                    7 => (top, 1 << (self.frac_bits - 1)),
                    8 => (top, 1),
                    _ => (self.bias() as u64, 1),
                };
                self.pack(neg, field, frac)
            }
            7 => self.pack(neg, 0, self.fraction(rng)),
            _ => {
                let field = match near {
                    Some(e) if rng.gen_range(0..4) != 0 => {
                        let spread = self.frac_bits as i64 + 3;
                        (e + rng.gen_range(-spread..=spread)).clamp(1, top as i64 - 1) as u64
                    }
                    _ => rng.gen_range(1..top),
                };
                self.pack(neg, field, self.fraction(rng))
            }
        }
    }

    /// Operands for `op`, exponents coupled so the operation is interesting.
    fn operands(self, rng: &mut SmallRng, op: Op) -> Vec<u64> {
        let a = self.operand(rng, None);
        let ea = self.field(a) as i64;
        match op {
            Op::Add => vec![a, self.operand(rng, Some(ea))],
            // Products near overflow, underflow and one.
            Op::Mul => {
                let target = match rng.gen_range(0..3) {
                    0 => 2 * self.bias() - ea,
                    1 => self.max_field() as i64 - ea + self.bias(),
                    _ => self.bias() - ea,
                };
                vec![a, self.operand(rng, Some(target))]
            }
            Op::MulAdd => {
                let eb = self.bias() + rng.gen_range(-8..=8);
                let b = self.operand(rng, Some(eb));
                let ep = ea + self.field(b) as i64 - self.bias();
                vec![a, b, self.operand(rng, Some(ep))]
            }
        }
    }
}

fn mode(name: &str) -> Result<RoundingMode> {
    Ok(match name {
        "near_even" => RoundingMode::TiesToEven,
        "minMag" => RoundingMode::TowardZero,
        "min" => RoundingMode::TowardNegative,
        "max" => RoundingMode::TowardPositive,
        "near_maxMag" => RoundingMode::TiesToAway,
        _ => bail!("unknown rounding mode `{name}` (near_even, minMag, min, max, near_maxMag)"),
    })
}

/// Runs `f` with SoftFloat's flags cleared and returns its result and flags.
fn with_flags(f: impl FnOnce() -> u64) -> (u64, u8) {
    ExceptionFlags::from_bits(0).set();
    let r = f();
    let mut flags = ExceptionFlags::default();
    flags.get();
    (r, flags.to_bits())
}

fn compute(fmt64: bool, op: Op, v: &[u64], rm: RoundingMode) -> (u64, u8) {
    if fmt64 {
        let x = |i: usize| F64::from_bits(v[i]);
        with_flags(|| match op {
            Op::Add => x(0).add(x(1), rm).to_bits(),
            Op::Mul => x(0).mul(x(1), rm).to_bits(),
            Op::MulAdd => x(0).fused_mul_add(x(1), x(2), rm).to_bits(),
        })
    } else {
        let x = |i: usize| F32::from_bits(v[i] as u32);
        with_flags(|| {
            (match op {
                Op::Add => x(0).add(x(1), rm).to_bits(),
                Op::Mul => x(0).mul(x(1), rm).to_bits(),
                Op::MulAdd => x(0).fused_mul_add(x(1), x(2), rm).to_bits(),
            }) as u64
        })
    }
}

struct Args {
    fmt64: bool,
    op: Op,
    rm: RoundingMode,
    count: u64,
    seed: u64,
    tininess_before: bool,
}

fn parse_args() -> Result<Args> {
    let mut args = std::env::args().skip(1);
    let mut op = None;
    let (mut rm, mut count, mut seed, mut before) = (RoundingMode::TiesToEven, 10_000u64, 1u64, false);
    while let Some(a) = args.next() {
        let mut value = |what: &str| args.next().with_context(|| format!("{what} needs a value"));
        match a.as_str() {
            "-r" | "--rounding" => rm = mode(&value("-r")?)?,
            "-n" => count = value("-n")?.parse().context("-n needs a count")?,
            "--seed" => seed = value("--seed")?.parse().context("--seed needs an integer")?,
            "-tininessbefore" => before = true,
            "-tininessafter" => before = false,
            "--tininess" => match value("--tininess")?.as_str() {
                "before" => before = true,
                "after" => before = false,
                t => bail!("unknown tininess `{t}` (before, after)"),
            },
            _ if a.starts_with("-r") => rm = mode(&a[2..])?,
            _ if a.starts_with('-') => bail!("unknown option `{a}`"),
            _ if op.is_none() => op = Some(a),
            _ => bail!("unexpected argument `{a}`"),
        }
    }
    let op = op.context("usage: softfloat_gen <f32_add|f32_mul|f32_mulAdd|f64_add|f64_mul|f64_mulAdd> [-rMODE] [-n COUNT] [--seed S] [-tininessbefore]")?;
    let (fmt64, op) = match op.as_str() {
        "f32_add" => (false, Op::Add),
        "f32_mul" => (false, Op::Mul),
        "f32_mulAdd" => (false, Op::MulAdd),
        "f64_add" => (true, Op::Add),
        "f64_mul" => (true, Op::Mul),
        "f64_mulAdd" => (true, Op::MulAdd),
        o => bail!("unknown operation `{o}` (f32_add, f32_mul, f32_mulAdd, f64_add, f64_mul, f64_mulAdd)"),
    };
    Ok(Args {
        fmt64,
        op,
        rm,
        count,
        seed,
        tininess_before: before,
    })
}

fn main() -> Result<()> {
    let args = parse_args()?;
    // SoftFloat's tininess mode is a (thread-local) global.
    let tininess = if args.tininess_before {
        softfloat_sys::softfloat_tininess_beforeRounding
    } else {
        softfloat_sys::softfloat_tininess_afterRounding
    };
    // SAFETY: writes a plain thread-local byte of the C library.
    unsafe { softfloat_sys::softfloat_detectTininess_write_helper(tininess) };
    let fmt = if args.fmt64 { Format::F64 } else { Format::F32 };
    let w = fmt.digits();
    let mut rng = SmallRng::seed_from_u64(args.seed);
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut write = || -> std::io::Result<()> {
        for _ in 0..args.count {
            let v = fmt.operands(&mut rng, args.op);
            let (r, flags) = compute(args.fmt64, args.op, &v, args.rm);
            for x in &v {
                write!(out, "{x:0w$X} ")?;
            }
            writeln!(out, "{r:0w$X} {flags:02X}")?;
        }
        out.flush()
    };
    match write() {
        // A closed pipe (`| head`) is a normal end.
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}
