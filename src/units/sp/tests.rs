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
