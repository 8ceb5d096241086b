//! Testbench of the instruction fetch block: ports, a lock-step checker
//! against [`super::ifetch_ref::IfetchRef`], the instruction memory model
//! ([`super::imem::Imem`]) in the loop, and a random environment (warps
//! started, redirected, stopping; buffers with and without room).

use super::ifetch_ref::{IfObs, IfStim, IfetchRef};
use super::imem::Imem;
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use crate::units::ifetch::{IfIn, IfOut, Ifetch};
use rand::{Rng, SeedableRng};

fn set_mask<const N: usize>(b: &mut [Bits<1>; N], m: u64) {
    for (k, x) in b.iter_mut().enumerate() {
        *x = Bits::new(m >> k & 1);
    }
}

fn mask<const N: usize>(b: &[Bits<1>; N]) -> u64 {
    b.iter().enumerate().fold(0, |a, (k, x)| a | x.to_u64() << k)
}

pub fn to_in<const MW: usize, const LW: usize>(s: &IfStim) -> IfIn<Concrete, MW, LW> {
    let mut i: IfIn<Concrete, MW, LW> = zero_ports();
    if let Some(w) = s.st {
        i.st_valid_i = Bits::new(1);
        i.st_warp_i = Bits::new(w as u64);
    }
    if let Some((w, pc)) = s.redir {
        i.redir_valid_i = Bits::new(1);
        i.redir_warp_i = Bits::new(w as u64);
        i.redir_pc_i = Bits::new(pc as u64);
    }
    set_mask(&mut i.run_i, s.run);
    set_mask(&mut i.busy_i, s.busy);
    set_mask(&mut i.room_i, s.room);
    set_mask(&mut i.hv_i, s.hv);
    i.plen_i = Bits::new(s.plen as u64);
    i.im_req_ready_i = Bits::new(s.im_req_ready as u64);
    i.hold_i = Bits::new(s.hold as u64);
    if let Some(l) = &s.im_resp {
        i.im_resp_valid_i = Bits::new(1);
        for (k, w) in l.iter().enumerate() {
            i.im_resp_data_i[k] = Bits::new(*w);
        }
    }
    i
}

pub fn from_out<const MW: usize, const FP: usize>(o: &IfOut<Concrete, MW, FP>) -> IfObs {
    let err = o.err_o.to_u64() == 1;
    assert_eq!(o.err_code_o.to_u64(), if err { 10 } else { 0 }, "pc error code");
    let ctx = (o.err_warp_o.to_u64() as u32, o.err_pc_o.to_u64() as u32);
    let push = |p: usize| {
        (p < FP && o.push_valid_o[p].to_u64() == 1).then(|| {
            (
                o.push_warp_o[p].to_u64() as u32,
                o.push_pc_o[p].to_u64() as u32,
                o.push_word_o[p].to_u64(),
            )
        })
    };
    IfObs {
        push: push(0),
        push1: push(1),
        im_req: (o.im_req_valid_o.to_u64() == 1).then(|| o.im_req_addr_o.to_u64() as u32),
        err: err.then_some(ctx),
        err_ctx: ctx,
        hits: o.cnt_hit_o.to_u64() as u32,
        misses: o.cnt_miss_o.to_u64() as u32,
        waiting: mask(&o.miss_o),
    }
}

/// Block and reference side by side.
pub struct IfCheck<const MW: usize, const LW: usize, const SB: usize, const FP: usize> {
    pub sim: Sim<Ifetch<MW, LW, SB, FP>>,
    pub rf: IfetchRef,
    pub cycle: u64,
}

impl<const MW: usize, const LW: usize, const SB: usize, const FP: usize> IfCheck<MW, LW, SB, FP> {
    pub fn new(ways: usize) -> Result<Self, String> {
        Ok(IfCheck {
            sim: Sim::new(Ifetch::<MW, LW, SB, FP>::new(ways)?).map_err(|e| e.to_string())?,
            rf: IfetchRef::new(MW, LW as u32, 1 << SB, ways, FP),
            cycle: 0,
        })
    }

    pub fn step(&mut self, s: &IfStim) -> Result<IfObs, String> {
        let o = from_out(&self.sim.step_core(&to_in::<MW, LW>(s)));
        let r = self.rf.step(s);
        self.cycle += 1;
        if o != r {
            return Err(format!(
                "ifetch mismatch at core cycle {}: {s:?}\n  rtl       {o:?}\n  reference {r:?}",
                self.cycle - 1
            ));
        }
        Ok(o)
    }
}

/// What a random run saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IfStats {
    pub cycles: u64,
    pub pushes: u64,
    /// Cycles in which both fetch ports pushed.
    pub dual: u64,
    pub misses: u64,
    pub errors: u64,
}

/// A random environment around the block for `cycles` core cycles, the
/// memory model answering after `latency` cycles: warps start and run
/// through a program of random length with redirects (branches) now and
/// then; buffers are consumed at random. Every output is compared with the
/// reference each cycle, and every pushed word with the program image.
/// `FP` fetch ports (1 or 2).
pub fn ifetch_random<const MW: usize, const LW: usize, const SB: usize, const FP: usize>(
    seed: u64,
    cycles: u64,
    ways: usize,
    latency: u32,
) -> Result<IfStats, String> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut c = IfCheck::<MW, LW, SB, FP>::new(ways)?;
    let mut st = IfStats::default();
    let new_prog = |rng: &mut rand::rngs::SmallRng| -> (Vec<u64>, u32) {
        // Up to 4 times the cache: misses, evictions and reuse.
        let cap = (LW << SB) * ways;
        let n = rng.gen_range(1..=(4 * cap).min(65535)) as u32;
        ((0..n).map(|_| rng.gen()).collect(), n)
    };
    let (mut prog, mut plen) = new_prog(&mut rng);
    let mut mem = Imem::new(prog.clone(), LW, latency);
    let mut run = 0u64;
    let mut busy = 0u64;
    let mut cnt = vec![0u32; MW];
    let mut room_p = 0.9;
    let mut hold = false;
    for n in 0..cycles {
        if n % 20_000 == 19_999 {
            // A new program (the host reloads between runs): fresh block.
            (prog, plen) = new_prog(&mut rng);
            mem = Imem::new(prog.clone(), LW, latency);
            c = IfCheck::<MW, LW, SB, FP>::new(ways)?;
            run = 0;
            busy = 0;
            cnt.iter_mut().for_each(|x| *x = 0);
            room_p = [0.3, 0.9, 1.0][rng.gen_range(0..3)];
        }
        // GPU-CC mode now and then: stretches of a few hundred cycles in
        // which a miss keeps its request back.
        if rng.gen_bool(if hold { 0.01 } else { 0.002 }) {
            hold = !hold;
        }
        let mut s = IfStim {
            plen,
            hold,
            im_req_ready: mem.ready() && rng.gen_bool(0.8),
            im_resp: mem.resp(),
            ..IfStim::default()
        };
        if rng.gen_bool(0.05) {
            let w = rng.gen_range(0..MW);
            s.st = Some(w as u32);
        }
        if rng.gen_bool(0.08) {
            let w = rng.gen_range(0..MW);
            let pc = if rng.gen_bool(0.95) {
                rng.gen_range(0..plen)
            } else {
                plen + rng.gen_range(0..3)
            };
            s.redir = Some((w as u32, pc));
        }
        if rng.gen_bool(0.02) {
            run &= !(1 << rng.gen_range(0..MW));
        }
        if rng.gen_bool(0.1) {
            busy = if rng.gen_bool(0.5) {
                0
            } else {
                1 << rng.gen_range(0..MW)
            };
        }
        s.run = run;
        s.busy = busy;
        for w in 0..MW {
            if cnt[w] < 2 && rng.gen_bool(room_p) {
                s.room |= 1 << w;
            }
            if cnt[w] > 0 {
                s.hv |= 1 << w;
            }
        }
        let o = c.step(&s)?;
        for (w, pc, word) in [o.push, o.push1].into_iter().flatten() {
            if word != prog[pc as usize] {
                return Err(format!(
                    "cycle {n}: warp {w} pc {pc}: pushed 0x{word:016x}, program has 0x{:016x}",
                    prog[pc as usize]
                ));
            }
            st.pushes += 1;
            cnt[w as usize] += 1;
        }
        st.dual += (o.push.is_some() && o.push1.is_some()) as u64;
        st.errors += o.err.is_some() as u64;
        mem.edge(o.im_req.filter(|_| s.im_req_ready));
        st.misses += (o.im_req.is_some() && s.im_req_ready) as u64;
        // Buffers drain (issue), warps start.
        for x in cnt.iter_mut() {
            if *x > 0 && rng.gen_bool(0.3) {
                *x -= 1;
            }
        }
        if let Some((w, _)) = s.redir {
            cnt[w as usize] = 0;
        }
        if let Some(w) = s.st {
            cnt[w as usize] = 0;
            run |= 1 << w;
        }
        st.cycles += 1;
    }
    Ok(st)
}
