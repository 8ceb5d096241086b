//! One memory warp instruction on raw operands, for unit testbenches (the
//! LSU's semantic check): the golden model's own `decode` and `exec` run on
//! a one-warp state whose registers hold the operands (R0 = a, R2:R3 = b,
//! R4 = c, destination R6:R7).

use super::exec::{decode, exec};
use super::memory::Scratch;
use super::warp::Warp;
use super::{Ctx, FULL, MAX_STACK};
use crate::golden::isa::{Instr, Op, Src};

/// A warp memory instruction with its operands per lane.
#[derive(Debug, Clone)]
pub struct Access {
    pub op: Op,
    pub m: u8,
    pub mask: u32,
    pub a: [u32; 32],
    pub b: [u64; 32],
    pub c: [u32; 32],
    /// The instruction's `e` field: signed byte offset, LDC word offset.
    pub e: u16,
}

/// Run `x` on the images; returns the destination (`d` or the pair
/// `d:d+1`) of every lane, 0 outside the mask, or the faulting lane and
/// the golden model's error text.
pub fn memory_access(
    x: &Access,
    gmem: &mut [u8],
    shared: &mut [u8],
    params: &[u32],
) -> Result<[u64; 32], (Option<u32>, String)> {
    let uses = x.op.info().form.uses();
    let mut i = Instr::new(x.op);
    i.m = x.m;
    i.d = if uses.d { 6 } else { 0 };
    i.a = 0;
    i.b = Src::Reg(if uses.b { 2 } else { 0 });
    // Only CAS names a third operand (the decoder rejects it elsewhere).
    i.c = if uses.c && x.m == crate::golden::isa::AtomOp::Cas as u8 {
        4
    } else {
        0
    };
    i.e = if uses.e { x.e } else { 0 };
    let nregs = 8;
    let dec = decode(&i, nregs).map_err(|r| (None, r.to_string()))?;
    let mut regs = vec![[0u32; 32]; nregs + 4];
    regs[0] = x.a;
    for l in 0..32 {
        regs[2][l] = x.b[l] as u32;
        regs[3][l] = (x.b[l] >> 32) as u32;
    }
    regs[4] = x.c;
    let mut w = Warp {
        regs,
        preds: [0, 0, 0, 0, FULL],
        pc: 0,
        active: x.mask,
        live: FULL,
        stack: vec![],
        waiting: false,
        arrived: 0,
        done: false,
        clock: 0,
        tid: [[0; 32]; 3],
        index: 0,
    };
    let ctx = Ctx {
        params: params.to_vec(),
        block: [32, 1, 1],
        grid: [1, 1],
        cta_xy: [0, 0],
        tesla_fp: false,
        lacks: 0,
        preset: String::new(),
        code_len: 1,
        stack_depth: MAX_STACK,
    };
    let mut s = Scratch {
        addrs: [0; 32],
        vals: [0; 32],
        new: [0; 32],
    };
    exec(&dec, &mut w, gmem, shared, &ctx, &mut s).map_err(|f| (f.lane, f.reason.to_string()))?;
    let mut out = [0u64; 32];
    for (l, o) in out.iter_mut().enumerate() {
        if x.mask >> l & 1 == 1 {
            *o = w.regs[6][l] as u64 | (w.regs[7][l] as u64) << 32;
        }
    }
    Ok(out)
}
