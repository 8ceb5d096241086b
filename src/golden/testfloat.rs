//! The Berkeley TestFloat-compatible vector checker behind `smrtl testfloat`.
//!
//! It reads `testfloat_gen` output line by line (streaming, so millions of
//! lines are fine), computes each line's operation with the reference
//! arithmetic ([`arith::ieee`], [`arith::tesla`], [`arith::sfu`]), prints
//! every mismatch (up to [`Options::max_errors`] in full, then only counts
//! them) and ends with a summary line such as
//! `f32_add near_even: 1000000 vectors, 0 mismatches`.
//!
//! Line format (TestFloat's): the operands, the expected result, then for the
//! IEEE ops the exception flags, all fixed-width hex without `0x` (8 digits
//! for f32, 16 for f64, 2 for the flags; bits as [`Flags`]), separated by
//! spaces, e.g. `3F800000 3F800000 40000000 00` for `f32_add`.
//!
//! * IEEE ops, TestFloat's names: `f32_add`, `f32_mul`, `f32_mulAdd`,
//!   `f64_add`, `f64_mul`, `f64_mulAdd`. Result and flags must match; an
//!   expected NaN is matched by any NaN unless `check_nans` (TestFloat's
//!   `-checkNaNs`) asks for the exact bits.
//! * Ours, same format without the flags column: `f32_add_tesla`,
//!   `f32_mul_tesla` (in the selected mode), `f32_mad_tesla` (nearest even
//!   only) and `sfu_rcp`, `sfu_rsqrt`, `sfu_lg2`, `sfu_ex2`, `sfu_sin`,
//!   `sfu_cos` (one operand: the SFU instruction's own input, i.e. after
//!   PREEX2/PRESIN for ex2/sin/cos; no rounding mode). Results, NaNs
//!   included, compare bit-exactly.
//!
//! Blank lines are skipped; any other line that does not have exactly the
//! expected fields is an error naming its line number.
//!
//! Exit codes of [`run`]: 0 all match, 1 some mismatch, 2 malformed input or
//! an option the op does not take.

use super::arith::{ieee, sfu, tesla, Flags, Round, Tininess};
use std::fmt;
use std::io::{BufRead, Write};
use std::str::FromStr;
use thiserror::Error;

/// An operation the checker knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    F32Add,
    F32Mul,
    F32MulAdd,
    F64Add,
    F64Mul,
    F64MulAdd,
    F32AddTesla,
    F32MulTesla,
    F32MadTesla,
    SfuRcp,
    SfuRsqrt,
    SfuLg2,
    SfuEx2,
    SfuSin,
    SfuCos,
}

impl Op {
    pub const ALL: [Op; 15] = [
        Op::F32Add,
        Op::F32Mul,
        Op::F32MulAdd,
        Op::F64Add,
        Op::F64Mul,
        Op::F64MulAdd,
        Op::F32AddTesla,
        Op::F32MulTesla,
        Op::F32MadTesla,
        Op::SfuRcp,
        Op::SfuRsqrt,
        Op::SfuLg2,
        Op::SfuEx2,
        Op::SfuSin,
        Op::SfuCos,
    ];
    /// The IEEE ops (TestFloat's own, with a flags column).
    pub const IEEE: [Op; 6] = {
        let a = Op::ALL;
        [a[0], a[1], a[2], a[3], a[4], a[5]]
    };

    /// The op's name on the command line (TestFloat's where it has one).
    pub fn name(self) -> &'static str {
        match self {
            Op::F32Add => "f32_add",
            Op::F32Mul => "f32_mul",
            Op::F32MulAdd => "f32_mulAdd",
            Op::F64Add => "f64_add",
            Op::F64Mul => "f64_mul",
            Op::F64MulAdd => "f64_mulAdd",
            Op::F32AddTesla => "f32_add_tesla",
            Op::F32MulTesla => "f32_mul_tesla",
            Op::F32MadTesla => "f32_mad_tesla",
            Op::SfuRcp => "sfu_rcp",
            Op::SfuRsqrt => "sfu_rsqrt",
            Op::SfuLg2 => "sfu_lg2",
            Op::SfuEx2 => "sfu_ex2",
            Op::SfuSin => "sfu_sin",
            Op::SfuCos => "sfu_cos",
        }
    }

    /// Number of operands on a line.
    pub fn operands(self) -> usize {
        match self {
            Op::F32MulAdd | Op::F64MulAdd | Op::F32MadTesla => 3,
            Op::SfuRcp | Op::SfuRsqrt | Op::SfuLg2 | Op::SfuEx2 | Op::SfuSin | Op::SfuCos => 1,
            _ => 2,
        }
    }

    /// Hex digits of an operand or result.
    pub fn digits(self) -> usize {
        match self {
            Op::F64Add | Op::F64Mul | Op::F64MulAdd => 16,
            _ => 8,
        }
    }

    /// IEEE ops carry a flags column and match any NaN by default.
    pub fn is_ieee(self) -> bool {
        Op::IEEE.contains(&self)
    }

    /// Whether the op honours a rounding mode other than nearest even.
    pub fn takes_rounding(self) -> bool {
        self.is_ieee() || matches!(self, Op::F32AddTesla | Op::F32MulTesla)
    }

    fn is_sfu(self) -> bool {
        self.operands() == 1
    }

    fn is_nan(self, x: u64) -> bool {
        if self.digits() == 16 {
            x & 0x7fff_ffff_ffff_ffff > 0x7ff0_0000_0000_0000
        } else {
            x & 0x7fff_ffff > 0x7f80_0000
        }
    }

    /// Computes the op on `ops` (as many as [`Op::operands`]): the result
    /// bits and, for IEEE ops, the flags (empty otherwise).
    pub fn compute(self, ops: &[u64], rm: Round, t: Tininess) -> (u64, Flags) {
        let w = |i: usize| ops[i] as u32;
        let f32r = |(r, f): (u32, Flags)| (r as u64, f);
        let none = |r: u32| (r as u64, Flags::NONE);
        match self {
            Op::F32Add => f32r(ieee::f32_add(w(0), w(1), rm, t)),
            Op::F32Mul => f32r(ieee::f32_mul(w(0), w(1), rm, t)),
            Op::F32MulAdd => f32r(ieee::f32_fma(w(0), w(1), w(2), rm, t)),
            Op::F64Add => ieee::f64_add(ops[0], ops[1], rm, t),
            Op::F64Mul => ieee::f64_mul(ops[0], ops[1], rm, t),
            Op::F64MulAdd => ieee::f64_fma(ops[0], ops[1], ops[2], rm, t),
            Op::F32AddTesla => none(tesla::fadd(w(0), w(1), rm)),
            Op::F32MulTesla => none(tesla::fmul(w(0), w(1), rm)),
            Op::F32MadTesla => none(tesla::fmad(w(0), w(1), w(2))),
            Op::SfuRcp => none(sfu::rcp(w(0))),
            Op::SfuRsqrt => none(sfu::rsqrt(w(0))),
            Op::SfuLg2 => none(sfu::lg2(w(0))),
            Op::SfuEx2 => none(sfu::ex2(w(0))),
            Op::SfuSin => none(sfu::sin(w(0))),
            Op::SfuCos => none(sfu::cos(w(0))),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Op {
    type Err = String;
    fn from_str(s: &str) -> Result<Op, String> {
        Op::ALL.into_iter().find(|op| op.name() == s).ok_or_else(|| {
            let names: Vec<_> = Op::ALL.iter().map(|op| op.name()).collect();
            format!("unknown operation `{s}` (expected one of: {})", names.join(", "))
        })
    }
}

/// TestFloat's name of a rounding mode.
pub fn round_name(rm: Round) -> &'static str {
    match rm {
        Round::NearEven => "near_even",
        Round::MinMag => "minMag",
        Round::Min => "min",
        Round::Max => "max",
        Round::NearMaxMag => "near_maxMag",
    }
}

/// Parses TestFloat's name of a rounding mode (`near_even`, `minMag`,
/// `min`, `max`, `near_maxMag`).
pub fn parse_round(s: &str) -> Result<Round, String> {
    Round::ALL
        .into_iter()
        .find(|&rm| round_name(rm) == s)
        .ok_or_else(|| format!("unknown rounding mode `{s}` (expected near_even, minMag, min, max or near_maxMag)"))
}

/// Parses `before` / `after` (tininess detection).
pub fn parse_tininess(s: &str) -> Result<Tininess, String> {
    match s {
        "before" => Ok(Tininess::BeforeRounding),
        "after" => Ok(Tininess::AfterRounding),
        _ => Err(format!("unknown tininess `{s}` (expected before or after)")),
    }
}

/// Rewrites TestFloat's single-dash spellings into ours, so that
/// `-tininessbefore`, `-tininessafter` and `-checkNaNs` work (clap already
/// takes `-rmin` as `-r min`). Other arguments pass through unchanged.
pub fn rewrite_testfloat_args<I: IntoIterator<Item = std::ffi::OsString>>(args: I) -> Vec<std::ffi::OsString> {
    args.into_iter()
        .map(|a| match a.to_str() {
            Some("-tininessbefore") => "--tininess=before".into(),
            Some("-tininessafter") => "--tininess=after".into(),
            Some("-checkNaNs") => "--check-nans".into(),
            _ => a,
        })
        .collect()
}

/// What to check and how.
#[derive(Debug, Clone)]
pub struct Options {
    pub op: Op,
    pub rm: Round,
    pub tininess: Tininess,
    /// Compare an expected NaN's bits exactly (IEEE ops; Tesla and SFU ops
    /// always do).
    pub check_nans: bool,
    /// Mismatches printed in full; the rest are only counted.
    pub max_errors: u64,
}

impl Options {
    pub fn new(op: Op) -> Options {
        Options {
            op,
            rm: Round::NearEven,
            tininess: Tininess::AfterRounding,
            check_nans: false,
            max_errors: 20,
        }
    }

    /// Rejects a rounding mode the op does not take.
    pub fn validate(&self) -> Result<(), CheckError> {
        if self.rm != Round::NearEven && !self.op.takes_rounding() {
            return Err(CheckError::Option(format!(
                "{} has no rounding mode but near_even (got {})",
                self.op,
                round_name(self.rm)
            )));
        }
        Ok(())
    }
}

/// What has been checked so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    pub op: Op,
    pub rm: Round,
    pub tininess: Tininess,
    pub vectors: u64,
    pub mismatches: u64,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.op)?;
        if !self.op.is_sfu() {
            write!(f, " {}", round_name(self.rm))?;
        }
        if self.op.is_ieee() && self.tininess == Tininess::BeforeRounding {
            write!(f, " tininess-before")?;
        }
        write!(f, ": {} vectors, {} mismatches", self.vectors, self.mismatches)
    }
}

/// Why checking stopped early.
#[derive(Debug, Error)]
pub enum CheckError {
    #[error("line {line}: {reason}")]
    Malformed { line: u64, reason: String },
    #[error("{0}")]
    Option(String),
    #[error("I/O error at line {line}: {source}")]
    Io { line: u64, source: std::io::Error },
}

fn hex_value(field: &[u8]) -> Option<u64> {
    let mut v = 0u64;
    for &c in field {
        let d = (c as char).to_digit(16)?;
        v = v << 4 | d as u64;
    }
    Some(v)
}

fn quoted(line: &[u8]) -> String {
    let s = String::from_utf8_lossy(line);
    let s = s.trim_end();
    if s.chars().count() > 100 {
        format!("{:?}...", s.chars().take(100).collect::<String>())
    } else {
        format!("{s:?}")
    }
}

/// Most fields on a line (three operands, result, flags).
const MAX_FIELDS: usize = 5;

/// Parses one line into its fields: operands, result, flags. `Ok(None)` for
/// a blank line.
fn parse_line(op: Op, line: &[u8]) -> Result<Option<([u64; MAX_FIELDS], usize)>, String> {
    let n = op.operands() + 1 + op.is_ieee() as usize;
    let mut vals = [0u64; MAX_FIELDS];
    let mut count = 0;
    for field in line.split(|c| c.is_ascii_whitespace()).filter(|f| !f.is_empty()) {
        if count == n {
            count += 1;
            break;
        }
        let width = if count == n - 1 && op.is_ieee() { 2 } else { op.digits() };
        let what = if count < op.operands() {
            "operand"
        } else if count == op.operands() {
            "result"
        } else {
            "flags"
        };
        match hex_value(field) {
            Some(v) if field.len() == width => vals[count] = v,
            _ => {
                return Err(format!(
                    "{what} {:?} (field {}) is not {width} hex digits, in {} for {op}",
                    String::from_utf8_lossy(field),
                    count + 1,
                    quoted(line),
                ))
            }
        }
        count += 1;
    }
    if count == 0 {
        return Ok(None);
    }
    if count != n {
        let flags = if op.is_ieee() { " and flags" } else { "" };
        return Err(format!(
            "expected {} hex operands, a result{flags} for {op}, got {}",
            op.operands(),
            quoted(line)
        ));
    }
    Ok(Some((vals, n)))
}

/// Checks every line of `input`, writing mismatches to `out` and counting
/// into `summary` (left as far as it got when an error stops the run).
pub fn check<R: BufRead, W: Write>(
    input: R,
    out: &mut W,
    opts: &Options,
    summary: &mut Summary,
) -> Result<(), CheckError> {
    let (rm, tin) = (opts.rm, opts.tininess);
    check_with(input, out, opts, summary, &mut |ops| {
        let (r, f) = opts.op.compute(ops, rm, tin);
        (r, Some(f))
    })
}

/// [`check`] with another implementation of the op (e.g. the RTL:
/// `smrtl testfloat --rtl`): `compute` maps the operands to the result and,
/// when it has them, the flags (`None`: the flags column is not compared).
pub fn check_with<R: BufRead, W: Write>(
    mut input: R,
    out: &mut W,
    opts: &Options,
    summary: &mut Summary,
    compute: &mut dyn FnMut(&[u64]) -> (u64, Option<Flags>),
) -> Result<(), CheckError> {
    opts.validate()?;
    let op = opts.op;
    let k = op.operands();
    let w = op.digits();
    let mut buf = Vec::with_capacity(128);
    let mut line_no = 0u64;
    loop {
        buf.clear();
        line_no += 1;
        let n = input
            .read_until(b'\n', &mut buf)
            .map_err(|source| CheckError::Io { line: line_no, source })?;
        if n == 0 {
            return Ok(());
        }
        let (vals, _) = match parse_line(op, &buf) {
            Ok(Some(v)) => v,
            Ok(None) => continue,
            Err(reason) => return Err(CheckError::Malformed { line: line_no, reason }),
        };
        let expected = vals[k];
        let expected_flags = vals[k + 1] as u8;
        let (got, flags) = compute(&vals[..k]);
        let got_flags = flags.unwrap_or(Flags(expected_flags));
        let result_ok = if op.is_ieee() && !opts.check_nans && op.is_nan(expected) {
            op.is_nan(got)
        } else {
            got == expected
        };
        let ok = result_ok && (!op.is_ieee() || got_flags.0 == expected_flags);
        summary.vectors += 1;
        if !ok {
            summary.mismatches += 1;
            if summary.mismatches <= opts.max_errors {
                let io = |source| CheckError::Io { line: line_no, source };
                write!(out, "line {line_no}: {op}").map_err(io)?;
                for v in &vals[..k] {
                    write!(out, " {v:0w$X}").map_err(io)?;
                }
                if op.is_ieee() {
                    writeln!(
                        out,
                        ": expected {expected:0w$X} {expected_flags:02X}, got {got:0w$X} {:02X}",
                        got_flags.0
                    )
                } else {
                    writeln!(out, ": expected {expected:0w$X}, got {got:0w$X}")
                }
                .map_err(io)?;
            }
        }
    }
}

/// The whole `smrtl testfloat` command: checks `input`, prints mismatches
/// and the summary on `out`, errors on `err`; returns the exit code (0 all
/// match, 1 mismatches, 2 malformed input or a bad option).
pub fn run<R: BufRead, W: Write, E: Write>(input: R, out: &mut W, err: &mut E, opts: &Options) -> std::io::Result<i32> {
    let (rm, tin) = (opts.rm, opts.tininess);
    run_with(input, out, err, opts, &mut |ops| {
        let (r, f) = opts.op.compute(ops, rm, tin);
        (r, Some(f))
    })
}

/// [`run`] with another implementation of the op (see [`check_with`]).
pub fn run_with<R: BufRead, W: Write, E: Write>(
    input: R,
    out: &mut W,
    err: &mut E,
    opts: &Options,
    compute: &mut dyn FnMut(&[u64]) -> (u64, Option<Flags>),
) -> std::io::Result<i32> {
    let mut summary = Summary {
        op: opts.op,
        rm: opts.rm,
        tininess: opts.tininess,
        vectors: 0,
        mismatches: 0,
    };
    let res = check_with(input, out, opts, &mut summary, compute);
    if summary.mismatches > opts.max_errors {
        writeln!(
            out,
            "({} more mismatches not shown)",
            summary.mismatches - opts.max_errors
        )?;
    }
    let code = match res {
        Ok(()) => (summary.mismatches > 0) as i32,
        Err(e @ CheckError::Io { .. }) => return Err(std::io::Error::other(e.to_string())),
        Err(e) => {
            writeln!(err, "error: {e}")?;
            2
        }
    };
    if opts.validate().is_ok() {
        writeln!(out, "{summary}")?;
    }
    out.flush()?;
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_str(opts: &Options, input: &str) -> (i32, String, String) {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = run(input.as_bytes(), &mut out, &mut err, opts).unwrap();
        (code, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
    }

    #[test]
    fn names_round_trip() {
        for op in Op::ALL {
            assert_eq!(op.name().parse::<Op>().unwrap(), op);
        }
        for rm in Round::ALL {
            assert_eq!(parse_round(round_name(rm)).unwrap(), rm);
        }
        assert!("f32_div".parse::<Op>().unwrap_err().contains("f32_mulAdd"));
        assert!(parse_round("nearest").is_err());
    }

    #[test]
    fn tesla_lines_match_and_mismatch() {
        let opts = Options::new(Op::F32AddTesla);
        // 1 + 1 = 2; 1 + denormal = 1 (flushed); inf - inf = canonical NaN.
        let good = "3F800000 3F800000 40000000\n3f800000 00000001 3F800000\n\n7F800000 FF800000 7FFFFFFF\n";
        let (code, out, _) = run_str(&opts, good);
        assert_eq!(code, 0, "{out}");
        assert_eq!(out, "f32_add_tesla near_even: 3 vectors, 0 mismatches\n");
        // Any other NaN than the canonical one is a mismatch for Tesla ops.
        let (code, out, _) = run_str(&opts, "7F800000 FF800000 7FC00000\n");
        assert_eq!(code, 1);
        assert!(
            out.contains("line 1: f32_add_tesla 7F800000 FF800000: expected 7FC00000, got 7FFFFFFF"),
            "{out}"
        );
    }

    #[test]
    fn max_errors_limits_the_listing() {
        let mut opts = Options::new(Op::F32MulTesla);
        opts.max_errors = 2;
        let bad = "3F800000 3F800000 00000000\n".repeat(5);
        let (code, out, _) = run_str(&opts, &bad);
        assert_eq!(code, 1);
        assert_eq!(out.matches("expected").count(), 2, "{out}");
        assert!(out.contains("(3 more mismatches not shown)"), "{out}");
        assert!(
            out.ends_with("f32_mul_tesla near_even: 5 vectors, 5 mismatches\n"),
            "{out}"
        );
    }

    #[test]
    fn malformed_lines_name_their_number() {
        let opts = Options::new(Op::F32MadTesla);
        let input = "3F800000 3F800000 3F800000 40000000\n3F800000 3F800000 40000000\n";
        let (code, out, err) = run_str(&opts, input);
        assert_eq!(code, 2);
        assert!(
            err.contains("line 2: expected 3 hex operands, a result for f32_mad_tesla"),
            "{err}"
        );
        assert!(out.contains("1 vectors, 0 mismatches"), "{out}");
        let (code, _, err) = run_str(&opts, "3F800000 3F80000G 3F800000 40000000\n");
        assert_eq!(code, 2);
        assert!(
            err.contains("line 1: operand \"3F80000G\" (field 2) is not 8 hex digits"),
            "{err}"
        );
        // Too short a field is rejected as well (fixed width).
        let (code, _, err) = run_str(&opts, "3F800000 0 3F800000 3F800000\n");
        assert_eq!(code, 2);
        assert!(err.contains("operand \"0\""), "{err}");
        // Too many fields.
        let (code, _, err) = run_str(&opts, "3F800000 3F800000 3F800000 40000000 00\n");
        assert_eq!(code, 2, "{err}");
    }

    #[test]
    fn rounding_mode_is_rejected_where_the_op_has_none() {
        let mut opts = Options::new(Op::F32MadTesla);
        opts.rm = Round::Min;
        let (code, out, err) = run_str(&opts, "");
        assert_eq!(code, 2);
        assert!(
            err.contains("f32_mad_tesla has no rounding mode but near_even"),
            "{err}"
        );
        assert!(out.is_empty());
    }

    #[test]
    fn argv_rewriting() {
        let args = [
            "smrtl",
            "testfloat",
            "f32_mul",
            "-rmin",
            "-tininessbefore",
            "-checkNaNs",
        ];
        let out = rewrite_testfloat_args(args.iter().map(|s| s.into()));
        let out: Vec<_> = out.iter().map(|s| s.to_str().unwrap()).collect();
        assert_eq!(
            out,
            [
                "smrtl",
                "testfloat",
                "f32_mul",
                "-rmin",
                "--tininess=before",
                "--check-nans"
            ]
        );
    }
}
