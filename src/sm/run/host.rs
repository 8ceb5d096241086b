//! The host memories around the RTL SM: the instruction memory serving
//! `im_*` and the global memory serving `gm_*` (the timing models of
//! `testbenches/`), driven from and fed by the SM's ports every core cycle.

use super::lanes;
use crate::config::SmConfig;
use crate::golden::isa::Program;
use crate::hdl::{Bits, Concrete};
use crate::sm::top::{SmIn, SmOut, IM_WORDS};
use crate::testbenches::gmem::{GmReq, Gmem, GmemConfig};
use crate::testbenches::imem::Imem;

/// The instruction memory holding the program and the global memory.
pub struct HostMem {
    imem: Imem,
    gmem: Gmem,
}

impl HostMem {
    /// `prog`'s instruction words with the preset's instruction-memory
    /// latency, and `gmem_init` with the timing `gcfg` (default: the
    /// preset's).
    pub fn new(cfg: &SmConfig, prog: &Program, gcfg: Option<GmemConfig>, gmem_init: Vec<u8>) -> HostMem {
        let words: Vec<u64> = prog.code.iter().map(|i| i.encode()).collect();
        HostMem {
            imem: Imem::new(words, IM_WORDS, cfg.imem_latency),
            gmem: Gmem::new(gcfg.unwrap_or_else(|| GmemConfig::of(cfg)), gmem_init),
        }
    }

    /// The global memory image.
    pub fn mem(&self) -> &[u8] {
        &self.gmem.mem
    }

    /// The global memory model's traffic so far: reads, read bytes,
    /// writes, write bytes.
    pub fn gm_traffic(&self) -> [u64; 4] {
        let g = &self.gmem;
        [g.reads, g.read_bytes, g.writes, g.write_bytes]
    }

    /// The global memory model's bandwidth in thousandths of a byte per
    /// core cycle.
    pub fn gm_milli_bytes_per_cycle(&self) -> u64 {
        self.gmem.cfg.milli_bytes_per_cycle
    }

    /// Take the global memory image.
    pub fn into_mem(self) -> Vec<u8> {
        self.gmem.mem
    }

    /// Drive the memories' ready signals, responses and the memory size
    /// into the SM's inputs of this cycle.
    pub fn drive(&self, i: &mut SmIn<Concrete>) {
        i.gm_size_i = Bits::new(self.gmem.mem.len().min(u32::MAX as usize) as u64);
        i.im_req_ready_i = Bits::new(self.imem.ready() as u64);
        if let Some(line) = self.imem.resp() {
            i.im_resp_valid_i = Bits::new(1);
            for (k, w) in line.iter().enumerate() {
                i.im_resp_data_i[k] = Bits::new(*w);
            }
        }
        i.gm_req_ready_i = Bits::new(self.gmem.ready() as u64);
        if let Some(r) = self.gmem.response() {
            i.gm_resp.valid = Bits::new(1);
            i.gm_resp.id = Bits::new(r.id as u64);
            for k in 0..32 {
                i.gm_resp.rdata[k] = Bits::new(r.rdata[k] as u64);
            }
        }
    }

    /// The clock edge: the memories take the SM's requests of the cycle
    /// (outputs `o`); the global memory model's first error (a request
    /// outside the image, an unknown atomic) is returned.
    pub fn edge(&mut self, o: &SmOut<Concrete>) -> Result<(), String> {
        let im_req = (o.im_req_valid_o.to_u64() == 1 && self.imem.ready()).then(|| o.im_req_addr_o.to_u64() as u32);
        self.imem.edge(im_req);
        let gm_req = (o.gm_req.valid.to_u64() == 1 && self.gmem.ready()).then(|| GmReq {
            id: o.gm_req.id.to_u64() as u16,
            write: o.gm_req.write.to_u64() == 1,
            atom: o.gm_req.atom.to_u64() as u8,
            addr: o.gm_req.addr.to_u64() as u32,
            size: o.gm_req.size.to_u64() as u8,
            wmask: lanes(&o.gm_req.wmask),
            wdata: std::array::from_fn(|k| o.gm_req.wdata[k].to_u64() as u32),
        });
        self.gmem.edge(gm_req.as_ref());
        match self.gmem.errors.first() {
            Some(e) => Err(format!("global memory model: {e}")),
            None => Ok(()),
        }
    }
}
