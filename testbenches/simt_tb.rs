//! Testbench of the SIMT control block: port conversion, a lock-step
//! checker against [`super::simt_ref::SimtRef`], random stimulus, and the
//! golden-model driver that replays a kernel's warp instruction stream
//! (the acceptance check of the branch traces).

use super::simt_ref::{SimtObs, SimtRef, SimtStim};
use crate::config::SmConfig;
use crate::golden::isa::{Op, Program};
use crate::golden::model::{Golden, Launch};
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use crate::units::simt::{Simt, SimtIn, SimtOut, OP_BRA, OP_EXIT, OP_SSY, OP_SYNC};
use rand::Rng;

/// The block's input ports for a stimulus.
pub fn to_in<const NS: usize>(s: &SimtStim) -> SimtIn<Concrete, NS> {
    let mut i: SimtIn<Concrete, NS> = zero_ports();
    if let Some((w, m)) = s.start {
        i.start_valid_i = Bits::new(1);
        i.start_warp_i = Bits::new(w as u64);
        for k in 0..32 {
            i.start_mask_i[k] = Bits::new((m >> k & 1) as u64);
        }
    }
    for p in 0..NS {
        if let Some(w) = s.adv[p] {
            i.adv_valid_i[p] = Bits::new(1);
            i.adv_warp_i[p] = Bits::new(w as u64);
        }
    }
    if let Some((w, op, t, taken)) = s.ctl {
        i.ctl_valid_i = Bits::new(1);
        i.ctl_warp_i = Bits::new(w as u64);
        i.ctl_op_i = Bits::new(op as u64);
        i.ctl_target_i = Bits::new(t as u64);
        for k in 0..32 {
            i.ctl_taken_i[k] = Bits::new((taken >> k & 1) as u64);
        }
    }
    i.f_warp_i = Bits::new(s.f_warp as u64);
    i.s_warp_i = Bits::new(s.s_warp as u64);
    i
}

fn mask(b: &[Bits<1>; 32]) -> u32 {
    b.iter().enumerate().fold(0, |a, (k, x)| a | (x.to_u64() as u32) << k)
}

/// The block's outputs as plain values (pulse payloads only when valid).
pub fn from_out<const MW: usize>(o: &SimtOut<Concrete, MW>) -> SimtObs {
    let bits = |b: &[Bits<1>; MW]| b.iter().enumerate().fold(0u64, |a, (k, x)| a | x.to_u64() << k);
    let v = |x: Bits<1>| x.to_u64() == 1;
    SimtObs {
        f_pc: o.f_pc_o.to_u64() as u32,
        f_active: mask(&o.f_active_o),
        s_pc: o.s_pc_o.to_u64() as u32,
        s_active: mask(&o.s_active_o),
        s_live: mask(&o.s_live_o),
        s_depth: o.s_depth_o.to_u64() as u32,
        run: bits(&o.run_o),
        busy: bits(&o.busy_o),
        ctl_ready: v(o.ctl_ready_o),
        redir: v(o.redir_valid_o).then(|| (o.redir_warp_o.to_u64() as u32, o.redir_pc_o.to_u64() as u32)),
        exit: v(o.exit_valid_o).then(|| o.exit_warp_o.to_u64() as u32),
        err: v(o.err_o).then(|| {
            (
                o.err_code_o.to_u64() as u32,
                o.err_warp_o.to_u64() as u32,
                o.err_pc_o.to_u64() as u32,
                v(o.err_sync_o),
            )
        }),
        err_ctx: (
            o.err_warp_o.to_u64() as u32,
            o.err_pc_o.to_u64() as u32,
            v(o.err_sync_o),
        ),
    }
}

/// Block and reference side by side; every output compared every cycle.
pub struct SimtCheck<const MW: usize, const NS: usize> {
    pub sim: Sim<Simt<MW, NS>>,
    pub rf: SimtRef,
    pub cycle: u64,
}

impl<const MW: usize, const NS: usize> SimtCheck<MW, NS> {
    pub fn new(depth: u32) -> Result<Self, String> {
        let blk = Simt::<MW, NS>::new(depth)?;
        Ok(SimtCheck {
            sim: Sim::new(blk).map_err(|e| e.to_string())?,
            rf: SimtRef::new(MW, NS, depth as usize),
            cycle: 0,
        })
    }

    /// One core cycle; the observed outputs, or the first difference.
    pub fn step(&mut self, s: &SimtStim) -> Result<SimtObs, String> {
        let o = from_out(&self.sim.step_core(&to_in::<NS>(s)));
        let r = self.rf.step(s);
        self.cycle += 1;
        if o != r {
            return Err(format!(
                "simt mismatch at core cycle {}: stimulus {s:?}\n  rtl       {o:?}\n  reference {r:?}",
                self.cycle - 1
            ));
        }
        Ok(o)
    }
}

/// Random stimulus for `warps` warps: frequent control ops (mostly valid
/// codes), starts, advances, random or structured taken masks, targets in a
/// small code window; `bias_push` > 0.5 grows stacks to overflow.
pub fn random_stim<R: Rng>(rng: &mut R, warps: u32, ns: usize, bias_push: f64) -> SimtStim {
    let mut w = || {
        if rng.gen_bool(0.02) {
            rng.gen_range(0..64)
        } else {
            rng.gen_range(0..warps)
        }
    };
    let (a0, a1, cw, sw, fw, f2) = (w(), w(), w(), w(), w(), w());
    let start = rng.gen_bool(0.05).then(|| {
        let m = match rng.gen_range(0..4) {
            0 => u32::MAX,
            1 => 0,
            2 => rng.gen::<u32>(),
            _ => (1u32 << rng.gen_range(1..32)) - 1,
        };
        (a0, m)
    });
    let adv = [
        rng.gen_bool(0.5).then_some(a1),
        (ns > 1 && rng.gen_bool(0.5)).then_some(f2),
    ];
    let ctl = rng.gen_bool(0.6).then(|| {
        let op = if rng.gen_bool(0.05) {
            rng.gen_range(0..8)
        } else if rng.gen_bool(bias_push) {
            [OP_BRA, OP_SSY][rng.gen_range(0..2)] as u32
        } else {
            [OP_BRA, OP_SSY, OP_SYNC, OP_EXIT][rng.gen_range(0..4)] as u32
        };
        let taken = match rng.gen_range(0..5) {
            0 => u32::MAX,
            1 => 0,
            2 => 1u32 << rng.gen_range(0..32),
            3 => !(1u32 << rng.gen_range(0..32)),
            _ => rng.gen(),
        };
        let taken = if op == OP_EXIT as u32 && rng.gen_bool(0.7) {
            taken & rng.gen::<u32>() & rng.gen::<u32>()
        } else {
            taken
        };
        (cw, op, rng.gen_range(0..1024), taken)
    });
    SimtStim {
        start,
        adv,
        ctl,
        f_warp: fw,
        s_warp: sw,
    }
}

/// One issued warp instruction of a golden-model run: the warp's (pc,
/// active mask) before and after it in the golden model and in the block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceRow {
    pub cta: u32,
    pub warp: u32,
    pub pc: u32,
    pub golden_before: u32,
    pub block_before: u32,
    /// (pc, active, running) after the instruction.
    pub golden_after: (u32, u32, bool),
    pub block_after: (u32, u32, bool),
}

/// Replay a kernel launch through the simt block: for every warp
/// instruction the golden model executes (in its round-robin order) the
/// block's pc and active mask of that warp at issue (scheduler read port)
/// must equal the golden model's before the instruction, and after the
/// block has finished it (pop engine idle) its pc, active mask and running
/// flag must equal the golden model's after it. Control instructions go to
/// the control port with the lanes that executed them (active and guard),
/// the others are plain advances; each CTA starts its warps in the block
/// as the golden model starts them. Returns the trace or the first
/// difference.
pub fn replay_golden<const MW: usize, const NS: usize>(
    cfg: &SmConfig,
    prog: &Program,
    launch: &Launch,
    gmem: Vec<u8>,
    check: &mut SimtCheck<MW, NS>,
) -> Result<Vec<TraceRow>, String> {
    let mut g = Golden::new(cfg, prog, launch, gmem).map_err(|e| e.to_string())?;
    let nw = g.warps_per_cta();
    if nw > MW {
        return Err(format!("{nw} warps per CTA exceed the block's {MW}"));
    }
    let idle = SimtStim::default();
    let start_all = |check: &mut SimtCheck<MW, NS>, g: &Golden| -> Result<(), String> {
        for w in 0..nw {
            let (_, active, _, _) = g.warp_state(w);
            check.step(&SimtStim {
                start: Some((w as u32, active)),
                ..SimtStim::default()
            })?;
        }
        Ok(())
    };
    start_all(check, &g)?;
    let mut cta = g.current_cta();
    let mut rows = vec![];
    loop {
        let before: Vec<(u32, u32, bool, usize)> = (0..nw).map(|w| g.warp_state(w)).collect();
        let r = match g.step().map_err(|e| e.to_string())? {
            Some(r) => r,
            None => break,
        };
        let w = r.warp;
        let golden_before = if r.cta != cta {
            // step() moved to the next CTA before executing: the block
            // starts it too. The golden pre-state is the CTA's initial one.
            cta = r.cta;
            let init: Vec<u32> = (0..nw as u32)
                .map(|k| {
                    let lanes = (launch.block.iter().product::<u32>() - k * 32).min(32);
                    if lanes >= 32 {
                        u32::MAX
                    } else {
                        (1u32 << lanes) - 1
                    }
                })
                .collect();
            for (k, m) in init.iter().enumerate() {
                check.step(&SimtStim {
                    start: Some((k as u32, *m)),
                    ..idle.clone()
                })?;
            }
            init[w as usize]
        } else {
            before[w as usize].1
        };
        // Wait until the block can take a control op for the warp.
        let mut guard = 0;
        loop {
            let o = check.step(&SimtStim {
                s_warp: w,
                f_warp: w,
                ..idle.clone()
            })?;
            if o.ctl_ready && o.busy >> w & 1 == 0 {
                break;
            }
            guard += 1;
            if guard > 200 {
                return Err(format!("warp {w}: the block stays busy"));
            }
        }
        let o = check.step(&issue_stim(&r.instr, w, r.active))?;
        if let Some(e) = o.err {
            return Err(format!("block error {e:?} at cta {} warp {w} pc {}", r.cta, r.pc));
        }
        let (block_pc, block_before) = (o.s_pc, o.s_active);
        // Let the block finish the instruction.
        let mut o = o;
        for _ in 0..200 {
            o = check.step(&SimtStim {
                s_warp: w,
                f_warp: w,
                ..idle.clone()
            })?;
            if o.busy >> w & 1 == 0 {
                break;
            }
        }
        let (gpc, gact, gdone, _) = g.warp_state(w as usize);
        let row = TraceRow {
            cta: r.cta,
            warp: w,
            pc: r.pc,
            golden_before,
            block_before,
            golden_after: (gpc, gact, !gdone),
            block_after: (o.s_pc, o.s_active, o.run >> w & 1 == 1),
        };
        if o.err.is_some()
            || block_pc != r.pc
            || row.golden_before != row.block_before
            || row.golden_after != row.block_after
        {
            return Err(format!(
                "cta {} warp {w} pc {} ({}): golden active {:08x} -> {:?}, block active {:08x} -> {:?}",
                r.cta,
                r.pc,
                crate::golden::asm::format_instr(&r.instr, None),
                row.golden_before,
                row.golden_after,
                row.block_before,
                row.block_after
            ));
        }
        rows.push(row);
    }
    Ok(rows)
}

/// The simt stimulus for one issued instruction with its executing lanes.
pub fn issue_stim(i: &crate::golden::isa::Instr, warp: u32, lanes: u32) -> SimtStim {
    let target = match i.b {
        crate::golden::isa::Src::Imm(t) => t,
        _ => 0,
    };
    let ctl = |op: u64| Some((warp, op as u32, target, lanes));
    let (ctl, adv) = match i.op {
        Op::Bra => (ctl(OP_BRA), None),
        Op::Ssy => (ctl(OP_SSY), None),
        Op::Sync => (ctl(OP_SYNC), None),
        Op::Exit => (ctl(OP_EXIT), None),
        _ => (None, Some(warp)),
    };
    SimtStim {
        start: None,
        adv: [adv, None],
        ctl,
        f_warp: warp,
        s_warp: warp,
    }
}
