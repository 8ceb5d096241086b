//! Testbench of the GPU-CC network (`units::gpucc::GpuccNet`): writes a
//! checked configuration ([`Network`]) through the configuration port,
//! runs it over a global-memory image behind a memory model, and checks it
//! against the golden dataflow model (`golden::gpucc::flow`), which shares
//! no logic with the RTL (its arithmetic is `golden::arith`):
//!
//! * every token a node drives on its lane, in order, equals the golden
//!   model's result of that node's firing with the same index (a dataflow
//!   network of FIFOs gives every node the same sequence of firings
//!   whatever the timing);
//! * every LSU request equals the golden firing's address (and, for a
//!   store, data);
//! * at the end: every node fired as often as in the golden run, and the
//!   final image is the golden image, word for word.
//!
//! The memory model serves each LSU in request order: a request is taken
//! when `mem{j}_req_ready_i` is high (every cycle, or at random with a
//! seed), a load reads the image when taken and its word returns after
//! `latency` hot cycles (plus a random 0..=latency/2 with a seed, never
//! before the LSU's previous response); a store writes when taken.
//!
//! The network runs as [`Variant::OwnLanes`] (`GpuccNet`, each core with
//! its own SP lane) or [`Variant::SpArray`] (`testbenches::gpucc_sp`: the
//! network with external lanes on the preset's SP array in lane mode, as
//! in the SM), with the same stimulus and checks.
//!
//! No progress (no firing, token, request or response) for `stall_limit`
//! hot cycles while the network is not done is a deadlock, reported with
//! every configured node's firings and FIFO levels; more than
//! `max_cycles` hot cycles is a runaway. The VCD, if asked for, is closed
//! (kept) on every outcome.

use super::gpucc_gen::Rng;
use crate::config::SmConfig;
use crate::golden::gpucc::flow::{Firing, Flow, FlowStats};
use crate::golden::gpucc::{flavor_of, is_lsu, node_at, node_name, Network, CORES, LSUS, NODES};
use crate::golden::isa::Op;
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Block, Concrete, Sim};
use crate::units::gpucc::{GpuccNet, NetIn, NetOut};
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Which RTL runs the network.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Variant {
    /// `gpucc_net`: every core with its own SP lane.
    #[default]
    OwnLanes,
    /// `gpucc_on_sp` ([`super::gpucc_sp::GpuccOnSp`]): the network whose
    /// cores have no lane, core `j` on lane `j` of the SP array (lane mode).
    SpArray,
    /// As [`Variant::SpArray`] with the groups' `ln_mode_i` held at 0: a
    /// wiring fault (no lane result ever comes back), for the test that
    /// the external cores report it (`err_o`).
    SpArrayNoLaneMode,
}

/// How to run the network.
#[derive(Debug, Clone)]
pub struct TbOpts {
    /// The RTL to run.
    pub variant: Variant,
    /// Hot cycles from a load request taken to its word on the response.
    pub latency: u64,
    /// 0: requests taken every cycle, fixed latency; otherwise the seed of
    /// random ready stalls (one cycle in four) and latency jitter.
    pub seed: u64,
    /// Hot cycles without progress that make a deadlock.
    pub stall_limit: u64,
    /// Hot cycles of the run at most.
    pub max_cycles: u64,
    /// Write a VCD (and its `.gtkw`) of the run here.
    pub vcd: Option<PathBuf>,
    /// One memory port for all LSUs, without coalescing: at most one word
    /// request taken per two hot cycles (a core cycle), round robin among
    /// the LSUs presenting one (the baseline `gpucc_mem` improves on).
    pub shared_port: bool,
}

impl Default for TbOpts {
    fn default() -> Self {
        TbOpts {
            variant: Variant::OwnLanes,
            latency: 20,
            seed: 0,
            stall_limit: 10_000,
            max_cycles: 100_000_000,
            vcd: None,
            shared_port: false,
        }
    }
}

/// What a run did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TbReport {
    /// Hot cycles from `run_i` high to `done_o`.
    pub hot_cycles: u64,
    /// Firings per node (as the golden model's [`FlowStats::firings`]).
    pub firings: Vec<u64>,
    pub loads: u64,
    pub stores: u64,
    /// Tokens and requests compared with the golden model.
    pub checked: u64,
    /// Per node, hot cycles with work left but an input FIFO empty, and
    /// with inputs but no output space (LSU: or the request path busy).
    pub stall_in: Vec<u64>,
    pub stall_out: Vec<u64>,
}

impl TbReport {
    /// One line per configured node: firings and stall cycles.
    pub fn per_node(&self, net: &Network) -> String {
        let mut s = String::new();
        for (n, _, op) in configured(net) {
            let _ = writeln!(
                s,
                "  {:<6} {:<5} fired {:>8}; input empty {:>8}; output full {:>8} hot cycles",
                node_name(n),
                op,
                self.firings.get(n).copied().unwrap_or(0),
                self.stall_in.get(n).copied().unwrap_or(0),
                self.stall_out.get(n).copied().unwrap_or(0)
            );
        }
        s
    }
}

/// Run `net` on the RTL network of `cfg` over `gmem` (updated with the
/// RTL's stores), checked against the golden model every cycle. `Err` names
/// the first difference, or the deadlock or runaway.
pub fn run(net: &Network, cfg: &SmConfig, gmem: &mut [u8], o: &TbOpts) -> Result<TbReport, String> {
    // The golden run, on a copy of the image.
    let mut gold_mem = gmem.to_vec();
    let mut gold: Vec<Vec<Firing>> = vec![Vec::new(); NODES];
    let golden: Result<FlowStats, String> = {
        let mut keep = |f: &Firing| gold[f.node].push(*f);
        Flow::new(net, flavor_of(cfg)).run(&mut gold_mem, u64::MAX, Some(&mut keep))
    };
    let r = match o.variant {
        Variant::OwnLanes => on(GpuccNet::new(cfg)?, "", net, gmem, o, &gold, golden.is_ok()),
        Variant::SpArray | Variant::SpArrayNoLaneMode => on(
            super::gpucc_sp::GpuccOnSp::new(cfg)?.lane_mode(o.variant == Variant::SpArray),
            "u_net.",
            net,
            gmem,
            o,
            &gold,
            golden.is_ok(),
        ),
    }?;
    let rep = match (r, golden) {
        (Ok(rep), Ok(_)) => rep,
        (Err(e), _) => return Err(e),
        (Ok(_), Err(g)) => return Err(format!("the RTL network finished but the golden model did not: {g}")),
    };
    if let Some(i) = (0..gmem.len() / 4).find(|&i| gmem[4 * i..4 * i + 4] != gold_mem[4 * i..4 * i + 4]) {
        let w = |m: &[u8]| u32::from_le_bytes(m[4 * i..4 * i + 4].try_into().expect("4 bytes"));
        return Err(format!(
            "final image differs at byte 0x{:x}: RTL 0x{:08x}, golden 0x{:08x}",
            4 * i,
            w(gmem),
            w(&gold_mem)
        ));
    }
    Ok(rep)
}

fn b<const W: usize>(v: u64) -> Bits<W> {
    Bits::new(v)
}

/// A block with the ports of the network (its own lanes or not).
pub trait NetBlock: Block<In<Concrete> = NetIn<Concrete, 0>, Out<Concrete> = NetOut<Concrete, 0>> {}
impl<K: Block<In<Concrete> = NetIn<Concrete, 0>, Out<Concrete> = NetOut<Concrete, 0>>> NetBlock for K {}

/// Simulate `blk` (the network's instances under `inst`, "" or "u_net.")
/// with the VCD if asked for: `Err` when it does not elaborate or the VCD
/// cannot be written, else what [`drive`] found.
fn on<K: NetBlock>(
    blk: K,
    inst: &str,
    net: &Network,
    gmem: &mut [u8],
    o: &TbOpts,
    gold: &[Vec<Firing>],
    check: bool,
) -> Result<Result<TbReport, String>, String> {
    let mut sim = Sim::new(blk).map_err(|e| format!("GPU-CC network does not elaborate: {e}"))?;
    sim.reset();
    if let Some(p) = &o.vcd {
        sim.open_vcd(p)
            .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
    }
    let r = drive(&mut sim, inst, net, gmem, o, gold, check);
    if o.vcd.is_some() {
        sim.close_vcd().map_err(|e| format!("VCD: {e}"))?;
    }
    Ok(r)
}

/// Write the configuration, then run until `done_o`.
fn drive<K: NetBlock>(
    sim: &mut Sim<K>,
    inst: &str,
    net: &Network,
    gmem: &mut [u8],
    o: &TbOpts,
    gold: &[Vec<Firing>],
    check: bool,
) -> Result<TbReport, String> {
    let mut inp: NetIn<Concrete, 0> = zero_ports();
    for (n, c) in net.nodes.iter().enumerate().filter(|(_, c)| c.op != 0) {
        let words = [c.op_word(), c.counter_word(), c.imm, c.nx, c.ny];
        for (sel, &w) in words.iter().enumerate() {
            inp.cfg_we_i = b(1);
            inp.cfg_node_i = b(n as u64);
            inp.cfg_sel_i = b(sel as u64);
            inp.cfg_data_i = b(w as u64);
            sim.step(&inp);
        }
    }
    inp.cfg_we_i = b(0);
    inp.run_i = b(1);
    let mut rng = Rng(o.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut pending: Vec<VecDeque<(u64, u32)>> = vec![VecDeque::new(); LSUS];
    let mut last_due = [0u64; LSUS];
    let mut toks = vec![0usize; NODES];
    let mut reqs = [0usize; LSUS];
    let mut fired = vec![0u64; NODES];
    let mut rep = TbReport {
        stall_in: vec![0; NODES],
        stall_out: vec![0; NODES],
        ..TbReport::default()
    };
    let mut idle_for = 0u64;
    let fail =
        |sim: &Sim<K>, fired: &[u64], msg: String| -> String { format!("{msg}\n{}", levels(sim, inst, net, fired)) };
    let mut rr = 0usize;
    for t in 0..o.max_cycles {
        // The shared port: the LSU whose request is taken this cycle.
        let shared = (o.shared_port && t % 2 == 0)
            .then(|| {
                (0..LSUS).map(|d| (rr + d) % LSUS).find(|&j| {
                    sim.peek(&format!("{inst}u_lsu{j}.req_valid"))
                        .is_some_and(|w| w[0] != 0)
                })
            })
            .flatten();
        if let Some(j) = shared {
            rr = (j + 1) % LSUS;
        }
        #[allow(clippy::needless_range_loop)]
        for j in 0..LSUS {
            let ready = if o.shared_port {
                shared == Some(j)
            } else {
                o.seed == 0 || !rng.word().is_multiple_of(4)
            };
            inp.mem_req_ready_i[j] = b(ready as u64);
            match pending[j].front() {
                Some(&(due, w)) if due <= t => {
                    inp.mem_resp_valid_i[j] = b(1);
                    inp.mem_resp_data_i[j] = b(w as u64);
                    pending[j].pop_front();
                }
                _ => {
                    inp.mem_resp_valid_i[j] = b(0);
                    inp.mem_resp_data_i[j] = b(0);
                }
            }
        }
        let out = sim.step(&inp);
        let mut progress = false;
        if out.err_o.any() {
            let n = (0..NODES)
                .find(|&n| out.tok_valid_o[n].any())
                .map_or("?".into(), node_name);
            return Err(fail(
                sim,
                &fired,
                format!("GPU-CC hot cycle {t}: a lane raised an error (near {n})"),
            ));
        }
        for n in 0..NODES {
            if out.fire_o[n].any() {
                fired[n] += 1;
                progress = true;
            }
            // Not in the cycle `done_o` ends the run (an uncounted node
            // with nothing left waits for input forever).
            rep.stall_in[n] += (out.stall_in_o[n].any() && !out.done_o.any()) as u64;
            rep.stall_out[n] += out.stall_out_o[n].any() as u64;
            if out.tok_valid_o[n].any() {
                progress = true;
                let v = out.tok_o[n].to_u64() as u32;
                let k = toks[n];
                toks[n] += 1;
                if check {
                    let g = gold[n].get(k).ok_or_else(|| {
                        fail(sim, &fired, format!("GPU-CC hot cycle {t}: {} drove token {k} (0x{v:08x}), the golden model fired it {} times", node_name(n), gold[n].len()))
                    })?;
                    if g.result != Some(v) {
                        return Err(fail(
                            sim,
                            &fired,
                            format!(
                                "GPU-CC hot cycle {t}: {} token {k}: RTL 0x{v:08x}, golden {:?} (operands {:08x?})",
                                node_name(n),
                                g.result,
                                g.operands
                            ),
                        ));
                    }
                    rep.checked += 1;
                }
            }
        }
        for j in 0..LSUS {
            if !(out.mem_req_valid_o[j].any() && inp.mem_req_ready_i[j].any()) {
                continue;
            }
            progress = true;
            let n = CORES + j;
            let addr = out.mem_req_addr_o[j].to_u64() as u32;
            let we = out.mem_req_we_o[j].any();
            let data = out.mem_req_wdata_o[j].to_u64() as u32;
            let k = reqs[j];
            reqs[j] += 1;
            let what = if we { "STG" } else { "LDG" };
            if check {
                let g = gold[n].get(k).ok_or_else(|| {
                    fail(sim, &fired, format!("GPU-CC hot cycle {t}: {} request {k} ({what} 0x{addr:08x}), the golden model fired it {} times", node_name(n), gold[n].len()))
                })?;
                let gop = Op::from_code(net.nodes[n].op);
                if g.addr != Some(addr) || (gop == Some(Op::Stg)) != we || (we && g.operands[1] != data) {
                    return Err(fail(sim, &fired, format!(
                        "GPU-CC hot cycle {t}: {} request {k}: RTL {what} 0x{addr:08x} data 0x{data:08x}, golden {:?} 0x{:08x} data 0x{:08x}",
                        node_name(n), gop, g.addr.unwrap_or(0), g.operands[1]
                    )));
                }
                rep.checked += 1;
            }
            if addr & 3 != 0 || addr as u64 + 4 > gmem.len() as u64 {
                return Err(fail(
                    sim,
                    &fired,
                    format!(
                        "GPU-CC {} {what} {k}: address 0x{addr:08x} is {} (global memory of {} bytes)",
                        node_name(n),
                        if addr & 3 != 0 {
                            "not 4-byte aligned"
                        } else {
                            "out of range"
                        },
                        gmem.len()
                    ),
                ));
            }
            let a = addr as usize;
            if we {
                gmem[a..a + 4].copy_from_slice(&data.to_le_bytes());
                rep.stores += 1;
            } else {
                let w = u32::from_le_bytes(gmem[a..a + 4].try_into().expect("4 bytes"));
                let jitter = if o.seed == 0 {
                    0
                } else {
                    rng.word() % (o.latency / 2 + 1)
                };
                let due = (t + 1 + o.latency + jitter).max(last_due[j] + 1);
                last_due[j] = due;
                pending[j].push_back((due, w));
                rep.loads += 1;
            }
        }
        let waiting = pending.iter().any(|p| !p.is_empty());
        if out.done_o.any() && !waiting && t > 0 {
            rep.hot_cycles = t;
            break;
        }
        if progress || waiting {
            idle_for = 0;
        } else {
            idle_for += 1;
            if idle_for >= o.stall_limit {
                return Err(fail(
                    sim,
                    &fired,
                    format!(
                        "GPU-CC deadlock: no firing for {} hot cycles (hot cycle {t}) and the network is not done",
                        o.stall_limit
                    ),
                ));
            }
        }
        if t + 1 == o.max_cycles {
            return Err(fail(
                sim,
                &fired,
                format!(
                    "GPU-CC runaway: {} hot cycles and the network is not done",
                    o.max_cycles
                ),
            ));
        }
    }
    if check {
        if let Some(n) = (0..NODES).find(|&n| fired[n] != gold[n].len() as u64) {
            return Err(fail(
                sim,
                &fired,
                format!(
                    "{} fired {} times, the golden model {}",
                    node_name(n),
                    fired[n],
                    gold[n].len()
                ),
            ));
        }
    }
    rep.firings = fired;
    Ok(rep)
}

/// The configured nodes in line order: node, configuration, operation.
fn configured(net: &Network) -> impl Iterator<Item = (usize, &crate::golden::gpucc::NodeCfg, String)> {
    (0..NODES).map(node_at).filter_map(|n| {
        let c = &net.nodes[n];
        (c.op != 0).then(|| (n, c, Op::from_code(c.op).map_or("?".into(), |o| o.to_string())))
    })
}

/// Every configured node's firings and FIFO levels (from the FIFOs'
/// pointer registers of the network's instances under `inst`), in line
/// order.
pub fn levels<K: Block>(sim: &Sim<K>, inst: &str, net: &Network, fired: &[u64]) -> String {
    let mut s = String::new();
    for (n, c, op) in configured(net) {
        let inst = if is_lsu(n) {
            format!("{inst}u_lsu{}", n - CORES)
        } else {
            format!("{inst}u_core{n}")
        };
        let fifos: &[(&str, u64)] = if is_lsu(n) {
            &[("u_addr", 256), ("u_data", 16)]
        } else {
            &[("u_fifo0", 16), ("u_fifo1", 16), ("u_fifo2", 16)]
        };
        let mut lv = Vec::new();
        for (k, (f, depth)) in fifos.iter().enumerate() {
            if c.fifo_lane.get(k).copied().unwrap_or(0) == 0 {
                continue;
            }
            let rd = |r: &str| sim.peek(&format!("{inst}.{f}.{r}")).map_or(0, |w| w[0]);
            let count = if rd("full") != 0 {
                *depth
            } else {
                rd("wr_ptr").wrapping_sub(rd("rd_ptr")) & (depth - 1)
            };
            lv.push(format!("F{k} {count}/{depth}"));
        }
        let limit = c.limit().map_or(String::new(), |l| format!(" of {l}"));
        let _ = writeln!(
            s,
            "  {:<6} {:<5} fired {}{limit}; FIFOs [{}]",
            node_name(n),
            op,
            fired[n],
            lv.join(", ")
        );
    }
    s
}
