//! The report of an RTL run ([`RtlReport`]): what the SM's monitor and
//! counter ports measured, per core cycle, and its human-readable form.

use crate::config::SmConfig;
use crate::golden::isa::Program;
use crate::golden::model::UninitReads;
use crate::hdl::Concrete;
use crate::sm::top::{units_present, SmOut, STALL_NAMES, UNIT_BUSY_NAMES};
use std::fmt::Write as _;

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
    /// [`crate::golden::model::Retired::undef`]).
    pub uninit: UninitReads,
    /// What simulated the SM ([`super::SmSim::engine`]).
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
    /// The empty report of `prog` on the SM of `cfg`.
    pub fn new(cfg: &SmConfig, prog: &Program) -> RtlReport {
        RtlReport {
            config: cfg.name.clone(),
            kernel: prog.name.clone(),
            sp_lanes: cfg.sp_lanes,
            schedulers: cfg.warp_schedulers,
            has_l1: cfg.l1_bytes > 0,
            has_dpu: cfg.has_dpu(),
            ..RtlReport::default()
        }
    }

    /// Count one core cycle's stall causes and unit-busy flags and take
    /// the SM's running counters from its outputs `o`.
    pub fn count(&mut self, o: &SmOut<Concrete>) {
        for s in 0..2 {
            let c = if s == 0 {
                o.stall0_o.to_u64()
            } else {
                o.stall1_o.to_u64()
            } as usize;
            self.stall[s][c.min(7)] += 1;
        }
        let ub = o.unit_busy_o.to_u64();
        for k in 0..5 {
            self.unit_busy[k] += ub >> k & 1;
        }
        self.max_resident_warps = self.max_resident_warps.max(o.res_warps_o.to_u64());
        self.occupancy = o.occ_ctas_o.to_u64();
        self.rf_read_conflicts = o.cnt_rr_o.to_u64();
        self.rf_write_preempt = o.cnt_wr_o.to_u64();
        self.oc_dispatch_stalls = o.cnt_oc_stall_o.to_u64();
        self.wb_waits = o.cnt_wb_wait_o.to_u64();
        self.icache_hits = o.cnt_ic_hit_o.to_u64();
        self.icache_misses = o.cnt_ic_miss_o.to_u64();
        self.gm_requests = o.cnt_gm_req_o.to_u64();
        self.smem_conflict_passes = o.cnt_sm_conf_o.to_u64();
        self.l1_hits = o.cnt_l1_hit_o.to_u64();
        self.l1_misses = o.cnt_l1_miss_o.to_u64();
    }

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
