//! GPU-CC mode in the golden SIMT model: `GCSET` writes a configuration
//! register of a GPU-CC node, `GCRUN` builds the network from the
//! configuration written so far, runs the golden dataflow model
//! (`golden::gpucc::flow`) over global memory, clears the configuration and
//! returns to SIMT mode at the next instruction (`docs/gpucc.md`).
//!
//! Both act on the whole warp. The launch must be one CTA of one warp, and
//! the warp must not be diverged (every live lane active): the mode switch
//! is an SM-wide event. `GCSET`'s register operand is read in the lowest
//! active lane. GPU-CC firings count against the budget in lane
//! operations: 32 per warp instruction of the budget.

use super::exec::Dec;
use super::report::{Fault, Reason};
use super::Golden;
use crate::config::SmConfig;
use crate::golden::gpucc::flow::{Firing, Flow, FlowStats};
use crate::golden::gpucc::{flavor_of, Network, NodeCfg, NODES};
use crate::golden::isa::Op;

/// What runs a checked network in place of the golden dataflow model
/// ([`Golden::set_gpucc_runner`]): the network, global memory (to update)
/// and the firing budget; the run's statistics or why it failed.
pub type GpuccRunner = dyn FnMut(&Network, &mut [u8], u64) -> Result<FlowStats, String> + Send;

/// A shared [`GpuccRunner`] (the golden model is `Clone` and `Debug`).
#[derive(Clone)]
pub(super) struct Runner(std::sync::Arc<std::sync::Mutex<Box<GpuccRunner>>>);

impl std::fmt::Debug for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GpuccRunner")
    }
}

/// The GPU-CC side of a golden run.
#[derive(Debug, Clone)]
pub(super) struct GpuccState {
    cfg: SmConfig,
    nodes: Vec<NodeCfg>,
    /// One entry per completed `GCRUN`.
    runs: Vec<FlowStats>,
    /// Keep every firing of every run ([`Golden::gpucc_trace`]).
    tracing: bool,
    trace: Vec<Firing>,
    /// Keep the tokens of the last run ([`Golden::take_gpucc_tokens`]).
    tokens_on: bool,
    tokens: Option<Vec<Vec<u32>>>,
    /// Keep each run's network and the global memory it started from
    /// ([`Golden::gpucc_kept`]).
    keeping: bool,
    kept: Vec<(Network, Vec<u8>)>,
    runner: Option<Runner>,
}

impl GpuccState {
    pub(super) fn new(cfg: &SmConfig) -> GpuccState {
        GpuccState {
            cfg: cfg.clone(),
            nodes: vec![NodeCfg::default(); NODES],
            runs: Vec::new(),
            tracing: false,
            trace: Vec::new(),
            tokens_on: false,
            tokens: None,
            keeping: false,
            kept: Vec::new(),
            runner: None,
        }
    }
}

fn fail(msg: String) -> Fault {
    Fault {
        lane: None,
        reason: Reason::Gpucc(msg),
    }
}

impl Golden {
    /// The statistics of every completed `GCRUN`, in order.
    pub fn gpucc_runs(&self) -> &[FlowStats] {
        &self.gpucc.runs
    }

    /// Record every GPU-CC firing from now on ([`Golden::gpucc_trace`]).
    pub fn trace_gpucc(&mut self, on: bool) {
        self.gpucc.tracing = on;
    }

    /// The firings recorded since [`Golden::trace_gpucc`] was switched on.
    pub fn gpucc_trace(&self) -> &[Firing] {
        &self.gpucc.trace
    }

    /// Keep, for every later `GCRUN`, the tokens each node drives on its
    /// lane, in firing order ([`Golden::take_gpucc_tokens`]): 4 bytes per
    /// token, where [`Golden::trace_gpucc`] keeps whole firings.
    pub fn keep_gpucc_tokens(&mut self, on: bool) {
        self.gpucc.tokens_on = on;
    }

    /// The tokens of the last `GCRUN` since [`Golden::keep_gpucc_tokens`]
    /// was switched on, per node (indexed as `golden::gpucc::node_name`),
    /// each node's in firing order; `None` when none was kept since the
    /// last call (or a runner replaced the dataflow model).
    pub fn take_gpucc_tokens(&mut self) -> Option<Vec<Vec<u32>>> {
        self.gpucc.tokens.take()
    }

    /// Keep every later `GCRUN`'s checked network and the global memory
    /// it starts from ([`Golden::gpucc_kept`]): what the RTL network's
    /// testbench (`testbenches::gpucc_tb`) replays.
    pub fn keep_gpucc_runs(&mut self, on: bool) {
        self.gpucc.keeping = on;
    }

    /// The networks and starting images kept since
    /// [`Golden::keep_gpucc_runs`] was switched on, one per `GCRUN`.
    pub fn gpucc_kept(&self) -> &[(Network, Vec<u8>)] {
        &self.gpucc.kept
    }

    /// Run every later `GCRUN`'s network with `runner` instead of the
    /// golden dataflow model (`smrtl run --gpucc-rtl`: the RTL network,
    /// itself checked against the golden model); its error stops the run
    /// as a GPU-CC fault.
    pub fn set_gpucc_runner(&mut self, runner: Box<GpuccRunner>) {
        self.gpucc.runner = Some(Runner(std::sync::Arc::new(std::sync::Mutex::new(runner))));
    }

    /// Execute `GCSET` or `GCRUN` for warp `wi` with the run's warp
    /// instruction limit `limit`; returns the lanes that executed.
    pub(super) fn exec_gpucc(&mut self, wi: usize, i: &Dec, limit: u64) -> Result<u32, Fault> {
        let w = &self.warps[wi];
        let (active, live) = (w.active, w.live);
        let what = i.op.info().mnemonic;
        if self.ncta != 1 || self.warps.len() != 1 {
            return Err(fail(format!(
                "{what}: GPU-CC needs a launch of one CTA of one warp (this launch: {} CTAs of {} warps)",
                self.ncta,
                self.warps.len()
            )));
        }
        if active != live {
            return Err(fail(format!(
                "{what} in divergent code: active lanes 0x{active:08x} of live lanes 0x{live:08x} (the mode switch needs the whole warp)"
            )));
        }
        match i.op {
            Op::Gcset => {
                let v = if i.b_imm {
                    i.imm
                } else {
                    self.warps[wi].regs[i.b as usize][active.trailing_zeros() as usize]
                };
                // `d` is the node (a plain number, not a register row).
                let node = (i.d as usize).min(NODES - 1);
                self.gpucc.nodes[node].write(i.a as u8, v);
            }
            Op::Gcrun => {
                let nodes = std::mem::replace(&mut self.gpucc.nodes, vec![NodeCfg::default(); NODES]);
                let net = Network::build(&nodes, &self.gpucc.cfg).map_err(|e| fail(format!("GCRUN: {e}")))?;
                if self.gpucc.keeping {
                    self.gpucc.kept.push((net.clone(), self.gmem.clone()));
                }
                let budget = limit.saturating_sub(self.issued).saturating_mul(32);
                let flow = Flow::new(&net, flavor_of(&self.gpucc.cfg));
                let st = &mut self.gpucc;
                let stats = if let Some(r) = &st.runner {
                    let mut f =
                        r.0.lock()
                            .map_err(|_| fail("GCRUN: the GPU-CC runner panicked before".into()))?;
                    (*f)(&net, &mut self.gmem, budget)
                } else if st.tracing || st.tokens_on {
                    let (trace, tracing) = (&mut st.trace, st.tracing);
                    let mut toks = st.tokens_on.then(|| vec![Vec::new(); NODES]);
                    let mut keep = |f: &Firing| {
                        if tracing {
                            trace.push(*f);
                        }
                        if let (Some(t), Some(v)) = (toks.as_mut(), f.result) {
                            t[f.node].push(v);
                        }
                    };
                    let r = flow.run(&mut self.gmem, budget, Some(&mut keep));
                    st.tokens = toks;
                    r
                } else {
                    flow.run(&mut self.gmem, budget, None)
                }
                .map_err(fail)?;
                st.runs.push(stats);
            }
            _ => unreachable!("exec_gpucc on {what}"),
        }
        self.warps[wi].pc += 1;
        Ok(active)
    }
}
