//! `gpucc_mem`: the GPU-CC network's memory front end. It joins the 16
//! LSUs' word ports (and their prefetch hints) to ONE line-wide requester
//! port of the L1 (`GmReq`/`GmResp`, requester 0, which the SM top shares
//! with the SIMT LSU: GPU-CC and SIMT mode are exclusive), coalescing
//! words into 128-byte lines: a load stream of sequential words makes one
//! line read per 32 loads, a store stream one line write per 32 stores.
//!
//! ```text
//!  LSU j (hot)                    u_port<j> (gpucc_mem_port, x16)                    L1 requester 0 (core)
//!  mem_req_*_i[j] ---> load: slots 0/1 (line, 32 words), queue of 8 loads --+
//!  mem_req_ready_o[j] <- store: write-combining line (mask, slot 0 words)   |  round robin,   l1_req_*_o
//!  mem_resp_*_o[j] <--- head load answered from its slot                    +- loads/stores --> (cross to core,
//!  pf_*_i[j] ---------> prefetch walk h .. h + ahead -------------------------+  before hints      taken at a core
//!                                                                              ^                 edge: ph_q = 0)
//!  l1_resp_*_i (cross to hot, captured at the core edge) -- id < 32: fill every slot waiting for id
//!                                                        -- id >= 32: a prefetch's line: dropped, id freed
//!  joins: a port's line read to send whose line another port's read is out for (or sent this
//!         cycle) waits for that read's response instead (`_j`)
//! ```
//!
//! * Ports (hot unless said): per LSU `j` (arrays of 16, the mirror of
//!   `gpucc_net`'s) `mem_req_valid_i`, `mem_req_we_i`, `mem_req_addr_i[32]`,
//!   `mem_req_wdata_i[32]`, `mem_req_ready_o` (the request is taken at a
//!   hot edge where valid and ready are high; ready is combinational from
//!   the request), `mem_resp_valid_o`, `mem_resp_data_o[32]` (the LSU's
//!   load words in its request order, at most one per hot cycle);
//!   `pf_valid_i`, `pf_line_i[25]` (the LSUs' hints: line `h` asks for
//!   `h .. h + ahead`, below the end of memory); `clear_i` (end of a
//!   run: drop the line buffers and hints, send buffered stores);
//!   `flush_i` (send buffered stores); `idle_o` (nothing buffered, queued,
//!   pending or out in memory: the L1 port may be handed back). Core
//!   domain: `gm_size_i` (bytes of global memory: no prefetch or
//!   read-ahead at or past it); `l1_req_*_o` ([`GmReq`]: valid, id[8], write, atom[4] = 0,
//!   addr[32] (line base), size[2] = 2, wmask[32], wdata[32 x 32]) with
//!   `l1_req_ready_i` and `l1_req_refresh_o` (the request is a prefetch:
//!   the L1's refresh mode keeps a line a prefetch finds, docs/gpucc.md
//!   12.1); `l1_resp_*_i` ([`GmResp`]); the counters
//!   `cnt_loads_o`, `cnt_stores_o` (requests taken from the LSUs),
//!   `cnt_line_reads_o`, `cnt_line_writes_o` (requests sent for loads and
//!   stores), `cnt_prefetch_o` (hints sent), `cnt_buf_hits_o` (loads whose
//!   line was already buffered or on its way: `loads = line_reads +
//!   buf_hits + joins - read_aheads`), `cnt_read_ahead_o` (next lines read
//!   by the ports), `cnt_joins_o` (line reads that joined another LSU's
//!   read instead of being sent), 32 bits each.
//! * Ids (`ids` = 64, the L1's ids per requester on the gpucc preset): LSU
//!   `j`'s line reads use `2 j + slot` (0..31; its store lines `2 j`, which
//!   never meet its reads: an LSU's loads and stores are kept in order),
//!   prefetches a pool of ids `32 .. ids - 1` (`busy<k>_q`), freed when
//!   their response comes back. The L1 merges a line read onto a prefetch
//!   of the same line that is still out. A response of id `k` < 32 fills
//!   every slot waiting for `k`: the owner's and those that joined it.
//! * Joins (`join`, module name `_j`): a port with a line read to send
//!   (not after a store of its own since the clear) whose line is that of
//!   another port's read out (`slot_pend_o`: the id that slot waits for,
//!   `slot_aw_o`) joins it: it leaves the round robin and waits for that
//!   response. A port whose line is that of the read sent in this cycle
//!   joins it too. The three LSUs reading one image row of the 3x3
//!   convolution read the same lines a few hot cycles apart: with joins
//!   they make one L1 request per line instead of three. Cost: per port
//!   30 line comparisons against the other ports' slots.
//! * Clock crossing: every register is hot. The L1 port is core: the
//!   request is a function of the hot state, crossed to core; a hot phase
//!   register `ph_q` (0 in the hot cycle whose edge is a core edge, the
//!   edges being aligned and the core edge at even hot cycles from reset)
//!   qualifies the L1's ready (`taken` only at a core edge) and the
//!   response (captured once, at the core edge ending the core cycle it
//!   is presented in). The LSU side is hot end to end: `mem_req_ready_o`
//!   is high only in a hot cycle whose edge the port captures the request
//!   at, so the LSU's request register drops it at exactly that edge.
//! * Arbitration: one request per core cycle, round robin from `rr_q`
//!   (it moves past the LSU taken) among: the LSUs with a line to write,
//!   if any (the L1 takes a store only with no read in its stages, so
//!   reads of other LSUs must not keep cutting in before it); else those
//!   with a prefetch to send while a prefetch id is free (a prefetch is
//!   needed a memory latency before its line; they are few); else those
//!   with a line to read. A walk's line among the last `RECENT` (4) prefetches sent
//!   (`rl<k>_q`, `rv<k>_q`, `rp_q`; the LSUs reading one row walk the same
//!   lines) is skipped instead: its port is told it was taken.
//! * Parameters (module name `gpucc_mem_i<ids>_p<ahead>[_ra][_j]`): `ids`,
//!   the prefetch distance `ahead` in lines, the ports' read-ahead and
//!   the joins, from the preset's `[gpucc]` section (`prefetch_ahead`,
//!   `read_ahead`, `join_reads`; docs/gpucc.md section 11).
//! * Latency (hot cycles): a load of a buffered line (or one arriving):
//!   taken at `t`, its word on `mem_resp_*_o` at `t + 1` (when ahead of
//!   it in the queue nothing waits); a load that misses the buffer: the
//!   line read on `l1_req` from `t + 1`, taken at the next core edge (one
//!   more core cycle per LSU ahead in the round robin), then the L1's
//!   latency (`2 (l1_latency + 1)` on a hit), captured at the core edge,
//!   the word out the hot cycle after: about 14 hot cycles on an L1 hit
//!   with the gpucc preset. A store: taken at `t` (merged); the line
//!   leaves on the next store to another line, a load, or a flush.
//! * Sizes: 16 ports of 2 line slots (64 word registers: 2 KB of data per
//!   LSU, 32 KB in all, slot 0 doubling as the store line), 8 queued loads
//!   and a prefetch walk (two lines) per LSU, `ids - 32` prefetch ids.

use super::mem_port::{GpuccMemPort, PortIn, PortOut};
use crate::hdl::logic::{first_one, index, or_all, pick};
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Pending, Reg, Sig, S};
use crate::units::gm::{GmReq, GmResp};

/// LSUs served.
pub const PORTS: usize = 16;

crate::ports! {
    /// The LSUs' requests and hints, the L1's ready and responses.
    pub struct MemIn {
        mem_req_valid_i: [1; 16] @ Hot,
        mem_req_we_i: [1; 16] @ Hot,
        mem_req_addr_i: [32; 16] @ Hot,
        mem_req_wdata_i: [32; 16] @ Hot,
        pf_valid_i: [1; 16] @ Hot,
        pf_line_i: [25; 16] @ Hot,
        clear_i: 1 @ Hot,
        flush_i: 1 @ Hot,
        gm_size_i: 32 @ Core,
        l1_req_ready_i: 1 @ Core,
        l1_resp: GmResp @ in,
    }
}
crate::ports! {
    /// Ready and load words to the LSUs, the request to the L1, counters.
    pub struct MemOut {
        mem_req_ready_o: [1; 16] @ Hot,
        mem_resp_valid_o: [1; 16] @ Hot,
        mem_resp_data_o: [32; 16] @ Hot,
        idle_o: 1 @ Hot,
        l1_req: GmReq @ out,
        l1_req_refresh_o: 1 @ Core,
        cnt_loads_o: 32 @ Core,
        cnt_stores_o: 32 @ Core,
        cnt_line_reads_o: 32 @ Core,
        cnt_line_writes_o: 32 @ Core,
        cnt_prefetch_o: 32 @ Core,
        cnt_buf_hits_o: 32 @ Core,
        cnt_read_ahead_o: 32 @ Core,
        cnt_joins_o: 32 @ Core,
    }
}

/// The GPU-CC memory front end with request ids below `ids`.
#[derive(Debug, Clone)]
pub struct GpuccMem {
    decl: Decl,
    port: GpuccMemPort,
    ids: usize,
    ahead: u32,
    read_ahead: bool,
    join: bool,
    names: Vec<String>,
    ph: Reg<1>,
    rr: Reg<4>,
    busy: Vec<Reg<1>>,
    /// The lines of the last [`RECENT`] prefetches sent (`rl<k>_q`, valid
    /// `rv<k>_q`, next entry `rp_q`): a hint of one of them is dropped.
    rline: Vec<Reg<25>>,
    rvalid: Vec<Reg<1>>,
    rptr: Reg<2>,
    cnt: [Reg<32>; 8],
}

/// Prefetched lines remembered to drop other LSUs' hints of the same line
/// (the 2-bit pointer `rp_q` walks them).
pub const RECENT: usize = 4;
const _: () = assert!(RECENT == 4, "rp_q is 2 bits");

impl GpuccMem {
    /// A front end giving the L1 ids below `ids` (33..=256: 32 for the
    /// loads, at least one for prefetches), prefetching `ahead` lines past
    /// a hinted line (0: the hinted line), its ports reading ahead when
    /// `read_ahead`, a line read joining another LSU's read of the same
    /// line when `join`.
    pub fn new(ids: usize, ahead: u32, read_ahead: bool, join: bool) -> Result<GpuccMem, String> {
        if !(33..=256).contains(&ids) {
            return Err(format!(
                "gpucc_mem: {ids} request ids; 33..=256 are supported (32 for the LSUs' line reads, the rest for prefetches)"
            ));
        }
        let mut d = Decl::new();
        let h = Domain::Hot;
        let ph = d.reg("ph", h, 0);
        let rr = d.reg("rr", h, 0);
        let busy = (32..ids).map(|k| d.reg(&format!("busy{k}"), h, 0)).collect();
        let rline = (0..RECENT).map(|k| d.reg(&format!("rl{k}"), h, 0)).collect();
        let rvalid = (0..RECENT).map(|k| d.reg(&format!("rv{k}"), h, 0)).collect();
        let rptr = d.reg("rp", h, 0);
        if ahead > 1024 {
            return Err(format!(
                "gpucc_mem: prefetch {ahead} lines ahead; 0..=1024 are supported"
            ));
        }
        let names = [
            "loads",
            "stores",
            "line_reads",
            "line_writes",
            "prefetch",
            "buf_hits",
            "read_ahead",
            "joins",
        ];
        let cnt = names.map(|n| d.reg(&format!("cnt_{n}"), h, 0));
        Ok(GpuccMem {
            decl: d,
            port: GpuccMemPort::new(read_ahead),
            ids,
            ahead,
            read_ahead,
            join,
            names: (0..PORTS).map(|j| format!("u_port{j}")).collect(),
            ph,
            rr,
            busy,
            rline,
            rvalid,
            rptr,
            cnt,
        })
    }

    /// The front end of a preset: ids of the L1's requester 0 (`32
    /// ceil(lsu_tags / 32)`), the `[gpucc]` section's prefetch distance
    /// and read-ahead (none without one).
    pub fn of(cfg: &crate::config::SmConfig) -> Result<GpuccMem, String> {
        let (ahead, ra, join) = cfg
            .gpucc
            .as_ref()
            .map_or((0, false, false), |g| (g.prefetch_ahead, g.read_ahead, g.join_reads));
        Self::new(32 * (cfg.lsu_tags as usize).div_ceil(32), ahead, ra, join)
    }
}

impl Block for GpuccMem {
    type In<B: Backend> = MemIn<B>;
    type Out<B: Backend> = MemOut<B>;

    fn module_name(&self) -> String {
        let ra = if self.read_ahead { "_ra" } else { "" };
        let j = if self.join { "_j" } else { "" };
        format!("gpucc_mem_i{}_p{}{ra}{j}", self.ids, self.ahead)
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &MemIn<C::B>) -> MemOut<C::B> {
        let hot = Domain::Hot;
        let ph = cx.q(self.ph);
        cx.d(self.ph, !ph);
        let edge = cx.name("core_edge", !ph);
        let ready = cx.cross(i.l1_req_ready_i, hot);
        let rv = cx.cross(i.l1_resp.valid, hot) & edge;
        let rid = cx.cross(i.l1_resp.id, hot);
        // Begin the ports: their request side is Moore.
        let mut hs: Vec<(Pending, PortOut<C::B>)> = Vec::with_capacity(PORTS);
        for j in 0..PORTS {
            hs.push(cx.instance_begin(&self.names[j], &self.port));
        }
        // The prefetch id pool: the lowest free id.
        let busy: Vec<S<C, 1>> = self.busy.iter().map(|&r| cx.q(r)).collect();
        let mut seen = cx.lit::<1>(0);
        let mut pf_pick = Vec::with_capacity(busy.len());
        for &b in &busy {
            pf_pick.push(!b & !seen);
            seen = seen | !b;
        }
        let any_free = seen;
        let pf_ids: Vec<S<C, 8>> = (32..self.ids).map(|k| cx.lit::<8>(k as u64)).collect();
        let pf_id = pick(cx, &pf_pick, &pf_ids);
        // Round robin: line writes first (the L1 takes a store only with no
        // read in its stages: reads of other LSUs must not keep cutting in
        // before it), then prefetches, then line reads.
        // Joins: a line read to send whose line another LSU's read is out
        // for (`slot_pend_o`) waits for that read's response instead (not
        // after a store of its own since the clear: `may_join_o`).
        let z1 = cx.lit::<1>(0);
        let z5 = cx.lit::<5>(0);
        let rdw: Vec<S<C, 1>> = hs
            .iter()
            .map(|(_, o)| {
                if self.join {
                    o.want_o & !o.out_write_o & o.may_join_o
                } else {
                    z1
                }
            })
            .collect();
        let mut j_pend = [z1; PORTS];
        let mut j_pid = [z5; PORTS];
        if self.join {
            for j in 0..PORTS {
                // The other LSUs' slots, in order.
                let at = |e: usize| (if e / 2 < j { e / 2 } else { e / 2 + 1 }, e % 2);
                let want = hs[j].1.out_line_o;
                let m: [S<C, 1>; 2 * (PORTS - 1)] = std::array::from_fn(|e| {
                    let (k, s) = at(e);
                    let o = &hs[k].1;
                    o.slot_pend_o[s] & o.slot_tag_o[s].eq(want)
                });
                let ids: Vec<S<C, 5>> = (0..2 * (PORTS - 1))
                    .map(|e| {
                        let (k, s) = at(e);
                        hs[k].1.slot_aw_o[s]
                    })
                    .collect();
                let first = first_one(cx, &m);
                j_pend[j] = rdw[j] & or_all(cx, &m);
                j_pid[j] = pick(cx, &first, &ids);
            }
        }
        // A read that joins leaves the round robin.
        let main: Vec<S<C, 1>> = hs.iter().enumerate().map(|(j, (_, o))| o.want_o & !j_pend[j]).collect();
        // (`out_write_o` implies `want_o`: the port's request is a write.)
        let wrs: Vec<S<C, 1>> = hs.iter().map(|(_, o)| o.out_write_o).collect();
        let any_main = or_all(cx, &main);
        let any_wr = or_all(cx, &wrs);
        // Hints of a line prefetched lately (the LSUs reading one row hint
        // the same lines) are dropped: the port is told its hint is taken.
        let rl: Vec<S<C, 25>> = self.rline.iter().map(|&r| cx.q(r)).collect();
        let rvv: Vec<S<C, 1>> = self.rvalid.iter().map(|&r| cx.q(r)).collect();
        let dup: Vec<S<C, 1>> = hs
            .iter()
            .map(|(_, o)| {
                let mut d = cx.lit::<1>(0);
                for k in 0..RECENT {
                    d = d | (rvv[k] & rl[k].eq(o.hint_line_o));
                }
                o.want_pf_o & d
            })
            .collect();
        let hpf: Vec<S<C, 1>> = (0..PORTS).map(|j| hs[j].1.want_pf_o & !dup[j] & any_free).collect();
        // Prefetches go before line reads: they are few (a line per 32
        // loads of a stream) and late ones stall the loads for a memory
        // latency; `main` says the granted request is a line read or write.
        let any_pf = or_all(cx, &hpf);
        let any_main = any_wr | (!any_pf & any_main);
        let cand: [S<C, 1>; PORTS] = std::array::from_fn(|j| any_wr.mux(wrs[j], any_main.mux(main[j], hpf[j])));
        let rr = cx.q(self.rr);
        // (The last LSU is at or after any pointer.)
        let at_or_after: [S<C, 1>; PORTS] = std::array::from_fn(|j| {
            if j == PORTS - 1 {
                cand[j]
            } else {
                cand[j] & !cx.lit::<4>(j as u64).ult(rr)
            }
        });
        let upper = or_all(cx, &at_or_after);
        let g_hi = first_one(cx, &at_or_after);
        let g_lo = first_one(cx, &cand);
        let grant: [S<C, 1>; PORTS] = std::array::from_fn(|j| upper.mux(g_hi[j], g_lo[j]));
        let nums: Vec<S<C, 4>> = (0..PORTS).map(|j| cx.lit::<4>(j as u64)).collect();
        let g = pick(cx, &grant, &nums);
        let g = cx.name("grant_idx", g);
        let valid = or_all(cx, &grant);
        let valid = cx.name("req_valid", valid);
        let sel = |cx: &mut C, f: &dyn Fn(&PortOut<C::B>) -> S<C, 1>| {
            let v: Vec<S<C, 1>> = hs.iter().map(|(_, o)| f(o)).collect();
            index(cx, &v, g)
        };
        let write = sel(cx, &|o| o.out_write_o) & any_main;
        let slot = sel(cx, &|o| o.out_slot_o);
        let lines: Vec<S<C, 25>> = hs.iter().map(|(_, o)| o.out_line_o).collect();
        let hints: Vec<S<C, 25>> = hs.iter().map(|(_, o)| o.hint_line_o).collect();
        let mline = index(cx, &lines, g);
        let hline = index(cx, &hints, g);
        let line = any_main.mux(mline, hline);
        let ld_id: S<C, 8> = cx.lit::<3>(0).concat::<5, 8>(g.concat::<1, 5>(write.mux(z1, slot)));
        let id = any_main.mux(ld_id, pf_id);
        let z32 = cx.lit::<32>(0);
        let wmask: [S<C, 1>; 32] = std::array::from_fn(|w| {
            let v: Vec<S<C, 1>> = hs.iter().map(|(_, o)| o.out_wmask_o[w]).collect();
            let m = index(cx, &v, g);
            write & m
        });
        let wdata: [S<C, 32>; 32] = std::array::from_fn(|w| {
            cx.select(
                write,
                |cx| {
                    let v: Vec<S<C, 32>> = hs.iter().map(|(_, o)| o.out_wdata_o[w]).collect();
                    index(cx, &v, g)
                },
                |_| z32,
            )
        });
        let taken = cx.name("taken", edge & ready & valid);
        let one4 = cx.lit::<4>(1);
        cx.d(self.rr, taken.mux(g + one4, rr));
        let take_main = taken & any_main;
        let take_pf = taken & !any_main;
        // A line read sent now is joined by the other LSUs' reads of its line.
        let take_rd = take_main & !write;
        let gid: S<C, 5> = ld_id.slice::<0, 5>();
        let joins: Vec<S<C, 1>> = (0..PORTS)
            .map(|j| {
                if self.join {
                    let at_grant = take_rd & !grant[j] & rdw[j] & hs[j].1.out_line_o.eq(mline);
                    j_pend[j] | at_grant
                } else {
                    z1
                }
            })
            .collect();
        let join_ids: Vec<S<C, 5>> = (0..PORTS).map(|j| j_pend[j].mux(j_pid[j], gid)).collect();
        for (k, &r) in self.busy.iter().enumerate() {
            let back = rv & rid.eq(cx.lit::<8>(32 + k as u64));
            cx.d(r, (take_pf & pf_pick[k]) | (busy[k] & !back));
        }
        let rp = cx.q(self.rptr);
        for k in 0..RECENT {
            let at = take_pf & rp.eq(cx.lit::<2>(k as u64));
            cx.d_en(self.rline[k], at, |_| line);
            cx.d(self.rvalid[k], !i.clear_i & (at | rvv[k]));
        }
        let rp_n = rp + cx.lit::<2>(1);
        cx.d(self.rptr, take_pf.mux(rp_n, rp));
        // End the ports: fills, grants, requests.
        let fill_any = rv & rid.ult(cx.lit::<8>(32));
        let fill_id: S<C, 5> = rid.slice::<0, 5>();
        let fill_data: [S<C, 32>; 32] = std::array::from_fn(|w| cx.cross(i.l1_resp.rdata[w], hot));
        // The first line outside the memory: ceil(size / 128). Speculative
        // reads (prefetches, read-aheads) stay below it.
        let size = cx.cross(i.gm_size_i, hot);
        let lim: S<C, 26> = (size.zext::<33>() + cx.lit::<33>(127)).slice::<7, 26>();
        let ahead = cx.lit::<26>(self.ahead as u64);
        // A hint of line h asks for h .. h + ahead (within the memory).
        let last = lim - cx.lit::<26>(1);
        let tgt: Vec<S<C, 25>> = (0..PORTS)
            .map(|j| {
                let t = i.pf_line_i[j].zext::<26>() + ahead;
                t.ult(lim).mux(t, last).slice::<0, 25>()
            })
            .collect();
        let z32b = cx.lit::<32>(0);
        let (mut rdy, mut rsv, mut rsd) = ([z1; PORTS], [z1; PORTS], [z32b; PORTS]);
        let (mut n_ld, mut n_st, mut n_hit, mut n_ra) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut idle = !or_all(cx, &busy);
        for (j, (h, _)) in hs.into_iter().enumerate() {
            let pin = PortIn {
                req_valid_i: i.mem_req_valid_i[j],
                req_we_i: i.mem_req_we_i[j],
                req_addr_i: i.mem_req_addr_i[j],
                req_wdata_i: i.mem_req_wdata_i[j],
                pf_valid_i: i.pf_valid_i[j] & i.pf_line_i[j].zext::<26>().ult(lim),
                pf_line_i: i.pf_line_i[j],
                pf_tgt_i: tgt[j],
                fill_valid_i: fill_any,
                fill_id_i: fill_id,
                fill_data_i: fill_data,
                take_i: take_main & grant[j],
                join_i: joins[j],
                join_id_i: join_ids[j],
                port_i: cx.lit::<4>(j as u64),
                take_pf_i: (take_pf & grant[j]) | dup[j],
                clear_i: i.clear_i,
                flush_i: i.flush_i,
                lim_line_i: lim,
            };
            let o = cx.instance_end(h, &self.port, &pin);
            rdy[j] = o.ready_o;
            rsv[j] = o.resp_valid_o;
            rsd[j] = o.resp_data_o;
            n_ld.push(o.load_o);
            n_st.push(o.store_o);
            n_hit.push(o.hit_o);
            n_ra.push(o.ra_o);
            idle = idle & o.idle_o;
        }
        // Counters: events of this hot cycle.
        let count = |cx: &mut C, v: &[S<C, 1>]| -> S<C, 32> {
            let mut acc = cx.lit::<32>(0);
            for &b in v {
                acc = acc + b.zext::<32>();
            }
            acc
        };
        let incs = [
            count(cx, &n_ld),
            count(cx, &n_st),
            (take_main & !write).zext::<32>(),
            (take_main & write).zext::<32>(),
            take_pf.zext::<32>(),
            count(cx, &n_hit),
            count(cx, &n_ra),
            count(cx, &joins),
        ];
        let mut outs = [z32; 8];
        for (k, &r) in self.cnt.iter().enumerate() {
            let c = cx.q(r);
            cx.d(r, c + incs[k]);
            outs[k] = cx.cross(c, Domain::Core);
        }
        let core = Domain::Core;
        let base: S<C, 32> = line.concat::<7, 32>(cx.lit::<7>(0));
        let v = valid;
        let z8 = cx.lit::<8>(0);
        let l1_req = GmReq {
            valid: cx.cross(v, core),
            id: cx.cross(v.mux(id, z8), core),
            write: cx.cross(write, core),
            atom: cx.lit::<4>(0),
            addr: cx.cross(v.mux(base, z32), core),
            size: cx.lit::<2>(2),
            wmask: std::array::from_fn(|w| cx.cross(wmask[w], core)),
            wdata: std::array::from_fn(|w| cx.cross(wdata[w], core)),
        };
        MemOut {
            mem_req_ready_o: rdy,
            mem_resp_valid_o: rsv,
            mem_resp_data_o: rsd,
            idle_o: cx.name("idle", idle),
            l1_req,
            // A prefetch: if its line is in the L1, it stays (the L1's
            // refresh mode).
            l1_req_refresh_o: cx.cross(v & !any_main, core),
            cnt_loads_o: outs[0],
            cnt_stores_o: outs[1],
            cnt_line_reads_o: outs[2],
            cnt_line_writes_o: outs[3],
            cnt_prefetch_o: outs[4],
            cnt_buf_hits_o: outs[5],
            cnt_read_ahead_o: outs[6],
            cnt_joins_o: outs[7],
        }
    }
}
