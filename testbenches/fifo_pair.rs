//! A small hierarchical test block: two FIFOs in series (`u_first` feeds
//! `u_second`), so that instances, the pre-order state layout, nested VCD
//! scopes and one-module-per-parameter-set export are all exercised.
//! `count` is a hot-clock register counting words that leave the pair, read
//! back into the core domain through an explicit crossing.

use crate::hdl::fifo::{Fifo, FifoIn};
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig};

crate::ports! {
    /// Inputs.
    pub struct PairIn { push_i: 1 @ Core, wdata_i: 8 @ Core, pop_i: 1 @ Core }
}
crate::ports! {
    /// Outputs.
    pub struct PairOut { rdata_o: 8 @ Core, rvalid_o: 1 @ Core, full_o: 1 @ Core, count_o: 16 @ Core }
}

/// Two 4-entry FIFOs in series plus a hot-domain counter.
#[derive(Debug, Clone)]
pub struct FifoPair {
    decl: Decl,
    fifo: Fifo<8, 2, 3>,
    count: Reg<16>,
    seen: Reg<1>,
}

impl Default for FifoPair {
    fn default() -> Self {
        Self::new()
    }
}

impl FifoPair {
    pub fn new() -> Self {
        let mut decl = Decl::new();
        let count = decl.reg::<16>("count", Domain::Hot, 0);
        let seen = decl.reg::<1>("seen", Domain::Hot, 0);
        FifoPair {
            decl,
            fifo: Fifo::new(),
            count,
            seen,
        }
    }
}

impl Block for FifoPair {
    type In<B: Backend> = PairIn<B>;
    type Out<B: Backend> = PairOut<B>;

    fn module_name(&self) -> String {
        "fifo_pair".into()
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &PairIn<C::B>) -> PairOut<C::B> {
        // u_second's inputs come from u_first's outputs, and u_first's pop
        // depends on u_second's `full_o`: both use `instance_fb` (FIFOs are
        // Moore blocks, so this is legal).
        let mut first_out = None;
        let second = cx.instance_fb("u_second", &self.fifo, |cx, second| {
            let full2 = second.full_o;
            let first = cx.instance_fb("u_first", &self.fifo, |cx, first| {
                // At most one word in flight (the read takes a cycle), so a
                // word popped now always finds room in u_second next cycle.
                let pop = !first.empty_o & !full2 & !first.rvalid_o;
                let pop = cx.name("transfer", pop);
                FifoIn {
                    push_i: i.push_i,
                    wdata_i: i.wdata_i,
                    pop_i: pop,
                }
            });
            first_out = Some(first);
            FifoIn {
                push_i: first.rvalid_o,
                wdata_i: first.rdata_o,
                pop_i: i.pop_i,
            }
        });
        let first = first_out.expect("closure ran");
        // Hot-domain counter of words delivered, shown in the core domain.
        let rv = cx.cross(second.rvalid_o, Domain::Hot);
        let seen = cx.q(self.seen);
        let count = cx.q(self.count);
        let one = cx.lit::<16>(1);
        // Count once per core cycle: only on the first hot cycle of it.
        let edge = rv & !seen;
        cx.d(self.count, edge.mux(count + one, count));
        cx.d(self.seen, rv & !seen);
        let count_core = cx.cross(count, Domain::Core);
        PairOut {
            rdata_o: second.rdata_o,
            rvalid_o: second.rvalid_o,
            full_o: first.full_o,
            count_o: count_core,
        }
    }
}
