//! The `rtl` fuzz target: the RTL SM behind `smrtl run --rtl`, lock-step
//! against the golden model (`sm::run::run_program`), in the worker
//! process like every other target. Two kinds of case, half each:
//!
//! * **Mutated** (header `; fuzz-run ... --rtl --max-cycles N ...`): a
//!   kernel and launch options drawn as the `run` target draws them
//!   ([`run_case`]: half the kernels mutated, shapes and parameters from
//!   small to absurd), plus a small core-cycle budget and a random global
//!   memory model. Errors are the expected outcome; a finding is a panic,
//!   an abort, a hang, or an error that names no place ([`names_place`]).
//!   Divergences are not findings here: a mutated kernel may race.
//! * **Progen** (header `; fuzz-rtl progen --config P --seed S ...`): the
//!   valid random program `testbenches/progen.rs` makes for the seed (its
//!   launch shape, parameters and input image, all random by seed) with a
//!   random global memory model (latency, bandwidth, in order or out of
//!   order). Such a program must run to the end with no divergence: any
//!   error (a divergence, an SM error, the cycle budget) is a finding of
//!   kind `lockstep`.
//!
//! The first line of either reproducer holds the options; the finding's
//! message says how to replay it on the command line.

use rand::rngs::SmallRng;
use rand::Rng;

use super::targets::{run_case, Corpus, Failure, RtlRunOpts, RunOpts, Target};
use super::Kind;
use crate::golden::{asm, model};
use crate::sm::run::{run_program, RtlOptions};
use crate::sm::SmConfig;
use crate::testbenches::gmem::GmemConfig;
use crate::testbenches::progen;

/// First words of a progen case's header.
const PROGEN_TAG: &str = "; fuzz-rtl progen";

/// Presets with an RTL SM that progen writes programs for.
const PROGEN_PRESETS: [&str; 3] = ["tesla", "gt200", "fermi"];

/// Threads of a progen launch (all CTAs) the generator aims at.
pub const PROGEN_MAX_THREADS: u32 = 192;

/// Core-cycle budget of a progen case: the programs take 2,000 to 60,000
/// core cycles on the memory models drawn here; a valid program still
/// running after this many has deadlocked.
pub const PROGEN_MAX_CYCLES: u64 = 400_000;

/// Whether an error message of the `smrtl run --rtl` path (the text after
/// `RTL SM, core cycle N: `) names the place of the error: an instruction
/// (`pc N`, with the CTA and warp or the warp slot, or a source `line N`),
/// the launch (`launch rejected: ` then the option or the limit), the
/// cycle budget (error 11, `cycle budget of N`), a byte of the final
/// global image (`at byte 0x..`) or the preset (``config `NAME` ``).
/// Anything else (e.g. "the RTL SM finished but the golden model has CTAs
/// left", or an out-of-range request caught by the host memory model
/// instead of the SM) leaves the user without a place to look.
pub fn names_place(msg: &str) -> bool {
    let number_after = |key: &str| {
        msg.match_indices(key).any(|(k, _)| {
            let before_ok = k == 0 || !msg.as_bytes()[k - 1].is_ascii_alphanumeric();
            let after = &msg[k + key.len()..];
            before_ok && after.starts_with(|c: char| c.is_ascii_digit())
        })
    };
    number_after("pc ")
        || number_after("line ")
        || msg.starts_with("launch rejected: ")
        || msg.contains("cycle budget of ")
        || msg.contains(" at byte 0x")
        || msg.starts_with("config `")
}

/// A random global memory model; `fast` keeps latencies and bandwidths
/// where the valid programs finish in well under a second.
fn random_mem(rng: &mut SmallRng, fast: bool) -> RtlRunOpts {
    let gmem_latency = if fast {
        Some(rng.gen_range(1..=40))
    } else if rng.gen_bool(0.3) {
        None
    } else {
        Some(*pick(rng, &[1, 2, 3, 7, 20, 100, 220, 300, 1000]))
    };
    let gmem_bandwidth = if rng.gen_bool(0.3) {
        None
    } else if fast {
        Some(*pick(rng, &[4, 8, 16, 32, 64, 1000]))
    } else {
        Some(*pick(rng, &[1, 2, 4, 8, 17, 64, 1000]))
    };
    let gmem_ooo_seed = rng.gen_bool(0.5).then(|| rng.gen_range(0..1000));
    RtlRunOpts {
        max_cycles: 0,
        gmem_latency,
        gmem_bandwidth,
        gmem_ooo_seed,
    }
}

fn pick<'a, T>(rng: &mut SmallRng, v: &'a [T]) -> &'a T {
    &v[rng.gen_range(0..v.len())]
}

/// The options of `run_program` for `r` on preset `cfg` (lock-step on,
/// as `smrtl run --rtl` runs by default).
fn rtl_options(cfg: &SmConfig, r: &RtlRunOpts) -> RtlOptions {
    let gmem = (r.gmem_latency.is_some() || r.gmem_bandwidth.is_some() || r.gmem_ooo_seed.is_some()).then(|| {
        let mut g = GmemConfig::of(cfg);
        if let Some(l) = r.gmem_latency {
            g.latency = l;
        }
        if let Some(b) = r.gmem_bandwidth {
            g.milli_bytes_per_cycle = b as u64 * 1000;
        }
        if let Some(s) = r.gmem_ooo_seed {
            g.out_of_order = true;
            g.seed = s;
        }
        g
    });
    RtlOptions {
        max_cycles: r.max_cycles,
        gmem,
        ..RtlOptions::default()
    }
}

/// A progen case's header: preset, seed, budget, memory model.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ProgenOpts {
    config: String,
    seed: u64,
    rtl: RtlRunOpts,
}

impl ProgenOpts {
    fn header(&self) -> String {
        format!(
            "{PROGEN_TAG} --config {} --seed {} --max-cycles {}{}\n",
            self.config,
            self.seed,
            self.rtl.max_cycles,
            self.rtl.mem_args()
        )
    }

    /// Read a header (None when the first line is not one).
    fn parse(text: &str) -> Option<ProgenOpts> {
        let rest = text.lines().next()?.strip_prefix(PROGEN_TAG)?;
        let mut o = ProgenOpts {
            config: "gt200".into(),
            seed: 0,
            rtl: RtlRunOpts {
                max_cycles: PROGEN_MAX_CYCLES,
                gmem_latency: None,
                gmem_bandwidth: None,
                gmem_ooo_seed: None,
            },
        };
        let words: Vec<&str> = rest.split_whitespace().collect();
        for w in words.chunks(2) {
            let [k, v] = w else { break };
            match *k {
                "--config" => o.config = v.to_string(),
                "--seed" => o.seed = v.parse().ok()?,
                "--max-cycles" => o.rtl.max_cycles = v.parse::<u64>().ok()?.min(10_000_000),
                "--gmem-latency" => o.rtl.gmem_latency = v.parse().ok().filter(|&l| l >= 1),
                "--gmem-bandwidth" => o.rtl.gmem_bandwidth = v.parse().ok().filter(|&b| b >= 1),
                "--gmem-ooo-seed" => o.rtl.gmem_ooo_seed = v.parse().ok(),
                _ => {}
            }
        }
        Some(o)
    }
}

/// The RTL SM through `smrtl run --rtl` (see the module doc).
pub struct RtlTarget;

impl RtlTarget {
    /// A mutated kernel and launch, as the `run` target draws them.
    fn mutated(rng: &mut SmallRng, c: &Corpus) -> Vec<u8> {
        let (mut o, src) = run_case(rng, c);
        let mut r = random_mem(rng, false);
        r.max_cycles = *pick(rng, &[0, 1, 50, 500, 2000, 5000]);
        o.rtl = Some(r);
        let mut out = o.header().into_bytes();
        out.extend_from_slice(&src);
        out
    }

    /// A valid random program with a random memory model.
    fn progen(rng: &mut SmallRng, c: &Corpus) -> Vec<u8> {
        let config = pick(rng, &PROGEN_PRESETS).to_string();
        let Some(cfg) = c.cfgs.iter().find(|k| k.name == config) else {
            return Vec::new();
        };
        // Small launches keep a case in the tens of milliseconds: the first
        // of a few seeds whose grid has at most PROGEN_MAX_THREADS threads
        // (else the smallest drawn).
        let mut best: Option<(u32, u64, progen::ProgenCase)> = None;
        for _ in 0..16 {
            let seed = rng.gen_range(0..1u64 << 32);
            let case = progen::generate(cfg, seed);
            let l = &case.launch;
            let threads = l.grid[0] * l.grid[1] * l.block.iter().product::<u32>();
            if best.as_ref().is_none_or(|b| threads < b.0) {
                best = Some((threads, seed, case));
            }
            if threads <= PROGEN_MAX_THREADS {
                break;
            }
        }
        let (_, seed, case) = best.expect("drawn at least once");
        let mut rtl = random_mem(rng, true);
        rtl.max_cycles = PROGEN_MAX_CYCLES;
        let o = ProgenOpts { config, seed, rtl };
        let mut text = o.header();
        text.push_str(&case.text("progen.sasm", "progen.gmem.bin"));
        text.into_bytes()
    }

    fn run_mutated(src: &str, c: &Corpus) -> Result<(), Failure> {
        let o = RunOpts::parse(src);
        let Some(r) = o.rtl else {
            return Ok(());
        };
        let Some(cfg) = c.cfgs.iter().find(|k| k.name == o.config) else {
            return Ok(());
        };
        let Ok(p) = asm::assemble(src, "fuzz.s") else {
            return Ok(());
        };
        // The `smrtl run` checks before the RTL run (the `run` target
        // covers their errors).
        let (Ok(grid), Ok(block)) = (model::parse_dims::<2>(&o.grid), model::parse_dims::<3>(&o.block)) else {
            return Ok(());
        };
        let Ok(params) = model::resolve_params(&p.params, &o.params) else {
            return Ok(());
        };
        let launch = model::Launch { grid, block, params };
        match run_program(cfg, &p, &launch, vec![0; o.gmem_size], &rtl_options(cfg, &r)) {
            Ok(_) => Ok(()),
            Err(e) if names_place(&e.msg) => Ok(()),
            Err(e) => Err(Failure {
                kind: Kind::NoPlace,
                msg: format!("the error names no place: {e}"),
            }),
        }
    }

    fn run_progen(o: &ProgenOpts, c: &Corpus) -> Result<(), Failure> {
        let Some(cfg) = c.cfgs.iter().find(|k| k.name == o.config) else {
            return Ok(());
        };
        let case = progen::generate(cfg, o.seed);
        match run_program(
            cfg,
            &case.program,
            &case.launch,
            case.gmem.clone(),
            &rtl_options(cfg, &o.rtl),
        ) {
            Ok(_) => Ok(()),
            Err(e) => Err(Failure {
                kind: Kind::Lockstep,
                msg: format!(
                    "valid program {} seed {}: {e}\nreproduce: smrtl progen --config {} --seed {} --out p.sasm, \
                     then: smrtl run {} --rtl --max-cycles {}{}",
                    o.config,
                    o.seed,
                    o.config,
                    o.seed,
                    case.cli_args("p.sasm", "p.gmem.bin", "out.bin").join(" "),
                    o.rtl.max_cycles,
                    o.rtl.mem_args()
                ),
            }),
        }
    }
}

impl Target for RtlTarget {
    fn name(&self) -> &'static str {
        "rtl"
    }
    fn ext(&self) -> &'static str {
        "s"
    }
    fn generate(&self, rng: &mut SmallRng, c: &Corpus) -> Vec<u8> {
        if rng.gen_bool(0.5) {
            Self::mutated(rng, c)
        } else {
            Self::progen(rng, c)
        }
    }
    /// An RTL case takes milliseconds where the others take microseconds:
    /// it runs in its own job (`--targets rtl`).
    fn in_default_run(&self) -> bool {
        false
    }
    fn execute(&self, input: &[u8], c: &Corpus) -> Result<(), Failure> {
        let Ok(src) = asm::source_from_bytes(input, "fuzz.s") else {
            return Ok(());
        };
        match ProgenOpts::parse(&src) {
            Some(o) => Self::run_progen(&o, c),
            None => Self::run_mutated(&src, c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_check() {
        for ok in [
            "error 3 (misaligned) raised by lsu, cta 0 warp 1 (slot 1), pc 7, info 0x0",
            "divergence at issue: cta 2 warp 0 (slot 4): RTL pc 3 lanes ffffffff, golden pc 4 lanes ffffffff (EXIT)",
            "launch rejected: grid x = 70000 does not fit the SM's 16-bit launch port (at most 65535)",
            "error 11: cycle budget of 50 core cycles exhausted (the kernel never finished); 3 warp instructions issued",
            "final global memory differs from the golden model's first at byte 0x40",
            "config `gpucc`: no RTL SM",
            "divergence: the golden model stops at cta 0 (0,0), warp 0, pc 4, line 9: misaligned",
        ] {
            assert!(names_place(ok), "{ok}");
        }
        for bad in [
            "the RTL SM finished but the golden model has CTAs left",
            "global memory model: cycle 40: read of size code 2 at 0x10 (image 0 bytes)",
            "more than 256 parameter words",
            "epc 4: something",
            "line x",
        ] {
            assert!(!names_place(bad), "{bad}");
        }
    }

    #[test]
    fn headers_read_back() {
        let o = ProgenOpts {
            config: "fermi".into(),
            seed: 77,
            rtl: RtlRunOpts {
                max_cycles: 1234,
                gmem_latency: Some(5),
                gmem_bandwidth: None,
                gmem_ooo_seed: Some(9),
            },
        };
        assert_eq!(ProgenOpts::parse(&o.header()), Some(o));
        let mut r = RunOpts::parse("");
        r.rtl = Some(RtlRunOpts {
            max_cycles: 50,
            gmem_latency: None,
            gmem_bandwidth: Some(3),
            gmem_ooo_seed: None,
        });
        r.params = vec!["1".into(), "-1".into()];
        let back = RunOpts::parse(&r.header());
        assert_eq!(back.rtl, r.rtl);
        assert_eq!(back.params, r.params);
        assert_eq!(RunOpts::parse("; fuzz-run --config tesla").rtl, None);
    }
}
