//! Test block for the memory primitives: a core-domain RAM with two read and
//! two write ports (the higher write port wins on a same-word collision), a
//! hot-domain ROM read every hot cycle, and a register without reset.

use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Mem, Reg};

crate::ports! {
    /// Inputs.
    pub struct MemPortsIn {
        we0_i: 1 @ Core, wa0_i: 4 @ Core, wd0_i: 16 @ Core,
        we1_i: 1 @ Core, wa1_i: 4 @ Core, wd1_i: 16 @ Core,
        re0_i: 1 @ Core, ra0_i: 4 @ Core,
        re1_i: 1 @ Core, ra1_i: 4 @ Core,
        rom_addr_i: 4 @ Hot,
        latch_i: 16 @ Core,
    }
}
crate::ports! {
    /// Outputs.
    pub struct MemPortsOut { rd0_o: 16 @ Core, rd1_o: 16 @ Core, rom_o: 8 @ Hot, latched_o: 16 @ Core }
}

/// The ROM contents: a quarter sine wave, 8 bits.
pub const ROM: [u64; 16] = [0, 25, 50, 74, 98, 120, 142, 162, 180, 197, 212, 225, 236, 244, 250, 254];

/// See the module doc.
#[derive(Debug, Clone)]
pub struct MemPorts {
    decl: Decl,
    ram: Mem<16, 4>,
    rom: Mem<8, 4>,
    latched: Reg<16>,
}

impl Default for MemPorts {
    fn default() -> Self {
        Self::new()
    }
}

impl MemPorts {
    pub fn new() -> Self {
        let mut decl = Decl::new();
        let ram = decl.mem::<16, 4>("ram", Domain::Core, 2, 2);
        let rom = decl.rom::<8, 4>("rom", Domain::Hot, 1, &ROM);
        let latched = decl.reg_noreset::<16>("latched", Domain::Core);
        MemPorts {
            decl,
            ram,
            rom,
            latched,
        }
    }
}

impl Block for MemPorts {
    type In<B: Backend> = MemPortsIn<B>;
    type Out<B: Backend> = MemPortsOut<B>;
    fn module_name(&self) -> String {
        "mem_ports".into()
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &MemPortsIn<C::B>) -> MemPortsOut<C::B> {
        cx.mem_write(self.ram, 0, i.we0_i, i.wa0_i, i.wd0_i);
        cx.mem_write(self.ram, 1, i.we1_i, i.wa1_i, i.wd1_i);
        let rd0 = cx.mem_read(self.ram, 0, i.re0_i, i.ra0_i);
        let rd1 = cx.mem_read(self.ram, 1, i.re1_i, i.ra1_i);
        let en = cx.lit::<1>(1);
        let rom = cx.mem_read(self.rom, 0, en, i.rom_addr_i);
        cx.d(self.latched, i.latch_i);
        MemPortsOut {
            rd0_o: rd0,
            rd1_o: rd1,
            rom_o: rom,
            latched_o: cx.q(self.latched),
        }
    }
}
