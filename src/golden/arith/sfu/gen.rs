//! The SFU coefficient-table generator (floating point lives here only).
//!
//! For each function ([`specs`]) and each table row (one segment of the
//! reduced input, `t = X_lo / 2^n` in `[0, 1)`), an enhanced-minimax fit
//! that knows the coefficients will be rounded and the products truncated:
//!
//! 1. `C2`: the quadratic coefficient of the interpolating polynomial at
//!    the three Chebyshev nodes of the segment (close to the minimax one),
//!    scaled and rounded; the search below also tries its neighbours.
//! 2. `C1`: for each `C2` candidate, the residual `f - term2(C2)` (computed
//!    with the hardware's truncated squarer and floor shift) gets the slope
//!    of its minimax line (the end-point secant); `C1` is that slope rounded
//!    and its neighbours.
//! 3. `C0`: for each (`C2`, `C1`), the mid-range of the remaining residual
//!    `f - term2 - term1` over the segment's sample points, rounded; the
//!    pair with the smallest maximum error wins.
//!
//! The residuals are taken on every `X_lo` when `n <= 12`, else on 4097
//! evenly spaced `X_lo` values (both ends included). Rows whose exact value
//! at `t = 0` is representable in the accumulator (rcp(1), rsqrt(1), lg2(1),
//! ex2(0), sin(0), cos(0)) are refitted with `C0` pinned to it when that
//! costs at most one accumulator unit more than the table's worst row, so
//! those points are exact.
//!
//! Then, row by row, a `C0` whose first value would step back past the
//! previous row's last value (a non-monotonic step at the boundary) is moved
//! to that value when that costs at most the pinning slack; otherwise the
//! row is left (and listed in the generated comment).
//!
//! `C1` and `C2` scales (their fraction bits `F1`, `F2`) are the largest
//! that keep every coefficient inside its width; they fix the shifts
//! `s1 = F1 + n - F` and `s2 = F2 + 17 - F`.
//!
//! Used by `cargo run -- gen-sfu-tables`, which writes `tables.rs`, and by
//! the unit test that checks the checked-in tables are current. The output
//! is deterministic (it depends on the host libm's `sin`, `cos`, `log2`,
//! `exp2` being the usual correctly-rounded-in-practice glibc/musl ones).

use super::{term1, term2, Table};

/// What to fit for one function.
#[derive(Clone, Copy)]
pub struct Spec {
    /// Lower-case function name.
    pub name: &'static str,
    /// Name of the generated constant.
    pub ident: &'static str,
    /// Index bits.
    pub m: u32,
    /// Bits of the reduced significand (`m + n`).
    pub in_bits: u32,
    /// Table rows (`2^m`, or `2^(m+1)` for RSQRT's two halves).
    pub rows: usize,
    /// Accumulator fraction bits.
    pub f: u32,
    /// Widths of C1 and C2 (two's complement).
    pub w1: u32,
    pub w2: u32,
    /// Width of the truncated squarer output.
    pub sq: u32,
    /// The exact function on row `i` at local `t` in `[0, 1]` of a table
    /// with `m` index bits.
    pub value: fn(u32, usize, f64) -> f64,
    /// What a row covers (for the generated comment).
    pub covers: &'static str,
    /// +1 if the function increases with the row input, -1 if it decreases,
    /// 0 for no boundary fix (sin: it serves cos mirrored, so neither order
    /// holds for both).
    pub dir: i64,
}

/// The free parameters of one table: index bits, accumulator fraction
/// bits, C1 and C2 widths, squarer output width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Params {
    pub m: u32,
    pub f: u32,
    pub w1: u32,
    pub w2: u32,
    pub sq: u32,
}

impl std::str::FromStr for Params {
    type Err = String;
    /// `m,f,w1,w2,sq`, e.g. `7,28,19,12,17`.
    fn from_str(s: &str) -> Result<Self, String> {
        let v: Vec<u32> = s
            .split(',')
            .map(|p| p.trim().parse::<u32>().map_err(|e| format!("`{s}`: {e}")))
            .collect::<Result<_, _>>()?;
        match v[..] {
            [m, f, w1, w2, sq]
                if (3..=9).contains(&m)
                    && (20..=34).contains(&f)
                    && (8..=24).contains(&w1)
                    && (6..=18).contains(&w2)
                    && (8..=24).contains(&sq) =>
            {
                Ok(Params { m, f, w1, w2, sq })
            }
            _ => Err(format!(
                "`{s}`: want m,f,w1,w2,sq with m 3..=9, f 20..=34, w1 8..=24, w2 6..=18, sq 8..=24"
            )),
        }
    }
}

/// The chosen parameters, in table order RCP, RSQRT, LG2, EX2, SIN
/// (the exploration behind them is in `docs/sfu.md`).
pub const CHOSEN: [Params; 5] = {
    // Every table has 28 accumulator fraction bits, C1 of 18 bits, C2 of
    // 12 and a 17-bit squarer; RSQRT needs one index bit fewer (64 rows).
    const P: Params = Params {
        m: 7,
        f: 28,
        w1: 18,
        w2: 12,
        sq: 17,
    };
    [P, Params { m: 6, ..P }, P, P, P]
};

fn seg(i: usize, t: f64, m: u32) -> f64 {
    (i as f64 + t) / (1u64 << m) as f64
}

fn v_rcp(m: u32, i: usize, t: f64) -> f64 {
    1.0 / (1.0 + seg(i, t, m))
}
fn v_rsqrt(m: u32, i: usize, t: f64) -> f64 {
    let half = 1usize << m;
    if i < half {
        1.0 / (1.0 + seg(i, t, m)).sqrt()
    } else {
        1.0 / (2.0 * (1.0 + seg(i - half, t, m))).sqrt()
    }
}
fn v_lg2(m: u32, i: usize, t: f64) -> f64 {
    (1.0 + seg(i, t, m)).log2()
}
fn v_ex2(m: u32, i: usize, t: f64) -> f64 {
    seg(i, t, m).exp2()
}
/// Where inside one input LSB of the angle the SIN table is fitted, in
/// LSBs: PRESIN truncates the angle (the true angle lies up to one LSB
/// above the input) and multiplies by 2/pi truncated to 24 bits (up to 0.68
/// LSB off at `|x| = pi`). COS reads the table at the complemented index,
/// which sees the offset `1 - SIN_CENTRE`. Measured over every input with
/// `|x| <= pi` (docs/sfu.md, "Centring"): 1/2 gives sin 21.97 and cos 22.30
/// good bits, 3/8 gives 22.11 and 22.13, the best balance of the two.
pub const SIN_CENTRE: f64 = 0.375;

/// Centred on the truncated input: row `i` at `t` stands for the angle
/// `SIN_CENTRE` of an input LSB (`2^-(23 - m)` of a row) further.
fn v_sin(m: u32, i: usize, t: f64) -> f64 {
    let half = SIN_CENTRE * 2f64.powi(m as i32 - 23);
    (std::f64::consts::FRAC_PI_2 * seg(i, t + half, m)).sin()
}

/// The five tables and their formats with the [`CHOSEN`] parameters.
pub fn specs() -> Vec<Spec> {
    specs_with(&CHOSEN)
}

/// The five tables with parameters `p` (order RCP, RSQRT, LG2, EX2, SIN).
pub fn specs_with(p: &[Params; 5]) -> Vec<Spec> {
    let mk = |k: usize, name, ident, dir, rows_mul: usize, value, covers| {
        let q = p[k];
        Spec {
            name,
            ident,
            m: q.m,
            in_bits: 23,
            rows: rows_mul << q.m,
            f: q.f,
            w1: q.w1,
            w2: q.w2,
            sq: q.sq,
            value,
            covers,
            dir,
        }
    };
    vec![
        mk(0, "rcp", "RCP", -1, 1, v_rcp as fn(u32, usize, f64) -> f64, "1/X, X = 1 + (row + t)/2^m in [1, 2)"),
        mk(
            1,
            "rsqrt",
            "RSQRT",
            -1,
            2,
            v_rsqrt,
            "1/sqrt(2^p X), row = p*2^m + X_hi, p = exponent parity, X in [1, 2)",
        ),
        mk(2, "lg2", "LG2", 1, 1, v_lg2, "log2(X), X = 1 + (row + t)/2^m in [1, 2)"),
        mk(3, "ex2", "EX2", 1, 1, v_ex2, "2^u, u = (row + t)/2^m in [0, 1)"),
        mk(
            4,
            "sin",
            "SIN",
            0,
            1,
            v_sin,
            "sin(pi/2 u), u = (row + t + 3/8 2^-n)/2^m in [0, 1) (a quadrant, fitted 3/8 of an input LSB above the truncated angle; cos reads it at the complemented index)",
        ),
    ]
}

/// How much worse (accumulator units) than the table's worst row a row
/// pinned exact at t = 0 may be.
const PIN_SLACK: f64 = 1.0;

/// A fitted table.
#[derive(Debug, Clone)]
pub struct Fitted {
    pub n: u32,
    pub w0: u32,
    pub f1: i32,
    pub f2: i32,
    pub s1: u32,
    pub s2: u32,
    pub c0: Vec<i32>,
    pub c1: Vec<i32>,
    pub c2: Vec<i32>,
    /// Largest |error| over the sample points, in accumulator units.
    pub max_err: f64,
    /// Rows whose value at t = 0 is exact.
    pub pinned: Vec<usize>,
    /// Rows whose C0 was moved for monotonicity at their first point.
    pub moved: Vec<usize>,
    /// Rows still stepping back at their first point (moving C0 would cost
    /// more than the pinning slack).
    pub left: Vec<usize>,
}

struct Best {
    err: f64,
    c0: i64,
    c1: i64,
    c2: i64,
}

/// Search (C2, C1) around the real estimates; C0 from the residual's
/// mid-range, or `pin`.
#[allow(clippy::too_many_arguments)]
fn search(
    g: &[f64],
    xs: &[u64],
    n: u32,
    sq: u32,
    c2_est: f64,
    s1: u32,
    s2: u32,
    slope_scale: f64,
    pin: Option<i64>,
    r2: i64,
    r1: i64,
) -> Best {
    let t_last = *xs.last().unwrap() as f64 / (1u64 << n) as f64;
    let mut best = Best {
        err: f64::INFINITY,
        c0: 0,
        c1: 0,
        c2: 0,
    };
    let mut res1 = vec![0.0; xs.len()];
    let c2r = c2_est.round() as i64;
    for c2 in c2r - r2..=c2r + r2 {
        for (k, &x) in xs.iter().enumerate() {
            res1[k] = g[k] - term2(c2 as i32, x, n, sq, s2) as f64;
        }
        let slope = (res1[xs.len() - 1] - res1[0]) / t_last;
        let c1r = (slope * slope_scale).round() as i64;
        for c1 in c1r - r1..=c1r + r1 {
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for (k, &x) in xs.iter().enumerate() {
                let r = res1[k] - term1(c1 as i32, x, s1) as f64;
                lo = lo.min(r);
                hi = hi.max(r);
            }
            let c0 = pin.unwrap_or(((lo + hi) / 2.0).round() as i64);
            let err = (hi - c0 as f64).max(c0 as f64 - lo);
            if err < best.err {
                best = Best { err, c0, c1, c2 };
            }
        }
    }
    best
}

/// Fit one table.
pub fn fit(spec: &Spec) -> Fitted {
    let n = spec.in_bits - spec.m;
    let last = (1u64 << n) - 1;
    let xs: Vec<u64> = if n <= 12 {
        (0..=last).collect()
    } else {
        let g = 4096u128;
        (0..=g).map(|k| (k * last as u128 / g) as u64).collect()
    };
    let scale_f = 2f64.powi(spec.f as i32);
    let tn = (1u64 << n) as f64;

    // Real quadratic coefficients at the Chebyshev nodes of [0, 1].
    let nodes: Vec<f64> = (0..3)
        .map(|k| 0.5 - 0.5 * ((2 * k + 1) as f64 * std::f64::consts::PI / 6.0).cos())
        .collect();
    let a2: Vec<f64> = (0..spec.rows)
        .map(|i| {
            let y: Vec<f64> = nodes.iter().map(|&t| (spec.value)(spec.m, i, t)).collect();
            let d01 = (y[1] - y[0]) / (nodes[1] - nodes[0]);
            let d12 = (y[2] - y[1]) / (nodes[2] - nodes[1]);
            (d12 - d01) / (nodes[2] - nodes[0])
        })
        .collect();
    let a2max = a2.iter().fold(0f64, |m, v| m.max(v.abs()));
    let a1max = (0..spec.rows)
        .map(|i| ((spec.value)(spec.m, i, 1.0) - (spec.value)(spec.m, i, 0.0)).abs() + a2[i].abs())
        .fold(0f64, f64::max);
    let f1 = ((2f64.powi(spec.w1 as i32 - 1) - 8.0) / a1max).log2().floor() as i32;
    let f2 = ((2f64.powi(spec.w2 as i32 - 1) - 4.0) / a2max).log2().floor() as i32;
    let s1 = f1 + n as i32 - spec.f as i32;
    let s2 = f2 + spec.sq as i32 - spec.f as i32;
    assert!(s1 >= 0 && s2 >= 0, "{}: negative shift s1={s1} s2={s2}", spec.name);
    let (s1, s2) = (s1 as u32, s2 as u32);
    let slope_scale = 2f64.powi(f1 - spec.f as i32);

    let samples = |i: usize| -> Vec<f64> {
        xs.iter()
            .map(|&x| (spec.value)(spec.m, i, x as f64 / tn) * scale_f)
            .collect()
    };

    // The best coefficients of row `i` (C0 pinned to `pin` if given),
    // searching +-r2 around the C2 estimate and +-r1 around C1's.
    let fit = |i: usize, pin: Option<i64>, r2: i64, r1: i64| {
        let c2_est = a2[i] * 2f64.powi(f2);
        search(&samples(i), &xs, n, spec.sq, c2_est, s1, s2, slope_scale, pin, r2, r1)
    };
    let mut rows: Vec<Best> = (0..spec.rows).map(|i| fit(i, None, 2, 2)).collect();
    let worst = rows.iter().fold(0f64, |m, b| m.max(b.err));
    let mut pinned = Vec::new();
    for (i, row) in rows.iter_mut().enumerate() {
        let v0 = (spec.value)(spec.m, i, 0.0) * scale_f;
        if v0.fract() != 0.0 || v0.abs() >= 2f64.powi(40) {
            continue;
        }
        let b = fit(i, Some(v0 as i64), 4, 8);
        if b.err <= worst + PIN_SLACK {
            *row = b;
            pinned.push(i);
        }
    }
    // Monotonic across row boundaries: the first value of a row must not
    // step back past the last value of the row before; move C0 when it does.
    let last_x = *xs.last().unwrap();
    let (mut moved, mut left) = (Vec::new(), Vec::new());
    for i in (1..spec.rows).filter(|_| spec.dir != 0) {
        let p = &rows[i - 1];
        let end = p.c0 + term1(p.c1 as i32, last_x, s1) + term2(p.c2 as i32, last_x, n, spec.sq, s2);
        let c0 = rows[i].c0;
        let fixed = if spec.dir > 0 { c0.max(end) } else { c0.min(end) };
        if fixed != c0 {
            let g = samples(i);
            let r = &rows[i];
            let err = xs
                .iter()
                .enumerate()
                .map(|(k, &x)| {
                    (g[k] - (fixed + term1(r.c1 as i32, x, s1) + term2(r.c2 as i32, x, n, spec.sq, s2)) as f64).abs()
                })
                .fold(0f64, f64::max);
            if err <= worst + PIN_SLACK {
                rows[i].c0 = fixed;
                rows[i].err = err;
                moved.push(i);
            } else {
                left.push(i);
            }
        }
    }
    let max_err = rows.iter().fold(0f64, |m, b| m.max(b.err));
    let c0: Vec<i32> = rows.iter().map(|b| b.c0 as i32).collect();
    let c0max = c0.iter().copied().max().unwrap_or(0).max(1) as u32;
    Fitted {
        n,
        w0: 32 - c0max.leading_zeros(),
        f1,
        f2,
        s1,
        s2,
        c0,
        c1: rows.iter().map(|b| b.c1 as i32).collect(),
        c2: rows.iter().map(|b| b.c2 as i32).collect(),
        max_err,
        pinned,
        moved,
        left,
    }
}

fn array(out: &mut String, name: &str, v: &[i32]) {
    out.push_str(&format!("    {name}: &[\n"));
    for chunk in v.chunks(8) {
        out.push_str("       ");
        for x in chunk {
            out.push_str(&format!(" {x},"));
        }
        out.push('\n');
    }
    out.push_str("    ],\n");
}

/// The text of `tables.rs`.
pub fn generate_source() -> String {
    let mut out = String::new();
    out.push_str(
        "// @generated by `cargo run -- gen-sfu-tables` (src/golden/arith/sfu/gen.rs).\n\
         // Do not edit: regenerate. The unit test `tables_are_current` fails when\n\
         // this file differs from the generator's output.\n\
         //! SFU coefficient tables: `ACC = C0 + ((C1*X_lo) >> s1) + ((C2*SQ) >> s2)`\n\
         //! (see the parent module). Per table: what a row covers, the fit's\n\
         //! worst error over its sample points in accumulator units (2^-f), and\n\
         //! the rows pinned exact at t = 0.\n\n\
         use super::Table;\n",
    );
    for spec in specs() {
        let t = fit(&spec);
        out.push_str(&format!(
            "\n/// {}: {}.\n/// C1 has {} fraction bits, C2 {}; fit error {:.3} ulp of 2^-{}; pinned rows {:?};\n/// C0 moved for monotonicity in rows {:?}; still stepping back: {:?}.\n",
            spec.name, spec.covers, t.f1, t.f2, t.max_err, spec.f, t.pinned, t.moved, t.left
        ));
        out.push_str(&format!("pub const {}: Table = Table {{\n", spec.ident));
        out.push_str(&format!(
            "    name: \"{}\",\n    m: {},\n    n: {},\n    f: {},\n    w0: {},\n    w1: {},\n    w2: {},\n    sq: {},\n    s1: {},\n    s2: {},\n",
            spec.name, spec.m, t.n, spec.f, t.w0, spec.w1, spec.w2, spec.sq, t.s1, t.s2
        ));
        array(&mut out, "c0", &t.c0);
        array(&mut out, "c1", &t.c1);
        array(&mut out, "c2", &t.c2);
        out.push_str("};\n");
    }
    out
}

/// A fitted table as a [`Table`] (its arrays leaked: for the explorer and
/// tests, which fit a handful of candidate tables per run).
pub fn to_table(spec: &Spec, t: &Fitted) -> Table {
    let leak = |v: &Vec<i32>| -> &'static [i32] { Box::leak(v.clone().into_boxed_slice()) };
    Table {
        name: spec.name,
        m: spec.m,
        n: t.n,
        f: spec.f,
        w0: t.w0,
        w1: spec.w1,
        w2: spec.w2,
        sq: spec.sq,
        s1: t.s1,
        s2: t.s2,
        c0: leak(&t.c0),
        c1: leak(&t.c1),
        c2: leak(&t.c2),
    }
}
