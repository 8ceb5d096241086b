//! Validation of the GPU-CC mapper (`smrtl gpucc-map`, docs/gpucc.md
//! section 13; issue 40, acceptance item "Validation") on random dataflow
//! graphs.
//!
//! Each graph is generated here, seeded and deterministic, as a symbolic
//! `.gpucc` kernel (2 to 40 operations: index nodes `IADD x, 0`, loads
//! `LDG [i*4 + Rk]`, integer, FP32 and conversion operations on the cores
//! with node, immediate, register and counter operands and FP negation,
//! gathers and scatters through masked indices, stores), in shapes that
//! vary: chains, wide fan-outs, many loads, long live ranges, graphs too
//! big for 32 cores or 16 LSUs, and a few with a deliberate defect.
//!
//! * When `map_source` maps a graph, the mapped kernel is assembled and run
//!   on the golden model of the `gpucc` preset for n = 1 and n = 33 with
//!   random inputs, and the whole memory afterwards (every stored word, and
//!   nothing else changed) is compared with a direct evaluation of the
//!   graph written in this file in plain Rust (wrapping integer ops, f32
//!   `+` `*` and `mul_add`, the conversions with their rounding, NaN
//!   results as the documented canonical NaN 0x7fffffff). The gpucc lanes
//!   are IEEE with subnormals (docs/isa.md, FADD), as Rust's f32 is.
//! * When it rejects a graph, the error must name a line and a reason, and
//!   the reason is checked independently where it can be: more than 32
//!   core operations or 16 loads and stores give "too many operations";
//!   otherwise an exhaustive search written here over (placed set, next
//!   position) states of the interval model (map.rs's doc comment) decides
//!   whether any topological order keeps at most 5 values live and fits the
//!   48 positions (and, with an unbounded line, whether the lanes or the
//!   line is the limit, so the reason's wording is counted against it);
//!   for graphs of at most 8 nodes a brute force over all permutations
//!   confirms that search, mapped or not. A deliberate defect (a node with
//!   no input that would fire forever, a value nobody reads) must be
//!   reported at its own line.
//! * `the_line_holds_15_lsus_and_30_cores`: what the random graphs showed,
//!   made explicit (lsu0 has no upstream, core30/core31 no downstream).
//!
//! Run: `cargo test --release --test gpucc_map_random -- --include-ignored
//! --nocapture` (the ignored test maps 1,000 graphs and prints a summary;
//! `GPUCC_MAP_RANDOM_VERBOSE=1` prints a line per graph).

use smrtl::config::SmConfig;
use smrtl::golden::asm::assemble;
use smrtl::golden::gpucc::map::{map_source, MapOptions};
use smrtl::golden::model::{run_kernel, Launch};
use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

/// The canonical NaN of the IEEE lanes (docs: every NaN result is it).
const CANONICAL_NAN: u32 = 0x7fff_ffff;
/// Bytes reserved per array (256 words: index up to 32 at stride 8).
const ARRAY_BYTES: usize = 0x400;
/// First array's address.
const MEM_BASE: usize = 0x100;
/// The line of 48 positions: an LSU at every third.
const POSITIONS: usize = 48;
const LANES: usize = 5;

// ---------------------------------------------------------------- random

/// SplitMix64: small, seeded, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.range(0, v.len() - 1)]
    }
    fn u32(&mut self) -> u32 {
        self.next() as u32
    }
    /// An FP32 value of magnitude in [0.5, 2), either sign.
    fn float(&mut self) -> f32 {
        let m = 0.5 + 1.5 * ((self.next() >> 40) as f32 / (1u64 << 24) as f32);
        let m = m.clamp(0.5, 1.999_999_9);
        if self.chance(0.5) {
            -m
        } else {
            m
        }
    }
    /// An integer input: small, small negative or any 32-bit pattern.
    fn int(&mut self) -> u32 {
        match self.range(0, 3) {
            0 => self.range(0, 40) as u32,
            1 => (self.range(1, 1000) as i32).wrapping_neg() as u32,
            _ => self.u32(),
        }
    }
}

// ---------------------------------------------------------------- graphs

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    Int,
    Flt,
}

/// A core operation: mnemonic, result type, operand types (in text
/// order), and which operands may be negated (`-node`).
struct CoreOp {
    mn: &'static str,
    out: Ty,
    ins: &'static [Ty],
    neg: &'static [bool],
}

const I: Ty = Ty::Int;
const F: Ty = Ty::Flt;
const NN: &[bool] = &[false, false, false];

const fn op(mn: &'static str, out: Ty, ins: &'static [Ty]) -> CoreOp {
    CoreOp { mn, out, ins, neg: NN }
}

/// What GPU-CC cores run on the gpucc preset (`core_lacks`: SP-lane
/// operations that write one register; IEEE lanes, so FFMA, no FMAD).
const OPS: &[CoreOp] = &[
    op("IADD", I, &[I, I]),
    op("ISUB", I, &[I, I]),
    op("IMUL", I, &[I, I]),
    op("IMUL.HI", I, &[I, I]),
    op("IMUL.HI.U32", I, &[I, I]),
    op("IMUL.U24", I, &[I, I]),
    op("IMUL.S24", I, &[I, I]),
    op("IMAD", I, &[I, I, I]),
    op("IMAD.S24", I, &[I, I, I]),
    op("IMIN", I, &[I, I]),
    op("IMAX", I, &[I, I]),
    op("IMIN.U32", I, &[I, I]),
    op("IMAX.U32", I, &[I, I]),
    op("SHL", I, &[I, I]),
    op("SHR", I, &[I, I]),
    op("SHR.S32", I, &[I, I]),
    op("AND", I, &[I, I]),
    op("OR", I, &[I, I]),
    op("XOR", I, &[I, I]),
    op("NOT", I, &[I]),
    op("IABS", I, &[I]),
    op("MOV", I, &[I]),
    op("MOV", F, &[F]),
    op("F2I", I, &[F]),
    op("F2I.RZ", I, &[F]),
    op("F2I.RM", I, &[F]),
    op("F2I.RP", I, &[F]),
    op("F2I.U32", I, &[F]),
    op("F2I.RZ.U32", I, &[F]),
    op("I2F", F, &[I]),
    op("I2F.RZ", F, &[I]),
    op("I2F.RM", F, &[I]),
    op("I2F.RP", F, &[I]),
    op("I2F.U32", F, &[I]),
    op("I2F.RP.U32", F, &[I]),
    CoreOp {
        mn: "FADD",
        out: F,
        ins: &[F, F],
        neg: &[true, true],
    },
    CoreOp {
        mn: "FADD",
        out: F,
        ins: &[F, F],
        neg: &[true, true],
    },
    CoreOp {
        mn: "FMUL",
        out: F,
        ins: &[F, F],
        neg: &[true, true],
    },
    CoreOp {
        mn: "FFMA",
        out: F,
        ins: &[F, F, F],
        neg: &[true, false, true],
    },
    CoreOp {
        mn: "FFMA",
        out: F,
        ins: &[F, F, F],
        neg: &[true, false, true],
    },
    op("FMIN", F, &[F, F]),
    op("FMAX", F, &[F, F]),
];

/// An operand of a core.
#[derive(Clone, Debug)]
enum Opd {
    /// A node's value, negated or not.
    Node(usize, bool),
    /// A literal: its text and its bits.
    Lit(String, u32),
    /// A register holding kernel parameter `k` (register `R{k+1}`).
    Reg(usize),
    /// The zero source (`0` / `0.0`).
    Zero,
    /// The counter's x (the element index).
    X,
}

#[derive(Clone, Debug)]
enum Kind {
    /// `IADD x, 0`.
    Index,
    /// `LDG [addr*scale + base]`.
    Load {
        addr: usize,
        scale: u32,
        arr: usize,
    },
    /// `STG [addr*scale + base], val`.
    Store {
        addr: usize,
        scale: u32,
        arr: usize,
        val: usize,
    },
    Core {
        op: usize,
        opds: Vec<Opd>,
    },
}

#[derive(Clone, Debug)]
struct Node {
    name: String,
    kind: Kind,
}

/// An array of the memory image: its base is a kernel parameter (in a
/// register) or a literal.
#[derive(Clone, Debug)]
struct Array {
    ty: Ty,
    input: bool,
    param: Option<usize>,
}

/// A deliberate defect the mapper (its configuration assembler) must
/// report at the node's line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Defect {
    /// A core with neither an input node nor a counter.
    FiresForever(usize),
    /// A value nobody reads.
    Dead(usize),
}

#[derive(Clone, Debug)]
struct Graph {
    id: usize,
    shape: &'static str,
    nodes: Vec<Node>,
    arrays: Vec<Array>,
    /// Kernel parameters after `n`: (is an array base, array or constant
    /// bits).
    params: Vec<Param>,
    defect: Option<Defect>,
}

#[derive(Clone, Copy, Debug)]
enum Param {
    Base(usize),
    Const(u32),
}

impl Graph {
    fn ty(&self, k: usize) -> Option<Ty> {
        match &self.nodes[k].kind {
            Kind::Index => Some(Ty::Int),
            Kind::Load { arr, .. } => Some(self.arrays[*arr].ty),
            Kind::Store { .. } => None,
            Kind::Core { op, .. } => Some(OPS[*op].out),
        }
    }
    /// The nodes `k` reads.
    fn reads(&self, k: usize) -> Vec<usize> {
        match &self.nodes[k].kind {
            Kind::Index => vec![],
            Kind::Load { addr, .. } => vec![*addr],
            Kind::Store { addr, val, .. } => vec![*addr, *val],
            Kind::Core { opds, .. } => opds
                .iter()
                .filter_map(|o| match o {
                    Opd::Node(p, _) => Some(*p),
                    _ => None,
                })
                .collect(),
        }
    }
    fn is_lsu(&self, k: usize) -> bool {
        matches!(self.nodes[k].kind, Kind::Load { .. } | Kind::Store { .. })
    }
    fn counts(&self) -> (usize, usize) {
        let l = (0..self.nodes.len()).filter(|&k| self.is_lsu(k)).count();
        (self.nodes.len() - l, l)
    }
    fn base_addr(arr: usize) -> usize {
        MEM_BASE + arr * ARRAY_BYTES
    }
}

/// The knobs of a shape.
struct Shape {
    name: &'static str,
    /// Operations (before the stores are added, roughly the total).
    size: (usize, usize),
    /// Chance a new node is a load.
    p_load: f64,
    /// Chance an operand is a value nobody reads yet.
    p_unread: f64,
    /// Chance an operand is one of the last values made.
    p_recent: f64,
    /// Chance an operand is an immediate / register / zero / x.
    p_const: f64,
    /// Index nodes.
    index: (usize, usize),
    /// Chance an operand is the hub (the first load) in a fan-out.
    p_hub: f64,
    /// Loads made before anything else.
    first_loads: (usize, usize),
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "random",
        size: (2, 30),
        p_load: 0.3,
        p_unread: 0.5,
        p_recent: 0.2,
        p_const: 0.25,
        index: (1, 2),
        p_hub: 0.0,
        first_loads: (0, 2),
    },
    Shape {
        name: "chain",
        size: (4, 36),
        p_load: 0.12,
        p_unread: 0.1,
        p_recent: 0.85,
        p_const: 0.3,
        index: (1, 1),
        p_hub: 0.0,
        first_loads: (1, 1),
    },
    Shape {
        name: "fanout",
        size: (6, 34),
        p_load: 0.05,
        p_unread: 0.0,
        p_recent: 0.0,
        p_const: 0.5,
        index: (1, 2),
        p_hub: 0.85,
        first_loads: (1, 2),
    },
    Shape {
        name: "loads",
        size: (8, 34),
        p_load: 0.15,
        p_unread: 0.9,
        p_recent: 0.05,
        p_const: 0.1,
        index: (1, 3),
        p_hub: 0.0,
        first_loads: (5, 13),
    },
    Shape {
        name: "live",
        size: (8, 30),
        p_load: 0.25,
        p_unread: 0.15,
        p_recent: 0.0,
        p_const: 0.1,
        index: (1, 2),
        p_hub: 0.0,
        first_loads: (4, 9),
    },
    Shape {
        name: "big-cores",
        size: (36, 39),
        p_load: 0.04,
        p_unread: 0.7,
        p_recent: 0.3,
        p_const: 0.3,
        index: (1, 1),
        p_hub: 0.0,
        first_loads: (1, 1),
    },
    Shape {
        name: "big-lsus",
        size: (24, 39),
        p_load: 0.7,
        p_unread: 0.6,
        p_recent: 0.1,
        p_const: 0.2,
        index: (1, 3),
        p_hub: 0.0,
        first_loads: (6, 12),
    },
    Shape {
        name: "small",
        size: (2, 7),
        p_load: 0.3,
        p_unread: 0.3,
        p_recent: 0.3,
        p_const: 0.3,
        index: (1, 2),
        p_hub: 0.0,
        first_loads: (0, 2),
    },
];

/// Highest register a graph may use for parameters (`.regs 63`).
const MAX_REG: usize = 62;

struct Gen<'a> {
    rng: &'a mut Rng,
    s: &'a Shape,
    g: Graph,
    unread: Vec<bool>,
    index: Vec<usize>,
    /// Operations the graph is to have (at most 40 with the stores).
    target: usize,
}

impl Gen<'_> {
    fn push(&mut self, prefix: &str, kind: Kind) -> usize {
        let k = self.g.nodes.len();
        self.g.nodes.push(Node {
            name: format!("{prefix}{k}"),
            kind,
        });
        for p in self.g.reads(k) {
            self.unread[p] = false;
        }
        self.unread.push(!matches!(self.g.nodes[k].kind, Kind::Store { .. }));
        k
    }
    fn unread_count(&self) -> usize {
        self.unread.iter().filter(|&&u| u).count()
    }
    fn param(&mut self, p: Param) -> Option<usize> {
        // Parameter 0 is n (R1); parameter k is in R{k+1}.
        if self.g.params.len() + 2 > MAX_REG {
            return None;
        }
        self.g.params.push(p);
        Some(self.g.params.len())
    }
    fn array(&mut self, ty: Ty, input: bool) -> usize {
        let a = self.g.arrays.len();
        let param = if self.rng.chance(0.8) {
            self.param(Param::Base(a))
        } else {
            None
        };
        self.g.arrays.push(Array { ty, input, param });
        a
    }
    /// An address node: an index node, or (a gather / scatter) a new core
    /// masking an integer value to 0..15.
    fn address(&mut self) -> (usize, u32) {
        let scale = if self.rng.chance(0.15) { 8 } else { 4 };
        if self.g.nodes.len() + self.unread_count() + 2 <= self.target && self.rng.chance(0.08) {
            if let Some(v) = self.pick_node(Ty::Int) {
                let m = self.push(
                    "gx",
                    Kind::Core {
                        op: OPS.iter().position(|o| o.mn == "AND").unwrap(),
                        opds: vec![Opd::Node(v, false), Opd::Lit("15".into(), 15)],
                    },
                );
                return (m, scale);
            }
        }
        let i = self.index[self.rng.range(0, self.index.len() - 1)];
        (i, scale)
    }
    fn load(&mut self) -> usize {
        // Now and then a second load of an input array already loaded.
        let reuse: Vec<usize> = (0..self.g.arrays.len()).filter(|&a| self.g.arrays[a].input).collect();
        let arr = if !reuse.is_empty() && self.rng.chance(0.1) {
            self.rng.pick(&reuse)
        } else {
            let ty = if self.rng.chance(0.6) { Ty::Flt } else { Ty::Int };
            self.array(ty, true)
        };
        let (addr, scale) = self.address();
        self.push("ld", Kind::Load { addr, scale, arr })
    }
    fn store(&mut self, val: usize) -> usize {
        let ty = self.g.ty(val).unwrap();
        let arr = self.array(ty, false);
        let (addr, scale) = self.address();
        self.push("st", Kind::Store { addr, scale, arr, val })
    }
    /// A value node of type `ty`, chosen per the shape.
    fn pick_node(&mut self, ty: Ty) -> Option<usize> {
        let cands: Vec<usize> = (0..self.g.nodes.len()).filter(|&k| self.g.ty(k) == Some(ty)).collect();
        if cands.is_empty() {
            return None;
        }
        if self.s.p_hub > 0.0 && self.rng.chance(self.s.p_hub) {
            if let Some(&h) = cands
                .iter()
                .find(|&&k| matches!(self.g.nodes[k].kind, Kind::Load { .. }))
            {
                return Some(h);
            }
        }
        if self.rng.chance(self.s.p_unread) {
            let un: Vec<usize> = cands.iter().copied().filter(|&k| self.unread[k]).collect();
            if !un.is_empty() {
                return Some(self.rng.pick(&un));
            }
        }
        if self.rng.chance(self.s.p_recent) {
            let lo = cands.len().saturating_sub(2);
            return Some(self.rng.pick(&cands[lo..]));
        }
        Some(self.rng.pick(&cands))
    }
    /// A constant operand of type `ty`: a literal, a register or zero.
    fn constant(&mut self, ty: Ty, mn: &str) -> Opd {
        if self.rng.chance(0.1) {
            return Opd::Zero;
        }
        if self.rng.chance(0.3) {
            let bits = match ty {
                Ty::Int => self.rng.int(),
                Ty::Flt => self.rng.float().to_bits(),
            };
            if let Some(k) = self.param(Param::Const(bits)) {
                return Opd::Reg(k);
            }
        }
        match ty {
            Ty::Flt => {
                // k/8, exact in text and in FP32.
                let k = self.rng.range(4, 15) as f32 / 8.0;
                let v = if self.rng.chance(0.4) { -k } else { k };
                Opd::Lit(format!("{v:?}"), v.to_bits())
            }
            Ty::Int if mn.starts_with("SH") => {
                let v = self.rng.range(0, 35) as u32;
                Opd::Lit(v.to_string(), v)
            }
            Ty::Int => match self.rng.range(0, 2) {
                0 => {
                    let v = self.rng.range(1, 100) as u32;
                    Opd::Lit(v.to_string(), v)
                }
                1 => {
                    let v = self.rng.range(1, 100) as i32;
                    Opd::Lit(format!("-{v}"), v.wrapping_neg() as u32)
                }
                _ => {
                    let v = self.rng.u32();
                    Opd::Lit(format!("0x{v:08x}"), v)
                }
            },
        }
    }
    /// A core operation with at least one node operand (or x).
    fn core(&mut self) -> Option<usize> {
        for _ in 0..20 {
            let o = self.rng.range(0, OPS.len() - 1);
            let spec = &OPS[o];
            let mut opds = Vec::new();
            let mut has_imm = false;
            let mut has_input = false;
            for (j, &ty) in spec.ins.iter().enumerate() {
                let want_const = spec.ins.len() > 1 && self.rng.chance(self.s.p_const);
                let opd = if want_const && ty == Ty::Int && self.rng.chance(0.15) {
                    Opd::X
                } else if want_const && !has_imm {
                    self.constant(ty, spec.mn)
                } else {
                    match self.pick_node(ty) {
                        Some(k) => Opd::Node(k, spec.neg.get(j).copied().unwrap_or(false) && self.rng.chance(0.3)),
                        None if !has_imm => self.constant(ty, spec.mn),
                        None => Opd::Zero,
                    }
                };
                match opd {
                    Opd::Lit(..) | Opd::Reg(_) => has_imm = true,
                    Opd::Node(..) | Opd::X => has_input = true,
                    Opd::Zero => {}
                }
                opds.push(opd);
            }
            if has_input {
                return Some(self.push("op", Kind::Core { op: o, opds }));
            }
        }
        None
    }
}

fn generate(id: usize, seed: u64) -> Graph {
    let mut rng = Rng(seed ^ (id as u64).wrapping_mul(0x2545_f491_4f6c_dd1d));
    let s = &SHAPES[rng.range(0, SHAPES.len() - 1)];
    let defective = s.size.1 <= 36 && rng.chance(0.06);
    let target = rng.range(s.size.0, s.size.1);
    let mut gen = Gen {
        rng: &mut rng,
        s,
        g: Graph {
            id,
            shape: s.name,
            nodes: Vec::new(),
            arrays: Vec::new(),
            params: Vec::new(),
            defect: None,
        },
        unread: Vec::new(),
        index: Vec::new(),
        target,
    };
    let ni = if target < 8 {
        1
    } else {
        gen.rng.range(s.index.0, s.index.1)
    };
    for _ in 0..ni {
        let k = gen.push("ix", Kind::Index);
        gen.index.push(k);
    }
    let fl = gen.rng.range(s.first_loads.0, s.first_loads.1);
    for _ in 0..fl {
        if gen.g.nodes.len() + gen.unread_count() + 1 >= target {
            break;
        }
        gen.load();
    }
    // Every value nobody reads at the end gets a store: stop when the
    // nodes plus those stores reach the target.
    while gen.g.nodes.len() + gen.unread_count() < target {
        if gen.rng.chance(s.p_load) || gen.core().is_none() {
            gen.load();
        }
    }
    if defective {
        if gen.rng.chance(0.5) {
            let v = gen.rng.range(1, 1000) as u32;
            let k = gen.push(
                "bad",
                Kind::Core {
                    op: OPS.iter().position(|o| o.mn == "MOV").unwrap(),
                    opds: vec![Opd::Lit(v.to_string(), v)],
                },
            );
            gen.g.defect = Some(Defect::FiresForever(k));
        } else {
            let v = gen.pick_node(Ty::Int).unwrap();
            let k = gen.push(
                "dead",
                Kind::Core {
                    op: OPS.iter().position(|o| o.mn == "NOT").unwrap(),
                    opds: vec![Opd::Node(v, false)],
                },
            );
            gen.g.defect = Some(Defect::Dead(k));
            gen.unread[k] = false; // no store for it
        }
    }
    let sinks: Vec<usize> = (0..gen.g.nodes.len()).filter(|&k| gen.unread[k]).collect();
    for v in sinks {
        gen.store(v);
    }
    gen.g
}

/// The kernel text, the line of `.gpucc` and each node's line.
fn kernel_text(g: &Graph) -> (String, u32, Vec<u32>) {
    let mut t = Vec::new();
    t.push(format!("; random dataflow graph {} ({})", g.id, g.shape));
    t.push(format!(".kernel rg{}", g.id));
    t.push(format!(".regs {}", (g.params.len() + 2).max(4)));
    t.push(".param n".to_string());
    for k in 0..g.params.len() {
        t.push(format!(".param arg{}", k + 1));
    }
    t.push("        LDC R1, c[n]".to_string());
    for k in 0..g.params.len() {
        t.push(format!("        LDC R{}, c[arg{}]", k + 2, k + 1));
    }
    t.push(".gpucc".to_string());
    let at = t.len() as u32;
    t.push("        grid R1, 1".to_string());
    let name = |k: usize| g.nodes[k].name.clone();
    let base = |a: usize| match g.arrays[a].param {
        Some(p) => format!("R{}", p + 1),
        None => format!("0x{:x}", Graph::base_addr(a)),
    };
    let mut lines = Vec::new();
    for n in &g.nodes {
        let body = match &n.kind {
            Kind::Index => "IADD x, 0".to_string(),
            Kind::Load { addr, scale, arr } => format!("LDG [{}*{scale} + {}]", name(*addr), base(*arr)),
            Kind::Store { addr, scale, arr, val } => {
                format!("STG [{}*{scale} + {}], {}", name(*addr), base(*arr), name(*val))
            }
            Kind::Core { op, opds } => {
                let ops: Vec<String> = opds
                    .iter()
                    .enumerate()
                    .map(|(j, o)| match o {
                        Opd::Node(p, neg) => format!("{}{}", if *neg { "-" } else { "" }, name(*p)),
                        Opd::Lit(s, _) => s.clone(),
                        Opd::Reg(p) => format!("R{}", p + 1),
                        Opd::Zero if OPS[*op].ins[j] == Ty::Flt => "0.0".into(),
                        Opd::Zero => "0".into(),
                        Opd::X => "x".into(),
                    })
                    .collect();
                format!("{} {}", OPS[*op].mn, ops.join(", "))
            }
        };
        lines.push(t.len() as u32 + 1);
        t.push(format!("{:<7} {body}", n.name));
    }
    t.push(".endgpucc".to_string());
    t.push("        EXIT".to_string());
    let mut s = t.join("\n");
    s.push('\n');
    (s, at, lines)
}

// ---------------------------------------------------------------- reference

fn canon(x: f32) -> u32 {
    if x.is_nan() {
        CANONICAL_NAN
    } else {
        x.to_bits()
    }
}

/// minNum / maxNum of IEEE 754-2008: a NaN yields the other operand,
/// -0 < +0.
fn fminmax(a: f32, b: f32, max: bool) -> u32 {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => return CANONICAL_NAN,
        (true, false) => return b.to_bits(),
        (false, true) => return a.to_bits(),
        _ => {}
    }
    let a_first = if a == b {
        // Equal: only the zeros differ (by sign).
        a.is_sign_negative() != max
    } else {
        (a < b) != max
    };
    if a_first {
        a.to_bits()
    } else {
        b.to_bits()
    }
}

/// An integer to FP32 with rounding `rm` (0 RN, 1 RZ, 2 RM, 3 RP): the
/// nearest value, then one step if the directed rounding wants the other
/// neighbour (every 32-bit integer is exact in f64).
fn int_to_f32(v: i64, rm: u8) -> u32 {
    let exact = v as f64;
    let mut r = v as f32;
    let rf = r as f64;
    match rm {
        1 if rf.abs() > exact.abs() => r = if v > 0 { r.next_down() } else { r.next_up() },
        2 if rf > exact => r = r.next_down(),
        3 if rf < exact => r = r.next_up(),
        _ => {}
    }
    r.to_bits()
}

/// FP32 to an integer with rounding `rm`, saturating, NaN to 0.
fn f32_to_int(x: f32, rm: u8, unsigned: bool) -> u32 {
    let r = match rm {
        0 => x.round_ties_even(),
        1 => x.trunc(),
        2 => x.floor(),
        _ => x.ceil(),
    };
    if unsigned {
        r as u32
    } else {
        r as i32 as u32
    }
}

fn s24(v: u32) -> i64 {
    ((v << 8) as i32 >> 8) as i64
}

/// One core operation on operand bits.
fn eval(mn: &str, a: &[u32]) -> u32 {
    let f = |k: usize| f32::from_bits(a[k]);
    let rm = |m: &str| {
        if m.contains(".RZ") {
            1
        } else if m.contains(".RM") {
            2
        } else if m.contains(".RP") {
            3
        } else {
            0
        }
    };
    let imul = |m: &str, x: u32, y: u32| -> u32 {
        match m {
            "" => x.wrapping_mul(y),
            ".HI" => ((x as i32 as i64 * y as i32 as i64) >> 32) as u32,
            ".HI.U32" => ((x as u64 * y as u64) >> 32) as u32,
            ".U24" => (x & 0xff_ffff).wrapping_mul(y & 0xff_ffff),
            ".S24" => (s24(x) * s24(y)) as u32,
            _ => unreachable!("{m}"),
        }
    };
    let (base, suffix) = mn.split_at(mn.find('.').unwrap_or(mn.len()));
    match base {
        "IADD" => a[0].wrapping_add(a[1]),
        "ISUB" => a[0].wrapping_sub(a[1]),
        "IMUL" => imul(suffix, a[0], a[1]),
        "IMAD" => imul(suffix, a[0], a[1]).wrapping_add(a[2]),
        "IMIN" if suffix == ".U32" => a[0].min(a[1]),
        "IMAX" if suffix == ".U32" => a[0].max(a[1]),
        "IMIN" => (a[0] as i32).min(a[1] as i32) as u32,
        "IMAX" => (a[0] as i32).max(a[1] as i32) as u32,
        "SHL" => {
            if a[1] >= 32 {
                0
            } else {
                a[0] << a[1]
            }
        }
        "SHR" if suffix == ".S32" => ((a[0] as i32) >> a[1].min(31)) as u32,
        "SHR" => {
            if a[1] >= 32 {
                0
            } else {
                a[0] >> a[1]
            }
        }
        "AND" => a[0] & a[1],
        "OR" => a[0] | a[1],
        "XOR" => a[0] ^ a[1],
        "NOT" => !a[0],
        "IABS" => (a[0] as i32).wrapping_abs() as u32,
        "MOV" => a[0],
        "F2I" => f32_to_int(f(0), rm(suffix), suffix.contains(".U32")),
        "I2F" => {
            let v = if suffix.contains(".U32") {
                a[0] as i64
            } else {
                a[0] as i32 as i64
            };
            int_to_f32(v, rm(suffix))
        }
        "FADD" => canon(f(0) + f(1)),
        "FMUL" => canon(f(0) * f(1)),
        "FFMA" => canon(f(0).mul_add(f(1), f(2))),
        "FMIN" => fminmax(f(0), f(1), false),
        "FMAX" => fminmax(f(0), f(1), true),
        _ => unreachable!("{mn}"),
    }
}

fn rd(m: &[u8], addr: usize) -> u32 {
    u32::from_le_bytes(m[addr..addr + 4].try_into().unwrap())
}

fn wr(m: &mut [u8], addr: usize, v: u32) {
    m[addr..addr + 4].copy_from_slice(&v.to_le_bytes());
}

/// The memory after the graph ran over elements 0..n, evaluated directly.
fn reference(g: &Graph, n: usize, params: &[u32], mem: &[u8]) -> Vec<u8> {
    let mut out = mem.to_vec();
    let mut v = vec![0u32; g.nodes.len()];
    let shift = |s: u32| if s == 8 { 3 } else { 2 };
    for e in 0..n {
        for (k, node) in g.nodes.iter().enumerate() {
            v[k] = match &node.kind {
                Kind::Index => e as u32,
                Kind::Load { addr, scale, arr } => {
                    rd(mem, Graph::base_addr(*arr) + ((v[*addr] as usize) << shift(*scale)))
                }
                Kind::Store { addr, scale, arr, val } => {
                    wr(
                        &mut out,
                        Graph::base_addr(*arr) + ((v[*addr] as usize) << shift(*scale)),
                        v[*val],
                    );
                    0
                }
                Kind::Core { op, opds } => {
                    let a: Vec<u32> = opds
                        .iter()
                        .map(|o| match o {
                            Opd::Node(p, neg) => v[*p] ^ if *neg { 0x8000_0000 } else { 0 },
                            Opd::Lit(_, b) => *b,
                            Opd::Reg(p) => params[*p],
                            Opd::Zero => 0,
                            Opd::X => e as u32,
                        })
                        .collect();
                    eval(OPS[*op].mn, &a)
                }
            };
        }
    }
    out
}

// ---------------------------------------------------------------- routing model

/// Readers and producers of each node as bit sets, and which are LSUs.
fn edges(g: &Graph) -> (Vec<u64>, Vec<u64>, Vec<bool>) {
    let n = g.nodes.len();
    let mut preds = vec![0u64; n];
    let mut succs = vec![0u64; n];
    for (k, pk) in preds.iter_mut().enumerate() {
        for p in g.reads(k) {
            *pk |= 1 << p;
            succs[p] |= 1 << k;
        }
    }
    (preds, succs, (0..n).map(|k| g.is_lsu(k)).collect())
}

/// Is there a topological order that keeps at most `LANES` values live
/// (placed, with a reader not yet placed) and fits the line, each node at
/// the first free position of its kind? Exhaustive over (placed set, next
/// position); `None` when more than `cap` states would be needed.
fn routable(preds: &[u64], succs: &[u64], lsu: &[bool], lanes: usize, positions: usize, cap: usize) -> Option<bool> {
    let n = preds.len();
    let full = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    let mut seen: HashSet<(u64, usize)> = HashSet::new();
    let mut stack = vec![(0u64, 0usize)];
    while let Some((m, next)) = stack.pop() {
        if m == full {
            return Some(true);
        }
        if !seen.insert((m, next)) {
            continue;
        }
        if seen.len() > cap {
            return None;
        }
        // Values live now: placed, with a reader not placed.
        let live: Vec<usize> = (0..n).filter(|&p| m >> p & 1 == 1 && succs[p] & !m != 0).collect();
        for k in 0..n {
            if m >> k & 1 == 1 || preds[k] & !m != 0 {
                continue;
            }
            let m2 = m | 1 << k;
            let still = live.iter().filter(|&&p| succs[p] & !m2 != 0).count();
            if still + (succs[k] != 0) as usize > lanes {
                continue;
            }
            if let Some(p) = (next..positions).find(|p| (p % 3 == 0) == lsu[k]) {
                stack.push((m2, p + 1));
            }
        }
    }
    Some(false)
}

/// The same question by brute force over all permutations (small graphs).
fn routable_brute(preds: &[u64], succs: &[u64], lsu: &[bool]) -> bool {
    fn go(perm: &mut Vec<usize>, k: usize, ok: &mut dyn FnMut(&[usize]) -> bool) -> bool {
        if k == perm.len() {
            return ok(perm);
        }
        for j in k..perm.len() {
            perm.swap(k, j);
            if go(perm, k + 1, ok) {
                return true;
            }
            perm.swap(k, j);
        }
        false
    }
    let n = preds.len();
    let mut perm: Vec<usize> = (0..n).collect();
    go(&mut perm, 0, &mut |o| {
        let (mut placed, mut pos) = (0u64, 0usize);
        for &k in o {
            if preds[k] & !placed != 0 {
                return false;
            }
            placed |= 1 << k;
            let live = (0..n)
                .filter(|&p| placed >> p & 1 == 1 && succs[p] & !placed != 0)
                .count();
            if live > LANES {
                return false;
            }
            match (pos..POSITIONS).find(|p| (p % 3 == 0) == lsu[k]) {
                Some(p) => pos = p + 1,
                None => return false,
            }
        }
        true
    })
}

// ---------------------------------------------------------------- the check

#[derive(Default)]
struct Summary {
    graphs: usize,
    mapped: usize,
    reasons: BTreeMap<String, usize>,
    /// Rejections for lanes / line confirmed by the exhaustive search, by
    /// brute force, and left unconfirmed (search cap).
    confirmed: usize,
    brute: usize,
    unconfirmed: usize,
    max_ms_mapped: f64,
    max_ms_rejected: f64,
    /// Rejections whose reason names the lanes when only the line is
    /// short, or the other way round.
    misnamed: usize,
    /// Rejections the bound (15 LSUs, 30 cores) decides.
    by_bound: usize,
    /// Time limits reached on graphs the search here finds unmappable,
    /// mappable, or cannot decide.
    timeouts: [usize; 3],
    max_nodes: usize,
    max_mapped_nodes: usize,
    words: usize,
    fp_nonfinite: usize,
    fp_words: usize,
    shapes: BTreeMap<&'static str, (usize, usize)>,
}

fn reason_of(msg: &str) -> String {
    if msg.contains("too many operations") {
        if msg.contains("core operations") {
            "too many core operations".into()
        } else {
            "too many loads and stores".into()
        }
    } else if msg.contains("no placement routes on") {
        "more than 5 live values".into()
    } else if msg.contains("no placement fits the line") {
        "line too short".into()
    } else if msg.contains("time limit") {
        "time limit".into()
    } else if msg.starts_with("after mapping") {
        if msg.contains("fire forever") {
            "after mapping: fires forever".into()
        } else if msg.contains("nobody reads") {
            "after mapping: value nobody reads".into()
        } else {
            format!("after mapping: {msg}")
        }
    } else {
        format!("other: {msg}")
    }
}

fn check_graph(g: &Graph, cfg: &SmConfig, sum: &mut Summary, rng: &mut Rng) {
    let (src, gpucc_line, lines) = kernel_text(g);
    let n = g.nodes.len();
    let (cores, lsus) = g.counts();
    sum.graphs += 1;
    sum.max_nodes = sum.max_nodes.max(n);
    let ctx = || format!("graph {} ({}), {cores} cores {lsus} LSUs:\n{src}", g.id, g.shape);
    let t0 = Instant::now();
    let res = map_source(&src, &MapOptions::default());
    let ms = t0.elapsed().as_secs_f64() * 1e3;
    // The independent routing question.
    let (preds, succs, lsu) = edges(g);
    let too_many = cores > 32 || lsus > 16;
    // Small graphs: every permutation, and the search must agree.
    let brute = (n <= 8 && !too_many).then(|| {
        let b = routable_brute(&preds, &succs, &lsu);
        assert_eq!(
            routable(&preds, &succs, &lsu, LANES, POSITIONS, usize::MAX),
            Some(b),
            "brute force and search disagree: {}",
            ctx()
        );
        sum.brute += 1;
        b
    });
    let entry = sum.shapes.entry(g.shape).or_default();
    let outcome = match res {
        Ok((text, maps)) => {
            entry.0 += 1;
            sum.mapped += 1;
            sum.max_ms_mapped = sum.max_ms_mapped.max(ms);
            sum.max_mapped_nodes = sum.max_mapped_nodes.max(n);
            assert!(!too_many, "mapped a graph too big: {}", ctx());
            assert!(g.defect.is_none(), "mapped a defective graph {:?}: {}", g.defect, ctx());
            assert_ne!(brute, Some(false), "mapped, but no order fits: {}", ctx());
            assert_eq!(maps.len(), 1, "{}", ctx());
            assert_eq!((maps[0].cores, maps[0].lsus), (cores, lsus), "{}", ctx());
            assert!(maps[0].lanes >= 1 && maps[0].lanes <= LANES, "{maps:?}");
            assert_eq!(text.lines().count(), src.lines().count(), "{}", ctx());
            run_and_compare(g, cfg, &text, sum, rng, &ctx);
            format!("mapped on {} lanes", maps[0].lanes)
        }
        Err(errs) => {
            entry.1 += 1;
            sum.max_ms_rejected = sum.max_ms_rejected.max(ms);
            assert!(!errs.is_empty(), "{}", ctx());
            for e in &errs {
                assert!(e.line > 0 && !e.msg.trim().is_empty(), "{e:?}: {}", ctx());
            }
            let e = &errs[0];
            let reason = reason_of(&e.msg);
            *sum.reasons.entry(reason.clone()).or_default() += 1;
            if too_many {
                let want = if cores > 32 {
                    format!("{cores} core operations for 32 cores")
                } else {
                    format!("{lsus} loads and stores for 16 LSUs")
                };
                assert!(
                    e.line == gpucc_line && e.msg.contains("too many operations") && e.msg.contains(&want),
                    "{e:?}: {}",
                    ctx()
                );
            } else {
                assert!(!reason.starts_with("too many"), "{e:?}: {}", ctx());
                // A bound first: every LSU reads an address from upstream,
                // and position 0 (lsu0) has nothing upstream; a core's value
                // must be read downstream, and after the last LSU (45) come
                // only core30 (46), read at most by core31 (47), read by
                // nobody: at most 15 LSUs and 30 cores with readers.
                let read_cores = (0..n).filter(|&k| !lsu[k] && succs[k] != 0).count();
                let bound = lsus > 15 || read_cores > 30;
                if bound {
                    sum.by_bound += 1;
                }
                let fits = brute
                    .or(bound.then_some(false))
                    .or_else(|| routable(&preds, &succs, &lsu, LANES, POSITIONS, 2_000_000));
                match fits {
                    Some(false) if reason == "time limit" => {
                        assert_eq!(e.line, gpucc_line, "{e:?}: {}", ctx());
                        sum.timeouts[0] += 1;
                    }
                    Some(false) => {
                        assert!(
                            e.line == gpucc_line && (reason == "more than 5 live values" || reason == "line too short"),
                            "no order fits, but the mapper says {e:?}: {}",
                            ctx()
                        );
                        sum.confirmed += 1;
                        // Which limit: with an unbounded line, do 5 lanes do?
                        // (none: the lanes; some: the 48 positions.)
                        let unbounded = if bound {
                            None
                        } else {
                            routable(&preds, &succs, &lsu, LANES, 4 * POSITIONS, 2_000_000)
                        };
                        let by_line = unbounded == Some(true);
                        if unbounded.is_some() && by_line != (reason == "line too short") {
                            sum.misnamed += 1;
                            if verbose() {
                                eprintln!(
                                    "graph {}: the mapper says {e}, the line alone is the limit: {by_line}",
                                    g.id
                                );
                            }
                        }
                    }
                    Some(true) => {
                        // A mapping exists: only the defect may stop it, or
                        // the time limit.
                        let (k, phrase) = match g.defect {
                            Some(Defect::FiresForever(k)) => (k, "fire forever"),
                            Some(Defect::Dead(k)) => (k, "nobody reads"),
                            None if reason == "time limit" => (usize::MAX, ""),
                            None => panic!("a mapping exists but the mapper says {e:?}: {}", ctx()),
                        };
                        if k == usize::MAX {
                            sum.timeouts[1] += 1;
                        } else {
                            assert!(
                                e.line == lines[k] && e.msg.starts_with("after mapping") && e.msg.contains(phrase),
                                "defect {:?} at line {}, mapper says {errs:?}: {}",
                                g.defect,
                                lines[k],
                                ctx()
                            );
                        }
                    }
                    None => {
                        assert!(
                            e.line == gpucc_line
                                && matches!(
                                    reason.as_str(),
                                    "more than 5 live values" | "line too short" | "time limit"
                                ),
                            "{e:?}: {}",
                            ctx()
                        );
                        if reason == "time limit" {
                            sum.timeouts[2] += 1;
                        } else {
                            sum.unconfirmed += 1;
                        }
                    }
                }
            }
            reason
        }
    };
    if verbose() {
        eprintln!(
            "graph {:4} {:9} {:2} nodes ({:2} cores, {:2} LSUs) {:8.2} ms: {outcome}",
            g.id, g.shape, n, cores, lsus, ms
        );
    }
}

fn verbose() -> bool {
    std::env::var_os("GPUCC_MAP_RANDOM_VERBOSE").is_some()
}

fn run_and_compare(g: &Graph, cfg: &SmConfig, text: &str, sum: &mut Summary, rng: &mut Rng, ctx: &dyn Fn() -> String) {
    let prog = assemble(text, "mapped.s").unwrap_or_else(|e| panic!("{}\n{}", e.render(text), ctx()));
    for n in [1usize, 33] {
        let size = Graph::base_addr(g.arrays.len());
        let mut mem = vec![0u8; size];
        // Inputs random, outputs a recognisable filler.
        for (a, arr) in g.arrays.iter().enumerate() {
            for w in 0..ARRAY_BYTES / 4 {
                let v = match (arr.input, arr.ty) {
                    (true, Ty::Int) => rng.int(),
                    (true, Ty::Flt) => rng.float().to_bits(),
                    (false, _) => 0xdead_0000 | (a as u32) << 8 | w as u32 & 0xff,
                };
                wr(&mut mem, Graph::base_addr(a) + 4 * w, v);
            }
        }
        let mut params = vec![n as u32];
        for p in &g.params {
            params.push(match p {
                Param::Base(a) => Graph::base_addr(*a) as u32,
                Param::Const(b) => *b,
            });
        }
        // Opd::Reg(k) reads parameter k (register R{k+1}).
        let want = reference(g, n, &params, &mem);
        let l = Launch {
            grid: [1, 1],
            block: [32, 1, 1],
            params,
        };
        let (got, _) = run_kernel(cfg, &prog, &l, mem).unwrap_or_else(|e| panic!("n {n}: {e}\n{}", ctx()));
        assert_eq!(got.len(), want.len());
        for w in 0..want.len() / 4 {
            let (x, y) = (rd(&got, 4 * w), rd(&want, 4 * w));
            if x != y {
                let a = (4 * w).saturating_sub(MEM_BASE) / ARRAY_BYTES;
                panic!(
                    "n {n}: word at 0x{:x} (array {a}, word {}) is 0x{x:08x}, the graph gives 0x{y:08x}\n{}\nmapped:\n{text}",
                    4 * w,
                    ((4 * w).saturating_sub(MEM_BASE) % ARRAY_BYTES) / 4,
                    ctx()
                );
            }
        }
        // Count the words the stores wrote.
        for node in &g.nodes {
            if let Kind::Store { arr, val, .. } = node.kind {
                sum.words += n;
                if g.ty(val) == Some(Ty::Flt) {
                    for e in 0..n.min(ARRAY_BYTES / 4) {
                        let v = f32::from_bits(rd(&want, Graph::base_addr(arr) + 4 * e));
                        sum.fp_words += 1;
                        if !v.is_finite() {
                            sum.fp_nonfinite += 1;
                        }
                    }
                }
            }
        }
    }
}

fn run(count: usize, seed: u64) -> Summary {
    let cfg = SmConfig::load("gpucc").unwrap();
    let mut sum = Summary::default();
    let mut rng = Rng(seed ^ 0x5eed);
    for id in 0..count {
        let g = generate(id, seed);
        check_graph(&g, &cfg, &mut sum, &mut rng);
    }
    sum
}

fn report(sum: &Summary) -> String {
    let rej: Vec<String> = sum.reasons.iter().map(|(r, c)| format!("{r}: {c}")).collect();
    let shapes: Vec<String> = sum
        .shapes
        .iter()
        .map(|(s, (m, r))| format!("{s} {m}/{}", m + r))
        .collect();
    format!(
        "{} graphs: {} mapped, {} rejected ({}); lane/line rejections confirmed {} (by the 15-LSU / 30-core bound {}), unconfirmed {}, reason naming the other limit {}; time limits on unmappable / mappable / undecided graphs {:?}; graphs checked by brute force {}; max mapping time {:.2} ms mapped, {:.2} ms rejected; max nodes {} (mapped {}); {} stored words compared, FP {} of them {} non-finite; mapped per shape: {}",
        sum.graphs,
        sum.mapped,
        sum.graphs - sum.mapped,
        rej.join(", "),
        sum.confirmed,
        sum.by_bound,
        sum.unconfirmed,
        sum.misnamed,
        sum.timeouts,
        sum.brute,
        sum.max_ms_mapped,
        sum.max_ms_rejected,
        sum.max_nodes,
        sum.max_mapped_nodes,
        sum.words,
        sum.fp_words,
        sum.fp_nonfinite,
        shapes.join(", ")
    )
}

#[test]
fn random_graphs_map_and_run_like_the_graph() {
    let sum = run(50, 0x6770_6363);
    eprintln!("{}", report(&sum));
    // Both outcomes occur; in an optimised build the time limit (10 s,
    // wall clock) does not stop a graph that maps.
    assert!(sum.mapped >= 10 && sum.graphs - sum.mapped >= 5, "{}", report(&sum));
    assert!(cfg!(debug_assertions) || sum.timeouts[1] == 0, "{}", report(&sum));
}

#[test]
#[ignore = "1,000 graphs: run with --release --include-ignored"]
fn thousand_random_graphs() {
    let sum = run(1000, 0x0040_0040);
    println!("{}", report(&sum));
    assert!(sum.mapped >= 200, "{}", report(&sum));
    assert!(cfg!(debug_assertions) || sum.timeouts[1] == 0, "{}", report(&sum));
}

/// A hand-made graph: `index` index nodes, then `ops` as (kind, operands)
/// built by the closure.
fn hand_graph(id: usize, build: impl FnOnce(&mut Graph)) -> Graph {
    let mut g = Graph {
        id,
        shape: "hand",
        nodes: Vec::new(),
        arrays: Vec::new(),
        params: Vec::new(),
        defect: None,
    };
    build(&mut g);
    g
}

fn hand_push(g: &mut Graph, prefix: &str, kind: Kind) -> usize {
    let k = g.nodes.len();
    g.nodes.push(Node {
        name: format!("{prefix}{k}"),
        kind,
    });
    k
}

fn hand_array(g: &mut Graph, ty: Ty, input: bool) -> usize {
    g.arrays.push(Array { ty, input, param: None });
    g.arrays.len() - 1
}

/// A chain of `loads` FP loads summed by FADDs into one store: `loads + 1`
/// LSUs.
fn lsu_chain(id: usize, loads: usize) -> Graph {
    hand_graph(id, |g| {
        let i = hand_push(g, "ix", Kind::Index);
        let fadd = OPS.iter().position(|o| o.mn == "FADD").unwrap();
        let mut acc = None;
        for _ in 0..loads {
            let arr = hand_array(g, Ty::Flt, true);
            let l = hand_push(g, "ld", Kind::Load { addr: i, scale: 4, arr });
            acc = Some(match acc {
                None => l,
                Some(a) => hand_push(
                    g,
                    "op",
                    Kind::Core {
                        op: fadd,
                        opds: vec![Opd::Node(a, false), Opd::Node(l, false)],
                    },
                ),
            });
        }
        let arr = hand_array(g, Ty::Flt, false);
        hand_push(
            g,
            "st",
            Kind::Store {
                addr: i,
                scale: 4,
                arr,
                val: acc.unwrap(),
            },
        );
    })
}

/// Two index nodes, one load, a chain of `ops` IADDs, one store: `ops + 2`
/// cores.
fn core_chain(id: usize, ops: usize) -> Graph {
    hand_graph(id, |g| {
        let i = hand_push(g, "ix", Kind::Index);
        let j = hand_push(g, "ix", Kind::Index);
        let arr = hand_array(g, Ty::Int, true);
        let mut v = hand_push(g, "ld", Kind::Load { addr: i, scale: 4, arr });
        for k in 0..ops {
            v = hand_push(
                g,
                "op",
                Kind::Core {
                    op: 0,
                    opds: vec![Opd::Node(v, false), Opd::Lit(format!("{}", k + 1), k as u32 + 1)],
                },
            );
        }
        let arr = hand_array(g, Ty::Int, false);
        hand_push(
            g,
            "st",
            Kind::Store {
                addr: j,
                scale: 4,
                arr,
                val: v,
            },
        );
    })
}

/// What the line really holds: lsu0 (position 0) has nothing upstream to
/// send it an address, and core30/core31 (positions 46, 47) nothing
/// downstream to read them, so at most 15 loads and stores and 30 core
/// operations map, although the mapper's first check ("too many
/// operations") allows 16 and 32: those graphs are refused by the search
/// ("no placement fits the line"), which the search written here confirms.
#[test]
fn the_line_holds_15_lsus_and_30_cores() {
    let cfg = SmConfig::load("gpucc").unwrap();
    let mut rng = Rng(40);
    for (g, maps) in [
        (lsu_chain(9001, 14), true),
        (lsu_chain(9002, 15), false),
        (core_chain(9003, 28), true),
        (core_chain(9004, 29), false),
    ] {
        let mut sum = Summary::default();
        check_graph(&g, &cfg, &mut sum, &mut rng);
        let (cores, lsus) = g.counts();
        // The search agrees with the bound check_graph used.
        let (preds, succs, lsu) = edges(&g);
        assert_eq!(
            routable(&preds, &succs, &lsu, LANES, POSITIONS, 5_000_000),
            Some(maps),
            "{cores} cores, {lsus} LSUs"
        );
        assert_eq!(sum.mapped == 1, maps, "{cores} cores, {lsus} LSUs: {}", report(&sum));
        if !maps {
            assert_eq!(sum.reasons.get("line too short"), Some(&1), "{}", report(&sum));
            assert_eq!(sum.confirmed, 1, "{}", report(&sum));
        }
    }
}
