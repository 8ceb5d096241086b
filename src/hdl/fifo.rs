//! Synchronous FIFO: a library block built on the RAM primitive, usable in
//! either clock domain from any block through `cx.instance(..)`, simulated
//! and exported like any other block.
//!
//! ```text
//!            +-----------------------------+
//! push_i --->| wr_ptr_q --> RAM mem_q      |---> rdata_o  (registered read)
//! wdata_i -->|             2^A x W         |---> rvalid_o
//! pop_i ---->| rd_ptr_q --> (sync read)    |---> full_o, empty_o
//!            | full_q                      |---> count_o (occupancy)
//!            +-----------------------------+
//! ```
//!
//! * Clock domain: the const parameter `D` ([`CORE`] = 0: `clk_core_i`,
//!   [`HOT`] = 1: `clk_hot_i`); every port and register is in it.
//! * Ports: `push_i`, `wdata_i[W]`, `pop_i` in; `rdata_o[W]`, `rvalid_o`,
//!   `full_o`, `empty_o`, `count_o[C]` out.
//! * A push is accepted when `push_i && !full_o`; a pop when
//!   `pop_i && !empty_o` (both judged before the edge, so a push into a full
//!   FIFO is refused even when a pop happens in the same cycle, and a pop of
//!   an empty FIFO is refused even when a push happens). Refused requests do
//!   nothing.
//! * `count_o`: the entries held (0..=2^A) before the edge, `{full_q,
//!   wr_ptr_q - rd_ptr_q}`: a producer that keeps credits (a sender whose
//!   results are still in flight, GPU-CC's firing rule) compares it with
//!   the depth; it is a Moore output.
//! * Latency: the word popped at edge k is on `rdata_o` with `rvalid_o`
//!   high from edge k until edge k+1; `rdata_o` keeps its value otherwise.
//!   A pushed word can be popped at the next edge (1 cycle fall-through).
//! * Sizes: width `W` (1..=256) and depth `2^A` are type parameters, `C`
//!   (the count's width) must be `A + 1` (checked at compile time: a count
//!   of 0..=2^A needs A+1 bits). The module is named `fifo_w<W>_d<depth>`,
//!   with `_hot` for the hot domain. GPU-CC core input FIFOs are
//!   `Fifo<32, 4, 5, _>` (16 entries, `SmConfig::gpucc.fifo_depth`).

use super::{Block, Ctx, Decl, Domain, Mem, Reg, Sig};

/// `D` of a core-domain FIFO.
pub const CORE: usize = 0;
/// `D` of a hot-domain FIFO.
pub const HOT: usize = 1;

crate::ports! {
    /// FIFO inputs (domain `D`).
    pub struct FifoIn[W, D] { push_i: 1 @ { Domain::of(D) }, wdata_i: W @ { Domain::of(D) }, pop_i: 1 @ { Domain::of(D) } }
}
crate::ports! {
    /// FIFO outputs (domain `D`).
    pub struct FifoOut[W, C, D] {
        rdata_o: W @ { Domain::of(D) },
        rvalid_o: 1 @ { Domain::of(D) },
        full_o: 1 @ { Domain::of(D) },
        empty_o: 1 @ { Domain::of(D) },
        count_o: C @ { Domain::of(D) },
    }
}

/// A FIFO of `2^A` words of `W` bits in clock domain `D` ([`CORE`] or
/// [`HOT`]) with a `C = A + 1`-bit occupancy output.
#[derive(Debug, Clone)]
pub struct Fifo<const W: usize, const A: usize, const C: usize, const D: usize = CORE> {
    decl: Decl,
    wr_ptr: Reg<A>,
    rd_ptr: Reg<A>,
    full: Reg<1>,
    rvalid: Reg<1>,
    mem: Mem<W, A>,
}

impl<const W: usize, const A: usize, const C: usize, const D: usize> Default for Fifo<W, A, C, D> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const A: usize, const C: usize, const D: usize> Fifo<W, A, C, D> {
    /// Number of entries.
    pub const DEPTH: usize = 1 << A;

    /// Declare the FIFO's state.
    pub fn new() -> Self {
        const { assert!(C == A + 1, "a FIFO's count is A + 1 bits wide") };
        let dom = Domain::of(D);
        let mut decl = Decl::new();
        // Pointers index the 2^A entries, so they are A bits wide; `full`
        // tells a full FIFO from an empty one when the pointers are equal.
        let wr_ptr = decl.reg::<A>("wr_ptr", dom, 0);
        let rd_ptr = decl.reg::<A>("rd_ptr", dom, 0);
        let full = decl.reg::<1>("full", dom, 0);
        let rvalid = decl.reg::<1>("rvalid", dom, 0);
        let mem = decl.mem::<W, A>("mem", dom, 1, 1);
        Fifo {
            decl,
            wr_ptr,
            rd_ptr,
            full,
            rvalid,
            mem,
        }
    }
}

impl<const W: usize, const A: usize, const C: usize, const D: usize> Block for Fifo<W, A, C, D> {
    type In<B: super::Backend> = FifoIn<B, W, D>;
    type Out<B: super::Backend> = FifoOut<B, W, C, D>;

    fn module_name(&self) -> String {
        let hot = if D == CORE { "" } else { "_hot" };
        format!("fifo_w{W}_d{}{hot}", 1usize << A)
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn eval<C2: Ctx>(&self, cx: &mut C2, i: &FifoIn<C2::B, W, D>) -> FifoOut<C2::B, W, C, D> {
        let wr = cx.q(self.wr_ptr);
        let rd = cx.q(self.rd_ptr);
        let full = cx.q(self.full);
        let one = cx.lit::<A>(1);
        let empty = cx.name("empty", rd.eq(wr) & !full);
        let push = cx.name("push_ok", i.push_i & !full);
        let pop = cx.name("pop_ok", i.pop_i & !empty);
        let wr_n = wr + one;
        let rd_n = rd + one;
        cx.d(self.wr_ptr, push.mux(wr_n, wr));
        cx.d(self.rd_ptr, pop.mux(rd_n, rd));
        // Full after a lone push that catches up with the read pointer;
        // not full after a lone pop; otherwise unchanged.
        let f = cx.lit::<1>(0);
        let lone_push = push & !pop;
        let lone_pop = pop & !push;
        let full_d = lone_push.mux(wr_n.eq(rd), lone_pop.mux(f, full));
        cx.d(self.full, full_d);
        cx.d(self.rvalid, pop);
        let rdata = cx.mem_read(self.mem, 0, pop, rd);
        cx.mem_write(self.mem, 0, push, wr, i.wdata_i);
        // Equal pointers mean empty or full: the full flag is the count's
        // top bit, the pointer difference the rest.
        let count = full.concat::<A, C>(wr - rd);
        FifoOut {
            rdata_o: rdata,
            rvalid_o: cx.q(self.rvalid),
            full_o: full,
            empty_o: empty,
            count_o: cx.name("count", count),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdl::{Bits, Sim};
    use std::collections::VecDeque;

    fn inp(push: bool, v: u32, pop: bool) -> FifoIn<crate::hdl::Concrete, 32, CORE> {
        FifoIn {
            push_i: Bits::new(push as u64),
            wdata_i: Bits::new(v as u64),
            pop_i: Bits::new(pop as u64),
        }
    }

    #[test]
    fn fills_drains_and_refuses() {
        let mut s = Sim::new(Fifo::<32, 2, 3>::new()).unwrap();
        for k in 0..6 {
            let o = s.step_core(&inp(true, 100 + k, false));
            assert_eq!(o.full_o.to_u64() == 1, k >= 4, "full after 4 pushes (k={k})");
        }
        let mut got = vec![];
        for _ in 0..6 {
            let o = s.step_core(&inp(false, 0, true));
            if o.rvalid_o.to_u64() == 1 {
                got.push(o.rdata_o.to_u64() as u32);
            }
        }
        let o = s.step_core(&inp(false, 0, false));
        if o.rvalid_o.to_u64() == 1 {
            got.push(o.rdata_o.to_u64() as u32);
        }
        assert_eq!(got, vec![100, 101, 102, 103], "pushes beyond depth 4 are refused");
        assert_eq!(o.empty_o.to_u64(), 1);
    }

    /// `step_core` on a core-only design evaluates once per core cycle; it
    /// must leave the same state and return the same outputs as two `step`s.
    #[test]
    fn step_core_shortcut_equals_two_steps() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        let mut a = Sim::new(Fifo::<32, 3, 4>::new()).unwrap();
        let mut b = Sim::new(Fifo::<32, 3, 4>::new()).unwrap();
        assert!(a.core_only());
        for cyc in 0..5_000 {
            let i = inp(rng.gen_bool(0.5), rng.gen(), rng.gen_bool(0.5));
            let oa = a.step_core(&i);
            let ob = b.step(&i);
            b.step(&i);
            let (mut fa, mut fb) = (vec![], vec![]);
            crate::hdl::sim::flatten(&oa, &mut fa);
            crate::hdl::sim::flatten(&ob, &mut fb);
            assert_eq!(fa, fb, "core cycle {cyc}");
            assert_eq!(a.hot_cycle(), b.hot_cycle());
            for r in ["wr_ptr", "rd_ptr", "full", "rvalid"] {
                assert_eq!(a.peek(r), b.peek(r), "{r} at core cycle {cyc}");
            }
        }
    }

    #[test]
    fn random_against_vecdeque() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut s = Sim::new(Fifo::<32, 3, 4>::new()).unwrap();
        let mut q: VecDeque<u32> = VecDeque::new();
        let mut pending: Option<u32> = None;
        for cyc in 0..20_000 {
            let (push, pop, v) = (rng.gen_bool(0.5), rng.gen_bool(0.5), rng.gen::<u32>());
            let o = s.step_core(&inp(push, v, pop));
            assert_eq!(o.rvalid_o.to_u64() == 1, pending.is_some(), "cycle {cyc}");
            if let Some(p) = pending {
                assert_eq!(o.rdata_o.to_u64() as u32, p, "cycle {cyc}");
            }
            assert_eq!(o.full_o.to_u64() == 1, q.len() == 8, "cycle {cyc}");
            assert_eq!(o.empty_o.to_u64() == 1, q.is_empty(), "cycle {cyc}");
            assert_eq!(o.count_o.to_u64(), q.len() as u64, "cycle {cyc}");
            let (full, empty) = (q.len() == 8, q.is_empty());
            pending = if pop && !empty { q.pop_front() } else { None };
            if push && !full {
                q.push_back(v);
            }
        }
    }

    /// A hot-domain FIFO moves at every hot edge (two per core cycle);
    /// its outputs and count follow a queue model at hot-cycle resolution.
    #[test]
    fn hot_domain_fifo_against_vecdeque() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        let mut s = Sim::new(Fifo::<16, 2, 3, HOT>::new()).unwrap();
        assert!(!s.core_only());
        assert_eq!(s.block().module_name(), "fifo_w16_d4_hot");
        let mut q: VecDeque<u16> = VecDeque::new();
        let mut pending: Option<u16> = None;
        for cyc in 0..20_000 {
            let (push, pop, v) = (rng.gen_bool(0.6), rng.gen_bool(0.5), rng.gen::<u16>());
            let i = FifoIn::<crate::hdl::Concrete, 16, HOT> {
                push_i: Bits::new(push as u64),
                wdata_i: Bits::new(v as u64),
                pop_i: Bits::new(pop as u64),
            };
            let o = s.step(&i);
            assert_eq!(o.rvalid_o.to_u64() == 1, pending.is_some(), "hot cycle {cyc}");
            if let Some(p) = pending {
                assert_eq!(o.rdata_o.to_u64() as u16, p, "hot cycle {cyc}");
            }
            assert_eq!(o.count_o.to_u64(), q.len() as u64, "hot cycle {cyc}");
            assert_eq!(o.full_o.to_u64() == 1, q.len() == 4, "hot cycle {cyc}");
            let (full, empty) = (q.len() == 4, q.is_empty());
            pending = if pop && !empty { q.pop_front() } else { None };
            if push && !full {
                q.push_back(v);
            }
        }
    }
}
