//! Instruction decode: one 64-bit instruction word to the fields the
//! scoreboard, the scheduler and the issue port need, driven by the ISA
//! table (`src/golden/isa.rs`).
//!
//! ```text
//!   word_i[64] --+--> opcode --> per-opcode row (generated from Op::ALL:
//!                |               form uses, pairs, unit, valid modifiers)
//!                +--> fields --> ra/rb/rc (255 = not read), pairs, dst kind,
//!                                imm (imm32 / sign-extended e / e), guard,
//!                                predicates read, err
//! ```
//!
//! * Combinational (no state); the `decode` module exists for tests and
//!   export, and [`decode_word`] is the function the instruction fetch
//!   (`ifetch`) calls when a line word enters a warp's instruction buffer.
//! * Clock domain: core (ports only).
//! * Ports: `word_i[64]`; outputs `err_o` (the word is not a valid
//!   instruction, or FP64 on a preset without FP64: error code 1),
//!   `unit_o[3]` (docs/sm.md section 4), `op_o[7]`, `mod_o[4]`,
//!   `gpred_o[3]`/`gneg_o` (guard), `ra_o`/`rb_o`/`rc_o[8]` (source
//!   registers, 255 when the instruction does not read that operand),
//!   `pair_o[3]` (a, b, c name FP64 pairs; bit 0 = a), `kind_o[2]`/`dst_o[8]`
//!   (destination, tag kind of docs/sm.md section 3), `use_imm_o`,
//!   `imm_o[32]` (imm32, or the sign-extended offset `e` of memory ops, or
//!   `e` for LDC/S2R, or PSETP's `Pa | Pb << 3`), `prd_o[4]` (predicates read: guard, SEL's Pm,
//!   PSETP's Pa and Pb; `rc_o` is `d` for IMAD with an immediate),
//!   `fmul_o` (FMUL, which the scheduler may send to the SFU).
//! * The table: for every opcode of `Op::ALL` one row of constant bits is
//!   built from `OpInfo` (form uses, pairs, allowed immediate, guard rule,
//!   unit from `Op::unit`) and the set of valid modifier values is found by
//!   asking `Instr::validate` about each of the 16 values. The word's
//!   opcode selects its row; no opcode list is written here.
//! * Validation follows `Instr::decode`: unknown or GPU-CC opcodes (the
//!   defined ones too, `Op::is_gpucc`: the SIMT SM does not run them), bad
//!   guards, nonzero unused fields, registers 128..=254, odd FP64 pairs,
//!   invalid modifiers, an unknown special register all raise `err_o`.
//! * Config: `fp64_rate_divisor = 0` (tesla) makes every DPU instruction an
//!   error (code 1).

use crate::golden::isa::{AtomOp, Form, Instr, ModKind, Op, Src, Sreg, Unit};
use crate::hdl::{Backend, Block, Ctx, Decl, Sig, S};

crate::ports! {
    /// One instruction word.
    pub struct DecodeIn { word_i: 64 @ Core }
}
crate::ports! {
    /// The decoded fields.
    pub struct DecodeOut {
        err_o: 1 @ Core,
        unit_o: 3 @ Core,
        op_o: 7 @ Core,
        mod_o: 4 @ Core,
        gpred_o: 3 @ Core,
        gneg_o: 1 @ Core,
        ra_o: 8 @ Core,
        rb_o: 8 @ Core,
        rc_o: 8 @ Core,
        pair_o: 3 @ Core,
        kind_o: 2 @ Core,
        dst_o: 8 @ Core,
        use_imm_o: 1 @ Core,
        imm_o: 32 @ Core,
        prd_o: 4 @ Core,
        fmul_o: 1 @ Core,
    }
}

/// Decoded fields as signals (the same names as the ports, without `_o`).
#[derive(Clone, Copy)]
pub struct Fields<B: Backend> {
    pub err: B::S<1>,
    pub unit: B::S<3>,
    pub op: B::S<7>,
    pub m: B::S<4>,
    pub gpred: B::S<3>,
    pub gneg: B::S<1>,
    pub ra: B::S<8>,
    pub rb: B::S<8>,
    pub rc: B::S<8>,
    pub pair: B::S<3>,
    pub kind: B::S<2>,
    pub dst: B::S<8>,
    pub use_imm: B::S<1>,
    pub imm: B::S<32>,
    pub prd: B::S<4>,
    pub fmul: B::S<1>,
}

// Bit positions in a table row.
const R_USE_D: u32 = 0;
const R_USE_A: u32 = 1;
const R_USE_B: u32 = 2;
const R_USE_C: u32 = 3;
const R_USE_E: u32 = 4;
const R_PAIR_D: u32 = 5;
const R_PAIR_A: u32 = 6;
const R_PAIR_B: u32 = 7;
const R_PAIR_C: u32 = 8;
const R_IMM_OK: u32 = 9;
const R_GUARD_OK: u32 = 10;
const R_PAB: u32 = 11;
const R_TARGET: u32 = 12;
const R_STORE: u32 = 13;
const R_LOAD: u32 = 14;
const R_ATOM: u32 = 15;
const R_SREG: u32 = 16;
const R_WIDTH: u32 = 17;
const R_PREDMOD: u32 = 18;
const R_VALID: u32 = 19;
const R_UNIT: u32 = 20; // 3 bits
const R_PPP: u32 = 23; // PSETP: a, b are predicates
const R_ADD_D: u32 = 24; // IMAD: with an immediate, the addend is d
const R_MODS: u32 = 32; // 16 bits: valid modifier values

/// The opcodes the SIMT decoder takes: the ISA table without the GPU-CC
/// configuration instructions, which raise `err_o` as reserved opcodes do.
fn simt_ops() -> impl Iterator<Item = Op> {
    Op::ALL.iter().copied().filter(|o| !o.is_gpucc())
}

/// Row of constant decode bits of `op`, from the ISA table (computed once
/// per process: the rows are constants of the hardware).
pub fn table_row(op: Op) -> u64 {
    static ROWS: std::sync::OnceLock<Vec<(Op, u64)>> = std::sync::OnceLock::new();
    let rows = ROWS.get_or_init(|| simt_ops().map(|o| (o, build_row(o))).collect());
    rows.iter()
        .find(|r| r.0 == op)
        .map(|r| r.1)
        .unwrap_or_else(|| build_row(op))
}

fn build_row(op: Op) -> u64 {
    let info = op.info();
    let u = info.form.uses();
    let p = info.pairs;
    let f = info.form;
    let flags = [
        (R_USE_D, u.d),
        (R_USE_A, u.a),
        (R_USE_B, u.b),
        (R_USE_C, u.c),
        (R_USE_E, u.e),
        (R_PAIR_D, p.d),
        (R_PAIR_A, p.a),
        (R_PAIR_B, p.b),
        (R_PAIR_C, p.c),
        (R_IMM_OK, info.allows_imm()),
        (R_GUARD_OK, op.takes_guard()),
        (R_PAB, f == Form::PAB),
        (R_TARGET, f == Form::Target),
        (R_STORE, f == Form::Store),
        (R_LOAD, f == Form::Load),
        (R_ATOM, f == Form::Atom),
        (R_SREG, f == Form::Sreg),
        (R_WIDTH, info.modk == ModKind::Width),
        (R_PREDMOD, info.modk == ModKind::Pred),
        (R_PPP, f == Form::PPP),
        (R_ADD_D, f == Form::DABCI),
        (R_VALID, true),
    ];
    let mut row = 0u64;
    for (bit, on) in flags {
        row |= (on as u64) << bit;
    }
    row |= (op.unit() as u64) << R_UNIT;
    // Valid modifiers: ask the ISA's own validation about each value on an
    // otherwise all-zero instruction of this opcode.
    for m in 0..16u8 {
        let mut i = Instr::new(op);
        i.m = m;
        if f == Form::Target {
            i.b = Src::Imm(0);
        }
        if i.validate().is_ok() {
            row |= 1 << (R_MODS + m as u32);
        }
    }
    row
}

/// Decode `word` (see the module comment). `fp64_ok`: the preset runs FP64.
pub fn decode_word<C: Ctx>(cx: &mut C, w: S<C, 64>, fp64_ok: bool) -> Fields<C::B> {
    decode_word_as(cx, w, fp64_ok, false, ["dec_row", "dec_err"])
}

/// Row of `GCSET` (0x70) and `GCRUN` (0x71) in the decoder of an SM with
/// GPU-CC (`gpucc`): `GCSET node, sel, b` reads `b` (a register or the
/// immediate) through an operand collector, so it decodes as an SP-unit
/// instruction without destination; the SM top takes it off the SP
/// dispatch port (docs/gpucc.md section 11). `GCRUN` is a control op.
/// Neither takes a guard; only modifier 0 is valid.
fn gpucc_row(op: Op) -> u64 {
    let mut row = 1 << R_VALID | 1 << R_MODS;
    if op == Op::Gcset {
        row |= 1 << R_USE_B | 1 << R_IMM_OK | (Unit::Sp as u64) << R_UNIT;
    } else {
        row |= (Unit::Ctrl as u64) << R_UNIT;
    }
    row
}

/// [`decode_word`] with its two named signals (`dec_row`, `dec_err`)
/// named `names`, for a block holding several decoders.
/// `gpucc`: the SM has GPU-CC, and `GCSET`/`GCRUN` decode ([`gpucc_row`]):
/// `GCSET`'s node comes out on `dst_o` (with kind 0, no register
/// written), its configuration register number on `mod_o`.
pub fn decode_word_as<C: Ctx>(cx: &mut C, w: S<C, 64>, fp64_ok: bool, gpucc: bool, names: [&str; 2]) -> Fields<C::B> {
    let opc: S<C, 7> = w.slice::<57, 7>();
    let imm: S<C, 1> = w.slice::<56, 1>();
    let gneg: S<C, 1> = w.slice::<55, 1>();
    let gpred: S<C, 3> = w.slice::<52, 3>();
    let m: S<C, 4> = w.slice::<48, 4>();
    let d: S<C, 8> = w.slice::<40, 8>();
    let a: S<C, 8> = w.slice::<32, 8>();
    let imm32: S<C, 32> = w.slice::<0, 32>();
    let z8 = cx.lit::<8>(0);
    let z16 = cx.lit::<16>(0);
    // With the immediate bit, b, c and e do not exist (decode reads 0).
    let b = imm.mux(z8, w.slice::<24, 8>());
    let c = imm.mux(z8, w.slice::<16, 8>());
    let e = imm.mux(z16, w.slice::<0, 16>());

    // Table lookup: OR of the rows whose opcode matches (at most one).
    let mut row = cx.lit::<48>(0);
    let z48 = cx.lit::<48>(0);
    for op in simt_ops() {
        let hit = opc.eq(cx.lit::<7>(op as u64));
        let r = cx.lit::<48>(table_row(op));
        row = row | hit.mux(r, z48);
    }
    let mut gcset = None;
    if gpucc {
        for op in [Op::Gcset, Op::Gcrun] {
            let hit = opc.eq(cx.lit::<7>(op as u64));
            let r = cx.lit::<48>(gpucc_row(op));
            row = row | hit.mux(r, z48);
            if op == Op::Gcset {
                gcset = Some(hit);
            }
        }
    }
    let row = cx.name(names[0], row);
    macro_rules! bit {
        ($b:expr) => {
            row.slice::<{ $b as usize }, 1>()
        };
    }
    let use_d = bit!(R_USE_D);
    let use_a = bit!(R_USE_A);
    let use_b = bit!(R_USE_B);
    let use_c = bit!(R_USE_C);
    let use_e = bit!(R_USE_E);
    let pair_d = bit!(R_PAIR_D);
    let pair_a = bit!(R_PAIR_A);
    let pair_b = bit!(R_PAIR_B);
    let pair_c = bit!(R_PAIR_C);
    let imm_ok = bit!(R_IMM_OK);
    let guard_ok = bit!(R_GUARD_OK);
    let pab = bit!(R_PAB);
    let target = bit!(R_TARGET);
    let store = bit!(R_STORE);
    let load = bit!(R_LOAD);
    let atom = bit!(R_ATOM);
    let sreg = bit!(R_SREG);
    let width = bit!(R_WIDTH);
    let predmod = bit!(R_PREDMOD);
    let ppp = bit!(R_PPP);
    let add_d = bit!(R_ADD_D);
    let valid = bit!(R_VALID);
    let unit: S<C, 3> = row.slice::<{ R_UNIT as usize }, 3>();
    let mods: S<C, 16> = row.slice::<{ R_MODS as usize }, 16>();

    let l8 = |cx: &mut C, v: u64| cx.lit::<8>(v);
    let rz = l8(cx, 255);
    let pt = cx.lit::<3>(7);
    let is_pt = gpred.eq(pt);
    let bad_guard = (gpred.slice::<2, 1>() & !is_pt) | (is_pt & gneg) | (!guard_ok & !(is_pt & !gneg));
    let mod_ok = mods.shr(m).slice::<0, 1>();
    let reg_ok = |cx: &mut C, r: S<C, 8>| r.ult(l8(cx, 128)) | r.eq(rz);
    let check = |cx: &mut C, used: S<C, 1>, r: S<C, 8>, pair: S<C, 1>| {
        let ok = reg_ok(cx, r) & !(pair & r.ne(rz) & r.slice::<0, 1>());
        used.mux(ok, r.eq(z8))
    };
    let pred_ok = |cx: &mut C, p: S<C, 8>| p.ult(l8(cx, 4)) | p.eq(l8(cx, 7));
    // Compares and PSETP write a predicate; PSETP also reads two.
    let pred_dst = pab | ppp;
    let d_ok = pred_dst.mux(pred_ok(cx, d), check(cx, use_d, d, pair_d));
    let a_ok = ppp.mux(pred_ok(cx, a), check(cx, use_a, a, pair_a));
    // GCSET: d a node 0..=47, a a configuration register 0..=4.
    let (d_ok, a_ok) = match gcset {
        Some(g) => {
            let nodes = l8(cx, crate::golden::isa::GPUCC_NODES as u64);
            let sels = l8(cx, crate::golden::isa::GPUCC_SEL_MAX as u64 + 1);
            (g.mux(d.ult(nodes), d_ok), g.mux(a.ult(sels), a_ok))
        }
        None => (d_ok, a_ok),
    };
    let b_src_ok = ppp.mux(pred_ok(cx, b), check(cx, use_b, b, pair_b));
    let b_reg_ok = !target & b_src_ok & check(cx, use_c, c, pair_c) & (use_e | e.eq(z16));
    let b_ok = imm.mux(imm_ok, b_reg_ok);
    let cas = m.eq(cx.lit::<4>(AtomOp::Cas as u64));
    let atom_ok = !(atom & !cas & c.ne(z8));
    let sreg_ok = !sreg | e.ult(cx.lit::<16>(Sreg::ALL.len() as u64));
    let wide = width & m.eq(cx.lit::<4>(1));
    let wreg = store.mux(b, d);
    let wide_ok = !(wide & wreg.ne(rz) & wreg.slice::<0, 1>());
    let is_dpu = unit.eq(cx.lit::<3>(Unit::Dpu as u64));
    let fp64_bad = if fp64_ok { cx.lit::<1>(0) } else { is_dpu };
    let ok = valid & !bad_guard & mod_ok & d_ok & a_ok & b_ok & atom_ok & sreg_ok & wide_ok & !fp64_bad;
    let err = cx.name(names[1], !ok);

    let ra = (use_a & !ppp).mux(a, rz);
    let rb = (use_b & !imm & !ppp).mux(b, rz);
    // IMAD with an immediate adds register d (the immediate holds c's field).
    let rc = (use_c & !imm & !(atom & !cas)).mux(c, (add_d & imm).mux(d, rz));
    let pb = pair_b | (store & wide);
    let pair: S<C, 3> = pair_c.concat::<2, 3>(pb.concat::<1, 2>(pair_a));
    let k0 = cx.lit::<2>(0);
    let k1 = cx.lit::<2>(1);
    let k2 = cx.lit::<2>(2);
    let k3 = cx.lit::<2>(3);
    let reg_kind = (use_d & d.ne(rz)).mux((pair_d | (load & wide)).mux(k2, k1), k0);
    let kind = pred_dst.mux(d.eq(l8(cx, 7)).mux(k0, k3), reg_kind);
    let e_ext = (load | store | atom).mux(e.sext::<32>(), e.zext::<32>());
    // PSETP carries its predicate sources in `imm_o`: Pa in bits 2..0, Pb in
    // bits 5..3 (7 = PT); the scheduler reads them from the warp's row.
    let psrc: S<C, 6> = b.slice::<0, 3>().concat::<3, 6>(a.slice::<0, 3>());
    let immv = imm.mux(imm32, ppp.mux(psrc.zext::<32>(), e_ext));
    // Predicates read: the guard (unless PT) and SEL's Pm (unless PT).
    let onehot = |cx: &mut C, on: S<C, 1>, p: S<C, 2>| {
        let one = cx.lit::<4>(1);
        let z4 = cx.lit::<4>(0);
        on.mux(one.shl(p), z4)
    };
    let g_rd = onehot(cx, !is_pt, gpred.slice::<0, 2>());
    let pm: S<C, 3> = m.slice::<0, 3>();
    let s_rd = onehot(cx, predmod & pm.ne(pt), m.slice::<0, 2>());
    // PSETP's Pa and Pb (unless PT).
    let p7 = l8(cx, 7);
    let pa_rd = onehot(cx, ppp & a.ne(p7), a.slice::<0, 2>());
    let pb_rd = onehot(cx, ppp & b.ne(p7), b.slice::<0, 2>());
    let fmul = opc.eq(cx.lit::<7>(Op::Fmul as u64));
    Fields {
        err,
        unit,
        op: opc,
        m: gcset.map_or(m, |g| g.mux(a.slice::<0, 4>(), m)),
        gpred,
        gneg,
        ra,
        rb,
        rc,
        pair,
        kind,
        dst: d,
        use_imm: imm,
        imm: immv,
        prd: g_rd | s_rd | pa_rd | pb_rd,
        fmul,
    }
}

/// The decode block (combinational).
#[derive(Debug, Clone)]
pub struct Decode {
    decl: Decl,
    fp64_ok: bool,
    gpucc: bool,
}

impl Decode {
    /// A decoder; `fp64_ok` = the preset has FP64 (`fp64_rate_divisor > 0`).
    pub fn new(fp64_ok: bool) -> Self {
        Decode {
            decl: Decl::new(),
            fp64_ok,
            gpucc: false,
        }
    }
    /// The decoder of an SM with GPU-CC: `GCSET`/`GCRUN` decode
    /// ([`decode_word_as`]; module name ends `_gc`).
    pub fn with_gpucc(fp64_ok: bool) -> Self {
        Decode {
            gpucc: true,
            ..Decode::new(fp64_ok)
        }
    }
}

impl Block for Decode {
    type In<B: Backend> = DecodeIn<B>;
    type Out<B: Backend> = DecodeOut<B>;
    fn module_name(&self) -> String {
        format!(
            "decode_{}{}",
            if self.fp64_ok { "fp64" } else { "nofp64" },
            if self.gpucc { "_gc" } else { "" }
        )
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    /// Mostly valid words: a defined opcode, guard PT or P0-P3, small
    /// registers, fields the form does not use cleared (1 word in 8 left
    /// fully random, 1 in 8 with one random field kept).
    fn constrain(&self, r: u64, i: &mut DecodeIn<crate::hdl::Concrete>) {
        i.word_i = crate::hdl::Bits::new(crate::testbenches::fe_ref::plausible_word(r, i.word_i.to_u64()));
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &DecodeIn<C::B>) -> DecodeOut<C::B> {
        let f = decode_word_as(cx, i.word_i, self.fp64_ok, self.gpucc, ["dec_row", "dec_err"]);
        DecodeOut {
            err_o: f.err,
            unit_o: f.unit,
            op_o: f.op,
            mod_o: f.m,
            gpred_o: f.gpred,
            gneg_o: f.gneg,
            ra_o: f.ra,
            rb_o: f.rb,
            rc_o: f.rc,
            pair_o: f.pair,
            kind_o: f.kind,
            dst_o: f.dst,
            use_imm_o: f.use_imm,
            imm_o: f.imm,
            prd_o: f.prd,
            fmul_o: f.fmul,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hdl::Sim;
    use crate::testbenches::fe_ref::{dec_of, random_instr};
    use crate::testbenches::fe_tb::{check_decode, decode_random};

    /// GCSET and GCRUN: errors on the SIMT decoder; on the GPU-CC one
    /// GCSET is an SP-unit instruction with no destination, its node on
    /// `dst_o`, its register number on `mod_o`, `b` a register or the
    /// immediate; out-of-range nodes and register numbers are errors.
    #[test]
    fn gpucc_instructions_decode_only_with_gpucc() {
        use crate::hdl::Bits;
        let mut simt = Sim::new(Decode::new(true)).unwrap();
        let mut gc = Sim::new(Decode::with_gpucc(true)).unwrap();
        let word = |i: &Instr| DecodeIn::<crate::hdl::Concrete> {
            word_i: Bits::new(i.encode()),
        };
        let mut set = Instr::new(Op::Gcset);
        set.d = 40;
        set.a = 3;
        set.b = Src::Reg(17);
        let run = Instr::new(Op::Gcrun);
        for i in [&set, &run] {
            assert_eq!(simt.eval(&word(i)).err_o.to_u64(), 1, "{:?}", i.op);
        }
        let o = gc.eval(&word(&set));
        assert_eq!(o.err_o.to_u64(), 0);
        assert_eq!(o.unit_o.to_u64(), Unit::Sp as u64);
        assert_eq!(o.op_o.to_u64(), Op::Gcset as u64);
        assert_eq!((o.kind_o.to_u64(), o.dst_o.to_u64(), o.mod_o.to_u64()), (0, 40, 3));
        assert_eq!((o.ra_o.to_u64(), o.rb_o.to_u64(), o.rc_o.to_u64()), (255, 17, 255));
        assert_eq!(o.use_imm_o.to_u64(), 0);
        set.b = Src::Imm(0xdead_beef);
        let o = gc.eval(&word(&set));
        assert_eq!(
            (o.err_o.to_u64(), o.use_imm_o.to_u64(), o.imm_o.to_u64()),
            (0, 1, 0xdead_beef)
        );
        assert_eq!(o.rb_o.to_u64(), 255);
        let o = gc.eval(&word(&run));
        assert_eq!(
            (o.err_o.to_u64(), o.unit_o.to_u64(), o.kind_o.to_u64()),
            (0, Unit::Ctrl as u64, 0)
        );
        // Out of range: node 48, register 5 (built past the assembler's
        // checks), a guard, a modifier.
        let base = set.encode();
        for (d, a, g, m) in [(48u64, 0u64, 7u64, 0u64), (0, 5, 7, 0), (1, 1, 0, 0), (1, 1, 7, 1)] {
            // Fields: d 47..40, a 39..32, guard 54..52, modifier 51..48.
            let keep = !(0xff << 40 | 0xff << 32 | 7 << 52 | 0xf << 48);
            let w = base & keep | d << 40 | a << 32 | g << 52 | m << 48;
            let o = gc.eval(&DecodeIn { word_i: Bits::new(w) });
            assert_eq!(o.err_o.to_u64(), 1, "node {d} sel {a} guard {g} mod {m}");
        }
        // Every SIMT opcode still decodes as on the SIMT decoder.
        for k in 0..400u64 {
            let i = random_instr(k);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            crate::hdl::sim::flatten(&simt.eval(&word(&i)), &mut a);
            crate::hdl::sim::flatten(&gc.eval(&word(&i)), &mut b);
            assert_eq!(a, b, "{:?}", i.op);
        }
    }

    #[test]
    fn every_opcode_decodes_like_the_isa() {
        let mut sim = Sim::new(Decode::new(true)).unwrap();
        for (k, op) in simt_ops().enumerate() {
            let mut i = Instr::new(op);
            if op.info().form == Form::Target {
                i.b = Src::Imm(0x1234);
            }
            assert!(!check_decode(&mut sim, i.encode(), true).unwrap(), "{op}");
            for n in 0..50 {
                let i = random_instr(k as u64 * 1000 + n);
                check_decode(&mut sim, i.encode(), true).unwrap();
            }
        }
    }

    #[test]
    fn directed_fields() {
        // FFMA R2, R4, R6, -R8 under @!P1: reads a, b, c and P1.
        let mut i = Instr::new(Op::Ffma);
        i.guard = crate::golden::isa::Guard { pred: 1, neg: true };
        i.m = 8;
        (i.d, i.a, i.b, i.c) = (2, 4, Src::Reg(6), 8);
        let d = dec_of(&i, true);
        assert_eq!((d.ra, d.rb, d.rc, d.kind, d.dst, d.prd), (4, 6, 8, 1, 2, 0b0010));
        // STS.64 [R3+-4], R6: b is a pair, offset sign-extended, no dst.
        let mut s = Instr::new(Op::Sts);
        (s.m, s.a, s.b, s.e) = (1, 3, Src::Reg(6), 0xfffc);
        let d = dec_of(&s, true);
        assert_eq!((d.pair, d.kind, d.imm, d.rc), (0b010, 0, 0xffff_fffc, 255));
        // DADD on tesla: code 1 error.
        let mut sim = Sim::new(Decode::new(false)).unwrap();
        assert!(check_decode(&mut sim, Instr::new(Op::Dadd).encode(), false).unwrap());
        // Reserved GPU-CC opcode, register 200, bad guard: errors.
        let mut sim = Sim::new(Decode::new(true)).unwrap();
        assert!(check_decode(&mut sim, 0x70u64 << 57, true).unwrap());
        assert!(check_decode(&mut sim, Instr::new(Op::Gcrun).encode(), true).unwrap());
        assert!(check_decode(&mut sim, (Op::Iadd as u64) << 57 | 7 << 52 | 200 << 32, true).unwrap());
        assert!(check_decode(&mut sim, (Op::Iadd as u64) << 57 | 5 << 52, true).unwrap());
    }

    #[test]
    fn random_words_match_reference() {
        let (n, rej) = decode_random(7, 20_000, true).unwrap();
        assert!(rej > n / 20 && rej < n / 2, "{rej} of {n} rejected");
        decode_random(8, 5_000, false).unwrap();
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use crate::hdl::Sim;
    use crate::testbenches::fe_ref::random_instr;
    use crate::testbenches::fe_tb::check_decode;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Any 64-bit word, and any valid instruction with one field
        /// disturbed: the RTL decode agrees with `Instr::decode`.
        #[test]
        fn any_word(w in any::<u64>(), h in any::<u64>(), flip in 0u32..64) {
            let mut sim = Sim::new(Decode::new(true)).unwrap();
            check_decode(&mut sim, w, true).map_err(TestCaseError::fail)?;
            let v = random_instr(h).encode();
            check_decode(&mut sim, v, true).map_err(TestCaseError::fail)?;
            check_decode(&mut sim, v ^ 1 << flip, true).map_err(TestCaseError::fail)?;
        }
    }
}
