//! `sp_lane`: one SP lane (FP32 + INT32), its own Verilog module so the SP
//! array (and later GPU-CC, which configures each lane with its own
//! instruction) can drive `op`/`mod` per lane.
//!
//! ```text
//!  op_i mod_i a_i b_i c_i pa_i  (hot domain)
//!     |
//!  1  decode (ISA table) -> err; one-cycle ops (add, logic, shifts,
//!     min/max, SEL, IABS, MOV, FMIN/FMAX, ISETP/FSETP); FP negations;
//!     FP significand product (24 x 24)
//!     [cut 1: s1_op s1_md s1_err | s1_ires s1_ipred | s1_a s1_b s1_c s1_prod]
//!  2  integer side: IMUL/IMAD's four 16 x 16 partial products of the
//!     operands as the mode extends them (lo/hi/24-bit), I2F normalize,
//!     F2I shift; FP stage 2 (Tesla: FMUL placed, adder operands
//!     ordered; IEEE: product and addend placed)
//!                 [cut 2: .. s2_p00 .. s2_p11 s2_corr | s2_iw s2_ie s2_iflag]
//!  3  integer side: IMUL's 64-bit product, I2F round, F2I round and
//!     saturate; FP stage 3 (Tesla: FMUL rounded, alignment shift; IEEE:
//!     adder operands ordered)            [cut 3: .. s3_ip]
//!  4  integer side: IMUL word select + c; FP stage 4
//!  5 .. 6 (Tesla) / 7 (IEEE): FP stages (fp::units: add, normalize,
//!     subnormal shift); the integer result and the control wait beside
//!     them                               [cuts 4 .. 6 / 7]
//!  last: result by class (FP unit or integer side), 0 on error
//!     [output registers res_s<j> pred_s<j> err_s<j>, up to LAT in all]
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
//!   show on the outputs in hot cycle `t + LAT`. The datapath is cut into
//!   [`stages`] stages (7 Tesla, 8 IEEE; the FP unit's, [`fp::units`]);
//!   a register goes after each of the first `min(LAT, stages) - 1` stages,
//!   the rest after the last stage (`LAT` = 8: all cuts, then 2 or 1
//!   output registers). A shorter `LAT` runs the uncut stages in one hot
//!   cycle; the behaviour at the ports depends on `LAT` only. Each cut's FP
//!   registers load only for an FP operation (the IMUL and conversion
//!   operands ride in cut 1's), so they hold while the lane runs integer
//!   code (an FPGA flip-flop's clock enable).
//! * Clock domain: hot; no reset on the datapath registers.

use crate::golden::isa::{ModKind, Op, Unit};
use crate::hdl::pipe::{Clocked, Comb, Cutter};
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

/// Result of the lane's datapath.
pub struct LaneOut<B: Backend> {
    pub res: S<B, 32>,
    pub pred: S<B, 1>,
    /// 0 none, 1 not implemented / bad modifier, 2 FMAD rounding.
    pub err: S<B, 2>,
}

crate::pipe_stage! {
    /// The lane's control beside the datapath: opcode, modifier and error
    /// code of the operation in a stage.
    pub struct LaneCtl, LaneCtlRegs { op: 7, md: 4, err: 2 = 0 }
}

crate::pipe_stage! {
    /// The integer side of a stage: from stage 1 the result of the
    /// one-cycle operations, from stage 2 also IMUL/IMAD and the
    /// conversions; the predicate of ISETP/FSETP.
    pub struct LaneInt, LaneIntRegs { ires: 32, ipred: 1 }
}

crate::pipe_stage! {
    /// A conversion between stages 2 and 3: I2F's normalized window
    /// (`iw[50:0]`), exponent `ie` and flags (`iflag` bit 0 negative, bit 1
    /// zero); or F2I's shifted significand `iw` (bit 0 negative, 1 too
    /// big, 2 NaN).
    pub struct LaneWide, LaneWideRegs { iw: 64, ie: 16, iflag: 3 }
}

crate::pipe_stage! {
    /// IMUL/IMAD between stages 2 and 3: the four 16 x 16 partial products
    /// `p<i><j>` (halves `i` of `a`, `j` of `b`) of the operands' low
    /// words as the mode extends them, and the sign correction `corr`: the
    /// product of the 64-bit extensions is `a * b - corr * 2^32` modulo
    /// 2^64.
    pub struct LaneMul, LaneMulRegs { p00: 32, p01: 32, p10: 32, p11: 32, corr: 33 }
}

crate::pipe_stage! {
    /// IMUL/IMAD between stages 3 and 4: the 64-bit product.
    pub struct LaneProd, LaneProdRegs { ip: 64 }
}

/// Computing stages of a lane's datapath (the FP unit's depth, see
/// [`fp::units`]): 7 for the Tesla unit, 8 for the IEEE one. A lane with
/// `LAT` pipeline registers puts one after each of the first
/// `min(LAT, STAGES) - 1` stages and the rest after the last one.
pub fn stages(flavor: Flavor) -> usize {
    match flavor {
        Flavor::Tesla => 7,
        Flavor::Ieee => 8,
    }
}

/// The registers of a lane's internal cuts: index `k - 1` is the cut after
/// stage `k`; `None` where the latency leaves no register (the stages on
/// either side run in one hot cycle).
#[derive(Debug, Clone, Default)]
pub struct LaneCuts {
    ctl: Vec<Option<LaneCtlRegs>>,
    int: Vec<Option<LaneIntRegs>>,
    /// Cut 2: a conversion's first half.
    wide: Option<LaneWideRegs>,
    /// Cut 2: IMUL's partial products.
    imul: Option<LaneMulRegs>,
    /// Cut 3: IMUL's product.
    prod: Option<LaneProdRegs>,
    /// Cut 1: operands and significand product.
    mul: Option<fp::FpMulRegs<32, 48>>,
    /// Tesla cut 2.
    t_sw: Option<fp::TeslaSwappedRegs>,
    /// IEEE cut 2.
    pl: Option<fp::FmaPlacedRegs<32, 51>>,
    /// Tesla cut 3.
    t_al: Option<fp::TeslaAlignedRegs>,
    /// IEEE cut 3.
    sw: Option<fp::FpSwappedRegs<32, 51>>,
    /// IEEE cut 4.
    al: Option<fp::FpAlignedRegs<32, 51>>,
    /// Tesla cut 4, IEEE cut 5.
    add: Option<fp::FpAddedRegs<32, 51>>,
    /// Tesla cut 5, IEEE cut 6.
    sum: Option<fp::FpSumRegs<32, 51>>,
    /// Tesla cut 6, IEEE cut 7.
    rnd: Option<fp::FpRoundRegs<32, 51>>,
}

impl LaneCuts {
    /// No registers: the whole datapath in one cycle.
    pub fn none(flavor: Flavor) -> Self {
        let n = stages(flavor) - 1;
        LaneCuts {
            ctl: vec![None; n],
            int: vec![None; n],
            ..Default::default()
        }
    }

    /// Declare the registers of the first `cuts` cuts (`s<k>_<field>`).
    fn new(d: &mut Decl, flavor: Flavor, cuts: usize) -> Self {
        let mut c = Self::none(flavor);
        let h = Domain::Hot;
        for k in 1..=cuts {
            let p = format!("s{k}");
            c.ctl[k - 1] = Some(LaneCtlRegs::new(d, &p, h));
            c.int[k - 1] = Some(LaneIntRegs::new(d, &p, h));
            if k == 2 {
                c.wide = Some(LaneWideRegs::new(d, &p, h));
                c.imul = Some(LaneMulRegs::new(d, &p, h));
            }
            if k == 3 {
                c.prod = Some(LaneProdRegs::new(d, &p, h));
            }
            // The FP unit's cut after stage k. Tesla's cuts 4 .. 6 carry
            // what IEEE's 5 .. 7 do: the Tesla unit orders and shifts its
            // addends in stages 2 and 3, the IEEE one in stages 3 and 4.
            let j = if flavor == Flavor::Tesla && k >= 4 { k + 1 } else { k };
            match (flavor, j) {
                (_, 1) => c.mul = Some(fp::FpMulRegs::new(d, &p, h)),
                (Flavor::Tesla, 2) => c.t_sw = Some(fp::TeslaSwappedRegs::new(d, &p, h)),
                (Flavor::Ieee, 2) => c.pl = Some(fp::FmaPlacedRegs::new(d, &p, h)),
                (Flavor::Tesla, 3) => c.t_al = Some(fp::TeslaAlignedRegs::new(d, &p, h)),
                (Flavor::Ieee, 3) => c.sw = Some(fp::FpSwappedRegs::new(d, &p, h)),
                (Flavor::Ieee, 4) => c.al = Some(fp::FpAlignedRegs::new(d, &p, h)),
                (_, 5) => c.add = Some(fp::FpAddedRegs::new(d, &p, h)),
                (_, 6) => c.sum = Some(fp::FpSumRegs::new(d, &p, h)),
                (_, 7) => c.rnd = Some(fp::FpRoundRegs::new(d, &p, h)),
                _ => unreachable!("cut {k} beyond the stages of {flavor:?}"),
            }
        }
        c
    }

    /// Registered cuts.
    pub fn count(&self) -> usize {
        self.ctl.iter().filter(|c| c.is_some()).count()
    }
}

/// The operation classes a stage decodes from its control: the FP unit,
/// IMUL/IMAD, the conversions (all low for an erring operation; the rest
/// are the one-cycle operations).
#[inline(always)]
fn classes<B: Backend>(c: &LaneCtl<B>) -> (S<B, 1>, S<B, 1>, S<B, 1>) {
    let is = |o: Op| c.op.eq(k::<B, 7>(o as u64));
    let ok = c.err.eq(k::<B, 2>(0));
    let fp = is(Op::Fadd) | is(Op::Fmul) | is(Op::Fmad) | is(Op::Ffma);
    (
        ok & fp,
        ok & (is(Op::Imul) | is(Op::Imad)),
        ok & (is(Op::I2f) | is(Op::F2i)),
    )
}

/// The error code of an operation (decoder of the ISA table): 1 for an
/// opcode the lane does not implement or a modifier the ISA does not
/// define for it, 2 for FMAD with a rounding mode other than RN.
#[inline(always)]
fn lane_err<B: Backend>(flavor: Flavor, op: S<B, 7>, md: S<B, 4>) -> S<B, 2> {
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
        return k::<B, 2>(e);
    }
    let is = |o: Op| op.eq(k::<B, 7>(o as u64));
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
    let fmad_rm = is(Op::Fmad) & md.slice::<0, 2>().ne(k::<B, 2>(0));
    (!known | mod_bad).mux(k::<B, 2>(1), fmad_rm.mux(k::<B, 2>(2), k::<B, 2>(0)))
}

/// The one-cycle operations (stage 1): integer add, logic, shifts,
/// min/max, SEL, IABS, MOV, FP min/max, and the ISETP/FSETP predicate.
/// Any other opcode gives 0.
#[inline(always)]
fn simple<B: Backend>(op: S<B, 7>, md: S<B, 4>, a: S<B, 32>, b: S<B, 32>, pa: S<B, 1>) -> LaneInt<B> {
    let m = |i: usize| field::<B>(md, i);
    let z32 = k::<B, 32>(0);
    let f = k::<B, 1>(0);
    let ilt = || m(0).mux(a.ult(b), a.slt(b));
    let one = |o: Op| -> (S<B, 32>, S<B, 1>) {
        match o {
            Op::Iadd => (a + b, f),
            Op::Isub => (a - b, f),
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
            Op::Fmin => (fp::f32_minmax::<B>(f, a, b), f),
            Op::Fmax => (fp::f32_minmax::<B>(!f, a, b), f),
            Op::Mov => (b, f),
            Op::Isetp => (z32, int_setp::<B>(md, a, b)),
            Op::Fsetp => (z32, fp::fsetp::<B, 32, 8, 23>(md, a, b)),
            _ => (z32, f),
        }
    };
    const SIMPLE: [Op; 17] = [
        Op::Iadd,
        Op::Isub,
        Op::Imin,
        Op::Imax,
        Op::Shl,
        Op::Shr,
        Op::And,
        Op::Or,
        Op::Xor,
        Op::Not,
        Op::Sel,
        Op::Iabs,
        Op::Fmin,
        Op::Fmax,
        Op::Mov,
        Op::Isetp,
        Op::Fsetp,
    ];
    if let Some(o) = op.known() {
        // Simulation only: the selected operation alone.
        let (ires, ipred) = Op::from_code(o as u8).map_or((z32, f), one);
        return LaneInt { ires, ipred };
    }
    // One-hot select over the operations (shared comparators: IMIN/IMAX
    // use one, FMIN/FMAX one min/max unit).
    let is = |o: Op| op.eq(k::<B, 7>(o as u64));
    let lt = ilt();
    let fmm = fp::f32_minmax::<B>(is(Op::Fmax), a, b);
    let mut ires = z32;
    let mut ipred = f;
    for o in SIMPLE {
        let (r, p) = match o {
            Op::Imin => (lt.mux(a, b), f),
            Op::Imax => (lt.mux(b, a), f),
            Op::Fmin | Op::Fmax => (fmm, f),
            _ => one(o),
        };
        ires = ires | is(o).mux(r, z32);
        ipred = ipred | (is(o) & p);
    }
    LaneInt { ires, ipred }
}

/// Stage 2 of the integer side for a conversion: I2F (normalize) or F2I
/// (shift) on the operands of cut 1.
#[inline(always)]
fn int_wide<B: Backend>(c: &LaneCtl<B>, x: &fp::FpMul<B, 32, 48>) -> LaneWide<B> {
    let i2f = c.op.eq(k::<B, 7>(Op::I2f as u64));
    let unsigned_cvt = field::<B>(c.md, 2);
    let wi = || {
        let (neg, zero, e, xn) = fp::int_to_fp_norm::<B, 51>(x.a, !unsigned_cvt);
        LaneWide {
            iw: xn.zext::<64>(),
            ie: e,
            iflag: k::<B, 1>(0).concat::<2, 3>(zero.concat::<1, 2>(neg)),
        }
    };
    let wf = || {
        let (v, big, nan, neg) = fp::fp_to_int_shift::<B, 32, 8, 23, 24>(x.a);
        LaneWide {
            iw: v,
            ie: k::<B, 16>(0),
            iflag: nan.concat::<2, 3>(big.concat::<1, 2>(neg)),
        }
    };
    match i2f.known() {
        Some(1) => wi(),
        Some(_) => wf(),
        None => {
            let (a, b) = (wi(), wf());
            LaneWide {
                iw: i2f.mux(a.iw, b.iw),
                ie: i2f.mux(a.ie, b.ie),
                iflag: i2f.mux(a.iflag, b.iflag),
            }
        }
    }
}

/// Stage 3 of the integer side: I2F (round) or F2I (round, saturate),
/// else the value of stage 2 (the one-cycle result, or IMAD's `c`).
#[inline(always)]
fn int_finish<B: Backend>(c: &LaneCtl<B>, cvt: S<B, 1>, i: LaneInt<B>, w: &LaneWide<B>) -> LaneInt<B> {
    let i2f = c.op.eq(k::<B, 7>(Op::I2f as u64));
    let rm: S<B, 2> = c.md.slice::<0, 2>();
    let unsigned_cvt = field::<B>(c.md, 2);
    let fl = |b: usize| fp::field::<B, 3, 1>(w.iflag, b);
    let ri = || fp::int_to_fp_round::<B, 32, 8, 23, 51, 48>(fl(0), fl(1), w.ie, w.iw.slice::<0, 51>(), rm);
    let rf = || fp::fp_to_int_round::<B>(w.iw, fl(1), fl(2), fl(0), !unsigned_cvt, rm);
    let ires = match (cvt.known(), i2f.known()) {
        (Some(1), Some(1)) => ri(),
        (Some(1), Some(0)) => rf(),
        (Some(0), _) => i.ires,
        _ => cvt.mux(i2f.mux(ri(), rf()), i.ires),
    };
    LaneInt { ires, ipred: i.ipred }
}

/// The lane's datapath as stages, run through `x`: combinationally
/// ([`pipe::Comb`], one cycle) or with the registers of `cuts`
/// ([`pipe::Clocked`]). Returns the last stage's output (before the
/// lane's output registers).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn lane_pipe<B: Backend, X: Cutter<B>>(
    x: &mut X,
    flavor: Flavor,
    cuts: &LaneCuts,
    op: S<B, 7>,
    md: S<B, 4>,
    a: S<B, 32>,
    b: S<B, 32>,
    c: S<B, 32>,
    pa: S<B, 1>,
) -> LaneOut<B> {
    let t = k::<B, 1>(1);
    // Stage 1: decode, the one-cycle operations, the FP negations (bit 2:
    // a; bit 3: b of two-operand ops, c of multiply-adds) and operand
    // mapping, the significand product.
    let err = lane_err::<B>(flavor, op, md);
    let c0 = LaneCtl { op, md, err };
    let (fp1, mul1, cvt1) = classes::<B>(&c0);
    let i1 = x.cut(cuts.int[0].as_ref(), t, || simple::<B>(op, md, a, b, pa));
    let m1 = x.cut(cuts.mul.as_ref(), fp1 | mul1 | cvt1, || {
        let is = |o: Op| op.eq(k::<B, 7>(o as u64));
        let m = |i: usize| field::<B>(md, i);
        let z32 = k::<B, 32>(0);
        let sign = k::<B, 32>(0x8000_0000);
        let three = is(Op::Fmad) | is(Op::Ffma);
        // The FP opcodes without the error decode (an erring operation's
        // FP result is dropped at the end), so the decoder is not in front
        // of the multiplier.
        let fpop = is(Op::Fadd) | is(Op::Fmul) | three;
        let fa = a ^ (fpop & m(2)).mux(sign, z32);
        let fb = b ^ (fpop & m(3) & !three).mux(sign, z32);
        let fc = c ^ (fpop & m(3) & three).mux(sign, z32);
        match flavor {
            Flavor::Tesla => fp::fp_mul::<B, 32, 8, 23, 24, 48>(fa, fb, fc, true),
            Flavor::Ieee => {
                let (fa, fb, fc) = fp::fma_operands::<B, 32>(is(Op::Fadd), fa, fb, fc, 0x3f80_0000);
                fp::fp_mul::<B, 32, 8, 23, 24, 48>(fa, fb, fc, false)
            }
        }
    });
    let c1 = x.cut(cuts.ctl[0].as_ref(), t, || c0);

    // Stage 2: IMUL's partial products, a conversion's first half (IMAD's
    // `c` rides in `ires`); FP stage 2.
    let (fp, mul, cvt) = classes::<B>(&c1);
    let is = |c: &LaneCtl<B>, o: Op| c.op.eq(k::<B, 7>(o as u64));
    let rm = |c: &LaneCtl<B>| -> S<B, 2> { c.md.slice::<0, 2>() };
    let p2 = x.cut(cuts.imul.as_ref(), mul, || int_mul_pp::<B>(c1.md, m1.a, m1.b));
    let w2 = x.cut(cuts.wide.as_ref(), cvt, || int_wide::<B>(&c1, &m1));
    let i2 = x.cut(cuts.int[1].as_ref(), t, || LaneInt {
        ires: mul.mux(is(&c1, Op::Imad).mux(m1.c, k::<B, 32>(0)), i1.ires),
        ipred: i1.ipred,
    });
    let c2 = x.cut(cuts.ctl[1].as_ref(), t, || c1);
    // Stage 3: IMUL's product, a conversion's second half; FP stage 3.
    let (_, mul2, cvt2) = classes::<B>(&c2);
    let p3 = x.cut(cuts.prod.as_ref(), mul2, || LaneProd {
        ip: int_mul_sum::<B>(p2),
    });
    let i3 = x.cut(cuts.int[2].as_ref(), t, || int_finish::<B>(&c2, cvt2, i2, &w2));
    let c3 = x.cut(cuts.ctl[2].as_ref(), t, || c2);
    // Stage 4: IMUL's word select and `+ c`. From here the integer result
    // and the control wait beside the FP stages: `ride(k, ..)` crosses cut
    // k.
    let mul3 = classes::<B>(&c3).1;
    let i3 = match mul3.known() {
        Some(0) => i3,
        _ => LaneInt {
            ires: mul3.mux(int_mul_sel::<B>(c3.md, p3.ip) + i3.ires, i3.ires),
            ipred: i3.ipred,
        },
    };
    let ride = |x: &mut X, k: usize, i: LaneInt<B>, c: LaneCtl<B>| {
        let i = x.cut(cuts.int[k - 1].as_ref(), t, || i);
        let c = x.cut(cuts.ctl[k - 1].as_ref(), t, || c);
        (i, c)
    };
    let fp_of = |c: &LaneCtl<B>| classes::<B>(c).0;
    let (fres, cl) = match flavor {
        Flavor::Tesla => {
            let f2 = x.cut(cuts.t_sw.as_ref(), fp, || fp::tesla_swap::<B>(m1, is(&c1, Op::Fmad)));
            let f3 = x.cut(cuts.t_al.as_ref(), fp_of(&c2), || {
                fp::tesla_shift::<B>(f2, is(&c2, Op::Fmad), rm(&c2))
            });
            let f4 = x.cut(cuts.add.as_ref(), fp_of(&c3), || {
                fp::tesla_add::<B>(f3, is(&c3, Op::Fmul), is(&c3, Op::Fmad))
            });
            let (i4, c4) = ride(x, 4, i3, c3);
            let f5 = x.cut(cuts.sum.as_ref(), fp_of(&c4), || fp::fp_norm::<B, 32, 51>(f4));
            let (i5, c5) = ride(x, 5, i4, c4);
            let f6 = x.cut(cuts.rnd.as_ref(), fp_of(&c5), || {
                fp::fp_round_shift::<B, 32, 8, 51>(f5, is(&c5, Op::Fmad))
            });
            let (i6, c6) = ride(x, 6, i5, c5);
            let fp = fp_of(&c6);
            let fres = if fp.known() == Some(0) {
                k::<B, 32>(0)
            } else {
                fp::tesla_fin::<B>(f6, is(&c6, Op::Fmad), rm(&c6))
            };
            (fres, (c6, i6, fp))
        }
        Flavor::Ieee => {
            let f2 = x.cut(cuts.pl.as_ref(), fp, || {
                fp::fma_place::<B, 32, 8, 23, 24, 48, 51>(m1, rm(&c1), is(&c1, Op::Fmul))
            });
            let f3 = x.cut(cuts.sw.as_ref(), fp_of(&c2), || fp::fma_swap::<B, 32, 51>(f2));
            let f4 = x.cut(cuts.al.as_ref(), fp_of(&c3), || fp::fp_shift::<B, 32, 51>(f3));
            let (i4, c4) = ride(x, 4, i3, c3);
            let f5 = x.cut(cuts.add.as_ref(), fp_of(&c4), || fp::fp_add::<B, 32, 51>(f4));
            let (i5, c5) = ride(x, 5, i4, c4);
            let f6 = x.cut(cuts.sum.as_ref(), fp_of(&c5), || fp::fp_norm::<B, 32, 51>(f5));
            let (i6, c6) = ride(x, 6, i5, c5);
            let f7 = x.cut(cuts.rnd.as_ref(), fp_of(&c6), || {
                fp::fp_round_shift::<B, 32, 8, 51>(f6, t)
            });
            let (i7, c7) = ride(x, 7, i6, c6);
            let fp = fp_of(&c7);
            let fres = if fp.known() == Some(0) {
                k::<B, 32>(0)
            } else {
                let r = rm(&c7);
                fp::fp_fin::<B, 32, 8, 23, 51, 48>(f7, r, !t, fp::fma_zero::<B, 32>(r))
            };
            (fres, (c7, i7, fp))
        }
    };
    // Last stage: the result by class; an erring operation gives 0.
    let (cl, il, fpl) = cl;
    let ok = cl.err.eq(k::<B, 2>(0));
    let res = fpl.mux(fres, il.ires);
    LaneOut {
        res: ok.mux(res, k::<B, 32>(0)),
        pred: ok & il.ipred,
        err: cl.err,
    }
}

/// The lane's whole datapath in one cycle (what the `LAT` registers of a
/// lane too short for the cuts delay; what the bit-exact sweeps drive).
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
    lane_pipe::<B, Comb>(&mut Comb, flavor, &LaneCuts::none(flavor), op, md, a, b, c, pa)
}

/// Integer multiplier, first part: the operands' low words as the mode
/// extends them (MulMode: 0 lo, 1 hi signed, 2 hi unsigned, 3 u24, 4 s24),
/// their four 16 x 16 partial products and the sign correction. With `x`
/// the word and `s` its sign (0 unsigned), the 64-bit extension is `x - s
/// * 2^32` modulo 2^64, so the product is `xa * xb - (sa * xb + sb * xa)
/// * 2^32`.
#[inline(always)]
fn int_mul_pp<B: Backend>(md: S<B, 4>, a: S<B, 32>, b: S<B, 32>) -> LaneMul<B> {
    let mmode: S<B, 3> = md.slice::<0, 3>();
    let is24 = mmode.eq(k::<B, 3>(3)) | mmode.eq(k::<B, 3>(4));
    let sgn = mmode.eq(k::<B, 3>(1)) | mmode.eq(k::<B, 3>(4));
    let ext = |x: S<B, 32>| -> (S<B, 32>, S<B, 1>) {
        let x24 = x & k::<B, 32>(0xff_ffff);
        let s24 = x.slice::<0, 24>().sext::<32>();
        let w = is24.mux(sgn.mux(s24, x24), x);
        (w, sgn & w.slice::<31, 1>())
    };
    let (xa, sa) = ext(a);
    let (xb, sb) = ext(b);
    let h = |x: S<B, 32>, i: usize| -> S<B, 16> {
        if i == 0 {
            x.slice::<0, 16>()
        } else {
            x.slice::<16, 16>()
        }
    };
    let pp = |i: usize, j: usize| h(xa, i).mul::<16, 32>(h(xb, j));
    let z = k::<B, 33>(0);
    LaneMul {
        p00: pp(0, 0),
        p01: pp(0, 1),
        p10: pp(1, 0),
        p11: pp(1, 1),
        corr: sa.mux(xb.zext::<33>(), z) + sb.mux(xa.zext::<33>(), z),
    }
}

/// Integer multiplier, second part: the 64-bit product from the partial
/// products and the sign correction.
#[inline(always)]
fn int_mul_sum<B: Backend>(m: LaneMul<B>) -> S<B, 64> {
    let w = |x: S<B, 32>| x.zext::<64>();
    let mid = w(m.p01) + w(m.p10);
    w(m.p00) + fp::shl_c::<B, 64>(mid, 16) + fp::shl_c::<B, 64>(w(m.p11) - m.corr.zext::<64>(), 32)
}

/// Integer multiplier, last part: the low or the high word of the product
/// by the mode.
#[inline(always)]
fn int_mul_sel<B: Backend>(md: S<B, 4>, prod: S<B, 64>) -> S<B, 32> {
    let mmode: S<B, 3> = md.slice::<0, 3>();
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

/// One SP lane with `LAT` hot-cycle pipeline registers: the internal
/// cuts of [`LaneCuts`] (as many as `LAT` allows), then the output
/// registers `res_s<j>`, `pred_s<j>`, `err_s<j>` for the remaining stages
/// (`j` = cuts .. `LAT`-1).
#[derive(Debug, Clone)]
pub struct SpLane {
    decl: Decl,
    flavor: Flavor,
    cuts: LaneCuts,
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
        let ncut = (stages(flavor) - 1).min(lat - 1);
        let cuts = LaneCuts::new(&mut d, flavor, ncut);
        let res = (ncut..lat)
            .map(|s| d.reg_noreset(&format!("res_s{s}"), Domain::Hot))
            .collect();
        let pred = (ncut..lat)
            .map(|s| d.reg_noreset(&format!("pred_s{s}"), Domain::Hot))
            .collect();
        let err = (ncut..lat)
            .map(|s| d.reg(&format!("err_s{s}"), Domain::Hot, 0))
            .collect();
        SpLane {
            decl: d,
            flavor,
            cuts,
            res,
            pred,
            err,
        }
    }
    /// Pipeline depth in hot cycles.
    pub fn latency(&self) -> usize {
        self.cuts.count() + self.res.len()
    }
    /// Internal cuts (the first output register is `res_s<cuts>`).
    pub fn cuts(&self) -> usize {
        self.cuts.count()
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
        let o = lane_pipe::<C::B, _>(
            &mut Clocked(cx),
            self.flavor,
            &self.cuts,
            i.op_i,
            i.mod_i,
            i.a_i,
            i.b_i,
            i.c_i,
            i.pa_i,
        );
        let (mut r, mut p, mut e) = (o.res, o.pred, o.err);
        for s in 0..self.res.len() {
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
