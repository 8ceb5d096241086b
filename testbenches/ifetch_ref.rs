//! Cycle reference of the instruction fetch block (`src/units/ifetch`),
//! written from its documented behaviour: a per-warp fetch pc, one lookup
//! in flight per fetch port (picked in cycle k, pushed or missed in k+1;
//! port p serves the warps w with w mod ports = p), a cache of sets x ways
//! holding whole lines, one outstanding miss (the lowest missing port
//! starts it), round-robin fair choice per port among the warps that may
//! fetch, and the certain-need pc error (code 10).

/// Inputs of one core cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IfStim {
    pub st: Option<u32>,
    /// (warp, pc).
    pub redir: Option<(u32, u32)>,
    pub run: u64,
    pub busy: u64,
    pub room: u64,
    pub hv: u64,
    pub plen: u32,
    pub im_req_ready: bool,
    /// GPU-CC mode: a miss keeps its request back.
    pub hold: bool,
    /// The line answered in this cycle.
    pub im_resp: Option<Vec<u64>>,
}

/// Outputs of one core cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IfObs {
    /// (warp, pc, word) of fetch port 0.
    pub push: Option<(u32, u32, u64)>,
    /// (warp, pc, word) of fetch port 1 (never with one port).
    pub push1: Option<(u32, u32, u64)>,
    /// Line address requested.
    pub im_req: Option<u32>,
    /// (warp, pc) of a pc error (code 10).
    pub err: Option<(u32, u32)>,
    /// Last reported (warp, pc), held.
    pub err_ctx: (u32, u32),
    pub hits: u32,
    pub misses: u32,
    pub waiting: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Miss {
    Idle,
    /// (line, victim way), request not yet taken.
    Req(u32, usize),
    /// (line, victim way), waiting for the answer.
    Wait(u32, usize),
}

/// The reference.
#[derive(Debug, Clone)]
pub struct IfetchRef {
    warps: usize,
    ports: usize,
    line: u32,
    sets: u32,
    ways: usize,
    /// Per set, per way: (line address, words).
    cache: Vec<Vec<Option<(u32, Vec<u64>)>>>,
    next_victim: Vec<usize>,
    pc: Vec<u32>,
    waiting: Vec<bool>,
    reported: Vec<bool>,
    /// Per port: the warp picked last.
    last: Vec<usize>,
    /// Per port: the lookup in flight, (warp, pc).
    inflight: Vec<Option<(u32, u32)>>,
    miss: Miss,
    hits: u32,
    misses: u32,
    err: Option<(u32, u32)>,
    err_ctx: (u32, u32),
}

impl IfetchRef {
    /// `warps` warps, lines of `line` instructions, `sets` x `ways`,
    /// `ports` fetch ports (1 or 2).
    pub fn new(warps: usize, line: u32, sets: u32, ways: usize, ports: usize) -> IfetchRef {
        IfetchRef {
            warps,
            ports,
            line,
            sets,
            ways,
            cache: vec![vec![None; ways]; sets as usize],
            next_victim: vec![0; sets as usize],
            pc: vec![0; warps],
            waiting: vec![false; warps],
            reported: vec![false; warps],
            last: vec![warps - 1; ports],
            inflight: vec![None; ports],
            miss: Miss::Idle,
            hits: 0,
            misses: 0,
            err: None,
            err_ctx: (0, 0),
        }
    }

    fn lookup(&self, pc: u32) -> Option<u64> {
        let line = pc / self.line;
        let set = (line % self.sets) as usize;
        self.cache[set]
            .iter()
            .flatten()
            .find(|(l, _)| *l == line)
            .map(|(_, words)| words[(pc % self.line) as usize])
    }

    /// Outputs of this cycle, then the edge.
    pub fn step(&mut self, s: &IfStim) -> IfObs {
        let bit = |m: u64, w: usize| m >> w & 1 == 1;
        let killed = |w: usize| s.st == Some(w as u32) || s.redir.is_some_and(|(r, _)| r == w as u32);
        let filling = matches!(self.miss, Miss::Wait(..)) && s.im_resp.is_some();
        let mut obs = IfObs {
            im_req: match self.miss {
                Miss::Req(l, _) if !s.hold => Some(l),
                _ => None,
            },
            err: self.err,
            err_ctx: self.err_ctx,
            hits: self.hits,
            misses: self.misses,
            waiting: (0..self.warps).fold(0, |a, w| a | (self.waiting[w] as u64) << w),
            ..IfObs::default()
        };
        // The lookups in flight, port 0 first.
        let mut advanced = vec![];
        let mut new_wait = vec![];
        let mut start_miss = None;
        let mut pushes = [None, None];
        for (p, f) in self.inflight.iter().enumerate() {
            let Some((w, pc)) = *f else { continue };
            if killed(w as usize) {
                continue;
            }
            match self.lookup(pc) {
                Some(word) => {
                    if bit(s.room, w as usize) {
                        pushes[p] = Some((w, pc, word));
                        advanced.push(w as usize);
                    }
                }
                None => {
                    if !filling {
                        new_wait.push(w as usize);
                    }
                    if self.miss == Miss::Idle && start_miss.is_none() {
                        let line = pc / self.line;
                        start_miss = Some((line, self.next_victim[(line % self.sets) as usize]));
                    }
                }
            }
        }
        [obs.push, obs.push1] = pushes;
        // Pick for the next lookups: port p among its own warps.
        let can = |w: usize, me: &IfetchRef| {
            bit(s.run, w)
                && bit(s.room, w)
                && !me.waiting[w]
                && me.pc[w] < s.plen
                && me.inflight.iter().all(|f| f.is_none_or(|(x, _)| x as usize != w))
                && !killed(w)
                && !filling
        };
        let chosen: Vec<Option<(usize, u32)>> = (0..self.ports)
            .map(|p| {
                (1..=self.warps)
                    .map(|d| (self.last[p] + d) % self.warps)
                    .find(|&w| w % self.ports == p && can(w, self))
                    .map(|w| (w, self.pc[w]))
            })
            .collect();
        // Pc error: the lowest warp certainly needing an instruction beyond the program.
        let bad = (0..self.warps).find(|&w| {
            bit(s.run, w) && !bit(s.busy, w) && !bit(s.hv, w) && self.pc[w] >= s.plen && !killed(w) && !self.reported[w]
        });
        // ---- edge
        self.err = bad.map(|w| (w as u32, self.pc[w]));
        if let Some(e) = self.err {
            self.err_ctx = e;
        }
        for w in 0..self.warps {
            if killed(w) {
                self.reported[w] = false;
            }
        }
        if let Some(w) = bad {
            self.reported[w] = true;
        }
        for _ in pushes.iter().flatten() {
            self.hits = self.hits.wrapping_add(1);
        }
        for w in advanced {
            self.pc[w] += 1;
        }
        for w in 0..self.warps {
            if filling || killed(w) {
                self.waiting[w] = false;
            }
        }
        for w in new_wait {
            self.waiting[w] = true;
        }
        if let Some((w, pc)) = s.redir {
            if (w as usize) < self.warps {
                self.pc[w as usize] = pc;
            }
        }
        if let Some(w) = s.st {
            if (w as usize) < self.warps {
                self.pc[w as usize] = 0;
            }
        }
        for (p, c) in chosen.into_iter().enumerate() {
            self.inflight[p] = c.map(|(w, pc)| (w as u32, pc));
            if let Some((w, _)) = c {
                self.last[p] = w;
            }
        }
        match self.miss {
            Miss::Idle => {
                if let Some((l, v)) = start_miss {
                    self.miss = Miss::Req(l, v);
                    self.misses = self.misses.wrapping_add(1);
                }
            }
            Miss::Req(l, v) => {
                if s.im_req_ready && !s.hold {
                    self.miss = Miss::Wait(l, v);
                }
            }
            Miss::Wait(l, v) => {
                if let Some(words) = &s.im_resp {
                    let set = (l % self.sets) as usize;
                    self.cache[set][v] = Some((l, words.clone()));
                    self.next_victim[set] = (v + 1) % self.ways;
                    self.miss = Miss::Idle;
                }
            }
        }
        obs
    }
}
