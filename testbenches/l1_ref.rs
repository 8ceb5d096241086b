//! Reference model of the L1 data cache (`units::l1`), cycle by cycle.
//!
//! Written from the block's specification (its doc comment), not from its
//! code: the cache is a list of sets, each a list of ways holding
//! `(line, words)`; the read pipeline is a row of optional slots; a hit
//! takes its words when it leaves the head (so a fill at the same edge
//! cannot change them), where the RTL reads a RAM.

use super::gmem::{GmReq, GmResp};

/// A read in the pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Rd {
    id: u8,
    addr: u32,
    size: u8,
}

/// Inputs of one core cycle.
#[derive(Debug, Clone, Default)]
pub struct L1RefIn {
    /// The LSU's request (held until ready).
    pub req: Option<GmReq>,
    pub gm_ready: bool,
    /// The memory's response this cycle.
    pub resp: Option<GmResp>,
}

/// Outputs of one core cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct L1RefOut {
    pub ready: bool,
    pub resp: Option<GmResp>,
    pub gm_req: Option<GmReq>,
    pub hits: u64,
    pub misses: u64,
}

/// The model.
#[derive(Debug, Clone)]
pub struct L1Ref {
    sets: usize,
    ways: usize,
    pipe: Vec<Option<Rd>>,
    out: Option<GmResp>,
    /// `cache[set][way]`.
    cache: Vec<Vec<Option<(u32, [u32; 32])>>>,
    next_victim: Vec<usize>,
    /// Per id: the line of the last read sent to memory, whether its
    /// response fills, whether it is still out.
    line_of: Vec<u32>,
    fills: Vec<bool>,
    out_in_mem: Vec<bool>,
    pub hits: u64,
    pub misses: u64,
}

impl L1Ref {
    /// `ids`: request ids 0..ids (32 per LSU load slot).
    pub fn new(lines: usize, ways: usize, latency: usize, ids: usize) -> L1Ref {
        let sets = lines / ways;
        L1Ref {
            sets,
            ways,
            pipe: vec![None; latency],
            out: None,
            cache: vec![vec![None; ways]; sets],
            next_victim: vec![0; sets],
            line_of: vec![0; ids],
            fills: vec![false; ids],
            out_in_mem: vec![false; ids],
            hits: 0,
            misses: 0,
        }
    }

    fn find(&self, line: u32) -> Option<usize> {
        let set = line as usize % self.sets;
        (0..self.ways).find(|&w| matches!(self.cache[set][w], Some((l, _)) if l == line))
    }

    fn idle(&self) -> bool {
        self.pipe.iter().all(|s| s.is_none()) && self.out.is_none() && !self.out_in_mem.iter().any(|&b| b)
    }

    /// One core cycle: the outputs, then the state after the edge.
    pub fn step(&mut self, i: &L1RefIn) -> L1RefOut {
        let h = self.pipe.len();
        let (hits0, misses0) = (self.hits, self.misses);
        // The head.
        let head = self.pipe[h - 1];
        let head_hit = head.filter(|r| r.size == 2).and_then(|r| self.find(r.addr >> 7));
        let out_stays = self.out.is_some() && i.resp.is_some();
        let mut head_leaves = false;
        let mut new_out = if out_stays { self.out.clone() } else { None };
        let mut gm_req = None;
        if let Some(r) = head {
            if let Some(w) = head_hit {
                if !out_stays {
                    let set = (r.addr >> 7) as usize % self.sets;
                    let words = self.cache[set][w].expect("hit").1;
                    new_out = Some(GmResp { id: r.id, rdata: words });
                    head_leaves = true;
                    self.hits += 1;
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
                    let k = r.id as usize % self.fills.len();
                    self.line_of[k] = r.addr >> 7;
                    self.fills[k] = r.size == 2;
                    self.out_in_mem[k] = true;
                    if r.size == 2 {
                        self.misses += 1;
                    }
                }
            }
        }
        // Stores and atomics: straight through while idle.
        let idle = self.idle();
        let mut ready = false;
        let mut store_inv = None;
        if let Some(q) = &i.req {
            let is_read = !q.write && q.atom == 0;
            if !is_read {
                ready = idle && i.gm_ready;
                if idle {
                    gm_req = Some(q.clone());
                }
                if ready {
                    store_inv = Some(q.addr >> 7);
                    if q.atom != 0 {
                        let k = q.id as usize % self.fills.len();
                        self.fills[k] = false;
                    }
                }
            }
        }
        // The pipeline moves (bubbles compress); a read enters stage 0.
        let mut can_take = vec![false; h];
        let mut leaves = head_leaves;
        for k in (0..h).rev() {
            can_take[k] = self.pipe[k].is_none() || leaves;
            leaves = k > 0 && self.pipe[k - 1].is_some() && can_take[k];
        }
        let mut enter = None;
        if i.req.is_none() {
            // The RTL's ready with the idle (zero) payload of a read.
            ready = can_take[0];
        }
        if let Some(q) = &i.req {
            if !q.write && q.atom == 0 {
                ready = can_take[0];
                if ready {
                    enter = Some(Rd {
                        id: q.id,
                        addr: q.addr,
                        size: q.size,
                    });
                }
            }
        }
        let old = self.pipe.clone();
        for k in (0..h).rev() {
            if can_take[k] {
                self.pipe[k] = if k == 0 { enter } else { old[k - 1] };
            }
        }
        // The response port: memory first, else the hit of last cycle.
        let resp = match &i.resp {
            Some(r) => Some(r.clone()),
            None => self.out.clone(),
        };
        // A memory response: fill, clear the id's read.
        if let Some(r) = &i.resp {
            let k = r.id as usize % self.fills.len();
            if self.fills[k] {
                let line = self.line_of[k];
                let set = line as usize % self.sets;
                let w = match self.find(line) {
                    Some(w) => w,
                    None => {
                        let w = self.next_victim[set];
                        self.next_victim[set] = (w + 1) % self.ways;
                        w
                    }
                };
                self.cache[set][w] = Some((line, r.rdata));
            }
            self.out_in_mem[k] = false;
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
