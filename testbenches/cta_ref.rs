//! Cycle reference of the CTA launcher (`src/units/cta`) and the
//! occupancy rule written from the seeds' limits: resident CTAs per SM
//! (`max_ctas`), warps (`max_warps`), threads (`max_threads`), registers
//! with the CUDA occupancy calculator's allocation unit (per CTA on compute
//! 1.x, per warp on 2.x), the register file's rows (docs/regfile.md) and
//! shared memory rounded to its allocation unit.

use crate::config::SmConfig;
use crate::golden::isa::Sreg;

/// One launch as the host gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CtaLaunch {
    pub grid: [u32; 2],
    pub block: [u32; 3],
    pub nregs: u32,
    pub smem: u32,
}

/// Why a launch cannot run (`err_reason_o`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfit {
    Threads = 1,
    Regs = 2,
    Smem = 3,
    Empty = 4,
}

/// Resident CTAs for `l` on `cfg` and the limit that binds, or why none fits.
pub fn occupancy(cfg: &SmConfig, l: &CtaLaunch) -> Result<(u32, &'static str), Unfit> {
    if l.grid.contains(&0) || l.block.contains(&0) {
        return Err(Unfit::Empty);
    }
    let threads = l.block[0] * l.block[1] * l.block[2];
    if threads > cfg.max_threads {
        return Err(Unfit::Threads);
    }
    if l.nregs == 0 || l.nregs > cfg.max_regs_per_thread {
        return Err(Unfit::Regs);
    }
    let warps = threads.div_ceil(32);
    let up = |x: u32, u: u32| x.div_ceil(u) * u;
    let regs_cta = if cfg.reg_alloc_per_warp {
        up(l.nregs * 32, cfg.reg_alloc_unit) * warps
    } else {
        up(l.nregs * 32 * warps, cfg.reg_alloc_unit)
    };
    let groups = cfg.reg_banks / 4;
    let s = cfg.warp_schedulers;
    let h = groups / s;
    let rows = cfg.registers / (32 * groups);
    let rows_per_warp = l.nregs.div_ceil(h);
    // Largest c whose warps' rows fit each scheduler half (warps c*w
    // contiguous from 0: half s holds ceil(c*w / S) of them at most).
    let by_rows = (1..=64)
        .take_while(|&c: &u32| (c * warps).div_ceil(s) * rows_per_warp <= rows)
        .count() as u32;
    let smem = up(l.smem, cfg.smem_alloc_unit);
    let limits = [
        (cfg.max_ctas, "CTAs"),
        (cfg.max_warps / warps, "warps"),
        (cfg.max_threads / threads, "threads"),
        (cfg.registers / regs_cta, "registers"),
        (by_rows, "register rows"),
        (cfg.smem_bytes.checked_div(smem).unwrap_or(u32::MAX), "shared memory"),
    ];
    let (n, why) = limits.iter().copied().min_by_key(|(n, _)| *n).unwrap();
    if n == 0 {
        return Err(if cfg.registers / regs_cta == 0 || by_rows == 0 {
            Unfit::Regs
        } else {
            Unfit::Smem
        });
    }
    Ok((n, why))
}

/// Inputs of one core cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CtaStim {
    pub launch: Option<CtaLaunch>,
    pub exit: Option<u32>,
    pub idle: u64,
    pub lsu_idle: bool,
    /// Per S2R port: (warp, register number, mask, tag).
    pub s2r: [Option<(u32, u32, u32, u32)>; 2],
}

/// Outputs of one core cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CtaObs {
    pub ready: bool,
    pub busy: bool,
    pub done: bool,
    pub wv: u64,
    /// Warp start: (warp, lanes, CTA slot); the allocation (warp, base, nregs).
    pub start: Option<(u32, u32, u32)>,
    pub alloc: Option<(u32, u32, u32)>,
    pub sbase: Vec<u32>,
    pub ssize: u32,
    /// Per S2R port: (tag, mask, data per lane).
    pub res: [Option<(u32, u32, Vec<u32>)>; 2],
    pub occ: u32,
    pub res_ctas: u32,
    pub res_warps: u32,
    pub err: Option<u32>,
    pub reason: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Idle,
    Calc,
    Run,
    Done,
}

#[derive(Debug, Clone, Copy, Default)]
struct W {
    valid: bool,
    slot: u32,
    index: u32,
    sbase: u32,
}

/// The reference.
#[derive(Debug, Clone)]
pub struct CtaRef {
    cfg: SmConfig,
    st: St,
    l: CtaLaunch,
    n: u32,
    wpc: u32,
    rpw: u32,
    smem_r: u32,
    w: Vec<W>,
    active: Vec<bool>,
    ctaid: Vec<(u32, u32)>,
    /// CTA being launched: (slot, next warp index).
    launching: Option<(u32, u32)>,
    next: (u32, u32),
    all_launched: bool,
    start: Option<(u32, u32, u32)>,
    alloc_base: u32,
    res: [Option<(u32, u32, Vec<u32>)>; 2],
    err: Option<u32>,
    reason: u32,
    cycle: u32,
}

impl CtaRef {
    pub fn new(cfg: &SmConfig) -> CtaRef {
        let mw = cfg.max_warps as usize;
        let nc = cfg.max_ctas as usize;
        CtaRef {
            cfg: cfg.clone(),
            st: St::Idle,
            l: CtaLaunch::default(),
            n: 0,
            wpc: 0,
            rpw: 0,
            smem_r: 0,
            w: vec![W::default(); mw],
            active: vec![false; nc],
            ctaid: vec![(0, 0); nc],
            launching: None,
            next: (0, 0),
            all_launched: false,
            start: None,
            alloc_base: 0,
            res: [None, None],
            err: None,
            reason: 0,
            cycle: 0,
        }
    }

    /// Special register `sr` of every lane of warp `w`.
    fn sreg(&self, w: usize, sr: u32) -> Vec<u32> {
        let wp = self.w[w];
        let [bx, by, bz] = self.l.block;
        let (cx, cy) = self.ctaid[wp.slot as usize];
        (0..32u32)
            .map(|lane| {
                let lin = wp.index * 32 + lane;
                match Sreg::from_bits(sr as u16) {
                    Some(Sreg::TidX) => lin % bx,
                    Some(Sreg::TidY) => lin / bx % by,
                    Some(Sreg::TidZ) => lin / (bx * by),
                    Some(Sreg::NtidX) => bx,
                    Some(Sreg::NtidY) => by,
                    Some(Sreg::NtidZ) => bz,
                    Some(Sreg::CtaidX) => cx,
                    Some(Sreg::CtaidY) => cy,
                    Some(Sreg::NctaidX) => self.l.grid[0],
                    Some(Sreg::NctaidY) => self.l.grid[1],
                    Some(Sreg::LaneId) => lane,
                    Some(Sreg::WarpId) => wp.index,
                    Some(Sreg::Clock) => self.cycle,
                    None => 0,
                }
            })
            .collect()
    }

    /// Outputs of this cycle, then the edge.
    pub fn step(&mut self, s: &CtaStim) -> CtaObs {
        let mw = self.w.len();
        let ready = matches!(self.st, St::Idle | St::Done);
        let wv = (0..mw).fold(0u64, |a, k| a | (self.w[k].valid as u64) << k);
        let obs = CtaObs {
            ready,
            busy: matches!(self.st, St::Calc | St::Run),
            done: self.st == St::Done,
            wv,
            start: self.start,
            alloc: self.start.map(|(w, _, _)| (w, self.alloc_base, self.l.nregs)),
            sbase: self.w.iter().map(|w| w.sbase).collect(),
            ssize: self.l.smem,
            res: self.res.clone(),
            occ: self.n,
            res_ctas: self.active.iter().filter(|&&a| a).count() as u32,
            res_warps: wv.count_ones(),
            err: self.err,
            reason: self.reason,
        };
        // S2R answers (from the state before the edge).
        let mut res = [None, None];
        for (p, r) in s.s2r.iter().enumerate() {
            if let Some((w, sr, mask, tag)) = *r {
                res[p] = Some((tag, mask, self.sreg(w as usize, sr)));
            }
        }
        self.res = res;
        self.start = None;
        self.err = None;
        // Pre-edge values.
        let act_q = self.active.clone();
        let launching_q = self.launching;
        let fin_q = self.all_launched;
        let run = self.st == St::Run;
        // Releases: slot active, not being launched, no warp of it valid or
        // with a busy scoreboard, the LSU idle.
        let mut rel = vec![false; act_q.len()];
        for (c, r) in rel.iter_mut().enumerate() {
            let launching = launching_q.is_some_and(|(ls, _)| ls == c as u32);
            let held = (0..mw).any(|w| self.w[w].slot == c as u32 && (self.w[w].valid || s.idle >> w & 1 == 0));
            *r = run && act_q[c] && !launching && !held && s.lsu_idle;
        }
        let begin = if run && launching_q.is_none() && !fin_q {
            (0..act_q.len()).find(|&c| !act_q[c] && (c as u32) < self.n)
        } else {
            None
        };
        // Warp launch of this cycle.
        if let Some((slot, k)) = launching_q {
            let w = (slot * self.wpc + k) as usize;
            let threads = self.l.block.iter().product::<u32>();
            let lanes = (threads - 32 * k).min(32);
            let m = if lanes == 32 { u32::MAX } else { (1 << lanes) - 1 };
            self.start = Some((w as u32, m, slot));
            self.alloc_base = (w as u32 / self.cfg.warp_schedulers) * self.rpw;
            self.launching = if k + 1 == self.wpc { None } else { Some((slot, k + 1)) };
        }
        if let Some(w) = s.exit {
            if (w as usize) < mw {
                self.w[w as usize].valid = false;
            }
        }
        if let Some((w, _, slot)) = self.start {
            self.w[w as usize] = W {
                valid: true,
                slot,
                index: launching_q.map(|(_, k)| k).unwrap_or(0),
                sbase: slot * self.smem_r,
            };
        }
        for (c, r) in rel.iter().enumerate() {
            if *r {
                self.active[c] = false;
            }
        }
        if let Some(c) = begin {
            self.active[c] = true;
            self.ctaid[c] = self.next;
            self.launching = Some((c as u32, 0));
            let (x, y) = self.next;
            if x + 1 == self.l.grid[0] {
                if y + 1 == self.l.grid[1] {
                    self.all_launched = true;
                }
                self.next = (0, y + 1);
            } else {
                self.next = (x + 1, y);
            }
        }
        // State machine.
        match self.st {
            St::Idle | St::Done => {}
            St::Calc => match occupancy(&self.cfg, &self.l) {
                Ok((n, _)) => {
                    let threads = self.l.block.iter().product::<u32>();
                    self.n = n;
                    self.wpc = threads.div_ceil(32);
                    self.rpw = self.l.nregs.div_ceil(self.cfg.reg_banks / 4 / self.cfg.warp_schedulers);
                    self.smem_r = self.l.smem.div_ceil(self.cfg.smem_alloc_unit) * self.cfg.smem_alloc_unit;
                    self.st = St::Run;
                }
                Err(why) => {
                    self.err = Some(9);
                    self.reason = why as u32;
                    self.st = St::Idle;
                }
            },
            St::Run => {
                if fin_q && launching_q.is_none() && !act_q.iter().any(|&a| a) {
                    self.st = St::Done;
                }
            }
        }
        if ready {
            if let Some(l) = s.launch {
                self.l = l;
                self.st = St::Calc;
                self.next = (0, 0);
                self.all_launched = false;
                self.launching = None;
                self.active.iter_mut().for_each(|a| *a = false);
                self.w.iter_mut().for_each(|w| w.valid = false);
            }
        }
        self.cycle = self.cycle.wrapping_add(1);
        obs
    }
}
