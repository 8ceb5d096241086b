//! The `smrtl` command line.
use anyhow::Result;
use clap::{Parser, Subcommand};
use smrtl::cosim::Options;
use smrtl::flows::{self, BlockName};
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
    /// Speed of the Rust model vs the Verilated export of a block, same run.
    Bench {
        #[arg(default_value = "mad-rf")]
        block: BlockName,
        #[arg(long, default_value = "gt200")]
        config: String,
        /// Hot-clock cycles per measurement.
        #[arg(long, default_value_t = 4_000_000)]
        cycles: u64,
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
    },
    /// Regenerate the SFU coefficient tables (src/golden/arith/sfu/tables.rs).
    GenSfuTables {
        #[arg(long, default_value = "src/golden/arith/sfu/tables.rs")]
        out: PathBuf,
    },
}

fn main() {
    let cli = Cli::parse();
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
            print!("{}", toml::to_string(&SmConfig::load(&config)?)?);
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
        Cmd::Bench { block, config, cycles } => {
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
        Cmd::SfuAccuracy {
            func,
            threads,
            inputs,
            seed,
        } => sfu_accuracy(func, threads, &inputs, seed),
        Cmd::GenSfuTables { out } => {
            let text = smrtl::golden::arith::sfu::gen::generate_source();
            anyhow::Context::with_context(std::fs::write(&out, text), || format!("cannot write {}", out.display()))?;
            println!("wrote {}", out.display());
            Ok(0)
        }
    }
}

fn sfu_accuracy(func: Option<String>, threads: Option<usize>, inputs: &str, seed: u64) -> Result<i32> {
    use smrtl::golden::arith::sfu::accuracy::{self, Func, Inputs};
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
    let mut rows = Vec::new();
    let start = std::time::Instant::now();
    for f in funcs {
        let t = std::time::Instant::now();
        let row = accuracy::sweep(f, inputs, threads, true, seed);
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
