//! Reference model of the operand collectors and the banked register file
//! (`src/units/opcoll`, `src/units/regfile`), written from docs/regfile.md
//! in plain Rust: registers as `u32` arrays, age as issue stamps, the
//! mapping with integer division. It shares no logic with the RTL; it reads
//! the RTL's port structs (the interface) and produces the expected outputs
//! of every core cycle.

use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete};
use crate::units::opcoll::{OpcollIn, OpcollOut};
use crate::units::regfile::RfGeom;

const RZ: u32 = 255;

#[derive(Debug, Clone, Default)]
struct Coll {
    valid: bool,
    stamp: u64,
    unit: u32,
    op: u32,
    md: u32,
    tag: u32,
    use_imm: bool,
    imm: u32,
    mask: u32,
    pa: u32,
    pb: u32,
    /// Per read (a.lo a.hi b.lo b.hi c.lo c.hi): pending, granted last
    /// cycle, group, row, data per lane.
    pend: [bool; 6],
    got: [bool; 6],
    /// Source registers as issued.
    regs: [u32; 3],
    grp: [usize; 6],
    row: [usize; 6],
    data: [[u32; 32]; 6],
}

/// A read or write placement: group, row, beyond the allocation/file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub group: usize,
    pub row: usize,
    pub beyond: bool,
}

/// The documented mapping (docs/regfile.md).
pub fn place(g: &RfGeom, warp: u32, reg: u32, base: u32, nregs: u32) -> Place {
    let (s, h) = (g.scheds as u32, g.half as u32);
    let group = (warp % s) * h + (reg % h + (warp / s) % h) % h;
    let row = base + reg / h;
    Place {
        group: group as usize,
        row: row as usize,
        beyond: reg >= nregs || row as usize >= g.rows,
    }
}

/// Error report (code, warp, register).
type Err3 = Option<(u32, u32, u32)>;

/// The reference state.
#[derive(Debug, Clone)]
pub struct OpcollRef {
    pub g: RfGeom,
    /// `bank[group][row * 32 + lane]`.
    pub bank: Vec<Vec<u32>>,
    pub base: Vec<u32>,
    pub nregs: Vec<u32>,
    rdata: Vec<[u32; 32]>,
    done: Vec<bool>,
    ren: Vec<bool>,
    colls: Vec<Coll>,
    cycle: u64,
    cnt: [u32; 3],
    rf_err: Err3,
    oc_err: Err3,
}

fn b(v: Bits<1>) -> bool {
    v.to_u64() != 0
}
fn u(v: impl Into<u64>) -> u32 {
    v.into() as u32
}
fn lanes1(v: &[Bits<1>; 32]) -> u32 {
    (0..32).fold(0, |m, l| m | ((v[l].to_u64() as u32) << l))
}

/// One issue port, read from the ports.
struct IssueIn {
    valid: bool,
    unit: u32,
    op: u32,
    md: u32,
    tag: u32,
    regs: [u32; 3],
    pair: u32,
    use_imm: bool,
    imm: u32,
    mask: u32,
    pa: u32,
    pb: u32,
}

fn issue_in(i: &OpcollIn<Concrete>, s: usize) -> IssueIn {
    let p = &i.is[s];
    IssueIn {
        valid: b(p.valid),
        unit: u(p.unit.to_u64()),
        op: u(p.op.to_u64()),
        md: u(p.md.to_u64()),
        tag: u(p.tag.to_u64()),
        regs: [u(p.ra.to_u64()), u(p.rb.to_u64()), u(p.rc.to_u64())],
        pair: u(p.pair.to_u64()),
        use_imm: b(p.use_imm),
        imm: u(p.imm.to_u64()),
        mask: lanes1(&p.mask),
        pa: lanes1(&p.pa),
        pb: lanes1(&p.pb),
    }
}

struct WrIn {
    valid: bool,
    warp: u32,
    reg: u32,
    pair: bool,
    mask: u32,
    lo: [u32; 32],
    hi: [u32; 32],
}

fn wr_in(i: &OpcollIn<Concrete>, w: usize) -> WrIn {
    let c = &i.rf_wr[w];
    let (v, wp, r, p, m, lo, hi) = (c.valid, c.warp.to_u64(), c.reg.to_u64(), c.pair, &c.mask, &c.lo, &c.hi);
    WrIn {
        valid: b(v),
        warp: wp as u32,
        reg: r as u32,
        pair: b(p),
        mask: lanes1(m),
        lo: std::array::from_fn(|l| lo[l].to_u64() as u32),
        hi: std::array::from_fn(|l| hi[l].to_u64() as u32),
    }
}

impl OpcollRef {
    /// Reset state; banks zero.
    pub fn new(g: RfGeom) -> Self {
        OpcollRef {
            bank: vec![vec![0; g.rows.next_power_of_two() * 32]; g.groups],
            base: vec![0; g.max_warps],
            nregs: vec![0; g.max_warps],
            rdata: vec![[0; 32]; g.groups],
            done: vec![false; g.groups],
            ren: vec![false; g.groups],
            colls: vec![Coll::default(); g.collectors],
            cycle: 0,
            cnt: [0; 3],
            rf_err: None,
            oc_err: None,
            g,
        }
    }

    /// `is<s>_ready_o` per pool: all four units when a collector is free,
    /// but not the LSU while a collector of the pool holds an LSU
    /// instruction (one per pool).
    fn ready_bits(&self) -> [u32; 2] {
        let psz = self.g.collectors / self.g.scheds;
        std::array::from_fn(|s| {
            if s >= self.g.scheds {
                return 0;
            }
            let pool = &self.colls[s * psz..(s + 1) * psz];
            if pool.iter().all(|c| c.valid) {
                0
            } else if pool.iter().filter(|c| c.valid && c.unit == 3).count() >= crate::units::opcoll::LSU_PER_POOL {
                7
            } else {
                15
            }
        })
    }

    fn entry(&self, warp: u32) -> (u32, u32) {
        let w = warp as usize;
        if w < self.g.max_warps {
            (self.base[w], self.nregs[w])
        } else {
            (0, 0)
        }
    }

    /// Value of register `reg` of `warp`, lane `lane`, if it is allocated.
    pub fn reg(&self, warp: u32, reg: u32, lane: usize) -> Option<u32> {
        let (base, n) = self.entry(warp);
        let p = place(&self.g, warp, reg, base, n);
        (!p.beyond).then(|| self.bank[p.group][p.row * 32 + lane])
    }

    /// One core cycle: the outputs seen before the edge, then the edge.
    pub fn step(&mut self, i: &OpcollIn<Concrete>) -> OpcollOut<Concrete> {
        let g = self.g;
        let n = g.collectors;
        let psz = n / g.scheds;
        // 1. Reads in flight: arrived or dropped by a write.
        let mut epend = vec![[false; 6]; n];
        let mut val = vec![[[0u32; 32]; 6]; n];
        for (c, co) in self.colls.iter().enumerate() {
            for r in 0..6 {
                let done = self.done[co.grp[r]];
                epend[c][r] = co.pend[r] || (co.got[r] && !done);
                val[c][r] = if co.got[r] && done {
                    self.rdata[co.grp[r]]
                } else {
                    co.data[r]
                };
            }
        }
        let dropped = (0..g.groups).filter(|&k| self.ren[k] && !self.done[k]).count() as u32;
        // 2. Arbitration: per group the oldest collector, its first read.
        let mut grant = vec![[false; 6]; n];
        let mut rd: Vec<Option<usize>> = vec![None; g.groups];
        for (k, slot) in rd.iter_mut().enumerate() {
            let win = (0..n)
                .filter(|&c| (0..6).any(|r| epend[c][r] && self.colls[c].grp[r] == k))
                .min_by_key(|&c| self.colls[c].stamp);
            if let Some(c) = win {
                let r = (0..6).find(|&r| epend[c][r] && self.colls[c].grp[r] == k).unwrap();
                grant[c][r] = true;
                *slot = Some(self.colls[c].row[r]);
            }
        }
        let lost = (0..n)
            .flat_map(|c| (0..6).map(move |r| (c, r)))
            .filter(|&(c, r)| epend[c][r] && !grant[c][r])
            .count() as u32;
        // 3. Dispatch.
        let complete: Vec<bool> = (0..n)
            .map(|c| self.colls[c].valid && !epend[c].iter().any(|&p| p))
            .collect();
        let ok = [
            b(i.sp0_ready_i) && b(i.wb_room_sp0_i),
            b(i.sp1_ready_i) && b(i.wb_room_sp1_i),
            b(i.sfu_ready_i) && b(i.wb_room_sfu_i),
            b(i.dpu_ready_i) && b(i.wb_room_dpu_i),
            b(i.lsu_ready_i) && b(i.wb_room_lsu_i),
        ];
        let want = [(0, Some(0)), (0, Some(1)), (1, None), (2, None), (3, None)];
        let mut win: [Option<usize>; 5] = [None; 5];
        for (p, &(unit, pool)) in want.iter().enumerate() {
            if !ok[p] {
                continue;
            }
            win[p] = (0..n)
                .filter(|&c| complete[c] && self.colls[c].unit == unit && pool.is_none_or(|s| c / psz == s))
                .min_by_key(|&c| self.colls[c].stamp);
        }
        let stalls = (0..n).filter(|&c| complete[c] && !win.contains(&Some(c))).count() as u32;

        // Outputs (before the edge).
        let mut o: OpcollOut<Concrete> = zero_ports();
        let ready = self.ready_bits();
        o.is0_ready_o = Bits::new(ready[0] as u64);
        o.is1_ready_o = Bits::new(if g.scheds > 1 { ready[1] as u64 } else { 0 });
        let lanes32 = |v: [u32; 32]| -> [Bits<32>; 32] { std::array::from_fn(|l| Bits::new(v[l] as u64)) };
        let lanes64 = |hi: [u32; 32], lo: [u32; 32]| -> [Bits<64>; 32] {
            std::array::from_fn(|l| Bits::new(((hi[l] as u64) << 32) | lo[l] as u64))
        };
        let bits1 = |m: u32| -> [Bits<1>; 32] { std::array::from_fn(|l| Bits::new((m >> l & 1) as u64)) };
        let bval = |c: usize| -> [u32; 32] {
            let co = &self.colls[c];
            if co.use_imm {
                [co.imm; 32]
            } else {
                val[c][2]
            }
        };
        macro_rules! head {
            ($c:expr, $v:ident, $op:ident, $md:ident, $mask:ident, $tag:ident) => {
                let co = &self.colls[$c];
                o.$v = Bits::new(1);
                o.$op = Bits::new(co.op as u64);
                o.$md = Bits::new(co.md as u64);
                o.$mask = bits1(co.mask);
                o.$tag = Bits::new(co.tag as u64);
            };
        }
        for g in 0..2 {
            if let Some(c) = win[g] {
                let co = &self.colls[c];
                let p = &mut o.sp[g];
                p.valid = Bits::new(1);
                p.op = Bits::new(co.op as u64);
                p.md = Bits::new(co.md as u64);
                p.mask = bits1(co.mask);
                p.tag = Bits::new(co.tag as u64);
                p.a = lanes32(val[c][0]);
                p.b = lanes32(bval(c));
                p.c = lanes32(val[c][4]);
                p.pa = bits1(co.pa);
                p.pb = bits1(co.pb);
            }
        }
        if let Some(c) = win[2] {
            head!(c, sfu_valid_o, sfu_op_o, sfu_mod_o, sfu_mask_o, sfu_tag_o);
            o.sfu_a_o = lanes32(val[c][0]);
            o.sfu_b_o = lanes32(bval(c));
        }
        if let Some(c) = win[3] {
            head!(c, dpu_valid_o, dpu_op_o, dpu_mod_o, dpu_mask_o, dpu_tag_o);
            o.dpu_a_o = lanes64(val[c][1], val[c][0]);
            o.dpu_b_o = lanes64(val[c][3], bval(c));
            o.dpu_c_o = lanes64(val[c][5], val[c][4]);
        }
        if let Some(c) = win[4] {
            head!(c, lsu_valid_o, lsu_op_o, lsu_mod_o, lsu_mask_o, lsu_tag_o);
            o.lsu_a_o = lanes32(val[c][0]);
            o.lsu_b_o = lanes64(val[c][3], bval(c));
            o.lsu_c_o = lanes32(val[c][4]);
            o.lsu_off_o = Bits::new(self.colls[c].imm as u64);
        }
        o.cnt_rr_o = Bits::new(self.cnt[0] as u64);
        o.cnt_wr_o = Bits::new(self.cnt[1] as u64);
        o.cnt_stall_o = Bits::new(self.cnt[2] as u64);
        // Reads to come: a read is still to come while pending or granted
        // and not yet confirmed; registers of operands without one are 255.
        for k in 0..16 {
            o.war_reg_o[3 * k] = Bits::new(255);
            o.war_reg_o[3 * k + 1] = Bits::new(255);
            o.war_reg_o[3 * k + 2] = Bits::new(255);
        }
        for (c, co) in self.colls.iter().enumerate().filter(|(_, co)| co.valid) {
            let left = |r: usize| co.pend[r] || co.got[r];
            if !(0..6).any(left) {
                continue;
            }
            o.war_v_o[c] = Bits::new(1);
            o.war_warp_o[c] = Bits::new((co.tag & 63) as u64);
            for k in 0..3 {
                if left(2 * k) || left(2 * k + 1) {
                    o.war_reg_o[3 * c + k] = Bits::new(co.regs[k] as u64);
                    o.war_pair_o[3 * c + k] = Bits::new(left(2 * k + 1) as u64);
                }
            }
        }
        if let Some((code, w, r)) = self.rf_err.or(self.oc_err) {
            o.err_o = Bits::new(1);
            o.err_code_o = Bits::new(code as u64);
            o.err_warp_o = Bits::new(w as u64);
            o.err_reg_o = Bits::new(r as u64);
        }

        // 4. Register file edge: writes (checked), reads of free groups
        // (of every group with 1R1W banks).
        let mut busy = vec![false; g.groups];
        let mut writes = vec![];
        let mut rf_err: Err3 = None;
        for w in 0..g.scheds {
            let p = wr_in(i, w);
            if !p.valid || p.reg == RZ {
                continue;
            }
            let (base, nr) = self.entry(p.warp);
            let lo = place(&g, p.warp, p.reg, base, nr);
            let hi = place(&g, p.warp, p.reg + 1, base, nr);
            let err = if p.pair && p.reg % 2 == 1 {
                Some((4, p.reg))
            } else if g.scheds > 1 && p.warp as usize % g.scheds != w {
                Some((12, p.reg))
            } else if lo.beyond {
                Some((3, p.reg))
            } else if p.pair && hi.beyond {
                Some((3, p.reg + 1))
            } else {
                None
            };
            if let Some((code, r)) = err {
                rf_err = rf_err.or(Some((code, p.warp, r & 0xff)));
                continue;
            }
            busy[lo.group] = true;
            writes.push((lo, p.mask, p.lo));
            if p.pair {
                busy[hi.group] = true;
                writes.push((hi, p.mask, p.hi));
            }
        }
        for k in 0..g.groups {
            // 1RW: a write takes the group; 1R1W: the read happens too
            // (and reads the row before this edge's write).
            let en = rd[k].is_some() && (!busy[k] || g.dual_port);
            if en {
                let row = rd[k].unwrap();
                self.rdata[k] = std::array::from_fn(|l| self.bank[k][row * 32 + l]);
            }
            self.done[k] = en;
            self.ren[k] = rd[k].is_some();
        }
        for (pl, mask, data) in writes {
            for l in 0..32 {
                if mask >> l & 1 == 1 {
                    self.bank[pl.group][pl.row * 32 + l] = data[l];
                }
            }
        }

        // 5. Issue (with the table before this edge's allocation).
        let mut oc_err: Err3 = None;
        let mut fresh: Vec<(usize, Coll)> = vec![];
        for s in 0..g.scheds {
            let p = issue_in(i, s);
            let Some(c) = (s * psz..(s + 1) * psz).find(|&c| !self.colls[c].valid) else {
                continue;
            };
            if !p.valid || p.unit >= 4 || ready[s] >> p.unit & 1 == 0 {
                continue;
            }
            let warp = p.tag & 63;
            let (base, nr) = self.entry(warp);
            let mut co = Coll {
                valid: true,
                stamp: self.cycle * 2 + s as u64,
                unit: p.unit,
                op: p.op,
                md: p.md,
                tag: p.tag,
                use_imm: p.use_imm,
                imm: p.imm,
                mask: p.mask,
                pa: p.pa,
                pb: p.pb,
                regs: p.regs,
                ..Coll::default()
            };
            let mut err: Option<(u32, u32)> = None;
            for (k, &reg) in p.regs.iter().enumerate() {
                let pair = p.pair >> k & 1 == 1;
                if reg == RZ || (k == 1 && p.use_imm) {
                    continue;
                }
                let lo = place(&g, warp, reg, base, nr);
                let hi = place(&g, warp, reg + 1, base, nr);
                let e = if pair && reg % 2 == 1 {
                    Some((4, reg))
                } else if lo.beyond {
                    Some((3, reg))
                } else if pair && hi.beyond {
                    Some((3, (reg + 1) & 0xff))
                } else {
                    None
                };
                if e.is_some() {
                    err = err.or(e);
                    continue;
                }
                co.pend[2 * k] = true;
                (co.grp[2 * k], co.row[2 * k]) = (lo.group, lo.row);
                if pair {
                    co.pend[2 * k + 1] = true;
                    (co.grp[2 * k + 1], co.row[2 * k + 1]) = (hi.group, hi.row);
                }
            }
            if let Some((code, r)) = err {
                oc_err = oc_err.or(Some((code, warp, r)));
            }
            fresh.push((c, co));
        }

        // 6. Collectors after the edge.
        for c in 0..n {
            let dispatched = win.contains(&Some(c));
            let co = &mut self.colls[c];
            if dispatched {
                co.valid = false;
            }
            for r in 0..6 {
                co.pend[r] = epend[c][r] && !grant[c][r];
                co.got[r] = grant[c][r];
                co.data[r] = val[c][r];
            }
        }
        for (c, co) in fresh {
            self.colls[c] = co;
        }
        // 7. Allocation table, counters, errors.
        if b(i.al_valid_i) {
            let w = i.al_warp_i.to_u64() as usize;
            if w < g.max_warps {
                self.base[w] = i.al_base_i.to_u64() as u32;
                self.nregs[w] = i.al_nregs_i.to_u64() as u32;
            }
        }
        self.cnt[0] = self.cnt[0].wrapping_add(lost);
        self.cnt[1] = self.cnt[1].wrapping_add(dropped);
        self.cnt[2] = self.cnt[2].wrapping_add(stalls);
        self.rf_err = rf_err;
        self.oc_err = oc_err;
        self.cycle += 1;
        o
    }
}
