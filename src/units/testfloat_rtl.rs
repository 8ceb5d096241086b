//! `smrtl testfloat --rtl`: each TestFloat vector through the preset's RTL
//! lane instead of the reference arithmetic. The `_tesla` ops go through
//! the Tesla SP lane (fmad presets), the IEEE FP32 ops through the IEEE SP
//! lane (ffma presets), the FP64 ops through the preset's FP64 lane
//! (`dpu_lane`), the `sfu_*` ops through one SFU interpolator
//! (`sfu_unit`, the op's own instruction: `sfu_ex2` takes a PREEX2 value,
//! `sfu_sin`/`sfu_cos` a PRESIN value, as in `smrtl testfloat`); an op the preset's hardware lacks is an error naming the
//! preset and what it has. The lane is simulated as a clocked block (its
//! `LAT` pipeline stages stepped per vector), natively or, with
//! `--verilator`, in its Verilated export. The RTL has no exception flags
//! (the ISA has none), so the flags column is not compared; the result is,
//! bit for bit (an expected NaN matches any NaN unless `--check-nans`, as
//! in `smrtl testfloat`; every RTL NaN is the canonical one).

use crate::config::SmConfig;
use crate::cosim::verilator::{PortsOf, Verilated};
use crate::golden::arith::{Flags, Round};
use crate::golden::isa::Op as Isa;
use crate::golden::testfloat::Op;
use crate::hdl::sim::{flatten, unflatten};
use crate::hdl::{verilog, Bits, Block, Concrete, Sim};
use crate::units::dpu::{Dpu, DpuLane, DpuLaneIn, DpuLaneOut};
use crate::units::sfu::{SfuUnit, SfuUnitIn, SfuUnitOut};
use crate::units::sp::lane::{Flavor, SpLane, SpLaneIn, SpLaneOut};
use crate::units::sp::SpGeom;
use anyhow::{bail, Result};

/// A lane block stepped through its pipeline, natively or in Verilator.
struct Driver<K: Block> {
    sim: Sim<K>,
    ver: Option<Verilated>,
    lat: u64,
    t: u64,
    words: Vec<u64>,
    outw: Vec<u64>,
}

impl<K: Block> Driver<K> {
    fn new(blk: K, lat: usize, verilator: bool) -> Result<Self> {
        let sim = Sim::new(blk)?;
        let ver = if verilator {
            let texts = verilog::emit(sim.design());
            let mut v = Verilated::new(&texts, &PortsOf::top(sim.design()))?;
            v.reset();
            Some(v)
        } else {
            None
        };
        Ok(Driver {
            sim,
            ver,
            lat: lat as u64,
            t: 0,
            words: vec![],
            outw: vec![],
        })
    }

    /// Present `i` for `LAT` hot cycles and return the outputs after them.
    fn run(&mut self, i: &K::In<Concrete>) -> K::Out<Concrete> {
        match &mut self.ver {
            None => {
                for _ in 0..self.lat {
                    self.sim.step(i);
                }
                self.sim.eval(i)
            }
            Some(v) => {
                flatten(i, &mut self.words);
                v.set_inputs(&self.words);
                for _ in 0..self.lat {
                    v.pre_edge(self.t);
                    v.edge(self.t);
                    self.t += 1;
                }
                v.pre_edge(self.t);
                v.get_outputs(&mut self.outw);
                unflatten(&self.outw)
            }
        }
    }
}

/// The ISA rounding field of a TestFloat mode.
fn rm_bits(rm: Round) -> Result<u64> {
    Ok(match rm {
        Round::NearEven => 0,
        Round::MinMag => 1,
        Round::Min => 2,
        Round::Max => 3,
        Round::NearMaxMag => bail!("near_maxMag is not a rounding mode of the ISA (RN RZ RM RP), so the RTL has none"),
    })
}

/// The function `smrtl testfloat --rtl` checks: operands to result.
pub type Compute = Box<dyn FnMut(&[u64]) -> (u64, Option<Flags>)>;

/// Build the RTL implementation of `op` in mode `rm` for preset `cfg`.
pub fn rtl_compute(cfg: &SmConfig, op: Op, rm: Round, verilator: bool) -> Result<Compute> {
    let g = SpGeom::of(cfg);
    let need = |want: Flavor| -> Result<()> {
        if g.flavor != want {
            bail!(
                "{op} is not in the RTL of preset `{}`: its SP lanes implement {} FP32 ({}); use a preset with mul_add = \"{}\" ({})",
                cfg.name,
                if g.flavor == Flavor::Tesla { "Tesla" } else { "IEEE" },
                if g.flavor == Flavor::Tesla { "FADD/FMUL/FMAD" } else { "FADD/FMUL/FFMA" },
                if want == Flavor::Tesla { "fmad" } else { "ffma" },
                if want == Flavor::Tesla { "tesla, gt200" } else { "fermi, gpucc" },
            );
        }
        Ok(())
    };
    let m = rm_bits(rm)?;
    let sp = |isa: Isa, m: u64, flavor: Flavor| -> Result<Compute> {
        let mut d = Driver::new(SpLane::new(flavor, g.lat), g.lat, verilator)?;
        let three = isa == Isa::Fmad || isa == Isa::Ffma;
        Ok(Box::new(move |v: &[u64]| {
            let i = SpLaneIn::<Concrete> {
                op_i: Bits::new(isa as u64),
                mod_i: Bits::new(m),
                a_i: Bits::new(v[0]),
                b_i: Bits::new(v[1]),
                c_i: Bits::new(if three { v[2] } else { 0 }),
                pa_i: Bits::new(0),
            };
            let o: SpLaneOut<Concrete> = d.run(&i);
            (o.res_o.to_u64(), None)
        }))
    };
    let dp = |isa: Isa| -> Result<Compute> {
        let lat = Dpu::of(cfg)
            .map_err(|e| anyhow::anyhow!("{op} needs FP64 hardware: {e}"))?
            .latency();
        let mut d = Driver::new(DpuLane::new(lat), lat, verilator)?;
        Ok(Box::new(move |v: &[u64]| {
            let i = DpuLaneIn::<Concrete> {
                op_i: Bits::new(isa as u64),
                mod_i: Bits::new(m),
                a_i: Bits::new(v[0]),
                b_i: Bits::new(v[1]),
                c_i: Bits::new(if isa == Isa::Dfma { v[2] } else { 0 }),
            };
            let o: DpuLaneOut<Concrete> = d.run(&i);
            (o.res_o.to_u64(), None)
        }))
    };
    match op {
        Op::F32Add | Op::F32Mul | Op::F32MulAdd => {
            need(Flavor::Ieee)?;
            let isa = [Isa::Fadd, Isa::Fmul, Isa::Ffma][[Op::F32Add, Op::F32Mul, Op::F32MulAdd]
                .iter()
                .position(|o| *o == op)
                .unwrap()];
            sp(isa, m, Flavor::Ieee)
        }
        Op::F32AddTesla | Op::F32MulTesla | Op::F32MadTesla => {
            need(Flavor::Tesla)?;
            let isa = match op {
                Op::F32AddTesla => Isa::Fadd,
                Op::F32MulTesla => Isa::Fmul,
                _ => Isa::Fmad,
            };
            sp(isa, m, Flavor::Tesla)
        }
        Op::F64Add => dp(Isa::Dadd),
        Op::F64Mul => dp(Isa::Dmul),
        Op::F64MulAdd => dp(Isa::Dfma),
        Op::SfuRcp | Op::SfuRsqrt | Op::SfuLg2 | Op::SfuEx2 | Op::SfuSin | Op::SfuCos => {
            let isa = match op {
                Op::SfuRcp => Isa::Rcp,
                Op::SfuRsqrt => Isa::Rsq,
                Op::SfuLg2 => Isa::Lg2,
                Op::SfuEx2 => Isa::Ex2,
                Op::SfuSin => Isa::Sin,
                _ => Isa::Cos,
            };
            let lat = cfg.sfu_latency as usize;
            let unit = SfuUnit::new(lat).map_err(|e| anyhow::anyhow!("preset `{}`: {e}", cfg.name))?;
            // The unit's depth is sfu_latency - 1 hot cycles.
            let mut d = Driver::new(unit, lat - 1, verilator)?;
            Ok(Box::new(move |v: &[u64]| {
                let i = SfuUnitIn::<Concrete> {
                    valid_i: Bits::new(1),
                    op_i: Bits::new(isa as u64 & 7),
                    x_i: Bits::new(v[0]),
                };
                let o: SfuUnitOut<Concrete> = d.run(&i);
                (o.res_o.to_u64(), None)
            }))
        }
    }
}
