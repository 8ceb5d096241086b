use super::*;
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};

fn lsu() -> Sim<Lsu<32>> {
    Sim::new(Lsu::<32>::new(16, true, 8, 32).unwrap()).unwrap()
}

#[test]
fn elaborates_every_preset() {
    for p in ["tesla", "gt200", "fermi"] {
        let cfg = crate::config::SmConfig::preset(p).unwrap();
        with_lsu(&cfg, &mut crate::blocks::Emit).unwrap();
    }
}

#[test]
fn bad_geometry_is_an_error() {
    assert!(Lsu::<32>::new(8, true, 1, 32).is_err());
    assert!(Lsu::<32>::new(16, true, 0, 32).is_err());
    assert!(Lsu::<32>::new(16, true, 65, 32).is_err());
    assert!(Lsu::<32>::new(16, true, 8, 0).is_err());
    assert!(Lsu::<32>::new(16, true, 8, 257).is_err());
    assert!(Lsu::<32>::new(16, true, 64, 256).is_ok());
    let fermi = crate::config::SmConfig::preset("fermi").unwrap();
    assert!(Lsu::<32>::of(&fermi).is_err());
}

/// A non-LSU op answers in the next cycle with error 1; LDC past the
/// parameters with error 13 naming the lane and index.
#[test]
fn errors_answer_in_one_cycle() {
    let mut s = lsu();
    let mut i: LsuIn<Concrete, 32> = zero_ports();
    // The write-back takes every result.
    i.lsu_res_ready_i = Bits::new(1);
    // Two parameter words.
    for w in 0..2 {
        i.param_we_i = Bits::new(1);
        i.param_addr_i = Bits::new(w);
        i.param_data_i = Bits::new(100 + w);
        s.step_core(&i);
    }
    i.param_we_i = Bits::new(0);
    i.lsu_valid_i = Bits::new(1);
    i.lsu_op_i = Bits::new(0x10);
    i.lsu_tag_i = Bits::new(0x1234_0005);
    assert_eq!(s.step_core(&i).lsu_ready_o.to_u64(), 1);
    i.lsu_valid_i = Bits::new(0);
    let o = s.step_core(&i);
    assert_eq!(
        (o.lsu_res_valid_o.to_u64(), o.err_code_o.to_u64(), o.err_warp_o.to_u64()),
        (1, ERR_OP, 5)
    );
    // LDC, offset 1: lanes 0..3 index 1, 2^32 (33-bit, no wrap: out of
    // range), 1, 2 (out of range). The lowest bad lane is reported.
    i.lsu_valid_i = Bits::new(1);
    i.lsu_op_i = Bits::new(OP_LDC);
    i.lsu_off_i = Bits::new(1);
    for (l, a) in [0u64, u32::MAX as u64, 0, 1].into_iter().enumerate() {
        i.lsu_mask_i[l] = Bits::new(1);
        i.lsu_a_i[l] = Bits::new(a);
    }
    assert_eq!(s.step_core(&i).lsu_ready_o.to_u64(), 1);
    i.lsu_valid_i = Bits::new(0);
    let o = s.step_core(&i);
    assert_eq!(
        (o.lsu_res_valid_o.to_u64(), o.err_code_o.to_u64(), o.err_lane_o.to_u64()),
        (1, ERR_PARAM, 1)
    );
    // Lanes 0 and 2 only: one distinct word, result in cycle D + 2 = 3.
    i.lsu_mask_i[1] = Bits::new(0);
    i.lsu_mask_i[3] = Bits::new(0);
    i.lsu_valid_i = Bits::new(1);
    s.step_core(&i);
    i.lsu_valid_i = Bits::new(0);
    let mut at = 0;
    for c in 1..10 {
        let o = s.step_core(&i);
        if o.lsu_res_valid_o.to_u64() == 1 {
            at = c;
            assert_eq!(o.lsu_res_err_o.to_u64(), 0);
            let d: Vec<u64> = (0..3).map(|l| o.lsu_res_data_o[l].to_u64()).collect();
            assert_eq!(d[0], 101);
            assert_eq!(d[2], 101);
        }
    }
    assert_eq!(at, 3);
}
