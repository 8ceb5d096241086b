//! Testbench for the SFU block: random warp instructions through the
//! clocked RTL, every result checked against the golden SFU functions
//! (`golden::arith::sfu`, which share no logic with the block) and against
//! the timing the block documents (result pulse at core edge `E + S +
//! sfu_latency` hot cycles after the accepting edge `E`, a new warp
//! accepted every `S` hot cycles, core-visible outputs constant over each
//! core cycle). FMUL co-issue (on blocks built with `sfu_fmul`) is checked
//! against the Tesla FMUL of `golden::arith::tesla`. Also the exhaustive
//! sweep of the combinational datapath.

use crate::golden::arith::sfu as g;
use crate::golden::arith::tesla;
use crate::golden::isa::Rnd;
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use crate::units::sfu::{datapath, Sfu, SfuIn, OP_FMUL};
use indicatif::{ProgressBar, ProgressStyle};
use rand::Rng;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// The golden result of SFU opcode `op` (0x30..0x37) on `x`; `None` for an
/// opcode the SFU does not execute.
pub fn golden(op: u8, x: u32) -> Option<u32> {
    Some(match op {
        0x30 => g::rcp(x),
        0x31 => g::rsqrt(x),
        0x32 => g::lg2(x),
        0x33 => g::ex2(x),
        0x34 => g::sin(x),
        0x35 => g::cos(x),
        0x36 => g::presin(x),
        0x37 => g::preex2(x),
        _ => return None,
    })
}

/// The golden result of warp opcode `op` with modifier `md` on lane
/// operands `a`, `b`, for a block with (`fmul`) or without the FMUL
/// multipliers; `None` when the block answers with error code 1.
pub fn golden_op(fmul: bool, op: u8, md: u8, a: u32, b: u32) -> Option<u32> {
    if fmul && op as u64 == OP_FMUL {
        let na = if md & 4 != 0 { 0x8000_0000 } else { 0 };
        let nb = if md & 8 != 0 { 0x8000_0000 } else { 0 };
        return Some(tesla::fmul(a ^ na, b ^ nb, Rnd::from_bits(md).round()));
    }
    golden(op, a)
}

/// Names of the eight functions, in opcode order.
pub const NAMES: [&str; 8] = ["rcp", "rsq", "lg2", "ex2", "sin", "cos", "presin", "preex2"];

/// One warp instruction.
#[derive(Debug, Clone)]
pub struct Warp {
    pub op: u8,
    pub md: u8,
    pub mask: u32,
    pub a: [u32; 32],
    pub b: [u32; 32],
    pub tag: u32,
}

/// An interesting 32-bit operand: random bits, or a special value, or a
/// value in a function's useful range.
pub fn operand(rng: &mut impl Rng) -> u32 {
    match rng.gen_range(0..8) {
        0 => [
            0,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x0000_1234,
            0x3f80_0000,
            0x4080_0000,
            0x4000_0000,
        ][rng.gen_range(0..9)],
        1 => g::presin(rng.gen_range(-8.0f32..8.0).to_bits()),
        2 => g::preex2(rng.gen_range(-130.0f32..130.0).to_bits()),
        _ => rng.gen(),
    }
}

/// An FMUL operand: random bits, a special value, or a value near 1
/// (products near the flush and overflow thresholds come from the random
/// exponents).
pub fn fmul_operand(rng: &mut impl Rng) -> u32 {
    match rng.gen_range(0..8) {
        0 => [
            0,
            0x8000_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0x0000_1234,
            0x0080_0000,
            0x3f80_0000,
        ][rng.gen_range(0..8)],
        1 => 0x3f00_0000 | rng.gen_range(0..0x0100_0000) | (rng.gen::<u32>() & 0x8000_0000),
        _ => rng.gen(),
    }
}

/// A random warp: mostly SFU opcodes, a quarter FMUL, all lanes active
/// most of the time.
pub fn random_warp(rng: &mut impl Rng, tag: u32) -> Warp {
    let k = rng.gen_range(0..32);
    let op = if k == 0 {
        rng.gen_range(0..0x30)
    } else if k < 9 {
        OP_FMUL as u8
    } else {
        0x30 | rng.gen_range(0..8)
    };
    let mask = if rng.gen_bool(0.7) { u32::MAX } else { rng.gen() };
    let fm = op as u64 == OP_FMUL;
    Warp {
        op,
        md: rng.gen_range(0..16),
        mask,
        a: std::array::from_fn(|_| if fm { fmul_operand(rng) } else { operand(rng) }),
        b: std::array::from_fn(|_| fmul_operand(rng)),
        tag,
    }
}

fn to_in(w: &Warp) -> SfuIn<Concrete> {
    let mut i: SfuIn<Concrete> = zero_ports();
    i.sfu_valid_i = Bits::new(1);
    i.sfu_op_i = Bits::new(w.op as u64);
    i.sfu_mod_i = Bits::new(w.md as u64);
    i.sfu_tag_i = Bits::new(w.tag as u64);
    for k in 0..32 {
        i.sfu_mask_i[k] = Bits::new((w.mask >> k & 1) as u64);
        i.sfu_a_i[k] = Bits::new(w.a[k] as u64);
        i.sfu_b_i[k] = Bits::new(w.b[k] as u64);
    }
    i
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub warps: u64,
    /// Of which FMUL on the multipliers.
    pub fmul_warps: u64,
    pub threads: u64,
    pub hot_cycles: u64,
}

/// Drive `n` random warps through `sim` (offered with probability
/// `p_offer` per core cycle) and check every result and its timing.
pub fn run_random(sim: &mut Sim<Sfu>, n: u64, p_offer: f64, rng: &mut impl Rng) -> Result<Stats, String> {
    let fmul = sim.block().fmul();
    let blk = sim.block().clone();
    let stream = |op: u8| blk.stream_of(op) as u64;
    let lat = sim.block().latency() as u64;
    let mut st = Stats::default();
    let idle: SfuIn<Concrete> = zero_ports();
    let mut offered: Option<Warp> = None;
    let mut inp = idle;
    let mut expect: VecDeque<(u64, Warp)> = VecDeque::new();
    let mut last_accept: Option<(u64, u64)> = None;
    let mut prev_out = None;
    let mut sent = 0u64;
    let t0 = sim.hot_cycle();
    loop {
        let t = sim.hot_cycle();
        // Core inputs change at the start of a core cycle (odd t, or t = 0).
        if t % 2 == 1 || t == t0 {
            if offered.is_none() && sent < n && rng.gen_bool(p_offer) {
                let tag = rng.gen();
                offered = Some(random_warp(rng, tag));
            }
            inp = match &offered {
                Some(w) => to_in(w),
                None => {
                    // Idle: valid low, payload random (must be ignored).
                    let mut i = idle;
                    i.sfu_op_i = Bits::new(rng.gen_range(0..128));
                    i.sfu_a_i[0] = Bits::new(rng.gen::<u32>() as u64);
                    i
                }
            };
        }
        let o = sim.step(&inp);
        let core_edge = t.is_multiple_of(2);
        let flat = (
            o.sfu_ready_o,
            o.sfu_res_valid_o,
            o.sfu_res_tag_o,
            o.sfu_res_data_o,
            o.sfu_res_mask_o,
            o.sfu_err_o,
        );
        // Registers behind the outputs change at ph_q = 1 edges (ends of odd
        // hot cycles): an even cycle and the odd one after it agree.
        if t.is_multiple_of(2) {
            prev_out = Some(flat);
        } else if let Some(p) = prev_out.take() {
            if p != flat {
                return Err(format!(
                    "hot cycle {t}: core-visible outputs changed inside a core cycle"
                ));
            }
        }
        if !core_edge {
            continue;
        }
        let ready = o.sfu_ready_o.to_u64() == 1;
        if let Some((la, s)) = last_accept {
            let free = t >= la + s;
            if ready != free {
                return Err(format!(
                    "hot cycle {t}: sfu_ready_o = {ready}, expected {free} (last accept at {la}, stream {s})"
                ));
            }
        }
        if o.sfu_res_valid_o.to_u64() == 1 {
            let Some((due, w)) = expect.pop_front() else {
                return Err(format!("hot cycle {t}: result pulse without an instruction"));
            };
            if due != t {
                return Err(format!("hot cycle {t}: result of tag {:#x} due at {due}", w.tag));
            }
            check(fmul, &w, &o, t)?;
            st.warps += 1;
            st.fmul_warps += u64::from(fmul && w.op as u64 == OP_FMUL);
            st.threads += 32;
        } else if let Some((due, w)) = expect.front() {
            if *due <= t {
                return Err(format!(
                    "hot cycle {t}: missing result of tag {:#x} due at {due}",
                    w.tag
                ));
            }
        }
        if ready {
            if let Some(w) = offered.take() {
                let s = stream(w.op);
                last_accept = Some((t, s));
                expect.push_back((t + s + lat, w));
                sent += 1;
            }
        }
        if sent == n && expect.is_empty() {
            st.hot_cycles = sim.hot_cycle() - t0;
            return Ok(st);
        }
        if t - t0 > 64 * (n + 4) * stream(0x30) {
            return Err(format!("hot cycle {t}: run did not finish"));
        }
    }
}

fn check(fmul: bool, w: &Warp, o: &crate::units::sfu::SfuOut<Concrete>, t: u64) -> Result<(), String> {
    let tag = o.sfu_res_tag_o.to_u64() as u32;
    if tag != w.tag {
        return Err(format!("hot cycle {t}: tag {tag:#x}, expected {:#x}", w.tag));
    }
    let known = golden_op(fmul, w.op, w.md, 0, 0).is_some();
    let err = o.sfu_err_o.to_u64() == 1;
    let code = o.sfu_err_code_o.to_u64();
    if err == known || (err && code != 1) || (!err && code != 0) {
        return Err(format!(
            "hot cycle {t}: op {:#x}: err {err} code {code}, expected err {}",
            w.op, !known
        ));
    }
    for k in 0..32 {
        let m = w.mask >> k & 1 == 1;
        if (o.sfu_res_mask_o[k].to_u64() == 1) != m {
            return Err(format!("hot cycle {t}: tag {:#x}: mask of lane {k}", w.tag));
        }
        let want = if m {
            golden_op(fmul, w.op, w.md, w.a[k], w.b[k]).unwrap_or(0)
        } else {
            0
        };
        let got = o.sfu_res_data_o[k].to_u64() as u32;
        if got != want {
            return Err(format!(
                "hot cycle {t}: tag {:#x} op {:#x} mod {:#x} lane {k}: a = {:#010x} b = {:#010x}: RTL {got:#010x}, golden {want:#010x}",
                w.tag, w.op, w.md, w.a[k], w.b[k]
            ));
        }
    }
    Ok(())
}

/// A mismatch of the exhaustive sweep.
#[derive(Debug, Clone, Copy)]
pub struct Mismatch {
    pub op: u8,
    pub x: u32,
    pub rtl: u32,
    pub golden: u32,
}

/// Every 32-bit input of function `op` (0x30..0x37) through the
/// combinational datapath against the golden model, `threads` workers,
/// optional progress bar. Returns (inputs checked, mismatches, first ones).
pub fn exhaustive(op: u8, lo: u64, hi: u64, threads: usize, progress: bool) -> (u64, u64, Vec<Mismatch>) {
    let rom = datapath::rom_words();
    const CHUNK: u64 = 1 << 20;
    let chunks = (hi - lo).div_ceil(CHUNK);
    let bar = if progress {
        let b = ProgressBar::new(hi - lo);
        b.set_style(
            ProgressStyle::with_template("{prefix:>7} [{elapsed_precise}] {wide_bar} {percent:>3}% eta {eta}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b.set_prefix(NAMES[(op & 7) as usize]);
        b
    } else {
        ProgressBar::hidden()
    };
    let next = AtomicU64::new(0);
    let bad = AtomicU64::new(0);
    let first = Mutex::new(Vec::new());
    std::thread::scope(|sc| {
        for _ in 0..threads.max(1) {
            sc.spawn(|| loop {
                let c = next.fetch_add(1, Ordering::Relaxed);
                if c >= chunks {
                    break;
                }
                let a = lo + c * CHUNK;
                let b = (a + CHUNK).min(hi);
                for x in a..b {
                    let x = x as u32;
                    let r = datapath::eval_comb(&rom, (op & 7) as u32, x);
                    let w = golden(op, x).unwrap_or(0);
                    if r != w {
                        bad.fetch_add(1, Ordering::Relaxed);
                        let mut f = first.lock().unwrap_or_else(|e| e.into_inner());
                        if f.len() < 10 {
                            f.push(Mismatch {
                                op,
                                x,
                                rtl: r,
                                golden: w,
                            });
                        }
                    }
                }
                bar.inc(b - a);
            });
        }
    });
    bar.finish_and_clear();
    let f = first.into_inner().unwrap_or_else(|e| e.into_inner());
    (hi - lo, bad.into_inner(), f)
}

/// The clocked SFU block as `smrtl sfu --rtl` runs it: natively, or in
/// its Verilated export (`--verilator`).
pub enum SfuStepper {
    Native(Box<Sim<Sfu>>),
    Verilated {
        v: Box<crate::cosim::verilator::Verilated>,
        t: u64,
        words: Vec<u64>,
        outw: Vec<u64>,
    },
}

impl SfuStepper {
    /// `blk` simulated natively, or (`verilator`) built and reset in
    /// Verilator.
    pub fn new(blk: Sfu, verilator: bool) -> anyhow::Result<Self> {
        let sim = Sim::new(blk)?;
        if !verilator {
            return Ok(SfuStepper::Native(Box::new(sim)));
        }
        use crate::cosim::verilator::{PortsOf, Verilated};
        let texts = crate::hdl::verilog::emit(sim.design());
        let mut v = Verilated::new(&texts, &PortsOf::top(sim.design()))?;
        v.reset();
        Ok(SfuStepper::Verilated {
            v: Box::new(v),
            t: 0,
            words: Vec::new(),
            outw: Vec::new(),
        })
    }

    /// The hot cycle about to run.
    pub fn hot_cycle(&self) -> u64 {
        match self {
            SfuStepper::Native(s) => s.hot_cycle(),
            SfuStepper::Verilated { t, .. } => *t,
        }
    }

    /// One hot cycle with inputs `i`: the outputs before its edge.
    pub fn step(&mut self, i: &SfuIn<Concrete>) -> crate::units::sfu::SfuOut<Concrete> {
        match self {
            SfuStepper::Native(s) => s.step(i),
            SfuStepper::Verilated { v, t, words, outw } => {
                crate::hdl::sim::flatten(i, words);
                v.set_inputs(words);
                v.pre_edge(*t);
                v.get_outputs(outw);
                v.edge(*t);
                *t += 1;
                crate::hdl::sim::unflatten(outw)
            }
        }
    }
}

/// Run SFU opcode `op` on every value of `xs` through the clocked block,
/// 32 threads per warp instruction, one instruction at a time.
pub fn rtl_apply(sim: &mut SfuStepper, op: u8, xs: &[u32]) -> Result<Vec<u32>, String> {
    let mut out = Vec::with_capacity(xs.len());
    for (c, chunk) in xs.chunks(32).enumerate() {
        let mut a = [0u32; 32];
        a[..chunk.len()].copy_from_slice(chunk);
        let w = Warp {
            op,
            md: 0,
            mask: u32::MAX,
            a,
            b: [0; 32],
            tag: c as u32,
        };
        let req = to_in(&w);
        let idle: SfuIn<Concrete> = zero_ports();
        // Align to a core edge (even hot cycle), then offer until accepted.
        if sim.hot_cycle() % 2 == 1 {
            sim.step(&idle);
        }
        let mut guard = 0;
        loop {
            let o = sim.step(&req);
            sim.step(&req);
            if o.sfu_ready_o.to_u64() == 1 {
                break;
            }
            guard += 1;
            if guard > 1000 {
                return Err("SFU never became ready".into());
            }
        }
        let mut guard = 0;
        loop {
            let o = sim.step(&idle);
            sim.step(&idle);
            if o.sfu_res_valid_o.to_u64() == 1 {
                out.extend((0..chunk.len()).map(|k| o.sfu_res_data_o[k].to_u64() as u32));
                break;
            }
            guard += 1;
            if guard > 1000 {
                return Err("SFU never answered".into());
            }
        }
    }
    Ok(out)
}
