//! Instruction memory model (testbench side, not RTL): answers the fetch
//! unit's `im_*` port from a program image (the 64-bit words of a
//! [`crate::golden::isa::Program`]), one request at a time, a whole line per
//! answer, `latency` core cycles after the request was taken. Words beyond
//! the program read 0.
//!
//! Timing: `ready` is high while no request is outstanding (Moore). A
//! request taken at edge k is answered in cycle k + latency (`resp` is
//! `Some` for exactly that cycle).

/// The model.
#[derive(Debug, Clone)]
pub struct Imem {
    words: Vec<u64>,
    line: usize,
    latency: u32,
    /// (line address, cycles left before the answer).
    pending: Option<(u32, u32)>,
}

impl Imem {
    /// A memory holding `words`, answering lines of `line` instructions
    /// after `latency` (>= 1) core cycles.
    pub fn new(words: Vec<u64>, line: usize, latency: u32) -> Imem {
        Imem {
            words,
            line,
            latency: latency.max(1),
            pending: None,
        }
    }

    /// `im_req_ready_i` of this cycle.
    pub fn ready(&self) -> bool {
        self.pending.is_none()
    }

    /// The line answered in this cycle, if any.
    pub fn resp(&self) -> Option<Vec<u64>> {
        match self.pending {
            Some((l, 0)) => Some(
                (0..self.line)
                    .map(|k| self.words.get(l as usize * self.line + k).copied().unwrap_or(0))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// The core edge, with the fetch unit's request of this cycle.
    pub fn edge(&mut self, req: Option<u32>) {
        self.pending = match self.pending {
            Some((_, 0)) => None,
            Some((l, n)) => Some((l, n - 1)),
            None => req.map(|l| (l, self.latency - 1)),
        };
    }
}
