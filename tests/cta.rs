//! CTA launcher (`src/units/cta`): the million-cycle random lock-step
//! against `testbenches/cta_ref.rs` (ignored), a directed timing test that
//! pins the launch latency and the warp-start rate, and the occupancy table
//! of every benchmark kernel and shape on every preset: the launcher's
//! resident CTAs and warps against a figure computed here from the seeds'
//! limits alone (CTAs, warps, threads, registers with the occupancy
//! calculator's allocation unit, shared memory), which must also equal the
//! table in `docs/occupancy.md` (`SMRTL_BLESS=1` rewrites it).

use smrtl::golden::asm::assemble;
use smrtl::hdl::Sim;
use smrtl::sm::SmConfig;
use smrtl::testbenches::cta_ref::{CtaLaunch, CtaObs, CtaStim};
use smrtl::testbenches::cta_tb::{cta_random, from_out, to_in, CtaCheck};
use smrtl::testbenches::kernels::{all_kernels, Fp32};
use smrtl::units::cta::{Cta, CtaLimits};

#[test]
#[ignore]
fn million_random_cycles() {
    let g = cta_random::<32, 8, 1>(&SmConfig::preset("gt200").unwrap(), 11, 1_000_000).unwrap();
    let f = cta_random::<48, 8, 2>(&SmConfig::preset("fermi").unwrap(), 12, 1_000_000).unwrap();
    let t = cta_random::<16, 8, 1>(&SmConfig::preset("tesla").unwrap(), 13, 1_000_000).unwrap();
    for s in [g, f, t] {
        assert!(
            s.warps > 10_000 && s.errors > 100 && s.grids_done > 100 && s.s2r > 100_000,
            "{s:?}"
        );
    }
    eprintln!("cta: 3 x 1,000,000 core cycles, 0 mismatches\n  gt200 {g:?}\n  fermi {f:?}\n  tesla {t:?}");
}

/// Drive the launcher of `cfg` (checked against the reference every cycle)
/// with `launch` at cycle 0, every warp idle, no exit unless `exit` says
/// which warp leaves at which cycle; returns the observations of `cycles`
/// cycles.
fn drive<const MW: usize, const NC: usize, const NS: usize>(
    cfg: &SmConfig,
    launch: CtaLaunch,
    cycles: u64,
    exit: &[(u64, u32)],
) -> Vec<CtaObs> {
    let mut c = CtaCheck::<MW, NC, NS>::new(cfg).unwrap();
    (0..cycles)
        .map(|n| {
            let s = CtaStim {
                launch: (n == 0).then_some(launch),
                exit: exit.iter().find(|(at, _)| *at == n).map(|(_, w)| *w),
                idle: u64::MAX,
                lsu_idle: true,
                s2r: [None, None],
            };
            c.step(&s).unwrap()
        })
        .collect()
}

/// Launch at edge 0; calculation in cycle 1; the first warp's start pulse
/// in cycle 4; then one warp per core cycle within a CTA and one idle cycle
/// between CTAs, until the occupancy is reached; when a CTA's last warp
/// exits, the next CTA's first warp starts 4 cycles after that edge.
#[test]
fn directed_launch_timing() {
    let cfg = SmConfig::preset("gt200").unwrap();
    // 2 warps per CTA, 16 registers a thread: 1,024 registers a CTA (16
    // fit in 16K), 16 CTAs by warps (32 / 2), 16 by threads (1,024 / 64):
    // the 8 CTA slots bind.
    let l = CtaLaunch {
        grid: [20, 1],
        block: [64, 1, 1],
        nregs: 16,
        smem: 0,
    };
    let obs = drive::<32, 8, 1>(&cfg, l, 40, &[(30, 0), (31, 1)]);
    assert!(obs[0].ready && !obs[0].busy, "idle before the launch");
    assert!(obs[1].busy && !obs[1].ready, "busy in the cycle after the launch edge");
    let starts: Vec<(usize, u32, u32)> = obs
        .iter()
        .enumerate()
        .filter_map(|(n, o)| o.start.map(|(w, _, slot)| (n, w, slot)))
        .collect();
    assert_eq!(obs[3].occ, 8, "occupancy of 2-warp CTAs on gt200: 8 CTA slots bind");
    // 16 warps from cycle 4, CTA slots 0..7 in order: one warp per core
    // cycle within a CTA, one cycle between CTAs (the next CTA begins in the
    // cycle after the last warp of the previous one started).
    let first: Vec<(usize, u32, u32)> = (0..16).map(|k| (4 + k + k / 2, k as u32, k as u32 / 2)).collect();
    assert_eq!(starts[..16], first[..], "warp starts");
    assert_eq!(obs[27].res_ctas, 8);
    assert_eq!(obs[27].res_warps, 16);
    // Warps 0 and 1 (CTA slot 0) exit at edges 30 and 31: the slot is
    // released at edge 32 (7 CTAs in cycle 33), the next CTA begins at edge
    // 33 and its warps start in cycles 35 and 36, 4 cycles after the last
    // exit edge.
    assert_eq!(obs[32].res_warps, 14);
    assert_eq!(obs[33].res_ctas, 7);
    assert_eq!(obs[34].res_ctas, 8);
    assert_eq!(starts[16..], [(35, 0, 0), (36, 1, 0)], "{starts:?}");
    // The lanes of a full warp are all set; a 40-thread CTA's second warp
    // holds 8.
    let obs = drive::<32, 8, 1>(&cfg, CtaLaunch { block: [40, 1, 1], ..l }, 8, &[]);
    assert_eq!(obs[4].start, Some((0, u32::MAX, 0)));
    assert_eq!(obs[5].start, Some((1, 0xff, 0)));
}

/// Occupancy from the seeds' limits only: `(ctas, what binds)` or why a CTA
/// cannot fit at all. Written independently of the block and its reference
/// (which also checks the register file's row mapping).
fn seed_occupancy(cfg: &SmConfig, l: &CtaLaunch) -> Result<(u32, &'static str), &'static str> {
    let threads = l.block.iter().product::<u32>();
    if threads > cfg.max_threads {
        return Err("threads per CTA");
    }
    if l.nregs > cfg.max_regs_per_thread {
        return Err("registers per thread");
    }
    let warps = threads.div_ceil(32);
    let round = |x: u32, unit: u32| x.div_ceil(unit) * unit;
    // Occupancy calculator: compute 1.x allocates per CTA, 2.x per warp.
    let regs = if cfg.reg_alloc_per_warp {
        warps * round(32 * l.nregs, cfg.reg_alloc_unit)
    } else {
        round(32 * warps * l.nregs, cfg.reg_alloc_unit)
    };
    let smem = round(l.smem, cfg.smem_alloc_unit);
    let mut best = (cfg.max_ctas, "CTA slots");
    for (n, why) in [
        (cfg.max_warps / warps, "warps"),
        (cfg.max_threads / threads, "threads"),
        (cfg.registers / regs, "registers"),
        (
            if smem == 0 { u32::MAX } else { cfg.smem_bytes / smem },
            "shared memory",
        ),
    ] {
        if n < best.0 {
            best = (n, why);
        }
    }
    if best.0 == 0 {
        return Err(best.1);
    }
    Ok(best)
}

/// What the launcher shows for `l`: its occupancy output, the resident CTAs
/// and warps once the launch has filled the SM (no warp exits), or the
/// error reason.
fn rtl_occupancy<const MW: usize, const NC: usize, const NS: usize>(
    cfg: &SmConfig,
    l: CtaLaunch,
) -> Result<(u32, u32, u32), u32> {
    let mut sim = Sim::new(Cta::<MW, NC, NS>::new(CtaLimits::of(cfg)).unwrap()).unwrap();
    let mut last = CtaObs::default();
    for n in 0..(MW as u64 + 16) {
        let s = CtaStim {
            launch: (n == 0).then_some(l),
            idle: u64::MAX,
            lsu_idle: true,
            ..CtaStim::default()
        };
        last = from_out(&sim.step_core(&to_in::<MW>(&s)));
        if last.err.is_some() {
            return Err(last.reason);
        }
    }
    Ok((last.occ, last.res_ctas, last.res_warps))
}

fn rtl_for(cfg: &SmConfig, l: CtaLaunch) -> Result<(u32, u32, u32), u32> {
    let r: Result<_, String> =
        smrtl::with_warp_shape!(cfg, "cta", |MW, NS, NC| Ok(rtl_occupancy::<MW, NC, NS>(cfg, l)));
    r.unwrap()
}

const DOC: &str = "docs/occupancy.md";
const BEGIN: &str = "<!-- occupancy table: generated by tests/cta.rs, SMRTL_BLESS=1 rewrites it -->\n";
const END: &str = "<!-- end of occupancy table -->\n";

#[test]
fn occupancy_of_every_kernel_matches_seed_limits_and_docs() {
    let mut table = String::from(
        "| preset | kernel | shape (grid; block) | threads | regs/thread | smem B | CTAs (seed limits) | binds | CTAs (RTL) | resident CTAs / warps (RTL) |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut rows = 0;
    for preset in ["tesla", "gt200", "fermi"] {
        let cfg = SmConfig::preset(preset).unwrap();
        for k in all_kernels() {
            let prog = assemble(k.source, k.file).unwrap();
            for case in (k.cases)(Fp32::of(&cfg)) {
                let l = CtaLaunch {
                    grid: case.grid,
                    block: case.block,
                    nregs: prog.regs,
                    smem: prog.shared_bytes,
                };
                let threads = l.block.iter().product::<u32>();
                let ctas = l.grid[0] * l.grid[1];
                let want = seed_occupancy(&cfg, &l);
                let got = rtl_for(&cfg, l);
                let shape = format!(
                    "{}x{}; {}x{}x{}",
                    l.grid[0], l.grid[1], l.block[0], l.block[1], l.block[2]
                );
                let (occ, binds, rtl, res) = match (want, got) {
                    (Ok((n, why)), Ok((occ, rc, rw))) => {
                        assert_eq!(occ, n, "{preset} {} {shape}: RTL occupancy vs seed limits", k.name);
                        let resident = n.min(ctas);
                        assert_eq!(
                            (rc, rw),
                            (resident, resident * threads.div_ceil(32)),
                            "{preset} {} {shape}: resident CTAs and warps",
                            k.name
                        );
                        (n.to_string(), why, occ.to_string(), format!("{rc} / {rw}"))
                    }
                    (Err(why), Err(reason)) => {
                        let expect = match why {
                            "threads per CTA" => 1,
                            "shared memory" => 3,
                            _ => 2,
                        };
                        assert_eq!(reason, expect, "{preset} {} {shape}: error reason", k.name);
                        ("0".into(), why, format!("error {reason}"), "-".into())
                    }
                    (w, g) => panic!("{preset} {} {shape}: seed limits {w:?}, RTL {g:?}", k.name),
                };
                table += &format!(
                    "| {preset} | {} | {shape} | {threads} | {} | {} | {occ} | {binds} | {rtl} | {res} |\n",
                    k.name, l.nregs, l.smem
                );
                rows += 1;
            }
        }
    }
    assert!(rows >= 3 * 25, "{rows} rows");
    let doc = std::fs::read_to_string(DOC).unwrap_or_default();
    let (Some(b), Some(e)) = (doc.find(BEGIN), doc.find(END)) else {
        panic!("{DOC} has no occupancy table markers");
    };
    let current = &doc[b + BEGIN.len()..e];
    if current != table {
        if std::env::var_os("SMRTL_BLESS").is_some() {
            let new = format!("{}{table}{}", &doc[..b + BEGIN.len()], &doc[e..]);
            std::fs::write(DOC, new).unwrap();
        } else {
            panic!("{DOC} is out of date (SMRTL_BLESS=1 cargo test --test cta rewrites it); the table now:\n{table}");
        }
    }
}
