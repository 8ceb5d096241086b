//! The whole SM as its Verilated export, behind the same [`SmSim`] driver
//! interface as the Rust model, and the two in lock-step.
//!
//! * [`VerilatedSm`]: the SM's exported Verilog (`smrtl export sm`) built by
//!   Verilator (cached under `target/smrtl-verilator`) and loaded as a shared
//!   library; one [`SmSim::step_core`] = two hot cycles, the inputs held for
//!   both, the outputs those of the first (the core-clock phase where the
//!   core edge comes next), exactly as `hdl::Sim::step_core` does.
//! * [`LockstepSm`]: the Rust SM and the Verilated SM driven with the same
//!   inputs; every output port of both is compared at every hot cycle, bit
//!   for bit. The first difference is kept (core cycle, hot phase, port,
//!   both values) and reported through [`SmSim::failure`], which stops
//!   `run_rtl` with that place. The testbench models (instruction memory,
//!   global memory, the golden-model checker) follow the Rust SM's outputs,
//!   which equal the Verilated ones up to the first difference.
//! * Clock domain and timing: the harness's (`cosim::verilator`): reset
//!   pulse, then per hot cycle `t` inputs set, pre-edge eval, outputs read,
//!   edge eval (core edge on even `t`).

use crate::cosim::verilator::{PortsOf, Verilated, VerilatorError};
use crate::hdl::sim::{flatten, unflatten};
use crate::hdl::{Block, Concrete, Sim};
use crate::sm::run::SmSim;
use crate::sm::top::{SmIn, SmOut};

/// The Verilated SM.
pub struct VerilatedSm {
    v: Verilated,
    top: PortsOf,
    /// Hot cycle.
    t: u64,
    ins: Vec<u64>,
    outs: Vec<u64>,
    vcd: bool,
}

impl VerilatedSm {
    /// Build (or take from the cache) and load the Verilated model of `sm`.
    pub fn new<K: Block + Clone>(sm: &K) -> Result<Self, VerilatorError> {
        Self::with_verilog(sm, None)
    }
    /// As [`new`](Self::new) with these `(module, text)` Verilog sources
    /// instead of the export (negative tests: a deliberately wrong RTL).
    pub fn with_verilog<K: Block + Clone>(
        sm: &K,
        texts: Option<Vec<(String, String)>>,
    ) -> Result<Self, VerilatorError> {
        let sim = Sim::new(sm.clone()).map_err(|e| VerilatorError::Failed {
            cmd: "elaborate the SM".into(),
            log: e.to_string(),
        })?;
        let texts = texts.unwrap_or_else(|| crate::hdl::verilog::emit(sim.design()));
        let top = PortsOf::top(sim.design());
        let mut v = Verilated::new(&texts, &top)?;
        v.reset();
        Ok(VerilatedSm {
            v,
            top,
            t: 0,
            ins: vec![],
            outs: vec![],
            vcd: false,
        })
    }
    /// One hot cycle with the inputs in `self.ins`; outputs in `self.outs`.
    fn hot(&mut self) {
        self.v.set_inputs(&self.ins);
        self.v.pre_edge(self.t);
        self.v.get_outputs(&mut self.outs);
        if self.vcd {
            self.v.dump(2 * self.t + 1);
        }
        self.v.edge(self.t);
        if self.vcd {
            self.v.dump(2 * self.t + 2);
        }
        self.t += 1;
    }
}

impl SmSim for VerilatedSm {
    fn step_core(&mut self, i: &SmIn<Concrete>) -> SmOut<Concrete> {
        flatten(i, &mut self.ins);
        self.hot();
        let o = unflatten(&self.outs);
        self.hot();
        o
    }
    fn open_vcd(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        self.v
            .open_vcd(path)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        self.vcd = true;
        Ok(())
    }
    fn close_vcd(&mut self) -> std::io::Result<()> {
        if self.vcd {
            self.v.close_vcd();
            self.vcd = false;
        }
        Ok(())
    }
    fn top_name(&self) -> String {
        self.top.name.clone()
    }
    fn engine(&self) -> String {
        format!("Verilator ({} Verilated)", self.top.name)
    }
}

/// The Rust SM and the Verilated SM in lock-step.
pub struct LockstepSm<K: Block> {
    rust: Sim<K>,
    ver: VerilatedSm,
    ro: Vec<u64>,
    first: Option<String>,
    /// Hot cycles compared.
    pub hot_cycles: u64,
}

impl<K> LockstepSm<K>
where
    K: Block<In<Concrete> = SmIn<Concrete>, Out<Concrete> = SmOut<Concrete>> + Clone,
{
    pub fn new(sm: K) -> Result<Self, VerilatorError> {
        Self::with_verilog(sm, None)
    }
    /// Lock-step against these Verilog sources instead of the export.
    pub fn with_verilog(sm: K, texts: Option<Vec<(String, String)>>) -> Result<Self, VerilatorError> {
        let ver = VerilatedSm::with_verilog(&sm, texts)?;
        let rust = Sim::new(sm).map_err(|e| VerilatorError::Failed {
            cmd: "elaborate the SM".into(),
            log: e.to_string(),
        })?;
        Ok(LockstepSm {
            rust,
            ver,
            ro: vec![],
            first: None,
            hot_cycles: 0,
        })
    }
    /// Compare the Rust outputs of this hot cycle with the Verilated ones.
    fn compare(&mut self, o: &SmOut<Concrete>) {
        if self.first.is_some() {
            return;
        }
        flatten(o, &mut self.ro);
        if let Some((name, r, v)) = crate::cosim::compare(&self.ver.top.outputs, &self.ro, &self.ver.outs) {
            let t = self.ver.t - 1;
            self.first = Some(format!(
                "Verilator lock-step: hot cycle {t} (core cycle {}, {} half): output `{name}` Rust {r}, Verilog {v}",
                t / 2,
                if t.is_multiple_of(2) { "first" } else { "second" },
            ));
            return;
        }
        self.hot_cycles = self.ver.t;
    }
}

impl<K> SmSim for LockstepSm<K>
where
    K: Block<In<Concrete> = SmIn<Concrete>, Out<Concrete> = SmOut<Concrete>> + Clone,
{
    fn step_core(&mut self, i: &SmIn<Concrete>) -> SmOut<Concrete> {
        flatten(i, &mut self.ver.ins);
        let o = self.rust.step(i);
        self.ver.hot();
        self.compare(&o);
        let o2 = self.rust.step(i);
        self.ver.hot();
        self.compare(&o2);
        o
    }
    fn open_vcd(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        self.rust.open_vcd(path)?;
        let stem = path.with_extension("");
        let vp = std::path::PathBuf::from(format!("{}_verilator.vcd", stem.display()));
        self.ver.open_vcd(&vp)
    }
    fn close_vcd(&mut self) -> std::io::Result<()> {
        self.ver.close_vcd()?;
        self.rust.close_vcd()
    }
    fn top_name(&self) -> String {
        self.ver.top.name.clone()
    }
    fn failure(&mut self) -> Option<String> {
        self.first.clone()
    }
    fn design(&self) -> Option<&crate::hdl::Design> {
        Some(self.rust.design())
    }
    fn peek(&self, path: &str) -> Option<Vec<u64>> {
        self.rust.peek(path)
    }
    fn engine(&self) -> String {
        format!(
            "Rust model and Verilator ({}) in lock-step, every output compared every hot cycle: {} hot cycles, {}",
            self.ver.top.name,
            self.hot_cycles,
            if self.first.is_some() {
                "a mismatch"
            } else {
                "0 mismatches"
            }
        )
    }
}
