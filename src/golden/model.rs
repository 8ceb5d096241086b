//! The golden SIMT model: runs a kernel ([`Program`]) over a grid of CTAs
//! with the semantics of `docs/isa.md` (the ISA contract), and is the
//! oracle the RTL SM is checked against.
//!
//! * Warps of 32 lanes, per-thread registers (zero at launch) and
//!   predicates P0..P3 (false at launch), one pc and active mask per warp.
//! * Tesla-style reconvergence on a per-warp stack of (kind, mask, pc)
//!   entries (`SSY`/`BRA`/`SYNC`/`EXIT`), at most [`MAX_STACK`] deep.
//! * `BAR` barriers per CTA with deadlock detection, per-CTA shared memory
//!   (zero at CTA start), global memory as a little-endian byte image,
//!   atomics performed lane by lane in ascending lane order.
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

use crate::golden::arith::{ieee, sfu, tesla, Round, Tininess};
use crate::golden::isa::{
    Class, Form, Guard, Instr, ModKind, Op, Program, Rnd, Src, Sreg, MAX_REGS, NUM_PREDS, PT, RZ,
};
use crate::sm::config::{MulAdd, SmConfig};
use std::collections::BTreeMap;
use std::fmt;

/// Lanes per warp (the model's masks are `u32`).
pub const WARP: usize = 32;
/// Deepest reconvergence stack a warp may build. DIV entries of one SSY
/// region hold disjoint non-empty lane masks (at most 32 of them), plus a
/// few nested SSY entries.
pub const MAX_STACK: usize = 40;
/// Warp instructions [`run_kernel`] and [`Golden::step`] allow by default.
pub const DEFAULT_BUDGET: u64 = 100_000_000;

const FULL: u32 = u32::MAX;
const SIGN: u32 = 0x8000_0000;

/// What a kernel launch names: grid and block dimensions and the
/// parameter words (one per `.param`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// CTAs in x and y.
    pub grid: [u32; 2],
    /// Threads per CTA in x, y and z.
    pub block: [u32; 3],
    pub params: Vec<u32>,
}

/// Warp and thread instruction counts of one class.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassCount {
    /// Warp instructions issued.
    pub warp: u64,
    /// Thread instructions: lanes that executed (active and guard true).
    pub thread: u64,
}

/// Counts of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub warp_instrs: u64,
    pub thread_instrs: u64,
    /// Classes that issued at least one instruction.
    pub per_class: BTreeMap<Class, ClassCount>,
    /// CTAs run to completion.
    pub ctas: u32,
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{:<8} {:>14} {:>16}", "class", "warp instrs", "thread instrs")?;
        for c in Class::ALL {
            let n = self.per_class.get(&c).copied().unwrap_or_default();
            writeln!(f, "{:<8} {:>14} {:>16}", c.name(), n.warp, n.thread)?;
        }
        writeln!(f, "{:<8} {:>14} {:>16}", "total", self.warp_instrs, self.thread_instrs)?;
        writeln!(f, "CTAs completed: {}", self.ctas)
    }
}

/// A memory space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Shared,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
        }
    }
}

/// What one warp instruction wrote (only lanes in [`Retired::active`] are
/// meaningful in the arrays).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    /// A 32-bit register (values after the write).
    Reg { reg: u8, values: [u32; 32] },
    /// An FP64 register pair or a `.64` load: `reg` is the even register.
    RegPair { reg: u8, values: [u64; 32] },
    /// A predicate: its whole bit mask after the write.
    Pred { pred: u8, values: u32 },
    /// A 32-bit store.
    Mem {
        space: Space,
        addrs: [u32; 32],
        values: [u32; 32],
    },
    /// A `.64` store.
    MemPair {
        space: Space,
        addrs: [u32; 32],
        values: [u64; 32],
    },
    /// An atomic: `old` went to register `reg` (unless it is RZ), `new` to
    /// memory, lane by lane in ascending order.
    Atom {
        space: Space,
        reg: u8,
        addrs: [u32; 32],
        old: [u32; 32],
        new: [u32; 32],
    },
}

/// One retired warp instruction (from [`Golden::step`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retired {
    /// Linear CTA index (x + y * grid x).
    pub cta: u32,
    /// Warp index in the CTA.
    pub warp: u32,
    pub pc: u32,
    /// Lanes that executed (active and guard true; the whole active mask
    /// for SSY, SYNC and BAR).
    pub active: u32,
    pub instr: Instr,
    /// `None` for control instructions and writes to RZ/PT.
    pub write: Option<Write>,
}

impl fmt::Display for Retired {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cta {} warp {} pc {} mask {:08x}  {}",
            self.cta,
            self.warp,
            self.pc,
            self.active,
            crate::golden::asm::format_instr(&self.instr, None)
        )?;
        let lanes = |m: u32| (0..32).filter(move |l| m >> l & 1 != 0);
        match &self.write {
            None => Ok(()),
            Some(Write::Reg { reg, values }) => {
                write!(f, "  -> R{reg}:")?;
                for l in lanes(self.active) {
                    write!(f, " {l}={:08x}", values[l])?;
                }
                Ok(())
            }
            Some(Write::RegPair { reg, values }) => {
                write!(f, "  -> R{reg}:R{}:", reg + 1)?;
                for l in lanes(self.active) {
                    write!(f, " {l}={:016x}", values[l])?;
                }
                Ok(())
            }
            Some(Write::Pred { pred, values }) => write!(f, "  -> P{pred} = {values:08x}"),
            Some(Write::Mem { space, addrs, values }) => {
                write!(f, "  -> {}:", space.name())?;
                for l in lanes(self.active) {
                    write!(f, " [{:x}]={:08x}", addrs[l], values[l])?;
                }
                Ok(())
            }
            Some(Write::MemPair { space, addrs, values }) => {
                write!(f, "  -> {}:", space.name())?;
                for l in lanes(self.active) {
                    write!(f, " [{:x}]={:016x}", addrs[l], values[l])?;
                }
                Ok(())
            }
            Some(Write::Atom {
                space,
                reg,
                addrs,
                old,
                new,
            }) => {
                write!(f, "  -> {} atomic, old to R{reg}:", space.name())?;
                for l in lanes(self.active) {
                    write!(f, " [{:x}] {:08x}->{:08x}", addrs[l], old[l], new[l])?;
                }
                Ok(())
            }
        }
    }
}

/// Where an error happened; fields that do not apply are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Place {
    /// Linear CTA index and its (x, y).
    pub cta: Option<(u32, [u32; 2])>,
    pub warp: Option<u32>,
    pub lane: Option<u32>,
    pub pc: Option<u32>,
    /// Source line of the instruction (when assembled from text).
    pub line: Option<u32>,
}

/// Why a launch or a run stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Reason {
    #[error("the model needs warp_size = 32, the config has {0}")]
    WarpSize(u32),
    #[error("{what} is 0: every grid and block dimension must be at least 1")]
    EmptyLaunch { what: &'static str },
    #[error("a grid of {ctas} CTAs is too large (at most 2^32 - 1)")]
    TooManyCtas { ctas: u64 },
    #[error("{threads} threads per CTA exceed max_threads = {max} of the {config} preset")]
    TooManyThreads { threads: u64, max: u32, config: String },
    #[error(".regs {regs} exceeds max_regs_per_thread = {max} of the {config} preset")]
    TooManyRegs { regs: u32, max: u32, config: String },
    #[error(
        "{regs} registers x {threads} threads (whole warps) = {need} exceed the register file \
         (registers = {have}) of the {config} preset"
    )]
    RegFile {
        regs: u32,
        threads: u64,
        need: u64,
        have: u32,
        config: String,
    },
    #[error(".shared {bytes} bytes exceed smem_bytes = {max} of the {config} preset")]
    TooMuchShared { bytes: u32, max: u32, config: String },
    #[error("the kernel declares {declared} parameter words (.param) but the launch gives {given}")]
    ParamCount { declared: usize, given: usize },
    #[error(".regs {0} is out of range 1..=128")]
    BadRegCount(u32),
    #[error("invalid instruction {text}: {why}")]
    InvalidInstr { text: String, why: String },
    #[error("{text}: register R{reg} is not below .regs {regs}")]
    RegOutOfRange { text: String, reg: u32, regs: u32 },
    #[error("{text}: {op} must not have a guard predicate (it acts on the whole warp)")]
    GuardedControl { text: String, op: &'static str },
    #[error("ran off the end of the code ({len} instructions) without EXIT")]
    RanOffEnd { len: usize },
    #[error("branch target {target} is outside the code (0..{len})")]
    BranchOutOfCode { target: u32, len: usize },
    #[error("the instruction budget of {budget} warp instructions is exhausted (the kernel never exits?)")]
    Budget { budget: u64 },
    #[error(
        "barrier deadlock: the warp waits at BAR with lanes {arrived:08x} but lanes {parked:08x} \
         are parked on its reconvergence stack (BAR in divergent code) and every other warp \
         waits or is done"
    )]
    Deadlock { arrived: u32, parked: u32 },
    #[error("step_warp: the warp does not exist, is done, or waits at a barrier")]
    NotRunnable,
    #[error("SYNC with an empty reconvergence stack")]
    SyncEmptyStack,
    #[error("reconvergence stack overflow (more than {max} entries)")]
    StackOverflow { max: usize },
    #[error("{space} access of {bytes} bytes at address 0x{addr:x} is out of bounds ({space} memory is {size} bytes)")]
    OutOfBounds {
        space: &'static str,
        addr: u32,
        bytes: u32,
        size: usize,
    },
    #[error("misaligned {space} access at address 0x{addr:x} (needs {align}-byte alignment; {space} memory is {size} bytes)")]
    Misaligned {
        space: &'static str,
        addr: u32,
        align: u32,
        size: usize,
    },
    #[error("parameter word index {index} is out of range (the launch has {count} words)")]
    ParamOutOfRange { index: u64, count: usize },
}

/// A launch or run error: the place and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    pub place: Place,
    pub reason: Reason,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = &self.place;
        let mut parts = Vec::new();
        if let Some((i, [x, y])) = p.cta {
            parts.push(format!("cta {i} ({x},{y})"));
        }
        if let Some(w) = p.warp {
            parts.push(format!("warp {w}"));
        }
        if let Some(l) = p.lane {
            parts.push(format!("lane {l}"));
        }
        if let Some(pc) = p.pc {
            parts.push(format!("pc {pc}"));
        }
        if let Some(l) = p.line {
            parts.push(format!("line {l}"));
        }
        if parts.is_empty() {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "{}: {}", parts.join(", "), self.reason)
        }
    }
}

impl std::error::Error for RunError {}

impl RunError {
    fn launch(reason: Reason) -> RunError {
        RunError {
            place: Place::default(),
            reason,
        }
    }
}

/// An error inside one warp instruction (the caller adds the place).
struct Fault {
    lane: Option<u32>,
    reason: Reason,
}

impl From<Reason> for Fault {
    fn from(reason: Reason) -> Fault {
        Fault { lane: None, reason }
    }
}

/// One instruction, decoded once at load: register fields resolved to
/// register-file rows (RZ reads the zero rows, writes the sink rows).
#[derive(Debug, Clone, Copy)]
struct Dec {
    op: Op,
    class: u8,
    /// Guard predicate index into `Warp::preds` (4 = PT).
    gpred: u8,
    gneg: bool,
    m: u8,
    rnd: Round,
    /// Row written by `d` (RZ: sink) and its field value.
    d: u16,
    a: u16,
    b: u16,
    b_imm: bool,
    imm: u32,
    c: u16,
    /// Signed memory offset / LDC word offset / special register.
    off: i32,
    e: u16,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Sync,
    Div,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    kind: Kind,
    mask: u32,
    pc: u32,
}

#[derive(Debug, Clone)]
struct Warp {
    /// `regs` rows, then two zero rows (RZ reads, pairs too), then two sink
    /// rows (RZ writes).
    regs: Vec<[u32; 32]>,
    /// P0..P3 bit masks, then PT (all ones).
    preds: [u32; 5],
    pc: u32,
    active: u32,
    /// Lanes that exist and have not exited.
    live: u32,
    stack: Vec<Entry>,
    waiting: bool,
    arrived: u32,
    done: bool,
    clock: u64,
    /// Thread index (x, y, z) per lane.
    tid: [[u32; 32]; 3],
    /// Warp index in the CTA.
    index: u32,
}

/// Per-launch constants the instructions read.
#[derive(Debug, Clone)]
struct Ctx {
    params: Vec<u32>,
    block: [u32; 3],
    grid: [u32; 2],
    cta_xy: [u32; 2],
    tesla_fp: bool,
    code_len: u32,
}

/// Store/atomic details for [`Retired`] records.
struct Scratch {
    addrs: [u32; 32],
    vals: [u64; 32],
    new: [u32; 32],
}

/// The golden SIMT model of one kernel launch.
pub struct Golden {
    prog: Program,
    code: Vec<Dec>,
    ctx: Ctx,
    gmem: Vec<u8>,
    shared: Vec<u8>,
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
}

fn class_index(c: Class) -> u8 {
    Class::ALL.iter().position(|&x| x == c).unwrap_or(0) as u8
}

impl Golden {
    /// Check the launch against the config and the program, decode the
    /// program, and set up CTA 0. `gmem` is the initial global memory.
    pub fn new(cfg: &SmConfig, prog: &Program, launch: &Launch, gmem: Vec<u8>) -> Result<Golden, RunError> {
        let err = |r| Err(RunError::launch(r));
        if cfg.warp_size as usize != WARP {
            return err(Reason::WarpSize(cfg.warp_size));
        }
        for (what, v) in [
            ("grid x", launch.grid[0]),
            ("grid y", launch.grid[1]),
            ("block x", launch.block[0]),
            ("block y", launch.block[1]),
            ("block z", launch.block[2]),
        ] {
            if v == 0 {
                return err(Reason::EmptyLaunch { what });
            }
        }
        let ctas = launch.grid[0] as u64 * launch.grid[1] as u64;
        if ctas > u32::MAX as u64 {
            return err(Reason::TooManyCtas { ctas });
        }
        let threads = launch.block.iter().map(|&v| v as u64).product::<u64>();
        if threads > cfg.max_threads as u64 {
            return err(Reason::TooManyThreads {
                threads,
                max: cfg.max_threads,
                config: cfg.name.clone(),
            });
        }
        if prog.regs == 0 || prog.regs > MAX_REGS as u32 {
            return err(Reason::BadRegCount(prog.regs));
        }
        if prog.regs > cfg.max_regs_per_thread {
            return err(Reason::TooManyRegs {
                regs: prog.regs,
                max: cfg.max_regs_per_thread,
                config: cfg.name.clone(),
            });
        }
        let warps = threads.div_ceil(WARP as u64);
        let need = prog.regs as u64 * warps * WARP as u64;
        if need > cfg.registers as u64 {
            return err(Reason::RegFile {
                regs: prog.regs,
                threads: warps * WARP as u64,
                need,
                have: cfg.registers,
                config: cfg.name.clone(),
            });
        }
        if prog.shared_bytes > cfg.smem_bytes {
            return err(Reason::TooMuchShared {
                bytes: prog.shared_bytes,
                max: cfg.smem_bytes,
                config: cfg.name.clone(),
            });
        }
        if prog.params.len() != launch.params.len() {
            return err(Reason::ParamCount {
                declared: prog.params.len(),
                given: launch.params.len(),
            });
        }
        let nregs = prog.regs as usize;
        let mut code = Vec::with_capacity(prog.code.len());
        for (pc, i) in prog.code.iter().enumerate() {
            let at = |reason| RunError {
                place: Place {
                    pc: Some(pc as u32),
                    line: prog.src_lines.get(pc).copied(),
                    ..Place::default()
                },
                reason,
            };
            code.push(decode(i, nregs).map_err(at)?);
        }
        let threads = threads as u32;
        let nwarps = warps as usize;
        let mut g = Golden {
            prog: prog.clone(),
            code,
            ctx: Ctx {
                params: launch.params.clone(),
                block: launch.block,
                grid: launch.grid,
                cta_xy: [0, 0],
                tesla_fp: cfg.mul_add == MulAdd::Fmad,
                code_len: prog.code.len() as u32,
            },
            gmem,
            shared: vec![0; prog.shared_bytes as usize],
            warps: (0..nwarps)
                .map(|w| Warp {
                    regs: vec![[0; 32]; nregs + 4],
                    preds: [0, 0, 0, 0, FULL],
                    pc: 0,
                    active: 0,
                    live: 0,
                    stack: Vec::with_capacity(MAX_STACK),
                    waiting: false,
                    arrived: 0,
                    done: false,
                    clock: 0,
                    tid: tids(w, launch.block),
                    index: w as u32,
                })
                .collect(),
            threads,
            cur_cta: 0,
            ncta: launch.grid[0] * launch.grid[1],
            next_warp: 0,
            finished: false,
            budget: DEFAULT_BUDGET,
            counts: [ClassCount::default(); 9],
            issued: 0,
            stats: Stats::default(),
            scratch: Scratch {
                addrs: [0; 32],
                vals: [0; 32],
                new: [0; 32],
            },
        };
        g.start_cta();
        Ok(g)
    }

    /// Reset warps and shared memory for CTA `cur_cta`.
    fn start_cta(&mut self) {
        let c = self.cur_cta;
        self.ctx.cta_xy = [c % self.ctx.grid[0], c / self.ctx.grid[0]];
        self.shared.fill(0);
        self.next_warp = 0;
        let nw = self.warps.len();
        for (w, warp) in self.warps.iter_mut().enumerate() {
            for r in warp.regs.iter_mut() {
                *r = [0; 32];
            }
            warp.preds = [0, 0, 0, 0, FULL];
            warp.pc = 0;
            let lanes = if w + 1 == nw {
                self.threads - (w as u32) * WARP as u32
            } else {
                WARP as u32
            };
            let m = if lanes >= 32 { FULL } else { (1u32 << lanes) - 1 };
            warp.active = m;
            warp.live = m;
            warp.stack.clear();
            warp.waiting = false;
            warp.arrived = 0;
            warp.done = false;
            warp.clock = 0;
        }
    }

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

    /// The next warp to run (round robin), advancing CTAs and releasing
    /// barriers as needed; `None` when the grid is done.
    fn pick(&mut self) -> Result<Option<usize>, RunError> {
        loop {
            if self.finished {
                return Ok(None);
            }
            let n = self.warps.len();
            let mut i = self.next_warp;
            for _ in 0..n {
                let w = &self.warps[i];
                if !w.done && !w.waiting {
                    self.next_warp = if i + 1 == n { 0 } else { i + 1 };
                    return Ok(Some(i));
                }
                i = if i + 1 == n { 0 } else { i + 1 };
            }
            // Nobody can run: the CTA is done, or every live warp waits.
            if self.warps.iter().all(|w| w.done) {
                self.stats.ctas += 1;
                self.cur_cta += 1;
                if self.cur_cta >= self.ncta {
                    self.finished = true;
                    return Ok(None);
                }
                self.start_cta();
                continue;
            }
            if let Some((wi, w)) = self
                .warps
                .iter()
                .enumerate()
                .find(|(_, w)| !w.done && w.arrived != w.live)
            {
                let reason = Reason::Deadlock {
                    arrived: w.arrived,
                    parked: w.live & !w.arrived,
                };
                return Err(RunError {
                    place: self.place(wi, None, w.pc.wrapping_sub(1)),
                    reason,
                });
            }
            for w in self.warps.iter_mut() {
                w.waiting = false;
                w.arrived = 0;
            }
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
                reason: Reason::RanOffEnd { len: self.code.len() },
            });
        }
        if self.issued >= limit {
            return Err(RunError {
                place: self.place(wi, None, pc),
                reason: Reason::Budget { budget: limit },
            });
        }
        let dec = self.code[pc as usize];
        let warp = &mut self.warps[wi];
        let r = exec(
            &dec,
            warp,
            &mut self.gmem,
            &mut self.shared,
            &self.ctx,
            &mut self.scratch,
        );
        warp.clock += 1;
        match r {
            Ok(mask) => {
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
            Form::None | Form::Target => None,
            Form::PAB => (instr.d < NUM_PREDS).then(|| Write::Pred {
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
        })
    }

    /// Run until the grid is done or `budget` more warp instructions have
    /// been executed (then an error naming the warp that would run next).
    pub fn run(&mut self, budget: u64) -> Result<Stats, RunError> {
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

/// Thread indices of the lanes of warp `w`.
#[allow(clippy::needless_range_loop)]
fn tids(w: usize, block: [u32; 3]) -> [[u32; 32]; 3] {
    let mut t = [[0; 32]; 3];
    for l in 0..WARP {
        let lin = (w * WARP + l) as u64;
        let (bx, by) = (block[0] as u64, block[1] as u64);
        t[0][l] = (lin % bx) as u32;
        t[1][l] = (lin / bx % by) as u32;
        t[2][l] = (lin / (bx * by)) as u32;
    }
    t
}

/// Check and pre-resolve one instruction.
fn decode(i: &Instr, nregs: usize) -> Result<Dec, Reason> {
    let text = instr_text_safe(i);
    let info = i.info();
    if i.guard != Guard::ALWAYS && !i.op.takes_guard() {
        return Err(Reason::GuardedControl {
            text,
            op: info.mnemonic,
        });
    }
    i.validate().map_err(|e| Reason::InvalidInstr {
        text: text.clone(),
        why: e.to_string(),
    })?;
    let uses = info.form.uses();
    let wide = info.modk == ModKind::Width && i.wide();
    let check = |r: u8, used: bool, pair: bool| -> Result<(), Reason> {
        if !used || r == RZ {
            return Ok(());
        }
        let top = r as u32 + pair as u32;
        if top as usize >= nregs {
            return Err(Reason::RegOutOfRange {
                text: text.clone(),
                reg: top,
                regs: nregs as u32,
            });
        }
        Ok(())
    };
    if info.form != Form::PAB {
        check(i.d, uses.d, info.pairs.d || (wide && info.form == Form::Load))?;
    }
    check(i.a, uses.a, info.pairs.a)?;
    if let Src::Reg(b) = i.b {
        check(b, uses.b, info.pairs.b || (wide && info.form == Form::Store))?;
    }
    check(i.c, uses.c, info.pairs.c)?;
    let rd = |r: u8| if r == RZ { nregs as u16 } else { r as u16 };
    let wr = |r: u8| if r == RZ { nregs as u16 + 2 } else { r as u16 };
    let (b, b_imm, imm) = match i.b {
        Src::Reg(r) => (rd(r), false, 0),
        Src::Imm(v) => (nregs as u16, true, v),
    };
    Ok(Dec {
        op: i.op,
        class: class_index(info.class),
        gpred: if i.guard.pred == PT { 4 } else { i.guard.pred },
        gneg: i.guard.neg,
        m: i.m,
        rnd: Rnd::from_bits(i.m).round(),
        d: if info.form == Form::PAB { i.d as u16 } else { wr(i.d) },
        a: rd(i.a),
        b,
        b_imm,
        imm,
        c: rd(i.c),
        off: i.offset(),
        e: i.e,
    })
}

/// [`instr_text`] for instructions that may not validate (no panics on
/// bad special-register numbers).
fn instr_text_safe(i: &Instr) -> String {
    if i.info().form == Form::Sreg && Sreg::from_bits(i.e).is_none() {
        return format!("{} (special register {})", i.info().mnemonic, i.e);
    }
    if i.validate().is_err() {
        return format!("{:?}", i);
    }
    crate::golden::asm::format_instr(i, None)
}

/// Apply `f` to every lane in `mask` (a straight loop when all 32 are on).
#[inline(always)]
fn for_lanes(mask: u32, mut f: impl FnMut(usize)) {
    if mask == FULL {
        for l in 0..WARP {
            f(l);
        }
    } else {
        let mut m = mask;
        while m != 0 {
            f(m.trailing_zeros() as usize);
            m &= m - 1;
        }
    }
}

#[inline(always)]
fn row_b(w: &Warp, i: &Dec) -> [u32; 32] {
    if i.b_imm {
        [i.imm; 32]
    } else {
        w.regs[i.b as usize]
    }
}

#[inline(always)]
fn op1(w: &mut Warp, i: &Dec, mask: u32, f: impl Fn(u32) -> u32) {
    let a = w.regs[i.a as usize];
    let d = &mut w.regs[i.d as usize];
    for_lanes(mask, |l| d[l] = f(a[l]));
}

#[inline(always)]
fn op2(w: &mut Warp, i: &Dec, mask: u32, f: impl Fn(u32, u32) -> u32) {
    let a = w.regs[i.a as usize];
    let b = row_b(w, i);
    let d = &mut w.regs[i.d as usize];
    for_lanes(mask, |l| d[l] = f(a[l], b[l]));
}

#[inline(always)]
fn op3(w: &mut Warp, i: &Dec, mask: u32, f: impl Fn(u32, u32, u32) -> u32) {
    let a = w.regs[i.a as usize];
    let b = row_b(w, i);
    let c = w.regs[i.c as usize];
    let d = &mut w.regs[i.d as usize];
    for_lanes(mask, |l| d[l] = f(a[l], b[l], c[l]));
}

#[inline(always)]
fn pair(w: &Warp, r: u16, l: usize) -> u64 {
    w.regs[r as usize][l] as u64 | (w.regs[r as usize + 1][l] as u64) << 32
}

#[inline(always)]
fn set_pair(w: &mut Warp, r: u16, l: usize, v: u64) {
    w.regs[r as usize][l] = v as u32;
    w.regs[r as usize + 1][l] = (v >> 32) as u32;
}

/// Write the compare results `bits` into predicate `d` on lanes `mask`.
#[inline(always)]
fn set_pred(w: &mut Warp, d: u16, mask: u32, bits: u32) {
    if (d as u8) < NUM_PREDS {
        let p = &mut w.preds[d as usize];
        *p = (*p & !mask) | (bits & mask);
    }
}

#[inline(always)]
fn cmp_bits(mask: u32, f: impl Fn(usize) -> bool) -> u32 {
    let mut bits = 0;
    for_lanes(mask, |l| bits |= (f(l) as u32) << l);
    bits
}

/// Check an access of `bytes` at `addr` in a space of `size` bytes.
#[inline(always)]
fn check_addr(space: Space, addr: u32, bytes: u32, size: usize, lane: usize) -> Result<usize, Fault> {
    if addr & (bytes - 1) != 0 {
        return Err(Fault {
            lane: Some(lane as u32),
            reason: Reason::Misaligned {
                space: space.name(),
                addr,
                align: bytes,
                size,
            },
        });
    }
    if addr as u64 + bytes as u64 > size as u64 {
        return Err(Fault {
            lane: Some(lane as u32),
            reason: Reason::OutOfBounds {
                space: space.name(),
                addr,
                bytes,
                size,
            },
        });
    }
    Ok(addr as usize)
}

#[inline(always)]
fn rd32(m: &[u8], a: usize) -> u32 {
    u32::from_le_bytes([m[a], m[a + 1], m[a + 2], m[a + 3]])
}

#[inline(always)]
fn wr32(m: &mut [u8], a: usize, v: u32) {
    m[a..a + 4].copy_from_slice(&v.to_le_bytes());
}

#[inline(always)]
fn rd64(m: &[u8], a: usize) -> u64 {
    rd32(m, a) as u64 | (rd32(m, a + 4) as u64) << 32
}

/// Push onto the reconvergence stack.
#[inline(always)]
fn push(w: &mut Warp, e: Entry) -> Result<(), Fault> {
    if w.stack.len() >= MAX_STACK {
        return Err(Reason::StackOverflow { max: MAX_STACK }.into());
    }
    w.stack.push(e);
    Ok(())
}

/// The active mask became empty: resume the topmost stack entry that
/// still has lanes, or finish the warp.
fn resume(w: &mut Warp) {
    while let Some(e) = w.stack.pop() {
        if e.mask != 0 {
            w.active = e.mask;
            w.pc = e.pc;
            return;
        }
    }
    w.active = 0;
    w.done = true;
}

/// Addresses `a + off` of every lane, checked on the lanes in `mask`:
/// one vectorizable pass, then the first bad lane (ascending) is reported.
#[inline(always)]
fn addrs_checked(
    a: &[u32; 32],
    off: u32,
    mask: u32,
    space: Space,
    bytes: u32,
    size: usize,
) -> Result<[u32; 32], Fault> {
    let mut addrs = [0u32; 32];
    for (x, &b) in addrs.iter_mut().zip(a) {
        *x = b.wrapping_add(off);
    }
    let mut bad = 0u32;
    for (l, &x) in addrs.iter().enumerate() {
        let b = (x & (bytes - 1) != 0) | (x as u64 + bytes as u64 > size as u64);
        bad |= (b as u32) << l;
    }
    bad &= mask;
    if bad != 0 {
        let l = bad.trailing_zeros() as usize;
        check_addr(space, addrs[l], bytes, size, l)?;
    }
    Ok(addrs)
}

#[inline(always)]
fn rd32s(m: &[u8], a: u32) -> u32 {
    let a = a as usize;
    u32::from_le_bytes(m[a..a + 4].try_into().expect("4 bytes"))
}

#[inline(always)]
fn load(w: &mut Warp, i: &Dec, mask: u32, mem: &[u8], space: Space, wide: bool) -> Result<(), Fault> {
    let bytes = if wide { 8 } else { 4 };
    let addrs = addrs_checked(&w.regs[i.a as usize], i.off as u32, mask, space, bytes, mem.len())?;
    if wide {
        let mut v = [0u64; 32];
        for_lanes(mask, |l| v[l] = rd64(mem, addrs[l] as usize));
        for_lanes(mask, |l| set_pair(w, i.d, l, v[l]));
    } else {
        let d = &mut w.regs[i.d as usize];
        for_lanes(mask, |l| d[l] = rd32s(mem, addrs[l]));
    }
    Ok(())
}

#[inline(always)]
fn store(w: &Warp, i: &Dec, mask: u32, mem: &mut [u8], space: Space, wide: bool, s: &mut Scratch) -> Result<(), Fault> {
    let bytes = if wide { 8 } else { 4 };
    s.addrs = addrs_checked(&w.regs[i.a as usize], i.off as u32, mask, space, bytes, mem.len())?;
    // Ascending lanes: the highest lane writing an address wins.
    if wide {
        for_lanes(mask, |l| {
            let v = pair(w, i.b, l);
            s.vals[l] = v;
            let at = s.addrs[l] as usize;
            mem[at..at + 8].copy_from_slice(&v.to_le_bytes());
        });
    } else {
        let b = w.regs[i.b as usize];
        for_lanes(mask, |l| {
            s.vals[l] = b[l] as u64;
            wr32(mem, s.addrs[l] as usize, b[l]);
        });
    }
    Ok(())
}

fn atomic(w: &mut Warp, i: &Dec, mask: u32, mem: &mut [u8], space: Space, s: &mut Scratch) -> Result<(), Fault> {
    let a = w.regs[i.a as usize];
    let b = w.regs[i.b as usize];
    let c = w.regs[i.c as usize];
    let op = crate::golden::isa::AtomOp::from_bits(i.m).expect("validated at load");
    s.addrs = addrs_checked(&a, i.off as u32, mask, space, 4, mem.len())?;
    let mut old = [0u32; 32];
    for_lanes(mask, |l| {
        let at = s.addrs[l] as usize;
        let o = rd32(mem, at);
        let n = op.apply(o, b[l], c[l]);
        wr32(mem, at, n);
        old[l] = o;
        s.vals[l] = o as u64;
        s.new[l] = n;
    });
    let d = &mut w.regs[i.d as usize];
    for_lanes(mask, |l| d[l] = old[l]);
    Ok(())
}

/// Execute one instruction on a warp; returns the lanes that executed.
#[inline(always)]
fn exec(i: &Dec, w: &mut Warp, gmem: &mut [u8], shared: &mut [u8], ctx: &Ctx, s: &mut Scratch) -> Result<u32, Fault> {
    let g = {
        let p = w.preds[i.gpred as usize];
        if i.gneg {
            !p
        } else {
            p
        }
    };
    let mask = w.active & g;
    let pc = w.pc;
    w.pc = pc + 1;
    let rnd = i.rnd;
    let na = if i.m & 4 != 0 { SIGN } else { 0 };
    let nbc = if i.m & 8 != 0 { SIGN } else { 0 };
    const TIN: Tininess = Tininess::AfterRounding;
    match i.op {
        Op::Nop => {}
        Op::Iadd => op2(w, i, mask, |a, b| a.wrapping_add(b)),
        Op::Isub => op2(w, i, mask, |a, b| a.wrapping_sub(b)),
        Op::Imul => {
            let mm = crate::golden::isa::MulMode::from_bits(i.m).expect("validated");
            op2(w, i, mask, |a, b| mm.eval(a, b))
        }
        Op::Imad => {
            let mm = crate::golden::isa::MulMode::from_bits(i.m).expect("validated");
            op3(w, i, mask, |a, b, c| mm.eval(a, b).wrapping_add(c))
        }
        Op::Imin => {
            if i.m & 1 != 0 {
                op2(w, i, mask, |a, b| a.min(b))
            } else {
                op2(w, i, mask, |a, b| (a as i32).min(b as i32) as u32)
            }
        }
        Op::Imax => {
            if i.m & 1 != 0 {
                op2(w, i, mask, |a, b| a.max(b))
            } else {
                op2(w, i, mask, |a, b| (a as i32).max(b as i32) as u32)
            }
        }
        Op::Shl => op2(w, i, mask, |a, b| if b >= 32 { 0 } else { a << b }),
        Op::Shr => {
            if i.m & 1 != 0 {
                op2(w, i, mask, |a, b| ((a as i32) >> b.min(31)) as u32)
            } else {
                op2(w, i, mask, |a, b| if b >= 32 { 0 } else { a >> b })
            }
        }
        Op::And => op2(w, i, mask, |a, b| a & b),
        Op::Or => op2(w, i, mask, |a, b| a | b),
        Op::Xor => op2(w, i, mask, |a, b| a ^ b),
        Op::Not => {
            let b = row_b(w, i);
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = !b[l]);
        }
        Op::Iabs => op1(w, i, mask, |a| (a as i32).wrapping_abs() as u32),
        Op::Isetp => {
            let cmp = crate::golden::isa::ICmp::from_bits(i.m).expect("validated");
            let uns = i.m & 8 != 0;
            let a = w.regs[i.a as usize];
            let b = row_b(w, i);
            let bits = cmp_bits(mask, |l| cmp.eval(a[l], b[l], uns));
            set_pred(w, i.d, mask, bits);
        }
        Op::Sel => {
            let pi = i.m & 7;
            let p = w.preds[if pi == PT { 4 } else { pi as usize }];
            let p = if i.m & 8 != 0 { !p } else { p };
            op2(w, i, mask & p, |a, _| a);
            op2(w, i, mask & !p, |_, b| b);
        }
        Op::Fadd => {
            if ctx.tesla_fp {
                op2(w, i, mask, |a, b| tesla::fadd(a ^ na, b ^ nbc, rnd))
            } else {
                op2(w, i, mask, |a, b| ieee::f32_add(a ^ na, b ^ nbc, rnd, TIN).0)
            }
        }
        Op::Fmul => {
            if ctx.tesla_fp {
                op2(w, i, mask, |a, b| tesla::fmul(a ^ na, b ^ nbc, rnd))
            } else {
                op2(w, i, mask, |a, b| ieee::f32_mul(a ^ na, b ^ nbc, rnd, TIN).0)
            }
        }
        Op::Fmad => op3(w, i, mask, |a, b, c| tesla::fmad(a ^ na, b, c ^ nbc)),
        Op::Ffma => op3(w, i, mask, |a, b, c| ieee::f32_fma(a ^ na, b, c ^ nbc, rnd, TIN).0),
        Op::Fmin => op2(w, i, mask, ieee::f32_min),
        Op::Fmax => op2(w, i, mask, ieee::f32_max),
        Op::Fsetp => {
            let fc = crate::golden::isa::FCmp(i.m & 15);
            let a = w.regs[i.a as usize];
            let b = row_b(w, i);
            let bits = cmp_bits(mask, |l| fc.eval_f32(a[l], b[l]));
            set_pred(w, i.d, mask, bits);
        }
        Op::Rcp => op1(w, i, mask, sfu::rcp),
        Op::Rsq => op1(w, i, mask, sfu::rsqrt),
        Op::Lg2 => op1(w, i, mask, sfu::lg2),
        Op::Ex2 => op1(w, i, mask, sfu::ex2),
        Op::Sin => op1(w, i, mask, sfu::sin),
        Op::Cos => op1(w, i, mask, sfu::cos),
        Op::Presin => op1(w, i, mask, sfu::presin),
        Op::Preex2 => op1(w, i, mask, sfu::preex2),
        Op::Dadd | Op::Dmul | Op::Dfma => {
            let nb = (nbc as u64) << 32;
            let na = (na as u64) << 32;
            let mut r = [0u64; 32];
            for_lanes(mask, |l| {
                let (a, b) = (pair(w, i.a, l) ^ na, pair(w, i.b, l));
                r[l] = match i.op {
                    Op::Dadd => ieee::f64_add(a, b ^ nb, rnd, TIN).0,
                    Op::Dmul => ieee::f64_mul(a, b ^ nb, rnd, TIN).0,
                    _ => ieee::f64_fma(a, b, pair(w, i.c, l) ^ nb, rnd, TIN).0,
                };
            });
            for_lanes(mask, |l| set_pair(w, i.d, l, r[l]));
        }
        Op::Dsetp => {
            let fc = crate::golden::isa::FCmp(i.m & 15);
            let bits = cmp_bits(mask, |l| fc.eval_f64(pair(w, i.a, l), pair(w, i.b, l)));
            set_pred(w, i.d, mask, bits);
        }
        Op::I2f => {
            let signed = i.m & 4 == 0;
            op1(w, i, mask, |a| ieee::i32_to_f32(a, signed, rnd))
        }
        Op::F2i => {
            let signed = i.m & 4 == 0;
            op1(w, i, mask, |a| ieee::f32_to_i32(a, signed, rnd))
        }
        Op::I2d => {
            let signed = i.m & 4 == 0;
            let a = w.regs[i.a as usize];
            for_lanes(mask, |l| set_pair(w, i.d, l, ieee::i32_to_f64(a[l], signed)));
        }
        Op::D2i => {
            let signed = i.m & 4 == 0;
            let mut r = [0u32; 32];
            for_lanes(mask, |l| r[l] = ieee::f64_to_i32(pair(w, i.a, l), signed, rnd));
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = r[l]);
        }
        Op::F2d => {
            let a = w.regs[i.a as usize];
            for_lanes(mask, |l| set_pair(w, i.d, l, ieee::f32_to_f64(a[l])));
        }
        Op::D2f => {
            let mut r = [0u32; 32];
            for_lanes(mask, |l| r[l] = ieee::f64_to_f32(pair(w, i.a, l), rnd));
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = r[l]);
        }
        Op::Mov => {
            let b = row_b(w, i);
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = b[l]);
        }
        Op::S2r => {
            let sr = Sreg::from_bits(i.e).expect("validated");
            let v: [u32; 32] = match sr {
                Sreg::TidX => w.tid[0],
                Sreg::TidY => w.tid[1],
                Sreg::TidZ => w.tid[2],
                Sreg::NtidX => [ctx.block[0]; 32],
                Sreg::NtidY => [ctx.block[1]; 32],
                Sreg::NtidZ => [ctx.block[2]; 32],
                Sreg::CtaidX => [ctx.cta_xy[0]; 32],
                Sreg::CtaidY => [ctx.cta_xy[1]; 32],
                Sreg::NctaidX => [ctx.grid[0]; 32],
                Sreg::NctaidY => [ctx.grid[1]; 32],
                Sreg::LaneId => std::array::from_fn(|l| l as u32),
                Sreg::WarpId => [w.index; 32],
                Sreg::Clock => [w.clock as u32; 32],
            };
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = v[l]);
        }
        Op::Ldc => {
            let a = w.regs[i.a as usize];
            let n = ctx.params.len();
            let mut err = None;
            let mut v = [0u32; 32];
            for_lanes(mask, |l| {
                let idx = a[l] as u64 + i.e as u64;
                if idx < n as u64 {
                    v[l] = ctx.params[idx as usize];
                } else if err.is_none() {
                    err = Some(Fault {
                        lane: Some(l as u32),
                        reason: Reason::ParamOutOfRange { index: idx, count: n },
                    });
                }
            });
            if let Some(f) = err {
                return Err(f);
            }
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = v[l]);
        }
        Op::Ldg => load(w, i, mask, gmem, Space::Global, i.m & 1 != 0)?,
        Op::Lds => load(w, i, mask, shared, Space::Shared, i.m & 1 != 0)?,
        Op::Stg => store(w, i, mask, gmem, Space::Global, i.m & 1 != 0, s)?,
        Op::Sts => store(w, i, mask, shared, Space::Shared, i.m & 1 != 0, s)?,
        Op::Atomg => atomic(w, i, mask, gmem, Space::Global, s)?,
        Op::Atoms => atomic(w, i, mask, shared, Space::Shared, s)?,
        Op::Bra => {
            let t = i.imm;
            if mask != 0 {
                if t >= ctx.code_len {
                    return Err(Reason::BranchOutOfCode {
                        target: t,
                        len: ctx.code_len as usize,
                    }
                    .into());
                }
                if mask != w.active {
                    push(
                        w,
                        Entry {
                            kind: Kind::Div,
                            mask: w.active & !mask,
                            pc: pc + 1,
                        },
                    )?;
                    w.active = mask;
                }
                w.pc = t;
            }
        }
        Op::Ssy => {
            let t = i.imm;
            if t >= ctx.code_len {
                return Err(Reason::BranchOutOfCode {
                    target: t,
                    len: ctx.code_len as usize,
                }
                .into());
            }
            push(
                w,
                Entry {
                    kind: Kind::Sync,
                    mask: w.active,
                    pc: t,
                },
            )?;
            return Ok(w.active);
        }
        Op::Sync => {
            let executed = w.active;
            match w.stack.pop() {
                None => return Err(Reason::SyncEmptyStack.into()),
                Some(e) => {
                    let _ = e.kind;
                    if e.mask != 0 {
                        w.active = e.mask;
                        w.pc = e.pc;
                    } else {
                        resume(w);
                    }
                }
            }
            return Ok(executed);
        }
        Op::Bar => {
            w.waiting = true;
            w.arrived = w.active;
            return Ok(w.active);
        }
        Op::Exit => {
            if mask != 0 {
                w.live &= !mask;
                w.active &= !mask;
                for e in w.stack.iter_mut() {
                    e.mask &= !mask;
                }
                if w.active == 0 {
                    resume(w);
                }
            }
        }
    }
    Ok(mask)
}

/// Run a whole launch with the default budget; returns the final global
/// memory and the counts.
pub fn run_kernel(
    cfg: &SmConfig,
    prog: &Program,
    launch: &Launch,
    gmem: Vec<u8>,
) -> Result<(Vec<u8>, Stats), RunError> {
    let mut g = Golden::new(cfg, prog, launch, gmem)?;
    let stats = g.run(DEFAULT_BUDGET)?;
    Ok((g.into_gmem(), stats))
}

/// Parse one `--param` value for `smrtl run`: a decimal integer (`-5`,
/// `4096`, signed or unsigned 32-bit), hexadecimal (`0x3f800000`), or an
/// FP32 value written with a `.`, an exponent or an `f` suffix (`1.5`,
/// `-2e-3`, `3f`, `inf`, `nan`), stored as its IEEE bits (rounded to
/// nearest).
pub fn parse_param_value(text: &str) -> Result<u32, String> {
    let t = text.trim();
    let bad = || format!("parameter value `{text}` is not a 32-bit integer, 0x hex or an FP32 number (1.5, 2e3, 3f)");
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u32::from_str_radix(h, 16).map_err(|_| bad());
    }
    if let Ok(v) = t.parse::<i64>() {
        if v < i32::MIN as i64 || v > u32::MAX as i64 {
            return Err(format!("parameter value `{text}` does not fit in 32 bits"));
        }
        return Ok(v as u32);
    }
    let lower = t.to_ascii_lowercase();
    let f = lower.strip_suffix('f').filter(|r| !r.ends_with("in")).unwrap_or(&lower);
    if f.contains(['.', 'e']) || f.ends_with("inf") || f.ends_with("nan") || lower.ends_with('f') {
        if let Ok(x) = f.parse::<f32>() {
            return Ok(x.to_bits());
        }
    }
    Err(bad())
}

/// Resolve `smrtl run --param` arguments against the kernel's `.param`
/// names: either all positional (`VALUE`, in declaration order) or all
/// named (`NAME=VALUE`, each declared name exactly once).
pub fn resolve_params(declared: &[String], args: &[String]) -> Result<Vec<u32>, String> {
    let named: Vec<Option<(&str, &str)>> = args.iter().map(|a| a.split_once('=')).collect();
    let n_named = named.iter().filter(|n| n.is_some()).count();
    if n_named == 0 {
        return args.iter().map(|a| parse_param_value(a)).collect();
    }
    if n_named != args.len() {
        return Err("mix of named (NAME=VALUE) and positional --param values; use one style".into());
    }
    let mut vals: Vec<Option<u32>> = vec![None; declared.len()];
    for (name, v) in named.into_iter().flatten() {
        let name = name.trim();
        let idx = declared.iter().position(|d| d == name).ok_or_else(|| {
            format!(
                "--param {name}: the kernel has no parameter `{name}` (it declares: {})",
                declared.join(", ")
            )
        })?;
        if vals[idx].is_some() {
            return Err(format!("--param {name} given twice"));
        }
        vals[idx] = Some(parse_param_value(v)?);
    }
    let missing: Vec<&str> = declared
        .iter()
        .zip(&vals)
        .filter(|(_, v)| v.is_none())
        .map(|(d, _)| d.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!("missing --param for: {}", missing.join(", ")));
    }
    Ok(vals.into_iter().flatten().collect())
}

/// Parse a dimension list `X[,Y[,Z]]` with at most `max` numbers; missing
/// ones are 1.
pub fn parse_dims<const N: usize>(text: &str) -> Result<[u32; N], String> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.is_empty() || parts.len() > N {
        return Err(format!("`{text}`: expected 1 to {N} comma-separated numbers"));
    }
    let mut out = [1u32; N];
    for (i, p) in parts.iter().enumerate() {
        out[i] = p
            .trim()
            .parse::<u32>()
            .map_err(|_| format!("`{text}`: `{p}` is not a non-negative 32-bit number"))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::golden::isa::{Guard, Op::*};

    fn cfg(name: &str) -> SmConfig {
        SmConfig::load(name).unwrap()
    }
    /// `op d, a, b` with register b.
    fn rr(op: Op, d: u8, a: u8, b: u8) -> Instr {
        let mut i = Instr::new(op);
        let u = op.info().form.uses();
        if u.d || op.info().form == Form::PAB {
            i.d = d;
        }
        if u.a {
            i.a = a;
        }
        if u.b {
            i.b = Src::Reg(b);
        }
        i
    }
    /// `op d, a, imm`.
    fn ri(op: Op, d: u8, a: u8, v: u32) -> Instr {
        let mut i = rr(op, d, a, 0);
        i.b = Src::Imm(v);
        i
    }
    fn mov(d: u8, v: u32) -> Instr {
        ri(Mov, d, 0, v)
    }
    fn s2r(d: u8, s: Sreg) -> Instr {
        let mut i = Instr::new(S2r);
        i.d = d;
        i.e = s as u16;
        i
    }
    fn bra(t: u32) -> Instr {
        let mut i = Instr::new(Bra);
        i.b = Src::Imm(t);
        i
    }
    fn ssy(t: u32) -> Instr {
        let mut i = Instr::new(Ssy);
        i.b = Src::Imm(t);
        i
    }
    fn guard(mut i: Instr, pred: u8, neg: bool) -> Instr {
        i.guard = Guard { pred, neg };
        i
    }
    fn with_m(mut i: Instr, m: u8) -> Instr {
        i.m = m;
        i
    }
    fn mem(op: Op, reg: u8, a: u8, off: i16) -> Instr {
        let mut i = Instr::new(op);
        if op.info().form == Form::Store {
            i.b = Src::Reg(reg);
        } else {
            i.d = reg;
        }
        i.a = a;
        i.e = off as u16;
        i
    }
    fn prog(regs: u32, shared: u32, params: usize, code: Vec<Instr>) -> Program {
        Program {
            name: "t".into(),
            regs,
            shared_bytes: shared,
            params: (0..params).map(|i| format!("p{i}")).collect(),
            code,
            src_lines: vec![],
        }
    }
    fn launch(grid: [u32; 2], block: [u32; 3], params: Vec<u32>) -> Launch {
        Launch { grid, block, params }
    }
    /// Run one CTA of `threads` threads on gt200 and return the model.
    fn run1(code: Vec<Instr>, threads: u32) -> Golden {
        let p = prog(16, 256, 0, code);
        let mut g = Golden::new(
            &cfg("gt200"),
            &p,
            &launch([1, 1], [threads, 1, 1], vec![]),
            vec![0; 4096],
        )
        .unwrap();
        g.run(10_000).unwrap();
        g
    }
    fn lanes(f: impl Fn(u32) -> u32) -> [u32; 32] {
        std::array::from_fn(|l| f(l as u32))
    }

    #[test]
    fn integer_alu_rules() {
        let g = run1(
            vec![
                mov(1, 0xffff_fff0),
                ri(Iadd, 2, 1, 0x20),         // wraps: 0x10
                ri(Shl, 3, 1, 32),            // >= 32 gives 0
                ri(Shr, 4, 1, 40),            // logical: 0
                with_m(ri(Shr, 5, 1, 40), 1), // arithmetic: all sign
                ri(Shr, 6, 1, 4),             // 0x0fffffff
                mov(7, 0x8000_0000),
                rr(Iabs, 8, 7, 0),             // abs(MIN) = MIN
                ri(Imin, 9, 1, 5),             // signed: -16
                with_m(ri(Imin, 10, 1, 5), 1), // unsigned: 5
                ri(Iadd, RZ, 1, 5),            // dropped
                rr(Iadd, 11, RZ, RZ),          // RZ reads 0
                ri(Isub, 12, RZ, 1),           // 0 - 1
                with_m(ri(Imul, 13, 1, 2), 2), // HI.U32
                ri(Not, 14, 0, 0xf0f0_f0f0),
                Instr::new(Exit),
            ],
            32,
        );
        let all = |v: u32| [v; 32];
        assert_eq!(g.reg(0, 2), all(0x10));
        assert_eq!(g.reg(0, 3), all(0));
        assert_eq!(g.reg(0, 4), all(0));
        assert_eq!(g.reg(0, 5), all(0xffff_ffff));
        assert_eq!(g.reg(0, 6), all(0x0fff_ffff));
        assert_eq!(g.reg(0, 8), all(0x8000_0000));
        assert_eq!(g.reg(0, 9), all(0xffff_fff0));
        assert_eq!(g.reg(0, 10), all(5));
        assert_eq!(g.reg(0, 11), all(0));
        assert_eq!(g.reg(0, 12), all(0xffff_ffff));
        assert_eq!(g.reg(0, 13), all(1));
        assert_eq!(g.reg(0, 14), all(0x0f0f_0f0f));
    }

    #[test]
    fn guards_predicates_and_select() {
        let g = run1(
            vec![
                s2r(0, Sreg::TidX),
                with_m(ri(Isetp, 1, 0, 10), ICmp::Lt as u8), // P1 = tid < 10
                guard(mov(2, 7), 1, false),                  // only tid < 10
                guard(mov(3, 9), 1, true),                   // only tid >= 10
                with_m(ri(Sel, 4, 0, 100), 1),               // P1 ? tid : 100
                with_m(ri(Isetp, PT, 0, 0), 0),              // to PT: dropped
                with_m(ri(Isetp, 2, 0, 0xffff_ffff), ICmp::Lt as u8 | 8), // unsigned
                Instr::new(Exit),
            ],
            32,
        );
        assert_eq!(g.pred(0, 1), 0x3ff);
        assert_eq!(g.pred(0, 2), FULL);
        assert_eq!(g.reg(0, 2), lanes(|l| if l < 10 { 7 } else { 0 }));
        assert_eq!(g.reg(0, 3), lanes(|l| if l < 10 { 0 } else { 9 }));
        assert_eq!(g.reg(0, 4), lanes(|l| if l < 10 { l } else { 100 }));
    }
    use crate::golden::isa::ICmp;

    /// if (tid < 16) r1 = 1 else r1 = 2; r2 = r1 + 10 (after reconvergence).
    #[test]
    fn divergence_reconverges_at_sync() {
        let code = vec![
            s2r(0, Sreg::TidX),
            ssy(7),
            with_m(ri(Isetp, 0, 0, 16), ICmp::Ge as u8),
            guard(bra(6), 0, false), // 3
            mov(1, 1),
            Instr::new(Sync), // 5
            mov(1, 2),        // 6 (falls into 7? no: SYNC below)
            Instr::new(Sync), // 7: reconvergence point reached by pops
            ri(Iadd, 2, 1, 10),
            Instr::new(Exit),
        ];
        // Fix the layout: else-side at 6 must SYNC at 7, and the SSY target
        // is the instruction after that SYNC.
        let mut code = code;
        code[1] = ssy(8);
        let g = run1(code, 32);
        assert_eq!(g.reg(0, 1), lanes(|l| if l < 16 { 1 } else { 2 }));
        assert_eq!(g.reg(0, 2), lanes(|l| if l < 16 { 11 } else { 12 }));
        let (_, _, done, depth) = g.warp_state(0);
        assert!(done);
        assert_eq!(depth, 0);
        // IADD at pc 8 ran once, with all 32 lanes.
        let s = g.stats();
        assert_eq!(s.per_class[&Class::Int].warp, 2); // ISETP + IADD
        assert_eq!(s.per_class[&Class::Int].thread, 64);
    }

    /// Per-lane loop trip counts: r1 = sum_{k < tid % 5} 1, by a loop with
    /// a divergent back branch; afterwards all lanes are active again.
    #[test]
    fn divergent_loop() {
        let code = vec![
            s2r(0, Sreg::TidX),
            ri(And, 2, 0, 3), // r2 = tid & 3 = trip count
            mov(1, 0),
            ssy(9),
            with_m(ri(Isetp, 0, 2, 0), ICmp::Eq as u8), // 4: loop head
            guard(bra(8), 0, false),
            ri(Iadd, 1, 1, 1),
            ri(Isub, 2, 2, 1),
            // 8: done lanes wait here; loop lanes jump back.
            Instr::new(Sync),
            ri(Iadd, 3, 1, 100), // 9
            Instr::new(Exit),
        ];
        // Lanes still looping need a back branch before pc 8: insert it.
        let mut code = code;
        code.insert(8, bra(4));
        code[3] = ssy(10);
        code[5] = guard(bra(9), 0, false);
        let g = run1(code, 32);
        assert_eq!(g.reg(0, 1), lanes(|l| l & 3));
        assert_eq!(g.reg(0, 3), lanes(|l| (l & 3) + 100));
        assert_eq!(g.warp_state(0).3, 0);
    }

    #[test]
    fn exit_in_divergent_code_and_partial_warps() {
        let code = vec![
            s2r(0, Sreg::TidX),
            ssy(6),
            with_m(ri(Isetp, 0, 0, 4), ICmp::Lt as u8),
            guard(bra(5), 0, true),
            Instr::new(Exit),  // 4: lanes < 4 exit
            Instr::new(Sync),  // 5
            ri(Iadd, 1, 0, 1), // 6
            Instr::new(Exit),
        ];
        // 40 threads: warp 1 has 8 lanes.
        let p = prog(4, 0, 0, code);
        let mut g = Golden::new(&cfg("gt200"), &p, &launch([1, 1], [40, 1, 1], vec![]), vec![]).unwrap();
        let s = g.run(1000).unwrap();
        assert_eq!(g.reg(0, 1), lanes(|l| if l < 4 { 0 } else { l + 1 }));
        assert_eq!(g.reg(1, 1)[..8], lanes(|l| l + 33)[..8]);
        assert_eq!(g.reg(1, 1)[8..], [0; 24]);
        // IADD at 6: 28 lanes of warp 0, 8 of warp 1.
        assert_eq!(s.per_class[&Class::Int].thread, 32 + 8 + 28 + 8);
        assert_eq!(s.ctas, 1);
    }

    #[test]
    fn barrier_orders_shared_memory() {
        // Warp 1 spins 50 iterations then stores; warp 0 reads after BAR.
        let code = vec![
            s2r(0, Sreg::WarpId),
            with_m(ri(Isetp, 0, 0, 1), ICmp::Eq as u8),
            guard(bra(8), 0, true), // warp 0 skips the spin
            mov(1, 50),
            ri(Isub, 1, 1, 1), // 4
            with_m(ri(Isetp, 1, 1, 0), ICmp::Ne as u8),
            guard(bra(4), 1, false),
            mem(Sts, 1, RZ, 0x40), // 7: store 0... use 1234 below
            Instr::new(Bar),       // 8
            mem(Lds, 2, RZ, 0x40),
            Instr::new(Exit),
        ];
        let mut code = code;
        code.insert(7, mov(1, 1234));
        code[2] = guard(bra(9), 0, true);
        let g = run1(code, 64);
        assert_eq!(g.reg(0, 2), [1234; 32]);
        assert_eq!(g.reg(1, 2), [1234; 32]);
    }

    #[test]
    fn atomics_in_lane_order_and_store_conflicts() {
        let code = vec![
            s2r(0, Sreg::LaneId),
            mov(1, 1),
            with_m(mem(Atoms, 2, RZ, 0x10), AtomOp::Add as u8),
            // CAS: every lane tries to change 32 -> lane+100; lane 0 wins.
            mov(3, 32),
            ri(Iadd, 4, 0, 100),
            Instr::new(Nop),
            mem(Sts, 0, RZ, 0x20), // all lanes to one address: lane 31 wins
            mem(Lds, 6, RZ, 0x20),
            mem(Lds, 7, RZ, 0x10),
            mem(Lds, 8, RZ, 0x14),
            Instr::new(Exit),
        ];
        let mut code = code;
        code[2].b = Src::Reg(1);
        let mut cas = with_m(mem(Atoms, 5, RZ, 0x14), AtomOp::Cas as u8);
        cas.b = Src::Reg(4);
        cas.c = 3;
        code[5] = cas;
        // Put 32 at 0x14 first via the ADD results: store r1*32.
        code.insert(5, ri(Shl, 9, 1, 5));
        code.insert(6, mem(Sts, 9, RZ, 0x14));
        let g = run1(code, 32);
        assert_eq!(g.reg(0, 2), lanes(|l| l)); // old values 0..31
        assert_eq!(g.reg(0, 7), [32; 32]);
        assert_eq!(g.reg(0, 5), lanes(|l| if l == 0 { 32 } else { 100 }));
        assert_eq!(g.reg(0, 8), [100; 32]);
        assert_eq!(g.reg(0, 6), [31; 32]);
    }
    use crate::golden::isa::AtomOp;

    #[test]
    fn ctas_special_registers_params_and_global_memory() {
        // out[(ctaid.y * nctaid.x + ctaid.x) * ntid + tid] = tid + p0 + 1000*ctaid.x
        let code = vec![
            s2r(0, Sreg::TidX),
            s2r(1, Sreg::CtaidX),
            s2r(2, Sreg::CtaidY),
            s2r(3, Sreg::NctaidX),
            s2r(4, Sreg::NtidX),
            rr(Imad, 5, 2, 3), // c filled below
            rr(Imad, 5, 5, 4), // (cy*nx+cx)*ntid + tid
            ri(Shl, 6, 5, 2),
            {
                let mut i = Instr::new(Ldc);
                i.d = 7;
                i.a = RZ;
                i.e = 1;
                i
            },
            ri(Imul, 8, 1, 1000),
            rr(Iadd, 8, 8, 0),
            rr(Iadd, 8, 8, 7),
            mem(Lds, 9, 6, 0), // shared is zero at every CTA start
            rr(Iadd, 8, 8, 9),
            mem(Sts, 8, 6, 0),
            mem(Stg, 8, 6, 0),
            Instr::new(Exit),
        ];
        let mut code = code;
        code[5].c = 1;
        code[6].c = 0;
        let p = prog(10, 4 * 64 * 6, 2, code);
        let (out, s) = run_kernel(
            &cfg("gt200"),
            &p,
            &launch([3, 2], [64, 1, 1], vec![0, 5]),
            vec![0; 4 * 64 * 6],
        )
        .unwrap();
        assert_eq!(s.ctas, 6);
        for cta in 0..6u32 {
            for t in 0..64u32 {
                let k = (cta * 64 + t) as usize * 4;
                let v = u32::from_le_bytes(out[k..k + 4].try_into().unwrap());
                assert_eq!(v, t + 5 + 1000 * (cta % 3), "cta {cta} t {t}");
            }
        }
        assert_eq!(s.thread_instrs, 17 * 64 * 6);
        assert_eq!(s.warp_instrs, 17 * 2 * 6);
    }

    #[test]
    fn wide_memory_and_fp64_pairs() {
        let one = 1.0f64.to_bits();
        let code = vec![
            mem(Ldg, 2, RZ, 0), // .64 below
            mem(Ldg, 4, RZ, 8),
            rr(Dadd, 6, 2, 4),
            mem(Stg, 6, RZ, 16),
            with_m(rr(Dsetp, 0, 6, 2), 4), // GT
            with_m(rr(Fadd, 8, 2, 3), 0),
            Instr::new(Exit),
        ];
        let mut code = code;
        code[0].m = 1;
        code[1].m = 1;
        code[3].m = 1;
        let mut gm = vec![0u8; 24];
        gm[0..8].copy_from_slice(&one.to_le_bytes());
        gm[8..16].copy_from_slice(&2.5f64.to_bits().to_le_bytes());
        let p = prog(10, 0, 0, code);
        let mut g = Golden::new(&cfg("fermi"), &p, &launch([1, 1], [1, 1, 1], vec![]), gm).unwrap();
        let mut writes = vec![];
        while let Some(r) = g.step().unwrap() {
            writes.push(r);
        }
        assert_eq!(&g.gmem()[16..24], &3.5f64.to_bits().to_le_bytes());
        assert_eq!(g.pred(0, 0) & 1, 1);
        match &writes[2].write {
            Some(Write::RegPair { reg: 6, values }) => assert_eq!(values[0], 3.5f64.to_bits()),
            w => panic!("unexpected {w:?}"),
        }
        match &writes[3].write {
            Some(Write::MemPair {
                space: Space::Global,
                addrs,
                values,
            }) => {
                assert_eq!(addrs[0], 16);
                assert_eq!(values[0], 3.5f64.to_bits());
            }
            w => panic!("unexpected {w:?}"),
        }
        assert_eq!(writes[0].active, 1);
        assert_eq!(writes.len(), 7);
    }

    #[test]
    fn fadd_flavour_follows_the_preset() {
        // Smallest denormal + 0: Tesla flushes it, IEEE keeps it.
        let code = vec![mov(1, 1), ri(Fadd, 2, 1, 0), Instr::new(Exit)];
        let p = prog(4, 0, 0, code);
        let l = launch([1, 1], [1, 1, 1], vec![]);
        let mut t = Golden::new(&cfg("gt200"), &p, &l, vec![]).unwrap();
        t.run(100).unwrap();
        let mut f = Golden::new(&cfg("fermi"), &p, &l, vec![]).unwrap();
        f.run(100).unwrap();
        assert_eq!(t.reg(0, 2)[0], 0);
        assert_eq!(f.reg(0, 2)[0], 1);
    }

    #[test]
    fn step_reports_every_warp_instruction_round_robin() {
        let code = vec![
            s2r(0, Sreg::TidX),
            ri(Iadd, 1, 0, 1),
            mem(Sts, 1, RZ, 0),
            Instr::new(Exit),
        ];
        let p = prog(4, 16, 0, code);
        let mut g = Golden::new(&cfg("gt200"), &p, &launch([2, 1], [48, 1, 1], vec![]), vec![]).unwrap();
        let mut seen = vec![];
        while let Some(r) = g.step().unwrap() {
            seen.push((r.cta, r.warp, r.pc, r.active));
            if r.pc == 1 && r.warp == 1 {
                assert_eq!(
                    r.write,
                    Some(Write::Reg {
                        reg: 1,
                        values: lanes(|l| if l < 16 { l + 33 } else { 0 })
                    })
                );
            }
            if r.pc == 2 && r.warp == 0 {
                match r.write {
                    Some(Write::Mem { space, addrs, values }) => {
                        assert_eq!(space, Space::Shared);
                        assert_eq!(addrs, [0; 32]);
                        assert_eq!(values, lanes(|l| l + 1));
                    }
                    w => panic!("{w:?}"),
                }
            }
        }
        let expect: Vec<_> = (0..2)
            .flat_map(|c| (0..4).flat_map(move |pc| [(c, 0, pc, FULL), (c, 1, pc, 0xffff)]))
            .collect();
        assert_eq!(seen, expect);
        assert!(g.step().unwrap().is_none());
        assert_eq!(g.stats().ctas, 2);
        assert_eq!(g.stats().warp_instrs, 16);
    }

    #[test]
    fn step_and_run_agree_and_step_warp_checks_its_warp() {
        // A divergent, barrier-using kernel over 3 CTAs of 40 threads.
        let code = vec![
            s2r(0, Sreg::TidX),
            s2r(1, Sreg::CtaidX),
            ssy(6),
            with_m(ri(Isetp, 0, 0, 7), ICmp::Lt as u8),
            guard(ri(Iadd, 0, 0, 100), 0, false),
            Instr::new(Sync),
            Instr::new(Bar), // 6
            ri(Imul, 2, 1, 40),
            rr(Iadd, 2, 2, 0),
            ri(Shl, 3, 2, 2),
            with_m(mem(Atomg, 4, 3, 0), AtomOp::Add as u8),
            Instr::new(Exit),
        ];
        let mut code = code;
        code[10].b = Src::Reg(2);
        code[4] = guard(bra(5), 0, false);
        let p = prog(8, 0, 0, code);
        let l = launch([3, 1], [40, 1, 1], vec![]);
        let c = cfg("gt200");
        let mut a = Golden::new(&c, &p, &l, vec![0; 4 * 120 + 400]).unwrap();
        let sa = a.run(10_000).unwrap();
        let mut b = Golden::new(&c, &p, &l, vec![0; 4 * 120 + 400]).unwrap();
        let mut n = 0;
        while b.step().unwrap().is_some() {
            n += 1;
        }
        assert_eq!(n, sa.warp_instrs);
        assert_eq!(b.stats(), &sa);
        assert_eq!(a.gmem(), b.gmem());
        assert_eq!(sa.ctas, 3);
        // step_warp on a warp that does not exist or is done: an error.
        let mut g = Golden::new(&c, &p, &l, vec![0; 880]).unwrap();
        assert_eq!(g.step_warp(5).unwrap_err().reason, Reason::NotRunnable);
        let r = g.step_warp(1).unwrap();
        assert_eq!((r.warp, r.pc, r.active), (1, 0, 0xff));
        assert_eq!(g.step_warp(1).unwrap().pc, 1);
        assert_eq!(g.step().unwrap().unwrap().warp, 0);
    }

    /// Nested if/else and a per-lane loop on random lane patterns and
    /// partial warps: every lane gets its own result and the warp
    /// reconverges (stack empty, all lanes at the final store).
    const NESTED: &str = "
.regs 8
.param m1
.param m2
    S2R R0, SR_TID.X
    LDC R1, c[m1]
    LDC R2, c[m2]
    SHR R3, R1, R0
    AND R3, R3, 1
    SHR R4, R2, R0
    AND R4, R4, 1
    MOV R5, 0
    SSY outer_join
    ISETP.NE P0, R3, 0
    @P0 BRA then1
    MOV R5, 1              ; bit1 = 0
    SYNC
then1:
    SSY inner_join
    ISETP.NE P1, R4, 0
    @!P1 BRA else2
    AND R6, R0, 3          ; bit1 = 1, bit2 = 1: loop tid & 3 times
loop:
    ISETP.EQ P2, R6, 0
    @P2 BRA loop_done
    IADD R5, R5, 10
    ISUB R6, R6, 1
    BRA loop
loop_done:
    SYNC
else2:
    MOV R5, 2
    SYNC
inner_join:
    IADD R5, R5, 1000
    SYNC
outer_join:
    SHL R7, R0, 2
    STG [R7], R5
    EXIT
";

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn nested_divergence_matches_per_lane_reference(m1: u32, m2: u32, threads in 1u32..=32) {
            let p = crate::golden::asm::assemble(NESTED, "nested.s").unwrap();
            let (out, s) = run_kernel(&cfg("gt200"), &p, &launch([1, 1], [threads, 1, 1], vec![m1, m2]), vec![0; 128]).unwrap();
            for t in 0..32u32 {
                let got = u32::from_le_bytes(out[4 * t as usize..4 * t as usize + 4].try_into().unwrap());
                let want = if t >= threads {
                    0
                } else if m1 >> t & 1 == 0 {
                    1
                } else if m2 >> t & 1 == 0 {
                    1002
                } else {
                    1000 + 10 * (t & 3)
                };
                proptest::prop_assert_eq!(got, want, "lane {}", t);
            }
            // The final STG runs once, with every thread.
            proptest::prop_assert_eq!(s.per_class[&Class::Global], ClassCount { warp: 1, thread: threads as u64 });
        }
    }

    #[test]
    fn clock_counts_warp_instructions() {
        let code = vec![
            Instr::new(Nop),
            Instr::new(Nop),
            s2r(1, Sreg::Clock),
            s2r(2, Sreg::NtidY),
            Instr::new(Exit),
        ];
        let p = prog(4, 0, 0, code);
        let mut g = Golden::new(&cfg("gt200"), &p, &launch([1, 1], [4, 2, 1], vec![]), vec![]).unwrap();
        g.run(100).unwrap();
        assert_eq!(g.reg(0, 1)[0], 2);
        assert_eq!(g.reg(0, 2)[0], 2);
    }

    #[test]
    fn cli_value_parsing() {
        assert_eq!(parse_param_value("-5"), Ok(0xffff_fffb));
        assert_eq!(parse_param_value("4294967295"), Ok(u32::MAX));
        assert_eq!(parse_param_value("0x3f800000"), Ok(0x3f80_0000));
        assert_eq!(parse_param_value("1.5"), Ok(0x3fc0_0000));
        assert_eq!(parse_param_value("3f"), Ok(0x4040_0000));
        assert_eq!(parse_param_value("-2e0"), Ok(0xc000_0000));
        assert_eq!(parse_param_value("inf"), Ok(0x7f80_0000));
        assert!(parse_param_value("4294967296").is_err());
        assert!(parse_param_value("abc").is_err());
        let names = vec!["a".to_string(), "n".to_string()];
        assert_eq!(
            resolve_params(&names, &["n=3".into(), "a=0x10".into()]),
            Ok(vec![16, 3])
        );
        assert_eq!(resolve_params(&names, &["7".into()]), Ok(vec![7]));
        assert!(resolve_params(&names, &["a=1".into()])
            .unwrap_err()
            .contains("missing --param for: n"));
        assert!(resolve_params(&names, &["b=1".into(), "a=1".into()])
            .unwrap_err()
            .contains("no parameter `b`"));
        assert!(resolve_params(&names, &["a=1".into(), "2".into()]).is_err());
        assert_eq!(parse_dims::<2>("4"), Ok([4, 1]));
        assert_eq!(parse_dims::<3>("4,2,3"), Ok([4, 2, 3]));
        assert!(parse_dims::<2>("1,2,3").is_err());
        assert!(parse_dims::<2>("x").is_err());
    }

    #[test]
    fn stats_table_names_every_class() {
        let g = run1(vec![mov(1, 1), Instr::new(Exit)], 32);
        let t = g.stats().to_string();
        for c in Class::ALL {
            assert!(t.contains(c.name()), "{t}");
        }
        assert!(t.contains("CTAs completed: 1"), "{t}");
    }
}
