//! The GPU-CC configuration text: the lines of a `.gpucc` ... `.endgpucc`
//! block of a kernel, assembled to `GCSET` instructions and a closing
//! `GCRUN` (`docs/gpucc.md` gives the format).
//!
//! ```text
//! .gpucc
//!         grid   R4, R5                  ; nx, ny of every node that reads x or y
//! core0   IMAX   x-1, 0          -> A    ; one line per node: op, sources, lane
//! core9   IMAD   core0, R6, x    -> D
//! lsu5    LDG    [core9*4 + R8]  -> D    ; address = R8 + (core9 << 2)
//! core10  FFMA   lsu5, R9, 0.0   -> E
//! lsu14   STG    [core27*4 + R10], core26
//! .endgpucc
//! ```
//!
//! A source is a node (its lane feeds one of this node's input FIFOs, the
//! first free one or the one named as `core3.F2`; `-node` negates an FP
//! operand; `node[-k]` reads it k firings late through k initial tokens,
//! which makes the node counted), `x`/`y` with an optional `+k`/`-k`
//! (the node's counter), a register (its value at configuration time
//! becomes the node's immediate), a literal (the immediate; a literal 0 is
//! the zero source). Every error names the line and the reason.

use super::{
    core_lacks, is_lsu, lane_name, negatable_slot, node_name, operand_slots, position, NodeCfg, Sel, Source, CORES,
    FIFOS, LANES, LSUS, NODES,
};
use crate::golden::asm::{describe, lex_with, parse_mnemonic, parse_uint, reg_or_imm, PResult, Tok, Token};
use crate::golden::isa::{Instr, Op, Src};
use crate::units::sp::lane::Flavor;

/// An error of a configuration block: line, column, message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CfgError {
    pub line: u32,
    pub col: u32,
    pub msg: String,
}

/// One node line, parsed.
struct NodeLine {
    line: u32,
    node: usize,
    col: u32,
    cfg: NodeCfg,
    /// The node's immediate (literal or register), if it has one.
    imm: Option<Src>,
    /// The producer of each input FIFO, with the column that names it.
    feeds: [Option<(usize, u32)>; FIFOS],
    /// Column of the `-> lane` (or of the mnemonic without one).
    out_col: u32,
}

/// Parse a node name `core<k>` / `lsu<k>`.
pub(super) fn node_word(w: &str) -> Option<usize> {
    let l = w.to_ascii_lowercase();
    let (base, max, k) = if let Some(k) = l.strip_prefix("core") {
        (0, CORES, k)
    } else if let Some(k) = l.strip_prefix("lsu") {
        (CORES, LSUS, k)
    } else {
        return None;
    };
    let v: usize = k.parse().ok().filter(|_| k.chars().all(|c| c.is_ascii_digit()))?;
    (v < max).then_some(base + v)
}

fn looks_like_node(w: &str) -> bool {
    let l = w.to_ascii_lowercase();
    l.starts_with("core") || l.starts_with("lsu")
}

fn unknown_node(w: &str) -> String {
    format!("unknown node '{w}' (cores core0..core31, LSUs lsu0..lsu15)")
}

/// Assemble the lines of one block (`(line number, text)`); `end` is the
/// line of `.endgpucc`, which the `GCRUN` gets. Returns the instructions
/// with their source lines, or every error found.
pub fn assemble_block(lines: &[(u32, &str)], end: u32) -> Result<Vec<(Instr, u32)>, Vec<CfgError>> {
    let mut errs = Vec::new();
    let mut nodes: Vec<NodeLine> = Vec::new();
    let mut grid: Option<(u32, [Src; 2])> = None;
    for &(ln, text) in lines {
        let r = lex_with(text, "*>").and_then(|toks| parse_line(ln, &toks, &mut grid, &nodes));
        match r {
            Ok(Some(n)) => nodes.push(n),
            Ok(None) => {}
            Err((col, msg)) => errs.push(CfgError { line: ln, col, msg }),
        }
    }
    if errs.is_empty() {
        if let Err(e) = link(&mut nodes, &grid) {
            errs.push(e);
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let mut out = Vec::new();
    let set = |out: &mut Vec<(Instr, u32)>, n: &NodeLine, sel: Sel, v: Src| {
        let mut i = Instr::new(Op::Gcset);
        (i.d, i.a, i.b) = (n.node as u8, sel as u8, v);
        out.push((i, n.line));
    };
    for n in &nodes {
        set(&mut out, n, Sel::Op, Src::Imm(n.cfg.op_word()));
        if let Some(v) = n.imm {
            set(&mut out, n, Sel::Imm, v);
        }
        if n.cfg.counter {
            let (_, [nx, ny]) = grid.expect("checked by link");
            set(&mut out, n, Sel::Counter, Src::Imm(n.cfg.counter_word()));
            set(&mut out, n, Sel::Nx, nx);
            set(&mut out, n, Sel::Ny, ny);
        }
    }
    out.push((Instr::new(Op::Gcrun), end));
    Ok(out)
}

/// Split `toks` at top-level commas.
fn split_commas(toks: &[Token]) -> Vec<&[Token]> {
    let mut v = Vec::new();
    let mut start = 0;
    for (j, t) in toks.iter().enumerate() {
        if t.t == Tok::Punct(',') {
            v.push(&toks[start..j]);
            start = j + 1;
        }
    }
    if !toks.is_empty() {
        v.push(&toks[start..]);
    }
    v
}

fn parse_line(
    ln: u32,
    toks: &[Token],
    grid: &mut Option<(u32, [Src; 2])>,
    seen: &[NodeLine],
) -> PResult<Option<NodeLine>> {
    let Some(first) = toks.first() else {
        return Ok(None);
    };
    let Tok::Word(w) = &first.t else {
        return Err((
            first.col,
            format!(
                "expected a node (core0..core31, lsu0..lsu15) or 'grid', found {}",
                describe(Some(first))
            ),
        ));
    };
    if w.eq_ignore_ascii_case("grid") {
        if let Some((l, _)) = grid {
            return Err((first.col, format!("duplicate grid line (first at line {l})")));
        }
        let parts = split_commas(&toks[1..]);
        if parts.len() != 2 || parts.iter().any(|p| p.is_empty()) {
            return Err((first.col, "grid takes two values: nx, ny (registers or numbers)".into()));
        }
        let v0 = reg_or_imm(Op::Iadd, parts[0], parts[0][0].col)?;
        let v1 = reg_or_imm(Op::Iadd, parts[1], parts[1][0].col)?;
        *grid = Some((ln, [v0, v1]));
        return Ok(None);
    }
    let node = node_word(w).ok_or_else(|| (first.col, unknown_node(w)))?;
    if let Some(p) = seen.iter().find(|n| n.node == node) {
        return Err((
            first.col,
            format!("{} is configured twice (first at line {})", node_name(node), p.line),
        ));
    }
    let name = node_name(node);
    let Some(Token {
        t: Tok::Word(mn),
        col: mcol,
    }) = toks.get(1)
    else {
        return Err((first.col, format!("{name}: expected an instruction after the node")));
    };
    let (op, m) = parse_mnemonic(mn, *mcol)?;
    // Destination.
    let arrow = toks
        .windows(2)
        .position(|p| p[0].t == Tok::Punct('-') && p[1].t == Tok::Punct('>'));
    let (body, out_lane, out_col) = match arrow {
        Some(k) => {
            let lane = match toks.get(k + 2) {
                Some(Token { t: Tok::Word(l), col }) => {
                    let u = l.to_ascii_uppercase();
                    match u.as_bytes() {
                        [c @ b'A'..=b'E'] if (c - b'A') < LANES => c - b'A' + 1,
                        _ => return Err((*col, format!("unknown lane '{l}' (lanes A, B, C, D, E)"))),
                    }
                }
                t => {
                    return Err((
                        toks[k].col,
                        format!("expected a lane (A-E) after '->', found {}", describe(t)),
                    ))
                }
            };
            if let Some(x) = toks.get(k + 3) {
                return Err((x.col, format!("unexpected {} after the lane", describe(Some(x)))));
            }
            (&toks[2..k], lane, toks[k].col)
        }
        None => (&toks[2..], 0, *mcol),
    };
    let mut n = NodeLine {
        line: ln,
        node,
        col: first.col,
        cfg: NodeCfg {
            op: op as u8,
            m,
            out_lane,
            ..NodeCfg::default()
        },
        imm: None,
        feeds: [None; FIFOS],
        out_col,
    };
    let ops = split_commas(body);
    if let Some(p) = ops.iter().position(|p| p.is_empty()) {
        return Err((
            ops.get(p.saturating_sub(1))
                .and_then(|q| q.last())
                .map_or(*mcol, |t| t.col),
            "missing operand".into(),
        ));
    }
    if is_lsu(node) {
        lsu_operands(&mut n, op, &ops, *mcol)?;
    } else {
        if let Some(why) = core_lacks(op, Flavor::Ieee) {
            return Err((*mcol, format!("{name}: {why}")));
        }
        core_operands(&mut n, op, &ops, *mcol)?;
    }
    Ok(Some(n))
}

/// The FIFO of `n` fed by `src`: FIFO `want` when the source names one
/// (`core3.F2`), else the one `src` already feeds or the first free one.
fn fifo_of(n: &mut NodeLine, src: usize, col: u32, want: Option<u32>, delay: u8) -> PResult<u8> {
    let name = node_name(n.node);
    let k = match want {
        Some(k) if k as usize >= FIFOS => {
            return Err((
                col,
                format!(
                    "FIFO index {k} is out of range: {name} has input FIFOs F0..F{}",
                    FIFOS - 1
                ),
            ))
        }
        Some(k) => k as usize,
        None => match (0..FIFOS).position(|k| n.feeds[k].is_some_and(|f| f.0 == src) && n.cfg.delay[k] == delay) {
            Some(k) => k,
            None => n.feeds.iter().position(|f| f.is_none()).ok_or_else(|| {
                (
                    col,
                    format!("{name} reads more nodes than it has input FIFOs ({FIFOS})"),
                )
            })?,
        },
    };
    match n.feeds[k] {
        Some((p, _)) if p != src => Err((
            col,
            format!(
                "FIFO F{k} of {name} already takes {}, not {}",
                node_name(p),
                node_name(src)
            ),
        )),
        Some(_) if n.cfg.delay[k] != delay => Err((
            col,
            format!(
                "FIFO F{k} of {name} already takes {} with {} initial token(s), not {delay}",
                node_name(src),
                n.cfg.delay[k]
            ),
        )),
        _ => {
            n.feeds[k] = Some((src, col));
            n.cfg.delay[k] = delay;
            Ok(k as u8)
        }
    }
}

/// An optional delay after a source node: `[-k]`, k = 1..=31 (the FIFO's
/// initial tokens: the node reads the value its producer sent k firings
/// earlier, 0 for its first k firings).
fn delay_suffix(rest: &[Token]) -> PResult<u8> {
    match rest {
        [] => Ok(0),
        [Token { t: Tok::Punct('['), .. }, Token { t: Tok::Punct('-'), .. }, Token { t: Tok::Num(v), col }, Token { t: Tok::Punct(']'), .. }] =>
        {
            let k = parse_uint(v).ok_or_else(|| (*col, format!("malformed number '{v}'")))?;
            if !(1..=31).contains(&k) {
                return Err((*col, format!("a delay is 1..=31 firings (initial tokens), not {k}")));
            }
            Ok(k as u8)
        }
        [t, ..] if t.t == Tok::Punct('[') => Err((t.col, "expected a delay [-k] (k = 1..=31) after the node".into())),
        [x, ..] => Err((x.col, format!("unexpected {} after a node", describe(Some(x))))),
    }
}

/// A source word `core3` or `core3.F2` (an explicit input FIFO).
fn node_fifo_word(w: &str, col: u32) -> PResult<(usize, Option<u32>)> {
    let (base, fifo) = match w.split_once('.') {
        Some((b, f)) => {
            let k = f
                .strip_prefix(['F', 'f'])
                .and_then(|k| k.parse::<u32>().ok())
                .ok_or_else(|| {
                    (
                        col,
                        format!("expected FIFO F0..F{} after '{b}.', found '{f}'", FIFOS - 1),
                    )
                })?;
            (b, Some(k))
        }
        None => (w, None),
    };
    let p = node_word(base).ok_or_else(|| (col, unknown_node(base)))?;
    Ok((p, fifo))
}

fn set_imm(n: &mut NodeLine, v: Src, col: u32) -> PResult<Source> {
    if v == Src::Imm(0) {
        return Ok(Source::Zero);
    }
    match n.imm {
        Some(old) if old != v => Err((
            col,
            format!("{} has one immediate and already uses another value", node_name(n.node)),
        )),
        _ => {
            n.imm = Some(v);
            Ok(Source::Imm)
        }
    }
}

fn core_operands(n: &mut NodeLine, op: Op, ops: &[&[Token]], mcol: u32) -> PResult<()> {
    let slots = operand_slots(op);
    let want = slots.iter().filter(|&&s| s).count();
    if ops.len() != want {
        return Err((
            mcol,
            format!("{op} takes {want} source(s) on a core, found {}", ops.len()),
        ));
    }
    let mut ctr: [Option<i8>; 2] = [None, None];
    let mut delayed = false;
    let mut it = ops.iter();
    for (k, _) in slots.iter().enumerate().filter(|(_, &on)| on) {
        let toks = *it.next().expect("counted");
        let col = toks[0].col;
        let neg = toks[0].t == Tok::Punct('-');
        let rest = if neg { &toks[1..] } else { toks };
        let src = match rest.first().map(|t| &t.t) {
            Some(Tok::Word(w)) if looks_like_node(w) => {
                let (p, want) = node_fifo_word(w, rest[0].col)?;
                let delay = delay_suffix(&rest[1..])?;
                if delay > 0 {
                    delayed = true;
                }
                if neg {
                    let bit =
                        negatable_slot(op, k).ok_or_else(|| (col, format!("operand {k} of {op} cannot be negated")))?;
                    n.cfg.m |= bit;
                }
                Source::Fifo(fifo_of(n, p, rest[0].col, want, delay)?)
            }
            Some(Tok::Word(w)) if !neg && (w.eq_ignore_ascii_case("x") || w.eq_ignore_ascii_case("y")) => {
                let which = w.eq_ignore_ascii_case("y") as usize;
                let off = match rest.get(1..) {
                    Some([]) | None => 0i64,
                    Some(
                        [s, Token {
                            t: Tok::Num(v),
                            col: vc,
                        }],
                    ) if matches!(s.t, Tok::Punct('+' | '-')) => {
                        let v = parse_uint(v).ok_or_else(|| (*vc, format!("malformed number '{v}'")))? as i64;
                        if s.t == Tok::Punct('-') {
                            -v
                        } else {
                            v
                        }
                    }
                    Some(x) => {
                        return Err((
                            x[0].col,
                            format!("expected +k or -k after {w}, found {}", describe(x.first())),
                        ))
                    }
                };
                let off = i8::try_from(off).map_err(|_| (col, format!("counter offset {off} is not -128..=127")))?;
                match ctr[which] {
                    Some(o) if o != off => {
                        return Err((
                            col,
                            format!(
                                "{} has one counter: it cannot read {w}{o:+} and {w}{off:+}",
                                node_name(n.node)
                            ),
                        ))
                    }
                    _ => ctr[which] = Some(off),
                }
                if which == 0 {
                    Source::X
                } else {
                    Source::Y
                }
            }
            _ => {
                let v = reg_or_imm(op, toks, col)?;
                set_imm(n, v, col)?
            }
        };
        n.cfg.src[k] = src.code() as u8;
    }
    // A delayed input needs the counter: the node fires nx * ny times.
    if ctr.iter().any(|c| c.is_some()) || delayed {
        n.cfg.counter = true;
        n.cfg.x0 = ctr[0].unwrap_or(0);
        n.cfg.y0 = ctr[1].unwrap_or(0);
    }
    Ok(())
}

/// `LDG [node(*s) (+ v)]` and `STG [node(*s) (+ v)], node`.
fn lsu_operands(n: &mut NodeLine, op: Op, ops: &[&[Token]], mcol: u32) -> PResult<()> {
    let name = node_name(n.node);
    if !matches!(op, Op::Ldg | Op::Stg) {
        return Err((mcol, format!("{name}: an LSU runs LDG or STG, not {op}")));
    }
    if n.cfg.m != 0 {
        return Err((mcol, format!("{name}: GPU-CC LSUs move 32-bit words (no .64)")));
    }
    let want = if op == Op::Stg { 2 } else { 1 };
    if ops.len() != want {
        return Err((
            mcol,
            format!("{op} takes {want} operand(s) on an LSU, found {}", ops.len()),
        ));
    }
    let a = ops[0];
    let (Some(open), Some(close)) = (a.first(), a.last()) else {
        return Err((mcol, "missing address".into()));
    };
    if open.t != Tok::Punct('[') || close.t != Tok::Punct(']') || a.len() < 3 {
        return Err((open.col, "expected an address [node*scale + base]".into()));
    }
    let inner = &a[1..a.len() - 1];
    let p = match &inner[0].t {
        Tok::Word(w) => node_word(w).ok_or_else(|| (inner[0].col, unknown_node(w)))?,
        _ => {
            return Err((
                inner[0].col,
                format!(
                    "expected the node that sends the index, found {}",
                    describe(inner.first())
                ),
            ))
        }
    };
    let mut k = 1;
    if inner.get(1).is_some_and(|t| t.t == Tok::Punct('*')) {
        let (scale, col) = match inner.get(2) {
            Some(Token { t: Tok::Num(s), col }) => (parse_uint(s), *col),
            t => {
                return Err((
                    inner[1].col,
                    format!("expected a scale 1, 2, 4 or 8 after '*', found {}", describe(t)),
                ))
            }
        };
        n.cfg.m = match scale {
            Some(1) => 0,
            Some(2) => 1,
            Some(4) => 2,
            Some(8) => 3,
            _ => return Err((col, "the index scale is 1, 2, 4 or 8".into())),
        };
        k = 3;
    }
    match inner.get(k) {
        None => {}
        Some(Token {
            t: Tok::Punct('+'),
            col,
        }) => {
            let v = reg_or_imm(op, &inner[k + 1..], *col + 1)?;
            set_imm(n, v, *col)?;
        }
        Some(Token {
            t: Tok::Punct('-'),
            col,
        }) => {
            let v = reg_or_imm(op, &inner[k..], *col)?;
            if !matches!(v, Src::Imm(_)) {
                return Err((*col, "a register base is added: write '+ Rn'".into()));
            }
            set_imm(n, v, *col)?;
        }
        Some(t) => return Err((t.col, format!("unexpected {} in the address", describe(Some(t))))),
    }
    n.feeds[0] = Some((p, inner[0].col));
    n.cfg.src[0] = Source::Fifo(0).code() as u8;
    if op == Op::Stg {
        let d = ops[1];
        let q = match &d[0].t {
            Tok::Word(w) => node_word(w).ok_or_else(|| (d[0].col, unknown_node(w)))?,
            _ => {
                return Err((
                    d[0].col,
                    format!("expected the node that sends the data, found {}", describe(d.first())),
                ))
            }
        };
        if let Some(x) = d.get(1) {
            return Err((x.col, format!("unexpected {} after the data node", describe(Some(x)))));
        }
        // The data FIFO is FIFO 1 even when the address comes from the same node.
        n.feeds[1] = Some((q, d[0].col));
        n.cfg.src[1] = Source::Fifo(1).code() as u8;
    }
    Ok(())
}

/// Resolve lanes and check the block as a whole.
fn link(nodes: &mut [NodeLine], grid: &Option<(u32, [Src; 2])>) -> Result<(), CfgError> {
    let at = |line: u32, col: u32, msg: String| CfgError { line, col, msg };
    let by_node = |v: &[NodeLine], k: usize| v.iter().position(|n| n.node == k);
    for i in 0..nodes.len() {
        let n = &nodes[i];
        let name = node_name(n.node);
        let op = Op::from_code(n.cfg.op).expect("parsed");
        if op == Op::Stg && n.cfg.out_lane != 0 {
            return Err(at(
                n.line,
                n.out_col,
                format!("{name}: a store drives no lane (remove '->')"),
            ));
        }
        if op != Op::Stg && n.cfg.out_lane == 0 {
            return Err(at(
                n.line,
                n.out_col,
                format!("{name}: its result goes nowhere: add '-> <lane>' (a value nobody reads)"),
            ));
        }
        if n.cfg.counter && grid.is_none() {
            return Err(at(
                n.line,
                n.col,
                format!(
                    "{name} reads x or y or a delayed input, so it is counted, but the block has no 'grid nx, ny' line"
                ),
            ));
        }
        if n.feeds.iter().all(|f| f.is_none()) && !n.cfg.counter {
            return Err(at(
                n.line,
                n.col,
                format!("{name} has no input node and no counter: it would fire forever"),
            ));
        }
        for k in 0..FIFOS {
            let Some((p, col)) = nodes[i].feeds[k] else {
                continue;
            };
            let me = &nodes[i];
            let Some(pi) = by_node(nodes, p) else {
                return Err(at(
                    me.line,
                    col,
                    format!(
                        "an input nobody feeds: {} reads {}, which this block does not configure",
                        node_name(me.node),
                        node_name(p)
                    ),
                ));
            };
            let prod = &nodes[pi];
            let lane = prod.cfg.out_lane;
            if lane == 0 {
                return Err(at(
                    me.line,
                    col,
                    format!(
                        "an input nobody feeds: {} reads {}, which drives no lane",
                        node_name(me.node),
                        node_name(p)
                    ),
                ));
            }
            let (pp, pm) = (position(p), position(me.node));
            if pp >= pm {
                return Err(at(me.line, col, format!("{} cannot reach {}: lanes run from low to high positions ({} is at {pp}, {} at {pm}; docs/gpucc.md)", node_name(p), node_name(me.node), node_name(p), node_name(me.node))));
            }
            if let Some(q) = nodes
                .iter()
                .find(|q| q.cfg.out_lane == lane && (pp + 1..pm).contains(&position(q.node)))
            {
                return Err(at(q.line, q.out_col, format!(
                    "two drivers on one lane segment: {} drives lane {} between {} (line {}) and its reader {} (line {})",
                    node_name(q.node), lane_name(lane), node_name(p), prod.line, node_name(me.node), me.line
                )));
            }
            nodes[i].cfg.fifo_lane[k] = lane;
        }
    }
    for n in nodes.iter() {
        if n.cfg.out_lane != 0 && !nodes.iter().any(|r| r.feeds.iter().flatten().any(|f| f.0 == n.node)) {
            return Err(at(
                n.line,
                n.out_col,
                format!(
                    "a value nobody reads: {} drives lane {} but no node reads it",
                    node_name(n.node),
                    lane_name(n.cfg.out_lane)
                ),
            ));
        }
    }
    debug_assert!(nodes.iter().all(|n| n.node < NODES));
    Ok(())
}
