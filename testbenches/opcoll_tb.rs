//! Testbench for the operand collectors + register file: random traffic
//! shaped to be meaningful (allocations, issue of every unit class with
//! registers mostly inside the allocation, FP64 pairs, write-back with
//! masks, unit readiness and wb room), a lock-step driver that checks every
//! output of every core cycle against [`OpcollRef`], and directed streams.

use super::opcoll_ref::OpcollRef;
use crate::hdl::sim::{flatten, zero_ports};
use crate::hdl::{Bits, Block, Concrete, Sim};
use crate::units::opcoll::{OpcollIn, OpcollOut};
use crate::units::regfile::RfGeom;
use rand::{Rng, RngCore, SeedableRng};

/// Shape uniformly random inputs (see the module doc). Used by
/// `Block::constrain` (co-simulation, bench) and by [`random_inputs`].
pub fn constrain(g: &RfGeom, r: u64, i: &mut OpcollIn<Concrete>) {
    let mut rng = rand::rngs::SmallRng::seed_from_u64(r);
    let mw = g.max_warps as u64;
    let warp_of = |rng: &mut rand::rngs::SmallRng, s: usize| -> u64 {
        // Mostly a warp of this scheduler (warp mod S = s), sometimes any.
        let w = rng.gen_range(0..mw);
        if g.scheds > 1 && rng.gen_ratio(15, 16) {
            (w & !1) | s as u64
        } else {
            w
        }
    };
    let reg = |rng: &mut rand::rngs::SmallRng| -> u64 {
        match rng.gen_range(0..32) {
            0..=2 => 255,
            3 => rng.gen_range(0..256),
            _ => rng.gen_range(0..20),
        }
    };
    // Allocation: 1 cycle in 6.
    i.al_valid_i = Bits::new(rng.gen_ratio(1, 6) as u64);
    i.al_warp_i = Bits::new(rng.gen_range(0..mw + mw / 8 + 1).min(63));
    let nregs = rng.gen_range(4..=40u64);
    i.al_nregs_i = Bits::new(if rng.gen_ratio(1, 32) { rng.gen_range(0..256) } else { nregs });
    let span = nregs.div_ceil(g.half as u64);
    let base = rng.gen_range(0..(g.rows as u64).saturating_sub(span).max(1));
    i.al_base_i = Bits::new(if rng.gen_ratio(1, 32) { rng.gen_range(0..0x1_0000) } else { base });
    let mut issue = i.issue();
    for (s, p) in issue.iter_mut().enumerate() {
        p.valid = Bits::new(rng.gen_ratio(3, 4) as u64);
        p.unit = Bits::new(if rng.gen_ratio(1, 32) { rng.gen_range(4..8) } else { rng.gen_range(0..4) });
        let tag = (rng.gen::<u32>() as u64 & !63) | warp_of(&mut rng, s);
        p.tag = Bits::new(tag);
        p.ra = Bits::new(reg(&mut rng));
        p.rb = Bits::new(reg(&mut rng));
        p.rc = Bits::new(reg(&mut rng));
        // FP64 pairs, mostly even.
        let mut pair = if rng.gen_ratio(1, 4) { rng.gen_range(0..8) } else { 0 };
        for (k, r) in [&mut p.ra, &mut p.rb, &mut p.rc].into_iter().enumerate() {
            if pair >> k & 1 == 1 && r.to_u64() != 255 && rng.gen_ratio(7, 8) {
                *r = Bits::new(r.to_u64() & !1);
            }
        }
        if rng.gen_ratio(1, 64) {
            pair |= 1;
        }
        p.pair = Bits::new(pair);
        p.use_imm = Bits::new(rng.gen_ratio(1, 4) as u64);
    }
    let [p0, p1] = issue;
    macro_rules! put {
        ($p:ident, $v:ident $u:ident $t:ident $ra:ident $rb:ident $rc:ident $pr:ident $ui:ident) => {
            i.$v = $p.valid;
            i.$u = $p.unit;
            i.$t = $p.tag;
            i.$ra = $p.ra;
            i.$rb = $p.rb;
            i.$rc = $p.rc;
            i.$pr = $p.pair;
            i.$ui = $p.use_imm;
        };
    }
    put!(p0, is0_valid_i is0_unit_i is0_tag_i is0_ra_i is0_rb_i is0_rc_i is0_pair_i is0_use_imm_i);
    put!(p1, is1_valid_i is1_unit_i is1_tag_i is1_ra_i is1_rb_i is1_rc_i is1_pair_i is1_use_imm_i);
    // Write-back: half the cycles per channel.
    let wr = |rng: &mut rand::rngs::SmallRng, w: usize| {
        let v = rng.gen_ratio(1, 2) as u64;
        let warp = warp_of(rng, w);
        let pair = rng.gen_ratio(1, 4);
        let mut r = reg(rng);
        if pair && r != 255 && rng.gen_ratio(15, 16) {
            r &= !1;
        }
        (v, warp, r, pair as u64)
    };
    let (v, w, r, p) = wr(&mut rng, 0);
    (i.rf_wr0_valid_i, i.rf_wr0_warp_i, i.rf_wr0_reg_i, i.rf_wr0_pair_i) =
        (Bits::new(v), Bits::new(w), Bits::new(r), Bits::new(p));
    let (v, w, r, p) = wr(&mut rng, 1);
    (i.rf_wr1_valid_i, i.rf_wr1_warp_i, i.rf_wr1_reg_i, i.rf_wr1_pair_i) =
        (Bits::new(v), Bits::new(w), Bits::new(r), Bits::new(p));
    // Units ready 3 cycles in 4, wb room 7 in 8.
    for x in [
        &mut i.sp0_ready_i,
        &mut i.sp1_ready_i,
        &mut i.sfu_ready_i,
        &mut i.dpu_ready_i,
        &mut i.lsu_ready_i,
    ] {
        *x = Bits::new(rng.gen_ratio(3, 4) as u64);
    }
    for x in [
        &mut i.wb_room_sp0_i,
        &mut i.wb_room_sp1_i,
        &mut i.wb_room_sfu_i,
        &mut i.wb_room_dpu_i,
        &mut i.wb_room_lsu_i,
    ] {
        *x = Bits::new(rng.gen_ratio(7, 8) as u64);
    }
}

/// Random inputs for one core cycle: uniformly random ports, then shaped.
pub fn random_inputs<R: RngCore>(g: &RfGeom, rng: &mut R) -> OpcollIn<Concrete> {
    let mut i: OpcollIn<Concrete> = crate::testbenches::stimulus::random_inputs(rng, 0, &[], 0.5);
    constrain(g, rng.gen(), &mut i);
    i
}

/// Names and word offsets of a block's outputs, for mismatch reports.
fn out_names<K: Block>(sim: &Sim<K>) -> Vec<(String, usize, usize)> {
    let top = &sim.design().modules[sim.design().top];
    let mut pos = 0;
    top.outputs
        .iter()
        .map(|p| {
            let e = (p.name.clone(), pos, p.words());
            pos += p.words();
            e
        })
        .collect()
}

/// Compare two output structs; `Err` names the first differing port.
pub fn compare(names: &[(String, usize, usize)], rtl: &OpcollOut<Concrete>, want: &OpcollOut<Concrete>) -> Result<(), String> {
    let (mut a, mut b) = (vec![], vec![]);
    flatten(rtl, &mut a);
    flatten(want, &mut b);
    if a == b {
        return Ok(());
    }
    for (name, pos, nw) in names {
        if a[*pos..pos + nw] != b[*pos..pos + nw] {
            return Err(format!(
                "{name}: rtl {:x?} reference {:x?}",
                &a[*pos..pos + nw],
                &b[*pos..pos + nw]
            ));
        }
    }
    Err("outputs differ".into())
}

/// What a lock-step run saw.
#[derive(Debug, Clone, Default)]
pub struct RunStats {
    pub cycles: u64,
    pub issued: u64,
    pub dispatched: u64,
    pub writes: u64,
    pub errors: u64,
    pub cnt: [u64; 3],
}

/// Run `cycles` core cycles of stimulus from `next` through the RTL and the
/// reference; every output is compared every cycle.
pub fn lockstep<K, F>(sim: &mut Sim<K>, rf: &mut OpcollRef, cycles: u64, mut next: F) -> Result<RunStats, String>
where
    K: Block<In<Concrete> = OpcollIn<Concrete>, Out<Concrete> = OpcollOut<Concrete>>,
    F: FnMut(u64, &OpcollOut<Concrete>) -> OpcollIn<Concrete>,
{
    let names = out_names(sim);
    let mut st = RunStats::default();
    let mut last: OpcollOut<Concrete> = zero_ports();
    for t in 0..cycles {
        let i = next(t, &last);
        let o = sim.step_core(&i);
        let want = rf.step(&i);
        compare(&names, &o, &want).map_err(|e| format!("core cycle {t}: {e}"))?;
        let rd = [o.is0_ready_o.to_u64(), o.is1_ready_o.to_u64()];
        let iss = i.issue();
        for s in 0..2 {
            let p = &iss[s];
            if p.valid.to_u64() == 1 && p.unit.to_u64() < 4 && rd[s] >> p.unit.to_u64() & 1 == 1 {
                st.issued += 1;
            }
        }
        st.dispatched += [o.sp0_valid_o, o.sp1_valid_o, o.sfu_valid_o, o.dpu_valid_o, o.lsu_valid_o]
            .iter()
            .map(|v| v.to_u64())
            .sum::<u64>();
        st.writes += i.rf_wr0_valid_i.to_u64() + i.rf_wr1_valid_i.to_u64();
        st.errors += o.err_o.to_u64();
        st.cnt = [o.cnt_rr_o.to_u64(), o.cnt_wr_o.to_u64(), o.cnt_stall_o.to_u64()];
        last = o;
        st.cycles += 1;
    }
    Ok(st)
}

/// Random lock-step run of `cycles` core cycles with seed `seed`.
pub fn random_run<K>(sim: &mut Sim<K>, g: &RfGeom, cycles: u64, seed: u64) -> Result<RunStats, String>
where
    K: Block<In<Concrete> = OpcollIn<Concrete>, Out<Concrete> = OpcollOut<Concrete>>,
{
    let mut rf = OpcollRef::new(*g);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    lockstep(sim, &mut rf, cycles, |_, _| random_inputs(g, &mut rng))
}
