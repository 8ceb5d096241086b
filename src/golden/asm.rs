//! Assembler, disassembler and binary file format of the smrtl ISA.
//!
//! * [`assemble`] turns source text (syntax in `docs/isa.md`) into a
//!   [`Program`]; [`assemble_all`] returns every error instead of the first.
//!   Errors carry `file:line:col` and say what was expected.
//! * [`disassemble`] prints a [`Program`] as canonical text that assembles
//!   back to the same program (same words, same directives);
//!   [`format_instr`] prints one instruction (used by traces and error
//!   messages of the golden model).
//! * [`Program::to_bytes`] / [`Program::from_bytes`]: the `.bin` file
//!   format (header `SMRTLBIN`, version, name, register count, shared
//!   bytes, parameter names, then little-endian 64-bit words).
//!
//! Parsing and printing are driven by [`Op::info`] (operand [`Form`],
//! modifier kind [`ModKind`], FP64 [`Pairs`](crate::golden::isa::Pairs)):
//! there is no per-opcode table here, only one per form and one per
//! modifier kind.
//!
//! ```
//! use smrtl::golden::asm::{assemble, disassemble};
//! let p = assemble(".regs 4\n MOV R1, 1.0\n FADD.RZ R2, -R1, R1\n EXIT\n", "k.s").unwrap();
//! assert_eq!(p.code.len(), 3);
//! assert_eq!(assemble(&disassemble(&p), "k.s").unwrap().code, p.code);
//! ```

use crate::golden::isa::{
    AtomOp, Class, FCmp, Form, Guard, Instr, IsaError, ModKind, Op, Program, Src, Sreg, GPUCC_NODES, GPUCC_SEL_MAX,
    MAX_REGS, NUM_PREDS, PT, RZ,
};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// An assembly error at a place in the source (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{col}: {msg}")]
pub struct AsmError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub msg: String,
}

impl AsmError {
    /// The error, then the offending source line and a caret under the
    /// column (what the command line prints).
    pub fn render(&self, src: &str) -> String {
        let mut s = self.to_string();
        if let Some(text) = src.lines().nth(self.line.saturating_sub(1) as usize) {
            let pad: String = text
                .chars()
                .take(self.col.saturating_sub(1) as usize)
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let _ = write!(s, "\n{text}\n{pad}^");
        }
        s
    }
}

/// Why bytes are not a valid program file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BinError {
    #[error("not an smrtl program file (the magic is not SMRTLBIN)")]
    BadMagic,
    #[error("unsupported program file version {0} (this build reads version {BIN_VERSION})")]
    Version(u32),
    #[error("program file truncated: {what} at byte {offset} needs {need} bytes, {have} left")]
    Truncated {
        what: &'static str,
        offset: usize,
        need: usize,
        have: usize,
    },
    #[error("program file: {what} is not valid UTF-8")]
    Utf8 { what: &'static str },
    #[error("program file: .regs {0} is not in 1..=128")]
    Regs(u32),
    #[error("program file: instruction word {index} (0x{word:016x}) is invalid: {err}")]
    Word { index: usize, word: u64, err: IsaError },
    #[error("program file: {0} unexpected bytes after the last instruction")]
    Trailing(usize),
    #[error(
        "program file: {what} {name:?} is not a name the assembler accepts (letters, digits, '_', not a register)"
    )]
    Name { what: &'static str, name: String },
    #[error("program file: duplicate parameter name {0:?}")]
    DuplicateParam(String),
    /// The file decodes but its disassembly would not assemble back to it
    /// (a register beyond `.regs`, a branch outside the program, ...).
    #[error("program file: instruction {pc} ({text}): {msg}")]
    Inexpressible { pc: usize, text: String, msg: String },
    #[error("program file: {0}")]
    NotCanonical(String),
}

// ---------------------------------------------------------------------------
// Binary format
// ---------------------------------------------------------------------------

/// Magic bytes at the start of a program file.
pub const BIN_MAGIC: &[u8; 8] = b"SMRTLBIN";
/// Version written by [`Program::to_bytes`].
pub const BIN_VERSION: u32 = 1;

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], BinError> {
        let have = self.b.len() - self.pos;
        if n > have {
            return Err(BinError::Truncated {
                what,
                offset: self.pos,
                need: n,
                have,
            });
        }
        let s = &self.b[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, BinError> {
        Ok(u32::from_le_bytes(self.take(4, what)?.try_into().unwrap()))
    }
    fn string(&mut self, what: &'static str) -> Result<String, BinError> {
        let n = self.u32(what)? as usize;
        let s = self.take(n, what)?;
        String::from_utf8(s.to_vec()).map_err(|_| BinError::Utf8 { what })
    }
}

impl Program {
    /// The program file: `SMRTLBIN`, then little-endian u32 fields
    /// (version, regs, shared bytes, name length + UTF-8 name, parameter
    /// count, each parameter's length + name, instruction count), then one
    /// little-endian u64 per instruction. `src_lines` is not stored.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + 8 * self.code.len());
        out.extend_from_slice(BIN_MAGIC);
        let put = |out: &mut Vec<u8>, v: u32| out.extend_from_slice(&v.to_le_bytes());
        let put_str = |out: &mut Vec<u8>, s: &str| {
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        };
        put(&mut out, BIN_VERSION);
        put(&mut out, self.regs);
        put(&mut out, self.shared_bytes);
        put_str(&mut out, &self.name);
        put(&mut out, self.params.len() as u32);
        for p in &self.params {
            put_str(&mut out, p);
        }
        put(&mut out, self.code.len() as u32);
        for i in &self.code {
            out.extend_from_slice(&i.encode().to_le_bytes());
        }
        out
    }

    /// Read a program file written by [`Program::to_bytes`]; every word is
    /// decoded and validated.
    pub fn from_bytes(b: &[u8]) -> Result<Program, BinError> {
        let mut r = Reader { b, pos: 0 };
        if b.len() < 8 || &b[..8] != BIN_MAGIC {
            return Err(BinError::BadMagic);
        }
        r.pos = 8;
        let version = r.u32("version")?;
        if version != BIN_VERSION {
            return Err(BinError::Version(version));
        }
        let regs = r.u32("register count")?;
        if !(1..=MAX_REGS as u32).contains(&regs) {
            return Err(BinError::Regs(regs));
        }
        let shared_bytes = r.u32("shared size")?;
        let name = r.string("kernel name")?;
        let np = r.u32("parameter count")? as usize;
        let mut params = Vec::new();
        for _ in 0..np {
            params.push(r.string("parameter name")?);
        }
        let n = r.u32("instruction count")? as usize;
        let words = r.take(n.saturating_mul(8), "instructions")?;
        let mut code = Vec::with_capacity(n);
        for (index, c) in words.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(c.try_into().unwrap());
            code.push(Instr::decode(word).map_err(|err| BinError::Word { index, word, err })?);
        }
        if r.pos != b.len() {
            return Err(BinError::Trailing(b.len() - r.pos));
        }
        let p = Program {
            name,
            regs,
            shared_bytes,
            params,
            code,
            src_lines: Vec::new(),
        };
        p.check_expressible(b)?;
        Ok(p)
    }

    /// Reject a decoded program the assembler cannot express, so that the
    /// disassembly of every loadable file re-assembles to the same bytes:
    /// names must be identifiers, parameters distinct, and the canonical
    /// text must assemble back to `bytes`.
    fn check_expressible(&self, bytes: &[u8]) -> Result<(), BinError> {
        if !is_ident(&self.name) {
            return Err(BinError::Name {
                what: "kernel name",
                name: self.name.clone(),
            });
        }
        for (k, q) in self.params.iter().enumerate() {
            if !is_ident(q) || is_reg_like(q) {
                return Err(BinError::Name {
                    what: "parameter name",
                    name: q.clone(),
                });
            }
            if self.params[..k].contains(q) {
                return Err(BinError::DuplicateParam(q.clone()));
            }
        }
        let text = disassemble_with_words(self);
        match assemble(&text, "program") {
            Ok(back) if back.to_bytes() == bytes => Ok(()),
            Ok(back) => {
                let pc =
                    (0..self.code.len()).find(|&k| back.code.get(k).map(Instr::encode) != Some(self.code[k].encode()));
                match pc {
                    Some(pc) => Err(BinError::NotCanonical(format!(
                        "instruction {pc} (0x{:016x}) is not the canonical encoding of `{}`",
                        self.code[pc].encode(),
                        format_instr_with(&self.code[pc], None, &self.params)
                    ))),
                    None => Err(BinError::NotCanonical("the header is not in canonical form".into())),
                }
            }
            Err(e) => {
                // The failing line carries its pc in the `; NNNN: 0x...` comment.
                let line = text.lines().nth(e.line.saturating_sub(1) as usize).unwrap_or("");
                let pc = line
                    .split_once("; ")
                    .and_then(|(_, c)| c.split(':').next())
                    .and_then(|d| d.trim().parse::<usize>().ok());
                match pc {
                    Some(pc) => Err(BinError::Inexpressible {
                        pc,
                        text: format_instr_with(&self.code[pc], None, &self.params),
                        msg: e.msg,
                    }),
                    None => Err(BinError::NotCanonical(format!("{} (in `{}`)", e.msg, line.trim()))),
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Modifiers: one table per ModKind drives both parsing and printing
// ---------------------------------------------------------------------------

const RND_NAMES: &[&str] = &["RN", "RZ", "RM", "RP"];
const ICMP_NAMES: &[&str] = &["EQ", "NE", "LT", "LE", "GT", "GE"];
const ATOM_NAMES: &[&str] = &["ADD", "MIN", "MAX", "EXCH", "CAS", "AND", "OR", "XOR"];
const MUL_NAMES: &[&str] = &["HI", "U24", "S24"];
const U32: &[&str] = &["U32"];

/// One position in a mnemonic's suffix list: a set of alternatives.
struct Slot {
    names: &'static [&'static str],
    required: bool,
    /// Alternative 0 is the default and is not printed (`.RN`).
    zero_default: bool,
}

const fn slot(names: &'static [&'static str], required: bool, zero_default: bool) -> Slot {
    Slot {
        names,
        required,
        zero_default,
    }
}

static FLAG_U32: [Slot; 1] = [slot(U32, false, false)];
static FLAG_S32: [Slot; 1] = [slot(&["S32"], false, false)];
static FLAG_GL: [Slot; 1] = [slot(&["GL"], false, false)];

/// The suffix slots of a modifier kind, in canonical order.
fn slots(modk: ModKind) -> &'static [Slot] {
    static RND: [Slot; 1] = [slot(RND_NAMES, false, true)];
    static RN_ONLY: [Slot; 1] = [slot(&["RN"], false, true)];
    static ICMP: [Slot; 2] = [slot(ICMP_NAMES, true, false), slot(U32, false, false)];
    static FCMP: [Slot; 1] = [slot(&FCmp::NAMES, true, false)];
    static MUL: [Slot; 2] = [slot(MUL_NAMES, false, false), slot(U32, false, false)];
    static CVT: [Slot; 2] = [slot(RND_NAMES, false, true), slot(U32, false, false)];
    static WIDTH: [Slot; 1] = [slot(&["64"], false, false)];
    static ATOM: [Slot; 1] = [slot(ATOM_NAMES, true, false)];
    static PLOGIC: [Slot; 1] = [slot(&["AND", "OR", "XOR"], true, false)];
    match modk {
        ModKind::None | ModKind::Pred => &[],
        ModKind::FpRound | ModKind::Round => &RND,
        ModKind::FpNegOnly => &RN_ONLY,
        ModKind::ICmp => &ICMP,
        ModKind::FCmp => &FCMP,
        ModKind::Flag(".S32") => &FLAG_S32,
        ModKind::Flag(".GL") => &FLAG_GL,
        ModKind::Flag(_) => &FLAG_U32,
        ModKind::Mul => &MUL,
        ModKind::Cvt => &CVT,
        ModKind::Width => &WIDTH,
        ModKind::Atom => &ATOM,
        ModKind::PLogic => &PLOGIC,
    }
}

/// The suffix choices (one per slot) that encode the suffix part of `m`.
fn split_mod(modk: ModKind, m: u8) -> Vec<Option<usize>> {
    let some = |b: bool, v: usize| if b { Some(v) } else { None };
    match modk {
        ModKind::None | ModKind::Pred => vec![],
        ModKind::FpRound | ModKind::Round => vec![Some((m & 3) as usize)],
        ModKind::FpNegOnly => vec![Some(0)],
        ModKind::ICmp => vec![Some((m & 7) as usize), some(m & 8 != 0, 0)],
        ModKind::FCmp => vec![Some((m & 15) as usize)],
        ModKind::Flag(_) | ModKind::Width => vec![some(m & 1 != 0, 0)],
        ModKind::Mul => match m {
            1 => vec![Some(0), None],
            2 => vec![Some(0), Some(0)],
            3 => vec![Some(1), None],
            4 => vec![Some(2), None],
            _ => vec![None, None],
        },
        ModKind::Cvt => vec![Some((m & 3) as usize), some(m & 4 != 0, 0)],
        ModKind::Atom => vec![Some((m & 7) as usize)],
        ModKind::PLogic => vec![Some((m & 3) as usize)],
    }
}

/// The modifier bits of the suffix choices; `Err((slot, message))` for a
/// combination that has no encoding.
fn join_mod(modk: ModKind, ch: &[Option<usize>]) -> Result<u8, (usize, String)> {
    let v = |i: usize| ch[i].unwrap_or(0) as u8;
    Ok(match modk {
        ModKind::None | ModKind::Pred | ModKind::FpNegOnly => 0,
        ModKind::FpRound | ModKind::Round | ModKind::FCmp | ModKind::Atom | ModKind::PLogic => v(0),
        ModKind::ICmp => v(0) | (ch[1].is_some() as u8) << 3,
        ModKind::Flag(_) | ModKind::Width => ch[0].is_some() as u8,
        ModKind::Mul => match (ch[0], ch[1]) {
            (None, None) => 0,
            (Some(0), None) => 1,
            (Some(0), Some(_)) => 2,
            (Some(1), None) => 3,
            (Some(2), None) => 4,
            _ => {
                return Err((
                    1,
                    "`.U32` only follows `.HI` (modes: none, .HI, .HI.U32, .U24, .S24)".into(),
                ))
            }
        },
        ModKind::Cvt => v(0) | (ch[1].is_some() as u8) << 2,
    })
}

/// "`.EQ` `.NE` ... then `.U32`" for messages.
fn allowed_suffixes(modk: ModKind) -> String {
    let s = slots(modk);
    if s.is_empty() {
        return "none".into();
    }
    s.iter()
        .map(|sl| {
            let alts: Vec<String> = sl.names.iter().map(|n| format!(".{n}")).collect();
            format!(
                "{}{}",
                if sl.required { "one of " } else { "optional " },
                alts.join(" ")
            )
        })
        .collect::<Vec<_>>()
        .join(", then ")
}

/// The mnemonic with its suffixes, canonical.
pub(crate) fn mnemonic_text(i: &Instr) -> String {
    let info = i.info();
    let mut s = info.mnemonic.to_string();
    let mut m = i.m;
    if matches!(info.modk, ModKind::FpRound | ModKind::FpNegOnly | ModKind::PLogic) {
        m &= 3;
    }
    for (sl, c) in slots(info.modk).iter().zip(split_mod(info.modk, m)) {
        if let Some(c) = c {
            if !(sl.zero_default && c == 0) {
                s.push('.');
                s.push_str(sl.names[c]);
            }
        }
    }
    s
}

// ---------------------------------------------------------------------------
// Printing
// ---------------------------------------------------------------------------

fn reg_text(r: u8) -> String {
    if r == RZ {
        "RZ".into()
    } else {
        format!("R{r}")
    }
}

fn pred_text(p: u8) -> String {
    if p == PT {
        "PT".into()
    } else {
        format!("P{p}")
    }
}

fn mem_text(a: u8, off: i32) -> String {
    match off {
        0 => format!("[{}]", reg_text(a)),
        o if o < 0 => format!("[{}-0x{:x}]", reg_text(a), -(o as i64)),
        o => format!("[{}+0x{o:x}]", reg_text(a)),
    }
}

/// Can this opcode negate its sources (`-a`, and `-b` of a two-operand
/// op or `-c` of a multiply-add), through modifier bits 2 and 3?
fn negatable(op: Op) -> bool {
    matches!(op.info().modk, ModKind::FpRound | ModKind::FpNegOnly)
}

/// One instruction as canonical text. Branch targets use `labels` when
/// they name the target, else the absolute instruction index; `LDC`
/// parameters are printed by word index.
pub fn format_instr(i: &Instr, labels: Option<&BTreeMap<u32, String>>) -> String {
    format_instr_with(i, labels, &[])
}

/// Like [`format_instr`], with parameter names for `LDC c[name]`.
pub fn format_instr_with(i: &Instr, labels: Option<&BTreeMap<u32, String>>, params: &[String]) -> String {
    let info = i.info();
    let mut s = String::new();
    if i.guard != Guard::ALWAYS {
        let _ = write!(s, "@{}{} ", if i.guard.neg { "!" } else { "" }, pred_text(i.guard.pred));
    }
    s.push_str(&mnemonic_text(i));
    let neg = negatable(i.op);
    let na = if neg && i.neg_a() { "-" } else { "" };
    let nbc = if neg && i.neg_bc() { "-" } else { "" };
    let b_text = |negb: &str| match i.b {
        Src::Reg(r) => format!("{negb}{}", reg_text(r)),
        Src::Imm(v) => format!("{negb}0x{v:x}"),
    };
    let ops: Vec<String> = match info.form {
        Form::None => vec![],
        Form::Target => {
            let t = i.target();
            vec![labels.and_then(|l| l.get(&t)).cloned().unwrap_or_else(|| t.to_string())]
        }
        Form::DA => vec![reg_text(i.d), reg_text(i.a)],
        Form::DB => vec![reg_text(i.d), b_text("")],
        Form::DAB => vec![reg_text(i.d), format!("{na}{}", reg_text(i.a)), b_text(nbc)],
        Form::DABC => vec![
            reg_text(i.d),
            format!("{na}{}", reg_text(i.a)),
            b_text(""),
            format!("{nbc}{}", reg_text(i.c)),
        ],
        Form::DABCI => vec![reg_text(i.d), reg_text(i.a), b_text(""), reg_text(i.addend())],
        Form::PAB => vec![pred_text(i.d), reg_text(i.a), b_text("")],
        Form::PPP => {
            let p = |g: Guard| format!("{}{}", if g.neg { "!" } else { "" }, pred_text(g.pred));
            vec![pred_text(i.d), p(i.pred_src(0)), p(i.pred_src(1))]
        }
        Form::DABP => {
            let p = i.sel_pred();
            vec![
                reg_text(i.d),
                reg_text(i.a),
                b_text(""),
                format!("{}{}", if p.neg { "!" } else { "" }, pred_text(p.pred)),
            ]
        }
        Form::Load => vec![reg_text(i.d), mem_text(i.a, i.offset())],
        Form::Store => vec![mem_text(i.a, i.offset()), b_text("")],
        Form::Atom => {
            let mut v = vec![reg_text(i.d), mem_text(i.a, i.offset()), b_text("")];
            if i.m == AtomOp::Cas as u8 {
                v.push(reg_text(i.c));
            }
            v
        }
        Form::Sreg => vec![
            reg_text(i.d),
            Sreg::from_bits(i.e)
                .map(|r| r.name().to_string())
                .unwrap_or_else(|| format!("SR_{}", i.e)),
        ],
        Form::Param => {
            let idx = match params.get(i.e as usize) {
                Some(n) => n.clone(),
                None => i.e.to_string(),
            };
            let inner = match (i.a, i.e) {
                (RZ, _) => idx,
                (a, 0) => reg_text(a),
                (a, _) => format!("{}+{idx}", reg_text(a)),
            };
            vec![reg_text(i.d), format!("c[{inner}]")]
        }
        Form::Cfg => vec![i.d.to_string(), i.a.to_string(), b_text("")],
    };
    if !ops.is_empty() {
        s.push(' ');
        s.push_str(&ops.join(", "));
    }
    s
}

/// The whole program as canonical text: directives, then one instruction
/// per line, with a label `L<pc>:` before every branch or `SSY` target.
/// `assemble(&disassemble(p), _)` gives `p` back (except `src_lines`).
pub fn disassemble(p: &Program) -> String {
    disassemble_opts(p, false)
}

/// [`disassemble`] with a comment after each instruction giving its pc and
/// its 64-bit word (`; 0005: 0x2029...`), for matching waves and dumps.
/// The text still assembles to the same program.
pub fn disassemble_with_words(p: &Program) -> String {
    disassemble_opts(p, true)
}

fn disassemble_opts(p: &Program, words: bool) -> String {
    let n = p.code.len() as u32;
    let labels: BTreeMap<u32, String> = p
        .code
        .iter()
        .filter(|i| i.info().form == Form::Target && i.target() <= n)
        .map(|i| (i.target(), format!("L{}", i.target())))
        .collect();
    let mut s = String::new();
    let _ = writeln!(s, ".kernel {}", p.name);
    let _ = writeln!(s, ".regs {}", p.regs);
    if p.shared_bytes != 0 {
        let _ = writeln!(s, ".shared {}", p.shared_bytes);
    }
    for q in &p.params {
        let _ = writeln!(s, ".param {q}");
    }
    for (pc, i) in p.code.iter().enumerate() {
        if let Some(l) = labels.get(&(pc as u32)) {
            let _ = writeln!(s, "{l}:");
        }
        let text = format_instr_with(i, Some(&labels), &p.params);
        if words {
            let _ = writeln!(s, "    {text:<40} ; {pc:04}: 0x{:016x}", i.encode());
        } else {
            let _ = writeln!(s, "    {text}");
        }
    }
    if let Some(l) = labels.get(&n) {
        let _ = writeln!(s, "{l}:");
    }
    s
}

// ---------------------------------------------------------------------------
// Lexer
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// Identifier-like: mnemonics with suffixes, registers, labels,
    /// directives (leading `.`), special registers (`SR_TID.X`).
    Word(String),
    /// Starts with a digit: decimal, hex, float.
    Num(String),
    Punct(char),
}

#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub(crate) t: Tok,
    pub(crate) col: u32,
}

pub(crate) fn describe(t: Option<&Token>) -> String {
    match t.map(|t| &t.t) {
        None => "end of line".into(),
        Some(Tok::Word(w)) => format!("'{w}'"),
        Some(Tok::Num(n)) => format!("'{n}'"),
        Some(Tok::Punct(c)) => format!("'{c}'"),
    }
}

fn lex(line: &str) -> Result<Vec<Token>, (u32, String)> {
    lex_with(line, "")
}

/// [`lex`] with more punctuation characters (the GPU-CC configuration
/// text uses `*` and `->`).
pub(crate) fn lex_with(line: &str, extra: &str) -> Result<Vec<Token>, (u32, String)> {
    let ch: Vec<char> = line.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let word_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    while i < ch.len() {
        let c = ch[i];
        let col = i as u32 + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c == ';' || (c == '/' && ch.get(i + 1) == Some(&'/')) {
            break;
        } else if c.is_ascii_digit() || (c == '.' && ch.get(i + 1).is_some_and(|d| d.is_ascii_digit())) {
            let start = i;
            let hex = c == '0' && matches!(ch.get(i + 1), Some('x' | 'X'));
            while i < ch.len() {
                let d = ch[i];
                let exp_sign = !hex && (d == '+' || d == '-') && matches!(ch[i - 1], 'e' | 'E');
                if !(word_char(d) || exp_sign) {
                    break;
                }
                i += 1;
            }
            out.push(Token {
                t: Tok::Num(ch[start..i].iter().collect()),
                col,
            });
        } else if c.is_ascii_alphabetic() || c == '_' || c == '.' {
            let start = i;
            while i < ch.len() && word_char(ch[i]) {
                i += 1;
            }
            out.push(Token {
                t: Tok::Word(ch[start..i].iter().collect()),
                col,
            });
        } else if ",[]+-@!:".contains(c) || extra.contains(c) {
            out.push(Token { t: Tok::Punct(c), col });
            i += 1;
        } else {
            return Err((col, format!("unexpected character '{c}'")));
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Operand parsing
// ---------------------------------------------------------------------------

pub(crate) type PResult<T> = Result<T, (u32, String)>;

/// One operand of `op` that is a register or an immediate (the rules of
/// operand B: float literals on FP32 instructions and MOV, `-` on numbers),
/// starting at column `col`: the GPU-CC configuration text's values.
pub(crate) fn reg_or_imm(op: Op, toks: &[Token], col: u32) -> PResult<Src> {
    if toks.is_empty() {
        return Err((col, "missing value".into()));
    }
    let mut o = Ops {
        op,
        parts: vec![toks],
        cols: vec![col],
        regs: Vec::new(),
    };
    Ok(o.src_b(0, false, false, true)?.0)
}

/// A register-like word.
enum RegWord {
    Reg(u8),
    Pred(u8),
}

fn reg_word(w: &str, col: u32) -> PResult<Option<RegWord>> {
    let u = w.to_ascii_uppercase();
    if u == "RZ" {
        return Ok(Some(RegWord::Reg(RZ)));
    }
    if u == "PT" {
        return Ok(Some(RegWord::Pred(PT)));
    }
    let (kind, digits) = u.split_at(1);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let n: u64 = digits.parse().unwrap_or(u64::MAX);
    match kind {
        "R" if n < MAX_REGS as u64 => Ok(Some(RegWord::Reg(n as u8))),
        "R" => Err((col, format!("{w} is not a register: registers are R0-R127 and RZ"))),
        "P" if n < NUM_PREDS as u64 => Ok(Some(RegWord::Pred(n as u8))),
        "P" => Err((col, format!("{w} is not a predicate: predicates are P0-P3 and PT"))),
        _ => Ok(None),
    }
}

fn is_reg_like(w: &str) -> bool {
    let u = w.to_ascii_uppercase();
    u == "RZ"
        || u == "PT"
        || (u.len() > 1 && (u.starts_with('R') || u.starts_with('P')) && u[1..].bytes().all(|b| b.is_ascii_digit()))
}

fn is_ident(w: &str) -> bool {
    let mut c = w.chars();
    c.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parse an unsigned integer literal (decimal or `0x` hex); values beyond
/// `u64` saturate (every caller then reports them out of range).
pub(crate) fn parse_uint(s: &str) -> Option<u64> {
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (s, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(u64::from_str_radix(digits, radix).unwrap_or(u64::MAX))
}

fn is_hex(s: &str) -> bool {
    s.starts_with("0x") || s.starts_with("0X")
}

/// A register use to check against `.regs` once it is known.
struct RegUse {
    r: u8,
    col: u32,
    pair: bool,
}

/// The operand tokens of one instruction, split at commas.
struct Ops<'a> {
    op: Op,
    parts: Vec<&'a [Token]>,
    /// Column of each part's start (or of the comma before an empty part).
    cols: Vec<u32>,
    regs: Vec<RegUse>,
}

impl<'a> Ops<'a> {
    fn mn(&self) -> &'static str {
        self.op.info().mnemonic
    }

    /// One register operand `n` (d, a, b, c), optionally `-`negated.
    fn reg(&mut self, n: usize, name: &str, pair: bool, can_neg: bool) -> PResult<(u8, bool)> {
        let toks = self.parts[n];
        let mut k = 0;
        let mut neg = false;
        if let Some(Token {
            t: Tok::Punct('-'),
            col,
        }) = toks.first()
        {
            if !can_neg {
                return Err((*col, format!("operand {name} of {} cannot be negated", self.mn())));
            }
            neg = true;
            k = 1;
        }
        let t = toks.get(k);
        let col = t.map_or(self.cols[n], |t| t.col);
        let r = match t.map(|t| &t.t) {
            Some(Tok::Word(w)) => match reg_word(w, col)? {
                Some(RegWord::Reg(r)) => r,
                Some(RegWord::Pred(_)) => {
                    return Err((
                        col,
                        format!("expected a register for operand {name}, found predicate {w}"),
                    ))
                }
                None => return Err((col, format!("expected a register for operand {name}, found '{w}'"))),
            },
            Some(Tok::Num(v)) => {
                return Err((
                    col,
                    format!(
                        "expected a register for operand {name}, found immediate {v} ({} takes no immediate here)",
                        self.mn()
                    ),
                ))
            }
            other => {
                return Err((
                    col,
                    format!(
                        "expected a register for operand {name}, found {}",
                        describe(other.map(|_| t.unwrap()))
                    ),
                ))
            }
        };
        self.end(n, k + 1)?;
        if pair && r != RZ && r % 2 != 0 {
            return Err((
                col,
                format!(
                    "operand {name} of {} is a 64-bit register pair and must be an even register, found R{r}",
                    self.mn()
                ),
            ));
        }
        self.regs.push(RegUse { r, col, pair });
        Ok((r, neg))
    }

    /// A plain number 0..=`max` as operand `n` (GCSET's node and
    /// configuration register).
    fn small_number(&self, n: usize, name: &str, max: u64) -> PResult<u8> {
        let t = &self.parts[n][0];
        let v = match &t.t {
            Tok::Num(s) => parse_uint(s).ok_or_else(|| (t.col, format!("malformed number '{s}'")))?,
            _ => {
                return Err((
                    t.col,
                    format!("expected a {name} number 0..={max}, found {}", describe(Some(t))),
                ))
            }
        };
        if v > max {
            return Err((t.col, format!("{name} {v} is out of range 0..={max}")));
        }
        self.end(n, 1)?;
        Ok(v as u8)
    }

    /// Nothing may follow token `k` of operand `n`.
    fn end(&self, n: usize, k: usize) -> PResult<()> {
        match self.parts[n].get(k) {
            None => Ok(()),
            Some(t) => Err((t.col, format!("unexpected {} in operand {}", describe(Some(t)), n + 1))),
        }
    }

    fn pred(&mut self, n: usize, name: &str, allow_not: bool) -> PResult<(u8, bool)> {
        let toks = self.parts[n];
        let mut k = 0;
        let mut neg = false;
        if allow_not {
            if let Some(Token { t: Tok::Punct('!'), .. }) = toks.first() {
                neg = true;
                k = 1;
            }
        }
        let t = toks.get(k);
        let col = t.map_or(self.cols[n], |t| t.col);
        let p = match t.map(|t| &t.t) {
            Some(Tok::Word(w)) => match reg_word(w, col)? {
                Some(RegWord::Pred(p)) => p,
                Some(RegWord::Reg(_)) => {
                    return Err((
                        col,
                        format!("expected a predicate for operand {name}, found register {w}"),
                    ))
                }
                None => {
                    return Err((
                        col,
                        format!("expected a predicate (P0-P3, PT) for operand {name}, found '{w}'"),
                    ))
                }
            },
            _ => {
                return Err((
                    col,
                    format!(
                        "expected a predicate (P0-P3, PT) for operand {name}, found {}",
                        describe(t)
                    ),
                ))
            }
        };
        self.end(n, k + 1)?;
        Ok((p, neg))
    }

    /// Operand B: a register or (if allowed) an immediate. Returns the
    /// source and whether the negation modifier is set.
    fn src_b(&mut self, n: usize, pair: bool, can_neg: bool, allow_imm: bool) -> PResult<(Src, bool)> {
        let toks = self.parts[n];
        let (sign, k) = match toks.first() {
            Some(Token {
                t: Tok::Punct('-'),
                col,
            }) => (Some(*col), 1),
            _ => (None, 0),
        };
        let is_imm = match toks.get(k).map(|t| &t.t) {
            Some(Tok::Num(_)) => true,
            Some(Tok::Word(w)) => {
                let l = w.to_ascii_lowercase();
                l == "inf" || l == "nan"
            }
            _ => false,
        };
        if !is_imm {
            let (r, neg) = self.reg(n, "b", pair, can_neg)?;
            return Ok((Src::Reg(r), neg));
        }
        let t = &toks[k];
        let text = match &t.t {
            Tok::Num(s) | Tok::Word(s) => s.clone(),
            Tok::Punct(_) => unreachable!(),
        };
        if !allow_imm {
            return Err((
                t.col,
                format!(
                    "expected a register for operand b, found immediate {text} ({} takes no immediate)",
                    self.mn()
                ),
            ));
        }
        self.end(n, k + 1)?;
        let col = sign.unwrap_or(t.col);
        let info = self.op.info();
        let fp = info.class == Class::Fp32;
        let float_ok = fp || self.op == Op::Mov;
        let lower = text.to_ascii_lowercase();
        let is_float =
            lower == "inf" || lower == "nan" || (!is_hex(&text) && (text.contains('.') || lower.contains('e')));
        if is_float {
            if !float_ok {
                return Err((
                    col,
                    format!(
                        "float literal {text} is only allowed on FP32 instructions and MOV, not {}",
                        self.mn()
                    ),
                ));
            }
            let v: f32 = match lower.as_str() {
                "inf" => f32::INFINITY,
                "nan" => f32::NAN,
                _ => text
                    .parse()
                    .map_err(|_| (t.col, format!("malformed number '{text}'")))?,
            };
            let bits = if sign.is_some() { (-v).to_bits() } else { v.to_bits() };
            return Ok((Src::Imm(bits), false));
        }
        let mag = parse_uint(&text).ok_or_else(|| (t.col, format!("malformed number '{text}'")))?;
        let signed = if sign.is_some() { "-" } else { "" };
        if is_hex(&text) {
            if mag > u32::MAX as u64 {
                return Err((col, format!("immediate {signed}{text} does not fit in 32 bits")));
            }
            if sign.is_some() && fp {
                // For FP32 instructions a hex literal is the raw bit pattern
                // and `-` flips its sign: through the negation modifier on
                // an operand that has one, else in the literal itself.
                if can_neg {
                    return Ok((Src::Imm(mag as u32), true));
                }
                return Ok((Src::Imm(mag as u32 ^ 0x8000_0000), false));
            }
        }
        let mag = mag.min(1 << 40) as i64;
        let v: i64 = if sign.is_some() { -mag } else { mag };
        if v < i32::MIN as i64 || v > u32::MAX as i64 {
            return Err((
                col,
                format!("immediate {signed}{text} does not fit in 32 bits (-2147483648..=4294967295)"),
            ));
        }
        Ok((Src::Imm(v as u32), false))
    }

    /// A memory operand `[a]`, `[a+off]`, `[a-off]`, `[off]`.
    fn mem(&mut self, n: usize) -> PResult<(u8, u16)> {
        let toks = self.parts[n];
        let col0 = toks.first().map_or(self.cols[n], |t| t.col);
        if !matches!(toks.first(), Some(Token { t: Tok::Punct('['), .. })) {
            return Err((
                col0,
                format!(
                    "expected a memory operand like [R4+16], found {}",
                    describe(toks.first())
                ),
            ));
        }
        let close = toks.iter().position(|t| t.t == Tok::Punct(']')).ok_or_else(|| {
            (
                toks.last().map_or(col0, |t| t.col),
                "expected ']' to close the memory operand".to_string(),
            )
        })?;
        self.end(n, close + 1)?;
        let inner = &toks[1..close];
        if inner.is_empty() {
            return Err((
                toks[close].col,
                "empty memory operand: write [R4], [R4+16] or [0x100]".into(),
            ));
        }
        let (a, rest) = match inner.first().map(|t| &t.t) {
            Some(Tok::Word(w)) => match reg_word(w, inner[0].col)? {
                Some(RegWord::Reg(r)) => {
                    self.regs.push(RegUse {
                        r,
                        col: inner[0].col,
                        pair: false,
                    });
                    (r, &inner[1..])
                }
                _ => {
                    return Err((
                        inner[0].col,
                        format!("expected an address register or offset, found '{w}'"),
                    ))
                }
            },
            _ => (RZ, inner),
        };
        let (neg, rest) = match rest.first().map(|t| &t.t) {
            None => return Ok((a, 0)),
            Some(Tok::Punct('+')) if a != RZ || !inner.is_empty() && rest.len() < inner.len() => (false, &rest[1..]),
            Some(Tok::Punct('-')) => (true, &rest[1..]),
            _ if rest.len() == inner.len() => (false, rest),
            _ => {
                return Err((
                    rest[0].col,
                    format!("expected '+' or '-' and an offset, found {}", describe(rest.first())),
                ))
            }
        };
        let t = rest.first();
        let col = t.map_or(col0, |t| t.col);
        let text = match t.map(|t| &t.t) {
            Some(Tok::Num(s)) => s.clone(),
            _ => return Err((col, format!("expected a byte offset, found {}", describe(t)))),
        };
        if let Some(x) = rest.get(1) {
            return Err((x.col, format!("unexpected {} in memory operand", describe(Some(x)))));
        }
        let mag = parse_uint(&text).ok_or_else(|| (col, format!("malformed offset '{text}'")))?;
        let v = if neg {
            -(mag.min(1 << 40) as i64)
        } else {
            mag.min(1 << 40) as i64
        };
        if !(-32768..=32767).contains(&v) {
            return Err((
                col,
                format!(
                    "offset {}{text} is out of range: the offset is a signed 16-bit byte count (-32768..=32767)",
                    if neg { "-" } else { "" }
                ),
            ));
        }
        Ok((a, v as i16 as u16))
    }

    /// `c[name]`, `c[3]`, `c[R2]`, `c[R2+1]`, `c[R2+name]`.
    fn param(&mut self, n: usize, params: &[String]) -> PResult<(u8, u16)> {
        let toks = self.parts[n];
        let col0 = toks.first().map_or(self.cols[n], |t| t.col);
        let ok_start = matches!(toks.first(), Some(Token { t: Tok::Word(w), .. }) if w == "c" || w == "C")
            && matches!(toks.get(1), Some(Token { t: Tok::Punct('['), .. }));
        if !ok_start {
            return Err((
                col0,
                format!(
                    "expected a parameter operand like c[n] or c[R2+1], found {}",
                    describe(toks.first())
                ),
            ));
        }
        let close = toks.iter().position(|t| t.t == Tok::Punct(']')).ok_or_else(|| {
            (
                toks.last().unwrap().col,
                "expected ']' to close the parameter operand".to_string(),
            )
        })?;
        self.end(n, close + 1)?;
        let inner = &toks[2..close];
        let mut a = RZ;
        let mut rest = inner;
        if let Some(Token { t: Tok::Word(w), col }) = inner.first() {
            if let Some(rw) = reg_word(w, *col)? {
                match rw {
                    RegWord::Reg(r) => {
                        a = r;
                        self.regs.push(RegUse {
                            r,
                            col: *col,
                            pair: false,
                        });
                    }
                    RegWord::Pred(_) => {
                        return Err((*col, format!("expected a register or parameter, found predicate {w}")))
                    }
                }
                rest = &inner[1..];
                match rest.first() {
                    None => return Ok((a, 0)),
                    Some(Token { t: Tok::Punct('+'), .. }) => rest = &rest[1..],
                    Some(t) => {
                        return Err((
                            t.col,
                            format!("expected '+' and a word index, found {}", describe(Some(t))),
                        ))
                    }
                }
            }
        }
        let t = rest.first();
        let col = t.map_or(col0, |t| t.col);
        let e = match t.map(|t| &t.t) {
            Some(Tok::Num(s)) => {
                let v = parse_uint(s).ok_or_else(|| (col, format!("malformed number '{s}'")))?;
                if v > u16::MAX as u64 {
                    return Err((col, format!("parameter word index {s} is out of range (0..=65535)")));
                }
                v as u16
            }
            Some(Tok::Word(w)) => match params.iter().position(|p| p == w) {
                Some(i) => i as u16,
                None => {
                    let known = if params.is_empty() {
                        "no .param declared".to_string()
                    } else {
                        format!("declared: {}", params.join(", "))
                    };
                    return Err((col, format!("unknown parameter '{w}' ({known})")));
                }
            },
            _ => {
                return Err((
                    col,
                    format!("expected a parameter name or word index, found {}", describe(t)),
                ))
            }
        };
        if let Some(x) = rest.get(1) {
            return Err((x.col, format!("unexpected {} in parameter operand", describe(Some(x)))));
        }
        Ok((a, e))
    }
}

/// A mnemonic with its modifier suffixes (`FFMA.RZ`, `ISETP.LT.U32`) at
/// column `mcol`: the opcode and the 4-bit modifier.
pub(crate) fn parse_mnemonic(mn: &str, mcol: u32) -> PResult<(Op, u8)> {
    let mut parts = mn.split('.');
    let base = parts.next().unwrap_or("").to_ascii_uppercase();
    let op = match Op::from_mnemonic(&base) {
        Some(op) => op,
        None => {
            let hint = nearest(&base, Op::ALL.iter().map(|o| o.info().mnemonic))
                .map(|n| format!("; did you mean {n}?"))
                .unwrap_or_default();
            return Err((mcol, format!("unknown mnemonic '{base}'{hint}")));
        }
    };
    let info = op.info();
    let sl = slots(info.modk);
    let mut choice: Vec<Option<usize>> = vec![None; sl.len()];
    let mut next = 0;
    let mut scol = mcol + base.len() as u32;
    for suf in parts {
        let s = suf.to_ascii_uppercase();
        let here = scol;
        scol += 1 + suf.len() as u32;
        let pos = (next..sl.len()).find(|&j| sl[j].names.contains(&s.as_str()));
        if let Some(j) = pos {
            choice[j] = Some(sl[j].names.iter().position(|n| *n == s).unwrap());
            next = j + 1;
            continue;
        }
        let allowed = allowed_suffixes(info.modk);
        let msg = match (0..next).find(|&j| sl[j].names.contains(&s.as_str())) {
            Some(j) if choice[j].map(|c| sl[j].names[c]) == Some(s.as_str()) => {
                format!("duplicate modifier .{s} on {}", info.mnemonic)
            }
            Some(j) if choice[j].is_some() => format!(
                "modifier .{s} conflicts with .{} on {} (allowed: {allowed})",
                sl[j].names[choice[j].unwrap()],
                info.mnemonic
            ),
            Some(_) => format!("modifier .{s} is out of order on {} (order: {allowed})", info.mnemonic),
            None if s.is_empty() => format!("empty modifier after '.' on {}", info.mnemonic),
            None => format!("unknown modifier .{s} for {} (allowed: {allowed})", info.mnemonic),
        };
        return Err((here, msg));
    }
    for (j, s) in sl.iter().enumerate() {
        if s.required && choice[j].is_none() {
            return Err((
                mcol,
                format!("{} needs a modifier: {}", info.mnemonic, allowed_suffixes(info.modk)),
            ));
        }
    }
    let m = join_mod(info.modk, &choice).map_err(|(_, msg)| (mcol, format!("{}: {msg}", info.mnemonic)))?;
    Ok((op, m))
}

/// The operand list of a form, for messages.
fn form_syntax(form: Form, cas: bool) -> &'static str {
    match form {
        Form::None => "no operands",
        Form::Target => "target",
        Form::DA => "d, a",
        Form::DB => "d, b",
        Form::DAB => "d, a, b",
        Form::DABC => "d, a, b, c",
        Form::DABCI => "d, a, b|imm, c (c is d with an immediate)",
        Form::PAB => "Pd, a, b",
        Form::PPP => "Pd, [!]Pa, [!]Pb",
        Form::DABP => "d, a, b, [!]Pm",
        Form::Load => "d, [a+offset]",
        Form::Store => "[a+offset], b",
        Form::Atom if cas => "d, [a+offset], b, c",
        Form::Atom => "d, [a+offset], b",
        Form::Sreg => "d, SR_name",
        Form::Param => "d, c[index]",
        Form::Cfg => "node, sel, b|imm",
    }
}

fn operand_count(form: Form, cas: bool) -> usize {
    match form {
        Form::None => 0,
        Form::Target => 1,
        Form::DA | Form::DB | Form::Load | Form::Store | Form::Sreg | Form::Param => 2,
        Form::DAB | Form::PAB | Form::PPP | Form::Cfg => 3,
        Form::Atom if cas => 4,
        Form::Atom => 3,
        Form::DABC | Form::DABCI | Form::DABP => 4,
    }
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push((prev[j] + (ca != *cb) as usize).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

fn nearest<'a>(w: &str, cands: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    cands
        .map(|c| (levenshtein(w, c), c))
        .filter(|(d, c)| *d <= c.len().div_ceil(3).max(1))
        .min()
        .map(|(_, c)| c)
}

// ---------------------------------------------------------------------------
// Assembler
// ---------------------------------------------------------------------------

/// A pending label reference.
struct Fixup {
    pc: usize,
    name: String,
    line: u32,
    col: u32,
}

struct Asm<'s> {
    file: &'s str,
    errors: Vec<AsmError>,
    name: Option<(String, u32)>,
    regs: Option<(u32, u32)>,
    /// A `.regs` line exists (even a bad one).
    regs_seen: bool,
    shared: Option<(u32, u32)>,
    params: Vec<String>,
    labels: HashMap<String, (u32, u32)>,
    code: Vec<Instr>,
    lines: Vec<u32>,
    fixups: Vec<Fixup>,
    reg_uses: Vec<(u32, Op, RegUse)>,
    /// (pc, line, column) of every branch or SSY target, checked against
    /// the program length once it is known.
    target_uses: Vec<(usize, u32, u32)>,
}

impl<'s> Asm<'s> {
    /// Assemble a `.gpucc` block (docs/gpucc.md) closed at line `end`.
    fn gpucc_block(&mut self, lines: &[(u32, &str)], end: u32) {
        match crate::golden::gpucc::text::assemble_block(lines, end) {
            Ok(code) => {
                for (i, ln) in code {
                    if let Src::Reg(r) = i.b {
                        self.reg_uses.push((ln, i.op, RegUse { r, col: 1, pair: false }));
                    }
                    self.code.push(i);
                    self.lines.push(ln);
                }
            }
            Err(errs) => {
                for e in errs {
                    self.err(e.line, e.col, e.msg);
                }
            }
        }
    }

    fn err(&mut self, line: u32, col: u32, msg: impl Into<String>) {
        self.errors.push(AsmError {
            file: self.file.to_string(),
            line,
            col,
            msg: msg.into(),
        });
    }

    fn line(&mut self, ln: u32, text: &str) -> PResult<()> {
        let toks = lex(text)?;
        let mut k = 0;
        // Labels.
        while let (Some(Token { t: Tok::Word(w), col }), Some(Token { t: Tok::Punct(':'), .. })) =
            (toks.get(k), toks.get(k + 1))
        {
            if !is_ident(w) {
                return Err((*col, format!("bad label name '{w}': use letters, digits and '_'")));
            }
            if let Some((l, _)) = self.labels.get(w) {
                return Err((*col, format!("duplicate label '{w}' (first defined at line {l})")));
            }
            self.labels.insert(w.clone(), (ln, self.code.len() as u32));
            k += 2;
        }
        let toks = &toks[k..];
        match toks.first() {
            None => Ok(()),
            Some(Token { t: Tok::Word(w), col }) if w.starts_with('.') => self.directive(ln, *col, w, &toks[1..]),
            Some(_) => self.instr(ln, toks),
        }
    }

    fn directive(&mut self, ln: u32, col: u32, w: &str, args: &[Token]) -> PResult<()> {
        let d = w.to_ascii_lowercase();
        let end_col = args.last().map_or(col + w.len() as u32, |t| t.col);
        let one = |what: &str| -> PResult<&Token> {
            match args {
                [t] => Ok(t),
                [] => Err((end_col, format!("{d} needs {what}"))),
                [_, x, ..] => Err((x.col, format!("unexpected {} after {d} {what}", describe(Some(x))))),
            }
        };
        let number = |t: &Token, what: &str| -> PResult<u64> {
            match &t.t {
                Tok::Num(s) => parse_uint(s).ok_or_else(|| (t.col, format!("malformed number '{s}'"))),
                _ => Err((t.col, format!("{d} needs {what}, found {}", describe(Some(t))))),
            }
        };
        match d.as_str() {
            ".kernel" => {
                let t = one("a kernel name")?;
                let name = match &t.t {
                    Tok::Word(n) if is_ident(n) => n.clone(),
                    _ => return Err((t.col, format!("expected a kernel name, found {}", describe(Some(t))))),
                };
                if let Some((_, l)) = &self.name {
                    return Err((col, format!("duplicate .kernel (first at line {l})")));
                }
                self.name = Some((name, ln));
            }
            ".regs" => {
                self.regs_seen = true;
                let t = one("a register count (1..=128)")?;
                let v = number(t, "a register count (1..=128)")?;
                if !(1..=MAX_REGS as u64).contains(&v) {
                    return Err((
                        t.col,
                        format!(".regs {v} is out of range: 1..=128 registers per thread"),
                    ));
                }
                if let Some((_, l)) = self.regs {
                    return Err((col, format!("duplicate .regs (first at line {l})")));
                }
                self.regs = Some((v as u32, ln));
            }
            ".shared" => {
                let t = one("a size in bytes")?;
                let v = number(t, "a size in bytes")?;
                if v > u32::MAX as u64 {
                    return Err((t.col, format!(".shared {v} does not fit in 32 bits")));
                }
                if let Some((_, l)) = self.shared {
                    return Err((col, format!("duplicate .shared (first at line {l})")));
                }
                self.shared = Some((v as u32, ln));
            }
            ".param" => {
                let t = one("a parameter name")?;
                let name = match &t.t {
                    Tok::Word(n) if is_ident(n) && !is_reg_like(n) => n.clone(),
                    Tok::Word(n) if is_reg_like(n) => {
                        return Err((t.col, format!("parameter name '{n}' looks like a register")))
                    }
                    _ => return Err((t.col, format!("expected a parameter name, found {}", describe(Some(t))))),
                };
                if self.params.contains(&name) {
                    return Err((t.col, format!("duplicate parameter '{name}'")));
                }
                self.params.push(name);
            }
            _ => {
                return Err((
                    col,
                    format!("unknown directive {w} (known: .kernel .regs .shared .param .gpucc)"),
                ))
            }
        }
        Ok(())
    }

    fn instr(&mut self, ln: u32, toks: &[Token]) -> PResult<()> {
        let mut k = 0;
        let mut guard = Guard::ALWAYS;
        let mut guard_col = None;
        if let Some(Token {
            t: Tok::Punct('@'),
            col,
        }) = toks.first()
        {
            guard_col = Some(*col);
            k = 1;
            if let Some(Token { t: Tok::Punct('!'), .. }) = toks.get(k) {
                guard.neg = true;
                k += 1;
            }
            let t = toks.get(k);
            let pc = t.map_or(*col + 1, |t| t.col);
            match t.map(|t| &t.t) {
                Some(Tok::Word(w)) => match reg_word(w, pc)? {
                    Some(RegWord::Pred(p)) => guard.pred = p,
                    _ => return Err((pc, format!("expected a guard predicate (P0-P3, PT), found '{w}'"))),
                },
                _ => {
                    return Err((
                        pc,
                        format!("expected a guard predicate (P0-P3, PT), found {}", describe(t)),
                    ))
                }
            }
            if guard.pred == PT && guard.neg {
                return Err((*col, "guard @!PT would never execute; it is not allowed".into()));
            }
            k += 1;
        }
        let (mn, mcol) = match toks.get(k) {
            Some(Token { t: Tok::Word(w), col }) => (w.clone(), *col),
            t => {
                return Err((
                    t.map_or(1, |t| t.col),
                    format!("expected a mnemonic, found {}", describe(t)),
                ))
            }
        };
        k += 1;
        let (op, mut m) = parse_mnemonic(&mn, mcol)?;
        let info = op.info();
        if !op.takes_guard() && guard != Guard::ALWAYS {
            return Err((
                guard_col.unwrap_or(mcol),
                format!("{} acts on the whole warp and cannot have a guard", info.mnemonic),
            ));
        }
        // Operands, split at commas.
        let rest = &toks[k..];
        let mut split: Vec<&[Token]> = Vec::new();
        let mut cols = Vec::new();
        let mut start = 0;
        let mut start_col = rest.first().map_or(mcol, |t| t.col);
        for (j, t) in rest.iter().enumerate() {
            if t.t == Tok::Punct(',') {
                split.push(&rest[start..j]);
                cols.push(start_col);
                start = j + 1;
                start_col = rest.get(j + 1).map_or(t.col + 1, |t| t.col);
            }
        }
        if !rest.is_empty() {
            split.push(&rest[start..]);
            cols.push(start_col);
        }
        for (p, c) in split.iter().zip(&cols) {
            if p.is_empty() {
                return Err((*c, "missing operand (two commas, or a comma at the end)".into()));
            }
        }
        let cas = info.form == Form::Atom && m == AtomOp::Cas as u8;
        let want = operand_count(info.form, cas);
        if split.len() != want {
            let col = if split.len() > want { cols[want] } else { mcol };
            return Err((
                col,
                format!(
                    "{} takes {want} operand{} ({}), found {}",
                    info.mnemonic,
                    if want == 1 { "" } else { "s" },
                    form_syntax(info.form, cas),
                    split.len()
                ),
            ));
        }
        let mut o = Ops {
            op,
            parts: split,
            cols,
            regs: Vec::new(),
        };
        let mut i = Instr::new(op);
        i.guard = guard;
        let pairs = info.pairs;
        let neg = negatable(op);
        let mut fixup = None;
        let mut target_col = None;
        match info.form {
            Form::None => {}
            Form::Target => {
                let t = &o.parts[0][0];
                o.end(0, 1)?;
                target_col = Some(t.col);
                match &t.t {
                    Tok::Num(s) => {
                        let v = parse_uint(s).ok_or_else(|| (t.col, format!("malformed number '{s}'")))?;
                        if v > u32::MAX as u64 {
                            return Err((t.col, format!("branch target {s} does not fit in 32 bits")));
                        }
                        i.b = Src::Imm(v as u32);
                    }
                    Tok::Word(w) if is_ident(w) => {
                        i.b = Src::Imm(0);
                        fixup = Some((w.clone(), t.col));
                    }
                    _ => {
                        return Err((
                            t.col,
                            format!("expected a label or instruction index, found {}", describe(Some(t))),
                        ))
                    }
                }
            }
            Form::DA => {
                i.d = o.reg(0, "d", pairs.d, false)?.0;
                i.a = o.reg(1, "a", pairs.a, false)?.0;
            }
            Form::DB => {
                i.d = o.reg(0, "d", pairs.d, false)?.0;
                i.b = o.src_b(1, pairs.b, false, info.allows_imm())?.0;
            }
            Form::DAB | Form::PAB | Form::DABP => {
                if info.form == Form::PAB {
                    i.d = o.pred(0, "d", false)?.0;
                } else {
                    i.d = o.reg(0, "d", pairs.d, false)?.0;
                }
                let (a, na) = o.reg(1, "a", pairs.a, neg)?;
                i.a = a;
                let (b, nb) = o.src_b(2, pairs.b, neg, info.allows_imm())?;
                i.b = b;
                m |= (na as u8) << 2 | (nb as u8) << 3;
                if info.form == Form::DABP {
                    let (p, pn) = o.pred(3, "p", true)?;
                    m = p | (pn as u8) << 3;
                }
            }
            Form::DABC => {
                i.d = o.reg(0, "d", pairs.d, false)?.0;
                let (a, na) = o.reg(1, "a", pairs.a, neg)?;
                i.a = a;
                i.b = Src::Reg(o.reg(2, "b", pairs.b, false)?.0);
                let (c, nc) = o.reg(3, "c", pairs.c, neg)?;
                i.c = c;
                m |= (na as u8) << 2 | (nc as u8) << 3;
            }
            Form::DABCI => {
                i.d = o.reg(0, "d", pairs.d, false)?.0;
                i.a = o.reg(1, "a", pairs.a, false)?.0;
                i.b = o.src_b(2, pairs.b, false, info.allows_imm())?.0;
                let c = o.reg(3, "c", pairs.c, false)?.0;
                if let Src::Imm(_) = i.b {
                    if c != i.d {
                        return Err((
                            o.cols[3],
                            format!(
                                "{} with an immediate adds into its destination: operand c must be {} (the immediate takes the c field)",
                                o.mn(),
                                reg_text(i.d)
                            ),
                        ));
                    }
                } else {
                    i.c = c;
                }
            }
            Form::PPP => {
                i.d = o.pred(0, "d", false)?.0;
                let (a, na) = o.pred(1, "a", true)?;
                let (b, nb) = o.pred(2, "b", true)?;
                i.a = a;
                i.b = Src::Reg(b);
                m |= (na as u8) << 2 | (nb as u8) << 3;
            }
            Form::Load => {
                let wide = m & 1 == 1 && info.modk == ModKind::Width;
                i.d = o.reg(0, "d", wide, false)?.0;
                (i.a, i.e) = o.mem(1)?;
            }
            Form::Store => {
                let wide = m & 1 == 1 && info.modk == ModKind::Width;
                (i.a, i.e) = o.mem(0)?;
                i.b = Src::Reg(o.reg(1, "b", wide, false)?.0);
            }
            Form::Atom => {
                i.d = o.reg(0, "d", false, false)?.0;
                (i.a, i.e) = o.mem(1)?;
                i.b = Src::Reg(o.reg(2, "b", false, false)?.0);
                if cas {
                    i.c = o.reg(3, "c", false, false)?.0;
                }
            }
            Form::Sreg => {
                i.d = o.reg(0, "d", false, false)?.0;
                let t = &o.parts[1][0];
                o.end(1, 1)?;
                let name = match &t.t {
                    Tok::Word(w) => w.to_ascii_uppercase(),
                    _ => String::new(),
                };
                match Sreg::from_name(&name) {
                    Some(r) => i.e = r as u16,
                    None => {
                        let known: Vec<&str> = Sreg::ALL.iter().map(|r| r.name()).collect();
                        let hint = nearest(&name, known.iter().copied())
                            .map(|n| format!("did you mean {n}? "))
                            .unwrap_or_default();
                        return Err((
                            t.col,
                            format!(
                                "unknown special register {} ({hint}known: {})",
                                describe(Some(t)),
                                known.join(" ")
                            ),
                        ));
                    }
                }
            }
            Form::Param => {
                i.d = o.reg(0, "d", false, false)?.0;
                let params = self.params.clone();
                (i.a, i.e) = o.param(1, &params)?;
            }
            Form::Cfg => {
                i.d = o.small_number(0, "node", GPUCC_NODES as u64 - 1)?;
                i.a = o.small_number(1, "configuration register", GPUCC_SEL_MAX as u64)?;
                i.b = o.src_b(2, false, false, true)?.0;
                if i.b == Src::Reg(RZ) {
                    return Err((
                        o.cols[2],
                        "GCSET takes a register R0-R127 or an immediate, not RZ".into(),
                    ));
                }
            }
        }
        i.m = m;
        i.validate().map_err(|e| (mcol, e.to_string()))?;
        let pc = self.code.len();
        if let Some(col) = target_col {
            self.target_uses.push((pc, ln, col));
        }
        if let Some((name, col)) = fixup {
            self.fixups.push(Fixup {
                pc,
                name,
                line: ln,
                col,
            });
        }
        for u in o.regs {
            self.reg_uses.push((ln, op, u));
        }
        self.code.push(i);
        self.lines.push(ln);
        Ok(())
    }
}

/// Source text from a file's bytes: an error at the line and column of the
/// first byte that is not UTF-8 (the assembler reads text only).
pub fn source_from_bytes(bytes: &[u8], file: &str) -> Result<String, AsmError> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let good = &bytes[..e.valid_up_to()];
            let line = good.iter().filter(|&&b| b == b'\n').count() as u32 + 1;
            let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            // The column counts characters, as the assembler's columns do.
            let col = std::str::from_utf8(&good[line_start..]).map_or(0, |s| s.chars().count()) as u32 + 1;
            Err(AsmError {
                file: file.to_string(),
                line,
                col,
                msg: format!(
                    "byte 0x{:02x} is not valid UTF-8 (assembly source must be UTF-8 text)",
                    bytes[e.valid_up_to()]
                ),
            })
        }
    }
}

/// Assemble source text; `file` names it in errors and gives the default
/// kernel name (its stem). Returns the first error.
pub fn assemble(src: &str, file: &str) -> Result<Program, AsmError> {
    assemble_all(src, file).map_err(|mut e| e.swap_remove(0))
}

/// Assemble, collecting every error (in source order) rather than the
/// first. Errors that follow from an earlier one (a label defined on a
/// line that failed) may be missed or repeated; fix the first one first.
pub fn assemble_all(src: &str, file: &str) -> Result<Program, Vec<AsmError>> {
    let mut a = Asm {
        file,
        errors: Vec::new(),
        name: None,
        regs: None,
        regs_seen: false,
        shared: None,
        params: Vec::new(),
        labels: HashMap::new(),
        code: Vec::new(),
        lines: Vec::new(),
        fixups: Vec::new(),
        target_uses: Vec::new(),
        reg_uses: Vec::new(),
    };
    // A `.gpucc` block: its lines go to the configuration assembler.
    let mut block: Option<(u32, Vec<(u32, &str)>)> = None;
    for (n, text) in src.lines().enumerate() {
        let ln = n as u32 + 1;
        let first = text.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
        let first = first.split(';').next().unwrap_or("");
        if let Some((_, lines)) = block.as_mut() {
            if first == ".endgpucc" {
                let (_, lines) = block.take().expect("open");
                a.gpucc_block(&lines, ln);
            } else if first == ".gpucc" {
                a.err(ln, 1, ".gpucc inside a .gpucc block (close it with .endgpucc)");
            } else {
                lines.push((ln, text));
            }
            continue;
        }
        if first == ".gpucc" {
            if text.split_whitespace().nth(1).is_some_and(|w| !w.starts_with(';')) {
                a.err(ln, 1, ".gpucc takes no arguments");
            }
            block = Some((ln, Vec::new()));
            continue;
        }
        if let Err((col, msg)) = a.line(ln, text) {
            a.err(ln, col, msg);
        }
    }
    if let Some((l, _)) = block {
        a.err(l, 1, "unterminated .gpucc block: .endgpucc is missing");
    }
    // Labels.
    let fixups = std::mem::take(&mut a.fixups);
    for f in fixups {
        match a.labels.get(&f.name) {
            Some(&(_, pc)) => a.code[f.pc].b = Src::Imm(pc),
            None => {
                let hint = nearest(&f.name, a.labels.keys().map(|s| s.as_str()))
                    .map(|n| format!("; did you mean {n}?"))
                    .unwrap_or_default();
                a.err(f.line, f.col, format!("unknown label '{}'{hint}", f.name));
            }
        }
    }
    // Branch and SSY targets inside the program (a target past the last
    // instruction would run off the end at run time).
    let n = a.code.len();
    for (pc, ln, col) in std::mem::take(&mut a.target_uses) {
        let t = a.code[pc].target();
        if t as usize >= n {
            let op = a.code[pc].op;
            a.err(
                ln,
                col,
                format!(
                    "{op} target {t} is outside the program (instructions 0..={})",
                    n.saturating_sub(1)
                ),
            );
        }
    }
    // Registers against .regs.
    match a.regs {
        None if !a.regs_seen => a.err(1, 1, "missing .regs directive (registers per thread, 1..=128)"),
        None => {}
        Some((regs, rl)) => {
            let uses = std::mem::take(&mut a.reg_uses);
            for (ln, op, u) in uses {
                if u.r == RZ {
                    continue;
                }
                let top = u.r as u32 + u.pair as u32;
                if top >= regs {
                    let what = if u.pair {
                        format!("register pair R{}:R{}", u.r, u.r + 1)
                    } else {
                        format!("R{}", u.r)
                    };
                    a.err(
                        ln,
                        u.col,
                        format!("{op} uses {what} but .regs {regs} (line {rl}) allows R0-R{}", regs - 1),
                    );
                }
            }
        }
    }
    if !a.errors.is_empty() {
        let mut e = a.errors;
        e.sort_by_key(|e| (e.line, e.col));
        return Err(e);
    }
    let name = match a.name {
        Some((n, _)) => n,
        None => default_name(file),
    };
    Ok(Program {
        name,
        regs: a.regs.map_or(0, |r| r.0),
        shared_bytes: a.shared.map_or(0, |s| s.0),
        params: a.params,
        code: a.code,
        src_lines: a.lines,
    })
}

/// The kernel name when there is no `.kernel`: the file stem, made an
/// identifier.
fn default_name(file: &str) -> String {
    let stem = std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut n: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect();
    if !n.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        n.insert(0, '_');
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asm(s: &str) -> Program {
        assemble(s, "t.s").unwrap_or_else(|e| panic!("{}", e.render(s)))
    }

    fn err(s: &str) -> AsmError {
        assemble(s, "t.s").expect_err("expected an error")
    }

    #[test]
    fn simple_kernel() {
        let p =
            asm(".regs 4\n.param n\nloop: IADD R1, R1, 1\n ISETP.LT P0, R1, 10\n @P0 BRA loop\n LDC R2, c[n]\n EXIT\n");
        assert_eq!(p.name, "t");
        assert_eq!(p.regs, 4);
        assert_eq!(p.code.len(), 5);
        assert_eq!(p.code[2].target(), 0);
        assert_eq!(p.code[2].guard, Guard { pred: 0, neg: false });
        assert_eq!(p.code[0].b, Src::Imm(1));
        assert_eq!(p.code[3].a, RZ);
        assert_eq!(p.code[3].e, 0);
        assert_eq!(p.src_lines, vec![3, 4, 5, 6, 7]);
    }

    #[test]
    fn float_and_negation() {
        let p = asm(".regs 8\nFADD.RZ R1, -R2, 1.5\nFFMA R1, -R2, R3, -R4\nFMUL R1, R2, -0x3f800000\nFMIN R1, R2, -0x3f800000\n");
        assert_eq!(p.code[0].b, Src::Imm(0x3fc0_0000));
        assert_eq!(p.code[0].m, 1 | 4);
        assert_eq!(p.code[1].m, 4 | 8);
        assert_eq!(p.code[2].b, Src::Imm(0x3f80_0000));
        assert_eq!(p.code[2].m, 8);
        assert_eq!(p.code[3].b, Src::Imm(0xbf80_0000));
        assert_eq!(format_instr(&p.code[1], None), "FFMA R1, -R2, R3, -R4");
        assert_eq!(format_instr(&p.code[2], None), "FMUL R1, R2, -0x3f800000");
    }

    #[test]
    fn modifiers_print_canonically() {
        let p = asm(".regs 8\nisetp.ge.u32 p1, r1, r2\nIMUL.HI.U32 R1, R2, R3\nI2F.RZ.U32 R1, R2\nLDG.64 R2, [R4-8]\nATOMS.CAS R1, [R2+0x10], R3, R4\n");
        let t: Vec<String> = p.code.iter().map(|i| format_instr(i, None)).collect();
        assert_eq!(
            t,
            [
                "ISETP.GE.U32 P1, R1, R2",
                "IMUL.HI.U32 R1, R2, R3",
                "I2F.RZ.U32 R1, R2",
                "LDG.64 R2, [R4-0x8]",
                "ATOMS.CAS R1, [R2+0x10], R3, R4"
            ]
        );
    }

    #[test]
    fn binary_round_trip_and_errors() {
        let p = asm(".kernel k\n.regs 8\n.shared 64\n.param a\n.param b\nMOV R1, 0x12345678\nEXIT\n");
        let b = p.to_bytes();
        let q = Program::from_bytes(&b).unwrap();
        assert_eq!(q.code, p.code);
        assert_eq!((q.name.as_str(), q.regs, q.shared_bytes), ("k", 8, 64));
        assert_eq!(q.params, ["a", "b"]);
        assert_eq!(Program::from_bytes(b"NOTSMRTL"), Err(BinError::BadMagic));
        assert!(matches!(
            Program::from_bytes(&b[..b.len() - 3]),
            Err(BinError::Truncated {
                what: "instructions",
                ..
            })
        ));
        let mut bad = b.clone();
        let n = bad.len();
        bad[n - 1] = 0x7f << 1; // opcode 0x7f: GPU-CC reserved
        assert!(matches!(
            Program::from_bytes(&bad),
            Err(BinError::Word {
                index: 1,
                err: IsaError::ReservedGpucc(0x7f),
                ..
            })
        ));
        let mut extra = b.clone();
        extra.push(0);
        assert_eq!(Program::from_bytes(&extra), Err(BinError::Trailing(1)));
    }

    #[test]
    fn error_positions() {
        let e = err(".regs 4\n  FADX R1, R2, R3\n");
        assert_eq!((e.line, e.col), (2, 3));
        assert!(e.msg.contains("did you mean FADD"), "{}", e.msg);
        assert_eq!(e.to_string(), format!("t.s:2:3: {}", e.msg));
        assert!(e
            .render(".regs 4\n  FADX R1, R2, R3\n")
            .ends_with("\n  FADX R1, R2, R3\n  ^"));
    }
}
