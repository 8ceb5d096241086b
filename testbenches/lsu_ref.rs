//! Plain-Rust reference of the LSU (`units::lsu`), written from the rules in
//! docs/lsu.md, not from the block: a transaction model that plans a whole
//! warp instruction when it is accepted (the list of global transactions,
//! the list of distinct parameter indices, the shared requests) and then
//! plays the plan cycle by cycle against the memory handshakes it is given.
//! Its outputs are compared with the RTL's every core cycle.
//!
//! Cycle rules (cycle 1 = the cycle after the accepting edge): an error
//! answers in cycle 1; shared requests are presented from cycle 1 until
//! accepted and the result follows the (last) smem response by one cycle;
//! global transactions are presented one per cycle from cycle 1 in plan
//! order; a store answers in the cycle after its last transaction is
//! accepted; LDC reads one distinct index per cycle in cycles 1..D and
//! answers in D + 2.
//!
//! Load slots (docs/lsu.md): a global load or atomic, or an LDC, with an
//! active lane takes the lowest free slot, which keeps its plan and
//! collects the responses (an LDC: the word of each read, in the cycle
//! after it; the last one seals the slot); the front is free again once
//! the last transaction is accepted (an LDC: its last index read). Each of its transactions is presented only while a request
//! tag is free and takes the lowest free tag, which is its id (stores: id
//! 0), until its response. The front takes an instruction only while a
//! slot is free and no atomic is in a slot; a global atomic with a lane
//! and a fence wait (drain) until no slot is busy, everything else starts
//! at once. A slot answers in the cycle after its last response, unless
//! the front answers in that cycle (then the lowest such slot answers
//! first, the others wait).

use crate::golden::isa::Op;

/// Block geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LsuGeom {
    /// Resident warps (shared bases).
    pub warps: usize,
    /// Coalescing group: 16 (half-warp) or 32 lanes.
    pub group: usize,
    /// compute 1.2/1.3 segment reduction.
    pub shrink: bool,
}

impl LsuGeom {
    pub fn from_config(c: &crate::config::SmConfig) -> LsuGeom {
        let g = c.smem_request_threads as usize;
        LsuGeom {
            warps: c.max_warps as usize,
            group: g,
            shrink: g == 16,
        }
    }
}

/// The LSU's inputs in one core cycle.
#[derive(Debug, Clone, Default)]
pub struct LsuIns {
    pub valid: bool,
    pub op: u8,
    pub md: u8,
    pub mask: u32,
    pub a: [u32; 32],
    pub b: [u64; 32],
    pub c: [u32; 32],
    pub off: u32,
    pub tag: u32,
    pub sbase: Vec<u32>,
    pub ssize: u32,
    pub param_we: bool,
    pub param_addr: u8,
    pub param_data: u32,
    pub gm_size: u32,
    pub sm_ready: bool,
    pub sm_resp_valid: bool,
    pub sm_rdata: [u32; 32],
    pub sm_err: bool,
    pub sm_conflict: bool,
    pub gm_req_ready: bool,
    pub gm_resp_valid: bool,
    pub gm_resp_id: u8,
    pub gm_resp_rdata: [u32; 32],
    /// The write-back cannot take a result this cycle (`lsu_res_ready_i`
    /// low): the result stays presented.
    pub res_stall: bool,
}

/// The LSU's outputs in one core cycle (payloads zero when not valid).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LsuOuts {
    pub ready: bool,
    pub sm_req_valid: bool,
    pub sm_op: u8,
    pub sm_active: u32,
    pub sm_addr: [u16; 32],
    pub sm_data: [u32; 32],
    pub sm_cmp: [u32; 32],
    pub gm_req_valid: bool,
    pub gm_req_id: u8,
    pub gm_req_write: bool,
    pub gm_req_atom: u8,
    pub gm_req_addr: u32,
    pub gm_req_size: u8,
    pub gm_req_wmask: u32,
    pub gm_req_wdata: [u32; 32],
    pub res_valid: bool,
    pub res_tag: u32,
    pub res_mask: u32,
    pub res_data: [u64; 32],
    pub res_err: bool,
    pub res_err_code: u8,
    pub idle: bool,
    pub cnt_gm_req: u32,
    pub cnt_sm_conf: u32,
    pub cnt_busy: u32,
    pub err: bool,
    pub err_code: u8,
    pub err_warp: u8,
    pub err_lane: u8,
    pub err_addr: u32,
}

/// One planned global transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Txn {
    pub lanes: u32,
    pub addr: u32,
    pub size: u8,
    pub wmask: u32,
    pub wdata: [u32; 32],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Shared,
    Global,
    Param,
    /// `MEMBAR`: waits for every slot, then answers.
    Fence,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    Idle,
    /// Presenting the shared request of half `phase` (0 low words).
    SReq(u8),
    SWait(u8),
    Global,
    /// LDC: next pass index.
    Param,
    Resp,
    /// Accepted, waiting for every slot to retire.
    Drain,
}

/// A load (or atomic) waiting for its responses.
#[derive(Debug, Clone)]
struct Slot {
    tag: u32,
    mask: u32,
    wide: bool,
    atom: bool,
    addr: [u32; 32],
    txns: Vec<u32>,
    /// Every transaction has been accepted.
    sealed: bool,
    got: usize,
    lo: [u32; 32],
    hi: [u32; 32],
}

impl Slot {
    fn done(&self) -> bool {
        self.sealed && self.got == self.txns.len()
    }
}

/// Coalesce the lanes `mask` of a warp access (`addr` byte addresses,
/// `wide` = 8-byte access) into transactions, compute 1.2/1.3 style:
/// per group of lanes, the 128-byte segment of the lowest pending lane,
/// shrunk to 64/32 bytes when `shrink` and only one half is used.
pub fn coalesce(
    g: &LsuGeom,
    addr: &[u32; 32],
    mask: u32,
    wide: bool,
    store: Option<(&[u32; 32], &[u32; 32])>,
) -> Vec<Txn> {
    let mut out = vec![];
    for grp in 0..32 / g.group {
        let gmask = if g.group == 32 {
            u32::MAX
        } else {
            0xffffu32 << (16 * grp)
        };
        let mut pend = mask & gmask;
        while pend != 0 {
            let lead = pend.trailing_zeros() as usize;
            let seg = addr[lead] >> 7;
            let lanes: u32 = (0..32)
                .filter(|&l| pend >> l & 1 == 1 && addr[l] >> 7 == seg)
                .fold(0, |m, l| m | 1 << l);
            let mut size = 2u8;
            let mut base = seg << 7;
            if g.shrink {
                let halves = |bit: u32| {
                    let mut h = [false; 2];
                    for l in 0..32 {
                        if lanes >> l & 1 == 1 {
                            h[(addr[l] >> bit & 1) as usize] = true;
                        }
                    }
                    h[0] && h[1]
                };
                if !halves(6) {
                    size = 1;
                    base = addr[lead] & !63;
                    if !halves(5) {
                        size = 0;
                        base = addr[lead] & !31;
                    }
                }
            }
            let (mut wmask, mut wdata) = (0u32, [0u32; 32]);
            if let Some((lo, hi)) = store {
                for l in 0..32 {
                    if lanes >> l & 1 == 0 {
                        continue;
                    }
                    let w = (addr[l] >> 2 & 31) as usize;
                    if wide {
                        let w0 = w & !1;
                        wdata[w0] = lo[l];
                        wdata[w0 + 1] = hi[l];
                        wmask |= 3 << w0;
                    } else {
                        wdata[w] = lo[l];
                        wmask |= 1 << w;
                    }
                }
            }
            out.push(Txn {
                lanes,
                addr: base,
                size,
                wmask,
                wdata,
            });
            pend &= !lanes;
        }
    }
    out
}

/// The reference LSU.
#[derive(Debug, Clone)]
pub struct LsuRef {
    pub g: LsuGeom,
    params: [u32; 256],
    pcount: u32,
    st: St,
    kind: Kind,
    op: u8,
    store: bool,
    atom: bool,
    wide: bool,
    aop: u8,
    tag: u32,
    mask: u32,
    addr: [u32; 32],
    lo: [u32; 32],
    hi: [u32; 32],
    cmp: [u32; 32],
    err: Option<(u8, u8, u32)>,
    txns: Vec<Txn>,
    next: usize,
    got: usize,
    /// LDC: (index, lanes) per pass; `capt` = (slot, word, lanes, last
    /// pass) read last cycle, which lands in the slot at this edge.
    passes: Vec<(u8, u32)>,
    capt: Option<(usize, u32, u32, bool)>,
    cnt_gm: u32,
    cnt_conf: u32,
    cnt_busy: u32,
    /// The instruction in the front collects into `slots[fslot]`.
    own: bool,
    fslot: usize,
    slots: Vec<Option<Slot>>,
    /// Request tags out in memory: (slot, transaction index).
    tags: Vec<Option<(usize, usize)>>,
}

impl LsuRef {
    pub fn new(g: LsuGeom, nslots: usize, ntags: usize) -> LsuRef {
        LsuRef {
            g,
            params: [0; 256],
            pcount: 0,
            st: St::Idle,
            kind: Kind::Global,
            op: 0,
            store: false,
            atom: false,
            wide: false,
            aop: 0,
            tag: 0,
            mask: 0,
            addr: [0; 32],
            lo: [0; 32],
            hi: [0; 32],
            cmp: [0; 32],
            err: None,
            txns: vec![],
            next: 0,
            got: 0,
            passes: vec![],
            capt: None,
            cnt_gm: 0,
            cnt_conf: 0,
            cnt_busy: 0,
            own: false,
            fslot: 0,
            slots: vec![None; nslots],
            tags: vec![None; ntags],
        }
    }

    fn any_busy(&self) -> bool {
        self.slots.iter().any(|s| s.is_some())
    }

    fn ready(&self) -> bool {
        self.st == St::Idle && self.slots.iter().any(|s| s.is_none()) && !self.slots.iter().flatten().any(|s| s.atom)
    }

    /// The slot that answers this cycle.
    fn pulse_slot(&self) -> Option<usize> {
        if self.st == St::Resp {
            return None;
        }
        self.slots.iter().position(|s| s.as_ref().is_some_and(|s| s.done()))
    }

    /// Give the front's instruction the lowest free slot.
    fn alloc(&mut self) {
        let j = self.slots.iter().position(|s| s.is_none()).expect("a free slot");
        self.fslot = j;
        self.slots[j] = Some(Slot {
            tag: self.tag,
            mask: self.mask,
            wide: self.wide,
            atom: self.atom,
            addr: self.addr,
            txns: self.txns.iter().map(|t| t.lanes).collect(),
            sealed: false,
            got: 0,
            lo: [0; 32],
            hi: [0; 32],
        });
    }

    /// The state that performs the accepted instruction.
    fn start(&mut self) {
        self.st = match self.kind {
            Kind::Shared => St::SReq(0),
            Kind::Global => St::Global,
            Kind::Param => St::Param,
            Kind::Fence => St::Resp,
        };
        if self.own {
            self.alloc();
        }
    }

    fn sm_op(&self) -> u8 {
        if self.atom {
            self.aop + 2
        } else {
            self.store as u8
        }
    }

    fn txn_now(&self) -> Option<(u8, u8, Txn)> {
        if self.st != St::Global || self.next >= self.txns.len() {
            return None;
        }
        let mut t = self.txns[self.next].clone();
        let mut atom = 0;
        if self.atom {
            let l = t.lanes.trailing_zeros() as usize;
            atom = self.aop + 1;
            t.addr = self.addr[l];
            t.size = 0;
            t.wmask = 1;
            t.wdata = [0; 32];
            t.wdata[0] = self.lo[l];
            t.wdata[1] = self.cmp[l];
        }
        let id = if self.own {
            self.tags.iter().position(|t| t.is_none())? as u8
        } else {
            0
        };
        Some((id, atom, t))
    }

    /// Outputs of this cycle for inputs `i` (the block's outputs depend
    /// only on its state and `sbase`).
    pub fn outputs(&self, i: &LsuIns) -> LsuOuts {
        let mut o = LsuOuts {
            ready: self.ready(),
            idle: self.st == St::Idle && !self.any_busy(),
            cnt_gm_req: self.cnt_gm,
            cnt_sm_conf: self.cnt_conf,
            cnt_busy: self.cnt_busy,
            ..Default::default()
        };
        if let St::SReq(ph) = self.st {
            o.sm_req_valid = true;
            o.sm_op = self.sm_op();
            o.sm_active = self.mask;
            let w = (self.tag & 63) as usize;
            let base = if w < self.g.warps { i.sbase[w] & 0x1ffff } else { 0 };
            for l in 0..32 {
                let byte = base + (self.addr[l] & 0x1ffff);
                o.sm_addr[l] = ((byte >> 2) as u16).wrapping_add(ph as u16);
                o.sm_data[l] = if ph == 1 { self.hi[l] } else { self.lo[l] };
                o.sm_cmp[l] = self.cmp[l];
            }
        }
        if let Some((id, atom, t)) = self.txn_now() {
            o.gm_req_valid = true;
            o.gm_req_id = id;
            o.gm_req_write = self.store;
            o.gm_req_atom = atom;
            o.gm_req_addr = t.addr;
            o.gm_req_size = t.size;
            o.gm_req_wmask = t.wmask;
            o.gm_req_wdata = t.wdata;
        }
        if self.st == St::Resp {
            o.res_valid = true;
            o.res_tag = self.tag;
            o.res_mask = self.mask;
            for l in 0..32 {
                o.res_data[l] = (self.hi[l] as u64) << 32 | self.lo[l] as u64;
            }
            if let Some((code, lane, addr)) = self.err {
                o.res_err = true;
                o.res_err_code = code;
                o.err = true;
                o.err_code = code;
                o.err_warp = (self.tag & 63) as u8;
                o.err_lane = lane;
                o.err_addr = addr;
            }
        }
        if let Some(j) = self.pulse_slot() {
            let s = self.slots[j].as_ref().expect("busy");
            o.res_valid = true;
            o.res_tag = s.tag;
            o.res_mask = s.mask;
            for l in 0..32 {
                if s.mask >> l & 1 == 1 {
                    let hi = if s.wide { s.hi[l] } else { 0 };
                    o.res_data[l] = (hi as u64) << 32 | s.lo[l] as u64;
                }
            }
        }
        o
    }

    /// The core edge with inputs `i`.
    pub fn edge(&mut self, i: &LsuIns) {
        // Decisions below see the slots as they are before the edge.
        let pulsed = self.pulse_slot();
        let was_busy = self.any_busy();
        let sent = self.txn_now().filter(|_| i.gm_req_ready);
        let read_now = match self.st {
            St::Param if self.next < self.passes.len() => Some(self.passes[self.next]),
            _ => None,
        };
        // The parameter RAM is read-first: the read sees the old word.
        let read_val = read_now.map(|(idx, lanes)| (self.params[idx as usize], lanes));
        if i.param_we {
            self.params[i.param_addr as usize] = i.param_data;
            self.pcount = self.pcount.max(i.param_addr as u32 + 1);
        }
        if i.sm_conflict {
            self.cnt_conf = self.cnt_conf.wrapping_add(1);
        }
        if self.st != St::Idle || was_busy {
            self.cnt_busy = self.cnt_busy.wrapping_add(1);
        }
        // Responses go to the slot and transaction their tag was given.
        let resp_to = match i.gm_resp_valid {
            true => self.tags.get_mut(i.gm_resp_id as usize).and_then(|t| t.take()),
            false => None,
        };
        // Last cycle's parameter word lands in its slot (whatever the front
        // does now); the last pass seals it.
        if let Some((j, v, lanes, last)) = self.capt.take() {
            let s = self.slots[j].as_mut().expect("an LDC's slot");
            for l in 0..32 {
                if lanes >> l & 1 == 1 {
                    s.lo[l] = v;
                }
            }
            s.sealed |= last;
        }
        if let Some((j, x)) = resp_to {
            if let Some(s) = self.slots[j].as_mut() {
                s.got += 1;
                let lanes = s.txns.get(x).copied().unwrap_or(0);
                for l in 0..32 {
                    if lanes >> l & 1 == 0 {
                        continue;
                    }
                    let w = (s.addr[l] >> 2 & 31) as usize;
                    if s.atom {
                        s.lo[l] = i.gm_resp_rdata[0];
                    } else if s.wide {
                        s.lo[l] = i.gm_resp_rdata[w & !1];
                        s.hi[l] = i.gm_resp_rdata[w | 1];
                    } else {
                        s.lo[l] = i.gm_resp_rdata[w];
                    }
                }
            }
        }
        match self.st {
            St::Idle => {
                if i.valid && self.ready() {
                    self.accept(i, was_busy);
                }
            }
            St::Drain => {
                if !was_busy {
                    self.start();
                }
            }
            St::SReq(ph) => {
                if i.sm_ready {
                    self.st = St::SWait(ph);
                }
            }
            St::SWait(ph) => {
                if i.sm_resp_valid {
                    for l in 0..32 {
                        if self.mask >> l & 1 == 1 && !self.store {
                            if ph == 0 {
                                self.lo[l] = i.sm_rdata[l];
                            } else {
                                self.hi[l] = i.sm_rdata[l];
                            }
                        }
                    }
                    if i.sm_err && self.err.is_none() {
                        let l = if self.mask == 0 { 0 } else { self.mask.trailing_zeros() };
                        let a = if self.mask == 0 { 0 } else { self.addr[l as usize] };
                        self.err = Some((crate::units::lsu::ERR_SHARED as u8, l as u8, a));
                    }
                    let again = self.wide && ph == 0 && !self.atom;
                    self.st = if again && !i.sm_err { St::SReq(1) } else { St::Resp };
                }
            }
            St::Global => {
                if let Some((id, _, _)) = sent {
                    if self.own {
                        self.tags[id as usize] = Some((self.fslot, self.next));
                    }
                    self.next += 1;
                    self.cnt_gm = self.cnt_gm.wrapping_add(1);
                }
                if self.next == self.txns.len() {
                    if self.own {
                        self.slots[self.fslot].as_mut().expect("owned").sealed = true;
                        self.st = St::Idle;
                    } else {
                        self.st = St::Resp;
                    }
                }
            }
            St::Param => {
                if let Some((v, lanes)) = read_val {
                    self.next += 1;
                    let last = self.next == self.passes.len();
                    self.capt = Some((self.fslot, v, lanes, last));
                }
                if self.next == self.passes.len() {
                    // With lanes the slot answers; without, the front.
                    self.st = if self.own { St::Idle } else { St::Resp };
                }
            }
            St::Resp if !i.res_stall => self.st = St::Idle,
            St::Resp => {}
        }
        if let Some(j) = pulsed.filter(|_| !i.res_stall) {
            self.slots[j] = None;
        }
    }

    /// Take the offered instruction; `busy`: some slot was busy before the
    /// edge.
    fn accept(&mut self, i: &LsuIns, busy: bool) {
        let op = Op::from_code(i.op);
        let kind = match op {
            Some(Op::Lds | Op::Sts | Op::Atoms) => Some(Kind::Shared),
            Some(Op::Ldg | Op::Stg | Op::Atomg) => Some(Kind::Global),
            Some(Op::Ldc) => Some(Kind::Param),
            Some(Op::Membar) => Some(Kind::Fence),
            _ => None,
        };
        self.op = i.op;
        self.store = matches!(op, Some(Op::Sts | Op::Stg));
        self.atom = matches!(op, Some(Op::Atoms | Op::Atomg));
        let load = matches!(op, Some(Op::Lds | Op::Ldg));
        self.wide = i.md & 1 == 1 && (self.store || load);
        self.aop = i.md & 7;
        self.tag = i.tag;
        self.mask = i.mask;
        self.cmp = i.c;
        self.next = 0;
        self.got = 0;
        self.capt = None;
        self.txns.clear();
        self.passes.clear();
        for l in 0..32 {
            self.addr[l] = i.a[l].wrapping_add(i.off);
            let (blo, bhi) = (i.b[l] as u32, (i.b[l] >> 32) as u32);
            self.lo[l] = if load || kind == Some(Kind::Param) { 0 } else { blo };
            self.hi[l] = if self.store && self.wide { bhi } else { 0 };
        }
        // The golden model's checks (memory.rs / exec.rs): first bad lane.
        self.err = None;
        self.own = false;
        let Some(kind) = kind else {
            self.err = Some((crate::units::lsu::ERR_OP as u8, 0, 0));
            self.st = St::Resp;
            return;
        };
        self.kind = kind;
        let bytes = if self.wide { 8u64 } else { 4 };
        for l in 0..32 {
            if i.mask >> l & 1 == 0 {
                continue;
            }
            let a = self.addr[l] as u64;
            let bad = match kind {
                Kind::Param => i.a[l] as u64 + i.off as u64 >= self.pcount as u64,
                Kind::Shared => !a.is_multiple_of(bytes) || a + bytes > i.ssize as u64,
                Kind::Global => !a.is_multiple_of(bytes) || a + bytes > i.gm_size as u64,
                Kind::Fence => false,
            };
            if bad {
                let code = match kind {
                    Kind::Param => crate::units::lsu::ERR_PARAM,
                    Kind::Shared => crate::units::lsu::ERR_SHARED,
                    Kind::Global | Kind::Fence => crate::units::lsu::ERR_GLOBAL,
                };
                self.err = Some((code as u8, l as u8, self.addr[l]));
                self.st = St::Resp;
                return;
            }
        }
        self.txns = match kind {
            Kind::Global if self.atom => (0..32)
                .filter(|&l| i.mask >> l & 1 == 1)
                .map(|l| Txn {
                    lanes: 1 << l,
                    addr: 0,
                    size: 0,
                    wmask: 0,
                    wdata: [0; 32],
                })
                .collect(),
            Kind::Global => {
                let st = self.store.then_some((&self.lo, &self.hi));
                coalesce(&self.g, &self.addr, i.mask, self.wide, st)
            }
            _ => vec![],
        };
        if kind == Kind::Param {
            let mut pend = i.mask;
            while pend != 0 {
                let l = pend.trailing_zeros() as usize;
                let idx = self.addr[l] as u8;
                let lanes = (0..32)
                    .filter(|&k| pend >> k & 1 == 1 && self.addr[k] as u8 == idx)
                    .fold(0u32, |m, k| m | 1 << k);
                self.passes.push((idx, lanes));
                pend &= !lanes;
            }
        }
        self.own = i.mask != 0 && ((kind == Kind::Global && (load || self.atom)) || kind == Kind::Param);
        let waits = (self.own && self.atom) || kind == Kind::Fence;
        if !waits || !busy {
            self.start();
        } else {
            self.st = St::Drain;
        }
    }
}
