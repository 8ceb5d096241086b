//! Verilog-2005 emitter.
//!
//! One module per elaborated [`Module`] (one per block and parameter set),
//! written to `<module>.v` so that Verilator's `DECLFILENAME` rule holds and
//! `-I<dir>` finds children. Conventions (lowRISC): `clk_core_i`,
//! `clk_hot_i`, `rst_ni` first; ports end in `_i`/`_o`; registers are
//! `<name>_q` with next value `<name>_d`; asynchronous active-low reset;
//! memories are `reg` arrays with one clocked process per synchronous read
//! port and one for all write ports, the shape Yosys infers as RAM (ROMs get
//! an `initial` table). Expressions used once are written inline; those used
//! more often, sliced, or named in the source become `wire`s. Signals (or
//! parts of them) that nothing reads are folded into an `unused_*` wire, the
//! lowRISC idiom Verilator's `-Wall` accepts.
//!
//! Simulation-only: RAM contents and memory read registers start at zero
//! (an `initial` block skipped under `SYNTHESIS`), matching the Rust model.

use super::bits::hex_words;
use super::block::Domain;
use super::trace::{leaf_name, Design, Id, Module, Op};
use std::fmt::Write;

/// Verilog range of a `w`-bit vector, with a trailing space (empty for one
/// bit): `[w-1:0] `.
pub(crate) fn range(w: usize) -> String {
    if w == 1 {
        String::new()
    } else {
        format!("[{}:0] ", w - 1)
    }
}

fn lit(words: &[u64], w: usize) -> String {
    format!("{w}'h{}", hex_words(words, w))
}

struct Emit<'a> {
    d: &'a Design,
    m: &'a Module,
    /// Identifier of each node that has one (leaf, named or materialized).
    ident: Vec<Option<String>>,
    live: Vec<bool>,
    full_use: Vec<bool>,
}

impl<'a> Emit<'a> {
    fn new(d: &'a Design, m: &'a Module) -> Self {
        let n = m.nodes.len();
        let mut e = Emit {
            d,
            m,
            ident: vec![None; n],
            live: vec![false; n],
            full_use: vec![false; n],
        };
        // Sinks.
        let mut roots: Vec<Id> = m.out.clone();
        roots.extend(m.reg_d.iter().flatten());
        for rd in m.mem_rd.iter().flatten().flatten() {
            roots.extend([rd.0, rd.1]);
        }
        for wr in m.mem_wr.iter().flatten().flatten() {
            roots.extend([wr.0, wr.1, wr.2]);
        }
        for i in &m.insts {
            roots.extend(&i.inputs);
        }
        let mut uses = vec![0u32; n];
        for &r in &roots {
            uses[r as usize] += 1;
            e.full_use[r as usize] = true;
        }
        // Liveness and use counts (nodes are in topological order).
        for &r in &roots {
            e.live[r as usize] = true;
        }
        for id in (0..n).rev() {
            if !e.live[id] {
                continue;
            }
            let op = &m.nodes[id].op;
            for a in op.operands() {
                e.live[a as usize] = true;
                uses[a as usize] += 1;
                let partial = matches!(op, Op::Slice(..)) && m.nodes[id].width < m.nodes[a as usize].width;
                if !partial {
                    e.full_use[a as usize] = true;
                }
            }
        }
        // Which nodes get an identifier.
        for id in 0..n {
            let node = &m.nodes[id];
            e.ident[id] = if let Some(l) = leaf_name(m, d, id as Id) {
                Some(l)
            } else {
                node.name.clone()
            };
        }
        for id in 0..n {
            if !e.live[id] {
                continue;
            }
            let op = &m.nodes[id].op;
            // Slices and sign extensions need an identifier operand.
            if let Op::Slice(a, _) | Op::Sext(a) = *op {
                if e.ident[a as usize].is_none() {
                    e.ident[a as usize] = Some(format!("n{a}"));
                }
            }
            let multi = uses[id] > 1 && !matches!(op, Op::Const(_));
            if multi && e.ident[id].is_none() {
                e.ident[id] = Some(format!("n{id}"));
            }
        }
        e
    }

    /// The expression of a node as an operand.
    fn opnd(&self, id: Id) -> String {
        match &self.ident[id as usize] {
            Some(n) => n.clone(),
            None => self.expr(id),
        }
    }

    fn ext(&self, id: Id, to: usize) -> String {
        let w = self.m.nodes[id as usize].width;
        if w == to {
            self.opnd(id)
        } else {
            format!("{{{{{}{{1'b0}}}}, {}}}", to - w, self.opnd(id))
        }
    }

    /// The defining expression of a node.
    fn expr(&self, id: Id) -> String {
        let node = &self.m.nodes[id as usize];
        let w = node.width;
        let o = |a: Id| self.opnd(a);
        match node.op {
            Op::Input(_) | Op::RegQ(_) | Op::MemRd(..) | Op::InstOut(..) => leaf_name(self.m, self.d, id).unwrap(),
            Op::Const(v) => lit(&v, w),
            Op::Add(a, b) => format!("({} + {})", o(a), o(b)),
            Op::Sub(a, b) => format!("({} - {})", o(a), o(b)),
            Op::And(a, b) => format!("({} & {})", o(a), o(b)),
            Op::Or(a, b) => format!("({} | {})", o(a), o(b)),
            Op::Xor(a, b) => format!("({} ^ {})", o(a), o(b)),
            Op::Not(a) => format!("(~{})", o(a)),
            Op::Mul(a, b) => format!("({} * {})", self.ext(a, w), self.ext(b, w)),
            Op::Shl(a, b) => format!("({} << {})", o(a), o(b)),
            Op::Shr(a, b) => format!("({} >> {})", o(a), o(b)),
            Op::Sar(a, b) => format!("$unsigned($signed({}) >>> {})", o(a), o(b)),
            Op::Eq(a, b) => format!("({} == {})", o(a), o(b)),
            Op::Ult(a, b) => format!("({} < {})", o(a), o(b)),
            Op::Slt(a, b) => format!("($signed({}) < $signed({}))", o(a), o(b)),
            Op::Any(a) => format!("(|{})", o(a)),
            Op::Slice(a, lo) => {
                let aw = self.m.nodes[a as usize].width;
                if w == aw {
                    o(a)
                } else if w == 1 {
                    format!("{}[{lo}]", o(a))
                } else {
                    format!("{}[{}:{lo}]", o(a), lo as usize + w - 1)
                }
            }
            Op::Concat(a, b) => format!("{{{}, {}}}", o(a), o(b)),
            Op::Zext(a) => self.ext(a, w),
            Op::Sext(a) => {
                let aw = self.m.nodes[a as usize].width;
                if aw == w {
                    o(a)
                } else if aw == 1 {
                    format!("{{{w}{{{}}}}}", o(a))
                } else {
                    format!("{{{{{}{{{}[{}]}}}}, {}}}", w - aw, o(a), aw - 1, o(a))
                }
            }
            Op::Mux(s, a, b) => format!("({} ? {} : {})", o(s), o(a), o(b)),
            Op::Cross(a, _) | Op::Wire(a) => o(a),
            Op::Cat(ref v) => format!("{{{}}}", v.iter().map(|&a| o(a)).collect::<Vec<_>>().join(", ")),
        }
    }

    fn module(&self) -> String {
        let m = self.m;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// {}: generated by smrtl {} from the Rust block; do not edit.",
            m.name,
            env!("CARGO_PKG_VERSION")
        );
        let _ = writeln!(
            s,
            "// Regenerate with `smrtl export`. Clocks: clk_hot_i = 2 x clk_core_i, rising edges aligned."
        );
        let _ = writeln!(s, "module {} (", m.name);
        let mut ports = vec![
            "  input  wire clk_core_i".to_string(),
            "  input  wire clk_hot_i".to_string(),
            "  input  wire rst_ni".to_string(),
        ];
        for p in &m.inputs {
            ports.push(format!("  input  wire {}{}", range(p.bits()), p.name));
        }
        for p in &m.outputs {
            ports.push(format!("  output wire {}{}", range(p.bits()), p.name));
        }
        let _ = writeln!(s, "{}\n);", ports.join(",\n"));

        let uses_dom = |dm: Domain| {
            m.decl.regs.iter().any(|r| r.dom == dm) || m.decl.mems.iter().any(|x| x.dom == dm) || !m.insts.is_empty()
        };
        let uses_rst = m.decl.regs.iter().any(|r| r.reset.is_some()) || !m.insts.is_empty();
        let mut unused: Vec<String> = vec![];
        if !uses_dom(Domain::Core) {
            unused.push("clk_core_i".into());
        }
        if !uses_dom(Domain::Hot) {
            unused.push("clk_hot_i".into());
        }
        if !uses_rst {
            unused.push("rst_ni".into());
        }

        // State declarations.
        if !m.decl.regs.is_empty() {
            let _ = writeln!(s, "\n  // Registers");
        }
        for r in &m.decl.regs {
            let rst = match r.reset {
                Some(v) => format!("reset {}", lit(&v, r.width)),
                None => "no reset".into(),
            };
            let _ = writeln!(
                s,
                "  reg  {}{}_q;  // {} clock, {rst}",
                range(r.width),
                r.name,
                r.dom.name()
            );
            let _ = writeln!(s, "  wire {}{}_d;", range(r.width), r.name);
        }
        for mem in &m.decl.mems {
            let kind = if mem.write_ports == 0 { "ROM" } else { "RAM" };
            let _ = writeln!(
                s,
                "\n  // {kind} {}: {} x {} bits, {} clock, {} read / {} write ports (synchronous read)",
                mem.name,
                mem.depth(),
                mem.width,
                mem.dom.name(),
                mem.read_ports,
                mem.write_ports
            );
            let _ = writeln!(s, "  reg  {}{}_q [0:{}];", range(mem.width), mem.name, mem.depth() - 1);
            for p in 0..mem.read_ports {
                let _ = writeln!(s, "  reg  {}{}_rdata{p}_q;", range(mem.width), mem.name);
            }
        }
        for inst in &m.insts {
            let c = &self.d.modules[inst.module];
            for p in &c.outputs {
                let _ = writeln!(s, "  wire {}{}_{};", range(p.bits()), inst.name, p.name);
            }
        }

        // Combinational logic.
        let _ = writeln!(s, "\n  // Combinational logic");
        for (id, node) in m.nodes.iter().enumerate() {
            if !self.live[id] || matches!(node.op, Op::Input(_) | Op::RegQ(_) | Op::MemRd(..) | Op::InstOut(..)) {
                continue;
            }
            if let Some(name) = &self.ident[id] {
                let note = match node.op {
                    Op::Cross(_, to) => format!("  // crossing into the {} domain", to.name()),
                    _ => String::new(),
                };
                let _ = writeln!(
                    s,
                    "  wire {}{} = {};{note}",
                    range(node.width),
                    name,
                    self.expr(id as Id)
                );
            }
        }
        for (k, r) in m.decl.regs.iter().enumerate() {
            let e = match m.reg_d[k] {
                Some(id) => self.opnd(id),
                None => format!("{}_q", r.name),
            };
            let _ = writeln!(s, "  assign {}_d = {e};", r.name);
        }
        for (k, p) in m.outputs.iter().enumerate() {
            let _ = writeln!(s, "  assign {} = {};", p.name, self.opnd(m.out[k]));
        }

        // Registers, one process per clock and reset style.
        for dom in [Domain::Core, Domain::Hot] {
            let with: Vec<_> = m
                .decl
                .regs
                .iter()
                .filter(|r| r.dom == dom && r.reset.is_some())
                .collect();
            let without: Vec<_> = m
                .decl
                .regs
                .iter()
                .filter(|r| r.dom == dom && r.reset.is_none())
                .collect();
            if !with.is_empty() {
                let _ = writeln!(s, "\n  always @(posedge {} or negedge rst_ni) begin", dom.clock());
                let _ = writeln!(s, "    if (!rst_ni) begin");
                for r in &with {
                    let _ = writeln!(s, "      {}_q <= {};", r.name, lit(&r.reset.unwrap(), r.width));
                }
                let _ = writeln!(s, "    end else begin");
                for r in &with {
                    let _ = writeln!(s, "      {}_q <= {}_d;", r.name, r.name);
                }
                let _ = writeln!(s, "    end\n  end");
            }
            if !without.is_empty() {
                let _ = writeln!(s, "\n  always @(posedge {}) begin", dom.clock());
                for r in &without {
                    let _ = writeln!(s, "    {}_q <= {}_d;", r.name, r.name);
                }
                let _ = writeln!(s, "  end");
            }
        }

        // Memories.
        for (k, mem) in m.decl.mems.iter().enumerate() {
            let clk = mem.dom.clock();
            for (p, rd) in m.mem_rd[k].iter().enumerate() {
                let (en, a) = rd.unwrap();
                let _ = writeln!(s, "\n  always @(posedge {clk}) begin");
                let _ = writeln!(
                    s,
                    "    if ({}) {}_rdata{p}_q <= {}_q[{}];",
                    self.opnd(en),
                    mem.name,
                    mem.name,
                    self.opnd(a)
                );
                let _ = writeln!(s, "  end");
            }
            if mem.write_ports > 0 {
                let _ = writeln!(s, "\n  always @(posedge {clk}) begin");
                for wr in m.mem_wr[k].iter() {
                    let (en, a, v) = wr.unwrap();
                    let _ = writeln!(
                        s,
                        "    if ({}) {}_q[{}] <= {};",
                        self.opnd(en),
                        mem.name,
                        self.opnd(a),
                        self.opnd(v)
                    );
                }
                let _ = writeln!(s, "  end");
            }
            let ivar = format!("{}_init_i", mem.name);
            match &mem.init {
                Some(init) => {
                    let _ = writeln!(s, "\n  initial begin");
                    for (a, v) in init.iter().enumerate() {
                        let _ = writeln!(s, "    {}_q[{a}] = {};", mem.name, lit(v, mem.width));
                    }
                    let _ = writeln!(s, "  end");
                    let _ = writeln!(s, "`ifndef SYNTHESIS");
                    let _ = writeln!(s, "  initial begin");
                }
                None => {
                    let _ = writeln!(s, "\n`ifndef SYNTHESIS");
                    let _ = writeln!(s, "  integer {ivar};");
                    let _ = writeln!(s, "  initial begin");
                    let _ = writeln!(
                        s,
                        "    for ({ivar} = 0; {ivar} < {}; {ivar} = {ivar} + 1) {}_q[{ivar}] = {};",
                        mem.depth(),
                        mem.name,
                        lit(&[0; 4], mem.width)
                    );
                }
            }
            for p in 0..mem.read_ports {
                let _ = writeln!(s, "    {}_rdata{p}_q = {};", mem.name, lit(&[0; 4], mem.width));
            }
            let _ = writeln!(s, "  end\n`endif");
        }

        // Instances.
        for inst in &m.insts {
            let c = &self.d.modules[inst.module];
            let mut conns = vec![
                "    .clk_core_i (clk_core_i)".to_string(),
                "    .clk_hot_i  (clk_hot_i)".to_string(),
                "    .rst_ni     (rst_ni)".to_string(),
            ];
            for (k, p) in c.inputs.iter().enumerate() {
                conns.push(format!("    .{} ({})", p.name, self.opnd(inst.inputs[k])));
            }
            for p in &c.outputs {
                conns.push(format!("    .{} ({}_{})", p.name, inst.name, p.name));
            }
            let _ = writeln!(s, "\n  {} {} (\n{}\n  );", c.name, inst.name, conns.join(",\n"));
        }

        // Identifiers nothing reads in full: per name, over all nodes of it.
        let mut full: std::collections::BTreeMap<String, bool> = std::collections::BTreeMap::new();
        for p in &m.inputs {
            full.insert(p.name.clone(), false);
        }
        for r in &m.decl.regs {
            full.insert(format!("{}_q", r.name), false);
        }
        for mem in &m.decl.mems {
            for p in 0..mem.read_ports {
                full.insert(format!("{}_rdata{p}_q", mem.name), false);
            }
        }
        for inst in &m.insts {
            for p in &self.d.modules[inst.module].outputs {
                full.insert(format!("{}_{}", inst.name, p.name), false);
            }
        }
        for (id, name) in self.ident.iter().enumerate() {
            if let Some(name) = name {
                if self.live[id] || full.contains_key(name) {
                    let f = full.entry(name.clone()).or_insert(false);
                    *f |= self.live[id] && self.full_use[id];
                }
            }
        }
        unused.extend(full.into_iter().filter(|(_, f)| !f).map(|(n, _)| n));
        if !unused.is_empty() {
            unused.sort();
            unused.dedup();
            let _ = writeln!(s, "\n  // Signals (or bits of them) that no logic reads.");
            let _ = writeln!(s, "  wire unused_signals;");
            let _ = writeln!(s, "  assign unused_signals = ^{{{}}};", unused.join(", "));
        }
        let _ = writeln!(s, "\nendmodule");
        s
    }
}

/// Verilog text of every module of a design, as `(module name, text)`,
/// children first.
pub fn emit(d: &Design) -> Vec<(String, String)> {
    d.modules
        .iter()
        .map(|m| (m.name.clone(), Emit::new(d, m).module()))
        .collect()
}
