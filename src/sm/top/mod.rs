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
//! * Source: this file holds the ports, the construction and the order of
//!   one evaluation ([`Block::eval`]); the steps live by responsibility in
//!   `frontend.rs` (readiness, schedulers, control ops, fetch, the front
//!   end's blocks), `dispatch.rs` (operand collectors), `exec.rs` (SP
//!   groups, SFU, DPU, write-back), `memory.rs` (LSU, shared memory, L1,
//!   memory instructions in flight), `errors.rs` (first-error latch) and
//!   `monitors.rs` (stall causes, unit busy, host and monitor outputs).
//!   The number of schedulers and SP groups is the type parameter `NS`
//!   (1 or 2: the ports of [`SmOut`], opcoll and wb have two slots).

use crate::config::SmConfig;
use crate::hdl::small::SmallBuf;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Pending, Reg};
use crate::units::barrier::{BarOut, Barrier};
use crate::units::cta::{Cta, CtaOut, LaunchPorts};
use crate::units::dpu::{Dpu, DpuOut};
use crate::units::gm::{GmReq, GmResp};
use crate::units::ibuffer::{IbOut, Ibuffer};
use crate::units::ifetch::Ifetch;
use crate::units::imuldly::ImulDelay;
use crate::units::l1::L1;
use crate::units::lsu::{Lsu, LsuOut};
use crate::units::opcoll::{Opcoll, OpcollOut};
use crate::units::predfile::{PfOut, Predfile};
use crate::units::sched::{Sched, SchedParams};
use crate::units::scoreboard::{SbOut, Scoreboard};
use crate::units::sfu::{Sfu, SfuOut};
use crate::units::simt::{Simt, SimtOut};
use crate::units::smem::{Smem, SmemOut};
use crate::units::sp::{SpGeom, SpGroup, SpGroupOut};
use crate::units::wb::{Wb, WbOut, WbParams};

pub use crate::codes::{error_name, units_present, ERR_SOURCES, STALL_NAMES, UNIT_BUSY_NAMES};

/// Words of an instruction-memory line response (64-byte lines).
pub const IM_WORDS: usize = 8;

crate::ports! {
    /// Host ports: launch, parameters, memories.
    pub struct SmIn {
        launch: LaunchPorts @ in,
        plen_i: 16 @ Core,
        param_we_i: 1 @ Core,
        param_addr_i: 8 @ Core,
        param_data_i: 32 @ Core,
        gm_size_i: 32 @ Core,
        im_req_ready_i: 1 @ Core,
        im_resp_valid_i: 1 @ Core,
        im_resp_data_i: [64; 8] @ Core,
        gm_req_ready_i: 1 @ Core,
        gm_resp: GmResp @ in,
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
        gm_req: GmReq @ out,
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
        gc_mode_o: 1 @ Core,
        cnt_gc_cycles_o: 32 @ Core,
        cnt_gc_runs_o: 32 @ Core,
        cnt_gc_fire_o: 32 @ Core,
        gc_fire_o: [2; 48] @ Core,
        gc_stall_in_o: [2; 48] @ Core,
        gc_stall_out_o: [2; 48] @ Core,
        gc_tok_valid_o: [2; 48] @ Core,
        gc_tok_o: [64; 48] @ Core,
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
    /// Instance names of the schedulers (`u_sched<s>`).
    sched_names: Vec<String>,
    simt: Simt<MW, NS>,
    bar: Barrier<MW, NC>,
    oc: Opcoll<G, NL, A>,
    sp: Vec<SpGroup>,
    /// With GPU-CC the SP groups have lane ports (`sp_group_..._ln`, 16
    /// lanes each; GPU-CC core `j` drives lane `j % 16` of group `j / 16`)
    /// and these replace `sp`, which is then empty.
    sp_ln: Vec<SpGroup<1, 16>>,
    /// Instance names of the SP groups (`u_sp<g>`).
    sp_names: Vec<String>,
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
    /// GPU-CC (configs with a `[gpucc]` section): the network, the mode
    /// register and its glue (`gpucc.rs`).
    gc: Option<gpucc::GcParts>,
}

/// log2 of the L1 data cache's lines (128 lines of 128 bytes = 16 KB,
/// Fermi's 48 KB shared / 16 KB L1 split).
pub const L1_LINE_BITS: usize = 7;

/// Why an SM cannot be built for a config.
#[derive(Debug, Clone, thiserror::Error)]
#[error("SM top for config `{cfg}`: {msg}")]
pub struct SmTopError {
    pub cfg: String,
    pub msg: String,
}

/// `impl SmTop<MW, NS, ..> { body }` (with `Block for;` first: `impl Block
/// for SmTop<..>`) with the SM's type parameters: the steps of one
/// evaluation are methods in this module's files.
macro_rules! sm_impl {
    (@impl [$($tr:tt)*] $($body:tt)*) => {
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
            > $($tr)* SmTop<MW, NS, LW, IE, NC, G, NL, A, LB, SA, SB>
        {
            $($body)*
        }
    };
    (Block for; $($body:tt)*) => {
        sm_impl! { @impl [Block for] $($body)* }
    };
    ($($body:tt)*) => {
        sm_impl! { @impl [] $($body)* }
    };
}

// The steps, by responsibility (after `sm_impl`, which they use).
mod dispatch;
mod errors;
mod exec;
mod frontend;
mod gpucc;
mod memory;
mod monitors;

sm_impl! {
    /// The SM of `cfg` (the caller picked the type parameters from `cfg`,
    /// see [`with_sm`]).
    pub fn new(cfg: &SmConfig) -> Result<Self, SmTopError> {
        let e = |msg: String| SmTopError {
            cfg: cfg.name.clone(),
            msg,
        };
        if cfg.warp_schedulers as usize != NS {
            return Err(e(format!(
                "warp_schedulers = {} for an SM top of {NS} schedulers (one SP group each)",
                cfg.warp_schedulers
            )));
        }
        if cfg.icache_line_bytes as usize != IM_WORDS * 8 {
            return Err(e(format!(
                "icache_line_bytes = {}: the SM top fetches 64-byte lines",
                cfg.icache_line_bytes
            )));
        }
        let geom = crate::units::regfile::RfGeom::from_config(cfg).map_err(|x| e(x.to_string()))?;
        let oc = Opcoll::<G, NL, A>::new(geom).map_err(|x| e(x.to_string()))?;
        let spg = SpGeom::of(cfg);
        let (sp, sp_ln) = if cfg.gpucc.is_some() {
            let g: Result<Vec<SpGroup<1, 16>>, _> = (0..NS).map(|_| SpGroup::<1, 16>::with_lanes(spg)).collect();
            (Vec::new(), g.map_err(|x| e(x.to_string()))?)
        } else {
            ((0..NS).map(|_| SpGroup::new(spg)).collect(), Vec::new())
        };
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
        if cfg.gm_requesters != 1 {
            // The LSU is the SM's only global-memory requester; the L1 and
            // the arbiter take more as blocks (`smrtl sim l1`), the SM
            // wires them when a second requester exists.
            return Err(e(format!(
                "gm_requesters = {}: the SM has one global-memory requester (its LSU)",
                cfg.gm_requesters
            )));
        }
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
        let gc = match cfg.gpucc {
            Some(_) => Some(gpucc::GcParts::new(cfg, &mut d).map_err(e)?),
            None => None,
        };
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
            ibuf: Ibuffer::<MW, NS, IE>::with_gpucc(cfg.fp64_rate_divisor > 0, gc.is_some()),
            sb: Scoreboard::new(),
            pf: Predfile::new(),
            sched: (0..NS).map(|s| Sched::new(SchedParams::of(cfg, s as u32))).collect(),
            sched_names: (0..NS).map(|s| format!("u_sched{s}")).collect(),
            simt,
            bar: Barrier::new(),
            oc,
            sp,
            sp_ln,
            sp_names: (0..NS).map(|g| format!("u_sp{g}")).collect(),
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
            gc,
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
    // The warp shape first (the registry every shaped block uses), then the
    // SM top's own geometry: one arm per preset geometry, because every arm
    // is a whole monomorphized SM.
    crate::shapes::WarpShape::of(cfg, "SM top")?;
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

/// The zero constants the steps share, made first (in this order) so that
/// every evaluation builds the same graph.
struct Zeros<B: Backend> {
    z1: B::S<1>,
    z3: B::S<3>,
    z4: B::S<4>,
    z7: B::S<7>,
    z8: B::S<8>,
    z6: B::S<6>,
    z32: B::S<32>,
}

impl<B: Backend> Zeros<B> {
    fn new<C: Ctx<B = B>>(cx: &mut C) -> Self {
        let z1 = cx.lit::<1>(0);
        let (z3, z4, z7, z8) = (cx.lit::<3>(0), cx.lit::<4>(0), cx.lit::<7>(0), cx.lit::<8>(0));
        let z6 = cx.lit::<6>(0);
        let z32 = cx.lit::<32>(0);
        Zeros {
            z1,
            z3,
            z4,
            z7,
            z8,
            z6,
            z32,
        }
    }
}

/// The children in the ring, begun ([`Ctx::instance_begin`]): each one's
/// handle and its outputs, of which only the Moore ones may be read before
/// the step that ends it.
struct Ring<B: Backend, const MW: usize, const NS: usize> {
    h_cta: Pending,
    cta: CtaOut<B, MW>,
    h_ib: Pending,
    ib: IbOut<B, MW>,
    h_pf: Pending,
    pf: PfOut<B, MW>,
    h_bar: Pending,
    bar: BarOut<B, MW>,
    h_simt: Pending,
    simt: SimtOut<B, MW>,
    h_sb: Pending,
    sb: SbOut<B, MW>,
    h_wb: Pending,
    wb: WbOut<B, NS>,
    h_oc: Pending,
    oc: OpcollOut<B>,
    /// One per SP group (`NS`).
    h_sp: SmallBuf<Pending, NS>,
    spo: SmallBuf<SpGroupOut<B>, NS>,
    /// With GPU-CC, each group's lane-port results (`ln<i>_*_o`).
    spln: SmallBuf<[crate::units::sp::SpLnOut<B>; 16], NS>,
    h_sfu: Pending,
    sfu: SfuOut<B>,
    /// None without an FP64 unit; `dpu` is then constant zero.
    h_dpu: Option<Pending>,
    dpu: DpuOut<B>,
    h_lsu: Pending,
    lsu: LsuOut<B>,
    h_smem: Pending,
    smem: SmemOut<B>,
    /// The IMUL delay table (GT200/Tesla) and its `full_o`.
    h_imd: Option<Pending>,
    imd_full: Option<B::S<1>>,
}

impl<B: Backend, const MW: usize, const NS: usize> Ring<B, MW, NS> {
    /// SP group `g`'s `ready_o`; `z1` for a group this SM does not have.
    fn sp_ready(&self, g: usize, z1: B::S<1>) -> B::S<1> {
        self.spo.get(g).map_or(z1, |o| o.out.ready)
    }
}

/// Element `k` of a per-scheduler list, `zero` past its end (the ports
/// have slots for [`crate::codes::MAX_SCHEDULERS`]).
fn slot<T: Copy>(v: &[T], k: usize, zero: T) -> T {
    v.get(k).copied().unwrap_or(zero)
}

sm_impl! {
    /// Begin every child of the ring, in instance order.
    fn begin_ring<C: Ctx>(&self, cx: &mut C) -> Ring<C::B, MW, NS> {
        let (h_cta, cta) = cx.instance_begin("u_cta", &self.cta);
        let (h_ib, ib) = cx.instance_begin("u_ibuf", &self.ibuf);
        let (h_pf, pf) = cx.instance_begin("u_pf", &self.pf);
        let (h_bar, bar) = cx.instance_begin("u_bar", &self.bar);
        let (h_simt, simt) = cx.instance_begin("u_simt", &self.simt);
        let (h_sb, sb) = cx.instance_begin("u_sb", &self.sb);
        let (h_wb, wb) = cx.instance_begin("u_wb", &self.wb);
        let (h_oc, oc) = cx.instance_begin("u_oc", &self.oc);
        let mut h_sp = SmallBuf::new();
        let mut spo = SmallBuf::new();
        let mut spln = SmallBuf::new();
        for (grp, name) in self.sp.iter().zip(&self.sp_names) {
            let (h, o) = cx.instance_begin(name, grp);
            h_sp.push(h);
            spo.push(o);
        }
        for (grp, name) in self.sp_ln.iter().zip(&self.sp_names) {
            let (h, o) = cx.instance_begin(name, grp);
            h_sp.push(h);
            spo.push(SpGroupOut { out: o.out, ln: [] });
            spln.push(o.ln);
        }
        let (h_sfu, sfu) = cx.instance_begin("u_sfu", &self.sfu);
        let dpu_b = self.dpu.as_ref().map(|d| cx.instance_begin("u_dpu", d));
        let dpu: DpuOut<C::B> = match &dpu_b {
            Some((_, o)) => *o,
            None => <DpuOut<C::B> as crate::hdl::Ports<C::B>>::build(&mut crate::hdl::block::ZeroPorts),
        };
        let (h_lsu, lsu) = cx.instance_begin("u_lsu", &self.lsu);
        let (h_smem, smem) = cx.instance_begin("u_smem", &self.smem);
        let imd_b = self.imd.as_ref().map(|d| cx.instance_begin("u_imd", d));
        Ring {
            h_cta,
            cta,
            h_ib,
            ib,
            h_pf,
            pf,
            h_bar,
            bar,
            h_simt,
            simt,
            h_sb,
            sb,
            h_wb,
            wb,
            h_oc,
            oc,
            h_sp,
            spo,
            spln,
            h_sfu,
            sfu,
            h_dpu: dpu_b.map(|(h, _)| h),
            dpu,
            h_lsu,
            lsu,
            h_smem,
            smem,
            h_imd: imd_b.as_ref().map(|(h, _)| *h),
            imd_full: imd_b.map(|(_, o)| o.full_o),
        }
    }
}

sm_impl! {
    Block for;
    type In<B: Backend> = SmIn<B>;
    type Out<B: Backend> = SmOut<B>;
    fn module_name(&self) -> String {
        self.name.clone()
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    /// One evaluation, in the order the graph is built (the emitted
    /// Verilog follows it): the ring's children begun, the front end
    /// (readiness, schedulers, control ops, fetch), then every child ended
    /// with its inputs, the first-error latch and the monitors.
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SmIn<C::B>) -> SmOut<C::B> {
        let z = Zeros::new(cx);
        let err_q = cx.q(self.err.v);
        let r = self.begin_ring(cx);
        let gr = self.gc_begin(cx, &r);
        // Front end: who may issue, the schedulers, their control ops.
        let rd = self.readiness(cx, &r, err_q, gr.as_ref(), &z);
        let (so, sp_wait_q) = self.schedulers(cx, &r, &rd, &z);
        let ctl = self.control_ops(cx, &so, &rd);
        let mem_idle = self.mem_inflight(cx, &r, &so);
        let ifo = self.fetch(cx, i, &r, gr.as_ref().map(|g| g.mode));
        // End the ring: front end, collectors, units, memory, write-back.
        let conv = self.end_control(cx, i, &r, &so, &ctl, mem_idle, &z);
        self.end_issue_state(cx, &r, &so, &ifo);
        let oc_r = self.dispatch(cx, &r, &so, sp_wait_q, &z);
        let gd = gr.as_ref().map(|_| self.gc_dispatch(cx, &r, &so, &oc_r, &z));
        let gcset = gd.as_ref().map(|g| g.gcset);
        self.end_units(cx, &r, &oc_r, gr.as_ref().zip(gcset));
        let gm = self.memory(cx, i, &r, &oc_r, gr.as_ref());
        let gco = match (gr.as_ref(), gd.as_ref(), gm.l1.as_ref()) {
            (Some(g), Some(d), Some(l1)) => Some(self.gc_end(cx, &r, g, d, &so, &oc_r, &conv, l1, i.gm_size_i, &z)),
            _ => None,
        };
        self.write_back(cx, &r, &oc_r, ctl.s2r_any, gcset, &z);
        // First error, stall causes, outputs.
        self.first_error(cx, &r, &ifo, &so, err_q, gco.as_ref(), &z);
        let stall = self.stall_causes(cx, &r, &so, &rd, z.z1);
        self.outputs(cx, &r, &ifo, &gm, &so, &stall, err_q, gco.as_ref(), &z)
    }
}
