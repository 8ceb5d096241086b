//! `smrtl sfu-waves`: random warp instructions (transcendentals, PRESIN,
//! PREEX2 and, on `sfu_fmul` presets, FMUL) through the SFU block of a
//! preset with the checking testbench (`testbenches/sfu_tb.rs`); writes
//! the VCD and a GTKWave save file grouped by dispatch, stream control,
//! each unit (operand buffer, interpolator stages, its FMUL multipliers,
//! result buffer) and each thread's result lane.

use super::Sfu;
use crate::config::SmConfig;
use crate::hdl::{Block, Sim};
use crate::testbenches::sfu_tb::run_random;
use anyhow::{bail, Context, Result};
use rand::SeedableRng;
use std::fmt::Write as _;
use std::path::Path;

/// Write the grouped `.gtkw` of an SFU VCD next to `vcd`.
pub fn write_gtkw(vcd: &Path, top: &str, blk: &Sfu) -> Result<()> {
    let mut s = String::new();
    let _ = writeln!(s, "{}[timestart] 0", crate::hdl::gtkw::Gtkw::new(vcd).text());
    let sig = |s: &mut String, path: &str, w: usize| {
        if w == 1 {
            let _ = writeln!(s, "@28\n{top}.{path}");
        } else {
            let _ = writeln!(s, "@22\n{top}.{path}[{}:0]", w - 1);
        }
    };
    let group = |s: &mut String, name: &str| {
        let _ = writeln!(s, "@200\n-{name}");
    };
    group(&mut s, "clocks");
    for c in ["clk_core_i", "clk_hot_i", "rst_ni"] {
        sig(&mut s, c, 1);
    }
    group(&mut s, "dispatch (core)");
    for (n, w) in [
        ("sfu_valid_i", 1),
        ("sfu_ready_o", 1),
        ("sfu_op_i", 7),
        ("sfu_mod_i", 4),
        ("sfu_tag_i", 32),
    ] {
        sig(&mut s, n, w);
    }
    group(&mut s, "result (core)");
    for (n, w) in [
        ("sfu_res_valid_o", 1),
        ("sfu_res_tag_o", 32),
        ("sfu_err_o", 1),
        ("sfu_err_code_o", 8),
    ] {
        sig(&mut s, n, w);
    }
    group(&mut s, "stream control (hot)");
    let mut ctl = vec![
        ("ph_q", 1),
        ("ready_q", 1),
        ("busy_q", 1),
        ("cnt_q", 5),
        ("func_q", 3),
        ("bad_q", 1),
        ("tag_q", 32),
        ("tag2_q", 32),
        ("rcnt_q", 5),
        ("out_valid_q", 1),
        ("out_tag_q", 32),
    ];
    if blk.fmul() {
        ctl.extend([("is_mul_q", 1), ("fmod_q", 4)]);
    }
    for (n, w) in ctl {
        sig(&mut s, n, w);
    }
    for u in 0..blk.units {
        group(&mut s, &format!("unit {u} operand buffer (slot j: thread order[j])"));
        for j in 0..blk.stream() {
            sig(&mut s, &format!("opnd{u}_{j}_q"), 32);
        }
        if blk.fmul() {
            for j in 0..blk.stream() {
                sig(&mut s, &format!("opndb{u}_{j}_q"), 32);
            }
        }
        group(&mut s, &format!("unit {u} interpolator"));
        let p = format!("u_unit{u}");
        for (n, w) in [
            ("va_q", 1),
            ("tsel_a_q", 3),
            ("xlo_a_q", 17),
            ("rom_rdata0_q", 59),
            ("vb_q", 1),
            ("acc_b_q", 40),
            ("vc_q", 1),
            ("res_c_q", 32),
        ] {
            sig(&mut s, &format!("{p}.{n}"), w);
        }
        if blk.fmul() {
            for k in 0..blk.mpu {
                group(&mut s, &format!("unit {u} multiplier {k}"));
                let p = format!("u_mul{u}_{k}");
                for (n, w) in [
                    ("va_q", 1),
                    ("mod_a_q", 4),
                    ("a_a_q", 32),
                    ("b_a_q", 32),
                    ("vb_q", 1),
                    ("res_b_q", 32),
                    ("res_c_q", 32),
                ] {
                    sig(&mut s, &format!("{p}.{n}"), w);
                }
            }
        }
        group(&mut s, &format!("unit {u} result buffer"));
        for j in 0..blk.stream() {
            sig(&mut s, &format!("rsh{u}_{j}_q"), 32);
        }
    }
    for t in 0..super::LANES {
        group(&mut s, &format!("thread {t}"));
        sig(&mut s, &format!("mask{t}_q"), 1);
        sig(&mut s, &format!("out_mask{t}_q"), 1);
        sig(&mut s, &format!("out_data{t}_q"), 32);
    }
    let out = crate::hdl::gtkw::save_path(vcd);
    std::fs::write(&out, s).with_context(|| format!("cannot write {}", out.display()))
}

/// Run `warps` random warp instructions through the SFU of `cfg` with the
/// checking testbench, writing `vcd` and its `.gtkw`.
pub fn sfu_waves(cfg: &SmConfig, warps: u64, seed: u64, vcd: &Path) -> Result<String> {
    let blk = Sfu::from_config(cfg).map_err(|e| anyhow::anyhow!("config `{}`: {e}", cfg.name))?;
    let mut sim = Sim::new(blk.clone())?;
    let top = blk.module_name();
    sim.open_vcd(vcd)
        .with_context(|| format!("cannot write VCD {}", vcd.display()))?;
    let mut r = rand::rngs::SmallRng::seed_from_u64(seed);
    let res = run_random(&mut sim, warps, 0.8, &mut r);
    sim.close_vcd()?;
    write_gtkw(vcd, &top, &blk)?;
    let st = match res {
        Ok(s) => s,
        Err(e) => bail!("{top}: MISMATCH {e} (VCD {})", vcd.display()),
    };
    Ok(format!(
        "{top}: {} warp instructions checked ({} FMUL), {} hot cycles\nVCD {} with {}.gtkw: gtkwave {}.gtkw\n",
        st.warps,
        st.fmul_warps,
        st.hot_cycles,
        vcd.display(),
        vcd.display(),
        vcd.display()
    ))
}
