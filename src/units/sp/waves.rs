//! `smrtl sp-waves`: stream random mixed warp instructions through the SP
//! array of a preset with the checking testbench (`testbenches/sp_tb.rs`),
//! write the VCD and a GTKWave save file grouped per group, per lane (the
//! lane's pipeline stages) and per thread (its operand buffer, collector
//! and output registers). [`warp_unit_waves`] does the same for any unit
//! built on the SP engine (the FP64 unit: `units::dpu::waves`).

use crate::config::SmConfig;
use crate::hdl::{Block, Sim};
use crate::testbenches::sp_tb::{run_random, WarpUnit};
use crate::units::sp::{SpArray1, SpArray2, SpGeom};
use anyhow::{bail, Context, Result};
use rand::SeedableRng;
use std::fmt::Write as _;
use std::path::Path;

/// Write the per-lane `.gtkw` next to `vcd`.
fn write_gtkw(
    vcd: &Path,
    top: &str,
    grps: &[String],
    port: &[&str],
    lanes: usize,
    (lat, cuts): (usize, usize),
    dw: usize,
) -> Result<()> {
    let mut s = String::new();
    let _ = writeln!(s, "{}[timestart] 0", crate::hdl::gtkw::Gtkw::new(vcd).text());
    let sig = |s: &mut String, path: &str, w: usize| {
        if w == 1 {
            let _ = writeln!(s, "@28\n{path}");
        } else {
            let _ = writeln!(s, "@22\n{path}[{}:0]", w - 1);
        }
    };
    let group = |s: &mut String, name: &str| {
        let _ = writeln!(s, "@200\n-{name}");
    };
    group(&mut s, "clocks");
    for c in ["clk_core_i", "clk_hot_i", "rst_ni"] {
        sig(&mut s, &format!("{top}.{c}"), 1);
    }
    for (g, (grp, p)) in grps.iter().zip(port).enumerate() {
        group(&mut s, &format!("group {g} ports"));
        for (n, w) in [
            ("valid_i", 1),
            ("op_i", 7),
            ("mod_i", 4),
            ("tag_i", 32),
            ("ready_o", 1),
            ("res_valid_o", 1),
            ("res_tag_o", 32),
            ("err_o", 1),
            ("err_code_o", 8),
        ] {
            sig(&mut s, &format!("{top}.{p}_{n}"), w);
        }
        group(&mut s, &format!("group {g} sequencer"));
        for (n, w) in [
            ("ph_q", 1),
            ("ready_q", 1),
            ("busy_q", 8),
            ("pass_q", 6),
            ("rep_q", 3),
            ("buf_op_q", 7),
            ("buf_mod_q", 4),
            ("buf_tag_q", 32),
            ("pend_q", 1),
            ("out_valid_q", 1),
            ("out_tag_q", 32),
            ("out_err_q", 8),
        ] {
            sig(&mut s, &format!("{grp}.{n}"), w);
        }
        for j in 0..lanes {
            group(&mut s, &format!("group {g} lane {j}"));
            // The lane's internal cuts (opcode, error code, integer side),
            // then its output registers.
            // (the SP lane's integer side `ires`, the FP64 lane's
            // conversion side `dres`).
            let (side, sw) = if dw == 64 { ("dres", 64) } else { ("ires", 32) };
            for k in 1..=cuts {
                sig(&mut s, &format!("{grp}.u_lane{j}.s{k}_op_q"), 7);
                sig(&mut s, &format!("{grp}.u_lane{j}.s{k}_err_q"), 2);
                sig(&mut s, &format!("{grp}.u_lane{j}.s{k}_{side}_q"), sw);
            }
            for st in cuts..lat {
                sig(&mut s, &format!("{grp}.u_lane{j}.res_s{st}_q"), dw);
            }
            sig(&mut s, &format!("{grp}.u_lane{j}.pred_s{}_q", lat - 1), 1);
            sig(&mut s, &format!("{grp}.u_lane{j}.err_s{}_q", lat - 1), 2);
        }
        for t in 0..32 {
            group(&mut s, &format!("group {g} thread {t}"));
            for n in ["buf_a", "buf_b", "buf_c", "col_res", "out_res"] {
                sig(&mut s, &format!("{grp}.{n}{t}_q"), dw);
            }
            sig(&mut s, &format!("{grp}.buf_mask{t}_q"), 1);
        }
    }
    let out = crate::hdl::gtkw::save_path(vcd);
    std::fs::write(&out, s).with_context(|| format!("cannot write {}", out.display()))
}

/// Run the checking testbench on `u` for `core_cycles`, write the VCD and
/// its save file; `layout` = (group scopes under the top, port prefixes,
/// lanes per group, (lane latency, the lane's internal cuts), data width).
pub fn warp_unit_waves<U: WarpUnit>(
    u: U,
    core_cycles: u64,
    seed: u64,
    vcd: &Path,
    layout: (&[String], &[&str], usize, (usize, usize), usize),
) -> Result<String> {
    let mut sim = Sim::new(u)?;
    let top = sim.design().modules[sim.design().top].name.clone();
    sim.open_vcd(vcd)
        .with_context(|| format!("cannot write VCD {}", vcd.display()))?;
    let mut r = rand::rngs::SmallRng::seed_from_u64(seed);
    let res = run_random(&mut sim, &mut r, core_cycles, 0.8);
    sim.close_vcd()?;
    let (grps, ports, lanes, lat, dw) = layout;
    let grps: Vec<String> = grps.iter().map(|g| format!("{top}{g}")).collect();
    write_gtkw(vcd, &top, &grps, ports, lanes, lat, dw)?;
    let st = match res {
        Ok(s) => s,
        Err(e) => bail!("{top}: MISMATCH {e} (VCD {})", vcd.display()),
    };
    Ok(format!(
        "{top}: {} warp instructions checked (values, masks, tags, errors, result cycle), {} with an error code, {} hot cycles\nVCD {} with {}.gtkw (groups per lane and per thread): gtkwave {}.gtkw\n",
        st.warps,
        st.errors_flagged,
        st.hot_cycles,
        vcd.display(),
        vcd.display(),
        vcd.display()
    ))
}

/// Run the waves testbench on the SP array of `cfg`.
pub fn sp_waves(cfg: &SmConfig, core_cycles: u64, seed: u64, vcd: &Path) -> Result<String> {
    let g = SpGeom::of(cfg);
    // The lane's own count (the rule lives in `SpLane::new`).
    let cuts = super::lane::SpLane::new(g.flavor, g.lat).cuts();
    match g.groups {
        1 => {
            let b = SpArray1::new(g)?;
            let _ = b.module_name();
            warp_unit_waves(
                b,
                core_cycles,
                seed,
                vcd,
                (&[".u_grp0".into()], &["sp0"], g.lanes, (g.lat, cuts), 32),
            )
        }
        _ => warp_unit_waves(
            SpArray2::new(g)?,
            core_cycles,
            seed,
            vcd,
            (
                &[".u_grp0".into(), ".u_grp1".into()],
                &["sp0", "sp1"],
                g.lanes,
                (g.lat, cuts),
                32,
            ),
        ),
    }
}
