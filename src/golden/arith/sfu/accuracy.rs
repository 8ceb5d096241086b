//! The SFU accuracy sweep behind `smrtl sfu-accuracy`.
//!
//! Every FP32 bit pattern in a function's domain (or a random sample of
//! them) goes through the bit-exact SFU path (range reduction included) and
//! is compared with the host's f64 libm (`1/x`, `1/sqrt`, `log2`, `exp2`,
//! `sin`, `cos` of the exactly converted input). Those are within one f64
//! ulp (2^-52 relative), 29 bits below an FP32 ulp, so they stand in for
//! the correctly rounded value.
//!
//! Error measures, per input, with `y` the SFU result and `r` the reference:
//! * `err = |y - r| / max(|r|, floor)`; `floor` is 0 for rcp, rsqrt, ex2
//!   (relative error) and 1 for lg2, sin, cos (absolute error where
//!   `|r| < 1`, as the literature and CUDA's documentation state lg2 and
//!   sin/cos accuracy; relative where `|r| >= 1`).
//! * good bits = `-log2(max err)` over the domain.
//! * ulp error = `|y - r| / ulp(r)`, `ulp(r) = 2^(max(floor(log2|r|), -126) - 23)`.
//!   For lg2 and sin/cos it is large where the result is near zero (the
//!   fixed-point path has an absolute error there), which is why their good
//!   bits are defined on the absolute error.
//!
//! The sweep splits the 2^32 patterns into chunks handed out to
//! `std::thread::scope` workers through an atomic counter; results merge
//! deterministically (on equal errors, the smaller bit pattern is the worst).

use indicatif::{ProgressBar, ProgressStyle};
use rand::{rngs::SmallRng, Rng, SeedableRng};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use super::Table;

/// A function as swept: SFU path, domain, reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    Rcp,
    Rsqrt,
    Lg2,
    Ex2,
    Sin,
    Cos,
    /// sin over every finite input (Tesla's PRESIN: large arguments lose
    /// accuracy as on the GPU).
    SinWide,
    CosWide,
}

impl Func {
    /// The six functions over their acceptance domains (the default sweep).
    pub const MAIN: [Func; 6] = [Func::Rcp, Func::Rsqrt, Func::Lg2, Func::Ex2, Func::Sin, Func::Cos];

    /// [`Func::MAIN`], then sin/cos over every finite input (named only).
    pub const ALL: [Func; 8] = [
        Func::Rcp,
        Func::Rsqrt,
        Func::Lg2,
        Func::Ex2,
        Func::Sin,
        Func::Cos,
        Func::SinWide,
        Func::CosWide,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Func::Rcp => "rcp",
            Func::Rsqrt => "rsqrt",
            Func::Lg2 => "lg2",
            Func::Ex2 => "ex2",
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::SinWide => "sin-wide",
            Func::CosWide => "cos-wide",
        }
    }

    pub fn parse(s: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == s)
    }

    pub fn domain(self) -> &'static str {
        match self {
            Func::Rcp => "normal x, |x| in [2^-126, 2^126] (result normal)",
            Func::Rsqrt => "positive normal x",
            Func::Lg2 => "positive normal x",
            Func::Ex2 => "x in [-126, 128) (incl. 0 and denormals)",
            Func::Sin | Func::Cos => "|x| <= pi (incl. 0 and denormals)",
            Func::SinWide | Func::CosWide => "every finite x",
        }
    }

    /// `floor` of the error measure (see the module doc).
    pub fn floor(self) -> f64 {
        match self {
            Func::Rcp | Func::Rsqrt | Func::Ex2 => 0.0,
            _ => 1.0,
        }
    }

    pub fn measure(self) -> &'static str {
        if self.floor() == 0.0 {
            "relative"
        } else {
            "abs (rel if |r|>=1)"
        }
    }

    pub fn in_domain(self, x: u32) -> bool {
        let e = (x >> 23) & 0xff;
        let neg = x >> 31 != 0;
        let v = f32::from_bits(x) as f64;
        match self {
            Func::Rcp => e != 0 && e != 0xff && v.abs() <= 2f64.powi(126),
            Func::Rsqrt | Func::Lg2 => e != 0 && e != 0xff && !neg,
            Func::Ex2 => (-126.0..128.0).contains(&v),
            Func::Sin | Func::Cos => v.abs() <= std::f64::consts::PI,
            Func::SinWide | Func::CosWide => e != 0xff,
        }
    }

    /// The SFU path, range reduction included.
    pub fn sfu(self, x: u32) -> u32 {
        self.sfu_with(None, x)
    }

    /// The SFU path with table `t` instead of the checked-in one (the
    /// explorer's candidates).
    pub fn sfu_with(self, t: Option<&Table>, x: u32) -> u32 {
        use super::*;
        match self {
            Func::Rcp => rcp_with(t.unwrap_or(&RCP), x),
            Func::Rsqrt => rsqrt_with(t.unwrap_or(&RSQRT), x),
            Func::Lg2 => lg2_with(t.unwrap_or(&LG2), x),
            Func::Ex2 => ex2_with(t.unwrap_or(&EX2), preex2(x)),
            Func::Sin | Func::SinWide => sin_with(t.unwrap_or(&SIN), presin(x)),
            Func::Cos | Func::CosWide => cos_with(t.unwrap_or(&SIN), presin(x)),
        }
    }

    /// Index of this function's table in [`super::gen::specs`].
    pub fn table_index(self) -> usize {
        match self {
            Func::Rcp => 0,
            Func::Rsqrt => 1,
            Func::Lg2 => 2,
            Func::Ex2 => 3,
            _ => 4,
        }
    }

    /// The f64 reference.
    pub fn reference(self, x: u32) -> f64 {
        let v = f32::from_bits(x) as f64;
        match self {
            Func::Rcp => 1.0 / v,
            Func::Rsqrt => 1.0 / v.sqrt(),
            Func::Lg2 => v.log2(),
            Func::Ex2 => v.exp2(),
            Func::Sin | Func::SinWide => v.sin(),
            Func::Cos | Func::CosWide => v.cos(),
        }
    }

    /// (err as defined in the module doc, ulp error) of one input.
    pub fn error(self, x: u32) -> (f64, f64) {
        self.error_with(None, x)
    }

    /// [`Func::error`] with table `t`.
    pub fn error_with(self, t: Option<&Table>, x: u32) -> (f64, f64) {
        let y = f32::from_bits(self.sfu_with(t, x)) as f64;
        let r = self.reference(x);
        if !y.is_finite() {
            return (f64::INFINITY, f64::INFINITY);
        }
        let d = (y - r).abs();
        let err = d / r.abs().max(self.floor());
        // floor(log2|r|) from the f64 exponent field (r is never an f64
        // subnormal here: those are below every FP32 value).
        let e = ((r.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        let ulp = f64::from_bits((((e.max(-126) - 23) + 1023) as u64) << 52);
        (err, d / ulp)
    }
}

/// Which inputs to sweep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Inputs {
    /// All 2^32 bit patterns, filtered to the domain.
    All,
    /// This many random patterns from the domain (seeded).
    Sample(u64),
}

impl std::str::FromStr for Inputs {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "all" {
            return Ok(Inputs::All);
        }
        if let Some(n) = s.strip_prefix("sample:") {
            return match n.parse::<u64>() {
                Ok(n) if n > 0 => Ok(Inputs::Sample(n)),
                _ => Err(format!("bad sample size `{n}` (want a positive integer)")),
            };
        }
        Err(format!("bad --inputs `{s}` (want `all` or `sample:N`)"))
    }
}

/// One function's result.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    pub func: Func,
    pub inputs: u64,
    pub max_err: f64,
    pub max_ulp: f64,
    /// Input with the largest `err`, and its SFU result.
    pub worst: u32,
    pub worst_out: u32,
    /// Input with the largest ulp error.
    pub worst_ulp: u32,
}

impl Row {
    pub fn good_bits(&self) -> f64 {
        if self.max_err == 0.0 {
            f64::INFINITY
        } else {
            -self.max_err.log2()
        }
    }
}

#[derive(Clone, Copy)]
struct Acc {
    n: u64,
    err: f64,
    worst: u32,
    ulp: f64,
    worst_ulp: u32,
}

impl Acc {
    const EMPTY: Acc = Acc {
        n: 0,
        err: -1.0,
        worst: 0,
        ulp: -1.0,
        worst_ulp: 0,
    };
    fn add(&mut self, func: Func, t: Option<&Table>, x: u32) {
        let (err, ulp) = func.error_with(t, x);
        self.n += 1;
        // NaN-safe: a NaN error counts as infinite.
        let err = if err.is_nan() { f64::INFINITY } else { err };
        let ulp = if ulp.is_nan() { f64::INFINITY } else { ulp };
        if err > self.err || (err == self.err && x < self.worst) {
            self.err = err;
            self.worst = x;
        }
        if ulp > self.ulp || (ulp == self.ulp && x < self.worst_ulp) {
            self.ulp = ulp;
            self.worst_ulp = x;
        }
    }
    fn merge(&mut self, o: &Acc) {
        self.n += o.n;
        if o.err > self.err || (o.err == self.err && o.worst < self.worst) {
            self.err = o.err;
            self.worst = o.worst;
        }
        if o.ulp > self.ulp || (o.ulp == self.ulp && o.worst_ulp < self.worst_ulp) {
            self.ulp = o.ulp;
            self.worst_ulp = o.worst_ulp;
        }
    }
}

/// Random domain members (deterministic for a seed).
pub fn sample_domain(func: Func, n: u64, seed: u64) -> Vec<u32> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut v = Vec::with_capacity(n as usize);
    while (v.len() as u64) < n {
        let x: u32 = rng.gen();
        if func.in_domain(x) {
            v.push(x);
        }
    }
    v
}

/// Sweep one function over `inputs` with `threads` workers; `progress`
/// shows an indicatif bar on stderr.
pub fn sweep(func: Func, inputs: Inputs, threads: usize, progress: bool, seed: u64) -> Row {
    sweep_with(func, None, inputs, threads, progress, seed)
}

/// [`sweep`] with table `t` instead of the checked-in one.
pub fn sweep_with(func: Func, t: Option<&Table>, inputs: Inputs, threads: usize, progress: bool, seed: u64) -> Row {
    let threads = threads.max(1);
    let sample = match inputs {
        Inputs::All => None,
        Inputs::Sample(n) => Some(sample_domain(func, n, seed)),
    };
    const CHUNK: u64 = 1 << 20;
    let total: u64 = match &sample {
        None => 1 << 32,
        Some(s) => s.len() as u64,
    };
    let chunks = total.div_ceil(CHUNK);
    let bar = if progress {
        let b = ProgressBar::new(total);
        b.set_style(
            ProgressStyle::with_template("{prefix:>9} [{elapsed_precise}] {wide_bar} {percent:>3}% eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_prefix(func.name());
        b
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicU64::new(0);
    let result = Mutex::new(Acc::EMPTY);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let mut acc = Acc::EMPTY;
                loop {
                    let c = next.fetch_add(1, Ordering::Relaxed);
                    if c >= chunks {
                        break;
                    }
                    let lo = c * CHUNK;
                    let hi = (lo + CHUNK).min(total);
                    match &sample {
                        None => {
                            for x in lo..hi {
                                let x = x as u32;
                                if func.in_domain(x) {
                                    acc.add(func, t, x);
                                }
                            }
                        }
                        Some(v) => {
                            for &x in &v[lo as usize..hi as usize] {
                                acc.add(func, t, x);
                            }
                        }
                    }
                    bar.inc(hi - lo);
                }
                result.lock().unwrap_or_else(|e| e.into_inner()).merge(&acc);
            });
        }
    });
    bar.finish_and_clear();
    let acc = result.into_inner().unwrap_or_else(|e| e.into_inner());
    Row {
        func,
        inputs: acc.n,
        max_err: acc.err.max(0.0),
        max_ulp: acc.ulp.max(0.0),
        worst: acc.worst,
        worst_out: func.sfu_with(t, acc.worst),
        worst_ulp: acc.worst_ulp,
    }
}

/// The results as a Markdown table.
pub fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    s.push_str("| fn | domain | inputs | error measure | max err | good bits | max ulp | worst input (err) | SFU result | f64 reference | worst input (ulp) |\n");
    s.push_str("|---|---|---:|---|---:|---:|---:|---|---|---|---|\n");
    for r in rows {
        let x = f32::from_bits(r.worst);
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {:.3e} | {:.2} | {:.2} | {:#010x} ({:e}) | {:e} | {:e} | {:#010x} ({:e}) |",
            r.func.name(),
            r.func.domain(),
            r.inputs,
            r.func.measure(),
            r.max_err,
            r.good_bits(),
            r.max_ulp,
            r.worst,
            x,
            f32::from_bits(r.worst_out),
            r.func.reference(r.worst),
            r.worst_ulp,
            f32::from_bits(r.worst_ulp),
        );
    }
    s
}
