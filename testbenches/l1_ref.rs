//! Reference model of the L1 data cache (`units::l1`), cycle by cycle.
//!
//! Written from the block's specification (its doc comment), not from its
//! code: the cache is a list of sets, each a list of ways holding
//! `(line, words)`; the read pipeline is a row of optional slots; a hit
//! takes its words when it leaves the head (so a fill at the same edge
//! cannot change them), where the RTL reads a RAM. Requesters are served
//! round robin from a pointer (the requester first in line); memory ids
//! are `r << 8 | id`; the miss table is a map from memory id to what is
//! out in memory. Merged reads (a line read missing while a read of its
//! line that will fill is out) are a second map from memory id to
//! `(line, woken)`: the fill of the line wakes them, and a woken one
//! replays into the pipeline's first slot (the smallest memory id first,
//! before any requester), where it is looked up again without being
//! counted. Replacement: per set the ways in age order, oldest first;
//! a fill that allocates takes the oldest and makes it the youngest (FIFO),
//! and in the refresh mode a hit of a refreshing read (requester 0's,
//! `refresh` with its request) makes its way the youngest too.

use super::gmem::{GmReq, GmResp};
use std::collections::HashMap;

/// A read in the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rd {
    /// Memory id (`r << 8 | id`).
    id: u16,
    addr: u32,
    size: u8,
    /// Fill-only.
    pf: bool,
    /// A merged read replaying.
    replay: bool,
    /// A refreshing read (the refresh mode).
    refresh: bool,
}

/// Inputs of one core cycle.
#[derive(Debug, Clone, Default)]
pub struct L1RefIn {
    /// Each requester's request (held until ready) and its fill flag
    /// (requesters 1.. only); ids are the requester's own 8 bits.
    pub reqs: Vec<Option<(GmReq, bool)>>,
    pub gm_ready: bool,
    /// The memory's response this cycle (memory id).
    pub resp: Option<GmResp>,
    /// Requester 0's request refreshes its line when it hits (the refresh
    /// mode).
    pub refresh: bool,
}

/// Outputs of one core cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct L1RefOut {
    /// Per requester: its request is taken at the edge (one requester: the
    /// LSU's ready as the RTL computes it, also without a request).
    pub ready: Vec<bool>,
    /// Per requester: its response (the requester's own id).
    pub resp: Vec<Option<GmResp>>,
    /// The request to memory (memory id).
    pub gm_req: Option<GmReq>,
    pub hits: u64,
    pub misses: u64,
}

/// What a memory id has out in memory.
#[derive(Debug, Clone, Copy)]
struct Out {
    line: u32,
    fills: bool,
    pf: bool,
    /// A read (an atomic leaves `fills` false and is not counted out).
    read: bool,
}

/// The model.
#[derive(Debug, Clone)]
pub struct L1Ref {
    sets: usize,
    ways: usize,
    requesters: usize,
    pipe: Vec<Option<Rd>>,
    out: Option<GmResp>,
    /// `cache[set][way]`.
    cache: Vec<Vec<Option<(u32, [u32; 32])>>>,
    /// Per set its ways, oldest first.
    age_order: Vec<Vec<usize>>,
    /// The refresh mode.
    refresh: bool,
    /// Per memory id: the last read or atomic sent with it.
    table: HashMap<u16, Out>,
    /// Merged reads by memory id: their line, and whether its fill has
    /// come (they wait to replay).
    merged: HashMap<u16, (u32, bool)>,
    /// The requester first in line.
    first: usize,
    pub hits: u64,
    pub misses: u64,
    /// Line misses that merged (did not go to memory), fill-only ones
    /// included.
    pub merges: u64,
    /// Replays that missed again (their line was evicted while they
    /// waited) and went to memory or merged again.
    pub replay_misses: u64,
}

impl L1Ref {
    /// `requesters` requesters (the LSU first).
    pub fn new(lines: usize, ways: usize, latency: usize, requesters: usize) -> L1Ref {
        let sets = lines / ways;
        L1Ref {
            sets,
            ways,
            requesters,
            pipe: vec![None; latency],
            out: None,
            cache: vec![vec![None; ways]; sets],
            age_order: vec![(0..ways).collect(); sets],
            refresh: false,
            table: HashMap::new(),
            merged: HashMap::new(),
            first: 0,
            hits: 0,
            misses: 0,
            merges: 0,
            replay_misses: 0,
        }
    }

    /// The same model with the refresh mode.
    pub fn with_refresh(mut self, refresh: bool) -> L1Ref {
        self.refresh = refresh;
        self
    }

    /// Way `w` of `set` becomes the youngest.
    fn make_young(&mut self, set: usize, w: usize) {
        let o = &mut self.age_order[set];
        o.retain(|&x| x != w);
        o.push(w);
    }

    fn find(&self, line: u32) -> Option<usize> {
        let set = line as usize % self.sets;
        (0..self.ways).find(|&w| matches!(self.cache[set][w], Some((l, _)) if l == line))
    }

    fn out_in_mem(&self, id: u16) -> bool {
        self.table.get(&id).is_some_and(|o| o.read)
    }

    /// Stores and atomics to `line` may pass: no read in the pipeline and
    /// no merged read of that line waiting.
    fn idle(&self, line: u32) -> bool {
        self.pipe.iter().all(|s| s.is_none()) && self.merged.values().all(|&(l, _)| l != line)
    }

    /// A line read of `line` is out in memory and its response will fill.
    fn filling(&self, line: u32) -> bool {
        self.table.values().any(|o| o.read && o.fills && o.line == line)
    }

    /// One core cycle: the outputs, then the state after the edge.
    pub fn step(&mut self, i: &L1RefIn) -> L1RefOut {
        let n = self.requesters;
        let h = self.pipe.len();
        let (hits0, misses0) = (self.hits, self.misses);
        // The head.
        let head = self.pipe[h - 1];
        let head_hit = head.filter(|r| r.size == 2).and_then(|r| self.find(r.addr >> 7));
        // A memory response for a requester (not a fill-only read's).
        let mem_up = i.resp.clone().filter(|r| !self.table.get(&r.id).is_some_and(|o| o.pf));
        let out_stays = self.out.is_some() && mem_up.is_some();
        let mut head_leaves = false;
        let mut new_out = if out_stays { self.out.clone() } else { None };
        let mut gm_req = None;
        if let Some(r) = head {
            let counted = !r.replay as u64;
            if let Some(w) = head_hit {
                if r.pf {
                    // A fill of a line present: nothing to do.
                    head_leaves = true;
                    self.hits += counted;
                } else if !out_stays {
                    let set = (r.addr >> 7) as usize % self.sets;
                    let words = self.cache[set][w].expect("hit").1;
                    new_out = Some(GmResp { id: r.id, rdata: words });
                    head_leaves = true;
                    self.hits += counted;
                    if self.refresh && r.refresh {
                        self.make_young(set, w);
                    }
                }
            } else if r.pf && self.out_in_mem(r.id) {
                // A fill whose id is still out: dropped.
                head_leaves = true;
            } else if r.size == 2 && self.filling(r.addr >> 7) {
                // The line is on its way: a read waits for it, a fill-only
                // read is dropped.
                head_leaves = true;
                self.misses += counted;
                self.merges += counted;
                if !r.pf {
                    self.merged.insert(r.id, (r.addr >> 7, false));
                }
            } else {
                gm_req = Some(GmReq {
                    id: r.id,
                    write: false,
                    atom: 0,
                    addr: r.addr,
                    size: r.size,
                    wmask: 0,
                    wdata: [0; 32],
                });
                if i.gm_ready {
                    head_leaves = true;
                    let o = Out {
                        line: r.addr >> 7,
                        fills: r.size == 2,
                        pf: r.pf,
                        read: true,
                    };
                    self.table.insert(r.id, o);
                    if r.size == 2 && !r.replay {
                        self.misses += 1;
                    }
                }
            }
        }
        if head_leaves && head.is_some_and(|r| r.replay) && head_hit.is_none() {
            self.replay_misses += 1;
        }
        // The pipeline's free slots (bubbles compress).
        let mut can_take = vec![false; h];
        let mut leaves = head_leaves;
        for k in (0..h).rev() {
            can_take[k] = self.pipe[k].is_none() || leaves;
            leaves = k > 0 && self.pipe[k - 1].is_some() && can_take[k];
        }
        // A woken merged read replays first (the smallest memory id).
        let replay = self
            .merged
            .iter()
            .filter(|(_, &(_, woken))| woken)
            .map(|(&id, _)| id)
            .min();
        let mut enter = None;
        if let Some(id) = replay {
            if can_take[0] {
                // (It leaves the merged reads at the edge, below: a store
                // of its line still waits this cycle.)
                let (line, _) = self.merged[&id];
                enter = Some(Rd {
                    id,
                    addr: line << 7,
                    size: 2,
                    pf: false,
                    replay: true,
                    refresh: false,
                });
            }
        }
        // The requester served: the first with a request from `first` on.
        let chosen = (0..n).map(|j| (self.first + j) % n).find(|&r| i.reqs[r].is_some());
        let mut ready = vec![false; n];
        if n == 1 && chosen.is_none() {
            // The RTL's ready with the idle (zero) payload of a read.
            ready[0] = can_take[0] && replay.is_none();
        }
        let mut store_inv = None;
        if let Some(r) = chosen {
            let (q, fill) = i.reqs[r].clone().expect("chosen");
            let mid = (r as u16) << 8 | q.id;
            if !q.write && q.atom == 0 {
                ready[r] = can_take[0] && replay.is_none();
                if ready[r] {
                    enter = Some(Rd {
                        id: mid,
                        addr: q.addr,
                        size: q.size,
                        pf: fill,
                        replay: false,
                        refresh: r == 0 && i.refresh,
                    });
                }
            } else {
                // Stores and atomics: straight through while no read is in
                // the pipeline and no merged read of their line waits;
                // reads of their line out in memory were performed before
                // them and no longer fill.
                let idle = self.idle(q.addr >> 7);
                ready[r] = idle && i.gm_ready;
                if idle {
                    gm_req = Some(GmReq { id: mid, ..q.clone() });
                }
                if ready[r] {
                    store_inv = Some(q.addr >> 7);
                    for o in self.table.values_mut() {
                        if o.read && o.line == q.addr >> 7 {
                            o.fills = false;
                        }
                    }
                    if q.atom != 0 {
                        let o = self.table.entry(mid).or_insert(Out {
                            line: 0,
                            fills: false,
                            pf: false,
                            read: false,
                        });
                        o.fills = false;
                        o.pf = false;
                    }
                }
            }
            if ready[r] {
                self.first = (r + 1) % n;
            }
        }
        if let Some(Rd { replay: true, id, .. }) = enter {
            self.merged.remove(&id);
        }
        let old = self.pipe.clone();
        for k in (0..h).rev() {
            if can_take[k] {
                self.pipe[k] = if k == 0 { enter } else { old[k - 1] };
            }
        }
        // The response port: memory first (a fill-only read's response
        // goes nowhere), else the hit of last cycle.
        let up = mem_up.or_else(|| self.out.clone());
        let mut resp = vec![None; n];
        if let Some(r) = up {
            resp[r.id as usize >> 8] = Some(GmResp {
                id: r.id & 0xff,
                rdata: r.rdata,
            });
        }
        // A memory response: fill, clear the id's read.
        if let Some(r) = &i.resp {
            if let Some(o) = self.table.get_mut(&r.id) {
                o.read = false;
                let o = *o;
                if o.fills {
                    let line = o.line;
                    let set = line as usize % self.sets;
                    let w = match self.find(line) {
                        Some(w) => w,
                        None => {
                            let w = self.age_order[set][0];
                            self.make_young(set, w);
                            w
                        }
                    };
                    self.cache[set][w] = Some((line, r.rdata));
                    // The merged reads of the line may replay.
                    for m in self.merged.values_mut() {
                        if m.0 == line {
                            m.1 = true;
                        }
                    }
                }
            }
        }
        if let Some(line) = store_inv {
            let set = line as usize % self.sets;
            for w in 0..self.ways {
                if matches!(self.cache[set][w], Some((l, _)) if l == line) {
                    self.cache[set][w] = None;
                }
            }
        }
        self.out = new_out;
        L1RefOut {
            ready,
            resp,
            gm_req,
            hits: hits0,
            misses: misses0,
        }
    }
}
