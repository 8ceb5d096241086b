//! Unit tests of the L1 (`super`): geometry errors, directed merging and
//! store-ordering cases, random runs against `testbenches/l1_ref.rs`.

use super::L1;
use crate::testbenches::l1_tb::L1Bench;

/// A 300-instruction bench of `slots` load slots on `pool` lines (0: the
/// default), the reference at the block's latency.
fn bench(seed: u64, ways: usize, latency: usize, mem_latency: u32, ooo: bool, slots: usize, pool: u32) -> L1Bench {
    L1Bench {
        seed,
        ways,
        latency,
        ref_latency: latency,
        mem_latency,
        ooo,
        instrs: 300,
        slots,
        pool,
        refresh: false,
        ref_refresh: false,
    }
}

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
    for (seed, ways, h, lat, ooo, slots) in [(7, 2, 2, 12, true, 8), (8, 4, 4, 30, false, 4), (9, 1, 1, 5, true, 2)] {
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
    crate::hdl::Sim::new(L1::<3, 1, 9>::new(2, 2, 2).unwrap()).unwrap();
    crate::hdl::Sim::new(L1::<3, 2, 10>::new(2, 1, 2).unwrap()).unwrap();
}

/// Two and three requesters (the LSU and two with fill-only reads)
/// against the reference, the image, per-requester order at memory and
/// round-robin fairness.
#[test]
fn several_requesters_match_reference_and_memory() {
    use crate::testbenches::l1_tb::l1_bench;
    let check = |s: &crate::testbenches::l1_tb::L1Stats, n: usize| {
        assert!(s.hits > 50 && s.misses > 50 && s.checked > 300, "{s:?}");
        assert!(s.fills_to_memory > 20 && s.contended > 100, "{s:?}");
        assert!(s.taken.iter().all(|&t| t > 100) && s.taken.len() == n, "{s:?}");
        assert!(s.max_wait >= 1 && s.max_wait < n as u32, "{s:?}");
    };
    for (seed, ways, h, lat, ooo, slots) in [(11, 2, 1, 3, false, 2), (12, 4, 4, 20, true, 8), (13, 1, 2, 7, true, 4)] {
        let s = l1_bench::<3, 1, 9>(bench(seed, ways, h, lat, ooo, slots, 0)).unwrap();
        eprintln!("l1 two requesters seed {seed}: {s:?}");
        check(&s, 2);
    }
    for (seed, ways, h, lat, ooo, slots) in [(21, 2, 3, 9, true, 4), (22, 8, 1, 15, false, 2)] {
        let s = l1_bench::<3, 2, 10>(bench(seed, ways, h, lat, ooo, slots, 0)).unwrap();
        eprintln!("l1 three requesters seed {seed}: {s:?}");
        check(&s, 3);
    }
    let mut wrong = bench(14, 2, 3, 5, false, 2, 0);
    wrong.ref_latency = 4;
    let e = l1_bench::<3, 1, 9>(wrong).unwrap_err();
    assert!(e.contains("l1 cycle"), "{e}");
}

/// Directed: requester 1's fill-only read of a line gets no response
/// and fills it; requester 0's read of it then hits (no memory
/// request) with the memory's words; a second fill of it does nothing.
#[test]
fn a_fill_returns_nothing_and_makes_a_hit() {
    use crate::hdl::sim::zero_ports;
    use crate::hdl::{Bits, Concrete, Sim};
    let mut sim = Sim::new(L1::<3, 1, 9>::new(2, 2, 2).unwrap()).unwrap();
    let line = 5u64;
    let word = |k: usize| 0x1000 + k as u64;
    let read = |r: usize, fill: bool| {
        let mut i: super::L1In<Concrete, 1, 9> = zero_ports();
        let q = if r == 0 { &mut i.lsu_req } else { &mut i.rq[0] };
        q.valid = Bits::new(1);
        q.id = Bits::new(3);
        q.addr = Bits::new(line << 7);
        q.size = Bits::new(2);
        i.rq_fill[0].fill = Bits::new(fill as u64);
        i.gm_req_ready_i = Bits::new(1);
        i
    };
    let idle = || {
        let mut i: super::L1In<Concrete, 1, 9> = zero_ports();
        i.gm_req_ready_i = Bits::new(1);
        i
    };
    // The fill: taken, then out to memory with id {1, 3}.
    let o = sim.step_core(&read(1, true));
    assert_eq!(o.rq_ready[0].ready.to_u64(), 1);
    let mut sent = None;
    for c in 0..4 {
        let o = sim.step_core(&idle());
        if o.gm_req.valid.to_u64() == 1 {
            sent = Some((c, o.gm_req.id.to_u64(), o.gm_req.addr.to_u64()));
        }
    }
    assert_eq!(sent.map(|s| (s.1, s.2)), Some((1 << 8 | 3, line << 7)), "{sent:?}");
    // Its response fills and goes to no requester.
    let mut i = idle();
    i.gm_resp.valid = Bits::new(1);
    i.gm_resp.id = Bits::new(1 << 8 | 3);
    for k in 0..32 {
        i.gm_resp.rdata[k] = Bits::new(word(k));
    }
    let o = sim.step_core(&i);
    assert_eq!((o.lsu_resp.valid.to_u64(), o.rq_resp[0].valid.to_u64()), (0, 0));
    // A second fill of the line hits and does nothing.
    let o = sim.step_core(&read(1, true));
    assert_eq!(o.rq_ready[0].ready.to_u64(), 1);
    for _ in 0..4 {
        let o = sim.step_core(&idle());
        assert_eq!(
            o.gm_req.valid.to_u64() + o.lsu_resp.valid.to_u64() + o.rq_resp[0].valid.to_u64(),
            0
        );
    }
    // Requester 0's read hits: H + 1 cycles, the memory's words.
    let o = sim.step_core(&read(0, false));
    assert_eq!(o.lsu_req_ready_o.to_u64(), 1);
    let hits0 = o.cnt_l1_hit_o.to_u64();
    let mut got = None;
    for c in 1..6 {
        let o = sim.step_core(&idle());
        assert_eq!(o.gm_req.valid.to_u64(), 0);
        if o.lsu_resp.valid.to_u64() == 1 {
            got = Some((
                c,
                o.lsu_resp.id.to_u64(),
                o.lsu_resp.rdata[7].to_u64(),
                o.rq_resp[0].valid.to_u64(),
            ));
        }
    }
    assert_eq!(got, Some((3, 3, word(7), 0)));
    assert_eq!(sim.step_core(&idle()).cnt_l1_hit_o.to_u64(), hits0 + 1);
    assert_eq!(sim.step_core(&idle()).cnt_l1_miss_o.to_u64(), 1);
}

/// A directed driver: requests presented in order (each held until
/// taken), a memory of `lat` core cycles that performs at acceptance;
/// it records what was sent, answered and taken, by cycle.
struct Directed {
    sim: crate::hdl::Sim<L1<7>>,
    mem: std::collections::HashMap<u64, [u64; 32]>,
    flight: std::collections::VecDeque<(u64, u64, [u64; 32])>,
    lat: u64,
    now: u64,
    /// Memory requests taken: (cycle, id, write, line).
    sent: Vec<(u64, u64, bool, u64)>,
    /// Responses: (cycle, id, word 0..32).
    got: Vec<(u64, u64, [u64; 32])>,
    /// Requests taken: (cycle, id).
    taken: Vec<(u64, u64)>,
}

impl Directed {
    fn new(lat: u64) -> Directed {
        Directed::with_refresh(lat, false)
    }
    /// With the refresh mode when `refresh`: requests of ids 32 and above
    /// are sent with `lsu_req_refresh_i` (in either mode).
    fn with_refresh(lat: u64, refresh: bool) -> Directed {
        Directed {
            sim: crate::hdl::Sim::new(L1::<7>::new_refresh(4, 4, 2, refresh).unwrap()).unwrap(),
            mem: Default::default(),
            flight: Default::default(),
            lat,
            now: 0,
            sent: vec![],
            got: vec![],
            taken: vec![],
        }
    }
    fn line(&self, l: u64) -> [u64; 32] {
        self.mem
            .get(&l)
            .copied()
            .unwrap_or(std::array::from_fn(|k| l << 8 | k as u64))
    }
    /// One core cycle with request `q` (id, write, line, word value);
    /// true when it was taken.
    fn step(&mut self, q: Option<(u64, bool, u64, u64)>) -> bool {
        use crate::hdl::sim::zero_ports;
        use crate::hdl::{Bits, Concrete};
        let mut i: super::L1In<Concrete, 0, 8> = zero_ports();
        i.gm_req_ready_i = Bits::new(1);
        if let Some((id, write, line, v)) = q {
            i.lsu_req.valid = Bits::new(1);
            i.lsu_req.id = Bits::new(id);
            i.lsu_req_refresh_i = Bits::new((id >= 32) as u64);
            i.lsu_req.write = Bits::new(write as u64);
            i.lsu_req.addr = Bits::new(line << 7);
            i.lsu_req.size = Bits::new(2);
            for k in 0..32 {
                i.lsu_req.wmask[k] = Bits::new(write as u64);
                i.lsu_req.wdata[k] = Bits::new(v + k as u64);
            }
        }
        let due = self.flight.front().is_some_and(|f| f.0 <= self.now);
        if due {
            let (_, id, words) = self.flight[0];
            i.gm_resp.valid = Bits::new(1);
            i.gm_resp.id = Bits::new(id);
            for (d, w) in i.gm_resp.rdata.iter_mut().zip(words) {
                *d = Bits::new(w);
            }
        }
        let o = self.sim.step_core(&i);
        if due {
            self.flight.pop_front();
        }
        if o.lsu_resp.valid.to_u64() == 1 {
            let w = std::array::from_fn(|k| o.lsu_resp.rdata[k].to_u64());
            self.got.push((self.now, o.lsu_resp.id.to_u64(), w));
        }
        if o.gm_req.valid.to_u64() == 1 {
            let (id, write, line) = (
                o.gm_req.id.to_u64(),
                o.gm_req.write.to_u64() == 1,
                o.gm_req.addr.to_u64() >> 7,
            );
            self.sent.push((self.now, id, write, line));
            if write {
                let w = std::array::from_fn(|k| o.gm_req.wdata[k].to_u64());
                self.mem.insert(line, w);
            } else {
                let w = self.line(line);
                self.flight.push_back((self.now + self.lat, id, w));
            }
        }
        let taken = q.is_some() && o.lsu_req_ready_o.to_u64() == 1;
        if let (true, Some(q)) = (taken, q) {
            self.taken.push((self.now, q.0));
        }
        self.now += 1;
        taken
    }
    /// Present `reqs` in order, then run idle until `cycles` have passed.
    fn run(&mut self, reqs: &[(u64, bool, u64, u64)], cycles: u64) {
        let mut k = 0;
        while self.now < cycles {
            let q = reqs.get(k).copied();
            if self.step(q) {
                k += 1;
            }
        }
        assert_eq!(k, reqs.len(), "every request taken");
    }
}

/// Directed: two reads of one line back to back, memory latency 50:
/// one memory line read, both answered once with the line, the second
/// counted as a miss that merged.
#[test]
fn two_reads_of_a_line_merge() {
    let mut d = Directed::new(50);
    let line = 9;
    let old = d.line(line);
    d.run(&[(1, false, line, 0), (2, false, line, 0)], 120);
    assert_eq!(d.sent.len(), 1, "one memory line read: {:?}", d.sent);
    assert_eq!((d.sent[0].1, d.sent[0].3), (1, line));
    let mut ids: Vec<u64> = d.got.iter().map(|g| g.1).collect();
    ids.sort();
    assert_eq!(ids, vec![1, 2], "each read answered once");
    assert!(d.got.iter().all(|g| g.2 == old), "the line's words");
    // The primary answers when its response arrives; the secondary
    // replays through the H = 4 stages and hits: 1 + H + 1 later.
    let at = |id| d.got.iter().find(|g| g.1 == id).unwrap().0;
    let resp = d.sent[0].0 + 50;
    assert_eq!((at(1), at(2)), (resp, resp + 6));
    let (h, m) = {
        use crate::hdl::sim::zero_ports;
        let i: super::L1In<crate::hdl::Concrete, 0, 8> = zero_ports();
        let o = d.sim.step_core(&i);
        (o.cnt_l1_hit_o.to_u64(), o.cnt_l1_miss_o.to_u64())
    };
    assert_eq!((h, m), (0, 2), "two misses (one merged), the replay not counted");
}

/// Directed: a store to the line arrives while the merged read waits:
/// the store waits until the merged read is answered (with the old
/// words), then goes to memory; a read after it misses and gets the
/// stored words.
#[test]
fn a_store_waits_for_the_merged_read() {
    let mut d = Directed::new(50);
    let line = 9;
    let old = d.line(line);
    d.run(
        &[
            (1, false, line, 0),
            (2, false, line, 0),
            (3, true, line, 0x5000),
            (4, false, line, 0),
        ],
        200,
    );
    let new: [u64; 32] = std::array::from_fn(|k| 0x5000 + k as u64);
    let at = |id| d.got.iter().find(|g| g.1 == id).copied().unwrap();
    let store = d.sent.iter().find(|s| s.2).copied().unwrap();
    assert_eq!(store.1, 3);
    // The store was taken only after the merged read's answer.
    let t3 = d.taken.iter().find(|t| t.1 == 3).unwrap().0;
    assert!(
        t3 >= at(2).0,
        "store taken at {t3}, merged read answered at {}",
        at(2).0
    );
    assert!(t3 > d.taken[1].0 + 50, "the store waited for the fill");
    assert_eq!(
        (at(1).2, at(2).2),
        (old, old),
        "reads taken before the store see the old line"
    );
    assert_eq!(at(4).2, new, "the read after the store sees it");
    // Memory: the primary's line read, the store, the later read.
    let kinds: Vec<(u64, bool)> = d.sent.iter().map(|s| (s.1, s.2)).collect();
    assert_eq!(kinds, vec![(1, false), (3, true), (4, false)]);
    assert_eq!(d.got.len(), 3);
}

/// Merging under random traffic: many reads of few lines with a long
/// memory latency, one to three requesters, against the reference;
/// the bench checks that no line read goes to memory while one of its
/// line that will fill is out, every id answered once, and each read's
/// words are its line as taken. Direct-mapped and 2-way shapes evict
/// lines while merged reads wait, so replays miss again.
#[test]
fn merging_under_random_traffic() {
    use crate::testbenches::l1_tb::l1_bench;
    let mut replay_misses = 0;
    for (seed, ways, h, lat, ooo, slots, pool) in [
        (31, 2, 4, 60, true, 8, 4),
        (32, 1, 1, 100, false, 8, 12),
        (33, 4, 2, 50, true, 4, 6),
        (34, 1, 3, 80, true, 8, 24),
    ] {
        let s = l1_bench::<3, 0, 8>(bench(seed, ways, h, lat, ooo, slots, pool)).unwrap();
        eprintln!("l1 merging seed {seed}: {s:?}");
        assert!(s.merges > 100 && s.checked > 500 && s.line_reads > 30, "{s:?}");
        replay_misses += s.replay_misses;
    }
    assert!(replay_misses > 0, "some merged read missed again on replay");
    for (seed, ways, h, lat, ooo, slots, pool) in [(35, 2, 3, 60, true, 4, 6), (36, 1, 1, 90, false, 8, 10)] {
        let s = l1_bench::<3, 1, 9>(bench(seed, ways, h, lat, ooo, slots, pool)).unwrap();
        eprintln!("l1 merging two requesters seed {seed}: {s:?}");
        assert!(s.merges > 100 && s.fills_to_memory > 0, "{s:?}");
    }
    let s = l1_bench::<3, 2, 10>(bench(37, 2, 2, 70, true, 4, 8)).unwrap();
    eprintln!("l1 merging three requesters: {s:?}");
    assert!(s.merges > 100, "{s:?}");
    let s = l1_bench::<7, 0, 8>(bench(38, 4, 4, 300, true, 8, 40)).unwrap();
    eprintln!("l1 merging fermi shape: {s:?}");
    assert!(s.merges > 100, "{s:?}");
}

/// Directed, refresh mode: four lines fill the four ways of set 0, a
/// refreshing read hits the oldest (line 0), so the fifth line's fill
/// evicts line 32 instead; a plain hit (line 32 read again first) does not
/// protect its line. Without the refresh mode (FIFO) line 0 is evicted.
#[test]
fn a_refreshing_hit_keeps_its_line() {
    // (id, write, line, value); the reads of each step run alone.
    let steps: [&[(u64, bool, u64, u64)]; 6] = [
        &[
            (1, false, 0, 0),
            (2, false, 32, 0),
            (3, false, 64, 0),
            (4, false, 96, 0),
        ],
        &[(5, false, 32, 0)],
        &[(40, false, 0, 0)],
        &[(6, false, 128, 0)],
        &[(7, false, 0, 0)],
        &[(8, false, 32, 0)],
    ];
    let reads_of = |refresh: bool| {
        let mut d = Directed::with_refresh(10, refresh);
        let mut end = 0;
        for st in steps {
            end += 40;
            d.run(st, end);
        }
        assert_eq!(d.got.len(), 9, "every read answered: {:?}", d.got);
        let mut lines: Vec<u64> = d.sent.iter().map(|s| s.3).collect();
        lines.sort_unstable();
        lines
    };
    // Refresh: 0, 32, 64, 96, 128 once each, then 32 again (evicted).
    assert_eq!(reads_of(true), vec![0, 32, 32, 64, 96, 128]);
    // FIFO: line 0 (the oldest fill) is evicted; read again, it evicts
    // line 32, which is read again too.
    assert_eq!(reads_of(false), vec![0, 0, 32, 32, 64, 96, 128]);
}

/// Random traffic with the refresh mode (every third id of requester 0
/// refreshing) against the reference; a block or a reference without it
/// is caught.
#[test]
fn refresh_mode_matches_reference() {
    use crate::testbenches::l1_tb::l1_bench;
    for (seed, ways, h, lat, ooo, slots) in [(31, 2, 1, 3, false, 1), (32, 4, 4, 20, true, 4), (33, 8, 2, 9, true, 2)] {
        let mut b = bench(seed, ways, h, lat, ooo, slots, 0);
        b.refresh = true;
        b.ref_refresh = true;
        let s = l1_bench::<3, 0, 8>(b).unwrap();
        eprintln!("l1 refresh seed {seed}: {s:?}");
        assert!(
            s.hits > 50 && s.misses > 50 && s.evictions_seen && s.checked > 300,
            "{s:?}"
        );
    }
    let mut b = bench(34, 4, 2, 6, false, 2, 0);
    b.refresh = true;
    b.ref_refresh = true;
    let s = l1_bench::<3, 1, 9>(b).unwrap();
    assert!(s.hits > 50 && s.fills_to_memory > 20, "{s:?}");
    for (blk, rf) in [(false, true), (true, false)] {
        let mut b = bench(35, 2, 2, 6, false, 2, 0);
        b.refresh = blk;
        b.ref_refresh = rf;
        let e = l1_bench::<3, 0, 8>(b).unwrap_err();
        assert!(e.contains("l1 cycle"), "{e}");
    }
}
