//! L1 data cache (Fermi): between the global-memory requesters (the LSU's
//! global port, and with `gm_requesters` = R > 1 the ports `rq<r>_req_*`)
//! and the SM's `gm_*` port. Caches 128-byte lines of global loads; stores
//! and atomics go through to memory and invalidate the line
//! (write-through, no allocate).
//!
//! ```text
//!  lsu_req_*_i (r = 0) ---+                     +-- read -> stage 0 .. stage H-1 (head): tag check
//!  rq<r>_req_*_i,         |                     |          ^       | hit: data RAM read -> o stage --+
//!  rq<r>_req_fill_i ------+-- round robin ------+          |       | miss: gm_req_* (line, {r, id})  |
//!  (r = 1 .. R-1)            (R > 1; id {r,id}) |   replay (mr) <--| merge: wait for the fill (mw)   |
//!                                               +-- store/atomic (only when idle) --> gm_req_*_o     |
//!                                                                                                    v
//!  gm_resp_*_i --(fill: data RAM, tag, wakes merged reads; by the id's r)--> lsu_resp_*_o / rq<r>_resp_*_o
//! ```
//!
//! * Ports. Requester 0 (the LSU): `lsu_req_*_i` ([`GmReq`]: valid, id[8],
//!   write, atom[4], addr[32], size[2], wmask[32], wdata[32 x 32]),
//!   `lsu_req_ready_o`, `lsu_resp_*_o` (valid, id[8], rdata[32 x 32]),
//!   `lsu_req_refresh_i` (the refresh mode, below). Requesters r = 1 ..
//!   R-1: the same as `rq<r>_req_*_i` plus
//!   `rq<r>_req_fill_i`, `rq<r>_req_ready_o`, `rq<r>_resp_*_o`. Memory:
//!   `gm_req_*_o` and `gm_resp_*_i` with ids of `IW = 8 + clog2(R)` bits,
//!   `{r, id}`, and `gm_req_ready_i`. Counters `cnt_l1_hit_o`,
//!   `cnt_l1_miss_o`. With R = 1 there are no `rq<r>_*` ports, the ids are
//!   8 bits and the block is exactly the single-requester cache (same
//!   Verilog, same timing).
//! * Clock domain: core. Geometry: `2^LA` lines of 128 bytes (`LA` = 7:
//!   16 KB, Fermi's 48 KB shared / 16 KB L1 split, seed 004), `ways` ways
//!   (power of two, 1..=8), `sets = 2^LA / ways`, FIFO (round-robin)
//!   replacement per set; `H` = `l1_latency` pipeline stages (1..=16);
//!   R = `gm_requesters` (1..=4; const parameters `RX = R - 1` and `IW`).
//!   Storage: 32 word RAMs `data_w<k>` of `2^LA` x 32 bits (address
//!   `{way, set}`, one synchronous read and one write port each), tag
//!   registers `tag<line>` (line address, 25 bits) and `val<line>`, victim
//!   pointers `vict<set>`, the miss table `mline<i>`/`mfill<i>`/`mrd<i>`/
//!   `mw<i>`/`mr<i>` (line, fills, read out in memory, merged read waiting
//!   for the line's fill, merged read woken to replay) with
//!   `I = 32 ceil(lsu_tags / 32)` entries per requester: entry `i` is
//!   memory id `{i / I, i mod I}`, so every requester uses ids below `I`
//!   (the LSU: its request tags, below `lsu_tags`). `s<k>_rp` per stage
//!   marks a replay. With R > 1 also `mpf<i>` (the read out with that id
//!   is fill-only; requesters 1.. only), `s<k>_pf` per stage and the
//!   round-robin pointer `rr`.
//! * Miss merging. A line read that misses at the head while a line read
//!   of the same line is out in memory whose response will still fill
//!   (`mrd` and `mfill` of some entry: no store or atomic to the line
//!   since it was sent) does not go to memory. A read (the secondary)
//!   records its line in its own entry and waits (`mw`); the next fill of
//!   that line wakes every waiting read of it (`mr`; a secondary merging
//!   on the edge its line fills is woken at once). A woken read replays:
//!   the one of the lowest entry enters stage 0 (`s0_rp`), before any
//!   requester's read (which then is not ready), passes the stages again
//!   and is looked up at the head like any line read: a hit answers
//!   through `o`, so the response port still carries one response per
//!   cycle; if the line was evicted meanwhile it misses again and goes to
//!   memory (or merges again). A fill-only read that would merge is
//!   dropped (a hint: the line is on its way). Reads of other sizes never
//!   merge and are never merged onto; a line read out whose fill a store
//!   cancelled (`mfill` = 0) takes no secondaries, so a later miss of that
//!   line goes to memory. Every read id is answered exactly once.
//! * Requesters (R > 1): one request is considered per core cycle, that of
//!   the first valid requester at or after `rr` (round robin); it is
//!   handled exactly as the LSU's request is with R = 1 and its
//!   `..._req_ready_o` is that answer (the others' are 0). `rr` moves past
//!   a requester when its request is taken; a request that waits (a store
//!   waiting for idle, a full stage 0) keeps the turn, so a waiting
//!   requester is taken after at most R - 1 others. Each requester's
//!   requests are taken in the order it presents them.
//! * Reads (`write = 0`, `atom = 0`) enter stage 0 when it is free
//!   (ready), move one stage per cycle (stalls compress bubbles) and are
//!   looked up at the head, stage `H - 1`. A line read (`size = 2`) that
//!   hits reads the data RAM there and answers in the next cycle (the `o`
//!   stage): `H + 1` cycles from the accepting edge. A miss that does not
//!   merge (below), and any read of another size (uncached), goes out on
//!   `gm_req_*` from the head (held until `gm_req_ready_i`) with its
//!   memory id; its response fills the line (cached reads only) and is
//!   passed up in the cycle it arrives, on the port of the requester named
//!   by the id's upper bits. A merged read answers `H + 2` cycles after
//!   its line's fill (woken, replayed through the stages, hit).
//! * Fill-only reads (`rq<r>_req_fill_i` = 1 with a read; a prefetch):
//!   enter the pipeline like a read. At the head a hit does nothing (it
//!   leaves, counted as a hit, no response); a miss of a line already on
//!   its way is dropped (counted as a miss); another miss goes to memory
//!   like a line read (counted as a miss), its response fills the line and goes
//!   to no requester (it does not take the response port either). So a
//!   fill returns nothing, and a later line read of that line hits while
//!   it stays. A requester gives its fills ids its reads do not use, and a
//!   fill whose id is still out in memory is dropped at the head (it is a
//!   hint; reusing the id would confuse the two responses). A fill of
//!   another size is read from memory and its response dropped.
//! * The response ports: a memory response for a requester has priority;
//!   the `o` stage waits (the RAM's read register holds) while such
//!   responses arrive, and the head does not issue another hit until `o`
//!   drains. With R > 1 the id (low 8 bits) and data of `lsu_resp_*` and
//!   `rq<r>_resp_*` are one shared bus; only the owner's valid is high.
//! * Stores and atomics pass straight through (`gm_req_valid_o` in the
//!   same cycle) only while no read (fill-only reads and replays included)
//!   of any requester is in a stage and no merged read of their line
//!   waits or is woken (`mw`/`mr` of an entry of that line), so every
//!   read taken before them is performed in memory or looked up before
//!   them, in each requester's program order. Reads out in memory may
//!   stay: a store or atomic marks the reads of its line out in memory as
//!   not filling (`mfill` = 0; their data is older than it, right for
//!   their requesters, stale for the cache), and a fill meeting a store or
//!   atomic to its line on the same edge does not fill. At acceptance they
//!   clear `val` of every way holding the line. Why a merged read cannot
//!   see a later store: it merged onto a read sent with no store to the
//!   line since, while it waits or replays no store to the line passes,
//!   and until it has been looked up again the line (in the cache or in
//!   memory, if it was evicted) is what memory held when it was taken.
//!   Atomics may overlap each other (memory performs them in acceptance
//!   order); an atomic's response passes up like a miss response (no
//!   fill).
//! * A fill of a line already present rewrites that way; otherwise it
//!   takes `vict<set>` and advances it. Fills and hits of the same edge
//!   are consistent (read-first RAMs: a hit reads the line it looked up).
//! * Refresh mode (built with `refresh`, module name ending `_rf`; the
//!   gpucc preset's `gpucc.l1_refresh`): the victim pointers become an age
//!   per line, `age<line>` (0 the youngest of its set, `ways - 1` the
//!   victim; way `w` starts at `ways - 1 - w`). A fill that allocates takes
//!   the oldest way and makes it the youngest, which is the pointer's FIFO
//!   order exactly; in addition a line read of requester 0 taken with
//!   `lsu_req_refresh_i` = 1 (carried as `s<k>_rf`) that hits at the head
//!   makes its line the youngest, before a fill of the same edge picks its
//!   victim. With `lsu_req_refresh_i` = 0 the block behaves as the FIFO
//!   cache, cycle for cycle; without the mode the port is unused. GPU-CC's
//!   memory front end sets it for its prefetches (docs/gpucc.md 12.1): a
//!   prefetch that finds its line keeps it until the load comes.
//! * The host must reset the SM after changing global memory behind it
//!   (the cache is not told).
//! * Counters: `cnt_l1_hit_o` / `cnt_l1_miss_o`, line reads (fill-only
//!   ones included) that hit / missed at their first look-up at the head;
//!   a miss that merged counts as a miss, and its replay is not counted
//!   again (hits + misses = line reads taken, less fill-only reads
//!   dropped because their id was out).
//! * Module name `l1_l<lines>_w<ways>_h<H>_i<I>`, `_r<R>` appended when
//!   R > 1. Without an L1 (GT200, Tesla) and R > 1 the requesters share
//!   the port through [`crate::units::gmarb`] (same requester ports).

use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Mem, Reg, Sig, S};
use crate::units::gm::{pick_request, resp_for, widen, GmFill, GmReady, GmReq, GmReqW, GmResp, GmRespW, Picked};

crate::ports! {
    /// Requests from the LSU (requester 0) and from requesters 1..=RX,
    /// the memory's ready and responses (ids of `IW` bits).
    pub struct L1In[RX, IW] {
        lsu_req: GmReq @ in,
        lsu_req_refresh_i: 1 @ Core,
        gm_req_ready_i: 1 @ Core,
        gm_resp: (GmRespW, IW) @ in,
        rq: [GmReq; RX] @ in "rq{+1}_req",
        rq_fill: [GmFill; RX] @ in "rq{+1}_req",
    }
}
crate::ports! {
    /// Ready and responses to the requesters, requests to memory, counters.
    pub struct L1Out[RX, IW] {
        lsu_req_ready_o: 1 @ Core,
        lsu_resp: GmResp @ out,
        gm_req: (GmReqW, IW) @ out,
        cnt_l1_hit_o: 32 @ Core,
        cnt_l1_miss_o: 32 @ Core,
        rq_ready: [GmReady; RX] @ out "rq{+1}_req",
        rq_resp: [GmResp; RX] @ out "rq{+1}_resp",
    }
}

/// The memory-side id width for `rx + 1` requesters: `8 + clog2(rx + 1)`.
pub const fn mem_id_bits(rx: usize) -> usize {
    8 + (usize::BITS - rx.leading_zeros()) as usize
}

/// The memory id `{r, id}` of miss-table entry `k` (`ids` entries per
/// requester).
fn entry_key(k: usize, ids: usize) -> u64 {
    (((k / ids) << 8) | (k % ids)) as u64
}

/// Line address bits (32 - 7).
const LW: usize = 25;

/// One pipeline stage.
#[derive(Debug, Clone, Copy)]
struct Stage<const IW: usize> {
    v: Reg<1>,
    id: Reg<IW>,
    addr: Reg<32>,
    size: Reg<2>,
    /// A fill-only read (requesters 1..=RX only).
    pf: Option<Reg<1>>,
    /// A merged read replaying (not counted again at the head).
    rp: Reg<1>,
    /// A refreshing read (with the refresh mode only).
    rf: Option<Reg<1>>,
}

/// An L1 data cache of `2^LA` 128-byte lines with `RX + 1` requesters and
/// memory ids of `IW = 8 + clog2(RX + 1)` bits. The requesters are const
/// parameters (not a runtime field like `ways`) because they set port
/// counts and the memory id's width; `flows::with_block` maps the config's
/// `gm_requesters` to them. The defaults are the SM's: the LSU alone.
#[derive(Debug, Clone)]
pub struct L1<const LA: usize, const RX: usize = 0, const IW: usize = 8> {
    decl: Decl,
    ways: usize,
    stages: Vec<Stage<IW>>,
    o_v: Reg<1>,
    o_id: Reg<IW>,
    val: Vec<Reg<1>>,
    tag: Vec<Reg<LW>>,
    vict: Vec<Reg<3>>,
    /// With the refresh mode (`refresh`): per line its age in its set (0
    /// the youngest, `ways - 1` the victim), in place of `vict`.
    age: Vec<Reg<3>>,
    refresh: bool,
    /// Request ids per requester (a multiple of 32 covering the LSU's
    /// `lsu_tags`); the miss table has this many entries per requester.
    ids: usize,
    mline: Vec<Reg<LW>>,
    mfill: Vec<Reg<1>>,
    /// A read with this id is out in memory.
    mrd: Vec<Reg<1>>,
    /// The read out with this id is fill-only (entries of requesters
    /// 1..=RX).
    mpf: Vec<Reg<1>>,
    /// The read with this id merged onto a read of its line out in memory
    /// and waits for that line's fill.
    mw: Vec<Reg<1>>,
    /// The merged read with this id was woken by the fill and waits to
    /// replay (re-enter stage 0).
    mr: Vec<Reg<1>>,
    /// Round-robin pointer: the requester first in line (RX > 0).
    rr: Option<Reg<2>>,
    cnt_hit: Reg<32>,
    cnt_miss: Reg<32>,
    data: Vec<Mem<32, LA>>,
}

/// Why an L1 cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
#[error("l1: {0}")]
pub struct L1Error(pub String);

impl<const LA: usize, const RX: usize, const IW: usize> L1<LA, RX, IW> {
    /// `ways` ways, `latency` stages before the tag check's answer, a miss
    /// table for `32 * blocks` request ids (`blocks` 1..=8) per requester.
    pub fn new(ways: usize, latency: usize, blocks: usize) -> Result<Self, L1Error> {
        Self::new_refresh(ways, latency, blocks, false)
    }

    /// As [`L1::new`], with the refresh mode when `refresh` (module name
    /// ending `_rf`): a line read of requester 0 taken with
    /// `lsu_req_refresh_i` that hits makes its line the youngest of its
    /// set, as a fill does.
    pub fn new_refresh(ways: usize, latency: usize, blocks: usize, refresh: bool) -> Result<Self, L1Error> {
        const { assert!(LA >= 1 && LA <= 12, "2..=4096 lines") };
        const {
            assert!(
                RX <= 3 && IW == mem_id_bits(RX),
                "1..=4 requesters, IW = 8 + clog2(RX + 1)"
            )
        };
        let lines = 1usize << LA;
        if !ways.is_power_of_two() || ways > 8 || ways > lines {
            return Err(L1Error(format!(
                "{ways} ways: must be a power of two, at most 8 and at most the {lines} lines"
            )));
        }
        if !(1..=16).contains(&latency) {
            return Err(L1Error(format!("latency {latency} core cycles: must be 1..=16")));
        }
        if !(1..=8).contains(&blocks) {
            return Err(L1Error(format!("{blocks} blocks of 32 request ids: must be 1..=8")));
        }
        let ids = 32 * blocks;
        let entries = ids * (RX + 1);
        let sets = lines / ways;
        let mut d = Decl::new();
        let c = Domain::Core;
        let stages = (0..latency)
            .map(|k| Stage {
                v: d.reg(&format!("s{k}_v"), c, 0),
                id: d.reg(&format!("s{k}_id"), c, 0),
                addr: d.reg(&format!("s{k}_addr"), c, 0),
                size: d.reg(&format!("s{k}_size"), c, 0),
                pf: (RX > 0).then(|| d.reg(&format!("s{k}_pf"), c, 0)),
                rp: d.reg(&format!("s{k}_rp"), c, 0),
                rf: refresh.then(|| d.reg(&format!("s{k}_rf"), c, 0)),
            })
            .collect();
        let o_v = d.reg("o_v", c, 0);
        let o_id = d.reg("o_id", c, 0);
        let val = (0..lines).map(|l| d.reg(&format!("val{l}"), c, 0)).collect();
        let tag = (0..lines).map(|l| d.reg(&format!("tag{l}"), c, 0)).collect();
        // FIFO replacement: a victim pointer per set. With the refresh mode
        // the ages of the lines (way `w` starts at age `ways - 1 - w`, so the
        // first fills take ways 0, 1, ... as the pointer does).
        let vict = if refresh {
            vec![]
        } else {
            (0..sets).map(|s| d.reg(&format!("vict{s}"), c, 0)).collect()
        };
        let age = if refresh {
            (0..lines)
                .map(|l| d.reg(&format!("age{l}"), c, (ways - 1 - l / sets) as u64))
                .collect()
        } else {
            vec![]
        };
        let mline = (0..entries).map(|i| d.reg(&format!("mline{i}"), c, 0)).collect();
        let mfill = (0..entries).map(|i| d.reg(&format!("mfill{i}"), c, 0)).collect();
        let mrd = (0..entries).map(|i| d.reg(&format!("mrd{i}"), c, 0)).collect();
        let mpf = (ids..entries).map(|i| d.reg(&format!("mpf{i}"), c, 0)).collect();
        let mw = (0..entries).map(|i| d.reg(&format!("mw{i}"), c, 0)).collect();
        let mr = (0..entries).map(|i| d.reg(&format!("mr{i}"), c, 0)).collect();
        let rr = (RX > 0).then(|| d.reg("rr", c, 0));
        let cnt_hit = d.reg("cnt_hit", c, 0);
        let cnt_miss = d.reg("cnt_miss", c, 0);
        let data = (0..32)
            .map(|k| d.mem::<32, LA>(&format!("data_w{k}"), c, 1, 1))
            .collect();
        Ok(L1 {
            decl: d,
            ways,
            stages,
            o_v,
            o_id,
            val,
            tag,
            vict,
            age,
            refresh,
            ids,
            mline,
            mfill,
            mrd,
            mpf,
            mw,
            mr,
            rr,
            cnt_hit,
            cnt_miss,
            data,
        })
    }

    /// The L1 of `cfg`, or `None` when `l1_bytes` is 0 (GT200, Tesla: no
    /// data cache). Its size must be `2^LA` lines of 128 bytes and
    /// `gm_requesters` must be `RX + 1`.
    pub fn of(cfg: &crate::config::SmConfig) -> Result<Option<Self>, L1Error> {
        if cfg.l1_bytes == 0 {
            return Ok(None);
        }
        if cfg.gm_requesters as usize != RX + 1 {
            return Err(L1Error(format!(
                "gm_requesters = {}: this L1 is built for {} requester(s)",
                cfg.gm_requesters,
                RX + 1
            )));
        }
        if cfg.l1_bytes as usize != 128 << LA {
            return Err(L1Error(format!(
                "l1_bytes = {}: this SM builds an L1 of {} bytes ({} lines of 128 bytes)",
                cfg.l1_bytes,
                128 << LA,
                1 << LA
            )));
        }
        // The LSU's ids are its request tags, below `lsu_tags`: blocks of
        // 32 ids cover them.
        let blocks = (cfg.lsu_tags as usize).div_ceil(32);
        let refresh = cfg.gpucc.as_ref().is_some_and(|g| g.l1_refresh);
        Self::new_refresh(cfg.l1_ways as usize, cfg.l1_latency as usize, blocks, refresh).map(Some)
    }

    /// Sets (lines / ways).
    pub fn sets(&self) -> usize {
        (1 << LA) / self.ways
    }

    /// Ways.
    pub fn ways(&self) -> usize {
        self.ways
    }

    /// Pipeline stages before the tag check.
    pub fn latency(&self) -> usize {
        self.stages.len()
    }
    /// Request ids per requester the miss table covers (a multiple of 32).
    pub fn ids(&self) -> usize {
        self.ids
    }
}

/// The ages of one set's ways after a use of way `hit` (one-hot) when
/// `en`: the used way becomes 0, the ways younger than it age by one.
fn touch<C: Ctx>(cx: &mut C, ages: &[S<C, 3>], hit: &[S<C, 1>], en: S<C, 1>) -> Vec<S<C, 3>> {
    let mut ta = cx.lit::<3>(0);
    for (&a, &h) in ages.iter().zip(hit) {
        ta = h.mux(a, ta);
    }
    let (z3, o3) = (cx.lit::<3>(0), cx.lit::<3>(1));
    ages.iter()
        .zip(hit)
        .map(|(&a, &h)| {
            let n = h.mux(z3, a.ult(ta).mux(a + o3, a));
            en.mux(n, a)
        })
        .collect()
}

/// `v[k]` for `idx == k` (0 when out of range), a mux chain.
fn sel<C: Ctx, const W: usize, const K: usize>(cx: &mut C, idx: S<C, K>, v: &[S<C, W>]) -> S<C, W> {
    sel_at(cx, idx, |k| k as u64, v)
}

/// `v[k]` for `idx == key(k)` (0 when none), a mux chain.
fn sel_at<C: Ctx, const W: usize, const K: usize>(
    cx: &mut C,
    idx: S<C, K>,
    key: impl Fn(usize) -> u64,
    v: &[S<C, W>],
) -> S<C, W> {
    let mut r = cx.lit::<W>(0);
    for (k, x) in v.iter().enumerate() {
        r = idx.eq(cx.lit::<K>(key(k))).mux(*x, r);
    }
    r
}

impl<const LA: usize, const RX: usize, const IW: usize> Block for L1<LA, RX, IW> {
    type In<B: Backend> = L1In<B, RX, IW>;
    type Out<B: Backend> = L1Out<B, RX, IW>;
    fn module_name(&self) -> String {
        let rq = if RX > 0 { format!("_r{}", RX + 1) } else { String::new() };
        let rf = if self.refresh { "_rf" } else { "" };
        format!(
            "l1_l{}_w{}_h{}_i{}{rq}{rf}",
            1 << LA,
            self.ways,
            self.stages.len(),
            self.ids
        )
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    /// Ids of the miss table's range, four times as many line addresses as lines (reuse and
    /// eviction), line reads mostly, stores, atomics and uncached reads now
    /// and then. Responses are random, not tied to requests: this shape is
    /// for co-simulating the logic; `testbenches/l1_tb.rs` drives real
    /// traffic against a memory.
    /// With several requesters each gets the same kind of traffic (its
    /// own bits of `r`), fills now and then, and response ids name any
    /// requester.
    fn constrain(&self, r: u64, i: &mut L1In<crate::hdl::Concrete, RX, IW>) {
        use crate::hdl::Bits;
        let ids = self.ids as u64;
        let shape = |q: &mut GmReq<crate::hdl::Concrete>, r: u64| {
            q.id = Bits::new(q.id.to_u64() % ids);
            let line = (r >> 8) % (4 << LA) as u64;
            q.addr = Bits::new(line << 7);
            let kind = r % 16;
            q.write = Bits::new((kind == 0) as u64);
            q.atom = Bits::new(if kind == 1 { 1 } else { 0 });
            q.size = Bits::new(if kind == 2 { 0 } else { 2 });
        };
        shape(&mut i.lsu_req, r);
        let rid = i.gm_resp.id.to_u64();
        i.gm_resp.id = Bits::new((((rid >> 8) % (RX as u64 + 1)) << 8) | ((rid & 0xff) % ids));
        for (k, q) in i.rq.iter_mut().enumerate() {
            shape(q, r.rotate_right(13 * (k as u32 + 1)));
        }
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &L1In<C::B, RX, IW>) -> L1Out<C::B, RX, IW> {
        let h = self.stages.len();
        let ways = self.ways;
        let sets = self.sets();
        let sb = sets.trailing_zeros() as u64;
        let z1 = cx.lit::<1>(0);
        let o1 = cx.lit::<1>(1);
        let z8 = cx.lit::<IW>(0);
        let ids = self.ids;
        let key = |k: usize| entry_key(k, ids);
        let z32 = cx.lit::<32>(0);
        let set_mask = cx.lit::<LA>(sets as u64 - 1);
        let set_of = |line: S<C, LW>| -> S<C, LA> { line.slice::<0, LA>() & set_mask };
        let sv: Vec<S<C, 1>> = self.stages.iter().map(|s| cx.q(s.v)).collect();
        let sid: Vec<S<C, IW>> = self.stages.iter().map(|s| cx.q(s.id)).collect();
        let saddr: Vec<S<C, 32>> = self.stages.iter().map(|s| cx.q(s.addr)).collect();
        let ssize: Vec<S<C, 2>> = self.stages.iter().map(|s| cx.q(s.size)).collect();
        let val: Vec<S<C, 1>> = self.val.iter().map(|r| cx.q(*r)).collect();
        let tag: Vec<S<C, LW>> = self.tag.iter().map(|r| cx.q(*r)).collect();
        let vict: Vec<S<C, 3>> = self.vict.iter().map(|r| cx.q(*r)).collect();
        let mline: Vec<S<C, LW>> = self.mline.iter().map(|r| cx.q(*r)).collect();
        let mfill: Vec<S<C, 1>> = self.mfill.iter().map(|r| cx.q(*r)).collect();
        let o_v = cx.q(self.o_v);
        let o_id = cx.q(self.o_id);
        let mrd: Vec<S<C, 1>> = self.mrd.iter().map(|r| cx.q(*r)).collect();
        let spf: Vec<Option<S<C, 1>>> = self.stages.iter().map(|s| s.pf.map(|r| cx.q(r))).collect();
        let mpf: Vec<S<C, 1>> = self.mpf.iter().map(|r| cx.q(*r)).collect();
        let srp: Vec<S<C, 1>> = self.stages.iter().map(|s| cx.q(s.rp)).collect();
        let srf: Vec<Option<S<C, 1>>> = self.stages.iter().map(|s| s.rf.map(|r| cx.q(r))).collect();
        let mw: Vec<S<C, 1>> = self.mw.iter().map(|r| cx.q(*r)).collect();
        let mr: Vec<S<C, 1>> = self.mr.iter().map(|r| cx.q(*r)).collect();
        // Per way: which ways of `set` hold `line` (valid).
        let lookup = |cx: &mut C, set: S<C, LA>, line: S<C, LW>| -> Vec<S<C, 1>> {
            (0..ways)
                .map(|w| {
                    let vs: Vec<S<C, 1>> = (0..sets).map(|s| val[w * sets + s]).collect();
                    let ts: Vec<S<C, LW>> = (0..sets).map(|s| tag[w * sets + s]).collect();
                    let v = sel(cx, set, &vs);
                    let t = sel(cx, set, &ts);
                    v & t.eq(line)
                })
                .collect()
        };
        // RAM address {way, set}.
        let ram_addr = |cx: &mut C, hits: &[S<C, 1>], dflt: S<C, 3>, set: S<C, LA>| -> S<C, LA> {
            let mut a = set;
            let mut found = z1;
            for (w, &hw) in hits.iter().enumerate() {
                let take = hw & !found;
                a = take.mux(set | cx.lit::<LA>((w as u64) << sb), a);
                found = found | hw;
            }
            // No hit: the default way.
            let mut d = set;
            for w in 0..ways {
                d = dflt
                    .eq(cx.lit::<3>(w as u64))
                    .mux(set | cx.lit::<LA>((w as u64) << sb), d);
            }
            found.mux(a, d)
        };

        // ---- head: tag check ----
        let hv = sv[h - 1];
        let haddr = saddr[h - 1];
        let hline = haddr.slice::<7, LW>();
        let hset = set_of(hline);
        let hcache = ssize[h - 1].eq(cx.lit::<2>(2));
        let hhits = lookup(cx, hset, hline);
        let mut hany = z1;
        for &x in &hhits {
            hany = hany | x;
        }
        let hit = hcache & hany;
        let fv = i.gm_resp.valid;
        // A memory response for a requester (a fill-only read's response
        // fills and goes to no requester).
        let fv_up = if RX > 0 {
            let pfs: Vec<S<C, 1>> = (0..ids).map(|_| z1).chain(mpf.iter().copied()).collect();
            fv & !sel_at(cx, i.gm_resp.id, key, &pfs)
        } else {
            fv
        };
        let o_free = !o_v | !fv_up;
        // A fill-only read that hits leaves without a response (no `o`).
        let hpf = spf[h - 1];
        let hv_rd = hpf.map_or(hv, |pf| hv & !pf);
        let head_hit_go = hv_rd & hit & o_free;
        let head_pf_hit = hpf.map(|pf| hv & hit & pf);
        let head_miss = hv & !hit;
        // A fill-only read whose id is still out in memory is dropped.
        let head_pf_drop = hpf.map(|pf| {
            let busy = sel_at(cx, sid[h - 1], key, &mrd);
            head_miss & pf & busy
        });
        let head_miss = head_pf_drop.map_or(head_miss, |d| head_miss & !d);
        // Merging: a line read that misses while a line read of its line
        // is out in memory and will still fill (`mrd`, `mfill`) does not
        // go to memory. A read waits for that fill (`mw`) and then
        // replays; a fill-only read is dropped.
        let mut pend = z1;
        for k in 0..self.mline.len() {
            pend = pend | (mrd[k] & mfill[k] & mline[k].eq(hline));
        }
        let head_merge = head_miss & hcache & pend;
        let head_sec = hpf.map_or(head_merge, |pf| head_merge & !pf);
        let head_miss = head_miss & !head_merge;
        let head_miss_go = head_miss & i.gm_req_ready_i;
        let head_go = head_hit_go | head_miss_go | head_merge;
        let head_go = head_pf_hit.map_or(head_go, |x| head_go | x);
        let head_go = head_pf_drop.map_or(head_go, |x| head_go | x);
        // Replays: the woken merged read of the lowest entry re-enters
        // stage 0, before any requester's read.
        let mut rp_any = z1;
        let mut rp_pick = vec![z1; self.mr.len()];
        let mut rp_id = z8;
        let mut rp_line = cx.lit::<LW>(0);
        for k in 0..self.mr.len() {
            rp_pick[k] = mr[k] & !rp_any;
            rp_id = rp_pick[k].mux(cx.lit::<IW>(key(k)), rp_id);
            rp_line = rp_pick[k].mux(mline[k], rp_line);
            rp_any = rp_any | mr[k];
        }
        let rp_addr: S<C, 32> = rp_line.concat::<7, 32>(cx.lit::<7>(0));
        // ---- pipeline advance ----
        let mut adv = vec![z1; h];
        let mut leave = head_go;
        for k in (0..h).rev() {
            adv[k] = !sv[k] | leave;
            if k > 0 {
                leave = sv[k - 1] & adv[k];
            }
        }
        // ---- upstream request ----
        // The request considered: the LSU's alone, or the round-robin pick.
        let (q, q_pf, grant, rr_next) = match self.rr {
            None => (widen::<C, IW>(&i.lsu_req), None, vec![], None),
            Some(rr) => {
                let reqs: Vec<GmReq<C::B>> = std::iter::once(i.lsu_req).chain(i.rq).collect();
                let fills: Vec<S<C, 1>> = std::iter::once(z1).chain(i.rq_fill.iter().map(|f| f.fill)).collect();
                let ptr = cx.q(rr);
                let p: Picked<C, IW> = pick_request(cx, &reqs, &fills, ptr);
                (p.q, Some(p.fill), p.grant, Some(p.next))
            }
        };
        let up_rd = !q.write & !q.atom.any();
        let iline = q.addr.slice::<7, LW>();
        // Stores and atomics pass once no read is in a stage (every read
        // taken before them has gone to memory or been looked up) and no
        // merged read of their line waits or replays (it was taken before
        // them and is answered from the cache).
        let mut busy = z1;
        for &v in sv.iter() {
            busy = busy | v;
        }
        let mut merged = z1;
        for k in 0..self.mline.len() {
            merged = merged | ((mw[k] | mr[k]) & mline[k].eq(iline));
        }
        let idle = !busy & !merged;
        let rp_go = rp_any & adv[0];
        let acc_rd = q.valid & up_rd & adv[0] & !rp_any;
        let wr_v = q.valid & !up_rd & idle;
        let acc_wr = wr_v & i.gm_req_ready_i;
        let ready = up_rd.mux(adv[0] & !rp_any, idle & i.gm_req_ready_i);
        // Several requesters: the granted one is told ready, and the
        // pointer moves past it when it is taken.
        if let (Some(rr), Some(nx)) = (self.rr, rr_next) {
            let taken = q.valid & ready;
            let p = cx.q(rr);
            cx.d(rr, taken.mux(nx, p));
        }
        for k in 0..h {
            let st = self.stages[k];
            let (nv, nid, na, ns, npf, nrp) = if k == 0 {
                (
                    acc_rd | rp_go,
                    rp_any.mux(rp_id, q.id),
                    rp_any.mux(rp_addr, q.addr),
                    rp_any.mux(cx.lit::<2>(2), q.size),
                    q_pf.map(|pf| !rp_any & pf),
                    rp_any,
                )
            } else {
                (
                    sv[k - 1],
                    sid[k - 1],
                    saddr[k - 1],
                    ssize[k - 1],
                    spf[k - 1],
                    srp[k - 1],
                )
            };
            let take = adv[k] & nv;
            cx.d(st.v, adv[k].mux(nv, sv[k]));
            cx.d(st.id, take.mux(nid, sid[k]));
            cx.d(st.addr, take.mux(na, saddr[k]));
            cx.d(st.size, take.mux(ns, ssize[k]));
            cx.d(st.rp, take.mux(nrp, srp[k]));
            if let (Some(r), Some(cur)) = (st.rf, srf[k]) {
                // Requester 0's read (not a replay) carries its refresh bit.
                let rf0 = grant.first().map_or(i.lsu_req_refresh_i, |&g| g & i.lsu_req_refresh_i);
                let n = if k == 0 {
                    !rp_any & rf0
                } else {
                    srf[k - 1].unwrap_or(z1)
                };
                cx.d(r, take.mux(n, cur));
            }
            if let (Some(r), Some(n), Some(cur)) = (st.pf, npf, spf[k]) {
                cx.d(r, take.mux(n, cur));
            }
        }
        // ---- memory requests: the head's miss, or a store/atomic ----
        let gv = head_miss | wr_v;
        let g_id = wr_v.mux(q.id, sid[h - 1]);
        let g_write = wr_v & q.write;
        let g_atom = wr_v.mux(q.atom, cx.lit::<4>(0));
        let g_addr = wr_v.mux(q.addr, haddr);
        let g_size = wr_v.mux(q.size, ssize[h - 1]);
        let g_wmask: [S<C, 1>; 32] = std::array::from_fn(|k| wr_v & q.wmask[k]);
        let g_wdata: [S<C, 32>; 32] = std::array::from_fn(|k| wr_v.mux(q.wdata[k], z32));
        // Miss table: the id's line, whether its response fills and
        // whether it is fill-only.
        // A store or atomic to a line with reads out in memory: those
        // reads were performed before it, so their responses must not
        // fill (they still answer their requesters).
        let hid = sid[h - 1];
        let wid = q.id;
        let atom_wr = acc_wr & q.atom.any();
        for k in 0..self.mline.len() {
            let kk = cx.lit::<IW>(key(k));
            let set_h = head_miss_go & hid.eq(kk);
            let set_a = atom_wr & wid.eq(kk);
            let stale = acc_wr & mrd[k] & mline[k].eq(iline);
            cx.d(self.mline[k], (set_h | (head_sec & hid.eq(kk))).mux(hline, mline[k]));
            cx.d(self.mfill[k], set_h.mux(hcache, (set_a | stale).mux(z1, mfill[k])));
            if let (Some(e), Some(pf)) = (k.checked_sub(ids), hpf) {
                cx.d(self.mpf[e], set_h.mux(pf, set_a.mux(z1, mpf[e])));
            }
        }
        // ---- responses: fills ----
        let fid = i.gm_resp.id;
        let fline = sel_at(cx, fid, key, &mline);
        // A fill meeting a store or atomic to its line on the same edge is
        // older than it: it does not fill.
        let ffill = fv & sel_at(cx, fid, key, &mfill) & !(acc_wr & fline.eq(iline));
        let fset = set_of(fline);
        let fhits = lookup(cx, fset, fline);
        let mut fany = z1;
        for &x in &fhits {
            fany = fany | x;
        }
        // Refresh mode: the head's hit of a refreshing read (leaving with
        // its data) makes its line the youngest of its set, before the fill
        // of the same edge picks its victim.
        let ages: Vec<S<C, 3>> = self.age.iter().map(|r| cx.q(*r)).collect();
        let ages1: Vec<S<C, 3>> = if let Some(hrf) = srf[h - 1] {
            let en = hrf & head_hit_go;
            let mut a1 = ages.clone();
            for s in 0..sets {
                let here = en & hset.eq(cx.lit::<LA>(s as u64));
                let set_ages: Vec<S<C, 3>> = (0..ways).map(|w| ages[w * sets + s]).collect();
                for (w, x) in touch(cx, &set_ages, &hhits, here).into_iter().enumerate() {
                    a1[w * sets + s] = x;
                }
            }
            a1
        } else {
            vec![]
        };
        let vict: Vec<S<C, 3>> = if self.refresh {
            // The victim of each set: its oldest way.
            let oldest = cx.lit::<3>(ways as u64 - 1);
            (0..sets)
                .map(|s| {
                    let mut v = cx.lit::<3>(0);
                    for w in 1..ways {
                        v = ages1[w * sets + s].eq(oldest).mux(cx.lit::<3>(w as u64), v);
                    }
                    v
                })
                .collect()
        } else {
            vict
        };
        let fvict = sel(cx, fset, &vict);
        let faddr = ram_addr(cx, &fhits, fvict, fset);
        let w0 = cx.lit::<3>(0);
        let haddr_ram = ram_addr(cx, &hhits, w0, hset);
        let mut rdata = [z32; 32];
        for k in 0..32 {
            rdata[k] = cx.mem_read(self.data[k], 0, head_hit_go, haddr_ram);
            cx.mem_write(self.data[k], 0, ffill, faddr, i.gm_resp.rdata[k]);
        }
        // Victim pointers advance on an allocating fill. With the refresh
        // mode an allocating fill makes its way the youngest (FIFO order, as
        // the pointer).
        let alloc = ffill & !fany;
        if self.refresh {
            let fw: Vec<S<C, 1>> = (0..ways).map(|w| fvict.eq(cx.lit::<3>(w as u64))).collect();
            let en = alloc;
            for s in 0..sets {
                let here = en & fset.eq(cx.lit::<LA>(s as u64));
                let set_ages: Vec<S<C, 3>> = (0..ways).map(|w| ages1[w * sets + s]).collect();
                for (w, x) in touch(cx, &set_ages, &fw, here).into_iter().enumerate() {
                    cx.d(self.age[w * sets + s], x);
                }
            }
        } else {
            let wmax = cx.lit::<3>(ways as u64 - 1);
            for s in 0..sets {
                let hs = alloc & fset.eq(cx.lit::<LA>(s as u64));
                let nx = vict[s].eq(wmax).mux(cx.lit::<3>(0), vict[s] + cx.lit::<3>(1));
                cx.d(self.vict[s], hs.mux(nx, vict[s]));
            }
        }
        // Tags: fill writes, store/atomic invalidates.
        let iset = set_of(iline);
        for w in 0..ways {
            for s in 0..sets {
                let l = w * sets + s;
                let ram = cx.lit::<LA>(l as u64);
                let fw = ffill & faddr.eq(ram);
                let inv = acc_wr & iset.eq(cx.lit::<LA>(s as u64)) & tag[l].eq(iline);
                cx.d(self.val[l], fw.mux(o1, inv.mux(z1, val[l])));
                cx.d(self.tag[l], fw.mux(fline, tag[l]));
            }
        }
        // Reads out in memory: set when the head's request is accepted,
        // cleared by the response with that id.
        for k in 0..self.mrd.len() {
            let kk = cx.lit::<IW>(key(k));
            let set_h = head_miss_go & hid.eq(kk);
            let clr = fv & fid.eq(kk);
            cx.d(self.mrd[k], set_h.mux(o1, clr.mux(z1, mrd[k])));
        }
        // Merged reads: a fill of their line wakes them (also the one
        // merging on this edge); a woken one leaves when it replays.
        let wake_now = ffill & fline.eq(hline);
        for k in 0..self.mw.len() {
            let kk = cx.lit::<IW>(key(k));
            let set_s = head_sec & hid.eq(kk);
            let wake = mw[k] & ffill & mline[k].eq(fline);
            cx.d(self.mw[k], set_s.mux(!wake_now, wake.mux(z1, mw[k])));
            let gone = rp_go & rp_pick[k];
            cx.d(self.mr[k], set_s.mux(wake_now, wake.mux(o1, gone.mux(z1, mr[k]))));
        }
        // o stage.
        cx.d(self.o_v, head_hit_go | (o_v & fv_up));
        cx.d(self.o_id, head_hit_go.mux(sid[h - 1], o_id));
        let one32 = cx.lit::<32>(1);
        let ch = cx.q(self.cnt_hit);
        let cm = cx.q(self.cnt_miss);
        // A replay is not counted again (it counted as a miss when it
        // merged).
        let hrp = srp[h - 1];
        let hit_n = head_pf_hit.map_or(head_hit_go, |x| head_hit_go | x) & !hrp;
        cx.d(self.cnt_hit, hit_n.mux(ch + one32, ch));
        let miss_n = ((head_miss_go & hcache) | head_merge) & !hrp;
        cx.d(self.cnt_miss, miss_n.mux(cm + one32, cm));
        let resp_v = fv_up | o_v;
        let resp_id = fv_up.mux(i.gm_resp.id, o_v.mux(o_id, z8));
        let resp_data: [S<C, 32>; 32] = std::array::from_fn(|k| fv_up.mux(i.gm_resp.rdata[k], o_v.mux(rdata[k], z32)));
        // Per requester: its valid (by the id's requester bits), the
        // shared id (low 8 bits) and data.
        let lsu_resp = resp_for(cx, resp_v, resp_id, resp_data, 0, RX > 0);
        let rq_resp = std::array::from_fn(|k| resp_for(cx, resp_v, resp_id, resp_data, k + 1, RX > 0));
        let ready_of = |r: usize| grant.get(r).map_or(ready, |&g| g & ready);
        L1Out {
            lsu_req_ready_o: ready_of(0),
            lsu_resp,
            rq_ready: std::array::from_fn(|k| GmReady { ready: ready_of(k + 1) }),
            rq_resp,
            gm_req: GmReqW {
                valid: gv,
                id: gv.mux(g_id, z8),
                write: g_write,
                atom: g_atom,
                addr: gv.mux(g_addr, z32),
                size: gv.mux(g_size, cx.lit::<2>(0)),
                wmask: g_wmask,
                wdata: g_wdata,
            },
            cnt_l1_hit_o: ch,
            cnt_l1_miss_o: cm,
        }
    }
}

#[cfg(test)]
mod tests;
