//! The special-function units of one SM: `sfu_units` quadratic
//! interpolators on the hot clock, fed a warp instruction at a time.
//!
//! ```text
//!  core ports (docs/sm.md 5.3)         hot clock
//!  sfu_valid_i op mod mask a b tag -cross-> accept at a core edge (ph_q = 0)
//!                                            | a[32] (b[32]: FMUL) into per-
//!                                            v unit operand buffers (S slots)
//!                                              read at slot cnt (16:1 mux)
//!   (sfu_fmul: + u_mul<u>_<m>, M Tesla FP32 multipliers per unit, fed M
//!    threads per hot cycle, same depth, results into the same buffers)
//!   +-- u_unit0 ------------------------+   ...   +-- u_unit<U-1> --+
//!   | pre: decode, specials, PRESIN,    |         |                 |
//!   |      PREEX2, row, X_lo --> ROM    |         |                 |
//!   | [A regs]  ROM word {C2,C1,C0}     |         |                 |
//!   | interp: squarer, C1*X_lo, C2*SQ,  |         |                 |
//!   |         3-input adder (F = 28)    |         |                 |
//!   | [B regs]  pack: normalise, round, |         |                 |
//!   |           exponent, FTZ/inf       |         |                 |
//!   | [C regs] (+ sfu_latency-4 delays) |         |                 |
//!   +-----------------|-----------------+         +--------|--------+
//!                     v result buffers, S slots per unit,  v
//!                       written at slot rcnt
//!          output registers (written at ph_q = 1 edges) --cross--> core
//!  sfu_res_valid_o tag mask data pred err err_code      sfu_ready_o
//! ```
//!
//! * Ports: docs/sm.md 5.3 (dispatch) and 5.4 (results), all core domain;
//!   the crossings are inside, by the `ph_q` rule of section 2: the
//!   dispatch is sampled at the hot edge that is also a core edge
//!   (`ph_q == 0`), and every register behind a core-visible output
//!   (`sfu_ready_o`, the result registers) changes only at hot edges with
//!   `ph_q == 1`.
//! * Ops (`sfu_op_i`, the ISA opcode): RCP RSQ LG2 EX2 SIN COS PRESIN
//!   PREEX2 (0x30..0x37), bit exact to `golden::arith::sfu`; with
//!   `sfu_fmul` (tesla, gt200) also FMUL (0x21, `a * b`, `sfu_mod_i` the
//!   ISA's FMUL modifier: rounding in bits 1..0, negations in bits 2, 3) on
//!   the SFU's FP32 multipliers ([`fmul::SfuMul`], the SP lane's Tesla FMUL
//!   datapath `units::fp::tesla_fmul`). Any other opcode, and FMUL
//!   without `sfu_fmul`, streams like a transcendental and answers with
//!   `sfu_err_o = 1`, code 1, data 0. The transcendentals do not use
//!   `sfu_mod_i` and `sfu_b_i`.
//! * FMUL co-issue: `M = 32 / (4 U)` multipliers per unit (GT200: 4 per
//!   SFU, 8 in all, the width of the SP array), each a pipeline of the
//!   interpolator's depth. An FMUL warp streams for 4 hot cycles (seed
//!   000: "in the same 4 cycles as in the FMAD unit"): in stream cycle `c`
//!   unit `u` multiplies its threads `order[u][c M .. c M + M]` (GT200:
//!   threads `8c .. 8c + 7`, as the SP array), the result pulse is at core
//!   edge `E + 4 + sfu_latency` (4 core cycles after the accept with
//!   `sfu_latency = 4`), and `sfu_ready_o` is high again 2 core cycles
//!   after the accept (docs/sm.md 5.3: an SFU FMUL every 2 core cycles).
//!   FMUL and transcendentals may follow each other back to back; results
//!   stay in issue order (both pipelines have one depth).
//! * Lanes: thread `t` belongs to unit `((t mod L) / (L / U))` where `L`
//!   = `sp_lanes` and `U` = `sfu_units` (GT200: 2 units each serving 4 of
//!   the 8 lanes, 16 threads each; Fermi: 4 units, 8 threads each). Each
//!   unit takes one thread per hot cycle, in increasing thread order: a
//!   warp instruction streams for `S = 32 / U` hot cycles (16 on GT200, 8
//!   on Fermi, seeds 000 and 004).
//! * Timing: accepted at core edge `E` (hot cycle `E`, `sfu_valid_i &&
//!   sfu_ready_o`), thread `k` of every unit enters in hot cycle `E+1+k`;
//!   the unit pipeline is `sfu_latency - 1` hot cycles deep (3 stages plus
//!   `sfu_latency - 4` delay stages) and the edge after the last result
//!   writes the output registers, so the result pulse is seen at core edge
//!   `E + S + sfu_latency` (hot cycles): 10 core cycles after the accept on
//!   GT200, 6 on Fermi, with `sfu_latency = 4`. `sfu_ready_o` is low from
//!   the core cycle after an accept until the core edge `E + S`, so a new
//!   warp instruction is accepted every `S / 2` core cycles (8 on GT200, 4
//!   on Fermi) and the pipeline streams back to back.
//! * Buffers, not shift registers: at the accept every operand slot `j`
//!   of unit `u` loads thread `order[u][j]` (`opnd<u>_<j>`, `opndb..`);
//!   the unit reads slot `cnt` (FMUL: multiplier `k` slot `cnt M + k`),
//!   and result `r` of a stream lands in slot `r` (`rsh<u>_<j>`; FMUL:
//!   slots `r M ..`). Every register loads only under its enable (accept,
//!   stream end, result slot, output write; the unit and multiplier
//!   stages under their valid), so an idle SFU holds its state; the
//!   simulator skips the logic of an enable it knows is low and reads a
//!   slot by its known index (docs/substrate.md, shortcuts). With shift
//!   registers, every slot moving every hot cycle, the Rust block ran at
//!   under half Verilator's speed (docs/sfu.md, benchmark).
//! * Inactive lanes (`sfu_mask_i` low) are computed but their result data
//!   is 0; `sfu_res_mask_o` is the dispatch mask; `sfu_res_pred_o` is 0.
//! * Sizes from `SmConfig`: `sfu_units` (U), `sp_lanes` (L; 32 mod L = 0,
//!   L mod U = 0), `sfu_latency` (even, >= 4, at most S: the tag is held
//!   in one copy behind the stream; with `sfu_fmul` at most 4, the FMUL
//!   stream, and 32 mod 4U = 0), `sfu_fmul` (the multipliers and
//!   the second operand's buffers exist only then). The ROM (`rom`, 1024 x 59 bits,
//!   5 x 128 rows used) holds the golden model's tables; its widths are
//!   the tables' format, checked at construction.

pub mod datapath;
pub mod fmul;
pub mod waves;

use crate::config::SmConfig;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Mem, Reg, Sig, S};
use datapath::{ROM_A, ROM_W};
use fmul::{SfuMul, SfuMulIn};

/// The FMUL opcode (co-issued to the SFU on `sfu_fmul` presets).
pub const OP_FMUL: u64 = crate::golden::isa::Op::Fmul as u64;
/// Hot cycles an FMUL warp instruction streams (seed 000: "multiply
/// instructions issued to the SFU execute in the same 4 cycles as in the
/// FMAD unit").
pub const FMUL_STREAM: usize = 4;

/// Threads per warp.
pub const LANES: usize = 32;

crate::ports! {
    /// One thread into a unit.
    pub struct SfuUnitIn {
        valid_i: 1 @ Hot,
        op_i: 3 @ Hot,
        x_i: 32 @ Hot,
    }
}
crate::ports! {
    /// One result out of a unit, `sfu_latency - 1` hot cycles later.
    pub struct SfuUnitOut {
        valid_o: 1 @ Hot,
        res_o: 32 @ Hot,
    }
}

/// `n` delay stages (valid, result) of a unit pipeline.
pub(crate) fn delay_regs(d: &mut Decl, n: usize) -> Vec<(Reg<1>, Reg<32>)> {
    (0..n)
        .map(|k| {
            (
                d.reg(&format!("vd{k}"), Domain::Hot, 0),
                d.reg_noreset(&format!("res_d{k}"), Domain::Hot),
            )
        })
        .collect()
}

/// `(v, r)` through the delay stages `delay`.
pub(crate) fn delay_chain<C: Ctx>(
    cx: &mut C,
    delay: &[(Reg<1>, Reg<32>)],
    mut v: S<C, 1>,
    mut r: S<C, 32>,
) -> (S<C, 1>, S<C, 32>) {
    // The result register of a stage loads only with its valid.
    for &(vd, rd) in delay {
        cx.d(vd, v);
        if !cx.known_low(v) {
            let q = cx.q(rd);
            cx.d(rd, v.mux(r, q));
        }
        v = cx.q(vd);
        r = cx.q(rd);
    }
    (v, r)
}

/// `regs[idx]` (0 beyond `regs`): a mux tree on the index bits; the
/// simulator reads the one register when it knows the index.
fn read_at<C: Ctx, const K: usize>(cx: &mut C, regs: &[Reg<32>], idx: S<C, K>) -> S<C, 32> {
    if let Some(k) = cx.known(idx) {
        return match regs.get(k as usize) {
            Some(&r) => cx.q(r),
            None => cx.lit(0),
        };
    }
    let v: Vec<S<C, 32>> = regs.iter().map(|&r| cx.q(r)).collect();
    crate::hdl::logic::index(cx, &v, idx)
}

/// One SFU: the pipelined interpolator, one thread per hot cycle.
#[derive(Debug, Clone)]
pub struct SfuUnit {
    decl: Decl,
    extra: usize,
    rom: Mem<ROM_W, ROM_A>,
    va: Reg<1>,
    byp_a: Reg<1>,
    val_a: Reg<32>,
    xlo_a: Reg<17>,
    tsel_a: Reg<3>,
    neg_a: Reg<1>,
    off_a: Reg<10>,
    lg2e_a: Reg<8>,
    vb: Reg<1>,
    acc_b: Reg<40>,
    neg_b: Reg<1>,
    off_b: Reg<10>,
    byp_b: Reg<1>,
    val_b: Reg<32>,
    vc: Reg<1>,
    res_c: Reg<32>,
    delay: Vec<(Reg<1>, Reg<32>)>,
}

/// Why an SFU cannot be built for a configuration.
#[derive(Debug, Clone, thiserror::Error)]
#[error("SFU: {0}")]
pub struct SfuError(pub String);

impl SfuUnit {
    /// A unit whose input-to-result depth is `latency - 1` hot cycles.
    pub fn new(latency: usize) -> Result<Self, SfuError> {
        datapath::check_tables().map_err(SfuError)?;
        if latency < 4 || !latency.is_multiple_of(2) {
            return Err(SfuError(format!(
                "sfu_latency = {latency}: must be even and at least 4 (3 pipeline stages and the output edge)"
            )));
        }
        let mut d = Decl::new();
        let hot = Domain::Hot;
        let rom = d.rom::<ROM_W, ROM_A>("rom", hot, 1, &datapath::rom_words());
        let delay = delay_regs(&mut d, latency - 4);
        Ok(SfuUnit {
            extra: latency - 4,
            rom,
            va: d.reg("va", hot, 0),
            byp_a: d.reg_noreset("byp_a", hot),
            val_a: d.reg_noreset("val_a", hot),
            xlo_a: d.reg_noreset("xlo_a", hot),
            tsel_a: d.reg_noreset("tsel_a", hot),
            neg_a: d.reg_noreset("neg_a", hot),
            off_a: d.reg_noreset("off_a", hot),
            lg2e_a: d.reg_noreset("lg2e_a", hot),
            vb: d.reg("vb", hot, 0),
            acc_b: d.reg_noreset("acc_b", hot),
            neg_b: d.reg_noreset("neg_b", hot),
            off_b: d.reg_noreset("off_b", hot),
            byp_b: d.reg_noreset("byp_b", hot),
            val_b: d.reg_noreset("val_b", hot),
            vc: d.reg("vc", hot, 0),
            res_c: d.reg_noreset("res_c", hot),
            delay,
            decl: d,
        })
    }
}

impl Block for SfuUnit {
    type In<B: Backend> = SfuUnitIn<B>;
    type Out<B: Backend> = SfuUnitOut<B>;

    fn module_name(&self) -> String {
        format!("sfu_unit_x{}", self.extra)
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SfuUnitIn<C::B>) -> SfuUnitOut<C::B> {
        // Every data register loads only with its stage's valid (a clock
        // enable): an idle stage holds, and the simulator skips the logic
        // of a stage it knows is empty (docs/substrate.md).
        // Stage A: decode; the ROM read is this stage's register.
        let valid = i.valid_i;
        cx.d(self.va, valid);
        let word = if cx.known_low(valid) {
            // The read port does not load: its address does not matter.
            let a0 = cx.lit(0);
            cx.mem_read(self.rom, 0, valid, a0)
        } else {
            let p = datapath::pre::<C::B>(i.op_i, i.x_i);
            let word = cx.mem_read(self.rom, 0, valid, p.addr);
            macro_rules! load {
                ($($r:ident = $v:expr),*) => {$({
                    let q = cx.q(self.$r);
                    cx.d(self.$r, valid.mux($v, q));
                })*};
            }
            load!(
                byp_a = p.byp,
                val_a = p.val,
                xlo_a = p.xlo,
                tsel_a = p.tsel,
                neg_a = p.neg,
                off_a = p.off,
                lg2e_a = p.lg2e
            );
            word
        };
        // Stage B: the interpolator.
        let va = cx.q(self.va);
        cx.d(self.vb, va);
        if !cx.known_low(va) {
            let (xlo, tsel, lg2e) = (cx.q(self.xlo_a), cx.q(self.tsel_a), cx.q(self.lg2e_a));
            let acc = datapath::interp::<C::B>(word, xlo, tsel, lg2e);
            let acc = cx.name("acc", acc);
            macro_rules! pass {
                ($($b:ident = $v:expr),*) => {$({
                    let v = $v;
                    let q = cx.q(self.$b);
                    cx.d(self.$b, va.mux(v, q));
                })*};
            }
            pass!(
                acc_b = acc,
                neg_b = cx.q(self.neg_a),
                off_b = cx.q(self.off_a),
                byp_b = cx.q(self.byp_a),
                val_b = cx.q(self.val_a)
            );
        }
        // Stage C: normalise, round, pack.
        let vb = cx.q(self.vb);
        cx.d(self.vc, vb);
        if !cx.known_low(vb) {
            let (acc, neg, off, byp, val) = (
                cx.q(self.acc_b),
                cx.q(self.neg_b),
                cx.q(self.off_b),
                cx.q(self.byp_b),
                cx.q(self.val_b),
            );
            let res = datapath::pack::<C::B>(acc, neg, off, byp, val);
            let rc = cx.q(self.res_c);
            cx.d(self.res_c, vb.mux(res, rc));
        }
        let (v, r) = (cx.q(self.vc), cx.q(self.res_c));
        let (v, r) = delay_chain(cx, &self.delay, v, r);
        SfuUnitOut { valid_o: v, res_o: r }
    }
}

crate::ports! {
    /// Dispatch (docs/sm.md 5.3).
    pub struct SfuIn {
        sfu_valid_i: 1 @ Core,
        sfu_op_i: 7 @ Core,
        sfu_mod_i: 4 @ Core,
        sfu_mask_i: [1; 32] @ Core,
        sfu_a_i: [32; 32] @ Core,
        sfu_b_i: [32; 32] @ Core,
        sfu_tag_i: 32 @ Core,
    }
}
crate::ports! {
    /// Ready and results (docs/sm.md 5.3, 5.4).
    pub struct SfuOut {
        sfu_ready_o: 1 @ Core,
        sfu_res_valid_o: 1 @ Core,
        sfu_res_tag_o: 32 @ Core,
        sfu_res_mask_o: [1; 32] @ Core,
        sfu_res_data_o: [32; 32] @ Core,
        sfu_res_pred_o: [1; 32] @ Core,
        sfu_err_o: 1 @ Core,
        sfu_err_code_o: 8 @ Core,
    }
}

/// The SFUs of one SM.
#[derive(Debug, Clone)]
pub struct Sfu {
    decl: Decl,
    unit: SfuUnit,
    /// The FP32 multipliers (FMUL co-issue), `None` without `sfu_fmul`.
    mul: Option<SfuMul>,
    /// Multipliers per unit: `32 / (FMUL_STREAM * units)`.
    mpu: usize,
    units: usize,
    lanes: usize,
    /// Instance names `u_unit<u>` and `u_mul<u>_<k>`, made once (`eval`
    /// runs every hot cycle).
    unit_names: Vec<String>,
    mul_names: Vec<Vec<String>>,
    latency: usize,
    /// `order[u][j]`: the thread unit `u` serves in its `j`-th stream cycle.
    order: Vec<Vec<usize>>,
    ph: Reg<1>,
    ready: Reg<1>,
    busy: Reg<1>,
    cnt: Reg<5>,
    rcnt: Reg<5>,
    func: Reg<3>,
    bad: Reg<1>,
    /// `is_mul` (the stream is an FMUL) and the FMUL modifier, with
    /// `sfu_fmul` only.
    mulst: Option<(Reg<1>, Reg<4>)>,
    tag: Reg<32>,
    mask: Vec<Reg<1>>,
    bad2: Reg<1>,
    tag2: Reg<32>,
    mask2: Vec<Reg<1>>,
    opnd: Vec<Vec<Reg<32>>>,
    /// Second FMUL operand (empty without `sfu_fmul`).
    opnd_b: Vec<Vec<Reg<32>>>,
    rsh: Vec<Vec<Reg<32>>>,
    out_valid: Reg<1>,
    out_err: Reg<1>,
    out_tag: Reg<32>,
    out_mask: Vec<Reg<1>>,
    out_data: Vec<Reg<32>>,
}

impl Sfu {
    /// The SFUs of an SM of configuration `c` (`sfu_units`, `sp_lanes`,
    /// `sfu_latency`, `sfu_fmul`).
    pub fn from_config(c: &SmConfig) -> Result<Self, SfuError> {
        Sfu::new(
            c.sfu_units as usize,
            c.sp_lanes as usize,
            c.sfu_latency as usize,
            c.sfu_fmul,
        )
    }

    /// `units` SFUs for an SM of `lanes` SP lanes, datapath depth
    /// `latency` hot cycles, with the FMUL co-issue multipliers when
    /// `fmul`.
    pub fn new(units: usize, lanes: usize, latency: usize, fmul: bool) -> Result<Self, SfuError> {
        if units == 0 || lanes == 0 || !LANES.is_multiple_of(lanes) || !lanes.is_multiple_of(units) || units > 16 {
            return Err(SfuError(format!(
                "{units} SFUs for {lanes} SP lanes: need 32 mod lanes = 0, lanes mod SFUs = 0, at most 16 SFUs"
            )));
        }
        let s = LANES / units;
        if latency > s {
            return Err(SfuError(format!(
                "sfu_latency = {latency} is more than the stream ({s} hot cycles): the tag copy would be overwritten"
            )));
        }
        let mpu = LANES / (FMUL_STREAM * units).max(1);
        if fmul && (!LANES.is_multiple_of(FMUL_STREAM * units) || latency > FMUL_STREAM) {
            return Err(SfuError(format!(
                "sfu_fmul with {units} SFUs and sfu_latency = {latency}: FMUL streams a warp in {FMUL_STREAM} hot \
                 cycles, so 32 mod (4 * sfu_units) must be 0 and sfu_latency at most {FMUL_STREAM}"
            )));
        }
        let unit = SfuUnit::new(latency)?;
        let mul = fmul.then(|| SfuMul::new(latency));
        let per = lanes / units;
        let order: Vec<Vec<usize>> = (0..units)
            .map(|u| (0..LANES).filter(|t| (t % lanes) / per == u).collect())
            .collect();
        let mut d = Decl::new();
        let hot = Domain::Hot;
        let lanes_regs = |d: &mut Decl, n: &str| {
            (0..LANES)
                .map(|k| d.reg::<1>(&format!("{n}{k}"), hot, 0))
                .collect::<Vec<_>>()
        };
        let ph = d.reg("ph", hot, 0);
        let ready = d.reg("ready", hot, 1);
        let busy = d.reg("busy", hot, 0);
        let cnt = d.reg("cnt", hot, 0);
        let rcnt = d.reg("rcnt", hot, 0);
        let func = d.reg("func", hot, 0);
        let bad = d.reg("bad", hot, 0);
        let mulst = fmul.then(|| (d.reg("is_mul", hot, 0), d.reg("fmod", hot, 0)));
        let tag = d.reg("tag", hot, 0);
        let mask = lanes_regs(&mut d, "mask");
        let bad2 = d.reg("bad2", hot, 0);
        let tag2 = d.reg("tag2", hot, 0);
        let mask2 = lanes_regs(&mut d, "mask2_");
        let opnd = (0..units)
            .map(|u| (0..s).map(|j| d.reg_noreset(&format!("opnd{u}_{j}"), hot)).collect())
            .collect();
        let opnd_b = if fmul {
            (0..units)
                .map(|u| (0..s).map(|j| d.reg_noreset(&format!("opndb{u}_{j}"), hot)).collect())
                .collect()
        } else {
            Vec::new()
        };
        let rsh = (0..units)
            .map(|u| (0..s).map(|j| d.reg_noreset(&format!("rsh{u}_{j}"), hot)).collect())
            .collect();
        let out_valid = d.reg("out_valid", hot, 0);
        let out_err = d.reg("out_err", hot, 0);
        let out_tag = d.reg("out_tag", hot, 0);
        let out_mask = lanes_regs(&mut d, "out_mask");
        let out_data = (0..LANES).map(|k| d.reg(&format!("out_data{k}"), hot, 0)).collect();
        Ok(Sfu {
            decl: d,
            unit,
            mul,
            mpu,
            units,
            lanes,
            unit_names: (0..units).map(|u| format!("u_unit{u}")).collect(),
            mul_names: (0..units)
                .map(|u| (0..mpu).map(|k| format!("u_mul{u}_{k}")).collect())
                .collect(),
            latency,
            order,
            ph,
            ready,
            busy,
            cnt,
            rcnt,
            func,
            bad,
            mulst,
            tag,
            mask,
            bad2,
            tag2,
            mask2,
            opnd,
            opnd_b,
            rsh,
            out_valid,
            out_err,
            out_tag,
            out_mask,
            out_data,
        })
    }

    /// Datapath depth (`sfu_latency`).
    pub fn latency(&self) -> usize {
        self.latency
    }

    /// Hot cycles a transcendental warp instruction streams.
    pub fn stream(&self) -> usize {
        LANES / self.units
    }

    /// Whether the block executes FMUL (`sfu_fmul`).
    pub fn fmul(&self) -> bool {
        self.mul.is_some()
    }

    /// Hot cycles a warp instruction of opcode `op` streams: 4 for FMUL
    /// when the block has the multipliers, [`Sfu::stream`] otherwise.
    pub fn stream_of(&self, op: u8) -> usize {
        if self.fmul() && op as u64 == OP_FMUL {
            FMUL_STREAM
        } else {
            self.stream()
        }
    }
}

impl Block for Sfu {
    type In<B: Backend> = SfuIn<B>;
    type Out<B: Backend> = SfuOut<B>;

    fn module_name(&self) -> String {
        format!("sfu_u{}_l{}_d{}", self.units, self.lanes, self.latency)
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &SfuIn<C::B>) -> SfuOut<C::B> {
        let hot = Domain::Hot;
        let s = self.stream();
        let ph = cx.q(self.ph);
        cx.d(self.ph, !ph);
        let ready = cx.q(self.ready);
        let busy = cx.q(self.busy);
        let cnt = cx.q(self.cnt);

        // Accept at the hot edge that is a core edge.
        let valid = cx.cross(i.sfu_valid_i, hot);
        let acc = !ph & valid & ready;
        let acc = cx.name("accept", acc);
        let op = cx.cross(i.sfu_op_i, hot);
        let trans = op.slice::<3, 4>().eq(cx.lit(0x30 >> 3));
        let func_i = op.slice::<0, 3>();
        // FMUL co-issue: the stream is 4 hot cycles, `mpu` threads per unit
        // and hot cycle on the multipliers.
        let (known, is_mul, fmod) = match self.mulst {
            Some((rm, rf)) => {
                let fm_op = op.eq(cx.lit(OP_FMUL));
                let md_i = cx.cross(i.sfu_mod_i, hot);
                let (is_mul, fmod) = (cx.q(rm), cx.q(rf));
                cx.d(rm, acc.mux(fm_op, is_mul));
                cx.d(rf, acc.mux(md_i, fmod));
                (trans | fm_op, is_mul, fmod)
            }
            None => (trans, cx.lit(0), cx.lit(0)),
        };
        let fmul = self.mul.is_some();
        let m = self.mpu;
        // Stream length - 1 and - 2 of the current stream.
        let len1 = is_mul.mux(cx.lit::<5>((FMUL_STREAM - 1) as u64), cx.lit((s - 1) as u64));
        let len2 = is_mul.mux(cx.lit::<5>((FMUL_STREAM - 2) as u64), cx.lit((s - 2) as u64));
        let tag_i = cx.cross(i.sfu_tag_i, hot);
        let (tag, bad, func) = (cx.q(self.tag), cx.q(self.bad), cx.q(self.func));
        cx.d(self.tag, acc.mux(tag_i, tag));
        cx.d(self.bad, acc.mux(!known, bad));
        cx.d(self.func, acc.mux(func_i, func));
        // Registers loaded only at an accept (or a stream's end, or an
        // output write) are skipped by the simulator when it knows that
        // enable is low: the register then holds, as the full logic does.
        let load = !cx.known_low(acc);
        if load {
            for k in 0..LANES {
                let m = cx.cross(i.sfu_mask_i[k], hot);
                let q = cx.q(self.mask[k]);
                cx.d(self.mask[k], acc.mux(m, q));
            }
        }

        // Stream: thread `cnt` of every unit this cycle.
        let last_in = busy & cnt.eq(len1);
        cx.d(self.busy, acc | (busy & !last_in));
        let cnt1 = cnt + cx.lit(1);
        let z5 = cx.lit(0);
        cx.d(self.cnt, acc.mux(z5, busy.mux(cnt1, cnt)));
        // Ready changes at ph_q = 1 edges only: low while streaming, high
        // again for the core edge that ends the stream.
        let free = !busy | cnt.eq(len2);
        cx.d(self.ready, ph.mux(free, ready));
        // Tag, mask and error follow the stream's end into one copy.
        let (tag2, bad2) = (cx.q(self.tag2), cx.q(self.bad2));
        if !cx.known_low(last_in) {
            cx.d(self.tag2, last_in.mux(tag, tag2));
            cx.d(self.bad2, last_in.mux(bad, bad2));
            for k in 0..LANES {
                let (m, m2) = (cx.q(self.mask[k]), cx.q(self.mask2[k]));
                cx.d(self.mask2[k], last_in.mux(m, m2));
            }
        }

        // Operand buffers: loaded at the accept, read by stream position.
        // Transcendental: unit `u` takes slot `cnt` (its thread
        // `order[u][cnt]`); FMUL stream cycle `c`: multiplier `k` takes
        // slot `c m + k` (m a power of two, `c` = cnt[1:0]).
        let mshift = m.trailing_zeros() as u64;
        let cnt2: S<C, 5> = cnt.slice::<0, 2>().zext();
        let mbase = cnt2.shl(cx.lit::<3>(mshift));
        let mut outs = Vec::with_capacity(self.units);
        let mut mouts = Vec::with_capacity(self.units);
        for u in 0..self.units {
            if load {
                for j in 0..s {
                    let a = cx.cross(i.sfu_a_i[self.order[u][j]], hot);
                    let q = cx.q(self.opnd[u][j]);
                    cx.d(self.opnd[u][j], acc.mux(a, q));
                }
            }
            let x = read_at(cx, &self.opnd[u], cnt);
            let o = cx.instance(
                &self.unit_names[u],
                &self.unit,
                &SfuUnitIn {
                    valid_i: busy & !is_mul,
                    op_i: func,
                    x_i: x,
                },
            );
            outs.push(o);
            let Some(mul) = &self.mul else { continue };
            if load {
                for j in 0..s {
                    let b = cx.cross(i.sfu_b_i[self.order[u][j]], hot);
                    let q = cx.q(self.opnd_b[u][j]);
                    cx.d(self.opnd_b[u][j], acc.mux(b, q));
                }
            }
            let mo: Vec<_> = (0..m)
                .map(|k| {
                    let idx = mbase | cx.lit::<5>(k as u64);
                    let a = read_at(cx, &self.opnd[u], idx);
                    let b = read_at(cx, &self.opnd_b[u], idx);
                    cx.instance(
                        &self.mul_names[u][k],
                        mul,
                        &SfuMulIn {
                            valid_i: busy & is_mul,
                            mod_i: fmod,
                            a_i: a,
                            b_i: b,
                        },
                    )
                })
                .collect();
            mouts.push(mo);
        }

        // Result buffers: a transcendental's result `r` goes to slot `r`
        // (`rcnt`), an FMUL cycle's `m` products to slots `rcnt m ..`; the
        // edge of the last one writes the output registers, the last
        // slot(s) straight from the pipeline.
        let rv_m = if fmul { mouts[0][0].valid_o } else { cx.lit(0) };
        let rv = outs[0].valid_o | rv_m;
        let rcnt = cx.q(self.rcnt);
        let out_len1 = rv_m.mux(cx.lit::<5>((FMUL_STREAM - 1) as u64), cx.lit((s - 1) as u64));
        let last_out = rv & rcnt.eq(out_len1);
        let (z5, o5) = (cx.lit(0), cx.lit(1));
        let rcnt_n = last_out.mux(z5, rv.mux(rcnt + o5, rcnt));
        cx.d(self.rcnt, rcnt_n);
        let zero = cx.lit::<32>(0);
        let write = last_out & ph;
        let (rv_low, write_low) = (cx.known_low(rv), cx.known_low(write));
        for u in 0..self.units {
            let res = outs[u].res_o;
            if !rv_low {
                for j in 0..s {
                    let (hit, val) = if fmul {
                        let (hm, ht) = (rcnt.eq(cx.lit((j / m) as u64)), rcnt.eq(cx.lit(j as u64)));
                        (rv & rv_m.mux(hm, ht), rv_m.mux(mouts[u][j % m].res_o, res))
                    } else {
                        (rv & rcnt.eq(cx.lit(j as u64)), res)
                    };
                    if cx.known_low(hit) {
                        continue;
                    }
                    let q = cx.q(self.rsh[u][j]);
                    cx.d(self.rsh[u][j], hit.mux(val, q));
                }
            }
            if write_low {
                continue;
            }
            for j in 0..s {
                let q = cx.q(self.rsh[u][j]);
                let v_t = if j == s - 1 { res } else { q };
                let v = if fmul && j >= s - m {
                    rv_m.mux(mouts[u][j + m - s].res_o, v_t)
                } else if fmul {
                    rv_m.mux(q, v_t)
                } else {
                    v_t
                };
                let t = self.order[u][j];
                let m2 = cx.q(self.mask2[t]);
                let data = (m2 & !bad2).mux(v, zero);
                let od = cx.q(self.out_data[t]);
                cx.d(self.out_data[t], write.mux(data, od));
            }
        }
        let (ov, oe, ot) = (cx.q(self.out_valid), cx.q(self.out_err), cx.q(self.out_tag));
        cx.d(self.out_valid, ph.mux(write, ov));
        if !write_low {
            cx.d(self.out_err, write.mux(bad2, oe));
            cx.d(self.out_tag, write.mux(tag2, ot));
            for k in 0..LANES {
                let (m2, om) = (cx.q(self.mask2[k]), cx.q(self.out_mask[k]));
                cx.d(self.out_mask[k], write.mux(m2, om));
            }
        }
        let res_mask: [S<C, 1>; LANES] = std::array::from_fn(|k| {
            let om = cx.q(self.out_mask[k]);
            cx.cross(om, Domain::Core)
        });
        let core = Domain::Core;
        let err = ov & oe;
        let code = err.mux(cx.lit::<8>(1), cx.lit(0));
        let data: [S<C, 32>; LANES] = std::array::from_fn(|k| {
            let v = cx.q(self.out_data[k]);
            cx.cross(v, core)
        });
        let zero1 = cx.lit::<1>(0);
        SfuOut {
            sfu_ready_o: cx.cross(ready, core),
            sfu_res_valid_o: cx.cross(ov, core),
            sfu_res_tag_o: cx.cross(ot, core),
            sfu_res_mask_o: res_mask,
            sfu_res_data_o: data,
            sfu_res_pred_o: [zero1; 32],
            sfu_err_o: cx.cross(err, core),
            sfu_err_code_o: cx.cross(code, core),
        }
    }

    fn constrain(&self, r: u64, i: &mut SfuIn<crate::hdl::Concrete>) {
        // Mostly SFU opcodes (0x30..0x37), sometimes FMUL or another one.
        let op = if r & 0xf0 == 0 {
            (r >> 8) & 0x7f
        } else if r & 0xf0 == 0x10 {
            OP_FMUL
        } else {
            0x30 | (r >> 8) & 7
        };
        i.sfu_op_i = crate::hdl::Bits::new(op);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testbenches::sfu_tb::{golden, operand};
    use rand::{rngs::SmallRng, SeedableRng};

    #[test]
    fn datapath_matches_golden_on_random_and_special_inputs() {
        let rom = datapath::rom_words();
        let mut rng = SmallRng::seed_from_u64(10);
        let specials = [
            0u32,
            0x8000_0000,
            1,
            0x8000_0001,
            0x007f_ffff,
            0x0080_0000,
            0x3f80_0000,
            0xbf80_0000,
            0x7f7f_ffff,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0001,
            0x4000_0000,
            0x4080_0000,
            0xc080_0000,
            0x00ff_ffff,
            0x0080_0000,
            0x0100_0000,
            0x0180_0000,
            0x42ff_ffff,
            0x4300_0000,
            0x3fc9_0fdb,
            0x4049_0fdb,
        ];
        for op in 0x30u8..=0x37 {
            let xs = specials.iter().copied().chain((0..12_500).map(|_| operand(&mut rng)));
            for x in xs {
                let r = datapath::eval_comb(&rom, (op & 7) as u32, x);
                assert_eq!(r, golden(op, x).unwrap(), "op {op:#x} x {x:#010x}");
            }
        }
    }

    #[test]
    fn bad_configurations_are_errors() {
        assert!(Sfu::new(3, 8, 4, false).is_err());
        assert!(Sfu::new(2, 8, 5, false).is_err());
        assert!(Sfu::new(2, 8, 2, false).is_err());
        assert!(Sfu::new(4, 32, 12, false).is_err());
        assert!(Sfu::new(2, 8, 6, true).is_err());
        assert!(Sfu::new(4, 32, 10, false).is_err());
        assert!(Sfu::new(4, 32, 8, false).is_ok());
        assert!(Sfu::new(16, 16, 4, true).is_err());
        assert!(Sfu::new(2, 8, 4, false).is_ok());
        assert!(Sfu::new(2, 8, 4, true).is_ok());
    }
}
