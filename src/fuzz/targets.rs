//! The fuzz targets: each turns a seeded generator into an input file
//! (a structured mutation of the corpus, or random bytes) and runs one
//! input through one of the tools. A target returns `Err` only for a
//! failed round-trip property; a clean error from the tool under test is
//! the expected outcome for bad input, and a panic is caught by the
//! driver.

use std::io::Cursor;

use rand::rngs::SmallRng;
use rand::Rng;

use super::mutate::{mutate_bytes, mutate_text, random_bytes, tokens, INTERESTING_NUMBERS};
pub use super::rtl::RtlTarget;
use super::Kind;
use crate::config::SmConfig;
use crate::golden::arith::{Round, Tininess};
use crate::golden::isa::{Op as IsaOp, Program};
use crate::golden::testfloat::{self, Op as TfOp};
use crate::golden::{asm, model};
use crate::testbenches::kernels;

/// What the targets mutate: the benchmark kernels, their program files,
/// the presets, TestFloat lines, and token dictionaries built from them.
pub struct Corpus {
    /// (file name, assembly text) of every kernel in `testbenches/kernels`.
    pub kernels: Vec<(&'static str, &'static str)>,
    /// The kernels assembled to program files.
    pub bins: Vec<Vec<u8>>,
    /// TOML text of every preset.
    pub presets: Vec<String>,
    /// Assembly tokens: corpus tokens, every mnemonic, edge registers.
    pub asm_dict: Vec<String>,
    /// Config tokens: field names and values of the presets.
    pub cfg_dict: Vec<String>,
    /// The presets, loaded.
    pub cfgs: Vec<SmConfig>,
}

impl Corpus {
    /// Build the corpus from the sources compiled into the crate (the
    /// same on every call, so a case index always names the same input).
    pub fn new() -> Corpus {
        let kernels: Vec<(&'static str, &'static str)> =
            kernels::all_kernels().iter().map(|k| (k.file, k.source)).collect();
        let bins = kernels
            .iter()
            .filter_map(|(f, s)| asm::assemble(s, f).ok())
            .map(|p| p.to_bytes())
            .collect();
        let cfgs: Vec<SmConfig> = SmConfig::preset_names()
            .filter_map(|n| SmConfig::preset(n).ok())
            .collect();
        let presets: Vec<String> = cfgs.iter().filter_map(|c| toml::to_string(c).ok()).collect();
        let mut asm_dict: Vec<String> = kernels.iter().flat_map(|(_, s)| tokens(s)).collect();
        asm_dict.extend(IsaOp::ALL.iter().map(|o| o.info().mnemonic.to_string()));
        asm_dict.extend(
            [
                "R0",
                "R127",
                "R128",
                "RZ",
                "P0",
                "P3",
                "P4",
                "PT",
                "!PT",
                "@!P0",
                "c[0]",
                "c[9]",
                "[R1+0x7fffffff]",
                "[R1-4]",
                ".kernel",
                ".regs",
                ".param",
                ".shared",
                "SR_TID.X",
                "SR_CLOCK",
                "label",
                "label:",
            ]
            .map(String::from),
        );
        asm_dict.sort();
        asm_dict.dedup();
        let mut cfg_dict: Vec<String> = presets.iter().flat_map(|s| tokens(s)).collect();
        cfg_dict.extend(["[gpucc]", "true", "false", "\"fmad\"", "\"ffma\"", "="].map(String::from));
        cfg_dict.sort();
        cfg_dict.dedup();
        Corpus {
            kernels,
            bins,
            presets,
            asm_dict,
            cfg_dict,
            cfgs,
        }
    }

    fn kernel_texts(&self) -> Vec<&[u8]> {
        self.kernels.iter().map(|(_, s)| s.as_bytes()).collect()
    }
}

impl Default for Corpus {
    fn default() -> Self {
        Corpus::new()
    }
}

/// One tool under test. New targets (the RTL SM behind `smrtl run --rtl`,
/// say) implement this and are added to [`all_targets`].
pub trait Target: Send + Sync {
    /// Short name used in reports, reproducer files and `--targets`.
    fn name(&self) -> &'static str;
    /// Extension of a reproducer file (so the tool can be run on it).
    fn ext(&self) -> &'static str;
    /// One input, deterministic in `rng`.
    fn generate(&self, rng: &mut SmallRng, c: &Corpus) -> Vec<u8>;
    /// Run one input. `Ok` when the tool accepted it or gave a clear
    /// error; `Err` when a property failed (a round trip, an error that
    /// names no place, a lock-step divergence on a valid program).
    fn execute(&self, input: &[u8], c: &Corpus) -> Result<(), Failure>;
    /// Whether a run without `--targets` includes this target (`false`
    /// for a target much slower per case than the others).
    fn in_default_run(&self) -> bool {
        true
    }
}

/// A broken property found by a target (a panic, an abort and a hang are
/// found by the driver).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub kind: Kind,
    pub msg: String,
}

/// A plain message is a failed round trip.
impl From<String> for Failure {
    fn from(msg: String) -> Failure {
        Failure {
            kind: Kind::RoundTrip,
            msg,
        }
    }
}

/// Every target, in report order.
pub fn all_targets() -> Vec<Box<dyn Target>> {
    vec![
        Box::new(AsmTarget),
        Box::new(BinTarget),
        Box::new(ConfigTarget),
        Box::new(TestfloatTarget),
        Box::new(RunTarget),
        Box::new(RtlTarget),
    ]
}

fn pick<'a, T>(rng: &mut SmallRng, v: &'a [T]) -> &'a T {
    &v[rng.gen_range(0..v.len())]
}

/// Assemble `p`'s disassembly (plain and with words) and compare the
/// program files: the disassembler's output must always re-assemble to
/// the same program.
pub fn disasm_round_trip(p: &Program) -> Result<(), String> {
    let want = p.to_bytes();
    for (what, text) in [
        ("disassembly", asm::disassemble(p)),
        ("disassembly --words", asm::disassemble_with_words(p)),
    ] {
        match asm::assemble(&text, "roundtrip.s") {
            Ok(q) if q.to_bytes() == want => {}
            Ok(_) => return Err(format!("{what} re-assembles to a different program:\n{text}")),
            Err(e) => return Err(format!("{what} does not re-assemble: {}\n{text}", e.render(&text))),
        }
    }
    Ok(())
}

/// Launch options of a run case (the `smrtl run` options the fuzzer
/// varies), written as the first line of a run reproducer.
#[derive(Debug, Clone)]
pub struct RunOpts {
    pub config: String,
    pub grid: String,
    pub block: String,
    pub params: Vec<String>,
    pub gmem_size: usize,
    pub budget: u64,
    /// `smrtl run --rtl` options (the `rtl` target; `None`: not written).
    pub rtl: Option<RtlRunOpts>,
}

/// The `--rtl` options of a run case: the core-cycle budget and the
/// global memory model (`None`: the preset's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtlRunOpts {
    pub max_cycles: u64,
    /// Latency in core cycles (at least 1).
    pub gmem_latency: Option<u32>,
    /// Bandwidth in whole bytes per core cycle (at least 1).
    pub gmem_bandwidth: Option<u32>,
    /// Out-of-order responses drawn from this seed.
    pub gmem_ooo_seed: Option<u64>,
}

impl RtlRunOpts {
    /// The `--gmem-*` options of `smrtl run` that replay this memory.
    pub fn mem_args(&self) -> String {
        let mut s = String::new();
        if let Some(l) = self.gmem_latency {
            s.push_str(&format!(" --gmem-latency {l}"));
        }
        if let Some(b) = self.gmem_bandwidth {
            s.push_str(&format!(" --gmem-bandwidth {b}"));
        }
        if let Some(x) = self.gmem_ooo_seed {
            s.push_str(&format!(" --gmem-ooo-seed {x}"));
        }
        s
    }
}

impl RunOpts {
    const TAG: &'static str = "; fuzz-run";

    /// The header line (`; fuzz-run --config gt200 --grid 1 ...`).
    pub fn header(&self) -> String {
        let mut s = format!(
            "{} --config {} --grid {} --block {} --gmem-size {} --budget {}",
            Self::TAG,
            self.config,
            self.grid,
            self.block,
            self.gmem_size,
            self.budget
        );
        if let Some(r) = &self.rtl {
            s.push_str(&format!(" --rtl --max-cycles {}{}", r.max_cycles, r.mem_args()));
        }
        for p in &self.params {
            s.push_str(" --param ");
            s.push_str(p);
        }
        s.push('\n');
        s
    }

    /// Read the header back (defaults for anything missing or unreadable).
    pub fn parse(text: &str) -> RunOpts {
        let mut o = RunOpts {
            config: "gt200".into(),
            grid: "1".into(),
            block: "32".into(),
            params: Vec::new(),
            gmem_size: 4096,
            budget: 5000,
            rtl: None,
        };
        let Some(rest) = text.lines().next().and_then(|l| l.strip_prefix(Self::TAG)) else {
            return o;
        };
        let mut words: Vec<&str> = rest.split_whitespace().collect();
        // `--rtl` is the one flag without a value.
        if let Some(k) = words.iter().position(|w| *w == "--rtl") {
            words.remove(k);
            o.rtl = Some(RtlRunOpts {
                max_cycles: 5000,
                gmem_latency: None,
                gmem_bandwidth: None,
                gmem_ooo_seed: None,
            });
        }
        for w in words.chunks(2) {
            let [k, v] = w else { break };
            match (*k, o.rtl.as_mut()) {
                ("--max-cycles", Some(r)) => r.max_cycles = v.parse().unwrap_or(5000).min(10_000_000),
                ("--gmem-latency", Some(r)) => r.gmem_latency = v.parse().ok().filter(|&l| l >= 1),
                ("--gmem-bandwidth", Some(r)) => r.gmem_bandwidth = v.parse().ok().filter(|&b| b >= 1),
                ("--gmem-ooo-seed", Some(r)) => r.gmem_ooo_seed = v.parse().ok(),
                _ => {}
            }
            match *k {
                "--config" => o.config = v.to_string(),
                "--grid" => o.grid = v.to_string(),
                "--block" => o.block = v.to_string(),
                "--param" => o.params.push(v.to_string()),
                "--gmem-size" => o.gmem_size = v.parse().unwrap_or(4096).min(1 << 20),
                "--budget" => o.budget = v.parse().unwrap_or(5000).min(100_000),
                _ => {}
            }
        }
        o
    }
}

/// The `smrtl run` path after the program is loaded: dims, params, memory,
/// model, bounded run. Errors are fine; only panics and hangs are findings.
pub fn run_program(cfg: &SmConfig, prog: &Program, o: &RunOpts) {
    let Ok(grid) = model::parse_dims::<2>(&o.grid) else {
        return;
    };
    let Ok(block) = model::parse_dims::<3>(&o.block) else {
        return;
    };
    let Ok(params) = model::resolve_params(&prog.params, &o.params) else {
        return;
    };
    let launch = model::Launch { grid, block, params };
    if let Ok(mut g) = model::Golden::new(cfg, prog, &launch, vec![0; o.gmem_size]) {
        if let Err(e) = g.run(o.budget) {
            let _ = e.to_string();
        }
    }
}

/// Assembler: mutated kernels and random text; anything that assembles
/// must survive the disassembly round trip.
pub struct AsmTarget;

impl Target for AsmTarget {
    fn name(&self) -> &'static str {
        "asm"
    }
    fn ext(&self) -> &'static str {
        "s"
    }
    fn generate(&self, rng: &mut SmallRng, c: &Corpus) -> Vec<u8> {
        if rng.gen_bool(0.05) {
            return random_bytes(rng, 400);
        }
        let (_, src) = pick(rng, &c.kernels);
        mutate_text(rng, src.as_bytes(), &c.asm_dict, &c.kernel_texts())
    }
    fn execute(&self, input: &[u8], _c: &Corpus) -> Result<(), Failure> {
        let src = match asm::source_from_bytes(input, "fuzz.s") {
            Ok(s) => s,
            Err(e) => {
                let _ = e.to_string();
                return Ok(());
            }
        };
        match asm::assemble_all(&src, "fuzz.s") {
            Ok(p) => disasm_round_trip(&p).map_err(Failure::from),
            Err(errs) => {
                for e in errs {
                    let _ = e.render(&src);
                }
                Ok(())
            }
        }
    }
}

/// Program-file loader and disassembler: mutated `.bin` files and random
/// bytes. A file that loads must be written back byte for byte, its
/// disassembly must re-assemble to it, and it is run briefly.
pub struct BinTarget;

impl Target for BinTarget {
    fn name(&self) -> &'static str {
        "bin"
    }
    fn ext(&self) -> &'static str {
        "bin"
    }
    fn generate(&self, rng: &mut SmallRng, c: &Corpus) -> Vec<u8> {
        if rng.gen_bool(0.05) {
            let mut b = asm::BIN_MAGIC.to_vec();
            b.extend(random_bytes(rng, 200));
            return b;
        }
        let others: Vec<&[u8]> = c.bins.iter().map(|b| b.as_slice()).collect();
        let base = pick(rng, &c.bins).clone();
        mutate_bytes(rng, &base, &others)
    }
    fn execute(&self, input: &[u8], c: &Corpus) -> Result<(), Failure> {
        let p = match Program::from_bytes(input) {
            Ok(p) => p,
            Err(e) => {
                let _ = e.to_string();
                return Ok(());
            }
        };
        if p.to_bytes() != input {
            return Err(String::from("the loader accepted a file that it writes back differently").into());
        }
        disasm_round_trip(&p)?;
        let o = RunOpts {
            config: "gt200".into(),
            grid: "2".into(),
            block: "40".into(),
            params: vec!["1".into(); p.params.len()],
            gmem_size: 4096,
            budget: 5000,
            rtl: None,
        };
        for cfg in &c.cfgs {
            run_program(cfg, &p, &o);
        }
        Ok(())
    }
}

/// Config loader: mutated presets; a config that loads must print (as
/// `smrtl config` does) and load back equal, and a kernel launch on it
/// must give a result or an error.
pub struct ConfigTarget;

impl Target for ConfigTarget {
    fn name(&self) -> &'static str {
        "config"
    }
    fn ext(&self) -> &'static str {
        "toml"
    }
    fn generate(&self, rng: &mut SmallRng, c: &Corpus) -> Vec<u8> {
        if rng.gen_bool(0.03) {
            return random_bytes(rng, 300);
        }
        let others: Vec<&[u8]> = c.presets.iter().map(|s| s.as_bytes()).collect();
        let base = pick(rng, &c.presets).clone();
        mutate_text(rng, base.as_bytes(), &c.cfg_dict, &others)
    }
    fn execute(&self, input: &[u8], c: &Corpus) -> Result<(), Failure> {
        let Ok(text) = std::str::from_utf8(input) else {
            return Ok(());
        };
        let cfg = match SmConfig::from_toml(text, "fuzz.toml") {
            Ok(cfg) => cfg,
            Err(e) => {
                let _ = e.to_string();
                return Ok(());
            }
        };
        let printed = toml::to_string(&cfg).map_err(|e| format!("a valid config does not print: {e}"))?;
        match SmConfig::from_toml(&printed, "printed.toml") {
            Ok(back) if back == cfg => {}
            Ok(_) => return Err(format!("printed config loads back different:\n{printed}").into()),
            Err(e) => return Err(format!("printed config does not load: {e}\n{printed}").into()),
        }
        let (file, src) = c.kernels[0];
        if let Ok(p) = asm::assemble(src, file) {
            let o = RunOpts {
                config: "fuzz.toml".into(),
                grid: "2".into(),
                block: format!("{}", cfg.max_threads),
                params: vec!["0".into(), "0".into(), "0".into(), "64".into()],
                gmem_size: 1024,
                budget: 2000,
                rtl: None,
            };
            run_program(&cfg, &p, &o);
        }
        Ok(())
    }
}

/// TestFloat line parser: a header line `OP ROUNDING` then vector lines
/// (valid ones computed with the reference, then mutated).
pub struct TestfloatTarget;

impl Target for TestfloatTarget {
    fn name(&self) -> &'static str {
        "testfloat"
    }
    fn ext(&self) -> &'static str {
        "tf"
    }
    fn generate(&self, rng: &mut SmallRng, _c: &Corpus) -> Vec<u8> {
        let op = *pick(rng, &TfOp::ALL);
        let rm = if op.takes_rounding() {
            *pick(rng, &["near_even", "minMag", "min", "max", "near_maxMag"])
        } else {
            "near_even"
        };
        let mut text = format!("{} {rm}\n", op.name());
        let w = op.digits();
        let mask = if w >= 16 { u64::MAX } else { (1u64 << (4 * w)) - 1 };
        for _ in 0..rng.gen_range(1..6) {
            let ops: Vec<u64> = (0..op.operands()).map(|_| rng.gen::<u64>() & mask).collect();
            let (r, f) = op.compute(
                &ops,
                testfloat::parse_round(rm).unwrap_or(Round::NearEven),
                Tininess::AfterRounding,
            );
            for v in &ops {
                text.push_str(&format!("{v:0w$X} "));
            }
            text.push_str(&format!("{r:0w$X}"));
            if op.is_ieee() {
                text.push_str(&format!(" {:02X}", f.0));
            }
            text.push('\n');
        }
        let dict: Vec<String> = INTERESTING_NUMBERS
            .iter()
            .map(|s| s.to_string())
            .chain(["FFFFFFFF", "7FC00000", "0000000000000000", "1F", "00"].map(String::from))
            .collect();
        if rng.gen_bool(0.05) {
            return random_bytes(rng, 200);
        }
        mutate_text(rng, text.as_bytes(), &dict, &[])
    }
    fn execute(&self, input: &[u8], _c: &Corpus) -> Result<(), Failure> {
        let split = input.iter().position(|&b| b == b'\n').unwrap_or(input.len());
        let head = String::from_utf8_lossy(&input[..split]);
        let mut words = head.split_whitespace();
        let Some(Ok(op)) = words.next().map(|w| w.parse::<TfOp>()) else {
            return Ok(());
        };
        let mut opts = testfloat::Options::new(op);
        if let Some(Ok(rm)) = words.next().map(testfloat::parse_round) {
            opts.rm = rm;
        }
        let body = &input[(split + 1).min(input.len())..];
        let mut out = Vec::new();
        let mut err = Vec::new();
        let _ = testfloat::run(Cursor::new(body), &mut out, &mut err, &opts);
        Ok(())
    }
}

/// `smrtl run`: a launch header line and a (mostly mutated) kernel; the
/// kernel is assembled, launched with the header's options and run with a
/// small budget.
pub struct RunTarget;

impl Target for RunTarget {
    fn name(&self) -> &'static str {
        "run"
    }
    fn ext(&self) -> &'static str {
        "s"
    }
    fn generate(&self, rng: &mut SmallRng, c: &Corpus) -> Vec<u8> {
        let (o, src) = run_case(rng, c);
        let mut out = o.header().into_bytes();
        out.extend_from_slice(&src);
        out
    }
    fn execute(&self, input: &[u8], c: &Corpus) -> Result<(), Failure> {
        let Ok(src) = asm::source_from_bytes(input, "fuzz.s") else {
            return Ok(());
        };
        let o = RunOpts::parse(&src);
        let Some(cfg) = c.cfgs.iter().find(|k| k.name == o.config) else {
            return Ok(());
        };
        let Ok(p) = asm::assemble(&src, "fuzz.s") else {
            return Ok(());
        };
        run_program(cfg, &p, &o);
        Ok(())
    }
}

/// A `run` case: a kernel (half of them mutated) and random launch
/// options (shapes from small to absurd, parameters around the edges).
/// The `rtl` target draws its kernels and launches here too.
pub fn run_case(rng: &mut SmallRng, c: &Corpus) -> (RunOpts, Vec<u8>) {
    let (file, src) = *pick(rng, &c.kernels);
    let src = if rng.gen_bool(0.5) {
        mutate_text(rng, src.as_bytes(), &c.asm_dict, &c.kernel_texts())
    } else {
        src.as_bytes().to_vec()
    };
    let nparams = std::str::from_utf8(&src)
        .ok()
        .and_then(|s| asm::assemble(s, file).ok())
        .map_or(0, |p| p.params.len());
    let dims = [
        "1",
        "2",
        "3",
        "7",
        "32",
        "33",
        "64",
        "100",
        "256",
        "512",
        "1024",
        "2048",
        "0",
        "-1",
        "1,1",
        "4,4",
        "16,16",
        "8,8,8",
        "1000000,16",
        "4294967295",
        "65536,65536",
        "1,2,3,4",
        "x",
        "",
    ];
    let nparams = if rng.gen_bool(0.9) {
        nparams
    } else {
        rng.gen_range(0..6)
    };
    let params = (0..nparams)
        .map(|_| {
            let v = if rng.gen_bool(0.6) {
                rng.gen_range(0..8192u32).to_string()
            } else {
                pick(rng, INTERESTING_NUMBERS).to_string()
            };
            if v.is_empty() {
                "0".to_string()
            } else {
                v
            }
        })
        .collect();
    let o = RunOpts {
        config: pick(rng, &["tesla", "gt200", "fermi", "gpucc"]).to_string(),
        grid: pick(rng, &dims[..14]).to_string(),
        block: if rng.gen_bool(0.2) {
            pick(rng, &dims)
        } else {
            pick(rng, &dims[..12])
        }
        .to_string(),
        params,
        gmem_size: *pick(rng, &[0, 4, 1024, 4096, 65536, 1 << 20]),
        budget: *pick(rng, &[0, 1, 100, 2000, 5000]),
        rtl: None,
    };
    (o, src)
}
