//! L1 data cache (Fermi): between the LSU's global port and the SM's `gm_*`
//! port. Caches 128-byte lines of global loads; stores and atomics go
//! through to memory and invalidate the line (write-through, no allocate).
//!
//! ```text
//!  LSU gm_req_* --> lsu_req_*_i ---+-- read -> stage 0 .. stage H-1 (head): tag check
//!                                  |                  | hit: data RAM read -> o stage --+
//!                                  |                  | miss: gm_req_* (line, id kept) |
//!                                  |                  v                                |
//!                                  +-- store/atomic (only when idle) --> gm_req_*_o    |
//!                                                                                      v
//!  gm_resp_*_i --(fill: data RAM, tag; same cycle)------------------------> lsu_resp_*_o
//! ```
//!
//! * Clock domain: core. Geometry: `2^LA` lines of 128 bytes (`LA` = 7:
//!   16 KB, Fermi's 48 KB shared / 16 KB L1 split, seed 004), `ways` ways
//!   (power of two, 1..=8), `sets = 2^LA / ways`, FIFO (round-robin)
//!   replacement per set; `H` = `l1_latency` pipeline stages (1..=16).
//!   Storage: 32 word RAMs `data_w<k>` of `2^LA` x 32 bits (address
//!   `{way, set}`, one synchronous read and one write port each), tag
//!   registers `tag<line>` (line address, 25 bits) and `val<line>`, victim
//!   pointers `vict<set>`, the per-id miss table `mline<i>`/`mfill<i>`/
//!   `mrd<i>` (ids 0..32 K - 1, K = `lsu_slots`: the LSU's load slot in
//!   id bits 7:5 and request index in 4:0; line, fills, read out in
//!   memory). Loads of different slots may miss on the same line at once:
//!   each goes to memory with its own id and each response fills (a fill
//!   of a line already present rewrites that way), so no merging is
//!   needed for correctness; the second miss costs bandwidth.
//! * Reads (`write = 0`, `atom = 0`) enter stage 0 when it is free
//!   (`lsu_req_ready_o`), move one stage per cycle (stalls compress
//!   bubbles) and are looked up at the head, stage `H - 1`. A line read
//!   (`size = 2`) that hits reads the data RAM there and answers in the
//!   next cycle (the `o` stage): `H + 1` cycles from the accepting edge.
//!   A miss, and any read of another size (uncached), goes out on `gm_req_*`
//!   from the head (held until `gm_req_ready_i`) with its id; its response
//!   fills the line (cached reads only) and is passed up in the cycle it
//!   arrives.
//! * The response port: a memory response has priority; the `o` stage
//!   waits (the RAM's read register holds) while responses arrive, and the
//!   head does not issue another hit until `o` drains.
//! * Stores and atomics pass straight through (`gm_req_valid_o` in the
//!   same cycle) only while the cache is idle (no read in a stage, in `o`
//!   or out in memory), so every access is performed in memory in program
//!   order and no fill can bring back a line older than a store; at
//!   acceptance they clear `val` of every way holding the line. Atomics
//!   may overlap each other (memory performs them in acceptance order);
//!   an atomic's response passes up like a miss response (no fill).
//! * A fill of a line already present rewrites that way; otherwise it
//!   takes `vict<set>` and advances it. Fills and hits of the same edge
//!   are consistent (read-first RAMs: a hit reads the line it looked up).
//! * The host must reset the SM after changing global memory behind it
//!   (the cache is not told).
//! * Counters: `cnt_l1_hit_o` / `cnt_l1_miss_o`, line reads that hit /
//!   missed at the head.

use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Mem, Reg, Sig, S};
use crate::units::gm::{GmReq, GmResp};

crate::ports! {
    /// Requests from the LSU, the memory's ready and responses.
    pub struct L1In {
        lsu_req: GmReq @ in,
        gm_req_ready_i: 1 @ Core,
        gm_resp: GmResp @ in,
    }
}
crate::ports! {
    /// Ready and responses to the LSU, requests to memory, counters.
    pub struct L1Out {
        lsu_req_ready_o: 1 @ Core,
        lsu_resp: GmResp @ out,
        gm_req: GmReq @ out,
        cnt_l1_hit_o: 32 @ Core,
        cnt_l1_miss_o: 32 @ Core,
    }
}

/// Line address bits (32 - 7).
const LW: usize = 25;

/// One pipeline stage.
#[derive(Debug, Clone, Copy)]
struct Stage {
    v: Reg<1>,
    id: Reg<8>,
    addr: Reg<32>,
    size: Reg<2>,
}

/// An L1 data cache of `2^LA` 128-byte lines.
#[derive(Debug, Clone)]
pub struct L1<const LA: usize> {
    decl: Decl,
    ways: usize,
    stages: Vec<Stage>,
    o_v: Reg<1>,
    o_id: Reg<8>,
    val: Vec<Reg<1>>,
    tag: Vec<Reg<LW>>,
    vict: Vec<Reg<3>>,
    /// Miss-table entries (32 per LSU load slot).
    ids: usize,
    mline: Vec<Reg<LW>>,
    mfill: Vec<Reg<1>>,
    /// A read with this id is out in memory.
    mrd: Vec<Reg<1>>,
    cnt_hit: Reg<32>,
    cnt_miss: Reg<32>,
    data: Vec<Mem<32, LA>>,
}

/// Why an L1 cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
#[error("l1: {0}")]
pub struct L1Error(pub String);

impl<const LA: usize> L1<LA> {
    /// `ways` ways, `latency` stages before the tag check's answer, a miss
    /// table for the request ids of `slots` LSU load slots (1..=8).
    pub fn new(ways: usize, latency: usize, slots: usize) -> Result<Self, L1Error> {
        const { assert!(LA >= 1 && LA <= 12, "2..=4096 lines") };
        let lines = 1usize << LA;
        if !ways.is_power_of_two() || ways > 8 || ways > lines {
            return Err(L1Error(format!(
                "{ways} ways: must be a power of two, at most 8 and at most the {lines} lines"
            )));
        }
        if !(1..=16).contains(&latency) {
            return Err(L1Error(format!("latency {latency} core cycles: must be 1..=16")));
        }
        if !(1..=8).contains(&slots) {
            return Err(L1Error(format!("{slots} LSU load slots: must be 1..=8")));
        }
        let ids = 32 * slots;
        let sets = lines / ways;
        let mut d = Decl::new();
        let c = Domain::Core;
        let stages = (0..latency)
            .map(|k| Stage {
                v: d.reg(&format!("s{k}_v"), c, 0),
                id: d.reg(&format!("s{k}_id"), c, 0),
                addr: d.reg(&format!("s{k}_addr"), c, 0),
                size: d.reg(&format!("s{k}_size"), c, 0),
            })
            .collect();
        let o_v = d.reg("o_v", c, 0);
        let o_id = d.reg("o_id", c, 0);
        let val = (0..lines).map(|l| d.reg(&format!("val{l}"), c, 0)).collect();
        let tag = (0..lines).map(|l| d.reg(&format!("tag{l}"), c, 0)).collect();
        let vict = (0..sets).map(|s| d.reg(&format!("vict{s}"), c, 0)).collect();
        let mline = (0..ids).map(|i| d.reg(&format!("mline{i}"), c, 0)).collect();
        let mfill = (0..ids).map(|i| d.reg(&format!("mfill{i}"), c, 0)).collect();
        let mrd = (0..ids).map(|i| d.reg(&format!("mrd{i}"), c, 0)).collect();
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
            ids,
            mline,
            mfill,
            mrd,
            cnt_hit,
            cnt_miss,
            data,
        })
    }

    /// The L1 of `cfg`, or `None` when `l1_bytes` is 0 (GT200, Tesla: no
    /// data cache). Its size must be `2^LA` lines of 128 bytes.
    pub fn of(cfg: &crate::config::SmConfig) -> Result<Option<Self>, L1Error> {
        if cfg.l1_bytes == 0 {
            return Ok(None);
        }
        if cfg.l1_bytes as usize != 128 << LA {
            return Err(L1Error(format!(
                "l1_bytes = {}: this SM builds an L1 of {} bytes ({} lines of 128 bytes)",
                cfg.l1_bytes,
                128 << LA,
                1 << LA
            )));
        }
        Self::new(cfg.l1_ways as usize, cfg.l1_latency as usize, cfg.lsu_slots as usize).map(Some)
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
    /// Request ids the miss table covers (32 per LSU load slot).
    pub fn ids(&self) -> usize {
        self.ids
    }
}

/// `v[k]` for `idx == k` (0 when out of range), a mux chain.
fn sel<C: Ctx, const W: usize, const K: usize>(cx: &mut C, idx: S<C, K>, v: &[S<C, W>]) -> S<C, W> {
    let mut r = cx.lit::<W>(0);
    for (k, x) in v.iter().enumerate() {
        r = idx.eq(cx.lit::<K>(k as u64)).mux(*x, r);
    }
    r
}

impl<const LA: usize> Block for L1<LA> {
    type In<B: Backend> = L1In<B>;
    type Out<B: Backend> = L1Out<B>;
    fn module_name(&self) -> String {
        format!(
            "l1_l{}_w{}_h{}_s{}",
            1 << LA,
            self.ways,
            self.stages.len(),
            self.ids / 32
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
    fn constrain(&self, r: u64, i: &mut L1In<crate::hdl::Concrete>) {
        use crate::hdl::Bits;
        i.lsu_req.id = Bits::new(i.lsu_req.id.to_u64() % self.ids as u64);
        i.gm_resp.id = Bits::new(i.gm_resp.id.to_u64() % self.ids as u64);
        let line = (r >> 8) % (4 << LA) as u64;
        i.lsu_req.addr = Bits::new(line << 7);
        let kind = r % 16;
        i.lsu_req.write = Bits::new((kind == 0) as u64);
        i.lsu_req.atom = Bits::new(if kind == 1 { 1 } else { 0 });
        i.lsu_req.size = Bits::new(if kind == 2 { 0 } else { 2 });
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &L1In<C::B>) -> L1Out<C::B> {
        let h = self.stages.len();
        let ways = self.ways;
        let sets = self.sets();
        let sb = sets.trailing_zeros() as u64;
        let z1 = cx.lit::<1>(0);
        let o1 = cx.lit::<1>(1);
        let z8 = cx.lit::<8>(0);
        let z32 = cx.lit::<32>(0);
        let set_mask = cx.lit::<LA>(sets as u64 - 1);
        let set_of = |line: S<C, LW>| -> S<C, LA> { line.slice::<0, LA>() & set_mask };
        let sv: Vec<S<C, 1>> = self.stages.iter().map(|s| cx.q(s.v)).collect();
        let sid: Vec<S<C, 8>> = self.stages.iter().map(|s| cx.q(s.id)).collect();
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
        let o_free = !o_v | !fv;
        let head_hit_go = hv & hit & o_free;
        let head_miss = hv & !hit;
        let head_miss_go = head_miss & i.gm_req_ready_i;
        let head_go = head_hit_go | head_miss_go;
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
        let up_rd = !i.lsu_req.write & !i.lsu_req.atom.any();
        let mut busy = o_v;
        for &v in sv.iter().chain(mrd.iter()) {
            busy = busy | v;
        }
        let idle = !busy;
        let acc_rd = i.lsu_req.valid & up_rd & adv[0];
        let wr_v = i.lsu_req.valid & !up_rd & idle;
        let acc_wr = wr_v & i.gm_req_ready_i;
        let ready = up_rd.mux(adv[0], idle & i.gm_req_ready_i);
        for k in 0..h {
            let st = self.stages[k];
            let (nv, nid, na, ns) = if k == 0 {
                (acc_rd, i.lsu_req.id, i.lsu_req.addr, i.lsu_req.size)
            } else {
                (sv[k - 1], sid[k - 1], saddr[k - 1], ssize[k - 1])
            };
            let take = adv[k] & nv;
            cx.d(st.v, adv[k].mux(nv, sv[k]));
            cx.d(st.id, take.mux(nid, sid[k]));
            cx.d(st.addr, take.mux(na, saddr[k]));
            cx.d(st.size, take.mux(ns, ssize[k]));
        }
        // ---- memory requests: the head's miss, or a store/atomic ----
        let gv = head_miss | wr_v;
        let g_id = wr_v.mux(i.lsu_req.id, sid[h - 1]);
        let g_write = wr_v & i.lsu_req.write;
        let g_atom = wr_v.mux(i.lsu_req.atom, cx.lit::<4>(0));
        let g_addr = wr_v.mux(i.lsu_req.addr, haddr);
        let g_size = wr_v.mux(i.lsu_req.size, ssize[h - 1]);
        let g_wmask: [S<C, 1>; 32] = std::array::from_fn(|k| wr_v & i.lsu_req.wmask[k]);
        let g_wdata: [S<C, 32>; 32] = std::array::from_fn(|k| wr_v.mux(i.lsu_req.wdata[k], z32));
        // Miss table: the id's line and whether its response fills.
        let hid = sid[h - 1];
        let wid = i.lsu_req.id;
        let atom_wr = acc_wr & i.lsu_req.atom.any();
        for k in 0..self.ids {
            let kk = cx.lit::<8>(k as u64);
            let set_h = head_miss_go & hid.eq(kk);
            let set_a = atom_wr & wid.eq(kk);
            cx.d(self.mline[k], set_h.mux(hline, mline[k]));
            cx.d(self.mfill[k], set_h.mux(hcache, set_a.mux(z1, mfill[k])));
        }
        // ---- responses: fills ----
        let fid = i.gm_resp.id;
        let fline = sel(cx, fid, &mline);
        let ffill = fv & sel(cx, fid, &mfill);
        let fset = set_of(fline);
        let fhits = lookup(cx, fset, fline);
        let mut fany = z1;
        for &x in &fhits {
            fany = fany | x;
        }
        let fvict = sel(cx, fset, &vict);
        let faddr = ram_addr(cx, &fhits, fvict, fset);
        let w0 = cx.lit::<3>(0);
        let haddr_ram = ram_addr(cx, &hhits, w0, hset);
        let mut rdata = [z32; 32];
        for k in 0..32 {
            rdata[k] = cx.mem_read(self.data[k], 0, head_hit_go, haddr_ram);
            cx.mem_write(self.data[k], 0, ffill, faddr, i.gm_resp.rdata[k]);
        }
        // Victim pointers advance on an allocating fill.
        let alloc = ffill & !fany;
        let wmax = cx.lit::<3>(ways as u64 - 1);
        for s in 0..sets {
            let hs = alloc & fset.eq(cx.lit::<LA>(s as u64));
            let nx = vict[s].eq(wmax).mux(cx.lit::<3>(0), vict[s] + cx.lit::<3>(1));
            cx.d(self.vict[s], hs.mux(nx, vict[s]));
        }
        // Tags: fill writes, store/atomic invalidates.
        let iline = i.lsu_req.addr.slice::<7, LW>();
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
        for k in 0..self.ids {
            let kk = cx.lit::<8>(k as u64);
            let set_h = head_miss_go & hid.eq(kk);
            let clr = fv & fid.eq(kk);
            cx.d(self.mrd[k], set_h.mux(o1, clr.mux(z1, mrd[k])));
        }
        // o stage.
        cx.d(self.o_v, head_hit_go | (o_v & fv));
        cx.d(self.o_id, head_hit_go.mux(sid[h - 1], o_id));
        let one32 = cx.lit::<32>(1);
        let ch = cx.q(self.cnt_hit);
        let cm = cx.q(self.cnt_miss);
        cx.d(self.cnt_hit, head_hit_go.mux(ch + one32, ch));
        cx.d(self.cnt_miss, (head_miss_go & hcache).mux(cm + one32, cm));
        let resp_v = fv | o_v;
        let resp_id = fv.mux(i.gm_resp.id, o_v.mux(o_id, z8));
        let resp_data: [S<C, 32>; 32] = std::array::from_fn(|k| fv.mux(i.gm_resp.rdata[k], o_v.mux(rdata[k], z32)));
        L1Out {
            lsu_req_ready_o: ready,
            lsu_resp: GmResp {
                valid: resp_v,
                id: resp_id,
                rdata: resp_data,
            },
            gm_req: GmReq {
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
mod tests {
    use super::L1;

    #[test]
    fn bad_geometry_is_an_error() {
        assert!(L1::<7>::new(3, 4, 1).is_err());
        assert!(L1::<7>::new(16, 4, 1).is_err());
        assert!(L1::<7>::new(4, 0, 1).is_err());
        assert!(L1::<7>::new(4, 17, 1).is_err());
        assert!(L1::<2>::new(8, 1, 1).is_err());
        assert!(L1::<7>::new(4, 4, 0).is_err());
        assert!(L1::<7>::new(4, 4, 9).is_err());
        let c = L1::<7>::new(4, 4, 8).unwrap();
        assert_eq!((c.sets(), c.ways(), c.latency(), c.ids()), (32, 4, 4, 256));
    }

    #[test]
    fn random_matches_reference_and_memory() {
        use crate::testbenches::l1_tb::l1_random;
        // A small cache (8 lines) so that lines are evicted; latencies
        // around the pipeline's so that fills meet hits.
        for (seed, ways, h, lat, ooo) in [
            (1, 2, 1, 3, false),
            (2, 4, 4, 9, true),
            (3, 1, 2, 1, true),
            (4, 8, 3, 20, false),
        ] {
            let s = l1_random::<3>(seed, ways, h, lat, ooo, 400).unwrap();
            eprintln!("l1 random seed {seed}: {s:?}");
            assert!(
                s.hits > 50 && s.misses > 50 && s.evictions_seen && s.checked > 500,
                "{s:?}"
            );
        }
        let s = l1_random::<7>(5, 4, 4, 30, true, 300).unwrap();
        assert!(s.hits > 0 && s.checked > 300, "{s:?}");
    }

    /// Loads of several LSU slots in flight at once (ids `slot << 5 | k`),
    /// misses of different slots to the same line, fills meeting hits.
    #[test]
    fn overlapping_loads_of_several_slots() {
        use crate::testbenches::l1_tb::l1_random_slots;
        for (seed, ways, h, lat, ooo, slots) in [(7, 2, 2, 12, true, 8), (8, 4, 4, 30, false, 4), (9, 1, 1, 5, true, 2)]
        {
            let s = l1_random_slots::<3>(seed, ways, h, lat, ooo, 400, slots).unwrap();
            assert!(s.hits > 50 && s.misses > 50 && s.checked > 500, "{s:?}");
            assert!(s.max_slots > 1, "loads overlapped: {s:?}");
        }
    }

    #[test]
    fn a_wrong_reference_is_caught() {
        let e = crate::testbenches::l1_tb::l1_against::<3>(6, 2, 3, 4, 5, false, 200, 1).unwrap_err();
        assert!(e.contains("l1 cycle"), "{e}");
    }

    #[test]
    fn elaborates() {
        crate::hdl::Sim::new(L1::<7>::new(4, 4, 8).unwrap()).unwrap();
        crate::hdl::Sim::new(L1::<3>::new(2, 1, 2).unwrap()).unwrap();
    }
}
