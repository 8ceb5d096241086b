//! Random valid programs for lock-step checking of the SM against the
//! golden model: structured kernels that always terminate and never stop
//! with an error, with a launch shape, parameters and an input global
//! image, all deterministic from a seed and a preset.
//!
//! What a program contains (weights in [`Gen::stmt`]):
//! * a prologue computing the linear thread index, the CTA's thread count,
//!   the linear CTA index and per-thread pointers from the special
//!   registers and parameters, then loading the data registers from the
//!   input image;
//! * straight-line arithmetic of every class the preset has: integer
//!   (every `IMUL`/`IMAD` mode, immediates, `SEL`, `ISETP`), `PSETP`, FP32
//!   (every rounding and negation, `FMAD` on `mul_add = "fmad"` presets and
//!   `FFMA` on `"ffma"` ones, `FSETP` with every condition), SFU (with
//!   `PRESIN`/`PREEX2` before `SIN`/`COS`/`EX2`), FP64 and the FP64
//!   conversions only when `fp64_rate_divisor > 0`, conversions, `MOV`,
//!   `S2R` of every special register (`SR_CLOCK` only with
//!   [`Opts::clock`]: its value is the SM's cycle count, not the model's),
//!   `LDC` with constant and register indices; about a quarter guarded by
//!   a predicate;
//! * nested `if`/`else` (`SSY`, `@!P BRA`, `SYNC`) on data-dependent
//!   (divergent) or CTA-uniform predicates, counted loops with a uniform
//!   trip count (1..=4, no SSY) and with a per-lane trip count (0..=3,
//!   `SSY`/`BRA`/`SYNC`), nested up to [`Opts::depth`];
//! * memory, always in bounds and aligned: global loads from the input
//!   array at data-dependent word indices, loads and stores (32 and 64
//!   bit) of the thread's own output slots, shared loads and stores of the
//!   thread's own shared slots, atomics of every kind on the thread's own
//!   slots (old value to a register), and `ADD MIN MAX AND OR XOR` atomics
//!   to RZ on words shared by all threads (one region per operation, so the
//!   final value does not depend on the order of the warps);
//! * shared-memory exchanges between threads (`STS` own word, `BAR`, `LDS`
//!   a neighbour's word, `BAR`), only where every enclosing construct is a
//!   uniform loop (so `BAR` is reached by whole warps);
//! * rare guarded `EXIT`s anywhere (the barrier counts live threads);
//! * a prologue that writes zero to every shared word the CTA's threads
//!   read (own slots, exchange words, the common atomic words; shared
//!   memory is undefined at a CTA's start), then `BAR`;
//! * an epilogue: `BAR`, the CTA's shared atomic words copied to global
//!   memory, every data register stored to the thread's output slots.
//!
//! Nothing a thread reads is written by another thread without a barrier
//! in between, and the shared atomic words use commutative operations into
//! RZ: the final global image and every register value are independent of
//! the order in which the warps and CTAs run (only the old values of the
//! RZ atomics are not; compare those with `AtomValues::Ignore`).
//!
//! [`generate`] gives a [`ProgenCase`]; [`ProgenCase::text`] is the
//! canonical assembly (the disassembler's text, which assembles back to
//! the same program) headed by a comment with the `smrtl run` command that
//! reproduces the launch.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::config::{MulAdd, SmConfig};
use crate::golden::asm::{assemble, disassemble};
use crate::golden::isa::Program;
use crate::golden::model::Launch;
use crate::testbenches::cta_ref::{occupancy, CtaLaunch};

/// Generator options.
#[derive(Debug, Clone, Copy)]
pub struct Opts {
    /// Nesting depth of if/else and loops (at most 3 loops deep).
    pub depth: u32,
    /// Emit `S2R SR_CLOCK` (its value differs between the model and the
    /// SM by definition).
    pub clock: bool,
}

impl Default for Opts {
    fn default() -> Opts {
        Opts { depth: 3, clock: false }
    }
}

/// A generated program with everything needed to run it.
#[derive(Debug, Clone)]
pub struct ProgenCase {
    pub seed: u64,
    /// Preset name the program was made for.
    pub config: String,
    pub program: Program,
    pub launch: Launch,
    /// Global memory at launch.
    pub gmem: Vec<u8>,
    /// The generated source text (before canonical printing).
    pub source: String,
}

impl ProgenCase {
    /// Arguments of `smrtl run` (after `run`) for this case.
    pub fn cli_args(&self, kernel: &str, input: &str, output: &str) -> Vec<String> {
        let l = &self.launch;
        let mut v = vec![
            kernel.to_string(),
            "--config".into(),
            self.config.clone(),
            "--grid".into(),
            format!("{},{}", l.grid[0], l.grid[1]),
            "--block".into(),
            format!("{},{},{}", l.block[0], l.block[1], l.block[2]),
        ];
        for (name, val) in self.program.params.iter().zip(&l.params) {
            v.push("--param".into());
            v.push(format!("{name}=0x{val:x}"));
        }
        v.extend(["--input".into(), input.into(), "--output".into(), output.into()]);
        v
    }

    /// Canonical assembly headed by comments naming the seed and the
    /// `smrtl run` command (with the input image at `input`).
    pub fn text(&self, kernel: &str, input: &str) -> String {
        format!(
            "; smrtl progen --seed {} --config {}\n; smrtl run {}\n{}",
            self.seed,
            self.config,
            self.cli_args(kernel, input, "out.bin").join(" "),
            disassemble(&self.program)
        )
    }
}

// Reserved registers.
const TID: u32 = 0; // linear thread index in the CTA
const OUTP: u32 = 1; // the thread's output slots in global memory
const SPRIV: u32 = 2; // the thread's shared slots
const NTHR: u32 = 3; // threads per CTA
const INB: u32 = 4; // input array base
const ATOMB: u32 = 5; // global atomic words base
const LOOP0: u32 = 6; // loop counters R6..R8
const T1: u32 = 9; // address scratch
const T2: u32 = 10; // address scratch
const CTA: u32 = 11; // linear CTA index
const DATA0: u32 = 12; // first data register

/// Words of the input array (a power of two) and its padding.
const IN_WORDS: u32 = 256;
/// Output slots per thread: 8 for the body, then one per data register.
const SLOTS: u32 = 8 + 16;
/// Shared words per thread (private slots).
const SHW: u32 = 4;
/// Words per atomic region (a power of two) and the commutative
/// operations that share words across threads.
const CW: u32 = 8;
const COMMON_OPS: [&str; 6] = ["ADD", "MIN", "MAX", "AND", "OR", "XOR"];
const ALL_ATOMS: [&str; 8] = ["ADD", "MIN", "MAX", "EXCH", "CAS", "AND", "OR", "XOR"];
const RND: [&str; 4] = ["", ".RZ", ".RM", ".RP"];
const FCMP: [&str; 16] = [
    ".F", ".LT", ".EQ", ".LE", ".GT", ".NE", ".GE", ".NUM", ".NAN", ".LTU", ".EQU", ".LEU", ".GTU", ".NEU", ".GEU",
    ".T",
];
const ICMP: [&str; 6] = [".EQ", ".NE", ".LT", ".LE", ".GT", ".GE"];
const MULM: [&str; 5] = ["", ".HI", ".HI.U32", ".U24", ".S24"];
const SREGS: [&str; 13] = [
    "SR_TID.X",
    "SR_TID.Y",
    "SR_TID.Z",
    "SR_NTID.X",
    "SR_NTID.Y",
    "SR_NTID.Z",
    "SR_CTAID.X",
    "SR_CTAID.Y",
    "SR_NCTAID.X",
    "SR_NCTAID.Y",
    "SR_LANEID",
    "SR_WARPID",
    "SR_CLOCK",
];

/// The generator's state: the text so far and the program's shape.
struct Gen {
    r: SmallRng,
    out: String,
    labels: u32,
    ndata: u32,
    fp64: bool,
    fmad: bool,
    opts: Opts,
    nthreads: u32,
    /// Shared layout: exchange words and common atomic words.
    xbase: u32,
    scommon: u32,
}

impl Gen {
    fn emit(&mut self, s: impl AsRef<str>) {
        self.out.push_str("    ");
        self.out.push_str(s.as_ref());
        self.out.push('\n');
    }
    fn label(&mut self) -> String {
        self.labels += 1;
        format!("L{}", self.labels)
    }
    fn bind(&mut self, l: &str) {
        self.out.push_str(l);
        self.out.push_str(":\n");
    }
    fn data(&mut self) -> u32 {
        DATA0 + self.r.gen_range(0..self.ndata)
    }
    fn pair(&mut self) -> u32 {
        DATA0 + 2 * self.r.gen_range(0..self.ndata / 2)
    }
    fn pred(&mut self) -> u32 {
        self.r.gen_range(0..4)
    }
    /// A predicate operand: P0..P3 or PT, maybe negated.
    fn psrc(&mut self) -> String {
        let p = if self.r.gen_bool(0.2) {
            "PT".to_string()
        } else {
            format!("P{}", self.pred())
        };
        if self.r.gen_bool(0.3) {
            format!("!{p}")
        } else {
            p
        }
    }
    fn imm(&mut self) -> u32 {
        match self.r.gen_range(0..6) {
            0 => self.r.gen_range(0..32),
            1 => [
                0x3f80_0000,
                0xbf80_0000,
                0x4000_0000,
                0x7f80_0000,
                0x8000_0000,
                0x0000_0001,
            ][self.r.gen_range(0..6)],
            2 => self.r.gen_range(0..0x1_0000),
            _ => self.r.gen(),
        }
    }
    /// Operand B: a data register or an immediate.
    fn b(&mut self) -> String {
        if self.r.gen_bool(0.25) {
            format!("0x{:x}", self.imm())
        } else {
            format!("R{}", self.data())
        }
    }
    fn neg(&mut self) -> &'static str {
        if self.r.gen_bool(0.25) {
            "-"
        } else {
            ""
        }
    }
    fn guard(&mut self) -> String {
        if self.r.gen_bool(0.25) {
            let n = if self.r.gen_bool(0.5) { "!" } else { "" };
            format!("@{n}P{} ", self.pred())
        } else {
            String::new()
        }
    }

    /// One arithmetic, move or compare instruction (two for the SFU
    /// range-reduction pairs).
    fn arith(&mut self) {
        let g = self.guard();
        let (d, a) = (self.data(), self.data());
        let class = self.r.gen_range(0..if self.fp64 { 8 } else { 6 });
        let text = match class {
            0 | 1 => match self.r.gen_range(0..16) {
                0 => format!("IADD R{d}, R{a}, {}", self.b()),
                1 => format!("ISUB R{d}, R{a}, {}", self.b()),
                2 => format!("IMUL{} R{d}, R{a}, {}", MULM[self.r.gen_range(0..5)], self.b()),
                3 => {
                    let m = MULM[self.r.gen_range(0..5)];
                    if self.r.gen_bool(0.3) {
                        format!("IMAD{m} R{d}, R{a}, 0x{:x}, R{d}", self.imm())
                    } else {
                        let (b, c) = (self.data(), self.data());
                        format!("IMAD{m} R{d}, R{a}, R{b}, R{c}")
                    }
                }
                4 => {
                    let u = if self.r.gen_bool(0.5) { ".U32" } else { "" };
                    let op = if self.r.gen_bool(0.5) { "IMIN" } else { "IMAX" };
                    format!("{op}{u} R{d}, R{a}, {}", self.b())
                }
                5 => format!("SHL R{d}, R{a}, {}", self.b()),
                6 => {
                    let s = if self.r.gen_bool(0.5) { ".S32" } else { "" };
                    format!("SHR{s} R{d}, R{a}, {}", self.b())
                }
                7 => format!("AND R{d}, R{a}, {}", self.b()),
                8 => format!("OR R{d}, R{a}, {}", self.b()),
                9 => format!("XOR R{d}, R{a}, {}", self.b()),
                10 => format!("NOT R{d}, {}", self.b()),
                11 => format!("IABS R{d}, R{a}"),
                12 => {
                    let u = if self.r.gen_bool(0.3) { ".U32" } else { "" };
                    let p = self.pred();
                    format!("ISETP{}{u} P{p}, R{a}, {}", ICMP[self.r.gen_range(0..6)], self.b())
                }
                13 => {
                    let p = self.psrc();
                    format!("SEL R{d}, R{a}, {}, {p}", self.b())
                }
                14 => {
                    let op = [".AND", ".OR", ".XOR"][self.r.gen_range(0..3)];
                    let (pd, pa, pb) = (self.pred(), self.psrc(), self.psrc());
                    format!("PSETP{op} P{pd}, {pa}, {pb}")
                }
                _ => format!("MOV R{d}, {}", self.b()),
            },
            2 => match self.r.gen_range(0..6) {
                0 | 1 => {
                    let op = if self.r.gen_bool(0.5) { "FADD" } else { "FMUL" };
                    let rnd = RND[self.r.gen_range(0..4)];
                    let (na, nb) = (self.neg(), self.neg());
                    let b = self.b();
                    format!("{op}{rnd} R{d}, {na}R{a}, {nb}{b}")
                }
                2 | 3 => {
                    let (b, c) = (self.data(), self.data());
                    let (na, nc) = (self.neg(), self.neg());
                    if self.fmad {
                        format!("FMAD R{d}, {na}R{a}, R{b}, {nc}R{c}")
                    } else {
                        let rnd = RND[self.r.gen_range(0..4)];
                        format!("FFMA{rnd} R{d}, {na}R{a}, R{b}, {nc}R{c}")
                    }
                }
                4 => {
                    let op = if self.r.gen_bool(0.5) { "FMIN" } else { "FMAX" };
                    format!("{op} R{d}, R{a}, {}", self.b())
                }
                _ => {
                    let p = self.pred();
                    format!("FSETP{} P{p}, R{a}, {}", FCMP[self.r.gen_range(0..16)], self.b())
                }
            },
            3 => match self.r.gen_range(0..5) {
                0 => format!("RCP R{d}, R{a}"),
                1 => format!("RSQ R{d}, R{a}"),
                2 => format!("LG2 R{d}, R{a}"),
                3 => {
                    let t = self.data();
                    self.emit(format!("{g}PREEX2 R{t}, R{a}"));
                    format!("EX2 R{d}, R{t}")
                }
                _ => {
                    let t = self.data();
                    self.emit(format!("{g}PRESIN R{t}, R{a}"));
                    let op = if self.r.gen_bool(0.5) { "SIN" } else { "COS" };
                    format!("{op} R{d}, R{t}")
                }
            },
            4 => {
                let rnd = RND[self.r.gen_range(0..4)];
                let u = if self.r.gen_bool(0.5) { ".U32" } else { "" };
                let op = if self.r.gen_bool(0.5) { "I2F" } else { "F2I" };
                format!("{op}{rnd}{u} R{d}, R{a}")
            }
            5 => match self.r.gen_range(0..3) {
                0 => {
                    let n = if self.opts.clock { 13 } else { 12 };
                    format!("S2R R{d}, {}", SREGS[self.r.gen_range(0..n)])
                }
                1 => format!(
                    "LDC R{d}, c[{}]",
                    ["in", "out", "atom", "ctaout"][self.r.gen_range(0..4)]
                ),
                _ => {
                    // Register-indexed parameter: R9 = data & 3.
                    self.emit(format!("AND R{T1}, R{a}, 3"));
                    format!("LDC R{d}, c[R{T1}]")
                }
            },
            6 => {
                let (pd, pa, pb, pc) = (self.pair(), self.pair(), self.pair(), self.pair());
                let rnd = RND[self.r.gen_range(0..4)];
                let (na, nb) = (self.neg(), self.neg());
                match self.r.gen_range(0..4) {
                    0 => format!("DADD{rnd} R{pd}, {na}R{pa}, {nb}R{pb}"),
                    1 => format!("DMUL{rnd} R{pd}, {na}R{pa}, {nb}R{pb}"),
                    2 => format!("DFMA{rnd} R{pd}, {na}R{pa}, R{pb}, {nb}R{pc}"),
                    _ => format!("DSETP{} P{}, R{pa}, R{pb}", FCMP[self.r.gen_range(0..16)], self.pred()),
                }
            }
            _ => {
                let (p, rnd) = (self.pair(), RND[self.r.gen_range(0..4)]);
                let u = if self.r.gen_bool(0.5) { ".U32" } else { "" };
                match self.r.gen_range(0..4) {
                    0 => format!("I2D{u} R{p}, R{a}"),
                    1 => format!("D2I{rnd}{u} R{d}, R{p}"),
                    2 => format!("F2D R{p}, R{a}"),
                    _ => format!("D2F{rnd} R{d}, R{p}"),
                }
            }
        };
        self.emit(format!("{g}{text}"));
    }

    /// One memory access (with its address computation).
    fn memory(&mut self) {
        let g = self.guard();
        let (d, s) = (self.data(), self.data());
        match self.r.gen_range(0..10) {
            0 | 1 => {
                // Input array at a data-dependent index.
                if self.r.gen_bool(0.3) {
                    self.emit(format!("AND R{T1}, R{s}, 0x{:x}", (IN_WORDS * 4 - 1) & !7));
                    self.emit(format!("IADD R{T1}, R{T1}, R{INB}"));
                    let p = self.pair();
                    self.emit(format!("{g}LDG.64 R{p}, [R{T1}]"));
                } else {
                    self.emit(format!("AND R{T1}, R{s}, 0x{:x}", (IN_WORDS * 4 - 1) & !3));
                    self.emit(format!("IADD R{T1}, R{T1}, R{INB}"));
                    self.emit(format!("{g}LDG R{d}, [R{T1}]"));
                }
            }
            2 | 3 => {
                // The thread's own output slots (0..8).
                let load = self.r.gen_bool(0.4);
                if self.r.gen_bool(0.3) {
                    let (slot, p) = (2 * self.r.gen_range(0..4), self.pair());
                    if load {
                        self.emit(format!("{g}LDG.64 R{p}, [R{OUTP}+0x{:x}]", slot * 4));
                    } else {
                        self.emit(format!("{g}STG.64 [R{OUTP}+0x{:x}], R{p}", slot * 4));
                    }
                } else {
                    let slot = self.r.gen_range(0..8);
                    if load {
                        self.emit(format!("{g}LDG R{d}, [R{OUTP}+0x{:x}]", slot * 4));
                    } else {
                        self.emit(format!("{g}STG [R{OUTP}+0x{:x}], R{s}", slot * 4));
                        // Now and then a fence after a store.
                        if self.r.gen_bool(0.2) {
                            let gl = if self.r.gen_bool(0.5) { ".GL" } else { "" };
                            self.emit(format!("{g}MEMBAR{gl}"));
                        }
                    }
                }
            }
            4 | 5 => {
                // The thread's own shared slots.
                let load = self.r.gen_bool(0.5);
                if self.r.gen_bool(0.3) {
                    let (slot, p) = (2 * self.r.gen_range(0..SHW / 2), self.pair());
                    if load {
                        self.emit(format!("{g}LDS.64 R{p}, [R{SPRIV}+0x{:x}]", slot * 4));
                    } else {
                        self.emit(format!("{g}STS.64 [R{SPRIV}+0x{:x}], R{p}", slot * 4));
                    }
                } else {
                    let slot = self.r.gen_range(0..SHW);
                    if load {
                        self.emit(format!("{g}LDS R{d}, [R{SPRIV}+0x{:x}]", slot * 4));
                    } else {
                        self.emit(format!("{g}STS [R{SPRIV}+0x{:x}], R{s}", slot * 4));
                    }
                }
            }
            6 | 7 => {
                // Private atomics, any operation, old value to a register.
                let op = ALL_ATOMS[self.r.gen_range(0..8)];
                let c = if op == "CAS" {
                    format!(", R{}", self.data())
                } else {
                    String::new()
                };
                if self.r.gen_bool(0.5) {
                    let slot = self.r.gen_range(0..8);
                    self.emit(format!("{g}ATOMG.{op} R{d}, [R{OUTP}+0x{:x}], R{s}{c}", slot * 4));
                } else {
                    let slot = self.r.gen_range(0..SHW);
                    self.emit(format!("{g}ATOMS.{op} R{d}, [R{SPRIV}+0x{:x}], R{s}{c}", slot * 4));
                }
            }
            _ => {
                // Commutative atomics into RZ on words all threads share.
                let k = self.r.gen_range(0..COMMON_OPS.len() as u32);
                let op = COMMON_OPS[k as usize];
                let a = self.data();
                self.emit(format!("AND R{T1}, R{a}, 0x{:x}", (CW - 1) * 4));
                if self.r.gen_bool(0.5) {
                    self.emit(format!("IADD R{T1}, R{T1}, R{ATOMB}"));
                    self.emit(format!("{g}ATOMG.{op} RZ, [R{T1}+0x{:x}], R{s}", k * CW * 4));
                } else {
                    let off = self.scommon + k * CW * 4;
                    self.emit(format!("{g}ATOMS.{op} RZ, [R{T1}+0x{off:x}], R{s}"));
                }
            }
        }
    }

    /// `STS` own word, `BAR`, `LDS` a neighbour's word, `BAR`.
    fn exchange(&mut self) {
        let (s, d) = (self.data(), self.data());
        let k = if self.nthreads > 1 {
            self.r.gen_range(1..self.nthreads)
        } else {
            0
        };
        let p = self.pred();
        self.emit(format!("SHL R{T2}, R{TID}, 2"));
        self.emit(format!("STS [R{T2}+0x{:x}], R{s}", self.xbase));
        self.emit("BAR");
        self.emit(format!("IADD R{T2}, R{TID}, 0x{k:x}"));
        self.emit(format!("ISETP.GE P{p}, R{T2}, R{NTHR}"));
        self.emit(format!("@P{p} ISUB R{T2}, R{T2}, R{NTHR}"));
        self.emit(format!("SHL R{T2}, R{T2}, 2"));
        self.emit(format!("LDS R{d}, [R{T2}+0x{:x}]", self.xbase));
        self.emit("BAR");
    }

    /// A predicate for a branch: data dependent (divergent) or the same in
    /// every lane of the CTA.
    fn branch_pred(&mut self, p: u32) {
        if self.r.gen_bool(0.25) {
            let bit = self.r.gen_range(0..3);
            self.emit(format!("AND R{T1}, R{CTA}, 0x{:x}", 1 << bit));
            self.emit(format!("ISETP.NE P{p}, R{T1}, 0"));
        } else if self.r.gen_bool(0.5) {
            let a = self.data();
            let u = if self.r.gen_bool(0.3) { ".U32" } else { "" };
            let b = self.b();
            let cmp = ICMP[self.r.gen_range(0..6)];
            self.emit(format!("ISETP{cmp}{u} P{p}, R{a}, {b}"));
        } else {
            let (a, b) = (self.data(), self.data());
            let cmp = FCMP[self.r.gen_range(0..16)];
            self.emit(format!("FSETP{cmp} P{p}, R{a}, R{b}"));
        }
    }

    /// A block of statements at nesting `depth` with `loops` loops around
    /// it; `bar_ok` when every enclosing construct is a uniform loop.
    fn block(&mut self, n: u32, depth: u32, loops: u32, bar_ok: bool) {
        for _ in 0..n {
            self.stmt(depth, loops, bar_ok);
        }
    }

    fn stmt(&mut self, depth: u32, loops: u32, bar_ok: bool) {
        let nest = depth < self.opts.depth;
        let can_loop = nest && loops < 3;
        let w = self.r.gen_range(0..100);
        match w {
            0..=54 => self.arith(),
            55..=76 => self.memory(),
            77..=84 if nest => {
                // if / else (else sometimes empty).
                let (els, join) = (self.label(), self.label());
                let p = self.pred();
                self.branch_pred(p);
                self.emit(format!("SSY {join}"));
                self.emit(format!("@!P{p} BRA {els}"));
                let n = self.r.gen_range(1..5);
                self.block(n, depth + 1, loops, false);
                self.emit("SYNC");
                self.bind(&els);
                if self.r.gen_bool(0.7) {
                    let n = self.r.gen_range(1..5);
                    self.block(n, depth + 1, loops, false);
                }
                self.emit("SYNC");
                self.bind(&join);
            }
            85..=89 if can_loop => {
                // Uniform trip count: no divergence, no SSY.
                let c = LOOP0 + loops;
                let top = self.label();
                let p = self.pred();
                let trips = self.r.gen_range(1..5);
                self.emit(format!("MOV R{c}, 0x{trips:x}"));
                self.bind(&top);
                let n = self.r.gen_range(1..6);
                self.block(n, depth + 1, loops + 1, bar_ok);
                self.emit(format!("IADD R{c}, R{c}, -1"));
                self.emit(format!("ISETP.GT P{p}, R{c}, 0"));
                self.emit(format!("@P{p} BRA {top}"));
            }
            90..=93 if can_loop => {
                // Per-lane trip count 0..=3.
                let c = LOOP0 + loops;
                let (top, out, done) = (self.label(), self.label(), self.label());
                let (p, a) = (self.pred(), self.data());
                self.emit(format!("AND R{c}, R{a}, 3"));
                self.emit(format!("SSY {done}"));
                self.bind(&top);
                self.emit(format!("ISETP.GT P{p}, R{c}, 0"));
                self.emit(format!("@!P{p} BRA {out}"));
                let n = self.r.gen_range(1..5);
                self.block(n, depth + 1, loops + 1, false);
                self.emit(format!("IADD R{c}, R{c}, -1"));
                self.emit(format!("BRA {top}"));
                self.bind(&out);
                self.emit("SYNC");
                self.bind(&done);
            }
            94..=97 if bar_ok => self.exchange(),
            98 => {
                // A rare exit: lanes whose data has four low zero bits.
                let (p, a) = (self.pred(), self.data());
                self.emit(format!("AND R{T1}, R{a}, 15"));
                self.emit(format!("ISETP.EQ P{p}, R{T1}, 0"));
                self.emit(format!("@P{p} EXIT"));
            }
            _ => self.arith(),
        }
    }
}

/// Generate the program for `seed` on preset `cfg` with default options.
pub fn generate(cfg: &SmConfig, seed: u64) -> ProgenCase {
    generate_with(cfg, seed, Opts::default())
}

/// Generate the program for `seed` on preset `cfg`.
pub fn generate_with(cfg: &SmConfig, seed: u64, opts: Opts) -> ProgenCase {
    let mut r = SmallRng::seed_from_u64(seed ^ 0x5052_4f47_454e);
    let ndata = 2 * r.gen_range(4..=8u32);
    let regs = DATA0 + ndata;
    // Threads per CTA: within the preset's limits and the register file.
    let by_regs = cfg.registers / (regs * 32) * 32;
    // The register file's rows bind too (`cta_ref::occupancy`: a warp takes
    // ceil(regs / H) rows of every bank group, so tesla fits fewer warps
    // than the occupancy calculator's count; tesla seed 68 drew 326 threads
    // of 22 registers, which the SM refuses with error 9).
    let fits = |w: u32| {
        let l = CtaLaunch {
            grid: [1, 1],
            block: [32 * w, 1, 1],
            nregs: regs,
            smem: 0,
        };
        occupancy(cfg, &l).is_ok()
    };
    let by_rows = 32 * (1..=cfg.max_threads / 32).take_while(|&w| fits(w)).count() as u32;
    let tmax = cfg.max_threads.min(by_regs).min(by_rows).min(512);
    let t = match r.gen_range(0..4) {
        0 => r.gen_range(1..=32),
        1 => 32 * r.gen_range(1..=tmax / 32),
        _ => r.gen_range(1..=tmax.min(160)),
    };
    // Block dimensions with x * y * z <= t.
    let bx = r.gen_range(1..=t);
    let by = if r.gen_bool(0.4) { r.gen_range(1..=t / bx) } else { 1 };
    let bz = if r.gen_bool(0.3) {
        r.gen_range(1..=t / (bx * by))
    } else {
        1
    };
    let block = [bx, by, bz];
    let nthreads = bx * by * bz;
    let grid = [r.gen_range(1..=4), r.gen_range(1..=3)];
    let ncta = grid[0] * grid[1];
    let xbase = nthreads * SHW * 4;
    let scommon = xbase + nthreads * 4;
    let shared = scommon + COMMON_OPS.len() as u32 * CW * 4;

    // Global layout: input, output slots, atomic words, per-CTA copies.
    let in_base = 0;
    let out_base = (IN_WORDS + 16) * 4;
    let atom_base = out_base + ncta * nthreads * SLOTS * 4;
    let common = COMMON_OPS.len() as u32 * CW;
    let ctaout = atom_base + common * 4;
    let size = ctaout + ncta * common * 4;
    let mut gmem = vec![0u8; size as usize];
    for w in 0..(ctaout / 4) as usize {
        let v: u32 = match r.gen_range(0..8) {
            0 => r.gen_range(0..16),
            1 => r.gen::<u32>() & 0x807f_ffff, // subnormal or zero
            2 | 3 => {
                let x: f32 = r.gen_range(-100.0..100.0);
                x.to_bits()
            }
            _ => r.gen(),
        };
        gmem[4 * w..4 * w + 4].copy_from_slice(&v.to_le_bytes());
    }

    let mut g = Gen {
        r,
        out: String::new(),
        labels: 0,
        ndata,
        fp64: cfg.fp64_rate_divisor > 0,
        fmad: cfg.mul_add == MulAdd::Fmad,
        opts,
        nthreads,
        xbase,
        scommon,
    };
    g.out.push_str(&format!(
        ".kernel progen_{seed}\n.regs {regs}\n.shared {shared}\n.param in\n.param out\n.param atom\n.param ctaout\n"
    ));
    // Prologue.
    let (x, y, z, nx, ny, nz) = (DATA0, DATA0 + 1, DATA0 + 2, DATA0 + 3, DATA0 + 4, DATA0 + 5);
    for (reg, sr) in [
        (x, "SR_TID.X"),
        (y, "SR_TID.Y"),
        (z, "SR_TID.Z"),
        (nx, "SR_NTID.X"),
        (ny, "SR_NTID.Y"),
        (nz, "SR_NTID.Z"),
    ] {
        g.emit(format!("S2R R{reg}, {sr}"));
    }
    g.emit(format!("IMAD R{TID}, R{ny}, R{z}, R{y}"));
    g.emit(format!("IMAD R{TID}, R{TID}, R{nx}, R{x}"));
    g.emit(format!("IMUL R{NTHR}, R{nx}, R{ny}"));
    g.emit(format!("IMUL R{NTHR}, R{NTHR}, R{nz}"));
    g.emit(format!("S2R R{x}, SR_CTAID.X"));
    g.emit(format!("S2R R{y}, SR_CTAID.Y"));
    g.emit(format!("S2R R{nx}, SR_NCTAID.X"));
    g.emit(format!("IMAD R{CTA}, R{nx}, R{y}, R{x}"));
    g.emit(format!("IMAD R{T1}, R{CTA}, R{NTHR}, R{TID}"));
    g.emit(format!("LDC R{OUTP}, c[out]"));
    g.emit(format!("IMAD R{OUTP}, R{T1}, 0x{:x}, R{OUTP}", SLOTS * 4));
    g.emit(format!("SHL R{SPRIV}, R{TID}, 0x{:x}", (SHW * 4).trailing_zeros()));
    // Shared memory is undefined at a CTA's start (on the GPU and in the
    // RTL SM, where a CTA finds what the last one in its region left; the
    // golden model starts it at zero): every word a thread may read is
    // written first. Its private slots and exchange word by itself, the
    // common atomic words by the first threads, then a barrier. P0 is
    // used and left false, as at the start.
    for k in 0..SHW {
        g.emit(format!("STS [R{SPRIV}+0x{:x}], RZ", k * 4));
    }
    g.emit(format!("SHL R{T2}, R{TID}, 2"));
    g.emit(format!("STS [R{T2}+0x{:x}], RZ", xbase));
    let mut first = 0;
    while first < common {
        let off = scommon + first * 4;
        if common - first >= nthreads {
            g.emit(format!("STS [R{T2}+0x{off:x}], RZ"));
        } else {
            g.emit(format!("ISETP.LT P0, R{TID}, 0x{:x}", common - first));
            g.emit(format!("@P0 STS [R{T2}+0x{off:x}], RZ"));
            g.emit(format!("ISETP.LT P0, R{TID}, 0x0"));
        }
        first += nthreads;
    }
    g.emit("BAR");
    g.emit(format!("LDC R{INB}, c[in]"));
    g.emit(format!("LDC R{ATOMB}, c[atom]"));
    g.emit(format!("IMUL R{T1}, R{T1}, 0x{:x}", ndata * 4 + 4));
    g.emit(format!("AND R{T1}, R{T1}, 0x{:x}", (IN_WORDS * 4 - 1) & !7));
    g.emit(format!("IADD R{T1}, R{T1}, R{INB}"));
    for j in 0..ndata {
        g.emit(format!("LDG R{}, [R{T1}+0x{:x}]", DATA0 + j, j * 4));
    }
    // Body.
    let n = g.r.gen_range(8..24);
    g.block(n, 0, 0, true);
    // Epilogue: the CTA's shared atomic words to global memory, the data
    // registers to the output slots.
    g.emit("BAR");
    g.emit(format!("SHL R{T2}, R{TID}, 2"));
    g.emit(format!("ISETP.LT P0, R{TID}, 0x{common:x}"));
    g.emit(format!("@P0 LDS R{DATA0}, [R{T2}+0x{:x}]", g.scommon));
    g.emit(format!("IMUL R{T1}, R{CTA}, 0x{common:x}"));
    g.emit(format!("IADD R{T1}, R{T1}, R{TID}"));
    g.emit(format!("SHL R{T1}, R{T1}, 2"));
    g.emit(format!("LDC R{T2}, c[ctaout]"));
    g.emit(format!("IADD R{T1}, R{T1}, R{T2}"));
    g.emit(format!("@P0 STG [R{T1}], R{DATA0}"));
    for j in 0..ndata {
        g.emit(format!("STG [R{OUTP}+0x{:x}], R{}", (8 + j) * 4, DATA0 + j));
    }
    g.emit("EXIT");

    let source = g.out;
    let program = assemble(&source, "progen.s")
        .unwrap_or_else(|e| panic!("progen seed {seed}: generated text does not assemble: {e}\n{source}"));
    ProgenCase {
        seed,
        config: cfg.name.clone(),
        program,
        launch: Launch {
            grid,
            block,
            params: vec![in_base, out_base, atom_base, ctaout],
        },
        gmem,
        source,
    }
}
