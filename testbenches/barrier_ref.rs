//! Cycle reference of the barrier block (`src/units/barrier`), written from
//! the golden model's rule (a CTA's barrier releases when every non-exited
//! thread has arrived; deadlock when every live warp waits but some lanes
//! are parked): per warp its CTA, membership, waiting flag and arrival
//! (pc, active, live); the counts are recomputed from the warps each cycle.

/// Inputs of one core cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BarStim {
    pub join: Option<(u32, u32)>,
    pub leave: Option<u32>,
    /// (warp, pc, active, live).
    pub arr: Option<(u32, u32, u32, u32)>,
}

/// Deadlock report: CTA, waiting warps, lowest partial warp, its pc,
/// arrived and parked lanes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Deadlock {
    pub cta: u32,
    pub warps: u64,
    pub warp: u32,
    pub pc: u32,
    pub arrived: u32,
    pub parked: u32,
}

/// Outputs of one core cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BarObs {
    pub wait: u64,
    pub rel: Option<u32>,
    pub err: Option<Deadlock>,
    /// Last report (held).
    pub err_ctx: Deadlock,
}

#[derive(Debug, Clone, Copy, Default)]
struct W {
    cta: u32,
    member: bool,
    wait: bool,
    pc: u32,
    active: u32,
    live: u32,
}

/// The reference.
#[derive(Debug, Clone)]
pub struct BarRef {
    w: Vec<W>,
    ctas: usize,
    reported: Vec<bool>,
    rel: Option<u32>,
    err: Option<Deadlock>,
    ctx: Deadlock,
}

impl BarRef {
    pub fn new(warps: usize, ctas: usize) -> BarRef {
        BarRef {
            w: vec![W::default(); warps],
            ctas,
            reported: vec![false; ctas],
            rel: None,
            err: None,
            ctx: Deadlock::default(),
        }
    }

    /// Whether warp `w` waits at its CTA's barrier now.
    pub fn waiting(&self, w: u32) -> bool {
        self.w.get(w as usize).is_some_and(|x| x.member && x.wait)
    }

    /// Outputs of this cycle, then the edge.
    pub fn step(&mut self, s: &BarStim) -> BarObs {
        let wait = self
            .w
            .iter()
            .enumerate()
            .fold(0u64, |a, (k, w)| a | (w.wait as u64) << k);
        let obs = BarObs {
            wait,
            rel: self.rel,
            err: self.err,
            err_ctx: self.ctx,
        };
        // Per CTA: every member waits (and there is one)?
        let mut released = vec![false; self.ctas];
        let mut dead = None;
        for (c, rel) in released.iter_mut().enumerate() {
            let members: Vec<(usize, &W)> = self
                .w
                .iter()
                .enumerate()
                .filter(|(_, w)| w.member && w.cta as usize == c)
                .collect();
            if members.is_empty() || !members.iter().all(|(_, w)| w.wait) {
                continue;
            }
            let partial = members.iter().find(|(_, w)| w.active != w.live);
            match partial {
                None => *rel = true,
                Some((k, w)) if dead.is_none() && !self.reported[c] => {
                    dead = Some(Deadlock {
                        cta: c as u32,
                        warps: members.iter().fold(0, |a, (k, _)| a | 1 << k),
                        warp: *k as u32,
                        pc: w.pc,
                        arrived: w.active,
                        parked: w.live & !w.active,
                    });
                }
                _ => {}
            }
        }
        if let Some(d) = dead {
            self.reported[d.cta as usize] = true;
            self.ctx = d;
        }
        self.err = dead;
        self.rel = released.iter().position(|&r| r).map(|c| c as u32);
        for (c, r) in released.iter().enumerate() {
            if *r {
                self.reported[c] = false;
            }
        }
        let arr_ok = s
            .arr
            .filter(|a| self.w.get(a.0 as usize).is_some_and(|w| w.member && !w.wait));
        let leave_ok = s.leave.filter(|&l| self.w.get(l as usize).is_some_and(|w| w.member));
        for (k, w) in self.w.iter_mut().enumerate() {
            if w.wait && w.member && (w.cta as usize) < self.ctas && released[w.cta as usize] {
                w.wait = false;
            }
            if let Some((a, pc, active, live)) = arr_ok {
                if a as usize == k {
                    w.wait = true;
                    w.pc = pc;
                    w.active = active;
                    w.live = live;
                }
            }
            if leave_ok == Some(k as u32) {
                w.member = false;
                w.wait = false;
            }
            if let Some((j, c)) = s.join {
                if j as usize == k {
                    w.member = true;
                    w.cta = c;
                    w.wait = false;
                }
            }
        }
        obs
    }
}
