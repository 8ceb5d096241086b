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
//!
//! Lane ports (docs/sm.md 9.1; GPU-CC feeds each lane its own operation):
//!
//! ```text
//!   ln<i>_* (hot)          engine pass (lane i's thread)
//!        |                        |
//!   ln_mode_i --------> [mux] <---+       ln<i>_valid_i & ln_mode_i
//!                         |                         |
//!                  u_lane<i>: sp_lane          ln<i>_valid_s0..s<LAT-1>
//!                         |                         |
//!             engine collector, and  ln<i>_res_o pred_o err_o err_code_o
//!             (gated by)                       ln<i>_valid_o
//! ```
//!
//! * Present only when asked for: the const parameters `M` (mode ports)
//!   and `N` (lane ports) of [`SpGroup`] are 0 and 0, or 1 and the lanes
//!   per group; [`SpArray`] has them per group and in all (`GM` = `G`, `GN`
//!   = `G * N`). [`lane_ports`] turns them on for configs with a `[gpucc]`
//!   section (`smrtl sim|cosim|export sp --config gpucc`: [`SpArray2Ln16`],
//!   module names ending `_ln`); without them the ports, the logic and the
//!   Verilog are those above.
//! * Ports (hot domain), on `sp_group`: `ln_mode_i`, per lane `i` of the
//!   group `ln<i>_valid_i`, `ln<i>_op_i[7]`, `ln<i>_mod_i[4]`,
//!   `ln<i>_a_i`/`_b_i`/`_c_i[32]`, `ln<i>_pa_i`; `ln<i>_valid_o`,
//!   `ln<i>_res_o[32]`, `ln<i>_pred_o`, `ln<i>_err_o`,
//!   `ln<i>_err_code_o[8]` (the lane's codes; all outputs 0 while
//!   `ln<i>_valid_o` is 0). On the array: `sp<g>_ln_mode_i` per group and
//!   `ln<j>_*` with `j = g * L + i`.
//! * `ln_mode_i` = 1: each lane takes its own port (a mux in front of the
//!   `sp_lane`, whose pipeline is shared with the warp path), one
//!   operation per lane per hot cycle, fully pipelined; `ln<i>_valid_o` is
//!   1 exactly `sp_latency` hot cycles after a hot cycle with `ln_mode_i`
//!   and `ln<i>_valid_i` 1 (an operation in flight still leaves if the
//!   mode drops meanwhile). The warp-level dispatch is ignored
//!   (`valid_i` is not accepted; the idle engine keeps `ready_o` 1 and
//!   gives no result). `ln_mode_i` may change only while `ready_o` is 1
//!   and no warp result is pending (the engine is idle), so no warp pass
//!   is in the lanes while the mode is 1.
//! * `ln_mode_i` = 0: the group behaves as without lane ports and
//!   `ln<i>_valid_o` is 0 (once the lane operations in flight have left).

pub mod engine;
pub mod lane;
pub mod waves;

use crate::config::SmConfig;
use crate::golden::isa::Op;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};
use crate::units::fp::k;
use crate::units::fp::S as BS;
use engine::{EngIn, EngOut, Engine, LaneOps, LaneUnit, WARP};
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
crate::bundle! {
    /// A group's lane-level mode: `ln_mode_i` on the group (an array of 0
    /// or 1 with no prefix), `sp<g>_ln_mode_i` on the array.
    pub struct SpLnMode {
        ln_mode: 1 @ Hot,
    }
}
crate::bundle! {
    /// One lane's operation in lane mode (`ln<i>_*_i`).
    pub struct SpLnIn {
        valid: 1 @ Hot,
        op: 7 @ Hot,
        md = "mod": 4 @ Hot,
        a: 32 @ Hot,
        b: 32 @ Hot,
        c: 32 @ Hot,
        pa: 1 @ Hot,
    }
}
crate::bundle! {
    /// One lane's result in lane mode (`ln<i>_*_o`), `sp_latency` hot
    /// cycles after its operation; all 0 when `valid` is 0.
    pub struct SpLnOut {
        valid: 1 @ Hot,
        res: 32 @ Hot,
        pred: 1 @ Hot,
        err: 1 @ Hot,
        err_code: 8 @ Hot,
    }
}
crate::ports! {
    /// Dispatch into the `G` SP groups: `sp0_*_i`, `sp1_*_i`; with lane
    /// ports (`GM` = `G`, `GN` = all lanes) `sp<g>_ln_mode_i` and
    /// `ln<j>_*_i`, lane `j` of the array being lane `j % L` of group
    /// `j / L`.
    pub struct SpArrayIn[G, GM, GN] {
        sp: [SpIssue; G] @ in,
        mode: [SpLnMode; GM] @ in "sp",
        ln: [SpLnIn; GN] @ in,
    }
}
crate::ports! {
    /// Status and results of the `G` SP groups: `sp0_*_o`, `sp1_*_o`;
    /// with lane ports `ln<j>_*_o`.
    pub struct SpArrayOut[G, GN] {
        sp: [SpResult; G] @ out,
        ln: [SpLnOut; GN] @ out,
    }
}

impl<B: Backend> SpIssue<B> {
    /// The inputs of a group without lane ports (all but `pb`, which no SP
    /// op reads).
    pub fn group_in(&self) -> SpGroupIn<B> {
        self.group_in_ln([], [])
    }
    /// The inputs of a group with `N` lane ports: these dispatch ports,
    /// the mode (`M` = 1) and the lanes' operations.
    pub fn group_in_ln<const M: usize, const N: usize>(
        &self,
        mode: [SpLnMode<B>; M],
        ln: [SpLnIn<B>; N],
    ) -> SpGroupLnIn<B, M, N> {
        SpGroupLnIn {
            valid_i: self.valid,
            op_i: self.op,
            mod_i: self.md,
            mask_i: self.mask,
            a_i: self.a,
            b_i: self.b,
            c_i: self.c,
            pa_i: self.pa,
            tag_i: self.tag,
            mode,
            ln,
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

impl<C: Ctx> LaneUnit<C, 32> for SpLanes {
    fn lane(&self, cx: &mut C, idx: usize, x: LaneOps<C::B, 32>) -> (S<C, 32>, S<C, 1>, S<C, 8>) {
        let i = SpLaneIn {
            op_i: x.op,
            mod_i: x.md,
            a_i: x.a,
            b_i: x.b,
            c_i: x.c,
            pa_i: x.pa,
        };
        let o = cx.instance(&self.names[idx], &self.lane, &i);
        (o.res_o, o.pred_o, o.err_code_o)
    }
    fn latency(&self) -> usize {
        self.lane.latency()
    }
}

/// The lanes of a group with lane ports: in front of each lane a mux takes
/// the lane's own port (`ln<i>_*_i`) instead of the engine's pass while
/// `ln_mode_i` is 1.
struct LnMux<'a, C: Ctx, const N: usize> {
    lanes: &'a SpLanes,
    mode: S<C, 1>,
    ln: &'a [SpLnIn<C::B>; N],
}

impl<C: Ctx, const N: usize> LaneUnit<C, 32> for LnMux<'_, C, N> {
    fn lane(&self, cx: &mut C, idx: usize, x: LaneOps<C::B, 32>) -> (S<C, 32>, S<C, 1>, S<C, 8>) {
        let l = &self.ln[idx];
        let m = self.mode;
        let op = cx.select(m, |_| l.op, |_| x.op);
        let md = cx.select(m, |_| l.md, |_| x.md);
        let a = cx.select(m, |_| l.a, |_| x.a);
        let b = cx.select(m, |_| l.b, |_| x.b);
        let c = cx.select(m, |_| l.c, |_| x.c);
        let pa = cx.select(m, |_| l.pa, |_| x.pa);
        self.lanes.lane(cx, idx, LaneOps { op, md, a, b, c, pa })
    }
    fn latency(&self) -> usize {
        self.lanes.lane.latency()
    }
}

/// Does the SP array of `cfg` have lane ports (`ln_mode`, `ln<j>_*`)? Only
/// GPU-CC configs (a `[gpucc]` section) use them.
pub fn lane_ports(cfg: &SmConfig) -> bool {
    cfg.gpucc.is_some()
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
    /// Dispatch into one SP group (the array's `sp<g>_*` minus `pb`), and
    /// with `N` lane ports (`M` = 1) `ln_mode_i` and `ln<i>_*_i`.
    pub struct SpGroupLnIn[M, N] {
        valid_i: 1 @ Core,
        op_i: 7 @ Core,
        mod_i: 4 @ Core,
        mask_i: [1; 32] @ Core,
        a_i: [32; 32] @ Core,
        b_i: [32; 32] @ Core,
        c_i: [32; 32] @ Core,
        pa_i: [1; 32] @ Core,
        tag_i: 32 @ Core,
        mode: [SpLnMode; M] @ in "",
        ln: [SpLnIn; N] @ in,
    }
}
crate::ports! {
    /// Status and results of one SP group (`ready_o`, `res_valid_o`, ...),
    /// and with `N` lane ports `ln<i>_*_o`.
    pub struct SpGroupLnOut[N] {
        out: SpResult @ out "",
        ln: [SpLnOut; N] @ out,
    }
}
/// The inputs of a group without lane ports.
pub type SpGroupIn<B> = SpGroupLnIn<B, 0, 0>;
/// The outputs of a group without lane ports.
pub type SpGroupOut<B> = SpGroupLnOut<B, 0>;

/// One SP group (`sp_group` module): the engine and its lanes; with lane
/// ports (`M` = 1, `N` = lanes; module name ends `_ln`) a mux in front of
/// each lane and a valid pipeline beside it.
#[derive(Debug, Clone)]
pub struct SpGroup<const M: usize = 0, const N: usize = 0> {
    decl: Decl,
    geom: SpGeom,
    eng: Engine<32>,
    lanes: SpLanes,
    /// Per lane port, the valid bit of its operation in each lane stage.
    ln_valid: Vec<Vec<Reg<1>>>,
}

impl SpGroup {
    /// A group of `g.lanes` lanes without lane ports.
    pub fn new(g: SpGeom) -> SpGroup {
        SpGroup::build(g)
    }
}

impl<const M: usize, const N: usize> SpGroup<M, N> {
    /// A group of `g.lanes` lanes, with lane ports when `N` > 0 (then `M`
    /// must be 1 and `N` = `g.lanes`).
    pub fn with_lanes(g: SpGeom) -> Result<Self, SpError> {
        lane_ports_ok(g, 1, M, N, M, N)?;
        Ok(SpGroup::build(g))
    }
    fn build(g: SpGeom) -> Self {
        let mut d = Decl::new();
        let eng = Engine::new(&mut d, g.lanes, g.lat);
        let ln_valid = (0..N)
            .map(|j| {
                (0..g.lat)
                    .map(|s| d.reg(&format!("ln{j}_valid_s{s}"), Domain::Hot, 0))
                    .collect()
            })
            .collect();
        SpGroup {
            decl: d,
            geom: g,
            eng,
            lanes: SpLanes {
                lane: SpLane::new(g.flavor, g.lat),
                names: (0..g.lanes).map(|i| format!("u_lane{i}")).collect(),
            },
            ln_valid,
        }
    }

    /// Lane port `j`'s outputs: its valid bit delayed by the lane's stages
    /// beside the lane's result, which it gates.
    fn lane_out<C: Ctx>(
        &self,
        cx: &mut C,
        mode: S<C, 1>,
        j: usize,
        li: &SpLnIn<C::B>,
        (res, pred, code): (S<C, 32>, S<C, 1>, S<C, 8>),
    ) -> SpLnOut<C::B> {
        let mut v = mode & li.valid;
        for &r in &self.ln_valid[j] {
            cx.d(r, v);
            v = cx.q(r);
        }
        SpLnOut {
            valid: v,
            res: cx.select(v, |_| res, |_| k::<C::B, 32>(0)),
            pred: v & pred,
            err: v & code.any(),
            err_code: cx.select(v, |_| code, |_| k::<C::B, 8>(0)),
        }
    }
}

/// Are the lane-port sizes of a block of `groups` groups (`gm` mode ports
/// and `gn` lane ports in all, `m` and `n` per group) those of geometry `g`:
/// all 0, or one mode port and `g.lanes` lane ports per group?
fn lane_ports_ok(g: SpGeom, groups: usize, m: usize, n: usize, gm: usize, gn: usize) -> Result<(), SpError> {
    let off = m == 0 && n == 0 && gm == 0 && gn == 0;
    let on = m == 1 && n == g.lanes && gm == groups && gn == groups * n;
    if off || on {
        return Ok(());
    }
    Err(SpError(format!(
        "lane ports: {m} mode and {n} lane ports per group, {gm} and {gn} in all; a group of {} lanes has 0 and 0, or 1 and {}",
        g.lanes, g.lanes
    )))
}

impl<const M: usize, const N: usize> Block for SpGroup<M, N> {
    type In<B: Backend> = SpGroupLnIn<B, M, N>;
    type Out<B: Backend> = SpGroupLnOut<B, N>;
    fn module_name(&self) -> String {
        let g = &self.geom;
        format!(
            "sp_group_{}_l{}_lat{}_m{}{}",
            g.flavor.name(),
            g.lanes,
            g.lat,
            g.imul_passes,
            if N > 0 { "_ln" } else { "" }
        )
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SpGroupLnIn<C::B, M, N>) -> SpGroupLnOut<C::B, N> {
        let reps = is_imul32::<C::B>(i.op_i, i.mod_i).mux(k::<C::B, 3>(self.geom.imul_passes as u64), k::<C::B, 3>(1));
        let mode = i.mode.first().map(|m| m.ln_mode);
        // In lane mode the warp-level dispatch is not accepted.
        let valid = match mode {
            None => i.valid_i,
            Some(m) => {
                let v = cx.cross(i.valid_i, Domain::Hot);
                cx.name("warp_valid", v & !m)
            }
        };
        let e = EngIn {
            valid,
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
        let o: EngOut<C, 32> = match mode {
            None => self.eng.eval(cx, &self.lanes, &e),
            Some(m) => self.eng.eval(
                cx,
                &LnMux {
                    lanes: &self.lanes,
                    mode: m,
                    ln: &i.ln,
                },
                &e,
            ),
        };
        let m = mode.unwrap_or(k::<C::B, 1>(0));
        let ln = std::array::from_fn(|j| self.lane_out(cx, m, j, &i.ln[j], o.lanes[j]));
        SpGroupLnOut {
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
            ln,
        }
    }
}

/// The SP array of `G` groups, one per scheduler: ports `sp0_*` (and
/// `sp1_*`). The groups are independent instances (`u_grp0`, `u_grp1`).
/// With lane ports (`M` = 1 and `N` = lanes per group, `GM` = `G`, `GN` =
/// `G * N`): `sp<g>_ln_mode_i` and `ln<j>_*` (see [`SpArrayIn`]).
#[derive(Debug, Clone)]
pub struct SpArray<const G: usize, const M: usize = 0, const N: usize = 0, const GM: usize = 0, const GN: usize = 0> {
    decl: Decl,
    geom: SpGeom,
    grp: SpGroup<M, N>,
    /// `u_grp<g>` instance names, made once (`eval` runs every cycle).
    names: [String; G],
}

/// The SP array with one group (gt200, tesla).
pub type SpArray1 = SpArray<1>;
/// The SP array with two groups (fermi, gpucc).
pub type SpArray2 = SpArray<2>;
/// The SP array with two groups of 16 lanes and lane ports (gpucc).
pub type SpArray2Ln16 = SpArray<2, 1, 16, 2, 32>;

/// Why an SP array cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
#[error("SP array: {0}")]
pub struct SpError(pub String);

impl<const G: usize, const M: usize, const N: usize, const GM: usize, const GN: usize> SpArray<G, M, N, GM, GN> {
    /// An array of `G` groups; `g.groups` must be `G`, the lane-port sizes
    /// 0 or those of `g`.
    pub fn new(g: SpGeom) -> Result<Self, SpError> {
        if g.groups != G {
            return Err(SpError(format!("{} groups, this shape has {G}", g.groups)));
        }
        if g.lanes == 0 || !WARP.is_multiple_of(g.lanes) {
            return Err(SpError(format!("{} lanes per group must divide 32", g.lanes)));
        }
        if g.lat == 0 || g.lat > 64 {
            return Err(SpError(format!("sp_latency {} must be 1..=64", g.lat)));
        }
        if !matches!(g.imul_passes, 1 | 2 | 4) {
            return Err(SpError(format!("imul32_passes {} must be 1, 2 or 4", g.imul_passes)));
        }
        lane_ports_ok(g, G, M, N, GM, GN)?;
        Ok(SpArray {
            decl: Decl::new(),
            geom: g,
            grp: SpGroup::build(g),
            names: std::array::from_fn(|k| format!("u_grp{k}")),
        })
    }
    /// The geometry.
    pub fn geom(&self) -> SpGeom {
        self.geom
    }
    /// Hot cycles of the random stimulus's drain before it switches a
    /// group to lane mode: a warp instruction accepted at the last core
    /// edge before has answered by then (even).
    fn drain_hot(&self) -> u64 {
        let g = &self.geom;
        let n = (g.passes() * g.imul_passes + g.lat + 4) as u64;
        n + n % 2
    }
}

/// Random stimulus of an array with lane ports: per group, a repeating
/// schedule of warp mode (random dispatch), a drain (no dispatch) and lane
/// mode (random dispatch, which the group ignores).
const STIM_WARP_HOT: u64 = 128;
const STIM_LANE_HOT: u64 = 128;

impl<const G: usize, const M: usize, const N: usize, const GM: usize, const GN: usize> Block
    for SpArray<G, M, N, GM, GN>
{
    type In<B: Backend> = SpArrayIn<B, G, GM, GN>;
    type Out<B: Backend> = SpArrayOut<B, G, GN>;
    fn module_name(&self) -> String {
        let g = &self.geom;
        format!(
            "sp_array_{}_g{}_l{}_lat{}_m{}{}",
            g.flavor.name(),
            g.groups,
            g.lanes,
            g.lat,
            g.imul_passes,
            if N > 0 { "_ln" } else { "" }
        )
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn constrain(&self, r: u64, i: &mut SpArrayIn<crate::hdl::Concrete, G, GM, GN>) {
        for (k, d) in i.sp.iter_mut().enumerate() {
            let (op, md) = random_sp_op(r.rotate_right(23 * k as u32), self.geom.flavor);
            d.op = crate::hdl::Bits::new(op);
            d.md = crate::hdl::Bits::new(md);
        }
    }
    /// Lane ports: the mode follows the schedule of [`STIM_WARP_HOT`] (its
    /// switches obey `ln_mode_i`'s rule: the group is idle), the lanes get
    /// random SP ops (from their random operands).
    fn constrain_hot(&self, t: u64, i: &mut SpArrayIn<crate::hdl::Concrete, G, GM, GN>) {
        if N == 0 {
            return;
        }
        use crate::hdl::Bits;
        let drain = self.drain_hot();
        let period = STIM_WARP_HOT + drain + STIM_LANE_HOT;
        for g in 0..G {
            // Group g runs 96 g hot cycles ahead (even: phases change at
            // core edges only).
            let ph = (t + 96 * g as u64) % period;
            let lane = ph >= STIM_WARP_HOT + drain;
            if t.is_multiple_of(2) && ph >= STIM_WARP_HOT && !lane {
                i.sp[g].valid = Bits::new(0);
            }
            i.mode[g].ln_mode = Bits::new(lane as u64);
            for l in &mut i.ln[g * N..(g + 1) * N] {
                let r = l.a.to_u64() ^ l.b.to_u64() << 32 ^ t.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                let (op, md) = random_sp_op(r, self.geom.flavor);
                l.op = Bits::new(op);
                l.md = Bits::new(md);
            }
        }
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SpArrayIn<C::B, G, GM, GN>) -> SpArrayOut<C::B, G, GN> {
        let outs: [SpGroupLnOut<C::B, N>; G] = std::array::from_fn(|g| {
            let gi = i.sp[g].group_in_ln(
                std::array::from_fn(|_| i.mode[g]),
                std::array::from_fn(|j| i.ln[g * N + j]),
            );
            cx.instance(&self.names[g], &self.grp, &gi)
        });
        SpArrayOut {
            sp: std::array::from_fn(|g| outs[g].out),
            ln: std::array::from_fn(|j| outs[j / N].ln[j % N]),
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
