//! `smrtl sp-waves --dpu`: random mixed FP64 warp instructions through the
//! preset's FP64 unit with the checking testbench (`testbenches/sp_tb.rs`),
//! the VCD and a GTKWave save file grouped per lane and per thread, as for
//! the SP array ([`crate::units::sp::waves::warp_unit_waves`]).

use super::Dpu;
use crate::config::SmConfig;
use crate::units::sp::waves::warp_unit_waves;
use anyhow::Result;
use std::path::Path;

/// Run the waves testbench on the FP64 unit of `cfg` (an error on a preset
/// without FP64).
pub fn dpu_waves(cfg: &SmConfig, core_cycles: u64, seed: u64, vcd: &Path) -> Result<String> {
    let d = Dpu::of(cfg)?;
    let (lanes, lat) = (d.lanes(), d.latency());
    let cuts = d.lane_cuts();
    warp_unit_waves(
        d,
        core_cycles,
        seed,
        vcd,
        (&[String::new()], &["dpu"], lanes, (lat, cuts), 64),
    )
}
