//! The cycle simulator: runs a block natively on [`Bits`] with the two-clock
//! scheduler.
//!
//! Time advances in hot cycles. At hot cycle `t` the simulator
//! 1. evaluates the whole hierarchy once with the inputs of cycle `t`
//!    (outputs and every register's `_d` from the pre-edge `_q` values);
//! 2. commits, from those same pre-edge values, every domain that has a rising
//!    edge at `t`: the hot domain always, the core domain when `t` is even
//!    (the hot clock is exactly 2x the core clock, rising edges aligned).
//!    Memories of a committing domain capture their read data first, then
//!    apply their writes (read-first), then registers copy `_d` into `_q`.
//!
//! Because all commits read pre-edge values there is no ordering race between
//! domains or registers. Register state lives in one flat word array per
//! domain (`_q` and `_d`), laid out per instance in pre-order; committing a
//! domain copies each instance's `_d` words that differ from its `_q`
//! words and stamps that instance as changed (the memo's state check, see
//! [`SimCx`]).

use super::bits::{words_for, Bits, WORDS};
use super::block::{Block, Ctx, Domain, Mem, Pending, PortBuilder, PortName, PortVisitor, Ports, Reg};
use super::signal::Concrete;
use super::trace::{elaborate, Design, ElabError};
use super::vcd::VcdWriter;
use std::path::Path;

#[derive(Debug, Clone, Copy, Default)]
struct Base {
    q: [usize; 2],
    mem: usize,
    /// Module of this instance and its index in the pre-order layout.
    module: usize,
    idx: usize,
}

#[derive(Debug, Clone)]
struct MemState {
    dom: Domain,
    nw: usize,
    mask: usize,
    data: Vec<u64>,
    rdata: Vec<u64>,
    rd: Vec<(bool, usize)>,
    wr: Vec<(bool, usize, [u64; WORDS])>,
}

/// The last evaluation of an instance (see [`SimCx`]'s instance methods):
/// the state epoch it saw (see [`State::changed`]), its inputs and
/// outputs. `inputs` outlives `valid`: a probe may use any inputs, and the
/// last ones are the likeliest to come again.
#[derive(Debug, Clone, Default)]
struct Memo {
    valid: bool,
    /// The port structs passed [`raw_layout_ok`].
    layout_checked: bool,
    /// [`State::epoch`] at the record: the subtree's state is the one
    /// recorded while no instance of it changed in a later epoch.
    seen: u64,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
    /// Misses in a row of a plain instance (see [`SimCx::eval_current`]).
    misses: u8,
    /// Plain-instance evaluations left that skip the memo.
    cooldown: u8,
    /// The last probe was answered by [`Block::moore`] (no evaluation):
    /// `instance_end` checks the state itself.
    fast_probe: bool,
    /// The last [`Block::moore`] outputs and the epoch they were taken at
    /// (valid while the subtree's state has not changed since: a sink
    /// instance is probed twice per core cycle between evaluations).
    moore_valid: bool,
    moore_seen: u64,
    moore_outs: Vec<u64>,
    /// The parent ends this instance with `instance_end_sink` (only then
    /// are `moore_outs` kept: otherwise the evaluation between the two
    /// probes of a core cycle records the memo, which serves the second).
    sink: bool,
}

/// A plain instance whose memo misses this many times in a row ...
const MEMO_MISSES: u8 = 4;
/// ... evaluates this many times without it (no state comparison, no
/// record), then tries it again: a busy pipeline stage changes state every
/// cycle, and comparing and recording its state would be pure cost.
const MEMO_COOLDOWN: u8 = 16;

/// Where an instance's subtree ends in the flat state (pre-order layout).
#[derive(Debug, Clone, Copy, Default)]
struct Span {
    q_end: [usize; 2],
    mem_end: usize,
    /// One past the subtree's last instance in the pre-order layout.
    inst_end: usize,
}

/// Flat simulation state of a whole hierarchy.
#[derive(Debug, Clone)]
pub struct State {
    q: [Vec<u64>; 2],
    d: [Vec<u64>; 2],
    reset: [Vec<u64>; 2],
    mems: Vec<MemState>,
    mems_of: [Vec<usize>; 2],
    /// Per domain: each instance with registers there, and its own words
    /// `[start, end)` (pre-order: an instance's own words precede its
    /// children's).
    own: [Vec<(usize, usize, usize)>; 2],
    /// Per memory: the instance it belongs to.
    mem_owner: Vec<usize>,
    /// Commits so far; each commit that changes an instance's own `_q`
    /// words or memory read data stamps it in `changed`.
    epoch: u64,
    /// Per instance: the last epoch that changed its own state.
    changed: Vec<u64>,
}

/// The concrete evaluation context.
///
/// Every instance below the top has a memo of its last evaluation. An
/// evaluation is a function of the subtree's state (`_q` words and memory
/// read data) and the inputs alone, and it sets every `_d` and memory port
/// of the subtree; nothing else writes them before the next evaluation
/// (commits copy `_d` into `_q`, they do not change `_d`). So when the
/// state and the inputs equal the memo's, the `_d` words and memory ports
/// still hold what that evaluation set, and its outputs are the recorded
/// ones: the evaluation is skipped. "The state equals the memo's" is
/// decided by epochs: no instance of the subtree was changed by a commit
/// after the record.
pub struct SimCx<'a> {
    st: &'a mut State,
    layout: &'a [Base],
    /// Per module: pre-order offset of its k-th instance from itself.
    rel: &'a [Vec<usize>],
    cur: Base,
    /// Instance calls started so far in the current frame.
    ord: usize,
    spans: &'a [Span],
    memo: &'a mut [Memo],
    /// Per instance: its subtree has hot-domain registers or memories.
    hot_sub: &'a [bool],
    /// The core domain commits after this evaluation (else every core
    /// `_d` and core memory port it sets is overwritten before one does).
    core_edge: bool,
    /// The elaborated design (debug builds check [`Block::moore`] on the
    /// outputs it found Moore).
    design: &'a Design,
}

impl SimCx<'_> {
    /// The subtree of the current instance has the state its memo saw.
    fn memo_state_matches(&self) -> bool {
        let m = &self.memo[self.cur.idx];
        m.valid && self.unchanged_since(m.seen)
    }

    /// No instance of the current subtree changed state after epoch `seen`.
    fn unchanged_since(&self, seen: u64) -> bool {
        let idx = self.cur.idx;
        self.st.changed[idx..self.spans[idx].inst_end]
            .iter()
            .all(|&e| e <= seen)
    }

    /// Record the current instance's state (its epoch) and outputs, and its inputs
    /// when `i` is given (else the memo's inputs are the ones evaluated).
    fn memo_store<I: Ports<Concrete>, O: Ports<Concrete>>(&mut self, i: Option<&I>, o: &O) {
        let b = self.cur;
        let m = &mut self.memo[b.idx];
        m.seen = self.st.epoch;
        if !m.layout_checked {
            assert!(
                raw_layout_ok::<I>() && raw_layout_ok::<O>(),
                "port structs of module {} are not all `Bits`",
                b.module
            );
            m.layout_checked = true;
        }
        if let Some(i) = i {
            m.inputs.clear();
            m.inputs.extend_from_slice(raw(i));
        }
        m.outputs.clear();
        m.outputs.extend_from_slice(raw(o));
        m.valid = true;
    }

    /// The memo's outputs when the state matches and `i` equals its inputs;
    /// `state_checked`: the caller already knows the state matches whenever
    /// the memo is valid (`instance_end` after `instance_begin`'s check).
    fn memo_lookup<I: Ports<Concrete>, O: Ports<Concrete>>(&mut self, i: &I, state_checked: bool) -> Option<O> {
        let state_ok = if state_checked {
            self.memo[self.cur.idx].valid
        } else {
            self.memo_state_matches()
        };
        if !state_ok {
            return None;
        }
        let m = &self.memo[self.cur.idx];
        (raw(i) == &m.inputs[..]).then(|| from_raw(&m.outputs))
    }

    /// Evaluate the current instance through its memo. A plain instance
    /// (`!state_checked`) that keeps missing skips the memo for a while
    /// ([`MEMO_MISSES`], [`MEMO_COOLDOWN`]); an evaluation without a record
    /// invalidates the memo (the `_d` words are no longer the recorded
    /// evaluation's).
    #[inline(always)]
    fn eval_current<K: Block>(&mut self, blk: &K, i: &K::In<Concrete>, state_checked: bool) -> K::Out<Concrete> {
        let idx = self.cur.idx;
        if !state_checked && self.memo[idx].cooldown > 0 {
            let m = &mut self.memo[idx];
            m.cooldown -= 1;
            m.valid = false;
            return blk.eval(self, i);
        }
        if let Some(o) = self.memo_lookup(i, state_checked) {
            self.memo[idx].misses = 0;
            return o;
        }
        let o = blk.eval(self, i);
        self.memo_store(Some(i), &o);
        if !state_checked {
            let m = &mut self.memo[idx];
            m.misses += 1;
            if m.misses >= MEMO_MISSES {
                m.misses = 0;
                m.cooldown = MEMO_COOLDOWN;
            }
        }
        o
    }

    /// The outputs of the current instance before its inputs are known,
    /// of which only the Moore ones (a function of the state alone) are
    /// meaningful. The memo's when the state matches; else an evaluation
    /// with the memo's last inputs (zero at first), recorded in the memo so
    /// that the real evaluation is skipped when its inputs are those. The
    /// memo is valid afterwards, for the state the caller then sees.
    ///
    /// A block that gives its Moore outputs ([`Block::moore`]) is not
    /// evaluated here when its state changed: its memo is left as it is
    /// and `instance_end` checks the state (`fast_probe`).
    #[inline(always)]
    fn probe<K: Block>(&mut self, blk: &K) -> K::Out<Concrete> {
        let idx = self.cur.idx;
        if self.memo_state_matches() {
            self.memo[idx].fast_probe = false;
            return from_raw(&self.memo[idx].outputs);
        }
        if self.memo[idx].moore_valid && self.unchanged_since(self.memo[idx].moore_seen) {
            self.memo[idx].fast_probe = true;
            return from_raw(&self.memo[idx].moore_outs);
        }
        if let Some(o) = blk.moore(self) {
            if cfg!(debug_assertions) {
                self.check_moore(blk, &o);
            }
            let m = &mut self.memo[idx];
            m.fast_probe = true;
            if m.sink {
                if !m.layout_checked {
                    assert!(
                        raw_layout_ok::<K::Out<Concrete>>(),
                        "outputs of module {} are not all `Bits`",
                        self.cur.module
                    );
                }
                m.moore_valid = true;
                m.moore_seen = self.st.epoch;
                m.moore_outs.clear();
                m.moore_outs.extend_from_slice(raw(&o));
            }
            return o;
        }
        self.memo[idx].fast_probe = false;
        let fresh = self.memo[self.cur.idx].inputs.is_empty();
        let i = if fresh {
            zero_ports::<K::In<Concrete>>()
        } else {
            from_raw(&self.memo[self.cur.idx].inputs)
        };
        let o = blk.eval(self, &i);
        self.memo_store(fresh.then_some(&i), &o);
        o
    }

    /// Debug builds: [`Block::moore`]'s outputs `o` against a full
    /// evaluation (with the memo's last inputs) on every Moore output. The
    /// evaluation sets `_d` words and memory ports that the fast path would
    /// not have set, so the memo is invalidated: `instance_end` evaluates.
    #[cold]
    fn check_moore<K: Block>(&mut self, blk: &K, o: &K::Out<Concrete>) {
        let idx = self.cur.idx;
        // `moore` may have probed children.
        self.ord = 0;
        let i = if self.memo[idx].inputs.is_empty() {
            zero_ports::<K::In<Concrete>>()
        } else {
            from_raw(&self.memo[idx].inputs)
        };
        let full = blk.eval(self, &i);
        self.memo[idx].valid = false;
        // Word ranges of each port in the struct as it lies in memory
        // (field order is the compiler's), in port order.
        struct Spans {
            base: usize,
            out: Vec<(usize, usize)>,
        }
        impl PortVisitor<Concrete> for Spans {
            fn port<const W: usize>(&mut self, _n: PortName<'_>, _d: Domain, s: &Bits<W>) {
                self.out.push(((s as *const Bits<W> as usize - self.base) / 8, WORDS));
            }
            fn array<const W: usize, const N: usize>(&mut self, _n: PortName<'_>, _d: Domain, s: &[Bits<W>; N]) {
                self.out
                    .push(((s as *const [Bits<W>; N] as usize - self.base) / 8, N * WORDS));
            }
        }
        let mut sp = Spans {
            base: o as *const K::Out<Concrete> as usize,
            out: vec![],
        };
        o.visit(&mut sp);
        let module = &self.design.modules[self.cur.module];
        let moore = &module.moore_out;
        let (a, b) = (raw(o), raw(&full));
        assert!(
            raw_layout_ok::<K::Out<Concrete>>() && moore.len() == sp.out.len(),
            "Block::moore of {}: output layout",
            blk.module_name()
        );
        for (k, &(off, n)) in sp.out.iter().enumerate() {
            assert!(
                !moore[k] || a[off..off + n] == b[off..off + n],
                "Block::moore of {} gives {:x?} on Moore output {}, eval {:x?}",
                blk.module_name(),
                &a[off..off + n],
                module.outputs[k].name,
                &b[off..off + n]
            );
        }
    }

    #[inline(always)]
    fn enter(&mut self, ord: usize) -> (Base, usize) {
        let child = self.layout[self.cur.idx + self.rel[self.cur.module][ord]];
        (
            std::mem::replace(&mut self.cur, child),
            std::mem::replace(&mut self.ord, 0),
        )
    }
}

impl Ctx for SimCx<'_> {
    type B = Concrete;

    #[inline(always)]
    fn lit<const W: usize>(&mut self, v: u64) -> Bits<W> {
        Bits::new(v)
    }

    #[inline(always)]
    fn hold<const W: usize>(&mut self, r: Reg<W>) {
        let (dom, o) = (r.dom as usize, self.cur.q[r.dom as usize] + r.off as usize);
        if W <= 64 {
            self.st.d[dom][o] = self.st.q[dom][o];
            return;
        }
        let n = words_for(W);
        self.st.d[dom][o..o + n].copy_from_slice(&self.st.q[dom][o..o + n]);
    }

    #[inline(always)]
    fn q<const W: usize>(&mut self, r: Reg<W>) -> Bits<W> {
        let o = self.cur.q[r.dom as usize] + r.off as usize;
        let q = &self.st.q[r.dom as usize];
        if W <= 64 {
            return Bits::new(q[o]);
        }
        Bits::from_slice(&q[o..o + words_for(W)])
    }

    #[inline(always)]
    fn d<const W: usize>(&mut self, r: Reg<W>, v: Bits<W>) {
        let o = self.cur.q[r.dom as usize] + r.off as usize;
        let d = &mut self.st.d[r.dom as usize];
        if W <= 64 {
            d[o] = v.to_u64();
            return;
        }
        v.write_to(&mut d[o..o + words_for(W)]);
    }

    #[inline(always)]
    fn mem_read<const W: usize, const A: usize>(
        &mut self,
        m: Mem<W, A>,
        port: usize,
        en: Bits<1>,
        addr: Bits<A>,
    ) -> Bits<W> {
        let ms = &mut self.st.mems[self.cur.mem + m.idx as usize];
        ms.rd[port] = (en.to_u64() != 0, addr.to_u64() as usize);
        self.mem_rdata(m, port)
    }

    #[inline(always)]
    fn mem_rdata<const W: usize, const A: usize>(&mut self, m: Mem<W, A>, port: usize) -> Bits<W> {
        let ms = &self.st.mems[self.cur.mem + m.idx as usize];
        Bits::from_slice(&ms.rdata[port * ms.nw..])
    }

    #[inline(always)]
    fn mem_write<const W: usize, const A: usize>(
        &mut self,
        m: Mem<W, A>,
        port: usize,
        en: Bits<1>,
        addr: Bits<A>,
        data: Bits<W>,
    ) {
        let ms = &mut self.st.mems[self.cur.mem + m.idx as usize];
        ms.wr[port] = (en.to_u64() != 0, addr.to_u64() as usize, *data.words());
    }

    #[inline(always)]
    fn name<const W: usize>(&mut self, _name: &str, v: Bits<W>) -> Bits<W> {
        v
    }

    #[inline(always)]
    fn cross<const W: usize>(&mut self, v: Bits<W>, _to: Domain) -> Bits<W> {
        v
    }

    #[inline(always)]
    fn instance<K: Block>(&mut self, _name: &str, blk: &K, i: &K::In<Concrete>) -> K::Out<Concrete> {
        let ord = self.ord;
        self.ord += 1;
        let saved = self.enter(ord);
        let o = self.eval_current(blk, i, false);
        (self.cur, self.ord) = saved;
        o
    }

    #[inline(always)]
    fn instance_fb<K: Block, F>(&mut self, _name: &str, blk: &K, f: F) -> K::Out<Concrete>
    where
        F: FnOnce(&mut Self, &K::Out<Concrete>) -> K::In<Concrete>,
    {
        let ord = self.ord;
        self.ord += 1;
        // Probe: the child is Moore (checked at elaboration), so its outputs
        // do not depend on the inputs given here. Every `_d` and memory port
        // it sets is set again by the real evaluation below, unless that
        // one has the probe's inputs (the memo then stands for it).
        let saved = self.enter(ord);
        let probe = self.probe(blk);
        (self.cur, self.ord) = saved;
        let i = f(self, &probe);
        let saved = self.enter(ord);
        // After a fast probe (`Block::moore`) the state is compared too.
        let checked = !self.memo[self.cur.idx].fast_probe;
        let o = self.eval_current(blk, &i, checked);
        (self.cur, self.ord) = saved;
        o
    }

    #[inline(always)]
    fn instance_begin<K: Block>(&mut self, _name: &str, blk: &K) -> (Pending, K::Out<Concrete>) {
        let ord = self.ord;
        self.ord += 1;
        // Probe, as in `instance_fb`: only Moore outputs are meaningful.
        let saved = self.enter(ord);
        let probe = self.probe(blk);
        (self.cur, self.ord) = saved;
        (Pending(ord), probe)
    }

    #[inline(always)]
    fn instance_end_sink<K: Block>(&mut self, h: Pending, blk: &K, i: &K::In<Concrete>) {
        // A core-clock subtree between core edges: its evaluation would set
        // core `_d` words and core memory ports only, and the next
        // evaluation (at the latest, the one before the core edge) sets
        // them again before any commit reads them; its outputs are not
        // used. The probe's evaluation stays recorded in the memo, with the
        // `_d` words it set, so the memo's invariant holds (after a fast
        // probe nothing was evaluated: the memo is as it was).
        let child = self.cur.idx + self.rel[self.cur.module][h.0];
        self.memo[child].sink = true;
        if !self.core_edge && !self.hot_sub[child] {
            return;
        }
        let _ = self.instance_end(h, blk, i);
    }

    #[inline(always)]
    fn instance_end<K: Block>(&mut self, h: Pending, blk: &K, i: &K::In<Concrete>) -> K::Out<Concrete> {
        let saved = self.enter(h.0);
        // The probe left the memo valid for the current state (which no
        // evaluation changes): only the inputs are compared. After a fast
        // probe (`Block::moore`) the state is compared too.
        let checked = !self.memo[self.cur.idx].fast_probe;
        let o = self.eval_current(blk, i, checked);
        (self.cur, self.ord) = saved;
        o
    }
}

impl State {
    fn new(design: &Design) -> (State, Vec<Base>, Vec<Vec<usize>>) {
        let mut st = State {
            q: [vec![], vec![]],
            d: [vec![], vec![]],
            reset: [vec![], vec![]],
            mems: vec![],
            mems_of: [vec![], vec![]],
            own: [vec![], vec![]],
            mem_owner: vec![],
            epoch: 0,
            changed: vec![],
        };
        let mut layout = vec![];
        fn walk(d: &Design, m: usize, st: &mut State, layout: &mut Vec<Base>) {
            let md = &d.modules[m];
            let base = Base {
                q: [st.q[0].len(), st.q[1].len()],
                mem: st.mems.len(),
                module: m,
                idx: layout.len(),
            };
            layout.push(base);
            st.changed.push(0);
            for dom in 0..2 {
                if md.decl.words[dom] > 0 {
                    st.own[dom].push((base.idx, base.q[dom], base.q[dom] + md.decl.words[dom]));
                }
                let n = st.q[dom].len() + md.decl.words[dom];
                st.q[dom].resize(n, 0);
                st.reset[dom].resize(n, 0);
            }
            for r in &md.decl.regs {
                if let Some(v) = r.reset {
                    let o = base.q[r.dom as usize] + r.off;
                    let nw = words_for(r.width);
                    st.reset[r.dom as usize][o..o + nw].copy_from_slice(&v[..nw]);
                }
            }
            for mi in &md.decl.mems {
                let nw = words_for(mi.width);
                let mut data = vec![0u64; nw * mi.depth()];
                if let Some(init) = &mi.init {
                    for (k, w) in init.iter().enumerate() {
                        data[k * nw..(k + 1) * nw].copy_from_slice(&w[..nw]);
                    }
                }
                st.mems_of[mi.dom as usize].push(st.mems.len());
                st.mem_owner.push(base.idx);
                st.mems.push(MemState {
                    dom: mi.dom,
                    nw,
                    mask: mi.depth() - 1,
                    data,
                    rdata: vec![0; nw * mi.read_ports],
                    rd: vec![(false, 0); mi.read_ports],
                    wr: vec![(false, 0, [0; WORDS]); mi.write_ports],
                });
            }
            for inst in &md.insts {
                walk(d, inst.module, st, layout);
            }
        }
        walk(design, design.top, &mut st, &mut layout);
        st.d = st.q.clone();
        let rel = design
            .modules
            .iter()
            .map(|md| {
                let mut off = 1;
                md.insts
                    .iter()
                    .map(|i| {
                        let o = off;
                        off += subtree_size(design, i.module);
                        o
                    })
                    .collect()
            })
            .collect();
        (st, layout, rel)
    }

    fn reset(&mut self) {
        for dom in 0..2 {
            self.q[dom].copy_from_slice(&self.reset[dom]);
            self.d[dom].copy_from_slice(&self.reset[dom]);
        }
    }

    #[inline]
    fn commit(&mut self, dom: Domain) {
        let di = dom as usize;
        self.epoch += 1;
        let epoch = self.epoch;
        for &k in &self.mems_of[di] {
            let m = &mut self.mems[k];
            debug_assert_eq!(m.dom, dom);
            let nw = m.nw;
            for (p, &(en, a)) in m.rd.iter().enumerate() {
                if en {
                    let a = a & m.mask;
                    let (new, old) = (&m.data[a * nw..(a + 1) * nw], &mut m.rdata[p * nw..(p + 1) * nw]);
                    if new != old {
                        old.copy_from_slice(new);
                        self.changed[self.mem_owner[k]] = epoch;
                    }
                }
            }
            for &(en, a, v) in &m.wr {
                if en {
                    let a = a & m.mask;
                    m.data[a * nw..(a + 1) * nw].copy_from_slice(&v[..nw]);
                }
            }
        }
        let (q, d) = (&mut self.q[di], &self.d[di]);
        for &(inst, a, b) in &self.own[di] {
            if q[a..b] != d[a..b] {
                q[a..b].copy_from_slice(&d[a..b]);
                self.changed[inst] = epoch;
            }
        }
    }
}

/// Flattens a port struct into words (for VCD and co-simulation).
pub(crate) struct Flatten<'a> {
    pub out: &'a mut Vec<u64>,
}
impl PortVisitor<Concrete> for Flatten<'_> {
    fn port<const W: usize>(&mut self, _n: PortName<'_>, _d: Domain, s: &Bits<W>) {
        self.out.extend_from_slice(&s.words()[..words_for(W)]);
    }
}

/// Builds a port struct from words.
pub(crate) struct Unflatten<'a> {
    pub words: &'a [u64],
    pub pos: usize,
}
impl PortBuilder<Concrete> for Unflatten<'_> {
    fn port<const W: usize>(&mut self, _n: PortName<'_>, _d: Domain) -> Bits<W> {
        let v = Bits::from_slice(&self.words[self.pos..]);
        self.pos += words_for(W);
        v
    }
}

/// The words of a port struct as it lies in memory (the memo's form of
/// inputs and outputs: one compare or copy instead of one per port).
///
/// Every field of a `ports!` struct is a [`Bits`] (`WORDS` words, no
/// padding, bits above its width always zero) or an array of them, so the
/// struct is exactly `WORDS` words per port and two structs are equal
/// port for port when their words are equal. [`raw_layout_ok`] checks
/// this for `P` (asserted at an instance's first memo record, before any
/// other use of its memo).
#[inline(always)]
fn raw<P: Ports<Concrete>>(p: &P) -> &[u64] {
    // SAFETY: `P` is a struct of `[u64; WORDS]`-sized, 8-aligned fields
    // only (checked by `raw_layout_ok`), so all its bytes are initialized
    // `u64` words.
    unsafe { std::slice::from_raw_parts(p as *const P as *const u64, std::mem::size_of::<P>() / 8) }
}

/// A port struct from the words [`raw`] gave.
#[inline(always)]
fn from_raw<P: Ports<Concrete>>(w: &[u64]) -> P {
    assert_eq!(
        w.len() * 8,
        std::mem::size_of::<P>(),
        "memo: port words of another type"
    );
    // SAFETY: the words are those of a `P` (same size, checked), copied by
    // `raw`; every bit pattern read back is the value that was stored.
    unsafe { std::ptr::read_unaligned(w.as_ptr() as *const P) }
}

/// `P` is laid out as [`raw`] assumes: as many `Bits` as it has ports
/// (array elements counted), nothing else.
fn raw_layout_ok<P: Ports<Concrete>>() -> bool {
    struct Count(usize);
    impl PortVisitor<Concrete> for Count {
        fn port<const W: usize>(&mut self, _n: PortName<'_>, _d: Domain, _s: &Bits<W>) {
            self.0 += 1;
        }
    }
    let mut c = Count(0);
    zero_ports::<P>().visit(&mut c);
    std::mem::size_of::<P>() == c.0 * std::mem::size_of::<Bits<1>>() && std::mem::align_of::<P>() <= 8
}

/// A port struct with every port zero.
pub fn zero_ports<P: Ports<Concrete>>() -> P {
    P::build(&mut crate::hdl::block::ZeroPorts)
}

/// Flatten a port struct into words, each port taking `(W+63)/64` words.
pub fn flatten<P: Ports<Concrete>>(p: &P, out: &mut Vec<u64>) {
    out.clear();
    p.visit(&mut Flatten { out });
}

/// Build a port struct from words laid out as by [`flatten`].
pub fn unflatten<P: Ports<Concrete>>(words: &[u64]) -> P {
    P::build(&mut Unflatten { words, pos: 0 })
}

/// A simulation of block `K`.
pub struct Sim<K: Block> {
    blk: K,
    design: Design,
    st: State,
    layout: Vec<Base>,
    rel: Vec<Vec<usize>>,
    t: u64,
    vcd: Option<VcdWriter>,
    buf_in: Vec<u64>,
    buf_out: Vec<u64>,
    /// The design has no hot-domain registers or memories.
    core_only: bool,
    /// Inputs and outputs of the last core-edge evaluation (core-only designs).
    last: Option<(Vec<u64>, K::Out<Concrete>)>,
    odd_in: Vec<u64>,
    spans: Vec<Span>,
    memo: Vec<Memo>,
    hot_sub: Vec<bool>,
}

impl<K: Block> Sim<K> {
    /// Elaborate `blk` (all design checks run here) and build its state, in
    /// reset.
    pub fn new(blk: K) -> Result<Self, ElabError> {
        let design = elaborate(&blk)?;
        let (st, layout, rel) = State::new(&design);
        let spans = spans(&design, &st, &layout);
        // Per instance: its subtree has hot-domain registers or memories.
        let hot = Domain::Hot as usize;
        let hot_sub: Vec<bool> = layout
            .iter()
            .zip(&spans)
            .map(|(b, sp)| sp.q_end[hot] > b.q[hot] || st.mems[b.mem..sp.mem_end].iter().any(|m| m.dom == Domain::Hot))
            .collect();
        let mut s = Sim {
            blk,
            design,
            st,
            layout,
            rel,
            t: 0,
            vcd: None,
            buf_in: vec![],
            buf_out: vec![],
            core_only: !hot_sub[0],
            last: None,
            odd_in: vec![],
            spans,
            memo: vec![],
            hot_sub,
        };
        s.memo = vec![Memo::default(); s.layout.len()];
        s.reset();
        Ok(s)
    }

    /// The elaborated design.
    pub fn design(&self) -> &Design {
        &self.design
    }

    /// The block.
    pub fn block(&self) -> &K {
        &self.blk
    }

    /// Hot cycles simulated so far (the next step is hot cycle `hot_cycle()`).
    pub fn hot_cycle(&self) -> u64 {
        self.t
    }

    /// True when the design has no hot-domain registers or memories (every
    /// state change happens at core edges).
    pub fn core_only(&self) -> bool {
        self.core_only
    }

    /// Core cycles completed so far.
    pub fn core_cycle(&self) -> u64 {
        self.t.div_ceil(2)
    }

    /// True when the next step has a core-clock edge.
    pub fn next_is_core_edge(&self) -> bool {
        Domain::Core.edge_at(self.t)
    }

    /// Assert reset: every register with a reset value takes it (memories
    /// keep their contents). Time is not advanced.
    pub fn reset(&mut self) {
        self.last = None;
        for m in &mut self.memo {
            m.valid = false;
            m.moore_valid = false;
        }
        self.st.reset();
    }

    /// Evaluate the combinational logic only (no clock edge).
    #[inline]
    pub fn eval(&mut self, i: &K::In<Concrete>) -> K::Out<Concrete> {
        self.last = None;
        self.eval_at(i, true)
    }

    /// Evaluate for hot cycle `self.t` (its core edge decides what may be
    /// skipped, see [`Ctx::instance_end_sink`]).
    #[inline]
    fn eval_inner(&mut self, i: &K::In<Concrete>) -> K::Out<Concrete> {
        self.eval_at(i, Domain::Core.edge_at(self.t))
    }

    #[inline]
    fn eval_at(&mut self, i: &K::In<Concrete>, core_edge: bool) -> K::Out<Concrete> {
        let mut cx = SimCx {
            st: &mut self.st,
            layout: &self.layout,
            rel: &self.rel,
            cur: self.layout[0],
            ord: 0,
            spans: &self.spans,
            memo: &mut self.memo,
            hot_sub: &self.hot_sub,
            core_edge,
            design: &self.design,
        };
        self.blk.eval(&mut cx, i)
    }

    /// One hot cycle: evaluate with inputs `i`, then commit every domain with
    /// an edge now. Returns the outputs seen before the edge.
    #[inline]
    pub fn step(&mut self, i: &K::In<Concrete>) -> K::Out<Concrete> {
        let o = if !self.core_only {
            self.eval_inner(i)
        } else if !Domain::Core.edge_at(self.t) {
            // No hot-domain state: nothing commits at this edge, and the
            // state seen now is the state of the next core edge. Keep this
            // evaluation (outputs, every `_d`, every memory port) for it: it
            // stands for that edge's, so nothing in it may be skipped.
            let o = self.eval_at(i, true);
            let mut li = self.last.take().map(|(v, _)| v).unwrap_or_default();
            flatten(i, &mut li);
            self.last = Some((li, o));
            o
        } else {
            // Core edge: if the inputs equal those of the hot cycle before,
            // that evaluation is this one (same state, same inputs).
            flatten(i, &mut self.odd_in);
            match self.last.take() {
                Some((li, lo)) if li == self.odd_in => lo,
                _ => self.eval_inner(i),
            }
        };
        if self.vcd.is_some() {
            self.dump_pre(i, &o);
        }
        self.st.commit(Domain::Hot);
        if Domain::Core.edge_at(self.t) {
            self.st.commit(Domain::Core);
        }
        self.t += 1;
        if self.vcd.is_some() {
            self.dump_post();
        }
        o
    }

    /// One core cycle (two hot cycles with the same inputs); returns the
    /// outputs before the core edge.
    pub fn step_core(&mut self, i: &K::In<Concrete>) -> K::Out<Concrete> {
        debug_assert!(self.next_is_core_edge(), "step_core must start on a core edge");
        if self.core_only && self.vcd.is_none() {
            // Nothing commits at the hot-only edge of a design without hot
            // state, and its outputs there are not returned: one evaluation
            // per core cycle gives the same state as two `step`s.
            self.last = None;
            let o = self.eval_inner(i);
            self.st.commit(Domain::Hot);
            self.st.commit(Domain::Core);
            self.t += 2;
            return o;
        }
        let o = self.step(i);
        self.step(i);
        o
    }

    /// Current value of register `name` (e.g. `"count"`; `"u_fifo.count"` in
    /// an instance) as words, or `None` if there is no such register.
    pub fn peek(&self, path: &str) -> Option<Vec<u64>> {
        let mut mi = self.design.top;
        let mut li = 0usize;
        let mut parts: Vec<&str> = path.split('.').collect();
        let reg = parts.pop()?;
        // Walk the pre-order layout to find the instance.
        for inst_name in parts {
            let m = &self.design.modules[mi];
            let mut next = li + 1;
            let mut found = None;
            for inst in &m.insts {
                if inst.name == inst_name {
                    found = Some((inst.module, next));
                    break;
                }
                next += subtree_size(&self.design, inst.module);
            }
            (mi, li) = found?;
        }
        let m = &self.design.modules[mi];
        let r = m.decl.regs.iter().find(|r| r.name == reg)?;
        let o = self.layout[li].q[r.dom as usize] + r.off;
        Some(self.st.q[r.dom as usize][o..o + words_for(r.width)].to_vec())
    }

    /// Start writing a VCD of every port, register and memory read register
    /// to `path` (parent folders are created), and a GTKWave save file next
    /// to it (`<path>.gtkw`: clocks, ports grouped per interface, registers
    /// grouped per index such as per warp or per CTA slot; `gtkwave
    /// <path>.gtkw` opens both). Call before the first step
    /// of the window you want.
    pub fn open_vcd(&mut self, path: impl AsRef<Path>) -> std::io::Result<()> {
        let w = VcdWriter::create(path.as_ref(), &self.design, &self.layout_info())?;
        super::gtkw::write_gtkw(path.as_ref(), &self.design)?;
        self.vcd = Some(w);
        let t = self.t;
        let st = &self.st;
        self.vcd
            .as_mut()
            .unwrap()
            .initial(t, &st.q, &st.mems.iter().map(|m| m.rdata.clone()).collect::<Vec<_>>())?;
        Ok(())
    }

    /// Finish and close the VCD (also done on drop).
    pub fn close_vcd(&mut self) -> std::io::Result<()> {
        match self.vcd.take() {
            Some(w) => w.finish(),
            None => Ok(()),
        }
    }

    fn layout_info(&self) -> Vec<([usize; 2], usize)> {
        self.layout.iter().map(|b| (b.q, b.mem)).collect()
    }

    fn dump_pre(&mut self, i: &K::In<Concrete>, o: &K::Out<Concrete>) {
        flatten(i, &mut self.buf_in);
        flatten(o, &mut self.buf_out);
        let t = self.t;
        if let Some(w) = &mut self.vcd {
            if let Err(e) = w.pre_edge(t, &self.buf_in, &self.buf_out) {
                eprintln!("warning: VCD write failed, closing it: {e}");
                self.vcd = None;
            }
        }
    }

    fn dump_post(&mut self) {
        let t = self.t;
        let st = &self.st;
        if let Some(w) = &mut self.vcd {
            if let Err(e) = w.post_edge(t - 1, &st.q, |k| &st.mems[k].rdata) {
                eprintln!("warning: VCD write failed, closing it: {e}");
                self.vcd = None;
            }
        }
    }
}

impl<K: Block> Drop for Sim<K> {
    fn drop(&mut self) {
        let _ = self.close_vcd();
    }
}

/// Per instance (pre-order): where its subtree ends.
fn spans(d: &Design, st: &State, layout: &[Base]) -> Vec<Span> {
    layout
        .iter()
        .map(|b| {
            let end = b.idx + subtree_size(d, b.module);
            let (q_end, mem_end) = match layout.get(end) {
                Some(e) => (e.q, e.mem),
                None => ([st.q[0].len(), st.q[1].len()], st.mems.len()),
            };
            Span {
                q_end,
                mem_end,
                inst_end: end,
            }
        })
        .collect()
}

/// Number of instances in the subtree of module `m` (itself included).
pub(crate) fn subtree_size(d: &Design, m: usize) -> usize {
    1 + d.modules[m]
        .insts
        .iter()
        .map(|i| subtree_size(d, i.module))
        .sum::<usize>()
}
