//! The tracing backend and the elaborator.
//!
//! [`elaborate`] runs a block's `eval` once on symbolic signals ([`Sym`]):
//! every operation appends a [`Node`] to the expression graph of the module
//! being traced. Instances are traced recursively, once per module name (one
//! Verilog module per block and parameter set). The result, a [`Design`], is
//! checked here (clock-domain crossings, constants that do not fit, port and
//! signal naming, registers assigned twice, unused memory ports) and is what
//! the Verilog emitter, the VCD writer and the simulator's state layout are
//! built from.
//!
//! Clock-domain rule: every node carries the set of domains whose state
//! (registers, memories, ports) it depends on. A register, memory port,
//! output or instance input of domain D may only be driven by nodes whose set
//! is a subset of {D}; [`Ctx::cross`] is the only way to move a value to the
//! other domain, so every crossing is explicit in the source and in the
//! Verilog (a comment marks it).

use super::bits::{Bits, WORDS};
use super::block::{Block, Ctx, Decl, Domain, Mem, Pending, PortBuilder, PortName, PortVisitor, Ports, Reg};
use super::signal::{Backend, Sig};
use std::cell::RefCell;
use std::ops::{Add, BitAnd, BitOr, BitXor, Not, Sub};

/// Node id within a module's graph.
pub type Id = u32;

/// One operation of the expression graph.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    Input(u32),
    Const([u64; WORDS]),
    RegQ(u32),
    MemRd(u32, u32),
    InstOut(u32, u32),
    Add(Id, Id),
    Sub(Id, Id),
    And(Id, Id),
    Or(Id, Id),
    Xor(Id, Id),
    Not(Id),
    /// Operands zero-extended to the node width, product truncated.
    Mul(Id, Id),
    Shl(Id, Id),
    Shr(Id, Id),
    Sar(Id, Id),
    Eq(Id, Id),
    Ult(Id, Id),
    Slt(Id, Id),
    Any(Id),
    Slice(Id, u32),
    Concat(Id, Id),
    Zext(Id),
    Sext(Id),
    Mux(Id, Id, Id),
    Cross(Id, Domain),
    /// A named wire (identity).
    Wire(Id),
    /// Concatenation of many operands, first operand in the top bits
    /// (array outputs and array inputs of instances).
    Cat(Vec<Id>),
}

impl Op {
    /// Operand ids.
    pub fn operands(&self) -> Vec<Id> {
        use Op::*;
        match *self {
            Input(_) | Const(_) | RegQ(_) | MemRd(..) | InstOut(..) => vec![],
            Not(a) | Any(a) | Slice(a, _) | Zext(a) | Sext(a) | Cross(a, _) | Wire(a) => vec![a],
            Add(a, b)
            | Sub(a, b)
            | And(a, b)
            | Or(a, b)
            | Xor(a, b)
            | Mul(a, b)
            | Shl(a, b)
            | Shr(a, b)
            | Sar(a, b)
            | Eq(a, b)
            | Ult(a, b)
            | Slt(a, b)
            | Concat(a, b) => vec![a, b],
            Mux(s, a, b) => vec![s, a, b],
            Cat(ref v) => v.clone(),
        }
    }
}

/// A node: operation, width, domain mask, optional name.
#[derive(Debug, Clone)]
pub struct Node {
    pub op: Op,
    pub width: usize,
    pub dom: u8,
    pub name: Option<String>,
}

thread_local! {
    static GRAPHS: RefCell<Vec<Vec<Node>>> = const { RefCell::new(Vec::new()) };
}

/// Give `v` to port `port` (a `kind` port: "read" or "write") of memory
/// `idx`; an unknown handle, a missing port or a port used twice is an
/// error. The memory's domain mask, unless the handle is unknown.
fn claim_port<T>(
    decl: &Decl,
    errors: &mut Vec<String>,
    slots: &mut [Vec<Option<T>>],
    idx: u32,
    port: usize,
    kind: &str,
    v: T,
) -> Option<u8> {
    let Some(mi) = decl.mems.get(idx as usize) else {
        errors.push(format!("memory handle #{idx} does not belong to this block"));
        return None;
    };
    match slots[idx as usize].get_mut(port) {
        Some(slot @ None) => *slot = Some(v),
        Some(Some(_)) => errors.push(format!("{kind} port {port} of memory `{}` used twice", mi.name)),
        None => errors.push(format!("memory `{}` has no {kind} port {port}", mi.name)),
    }
    Some(mi.dom.mask())
}

fn push(op: Op, width: usize, dom: u8) -> Id {
    GRAPHS.with(|g| {
        let mut g = g.borrow_mut();
        let nodes = g.last_mut().expect("a tracing signal was used outside elaboration");
        nodes.push(Node {
            op,
            width,
            dom,
            name: None,
        });
        (nodes.len() - 1) as Id
    })
}

fn dom(id: Id) -> u8 {
    GRAPHS.with(|g| g.borrow().last().expect("tracing outside elaboration")[id as usize].dom)
}

/// The tracing backend: signals are node ids.
#[derive(Debug, Clone, Copy)]
pub struct Tracing;

/// A symbolic `W`-bit signal.
#[derive(Debug, Clone, Copy)]
pub struct Sym<const W: usize>(pub Id);

impl Backend for Tracing {
    type S<const W: usize> = Sym<W>;
    fn lit<const W: usize>(v: Bits<W>) -> Sym<W> {
        Sym(push(Op::Const(*v.words()), W, 0))
    }
}

fn bin<const W: usize, const N: usize>(f: fn(Id, Id) -> Op, a: Id, b: Id) -> Sym<N> {
    Sym(push(f(a, b), N, dom(a) | dom(b)))
}

macro_rules! sym_ops {
    ($($tr:ident $f:ident $op:ident;)*) => {$(
        impl<const W: usize> $tr for Sym<W> {
            type Output = Self;
            fn $f(self, o: Self) -> Self { bin::<W, W>(Op::$op, self.0, o.0) }
        }
    )*};
}
sym_ops! {
    Add add Add;
    Sub sub Sub;
    BitAnd bitand And;
    BitOr bitor Or;
    BitXor bitxor Xor;
}
impl<const W: usize> Not for Sym<W> {
    type Output = Self;
    fn not(self) -> Self {
        Sym(push(Op::Not(self.0), W, dom(self.0)))
    }
}

impl<const W: usize> Sig<W> for Sym<W> {
    type B = Tracing;
    fn slice<const LO: usize, const N: usize>(self) -> Sym<N> {
        const { assert!(LO + N <= W, "slice past the top of the vector") };
        Sym(push(Op::Slice(self.0, LO as u32), N, dom(self.0)))
    }
    fn concat<const M: usize, const N: usize>(self, lo: Sym<M>) -> Sym<N> {
        const { assert!(N == W + M, "concat: result width must be the sum of the operand widths") };
        bin::<W, N>(Op::Concat, self.0, lo.0)
    }
    fn zext<const N: usize>(self) -> Sym<N> {
        const { assert!(N >= W, "zext to a narrower width") };
        Sym(push(Op::Zext(self.0), N, dom(self.0)))
    }
    fn resize<const N: usize>(self) -> Sym<N> {
        match N.cmp(&W) {
            std::cmp::Ordering::Equal => Sym(self.0),
            std::cmp::Ordering::Greater => Sym(push(Op::Zext(self.0), N, dom(self.0))),
            std::cmp::Ordering::Less => Sym(push(Op::Slice(self.0, 0), N, dom(self.0))),
        }
    }
    fn sext<const N: usize>(self) -> Sym<N> {
        const { assert!(N >= W, "sext to a narrower width") };
        Sym(push(Op::Sext(self.0), N, dom(self.0)))
    }
    fn mul<const M: usize, const N: usize>(self, o: Sym<M>) -> Sym<N> {
        const { assert!(N >= W && N >= M, "mul: result narrower than an operand") };
        bin::<W, N>(Op::Mul, self.0, o.0)
    }
    fn shl<const K: usize>(self, n: Sym<K>) -> Self {
        bin::<W, W>(Op::Shl, self.0, n.0)
    }
    fn shr<const K: usize>(self, n: Sym<K>) -> Self {
        bin::<W, W>(Op::Shr, self.0, n.0)
    }
    fn sar<const K: usize>(self, n: Sym<K>) -> Self {
        bin::<W, W>(Op::Sar, self.0, n.0)
    }
    fn eq(self, o: Self) -> Sym<1> {
        bin::<W, 1>(Op::Eq, self.0, o.0)
    }
    fn ult(self, o: Self) -> Sym<1> {
        bin::<W, 1>(Op::Ult, self.0, o.0)
    }
    fn slt(self, o: Self) -> Sym<1> {
        bin::<W, 1>(Op::Slt, self.0, o.0)
    }
    fn any(self) -> Sym<1> {
        Sym(push(Op::Any(self.0), 1, dom(self.0)))
    }
    fn mux<const N: usize>(self, t: Sym<N>, f: Sym<N>) -> Sym<N> {
        const { assert!(W == 1, "mux select must be 1 bit wide") };
        Sym(push(Op::Mux(self.0, t.0, f.0), N, dom(self.0) | dom(t.0) | dom(f.0)))
    }
}

/// A port of an elaborated module: `count` elements of `width` bits
/// (`count == 1` for a plain port).
#[derive(Debug, Clone)]
pub struct PortInfo {
    pub name: String,
    pub width: usize,
    pub count: usize,
    pub dom: Domain,
}

impl PortInfo {
    /// Bits of the Verilog port.
    pub fn bits(&self) -> usize {
        self.width * self.count
    }
    /// Words the port takes in flattened form (`words_for(width)` per element).
    pub fn words(&self) -> usize {
        self.count * super::bits::words_for(self.width)
    }
}

/// An instance inside a module.
#[derive(Debug, Clone)]
pub struct Inst {
    pub name: String,
    /// Index of the instantiated module in [`Design::modules`].
    pub module: usize,
    /// Node driving each input port of the child, in port order.
    pub inputs: Vec<Id>,
}

/// Read port `(en, addr)` and write port `(en, addr, data)` drivers.
pub type RdPort = (Id, Id);
pub type WrPort = (Id, Id, Id);

/// One elaborated module.
#[derive(Debug, Clone)]
pub struct Module {
    pub name: String,
    pub decl: Decl,
    pub inputs: Vec<PortInfo>,
    pub outputs: Vec<PortInfo>,
    pub nodes: Vec<Node>,
    /// Node driving each output.
    pub out: Vec<Id>,
    /// Node driving each register's `_d` (none: the register holds).
    pub reg_d: Vec<Option<Id>>,
    pub mem_rd: Vec<Vec<Option<RdPort>>>,
    pub mem_wr: Vec<Vec<Option<WrPort>>>,
    pub insts: Vec<Inst>,
    /// No output depends combinationally on an input.
    pub moore: bool,
    /// Per output: it depends on no input combinationally (a Moore
    /// output). `instance_fb` closures may read only these outputs.
    pub moore_out: Vec<bool>,
}

/// A design: modules in dependency order (children before parents).
#[derive(Debug, Clone)]
pub struct Design {
    pub modules: Vec<Module>,
    pub top: usize,
}

/// An elaboration error: the module and what is wrong, with names.
#[derive(Debug, Clone, thiserror::Error)]
#[error("elaboration of module `{module}` failed: {msg}")]
pub struct ElabError {
    pub module: String,
    pub msg: String,
}

struct TraceCx<'a> {
    design: &'a mut Design,
    decl: &'a Decl,
    reg_d: Vec<Option<Id>>,
    mem_rd: Vec<Vec<Option<RdPort>>>,
    mem_wr: Vec<Vec<Option<WrPort>>>,
    insts: Vec<Inst>,
    errors: Vec<String>,
    /// Placeholders of Mealy outputs handed to `instance_fb` closures,
    /// with `instance.port`.
    forbidden: Vec<(Id, String)>,
    /// Instances begun (`instance_begin`) and not yet ended.
    open: Vec<(usize, String)>,
}

struct InputMaker {
    ports: Vec<PortInfo>,
}
impl PortBuilder<Tracing> for InputMaker {
    fn port<const W: usize>(&mut self, name: PortName<'_>, d: Domain) -> Sym<W> {
        self.ports.push(PortInfo {
            name: name.to_string(),
            width: W,
            count: 1,
            dom: d,
        });
        Sym(push(Op::Input(self.ports.len() as u32 - 1), W, d.mask()))
    }
    fn array<const W: usize, const N: usize>(&mut self, name: PortName<'_>, d: Domain) -> [Sym<W>; N] {
        self.ports.push(PortInfo {
            name: name.to_string(),
            width: W,
            count: N,
            dom: d,
        });
        let bus = push(Op::Input(self.ports.len() as u32 - 1), W * N, d.mask());
        std::array::from_fn(|k| Sym(push(Op::Slice(bus, (k * W) as u32), W, d.mask())))
    }
}

struct Collect {
    ports: Vec<PortInfo>,
    ids: Vec<Id>,
}
impl PortVisitor<Tracing> for Collect {
    fn port<const W: usize>(&mut self, name: PortName<'_>, d: Domain, s: &Sym<W>) {
        self.ports.push(PortInfo {
            name: name.to_string(),
            width: W,
            count: 1,
            dom: d,
        });
        self.ids.push(s.0);
    }
    fn array<const W: usize, const N: usize>(&mut self, name: PortName<'_>, d: Domain, s: &[Sym<W>; N]) {
        self.ports.push(PortInfo {
            name: name.to_string(),
            width: W,
            count: N,
            dom: d,
        });
        let ids: Vec<Id> = s.iter().rev().map(|e| e.0).collect();
        let dm = ids.iter().fold(0, |m, &i| m | dom(i));
        self.ids.push(push(Op::Cat(ids), W * N, dm));
    }
}

struct InstOutMaker<'a> {
    inst: u32,
    ports: &'a [PortInfo],
    k: usize,
    /// For an `instance_fb` closure: per output, is it Moore? Mealy outputs
    /// become placeholder constants whose ids land in `forbidden` (with the
    /// port name), so a use of one is reported after elaboration.
    moore_out: Option<&'a [bool]>,
    forbidden: Vec<(Id, String)>,
}
impl InstOutMaker<'_> {
    fn leaf(&mut self, width: usize, dm: u8, name: PortName<'_>) -> Id {
        let k = self.k as u32 - 1;
        match self.moore_out {
            Some(mo) if !mo.get(k as usize).copied().unwrap_or(true) => {
                let id = push(Op::Const([0; WORDS]), width, dm);
                self.forbidden.push((id, name.to_string()));
                id
            }
            _ => push(Op::InstOut(self.inst, k), width, dm),
        }
    }
}
impl PortBuilder<Tracing> for InstOutMaker<'_> {
    fn port<const W: usize>(&mut self, name: PortName<'_>, d: Domain) -> Sym<W> {
        let dm = self.ports.get(self.k).map(|p| p.dom).unwrap_or(d);
        self.k += 1;
        Sym(self.leaf(W, dm.mask(), name))
    }
    fn array<const W: usize, const N: usize>(&mut self, name: PortName<'_>, d: Domain) -> [Sym<W>; N] {
        let dm = self.ports.get(self.k).map(|p| p.dom).unwrap_or(d).mask();
        self.k += 1;
        let bus = self.leaf(W * N, dm, name);
        let forb = self.forbidden.iter().any(|f| f.0 == bus);
        std::array::from_fn(|k| {
            let id = push(Op::Slice(bus, (k * W) as u32), W, dm);
            if forb {
                self.forbidden.push((id, name.to_string()));
            }
            Sym(id)
        })
    }
}

impl Ctx for TraceCx<'_> {
    type B = Tracing;

    fn lit<const W: usize>(&mut self, v: u64) -> Sym<W> {
        if W < 64 && v >> W != 0 {
            self.errors.push(format!("constant {v:#x} does not fit in {W} bits"));
        }
        Tracing::lit(Bits::<W>::new(v))
    }

    fn q<const W: usize>(&mut self, r: Reg<W>) -> Sym<W> {
        match self.decl.regs.get(r.idx as usize) {
            Some(ri) if ri.width == W => Sym(push(Op::RegQ(r.idx), W, r.dom.mask())),
            _ => {
                self.errors
                    .push(format!("register handle #{} does not belong to this block", r.idx));
                Tracing::lit(Bits::zero())
            }
        }
    }

    fn d<const W: usize>(&mut self, r: Reg<W>, v: Sym<W>) {
        match self.reg_d.get_mut(r.idx as usize) {
            Some(slot @ None) => *slot = Some(v.0),
            Some(Some(_)) => {
                let n = &self.decl.regs[r.idx as usize].name;
                self.errors
                    .push(format!("register `{n}_q` has its `_d` set twice in one eval"));
            }
            None => self
                .errors
                .push(format!("register handle #{} does not belong to this block", r.idx)),
        }
    }

    fn mem_read<const W: usize, const A: usize>(
        &mut self,
        m: Mem<W, A>,
        port: usize,
        en: Sym<1>,
        addr: Sym<A>,
    ) -> Sym<W> {
        match claim_port(
            self.decl,
            &mut self.errors,
            &mut self.mem_rd,
            m.idx,
            port,
            "read",
            (en.0, addr.0),
        ) {
            Some(dm) => Sym(push(Op::MemRd(m.idx, port as u32), W, dm)),
            None => Tracing::lit(Bits::zero()),
        }
    }

    fn mem_rdata<const W: usize, const A: usize>(&mut self, m: Mem<W, A>, port: usize) -> Sym<W> {
        match self.decl.mems.get(m.idx as usize) {
            Some(mi) if port < mi.read_ports => Sym(push(Op::MemRd(m.idx, port as u32), W, mi.dom.mask())),
            Some(mi) => {
                self.errors
                    .push(format!("memory `{}` has no read port {port}", mi.name));
                Tracing::lit(Bits::zero())
            }
            None => {
                self.errors
                    .push(format!("memory handle #{} does not belong to this block", m.idx));
                Tracing::lit(Bits::zero())
            }
        }
    }

    fn mem_write<const W: usize, const A: usize>(
        &mut self,
        m: Mem<W, A>,
        port: usize,
        en: Sym<1>,
        addr: Sym<A>,
        data: Sym<W>,
    ) {
        let v = (en.0, addr.0, data.0);
        claim_port(self.decl, &mut self.errors, &mut self.mem_wr, m.idx, port, "write", v);
    }

    fn name<const W: usize>(&mut self, name: &str, v: Sym<W>) -> Sym<W> {
        let id = push(Op::Wire(v.0), W, dom(v.0));
        GRAPHS.with(|g| g.borrow_mut().last_mut().unwrap()[id as usize].name = Some(name.to_string()));
        Sym(id)
    }

    fn cross<const W: usize>(&mut self, v: Sym<W>, to: Domain) -> Sym<W> {
        Sym(push(Op::Cross(v.0, to), W, to.mask()))
    }

    fn instance<K: Block>(&mut self, name: &str, blk: &K, i: &K::In<Tracing>) -> K::Out<Tracing> {
        let mut c = Collect {
            ports: vec![],
            ids: vec![],
        };
        i.visit(&mut c);
        let (inst, out) = self.begin_instance(name, blk, false);
        self.insts[inst].inputs = c.ids;
        out
    }

    fn instance_fb<K: Block, F>(&mut self, name: &str, blk: &K, f: F) -> K::Out<Tracing>
    where
        F: FnOnce(&mut Self, &K::Out<Tracing>) -> K::In<Tracing>,
    {
        let (inst, out) = self.begin_instance(name, blk, true);
        let probe = self.probe_outputs::<K>(inst, name, out);
        let i = f(self, &probe);
        let mut c = Collect {
            ports: vec![],
            ids: vec![],
        };
        i.visit(&mut c);
        self.insts[inst].inputs = c.ids;
        out
    }

    fn instance_begin<K: Block>(&mut self, name: &str, blk: &K) -> (Pending, K::Out<Tracing>) {
        let (inst, out) = self.begin_instance(name, blk, true);
        self.open.push((inst, name.to_string()));
        (Pending(inst), self.probe_outputs::<K>(inst, name, out))
    }

    fn instance_end<K: Block>(&mut self, h: Pending, _blk: &K, i: &K::In<Tracing>) -> K::Out<Tracing> {
        let inst = h.0;
        match self.open.iter().position(|o| o.0 == inst) {
            Some(k) => {
                self.open.remove(k);
            }
            None => self
                .errors
                .push(format!("instance_end of instance {inst}, which is not open")),
        }
        let mut c = Collect {
            ports: vec![],
            ids: vec![],
        };
        i.visit(&mut c);
        self.insts[inst].inputs = c.ids;
        let module = self.insts[inst].module;
        let outs = if module == usize::MAX {
            vec![]
        } else {
            self.design.modules[module].outputs.clone()
        };
        K::Out::<Tracing>::build(&mut InstOutMaker {
            inst: inst as u32,
            ports: &outs,
            k: 0,
            moore_out: None,
            forbidden: vec![],
        })
    }
}

impl TraceCx<'_> {
    /// The outputs an `instance_fb` closure (or the code between
    /// `instance_begin` and `instance_end`) sees: the Moore outputs; Mealy
    /// ones are placeholders that must stay unused (checked at the end of
    /// elaboration), since the native simulator evaluates that code on a
    /// probe of the child.
    fn probe_outputs<K: Block>(&mut self, inst: usize, name: &str, out: K::Out<Tracing>) -> K::Out<Tracing> {
        let module = self.insts[inst].module;
        if module == usize::MAX {
            return out;
        }
        let child = &self.design.modules[module];
        let (outs, mo) = (child.outputs.clone(), child.moore_out.clone());
        let mut mk = InstOutMaker {
            inst: inst as u32,
            ports: &outs,
            k: 0,
            moore_out: Some(&mo),
            forbidden: vec![],
        };
        let p = K::Out::<Tracing>::build(&mut mk);
        self.forbidden.extend(
            mk.forbidden
                .into_iter()
                .map(|(id, port)| (id, format!("{name}.{port}"))),
        );
        p
    }

    /// Elaborate the child, reserve its instance slot (instances are
    /// numbered in the order their calls start) and make its output nodes.
    fn begin_instance<K: Block>(&mut self, name: &str, blk: &K, fb: bool) -> (usize, K::Out<Tracing>) {
        let inst = self.insts.len();
        match elaborate_into(blk, self.design) {
            Ok(module) => {
                let child = &self.design.modules[module];
                let _ = fb;
                let outs = child.outputs.clone();
                self.insts.push(Inst {
                    name: name.to_string(),
                    module,
                    inputs: vec![],
                });
                (
                    inst,
                    K::Out::<Tracing>::build(&mut InstOutMaker {
                        inst: inst as u32,
                        ports: &outs,
                        k: 0,
                        moore_out: None,
                        forbidden: vec![],
                    }),
                )
            }
            Err(e) => {
                self.errors.push(format!("in instance `{name}`: {e}"));
                self.insts.push(Inst {
                    name: name.to_string(),
                    module: usize::MAX,
                    inputs: vec![],
                });
                (
                    inst,
                    K::Out::<Tracing>::build(&mut InstOutMaker {
                        inst: inst as u32,
                        ports: &[],
                        k: 0,
                        moore_out: None,
                        forbidden: vec![],
                    }),
                )
            }
        }
    }
}

/// Is `s` a plain Verilog identifier (letters, digits, `_`, not starting with a digit)?
pub fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(ch) if ch.is_ascii_alphabetic() || ch == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Elaborate `blk` and everything it instantiates.
pub fn elaborate<K: Block>(blk: &K) -> Result<Design, ElabError> {
    let mut design = Design {
        modules: vec![],
        top: 0,
    };
    design.top = elaborate_into(blk, &mut design)?;
    Ok(design)
}

fn elaborate_into<K: Block>(blk: &K, design: &mut Design) -> Result<usize, ElabError> {
    let name = blk.module_name();
    if let Some(ix) = design.modules.iter().position(|m| m.name == name) {
        // One module per block and parameter set: a second block with this
        // name must declare the same state.
        let (a, b) = (&design.modules[ix].decl, blk.decl());
        let shape = |d: &Decl| -> Vec<(String, usize)> {
            d.regs
                .iter()
                .map(|r| (r.name.clone(), r.width))
                .chain(d.mems.iter().map(|m| (m.name.clone(), m.width << 8 | m.addr_width)))
                .collect()
        };
        if shape(a) != shape(b) {
            return Err(ElabError {
                module: name,
                msg: "two different blocks use this module name; put every parameter in module_name()".into(),
            });
        }
        return Ok(ix);
    }
    let err = |msg: String| ElabError {
        module: name.clone(),
        msg,
    };
    if !is_ident(&name) {
        return Err(err("module name is not a Verilog identifier".into()));
    }
    let decl = blk.decl();
    GRAPHS.with(|g| g.borrow_mut().push(Vec::new()));
    let mut im = InputMaker { ports: vec![] };
    let inputs = K::In::<Tracing>::build(&mut im);
    let mut cx = TraceCx {
        design,
        decl,
        reg_d: vec![None; decl.regs.len()],
        mem_rd: decl.mems.iter().map(|m| vec![None; m.read_ports]).collect(),
        mem_wr: decl.mems.iter().map(|m| vec![None; m.write_ports]).collect(),
        insts: vec![],
        errors: vec![],
        forbidden: vec![],
        open: vec![],
    };
    let outs = blk.eval(&mut cx, &inputs);
    let mut oc = Collect {
        ports: vec![],
        ids: vec![],
    };
    outs.visit(&mut oc);
    let nodes = GRAPHS.with(|g| g.borrow_mut().pop().unwrap());
    let TraceCx {
        design,
        reg_d,
        mem_rd,
        mem_wr,
        insts,
        errors,
        forbidden,
        open,
        ..
    } = cx;
    if let Some(e) = errors.into_iter().next() {
        return Err(err(e));
    }
    if let Some((_, name)) = open.first() {
        return Err(err(format!(
            "instance `{name}` was begun (instance_begin) but never given its inputs"
        )));
    }
    if let Some(e) = forbidden_use(&nodes, &forbidden, &oc.ids, &reg_d, &mem_rd, &mem_wr, &insts) {
        return Err(err(e));
    }
    let mut m = Module {
        name: name.clone(),
        decl: decl.clone(),
        inputs: im.ports,
        outputs: oc.ports,
        nodes,
        out: oc.ids,
        reg_d,
        mem_rd,
        mem_wr,
        insts,
        moore: false,
        moore_out: vec![],
    };
    m.moore_out = m.out.iter().map(|&o| !reaches_input(&m, design, o)).collect();
    m.moore = m.moore_out.iter().all(|&b| b);
    check(&m, design).map_err(err)?;
    design.modules.push(m);
    Ok(design.modules.len() - 1)
}

/// Does node `id` depend combinationally on an input of its module?
fn reaches_input(m: &Module, d: &Design, id: Id) -> bool {
    let mut stack = vec![id];
    let mut seen = vec![false; m.nodes.len()];
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n as usize], true) {
            continue;
        }
        match m.nodes[n as usize].op {
            Op::Input(_) => return true,
            Op::InstOut(i, p) => {
                let inst = &m.insts[i as usize];
                if !d.modules[inst.module].moore_out[p as usize] {
                    stack.extend(&inst.inputs);
                }
            }
            ref op => stack.extend(op.operands()),
        }
    }
    false
}

/// The first use of a Mealy output inside an `instance_fb` closure (a
/// placeholder in `forbidden` read by any node, output, register, memory
/// port or instance input), as an error message.
fn forbidden_use(
    nodes: &[Node],
    forbidden: &[(Id, String)],
    out: &[Id],
    reg_d: &[Option<Id>],
    mem_rd: &[Vec<Option<RdPort>>],
    mem_wr: &[Vec<Option<WrPort>>],
    insts: &[Inst],
) -> Option<String> {
    if forbidden.is_empty() {
        return None;
    }
    let mut bad = vec![None; nodes.len()];
    for (id, name) in forbidden {
        bad[*id as usize] = Some(name.as_str());
    }
    let msg = |name: &str| {
        format!(
            "an instance_fb closure uses `{name}`, an output that depends combinationally on the instance's inputs \
             (only Moore outputs may feed back; use it after the instance call)"
        )
    };
    for (k, n) in nodes.iter().enumerate() {
        if bad[k].is_some() {
            continue;
        }
        if let Some(name) = n.op.operands().iter().find_map(|&o| bad[o as usize]) {
            return Some(msg(name));
        }
    }
    let mut roots: Vec<Id> = out.to_vec();
    roots.extend(reg_d.iter().flatten());
    for p in mem_rd.iter().flatten().flatten() {
        roots.extend([p.0, p.1]);
    }
    for p in mem_wr.iter().flatten().flatten() {
        roots.extend([p.0, p.1, p.2]);
    }
    for i in insts {
        roots.extend(&i.inputs);
    }
    roots.iter().find_map(|&r| bad[r as usize]).map(msg)
}

/// Human name of the state or port a leaf node stands for.
pub fn leaf_name(m: &Module, d: &Design, id: Id) -> Option<String> {
    Some(match m.nodes[id as usize].op {
        Op::Input(k) => m.inputs[k as usize].name.clone(),
        Op::RegQ(r) => format!("{}_q", m.decl.regs[r as usize].name),
        Op::MemRd(mm, p) => format!("{}_rdata{p}_q", m.decl.mems[mm as usize].name),
        Op::InstOut(i, p) => {
            let inst = &m.insts[i as usize];
            format!("{}_{}", inst.name, d.modules[inst.module].outputs[p as usize].name)
        }
        _ => return None,
    })
}

/// Find a leaf of domain mask `bad` feeding `id` without passing a crossing.
fn culprit(m: &Module, d: &Design, id: Id, bad: u8) -> String {
    let mut stack = vec![id];
    let mut seen = vec![false; m.nodes.len()];
    while let Some(n) = stack.pop() {
        if std::mem::replace(&mut seen[n as usize], true) {
            continue;
        }
        let node = &m.nodes[n as usize];
        if node.dom & bad == 0 || matches!(node.op, Op::Cross(..)) {
            continue;
        }
        if let Some(name) = leaf_name(m, d, n) {
            return name;
        }
        stack.extend(node.op.operands());
    }
    "?".into()
}

fn check(m: &Module, d: &Design) -> Result<(), String> {
    let dname = |mask: u8| {
        if mask & Domain::Hot.mask() != 0 {
            "hot"
        } else {
            "core"
        }
    };
    let sink = |what: String, id: Id, dom: Domain| -> Result<(), String> {
        let bad = m.nodes[id as usize].dom & !dom.mask();
        if bad != 0 {
            return Err(format!(
                "{what} is in the {} domain but is driven from {}-domain signal `{}` without cross(); \
                 mark the crossing with cx.cross(value, Domain::{:?})",
                dom.name(),
                dname(bad),
                culprit(m, d, id, bad),
                dom
            ));
        }
        Ok(())
    };
    let mut names = std::collections::HashSet::new();
    let mut claim = |n: String| -> Result<(), String> {
        if !is_ident(&n) {
            return Err(format!("`{n}` is not a Verilog identifier"));
        }
        if ["clk_core_i", "clk_hot_i", "rst_ni"].contains(&n.as_str()) || !names.insert(n.clone()) {
            return Err(format!("signal name `{n}` is used twice"));
        }
        Ok(())
    };
    for p in &m.inputs {
        if !p.name.ends_with("_i") {
            return Err(format!("input `{}` must end in `_i`", p.name));
        }
        claim(p.name.clone())?;
    }
    for p in &m.outputs {
        if !p.name.ends_with("_o") {
            return Err(format!("output `{}` must end in `_o`", p.name));
        }
        claim(p.name.clone())?;
    }
    for r in &m.decl.regs {
        claim(format!("{}_q", r.name))?;
        claim(format!("{}_d", r.name))?;
    }
    for (k, mem) in m.decl.mems.iter().enumerate() {
        claim(format!("{}_q", mem.name))?;
        for p in 0..mem.read_ports {
            claim(format!("{}_rdata{p}_q", mem.name))?;
            if m.mem_rd[k][p].is_none() {
                return Err(format!("read port {p} of memory `{}` is never used", mem.name));
            }
        }
        for p in 0..mem.write_ports {
            if m.mem_wr[k][p].is_none() {
                return Err(format!("write port {p} of memory `{}` is never used", mem.name));
            }
        }
        if mem.read_ports == 0 {
            return Err(format!("memory `{}` has no read port", mem.name));
        }
    }
    for inst in &m.insts {
        claim(inst.name.clone())?;
        for p in &d.modules[inst.module].outputs {
            claim(format!("{}_{}", inst.name, p.name))?;
        }
    }
    for n in &m.nodes {
        if let Some(name) = &n.name {
            claim(name.clone())?;
        }
    }
    for (k, p) in m.outputs.iter().enumerate() {
        sink(format!("output `{}`", p.name), m.out[k], p.dom)?;
    }
    for (k, r) in m.decl.regs.iter().enumerate() {
        if let Some(id) = m.reg_d[k] {
            sink(format!("register `{}_q`", r.name), id, r.dom)?;
        }
    }
    for (k, mem) in m.decl.mems.iter().enumerate() {
        for (p, rd) in m.mem_rd[k].iter().enumerate() {
            let (en, a) = rd.unwrap();
            sink(format!("read enable {p} of memory `{}`", mem.name), en, mem.dom)?;
            sink(format!("read address {p} of memory `{}`", mem.name), a, mem.dom)?;
        }
        for (p, wr) in m.mem_wr[k].iter().enumerate() {
            let (en, a, v) = wr.unwrap();
            sink(format!("write enable {p} of memory `{}`", mem.name), en, mem.dom)?;
            sink(format!("write address {p} of memory `{}`", mem.name), a, mem.dom)?;
            sink(format!("write data {p} of memory `{}`", mem.name), v, mem.dom)?;
        }
    }
    for inst in &m.insts {
        let child = &d.modules[inst.module];
        for (k, p) in child.inputs.iter().enumerate() {
            sink(
                format!("input `{}` of instance `{}`", p.name, inst.name),
                inst.inputs[k],
                p.dom,
            )?;
        }
    }
    Ok(())
}
