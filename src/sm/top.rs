//! The SM top: every block of docs/sm.md instantiated with sizes from one
//! [`SmConfig`], wired core to core, with the host ports (launch,
//! parameters, instruction memory, global memory) and the monitor ports the
//! lock-step checker and the report read.
//!
//! ```text
//!  launch_* param_* ---> u_cta ----- st_* (warp start) ----> u_simt u_bar u_sb u_pf u_ibuf u_ifetch
//!                          |  al_* ----------------------------> u_oc (u_rf inside)
//!  im_* <-------------> u_ifetch --push--> u_ibuf --heads--> u_sched0 [u_sched1]
//!                                                             |  is<s>_*      | ctl (BRA SSY SYNC EXIT
//!                              u_sb (pend) u_pf u_simt(act) --+               |  BAR S2R PSETP NOP)
//!                                                             v               v
//!                        u_oc: collectors --> u_sp0 [u_sp1] u_sfu [u_dpu] u_lsu <--> u_smem
//!                                                 | res pulses                 |  gm_* (host)
//!                                                 v                            v
//!                        u_wb: queues, channels -> rf_wr<w> (u_oc), pr_wr (u_pf), rel (u_sb), ret<w>_*
//!                                                    [u_imd: 32-bit IMUL releases held, GT200/Tesla]
//!                        u_lsu gm_* --> [u_l1: L1 data cache, Fermi] --> gm_* (host)
//! ```
//!
//! * Clock domains: every port and all the glue here are core domain; the
//!   SP groups, SFU and DPU cross to the hot clock inside (docs/sm.md 2).
//! * The ring: the schedulers read Moore outputs of almost every block
//!   (warp valid, heads, pending bits, predicates, active masks, barrier
//!   waits, collector readiness), and those blocks take the schedulers'
//!   issue. The top therefore begins those children first
//!   ([`Ctx::instance_begin`], Moore outputs only), evaluates the
//!   schedulers, the fetch and the glue, then gives every child its inputs
//!   ([`Ctx::instance_end`]); the elaborator checks that no Mealy output
//!   is used before its instance ends.
//! * Glue (documented in docs/sm.md 5.7): a warp may issue when cta's slot
//!   is valid and simt runs it; it is held (`bw_i`) while it waits at a
//!   barrier, simt's pop engine holds it, simt redirects it this cycle (the
//!   head is a stale fall-through), its head is a simt control op (BRA SSY
//!   SYNC EXIT) while simt's `ctl_ready_o` is low, its head is S2R without
//!   write-back credit, after the SM latched an error, and, for scheduler
//!   1, when its head is a control op and scheduler 0 issues one (the simt
//!   control port, the barrier arrival and the S2R port are single).
//! * Errors: the first error of any block is latched (`err_*_o`, sticky);
//!   issue stops. `err_src_o` names the block ([`ERR_SOURCES`]).
//! * Monitors: `iss<s>_*` every issue (tag, lanes: the guard-true active
//!   lanes), `ret<w>_*` every write-back (tag, lanes, values), `st_*` warp
//!   starts, `stall<s>_o` why scheduler s did not issue ([`STALL_NAMES`]),
//!   counters of the blocks.
//! * Latency: see docs/sm.md section 8; a dependent SP instruction on
//!   GT200 issues 11 core cycles after its producer with `sp_latency = 8`,
//!   a dependent 32-bit IMUL 48 (`u_imd`, `imul32_latency = 94`).

use crate::golden::isa::Op;
use crate::hdl::small::SmallBuf;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Pending, Reg, Sig, S};
use crate::sm::SmConfig;
use crate::units::barrier::{BarIn, Barrier};
use crate::units::cta::{Cta, CtaIn};
use crate::units::dpu::{Dpu, DpuIn, DpuOut};
use crate::units::ibuffer::{IbIn, Ibuffer};
use crate::units::ifetch::{IfIn as IfetchIn, Ifetch};
use crate::units::imuldly::{ImdIn, ImdOut, ImulDelay};
use crate::units::l1::{L1In, L1};
use crate::units::lsu::{Lsu, LsuIn};
use crate::units::opcoll::{Opcoll, OpcollIn};
use crate::units::predfile::{PfIn, Predfile};
use crate::units::regfile::{or_all, pick};
use crate::units::sched::{Sched, SchedIn, SchedOut, SchedParams};
use crate::units::scoreboard::{head_ok, Query, SbIn, Scoreboard};
use crate::units::sfu::{Sfu, SfuIn};
use crate::units::simt::{Simt, SimtIn};
use crate::units::smem::{Smem, SmemIn};
use crate::units::sp::{SpGeom, SpGroup, SpGroupIn, SpGroupOut};
use crate::units::wb::{Wb, WbIn, WbParams};

/// `err_src_o` values: which block raised the latched error.
pub const ERR_SOURCES: [&str; 14] = [
    "none", "cta", "ifetch", "sched0", "sched1", "simt", "barrier", "opcoll", "sp0", "sp1", "sfu", "dpu", "lsu", "wb",
];
/// `stall<s>_o` values.
pub const STALL_NAMES: [&str; 8] = [
    "issued",
    "no warp",
    "barrier",
    "instruction fetch",
    "scoreboard",
    "unit busy",
    "memory",
    "control",
];
/// `unit_busy_o` bits, in order.
pub const UNIT_BUSY_NAMES: [&str; 5] = ["sp0", "sp1", "sfu", "dpu", "lsu"];

/// The `unit_busy_o` bits of the units an SM has: one SP group per
/// scheduler (`sp_groups`), the DPU only with FP64 ([`SmConfig::has_dpu`]).
pub fn units_present(sp_groups: u32, has_dpu: bool) -> Vec<usize> {
    (0..UNIT_BUSY_NAMES.len())
        .filter(|&k| match k {
            1 => sp_groups > 1,
            3 => has_dpu,
            _ => true,
        })
        .collect()
}

/// Words of an instruction-memory line response (64-byte lines).
pub const IM_WORDS: usize = 8;

crate::ports! {
    /// Host ports: launch, parameters, memories.
    pub struct SmIn {
        launch_valid_i: 1 @ Core,
        launch_grid_x_i: 16 @ Core,
        launch_grid_y_i: 16 @ Core,
        launch_block_x_i: 11 @ Core,
        launch_block_y_i: 11 @ Core,
        launch_block_z_i: 7 @ Core,
        launch_nregs_i: 8 @ Core,
        launch_smem_i: 17 @ Core,
        plen_i: 16 @ Core,
        param_we_i: 1 @ Core,
        param_addr_i: 8 @ Core,
        param_data_i: 32 @ Core,
        gm_size_i: 32 @ Core,
        im_req_ready_i: 1 @ Core,
        im_resp_valid_i: 1 @ Core,
        im_resp_data_i: [64; 8] @ Core,
        gm_req_ready_i: 1 @ Core,
        gm_resp_valid_i: 1 @ Core,
        gm_resp_id_i: 8 @ Core,
        gm_resp_rdata_i: [32; 32] @ Core,
    }
}

crate::ports! {
    /// Host ports, monitors, errors, counters.
    pub struct SmOut {
        launch_ready_o: 1 @ Core,
        busy_o: 1 @ Core,
        done_o: 1 @ Core,
        im_req_valid_o: 1 @ Core,
        im_req_addr_o: 16 @ Core,
        gm_req_valid_o: 1 @ Core,
        gm_req_id_o: 8 @ Core,
        gm_req_write_o: 1 @ Core,
        gm_req_atom_o: 4 @ Core,
        gm_req_addr_o: 32 @ Core,
        gm_req_size_o: 2 @ Core,
        gm_req_wmask_o: [1; 32] @ Core,
        gm_req_wdata_o: [32; 32] @ Core,
        iss0_valid_o: 1 @ Core,
        iss0_tag_o: 32 @ Core,
        iss0_mask_o: [1; 32] @ Core,
        iss1_valid_o: 1 @ Core,
        iss1_tag_o: 32 @ Core,
        iss1_mask_o: [1; 32] @ Core,
        iss0_psw_o: 32 @ Core,
        iss1_psw_o: 32 @ Core,
        ret0_valid_o: 1 @ Core,
        ret0_tag_o: 32 @ Core,
        ret0_mask_o: [1; 32] @ Core,
        ret0_lo_o: [32; 32] @ Core,
        ret0_hi_o: [32; 32] @ Core,
        ret1_valid_o: 1 @ Core,
        ret1_tag_o: 32 @ Core,
        ret1_mask_o: [1; 32] @ Core,
        ret1_lo_o: [32; 32] @ Core,
        ret1_hi_o: [32; 32] @ Core,
        ret_pred_o: [1; 32] @ Core,
        st_valid_o: 1 @ Core,
        st_warp_o: 6 @ Core,
        st_cta_o: 4 @ Core,
        stall0_o: 3 @ Core,
        stall1_o: 3 @ Core,
        unit_busy_o: 5 @ Core,
        err_o: 1 @ Core,
        err_code_o: 8 @ Core,
        err_src_o: 4 @ Core,
        err_warp_o: 6 @ Core,
        err_pc_o: 16 @ Core,
        err_info_o: 32 @ Core,
        cnt_rr_o: 32 @ Core,
        cnt_wr_o: 32 @ Core,
        cnt_oc_stall_o: 32 @ Core,
        cnt_wb_wait_o: 32 @ Core,
        cnt_ic_hit_o: 32 @ Core,
        cnt_ic_miss_o: 32 @ Core,
        cnt_gm_req_o: 32 @ Core,
        cnt_sm_conf_o: 32 @ Core,
        cnt_l1_hit_o: 32 @ Core,
        cnt_l1_miss_o: 32 @ Core,
        occ_ctas_o: 5 @ Core,
        res_warps_o: 7 @ Core,
    }
}

/// First-error latch registers.
#[derive(Debug, Clone)]
struct ErrRegs {
    v: Reg<1>,
    code: Reg<8>,
    src: Reg<4>,
    warp: Reg<6>,
    pc: Reg<16>,
    info: Reg<32>,
}

/// The SM of one preset: `MW` warps, `NS` schedulers of `LW` warps each,
/// `IE` instruction-buffer entries, `NC` CTA slots, register file of `G`
/// bank groups (`NL = 32 G` lanes, `2^A` rows), shared memory of `2^LB`
/// banks of `2^SA` words, an instruction cache of `2^SB` sets.
#[derive(Debug, Clone)]
pub struct SmTop<
    const MW: usize,
    const NS: usize,
    const LW: usize,
    const IE: usize,
    const NC: usize,
    const G: usize,
    const NL: usize,
    const A: usize,
    const LB: usize,
    const SA: usize,
    const SB: usize,
> {
    decl: Decl,
    name: String,
    cta: Cta<MW, NC, NS>,
    ifetch: Ifetch<MW, IM_WORDS, SB, NS>,
    ibuf: Ibuffer<MW, NS, IE>,
    sb: Scoreboard<MW, NS>,
    pf: Predfile<MW, NS>,
    sched: Vec<Sched<LW>>,
    simt: Simt<MW, NS>,
    bar: Barrier<MW, NC>,
    oc: Opcoll<G, NL, A>,
    sp: Vec<SpGroup>,
    sfu: Sfu,
    dpu: Option<Dpu>,
    lsu: Lsu<MW>,
    smem: Smem<LB, SA>,
    wb: Wb<NS>,
    /// GT200/Tesla (`imul32_latency > 0`): the scoreboard release of 32-bit
    /// IMUL destinations, delayed (`u_imd`, between wb and u_sb).
    imd: Option<ImulDelay<NS>>,
    /// Fermi (`l1_bytes > 0`): the L1 data cache between the LSU's global
    /// port and the SM's `gm_*` port (`u_l1`, 128 lines).
    l1: Option<L1<L1_LINE_BITS>>,
    err: ErrRegs,
    /// LSU instructions issued and not yet answered by the LSU (stores have
    /// no scoreboard entry; the CTA launcher must not release a CTA with
    /// one in flight).
    mem_q: Reg<8>,
    /// GT200 dual issue (`dual_issue`, one scheduler, `sfu_fmul`): SP-class
    /// instructions issued and not yet dispatched to the SP group.
    sp_wait: Option<Reg<2>>,
}

/// log2 of the L1 data cache's lines (128 lines of 128 bytes = 16 KB,
/// Fermi's 48 KB shared / 16 KB L1 split).
pub const L1_LINE_BITS: usize = 7;

/// Name of an error code (docs/sm.md section 7).
pub fn error_name(code: u64) -> &'static str {
    match code {
        1 => "instruction the unit or preset does not implement",
        2 => "rounding mode the op does not have",
        3 => "register beyond the warp's allocation",
        4 => "odd register for an FP64 pair",
        5 => "reconvergence stack overflow or SYNC on an empty stack",
        6 => "barrier deadlock",
        7 => "shared memory out of range",
        8 => "global memory out of range or misaligned",
        9 => "CTA cannot fit even alone",
        10 => "pc outside the program",
        11 => "cycle budget exhausted",
        12 => "register write on the other scheduler's channel",
        13 => "LDC index beyond the parameters",
        14 => "write-back queue overflow",
        _ => "unknown error",
    }
}

/// Why an SM cannot be built for a config.
#[derive(Debug, Clone, thiserror::Error)]
#[error("SM top for config `{cfg}`: {msg}")]
pub struct SmTopError {
    pub cfg: String,
    pub msg: String,
}

impl<
        const MW: usize,
        const NS: usize,
        const LW: usize,
        const IE: usize,
        const NC: usize,
        const G: usize,
        const NL: usize,
        const A: usize,
        const LB: usize,
        const SA: usize,
        const SB: usize,
    > SmTop<MW, NS, LW, IE, NC, G, NL, A, LB, SA, SB>
{
    /// The SM of `cfg` (the caller picked the type parameters from `cfg`,
    /// see [`with_sm`]).
    pub fn new(cfg: &SmConfig) -> Result<Self, SmTopError> {
        let e = |msg: String| SmTopError {
            cfg: cfg.name.clone(),
            msg,
        };
        if cfg.icache_line_bytes as usize != IM_WORDS * 8 {
            return Err(e(format!(
                "icache_line_bytes = {}: the SM top fetches 64-byte lines",
                cfg.icache_line_bytes
            )));
        }
        let geom = crate::units::regfile::RfGeom::from_config(cfg).map_err(|x| e(x.to_string()))?;
        let oc = Opcoll::<G, NL, A>::new(geom).map_err(|x| e(x.to_string()))?;
        let spg = SpGeom::of(cfg);
        let sp = (0..NS).map(|_| SpGroup::new(spg)).collect();
        let sfu = Sfu::from_config(cfg).map_err(|x| e(x.to_string()))?;
        let dpu = if cfg.has_dpu() {
            Some(Dpu::of(cfg).map_err(|x| e(x.to_string()))?)
        } else {
            None
        };
        let group = cfg.smem_request_threads as usize;
        let lsu = Lsu::<MW>::of(cfg).map_err(|x| e(x.to_string()))?;
        let smem = Smem::<LB, SA>::new(cfg.smem_bytes as usize / 4, group, cfg.smem_multicast)
            .map_err(|x| e(x.to_string()))?;
        let wb = Wb::<NS>::new(WbParams::of(cfg, crate::units::lsu::max_out(cfg))).map_err(|x| e(x.to_string()))?;
        let imd = ImulDelay::<NS>::of(cfg).map_err(|x| e(x.to_string()))?;
        let l1 = L1::<L1_LINE_BITS>::of(cfg).map_err(|x| e(x.to_string()))?;
        let cta = Cta::<MW, NC, NS>::new(crate::units::cta::CtaLimits::of(cfg)).map_err(e)?;
        let ifetch = Ifetch::<MW, IM_WORDS, SB, NS>::new(cfg.icache_ways as usize).map_err(e)?;
        let simt = Simt::<MW, NS>::new(cfg.simt_stack_depth).map_err(e)?;
        let mut d = Decl::new();
        let c = Domain::Core;
        let err = ErrRegs {
            v: d.reg("err", c, 0),
            code: d.reg("err_code", c, 0),
            src: d.reg("err_src", c, 0),
            warp: d.reg("err_warp", c, 0),
            pc: d.reg("err_pc", c, 0),
            info: d.reg("err_info", c, 0),
        };
        let mem_q = d.reg("mem_inflight", c, 0);
        let sp_wait = (cfg.dual_issue && cfg.warp_schedulers == 1 && cfg.sfu_fmul).then(|| d.reg("sp_wait", c, 0));
        let name: String = cfg
            .name
            .chars()
            .map(|ch| {
                if ch.is_ascii_alphanumeric() {
                    ch.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        Ok(SmTop {
            decl: d,
            name: format!("sm_{name}"),
            cta,
            ifetch,
            ibuf: Ibuffer::<MW, NS, IE>::new(cfg.fp64_rate_divisor > 0),
            sb: Scoreboard::new(),
            pf: Predfile::new(),
            sched: (0..NS).map(|s| Sched::new(SchedParams::of(cfg, s as u32))).collect(),
            simt,
            bar: Barrier::new(),
            oc,
            sp,
            sfu,
            dpu,
            lsu,
            smem,
            wb,
            imd,
            l1,
            err,
            mem_q,
            sp_wait,
        })
    }
}

/// Something to do with the SM of a config, whatever its type parameters.
pub trait SmFn {
    type Out;
    fn call<K>(&mut self, sm: K) -> anyhow::Result<Self::Out>
    where
        K: Block<
                In<crate::hdl::Concrete> = SmIn<crate::hdl::Concrete>,
                Out<crate::hdl::Concrete> = SmOut<crate::hdl::Concrete>,
            > + Clone
            + 'static;
}

/// Build the SM of `cfg` and hand it to `f`. The shapes of the presets
/// (tesla, gt200, fermi, gpucc) and configs with the same block shapes are
/// supported; others are an error naming the shape.
pub fn with_sm<F: SmFn>(cfg: &SmConfig, f: &mut F) -> anyhow::Result<F::Out> {
    let geom =
        crate::units::regfile::RfGeom::from_config(cfg).map_err(|e| anyhow::anyhow!("config `{}`: {e}", cfg.name))?;
    let smem_words = cfg.smem_bytes as usize / 4;
    let sa = (smem_words / cfg.smem_banks.max(1) as usize)
        .next_power_of_two()
        .trailing_zeros() as usize;
    let lines = cfg.icache_bytes / cfg.icache_line_bytes.max(1);
    let sets = lines / cfg.icache_ways.max(1);
    let sb = sets.max(1).trailing_zeros() as usize;
    let key = (
        cfg.max_warps,
        cfg.warp_schedulers,
        cfg.ibuffer_entries,
        cfg.max_ctas,
        geom.groups,
        geom.addr_bits(),
        cfg.smem_banks,
        sa,
        sb,
    );
    macro_rules! sm {
        ($mw:literal, $ns:literal, $lw:literal, $ie:literal, $nc:literal, $g:literal, $a:literal, $lb:literal, $sa:literal, $sb:literal) => {
            f.call(SmTop::<
                $mw,
                $ns,
                $lw,
                $ie,
                $nc,
                $g,
                { 32 * $g },
                $a,
                $lb,
                $sa,
                $sb,
            >::new(cfg)?)
        };
    }
    match key {
        (16, 1, 2, 8, 4, 6, 16, 8, 5) => sm!(16, 1, 16, 2, 8, 4, 6, 4, 8, 5),
        (32, 1, 2, 8, 4, 7, 16, 8, 5) => sm!(32, 1, 32, 2, 8, 4, 7, 4, 8, 5),
        (32, 1, 2, 8, 6, 7, 16, 8, 5) => sm!(32, 1, 32, 2, 8, 6, 7, 4, 8, 5),
        (48, 2, 2, 8, 8, 7, 32, 9, 5) => sm!(48, 2, 24, 2, 8, 8, 7, 5, 9, 5),
        k => anyhow::bail!(
            "config `{}`: no SM top for this shape (warps, schedulers, ibuffer entries, CTA slots, register groups, \
             row bits, shared banks, shared row bits, icache set bits) = {k:?}; the presets' shapes are supported",
            cfg.name
        ),
    }
}

/// The ISA opcodes the simt control port takes, with simt's codes.
fn simt_code(op: Op) -> Option<u64> {
    match op {
        Op::Bra => Some(crate::units::simt::OP_BRA),
        Op::Ssy => Some(crate::units::simt::OP_SSY),
        Op::Sync => Some(crate::units::simt::OP_SYNC),
        Op::Exit => Some(crate::units::simt::OP_EXIT),
        _ => None,
    }
}

/// Is `op` (7 bits) a simt control op (BRA SSY SYNC EXIT)?
fn is_simt_op<C: Ctx>(cx: &mut C, op: S<C, 7>) -> S<C, 1> {
    let mut v = cx.lit::<1>(0);
    for o in [Op::Bra, Op::Ssy, Op::Sync, Op::Exit] {
        v = v | op.eq(cx.lit::<7>(o as u64));
    }
    v
}

/// simt's 3-bit code of a control op (0 for others).
fn simt_op_code<C: Ctx>(cx: &mut C, op: S<C, 7>) -> S<C, 3> {
    let mut v = cx.lit::<3>(0);
    for o in [Op::Bra, Op::Ssy, Op::Sync, Op::Exit] {
        let c = cx.lit::<3>(simt_code(o).unwrap());
        v = op.eq(cx.lit::<7>(o as u64)).mux(c, v);
    }
    v
}

fn lanes_of<C: Ctx>(cx: &mut C, v: S<C, 32>) -> [S<C, 1>; 32] {
    std::array::from_fn(|l| crate::units::regfile::bit_of(cx, v, l))
}

impl<
        const MW: usize,
        const NS: usize,
        const LW: usize,
        const IE: usize,
        const NC: usize,
        const G: usize,
        const NL: usize,
        const A: usize,
        const LB: usize,
        const SA: usize,
        const SB: usize,
    > Block for SmTop<MW, NS, LW, IE, NC, G, NL, A, LB, SA, SB>
{
    type In<B: Backend> = SmIn<B>;
    type Out<B: Backend> = SmOut<B>;
    fn module_name(&self) -> String {
        self.name.clone()
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SmIn<C::B>) -> SmOut<C::B> {
        let z1 = cx.lit::<1>(0);
        let (z3, z4, z7, z8) = (cx.lit::<3>(0), cx.lit::<4>(0), cx.lit::<7>(0), cx.lit::<8>(0));
        let z6 = cx.lit::<6>(0);
        let z32 = cx.lit::<32>(0);
        let err_q = cx.q(self.err.v);
        // 1. Children in the ring: Moore outputs first.
        let (h_cta, cta) = cx.instance_begin("u_cta", &self.cta);
        let (h_ib, ib) = cx.instance_begin("u_ibuf", &self.ibuf);
        let (h_pf, pf) = cx.instance_begin("u_pf", &self.pf);
        let (h_bar, bar) = cx.instance_begin("u_bar", &self.bar);
        let (h_simt, simt) = cx.instance_begin("u_simt", &self.simt);
        let (h_sb, sb) = cx.instance_begin("u_sb", &self.sb);
        let (h_wb, wb) = cx.instance_begin("u_wb", &self.wb);
        let (h_oc, oc) = cx.instance_begin("u_oc", &self.oc);
        let mut h_sp: SmallBuf<Pending, 2> = SmallBuf::new();
        let mut spo: SmallBuf<SpGroupOut<C::B>, 2> = SmallBuf::new();
        for (g, grp) in self.sp.iter().enumerate() {
            let (h, o) = cx.instance_begin(["u_sp0", "u_sp1"][g], grp);
            h_sp.push(h);
            spo.push(o);
        }
        let sp1_ready = if NS > 1 { spo[1].ready_o } else { z1 };
        let (h_sfu, sfu) = cx.instance_begin("u_sfu", &self.sfu);
        let dpu_b = self.dpu.as_ref().map(|d| cx.instance_begin("u_dpu", d));
        let dpu: DpuOut<C::B> = match &dpu_b {
            Some((_, o)) => *o,
            None => <DpuOut<C::B> as crate::hdl::Ports<C::B>>::build(&mut crate::hdl::block::ZeroPorts),
        };
        let (h_lsu, lsu) = cx.instance_begin("u_lsu", &self.lsu);
        let (h_smem, smem) = cx.instance_begin("u_smem", &self.smem);
        let imd_b = self.imd.as_ref().map(|d| cx.instance_begin("u_imd", d));
        let imd_full = imd_b.as_ref().map(|(_, o)| o.full_o);

        // 2. Per-warp readiness and holds.
        let u_ctrl = cx.lit::<3>(crate::golden::isa::Unit::Ctrl as u64);
        let s2r_op = cx.lit::<7>(Op::S2r as u64);
        let mut ok: SmallBuf<S<C, 1>, 64> = SmallBuf::new();
        let mut hold: SmallBuf<S<C, 1>, 64> = SmallBuf::new();
        let mut is_ctrl: SmallBuf<S<C, 1>, 64> = SmallBuf::new();
        // Write after read: a head that writes a register an issued
        // instruction of its warp has still to read (a collector with the
        // read pending, opcoll's Moore `war_*`) waits; otherwise a fast
        // result (S2R through the front end, a load) could overwrite the
        // source before the collector reads it. Per collector: the head of
        // its warp, compared with the registers still to be read.
        let ncoll = self.oc.geom().collectors;
        let mut war: SmallBuf<S<C, 1>, 64> = SmallBuf::filled(z1, MW);
        let (k1, k2) = (cx.lit::<2>(1), cx.lit::<2>(2));
        let one8 = cx.lit::<8>(1);
        for c in 0..ncoll {
            if cx.known_low(oc.war_v_o[c]) {
                continue;
            }
            let w = oc.war_warp_o[c];
            let kind = crate::units::regfile::index(cx, &ib.h_kind_o, w);
            let dst = crate::units::regfile::index(cx, &ib.h_dst_o, w);
            let dpair = kind.eq(k2);
            let writes = kind.eq(k1) | dpair;
            let mut hit = z1;
            for o in 0..3 {
                let r = oc.war_reg_o[3 * c + o];
                let rp = oc.war_pair_o[3 * c + o];
                let none = r.eq(cx.lit::<8>(255));
                let h = dst.eq(r) | (rp & dst.eq(r + one8)) | (dpair & (dst + one8).eq(r));
                hit = hit | (h & !none);
            }
            let hz = oc.war_v_o[c] & writes & hit;
            for (g, wg) in war.iter_mut().enumerate() {
                let gl = cx.lit::<6>(g as u64);
                *wg = *wg | (hz & w.eq(gl));
            }
        }
        for g in 0..MW {
            let q = Query {
                ra: ib.h_ra_o[g],
                rb: ib.h_rb_o[g],
                rc: ib.h_rc_o[g],
                pair: ib.h_pair_o[g],
                kind: ib.h_kind_o[g],
                dst: ib.h_dst_o[g],
                prd: ib.h_prd_o[g],
            };
            let sb_ok = head_ok(cx, sb.pend_o[g], sb.ppend_o[g], &q);
            // A 32-bit IMUL waits while the IMUL delay table is full.
            ok.push(match imd_full {
                Some(full) => {
                    let imul = crate::units::sp::is_imul32::<C::B>(ib.h_op_o[g], ib.h_mod_o[g]);
                    sb_ok & !war[g] & !(full & imul)
                }
                None => sb_ok & !war[g],
            });
            let gl = cx.lit::<6>(g as u64);
            let redir_now = simt.redir_valid_o & simt.redir_warp_o.eq(gl);
            let simt_ctl = is_simt_op(cx, ib.h_op_o[g]);
            let s2r = ib.h_op_o[g].eq(s2r_op);
            let h = bar.wait_o[g]
                | simt.busy_o[g]
                | redir_now
                | (simt_ctl & !simt.ctl_ready_o)
                | (s2r & !wb.wb_room_fe_o)
                | err_q;
            hold.push(h);
            is_ctrl.push(ib.h_unit_o[g].eq(u_ctrl));
        }
        // 3. Schedulers.
        // Dual issue: with three SP instructions already waiting for the SP
        // group the scheduler sees the SP class as not ready, so an FMUL
        // goes to the SFU's multipliers beside them (docs/sm.md 5.8).
        let sp_wait_q = self.sp_wait.map(|r| cx.q(r));
        let sp_full = match sp_wait_q {
            Some(q) => q.eq(cx.lit::<2>(3)).zext::<4>(),
            None => cx.lit::<4>(0),
        };
        let ready = [oc.is0_ready_o & !sp_full, oc.is1_ready_o];
        let mut so: SmallBuf<SchedOut<C::B>, 2> = SmallBuf::new();
        for s in 0..NS {
            let gw = |l: usize| l * NS + s;
            let (peer_v, peer_u, peer_ctl) = if s == 0 {
                (z1, cx.lit::<3>(0), z1)
            } else {
                (so[0].is_valid_o, so[0].is_unit_o, so[0].ctl_valid_o)
            };
            let si = SchedIn::<C::B, LW> {
                wv_i: std::array::from_fn(|l| cta.wv_o[gw(l)] & simt.run_o[gw(l)]),
                bw_i: std::array::from_fn(|l| hold[gw(l)] | (peer_ctl & is_ctrl[gw(l)])),
                hv_i: std::array::from_fn(|l| ib.hv_o[gw(l)]),
                sb_ok_i: std::array::from_fn(|l| ok[gw(l)]),
                h_err_i: std::array::from_fn(|l| ib.h_err_o[gw(l)]),
                h_unit_i: std::array::from_fn(|l| ib.h_unit_o[gw(l)]),
                h_fmul_i: std::array::from_fn(|l| ib.h_fmul_o[gw(l)]),
                h_op_i: std::array::from_fn(|l| ib.h_op_o[gw(l)]),
                h_mod_i: std::array::from_fn(|l| ib.h_mod_o[gw(l)]),
                h_gpred_i: std::array::from_fn(|l| ib.h_gpred_o[gw(l)]),
                h_gneg_i: std::array::from_fn(|l| ib.h_gneg_o[gw(l)]),
                h_ra_i: std::array::from_fn(|l| ib.h_ra_o[gw(l)]),
                h_rb_i: std::array::from_fn(|l| ib.h_rb_o[gw(l)]),
                h_rc_i: std::array::from_fn(|l| ib.h_rc_o[gw(l)]),
                h_pair_i: std::array::from_fn(|l| ib.h_pair_o[gw(l)]),
                h_kind_i: std::array::from_fn(|l| ib.h_kind_o[gw(l)]),
                h_dst_i: std::array::from_fn(|l| ib.h_dst_o[gw(l)]),
                h_use_imm_i: std::array::from_fn(|l| ib.h_use_imm_o[gw(l)]),
                h_imm_i: std::array::from_fn(|l| ib.h_imm_o[gw(l)]),
                h_pc_i: std::array::from_fn(|l| ib.h_pc_o[gw(l)]),
                act_i: std::array::from_fn(|l| simt.act_o[gw(l)]),
                pred_i: std::array::from_fn(|l| pf.p_o[gw(l)]),
                ready_i: ready[s],
                peer_valid_i: peer_v,
                peer_unit_i: peer_u,
            };
            let o = cx.instance(["u_sched0", "u_sched1"][s], &self.sched[s], &si);
            so.push(o);
        }
        // Control ops of this cycle (at most one scheduler issues one).
        let bar_op = cx.lit::<7>(Op::Bar as u64);
        let mut c_sim: SmallBuf<S<C, 1>, 2> = SmallBuf::new();
        let mut c_bar: SmallBuf<S<C, 1>, 2> = SmallBuf::new();
        let mut c_s2r: SmallBuf<S<C, 1>, 2> = SmallBuf::new();
        for o in &so {
            let sim = o.ctl_valid_o & is_simt_op(cx, o.ctl_op_o);
            c_sim.push(sim);
            c_bar.push(o.ctl_valid_o & o.ctl_op_o.eq(bar_op));
            c_s2r.push(o.ctl_valid_o & o.ctl_op_o.eq(s2r_op));
        }
        let pick1 = |cx: &mut C, sel: &[S<C, 1>], v: SmallBuf<S<C, 6>, 2>| pick(cx, sel, &v);
        let ctl_valid = or_all(cx, &c_sim);
        let ctl_warp = pick1(cx, &c_sim, so.iter().map(|o| o.iss_warp_o).collect());
        let ops: SmallBuf<S<C, 7>, 2> = so.iter().map(|o| o.ctl_op_o).collect();
        let ctl_op7 = pick(cx, &c_sim, &ops);
        let ctl_code = simt_op_code(cx, ctl_op7);
        let imms: SmallBuf<S<C, 32>, 2> = so.iter().map(|o| o.ctl_imm_o).collect();
        let ctl_imm = pick(cx, &c_sim, &imms);
        let takens: SmallBuf<S<C, 32>, 2> = so
            .iter()
            .map(|o| crate::units::predfile::pack_lanes(cx, &o.ctl_taken_o))
            .collect();
        let ctl_taken = pick(cx, &c_sim, &takens);
        let bar_valid = or_all(cx, &c_bar);
        let bar_warp = pick1(cx, &c_bar, so.iter().map(|o| o.iss_warp_o).collect());
        let pcs: SmallBuf<S<C, 16>, 2> = so.iter().map(|o| o.ctl_pc_o).collect();
        let bar_pc = pick(cx, &c_bar, &pcs);
        let s2r_any = or_all(cx, &c_s2r);
        // Memory instructions in flight (issue to LSU result).
        let mem_q = cx.q(self.mem_q);
        let u_lsu = cx.lit::<3>(crate::golden::isa::Unit::Lsu as u64);
        let one8 = cx.lit::<8>(1);
        let mut mem_n = mem_q;
        for o in &so {
            let inc = o.is_valid_o & o.is_unit_o.eq(u_lsu);
            mem_n = inc.mux(mem_n + one8, mem_n);
        }
        let mem_n = lsu.lsu_res_valid_o.mux(mem_n - one8, mem_n);
        cx.d(self.mem_q, mem_n);
        let mem_idle = !mem_q.any() & lsu.lsu_idle_o;

        // 4. Instruction fetch.
        let ifo = cx.instance(
            "u_ifetch",
            &self.ifetch,
            &IfetchIn::<C::B, MW, IM_WORDS> {
                st_valid_i: cta.st_valid_o,
                st_warp_i: cta.st_warp_o,
                redir_valid_i: simt.redir_valid_o,
                redir_warp_i: simt.redir_warp_o,
                redir_pc_i: simt.redir_pc_o,
                run_i: simt.run_o,
                busy_i: simt.busy_o,
                room_i: ib.room_o,
                hv_i: ib.hv_o,
                plen_i: i.plen_i,
                im_req_ready_i: i.im_req_ready_i,
                im_resp_valid_i: i.im_resp_valid_i,
                im_resp_data_i: i.im_resp_data_i,
            },
        );

        // 5. End the ring: simt first (its read port feeds the barrier).
        let ctl_taken_l = lanes_of(cx, ctl_taken);
        let simt_r = cx.instance_end(
            h_simt,
            &self.simt,
            &SimtIn::<C::B, NS> {
                start_valid_i: cta.st_valid_o,
                start_warp_i: cta.st_warp_o,
                start_mask_i: cta.st_mask_o,
                adv_valid_i: std::array::from_fn(|s| so[s].iss_valid_o & !c_sim[s]),
                adv_warp_i: std::array::from_fn(|s| so[s].iss_warp_o),
                ctl_valid_i: ctl_valid,
                ctl_warp_i: ctl_warp,
                ctl_op_i: ctl_code,
                ctl_target_i: ctl_imm.slice::<0, 16>(),
                ctl_taken_i: ctl_taken_l,
                f_warp_i: z6,
                s_warp_i: bar_warp,
            },
        );
        cx.instance_end_sink(
            h_bar,
            &self.bar,
            &BarIn {
                join_valid_i: cta.st_valid_o,
                join_warp_i: cta.st_warp_o,
                join_cta_i: cta.st_cta_o,
                leave_valid_i: simt.exit_valid_o,
                leave_warp_i: simt.exit_warp_o,
                arr_valid_i: bar_valid,
                arr_warp_i: bar_warp,
                arr_pc_i: bar_pc,
                arr_active_i: simt_r.s_active_o,
                arr_live_i: simt_r.s_live_o,
            },
        );
        let s2r = |s: usize| -> (S<C, 1>, S<C, 6>, S<C, 8>, [S<C, 1>; 32], S<C, 32>) {
            if s < NS {
                let o = &so[s];
                (
                    c_s2r[s],
                    o.iss_warp_o,
                    o.ctl_imm_o.slice::<0, 8>(),
                    o.ctl_taken_o,
                    o.is_tag_o,
                )
            } else {
                (z1, z6, z8, [z1; 32], z32)
            }
        };
        let (r0, r1) = (s2r(0), s2r(1));
        cx.instance_end_sink(
            h_cta,
            &self.cta,
            &CtaIn::<C::B, MW> {
                launch_valid_i: i.launch_valid_i,
                launch_grid_x_i: i.launch_grid_x_i,
                launch_grid_y_i: i.launch_grid_y_i,
                launch_block_x_i: i.launch_block_x_i,
                launch_block_y_i: i.launch_block_y_i,
                launch_block_z_i: i.launch_block_z_i,
                launch_nregs_i: i.launch_nregs_i,
                launch_smem_i: i.launch_smem_i,
                exit_valid_i: simt.exit_valid_o,
                exit_warp_i: simt.exit_warp_o,
                idle_i: sb.idle_o,
                lsu_idle_i: mem_idle,
                s2r_valid_i: r0.0,
                s2r_warp_i: r0.1,
                s2r_idx_i: r0.2,
                s2r_mask_i: r0.3,
                s2r_tag_i: r0.4,
                s2r1_valid_i: r1.0,
                s2r1_warp_i: r1.1,
                s2r1_idx_i: r1.2,
                s2r1_mask_i: r1.3,
                s2r1_tag_i: r1.4,
            },
        );
        cx.instance_end_sink(
            h_ib,
            &self.ibuf,
            &IbIn::<C::B, NS> {
                push_valid_i: ifo.push_valid_o,
                push_warp_i: ifo.push_warp_o,
                push_pc_i: ifo.push_pc_o,
                push_word_i: ifo.push_word_o,
                pop_valid_i: std::array::from_fn(|s| so[s].iss_valid_o),
                pop_warp_i: std::array::from_fn(|s| so[s].iss_warp_o),
                fl_valid_i: [simt.redir_valid_o, cta.st_valid_o],
                fl_warp_i: [simt.redir_warp_o, cta.st_warp_o],
            },
        );
        // wb's releases, through the IMUL delay table where there is one.
        let (rel_valid, rel_tag) = match imd_b {
            Some((h, _)) => {
                let d = self.imd.as_ref().expect("imd_b comes from imd");
                let io: ImdOut<C::B, NS> = cx.instance_end(
                    h,
                    d,
                    &ImdIn::<C::B, NS> {
                        set_valid_i: std::array::from_fn(|s| {
                            so[s].is_valid_o
                                & so[s].iss_set_o
                                & crate::units::sp::is_imul32::<C::B>(so[s].is_op_o, so[s].is_mod_o)
                        }),
                        set_tag_i: std::array::from_fn(|s| so[s].is_tag_o),
                        rel_valid_i: wb.rel_valid_o,
                        rel_tag_i: wb.rel_tag_o,
                    },
                );
                (io.rel_valid_o, io.rel_tag_o)
            }
            None => (wb.rel_valid_o, wb.rel_tag_o),
        };
        cx.instance_end_sink(
            h_sb,
            &self.sb,
            &SbIn::<C::B, MW, NS> {
                set_valid_i: std::array::from_fn(|s| so[s].iss_set_o),
                set_tag_i: std::array::from_fn(|s| so[s].is_tag_o),
                rel_valid_i: rel_valid,
                rel_tag_i: rel_tag,
                clr_valid_i: cta.st_valid_o,
                clr_warp_i: cta.st_warp_o,
                q_ra_i: ib.h_ra_o,
                q_rb_i: ib.h_rb_o,
                q_rc_i: ib.h_rc_o,
                q_pair_i: ib.h_pair_o,
                q_kind_i: ib.h_kind_o,
                q_dst_i: ib.h_dst_o,
                q_prd_i: ib.h_prd_o,
            },
        );
        cx.instance_end_sink(
            h_pf,
            &self.pf,
            &PfIn::<C::B, NS> {
                wr_valid_i: wb.pr_wr_valid_o,
                wr_warp_i: wb.pr_wr_warp_o,
                wr_idx_i: wb.pr_wr_idx_o,
                wr_mask_i: wb.pr_wr_mask_o,
                wr_val_i: wb.pr_wr_val_o,
                // PSETP, executed by the schedulers at issue.
                sw_valid_i: std::array::from_fn(|s| so[s].sw_valid_o),
                sw_warp_i: std::array::from_fn(|s| so[s].iss_warp_o),
                sw_idx_i: std::array::from_fn(|s| so[s].sw_idx_o),
                sw_mask_i: std::array::from_fn(|s| so[s].sw_mask_o),
                sw_val_i: std::array::from_fn(|s| so[s].sw_val_o),
                clr_valid_i: cta.st_valid_o,
                clr_warp_i: cta.st_warp_o,
            },
        );
        // Operand collectors, then the units they dispatch to.
        let is = |s: usize| -> Option<&SchedOut<C::B>> { so.get(s) };
        let zl1 = [z1; 32];
        let iss = |k: usize| match is(k) {
            Some(o) => (
                o.is_valid_o,
                o.is_unit_o,
                o.is_op_o,
                o.is_mod_o,
                o.is_tag_o,
                o.is_ra_o,
                o.is_rb_o,
                o.is_rc_o,
                o.is_pair_o,
                o.is_use_imm_o,
                o.is_imm_o,
                o.is_mask_o,
                o.is_pa_o,
                o.is_pb_o,
            ),
            None => (z1, z3, z7, z4, z32, z8, z8, z8, z3, z1, z32, zl1, zl1, zl1),
        };
        let (a0, a1) = (iss(0), iss(1));
        let oc_r = cx.instance_end(
            h_oc,
            &self.oc,
            &OpcollIn {
                is0_valid_i: a0.0,
                is0_unit_i: a0.1,
                is0_op_i: a0.2,
                is0_mod_i: a0.3,
                is0_tag_i: a0.4,
                is0_ra_i: a0.5,
                is0_rb_i: a0.6,
                is0_rc_i: a0.7,
                is0_pair_i: a0.8,
                is0_use_imm_i: a0.9,
                is0_imm_i: a0.10,
                is0_mask_i: a0.11,
                is0_pa_i: a0.12,
                is0_pb_i: a0.13,
                is1_valid_i: a1.0,
                is1_unit_i: a1.1,
                is1_op_i: a1.2,
                is1_mod_i: a1.3,
                is1_tag_i: a1.4,
                is1_ra_i: a1.5,
                is1_rb_i: a1.6,
                is1_rc_i: a1.7,
                is1_pair_i: a1.8,
                is1_use_imm_i: a1.9,
                is1_imm_i: a1.10,
                is1_mask_i: a1.11,
                is1_pa_i: a1.12,
                is1_pb_i: a1.13,
                al_valid_i: cta.al_valid_o,
                al_warp_i: cta.al_warp_o,
                al_base_i: cta.al_base_o,
                al_nregs_i: cta.al_nregs_o,
                rf_wr0_valid_i: wb.rf_wr0_valid_o,
                rf_wr0_warp_i: wb.rf_wr0_warp_o,
                rf_wr0_reg_i: wb.rf_wr0_reg_o,
                rf_wr0_pair_i: wb.rf_wr0_pair_o,
                rf_wr0_mask_i: wb.rf_wr0_mask_o,
                rf_wr0_lo_i: wb.rf_wr0_lo_o,
                rf_wr0_hi_i: wb.rf_wr0_hi_o,
                rf_wr1_valid_i: wb.rf_wr1_valid_o,
                rf_wr1_warp_i: wb.rf_wr1_warp_o,
                rf_wr1_reg_i: wb.rf_wr1_reg_o,
                rf_wr1_pair_i: wb.rf_wr1_pair_o,
                rf_wr1_mask_i: wb.rf_wr1_mask_o,
                rf_wr1_lo_i: wb.rf_wr1_lo_o,
                rf_wr1_hi_i: wb.rf_wr1_hi_o,
                sp0_ready_i: spo[0].ready_o,
                sp1_ready_i: sp1_ready,
                sfu_ready_i: sfu.sfu_ready_o,
                dpu_ready_i: dpu.dpu_ready_o,
                lsu_ready_i: lsu.lsu_ready_o,
                wb_room_sp0_i: wb.wb_room_sp0_o,
                wb_room_sp1_i: wb.wb_room_sp1_o,
                wb_room_sfu_i: wb.wb_room_sfu_o,
                wb_room_dpu_i: wb.wb_room_dpu_o,
                wb_room_lsu_i: wb.wb_room_lsu_o,
            },
        );
        if let (Some(r), Some(q)) = (self.sp_wait, sp_wait_q) {
            let u_sp = cx.lit::<3>(crate::golden::isa::Unit::Sp as u64);
            let one2 = cx.lit::<2>(1);
            let inc = so[0].is_valid_o & so[0].is_unit_o.eq(u_sp);
            let n = inc.mux(q + one2, q);
            let n = oc_r.sp0_valid_o.mux(n - one2, n);
            cx.d(r, n);
        }
        let sp_in = [
            SpGroupIn::<C::B> {
                valid_i: oc_r.sp0_valid_o,
                op_i: oc_r.sp0_op_o,
                mod_i: oc_r.sp0_mod_o,
                mask_i: oc_r.sp0_mask_o,
                a_i: oc_r.sp0_a_o,
                b_i: oc_r.sp0_b_o,
                c_i: oc_r.sp0_c_o,
                pa_i: oc_r.sp0_pa_o,
                tag_i: oc_r.sp0_tag_o,
            },
            SpGroupIn::<C::B> {
                valid_i: oc_r.sp1_valid_o,
                op_i: oc_r.sp1_op_o,
                mod_i: oc_r.sp1_mod_o,
                mask_i: oc_r.sp1_mask_o,
                a_i: oc_r.sp1_a_o,
                b_i: oc_r.sp1_b_o,
                c_i: oc_r.sp1_c_o,
                pa_i: oc_r.sp1_pa_o,
                tag_i: oc_r.sp1_tag_o,
            },
        ];
        for (g, &h) in h_sp.iter().enumerate() {
            cx.instance_end_sink(h, &self.sp[g], &sp_in[g]);
        }
        cx.instance_end_sink(
            h_sfu,
            &self.sfu,
            &SfuIn {
                sfu_valid_i: oc_r.sfu_valid_o,
                sfu_op_i: oc_r.sfu_op_o,
                sfu_mod_i: oc_r.sfu_mod_o,
                sfu_mask_i: oc_r.sfu_mask_o,
                sfu_a_i: oc_r.sfu_a_o,
                sfu_b_i: oc_r.sfu_b_o,
                sfu_tag_i: oc_r.sfu_tag_o,
            },
        );
        if let (Some((h, _)), Some(d)) = (dpu_b, self.dpu.as_ref()) {
            cx.instance_end_sink(
                h,
                d,
                &DpuIn {
                    dpu_valid_i: oc_r.dpu_valid_o,
                    dpu_op_i: oc_r.dpu_op_o,
                    dpu_mod_i: oc_r.dpu_mod_o,
                    dpu_mask_i: oc_r.dpu_mask_o,
                    dpu_a_i: oc_r.dpu_a_o,
                    dpu_b_i: oc_r.dpu_b_o,
                    dpu_c_i: oc_r.dpu_c_o,
                    dpu_tag_i: oc_r.dpu_tag_o,
                },
            );
        }
        // The L1 (Fermi) between the LSU's global port (Moore outputs) and
        // the SM's; its ready and responses go back to the LSU.
        let l1o = self.l1.as_ref().map(|c| {
            cx.instance(
                "u_l1",
                c,
                &L1In {
                    lsu_req_valid_i: lsu.gm_req_valid_o,
                    lsu_req_id_i: lsu.gm_req_id_o,
                    lsu_req_write_i: lsu.gm_req_write_o,
                    lsu_req_atom_i: lsu.gm_req_atom_o,
                    lsu_req_addr_i: lsu.gm_req_addr_o,
                    lsu_req_size_i: lsu.gm_req_size_o,
                    lsu_req_wmask_i: lsu.gm_req_wmask_o,
                    lsu_req_wdata_i: lsu.gm_req_wdata_o,
                    gm_req_ready_i: i.gm_req_ready_i,
                    gm_resp_valid_i: i.gm_resp_valid_i,
                    gm_resp_id_i: i.gm_resp_id_i,
                    gm_resp_rdata_i: i.gm_resp_rdata_i,
                },
            )
        });
        let lsu_r = cx.instance_end(
            h_lsu,
            &self.lsu,
            &LsuIn::<C::B, MW> {
                lsu_valid_i: oc_r.lsu_valid_o,
                lsu_op_i: oc_r.lsu_op_o,
                lsu_mod_i: oc_r.lsu_mod_o,
                lsu_mask_i: oc_r.lsu_mask_o,
                lsu_a_i: oc_r.lsu_a_o,
                lsu_b_i: oc_r.lsu_b_o,
                lsu_c_i: oc_r.lsu_c_o,
                lsu_off_i: oc_r.lsu_off_o,
                lsu_tag_i: oc_r.lsu_tag_o,
                sbase_i: cta.sbase_o,
                ssize_i: cta.ssize_o,
                param_we_i: i.param_we_i,
                param_addr_i: i.param_addr_i,
                param_data_i: i.param_data_i,
                gm_size_i: i.gm_size_i,
                sm_ready_i: smem.ready_o,
                sm_resp_valid_i: smem.resp_valid_o,
                sm_rdata_i: smem.rdata_o,
                sm_passes_i: smem.passes_o,
                sm_err_i: smem.err_o,
                sm_pass_i: smem.pass_o,
                sm_conflict_i: smem.conflict_o,
                gm_req_ready_i: l1o.map_or(i.gm_req_ready_i, |o| o.lsu_req_ready_o),
                gm_resp_valid_i: l1o.map_or(i.gm_resp_valid_i, |o| o.lsu_resp_valid_o),
                gm_resp_id_i: l1o.map_or(i.gm_resp_id_i, |o| o.lsu_resp_id_o),
                gm_resp_rdata_i: l1o.map_or(i.gm_resp_rdata_i, |o| o.lsu_resp_rdata_o),
            },
        );
        cx.instance_end_sink(
            h_smem,
            &self.smem,
            &SmemIn {
                req_valid_i: lsu_r.sm_req_valid_o,
                op_i: lsu_r.sm_op_o,
                active_i: lsu_r.sm_active_o,
                addr_i: lsu_r.sm_addr_o,
                data_i: lsu_r.sm_data_o,
                cmp_i: lsu_r.sm_cmp_o,
            },
        );
        // Write-back: results (Moore outputs of the units), credits.
        let fe_sel = cta.fe_res_valid_o;
        let fe_mask: [S<C, 1>; 32] = std::array::from_fn(|l| fe_sel.mux(cta.fe_res_mask_o[l], cta.fe_res1_mask_o[l]));
        let fe_data: [S<C, 32>; 32] = std::array::from_fn(|l| fe_sel.mux(cta.fe_res_data_o[l], cta.fe_res1_data_o[l]));
        let sp1o = if NS > 1 {
            spo[1]
        } else {
            <SpGroupOut<C::B> as crate::hdl::Ports<C::B>>::build(&mut crate::hdl::block::ZeroPorts)
        };
        cx.instance_end_sink(
            h_wb,
            &self.wb,
            &WbIn {
                sp0_res_valid_i: spo[0].res_valid_o,
                sp0_res_tag_i: spo[0].res_tag_o,
                sp0_res_mask_i: spo[0].res_mask_o,
                sp0_res_data_i: spo[0].res_data_o,
                sp0_res_pred_i: spo[0].res_pred_o,
                sp1_res_valid_i: sp1o.res_valid_o,
                sp1_res_tag_i: sp1o.res_tag_o,
                sp1_res_mask_i: sp1o.res_mask_o,
                sp1_res_data_i: sp1o.res_data_o,
                sp1_res_pred_i: sp1o.res_pred_o,
                sfu_res_valid_i: sfu.sfu_res_valid_o,
                sfu_res_tag_i: sfu.sfu_res_tag_o,
                sfu_res_mask_i: sfu.sfu_res_mask_o,
                sfu_res_data_i: sfu.sfu_res_data_o,
                dpu_res_valid_i: dpu.dpu_res_valid_o,
                dpu_res_tag_i: dpu.dpu_res_tag_o,
                dpu_res_mask_i: dpu.dpu_res_mask_o,
                dpu_res_data_i: dpu.dpu_res_data_o,
                dpu_res_pred_i: dpu.dpu_res_pred_o,
                lsu_res_valid_i: lsu.lsu_res_valid_o,
                lsu_res_tag_i: lsu.lsu_res_tag_o,
                lsu_res_mask_i: lsu.lsu_res_mask_o,
                lsu_res_data_i: lsu.lsu_res_data_o,
                fe_res_valid_i: cta.fe_res_valid_o | cta.fe_res1_valid_o,
                fe_res_tag_i: fe_sel.mux(cta.fe_res_tag_o, cta.fe_res1_tag_o),
                fe_res_mask_i: fe_mask,
                fe_res_data_i: fe_data,
                disp_sp0_i: oc_r.sp0_valid_o & spo[0].ready_o,
                disp_sp1_i: oc_r.sp1_valid_o & sp1_ready,
                disp_sfu_i: oc_r.sfu_valid_o & sfu.sfu_ready_o,
                disp_dpu_i: oc_r.dpu_valid_o & dpu.dpu_ready_o,
                disp_lsu_i: oc_r.lsu_valid_o & lsu.lsu_ready_o,
                disp_fe_i: s2r_any,
            },
        );

        // 6. First error.
        let tagw = |t: S<C, 32>| -> S<C, 6> { t.slice::<0, 6>() };
        let tagpc = |t: S<C, 32>| -> S<C, 16> { t.slice::<16, 16>() };
        let z16 = cx.lit::<16>(0);
        let mut srcs: Vec<(S<C, 1>, S<C, 8>, u64, S<C, 6>, S<C, 16>, S<C, 32>)> = vec![
            (cta.err_o, cta.err_code_o, 1, z6, z16, cta.err_reason_o.zext::<32>()),
            (ifo.err_o, ifo.err_code_o, 2, ifo.err_warp_o, ifo.err_pc_o, z32),
        ];
        for (s, o) in so.iter().enumerate() {
            srcs.push((o.err_o, o.err_code_o, 3 + s as u64, o.err_warp_o, o.err_pc_o, z32));
        }
        srcs.push((simt.err_o, simt.err_code_o, 5, simt.err_warp_o, simt.err_pc_o, z32));
        srcs.push((
            bar.err_o,
            bar.err_code_o,
            6,
            bar.err_warp_o,
            bar.err_pc_o,
            bar.err_cta_o.zext::<32>(),
        ));
        srcs.push((
            oc.err_o,
            oc.err_code_o,
            7,
            oc.err_warp_o,
            z16,
            oc.err_reg_o.zext::<32>(),
        ));
        for (g, o) in spo.iter().enumerate() {
            let v = o.res_valid_o & o.err_o;
            srcs.push((
                v,
                o.err_code_o,
                8 + g as u64,
                tagw(o.res_tag_o),
                tagpc(o.res_tag_o),
                z32,
            ));
        }
        let v = sfu.sfu_res_valid_o & sfu.sfu_err_o;
        srcs.push((
            v,
            sfu.sfu_err_code_o,
            10,
            tagw(sfu.sfu_res_tag_o),
            tagpc(sfu.sfu_res_tag_o),
            z32,
        ));
        let v = dpu.dpu_res_valid_o & dpu.dpu_err_o;
        srcs.push((
            v,
            dpu.dpu_err_code_o,
            11,
            tagw(dpu.dpu_res_tag_o),
            tagpc(dpu.dpu_res_tag_o),
            z32,
        ));
        let v = lsu.lsu_res_valid_o & lsu.lsu_res_err_o;
        srcs.push((
            v,
            lsu.lsu_res_err_code_o,
            12,
            tagw(lsu.lsu_res_tag_o),
            tagpc(lsu.lsu_res_tag_o),
            lsu.err_addr_o,
        ));
        srcs.push((lsu.err_o, lsu.err_code_o, 12, lsu.err_warp_o, z16, lsu.err_addr_o));
        srcs.push((wb.err_o, wb.err_code_o, 13, z6, z16, wb.err_src_o.zext::<32>()));
        let (mut nv, mut ncode, mut nsrc, mut nwarp, mut npc, mut ninfo) =
            (z1, cx.lit::<8>(0), cx.lit::<4>(0), z6, z16, z32);
        for (v, code, src, w, pc, info) in srcs.into_iter().rev() {
            let srcl = cx.lit::<4>(src);
            ncode = v.mux(code, ncode);
            nsrc = v.mux(srcl, nsrc);
            nwarp = v.mux(w, nwarp);
            npc = v.mux(pc, npc);
            ninfo = v.mux(info, ninfo);
            nv = nv | v;
        }
        let e = &self.err;
        let take = nv & !err_q;
        let (qc, qs, qw, qp, qi) = (cx.q(e.code), cx.q(e.src), cx.q(e.warp), cx.q(e.pc), cx.q(e.info));
        cx.d(e.v, err_q | nv);
        cx.d(e.code, take.mux(ncode, qc));
        cx.d(e.src, take.mux(nsrc, qs));
        cx.d(e.warp, take.mux(nwarp, qw));
        cx.d(e.pc, take.mux(npc, qp));
        cx.d(e.info, take.mux(ninfo, qi));

        // 7. Stall causes per scheduler.
        let mut stall = [cx.lit::<3>(0); 2];
        for (s, o) in so.iter().enumerate() {
            let mut any_v = z1;
            let mut any_nb = z1;
            let mut any_h = z1;
            let mut any_c = z1;
            let mut any_ok = z1;
            for l in 0..LW {
                let g = l * NS + s;
                let v = cta.wv_o[g] & simt.run_o[g];
                let nb = v & !bar.wait_o[g];
                let h = nb & ib.hv_o[g];
                let c = h & !hold[g];
                let k = c & ok[g];
                any_v = any_v | v;
                any_nb = any_nb | nb;
                any_h = any_h | h;
                any_c = any_c | c;
                any_ok = any_ok | k;
            }
            let lit = |cx: &mut C, v: u64| cx.lit::<3>(v);
            let sc_mem = (!lsu.lsu_idle_o).mux(lit(cx, 6), lit(cx, 4));
            let mut cause = lit(cx, 5);
            cause = (!any_ok).mux(sc_mem, cause);
            cause = (!any_c).mux(lit(cx, 7), cause);
            cause = (!any_h).mux(lit(cx, 3), cause);
            cause = (!any_nb).mux(lit(cx, 2), cause);
            cause = (!any_v).mux(lit(cx, 1), cause);
            stall[s] = o.iss_valid_o.mux(lit(cx, 0), cause);
        }

        // 8. Monitors and host outputs.
        let mon = |k: usize| -> (S<C, 1>, S<C, 32>, [S<C, 1>; 32]) {
            match so.get(k) {
                Some(o) => {
                    let m: [S<C, 1>; 32] = std::array::from_fn(|l| o.ctl_valid_o.mux(o.ctl_taken_o[l], o.is_mask_o[l]));
                    (o.iss_valid_o, o.is_tag_o, m)
                }
                None => (z1, z32, zl1),
            }
        };
        let (m0, m1) = (mon(0), mon(1));
        let ub = [
            !spo[0].ready_o,
            !sp1_ready & cx.lit::<1>((NS > 1) as u64),
            !sfu.sfu_ready_o,
            !dpu.dpu_ready_o & cx.lit::<1>(self.dpu.is_some() as u64),
            !lsu.lsu_ready_o,
        ];
        let mut unit_busy = cx.lit::<5>(0);
        for (k, b) in ub.iter().enumerate() {
            unit_busy = unit_busy | b.zext::<5>().shl(cx.lit::<3>(k as u64));
        }
        SmOut {
            launch_ready_o: cta.launch_ready_o,
            busy_o: cta.busy_o,
            done_o: cta.done_o,
            im_req_valid_o: ifo.im_req_valid_o,
            im_req_addr_o: ifo.im_req_addr_o,
            gm_req_valid_o: l1o.map_or(lsu_r.gm_req_valid_o, |o| o.gm_req_valid_o),
            gm_req_id_o: l1o.map_or(lsu_r.gm_req_id_o, |o| o.gm_req_id_o),
            gm_req_write_o: l1o.map_or(lsu_r.gm_req_write_o, |o| o.gm_req_write_o),
            gm_req_atom_o: l1o.map_or(lsu_r.gm_req_atom_o, |o| o.gm_req_atom_o),
            gm_req_addr_o: l1o.map_or(lsu_r.gm_req_addr_o, |o| o.gm_req_addr_o),
            gm_req_size_o: l1o.map_or(lsu_r.gm_req_size_o, |o| o.gm_req_size_o),
            gm_req_wmask_o: l1o.map_or(lsu_r.gm_req_wmask_o, |o| o.gm_req_wmask_o),
            gm_req_wdata_o: l1o.map_or(lsu_r.gm_req_wdata_o, |o| o.gm_req_wdata_o),
            iss0_valid_o: m0.0,
            iss0_tag_o: m0.1,
            iss0_mask_o: m0.2,
            iss1_valid_o: m1.0,
            iss1_tag_o: m1.1,
            iss1_mask_o: m1.2,
            iss0_psw_o: so[0].sw_val_o,
            iss1_psw_o: so.get(1).map(|o| o.sw_val_o).unwrap_or(z32),
            ret0_valid_o: wb.ret0_valid_o,
            ret0_tag_o: wb.ret0_tag_o,
            ret0_mask_o: wb.ret0_mask_o,
            ret0_lo_o: wb.rf_wr0_lo_o,
            ret0_hi_o: wb.rf_wr0_hi_o,
            ret1_valid_o: wb.ret1_valid_o,
            ret1_tag_o: wb.ret1_tag_o,
            ret1_mask_o: wb.ret1_mask_o,
            ret1_lo_o: wb.rf_wr1_lo_o,
            ret1_hi_o: wb.rf_wr1_hi_o,
            ret_pred_o: wb.pr_wr_val_o,
            st_valid_o: cta.st_valid_o,
            st_warp_o: cta.st_warp_o,
            st_cta_o: cta.st_cta_o,
            stall0_o: stall[0],
            stall1_o: stall[1],
            unit_busy_o: unit_busy,
            err_o: err_q,
            err_code_o: cx.q(e.code),
            err_src_o: cx.q(e.src),
            err_warp_o: cx.q(e.warp),
            err_pc_o: cx.q(e.pc),
            err_info_o: cx.q(e.info),
            cnt_rr_o: oc.cnt_rr_o,
            cnt_wr_o: oc.cnt_wr_o,
            cnt_oc_stall_o: oc.cnt_stall_o,
            cnt_wb_wait_o: wb.cnt_wait_o,
            cnt_ic_hit_o: ifo.cnt_hit_o,
            cnt_ic_miss_o: ifo.cnt_miss_o,
            cnt_gm_req_o: lsu.cnt_gm_req_o,
            cnt_sm_conf_o: lsu.cnt_sm_conf_o,
            cnt_l1_hit_o: l1o.map_or(z32, |o| o.cnt_l1_hit_o),
            cnt_l1_miss_o: l1o.map_or(z32, |o| o.cnt_l1_miss_o),
            occ_ctas_o: cta.occ_ctas_o,
            res_warps_o: cta.res_warps_o,
        }
    }
}
