//! `smrtl run --rtl`: a kernel on the RTL SM ([`SmTop`]), lock-step against
//! the golden model, with the host models (instruction memory, global
//! memory) around it, waves and a performance report.
//!
//! * Host sequence: parameter words written one per core cycle
//!   (`param_*`), then a launch pulse; the run ends when `done_o` rises,
//!   on the first error of the SM, on the first divergence from the golden
//!   model, or at the cycle budget (error code 11).
//! * Lock-step: every issue on `iss<s>_*` steps the golden model's warp of
//!   the same CTA (multi-CTA mode, `Golden::step_cta_warp`) and compares pc
//!   and lanes; the golden record of an instruction that writes back is
//!   kept until the SM retires it on `ret<w>_*`, where the lanes and values
//!   are compared bit for bit. Control instructions complete at issue.
//!   RTL warp slots map to (CTA, warp in CTA) through the warp-start
//!   monitor: the CTA launcher starts the CTAs of the grid in linear order
//!   and the warps of a CTA in order.
//! * The golden model executes a warp instruction when the RTL issues it,
//!   the RTL memory instruction executes later in its LSU; kernels whose
//!   result depends on the interleaving of unsynchronised accesses of
//!   different warps (data races, the order of global atomics) can differ
//!   there: the values an atomic returns are compared only where the
//!   kernel's semantics fixes them (docs/sm.md, "Lock-step checking").
//! * Values the kernel does not fix are taken from the RTL instead of
//!   compared ([`adopted_lanes`]): `S2R SR_CLOCK` (core cycles in the SM,
//!   the warp's instruction count in the golden model) and shared-memory
//!   reads of words their CTA never wrote (undefined at CTA start; counted
//!   and listed in the report, an error with
//!   [`RtlOptions::strict_init`]). The golden model gets the RTL's value
//!   at write-back, so what the kernel computes from it is still checked.

use crate::golden::isa::{Op, Program, Sreg};
use crate::golden::model::{Golden, Launch, Reason, Retired, UninitReads, Write};
use crate::hdl::{Bits, Concrete};
use crate::config::SmConfig;
use crate::sm::top::{units_present, SmIn, SmOut, ERR_SOURCES, IM_WORDS, STALL_NAMES, UNIT_BUSY_NAMES};
use crate::testbenches::gmem::{GmReq, Gmem, GmemConfig};
use crate::testbenches::imem::Imem;
use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::path::PathBuf;

/// A simulation of the SM of some preset, behind one interface.
pub trait SmSim {
    /// One core cycle: outputs of the cycle, then both edges.
    fn step_core(&mut self, i: &SmIn<Concrete>) -> SmOut<Concrete>;
    /// Start writing waves.
    fn open_vcd(&mut self, path: &std::path::Path) -> std::io::Result<()>;
    /// Stop writing waves (flushes).
    fn close_vcd(&mut self) -> std::io::Result<()>;
    /// Verilog module name of the top.
    fn top_name(&self) -> String;
    /// A difference found by a checking engine (Verilator lock-step).
    fn failure(&mut self) -> Option<String> {
        None
    }
    /// What simulates, for the report.
    fn engine(&self) -> String {
        "Rust model".into()
    }
    /// The elaborated design whose VCD [`SmSim::open_vcd`] writes, when it
    /// writes one with the simulator's names (the SM's save file needs it).
    fn design(&self) -> Option<&crate::hdl::Design> {
        None
    }
}

/// What simulates the SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The Rust model (`hdl::Sim`).
    #[default]
    Rust,
    /// The Verilated export alone.
    Verilator,
    /// Both, every output compared every hot cycle.
    Lockstep,
}

impl<K> SmSim for crate::hdl::Sim<K>
where
    K: crate::hdl::Block<In<Concrete> = SmIn<Concrete>, Out<Concrete> = SmOut<Concrete>>,
{
    fn step_core(&mut self, i: &SmIn<Concrete>) -> SmOut<Concrete> {
        crate::hdl::Sim::step_core(self, i)
    }
    fn open_vcd(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        crate::hdl::Sim::open_vcd(self, path)
    }
    fn close_vcd(&mut self) -> std::io::Result<()> {
        crate::hdl::Sim::close_vcd(self)
    }
    fn top_name(&self) -> String {
        crate::hdl::Block::module_name(self.block())
    }
    fn design(&self) -> Option<&crate::hdl::Design> {
        Some(crate::hdl::Sim::design(self))
    }
}

/// Options of a run.
#[derive(Debug, Clone)]
pub struct RtlOptions {
    /// Core-cycle budget (error 11 when exhausted).
    pub max_cycles: u64,
    /// Waves of the whole SM.
    pub vcd: Option<PathBuf>,
    /// Only these core cycles (inclusive from, exclusive to).
    pub vcd_window: Option<(u64, u64)>,
    /// Check against the golden model (default on).
    pub check: bool,
    /// Global memory timing (default: the preset's).
    pub gmem: Option<GmemConfig>,
    /// Print a progress line every this many core cycles (0: never).
    pub progress: u64,
    /// Rust model, Verilated export, or both in lock-step.
    pub engine: Engine,
    /// A shared-memory read of a word its CTA never wrote stops the run
    /// with an error (default: counted and listed in the report). Needs
    /// `check`.
    pub strict_init: bool,
}

impl Default for RtlOptions {
    fn default() -> Self {
        RtlOptions {
            max_cycles: 5_000_000,
            vcd: None,
            vcd_window: None,
            check: true,
            gmem: None,
            progress: 0,
            engine: Engine::Rust,
            strict_init: false,
        }
    }
}

/// What a run measured.
#[derive(Debug, Clone, Default)]
pub struct RtlReport {
    pub config: String,
    pub kernel: String,
    pub core_cycles: u64,
    /// Warp instructions issued, per scheduler.
    pub issued: [u64; 2],
    /// Thread instructions (lanes of every issue).
    pub thread_instrs: u64,
    /// Per scheduler, cycles per stall cause ([`STALL_NAMES`]).
    pub stall: [[u64; 8]; 2],
    /// Cycles each unit was not ready ([`UNIT_BUSY_NAMES`]).
    pub unit_busy: [u64; 5],
    /// Retired (written-back) instructions.
    pub retired: u64,
    /// Instructions checked against the golden model.
    pub checked: u64,
    /// Shared-memory reads of words their CTA never wrote, as the golden
    /// model counted them (undefined: the RTL's values are accepted,
    /// [`Retired::undef`]).
    pub uninit: UninitReads,
    /// What simulated the SM ([`SmSim::engine`]).
    pub engine: String,
    pub rf_read_conflicts: u64,
    pub rf_write_preempt: u64,
    pub oc_dispatch_stalls: u64,
    pub wb_waits: u64,
    pub icache_hits: u64,
    pub icache_misses: u64,
    pub gm_requests: u64,
    pub smem_conflict_passes: u64,
    /// L1 data cache line reads that hit / missed (0 without an L1).
    pub l1_hits: u64,
    pub l1_misses: u64,
    pub has_l1: bool,
    /// The most CTAs resident at once.
    pub resident_ctas: u64,
    /// CTAs of this kernel the SM can hold (the launcher's occupancy).
    pub occupancy: u64,
    /// The SM has an FP64 unit (the report lists `dpu`).
    pub has_dpu: bool,
    pub max_resident_warps: u64,
    pub sp_lanes: u32,
    pub schedulers: u32,
}

impl RtlReport {
    /// Human-readable report.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let c = self.core_cycles.max(1) as f64;
        let issued: u64 = self.issued.iter().sum();
        let hot = 2 * self.core_cycles;
        let _ = writeln!(s, "kernel {} on the RTL SM `{}`", self.kernel, self.config);
        let _ = writeln!(s, "  cycles: {} core, {} hot", self.core_cycles, hot);
        if !self.engine.is_empty() {
            let _ = writeln!(s, "  engine: {}", self.engine);
        }
        let _ = writeln!(
            s,
            "  IPC: {:.3} warp instructions per core cycle (peak {}), {:.2} thread instructions per hot cycle (SP peak {})",
            issued as f64 / c,
            self.schedulers,
            self.thread_instrs as f64 / hot.max(1) as f64,
            self.sp_lanes
        );
        let _ = writeln!(
            s,
            "  issued {} warp instructions, {} thread instructions; retired {}; checked against the golden model: {}",
            issued, self.thread_instrs, self.retired, self.checked
        );
        for l in self
            .uninit
            .render("the RTL's values were accepted and handed to the golden model")
            .lines()
        {
            let _ = writeln!(s, "  {l}");
        }
        for k in 0..self.schedulers as usize {
            let _ = write!(s, "  scheduler {k} cycles:");
            for (n, name) in STALL_NAMES.iter().enumerate() {
                if self.stall[k][n] > 0 {
                    let _ = write!(
                        s,
                        " {name} {} ({:.1}%)",
                        self.stall[k][n],
                        100.0 * self.stall[k][n] as f64 / c
                    );
                }
            }
            let _ = writeln!(s);
        }
        let _ = write!(s, "  unit busy (not ready):");
        for n in units_present(self.schedulers, self.has_dpu) {
            let _ = write!(
                s,
                " {} {:.1}%",
                UNIT_BUSY_NAMES[n],
                100.0 * self.unit_busy[n] as f64 / c
            );
        }
        let _ = writeln!(s);
        let _ = writeln!(
            s,
            "  register file: {} bank-conflict read cycles, {} reads pre-empted by writes; {} dispatch stalls; {} write-back waits",
            self.rf_read_conflicts, self.rf_write_preempt, self.oc_dispatch_stalls, self.wb_waits
        );
        let _ = writeln!(
            s,
            "  shared memory: {} extra conflict passes; global memory: {} transactions; instruction cache: {} hits, {} misses",
            self.smem_conflict_passes, self.gm_requests, self.icache_hits, self.icache_misses
        );
        if self.has_l1 {
            let n = self.l1_hits + self.l1_misses;
            let _ = writeln!(
                s,
                "  L1 data cache: {} line reads hit, {} missed ({:.1}% hits)",
                self.l1_hits,
                self.l1_misses,
                if n == 0 {
                    0.0
                } else {
                    100.0 * self.l1_hits as f64 / n as f64
                }
            );
        }
        let _ = writeln!(
            s,
            "  occupancy: at most {} resident CTAs at once (the kernel fits {} on the SM), at most {} resident warps",
            self.resident_ctas, self.occupancy, self.max_resident_warps
        );
        s
    }
}

/// A failed run: where and why, the report so far and the memory image.
#[derive(Debug, Clone)]
pub struct RtlError {
    pub cycle: u64,
    pub msg: String,
    pub report: RtlReport,
    pub gmem: Vec<u8>,
}

impl std::fmt::Display for RtlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RTL SM, core cycle {}: {}", self.cycle, self.msg)
    }
}
impl std::error::Error for RtlError {}

/// A successful run.
#[derive(Debug, Clone)]
pub struct RtlResult {
    pub report: RtlReport,
    pub gmem: Vec<u8>,
}

fn b<const W: usize>(v: u64) -> Bits<W> {
    Bits::new(v)
}

fn lanes(v: &[Bits<1>; 32]) -> u32 {
    (0..32).fold(0u32, |a, k| a | (v[k].to_u64() as u32) << k)
}

/// An instruction issued and not yet retired: the golden record.
struct Pending {
    pc: u32,
    write: Option<Write>,
    active: u32,
    /// Lanes whose values are taken from the RTL ([`adopted_lanes`]).
    adopt: u32,
    op: Op,
}

/// Lanes of `r` whose values the checker takes from the RTL at write-back
/// instead of comparing them: those that read a shared word their CTA never
/// wrote ([`Retired::undef`]), and every lane of `S2R SR_CLOCK`, which
/// counts core cycles in the SM and the warp's instructions in the golden
/// model (docs/isa.md).
fn adopted_lanes(r: &Retired) -> u32 {
    let clock = r.instr.op == Op::S2r && Sreg::from_bits(r.instr.e) == Some(Sreg::Clock);
    r.undef | if clock { r.active } else { 0 }
}

/// Hand the RTL's values of the adopted lanes of `p` ([`adopted_lanes`])
/// to warp `wic` of CTA `cta` in the golden model (`lo`, `hi`: the
/// write-back's low and high words per lane).
fn adopt_rtl_values(
    golden: &mut Golden,
    cta: u32,
    wic: usize,
    p: &Pending,
    lo: &dyn Fn(usize) -> u32,
    hi: &dyn Fn(usize) -> u32,
) {
    for l in (0..32).filter(|l| (p.adopt & p.active) >> l & 1 == 1) {
        match &p.write {
            Some(Write::Reg { reg, .. }) => {
                golden.set_cta_reg(cta, wic, *reg, l, lo(l));
            }
            Some(Write::Atom { reg, .. }) if *reg != crate::golden::isa::RZ => {
                golden.set_cta_reg(cta, wic, *reg, l, lo(l));
            }
            Some(Write::RegPair { reg, .. }) => {
                golden.set_cta_reg(cta, wic, *reg, l, lo(l));
                golden.set_cta_reg(cta, wic, *reg + 1, l, hi(l));
            }
            _ => {}
        }
    }
}

/// Map RTL warp slots to (CTA, warp in CTA) from the warp starts.
#[derive(Default)]
struct WarpMap {
    /// Per CTA slot: (CTA linear id, warps started).
    slot: BTreeMap<u64, (u32, usize)>,
    next_cta: u32,
    warp: BTreeMap<u64, (u32, usize)>,
}

impl WarpMap {
    fn start(&mut self, warp: u64, slot: u64, per_cta: usize) -> (u32, usize) {
        let e = self.slot.entry(slot).or_insert((u32::MAX, per_cta));
        if e.1 >= per_cta {
            *e = (self.next_cta, 0);
            self.next_cta += 1;
        }
        let m = (e.0, e.1);
        e.1 += 1;
        self.warp.insert(warp, m);
        m
    }
}

/// Run `prog` with `launch` on the RTL SM `sim` of `cfg`.
pub fn run_rtl(
    sim: &mut dyn SmSim,
    cfg: &SmConfig,
    prog: &Program,
    launch: &Launch,
    gmem_init: Vec<u8>,
    opts: &RtlOptions,
) -> Result<RtlResult, Box<RtlError>> {
    let mut rep = RtlReport {
        config: cfg.name.clone(),
        kernel: prog.name.clone(),
        sp_lanes: cfg.sp_lanes,
        schedulers: cfg.warp_schedulers,
        has_l1: cfg.l1_bytes > 0,
        has_dpu: cfg.has_dpu(),
        ..RtlReport::default()
    };
    let fail = |cycle: u64, msg: String, rep: &RtlReport, mem: &[u8]| {
        Box::new(RtlError {
            cycle,
            msg,
            report: rep.clone(),
            gmem: mem.to_vec(),
        })
    };
    let mut golden = match Golden::new(cfg, prog, launch, gmem_init.clone()) {
        Ok(g) => g,
        Err(e) => return Err(fail(0, format!("launch rejected: {e}"), &rep, &gmem_init)),
    };
    golden.set_strict_init(opts.strict_init);
    if prog.code.len() > u16::MAX as usize {
        return Err(fail(
            0,
            "program longer than 65,535 instructions".into(),
            &rep,
            &gmem_init,
        ));
    }
    // The launch ports' widths (`SmIn`, src/units/cta): a dimension that
    // does not fit would be cut silently by the hardware.
    for (what, v, bits) in [
        ("grid x", launch.grid[0], 16),
        ("grid y", launch.grid[1], 16),
        ("block x", launch.block[0], 11),
        ("block y", launch.block[1], 11),
        ("block z", launch.block[2], 7),
        ("shared bytes", prog.shared_bytes, 17),
    ] {
        if v >> bits != 0 {
            return Err(fail(
                0,
                format!(
                    "launch rejected: {what} = {v} does not fit the SM's {bits}-bit launch port (at most {})",
                    (1u32 << bits) - 1
                ),
                &rep,
                &gmem_init,
            ));
        }
    }
    if launch.params.len() > 256 {
        return Err(fail(0, "more than 256 parameter words".into(), &rep, &gmem_init));
    }
    let words: Vec<u64> = prog.code.iter().map(|i| i.encode()).collect();
    let mut imem = Imem::new(words, IM_WORDS, cfg.imem_latency);
    let gcfg = opts.gmem.unwrap_or_else(|| GmemConfig::of(cfg));
    let mut gmem = Gmem::new(gcfg, gmem_init);
    let threads = launch.block.iter().product::<u32>() as usize;
    let per_cta = threads.div_ceil(32);
    let mut map = WarpMap::default();
    let mut pend: BTreeMap<u64, VecDeque<Pending>> = BTreeMap::new();
    let mut vcd_open = false;
    let vcd_path = opts.vcd.clone();
    if let (Some(p), None) = (&vcd_path, opts.vcd_window) {
        if let Err(e) = sim.open_vcd(p) {
            return Err(fail(0, format!("cannot write {}: {e}", p.display()), &rep, &gmem.mem));
        }
        vcd_open = true;
    }
    // VCD time of the first issue in the waves (4 time units a core cycle).
    let first_issue = std::cell::Cell::new(None::<u64>);
    // Also records the engine line of the report (once per stop, not per
    // cycle) and writes the SM's save file beside the VCD.
    let close = |sim: &mut dyn SmSim, open: &mut bool, rep: &mut RtlReport| {
        rep.engine = sim.engine();
        if *open {
            let _ = sim.close_vcd();
            *open = false;
            if let (Some(p), Some(d)) = (&vcd_path, sim.design()) {
                if let Err(e) = crate::sm::waves::write_sm_gtkw(p, d, cfg, prog, first_issue.get()) {
                    eprintln!("the SM's save file was not written: {e}");
                }
            }
        }
    };
    let nparams = launch.params.len() as u64;
    let mut launched = false;
    // The golden model's error at an instruction the RTL issued (cycle,
    // warp slot, pc, message): the RTL must raise its own error within
    // `GOLDEN_ERR_GRACE` core cycles (an LSU or SP error surfaces after
    // dispatch, not at issue); checking stops there.
    let mut golden_stop: Option<(u64, u64, u32, String)> = None;
    let mut cycle: u64 = 0;
    loop {
        if let (Some(p), Some((from, to))) = (&vcd_path, opts.vcd_window) {
            if cycle == from && !vcd_open {
                if let Err(e) = sim.open_vcd(p) {
                    return Err(fail(
                        cycle,
                        format!("cannot write {}: {e}", p.display()),
                        &rep,
                        &gmem.mem,
                    ));
                }
                vcd_open = true;
            }
            if cycle == to {
                close(sim, &mut vcd_open, &mut rep);
            }
        }
        if let Some((c0, _, _, m)) = &golden_stop {
            if cycle > c0 + GOLDEN_ERR_GRACE {
                close(sim, &mut vcd_open, &mut rep);
                return Err(fail(
                    cycle,
                    format!("divergence: the golden model stops at {m}, but the RTL raised no error within {GOLDEN_ERR_GRACE} core cycles"),
                    &rep,
                    &gmem.mem,
                ));
            }
        }
        if cycle >= opts.max_cycles {
            close(sim, &mut vcd_open, &mut rep);
            let golden_says = match &golden_stop {
                Some((_, _, _, m)) => format!("; the golden model had stopped at {m}"),
                None => String::new(),
            };
            return Err(fail(
                cycle,
                format!(
                    "error 11: cycle budget of {} core cycles exhausted (the kernel never finished); {} warp instructions issued{golden_says}",
                    opts.max_cycles,
                    rep.issued.iter().sum::<u64>()
                ),
                &rep,
                &gmem.mem,
            ));
        }
        if opts.progress > 0 && cycle > 0 && cycle % opts.progress == 0 {
            eprintln!(
                "  ... core cycle {cycle}, {} warp instructions",
                rep.issued.iter().sum::<u64>()
            );
        }
        let mut i: SmIn<Concrete> = crate::hdl::sim::zero_ports();
        i.plen_i = b(prog.code.len() as u64);
        i.gm_size_i = b(gmem.mem.len().min(u32::MAX as usize) as u64);
        if cycle < nparams {
            i.param_we_i = b(1);
            i.param_addr_i = b(cycle);
            i.param_data_i = b(launch.params[cycle as usize] as u64);
        } else if !launched {
            i.launch_valid_i = b(1);
            i.launch_grid_x_i = b(launch.grid[0] as u64);
            i.launch_grid_y_i = b(launch.grid[1] as u64);
            i.launch_block_x_i = b(launch.block[0] as u64);
            i.launch_block_y_i = b(launch.block[1] as u64);
            i.launch_block_z_i = b(launch.block[2] as u64);
            i.launch_nregs_i = b(prog.regs as u64);
            i.launch_smem_i = b(prog.shared_bytes as u64);
        }
        i.im_req_ready_i = b(imem.ready() as u64);
        if let Some(line) = imem.resp() {
            i.im_resp_valid_i = b(1);
            for (k, w) in line.iter().enumerate() {
                i.im_resp_data_i[k] = b(*w);
            }
        }
        i.gm_req_ready_i = b(gmem.ready() as u64);
        if let Some(r) = gmem.response() {
            i.gm_resp.valid = b(1);
            i.gm_resp.id = b(r.id as u64);
            for k in 0..32 {
                i.gm_resp.rdata[k] = b(r.rdata[k] as u64);
            }
        }
        let o = sim.step_core(&i);
        if let Some(f) = sim.failure() {
            close(sim, &mut vcd_open, &mut rep);
            return Err(fail(cycle, f, &rep, &gmem.mem));
        }
        if cycle == nparams && !launched && i.launch_valid_i.to_u64() == 1 {
            launched = true;
        }
        // Host models see the edge.
        let im_req = (o.im_req_valid_o.to_u64() == 1 && imem.ready()).then(|| o.im_req_addr_o.to_u64() as u32);
        imem.edge(im_req);
        let gm_req = (o.gm_req.valid.to_u64() == 1 && gmem.ready()).then(|| GmReq {
            id: o.gm_req.id.to_u64() as u8,
            write: o.gm_req.write.to_u64() == 1,
            atom: o.gm_req.atom.to_u64() as u8,
            addr: o.gm_req.addr.to_u64() as u32,
            size: o.gm_req.size.to_u64() as u8,
            wmask: lanes(&o.gm_req.wmask),
            wdata: std::array::from_fn(|k| o.gm_req.wdata[k].to_u64() as u32),
        });
        gmem.edge(gm_req.as_ref());
        if let Some(e) = gmem.errors.first() {
            close(sim, &mut vcd_open, &mut rep);
            return Err(fail(cycle, format!("global memory model: {e}"), &rep, &gmem.mem));
        }
        if o.err_o.to_u64() == 1 {
            close(sim, &mut vcd_open, &mut rep);
            let src = ERR_SOURCES.get(o.err_src_o.to_u64() as usize).copied().unwrap_or("?");
            let w = o.err_warp_o.to_u64();
            let place = match map.warp.get(&w) {
                Some((c, k)) => format!("cta {c} warp {k} (slot {w})"),
                None => format!("warp slot {w}"),
            };
            let epc = o.err_pc_o.to_u64();
            let golden_says = match &golden_stop {
                Some((_, gw, gpc, m)) if *gw == w && *gpc as u64 == epc => {
                    format!("; the golden model stops there too: {m}")
                }
                Some((_, _, _, m)) => format!("; divergence: the golden model stopped first, at {m}"),
                None => String::new(),
            };
            return Err(fail(
                cycle + 1,
                format!(
                    "error {} ({}) raised by {src}, {place}, pc {epc}, info {:#x}{golden_says}",
                    o.err_code_o.to_u64(),
                    crate::sm::top::error_name(o.err_code_o.to_u64()),
                    o.err_info_o.to_u64()
                ),
                &rep,
                &gmem.mem,
            ));
        }
        // Monitors.
        if o.st_valid_o.to_u64() == 1 {
            let slot = o.st_cta_o.to_u64();
            map.start(o.st_warp_o.to_u64(), slot, per_cta);
            // The launcher fills the lowest free CTA slot (src/units/cta), so
            // a CTA in slot k means slots 0..=k are all resident.
            rep.resident_ctas = rep.resident_ctas.max((slot + 1).min(map.next_cta as u64));
        }
        for (s, (v, tag, mask, psw)) in [
            (o.iss0_valid_o, o.iss0_tag_o, o.iss0_mask_o, o.iss0_psw_o),
            (o.iss1_valid_o, o.iss1_tag_o, o.iss1_mask_o, o.iss1_psw_o),
        ]
        .into_iter()
        .enumerate()
        {
            if v.to_u64() == 0 {
                continue;
            }
            let tag = tag.to_u64();
            let (w, pc) = (tag & 63, (tag >> 16) as u32);
            let m = lanes(&mask);
            if vcd_open && first_issue.get().is_none() {
                first_issue.set(Some(4 * cycle));
            }
            rep.issued[s] += 1;
            rep.thread_instrs += m.count_ones() as u64;
            let op = prog.code.get(pc as usize).map(|x| x.op).unwrap_or(Op::Nop);
            let unit = op.unit();
            let ctrl = unit == crate::golden::isa::Unit::Ctrl && op != Op::S2r;
            let mut rec = Pending {
                pc,
                write: None,
                active: m,
                adopt: 0,
                op,
            };
            if opts.check && golden_stop.is_none() {
                let Some(&(cta, wic)) = map.warp.get(&w) else {
                    close(sim, &mut vcd_open, &mut rep);
                    return Err(fail(
                        cycle,
                        format!("warp slot {w} issued pc {pc} but was never started"),
                        &rep,
                        &gmem.mem,
                    ));
                };
                let r = match golden.step_cta_warp(cta, wic) {
                    Ok(r) => r,
                    Err(e) if matches!(e.reason, Reason::UninitShared { .. }) => {
                        close(sim, &mut vcd_open, &mut rep);
                        return Err(fail(cycle, format!("{e} (--strict-init)"), &rep, &gmem.mem));
                    }
                    Err(e) => {
                        golden_stop = Some((cycle, w, pc, e.to_string()));
                        if !ctrl {
                            pend.entry(w).or_default().push_back(rec);
                        }
                        continue;
                    }
                };
                if r.pc != pc || r.active != m {
                    close(sim, &mut vcd_open, &mut rep);
                    return Err(fail(
                        cycle,
                        format!(
                            "divergence at issue: cta {cta} warp {wic} (slot {w}): RTL pc {pc} lanes {m:08x}, golden pc {} lanes {:08x} ({})",
                            r.pc,
                            r.active,
                            crate::golden::asm::format_instr(&r.instr, None)
                        ),
                        &rep,
                        &gmem.mem,
                    ));
                }
                // PSETP writes its predicate at issue: compare it here.
                if let (Op::Psetp, Some(Write::Pred { values, .. })) = (op, &r.write) {
                    let got = psw.to_u64() as u32 & m;
                    if got != values & m {
                        close(sim, &mut vcd_open, &mut rep);
                        return Err(fail(
                            cycle,
                            format!(
                                "divergence at issue: cta {cta} warp {wic} (slot {w}) pc {pc} PSETP: predicate lanes RTL {got:08x}, golden {:08x}",
                                values & m
                            ),
                            &rep,
                            &gmem.mem,
                        ));
                    }
                }
                rep.checked += 1;
                if r.undef != 0 {
                    rep.uninit = golden.stats().uninit.clone();
                }
                rec.adopt = adopted_lanes(&r);
                rec.write = r.write;
                rec.active = r.active;
            }
            if !ctrl {
                pend.entry(w).or_default().push_back(rec);
            }
        }
        for (v, tag, mask, lo, hi) in [
            (o.ret0_valid_o, o.ret0_tag_o, o.ret0_mask_o, o.ret0_lo_o, o.ret0_hi_o),
            (o.ret1_valid_o, o.ret1_tag_o, o.ret1_mask_o, o.ret1_lo_o, o.ret1_hi_o),
        ] {
            if v.to_u64() == 0 {
                continue;
            }
            rep.retired += 1;
            let tag = tag.to_u64();
            let (w, pc, kind) = (tag & 63, (tag >> 16) as u32, (tag >> 14) & 3);
            let q = pend.entry(w).or_default();
            let Some(k) = q.iter().position(|p| p.pc == pc) else {
                close(sim, &mut vcd_open, &mut rep);
                return Err(fail(
                    cycle,
                    format!("warp slot {w} retired pc {pc}, which it has not issued"),
                    &rep,
                    &gmem.mem,
                ));
            };
            let p = q.remove(k).unwrap();
            // Nothing is compared once the golden model has stopped.
            if !opts.check || golden_stop.is_some() {
                continue;
            }
            let m = lanes(&mask);
            let place = match map.warp.get(&w) {
                Some((c, k)) => format!("cta {c} warp {k} (slot {w}) pc {pc} {:?}", p.op),
                None => format!("slot {w} pc {pc}"),
            };
            let diff = |what: String| Some(format!("divergence at write-back, {place}: {what}"));
            let lo32 = |l: usize| lo[l].to_u64() as u32;
            let hi32 = |l: usize| hi[l].to_u64() as u32;
            // Lanes whose values are taken from the RTL are not compared.
            let cmp = p.active & !p.adopt;
            let first = |a: &dyn Fn(usize) -> bool| (0..32).find(|&l| cmp >> l & 1 == 1 && a(l));
            let err = match (&p.write, kind) {
                (_, _) if m != p.active && kind != 0 => diff(format!("lanes RTL {m:08x}, golden {:08x}", p.active)),
                (Some(Write::Reg { values, .. }), 1) => first(&|l| lo32(l) != values[l])
                    .and_then(|l| diff(format!("lane {l}: RTL {:08x}, golden {:08x}", lo32(l), values[l]))),
                (Some(Write::RegPair { values, .. }), 2) => {
                    first(&|l| (lo32(l) as u64 | (hi32(l) as u64) << 32) != values[l]).and_then(|l| {
                        diff(format!(
                            "lane {l}: RTL {:08x}{:08x}, golden {:016x}",
                            hi32(l),
                            lo32(l),
                            values[l]
                        ))
                    })
                }
                (Some(Write::Pred { values, .. }), 3) => {
                    let got = lanes(&o.ret_pred_o) & m;
                    (got != values & m).then(|| {
                        format!(
                            "divergence at write-back, {place}: predicate lanes RTL {got:08x}, golden {:08x}",
                            values & m
                        )
                    })
                }
                (Some(Write::Atom { old, reg, .. }), 1) if *reg != crate::golden::isa::RZ => {
                    first(&|l| lo32(l) != old[l]).and_then(|l| {
                        diff(format!(
                            "atomic old value lane {l}: RTL {:08x}, golden {:08x}",
                            lo32(l),
                            old[l]
                        ))
                    })
                }
                (Some(Write::Mem { .. } | Write::MemPair { .. } | Write::Atom { .. }), 0) | (None, 0) => None,
                (w, k) => diff(format!("RTL wrote kind {k}, golden expected {w:?}")),
            };
            if let Some(e) = err {
                close(sim, &mut vcd_open, &mut rep);
                return Err(fail(cycle, e, &rep, &gmem.mem));
            }
            // The golden model takes the RTL's values of these lanes, so
            // what the kernel computes from them is checked from here on.
            if let Some(&(cta, wic)) = map.warp.get(&w).filter(|_| p.adopt != 0) {
                adopt_rtl_values(&mut golden, cta, wic, &p, &lo32, &hi32);
            }
        }
        for s in 0..2 {
            let c = if s == 0 {
                o.stall0_o.to_u64()
            } else {
                o.stall1_o.to_u64()
            } as usize;
            rep.stall[s][c.min(7)] += 1;
        }
        let ub = o.unit_busy_o.to_u64();
        for k in 0..5 {
            rep.unit_busy[k] += ub >> k & 1;
        }
        rep.max_resident_warps = rep.max_resident_warps.max(o.res_warps_o.to_u64());
        rep.occupancy = o.occ_ctas_o.to_u64();
        rep.rf_read_conflicts = o.cnt_rr_o.to_u64();
        rep.rf_write_preempt = o.cnt_wr_o.to_u64();
        rep.oc_dispatch_stalls = o.cnt_oc_stall_o.to_u64();
        rep.wb_waits = o.cnt_wb_wait_o.to_u64();
        rep.icache_hits = o.cnt_ic_hit_o.to_u64();
        rep.icache_misses = o.cnt_ic_miss_o.to_u64();
        rep.gm_requests = o.cnt_gm_req_o.to_u64();
        rep.smem_conflict_passes = o.cnt_sm_conf_o.to_u64();
        rep.l1_hits = o.cnt_l1_hit_o.to_u64();
        rep.l1_misses = o.cnt_l1_miss_o.to_u64();
        cycle += 1;
        rep.core_cycles = cycle;
        if o.done_o.to_u64() == 1 && launched {
            break;
        }
    }
    close(sim, &mut vcd_open, &mut rep);
    if let Some((_, _, _, m)) = golden_stop {
        return Err(fail(
            cycle,
            format!("divergence: the golden model stops at {m}, but the RTL finished the grid without an error"),
            &rep,
            &gmem.mem,
        ));
    }
    if opts.check {
        if let Some((w, q)) = pend.iter().find(|(_, q)| !q.is_empty()) {
            return Err(fail(
                cycle,
                format!("the grid finished with warp slot {w} pc {} never retired", q[0].pc),
                &rep,
                &gmem.mem,
            ));
        }
        if !golden.all_done() {
            return Err(fail(
                cycle,
                "the RTL SM finished but the golden model has CTAs left".into(),
                &rep,
                &gmem.mem,
            ));
        }
        if golden.gmem() != &gmem.mem[..] {
            let k = golden
                .gmem()
                .iter()
                .zip(&gmem.mem)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(fail(
                cycle,
                format!("final global memory differs from the golden model's first at byte {k:#x}"),
                &rep,
                &gmem.mem,
            ));
        }
    }
    Ok(RtlResult {
        report: rep,
        gmem: gmem.mem,
    })
}

/// Core cycles the RTL has to raise its error after the golden model
/// stopped with one at an instruction the RTL issued (the error shows when
/// the unit executes it: the LSU after its memory accesses, so this
/// covers a global-memory round trip and a full LSU queue).
const GOLDEN_ERR_GRACE: u64 = 20_000;

/// Build the SM of `cfg` and run `prog` on it ([`run_rtl`]); an SM that
/// cannot be built for `cfg` is an error at cycle 0.
pub fn run_program(
    cfg: &SmConfig,
    prog: &Program,
    launch: &Launch,
    gmem: Vec<u8>,
    opts: &RtlOptions,
) -> Result<RtlResult, Box<RtlError>> {
    struct Go<'a> {
        cfg: &'a SmConfig,
        prog: &'a Program,
        launch: &'a Launch,
        gmem: Option<Vec<u8>>,
        opts: &'a RtlOptions,
    }
    impl crate::sm::top::SmFn for Go<'_> {
        type Out = Result<RtlResult, Box<RtlError>>;
        fn call<K>(&mut self, sm: K) -> anyhow::Result<Self::Out>
        where
            K: crate::hdl::Block<In<Concrete> = SmIn<Concrete>, Out<Concrete> = SmOut<Concrete>> + Clone + 'static,
        {
            let gmem = self.gmem.take().unwrap_or_default();
            let mut sim: Box<dyn SmSim> = match self.opts.engine {
                Engine::Rust => Box::new(crate::hdl::Sim::new(sm).map_err(|e| anyhow::anyhow!("{e}"))?),
                Engine::Verilator => Box::new(crate::sm::verilated::VerilatedSm::new(&sm)?),
                Engine::Lockstep => Box::new(crate::sm::verilated::LockstepSm::new(sm)?),
            };
            Ok(run_rtl(sim.as_mut(), self.cfg, self.prog, self.launch, gmem, self.opts))
        }
    }
    let mut go = Go {
        cfg,
        prog,
        launch,
        gmem: Some(gmem.clone()),
        opts,
    };
    match crate::sm::top::with_sm(cfg, &mut go) {
        Ok(r) => r,
        Err(e) => Err(Box::new(RtlError {
            cycle: 0,
            msg: format!("{e:#}"),
            report: RtlReport::default(),
            gmem,
        })),
    }
}
