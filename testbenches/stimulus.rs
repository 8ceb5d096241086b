//! Random stimulus that respects clock domains: a core-domain input changes
//! only before a core edge (even hot cycles) and holds for the whole core
//! cycle; a hot-domain input may change every hot cycle.

use crate::hdl::bits::words_for;
use crate::hdl::{Bits, Concrete, Domain, PortBuilder, PortName, Ports};
use rand::{Rng, RngCore};

/// Per-port bias: probability that a 1-bit input is high.
pub struct RandomPorts<'a, R: RngCore> {
    pub rng: &'a mut R,
    /// Hot cycle the values are for.
    pub t: u64,
    /// Previous values (flattened), held for core ports on odd cycles.
    pub prev: &'a [u64],
    /// Probability of a 1 on single-bit ports.
    pub p_one: f64,
    pos: usize,
}

impl<'a, R: RngCore> RandomPorts<'a, R> {
    pub fn new(rng: &'a mut R, t: u64, prev: &'a [u64], p_one: f64) -> Self {
        RandomPorts {
            rng,
            t,
            prev,
            p_one,
            pos: 0,
        }
    }
}

impl<R: RngCore> PortBuilder<Concrete> for RandomPorts<'_, R> {
    fn port<const W: usize>(&mut self, _name: PortName<'_>, dom: Domain) -> Bits<W> {
        let nw = words_for(W);
        let hold = !dom.edge_at(self.t) && self.prev.len() >= self.pos + nw;
        let v = if hold {
            Bits::from_slice(&self.prev[self.pos..])
        } else if W == 1 {
            Bits::new(self.rng.gen_bool(self.p_one) as u64)
        } else {
            // Four draws per port whatever the storage width, so stimulus
            // streams do not depend on `bits::WORDS`.
            let r: [u64; 4] = [self.rng.gen(), self.rng.gen(), self.rng.gen(), self.rng.gen()];
            let mut w = [0u64; crate::hdl::bits::WORDS];
            w.copy_from_slice(&r[..crate::hdl::bits::WORDS]);
            Bits::from_words(w)
        };
        self.pos += nw;
        v
    }
}

/// Random inputs for hot cycle `t`, holding core-domain ports from `prev`
/// (the flattened inputs of cycle `t-1`) on odd cycles.
pub fn random_inputs<P: Ports<Concrete>, R: RngCore>(rng: &mut R, t: u64, prev: &[u64], p_one: f64) -> P {
    P::build(&mut RandomPorts::new(rng, t, prev, p_one))
}

/// Random inputs for block `blk` at hot cycle `t`, constrained by
/// [`Block::constrain`] before core edges and by [`Block::constrain_hot`]
/// on every hot cycle.
pub fn block_inputs<K: crate::hdl::Block, R: RngCore>(
    blk: &K,
    rng: &mut R,
    t: u64,
    prev: &[u64],
    p_one: f64,
) -> K::In<Concrete> {
    let mut i: K::In<Concrete> = random_inputs(rng, t, prev, p_one);
    if Domain::Core.edge_at(t) {
        blk.constrain(rng.gen(), &mut i);
    }
    blk.constrain_hot(t, &mut i);
    i
}
