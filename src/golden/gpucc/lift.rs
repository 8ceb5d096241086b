//! From a standard-mode kernel to a GPU-CC kernel (`smrtl gpucc-map
//! KERNEL.s` when KERNEL.s has no `.gpucc` block; docs/gpucc.md section
//! 14): the per-element body of a one-element-per-thread kernel becomes a
//! dataflow graph in the symbolic configuration text of section 13, which
//! [`super::map`] then places and routes.
//!
//! What the lifter reads, instruction by instruction, in program order
//! (a symbolic execution of the one thread that stands for every element):
//!
//! ```text
//!   S2R/IMAD   i = ctaid.x * ntid.x + tid.x        the element index
//!   ISETP.GE P, i, n ; @P EXIT                     the bound: grid n, 1
//!   LDC, MOV, uniform arithmetic, LDG [uniform]    SIMT code before the mode
//!   k*i + base + c (IADD, ISUB, SHL, IMUL, IMAD)   an address stream
//!   LDG [k*i + base + c]                           an LSU load
//!   arithmetic on loaded values                    a core each
//!   STG [k*i + base + c], v                        an LSU store
//!   EXIT                                           the end of the body
//! ```
//!
//! Values that are the same for every element (parameters, constants,
//! arithmetic on them, loads from a uniform address such as filter taps)
//! are computed once in SIMT code before the `.gpucc` block and reach the
//! cores as their immediate (a register); address arithmetic folds into
//! the LSUs' `[i*k + base]`; everything else is a node. A body that needs
//! more than 32 cores or 16 LSUs is cut in program order into several
//! configurations run one after the other; the one value live across a
//! cut goes through the output array (stored at the end of one
//! configuration, loaded at the start of the next: a 32-bit word, so the
//! result stays bit-exact).
//!
//! Refused, with the line: control flow other than the bound (a branch,
//! a guarded instruction, a barrier), instructions a core does not have
//! (SFU, FP64, predicates, shared memory, atomics), an index other than
//! the 1-D `ctaid.x * ntid.x + tid.x`, addresses not affine in it or with
//! a step an LSU cannot scale, and memory dependences the network cannot
//! order (a load of a word a store of the same array writes, unless the
//! store's value depends on that load; two stores that may hit one word).
//! Parameters are taken to point at distinct arrays.

use super::map::{map_source, BlockMap, MapError, MapOptions};
use super::{core_lacks, CORES, LSUS};
use crate::golden::asm::{assemble, format_instr_with, mnemonic_text};
use crate::golden::isa::{Form, ICmp, Instr, Op, Program, Src, Sreg, RZ};
use crate::units::sp::lane::Flavor;
use std::collections::{BTreeSet, HashMap};

/// A standard-mode kernel lifted to a symbolic GPU-CC kernel.
#[derive(Debug, Clone)]
pub struct Lifted {
    /// The symbolic kernel text (input of [`map_source`]).
    pub text: String,
    /// For each line of `text` (index = line - 1), the line of the
    /// standard-mode kernel it comes from (0: none).
    pub lines: Vec<u32>,
    /// Configurations (`.gpucc` blocks) the body was cut into.
    pub blocks: usize,
    /// Nodes of the graph (cores, LSUs), before the cut.
    pub cores: usize,
    pub lsus: usize,
}

/// Map a kernel: a kernel with `.gpucc` blocks goes to [`map_source`]
/// as it is; a standard-mode kernel is lifted first ([`lift`]) and the
/// errors of the mapper name the lines of the standard-mode kernel.
pub fn map_kernel(
    src: &str,
    file: &str,
    opts: &MapOptions,
) -> Result<(String, Vec<BlockMap>, Option<Lifted>), Vec<MapError>> {
    let has_block = src.lines().any(|l| {
        let t = l.trim_start();
        t.len() >= 6 && t[..6].eq_ignore_ascii_case(".gpucc")
    });
    if has_block {
        let (text, maps) = map_source(src, opts)?;
        return Ok((text, maps, None));
    }
    let lifted = lift(src, file)?;
    match map_source(&lifted.text, opts) {
        Ok((mut text, maps)) => {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            Ok((text, maps, Some(lifted)))
        }
        Err(errs) => Err(errs
            .into_iter()
            .map(|e| {
                let orig = lifted.lines.get(e.line.wrapping_sub(1) as usize).copied().unwrap_or(0);
                MapError {
                    line: if orig > 0 { orig } else { e.line },
                    msg: format!("{} (line {} of the lifted kernel)", e.msg, e.line),
                }
            })
            .collect()),
    }
}

/// A value a register holds while the body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Val {
    /// Never written.
    Unset,
    Special(Sreg),
    /// The threads of the grid, `nctaid.x * ntid.x`: a grid-stride
    /// loop's step.
    Stride,
    /// The element index advanced by [`Val::Stride`] (the next element of
    /// a grid-stride loop).
    Next,
    /// The same for every element, in this register of the output kernel.
    Uni(u8),
    Imm(u32),
    /// `k * i + base + c` (bytes): an address or the index itself.
    Lin {
        k: u32,
        base: Option<u8>,
        c: i64,
    },
    /// A per-element value: the result of node `n`.
    Node(usize),
}

const INDEX: Val = Val::Lin { k: 1, base: None, c: 0 };

#[derive(Debug, Clone)]
enum Opnd {
    Node(usize, bool),
    Text(String),
}

#[derive(Debug, Clone)]
enum Kind {
    Core { mnemonic: String, ops: Vec<Opnd> },
    Load { scale: u32, base: u8 },
    Store { scale: u32, base: u8, val: usize },
}

#[derive(Debug, Clone)]
struct Node {
    line: u32,
    text: String,
    kind: Kind,
}

impl Node {
    fn deps(&self) -> Vec<usize> {
        match &self.kind {
            Kind::Core { ops, .. } => ops
                .iter()
                .filter_map(|o| match o {
                    Opnd::Node(n, _) => Some(*n),
                    Opnd::Text(_) => None,
                })
                .collect(),
            Kind::Load { .. } => vec![],
            Kind::Store { val, .. } => vec![*val],
        }
    }
    fn is_core(&self) -> bool {
        matches!(self.kind, Kind::Core { .. })
    }
}

/// A global-memory access of the body, for the dependence check.
#[derive(Debug, Clone)]
struct Access {
    line: u32,
    text: String,
    store: bool,
    /// The node (None: a uniform load done before the mode).
    node: Option<usize>,
    /// The parameter the address is based on, its stride and offset.
    origin: Option<usize>,
    k: u32,
    off: i64,
}

/// What a uniform register of the output holds: parameter `origin` plus
/// `off`, when it is known to be so.
#[derive(Debug, Clone, Copy, Default)]
struct UInfo {
    origin: Option<usize>,
    off: i64,
}

struct Lifter {
    pro: Vec<(String, u32)>,
    uinfo: Vec<UInfo>,
    nodes: Vec<Node>,
    acc: Vec<Access>,
    line: u32,
    text: String,
}

type LResult<T> = Result<T, MapError>;

fn imm_text(v: u32) -> String {
    if v == 0 {
        "0".into()
    } else if v < 10 {
        v.to_string()
    } else {
        format!("0x{v:x}")
    }
}

impl Lifter {
    fn err<T>(&self, msg: impl Into<String>) -> LResult<T> {
        Err(MapError {
            line: self.line,
            msg: format!("{}: {}", self.text, msg.into()),
        })
    }

    /// A new register of the output kernel, holding `info`.
    fn fresh(&mut self, info: UInfo) -> LResult<u8> {
        let r = self.uinfo.len() + 1;
        if r >= 128 {
            return self.err("more than 127 values common to all elements: no registers left for them");
        }
        self.uinfo.push(info);
        Ok(r as u8)
    }

    fn emit(&mut self, s: String) {
        self.pro.push((s, self.line));
    }

    fn info(&self, r: u8) -> UInfo {
        self.uinfo.get(r as usize - 1).copied().unwrap_or_default()
    }

    /// A register holding `base + c` (`base` None: 0).
    fn materialize(&mut self, base: Option<u8>, c: i64) -> LResult<u8> {
        let cw = c as i32 as u32;
        match base {
            Some(b) if c == 0 => Ok(b),
            Some(b) => {
                let i = self.info(b);
                let r = self.fresh(UInfo {
                    origin: i.origin,
                    off: i.off + c,
                })?;
                self.emit(format!("IADD R{r}, R{b}, 0x{cw:x}"));
                Ok(r)
            }
            None => {
                let r = self.fresh(UInfo::default())?;
                self.emit(format!("MOV R{r}, 0x{cw:x}"));
                Ok(r)
            }
        }
    }

    fn as_lin(v: Val) -> Option<(u32, Option<u8>, i64)> {
        match v {
            Val::Imm(x) => Some((0, None, x as i32 as i64)),
            Val::Uni(r) => Some((0, Some(r), 0)),
            Val::Lin { k, base, c } => Some((k, base, c)),
            _ => None,
        }
    }

    /// `k*i + base + c` as a value: uniform when `k` is 0.
    fn mk_lin(&mut self, k: u32, base: Option<u8>, c: i64) -> LResult<Val> {
        if k != 0 {
            return Ok(Val::Lin { k, base, c });
        }
        match (base, c) {
            (None, c) => Ok(Val::Imm(c as i32 as u32)),
            (Some(b), c) => Ok(Val::Uni(self.materialize(Some(b), c)?)),
        }
    }

    fn add(&mut self, x: Val, y: Val, neg_y: bool) -> LResult<Option<Val>> {
        let (Some((k1, b1, c1)), Some((k2, b2, c2))) = (Self::as_lin(x), Self::as_lin(y)) else {
            return Ok(None);
        };
        if neg_y && (b2.is_some() || k2 != 0) {
            return Ok(None);
        }
        let (k2, c2) = if neg_y { (0, -c2) } else { (k2, c2) };
        let base = match (b1, b2) {
            (Some(a), Some(b)) => {
                let r = self.fresh(UInfo::default())?;
                self.emit(format!("IADD R{r}, R{a}, R{b}"));
                Some(r)
            }
            (a, b) => a.or(b),
        };
        Ok(Some(self.mk_lin(k1.wrapping_add(k2), base, c1 + c2)?))
    }

    fn scale(&mut self, x: Val, m: u32) -> LResult<Option<Val>> {
        let Some((k, b, c)) = Self::as_lin(x) else {
            return Ok(None);
        };
        let base = match b {
            Some(b) => {
                let r = self.fresh(UInfo::default())?;
                self.emit(format!("IMUL R{r}, R{b}, 0x{m:x}"));
                Some(r)
            }
            None => None,
        };
        Ok(Some(self.mk_lin(k.wrapping_mul(m), base, c.wrapping_mul(m as i64))?))
    }
}

/// The sources an instruction reads, as (register or immediate, negated).
fn sources(i: &Instr) -> Vec<(Src, bool)> {
    let b_neg = matches!(i.info().form, Form::DAB) && negatable(i.op) && i.neg_bc();
    let a_neg = negatable(i.op) && i.neg_a();
    match i.info().form {
        Form::DA => vec![(Src::Reg(i.a), false)],
        Form::DB => vec![(i.b, false)],
        Form::DAB => vec![(Src::Reg(i.a), a_neg), (i.b, b_neg)],
        Form::DABC => vec![
            (Src::Reg(i.a), a_neg),
            (i.b, false),
            (Src::Reg(i.c), negatable(i.op) && i.neg_bc()),
        ],
        Form::DABCI => vec![(Src::Reg(i.a), false), (i.b, false), (Src::Reg(i.addend()), false)],
        _ => vec![],
    }
}

fn negatable(op: Op) -> bool {
    super::negatable_slot(op, 0).is_some()
}

/// Lift standard-mode kernel `src` (file name `file`, for messages) to a
/// symbolic GPU-CC kernel.
pub fn lift(src: &str, file: &str) -> Result<Lifted, Vec<MapError>> {
    let prog = assemble(src, file).map_err(|e| {
        vec![MapError {
            line: e.line,
            msg: e.msg.clone(),
        }]
    })?;
    lift_program(&prog, src).map_err(|e| vec![e])
}

fn lift_program(prog: &Program, src: &str) -> LResult<Lifted> {
    let src_lines: Vec<&str> = src.lines().collect();
    let mut l = Lifter {
        pro: vec![],
        uinfo: vec![],
        nodes: vec![],
        acc: vec![],
        line: 0,
        text: String::new(),
    };
    let mut vals = [Val::Unset; 256];
    vals[RZ as usize] = Val::Imm(0);
    // Compare, its operands, its pc and its first register.
    let mut preds: HashMap<u8, (ICmp, Val, Val, usize, u8)> = HashMap::new();
    let mut bound_at: Option<(usize, u8)> = None;
    let mut bound: Option<u8> = None;
    let mut ended = false;
    for (pc, ins) in prog.code.iter().enumerate() {
        l.line = prog.src_lines.get(pc).copied().unwrap_or(0);
        l.text = format_instr_with(ins, None, &prog.params);
        let val = |r: u8| vals[r as usize];
        let src_val = |s: Src| match s {
            Src::Reg(r) => vals[r as usize],
            Src::Imm(v) => Val::Imm(v),
        };
        if ins.guard != crate::golden::isa::Guard::ALWAYS {
            let p = preds.get(&ins.guard.pred).copied();
            let is_bound = ins.op == Op::Exit
                && match p {
                    Some((ICmp::Ge, a, Val::Uni(_), ..)) => a == INDEX && !ins.guard.neg,
                    Some((ICmp::Lt, a, Val::Uni(_), ..)) => a == INDEX && ins.guard.neg,
                    _ => false,
                };
            if !is_bound {
                return l.err(
                    "divergent control flow: a guarded instruction other than the bound \
                     (`ISETP.GE P, i, n` then `@P EXIT`); GPU-CC runs every element through one network",
                );
            }
            if bound.is_some() {
                return l.err("a second bound on the element index");
            }
            if !l.nodes.is_empty() {
                return l.err("the bound must come before the first load, store or per-element operation");
            }
            let Some((_, _, Val::Uni(n), at, reg)) = p else {
                unreachable!()
            };
            bound = Some(n);
            bound_at = Some((at, reg));
            continue;
        }
        let op = ins.op;
        match op {
            Op::Nop => continue,
            Op::Exit => {
                ended = true;
                break;
            }
            Op::Bra if ins.target() as usize <= pc => {
                // A grid-stride loop: `i += nctaid.x * ntid.x` and back to
                // the bound.
                let Some((at, ireg)) = bound_at else {
                    return l.err("a loop without the bound `ISETP.GE P, i, n` / `@P EXIT` at its head");
                };
                let head = ins.target() as usize;
                if head > at {
                    return l.err(format!(
                        "the loop goes back to line {}, after the bound at line {}: the bound must be at its head",
                        prog.src_lines.get(head).copied().unwrap_or(0),
                        prog.src_lines.get(at).copied().unwrap_or(0)
                    ));
                }
                if vals[ireg as usize] != Val::Next {
                    return l.err(format!(
                        "the loop does not step the element index R{ireg} by the grid's threads \
                         (`IADD R{ireg}, R{ireg}, T` with T = nctaid.x * ntid.x)"
                    ));
                }
                if let Some((r, w, u)) = carried(prog, head, pc, ireg) {
                    l.line = u;
                    l.text = src_lines
                        .get((u as usize).wrapping_sub(1))
                        .map(|t| t.split(';').next().unwrap_or("").trim().to_string())
                        .unwrap_or_default();
                    return l.err(format!(
                        "R{r} is carried from one element to the next (written at line {w}, read at line {u} \
                         before that in the loop): a GPU-CC network has no path back from a later element to an earlier one"
                    ));
                }
                ended = true;
                break;
            }
            Op::Bra | Op::Ssy | Op::Sync => {
                return l.err(
                    "divergent control flow (a branch): the lifter takes straight-line bodies, one element per thread",
                )
            }
            Op::Bar | Op::Membar => {
                return l.err("a barrier or fence has no meaning between the elements of a GPU-CC network")
            }
            Op::Lds | Op::Sts | Op::Atoms => {
                return l.err("shared memory: GPU-CC cores and LSUs reach global memory only")
            }
            Op::Atomg => return l.err("an atomic: GPU-CC LSUs load and store 32-bit words only"),
            Op::Gcset | Op::Gcrun => {
                return l.err("already a GPU-CC kernel (write its `.gpucc` block with symbolic names instead)")
            }
            Op::S2r => {
                let s = ins.sreg();
                if !matches!(s, Sreg::TidX | Sreg::CtaidX | Sreg::NtidX | Sreg::NctaidX) {
                    return l.err(format!(
                        "{}: the lifter takes 1-D kernels whose element index is ctaid.x * ntid.x + tid.x",
                        s.name()
                    ));
                }
                vals[ins.d as usize] = Val::Special(s);
                continue;
            }
            Op::Ldc => {
                if ins.a != RZ {
                    return l.err("a parameter read at a register offset");
                }
                let r = l.fresh(UInfo {
                    origin: Some(ins.e as usize),
                    off: 0,
                })?;
                let name = prog
                    .params
                    .get(ins.e as usize)
                    .cloned()
                    .unwrap_or_else(|| ins.e.to_string());
                l.emit(format!("LDC R{r}, c[{name}]"));
                vals[ins.d as usize] = Val::Uni(r);
                continue;
            }
            Op::Isetp => {
                preds.insert(ins.d, (ins.icmp(), val(ins.a), src_val(ins.b), pc, ins.a));
                continue;
            }
            Op::Mov => {
                vals[ins.d as usize] = src_val(ins.b);
                continue;
            }
            Op::Ldg | Op::Stg => {
                if ins.wide() {
                    return l.err("a 64-bit access: GPU-CC LSUs move 32-bit words");
                }
                let addr = l.add(val(ins.a), Val::Imm(ins.offset() as u32), false)?;
                let Some(addr) = addr else {
                    return l.err(format!(
                        "the address R{} is not of the form k * i + base + c (i the element index)",
                        ins.a
                    ));
                };
                if op == Op::Ldg {
                    match addr {
                        Val::Uni(_) | Val::Imm(_) => {
                            // The same word for every element: loaded once
                            // before the mode.
                            let r = match addr {
                                Val::Uni(r) => r,
                                Val::Imm(a) => l.materialize(None, a as i32 as i64)?,
                                _ => unreachable!(),
                            };
                            let i = l.info(r);
                            let d = l.fresh(UInfo::default())?;
                            l.emit(format!("LDG R{d}, [R{r}]"));
                            l.acc.push(Access {
                                line: l.line,
                                text: l.text.clone(),
                                store: false,
                                node: None,
                                origin: i.origin,
                                k: 0,
                                off: i.off,
                            });
                            vals[ins.d as usize] = Val::Uni(d);
                        }
                        Val::Lin { k, base, c } => {
                            let (scale, base, info) = lsu_address(&mut l, k, base, c)?;
                            let n = l.nodes.len();
                            l.nodes.push(Node {
                                line: l.line,
                                text: l.text.clone(),
                                kind: Kind::Load { scale, base },
                            });
                            l.acc.push(Access {
                                line: l.line,
                                text: l.text.clone(),
                                store: false,
                                node: Some(n),
                                origin: info.origin,
                                k,
                                off: info.off,
                            });
                            vals[ins.d as usize] = Val::Node(n);
                        }
                        _ => unreachable!(),
                    }
                } else {
                    let Val::Lin { k, base, c } = addr else {
                        return l
                            .err("every element stores to the same address: a store must depend on the element index");
                    };
                    let v = match src_val(ins.b) {
                        Val::Node(n) => n,
                        Val::Lin {
                            k: 1,
                            base: None,
                            c: cx,
                        } if (-128..=127).contains(&cx) => {
                            let n = l.nodes.len();
                            l.nodes.push(Node {
                                line: l.line,
                                text: l.text.clone(),
                                kind: Kind::Core {
                                    mnemonic: "IADD".into(),
                                    ops: vec![Opnd::Text(counter_text(cx)), Opnd::Text("0".into())],
                                },
                            });
                            n
                        }
                        Val::Unset => return l.err(format!("stores R{}, which is never written", reg_of(ins.b))),
                        _ => {
                            return l.err(
                                "stores a value that is the same for every element (a GPU-CC store takes a value from a core or an LSU)",
                            )
                        }
                    };
                    let (scale, base, info) = lsu_address(&mut l, k, base, c)?;
                    let n = l.nodes.len();
                    l.nodes.push(Node {
                        line: l.line,
                        text: l.text.clone(),
                        kind: Kind::Store { scale, base, val: v },
                    });
                    l.acc.push(Access {
                        line: l.line,
                        text: l.text.clone(),
                        store: true,
                        node: Some(n),
                        origin: info.origin,
                        k,
                        off: info.off,
                    });
                }
                continue;
            }
            _ => {}
        }
        // Arithmetic.
        let srcs = sources(ins);
        if !matches!(
            ins.info().form,
            Form::DA | Form::DB | Form::DAB | Form::DABC | Form::DABCI
        ) {
            if let Some(why) = core_lacks(op, Flavor::Ieee) {
                return l.err(why);
            }
            return l.err("an instruction the lifter does not take");
        }
        let sv: Vec<(Val, bool)> = srcs.iter().map(|&(s, n)| (src_val(s), n)).collect();
        if let Some(k) = sv.iter().position(|(v, _)| *v == Val::Unset) {
            return l.err(format!("reads R{}, which is never written", reg_of(srcs[k].0)));
        }
        let any_node = sv.iter().any(|(v, _)| matches!(v, Val::Node(_)));
        let any_elem = sv.iter().any(|(v, _)| matches!(v, Val::Lin { .. } | Val::Special(_)));
        // 1. The element index from the special registers.
        if op == Op::Imad {
            let sp: Vec<Option<Sreg>> = sv
                .iter()
                .map(|(v, _)| match v {
                    Val::Special(s) => Some(*s),
                    _ => None,
                })
                .collect();
            if matches!(
                (sp[0], sp[1], sp[2]),
                (Some(Sreg::CtaidX), Some(Sreg::NtidX), Some(Sreg::TidX))
                    | (Some(Sreg::NtidX), Some(Sreg::CtaidX), Some(Sreg::TidX))
            ) && ins.m == 0
            {
                vals[ins.d as usize] = INDEX;
                continue;
            }
        }
        // 1b. The grid-stride loop's step and the next element.
        if op == Op::Imul && ins.m == 0 {
            if let [(Val::Special(a), false), (Val::Special(b), false)] = sv.as_slice() {
                if matches!((a, b), (Sreg::NctaidX, Sreg::NtidX) | (Sreg::NtidX, Sreg::NctaidX)) {
                    vals[ins.d as usize] = Val::Stride;
                    continue;
                }
            }
        }
        if op == Op::Iadd {
            if let [(x, false), (y, false)] = sv.as_slice() {
                if (*x == INDEX && *y == Val::Stride) || (*x == Val::Stride && *y == INDEX) {
                    vals[ins.d as usize] = Val::Next;
                    continue;
                }
            }
        }
        if sv.iter().any(|(v, _)| matches!(v, Val::Stride | Val::Next)) {
            return l.err(
                "uses the grid's thread count or the next element's index other than to step a grid-stride loop \
                 (`IADD i, i, T` then `BRA` back to the bound)",
            );
        }
        if sv.iter().any(|(v, _)| matches!(v, Val::Special(_))) {
            return l.err("the lifter takes 1-D kernels whose element index is ctaid.x * ntid.x + tid.x (one IMAD)");
        }
        // 2. Uniform arithmetic: done once before the mode.
        if !any_node && !any_elem {
            let mut j = *ins;
            let mut regs: Vec<u8> = vec![];
            for (s, _) in &srcs {
                regs.push(match s {
                    Src::Reg(r) => match vals[*r as usize] {
                        Val::Uni(u) => u,
                        Val::Imm(0) if *r == RZ => RZ,
                        Val::Imm(x) => l.materialize(None, x as i32 as i64)?,
                        _ => unreachable!(),
                    },
                    Src::Imm(_) => 0,
                });
            }
            let d = l.fresh(UInfo::default())?;
            let form = ins.info().form;
            match form {
                Form::DA => j.a = regs[0],
                Form::DB => {}
                Form::DAB => j.a = regs[0],
                Form::DABC => {
                    j.a = regs[0];
                    j.c = regs[2];
                }
                Form::DABCI => {
                    j.a = regs[0];
                    if let Src::Imm(_) = ins.b {
                        // The addend is d itself.
                        l.emit(format!("MOV R{d}, R{}", regs[2]));
                    } else {
                        j.c = regs[2];
                    }
                }
                _ => unreachable!(),
            }
            if let Src::Reg(_) = ins.b {
                let k = if form == Form::DB { 0 } else { 1 };
                j.b = Src::Reg(regs[k]);
            }
            j.d = d;
            // Keep the arithmetic of the original (same opcode and modifier).
            l.emit(format_instr_with(&j, None, &prog.params));
            vals[ins.d as usize] = Val::Uni(d);
            continue;
        }
        // 3. Address arithmetic: affine in the element index.
        if !any_node {
            let lin = match (op, sv.as_slice()) {
                (Op::Iadd, [(x, false), (y, false)]) => l.add(*x, *y, false)?,
                (Op::Isub, [(x, false), (y @ Val::Imm(_), false)]) => l.add(*x, *y, true)?,
                (Op::Shl, [(x, false), (Val::Imm(s), false)]) if *s < 32 => l.scale(*x, 1u32 << s)?,
                (Op::Imul, [(x, false), (Val::Imm(m), false)]) if ins.m == 0 => l.scale(*x, *m)?,
                (Op::Imul, [(Val::Imm(m), false), (x, false)]) if ins.m == 0 => l.scale(*x, *m)?,
                (Op::Imad, [(x, _), (Val::Imm(m), _), (z, _)]) if ins.m == 0 => match l.scale(*x, *m)? {
                    Some(p) => l.add(p, *z, false)?,
                    None => None,
                },
                (Op::Imad, [(Val::Imm(m), _), (x, _), (z, _)]) if ins.m == 0 => match l.scale(*x, *m)? {
                    Some(p) => l.add(p, *z, false)?,
                    None => None,
                },
                _ => None,
            };
            if let Some(v) = lin {
                vals[ins.d as usize] = v;
                continue;
            }
        }
        // 4. A core.
        if let Some(why) = core_lacks(op, Flavor::Ieee) {
            return l.err(why);
        }
        let mut ops = vec![];
        for (v, neg) in &sv {
            let minus = if *neg { "-" } else { "" };
            ops.push(match *v {
                Val::Node(n) => Opnd::Node(n, *neg),
                Val::Uni(r) => Opnd::Text(format!("{minus}R{r}")),
                Val::Imm(x) => Opnd::Text(format!("{minus}{}", imm_text(x))),
                Val::Lin { k: 1, base: None, c } if (-128..=127).contains(&c) && !*neg => Opnd::Text(counter_text(c)),
                Val::Lin { .. } => {
                    return l.err(
                        "computes with an address or a scaled index: a core reads the element index \
                         only as x + c (c in -128..=127)",
                    )
                }
                Val::Special(_) | Val::Unset | Val::Stride | Val::Next => unreachable!(),
            });
        }
        let n = l.nodes.len();
        l.nodes.push(Node {
            line: l.line,
            text: l.text.clone(),
            kind: Kind::Core {
                mnemonic: mnemonic_text(ins),
                ops,
            },
        });
        vals[ins.d as usize] = Val::Node(n);
    }
    l.line = prog.src_lines.last().copied().unwrap_or(0);
    l.text = "the kernel".into();
    if !ended {
        return l.err("the body does not end with an EXIT");
    }
    let Some(n_reg) = bound else {
        return l.err(
            "no bound on the element index: the body must start with `ISETP.GE P, i, n` and `@P EXIT` \
             (n: the number of elements, i = ctaid.x * ntid.x + tid.x)",
        );
    };
    if !l.nodes.iter().any(|n| matches!(n.kind, Kind::Store { .. })) {
        return l.err("the body stores nothing");
    }
    check_memory(&l)?;
    // Nodes no store depends on would be values nobody reads.
    let mut live = vec![false; l.nodes.len()];
    for i in (0..l.nodes.len()).rev() {
        if matches!(l.nodes[i].kind, Kind::Store { .. }) {
            live[i] = true;
        }
        if live[i] {
            for d in l.nodes[i].deps() {
                live[d] = true;
            }
        }
    }
    let keep: Vec<usize> = (0..l.nodes.len()).filter(|&i| live[i]).collect();
    let segs = cut(&l, &keep)?;
    Ok(render(&l, prog, &src_lines, n_reg, &keep, &segs))
}

/// Registers an instruction reads and the one it writes (RZ left out).
fn reads_writes(i: &Instr) -> (Vec<u8>, Option<u8>) {
    let b = match i.b {
        Src::Reg(r) => Some(r),
        Src::Imm(_) => None,
    };
    let (r, w): (Vec<Option<u8>>, bool) = match i.info().form {
        Form::DA => (vec![Some(i.a)], true),
        Form::DB => (vec![b], true),
        Form::DAB | Form::DABP => (vec![Some(i.a), b], true),
        Form::PAB => (vec![Some(i.a), b], false),
        Form::DABC => (vec![Some(i.a), b, Some(i.c)], true),
        Form::DABCI => (vec![Some(i.a), b, Some(i.addend())], true),
        Form::Load => (vec![Some(i.a)], true),
        Form::Store => (vec![Some(i.a), b], false),
        Form::Param => (vec![Some(i.a)], true),
        Form::Sreg => (vec![], true),
        _ => (vec![], false),
    };
    (
        r.into_iter().flatten().filter(|&x| x != RZ).collect(),
        (w && i.d != RZ).then_some(i.d),
    )
}

/// A register other than the index `ireg` that the loop `head..end`
/// reads before writing and also writes: (register, line written, line
/// read).
fn carried(prog: &Program, head: usize, end: usize, ireg: u8) -> Option<(u8, u32, u32)> {
    let line = |pc: usize| prog.src_lines.get(pc).copied().unwrap_or(0);
    let mut written: HashMap<u8, usize> = HashMap::new();
    let mut exposed: HashMap<u8, usize> = HashMap::new();
    for pc in head..end {
        let (r, w) = reads_writes(&prog.code[pc]);
        for x in r {
            if !written.contains_key(&x) {
                exposed.entry(x).or_insert(pc);
            }
        }
        if let Some(d) = w {
            written.entry(d).or_insert(pc);
        }
    }
    let mut v: Vec<(u8, u32, u32)> = exposed
        .iter()
        .filter(|(r, _)| **r != ireg)
        .filter_map(|(r, &u)| written.get(r).map(|&w| (*r, line(w), line(u))))
        .collect();
    v.sort_by_key(|x| x.2);
    v.into_iter().next()
}

fn reg_of(s: Src) -> u8 {
    match s {
        Src::Reg(r) => r,
        Src::Imm(_) => 0,
    }
}

fn counter_text(c: i64) -> String {
    match c {
        0 => "x".into(),
        c if c > 0 => format!("x+{c}"),
        c => format!("x{c}"),
    }
}

/// An LSU's `[i*scale + base]` for `k*i + base + c`.
fn lsu_address(l: &mut Lifter, k: u32, base: Option<u8>, c: i64) -> LResult<(u32, u8, UInfo)> {
    if !matches!(k, 1 | 2 | 4 | 8) {
        return l.err(format!(
            "the address steps by {} bytes per element; an LSU scales the element index by 1, 2, 4 or 8",
            k as i32
        ));
    }
    let r = l.materialize(base, c)?;
    Ok((k, r, l.info(r)))
}

/// Memory dependences the network cannot order (module doc).
fn check_memory(l: &Lifter) -> LResult<()> {
    let anc = |s: usize| -> BTreeSet<usize> {
        let mut seen = BTreeSet::new();
        let mut st = vec![s];
        while let Some(n) = st.pop() {
            for d in l.nodes[n].deps() {
                if seen.insert(d) {
                    st.push(d);
                }
            }
        }
        seen
    };
    let same_array = |a: &Access, b: &Access| match (a.origin, b.origin) {
        (Some(x), Some(y)) => x == y,
        // An address not traced to a parameter: assume it may alias.
        _ => true,
    };
    // Two streams k*i + a and k*j + b hit a common word for some i != j
    // unless they step alike and stay 4 bytes apart modulo the step.
    let disjoint_streams = |a: &Access, b: &Access| {
        a.k == b.k && a.k >= 8 && {
            let d = (b.off - a.off).rem_euclid(a.k as i64);
            (4..=a.k as i64 - 4).contains(&d)
        }
    };
    let bad = |a: &Access, msg: String| -> LResult<()> {
        Err(MapError {
            line: a.line,
            msg: format!("{}: {msg}", a.text),
        })
    };
    for s in l.acc.iter().filter(|a| a.store) {
        for o in l.acc.iter().filter(|o| !std::ptr::eq(*o, s)) {
            if !same_array(s, o) {
                continue;
            }
            if o.store {
                if o.line < s.line && !disjoint_streams(o, s) {
                    return bad(
                        s,
                        format!(
                            "two stores to the same array (this one and line {}, `{}`) may write one word; \
                             the network does not order stores of different LSUs",
                            o.line, o.text
                        ),
                    );
                }
                continue;
            }
            let Some(on) = o.node else {
                return bad(
                    o,
                    format!(
                        "a load the same for every element reads an array that line {} (`{}`) stores to; \
                         it is done once before the mode and would not see the stores",
                        s.line, s.text
                    ),
                );
            };
            let same_word = o.k == s.k && o.off == s.off;
            let sn = s.node.expect("stores are nodes");
            if same_word && anc(sn).contains(&on) {
                continue; // the store waits for the load's value
            }
            let why = if same_word {
                "reads the word the store writes, but the stored value does not depend on the load"
            } else if disjoint_streams(o, s) {
                continue;
            } else {
                "reads words the store writes for other elements"
            };
            return bad(
                o,
                format!(
                    "a memory dependence the network cannot order: this load {why} (line {}, `{}`); \
                     LSUs run their streams independently",
                    s.line, s.text
                ),
            );
        }
    }
    Ok(())
}

/// Cut the live nodes (`keep`, in program order) into configurations:
/// ranges `[s, e)` of `keep`.
fn cut(l: &Lifter, keep: &[usize]) -> LResult<Vec<(usize, usize)>> {
    let nodes = &l.nodes;
    let count = |s: usize, e: usize| {
        let c = keep[s..e].iter().filter(|&&n| nodes[n].is_core()).count();
        (c, e - s - c)
    };
    // Every LSU reads the element index from the index core, which sits
    // downstream of lsu0 (position 0): lsu0 is never usable here.
    let lsus = LSUS - 1;
    let (c_all, m_all) = count(0, keep.len());
    if c_all < CORES && m_all <= lsus {
        return Ok(vec![(0, keep.len())]);
    }
    let too_many = format!(
        "{c_all} operations and {m_all} loads and stores (with the index core: {} cores of {CORES}, \
         {m_all} LSUs of the {lsus} behind it)",
        c_all + 1
    );
    let stores: Vec<usize> = keep
        .iter()
        .copied()
        .filter(|&n| matches!(nodes[n].kind, Kind::Store { .. }))
        .collect();
    let fail = |why: String| -> LResult<Vec<(usize, usize)>> {
        Err(MapError {
            line: nodes[keep[0]].line,
            msg: format!("the body needs {too_many} and cannot be cut into configurations: {why}"),
        })
    };
    if stores.len() != 1 {
        return fail(format!(
            "a cut passes its live value through the output array, and the body has {} stores",
            stores.len()
        ));
    }
    // The values defined before position p of keep and read at or after it.
    let pos: HashMap<usize, usize> = keep.iter().enumerate().map(|(p, &n)| (n, p)).collect();
    let mut last_use = vec![0usize; keep.len()];
    for (p, &n) in keep.iter().enumerate() {
        for d in nodes[n].deps() {
            let dp = pos[&d];
            last_use[dp] = last_use[dp].max(p);
        }
    }
    let crossing = |p: usize| -> Vec<usize> { (0..p).filter(|&q| last_use[q] >= p).collect() };
    let mut segs = vec![];
    let mut s = 0;
    while s < keep.len() {
        let xin = crossing(s);
        let mut best = None;
        for e in s + 1..=keep.len() {
            let xout = crossing(e);
            if xout.len() > 1 {
                continue;
            }
            let (c, m) = count(s, e);
            let reload = xin
                .iter()
                .any(|&q| keep[s..e].iter().any(|&n| nodes[n].deps().contains(&keep[q])));
            let spill = xout.iter().any(|&q| q >= s);
            let m = m + reload as usize + spill as usize;
            // `c + 1`: the index core.
            if c < CORES && m <= lsus {
                best = Some(e);
            }
        }
        let Some(e) = best else {
            let (c, m) = count(s, keep.len());
            return fail(format!(
                "from line {} on, no cut leaves at most one value live with at most {CORES} cores and {lsus} LSUs \
                 ({c} operations, {m} loads and stores left)",
                nodes[keep[s]].line
            ));
        };
        segs.push((s, e));
        s = e;
    }
    let last = segs.last().expect("one at least").0;
    if pos[&stores[0]] < last {
        return fail("the store is not in the last configuration".into());
    }
    Ok(segs)
}

fn render(
    l: &Lifter,
    prog: &Program,
    src_lines: &[&str],
    n_reg: u8,
    keep: &[usize],
    segs: &[(usize, usize)],
) -> Lifted {
    let nodes = &l.nodes;
    let mut text = String::new();
    let mut lines: Vec<u32> = vec![];
    let mut put = |s: String, line: u32, text: &mut String| {
        text.push_str(&s);
        text.push('\n');
        lines.push(line);
    };
    // `v<line>`, with a suffix when one line gives two nodes.
    let mut per_line: HashMap<u32, usize> = HashMap::new();
    let names: Vec<String> = nodes
        .iter()
        .map(|nd| {
            let k = per_line.entry(nd.line).or_insert(0);
            *k += 1;
            if *k == 1 {
                format!("v{}", nd.line)
            } else {
                format!("v{}_{}", nd.line, k)
            }
        })
        .collect();
    let name = |n: usize| -> String { names[n].clone() };
    let (c_all, m_all) = (
        keep.iter().filter(|&&n| nodes[n].is_core()).count(),
        keep.iter().filter(|&&n| !nodes[n].is_core()).count(),
    );
    put(
        format!(
            "; {}_gpucc: kernel {} lifted to GPU-CC mode by smrtl gpucc-map (docs/gpucc.md section 14):",
            prog.name, prog.name
        ),
        0,
        &mut text,
    );
    put(
        format!(
            "; {c_all} operations and {m_all} loads and stores, in {} configuration(s); \
             run with --config gpucc --grid 1 --block 32 and the same parameters.",
            segs.len()
        ),
        0,
        &mut text,
    );
    put(format!(".kernel {}_gpucc", prog.name), 0, &mut text);
    put(format!(".regs {}", (l.uinfo.len() + 1).max(2)), 0, &mut text);
    for p in &prog.params {
        put(format!(".param {p}"), 0, &mut text);
    }
    for (s, line) in &l.pro {
        let orig = src_lines
            .get((*line as usize).wrapping_sub(1))
            .map(|t| t.trim())
            .unwrap_or("");
        let orig = orig.split(';').next().unwrap_or("").trim();
        put(format!("        {:<30}; line {line}: {orig}", s), *line, &mut text);
    }
    let pos: HashMap<usize, usize> = keep.iter().enumerate().map(|(p, &n)| (n, p)).collect();
    let store = keep
        .iter()
        .copied()
        .find(|&n| matches!(nodes[n].kind, Kind::Store { .. }))
        .expect("checked");
    let slot = match nodes[store].kind {
        Kind::Store { scale, base, .. } => (scale, base),
        _ => unreachable!(),
    };
    for (si, &(s, e)) in segs.iter().enumerate() {
        put(".gpucc".into(), 0, &mut text);
        put(format!("        grid R{n_reg}, 1"), 0, &mut text);
        put(
            format!("{:<8}{:<30}; the element index", "i", "IADD x, 0"),
            0,
            &mut text,
        );
        let in_seg = |n: usize| pos.get(&n).is_some_and(|&p| (s..e).contains(&p));
        // The value coming from the previous configuration.
        let mut reload: Option<usize> = None;
        for &n in &keep[s..e] {
            for d in nodes[n].deps() {
                if !in_seg(d) {
                    reload = Some(d);
                }
            }
        }
        let oname = |n: usize| -> String {
            if in_seg(n) {
                name(n)
            } else {
                format!("{}_in", name(n))
            }
        };
        if let Some(r) = reload {
            put(
                format!(
                    "{:<8}{:<30}; line {}'s value from configuration {si}",
                    oname(r),
                    format!("LDG [i*{} + R{}]", slot.0, slot.1),
                    nodes[r].line
                ),
                nodes[r].line,
                &mut text,
            );
        }
        for &n in &keep[s..e] {
            let nd = &nodes[n];
            let body = match &nd.kind {
                Kind::Core { mnemonic, ops } => {
                    let ops: Vec<String> = ops
                        .iter()
                        .map(|o| match o {
                            Opnd::Node(m, neg) => format!("{}{}", if *neg { "-" } else { "" }, oname(*m)),
                            Opnd::Text(t) => t.clone(),
                        })
                        .collect();
                    format!("{mnemonic} {}", ops.join(", "))
                }
                Kind::Load { scale, base } => format!("LDG [i*{scale} + R{base}]"),
                Kind::Store { scale, base, val } => format!("STG [i*{scale} + R{base}], {}", oname(*val)),
            };
            put(
                format!("{:<8}{:<30}; line {}: {}", name(n), body, nd.line, nd.text),
                nd.line,
                &mut text,
            );
        }
        // The value going to the next configuration.
        if e < keep.len() {
            let out: Vec<usize> = keep[s..e]
                .iter()
                .copied()
                .filter(|&n| keep[e..].iter().any(|&m| nodes[m].deps().contains(&n)))
                .collect();
            if let Some(&v) = out.first() {
                put(
                    format!(
                        "{:<8}{:<30}; line {}'s value to configuration {}, through the output array",
                        format!("{}_out", name(v)),
                        format!("STG [i*{} + R{}], {}", slot.0, slot.1, name(v)),
                        nodes[v].line,
                        si + 2
                    ),
                    nodes[v].line,
                    &mut text,
                );
            }
        }
        put(".endgpucc".into(), 0, &mut text);
    }
    put("        EXIT".into(), 0, &mut text);
    Lifted {
        text,
        lines,
        blocks: segs.len(),
        cores: c_all,
        lsus: m_all,
    }
}
