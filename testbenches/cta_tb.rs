//! Testbench of the CTA launcher: ports, a lock-step checker against
//! [`super::cta_ref::CtaRef`], and a random environment (launches that fit
//! and that do not, warps exiting, scoreboards and the LSU going idle, S2R
//! requests of running warps).

use super::cta_ref::{CtaLaunch, CtaObs, CtaRef, CtaStim};
use crate::config::SmConfig;
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use crate::units::cta::{Cta, CtaIn, CtaLimits, CtaOut, LaunchPorts};
use rand::{Rng, SeedableRng};

fn set_mask<const N: usize>(b: &mut [Bits<1>; N], m: u64) {
    for (k, x) in b.iter_mut().enumerate() {
        *x = Bits::new(m >> k & 1);
    }
}

fn mask<const N: usize>(b: &[Bits<1>; N]) -> u64 {
    b.iter().enumerate().fold(0, |a, (k, x)| a | x.to_u64() << k)
}

pub fn to_in<const MW: usize>(s: &CtaStim) -> CtaIn<Concrete, MW> {
    let mut i: CtaIn<Concrete, MW> = zero_ports();
    if let Some(l) = s.launch {
        i.launch = LaunchPorts::presented(l.grid, l.block, l.nregs, l.smem);
    }
    if let Some(w) = s.exit {
        i.exit_valid_i = Bits::new(1);
        i.exit_warp_i = Bits::new(w as u64);
    }
    set_mask(&mut i.idle_i, s.idle);
    i.lsu_idle_i = Bits::new(s.lsu_idle as u64);
    if let Some((w, sr, m, tag)) = s.s2r[0] {
        i.s2r_valid_i = Bits::new(1);
        i.s2r_warp_i = Bits::new(w as u64);
        i.s2r_idx_i = Bits::new(sr as u64);
        set_mask(&mut i.s2r_mask_i, m as u64);
        i.s2r_tag_i = Bits::new(tag as u64);
    }
    if let Some((w, sr, m, tag)) = s.s2r[1] {
        i.s2r1_valid_i = Bits::new(1);
        i.s2r1_warp_i = Bits::new(w as u64);
        i.s2r1_idx_i = Bits::new(sr as u64);
        set_mask(&mut i.s2r1_mask_i, m as u64);
        i.s2r1_tag_i = Bits::new(tag as u64);
    }
    i
}

pub fn from_out<const MW: usize>(o: &CtaOut<Concrete, MW>) -> CtaObs {
    let err = o.err_o.to_u64() == 1;
    assert_eq!(o.err_code_o.to_u64(), if err { 9 } else { 0 }, "CTA error code");
    let st = o.st_valid_o.to_u64() == 1;
    assert_eq!(o.al_valid_o.to_u64() == 1, st, "al_valid_o with st_valid_o");
    let res = |v: &Bits<1>, t: &Bits<32>, m: &[Bits<1>; 32], d: &[Bits<32>; 32]| {
        (v.to_u64() == 1).then(|| {
            (
                t.to_u64() as u32,
                mask(m) as u32,
                d.iter().map(|x| x.to_u64() as u32).collect::<Vec<u32>>(),
            )
        })
    };
    CtaObs {
        ready: o.launch_ready_o.to_u64() == 1,
        busy: o.busy_o.to_u64() == 1,
        done: o.done_o.to_u64() == 1,
        wv: mask(&o.wv_o),
        start: st.then(|| {
            (
                o.st_warp_o.to_u64() as u32,
                mask(&o.st_mask_o) as u32,
                o.st_cta_o.to_u64() as u32,
            )
        }),
        alloc: st.then(|| {
            (
                o.al_warp_o.to_u64() as u32,
                o.al_base_o.to_u64() as u32,
                o.al_nregs_o.to_u64() as u32,
            )
        }),
        sbase: o.sbase_o.iter().map(|x| x.to_u64() as u32).collect(),
        ssize: o.ssize_o.to_u64() as u32,
        res: [
            res(&o.fe_res_valid_o, &o.fe_res_tag_o, &o.fe_res_mask_o, &o.fe_res_data_o),
            res(
                &o.fe_res1_valid_o,
                &o.fe_res1_tag_o,
                &o.fe_res1_mask_o,
                &o.fe_res1_data_o,
            ),
        ],
        occ: o.occ_ctas_o.to_u64() as u32,
        res_ctas: o.res_ctas_o.to_u64() as u32,
        res_warps: o.res_warps_o.to_u64() as u32,
        err: err.then_some(9),
        reason: o.err_reason_o.to_u64() as u32,
    }
}

/// Block and reference side by side.
pub struct CtaCheck<const MW: usize, const NC: usize, const NS: usize> {
    pub sim: Sim<Cta<MW, NC, NS>>,
    pub rf: CtaRef,
    pub cycle: u64,
}

impl<const MW: usize, const NC: usize, const NS: usize> CtaCheck<MW, NC, NS> {
    pub fn new(cfg: &SmConfig) -> Result<Self, String> {
        assert_eq!(
            (
                cfg.max_warps as usize,
                cfg.max_ctas as usize,
                cfg.warp_schedulers as usize
            ),
            (MW, NC, NS)
        );
        Ok(CtaCheck {
            sim: Sim::new(Cta::<MW, NC, NS>::new(CtaLimits::of(cfg))?).map_err(|e| e.to_string())?,
            rf: CtaRef::new(cfg),
            cycle: 0,
        })
    }

    pub fn step(&mut self, s: &CtaStim) -> Result<CtaObs, String> {
        let o = from_out(&self.sim.step_core(&to_in::<MW>(s)));
        let r = self.rf.step(s);
        self.cycle += 1;
        if o != r {
            return Err(format!(
                "cta mismatch at core cycle {}: {s:?}\n  rtl       {o:?}\n  reference {r:?}",
                self.cycle - 1
            ));
        }
        Ok(o)
    }
}

/// A random launch: mostly fitting shapes, now and then one that cannot
/// fit (too many registers or too much shared memory) or an empty one.
pub fn random_launch<R: Rng>(rng: &mut R, cfg: &SmConfig) -> CtaLaunch {
    let bx = *[1, 7, 32, 33, 64, 96, 128, 200, 256, 512, 1024]
        .get(rng.gen_range(0..11))
        .unwrap();
    let by = rng.gen_range(1..=3);
    let bz = if rng.gen_bool(0.1) { rng.gen_range(1..4) } else { 1 };
    let mut l = CtaLaunch {
        grid: [rng.gen_range(1..=12), rng.gen_range(1..=3)],
        block: [bx, by, bz],
        nregs: rng.gen_range(1..=32),
        smem: if rng.gen_bool(0.5) {
            0
        } else {
            rng.gen_range(0..cfg.smem_bytes / 2)
        },
    };
    // One launch in four is bad: launches that fit are long (a grid of up
    // to 36 CTAs), bad ones are answered in a cycle, so this keeps the
    // error path exercised in a short run.
    match rng.gen_range(0..16) {
        0 => l.nregs = rng.gen_range(33..=cfg.max_regs_per_thread.min(255)),
        1 => l.smem = rng.gen_range(cfg.smem_bytes..(1 << 17)),
        2 => l.grid[rng.gen_range(0..2)] = 0,
        3 => l.nregs = 0,
        _ => {}
    }
    l
}

/// What a random run saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CtaStats {
    pub launches: u64,
    pub errors: u64,
    pub warps: u64,
    pub grids_done: u64,
    pub s2r: u64,
}

/// A random environment for `cycles` core cycles on `cfg`, every output
/// compared with the reference each cycle.
pub fn cta_random<const MW: usize, const NC: usize, const NS: usize>(
    cfg: &SmConfig,
    seed: u64,
    cycles: u64,
) -> Result<CtaStats, String> {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut c = CtaCheck::<MW, NC, NS>::new(cfg)?;
    let mut st = CtaStats::default();
    let mut last = CtaObs::default();
    // Per warp: cycles until its scoreboard is idle after the exit.
    let mut drain = vec![0u32; MW];
    let p_exit = [0.02, 0.2, 0.6];
    let mut pe = p_exit[0];
    for n in 0..cycles {
        if n % 5000 == 0 {
            pe = p_exit[rng.gen_range(0..3)];
        }
        let mut s = CtaStim {
            lsu_idle: rng.gen_bool(0.9),
            ..CtaStim::default()
        };
        if last.ready && rng.gen_bool(0.3) {
            s.launch = Some(random_launch(&mut rng, cfg));
        }
        let valid: Vec<u32> = (0..MW as u32).filter(|&w| last.wv >> w & 1 == 1).collect();
        if !valid.is_empty() && rng.gen_bool(pe) {
            let w = valid[rng.gen_range(0..valid.len())];
            s.exit = Some(w);
            drain[w as usize] = rng.gen_range(0..4);
        }
        for (w, d) in drain.iter_mut().enumerate() {
            if *d == 0 {
                s.idle |= 1 << w;
            } else {
                *d -= 1;
            }
        }
        for p in 0..NS {
            if !valid.is_empty() && rng.gen_bool(0.3) {
                let w = valid[rng.gen_range(0..valid.len())];
                s.s2r[p] = Some((w, rng.gen_range(0..14), rng.gen(), rng.gen()));
            }
        }
        let o = c.step(&s)?;
        st.launches += (s.launch.is_some() && o.ready) as u64;
        st.errors += o.err.is_some() as u64;
        st.warps += o.start.is_some() as u64;
        st.grids_done += (o.done && !last.done) as u64;
        st.s2r += o.res.iter().flatten().count() as u64;
        last = o;
    }
    Ok(st)
}
