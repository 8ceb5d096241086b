//! Write-back: takes the result pulses of every unit, queues them per
//! source, and writes them into the register file (`rf_wr<w>_*`) or the
//! predicate file (`pr_wr_*`), releasing the scoreboard (`rel_*`) at the
//! same edge. It also drives the retire monitor (`ret<w>_*`).
//!
//! ```text
//!  sp0_res  sp1_res  sfu_res  dpu_res  lsu_res  fe_res     (pulses)
//!     |        |        |        |        |        |
//!   [q0]     [q1]     [q2]     [q3]     [q4]     [q5]      circular queues, depth D_s
//!     |  heads: memory read registers, or the bypass registers
//!     v
//!  per channel w (warp mod NS == w): round robin from rr_q[w] among the heads
//!     |                           kind 1/2 -> rf_wr<w>_*  (reg / pair)
//!     +-- one result per channel  kind 3   -> pr_wr_*     (one per cycle in all)
//!                                 any kind -> rel_*[w], ret<w>_*
//!  credits: cnt_q[s] += disp_<s>_i, -= written; wb_room_<s>_o = cnt_q[s] < D_s
//! ```
//!
//! * Clock domain: core. Sources (index): 0 `sp0`, 1 `sp1`, 2 `sfu`,
//!   3 `dpu`, 4 `lsu`, 5 `fe` (S2R values from the CTA launcher).
//! * Timing: a pulse in cycle k enters its queue at edge k; the queue head
//!   competes from cycle k+1 and is written (and the scoreboard released)
//!   at the edge it wins: k+1 without contention (docs/sm.md section 8,
//!   the "1" case). Every output is a function of registers and memory
//!   read registers only (Moore), so the SM top can close its ring through
//!   wb. Results of one source leave in arrival order.
//! * Storage: each queue's entries are in memories of 8 words (`D_s`
//!   used), one word per entry: `q_<src>_meta` (tag in bits 31:0,
//!   mask in 63:32), `q_<src>_pred` (sp0, sp1, dpu; the other sources have
//!   no predicate result and give 0), `q_<src>_lo<g>` and, for dpu and
//!   lsu, `q_<src>_hi<g>` (g = 0..7: lanes 4g..4g+3, lane 4g+k in bits
//!   32k+31:32k). A pulse is written at the tail at the edge it arrives.
//!   Every edge reads the word the next cycle's head will be (address
//!   `head` after the pop), so the head is on the memories' read registers
//!   a cycle later; a pulse that is the head at once (its queue empty
//!   after that edge's pop) is not in that read (a read gives the word as
//!   it was before the edge's write), so it is also loaded into the bypass
//!   registers `q_<src>_byp_*` and `q_<src>_byp_q` selects them for that
//!   one cycle. Only the pointers, counts, credits, `byp`, the round robin
//!   and the counters are reset; the memories and the bypass registers are
//!   not (a queue's head is read only while its count is not 0). Yosys
//!   maps the memories to LUT RAM (docs/fpga.md, "Storage in RAM").
//! * Channel: a result goes to channel `warp mod NS` (the register file's
//!   write channel of that warp's scheduler, docs/sm.md 5.2); each channel
//!   writes one result per core cycle. A predicate result (tag kind 3)
//!   uses the one predicate-file port, so in a cycle where channel 0 writes
//!   a predicate, channel 1 takes no predicate result. A kind-0 result
//!   (store, a write to RZ/PT) is retired through the channel without a
//!   write.
//! * Arbitration per channel: round robin over the six sources starting
//!   after the source that channel served last (`rr<w>_q`), so no source
//!   waits for more than 5 other results of its channel.
//! * Credits: the operand collectors dispatch to a unit only while
//!   `wb_room_<s>_o` (Moore) is high; every dispatch (`disp_<s>_i`, the
//!   handshake of `<s>_valid && <s>_ready`) takes a credit that the write
//!   of its result returns. So a queue never holds more than `D_s`
//!   entries; a pulse that finds its queue full anyway (a unit returning a
//!   result it was not given credit for) raises `err_o`, code 14, and is
//!   dropped. The S2R path (`fe`) is credited by the scheduler's S2R issue.
//! * Sizes: `NS` = `warp_schedulers` channels (1 or 2; with 1, `rf_wr1_*`
//!   and `ret1_*` stay 0); `D_s` from [`WbParams::of`]: enough entries for
//!   every result a unit can have in flight at its full rate, so credits
//!   never throttle a unit that streams into a free channel.
//! * Retire monitor: `ret<w>_valid_o`, `ret<w>_tag_o`, `ret<w>_mask_o`
//!   with the values on `rf_wr<w>_lo_o`/`_hi_o` (kind 1/2) or
//!   `pr_wr_val_o` (kind 3). Counter `cnt_wait_o`: cycles in which some
//!   queue head was not written (channel contention).

use crate::config::SmConfig;
use crate::hdl::logic::{bit_of, or_all, pack, pick};
use crate::hdl::small::SmallBuf;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Mem, Reg, Sig, S};
use crate::units::regfile::RfWr;

/// Sources, in index order.
pub const SOURCES: [&str; 6] = ["sp0", "sp1", "sfu", "dpu", "lsu", "fe"];
/// Error code of a queue overflow (docs/sm.md section 7).
pub const ERR_WB_OVERFLOW: u64 = crate::codes::ERR_WB_OVERFLOW;
/// Largest queue depth (3-bit pointers).
pub const MAX_DEPTH: usize = 8;

crate::ports! {
    /// Result pulses of the units, dispatch handshakes (credits).
    pub struct WbIn {
        sp0_res_valid_i: 1 @ Core,
        sp0_res_tag_i: 32 @ Core,
        sp0_res_mask_i: [1; 32] @ Core,
        sp0_res_data_i: [32; 32] @ Core,
        sp0_res_pred_i: [1; 32] @ Core,
        sp1_res_valid_i: 1 @ Core,
        sp1_res_tag_i: 32 @ Core,
        sp1_res_mask_i: [1; 32] @ Core,
        sp1_res_data_i: [32; 32] @ Core,
        sp1_res_pred_i: [1; 32] @ Core,
        sfu_res_valid_i: 1 @ Core,
        sfu_res_tag_i: 32 @ Core,
        sfu_res_mask_i: [1; 32] @ Core,
        sfu_res_data_i: [32; 32] @ Core,
        dpu_res_valid_i: 1 @ Core,
        dpu_res_tag_i: 32 @ Core,
        dpu_res_mask_i: [1; 32] @ Core,
        dpu_res_data_i: [64; 32] @ Core,
        dpu_res_pred_i: [1; 32] @ Core,
        lsu_res_valid_i: 1 @ Core,
        lsu_res_tag_i: 32 @ Core,
        lsu_res_mask_i: [1; 32] @ Core,
        lsu_res_data_i: [64; 32] @ Core,
        fe_res_valid_i: 1 @ Core,
        fe_res_tag_i: 32 @ Core,
        fe_res_mask_i: [1; 32] @ Core,
        fe_res_data_i: [32; 32] @ Core,
        disp_sp0_i: 1 @ Core,
        disp_sp1_i: 1 @ Core,
        disp_sfu_i: 1 @ Core,
        disp_dpu_i: 1 @ Core,
        disp_lsu_i: 1 @ Core,
        disp_fe_i: 1 @ Core,
    }
}

crate::ports! {
    /// Register and predicate writes, scoreboard release, credits, retire
    /// monitor.
    pub struct WbOut[NS] {
        rf_wr: [RfWr; 2] @ out,
        pr_wr_valid_o: 1 @ Core,
        pr_wr_warp_o: 6 @ Core,
        pr_wr_idx_o: 2 @ Core,
        pr_wr_mask_o: [1; 32] @ Core,
        pr_wr_val_o: [1; 32] @ Core,
        rel_valid_o: [1; NS] @ Core,
        rel_tag_o: [32; NS] @ Core,
        wb_room_sp0_o: 1 @ Core,
        wb_room_sp1_o: 1 @ Core,
        wb_room_sfu_o: 1 @ Core,
        wb_room_dpu_o: 1 @ Core,
        wb_room_lsu_o: 1 @ Core,
        wb_room_fe_o: 1 @ Core,
        ret0_valid_o: 1 @ Core,
        ret0_tag_o: 32 @ Core,
        ret0_mask_o: [1; 32] @ Core,
        ret1_valid_o: 1 @ Core,
        ret1_tag_o: 32 @ Core,
        ret1_mask_o: [1; 32] @ Core,
        cnt_wait_o: 32 @ Core,
        err_o: 1 @ Core,
        err_code_o: 8 @ Core,
        err_src_o: 3 @ Core,
    }
}

/// Queue depths per source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WbParams {
    /// `D_s` for sp0, sp1, sfu, dpu, lsu, fe.
    pub depth: [usize; 6],
}

impl WbParams {
    /// Depths for `cfg`: a unit accepting a warp instruction every `i`
    /// core cycles whose result comes `l` core cycles after the accept has
    /// at most `ceil(l / i)` results in flight; a credit comes back 2 core
    /// cycles after the result (written at the next edge, `wb_room_o` high
    /// the cycle after), so a full-rate stream needs `ceil((l + 2) / i)`
    /// entries (and at least `ceil(l / i) + 1`). `lsu_max_out` is the
    /// LSU's limit on outstanding instructions.
    pub fn of(cfg: &SmConfig, lsu_max_out: usize) -> WbParams {
        let ns = cfg.warp_schedulers.max(1) as usize;
        let lanes_grp = (cfg.sp_lanes as usize / ns).max(1);
        let div = |a: usize, b: usize| a.div_ceil(b.max(1));
        // SP group: streams 32/lanes hot cycles, `sp_latency` stages, +2 to
        // the core edge; accepts every (32/lanes)/2 core cycles.
        let sp_stream = 32 / lanes_grp;
        let sp_lat = div(sp_stream + cfg.sp_latency as usize + 2, 2);
        let credits = |lat: usize, int: usize| (div(lat, int) + 1).max(div(lat + 2, int));
        let sp = credits(sp_lat, div(sp_stream, 2));
        // SFU: FMUL co-issue every 2 core cycles is its fastest rate.
        let sfu_stream = 32 / (cfg.sfu_units.max(1) as usize);
        let sfu_lat = div(sfu_stream + cfg.sfu_latency as usize, 2);
        let sfu_int = if cfg.sfu_fmul { 2 } else { div(sfu_stream, 2) };
        let sfu = credits(sfu_lat, sfu_int);
        let dl = if cfg.fp64_units > 0 {
            cfg.fp64_units as usize
        } else if cfg.fp64_rate_divisor > 0 {
            cfg.sp_lanes as usize / cfg.fp64_rate_divisor as usize
        } else {
            32
        };
        let d_stream = 32 / dl.clamp(1, 32);
        let d_lat = div(d_stream + cfg.dpu_latency as usize + 2, 2);
        let dpu = credits(d_lat, div(d_stream, 2));
        let cap = |d: usize| d.clamp(2, MAX_DEPTH);
        WbParams {
            depth: [cap(sp), cap(sp), cap(sfu), cap(dpu), cap(lsu_max_out + 1), 2],
        }
    }
}

/// Lanes per data word of a queue memory (4 x 32 bits: the substrate's
/// memories are at most 128 bits wide).
const LANES_PER_WORD: usize = 4;
/// Data words per entry half (`lo` or `hi`).
const GROUPS: usize = 32 / LANES_PER_WORD;
/// Address bits of a queue memory (`MAX_DEPTH` words).
const QA: usize = 3;

/// One source's queue: the entries in memories (one word per entry, read
/// registered), the pulse that has just become the head in bypass
/// registers, the pointers and counts in registers.
#[derive(Debug, Clone)]
struct Queue {
    /// Tag (bits 31:0) and mask (63:32).
    meta: Mem<64, QA>,
    /// Predicate bits (sp0, sp1, dpu; the other sources have none).
    pred: Option<Mem<32, QA>>,
    /// Low words, lanes `4g..4g+3` in word `g` (lane `4g+k` in bits
    /// `32k+31:32k`).
    lo: Vec<Mem<128, QA>>,
    /// High words of the 64-bit sources (dpu, lsu), as `lo`.
    hi: Vec<Mem<128, QA>>,
    /// The head this cycle is the pulse that entered the queue at the last
    /// edge (held in the `byp_*` registers): a memory read of it would
    /// come a cycle late.
    byp: Reg<1>,
    byp_meta: Reg<64>,
    byp_pred: Option<Reg<32>>,
    byp_lo: Vec<Reg<128>>,
    byp_hi: Vec<Reg<128>>,
    head: Reg<3>,
    tail: Reg<3>,
    count: Reg<4>,
    cnt: Reg<4>,
    depth: usize,
}

/// The write-back block of `NS` channels.
#[derive(Debug, Clone)]
pub struct Wb<const NS: usize> {
    decl: Decl,
    p: WbParams,
    q: Vec<Queue>,
    rr: Vec<Reg<3>>,
    cnt_wait: Reg<32>,
    err: Reg<1>,
    err_src: Reg<3>,
}

/// Why a write-back block cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
#[error("write-back: {0}")]
pub struct WbError(pub String);

impl<const NS: usize> Wb<NS> {
    /// A write-back block with queue depths `p`.
    pub fn new(p: WbParams) -> Result<Self, WbError> {
        if !(1..=2).contains(&NS) {
            return Err(WbError(format!("{NS} channels (warp_schedulers) must be 1 or 2")));
        }
        if let Some(d) = p.depth.iter().find(|&&d| d == 0 || d > MAX_DEPTH) {
            return Err(WbError(format!("queue depth {d} must be 1..={MAX_DEPTH}")));
        }
        let mut d = Decl::new();
        let c = Domain::Core;
        let q = SOURCES
            .iter()
            .enumerate()
            .map(|(s, name)| {
                let wide = s == 3 || s == 4;
                let has_pred = s == 0 || s == 1 || s == 3;
                let words = |d: &mut Decl, half: &str| -> Vec<Mem<128, QA>> {
                    (0..GROUPS)
                        .map(|g| d.mem(&format!("q_{name}_{half}{g}"), c, 1, 1))
                        .collect()
                };
                let byp_words = |d: &mut Decl, half: &str| -> Vec<Reg<128>> {
                    (0..GROUPS)
                        .map(|g| d.reg_noreset(&format!("q_{name}_byp_{half}{g}"), c))
                        .collect()
                };
                Queue {
                    meta: d.mem(&format!("q_{name}_meta"), c, 1, 1),
                    pred: has_pred.then(|| d.mem(&format!("q_{name}_pred"), c, 1, 1)),
                    lo: words(&mut d, "lo"),
                    hi: if wide { words(&mut d, "hi") } else { vec![] },
                    byp: d.reg(&format!("q_{name}_byp"), c, 0),
                    byp_meta: d.reg_noreset(&format!("q_{name}_byp_meta"), c),
                    byp_pred: has_pred.then(|| d.reg_noreset(&format!("q_{name}_byp_pred"), c)),
                    byp_lo: byp_words(&mut d, "lo"),
                    byp_hi: if wide { byp_words(&mut d, "hi") } else { vec![] },
                    head: d.reg(&format!("q_{name}_head"), c, 0),
                    tail: d.reg(&format!("q_{name}_tail"), c, 0),
                    count: d.reg(&format!("q_{name}_count"), c, 0),
                    cnt: d.reg(&format!("credit_{name}"), c, 0),
                    depth: p.depth[s],
                }
            })
            .collect();
        let rr = (0..NS).map(|w| d.reg(&format!("rr{w}"), c, 0)).collect();
        Ok(Wb {
            cnt_wait: d.reg("cnt_wait", c, 0),
            err: d.reg("err", c, 0),
            err_src: d.reg("err_src", c, 0),
            decl: d,
            p,
            q,
            rr,
        })
    }
    /// The queue depths.
    pub fn params(&self) -> WbParams {
        self.p
    }
}

/// A result as the arbiter sees it (queue head or incoming pulse).
struct Res<C: Ctx> {
    valid: S<C, 1>,
    tag: S<C, 32>,
    mask: S<C, 32>,
    pred: S<C, 32>,
    lo: [S<C, 32>; 32],
    hi: [S<C, 32>; 32],
}

impl<C: Ctx> Clone for Res<C> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<C: Ctx> Copy for Res<C> {}

fn unpack<C: Ctx>(cx: &mut C, v: S<C, 32>) -> [S<C, 1>; 32] {
    std::array::from_fn(|l| bit_of(cx, v, l))
}

/// One source's inputs, gathered (`hi` zero for 32-bit sources).
#[derive(Clone, Copy)]
struct Pulse<C: Ctx> {
    valid: S<C, 1>,
    tag: S<C, 32>,
    mask: S<C, 32>,
    pred: S<C, 32>,
    lo: [S<C, 32>; 32],
    hi: [S<C, 32>; 32],
    disp: S<C, 1>,
}

/// [`Wb::heads`]: the outputs and the arbitration's result.
struct Heads<C: Ctx, const NS: usize> {
    out: WbOut<C::B, NS>,
    taken: [S<C, 1>; SOURCES.len()],
    valid: [S<C, 1>; SOURCES.len()],
    rr_d: SmallBuf<S<C, 3>, 2>,
}

impl<const NS: usize> Wb<NS> {
    /// Every output (Moore: the queue heads, the round robin, the credits
    /// and the counters) and what the next state needs of it: which queue
    /// heads won, which were valid, the round-robin pointers' next values.
    fn heads<C: Ctx>(&self, cx: &mut C) -> Heads<C, NS> {
        let z32 = cx.lit::<32>(0);
        let zl = [z32; 32];
        // Candidates: the queue heads (registers only, so every output is
        // Moore and the SM top can wire wb in its ring).
        let mut cand: SmallBuf<Res<C>, { SOURCES.len() }> = SmallBuf::new();
        for q in self.q.iter() {
            let count = cx.q(q.count);
            let byp = cx.q(q.byp);
            let meta = {
                let (b, m) = (cx.q(q.byp_meta), cx.mem_rdata(q.meta, 0));
                byp.mux(b, m)
            };
            let pred = match (q.pred, q.byp_pred) {
                (Some(m), Some(r)) => {
                    let (b, m) = (cx.q(r), cx.mem_rdata(m, 0));
                    byp.mux(b, m)
                }
                _ => z32,
            };
            let lanes = |cx: &mut C, mems: &[Mem<128, QA>], regs: &[Reg<128>]| -> [S<C, 32>; 32] {
                if mems.is_empty() {
                    return zl;
                }
                let words: SmallBuf<S<C, 128>, GROUPS> = mems
                    .iter()
                    .zip(regs)
                    .map(|(&m, &r)| {
                        let (b, m) = (cx.q(r), cx.mem_rdata(m, 0));
                        byp.mux(b, m)
                    })
                    .collect();
                std::array::from_fn(|l| {
                    let w = words[l / LANES_PER_WORD];
                    match l % LANES_PER_WORD {
                        0 => w.slice::<0, 32>(),
                        1 => w.slice::<32, 32>(),
                        2 => w.slice::<64, 32>(),
                        _ => w.slice::<96, 32>(),
                    }
                })
            };
            let lo = lanes(cx, &q.lo, &q.byp_lo);
            let hi = lanes(cx, &q.hi, &q.byp_hi);
            cand.push(Res {
                valid: count.any(),
                tag: meta.slice::<0, 32>(),
                mask: meta.slice::<32, 32>(),
                pred,
                lo,
                hi,
            });
        }
        // Per channel: round robin among the candidates of that channel.
        let n = SOURCES.len();
        let mut taken = [cx.lit::<1>(0); SOURCES.len()];
        let mut pr_taken = cx.lit::<1>(0);
        let mut chan_sel: SmallBuf<[S<C, 1>; SOURCES.len()], 2> = SmallBuf::new();
        let mut rr_d: SmallBuf<S<C, 3>, 2> = SmallBuf::new();
        for w in 0..NS {
            let wl = cx.lit::<1>(w as u64);
            let elig: SmallBuf<S<C, 1>, { SOURCES.len() }> = (0..n)
                .map(|s| {
                    let c = &cand[s];
                    let warp: S<C, 6> = c.tag.slice::<0, 6>();
                    let mine = if NS == 1 {
                        cx.lit::<1>(1)
                    } else {
                        warp.slice::<0, 1>().eq(wl)
                    };
                    let kind: S<C, 2> = c.tag.slice::<14, 2>();
                    let is_pred = kind.eq(cx.lit::<2>(3));
                    c.valid & mine & !taken[s] & !(is_pred & pr_taken)
                })
                .collect();
            let rr = cx.q(self.rr[w]);
            // Priority order rr+1, rr+2, ..., rr (mod 6): a source s wins
            // when eligible and no eligible source precedes it in that order.
            let mut sel = [cx.lit::<1>(0); SOURCES.len()];
            for start in 0..n {
                let is_start = rr.eq(cx.lit::<3>(((start + n - 1) % n) as u64));
                let mut before = cx.lit::<1>(0);
                for k in 0..n {
                    let s = (start + k) % n;
                    let win = is_start & elig[s] & !before;
                    sel[s] = sel[s] | win;
                    before = before | elig[s];
                }
            }
            let any = or_all(cx, &sel);
            let srcs: SmallBuf<S<C, 3>, { SOURCES.len() }> = (0..n).map(|s| cx.lit::<3>(s as u64)).collect();
            let won = pick(cx, &sel, &srcs);
            rr_d.push(any.mux(won, rr));
            for s in 0..n {
                taken[s] = taken[s] | sel[s];
            }
            let tags: SmallBuf<S<C, 32>, { SOURCES.len() }> = cand.iter().map(|c| c.tag).collect();
            let tag = pick(cx, &sel, &tags);
            let kind: S<C, 2> = tag.slice::<14, 2>();
            pr_taken = pr_taken | (any & kind.eq(cx.lit::<2>(3)));
            chan_sel.push(sel);
        }
        // Outputs per channel.
        let mut rf: SmallBuf<RfWr<C::B>, 2> = SmallBuf::new();
        let mut ret: SmallBuf<(S<C, 1>, S<C, 32>, [S<C, 1>; 32]), 2> = SmallBuf::new();
        let mut rel_valid = [cx.lit::<1>(0); NS];
        let mut rel_tag = [z32; NS];
        let (mut prv, mut prw, mut pri, mut prm, mut prval) =
            (cx.lit::<1>(0), cx.lit::<6>(0), cx.lit::<2>(0), z32, z32);
        for w in 0..2 {
            if w >= NS {
                let z1 = cx.lit::<1>(0);
                rf.push(RfWr {
                    valid: z1,
                    warp: cx.lit::<6>(0),
                    reg: cx.lit::<8>(0),
                    pair: z1,
                    mask: [z1; 32],
                    lo: zl,
                    hi: zl,
                });
                ret.push((z1, z32, [z1; 32]));
                continue;
            }
            let sel = &chan_sel[w];
            let any = or_all(cx, sel);
            let tags: SmallBuf<S<C, 32>, { SOURCES.len() }> = cand.iter().map(|c| c.tag).collect();
            let masks: SmallBuf<S<C, 32>, { SOURCES.len() }> = cand.iter().map(|c| c.mask).collect();
            let preds: SmallBuf<S<C, 32>, { SOURCES.len() }> = cand.iter().map(|c| c.pred).collect();
            let tag = pick(cx, sel, &tags);
            let mask = pick(cx, sel, &masks);
            let pred = pick(cx, sel, &preds);
            let lo: [S<C, 32>; 32] = std::array::from_fn(|l| {
                let v: SmallBuf<S<C, 32>, { SOURCES.len() }> = cand.iter().map(|c| c.lo[l]).collect();
                pick(cx, sel, &v)
            });
            let hi: [S<C, 32>; 32] = std::array::from_fn(|l| {
                let v: SmallBuf<S<C, 32>, { SOURCES.len() }> = cand.iter().map(|c| c.hi[l]).collect();
                pick(cx, sel, &v)
            });
            let kind: S<C, 2> = tag.slice::<14, 2>();
            let k1 = kind.eq(cx.lit::<2>(1));
            let k2 = kind.eq(cx.lit::<2>(2));
            let k3 = kind.eq(cx.lit::<2>(3));
            let warp: S<C, 6> = tag.slice::<0, 6>();
            let dst: S<C, 8> = tag.slice::<6, 8>();
            let mlanes = unpack(cx, mask);
            rf.push(RfWr {
                valid: any & (k1 | k2),
                warp,
                reg: dst,
                pair: k2,
                mask: mlanes,
                lo,
                hi,
            });
            ret.push((any, tag, mlanes));
            rel_valid[w] = any;
            rel_tag[w] = tag;
            let pw = any & k3;
            prv = prv | pw;
            prw = pw.mux(warp, prw);
            pri = pw.mux(dst.slice::<0, 2>(), pri);
            prm = pw.mux(mask, prm);
            prval = pw.mux(pred, prval);
        }
        // Credits (Moore): room while fewer than D_s results are owed.
        let mut room: SmallBuf<S<C, 1>, { SOURCES.len() }> = SmallBuf::new();
        for q in self.q.iter() {
            let credit = cx.q(q.cnt);
            room.push(credit.ult(cx.lit::<4>(q.depth as u64)));
        }
        let cw = cx.q(self.cnt_wait);
        let err = cx.q(self.err);
        let err_src = cx.q(self.err_src);
        let prm_l = unpack(cx, prm);
        let prv_l = unpack(cx, prval);
        let out = WbOut {
            rf_wr: [rf[0], rf[1]],
            pr_wr_valid_o: prv,
            pr_wr_warp_o: prw,
            pr_wr_idx_o: pri,
            pr_wr_mask_o: prm_l,
            pr_wr_val_o: prv_l,
            rel_valid_o: rel_valid,
            rel_tag_o: rel_tag,
            wb_room_sp0_o: room[0],
            wb_room_sp1_o: room[1],
            wb_room_sfu_o: room[2],
            wb_room_dpu_o: room[3],
            wb_room_lsu_o: room[4],
            wb_room_fe_o: room[5],
            ret0_valid_o: ret[0].0,
            ret0_tag_o: ret[0].1,
            ret0_mask_o: ret[0].2,
            ret1_valid_o: ret[1].0,
            ret1_tag_o: ret[1].1,
            ret1_mask_o: ret[1].2,
            cnt_wait_o: cw,
            err_o: err,
            err_code_o: err.mux(cx.lit::<8>(ERR_WB_OVERFLOW), cx.lit::<8>(0)),
            err_src_o: err_src,
        };
        Heads {
            out,
            taken,
            valid: std::array::from_fn(|s| cand[s].valid),
            rr_d,
        }
    }
}

impl<const NS: usize> Block for Wb<NS> {
    type In<B: Backend> = WbIn<B>;
    type Out<B: Backend> = WbOut<B, NS>;
    fn module_name(&self) -> String {
        let d = self.p.depth;
        format!("wb_s{NS}_d{}{}{}{}{}{}", d[0], d[1], d[2], d[3], d[4], d[5])
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    /// Pulses only on sources with credit, warps and kinds mixed, credits
    /// taken by dispatches the reference also sees.
    fn constrain(&self, r: u64, i: &mut WbIn<crate::hdl::Concrete>) {
        use crate::hdl::Bits;
        let fix = |t: Bits<32>, k: u64| {
            let t = t.to_u64();
            Bits::<32>::new((t & !0x3f) | (k % 48))
        };
        i.sp0_res_tag_i = fix(i.sp0_res_tag_i, r);
        i.sp1_res_tag_i = fix(i.sp1_res_tag_i, r >> 6);
        i.sfu_res_tag_i = fix(i.sfu_res_tag_i, r >> 12);
        i.dpu_res_tag_i = fix(i.dpu_res_tag_i, r >> 18);
        i.lsu_res_tag_i = fix(i.lsu_res_tag_i, r >> 24);
        i.fe_res_tag_i = fix(i.fe_res_tag_i, r >> 30);
    }
    fn moore<C: Ctx>(&self, cx: &mut C) -> Option<WbOut<C::B, NS>> {
        Some(self.heads(cx).out)
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &WbIn<C::B>) -> WbOut<C::B, NS> {
        let h = self.heads(cx);
        for w in 0..NS {
            cx.d(self.rr[w], h.rr_d[w]);
        }
        let z32 = cx.lit::<32>(0);
        let zl = [z32; 32];
        let lo64 = |v: &[S<C, 64>; 32]| -> [S<C, 32>; 32] { std::array::from_fn(|l| v[l].slice::<0, 32>()) };
        let hi64 = |v: &[S<C, 64>; 32]| -> [S<C, 32>; 32] { std::array::from_fn(|l| v[l].slice::<32, 32>()) };
        let m = |cx: &mut C, v: &[S<C, 1>; 32]| pack(cx, v);
        let pulses: [Pulse<C>; 6] = [
            Pulse {
                valid: i.sp0_res_valid_i,
                tag: i.sp0_res_tag_i,
                mask: m(cx, &i.sp0_res_mask_i),
                pred: m(cx, &i.sp0_res_pred_i),
                lo: i.sp0_res_data_i,
                hi: zl,
                disp: i.disp_sp0_i,
            },
            Pulse {
                valid: i.sp1_res_valid_i,
                tag: i.sp1_res_tag_i,
                mask: m(cx, &i.sp1_res_mask_i),
                pred: m(cx, &i.sp1_res_pred_i),
                lo: i.sp1_res_data_i,
                hi: zl,
                disp: i.disp_sp1_i,
            },
            Pulse {
                valid: i.sfu_res_valid_i,
                tag: i.sfu_res_tag_i,
                mask: m(cx, &i.sfu_res_mask_i),
                pred: z32,
                lo: i.sfu_res_data_i,
                hi: zl,
                disp: i.disp_sfu_i,
            },
            Pulse {
                valid: i.dpu_res_valid_i,
                tag: i.dpu_res_tag_i,
                mask: m(cx, &i.dpu_res_mask_i),
                pred: m(cx, &i.dpu_res_pred_i),
                lo: lo64(&i.dpu_res_data_i),
                hi: hi64(&i.dpu_res_data_i),
                disp: i.disp_dpu_i,
            },
            Pulse {
                valid: i.lsu_res_valid_i,
                tag: i.lsu_res_tag_i,
                mask: m(cx, &i.lsu_res_mask_i),
                pred: z32,
                lo: lo64(&i.lsu_res_data_i),
                hi: hi64(&i.lsu_res_data_i),
                disp: i.disp_lsu_i,
            },
            Pulse {
                valid: i.fe_res_valid_i,
                tag: i.fe_res_tag_i,
                mask: m(cx, &i.fe_res_mask_i),
                pred: z32,
                lo: i.fe_res_data_i,
                hi: zl,
                disp: i.disp_fe_i,
            },
        ];
        let one4 = cx.lit::<4>(1);
        // Queues: pop the head when it won, push a pulse that did not go
        // straight through; credits.
        let mut waited = cx.lit::<1>(0);
        let mut overflow = cx.lit::<1>(0);
        let mut ovf_src = cx.lit::<3>(0);
        for (s, q) in self.q.iter().enumerate() {
            let p = &pulses[s];
            let d = q.depth;
            let count = cx.q(q.count);
            let head = cx.q(q.head);
            let tail = cx.q(q.tail);
            let credit = cx.q(q.cnt);
            let won = h.taken[s];
            let pop = won;
            let push = p.valid;
            let full = count.eq(cx.lit::<4>(d as u64));
            let ovf = push & full & !pop;
            overflow = overflow | ovf;
            ovf_src = ovf.mux(cx.lit::<3>(s as u64), ovf_src);
            waited = waited | (h.valid[s] & !won);
            let push_ok = push & !ovf;
            let wrap = |cx: &mut C, v: S<C, 3>| {
                let last = v.eq(cx.lit::<3>(d as u64 - 1));
                last.mux(cx.lit::<3>(0), v + cx.lit::<3>(1))
            };
            let nh = wrap(cx, head);
            let nt = wrap(cx, tail);
            let head_d = pop.mux(nh, head);
            cx.d(q.head, head_d);
            cx.d(q.tail, push_ok.mux(nt, tail));
            let left = pop.mux(count - one4, count);
            cx.d(q.count, push_ok.mux(left + one4, left));
            // The pulse is written at the tail. The next cycle's head is
            // read at this edge (address `head_d`, on the read register
            // from the next cycle), unless it is the pulse itself (the
            // queue is empty after the pop): the memory gives the word as
            // it was before this edge's write, so the pulse goes to the
            // bypass registers and is the head for one cycle; from then
            // on the memory gives it.
            let to_head = push_ok & left.eq(cx.lit::<4>(0));
            cx.d(q.byp, to_head);
            let on = cx.lit::<1>(1);
            let meta = p.mask.concat::<32, 64>(p.tag);
            cx.mem_write(q.meta, 0, push_ok, tail, meta);
            let _ = cx.mem_read(q.meta, 0, on, head_d);
            let b = cx.q(q.byp_meta);
            cx.d(q.byp_meta, to_head.mux(meta, b));
            if let (Some(m), Some(r)) = (q.pred, q.byp_pred) {
                cx.mem_write(m, 0, push_ok, tail, p.pred);
                let _ = cx.mem_read(m, 0, on, head_d);
                let b = cx.q(r);
                cx.d(r, to_head.mux(p.pred, b));
            }
            let halves = [(&q.lo[..], &q.byp_lo[..], &p.lo), (&q.hi[..], &q.byp_hi[..], &p.hi)];
            for (mems, regs, v) in halves {
                for (g, (&m, &r)) in mems.iter().zip(regs).enumerate() {
                    let l = g * LANES_PER_WORD;
                    let word: S<C, 128> = v[l + 3]
                        .concat::<32, 64>(v[l + 2])
                        .concat::<32, 96>(v[l + 1])
                        .concat::<32, 128>(v[l]);
                    cx.mem_write(m, 0, push_ok, tail, word);
                    let _ = cx.mem_read(m, 0, on, head_d);
                    let b = cx.q(r);
                    cx.d(r, to_head.mux(word, b));
                }
            }
            let up = p.disp.mux(credit + one4, credit);
            let c2 = won.mux(up - one4, up);
            cx.d(q.cnt, c2);
        }
        let cw = h.out.cnt_wait_o;
        let one32 = cx.lit::<32>(1);
        cx.d(self.cnt_wait, waited.mux(cw + one32, cw));
        cx.d(self.err, overflow);
        cx.d(self.err_src, overflow.mux(ovf_src, h.out.err_src_o));
        h.out
    }
}

#[cfg(test)]
mod tests {
    use super::WbParams;
    use crate::testbenches::wb_tb::wb_random;

    #[test]
    fn random_matches_reference() {
        for seed in 0..3 {
            wb_random::<1>(
                seed,
                3_000,
                WbParams {
                    depth: [4, 2, 3, 2, 5, 2],
                },
            )
            .unwrap();
            wb_random::<2>(
                seed + 10,
                3_000,
                WbParams {
                    depth: [6, 6, 3, 7, 8, 2],
                },
            )
            .unwrap();
        }
    }

    #[test]
    fn depths_from_presets() {
        for name in ["tesla", "gt200", "fermi"] {
            let cfg = crate::config::SmConfig::preset(name).unwrap();
            let p = WbParams::of(&cfg, 4);
            assert!(p.depth.iter().all(|&d| (2..=8).contains(&d)), "{name}: {p:?}");
        }
    }
}
