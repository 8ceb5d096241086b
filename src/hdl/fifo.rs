//! Synchronous FIFO: a library block built on the RAM primitive, usable from
//! any block through `cx.instance(..)` and simulated and exported like any
//! other block.
//!
//! ```text
//!            +-----------------------------+
//! push_i --->| wr_ptr_q --> RAM mem_q      |---> rdata_o  (registered read)
//! wdata_i -->|             2^A x W         |---> rvalid_o
//! pop_i ---->| rd_ptr_q --> (sync read)    |---> full_o, empty_o
//!            | full_q                      |
//!            +-----------------------------+
//! ```
//!
//! * Clock domain: core (`clk_core_i`); everything commits on its edge.
//! * Ports: `push_i`, `wdata_i[W]`, `pop_i` in; `rdata_o[W]`, `rvalid_o`,
//!   `full_o`, `empty_o` out.
//! * A push is accepted when `push_i && !full_o`; a pop when
//!   `pop_i && !empty_o` (both judged before the edge, so a push into a full
//!   FIFO is refused even when a pop happens in the same cycle, and a pop of
//!   an empty FIFO is refused even when a push happens). Refused requests do
//!   nothing.
//! * Latency: the word popped at core edge k is on `rdata_o` with `rvalid_o`
//!   high from edge k until edge k+1; `rdata_o` keeps its value otherwise.
//!   A pushed word can be popped at the next edge (1 cycle fall-through).
//! * Sizes: width `W` (1..=256) and depth `2^A` are type parameters; the
//!   module is named `fifo_w<W>_d<depth>`. GPU-CC core input FIFOs are
//!   `Fifo<32, 4>` (16 entries, `SmConfig::gpucc.fifo_depth`).

use super::{Block, Ctx, Decl, Domain, Mem, Reg, Sig};

crate::ports! {
    /// FIFO inputs (core domain).
    pub struct FifoIn[W] { push_i: 1 @ Core, wdata_i: W @ Core, pop_i: 1 @ Core }
}
crate::ports! {
    /// FIFO outputs (core domain).
    pub struct FifoOut[W] { rdata_o: W @ Core, rvalid_o: 1 @ Core, full_o: 1 @ Core, empty_o: 1 @ Core }
}

/// A FIFO of `2^A` words of `W` bits.
#[derive(Debug, Clone)]
pub struct Fifo<const W: usize, const A: usize> {
    decl: Decl,
    wr_ptr: Reg<A>,
    rd_ptr: Reg<A>,
    full: Reg<1>,
    rvalid: Reg<1>,
    mem: Mem<W, A>,
}

impl<const W: usize, const A: usize> Default for Fifo<W, A> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const W: usize, const A: usize> Fifo<W, A> {
    /// Number of entries.
    pub const DEPTH: usize = 1 << A;

    /// Declare the FIFO's state.
    pub fn new() -> Self {
        let mut decl = Decl::new();
        // Pointers index the 2^A entries, so they are A bits wide; `full`
        // tells a full FIFO from an empty one when the pointers are equal.
        let wr_ptr = decl.reg::<A>("wr_ptr", Domain::Core, 0);
        let rd_ptr = decl.reg::<A>("rd_ptr", Domain::Core, 0);
        let full = decl.reg::<1>("full", Domain::Core, 0);
        let rvalid = decl.reg::<1>("rvalid", Domain::Core, 0);
        let mem = decl.mem::<W, A>("mem", Domain::Core, 1, 1);
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

impl<const W: usize, const A: usize> Block for Fifo<W, A> {
    type In<B: super::Backend> = FifoIn<B, W>;
    type Out<B: super::Backend> = FifoOut<B, W>;

    fn module_name(&self) -> String {
        format!("fifo_w{W}_d{}", 1usize << A)
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &FifoIn<C::B, W>) -> FifoOut<C::B, W> {
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
        FifoOut {
            rdata_o: rdata,
            rvalid_o: cx.q(self.rvalid),
            full_o: full,
            empty_o: empty,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdl::{Bits, Sim};
    use std::collections::VecDeque;

    fn inp(push: bool, v: u32, pop: bool) -> FifoIn<crate::hdl::Concrete, 32> {
        FifoIn {
            push_i: Bits::new(push as u64),
            wdata_i: Bits::new(v as u64),
            pop_i: Bits::new(pop as u64),
        }
    }

    #[test]
    fn fills_drains_and_refuses() {
        let mut s = Sim::new(Fifo::<32, 2>::new()).unwrap();
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
        let mut a = Sim::new(Fifo::<32, 3>::new()).unwrap();
        let mut b = Sim::new(Fifo::<32, 3>::new()).unwrap();
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
        let mut s = Sim::new(Fifo::<32, 3>::new()).unwrap();
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
            let (full, empty) = (q.len() == 8, q.is_empty());
            pending = if pop && !empty { q.pop_front() } else { None };
            if push && !full {
                q.push_back(v);
            }
        }
    }
}
