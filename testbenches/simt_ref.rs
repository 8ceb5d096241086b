//! Cycle reference of the SIMT control block (`src/units/simt`), written
//! from its documented behaviour and the golden model's control semantics:
//! each warp keeps a `Vec` stack whose masks are cleared eagerly at `EXIT`
//! (as `golden::model::warp` does), the pop engine pops one entry per cycle,
//! pulses appear one cycle after their cause. It shares no code with the
//! block.

/// Inputs of one core cycle (plain values).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimtStim {
    pub start: Option<(u32, u32)>,
    /// Per scheduler port: the warp advanced.
    pub adv: [Option<u32>; 2],
    /// (warp, op, target, taken lanes).
    pub ctl: Option<(u32, u32, u32, u32)>,
    pub f_warp: u32,
    pub s_warp: u32,
}

/// Outputs of one core cycle.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimtObs {
    pub f_pc: u32,
    pub f_active: u32,
    pub s_pc: u32,
    pub s_active: u32,
    pub s_live: u32,
    pub s_depth: u32,
    pub run: u64,
    pub busy: u64,
    pub ctl_ready: bool,
    pub redir: Option<(u32, u32)>,
    pub exit: Option<u32>,
    /// (code, warp, pc, sync-on-empty) of the error pulse.
    pub err: Option<(u32, u32, u32, bool)>,
    /// Last error context (held between pulses).
    pub err_ctx: (u32, u32, bool),
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    mask: u32,
    pc: u32,
}

#[derive(Debug, Clone, Default)]
struct W {
    pc: u32,
    active: u32,
    live: u32,
    stack: Vec<Entry>,
    run: bool,
}

/// The reference.
#[derive(Debug, Clone)]
pub struct SimtRef {
    warps: Vec<W>,
    depth: usize,
    ns: usize,
    /// Warp the pop engine holds; `fresh`: its entry was popped last edge.
    engine: Option<usize>,
    popped: Option<Entry>,
    redir: Option<(u32, u32)>,
    exit: Option<u32>,
    err: Option<(u32, u32, bool)>,
    err_ctx: (u32, u32, bool),
}

impl SimtRef {
    pub fn new(warps: usize, schedulers: usize, depth: usize) -> SimtRef {
        SimtRef {
            warps: vec![W::default(); warps],
            depth,
            ns: schedulers,
            engine: None,
            popped: None,
            redir: None,
            exit: None,
            err: None,
            err_ctx: (0, 0, false),
        }
    }

    fn get(&self, w: u32) -> Option<&W> {
        self.warps.get(w as usize)
    }

    /// Outputs of this cycle, then the edge.
    pub fn step(&mut self, s: &SimtStim) -> SimtObs {
        let rd = |w: u32| {
            self.get(w)
                .map(|x| (x.pc & 0xffff, x.active, x.live, x.stack.len() as u32))
                .unwrap_or((0, 0, 0, 0))
        };
        let (f_pc, f_active, _, _) = rd(s.f_warp);
        let (s_pc, s_active, s_live, s_depth) = rd(s.s_warp);
        let mut run = 0u64;
        for (k, w) in self.warps.iter().enumerate() {
            run |= (w.run as u64) << k;
        }
        let obs = SimtObs {
            f_pc,
            f_active,
            s_pc,
            s_active,
            s_live,
            s_depth,
            run,
            busy: self.engine.map(|w| 1u64 << w).unwrap_or(0),
            ctl_ready: self.engine.is_none(),
            redir: self.redir,
            exit: self.exit,
            err: self.err.map(|(w, pc, e)| (5, w, pc, e)),
            err_ctx: self.err_ctx,
        };
        self.edge(s);
        obs
    }

    fn edge(&mut self, s: &SimtStim) {
        let (mut redir, mut exit, mut err) = (None, None, None);
        let mut engine_next = None;
        let mut popped_next = None;
        // Pop engine.
        let held = self.engine;
        if let Some(w) = held {
            let e = self.popped.expect("engine has an entry");
            let wp = &mut self.warps[w];
            if e.mask != 0 {
                wp.active = e.mask;
                wp.pc = e.pc;
                redir = Some((w as u32, e.pc));
            } else if let Some(n) = wp.stack.pop() {
                engine_next = Some(w);
                popped_next = Some(n);
            } else {
                wp.run = false;
                wp.active = 0;
                exit = Some(w as u32);
            }
        }
        // Control op.
        let mut ctl_warp = None;
        if let Some((cw, op, t, taken)) = s.ctl {
            let runs = self.get(cw).is_some_and(|w| w.run);
            if held.is_none() && runs {
                ctl_warp = Some(cw as usize);
                let depth = self.depth;
                let w = &mut self.warps[cw as usize];
                let pc = w.pc;
                let next = pc.wrapping_add(1) & 0xffff;
                let mask = taken & w.active;
                match op {
                    1 if mask == 0 => w.pc = next,
                    1 if mask == w.active => {
                        w.pc = t;
                        redir = Some((cw, t));
                    }
                    1 => {
                        if w.stack.len() >= depth {
                            err = Some((cw, pc, false));
                        } else {
                            w.stack.push(Entry {
                                mask: w.active & !mask,
                                pc: next,
                            });
                            w.active = mask;
                            w.pc = t;
                            redir = Some((cw, t));
                        }
                    }
                    2 => {
                        if w.stack.len() >= depth {
                            err = Some((cw, pc, false));
                        } else {
                            w.stack.push(Entry { mask: w.active, pc: t });
                            w.pc = next;
                        }
                    }
                    3 => match w.stack.pop() {
                        None => err = Some((cw, pc, true)),
                        Some(e) => {
                            w.pc = next;
                            engine_next = Some(cw as usize);
                            popped_next = Some(e);
                        }
                    },
                    4 => {
                        w.pc = next;
                        if mask != 0 {
                            w.live &= !mask;
                            w.active &= !mask;
                            for e in w.stack.iter_mut() {
                                e.mask &= !mask;
                            }
                            if w.active == 0 {
                                match w.stack.pop() {
                                    Some(e) => {
                                        engine_next = Some(cw as usize);
                                        popped_next = Some(e);
                                    }
                                    None => {
                                        w.run = false;
                                        exit = Some(cw);
                                    }
                                }
                            }
                        }
                    }
                    _ => w.pc = next,
                }
            }
        }
        // Plain advances (one per warp per cycle).
        let mut advanced = vec![];
        for a in s.adv.iter().take(self.ns).flatten() {
            let a = *a as usize;
            let ok = self.warps.get(a).is_some_and(|w| w.run)
                && held != Some(a)
                && ctl_warp != Some(a)
                && !advanced.contains(&a);
            if ok {
                advanced.push(a);
                let w = &mut self.warps[a];
                w.pc = w.pc.wrapping_add(1) & 0xffff;
            }
        }
        // Start wins.
        if let Some((sw, m)) = s.start {
            if let Some(w) = self.warps.get_mut(sw as usize) {
                *w = W {
                    pc: 0,
                    active: m,
                    live: m,
                    stack: vec![],
                    run: m != 0,
                };
                if engine_next == Some(sw as usize) {
                    engine_next = None;
                    popped_next = None;
                }
            }
        }
        self.engine = engine_next;
        self.popped = popped_next;
        self.redir = redir;
        self.exit = exit;
        if let Some(e) = err {
            self.err_ctx = e;
        }
        self.err = err;
    }
}
