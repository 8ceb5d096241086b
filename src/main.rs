//! The `smrtl` command line.
use anyhow::Result;
use clap::{Parser, Subcommand};
use smrtl::cosim::Options;
use smrtl::flows::{self, BlockName};
use smrtl::golden::arith::{Round, Tininess};
use smrtl::golden::testfloat::{self, Op};
use smrtl::sm::SmConfig;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "smrtl",
    version,
    about = "Bit-accurate, cycle-accurate RTL model of a GPU streaming multiprocessor"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print a configuration (preset name or TOML file) after validating it.
    Config {
        #[arg(default_value = "gt200")]
        config: String,
    },
    /// Write a block's Verilog (one file per module) into a folder.
    Export {
        block: BlockName,
        /// Preset name or TOML file.
        #[arg(long, default_value = "gt200")]
        config: String,
        #[arg(long, default_value = "rtl")]
        out: PathBuf,
    },
    /// Write the Verilog of every block kept in rtl/ (all presets that have one).
    ExportAll {
        #[arg(long, default_value = "rtl")]
        out: PathBuf,
    },
    /// Run the shared-memory access patterns (stride 1, 2, banks, broadcast,
    /// atomics, random) on the smem unit, check them against the reference,
    /// print pass counts and write a VCD.
    SmemPatterns {
        #[arg(long, default_value = "gt200")]
        config: String,
        /// Random requests after the named patterns.
        #[arg(long, default_value_t = 200)]
        random: usize,
        /// VCD path (default waves/smem_<config>.vcd).
        #[arg(long)]
        vcd: Option<PathBuf>,
    },
    /// Directed operand-collector streams: sustained dual issue with no
    /// bank conflicts (checked: 0 stalls, dispatch 2 cycles after issue)
    /// and three operands in one bank group; VCD of the first.
    OpcollStream {
        #[arg(long, default_value = "gt200")]
        config: String,
        /// Core cycles of the dual-issue stream.
        #[arg(long, default_value_t = 100_000)]
        cycles: u64,
        /// VCD path (with a grouped .gtkw beside it); none by default.
        #[arg(long)]
        vcd: Option<PathBuf>,
    },
    /// Simulate a block on random stimulus; write a VCD and print a report.
    Sim {
        block: BlockName,
        #[arg(long, default_value = "gt200")]
        config: String,
        /// Hot-clock cycles to simulate (two per core cycle).
        #[arg(long, default_value_t = 20_000)]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// VCD path (default waves/<module>.vcd).
        #[arg(long)]
        vcd: Option<PathBuf>,
    },
    /// Co-simulate a block against its Verilog: lock-step in Verilator, then Icarus.
    Cosim {
        block: BlockName,
        #[arg(long, default_value = "gt200")]
        config: String,
        /// Hot-clock cycles of lock-step.
        #[arg(long, default_value_t = 1_000_000)]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Hot-clock cycles in Icarus (0 skips it).
        #[arg(long, default_value_t = 20_000)]
        icarus_cycles: u64,
        /// Where mismatch VCD windows and Icarus files go.
        #[arg(long, default_value = "waves")]
        wave_dir: PathBuf,
    },
    /// Run a kernel (assembly `.s` or program `.bin`) on the golden SIMT
    /// model; print instruction counts per class.
    ///
    /// Parameter values: decimal (-5, 4096), hex (0x3f800000), or FP32
    /// written with '.', an exponent or an 'f' suffix (1.5, 2e-3, 3f, inf,
    /// nan); give them all positionally in .param order or all as NAME=VALUE.
    Run(GoldenRun),
    /// Write a kernel launch as a standalone Verilog design: the SM of the
    /// preset inside a prototyping top `sm_<preset>_proto` with on-chip
    /// instruction and global memories loaded from hex images, a launch
    /// ROM and a sequencer; with the testbench tb_proto.v and the scripts
    /// run_icarus.sh and run_verilator.sh, which write the final global
    /// memory to gmem_out.bin (docs/fpga.md).
    ExportProto(ExportProtoArgs),
    /// Generate a random valid program (testbenches/progen.rs): writes the
    /// assembly (headed by the `smrtl run` command that reproduces the
    /// launch) and its input image (`<out stem>.gmem.bin`).
    Progen {
        #[arg(long)]
        seed: u64,
        #[arg(long, default_value = "gt200")]
        config: String,
        /// Assembly output (default progen_<seed>_<config>.sasm).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Also emit S2R SR_CLOCK (differs between model and SM).
        #[arg(long)]
        clock: bool,
    },
    /// Run the micro-benchmark kernels (testbenches/kernels/micro) on the
    /// RTL SM and print their latencies and throughputs in hot cycles beside
    /// the hardware figures (docs/calibration.md).
    Calibrate {
        #[arg(long, default_value = "gt200")]
        config: String,
        /// Also print each case's SM performance report (issue slots per
        /// scheduler, register-file conflicts, write-back waits) to stderr
        #[arg(long)]
        reports: bool,
    },
    /// Speed of the Rust model vs the Verilated export of a block, same run.
    Bench {
        #[arg(default_value = "mad-rf")]
        block: BlockName,
        #[arg(long, default_value = "gt200")]
        config: String,
        /// Hot-clock cycles per measurement (runs with a VCD: at most
        /// 50,000). Block `sm` runs a kernel instead (see --grid).
        #[arg(long, default_value_t = 4_000_000)]
        cycles: u64,
        /// Block `sm`: `examples/sm_demo.s` on this many CTAs of 128
        /// threads, on the Rust SM and the Verilated SM, with and without
        /// VCD, and on the golden model.
        #[arg(long, default_value_t = 16)]
        grid: u32,
    },
    /// Assemble a kernel source file into a program binary (prints the
    /// instruction count; errors as file:line:col with the source line).
    Asm {
        input: PathBuf,
        /// Output file (default: the input with the extension .bin).
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// Place and route the `.gpucc` blocks of a kernel whose nodes have
    /// symbolic names (docs/gpucc.md section 13): writes the kernel with
    /// every node on a core or an LSU and every value on a lane, and prints
    /// per block the cores, LSUs and lanes used and the search time.
    GpuccMap {
        input: PathBuf,
        /// Output kernel (default: standard output).
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// Stop the search after this many milliseconds.
        #[arg(long, default_value_t = 10_000)]
        time_limit_ms: u64,
    },
    /// Print a program binary as canonical assembly text.
    Disasm {
        input: PathBuf,
        /// Output file (default: standard output).
        #[arg(short, long)]
        out: Option<PathBuf>,
        /// Add each instruction's pc and 64-bit word as a comment.
        #[arg(long)]
        words: bool,
    },
    /// Run the benchmark kernels (testbenches/kernels) on the golden model,
    /// every launch shape each has, check each result against the kernel's
    /// host reference and print a report (exit 2 on a mismatch).
    Kernels {
        /// Kernel names (default: all).
        names: Vec<String>,
        #[arg(long, default_value = "gt200")]
        config: String,
        /// Also write each case's input and reference images and its
        /// `smrtl run` command line into this folder.
        #[arg(long)]
        cases: Option<PathBuf>,
    },
    /// Check Berkeley TestFloat vectors (testfloat_gen's line format) read
    /// on stdin against the reference arithmetic; prints each mismatch and
    /// a summary; exit 0 all match, 1 mismatches, 2 malformed input.
    /// TestFloat's `-rmin`, `-tininessbefore`, `-checkNaNs` spellings work.
    Testfloat {
        /// f32_add, f32_mul, f32_mulAdd, f64_add, f64_mul, f64_mulAdd (TestFloat's
        /// names, with flags), f32_add_tesla, f32_mul_tesla, f32_mad_tesla,
        /// sfu_rcp, sfu_rsqrt, sfu_lg2, sfu_ex2, sfu_sin, sfu_cos (no flags column).
        #[arg(value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<Op>()))]
        op: Op,
        /// Rounding mode: near_even, minMag, min, max, near_maxMag.
        #[arg(short = 'r', long = "rounding", default_value = "near_even",
              value_parser = clap::builder::ValueParser::new(testfloat::parse_round))]
        rounding: Round,
        /// Tininess detection for the IEEE ops' underflow flag: before, after.
        #[arg(long, default_value = "after",
              value_parser = clap::builder::ValueParser::new(testfloat::parse_tininess))]
        tininess: Tininess,
        /// Compare an expected NaN's bits exactly (IEEE ops).
        #[arg(long)]
        check_nans: bool,
        /// Mismatches printed in full (the rest are counted).
        #[arg(long, default_value_t = 20)]
        max_errors: u64,
        /// Run each vector through the preset's RTL lane (SP lane for FP32,
        /// FP64 lane for f64) instead of the reference arithmetic; results
        /// compared bit for bit, flags not (the RTL has none).
        #[arg(long)]
        rtl: bool,
        /// Preset (or TOML) whose RTL `--rtl` uses.
        #[arg(long, default_value = "gt200")]
        config: String,
        /// With `--rtl`: through the Verilated export of the lane.
        #[arg(long)]
        verilator: bool,
    },
    /// Stream random mixed warp instructions through the SP array (or the
    /// FP64 unit) with the checking testbench; write a VCD and a .gtkw
    /// grouped per lane and per thread.
    SpWaves {
        #[arg(long, default_value = "gt200")]
        config: String,
        /// The FP64 unit instead of the SP array.
        #[arg(long)]
        dpu: bool,
        /// Core cycles of traffic.
        #[arg(long, default_value_t = 400)]
        cycles: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// VCD path (default waves/sp_<config>.vcd or waves/dpu_<config>.vcd).
        #[arg(long)]
        vcd: Option<PathBuf>,
    },
    /// Directed waves of a front-end block with its checking testbench:
    /// `simt` replays the divergence kernel (one CTA, two warps) against
    /// the golden model's branch trace, `barrier` runs a release, an exit
    /// that completes a barrier, and a deadlock. Writes a VCD and a .gtkw
    /// grouped per interface, per warp and per CTA slot.
    FeWaves {
        /// `simt` or `barrier`.
        #[arg(value_parser = ["simt", "barrier"])]
        block: String,
        #[arg(long, default_value = "gt200")]
        config: String,
        /// VCD path (default waves/<block>_<config>.vcd).
        #[arg(long)]
        vcd: Option<PathBuf>,
    },
    /// Random warp instructions through a preset's SFU block with the
    /// checking testbench; write a VCD and a grouped .gtkw (dispatch,
    /// stream control, each unit's interpolator and multipliers, each
    /// thread's result).
    SfuWaves {
        #[arg(long, default_value = "gt200")]
        config: String,
        /// Warp instructions.
        #[arg(long, default_value_t = 40)]
        warps: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// VCD path (default waves/sfu_<config>.vcd).
        #[arg(long)]
        vcd: Option<PathBuf>,
    },
    /// Sweep the SFU functions (bit-exact path incl. range reduction) against
    /// an f64 reference: max error in ulps and good bits per function.
    SfuAccuracy {
        /// rcp, rsqrt, lg2, ex2, sin, cos, sin-wide or cos-wide (default: the
        /// first six).
        func: Option<String>,
        /// Worker threads (default: available cores).
        #[arg(long)]
        threads: Option<usize>,
        /// `all` (every FP32 pattern in the domain) or `sample:N`.
        #[arg(long, default_value = "all")]
        inputs: String,
        /// Seed of the random sample.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Table exploration: fit the function's table with these
        /// parameters `m,f,w1,w2,sq` (index bits, accumulator fraction bits,
        /// C1 and C2 widths, squarer width) and sweep with it instead of the
        /// checked-in table.
        #[arg(long)]
        params: Option<String>,
    },
    /// Every 32-bit input of the SFU functions through the RTL block's
    /// combinational datapath against the golden model (progress bar; exit 2
    /// on a mismatch). Run it in release.
    SfuExhaustive {
        /// rcp rsq lg2 ex2 sin cos presin preex2 (default: all eight).
        funcs: Vec<String>,
        /// Worker threads (default: available cores).
        #[arg(long)]
        threads: Option<usize>,
    },
    /// Evaluate an SFU function on FP32 inputs (hex, one per line, on stdin)
    /// as a program runs it: rcp, rsqrt, lg2 (one instruction), ex2 =
    /// EX2(PREEX2(x)), sin = SIN(PRESIN(x)), cos = COS(PRESIN(x)), sqrt =
    /// RCP(RSQ(x)); presin and preex2 alone. Prints `x result` lines (hex).
    Sfu {
        func: String,
        /// Through the clocked RTL block (concrete simulation) instead of
        /// the golden model.
        #[arg(long)]
        rtl: bool,
        /// With --rtl: run the block's Verilated export (Verilator build).
        #[arg(long)]
        verilator: bool,
        /// Preset or TOML file for --rtl.
        #[arg(long, default_value = "gt200")]
        config: String,
    },
    /// Fuzz every input reader (assembler, program loader + disassembler,
    /// config loader, TestFloat parser, `smrtl run`; `smrtl run --rtl` with
    /// `--targets rtl`) in a worker process; report cases per target and
    /// every panic, abort, hang, round-trip failure, error naming no place
    /// or lock-step failure of a valid program with a reproducer file (exit
    /// 2 on a finding). docs/fuzz.md.
    Fuzz(FuzzArgs),
    /// FPGA flow on one module of rtl/ and the modules below it, or on the
    /// whole SM of a config: Yosys synth_ecp5 and nextpnr-ecp5 place and
    /// route (LUT4/FF/RAM/DSP use against the device, Fmax per clock), or
    /// Yosys synth_xilinx counts. docs/fpga.md.
    Fpga {
        /// Module name (rtl/NAME.v), e.g. fifo_w32_d16; with --config, a
        /// module of that config's SM (default: the SM top, sm_NAME).
        #[arg(long, required_unless_present = "config")]
        module: Option<String>,
        /// Export the SM of this preset or TOML file into OUT/rtl first and
        /// run the flow on it (any config the SM builds for, e.g.
        /// configs/tesla_min.toml).
        #[arg(long, conflicts_with = "rtl")]
        config: Option<String>,
        #[arg(long, default_value = "rtl")]
        rtl: PathBuf,
        #[arg(long, value_enum, default_value = "ecp5")]
        family: smrtl::fpga::Family,
        /// ecp5: device and package (default LFE5UM-85F-CABGA381);
        /// xilinx: synth_xilinx -family (default xc7).
        #[arg(long)]
        part: Option<String>,
        /// Logs, netlist and summary (default target/fpga/NAME).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Limit per tool run, seconds.
        #[arg(long, default_value_t = 3600)]
        timeout: u64,
        /// Core-clock constraint in MHz; the hot clock gets twice this.
        #[arg(long, default_value_t = 50.0)]
        core_mhz: f64,
        /// Register every input and output port on a clock (a wrapper
        /// NAME_regio around the module), so the logic between the ports
        /// and the module's registers is timed; `auto` takes the hot clock
        /// when the module has hot-clock registers. Adds the ports' flip-flops.
        #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "auto")]
        register_ports: Option<smrtl::fpga::PortClock>,
        /// Let Yosys retime: move flip-flops through the logic (ABC with
        /// -dff -D 1), e.g. an SP lane's latency registers into its datapath.
        #[arg(long)]
        retime: bool,
        /// Map LUTs with Yosys' ABC9 (-abc9), which gives fewer LUTs on
        /// the SM's blocks (docs/fpga.md).
        #[arg(long)]
        abc9: bool,
    },
    /// Regenerate the SFU coefficient tables (src/golden/arith/sfu/tables.rs).
    GenSfuTables {
        #[arg(long, default_value = "src/golden/arith/sfu/tables.rs")]
        out: PathBuf,
    },
}

fn main() {
    let cli = Cli::parse_from(testfloat::rewrite_testfloat_args(std::env::args_os()));
    match run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(1);
        }
    }
}

fn run(cli: Cli) -> Result<i32> {
    match cli.cmd {
        Cmd::Config { config } => {
            let cfg = SmConfig::load(&config)?;
            if let Some((base, taken)) = SmConfig::base_of(&config)? {
                println!("# base = \"{base}\": taken from it: {}", taken.join(", "));
            }
            print!("{}", toml::to_string(&cfg)?);
            Ok(0)
        }
        Cmd::Export { block, config, out } => {
            let cfg = SmConfig::load(&config)?;
            flows::writable_dir(&out)?;
            for f in flows::with_block(block, &cfg, &mut flows::Export { out })? {
                println!("wrote {}", f.display());
            }
            Ok(0)
        }
        Cmd::ExportAll { out } => {
            flows::writable_dir(&out)?;
            for f in smrtl::cosim::write_rtl(&flows::rtl_set_texts()?, &out)? {
                println!("wrote {}", f.display());
            }
            Ok(0)
        }
        Cmd::SmemPatterns { config, random, vcd } => {
            let cfg = SmConfig::load(&config)?;
            let vcd = vcd.unwrap_or_else(|| PathBuf::from(format!("waves/smem_{}.vcd", cfg.name)));
            let mut flow = flows::SmemPatterns {
                cfg: cfg.clone(),
                random,
                vcd,
            };
            let (report, ok) = flows::with_block(BlockName::Smem, &cfg, &mut flow)?;
            print!("{report}");
            Ok(if ok { 0 } else { 2 })
        }
        Cmd::OpcollStream { config, cycles, vcd } => {
            let cfg = SmConfig::load(&config)?;
            let (report, ok) = smrtl::testbenches::opcoll_tb::stream_report(&cfg, cycles, vcd.as_deref())
                .map_err(anyhow::Error::msg)?;
            print!("{report}");
            Ok(if ok { 0 } else { 2 })
        }
        Cmd::Sim {
            block,
            config,
            cycles,
            seed,
            vcd,
        } => {
            let cfg = SmConfig::load(&config)?;
            let r = flows::with_block(
                block,
                &cfg,
                &mut flows::Simulate {
                    hot_cycles: cycles,
                    seed,
                    p_one: 0.6,
                    vcd,
                },
            )?;
            print!("{r}");
            Ok(0)
        }
        Cmd::Cosim {
            block,
            config,
            cycles,
            seed,
            icarus_cycles,
            wave_dir,
        } => {
            let cfg = SmConfig::load(&config)?;
            let opts = Options {
                hot_cycles: cycles,
                seed,
                p_one: 0.6,
                wave_dir,
                window: 64,
            };
            let (r, ok) = flows::with_block(block, &cfg, &mut flows::Cosim { opts, icarus_cycles })?;
            print!("{r}");
            Ok(if ok { 0 } else { 2 })
        }
        Cmd::Run(a) => golden_run(a),
        Cmd::ExportProto(a) => export_proto(a),
        Cmd::Calibrate { config, reports } => {
            let cfg = SmConfig::load(&config)?;
            let rows = smrtl::sm::calibrate::calibrate(&cfg, |l| eprintln!("  running {l}"))
                .map_err(|e| anyhow::anyhow!("calibrate on {}: {e}", cfg.name))?;
            if reports {
                for r in &rows {
                    eprintln!("== {}\n{}", r.label, r.report);
                }
            }
            print!("{}", smrtl::sm::calibrate::render(&cfg, &rows));
            Ok(0)
        }
        Cmd::Progen {
            seed,
            config,
            out,
            clock,
        } => progen(seed, &config, out, clock),
        Cmd::Bench {
            block: BlockName::Sm,
            config,
            grid,
            ..
        } => {
            let cfg = SmConfig::load(&config)?;
            let t = smrtl::sm::bench::bench_sm(&cfg, grid, std::path::Path::new("waves"))
                .map_err(|e| anyhow::anyhow!("bench sm on {}: {e}", cfg.name))?;
            print!("{t}");
            Ok(0)
        }
        Cmd::Bench {
            block, config, cycles, ..
        } => {
            let cfg = SmConfig::load(&config)?;
            let rows = flows::with_block(
                block,
                &cfg,
                &mut flows::Bench {
                    hot_cycles: cycles,
                    wave_dir: PathBuf::from("waves"),
                },
            )?;
            print!("{}", flows::bench_table(&rows, cycles));
            Ok(0)
        }
        Cmd::GpuccMap {
            input,
            out,
            time_limit_ms,
        } => {
            use anyhow::Context;
            let file = input.display().to_string();
            let bytes = std::fs::read(&input).with_context(|| format!("cannot read {file}"))?;
            let src = smrtl::golden::asm::source_from_bytes(&bytes, &file).map_err(|e| anyhow::anyhow!("{e}"))?;
            let opts = smrtl::golden::gpucc::map::MapOptions {
                time_limit: std::time::Duration::from_millis(time_limit_ms),
                ..Default::default()
            };
            let t0 = std::time::Instant::now();
            match smrtl::golden::gpucc::lift::map_kernel(&src, &file, &opts) {
                Ok((text, maps, lifted)) => {
                    if let Some(l) = &lifted {
                        eprintln!(
                            "{file}: standard-mode body lifted: {} operations, {} loads and stores, {} configuration{}",
                            l.cores,
                            l.lsus,
                            l.blocks,
                            if l.blocks == 1 { "" } else { "s" }
                        );
                    }
                    for (k, m) in maps.iter().enumerate() {
                        let at = match &lifted {
                            Some(_) => format!("{file}: configuration {}", k + 1),
                            None => format!("{file}:{}", m.line),
                        };
                        if m.cores + m.lsus == 0 {
                            eprintln!("{at}: block placed by hand, kept");
                        } else {
                            eprintln!(
                                "{at}: {} cores, {} LSUs, {} lanes; {} search states in {:.3} ms",
                                m.cores,
                                m.lsus,
                                m.lanes,
                                m.states,
                                m.micros as f64 / 1000.0
                            );
                        }
                    }
                    eprintln!(
                        "{file}: mapped in {:.3} ms (reading, lifting, placing, routing, checking)",
                        t0.elapsed().as_secs_f64() * 1e3
                    );
                    match out {
                        Some(p) => std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))?,
                        None => print!("{text}"),
                    }
                    Ok(0)
                }
                Err(errs) => {
                    for e in errs.iter().take(20) {
                        eprintln!("{file}:{e}");
                    }
                    Ok(1)
                }
            }
        }
        Cmd::Asm { input, out } => {
            use anyhow::Context;
            let file = input.display().to_string();
            let bytes = std::fs::read(&input).with_context(|| format!("cannot read {file}"))?;
            let src = smrtl::golden::asm::source_from_bytes(&bytes, &file).map_err(|e| anyhow::anyhow!("{e}"))?;
            let p = match smrtl::golden::asm::assemble_all(&src, &file) {
                Ok(p) => p,
                Err(errs) => {
                    for e in errs.iter().take(20) {
                        eprintln!("{}", e.render(&src));
                    }
                    eprintln!(
                        "{} error{} in {file}",
                        errs.len(),
                        if errs.len() == 1 { "" } else { "s" }
                    );
                    return Ok(1);
                }
            };
            let out = out.unwrap_or_else(|| input.with_extension("bin"));
            std::fs::write(&out, p.to_bytes()).with_context(|| format!("cannot write {}", out.display()))?;
            println!("{}: {} instructions -> {}", p.name, p.code.len(), out.display());
            Ok(0)
        }
        Cmd::Disasm { input, out, words } => {
            use anyhow::Context;
            let b = std::fs::read(&input).with_context(|| format!("cannot read {}", input.display()))?;
            let p = smrtl::golden::isa::Program::from_bytes(&b).with_context(|| format!("{}", input.display()))?;
            let text = if words {
                smrtl::golden::asm::disassemble_with_words(&p)
            } else {
                smrtl::golden::asm::disassemble(&p)
            };
            match out {
                Some(o) => std::fs::write(&o, text).with_context(|| format!("cannot write {}", o.display()))?,
                None => print!("{text}"),
            }
            Ok(0)
        }
        Cmd::Kernels { names, config, cases } => {
            let cfg = SmConfig::load(&config)?;
            let (report, ok) = flows::kernel_suite(&cfg, &config, &names, cases.as_deref())?;
            print!("{report}");
            Ok(if ok { 0 } else { 2 })
        }
        Cmd::Testfloat {
            op,
            rounding,
            tininess,
            check_nans,
            max_errors,
            rtl,
            config,
            verilator,
        } => {
            let opts = testfloat::Options {
                op,
                rm: rounding,
                tininess,
                check_nans,
                max_errors,
            };
            let stdin = std::io::stdin().lock();
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            if verilator && !rtl {
                anyhow::bail!("--verilator needs --rtl");
            }
            if rtl {
                let cfg = SmConfig::load(&config)?;
                let mut f = smrtl::units::testfloat_rtl::rtl_compute(&cfg, op, rounding, verilator)?;
                return Ok(testfloat::run_with(
                    stdin,
                    &mut out,
                    &mut std::io::stderr(),
                    &opts,
                    &mut *f,
                )?);
            }
            Ok(testfloat::run(stdin, &mut out, &mut std::io::stderr(), &opts)?)
        }
        Cmd::SpWaves {
            config,
            dpu,
            cycles,
            seed,
            vcd,
        } => {
            let cfg = SmConfig::load(&config)?;
            let vcd = vcd
                .unwrap_or_else(|| PathBuf::from(format!("waves/{}_{}.vcd", if dpu { "dpu" } else { "sp" }, cfg.name)));
            if let Some(d) = vcd.parent().filter(|d| !d.as_os_str().is_empty()) {
                flows::writable_dir(d)?;
            }
            print!(
                "{}",
                if dpu {
                    smrtl::units::dpu::waves::dpu_waves(&cfg, cycles, seed, &vcd)?
                } else {
                    smrtl::units::sp::waves::sp_waves(&cfg, cycles, seed, &vcd)?
                }
            );
            Ok(0)
        }
        Cmd::FeWaves { block, config, vcd } => {
            let cfg = SmConfig::load(&config)?;
            let vcd = vcd.unwrap_or_else(|| PathBuf::from(format!("waves/{block}_{}.vcd", cfg.name)));
            if let Some(d) = vcd.parent().filter(|d| !d.as_os_str().is_empty()) {
                flows::writable_dir(d)?;
            }
            let s = if block == "simt" {
                smrtl::testbenches::fe_waves::simt_waves(&cfg, &vcd)?
            } else {
                smrtl::testbenches::fe_waves::barrier_waves(&cfg, &vcd)?
            };
            print!("{s}");
            Ok(0)
        }
        Cmd::SfuWaves {
            config,
            warps,
            seed,
            vcd,
        } => {
            let cfg = SmConfig::load(&config)?;
            let vcd = vcd.unwrap_or_else(|| PathBuf::from(format!("waves/sfu_{}.vcd", cfg.name)));
            if let Some(d) = vcd.parent().filter(|d| !d.as_os_str().is_empty()) {
                flows::writable_dir(d)?;
            }
            print!("{}", smrtl::units::sfu::waves::sfu_waves(&cfg, warps, seed, &vcd)?);
            Ok(0)
        }
        Cmd::SfuAccuracy {
            func,
            threads,
            inputs,
            seed,
            params,
        } => sfu_accuracy(func, threads, &inputs, seed, params.as_deref()),
        Cmd::SfuExhaustive { funcs, threads } => sfu_exhaustive(&funcs, threads),
        Cmd::Sfu {
            func,
            rtl,
            verilator,
            config,
        } => sfu_cmd(&func, rtl, verilator, &config),
        Cmd::Fuzz(a) => fuzz(a),
        Cmd::Fpga {
            module,
            config,
            rtl,
            family,
            part,
            out,
            timeout,
            core_mhz,
            register_ports,
            retime,
            abc9,
        } => {
            let (rtl, module, out) = match (config, module) {
                (Some(c), m) => {
                    let cfg = SmConfig::load(&c)?;
                    let out = out.unwrap_or_else(|| PathBuf::from("target/fpga").join(format!("sm_{}", cfg.name)));
                    let dir = out.join("rtl");
                    flows::writable_dir(&dir)?;
                    let (top, files) =
                        flows::with_block(BlockName::Sm, &cfg, &mut flows::ExportTop { out: dir.clone() })?;
                    println!(
                        "exported the SM of config `{}` ({top} and {} modules below it) into {}",
                        cfg.name,
                        files.len() - 1,
                        dir.display()
                    );
                    (dir, m.unwrap_or(top), out)
                }
                (None, Some(m)) => {
                    let out = out.unwrap_or_else(|| PathBuf::from("target/fpga").join(&m));
                    (rtl, m, out)
                }
                (None, None) => anyhow::bail!("give --module M (a module of --rtl) or --config P (the SM of a preset or file)"),
            };
            let o = smrtl::fpga::Options {
                module,
                rtl,
                family,
                part,
                out,
                timeout: std::time::Duration::from_secs(timeout),
                core_mhz,
                register_ports,
                retime,
                abc9,
            };
            smrtl::fpga::run(&o)?;
            Ok(0)
        }
        Cmd::GenSfuTables { out } => {
            let text = smrtl::golden::arith::sfu::gen::generate_source();
            anyhow::Context::with_context(std::fs::write(&out, text), || format!("cannot write {}", out.display()))?;
            println!("wrote {}", out.display());
            Ok(0)
        }
    }
}

/// Arguments of `smrtl fuzz`.
#[derive(clap::Args)]
struct FuzzArgs {
    /// Seed of the case generator (case N of a seed is always the same input).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Stop after this many cases.
    #[arg(long, default_value_t = u64::MAX)]
    cases: u64,
    /// Stop after this many seconds.
    #[arg(long, default_value_t = 60)]
    seconds: u64,
    /// Per-case timeout in milliseconds (a slower case is a hang).
    #[arg(long, default_value_t = 10_000)]
    timeout_ms: u64,
    /// Targets, comma separated: asm, bin, config, testfloat, run, rtl
    /// (default: all but rtl, the slow RTL SM target; see docs/fuzz.md).
    #[arg(long, value_delimiter = ',')]
    targets: Vec<String>,
    /// Folder for reproducer files.
    #[arg(long, default_value = "fuzz-out")]
    out: PathBuf,
    /// Run as the worker process of a supervising `smrtl fuzz`.
    #[arg(long, hide = true)]
    worker: bool,
    /// First case (worker).
    #[arg(long, hide = true, default_value_t = 0)]
    start: u64,
}

/// `smrtl fuzz`: supervise worker processes (or be one).
fn fuzz(a: FuzzArgs) -> Result<i32> {
    use smrtl::fuzz;
    let targets = fuzz::select_targets(&a.targets).map_err(anyhow::Error::msg)?;
    if a.worker {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        fuzz::worker(&targets, a.seed, a.start, a.cases, &mut out)?;
        return Ok(0);
    }
    let bar = indicatif::ProgressBar::new(a.seconds);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{elapsed_precise}/{duration_precise} [{bar:30}] {msg}")
            .map_err(anyhow::Error::msg)?
            .progress_chars("=> "),
    );
    let mut last = std::time::Instant::now();
    let t0 = last;
    let mut progress = |r: &fuzz::Report| {
        if last.elapsed().as_millis() >= 250 {
            last = std::time::Instant::now();
            bar.set_position(t0.elapsed().as_secs());
            bar.set_message(format!("{} | findings {}", r.tried_line(), r.findings.len()));
        }
    };
    let rep = fuzz::supervise(
        &targets,
        fuzz::Supervise {
            exe: std::env::current_exe()?,
            target_names: a.targets.clone(),
            seed: a.seed,
            cases: a.cases,
            duration: std::time::Duration::from_secs(a.seconds),
            timeout: std::time::Duration::from_millis(a.timeout_ms),
            out: a.out.clone(),
            progress: &mut progress,
        },
    )?;
    bar.finish_and_clear();
    print!("{rep}");
    Ok(if rep.findings.is_empty() { 0 } else { 2 })
}

/// The kernel and its launch: the arguments `smrtl run` and `smrtl
/// export-proto` share.
#[derive(clap::Args)]
struct LaunchArgs {
    /// Kernel: assembly text, or a program file ending in `.bin`.
    kernel: PathBuf,
    /// Preset name or TOML file.
    #[arg(long, default_value = "gt200")]
    config: String,
    /// Grid dimensions X[,Y] (CTAs).
    #[arg(long, default_value = "1")]
    grid: String,
    /// Block dimensions X[,Y[,Z]] (threads per CTA).
    #[arg(long, default_value = "32")]
    block: String,
    /// One parameter word: VALUE or NAME=VALUE (repeat in .param order).
    #[arg(long = "param", allow_hyphen_values = true)]
    params: Vec<String>,
    /// Initial global memory image (bytes, little-endian words).
    #[arg(long)]
    input: Option<PathBuf>,
    /// Global memory size in bytes (default: the input's size, else 0);
    /// the input is zero-extended to it.
    #[arg(long)]
    gmem_size: Option<usize>,
}

impl LaunchArgs {
    /// The kernel, assembled or loaded.
    fn program(&self) -> Result<smrtl::golden::isa::Program> {
        use anyhow::{anyhow, Context};
        use smrtl::golden::{asm, isa::Program};
        let name = self.kernel.display().to_string();
        let bytes = std::fs::read(&self.kernel).with_context(|| format!("cannot read {name}"))?;
        if self.kernel.extension().is_some_and(|e| e == "bin") {
            Program::from_bytes(&bytes).map_err(|e| anyhow!("{name}: {e}"))
        } else {
            let src = asm::source_from_bytes(&bytes, &name).map_err(|e| anyhow!("{e}"))?;
            asm::assemble(&src, &name).map_err(|e| anyhow!("{}", e.render(&src)))
        }
    }

    /// The initial image: --input zero-extended to --gmem-size.
    fn initial_image(&self) -> Result<Vec<u8>> {
        use anyhow::{bail, Context};
        let mut gmem = match &self.input {
            Some(p) => std::fs::read(p).with_context(|| format!("cannot read input image {}", p.display()))?,
            None => Vec::new(),
        };
        if let Some(n) = self.gmem_size {
            if n > 1 << 32 {
                bail!("--gmem-size {n} exceeds the 32-bit address space (4 GiB)");
            }
            if n < gmem.len() {
                bail!("--gmem-size {n} is smaller than the input image ({} bytes)", gmem.len());
            }
            if gmem.try_reserve_exact(n - gmem.len()).is_err() {
                bail!("--gmem-size {n}: cannot allocate that much host memory");
            }
            gmem.resize(n, 0);
        }
        Ok(gmem)
    }

    /// The launch: grid, block and the parameter words of `prog`.
    fn launch(&self, prog: &smrtl::golden::isa::Program) -> Result<smrtl::golden::model::Launch> {
        use anyhow::anyhow;
        use smrtl::golden::model;
        let grid = model::parse_dims::<2>(&self.grid).map_err(|e| anyhow!("--grid {e}"))?;
        let block = model::parse_dims::<3>(&self.block).map_err(|e| anyhow!("--block {e}"))?;
        let params = model::resolve_params(&prog.params, &self.params).map_err(|e| anyhow!("{e}"))?;
        Ok(model::Launch { grid, block, params })
    }
}

/// Arguments of `smrtl export-proto`.
#[derive(clap::Args)]
struct ExportProtoArgs {
    #[command(flatten)]
    l: LaunchArgs,
    /// Folder to write the design, the memory images, the testbench and
    /// the scripts into.
    #[arg(long)]
    out: PathBuf,
    /// Global-memory latency of the top's memory in core cycles (default:
    /// the preset's `gmem_latency`; at least 2).
    #[arg(long)]
    gmem_latency: Option<u32>,
    /// The testbench's default cycle limit in core cycles (the scripts
    /// take `+max_cycles=N` too).
    #[arg(long, default_value_t = 5_000_000)]
    max_cycles: u64,
}

/// `smrtl export-proto`: the kernel's launch as a standalone Verilog design.
fn export_proto(a: ExportProtoArgs) -> Result<i32> {
    let cfg = SmConfig::load(&a.l.config)?;
    let prog = a.l.program()?;
    let gmem = a.l.initial_image()?;
    let launch = a.l.launch(&prog)?;
    let opts = smrtl::sm::proto::ProtoOptions {
        gmem_latency: a.gmem_latency,
        max_cycles: a.max_cycles,
    };
    let files = smrtl::sm::proto::export(&cfg, &prog, &launch, &gmem, &opts, &a.out)?;
    println!(
        "wrote {} files into {} (Verilog in rtl/, memory images, tb_proto.v, run_icarus.sh, run_verilator.sh)",
        files.len(),
        a.out.display()
    );
    Ok(0)
}

/// Arguments of `smrtl run`.
#[derive(clap::Args)]
struct GoldenRun {
    #[command(flatten)]
    l: LaunchArgs,
    /// Where to write the final global memory image; also written when
    /// the launch is rejected (the initial image) or the run fails (the
    /// image so far). Not written when the config, kernel, --input or
    /// --gmem-size is unusable.
    #[arg(long)]
    output: Option<PathBuf>,
    /// Instruction budget in warp instructions.
    #[arg(long, default_value_t = smrtl::golden::model::DEFAULT_BUDGET)]
    budget: u64,
    /// Print each retired warp instruction to stderr.
    #[arg(long)]
    trace: bool,
    /// A read of a shared-memory word its CTA never wrote (undefined at CTA
    /// start) is an error that stops the run (default: a warning with a
    /// count and the first few places). With --rtl it needs the golden
    /// check (not with --no-check).
    #[arg(long)]
    strict_init: bool,
    /// Run on the RTL SM (lock-step against the golden model) and print
    /// its performance report.
    #[arg(long)]
    rtl: bool,
    /// GPU-CC kernels (`--config gpucc`): the SIMT code on the golden
    /// model and every GPU-CC run on the RTL network (src/units/gpucc),
    /// checked against the golden dataflow model token by token; prints
    /// each run's hot cycles and firings. The network stands alone: a
    /// memory of `--gmem-latency` core cycles (default the preset's) in
    /// request order, no L1 and no bandwidth limit (docs/gpucc.md). With
    /// --vcd: waves of the network, run k > 0 in `<stem>.run<k>.vcd`.
    #[arg(long, conflicts_with = "rtl")]
    gpucc_rtl: bool,
    /// With --rtl: waves of the whole SM (VCD, with a grouped .gtkw beside
    /// it). A path ending in `.fst` writes the VCD, converts it with
    /// `vcd2fst` (GTKWave's tool) and keeps the smaller FST.
    #[arg(long)]
    vcd: Option<PathBuf>,
    /// With --rtl --vcd: only core cycles FROM:TO.
    #[arg(long)]
    vcd_window: Option<String>,
    /// With --rtl: core-cycle budget (error 11 when exhausted).
    #[arg(long, default_value_t = 5_000_000)]
    max_cycles: u64,
    /// With --rtl: do not check against the golden model (speed runs).
    #[arg(long)]
    no_check: bool,
    /// With --rtl: write the report to this file too.
    #[arg(long)]
    report: Option<PathBuf>,
    /// With --rtl: simulate the SM's Verilated export instead of the Rust
    /// model (builds it with Verilator on first use, then cached), or
    /// `lockstep`: both, every output compared every hot cycle.
    #[arg(long, value_enum, default_value_t = EngineArg::Rust)]
    engine: EngineArg,
    /// With --rtl: global memory latency in core cycles (default: the
    /// preset's, docs/lsu.md "Global memory model").
    #[arg(long)]
    gmem_latency: Option<u32>,
    /// With --rtl: global memory bandwidth per SM in bytes per core cycle
    /// (default: the preset's share of the board's DRAM bandwidth).
    #[arg(long)]
    gmem_bandwidth: Option<f64>,
    /// With --rtl: global memory answers reads out of order, the order
    /// drawn from this seed (default: in order).
    #[arg(long)]
    gmem_ooo_seed: Option<u64>,
}

/// `--engine` of `smrtl run --rtl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum EngineArg {
    /// The Rust model.
    Rust,
    /// The Verilated export.
    Verilator,
    /// Both in lock-step, every output every hot cycle.
    Lockstep,
}

/// `smrtl run`: assemble or load the kernel, run it on the golden model,
/// write the output image (even after a failed run), print the counts.
fn golden_run(a: GoldenRun) -> Result<i32> {
    use anyhow::{anyhow, Context};
    use smrtl::golden::model;
    let cfg = SmConfig::load(&a.l.config)?;
    if a.gpucc_rtl {
        smrtl::golden::gpucc::gpucc_section(&cfg).map_err(|e| anyhow!("--gpucc-rtl: {e}"))?;
    }
    let name = a.l.kernel.display().to_string();
    let prog = a.l.program()?;
    let initial_image = || a.l.initial_image();
    let gmem = initial_image()?;
    // From here on a failure still writes --output (a rejected launch
    // leaves the initial image).
    let launch = a.l.launch(&prog);
    if a.rtl {
        // GPU-CC instructions on a preset without the network: stop before
        // building the SM.
        if let Some(msg) = smrtl::golden::gpucc::rtl_refusal(&prog, &cfg, &name) {
            if let Some(out) = &a.output {
                std::fs::write(out, &gmem).with_context(|| format!("cannot write output image {}", out.display()))?;
            }
            return Err(anyhow!("{msg}"));
        }
        let l = match launch {
            Ok(l) => l,
            Err(e) => {
                if let Some(out) = &a.output {
                    std::fs::write(out, &gmem)
                        .with_context(|| format!("cannot write output image {}", out.display()))?;
                }
                return Err(e);
            }
        };
        return rtl_run(&a, &cfg, &prog, &l, gmem);
    }
    let started = launch.and_then(|l| model::Golden::new(&cfg, &prog, &l, gmem).map_err(anyhow::Error::from));
    let mut g = match started {
        Ok(g) => g,
        Err(e) => {
            if let Some(out) = &a.output {
                let image = initial_image()?;
                std::fs::write(out, image).with_context(|| format!("cannot write output image {}", out.display()))?;
            }
            return Err(e);
        }
    };
    g.set_strict_init(a.strict_init);
    let gpucc_log = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    if a.gpucc_rtl {
        let latency = 2 * a.gmem_latency.map_or(cfg.gmem_latency as u64, |l| l as u64).max(1);
        let (cfg2, vcd, log) = (cfg.clone(), a.vcd.clone(), gpucc_log.clone());
        let mut k = 0usize;
        g.set_gpucc_runner(Box::new(move |net, gmem, _budget| {
            use smrtl::testbenches::gpucc_tb;
            let vcd = vcd.as_ref().map(|p| {
                if k == 0 {
                    p.clone()
                } else {
                    p.with_extension(format!("run{k}.vcd"))
                }
            });
            let o = gpucc_tb::TbOpts {
                latency,
                vcd: vcd.clone(),
                ..Default::default()
            };
            let r = gpucc_tb::run(net, &cfg2, gmem, &o).map_err(|e| format!("RTL network, run {k}: {e}"))?;
            let fired: u64 = r.firings.iter().sum();
            let mut l = log.lock().expect("log");
            l.push(format!(
                "GPU-CC run {k} on the RTL network: {} hot cycles ({} core cycles), {fired} firings ({} nodes), {} loads, {} stores, {} tokens and requests checked against the golden model, 0 mismatches{}",
                r.hot_cycles,
                r.hot_cycles.div_ceil(2),
                r.firings.iter().filter(|&&f| f > 0).count(),
                r.loads,
                r.stores,
                r.checked,
                vcd.map_or(String::new(), |p| format!("; waves {}", p.display()))
            ));
            l.push(r.per_node(net).trim_end().to_string());
            k += 1;
            Ok(smrtl::golden::gpucc::flow::FlowStats {
                firings: r.firings,
                sweeps: 0,
                loads: r.loads,
                stores: r.stores,
            })
        }));
    }
    let result = if a.trace {
        g.set_budget(a.budget);
        loop {
            match g.step() {
                Ok(Some(r)) => eprintln!("{r}"),
                Ok(None) => break Ok(g.stats().clone()),
                Err(e) => break Err(e),
            }
        }
    } else {
        g.run(a.budget)
    };
    if let Some(out) = &a.output {
        std::fs::write(out, g.gmem()).with_context(|| format!("cannot write output image {}", out.display()))?;
    }
    print!("{}", g.stats());
    for l in gpucc_log.lock().expect("log").iter() {
        println!("{l}");
    }
    for (k, r) in g.gpucc_runs().iter().enumerate().filter(|_| !a.gpucc_rtl) {
        println!(
            "GPU-CC run {k}: {} firings ({} nodes), {} loads, {} stores, {} sweeps",
            r.firings.iter().sum::<u64>(),
            r.firings.iter().filter(|&&f| f > 0).count(),
            r.loads,
            r.stores,
            r.sweeps
        );
    }
    match result {
        Ok(_) => {
            if let Some(out) = &a.output {
                println!("wrote {} ({} bytes)", out.display(), g.gmem().len());
            }
            Ok(0)
        }
        Err(e) => Err(anyhow!("{name}: {e}")),
    }
}

/// The global memory model of `smrtl run --rtl`: the config's `gmem_*`
/// fields with `--gmem-latency`, `--gmem-bandwidth` and `--gmem-ooo-seed`
/// applied (None when none is given, so the run uses the config's model).
fn gmem_options(a: &GoldenRun, cfg: &SmConfig) -> Result<Option<smrtl::testbenches::gmem::GmemConfig>> {
    if a.gmem_latency.is_none() && a.gmem_bandwidth.is_none() && a.gmem_ooo_seed.is_none() {
        return Ok(None);
    }
    let mut g = smrtl::testbenches::gmem::GmemConfig::of(cfg);
    if let Some(l) = a.gmem_latency {
        if l == 0 {
            anyhow::bail!("--gmem-latency 0: the memory needs at least one core cycle");
        }
        g.latency = l;
    }
    if let Some(b) = a.gmem_bandwidth {
        if !(b.is_finite() && b > 0.0 && b <= 1.0e6) {
            anyhow::bail!("--gmem-bandwidth {b}: want bytes per core cycle in (0, 1000000]");
        }
        g.milli_bytes_per_cycle = (b * 1000.0).round().max(1.0) as u64;
    }
    if let Some(s) = a.gmem_ooo_seed {
        g.out_of_order = true;
        g.seed = s;
    }
    Ok(Some(g))
}

/// `smrtl run --rtl`: the kernel on the RTL SM, lock-step against the
/// golden model; the output image, the report and the waves are written
/// even when the run fails.
fn rtl_run(
    a: &GoldenRun,
    cfg: &SmConfig,
    prog: &smrtl::golden::isa::Program,
    launch: &smrtl::golden::model::Launch,
    gmem: Vec<u8>,
) -> Result<i32> {
    use anyhow::{anyhow, Context};
    use smrtl::sm::run::RtlOptions;
    let window = match &a.vcd_window {
        None => None,
        Some(w) => {
            let (f, t) = w
                .split_once(':')
                .ok_or_else(|| anyhow!("--vcd-window `{w}`: want FROM:TO (core cycles)"))?;
            let f: u64 = f
                .trim()
                .parse()
                .map_err(|_| anyhow!("--vcd-window `{w}`: FROM is not a number"))?;
            let t: u64 = t
                .trim()
                .parse()
                .map_err(|_| anyhow!("--vcd-window `{w}`: TO is not a number"))?;
            if t <= f {
                anyhow::bail!("--vcd-window `{w}`: TO must be after FROM");
            }
            Some((f, t))
        }
    };
    if window.is_some() && a.vcd.is_none() {
        anyhow::bail!("--vcd-window needs --vcd PATH");
    }
    if a.strict_init && a.no_check {
        anyhow::bail!("--strict-init needs the golden model's check, which --no-check turns off");
    }
    // `--vcd x.fst`: the simulator writes `x.fst.vcd`, converted at the end.
    let fst = a.vcd.as_ref().filter(|p| p.extension().is_some_and(|e| e == "fst"));
    let vcd_path = match fst {
        Some(p) => Some(with_suffix(p, ".vcd")),
        None => a.vcd.clone(),
    };
    let opts = RtlOptions {
        max_cycles: a.max_cycles,
        vcd: vcd_path.clone(),
        vcd_window: window,
        check: !a.no_check,
        gmem: gmem_options(a, cfg)?,
        progress: if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            100_000
        } else {
            0
        },
        engine: match a.engine {
            EngineArg::Rust => smrtl::sm::run::Engine::Rust,
            EngineArg::Verilator => smrtl::sm::run::Engine::Verilator,
            EngineArg::Lockstep => smrtl::sm::run::Engine::Lockstep,
        },
        strict_init: a.strict_init,
    };
    let r = smrtl::sm::run::run_program(cfg, prog, launch, gmem, &opts);
    let (report, image, err) = match r {
        Ok(ok) => (ok.report, ok.gmem, None),
        Err(e) => (e.report.clone(), e.gmem.clone(), Some(e)),
    };
    let text = report.render();
    print!("{text}");
    if let Some(p) = &a.report {
        std::fs::write(p, &text).with_context(|| format!("cannot write report {}", p.display()))?;
        println!("wrote {}", p.display());
    }
    if let Some(out) = &a.output {
        std::fs::write(out, &image).with_context(|| format!("cannot write output image {}", out.display()))?;
        println!("wrote {} ({} bytes)", out.display(), image.len());
    }
    match (fst, &vcd_path) {
        (Some(_), Some(v)) if !v.exists() => println!("no waves: the VCD window was never reached"),
        (Some(f), Some(v)) => match vcd_to_fst(v, f) {
            Ok(()) => println!("wrote {} (open with: gtkwave {}.gtkw)", f.display(), f.display()),
            Err(e) => println!("kept {}: {e}", v.display()),
        },
        (None, Some(v)) => println!("wrote {} (open with: gtkwave {}.gtkw)", v.display(), v.display()),
        _ => {}
    }
    match err {
        None => Ok(0),
        Some(e) => Err(anyhow!("{}: {e}", a.l.kernel.display())),
    }
}

/// `path` with `suffix` appended to its file name (`x.fst` -> `x.fst.vcd`).
fn with_suffix(path: &std::path::Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(suffix);
    PathBuf::from(p)
}

/// Convert `vcd` to `fst` with `vcd2fst`, remove the VCD and point its
/// `.gtkw` at the FST (`<fst>.gtkw`). On failure the VCD and its `.gtkw`
/// stay where they are and the error says why.
fn vcd_to_fst(vcd: &std::path::Path, fst: &std::path::Path) -> Result<()> {
    use anyhow::{anyhow, Context};
    let o = std::process::Command::new("vcd2fst")
        .arg(vcd)
        .arg(fst)
        .output()
        .map_err(|e| anyhow!("cannot run vcd2fst ({e}; it comes with GTKWave: apt-get install gtkwave)"))?;
    if !o.status.success() {
        anyhow::bail!("vcd2fst failed: {}", String::from_utf8_lossy(&o.stderr).trim());
    }
    // `<x>.fst.vcd.gtkw` is the simulator's save file for `<x>.fst.vcd`.
    use smrtl::hdl::gtkw::{header, save_path};
    let (vg, fg) = (save_path(vcd), save_path(fst));
    if let Ok(text) = std::fs::read_to_string(&vg) {
        let text = text.replacen(&header(vcd, &vg), &header(fst, &fg), 1);
        std::fs::write(&fg, text).with_context(|| format!("cannot write {}", fg.display()))?;
        let _ = std::fs::remove_file(&vg);
    }
    std::fs::remove_file(vcd).with_context(|| format!("cannot remove {}", vcd.display()))?;
    Ok(())
}

fn sfu_accuracy(
    func: Option<String>,
    threads: Option<usize>,
    inputs: &str,
    seed: u64,
    params: Option<&str>,
) -> Result<i32> {
    use smrtl::golden::arith::sfu::accuracy::{self, Func, Inputs};
    use smrtl::golden::arith::sfu::gen;
    let funcs: Vec<Func> = match func.as_deref() {
        None => Func::MAIN.to_vec(),
        Some(name) => match Func::parse(name) {
            Some(f) => vec![f],
            None => anyhow::bail!(
                "unknown SFU function `{name}` (want one of: {})",
                Func::ALL.map(|f| f.name()).join(", ")
            ),
        },
    };
    let inputs: Inputs = inputs.parse().map_err(anyhow::Error::msg)?;
    let threads = match threads {
        Some(0) => anyhow::bail!("--threads must be at least 1"),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let table = match params {
        None => None,
        Some(p) => {
            let [f] = funcs[..] else {
                anyhow::bail!("--params needs one function name")
            };
            let mut all = gen::CHOSEN;
            all[f.table_index()] = p.parse().map_err(anyhow::Error::msg)?;
            let spec = gen::specs_with(&all)[f.table_index()];
            let fit = gen::fit(&spec);
            let t = gen::to_table(&spec, &fit);
            println!(
                "table {} params {p}: {} rows x ({} + {} + {}) = {} bits, fit error {:.3} units of 2^-{}",
                spec.name,
                t.rows(),
                t.w0,
                t.w1,
                t.w2,
                t.storage_bits(),
                fit.max_err,
                t.f
            );
            Some(t)
        }
    };
    let mut rows = Vec::new();
    let start = std::time::Instant::now();
    for f in funcs {
        let t = std::time::Instant::now();
        let row = accuracy::sweep_with(f, table.as_ref(), inputs, threads, true, seed);
        eprintln!(
            "{}: {} inputs in {:.1} s",
            f.name(),
            row.inputs,
            t.elapsed().as_secs_f64()
        );
        rows.push(row);
    }
    print!("{}", accuracy::table(&rows));
    println!(
        "inputs: {inputs:?}, threads: {threads}, total time {:.1} s",
        start.elapsed().as_secs_f64()
    );
    let ok = rows.iter().all(|r| r.good_bits() >= 22.0);
    println!(
        "{}",
        if ok {
            "all >= 22 good bits"
        } else {
            "FAIL: some function below 22 good bits"
        }
    );
    Ok(if ok { 0 } else { 2 })
}

fn sfu_exhaustive(funcs: &[String], threads: Option<usize>) -> Result<i32> {
    use smrtl::testbenches::sfu_tb::{exhaustive, NAMES};
    let ops: Vec<u8> = if funcs.is_empty() {
        (0x30..=0x37).collect()
    } else {
        funcs
            .iter()
            .map(|f| match NAMES.iter().position(|n| n == f) {
                Some(k) => Ok(0x30 + k as u8),
                None => Err(anyhow::anyhow!(
                    "unknown SFU function `{f}` (want one of: {})",
                    NAMES.join(", ")
                )),
            })
            .collect::<Result<_>>()?
    };
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let mut bad_total = 0;
    println!("| fn | inputs | mismatches | seconds |");
    println!("|---|---:|---:|---:|");
    for op in ops {
        let t = std::time::Instant::now();
        let (n, bad, first) = exhaustive(op, 0, 1 << 32, threads, true);
        println!(
            "| {} | {n} | {bad} | {:.1} |",
            NAMES[(op & 7) as usize],
            t.elapsed().as_secs_f64()
        );
        for m in first {
            println!("  x {:#010x}: RTL {:#010x}, golden {:#010x}", m.x, m.rtl, m.golden);
        }
        bad_total += bad;
    }
    println!("threads: {threads}");
    Ok(if bad_total == 0 { 0 } else { 2 })
}

fn sfu_cmd(func: &str, rtl: bool, verilator: bool, config: &str) -> Result<i32> {
    if verilator && !rtl {
        anyhow::bail!("--verilator runs the RTL: use it with --rtl");
    }
    use anyhow::{bail, Context};
    use std::io::BufRead;
    let seq: &[u8] = match func {
        "rcp" => &[0x30],
        "rsqrt" | "rsq" => &[0x31],
        "lg2" => &[0x32],
        "ex2" => &[0x37, 0x33],
        "sin" => &[0x36, 0x34],
        "cos" => &[0x36, 0x35],
        "sqrt" => &[0x31, 0x30],
        "presin" => &[0x36],
        "preex2" => &[0x37],
        _ => bail!("unknown SFU function `{func}` (want rcp, rsqrt, lg2, ex2, sin, cos, sqrt, presin, preex2)"),
    };
    let mut xs = Vec::new();
    for (k, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.context("cannot read stdin")?;
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let h = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")).unwrap_or(t);
        match u32::from_str_radix(h, 16) {
            Ok(v) => xs.push(v),
            Err(e) => bail!("stdin line {}: `{t}` is not a 32-bit hex value ({e})", k + 1),
        }
    }
    let mut ys = xs.clone();
    if rtl {
        let cfg = SmConfig::load(config)?;
        let blk =
            smrtl::units::sfu::Sfu::from_config(&cfg).map_err(|e| anyhow::anyhow!("config `{}`: {e}", cfg.name))?;
        let mut sim = smrtl::testbenches::sfu_tb::SfuStepper::new(blk, verilator)?;
        for &op in seq {
            ys = smrtl::testbenches::sfu_tb::rtl_apply(&mut sim, op, &ys).map_err(anyhow::Error::msg)?;
        }
    } else {
        for &op in seq {
            for y in ys.iter_mut() {
                *y = smrtl::testbenches::sfu_tb::golden(op, *y).unwrap_or(0);
            }
        }
    }
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (x, y) in xs.iter().zip(&ys) {
        writeln!(out, "{x:08x} {y:08x}")?;
    }
    Ok(0)
}

/// `smrtl progen`: write a generated program and its input image.
fn progen(seed: u64, config: &str, out: Option<PathBuf>, clock: bool) -> Result<i32> {
    use anyhow::Context;
    use smrtl::testbenches::progen::{generate_with, Opts};
    let cfg = SmConfig::load(config)?;
    let case = generate_with(
        &cfg,
        seed,
        Opts {
            clock,
            ..Opts::default()
        },
    );
    let out = out.unwrap_or_else(|| PathBuf::from(format!("progen_{seed}_{config}.sasm")));
    let input = out.with_extension("gmem.bin");
    let text = case.text(&out.display().to_string(), &input.display().to_string());
    std::fs::write(&out, &text).with_context(|| format!("cannot write {}", out.display()))?;
    std::fs::write(&input, &case.gmem).with_context(|| format!("cannot write {}", input.display()))?;
    println!(
        "{}: {} instructions, grid {:?} block {:?} -> {} + {}",
        case.program.name,
        case.program.code.len(),
        case.launch.grid,
        case.launch.block,
        out.display(),
        input.display()
    );
    println!("{}", text.lines().nth(1).unwrap_or_default().trim_start_matches("; "));
    Ok(0)
}
