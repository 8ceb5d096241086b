//! The SIMT lock-step checker: the golden model ([`Golden`]) stepped warp
//! by warp as the RTL SM issues, compared at issue and at write-back.
//!
//! * Every issue steps the golden model's warp of the same CTA
//!   (`Golden::step_cta_warp`) and compares pc and lanes (and the
//!   predicate PSETP writes at issue); the golden record of an instruction
//!   that writes back is kept until the SM retires it, where the lanes and
//!   values are compared bit for bit. Control instructions complete at
//!   issue.
//! * The golden model executes a warp instruction when the RTL issues it,
//!   the RTL memory instruction executes later in its LSU; kernels whose
//!   result depends on the interleaving of unsynchronised accesses of
//!   different warps (data races, the order of global atomics) can differ
//!   there: the values an atomic returns are compared only where the
//!   kernel's semantics fixes them (docs/sm.md, "Lock-step checking").
//! * Values the kernel does not fix are taken from the RTL instead of
//!   compared ([`adopted_lanes`]): `S2R SR_CLOCK` (core cycles in the SM,
//!   the warp's instruction count in the golden model) and shared-memory
//!   reads of words their CTA never wrote (undefined at CTA start; counted
//!   and listed in the report, an error with `--strict-init`). The golden
//!   model gets the RTL's value at write-back, so what the kernel computes
//!   from it is still checked.
//! * An error of the golden model at an instruction the RTL issued stops
//!   the checking; the RTL has to raise its own error within
//!   [`GOLDEN_ERR_GRACE`] core cycles.

use super::check::{Checker, Issue, Outstanding, Retire};
use super::gctokens::GcTokens;
use super::report::RtlReport;
use crate::config::SmConfig;
use crate::golden::isa::{Op, Program, Sreg, RZ};
use crate::golden::model::{Golden, Launch, Reason, Retired, Write};

/// Core cycles the RTL has to raise its error after the golden model
/// stopped with one at an instruction the RTL issued (the error shows when
/// the unit executes it: the LSU after its memory accesses, so this
/// covers a global-memory round trip and a full LSU queue).
pub const GOLDEN_ERR_GRACE: u64 = 20_000;

/// An instruction issued and not yet retired: the golden record.
struct Pending {
    write: Option<Write>,
    active: u32,
    /// Lanes whose values are taken from the RTL ([`adopted_lanes`]).
    adopt: u32,
    op: Op,
}

/// Lanes of `r` whose values the checker takes from the RTL at write-back
/// instead of comparing them: those that read a shared word their CTA never
/// wrote ([`Retired::undef`]), and every lane of `S2R SR_CLOCK`, which
/// counts core cycles in the SM and the warp's instructions in the golden
/// model (docs/isa.md).
fn adopted_lanes(r: &Retired) -> u32 {
    let clock = r.instr.op == Op::S2r && Sreg::from_bits(r.instr.e) == Some(Sreg::Clock);
    r.undef | if clock { r.active } else { 0 }
}

/// Hand the RTL's values of the adopted lanes of `p` ([`adopted_lanes`])
/// to warp `wic` of CTA `cta` in the golden model (`lo`, `hi`: the
/// write-back's low and high words per lane).
fn adopt_rtl_values(
    golden: &mut Golden,
    cta: u32,
    wic: usize,
    p: &Pending,
    lo: &dyn Fn(usize) -> u32,
    hi: &dyn Fn(usize) -> u32,
) {
    for l in (0..32).filter(|l| (p.adopt & p.active) >> l & 1 == 1) {
        match &p.write {
            Some(Write::Reg { reg, .. }) => {
                golden.set_cta_reg(cta, wic, *reg, l, lo(l));
            }
            Some(Write::Atom { reg, .. }) if *reg != RZ => {
                golden.set_cta_reg(cta, wic, *reg, l, lo(l));
            }
            Some(Write::RegPair { reg, .. }) => {
                golden.set_cta_reg(cta, wic, *reg, l, lo(l));
                golden.set_cta_reg(cta, wic, *reg + 1, l, hi(l));
            }
            _ => {}
        }
    }
}

/// The golden model in lock-step with the SM.
pub struct SimtChecker {
    golden: Golden,
    pend: Outstanding<Pending>,
    /// The golden model's error at an instruction the RTL issued (cycle,
    /// warp slot, pc, message); nothing is compared from there on.
    stop: Option<(u64, u64, u32, String)>,
    /// The golden tokens of the `GCRUN` running (GPU-CC configs).
    gc: Option<GcTokens>,
    /// A planted fault ([`SimtChecker::plant_gc_token_fault`]).
    gc_fault: Option<(usize, usize)>,
}

impl SimtChecker {
    /// The golden model of `prog` with `launch` on `cfg` over `gmem_init`;
    /// a launch the golden model rejects is an error. With `strict_init`
    /// a shared-memory read of a word its CTA never wrote is an error.
    pub fn new(
        cfg: &SmConfig,
        prog: &Program,
        launch: &Launch,
        gmem_init: Vec<u8>,
        strict_init: bool,
    ) -> Result<SimtChecker, String> {
        let mut golden = Golden::new(cfg, prog, launch, gmem_init).map_err(|e| format!("launch rejected: {e}"))?;
        golden.set_strict_init(strict_init);
        golden.keep_gpucc_tokens(cfg.gpucc.is_some());
        Ok(SimtChecker {
            golden,
            pend: Outstanding::default(),
            stop: None,
            gc: None,
            gc_fault: None,
        })
    }

    /// Flip bit 0 of golden token `k` of GPU-CC node `node` in every later
    /// `GCRUN`: a fault the token check must report (for its tests).
    pub fn plant_gc_token_fault(&mut self, node: usize, k: usize) {
        self.gc_fault = Some((node, k));
    }
}

impl Checker for SimtChecker {
    fn tick(&mut self, cycle: u64) -> Result<(), String> {
        match &self.stop {
            Some((c0, _, _, m)) if cycle > c0 + GOLDEN_ERR_GRACE => Err(format!(
                "divergence: the golden model stops at {m}, but the RTL raised no error within {GOLDEN_ERR_GRACE} core cycles"
            )),
            _ => Ok(()),
        }
    }

    fn issue(&mut self, ev: &Issue, rep: &mut RtlReport) -> Result<(), String> {
        let (w, pc, m) = (ev.slot, ev.pc, ev.lanes);
        let mut rec = Pending {
            write: None,
            active: m,
            adopt: 0,
            op: ev.op,
        };
        if self.stop.is_none() {
            let Some((cta, wic)) = ev.warp else {
                return Err(format!("warp slot {w} issued pc {pc} but was never started"));
            };
            let r = match self.golden.step_cta_warp(cta, wic) {
                Ok(r) => r,
                Err(e) if matches!(e.reason, Reason::UninitShared { .. }) => {
                    return Err(format!("{e} (--strict-init)"));
                }
                Err(e) => {
                    self.stop = Some((ev.cycle, w, pc, e.to_string()));
                    if !ev.at_issue {
                        self.pend.push(w, pc, rec);
                    }
                    return Ok(());
                }
            };
            if r.pc != pc || r.active != m {
                return Err(format!(
                    "divergence at issue: cta {cta} warp {wic} (slot {w}): RTL pc {pc} lanes {m:08x}, golden pc {} lanes {:08x} ({})",
                    r.pc,
                    r.active,
                    crate::golden::asm::format_instr(&r.instr, None)
                ));
            }
            // PSETP writes its predicate at issue: compare it here.
            if let (Op::Psetp, Some(Write::Pred { values, .. })) = (ev.op, &r.write) {
                let got = ev.psw & m;
                if got != values & m {
                    return Err(format!(
                        "divergence at issue: cta {cta} warp {wic} (slot {w}) pc {pc} PSETP: predicate lanes RTL {got:08x}, golden {:08x}",
                        values & m
                    ));
                }
            }
            rep.checked += 1;
            if ev.op == Op::Gcrun {
                if let Some(mut t) = self.golden.take_gpucc_tokens() {
                    if let Some((n, k)) = self.gc_fault {
                        if let Some(v) = t.get_mut(n).and_then(|v| v.get_mut(k)) {
                            *v ^= 1;
                        }
                    }
                    self.gc = Some(GcTokens::new(t));
                }
            }
            if r.undef != 0 {
                rep.uninit = self.golden.stats().uninit.clone();
            }
            rec.adopt = adopted_lanes(&r);
            rec.write = r.write;
            rec.active = r.active;
        }
        if !ev.at_issue {
            self.pend.push(w, pc, rec);
        }
        Ok(())
    }

    fn retire(&mut self, ev: &Retire) -> Result<(), String> {
        let (w, pc, kind, m) = (ev.slot, ev.pc, ev.kind, ev.lanes);
        // The runner matched the retire to an issue already.
        let Some(p) = self.pend.take(w, pc) else {
            return Ok(());
        };
        // Nothing is compared once the golden model has stopped.
        if self.stop.is_some() {
            return Ok(());
        }
        let place = match ev.warp {
            Some((c, k)) => format!("cta {c} warp {k} (slot {w}) pc {pc} {:?}", p.op),
            None => format!("slot {w} pc {pc}"),
        };
        let diff = |what: String| Some(format!("divergence at write-back, {place}: {what}"));
        let lo32 = |l: usize| ev.lo[l].to_u64() as u32;
        let hi32 = |l: usize| ev.hi[l].to_u64() as u32;
        // Lanes whose values are taken from the RTL are not compared.
        let cmp = p.active & !p.adopt;
        let first = |a: &dyn Fn(usize) -> bool| (0..32).find(|&l| cmp >> l & 1 == 1 && a(l));
        let err = match (&p.write, kind) {
            (_, _) if m != p.active && kind != 0 => diff(format!("lanes RTL {m:08x}, golden {:08x}", p.active)),
            (Some(Write::Reg { values, .. }), 1) => first(&|l| lo32(l) != values[l])
                .and_then(|l| diff(format!("lane {l}: RTL {:08x}, golden {:08x}", lo32(l), values[l]))),
            (Some(Write::RegPair { values, .. }), 2) => {
                first(&|l| (lo32(l) as u64 | (hi32(l) as u64) << 32) != values[l]).and_then(|l| {
                    diff(format!(
                        "lane {l}: RTL {:08x}{:08x}, golden {:016x}",
                        hi32(l),
                        lo32(l),
                        values[l]
                    ))
                })
            }
            (Some(Write::Pred { values, .. }), 3) => {
                let got = ev.pred & m;
                (got != values & m).then(|| {
                    format!(
                        "divergence at write-back, {place}: predicate lanes RTL {got:08x}, golden {:08x}",
                        values & m
                    )
                })
            }
            (Some(Write::Atom { old, reg, .. }), 1) if *reg != RZ => first(&|l| lo32(l) != old[l]).and_then(|l| {
                diff(format!(
                    "atomic old value lane {l}: RTL {:08x}, golden {:08x}",
                    lo32(l),
                    old[l]
                ))
            }),
            (Some(Write::Mem { .. } | Write::MemPair { .. } | Write::Atom { .. }), 0) | (None, 0) => None,
            (w, k) => diff(format!("RTL wrote kind {k}, golden expected {w:?}")),
        };
        if let Some(e) = err {
            return Err(e);
        }
        // The golden model takes the RTL's values of these lanes, so
        // what the kernel computes from them is checked from here on.
        if let Some((cta, wic)) = ev.warp.filter(|_| p.adopt != 0) {
            adopt_rtl_values(&mut self.golden, cta, wic, &p, &lo32, &hi32);
        }
        Ok(())
    }

    fn gc_token(&mut self, node: usize, value: u32, rep: &mut RtlReport) -> Result<(), String> {
        if self.stop.is_some() {
            return Ok(());
        }
        match self.gc.as_mut() {
            Some(t) => {
                t.token(node, value)?;
                rep.gc_tokens_checked += 1;
                Ok(())
            }
            None => Err(format!(
                "GPU-CC: {} drove a token outside a GCRUN the golden model ran",
                crate::golden::gpucc::node_name(node)
            )),
        }
    }

    fn gc_end(&mut self) -> Result<(), String> {
        match self.gc.take() {
            Some(t) if self.stop.is_none() => t.end(),
            _ => Ok(()),
        }
    }

    fn sm_error_note(&self, slot: u64, pc: u64) -> String {
        match &self.stop {
            Some((_, gw, gpc, m)) if *gw == slot && *gpc as u64 == pc => {
                format!("; the golden model stops there too: {m}")
            }
            Some((_, _, _, m)) => format!("; divergence: the golden model stopped first, at {m}"),
            None => String::new(),
        }
    }

    fn budget_note(&self) -> String {
        match &self.stop {
            Some((_, _, _, m)) => format!("; the golden model had stopped at {m}"),
            None => String::new(),
        }
    }

    fn finish(&mut self, gmem: &[u8]) -> Result<(), String> {
        if let Some((_, _, _, m)) = &self.stop {
            return Err(format!(
                "divergence: the golden model stops at {m}, but the RTL finished the grid without an error"
            ));
        }
        if let Some((w, pc)) = self.pend.first() {
            return Err(format!("the grid finished with warp slot {w} pc {pc} never retired"));
        }
        if !self.golden.all_done() {
            return Err("the RTL SM finished but the golden model has CTAs left".into());
        }
        if self.golden.gmem() != gmem {
            let k = self
                .golden
                .gmem()
                .iter()
                .zip(gmem)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(format!(
                "final global memory differs from the golden model's first at byte {k:#x}"
            ));
        }
        Ok(())
    }
}
