//! Drivers for the front-end blocks: apply stimulus to the RTL blocks and
//! compare with the reference models of [`super::fe_ref`], every output,
//! every core cycle.

use super::fe_ref::{plausible_word, ref_decode, Dec};
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use crate::units::decode::{Decode, DecodeIn, DecodeOut};

/// The decode block's outputs as a [`Dec`].
pub fn dec_from_out(o: &DecodeOut<Concrete>) -> Dec {
    let u = |b: u64| b as u8;
    Dec {
        err: o.err_o.to_u64() == 1,
        unit: u(o.unit_o.to_u64()),
        op: u(o.op_o.to_u64()),
        m: u(o.mod_o.to_u64()),
        gpred: u(o.gpred_o.to_u64()),
        gneg: o.gneg_o.to_u64() == 1,
        ra: u(o.ra_o.to_u64()),
        rb: u(o.rb_o.to_u64()),
        rc: u(o.rc_o.to_u64()),
        pair: u(o.pair_o.to_u64()),
        kind: u(o.kind_o.to_u64()),
        dst: u(o.dst_o.to_u64()),
        use_imm: o.use_imm_o.to_u64() == 1,
        imm: o.imm_o.to_u64() as u32,
        prd: u(o.prd_o.to_u64()),
        fmul: o.fmul_o.to_u64() == 1,
    }
}

/// Decode `w` in the RTL and the reference; an error names the word and
/// both results. A word the reference rejects only needs `err` to agree.
pub fn check_decode(sim: &mut Sim<Decode>, w: u64, fp64_ok: bool) -> Result<bool, String> {
    let mut i: DecodeIn<Concrete> = zero_ports();
    i.word_i = Bits::new(w);
    let got = dec_from_out(&sim.step_core(&i));
    let want = ref_decode(w, fp64_ok);
    let same = if want.err { got.err } else { got == want };
    if same {
        Ok(want.err)
    } else {
        Err(format!("decode of 0x{w:016x}: rtl {got:?}, reference {want:?}"))
    }
}

/// `n` random words through the decoder; returns (words, rejected).
pub fn decode_random(seed: u64, n: u64, fp64_ok: bool) -> Result<(u64, u64), String> {
    let mut sim = Sim::new(Decode::new(fp64_ok)).map_err(|e| e.to_string())?;
    let mut rejected = 0;
    for k in 0..n {
        let r = super::fe_ref::mix(seed ^ k.wrapping_mul(0x51_7cc1_b727_220a));
        let w = plausible_word(r, super::fe_ref::mix(r ^ 0x1234));
        rejected += check_decode(&mut sim, w, fp64_ok)? as u64;
    }
    Ok((n, rejected))
}
