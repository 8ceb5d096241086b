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
//! * Latency: `dpu_latency` = `LAT` lane stages; the result is sampled at
//!   the core edge `t0 + passes + LAT + 1` (LAT odd) or `+ 2` (LAT even),
//!   `t0` the accepting core edge (see the engine).

pub mod waves;

use crate::config::SmConfig;
use crate::golden::isa::{Op, Unit};
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};
use crate::units::fp::{self, k, S as BS};
use crate::units::sp::engine::{EngIn, Engine, LaneOps, LaneUnit, WARP};

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

/// The FP64 lane's combinational datapath: (result, predicate, error code).
#[inline(always)]
pub fn dpu_comb<B: Backend>(
    op: BS<B, 7>,
    md: BS<B, 4>,
    a: BS<B, 64>,
    b: BS<B, 64>,
    c: BS<B, 64>,
) -> (BS<B, 64>, BS<B, 1>, BS<B, 2>) {
    let is = |o: Op| op.eq(k::<B, 7>(o as u64));
    let bit = |i: usize| fp::field::<B, 4, 1>(md, i);
    let rm: BS<B, 2> = md.slice::<0, 2>();
    let mut known = k::<B, 1>(0);
    let mut mod_bad = k::<B, 1>(0);
    for &o in Op::ALL.iter().filter(|o| o.unit() == Unit::Dpu) {
        let modk = o.info().modk;
        let ok_mask: u64 = (0..16u8).filter(|&v| modk.accepts(v)).fold(0, |acc, v| acc | 1 << v);
        let hit = is(o);
        known = known | hit;
        mod_bad = mod_bad | (hit & !k::<B, 16>(ok_mask).shr(md).slice::<0, 1>());
    }
    let err = (!known | mod_bad).mux(k::<B, 2>(1), k::<B, 2>(0));
    let z = k::<B, 64>(0);
    let sign = k::<B, 64>(1 << 63);
    let fma = is(Op::Dfma);
    let fa = a ^ bit(2).mux(sign, z);
    let fb = b ^ (bit(3) & !fma).mux(sign, z);
    let fc = c ^ (bit(3) & fma).mux(sign, z);
    let arith = fp::f64_op::<B>(is(Op::Dadd), is(Op::Dmul), fa, fb, fc, rm);
    let uns = bit(2);
    let a32: BS<B, 32> = a.slice::<0, 32>();
    let res = (is(Op::Dadd) | is(Op::Dmul) | fma).mux(arith, z)
        | is(Op::I2d).mux(fp::i2d::<B>(a32, !uns), z)
        | is(Op::D2i).mux(fp::d2i::<B>(a, !uns, rm).zext::<64>(), z)
        | is(Op::F2d).mux(fp::f2d::<B>(a32), z)
        | is(Op::D2f).mux(fp::d2f::<B>(a, rm).zext::<64>(), z);
    let pred = is(Op::Dsetp) & fp::fsetp::<B, 64, 11, 52>(md, a, b);
    let ok = err.eq(k::<B, 2>(0));
    (ok.mux(res, z), ok & pred, err)
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

/// One FP64 lane with `LAT` pipeline stages (`dpu_lane_l<LAT>`).
#[derive(Debug, Clone)]
pub struct DpuLane {
    decl: Decl,
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
        let res = (0..lat)
            .map(|s| d.reg_noreset(&format!("res_s{s}"), Domain::Hot))
            .collect();
        let pred = (0..lat)
            .map(|s| d.reg_noreset(&format!("pred_s{s}"), Domain::Hot))
            .collect();
        let err = (0..lat).map(|s| d.reg(&format!("err_s{s}"), Domain::Hot, 0)).collect();
        DpuLane {
            decl: d,
            res,
            pred,
            err,
            names: (0..32).map(|i| format!("u_lane{i}")).collect(),
        }
    }
}

impl Block for DpuLane {
    type In<B: Backend> = DpuLaneIn<B>;
    type Out<B: Backend> = DpuLaneOut<B>;
    fn module_name(&self) -> String {
        format!("dpu_lane_l{}", self.res.len())
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &DpuLaneIn<C::B>) -> DpuLaneOut<C::B> {
        let (mut r, mut p, mut e) = dpu_comb::<C::B>(i.op_i, i.mod_i, i.a_i, i.b_i, i.c_i);
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
        self.res.len()
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
        self.lane.res.len()
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
