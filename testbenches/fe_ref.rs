//! Reference models of the front-end blocks: decode,
//! scoreboard, predicate file and warp scheduler. Plain Rust written from
//! the ISA's `Instr` (decode) and from the behaviour stated in each block's
//! doc comment; nothing here calls the RTL code.

use crate::golden::isa::{Form, Instr, ModKind, Op, Src, Unit, PT, RZ};

/// Decoded fields as the reference sees them (same meaning as the ports
/// of `units::decode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Dec {
    pub err: bool,
    pub unit: u8,
    pub op: u8,
    pub m: u8,
    pub gpred: u8,
    pub gneg: bool,
    pub ra: u8,
    pub rb: u8,
    pub rc: u8,
    /// bit 0 a, bit 1 b, bit 2 c.
    pub pair: u8,
    pub kind: u8,
    pub dst: u8,
    pub use_imm: bool,
    pub imm: u32,
    pub prd: u8,
    pub fmul: bool,
}

/// The reference decode of one word, from `Instr::decode` and `Op::unit`.
/// The SIMT decoder takes no GPU-CC instruction (`Op::is_gpucc`): an error,
/// as the reserved opcodes.
pub fn ref_decode(w: u64, fp64_ok: bool) -> Dec {
    let i = match Instr::decode(w) {
        Ok(i) if !i.op.is_gpucc() => i,
        _ => {
            return Dec {
                err: true,
                ..Dec::default()
            }
        }
    };
    dec_of(&i, fp64_ok)
}

/// The reference decode of a valid instruction.
pub fn dec_of(i: &Instr, fp64_ok: bool) -> Dec {
    let info = i.info();
    let uses = info.form.uses();
    let unit = i.op.unit();
    let breg = match i.b {
        Src::Reg(r) => Some(r),
        Src::Imm(_) => None,
    };
    let wide = info.modk == ModKind::Width && i.wide();
    let non_cas_atom = info.form == Form::Atom && i.atom_op() != crate::golden::isa::AtomOp::Cas;
    let ppp = info.form == Form::PPP;
    let kind = if info.form == Form::PAB || ppp {
        if i.d == PT {
            0
        } else {
            3
        }
    } else if uses.d && i.d != RZ {
        if info.pairs.d || (info.form == Form::Load && wide) {
            2
        } else {
            1
        }
    } else {
        0
    };
    let mut prd = 0u8;
    if i.guard.pred != PT {
        prd |= 1 << i.guard.pred;
    }
    if info.modk == ModKind::Pred && i.sel_pred().pred != PT {
        prd |= 1 << i.sel_pred().pred;
    }
    if ppp {
        for k in 0..2 {
            let p = i.pred_src(k).pred;
            if p != PT {
                prd |= 1 << p;
            }
        }
    }
    Dec {
        err: unit == Unit::Dpu && !fp64_ok,
        unit: unit as u8,
        op: i.op as u8,
        m: i.m,
        gpred: i.guard.pred,
        gneg: i.guard.neg,
        ra: if uses.a && !ppp { i.a } else { RZ },
        rb: match breg {
            Some(r) if uses.b && !ppp => r,
            _ => RZ,
        },
        rc: if uses.c && breg.is_some() && !non_cas_atom {
            i.c
        } else if info.form == Form::DABCI && breg.is_none() {
            i.d
        } else {
            RZ
        },
        pair: info.pairs.a as u8
            | ((info.pairs.b || (info.form == Form::Store && wide)) as u8) << 1
            | (info.pairs.c as u8) << 2,
        kind,
        dst: i.d,
        use_imm: breg.is_none(),
        imm: match i.b {
            Src::Imm(v) => v,
            Src::Reg(_) if ppp => (i.pred_src(0).pred as u32 & 7) | (i.pred_src(1).pred as u32 & 7) << 3,
            Src::Reg(_) => match info.form {
                Form::Load | Form::Store | Form::Atom => i.offset() as u32,
                _ => i.e as u32,
            },
        },
        prd,
        fmul: i.op == Op::Fmul,
    }
}

pub fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A word that is usually a valid instruction: random opcode of the ISA,
/// guard P0-P3 or PT, registers R0-R127 (sometimes RZ), unused fields 0.
/// One word in 8 is `raw` unchanged and one in 8 keeps one raw field, so
/// the error paths are exercised too.
pub fn plausible_word(r: u64, raw: u64) -> u64 {
    let h = mix(r);
    match h & 7 {
        0 => return raw,
        1 => return random_instr(mix(h)).encode() ^ (raw & (0xffu64 << (8 * (h >> 3 & 7)))),
        _ => {}
    }
    random_instr(mix(h ^ raw)).encode()
}

/// A random valid instruction built from `h`.
pub fn random_instr(h: u64) -> Instr {
    let mut x = h;
    let mut next = |n: u64| {
        x = mix(x);
        x % n
    };
    loop {
        let op = Op::ALL[next(Op::ALL.len() as u64) as usize];
        if op.is_gpucc() {
            continue;
        }
        let info = op.info();
        let u = info.form.uses();
        let reg = |v: u64| if v.is_multiple_of(16) { RZ } else { (v % 128) as u8 };
        let mut i = Instr::new(op);
        if op.takes_guard() && next(2) == 0 {
            i.guard.pred = next(4) as u8;
            i.guard.neg = next(2) == 0;
        }
        i.m = next(16) as u8;
        let pick = |v: u64, pair: bool| {
            let r = reg(v);
            if pair && r != RZ {
                r & !1
            } else {
                r
            }
        };
        if info.form == Form::PPP {
            let p = |v: u64| [0, 1, 2, 3, PT][v as usize];
            i.d = p(next(5));
            i.a = p(next(5));
            i.b = Src::Reg(p(next(5)));
            i.m = next(16) as u8;
            if i.validate().is_ok() {
                return i;
            }
            continue;
        }
        if u.d {
            i.d = if info.form == Form::PAB {
                [0, 1, 2, 3, PT][next(5) as usize]
            } else {
                pick(next(1 << 20), info.pairs.d)
            };
        }
        if u.a {
            i.a = pick(next(1 << 20), info.pairs.a);
        }
        if info.form == Form::Target || (info.allows_imm() && next(3) == 0) {
            i.b = Src::Imm(next(1 << 32) as u32);
        } else {
            if u.b {
                i.b = Src::Reg(pick(next(1 << 20), info.pairs.b));
            }
            if u.c {
                i.c = pick(next(1 << 20), info.pairs.c);
            }
            if u.e {
                i.e = if info.form == Form::Sreg {
                    next(13) as u16
                } else {
                    next(1 << 16) as u16
                };
            }
        }
        if info.modk == ModKind::Width && i.m & 1 == 1 {
            if info.form == Form::Store {
                if let Src::Reg(r) = i.b {
                    if r != RZ {
                        i.b = Src::Reg(r & !1);
                    }
                }
            } else if i.d != RZ {
                i.d &= !1;
            }
        }
        if info.form == Form::Atom && i.m != 4 {
            i.c = 0;
        }
        if i.validate().is_ok() {
            return i;
        }
    }
}

/// Reference scoreboard: for every warp the set of pending registers and
/// predicates, kept as lists.
#[derive(Debug, Clone)]
pub struct SbRef {
    pub regs: Vec<Vec<u8>>,
    pub preds: Vec<Vec<u8>>,
}

/// A tag's destination as (registers, predicates).
pub fn tag_dst(tag: u32) -> (Vec<u8>, Vec<u8>) {
    let dst = (tag >> 6 & 0xff) as u8;
    match tag >> 14 & 3 {
        1 if dst < 128 => (vec![dst], vec![]),
        2 if dst < 128 => (if dst < 127 { vec![dst, dst + 1] } else { vec![dst] }, vec![]),
        3 => (vec![], vec![dst & 3]),
        _ => (vec![], vec![]),
    }
}

impl SbRef {
    pub fn new(warps: usize) -> Self {
        SbRef {
            regs: vec![vec![]; warps],
            preds: vec![vec![]; warps],
        }
    }
    /// May warp `w`'s head (fields as in [`Dec`]) issue?
    pub fn ok(&self, w: usize, d: &Dec) -> bool {
        let mut regs = vec![];
        for (k, r) in [d.ra, d.rb, d.rc].into_iter().enumerate() {
            if r < 128 {
                regs.push(r);
                if d.pair >> k & 1 == 1 && r < 127 {
                    regs.push(r + 1);
                }
            }
        }
        let (dr, dp) = tag_dst((d.kind as u32) << 14 | (d.dst as u32) << 6);
        regs.extend(dr);
        let mut preds = dp;
        preds.extend((0..4).filter(|p| d.prd >> p & 1 == 1));
        !regs.iter().any(|r| self.regs[w].contains(r)) && !preds.iter().any(|p| self.preds[w].contains(p))
    }
    pub fn idle(&self, w: usize) -> bool {
        self.regs[w].is_empty() && self.preds[w].is_empty()
    }
    /// One edge: releases, then sets, then the clear.
    pub fn edge(&mut self, sets: &[Option<u32>], rels: &[Option<u32>], clr: Option<usize>) {
        for t in rels.iter().flatten() {
            let w = (t & 0x3f) as usize;
            if w < self.regs.len() {
                let (r, p) = tag_dst(*t);
                self.regs[w].retain(|x| !r.contains(x));
                self.preds[w].retain(|x| !p.contains(x));
            }
        }
        for t in sets.iter().flatten() {
            let w = (t & 0x3f) as usize;
            if w < self.regs.len() {
                let (r, p) = tag_dst(*t);
                for x in r {
                    if !self.regs[w].contains(&x) {
                        self.regs[w].push(x);
                    }
                }
                for x in p {
                    if !self.preds[w].contains(&x) {
                        self.preds[w].push(x);
                    }
                }
            }
        }
        if let Some(w) = clr {
            if w < self.regs.len() {
                self.regs[w].clear();
                self.preds[w].clear();
            }
        }
    }
}

/// Reference predicate file: `p[w][pred]` is the lane vector of predicate
/// `pred` of warp `w`.
#[derive(Debug, Clone)]
pub struct PfRef {
    pub p: Vec<[u32; 4]>,
}

impl PfRef {
    pub fn new(warps: usize) -> Self {
        PfRef { p: vec![[0; 4]; warps] }
    }
    /// One edge: writes `(warp, idx, mask, val)` in channel order, then the clear.
    pub fn edge(&mut self, writes: &[(usize, usize, u32, u32)], clr: Option<usize>) {
        for &(w, idx, mask, val) in writes {
            if w < self.p.len() {
                let p = &mut self.p[w][idx & 3];
                *p = (*p & !mask) | (val & mask);
            }
        }
        if let Some(w) = clr {
            if w < self.p.len() {
                self.p[w] = [0; 4];
            }
        }
    }
    /// The 128-bit row of warp `w` as the RTL shows it.
    pub fn row(&self, w: usize) -> u128 {
        (0..4).map(|k| (self.p[w][k] as u128) << (32 * k)).fold(0, |a, b| a | b)
    }
}

/// One local warp as the scheduler sees it.
#[derive(Debug, Clone, Copy, Default)]
pub struct WarpView {
    pub valid: bool,
    pub bar_wait: bool,
    pub head: bool,
    pub sb_ok: bool,
    pub dec: Dec,
    pub pc: u16,
    pub active: u32,
    /// P0..P3 lane vectors.
    pub preds: [u32; 4],
}

/// What one scheduler does in one cycle (all zero when it issues nothing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Issue {
    pub valid: bool,
    pub ctrl: bool,
    pub unit: u8,
    pub warp: u8,
    pub op: u8,
    pub m: u8,
    pub tag: u32,
    pub ra: u8,
    pub rb: u8,
    pub rc: u8,
    pub pair: u8,
    pub use_imm: bool,
    pub imm: u32,
    pub pc: u16,
    pub mask: u32,
    pub pa: u32,
    pub set: bool,
    /// PSETP's predicate write: (Pd, lanes, values on those lanes).
    pub sw: Option<(u8, u32, u32)>,
}

/// Reference warp scheduler (policy of `units::sched`'s doc comment).
#[derive(Debug, Clone)]
pub struct SchedRef {
    pub p: crate::units::sched::SchedParams,
    pub lw: usize,
    pub rr: usize,
    pub last_sp: bool,
}

impl SchedRef {
    pub fn new(p: crate::units::sched::SchedParams, lw: usize) -> Self {
        SchedRef {
            p,
            lw,
            rr: lw - 1,
            last_sp: false,
        }
    }
    /// The unit warp `v`'s head goes to with readiness `ready`.
    pub fn eff_unit(&self, v: &WarpView, ready: u8) -> u8 {
        let r = |k: u8| ready >> k & 1 == 1;
        // After an SP issue a dual-issue scheduler sends the MUL to the
        // SFU's multipliers; otherwise the SFU takes it only when the SP
        // cannot.
        let sfu_first = self.p.alt && self.last_sp;
        if v.dec.fmul && self.p.sfu_fmul && r(1) && (sfu_first || !r(0)) {
            1
        } else {
            v.dec.unit
        }
    }
    /// Choose and issue; `peer` = (valid, unit) of scheduler 0 this cycle.
    /// Also returns the first warp with a bad head (global id, pc).
    pub fn cycle(&mut self, warps: &[WarpView], ready: u8, peer: Option<u8>) -> (Issue, Option<(u8, u16)>) {
        let elig = |w: usize| {
            let v = &warps[w];
            let e = self.eff_unit(v, ready);
            let ur = v.dec.unit == 4 || (e < 4 && ready >> e & 1 == 1);
            let conflict = matches!((peer, e), (Some(2), 0) | (Some(0), 2));
            v.valid && v.head && !v.bar_wait && v.sb_ok && !v.dec.err && ur && !conflict
        };
        let order: Vec<usize> = (self.rr + 1..self.lw).chain(0..=self.rr).collect();
        let pref = |w: usize| (self.eff_unit(&warps[w], ready) == 0) != self.last_sp;
        let chosen = if self.p.alt {
            order
                .iter()
                .copied()
                .find(|&w| elig(w) && pref(w))
                .or_else(|| order.iter().copied().find(|&w| elig(w)))
        } else {
            order.iter().copied().find(|&w| elig(w))
        };
        let gid = |w: usize| (w as u32 * self.p.ns + self.p.sidx) as u8;
        let bad = (0..self.lw)
            .find(|&w| warps[w].valid && warps[w].head && warps[w].dec.err)
            .map(|w| (gid(w), warps[w].pc));
        let Some(w) = chosen else {
            return (Issue::default(), bad);
        };
        let v = &warps[w];
        let d = &v.dec;
        let unit = self.eff_unit(v, ready);
        // PT reads all ones; a negation applies to it as to P0..P3
        // (`PSETP Pd, Pa, !PT` gives Pd = 0).
        let pval = |idx: u8, neg: bool| {
            let p = if idx == PT { u32::MAX } else { v.preds[idx as usize & 3] };
            if neg {
                !p
            } else {
                p
            }
        };
        let mask = v.active & pval(d.gpred, d.gneg);
        let tag = (v.pc as u32) << 16 | (d.kind as u32) << 14 | (d.dst as u32) << 6 | gid(w) as u32;
        self.rr = w;
        self.last_sp = unit == 0;
        (
            Issue {
                valid: true,
                ctrl: unit == 4,
                unit,
                warp: gid(w),
                op: d.op,
                m: d.m,
                tag,
                ra: d.ra,
                rb: d.rb,
                rc: d.rc,
                pair: d.pair,
                use_imm: d.use_imm,
                imm: d.imm,
                pc: v.pc,
                mask,
                pa: if d.op == Op::Sel as u8 { pval(d.m & 7, false) } else { 0 },
                set: d.kind != 0 && d.op != Op::Psetp as u8,
                sw: (d.op == Op::Psetp as u8 && d.kind == 3).then(|| {
                    let a = pval(d.imm as u8 & 7, d.m & 4 != 0);
                    let b = pval(d.imm as u8 >> 3 & 7, d.m & 8 != 0);
                    let v = match d.m & 3 {
                        0 => a & b,
                        1 => a | b,
                        _ => a ^ b,
                    };
                    (d.dst & 3, mask, v & mask)
                }),
            },
            bad,
        )
    }
}

/// Reference IMUL delay table (`units::imuldly`): entries as
/// `Some((tag, cycles left, wb released))`.
#[derive(Debug, Clone)]
pub struct ImdRef {
    pub ent: Vec<Option<(u32, u32, bool)>>,
    pub count: u32,
    pub channels: usize,
}

impl ImdRef {
    pub fn new(entries: usize, count: u32, channels: usize) -> Self {
        ImdRef {
            ent: vec![None; entries],
            count,
            channels,
        }
    }
    /// Fewer free entries than channels.
    pub fn full(&self) -> bool {
        self.ent.iter().filter(|e| e.is_none()).count() < self.channels
    }
    /// Is `t` held by an entry still counting?
    pub fn withholds(&self, t: u32) -> bool {
        self.ent.iter().flatten().any(|&(g, left, _)| g == t && left > 0)
    }
    /// One core cycle: returns the releases the scoreboard sees (per
    /// channel), then takes the edge.
    pub fn step(&mut self, sets: &[Option<u32>], rels: &[Option<u32>]) -> Vec<Option<u32>> {
        let passed: Vec<Option<u32>> = rels.iter().map(|r| r.filter(|&t| !self.withholds(t))).collect();
        let mut out = passed.clone();
        let mut late: Vec<usize> = vec![];
        for o in out.iter_mut() {
            if o.is_some() {
                continue;
            }
            let next = (0..self.ent.len()).find(|&k| !late.contains(&k) && matches!(self.ent[k], Some((_, 0, true))));
            if let Some(k) = next {
                late.push(k);
                *o = self.ent[k].map(|e| e.0);
            }
        }
        let released: Vec<u32> = rels.iter().flatten().copied().collect();
        let was_free: Vec<bool> = self.ent.iter().map(|e| e.is_none()).collect();
        for (k, slot) in self.ent.iter_mut().enumerate() {
            if let Some((t, left, done)) = *slot {
                let hit = released.contains(&t);
                *slot = if late.contains(&k) || (hit && left == 0) {
                    None
                } else {
                    Some((t, left.saturating_sub(1), done || hit))
                };
            }
        }
        let mut used = vec![false; self.ent.len()];
        for t in sets.iter().flatten() {
            if let Some(k) = (0..self.ent.len()).find(|&k| was_free[k] && !used[k]) {
                used[k] = true;
                self.ent[k] = Some((*t, self.count, false));
            }
        }
        out
    }
}
