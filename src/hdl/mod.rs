//! The embedded HDL every smrtl block is written in.
//!
//! * [`bits`]: `Bits<W>`, fixed-width bit vectors (1..=128 bits).
//! * [`signal`]: the `Backend`/`Sig` traits and the concrete backend.
//! * [`block`]: `Block`, `Ctx`, ports, registers, memories, clock domains.
//! * [`trace`]: the tracing backend and the elaborator (design checks).
//! * [`sim`]: the cycle simulator and its two-clock scheduler.
//! * [`logic`]: shared combinational helpers (`or_all`, `pick`, `index`, ...).
//! * [`pipe`]: pipeline cuts (`pipe_stage!`), a datapath's stages run with
//!   or without their registers.
//! * [`small`]: `SmallBuf`, inline short lists for block code.
//! * [`vcd`]: the VCD writer; [`gtkw`]: GTKWave save files.
//! * [`verilog`]: the Verilog-2005 emitter.

pub mod bits;
pub mod block;
pub mod fifo;
pub mod gtkw;
pub mod logic;
pub mod pipe;
pub mod signal;
pub mod sim;
pub mod small;
pub mod trace;
pub mod vcd;
pub mod verilog;

pub use bits::Bits;
pub use block::{Block, Bundle, Ctx, Decl, Domain, Mem, Pending, PortBuilder, PortName, PortVisitor, Ports, Reg, S};
pub use signal::{Backend, Concrete, Sig};
pub use sim::Sim;
pub use trace::{elaborate, Design, ElabError, Tracing};
