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
