//! SP array: the FP32/INT32 lanes of the SM on the hot clock, one group of
//! `sp_lanes / warp_schedulers` lanes per warp scheduler.
//!
//! ```text
//!   sp0_* (core)                         sp1_* (core, 2 schedulers)
//!      |                                    |
//!  +---v-------------------------+     +----v------------------------+
//!  | u_grp0: sp_group            |     | u_grp1: sp_group            |
//!  |  engine (buffer, sequencer, |     |  (same)                     |
//!  |  collector, hot<->core)     |     |                             |
//!  |  u_lane0 .. u_lane<L-1>     |     |                             |
//!  |  (sp_lane, LAT stages)      |     |                             |
//!  +---+-------------------------+     +----+------------------------+
//!      | sp0_res_* (core)                   | sp1_res_*
//! ```
//!
//! * Presets: gt200/tesla one group of 8 lanes, a warp instruction streams
//!   through in 4 hot cycles (accepted every 2 core cycles); fermi/gpucc two
//!   groups of 16 lanes, 2 hot cycles (every core cycle per group).
//! * Ports (docs/sm.md 5.3/5.4, all core domain): `sp<g>_valid_i`,
//!   `sp<g>_ready_o` (Moore), `sp<g>_op_i[7]`, `sp<g>_mod_i[4]`,
//!   `sp<g>_mask_i[1;32]`, `sp<g>_a_i`/`_b_i`/`_c_i[32;32]`,
//!   `sp<g>_pa_i`/`_pb_i[1;32]` (`pb` unused by today's SP ops),
//!   `sp<g>_tag_i[32]`; `sp<g>_res_valid_o` (one core cycle),
//!   `sp<g>_res_tag_o`, `sp<g>_res_mask_o`, `sp<g>_res_data_o[32;32]`
//!   (inactive threads read 0), `sp<g>_res_pred_o[1;32]` (ISETP/FSETP),
//!   `sp<g>_err_o`, `sp<g>_err_code_o[8]` (see [`lane`]: 1 not implemented
//!   or bad modifier, 2 FMAD rounding; the result data are 0).
//! * Latency (hot cycles, see [`engine`]): `sp_latency` = `LAT` lane
//!   stages. With `t0` the accepting core edge, `res_valid_o` is sampled at
//!   the core edge `t0 + 4*reps + LAT + 1` (gt200, LAT odd) or `+ 2` (LAT
//!   even); fermi `t0 + 2*reps + LAT + 1|2`. `reps` = `imul32_passes` for a
//!   32-bit IMUL/IMAD (modes lo, .HI, .HI.U32), 1 otherwise: such an
//!   instruction occupies the lanes `imul32_passes` times as long (GT200 has
//!   no 32-bit multiplier; the datapath here has one, the timing follows
//!   the measured figure).
//! * Sizes: lanes per group = `sp_lanes / warp_schedulers` (8 or 16; a
//!   const parameter), groups = `warp_schedulers` (1 or 2), FP32 flavour
//!   from `mul_add` ([`lane::Flavor`]).

pub mod engine;
pub mod lane;
pub mod waves;

use crate::golden::isa::Op;
use crate::hdl::{Backend, Block, Ctx, Decl, Sig, S};
use crate::config::SmConfig;
use crate::units::fp::k;
use crate::units::fp::S as BS;
use engine::{EngIn, EngOut, Engine, LaneUnit, WARP};
use lane::{Flavor, SpLane, SpLaneIn};

crate::bundle! {
    /// Dispatch into one SP group (`sp<g>_*_i` on the array, `sp<g>_*_o` on
    /// the operand collector).
    pub struct SpIssue {
        valid: 1 @ Core,
        op: 7 @ Core,
        md = "mod": 4 @ Core,
        mask: [1; 32] @ Core,
        a: [32; 32] @ Core,
        b: [32; 32] @ Core,
        c: [32; 32] @ Core,
        pa: [1; 32] @ Core,
        pb: [1; 32] @ Core,
        tag: 32 @ Core,
    }
}
crate::bundle! {
    /// Status and results of one SP group.
    pub struct SpResult {
        ready: 1 @ Core,
        res_valid: 1 @ Core,
        res_tag: 32 @ Core,
        res_mask: [1; 32] @ Core,
        res_data: [32; 32] @ Core,
        res_pred: [1; 32] @ Core,
        err: 1 @ Core,
        err_code: 8 @ Core,
    }
}
crate::ports! {
    /// Dispatch into the `G` SP groups: `sp0_*_i`, `sp1_*_i`.
    pub struct SpArrayIn[G] {
        sp: [SpIssue; G] @ in,
    }
}
crate::ports! {
    /// Status and results of the `G` SP groups: `sp0_*_o`, `sp1_*_o`.
    pub struct SpArrayOut[G] {
        sp: [SpResult; G] @ out,
    }
}

impl<B: Backend> SpIssue<B> {
    /// The group's inputs (all but `pb`, which no SP op reads).
    pub fn group_in(&self) -> SpGroupIn<B> {
        SpGroupIn {
            valid_i: self.valid,
            op_i: self.op,
            mod_i: self.md,
            mask_i: self.mask,
            a_i: self.a,
            b_i: self.b,
            c_i: self.c,
            pa_i: self.pa,
            tag_i: self.tag,
        }
    }
}

/// Is `(op, mod)` a 32-bit integer multiply (the ops that take
/// `imul32_passes` passes)? Decoded from the ISA's opcodes and `MulMode`.
pub fn is_imul32<B: Backend>(op: BS<B, 7>, md: BS<B, 4>) -> BS<B, 1> {
    let mul = op.eq(k::<B, 7>(Op::Imul as u64)) | op.eq(k::<B, 7>(Op::Imad as u64));
    // MulMode 0 lo, 1 .HI, 2 .HI.U32 use the 32-bit multiplier.
    mul & md.ult(k::<B, 4>(3))
}

/// The lanes of one group.
#[derive(Debug, Clone)]
struct SpLanes {
    lane: SpLane,
    /// `u_lane<i>` instance names, made once (`eval` runs every cycle).
    names: Vec<String>,
}

impl LaneUnit<32> for SpLanes {
    fn lane<C: Ctx>(
        &self,
        cx: &mut C,
        idx: usize,
        op: S<C, 7>,
        md: S<C, 4>,
        a: S<C, 32>,
        b: S<C, 32>,
        c: S<C, 32>,
        pa: S<C, 1>,
    ) -> (S<C, 32>, S<C, 1>, S<C, 8>) {
        let i = SpLaneIn {
            op_i: op,
            mod_i: md,
            a_i: a,
            b_i: b,
            c_i: c,
            pa_i: pa,
        };
        let o = cx.instance(&self.names[idx], &self.lane, &i);
        (o.res_o, o.pred_o, o.err_code_o)
    }
    fn latency(&self) -> usize {
        self.lane.latency()
    }
}

/// SP array geometry from a config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpGeom {
    pub flavor: Flavor,
    /// Lanes per group.
    pub lanes: usize,
    /// Groups (warp schedulers).
    pub groups: usize,
    /// `sp_latency`.
    pub lat: usize,
    /// `imul32_passes`.
    pub imul_passes: usize,
}

impl SpGeom {
    /// The SP array of `cfg`.
    pub fn of(cfg: &SmConfig) -> SpGeom {
        SpGeom {
            flavor: match cfg.mul_add {
                crate::config::MulAdd::Fmad => Flavor::Tesla,
                crate::config::MulAdd::Ffma => Flavor::Ieee,
            },
            lanes: (cfg.sp_lanes / cfg.warp_schedulers) as usize,
            groups: cfg.warp_schedulers as usize,
            lat: cfg.sp_latency as usize,
            imul_passes: cfg.imul32_passes as usize,
        }
    }
    /// Passes of one warp instruction (hot cycles without repetitions).
    pub fn passes(&self) -> usize {
        WARP / self.lanes
    }
}

crate::ports! {
    /// Dispatch into one SP group (the array's `sp<g>_*` minus `pb`).
    pub struct SpGroupIn {
        valid_i: 1 @ Core,
        op_i: 7 @ Core,
        mod_i: 4 @ Core,
        mask_i: [1; 32] @ Core,
        a_i: [32; 32] @ Core,
        b_i: [32; 32] @ Core,
        c_i: [32; 32] @ Core,
        pa_i: [1; 32] @ Core,
        tag_i: 32 @ Core,
    }
}
crate::ports! {
    /// Status and results of one SP group (`ready_o`, `res_valid_o`, ...).
    pub struct SpGroupOut {
        out: SpResult @ out "",
    }
}

/// One SP group (`sp_group` module): the engine and its lanes.
#[derive(Debug, Clone)]
pub struct SpGroup {
    decl: Decl,
    geom: SpGeom,
    eng: Engine<32>,
    lanes: SpLanes,
}

impl SpGroup {
    /// A group of `g.lanes` lanes.
    pub fn new(g: SpGeom) -> SpGroup {
        let mut d = Decl::new();
        let eng = Engine::new(&mut d, g.lanes, g.lat);
        SpGroup {
            decl: d,
            geom: g,
            eng,
            lanes: SpLanes {
                lane: SpLane::new(g.flavor, g.lat),
                names: (0..g.lanes).map(|i| format!("u_lane{i}")).collect(),
            },
        }
    }
}

impl Block for SpGroup {
    type In<B: Backend> = SpGroupIn<B>;
    type Out<B: Backend> = SpGroupOut<B>;
    fn module_name(&self) -> String {
        let g = &self.geom;
        format!(
            "sp_group_{}_l{}_lat{}_m{}",
            g.flavor.name(),
            g.lanes,
            g.lat,
            g.imul_passes
        )
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SpGroupIn<C::B>) -> SpGroupOut<C::B> {
        let reps = is_imul32::<C::B>(i.op_i, i.mod_i).mux(k::<C::B, 3>(self.geom.imul_passes as u64), k::<C::B, 3>(1));
        let e = EngIn {
            valid: i.valid_i,
            op: i.op_i,
            md: i.mod_i,
            mask: &i.mask_i,
            a: &i.a_i,
            b: &i.b_i,
            c: &i.c_i,
            pa: &i.pa_i,
            tag: i.tag_i,
            reps,
        };
        let o: EngOut<C, 32> = self.eng.eval(cx, &self.lanes, &e);
        SpGroupOut {
            out: SpResult {
                ready: o.ready,
                res_valid: o.res_valid,
                res_tag: o.res_tag,
                res_mask: o.res_mask,
                res_data: o.res_data,
                res_pred: o.res_pred,
                err: o.res_err,
                err_code: o.res_err_code,
            },
        }
    }
}

/// The SP array of `G` groups, one per scheduler: ports `sp0_*` (and
/// `sp1_*`). The groups are independent instances (`u_grp0`, `u_grp1`).
#[derive(Debug, Clone)]
pub struct SpArray<const G: usize> {
    decl: Decl,
    geom: SpGeom,
    grp: SpGroup,
    /// `u_grp<g>` instance names, made once (`eval` runs every cycle).
    names: [String; G],
}

/// The SP array with one group (gt200, tesla).
pub type SpArray1 = SpArray<1>;
/// The SP array with two groups (fermi, gpucc).
pub type SpArray2 = SpArray<2>;

/// Why an SP array cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
#[error("SP array: {0}")]
pub struct SpError(pub String);

impl<const G: usize> SpArray<G> {
    /// An array of `G` groups; `g.groups` must be `G`.
    pub fn new(g: SpGeom) -> Result<Self, SpError> {
        if g.groups != G {
            return Err(SpError(format!("{} groups, this shape has {G}", g.groups)));
        }
        if g.lanes == 0 || WARP % g.lanes != 0 {
            return Err(SpError(format!("{} lanes per group must divide 32", g.lanes)));
        }
        if g.lat == 0 || g.lat > 64 {
            return Err(SpError(format!("sp_latency {} must be 1..=64", g.lat)));
        }
        if !matches!(g.imul_passes, 1 | 2 | 4) {
            return Err(SpError(format!("imul32_passes {} must be 1, 2 or 4", g.imul_passes)));
        }
        Ok(SpArray {
            decl: Decl::new(),
            geom: g,
            grp: SpGroup::new(g),
            names: std::array::from_fn(|k| format!("u_grp{k}")),
        })
    }
    /// The geometry.
    pub fn geom(&self) -> SpGeom {
        self.geom
    }
}

impl<const G: usize> Block for SpArray<G> {
    type In<B: Backend> = SpArrayIn<B, G>;
    type Out<B: Backend> = SpArrayOut<B, G>;
    fn module_name(&self) -> String {
        let g = &self.geom;
        format!(
            "sp_array_{}_g{}_l{}_lat{}_m{}",
            g.flavor.name(),
            g.groups,
            g.lanes,
            g.lat,
            g.imul_passes
        )
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn constrain(&self, r: u64, i: &mut SpArrayIn<crate::hdl::Concrete, G>) {
        for (k, d) in i.sp.iter_mut().enumerate() {
            let (op, md) = random_sp_op(r.rotate_right(23 * k as u32), self.geom.flavor);
            d.op = crate::hdl::Bits::new(op);
            d.md = crate::hdl::Bits::new(md);
        }
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SpArrayIn<C::B, G>) -> SpArrayOut<C::B, G> {
        SpArrayOut {
            sp: std::array::from_fn(|k| cx.instance(&self.names[k], &self.grp, &i.sp[k].group_in()).out),
        }
    }
}

/// A random SP opcode and modifier for random-stimulus flows: mostly ops
/// of this flavour with valid modifiers, 1 in 32 anything (errors).
pub fn random_sp_op(r: u64, flavor: Flavor) -> (u64, u64) {
    let ops: Vec<Op> = Op::ALL.iter().copied().filter(|o| flavor.implements(*o)).collect();
    if r & 31 == 31 {
        return ((r >> 5) & 0x7f, (r >> 12) & 0xf);
    }
    let op = ops[((r >> 5) % ops.len() as u64) as usize];
    let modk = op.info().modk;
    let valid: Vec<u8> = (0..16u8).filter(|&m| modk.accepts(m)).collect();
    let m = valid[((r >> 16) % valid.len() as u64) as usize];
    (op as u64, m as u64)
}

#[cfg(test)]
mod tests;
