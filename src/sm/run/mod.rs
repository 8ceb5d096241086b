//! `smrtl run --rtl`: a kernel on the RTL SM ([`SmTop`]), checked against
//! a reference model as it runs, with the host models (instruction memory,
//! global memory) around it, waves and a performance report.
//!
//! The runner's parts:
//! * [`launch`]: the checks of the program and the launch against the
//!   SM's launch ports, and the host sequence: parameter words written one
//!   per core cycle (`param_*`), then a launch pulse.
//! * [`host`]: the instruction memory and the global memory serving the
//!   SM's `im_*` and `gm_*` ports.
//! * `runner`: the core-cycle loop; it ends when `done_o` rises, on the
//!   first error of the SM, on the first difference a checker finds, or at
//!   the cycle budget (error code 11). RTL warp slots map to (CTA, warp in
//!   CTA) through the warp-start monitor; every issue on `iss<s>_*` and
//!   every write-back on `ret<w>_*` goes to the checker, and a write-back
//!   of an instruction the warp has not issued is an error.
//! * [`Checker`]: what a reference model sees of the run. [`SimtChecker`]
//!   is the SIMT lock-step comparison with the golden model (issue and
//!   write-back, the lanes adopted from the RTL for `SR_CLOCK` and
//!   uninitialized shared reads, [`simt`]; in GPU-CC mode every token
//!   of the network against the golden dataflow model's, [`gctokens`]);
//!   [`NoCheck`] (`--no-check`)
//!   checks nothing. [`run_rtl`] picks one from [`RtlOptions::check`];
//!   [`run_checked`] takes any.
//! * [`RtlReport`]: the counters of the run and their rendering.
//!
//! [`SmTop`]: crate::sm::top

mod check;
pub mod gctokens;
pub mod host;
pub mod launch;
mod report;
mod runner;
pub mod simt;

pub use check::{Checker, Issue, NoCheck, Outstanding, Retire};
pub use report::RtlReport;
pub use simt::SimtChecker;

use crate::config::SmConfig;
use crate::golden::isa::Program;
use crate::golden::model::Launch;
use crate::hdl::{Bits, Concrete};
use crate::sm::top::{SmIn, SmOut};
use crate::testbenches::gmem::GmemConfig;
use std::path::PathBuf;

/// A simulation of the SM of some preset, behind one interface.
pub trait SmSim {
    /// One core cycle: outputs of the cycle, then both edges.
    fn step_core(&mut self, i: &SmIn<Concrete>) -> SmOut<Concrete>;
    /// Start writing waves.
    fn open_vcd(&mut self, path: &std::path::Path) -> std::io::Result<()>;
    /// Stop writing waves (flushes).
    fn close_vcd(&mut self) -> std::io::Result<()>;
    /// Verilog module name of the top.
    fn top_name(&self) -> String;
    /// A difference found by a checking engine (Verilator lock-step).
    fn failure(&mut self) -> Option<String> {
        None
    }
    /// What simulates, for the report.
    fn engine(&self) -> String {
        "Rust model".into()
    }
    /// The elaborated design whose VCD [`SmSim::open_vcd`] writes, when it
    /// writes one with the simulator's names (the SM's save file needs it).
    fn design(&self) -> Option<&crate::hdl::Design> {
        None
    }
    /// A register of the Rust model by hierarchical name (`Sim::peek`),
    /// for error reports; `None` when the engine has no Rust model.
    fn peek(&self, _path: &str) -> Option<Vec<u64>> {
        None
    }
}

/// What simulates the SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The Rust model (`hdl::Sim`).
    #[default]
    Rust,
    /// The Verilated export alone.
    Verilator,
    /// Both, every output compared every hot cycle.
    Lockstep,
}

impl<K> SmSim for crate::hdl::Sim<K>
where
    K: crate::hdl::Block<In<Concrete> = SmIn<Concrete>, Out<Concrete> = SmOut<Concrete>>,
{
    fn step_core(&mut self, i: &SmIn<Concrete>) -> SmOut<Concrete> {
        crate::hdl::Sim::step_core(self, i)
    }
    fn open_vcd(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        crate::hdl::Sim::open_vcd(self, path)
    }
    fn close_vcd(&mut self) -> std::io::Result<()> {
        crate::hdl::Sim::close_vcd(self)
    }
    fn top_name(&self) -> String {
        crate::hdl::Block::module_name(self.block())
    }
    fn design(&self) -> Option<&crate::hdl::Design> {
        Some(crate::hdl::Sim::design(self))
    }
    fn peek(&self, path: &str) -> Option<Vec<u64>> {
        crate::hdl::Sim::peek(self, path)
    }
}

/// Options of a run.
#[derive(Debug, Clone)]
pub struct RtlOptions {
    /// Core-cycle budget (error 11 when exhausted).
    pub max_cycles: u64,
    /// Waves of the whole SM.
    pub vcd: Option<PathBuf>,
    /// Only these core cycles (inclusive from, exclusive to).
    pub vcd_window: Option<(u64, u64)>,
    /// Check with the SIMT lock-step checker ([`SimtChecker`]; default on),
    /// else with none ([`NoCheck`], `--no-check`).
    pub check: bool,
    /// Global memory timing (default: the preset's).
    pub gmem: Option<GmemConfig>,
    /// Print a progress line every this many core cycles (0: never).
    pub progress: u64,
    /// Rust model, Verilated export, or both in lock-step.
    pub engine: Engine,
    /// A shared-memory read of a word its CTA never wrote stops the run
    /// with an error (default: counted and listed in the report). Needs
    /// `check`.
    pub strict_init: bool,
}

impl Default for RtlOptions {
    fn default() -> Self {
        RtlOptions {
            max_cycles: 5_000_000,
            vcd: None,
            vcd_window: None,
            check: true,
            gmem: None,
            progress: 0,
            engine: Engine::Rust,
            strict_init: false,
        }
    }
}

/// A failed run: where and why, the report so far and the memory image.
#[derive(Debug, Clone)]
pub struct RtlError {
    pub cycle: u64,
    pub msg: String,
    pub report: RtlReport,
    pub gmem: Vec<u8>,
}

impl std::fmt::Display for RtlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RTL SM, core cycle {}: {}", self.cycle, self.msg)
    }
}
impl std::error::Error for RtlError {}

/// A successful run.
#[derive(Debug, Clone)]
pub struct RtlResult {
    pub report: RtlReport,
    pub gmem: Vec<u8>,
}

fn lanes(v: &[Bits<1>; 32]) -> u32 {
    (0..32).fold(0u32, |a, k| a | (v[k].to_u64() as u32) << k)
}

fn fail(cycle: u64, msg: String, rep: &RtlReport, mem: &[u8]) -> Box<RtlError> {
    Box::new(RtlError {
        cycle,
        msg,
        report: rep.clone(),
        gmem: mem.to_vec(),
    })
}

/// Run `prog` with `launch` on the RTL SM `sim` of `cfg`, checked by the
/// SIMT lock-step checker ([`SimtChecker`]) or, without
/// [`RtlOptions::check`], by none ([`NoCheck`]). A launch the golden model
/// rejects is an error at cycle 0 either way.
pub fn run_rtl(
    sim: &mut dyn SmSim,
    cfg: &SmConfig,
    prog: &Program,
    launch: &Launch,
    gmem_init: Vec<u8>,
    opts: &RtlOptions,
) -> Result<RtlResult, Box<RtlError>> {
    let mut checker: Box<dyn Checker> = match SimtChecker::new(cfg, prog, launch, gmem_init.clone(), opts.strict_init) {
        Err(msg) => return Err(fail(0, msg, &RtlReport::new(cfg, prog), &gmem_init)),
        Ok(c) if opts.check => Box::new(c),
        Ok(_) => Box::new(NoCheck),
    };
    run_checked(sim, checker.as_mut(), cfg, prog, launch, gmem_init, opts)
}

/// Run `prog` with `launch` on the RTL SM `sim` of `cfg`, checked by
/// `checker` ([`RtlOptions::check`] and [`RtlOptions::strict_init`] are
/// the caller's to apply when it builds the checker).
pub fn run_checked(
    sim: &mut dyn SmSim,
    checker: &mut dyn Checker,
    cfg: &SmConfig,
    prog: &Program,
    launch: &Launch,
    gmem_init: Vec<u8>,
    opts: &RtlOptions,
) -> Result<RtlResult, Box<RtlError>> {
    if let Err(msg) = launch::check(prog, launch) {
        return Err(fail(0, msg, &RtlReport::new(cfg, prog), &gmem_init));
    }
    let mut run = runner::Run::new(sim, checker, cfg, prog, launch, gmem_init, opts);
    match run.go() {
        Ok(()) => Ok(RtlResult {
            report: run.rep,
            gmem: run.host.into_mem(),
        }),
        Err(s) => {
            if s.close {
                run.close();
            }
            Err(fail(s.cycle, s.msg, &run.rep, run.host.mem()))
        }
    }
}

/// Build the SM of `cfg` and run `prog` on it ([`run_rtl`]); an SM that
/// cannot be built for `cfg` is an error at cycle 0, and so is a kernel
/// with GPU-CC instructions on a preset without the network.
pub fn run_program(
    cfg: &SmConfig,
    prog: &Program,
    launch: &Launch,
    gmem: Vec<u8>,
    opts: &RtlOptions,
) -> Result<RtlResult, Box<RtlError>> {
    struct Go<'a> {
        cfg: &'a SmConfig,
        prog: &'a Program,
        launch: &'a Launch,
        gmem: Option<Vec<u8>>,
        opts: &'a RtlOptions,
    }
    impl crate::sm::top::SmFn for Go<'_> {
        type Out = Result<RtlResult, Box<RtlError>>;
        fn call<K>(&mut self, sm: K) -> anyhow::Result<Self::Out>
        where
            K: crate::hdl::Block<In<Concrete> = SmIn<Concrete>, Out<Concrete> = SmOut<Concrete>> + Clone + 'static,
        {
            let gmem = self.gmem.take().unwrap_or_default();
            let mut sim: Box<dyn SmSim> = match self.opts.engine {
                Engine::Rust => Box::new(crate::hdl::Sim::new(sm).map_err(|e| anyhow::anyhow!("{e}"))?),
                Engine::Verilator => Box::new(crate::sm::verilated::VerilatedSm::new(&sm)?),
                Engine::Lockstep => Box::new(crate::sm::verilated::LockstepSm::new(sm)?),
            };
            Ok(run_rtl(sim.as_mut(), self.cfg, self.prog, self.launch, gmem, self.opts))
        }
    }
    // GPU-CC instructions on a preset without the network: refuse the
    // kernel before building the SM.
    if let Some(msg) = crate::golden::gpucc::rtl_refusal(prog, cfg, "the kernel") {
        return Err(Box::new(RtlError {
            cycle: 0,
            msg,
            report: RtlReport::default(),
            gmem,
        }));
    }
    let mut go = Go {
        cfg,
        prog,
        launch,
        gmem: Some(gmem.clone()),
        opts,
    };
    match crate::sm::top::with_sm(cfg, &mut go) {
        Ok(r) => r,
        Err(e) => Err(Box::new(RtlError {
            cycle: 0,
            msg: format!("{e:#}"),
            report: RtlReport::default(),
            gmem,
        })),
    }
}
