//! Random-traffic driver of the write-back block against [`WbRef`]: unit
//! stand-ins take a credit when `wb_room` allows, return the result 1-12
//! cycles later (at most one pulse per source per cycle), with random
//! warps, kinds, masks and data; every output is compared every cycle.

use crate::hdl::{Bits, Concrete, Sim};
use crate::testbenches::wb_ref::{WbRef, WbRes};
use crate::units::wb::{Wb, WbIn, WbOut, WbParams};
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

fn lanes1(v: &[Bits<1>; 32]) -> u32 {
    (0..32).fold(0u32, |a, k| a | (v[k].to_u64() as u32) << k)
}

fn set_lanes1(m: u32) -> [Bits<1>; 32] {
    std::array::from_fn(|k| Bits::new((m >> k & 1) as u64))
}

/// Put result `r` of source `s` on the block's inputs.
fn drive(i: &mut WbIn<Concrete>, s: usize, r: &WbRes) {
    let t = Bits::new(r.tag as u64);
    let m = set_lanes1(r.mask);
    let p = set_lanes1(r.pred);
    let d32: [Bits<32>; 32] = std::array::from_fn(|l| Bits::new(r.lo[l] as u64));
    let d64: [Bits<64>; 32] = std::array::from_fn(|l| Bits::new(r.lo[l] as u64 | (r.hi[l] as u64) << 32));
    let v = Bits::new(1);
    match s {
        0 => {
            (
                i.sp0_res_valid_i,
                i.sp0_res_tag_i,
                i.sp0_res_mask_i,
                i.sp0_res_pred_i,
                i.sp0_res_data_i,
            ) = (v, t, m, p, d32)
        }
        1 => {
            (
                i.sp1_res_valid_i,
                i.sp1_res_tag_i,
                i.sp1_res_mask_i,
                i.sp1_res_pred_i,
                i.sp1_res_data_i,
            ) = (v, t, m, p, d32)
        }
        2 => (i.sfu_res_valid_i, i.sfu_res_tag_i, i.sfu_res_mask_i, i.sfu_res_data_i) = (v, t, m, d32),
        3 => {
            (
                i.dpu_res_valid_i,
                i.dpu_res_tag_i,
                i.dpu_res_mask_i,
                i.dpu_res_pred_i,
                i.dpu_res_data_i,
            ) = (v, t, m, p, d64)
        }
        4 => (i.lsu_res_valid_i, i.lsu_res_tag_i, i.lsu_res_mask_i, i.lsu_res_data_i) = (v, t, m, d64),
        _ => (i.fe_res_valid_i, i.fe_res_tag_i, i.fe_res_mask_i, i.fe_res_data_i) = (v, t, m, d32),
    }
}

fn room_of(o: &WbOut<Concrete, 2>) -> [bool; 6] {
    [
        o.wb_room_sp0_o,
        o.wb_room_sp1_o,
        o.wb_room_sfu_o,
        o.wb_room_dpu_o,
        o.wb_room_lsu_o,
        o.wb_room_fe_o,
    ]
    .map(|b| b.to_u64() == 1)
}

/// Compare one channel's outputs with the reference's choice.
fn check_chan(c: u64, w: usize, o: &WbOut<Concrete, 2>, exp: &Option<(usize, WbRes)>, ns: usize) -> Result<(), String> {
    let p = &o.rf_wr[w];
    let (rv, rwarp, rreg, rpair, rmask, rlo, rhi) = (p.valid, p.warp, p.reg, p.pair, p.mask, p.lo, p.hi);
    let (retv, rett, retm) = if w == 0 {
        (o.ret0_valid_o, o.ret0_tag_o, o.ret0_mask_o)
    } else {
        (o.ret1_valid_o, o.ret1_tag_o, o.ret1_mask_o)
    };
    let err = |what: &str, got: String, want: String| {
        Err(format!("wb cycle {c} channel {w}: {what}: rtl {got}, reference {want}"))
    };
    match exp {
        None => {
            if retv.to_u64() != 0 || rv.to_u64() != 0 || (w < ns && o.rel_valid_o[w].to_u64() != 0) {
                return err("valid", "1".into(), "0".into());
            }
        }
        Some((_, r)) => {
            let kind = r.tag >> 14 & 3;
            if retv.to_u64() != 1 || rett.to_u64() as u32 != r.tag || lanes1(&retm) != r.mask {
                return err(
                    "retire",
                    format!("{} {:08x} {:08x}", retv.to_u64(), rett.to_u64(), lanes1(&retm)),
                    format!("1 {:08x} {:08x}", r.tag, r.mask),
                );
            }
            if o.rel_valid_o[w].to_u64() != 1 || o.rel_tag_o[w].to_u64() as u32 != r.tag {
                return err(
                    "release",
                    format!("{:08x}", o.rel_tag_o[w].to_u64()),
                    format!("{:08x}", r.tag),
                );
            }
            let writes = kind == 1 || kind == 2;
            if (rv.to_u64() == 1) != writes {
                return err("rf write valid", rv.to_u64().to_string(), writes.to_string());
            }
            if writes {
                if rwarp.to_u64() as u32 != (r.tag & 63)
                    || rreg.to_u64() as u32 != (r.tag >> 6 & 255)
                    || (rpair.to_u64() == 1) != (kind == 2)
                    || lanes1(&rmask) != r.mask
                {
                    return err(
                        "rf write fields",
                        format!("{} {} {}", rwarp.to_u64(), rreg.to_u64(), rpair.to_u64()),
                        format!("{} {} {}", r.tag & 63, r.tag >> 6 & 255, kind == 2),
                    );
                }
                for l in 0..32 {
                    if rlo[l].to_u64() as u32 != r.lo[l] || (kind == 2 && rhi[l].to_u64() as u32 != r.hi[l]) {
                        return err(
                            &format!("data lane {l}"),
                            format!("{:08x}:{:08x}", rhi[l].to_u64(), rlo[l].to_u64()),
                            format!("{:08x}:{:08x}", r.hi[l], r.lo[l]),
                        );
                    }
                }
            }
        }
    }
    Ok(())
}

/// `cycles` core cycles of random traffic on a `NS`-channel block.
pub fn wb_random<const NS: usize>(seed: u64, cycles: u64, p: WbParams) -> Result<(), String> {
    let blk = Wb::<NS>::new(p).map_err(|e| e.to_string())?;
    // The comparison helper reads 2-channel outputs; wrap 1-channel runs.
    let mut sim = Sim::new(blk).map_err(|e| e.to_string())?;
    let mut rf = WbRef::new(NS, p.depth);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    // Per source: results dispatched, (due cycle, result).
    let mut inflight: Vec<VecDeque<(u64, WbRes)>> = vec![VecDeque::new(); 6];
    let busy = rng.gen_range(0.2..0.9);
    for c in 0..cycles {
        let mut i: WbIn<Concrete> = crate::hdl::sim::zero_ports();
        let mut pulses: [Option<WbRes>; 6] = Default::default();
        for s in 0..6 {
            if (s == 1 && NS == 1) || inflight[s].front().is_none_or(|(due, _)| *due > c) {
                continue;
            }
            let (_, r) = inflight[s].pop_front().unwrap();
            drive(&mut i, s, &r);
            pulses[s] = Some(r);
        }
        let room = rf.room();
        let mut disp = [false; 6];
        for s in 0..6 {
            if (s == 1 && NS == 1) || !room[s] || !rng.gen_bool(busy) {
                continue;
            }
            disp[s] = true;
            let wide = s == 3 || s == 4;
            let kind = rng.gen_range(0..4u32);
            let warp = if s == 0 && NS == 2 {
                rng.gen_range(0..24) * 2
            } else if s == 1 {
                rng.gen_range(0..24) * 2 + 1
            } else {
                rng.gen_range(0..48)
            };
            let tag = rng.gen::<u32>() & 0xffff_0000 | kind << 14 | rng.gen_range(0..128u32) << 6 | warp;
            let r = WbRes {
                tag,
                mask: rng.gen(),
                pred: if s == 2 || s == 4 || s == 5 { 0 } else { rng.gen() },
                lo: std::array::from_fn(|_| rng.gen()),
                hi: std::array::from_fn(|_| if wide { rng.gen() } else { 0 }),
            };
            let last = inflight[s].back().map_or(0, |x| x.0);
            inflight[s].push_back(((c + rng.gen_range(1..12)).max(last + 1), r));
        }
        i.disp_sp0_i = Bits::new(disp[0] as u64);
        i.disp_sp1_i = Bits::new(disp[1] as u64);
        i.disp_sfu_i = Bits::new(disp[2] as u64);
        i.disp_dpu_i = Bits::new(disp[3] as u64);
        i.disp_lsu_i = Bits::new(disp[4] as u64);
        i.disp_fe_i = Bits::new(disp[5] as u64);
        let o = sim.step_core(&i);
        let o2: WbOut<Concrete, 2> = widen(&o);
        let exp = rf.cycle(&pulses, &disp);
        if room_of(&o2) != exp.room {
            return Err(format!(
                "wb cycle {c}: room rtl {:?}, reference {:?}",
                room_of(&o2),
                exp.room
            ));
        }
        if o.err_o.to_u64() == 1 || exp.err {
            return Err(format!(
                "wb cycle {c}: overflow error rtl {}, reference {}",
                o.err_o.to_u64(),
                exp.err
            ));
        }
        if o.cnt_wait_o.to_u64() as u32 != exp.cnt_wait {
            return Err(format!(
                "wb cycle {c}: cnt_wait rtl {}, reference {}",
                o.cnt_wait_o.to_u64(),
                exp.cnt_wait
            ));
        }
        for w in 0..2 {
            let e = exp.chans.get(w).and_then(|x| x.res.clone());
            check_chan(c, w, &o2, &e, NS)?;
        }
        // Predicate port: the channel result of kind 3.
        let pw = exp
            .chans
            .iter()
            .filter_map(|x| x.res.as_ref())
            .find(|(_, r)| r.tag >> 14 & 3 == 3);
        match pw {
            None if o.pr_wr_valid_o.to_u64() == 1 => {
                return Err(format!("wb cycle {c}: predicate write without a result"))
            }
            None => {}
            Some((_, r)) => {
                let ok = o.pr_wr_valid_o.to_u64() == 1
                    && o.pr_wr_warp_o.to_u64() as u32 == r.tag & 63
                    && o.pr_wr_idx_o.to_u64() as u32 == r.tag >> 6 & 3
                    && lanes1(&o.pr_wr_mask_o) == r.mask
                    && lanes1(&o.pr_wr_val_o) == r.pred;
                if !ok {
                    return Err(format!("wb cycle {c}: predicate write differs from tag {:08x}", r.tag));
                }
            }
        }
    }
    Ok(())
}

/// The outputs of a `NS`-channel block as the 2-channel shape (missing
/// release channel reads 0).
fn widen<const NS: usize>(o: &WbOut<Concrete, NS>) -> WbOut<Concrete, 2> {
    let mut w: WbOut<Concrete, 2> = crate::hdl::sim::zero_ports();
    w.rf_wr = o.rf_wr;
    w.pr_wr_valid_o = o.pr_wr_valid_o;
    w.pr_wr_warp_o = o.pr_wr_warp_o;
    w.pr_wr_idx_o = o.pr_wr_idx_o;
    w.pr_wr_mask_o = o.pr_wr_mask_o;
    w.pr_wr_val_o = o.pr_wr_val_o;
    for k in 0..NS {
        w.rel_valid_o[k] = o.rel_valid_o[k];
        w.rel_tag_o[k] = o.rel_tag_o[k];
    }
    w.wb_room_sp0_o = o.wb_room_sp0_o;
    w.wb_room_sp1_o = o.wb_room_sp1_o;
    w.wb_room_sfu_o = o.wb_room_sfu_o;
    w.wb_room_dpu_o = o.wb_room_dpu_o;
    w.wb_room_lsu_o = o.wb_room_lsu_o;
    w.wb_room_fe_o = o.wb_room_fe_o;
    w.ret0_valid_o = o.ret0_valid_o;
    w.ret0_tag_o = o.ret0_tag_o;
    w.ret0_mask_o = o.ret0_mask_o;
    w.ret1_valid_o = o.ret1_valid_o;
    w.ret1_tag_o = o.ret1_tag_o;
    w.ret1_mask_o = o.ret1_mask_o;
    w.cnt_wait_o = o.cnt_wait_o;
    w.err_o = o.err_o;
    w.err_code_o = o.err_code_o;
    w.err_src_o = o.err_src_o;
    w
}
