//! Random bench of the L1 data cache (`units::l1`): an LSU-like driver
//! (line loads that wait for every response, with up to `slots` load
//! instructions in flight as the LSU's load slots send them, ids
//! `slot << 5 | k`; stores done at acceptance and atomics that wait for
//! their old words, both only once no load is in flight; now and then an
//! uncached 32- or 64-byte read) in front of the RTL cache, the
//! global-memory model behind it.
//!
//! Every core cycle every output of the RTL is compared with the reference
//! model (`l1_ref.rs`); every load response is compared with the memory
//! image (no store overlaps a load, so the image holds what the load must
//! see); at the end the hit and miss counts must show that the stimulus
//! hit, missed and evicted.

use super::gmem::{GmReq, GmResp, Gmem, GmemConfig};
use super::l1_ref::{L1Ref, L1RefIn};
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use crate::units::l1::{L1In, L1Out, L1};
use rand::{Rng, SeedableRng};

/// What the run did.
#[derive(Debug, Clone, Default)]
pub struct L1Stats {
    pub cycles: u64,
    pub loads: u64,
    pub stores: u64,
    pub atomics: u64,
    pub hits: u64,
    pub misses: u64,
    /// More line misses than distinct lines: lines were evicted and
    /// fetched again.
    pub evictions_seen: bool,
    /// Load responses compared with the image.
    pub checked: u64,
    /// Most LSU slots with responses outstanding at once.
    pub max_slots: usize,
}

fn to_in(q: Option<&GmReq>, gm_ready: bool, resp: Option<&GmResp>) -> L1In<Concrete> {
    let mut i: L1In<Concrete> = zero_ports();
    if let Some(q) = q {
        i.lsu_req.valid = Bits::new(1);
        i.lsu_req.id = Bits::new(q.id as u64);
        i.lsu_req.write = Bits::new(q.write as u64);
        i.lsu_req.atom = Bits::new(q.atom as u64);
        i.lsu_req.addr = Bits::new(q.addr as u64);
        i.lsu_req.size = Bits::new(q.size as u64);
        for k in 0..32 {
            i.lsu_req.wmask[k] = Bits::new((q.wmask >> k & 1) as u64);
            i.lsu_req.wdata[k] = Bits::new(q.wdata[k] as u64);
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

fn gm_req_of(o: &L1Out<Concrete>) -> (bool, GmReq) {
    let mut wmask = 0u32;
    let mut wdata = [0u32; 32];
    for k in 0..32 {
        wmask |= (o.gm_req.wmask[k].to_u64() as u32) << k;
        wdata[k] = o.gm_req.wdata[k].to_u64() as u32;
    }
    (
        o.gm_req.valid.to_u64() == 1,
        GmReq {
            id: o.gm_req.id.to_u64() as u8,
            write: o.gm_req.write.to_u64() == 1,
            atom: o.gm_req.atom.to_u64() as u8,
            addr: o.gm_req.addr.to_u64() as u32,
            size: o.gm_req.size.to_u64() as u8,
            wmask,
            wdata,
        },
    )
}

fn resp_of(o: &L1Out<Concrete>) -> (bool, GmResp) {
    let mut rdata = [0u32; 32];
    for (k, x) in rdata.iter_mut().enumerate() {
        *x = o.lsu_resp.rdata[k].to_u64() as u32;
    }
    (
        o.lsu_resp.valid.to_u64() == 1,
        GmResp {
            id: o.lsu_resp.id.to_u64() as u8,
            rdata,
        },
    )
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
    let lines = 1usize << LA;
    let pool = 3 * lines as u32;
    let blk = L1::<LA>::new(ways, latency, slots).map_err(|e| e.to_string())?;
    let ids = blk.ids();
    let mut sim = Sim::new(blk).map_err(|e| e.to_string())?;
    let mut rf = L1Ref::new(lines, ways, ref_latency, ids);
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    let image: Vec<u8> = (0..pool as usize * 128).map(|_| rng.gen()).collect();
    let mut gm = Gmem::new(
        GmemConfig {
            latency: mem_latency,
            milli_bytes_per_cycle: rng.gen_range(20_000..200_000),
            out_of_order: ooo,
            seed,
        },
        image,
    );
    let mut st = L1Stats::default();
    // The current instruction: requests still to send, responses awaited.
    let mut todo: Vec<GmReq> = vec![];
    let mut waiting = 0usize;
    // Per id of the loads in flight: (address, size); None for atomics.
    let mut asked: Vec<Option<(u32, u8)>> = vec![None; ids];
    // Responses awaited per slot.
    let mut slot_wait = vec![0usize; slots];
    // The next instruction's kind (drawn once, so a store waits for the
    // loads in flight instead of being redrawn).
    let mut next_kind: Option<u32> = None;
    let mut checked = 0u64;
    let mut done = 0u64;
    let mut cycle = 0u64;
    let limit = 2_000 + instrs * (64 + 40 * mem_latency as u64);
    while done < instrs || !todo.is_empty() || waiting > 0 {
        if cycle > limit {
            return Err(format!(
                "l1 cycle {cycle}: no progress ({done} of {instrs} instructions, {} requests to send, {waiting} responses awaited)",
                todo.len()
            ));
        }
        let kind_now = *next_kind.get_or_insert_with(|| rng.gen_range(0..20));
        // A load takes a free slot; a store or an atomic waits for all.
        let free = slot_wait.iter().position(|&w| w == 0);
        let can = if kind_now > 3 { free.is_some() } else { waiting == 0 };
        if todo.is_empty() && can && done < instrs {
            // A new instruction: 1..=8 requests of one kind, distinct ids.
            let kind = next_kind.take().expect("drawn");
            let slot = free.unwrap_or(0);
            let n = rng.gen_range(1..=8usize);
            let hot = rng.gen_range(0..pool);
            for k in 0..n {
                let id = slot << 5 | k;
                let line = if rng.gen_bool(0.6) {
                    (hot + k as u32) % pool
                } else {
                    rng.gen_range(0..pool)
                };
                let mut q = GmReq {
                    id: id as u8,
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
                asked[id] = (kind > 3).then_some((q.addr, q.size));
                todo.push(q);
            }
            match kind {
                0..=2 => st.stores += 1,
                3 => st.atomics += 1,
                _ => st.loads += 1,
            }
            if kind > 2 {
                waiting += n;
                slot_wait[slot] = n;
                st.max_slots = st.max_slots.max(slot_wait.iter().filter(|&&w| w > 0).count());
            }
            done += 1;
        }
        let req = todo.first().cloned();
        let gm_ready = gm.ready();
        let gresp = gm.response().cloned();
        let i = to_in(req.as_ref(), gm_ready, gresp.as_ref());
        let want = rf.step(&L1RefIn {
            req: req.clone(),
            gm_ready,
            resp: gresp.clone(),
        });
        let o = sim.step_core(&i);
        let (gv, greq) = gm_req_of(&o);
        let (rv, rresp) = resp_of(&o);
        let want_g = want.gm_req.clone().unwrap_or(ZERO_REQ);
        let want_r = want.resp.clone().unwrap_or(GmResp { id: 0, rdata: [0; 32] });
        let got_ready = o.lsu_req_ready_o.to_u64() == 1;
        let (hits, misses) = (o.cnt_l1_hit_o.to_u64(), o.cnt_l1_miss_o.to_u64());
        if gv != want.gm_req.is_some()
            || greq != want_g
            || rv != want.resp.is_some()
            || rresp != want_r
            || got_ready != want.ready
            || (hits, misses) != (want.hits, want.misses)
        {
            return Err(format!(
                "l1 cycle {cycle}: rtl ready {got_ready} gm_req {gv} {greq:?} resp {rv} id {} hits {hits} misses {misses}; \
                 reference ready {} gm_req {:?} resp {:?} hits {} misses {}",
                rresp.id,
                want.ready,
                want.gm_req,
                want.resp.as_ref().map(|r| r.id),
                want.hits,
                want.misses
            ));
        }
        // A load's or uncached read's words against the image (no store
        // overlaps a load, so the image holds what it must return).
        if rv {
            if let Some((addr, size)) = asked.get(rresp.id as usize).copied().flatten() {
                let base = (addr & !127) as usize;
                let first = (addr as usize - base) / 4;
                let words = (32usize << size) / 4;
                for k in 0..32 {
                    let a = base + 4 * k;
                    let want = if (first..first + words).contains(&k) {
                        u32::from_le_bytes(gm.mem[a..a + 4].try_into().expect("4 bytes"))
                    } else {
                        0
                    };
                    if rresp.rdata[k] != want {
                        return Err(format!(
                            "l1 cycle {cycle}: response id {} word {k} is {:#x}, memory at {a:#x} holds {want:#x}",
                            rresp.id, rresp.rdata[k]
                        ));
                    }
                }
                checked += 1;
            }
            waiting = waiting.saturating_sub(1);
            let sl = rresp.id as usize >> 5;
            if let Some(w) = slot_wait.get_mut(sl) {
                *w = w.saturating_sub(1);
            }
        }
        // The edge: the memory takes the request, the driver moves on.
        let acc = (gv && gm_ready).then_some(greq.clone());
        gm.edge(acc.as_ref());
        if req.is_some() && got_ready {
            todo.remove(0);
        }
        cycle += 1;
    }
    st.cycles = cycle;
    st.hits = rf.hits;
    st.misses = rf.misses;
    st.evictions_seen = rf.misses > pool as u64;
    st.checked = checked;
    if !gm.errors.is_empty() {
        return Err(format!("l1: memory errors {:?}", gm.errors));
    }
    Ok(st)
}
