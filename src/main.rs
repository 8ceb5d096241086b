//! The `smrtl` command line.
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "smrtl", version, about = "Bit-accurate, cycle-accurate RTL model of a GPU SM")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print a preset configuration as TOML.
    Config {
        /// Preset name or path to a TOML file.
        #[arg(default_value = "gt200")]
        config: String,
    },
}

fn main() {
    let cli = Cli::parse();
    let r: anyhow::Result<i32> = match cli.cmd {
        Cmd::Config { config } => smrtl::sm::SmConfig::load(&config)
            .map_err(anyhow::Error::from)
            .and_then(|c| Ok(toml::to_string(&c)?))
            .map(|s| {
                print!("{s}");
                0
            }),
    };
    match r {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::exit(1);
        }
    }
}
