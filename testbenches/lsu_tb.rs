//! Testbench for the LSU: the RTL block with the RTL shared-memory unit as
//! its sibling (as in the SM top) and the global-memory model on `gm_*`.
//! Every core cycle every LSU output is compared with the reference
//! (`lsu_ref`), which sees the same inputs; every result pulse is compared
//! with what the golden model (`golden::model::unit_access`, i.e.
//! `memory.rs` / `exec.rs`) computes for the same access on mirror images;
//! at the end the global image must equal the golden mirror.

use super::gmem::{GmReq, Gmem, GmemConfig};
use super::lsu_ref::{LsuGeom, LsuIns, LsuOuts, LsuRef};
use crate::golden::isa::Op;
use crate::golden::model::unit_access::{memory_access, Access};
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use crate::units::lsu::{Lsu, LsuIn, LsuOut, ERR_GLOBAL, ERR_OP, ERR_PARAM, ERR_SHARED};
use crate::units::smem::{Smem, SmemIn};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// The RTL inputs for the reference's input record.
pub fn to_rtl<const MW: usize>(i: &LsuIns) -> LsuIn<Concrete, MW> {
    let mut r: LsuIn<Concrete, MW> = zero_ports();
    let b = |v: bool| Bits::new(v as u64);
    r.lsu_valid_i = b(i.valid);
    r.lsu_op_i = Bits::new(i.op as u64 & 0x7f);
    r.lsu_mod_i = Bits::new(i.md as u64 & 15);
    for l in 0..32 {
        r.lsu_mask_i[l] = Bits::new((i.mask >> l & 1) as u64);
        r.lsu_a_i[l] = Bits::new(i.a[l] as u64);
        r.lsu_b_i[l] = Bits::new(i.b[l]);
        r.lsu_c_i[l] = Bits::new(i.c[l] as u64);
        r.sm_rdata_i[l] = Bits::new(i.sm_rdata[l] as u64);
        r.gm_resp.rdata[l] = Bits::new(i.gm_resp_rdata[l] as u64);
    }
    r.lsu_off_i = Bits::new(i.off as u64);
    r.lsu_tag_i = Bits::new(i.tag as u64);
    for w in 0..MW {
        r.sbase_i[w] = Bits::new(i.sbase.get(w).copied().unwrap_or(0) as u64 & 0x1ffff);
    }
    r.ssize_i = Bits::new(i.ssize as u64 & 0x1ffff);
    r.param_we_i = b(i.param_we);
    r.param_addr_i = Bits::new(i.param_addr as u64);
    r.param_data_i = Bits::new(i.param_data as u64);
    r.gm_size_i = Bits::new(i.gm_size as u64);
    r.sm_ready_i = b(i.sm_ready);
    r.sm_resp_valid_i = b(i.sm_resp_valid);
    r.sm_err_i = b(i.sm_err);
    r.sm_conflict_i = b(i.sm_conflict);
    r.gm_req_ready_i = b(i.gm_req_ready);
    r.gm_resp.valid = b(i.gm_resp_valid);
    r.gm_resp.id = Bits::new(i.gm_resp_id as u64);
    r.lsu_res_ready_i = b(!i.res_stall);
    r
}

fn mask_of(v: &[Bits<1>; 32]) -> u32 {
    (0..32).fold(0, |m, l| m | (v[l].to_u64() as u32) << l)
}

/// The reference's output record for the RTL outputs.
pub fn from_rtl(o: &LsuOut<Concrete>) -> LsuOuts {
    let f = |v: Bits<1>| v.to_u64() == 1;
    LsuOuts {
        ready: f(o.lsu_ready_o),
        sm_req_valid: f(o.sm_req_valid_o),
        sm_op: o.sm_op_o.to_u64() as u8,
        sm_active: mask_of(&o.sm_active_o),
        sm_addr: std::array::from_fn(|l| o.sm_addr_o[l].to_u64() as u16),
        sm_data: std::array::from_fn(|l| o.sm_data_o[l].to_u64() as u32),
        sm_cmp: std::array::from_fn(|l| o.sm_cmp_o[l].to_u64() as u32),
        gm_req_valid: f(o.gm_req.valid),
        gm_req_id: o.gm_req.id.to_u64() as u8,
        gm_req_write: f(o.gm_req.write),
        gm_req_atom: o.gm_req.atom.to_u64() as u8,
        gm_req_addr: o.gm_req.addr.to_u64() as u32,
        gm_req_size: o.gm_req.size.to_u64() as u8,
        gm_req_wmask: mask_of(&o.gm_req.wmask),
        gm_req_wdata: std::array::from_fn(|l| o.gm_req.wdata[l].to_u64() as u32),
        res_valid: f(o.lsu_res_valid_o),
        res_tag: o.lsu_res_tag_o.to_u64() as u32,
        res_mask: mask_of(&o.lsu_res_mask_o),
        res_data: std::array::from_fn(|l| o.lsu_res_data_o[l].to_u64()),
        res_err: f(o.lsu_res_err_o),
        res_err_code: o.lsu_res_err_code_o.to_u64() as u8,
        idle: f(o.lsu_idle_o),
        cnt_gm_req: o.cnt_gm_req_o.to_u64() as u32,
        cnt_sm_conf: o.cnt_sm_conf_o.to_u64() as u32,
        cnt_busy: o.cnt_busy_o.to_u64() as u32,
        err: f(o.err_o),
        err_code: o.err_code_o.to_u64() as u8,
        err_warp: o.err_warp_o.to_u64() as u8,
        err_lane: o.err_lane_o.to_u64() as u8,
        err_addr: o.err_addr_o.to_u64() as u32,
    }
}

/// Name the fields where two output records differ.
pub fn diff(a: &LsuOuts, b: &LsuOuts) -> String {
    let da = format!("{a:?}");
    let db = format!("{b:?}");
    // Field-wise: split the Debug text at top-level ", name: ".
    let split = |s: &str| -> Vec<String> {
        let inner = &s[s.find('{').map(|k| k + 1).unwrap_or(0)..s.rfind('}').unwrap_or(s.len())];
        let mut out = vec![];
        let (mut depth, mut cur) = (0i32, String::new());
        for ch in inner.chars() {
            match ch {
                '[' | '(' | '{' => depth += 1,
                ']' | ')' | '}' => depth -= 1,
                _ => {}
            }
            if ch == ',' && depth == 0 {
                out.push(cur.trim().to_string());
                cur.clear();
            } else {
                cur.push(ch);
            }
        }
        out.push(cur.trim().to_string());
        out
    };
    let (fa, fb) = (split(&da), split(&db));
    fa.iter()
        .zip(&fb)
        .filter(|(x, y)| x != y)
        .map(|(x, y)| format!("  rtl {x}\n  ref {y}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One instruction of the stimulus.
#[derive(Debug, Clone)]
pub struct Inst {
    pub op: u8,
    pub md: u8,
    pub mask: u32,
    pub a: [u32; 32],
    pub b: [u64; 32],
    pub c: [u32; 32],
    /// The ISA's `e` field.
    pub e: u16,
    pub tag: u32,
}

impl Inst {
    /// `lsu_off_i`: sign-extended `e` for memory, the word offset for LDC.
    pub fn off(&self) -> u32 {
        if self.op == Op::Ldc as u8 {
            self.e as u32
        } else {
            self.e as i16 as i32 as u32
        }
    }
}

/// What the golden model says about an accepted instruction.
#[derive(Debug, Clone)]
struct Expect {
    inst: Inst,
    res: Result<[u64; 32], (Option<u32>, String)>,
}

/// Counts of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LsuStats {
    pub cycles: u64,
    pub instructions: u64,
    pub errors: u64,
    pub shared: u64,
    pub global: u64,
    pub params: u64,
    pub gm_requests: u64,
    pub sm_conflicts: u64,
    /// Result pulses of an instruction that was not the oldest one
    /// outstanding (loads overlapping in slots and finishing out of order).
    pub reordered: u64,
    /// Most instructions accepted without their result pulse at once.
    pub max_out: u64,
    /// Most read (load or atomic) requests out in memory at once.
    pub max_reads: u64,
    /// Cycles a result waited for the write-back's room.
    pub res_stalled: u64,
}

/// Settings of a random run.
#[derive(Debug, Clone, Copy)]
pub struct RunCfg {
    pub gmem: GmemConfig,
    pub gm_bytes: usize,
    /// Shared bytes per CTA window (`ssize_i`).
    pub ssize: u32,
    /// Probability that a waiting instruction is offered in a cycle.
    pub p_valid: f64,
    /// Probability of a deliberately bad instruction.
    pub p_bad: f64,
    pub seed: u64,
}

/// The bench: LSU + smem (RTL), gmem model, reference, golden mirror.
pub struct LsuBench<const MW: usize, const LB: usize, const A: usize> {
    pub lsu: Sim<Lsu<MW>>,
    pub smem: Sim<Smem<LB, A>>,
    pub gm: Gmem,
    pub rf: LsuRef,
    pub geom: LsuGeom,
    pub run: RunCfg,
    pub g_gmem: Vec<u8>,
    pub g_smem: Vec<u8>,
    pub params: Vec<u32>,
    pub sbase: Vec<u32>,
    rng: StdRng,
    queue: VecDeque<Inst>,
    expect: VecDeque<Expect>,
    pub stats: LsuStats,
    /// Global requests accepted by the memory, in order.
    pub log: Vec<GmReq>,
    /// Ids of the reads out in memory.
    reads_out: std::collections::HashSet<u16>,
    smem_words: usize,
}

impl<const MW: usize, const LB: usize, const A: usize> LsuBench<MW, LB, A> {
    pub fn new(cfg: &crate::config::SmConfig, run: RunCfg) -> Result<Self, String> {
        let lsu = Sim::new(Lsu::<MW>::of(cfg).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
        let words = cfg.smem_bytes as usize / 4;
        let smem = Smem::<LB, A>::new(words, cfg.smem_request_threads as usize, cfg.smem_multicast)
            .map_err(|e| e.to_string())?;
        let smem = Sim::new(smem).map_err(|e| e.to_string())?;
        let mut rng = StdRng::seed_from_u64(run.seed);
        // Small values half the time so CAS compares and MIN/MAX collide.
        let img: Vec<u8> = (0..run.gm_bytes / 4)
            .flat_map(|_| {
                let v: u32 = if rng.gen_bool(0.5) {
                    rng.gen_range(0..4)
                } else {
                    rng.gen()
                };
                v.to_le_bytes()
            })
            .collect();
        let nparams = rng.gen_range(1..=256usize);
        let params: Vec<u32> = (0..nparams).map(|_| rng.gen()).collect();
        // Windows: CTA slots of `ssize` bytes, warps mapped to slots.
        let slots = (cfg.smem_bytes / run.ssize.max(4)).max(1);
        let sbase = (0..MW).map(|w| (w as u32 % slots) * run.ssize).collect();
        Ok(LsuBench {
            lsu,
            smem,
            gm: Gmem::new(run.gmem, img.clone()),
            rf: LsuRef::new(LsuGeom::from_config(cfg), cfg.lsu_slots as usize, cfg.lsu_tags as usize),
            geom: LsuGeom::from_config(cfg),
            run,
            g_gmem: img,
            g_smem: vec![0u8; cfg.smem_bytes as usize],
            params,
            sbase,
            rng,
            queue: VecDeque::new(),
            expect: VecDeque::new(),
            stats: LsuStats::default(),
            log: vec![],
            reads_out: Default::default(),
            smem_words: words,
        })
    }

    /// A random instruction (shapes: coalesced strides, scattered, one word,
    /// bank conflicts, atomics on a few words, `.64`, bad lanes).
    pub fn random_inst(&mut self) -> Inst {
        let r = &mut self.rng;
        let kinds = [Op::Ldg, Op::Stg, Op::Atomg, Op::Lds, Op::Sts, Op::Atoms, Op::Ldc];
        let op = if r.gen_bool(0.01) {
            0x10
        } else if r.gen_bool(0.02) {
            Op::Membar as u8
        } else {
            kinds[r.gen_range(0..kinds.len())] as u8
        };
        let is = |o: Op| op == o as u8;
        let atom = is(Op::Atomg) || is(Op::Atoms);
        let wide = !atom && !is(Op::Ldc) && r.gen_bool(0.3);
        let md = if atom { r.gen_range(0..8) } else { wide as u8 };
        let bytes: u32 = if wide { 8 } else { 4 };
        let mask = match r.gen_range(0..8) {
            0 => 0,
            1 => 1 << r.gen_range(0..32),
            2 | 3 => r.gen(),
            4 => 0xffff,
            _ => u32::MAX,
        };
        let warp = r.gen_range(0..MW as u32);
        let tag = (r.gen::<u32>() & !63) | warp;
        let shared = is(Op::Lds) || is(Op::Sts) || is(Op::Atoms);
        let space = if shared {
            self.run.ssize
        } else {
            self.run.gm_bytes as u32
        };
        let mut addr = [0u32; 32];
        let e: u16;
        if is(Op::Ldc) {
            let n = self.params.len() as u32;
            e = r.gen_range(0..4);
            let same = r.gen_bool(0.3);
            let x = r.gen_range(0..n);
            for a in addr.iter_mut() {
                let idx = if same { x } else { r.gen_range(0..n) };
                *a = idx.saturating_sub(e as u32);
            }
        } else {
            e = (r.gen_range(-8i32..8) * 8) as i16 as u16;
            let span = space / bytes;
            let shape = r.gen_range(0..7);
            let base = r.gen_range(0..span) & !31;
            let few: [u32; 3] = [r.gen_range(0..span), r.gen_range(0..span), r.gen_range(0..span)];
            for (l, a) in addr.iter_mut().enumerate() {
                let l = l as u32;
                let k = match shape {
                    0 => base + l,                  // unit stride
                    1 => base + 2 * l,              // stride 2
                    2 => base + (l ^ 5),            // permuted in segment
                    3 => base + r.gen_range(0..64), // scattered, near
                    4 => r.gen_range(0..span),      // scattered, far
                    5 => few[r.gen_range(0..3)],    // collisions
                    _ => base + 16 * l,             // bank conflicts / many segments
                };
                let byte = (k % span) * bytes;
                *a = byte.wrapping_sub(e as i16 as i32 as u32);
            }
        }
        if r.gen_bool(self.run.p_bad) && mask != 0 {
            let l = r.gen_range(0..32);
            addr[l] = match r.gen_range(0..3) {
                0 => addr[l].wrapping_add(2),
                1 => addr[l].wrapping_add(space),
                _ => u32::MAX - 2,
            };
        }
        let small = r.gen_bool(0.5);
        let b = std::array::from_fn(|_| if small { r.gen_range(0..4) } else { r.gen() });
        let c = std::array::from_fn(|_| if small { r.gen_range(0..4) } else { r.gen() });
        Inst {
            op,
            md,
            mask,
            a: addr,
            b,
            c,
            e,
            tag,
        }
    }

    /// Queue an instruction.
    pub fn push(&mut self, i: Inst) {
        self.queue.push_back(i);
    }

    fn golden(&mut self, inst: &Inst) -> Result<[u64; 32], (Option<u32>, String)> {
        let lsu_ops = [Op::Ldg, Op::Stg, Op::Atomg, Op::Lds, Op::Sts, Op::Atoms, Op::Ldc];
        if inst.op == Op::Membar as u8 {
            // A fence reads and writes nothing (its result carries no data).
            return Ok([0; 32]);
        }
        let Some(op) = Op::from_code(inst.op).filter(|o| lsu_ops.contains(o)) else {
            return Err((None, format!("opcode {:#x} is not an LSU op", inst.op)));
        };
        let x = Access {
            op,
            m: inst.md,
            mask: inst.mask,
            a: inst.a,
            b: inst.b,
            c: inst.c,
            e: inst.e,
        };
        let w = (inst.tag & 63) as usize;
        let lo = self.sbase[w] as usize;
        let hi = (lo + self.run.ssize as usize).min(self.g_smem.len());
        let (gm, sm) = (&mut self.g_gmem, &mut self.g_smem[lo..hi]);
        memory_access(&x, gm, sm, &self.params)
    }

    /// Run until `n` more instructions have completed (or `max_cycles`).
    pub fn run(&mut self, n: u64, max_cycles: u64) -> Result<(), String> {
        let target = self.stats.instructions + n;
        let start = self.stats.cycles;
        let mut pw = 0usize;
        while self.stats.instructions < target {
            if self.stats.cycles - start > max_cycles {
                return Err(format!(
                    "no progress: {} of {n} instructions after {max_cycles} cycles",
                    n - (target - self.stats.instructions)
                ));
            }
            if self.queue.is_empty() {
                let i = self.random_inst();
                self.queue.push_back(i);
            }
            self.cycle(&mut pw)?;
        }
        Ok(())
    }

    /// One core cycle of the whole bench.
    pub fn cycle(&mut self, pw: &mut usize) -> Result<(), String> {
        let t = self.stats.cycles;
        let smo = self.smem.eval(&zero_ports());
        let mut ins = LsuIns {
            sbase: self.sbase.clone(),
            ssize: self.run.ssize,
            gm_size: self.gm.mem.len() as u32,
            sm_ready: smo.ready_o.to_u64() == 1,
            sm_resp_valid: smo.resp_valid_o.to_u64() == 1,
            sm_rdata: std::array::from_fn(|l| smo.rdata_o[l].to_u64() as u32),
            sm_err: smo.err_o.to_u64() == 1,
            sm_conflict: smo.conflict_o.to_u64() == 1,
            gm_req_ready: self.gm.ready(),
            ..Default::default()
        };
        if let Some(r) = self.gm.response() {
            // Every response answers a read out in memory under its id.
            if !self.reads_out.remove(&r.id) {
                return Err(format!(
                    "core cycle {t}: response id {} with no read out under it",
                    r.id
                ));
            }
            ins.gm_resp_valid = true;
            ins.gm_resp_id = r.id as u8;
            ins.gm_resp_rdata = r.rdata;
        }
        // Parameters first, one word per cycle.
        if *pw < self.params.len() {
            ins.param_we = true;
            ins.param_addr = *pw as u8;
            ins.param_data = self.params[*pw];
            *pw += 1;
        } else if let Some(i) = self.queue.front() {
            if self.rng.gen_bool(self.run.p_valid) {
                ins.valid = true;
                ins.op = i.op;
                ins.md = i.md;
                ins.mask = i.mask;
                ins.a = i.a;
                ins.b = i.b;
                ins.c = i.c;
                ins.off = i.off();
                ins.tag = i.tag;
            }
        }
        // The write-back's room: now and then none (not in the full-rate
        // runs), so results wait in the LSU.
        ins.res_stall = self.run.p_valid < 1.0 && self.rng.gen_bool(0.15);
        let rin = to_rtl::<MW>(&ins);
        let got = from_rtl(&self.lsu.step_core(&rin));
        let want = self.rf.outputs(&ins);
        if got != want {
            return Err(format!(
                "core cycle {t}: RTL and reference differ:\n{}",
                diff(&got, &want)
            ));
        }
        self.rf.edge(&ins);
        // Sibling smem takes this cycle's request.
        let mut si: SmemIn<Concrete> = zero_ports();
        si.req_valid_i = Bits::new(got.sm_req_valid as u64);
        si.op_i = Bits::new(got.sm_op as u64);
        for l in 0..32 {
            si.active_i[l] = Bits::new((got.sm_active >> l & 1) as u64);
            si.addr_i[l] = Bits::new(got.sm_addr[l] as u64);
            si.data_i[l] = Bits::new(got.sm_data[l] as u64);
            si.cmp_i[l] = Bits::new(got.sm_cmp[l] as u64);
        }
        self.smem.step_core(&si);
        let req = (got.gm_req_valid && ins.gm_req_ready).then_some(GmReq {
            id: got.gm_req_id as u16,
            write: got.gm_req_write,
            atom: got.gm_req_atom,
            addr: got.gm_req_addr,
            size: got.gm_req_size,
            wmask: got.gm_req_wmask,
            wdata: got.gm_req_wdata,
        });
        self.gm.edge(req.as_ref());
        if let Some(r) = req {
            // A read's id is unique among the reads out in memory.
            if !r.write && !self.reads_out.insert(r.id) {
                return Err(format!(
                    "core cycle {t}: read id {} sent while a read with that id is out",
                    r.id
                ));
            }
            self.stats.max_reads = self.stats.max_reads.max(self.reads_out.len() as u64);
            self.log.push(r);
        }
        if let Some(e) = self.gm.errors.first() {
            return Err(format!("core cycle {t}: global memory model: {e}"));
        }
        // Accepted: the golden model performs it on the mirrors now. Memory
        // sees the effects in acceptance order: only loads overlap, and a
        // load's transactions are all sent before the next instruction.
        if ins.valid && got.ready {
            let inst = self.queue.pop_front().expect("offered");
            let res = self.golden(&inst);
            self.expect.push_back(Expect { inst, res });
            self.stats.max_out = self.stats.max_out.max(self.expect.len() as u64);
        }
        self.stats.res_stalled += (got.res_valid && ins.res_stall) as u64;
        if got.res_valid && !ins.res_stall {
            // Loads in different slots answer in any order: the oldest
            // accepted instruction with this tag.
            let k = self
                .expect
                .iter()
                .position(|e| e.inst.tag == got.res_tag)
                .ok_or_else(|| {
                    format!(
                        "core cycle {t}: result pulse, tag {:#x}, without an instruction",
                        got.res_tag
                    )
                })?;
            let ex = self.expect.remove(k).expect("found");
            self.stats.reordered += (k > 0) as u64;
            self.check_result(t, &ex, &got)?;
        }
        self.stats.cycles += 1;
        self.stats.gm_requests = got.cnt_gm_req as u64;
        self.stats.sm_conflicts = got.cnt_sm_conf as u64;
        Ok(())
    }

    fn check_result(&mut self, t: u64, ex: &Expect, got: &LsuOuts) -> Result<(), String> {
        let i = &ex.inst;
        let ctx = || {
            format!(
                "core cycle {t}: {:?} op {:#x} mod {} mask {:#010x}",
                i.tag, i.op, i.md, i.mask
            )
        };
        self.stats.instructions += 1;
        if got.res_tag != i.tag || got.res_mask != i.mask {
            return Err(format!(
                "{}: result tag/mask {:#x}/{:#x}",
                ctx(),
                got.res_tag,
                got.res_mask
            ));
        }
        let op = Op::from_code(i.op);
        match op {
            Some(Op::Lds | Op::Sts | Op::Atoms) => self.stats.shared += 1,
            Some(Op::Ldg | Op::Stg | Op::Atomg) => self.stats.global += 1,
            Some(Op::Ldc) => self.stats.params += 1,
            _ => {}
        }
        match &ex.res {
            Err((lane, why)) => {
                self.stats.errors += 1;
                let code = match op {
                    Some(Op::Lds | Op::Sts | Op::Atoms) => ERR_SHARED,
                    Some(Op::Ldg | Op::Stg | Op::Atomg) => ERR_GLOBAL,
                    Some(Op::Ldc) => ERR_PARAM,
                    _ => ERR_OP,
                } as u8;
                if !got.res_err || got.res_err_code != code || lane.is_some_and(|l| got.err_lane as u32 != l) {
                    return Err(format!(
                        "{}: golden error (lane {lane:?}: {why}), RTL err {} code {} lane {}",
                        ctx(),
                        got.res_err,
                        got.res_err_code,
                        got.err_lane
                    ));
                }
            }
            Ok(d) => {
                if got.res_err {
                    return Err(format!("{}: RTL error code {}, golden none", ctx(), got.res_err_code));
                }
                let has_dst = !matches!(op, Some(Op::Sts | Op::Stg | Op::Membar));
                if has_dst {
                    for l in 0..32 {
                        if i.mask >> l & 1 == 1 && got.res_data[l] != d[l] {
                            return Err(format!(
                                "{}: lane {l} data {:#x}, golden {:#x}",
                                ctx(),
                                got.res_data[l],
                                d[l]
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Drain, then compare the global image with the golden mirror and
    /// read every shared word back through the LSU.
    pub fn finish(&mut self) -> Result<(), String> {
        let mut pw = self.params.len();
        let mut guard = 0;
        while !self.queue.is_empty() || !self.expect.is_empty() || self.gm.in_flight() > 0 {
            self.cycle(&mut pw)?;
            guard += 1;
            if guard > 100_000 {
                return Err("drain did not finish".into());
            }
        }
        if let Some(k) = (0..self.g_gmem.len()).find(|&k| self.g_gmem[k] != self.gm.mem[k]) {
            return Err(format!(
                "global image differs from the golden mirror at byte {k:#x}: {} vs {}",
                self.gm.mem[k], self.g_gmem[k]
            ));
        }
        // Shared: LDS of every word of every window (warp w covers window w).
        let ws = self.run.ssize / 4;
        for w in 0..MW.min(self.sbase.len()) {
            if w > 0 && self.sbase[..w].contains(&self.sbase[w]) {
                continue;
            }
            for chunk in 0..ws.div_ceil(32) {
                let a = std::array::from_fn(|l| 4 * (chunk * 32 + l as u32));
                let mask = (0..32).filter(|&l| chunk * 32 + l < ws).fold(0u32, |m, l| m | 1 << l);
                self.push(Inst {
                    op: Op::Lds as u8,
                    md: 0,
                    mask,
                    a,
                    b: [0; 32],
                    c: [0; 32],
                    e: 0,
                    tag: w as u32,
                });
            }
        }
        let mut guard = 0;
        while !self.queue.is_empty() || !self.expect.is_empty() {
            self.cycle(&mut pw)?;
            guard += 1;
            if guard > 10_000_000 {
                return Err("shared read-back did not finish".into());
            }
        }
        let _ = self.smem_words;
        Ok(())
    }
}

/// Run `n` random instructions on preset `cfg` and finish.
pub fn random_run(cfg: &crate::config::SmConfig, n: u64, run: RunCfg) -> Result<LsuStats, String> {
    macro_rules! go {
        ($mw:literal, $lb:literal, $a:literal) => {{
            let mut b = LsuBench::<$mw, $lb, $a>::new(cfg, run)?;
            b.run(n, 1_000 + n * (run.gmem.latency as u64 + 300))?;
            b.finish()?;
            Ok(b.stats.clone())
        }};
    }
    let depth = (cfg.smem_bytes / 4 / cfg.smem_banks).next_power_of_two();
    match (cfg.max_warps, cfg.smem_banks, depth) {
        (16, 16, 256) => go!(16, 4, 8),
        (32, 16, 256) => go!(32, 4, 8),
        (48, 32, 512) => go!(48, 5, 9),
        (w, b, d) => Err(format!(
            "config `{}`: no LSU bench for {w} warps, {b} banks of {d} words",
            cfg.name
        )),
    }
}
