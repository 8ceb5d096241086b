//! What the golden model reports: run counts ([`Stats`]), retired warp
//! instruction records ([`Retired`], [`Write`]) for lock-step checking, and
//! errors ([`RunError`]: a [`Place`] and a [`Reason`]).

use super::Space;
use crate::golden::isa::{Class, Instr};
use std::collections::BTreeMap;
use std::fmt;

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
    /// Reads of shared-memory words their CTA never wrote (`uninit`).
    pub uninit: super::UninitReads,
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{:<8} {:>14} {:>16}", "class", "warp instrs", "thread instrs")?;
        for c in Class::ALL {
            let n = self.per_class.get(&c).copied().unwrap_or_default();
            writeln!(f, "{:<8} {:>14} {:>16}", c.name(), n.warp, n.thread)?;
        }
        writeln!(f, "{:<8} {:>14} {:>16}", "total", self.warp_instrs, self.thread_instrs)?;
        writeln!(f, "CTAs completed: {}", self.ctas)?;
        write!(
            f,
            "{}",
            self.uninit.render(
                "the golden model starts shared memory at zero, the GPU and the RTL SM keep what an earlier CTA left"
            )
        )
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
    /// Lanes whose loaded value is undefined: an `LDS` (or the old value of
    /// an `ATOMS`) that read a shared-memory word this CTA never wrote.
    /// Hardware does not clear shared memory between CTAs, so such a lane
    /// sees whatever the window held; the model's value there (zero at CTA
    /// start) is not the kernel's semantics. Set in both modes (the reads
    /// are also counted in [`Stats::uninit`]); a lock-step checker accepts
    /// the hardware's value on these lanes and hands it to
    /// [`super::Golden::set_cta_reg`].
    pub undef: u32,
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

/// How [`Retired::diff`] compares atomics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtomValues {
    /// Old and new values too (one warp alone on its addresses, or a
    /// deterministic order).
    Exact,
    /// Space, destination register and addresses only: the old/new values
    /// of atomics from concurrently running warps depend on their order.
    Ignore,
}

impl Write {
    /// The first difference from `other` on the lanes `lanes`, as text.
    pub fn diff(&self, other: &Write, lanes: u32, atoms: AtomValues) -> Option<String> {
        let first = |n: usize, f: &dyn Fn(usize) -> Option<String>| (0..n).filter(|l| lanes >> l & 1 != 0).find_map(f);
        let lane32 = |what: &str, a: &[u32; 32], b: &[u32; 32]| {
            first(32, &|l| {
                (a[l] != b[l]).then(|| format!("lane {l} {what} {:08x} vs {:08x}", a[l], b[l]))
            })
        };
        let lane64 = |what: &str, a: &[u64; 32], b: &[u64; 32]| {
            first(32, &|l| {
                (a[l] != b[l]).then(|| format!("lane {l} {what} {:016x} vs {:016x}", a[l], b[l]))
            })
        };
        match (self, other) {
            (Write::Reg { reg, values }, Write::Reg { reg: r2, values: v2 }) if reg == r2 => {
                lane32("value", values, v2)
            }
            (Write::RegPair { reg, values }, Write::RegPair { reg: r2, values: v2 }) if reg == r2 => {
                lane64("value", values, v2)
            }
            (Write::Pred { pred, values }, Write::Pred { pred: p2, values: v2 }) if pred == p2 => {
                let d = (values ^ v2) & lanes;
                (d != 0).then(|| format!("P{pred} {:08x} vs {:08x} (lanes {d:08x})", values & lanes, v2 & lanes))
            }
            (
                Write::Mem { space, addrs, values },
                Write::Mem {
                    space: s2,
                    addrs: a2,
                    values: v2,
                },
            ) if space == s2 => lane32("address", addrs, a2).or_else(|| lane32("value", values, v2)),
            (
                Write::MemPair { space, addrs, values },
                Write::MemPair {
                    space: s2,
                    addrs: a2,
                    values: v2,
                },
            ) if space == s2 => lane32("address", addrs, a2).or_else(|| lane64("value", values, v2)),
            (
                Write::Atom {
                    space,
                    reg,
                    addrs,
                    old,
                    new,
                },
                Write::Atom {
                    space: s2,
                    reg: r2,
                    addrs: a2,
                    old: o2,
                    new: n2,
                },
            ) if space == s2 && reg == r2 => lane32("address", addrs, a2).or_else(|| match atoms {
                AtomValues::Ignore => None,
                AtomValues::Exact => lane32("old value", old, o2).or_else(|| lane32("new value", new, n2)),
            }),
            _ => Some(format!("write {self:?} vs {other:?}")),
        }
    }
}

impl Retired {
    /// Compare with another record of the same instruction (e.g. the RTL
    /// SM's) on everything the ISA fixes: CTA, warp, pc, executed lanes,
    /// the instruction word, the destination, and the written values on
    /// the executed lanes (other lanes of the arrays are not compared).
    /// Returns the first difference as text, `None` when they agree.
    pub fn diff(&self, other: &Retired, atoms: AtomValues) -> Option<String> {
        if (self.cta, self.warp, self.pc) != (other.cta, other.warp, other.pc) {
            return Some(format!(
                "place cta {} warp {} pc {} vs cta {} warp {} pc {}",
                self.cta, self.warp, self.pc, other.cta, other.warp, other.pc
            ));
        }
        if self.instr != other.instr {
            return Some(format!("instruction {:?} vs {:?}", self.instr, other.instr));
        }
        if self.active != other.active {
            return Some(format!("executed lanes {:08x} vs {:08x}", self.active, other.active));
        }
        match (&self.write, &other.write) {
            (None, None) => None,
            (Some(a), Some(b)) => a.diff(b, self.active, atoms),
            (a, b) => Some(format!("write {a:?} vs {b:?}")),
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
    #[error("ran off the end of the code ({len} instructions) without EXIT{}", last_line.map(|l| format!(" (the last instruction is at line {l})")).unwrap_or_default())]
    RanOffEnd { len: usize, last_line: Option<u32> },
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
    #[error("step_cta_warp: CTA {cta} does not exist (the grid has {ctas} CTAs)")]
    NoSuchCta { cta: u32, ctas: u32 },
    #[error("step_cta_warp: CTA {cta} has already finished")]
    CtaFinished { cta: u32 },
    #[error(
        "the one-CTA-at-a-time mode (run, step, step_warp) and the multi-CTA mode \
         (step_cta_warp) cannot be mixed in one launch"
    )]
    ModeMix,
    /// GPU-CC mode (`GCSET`/`GCRUN`, docs/gpucc.md) could not run: a bad
    /// configuration, a deadlock, a runaway, a memory fault of an LSU.
    #[error("{0}")]
    Gpucc(String),
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
    #[error("{op} is not implemented on the {preset} preset: {why} (the RTL raises error code 1)")]
    NotOnPreset {
        op: &'static str,
        preset: String,
        why: &'static str,
    },
    #[error("parameter word index {index} is out of range (the launch has {count} words)")]
    ParamOutOfRange { index: u64, count: usize },
    #[error(
        "{op} reads shared memory at 0x{addr:x}, a word this CTA never wrote (undefined at CTA \
         start; {lanes} lanes of the instruction read such words)"
    )]
    UninitShared { op: &'static str, addr: u32, lanes: u32 },
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
    pub(super) fn launch(reason: Reason) -> RunError {
        RunError {
            place: Place::default(),
            reason,
        }
    }
}

/// An error inside one warp instruction (the caller adds the place).
pub(super) struct Fault {
    pub(super) lane: Option<u32>,
    pub(super) reason: Reason,
}

impl From<Reason> for Fault {
    fn from(reason: Reason) -> Fault {
        Fault { lane: None, reason }
    }
}
