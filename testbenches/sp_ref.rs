//! Reference for the SP lanes and the FP64 unit: one thread of one
//! instruction with the golden model's semantics (`src/golden/model/`)
//! on the reference arithmetic (`golden::arith`), plus the error rule of
//! docs/sm.md section 7. Shares only the ISA table with the RTL.

use crate::golden::arith::{ieee, tesla, Tininess};
use crate::golden::isa::{FCmp, ICmp, ModKind, MulMode, Op, Rnd, Unit};
use crate::units::sp::lane::Flavor;

const SIGN: u32 = 0x8000_0000;
const TIN: Tininess = Tininess::AfterRounding;

/// Result of one thread: value, predicate, error code (0 none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefOut {
    pub res: u64,
    pub pred: bool,
    pub err: u8,
}

fn err(code: u8) -> RefOut {
    RefOut {
        res: 0,
        pred: false,
        err: code,
    }
}

fn val(v: u64) -> RefOut {
    RefOut {
        res: v,
        pred: false,
        err: 0,
    }
}

fn pred(p: bool) -> RefOut {
    RefOut {
        res: 0,
        pred: p,
        err: 0,
    }
}

/// Error code of `(op, m)` on a unit that implements `implements`.
fn decode_err(op: u8, m: u8, implements: impl Fn(Op) -> bool) -> Result<Op, u8> {
    let o = Op::from_code(op).filter(|o| implements(*o)).ok_or(1u8)?;
    let modk = o.info().modk;
    if modk == ModKind::FpNegOnly && m & 3 != 0 {
        return Err(2);
    }
    if !modk.accepts(m) {
        return Err(1);
    }
    Ok(o)
}

/// One SP-lane thread.
pub fn sp_ref(flavor: Flavor, op: u8, m: u8, a: u32, b: u32, c: u32, pa: bool) -> RefOut {
    let o = match decode_err(op, m, |o| flavor.implements(o)) {
        Ok(o) => o,
        Err(e) => return err(e),
    };
    let rnd = Rnd::from_bits(m).round();
    let na = if m & 4 != 0 { SIGN } else { 0 };
    let nbc = if m & 8 != 0 { SIGN } else { 0 };
    let tesla_fp = flavor == Flavor::Tesla;
    let v = |x: u32| val(x as u64);
    match o {
        Op::Iadd => v(a.wrapping_add(b)),
        Op::Isub => v(a.wrapping_sub(b)),
        Op::Imul => v(MulMode::from_bits(m).unwrap().eval(a, b)),
        Op::Imad => v(MulMode::from_bits(m).unwrap().eval(a, b).wrapping_add(c)),
        Op::Imin => v(if m & 1 != 0 {
            a.min(b)
        } else {
            (a as i32).min(b as i32) as u32
        }),
        Op::Imax => v(if m & 1 != 0 {
            a.max(b)
        } else {
            (a as i32).max(b as i32) as u32
        }),
        Op::Shl => v(if b >= 32 { 0 } else { a << b }),
        Op::Shr => v(if m & 1 != 0 {
            ((a as i32) >> b.min(31)) as u32
        } else if b >= 32 {
            0
        } else {
            a >> b
        }),
        Op::And => v(a & b),
        Op::Or => v(a | b),
        Op::Xor => v(a ^ b),
        Op::Not => v(!b),
        Op::Iabs => v((a as i32).wrapping_abs() as u32),
        Op::Isetp => pred(ICmp::from_bits(m).unwrap().eval(a, b, m & 8 != 0)),
        Op::Sel => v(if pa ^ (m & 8 != 0) { a } else { b }),
        Op::Fadd if tesla_fp => v(tesla::fadd(a ^ na, b ^ nbc, rnd)),
        Op::Fadd => v(ieee::f32_add(a ^ na, b ^ nbc, rnd, TIN).0),
        Op::Fmul if tesla_fp => v(tesla::fmul(a ^ na, b ^ nbc, rnd)),
        Op::Fmul => v(ieee::f32_mul(a ^ na, b ^ nbc, rnd, TIN).0),
        Op::Fmad => v(tesla::fmad(a ^ na, b, c ^ nbc)),
        Op::Ffma => v(ieee::f32_fma(a ^ na, b, c ^ nbc, rnd, TIN).0),
        Op::Fmin => v(ieee::f32_min(a, b)),
        Op::Fmax => v(ieee::f32_max(a, b)),
        Op::Fsetp => pred(FCmp(m & 15).eval_f32(a, b)),
        Op::I2f => v(ieee::i32_to_f32(a, m & 4 == 0, rnd)),
        Op::F2i => v(ieee::f32_to_i32(a, m & 4 == 0, rnd)),
        Op::Mov => v(b),
        _ => err(1),
    }
}

/// One FP64-unit thread (64-bit operands; 32-bit ones in the low half).
pub fn dpu_ref(op: u8, m: u8, a: u64, b: u64, c: u64) -> RefOut {
    let o = match decode_err(op, m, |o| o.unit() == Unit::Dpu) {
        Ok(o) => o,
        Err(e) => return err(e),
    };
    let rnd = Rnd::from_bits(m).round();
    let na = if m & 4 != 0 { 1u64 << 63 } else { 0 };
    let nbc = if m & 8 != 0 { 1u64 << 63 } else { 0 };
    match o {
        Op::Dadd => val(ieee::f64_add(a ^ na, b ^ nbc, rnd, TIN).0),
        Op::Dmul => val(ieee::f64_mul(a ^ na, b ^ nbc, rnd, TIN).0),
        Op::Dfma => val(ieee::f64_fma(a ^ na, b, c ^ nbc, rnd, TIN).0),
        Op::Dsetp => pred(FCmp(m & 15).eval_f64(a, b)),
        Op::I2d => val(ieee::i32_to_f64(a as u32, m & 4 == 0)),
        Op::D2i => val(ieee::f64_to_i32(a, m & 4 == 0, rnd) as u64),
        Op::F2d => val(ieee::f32_to_f64(a as u32)),
        Op::D2f => val(ieee::f64_to_f32(a, rnd) as u64),
        _ => err(1),
    }
}

/// The modifier values the sweeps use for `op`: every rounding mode (with
/// random negations), every multiply mode, every valid compare; `pick`
/// selects one group (e.g. one rounding mode) so each is counted apart.
pub fn mod_groups(op: Op) -> Vec<Vec<u8>> {
    let modk = op.info().modk;
    let valid: Vec<u8> = (0..16u8).filter(|&m| modk.accepts(m)).collect();
    match modk {
        // One group per rounding mode, each with every negation / signedness.
        ModKind::FpRound | ModKind::Cvt | ModKind::Round => (0..4u8)
            .map(|r| valid.iter().copied().filter(|m| m & 3 == r).collect())
            .collect(),
        ModKind::Mul | ModKind::Flag(_) => valid.iter().map(|&m| vec![m]).collect(),
        _ => vec![valid],
    }
}

/// Sweep `n` random + edge-class operand sets of `op` with modifiers from
/// `mods` through `lane` (the RTL's combinational lane on the concrete
/// backend) against [`sp_ref`]; returns the first mismatch.
pub fn sp_sweep(
    flavor: Flavor,
    op: Op,
    mods: &[u8],
    n: u64,
    seed: u64,
    lane: impl Fn(u8, u8, u32, u32, u32, bool) -> RefOut,
) -> Result<(), String> {
    use super::fp_vec::{int_operand, operands, F32};
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::SmallRng::seed_from_u64(seed);
    let fp_in = matches!(op.info().class, crate::golden::isa::Class::Fp32) || op == Op::F2i;
    for _ in 0..n {
        let m = mods[r.gen_range(0..mods.len())];
        let (a, b, c) = if fp_in {
            let [a, b, c] = operands::<_, 3>(&mut r, F32);
            (a as u32, b as u32, c as u32)
        } else {
            (int_operand(&mut r), int_operand(&mut r), int_operand(&mut r))
        };
        let pa = r.gen::<bool>();
        let want = sp_ref(flavor, op as u8, m, a, b, c, pa);
        let got = lane(op as u8, m, a, b, c, pa);
        if got != want {
            return Err(format!(
                "{:?} {} mod {m:#x} a={a:08x} b={b:08x} c={c:08x} pa={pa}: rtl {got:?}, reference {want:?}",
                flavor,
                op.info().mnemonic
            ));
        }
    }
    Ok(())
}

/// Exhaustive integer check on 16-bit operand sub-ranges: `a` and `b` each
/// run over 256 values from a window base (65,536 pairs per window; the
/// first `windows` of 18 base pairs: 0, -128, 2^31-128, 2^31, 2^24-128, ...).
pub fn int_windows(
    flavor: Flavor,
    op: Op,
    m: u8,
    windows: usize,
    lane: impl Fn(u8, u8, u32, u32, u32, bool) -> RefOut,
) -> Result<u64, String> {
    const BASES: [u32; 6] = [0, 0xffff_ff80, 0x7fff_ff80, 0x8000_0000, 0x00ff_ff80, 0x1234_5600];
    let mut n = 0;
    let pairs = BASES
        .iter()
        .flat_map(|&a| [0u32, 0xffff_ff80, 0x7fff_ff80].map(|b| (a, b)));
    for (ba, bb) in pairs.take(windows) {
        {
            for da in 0..256u32 {
                for db in 0..256u32 {
                    let (a, b) = (ba.wrapping_add(da), bb.wrapping_add(db));
                    let c = a ^ 0x5555_5555;
                    let want = sp_ref(flavor, op as u8, m, a, b, c, da & 1 == 1);
                    let got = lane(op as u8, m, a, b, c, da & 1 == 1);
                    n += 1;
                    if got != want {
                        return Err(format!(
                            "{} mod {m:#x} a={a:08x} b={b:08x}: rtl {got:?}, reference {want:?}",
                            op.info().mnemonic
                        ));
                    }
                }
            }
        }
    }
    Ok(n)
}

/// The FP64 counterpart of [`sp_sweep`] against [`dpu_ref`]; conversions
/// from a 32-bit value get FP32 / integer operands in the low half.
pub fn dpu_sweep(
    op: Op,
    mods: &[u8],
    n: u64,
    seed: u64,
    lane: impl Fn(u8, u8, u64, u64, u64) -> RefOut,
) -> Result<(), String> {
    use super::fp_vec::{int_operand, operands, F32, F64};
    use rand::{Rng, SeedableRng};
    let mut r = rand::rngs::SmallRng::seed_from_u64(seed);
    for _ in 0..n {
        let m = mods[r.gen_range(0..mods.len())];
        let [mut a, b, c] = operands::<_, 3>(&mut r, F64);
        if op == Op::F2d {
            a = operands::<_, 1>(&mut r, F32)[0];
        } else if op == Op::I2d {
            a = int_operand(&mut r) as u64;
        }
        let want = dpu_ref(op as u8, m, a, b, c);
        let got = lane(op as u8, m, a, b, c);
        if got != want {
            return Err(format!(
                "{} mod {m:#x} a={a:016x} b={b:016x} c={c:016x}: rtl {got:?}, reference {want:?}",
                op.info().mnemonic
            ));
        }
    }
    Ok(())
}
