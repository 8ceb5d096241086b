//! The datapath functions on the concrete backend against the independent
//! reference arithmetic (`golden::arith`), random and edge-class operands.

use super::*;
use crate::golden::arith::{ieee, tesla, Round, Tininess};
use crate::hdl::{Bits, Concrete};
use crate::testbenches::fp_vec::{int_operand, operands, F32, F64};
use rand::{Rng, SeedableRng};

type C = Concrete;
const N: usize = 20_000;
const RMS: [Round; 4] = [Round::NearEven, Round::MinMag, Round::Min, Round::Max];

fn b32(x: u64) -> Bits<32> {
    Bits::new(x)
}
fn b64(x: u64) -> Bits<64> {
    Bits::new(x)
}
fn rm2(i: usize) -> Bits<2> {
    Bits::new(i as u64)
}
fn one(v: bool) -> Bits<1> {
    Bits::new(v as u64)
}
const T: Tininess = Tininess::AfterRounding;

#[test]
fn ieee_f32_add_mul_fma() {
    let mut r = rand::rngs::SmallRng::seed_from_u64(11);
    for (mi, &rm) in RMS.iter().enumerate() {
        for _ in 0..N {
            let [a, b, c] = operands::<_, 3>(&mut r, F32);
            let (a, b, c) = (a as u32, b as u32, c as u32);
            let f = |x: Bits<32>| x.to_u64() as u32;
            let z = one(false);
            let got = f(f32_op::<C>(one(true), z, b32(a as u64), b32(b as u64), b32(0), rm2(mi)));
            assert_eq!(got, ieee::f32_add(a, b, rm, T).0, "add {a:08x} {b:08x} {rm:?}");
            let got = f(f32_op::<C>(z, one(true), b32(a as u64), b32(b as u64), b32(0), rm2(mi)));
            assert_eq!(got, ieee::f32_mul(a, b, rm, T).0, "mul {a:08x} {b:08x} {rm:?}");
            let got = f(f32_op::<C>(z, z, b32(a as u64), b32(b as u64), b32(c as u64), rm2(mi)));
            assert_eq!(
                got,
                ieee::f32_fma(a, b, c, rm, T).0,
                "fma {a:08x} {b:08x} {c:08x} {rm:?}"
            );
        }
    }
}

#[test]
fn ieee_f64_add_mul_fma() {
    let mut r = rand::rngs::SmallRng::seed_from_u64(12);
    for (mi, &rm) in RMS.iter().enumerate() {
        for _ in 0..N {
            let [a, b, c] = operands::<_, 3>(&mut r, F64);
            let f = |x: Bits<64>| x.to_u64();
            let z = one(false);
            let got = f(f64_op::<C>(one(true), z, b64(a), b64(b), b64(0), rm2(mi)));
            assert_eq!(got, ieee::f64_add(a, b, rm, T).0, "dadd {a:016x} {b:016x} {rm:?}");
            let got = f(f64_op::<C>(z, one(true), b64(a), b64(b), b64(0), rm2(mi)));
            assert_eq!(got, ieee::f64_mul(a, b, rm, T).0, "dmul {a:016x} {b:016x} {rm:?}");
            let got = f(f64_op::<C>(z, z, b64(a), b64(b), b64(c), rm2(mi)));
            assert_eq!(
                got,
                ieee::f64_fma(a, b, c, rm, T).0,
                "dfma {a:016x} {b:016x} {c:016x} {rm:?}"
            );
        }
    }
}

#[test]
fn tesla_fadd_fmul_fmad() {
    let mut r = rand::rngs::SmallRng::seed_from_u64(13);
    for (mi, &rm) in RMS.iter().enumerate() {
        for _ in 0..N {
            let [a, b, c] = operands::<_, 3>(&mut r, F32);
            let (a, b, c) = (a as u32, b as u32, c as u32);
            let f = |x: Bits<32>| x.to_u64() as u32;
            let got = f(tesla_fadd::<C>(b32(a as u64), b32(b as u64), rm2(mi)));
            assert_eq!(got, tesla::fadd(a, b, rm), "tesla fadd {a:08x} {b:08x} {rm:?}");
            let got = f(tesla_fmul::<C>(b32(a as u64), b32(b as u64), rm2(mi)));
            assert_eq!(got, tesla::fmul(a, b, rm), "tesla fmul {a:08x} {b:08x} {rm:?}");
            if mi == 0 {
                let got = f(tesla_fmad::<C>(b32(a as u64), b32(b as u64), b32(c as u64)));
                assert_eq!(got, tesla::fmad(a, b, c), "tesla fmad {a:08x} {b:08x} {c:08x}");
            }
        }
    }
}

#[test]
fn conversions_compare_minmax() {
    let mut r = rand::rngs::SmallRng::seed_from_u64(14);
    for (mi, &rm) in RMS.iter().enumerate() {
        for _ in 0..N {
            let [a, b] = operands::<_, 2>(&mut r, F32);
            let [d, e] = operands::<_, 2>(&mut r, F64);
            let i = int_operand(&mut r);
            let s = r.gen::<bool>();
            let (a32, b32_) = (a as u32, b as u32);
            assert_eq!(
                i2f::<C>(b32(i as u64), one(s), rm2(mi)).to_u64() as u32,
                ieee::i32_to_f32(i, s, rm),
                "i2f {i:08x} {s} {rm:?}"
            );
            assert_eq!(
                f2i::<C>(b32(a), one(s), rm2(mi)).to_u64() as u32,
                ieee::f32_to_i32(a32, s, rm),
                "f2i {a:08x} {s} {rm:?}"
            );
            assert_eq!(
                d2i::<C>(b64(d), one(s), rm2(mi)).to_u64() as u32,
                ieee::f64_to_i32(d, s, rm),
                "d2i {d:016x} {s} {rm:?}"
            );
            assert_eq!(
                d2f::<C>(b64(d), rm2(mi)).to_u64() as u32,
                ieee::f64_to_f32(d, rm),
                "d2f {d:016x} {rm:?}"
            );
            if mi == 0 {
                assert_eq!(
                    i2d::<C>(b32(i as u64), one(s)).to_u64(),
                    ieee::i32_to_f64(i, s),
                    "i2d {i:08x} {s}"
                );
                assert_eq!(f2d::<C>(b32(a)).to_u64(), ieee::f32_to_f64(a32), "f2d {a:08x}");
                for code in 0..16u8 {
                    let fc = crate::golden::isa::FCmp(code);
                    let c4 = Bits::<4>::new(code as u64);
                    assert_eq!(
                        fsetp::<C, 32, 8, 23>(c4, b32(a), b32(b)).to_u64() == 1,
                        fc.eval_f32(a32, b32_),
                        "fsetp {code} {a:08x} {b:08x}"
                    );
                    assert_eq!(
                        fsetp::<C, 64, 11, 52>(c4, b64(d), b64(e)).to_u64() == 1,
                        fc.eval_f64(d, e),
                        "dsetp {code} {d:016x} {e:016x}"
                    );
                }
                assert_eq!(
                    f32_minmax::<C>(one(false), b32(a), b32(b)).to_u64() as u32,
                    ieee::f32_min(a32, b32_)
                );
                assert_eq!(
                    f32_minmax::<C>(one(true), b32(a), b32(b)).to_u64() as u32,
                    ieee::f32_max(a32, b32_)
                );
            }
        }
    }
}
