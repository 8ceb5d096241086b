//! Random bench of the L1 data cache (`units::l1`): per requester an
//! LSU-like driver (line loads that wait for every response, with up to
//! `slots` load instructions in flight as the LSU's load slots send them,
//! ids `slot << 5 | k`; stores done at acceptance, also while its loads
//! are in flight, as the LSU sends them; atomics that wait for their old
//! words, only once none of its own loads is in flight; now
//! and then an uncached 32- or 64-byte read; requesters 1.. also send
//! fill-only line reads, ids `(slots - 1) << 5 | k`, a slot their loads do
//! not use) in front of the RTL cache, the global-memory model behind it.
//!
//! Every core cycle every output of the RTL is compared with the reference
//! model (`l1_ref.rs`). Independently of it the bench checks: every load
//! response against the memory image (the line as memory held it when the
//! L1 took the read: memory performs requests at acceptance and a store
//! or atomic taken after a read must not reach it, merged or not), that
//! every read and atomic id is answered exactly once, that fill-only reads
//! get no response, that no line read goes to memory while a line read of
//! the same line is out that will still fill (no store or atomic to the
//! line since it was sent): such a miss merges, that each requester's
//! stores and atomics reach memory in its program order, and round-robin
//! fairness (a waiting requester sees at most `R - 1` others taken before
//! it). At the end the hit and miss counts must show that the stimulus
//! hit, missed and evicted.

use super::gmem::{GmReq, GmResp, Gmem, GmemConfig};
use super::l1_ref::{L1Ref, L1RefIn};
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use crate::units::gm::{GmReady, GmReq as GmPort, GmReqW, GmResp as GmRespPort};
use crate::units::l1::{L1In, L1Out, L1};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// What the run did.
#[derive(Debug, Clone, Default)]
pub struct L1Stats {
    pub cycles: u64,
    pub loads: u64,
    pub stores: u64,
    pub atomics: u64,
    /// Fill-only reads sent by requesters 1.. and those that reached memory.
    pub fills: u64,
    pub fills_to_memory: u64,
    pub hits: u64,
    pub misses: u64,
    /// More line misses than distinct lines: lines were evicted and
    /// fetched again.
    pub evictions_seen: bool,
    /// Load responses compared with the image.
    pub checked: u64,
    /// Line reads (size 2, fill-only ones included) that reached memory.
    pub line_reads: u64,
    /// Line misses that merged (the reference's count) and merged reads
    /// that missed again when they replayed.
    pub merges: u64,
    pub replay_misses: u64,
    /// Most LSU slots with responses outstanding at once (one requester).
    pub max_slots: usize,
    /// Requests taken per requester.
    pub taken: Vec<u64>,
    /// Cycles in which more than one requester presented a request.
    pub contended: u64,
    /// Most other requesters taken while one waited.
    pub max_wait: u32,
}

fn put_req(p: &mut GmPort<Concrete>, q: &GmReq) {
    p.valid = Bits::new(1);
    p.id = Bits::new(q.id as u64);
    p.write = Bits::new(q.write as u64);
    p.atom = Bits::new(q.atom as u64);
    p.addr = Bits::new(q.addr as u64);
    p.size = Bits::new(q.size as u64);
    for k in 0..32 {
        p.wmask[k] = Bits::new((q.wmask >> k & 1) as u64);
        p.wdata[k] = Bits::new(q.wdata[k] as u64);
    }
}

/// The L1's (and the arbiter's) inputs: each requester's request and
/// fill flag, the memory's ready and response.
pub fn to_in<const RX: usize, const IW: usize>(
    reqs: &[Option<(GmReq, bool)>],
    gm_ready: bool,
    resp: Option<&GmResp>,
) -> L1In<Concrete, RX, IW> {
    let mut i: L1In<Concrete, RX, IW> = zero_ports();
    for (r, q) in reqs.iter().enumerate() {
        let Some((q, fill)) = q else { continue };
        if r == 0 {
            put_req(&mut i.lsu_req, q);
        } else {
            put_req(&mut i.rq[r - 1], q);
            i.rq_fill[r - 1].fill = Bits::new(*fill as u64);
        }
    }
    i.gm_req_ready_i = Bits::new(gm_ready as u64);
    if let Some(r) = resp {
        i.gm_resp.valid = Bits::new(1);
        i.gm_resp.id = Bits::new(r.id as u64);
        for k in 0..32 {
            i.gm_resp.rdata[k] = Bits::new(r.rdata[k] as u64);
        }
    }
    i
}

/// The memory request port: valid and the request.
pub fn gm_req_of<const IW: usize>(g: &GmReqW<Concrete, IW>) -> (bool, GmReq) {
    let mut wmask = 0u32;
    let mut wdata = [0u32; 32];
    for k in 0..32 {
        wmask |= (g.wmask[k].to_u64() as u32) << k;
        wdata[k] = g.wdata[k].to_u64() as u32;
    }
    (
        g.valid.to_u64() == 1,
        GmReq {
            id: g.id.to_u64() as u16,
            write: g.write.to_u64() == 1,
            atom: g.atom.to_u64() as u8,
            addr: g.addr.to_u64() as u32,
            size: g.size.to_u64() as u8,
            wmask,
            wdata,
        },
    )
}

/// Per requester: ready, and the response (valid, id, data).
fn outs_of<const RX: usize, const IW: usize>(o: &L1Out<Concrete, RX, IW>) -> Vec<(bool, bool, GmResp)> {
    outs_of_ports::<RX>(o.lsu_req_ready_o, &o.lsu_resp, &o.rq_ready, &o.rq_resp)
}

/// Per requester: ready, and the response (valid, id, data), from the
/// requester-side output ports.
pub fn outs_of_ports<const RX: usize>(
    lsu_ready: Bits<1>,
    lsu_resp: &GmRespPort<Concrete>,
    rq_ready: &[GmReady<Concrete>; RX],
    rq_resp: &[GmRespPort<Concrete>; RX],
) -> Vec<(bool, bool, GmResp)> {
    let one = |ready: Bits<1>, p: &GmRespPort<Concrete>| {
        (
            ready.to_u64() == 1,
            p.valid.to_u64() == 1,
            GmResp {
                id: p.id.to_u64() as u16,
                rdata: std::array::from_fn(|k| p.rdata[k].to_u64() as u32),
            },
        )
    };
    std::iter::once(one(lsu_ready, lsu_resp))
        .chain((0..RX).map(|k| one(rq_ready[k].ready, &rq_resp[k])))
        .collect()
}

const ZERO_REQ: GmReq = GmReq {
    id: 0,
    write: false,
    atom: 0,
    addr: 0,
    size: 0,
    wmask: 0,
    wdata: [0; 32],
};

/// One requester's driver.
#[derive(Debug, Clone)]
struct Driver {
    /// The current instruction's requests still to send (and fill flag).
    todo: VecDeque<(GmReq, bool)>,
    waiting: usize,
    /// Per own id of the loads in flight: (address, size); None for
    /// atomics.
    asked: Vec<Option<(u32, u8)>>,
    /// Per own id of a load in flight: its line as memory held it when the
    /// L1 took the read, and after each store or atomic to it since (for
    /// the error message).
    seen: Vec<Vec<[u32; 32]>>,
    /// Per own id: a read or atomic taken and not yet answered.
    pending: Vec<bool>,
    slot_wait: Vec<usize>,
    /// The next instruction's kind (drawn once, so a store waits for the
    /// loads in flight instead of being redrawn).
    next_kind: Option<u32>,
    done: u64,
    /// Stores and atomics in program order, not yet seen at memory.
    order: VecDeque<(u8, u32)>,
    /// Others taken since this requester's request was first presented.
    waited: u32,
    /// Next fill id (within the fill slot).
    fill_k: usize,
}

/// The bench's parameters.
#[derive(Debug, Clone, Copy)]
pub struct L1Bench {
    pub seed: u64,
    pub ways: usize,
    pub latency: usize,
    /// Stages of the reference (a wrong reference must be caught).
    pub ref_latency: usize,
    pub mem_latency: u32,
    pub ooo: bool,
    /// Instructions per requester.
    pub instrs: u64,
    pub slots: usize,
    /// Distinct lines used (0: three times the cache's lines). Few lines
    /// and a long memory latency make many misses merge.
    pub pool: u32,
    /// The block's refresh mode; requester 0 marks every third id's reads
    /// refreshing (`lsu_req_refresh_i`).
    pub refresh: bool,
    /// The reference's refresh mode (a wrong reference must be caught).
    pub ref_refresh: bool,
}

/// Run `instrs` random instructions on an L1 of `2^LA` lines, `ways`
/// ways, `latency` stages, against a memory of `mem_latency` core cycles
/// (out of order when `ooo`); `pool` distinct lines are used.
pub fn l1_random<const LA: usize>(
    seed: u64,
    ways: usize,
    latency: usize,
    mem_latency: u32,
    ooo: bool,
    instrs: u64,
) -> Result<L1Stats, String> {
    l1_against::<LA>(seed, ways, latency, latency, mem_latency, ooo, instrs, 1)
}

/// [`l1_random`] with `slots` LSU load slots: loads of up to `slots`
/// instructions overlap (ids `slot << 5 | k`), as the LSU sends them;
/// stores and atomics wait until every load has its responses.
pub fn l1_random_slots<const LA: usize>(
    seed: u64,
    ways: usize,
    latency: usize,
    mem_latency: u32,
    ooo: bool,
    instrs: u64,
    slots: usize,
) -> Result<L1Stats, String> {
    l1_against::<LA>(seed, ways, latency, latency, mem_latency, ooo, instrs, slots)
}

/// [`l1_random`] with the reference built with `ref_latency` stages (a
/// wrong reference must be caught).
#[allow(clippy::too_many_arguments)]
pub fn l1_against<const LA: usize>(
    seed: u64,
    ways: usize,
    latency: usize,
    ref_latency: usize,
    mem_latency: u32,
    ooo: bool,
    instrs: u64,
    slots: usize,
) -> Result<L1Stats, String> {
    l1_bench::<LA, 0, 8>(L1Bench {
        seed,
        ways,
        latency,
        ref_latency,
        mem_latency,
        ooo,
        instrs,
        slots,
        pool: 0,
        refresh: false,
        ref_refresh: false,
    })
}

/// Draw a new instruction for driver `d` (requester `r`) when it can take
/// one: its requests go to `d.todo`.
fn new_instr(d: &mut Driver, r: usize, rng: &mut SmallRng, pool: u32, slots: usize, st: &mut L1Stats) {
    // Requesters 1.. keep their last slot for fills.
    let load_slots = if r == 0 { slots } else { slots - 1 };
    let kinds = if r == 0 { 20 } else { 24 };
    let kind_now = *d.next_kind.get_or_insert_with(|| rng.gen_range(0..kinds));
    // A load takes a free slot; a store or an atomic waits for all; a fill
    // waits for nothing.
    let free = d.slot_wait[..load_slots].iter().position(|&w| w == 0);
    let can = match kind_now {
        0..=2 => true,
        3 => d.waiting == 0,
        20.. => true,
        _ => free.is_some(),
    };
    if !d.todo.is_empty() || !can {
        return;
    }
    let kind = d.next_kind.take().expect("drawn");
    let slot = free.unwrap_or(0);
    let n = rng.gen_range(1..=8usize);
    let hot = rng.gen_range(0..pool);
    for k in 0..n {
        let id = if kind >= 20 {
            d.fill_k = (d.fill_k + 1) % 32;
            (slots - 1) << 5 | d.fill_k
        } else {
            slot << 5 | k
        };
        let line = if rng.gen_bool(0.6) {
            (hot + k as u32) % pool
        } else {
            rng.gen_range(0..pool)
        };
        let mut q = GmReq {
            id: id as u16,
            addr: line * 128,
            size: 2,
            ..ZERO_REQ
        };
        match kind {
            0..=2 => {
                q.write = true;
                q.wmask = rng.gen();
                q.wdata = std::array::from_fn(|_| rng.gen());
            }
            3 => {
                q.atom = 1 + rng.gen_range(0..4);
                q.addr += 4 * rng.gen_range(0..32);
                q.size = 0;
                q.wmask = 1;
                q.wdata[0] = rng.gen();
            }
            4 => {
                q.size = rng.gen_range(0..2);
                q.addr += (32 << q.size) * rng.gen_range(0..(4 >> q.size));
            }
            _ => {}
        }
        if kind <= 3 {
            d.order.push_back((id as u8, q.addr));
        }
        if kind < 20 {
            d.asked[id] = (kind > 3).then_some((q.addr, q.size));
        }
        d.todo.push_back((q, kind >= 20));
    }
    match kind {
        0..=2 => st.stores += 1,
        3 => st.atomics += 1,
        20.. => st.fills += n as u64,
        _ => st.loads += 1,
    }
    if (3..20).contains(&kind) {
        d.waiting += n;
        d.slot_wait[slot] = n;
        st.max_slots = st.max_slots.max(d.slot_wait.iter().filter(|&&w| w > 0).count());
    }
    d.done += 1;
}

/// The 32 words of the line holding `addr` in the memory image.
fn line_of(gm: &Gmem, addr: u32) -> [u32; 32] {
    let base = (addr & !127) as usize;
    std::array::from_fn(|k| u32::from_le_bytes(gm.mem[base + 4 * k..base + 4 * k + 4].try_into().expect("4 bytes")))
}

/// Check a response to requester `r` (driver `d`) against the image.
fn check_resp(d: &mut Driver, r: usize, resp: &GmResp, slots: usize, cycle: u64) -> Result<bool, String> {
    let id = resp.id as usize;
    if r > 0 && id >> 5 == slots - 1 {
        return Err(format!(
            "l1 cycle {cycle}: requester {r} got a response for fill id {id}"
        ));
    }
    if !d.pending.get(id).copied().unwrap_or(false) {
        return Err(format!(
            "l1 cycle {cycle}: requester {r} got a response for id {id}, which has none due (a second answer?)"
        ));
    }
    d.pending[id] = false;
    let mut checked = false;
    if let Some((addr, size)) = d.asked.get(id).copied().flatten() {
        let base = (addr & !127) as usize;
        let first = (addr as usize - base) / 4;
        let words = (32usize << size) / 4;
        let want_of = |line: &[u32; 32]| -> [u32; 32] {
            std::array::from_fn(|k| {
                if (first..first + words).contains(&k) {
                    line[k]
                } else {
                    0
                }
            })
        };
        let seen = std::mem::take(&mut d.seen[id]);
        if seen.first().map(want_of) != Some(resp.rdata) {
            let then = seen.first().map_or([0; 32], want_of);
            let k = (0..32).find(|&k| resp.rdata[k] != then[k]).unwrap_or(0);
            let later = seen.iter().skip(1).any(|line| want_of(line) == resp.rdata);
            return Err(format!(
                "l1 cycle {cycle}: requester {r} response id {id} is not line {base:#x} as taken \
                 (word {k} is {:#x}, was {:#x}; {} later states, {})",
                resp.rdata[k],
                then[k],
                seen.len().saturating_sub(1),
                if later { "it is a later one" } else { "none matches" }
            ));
        }
        checked = true;
    }
    d.waiting = d.waiting.saturating_sub(1);
    if let Some(w) = d.slot_wait.get_mut(id >> 5) {
        *w = w.saturating_sub(1);
    }
    Ok(checked)
}

/// The bench on an L1 with `RX + 1` requesters (see the module doc).
pub fn l1_bench<const LA: usize, const RX: usize, const IW: usize>(p: L1Bench) -> Result<L1Stats, String> {
    let n = RX + 1;
    if n > 1 && p.slots < 2 {
        return Err("l1 bench: requesters 1.. need two slots (one for fills)".into());
    }
    let lines = 1usize << LA;
    let pool = if p.pool == 0 { 3 * lines as u32 } else { p.pool };
    let blk = L1::<LA, RX, IW>::new_refresh(p.ways, p.latency, p.slots, p.refresh).map_err(|e| e.to_string())?;
    let ids = blk.ids();
    let mut sim = Sim::new(blk).map_err(|e| e.to_string())?;
    let mut rf = L1Ref::new(lines, p.ways, p.ref_latency, n).with_refresh(p.ref_refresh);
    let mut rng = SmallRng::seed_from_u64(p.seed);
    let image: Vec<u8> = (0..pool as usize * 128).map(|_| rng.gen()).collect();
    let mut gm = Gmem::new(
        GmemConfig {
            latency: p.mem_latency,
            milli_bytes_per_cycle: rng.gen_range(20_000..200_000),
            out_of_order: p.ooo,
            seed: p.seed,
        },
        image,
    );
    let mut st = L1Stats {
        taken: vec![0; n],
        ..L1Stats::default()
    };
    let mut drv = vec![
        Driver {
            todo: VecDeque::new(),
            waiting: 0,
            asked: vec![None; ids],
            seen: vec![vec![]; ids],
            pending: vec![false; ids],
            slot_wait: vec![0; p.slots],
            next_kind: None,
            done: 0,
            order: VecDeque::new(),
            waited: 0,
            fill_k: 0,
        };
        n
    ];
    // Line reads out in memory by memory id: line, and whether it will
    // still fill (no store or atomic to the line since it was sent).
    let mut out_lines: std::collections::HashMap<u16, (u32, bool)> = std::collections::HashMap::new();
    let mut cycle = 0u64;
    let limit = 2_000 + n as u64 * p.instrs * (64 + 40 * p.mem_latency as u64);
    let busy = |d: &Driver| d.done < p.instrs || !d.todo.is_empty() || d.waiting > 0;
    while drv.iter().any(busy) || gm.in_flight() > 0 {
        if cycle > limit {
            return Err(format!(
                "l1 cycle {cycle}: no progress ({:?} of {} instructions done, {:?} requests to send, {:?} responses awaited)",
                drv.iter().map(|d| d.done).collect::<Vec<_>>(),
                p.instrs,
                drv.iter().map(|d| d.todo.len()).collect::<Vec<_>>(),
                drv.iter().map(|d| d.waiting).collect::<Vec<_>>(),
            ));
        }
        for (r, d) in drv.iter_mut().enumerate() {
            if d.done < p.instrs {
                new_instr(d, r, &mut rng, pool, p.slots, &mut st);
            }
        }
        let reqs: Vec<Option<(GmReq, bool)>> = drv.iter().map(|d| d.todo.front().cloned()).collect();
        st.contended += (reqs.iter().flatten().count() > 1) as u64;
        let gm_ready = gm.ready();
        let gresp = gm.response().cloned();
        let mut i = to_in::<RX, IW>(&reqs, gm_ready, gresp.as_ref());
        // Every third id of requester 0 refreshes (with no request the bit
        // is drawn at random: it must not matter).
        let refresh = match &reqs[0] {
            Some((q, _)) => q.id % 3 == 0,
            None => p.refresh && rng.gen_bool(0.5),
        };
        i.lsu_req_refresh_i = Bits::new(refresh as u64);
        let want = rf.step(&L1RefIn {
            reqs: reqs.clone(),
            gm_ready,
            resp: gresp.clone(),
            refresh,
        });
        let o = sim.step_core(&i);
        let (gv, greq) = gm_req_of(&o.gm_req);
        let outs = outs_of(&o);
        let want_g = want.gm_req.clone().unwrap_or(ZERO_REQ);
        let (hits, misses) = (o.cnt_l1_hit_o.to_u64(), o.cnt_l1_miss_o.to_u64());
        let mut bad = gv != want.gm_req.is_some() || greq != want_g || (hits, misses) != (want.hits, want.misses);
        for (r, (ready, rv, rresp)) in outs.iter().enumerate() {
            bad |= *ready != want.ready[r] || *rv != want.resp[r].is_some();
            // One requester: every bit of the port (zero when idle); more:
            // the shared id and data count only with the valid.
            if n == 1 || *rv {
                let w = want.resp[r].clone().unwrap_or(GmResp { id: 0, rdata: [0; 32] });
                bad |= *rresp != w;
            }
        }
        if bad {
            return Err(format!(
                "l1 cycle {cycle}: rtl ready {:?} gm_req {gv} {greq:?} resp {:?} hits {hits} misses {misses}; \
                 reference ready {:?} gm_req {:?} resp {:?} hits {} misses {}",
                outs.iter().map(|x| x.0).collect::<Vec<_>>(),
                outs.iter().map(|x| x.1.then_some(x.2.id)).collect::<Vec<_>>(),
                want.ready,
                want.gm_req,
                want.resp.iter().map(|r| r.as_ref().map(|r| r.id)).collect::<Vec<_>>(),
                want.hits,
                want.misses
            ));
        }
        // Responses against the image; fills get none.
        for (r, (_, rv, rresp)) in outs.iter().enumerate() {
            if *rv {
                st.checked += check_resp(&mut drv[r], r, rresp, p.slots, cycle)? as u64;
            }
        }
        // The edge: the memory takes the request (stores and atomics in
        // each requester's order), the drivers move on.
        let acc = (gv && gm_ready).then_some(greq.clone());
        if let Some(a) = &acc {
            let r = a.id as usize >> 8;
            if a.write || a.atom != 0 {
                let got = (a.id as u8, a.addr);
                if drv[r].order.pop_front() != Some(got) {
                    return Err(format!(
                        "l1 cycle {cycle}: requester {r}'s store/atomic {got:?} out of order"
                    ));
                }
            } else {
                if r > 0 && (a.id as usize & 0xff) >> 5 == p.slots - 1 {
                    st.fills_to_memory += 1;
                }
                if a.size == 2 {
                    let line = a.addr >> 7;
                    if let Some((other, _)) = out_lines.iter().find(|(_, &(l, f))| l == line && f) {
                        return Err(format!(
                            "l1 cycle {cycle}: line {line:#x} read from memory with id {:#x} while id {other:#x} \
                             is out and will fill it (the miss must merge)",
                            a.id
                        ));
                    }
                    out_lines.insert(a.id, (line, true));
                    st.line_reads += 1;
                }
            }
            if a.write || a.atom != 0 {
                for o in out_lines.values_mut() {
                    if o.0 == a.addr >> 7 {
                        o.1 = false;
                    }
                }
            }
        }
        if let Some(r) = &gresp {
            out_lines.remove(&r.id);
        }
        gm.edge(acc.as_ref());
        // A store or atomic performed: a new state of its line for every
        // load of that line in flight.
        if let Some(a) = acc.as_ref().filter(|a| a.write || a.atom != 0) {
            let line = line_of(&gm, a.addr);
            for d in drv.iter_mut() {
                for (id, asked) in d.asked.iter().enumerate() {
                    if let Some((addr, _)) = asked {
                        if addr >> 7 == a.addr >> 7 && !d.seen[id].is_empty() {
                            d.seen[id].push(line);
                        }
                    }
                }
            }
        }
        let taken: Vec<bool> = (0..n).map(|r| reqs[r].is_some() && outs[r].0).collect();
        // A load taken: the line as memory holds it now.
        for r in 0..n {
            if let (true, Some((q, false))) = (taken[r], &reqs[r]) {
                if !q.write {
                    let id = q.id as usize;
                    if std::mem::replace(&mut drv[r].pending[id], true) {
                        return Err(format!("l1 cycle {cycle}: requester {r} reused id {id} (bench)"));
                    }
                }
                if !q.write && q.atom == 0 {
                    let id = q.id as usize;
                    if drv[r].asked.get(id).copied().flatten().is_some() {
                        drv[r].seen[id] = vec![line_of(&gm, q.addr)];
                    }
                }
            }
        }
        if taken.iter().filter(|&&t| t).count() > 1 {
            return Err(format!("l1 cycle {cycle}: more than one request taken"));
        }
        for r in 0..n {
            if taken[r] {
                drv[r].todo.pop_front();
                drv[r].waited = 0;
                st.taken[r] += 1;
            } else if reqs[r].is_some() && taken.contains(&true) {
                drv[r].waited += 1;
                st.max_wait = st.max_wait.max(drv[r].waited);
                if drv[r].waited > RX as u32 {
                    return Err(format!(
                        "l1 cycle {cycle}: requester {r} waited while {} others were taken",
                        drv[r].waited
                    ));
                }
            }
        }
        cycle += 1;
    }
    st.cycles = cycle;
    st.hits = rf.hits;
    st.misses = rf.misses;
    st.merges = rf.merges;
    st.replay_misses = rf.replay_misses;
    if let Some((r, d)) = drv.iter().enumerate().find(|(_, d)| d.pending.contains(&true)) {
        return Err(format!(
            "l1: requester {r}'s ids {:?} never answered",
            d.pending
                .iter()
                .enumerate()
                .filter(|x| *x.1)
                .map(|x| x.0)
                .collect::<Vec<_>>()
        ));
    }
    st.evictions_seen = rf.misses > pool as u64;
    if !gm.errors.is_empty() {
        return Err(format!("l1: memory errors {:?}", gm.errors));
    }
    if let Some((r, d)) = drv.iter().enumerate().find(|(_, d)| !d.order.is_empty()) {
        return Err(format!(
            "l1: requester {r}'s stores/atomics {:?} never reached memory",
            d.order
        ));
    }
    Ok(st)
}
