//! Execution: each instruction decoded once at load ([`Dec`]: register
//! fields resolved to register-file rows, guards, rounding), and `exec`,
//! which runs one warp instruction over the 32 lanes under its mask (the
//! active mask and the guard). Arithmetic comes from `golden::arith`;
//! memory instructions from `memory`, control instructions from `warp`.

use super::memory::{atomic, load, store, Scratch, Space};
use super::report::{Fault, Reason};
use super::warp::{self, Warp};
use super::{Ctx, FULL, SIGN, WARP};
use crate::golden::arith::{ieee, sfu, tesla, Round, Tininess};
use crate::golden::isa::{Class, Form, Guard, Instr, ModKind, Op, Rnd, Src, Sreg, NUM_PREDS, PT, RZ};

/// One instruction, decoded once at load: register fields resolved to
/// register-file rows (RZ reads the zero rows, writes the sink rows).
#[derive(Debug, Clone, Copy)]
pub(super) struct Dec {
    pub(super) op: Op,
    pub(super) class: u8,
    /// Guard predicate index into `Warp::preds` (4 = PT).
    pub(super) gpred: u8,
    pub(super) gneg: bool,
    pub(super) m: u8,
    pub(super) rnd: Round,
    /// Row written by `d` (RZ: sink) and its field value.
    pub(super) d: u16,
    pub(super) a: u16,
    pub(super) b: u16,
    pub(super) b_imm: bool,
    pub(super) imm: u32,
    pub(super) c: u16,
    /// Signed memory offset / LDC word offset / special register.
    pub(super) off: i32,
    pub(super) e: u16,
}

pub(super) fn class_index(c: Class) -> u8 {
    Class::ALL.iter().position(|&x| x == c).unwrap_or(0) as u8
}

/// Check and pre-resolve one instruction.
pub(super) fn decode(i: &Instr, nregs: usize) -> Result<Dec, Reason> {
    let text = instr_text_safe(i);
    let info = i.info();
    if i.guard != Guard::ALWAYS && !i.op.takes_guard() {
        return Err(Reason::GuardedControl {
            text,
            op: info.mnemonic,
        });
    }
    i.validate().map_err(|e| Reason::InvalidInstr {
        text: text.clone(),
        why: e.to_string(),
    })?;
    let uses = info.form.uses();
    let wide = info.modk == ModKind::Width && i.wide();
    let check = |r: u8, used: bool, pair: bool| -> Result<(), Reason> {
        if !used || r == RZ {
            return Ok(());
        }
        let top = r as u32 + pair as u32;
        if top as usize >= nregs {
            return Err(Reason::RegOutOfRange {
                text: text.clone(),
                reg: top,
                regs: nregs as u32,
            });
        }
        Ok(())
    };
    // PSETP's a and b name predicates, not registers.
    let ppp = info.form == Form::PPP;
    let pred_dst = info.form == Form::PAB || ppp;
    // GCSET's d and a are a node and a configuration register number.
    let cfg = info.form == Form::Cfg;
    if !pred_dst && !cfg {
        check(i.d, uses.d, info.pairs.d || (wide && info.form == Form::Load))?;
    }
    if !ppp {
        if !cfg {
            check(i.a, uses.a, info.pairs.a)?;
        }
        if let Src::Reg(b) = i.b {
            check(b, uses.b, info.pairs.b || (wide && info.form == Form::Store))?;
        }
    }
    check(i.addend(), uses.c, info.pairs.c)?;
    let pidx = |p: u8| if p == PT { 4 } else { p as u16 };
    let rd = |r: u8| if r == RZ { nregs as u16 } else { r as u16 };
    let wr = |r: u8| if r == RZ { nregs as u16 + 2 } else { r as u16 };
    let (b, b_imm, imm) = match i.b {
        Src::Reg(r) => (rd(r), false, 0),
        Src::Imm(v) => (nregs as u16, true, v),
    };
    Ok(Dec {
        op: i.op,
        class: class_index(info.class),
        gpred: if i.guard.pred == PT { 4 } else { i.guard.pred },
        gneg: i.guard.neg,
        m: i.m,
        rnd: Rnd::from_bits(i.m).round(),
        d: if pred_dst || cfg { i.d as u16 } else { wr(i.d) },
        a: if ppp {
            pidx(i.a)
        } else if cfg {
            i.a as u16
        } else {
            rd(i.a)
        },
        b: if ppp { pidx(i.pred_src(1).pred) } else { b },
        b_imm,
        imm,
        // With IMAD's immediate form the addend is the destination.
        c: rd(i.addend()),
        off: i.offset(),
        e: i.e,
    })
}

/// [`instr_text`] for instructions that may not validate (no panics on
/// bad special-register numbers).
pub(super) fn instr_text_safe(i: &Instr) -> String {
    if i.info().form == Form::Sreg && Sreg::from_bits(i.e).is_none() {
        return format!("{} (special register {})", i.info().mnemonic, i.e);
    }
    if i.validate().is_err() {
        return format!("{:?}", i);
    }
    crate::golden::asm::format_instr(i, None)
}

/// Apply `f` to every lane in `mask` (a straight loop when all 32 are on).
#[inline(always)]
pub(super) fn for_lanes(mask: u32, mut f: impl FnMut(usize)) {
    if mask == FULL {
        for l in 0..WARP {
            f(l);
        }
    } else {
        let mut m = mask;
        while m != 0 {
            f(m.trailing_zeros() as usize);
            m &= m - 1;
        }
    }
}

#[inline(always)]
pub(super) fn row_b(w: &Warp, i: &Dec) -> [u32; 32] {
    if i.b_imm {
        [i.imm; 32]
    } else {
        w.regs[i.b as usize]
    }
}

#[inline(always)]
pub(super) fn op1(w: &mut Warp, i: &Dec, mask: u32, f: impl Fn(u32) -> u32) {
    let a = w.regs[i.a as usize];
    let d = &mut w.regs[i.d as usize];
    for_lanes(mask, |l| d[l] = f(a[l]));
}

#[inline(always)]
pub(super) fn op2(w: &mut Warp, i: &Dec, mask: u32, f: impl Fn(u32, u32) -> u32) {
    let a = w.regs[i.a as usize];
    let b = row_b(w, i);
    let d = &mut w.regs[i.d as usize];
    for_lanes(mask, |l| d[l] = f(a[l], b[l]));
}

#[inline(always)]
pub(super) fn op3(w: &mut Warp, i: &Dec, mask: u32, f: impl Fn(u32, u32, u32) -> u32) {
    let a = w.regs[i.a as usize];
    let b = row_b(w, i);
    let c = w.regs[i.c as usize];
    let d = &mut w.regs[i.d as usize];
    for_lanes(mask, |l| d[l] = f(a[l], b[l], c[l]));
}

#[inline(always)]
pub(super) fn pair(w: &Warp, r: u16, l: usize) -> u64 {
    w.regs[r as usize][l] as u64 | (w.regs[r as usize + 1][l] as u64) << 32
}

#[inline(always)]
pub(super) fn set_pair(w: &mut Warp, r: u16, l: usize, v: u64) {
    w.regs[r as usize][l] = v as u32;
    w.regs[r as usize + 1][l] = (v >> 32) as u32;
}

/// Write the compare results `bits` into predicate `d` on lanes `mask`.
#[inline(always)]
pub(super) fn set_pred(w: &mut Warp, d: u16, mask: u32, bits: u32) {
    if (d as u8) < NUM_PREDS {
        let p = &mut w.preds[d as usize];
        *p = (*p & !mask) | (bits & mask);
    }
}

#[inline(always)]
pub(super) fn cmp_bits(mask: u32, f: impl Fn(usize) -> bool) -> u32 {
    let mut bits = 0;
    for_lanes(mask, |l| bits |= (f(l) as u32) << l);
    bits
}

/// Execute one instruction on a warp; returns the lanes that executed.
#[inline(always)]
pub(super) fn exec(
    i: &Dec,
    w: &mut Warp,
    gmem: &mut [u8],
    shared: &mut [u8],
    ctx: &Ctx,
    s: &mut Scratch,
) -> Result<u32, Fault> {
    let g = {
        let p = w.preds[i.gpred as usize];
        if i.gneg {
            !p
        } else {
            p
        }
    };
    let mask = w.active & g;
    if ctx.lacks >> (i.op as u8) & 1 != 0 {
        // As the RTL: error code 1 at execution, whatever the mask.
        return Err(Reason::NotOnPreset {
            op: i.op.info().mnemonic,
            preset: ctx.preset.clone(),
            why: super::lack_reason(i.op),
        }
        .into());
    }
    let pc = w.pc;
    w.pc = pc + 1;
    let rnd = i.rnd;
    let na = if i.m & 4 != 0 { SIGN } else { 0 };
    let nbc = if i.m & 8 != 0 { SIGN } else { 0 };
    const TIN: Tininess = Tininess::AfterRounding;
    match i.op {
        Op::Nop => {}
        Op::Iadd => op2(w, i, mask, |a, b| a.wrapping_add(b)),
        Op::Isub => op2(w, i, mask, |a, b| a.wrapping_sub(b)),
        Op::Imul => {
            let mm = crate::golden::isa::MulMode::from_bits(i.m).expect("validated");
            op2(w, i, mask, |a, b| mm.eval(a, b))
        }
        Op::Imad => {
            let mm = crate::golden::isa::MulMode::from_bits(i.m).expect("validated");
            op3(w, i, mask, |a, b, c| mm.eval(a, b).wrapping_add(c))
        }
        Op::Imin => {
            if i.m & 1 != 0 {
                op2(w, i, mask, |a, b| a.min(b))
            } else {
                op2(w, i, mask, |a, b| (a as i32).min(b as i32) as u32)
            }
        }
        Op::Imax => {
            if i.m & 1 != 0 {
                op2(w, i, mask, |a, b| a.max(b))
            } else {
                op2(w, i, mask, |a, b| (a as i32).max(b as i32) as u32)
            }
        }
        Op::Shl => op2(w, i, mask, |a, b| if b >= 32 { 0 } else { a << b }),
        Op::Shr => {
            if i.m & 1 != 0 {
                op2(w, i, mask, |a, b| ((a as i32) >> b.min(31)) as u32)
            } else {
                op2(w, i, mask, |a, b| if b >= 32 { 0 } else { a >> b })
            }
        }
        Op::And => op2(w, i, mask, |a, b| a & b),
        Op::Or => op2(w, i, mask, |a, b| a | b),
        Op::Xor => op2(w, i, mask, |a, b| a ^ b),
        Op::Not => {
            let b = row_b(w, i);
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = !b[l]);
        }
        Op::Iabs => op1(w, i, mask, |a| (a as i32).wrapping_abs() as u32),
        Op::Isetp => {
            let cmp = crate::golden::isa::ICmp::from_bits(i.m).expect("validated");
            let uns = i.m & 8 != 0;
            let a = w.regs[i.a as usize];
            let b = row_b(w, i);
            let bits = cmp_bits(mask, |l| cmp.eval(a[l], b[l], uns));
            set_pred(w, i.d, mask, bits);
        }
        Op::Psetp => {
            let neg = |on: bool| if on { FULL } else { 0 };
            let pa = w.preds[i.a as usize] ^ neg(i.m & 4 != 0);
            let pb = w.preds[i.b as usize] ^ neg(i.m & 8 != 0);
            let r = crate::golden::isa::PLogic::from_bits(i.m)
                .expect("validated")
                .eval(pa, pb);
            set_pred(w, i.d, mask, r);
        }
        Op::Sel => {
            let pi = i.m & 7;
            let p = w.preds[if pi == PT { 4 } else { pi as usize }];
            let p = if i.m & 8 != 0 { !p } else { p };
            op2(w, i, mask & p, |a, _| a);
            op2(w, i, mask & !p, |_, b| b);
        }
        Op::Fadd => {
            if ctx.tesla_fp {
                op2(w, i, mask, |a, b| tesla::fadd(a ^ na, b ^ nbc, rnd))
            } else {
                op2(w, i, mask, |a, b| ieee::f32_add(a ^ na, b ^ nbc, rnd, TIN).0)
            }
        }
        Op::Fmul => {
            if ctx.tesla_fp {
                op2(w, i, mask, |a, b| tesla::fmul(a ^ na, b ^ nbc, rnd))
            } else {
                op2(w, i, mask, |a, b| ieee::f32_mul(a ^ na, b ^ nbc, rnd, TIN).0)
            }
        }
        Op::Fmad => op3(w, i, mask, |a, b, c| tesla::fmad(a ^ na, b, c ^ nbc)),
        Op::Ffma => op3(w, i, mask, |a, b, c| ieee::f32_fma(a ^ na, b, c ^ nbc, rnd, TIN).0),
        Op::Fmin => op2(w, i, mask, ieee::f32_min),
        Op::Fmax => op2(w, i, mask, ieee::f32_max),
        Op::Fsetp => {
            let fc = crate::golden::isa::FCmp(i.m & 15);
            let a = w.regs[i.a as usize];
            let b = row_b(w, i);
            let bits = cmp_bits(mask, |l| fc.eval_f32(a[l], b[l]));
            set_pred(w, i.d, mask, bits);
        }
        Op::Rcp => op1(w, i, mask, sfu::rcp),
        Op::Rsq => op1(w, i, mask, sfu::rsqrt),
        Op::Lg2 => op1(w, i, mask, sfu::lg2),
        Op::Ex2 => op1(w, i, mask, sfu::ex2),
        Op::Sin => op1(w, i, mask, sfu::sin),
        Op::Cos => op1(w, i, mask, sfu::cos),
        Op::Presin => op1(w, i, mask, sfu::presin),
        Op::Preex2 => op1(w, i, mask, sfu::preex2),
        Op::Dadd | Op::Dmul | Op::Dfma => {
            let nb = (nbc as u64) << 32;
            let na = (na as u64) << 32;
            let mut r = [0u64; 32];
            for_lanes(mask, |l| {
                let (a, b) = (pair(w, i.a, l) ^ na, pair(w, i.b, l));
                r[l] = match i.op {
                    Op::Dadd => ieee::f64_add(a, b ^ nb, rnd, TIN).0,
                    Op::Dmul => ieee::f64_mul(a, b ^ nb, rnd, TIN).0,
                    _ => ieee::f64_fma(a, b, pair(w, i.c, l) ^ nb, rnd, TIN).0,
                };
            });
            for_lanes(mask, |l| set_pair(w, i.d, l, r[l]));
        }
        Op::Dsetp => {
            let fc = crate::golden::isa::FCmp(i.m & 15);
            let bits = cmp_bits(mask, |l| fc.eval_f64(pair(w, i.a, l), pair(w, i.b, l)));
            set_pred(w, i.d, mask, bits);
        }
        Op::I2f => {
            let signed = i.m & 4 == 0;
            op1(w, i, mask, |a| ieee::i32_to_f32(a, signed, rnd))
        }
        Op::F2i => {
            let signed = i.m & 4 == 0;
            op1(w, i, mask, |a| ieee::f32_to_i32(a, signed, rnd))
        }
        Op::I2d => {
            let signed = i.m & 4 == 0;
            let a = w.regs[i.a as usize];
            for_lanes(mask, |l| set_pair(w, i.d, l, ieee::i32_to_f64(a[l], signed)));
        }
        Op::D2i => {
            let signed = i.m & 4 == 0;
            let mut r = [0u32; 32];
            for_lanes(mask, |l| r[l] = ieee::f64_to_i32(pair(w, i.a, l), signed, rnd));
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = r[l]);
        }
        Op::F2d => {
            let a = w.regs[i.a as usize];
            for_lanes(mask, |l| set_pair(w, i.d, l, ieee::f32_to_f64(a[l])));
        }
        Op::D2f => {
            let mut r = [0u32; 32];
            for_lanes(mask, |l| r[l] = ieee::f64_to_f32(pair(w, i.a, l), rnd));
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = r[l]);
        }
        Op::Mov => {
            let b = row_b(w, i);
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = b[l]);
        }
        Op::S2r => {
            let sr = Sreg::from_bits(i.e).expect("validated");
            let v: [u32; 32] = match sr {
                Sreg::TidX => w.tid[0],
                Sreg::TidY => w.tid[1],
                Sreg::TidZ => w.tid[2],
                Sreg::NtidX => [ctx.block[0]; 32],
                Sreg::NtidY => [ctx.block[1]; 32],
                Sreg::NtidZ => [ctx.block[2]; 32],
                Sreg::CtaidX => [ctx.cta_xy[0]; 32],
                Sreg::CtaidY => [ctx.cta_xy[1]; 32],
                Sreg::NctaidX => [ctx.grid[0]; 32],
                Sreg::NctaidY => [ctx.grid[1]; 32],
                Sreg::LaneId => std::array::from_fn(|l| l as u32),
                Sreg::WarpId => [w.index; 32],
                Sreg::Clock => [w.clock as u32; 32],
            };
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = v[l]);
        }
        Op::Ldc => {
            let a = w.regs[i.a as usize];
            let n = ctx.params.len();
            let mut err = None;
            let mut v = [0u32; 32];
            for_lanes(mask, |l| {
                let idx = a[l] as u64 + i.e as u64;
                if idx < n as u64 {
                    v[l] = ctx.params[idx as usize];
                } else if err.is_none() {
                    err = Some(Fault {
                        lane: Some(l as u32),
                        reason: Reason::ParamOutOfRange { index: idx, count: n },
                    });
                }
            });
            if let Some(f) = err {
                return Err(f);
            }
            let d = &mut w.regs[i.d as usize];
            for_lanes(mask, |l| d[l] = v[l]);
        }
        Op::Ldg => load(w, i, mask, gmem, Space::Global, i.m & 1 != 0)?,
        Op::Lds => load(w, i, mask, shared, Space::Shared, i.m & 1 != 0)?,
        Op::Stg => store(w, i, mask, gmem, Space::Global, i.m & 1 != 0, s)?,
        Op::Sts => store(w, i, mask, shared, Space::Shared, i.m & 1 != 0, s)?,
        Op::Atomg => atomic(w, i, mask, gmem, Space::Global, s)?,
        Op::Atoms => atomic(w, i, mask, shared, Space::Shared, s)?,
        // The model performs every access in program order at once, so a
        // fence has nothing left to order.
        Op::Membar => {}
        Op::Bra => return warp::bra(w, mask, pc, i.imm, ctx),
        Op::Ssy => return warp::ssy(w, i.imm, ctx),
        Op::Sync => return warp::sync(w),
        Op::Bar => return warp::bar(w),
        Op::Exit => return warp::exit(w, mask),
        Op::Gcset | Op::Gcrun => unreachable!("GPU-CC instructions run in Golden::exec_gpucc"),
    }
    Ok(mask)
}
