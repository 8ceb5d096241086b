//! Warp state and the SIMT reconvergence stack: per warp a pc, an active
//! mask, the live (not exited) lanes, the barrier state, and a stack of
//! (kind, mask, pc) entries built by `SSY` and divergent `BRA` and popped by
//! `SYNC` and by `EXIT` / an emptied active mask. The stack holds at most
//! `SmConfig::simt_stack_depth` entries (overflow is an error naming the
//! warp and pc). The control instructions' semantics live here, beside the
//! state they change; `exec` dispatches to them.

use super::report::{Fault, Reason};
use super::Ctx;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Sync,
    Div,
}

#[derive(Debug, Clone, Copy)]
pub(super) struct Entry {
    pub(super) kind: Kind,
    pub(super) mask: u32,
    pub(super) pc: u32,
}

#[derive(Debug, Clone)]
pub(super) struct Warp {
    /// `regs` rows, then two zero rows (RZ reads, pairs too), then two sink
    /// rows (RZ writes).
    pub(super) regs: Vec<[u32; 32]>,
    /// P0..P3 bit masks, then PT (all ones).
    pub(super) preds: [u32; 5],
    pub(super) pc: u32,
    pub(super) active: u32,
    /// Lanes that exist and have not exited.
    pub(super) live: u32,
    pub(super) stack: Vec<Entry>,
    pub(super) waiting: bool,
    pub(super) arrived: u32,
    pub(super) done: bool,
    pub(super) clock: u64,
    /// Thread index (x, y, z) per lane.
    pub(super) tid: [[u32; 32]; 3],
    /// Warp index in the CTA.
    pub(super) index: u32,
}

/// Push onto the reconvergence stack.
#[inline(always)]
pub(super) fn push(w: &mut Warp, e: Entry, depth: usize) -> Result<(), Fault> {
    if w.stack.len() >= depth {
        return Err(Reason::StackOverflow { max: depth }.into());
    }
    w.stack.push(e);
    Ok(())
}

/// The active mask became empty: resume the topmost stack entry that
/// still has lanes, or finish the warp.
pub(super) fn resume(w: &mut Warp) {
    while let Some(e) = w.stack.pop() {
        if e.mask != 0 {
            w.active = e.mask;
            w.pc = e.pc;
            return;
        }
    }
    w.active = 0;
    w.done = true;
}

/// Check a branch or `SSY` target against the code length.
fn check_target(t: u32, ctx: &Ctx) -> Result<(), Fault> {
    if t >= ctx.code_len {
        return Err(Reason::BranchOutOfCode {
            target: t,
            len: ctx.code_len as usize,
        }
        .into());
    }
    Ok(())
}

/// `BRA t` at `pc` (the warp's pc already points past it) taken by the
/// lanes `mask` (active and guard true): uniform when all active lanes
/// take it, divergent otherwise (the not-taken lanes are pushed as a DIV
/// entry resuming at `pc + 1`); no lane taking it falls through. Returns
/// the lanes that executed.
pub(super) fn bra(w: &mut Warp, mask: u32, pc: u32, t: u32, ctx: &Ctx) -> Result<u32, Fault> {
    if mask != 0 {
        check_target(t, ctx)?;
        if mask != w.active {
            push(
                w,
                Entry {
                    kind: Kind::Div,
                    mask: w.active & !mask,
                    pc: pc + 1,
                },
                ctx.stack_depth,
            )?;
            w.active = mask;
        }
        w.pc = t;
    }
    Ok(mask)
}

/// `SSY t`: push a SYNC entry (the whole active mask, reconverging at
/// `t`). Acts on the whole warp.
pub(super) fn ssy(w: &mut Warp, t: u32, ctx: &Ctx) -> Result<u32, Fault> {
    check_target(t, ctx)?;
    push(
        w,
        Entry {
            kind: Kind::Sync,
            mask: w.active,
            pc: t,
        },
        ctx.stack_depth,
    )?;
    Ok(w.active)
}

/// `SYNC`: pop the top entry and continue with its lanes at its pc (an
/// entry whose lanes all exited pops on to the next one). Acts on the
/// whole warp; an empty stack is an error.
pub(super) fn sync(w: &mut Warp) -> Result<u32, Fault> {
    let executed = w.active;
    match w.stack.pop() {
        None => return Err(Reason::SyncEmptyStack.into()),
        Some(e) => {
            let _ = e.kind;
            if e.mask != 0 {
                w.active = e.mask;
                w.pc = e.pc;
            } else {
                resume(w);
            }
        }
    }
    Ok(executed)
}

/// `BAR`: the warp waits with its active lanes arrived (the CTA's barrier
/// release and deadlock check are in `launch`).
pub(super) fn bar(w: &mut Warp) -> Result<u32, Fault> {
    w.waiting = true;
    w.arrived = w.active;
    Ok(w.active)
}

/// `EXIT` by the lanes `mask`: they leave the warp (and every stack
/// entry); an emptied active mask resumes the stack or ends the warp.
pub(super) fn exit(w: &mut Warp, mask: u32) -> Result<u32, Fault> {
    if mask != 0 {
        w.live &= !mask;
        w.active &= !mask;
        for e in w.stack.iter_mut() {
            e.mask &= !mask;
        }
        if w.active == 0 {
            resume(w);
        }
    }
    Ok(mask)
}
