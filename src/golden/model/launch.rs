//! Launch and CTAs: checking a launch against the [`SmConfig`] limits and
//! the program, setting up the CTA's warps (thread indices per lane, the
//! last warp partial), running the grid's CTAs one after the other in
//! linear order, the per-CTA barrier (release when every live thread has
//! arrived, deadlock otherwise), and the command-line launch parameters.

use super::exec::decode;
use super::memory::Scratch;
use super::report::{ClassCount, Place, Reason, RunError, Stats};
use super::warp::Warp;
use super::{Ctx, Golden, DEFAULT_BUDGET, FULL, WARP};
use crate::config::{MulAdd, SmConfig};
use crate::golden::isa::{Program, MAX_REGS};
use std::collections::{BTreeMap, BTreeSet};

/// What a kernel launch names: grid and block dimensions and the
/// parameter words (one per `.param`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// CTAs in x and y.
    pub grid: [u32; 2],
    /// Threads per CTA in x, y and z.
    pub block: [u32; 3],
    pub params: Vec<u32>,
}

impl Golden {
    /// Check the launch against the config and the program, decode the
    /// program, and set up CTA 0. `gmem` is the initial global memory.
    pub fn new(cfg: &SmConfig, prog: &Program, launch: &Launch, gmem: Vec<u8>) -> Result<Golden, RunError> {
        let err = |r| Err(RunError::launch(r));
        if cfg.warp_size as usize != WARP {
            return err(Reason::WarpSize(cfg.warp_size));
        }
        for (what, v) in [
            ("grid x", launch.grid[0]),
            ("grid y", launch.grid[1]),
            ("block x", launch.block[0]),
            ("block y", launch.block[1]),
            ("block z", launch.block[2]),
        ] {
            if v == 0 {
                return err(Reason::EmptyLaunch { what });
            }
        }
        let ctas = launch.grid[0] as u64 * launch.grid[1] as u64;
        if ctas > u32::MAX as u64 {
            return err(Reason::TooManyCtas { ctas });
        }
        let threads = launch.block.iter().map(|&v| v as u64).product::<u64>();
        check_fits(cfg, prog, threads).map_err(RunError::launch)?;
        let warps = threads.div_ceil(WARP as u64);
        if prog.params.len() != launch.params.len() {
            return err(Reason::ParamCount {
                declared: prog.params.len(),
                given: launch.params.len(),
            });
        }
        let nregs = prog.regs as usize;
        let mut code = Vec::with_capacity(prog.code.len());
        for (pc, i) in prog.code.iter().enumerate() {
            let at = |reason| RunError {
                place: Place {
                    pc: Some(pc as u32),
                    line: prog.src_lines.get(pc).copied(),
                    ..Place::default()
                },
                reason,
            };
            code.push(decode(i, nregs).map_err(at)?);
        }
        let threads = threads as u32;
        let nwarps = warps as usize;
        let mut g = Golden {
            prog: prog.clone(),
            code,
            ctx: Ctx {
                params: launch.params.clone(),
                block: launch.block,
                grid: launch.grid,
                cta_xy: [0, 0],
                tesla_fp: cfg.mul_add == MulAdd::Fmad,
                lacks: super::lacks_mask(cfg),
                preset: cfg.name.clone(),
                code_len: prog.code.len() as u32,
                stack_depth: cfg.simt_stack_depth as usize,
            },
            gmem,
            shared: vec![0; prog.shared_bytes as usize],
            written: super::uninit::Written::new(prog.shared_bytes),
            strict_init: false,
            undef: 0,
            warps: (0..nwarps)
                .map(|w| Warp {
                    regs: vec![[0; 32]; nregs + 4],
                    preds: [0, 0, 0, 0, FULL],
                    pc: 0,
                    active: 0,
                    live: 0,
                    stack: Vec::with_capacity(cfg.simt_stack_depth as usize),
                    waiting: false,
                    arrived: 0,
                    done: false,
                    clock: 0,
                    tid: tids(w, launch.block),
                    index: w as u32,
                })
                .collect(),
            threads,
            cur_cta: 0,
            ncta: launch.grid[0] * launch.grid[1],
            next_warp: 0,
            finished: false,
            budget: DEFAULT_BUDGET,
            counts: [ClassCount::default(); 9],
            issued: 0,
            stats: Stats::default(),
            scratch: Scratch {
                addrs: [0; 32],
                vals: [0; 32],
                new: [0; 32],
            },
            multi: false,
            resident: BTreeMap::new(),
            retired_ctas: BTreeSet::new(),
            fresh: Vec::new(),
            gpucc: super::gpucc::GpuccState::new(cfg),
        };
        g.start_cta();
        g.fresh = g.warps.clone();
        Ok(g)
    }

    /// Reset warps and shared memory for CTA `cur_cta`.
    pub(super) fn start_cta(&mut self) {
        let c = self.cur_cta;
        self.ctx.cta_xy = [c % self.ctx.grid[0], c / self.ctx.grid[0]];
        self.shared.fill(0);
        self.written.clear();
        self.next_warp = 0;
        let nw = self.warps.len();
        for (w, warp) in self.warps.iter_mut().enumerate() {
            for r in warp.regs.iter_mut() {
                *r = [0; 32];
            }
            warp.preds = [0, 0, 0, 0, FULL];
            warp.pc = 0;
            let lanes = if w + 1 == nw {
                self.threads - (w as u32) * WARP as u32
            } else {
                WARP as u32
            };
            let m = if lanes >= 32 { FULL } else { (1u32 << lanes) - 1 };
            warp.active = m;
            warp.live = m;
            warp.stack.clear();
            warp.waiting = false;
            warp.arrived = 0;
            warp.done = false;
            warp.clock = 0;
        }
    }

    /// The next warp to run (round robin), advancing CTAs and releasing
    /// barriers as needed; `None` when the grid is done.
    pub(super) fn pick(&mut self) -> Result<Option<usize>, RunError> {
        loop {
            if self.finished {
                return Ok(None);
            }
            let n = self.warps.len();
            let mut i = self.next_warp;
            for _ in 0..n {
                let w = &self.warps[i];
                if !w.done && !w.waiting {
                    self.next_warp = if i + 1 == n { 0 } else { i + 1 };
                    return Ok(Some(i));
                }
                i = if i + 1 == n { 0 } else { i + 1 };
            }
            // Nobody can run: the CTA is done, or every live warp waits.
            if self.warps.iter().all(|w| w.done) {
                self.stats.ctas += 1;
                self.cur_cta += 1;
                if self.cur_cta >= self.ncta {
                    self.finished = true;
                    return Ok(None);
                }
                self.start_cta();
                continue;
            }
            if let Some((wi, w)) = self
                .warps
                .iter()
                .enumerate()
                .find(|(_, w)| !w.done && w.arrived != w.live)
            {
                let reason = Reason::Deadlock {
                    arrived: w.arrived,
                    parked: w.live & !w.arrived,
                };
                return Err(RunError {
                    place: self.place(wi, None, w.pc.wrapping_sub(1)),
                    reason,
                });
            }
            for w in self.warps.iter_mut() {
                w.waiting = false;
                w.arrived = 0;
            }
        }
    }
}

/// Thread indices of the lanes of warp `w`.
#[allow(clippy::needless_range_loop)]
pub(super) fn tids(w: usize, block: [u32; 3]) -> [[u32; 32]; 3] {
    let mut t = [[0; 32]; 3];
    for l in 0..WARP {
        let lin = (w * WARP + l) as u64;
        let (bx, by) = (block[0] as u64, block[1] as u64);
        t[0][l] = (lin % bx) as u32;
        t[1][l] = (lin / bx % by) as u32;
        t[2][l] = (lin / (bx * by)) as u32;
    }
    t
}

/// Run a whole launch with the default budget; returns the final global
/// memory and the counts.
pub fn run_kernel(
    cfg: &SmConfig,
    prog: &Program,
    launch: &Launch,
    gmem: Vec<u8>,
) -> Result<(Vec<u8>, Stats), RunError> {
    let mut g = Golden::new(cfg, prog, launch, gmem)?;
    let stats = g.run(DEFAULT_BUDGET)?;
    Ok((g.into_gmem(), stats))
}

/// Parse one `--param` value for `smrtl run`: a decimal integer (`-5`,
/// `4096`, signed or unsigned 32-bit), hexadecimal (`0x3f800000`), or an
/// FP32 value written with a `.`, an exponent or an `f` suffix (`1.5`,
/// `-2e-3`, `3f`, `inf`, `nan`), stored as its IEEE bits (rounded to
/// nearest). A decimal that FP32 cannot hold is an error rather than a
/// silent infinity or zero: one beyond the largest finite FP32, one that
/// would round to zero, and one in the subnormal range that is not exact
/// (write the bits in hex for those).
pub fn parse_param_value(text: &str) -> Result<u32, String> {
    let t = text.trim();
    let bad = || format!("parameter value `{text}` is not a 32-bit integer, 0x hex or an FP32 number (1.5, 2e3, 3f)");
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return u32::from_str_radix(h, 16).map_err(|_| bad());
    }
    if let Ok(v) = t.parse::<i64>() {
        if v < i32::MIN as i64 || v > u32::MAX as i64 {
            return Err(format!("parameter value `{text}` does not fit in 32 bits"));
        }
        return Ok(v as u32);
    }
    let lower = t.to_ascii_lowercase();
    let f = lower.strip_suffix('f').filter(|r| !r.ends_with("in")).unwrap_or(&lower);
    if f.contains(['.', 'e']) || f.ends_with("inf") || f.ends_with("nan") || lower.ends_with('f') {
        if let Ok(x) = f.parse::<f32>() {
            let named = f.contains("inf") || f.contains("nan");
            let mantissa = f.split('e').next().unwrap_or("");
            let nonzero = mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b));
            let wide = f.parse::<f64>().unwrap_or(f64::NAN);
            let hint = "write the FP32 bits in hex (0x...) for such a value";
            if x.is_infinite() && !named {
                return Err(format!(
                    "parameter value `{text}` overflows FP32 (largest finite 3.4028235e38); {hint}"
                ));
            }
            if x == 0.0 && nonzero {
                return Err(format!(
                    "parameter value `{text}` underflows FP32 to zero (smallest 1.4e-45); {hint}"
                ));
            }
            if x.is_subnormal() && x as f64 != wide {
                return Err(format!(
                    "parameter value `{text}` is not exact in FP32's subnormal range (nearest {x:e}); {hint}"
                ));
            }
            return Ok(x.to_bits());
        }
    }
    Err(bad())
}

/// Resolve `smrtl run --param` arguments against the kernel's `.param`
/// names: either all positional (`VALUE`, in declaration order) or all
/// named (`NAME=VALUE`, each declared name exactly once).
pub fn resolve_params(declared: &[String], args: &[String]) -> Result<Vec<u32>, String> {
    let named: Vec<Option<(&str, &str)>> = args.iter().map(|a| a.split_once('=')).collect();
    let n_named = named.iter().filter(|n| n.is_some()).count();
    if n_named == 0 {
        return args.iter().map(|a| parse_param_value(a)).collect();
    }
    if n_named != args.len() {
        return Err("mix of named (NAME=VALUE) and positional --param values; use one style".into());
    }
    let mut vals: Vec<Option<u32>> = vec![None; declared.len()];
    for (name, v) in named.into_iter().flatten() {
        let name = name.trim();
        let idx = declared.iter().position(|d| d == name).ok_or_else(|| {
            format!(
                "--param {name}: the kernel has no parameter `{name}` (it declares: {})",
                declared.join(", ")
            )
        })?;
        if vals[idx].is_some() {
            return Err(format!("--param {name} given twice"));
        }
        vals[idx] = Some(parse_param_value(v)?);
    }
    let missing: Vec<&str> = declared
        .iter()
        .zip(&vals)
        .filter(|(_, v)| v.is_none())
        .map(|(d, _)| d.as_str())
        .collect();
    if !missing.is_empty() {
        return Err(format!("missing --param for: {}", missing.join(", ")));
    }
    Ok(vals.into_iter().flatten().collect())
}

/// Parse a dimension list `X[,Y[,Z]]` with at most `max` numbers; missing
/// ones are 1.
pub fn parse_dims<const N: usize>(text: &str) -> Result<[u32; N], String> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.is_empty() || parts.len() > N {
        return Err(format!("`{text}`: expected 1 to {N} comma-separated numbers"));
    }
    let mut out = [1u32; N];
    for (i, p) in parts.iter().enumerate() {
        out[i] = p
            .trim()
            .parse::<u32>()
            .map_err(|_| format!("`{text}`: `{p}` is not a non-negative 32-bit number"))?;
    }
    Ok(out)
}

/// Whether a CTA of `threads` threads of `prog` fits the SM of `cfg`
/// (threads, registers per thread, the register file in whole warps,
/// shared memory): the launch's check, also used by `smrtl kernels` to
/// skip the cases a preset cannot hold.
pub fn check_fits(cfg: &SmConfig, prog: &Program, threads: u64) -> Result<(), Reason> {
    if threads > cfg.max_threads as u64 {
        return Err(Reason::TooManyThreads {
            threads,
            max: cfg.max_threads,
            config: cfg.name.clone(),
        });
    }
    if prog.regs == 0 || prog.regs > MAX_REGS as u32 {
        return Err(Reason::BadRegCount(prog.regs));
    }
    if prog.regs > cfg.max_regs_per_thread {
        return Err(Reason::TooManyRegs {
            regs: prog.regs,
            max: cfg.max_regs_per_thread,
            config: cfg.name.clone(),
        });
    }
    let warps = threads.div_ceil(WARP as u64);
    let need = prog.regs as u64 * warps * WARP as u64;
    if need > cfg.registers as u64 {
        return Err(Reason::RegFile {
            regs: prog.regs,
            threads: warps * WARP as u64,
            need,
            have: cfg.registers,
            config: cfg.name.clone(),
        });
    }
    if prog.shared_bytes > cfg.smem_bytes {
        return Err(Reason::TooMuchShared {
            bytes: prog.shared_bytes,
            max: cfg.smem_bytes,
            config: cfg.name.clone(),
        });
    }
    Ok(())
}
