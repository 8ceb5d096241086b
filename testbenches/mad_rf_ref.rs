//! Plain-Rust reference of the dual-clock slice (`units::mad_rf`), written
//! from its documented timing rather than its register structure:
//!
//! * `result_o` at hot cycle t is `a*b+c` (mod 2^32) of the inputs of hot
//!   cycle t-3 (0 for t < 3), `result_valid_o` their `valid_i`;
//! * the core edge at hot cycle T (even) writes the results of the inputs of
//!   hot cycles T-4 (older) and T-3 (newer); same bank: the newer is written,
//!   the older dropped and `conflict_o` is high for the next core cycle;
//! * a read presented at core edge T returns the word as it was before that
//!   edge's writes, from hot cycle T+1.

/// One hot cycle of inputs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MadIn {
    pub valid: bool,
    pub a: u32,
    pub b: u32,
    pub c: u32,
    pub dest: u8,
    pub rd_en: bool,
    pub rd_addr: u8,
}

/// One hot cycle of outputs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MadOut {
    pub result: u32,
    pub result_valid: bool,
    pub rdata: u32,
    pub rvalid: bool,
    pub conflict: bool,
}

/// The reference model.
#[derive(Debug, Clone)]
pub struct MadRfRef {
    t: u64,
    /// Inputs of the last 4 hot cycles, newest first.
    hist: [MadIn; 4],
    banks: [[u32; 64]; 4],
    /// Per-bank data of the last read, the bank selected, and flags.
    last_read: [u32; 4],
    rbank: usize,
    rvalid: bool,
    conflict: bool,
    /// Writes dropped on bank conflicts so far.
    pub dropped: u64,
}

impl Default for MadRfRef {
    fn default() -> Self {
        Self::new()
    }
}

impl MadRfRef {
    pub fn new() -> Self {
        MadRfRef {
            t: 0,
            hist: [MadIn::default(); 4],
            banks: [[0; 64]; 4],
            last_read: [0; 4],
            rbank: 0,
            rvalid: false,
            conflict: false,
            dropped: 0,
        }
    }

    /// The register file word at `addr` (bank = addr & 3, entry = addr >> 2).
    pub fn word(&self, addr: u8) -> u32 {
        self.banks[(addr & 3) as usize][(addr >> 2) as usize]
    }

    fn result_of(i: &MadIn) -> (bool, u32, u8) {
        (i.valid, i.a.wrapping_mul(i.b).wrapping_add(i.c), i.dest)
    }

    /// One hot cycle: outputs before the edge, then the edge.
    pub fn step(&mut self, i: &MadIn) -> MadOut {
        let t = self.t;
        // hist[2] = inputs of t-3 (hist[0] is t-1).
        let (v3, r3, _) = if t >= 3 {
            Self::result_of(&self.hist[2])
        } else {
            (false, 0, 0)
        };
        let out = MadOut {
            result: r3,
            result_valid: v3,
            rdata: self.last_read[self.rbank],
            rvalid: self.rvalid,
            conflict: self.conflict,
        };
        if t.is_multiple_of(2) {
            let older = if t >= 4 {
                Self::result_of(&self.hist[3])
            } else {
                (false, 0, 0)
            };
            let newer = if t >= 3 {
                Self::result_of(&self.hist[2])
            } else {
                (false, 0, 0)
            };
            // Reads see the words before this edge's writes.
            if i.rd_en {
                let e = (i.rd_addr >> 2) as usize;
                for k in 0..4 {
                    self.last_read[k] = self.banks[k][e];
                }
                self.rbank = (i.rd_addr & 3) as usize;
            }
            self.rvalid = i.rd_en;
            self.conflict = older.0 && newer.0 && (older.2 & 3) == (newer.2 & 3);
            if self.conflict {
                self.dropped += 1;
            }
            let write = |banks: &mut [[u32; 64]; 4], (_, r, d): (bool, u32, u8)| {
                banks[(d & 3) as usize][(d >> 2) as usize] = r;
            };
            if older.0 && !self.conflict {
                write(&mut self.banks, older);
            }
            if newer.0 {
                write(&mut self.banks, newer);
            }
        }
        self.hist = [*i, self.hist[0], self.hist[1], self.hist[2]];
        self.t += 1;
        out
    }
}
