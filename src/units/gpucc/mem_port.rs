//! `gpucc_mem_port`: the per-LSU part of [`super::mem::GpuccMem`]: two
//! line slots (the load buffer), a queue of the LSU's pending loads, the
//! write-combining buffer and the prefetch walk (`gpucc_mem_port_ra`: with
//! read-ahead).
//!
//! ```text
//!  req_*_i -+- load: hit a live slot -> queue {slot, word}     resp_*_o <- head of the queue,
//!           |        miss -> allocate a free slot (snd)                 its slot's data valid
//!           +- store: merge into the WC line (slot 0's words, wc_mask)
//!  pf_*_i  --> walk (hp_q, hline_q .. htgt_q) -------------------> want_pf_o, hint_line_o
//!  slot snd / wc_snd ---------------------------------------------> want_o, out_*_o
//!  take_i: the request out (snd -> pend; WC sent)   fill_*_i: slot data, pend -> valid
//!  join_i: the read to send joins read join_id_i (snd -> pend, no request)
//! ```
//!
//! * Clock domain: hot, every port and register.
//! * Slot `s` (0, 1): `tag<s>_q` (line), `v<s>_q` (data valid), `snd<s>_q`
//!   (allocated, line read not yet sent), `pend<s>_q` (sent, waiting for
//!   the fill), `ref<s>_q` (queued loads reading it), `aw<s>_q` (the id
//!   whose response fills it: its own `{port_i, s}` once sent, or the
//!   read it joined). A slot is free when
//!   no queued load reads it and no read of it is out; a load missing
//!   both live slots takes a free one (an empty one first). Read-ahead: a
//!   load of a buffered line whose other slot is free and does not hold
//!   the next line (below `lim_line_i`) allocates it for the next line
//!   (`ra_o`).
//! * Joins: `join_i` makes the read to send (the slot `out_slot_o` names)
//!   wait for the response of read `join_id_i` instead of being sent; a
//!   response of that id in the same cycle fills it at once. The centre
//!   decides (`slot_tag_o`, `slot_pend_o`, `slot_aw_o` of every port);
//!   `may_join_o` is low once a store was taken since the clear, so an
//!   LSU never joins a read older than its own stores.
//! * Prefetch walk: `hline_q` up to `htgt_q`, one line per `take_pf_i`
//!   while `hp_q`; a hint (`pf_line_i` = h, `pf_tgt_i` its end) less than
//!   64 lines ahead of the walk moves the end, one at most 64 lines behind
//!   it is ignored, any other restarts the walk at h.
//! * Queue: 8 loads `{slot, word}` in request order (`q<k>_q`, `hd_q`,
//!   `tl_q`, `cnt_q`); the head answers (`resp_valid_o`, its word) once
//!   its slot's data is valid: one word per cycle, the cycle after the
//!   load is taken when its line is buffered.
//! * Stores: two write-combining lines `b` (`wc_line<b>_q`, `wc<b>_mask<w>_q`
//!   (words written), `wc_v<b>_q`), data in slot `b`'s word registers;
//!   stores go to `wc_cur_q`. A store to another line marks the current
//!   one to be sent (`wc_snd<b>_q`) and goes to the other one if that is
//!   empty (else it waits), so a store stream goes on while a line write
//!   waits for the L1; a load (while stores are buffered), `flush_i` or
//!   `clear_i` mark both. The older marked line is sent first. Loads and stores of
//!   one LSU are kept in order: a load waits until the buffered stores are
//!   sent, a store until no load is queued or out (and invalidates the
//!   slots).
//! * `ready_o` is combinational from the request (`req_*_i`) and the state;
//!   everything else is Moore.

use crate::hdl::logic::index;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};

/// Loads queued per LSU.
pub const QDEPTH: usize = 8;
/// Lines a hint may lead the prefetch walk by and still extend it.
const WALK: u64 = 64;

crate::ports! {
    /// One LSU's request and hint, the fill and the grant.
    pub struct PortIn {
        req_valid_i: 1 @ Hot,
        req_we_i: 1 @ Hot,
        req_addr_i: 32 @ Hot,
        req_wdata_i: 32 @ Hot,
        pf_valid_i: 1 @ Hot,
        pf_line_i: 25 @ Hot,
        pf_tgt_i: 25 @ Hot,
        fill_valid_i: 1 @ Hot,
        fill_id_i: 5 @ Hot,
        fill_data_i: [32; 32] @ Hot,
        take_i: 1 @ Hot,
        join_i: 1 @ Hot,
        join_id_i: 5 @ Hot,
        port_i: 4 @ Hot,
        take_pf_i: 1 @ Hot,
        clear_i: 1 @ Hot,
        flush_i: 1 @ Hot,
        lim_line_i: 26 @ Hot,
    }
}
crate::ports! {
    /// Ready and response to the LSU, the request to send, state.
    pub struct PortOut {
        ready_o: 1 @ Hot,
        resp_valid_o: 1 @ Hot,
        resp_data_o: 32 @ Hot,
        want_o: 1 @ Hot,
        out_write_o: 1 @ Hot,
        out_slot_o: 1 @ Hot,
        out_line_o: 25 @ Hot,
        out_wmask_o: [1; 32] @ Hot,
        out_wdata_o: [32; 32] @ Hot,
        want_pf_o: 1 @ Hot,
        hint_line_o: 25 @ Hot,
        load_o: 1 @ Hot,
        hit_o: 1 @ Hot,
        store_o: 1 @ Hot,
        ra_o: 1 @ Hot,
        idle_o: 1 @ Hot,
        slot_tag_o: [25; 2] @ Hot,
        slot_pend_o: [1; 2] @ Hot,
        slot_aw_o: [5; 2] @ Hot,
        may_join_o: 1 @ Hot,
    }
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    tag: Reg<25>,
    v: Reg<1>,
    snd: Reg<1>,
    pend: Reg<1>,
    refc: Reg<4>,
    /// The id of the read whose response fills it (its own, or the one it
    /// joined).
    aw: Reg<5>,
}

/// The per-LSU buffers of `gpucc_mem`.
#[derive(Debug, Clone)]
pub struct GpuccMemPort {
    decl: Decl,
    slot: [Slot; 2],
    /// Slot `s` word `w` at `32 s + w`; slot 0's are also the WC data.
    words: Vec<Reg<32>>,
    q: Vec<Reg<6>>,
    hd: Reg<3>,
    tl: Reg<3>,
    cnt: Reg<4>,
    wc_v: [Reg<1>; 2],
    wc_snd: [Reg<1>; 2],
    wc_line: [Reg<25>; 2],
    wc_mask: [Vec<Reg<1>>; 2],
    wc_cur: Reg<1>,
    read_ahead: bool,
    /// The prefetch walk: next line `hline_q` (pending while `hp_q`, up to
    /// `htgt_q`; `hv_q` once a hint came since the clear).
    hp: Reg<1>,
    hline: Reg<25>,
    htgt: Reg<25>,
    hv: Reg<1>,
    /// A store was taken since the clear: the port joins no other read.
    stored: Reg<1>,
}

impl GpuccMemPort {
    /// The port, reading the next line ahead when `read_ahead`.
    pub fn new(read_ahead: bool) -> Self {
        let mut d = Decl::new();
        let h = Domain::Hot;
        let slot = std::array::from_fn(|s| Slot {
            tag: d.reg(&format!("tag{s}"), h, 0),
            v: d.reg(&format!("v{s}"), h, 0),
            snd: d.reg(&format!("snd{s}"), h, 0),
            pend: d.reg(&format!("pend{s}"), h, 0),
            refc: d.reg(&format!("ref{s}"), h, 0),
            aw: d.reg(&format!("aw{s}"), h, 0),
        });
        let words = (0..64).map(|k| d.reg_noreset(&format!("w{k}"), h)).collect();
        let q = (0..QDEPTH).map(|k| d.reg_noreset(&format!("q{k}"), h)).collect();
        GpuccMemPort {
            slot,
            words,
            q,
            hd: d.reg("hd", h, 0),
            tl: d.reg("tl", h, 0),
            cnt: d.reg("cnt", h, 0),
            wc_v: std::array::from_fn(|b| d.reg(&format!("wc_v{b}"), h, 0)),
            wc_snd: std::array::from_fn(|b| d.reg(&format!("wc_snd{b}"), h, 0)),
            wc_line: std::array::from_fn(|b| d.reg(&format!("wc_line{b}"), h, 0)),
            wc_mask: std::array::from_fn(|b| (0..32).map(|k| d.reg(&format!("wc{b}_mask{k}"), h, 0)).collect()),
            wc_cur: d.reg("wc_cur", h, 0),
            read_ahead,
            hp: d.reg("hp", h, 0),
            hline: d.reg("hline", h, 0),
            htgt: d.reg("htgt", h, 0),
            hv: d.reg("hv", h, 0),
            stored: d.reg("stored", h, 0),
            decl: d,
        }
    }
}

impl Block for GpuccMemPort {
    type In<B: Backend> = PortIn<B>;
    type Out<B: Backend> = PortOut<B>;

    fn module_name(&self) -> String {
        if self.read_ahead {
            "gpucc_mem_port_ra".into()
        } else {
            "gpucc_mem_port".into()
        }
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &PortIn<C::B>) -> PortOut<C::B> {
        let z1 = cx.lit::<1>(0);
        let one = cx.lit::<1>(1);
        // Per slot: tag, valid, to send, pending, readers.
        type SlotQ<C> = (S<C, 25>, S<C, 1>, S<C, 1>, S<C, 1>, S<C, 4>);
        let st: [SlotQ<C>; 2] = std::array::from_fn(|s| {
            let sl = self.slot[s];
            (cx.q(sl.tag), cx.q(sl.v), cx.q(sl.snd), cx.q(sl.pend), cx.q(sl.refc))
        });
        let cnt = cx.q(self.cnt);
        let hd = cx.q(self.hd);
        let tl = cx.q(self.tl);
        let wc_v = self.wc_v.map(|r| cx.q(r));
        let wc_snd = self.wc_snd.map(|r| cx.q(r));
        let wc_line = self.wc_line.map(|r| cx.q(r));
        let cur = cx.q(self.wc_cur);
        let wc_any = wc_v[0] | wc_v[1];
        let z4 = cx.lit::<4>(0);
        // The request.
        let line: S<C, 25> = i.req_addr_i.slice::<7, 25>();
        let word: S<C, 5> = i.req_addr_i.slice::<2, 5>();
        let live = |k: usize| st[k].1 | st[k].2 | st[k].3;
        let hit0 = live(0) & st[0].0.eq(line);
        let hit1 = live(1) & st[1].0.eq(line);
        let hit = hit0 | hit1;
        let free = |k: usize| st[k].4.eq(z4) & !st[k].2 & !st[k].3;
        let (free0, free1) = (free(0), free(1));
        // Victim: an empty free slot first, else slot 0 if free, else 1.
        let alloc_slot = !(free0 & !st[0].1) & ((free1 & !st[1].1) | !free0);
        let qfull = cnt.eq(cx.lit::<4>(QDEPTH as u64));
        let loads_busy = !cnt.eq(z4) | st[0].2 | st[0].3 | st[1].2 | st[1].3;
        let is_ld = i.req_valid_i & !i.req_we_i;
        let is_st = i.req_valid_i & i.req_we_i;
        let ld_ok = is_ld & !wc_any & !qfull & (hit | free0 | free1);
        let c_v = cur.mux(wc_v[1], wc_v[0]);
        let c_snd = cur.mux(wc_snd[1], wc_snd[0]);
        let c_line = cur.mux(wc_line[1], wc_line[0]);
        let o_v = cur.mux(wc_v[0], wc_v[1]);
        let same_line = c_line.eq(line);
        let st_cur = !c_snd & (!c_v | same_line);
        let st_sw = !st_cur & !o_v;
        let st_ok = is_st & !loads_busy & (st_cur | st_sw);
        let ready = cx.name("ready", ld_ok | st_ok);
        let alloc = ld_ok & !hit;
        let use_slot = hit0.mux(z1, hit1.mux(one, alloc_slot));
        // Read-ahead: a load of a buffered line whose other slot is free and
        // does not hold the next line reads that line into it (not past the
        // memory: `lim_line_i`).
        let nline = line + cx.lit::<25>(1);
        let ra = if self.read_ahead {
            let n_in = (line.zext::<26>() + cx.lit::<26>(1)).ult(i.lim_line_i);
            let ra_free = hit0.mux(free1, free0);
            let o_has = hit0.mux(live(1) & st[1].0.eq(nline), live(0) & st[0].0.eq(nline));
            cx.name("ra", ld_ok & hit & ra_free & !o_has & n_in)
        } else {
            z1
        };
        // The read-ahead's slot: the other one (1 when the hit is in slot 0).
        let ra_slot = hit0;
        // The queue head.
        let qv: Vec<S<C, 6>> = self.q.iter().map(|&r| cx.q(r)).collect();
        let head = index(cx, &qv, hd);
        let h_slot: S<C, 1> = head.slice::<5, 1>();
        let h_valid = h_slot.mux(st[1].1, st[0].1);
        let resp = cx.name("resp", !cnt.eq(z4) & h_valid);
        let wv: Vec<S<C, 32>> = self.words.iter().map(|&r| cx.q(r)).collect();
        let rdata = cx.select(resp, |cx| index(cx, &wv, head), |cx| cx.lit::<32>(0));
        // Queue update.
        let qe: S<C, 6> = use_slot.concat::<5, 6>(word);
        for (k, &r) in self.q.iter().enumerate() {
            let at = tl.eq(cx.lit::<3>(k as u64));
            cx.d_en(r, ld_ok & at, |_| qe);
        }
        let one3 = cx.lit::<3>(1);
        cx.d(self.tl, ld_ok.mux(tl + one3, tl));
        cx.d(self.hd, resp.mux(hd + one3, hd));
        let one4 = cx.lit::<4>(1);
        let inc4 = ld_ok.mux(one4, z4);
        let dec4 = resp.mux(one4, z4);
        cx.d(self.cnt, cnt + inc4 - dec4);
        // The main request: slot 0's read, slot 1's, the WC line.
        let snd_any = st[0].2 | st[1].2;
        let sb = cur.mux(!wc_snd[0], wc_snd[1]);
        let wc_out_line = sb.mux(wc_line[1], wc_line[0]);
        let want = snd_any | wc_snd[0] | wc_snd[1];
        let out_slot = !st[0].2;
        let out_line = st[0].2.mux(st[0].0, st[1].2.mux(st[1].0, wc_out_line));
        let take_rd0 = i.take_i & st[0].2;
        let take_rd1 = i.take_i & !st[0].2 & st[1].2;
        // A join: the read to send is not sent; the slot waits for the
        // response of the read `join_id_i` (another port's, of the same
        // line) instead.
        let join_rd = [i.join_i & st[0].2, i.join_i & !st[0].2 & st[1].2];
        let aws = self.slot.map(|sl| cx.q(sl.aw));
        let fills: [S<C, 1>; 2] = std::array::from_fn(|s| {
            let mine = st[s].3 & aws[s].eq(i.fill_id_i);
            let now = join_rd[s] & i.join_id_i.eq(i.fill_id_i);
            i.fill_valid_i & (mine | now)
        });
        let take_wc = i.take_i & !snd_any;
        let take_b = [take_wc & !sb, take_wc & sb];
        let db = st_sw.mux(!cur, cur);
        let st_b = [st_ok & !db, st_ok & db];
        // Slots.
        let clear = i.clear_i;
        for (s, &(_, v, snd, pend, refc)) in st.iter().enumerate() {
            let sl = self.slot[s];
            let me = if s == 0 { !use_slot } else { use_slot };
            let ra_me = ra & if s == 0 { !ra_slot } else { ra_slot };
            let al = (alloc & me) | ra_me;
            let fill = fills[s];
            cx.d_en(sl.tag, al, |_| ra_me.mux(nline, line));
            // Stores and the clear invalidate; a fill validates.
            cx.d(sl.v, fill | (v & !al & !st_ok & !clear));
            let take = if s == 0 { take_rd0 } else { take_rd1 };
            let jn = join_rd[s];
            cx.d(sl.snd, al | (snd & !take & !jn));
            cx.d(sl.pend, (take | jn | pend) & !fill);
            let own: S<C, 5> = i.port_i.concat::<1, 5>(cx.lit::<1>(s as u64));
            cx.d(sl.aw, take.mux(own, jn.mux(i.join_id_i, aws[s])));
            let inc = (ld_ok & me).mux(one4, z4);
            let dec = (resp & if s == 0 { !h_slot } else { h_slot }).mux(one4, z4);
            cx.d(sl.refc, refc + inc - dec);
        }
        for (k, &r) in self.words.iter().enumerate() {
            let (b, w) = (k / 32, k % 32);
            let st_here = st_b[b] & word.eq(cx.lit::<5>(w as u64));
            cx.d_en(r, fills[b] | st_here, |_| fills[b].mux(i.fill_data_i[w], i.req_wdata_i));
        }
        let other_line = is_st & c_v & !same_line;
        let ld_waits = is_ld & wc_any;
        let masks: [Vec<S<C, 1>>; 2] = std::array::from_fn(|b| self.wc_mask[b].iter().map(|&r| cx.q(r)).collect());
        for b in 0..2 {
            for (w, &r) in self.wc_mask[b].iter().enumerate() {
                let st_here = st_b[b] & word.eq(cx.lit::<5>(w as u64));
                cx.d(r, st_here | (masks[b][w] & !take_b[b]));
            }
            cx.d_en(self.wc_line[b], st_b[b], |_| line);
            cx.d(self.wc_v[b], st_b[b] | (wc_v[b] & !take_b[b]));
            let is_cur = if b == 0 { !cur } else { cur };
            let mark = wc_v[b] & ((is_cur & other_line) | ld_waits | i.flush_i | clear);
            cx.d(self.wc_snd[b], !take_b[b] & (wc_snd[b] | mark));
        }
        cx.d(self.wc_cur, (st_ok & st_sw).mux(!cur, cur));
        // The prefetch walk: every line from `hline_q` up to the last hint's
        // is prefetched in turn (sent, or dropped by `take_pf_i`), so a hint
        // that comes while the port waits is not lost. A hint ahead of the
        // walk (by less than WALK lines) moves its end; one a little behind
        // it is old news; any other restarts the walk at the hinted line.
        let hp = cx.q(self.hp);
        let hline = cx.q(self.hline);
        let htgt = cx.q(self.htgt);
        let hv = cx.q(self.hv);
        let step = i.take_pf_i & hp;
        let p_cur = step.mux(hline + cx.lit::<25>(1), hline);
        let hp_cur = step.mux(!hline.eq(htgt), hp);
        let t26 = i.pf_tgt_i.zext::<26>();
        let p26 = p_cur.zext::<26>();
        let walk = cx.lit::<26>(WALK);
        let near = hv & !t26.ult(p26) & (t26 - p26).ult(walk);
        let behind = hv & t26.ult(p26) & !walk.ult(p26 - t26);
        let new_hint = i.pf_valid_i & !clear;
        let restart = new_hint & !near & !behind;
        cx.d(self.hp, !clear & ((new_hint & !behind) | hp_cur));
        cx.d(self.hline, restart.mux(i.pf_line_i, p_cur));
        cx.d_en(self.htgt, new_hint & !behind, |_| i.pf_tgt_i);
        cx.d(self.hv, !clear & (hv | new_hint));
        let stored = cx.q(self.stored);
        cx.d(self.stored, !clear & (stored | st_ok));
        let idle = !wc_any & !hp & !loads_busy;
        let wr = want & !snd_any;
        let wmask: [S<C, 1>; 32] = std::array::from_fn(|w| wr & sb.mux(masks[1][w], masks[0][w]));
        let z32 = cx.lit::<32>(0);
        let wdata: [S<C, 32>; 32] = std::array::from_fn(|w| wmask[w].mux(sb.mux(wv[32 + w], wv[w]), z32));
        PortOut {
            ready_o: ready,
            resp_valid_o: resp,
            resp_data_o: rdata,
            want_o: want,
            out_write_o: wr,
            out_slot_o: out_slot,
            out_line_o: out_line,
            out_wmask_o: wmask,
            out_wdata_o: wdata,
            want_pf_o: hp,
            hint_line_o: hline,
            load_o: ld_ok,
            hit_o: ld_ok & hit,
            store_o: st_ok,
            ra_o: ra,
            idle_o: idle,
            slot_tag_o: [st[0].0, st[1].0],
            slot_pend_o: [st[0].3, st[1].3],
            slot_aw_o: aws,
            may_join_o: !stored,
        }
    }
}
