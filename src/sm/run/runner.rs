//! The runner's core-cycle loop: the SM's inputs from the launch sequence
//! and the host memories, one core cycle of the simulation, then the
//! monitors (warp starts, issues, write-backs, errors, counters) handed to
//! the report and the checker; waves opened and closed on the way.

use super::check::{Checker, Issue, Outstanding, Retire};
use super::host::HostMem;
use super::launch::Launcher;
use super::report::RtlReport;
use super::{lanes, RtlOptions, SmSim};
use crate::config::SmConfig;
use crate::golden::isa::{Op, Program, Unit};
use crate::golden::model::Launch;
use crate::hdl::Concrete;
use crate::sm::top::{SmIn, SmOut, ERR_SOURCES};
use std::collections::BTreeMap;

/// Why the loop stopped: at core cycle `cycle` with `msg`; `close`: the
/// waves are closed and the engine is recorded in the report first.
pub(super) struct Stop {
    pub cycle: u64,
    pub msg: String,
    pub close: bool,
}

/// `Stop` at `cycle` after closing the waves.
fn stop(cycle: u64) -> impl Fn(String) -> Stop {
    move |msg| Stop {
        cycle,
        msg,
        close: true,
    }
}

/// Map RTL warp slots to (CTA, warp in CTA) from the warp starts: the CTA
/// launcher starts the CTAs of the grid in linear order and the warps of a
/// CTA in order.
#[derive(Default)]
struct WarpMap {
    /// Per CTA slot: (CTA linear id, warps started).
    slot: BTreeMap<u64, (u32, usize)>,
    next_cta: u32,
    warp: BTreeMap<u64, (u32, usize)>,
}

impl WarpMap {
    fn start(&mut self, warp: u64, slot: u64, per_cta: usize) -> (u32, usize) {
        let e = self.slot.entry(slot).or_insert((u32::MAX, per_cta));
        if e.1 >= per_cta {
            *e = (self.next_cta, 0);
            self.next_cta += 1;
        }
        let m = (e.0, e.1);
        e.1 += 1;
        self.warp.insert(warp, m);
        m
    }
}

/// A run in progress.
pub(super) struct Run<'a> {
    sim: &'a mut dyn SmSim,
    checker: &'a mut dyn Checker,
    cfg: &'a SmConfig,
    prog: &'a Program,
    opts: &'a RtlOptions,
    launcher: Launcher<'a>,
    pub host: HostMem,
    pub rep: RtlReport,
    map: WarpMap,
    /// Warps per CTA.
    per_cta: usize,
    /// Issued, not yet retired (the write-backs are matched to issues).
    issued: Outstanding<()>,
    vcd_open: bool,
    /// VCD time of the first issue in the waves (4 time units a core cycle).
    first_issue: Option<u64>,
    /// `gc_mode_o` of the cycle before.
    gc_mode: bool,
}

impl<'a> Run<'a> {
    pub fn new(
        sim: &'a mut dyn SmSim,
        checker: &'a mut dyn Checker,
        cfg: &'a SmConfig,
        prog: &'a Program,
        launch: &'a Launch,
        gmem_init: Vec<u8>,
        opts: &'a RtlOptions,
    ) -> Run<'a> {
        let threads = launch.block.iter().product::<u32>() as usize;
        let host = HostMem::new(cfg, prog, opts.gmem, gmem_init);
        let mut rep = RtlReport::new(cfg, prog);
        rep.gm_milli_bytes_per_cycle = host.gm_milli_bytes_per_cycle();
        Run {
            sim,
            checker,
            cfg,
            prog,
            opts,
            launcher: Launcher::new(prog, launch),
            host,
            rep,
            map: WarpMap::default(),
            per_cta: threads.div_ceil(32),
            issued: Outstanding::default(),
            vcd_open: false,
            first_issue: None,
            gc_mode: false,
        }
    }

    /// Record the engine in the report; close the waves if open and write
    /// the SM's save file beside the VCD.
    pub fn close(&mut self) {
        self.rep.engine = self.sim.engine();
        if self.vcd_open {
            let _ = self.sim.close_vcd();
            self.vcd_open = false;
            if let (Some(p), Some(d)) = (&self.opts.vcd, self.sim.design()) {
                if let Err(e) = crate::sm::waves::write_sm_gtkw(p, d, self.cfg, self.prog, self.first_issue) {
                    eprintln!("the SM's save file was not written: {e}");
                }
            }
        }
    }

    /// Open the waves at core cycle `cycle`.
    fn open_vcd(&mut self, cycle: u64) -> Result<(), Stop> {
        let opts = self.opts;
        if let Some(p) = &opts.vcd {
            if let Err(e) = self.sim.open_vcd(p) {
                return Err(Stop {
                    cycle,
                    msg: format!("cannot write {}: {e}", p.display()),
                    close: false,
                });
            }
            self.vcd_open = true;
        }
        Ok(())
    }

    /// Run until the grid finishes (then the checker's final checks) or
    /// something stops it.
    pub fn go(&mut self) -> Result<(), Stop> {
        let opts = self.opts;
        if opts.vcd_window.is_none() {
            self.open_vcd(0)?;
        }
        let mut cycle: u64 = 0;
        loop {
            if let Some((from, to)) = opts.vcd_window.filter(|_| opts.vcd.is_some()) {
                if cycle == from && !self.vcd_open {
                    self.open_vcd(cycle)?;
                }
                if cycle == to {
                    self.close();
                }
            }
            self.checker.tick(cycle).map_err(stop(cycle))?;
            if cycle >= opts.max_cycles {
                return Err(stop(cycle)(format!(
                    "error 11: cycle budget of {} core cycles exhausted (the kernel never finished); {} warp instructions issued{}",
                    opts.max_cycles,
                    self.rep.issued.iter().sum::<u64>(),
                    self.checker.budget_note()
                )));
            }
            if opts.progress > 0 && cycle > 0 && cycle.is_multiple_of(opts.progress) {
                eprintln!(
                    "  ... core cycle {cycle}, {} warp instructions",
                    self.rep.issued.iter().sum::<u64>()
                );
            }
            let mut i: SmIn<Concrete> = crate::hdl::sim::zero_ports();
            self.launcher.drive(cycle, &mut i);
            self.host.drive(&mut i);
            let o = self.sim.step_core(&i);
            if let Some(f) = self.sim.failure() {
                return Err(stop(cycle)(f));
            }
            self.launcher.edge(cycle, &i);
            // The memory's counters are taken before its error (if any)
            // stops the run, so the report keeps them.
            let edge = self.host.edge(&o);
            let before = self.rep.gm_port[1] + self.rep.gm_port[3];
            self.rep.gm_port = self.host.gm_traffic();
            if o.gc_mode_o.to_u64() == 1 {
                self.rep.gc_gm_bytes += self.rep.gm_port[1] + self.rep.gm_port[3] - before;
            }
            edge.map_err(stop(cycle))?;
            self.sm_error(cycle, &o)?;
            self.warp_starts(&o);
            self.gc_tokens(cycle, &o)?;
            self.issues(cycle, &o)?;
            self.retires(cycle, &o)?;
            self.rep.count(&o);
            cycle += 1;
            self.rep.core_cycles = cycle;
            if o.done_o.to_u64() == 1 && self.launcher.launched() {
                break;
            }
        }
        self.close();
        self.checker.finish(self.host.mem()).map_err(stop(cycle))
    }

    /// The SM raised an error (`err_o`): stop with its place and code and
    /// what the checker says about it.
    fn sm_error(&self, cycle: u64, o: &SmOut<Concrete>) -> Result<(), Stop> {
        if o.err_o.to_u64() == 0 {
            return Ok(());
        }
        let src = ERR_SOURCES.get(o.err_src_o.to_u64() as usize).copied().unwrap_or("?");
        let w = o.err_warp_o.to_u64();
        let place = match self.map.warp.get(&w) {
            Some((c, k)) => format!("cta {c} warp {k} (slot {w})"),
            None => format!("warp slot {w}"),
        };
        let epc = o.err_pc_o.to_u64();
        // The source line of the pc, when the program was assembled here.
        let line = match self.prog.src_lines.get(epc as usize) {
            Some(l) => format!(" (line {l})"),
            None => String::new(),
        };
        let gc = if src == "gpucc" && o.err_code_o.to_u64() != crate::codes::ERR_GC_LAUNCH {
            format!("\n{}", self.gc_state())
        } else {
            String::new()
        };
        Err(stop(cycle + 1)(format!(
            "error {} ({}) raised by {src}, {place}, pc {epc}{line}, info {:#x}{}{gc}",
            o.err_code_o.to_u64(),
            crate::sm::top::error_name(o.err_code_o.to_u64()),
            o.err_info_o.to_u64(),
            self.checker.sm_error_note(w, epc)
        )))
    }

    /// Every GPU-CC node that fired or stalled: firings, stall causes so
    /// far and (with a Rust model) its FIFO levels now.
    fn gc_state(&self) -> String {
        use crate::golden::gpucc::{is_lsu, node_name, CORES};
        let mut s =
            String::from("GPU-CC nodes (fired; hot cycles stalled on an empty input / on output space; FIFO levels):");
        for n in 0..self.rep.gc_node_fire.len() {
            let (f, si, so) = (
                self.rep.gc_node_fire[n],
                self.rep.gc_node_stall_in[n],
                self.rep.gc_node_stall_out[n],
            );
            if f + si + so == 0 {
                continue;
            }
            let (inst, fifos): (String, &[(&str, u64)]) = if is_lsu(n) {
                (
                    format!("u_gcnet.u_lsu{}", n - CORES),
                    &[("u_addr", 256), ("u_data", 16)],
                )
            } else {
                (
                    format!("u_gcnet.u_core{n}"),
                    &[("u_fifo0", 16), ("u_fifo1", 16), ("u_fifo2", 16)],
                )
            };
            let mut lv = Vec::new();
            for (k, (fname, depth)) in fifos.iter().enumerate() {
                let rd = |r: &str| self.sim.peek(&format!("{inst}.{fname}.{r}")).map(|w| w[0]);
                if let (Some(full), Some(wp), Some(rp)) = (rd("full"), rd("wr_ptr"), rd("rd_ptr")) {
                    let count = if full != 0 {
                        *depth
                    } else {
                        wp.wrapping_sub(rp) & (depth - 1)
                    };
                    lv.push(format!("F{k} {count}/{depth}"));
                }
            }
            let _ = std::fmt::Write::write_fmt(
                &mut s,
                format_args!(
                    "\n  {:<6} fired {f}; input empty {si}, output full {so}; [{}]",
                    node_name(n),
                    lv.join(", ")
                ),
            );
        }
        s
    }

    /// GPU-CC: the tokens the nodes drove in this core cycle's two hot
    /// cycles (the earlier first) to the checker, and the end of the mode.
    fn gc_tokens(&mut self, cycle: u64, o: &SmOut<Concrete>) -> Result<(), Stop> {
        if !self.rep.has_gc {
            return Ok(());
        }
        for n in 0..crate::golden::gpucc::NODES {
            let v = o.gc_tok_valid_o[n].to_u64();
            let t = o.gc_tok_o[n].to_u64();
            for h in 0..2 {
                if v >> h & 1 == 1 {
                    let value = (t >> (32 * h)) as u32;
                    if let Err(e) = self.checker.gc_token(n, value, &mut self.rep) {
                        let h = if h == 0 { "first" } else { "second" };
                        return Err(stop(cycle)(format!(
                            "{e} (in the {h} hot cycle of core cycle {cycle})\n{}",
                            self.gc_state()
                        )));
                    }
                }
            }
        }
        let mode = o.gc_mode_o.to_u64() == 1;
        if self.gc_mode && !mode {
            self.checker
                .gc_end()
                .map_err(|e| stop(cycle)(format!("{e}\n{}", self.gc_state())))?;
        }
        self.gc_mode = mode;
        Ok(())
    }

    /// The warp-start monitor (`st_*`).
    fn warp_starts(&mut self, o: &SmOut<Concrete>) {
        if o.st_valid_o.to_u64() == 1 {
            let slot = o.st_cta_o.to_u64();
            self.map.start(o.st_warp_o.to_u64(), slot, self.per_cta);
            // The launcher fills the lowest free CTA slot (src/units/cta), so
            // a CTA in slot k means slots 0..=k are all resident.
            self.rep.resident_ctas = self.rep.resident_ctas.max((slot + 1).min(self.map.next_cta as u64));
        }
    }

    /// The issue monitors (`iss<s>_*`).
    fn issues(&mut self, cycle: u64, o: &SmOut<Concrete>) -> Result<(), Stop> {
        for (s, (v, tag, mask, psw)) in [
            (&o.iss0_valid_o, &o.iss0_tag_o, &o.iss0_mask_o, &o.iss0_psw_o),
            (&o.iss1_valid_o, &o.iss1_tag_o, &o.iss1_mask_o, &o.iss1_psw_o),
        ]
        .into_iter()
        .enumerate()
        {
            if v.to_u64() == 0 {
                continue;
            }
            let tag = tag.to_u64();
            let (w, pc) = (tag & 63, (tag >> 16) as u32);
            let m = lanes(mask);
            if self.vcd_open && self.first_issue.is_none() {
                self.first_issue = Some(4 * cycle);
            }
            self.rep.issued[s] += 1;
            self.rep.thread_instrs += m.count_ones() as u64;
            let ins = self.prog.code.get(pc as usize);
            let op = ins.map(|x| x.op).unwrap_or(Op::Nop);
            if let Some((r, w)) = ins.map(|x| x.reg_words()) {
                self.rep.rf_reads += r as u64;
                self.rep.rf_writes += w as u64;
            }
            let at_issue = op.unit() == Unit::Ctrl && op != Op::S2r;
            let ev = Issue {
                cycle,
                slot: w,
                warp: self.map.warp.get(&w).copied(),
                pc,
                lanes: m,
                psw: psw.to_u64() as u32,
                op,
                at_issue,
            };
            self.checker.issue(&ev, &mut self.rep).map_err(stop(cycle))?;
            if !at_issue {
                self.issued.push(w, pc, ());
            }
        }
        Ok(())
    }

    /// The write-back monitors (`ret<w>_*`).
    fn retires(&mut self, cycle: u64, o: &SmOut<Concrete>) -> Result<(), Stop> {
        for (v, tag, mask, lo, hi) in [
            (
                &o.ret0_valid_o,
                &o.ret0_tag_o,
                &o.ret0_mask_o,
                &o.ret0_lo_o,
                &o.ret0_hi_o,
            ),
            (
                &o.ret1_valid_o,
                &o.ret1_tag_o,
                &o.ret1_mask_o,
                &o.ret1_lo_o,
                &o.ret1_hi_o,
            ),
        ] {
            if v.to_u64() == 0 {
                continue;
            }
            self.rep.retired += 1;
            let tag = tag.to_u64();
            let (w, pc, kind) = (tag & 63, (tag >> 16) as u32, (tag >> 14) & 3);
            if self.issued.take(w, pc).is_none() {
                return Err(stop(cycle)(format!(
                    "warp slot {w} retired pc {pc}, which it has not issued"
                )));
            }
            let ev = Retire {
                slot: w,
                warp: self.map.warp.get(&w).copied(),
                pc,
                kind,
                lanes: lanes(mask),
                pred: lanes(&o.ret_pred_o),
                lo,
                hi,
            };
            self.checker.retire(&ev).map_err(stop(cycle))?;
        }
        Ok(())
    }
}
