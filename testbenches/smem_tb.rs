//! Testbench for the shared-memory unit: drives warp requests through the
//! RTL block, checks every response against the reference model on a
//! shadow memory (read data, pass count, error flag, response latency), and
//! provides the access patterns of the issue (stride 1, 2, banks, broadcast,
//! random) and a random request generator with controllable locality.

use super::smem_ref::{execute, SmemGeom, SmemOp, SmemReq, SmemResp};
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use crate::units::smem::{Smem, SmemIn};
use rand::Rng;

/// The RTL request ports for a request (presented with `req_valid_i`).
pub fn to_in(r: &SmemReq) -> SmemIn<Concrete> {
    let mut i: SmemIn<Concrete> = zero_ports();
    i.req_valid_i = Bits::new(1);
    i.op_i = Bits::new(r.op as u64);
    for k in 0..32 {
        i.active_i[k] = Bits::new((r.active >> k & 1) as u64);
        i.addr_i[k] = Bits::new(r.addr[k] as u64);
        i.data_i[k] = Bits::new(r.data[k] as u64);
        i.cmp_i[k] = Bits::new(r.cmp[k] as u64);
    }
    i
}

/// What the RTL did with one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    pub rdata: [u32; 32],
    pub passes: u32,
    pub err: bool,
    /// Core cycles from the accepting edge to the response cycle.
    pub latency: u64,
    /// Cycles with `pass_o` and with `conflict_o` high.
    pub pass_cycles: u32,
    pub conflict_cycles: u32,
}

/// Drive one request to its response. Errors (instead of hanging) if the
/// unit never answers.
pub fn run_request<const LB: usize, const A: usize>(
    sim: &mut Sim<Smem<LB, A>>,
    r: &SmemReq,
) -> Result<Observed, String> {
    let idle: SmemIn<Concrete> = zero_ports();
    let req = to_in(r);
    // Wait for ready.
    let mut guard = 0;
    while sim.eval(&idle).ready_o.to_u64() == 0 {
        sim.step_core(&idle);
        guard += 1;
        if guard > 200 {
            return Err("unit never became ready".into());
        }
    }
    sim.step_core(&req);
    let (mut latency, mut pass_cycles, mut conflict_cycles) = (0u64, 0u32, 0u32);
    loop {
        latency += 1;
        let o = sim.step_core(&idle);
        pass_cycles += o.pass_o.to_u64() as u32;
        conflict_cycles += o.conflict_o.to_u64() as u32;
        if o.resp_valid_o.to_u64() == 1 {
            return Ok(Observed {
                rdata: std::array::from_fn(|k| o.rdata_o[k].to_u64() as u32),
                passes: o.passes_o.to_u64() as u32,
                err: o.err_o.to_u64() == 1,
                latency,
                pass_cycles,
                conflict_cycles,
            });
        }
        if latency > 200 {
            return Err(format!("no response after {latency} cycles"));
        }
    }
}

/// Check one request against the reference; returns the reference outcome.
pub fn check_request<const LB: usize, const A: usize>(
    sim: &mut Sim<Smem<LB, A>>,
    g: &SmemGeom,
    shadow: &mut [u32],
    r: &SmemReq,
) -> Result<SmemResp, String> {
    let o = run_request(sim, r)?;
    let e = execute(g, shadow, r);
    let atomic = SmemOp::from_code(r.op).map(|op| op.is_atomic()).unwrap_or(false);
    // Documented timing: one cycle per pass (two for atomics), at least one
    // cycle in RUN, one to collect the last read, then the response.
    let latency = match (e.passes as u64, atomic) {
        (0, _) => 3,
        (p, true) => 2 * p + 2,
        (p, false) => p + 2,
    };
    let conflicts = e.pass_sets.len() as u32 - groups_used(g, r);
    let want = Observed {
        rdata: e.rdata,
        passes: e.passes,
        err: e.err,
        latency,
        pass_cycles: e.passes,
        conflict_cycles: conflicts,
    };
    if o != want {
        return Err(format!("request {r:?}\n  rtl       {o:?}\n  reference {want:?}"));
    }
    Ok(e)
}

/// Groups (half-warps or warps) with at least one performed lane: each
/// contributes one pass that is not a conflict.
fn groups_used(g: &SmemGeom, r: &SmemReq) -> u32 {
    if SmemOp::from_code(r.op).is_none() {
        return 0;
    }
    (0..32 / g.group)
        .filter(|&q| (q * g.group..(q + 1) * g.group).any(|k| r.active >> k & 1 == 1 && (r.addr[k] as usize) < g.words))
        .count() as u32
}

/// A request of every lane at `base + k * stride`.
pub fn strided(op: SmemOp, base: u16, stride: u16) -> SmemReq {
    SmemReq {
        op: op as u8,
        active: !0,
        addr: std::array::from_fn(|k| base.wrapping_add(k as u16 * stride)),
        data: std::array::from_fn(|k| 0x100 + k as u32),
        cmp: [0; 32],
    }
}

/// A random request: random op (10% unknown codes when `bad_ops`), random
/// active mask, addresses in a window of `window` words (small windows
/// force bank conflicts and same-word collisions), 1% out of range.
pub fn random_request<R: Rng>(rng: &mut R, g: &SmemGeom, window: usize, bad_ops: bool) -> SmemReq {
    let op = if bad_ops && rng.gen_bool(0.1) {
        rng.gen_range(10..16)
    } else {
        rng.gen_range(0..10)
    };
    let base = rng.gen_range(0..g.words - window.min(g.words - 1));
    let active = match rng.gen_range(0..4) {
        0 => !0,
        1 => rng.gen::<u32>(),
        2 => rng.gen::<u32>() & rng.gen::<u32>(),
        _ => 0xffff << (16 * rng.gen_range(0..2)),
    };
    let addr = std::array::from_fn(|_| {
        if rng.gen_bool(0.01) {
            rng.gen_range(g.words..=0xffff) as u16
        } else {
            (base + rng.gen_range(0..window)) as u16
        }
    });
    let small = rng.gen_bool(0.5);
    SmemReq {
        op,
        active,
        addr,
        data: std::array::from_fn(|_| if small { rng.gen_range(0..8) } else { rng.gen() }),
        cmp: std::array::from_fn(|_| if small { rng.gen_range(0..8) } else { rng.gen() }),
    }
}

/// The named access patterns of the testbench.
pub fn patterns(g: &SmemGeom) -> Vec<(String, SmemReq)> {
    let b = g.banks as u16;
    vec![
        ("load stride 1".into(), strided(SmemOp::Load, 0, 1)),
        ("load stride 2".into(), strided(SmemOp::Load, 0, 2)),
        (format!("load stride {b} (= banks)"), strided(SmemOp::Load, 0, b)),
        (
            "load broadcast (all lanes one word)".into(),
            strided(SmemOp::Load, 7, 0),
        ),
        ("store stride 1".into(), strided(SmemOp::Store, 64, 1)),
        ("store stride 2".into(), strided(SmemOp::Store, 64, 2)),
        ("atomic add, all lanes one word".into(), strided(SmemOp::Add, 9, 0)),
        ("atomic add stride 1".into(), strided(SmemOp::Add, 128, 1)),
    ]
}
