//! Clocked testbench for the SP array and the FP64 unit: random warp
//! instructions (mostly valid ops, random masks, edge-class operands, back
//! to back or with gaps) offered on every group's dispatch port like the
//! operand collector would (held until `ready`), and a scoreboard that
//! checks every result pulse against [`sp_ref`]/[`dpu_ref`]: values and
//! predicates of every thread (inactive threads 0), mask, tag, error code,
//! and the core edge it appears at (the timing of the engine's doc
//! comment, computed here independently from the geometry).

use super::fp_vec::{int_operand, operands, F32, F64};
use super::sp_ref::{dpu_ref, sp_ref, RefOut};
use crate::golden::isa::{Op, Unit};
use crate::hdl::{Bits, Block, Concrete, Sim};
use crate::units::dpu::{Dpu, DpuIn, DpuOut};
use crate::units::sp::lane::Flavor;
use crate::units::sp::{random_sp_op, SpArray, SpArrayIn, SpArrayOut, SpGeom};
use rand::Rng;
use std::collections::VecDeque;

/// One warp instruction on a dispatch port.
#[derive(Debug, Clone)]
pub struct Dispatch {
    pub op: u8,
    pub m: u8,
    pub mask: u32,
    pub a: [u64; 32],
    pub b: [u64; 32],
    pub c: [u64; 32],
    pub pa: u32,
    pub tag: u32,
}

/// One result pulse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpResult {
    pub tag: u32,
    pub mask: u32,
    pub data: [u64; 32],
    pub pred: u32,
    pub err: u8,
}

/// A block the testbench can drive.
pub trait WarpUnit: Block + Clone {
    fn groups(&self) -> usize;
    /// Hot cycles a warp instruction occupies the lanes.
    fn issue_cycles(&self, op: u8, m: u8) -> u64;
    fn latency(&self) -> u64;
    fn set(&self, i: &mut Self::In<Concrete>, g: usize, d: Option<&Dispatch>);
    fn ready(&self, o: &Self::Out<Concrete>, g: usize) -> bool;
    fn result(&self, o: &Self::Out<Concrete>, g: usize) -> Option<WarpResult>;
    /// One thread's reference result.
    fn reference(&self, d: &Dispatch, t: usize) -> RefOut;
    fn random<R: Rng>(&self, r: &mut R) -> Dispatch;
}

fn mask_bits(m: &[Bits<1>; 32]) -> u32 {
    m.iter()
        .enumerate()
        .fold(0, |acc, (t, b)| acc | (b.to_u64() as u32) << t)
}
fn to_mask(m: u32) -> [Bits<1>; 32] {
    std::array::from_fn(|t| Bits::new((m >> t) as u64 & 1))
}

fn random_common<R: Rng>(r: &mut R, op: u64, m: u64, fp: bool, f64: bool) -> Dispatch {
    let mut a = [0u64; 32];
    let mut b = [0u64; 32];
    let mut c = [0u64; 32];
    for t in 0..32 {
        let v = if f64 {
            operands::<_, 3>(r, F64)
        } else if fp {
            operands::<_, 3>(r, F32)
        } else {
            [int_operand(r) as u64, int_operand(r) as u64, int_operand(r) as u64]
        };
        (a[t], b[t], c[t]) = (v[0], v[1], v[2]);
    }
    let mask = match r.gen_range(0..4) {
        0 => r.gen(),
        1 => 0xffff,
        _ => u32::MAX,
    };
    Dispatch {
        op: op as u8,
        m: m as u8,
        mask,
        a,
        b,
        c,
        pa: r.gen(),
        tag: r.gen(),
    }
}

fn sp_random<R: Rng>(r: &mut R, flavor: Flavor) -> Dispatch {
    let (op, m) = random_sp_op(r.gen(), flavor);
    let fp = Op::from_code(op as u8)
        .is_some_and(|o| matches!(o.info().class, crate::golden::isa::Class::Fp32) || o == Op::F2i);
    random_common(r, op, m, fp, false)
}

fn sp_issue(g: &SpGeom, op: u8, m: u8) -> u64 {
    let imul32 = (op == Op::Imul as u8 || op == Op::Imad as u8) && m < 3;
    (g.passes() * if imul32 { g.imul_passes } else { 1 }) as u64
}

impl<const G: usize, const M: usize, const N: usize, const GM: usize, const GN: usize> WarpUnit
    for SpArray<G, M, N, GM, GN>
{
    fn groups(&self) -> usize {
        G
    }
    fn issue_cycles(&self, op: u8, m: u8) -> u64 {
        sp_issue(&self.geom(), op, m)
    }
    fn latency(&self) -> u64 {
        self.geom().lat as u64
    }
    fn set(&self, i: &mut SpArrayIn<Concrete, G, GM, GN>, g: usize, d: Option<&Dispatch>) {
        let p = &mut i.sp[g];
        match d {
            None => p.valid = Bits::new(0),
            Some(d) => {
                p.valid = Bits::new(1);
                p.op = Bits::new(d.op as u64);
                p.md = Bits::new(d.m as u64);
                p.mask = to_mask(d.mask);
                p.pa = to_mask(d.pa);
                p.tag = Bits::new(d.tag as u64);
                for t in 0..32 {
                    p.a[t] = Bits::new(d.a[t]);
                    p.b[t] = Bits::new(d.b[t]);
                    p.c[t] = Bits::new(d.c[t]);
                }
            }
        }
    }
    fn ready(&self, o: &SpArrayOut<Concrete, G, GN>, g: usize) -> bool {
        o.sp[g].ready.to_u64() == 1
    }
    fn result(&self, o: &SpArrayOut<Concrete, G, GN>, g: usize) -> Option<WarpResult> {
        let o = &o.sp[g];
        (o.res_valid.to_u64() == 1).then(|| WarpResult {
            tag: o.res_tag.to_u64() as u32,
            mask: mask_bits(&o.res_mask),
            data: std::array::from_fn(|t| o.res_data[t].to_u64()),
            pred: mask_bits(&o.res_pred),
            err: o.err_code.to_u64() as u8,
        })
    }
    fn reference(&self, d: &Dispatch, t: usize) -> RefOut {
        sp_ref(
            self.geom().flavor,
            d.op,
            d.m,
            d.a[t] as u32,
            d.b[t] as u32,
            d.c[t] as u32,
            (d.pa >> t) & 1 == 1,
        )
    }
    fn random<R: Rng>(&self, r: &mut R) -> Dispatch {
        sp_random(r, self.geom().flavor)
    }
}

impl WarpUnit for Dpu {
    fn groups(&self) -> usize {
        1
    }
    fn issue_cycles(&self, _op: u8, _m: u8) -> u64 {
        (32 / self.lanes()) as u64
    }
    fn latency(&self) -> u64 {
        Dpu::latency(self) as u64
    }
    fn set(&self, i: &mut DpuIn<Concrete>, _g: usize, d: Option<&Dispatch>) {
        match d {
            None => i.dpu_valid_i = Bits::new(0),
            Some(d) => {
                i.dpu_valid_i = Bits::new(1);
                i.dpu_op_i = Bits::new(d.op as u64);
                i.dpu_mod_i = Bits::new(d.m as u64);
                i.dpu_mask_i = to_mask(d.mask);
                i.dpu_tag_i = Bits::new(d.tag as u64);
                for t in 0..32 {
                    i.dpu_a_i[t] = Bits::new(d.a[t]);
                    i.dpu_b_i[t] = Bits::new(d.b[t]);
                    i.dpu_c_i[t] = Bits::new(d.c[t]);
                }
            }
        }
    }
    fn ready(&self, o: &DpuOut<Concrete>, _g: usize) -> bool {
        o.dpu_ready_o.to_u64() == 1
    }
    fn result(&self, o: &DpuOut<Concrete>, _g: usize) -> Option<WarpResult> {
        (o.dpu_res_valid_o.to_u64() == 1).then(|| WarpResult {
            tag: o.dpu_res_tag_o.to_u64() as u32,
            mask: mask_bits(&o.dpu_res_mask_o),
            data: std::array::from_fn(|t| o.dpu_res_data_o[t].to_u64()),
            pred: mask_bits(&o.dpu_res_pred_o),
            err: o.dpu_err_code_o.to_u64() as u8,
        })
    }
    fn reference(&self, d: &Dispatch, t: usize) -> RefOut {
        dpu_ref(d.op, d.m, d.a[t], d.b[t], d.c[t])
    }
    fn random<R: Rng>(&self, r: &mut R) -> Dispatch {
        let ops: Vec<Op> = Op::ALL.iter().copied().filter(|o| o.unit() == Unit::Dpu).collect();
        let (op, m) = if r.gen_range(0..32) == 0 {
            (r.gen_range(0..128u64), r.gen_range(0..16u64))
        } else {
            let op = ops[r.gen_range(0..ops.len())];
            let valid: Vec<u8> = (0..16u8).filter(|&m| op.info().modk.accepts(m)).collect();
            (op as u64, valid[r.gen_range(0..valid.len())] as u64)
        };
        let mut d = random_common(r, op, m, true, true);
        if op == Op::F2d as u64 || op == Op::I2d as u64 {
            for t in 0..32 {
                d.a[t] = if op == Op::F2d as u64 {
                    operands::<_, 1>(r, F32)[0]
                } else {
                    int_operand(r) as u64
                };
            }
        }
        d
    }
}

/// The expected result of a dispatch.
pub fn expected<U: WarpUnit>(u: &U, d: &Dispatch) -> WarpResult {
    let mut w = WarpResult {
        tag: d.tag,
        mask: d.mask,
        data: [0; 32],
        pred: 0,
        err: 0,
    };
    for t in 0..32 {
        let r = u.reference(d, t);
        w.err |= r.err;
        if (d.mask >> t) & 1 == 1 {
            w.data[t] = r.res;
            w.pred |= (r.pred as u32) << t;
        }
    }
    w
}

/// Statistics of a run.
#[derive(Debug, Clone, Default)]
pub struct TbStats {
    pub warps: u64,
    pub errors_flagged: u64,
    pub hot_cycles: u64,
}

/// Run `core_cycles` core cycles of random traffic (a new instruction
/// offered with probability `p_valid` per group and core cycle) through
/// `sim`, checking every result. Returns the first mismatch.
pub fn run_random<U: WarpUnit, R: Rng>(
    sim: &mut Sim<U>,
    r: &mut R,
    core_cycles: u64,
    p_valid: f64,
) -> Result<TbStats, String> {
    let u = sim.block().clone();
    let g = u.groups();
    let mut pending: Vec<Option<Dispatch>> = vec![None; g];
    let mut queue: Vec<VecDeque<(u64, WarpResult)>> = vec![VecDeque::new(); g];
    let mut st = TbStats::default();
    let lat = u.latency();
    let mut inp: U::In<Concrete> = crate::hdl::sim::zero_ports();
    // Offer traffic for `core_cycles`, then drain (no new offers) until
    // every accepted instruction has answered.
    let mut n = 0u64;
    loop {
        let offering = n < core_cycles;
        if !offering && queue.iter().all(|q| q.is_empty()) && pending.iter().all(|p| p.is_none()) {
            break;
        }
        if n > core_cycles + 1000 {
            return Err(format!(
                "results still missing {} core cycles after the last offer",
                n - core_cycles
            ));
        }
        n += 1;
        for (k, p) in pending.iter_mut().enumerate() {
            if offering && p.is_none() && r.gen_bool(p_valid) {
                *p = Some(u.random(r));
            }
            u.set(&mut inp, k, p.as_ref());
        }
        // First half of the core cycle (odd hot cycle), then the core edge.
        if !sim.next_is_core_edge() {
            sim.step(&inp);
        }
        let t = sim.hot_cycle();
        let o = sim.step(&inp);
        st.hot_cycles = sim.hot_cycle();
        for k in 0..g {
            let got = u.result(&o, k);
            match (got, queue[k].front()) {
                (Some(w), Some((due, want))) => {
                    if *due != t || w != *want {
                        return Err(format!(
                            "group {k}: result at hot cycle {t} (core edge), expected at {due}\n  got  {w:x?}\n  want {want:x?}"
                        ));
                    }
                    if w.err != 0 {
                        st.errors_flagged += 1;
                    }
                    queue[k].pop_front();
                    st.warps += 1;
                }
                (Some(w), None) => return Err(format!("group {k}: unexpected result at hot cycle {t}: {w:x?}")),
                (None, Some((due, _))) if *due <= t => {
                    return Err(format!("group {k}: no result at hot cycle {t}, expected at {due}"))
                }
                _ => {}
            }
            if u.ready(&o, k) {
                if let Some(d) = pending[k].take() {
                    let due = t + u.issue_cycles(d.op, d.m) + lat + if lat % 2 == 1 { 1 } else { 2 };
                    queue[k].push_back((due, expected(&u, &d)));
                }
            }
        }
    }
    Ok(st)
}

/// Statistics of a lane-port run ([`run_lanes`]).
#[derive(Debug, Clone, Default)]
pub struct LaneStats {
    /// Lane operations checked (result, predicate, error, cycle).
    pub lane_ops: u64,
    /// Of those, with an error code.
    pub errors_flagged: u64,
    /// Of those, with a true predicate.
    pub preds_true: u64,
    /// Lane operations per opcode (index: the 7-bit opcode).
    pub per_op: Vec<u64>,
    /// Warp instructions checked between the lane phases.
    pub warps: u64,
    /// Switches to lane mode and back.
    pub switches: u64,
}

/// What the lanes are given in lane mode: every op of `flavor` (`None`: a
/// random valid modifier at each use) and operations that must answer
/// with an error code (the other flavour's multiply-add, an SFU op, an
/// FP64 op, an undefined opcode, modifiers the ISA does not define, FMAD
/// with a rounding other than RN).
pub fn lane_menu(flavor: Flavor) -> Vec<(u8, Option<u8>)> {
    let mut m: Vec<(u8, Option<u8>)> = Op::ALL
        .iter()
        .filter(|o| flavor.implements(**o))
        .map(|&o| (o as u8, None))
        .collect();
    let other = match flavor {
        Flavor::Tesla => Op::Ffma,
        Flavor::Ieee => Op::Fmad,
    };
    m.extend([
        (other as u8, Some(0)),
        (Op::Rcp as u8, Some(0)),
        (Op::Dadd as u8, Some(0)),
        (0x7f, Some(0)),
        (Op::Imul as u8, Some(5)),
        (Op::Isetp as u8, Some(6)),
        (Op::Iadd as u8, Some(1)),
    ]);
    if flavor == Flavor::Tesla {
        m.push((Op::Fmad as u8, Some(1)));
    }
    m
}

/// Operands for one lane operation: FP32 edge classes for FP ops (and
/// F2I), integer edge classes otherwise.
fn lane_operands<R: Rng>(r: &mut R, op: u8) -> [u32; 3] {
    let fp =
        Op::from_code(op).is_some_and(|o| matches!(o.info().class, crate::golden::isa::Class::Fp32) || o == Op::F2i);
    if fp {
        operands::<_, 3>(r, F32).map(|v| v as u32)
    } else {
        [int_operand(r), int_operand(r), int_operand(r)]
    }
}

/// Lane-port traffic on an SP array with lane ports, `rounds` times:
/// warp-level random traffic with `ln_mode` 0 ([`run_random`], `warp_core`
/// core cycles, drained: the group is idle and `ready_o` is 1), then the
/// mode switched to 1 on every group for a random 1..=`lane_hot` hot
/// cycles in which every lane takes an operation on most hot cycles, the
/// lanes of a group all different ops of [`lane_menu`] (a rotation that
/// moves every hot cycle), while a warp instruction is offered on every
/// dispatch port (it must be ignored); then the mode back to 0 and
/// `sp_latency` more hot cycles. Every hot cycle, every lane port's
/// outputs are checked: `valid_o` exactly `sp_latency` hot cycles after a
/// valid operation, then its result, predicate, error bit and code against
/// [`sp_ref`], else all outputs 0; and no warp result, `ready_o` 1.
pub fn run_lanes<const G: usize, const N: usize, const GN: usize, R: Rng>(
    sim: &mut Sim<SpArray<G, 1, N, G, GN>>,
    r: &mut R,
    rounds: usize,
    lane_hot: u64,
    warp_core: u64,
) -> Result<LaneStats, String> {
    let u = sim.block().clone();
    let geom = u.geom();
    let lat = geom.lat as u64;
    let menu = lane_menu(geom.flavor);
    let mut st = LaneStats {
        per_op: vec![0; 128],
        ..LaneStats::default()
    };
    for _ in 0..rounds {
        let w = run_random(sim, r, warp_core, 0.7)?;
        st.warps += w.warps;
        st.switches += 1;
        let n_hot = r.gen_range(1..=lane_hot);
        let mut due: Vec<VecDeque<(u64, u8, RefOut)>> = vec![VecDeque::new(); GN];
        let ignored: Vec<Dispatch> = (0..G).map(|_| u.random(r)).collect();
        for c in 0..n_hot + lat {
            let lane_mode = c < n_hot;
            let mut inp: SpArrayIn<Concrete, G, G, GN> = crate::hdl::sim::zero_ports();
            for g in 0..G {
                inp.mode[g].ln_mode = Bits::new(lane_mode as u64);
                u.set(&mut inp, g, lane_mode.then_some(&ignored[g]));
            }
            let t = sim.hot_cycle();
            // Core-domain outputs are sampled at core edges (a result
            // pulse seen at the last edge of the warp phase is still on
            // the port in the hot cycle after it).
            let edge = sim.next_is_core_edge();
            let rot = r.gen_range(0..menu.len());
            for (j, l) in inp.ln.iter_mut().enumerate() {
                let (op, fixed) = menu[(rot + j % N) % menu.len()];
                let m = fixed.unwrap_or_else(|| {
                    let modk = Op::from_code(op).map(|o| o.info().modk);
                    let ok: Vec<u8> = (0..16u8).filter(|&v| modk.is_some_and(|k| k.accepts(v))).collect();
                    if ok.is_empty() {
                        0
                    } else {
                        ok[r.gen_range(0..ok.len())]
                    }
                });
                let [a, b, cc] = lane_operands(r, op);
                let pa = r.gen_bool(0.5);
                let valid = r.gen_bool(0.9);
                l.valid = Bits::new(valid as u64);
                l.op = Bits::new(op as u64);
                l.md = Bits::new(m as u64);
                l.a = Bits::new(a as u64);
                l.b = Bits::new(b as u64);
                l.c = Bits::new(cc as u64);
                l.pa = Bits::new(pa as u64);
                if valid && lane_mode {
                    due[j].push_back((t + lat, op, sp_ref(geom.flavor, op, m, a, b, cc, pa)));
                }
            }
            let o = sim.step(&inp);
            for g in 0..G {
                if edge && (o.sp[g].res_valid.to_u64() != 0 || o.sp[g].ready.to_u64() != 1) {
                    return Err(format!(
                        "group {g}, hot cycle {t}, lane phase: res_valid_o {} ready_o {} (want 0 and 1: the warp dispatch is ignored)",
                        o.sp[g].res_valid.to_u64(),
                        o.sp[g].ready.to_u64()
                    ));
                }
            }
            for (j, q) in due.iter_mut().enumerate() {
                let p = &o.ln[j];
                let got = (
                    p.valid.to_u64(),
                    p.res.to_u64(),
                    p.pred.to_u64(),
                    p.err.to_u64(),
                    p.err_code.to_u64(),
                );
                let want = match q.front() {
                    Some(&(d, op, want)) if d == t => {
                        q.pop_front();
                        st.lane_ops += 1;
                        st.per_op[op as usize] += 1;
                        st.errors_flagged += (want.err != 0) as u64;
                        st.preds_true += want.pred as u64;
                        (1, want.res, want.pred as u64, (want.err != 0) as u64, want.err as u64)
                    }
                    _ => (0, 0, 0, 0, 0),
                };
                if got != want {
                    return Err(format!(
                        "lane {j}, hot cycle {t}: (valid, res, pred, err, err_code) = {got:x?}, want {want:x?}"
                    ));
                }
            }
        }
        if let Some((j, q)) = due.iter().enumerate().find(|(_, q)| !q.is_empty()) {
            return Err(format!("lane {j}: {} results never seen", q.len()));
        }
    }
    // End with warp traffic again: ln_mode 0 behaves as without lane ports.
    st.warps += run_random(sim, r, warp_core, 0.7)?.warps;
    Ok(st)
}
