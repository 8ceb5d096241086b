//! The lane's combinational datapath (concrete backend) against the
//! reference (`testbenches/sp_ref.rs` over `golden::arith`): 100,000
//! random + edge-class operand sets per op and rounding mode (or multiply
//! mode), and the error outputs.

use super::lane::Flavor;
use crate::golden::isa::Op;
use crate::testbenches::sp_ref::{mod_groups, sp_sweep, RefOut};

use super::lane::lane_fn;

fn sweep_all(flavor: Flavor, n: u64) {
    let lane = lane_fn(flavor);
    for &op in Op::ALL.iter().filter(|o| flavor.implements(**o)) {
        for (gi, mods) in mod_groups(op).iter().enumerate() {
            let seed = (op as u64) << 8 | gi as u64;
            if let Err(e) = sp_sweep(flavor, op, mods, n, seed, &lane) {
                panic!("{e}");
            }
        }
    }
}

#[test]
fn tesla_lane_matches_reference_100k_per_op_and_mode() {
    sweep_all(Flavor::Tesla, 100_000);
}

#[test]
fn ieee_lane_matches_reference_100k_per_op_and_mode() {
    sweep_all(Flavor::Ieee, 100_000);
}

#[test]
fn errors_for_unimplemented_ops_and_fmad_rounding() {
    let t = lane_fn(Flavor::Tesla);
    let f = lane_fn(Flavor::Ieee);
    let one = 0x3f80_0000;
    // FFMA is not on the Tesla lane, FMAD not on the IEEE lane: code 1.
    assert_eq!(t(Op::Ffma as u8, 0, one, one, one, false).err, 1);
    assert_eq!(f(Op::Fmad as u8, 0, one, one, one, false).err, 1);
    // FMAD.RZ (mod bits 1..0 = 1): code 2, result 0.
    let r = t(Op::Fmad as u8, 1, one, one, one, false);
    assert_eq!((r.err, r.res), (2, 0));
    // Not SP ops (an SFU op, an FP64 op, an undefined opcode): code 1.
    for op in [Op::Rcp as u8, Op::Dadd as u8, Op::Ldg as u8, 0x7f] {
        assert_eq!(t(op, 0, 1, 2, 3, false).err, 1, "op {op:#x}");
        assert_eq!(f(op, 0, 1, 2, 3, false).err, 1, "op {op:#x}");
    }
    // Bad modifiers: IMUL mode 5, ISETP compare 6, IADD with a modifier.
    assert_eq!(t(Op::Imul as u8, 5, 1, 2, 3, false).err, 1);
    assert_eq!(t(Op::Isetp as u8, 6, 1, 2, 3, false).err, 1);
    assert_eq!(f(Op::Iadd as u8, 1, 1, 2, 3, false).err, 1);
    // A valid op has no error.
    assert_eq!(
        t(Op::Iadd as u8, 0, 1, 2, 3, false),
        RefOut {
            res: 3,
            pred: false,
            err: 0
        }
    );
}

#[test]
fn integer_ops_exhaustive_on_a_16_bit_window() {
    let lane = lane_fn(Flavor::Ieee);
    for op in [Op::Iadd, Op::Imul, Op::Shr, Op::Isetp] {
        for m in crate::testbenches::sp_ref::mod_groups(op).concat().into_iter().take(2) {
            // Two windows per op here; the ignored test runs every window.
            let got = crate::testbenches::sp_ref::int_windows(Flavor::Ieee, op, m, 2, &lane);
            assert!(got.is_ok(), "{}", got.unwrap_err());
        }
    }
}

/// The gpucc SP array with lane ports.
fn gpucc_lanes() -> crate::hdl::Sim<super::SpArray2Ln16> {
    let cfg = crate::config::SmConfig::preset("gpucc").unwrap();
    assert!(super::lane_ports(&cfg));
    crate::hdl::Sim::new(super::SpArray2Ln16::new(super::SpGeom::of(&cfg)).unwrap()).unwrap()
}

#[test]
fn gpucc_lane_ports_every_lane_a_different_op_each_hot_cycle() {
    use crate::testbenches::sp_tb::{lane_menu, run_lanes};
    use rand::SeedableRng;
    let mut sim = gpucc_lanes();
    let mut r = rand::rngs::SmallRng::seed_from_u64(36);
    let s = run_lanes(&mut sim, &mut r, 12, 400, 60).unwrap_or_else(|e| panic!("{e}"));
    // Every op of the menu (the IEEE lane's ops and the erring ones) ran
    // on the lanes, errors and true predicates among them.
    for (op, _) in lane_menu(Flavor::Ieee) {
        assert!(s.per_op[op as usize] > 20, "op {op:#x}: {s:?}");
    }
    assert!(
        s.lane_ops > 30_000 && s.errors_flagged > 1000 && s.preds_true > 100,
        "{s:?}"
    );
    assert!(s.warps > 500 && s.switches == 12, "{s:?}");
}

#[test]
fn gpucc_lane_ports_short_phases_switch_often() {
    // Lane phases of 1..=12 hot cycles (shorter than the lanes' depth, so
    // operations are in flight while the mode drops) between short warp
    // phases.
    use crate::testbenches::sp_tb::run_lanes;
    use rand::SeedableRng;
    let mut sim = gpucc_lanes();
    let mut r = rand::rngs::SmallRng::seed_from_u64(5);
    let s = run_lanes(&mut sim, &mut r, 200, 12, 6).unwrap_or_else(|e| panic!("{e}"));
    assert!(s.switches == 200 && s.lane_ops > 10_000 && s.warps > 200, "{s:?}");
}

#[test]
fn lane_ports_only_when_asked_for() {
    use crate::hdl::Block;
    let g = |n: &str| super::SpGeom::of(&crate::config::SmConfig::preset(n).unwrap());
    // Names and widths of the top's ports.
    let ports = |d: &crate::hdl::Design| -> Vec<(String, usize)> {
        let m = &d.modules[d.top];
        m.inputs
            .iter()
            .chain(&m.outputs)
            .map(|p| (p.name.clone(), p.bits()))
            .collect()
    };
    let plain = crate::hdl::elaborate(&super::SpArray2::new(g("gpucc")).unwrap()).unwrap();
    assert!(!ports(&plain).iter().any(|(n, _)| n.contains("ln")));
    let grp = super::SpGroup::<1, 16>::with_lanes(g("gpucc")).unwrap();
    assert_eq!(grp.module_name(), "sp_group_ieee_l16_lat8_m2_ln");
    let d = crate::hdl::elaborate(&grp).unwrap();
    let p = ports(&d);
    for (name, w) in [
        ("ln_mode_i", 1),
        ("ln0_valid_i", 1),
        ("ln0_op_i", 7),
        ("ln0_mod_i", 4),
        ("ln15_a_i", 32),
        ("ln15_b_i", 32),
        ("ln15_c_i", 32),
        ("ln15_pa_i", 1),
        ("ln0_valid_o", 1),
        ("ln7_res_o", 32),
        ("ln7_pred_o", 1),
        ("ln15_err_o", 1),
        ("ln15_err_code_o", 8),
        ("ready_o", 1),
        ("res_valid_o", 1),
    ] {
        assert!(p.contains(&(name.to_string(), w)), "{name}[{w}] missing: {p:?}");
    }
    assert!(!p.iter().any(|(n, _)| n.starts_with("ln16")));
    let arr = crate::hdl::elaborate(&super::SpArray2Ln16::new(g("gpucc")).unwrap()).unwrap();
    let p = ports(&arr);
    for name in [
        "sp0_ln_mode_i",
        "sp1_ln_mode_i",
        "ln31_valid_i",
        "ln31_err_code_o",
        "sp1_ready_o",
    ] {
        assert!(p.iter().any(|(n, _)| n == name), "{name} missing");
    }
    // Sizes that are not the geometry's are refused.
    assert!(super::SpGroup::<1, 8>::with_lanes(g("gpucc")).is_err());
    assert!(super::SpArray::<2, 1, 16, 2, 16>::new(g("gpucc")).is_err());
    assert!(super::SpArray::<1, 1, 8, 1, 8>::new(g("gt200")).is_ok());
}
