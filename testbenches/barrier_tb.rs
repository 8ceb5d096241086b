//! Testbench of the barrier block: ports, a lock-step checker against
//! [`super::barrier_ref::BarRef`], and protocol-respecting random stimulus
//! (CTAs fill, warps arrive, some with parked lanes, warps exit and CTAs
//! are relaunched).

use super::barrier_ref::{BarObs, BarRef, BarStim, Deadlock};
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use crate::units::barrier::{BarIn, BarOut, Barrier};
use rand::Rng;

pub fn to_in(s: &BarStim) -> BarIn<Concrete> {
    let mut i: BarIn<Concrete> = zero_ports();
    if let Some((w, c)) = s.join {
        i.join_valid_i = Bits::new(1);
        i.join_warp_i = Bits::new(w as u64);
        i.join_cta_i = Bits::new(c as u64);
    }
    if let Some(w) = s.leave {
        i.leave_valid_i = Bits::new(1);
        i.leave_warp_i = Bits::new(w as u64);
    }
    if let Some((w, pc, a, l)) = s.arr {
        i.arr_valid_i = Bits::new(1);
        i.arr_warp_i = Bits::new(w as u64);
        i.arr_pc_i = Bits::new(pc as u64);
        for k in 0..32 {
            i.arr_active_i[k] = Bits::new((a >> k & 1) as u64);
            i.arr_live_i[k] = Bits::new((l >> k & 1) as u64);
        }
    }
    i
}

fn m32(b: &[Bits<1>; 32]) -> u32 {
    b.iter().enumerate().fold(0, |a, (k, x)| a | (x.to_u64() as u32) << k)
}

pub fn from_out<const MW: usize>(o: &BarOut<Concrete, MW>) -> BarObs {
    let bits = |b: &[Bits<1>; MW]| b.iter().enumerate().fold(0u64, |a, (k, x)| a | x.to_u64() << k);
    let ctx = Deadlock {
        cta: o.err_cta_o.to_u64() as u32,
        warps: bits(&o.err_warps_o),
        warp: o.err_warp_o.to_u64() as u32,
        pc: o.err_pc_o.to_u64() as u32,
        arrived: m32(&o.err_arrived_o),
        parked: m32(&o.err_parked_o),
    };
    let err = o.err_o.to_u64() == 1;
    assert!(!err || o.err_code_o.to_u64() == 6, "deadlock code");
    BarObs {
        wait: bits(&o.wait_o),
        rel: (o.rel_valid_o.to_u64() == 1).then(|| o.rel_cta_o.to_u64() as u32),
        err: err.then_some(ctx),
        err_ctx: ctx,
    }
}

/// Block and reference side by side.
pub struct BarCheck<const MW: usize, const NC: usize> {
    pub sim: Sim<Barrier<MW, NC>>,
    pub rf: BarRef,
    pub cycle: u64,
}

impl<const MW: usize, const NC: usize> BarCheck<MW, NC> {
    pub fn new() -> Self {
        BarCheck {
            sim: Sim::new(Barrier::<MW, NC>::new()).expect("barrier elaborates"),
            rf: BarRef::new(MW, NC),
            cycle: 0,
        }
    }

    pub fn step(&mut self, s: &BarStim) -> Result<BarObs, String> {
        // The block's precondition (the SM keeps it): a waiting warp
        // neither leaves nor joins before its release.
        for (what, w) in [("leaves", s.leave), ("joins", s.join.map(|j| j.0))] {
            if let Some(w) = w.filter(|&w| self.rf.waiting(w)) {
                return Err(format!(
                    "stimulus breaks the barrier's precondition at core cycle {}: warp {w} {what} while it waits",
                    self.cycle
                ));
            }
        }
        let o = from_out(&self.sim.step_core(&to_in(s)));
        let r = self.rf.step(s);
        self.cycle += 1;
        if o != r {
            return Err(format!(
                "barrier mismatch at core cycle {}: {s:?}\n  rtl       {o:?}\n  reference {r:?}",
                self.cycle - 1
            ));
        }
        Ok(o)
    }
}

impl<const MW: usize, const NC: usize> Default for BarCheck<MW, NC> {
    fn default() -> Self {
        Self::new()
    }
}

/// Random protocol-respecting stimulus; `state` tracks (member, cta,
/// waiting) per warp as the generator believes it (from the block's
/// observed wait mask).
pub struct BarGen {
    pub member: Vec<Option<u32>>,
    pub p_partial: f64,
    /// The warp that arrived in the previous cycle (not yet in `wait`).
    pending: u64,
}

impl BarGen {
    pub fn new(warps: usize, p_partial: f64) -> BarGen {
        BarGen {
            member: vec![None; warps],
            p_partial,
            pending: 0,
        }
    }

    /// A leave of the lowest member that does not wait (CTAs finishing),
    /// or `None` when every member waits.
    pub fn retire(&mut self, wait: u64) -> Option<BarStim> {
        let wait = wait | self.pending;
        let w = (0..self.member.len()).find(|&w| self.member[w].is_some() && wait >> w & 1 == 0)?;
        self.member[w] = None;
        self.pending = 0;
        Some(BarStim {
            leave: Some(w as u32),
            ..BarStim::default()
        })
    }

    pub fn next<R: Rng>(&mut self, rng: &mut R, ctas: u32, wait: u64) -> BarStim {
        let n = self.member.len();
        let wait = wait | self.pending;
        self.pending = 0;
        let mut s = BarStim::default();
        let w = rng.gen_range(0..n);
        if self.member[w].is_none() && rng.gen_bool(0.5) {
            let c = rng.gen_range(0..ctas);
            s.join = Some((w as u32, c));
            self.member[w] = Some(c);
        }
        let l = rng.gen_range(0..n);
        if l != w && self.member[l].is_some() && wait >> l & 1 == 0 && rng.gen_bool(0.05) {
            s.leave = Some(l as u32);
            self.member[l] = None;
        }
        let a = rng.gen_range(0..n);
        if a != w && a != l && self.member[a].is_some() && wait >> a & 1 == 0 && rng.gen_bool(0.7) {
            let live: u32 = if rng.gen_bool(0.5) {
                u32::MAX
            } else {
                rng.gen::<u32>() | 1
            };
            let active = if rng.gen_bool(self.p_partial) {
                live & rng.gen::<u32>()
            } else {
                live
            };
            s.arr = Some((a as u32, rng.gen_range(0..1024), active, live));
            self.pending = 1 << a;
        }
        s
    }
}
