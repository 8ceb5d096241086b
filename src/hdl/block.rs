//! Blocks, their ports, registers and memories.
//!
//! A block is a Rust value (its parameters plus handles to the registers and
//! memories it declared in a [`Decl`]) implementing [`Block`]: one `eval`
//! function, generic over the evaluation context [`Ctx`], computes the
//! outputs and the next value (`_d`) of every register from the inputs and
//! the current values (`_q`). The same `eval` runs natively in the simulator
//! and symbolically in the elaborator, which checks it and writes Verilog.
//!
//! Ports are plain structs declared with [`ports!`](crate::ports), one field
//! per port, each with a width and a clock domain:
//!
//! ```ignore
//! smrtl::ports! {
//!     /// FIFO inputs.
//!     pub struct FifoIn[W] { push_i: 1 @ Core, wdata_i: W @ Core, pop_i: 1 @ Core }
//! }
//! ```

use super::bits::{Bits, WORDS};
use super::signal::{Backend, Sig};

/// A clock domain. The hot clock runs at exactly twice the core clock with
/// rising edges aligned: every hot edge is a hot-domain edge, every second
/// one (hot cycles 0, 2, 4, ...) is also a core-domain edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Domain {
    /// Core clock (`clk_core_i`): issue, register file, shared memory.
    Core = 0,
    /// Hot (shader) clock (`clk_hot_i`), 2x core: SP/SFU/FP64 datapaths.
    Hot = 1,
}

impl Domain {
    /// Bit of this domain in a domain mask.
    pub const fn mask(self) -> u8 {
        1 << self as u8
    }
    /// The Verilog clock port of the domain.
    pub const fn clock(self) -> &'static str {
        match self {
            Domain::Core => "clk_core_i",
            Domain::Hot => "clk_hot_i",
        }
    }
    /// The domain of a const parameter: 0 is `Core`, anything else `Hot`.
    pub const fn of(d: usize) -> Domain {
        if d == 0 {
            Domain::Core
        } else {
            Domain::Hot
        }
    }
    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Domain::Core => "core",
            Domain::Hot => "hot",
        }
    }
    /// True when this domain has a rising edge at hot cycle `t`.
    #[inline(always)]
    pub const fn edge_at(self, t: u64) -> bool {
        match self {
            Domain::Core => t.is_multiple_of(2),
            Domain::Hot => true,
        }
    }
}

/// Handle to a `W`-bit register declared in a [`Decl`].
#[derive(Debug, Clone, Copy)]
pub struct Reg<const W: usize> {
    pub(crate) idx: u32,
    pub(crate) dom: Domain,
    pub(crate) off: u32,
}

/// Handle to a memory of `2^A` words of `W` bits declared in a [`Decl`].
#[derive(Debug, Clone, Copy)]
pub struct Mem<const W: usize, const A: usize> {
    pub(crate) idx: u32,
}

/// One declared register.
#[derive(Debug, Clone)]
pub struct RegInfo {
    /// Base name; Verilog and VCD use `<name>_q` and `<name>_d`.
    pub name: String,
    pub width: usize,
    pub dom: Domain,
    /// Value on reset (`rst_ni` low), or none for a datapath register.
    pub reset: Option<[u64; WORDS]>,
    /// Word offset in the block's state of this domain.
    pub off: usize,
}

/// One declared memory (RAM, or ROM when `init` is set and there are no
/// write ports). Reads are synchronous: the data of the address presented at
/// an edge of `dom` appears on the read port after that edge (read-first when
/// the same edge writes the same word).
#[derive(Debug, Clone)]
pub struct MemInfo {
    /// Base name; the array is `<name>_q`, read data `<name>_rdata<k>_q`.
    pub name: String,
    pub width: usize,
    pub addr_width: usize,
    pub dom: Domain,
    pub read_ports: usize,
    pub write_ports: usize,
    /// ROM contents (or RAM power-up contents), `2^addr_width` words.
    pub init: Option<Vec<[u64; WORDS]>>,
}

impl MemInfo {
    /// Words of storage.
    pub fn depth(&self) -> usize {
        1 << self.addr_width
    }
}

/// The registers and memories of a block, in declaration order.
#[derive(Debug, Clone, Default)]
pub struct Decl {
    pub regs: Vec<RegInfo>,
    pub mems: Vec<MemInfo>,
    /// State words per domain (`[core, hot]`).
    pub words: [usize; 2],
}

impl Decl {
    /// An empty declaration.
    pub fn new() -> Self {
        Self::default()
    }

    fn push_reg<const W: usize>(&mut self, name: &str, dom: Domain, reset: Option<[u64; WORDS]>) -> Reg<W> {
        let off = self.words[dom as usize];
        self.words[dom as usize] += super::bits::words_for(W);
        self.regs.push(RegInfo {
            name: name.to_string(),
            width: W,
            dom,
            reset,
            off,
        });
        Reg {
            idx: self.regs.len() as u32 - 1,
            dom,
            off: off as u32,
        }
    }

    /// A register reset to `reset` when `rst_ni` is low.
    pub fn reg<const W: usize>(&mut self, name: &str, dom: Domain, reset: u64) -> Reg<W> {
        self.push_reg(name, dom, Some(*Bits::<W>::new(reset).words()))
    }

    /// A datapath register without reset (starts at 0 in the Rust and
    /// Verilator models, X in Icarus).
    pub fn reg_noreset<const W: usize>(&mut self, name: &str, dom: Domain) -> Reg<W> {
        self.push_reg(name, dom, None)
    }

    /// A RAM of `2^A` words with `read_ports` synchronous read ports and
    /// `write_ports` write ports, all on the clock of `dom`. Powers up zero.
    pub fn mem<const W: usize, const A: usize>(
        &mut self,
        name: &str,
        dom: Domain,
        read_ports: usize,
        write_ports: usize,
    ) -> Mem<W, A> {
        let () = Bits::<W>::CHECK;
        const { assert!(A >= 1 && A <= 20, "memory address width must be 1..=20") };
        self.mems.push(MemInfo {
            name: name.to_string(),
            width: W,
            addr_width: A,
            dom,
            read_ports,
            write_ports,
            init: None,
        });
        Mem {
            idx: self.mems.len() as u32 - 1,
        }
    }

    /// A ROM of `2^A` words initialised from `table` (missing entries are 0,
    /// values are truncated to `W` bits).
    pub fn rom<const W: usize, const A: usize>(
        &mut self,
        name: &str,
        dom: Domain,
        read_ports: usize,
        table: &[u64],
    ) -> Mem<W, A> {
        let m = self.mem::<W, A>(name, dom, read_ports, 0);
        let mut init = vec![[0u64; WORDS]; 1 << A];
        for (slot, &v) in init.iter_mut().zip(table) {
            *slot = *Bits::<W>::new(v).words();
        }
        self.mems[m.idx as usize].init = Some(init);
        m
    }
}

/// The Verilog name of a port, kept in parts and joined only when shown
/// (visitors that ignore names, like the simulator's, pay nothing): a plain
/// port is its `field` alone (`push_i`); a port of a bundle is
/// `<prefix><index>_<field><suffix>` (`sp0_valid_i`, `gm_req_addr_o`), or
/// `<field><suffix>` with an empty prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PortName<'a> {
    /// The bundle's prefix (empty for a plain port).
    pub prefix: &'a str,
    /// The element of an array of bundles.
    pub index: Option<usize>,
    /// The field name (with its `_i`/`_o` for a plain port).
    pub field: &'a str,
    /// `_i` or `_o` for a port of a bundle, empty for a plain port.
    pub suffix: &'a str,
}

impl<'a> PortName<'a> {
    /// A plain port's name.
    pub const fn plain(name: &'a str) -> Self {
        PortName {
            prefix: "",
            index: None,
            field: name,
            suffix: "",
        }
    }
}

impl std::fmt::Display for PortName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.prefix.is_empty() {
            // `{}` or `{+n}` in the prefix: the index (plus n) goes there.
            let at = self.prefix.find('{').zip(self.prefix.find('}'));
            match (at, self.index) {
                (Some((a, b)), Some(k)) => {
                    let base: usize = self.prefix[a + 1..b].trim_start_matches('+').parse().unwrap_or(0);
                    write!(f, "{}{}{}", &self.prefix[..a], k + base, &self.prefix[b + 1..])?;
                }
                _ => {
                    f.write_str(self.prefix)?;
                    if let Some(k) = self.index {
                        write!(f, "{k}")?;
                    }
                }
            }
            f.write_str("_")?;
        }
        f.write_str(self.field)?;
        f.write_str(self.suffix)
    }
}

/// Visits every port of a port struct.
pub trait PortVisitor<B: Backend> {
    fn port<const W: usize>(&mut self, name: PortName<'_>, dom: Domain, s: &B::S<W>);
    /// An array port of `N` elements of `W` bits (one `W*N`-bit Verilog
    /// port, element k in bits `k*W ..`). By default, element by element.
    fn array<const W: usize, const N: usize>(&mut self, name: PortName<'_>, dom: Domain, s: &[B::S<W>; N]) {
        for e in s {
            self.port::<W>(name, dom, e);
        }
    }
}

/// Builds every port of a port struct.
pub trait PortBuilder<B: Backend> {
    fn port<const W: usize>(&mut self, name: PortName<'_>, dom: Domain) -> B::S<W>;
    /// An array port (see [`PortVisitor::array`]). By default, element by
    /// element.
    fn array<const W: usize, const N: usize>(&mut self, name: PortName<'_>, dom: Domain) -> [B::S<W>; N] {
        std::array::from_fn(|_| self.port::<W>(name, dom))
    }
}

/// A struct of ports (see [`ports!`](crate::ports)).
pub trait Ports<B: Backend>: Sized + Copy {
    /// Call `v.port` for each field, in declaration order.
    fn visit<V: PortVisitor<B>>(&self, v: &mut V);
    /// Make each field with `f.port`, in declaration order.
    fn build<F: PortBuilder<B>>(f: &mut F) -> Self;
}

/// A group of ports declared once with [`bundle!`](crate::bundle) and
/// included in port structs by [`ports!`](crate::ports), as input or output,
/// alone or as an array: its ports are named from the including field (see
/// [`PortName`]).
pub trait Bundle<B: Backend>: Sized + Copy {
    /// Call `v.port` for each field, in declaration order.
    fn visit<V: PortVisitor<B>>(&self, v: &mut V, prefix: &str, index: Option<usize>, suffix: &str);
    /// Make each field with `f.port`, in declaration order.
    fn build<F: PortBuilder<B>>(f: &mut F, prefix: &str, index: Option<usize>, suffix: &str) -> Self;
}

/// The signal type of width `W` in context `C`.
pub type S<C, const W: usize> = <<C as Ctx>::B as Backend>::S<W>;

/// What a block's `eval` may do besides operating on signals.
pub trait Ctx: Sized {
    /// The signal family.
    type B: Backend;

    /// A `W`-bit constant (`v` must fit; the elaborator rejects it otherwise).
    fn lit<const W: usize>(&mut self, v: u64) -> S<Self, W>;
    /// A wide constant.
    fn lit_bits<const W: usize>(&mut self, v: Bits<W>) -> S<Self, W> {
        <Self::B as Backend>::lit(v)
    }
    /// True only when this evaluation knows `s` is 0: the concrete simulator
    /// answers from the value, the tracer always answers false. A block may
    /// skip logic whose result `s = 0` determines (a one-hot pick with no
    /// select, a mux that keeps its held value), provided both paths give
    /// the same value; the emitted Verilog is always the full logic.
    #[inline(always)]
    fn known_low(&self, s: S<Self, 1>) -> bool {
        self.known(s) == Some(0)
    }
    /// The value of `s` (its low 64 bits) when this evaluation knows it
    /// ([`Sig::known`](super::Sig::known): the concrete simulator always,
    /// the tracer never). Same contract as [`known_low`](Ctx::known_low): a
    /// shortcut must give the value the full logic gives.
    #[inline(always)]
    fn known<const W: usize>(&self, s: S<Self, W>) -> Option<u64> {
        Sig::known(s)
    }
    /// Current value of a register (`<name>_q`).
    fn q<const W: usize>(&mut self, r: Reg<W>) -> S<Self, W>;
    /// `d(r, q(r))`: the register keeps its value (the simulator copies the
    /// words without building a value).
    fn hold<const W: usize>(&mut self, r: Reg<W>) {
        let v = self.q(r);
        self.d(r, v);
    }
    /// Set the next value of a register (`<name>_d`); a register whose `_d`
    /// is never set holds its value.
    fn d<const W: usize>(&mut self, r: Reg<W>, v: S<Self, W>);
    /// A register with a load enable: `d(r, en ? v : q(r))`; returns that
    /// next value. The Verilog is that mux; the value `v` is computed by
    /// `f` only when it can be loaded, so the simulator does no work for a
    /// register that holds (`en` known low) and needs no mux when `en` is
    /// known high.
    #[inline(always)]
    fn d_en<const W: usize, F>(&mut self, r: Reg<W>, en: S<Self, 1>, f: F) -> S<Self, W>
    where
        F: FnOnce(&mut Self) -> S<Self, W>,
    {
        match self.known(en) {
            Some(0) => {
                self.hold(r);
                self.q(r)
            }
            Some(_) => {
                let v = f(self);
                self.d(r, v);
                v
            }
            None => {
                let v = f(self);
                let q = self.q(r);
                let n = en.mux(v, q);
                self.d(r, n);
                n
            }
        }
    }
    /// `c ? t : e` with each arm computed only when it can be chosen: the
    /// Verilog is the mux of both arms; the simulator, which knows `c`,
    /// computes one.
    #[inline(always)]
    fn select<const W: usize, T, E>(&mut self, c: S<Self, 1>, t: T, e: E) -> S<Self, W>
    where
        T: FnOnce(&mut Self) -> S<Self, W>,
        E: FnOnce(&mut Self) -> S<Self, W>,
    {
        match self.known(c) {
            Some(0) => e(self),
            Some(_) => t(self),
            None => {
                let a = t(self);
                let b = e(self);
                c.mux(a, b)
            }
        }
    }
    /// Synchronous read port `port`: returns the data read at the previous
    /// edge of the memory's clock; `en`/`addr` are sampled at the next edge.
    fn mem_read<const W: usize, const A: usize>(
        &mut self,
        m: Mem<W, A>,
        port: usize,
        en: S<Self, 1>,
        addr: S<Self, A>,
    ) -> S<Self, W>;
    /// The data on read port `port` (what [`Ctx::mem_read`] of that port
    /// returns) without using the port: for [`Block::moore`], which must not
    /// set memory ports. The port must be used by `eval`.
    fn mem_rdata<const W: usize, const A: usize>(&mut self, m: Mem<W, A>, port: usize) -> S<Self, W>;
    /// Write port `port`: writes `data` at `addr` on the next edge when `en`.
    /// When two ports write one word at one edge, the higher port wins.
    fn mem_write<const W: usize, const A: usize>(
        &mut self,
        m: Mem<W, A>,
        port: usize,
        en: S<Self, 1>,
        addr: S<Self, A>,
        data: S<Self, W>,
    );
    /// Give a signal a name (a named wire in Verilog).
    fn name<const W: usize>(&mut self, name: &str, v: S<Self, W>) -> S<Self, W>;
    /// Mark `v` as crossing into clock domain `to`. Every path from one
    /// domain's state to another's must pass through `cross`; the elaborator
    /// rejects the design otherwise.
    fn cross<const W: usize>(&mut self, v: S<Self, W>, to: Domain) -> S<Self, W>;
    /// Instantiate `blk` as instance `name` with inputs `i`.
    fn instance<K: Block>(&mut self, name: &str, blk: &K, i: &K::In<Self::B>) -> K::Out<Self::B>;
    /// Instantiate `blk` when its inputs depend on its own outputs (e.g. a
    /// parent that pops a FIFO when `empty_o` is low): `f` receives the
    /// child's outputs and returns its inputs. Only allowed when no output of
    /// `blk` depends combinationally on an input (a Moore block); the
    /// elaborator rejects the design otherwise. Instances created inside `f`
    /// are ordinary instances of the parent.
    fn instance_fb<K: Block, F>(&mut self, name: &str, blk: &K, f: F) -> K::Out<Self::B>
    where
        F: FnOnce(&mut Self, &K::Out<Self::B>) -> K::In<Self::B>;
    /// The first half of an instance whose inputs are computed later (the
    /// closure of [`Ctx::instance_fb`] turned inside out, for a parent that
    /// wires many children in a ring): returns a handle and the child's
    /// outputs, of which only the Moore ones (no combinational path from an
    /// input) may be used before [`Ctx::instance_end`]; the elaborator
    /// rejects a use of any other, and an instance never ended.
    fn instance_begin<K: Block>(&mut self, name: &str, blk: &K) -> (Pending, K::Out<Self::B>);
    /// Give a begun instance its inputs; returns all its outputs.
    fn instance_end<K: Block>(&mut self, h: Pending, blk: &K, i: &K::In<Self::B>) -> K::Out<Self::B>;
    /// [`Ctx::instance_end`] for a parent that does not use the outputs
    /// (the child only updates its own state). The design is the same; the
    /// simulator may skip an evaluation whose only effects would be
    /// discarded (a core-clock subtree at a hot cycle without a core edge).
    fn instance_end_sink<K: Block>(&mut self, h: Pending, blk: &K, i: &K::In<Self::B>) {
        let _ = self.instance_end(h, blk, i);
    }
}

/// Handle of an instance between [`Ctx::instance_begin`] and
/// [`Ctx::instance_end`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending(pub(crate) usize);

/// Builds ports that are all constant zero, in any backend.
pub struct ZeroPorts;
impl<B: Backend> PortBuilder<B> for ZeroPorts {
    fn port<const W: usize>(&mut self, _name: PortName<'_>, _dom: Domain) -> B::S<W> {
        B::lit(Bits::<W>::zero())
    }
}

/// A synchronous hardware block.
pub trait Block {
    /// Input ports (names end in `_i`).
    type In<B: Backend>: Ports<B>;
    /// Output ports (names end in `_o`).
    type Out<B: Backend>: Ports<B>;
    /// Verilog module name: one per block and parameter set.
    fn module_name(&self) -> String;
    /// Registers and memories.
    fn decl(&self) -> &Decl;
    /// Combinational logic: outputs and next state from inputs and state.
    fn eval<C: Ctx>(&self, cx: &mut C, i: &Self::In<C::B>) -> Self::Out<C::B>;

    /// The Moore outputs (those that depend on the state alone) without an
    /// evaluation, every other output zero; `None` (the default): not
    /// provided. The concrete simulator answers [`Ctx::instance_begin`]
    /// with it when given, instead of evaluating the whole block with
    /// guessed inputs (the block is then evaluated once, with its real
    /// inputs, at [`Ctx::instance_end`]). It must give exactly what `eval`
    /// gives on every Moore output: build both from the same helpers, read
    /// only `_q` registers (no `d`, no memory ports) and children's Moore
    /// outputs ([`Ctx::instance_begin`] of a child, never ended here; call
    /// it in the order `eval` calls its instances). Debug
    /// builds check every call against a full evaluation, word for word on
    /// the outputs the elaborator found Moore. The tracer never calls it:
    /// the Verilog is `eval`'s.
    fn moore<C: Ctx>(&self, _cx: &mut C) -> Option<Self::Out<C::B>> {
        None
    }

    /// Constrain uniformly random stimulus to meaningful values (e.g.
    /// addresses in range) before a core edge; `r` is a fresh random word.
    /// Random-stimulus flows (co-simulation, `smrtl sim`, `smrtl bench`)
    /// call it on even hot cycles only, so core-domain inputs stay constant
    /// for a whole core cycle. Default: no constraint.
    fn constrain(&self, _r: u64, _i: &mut Self::In<super::signal::Concrete>) {}

    /// Set the inputs of hot cycle `t` that follow a schedule rather than
    /// chance (a mode input that may change only while the block is idle):
    /// random-stimulus flows call it on every hot cycle, after
    /// [`constrain`](Block::constrain). It draws no random numbers (other
    /// blocks' stimulus streams do not depend on it); it may use the random
    /// values already in `i`. It must leave core-domain inputs alone on odd
    /// hot cycles. Default: nothing.
    fn constrain_hot(&self, _t: u64, _i: &mut Self::In<super::signal::Concrete>) {}
}

/// Declare a port struct generic over the backend (and optional const
/// width parameters): `name: WIDTH @ Domain` per field, or
/// `name: [WIDTH; COUNT] @ Domain` for an array port (a per-lane bus: one
/// `WIDTH*COUNT`-bit Verilog port, element k in bits `k*WIDTH ..`). The
/// domain is `Core`, `Hot`, or `{expr}`, a constant expression that may use
/// the struct's const parameters (e.g. `{ Domain::of(D) }` for a block
/// usable in either domain).
///
/// A field can also hold a [`bundle!`](crate::bundle): `name: Bundle @ in`
/// or `@ out` (the bundle's ports get `_i` or `_o`), or an array of them,
/// `name: [Bundle; COUNT] @ in`. The ports are named
/// `<name>_<field>_i` (array: `<name><k>_<field>_i`); a string literal
/// after the direction replaces the prefix `name` (`"" ` for none). The
/// bundle's type must be in scope by its bare name.
#[macro_export]
macro_rules! ports {
    ($(#[$m:meta])* $vis:vis struct $name:ident $([$($g:ident),*])? {
        $($(#[$fm:meta])* $f:ident : $w:tt @ $dom:tt $($pre:literal)?),* $(,)?
    }) => {
        $(#[$m])*
        $vis struct $name<B: $crate::hdl::Backend $($(, const $g: usize)*)?> {
            $($(#[$fm])* pub $f: $crate::__port_ty!(B, $w, $dom),)*
        }
        impl<B: $crate::hdl::Backend $($(, const $g: usize)*)?> Clone for $name<B $($(, $g)*)?> {
            fn clone(&self) -> Self { *self }
        }
        impl<B: $crate::hdl::Backend $($(, const $g: usize)*)?> Copy for $name<B $($(, $g)*)?> {}
        impl<B: $crate::hdl::Backend $($(, const $g: usize)*)?> $crate::hdl::Ports<B> for $name<B $($(, $g)*)?> {
            #[allow(unused_variables)]
            fn visit<V: $crate::hdl::PortVisitor<B>>(&self, v: &mut V) {
                $( $crate::__port_visit!(v, &self.$f, $crate::__port_pre!($f $(, $pre)?), $w, $dom); )*
            }
            #[allow(unused_variables)]
            fn build<F: $crate::hdl::PortBuilder<B>>(f: &mut F) -> Self {
                Self { $($f: $crate::__port_build!(f, $crate::__port_pre!($f $(, $pre)?), $w, $dom),)* }
            }
        }
    };
}

/// Declare a port bundle: a group of ports written once and included in
/// port structs by [`ports!`](crate::ports) (`name: Bundle @ in|out`). Each
/// field is `name: WIDTH @ Domain` or `name: [WIDTH; COUNT] @ Domain` as in
/// `ports!`, without the `_i`/`_o` (the including field gives the direction
/// and the prefix). `field = "text": ...` names the Verilog port `text`
/// when the Verilog name is not a Rust identifier (`md = "mod"`).
///
/// ```ignore
/// smrtl::bundle! {
///     /// A memory response.
///     pub struct Resp { valid: 1 @ Core, id: 8 @ Core, rdata: [32; 32] @ Core }
/// }
/// smrtl::ports! {
///     /// `gm_resp_valid_i`, `gm_resp_id_i`, `gm_resp_rdata_i`.
///     pub struct UnitIn { gm_resp: Resp @ in }
/// }
/// ```
#[macro_export]
macro_rules! bundle {
    ($(#[$m:meta])* $vis:vis struct $name:ident $([$($g:ident),*])? {
        $($(#[$fm:meta])* $f:ident $(= $pn:literal)? : $w:tt @ $dom:tt),* $(,)?
    }) => {
        $(#[$m])*
        $vis struct $name<B: $crate::hdl::Backend $($(, const $g: usize)*)?> {
            $($(#[$fm])* pub $f: $crate::__port_ty!(B, $w, $dom),)*
        }
        impl<B: $crate::hdl::Backend $($(, const $g: usize)*)?> Clone for $name<B $($(, $g)*)?> {
            fn clone(&self) -> Self { *self }
        }
        impl<B: $crate::hdl::Backend $($(, const $g: usize)*)?> Copy for $name<B $($(, $g)*)?> {}
        impl<B: $crate::hdl::Backend $($(, const $g: usize)*)?> $crate::hdl::Bundle<B> for $name<B $($(, $g)*)?> {
            fn visit<V: $crate::hdl::PortVisitor<B>>(&self, v: &mut V, prefix: &str, index: Option<usize>, suffix: &str) {
                $( $crate::__port_leaf_visit!(
                    v,
                    $crate::hdl::block::PortName { prefix, index, field: $crate::__port_pre!($f $(, $pn)?), suffix },
                    $crate::__port_dom!($dom), &self.$f, $w
                ); )*
            }
            fn build<F: $crate::hdl::PortBuilder<B>>(f: &mut F, prefix: &str, index: Option<usize>, suffix: &str) -> Self {
                Self { $($f: $crate::__port_leaf_build!(
                    f,
                    $crate::hdl::block::PortName { prefix, index, field: $crate::__port_pre!($f $(, $pn)?), suffix },
                    $crate::__port_dom!($dom), $w
                ),)* }
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __port_pre {
    ($f:ident, $pre:literal) => {
        $pre
    };
    ($f:ident) => {
        stringify!($f)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __port_dom {
    ({ $e:expr }) => {
        $e
    };
    ($d:ident) => {
        $crate::hdl::Domain::$d
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __port_sfx {
    (in) => {
        "_i"
    };
    (out) => {
        "_o"
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __port_ty {
    ($B:ident, ($t:ident $(, $p:tt)*), in) => { $t<$B $(, $p)*> };
    ($B:ident, ($t:ident $(, $p:tt)*), out) => { $t<$B $(, $p)*> };
    ($B:ident, [$t:ident ; $n:tt], in) => { [$t<$B>; $n] };
    ($B:ident, [$t:ident ; $n:tt], out) => { [$t<$B>; $n] };
    ($B:ident, $t:ident, in) => { $t<$B> };
    ($B:ident, $t:ident, out) => { $t<$B> };
    ($B:ident, [$w:tt ; $n:tt], $d:tt) => { [<$B as $crate::hdl::Backend>::S<$w>; $n] };
    ($B:ident, $w:tt, $d:tt) => { <$B as $crate::hdl::Backend>::S<$w> };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __port_visit {
    ($v:ident, $s:expr, $pre:expr, [$t:ident ; $n:tt], in) => {
        $crate::__port_visit!(@arr $v, $s, $pre, $t, in)
    };
    ($v:ident, $s:expr, $pre:expr, [$t:ident ; $n:tt], out) => {
        $crate::__port_visit!(@arr $v, $s, $pre, $t, out)
    };
    (@arr $v:ident, $s:expr, $pre:expr, $t:ident, $d:tt) => {
        for (k, e) in $s.iter().enumerate() {
            $crate::hdl::Bundle::visit(e, $v, $pre, Some(k), $crate::__port_sfx!($d));
        }
    };
    ($v:ident, $s:expr, $pre:expr, ($($t:tt)*), in) => {
        $crate::hdl::Bundle::visit($s, $v, $pre, None, "_i")
    };
    ($v:ident, $s:expr, $pre:expr, ($($t:tt)*), out) => {
        $crate::hdl::Bundle::visit($s, $v, $pre, None, "_o")
    };
    ($v:ident, $s:expr, $pre:expr, $t:ident, in) => {
        $crate::hdl::Bundle::visit($s, $v, $pre, None, "_i")
    };
    ($v:ident, $s:expr, $pre:expr, $t:ident, out) => {
        $crate::hdl::Bundle::visit($s, $v, $pre, None, "_o")
    };
    ($v:ident, $s:expr, $pre:expr, $w:tt, $d:tt) => {
        $crate::__port_leaf_visit!($v, $crate::hdl::block::PortName::plain($pre), $crate::__port_dom!($d), $s, $w)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __port_build {
    ($f:ident, $pre:expr, [$t:ident ; $n:tt], in) => {
        ::std::array::from_fn(|k| <$t<B> as $crate::hdl::Bundle<B>>::build($f, $pre, Some(k), "_i"))
    };
    ($f:ident, $pre:expr, [$t:ident ; $n:tt], out) => {
        ::std::array::from_fn(|k| <$t<B> as $crate::hdl::Bundle<B>>::build($f, $pre, Some(k), "_o"))
    };
    ($f:ident, $pre:expr, ($t:ident $(, $p:tt)*), in) => {
        <$t<B $(, $p)*> as $crate::hdl::Bundle<B>>::build($f, $pre, None, "_i")
    };
    ($f:ident, $pre:expr, ($t:ident $(, $p:tt)*), out) => {
        <$t<B $(, $p)*> as $crate::hdl::Bundle<B>>::build($f, $pre, None, "_o")
    };
    ($f:ident, $pre:expr, $t:ident, in) => {
        <$t<B> as $crate::hdl::Bundle<B>>::build($f, $pre, None, "_i")
    };
    ($f:ident, $pre:expr, $t:ident, out) => {
        <$t<B> as $crate::hdl::Bundle<B>>::build($f, $pre, None, "_o")
    };
    ($f:ident, $pre:expr, $w:tt, $d:tt) => {
        $crate::__port_leaf_build!($f, $crate::hdl::block::PortName::plain($pre), $crate::__port_dom!($d), $w)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __port_leaf_visit {
    ($v:ident, $name:expr, $dom:expr, $s:expr, [$w:tt ; $n:tt]) => {
        $v.array::<$w, $n>($name, $dom, $s)
    };
    ($v:ident, $name:expr, $dom:expr, $s:expr, $w:tt) => {
        $v.port::<$w>($name, $dom, $s)
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __port_leaf_build {
    ($f:ident, $name:expr, $dom:expr, [$w:tt ; $n:tt]) => {
        $f.array::<$w, $n>($name, $dom)
    };
    ($f:ident, $name:expr, $dom:expr, $w:tt) => {
        $f.port::<$w>($name, $dom)
    };
}

#[cfg(test)]
mod tests {
    use super::{PortName, PortVisitor, Ports, ZeroPorts};
    use crate::hdl::{Backend, Concrete, Domain};

    crate::bundle! {
        /// Two ports, one renamed.
        struct Pair { valid: 1 @ Core, md = "mod": [4; 2] @ Hot }
    }
    crate::ports! {
        /// Plain ports around bundles used both ways, alone and in arrays.
        struct Mixed[N] {
            clr_i: 1 @ Core,
            req: Pair @ in,
            grp: [Pair; N] @ out,
            bare: Pair @ out "",
        }
    }

    struct Names(Vec<(String, usize, Domain)>);
    impl<B: Backend> PortVisitor<B> for Names {
        fn port<const W: usize>(&mut self, name: PortName<'_>, dom: Domain, _s: &B::S<W>) {
            self.0.push((name.to_string(), W, dom));
        }
        fn array<const W: usize, const N: usize>(&mut self, name: PortName<'_>, dom: Domain, _s: &[B::S<W>; N]) {
            self.0.push((name.to_string(), W * N, dom));
        }
    }

    #[test]
    fn bundles_flatten_to_prefixed_names_in_order() {
        let p: Mixed<Concrete, 2> = Ports::build(&mut ZeroPorts);
        let mut n = Names(Vec::new());
        p.visit(&mut n);
        let got: Vec<(&str, usize)> = n.0.iter().map(|(s, w, _)| (s.as_str(), *w)).collect();
        assert_eq!(
            got,
            [
                ("clr_i", 1),
                ("req_valid_i", 1),
                ("req_mod_i", 8),
                ("grp0_valid_o", 1),
                ("grp0_mod_o", 8),
                ("grp1_valid_o", 1),
                ("grp1_mod_o", 8),
                ("valid_o", 1),
                ("mod_o", 8),
            ]
        );
        assert_eq!(n.0[2].2, Domain::Hot);
    }

    crate::bundle! {
        /// A bundle with a width parameter.
        struct Wide[W] { id: W @ Core }
    }
    crate::ports! {
        /// A parametrized bundle, an array numbered from 1 with the index inside the prefix.
        struct Numbered[N, W] {
            gm: (Wide, W) @ out,
            rq: [Pair; N] @ in "rq{+1}_req",
            at: [Pair; N] @ in "x{}y",
        }
    }

    #[test]
    fn parametrized_bundles_and_indices_inside_prefixes() {
        let p: Numbered<Concrete, 2, 10> = Ports::build(&mut ZeroPorts);
        let mut n = Names(Vec::new());
        p.visit(&mut n);
        let got: Vec<(&str, usize)> = n.0.iter().map(|(s, w, _)| (s.as_str(), *w)).collect();
        assert_eq!(
            got,
            [
                ("gm_id_o", 10),
                ("rq1_req_valid_i", 1),
                ("rq1_req_mod_i", 8),
                ("rq2_req_valid_i", 1),
                ("rq2_req_mod_i", 8),
                ("x0y_valid_i", 1),
                ("x0y_mod_i", 8),
                ("x1y_valid_i", 1),
                ("x1y_mod_i", 8),
            ]
        );
    }
}
