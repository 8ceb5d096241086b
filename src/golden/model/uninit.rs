//! Shared memory read before it is written: the CTA's written words and the
//! reads of the others.
//!
//! Shared memory is undefined at a CTA's start on the GPU (CUDA leaves it
//! so; the RTL SM keeps what the previous CTA in that window left). The
//! golden model starts it at zero, so a kernel that reads a word before its
//! CTA wrote it has no defined result. Both modes of the model (one CTA at a
//! time, [`Golden::run`]/[`Golden::step`], and the multi-CTA mode of the
//! lock-step checker, [`Golden::step_cta_warp`]) track, per CTA, which
//! shared words it has written, through [`Golden::track_shared`] after every
//! `LDS`, `STS` and `ATOMS`:
//!
//! * `STS` (and `STS.64`) writes its words;
//! * `LDS` (and `LDS.64`) reads its words: a lane reading a word (or either
//!   word of a pair) the CTA never wrote is an uninitialized read;
//! * `ATOMS` reads its word (the old value) and writes what it computed from
//!   it: on a never-written word both are undefined, so the read counts and
//!   the word stays never-written.
//!
//! Each such warp instruction sets [`Retired::undef`] on its lanes, and is
//! counted in [`Stats::uninit`] with the first few kept in full (CTA, warp,
//! first lane, pc, source line, address). With
//! [`Golden::set_strict_init`] the first one is an error
//! ([`Reason::UninitShared`]) instead.
//!
//! [`Retired::undef`]: super::Retired::undef
//! [`Stats::uninit`]: super::Stats::uninit

use super::exec::{for_lanes, Dec};
use super::report::{Reason, RunError};
use super::Golden;
use crate::golden::isa::Op;
use std::fmt::Write as _;

/// Warp instructions [`UninitReads`] keeps in full.
pub const UNINIT_KEPT: usize = 5;

/// One bit per shared-memory word of a CTA: written by it.
#[derive(Debug, Clone)]
pub(super) struct Written(Vec<u64>);

impl Written {
    /// Nothing written, for `shared_bytes` of shared memory.
    pub(super) fn new(shared_bytes: u32) -> Written {
        Written(vec![0; (shared_bytes as usize / 4).div_ceil(64)])
    }

    /// A CTA start: nothing written.
    pub(super) fn clear(&mut self) {
        self.0.fill(0);
    }

    fn mark(&mut self, word: usize) {
        if let Some(b) = self.0.get_mut(word / 64) {
            *b |= 1 << (word % 64);
        }
    }

    fn has(&self, word: usize) -> bool {
        self.0.get(word / 64).is_some_and(|b| b >> (word % 64) & 1 == 1)
    }
}

/// The reads of never-written shared words in a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UninitReads {
    /// Lanes that read such a word (each lane of each warp instruction).
    pub lanes: u64,
    /// Warp instructions with at least one such lane.
    pub instrs: u64,
    /// The first [`UNINIT_KEPT`] of those warp instructions, in the order
    /// they executed: the place (first such lane) and
    /// [`Reason::UninitShared`].
    pub first: Vec<RunError>,
}

impl UninitReads {
    /// The warning: the counts, `note` (what the model did with the
    /// values), the kept instructions one per line and how many more.
    /// Empty when there was no such read.
    pub fn render(&self, note: &str) -> String {
        let mut s = String::new();
        if self.lanes == 0 {
            return s;
        }
        let _ = writeln!(
            s,
            "warning: {} lanes in {} warp instructions read shared-memory words their CTA never wrote ({note}):",
            self.lanes, self.instrs
        );
        for e in &self.first {
            let _ = writeln!(s, "  {e}");
        }
        let more = self.instrs - self.first.len() as u64;
        if more > 0 {
            let _ = writeln!(s, "  ... and {more} more warp instructions");
        }
        s
    }
}

/// The byte addresses of an `LDS`, `STS` or `ATOMS` per lane, from warp
/// registers `regs` before it executes (its destination may be its address
/// register); `None` for every other instruction.
#[inline(always)]
pub(super) fn shared_addrs(dec: &Dec, regs: &[[u32; 32]]) -> Option<[u32; 32]> {
    match dec.op {
        Op::Lds | Op::Sts | Op::Atoms => {
            let a = &regs[dec.a as usize];
            Some(std::array::from_fn(|l| a[l].wrapping_add(dec.off as u32)))
        }
        _ => None,
    }
}

impl Golden {
    /// Record what the shared-memory instruction `dec` at `pc` of warp `wi`
    /// did on lanes `mask` at byte addresses `addrs` (checked: it executed):
    /// mark written words, find the lanes that read never-written words,
    /// count and keep them. Returns those lanes, or with
    /// [`Golden::set_strict_init`] the error for the first.
    pub(super) fn track_shared(
        &mut self,
        wi: usize,
        pc: u32,
        dec: &Dec,
        addrs: &[u32; 32],
        mask: u32,
    ) -> Result<u32, RunError> {
        let words = if dec.op != Op::Atoms && dec.m & 1 != 0 { 2 } else { 1 };
        if dec.op == Op::Sts {
            for_lanes(mask, |l| {
                for k in 0..words {
                    self.written.mark(addrs[l] as usize / 4 + k);
                }
            });
            return Ok(0);
        }
        let mut undef = 0u32;
        for_lanes(mask, |l| {
            if !(0..words).all(|k| self.written.has(addrs[l] as usize / 4 + k)) {
                undef |= 1 << l;
            }
        });
        if undef == 0 {
            return Ok(0);
        }
        let lane = undef.trailing_zeros();
        let e = RunError {
            place: self.place(wi, Some(lane), pc),
            reason: Reason::UninitShared {
                op: dec.op.info().mnemonic,
                addr: addrs[lane as usize],
                lanes: undef.count_ones(),
            },
        };
        if self.strict_init {
            return Err(e);
        }
        let log = &mut self.stats.uninit;
        log.lanes += undef.count_ones() as u64;
        log.instrs += 1;
        if log.first.len() < UNINIT_KEPT {
            log.first.push(e);
        }
        Ok(undef)
    }

    /// Make the first read of a shared-memory word the CTA never wrote an
    /// error ([`Reason::UninitShared`], the run stops there) instead of a
    /// counted warning.
    pub fn set_strict_init(&mut self, on: bool) {
        self.strict_init = on;
    }
}
