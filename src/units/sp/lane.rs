//! `sp_lane`: one SP lane (FP32 + INT32), its own Verilog module so the SP
//! array (and later GPU-CC, which configures each lane with its own
//! instruction) can drive `op`/`mod` per lane.
//!
//! ```text
//!  op_i mod_i a_i b_i c_i pa_i  (hot domain)
//!     |
//!  decode (ISA table: Op::unit() == Sp, ModKind::accepts) --> err
//!     |
//!  +--------------------+  +--------------------------+  +-------------+
//!  | integer ALU: add,  |  | FP32 unit: Tesla (FADD,  |  | compares,   |
//!  | 64-bit multiplier  |  | FMUL, FMAD; flushed) or  |  | min/max,    |
//!  | (IMUL/IMAD modes), |  | IEEE (FADD, FMUL, FFMA   |  | conversions |
//!  | min/max, shifts,   |  | through one FMA)         |  | I2F F2I     |
//!  | logic, SEL, IABS   |  +--------------------------+  +-------------+
//!  +--------------------+
//!     | result mux by opcode
//!  [LAT pipeline registers: res, pred, err code]
//!  res_o[32] pred_o err_o err_code_o[8]
//! ```
//!
//! * Ops: every opcode with `Op::unit() == Unit::Sp` (IADD ISUB IMUL IMAD
//!   IMIN IMAX SHL SHR AND OR XOR NOT ISETP SEL IABS FADD FMUL FMAD FFMA
//!   FMIN FMAX FSETP I2F F2I MOV), semantics of `docs/isa.md`. The FP32
//!   flavour is the preset's `mul_add`: `fmad` presets (tesla, gt200) have
//!   the Tesla unit (FADD/FMUL/FMAD, no FFMA), `ffma` presets (fermi,
//!   gpucc) the IEEE unit (FADD/FMUL/FFMA, no FMAD).
//! * Operands: `a_i`, `b_i` (immediates already in `b`), `c_i`, `pa_i`
//!   (SEL's predicate `Pm` as read, PT = 1; the lane applies `mod[3]`,
//!   the negation). FP negation and rounding come in `mod_i`.
//! * Errors (`err_o`, `err_code_o`, docs/sm.md section 7): code 1 for an
//!   opcode this lane does not implement (not an SP op, or the other
//!   flavour's multiply-add) or a modifier value the ISA does not define
//!   for it; code 2 for FMAD with a rounding mode other than RN. An erring
//!   operation's result and predicate are 0.
//! * Latency: `LAT` (= `sp_latency`) hot cycles: inputs in hot cycle `t`
//!   show on the outputs in hot cycle `t + LAT`. The datapath is one
//!   combinational cloud followed by `LAT` register stages. Yosys 0.23
//!   does not retime those stages into the cloud (`synth_ecp5 -retime`
//!   moves a few flip-flops, not them): with its ports registered the
//!   lane's hot clock is about 9 MHz on an ECP5 (docs/fpga.md, "What
//!   limits Fmax"); a faster lane needs the cloud cut across the stages.
//! * Clock domain: hot; no reset on the datapath registers.

use crate::golden::isa::{ModKind, Op, Unit};
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig};
use crate::units::fp::{self, k, S};

crate::ports! {
    /// One lane's operation and operands.
    pub struct SpLaneIn {
        op_i: 7 @ Hot,
        mod_i: 4 @ Hot,
        a_i: 32 @ Hot,
        b_i: 32 @ Hot,
        c_i: 32 @ Hot,
        pa_i: 1 @ Hot,
    }
}
crate::ports! {
    /// Result after `LAT` hot cycles.
    pub struct SpLaneOut {
        res_o: 32 @ Hot,
        pred_o: 1 @ Hot,
        err_o: 1 @ Hot,
        err_code_o: 8 @ Hot,
    }
}

/// The FP32 flavour of a lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    /// Tesla/GT200: FADD/FMUL/FMAD with flushed denormals.
    Tesla,
    /// Fermi: IEEE FADD/FMUL/FFMA.
    Ieee,
}

impl Flavor {
    /// Does this lane execute `op`?
    pub fn implements(self, op: Op) -> bool {
        op.unit() == Unit::Sp
            && match self {
                Flavor::Tesla => op != Op::Ffma,
                Flavor::Ieee => op != Op::Fmad,
            }
    }
    /// Name used in module names.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Tesla => "tesla",
            Flavor::Ieee => "ieee",
        }
    }
}

/// Result of the lane's combinational datapath.
pub struct LaneOut<B: Backend> {
    pub res: S<B, 32>,
    pub pred: S<B, 1>,
    /// 0 none, 1 not implemented / bad modifier, 2 FMAD rounding.
    pub err: S<B, 2>,
}

/// The lane's combinational datapath (what the `LAT` registers delay).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn lane_comb<B: Backend>(
    flavor: Flavor,
    op: S<B, 7>,
    md: S<B, 4>,
    a: S<B, 32>,
    b: S<B, 32>,
    c: S<B, 32>,
    pa: S<B, 1>,
) -> LaneOut<B> {
    let is = |o: Op| op.eq(k::<B, 7>(o as u64));
    let m = |i: usize| field::<B>(md, i);
    let z32 = k::<B, 32>(0);
    let rm: S<B, 2> = md.slice::<0, 2>();

    if let (Some(o), Some(mv)) = (op.known(), md.known()) {
        // Simulation only: decode the known opcode and modifier from the
        // ISA table directly (the loop below is the decoder's logic).
        let e = match Op::from_code(o as u8).filter(|&x| flavor.implements(x)) {
            None => 1,
            Some(x) => {
                let modk = x.info().modk;
                if !(modk.accepts(mv as u8) || modk == ModKind::FpNegOnly) {
                    1
                } else if x == Op::Fmad && mv & 3 != 0 {
                    2
                } else {
                    0
                }
            }
        };
        return lane_known::<B>(flavor, o, k::<B, 2>(e), md, a, b, c, pa);
    }

    // Decode: implemented ops and their modifier rules, from the ISA table.
    let mut known = k::<B, 1>(0);
    let mut mod_bad = k::<B, 1>(0);
    for &o in Op::ALL.iter().filter(|o| flavor.implements(**o)) {
        let modk = o.info().modk;
        let ok_mask: u64 = (0..16u8)
            .filter(|&v| modk.accepts(v) || modk == ModKind::FpNegOnly)
            .fold(0, |acc, v| acc | 1 << v);
        let hit = is(o);
        known = known | hit;
        let okbit = k::<B, 16>(ok_mask).shr(md).slice::<0, 1>();
        mod_bad = mod_bad | (hit & !okbit);
    }
    let fmad_rm = is(Op::Fmad) & rm.ne(k::<B, 2>(0));
    let err1 = !known | mod_bad;
    let err: S<B, 2> = err1.mux(k::<B, 2>(1), fmad_rm.mux(k::<B, 2>(2), k::<B, 2>(0)));

    let mulr = int_mul::<B>(md, a, b);
    let imad = mulr + c;

    // Integer ALU.
    let flag = m(0);
    let ilt = flag.mux(a.ult(b), a.slt(b));
    let imin = ilt.mux(a, b);
    let imax = ilt.mux(b, a);
    let shl = a.shl(b);
    let shr = flag.mux(a.sar(b), a.shr(b));
    let iabs = a.slice::<31, 1>().mux(z32 - a, a);
    let isetp = int_setp::<B>(md, a, b);
    let sel = (pa ^ m(3)).mux(a, b);

    // FP32: negations from the modifier (bit 2: a; bit 3: b of two-operand
    // ops, c of multiply-adds).
    let sign = k::<B, 32>(0x8000_0000);
    let three = is(Op::Fmad) | is(Op::Ffma);
    let fa = a ^ m(2).mux(sign, z32);
    let fb = b ^ (m(3) & !three).mux(sign, z32);
    let fc = c ^ (m(3) & three).mux(sign, z32);
    let fpr = match flavor {
        Flavor::Tesla => fp::tesla_fp32::<B>(is(Op::Fmul), is(Op::Fmad), fa, fb, fc, rm).0,
        Flavor::Ieee => fp::f32_op::<B>(is(Op::Fadd), is(Op::Fmul), fa, fb, fc, rm),
    };
    let fmm = fp::f32_minmax::<B>(is(Op::Fmax), a, b);
    let fset = fp::fsetp::<B, 32, 8, 23>(md, a, b);
    let unsigned_cvt = m(2);
    let i2f = fp::i2f::<B>(a, !unsigned_cvt, rm);
    let f2i = fp::f2i::<B>(a, !unsigned_cvt, rm);

    // Result mux by opcode (one-hot select over the ops).
    let table: [(Op, S<B, 32>); 21] = [
        (Op::Iadd, a + b),
        (Op::Isub, a - b),
        (Op::Imul, mulr),
        (Op::Imad, imad),
        (Op::Imin, imin),
        (Op::Imax, imax),
        (Op::Shl, shl),
        (Op::Shr, shr),
        (Op::And, a & b),
        (Op::Or, a | b),
        (Op::Xor, a ^ b),
        (Op::Not, !b),
        (Op::Sel, sel),
        (Op::Iabs, iabs),
        (Op::Fadd, fpr),
        (Op::Fmul, fpr),
        (Op::Fmad, fpr),
        (Op::Ffma, fpr),
        (Op::Fmin, fmm),
        (Op::Fmax, fmm),
        (Op::Mov, b),
    ];
    let mut res = z32;
    for (o, v) in table {
        res = res | is(o).mux(v, z32);
    }
    res = res | is(Op::I2f).mux(i2f, z32) | is(Op::F2i).mux(f2i, z32);
    let pred = (is(Op::Isetp) & isetp) | (is(Op::Fsetp) & fset);
    let ok = err.eq(k::<B, 2>(0));
    LaneOut {
        res: ok.mux(res, z32),
        pred: ok & pred,
        err,
    }
}

/// Integer multiplier: 64-bit product of sign- or zero-extended operands,
/// the low or high word. Modes (MulMode): 0 lo, 1 hi signed, 2 hi unsigned,
/// 3 u24, 4 s24.
#[inline(always)]
fn int_mul<B: Backend>(md: S<B, 4>, a: S<B, 32>, b: S<B, 32>) -> S<B, 32> {
    let mmode: S<B, 3> = md.slice::<0, 3>();
    let is24 = mmode.eq(k::<B, 3>(3)) | mmode.eq(k::<B, 3>(4));
    let sgn = mmode.eq(k::<B, 3>(1)) | mmode.eq(k::<B, 3>(4));
    let ext = |x: S<B, 32>| -> S<B, 64> {
        let x24 = x & k::<B, 32>(0xff_ffff);
        let s24 = x.slice::<0, 24>().sext::<64>();
        let s32 = x.sext::<64>();
        is24.mux(sgn.mux(s24, x24.zext::<64>()), sgn.mux(s32, x.zext::<64>()))
    };
    let prod: S<B, 64> = ext(a).mul::<64, 64>(ext(b));
    let hi = mmode.eq(k::<B, 3>(1)) | mmode.eq(k::<B, 3>(2));
    hi.mux(prod.slice::<32, 32>(), prod.slice::<0, 32>())
}

/// ISETP: mod[2:0] the comparison (EQ NE LT LE GT GE), mod[3] unsigned.
#[inline(always)]
fn int_setp<B: Backend>(md: S<B, 4>, a: S<B, 32>, b: S<B, 32>) -> S<B, 1> {
    let ilt3 = field::<B>(md, 3).mux(a.ult(b), a.slt(b));
    let ieq = a.eq(b);
    let cmp: S<B, 3> = md.slice::<0, 3>();
    cmp.eq(k::<B, 3>(0)).mux(
        ieq,
        cmp.eq(k::<B, 3>(1)).mux(
            !ieq,
            cmp.eq(k::<B, 3>(2)).mux(
                ilt3,
                cmp.eq(k::<B, 3>(3))
                    .mux(ilt3 | ieq, cmp.eq(k::<B, 3>(4)).mux(!ilt3 & !ieq, !ilt3)),
            ),
        ),
    )
}

/// [`lane_comb`] for a known opcode `o` (simulation only): the same result,
/// predicate and error, evaluating only the datapath `o` selects. The full
/// logic (what the Verilog has) is checked against it every cycle by the
/// co-simulation, and both against `golden::arith` by the sweeps.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn lane_known<B: Backend>(
    flavor: Flavor,
    o: u64,
    err: S<B, 2>,
    md: S<B, 4>,
    a: S<B, 32>,
    b: S<B, 32>,
    c: S<B, 32>,
    pa: S<B, 1>,
) -> LaneOut<B> {
    let z32 = k::<B, 32>(0);
    let (f, t) = (k::<B, 1>(0), k::<B, 1>(1));
    if err.known() != Some(0) {
        return LaneOut { res: z32, pred: f, err };
    }
    let Some(op) = Op::from_code(o as u8) else {
        // Not reached: an unknown opcode is an error above.
        return LaneOut { res: z32, pred: f, err };
    };
    let m = |i: usize| field::<B>(md, i);
    let rm: S<B, 2> = md.slice::<0, 2>();
    let bit = |x: bool| if x { t } else { f };
    let ilt = || m(0).mux(a.ult(b), a.slt(b));
    let fp = || {
        let sign = k::<B, 32>(0x8000_0000);
        let three = matches!(op, Op::Fmad | Op::Ffma);
        let fa = a ^ m(2).mux(sign, z32);
        let fb = b ^ (m(3) & bit(!three)).mux(sign, z32);
        let fc = c ^ (m(3) & bit(three)).mux(sign, z32);
        match flavor {
            Flavor::Tesla => fp::tesla_fp32::<B>(bit(op == Op::Fmul), bit(op == Op::Fmad), fa, fb, fc, rm).0,
            Flavor::Ieee => fp::f32_op::<B>(bit(op == Op::Fadd), bit(op == Op::Fmul), fa, fb, fc, rm),
        }
    };
    let (res, pred) = match op {
        Op::Iadd => (a + b, f),
        Op::Isub => (a - b, f),
        Op::Imul => (int_mul::<B>(md, a, b), f),
        Op::Imad => (int_mul::<B>(md, a, b) + c, f),
        Op::Imin => (ilt().mux(a, b), f),
        Op::Imax => (ilt().mux(b, a), f),
        Op::Shl => (a.shl(b), f),
        Op::Shr => (m(0).mux(a.sar(b), a.shr(b)), f),
        Op::And => (a & b, f),
        Op::Or => (a | b, f),
        Op::Xor => (a ^ b, f),
        Op::Not => (!b, f),
        Op::Sel => ((pa ^ m(3)).mux(a, b), f),
        Op::Iabs => (a.slice::<31, 1>().mux(z32 - a, a), f),
        Op::Fadd | Op::Fmul | Op::Fmad | Op::Ffma => (fp(), f),
        Op::Fmin | Op::Fmax => (fp::f32_minmax::<B>(bit(op == Op::Fmax), a, b), f),
        Op::Mov => (b, f),
        Op::I2f => (fp::i2f::<B>(a, !m(2), rm), f),
        Op::F2i => (fp::f2i::<B>(a, !m(2), rm), f),
        Op::Isetp => (z32, int_setp::<B>(md, a, b)),
        Op::Fsetp => (z32, fp::fsetp::<B, 32, 8, 23>(md, a, b)),
        _ => (z32, f),
    };
    LaneOut { res, pred, err }
}

/// The lane's datapath as a function of plain integers (concrete backend):
/// what the bit-exact sweeps and `smrtl testfloat --rtl`'s checks drive.
pub fn lane_fn(flavor: Flavor) -> impl Fn(u8, u8, u32, u32, u32, bool) -> crate::testbenches::sp_ref::RefOut {
    use crate::hdl::{Bits, Concrete};
    move |op, m, a, b, c, pa| {
        let o = lane_comb::<Concrete>(
            flavor,
            Bits::new(op as u64),
            Bits::new(m as u64),
            Bits::new(a as u64),
            Bits::new(b as u64),
            Bits::new(c as u64),
            Bits::new(pa as u64),
        );
        crate::testbenches::sp_ref::RefOut {
            res: o.res.to_u64(),
            pred: o.pred.to_u64() == 1,
            err: o.err.to_u64() as u8,
        }
    }
}

/// Bit `i` of a 4-bit modifier.
#[inline(always)]
fn field<B: Backend>(md: S<B, 4>, i: usize) -> S<B, 1> {
    fp::field::<B, 4, 1>(md, i)
}

/// One SP lane with `LAT` hot-cycle pipeline registers.
#[derive(Debug, Clone)]
pub struct SpLane {
    decl: Decl,
    flavor: Flavor,
    res: Vec<Reg<32>>,
    pred: Vec<Reg<1>>,
    err: Vec<Reg<2>>,
}

impl SpLane {
    /// A lane of `flavor` with `lat >= 1` pipeline stages.
    pub fn new(flavor: Flavor, lat: usize) -> Self {
        assert!(
            lat >= 1,
            "sp_lane latency must be at least 1 (SmConfig::validate checks it)"
        );
        let mut d = Decl::new();
        let res = (0..lat)
            .map(|s| d.reg_noreset(&format!("res_s{s}"), Domain::Hot))
            .collect();
        let pred = (0..lat)
            .map(|s| d.reg_noreset(&format!("pred_s{s}"), Domain::Hot))
            .collect();
        let err = (0..lat).map(|s| d.reg(&format!("err_s{s}"), Domain::Hot, 0)).collect();
        SpLane {
            decl: d,
            flavor,
            res,
            pred,
            err,
        }
    }
    /// Pipeline depth in hot cycles.
    pub fn latency(&self) -> usize {
        self.res.len()
    }
}

impl Block for SpLane {
    type In<B: Backend> = SpLaneIn<B>;
    type Out<B: Backend> = SpLaneOut<B>;

    fn module_name(&self) -> String {
        format!("sp_lane_{}_l{}", self.flavor.name(), self.latency())
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &SpLaneIn<C::B>) -> SpLaneOut<C::B> {
        let o = lane_comb::<C::B>(self.flavor, i.op_i, i.mod_i, i.a_i, i.b_i, i.c_i, i.pa_i);
        let (mut r, mut p, mut e) = (o.res, o.pred, o.err);
        for s in 0..self.latency() {
            cx.d(self.res[s], r);
            cx.d(self.pred[s], p);
            cx.d(self.err[s], e);
            r = cx.q(self.res[s]);
            p = cx.q(self.pred[s]);
            e = cx.q(self.err[s]);
        }
        SpLaneOut {
            res_o: r,
            pred_o: p,
            err_o: e.any(),
            err_code_o: e.zext::<8>(),
        }
    }
}
