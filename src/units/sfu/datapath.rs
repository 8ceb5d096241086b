//! The SFU datapath as three combinational stages, generic over the signal
//! backend: [`pre`] (operand decode, special cases, the PRESIN/PREEX2
//! range reductions, table row and `X_lo`), [`interp`] (squarer, the two
//! multipliers and the 3-input adder of `C0 + C1*X_lo + C2*X_lo^2`, on the
//! ROM word of the row) and [`pack`] (leading-one normalisation, rounding,
//! exponent, flush/overflow, and the bypass of special results).
//!
//! The clocked unit ([`super::SfuUnit`]) puts a register between the
//! stages (the ROM read is the register between `pre` and `interp`);
//! [`eval_comb`] chains them with the ROM contents in a Rust array, so the
//! exhaustive check runs the very same stage functions on the concrete
//! backend.
//!
//! Function codes (`f`, 3 bits) are the low bits of the ISA opcodes
//! 0x30..0x37: 0 RCP, 1 RSQ, 2 LG2, 3 EX2, 4 SIN, 5 COS, 6 PRESIN, 7 PREEX2.
//!
//! Widths: every table shares one format (checked by [`check_tables`]):
//! accumulator fraction bits F = 28, `X_lo` of 16 bits (17 for RSQRT),
//! squarer output 17 bits, C0 <= 29 bits unsigned, C1 18 and C2 12 bits
//! two's complement, 128 rows; the ROM word is `{C2, C1, C0}` = 59 bits and
//! its address `{table, row}` = 3 + 7 bits.

use crate::golden::arith::sfu::{self as gsfu, Table};
use crate::hdl::{Backend, Bits, Concrete, Sig};

/// Accumulator fraction bits.
pub const F: u32 = 28;
/// ROM word: C0 in bits 28..0, C1 in 46..29, C2 in 58..47.
pub const ROM_W: usize = 59;
/// ROM address: table (3 bits) and row (7 bits).
pub const ROM_A: usize = 10;
/// The tables in ROM order (the `tsel` field of the address).
pub const TABLES: [&Table; 5] = [&gsfu::RCP, &gsfu::RSQRT, &gsfu::LG2, &gsfu::EX2, &gsfu::SIN];

const NAN: u64 = 0x7fff_ffff;
const INF: u64 = 0x7f80_0000;

/// Why the checked-in tables do not fit this datapath.
pub fn check_tables() -> Result<(), String> {
    for (k, t) in TABLES.iter().enumerate() {
        let n_ok = if k == 1 { t.n == 17 } else { t.n == 16 };
        if t.f != F || t.sq != 17 || !n_ok || t.w0 > 29 || t.w1 > 18 || t.w2 > 12 || t.rows() != 128 {
            return Err(format!(
                "SFU table {}: format (f {}, sq {}, n {}, widths {}/{}/{}, {} rows) is not the datapath's \
                 (f 28, sq 17, n 16 or 17 for rsqrt, widths <= 29/18/12, 128 rows)",
                t.name,
                t.f,
                t.sq,
                t.n,
                t.w0,
                t.w1,
                t.w2,
                t.rows()
            ));
        }
    }
    Ok(())
}

/// The ROM contents, `2^ROM_A` words.
pub fn rom_words() -> Vec<u64> {
    let mut v = vec![0u64; 1 << ROM_A];
    for (k, t) in TABLES.iter().enumerate() {
        for r in 0..t.rows() {
            let c0 = t.c0[r] as u64 & ((1 << 29) - 1);
            let c1 = t.c1[r] as u64 & ((1 << 18) - 1);
            let c2 = t.c2[r] as u64 & ((1 << 12) - 1);
            v[(k << 7) | r] = c0 | c1 << 29 | c2 << 47;
        }
    }
    v
}

/// Output of [`pre`]: what the interpolator and the packer need.
pub struct Pre<B: Backend> {
    /// The result is `val` (special case or range reduction), no table.
    pub byp: B::S<1>,
    pub val: B::S<32>,
    /// ROM address `{tsel, row}`.
    pub addr: B::S<10>,
    pub xlo: B::S<17>,
    pub tsel: B::S<3>,
    /// Sign of the result before the accumulator's own sign.
    pub neg: B::S<1>,
    /// Biased exponent of the result minus the leading-one position
    /// (two's complement).
    pub off: B::S<10>,
    /// LG2: the input's unbiased exponent, added as the integer part.
    pub lg2e: B::S<8>,
}

impl<B: Backend> Clone for Pre<B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Backend> Copy for Pre<B> {}

/// A `W`-bit constant of backend `B`.
#[inline(always)]
fn lit<B: Backend, const W: usize>(v: u64) -> B::S<W> {
    B::lit(Bits::<W>::new(v))
}

/// `v[f]` for a 3-bit select.
fn pick<B: Backend, const W: usize>(f: B::S<3>, v: [B::S<W>; 8]) -> B::S<W> {
    let b0 = f.slice::<0, 1>();
    let b1 = f.slice::<1, 1>();
    let b2 = f.slice::<2, 1>();
    let l0 = [
        b0.mux(v[1], v[0]),
        b0.mux(v[3], v[2]),
        b0.mux(v[5], v[4]),
        b0.mux(v[7], v[6]),
    ];
    let l1 = [b1.mux(l0[1], l0[0]), b1.mux(l0[3], l0[2])];
    b2.mux(l1[1], l1[0])
}

/// What several functions of [`pre`] share: the fields of `x` and the
/// special-case codes.
struct Common<B: Backend> {
    sign: B::S<1>,
    e: B::S<8>,
    frac: B::S<23>,
    e0: B::S<1>,
    eff: B::S<1>,
    nan: B::S<1>,
    signw: B::S<32>,
    sinf: B::S<32>,
    z1: B::S<1>,
    o1: B::S<1>,
    c99: B::S<10>,
    /// RCP, LG2 and the pre-steps (m = 7): row frac[22:16], X_lo frac[15:0].
    row7: B::S<7>,
    xlo16: B::S<17>,
    /// RSQ and LG2 bypass: zero, infinity, NaN or negative.
    rsq_byp: B::S<1>,
    /// EX2/SIN/COS of a pre-step's special code (bit 30).
    special: B::S<1>,
    /// SIN/COS row, X_lo, result sign and bypass.
    sin: Option<(B::S<7>, B::S<17>, B::S<1>, B::S<1>)>,
}

/// One function's share of [`pre`]: bypass, value, row, `X_lo`, sign,
/// exponent offset.
struct Branch<B: Backend> {
    byp: B::S<1>,
    val: B::S<32>,
    row: B::S<7>,
    xlo: B::S<17>,
    neg: B::S<1>,
    off: B::S<10>,
}

impl<B: Backend> Clone for Branch<B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<B: Backend> Copy for Branch<B> {}

/// The SIN/COS decode of a PRESIN value (shared by codes 4 and 5).
fn sin_fields<B: Backend>(
    f: B::S<3>,
    x: B::S<32>,
    sign: B::S<1>,
    special: B::S<1>,
) -> (B::S<7>, B::S<17>, B::S<1>, B::S<1>) {
    let z1 = lit::<B, 1>(0);
    let a = x.slice::<0, 25>();
    let is_cos = f.slice::<0, 1>(); // 4 sin, 5 cos
    let a = is_cos.mux(a + lit::<B, _>(1 << 23), a);
    let q0 = a.slice::<23, 1>();
    let q1 = a.slice::<24, 1>();
    let r = a.slice::<0, 23>();
    let r = q0.mux(!r, r);
    let zero_angle = !q0 & !a.slice::<0, 23>().any();
    let sin_byp = special | zero_angle;
    let sin_neg = is_cos.mux(z1, sign) ^ q1;
    (r.slice::<16, 7>(), r.slice::<0, 16>().zext(), sin_neg, sin_byp)
}

/// Function `k`'s share of [`pre`] (the values the 8-way picks select
/// when `f = k`).
fn branch<B: Backend>(k: u64, c: &Common<B>, x: B::S<32>) -> Branch<B> {
    let z32 = lit::<B, 32>(0);
    let nanv = lit::<B, 32>(NAN);
    let infv = lit::<B, 32>(INF);
    let (sign, e, frac, e0, eff, nan, signw) = (c.sign, c.e, c.frac, c.e0, c.eff, c.nan, c.signw);
    let e10: B::S<10> = e.zext();
    let std = |byp, val, neg, off| Branch {
        byp,
        val,
        row: c.row7,
        xlo: c.xlo16,
        neg,
        off,
    };
    match k {
        0 => {
            // RCP.
            let rcp_val = nan.mux(nanv, eff.mux(signw, c.sinf));
            std(eff | e0, rcp_val, sign, lit::<B, 10>(226) - e10)
        }
        1 => {
            // RSQ: e - 127 = 2k + p.
            let rsq_val = nan.mux(nanv, e0.mux(c.sinf, sign.mux(nanv, z32)));
            let ue = e10 - lit::<B, _>(127);
            let kk = ue.sar(lit::<B, 1>(1));
            let par = !e.slice::<0, 1>();
            Branch {
                byp: c.rsq_byp,
                val: rsq_val,
                row: par.concat::<6, 7>(frac.slice::<17, 6>()),
                xlo: frac.slice::<0, 17>(),
                neg: c.z1,
                off: c.c99 - kk,
            }
        }
        2 => {
            // LG2.
            let ninf = lit::<B, 32>(0xff80_0000);
            let lg2_val = nan.mux(nanv, e0.mux(ninf, sign.mux(nanv, infv)));
            std(c.rsq_byp, lg2_val, c.z1, c.c99)
        }
        3 => {
            // EX2 of a PREEX2 value.
            let ex2_val = x.slice::<23, 1>().mux(sign.mux(z32, infv), nanv);
            let mag: B::S<32> = x.slice::<0, 30>().zext();
            let fx = sign.mux(z32 - mag, mag);
            let nfx: B::S<10> = fx.slice::<23, 9>().sext();
            Branch {
                byp: c.special,
                val: ex2_val,
                row: fx.slice::<16, 7>(),
                xlo: fx.slice::<0, 16>().zext(),
                neg: c.z1,
                off: c.c99 + nfx,
            }
        }
        4 | 5 => {
            // SIN / COS of a PRESIN value.
            let (row, xlo, neg, byp) = c.sin.expect("sin fields");
            let sin_val = c.special.mux(nanv, z32);
            Branch {
                byp,
                val: sin_val,
                row,
                xlo,
                neg,
                off: c.c99,
            }
        }
        6 => {
            // PRESIN: |x| * 0xA2F983 with the product's top 32 bits, 2.23
            // fixed point mod 4. The angle is bits 32..56 of
            // `p48[47:16] << (e - 103)`, i.e. `p48[47:16] * 2^(e - 135)`;
            // outside e in [103, 160) no kept bit lands there.
            let m: B::S<24> = c.o1.concat::<23, 24>(frac);
            let p48: B::S<48> = m.mul::<24, 48>(lit::<B, _>(gsfu::TWO_OVER_PI));
            let top: B::S<96> = p48.slice::<16, 32>().zext();
            let sh = e - lit::<B, _>(103);
            let in_range = !e.ult(lit::<B, _>(103)) & e.ult(lit::<B, _>(160));
            let ang = in_range.mux(top.shl(sh.slice::<0, 6>()).slice::<32, 25>(), lit::<B, _>(0));
            let presin_val = nan.mux(
                lit::<B, 32>(gsfu::PRE_NAN as u64) | signw,
                eff.mux(
                    lit::<B, 32>(gsfu::PRE_INF as u64) | signw,
                    e0.mux(signw, signw | ang.zext()),
                ),
            );
            std(c.o1, presin_val, c.z1, c.c99)
        }
        _ => {
            // PREEX2: |x| truncated to 7.23.
            let m: B::S<24> = c.o1.concat::<23, 24>(frac);
            let m31: B::S<31> = m.concat::<7, 31>(lit::<B, _>(0));
            let mag30 = m31.shr(lit::<B, 8>(134) - e);
            let big = !e.ult(lit::<B, _>(134));
            let preex2_val = nan.mux(
                lit::<B, _>(gsfu::PRE_NAN as u64),
                big.mux(
                    lit::<B, 32>(gsfu::PRE_INF as u64) | signw,
                    e0.mux(signw, signw | mag30.zext()),
                ),
            );
            std(c.o1, preex2_val, c.z1, c.c99)
        }
    }
}

/// Stage 1: decode `x` for function `f`. The eight functions' values meet
/// in 8-way picks on `f`; a simulation that knows `f` computes only that
/// function's share (the picks' result; docs/substrate.md, shortcuts).
pub fn pre<B: Backend>(f: B::S<3>, x: B::S<32>) -> Pre<B> {
    let sign = x.slice::<31, 1>();
    let e = x.slice::<23, 8>();
    let frac = x.slice::<0, 23>();
    let e0 = e.eq(lit::<B, _>(0));
    let eff = e.eq(lit::<B, _>(0xff));
    let signw: B::S<32> = sign.concat::<31, 32>(lit::<B, _>(0));
    let known = f.known();
    let special = x.slice::<30, 1>();
    let mut c = Common::<B> {
        sign,
        e,
        frac,
        e0,
        eff,
        nan: eff & frac.any(),
        signw,
        sinf: signw | lit::<B, 32>(INF),
        z1: lit::<B, 1>(0),
        o1: lit::<B, 1>(1),
        c99: lit::<B, 10>(99),
        row7: frac.slice::<16, 7>(),
        xlo16: frac.slice::<0, 16>().zext(),
        rsq_byp: eff | e0 | sign,
        special,
        sin: None,
    };
    if known.is_none_or(|k| k & 6 == 4) {
        c.sin = Some(sin_fields::<B>(f, x, sign, special));
    }
    let br = match known {
        Some(k) => branch::<B>(k & 7, &c, x),
        None => {
            let v: [Branch<B>; 8] = std::array::from_fn(|k| branch::<B>(k as u64, &c, x));
            Branch {
                byp: pick::<B, 1>(f, v.map(|b| b.byp)),
                val: pick::<B, 32>(f, v.map(|b| b.val)),
                row: pick::<B, 7>(f, v.map(|b| b.row)),
                xlo: pick::<B, 17>(f, v.map(|b| b.xlo)),
                neg: pick::<B, 1>(f, v.map(|b| b.neg)),
                off: pick::<B, 10>(f, v.map(|b| b.off)),
            }
        }
    };
    let lg2e = f.eq(lit::<B, _>(2)).mux(e - lit::<B, _>(127), lit::<B, _>(0));
    // Table: 0..3 as the function, SIN for sin and cos (4, 5); PRESIN and
    // PREEX2 read nothing useful (row 4 as well).
    let tsel = f.slice::<2, 1>().mux(lit::<B, _>(4), f);
    let addr = tsel.concat::<7, 10>(br.row);
    Pre {
        byp: br.byp,
        val: br.val,
        addr,
        xlo: br.xlo,
        tsel,
        neg: br.neg,
        off: br.off,
        lg2e,
    }
}

/// Stage 2: `ACC = C0 + ((C1*X_lo) >> s1) + ((C2*SQ) >> s2)` (+ the LG2
/// exponent) with 28 fraction bits, 40-bit two's complement.
pub fn interp<B: Backend>(word: B::S<59>, xlo: B::S<17>, tsel: B::S<3>, lg2e: B::S<8>) -> B::S<40> {
    let c0: B::S<40> = word.slice::<0, 29>().zext();
    let c1: B::S<36> = word.slice::<29, 18>().sext();
    let c2: B::S<30> = word.slice::<47, 12>().sext();
    // Squarer: the top 17 bits of X_lo^2 (X_lo has 17 bits for RSQRT, 16
    // otherwise).
    let x2: B::S<34> = xlo.mul::<17, 34>(xlo);
    let rsq = tsel.eq(lit::<B, _>(1));
    let sq = rsq.mux(x2.slice::<17, 17>(), x2.slice::<15, 17>());
    let s1v: [B::S<4>; 8] = std::array::from_fn(|k| lit::<B, 4>(TABLES[k.min(4)].s1 as u64));
    let s2v: [B::S<4>; 8] = std::array::from_fn(|k| lit::<B, 4>(TABLES[k.min(4)].s2 as u64));
    let s1 = pick::<B, 4>(tsel, s1v);
    let s2 = pick::<B, 4>(tsel, s2v);
    let t1 = c1.mul::<36, 36>(xlo.zext()).sar(s1);
    let t2 = c2.mul::<30, 30>(sq.zext()).sar(s2);
    let e: B::S<40> = lg2e.sext();
    let e = e.shl(lit::<B, 5>(F as u64));
    c0 + t1.sext() + t2.sext() + e
}

/// Stage 3: FP32 of `(-1)^neg * acc * 2^(off - 127 - F)`, or `val` when
/// `byp`. Leading-one normalisation by a 6-level shifter, round half up
/// on the magnitude (ties away), exponent, flush to a signed zero below
/// 2^-126, infinity at 2^128; an exact zero is +0.
pub fn pack<B: Backend>(acc: B::S<40>, neg: B::S<1>, off: B::S<10>, byp: B::S<1>, val: B::S<32>) -> B::S<32> {
    let an = acc.slice::<39, 1>();
    let mag = an.mux(lit::<B, 40>(0) - acc, acc);
    let neg = neg ^ an;
    let mut v: B::S<64> = mag.zext();
    let mut lz = lit::<B, 6>(0);
    for k in [32u64, 16, 8, 4, 2, 1] {
        let top = v.shr(lit::<B, 7>(64 - k)).any();
        v = top.mux(v, v.shl(lit::<B, 7>(k)));
        lz = top.mux(lz, lz | lit::<B, _>(k));
    }
    let sig: B::S<25> = v.slice::<40, 24>().zext();
    let sig = sig + v.slice::<39, 1>().zext();
    let carry = sig.slice::<24, 1>();
    let b: B::S<12> = lit::<B, 12>(63) - lz.zext() + off.sext();
    let b = b + carry.zext();
    let frac = carry.mux(lit::<B, _>(0), sig.slice::<0, 23>());
    let signw: B::S<32> = neg.concat::<31, 32>(lit::<B, _>(0));
    let over = !b.slt(lit::<B, _>(255));
    let under = b.slt(lit::<B, _>(1));
    let norm = signw | b.slice::<0, 8>().concat::<23, 31>(frac).zext();
    let res = over.mux(signw | lit::<B, _>(INF), under.mux(signw, norm));
    let res = mag.any().mux(res, lit::<B, _>(0));
    byp.mux(val, res)
}

/// The whole datapath of one thread on the concrete backend, the ROM read
/// from `rom` ([`rom_words`]): what the clocked unit computes, without its
/// registers.
pub fn eval_comb(rom: &[u64], f: u32, x: u32) -> u32 {
    let p = pre::<Concrete>(Bits::new(f as u64), Bits::new(x as u64));
    let word = Bits::<59>::new(rom[p.addr.to_u64() as usize]);
    let acc = interp::<Concrete>(word, p.xlo, p.tsel, p.lg2e);
    pack::<Concrete>(acc, p.neg, p.off, p.byp, p.val).to_u64() as u32
}
