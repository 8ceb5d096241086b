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
    /// Register-file words the issued instructions read and write, per
    /// thread, summed over warp instructions ([`crate::golden::isa::Instr::reg_words`]:
    /// counted from the instructions the issue monitors show, not by the
    /// register file).
    pub rf_reads: u64,
    pub rf_writes: u64,
    pub rf_read_conflicts: u64,
    pub rf_write_preempt: u64,
    pub oc_dispatch_stalls: u64,
    pub wb_waits: u64,
    pub icache_hits: u64,
    pub icache_misses: u64,
    pub gm_requests: u64,
    /// At the SM's `gm_*` port, counted by the memory model outside it:
    /// reads, their bytes, writes, their bytes (segment sizes), and the
    /// model's bandwidth in thousandths of a byte per core cycle.
    pub gm_port: [u64; 4],
    pub gm_milli_bytes_per_cycle: u64,
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
    /// The SM has the GPU-CC network (a `[gpucc]` section).
    pub has_gc: bool,
    /// GPU-CC: runs (`GCRUN`s), core cycles in GPU-CC mode, firings.
    pub gc_runs: u64,
    pub gc_cycles: u64,
    pub gc_fire: u64,
    /// Bytes through the `gm_*` port in the core cycles of GPU-CC mode.
    pub gc_gm_bytes: u64,
    /// GPU-CC per node (0..=31 cores, 32..=47 LSUs; empty without the
    /// network): firings, hot cycles stalled on an empty input FIFO, hot
    /// cycles stalled on output space (or an LSU's request path).
    pub gc_node_fire: Vec<u64>,
    pub gc_node_stall_in: Vec<u64>,
    pub gc_node_stall_out: Vec<u64>,
    /// GPU-CC tokens (values driven on the lanes) compared with the golden
    /// dataflow model's.
    pub gc_tokens_checked: u64,
    /// In GPU-CC mode: register-file writes (`ret<w>_valid_o`), warp
    /// instructions issued (each issue reads the register file through a
    /// collector), instruction-memory requests. All zero: the front end
    /// and the register file are idle; counted to show it.
    pub gc_rf_access: u64,
    pub gc_issued: u64,
    pub gc_fetched: u64,
}

impl RtlReport {
    /// The empty report of `prog` on the SM of `cfg`.
    pub fn new(cfg: &SmConfig, prog: &Program) -> RtlReport {
        let nodes = if cfg.gpucc.is_some() {
            crate::golden::gpucc::NODES
        } else {
            0
        };
        RtlReport {
            config: cfg.name.clone(),
            kernel: prog.name.clone(),
            sp_lanes: cfg.sp_lanes,
            schedulers: cfg.warp_schedulers,
            has_l1: cfg.l1_bytes > 0,
            has_dpu: cfg.has_dpu(),
            has_gc: cfg.gpucc.is_some(),
            gc_node_fire: vec![0; nodes],
            gc_node_stall_in: vec![0; nodes],
            gc_node_stall_out: vec![0; nodes],
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
        if self.has_gc {
            self.gc_runs = o.cnt_gc_runs_o.to_u64();
            self.gc_cycles = o.cnt_gc_cycles_o.to_u64();
            self.gc_fire = o.cnt_gc_fire_o.to_u64();
            for n in 0..self.gc_node_fire.len() {
                self.gc_node_fire[n] += o.gc_fire_o[n].to_u64().count_ones() as u64;
                self.gc_node_stall_in[n] += o.gc_stall_in_o[n].to_u64().count_ones() as u64;
                self.gc_node_stall_out[n] += o.gc_stall_out_o[n].to_u64().count_ones() as u64;
            }
            if o.gc_mode_o.any() {
                self.gc_issued += o.iss0_valid_o.to_u64() + o.iss1_valid_o.to_u64();
                self.gc_fetched += o.im_req_valid_o.to_u64();
                self.gc_rf_access += o.ret0_valid_o.to_u64() + o.ret1_valid_o.to_u64();
            }
        }
    }

    /// The GPU-CC lines of the report: mode, firings, and per node that
    /// did anything its firings and stall causes.
    fn render_gc(&self, s: &mut String) {
        let c = self.core_cycles.max(1) as f64;
        let _ = writeln!(
            s,
            "  GPU-CC: {} runs, {} core cycles in GPU-CC mode ({:.1}%), {} firings ({:.2} per core cycle in the mode), {} tokens checked against the golden dataflow model, {} bytes through the global memory port ({:.2} per core cycle in the mode); in the mode {} instructions issued, {} instruction-memory requests, {} register writes",
            self.gc_runs,
            self.gc_cycles,
            100.0 * self.gc_cycles as f64 / c,
            self.gc_fire,
            self.gc_fire as f64 / self.gc_cycles.max(1) as f64,
            self.gc_tokens_checked,
            self.gc_gm_bytes,
            self.gc_gm_bytes as f64 / self.gc_cycles.max(1) as f64,
            self.gc_issued,
            self.gc_fetched,
            self.gc_rf_access
        );
        for n in 0..self.gc_node_fire.len() {
            let (f, si, so) = (
                self.gc_node_fire[n],
                self.gc_node_stall_in[n],
                self.gc_node_stall_out[n],
            );
            if f + si + so == 0 {
                continue;
            }
            let _ = writeln!(
                s,
                "    {:<6} fired {f}, input empty {si} hot cycles, output full {so}",
                crate::golden::gpucc::node_name(n)
            );
        }
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
            "  register file: {} warp register reads and {} writes (the issued instructions' operands); {} bank-conflict read cycles, {} reads pre-empted by writes; {} dispatch stalls; {} write-back waits",
            self.rf_reads, self.rf_writes, self.rf_read_conflicts, self.rf_write_preempt, self.oc_dispatch_stalls, self.wb_waits
        );
        let _ = writeln!(
            s,
            "  shared memory: {} extra conflict passes; global memory: {} transactions; instruction cache: {} hits, {} misses",
            self.smem_conflict_passes, self.gm_requests, self.icache_hits, self.icache_misses
        );
        let [rd, rdb, wr, wrb] = self.gm_port;
        let _ = writeln!(
            s,
            "  global memory port: {rd} reads ({rdb} bytes), {wr} writes ({wrb} bytes): {:.2} bytes per core cycle (the memory model gives {:.2})",
            (rdb + wrb) as f64 / (self.core_cycles.max(1)) as f64,
            self.gm_milli_bytes_per_cycle as f64 / 1000.0
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
        if self.has_gc && self.gc_runs > 0 {
            self.render_gc(&mut s);
        }
        s
    }
}
