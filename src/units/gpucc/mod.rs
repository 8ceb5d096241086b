//! `gpucc_net`: the GPU-CC network (`docs/gpucc.md`): 32 cores
//! ([`core::GpuccCore`]) and 16 LSUs ([`lsu::GpuccLsu`]) on one line, an
//! LSU before every pair of cores, joined by the five segmented lanes A-E.
//!
//! ```text
//!  position   0     1     2     3     4     5           45     46     47
//!          +-----+-----+-----+-----+-----+-----+     +------+------+------+
//!          |lsu0 |core0|core1|lsu1 |core2|core3| ... |lsu15 |core30|core31|
//!          +--+--+--+--+--+--+--+--+--+--+--+--+     +--+---+--+---+--+---+
//!  lanes  ===>o====>o====>o====>o====>o====>o=== ... ===>o=====>o=====>o===>
//!  A-E        each node: out_lane_o selects the lane it drives (2:1 mux per
//!             lane and position); its FIFOs listen on any lane (5:1 mux)
//!  space  <===o<====o<====o<====o<====o<====o=== ... <===o<=====o<=====o<===
//!             per lane, the least free space of the listeners downstream
//!             up to the next driver: the producer's credit limit
//! ```
//!
//! * Clock domain: hot, every port and register.
//! * Ports in: `cfg_we_i`, `cfg_node_i[6]` (0..=31 cores, 32..=47 LSUs),
//!   `cfg_sel_i[3]`, `cfg_data_i[32]`: `GCSET node, sel, data`;
//!   `clear_i` clears every configuration (the end of a run); `run_i`
//!   (GPU-CC mode: nodes may fire); per LSU `j` the memory port
//!   `mem{j}_req_ready_i`, `mem{j}_resp_valid_i`, `mem{j}_resp_data_i[32]`.
//! * Ports out: per LSU `mem{j}_req_valid_o`, `mem{j}_req_we_o`,
//!   `mem{j}_req_addr_o[32]`, `mem{j}_req_wdata_o[32]`, the prefetch
//!   hints `pf_valid_o[1;16]`, `pf_line_o[25;16]` (`lsu.rs`); `done_o`: every
//!   node idle (counted nodes finished, every FIFO empty, nothing in
//!   flight: the end of the run); `err_o`; per node (index as
//!   `cfg_node_i`) `fire_o[1;48]`, `tok_valid_o[1;48]`, `tok_o[32;48]`
//!   (the token a node drives on its lane: what the checker compares with
//!   the golden dataflow model's firings), `stall_in_o[1;48]`,
//!   `stall_out_o[1;48]` (a node with work left that did not fire: an input
//!   FIFO empty; output space or, on an LSU, the request path).
//! * Lanes: a lane at position `p` carries the token of the nearest node
//!   upstream that drives it; a token is written into every FIFO listening
//!   there in the cycle it is driven (the segment is a wire through one
//!   2:1 multiplexer per position). The backward `space` chain is
//!   combinational from the FIFO counts (Moore outputs of the nodes), so a
//!   producer's credits are exact.
//! * Cores on external lanes ([`GpuccNetX`], module suffix `_x`): core
//!   `j` drives `ln<j>_valid_o`, `ln<j>_op_o[7]`, `ln<j>_mod_o[4]`,
//!   `ln<j>_a_o`/`_b_o`/`_c_o[32]`, `ln<j>_pa_o` and takes `ln<j>_valid_i`,
//!   `ln<j>_res_i[32]`, `ln<j>_pred_i`, `ln<j>_err_i`,
//!   `ln<j>_err_code_i[8]` `LAT` hot cycles later: the SP array's
//!   `ln<j>_*` (lane mode), wired one to one; same cycles as the cores
//!   with their own lanes (`docs/gpucc.md` section 10).
//! * Latency: core `LAT + 2` hot cycles from firing to a token its reader
//!   can fire on (`core.rs`); LSU: memory latency + 3.
//! * Sizes: 32 cores, 16 LSUs, 5 lanes, 3 input FIFOs, FIFO depths 16 /
//!   256 / 16: the format of `golden::gpucc`; [`GpuccNet::new`] refuses a
//!   preset with other `[gpucc]` sizes.

pub mod core;
pub mod lsu;
pub mod mem;
mod mem_port;
#[cfg(test)]
mod mem_tests;
#[cfg(test)]
mod tests;

use crate::config::SmConfig;
use crate::golden::gpucc::{gpucc_section, node_at, CORES, NODES};
use crate::hdl::{Backend, Block, Ctx, Decl, Pending, Sig};
use crate::units::fp::{k, S};
use crate::units::sp::{SpLnIn, SpLnOut};
use core::{CoreIn, CoreLnRes, CoreOut, GpuccCore};
use lsu::{GpuccLsu, LsuIn, LsuOut};

/// Width of a space count: 0..=256 (the LSU's address FIFO) and the "no
/// listener" value.
pub const SPACE_W: usize = 9;
/// Space of a lane position nobody listens at.
pub const SPACE_NONE: u64 = (1 << SPACE_W) - 1;

/// A 3-bit field of a configuration word at bit `lo`.
pub(crate) fn field<B: Backend>(w: S<B, 32>, lo: usize) -> S<B, 3> {
    match lo {
        11 => w.slice::<11, 3>(),
        14 => w.slice::<14, 3>(),
        17 => w.slice::<17, 3>(),
        20 => w.slice::<20, 3>(),
        23 => w.slice::<23, 3>(),
        26 => w.slice::<26, 3>(),
        _ => w.slice::<29, 3>(),
    }
}

/// The lane a FIFO listens on (1..=5; 0 = none): its push and word.
pub(crate) fn lane_pick<B: Backend>(lane: S<B, 3>, v: &[S<B, 1>; 5], d: &[S<B, 32>; 5]) -> (S<B, 1>, S<B, 32>) {
    let mut pv = k::<B, 1>(0);
    let mut pd = k::<B, 32>(0);
    for l in 0..5 {
        let hit = lane.eq(k::<B, 3>(l as u64 + 1));
        pv = hit.mux(v[l], pv);
        pd = hit.mux(d[l], pd);
    }
    (pv, pd)
}

/// Per lane, the least free space of the FIFOs that listen on it,
/// [`SPACE_NONE`] when none does. `free[f]` is FIFO `f`'s free space
/// (`depth - count`, computed once by the caller), `None` for a FIFO the
/// node does not have.
pub(crate) fn free_space<B: Backend>(fifo_lane: &[S<B, 3>; 3], free: &[Option<S<B, 9>>; 3]) -> [S<B, 9>; 5] {
    std::array::from_fn(|l| {
        let mut m = k::<B, 9>(SPACE_NONE);
        for f in 0..3 {
            let Some(free) = free[f] else { continue };
            let hit = fifo_lane[f].eq(k::<B, 3>(l as u64 + 1));
            m = (hit & free.ult(m)).mux(free, m);
        }
        m
    })
}

crate::ports! {
    /// Configuration writes, mode, and the LSUs' memory responses; with
    /// external lanes (`LN` = 32) the SP lanes' results `ln<j>_*_i`.
    pub struct NetIn[LN] {
        cfg_we_i: 1 @ Hot,
        cfg_node_i: 6 @ Hot,
        cfg_sel_i: 3 @ Hot,
        cfg_data_i: 32 @ Hot,
        clear_i: 1 @ Hot,
        run_i: 1 @ Hot,
        mem_req_ready_i: [1; 16] @ Hot,
        mem_resp_valid_i: [1; 16] @ Hot,
        mem_resp_data_i: [32; 16] @ Hot,
        ln: [SpLnOut; LN] @ in,
    }
}
crate::ports! {
    /// The LSUs' memory requests, the end of the run, and every node's
    /// firing and token; with external lanes (`LN` = 32) the operations
    /// for the SP lanes `ln<j>_*_o`.
    pub struct NetOut[LN] {
        mem_req_valid_o: [1; 16] @ Hot,
        mem_req_we_o: [1; 16] @ Hot,
        mem_req_addr_o: [32; 16] @ Hot,
        mem_req_wdata_o: [32; 16] @ Hot,
        pf_valid_o: [1; 16] @ Hot,
        pf_line_o: [25; 16] @ Hot,
        done_o: 1 @ Hot,
        err_o: 1 @ Hot,
        fire_o: [1; 48] @ Hot,
        stall_in_o: [1; 48] @ Hot,
        stall_out_o: [1; 48] @ Hot,
        tok_valid_o: [1; 48] @ Hot,
        tok_o: [32; 48] @ Hot,
        ln: [SpLnIn; LN] @ out,
    }
}

/// The GPU-CC network of a preset: its cores with their own SP lanes (`X`
/// = 0, `LN` = 0: [`GpuccNet::new`]) or driving the SM's SP lanes through
/// ports (`X` = 1, `LN` = 32: [`GpuccNetX`], [`GpuccNet::external`]).
#[derive(Debug, Clone)]
pub struct GpuccNet<const X: usize = 0, const LN: usize = 0> {
    decl: Decl,
    core: GpuccCore<X>,
    lsu: GpuccLsu,
}

/// The network whose 32 cores drive external SP lanes: core `j` drives
/// `ln<j>_*_o` and takes `ln<j>_*_i`, the SP array's lane `j` (module
/// `gpucc_net_<flavour>_l<LAT>_x`).
pub type GpuccNetX = GpuccNet<1, 32>;

impl GpuccNet {
    /// The network of `cfg` (a preset with a `[gpucc]` section of the
    /// built sizes), each core with its own SP lane, or why not.
    pub fn new(cfg: &SmConfig) -> Result<GpuccNet, String> {
        Ok(GpuccNet {
            decl: Decl::new(),
            core: GpuccCore::new(crate::golden::gpucc::flavor_of(cfg), checked_latency(cfg)?),
            lsu: GpuccLsu::new(),
        })
    }
}

impl GpuccNetX {
    /// The network of `cfg` whose core `j` drives SP lane `j` of the SM
    /// through `ln<j>_*` (the SP array's lane ports, in lane mode), or why
    /// not.
    pub fn external(cfg: &SmConfig) -> Result<GpuccNetX, String> {
        Ok(GpuccNet {
            decl: Decl::new(),
            core: GpuccCore::external(crate::golden::gpucc::flavor_of(cfg), checked_latency(cfg)?),
            lsu: GpuccLsu::new(),
        })
    }
}

/// The `sp_latency` of `cfg` if the RTL network is built for its
/// `[gpucc]` sizes.
fn checked_latency(cfg: &SmConfig) -> Result<usize, String> {
    let g = gpucc_section(cfg)?;
    if g.fifo_depth != 16 || g.lsu_addr_fifo_depth != 256 || g.lsu_data_fifo_depth != 16 {
        return Err(format!(
            "the GPU-CC RTL is built for FIFOs of 16 words, LSU FIFOs of 256 and 16; the {} preset asks for {}, {} and {}",
            cfg.name, g.fifo_depth, g.lsu_addr_fifo_depth, g.lsu_data_fifo_depth
        ));
    }
    if !(1..=200).contains(&cfg.sp_latency) {
        return Err(format!(
            "the GPU-CC RTL is built for sp_latency 1..=200; the {} preset has {}",
            cfg.name, cfg.sp_latency
        ));
    }
    Ok(cfg.sp_latency as usize)
}

/// A begun node: a core or an LSU.
enum Node<B: Backend, const X: usize> {
    Core(Pending, CoreOut<B, X>),
    Lsu(Pending, LsuOut<B>),
}

impl<B: Backend, const X: usize> Node<B, X> {
    fn out_lane(&self) -> S<B, 3> {
        match self {
            Node::Core(_, o) => o.out_lane_o,
            Node::Lsu(_, o) => o.out_lane_o,
        }
    }
    fn tok(&self) -> (S<B, 1>, S<B, 32>) {
        match self {
            Node::Core(_, o) => (o.tok_valid_o, o.tok_o),
            Node::Lsu(_, o) => (o.tok_valid_o, o.tok_o),
        }
    }
    fn free(&self) -> [S<B, 9>; 5] {
        match self {
            Node::Core(_, o) => o.free_o,
            Node::Lsu(_, o) => o.free_o,
        }
    }
}

impl<const X: usize, const LN: usize> Block for GpuccNet<X, LN> {
    type In<B: Backend> = NetIn<B, LN>;
    type Out<B: Backend> = NetOut<B, LN>;

    fn module_name(&self) -> String {
        format!(
            "gpucc_net_{}",
            self.core.module_name().trim_start_matches("gpucc_core_")
        )
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    /// Random stimulus with meaning (co-simulation, `smrtl sim`): one
    /// configuration write in eight cycles, of a plausible word (a core
    /// opcode on a core, `LDG`/`STG` on an LSU, sources, lanes, small
    /// counters), a clear in 512 cycles, `run_i` high seven cycles in
    /// eight; the memory ports stay random.
    fn constrain_hot(&self, t: u64, i: &mut NetIn<crate::hdl::Concrete, LN>) {
        use crate::golden::isa::Op;
        use crate::hdl::Bits;
        let r = (i.cfg_data_i.to_u64() | i.cfg_node_i.to_u64() << 32 | i.cfg_sel_i.to_u64() << 38)
            ^ t.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let r = r ^ r >> 29;
        let node = r % NODES as u64;
        let sel = (r >> 6) % 5;
        let x = r >> 9;
        const CORE_OPS: [Op; 17] = [
            Op::Iadd,
            Op::Isub,
            Op::Imad,
            Op::Imin,
            Op::Imax,
            Op::Shl,
            Op::Shr,
            Op::And,
            Op::Xor,
            Op::Fadd,
            Op::Fmul,
            Op::Ffma,
            Op::Fmin,
            Op::Fmax,
            Op::I2f,
            Op::F2i,
            Op::Mov,
        ];
        let data = match sel {
            0 => {
                let op = if node >= CORES as u64 {
                    if x & 1 == 0 {
                        Op::Ldg
                    } else {
                        Op::Stg
                    }
                } else {
                    CORE_OPS[(x as usize >> 1) % CORE_OPS.len()]
                };
                // Sources 0..7, FIFO lanes 0..5, output lane 1..5.
                let f = |v: u64, m: u64| (v % m) as u32;
                op as u32
                    | f(x >> 6, 4) << 7
                    | f(x >> 8, 8) << 11
                    | f(x >> 11, 8) << 14
                    | f(x >> 14, 8) << 17
                    | f(x >> 17, 6) << 20
                    | f(x >> 20, 6) << 23
                    | f(x >> 23, 6) << 26
                    | (1 + f(x >> 26, 5)) << 29
            }
            // Enable, x0, y0 and the three FIFOs' initial tokens.
            1 => x as u32,
            3 | 4 => 1 + (x % 8) as u32,
            _ => (x as u32) & 0xfff,
        };
        i.cfg_we_i = Bits::new(((r >> 50).is_multiple_of(8)) as u64);
        i.cfg_node_i = Bits::new(node);
        i.cfg_sel_i = Bits::new(sel);
        i.cfg_data_i = Bits::new(data as u64);
        i.clear_i = Bits::new(((r >> 53).is_multiple_of(512)) as u64);
        i.run_i = Bits::new(!(r >> 56).is_multiple_of(8) as u64);
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &NetIn<C::B, LN>) -> NetOut<C::B, LN> {
        // Begin every node in line order: their lane-facing outputs are
        // Moore, so the lanes and the space chain can be built first.
        let mut nodes: Vec<Node<C::B, X>> = Vec::with_capacity(NODES);
        for pos in 0..NODES {
            let n = node_at(pos);
            if n < CORES {
                let (h, o) = cx.instance_begin(&format!("u_core{n}"), &self.core);
                nodes.push(Node::Core(h, o));
            } else {
                let (h, o) = cx.instance_begin(&format!("u_lsu{}", n - CORES), &self.lsu);
                nodes.push(Node::Lsu(h, o));
            }
        }
        // Forward: the lanes as they arrive at each position.
        let z1 = k::<C::B, 1>(0);
        let z32 = k::<C::B, 32>(0);
        let mut lane_v: Vec<[S<C::B, 1>; 5]> = Vec::with_capacity(NODES);
        let mut lane_d: Vec<[S<C::B, 32>; 5]> = Vec::with_capacity(NODES);
        let (mut v, mut d) = ([z1; 5], [z32; 5]);
        for (pos, node) in nodes.iter().enumerate() {
            lane_v.push(v);
            lane_d.push(d);
            let ol = node.out_lane();
            let (tv, mut td) = node.tok();
            if let (Node::Core(..), Some(r)) = (node, i.ln.get(node_at(pos))) {
                // External lane: a core's `tok_o` is its input
                // `ln<j>_res_i` (not Moore), so the lane takes it here.
                td = tv.mux(r.res, z32);
            }
            for l in 0..5 {
                let drv = ol.eq(k::<C::B, 3>(l as u64 + 1));
                v[l] = drv.mux(tv, v[l]);
                d[l] = drv.mux(td, d[l]);
            }
        }
        // Backward: per lane, the least free space of the listeners from
        // a position to the next driver; a driver's credit limit is the
        // chain just after it on its own lane.
        let none = k::<C::B, 9>(SPACE_NONE);
        let mut after = [none; 5];
        let mut space = [none; NODES];
        for pos in (0..NODES).rev() {
            let node = &nodes[pos];
            let ol = node.out_lane();
            let mut s = none;
            for (l, a) in after.iter().enumerate() {
                s = ol.eq(k::<C::B, 3>(l as u64 + 1)).mux(*a, s);
            }
            space[pos] = s;
            let free = node.free();
            for l in 0..5 {
                let drv = ol.eq(k::<C::B, 3>(l as u64 + 1));
                let down = drv.mux(none, after[l]);
                after[l] = free[l].ult(down).mux(free[l], down);
            }
        }
        let mut fire = [z1; 48];
        let mut stall_in = [z1; 48];
        let mut stall_out = [z1; 48];
        let mut tok_valid = [z1; 48];
        let mut tok = [z32; 48];
        let mut req_valid = [z1; 16];
        let mut req_we = [z1; 16];
        let mut req_addr = [z32; 16];
        let mut req_wdata = [z32; 16];
        let mut pf_valid = [z1; 16];
        let mut pf_line = [k::<C::B, 25>(0); 16];
        let mut idle = k::<C::B, 1>(1);
        let mut err = z1;
        // External lanes: core j's operation for SP lane j.
        let mut ln_req: [Option<SpLnIn<C::B>>; LN] = [None; LN];
        for (pos, node) in nodes.into_iter().enumerate() {
            let n = node_at(pos);
            let we = i.cfg_we_i & i.cfg_node_i.eq(k::<C::B, 6>(n as u64));
            match node {
                Node::Core(h, _) => {
                    let ci = CoreIn {
                        cfg_we_i: we,
                        cfg_sel_i: i.cfg_sel_i,
                        cfg_data_i: i.cfg_data_i,
                        clear_i: i.clear_i,
                        run_i: i.run_i,
                        lane_valid_i: lane_v[pos],
                        lane_data_i: lane_d[pos],
                        space_i: space[pos],
                        ln: std::array::from_fn(|_| lane_res::<C::B, LN>(&i.ln, n)),
                    };
                    let o = cx.instance_end(h, &self.core, &ci);
                    if let (Some(r), Some(slot)) = (o.ln.first(), ln_req.get_mut(n)) {
                        *slot = Some(r.sp());
                    }
                    fire[n] = o.fire_o;
                    stall_in[n] = o.stall_in_o;
                    stall_out[n] = o.stall_out_o;
                    tok_valid[n] = o.tok_valid_o;
                    tok[n] = o.tok_o;
                    idle = idle & o.idle_o;
                    err = err | o.err_o;
                }
                Node::Lsu(h, _) => {
                    let j = n - CORES;
                    let li = LsuIn {
                        cfg_we_i: we,
                        cfg_sel_i: i.cfg_sel_i,
                        cfg_data_i: i.cfg_data_i,
                        clear_i: i.clear_i,
                        run_i: i.run_i,
                        lane_valid_i: lane_v[pos],
                        lane_data_i: lane_d[pos],
                        space_i: space[pos],
                        mem_req_ready_i: i.mem_req_ready_i[j],
                        mem_resp_valid_i: i.mem_resp_valid_i[j],
                        mem_resp_data_i: i.mem_resp_data_i[j],
                    };
                    let o = cx.instance_end(h, &self.lsu, &li);
                    fire[n] = o.fire_o;
                    stall_in[n] = o.stall_in_o;
                    stall_out[n] = o.stall_out_o;
                    tok_valid[n] = o.tok_valid_o;
                    tok[n] = o.tok_o;
                    idle = idle & o.idle_o;
                    err = err | o.err_o;
                    req_valid[j] = o.mem_req_valid_o;
                    req_we[j] = o.mem_req_we_o;
                    req_addr[j] = o.mem_req_addr_o;
                    req_wdata[j] = o.mem_req_wdata_o;
                    pf_valid[j] = o.pf_valid_o;
                    pf_line[j] = o.pf_line_o;
                }
            }
        }
        NetOut {
            mem_req_valid_o: req_valid,
            mem_req_we_o: req_we,
            mem_req_addr_o: req_addr,
            mem_req_wdata_o: req_wdata,
            pf_valid_o: pf_valid,
            pf_line_o: pf_line,
            done_o: cx.name("done", idle),
            err_o: err,
            fire_o: fire,
            stall_in_o: stall_in,
            stall_out_o: stall_out,
            tok_valid_o: tok_valid,
            tok_o: tok,
            ln: ln_req.map(|r| r.unwrap_or_else(ln_idle::<C::B>)),
        }
    }
}

/// Lane `n`'s result from the SP array's `ln<n>_*` (zero when there is no
/// such lane: not built, [`GpuccNet`]'s constructors pair the sizes).
fn lane_res<B: Backend, const LN: usize>(ln: &[SpLnOut<B>; LN], n: usize) -> CoreLnRes<B> {
    match ln.get(n) {
        Some(o) => CoreLnRes::from_sp(o),
        None => CoreLnRes {
            ln_valid: k::<B, 1>(0),
            ln_res: k::<B, 32>(0),
            ln_pred: k::<B, 1>(0),
            ln_err: k::<B, 1>(0),
            ln_err_code: k::<B, 8>(0),
        },
    }
}

/// An SP lane operation that is never valid (a lane no core drives).
fn ln_idle<B: Backend>() -> SpLnIn<B> {
    SpLnIn {
        valid: k::<B, 1>(0),
        op: k::<B, 7>(0),
        md: k::<B, 4>(0),
        a: k::<B, 32>(0),
        b: k::<B, 32>(0),
        c: k::<B, 32>(0),
        pa: k::<B, 1>(0),
    }
}
