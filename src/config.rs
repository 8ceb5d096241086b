//! `SmConfig`: the one struct that holds every size of the modelled SM.
//!
//! Every width in every block is derived from these fields (each derivation
//! carries a comment saying why). Named presets live in `configs/*.toml`; all
//! of them set every field (serde rejects missing or unknown fields), and
//! [`SmConfig::validate`] rejects values no block can be built from, naming
//! the field and the reason.
//!
//! Seed references (see `docs/presets.md`): `tesla` follows seed 001 (P&H
//! appendix B.4), `gt200` seeds 000/003, `fermi` seed 004, `gpucc` seed 002.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// How FP32 multiply-add is done by the SP lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MulAdd {
    /// Tesla/GT200 FMAD: product truncated, not fused (seed 000/001).
    Fmad,
    /// Fermi FFMA: IEEE 754-2008 fused multiply-add (seed 004).
    Ffma,
}

/// GPU-CC communication network parameters (seed 002).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuccConfig {
    /// Data lanes between cores (A-E).
    pub lanes: u32,
    /// Input FIFOs per core (a core executes instructions of up to 3 operands).
    pub input_fifos: u32,
    /// Entries per core input FIFO.
    pub fifo_depth: u32,
    /// Entries of a load-store unit's address FIFO.
    pub lsu_addr_fifo_depth: u32,
    /// Entries of a load-store unit's data FIFO.
    pub lsu_data_fifo_depth: u32,
    /// Lines past a hinted line that the memory front end prefetches (ours:
    /// the paper's prefetcher requests the hinted line itself, 0; the hints
    /// come at most an address FIFO ahead of the loads, too short for the
    /// memory latency at one load per hot cycle; docs/gpucc.md section 11).
    pub prefetch_ahead: u32,
    /// A load of one line slot reads the next line into the other (ours).
    pub read_ahead: bool,
    /// A line read of one LSU joins another LSU's read of the same line
    /// that is out (or sent in the same cycle) instead of asking the L1
    /// again (ours: the LSUs reading one image row read the same lines).
    pub join_reads: bool,
    /// A prefetch of the memory front end that hits in the L1 makes its
    /// line the youngest of its set, as a fill does (ours: the L1 stays
    /// FIFO otherwise, and in SIMT mode exactly as on fermi; docs/gpucc.md
    /// section 12.1).
    pub l1_refresh: bool,
}

/// Every size of one SM.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmConfig {
    /// Preset name, used in reports and module names.
    pub name: String,
    /// SP lanes (FP32 multiply-add + INT32 ALU).
    pub sp_lanes: u32,
    /// Special function units.
    pub sfu_units: u32,
    /// Dedicated FP64 FMA units (0 when FP64 runs in the SP lanes or is absent).
    pub fp64_units: u32,
    /// FP64 throughput as a divisor of the FP32 rate (0 = no FP64).
    pub fp64_rate_divisor: u32,
    /// Threads per warp.
    pub warp_size: u32,
    /// Resident warps.
    pub max_warps: u32,
    /// Resident threads.
    pub max_threads: u32,
    /// 32-bit registers in the register file.
    pub registers: u32,
    /// Register-file banks.
    pub reg_banks: u32,
    /// Ports per register-file bank: 1 = one read or one write per core
    /// cycle (1RW, a write wins over a read); 2 = one read and one write
    /// (1R1W, a simple dual-port RAM). The seeds do not say; docs/regfile.md.
    pub reg_bank_ports: u32,
    /// Fewest registers a thread may declare.
    pub min_regs_per_thread: u32,
    /// Most registers a thread may declare.
    pub max_regs_per_thread: u32,
    /// Shared memory in bytes.
    pub smem_bytes: u32,
    /// Shared-memory banks (32-bit wide each).
    pub smem_banks: u32,
    /// Threads served by one shared-memory pass (16 = half-warp on GT200).
    pub smem_request_threads: u32,
    /// Shared-memory broadcast: `true` = every bank can broadcast its word
    /// to all lanes reading it in one pass (Fermi); `false` = one broadcast
    /// word per pass, other banks serve one lane each (Tesla/GT200).
    pub smem_multicast: bool,
    /// Warp schedulers.
    pub warp_schedulers: u32,
    /// SP + SFU co-issue ("dual issue").
    pub dual_issue: bool,
    /// FP32 multiply-add flavour.
    pub mul_add: MulAdd,
    /// Hot (shader) clock cycles per core clock cycle. Must be 2.
    pub hot_clock_ratio: u32,
    /// Resident CTAs per SM at most (CUDA guide: 8 on compute 1.x and 2.x).
    pub max_ctas: u32,
    /// Register allocation granularity in registers (compute 1.0: 256 per
    /// CTA, 1.2/1.3: 512 per CTA, 2.x: 64 per warp; CUDA occupancy
    /// calculator). A CTA's (or warp's) registers are rounded up to it.
    pub reg_alloc_unit: u32,
    /// `true`: `reg_alloc_unit` applies per warp (Fermi); `false`: per CTA.
    pub reg_alloc_per_warp: bool,
    /// Shared-memory allocation granularity in bytes (1.x: 512, 2.x: 128).
    pub smem_alloc_unit: u32,
    /// SP lane pipeline depth in hot cycles (operands in to result out of
    /// one lane). Chosen so that the SM's dependent-issue latency matches
    /// the measured figures in `docs/sm.md`; the SM top calibrates it.
    pub sp_latency: u32,
    /// Passes a 32-bit integer multiply (IMUL/IMAD without `.U24`/`.S24`)
    /// takes through the SP lanes: GT200 has no 32-bit multiplier (96 vs 24
    /// hot cycles measured, 4 passes); Fermi runs it at half rate (2).
    pub imul32_passes: u32,
    /// Hot cycles from a 32-bit IMUL's issue to the earliest release of
    /// its destination (`units::imuldly`); 0: no delay table (the result's
    /// normal SP latency). GT200: the dependent chain measures 96 hot
    /// cycles (Wong et al. 2010); the preset's value is calibrated so the
    /// SM lands there (docs/calibration.md).
    pub imul32_latency: u32,
    /// SFU datapath depth in hot cycles (input to result of one lane).
    pub sfu_latency: u32,
    /// The SFU's multipliers also execute FMUL ("MUL co-issue", seed 000):
    /// the scheduler may send an FMUL to the SFU when the SP is busy.
    pub sfu_fmul: bool,
    /// FP64 datapath depth in hot cycles.
    pub dpu_latency: u32,
    /// Operand collector units (each holds one issued warp instruction
    /// while its operands are read).
    pub opcoll_units: u32,
    /// Instruction cache size in bytes (GT200: 8 KB L1 per SM).
    pub icache_bytes: u32,
    /// Instruction cache line in bytes (a multiple of the 8-byte word).
    pub icache_line_bytes: u32,
    /// Instruction cache associativity.
    pub icache_ways: u32,
    /// Core cycles from an instruction-cache miss request to its line.
    pub imem_latency: u32,
    /// L1 data cache for global loads in bytes (128-byte lines); 0: none
    /// (GT200, Tesla). Fermi: 16 KB of the 64 KB L1/shared pool next to
    /// 48 KB of shared memory (seed 004). The SM top builds 16 KB.
    pub l1_bytes: u32,
    /// L1 data cache associativity (power of two, 1..=8).
    pub l1_ways: u32,
    /// L1 pipeline stages before the tag check (core cycles): a hit answers
    /// `l1_latency + 1` core cycles after the LSU's request is taken, a
    /// miss goes to memory `l1_latency` cycles after it.
    pub l1_latency: u32,
    /// LSU load slots (1..=64): global loads (and one atomic) whose
    /// requests have all been sent wait for their responses in a slot
    /// while the LSU takes the next instruction, so up to this many warp
    /// loads overlap. 1 = one memory instruction at a time (docs/lsu.md).
    pub lsu_slots: u32,
    /// Global read requests the LSU keeps out in memory at once (1..=256):
    /// each load or atomic request takes a free tag, which is its 8-bit
    /// request id, until its response. Sized by Little's law: memory
    /// latency x per-SM bandwidth / request bytes (docs/lsu.md).
    pub lsu_tags: u32,
    /// Global-memory requesters `R` (1..=4) of the L1 (or, without an L1,
    /// of the global-memory arbiter): requester 0 is the LSU, requesters
    /// 1..R-1 are `rq<r>_req_*` ports (prefetchers, GPU-CC). The memory id
    /// grows by `clog2(R)` bits. 1 = the LSU alone (the SM today).
    pub gm_requesters: u32,
    /// Instruction-buffer entries per warp (1 or 2, seed 003).
    pub ibuffer_entries: u32,
    /// Reconvergence-stack entries per warp.
    pub simt_stack_depth: u32,
    /// Global memory as one SM sees it (`testbenches/gmem.rs`,
    /// docs/lsu.md): core cycles from accepting a read to presenting its
    /// response. GT200/Tesla 220 (about 440 hot cycles measured), Fermi 300
    /// (400-800 hot cycles).
    pub gmem_latency: u32,
    /// The SM's share of the board's DRAM bandwidth in thousandths of a
    /// byte per core cycle (an integer so the config stays exact): GT200
    /// 7,846 (141.7 GB/s over 30 SMs at 602 MHz), Fermi 16,895.
    pub gmem_milli_bytes_per_cycle: u32,
    /// Order of global-memory responses: 0 = in request order; any other
    /// value seeds a random choice among the due responses (what
    /// `--gmem-ooo-seed` sets).
    pub gmem_ooo_seed: u64,
    /// GPU-CC network; absent for SMs without it.
    pub gpucc: Option<GpuccConfig>,
}

/// The fields a config may leave to its `base` preset only (every other
/// field must be set by the file or its base): the global-memory model.
const GMEM_FIELDS: [&str; 3] = ["gmem_latency", "gmem_milli_bytes_per_cycle", "gmem_ooo_seed"];

/// A configuration that cannot be loaded or does not describe a buildable SM.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    // `err` is not `#[source]`: it is printed here once, not again by `{:#}`.
    #[error("cannot read config {path}: {err}")]
    Read { path: String, err: std::io::Error },
    #[error("config {path} is not valid TOML for SmConfig: {msg}")]
    Parse { path: String, msg: String },
    #[error("config {path}: field `{field}` = {value}: {reason}")]
    Invalid {
        path: String,
        field: &'static str,
        value: String,
        reason: String,
    },
    #[error("unknown preset `{0}` (known: tesla, gt200, fermi, gpucc)")]
    UnknownPreset(String),
    #[error("config `{0}` is neither a preset (tesla, gt200, fermi, gpucc) nor an existing file")]
    NotFound(String),
    #[error("config {path}: `base = {base:?}` is not a preset (known: tesla, gt200, fermi, gpucc)")]
    UnknownBase { path: String, base: String },
    #[error(
        "config {path}: field `{field}` is missing: set it, or add `base = \"<preset>\"` to take every missing field from a preset (docs/presets.md)"
    )]
    Missing { path: String, field: &'static str },
}

const PRESETS: [(&str, &str); 4] = [
    ("tesla", include_str!("../configs/tesla.toml")),
    ("gt200", include_str!("../configs/gt200.toml")),
    ("fermi", include_str!("../configs/fermi.toml")),
    ("gpucc", include_str!("../configs/gpucc.toml")),
];

impl SmConfig {
    /// Does the SM have an FP64 unit (`u_dpu`): GT200's one unit
    /// (`fp64_units`) or Fermi's half-rate FP64 cores (`fp64_rate_divisor`)?
    pub fn has_dpu(&self) -> bool {
        self.fp64_units > 0 || self.fp64_rate_divisor > 0
    }

    /// A named preset (the same text as `configs/<name>.toml`).
    pub fn preset(name: &str) -> Result<Self, ConfigError> {
        let (_, text) = PRESETS
            .iter()
            .find(|(n, _)| *n == name)
            .ok_or_else(|| ConfigError::UnknownPreset(name.to_string()))?;
        Self::from_toml(text, &format!("configs/{name}.toml"))
    }

    /// Names of the built-in presets.
    pub fn preset_names() -> impl Iterator<Item = &'static str> {
        PRESETS.iter().map(|(n, _)| *n)
    }

    /// Parse and validate TOML text; `origin` names it in errors. A file
    /// with `base = "<preset>"` takes every field it does not set from that
    /// preset (a layered config: `base = "fermi"` plus the fields that
    /// differ); a file without `base` sets every field.
    pub fn from_toml(text: &str, origin: &str) -> Result<Self, ConfigError> {
        Self::layered(text, origin).map(|(c, _)| c)
    }

    /// [`SmConfig::from_toml`], also returning the base preset's name and
    /// the fields taken from it (for `smrtl config`).
    pub fn layered(text: &str, origin: &str) -> Result<(Self, Option<(String, Vec<String>)>), ConfigError> {
        let parse = |msg: String| ConfigError::Parse {
            path: origin.to_string(),
            msg,
        };
        let mut t: toml::Table = toml::from_str(text).map_err(|e: toml::de::Error| parse(e.to_string()))?;
        let mut inherited = None;
        if let Some(b) = t.remove("base") {
            let name = b
                .as_str()
                .ok_or_else(|| parse("`base` must be a preset name (a string)".into()))?;
            let Some((_, base_text)) = PRESETS.iter().find(|(n, _)| *n == name) else {
                return Err(ConfigError::UnknownBase {
                    path: origin.to_string(),
                    base: name.to_string(),
                });
            };
            let base: toml::Table = toml::from_str(base_text).map_err(|e: toml::de::Error| parse(e.to_string()))?;
            let mut taken = vec![];
            for (k, v) in base {
                if !t.contains_key(&k) {
                    taken.push(k.clone());
                    t.insert(k, v);
                }
            }
            inherited = Some((name.to_string(), taken));
        } else if let Some(f) = GMEM_FIELDS.iter().find(|f| !t.contains_key(**f)) {
            return Err(ConfigError::Missing {
                path: origin.to_string(),
                field: f,
            });
        }
        let cfg: SmConfig = toml::Value::Table(t)
            .try_into()
            .map_err(|e: toml::de::Error| parse(e.to_string()))?;
        cfg.validate(origin)?;
        Ok((cfg, inherited))
    }

    /// Load a config file, or a preset when `spec` is a preset name.
    pub fn load(spec: &str) -> Result<Self, ConfigError> {
        if PRESETS.iter().any(|(n, _)| *n == spec) {
            return Self::preset(spec);
        }
        let path = Path::new(spec);
        let text = std::fs::read_to_string(path).map_err(|err| {
            if err.kind() == std::io::ErrorKind::NotFound {
                ConfigError::NotFound(spec.to_string())
            } else {
                ConfigError::Read {
                    path: spec.to_string(),
                    err,
                }
            }
        })?;
        Self::from_toml(&text, spec)
    }

    /// For a config file with `base = "<preset>"`: the base and the fields
    /// taken from it (None for a preset or a file that sets every field).
    pub fn base_of(spec: &str) -> Result<Option<(String, Vec<String>)>, ConfigError> {
        if PRESETS.iter().any(|(n, _)| *n == spec) {
            return Ok(None);
        }
        let text = std::fs::read_to_string(spec).map_err(|err| ConfigError::Read {
            path: spec.to_string(),
            err,
        })?;
        Ok(Self::layered(&text, spec)?.1)
    }

    /// Inclusive range of every integer field (name, value, min, max): the
    /// largest sizes the model builds, so that sizes and products derived
    /// from them fit comfortably in `u32` and in memory. Finer rules
    /// (powers of two, divisibility, the tag widths of docs/sm.md) follow in
    /// [`SmConfig::validate`].
    pub fn field_bounds(&self) -> Vec<(&'static str, u32, u32, u32)> {
        let mut v = vec![
            ("sp_lanes", self.sp_lanes, 1, 32),
            ("sfu_units", self.sfu_units, 1, 32),
            ("fp64_units", self.fp64_units, 0, 32),
            ("fp64_rate_divisor", self.fp64_rate_divisor, 0, 64),
            ("warp_size", self.warp_size, 1, 32),
            ("max_warps", self.max_warps, 1, 64),
            ("max_threads", self.max_threads, 1, 64 * 32),
            ("registers", self.registers, 1, 1 << 20),
            ("reg_banks", self.reg_banks, 1, 64),
            ("reg_bank_ports", self.reg_bank_ports, 1, 2),
            ("min_regs_per_thread", self.min_regs_per_thread, 1, 128),
            ("max_regs_per_thread", self.max_regs_per_thread, 1, 128),
            ("smem_bytes", self.smem_bytes, 1, 1 << 20),
            ("smem_banks", self.smem_banks, 1, 64),
            ("smem_request_threads", self.smem_request_threads, 1, 32),
            ("warp_schedulers", self.warp_schedulers, 1, 2),
            ("hot_clock_ratio", self.hot_clock_ratio, 1, 16),
            ("max_ctas", self.max_ctas, 1, 16),
            ("reg_alloc_unit", self.reg_alloc_unit, 1, 1 << 16),
            ("smem_alloc_unit", self.smem_alloc_unit, 1, 1 << 16),
            ("sp_latency", self.sp_latency, 1, 64),
            ("imul32_passes", self.imul32_passes, 1, 4),
            ("imul32_latency", self.imul32_latency, 0, 510),
            ("sfu_latency", self.sfu_latency, 1, 64),
            ("dpu_latency", self.dpu_latency, 1, 64),
            ("opcoll_units", self.opcoll_units, 1, 16),
            ("icache_bytes", self.icache_bytes, 8, 1 << 20),
            ("icache_line_bytes", self.icache_line_bytes, 8, 4096),
            ("icache_ways", self.icache_ways, 1, 64),
            ("imem_latency", self.imem_latency, 1, 4096),
            ("l1_bytes", self.l1_bytes, 0, 1 << 20),
            ("l1_ways", self.l1_ways, 1, 8),
            ("l1_latency", self.l1_latency, 1, 16),
            ("lsu_slots", self.lsu_slots, 1, 64),
            ("lsu_tags", self.lsu_tags, 1, 256),
            ("gm_requesters", self.gm_requesters, 1, 4),
            ("gmem_latency", self.gmem_latency, 1, 1 << 16),
            (
                "gmem_milli_bytes_per_cycle",
                self.gmem_milli_bytes_per_cycle,
                1,
                1_000_000_000,
            ),
            ("ibuffer_entries", self.ibuffer_entries, 1, 2),
            ("simt_stack_depth", self.simt_stack_depth, 2, 64),
        ];
        if let Some(g) = &self.gpucc {
            v.extend([
                ("gpucc.lanes", g.lanes, 1, 64),
                ("gpucc.input_fifos", g.input_fifos, 1, 16),
                ("gpucc.fifo_depth", g.fifo_depth, 1, 4096),
                ("gpucc.lsu_addr_fifo_depth", g.lsu_addr_fifo_depth, 1, 4096),
                ("gpucc.lsu_data_fifo_depth", g.lsu_data_fifo_depth, 1, 4096),
                ("gpucc.prefetch_ahead", g.prefetch_ahead, 0, 1024),
            ]);
        }
        v
    }

    /// Check every field a block derives a width or a size from.
    pub fn validate(&self, origin: &str) -> Result<(), ConfigError> {
        let bad = |field: &'static str, value: u32, reason: &str| ConfigError::Invalid {
            path: origin.to_string(),
            field,
            value: value.to_string(),
            reason: reason.to_string(),
        };
        let pow2 = |field: &'static str, v: u32| -> Result<(), ConfigError> {
            if v == 0 || !v.is_power_of_two() {
                Err(bad(
                    field,
                    v,
                    "must be a power of two (it is used as an address bit field)",
                ))
            } else {
                Ok(())
            }
        };
        // Bound every field to what a block can be built from before any
        // product of two fields is formed (no u32 product below can wrap).
        for (field, v, lo, hi) in self.field_bounds() {
            if v < lo || v > hi {
                return Err(bad(
                    field,
                    v,
                    &format!("must be {lo}..={hi} (the largest size the model builds)"),
                ));
            }
        }
        pow2("sp_lanes", self.sp_lanes)?;
        pow2("warp_size", self.warp_size)?;
        // Register banks: groups of 4 banks of 8 lanes hold one warp
        // register (docs/regfile.md), so any multiple of 4 works, 24 too.
        if !self.reg_banks.is_multiple_of(4) || !(8..=32).contains(&self.reg_banks) {
            return Err(bad(
                "reg_banks",
                self.reg_banks,
                "must be a multiple of 4 in 8..=32 (4 banks of 8 lanes hold one warp register)",
            ));
        }
        pow2("smem_banks", self.smem_banks)?;
        pow2("smem_request_threads", self.smem_request_threads)?;
        if self.sfu_units == 0 {
            return Err(bad("sfu_units", 0, "an SM needs at least one SFU"));
        }
        if !self.warp_size.is_multiple_of(self.sp_lanes) {
            return Err(bad("sp_lanes", self.sp_lanes, "must divide warp_size"));
        }
        if self.max_threads as u64 != self.max_warps as u64 * self.warp_size as u64 {
            return Err(bad("max_threads", self.max_threads, "must equal max_warps * warp_size"));
        }
        if !self.registers.is_multiple_of(128) || (self.registers as u64) < self.reg_banks as u64 * 32 {
            return Err(bad(
                "registers",
                self.registers,
                "must be a multiple of 128 and at least 32 * reg_banks",
            ));
        }
        if self.min_regs_per_thread == 0 || self.min_regs_per_thread > self.max_regs_per_thread {
            return Err(bad(
                "min_regs_per_thread",
                self.min_regs_per_thread,
                "must be >= 1 and <= max_regs_per_thread",
            ));
        }
        if self.smem_bytes == 0 || !(self.smem_bytes as u64).is_multiple_of(4 * self.smem_banks as u64) {
            return Err(bad(
                "smem_bytes",
                self.smem_bytes,
                "must be a non-zero multiple of 4 * smem_banks",
            ));
        }
        if self.smem_request_threads > self.warp_size {
            return Err(bad(
                "smem_request_threads",
                self.smem_request_threads,
                "must be <= warp_size",
            ));
        }
        if self.warp_schedulers == 0 || !self.max_warps.is_multiple_of(self.warp_schedulers) {
            return Err(bad(
                "warp_schedulers",
                self.warp_schedulers,
                "must be >= 1 and divide max_warps",
            ));
        }
        if self.hot_clock_ratio != 2 {
            return Err(bad(
                "hot_clock_ratio",
                self.hot_clock_ratio,
                "the hot clock runs at exactly 2x the core clock",
            ));
        }
        // The SM's buses are 32 lanes wide and its tags have fixed fields
        // (docs/sm.md, "Widths"): bound what those fields can hold.
        if self.warp_size != 32 {
            return Err(bad(
                "warp_size",
                self.warp_size,
                "the SM's per-lane buses are 32 lanes wide",
            ));
        }
        if self.max_warps == 0 || self.max_warps > 64 {
            return Err(bad("max_warps", self.max_warps, "must be 1..=64 (6-bit warp id)"));
        }
        if self.max_ctas == 0 || self.max_ctas > 16 {
            return Err(bad("max_ctas", self.max_ctas, "must be 1..=16 (4-bit CTA slot)"));
        }
        if self.max_regs_per_thread > 128 {
            return Err(bad(
                "max_regs_per_thread",
                self.max_regs_per_thread,
                "the ISA names at most 128 registers per thread",
            ));
        }
        pow2("reg_alloc_unit", self.reg_alloc_unit)?;
        pow2("smem_alloc_unit", self.smem_alloc_unit)?;
        if self.warp_schedulers > 2 || !self.sp_lanes.is_multiple_of(self.warp_schedulers) {
            return Err(bad(
                "warp_schedulers",
                self.warp_schedulers,
                "must be 1 or 2 and divide sp_lanes (one SP group per scheduler)",
            ));
        }
        for (field, v) in [
            ("sp_latency", self.sp_latency),
            ("sfu_latency", self.sfu_latency),
            ("dpu_latency", self.dpu_latency),
        ] {
            if v == 0 || v > 64 {
                return Err(bad(field, v, "must be 1..=64 hot cycles"));
            }
        }
        if !matches!(self.imul32_passes, 1 | 2 | 4) {
            return Err(bad("imul32_passes", self.imul32_passes, "must be 1, 2 or 4"));
        }
        if self.imul32_latency > 510 {
            return Err(bad(
                "imul32_latency",
                self.imul32_latency,
                "must be 0 (no delay) ..=510 hot cycles (an 8-bit count of core cycles)",
            ));
        }
        if self.opcoll_units == 0 || self.opcoll_units > 16 {
            return Err(bad("opcoll_units", self.opcoll_units, "must be 1..=16"));
        }
        pow2("icache_line_bytes", self.icache_line_bytes)?;
        pow2("icache_ways", self.icache_ways)?;
        pow2("icache_bytes", self.icache_bytes)?;
        if self.icache_line_bytes < 8
            || (self.icache_bytes as u64) < self.icache_line_bytes as u64 * self.icache_ways as u64
        {
            return Err(bad(
                "icache_bytes",
                self.icache_bytes,
                "must hold at least one line per way, lines of >= 8 bytes",
            ));
        }
        if self.imem_latency == 0 || self.imem_latency > 4096 {
            return Err(bad("imem_latency", self.imem_latency, "must be 1..=4096 core cycles"));
        }
        if !matches!(self.l1_ways, 1 | 2 | 4 | 8) {
            return Err(bad("l1_ways", self.l1_ways, "must be 1, 2, 4 or 8"));
        }
        if self.l1_latency == 0 || self.l1_latency > 16 {
            return Err(bad("l1_latency", self.l1_latency, "must be 1..=16 core cycles"));
        }
        if self.lsu_slots == 0 || self.lsu_slots > 64 {
            return Err(bad(
                "lsu_slots",
                self.lsu_slots,
                "must be 1..=64 (warp loads in flight)",
            ));
        }
        if self.lsu_tags == 0 || self.lsu_tags > 256 {
            return Err(bad(
                "lsu_tags",
                self.lsu_tags,
                "must be 1..=256 (each tag is an 8-bit request id)",
            ));
        }
        if self.gm_requesters == 0 || self.gm_requesters > 4 {
            return Err(bad(
                "gm_requesters",
                self.gm_requesters,
                "must be 1..=4 (requester 0 is the LSU; the memory id grows by clog2 of it)",
            ));
        }
        if self.l1_bytes != 0 {
            let lines = self.l1_bytes / 128;
            if !self.l1_bytes.is_multiple_of(128) || !lines.is_power_of_two() || lines < self.l1_ways {
                return Err(bad(
                    "l1_bytes",
                    self.l1_bytes,
                    "must be 0 (no L1) or a power-of-two number of 128-byte lines, at least l1_ways of them",
                ));
            }
        }
        if !matches!(self.ibuffer_entries, 1 | 2) {
            return Err(bad(
                "ibuffer_entries",
                self.ibuffer_entries,
                "must be 1 or 2 (seed 003)",
            ));
        }
        if self.simt_stack_depth < 2 || self.simt_stack_depth > 64 {
            return Err(bad("simt_stack_depth", self.simt_stack_depth, "must be 2..=64"));
        }
        if let Some(g) = &self.gpucc {
            if g.lanes == 0 {
                return Err(bad("gpucc.lanes", g.lanes, "must be >= 1"));
            }
            pow2("gpucc.fifo_depth", g.fifo_depth)?;
            pow2("gpucc.lsu_addr_fifo_depth", g.lsu_addr_fifo_depth)?;
            pow2("gpucc.lsu_data_fifo_depth", g.lsu_data_fifo_depth)?;
            if g.input_fifos == 0 {
                return Err(bad("gpucc.input_fifos", g.input_fifos, "must be >= 1"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_load_and_validate() {
        for n in SmConfig::preset_names() {
            let c = SmConfig::preset(n).unwrap();
            assert_eq!(c.name, n);
        }
        assert_eq!(SmConfig::preset("gt200").unwrap().registers, 16384);
        assert_eq!(SmConfig::preset("fermi").unwrap().smem_banks, 32);
    }

    #[test]
    fn bank_count_not_multiple_of_four_is_named() {
        let text = include_str!("../configs/gt200.toml").replace("reg_banks = 16", "reg_banks = 10");
        let e = SmConfig::from_toml(&text, "bad.toml").unwrap_err().to_string();
        assert!(
            e.contains("reg_banks") && e.contains("multiple of 4") && e.contains("bad.toml"),
            "{e}"
        );
    }

    #[test]
    fn huge_power_of_two_banks_are_errors_not_panics() {
        // Before the bounds, `reg_banks * 32` and `4 * smem_banks` wrapped to
        // 0 in u32 and `validate` divided by zero.
        let gt = include_str!("../configs/gt200.toml");
        for (from, to, field) in [
            ("reg_banks = 16 ", "reg_banks = 134217728 ", "reg_banks"),
            ("smem_banks = 16\n", "smem_banks = 2147483648\n", "smem_banks"),
            ("registers = 16384 ", "registers = 4294967295 ", "registers"),
            ("smem_bytes = 16384 ", "smem_bytes = 4294967295 ", "smem_bytes"),
            ("icache_ways = 4 ", "icache_ways = 2147483648 ", "icache_ways"),
            ("max_warps = 32 ", "max_warps = 2147483648 ", "max_warps"),
        ] {
            let text = gt.replace(from, to);
            assert_ne!(text, gt, "{from}");
            let r = std::panic::catch_unwind(|| SmConfig::from_toml(&text, "big.toml"));
            let e = r.expect("validate panicked").unwrap_err().to_string();
            assert!(e.contains(field) && e.contains("big.toml"), "{e}");
        }
    }

    #[test]
    fn twenty_four_banks_load() {
        let c = SmConfig::load(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/gt200_24banks.toml")).unwrap();
        assert_eq!(c.reg_banks, 24);
        let text = include_str!("../configs/gt200.toml").replace("reg_banks = 16", "reg_banks = 24");
        assert!(SmConfig::from_toml(&text, "x").is_ok());
    }

    #[test]
    fn unknown_field_and_missing_file_are_errors() {
        let text = format!("{}\nbogus = 1\n", include_str!("../configs/gt200.toml"));
        assert!(SmConfig::from_toml(&text, "x")
            .unwrap_err()
            .to_string()
            .contains("bogus"));
        let e = SmConfig::load("/nonexistent/cfg.toml").unwrap_err().to_string();
        assert!(e.contains("/nonexistent/cfg.toml") && e.contains("gt200"), "{e}");
        let e = SmConfig::load("/").unwrap_err().to_string();
        assert!(e.contains("cannot read config /"), "{e}");
    }

    /// A layered config takes what it does not set from its base; one that
    /// sets the memory fields gets them; one without a base and without
    /// them is an error naming the field.
    #[test]
    fn layered_config_and_memory_fields() {
        let own = "base = \"fermi\"\nname = \"slowmem\"\ngmem_latency = 640\ngmem_milli_bytes_per_cycle = 2500\n";
        let (c, inh) = SmConfig::layered(own, "slowmem.toml").unwrap();
        assert_eq!(
            (c.gmem_latency, c.gmem_milli_bytes_per_cycle, c.gmem_ooo_seed),
            (640, 2500, 0)
        );
        let f = SmConfig::preset("fermi").unwrap();
        assert_eq!(
            (c.name.as_str(), c.sp_lanes, c.smem_banks),
            ("slowmem", f.sp_lanes, f.smem_banks)
        );
        let (base, taken) = inh.unwrap();
        assert_eq!(base, "fermi");
        assert!(taken.contains(&"sp_lanes".to_string()) && !taken.contains(&"gmem_latency".to_string()));
        // Without the memory fields: the base preset's documented values.
        let c = SmConfig::from_toml("base = \"gt200\"\nname = \"x\"\n", "x.toml").unwrap();
        assert_eq!((c.gmem_latency, c.gmem_milli_bytes_per_cycle), (220, 7846));
        let c = SmConfig::from_toml("base = \"fermi\"\nname = \"x\"\n", "x.toml").unwrap();
        assert_eq!((c.gmem_latency, c.gmem_milli_bytes_per_cycle), (300, 16895));
        // A full file without them (and without a base) names the field.
        let full: String = include_str!("../configs/gt200.toml")
            .lines()
            .filter(|l| !l.starts_with("gmem_latency"))
            .map(|l| format!("{l}\n"))
            .collect();
        let e = SmConfig::from_toml(&full, "nomem.toml").unwrap_err().to_string();
        assert!(
            e.contains("nomem.toml") && e.contains("gmem_latency") && e.contains("base"),
            "{e}"
        );
        let e = SmConfig::from_toml("base = \"gt300\"\n", "b.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("gt300") && e.contains("b.toml"), "{e}");
        let e = SmConfig::from_toml("base = \"gt200\"\ngmem_latency = 0\n", "z.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("gmem_latency") && e.contains("z.toml"), "{e}");
    }
}
