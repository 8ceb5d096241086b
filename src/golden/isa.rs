//! The SM instruction set: the one description that the assembler, the
//! disassembler, the golden model and (later) the RTL decoder share.
//!
//! A Tesla-class SIMT ISA with a fixed 64-bit encoding. Every instruction
//! has a guard predicate, a 7-bit opcode, a 4-bit modifier whose meaning the
//! opcode's [`ModKind`] gives, a destination `d`, a source `a`, and either
//! register fields `b`, `c`, `e` or one 32-bit immediate in place of `b`:
//!
//! ```text
//!  63      57 56  55  54   52 51  48 47    40 39    32 31    24 23    16 15          0
//! +----------+---+---+-------+------+--------+--------+--------+--------+-------------+
//! |  opcode  | I | N | pred  | mod  |   d    |   a    |   b    |   c    |      e      |  I = 0
//! +----------+---+---+-------+------+--------+--------+--------+--------+-------------+
//! |  opcode  | I | N | pred  | mod  |   d    |   a    |            imm32               |  I = 1
//! +----------+---+---+-------+------+--------+--------+--------------------------------+
//! ```
//!
//! * `I` (bit 56): operand B is the immediate in bits 31..0 (only for
//!   opcodes whose [`Form`] allows it); `c` and `e` do not exist then.
//! * `N`, `pred` (bits 55..52): the guard `@P0`..`@P3`, `@PT` (7, always),
//!   negated by `N` (`@!P1`).
//! * registers are 8-bit fields: 0..=127 are `R0`..`R127` (up to 128 per
//!   thread, seed 003), 255 is `RZ` (reads 0, writes are dropped).
//! * `e` is a 16-bit field: a signed byte offset for memory operands, the
//!   special-register number of `S2R`, the word offset of `LDC`.
//! * fields an opcode does not use are zero; [`Instr::decode`] rejects a
//!   word that breaks that, so encode and decode are inverse bijections on
//!   valid words.
//! * opcodes 0x70..=0x7f belong to GPU-CC (seed 002, `docs/gpucc.md`):
//!   `GCSET` (0x70) writes one configuration register of a GPU-CC node,
//!   `GCRUN` (0x71) runs the configured network; 0x72..=0x7f stay reserved
//!   and decode as an error.
//!
//! Branch and `SSY` targets are instruction indices (the pc counts
//! instructions, not bytes). FP64 operands are even-aligned register pairs
//! (`R4` names `R4:R5`, low word in `R4`, seed 003).
//!
//! See `docs/isa.md` for the assembly syntax and the semantics of each
//! instruction.

use std::fmt;

/// Most registers a thread can have (R0..R127).
pub const MAX_REGS: u8 = 128;
/// The zero register's field value.
pub const RZ: u8 = 255;
/// Predicate registers per thread (P0..P3, as Tesla's four condition
/// registers).
pub const NUM_PREDS: u8 = 4;
/// The always-true predicate's field value.
pub const PT: u8 = 7;
/// First opcode of the GPU-CC configuration instructions (0x70..=0x7f).
pub const GPUCC_OPCODE_BASE: u8 = 0x70;
/// GPU-CC nodes a `GCSET` can name: cores 0..=31, LSUs 32..=47
/// (`docs/gpucc.md`).
pub const GPUCC_NODES: u8 = 48;
/// Highest configuration register number of a GPU-CC node (`GCSET`'s
/// `sel`: 0 operation word, 1 counter word, 2 immediate, 3 x count, 4 y
/// count).
pub const GPUCC_SEL_MAX: u8 = 4;

/// Which unit executes an instruction (the issue classes the golden model
/// counts and the SM's dispatch uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Integer ALU on the SP lanes.
    Int,
    /// FP32 on the SP lanes.
    Fp32,
    /// Transcendentals on the SFUs.
    Sfu,
    /// FP64 (GT200's FMA unit, Fermi's half-rate cores).
    Fp64,
    /// Conversions.
    Cvt,
    /// Moves, special registers, parameters.
    Move,
    /// Global memory.
    Global,
    /// Shared memory, including shared atomics.
    Shared,
    /// Branch, reconvergence, barrier, exit, nop.
    Control,
}

impl Class {
    pub const ALL: [Class; 9] = [
        Class::Int,
        Class::Fp32,
        Class::Sfu,
        Class::Fp64,
        Class::Cvt,
        Class::Move,
        Class::Global,
        Class::Shared,
        Class::Control,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Class::Int => "int",
            Class::Fp32 => "fp32",
            Class::Sfu => "sfu",
            Class::Fp64 => "fp64",
            Class::Cvt => "cvt",
            Class::Move => "move",
            Class::Global => "global",
            Class::Shared => "shared",
            Class::Control => "control",
        }
    }
}

/// Operand shape of an opcode (assembly order left to right). `b|imm` means
/// a register or, with the `I` bit, a 32-bit immediate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// No operands: `EXIT`.
    None,
    /// `BRA target`: the target pc in imm32 (I = 1 always).
    Target,
    /// `OP d, a`.
    DA,
    /// `OP d, b|imm` (MOV, NOT).
    DB,
    /// `OP d, a, b|imm`.
    DAB,
    /// `OP d, a, b, c` (registers only).
    DABC,
    /// `OP d, a, b|imm, c`: with an immediate the addend register is `d`
    /// itself (`c` must be written as `d`; the immediate takes the `c`
    /// field, as Fermi's `IMAD32I`). [`Instr::addend`] names it.
    DABCI,
    /// `OP Pd, [!]Pa, [!]Pb`: predicate logic; `a` and `b` hold predicate
    /// numbers (0..=3 or PT), the modifier the operation and negations.
    PPP,
    /// `OP Pd, a, b|imm`: compare into predicate `d` (0..=3).
    PAB,
    /// `OP d, a, b|imm, [!]Pm`: select, predicate in the modifier.
    DABP,
    /// `OP d, [a+e]`.
    Load,
    /// `OP [a+e], b`.
    Store,
    /// `OP d, [a+e], b` and, for CAS, `, c`.
    Atom,
    /// `S2R d, SR_x`: special register number in `e`.
    Sreg,
    /// `LDC d, c[a+e]`: parameter word `e` (+ register `a`).
    Param,
    /// `GCSET node, sel, b|imm`: `d` holds a GPU-CC node number, `a` the
    /// number of one of its configuration registers (plain numbers, not
    /// registers), `b` the value: a register (its value in the lowest
    /// active thread) or a 32-bit immediate (`docs/gpucc.md`).
    Cfg,
}

/// How an opcode's 4-bit modifier is read and written in assembly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModKind {
    /// Always 0.
    None,
    /// FP arithmetic: bits 1..0 rounding ([`Rnd`]), bit 2 negates `a`,
    /// bit 3 negates `b` (two-operand ops) or `c` (multiply-add). Negation
    /// is written on the operand (`-R3`).
    FpRound,
    /// Like [`ModKind::FpRound`] but the rounding must be RN (Tesla FMAD).
    FpNegOnly,
    /// Integer compare: bits 2..0 [`ICmp`], bit 3 unsigned (`.U32`).
    ICmp,
    /// FP compare: the 16 [`FCmp`] codes.
    FCmp,
    /// One flag in bit 0, written as the given suffix (`.U32` for unsigned
    /// min/max, `.S32` for arithmetic shift right).
    Flag(&'static str),
    /// Integer multiply: [`MulMode`].
    Mul,
    /// Conversion: bits 1..0 rounding, bit 2 the integer side is unsigned.
    Cvt,
    /// FP rounding only (D2F): bits 1..0.
    Round,
    /// Memory width: bit 0 set = 64 bits into/from a register pair (`.64`).
    Width,
    /// Atomic operation: [`AtomOp`].
    Atom,
    /// A predicate operand: bit 3 negate, bits 2..0 the predicate.
    Pred,
    /// Predicate logic: bits 1..0 [`PLogic`], bit 2 negates `Pa`, bit 3
    /// negates `Pb` (written on the operands: `!P1`).
    PLogic,
}

/// The operation of `PSETP`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PLogic {
    And = 0,
    Or = 1,
    Xor = 2,
}

impl PLogic {
    pub const ALL: [PLogic; 3] = [PLogic::And, PLogic::Or, PLogic::Xor];
    pub fn from_bits(b: u8) -> Option<PLogic> {
        PLogic::ALL.get((b & 3) as usize).copied()
    }
    pub fn suffix(self) -> &'static str {
        ["AND", "OR", "XOR"][self as usize]
    }
    /// Combine 32 lanes of two predicates.
    pub fn eval(self, a: u32, b: u32) -> u32 {
        match self {
            PLogic::And => a & b,
            PLogic::Or => a | b,
            PLogic::Xor => a ^ b,
        }
    }
}

impl ModKind {
    /// Is `m` a valid modifier value for this kind? (The one rule that
    /// [`Instr::validate`] and the RTL decoders share.)
    pub fn accepts(self, m: u8) -> bool {
        match self {
            ModKind::None => m == 0,
            ModKind::FpRound => true,
            ModKind::FpNegOnly => m & 3 == 0,
            ModKind::ICmp => ICmp::from_bits(m).is_some() && m & 7 < 6,
            ModKind::FCmp => true,
            ModKind::Flag(_) | ModKind::Width => m <= 1,
            ModKind::Mul => MulMode::from_bits(m).is_some(),
            ModKind::Cvt => m <= 7,
            ModKind::Round => m <= 3,
            ModKind::Atom => AtomOp::from_bits(m).is_some(),
            ModKind::Pred => (m & 7) < NUM_PREDS || (m & 7) == PT,
            ModKind::PLogic => PLogic::from_bits(m).is_some(),
        }
    }
}

/// Rounding of FP instructions (the GPU's four modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Rnd {
    Rn = 0,
    Rz = 1,
    Rm = 2,
    Rp = 3,
}

impl Rnd {
    pub const ALL: [Rnd; 4] = [Rnd::Rn, Rnd::Rz, Rnd::Rm, Rnd::Rp];
    pub fn from_bits(b: u8) -> Rnd {
        Rnd::ALL[(b & 3) as usize]
    }
    pub fn suffix(self) -> &'static str {
        ["RN", "RZ", "RM", "RP"][self as usize]
    }
    /// The reference arithmetic's rounding direction.
    pub fn round(self) -> crate::golden::arith::Round {
        use crate::golden::arith::Round;
        match self {
            Rnd::Rn => Round::NearEven,
            Rnd::Rz => Round::MinMag,
            Rnd::Rm => Round::Min,
            Rnd::Rp => Round::Max,
        }
    }
}

/// Integer comparisons (`ISETP.<cmp>[.U32]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ICmp {
    Eq = 0,
    Ne = 1,
    Lt = 2,
    Le = 3,
    Gt = 4,
    Ge = 5,
}

impl ICmp {
    pub const ALL: [ICmp; 6] = [ICmp::Eq, ICmp::Ne, ICmp::Lt, ICmp::Le, ICmp::Gt, ICmp::Ge];
    pub fn from_bits(b: u8) -> Option<ICmp> {
        ICmp::ALL.get((b & 7) as usize).copied()
    }
    pub fn suffix(self) -> &'static str {
        ["EQ", "NE", "LT", "LE", "GT", "GE"][self as usize]
    }
    /// Compare `a` with `b`, signed or unsigned.
    pub fn eval(self, a: u32, b: u32, unsigned: bool) -> bool {
        let ord = if unsigned {
            a.cmp(&b)
        } else {
            (a as i32).cmp(&(b as i32))
        };
        use std::cmp::Ordering::*;
        match self {
            ICmp::Eq => ord == Equal,
            ICmp::Ne => ord != Equal,
            ICmp::Lt => ord == Less,
            ICmp::Le => ord != Greater,
            ICmp::Gt => ord == Greater,
            ICmp::Ge => ord != Less,
        }
    }
}

/// FP comparisons: bit 0 less, bit 1 equal, bit 2 greater, bit 3
/// unordered; the result is true when the relation of the operands has its
/// bit set (`LTU` = less or unordered). Code 0 is `F` (false), 15 `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FCmp(pub u8);

impl FCmp {
    pub const NAMES: [&'static str; 16] = [
        "F", "LT", "EQ", "LE", "GT", "NE", "GE", "NUM", "NAN", "LTU", "EQU", "LEU", "GTU", "NEU", "GEU", "T",
    ];
    pub fn suffix(self) -> &'static str {
        FCmp::NAMES[(self.0 & 15) as usize]
    }
    pub fn from_name(s: &str) -> Option<FCmp> {
        FCmp::NAMES.iter().position(|n| *n == s).map(|i| FCmp(i as u8))
    }
    /// Apply to a relation given as less / equal / greater / unordered
    /// (exactly one is true).
    pub fn eval(self, lt: bool, eq: bool, gt: bool, un: bool) -> bool {
        let rel = (lt as u8) | (eq as u8) << 1 | (gt as u8) << 2 | (un as u8) << 3;
        self.0 & rel != 0
    }
    /// Compare two FP32 values (+0 == -0, NaN unordered).
    pub fn eval_f32(self, a: u32, b: u32) -> bool {
        let (x, y) = (f32::from_bits(a), f32::from_bits(b));
        let un = x.is_nan() || y.is_nan();
        self.eval(!un && x < y, !un && x == y, !un && x > y, un)
    }
    /// Compare two FP64 values.
    pub fn eval_f64(self, a: u64, b: u64) -> bool {
        let (x, y) = (f64::from_bits(a), f64::from_bits(b));
        let un = x.is_nan() || y.is_nan();
        self.eval(!un && x < y, !un && x == y, !un && x > y, un)
    }
}

/// Integer multiply modes (`IMUL`, `IMAD`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum MulMode {
    /// Low 32 bits of the 32x32 product (no suffix).
    Lo = 0,
    /// High 32 bits, signed (`.HI`).
    HiS = 1,
    /// High 32 bits, unsigned (`.HI.U32`).
    HiU = 2,
    /// 24x24 unsigned, low 32 bits (`.U24`): Tesla's fast `mul24`.
    U24 = 3,
    /// 24x24 signed, low 32 bits (`.S24`).
    S24 = 4,
}

impl MulMode {
    pub const ALL: [MulMode; 5] = [MulMode::Lo, MulMode::HiS, MulMode::HiU, MulMode::U24, MulMode::S24];
    pub fn from_bits(b: u8) -> Option<MulMode> {
        MulMode::ALL.get(b as usize).copied()
    }
    /// Suffix text including its leading dots ("" for `Lo`).
    pub fn suffix(self) -> &'static str {
        ["", ".HI", ".HI.U32", ".U24", ".S24"][self as usize]
    }
    /// The 32-bit result of `a * b` in this mode.
    pub fn eval(self, a: u32, b: u32) -> u32 {
        match self {
            MulMode::Lo => a.wrapping_mul(b),
            MulMode::HiS => ((a as i32 as i64 * b as i32 as i64) >> 32) as u32,
            MulMode::HiU => ((a as u64 * b as u64) >> 32) as u32,
            MulMode::U24 => (a & 0xff_ffff).wrapping_mul(b & 0xff_ffff),
            MulMode::S24 => {
                let s = |x: u32| ((x << 8) as i32) >> 8;
                s(a).wrapping_mul(s(b)) as u32
            }
        }
    }
}

/// Atomic operations (shared and global), in the shared-memory unit's
/// order. `MIN`/`MAX` are signed; `CAS` writes `b` where the old value
/// equals `c`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum AtomOp {
    Add = 0,
    Min = 1,
    Max = 2,
    Exch = 3,
    Cas = 4,
    And = 5,
    Or = 6,
    Xor = 7,
}

impl AtomOp {
    pub const ALL: [AtomOp; 8] = [
        AtomOp::Add,
        AtomOp::Min,
        AtomOp::Max,
        AtomOp::Exch,
        AtomOp::Cas,
        AtomOp::And,
        AtomOp::Or,
        AtomOp::Xor,
    ];
    pub fn from_bits(b: u8) -> Option<AtomOp> {
        AtomOp::ALL.get(b as usize).copied()
    }
    pub fn suffix(self) -> &'static str {
        ["ADD", "MIN", "MAX", "EXCH", "CAS", "AND", "OR", "XOR"][self as usize]
    }
    /// New memory value from the old one, the data `b` and compare `c`.
    pub fn apply(self, old: u32, b: u32, c: u32) -> u32 {
        match self {
            AtomOp::Add => old.wrapping_add(b),
            AtomOp::Min => (old as i32).min(b as i32) as u32,
            AtomOp::Max => (old as i32).max(b as i32) as u32,
            AtomOp::Exch => b,
            AtomOp::Cas => {
                if old == c {
                    b
                } else {
                    old
                }
            }
            AtomOp::And => old & b,
            AtomOp::Or => old | b,
            AtomOp::Xor => old ^ b,
        }
    }
}

/// Special registers read by `S2R` (number in the `e` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum Sreg {
    TidX = 0,
    TidY = 1,
    TidZ = 2,
    NtidX = 3,
    NtidY = 4,
    NtidZ = 5,
    CtaidX = 6,
    CtaidY = 7,
    NctaidX = 8,
    NctaidY = 9,
    LaneId = 10,
    WarpId = 11,
    /// Warp instructions this warp has issued so far (the golden model is
    /// untimed; the SM top reports core cycles here).
    Clock = 12,
}

impl Sreg {
    pub const ALL: [Sreg; 13] = [
        Sreg::TidX,
        Sreg::TidY,
        Sreg::TidZ,
        Sreg::NtidX,
        Sreg::NtidY,
        Sreg::NtidZ,
        Sreg::CtaidX,
        Sreg::CtaidY,
        Sreg::NctaidX,
        Sreg::NctaidY,
        Sreg::LaneId,
        Sreg::WarpId,
        Sreg::Clock,
    ];
    pub fn from_bits(b: u16) -> Option<Sreg> {
        Sreg::ALL.get(b as usize).copied()
    }
    pub fn name(self) -> &'static str {
        [
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
        ][self as usize]
    }
    pub fn from_name(s: &str) -> Option<Sreg> {
        Sreg::ALL.iter().copied().find(|r| r.name() == s)
    }
}

/// Static facts about one opcode.
#[derive(Debug, Clone, Copy)]
pub struct OpInfo {
    pub mnemonic: &'static str,
    pub form: Form,
    pub class: Class,
    pub modk: ModKind,
    /// Register operands (d, a, b, c) that name FP64 register pairs.
    pub pairs: Pairs,
}

impl OpInfo {
    /// May operand B be a 32-bit immediate? (Never for an FP64 pair.)
    pub fn allows_imm(&self) -> bool {
        self.form.allows_imm() && !self.pairs.b
    }
}

/// Which register operands are FP64 pairs (must be even).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairs {
    pub d: bool,
    pub a: bool,
    pub b: bool,
    pub c: bool,
}

const NO: Pairs = Pairs {
    d: false,
    a: false,
    b: false,
    c: false,
};
const P_ALL: Pairs = Pairs {
    d: true,
    a: true,
    b: true,
    c: true,
};
const P_D: Pairs = Pairs {
    d: true,
    a: false,
    b: false,
    c: false,
};
const P_A: Pairs = Pairs {
    d: false,
    a: true,
    b: false,
    c: false,
};
const P_AB: Pairs = Pairs {
    d: false,
    a: true,
    b: true,
    c: false,
};

macro_rules! isa_table {
    ($( $code:literal $name:ident $mn:literal $form:ident $class:ident $modk:expr, $pairs:expr; )*) => {
        /// Opcodes (the 7-bit field).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u8)]
        pub enum Op { $( $name = $code, )* }

        impl Op {
            /// Every defined opcode, in opcode order.
            pub const ALL: &'static [Op] = &[ $( Op::$name, )* ];

            pub fn from_code(code: u8) -> Option<Op> {
                match code { $( $code => Some(Op::$name), )* _ => None }
            }

            pub fn info(self) -> &'static OpInfo {
                match self { $( Op::$name => &OpInfo {
                    mnemonic: $mn, form: Form::$form, class: Class::$class,
                    modk: $modk, pairs: $pairs,
                }, )* }
            }
        }
    };
}

isa_table! {
    // code  name     mnemonic   form    class    modifier              pairs
    0x00 Nop    "NOP"     None    Control  ModKind::None,          NO;
    // Integer ALU.
    0x01 Iadd   "IADD"    DAB     Int      ModKind::None,          NO;
    0x02 Isub   "ISUB"    DAB     Int      ModKind::None,          NO;
    0x03 Imul   "IMUL"    DAB     Int      ModKind::Mul,           NO;
    0x04 Imad   "IMAD"    DABCI   Int      ModKind::Mul,           NO;
    0x05 Imin   "IMIN"    DAB     Int      ModKind::Flag(".U32"),  NO;
    0x06 Imax   "IMAX"    DAB     Int      ModKind::Flag(".U32"),  NO;
    0x07 Shl    "SHL"     DAB     Int      ModKind::None,          NO;
    0x08 Shr    "SHR"     DAB     Int      ModKind::Flag(".S32"),  NO;
    0x09 And    "AND"     DAB     Int      ModKind::None,          NO;
    0x0a Or     "OR"      DAB     Int      ModKind::None,          NO;
    0x0b Xor    "XOR"     DAB     Int      ModKind::None,          NO;
    0x0c Not    "NOT"     DB      Int      ModKind::None,          NO;
    0x0d Isetp  "ISETP"   PAB     Int      ModKind::ICmp,          NO;
    0x0e Sel    "SEL"     DABP    Int      ModKind::Pred,          NO;
    0x0f Iabs   "IABS"    DA      Int      ModKind::None,          NO;
    // Predicate logic (executed by the front end at issue, Unit::Ctrl).
    0x10 Psetp  "PSETP"   PPP     Control  ModKind::PLogic,        NO;
    // FP32 on the SP lanes.
    0x20 Fadd   "FADD"    DAB     Fp32     ModKind::FpRound,       NO;
    0x21 Fmul   "FMUL"    DAB     Fp32     ModKind::FpRound,       NO;
    0x22 Fmad   "FMAD"    DABC    Fp32     ModKind::FpNegOnly,     NO;
    0x23 Ffma   "FFMA"    DABC    Fp32     ModKind::FpRound,       NO;
    0x24 Fmin   "FMIN"    DAB     Fp32     ModKind::None,          NO;
    0x25 Fmax   "FMAX"    DAB     Fp32     ModKind::None,          NO;
    0x26 Fsetp  "FSETP"   PAB     Fp32     ModKind::FCmp,          NO;
    // SFU.
    0x30 Rcp    "RCP"     DA      Sfu      ModKind::None,          NO;
    0x31 Rsq    "RSQ"     DA      Sfu      ModKind::None,          NO;
    0x32 Lg2    "LG2"     DA      Sfu      ModKind::None,          NO;
    0x33 Ex2    "EX2"     DA      Sfu      ModKind::None,          NO;
    0x34 Sin    "SIN"     DA      Sfu      ModKind::None,          NO;
    0x35 Cos    "COS"     DA      Sfu      ModKind::None,          NO;
    0x36 Presin "PRESIN"  DA      Sfu      ModKind::None,          NO;
    0x37 Preex2 "PREEX2"  DA      Sfu      ModKind::None,          NO;
    // FP64 on register pairs.
    0x40 Dadd   "DADD"    DAB     Fp64     ModKind::FpRound,       P_AB_D;
    0x41 Dmul   "DMUL"    DAB     Fp64     ModKind::FpRound,       P_AB_D;
    0x42 Dfma   "DFMA"    DABC    Fp64     ModKind::FpRound,       P_ALL;
    0x43 Dsetp  "DSETP"   PAB     Fp64     ModKind::FCmp,          P_AB;
    // Conversions.
    0x48 I2f    "I2F"     DA      Cvt      ModKind::Cvt,           NO;
    0x49 F2i    "F2I"     DA      Cvt      ModKind::Cvt,           NO;
    0x4a I2d    "I2D"     DA      Cvt      ModKind::Cvt,           P_D;
    0x4b D2i    "D2I"     DA      Cvt      ModKind::Cvt,           P_A;
    0x4c F2d    "F2D"     DA      Cvt      ModKind::None,          P_D;
    0x4d D2f    "D2F"     DA      Cvt      ModKind::Round,         P_A;
    // Moves.
    0x50 Mov    "MOV"     DB      Move     ModKind::None,          NO;
    0x51 S2r    "S2R"     Sreg    Move     ModKind::None,          NO;
    0x52 Ldc    "LDC"     Param   Move     ModKind::None,          NO;
    // Memory.
    0x58 Ldg    "LDG"     Load    Global   ModKind::Width,         NO;
    0x59 Stg    "STG"     Store   Global   ModKind::Width,         NO;
    0x5a Atomg  "ATOMG"   Atom    Global   ModKind::Atom,          NO;
    0x5c Lds    "LDS"     Load    Shared   ModKind::Width,         NO;
    0x5d Sts    "STS"     Store   Shared   ModKind::Width,         NO;
    0x5e Atoms  "ATOMS"   Atom    Shared   ModKind::Atom,          NO;
    // Memory fence (`.GL`: device scope; without it, CTA scope).
    0x5f Membar "MEMBAR"  None    Global   ModKind::Flag(".GL"),   NO;
    // Control.
    0x60 Bra    "BRA"     Target  Control  ModKind::None,          NO;
    0x61 Ssy    "SSY"     Target  Control  ModKind::None,          NO;
    0x62 Sync   "SYNC"    None    Control  ModKind::None,          NO;
    0x63 Bar    "BAR"     None    Control  ModKind::None,          NO;
    0x64 Exit   "EXIT"    None    Control  ModKind::None,          NO;
    // GPU-CC configuration (docs/gpucc.md).
    0x70 Gcset  "GCSET"   Cfg     Control  ModKind::None,          NO;
    0x71 Gcrun  "GCRUN"   None    Control  ModKind::None,          NO;
}

/// `DADD`/`DMUL`: d, a and b are pairs.
const P_AB_D: Pairs = Pairs {
    d: true,
    a: true,
    b: true,
    c: false,
};

impl Op {
    /// May the instruction carry a guard predicate? `SSY`, `SYNC` and `BAR`
    /// act on the warp as a whole (the reconvergence stack, the CTA
    /// barrier), so a per-lane guard has no meaning for them.
    pub fn takes_guard(self) -> bool {
        !matches!(self, Op::Ssy | Op::Sync | Op::Bar | Op::Gcset | Op::Gcrun)
    }

    /// A GPU-CC configuration instruction (opcodes 0x70..=0x7f). The SIMT
    /// SM's RTL decoder does not take them (they raise its error output as
    /// reserved opcodes do); the golden model runs them (`docs/gpucc.md`).
    pub fn is_gpucc(self) -> bool {
        self as u8 >= GPUCC_OPCODE_BASE
    }

    /// Look an opcode up by its base mnemonic (`"FADD"`).
    pub fn from_mnemonic(m: &str) -> Option<Op> {
        Op::ALL.iter().copied().find(|o| o.info().mnemonic == m)
    }
}

/// The SM unit that executes an instruction (`docs/sm.md` section 4): the
/// one mapping that decode, the SM's dispatch and the tests share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Unit {
    /// SP lanes: integer, FP32, 32-bit conversions, MOV.
    Sp = 0,
    /// Special function units (and FMUL when co-issued, see [`Op::unit`]).
    Sfu = 1,
    /// FP64 datapath (GT200's FMA unit, Fermi's half-rate FP64 cores).
    Dpu = 2,
    /// Load-store unit: shared, global, parameter memory.
    Lsu = 3,
    /// Completed by the front end itself: control flow, S2R.
    Ctrl = 4,
}

impl Unit {
    pub const ALL: [Unit; 5] = [Unit::Sp, Unit::Sfu, Unit::Dpu, Unit::Lsu, Unit::Ctrl];
    pub fn name(self) -> &'static str {
        ["sp", "sfu", "dpu", "lsu", "ctrl"][self as usize]
    }
}

impl Op {
    /// The unit an instruction is decoded to. FMUL decodes to the SP; on
    /// presets with `sfu_fmul` the scheduler may send it to the SFU instead
    /// (MUL co-issue), which is an issue decision, not a decode one. FP64
    /// instructions decode to the DPU whatever the preset; on a preset
    /// without FP64 (`fp64_rate_divisor = 0`) decode raises error code 1.
    pub fn unit(self) -> Unit {
        let info = self.info();
        let p = info.pairs;
        match info.class {
            Class::Int | Class::Fp32 => Unit::Sp,
            Class::Cvt if p.d || p.a || p.b || p.c => Unit::Dpu,
            Class::Cvt => Unit::Sp,
            Class::Sfu => Unit::Sfu,
            Class::Fp64 => Unit::Dpu,
            Class::Global | Class::Shared => Unit::Lsu,
            Class::Move => match self {
                Op::Ldc => Unit::Lsu,
                Op::S2r => Unit::Ctrl,
                _ => Unit::Sp,
            },
            Class::Control => Unit::Ctrl,
        }
    }
}

impl Form {
    /// May operand B be a 32-bit immediate?
    pub fn allows_imm(self) -> bool {
        matches!(
            self,
            Form::DB | Form::DAB | Form::PAB | Form::DABP | Form::Target | Form::DABCI
        )
    }
    /// Which of the register fields d, a, b, c, and e this form uses.
    pub fn uses(self) -> Uses {
        let (d, a, b, c, e) = match self {
            Form::None => (false, false, false, false, false),
            Form::Target => (false, false, false, false, false),
            Form::DA => (true, true, false, false, false),
            Form::DB => (true, false, true, false, false),
            Form::DAB | Form::PAB | Form::DABP | Form::PPP => (true, true, true, false, false),
            Form::DABC | Form::DABCI => (true, true, true, true, false),
            Form::Load => (true, true, false, false, true),
            Form::Store => (false, true, true, false, true),
            Form::Atom => (true, true, true, true, true),
            Form::Sreg => (true, false, false, false, true),
            Form::Param => (true, true, false, false, true),
            Form::Cfg => (true, true, true, false, false),
        };
        Uses { d, a, b, c, e }
    }
}

/// The fields a form uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Uses {
    pub d: bool,
    pub a: bool,
    pub b: bool,
    pub c: bool,
    pub e: bool,
}

/// The guard predicate `@[!]Pn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Guard {
    /// 0..=3, or [`PT`].
    pub pred: u8,
    pub neg: bool,
}

impl Guard {
    /// `@PT`: always executes.
    pub const ALWAYS: Guard = Guard { pred: PT, neg: false };
}

impl Default for Guard {
    fn default() -> Self {
        Guard::ALWAYS
    }
}

/// Operand B: a register or a 32-bit immediate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Src {
    Reg(u8),
    Imm(u32),
}

/// One decoded instruction. Unused fields are 0 (registers [`RZ`] is not
/// used as a filler: a form that does not use a field leaves it 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instr {
    pub op: Op,
    pub guard: Guard,
    /// The 4-bit modifier; read it through the typed accessors.
    pub m: u8,
    pub d: u8,
    pub a: u8,
    pub b: Src,
    pub c: u8,
    pub e: u16,
}

/// Why a word or an [`Instr`] is not a valid instruction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IsaError {
    #[error("unknown opcode 0x{0:02x}")]
    UnknownOpcode(u8),
    #[error("opcode 0x{0:02x} is reserved for GPU-CC configuration instructions")]
    ReservedGpucc(u8),
    #[error("{op}: {what}")]
    Bad { op: &'static str, what: String },
}

fn bad(op: Op, what: impl Into<String>) -> IsaError {
    IsaError::Bad {
        op: op.info().mnemonic,
        what: what.into(),
    }
}

impl Instr {
    /// An instruction with every field zero except the opcode (`B` a
    /// register), guard `@PT`.
    pub fn new(op: Op) -> Instr {
        Instr {
            op,
            guard: Guard::ALWAYS,
            m: 0,
            d: 0,
            a: 0,
            b: Src::Reg(0),
            c: 0,
            e: 0,
        }
    }

    pub fn info(&self) -> &'static OpInfo {
        self.op.info()
    }

    /// Rounding of an FP instruction.
    pub fn rnd(&self) -> Rnd {
        Rnd::from_bits(self.m)
    }
    /// Negate operand `a` (FP arithmetic).
    pub fn neg_a(&self) -> bool {
        self.m & 4 != 0
    }
    /// Negate operand `b` (two-operand FP) or `c` (multiply-add).
    pub fn neg_bc(&self) -> bool {
        self.m & 8 != 0
    }
    /// Integer compare of `ISETP`.
    pub fn icmp(&self) -> ICmp {
        ICmp::from_bits(self.m).expect("validated")
    }
    /// Unsigned flag of ISETP (bit 3), or bit 0 of a `Flag` modifier
    /// (IMIN/IMAX unsigned, SHR arithmetic), or bit 2 of a conversion.
    pub fn flag(&self) -> bool {
        match self.info().modk {
            ModKind::ICmp => self.m & 8 != 0,
            ModKind::Cvt => self.m & 4 != 0,
            _ => self.m & 1 != 0,
        }
    }
    pub fn fcmp(&self) -> FCmp {
        FCmp(self.m & 15)
    }
    pub fn mul_mode(&self) -> MulMode {
        MulMode::from_bits(self.m).expect("validated")
    }
    pub fn atom_op(&self) -> AtomOp {
        AtomOp::from_bits(self.m).expect("validated")
    }
    /// 64-bit memory access (`.64`).
    pub fn wide(&self) -> bool {
        self.m & 1 != 0
    }
    /// The predicate operand of `SEL` (index, negate).
    pub fn sel_pred(&self) -> Guard {
        Guard {
            pred: self.m & 7,
            neg: self.m & 8 != 0,
        }
    }
    pub fn sreg(&self) -> Sreg {
        Sreg::from_bits(self.e).expect("validated")
    }
    /// Signed 16-bit offset in `e` (memory operands).
    pub fn offset(&self) -> i32 {
        self.e as i16 as i32
    }
    /// The operation of `PSETP`.
    pub fn plogic(&self) -> PLogic {
        PLogic::from_bits(self.m).expect("validated")
    }
    /// The register added by a multiply-add: `c`, or `d` when operand B
    /// is an immediate (form [`Form::DABCI`]).
    pub fn addend(&self) -> u8 {
        match (self.info().form, self.b) {
            (Form::DABCI, Src::Imm(_)) => self.d,
            _ => self.c,
        }
    }
    /// `PSETP`'s predicate operand `Pa` (`which` = 0) or `Pb` (1), with
    /// its negation.
    pub fn pred_src(&self, which: usize) -> Guard {
        let (pred, neg) = if which == 0 {
            (self.a, self.m & 4 != 0)
        } else {
            let b = match self.b {
                Src::Reg(r) => r,
                Src::Imm(_) => 0,
            };
            (b, self.m & 8 != 0)
        };
        Guard { pred, neg }
    }
    /// Register-file words this instruction reads and writes, per thread:
    /// its register operands and its register destination (32-bit words:
    /// an FP64 pair or a `.64` access counts two, `RZ` none; predicates
    /// and special registers are not in the register file). `GCSET` reads
    /// its value operand only (its `d` and `a` are numbers). What the
    /// reports count as register-file reads and writes.
    pub fn reg_words(&self) -> (u32, u32) {
        let info = self.info();
        let p = info.pairs;
        let words = |r: u8, pair: bool| -> u32 {
            match (r == RZ, pair) {
                (true, _) => 0,
                (false, true) => 2,
                (false, false) => 1,
            }
        };
        let b = |pair: bool| match self.b {
            Src::Reg(r) => words(r, pair),
            Src::Imm(_) => 0,
        };
        let wide = self.wide();
        let a = words(self.a, p.a);
        let reads = match info.form {
            Form::None | Form::Target | Form::PPP | Form::Sreg => 0,
            Form::DA | Form::Load | Form::Param => a,
            Form::DB | Form::Cfg => b(p.b),
            Form::DAB | Form::DABP | Form::PAB => a + b(p.b),
            Form::DABC => a + b(p.b) + words(self.c, p.c),
            Form::DABCI => a + b(p.b) + words(self.addend(), p.c),
            Form::Store => a + b(p.b || wide),
            Form::Atom => {
                a + b(false)
                    + if self.atom_op() == AtomOp::Cas {
                        words(self.c, false)
                    } else {
                        0
                    }
            }
        };
        let writes = match info.form {
            Form::PAB | Form::PPP | Form::Cfg | Form::Store | Form::Target | Form::None => 0,
            Form::Load => words(self.d, p.d || wide),
            _ if info.form.uses().d => words(self.d, p.d),
            _ => 0,
        };
        (reads, writes)
    }
    /// The branch target of `BRA`/`SSY`.
    pub fn target(&self) -> u32 {
        match self.b {
            Src::Imm(t) => t,
            Src::Reg(_) => 0,
        }
    }

    /// Check the fields against the opcode's form and modifier kind.
    pub fn validate(&self) -> Result<(), IsaError> {
        let op = self.op;
        let info = op.info();
        let uses = info.form.uses();
        if self.guard.pred >= NUM_PREDS && self.guard.pred != PT {
            return Err(bad(
                op,
                format!("guard predicate {} is not P0-P3 or PT", self.guard.pred),
            ));
        }
        if self.guard.pred == PT && self.guard.neg {
            return Err(bad(op, "guard @!PT (never) is not allowed"));
        }
        if self.guard != Guard::ALWAYS && !op.takes_guard() {
            return Err(bad(op, "acts on the whole warp and cannot have a guard predicate"));
        }
        if self.m > 15 {
            return Err(bad(op, "modifier wider than 4 bits"));
        }
        let reg_ok = |r: u8| r < MAX_REGS || r == RZ;
        let check_reg = |name: &str, used: bool, r: u8, pair: bool| -> Result<(), IsaError> {
            if !used {
                return if r == 0 {
                    Ok(())
                } else {
                    Err(bad(op, format!("unused field {name} must be 0")))
                };
            }
            if !reg_ok(r) {
                return Err(bad(op, format!("{name}: register {r} is not R0-R127 or RZ")));
            }
            if pair && r != RZ && !r.is_multiple_of(2) {
                return Err(bad(
                    op,
                    format!("{name}: FP64 register pair must start at an even register, not R{r}"),
                ));
            }
            Ok(())
        };
        if info.form == Form::Cfg {
            if self.d >= GPUCC_NODES {
                return Err(bad(op, format!("node {} is not 0..={}", self.d, GPUCC_NODES - 1)));
            }
            if self.a > GPUCC_SEL_MAX {
                return Err(bad(
                    op,
                    format!("configuration register {} is not 0..={GPUCC_SEL_MAX}", self.a),
                ));
            }
            if let Src::Reg(r) = self.b {
                if !reg_ok(r) || r == RZ {
                    return Err(bad(op, format!("b: register {r} is not R0-R127")));
                }
            }
            if self.c != 0 || self.e != 0 || self.m != 0 {
                return Err(bad(op, "unused fields mod, c and e must be 0"));
            }
            return Ok(());
        }
        if info.form == Form::PPP {
            let pred_ok = |p: u8| p < NUM_PREDS || p == PT;
            let b = match self.b {
                Src::Reg(r) => r,
                Src::Imm(_) => return Err(bad(op, "operand Pb cannot be an immediate")),
            };
            for (name, p) in [("destination", self.d), ("a", self.a), ("b", b)] {
                if !pred_ok(p) {
                    return Err(bad(op, format!("{name} predicate {p} is not P0-P3 or PT")));
                }
            }
            if self.c != 0 || self.e != 0 {
                return Err(bad(op, "unused fields c and e must be 0"));
            }
            if !info.modk.accepts(self.m) {
                return Err(bad(op, format!("modifier value {} is not valid", self.m)));
            }
            return Ok(());
        }
        // d: a register, or a predicate for compares.
        if info.form == Form::PAB {
            if self.d >= NUM_PREDS && self.d != PT {
                return Err(bad(op, format!("destination predicate {} is not P0-P3 or PT", self.d)));
            }
        } else {
            check_reg("d", uses.d, self.d, info.pairs.d)?;
        }
        check_reg("a", uses.a, self.a, info.pairs.a)?;
        match self.b {
            Src::Reg(r) => {
                if info.form == Form::Target {
                    return Err(bad(op, "branch target must be an immediate"));
                }
                check_reg("b", uses.b, r, info.pairs.b)?;
                check_reg("c", uses.c, self.c, info.pairs.c)?;
                if !uses.e && self.e != 0 {
                    return Err(bad(op, "unused field e must be 0"));
                }
            }
            Src::Imm(_) => {
                if !info.allows_imm() {
                    return Err(bad(op, "operand B cannot be an immediate"));
                }
                if self.c != 0 || self.e != 0 {
                    return Err(bad(op, "c and e do not exist with an immediate"));
                }
            }
        }
        if info.form == Form::Atom && self.m != AtomOp::Cas as u8 && self.c != 0 {
            return Err(bad(op, "only CAS has a third operand"));
        }
        if info.form == Form::Sreg && Sreg::from_bits(self.e).is_none() {
            return Err(bad(op, format!("unknown special register {}", self.e)));
        }
        let m = self.m;
        let mod_ok = info.modk.accepts(m);
        if !mod_ok {
            return Err(bad(op, format!("modifier value {m} is not valid")));
        }
        if info.modk == ModKind::Width && m == 1 {
            // 64-bit memory ops move a register pair.
            let r = if info.form == Form::Store {
                match self.b {
                    Src::Reg(r) => r,
                    Src::Imm(_) => 0,
                }
            } else {
                self.d
            };
            if r != RZ && r % 2 != 0 {
                return Err(bad(op, format!("64-bit access needs an even register pair, not R{r}")));
            }
        }
        Ok(())
    }

    /// The 64-bit word. Panics (in debug) on an instruction that does not
    /// [`validate`](Instr::validate); call that first on untrusted input.
    pub fn encode(&self) -> u64 {
        debug_assert!(self.validate().is_ok(), "encode of invalid {self:?}");
        let mut w = (self.op as u64) << 57;
        w |= (self.guard.neg as u64) << 55 | ((self.guard.pred as u64) & 7) << 52;
        w |= ((self.m as u64) & 15) << 48 | (self.d as u64) << 40 | (self.a as u64) << 32;
        match self.b {
            Src::Imm(v) => w |= 1 << 56 | v as u64,
            Src::Reg(b) => w |= (b as u64) << 24 | (self.c as u64) << 16 | self.e as u64,
        }
        w
    }

    /// Decode and validate one word.
    pub fn decode(w: u64) -> Result<Instr, IsaError> {
        let code = (w >> 57) as u8;
        let op = match Op::from_code(code) {
            Some(op) => op,
            None if code >= GPUCC_OPCODE_BASE => return Err(IsaError::ReservedGpucc(code)),
            None => return Err(IsaError::UnknownOpcode(code)),
        };
        let imm = w >> 56 & 1 == 1;
        let (b, c, e) = if imm {
            (Src::Imm(w as u32), 0, 0)
        } else {
            (Src::Reg((w >> 24) as u8), (w >> 16) as u8, w as u16)
        };
        let i = Instr {
            op,
            guard: Guard {
                pred: (w >> 52 & 7) as u8,
                neg: w >> 55 & 1 == 1,
            },
            m: (w >> 48 & 15) as u8,
            d: (w >> 40) as u8,
            a: (w >> 32) as u8,
            b,
            c,
            e,
        };
        i.validate()?;
        Ok(i)
    }
}

/// An assembled kernel: code plus what a launch needs to know.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Program {
    /// Kernel name (`.kernel`).
    pub name: String,
    /// Registers per thread (`.regs`), 1..=128.
    pub regs: u32,
    /// Static shared memory per CTA in bytes (`.shared`).
    pub shared_bytes: u32,
    /// Parameter names, one 32-bit word each, in order (`.param`).
    pub params: Vec<String>,
    pub code: Vec<Instr>,
    /// Source line of each instruction (empty when not assembled from
    /// text); used in error messages.
    pub src_lines: Vec<u32>,
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.info().mnemonic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Register-file words read and written, written from docs/isa.md's
    /// operand descriptions (pairs, `.64`, `RZ`, immediates, predicates).
    #[test]
    fn register_words_follow_the_operands() {
        let src = ".kernel k\n.regs 16\n.param p\n\
            FFMA R1, R2, R3, R4\n\
            FMUL R1, R2, 2.0\n\
            IMAD R1, R2, 3, R1\n\
            IADD R1, RZ, R3\n\
            MOV R1, 7\n\
            DADD R2, R4, R6\n\
            DFMA R2, R4, R6, R8\n\
            ISETP.LT P0, R1, R2\n\
            LDG R1, [R2+4]\n\
            LDG.64 R2, [R4]\n\
            STG [R2], R3\n\
            STG.64 [R2], R4\n\
            ATOMG.ADD R1, [R2], R3\n\
            ATOMG.CAS R1, [R2], R3, R4\n\
            S2R R1, SR_TID.X\n\
            LDC R1, c[p]\n\
            BRA 0\n\
            GCSET 3, 0, R7\n\
            GCSET 3, 1, 5\n\
            EXIT\n";
        let prog = crate::golden::asm::assemble(src, "k.s").unwrap_or_else(|e| panic!("{}", e.render(src)));
        let got: Vec<(u32, u32)> = prog.code.iter().map(|i| i.reg_words()).collect();
        let want = [
            (3, 1),
            (1, 1),
            (2, 1),
            (1, 1),
            (0, 1),
            (4, 2),
            (6, 2),
            (2, 0),
            (1, 1),
            (1, 2),
            (2, 0),
            (3, 0),
            (2, 1),
            (3, 1),
            (0, 1),
            (0, 1),
            (0, 0),
            (1, 0),
            (0, 0),
            (0, 0),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn unit_mapping_follows_docs_sm_md() {
        // Spot checks written from the table in docs/sm.md section 4.
        let want = [
            (Op::Iadd, Unit::Sp),
            (Op::Fsetp, Unit::Sp),
            (Op::Sel, Unit::Sp),
            (Op::I2f, Unit::Sp),
            (Op::F2i, Unit::Sp),
            (Op::Mov, Unit::Sp),
            (Op::Fmul, Unit::Sp),
            (Op::Rcp, Unit::Sfu),
            (Op::Presin, Unit::Sfu),
            (Op::Dfma, Unit::Dpu),
            (Op::Dsetp, Unit::Dpu),
            (Op::I2d, Unit::Dpu),
            (Op::D2i, Unit::Dpu),
            (Op::F2d, Unit::Dpu),
            (Op::D2f, Unit::Dpu),
            (Op::Ldg, Unit::Lsu),
            (Op::Atoms, Unit::Lsu),
            (Op::Ldc, Unit::Lsu),
            (Op::S2r, Unit::Ctrl),
            (Op::Bra, Unit::Ctrl),
            (Op::Exit, Unit::Ctrl),
            (Op::Nop, Unit::Ctrl),
        ];
        for (op, u) in want {
            assert_eq!(op.unit(), u, "{op}");
        }
        // Every opcode has a unit; memory classes never land on the SP.
        for &op in Op::ALL {
            let u = op.unit();
            if matches!(op.info().class, Class::Global | Class::Shared) {
                assert_eq!(u, Unit::Lsu, "{op}");
            }
        }
    }

    #[test]
    fn every_opcode_round_trips_and_mnemonics_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for &op in Op::ALL {
            assert_eq!(Op::from_code(op as u8), Some(op));
            assert_eq!((op as u8) >= GPUCC_OPCODE_BASE, op.is_gpucc(), "{op}");
            assert!(seen.insert(op.info().mnemonic), "duplicate mnemonic {op}");
            assert_eq!(Op::from_mnemonic(op.info().mnemonic), Some(op));
        }
    }

    #[test]
    fn encode_decode_fixed_examples() {
        // FFMA R2, R4, R6, -R8 (rn) under @!P1
        let mut i = Instr::new(Op::Ffma);
        i.guard = Guard { pred: 1, neg: true };
        i.m = 8;
        i.d = 2;
        i.a = 4;
        i.b = Src::Reg(6);
        i.c = 8;
        let w = i.encode();
        assert_eq!(w >> 57, 0x23);
        assert_eq!(w >> 52 & 0xf, 0b1001);
        assert_eq!(w >> 48 & 0xf, 8);
        assert_eq!(w & 0xffff_ffff, 0x0608_0000);
        assert_eq!(Instr::decode(w).unwrap(), i);
        // MOV R1, 0xdeadbeef
        let mut m = Instr::new(Op::Mov);
        m.d = 1;
        m.b = Src::Imm(0xdead_beef);
        assert_eq!(m.encode(), 0x50u64 << 57 | 1 << 56 | 7 << 52 | 1 << 40 | 0xdead_beef);
        assert_eq!(Instr::decode(m.encode()).unwrap(), m);
    }

    #[test]
    fn decode_rejects_bad_words() {
        assert_eq!(Instr::decode(0x7fu64 << 57), Err(IsaError::ReservedGpucc(0x7f)));
        assert_eq!(Instr::decode(0x1fu64 << 57), Err(IsaError::UnknownOpcode(0x1f)));
        // EXIT with a nonzero unused d field.
        let w = (Op::Exit as u64) << 57 | 7 << 52 | 3 << 40;
        assert!(Instr::decode(w).is_err());
        // DADD with an odd pair.
        let mut d = Instr::new(Op::Dadd);
        d.d = 3;
        assert!(d.validate().is_err());
        // SYNC acts on the whole warp: no guard.
        let mut s = Instr::new(Op::Sync);
        s.guard = Guard { pred: 0, neg: false };
        assert!(s.validate().is_err());
        // Register 200 is neither R0-R127 nor RZ.
        let mut x = Instr::new(Op::Iadd);
        x.a = 200;
        assert!(x.validate().is_err());
        // FMAD only rounds to nearest.
        let mut f = Instr::new(Op::Fmad);
        f.m = 1;
        assert!(f.validate().is_err());
    }

    #[test]
    fn fcmp_codes() {
        let lt = FCmp::from_name("LT").unwrap();
        assert!(lt.eval_f32(1.0f32.to_bits(), 2.0f32.to_bits()));
        assert!(!lt.eval_f32(f32::NAN.to_bits(), 2.0f32.to_bits()));
        let ltu = FCmp::from_name("LTU").unwrap();
        assert!(ltu.eval_f32(f32::NAN.to_bits(), 2.0f32.to_bits()));
        let eq = FCmp::from_name("EQ").unwrap();
        assert!(eq.eval_f32(0x8000_0000, 0));
        assert_eq!(FCmp::from_name("NE").unwrap().0, 0b0101);
    }

    #[test]
    fn mul_modes() {
        assert_eq!(MulMode::HiU.eval(0xffff_ffff, 2), 1);
        assert_eq!(MulMode::HiS.eval(0xffff_ffff, 2), 0xffff_ffff);
        assert_eq!(MulMode::U24.eval(0x0100_0003, 5), 15);
        assert_eq!(MulMode::S24.eval(0x00ff_ffff, 3), (-3i32) as u32);
    }
}
