//! The golden SIMT model: runs a kernel ([`Program`]) over a grid of CTAs
//! with the semantics of `docs/isa.md` (the ISA contract), and is the
//! oracle the RTL SM is checked against.
//!
//! * Warps of 32 lanes, per-thread registers (zero at launch) and
//!   predicates P0..P3 (false at launch), one pc and active mask per warp.
//! * Tesla-style reconvergence on a per-warp stack of (kind, mask, pc)
//!   entries (`SSY`/`BRA`/`SYNC`/`EXIT`), at most `SmConfig::simt_stack_depth` deep.
//! * `BAR` barriers per CTA with deadlock detection, per-CTA shared memory
//!   (zero at CTA start; reads of words the CTA never wrote are reported,
//!   `uninit`), global memory as a little-endian byte image, atomics
//!   performed lane by lane in ascending lane order.
//! * Every bad input stops with a [`RunError`] naming the place (CTA, warp,
//!   lane, pc, source line when known) and the reason: launch limits of the
//!   [`SmConfig`], registers beyond `.regs`, out-of-bounds or misaligned
//!   accesses, branches out of the code, running off the end, an exhausted
//!   instruction budget, barrier deadlocks, reconvergence-stack misuse.
//!   `SSY`, `SYNC` and `BAR` act on the whole warp: a guard on them is
//!   rejected at load. A barrier counts threads: it releases when every
//!   non-exited thread of the CTA has arrived, so a `BAR` reached by only
//!   some lanes of a warp (the others parked on its stack) is reported as a
//!   deadlock once no warp can run.
//!
//! Use: [`Golden::new`] checks the launch and decodes the program once;
//! [`Golden::run`] is the fast path (no per-instruction records, no heap
//! allocation per instruction); [`Golden::step`] executes one warp
//! instruction (warps round robin inside the current CTA, CTAs one after
//! the other in linear order) and returns a [`Retired`] record for
//! lock-step checking; [`run_kernel`] does a whole launch.
//!
//! Registers are stored structure-of-arrays: one `[u32; 32]` row per
//! register per warp, so each warp instruction is a loop over 32 lanes
//! under a `u32` mask. `RZ` reads a row that is always zero and writes a
//! scratch row nobody reads.
//!
//! The model is split along the hardware's lines, so that an RTL block and
//! its reference read side by side: `launch` (launch checks, CTAs, the
//! barrier), `warp` (warp state and the SIMT reconvergence stack), `exec`
//! (decode and execution), `memory` (address checks, loads, stores,
//! atomics), `uninit` (the shared words each CTA has written) and `report`
//! (counts, retired records, errors).

mod exec;
mod gpucc;
mod launch;
mod memory;
mod multi;
mod report;
#[cfg(test)]
mod tests;
mod uninit;
pub mod unit_access;
mod warp;

pub use gpucc::GpuccRunner;
pub use launch::{check_fits, parse_dims, parse_param_value, resolve_params, run_kernel, Launch};
pub use memory::Space;
pub use multi::{CtaWarps, WarpView};
pub use report::{AtomValues, ClassCount, Place, Reason, Retired, RunError, Stats, Write};
pub use uninit::{UninitReads, UNINIT_KEPT};

use crate::config::{MulAdd, SmConfig};
use crate::golden::isa::{Class, Form, ModKind, Op, Program, Unit, NUM_PREDS, RZ};
use exec::Dec;
use memory::Scratch;
use std::collections::{BTreeMap, BTreeSet};
use warp::Warp;

/// Lanes per warp (the model's masks are `u32`).
pub const WARP: usize = 32;
/// Reconvergence stack depth of every preset (`SmConfig::simt_stack_depth`,
/// which the model uses). DIV entries of one SSY region hold disjoint
/// non-empty lane masks (at most 32 of them), plus a few nested SSY entries.
pub const MAX_STACK: usize = 40;
/// Warp instructions [`run_kernel`] and [`Golden::step`] allow by default.
pub const DEFAULT_BUDGET: u64 = 100_000_000;

const FULL: u32 = u32::MAX;
const SIGN: u32 = 0x8000_0000;

/// Per-launch constants the instructions read.
#[derive(Debug, Clone)]
struct Ctx {
    params: Vec<u32>,
    block: [u32; 3],
    grid: [u32; 2],
    cta_xy: [u32; 2],
    tesla_fp: bool,
    /// Opcodes the preset does not implement (bit = opcode; see
    /// [`preset_lacks`]): executing one is an error, as in the RTL.
    lacks: u128,
    /// The preset's name, for that error.
    preset: String,
    code_len: u32,
    /// Reconvergence stack entries a warp may hold (`simt_stack_depth`).
    stack_depth: usize,
}

/// Why the preset `cfg` does not implement `op`, or `None` when it does.
/// The RTL SM has one FP32 multiply-add per preset (`mul_add`: FMAD on
/// tesla and gt200, FFMA on fermi and gpucc; docs/sp.md) and no FP64 unit
/// when `fp64_rate_divisor = 0` (tesla; the decoder's rule, docs/sm.md);
/// it raises error code 1 when such an instruction executes, and so does
/// the golden model (an instruction never executed is no error).
pub fn preset_lacks(op: Op, cfg: &SmConfig) -> Option<&'static str> {
    let lacks = match op {
        Op::Ffma => cfg.mul_add == MulAdd::Fmad,
        Op::Fmad => cfg.mul_add == MulAdd::Ffma,
        _ => op.unit() == Unit::Dpu && cfg.fp64_rate_divisor == 0,
    };
    lacks.then(|| lack_reason(op))
}

/// The first instruction of `prog` the preset `cfg` lacks ([`preset_lacks`])
/// and why: a kernel that would stop with error 1 wherever it executes it.
pub fn program_lacks(prog: &Program, cfg: &SmConfig) -> Option<(Op, &'static str)> {
    prog.code
        .iter()
        .find_map(|i| preset_lacks(i.op, cfg).map(|why| (i.op, why)))
}

/// Why a preset lacks `op`, given that it does (see [`preset_lacks`]).
fn lack_reason(op: Op) -> &'static str {
    match op {
        Op::Ffma => "its FP32 multiply-add is FMAD (mul_add = \"fmad\")",
        Op::Fmad => "its FP32 multiply-add is FFMA (mul_add = \"ffma\")",
        _ => "it has no FP64 unit (fp64_rate_divisor = 0)",
    }
}

/// [`preset_lacks`] as a mask over the 7-bit opcodes.
fn lacks_mask(cfg: &SmConfig) -> u128 {
    Op::ALL
        .iter()
        .filter(|&&op| preset_lacks(op, cfg).is_some())
        .fold(0, |m, &op| m | 1u128 << (op as u8))
}

/// The golden SIMT model of one kernel launch.
pub struct Golden {
    prog: Program,
    code: Vec<Dec>,
    ctx: Ctx,
    gmem: Vec<u8>,
    shared: Vec<u8>,
    /// The shared words the current CTA has written.
    written: uninit::Written,
    /// A read of a never-written shared word is an error.
    strict_init: bool,
    /// Lanes of the last executed instruction that read never-written
    /// shared words ([`Retired::undef`]).
    undef: u32,
    warps: Vec<Warp>,
    threads: u32,
    cur_cta: u32,
    ncta: u32,
    next_warp: usize,
    finished: bool,
    budget: u64,
    counts: [ClassCount; 9],
    /// Warp instructions executed so far.
    issued: u64,
    stats: Stats,
    scratch: Scratch,
    /// Multi-CTA mode ([`Golden::step_cta_warp`]) is in use: `warps` and
    /// `shared` are then only the slot a resident CTA is swapped into.
    multi: bool,
    /// Resident CTAs of the multi-CTA mode by linear index.
    resident: BTreeMap<u32, multi::Resident>,
    /// CTAs of the multi-CTA mode that have finished.
    retired_ctas: BTreeSet<u32>,
    /// The warps of a CTA at its start (identical for every CTA).
    fresh: Vec<Warp>,
    /// GPU-CC configuration registers and completed runs.
    gpucc: gpucc::GpuccState,
}

impl Golden {
    /// Warp instructions [`Golden::step`] may execute in total before it
    /// reports an exhausted budget (default [`DEFAULT_BUDGET`]).
    pub fn set_budget(&mut self, budget: u64) {
        self.budget = budget;
    }

    /// Is the whole grid done?
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// Linear index of the CTA running now (== number of CTAs when done).
    pub fn current_cta(&self) -> u32 {
        self.cur_cta
    }

    /// Warps per CTA.
    pub fn warps_per_cta(&self) -> usize {
        self.warps.len()
    }

    /// Register `reg` of every lane of warp `warp` in the current CTA.
    pub fn reg(&self, warp: usize, reg: u8) -> [u32; 32] {
        self.warps[warp].regs[reg as usize]
    }

    /// Predicate `pred` (0..=3) of warp `warp` as a lane bit mask.
    pub fn pred(&self, warp: usize, pred: u8) -> u32 {
        self.warps[warp].preds[pred as usize]
    }

    /// pc, active mask, done flag and stack depth of a warp.
    pub fn warp_state(&self, warp: usize) -> (u32, u32, bool, usize) {
        let w = &self.warps[warp];
        (w.pc, w.active, w.done, w.stack.len())
    }

    /// Shared memory of the current CTA.
    pub fn shared(&self) -> &[u8] {
        &self.shared
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    pub fn gmem(&self) -> &[u8] {
        &self.gmem
    }

    pub fn into_gmem(self) -> Vec<u8> {
        self.gmem
    }

    fn sync_stats(&mut self) {
        let mut m = BTreeMap::new();
        let (mut w, mut t) = (0, 0);
        for (i, c) in self.counts.iter().enumerate() {
            if c.warp > 0 {
                m.insert(Class::ALL[i], *c);
            }
            w += c.warp;
            t += c.thread;
        }
        self.stats.per_class = m;
        self.stats.warp_instrs = w;
        self.stats.thread_instrs = t;
    }

    fn place(&self, warp: usize, lane: Option<u32>, pc: u32) -> Place {
        Place {
            cta: Some((self.cur_cta, self.ctx.cta_xy)),
            warp: Some(warp as u32),
            lane,
            pc: Some(pc),
            line: self.prog.src_lines.get(pc as usize).copied(),
        }
    }

    /// Execute the instruction at warp `wi`'s pc; returns (pc, lanes that
    /// executed).
    #[inline]
    fn exec_warp(&mut self, wi: usize, limit: u64) -> Result<(u32, u32), RunError> {
        let pc = self.warps[wi].pc;
        if pc >= self.ctx.code_len {
            return Err(RunError {
                place: self.place(wi, None, pc),
                reason: Reason::RanOffEnd {
                    len: self.code.len(),
                    last_line: self.prog.src_lines.last().copied(),
                },
            });
        }
        if self.issued >= limit {
            return Err(RunError {
                place: self.place(wi, None, pc),
                reason: Reason::Budget { budget: limit },
            });
        }
        let dec = self.code[pc as usize];
        let (shared_at, r) = if dec.op.is_gpucc() {
            (None, self.exec_gpucc(wi, &dec, limit))
        } else {
            let warp = &mut self.warps[wi];
            let shared_at = uninit::shared_addrs(&dec, &warp.regs);
            let r = exec::exec(
                &dec,
                warp,
                &mut self.gmem,
                &mut self.shared,
                &self.ctx,
                &mut self.scratch,
            );
            (shared_at, r)
        };
        self.warps[wi].clock += 1;
        match r {
            Ok(mask) => {
                self.undef = match shared_at {
                    Some(addrs) => self.track_shared(wi, pc, &dec, &addrs, mask)?,
                    None => 0,
                };
                let c = &mut self.counts[dec.class as usize];
                c.warp += 1;
                self.issued += 1;
                c.thread += mask.count_ones() as u64;
                Ok((pc, mask))
            }
            Err(f) => Err(RunError {
                place: self.place(wi, f.lane, pc),
                reason: f.reason,
            }),
        }
    }

    /// Execute one warp instruction and describe it; `Ok(None)` once the
    /// grid is done.
    pub fn step(&mut self) -> Result<Option<Retired>, RunError> {
        self.single_mode()?;
        let wi = match self.pick()? {
            Some(w) => w,
            None => {
                self.sync_stats();
                return Ok(None);
            }
        };
        let r = self.step_warp_inner(wi);
        self.sync_stats();
        r.map(Some)
    }

    /// Execute one instruction of warp `warp` of the current CTA (for an
    /// SM model that picks the order itself). Errors if that warp is done
    /// or waiting at a barrier. Barrier release and CTA advance happen in
    /// [`Golden::step`]/[`Golden::run`] (call [`Golden::step`] when no
    /// warp can run).
    pub fn step_warp(&mut self, warp: usize) -> Result<Retired, RunError> {
        self.single_mode()?;
        let runnable = !self.finished && self.warps.get(warp).is_some_and(|w| !w.done && !w.waiting);
        if !runnable {
            return Err(RunError {
                place: Place {
                    cta: Some((self.cur_cta, self.ctx.cta_xy)),
                    warp: Some(warp as u32),
                    ..Place::default()
                },
                reason: Reason::NotRunnable,
            });
        }
        let r = self.step_warp_inner(warp);
        self.sync_stats();
        r
    }

    fn step_warp_inner(&mut self, wi: usize) -> Result<Retired, RunError> {
        let budget = self.budget;
        let (pc, active) = self.exec_warp(wi, budget)?;
        let instr = self.prog.code[pc as usize];
        let dec = self.code[pc as usize];
        let w = &self.warps[wi];
        let s = &self.scratch;
        let info = instr.info();
        let space = if info.class == Class::Global {
            Space::Global
        } else {
            Space::Shared
        };
        let write = match info.form {
            Form::None | Form::Target | Form::Cfg => None,
            Form::PAB | Form::PPP => (instr.d < NUM_PREDS).then(|| Write::Pred {
                pred: instr.d,
                values: w.preds[instr.d as usize],
            }),
            Form::Store if instr.wide() => Some(Write::MemPair {
                space,
                addrs: s.addrs,
                values: s.vals,
            }),
            Form::Store => Some(Write::Mem {
                space,
                addrs: s.addrs,
                values: s.vals.map(|v| v as u32),
            }),
            Form::Atom => Some(Write::Atom {
                space,
                reg: instr.d,
                addrs: s.addrs,
                old: s.vals.map(|v| v as u32),
                new: s.new,
            }),
            _ if instr.d == RZ => None,
            _ if info.pairs.d || (info.modk == ModKind::Width && instr.wide()) => {
                let (lo, hi) = (&w.regs[dec.d as usize], &w.regs[dec.d as usize + 1]);
                Some(Write::RegPair {
                    reg: instr.d,
                    values: std::array::from_fn(|l| lo[l] as u64 | (hi[l] as u64) << 32),
                })
            }
            _ => Some(Write::Reg {
                reg: instr.d,
                values: w.regs[dec.d as usize],
            }),
        };
        Ok(Retired {
            cta: self.cur_cta,
            warp: wi as u32,
            pc,
            active,
            instr,
            write,
            undef: self.undef,
        })
    }

    /// Run until the grid is done or `budget` more warp instructions have
    /// been executed (then an error naming the warp that would run next).
    pub fn run(&mut self, budget: u64) -> Result<Stats, RunError> {
        self.single_mode()?;
        let limit = self.issued.saturating_add(budget);
        let r = self.run_inner(limit);
        self.sync_stats();
        r.map(|()| self.stats.clone())
    }

    fn run_inner(&mut self, limit: u64) -> Result<(), RunError> {
        while let Some(wi) = self.pick()? {
            self.exec_warp(wi, limit)?;
        }
        Ok(())
    }
}
