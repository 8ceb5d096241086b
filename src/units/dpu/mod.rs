//! FP64 unit (DPU): DFMA with one rounding, DADD, DMUL, DSETP and the FP64
//! conversions I2D D2I F2D D2F, all four rounding modes, subnormals at full
//! speed (seed 000), on the hot clock.
//!
//! ```text
//!  dpu_* (core)
//!     | engine (src/units/sp/engine.rs): buffer, pass sequencer,
//!     | control pipeline, collector, hot<->core
//!  u_lane0 .. u_lane<L-1>: dpu_lane
//!     one IEEE FMA datapath (src/units/fp, FP64 widths: 53x53 multiplier,
//!     109-bit aligned adder, LZC, rounder) for DFMA/DADD/DMUL, compare,
//!     converters; LAT pipeline stages
//!     | dpu_res_* (core)
//! ```
//!
//! * Lanes: gt200 one unit (`fp64_units = 1`): a warp instruction takes 32
//!   hot cycles (accepted every 16 core cycles); fermi `sp_lanes /
//!   fp64_rate_divisor` = 16 lanes: 2 hot cycles (docs/sm.md section 4; an
//!   FP64 issue occupies both SP groups, which the scheduler enforces).
//! * Ports (docs/sm.md 5.3/5.4, core domain): `dpu_valid_i`, `dpu_ready_o`
//!   (Moore), `dpu_op_i[7]`, `dpu_mod_i[4]`, `dpu_mask_i[1;32]`,
//!   `dpu_a_i`/`_b_i`/`_c_i[64;32]` (32-bit operands of I2D in the low half
//!   of `a`), `dpu_tag_i[32]`; `dpu_res_valid_o` (one core cycle),
//!   `dpu_res_tag_o`, `dpu_res_mask_o`, `dpu_res_data_o[64;32]` (D2I and
//!   D2F results in the low half, high half 0; inactive threads 0),
//!   `dpu_res_pred_o[1;32]` (DSETP), `dpu_err_o`, `dpu_err_code_o[8]`
//!   (1: not an FP64 op or a bad modifier; the data are 0).
//! * Modifiers as the ISA: bits 1..0 rounding; DADD/DMUL bit 2 negates
//!   `a`, bit 3 `b`; DFMA bit 2 `a`, bit 3 `c`; conversions bit 2 unsigned.
//! * Latency: `dpu_latency` = `LAT` lane stages (the FMA's 8 stages cut
//!   apart as far as `LAT` allows, the rest output registers:
//!   [`DpuLane`]); the result is sampled at the core edge `t0 + passes + LAT + 1` (LAT odd) or `+ 2` (LAT even),
//!   `t0` the accepting core edge (see the engine).

pub mod waves;

use crate::config::SmConfig;
use crate::golden::isa::{Op, Unit};
use crate::hdl::pipe::{Clocked, Comb, Cutter};
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};
use crate::units::fp::{self, k, S as BS};
use crate::units::sp::engine::{EngIn, Engine, LaneOps, LaneUnit, WARP};
use crate::units::sp::lane::{LaneCtl, LaneCtlRegs};

crate::ports! {
    /// One FP64 lane's operation and operands.
    pub struct DpuLaneIn {
        op_i: 7 @ Hot,
        mod_i: 4 @ Hot,
        a_i: 64 @ Hot,
        b_i: 64 @ Hot,
        c_i: 64 @ Hot,
    }
}
crate::ports! {
    /// Result after `LAT` hot cycles.
    pub struct DpuLaneOut {
        res_o: 64 @ Hot,
        pred_o: 1 @ Hot,
        err_o: 1 @ Hot,
        err_code_o: 8 @ Hot,
    }
}

crate::pipe_stage! {
    /// The non-FMA side of an FP64 lane stage: the conversion result (from
    /// stage 4) and the DSETP predicate (from stage 1).
    pub struct DpuSide, DpuSideRegs { dres: 64, dpred: 1 }
}

crate::pipe_stage! {
    /// A conversion between its stages (cuts 2 and 3): the window `dx`
    /// (I2D, F2D 109 bits; D2F 51; D2I the shifted significand, 64), the
    /// exponent `de`, flags `dfl` (bit 0 sign, 1 zero, 2 infinite or too
    /// big for D2I, 3 NaN). At cut 3 a D2F's `de` is the biased exponent
    /// and `dx` the window after the subnormal shift.
    pub struct DpuWide, DpuWideRegs { dx: 109, de: 16, dfl: 4 }
}

/// A conversion's first half as the [`DpuWide`] cut carries it.
#[inline(always)]
fn cvt_wide<B: Backend, const D: usize>(h: fp::CvtHalf<B, D>) -> DpuWide<B> {
    DpuWide {
        dx: h.x.zext::<109>(),
        de: h.e,
        dfl: h
            .nan
            .concat::<3, 4>(h.inf.concat::<2, 3>(h.zero.concat::<1, 2>(h.sign))),
    }
}

/// Computing stages of the FP64 lane (the IEEE FMA's, [`fp::units`]).
pub const DPU_STAGES: usize = 8;

/// The registers of the FP64 lane's internal cuts (index `k - 1`: after
/// stage `k`; `None` where the latency leaves none).
#[derive(Debug, Clone, Default)]
struct DpuCuts {
    ctl: Vec<Option<LaneCtlRegs>>,
    side: Vec<Option<DpuSideRegs>>,
    /// Cut 2: a conversion's first half.
    wide: Option<DpuWideRegs>,
    /// Cut 3: a conversion after D2F's subnormal shift.
    wide3: Option<DpuWideRegs>,
    mul: Option<fp::FpMulRegs<64, 106>>,
    pl: Option<fp::FmaPlacedRegs<64, 109>>,
    sw: Option<fp::FpSwappedRegs<64, 109>>,
    al: Option<fp::FpAlignedRegs<64, 109>>,
    add: Option<fp::FpAddedRegs<64, 109>>,
    sum: Option<fp::FpSumRegs<64, 109>>,
    rnd: Option<fp::FpRoundRegs<64, 109>>,
}

impl DpuCuts {
    fn new(d: &mut Decl, cuts: usize) -> Self {
        let mut c = DpuCuts {
            ctl: vec![None; DPU_STAGES - 1],
            side: vec![None; DPU_STAGES - 1],
            ..Default::default()
        };
        let h = Domain::Hot;
        for k in 1..=cuts {
            let p = format!("s{k}");
            c.ctl[k - 1] = Some(LaneCtlRegs::new(d, &p, h));
            c.side[k - 1] = Some(DpuSideRegs::new(d, &p, h));
            match k {
                1 => c.mul = Some(fp::FpMulRegs::new(d, &p, h)),
                2 => {
                    c.wide = Some(DpuWideRegs::new(d, &p, h));
                    c.pl = Some(fp::FmaPlacedRegs::new(d, &p, h));
                }
                3 => {
                    c.wide3 = Some(DpuWideRegs::new(d, &p, h));
                    c.sw = Some(fp::FpSwappedRegs::new(d, &p, h));
                }
                4 => c.al = Some(fp::FpAlignedRegs::new(d, &p, h)),
                5 => c.add = Some(fp::FpAddedRegs::new(d, &p, h)),
                6 => c.sum = Some(fp::FpSumRegs::new(d, &p, h)),
                _ => c.rnd = Some(fp::FpRoundRegs::new(d, &p, h)),
            }
        }
        c
    }
    fn count(&self) -> usize {
        self.ctl.iter().filter(|c| c.is_some()).count()
    }
}

/// The FP64 lane's error code: 1 for a non-FP64 opcode or a modifier the
/// ISA does not define for it.
#[inline(always)]
fn dpu_err<B: Backend>(op: BS<B, 7>, md: BS<B, 4>) -> BS<B, 2> {
    let is = |o: Op| op.eq(k::<B, 7>(o as u64));
    let mut known = k::<B, 1>(0);
    let mut mod_bad = k::<B, 1>(0);
    for &o in Op::ALL.iter().filter(|o| o.unit() == Unit::Dpu) {
        let modk = o.info().modk;
        let ok_mask: u64 = (0..16u8).filter(|&v| modk.accepts(v)).fold(0, |acc, v| acc | 1 << v);
        let hit = is(o);
        known = known | hit;
        mod_bad = mod_bad | (hit & !k::<B, 16>(ok_mask).shr(md).slice::<0, 1>());
    }
    (!known | mod_bad).mux(k::<B, 2>(1), k::<B, 2>(0))
}

/// The FP64 lane's datapath as stages run through `x` (one cycle through
/// [`Comb`], or with the registers of `cuts`): (result, predicate, error
/// code) of the last stage.
///
/// * Stage 1: decode, DSETP, FP negations and operand mapping, the 53 x 53
///   significand product.
/// * Stage 2: the conversions' first half (I2D D2I F2D D2F, on cut 1's
///   `a`: unpack, normalize, D2I's shift), FMA stage 2.
/// * Stage 3: D2F's subnormal shift, FMA stage 3.
/// * Stage 4: the conversions' last part (round, pack, specials), FMA
///   stage 4.
/// * Stages 5 .. 8: FMA stages; the conversion result waits.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn dpu_pipe<B: Backend, X: Cutter<B>>(
    x: &mut X,
    cuts: &DpuCuts,
    op: BS<B, 7>,
    md: BS<B, 4>,
    a: BS<B, 64>,
    b: BS<B, 64>,
    c: BS<B, 64>,
) -> (BS<B, 64>, BS<B, 1>, BS<B, 2>) {
    let t = k::<B, 1>(1);
    let z = k::<B, 64>(0);
    let is = |c: &LaneCtl<B>, o: Op| c.op.eq(k::<B, 7>(o as u64));
    let classes = |c: &LaneCtl<B>| {
        let ok = c.err.eq(k::<B, 2>(0));
        let fp = is(c, Op::Dadd) | is(c, Op::Dmul) | is(c, Op::Dfma);
        let cvt = is(c, Op::I2d) | is(c, Op::D2i) | is(c, Op::F2d) | is(c, Op::D2f);
        (ok & fp, ok & cvt)
    };
    let rm = |c: &LaneCtl<B>| -> BS<B, 2> { c.md.slice::<0, 2>() };
    let bit = |c: &LaneCtl<B>, i: usize| fp::field::<B, 4, 1>(c.md, i);

    // Stage 1.
    let c0 = LaneCtl {
        op,
        md,
        err: dpu_err::<B>(op, md),
    };
    let (fp0, cvt0) = classes(&c0);
    let s1 = x.cut(cuts.side[0].as_ref(), t, || DpuSide {
        dres: z,
        dpred: is(&c0, Op::Dsetp) & fp::fsetp::<B, 64, 11, 52>(md, a, b),
    });
    let m1 = x.cut(cuts.mul.as_ref(), fp0 | cvt0, || {
        let sign = k::<B, 64>(1 << 63);
        let fma = is(&c0, Op::Dfma);
        // The FP64 opcodes without the error decode (an erring
        // operation's result is dropped at the end), so the decoder is not
        // in front of the multiplier.
        let fpop = is(&c0, Op::Dadd) | is(&c0, Op::Dmul) | fma;
        let fa = a ^ (fpop & bit(&c0, 2)).mux(sign, z);
        let fb = b ^ (fpop & bit(&c0, 3) & !fma).mux(sign, z);
        let fc = c ^ (fpop & bit(&c0, 3) & fma).mux(sign, z);
        let (fa, fb, fc) = fp::fma_operands::<B, 64>(is(&c0, Op::Dadd), fa, fb, fc, 0x3ff0_0000_0000_0000);
        fp::fp_mul::<B, 64, 11, 52, 53, 106>(fa, fb, fc, false)
    });
    let c1 = x.cut(cuts.ctl[0].as_ref(), t, || c0);

    // Stage 2: the conversions' first half (unpack/normalize, F2I shift).
    let (fp1, cvt1) = classes(&c1);
    let w2 = x.cut(cuts.wide.as_ref(), cvt1, || {
        let a = m1.a;
        let a32: BS<B, 32> = a.slice::<0, 32>();
        let signed = !bit(&c1, 2);
        let i2d = || {
            let (neg, zero, e, xn) = fp::int_to_fp_norm::<B, 109>(a32, signed);
            cvt_wide::<B, 109>(fp::CvtHalf {
                sign: neg,
                zero,
                inf: k::<B, 1>(0),
                nan: k::<B, 1>(0),
                e,
                x: xn,
            })
        };
        let d2i = || {
            // F2I's "too big" rides in `inf`.
            let (v, big, nan, neg) = fp::fp_to_int_shift::<B, 64, 11, 52, 53>(a);
            cvt_wide::<B, 64>(fp::CvtHalf {
                sign: neg,
                zero: k::<B, 1>(0),
                inf: big,
                nan,
                e: k::<B, 16>(0),
                x: v,
            })
        };
        let f2d = || cvt_wide::<B, 109>(fp::f2d_norm::<B>(a32));
        let d2f = || cvt_wide::<B, 51>(fp::d2f_norm::<B>(a));
        let ops = [
            (Op::I2d, &i2d as &dyn Fn() -> DpuWide<B>),
            (Op::D2i, &d2i),
            (Op::F2d, &f2d),
            (Op::D2f, &d2f),
        ];
        if let Some(o) = c1.op.known() {
            // Simulation only: the selected conversion alone.
            return ops.iter().find(|(op, _)| *op as u64 == o).map_or(
                DpuWide {
                    dx: k::<B, 109>(0),
                    de: k::<B, 16>(0),
                    dfl: k::<B, 4>(0),
                },
                |(_, f)| f(),
            );
        }
        let mut w = DpuWide {
            dx: k::<B, 109>(0),
            de: k::<B, 16>(0),
            dfl: k::<B, 4>(0),
        };
        for (op, f) in ops {
            let v = f();
            let hit = is(&c1, op);
            w = DpuWide {
                dx: w.dx | hit.mux(v.dx, k::<B, 109>(0)),
                de: w.de | hit.mux(v.de, k::<B, 16>(0)),
                dfl: w.dfl | hit.mux(v.dfl, k::<B, 4>(0)),
            };
        }
        w
    });
    let s2 = x.cut(cuts.side[1].as_ref(), t, || s1);
    let f2 = x.cut(cuts.pl.as_ref(), fp1, || {
        fp::fma_place::<B, 64, 11, 52, 53, 106, 109>(m1, rm(&c1), is(&c1, Op::Dmul))
    });
    let c2 = x.cut(cuts.ctl[1].as_ref(), t, || c1);

    // Stage 3: D2F's subnormal shift (the others' halves wait); FMA
    // stage 3.
    let (fp2, cvt2) = classes(&c2);
    let fl = |w: &DpuWide<B>, i: usize| fp::field::<B, 4, 1>(w.dfl, i);
    let h51 = |w: &DpuWide<B>| fp::CvtHalf {
        sign: fl(w, 0),
        zero: fl(w, 1),
        inf: fl(w, 2),
        nan: fl(w, 3),
        e: w.de,
        x: w.dx.slice::<0, 51>(),
    };
    let w3 = x.cut(cuts.wide3.as_ref(), cvt2, || {
        let d2f = is(&c2, Op::D2f);
        let sh = || cvt_wide::<B, 51>(fp::d2f_shift::<B>(h51(&w2)));
        match d2f.known() {
            Some(1) => sh(),
            Some(_) => w2,
            None => {
                let v = sh();
                DpuWide {
                    dx: d2f.mux(v.dx, w2.dx),
                    de: d2f.mux(v.de, w2.de),
                    dfl: w2.dfl,
                }
            }
        }
    });
    let s3 = x.cut(cuts.side[2].as_ref(), t, || s2);
    let f3 = x.cut(cuts.sw.as_ref(), fp2, || fp::fma_swap::<B, 64, 109>(f2));
    let c3 = x.cut(cuts.ctl[2].as_ref(), t, || c2);

    // Stage 4: the conversions' last part (round, pack, specials); FMA
    // stage 4.
    let cvt3 = classes(&c3).1;
    let s4 = x.cut(cuts.side[3].as_ref(), t, || {
        let h109 = || fp::CvtHalf {
            sign: fl(&w3, 0),
            zero: fl(&w3, 1),
            inf: fl(&w3, 2),
            nan: fl(&w3, 3),
            e: w3.de,
            x: w3.dx,
        };
        let r = rm(&c3);
        let uns = bit(&c3, 2);
        let i2d = || fp::int_to_fp_exact::<B, 64, 11, 52, 109>(fl(&w3, 0), fl(&w3, 1), w3.de, w3.dx);
        let d2i = || {
            fp::fp_to_int_round::<B>(w3.dx.slice::<0, 64>(), fl(&w3, 2), fl(&w3, 3), fl(&w3, 0), !uns, r).zext::<64>()
        };
        let f2d = || fp::f2d_round::<B>(h109());
        let d2f = || fp::d2f_fin::<B>(h51(&w3), r).zext::<64>();
        let ops = [
            (Op::I2d, &i2d as &dyn Fn() -> BS<B, 64>),
            (Op::D2i, &d2i),
            (Op::F2d, &f2d),
            (Op::D2f, &d2f),
        ];
        let dres = if cvt3.known() == Some(0) {
            z
        } else if let Some(o) = c3.op.known() {
            ops.iter().find(|(op, _)| *op as u64 == o).map_or(z, |(_, f)| f())
        } else {
            let mut d = z;
            for (op, f) in ops {
                d = d | is(&c3, op).mux(f(), z);
            }
            cvt3.mux(d, z)
        };
        DpuSide { dres, dpred: s3.dpred }
    });
    let f4 = x.cut(cuts.al.as_ref(), classes(&c3).0, || fp::fp_shift::<B, 64, 109>(f3));
    let c4 = x.cut(cuts.ctl[3].as_ref(), t, || c3);

    // FMA stages 5 .. 8; the conversion result waits.
    let ride = |x: &mut X, k: usize, s: DpuSide<B>, c: LaneCtl<B>| {
        let s = x.cut(cuts.side[k - 1].as_ref(), t, || s);
        let c = x.cut(cuts.ctl[k - 1].as_ref(), t, || c);
        (s, c)
    };
    let f5 = x.cut(cuts.add.as_ref(), classes(&c4).0, || fp::fp_add::<B, 64, 109>(f4));
    let (s5, c5) = ride(x, 5, s4, c4);
    let f6 = x.cut(cuts.sum.as_ref(), classes(&c5).0, || fp::fp_norm::<B, 64, 109>(f5));
    let (s6, c6) = ride(x, 6, s5, c5);
    let f7 = x.cut(cuts.rnd.as_ref(), classes(&c6).0, || {
        fp::fp_round_shift::<B, 64, 11, 109>(f6, t)
    });
    let (s7, c7) = ride(x, 7, s6, c6);
    let fp7 = classes(&c7).0;
    let fres = if fp7.known() == Some(0) {
        z
    } else {
        let r = rm(&c7);
        fp::fp_fin::<B, 64, 11, 52, 109, 80>(f7, r, !t, fp::fma_zero::<B, 64>(r))
    };
    let ok = c7.err.eq(k::<B, 2>(0));
    (ok.mux(fp7.mux(fres, s7.dres), z), ok & s7.dpred, c7.err)
}

/// The FP64 lane's whole datapath in one cycle: (result, predicate,
/// error code).
#[inline(always)]
pub fn dpu_comb<B: Backend>(
    op: BS<B, 7>,
    md: BS<B, 4>,
    a: BS<B, 64>,
    b: BS<B, 64>,
    c: BS<B, 64>,
) -> (BS<B, 64>, BS<B, 1>, BS<B, 2>) {
    let none = DpuCuts {
        ctl: vec![None; DPU_STAGES - 1],
        side: vec![None; DPU_STAGES - 1],
        ..Default::default()
    };
    dpu_pipe::<B, Comb>(&mut Comb, &none, op, md, a, b, c)
}

/// The FP64 lane's datapath as a function of integers (concrete backend).
pub fn dpu_fn(op: u8, m: u8, a: u64, b: u64, c: u64) -> crate::testbenches::sp_ref::RefOut {
    let (r, p, e) = dpu_comb::<crate::hdl::Concrete>(
        crate::hdl::Bits::new(op as u64),
        crate::hdl::Bits::new(m as u64),
        crate::hdl::Bits::new(a),
        crate::hdl::Bits::new(b),
        crate::hdl::Bits::new(c),
    );
    crate::testbenches::sp_ref::RefOut {
        res: r.to_u64(),
        pred: p.to_u64() == 1,
        err: e.to_u64() as u8,
    }
}

/// One FP64 lane with `LAT` pipeline registers (`dpu_lane_l<LAT>`): the
/// internal cuts after the first `min(LAT, 8) - 1` stages, then the
/// output registers `res_s<j>`, `pred_s<j>`, `err_s<j>` (`j` = cuts ..
/// `LAT`-1).
#[derive(Debug, Clone)]
pub struct DpuLane {
    decl: Decl,
    cuts: DpuCuts,
    res: Vec<Reg<64>>,
    pred: Vec<Reg<1>>,
    err: Vec<Reg<2>>,
    /// `u_lane<i>` instance names for every lane index of a warp, made
    /// once (`eval` runs every cycle).
    names: Vec<String>,
}

impl DpuLane {
    /// A lane with `lat >= 1` stages.
    pub fn new(lat: usize) -> Self {
        assert!(lat >= 1);
        let mut d = Decl::new();
        let ncut = (DPU_STAGES - 1).min(lat - 1);
        let cuts = DpuCuts::new(&mut d, ncut);
        let res = (ncut..lat)
            .map(|s| d.reg_noreset(&format!("res_s{s}"), Domain::Hot))
            .collect();
        let pred = (ncut..lat)
            .map(|s| d.reg_noreset(&format!("pred_s{s}"), Domain::Hot))
            .collect();
        let err = (ncut..lat)
            .map(|s| d.reg(&format!("err_s{s}"), Domain::Hot, 0))
            .collect();
        DpuLane {
            decl: d,
            cuts,
            res,
            pred,
            err,
            names: (0..32).map(|i| format!("u_lane{i}")).collect(),
        }
    }
    /// Internal cuts (the first output register is `res_s<cuts>`).
    pub fn cuts(&self) -> usize {
        self.cuts.count()
    }
    /// Pipeline depth in hot cycles.
    pub fn lat(&self) -> usize {
        self.cuts.count() + self.res.len()
    }
}

impl Block for DpuLane {
    type In<B: Backend> = DpuLaneIn<B>;
    type Out<B: Backend> = DpuLaneOut<B>;
    fn module_name(&self) -> String {
        format!("dpu_lane_l{}", self.lat())
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &DpuLaneIn<C::B>) -> DpuLaneOut<C::B> {
        let (mut r, mut p, mut e) =
            dpu_pipe::<C::B, _>(&mut Clocked(cx), &self.cuts, i.op_i, i.mod_i, i.a_i, i.b_i, i.c_i);
        for s in 0..self.res.len() {
            cx.d(self.res[s], r);
            cx.d(self.pred[s], p);
            cx.d(self.err[s], e);
            r = cx.q(self.res[s]);
            p = cx.q(self.pred[s]);
            e = cx.q(self.err[s]);
        }
        DpuLaneOut {
            res_o: r,
            pred_o: p,
            err_o: e.any(),
            err_code_o: e.zext::<8>(),
        }
    }
}

impl<C: Ctx> LaneUnit<C, 64> for DpuLane {
    fn lane(&self, cx: &mut C, idx: usize, x: LaneOps<C::B, 64>) -> (S<C, 64>, S<C, 1>, S<C, 8>) {
        let i = DpuLaneIn {
            op_i: x.op,
            mod_i: x.md,
            a_i: x.a,
            b_i: x.b,
            c_i: x.c,
        };
        let o = cx.instance(&self.names[idx], self, &i);
        (o.res_o, o.pred_o, o.err_code_o)
    }
    fn latency(&self) -> usize {
        self.lat()
    }
}

crate::ports! {
    /// Dispatch into the FP64 unit.
    pub struct DpuIn {
        dpu_valid_i: 1 @ Core,
        dpu_op_i: 7 @ Core,
        dpu_mod_i: 4 @ Core,
        dpu_mask_i: [1; 32] @ Core,
        dpu_a_i: [64; 32] @ Core,
        dpu_b_i: [64; 32] @ Core,
        dpu_c_i: [64; 32] @ Core,
        dpu_tag_i: 32 @ Core,
    }
}
crate::ports! {
    /// Status and results of the FP64 unit.
    pub struct DpuOut {
        dpu_ready_o: 1 @ Core,
        dpu_res_valid_o: 1 @ Core,
        dpu_res_tag_o: 32 @ Core,
        dpu_res_mask_o: [1; 32] @ Core,
        dpu_res_data_o: [64; 32] @ Core,
        dpu_res_pred_o: [1; 32] @ Core,
        dpu_err_o: 1 @ Core,
        dpu_err_code_o: 8 @ Core,
    }
}

/// The FP64 unit.
#[derive(Debug, Clone)]
pub struct Dpu {
    decl: Decl,
    lanes: usize,
    eng: Engine<64>,
    lane: DpuLane,
}

/// Why a DPU cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
#[error("FP64 unit: {0}")]
pub struct DpuError(pub String);

impl Dpu {
    /// A unit of `lanes` lanes (dividing 32) with `lat` stages.
    pub fn new(lanes: usize, lat: usize) -> Result<Self, DpuError> {
        if lanes == 0 || !WARP.is_multiple_of(lanes) {
            return Err(DpuError(format!("{lanes} lanes must divide 32")));
        }
        if lat == 0 || lat > 64 {
            return Err(DpuError(format!("dpu_latency {lat} must be 1..=64")));
        }
        let mut d = Decl::new();
        let eng = Engine::new(&mut d, lanes, lat);
        Ok(Dpu {
            decl: d,
            lanes,
            eng,
            lane: DpuLane::new(lat),
        })
    }
    /// The FP64 unit of `cfg`: `fp64_units` lanes when the SM has separate
    /// FP64 units, else `sp_lanes / fp64_rate_divisor`; an error on presets
    /// without FP64.
    pub fn of(cfg: &SmConfig) -> Result<Self, DpuError> {
        Self::new(Self::lanes_of(cfg)?, cfg.dpu_latency as usize)
    }
    /// Lanes of the FP64 unit of `cfg`.
    pub fn lanes_of(cfg: &SmConfig) -> Result<usize, DpuError> {
        if cfg.fp64_units > 0 {
            Ok(cfg.fp64_units as usize)
        } else if cfg.fp64_rate_divisor > 0 {
            Ok((cfg.sp_lanes / cfg.fp64_rate_divisor) as usize)
        } else {
            Err(DpuError(format!(
                "config `{}` has no FP64 (fp64_units = 0, fp64_rate_divisor = 0)",
                cfg.name
            )))
        }
    }
    /// Lanes.
    pub fn lanes(&self) -> usize {
        self.lanes
    }
    /// Pipeline depth.
    pub fn latency(&self) -> usize {
        self.lane.lat()
    }
    /// Internal cuts of a lane (its first output register is `res_s<cuts>`).
    pub fn lane_cuts(&self) -> usize {
        self.lane.cuts()
    }
}

impl Block for Dpu {
    type In<B: Backend> = DpuIn<B>;
    type Out<B: Backend> = DpuOut<B>;
    fn module_name(&self) -> String {
        format!("dpu_l{}_lat{}", self.lanes, self.latency())
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    /// Mostly FP64 ops with valid modifiers, 1 in 32 anything.
    fn constrain(&self, r: u64, i: &mut DpuIn<crate::hdl::Concrete>) {
        let ops: Vec<Op> = Op::ALL.iter().copied().filter(|o| o.unit() == Unit::Dpu).collect();
        let (op, m) = if r & 31 == 31 {
            ((r >> 5) & 0x7f, (r >> 12) & 0xf)
        } else {
            let op = ops[((r >> 5) % ops.len() as u64) as usize];
            let valid: Vec<u8> = (0..16u8).filter(|&m| op.info().modk.accepts(m)).collect();
            (op as u64, valid[((r >> 16) % valid.len() as u64) as usize] as u64)
        };
        i.dpu_op_i = crate::hdl::Bits::new(op);
        i.dpu_mod_i = crate::hdl::Bits::new(m);
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &DpuIn<C::B>) -> DpuOut<C::B> {
        let e = EngIn {
            valid: i.dpu_valid_i,
            op: i.dpu_op_i,
            md: i.dpu_mod_i,
            mask: &i.dpu_mask_i,
            a: &i.dpu_a_i,
            b: &i.dpu_b_i,
            c: &i.dpu_c_i,
            pa: &std::array::from_fn(|_| k::<C::B, 1>(0)),
            tag: i.dpu_tag_i,
            reps: k::<C::B, 3>(1),
        };
        let o = self.eng.eval(cx, &self.lane, &e);
        DpuOut {
            dpu_ready_o: o.ready,
            dpu_res_valid_o: o.res_valid,
            dpu_res_tag_o: o.res_tag,
            dpu_res_mask_o: o.res_mask,
            dpu_res_data_o: o.res_data,
            dpu_res_pred_o: o.res_pred,
            dpu_err_o: o.res_err,
            dpu_err_code_o: o.res_err_code,
        }
    }
}

#[cfg(test)]
mod tests {
    //! The FP64 lane's datapath against the reference, 100,000 operand sets
    //! per op and rounding mode.
    use super::*;
    use crate::testbenches::sp_ref::mod_groups;

    #[test]
    fn dpu_lane_matches_reference_100k_per_op_and_mode() {
        for &op in Op::ALL.iter().filter(|o| o.unit() == Unit::Dpu) {
            for (gi, mods) in mod_groups(op).iter().enumerate() {
                let seed = (op as u64) << 8 | gi as u64;
                if let Err(e) = crate::testbenches::sp_ref::dpu_sweep(op, mods, 100_000, seed, dpu_fn) {
                    panic!("{e}");
                }
            }
        }
    }

    #[test]
    fn dpu_errors() {
        assert_eq!(dpu_fn(Op::Fadd as u8, 0, 0, 0, 0).err, 1);
        assert_eq!(dpu_fn(0x7f, 0, 0, 0, 0).err, 1);
        assert_eq!(dpu_fn(Op::D2f as u8, 4, 0, 0, 0).err, 1);
        assert_eq!(dpu_fn(Op::F2d as u8, 1, 0, 0, 0).err, 1);
        assert_eq!(
            dpu_fn(Op::Dadd as u8, 0, 0x3ff0_0000_0000_0000, 0x3ff0_0000_0000_0000, 0).res,
            0x4000_0000_0000_0000
        );
    }
}
