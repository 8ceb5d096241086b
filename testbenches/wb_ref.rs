//! Transaction-level reference of the write-back block (`units::wb`):
//! per-source FIFOs of results (a pulse is written at the earliest the
//! cycle after it arrives), one write per channel per cycle chosen round robin, one predicate write per cycle, credits per source.
//! Written from the block's documented behaviour; shares no code with it.

use std::collections::VecDeque;

/// One result: tag, lane mask, predicate lanes, low and high words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WbRes {
    pub tag: u32,
    pub mask: u32,
    pub pred: u32,
    pub lo: [u32; 32],
    pub hi: [u32; 32],
}

impl WbRes {
    fn warp(&self) -> u32 {
        self.tag & 63
    }
    fn kind(&self) -> u32 {
        self.tag >> 14 & 3
    }
}

/// What one channel did in a cycle.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WbChan {
    /// The result retired through the channel (and which source).
    pub res: Option<(usize, WbRes)>,
}

/// What the block shows in one cycle.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WbCycle {
    pub chans: Vec<WbChan>,
    pub room: [bool; 6],
    pub cnt_wait: u32,
    pub err: bool,
}

/// The reference.
pub struct WbRef {
    ns: usize,
    depth: [usize; 6],
    q: Vec<VecDeque<WbRes>>,
    credit: [usize; 6],
    last: Vec<usize>,
    cnt_wait: u32,
    err_next: bool,
}

impl WbRef {
    /// `ns` channels, queue depths `depth`.
    pub fn new(ns: usize, depth: [usize; 6]) -> Self {
        WbRef {
            ns,
            depth,
            q: vec![VecDeque::new(); 6],
            credit: [0; 6],
            last: vec![0; ns],
            cnt_wait: 0,
            err_next: false,
        }
    }

    /// Credits each source may still take this cycle.
    pub fn room(&self) -> [bool; 6] {
        std::array::from_fn(|s| self.credit[s] < self.depth[s])
    }

    /// One core cycle: `pulses[s]` arrive, `disp[s]` take credits; returns
    /// the outputs of this cycle and applies the edge.
    pub fn cycle(&mut self, pulses: &[Option<WbRes>; 6], disp: &[bool; 6]) -> WbCycle {
        let room = self.room();
        let err = self.err_next;
        let cnt_wait = self.cnt_wait;
        // Candidates.
        let cand: Vec<Option<WbRes>> = (0..6).map(|s| self.q[s].front().cloned()).collect();
        let mut taken = [false; 6];
        let mut pred_used = false;
        let mut chans = vec![];
        for w in 0..self.ns {
            let mut pick = None;
            for k in 1..=6 {
                let s = (self.last[w] + k) % 6;
                let Some(c) = &cand[s] else { continue };
                if taken[s] || (c.warp() as usize) % self.ns != w || (c.kind() == 3 && pred_used) {
                    continue;
                }
                pick = Some(s);
                break;
            }
            match pick {
                Some(s) => {
                    taken[s] = true;
                    self.last[w] = s;
                    let r = cand[s].clone().unwrap();
                    pred_used |= r.kind() == 3;
                    chans.push(WbChan { res: Some((s, r)) });
                }
                None => chans.push(WbChan { res: None }),
            }
        }
        // Queues and credits.
        let mut overflow = false;
        let mut waited = false;
        for s in 0..6 {
            if cand[s].is_some() && !taken[s] {
                waited = true;
            }
            if taken[s] {
                self.q[s].pop_front();
            }
            if let Some(p) = &pulses[s] {
                if self.q[s].len() >= self.depth[s] {
                    overflow = true;
                } else {
                    self.q[s].push_back(p.clone());
                }
            }
            if disp[s] {
                self.credit[s] += 1;
            }
            if taken[s] {
                self.credit[s] -= 1;
            }
        }
        if waited {
            self.cnt_wait = self.cnt_wait.wrapping_add(1);
        }
        self.err_next = overflow;
        WbCycle {
            chans,
            room,
            cnt_wait,
            err,
        }
    }
}
