//! The launch of a kernel on the RTL SM: the checks of the program and the
//! launch against the SM's launch ports, and the host sequence on
//! [`SmIn`]: the parameter words one per core cycle (`param_*`), then one
//! launch pulse.

use crate::golden::isa::Program;
use crate::golden::model::Launch;
use crate::hdl::{Bits, Concrete};
use crate::sm::top::SmIn;
use crate::units::cta::LaunchPorts;

/// Why the SM cannot run `prog` with `launch`: a program longer than its
/// 16-bit pc, a dimension wider than its launch port (the hardware would
/// cut it silently), or more parameter words than the parameter memory.
pub fn check(prog: &Program, launch: &Launch) -> Result<(), String> {
    if prog.code.len() > u16::MAX as usize {
        return Err("program longer than 65,535 instructions".into());
    }
    // The launch ports' widths (`SmIn`, src/units/cta).
    for (what, v, bits) in [
        ("grid x", launch.grid[0], 16),
        ("grid y", launch.grid[1], 16),
        ("block x", launch.block[0], 11),
        ("block y", launch.block[1], 11),
        ("block z", launch.block[2], 7),
        ("shared bytes", prog.shared_bytes, 17),
    ] {
        if v >> bits != 0 {
            return Err(format!(
                "launch rejected: {what} = {v} does not fit the SM's {bits}-bit launch port (at most {})",
                (1u32 << bits) - 1
            ));
        }
    }
    if launch.params.len() > 256 {
        return Err("more than 256 parameter words".into());
    }
    Ok(())
}

/// The host's launch sequence.
pub struct Launcher<'a> {
    prog: &'a Program,
    launch: &'a Launch,
    /// The launch pulse was driven.
    launched: bool,
}

impl<'a> Launcher<'a> {
    pub fn new(prog: &'a Program, launch: &'a Launch) -> Launcher<'a> {
        Launcher {
            prog,
            launch,
            launched: false,
        }
    }

    /// The launch pulse was driven: the SM's `done_o` now means the grid
    /// finished.
    pub fn launched(&self) -> bool {
        self.launched
    }

    /// Drive the program length, and in core cycle `cycle` the parameter
    /// word or the launch pulse of the sequence, into `i`.
    pub fn drive(&self, cycle: u64, i: &mut SmIn<Concrete>) {
        let (prog, launch) = (self.prog, self.launch);
        i.plen_i = Bits::new(prog.code.len() as u64);
        let nparams = launch.params.len() as u64;
        if cycle < nparams {
            i.param_we_i = Bits::new(1);
            i.param_addr_i = Bits::new(cycle);
            i.param_data_i = Bits::new(launch.params[cycle as usize] as u64);
        } else if !self.launched {
            i.launch = LaunchPorts::presented(launch.grid, launch.block, prog.regs, prog.shared_bytes);
        }
    }

    /// The SM took the inputs `i` of core cycle `cycle`.
    pub fn edge(&mut self, cycle: u64, i: &SmIn<Concrete>) {
        if cycle == self.launch.params.len() as u64 && !self.launched && i.launch.valid.to_u64() == 1 {
            self.launched = true;
        }
    }
}
