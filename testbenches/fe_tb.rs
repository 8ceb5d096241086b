//! Drivers for the front-end blocks: apply stimulus to the RTL blocks and
//! compare with the reference models of [`super::fe_ref`], every output,
//! every core cycle.

use super::fe_ref::{plausible_word, ref_decode, Dec};
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use crate::units::decode::{Decode, DecodeIn, DecodeOut};

/// The decode block's outputs as a [`Dec`].
pub fn dec_from_out(o: &DecodeOut<Concrete>) -> Dec {
    let u = |b: u64| b as u8;
    Dec {
        err: o.err_o.to_u64() == 1,
        unit: u(o.unit_o.to_u64()),
        op: u(o.op_o.to_u64()),
        m: u(o.mod_o.to_u64()),
        gpred: u(o.gpred_o.to_u64()),
        gneg: o.gneg_o.to_u64() == 1,
        ra: u(o.ra_o.to_u64()),
        rb: u(o.rb_o.to_u64()),
        rc: u(o.rc_o.to_u64()),
        pair: u(o.pair_o.to_u64()),
        kind: u(o.kind_o.to_u64()),
        dst: u(o.dst_o.to_u64()),
        use_imm: o.use_imm_o.to_u64() == 1,
        imm: o.imm_o.to_u64() as u32,
        prd: u(o.prd_o.to_u64()),
        fmul: o.fmul_o.to_u64() == 1,
    }
}

/// Decode `w` in the RTL and the reference; an error names the word and
/// both results. A word the reference rejects only needs `err` to agree.
pub fn check_decode(sim: &mut Sim<Decode>, w: u64, fp64_ok: bool) -> Result<bool, String> {
    let mut i: DecodeIn<Concrete> = zero_ports();
    i.word_i = Bits::new(w);
    let got = dec_from_out(&sim.step_core(&i));
    let want = ref_decode(w, fp64_ok);
    let same = if want.err { got.err } else { got == want };
    if same {
        Ok(want.err)
    } else {
        Err(format!("decode of 0x{w:016x}: rtl {got:?}, reference {want:?}"))
    }
}

/// `n` random words through the decoder; returns (words, rejected).
pub fn decode_random(seed: u64, n: u64, fp64_ok: bool) -> Result<(u64, u64), String> {
    let mut sim = Sim::new(Decode::new(fp64_ok)).map_err(|e| e.to_string())?;
    let mut rejected = 0;
    for k in 0..n {
        let r = super::fe_ref::mix(seed ^ k.wrapping_mul(0x51_7cc1_b727_220a));
        let w = plausible_word(r, super::fe_ref::mix(r ^ 0x1234));
        rejected += check_decode(&mut sim, w, fp64_ok)? as u64;
    }
    Ok((n, rejected))
}

/// Random stimulus (the block's own `constrain`) on the scoreboard for
/// `cycles` core cycles, every output compared with [`SbRef`] every cycle;
/// random head instructions of every warp through [`SbQuery`] (the SM
/// top's readiness logic, [`crate::units::scoreboard::head_ok`]) on the
/// scoreboard's pending bits, compared with the reference's readiness.
pub fn scoreboard_random<const MW: usize, const NS: usize>(seed: u64, cycles: u64) -> Result<(), String> {
    use crate::hdl::Block;
    use crate::testbenches::fe_ref::SbRef;
    use crate::testbenches::stimulus::random_inputs;
    use crate::units::scoreboard::{SbIn, SbQuery, SbQueryIn, Scoreboard};
    use rand::{Rng, SeedableRng};
    let blk = Scoreboard::<MW, NS>::new();
    let mut sim = Sim::new(blk.clone()).map_err(|e| e.to_string())?;
    let qblk = SbQuery::<MW>::new();
    let mut qsim = Sim::new(qblk.clone()).map_err(|e| e.to_string())?;
    let mut rf = SbRef::new(MW);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let p = [0.2, 0.5, 0.8];
    for c in 0..cycles {
        let mut i: SbIn<Concrete, NS> = random_inputs(&mut rng, 0, &[], p[(c / 1000 % 3) as usize]);
        blk.constrain(rng.gen(), &mut i);
        let o = sim.step_core(&i);
        let mut qi: SbQueryIn<Concrete, MW> = random_inputs(&mut rng, 0, &[], p[(c / 1000 % 3) as usize]);
        qblk.constrain(rng.gen(), &mut qi);
        qi.pend_i = o.pend_o;
        qi.ppend_i = o.ppend_o;
        let qo = qsim.step_core(&qi);
        for w in 0..MW {
            let d = Dec {
                ra: qi.q_ra_i[w].to_u64() as u8,
                rb: qi.q_rb_i[w].to_u64() as u8,
                rc: qi.q_rc_i[w].to_u64() as u8,
                pair: qi.q_pair_i[w].to_u64() as u8,
                kind: qi.q_kind_i[w].to_u64() as u8,
                dst: qi.q_dst_i[w].to_u64() as u8,
                prd: qi.q_prd_i[w].to_u64() as u8,
                ..Dec::default()
            };
            let (ok, idle) = (qo.ok_o[w].to_u64() == 1, o.idle_o[w].to_u64() == 1);
            let regs = o.pend_o[w].to_u128();
            let preds = o.ppend_o[w].to_u64() as u8;
            let want_regs = rf.regs[w].iter().fold(0u128, |a, &r| a | 1u128 << r);
            let want_preds = rf.preds[w].iter().fold(0u8, |a, &p| a | 1 << p);
            if ok != rf.ok(w, &d) || idle != rf.idle(w) || regs != want_regs || preds != want_preds {
                return Err(format!(
                    "scoreboard cycle {c} warp {w}: rtl ok={ok} idle={idle} pending {regs:032x}/{preds:x}, \
                     reference ok={} idle={} pending {want_regs:032x}/{want_preds:x} for {d:?}",
                    rf.ok(w, &d),
                    rf.idle(w),
                ));
            }
        }
        let tags = |v: &[Bits<1>; NS], t: &[Bits<32>; NS]| -> Vec<Option<u32>> {
            (0..NS)
                .map(|s| (v[s].to_u64() == 1).then_some(t[s].to_u64() as u32))
                .collect()
        };
        let clr = (i.clr_valid_i.to_u64() == 1).then_some(i.clr_warp_i.to_u64() as usize);
        rf.edge(
            &tags(&i.set_valid_i, &i.set_tag_i),
            &tags(&i.rel_valid_i, &i.rel_tag_i),
            clr,
        );
    }
    Ok(())
}

/// Random stimulus on the predicate file for `cycles` core cycles, every
/// warp's row compared with [`PfRef`] every cycle.
pub fn predfile_random<const MW: usize, const NS: usize>(seed: u64, cycles: u64) -> Result<(), String> {
    use crate::hdl::Block;
    use crate::testbenches::fe_ref::PfRef;
    use crate::testbenches::stimulus::random_inputs;
    use crate::units::predfile::{PfIn, Predfile};
    use rand::{Rng, SeedableRng};
    let blk = Predfile::<MW, NS>::new();
    let mut sim = Sim::new(blk.clone()).map_err(|e| e.to_string())?;
    let mut rf = PfRef::new(MW);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    for c in 0..cycles {
        let mut i: PfIn<Concrete, NS> = random_inputs(&mut rng, 0, &[], 0.5);
        blk.constrain(rng.gen(), &mut i);
        let o = sim.step_core(&i);
        for w in 0..MW {
            if o.p_o[w].to_u128() != rf.row(w) {
                return Err(format!(
                    "predfile cycle {c} warp {w}: rtl {:032x}, reference {:032x}",
                    o.p_o[w].to_u128(),
                    rf.row(w)
                ));
            }
        }
        let lanes = |v: &[Bits<1>; 32]| (0..32).fold(0u32, |a, k| a | (v[k].to_u64() as u32) << k);
        let mut writes = vec![];
        if i.wr_valid_i.to_u64() == 1 {
            let w = i.wr_warp_i.to_u64() as usize;
            writes.push((w, i.wr_idx_i.to_u64() as usize, lanes(&i.wr_mask_i), lanes(&i.wr_val_i)));
        }
        for s in 0..NS {
            if i.sw_valid_i[s].to_u64() == 1 {
                writes.push((
                    i.sw_warp_i[s].to_u64() as usize,
                    i.sw_idx_i[s].to_u64() as usize,
                    i.sw_mask_i[s].to_u64() as u32,
                    i.sw_val_i[s].to_u64() as u32,
                ));
            }
        }
        let clr = (i.clr_valid_i.to_u64() == 1).then_some(i.clr_warp_i.to_u64() as usize);
        rf.edge(&writes, clr);
    }
    Ok(())
}

/// Random heads for the scheduler's `constrain`: decoded random
/// instructions (1 in 32 marked as a decode error).
pub fn constrain_sched<const LW: usize>(r: u64, i: &mut crate::units::sched::SchedIn<Concrete, LW>) {
    use super::fe_ref::{dec_of, mix, random_instr};
    for w in 0..LW {
        let h = mix(r ^ i.h_imm_i[w].to_u64() ^ (w as u64) << 40);
        let mut d = dec_of(&random_instr(h), true);
        d.err |= h >> 50 & 31 == 0;
        set_head(i, w, &d, i.h_pc_i[w].to_u64() as u16);
    }
    i.peer_unit_i = Bits::new(i.peer_unit_i.to_u64() % 5);
}

/// Put decoded head `d` at local warp `w` of the scheduler's inputs.
pub fn set_head<const LW: usize>(i: &mut crate::units::sched::SchedIn<Concrete, LW>, w: usize, d: &Dec, pc: u16) {
    i.h_err_i[w] = Bits::new(d.err as u64);
    i.h_unit_i[w] = Bits::new(d.unit as u64);
    i.h_fmul_i[w] = Bits::new(d.fmul as u64);
    i.h_op_i[w] = Bits::new(d.op as u64);
    i.h_mod_i[w] = Bits::new(d.m as u64);
    i.h_gpred_i[w] = Bits::new(d.gpred as u64);
    i.h_gneg_i[w] = Bits::new(d.gneg as u64);
    i.h_ra_i[w] = Bits::new(d.ra as u64);
    i.h_rb_i[w] = Bits::new(d.rb as u64);
    i.h_rc_i[w] = Bits::new(d.rc as u64);
    i.h_pair_i[w] = Bits::new(d.pair as u64);
    i.h_kind_i[w] = Bits::new(d.kind as u64);
    i.h_dst_i[w] = Bits::new(d.dst as u64);
    i.h_use_imm_i[w] = Bits::new(d.use_imm as u64);
    i.h_imm_i[w] = Bits::new(d.imm as u64);
    i.h_pc_i[w] = Bits::new(pc as u64);
}

/// The scheduler's inputs as the reference's warp views.
pub fn sched_views<const LW: usize>(i: &crate::units::sched::SchedIn<Concrete, LW>) -> Vec<super::fe_ref::WarpView> {
    let t = |b: Bits<1>| b.to_u64() == 1;
    (0..LW)
        .map(|w| {
            let p = i.pred_i[w].to_u128();
            super::fe_ref::WarpView {
                valid: t(i.wv_i[w]),
                bar_wait: t(i.bw_i[w]),
                head: t(i.hv_i[w]),
                sb_ok: t(i.sb_ok_i[w]),
                dec: Dec {
                    err: t(i.h_err_i[w]),
                    unit: i.h_unit_i[w].to_u64() as u8,
                    op: i.h_op_i[w].to_u64() as u8,
                    m: i.h_mod_i[w].to_u64() as u8,
                    gpred: i.h_gpred_i[w].to_u64() as u8,
                    gneg: t(i.h_gneg_i[w]),
                    ra: i.h_ra_i[w].to_u64() as u8,
                    rb: i.h_rb_i[w].to_u64() as u8,
                    rc: i.h_rc_i[w].to_u64() as u8,
                    pair: i.h_pair_i[w].to_u64() as u8,
                    kind: i.h_kind_i[w].to_u64() as u8,
                    dst: i.h_dst_i[w].to_u64() as u8,
                    use_imm: t(i.h_use_imm_i[w]),
                    imm: i.h_imm_i[w].to_u64() as u32,
                    prd: 0,
                    fmul: t(i.h_fmul_i[w]),
                },
                pc: i.h_pc_i[w].to_u64() as u16,
                active: i.act_i[w].to_u64() as u32,
                preds: std::array::from_fn(|k| (p >> (32 * k)) as u32),
            }
        })
        .collect()
}

/// The scheduler's outputs as an [`super::fe_ref::Issue`] plus its error report.
pub fn issue_of(o: &crate::units::sched::SchedOut<Concrete>) -> (super::fe_ref::Issue, Option<(u8, u16)>) {
    let t = |b: Bits<1>| b.to_u64() == 1;
    let lanes = |v: &[Bits<1>; 32]| (0..32).fold(0u32, |a, k| a | (v[k].to_u64() as u32) << k);
    let valid = t(o.iss_valid_o);
    let iss = super::fe_ref::Issue {
        valid,
        ctrl: t(o.ctl_valid_o),
        unit: o.is_unit_o.to_u64() as u8,
        warp: o.iss_warp_o.to_u64() as u8,
        op: o.is_op_o.to_u64() as u8,
        m: o.is_mod_o.to_u64() as u8,
        tag: o.is_tag_o.to_u64() as u32,
        ra: o.is_ra_o.to_u64() as u8,
        rb: o.is_rb_o.to_u64() as u8,
        rc: o.is_rc_o.to_u64() as u8,
        pair: o.is_pair_o.to_u64() as u8,
        use_imm: t(o.is_use_imm_o),
        imm: o.is_imm_o.to_u64() as u32,
        pc: o.ctl_pc_o.to_u64() as u16,
        mask: lanes(&o.is_mask_o),
        pa: lanes(&o.is_pa_o),
        set: t(o.iss_set_o),
        sw: t(o.sw_valid_o).then(|| {
            (
                o.sw_idx_o.to_u64() as u8,
                o.sw_mask_o.to_u64() as u32,
                o.sw_val_o.to_u64() as u32,
            )
        }),
    };
    (
        iss,
        t(o.err_o).then_some((o.err_warp_o.to_u64() as u8, o.err_pc_o.to_u64() as u16)),
    )
}

/// Check the RTL outputs' internal consistency rules that the [`Issue`]
/// comparison does not see: `is_valid` = issue and not control, control
/// copies of the fields, `pb` zero, error code 1 exactly while `err_o`.
fn sched_side_checks(o: &crate::units::sched::SchedOut<Concrete>) -> Result<(), String> {
    let t = |b: Bits<1>| b.to_u64() == 1;
    let ok = t(o.is_valid_o) == (t(o.iss_valid_o) && !t(o.ctl_valid_o))
        && o.ctl_op_o == o.is_op_o
        && o.ctl_imm_o == o.is_imm_o
        && o.ctl_taken_o == o.is_mask_o
        && o.is_pb_o.iter().all(|b| b.to_u64() == 0)
        && o.err_code_o.to_u64() == o.err_o.to_u64();
    if ok {
        Ok(())
    } else {
        Err("scheduler side outputs inconsistent".into())
    }
}

/// Random stimulus on one scheduler, outputs compared with [`super::fe_ref::SchedRef`]
/// every core cycle. Returns the number of issues.
pub fn sched_random<const LW: usize>(
    p: crate::units::sched::SchedParams,
    seed: u64,
    cycles: u64,
) -> Result<u64, String> {
    use crate::hdl::Block;
    use crate::testbenches::stimulus::random_inputs;
    use crate::units::sched::{Sched, SchedIn};
    use rand::{Rng, SeedableRng};
    let blk = Sched::<LW>::new(p);
    let mut sim = Sim::new(blk.clone()).map_err(|e| e.to_string())?;
    let mut rf = super::fe_ref::SchedRef::new(p, LW);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let mut issues = 0;
    for c in 0..cycles {
        let mut i: SchedIn<Concrete, LW> = random_inputs(&mut rng, 0, &[], [0.7, 0.9][(c / 500 % 2) as usize]);
        blk.constrain(rng.gen(), &mut i);
        let views = sched_views(&i);
        let peer = (i.peer_valid_i.to_u64() == 1).then_some(i.peer_unit_i.to_u64() as u8);
        let o = sim.step_core(&i);
        let want = rf.cycle(&views, i.ready_i.to_u64() as u8, peer);
        let got = issue_of(&o);
        if got != want {
            return Err(format!("sched cycle {c}: rtl {got:?}\n reference {want:?}"));
        }
        sched_side_checks(&o).map_err(|e| format!("cycle {c}: {e}"))?;
        issues += got.0.valid as u64;
    }
    Ok(issues)
}

/// One issue seen by [`run_schedulers`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Issued {
    pub cycle: u64,
    pub sched: usize,
    pub warp: u8,
    pub unit: u8,
    pub op: u8,
}

/// Stand-in for the operand collectors in directed scheduler tests (not
/// RTL): unit `u` accepts one warp instruction every `interval[u]` core
/// cycles (SFU: `sfu_fmul_interval` for FMUL, `interval[1]` otherwise);
/// `ready` is a function of its counters only (Moore, as docs/sm.md says).
#[derive(Debug, Clone)]
pub struct UnitStandIn {
    pub interval: [u64; 4],
    pub sfu_fmul_interval: u64,
    busy: [u64; 4],
}

impl UnitStandIn {
    pub fn new(interval: [u64; 4], sfu_fmul_interval: u64) -> Self {
        UnitStandIn {
            interval,
            sfu_fmul_interval,
            busy: [0; 4],
        }
    }
    pub fn ready(&self) -> u8 {
        (0..4).fold(0, |a, u| a | ((self.busy[u] == 0) as u8) << u)
    }
    /// End of a cycle: `issued` = (unit, op) accepted at this edge.
    pub fn edge(&mut self, issued: Option<(u8, u8)>) {
        for b in &mut self.busy {
            *b = b.saturating_sub(1);
        }
        if let Some((u, op)) = issued {
            if u < 4 {
                let n = if u == 1 && op == crate::golden::isa::Op::Fmul as u8 {
                    self.sfu_fmul_interval
                } else {
                    self.interval[u as usize]
                };
                self.busy[u as usize] = n - 1;
            }
        }
    }
}

/// Drive the `ns` schedulers of a preset for `cycles` core cycles: every
/// warp of `warps` (global ids) is valid, never waits at a barrier, always
/// has a head (an endless stream `stream(warp, n)` of independent
/// instructions: the scoreboard stand-in is always clear), active mask all
/// lanes, predicates P0 = all lanes. Each scheduler has its own
/// [`UnitStandIn`]; scheduler 1 sees scheduler 0's issue as its peer.
pub fn run_schedulers<const LW: usize>(
    cfg: &crate::config::SmConfig,
    warps: usize,
    units: UnitStandIn,
    stream: &dyn Fn(usize, u64) -> crate::golden::isa::Instr,
    cycles: u64,
) -> Result<Vec<Issued>, String> {
    use crate::hdl::sim::zero_ports;
    use crate::units::sched::{Sched, SchedIn, SchedParams};
    let ns = cfg.warp_schedulers as usize;
    let fp64 = cfg.fp64_rate_divisor > 0;
    let mut sims: Vec<Sim<Sched<LW>>> = (0..ns)
        .map(|s| Sim::new(Sched::<LW>::new(SchedParams::of(cfg, s as u32))).map_err(|e| e.to_string()))
        .collect::<Result<_, _>>()?;
    let mut unit: Vec<UnitStandIn> = vec![units; ns];
    let mut next = vec![0u64; ns * LW];
    let mut out = vec![];
    for c in 0..cycles {
        let mut peer: Option<u8> = None;
        for s in 0..ns {
            let mut i: SchedIn<Concrete, LW> = zero_ports();
            for l in 0..LW {
                let g = l * ns + s;
                if g >= warps {
                    continue;
                }
                i.wv_i[l] = Bits::new(1);
                i.hv_i[l] = Bits::new(1);
                i.sb_ok_i[l] = Bits::new(1);
                i.act_i[l] = Bits::new(u32::MAX as u64);
                i.pred_i[l] = Bits::new(u32::MAX as u64);
                let n = next[g];
                let d = super::fe_ref::dec_of(&stream(g, n), fp64);
                set_head(&mut i, l, &d, n as u16);
            }
            i.ready_i = Bits::new(unit[s].ready() as u64);
            i.peer_valid_i = Bits::new(peer.is_some() as u64);
            i.peer_unit_i = Bits::new(peer.unwrap_or(0) as u64);
            let o = sims[s].step_core(&i);
            let (iss, err) = issue_of(&o);
            if let Some((w, pc)) = err {
                return Err(format!("scheduler {s}: decode error on warp {w} at pc {pc}"));
            }
            if iss.valid {
                next[iss.warp as usize] += 1;
                out.push(Issued {
                    cycle: c,
                    sched: s,
                    warp: iss.warp,
                    unit: iss.unit,
                    op: iss.op,
                });
                if s == 0 && !iss.ctrl {
                    peer = Some(iss.unit);
                }
            }
            unit[s].edge((iss.valid && !iss.ctrl).then_some((iss.unit, iss.op)));
        }
    }
    Ok(out)
}

/// Largest number of issues of one scheduler between two issues of the
/// same warp (over warps that issued at least twice).
pub fn max_wait(trace: &[Issued], sched: usize) -> usize {
    let mut last: std::collections::HashMap<u8, usize> = Default::default();
    let mut worst = 0;
    for (k, t) in trace.iter().filter(|t| t.sched == sched).enumerate() {
        if let Some(p) = last.insert(t.warp, k) {
            worst = worst.max(k - p - 1);
        }
    }
    worst
}

/// Random stimulus on the instruction buffer, every warp's `hv`, `room`
/// and (when valid) decoded head compared every core cycle with a
/// reference of per-warp queues of [`super::fe_ref::ref_decode`]d words.
pub fn ibuffer_random<const MW: usize, const NS: usize, const E: usize>(
    seed: u64,
    cycles: u64,
    fp64_ok: bool,
) -> Result<(), String> {
    use crate::hdl::Block;
    use crate::testbenches::stimulus::random_inputs;
    use crate::units::ibuffer::{IbIn, Ibuffer};
    use rand::{Rng, SeedableRng};
    use std::collections::VecDeque;
    let blk = Ibuffer::<MW, NS, E>::new(fp64_ok);
    let mut sim = Sim::new(blk.clone()).map_err(|e| e.to_string())?;
    let mut q: Vec<VecDeque<(Dec, u16)>> = vec![VecDeque::new(); MW];
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    for c in 0..cycles {
        let mut i: IbIn<Concrete, NS> = random_inputs(&mut rng, 0, &[], [0.3, 0.6, 0.9][(c / 700 % 3) as usize]);
        blk.constrain(rng.gen(), &mut i);
        let o = sim.step_core(&i);
        for w in 0..MW {
            let hv = o.hv_o[w].to_u64() == 1;
            let room = o.room_o[w].to_u64() == 1;
            if hv == q[w].is_empty() || room != (q[w].len() < E) {
                return Err(format!(
                    "ibuffer cycle {c} warp {w}: rtl hv={hv} room={room}, reference {} entries",
                    q[w].len()
                ));
            }
            if let Some(&(want, pc)) = q[w].front() {
                let got = Dec {
                    err: o.h_err_o[w].to_u64() == 1,
                    unit: o.h_unit_o[w].to_u64() as u8,
                    op: o.h_op_o[w].to_u64() as u8,
                    m: o.h_mod_o[w].to_u64() as u8,
                    gpred: o.h_gpred_o[w].to_u64() as u8,
                    gneg: o.h_gneg_o[w].to_u64() == 1,
                    ra: o.h_ra_o[w].to_u64() as u8,
                    rb: o.h_rb_o[w].to_u64() as u8,
                    rc: o.h_rc_o[w].to_u64() as u8,
                    pair: o.h_pair_o[w].to_u64() as u8,
                    kind: o.h_kind_o[w].to_u64() as u8,
                    dst: o.h_dst_o[w].to_u64() as u8,
                    use_imm: o.h_use_imm_o[w].to_u64() == 1,
                    imm: o.h_imm_o[w].to_u64() as u32,
                    prd: o.h_prd_o[w].to_u64() as u8,
                    fmul: o.h_fmul_o[w].to_u64() == 1,
                };
                let gpc = o.h_pc_o[w].to_u64() as u16;
                let same = if want.err { got.err } else { got == want };
                if !same || gpc != pc {
                    return Err(format!(
                        "ibuffer cycle {c} warp {w}: head rtl {got:?} pc {gpc}, reference {want:?} pc {pc}"
                    ));
                }
            }
        }
        // Reference edge: flush wins, else pop then push.
        let flushed: Vec<usize> = (0..2)
            .filter(|&k| i.fl_valid_i[k].to_u64() == 1)
            .map(|k| i.fl_warp_i[k].to_u64() as usize)
            .collect();
        for s in 0..NS {
            if i.pop_valid_i[s].to_u64() == 1 {
                q[i.pop_warp_i[s].to_u64() as usize].pop_front();
            }
        }
        for p in 0..NS {
            if i.push_valid_i[p].to_u64() == 1 {
                let w = i.push_warp_i[p].to_u64() as usize;
                if q[w].len() < E {
                    q[w].push_back((
                        super::fe_ref::ref_decode(i.push_word_i[p].to_u64(), fp64_ok),
                        i.push_pc_i[p].to_u64() as u16,
                    ));
                }
            }
        }
        for w in flushed {
            q[w].clear();
        }
    }
    Ok(())
}

/// Random protocol-valid stimulus on the IMUL delay table (`entries`,
/// `count`) for `cycles` core cycles: sets of fresh tags while not full,
/// one wb release per held tag at a random time, releases of other tags;
/// every output compared with [`ImdRef`](super::fe_ref::ImdRef) every cycle.
/// Returns the number of releases the table delayed.
pub fn imuldly_random<const NS: usize>(seed: u64, entries: usize, count: u32, cycles: u64) -> Result<u64, String> {
    imuldly_against::<NS>(seed, entries, count, count, cycles)
}

/// [`imuldly_random`] with the reference counting `ref_count` cycles (a
/// wrong reference, to show the comparison catches a timing difference).
pub fn imuldly_against<const NS: usize>(
    seed: u64,
    entries: usize,
    count: u32,
    ref_count: u32,
    cycles: u64,
) -> Result<u64, String> {
    use crate::units::imuldly::{ImdIn, ImulDelay};
    use rand::{Rng, SeedableRng};
    let blk = ImulDelay::<NS>::new(entries, count).map_err(|e| e.to_string())?;
    let mut sim = Sim::new(blk).map_err(|e| e.to_string())?;
    let mut rf = super::fe_ref::ImdRef::new(entries, ref_count, NS);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    // Tags in flight: set, not yet released by "wb".
    let mut flight: Vec<u32> = vec![];
    let mut next_tag = 1u32;
    let mut delayed = 0;
    for c in 0..cycles {
        let busy = c / 2000 % 2 == 1;
        let mut i: ImdIn<Concrete, NS> = zero_ports();
        let mut sets = vec![None; NS];
        let mut rels = vec![None; NS];
        for s in 0..NS {
            if rng.gen_bool(0.4) && !flight.is_empty() {
                let k = rng.gen_range(0..flight.len());
                rels[s] = Some(flight.swap_remove(k));
            } else if rng.gen_bool(if busy { 0.8 } else { 0.3 }) {
                // A release of a tag the table does not hold (bit 31 set).
                rels[s] = Some(rng.gen::<u32>() | 1 << 31);
            }
        }
        if !rf.full() {
            for s in sets.iter_mut() {
                if rng.gen_bool(0.3) {
                    *s = Some(next_tag);
                    flight.push(next_tag);
                    next_tag += 1;
                }
            }
        }
        for s in 0..NS {
            if let Some(t) = sets[s] {
                i.set_valid_i[s] = Bits::new(1);
                i.set_tag_i[s] = Bits::new(t as u64);
            }
            if let Some(t) = rels[s] {
                i.rel_valid_i[s] = Bits::new(1);
                i.rel_tag_i[s] = Bits::new(t as u64);
                delayed += rf.withholds(t) as u64;
            }
        }
        let full = rf.full();
        let want = rf.step(&sets, &rels);
        let o = sim.step_core(&i);
        let got: Vec<Option<u32>> = (0..NS)
            .map(|s| (o.rel_valid_o[s].to_u64() == 1).then_some(o.rel_tag_o[s].to_u64() as u32))
            .collect();
        if got != want || (o.full_o.to_u64() == 1) != full {
            return Err(format!(
                "imuldly cycle {c}: rtl releases {got:?} full {}, reference {want:?} full {full}; entries {:?}",
                o.full_o.to_u64(),
                rf.ent
            ));
        }
    }
    if delayed == 0 {
        return Err("imuldly: no release was delayed; the stimulus does not exercise the table".into());
    }
    Ok(delayed)
}
