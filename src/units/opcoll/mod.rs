//! Operand collectors: take issued warp instructions (`is<s>_*`), gather
//! their up to 3 operands (FP64: register pairs) from the banked register
//! file (`u_rf`, [`Regfile`]) through a per-group arbiter, and dispatch a
//! complete instruction to its unit (`sp<g>_*`, `sfu_*`, `dpu_*`, `lsu_*`).
//!
//! ```text
//!  is0_* is1_* --> free collector of pool s (lowest index) --- map regs
//!                  (tab_* of u_rf, regfile::place) -> group, row per read
//!  collectors c: instr, 6 reads (a, a+1, b, b+1, c, c+1): pending, group,
//!                row, got (granted last cycle), data[32 lanes]
//!        | per group g: oldest collector with a pending read of g, its
//!        v first read (a.lo a.hi b.lo b.hi c.lo c.hi)  -> rd_en/rd_row[g]
//!  u_rf (banks; rf_wr<w>_* writes win a group) -> rd_data, rd_done[g]
//!        | complete = no read pending and none in flight
//!        v per unit: oldest complete collector whose unit ready && wb room
//!  sp0_* sp1_* sfu_* dpu_* lsu_*          cnt_rr_o cnt_wr_o cnt_stall_o
//! ```
//!
//! * Clock domain: core. `is<s>_ready_o` is Moore (collector valid bits).
//! * Collectors: `opcoll_units`, pooled per scheduler (`opcoll_units /
//!   warp_schedulers` each), any unit class; bit u of `is<s>_ready_o`: a
//!   collector of pool s is free, and for the LSU (bit 3) also fewer than
//!   `LSU_PER_POOL` (2) collectors of the pool hold an LSU instruction
//!   (loads and stores waiting for the LSU, which takes one instruction at
//!   a time, must not hold the collectors the arithmetic stream needs; with
//!   1 a stream of LDS left a bubble between instructions). An
//!   issue is taken when `valid && ready[unit]`. Why pooled: with a
//!   Moore `ready` a collector is busy for the 2 cycles from issue to
//!   dispatch and free again one cycle later, so one issue stream needs 2
//!   busy collectors; the preset counts (GT200 6, Tesla 4, Fermi 8)
//!   sustain dual issue only when any collector can take any class
//!   (docs/regfile.md; GT200's 6 keep the MAD+MUL mix at full rate
//!   through bank conflicts, docs/calibration.md).
//! * Timing (docs/sm.md section 8): issue at edge e0; reads granted in cycle
//!   e0+1; data in cycle e0+2, and a conflict-free instruction dispatches at
//!   edge e0+2 (payload straight from the read data). A collector is free
//!   for a new issue from the cycle after its dispatch.
//! * Arbiter: per group (4 banks), the oldest collector (issue order;
//!   same-cycle issues: scheduler 0 first) with a pending read there wins,
//!   its reads in the order a.lo, a.hi, b.lo, b.hi, c.lo, c.hi. A write
//!   to the group in the same cycle wins over the read (`rd_done` low); the
//!   read is asked again the next cycle. Dispatch: per unit the oldest
//!   complete collector, when the unit's `ready` and wb's `room` are high;
//!   SP collectors of pool s go to `sp<s>`.
//! * Counters (32-bit, wrapping): `cnt_rr_o` pending reads not granted
//!   because another read won their group (per read per cycle),
//!   `cnt_wr_o` granted reads dropped for a write, `cnt_stall_o` complete
//!   collectors not dispatched (unit busy or no wb room), per cycle.
//! * Reads to come (Moore, for the SM top's write-after-read check):
//!   `war_v_o[c]` collector `c` holds an instruction with a read pending or
//!   in flight (granted, not yet confirmed); `war_warp_o[c]` its warp (tag
//!   bits 5:0; 0 without such a read); `war_reg_o[3c+o]` the register of operand `o` (a, b, c)
//!   while one of its reads is pending or in flight, else 255;
//!   `war_pair_o[3c+o]` its high half is (so `reg+1` counts too).
//!   Collectors past `opcoll_units`: 0 / 255.
//! * Operands: RZ (255) and unread halves deliver 0; `use_imm` puts `imm`
//!   in `b` (all lanes); `lsu_off_o = imm`; 64-bit buses get `hi:lo`.
//!   The operand registers (`c<c>_d<r>_<l>`) have no reset: an issue
//!   clears its collector's operands, and a bus carries only the
//!   dispatching collector's (0 when none dispatches).
//! * Errors at issue: a register beyond the warp's allocation (3) or an odd
//!   FP64 register (4) is not read (delivers 0) and raises `err_o` in the
//!   next cycle with `err_warp_o` (tag bits 5:0) and `err_reg_o`; the
//!   instruction still dispatches. Write errors come from `u_rf` (3, 4,
//!   12) and take precedence in the same cycle.
//! * Sizes: see [`RfGeom`]; per-lane buses are 32 lanes.

use crate::hdl::logic::{index, index_within, or_all, pick};
use crate::hdl::small::SmallBuf;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};
use crate::units::regfile::{place, Regfile, RegfileIn, RegfileOut, RfGeom, RfWr, LANES, RZ};
use crate::units::sp::SpIssue;

/// LSU instructions a collector pool holds at most (one being dispatched,
/// one collecting behind it): loads and stores waiting for the LSU leave
/// the rest of the pool to the arithmetic stream.
pub const LSU_PER_POOL: usize = 2;
/// Reads per collector: a.lo, a.hi, b.lo, b.hi, c.lo, c.hi.
pub const READS: usize = 6;

/// A per-collector list in `eval` (at most 16 collectors), without heap.
type Buf<T> = SmallBuf<T, 16>;

/// `err_*` (Moore): the register file's write error wins over the
/// collectors' own (registered) one.
#[allow(clippy::type_complexity)]
fn err_out<C: Ctx, const G: usize, const NL: usize>(
    rf: &RegfileOut<C::B, G, NL>,
    (e, ec, ew, er): (S<C, 1>, S<C, 8>, S<C, 6>, S<C, 8>),
) -> (S<C, 1>, S<C, 8>, S<C, 6>, S<C, 8>) {
    let rfe = rf.err_o;
    (
        rfe | e,
        rfe.mux(rf.err_code_o, ec),
        rfe.mux(rf.err_warp_o, ew),
        rfe.mux(rf.err_reg_o, er),
    )
}

/// The `war_*` outputs (see [`Opcoll::war`]).
struct War<C: Ctx> {
    v: [S<C, 1>; 16],
    warp: [S<C, 6>; 16],
    reg: [S<C, 8>; 48],
    pair: [S<C, 1>; 48],
}

/// Unit codes (docs/sm.md section 4).
pub const UNIT_SP: u64 = crate::golden::isa::Unit::Sp as u64;
pub const UNIT_SFU: u64 = crate::golden::isa::Unit::Sfu as u64;
pub const UNIT_DPU: u64 = crate::golden::isa::Unit::Dpu as u64;
pub const UNIT_LSU: u64 = crate::golden::isa::Unit::Lsu as u64;

crate::bundle! {
    /// One issue port (`is<s>_*`): a warp instruction from scheduler `s`.
    pub struct Issue {
        valid: 1 @ Core,
        unit: 3 @ Core,
        op: 7 @ Core,
        md = "mod": 4 @ Core,
        tag: 32 @ Core,
        ra: 8 @ Core,
        rb: 8 @ Core,
        rc: 8 @ Core,
        pair: 3 @ Core,
        use_imm: 1 @ Core,
        imm: 32 @ Core,
        mask: [1; 32] @ Core,
        pa: [1; 32] @ Core,
        pb: [1; 32] @ Core,
    }
}

crate::ports! {
    /// Issue ports, allocation and write channels (forwarded to `u_rf`),
    /// unit readiness.
    pub struct OpcollIn {
        is: [Issue; 2] @ in,
        al_valid_i: 1 @ Core,
        al_warp_i: 6 @ Core,
        al_base_i: 16 @ Core,
        al_nregs_i: 8 @ Core,
        rf_wr: [RfWr; 2] @ in,
        sp0_ready_i: 1 @ Core,
        sp1_ready_i: 1 @ Core,
        sfu_ready_i: 1 @ Core,
        dpu_ready_i: 1 @ Core,
        lsu_ready_i: 1 @ Core,
        wb_room_sp0_i: 1 @ Core,
        wb_room_sp1_i: 1 @ Core,
        wb_room_sfu_i: 1 @ Core,
        wb_room_dpu_i: 1 @ Core,
        wb_room_lsu_i: 1 @ Core,
    }
}

crate::ports! {
    /// Issue readiness, dispatch to the units, counters, errors.
    pub struct OpcollOut {
        is0_ready_o: 4 @ Core,
        is1_ready_o: 4 @ Core,
        sp: [SpIssue; 2] @ out,
        sfu_valid_o: 1 @ Core,
        sfu_op_o: 7 @ Core,
        sfu_mod_o: 4 @ Core,
        sfu_mask_o: [1; 32] @ Core,
        sfu_a_o: [32; 32] @ Core,
        sfu_b_o: [32; 32] @ Core,
        sfu_tag_o: 32 @ Core,
        dpu_valid_o: 1 @ Core,
        dpu_op_o: 7 @ Core,
        dpu_mod_o: 4 @ Core,
        dpu_mask_o: [1; 32] @ Core,
        dpu_a_o: [64; 32] @ Core,
        dpu_b_o: [64; 32] @ Core,
        dpu_c_o: [64; 32] @ Core,
        dpu_tag_o: 32 @ Core,
        lsu_valid_o: 1 @ Core,
        lsu_op_o: 7 @ Core,
        lsu_mod_o: 4 @ Core,
        lsu_mask_o: [1; 32] @ Core,
        lsu_a_o: [32; 32] @ Core,
        lsu_b_o: [64; 32] @ Core,
        lsu_c_o: [32; 32] @ Core,
        lsu_off_o: 32 @ Core,
        lsu_tag_o: 32 @ Core,
        cnt_rr_o: 32 @ Core,
        cnt_wr_o: 32 @ Core,
        cnt_stall_o: 32 @ Core,
        war_v_o: [1; 16] @ Core,
        war_warp_o: [6; 16] @ Core,
        war_reg_o: [8; 48] @ Core,
        war_pair_o: [1; 48] @ Core,
        err_o: 1 @ Core,
        err_code_o: 8 @ Core,
        err_warp_o: 6 @ Core,
        err_reg_o: 8 @ Core,
    }
}

/// Registers of one collector.
#[derive(Debug, Clone)]
struct Coll {
    valid: Reg<1>,
    unit: Reg<3>,
    op: Reg<7>,
    md: Reg<4>,
    tag: Reg<32>,
    use_imm: Reg<1>,
    imm: Reg<32>,
    /// Source registers a, b, c as issued (the read-pending export).
    reg: Vec<Reg<8>>,
    mask: Vec<Reg<1>>,
    pa: Vec<Reg<1>>,
    pb: Vec<Reg<1>>,
    pend: Vec<Reg<1>>,
    got: Vec<Reg<1>>,
    grp: Vec<Reg<3>>,
    row: Vec<Reg<8>>,
    /// `data[r][lane]`.
    data: Vec<Vec<Reg<32>>>,
}

/// The operand collector block with its register file (`G` groups, `NL =
/// 32 G`, `2^A` rows).
#[derive(Debug, Clone)]
pub struct Opcoll<const G: usize, const NL: usize, const A: usize> {
    decl: Decl,
    geom: RfGeom,
    rf: Regfile<G, NL, A>,
    colls: Vec<Coll>,
    /// `older[i][j]`: collector i was issued before collector j.
    older: Vec<Vec<Option<Reg<1>>>>,
    ren: Vec<Reg<1>>,
    cnt_rr: Reg<32>,
    cnt_wr: Reg<32>,
    cnt_stall: Reg<32>,
    err: Reg<1>,
    err_code: Reg<8>,
    err_warp: Reg<6>,
    err_reg: Reg<8>,
}

impl<const G: usize, const NL: usize, const A: usize> Opcoll<G, NL, A> {
    pub fn new(geom: RfGeom) -> Result<Self, crate::units::regfile::GeomError> {
        let rf = Regfile::<G, NL, A>::new(geom)?;
        let n = geom.collectors;
        if n > 16 {
            return Err(crate::units::regfile::GeomError(format!("{n} collectors (at most 16)")));
        }
        let mut d = Decl::new();
        let core = Domain::Core;
        let colls = (0..n)
            .map(|c| {
                let r1 = |d: &mut Decl, nm: &str| -> Vec<Reg<1>> {
                    (0..LANES).map(|l| d.reg(&format!("c{c}_{nm}{l}"), core, 0)).collect()
                };
                let mask = r1(&mut d, "mask");
                let pa = r1(&mut d, "pa");
                let pb = r1(&mut d, "pb");
                Coll {
                    valid: d.reg(&format!("c{c}_valid"), core, 0),
                    unit: d.reg(&format!("c{c}_unit"), core, 0),
                    op: d.reg(&format!("c{c}_op"), core, 0),
                    md: d.reg(&format!("c{c}_mod"), core, 0),
                    tag: d.reg(&format!("c{c}_tag"), core, 0),
                    use_imm: d.reg(&format!("c{c}_use_imm"), core, 0),
                    imm: d.reg(&format!("c{c}_imm"), core, 0),
                    reg: (0..3).map(|o| d.reg(&format!("c{c}_reg{o}"), core, 0)).collect(),
                    mask,
                    pa,
                    pb,
                    pend: (0..READS).map(|r| d.reg(&format!("c{c}_pend{r}"), core, 0)).collect(),
                    got: (0..READS).map(|r| d.reg(&format!("c{c}_got{r}"), core, 0)).collect(),
                    grp: (0..READS).map(|r| d.reg(&format!("c{c}_grp{r}"), core, 0)).collect(),
                    row: (0..READS).map(|r| d.reg(&format!("c{c}_row{r}"), core, 0)).collect(),
                    data: (0..READS)
                        .map(|r| {
                            (0..LANES)
                                .map(|l| d.reg_noreset(&format!("c{c}_d{r}_{l}"), core))
                                .collect()
                        })
                        .collect(),
                }
            })
            .collect();
        let older = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| (i != j).then(|| d.reg(&format!("older{i}_{j}"), core, 0)))
                    .collect()
            })
            .collect();
        let ren = (0..G).map(|g| d.reg(&format!("ren{g}"), core, 0)).collect();
        Ok(Opcoll {
            rf,
            colls,
            older,
            ren,
            cnt_rr: d.reg("cnt_rr", core, 0),
            cnt_wr: d.reg("cnt_wr", core, 0),
            cnt_stall: d.reg("cnt_stall", core, 0),
            err: d.reg("err", core, 0),
            err_code: d.reg("err_code", core, 0),
            err_warp: d.reg("err_warp", core, 0),
            err_reg: d.reg("err_reg", core, 0),
            decl: d,
            geom,
        })
    }

    /// The geometry.
    pub fn geom(&self) -> &RfGeom {
        &self.geom
    }

    /// Collectors per pool.
    /// Collector state: valid, unit, and per read pending / in flight.
    /// Fixed arrays filled in place (at most 16 collectors): no
    /// per-evaluation list is built and then moved, which the simulator's
    /// speed follows.
    #[allow(clippy::type_complexity)]
    fn coll_state<C: Ctx>(
        &self,
        cx: &mut C,
    ) -> (
        Buf<S<C, 1>>,
        Buf<S<C, 3>>,
        [[S<C, 1>; READS]; 16],
        [[S<C, 1>; READS]; 16],
    ) {
        let zero1 = cx.lit::<1>(0);
        let valid: Buf<S<C, 1>> = self.colls.iter().map(|c| cx.q(c.valid)).collect();
        let unit: Buf<S<C, 3>> = self.colls.iter().map(|c| cx.q(c.unit)).collect();
        let mut pend = [[zero1; READS]; 16];
        let mut got = [[zero1; READS]; 16];
        for (c, co) in self.colls.iter().enumerate() {
            for r in 0..READS {
                pend[c][r] = cx.q(co.pend[r]);
            }
        }
        for (c, co) in self.colls.iter().enumerate() {
            for r in 0..READS {
                got[c][r] = cx.q(co.got[r]);
            }
        }
        (valid, unit, pend, got)
    }

    /// `is<s>_ready_o` (Moore): a collector of pool `s` is free, and for
    /// the LSU bit also fewer than [`LSU_PER_POOL`] of the pool hold an
    /// LSU instruction (a memory instruction waiting for the LSU must not
    /// take the collectors the arithmetic stream needs).
    fn pool_ready<C: Ctx>(
        &self,
        cx: &mut C,
        s: usize,
        free: &[S<C, 1>],
        valid: &[S<C, 1>],
        unit: &[S<C, 3>],
    ) -> S<C, 4> {
        let psz = self.pool_size();
        let pool = s * psz..(s + 1) * psz;
        let any_free = or_all(cx, &free[pool.clone()]);
        let lsu_in: Buf<S<C, 1>> = pool.map(|c| valid[c] & unit[c].eq(cx.lit::<3>(UNIT_LSU))).collect();
        let lsu_n = popcount(cx, &lsu_in);
        let lsu_held = !lsu_n.ult(cx.lit::<32>(LSU_PER_POOL as u64));
        let all = lsu_held.mux(cx.lit::<4>(7), cx.lit::<4>(15));
        any_free.mux(all, cx.lit::<4>(0))
    }

    /// Reads still to come (Moore `war_*`): per collector, whether any read
    /// is pending or in flight, its warp, and per operand the register with
    /// such a read (255 when none).
    fn war<C: Ctx>(
        &self,
        cx: &mut C,
        valid: &[S<C, 1>],
        pend: &[[S<C, 1>; READS]; 16],
        got: &[[S<C, 1>; READS]; 16],
    ) -> War<C> {
        let zero1 = cx.lit::<1>(0);
        let mut w = War {
            v: [zero1; 16],
            warp: [cx.lit::<6>(0); 16],
            reg: [cx.lit::<8>(RZ); 48],
            pair: [zero1; 48],
        };
        for c in 0..self.geom.collectors {
            let co = &self.colls[c];
            let mut any = zero1;
            let tag = cx.q(co.tag);
            for o in 0..3 {
                let (lo, hi) = (2 * o, 2 * o + 1);
                let left = pend[c][lo] | got[c][lo] | pend[c][hi] | got[c][hi];
                let left = valid[c] & left;
                any = any | left;
                let r = cx.q(co.reg[o]);
                w.reg[3 * c + o] = left.mux(r, cx.lit::<8>(RZ));
                w.pair[3 * c + o] = left & (pend[c][hi] | got[c][hi]);
            }
            w.v[c] = any;
            w.warp[c] = any.mux(tag.slice::<0, 6>(), cx.lit::<6>(0));
        }
        w
    }

    fn pool_size(&self) -> usize {
        self.geom.collectors / self.geom.scheds
    }
}

/// Population count of 1-bit signals, as a 32-bit number.
fn popcount<C: Ctx>(cx: &mut C, v: &[S<C, 1>]) -> S<C, 32> {
    let mut acc = cx.lit::<8>(0);
    for &b in v {
        acc = acc + b.zext::<8>();
    }
    acc.zext::<32>()
}

/// Oldest of the candidates (one-hot or zero) under `older[j][i]`; entries
/// past `cand.len()` (at most 16 collectors) are `zero`.
fn oldest<C: Ctx>(cx: &mut C, cand: &[S<C, 1>], older: &[[Option<S<C, 1>>; 16]; 16], zero: S<C, 1>) -> [S<C, 1>; 16] {
    let n = cand.len();
    let mut out = [zero; 16];
    for i in 0..n {
        let mut beaten = cx.lit::<1>(0);
        for j in 0..n {
            if let Some(o) = older[j][i] {
                beaten = beaten | (cand[j] & o);
            }
        }
        out[i] = cand[i] & !beaten;
    }
    out
}

impl<const G: usize, const NL: usize, const A: usize> Block for Opcoll<G, NL, A> {
    type In<B: Backend> = OpcollIn<B>;
    type Out<B: Backend> = OpcollOut<B>;

    fn module_name(&self) -> String {
        let g = &self.geom;
        format!(
            "opcoll_g{G}_r{}_s{}_w{}_n{}{}",
            g.rows,
            g.scheds,
            g.max_warps,
            g.collectors,
            if g.dual_port { "_1r1w" } else { "" }
        )
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn constrain(&self, r: u64, i: &mut OpcollIn<crate::hdl::Concrete>) {
        crate::testbenches::opcoll_tb::constrain(&self.geom, r, i);
    }

    /// The Moore outputs for the SM top's probe: `is<s>_ready_o`, `war_*`,
    /// the counters and the errors (the register file's error registers
    /// through its own probe), from the same helpers as `eval`.
    fn moore<C: Ctx>(&self, cx: &mut C) -> Option<OpcollOut<C::B>> {
        let (_, rf_out) = cx.instance_begin("u_rf", &self.rf);
        let (valid, unit, pend, got) = self.coll_state(cx);
        let free: Buf<S<C, 1>> = valid.iter().map(|&v| !v).collect();
        let mut o: OpcollOut<C::B> =
            <OpcollOut<C::B> as crate::hdl::Ports<C::B>>::build(&mut crate::hdl::block::ZeroPorts);
        o.is0_ready_o = self.pool_ready(cx, 0, &free, &valid, &unit);
        if self.geom.scheds > 1 {
            o.is1_ready_o = self.pool_ready(cx, 1, &free, &valid, &unit);
        }
        let w = self.war(cx, &valid, &pend, &got);
        (o.war_v_o, o.war_warp_o, o.war_reg_o, o.war_pair_o) = (w.v, w.warp, w.reg, w.pair);
        (o.cnt_rr_o, o.cnt_wr_o, o.cnt_stall_o) = (cx.q(self.cnt_rr), cx.q(self.cnt_wr), cx.q(self.cnt_stall));
        let own = (
            cx.q(self.err),
            cx.q(self.err_code),
            cx.q(self.err_warp),
            cx.q(self.err_reg),
        );
        (o.err_o, o.err_code_o, o.err_warp_o, o.err_reg_o) = err_out::<C, G, NL>(&rf_out, own);
        Some(o)
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &OpcollIn<C::B>) -> OpcollOut<C::B> {
        let g = self.geom;
        let n = g.collectors;
        let psz = self.pool_size();
        let zero1 = cx.lit::<1>(0);
        let one1 = cx.lit::<1>(1);
        let z32 = cx.lit::<32>(0);

        // Collector state.
        let (valid, unit, pend, got) = self.coll_state(cx);
        // The first read fills the unused entries (the tracer records each
        // read: the same reads in the same order give the same Verilog).
        let mut grp = [[cx.q(self.colls[0].grp[0]); READS]; 16];
        for (c, co) in self.colls.iter().enumerate() {
            for r in (0..READS).filter(|&r| c + r > 0) {
                grp[c][r] = cx.q(co.grp[r]);
            }
        }
        let mut row = [[cx.q(self.colls[0].row[0]); READS]; 16];
        for (c, co) in self.colls.iter().enumerate() {
            for r in (0..READS).filter(|&r| c + r > 0) {
                row[c][r] = cx.q(co.row[r]);
            }
        }
        let mut older: [[Option<S<C, 1>>; 16]; 16] = [[None; 16]; 16];
        for (i, v) in self.older.iter().enumerate() {
            for (j, o) in v.iter().enumerate() {
                older[i][j] = o.map(|r| cx.q(r));
            }
        }
        // gsel[c][r][k]: read r of collector c is in group k.
        let glit: [S<C, 3>; G] = std::array::from_fn(|k| cx.lit::<3>(k as u64));
        let mut gsel = [[[zero1; G]; READS]; 16];
        for c in 0..n {
            for r in 0..READS {
                for k in 0..G {
                    gsel[c][r][k] = grp[c][r].eq(glit[k]);
                }
            }
        }

        let ren_q: SmallBuf<S<C, 1>, G> = self.ren.iter().map(|&r| cx.q(r)).collect();
        let mut grants = [[zero1; READS]; 16];
        let mut epend = [[zero1; READS]; 16];
        let mut arrived = [[zero1; READS]; 16];
        let mut rr_lost: SmallBuf<S<C, 1>, { 16 * READS }> = SmallBuf::new();
        let mut dropped: SmallBuf<S<C, 1>, G> = SmallBuf::new();

        let rf_out: RegfileOut<C::B, G, NL> = cx.instance_fb("u_rf", &self.rf, |cx, o| {
            // In-flight reads: arrived (done) or dropped by a write.
            for c in 0..n {
                for r in 0..READS {
                    let done = pick(cx, &gsel[c][r], &o.rd_done_o);
                    arrived[c][r] = got[c][r] & done;
                    epend[c][r] = pend[c][r] | (got[c][r] & !done);
                }
            }
            for k in 0..G {
                dropped.push(ren_q[k] & !o.rd_done_o[k]);
            }
            // Per group: oldest collector with a pending read there, then
            // its first such read.
            let mut rd_en = [zero1; G];
            let mut rd_row = [cx.lit::<8>(0); G];
            for k in 0..G {
                // Fixed arrays (n <= 16): no allocation per group.
                let mut req = [[zero1; READS]; 16];
                for c in 0..n {
                    for r in 0..READS {
                        req[c][r] = epend[c][r] & gsel[c][r][k];
                    }
                }
                let mut cand = [zero1; 16];
                for c in 0..n {
                    cand[c] = or_all(cx, &req[c]);
                }
                let cand = &cand[..n];
                let win = oldest(cx, cand, &older, zero1);
                let mut sels: SmallBuf<S<C, 1>, { 16 * READS }> = SmallBuf::new();
                let mut rows: SmallBuf<S<C, 8>, { 16 * READS }> = SmallBuf::new();
                for c in 0..n {
                    let mut seen = zero1;
                    for r in 0..READS {
                        let first = req[c][r] & !seen;
                        seen = seen | req[c][r];
                        let gr = win[c] & first;
                        grants[c][r] = grants[c][r] | gr;
                        sels.push(gr);
                        rows.push(row[c][r]);
                    }
                }
                rd_en[k] = or_all(cx, cand);
                rd_row[k] = pick(cx, &sels, &rows);
            }
            for c in 0..n {
                for r in 0..READS {
                    rr_lost.push(epend[c][r] & !grants[c][r]);
                }
            }
            RegfileIn {
                al_valid_i: i.al_valid_i,
                al_warp_i: i.al_warp_i,
                al_base_i: i.al_base_i,
                al_nregs_i: i.al_nregs_i,
                rf_wr: i.rf_wr,
                rd_en_i: rd_en,
                rd_row_i: rd_row,
            }
        });
        for k in 0..G {
            let any: SmallBuf<S<C, 1>, { 16 * READS }> = (0..n)
                .flat_map(|c| (0..READS).map(move |r| (c, r)))
                .map(|(c, r)| grants[c][r] & gsel[c][r][k])
                .collect();
            let en = or_all(cx, &any);
            cx.d(self.ren[k], en);
        }

        // Operand values now: arrived data from the banks, else held. `None`
        // (simulation only, when nothing arrived): the held registers, read
        // where used.
        // Flat, `val[c * READS + r]`: one allocation per evaluation.
        let val: Vec<Option<[S<C, 32>; 32]>> = (0..n)
            .flat_map(|c| (0..READS).map(move |r| (c, r)))
            .map(|(c, r)| {
                if cx.known_low(arrived[c][r]) {
                    return None;
                }
                // The group's bits, low first: a mux tree on the encoded
                // group (`place` gives a group below G, so no leaf is
                // padded) where a one-hot AND-OR would take twice the LUTs
                // per bit on an FPGA.
                let gb: [S<C, 1>; 3] = [
                    grp[c][r].slice::<0, 1>(),
                    grp[c][r].slice::<1, 1>(),
                    grp[c][r].slice::<2, 1>(),
                ];
                Some(std::array::from_fn(|l| {
                    let leaves: [S<C, 32>; G] = std::array::from_fn(|k| rf_out.rd_data_o[k * LANES + l]);
                    let fresh = index_within(cx, &leaves, &gb);
                    let held = cx.q(self.colls[c].data[r][l]);
                    arrived[c][r].mux(fresh, held)
                }))
            })
            .collect();
        let val_at = |cx: &mut C, c: usize, r: usize, l: usize| -> S<C, 32> {
            match &val[c * READS + r] {
                Some(v) => v[l],
                None => cx.q(self.colls[c].data[r][l]),
            }
        };
        let complete: Buf<S<C, 1>> = (0..n)
            .map(|c| {
                let p = or_all(cx, &epend[c]);
                valid[c] & !p
            })
            .collect();

        // Dispatch: per unit, the oldest complete collector.
        let is_unit = |cx: &mut C, c: usize, u: u64| unit[c].eq(cx.lit::<3>(u));
        let mut disp: Buf<S<C, 1>> = SmallBuf::filled(zero1, n);
        let ports: [(u64, Option<usize>, S<C, 1>); 5] = [
            (UNIT_SP, Some(0), i.sp0_ready_i & i.wb_room_sp0_i),
            (UNIT_SP, Some(1), i.sp1_ready_i & i.wb_room_sp1_i),
            (UNIT_SFU, None, i.sfu_ready_i & i.wb_room_sfu_i),
            (UNIT_DPU, None, i.dpu_ready_i & i.wb_room_dpu_i),
            (UNIT_LSU, None, i.lsu_ready_i & i.wb_room_lsu_i),
        ];
        let mut wins: SmallBuf<[S<C, 1>; 16], 5> = SmallBuf::new();
        for (u, pool, ok) in ports {
            let mut cand = [zero1; 16];
            for c in 0..n {
                let in_pool = pool.is_none_or(|p| p < g.scheds && c / psz == p);
                if in_pool {
                    cand[c] = complete[c] & is_unit(cx, c, u) & ok;
                }
            }
            let w = oldest(cx, &cand[..n], &older, zero1);
            for c in 0..n {
                disp[c] = disp[c] | w[c];
            }
            wins.push(w);
        }
        let stall: Buf<S<C, 1>> = (0..n).map(|c| complete[c] & !disp[c]).collect();

        // Payload of the winner of each port.
        // pick(w, values) written out per lane (same logic, same order as
        // `pick`), without building a value array per lane.
        let lane_pick = |cx: &mut C, w: &[S<C, 1>], r: usize| -> [S<C, 32>; 32] {
            if w.iter().all(|&x| cx.known_low(x)) {
                // Simulation only: no winner, the pick is 0 on every lane.
                return [z32; 32];
            }
            std::array::from_fn(|l| {
                let zero = cx.lit::<32>(0);
                let mut acc = zero;
                for c in 0..n {
                    let v = val_at(cx, c, r, l);
                    acc = acc | w[c].mux(v, zero);
                }
                acc
            })
        };
        let pick_reg = |cx: &mut C, w: &[S<C, 1>], regs: &dyn Fn(&Coll) -> Reg<32>| -> S<C, 32> {
            let v: Buf<S<C, 32>> = self.colls.iter().map(|c| cx.q(regs(c))).collect();
            pick(cx, w, &v)
        };
        let pick_bits = |cx: &mut C, w: &[S<C, 1>], regs: &dyn Fn(&Coll) -> &Vec<Reg<1>>| -> [S<C, 1>; 32] {
            if w.iter().all(|&x| cx.known_low(x)) {
                return [zero1; 32];
            }
            std::array::from_fn(|l| {
                let mut v = [zero1; 16];
                for (c, co) in self.colls.iter().enumerate() {
                    v[c] = cx.q(regs(co)[l]);
                }
                let zero = cx.lit::<1>(0);
                let mut acc = zero;
                for c in 0..n {
                    acc = acc | w[c].mux(v[c], zero);
                }
                acc
            })
        };
        let head = |cx: &mut C, w: &[S<C, 1>]| {
            let v = or_all(cx, w);
            let ops: Buf<S<C, 7>> = self.colls.iter().map(|c| cx.q(c.op)).collect();
            let mds: Buf<S<C, 4>> = self.colls.iter().map(|c| cx.q(c.md)).collect();
            let op = pick(cx, w, &ops);
            let md = pick(cx, w, &mds);
            let tag = pick_reg(cx, w, &|c| c.tag);
            (v, op, md, tag)
        };
        // b: the immediate when use_imm, else the register.
        let b_lo = |cx: &mut C, w: &[S<C, 1>]| -> [S<C, 32>; 32] {
            let imms: Buf<S<C, 32>> = self.colls.iter().map(|c| cx.q(c.imm)).collect();
            let uis: Buf<S<C, 1>> = self.colls.iter().map(|c| cx.q(c.use_imm)).collect();
            let imm = pick(cx, w, &imms);
            let ui = pick(cx, w, &uis);
            let reg = lane_pick(cx, w, 2);
            std::array::from_fn(|l| ui.mux(imm, reg[l]))
        };
        let wide = |hi: [S<C, 32>; 32], lo: [S<C, 32>; 32]| -> [S<C, 64>; 32] {
            std::array::from_fn(|l| hi[l].concat::<32, 64>(lo[l]))
        };

        let mut sp = Vec::with_capacity(2);
        for s in 0..2 {
            let w = &wins[s][..n];
            let (v, op, md, tag) = head(cx, w);
            let mask = pick_bits(cx, w, &|c| &c.mask);
            let a = lane_pick(cx, w, 0);
            let b = b_lo(cx, w);
            let c3 = lane_pick(cx, w, 4);
            let pa = pick_bits(cx, w, &|c| &c.pa);
            let pb = pick_bits(cx, w, &|c| &c.pb);
            sp.push(SpIssue {
                valid: v,
                op,
                md,
                mask,
                a,
                b,
                c: c3,
                pa,
                pb,
                tag,
            });
        }
        let w = &wins[2][..n];
        let (sfu_v, sfu_op, sfu_md, sfu_tag) = head(cx, w);
        let sfu_mask = pick_bits(cx, w, &|c| &c.mask);
        let sfu_a = lane_pick(cx, w, 0);
        let sfu_b = b_lo(cx, w);
        let w = &wins[3][..n];
        let (dpu_v, dpu_op, dpu_md, dpu_tag) = head(cx, w);
        let dpu_mask = pick_bits(cx, w, &|c| &c.mask);
        let dpu_a = wide(lane_pick(cx, w, 1), lane_pick(cx, w, 0));
        let dpu_b = wide(lane_pick(cx, w, 3), b_lo(cx, w));
        let dpu_c = wide(lane_pick(cx, w, 5), lane_pick(cx, w, 4));
        let w = &wins[4][..n];
        let (lsu_v, lsu_op, lsu_md, lsu_tag) = head(cx, w);
        let lsu_mask = pick_bits(cx, w, &|c| &c.mask);
        let lsu_a = lane_pick(cx, w, 0);
        let lsu_b = wide(lane_pick(cx, w, 3), b_lo(cx, w));
        let lsu_c = lane_pick(cx, w, 4);
        let lsu_off = pick_reg(cx, w, &|c| c.imm);

        // Issue: ready per pool (Moore), lowest free collector takes it.
        let free: Buf<S<C, 1>> = valid.iter().map(|&v| !v).collect();
        let mut ready = [cx.lit::<4>(0); 2];
        let mut alloc: Buf<S<C, 1>> = SmallBuf::filled(zero1, n);
        let mut alloc_from: Buf<usize> = SmallBuf::filled(0, n);
        let iss = i.is;
        let mut err_any = zero1;
        let mut err_code = cx.lit::<8>(0);
        let mut err_warp = cx.lit::<6>(0);
        let mut err_reg = cx.lit::<8>(0);
        // Per collector: the new reads (pending, group, row) if allocated.
        let mut new_reads: Buf<Option<(usize, SmallBuf<(S<C, 1>, S<C, 3>, S<C, 8>), READS>)>> =
            SmallBuf::filled(None, n);
        for s in (0..g.scheds).rev() {
            let p = &iss[s];
            let pool: Buf<usize> = (s * psz..(s + 1) * psz).collect();
            ready[s] = self.pool_ready(cx, s, &free, &valid, &unit);
            let unit_ok = p.unit.ult(cx.lit::<3>(4));
            let bit = ready[s].shr(p.unit).slice::<0, 1>();
            let take = p.valid & unit_ok & bit;
            // Placement of the 6 reads.
            let warp: S<C, 6> = p.tag.slice::<0, 6>();
            let base = index(cx, &rf_out.tab_base_o, warp);
            let nregs = index(cx, &rf_out.tab_nregs_o, warp);
            let regs = [p.ra, p.rb, p.rc];
            let mut reads: SmallBuf<_, READS> = SmallBuf::new();
            let mut e_any = zero1;
            let mut e_code = cx.lit::<8>(0);
            let mut e_reg = cx.lit::<8>(0);
            for (o, &reg) in regs.iter().enumerate() {
                let pr = p.pair.slice::<0, 1>();
                let pr = match o {
                    0 => pr,
                    1 => p.pair.slice::<1, 1>(),
                    _ => p.pair.slice::<2, 1>(),
                };
                let none = reg.eq(cx.lit::<8>(RZ)) | if o == 1 { p.use_imm } else { zero1 };
                let odd = pr & reg.slice::<0, 1>() & !none;
                let reg9 = reg.zext::<9>();
                let lo = place(cx, &g, warp, reg9, base, nregs);
                let one9 = cx.lit::<9>(1);
                let hi = place(cx, &g, warp, reg9 + one9, base, nregs);
                let lo_bad = !none & !odd & lo.beyond;
                let hi_bad = !none & !odd & pr & !lo.beyond & hi.beyond;
                let lo_ok = !none & !odd & !lo.beyond & !(pr & hi.beyond);
                let hi_ok = lo_ok & pr;
                reads.push((lo_ok, lo.group, lo.row));
                reads.push((hi_ok, hi.group, hi.row));
                // First error of this issue, in operand order.
                let this = odd | lo_bad | hi_bad;
                let code = odd.mux(cx.lit::<8>(4), cx.lit::<8>(3));
                let ereg = hi_bad.mux(reg + cx.lit::<8>(1), reg);
                e_code = (this & !e_any).mux(code, e_code);
                e_reg = (this & !e_any).mux(ereg, e_reg);
                e_any = e_any | this;
            }
            let e = take & e_any;
            err_code = e.mux(e_code, err_code);
            err_reg = e.mux(e_reg, err_reg);
            err_warp = e.mux(warp, err_warp);
            err_any = err_any | e;
            // Lowest free collector of the pool.
            let mut seen = zero1;
            for &c in pool.iter() {
                let first = free[c] & !seen;
                seen = seen | free[c];
                alloc[c] = take & first;
                alloc_from[c] = s;
                new_reads[c] = Some((s, reads));
            }
        }

        // Next state of each collector.
        for c in 0..n {
            let co = &self.colls[c];
            let a = alloc[c];
            let s = alloc_from[c];
            let p = &iss[s];
            let v_next = a | (valid[c] & !disp[c]);
            cx.d(co.valid, v_next);
            let keep3 = unit[c];
            cx.d(co.unit, a.mux(p.unit, keep3));
            cx.d_en(co.op, a, |_| p.op);
            cx.d_en(co.md, a, |_| p.md);
            cx.d_en(co.tag, a, |_| p.tag);
            cx.d_en(co.use_imm, a, |_| p.use_imm);
            cx.d_en(co.imm, a, |_| p.imm);
            for (o, &r) in [p.ra, p.rb, p.rc].iter().enumerate() {
                cx.d_en(co.reg[o], a, |_| r);
            }
            for l in 0..LANES {
                cx.d_en(co.mask[l], a, |_| p.mask[l]);
                cx.d_en(co.pa[l], a, |_| p.pa[l]);
                cx.d_en(co.pb[l], a, |_| p.pb[l]);
            }
            let reads = &new_reads[c].as_ref().expect("every collector is in a pool").1;
            for r in 0..READS {
                let (ok, gr, rw) = reads[r];
                cx.d(co.pend[r], a.mux(ok, epend[c][r] & !grants[c][r]));
                cx.d(co.got[r], a.mux(zero1, grants[c][r]));
                cx.d(co.grp[r], a.mux(gr, grp[c][r]));
                cx.d(co.row[r], a.mux(rw, row[c][r]));
                // An allocation clears the operand; otherwise it takes the
                // value arriving this cycle, if any, or holds.
                for l in 0..LANES {
                    match &val[c * READS + r] {
                        Some(v) => cx.d(co.data[r][l], a.mux(z32, v[l])),
                        None => {
                            cx.d_en(co.data[r][l], a, |_| z32);
                        }
                    }
                }
            }
        }
        // Age: a newly issued collector is younger than every other; two
        // issued together: scheduler 0's is older.
        for ci in 0..n {
            for cj in 0..n {
                if let Some(reg) = self.older[ci][cj] {
                    let q = older[ci][cj].expect("off-diagonal");
                    let both = alloc[ci] & alloc[cj];
                    let k = if alloc_from[ci] < alloc_from[cj] { one1 } else { zero1 };
                    let v = both.mux(k, alloc[cj].mux(one1, alloc[ci].mux(zero1, q)));
                    cx.d(reg, v);
                }
            }
        }

        // Counters and errors.
        let cnt = |cx: &mut C, r: Reg<32>, v: &[S<C, 1>]| {
            let q = cx.q(r);
            let add = popcount(cx, v);
            cx.d(r, q + add);
            q
        };
        let cnt_rr = cnt(cx, self.cnt_rr, &rr_lost);
        let cnt_wr = cnt(cx, self.cnt_wr, &dropped);
        let cnt_stall = cnt(cx, self.cnt_stall, &stall);
        cx.d(self.err, err_any);
        cx.d(self.err_code, err_code);
        cx.d(self.err_warp, err_warp);
        cx.d(self.err_reg, err_reg);
        let (e, ec, ew, er) = (
            cx.q(self.err),
            cx.q(self.err_code),
            cx.q(self.err_warp),
            cx.q(self.err_reg),
        );
        let (err_o, err_code_o, err_warp_o, err_reg_o) = err_out::<C, G, NL>(&rf_out, (e, ec, ew, er));

        // Reads still to come (Moore): per collector, whether any read is
        // pending or in flight, its warp, and per operand the register
        // with such a read (255 when none). The SM top holds back an issue
        // of the same warp that would write one of them (write after read).
        let War {
            v: war_v,
            warp: war_warp,
            reg: war_reg,
            pair: war_pair,
        } = self.war(cx, &valid, &pend, &got);

        OpcollOut {
            is0_ready_o: ready[0],
            is1_ready_o: ready[1],
            sp: [sp[0], sp[1]],
            sfu_valid_o: sfu_v,
            sfu_op_o: sfu_op,
            sfu_mod_o: sfu_md,
            sfu_mask_o: sfu_mask,
            sfu_a_o: sfu_a,
            sfu_b_o: sfu_b,
            sfu_tag_o: sfu_tag,
            dpu_valid_o: dpu_v,
            dpu_op_o: dpu_op,
            dpu_mod_o: dpu_md,
            dpu_mask_o: dpu_mask,
            dpu_a_o: dpu_a,
            dpu_b_o: dpu_b,
            dpu_c_o: dpu_c,
            dpu_tag_o: dpu_tag,
            lsu_valid_o: lsu_v,
            lsu_op_o: lsu_op,
            lsu_mod_o: lsu_md,
            lsu_mask_o: lsu_mask,
            lsu_a_o: lsu_a,
            lsu_b_o: lsu_b,
            lsu_c_o: lsu_c,
            lsu_off_o: lsu_off,
            lsu_tag_o: lsu_tag,
            cnt_rr_o: cnt_rr,
            cnt_wr_o: cnt_wr,
            cnt_stall_o: cnt_stall,
            war_v_o: war_v,
            war_warp_o: war_warp,
            war_reg_o: war_reg,
            war_pair_o: war_pair,
            err_o,
            err_code_o,
            err_warp_o,
            err_reg_o,
        }
    }
}

/// Build the opcoll for `cfg` and hand it to `f` (the group count and the
/// row address width are type parameters: one monomorphized block each).
pub fn with_opcoll<F: crate::blocks::BlockFn>(cfg: &crate::config::SmConfig, f: &mut F) -> anyhow::Result<F::Out> {
    let g = RfGeom::from_config(cfg).map_err(|e| anyhow::anyhow!("config `{}`: {e}", cfg.name))?;
    let err = |e: crate::units::regfile::GeomError| anyhow::anyhow!("config `{}`: {e}", cfg.name);
    match (g.groups, g.addr_bits()) {
        (4, 7) => f.call(Opcoll::<4, 128, 7>::new(g).map_err(err)?),
        (6, 7) => f.call(Opcoll::<6, 192, 7>::new(g).map_err(err)?),
        (8, 7) => f.call(Opcoll::<8, 256, 7>::new(g).map_err(err)?),
        (4, 6) => f.call(Opcoll::<4, 128, 6>::new(g).map_err(err)?),
        (8, 6) => f.call(Opcoll::<8, 256, 6>::new(g).map_err(err)?),
        (4, 8) => f.call(Opcoll::<4, 128, 8>::new(g).map_err(err)?),
        (8, 8) => f.call(Opcoll::<8, 256, 8>::new(g).map_err(err)?),
        (gr, a) => anyhow::bail!(
            "config `{}`: {} register banks with {} rows per bank are not supported by the opcoll block \
             (16, 24 or 32 banks of 64-256 rows; 32 of up to 256 rows)",
            cfg.name,
            gr * 4,
            1 << a
        ),
    }
}

/// A GTKWave save file for a VCD of the opcoll (`<vcd>.gtkw`), replacing
/// the generic one: groups for the issue ports, each unit's dispatch port,
/// counters and errors, one group per collector (valid, unit, tag, the 6
/// reads' pending/granted/group/row, lane 0 of each read's data) and one
/// group per bank (its 8 lane memories' read data) with its group's
/// read-enable and done bits.
pub fn write_gtkw(vcd: &std::path::Path, design: &crate::hdl::Design, g: &RfGeom) -> std::io::Result<()> {
    use std::fmt::Write as _;
    let top = &design.modules[design.top];
    let t = &top.name;
    let mut s = String::new();
    let _ = writeln!(s, "{}[timestart] 0", crate::hdl::gtkw::Gtkw::new(vcd).text());
    let width = |name: &str| -> usize {
        top.inputs
            .iter()
            .chain(top.outputs.iter())
            .find(|p| p.name == name)
            .map(|p| p.bits())
            .or_else(|| {
                top.decl
                    .regs
                    .iter()
                    .find(|r| format!("{}_q", r.name) == name)
                    .map(|r| r.width)
            })
            .unwrap_or(32)
    };
    let sig = |s: &mut String, name: &str, w: usize| {
        if w == 1 {
            let _ = writeln!(s, "@28\n{t}.{name}");
        } else {
            let _ = writeln!(s, "@22\n{t}.{name}[{}:0]", w - 1);
        }
    };
    let group = |s: &mut String, title: &str, sigs: &[(String, usize)]| {
        let _ = writeln!(s, "@800200\n-{title}");
        for (n, w) in sigs {
            sig(s, n, *w);
        }
        let _ = writeln!(s, "@1000200\n-{title}");
    };
    let ports = |prefix: &str| -> Vec<(String, usize)> {
        top.inputs
            .iter()
            .chain(top.outputs.iter())
            .filter(|p| p.name.starts_with(prefix))
            .map(|p| (p.name.clone(), p.bits()))
            .collect()
    };
    group(
        &mut s,
        "clocks",
        &[("clk_core_i".into(), 1), ("clk_hot_i".into(), 1), ("rst_ni".into(), 1)],
    );
    for s_ in 0..g.scheds {
        group(&mut s, &format!("issue {s_}"), &ports(&format!("is{s_}_")));
    }
    for u in [
        "sp0_", "sp1_", "sfu_", "dpu_", "lsu_", "wb_room", "rf_wr0", "rf_wr1", "al_", "cnt_", "err_",
    ] {
        if (u == "sp1_" || u == "rf_wr1") && g.scheds == 1 {
            continue;
        }
        group(&mut s, u.trim_end_matches('_'), &ports(u));
    }
    for c in 0..g.collectors {
        let mut v: Vec<(String, usize)> = ["valid", "unit", "op", "tag", "use_imm"]
            .iter()
            .map(|f| {
                let n = format!("c{c}_{f}_q");
                let w = width(&n);
                (n, w)
            })
            .collect();
        for r in 0..READS {
            for f in ["pend", "got", "grp", "row"] {
                let n = format!("c{c}_{f}{r}_q");
                let w = width(&n);
                v.push((n, w));
            }
            v.push((format!("c{c}_d{r}_0_q"), 32));
        }
        group(
            &mut s,
            &format!("collector {c} (pool {})", c / (g.collectors / g.scheds)),
            &v,
        );
    }
    for b in 0..g.groups * 4 {
        let k = b / 4;
        let mut v: Vec<(String, usize)> = vec![(format!("ren{k}_q"), 1), (format!("u_rf.done{k}_q"), 1)];
        for l in 0..8 {
            v.push((format!("u_rf.bank{b}_l{l}_rdata0_q"), 32));
        }
        group(
            &mut s,
            &format!("bank {b} (group {k}, lanes {}-{})", 8 * (b % 4), 8 * (b % 4) + 7),
            &v,
        );
    }
    std::fs::write(crate::hdl::gtkw::save_path(vcd), s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SmConfig;
    use crate::hdl::Bits;
    use crate::hdl::Sim;
    use crate::testbenches::opcoll_ref::OpcollRef;
    use crate::testbenches::opcoll_tb::{
        dual_issue_stream, idle, lockstep, pattern, random_run, reg_in_group, same_group, set_issue, set_write,
    };

    fn gt200_24() -> SmConfig {
        let text = include_str!("../../../configs/gt200_24banks.toml");
        SmConfig::from_toml(text, "configs/gt200_24banks.toml").unwrap()
    }

    #[test]
    fn random_matches_reference_gt200() {
        let g = RfGeom::from_config(&SmConfig::preset("gt200").unwrap()).unwrap();
        let mut sim = Sim::new(Opcoll::<4, 128, 7>::new(g).unwrap()).unwrap();
        let st = random_run(&mut sim, &g, 3000, 1).unwrap();
        assert!(
            st.dispatched > 1000 && st.cnt[0] > 0 && st.cnt[1] > 0 && st.errors > 0,
            "{st:?}"
        );
    }

    #[test]
    fn random_matches_reference_fermi() {
        let g = RfGeom::from_config(&SmConfig::preset("fermi").unwrap()).unwrap();
        let mut sim = Sim::new(Opcoll::<8, 256, 7>::new(g).unwrap()).unwrap();
        let st = random_run(&mut sim, &g, 3000, 2).unwrap();
        // 1R1W banks (fermi's `reg_bank_ports = 2`): no read ever gives
        // way to a write.
        assert!(g.dual_port);
        assert!(
            st.dispatched > 1000 && st.cnt[0] > 0 && st.cnt[1] == 0 && st.writes > 1000 && st.errors > 0,
            "{st:?}"
        );
    }

    #[test]
    fn random_matches_reference_fermi_1rw() {
        let mut g = RfGeom::from_config(&SmConfig::preset("fermi").unwrap()).unwrap();
        g.dual_port = false;
        let mut sim = Sim::new(Opcoll::<8, 256, 7>::new(g).unwrap()).unwrap();
        let st = random_run(&mut sim, &g, 3000, 2).unwrap();
        assert!(
            st.dispatched > 1000 && st.cnt[0] > 0 && st.cnt[1] > 0 && st.errors > 0,
            "{st:?}"
        );
    }

    #[test]
    fn random_matches_reference_24_banks() {
        let g = RfGeom::from_config(&gt200_24()).unwrap();
        assert_eq!((g.groups, g.rows), (6, 85));
        let mut sim = Sim::new(Opcoll::<6, 192, 7>::new(g).unwrap()).unwrap();
        let st = random_run(&mut sim, &g, 3000, 3).unwrap();
        assert!(st.dispatched > 1000 && st.cnt[0] > 0, "{st:?}");
    }

    fn sims() -> Vec<(&'static str, RfGeom)> {
        vec![
            (
                "gt200",
                RfGeom::from_config(&SmConfig::preset("gt200").unwrap()).unwrap(),
            ),
            (
                "fermi",
                RfGeom::from_config(&SmConfig::preset("fermi").unwrap()).unwrap(),
            ),
            ("gt200_24banks", RfGeom::from_config(&gt200_24()).unwrap()),
        ]
    }

    macro_rules! with_sim {
        ($g:expr, |$sim:ident| $body:expr) => {{
            let g: RfGeom = $g;
            match g.groups {
                4 => {
                    let mut $sim = Sim::new(Opcoll::<4, 128, 7>::new(g).unwrap()).unwrap();
                    $body
                }
                6 => {
                    let mut $sim = Sim::new(Opcoll::<6, 192, 7>::new(g).unwrap()).unwrap();
                    $body
                }
                _ => {
                    let mut $sim = Sim::new(Opcoll::<8, 256, 7>::new(g).unwrap()).unwrap();
                    $body
                }
            }
        }};
    }

    /// Dual issue with no bank conflicts: every issue accepted, every
    /// instruction dispatched 2 cycles after issue, no conflict or stall
    /// counted; GT200: SP + SFU every 2 cycles; Fermi: 2 issues per cycle.
    #[test]
    fn conflict_free_stream_sustains_dual_issue() {
        for (name, g) in sims() {
            let cycles = 400;
            let st =
                with_sim!(g, |sim| dual_issue_stream(&mut sim, &g, cycles)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let per_cycle = g.scheds as u64;
            assert_eq!(st.issued, cycles * per_cycle, "{name}: {st:?}");
            assert_eq!(st.issue_stalls, 0, "{name}");
            assert_eq!(st.dispatched, cycles * per_cycle, "{name}");
            assert!(st.latencies.iter().all(|&l| l == 2), "{name}: {:?}", &st.latencies[..8]);
            assert_eq!(st.cnt, [0, 0, 0], "{name}");
        }
    }

    /// All three operands in one group: the group serves them in 3 cycles,
    /// dispatch at e0+4 (2 extra cycles), 3 read-read losses counted.
    #[test]
    fn three_operands_in_one_group_cost_two_cycles() {
        for (name, g) in sims() {
            let (lat, cnt) = with_sim!(g, |sim| same_group(&mut sim, &g)).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!((lat, cnt), (4, [3, 0, 0]), "{name}");
        }
    }

    /// A write to a group a read wants wins; the read retries and the loss
    /// is counted once.
    #[test]
    fn write_wins_over_read() {
        let g = sims()[0].1;
        with_sim!(g, |sim| {
            let mut rf = OpcollRef::new(g);
            let mut seq = vec![];
            let mut i = idle();
            i.al_valid_i = Bits::new(1);
            i.al_nregs_i = Bits::new(16);
            seq.push(i);
            let mut i = idle();
            set_issue(&mut i, 0, 0, 0, 1, [0, 255, 255], 0);
            seq.push(i);
            let mut i = idle();
            set_write(&mut i, 0, 0, reg_in_group(&g, 0, 0, 1), |l| l as u32);
            seq.push(i);
            let mut at = None;
            let st = lockstep(&mut sim, &mut rf, 8, |t, o| {
                if o.sp[0].valid.to_u64() == 1 {
                    at = Some(t - 1);
                }
                seq.get(t as usize).copied().unwrap_or_else(idle)
            })
            .unwrap();
            assert_eq!(at, Some(1 + 3));
            assert_eq!(st.cnt, [0, 1, 0]);
        });
    }

    /// Bad registers: beyond the allocation (3), odd FP64 pair (4), write
    /// on the wrong channel (12): reported with warp and register, never
    /// reaching another warp's registers.
    #[test]
    fn bad_registers_raise_errors_and_never_wrap() {
        for (name, g) in sims() {
            with_sim!(g, |sim| {
                let mut rf = OpcollRef::new(g);
                let s = g.scheds as u64;
                // Warp 0: 8 registers at row 0; warp s (same half): 8 at the next rows.
                let rows = 8u64.div_ceil(g.half as u64);
                let mut seq = vec![];
                for (w, base) in [(0, 0), (s, rows)] {
                    let mut i = idle();
                    i.al_valid_i = Bits::new(1);
                    i.al_warp_i = Bits::new(w);
                    i.al_base_i = Bits::new(base);
                    i.al_nregs_i = Bits::new(8);
                    seq.push(i);
                }
                for r in 0..8 {
                    let mut i = idle();
                    set_write(&mut i, 0, s, r, |l| pattern(s, r, l));
                    seq.push(i);
                }
                // Writes beyond warp 0's allocation: R8..R15 (would be warp s's rows).
                for r in 8..16 {
                    let mut i = idle();
                    set_write(&mut i, 0, 0, r, |_| 0xdead);
                    seq.push(i);
                }
                if s == 2 {
                    // Warp 0 on channel 1 (warp 0 belongs to scheduler 0).
                    let mut i = idle();
                    set_write(&mut i, 1, 0, 1, |_| 0xdead);
                    seq.push(i);
                }
                let mut i = idle();
                set_issue(&mut i, 0, 0, 0, 1, [9, 255, 255], 0);
                seq.push(i);
                let mut i = idle();
                set_issue(&mut i, 0, 2, 0, 2, [3, 255, 255], 1);
                seq.push(i);
                // Read warp s's registers back.
                for r in 0..8 {
                    let mut i = idle();
                    set_issue(&mut i, 0, 0, s, 10 + r, [r, 255, 255], 0);
                    seq.push(i);
                    seq.push(idle());
                }
                let mut errs = vec![];
                let mut seen = vec![];
                lockstep(&mut sim, &mut rf, seq.len() as u64 + 6, |t, o| {
                    if o.err_o.to_u64() == 1 {
                        errs.push((o.err_code_o.to_u64(), o.err_warp_o.to_u64(), o.err_reg_o.to_u64()));
                    }
                    if o.sp[0].valid.to_u64() == 1 && o.sp[0].tag.to_u64() >> 16 >= 10 {
                        let r = (o.sp[0].tag.to_u64() >> 16) - 10;
                        seen.push(r);
                        for l in 0..32 {
                            assert_eq!(o.sp[0].a[l].to_u64() as u32, pattern(s, r, l), "{name} R{r}");
                        }
                    }
                    if o.sp[0].valid.to_u64() == 1 && o.sp[0].tag.to_u64() >> 16 == 1 {
                        assert!(o.sp[0].a.iter().all(|x| x.to_u64() == 0));
                    }
                    seq.get(t as usize).copied().unwrap_or_else(idle)
                })
                .unwrap_or_else(|e| panic!("{name}: {e}"));
                let mut want: Vec<(u64, u64, u64)> = (8..16).map(|r| (3, 0, r)).collect();
                if s == 2 {
                    want.push((12, 0, 1));
                }
                want.push((3, 0, 9));
                want.push((4, 0, 3));
                assert_eq!(errs, want, "{name}");
                assert_eq!(seen, (0..8).collect::<Vec<_>>(), "{name}");
            });
        }
    }
}
