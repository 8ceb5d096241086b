//! Turn the operands of IEEE TestFloat vectors (stdin, e.g. from
//! `softfloat_gen f32_add`) into vectors of our Tesla ops with the
//! reference arithmetic's expected results (`golden::arith::tesla`), in
//! `smrtl testfloat`'s format for `f32_add_tesla`, `f32_mul_tesla` or
//! `f32_mad_tesla` (no flags column). Used to drive `smrtl testfloat --rtl`
//! on the Tesla ops with SoftFloat's operand mix:
//!
//! ```text
//! cargo run --release --example softfloat_gen -- f32_add -rmin -n 1000000 \
//!   | cargo run --release --example tesla_vectors -- f32_add_tesla -rmin \
//!   | smrtl testfloat f32_add_tesla -rmin --rtl --config gt200
//! ```

use smrtl::golden::arith::{tesla, Round};
use smrtl::golden::testfloat::parse_round;
use std::io::{BufRead, Write};

fn main() {
    let mut args = std::env::args().skip(1);
    let op = args
        .next()
        .expect("usage: tesla_vectors f32_add_tesla|f32_mul_tesla|f32_mad_tesla [-rMODE]");
    let rm = args
        .next()
        .map(|a| parse_round(a.trim_start_matches("-r")).expect("rounding mode"))
        .unwrap_or(Round::NearEven);
    let stdin = std::io::stdin().lock();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in stdin.lines() {
        let line = line.expect("stdin");
        let v: Vec<u32> = line
            .split_whitespace()
            .filter_map(|f| u32::from_str_radix(f, 16).ok())
            .collect();
        let r = match op.as_str() {
            "f32_add_tesla" if v.len() >= 2 => tesla::fadd(v[0], v[1], rm),
            "f32_mul_tesla" if v.len() >= 2 => tesla::fmul(v[0], v[1], rm),
            "f32_mad_tesla" if v.len() >= 3 => tesla::fmad(v[0], v[1], v[2]),
            _ => continue,
        };
        let n = if op == "f32_mad_tesla" { 3 } else { 2 };
        for x in &v[..n] {
            write!(out, "{x:08X} ").unwrap();
        }
        writeln!(out, "{r:08X}").unwrap();
    }
}
