//! The golden dataflow model of GPU-CC mode: a configuration ([`Network`])
//! run token by token over the global-memory image, untimed.
//!
//! * A node fires when it is configured, not done (a node with a counter is
//!   done after `nx * ny` firings), every input FIFO an operand reads holds
//!   a token, and every FIFO its result goes to has space (the firing rule
//!   of seed 002). Firing pops the operands (once per FIFO), computes with
//!   the golden model's reference arithmetic (`golden::arith`, the preset's
//!   lane flavour), and pushes the result into every reader's FIFO.
//! * An LSU's load reads the word at `imm + (index << shift)` when it fires
//!   (in order per LSU: its address FIFO is a FIFO) into the LSU's data
//!   FIFO; a load LSU fires when its data FIFO has space (not its
//!   readers), and the data FIFO's head moves on to every reader's FIFO
//!   when all of them have space (the RTL's buffer of loaded words,
//!   docs/gpucc.md section 5). A store writes the data token there.
//!   Accesses of different LSUs are not ordered against each other: a
//!   configuration that reads what it writes in the same run has no
//!   defined result (the model sweeps the nodes in line order).
//! * Initial tokens (`NodeCfg::delay`): a core's first `delay[k]` reads of
//!   FIFO k give 0 without popping; once the core is done it drops
//!   `delay[k]` tokens of that FIFO, its unread initial tokens first, then
//!   the last tokens its producer sends.
//! * Scheduling: sweeps over the line in position order, each node firing
//!   at most once per sweep, until a sweep fires nothing. The run is done
//!   when every counted node has finished and every FIFO is empty;
//!   otherwise it is a deadlock, reported with every node's FIFO levels and
//!   the condition that blocks it. More firings than the budget is a
//!   runaway error.
//! * [`Firing`] records (node, firing index, operands, result, address)
//!   are handed to an optional observer: the trace the RTL will be checked
//!   against at the FIFO/lane level.

use super::{is_lsu, node_at, node_name, Network, Source, NODES};
use crate::golden::arith::{ieee, tesla, Tininess};
use crate::golden::isa::{MulMode, Op, Rnd};
use crate::units::sp::lane::Flavor;
use std::collections::VecDeque;
use std::fmt::Write as _;

/// One firing of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Firing {
    pub node: usize,
    /// The node's firing index (0, 1, ...).
    pub seq: u64,
    /// Operand values a, b, c (0 for unused operands); for an LSU the index
    /// and (store) the data.
    pub operands: [u32; 3],
    /// The value driven on the output lane (a load's data), if any.
    pub result: Option<u32>,
    /// The byte address of an LSU access.
    pub addr: Option<u32>,
}

/// What a GPU-CC run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlowStats {
    /// Firings per node.
    pub firings: Vec<u64>,
    /// Sweeps over the line (an upper bound on the network's depth x work,
    /// not a cycle count).
    pub sweeps: u64,
    pub loads: u64,
    pub stores: u64,
}

/// The state of a running network.
pub struct Flow<'n> {
    net: &'n Network,
    flavor: Flavor,
    fifos: Vec<[VecDeque<u32>; 3]>,
    /// Per node and FIFO: initial tokens (zeros) not read yet.
    ins: Vec<[u8; 3]>,
    /// Per node and FIFO: tokens still to drop once the node is done.
    drop: Vec<[u8; 3]>,
    fired: Vec<u64>,
    stats: FlowStats,
}

impl<'n> Flow<'n> {
    pub fn new(net: &'n Network, flavor: Flavor) -> Flow<'n> {
        Flow {
            net,
            flavor,
            fifos: (0..NODES).map(|_| Default::default()).collect(),
            ins: net.nodes.iter().map(|c| c.delay).collect(),
            drop: net.nodes.iter().map(|c| c.delay).collect(),
            fired: vec![0; NODES],
            stats: FlowStats::default(),
        }
    }

    /// Run to the end over `gmem`; at most `budget` firings in all.
    pub fn run(
        mut self,
        gmem: &mut [u8],
        budget: u64,
        mut observe: Option<&mut dyn FnMut(&Firing)>,
    ) -> Result<FlowStats, String> {
        let mut total = 0u64;
        loop {
            let mut any = false;
            for pos in 0..NODES {
                let n = node_at(pos);
                any |= self.drain(n);
                if self.blocked(n).is_some() {
                    continue;
                }
                if total >= budget {
                    return Err(format!(
                        "GPU-CC runaway: {budget} firings done and the network has not finished (firing budget)\n{}",
                        self.report()
                    ));
                }
                let f = self.fire(n, gmem)?;
                if let Some(o) = observe.as_mut() {
                    o(&f);
                }
                total += 1;
                any = true;
            }
            self.stats.sweeps += 1;
            if !any {
                break;
            }
        }
        let left: usize = self.fifos.iter().flatten().map(|q| q.len()).sum();
        let unfinished = (0..NODES).any(|n| self.unfinished(n) || self.drop[n].iter().any(|&d| d > 0));
        if left > 0 || unfinished {
            return Err(format!(
                "GPU-CC deadlock: no node can fire, {left} token(s) wait in FIFOs{}\n{}",
                if unfinished {
                    " and counted nodes have not finished"
                } else {
                    ""
                },
                self.report()
            ));
        }
        self.stats.firings = self.fired;
        Ok(self.stats)
    }

    fn unfinished(&self, n: usize) -> bool {
        let c = &self.net.nodes[n];
        c.op != 0 && c.limit().is_some_and(|l| self.fired[n] < l)
    }

    /// Why node `n` cannot fire now, or `None` when it can.
    fn blocked(&self, n: usize) -> Option<String> {
        let c = &self.net.nodes[n];
        if c.op == 0 {
            return Some("off".into());
        }
        if c.limit().is_some_and(|l| self.fired[n] >= l) {
            return Some("done".into());
        }
        for k in 0..3 {
            if (0..3).any(|j| c.source(j) == Source::Fifo(k as u8))
                && self.fifos[n][k].is_empty()
                && self.ins[n][k] == 0
            {
                return Some(format!(
                    "input FIFO {k} empty (fed by {})",
                    self.net.feeder[n][k].map_or("nobody".into(), node_name)
                ));
            }
        }
        if self.is_load(n) {
            return (self.fifos[n][1].len() >= self.net.depth[n][1]).then(|| {
                format!(
                    "output full (its data FIFO holds {}/{} loaded words)",
                    self.fifos[n][1].len(),
                    self.net.depth[n][1]
                )
            });
        }
        for &(m, k) in &self.net.readers[n] {
            if self.fifos[m][k].len() >= self.net.depth[m][k] {
                return Some(format!(
                    "output full ({} FIFO {k} holds {}/{})",
                    node_name(m),
                    self.fifos[m][k].len(),
                    self.net.depth[m][k]
                ));
            }
        }
        None
    }

    /// Every configured node: firings, FIFO levels, what blocks it.
    pub fn report(&self) -> String {
        let mut s = String::new();
        for pos in 0..NODES {
            let n = node_at(pos);
            let c = &self.net.nodes[n];
            if c.op == 0 {
                continue;
            }
            let op = Op::from_code(c.op).map_or("?".into(), |o| o.to_string());
            let levels: Vec<String> = (0..3)
                .filter(|&k| c.fifo_lane[k] != 0 || (k == 1 && self.is_load(n)))
                .map(|k| {
                    let ins = self.ins[n][k];
                    let ins = if ins > 0 {
                        format!(" + {ins} initial")
                    } else {
                        String::new()
                    };
                    format!("F{k} {}/{}{ins}", self.fifos[n][k].len(), self.net.depth[n][k])
                })
                .collect();
            let limit = c.limit().map_or(String::new(), |l| format!(" of {l}"));
            let _ = writeln!(
                s,
                "  {:<6} {:<5} fired {}{limit}; FIFOs [{}]; {}",
                node_name(n),
                op,
                self.fired[n],
                levels.join(", "),
                self.blocked(n).unwrap_or_else(|| "can fire".into())
            );
        }
        s
    }

    fn fire(&mut self, n: usize, gmem: &mut [u8]) -> Result<Firing, String> {
        let c = self.net.nodes[n];
        let seq = self.fired[n];
        let mut ops = [0u32; 3];
        let mut pop = [false; 3];
        let (nx, i) = (c.nx.max(1) as u64, seq);
        for (k, o) in ops.iter_mut().enumerate() {
            *o = match c.source(k) {
                Source::None | Source::Zero => 0,
                Source::Fifo(f) => {
                    pop[f as usize] = true;
                    if self.ins[n][f as usize] > 0 {
                        0 // an initial token
                    } else {
                        *self.fifos[n][f as usize].front().expect("checked by blocked()")
                    }
                }
                Source::Imm => c.imm,
                Source::X => (c.x0 as i32 as u32).wrapping_add((i % nx) as u32),
                Source::Y => (c.y0 as i32 as u32).wrapping_add((i / nx) as u32),
            };
        }
        for (f, &p) in pop.iter().enumerate() {
            if p && self.ins[n][f] > 0 {
                self.ins[n][f] -= 1;
            } else if p {
                self.fifos[n][f].pop_front();
            }
        }
        let op = Op::from_code(c.op).expect("checked by Network::build");
        let mut firing = Firing {
            node: n,
            seq,
            operands: ops,
            result: None,
            addr: None,
        };
        if is_lsu(n) {
            let addr = c.imm.wrapping_add(ops[0] << (c.m & 3));
            firing.addr = Some(addr);
            let at = word_at(gmem.len(), addr).map_err(|why| {
                format!(
                    "GPU-CC {} {op} firing {seq}: address 0x{addr:08x} (index {} << {} + 0x{:x}) {why}",
                    node_name(n),
                    ops[0],
                    c.m & 3,
                    c.imm
                )
            })?;
            if op == Op::Stg {
                gmem[at..at + 4].copy_from_slice(&ops[1].to_le_bytes());
                self.stats.stores += 1;
            } else {
                firing.result = Some(u32::from_le_bytes(gmem[at..at + 4].try_into().expect("4 bytes")));
                self.stats.loads += 1;
            }
        } else {
            firing.result = Some(lane_eval(op, c.m, ops, self.flavor));
        }
        match firing.result {
            Some(v) if self.is_load(n) => self.fifos[n][1].push_back(v),
            Some(v) => self.send(n, v),
            None => {}
        }
        self.fired[n] += 1;
        self.settle(n);
        Ok(firing)
    }

    /// A load LSU: it fires into its data FIFO.
    fn is_load(&self, n: usize) -> bool {
        is_lsu(n) && self.net.nodes[n].op == Op::Ldg as u8
    }

    /// Push `v` into the FIFO of every reader of node `n`.
    fn send(&mut self, n: usize, v: u32) {
        for &(m, k) in &self.net.readers[n] {
            self.fifos[m][k].push_back(v);
            self.settle(m);
        }
    }

    /// A load LSU's data FIFO: move its head on to the readers while every
    /// reader has space. Whether anything moved.
    fn drain(&mut self, n: usize) -> bool {
        if !self.is_load(n) {
            return false;
        }
        let mut moved = false;
        while let Some(&v) = self.fifos[n][1].front() {
            if self.net.readers[n]
                .iter()
                .any(|&(m, k)| self.fifos[m][k].len() >= self.net.depth[m][k])
            {
                break;
            }
            self.fifos[n][1].pop_front();
            self.send(n, v);
            moved = true;
        }
        moved
    }

    /// A done node drops the tokens of its delayed FIFOs that it did not
    /// read: `delay[k]` in all, its unread initial tokens first.
    fn settle(&mut self, n: usize) {
        if self.net.nodes[n].limit().is_none_or(|l| self.fired[n] < l) {
            return;
        }
        for k in 0..3 {
            while self.drop[n][k] > 0 {
                if self.ins[n][k] > 0 {
                    self.ins[n][k] -= 1;
                } else if self.fifos[n][k].pop_front().is_none() {
                    break;
                }
                self.drop[n][k] -= 1;
            }
        }
    }
}

/// Byte offset of an aligned word at `addr` in a space of `size` bytes.
fn word_at(size: usize, addr: u32) -> Result<usize, String> {
    if addr & 3 != 0 {
        return Err("is not 4-byte aligned".into());
    }
    if addr as u64 + 4 > size as u64 {
        return Err(format!("is outside global memory ({size} bytes)"));
    }
    Ok(addr as usize)
}

/// One SP-lane operation on one set of operands, with the golden model's
/// arithmetic (`golden::arith`): the ops [`super::core_lacks`] accepts.
pub fn lane_eval(op: Op, m: u8, [a, b, c]: [u32; 3], flavor: Flavor) -> u32 {
    const SIGN: u32 = 0x8000_0000;
    const TIN: Tininess = Tininess::AfterRounding;
    let na = if m & 4 != 0 { SIGN } else { 0 };
    let nbc = if m & 8 != 0 { SIGN } else { 0 };
    let rnd = Rnd::from_bits(m).round();
    let tesla_fp = flavor == Flavor::Tesla;
    let mul = || MulMode::from_bits(m).expect("validated");
    match op {
        Op::Iadd => a.wrapping_add(b),
        Op::Isub => a.wrapping_sub(b),
        Op::Imul => mul().eval(a, b),
        Op::Imad => mul().eval(a, b).wrapping_add(c),
        Op::Imin if m & 1 != 0 => a.min(b),
        Op::Imin => (a as i32).min(b as i32) as u32,
        Op::Imax if m & 1 != 0 => a.max(b),
        Op::Imax => (a as i32).max(b as i32) as u32,
        Op::Shl => a.checked_shl(b).unwrap_or(0),
        Op::Shr if m & 1 != 0 => ((a as i32) >> b.min(31)) as u32,
        Op::Shr => a.checked_shr(b).unwrap_or(0),
        Op::And => a & b,
        Op::Or => a | b,
        Op::Xor => a ^ b,
        Op::Not => !b,
        Op::Iabs => (a as i32).wrapping_abs() as u32,
        Op::Fadd if tesla_fp => tesla::fadd(a ^ na, b ^ nbc, rnd),
        Op::Fadd => ieee::f32_add(a ^ na, b ^ nbc, rnd, TIN).0,
        Op::Fmul if tesla_fp => tesla::fmul(a ^ na, b ^ nbc, rnd),
        Op::Fmul => ieee::f32_mul(a ^ na, b ^ nbc, rnd, TIN).0,
        Op::Fmad => tesla::fmad(a ^ na, b, c ^ nbc),
        Op::Ffma => ieee::f32_fma(a ^ na, b, c ^ nbc, rnd, TIN).0,
        Op::Fmin => ieee::f32_min(a, b),
        Op::Fmax => ieee::f32_max(a, b),
        Op::I2f => ieee::i32_to_f32(a, m & 4 == 0, rnd),
        Op::F2i => ieee::f32_to_i32(a, m & 4 == 0, rnd),
        Op::Mov => b,
        _ => unreachable!("{op} is not a GPU-CC core operation (core_lacks)"),
    }
}
