//! Load/store unit: address generation, range checks, shared-memory
//! requests through the `smem` unit, global-memory coalescing to the `gm_*`
//! port, parameter memory (`LDC`), global atomics.
//!
//! ```text
//!  lsu_valid_i op mod mask[32] a[32] b[64] c[32] off tag   (opcoll, 5.3)
//!        | accepted when lsu_ready_o (front idle, a slot free, no atomic
//!        | in a slot); addresses a+off and every lane's range/alignment
//!        v check computed at the accepting edge
//!  FRONT [instruction registers: op, tag, mask, addr[32], lo[32], hi[32], c[32]]
//!        |                 |                        |
//!   SREQ/SWAIT        GREQ: coalescer            CREQ: param RAM
//!   sm_req_* (lo,     per group (half-warp       256 x 32, one distinct
//!   then hi for .64)  on GT200) -> segment       index per cycle,
//!   -> u_smem         requests gm_req_*          broadcast to equal lanes
//!   <- sm_resp_*      (id = a free request tag)
//!        |                 | load / atomic: its slot, sealed when sent
//!        |                 v
//!        |     SLOT 0..K-1: tag, mask, per lane the request tag it waits
//!        |     for, word select, data  <- gm_resp_* (slot = tslot[id])
//!        \________________|________________________/
//!                         v
//!   lsu_res_* (valid until lsu_res_ready_i): the front's (RESP) wins,
//!   else the lowest slot with every response in; err_* on an error
//! ```
//!
//! * Clock domain: core. All outputs are functions of registers (Moore).
//! * Results: `lsu_res_valid_o` with tag, mask and data is held until a
//!   core edge with `lsu_res_ready_i` high takes it (the write-back
//!   queue's room); the timings below are with `lsu_res_ready_i` high. A
//!   slot's data waits in the slot, so the write-back queue needs no
//!   entry per instruction in flight.
//! * Load slots (`lsu_slots` = K, 1..=64): a global load or atomic, or an
//!   LDC, with an active lane takes the lowest free slot when it starts;
//!   once the front has sent its last request (an LDC: read its last
//!   index) the slot waits for the responses (the last word) and the
//!   front is free. Request tags (`lsu_tags` = T, 1..=256): each load or
//!   atomic request is presented only while a tag is free, takes the
//!   lowest free tag as its id (`tslot[tag]` = its slot) and frees it with
//!   its response (a store's id is 0). A global atomic with a lane starts
//!   only with every slot free (DRAIN) and blocks the front until it
//!   retires; `MEMBAR` waits in DRAIN until no slot is busy and answers;
//!   every other instruction starts at once (memory performs requests in
//!   the order it takes them, and the front sends an instruction's
//!   requests before it takes the next, so program order and the order
//!   across a barrier hold: docs/lsu.md). At most K instructions are
//!   accepted without their result pulse ([`max_out`]); with K = 1 the
//!   timing is that of a one-instruction LSU. Slot results return in
//!   completion order.
//! * Checks at the accepting edge, exactly the golden model's
//!   (`golden/model/memory.rs`): per lane in the mask, byte address
//!   `A = a + off` (32-bit wrap), access `B` = 8 bytes for `.64`
//!   loads/stores, else 4; bad when `A mod B != 0` or `A + B > size`
//!   (size = `ssize_i` shared, `gm_size_i` global). LDC: index
//!   `a + off` (33 bits, no wrap) must be below the parameter count (the
//!   highest parameter word written + 1). The lowest bad lane is reported:
//!   code 7 shared, 8 global, 13 parameter, 1 for an op that is not an LSU
//!   op; nothing is performed and the result pulse carries the error.
//! * Timing (cycle 1 = the cycle after the accepting edge):
//!   - error: result pulse in cycle 1.
//!   - shared: `sm_req_valid_o` from cycle 1 until `sm_ready_i`; the LSU
//!     waits for `sm_resp_valid_i`; `.64` repeats for the high words
//!     (second request in the cycle after the first response); the result
//!     pulse is in the cycle after the last response.
//!   - global: one request per cycle from cycle 1 (after DRAIN, if any)
//!     while a group has pending lanes (held until `gm_req_ready_i`);
//!     loads and atomics wait in their slot for every response, stores
//!     only for the acceptance of the last request; result pulse in the
//!     cycle after the last of these (a slot's waits while the front
//!     pulses).
//!   - LDC: D distinct indices read the RAM in cycles 1..D (each word
//!     lands in the slot in the next cycle), the front is free from cycle
//!     D + 1 and the slot's result pulse is in cycle D + 2.
//! * Coalescing (`gm_req_*`): per group of `group` lanes (16 = half-warp on
//!   Tesla/GT200, compute 1.2/1.3; 32 on Fermi), lower group first: the
//!   128-byte segment of the lowest pending lane, all pending lanes of the
//!   group in it; with `shrink` (GT200) a 128-byte request whose lanes use
//!   one 64-byte half shrinks to 64, and a 64-byte one using one 32-byte
//!   half to 32 (size code 0/1/2 = 32/64/128 bytes, `addr` the segment
//!   base). Word `i` of `wmask/wdata/rdata` is the word at
//!   `(addr & ~127) + 4 i`; a store's word comes from the highest lane
//!   writing it. Atomics: one request per lane in ascending lane order,
//!   `atom` = op + 1, `addr` = the lane's word address, `size` 0, operand
//!   in `wdata[0]`, CAS compare in `wdata[1]`; the memory returns the old
//!   word in `rdata[0]`. Ids are the request's tag (0 for a store);
//!   responses may come in any order. Writes get no response.
//! * Sizes from `SmConfig`: `MW` = `max_warps` (per-warp shared bases),
//!   `group` = `smem_request_threads` (16 or 32), `shrink` = group 16,
//!   K = `lsu_slots` (each slot: 32 lanes x (9 tag + 5 word select + 1
//!   mask) bits in registers, its data in the slot memories below), T =
//!   `lsu_tags` (each: busy + 6-bit slot).
//!   The parameter RAM holds 256 words (`param_addr_i` is 8 bits).
//! * Slot data: memories of 64 words x 32 bits per lane, addressed by
//!   slot: `slo<k>`/`shi<k>` (global responses, low and high words) and
//!   `sldc<k>` (LDC words), one write port each, no reset. Every edge
//!   reads the slot that pulses in the next cycle (`slot_raddr`); a word
//!   written into it at that edge also goes to `byp_lo<k>`/`byp_hi<k>`
//!   for that cycle (docs/lsu.md, "Where the data waits").

use crate::hdl::logic::{first_one, index, or_all, pick};
use crate::hdl::small::SmallBuf;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Mem, Reg, Sig, S};
use crate::units::gm::{GmReq, GmResp};

/// A per-slot list in `eval` (at most 8 slots), without heap.
type Slots<T> = SmallBuf<T, 64>;

/// Lanes per warp.
pub const LANES: usize = 32;
/// Warp instructions the LSU of `cfg` holds at once (accepted, result not
/// yet pulsed): the write-back queue for LSU results needs this many
/// entries. The front takes an instruction only while a slot is free and
/// holds one instruction without a slot at a time, so at most
/// `lsu_slots` are in flight.
pub fn max_out(cfg: &crate::config::SmConfig) -> usize {
    cfg.lsu_slots as usize
}

/// Opcodes (ISA table, `golden/isa.rs`).
pub const OP_LDC: u64 = crate::golden::isa::Op::Ldc as u64;
pub const OP_LDG: u64 = crate::golden::isa::Op::Ldg as u64;
pub const OP_STG: u64 = crate::golden::isa::Op::Stg as u64;
pub const OP_ATOMG: u64 = crate::golden::isa::Op::Atomg as u64;
pub const OP_LDS: u64 = crate::golden::isa::Op::Lds as u64;
pub const OP_STS: u64 = crate::golden::isa::Op::Sts as u64;
pub const OP_ATOMS: u64 = crate::golden::isa::Op::Atoms as u64;
pub const OP_MEMBAR: u64 = crate::golden::isa::Op::Membar as u64;

/// Error codes (docs/sm.md section 7).
pub const ERR_OP: u64 = crate::codes::ERR_OP;
pub const ERR_SHARED: u64 = crate::codes::ERR_SHARED;
pub const ERR_GLOBAL: u64 = crate::codes::ERR_GLOBAL;
pub const ERR_PARAM: u64 = crate::codes::ERR_PARAM;

crate::ports! {
    /// Dispatch, shared window, parameters, memory responses.
    pub struct LsuIn[MW] {
        lsu_valid_i: 1 @ Core,
        lsu_op_i: 7 @ Core,
        lsu_mod_i: 4 @ Core,
        lsu_mask_i: [1; 32] @ Core,
        lsu_a_i: [32; 32] @ Core,
        lsu_b_i: [64; 32] @ Core,
        lsu_c_i: [32; 32] @ Core,
        lsu_off_i: 32 @ Core,
        lsu_tag_i: 32 @ Core,
        sbase_i: [17; MW] @ Core,
        ssize_i: 17 @ Core,
        param_we_i: 1 @ Core,
        param_addr_i: 8 @ Core,
        param_data_i: 32 @ Core,
        gm_size_i: 32 @ Core,
        sm_ready_i: 1 @ Core,
        sm_resp_valid_i: 1 @ Core,
        sm_rdata_i: [32; 32] @ Core,
        sm_passes_i: 8 @ Core,
        sm_err_i: 1 @ Core,
        sm_pass_i: 1 @ Core,
        sm_conflict_i: 1 @ Core,
        gm_req_ready_i: 1 @ Core,
        gm_resp: GmResp @ in,
        lsu_res_ready_i: 1 @ Core,
    }
}
crate::ports! {
    /// Ready, memory requests, result, status, counters, error.
    pub struct LsuOut {
        lsu_ready_o: 1 @ Core,
        sm_req_valid_o: 1 @ Core,
        sm_op_o: 4 @ Core,
        sm_active_o: [1; 32] @ Core,
        sm_addr_o: [16; 32] @ Core,
        sm_data_o: [32; 32] @ Core,
        sm_cmp_o: [32; 32] @ Core,
        gm_req: GmReq @ out,
        lsu_res_valid_o: 1 @ Core,
        lsu_res_tag_o: 32 @ Core,
        lsu_res_mask_o: [1; 32] @ Core,
        lsu_res_data_o: [64; 32] @ Core,
        lsu_res_err_o: 1 @ Core,
        lsu_res_err_code_o: 8 @ Core,
        lsu_idle_o: 1 @ Core,
        cnt_gm_req_o: 32 @ Core,
        cnt_sm_conf_o: 32 @ Core,
        cnt_busy_o: 32 @ Core,
        err_o: 1 @ Core,
        err_code_o: 8 @ Core,
        err_warp_o: 6 @ Core,
        err_lane_o: 5 @ Core,
        err_addr_o: 32 @ Core,
    }
}

const IDLE: u64 = 0;
const SREQ: u64 = 1;
const SWAIT: u64 = 2;
const GREQ: u64 = 3;
const CREQ: u64 = 4;
const RESP: u64 = 5;
const DRAIN: u64 = 6;

/// The LSU for `MW` resident warps.
#[derive(Debug, Clone)]
pub struct Lsu<const MW: usize> {
    decl: Decl,
    group: usize,
    shrink: bool,
    params: Mem<32, 8>,
    pcount: Reg<9>,
    state: Reg<3>,
    op: Reg<7>,
    wide: Reg<1>,
    aop: Reg<3>,
    tag: Reg<32>,
    phase: Reg<1>,
    errv: Reg<1>,
    ecode: Reg<8>,
    elane: Reg<5>,
    eaddr: Reg<32>,
    issued: Reg<6>,
    cnt_gm: Reg<32>,
    cnt_conf: Reg<32>,
    cnt_busy: Reg<32>,
    mask: Vec<Reg<1>>,
    pending: Vec<Reg<1>>,
    capt: Vec<Reg<1>>,
    addr: Vec<Reg<32>>,
    lo: Vec<Reg<32>>,
    hi: Vec<Reg<32>>,
    cmp: Vec<Reg<32>>,
    /// The instruction in the front owns a load slot (`fslot`).
    own: Reg<1>,
    fslot: Reg<6>,
    /// An LDC's last parameter read was in the previous cycle: its word
    /// lands in slot `fslot` now and seals it.
    cfin: Reg<1>,
    /// Load slots (`lsu_slots`).
    slots: Vec<Slot>,
    /// Request tags (`lsu_tags`): tag `t` is out in memory (`tbusy`) for
    /// slot `tslot`; the tag is the request's id.
    tbusy: Vec<Reg<1>>,
    tslot: Vec<Reg<6>>,
    /// The slots' data, one memory per lane and kind, addressed by slot:
    /// a global response's low and high words (`slo`, `shi`) and an
    /// LDC's word (`sldc`), each written by its own port.
    slo: Vec<Mem<32, 6>>,
    shi: Vec<Mem<32, 6>>,
    sldc: Vec<Mem<32, 6>>,
    /// The word written at the edge that read the same slot (the read
    /// gives the word before the write): low word (`slo` or `sldc`) and
    /// high word (`byp_lo_v` serves both), valid for the one cycle after
    /// that edge.
    byp_lo_v: Vec<Reg<1>>,
    byp_lo: Vec<Reg<32>>,
    byp_hi: Vec<Reg<32>>,
}

/// A lane's `ridx` when it waits for no response.
const NO_TAG: u64 = 256;

/// One load slot: a global load (or the one atomic) whose responses are
/// still arriving. Lane `k` takes the data of the response whose tag
/// equals `ridx[k]` ([`NO_TAG`]: none).
#[derive(Debug, Clone)]
struct Slot {
    busy: Reg<1>,
    sealed: Reg<1>,
    atom: Reg<1>,
    wide: Reg<1>,
    tag: Reg<32>,
    nreq: Reg<6>,
    recvd: Reg<6>,
    /// The slot holds an LDC: its words are in `sldc`, not `slo`/`shi`.
    ldc: Reg<1>,
    mask: Vec<Reg<1>>,
    ridx: Vec<Reg<9>>,
    wsel: Vec<Reg<5>>,
}

/// Why an LSU cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
#[error("lsu: {0}")]
pub struct LsuError(pub String);

impl<const MW: usize> Lsu<MW> {
    /// An LSU coalescing per `group` lanes (16 or 32) with `slots` load
    /// slots (1..=64) and `tags` request tags (1..=256); `shrink` enables
    /// the compute 1.2/1.3 segment reduction.
    pub fn new(group: usize, shrink: bool, slots: usize, tags: usize) -> Result<Self, LsuError> {
        if group != 16 && group != 32 {
            return Err(LsuError(format!(
                "coalescing group of {group} lanes (16 or 32 supported)"
            )));
        }
        if !(1..=64).contains(&slots) {
            return Err(LsuError(format!("{slots} load slots (1..=64 supported)")));
        }
        if !(1..=256).contains(&tags) {
            return Err(LsuError(format!("{tags} request tags (1..=256 supported)")));
        }
        if MW == 0 || MW > 64 {
            return Err(LsuError(format!("{MW} warps (1..=64 supported)")));
        }
        let mut d = Decl::new();
        let core = Domain::Core;
        let params = d.mem::<32, 8>("params", core, 1, 1);
        let pcount = d.reg("pcount", core, 0);
        let state = d.reg("state", core, IDLE);
        let op = d.reg("op", core, 0);
        let wide = d.reg("wide", core, 0);
        let aop = d.reg("aop", core, 0);
        let tag = d.reg("tag", core, 0);
        let phase = d.reg("phase", core, 0);
        let errv = d.reg("errv", core, 0);
        let ecode = d.reg("ecode", core, 0);
        let elane = d.reg("elane", core, 0);
        let eaddr = d.reg("eaddr", core, 0);
        let issued = d.reg("issued", core, 0);
        let cnt_gm = d.reg("cnt_gm", core, 0);
        let cnt_conf = d.reg("cnt_conf", core, 0);
        let cnt_busy = d.reg("cnt_busy", core, 0);
        let lanes = |d: &mut Decl, n: &str| {
            (0..LANES)
                .map(|k| d.reg(&format!("{n}{k}"), core, 0))
                .collect::<Vec<_>>()
        };
        let mask = lanes(&mut d, "mask");
        let pending = lanes(&mut d, "pending");
        let capt = lanes(&mut d, "capt");
        let addr = (0..LANES).map(|k| d.reg(&format!("addr{k}"), core, 0)).collect();
        let lo = (0..LANES).map(|k| d.reg(&format!("lo{k}"), core, 0)).collect();
        let hi = (0..LANES).map(|k| d.reg(&format!("hi{k}"), core, 0)).collect();
        let cmp = (0..LANES).map(|k| d.reg(&format!("cmp{k}"), core, 0)).collect();
        let own = d.reg("own", core, 0);
        let fslot = d.reg("fslot", core, 0);
        let cfin = d.reg("cfin", core, 0);
        let slots = (0..slots)
            .map(|j| {
                let n = |x: &str| format!("s{j}_{x}");
                Slot {
                    busy: d.reg(&n("busy"), core, 0),
                    sealed: d.reg(&n("sealed"), core, 0),
                    atom: d.reg(&n("atom"), core, 0),
                    wide: d.reg(&n("wide"), core, 0),
                    ldc: d.reg(&n("ldc"), core, 0),
                    tag: d.reg(&n("tag"), core, 0),
                    nreq: d.reg(&n("nreq"), core, 0),
                    recvd: d.reg(&n("recvd"), core, 0),
                    mask: (0..LANES).map(|k| d.reg(&n(&format!("mask{k}")), core, 0)).collect(),
                    ridx: (0..LANES)
                        .map(|k| d.reg(&n(&format!("ridx{k}")), core, NO_TAG))
                        .collect(),
                    wsel: (0..LANES).map(|k| d.reg(&n(&format!("wsel{k}")), core, 0)).collect(),
                }
            })
            .collect();
        let tbusy = (0..tags).map(|t| d.reg(&format!("t{t}_busy"), core, 0)).collect();
        let tslot = (0..tags).map(|t| d.reg(&format!("t{t}_slot"), core, 0)).collect();
        let mems = |d: &mut Decl, n: &str| -> Vec<Mem<32, 6>> {
            (0..LANES).map(|k| d.mem(&format!("{n}{k}"), core, 1, 1)).collect()
        };
        let slo = mems(&mut d, "slo");
        let shi = mems(&mut d, "shi");
        let sldc = mems(&mut d, "sldc");
        let byp_lo_v = lanes(&mut d, "byp_lo_v");
        let byp_lo = (0..LANES).map(|k| d.reg_noreset(&format!("byp_lo{k}"), core)).collect();
        let byp_hi = (0..LANES).map(|k| d.reg_noreset(&format!("byp_hi{k}"), core)).collect();
        Ok(Lsu {
            decl: d,
            group,
            shrink,
            params,
            pcount,
            state,
            op,
            wide,
            aop,
            tag,
            phase,
            errv,
            ecode,
            elane,
            eaddr,
            issued,
            cnt_gm,
            cnt_conf,
            cnt_busy,
            mask,
            pending,
            capt,
            addr,
            lo,
            hi,
            cmp,
            own,
            fslot,
            cfin,
            slots,
            tbusy,
            tslot,
            slo,
            shi,
            sldc,
            byp_lo_v,
            byp_lo,
            byp_hi,
        })
    }

    /// The LSU of a configuration: group = `smem_request_threads`, segment
    /// shrinking on 16-lane (compute 1.x) groups, `lsu_slots` load slots.
    pub fn of(cfg: &crate::config::SmConfig) -> Result<Self, LsuError> {
        if cfg.max_warps as usize != MW {
            return Err(LsuError(format!(
                "config has {} warps, block built for {MW}",
                cfg.max_warps
            )));
        }
        let g = cfg.smem_request_threads as usize;
        Self::new(g, g == 16, cfg.lsu_slots as usize, cfg.lsu_tags as usize)
    }
}

/// Build the LSU of `cfg` (the warp count is a type parameter, from the
/// config's warp shape: `crate::shapes`) and hand it to `f`.
pub fn with_lsu<F: crate::blocks::BlockFn>(cfg: &crate::config::SmConfig, f: &mut F) -> anyhow::Result<F::Out> {
    let e = |e: LsuError| anyhow::anyhow!("config `{}`: {e}", cfg.name);
    crate::with_warp_shape!(cfg, "lsu", |MW, NS, NC| f.call(Lsu::<MW>::of(cfg).map_err(e)?))
}

/// Index of the lowest set element (0 when none).
fn first_index<C: Ctx>(cx: &mut C, v: &[S<C, 1>; LANES]) -> S<C, 5> {
    let mut acc = cx.lit::<5>(0);
    for k in (0..LANES).rev() {
        let kl = cx.lit::<5>(k as u64);
        acc = v[k].mux(kl, acc);
    }
    acc
}

/// `v[sel]`, a binary mux tree on the 5 select bits.
fn mux32<C: Ctx>(sel: S<C, 5>, v: &[S<C, 32>; LANES]) -> S<C, 32> {
    let b = [
        sel.slice::<0, 1>(),
        sel.slice::<1, 1>(),
        sel.slice::<2, 1>(),
        sel.slice::<3, 1>(),
        sel.slice::<4, 1>(),
    ];
    // Level by level, pairs in order (in place: no allocation).
    let mut cur = *v;
    let mut n = LANES;
    for bit in b {
        n /= 2;
        for k in 0..n {
            cur[k] = bit.mux(cur[2 * k + 1], cur[2 * k]);
        }
    }
    cur[0]
}

impl<const MW: usize> Block for Lsu<MW> {
    type In<B: Backend> = LsuIn<B, MW>;
    type Out<B: Backend> = LsuOut<B>;

    fn module_name(&self) -> String {
        format!(
            "lsu_w{MW}_g{}_{}_s{}_t{}",
            self.group,
            if self.shrink { "seg" } else { "line" },
            self.slots.len(),
            self.tbusy.len()
        )
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    /// Random instructions that exercise every path: the seven LSU ops (1
    /// in 32 not an LSU op), addresses in small windows so lanes share
    /// segments and banks, about 1 in 16 instructions with a bad lane,
    /// plausible memory handshakes.
    fn constrain(&self, r: u64, i: &mut LsuIn<crate::hdl::Concrete, MW>) {
        use crate::hdl::Bits;
        let ops = [OP_LDC, OP_LDG, OP_STG, OP_ATOMG, OP_LDS, OP_STS, OP_ATOMS];
        let op = if r & 31 == 31 {
            0x10
        } else {
            ops[((r >> 5) % 7) as usize]
        };
        i.lsu_op_i = Bits::new(op);
        i.lsu_mod_i = Bits::new((r >> 8) & 7);
        i.ssize_i = Bits::new(4096);
        i.gm_size_i = Bits::new(1 << 16);
        let win = [64u64, 512, 8192][((r >> 11) % 3) as usize];
        let bad = (r >> 13) & 15 == 0;
        i.lsu_off_i = Bits::new(if op == OP_LDC {
            (r >> 17) & 3
        } else {
            ((r >> 17) & 0xf) << 2
        });
        for k in 0..LANES {
            let a = i.lsu_a_i[k].to_u64();
            let v = if op == OP_LDC { a % 8 } else { (a % win) & !7 };
            i.lsu_a_i[k] = Bits::new(if bad && k == 7 { a } else { v });
        }
        for w in 0..MW {
            i.sbase_i[w] = Bits::new((i.sbase_i[w].to_u64() & 0x3) << 12);
        }
        let id = i.gm_resp.id.to_u64();
        i.gm_resp.id = Bits::new(id % self.tbusy.len() as u64);
        i.param_addr_i = Bits::new(i.param_addr_i.to_u64() & 7);
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &LsuIn<C::B, MW>) -> LsuOut<C::B> {
        let st = cx.q(self.state);
        let s3 = |cx: &mut C, v: u64| cx.lit::<3>(v);
        let (s_idle, s_sreq, s_swait, s_greq, s_creq, s_resp, s_drain) = (
            s3(cx, IDLE),
            s3(cx, SREQ),
            s3(cx, SWAIT),
            s3(cx, GREQ),
            s3(cx, CREQ),
            s3(cx, RESP),
            s3(cx, DRAIN),
        );
        let idle = st.eq(s_idle);
        let sreq = st.eq(s_sreq);
        let swait = st.eq(s_swait);
        let greq = st.eq(s_greq);
        let creq = st.eq(s_creq);
        let resp = st.eq(s_resp);
        let drain = st.eq(s_drain);
        let zero1 = cx.lit::<1>(0);
        let one1 = cx.lit::<1>(1);
        let zero32 = cx.lit::<32>(0);

        // ---- load slots (registers)
        let ns = self.slots.len();
        let busy: Slots<S<C, 1>> = self.slots.iter().map(|s| cx.q(s.busy)).collect();
        let s_atom: Slots<S<C, 1>> = self.slots.iter().map(|s| cx.q(s.atom)).collect();
        let any_busy = or_all(cx, &busy);
        let free: Slots<S<C, 1>> = busy.iter().map(|b| !*b).collect();
        let any_free = or_all(cx, &free);
        let atom_busy: Slots<S<C, 1>> = (0..ns).map(|j| busy[j] & s_atom[j]).collect();
        let atom_busy = or_all(cx, &atom_busy);
        // Lowest free slot (the one a new load takes).
        let mut nslot = cx.lit::<6>(0);
        for j in (0..ns).rev() {
            let jl = cx.lit::<6>(j as u64);
            nslot = free[j].mux(jl, nslot);
        }
        let ready = cx.name("ready", idle & any_free & !atom_busy);

        // ---- instruction registers
        let op = cx.q(self.op);
        let opl = |cx: &mut C, v: u64| cx.lit::<7>(v);
        let (l_ldc, l_ldg, l_stg, l_atg, l_lds, l_sts, l_ats) = (
            opl(cx, OP_LDC),
            opl(cx, OP_LDG),
            opl(cx, OP_STG),
            opl(cx, OP_ATOMG),
            opl(cx, OP_LDS),
            opl(cx, OP_STS),
            opl(cx, OP_ATOMS),
        );
        let is_store = op.eq(l_stg) | op.eq(l_sts);
        let is_atom = op.eq(l_atg) | op.eq(l_ats);
        let is_sh = op.eq(l_lds) | op.eq(l_sts) | op.eq(l_ats);
        let is_gl = op.eq(l_ldg) | op.eq(l_stg) | op.eq(l_atg);
        let l_fence = opl(cx, OP_MEMBAR);
        let is_fence = op.eq(l_fence);
        let wide = cx.q(self.wide);
        let aop = cx.q(self.aop);
        let tag = cx.q(self.tag);
        let phase = cx.q(self.phase);
        let own = cx.q(self.own);
        let fslot = cx.q(self.fslot);
        let mask: [S<C, 1>; LANES] = std::array::from_fn(|k| cx.q(self.mask[k]));
        let pending: [S<C, 1>; LANES] = std::array::from_fn(|k| cx.q(self.pending[k]));
        let capt: [S<C, 1>; LANES] = std::array::from_fn(|k| cx.q(self.capt[k]));
        let addr: [S<C, 32>; LANES] = std::array::from_fn(|k| cx.q(self.addr[k]));
        let lo: [S<C, 32>; LANES] = std::array::from_fn(|k| cx.q(self.lo[k]));
        let hi: [S<C, 32>; LANES] = std::array::from_fn(|k| cx.q(self.hi[k]));
        let cmp: [S<C, 32>; LANES] = std::array::from_fn(|k| cx.q(self.cmp[k]));
        let mut lo_d = lo;
        let mut hi_d = hi;

        // ---- parameter memory: host writes, count = highest word + 1
        let pcount = cx.q(self.pcount);
        let pa9: S<C, 9> = i.param_addr_i.zext::<9>() + cx.lit::<9>(1);
        let pcount_n = (i.param_we_i & pcount.ult(pa9)).mux(pa9, pcount);
        cx.d(self.pcount, pcount_n);
        cx.mem_write(self.params, 0, i.param_we_i, i.param_addr_i, i.param_data_i);

        // ---- accept and check (combinational on the dispatch inputs)
        let accept = cx.name("accept", ready & i.lsu_valid_i);
        let iop = i.lsu_op_i;
        let i_sh = iop.eq(l_lds) | iop.eq(l_sts) | iop.eq(l_ats);
        let i_gl = iop.eq(l_ldg) | iop.eq(l_stg) | iop.eq(l_atg);
        let i_ldc = iop.eq(l_ldc);
        let i_atom = iop.eq(l_atg) | iop.eq(l_ats);
        let i_store = iop.eq(l_stg) | iop.eq(l_sts);
        let i_load = iop.eq(l_ldg) | iop.eq(l_lds);
        let i_fence = iop.eq(l_fence);
        let i_wide = i.lsu_mod_i.slice::<0, 1>() & !i_atom & !i_ldc;
        let size34: S<C, 34> = i_sh.mux(i.ssize_i.zext::<34>(), i.gm_size_i.zext::<34>());
        let bytes34 = i_wide.mux(cx.lit::<34>(8), cx.lit::<34>(4));
        let pc33: S<C, 33> = pcount.zext::<33>();
        let off33: S<C, 33> = i.lsu_off_i.zext::<33>();
        let mut bad = [zero1; LANES];
        let mut a_in = [zero32; LANES];
        for k in 0..LANES {
            let a = i.lsu_a_i[k] + i.lsu_off_i;
            a_in[k] = a;
            let mis = a.slice::<0, 2>().any() | (i_wide & a.slice::<2, 1>());
            let over = size34.ult(a.zext::<34>() + bytes34);
            let idx = i.lsu_a_i[k].zext::<33>() + off33;
            let pbad = !idx.ult(pc33);
            let b = i_ldc.mux(pbad, mis | over);
            bad[k] = i.lsu_mask_i[k] & b & !i_fence;
        }
        let any_bad = or_all(cx, &bad);
        let bad_op = !(i_sh | i_gl | i_ldc | i_fence);
        let i_err = bad_op | any_bad;
        let blane = first_index(cx, &bad);
        let bad1 = first_one(cx, &bad);
        let baddr = pick(cx, &bad1, &a_in);
        let code = i_ldc.mux(
            cx.lit::<8>(ERR_PARAM),
            i_sh.mux(cx.lit::<8>(ERR_SHARED), cx.lit::<8>(ERR_GLOBAL)),
        );
        let code = bad_op.mux(cx.lit::<8>(ERR_OP), code);
        let blane = bad_op.mux(cx.lit::<5>(0), blane);
        let baddr = bad_op.mux(zero32, baddr);
        // A global load or atomic, or an LDC, with a lane owns a load slot
        // (an LDC's slot takes the words it reads, so the front is free
        // after its last read). Only a
        // global atomic with a lane and a fence (MEMBAR) wait (DRAIN) until
        // every slot has retired; anything else starts at once (a store
        // follows the loads accepted before it: their requests are all
        // out, and memory performs requests in the order it takes them).
        let i_any = or_all(cx, &i.lsu_mask_i);
        let i_own = ((i_gl & (i_load | i_atom)) | i_ldc) & i_any & !i_err;
        let go_now = i_err | !((i_own & i_atom) | i_fence) | !any_busy;

        // ---- shared path
        let warp = tag.slice::<0, 6>();
        let mut sbase: S<C, 17> = cx.lit::<17>(0);
        for w in 0..MW {
            let wl = cx.lit::<6>(w as u64);
            sbase = warp.eq(wl).mux(i.sbase_i[w], sbase);
        }
        let sbase = cx.name("sbase", sbase);
        let sm_addr: [S<C, 16>; LANES] = std::array::from_fn(|k| {
            let b: S<C, 18> = sbase.zext::<18>() + addr[k].slice::<0, 17>().zext::<18>();
            let w: S<C, 16> = b.slice::<2, 16>();
            w + phase.zext::<16>()
        });
        let sm_op = is_atom.mux(
            aop.zext::<4>() + cx.lit::<4>(2),
            is_store.mux(cx.lit::<4>(1), cx.lit::<4>(0)),
        );
        let sm_data: [S<C, 32>; LANES] = std::array::from_fn(|k| phase.mux(hi[k], lo[k]));
        let s_take = swait & i.sm_resp_valid_i;
        for k in 0..LANES {
            let w = s_take & mask[k] & !is_store;
            lo_d[k] = (w & !phase).mux(i.sm_rdata_i[k], lo_d[k]);
            hi_d[k] = (w & phase).mux(i.sm_rdata_i[k], hi_d[k]);
        }
        let s_again = wide & !phase & !is_atom;
        let s_err = s_take & i.sm_err_i;

        // ---- global path: coalescer
        let elig: [S<C, 1>; LANES] = if self.group == LANES {
            pending
        } else {
            let lower = or_all(cx, &pending[..16]);
            std::array::from_fn(|k| {
                if k < 16 {
                    pending[k] & lower
                } else {
                    pending[k] & !lower
                }
            })
        };
        let any_elig = or_all(cx, &elig);
        let lead = first_one(cx, &elig);
        let lead_addr = pick(cx, &lead, &addr);
        let lead_addr = cx.name("lead_addr", lead_addr);
        let seg = lead_addr.slice::<7, 25>();
        let same: [S<C, 1>; LANES] = std::array::from_fn(|k| elig[k] & addr[k].slice::<7, 25>().eq(seg));
        let memb: [S<C, 1>; LANES] = std::array::from_fn(|k| is_atom.mux(lead[k], same[k]));
        let (g_size, g_base) = if self.shrink {
            let lo6: SmallBuf<_, LANES> = (0..LANES).map(|k| same[k] & !addr[k].slice::<6, 1>()).collect();
            let hi6: SmallBuf<_, LANES> = (0..LANES).map(|k| same[k] & addr[k].slice::<6, 1>()).collect();
            let lo5: SmallBuf<_, LANES> = (0..LANES).map(|k| same[k] & !addr[k].slice::<5, 1>()).collect();
            let hi5: SmallBuf<_, LANES> = (0..LANES).map(|k| same[k] & addr[k].slice::<5, 1>()).collect();
            let both6 = or_all(cx, &lo6) & or_all(cx, &hi6);
            let both5 = or_all(cx, &lo5) & or_all(cx, &hi5);
            let b128: S<C, 32> = seg.concat::<7, 32>(cx.lit::<7>(0));
            let b64: S<C, 32> = lead_addr.slice::<6, 26>().concat::<6, 32>(cx.lit::<6>(0));
            let b32: S<C, 32> = lead_addr.slice::<5, 27>().concat::<5, 32>(cx.lit::<5>(0));
            let size = both6.mux(cx.lit::<2>(2), both5.mux(cx.lit::<2>(1), cx.lit::<2>(0)));
            let base = both6.mux(b128, both5.mux(b64, b32));
            (size, base)
        } else {
            (cx.lit::<2>(2), seg.concat::<7, 32>(cx.lit::<7>(0)))
        };
        let g_size = is_atom.mux(cx.lit::<2>(0), g_size);
        let g_addr = is_atom.mux(lead_addr, g_base);
        // Word i of the 128-byte block: the highest member lane writing it.
        let wsel: [S<C, 5>; LANES] = std::array::from_fn(|k| addr[k].slice::<2, 5>());
        let mut wmask = [zero1; LANES];
        let mut wdata = [zero32; LANES];
        for (w, (wm, wd)) in wmask.iter_mut().zip(wdata.iter_mut()).enumerate() {
            let wl = cx.lit::<5>(w as u64);
            let pl = cx.lit::<4>((w >> 1) as u64);
            for k in 0..LANES {
                let narrow_hit = wsel[k].eq(wl);
                let wide_hit = wsel[k].slice::<1, 4>().eq(pl);
                let hit = memb[k] & is_store & wide.mux(wide_hit, narrow_hit);
                let v = if w & 1 == 1 { wide.mux(hi[k], lo[k]) } else { lo[k] };
                *wd = hit.mux(v, *wd);
                *wm = *wm | hit;
            }
        }
        let lead_lo = pick(cx, &lead, &lo);
        let lead_c = pick(cx, &lead, &cmp);
        // Request tags: the lowest free one (a load or atomic request needs
        // one to be presented).
        let tfree: SmallBuf<S<C, 1>, 256> = self.tbusy.iter().map(|r| !cx.q(*r)).collect();
        let t_any = or_all(cx, &tfree);
        let ntag = cx.select(
            greq & own,
            |cx| {
                let mut n = cx.lit::<8>(0);
                for t in (0..tfree.len()).rev() {
                    let tl = cx.lit::<8>(t as u64);
                    n = tfree[t].mux(tl, n);
                }
                n
            },
            |cx| cx.lit::<8>(0),
        );
        let g_valid = cx.name("g_valid", greq & any_elig & (!own | t_any));
        // Payloads are zero while no request is presented (clean waves).
        let gm_wmask: [S<C, 1>; LANES] = std::array::from_fn(|w| {
            let m = if w == 0 { is_atom | wmask[w] } else { wmask[w] };
            g_valid & m
        });
        let gm_wdata: [S<C, 32>; LANES] = std::array::from_fn(|w| {
            let v = match w {
                0 => is_atom.mux(lead_lo, wdata[0]),
                1 => is_atom.mux(lead_c, wdata[1]),
                _ => wdata[w],
            };
            g_valid.mux(v, zero32)
        });
        let g_fire = g_valid & i.gm_req_ready_i;
        let issued = cx.q(self.issued);
        let one6 = cx.lit::<6>(1);
        let issued_n = g_fire.mux(issued + one6, issued);
        // Request id: the tag of a load or atomic request, 0 for a store.
        let g_id: S<C, 8> = ntag;

        // ---- LDC path: one distinct index per cycle
        let c_lead = first_one(cx, &pending);
        let c_idx = pick(cx, &c_lead, &addr).slice::<0, 8>();
        let c_any = or_all(cx, &pending);
        let c_rd = creq & c_any;
        let pword = cx.mem_read(self.params, 0, c_rd, c_idx);
        let c_memb: [S<C, 1>; LANES] = std::array::from_fn(|k| pending[k] & addr[k].slice::<0, 8>().eq(c_idx));
        // The word read in a cycle lands in the LDC's slot in the next one
        // (`capt` lanes), whatever the front does by then.
        let cfin = cx.q(self.cfin);

        // ---- pending lanes, next state
        let served: [S<C, 1>; LANES] = std::array::from_fn(|k| (g_fire & memb[k]) | (c_rd & c_memb[k]));
        let pend_n: [S<C, 1>; LANES] = std::array::from_fn(|k| pending[k] & !served[k]);
        let pend_left = or_all(cx, &pend_n);
        let capt_n: [S<C, 1>; LANES] = std::array::from_fn(|k| c_rd & c_memb[k]);
        // All requests sent: an owning instruction hands over to its slot
        // (sealed) and the front goes idle; a store (or a global op without
        // lanes) answers from the front. An LDC's last read: the front goes
        // idle, its slot is sealed in the next cycle with the word read.
        let g_sent = greq & !pend_left;
        let c_last = creq & own & !pend_left;
        cx.d(self.cfin, c_last);
        let seal = (g_sent & own) | cfin;

        let i_state = i_fence.mux(s_resp, i_sh.mux(s_sreq, i_gl.mux(s_greq, s_creq)));
        let d_state = is_fence.mux(s_resp, is_sh.mux(s_sreq, is_gl.mux(s_greq, s_creq)));
        let i_next = i_err.mux(s_resp, go_now.mux(i_state, s_drain));
        let took = i.lsu_res_ready_i;
        let n = (resp & took).mux(s_idle, st);
        let n = creq.mux((!pend_left).mux(own.mux(s_idle, s_resp), s_creq), n);
        let n = greq.mux((!pend_left).mux(own.mux(s_idle, s_resp), s_greq), n);
        let n = (drain & !any_busy).mux(d_state, n);
        let n = s_take.mux((s_again & !i.sm_err_i).mux(s_sreq, s_resp), n);
        let n = (sreq & i.sm_ready_i).mux(s_swait, n);
        let n = accept.mux(i_next, n);
        cx.d(self.state, n);
        cx.d(self.phase, accept.mux(zero1, (s_take & s_again).mux(one1, phase)));

        // ---- slot allocation: at accept (a load, or an atomic with every
        // slot free) or when DRAIN ends (an atomic).
        let alloc_now = accept & i_own & go_now;
        let alloc_drain = drain & !any_busy & own;
        let alloc = cx.name("alloc", alloc_now | alloc_drain);
        let a_atom = accept.mux(i_atom, is_atom);
        let a_wide = accept.mux(i_wide, wide);
        let a_tag = accept.mux(i.lsu_tag_i, tag);
        let a_mask: [S<C, 1>; LANES] = std::array::from_fn(|k| accept.mux(i.lsu_mask_i[k], mask[k]));
        cx.d(self.own, accept.mux(i_own, own));
        cx.d(self.fslot, alloc.mux(nslot, fslot));

        // ---- slot responses: the response's tag names its slot
        // (`tslot`); the slot's lanes waiting for that tag take the data.
        let rv = i.gm_resp.valid;
        let rs = cx.select(
            rv,
            |cx| {
                let tslot: SmallBuf<S<C, 6>, 256> = self.tslot.iter().map(|r| cx.q(*r)).collect();
                index(cx, &tslot, i.gm_resp.id)
            },
            |cx| cx.lit::<6>(0),
        );
        let ri: S<C, 9> = i.gm_resp.id.zext::<9>();
        let slot_hit: Slots<S<C, 1>> = (0..ns)
            .map(|j| {
                let jl = cx.lit::<6>(j as u64);
                rv & rs.eq(jl)
            })
            .collect();
        // The addressed slot's word selects and flags (one response per
        // cycle: demultiplex once, write into the addressed slot).
        let s_wide: Slots<S<C, 1>> = self.slots.iter().map(|s| cx.q(s.wide)).collect();
        let r_wide = pick(cx, &slot_hit, &s_wide);
        let r_atom = pick(cx, &slot_hit, &s_atom);
        let mut r_lo = [zero32; LANES];
        let mut r_hi = [zero32; LANES];
        for k in 0..LANES {
            let w = cx.select(
                rv,
                |cx| {
                    let ws: Slots<S<C, 5>> = self.slots.iter().map(|s| cx.q(s.wsel[k])).collect();
                    pick(cx, &slot_hit, &ws)
                },
                |cx| cx.lit::<5>(0),
            );
            let wl = r_wide.mux(w.slice::<1, 4>().concat::<1, 5>(zero1), w);
            let wh = w.slice::<1, 4>().concat::<1, 5>(one1);
            r_lo[k] = cx.select(
                rv,
                |_| r_atom.mux(i.gm_resp.rdata[0], mux32::<C>(wl, &i.gm_resp.rdata)),
                |_| zero32,
            );
            r_hi[k] = cx.select(rv, |_| mux32::<C>(wh, &i.gm_resp.rdata), |_| zero32);
        }

        // ---- request tags: a load or atomic request takes the lowest free
        // tag when it is sent; its response frees it.
        let t_take = g_fire & own;
        for (t, (b, ts)) in self.tbusy.iter().zip(&self.tslot).enumerate() {
            let tl = cx.lit::<8>(t as u64);
            let get = t_take & ntag.eq(tl);
            let put = rv & i.gm_resp.id.eq(tl);
            cx.d_en(*b, get | put, |_| get);
            cx.d_en(*ts, get, |_| fslot);
        }

        // ---- slot result pulses: the front's pulse (RESP) wins, else the
        // lowest slot whose responses are all in.
        let done: Slots<S<C, 1>> = self
            .slots
            .iter()
            .map(|s| {
                let (b, se, nr, rc) = (cx.q(s.busy), cx.q(s.sealed), cx.q(s.nreq), cx.q(s.recvd));
                b & se & nr.eq(rc)
            })
            .collect();
        let mut seen = resp;
        let pulse: Slots<S<C, 1>> = done
            .iter()
            .map(|&d| {
                let p = d & !seen;
                seen = seen | d;
                p
            })
            .collect();
        let s_pulse = or_all(cx, &pulse);
        let s_pulse = cx.name("s_pulse", s_pulse);
        let no_tag = cx.lit::<9>(NO_TAG);
        let ntag9: S<C, 9> = ntag.zext::<9>();
        let a_ldc = accept.mux(i_ldc, op.eq(l_ldc));
        let mut p_tag = zero32;
        let mut p_mask = [zero1; LANES];
        let mut p_wide = zero1;
        let mut p_ldc = zero1;
        // Lanes that take a global response (in slot `rs`).
        let mut take_any = [zero1; LANES];
        // Next state of the slots' completion: the slot that pulses in the
        // next cycle (if any) is the lowest one done then, whose data the
        // memories read at this edge.
        let mut done_d: Slots<S<C, 1>> = SmallBuf::new();
        for (j, s) in self.slots.iter().enumerate() {
            let jl = cx.lit::<6>(j as u64);
            let mine = alloc & nslot.eq(jl);
            let sealing = seal & fslot.eq(jl);
            let firing = g_fire & own & fslot.eq(jl);
            let hit = slot_hit[j];
            let (b, se, at, wd, tg) = (busy[j], cx.q(s.sealed), s_atom[j], s_wide[j], cx.q(s.tag));
            let sl = cx.q(s.ldc);
            let (nr, rc) = (cx.q(s.nreq), cx.q(s.recvd));
            let b_d = mine.mux(one1, (pulse[j] & took).mux(zero1, b));
            let se_d = mine.mux(zero1, sealing.mux(one1, se));
            let nr_d = sealing.mux(issued_n, nr);
            let z6 = cx.lit::<6>(0);
            let rc_d = mine.mux(z6, hit.mux(rc + one6, rc));
            cx.d(s.busy, b_d);
            cx.d(s.sealed, se_d);
            cx.d(s.atom, mine.mux(a_atom, at));
            cx.d(s.wide, mine.mux(a_wide, wd));
            cx.d(s.ldc, mine.mux(a_ldc, sl));
            cx.d(s.tag, mine.mux(a_tag, tg));
            cx.d(s.nreq, nr_d);
            cx.d(s.recvd, rc_d);
            done_d.push(b_d & se_d & nr_d.eq(rc_d));
            // Lane registers change only when the slot is taken, sends a
            // request or gets a response.
            let lanes_en = mine | firing | hit;
            for k in 0..LANES {
                let m = cx.q(s.mask[k]);
                cx.d_en(s.mask[k], mine, |_| a_mask[k]);
                let now = firing & memb[k];
                let rx = cx.q(s.ridx[k]);
                let take = hit & rx.eq(ri);
                take_any[k] = take_any[k] | take;
                cx.d_en(s.ridx[k], lanes_en, |_| (mine | take).mux(no_tag, now.mux(ntag9, rx)));
                cx.d_en(s.wsel[k], now, |_| wsel[k]);
                p_mask[k] = p_mask[k] | (pulse[j] & m);
            }
            p_tag = pulse[j].mux(tg, p_tag);
            p_wide = pulse[j].mux(wd, p_wide);
            p_ldc = pulse[j].mux(sl, p_ldc);
        }
        let mut raddr = cx.lit::<6>(0);
        for j in (0..ns).rev() {
            let jl = cx.lit::<6>(j as u64);
            raddr = done_d[j].mux(jl, raddr);
        }
        let raddr = cx.name("slot_raddr", raddr);
        // The slot memories: written by the responses (`slo`, `shi` for a
        // wide load) and the LDC reads (`sldc`, into the front's slot);
        // read at every edge at the slot that pulses next. A write at that
        // edge into that slot goes to the bypass registers as well.
        let w_hi = r_wide & !r_atom;
        let lo_here = rs.eq(raddr);
        let on = cx.lit::<1>(1);
        let ldc_here = fslot.eq(raddr);
        let mut p_data = [cx.lit::<64>(0); LANES];
        for k in 0..LANES {
            let we_lo = take_any[k];
            let we_hi = take_any[k] & w_hi;
            let we_ldc = capt[k];
            cx.mem_write(self.slo[k], 0, we_lo, rs, r_lo[k]);
            cx.mem_write(self.shi[k], 0, we_hi, rs, r_hi[k]);
            cx.mem_write(self.sldc[k], 0, we_ldc, fslot, pword);
            let rd_lo = cx.mem_read(self.slo[k], 0, on, raddr);
            let rd_hi = cx.mem_read(self.shi[k], 0, on, raddr);
            let rd_ldc = cx.mem_read(self.sldc[k], 0, on, raddr);
            let bl_lo = we_lo & lo_here;
            let bl_ldc = we_ldc & ldc_here;
            cx.d(self.byp_lo_v[k], bl_lo | bl_ldc);
            let bl = cx.q(self.byp_lo[k]);
            cx.d_en(self.byp_lo[k], bl_lo | bl_ldc, |_| bl_lo.mux(r_lo[k], pword));
            // A wide slot writes its high word exactly when it writes its
            // low word, so `byp_lo_v` also says whether `byp_hi` holds it
            // (a slot that is not wide pulses no high word).
            let bh_v = we_hi & lo_here;
            let bh = cx.q(self.byp_hi[k]);
            cx.d_en(self.byp_hi[k], bh_v, |_| r_hi[k]);
            let blv = cx.q(self.byp_lo_v[k]);
            p_data[k] = cx.select(
                p_mask[k],
                |_| {
                    let l = blv.mux(bl, p_ldc.mux(rd_ldc, rd_lo));
                    let h = blv.mux(bh, rd_hi);
                    let hq = p_wide.mux(h, zero32);
                    hq.concat::<32, 64>(l)
                },
                |cx| cx.lit::<64>(0),
            );
        }
        // One wire per lane.
        for k in 0..LANES {
            p_data[k] = cx.name(&format!("p_data{k}"), p_data[k]);
            p_mask[k] = cx.name(&format!("p_mask{k}"), p_mask[k]);
        }
        // ---- instruction registers and lanes
        let i_zero_hi = !(i_store & i_wide);
        for k in 0..LANES {
            cx.d(self.mask[k], accept.mux(i.lsu_mask_i[k], mask[k]));
            let p0 = i.lsu_mask_i[k] & !i_err & (i_gl | i_ldc);
            cx.d(self.pending[k], accept.mux(p0, pend_n[k]));
            cx.d(self.capt[k], accept.mux(zero1, capt_n[k]));
            let a_keep = i_ldc.mux(i.lsu_a_i[k] + i.lsu_off_i, a_in[k]);
            cx.d(self.addr[k], accept.mux(a_keep, addr[k]));
            let b_lo = i.lsu_b_i[k].slice::<0, 32>();
            let b_hi = i.lsu_b_i[k].slice::<32, 32>();
            let lo_in = i_load.mux(zero32, i_ldc.mux(zero32, b_lo));
            cx.d(self.lo[k], accept.mux(lo_in, lo_d[k]));
            cx.d(self.hi[k], accept.mux(i_zero_hi.mux(zero32, b_hi), hi_d[k]));
            cx.d(self.cmp[k], accept.mux(i.lsu_c_i[k], cmp[k]));
        }
        cx.d(self.op, accept.mux(iop, op));
        cx.d(self.wide, accept.mux(i_wide, wide));
        cx.d(self.aop, accept.mux(i.lsu_mod_i.slice::<0, 3>(), aop));
        cx.d(self.tag, accept.mux(i.lsu_tag_i, tag));
        let z6i = cx.lit::<6>(0);
        cx.d(self.issued, accept.mux(z6i, issued_n));

        // Errors: at accept, or a shared-memory unit error on a response.
        let errv = cx.q(self.errv);
        let ecode = cx.q(self.ecode);
        let elane = cx.q(self.elane);
        let eaddr = cx.q(self.eaddr);
        let m1 = first_one(cx, &mask);
        let mlane = first_index(cx, &mask);
        let maddr = pick(cx, &m1, &addr);
        let s_err_new = s_err & !errv;
        cx.d(self.errv, accept.mux(i_err, errv | s_err));
        let c7 = cx.lit::<8>(ERR_SHARED);
        cx.d(self.ecode, accept.mux(code, s_err_new.mux(c7, ecode)));
        cx.d(self.elane, accept.mux(blane, s_err_new.mux(mlane, elane)));
        cx.d(self.eaddr, accept.mux(baddr, s_err_new.mux(maddr, eaddr)));

        // ---- counters
        let lsu_idle = cx.name("lsu_idle", idle & !any_busy);
        let c_gm = cx.q(self.cnt_gm);
        let c_conf = cx.q(self.cnt_conf);
        let c_busy = cx.q(self.cnt_busy);
        let one32 = cx.lit::<32>(1);
        cx.d(self.cnt_gm, g_fire.mux(c_gm + one32, c_gm));
        cx.d(self.cnt_conf, i.sm_conflict_i.mux(c_conf + one32, c_conf));
        cx.d(self.cnt_busy, lsu_idle.mux(c_busy, c_busy + one32));
        // Unused inputs of the smem response (kept for a one-to-one wiring).
        let _ = (i.sm_passes_i, i.sm_pass_i);

        // Payloads are zero outside their valid cycle (clean waves, and a
        // reference model need not know the don't-care values).
        let z1 = |v: S<C, 1>, on: S<C, 1>| on & v;
        let z16 = cx.lit::<16>(0);
        let err_on = resp & errv;
        let atom_code = aop.zext::<4>() + cx.lit::<4>(1);
        let z4 = cx.lit::<4>(0);
        let z2 = cx.lit::<2>(0);
        let z8 = cx.lit::<8>(0);
        let z5 = cx.lit::<5>(0);
        let z6 = cx.lit::<6>(0);
        LsuOut {
            lsu_ready_o: ready,
            sm_req_valid_o: sreq,
            sm_op_o: sreq.mux(sm_op, z4),
            sm_active_o: std::array::from_fn(|k| z1(mask[k], sreq)),
            sm_addr_o: std::array::from_fn(|k| sreq.mux(sm_addr[k], z16)),
            sm_data_o: std::array::from_fn(|k| sreq.mux(sm_data[k], zero32)),
            sm_cmp_o: std::array::from_fn(|k| sreq.mux(cmp[k], zero32)),
            gm_req: GmReq {
                valid: g_valid,
                id: g_valid.mux(g_id, z8),
                write: g_valid & is_store,
                atom: (g_valid & is_atom).mux(atom_code, z4),
                addr: g_valid.mux(g_addr, zero32),
                size: g_valid.mux(g_size, z2),
                wmask: gm_wmask,
                wdata: gm_wdata,
            },
            lsu_res_valid_o: resp | s_pulse,
            lsu_res_tag_o: resp.mux(tag, p_tag),
            lsu_res_mask_o: std::array::from_fn(|k| resp.mux(mask[k], p_mask[k])),
            lsu_res_data_o: std::array::from_fn(|k| resp.mux(hi[k].concat::<32, 64>(lo[k]), p_data[k])),
            lsu_res_err_o: err_on,
            lsu_res_err_code_o: err_on.mux(ecode, z8),
            lsu_idle_o: lsu_idle,
            cnt_gm_req_o: c_gm,
            cnt_sm_conf_o: c_conf,
            cnt_busy_o: c_busy,
            err_o: err_on,
            err_code_o: err_on.mux(ecode, z8),
            err_warp_o: err_on.mux(warp, z6),
            err_lane_o: err_on.mux(elane, z5),
            err_addr_o: err_on.mux(eaddr, zero32),
        }
    }
}

#[cfg(test)]
mod tests;
