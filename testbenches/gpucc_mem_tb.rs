//! Testbench of the GPU-CC network behind its memory front end: `gpucc_net`
//! -> `gpucc_mem` -> the real L1 (`units::l1::L1`, the gpucc preset's
//! geometry, requester 0) -> a global memory with a latency and a
//! bandwidth, checked against the golden dataflow model exactly as
//! [`super::gpucc_tb`] checks the network alone (every token, every LSU
//! request taken, the firings, the final image).
//!
//! The three blocks are one design here ([`GpuccSys`], a testbench-only
//! wrapper): the LSUs' requests and hints are Moore outputs of the
//! network and the front end's L1 request a Moore output of the front
//! end, so the wrapper begins the network and the front end, runs the
//! L1, then ends the front end and the network with the answers.
//!
//! The memory: a line request is taken when the bandwidth allows (a
//! budget of `milli_bytes_per_cycle / 1000` bytes per core cycle, 128
//! bytes a request); a read is performed when taken and its response
//! (one per core cycle, in order) comes `latency` core cycles later; a
//! store is performed when taken (words of its `wmask`).

use super::gpucc_tb::TbReport;
use crate::config::SmConfig;
use crate::golden::gpucc::flow::{Firing, Flow, FlowStats};
use crate::golden::gpucc::{flavor_of, node_name, Network, CORES, LSUS, NODES};
use crate::golden::isa::Op;
use crate::hdl::sim::zero_ports;
use crate::hdl::{Backend, Bits, Block, Concrete, Ctx, Decl, Sim};
use crate::units::gm::{GmReq, GmResp};
use crate::units::gpucc::mem::{GpuccMem, MemIn};
use crate::units::gpucc::{GpuccNet, NetIn};
use crate::units::l1::{L1In, L1};
use std::collections::VecDeque;

crate::ports! {
    /// The network's configuration and mode, the memory's port.
    pub struct SysIn {
        cfg_we_i: 1 @ Hot,
        cfg_node_i: 6 @ Hot,
        cfg_sel_i: 3 @ Hot,
        cfg_data_i: 32 @ Hot,
        clear_i: 1 @ Hot,
        run_i: 1 @ Hot,
        flush_i: 1 @ Hot,
        gm_size_i: 32 @ Core,
        gm_req_ready_i: 1 @ Core,
        gm_resp: GmResp @ in,
    }
}
crate::ports! {
    /// The network's observation ports, the LSUs' requests, the memory
    /// request, the counters.
    pub struct SysOut {
        done_o: 1 @ Hot,
        idle_o: 1 @ Hot,
        err_o: 1 @ Hot,
        fire_o: [1; 48] @ Hot,
        tok_valid_o: [1; 48] @ Hot,
        tok_o: [32; 48] @ Hot,
        lsu_req_taken_o: [1; 16] @ Hot,
        lsu_req_we_o: [1; 16] @ Hot,
        lsu_req_addr_o: [32; 16] @ Hot,
        lsu_req_wdata_o: [32; 16] @ Hot,
        gm_req: GmReq @ out,
        cnt_o: [32; 8] @ Core,
    }
}

/// Network, front end and L1 of the gpucc preset.
#[derive(Debug, Clone)]
pub struct GpuccSys {
    decl: Decl,
    net: GpuccNet,
    mem: GpuccMem,
    l1: L1<7>,
}

impl GpuccSys {
    pub fn new(cfg: &SmConfig) -> Result<GpuccSys, String> {
        Ok(GpuccSys {
            decl: Decl::new(),
            net: GpuccNet::new(cfg)?,
            mem: GpuccMem::of(cfg)?,
            l1: L1::<7>::of(cfg)
                .map_err(|e| e.to_string())?
                .ok_or("the preset has no L1")?,
        })
    }
}

impl Block for GpuccSys {
    type In<B: Backend> = SysIn<B>;
    type Out<B: Backend> = SysOut<B>;
    fn module_name(&self) -> String {
        "gpucc_sys_tb".into()
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SysIn<C::B>) -> SysOut<C::B> {
        let (hn, no) = cx.instance_begin("u_net", &self.net);
        let (hm, mo) = cx.instance_begin("u_mem", &self.mem);
        let l1o = cx.instance(
            "u_l1",
            &self.l1,
            &L1In {
                lsu_req: mo.l1_req,
                lsu_req_refresh_i: mo.l1_req_refresh_o,
                gm_req_ready_i: i.gm_req_ready_i,
                gm_resp: i.gm_resp,
                rq: [],
                rq_fill: [],
            },
        );
        let mi = MemIn {
            mem_req_valid_i: no.mem_req_valid_o,
            mem_req_we_i: no.mem_req_we_o,
            mem_req_addr_i: no.mem_req_addr_o,
            mem_req_wdata_i: no.mem_req_wdata_o,
            pf_valid_i: no.pf_valid_o,
            pf_line_i: no.pf_line_o,
            clear_i: i.clear_i,
            flush_i: i.flush_i,
            gm_size_i: i.gm_size_i,
            l1_req_ready_i: l1o.lsu_req_ready_o,
            l1_resp: l1o.lsu_resp,
        };
        let mo = cx.instance_end(hm, &self.mem, &mi);
        let ni = NetIn {
            cfg_we_i: i.cfg_we_i,
            cfg_node_i: i.cfg_node_i,
            cfg_sel_i: i.cfg_sel_i,
            cfg_data_i: i.cfg_data_i,
            clear_i: i.clear_i,
            run_i: i.run_i,
            mem_req_ready_i: mo.mem_req_ready_o,
            mem_resp_valid_i: mo.mem_resp_valid_o,
            mem_resp_data_i: mo.mem_resp_data_o,
            ln: [],
        };
        let n = cx.instance_end(hn, &self.net, &ni);
        let taken = std::array::from_fn(|j| n.mem_req_valid_o[j] & mo.mem_req_ready_o[j]);
        SysOut {
            done_o: n.done_o,
            idle_o: mo.idle_o,
            err_o: n.err_o,
            fire_o: n.fire_o,
            tok_valid_o: n.tok_valid_o,
            tok_o: n.tok_o,
            lsu_req_taken_o: taken,
            lsu_req_we_o: n.mem_req_we_o,
            lsu_req_addr_o: n.mem_req_addr_o,
            lsu_req_wdata_o: n.mem_req_wdata_o,
            gm_req: l1o.gm_req,
            cnt_o: [
                mo.cnt_loads_o,
                mo.cnt_stores_o,
                mo.cnt_line_reads_o,
                mo.cnt_line_writes_o,
                mo.cnt_prefetch_o,
                mo.cnt_buf_hits_o,
                l1o.cnt_l1_hit_o,
                l1o.cnt_l1_miss_o,
            ],
        }
    }
}

/// The memory behind the L1.
#[derive(Debug, Clone)]
pub struct MemTbOpts {
    /// Core cycles from a read taken to its response.
    pub latency: u64,
    /// Bandwidth, 1/1000 byte per core cycle (0: unlimited).
    pub milli_bytes_per_cycle: u64,
    pub stall_limit: u64,
    pub max_cycles: u64,
}

impl MemTbOpts {
    /// The preset's memory: `gmem_latency`, `gmem_milli_bytes_per_cycle`.
    pub fn of(cfg: &SmConfig) -> MemTbOpts {
        MemTbOpts {
            latency: cfg.gmem_latency as u64,
            milli_bytes_per_cycle: cfg.gmem_milli_bytes_per_cycle as u64,
            stall_limit: 20_000,
            max_cycles: 200_000_000,
        }
    }
}

/// What a run through the front end did: the network's report, and the
/// front end's and L1's counters (loads, stores, line reads, line writes,
/// prefetches, buffer hits, L1 hits, L1 misses).
#[derive(Debug, Clone, Default)]
pub struct MemTbReport {
    pub net: TbReport,
    pub counters: [u64; 8],
}

fn b<const W: usize>(v: u64) -> Bits<W> {
    Bits::new(v)
}

/// Run `net` on the RTL network behind `gpucc_mem` and the L1 over `gmem`
/// (updated with the stores), checked against the golden model. `Err`
/// names the first difference, a deadlock or a runaway.
pub fn run_mem(net: &Network, cfg: &SmConfig, gmem: &mut [u8], o: &MemTbOpts) -> Result<MemTbReport, String> {
    let mut gold_mem = gmem.to_vec();
    let mut gold: Vec<Vec<Firing>> = vec![Vec::new(); NODES];
    let golden: Result<FlowStats, String> = {
        let mut keep = |f: &Firing| gold[f.node].push(*f);
        Flow::new(net, flavor_of(cfg)).run(&mut gold_mem, u64::MAX, Some(&mut keep))
    };
    golden.map_err(|g| format!("the golden model does not finish: {g}"))?;
    let mut sim = Sim::new(GpuccSys::new(cfg)?).map_err(|e| format!("does not elaborate: {e}"))?;
    sim.reset();
    let rep = drive(&mut sim, net, gmem, o, &gold)?;
    if let Some(i) = (0..gmem.len() / 4).find(|&i| gmem[4 * i..4 * i + 4] != gold_mem[4 * i..4 * i + 4]) {
        return Err(format!("final image differs at byte 0x{:x}", 4 * i));
    }
    Ok(rep)
}

fn word(m: &[u8], a: usize) -> u32 {
    m.get(a..a + 4)
        .map_or(0, |s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
}

fn drive(
    sim: &mut Sim<GpuccSys>,
    net: &Network,
    gmem: &mut [u8],
    o: &MemTbOpts,
    gold: &[Vec<Firing>],
) -> Result<MemTbReport, String> {
    let mut inp: SysIn<Concrete> = zero_ports();
    inp.gm_size_i = b(gmem.len().min(u32::MAX as usize) as u64);
    for (n, c) in net.nodes.iter().enumerate().filter(|(_, c)| c.op != 0) {
        for (sel, &w) in [c.op_word(), c.counter_word(), c.imm, c.nx, c.ny].iter().enumerate() {
            inp.cfg_we_i = b(1);
            inp.cfg_node_i = b(n as u64);
            inp.cfg_sel_i = b(sel as u64);
            inp.cfg_data_i = b(w as u64);
            sim.step(&inp);
        }
    }
    // Start the run at an even hot cycle count (the configuration took 5
    // steps a node): the loop's `t` is then the simulator's hot cycle, a
    // core edge ending every even one.
    inp.cfg_we_i = b(0);
    if net.nodes.iter().filter(|c| c.op != 0).count() % 2 == 1 {
        sim.step(&inp);
    }
    inp.run_i = b(1);
    let mut toks = vec![0usize; NODES];
    let mut reqs = [0usize; LSUS];
    let mut fired = vec![0u64; NODES];
    let mut rep = MemTbReport::default();
    // Memory: bandwidth budget (milli-bytes), responses (due, id, line).
    let mut budget = 0u64;
    let mut resp: VecDeque<(u64, u8, usize)> = VecDeque::new();
    let mut idle_for = 0u64;
    let mut done_at = None;
    for t in 0..o.max_cycles {
        // Core-domain inputs change at the first hot cycle of a core cycle
        // (odd: the core edge ends the even ones).
        let c = t.div_ceil(2);
        if t % 2 == 1 {
            if o.milli_bytes_per_cycle > 0 {
                budget = (budget + o.milli_bytes_per_cycle).min(256_000);
            }
            inp.gm_req_ready_i = b((o.milli_bytes_per_cycle == 0 || budget >= 128_000) as u64);
            inp.gm_resp.valid = b(0);
            if let Some(&(due, id, line)) = resp.front() {
                if due <= c {
                    resp.pop_front();
                    inp.gm_resp.valid = b(1);
                    inp.gm_resp.id = b(id as u64);
                    for w in 0..32 {
                        inp.gm_resp.rdata[w] = b(word(gmem, line * 128 + 4 * w) as u64);
                    }
                }
            }
        }
        let out = sim.step(&inp);
        let mut progress = false;
        if out.err_o.any() {
            return Err(format!("hot cycle {t}: a lane raised an error"));
        }
        for n in 0..NODES {
            if out.fire_o[n].any() {
                fired[n] += 1;
                progress = true;
            }
            if out.tok_valid_o[n].any() {
                progress = true;
                let v = out.tok_o[n].to_u64() as u32;
                let k = toks[n];
                toks[n] += 1;
                let g = gold[n].get(k).ok_or_else(|| {
                    format!(
                        "hot cycle {t}: {} drove token {k}, golden fired {}",
                        node_name(n),
                        gold[n].len()
                    )
                })?;
                if g.result != Some(v) {
                    return Err(format!(
                        "hot cycle {t}: {} token {k}: RTL 0x{v:08x}, golden {:?}",
                        node_name(n),
                        g.result
                    ));
                }
                rep.net.checked += 1;
            }
        }
        #[allow(clippy::needless_range_loop)]
        for j in 0..LSUS {
            if !out.lsu_req_taken_o[j].any() {
                continue;
            }
            progress = true;
            let n = CORES + j;
            let addr = out.lsu_req_addr_o[j].to_u64() as u32;
            let we = out.lsu_req_we_o[j].any();
            let data = out.lsu_req_wdata_o[j].to_u64() as u32;
            let k = reqs[j];
            reqs[j] += 1;
            let g = gold[n].get(k).ok_or_else(|| {
                format!(
                    "hot cycle {t}: {} request {k}, golden fired {}",
                    node_name(n),
                    gold[n].len()
                )
            })?;
            let gop = Op::from_code(net.nodes[n].op);
            if g.addr != Some(addr) || (gop == Some(Op::Stg)) != we || (we && g.operands[1] != data) {
                return Err(format!(
                    "hot cycle {t}: {} request {k}: RTL 0x{addr:08x} we {we} data 0x{data:08x}, golden {:?}",
                    node_name(n),
                    g
                ));
            }
            if addr & 3 != 0 || addr as usize + 4 > gmem.len() {
                return Err(format!(
                    "{} request {k}: address 0x{addr:08x} unaligned or out of range",
                    node_name(n)
                ));
            }
            rep.net.checked += 1;
            if we {
                rep.net.stores += 1;
            } else {
                rep.net.loads += 1;
            }
        }
        // The memory takes a request at the core edge.
        if t % 2 == 0 && out.gm_req.valid.any() && inp.gm_req_ready_i.any() {
            progress = true;
            if o.milli_bytes_per_cycle > 0 {
                budget -= 128_000;
            }
            let q = &out.gm_req;
            let line = (q.addr.to_u64() as usize) / 128;
            if q.write.any() {
                for w in 0..32 {
                    let a = line * 128 + 4 * w;
                    if q.wmask[w].any() && a + 4 <= gmem.len() {
                        gmem[a..a + 4].copy_from_slice(&(q.wdata[w].to_u64() as u32).to_le_bytes());
                    }
                }
            } else {
                // Read when taken: the data is captured now.
                resp.push_back((c + o.latency, q.id.to_u64() as u8, line));
            }
        }
        // The end: the network done, then flush the front end until idle.
        if out.done_o.any() && done_at.is_none() {
            done_at = Some(t);
            inp.flush_i = b(1);
        }
        if done_at.is_some() && out.idle_o.any() && resp.is_empty() && t % 2 == 0 {
            rep.net.hot_cycles = t;
            // Read the counters (core outputs) from this step.
            for (k, v) in out.cnt_o.iter().enumerate() {
                rep.counters[k] = v.to_u64();
            }
            break;
        }
        if progress || !resp.is_empty() {
            idle_for = 0;
        } else {
            idle_for += 1;
            if idle_for >= o.stall_limit {
                return Err(format!("deadlock at hot cycle {t}: fired {fired:?}"));
            }
        }
        if t + 1 == o.max_cycles {
            return Err(format!("runaway: {} hot cycles", o.max_cycles));
        }
    }
    if let Some(n) = (0..NODES).find(|&n| fired[n] != gold[n].len() as u64) {
        return Err(format!(
            "{} fired {} times, the golden model {}",
            node_name(n),
            fired[n],
            gold[n].len()
        ));
    }
    rep.net.firings = fired;
    Ok(rep)
}
