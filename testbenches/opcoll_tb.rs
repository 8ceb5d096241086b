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
    i.al_nregs_i = Bits::new(if rng.gen_ratio(1, 32) {
        rng.gen_range(0..256)
    } else {
        nregs
    });
    let span = nregs.div_ceil(g.half as u64);
    let base = rng.gen_range(0..(g.rows as u64).saturating_sub(span).max(1));
    i.al_base_i = Bits::new(if rng.gen_ratio(1, 32) {
        rng.gen_range(0..0x1_0000)
    } else {
        base
    });
    for (s, p) in i.is.iter_mut().enumerate() {
        p.valid = Bits::new(rng.gen_ratio(3, 4) as u64);
        p.unit = Bits::new(if rng.gen_ratio(1, 32) {
            rng.gen_range(4..8)
        } else {
            rng.gen_range(0..4)
        });
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
    (i.rf_wr[0].valid, i.rf_wr[0].warp, i.rf_wr[0].reg, i.rf_wr[0].pair) =
        (Bits::new(v), Bits::new(w), Bits::new(r), Bits::new(p));
    let (v, w, r, p) = wr(&mut rng, 1);
    (i.rf_wr[1].valid, i.rf_wr[1].warp, i.rf_wr[1].reg, i.rf_wr[1].pair) =
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
pub fn compare(
    names: &[(String, usize, usize)],
    rtl: &OpcollOut<Concrete>,
    want: &OpcollOut<Concrete>,
) -> Result<(), String> {
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
        let iss = i.is;
        for s in 0..2 {
            let p = &iss[s];
            if p.valid.to_u64() == 1 && p.unit.to_u64() < 4 && rd[s] >> p.unit.to_u64() & 1 == 1 {
                st.issued += 1;
            }
        }
        st.dispatched += [
            o.sp[0].valid,
            o.sp[1].valid,
            o.sfu_valid_o,
            o.dpu_valid_o,
            o.lsu_valid_o,
        ]
        .iter()
        .map(|v| v.to_u64())
        .sum::<u64>();
        st.writes += i.rf_wr[0].valid.to_u64() + i.rf_wr[1].valid.to_u64();
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

/// Idle inputs: nothing issued or written, every unit ready, wb room.
pub fn idle() -> OpcollIn<Concrete> {
    let mut i: OpcollIn<Concrete> = zero_ports();
    let one = Bits::new(1);
    (
        i.sp0_ready_i,
        i.sp1_ready_i,
        i.sfu_ready_i,
        i.dpu_ready_i,
        i.lsu_ready_i,
    ) = (one, one, one, one, one);
    (
        i.wb_room_sp0_i,
        i.wb_room_sp1_i,
        i.wb_room_sfu_i,
        i.wb_room_dpu_i,
        i.wb_room_lsu_i,
    ) = (one, one, one, one, one);
    i
}

/// An instruction for issue port `s`: unit, warp, sequence number (in the
/// tag's pc field), registers a/b/c (255 = none), pair bits, all lanes.
#[allow(clippy::too_many_arguments)]
pub fn set_issue(i: &mut OpcollIn<Concrete>, s: usize, unit: u64, warp: u64, seq: u64, regs: [u64; 3], pair: u64) {
    let tag = Bits::new(seq << 16 | 1 << 14 | warp);
    let all = [Bits::new(1); 32];
    let (v, u, t, ra, rb, rc, pr, m) = (
        Bits::new(1),
        Bits::new(unit),
        tag,
        Bits::new(regs[0]),
        Bits::new(regs[1]),
        Bits::new(regs[2]),
        Bits::new(pair),
        all,
    );
    let p = &mut i.is[s];
    (p.valid, p.unit, p.tag, p.ra, p.rb, p.rc, p.pair, p.mask) = (v, u, t, ra, rb, rc, pr, m);
    p.op = Bits::new(0x11);
}

/// A write on channel `w` of `warp`'s register `reg`: lane l gets `f(l)`.
pub fn set_write(i: &mut OpcollIn<Concrete>, w: usize, warp: u64, reg: u64, f: impl Fn(usize) -> u32) {
    let lo: [Bits<32>; 32] = std::array::from_fn(|l| Bits::new(f(l) as u64));
    let all = [Bits::new(1); 32];
    if w == 0 {
        (
            i.rf_wr[0].valid,
            i.rf_wr[0].warp,
            i.rf_wr[0].reg,
            i.rf_wr[0].mask,
            i.rf_wr[0].lo,
        ) = (Bits::new(1), Bits::new(warp), Bits::new(reg), all, lo);
    } else {
        (
            i.rf_wr[1].valid,
            i.rf_wr[1].warp,
            i.rf_wr[1].reg,
            i.rf_wr[1].mask,
            i.rf_wr[1].lo,
        ) = (Bits::new(1), Bits::new(warp), Bits::new(reg), all, lo);
    }
}

/// The value a directed test writes: warp, register, lane.
pub fn pattern(warp: u64, reg: u64, lane: usize) -> u32 {
    (warp as u32) << 24 | (reg as u32) << 16 | lane as u32 | 0x8000
}

/// Register of `warp` whose group (in the warp's half) is `grp`, the k-th
/// such register (the mapping of docs/regfile.md).
pub fn reg_in_group(g: &RfGeom, warp: u64, grp: u64, k: u64) -> u64 {
    let h = g.half as u64;
    let skew = (warp / g.scheds as u64) % h;
    (grp + h - skew) % h + k * h
}

/// Result of a directed stream.
#[derive(Debug, Clone, Default)]
pub struct StreamStats {
    pub cycles: u64,
    pub issued: u64,
    /// Cycles a scheduler wanted to issue and `ready` was low.
    pub issue_stalls: u64,
    /// Dispatches and the core cycles from issue edge to dispatch edge.
    pub dispatched: u64,
    pub latencies: Vec<u64>,
    pub cnt: [u64; 3],
}

/// The dual-issue stream: `warps` warps with 16 registers allocated, each
/// register written with [`pattern`]; then for `cycles` cycles every
/// scheduler issues when it can: on GT200 (one scheduler) SP FMAD (3
/// operands in groups 0, 1, 2) and SFU FMUL (2 operands in groups 0, 1)
/// alternate; on Fermi each scheduler issues an SP FFMA (groups 0-2 of its
/// half) every cycle. Write-back traffic every cycle on each channel goes
/// to the remaining group. Units model their issue rate: GT200 SP and SFU
/// FMUL accept every 2 core cycles, Fermi SP groups every cycle. Checked
/// against the reference every cycle; dispatched operands are also checked
/// against the written pattern.
pub fn dual_issue_stream<K>(sim: &mut Sim<K>, g: &RfGeom, cycles: u64) -> Result<StreamStats, String>
where
    K: Block<In<Concrete> = OpcollIn<Concrete>, Out<Concrete> = OpcollOut<Concrete>>,
{
    let warps = 8u64;
    let nregs = 16u64;
    let rows = nregs.div_ceil(g.half as u64);
    let mut rf = OpcollRef::new(*g);
    let mut setup = vec![];
    for w in 0..warps {
        let mut i = idle();
        i.al_valid_i = Bits::new(1);
        i.al_warp_i = Bits::new(w);
        i.al_base_i = Bits::new((w / g.scheds as u64) * rows);
        i.al_nregs_i = Bits::new(nregs);
        setup.push(i);
    }
    for r in 0..nregs {
        for w in (0..warps).step_by(g.scheds) {
            let mut i = idle();
            for ch in 0..g.scheds {
                set_write(&mut i, ch, w + ch as u64, r, |l| pattern(w + ch as u64, r, l));
            }
            setup.push(i);
        }
    }
    let n_setup = setup.len() as u64;
    let dual = g.scheds == 1;
    let mut st = StreamStats::default();
    let mut busy = [false; 3]; // sp0, sp1, sfu: busy this cycle (Moore)
    let mut issued_at: std::collections::HashMap<u64, u64> = Default::default();
    let mut seq = 0u64;
    let mut pending_issue: Vec<(usize, u64, u64, u64)> = vec![];
    let h = g.half as u64;
    let names = out_names(sim);
    for t in 0..n_setup + cycles + 8 {
        let mut i = if t < n_setup { setup[t as usize] } else { idle() };
        let run = t >= n_setup && t < n_setup + cycles;
        pending_issue.clear();
        if run {
            let k = t - n_setup;
            for s in 0..g.scheds {
                let warp = (k * g.scheds as u64 + s as u64) % warps;
                let warp = (warp & !(g.scheds as u64 - 1)) | s as u64;
                let sfu = dual && k % 2 == 1;
                let regs = if sfu {
                    [reg_in_group(g, warp, 0, 1), reg_in_group(g, warp, 1, 1), 255]
                } else {
                    [
                        reg_in_group(g, warp, 0, 0),
                        reg_in_group(g, warp, 1, 0),
                        reg_in_group(g, warp, 2, 0),
                    ]
                };
                set_issue(&mut i, s, if sfu { 1 } else { 0 }, warp, seq, regs, 0);
                pending_issue.push((s, seq, warp, if sfu { 1 } else { 0 }));
                seq += 1;
                // Write-back to the group no read uses (h - 1 in the half).
                let wwarp = (warp + 2 * g.scheds as u64) % warps;
                let wreg = reg_in_group(g, wwarp, h - 1, 0);
                set_write(&mut i, s, wwarp, wreg, |l| pattern(wwarp, wreg, l));
            }
        }
        if dual {
            i.sp0_ready_i = Bits::new(!busy[0] as u64);
            i.sfu_ready_i = Bits::new(!busy[2] as u64);
        }
        let o = sim.step_core(&i);
        let want = rf.step(&i);
        compare(&names, &o, &want).map_err(|e| format!("core cycle {t}: {e}"))?;
        let rd = [o.is0_ready_o.to_u64(), o.is1_ready_o.to_u64()];
        for &(s, q, _, u) in &pending_issue {
            if rd[s] >> u & 1 == 1 {
                st.issued += 1;
                issued_at.insert(q, t);
            } else {
                st.issue_stalls += 1;
            }
        }
        let outs = [
            (o.sp[0].valid, o.sp[0].tag, o.sp[0].a, 0usize),
            (o.sp[1].valid, o.sp[1].tag, o.sp[1].a, 1),
            (o.sfu_valid_o, o.sfu_tag_o, o.sfu_a_o, 2),
        ];
        for (v, tag, a, port) in outs {
            if v.to_u64() == 1 {
                let q = tag.to_u64() >> 16;
                let warp = tag.to_u64() & 63;
                let e0 = issued_at
                    .remove(&q)
                    .ok_or(format!("cycle {t}: dispatch of unknown seq {q}"))?;
                st.latencies.push(t - e0);
                st.dispatched += 1;
                let ra = reg_in_group(g, warp, 0, if port == 2 { 1 } else { 0 });
                for (l, x) in a.iter().enumerate() {
                    if x.to_u64() as u32 != pattern(warp, ra, l) {
                        return Err(format!("cycle {t}: seq {q} lane {l} operand a {:x}", x.to_u64()));
                    }
                }
                if dual {
                    busy[if port == 2 { 2 } else { 0 }] = true;
                    continue;
                }
            }
            if dual {
                busy[if port == 2 { 2 } else { port }] = false;
            }
        }
        st.cnt = [o.cnt_rr_o.to_u64(), o.cnt_wr_o.to_u64(), o.cnt_stall_o.to_u64()];
    }
    st.cycles = cycles;
    Ok(st)
}

/// Call `$body` with `$sim`, a fresh simulation of the opcoll built for
/// geometry `$g` (16, 24 or 32 banks of 128 rows).
#[macro_export]
macro_rules! with_opcoll_sim {
    ($g:expr, |$sim:ident| $body:expr) => {{
        use $crate::units::opcoll::Opcoll;
        let g: $crate::units::regfile::RfGeom = $g;
        match (g.groups, g.addr_bits()) {
            (4, 7) => {
                let mut $sim = $crate::hdl::Sim::new(Opcoll::<4, 128, 7>::new(g).map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())?;
                $body
            }
            (6, 7) => {
                let mut $sim = $crate::hdl::Sim::new(Opcoll::<6, 192, 7>::new(g).map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())?;
                $body
            }
            (8, 7) => {
                let mut $sim = $crate::hdl::Sim::new(Opcoll::<8, 256, 7>::new(g).map_err(|e| e.to_string())?)
                    .map_err(|e| e.to_string())?;
                $body
            }
            (gr, a) => Err(format!("{} banks of {} rows: no test build", gr * 4, 1 << a)),
        }
    }};
}

/// [`random_run`] on the block built for `g`.
pub fn random_run_geom(g: &RfGeom, cycles: u64, seed: u64) -> Result<RunStats, String> {
    crate::with_opcoll_sim!(*g, |sim| random_run(&mut sim, g, cycles, seed))
}

/// [`dual_issue_stream`] on the block built for `g`.
pub fn dual_issue_geom(g: &RfGeom, cycles: u64) -> Result<StreamStats, String> {
    crate::with_opcoll_sim!(*g, |sim| dual_issue_stream(&mut sim, g, cycles))
}

/// All three operands of one SP instruction in one group (warp 0, group 1):
/// returns the core cycles from the issue edge to the dispatch edge and the
/// counters after it. Operands are checked against the written pattern and
/// the reference every cycle.
pub fn same_group<K>(sim: &mut Sim<K>, g: &RfGeom) -> Result<(u64, [u64; 3]), String>
where
    K: Block<In<Concrete> = OpcollIn<Concrete>, Out<Concrete> = OpcollOut<Concrete>>,
{
    let mut rf = OpcollRef::new(*g);
    let regs: Vec<u64> = (0..3).map(|k| reg_in_group(g, 0, 1, k)).collect();
    let mut seq = vec![];
    let mut i = idle();
    i.al_valid_i = Bits::new(1);
    i.al_nregs_i = Bits::new(32);
    seq.push(i);
    for &r in &regs {
        let mut i = idle();
        set_write(&mut i, 0, 0, r, |l| pattern(0, r, l));
        seq.push(i);
    }
    let mut i = idle();
    set_issue(&mut i, 0, 0, 0, 7, [regs[0], regs[1], regs[2]], 0);
    seq.push(i);
    let e0 = seq.len() as u64 - 1;
    let mut at = None;
    let mut bad = None;
    let st = lockstep(sim, &mut rf, e0 + 8, |t, o| {
        if o.sp[0].valid.to_u64() == 1 {
            at = Some(t - 1);
            for l in 0..32 {
                let got = [o.sp[0].a[l], o.sp[0].b[l], o.sp[0].c[l]].map(|x| x.to_u64() as u32);
                let want = [0, 1, 2].map(|k| pattern(0, regs[k], l));
                if got != want {
                    bad = Some(format!("lane {l}: operands {got:x?}, written {want:x?}"));
                }
            }
        }
        seq.get(t as usize).copied().unwrap_or_else(idle)
    })?;
    if let Some(b) = bad {
        return Err(b);
    }
    Ok((at.ok_or("never dispatched")? - e0, st.cnt))
}

/// `smrtl opcoll-stream`: the directed streams with a report; the dual
/// issue stream is dumped to `vcd` (with a grouped `.gtkw`) when given.
pub fn stream_report(
    cfg: &crate::config::SmConfig,
    cycles: u64,
    vcd: Option<&std::path::Path>,
) -> Result<(String, bool), String> {
    use std::fmt::Write as _;
    let g = RfGeom::from_config(cfg).map_err(|e| format!("config `{}`: {e}", cfg.name))?;
    let mut r = String::new();
    let _ = writeln!(
        r,
        "opcoll {}: {} banks = {} groups of 4, {} rows, {} collectors ({} per scheduler), {} scheduler(s)",
        cfg.name,
        g.groups * 4,
        g.groups,
        g.rows,
        g.collectors,
        g.collectors / g.scheds,
        g.scheds
    );
    let (st, sg) = crate::with_opcoll_sim!(g, |sim| {
        if let Some(p) = vcd {
            sim.open_vcd(p)
                .map_err(|e| format!("cannot write VCD {}: {e}", p.display()))?;
            crate::units::opcoll::write_gtkw(p, sim.design(), &g).map_err(|e| e.to_string())?;
        }
        let st = dual_issue_stream(&mut sim, &g, cycles)?;
        sim.close_vcd().map_err(|e| e.to_string())?;
        let sg = crate::with_opcoll_sim!(g, |sim2| same_group(&mut sim2, &g))?;
        Ok::<_, String>((st, sg))
    })?;
    let lat_ok = st.latencies.iter().all(|&l| l == 2);
    let per = g.scheds as u64;
    let ok = st.issue_stalls == 0 && st.dispatched == cycles * per && lat_ok && st.cnt == [0, 0, 0];
    let kind = if g.scheds == 1 {
        "SP FMAD (3 operands) and SFU FMUL (2 operands) alternating, 1 issue per core cycle"
    } else {
        "SP FFMA (3 operands) on each scheduler, 2 issues per core cycle"
    };
    let _ = writeln!(
        r,
        "conflict-free dual-issue stream: {kind}, write-back every cycle per channel"
    );
    let _ = writeln!(
        r,
        "  {cycles} core cycles: issued {}, issue stalls {}, dispatched {}, issue->dispatch {} cycles, \
         counters rr {} wr {} stall {}: {}",
        st.issued,
        st.issue_stalls,
        st.dispatched,
        if lat_ok {
            "always 2".to_string()
        } else {
            "NOT always 2".to_string()
        },
        st.cnt[0],
        st.cnt[1],
        st.cnt[2],
        if ok { "ok" } else { "FAIL" }
    );
    let (lat, cnt) = sg;
    let ok2 = lat == 4 && cnt == [3, 0, 0];
    let _ = writeln!(
        r,
        "three operands in one group: dispatch {lat} cycles after issue (documented 2 + 2), rr {} wr {} stall {}: {}",
        cnt[0],
        cnt[1],
        cnt[2],
        if ok2 { "ok" } else { "FAIL" }
    );
    if let Some(p) = vcd {
        let _ = writeln!(r, "VCD {} (gtkwave {}.gtkw)", p.display(), p.display());
    }
    Ok((r, ok && ok2))
}
