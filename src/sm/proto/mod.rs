//! `smrtl export-proto`: a kernel launch as a standalone Verilog design.
//! Writes into one folder the SM's Verilog (every module, as `smrtl
//! export` writes them) under `rtl/`, the prototyping top
//! `rtl/sm_<preset>_proto.v` ([`top`]), the memory images it loads with
//! `$readmemh` (`imem.hex`, `gmem.hex`, `launch.hex`), the testbench
//! `tb_proto.v` and the scripts `run_icarus.sh` / `run_verilator.sh`
//! ([`tb`]), which build and run it with no Rust in the loop and write the
//! final global memory to `gmem_out.bin`. docs/fpga.md, "The prototyping
//! top".

mod tb;
pub mod top;

use crate::config::SmConfig;
use crate::golden::isa::Program;
use crate::golden::model::Launch;
use crate::hdl::trace::PortInfo;
use crate::hdl::{Block, Concrete, Sim};
use crate::sm::top::{SmIn, SmOut};
use anyhow::{anyhow, bail, Context, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Largest global-memory image the export accepts (it becomes an on-chip
/// array and a text image).
pub const MAX_GMEM_BYTES: usize = 1 << 28;

/// What `export-proto` takes besides the kernel and its launch.
#[derive(Debug, Clone)]
pub struct ProtoOptions {
    /// Global-memory read latency in core cycles (default: the preset's
    /// `gmem_latency`); at least 2.
    pub gmem_latency: Option<u32>,
    /// The testbench's default cycle limit (core cycles).
    pub max_cycles: u64,
}

impl Default for ProtoOptions {
    fn default() -> Self {
        ProtoOptions {
            gmem_latency: None,
            max_cycles: 5_000_000,
        }
    }
}

/// The SM's Verilog and its top's name and host ports.
struct SmText {
    texts: Vec<(String, String)>,
    name: String,
    inputs: Vec<PortInfo>,
    outputs: Vec<PortInfo>,
}

struct EmitSm;

impl crate::sm::top::SmFn for EmitSm {
    type Out = SmText;
    fn call<K>(&mut self, sm: K) -> Result<SmText>
    where
        K: Block<In<Concrete> = SmIn<Concrete>, Out<Concrete> = SmOut<Concrete>> + Clone + 'static,
    {
        let sim = Sim::new(sm).map_err(|e| anyhow!("{e}"))?;
        let d = sim.design();
        let top = &d.modules[d.top];
        Ok(SmText {
            texts: crate::hdl::verilog::emit(d),
            name: top.name.clone(),
            inputs: top.inputs.clone(),
            outputs: top.outputs.clone(),
        })
    }
}

/// Bits to address `n` items (at least 1).
fn addr_bits(n: u64) -> u32 {
    n.max(2).next_power_of_two().trailing_zeros()
}

/// `lines` lines of `words` words each (`width` bits a word), the highest
/// word of a line first, from `word(line, k)`.
fn hex_lines(lines: u64, words: usize, width: usize, word: impl Fn(u64, usize) -> u64) -> String {
    let digits = width / 4;
    let mut s = String::with_capacity(lines as usize * (words * digits + 1));
    for l in 0..lines {
        for k in (0..words).rev() {
            let _ = write!(s, "{:0digits$x}", word(l, k));
        }
        s.push('\n');
    }
    s
}

/// The launch ROM's words: the launch, then the parameter words, padded.
fn launch_words(prog: &Program, launch: &Launch, gm_bytes: u32) -> Vec<u32> {
    let mut w = vec![
        launch.grid[0],
        launch.grid[1],
        launch.block[0],
        launch.block[1],
        launch.block[2],
        prog.regs,
        prog.shared_bytes,
        prog.code.len() as u32,
        gm_bytes,
        launch.params.len() as u32,
    ];
    debug_assert_eq!(w.len(), top::LAUNCH_HEAD);
    w.extend(&launch.params);
    w.resize(top::LAUNCH_HEAD + top::MAX_PARAMS, 0);
    w
}

/// Write the prototyping design of `prog` launched with `launch` on the SM
/// of `cfg`, global memory `gmem` at launch, into `out`; returns the files
/// written. Errors (never panics) for a launch the SM cannot take, a
/// preset without an exported SM, an image too large for the top or a
/// folder that cannot be written.
pub fn export(
    cfg: &SmConfig,
    prog: &Program,
    launch: &Launch,
    gmem: &[u8],
    opts: &ProtoOptions,
    out: &Path,
) -> Result<Vec<PathBuf>> {
    crate::sm::run::launch::check(prog, launch).map_err(|e| anyhow!("{e}"))?;
    // The golden model's own launch checks (dimensions, parameter count).
    crate::golden::model::Golden::new(cfg, prog, launch, gmem.to_vec()).map_err(|e| anyhow!("launch rejected: {e}"))?;
    if let Some(msg) = crate::golden::gpucc::rtl_refusal(prog, cfg, &prog.name) {
        bail!("{msg}");
    }
    if gmem.len() > MAX_GMEM_BYTES {
        bail!(
            "global memory of {} bytes: the prototyping top holds at most {MAX_GMEM_BYTES} bytes on chip",
            gmem.len()
        );
    }
    let gm_latency = opts.gmem_latency.unwrap_or(cfg.gmem_latency);
    if !(2..=u16::MAX as u32).contains(&gm_latency) {
        bail!("global-memory latency {gm_latency}: the prototyping top takes 2..=65535 core cycles");
    }
    let sm = crate::sm::top::with_sm(cfg, &mut EmitSm)
        .with_context(|| format!("config `{}` has no exported SM for the prototyping top", cfg.name))?;
    crate::flows::writable_dir(out)?;
    let im_lines = (prog.code.len() as u64).div_ceil(8);
    let gm_lines = (gmem.len() as u64).div_ceil(128);
    let p = top::TopParams {
        im_aw: addr_bits(im_lines),
        gm_aw: addr_bits(gm_lines),
        gm_bytes: gmem.len() as u32,
        im_latency: cfg.imem_latency.clamp(1, u16::MAX as u32),
        gm_latency,
    };
    let proto = format!("{}_proto", sm.name);
    let top_text = top::proto_top(&sm.name, &sm.inputs, &sm.outputs, &p)
        .map_err(|e| anyhow!("the prototyping top of `{}`: {e}", sm.name))?;
    let mut texts = sm.texts;
    texts.push((proto.clone(), top_text));
    let rtl = out.join("rtl");
    let mut files = crate::cosim::write_rtl(&texts, &rtl).with_context(|| format!("cannot write {}", rtl.display()))?;

    let words: Vec<u64> = prog.code.iter().map(|i| i.encode()).collect();
    let imem = hex_lines(1 << p.im_aw, 8, 64, |l, k| {
        words.get(l as usize * 8 + k).copied().unwrap_or(0)
    });
    let gmem_hex = hex_lines(1 << p.gm_aw, 32, 32, |l, k| {
        let a = l as usize * 128 + 4 * k;
        let mut b = [0u8; 4];
        for (i, x) in b.iter_mut().enumerate() {
            *x = gmem.get(a + i).copied().unwrap_or(0);
        }
        u32::from_le_bytes(b) as u64
    });
    let rom = launch_words(prog, launch, p.gm_bytes);
    let launch_hex = hex_lines(rom.len() as u64, 1, 32, |l, _| rom[l as usize] as u64);
    let bytes = gmem.len() as u64;
    let plain = [
        ("imem.hex", imem),
        ("gmem.hex", gmem_hex),
        ("launch.hex", launch_hex),
        ("tb_proto.v", tb::testbench(&proto, 1 << p.gm_aw, opts.max_cycles)),
        ("run_icarus.sh", tb::run_icarus(bytes)),
        ("run_verilator.sh", tb::run_verilator(bytes)),
    ];
    for (name, text) in plain {
        let f = out.join(name);
        std::fs::write(&f, text).with_context(|| format!("cannot write {}", f.display()))?;
        if name.ends_with(".sh") {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o755))
                    .with_context(|| format!("cannot make {} executable", f.display()))?;
            }
        }
        files.push(f);
    }
    Ok(files)
}
