//! The checker interface of the RTL runner: what the runner hands a
//! reference model about the SM's issues and write-backs, and what it asks
//! it at the places where a run can stop. The SIMT lock-step checker
//! ([`super::simt::SimtChecker`]) is one implementation, [`NoCheck`]
//! (`--no-check`) another; a checker of another execution mode plugs in
//! beside them through [`super::run_checked`].

use super::report::RtlReport;
use crate::golden::isa::Op;
use crate::hdl::Bits;
use std::collections::{BTreeMap, VecDeque};

/// A warp instruction issued on `iss<s>_*`.
#[derive(Debug, Clone)]
pub struct Issue {
    pub cycle: u64,
    /// RTL warp slot.
    pub slot: u64,
    /// (CTA linear id, warp in the CTA) of the slot, from the warp starts.
    pub warp: Option<(u32, usize)>,
    pub pc: u32,
    /// Active lanes.
    pub lanes: u32,
    /// Predicate lanes a PSETP writes at issue (`iss<s>_psw_o`).
    pub psw: u32,
    pub op: Op,
    /// A control instruction: it completes at issue and never retires.
    pub at_issue: bool,
}

/// An instruction retired on `ret<w>_*`.
#[derive(Debug, Clone)]
pub struct Retire<'a> {
    /// RTL warp slot.
    pub slot: u64,
    /// (CTA linear id, warp in the CTA) of the slot.
    pub warp: Option<(u32, usize)>,
    pub pc: u32,
    /// What it writes: 0 nothing, 1 a register, 2 a register pair, 3 a
    /// predicate.
    pub kind: u64,
    /// Lanes written.
    pub lanes: u32,
    /// Predicate lanes (`ret_pred_o`).
    pub pred: u32,
    /// Low and high words per lane.
    pub lo: &'a [Bits<32>; 32],
    pub hi: &'a [Bits<32>; 32],
}

/// A reference the run is checked against. Every method's `Err` stops the
/// run with that message at the current core cycle.
pub trait Checker {
    /// The start of core cycle `cycle`.
    fn tick(&mut self, _cycle: u64) -> Result<(), String> {
        Ok(())
    }
    /// An issue (the checker counts what it checked in `rep`).
    fn issue(&mut self, ev: &Issue, rep: &mut RtlReport) -> Result<(), String>;
    /// A write-back of an instruction the runner saw issued.
    fn retire(&mut self, ev: &Retire) -> Result<(), String>;
    /// What the reference says about the SM's error at warp slot `slot`,
    /// pc `pc`, appended to the error's message.
    fn sm_error_note(&self, _slot: u64, _pc: u64) -> String {
        String::new()
    }
    /// What the reference says when the cycle budget runs out, appended to
    /// the error's message.
    fn budget_note(&self) -> String {
        String::new()
    }
    /// GPU-CC node `node` drove `value` on its lane (each node's tokens
    /// in order; `rep` counts the tokens checked).
    fn gc_token(&mut self, _node: usize, _value: u32, _rep: &mut RtlReport) -> Result<(), String> {
        Ok(())
    }
    /// GPU-CC mode ended (the network done and drained).
    fn gc_end(&mut self) -> Result<(), String> {
        Ok(())
    }
    /// The SM finished the grid with the final global memory `gmem`.
    fn finish(&mut self, _gmem: &[u8]) -> Result<(), String> {
        Ok(())
    }
}

/// The checker of `--no-check`: it checks nothing.
pub struct NoCheck;

impl Checker for NoCheck {
    fn issue(&mut self, _ev: &Issue, _rep: &mut RtlReport) -> Result<(), String> {
        Ok(())
    }
    fn retire(&mut self, _ev: &Retire) -> Result<(), String> {
        Ok(())
    }
}

/// Instructions issued and not yet retired, per warp slot in issue order,
/// each with its pc and a record `T`.
pub struct Outstanding<T> {
    slots: BTreeMap<u64, VecDeque<(u32, T)>>,
}

impl<T> Default for Outstanding<T> {
    fn default() -> Self {
        Outstanding { slots: BTreeMap::new() }
    }
}

impl<T> Outstanding<T> {
    /// Slot `slot` issued `pc`.
    pub fn push(&mut self, slot: u64, pc: u32, rec: T) {
        self.slots.entry(slot).or_default().push_back((pc, rec));
    }

    /// Slot `slot` retired `pc`: the oldest such record, `None` when the
    /// slot has no such instruction outstanding.
    pub fn take(&mut self, slot: u64, pc: u32) -> Option<T> {
        let q = self.slots.get_mut(&slot)?;
        let k = q.iter().position(|(p, _)| *p == pc)?;
        q.remove(k).map(|(_, r)| r)
    }

    /// The lowest slot with an instruction outstanding and its oldest pc.
    pub fn first(&self) -> Option<(u64, u32)> {
        self.slots.iter().find_map(|(s, q)| q.front().map(|(pc, _)| (*s, *pc)))
    }
}
