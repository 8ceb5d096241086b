//! GPU-CC (seed 002, `docs/gpucc.md`): the configuration of the
//! communicating-cores network and its golden dataflow model.
//!
//! * Nodes: the 32 cores (nodes 0..=31, one SP lane each) and the 16
//!   load-store units (nodes 32..=47) sit on one line, an LSU before every
//!   pair of cores ([`position`]). Five lanes A-E run along the line from
//!   low to high positions; a node drives at most one lane, and a FIFO that
//!   listens on a lane takes the tokens of the nearest node upstream that
//!   drives it (a driver starts a new segment of its lane).
//! * Each node has five configuration registers, written by
//!   `GCSET node, sel, value` ([`Sel`]); [`NodeCfg`] is their decoded form
//!   and [`NodeCfg::op_word`] the bit layout of register 0.
//! * [`Network::build`] checks a whole configuration against the preset
//!   and resolves who feeds whom; [`flow`] runs it token by token;
//!   [`text`] assembles the readable configuration format (`.gpucc`
//!   blocks of a kernel) to `GCSET`/`GCRUN` instructions.

pub mod flow;
pub mod lift;
pub mod map;
#[cfg(test)]
mod tests;
pub mod text;

use crate::config::{GpuccConfig, MulAdd, SmConfig};
use crate::golden::isa::{Form, ModKind, Op, Unit, GPUCC_NODES};
use crate::units::sp::lane::Flavor;

/// Cores of the GPU-CC network (the gpucc preset's SP lanes).
pub const CORES: usize = 32;
/// Load-store units of the GPU-CC network.
pub const LSUS: usize = 16;
/// Nodes: cores 0..=31, then LSUs 32..=47.
pub const NODES: usize = GPUCC_NODES as usize;
/// Data lanes A-E.
pub const LANES: u8 = 5;
/// Input FIFOs of a core (an LSU uses two: address and data).
pub const FIFOS: usize = 3;

/// The configuration registers of a node (`GCSET`'s `sel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Sel {
    /// The operation word ([`NodeCfg::op_word`]).
    Op = 0,
    /// The counter word: bit 0 enable, bits 8..1 `x0`, bits 16..9 `y0`
    /// (signed bytes), bits 21..17 / 26..22 / 31..27 the initial tokens
    /// (delay) of input FIFO 0 / 1 / 2.
    Counter = 1,
    /// The node's immediate (an LSU's base address).
    Imm = 2,
    /// Counter width `nx` (values of x per row).
    Nx = 3,
    /// Counter height `ny` (rows).
    Ny = 4,
}

/// Where an operand of a node comes from (3 bits of the operation word).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Operand not used.
    None,
    /// Input FIFO 0..=2.
    Fifo(u8),
    /// The node's immediate register.
    Imm,
    /// The constant 0 (+0.0).
    Zero,
    /// The counter's x value.
    X,
    /// The counter's y value.
    Y,
}

impl Source {
    pub fn code(self) -> u32 {
        match self {
            Source::None => 0,
            Source::Fifo(k) => 1 + k as u32,
            Source::Imm => 4,
            Source::Zero => 5,
            Source::X => 6,
            Source::Y => 7,
        }
    }
    pub fn from_code(c: u32) -> Source {
        match c & 7 {
            0 => Source::None,
            k @ 1..=3 => Source::Fifo(k as u8 - 1),
            4 => Source::Imm,
            5 => Source::Zero,
            6 => Source::X,
            _ => Source::Y,
        }
    }
}

/// A lane letter (lanes are numbered 1..=5 in configuration words; 0 is
/// "none").
pub fn lane_name(l: u8) -> char {
    (b'A' + l - 1) as char
}

/// One node's configuration, decoded from its five registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NodeCfg {
    /// Opcode (0 = NOP: the node is off).
    pub op: u8,
    /// Modifier: the instruction's 4-bit modifier on a core; on an LSU
    /// bits 1..0 are the index shift (address = imm + (index << shift)).
    pub m: u8,
    /// Operand sources a, b, c (codes of [`Source`]).
    pub src: [u8; 3],
    /// Lane each input FIFO listens on (0 = FIFO unused, 1..=5 = A..E).
    pub fifo_lane: [u8; 3],
    /// Lane the result is driven on (0 = none).
    pub out_lane: u8,
    /// Counter enabled, start values, and extent.
    pub counter: bool,
    pub x0: i8,
    pub y0: i8,
    pub nx: u32,
    pub ny: u32,
    pub imm: u32,
    /// Initial tokens of each input FIFO (0..=31; docs/gpucc.md section 5):
    /// the node's first `delay[k]` reads of FIFO k give 0 (+0.0), so it
    /// reads its producer's stream `delay[k]` firings late; once the node
    /// is done, the `delay[k]` tokens it did not read are dropped. Only on
    /// a core with its counter on.
    pub delay: [u8; 3],
}

impl NodeCfg {
    /// Register 0: bits 6..0 opcode, 10..7 modifier, 13..11 / 16..14 /
    /// 19..17 the sources of a / b / c, 22..20 / 25..23 / 28..26 the lanes
    /// of FIFOs 0 / 1 / 2, 31..29 the output lane.
    pub fn op_word(&self) -> u32 {
        let mut w = self.op as u32 & 0x7f | (self.m as u32 & 15) << 7;
        for k in 0..3 {
            w |= (self.src[k] as u32 & 7) << (11 + 3 * k);
            w |= (self.fifo_lane[k] as u32 & 7) << (20 + 3 * k);
        }
        w | (self.out_lane as u32 & 7) << 29
    }
    pub fn set_op_word(&mut self, w: u32) {
        self.op = (w & 0x7f) as u8;
        self.m = (w >> 7 & 15) as u8;
        for k in 0..3 {
            self.src[k] = (w >> (11 + 3 * k) & 7) as u8;
            self.fifo_lane[k] = (w >> (20 + 3 * k) & 7) as u8;
        }
        self.out_lane = (w >> 29 & 7) as u8;
    }
    /// Register 1.
    pub fn counter_word(&self) -> u32 {
        let mut w = self.counter as u32 | (self.x0 as u8 as u32) << 1 | (self.y0 as u8 as u32) << 9;
        for k in 0..3 {
            w |= (self.delay[k] as u32 & 31) << (17 + 5 * k);
        }
        w
    }
    pub fn set_counter_word(&mut self, w: u32) {
        self.counter = w & 1 != 0;
        self.x0 = (w >> 1) as u8 as i8;
        self.y0 = (w >> 9) as u8 as i8;
        for k in 0..3 {
            self.delay[k] = (w >> (17 + 5 * k) & 31) as u8;
        }
    }
    /// Write configuration register `sel` (as `GCSET` does).
    pub fn write(&mut self, sel: u8, v: u32) {
        match sel {
            0 => self.set_op_word(v),
            1 => self.set_counter_word(v),
            2 => self.imm = v,
            3 => self.nx = v,
            _ => self.ny = v,
        }
    }
    pub fn source(&self, k: usize) -> Source {
        Source::from_code(self.src[k] as u32)
    }
    /// Firings before the node is done (`None`: no counter, it fires
    /// while tokens arrive).
    pub fn limit(&self) -> Option<u64> {
        self.counter.then(|| self.nx as u64 * self.ny as u64)
    }
}

/// Is `node` an LSU?
pub fn is_lsu(node: usize) -> bool {
    node >= CORES
}

/// `core<k>` or `lsu<k>`.
pub fn node_name(node: usize) -> String {
    if is_lsu(node) {
        format!("lsu{}", node - CORES)
    } else {
        format!("core{node}")
    }
}

/// Position of a node on the line: LSU `j` at `3j`, cores `2j` and
/// `2j + 1` at `3j + 1` and `3j + 2`.
pub fn position(node: usize) -> usize {
    if is_lsu(node) {
        3 * (node - CORES)
    } else {
        3 * (node / 2) + 1 + node % 2
    }
}

/// The node at a position (inverse of [`position`]).
pub fn node_at(pos: usize) -> usize {
    match pos % 3 {
        0 => CORES + pos / 3,
        r => 2 * (pos / 3) + r - 1,
    }
}

/// Why an opcode cannot run on a core of the preset, or `None` when it
/// can: the core is one SP lane (`docs/sp.md`), its result is one 32-bit
/// value on a lane, so only SP-lane operations that write a register.
pub fn core_lacks(op: Op, flavor: Flavor) -> Option<String> {
    let info = op.info();
    if op == Op::Fmad && flavor == Flavor::Ieee {
        return Some("FMAD is not available: the gpucc cores are IEEE lanes with FFMA (docs/sp.md)".into());
    }
    if op == Op::Ffma && flavor == Flavor::Tesla {
        return Some("FFMA is not available: the lanes have FMAD".into());
    }
    if matches!(op, Op::Ldg | Op::Stg) {
        return Some(format!("{op} runs on an LSU node (lsu0..lsu15), not on a core"));
    }
    if op.unit() != Unit::Sp || !flavor.implements(op) {
        return Some(format!("{op} does not run on an SP lane (unit {})", op.unit().name()));
    }
    if matches!(info.form, Form::PAB | Form::PPP | Form::DABP) {
        return Some(format!(
            "{op} reads or writes predicates, which GPU-CC lanes do not carry"
        ));
    }
    None
}

/// Operand slots (a, b, c) an opcode reads on a core: DA reads a, DB
/// reads b, DAB a and b, DABC/DABCI a, b and c.
pub fn operand_slots(op: Op) -> [bool; 3] {
    match op.info().form {
        Form::DA => [true, false, false],
        Form::DB => [false, true, false],
        Form::DAB => [true, true, false],
        Form::DABC | Form::DABCI => [true, true, true],
        _ => [false; 3],
    }
}

/// May operand `k` of `op` be negated through the modifier (FP ops)?
pub fn negatable_slot(op: Op, k: usize) -> Option<u8> {
    if !matches!(op.info().modk, ModKind::FpRound | ModKind::FpNegOnly) {
        return None;
    }
    let three = matches!(op.info().form, Form::DABC);
    match k {
        0 => Some(4),
        1 if !three => Some(8),
        2 if three => Some(8),
        _ => None,
    }
}

/// A configuration checked against a preset, with the producer of every
/// input FIFO resolved.
#[derive(Debug, Clone)]
pub struct Network {
    pub nodes: Vec<NodeCfg>,
    /// For each node and FIFO: the producing node.
    pub feeder: Vec<[Option<usize>; 3]>,
    /// For each node: the (node, FIFO) pairs its result goes to.
    pub readers: Vec<Vec<(usize, usize)>>,
    /// Capacity of each node's FIFOs.
    pub depth: Vec<[usize; 3]>,
}

/// Why the RTL SM of `cfg` cannot run `prog`: it uses GPU-CC instructions
/// and the preset has no GPU-CC network; names the first one's pc and
/// source line in `file`. `None` when it can.
pub fn rtl_refusal(prog: &crate::golden::isa::Program, cfg: &SmConfig, file: &str) -> Option<String> {
    if cfg.gpucc.is_some() {
        return None;
    }
    let pc = prog.code.iter().position(|i| i.op.is_gpucc())?;
    let line = prog
        .src_lines
        .get(pc)
        .map_or(String::new(), |l| format!(", {file} line {l}"));
    Some(format!(
        "{} at pc {pc}{line}: the {} preset has no GPU-CC network (use --config gpucc; docs/gpucc.md)",
        prog.code[pc].op, cfg.name
    ))
}

/// The preset's lane flavour for GPU-CC cores.
pub fn flavor_of(cfg: &SmConfig) -> Flavor {
    match cfg.mul_add {
        MulAdd::Ffma => Flavor::Ieee,
        MulAdd::Fmad => Flavor::Tesla,
    }
}

/// The `[gpucc]` section of a preset that can run GPU-CC, or why not.
pub fn gpucc_section(cfg: &SmConfig) -> Result<&GpuccConfig, String> {
    let g = cfg.gpucc.as_ref().ok_or_else(|| {
        format!(
            "the {} preset has no GPU-CC network (no [gpucc] section; use --config gpucc)",
            cfg.name
        )
    })?;
    if cfg.sp_lanes as usize != CORES || g.lanes != LANES as u32 || g.input_fifos != FIFOS as u32 {
        return Err(format!(
            "the GPU-CC configuration format is built for 32 cores, 5 lanes and 3 input FIFOs; the {} preset has {} SP lanes, {} lanes, {} FIFOs",
            cfg.name, cfg.sp_lanes, g.lanes, g.input_fifos
        ));
    }
    Ok(g)
}

impl Network {
    /// Check `nodes` (indexed by node number) against the preset and
    /// resolve the lanes. Errors name the node and the reason.
    pub fn build(nodes: &[NodeCfg], cfg: &SmConfig) -> Result<Network, String> {
        let g = gpucc_section(cfg)?;
        if nodes.len() != NODES {
            return Err(format!("a configuration has {NODES} nodes, not {}", nodes.len()));
        }
        let flavor = flavor_of(cfg);
        let mut feeder = vec![[None; 3]; NODES];
        let mut readers = vec![Vec::new(); NODES];
        let mut depth = vec![[g.fifo_depth as usize; 3]; NODES];
        for (n, c) in nodes.iter().enumerate().filter(|(_, c)| c.op != 0) {
            let name = node_name(n);
            let op = Op::from_code(c.op).ok_or_else(|| format!("{name}: unknown opcode 0x{:02x}", c.op))?;
            let mut used = [false; 3];
            if is_lsu(n) {
                depth[n] = [g.lsu_addr_fifo_depth as usize, g.lsu_data_fifo_depth as usize, 0];
                let want: &[Source] = match op {
                    Op::Ldg => &[Source::Fifo(0), Source::None, Source::None],
                    Op::Stg => &[Source::Fifo(0), Source::Fifo(1), Source::None],
                    _ => return Err(format!("{name}: an LSU runs LDG or STG, not {op}")),
                };
                let got = [c.source(0), c.source(1), c.source(2)];
                if got[..] != want[..] {
                    return Err(format!(
                        "{name}: {op} takes its address from FIFO 0{} (operand sources {got:?})",
                        if op == Op::Stg { " and its data from FIFO 1" } else { "" },
                    ));
                }
                if c.m > 3 {
                    return Err(format!("{name}: LSU modifier {} is not an index shift 0..=3", c.m));
                }
                if (op == Op::Stg) != (c.out_lane == 0) {
                    return Err(format!(
                        "{name}: {}",
                        if op == Op::Stg {
                            "a store drives no lane"
                        } else {
                            "a load must drive a lane"
                        }
                    ));
                }
                used[0] = true;
                used[1] = op == Op::Stg;
            } else {
                if let Some(why) = core_lacks(op, flavor) {
                    return Err(format!("{name}: {why}"));
                }
                if !op.info().modk.accepts(c.m) {
                    return Err(format!("{name}: modifier {} is not valid for {op}", c.m));
                }
                let slots = operand_slots(op);
                for (k, &on) in slots.iter().enumerate() {
                    match (on, c.source(k)) {
                        (true, Source::None) => return Err(format!("{name}: {op} operand {k} has no source")),
                        (false, s) if s != Source::None => {
                            return Err(format!("{name}: {op} has no operand {k} (source {s:?})"))
                        }
                        (_, Source::Fifo(f)) => used[f as usize] = true,
                        _ => {}
                    }
                }
                if c.out_lane == 0 {
                    return Err(format!("{name}: the result drives no lane"));
                }
            }
            if c.out_lane > LANES {
                return Err(format!("{name}: output lane {} is not 1..=5 (A-E)", c.out_lane));
            }
            if c.counter && (c.nx == 0 || c.ny == 0) {
                return Err(format!("{name}: counter of {} x {} firings", c.nx, c.ny));
            }
            for k in (0..3).filter(|&k| c.delay[k] != 0) {
                if is_lsu(n) {
                    return Err(format!("{name}: FIFO {k} has initial tokens, which only cores take"));
                }
                if !used[k] {
                    return Err(format!("{name}: FIFO {k} has initial tokens but no operand reads it"));
                }
                if !c.counter {
                    return Err(format!(
                        "{name}: FIFO {k} has initial tokens but the counter is off (a delayed input needs a counted node)"
                    ));
                }
            }
            let uses_ctr = (0..3).any(|k| matches!(c.source(k), Source::X | Source::Y));
            if uses_ctr && !c.counter {
                return Err(format!("{name}: reads x or y but its counter is off"));
            }
            if !used.iter().any(|&u| u) && !c.counter {
                return Err(format!("{name}: no input FIFO and no counter: it would fire forever"));
            }
            for k in 0..3 {
                let l = c.fifo_lane[k];
                match (used[k], l) {
                    (false, 0) => {}
                    (false, _) => return Err(format!("{name}: FIFO {k} listens on a lane but no operand reads it")),
                    (true, 0) => return Err(format!("{name}: FIFO {k} is read but listens on no lane")),
                    (true, l) if l > LANES => {
                        return Err(format!("{name}: FIFO {k} listens on lane {l}, not 1..=5 (A-E)"))
                    }
                    (true, l) => {
                        // The nearest driver of lane l upstream.
                        let p = (0..position(n))
                            .rev()
                            .map(node_at)
                            .find(|&u| nodes[u].op != 0 && nodes[u].out_lane == l)
                            .ok_or_else(|| {
                                format!(
                                    "{name}: FIFO {k} listens on lane {} but no node upstream drives it",
                                    lane_name(l)
                                )
                            })?;
                        feeder[n][k] = Some(p);
                        readers[p].push((n, k));
                    }
                }
            }
        }
        for (n, c) in nodes.iter().enumerate() {
            if c.op != 0 && c.out_lane != 0 && readers[n].is_empty() {
                return Err(format!(
                    "{}: drives lane {} but no node reads it",
                    node_name(n),
                    lane_name(c.out_lane)
                ));
            }
        }
        Ok(Network {
            nodes: nodes.to_vec(),
            feeder,
            readers,
            depth,
        })
    }
}
