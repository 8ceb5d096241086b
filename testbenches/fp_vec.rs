//! Random and edge-class FP operands for the datapath checks (SP lanes,
//! FP64 unit, SFU FMUL): every operand is drawn from one of the classes
//! zero, subnormal, smallest/largest normal, near one, random normal,
//! exponent at the extremes, infinity, quiet/signalling NaN, or a copy of
//! another operand with a nearby exponent (so sums cancel and products
//! land near the overflow / underflow thresholds).

use rand::Rng;

/// Exponent and fraction widths of a format.
#[derive(Debug, Clone, Copy)]
pub struct Fmt {
    pub e: u32,
    pub f: u32,
}

/// FP32.
pub const F32: Fmt = Fmt { e: 8, f: 23 };
/// FP64.
pub const F64: Fmt = Fmt { e: 11, f: 52 };

impl Fmt {
    fn pack(self, s: u64, e: u64, f: u64) -> u64 {
        s << (self.e + self.f) | (e & ((1 << self.e) - 1)) << self.f | (f & ((1 << self.f) - 1))
    }
    fn emax(self) -> u64 {
        (1 << self.e) - 1
    }
}

/// One operand of format `fm`; `rel` is another operand of the same set
/// (used by the "nearby" class).
pub fn operand<R: Rng>(r: &mut R, fm: Fmt, rel: u64) -> u64 {
    let s = r.gen::<u64>() & 1;
    let f = r.gen::<u64>();
    let bias = fm.emax() / 2;
    match r.gen_range(0..32) {
        0 => fm.pack(s, 0, 0),
        1 | 2 => fm.pack(s, 0, f),
        3 => fm.pack(s, 0, (1 << fm.f) - 1),
        4 => fm.pack(s, 1, f & 3),
        5 => fm.pack(s, fm.emax() - 1, (1 << fm.f) - 1 - (f & 3)),
        6 => fm.pack(s, fm.emax(), 0),
        7 => fm.pack(s, fm.emax(), f | 1),
        8 => fm.pack(s, fm.emax(), (1 << (fm.f - 1)) | f),
        9..=11 => fm.pack(
            s,
            bias + (r.gen::<u64>() % 5) - 2,
            f & (r.gen::<u64>() | 0xffff_ffff_fff0_0000),
        ),
        12..=13 => fm.pack(s, 1 + r.gen::<u64>() % 48, f),
        14..=15 => fm.pack(s, fm.emax() - 1 - r.gen::<u64>() % 48, f),
        16..=19 => {
            // Near `rel`: same or adjacent exponent, maybe the other sign,
            // fraction close to rel's.
            let re = (rel >> fm.f) & fm.emax();
            let e = (re + r.gen::<u64>() % 3).saturating_sub(1).min(fm.emax() - 1);
            let rf = rel & ((1 << fm.f) - 1);
            let df = r.gen::<u64>() % 8;
            fm.pack(
                s,
                e,
                if r.gen() {
                    rf.wrapping_add(df)
                } else {
                    rf.wrapping_sub(df)
                },
            )
        }
        20..=21 => {
            // Product thresholds: exponent near half of the extremes.
            let e = if r.gen() { bias / 2 + 64 } else { bias / 2 };
            fm.pack(s, e + r.gen::<u64>() % 16 - 8, f)
        }
        _ => fm.pack(s, 1 + r.gen::<u64>() % (fm.emax() - 1), f),
    }
}

/// `n` operands of format `fm` (the first random, each next may relate to
/// the one before).
pub fn operands<R: Rng, const N: usize>(r: &mut R, fm: Fmt) -> [u64; N] {
    let mut v = [0u64; N];
    let mut prev = r.gen::<u64>();
    for x in v.iter_mut() {
        *x = operand(r, fm, prev);
        prev = *x;
    }
    // For multiply-add: sometimes make c close to -(a*b) by taking c near a
    // with b near one (cancellation in the fused sum).
    if N == 3 && r.gen_range(0..8) == 0 {
        let bias = fm.emax() / 2;
        v[1] = fm.pack(0, bias, r.gen::<u64>() & 0xff);
        v[2] = operand(r, fm, v[0] ^ (1 << (fm.e + fm.f)));
    }
    v
}

/// A random 32-bit integer operand: small, near the extremes, or any.
pub fn int_operand<R: Rng>(r: &mut R) -> u32 {
    match r.gen_range(0..8) {
        0 => r.gen::<u32>() % 40,
        1 => 0u32.wrapping_sub(r.gen::<u32>() % 40),
        2 => 0x8000_0000u32.wrapping_add(r.gen::<u32>() % 40).wrapping_sub(20),
        3 => r.gen::<u32>() & 0xff_ffff,
        4 => (r.gen::<u32>() & 0xff_ffff) | 0x80_0000,
        _ => r.gen(),
    }
}
