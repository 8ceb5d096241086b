//! Global-memory model outside the SM (plain Rust, not RTL): serves the SM's
//! `gm_*` port (docs/sm.md 5.6, docs/lsu.md) from a little-endian byte
//! image, the same `Vec<u8>` the golden model uses.
//!
//! * Every request is performed when it is accepted (the core edge where
//!   `gm_req_valid && gm_req_ready`), in acceptance order: reads copy the
//!   words of the segment, writes store the words whose `wmask` bit is set,
//!   atomics read the old word, store `op(old, wdata[0], wdata[1])` and
//!   return the old word in `rdata[0]`. So the memory is sequentially
//!   consistent in request order; only the responses are delayed.
//! * Reads and atomics are answered `latency` core cycles after acceptance
//!   (a response accepted at the edge ending cycle `k` is presented from
//!   cycle `k + latency`), one response per cycle: in order (oldest first)
//!   or, with `out_of_order`, any due response chosen by a seeded
//!   generator. Writes have no response.
//! * Bandwidth: a token bucket of `milli_bytes_per_cycle / 1000` bytes per
//!   core cycle (at most 256 bytes banked); a request is accepted only
//!   while the bucket is positive and takes its size (32, 64 or 128 bytes;
//!   4 for an atomic) from it, so the long-run rate is the configured one.
//! * Word `i` of `wmask/wdata/rdata` is the word at `(addr & !127) + 4 i`
//!   (docs/lsu.md). A segment may reach past the end of the image (the
//!   coalescer reads and writes whole segments): words beyond it read 0 and
//!   must not be written. A request starting outside the image, or writing
//!   a word outside it, is not performed and is recorded in `errors` (never
//!   a panic).

use crate::config::SmConfig;
use crate::golden::isa::AtomOp;
use std::collections::VecDeque;

/// Timing of the global memory as seen by one SM.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GmemConfig {
    /// Core cycles from accepting a read to presenting its response.
    pub latency: u32,
    /// Bandwidth per SM in thousandths of a byte per core cycle.
    pub milli_bytes_per_cycle: u64,
    /// Return responses out of order.
    pub out_of_order: bool,
    /// Seed of the out-of-order choice.
    pub seed: u64,
}

impl GmemConfig {
    /// The config's global-memory fields (`gmem_latency`,
    /// `gmem_milli_bytes_per_cycle`, `gmem_ooo_seed`; the presets' values
    /// and their sources are in docs/lsu.md, "Global memory model").
    pub fn of(cfg: &SmConfig) -> GmemConfig {
        GmemConfig {
            latency: cfg.gmem_latency,
            milli_bytes_per_cycle: cfg.gmem_milli_bytes_per_cycle as u64,
            out_of_order: cfg.gmem_ooo_seed != 0,
            seed: if cfg.gmem_ooo_seed != 0 { cfg.gmem_ooo_seed } else { 1 },
        }
    }
}

/// One request as presented on the port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GmReq {
    pub id: u16,
    pub write: bool,
    /// 0 none, else `AtomOp` + 1.
    pub atom: u8,
    pub addr: u32,
    /// 0/1/2 = 32/64/128 bytes.
    pub size: u8,
    pub wmask: u32,
    pub wdata: [u32; 32],
}

/// The response presented in a cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GmResp {
    pub id: u16,
    pub rdata: [u32; 32],
}

/// The memory model.
#[derive(Debug, Clone)]
pub struct Gmem {
    pub cfg: GmemConfig,
    pub mem: Vec<u8>,
    /// Core cycle (number of edges seen).
    pub cycle: u64,
    tokens: i64,
    flight: VecDeque<(u64, GmResp)>,
    pick: Option<usize>,
    rng: u64,
    /// Requests accepted, bytes moved.
    pub requests: u64,
    pub bytes: u64,
    /// Of those: reads and writes (atomics apart) and their bytes
    /// (the segment sizes: what the port moved, whatever the mask).
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Bad requests (outside the image, unknown atomic), with their cycle.
    pub errors: Vec<String>,
}

impl Gmem {
    pub fn new(cfg: GmemConfig, mem: Vec<u8>) -> Gmem {
        let mut g = Gmem {
            cfg,
            mem,
            cycle: 0,
            tokens: 0,
            flight: VecDeque::new(),
            pick: None,
            rng: cfg.seed | 1,
            requests: 0,
            bytes: 0,
            reads: 0,
            writes: 0,
            read_bytes: 0,
            write_bytes: 0,
            errors: vec![],
        };
        g.choose();
        g
    }

    /// `gm_req_ready` of this cycle (from state only).
    pub fn ready(&self) -> bool {
        self.tokens >= 0
    }

    /// The response presented this cycle, if any.
    pub fn response(&self) -> Option<&GmResp> {
        self.pick.map(|k| &self.flight[k].1)
    }

    fn choose(&mut self) {
        let due: Vec<usize> = (0..self.flight.len())
            .filter(|&k| self.flight[k].0 <= self.cycle)
            .collect();
        self.pick = if due.is_empty() {
            None
        } else if !self.cfg.out_of_order {
            // In order: only the oldest, once it is due.
            (self.flight[0].0 <= self.cycle).then_some(0)
        } else {
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 7;
            self.rng ^= self.rng << 17;
            Some(due[(self.rng % due.len() as u64) as usize])
        };
    }

    fn rd(&self, a: usize) -> u32 {
        u32::from_le_bytes(self.mem[a..a + 4].try_into().expect("4 bytes"))
    }

    fn wr(&mut self, a: usize, v: u32) {
        self.mem[a..a + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// The core edge: `req` is the request accepted at it (valid && ready).
    pub fn edge(&mut self, req: Option<&GmReq>) {
        if let Some(k) = self.pick {
            self.flight.remove(k);
        }
        if let Some(r) = req {
            self.perform(r);
        }
        let cap = 256_000;
        self.tokens = (self.tokens + self.cfg.milli_bytes_per_cycle as i64).min(cap);
        self.cycle += 1;
        self.choose();
    }

    fn perform(&mut self, r: &GmReq) {
        self.requests += 1;
        let base = (r.addr & !127) as usize;
        if r.atom != 0 {
            self.tokens -= 4_000;
            self.bytes += 4;
            let a = r.addr as usize;
            let op = AtomOp::from_bits(r.atom - 1);
            if !r.addr.is_multiple_of(4) || a + 4 > self.mem.len() || op.is_none() || r.atom > 8 {
                self.errors.push(format!(
                    "cycle {}: atomic {} at {:#x} (image {} bytes)",
                    self.cycle,
                    r.atom,
                    r.addr,
                    self.mem.len()
                ));
                return;
            }
            let old = self.rd(a);
            let new = op.expect("checked").apply(old, r.wdata[0], r.wdata[1]);
            self.wr(a, new);
            let mut rdata = [0u32; 32];
            rdata[0] = old;
            self.push(r.id, rdata);
            return;
        }
        let bytes = 32u32 << r.size.min(2);
        self.tokens -= bytes as i64 * 1000;
        self.bytes += bytes as u64;
        if r.write {
            self.writes += 1;
            self.write_bytes += bytes as u64;
        } else {
            self.reads += 1;
            self.read_bytes += bytes as u64;
        }
        let lo = r.addr as usize;
        // A segment may reach past the end of the image (the last segment of
        // an array whose size is not a multiple of the segment): words
        // beyond it read 0, and a write may only set words inside it.
        let first = (lo - base) / 4;
        let words = bytes as usize / 4;
        let inside = |w: usize| base + 4 * w + 4 <= self.mem.len();
        let bad_write = r.write && (first..first + words).any(|w| r.wmask >> w & 1 == 1 && !inside(w));
        if r.size > 2 || !r.addr.is_multiple_of(bytes) || lo >= self.mem.len() || bad_write {
            self.errors.push(format!(
                "cycle {}: {} of size code {} at {:#x} (image {} bytes)",
                self.cycle,
                if r.write { "write" } else { "read" },
                r.size,
                r.addr,
                self.mem.len()
            ));
            return;
        }
        if r.write {
            for w in first..first + words {
                if r.wmask >> w & 1 == 1 {
                    self.wr(base + 4 * w, r.wdata[w]);
                }
            }
        } else {
            let mut rdata = [0u32; 32];
            for (w, x) in rdata.iter_mut().enumerate().skip(first).take(words) {
                if base + 4 * w + 4 <= self.mem.len() {
                    *x = self.rd(base + 4 * w);
                }
            }
            self.push(r.id, rdata);
        }
    }

    fn push(&mut self, id: u16, rdata: [u32; 32]) {
        let due = self.cycle + self.cfg.latency.max(1) as u64;
        self.flight.push_back((due, GmResp { id, rdata }));
    }

    /// Responses not yet delivered.
    pub fn in_flight(&self) -> usize {
        self.flight.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(id: u16, addr: u32, size: u8) -> GmReq {
        GmReq {
            id,
            write: false,
            atom: 0,
            addr,
            size,
            wmask: 0,
            wdata: [0; 32],
        }
    }

    #[test]
    fn latency_order_and_bandwidth() {
        let mem: Vec<u8> = (0..1024u32).map(|x| x as u8).collect();
        let cfg = GmemConfig {
            latency: 5,
            milli_bytes_per_cycle: 32_000,
            out_of_order: false,
            seed: 1,
        };
        let mut g = Gmem::new(cfg, mem);
        g.edge(None); // one cycle of tokens
        assert!(g.ready());
        g.edge(Some(&read(3, 128, 2))); // accepted at the edge ending cycle 1
                                        // 128 bytes at 32 per cycle: ready again 3 cycles later.
        let mut seen = None;
        for c in 2..12u64 {
            if let Some(r) = g.response() {
                seen.get_or_insert((c, r.id, r.rdata[1]));
            }
            g.edge(None);
        }
        // Due at cycle 1 + 5 = 6; word 1 of the segment at 128 is bytes 132..136.
        assert_eq!(seen, Some((6, 3, u32::from_le_bytes([132, 133, 134, 135]))));
    }

    #[test]
    fn atomics_and_masked_writes() {
        let cfg = GmemConfig {
            latency: 1,
            milli_bytes_per_cycle: 1_000_000,
            out_of_order: true,
            seed: 7,
        };
        let mut g = Gmem::new(cfg, vec![0u8; 256]);
        g.edge(None);
        let mut w = read(0, 32, 0);
        w.write = true;
        w.wmask = 0b1010_0000_0000;
        w.wdata[9] = 0x1234_5678;
        w.wdata[11] = 7;
        w.wdata[10] = 99;
        g.edge(Some(&w));
        assert_eq!(g.rd(36), 0x1234_5678);
        assert_eq!(g.rd(40), 0);
        assert_eq!(g.rd(44), 7);
        let mut a = read(4, 44, 0);
        a.atom = AtomOp::Add as u8 + 1;
        a.wdata[0] = 5;
        g.edge(Some(&a));
        assert_eq!(g.response().map(|r| (r.id, r.rdata[0])), Some((4, 7)));
        assert_eq!(g.rd(44), 12);
        g.edge(Some(&read(1, 4096, 2)));
        assert_eq!(g.errors.len(), 1);
    }
}
