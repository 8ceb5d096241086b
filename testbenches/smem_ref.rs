//! Plain-Rust reference of the shared-memory unit's semantics (see
//! `units::smem`), written from the rules, not from the block:
//!
//! * a warp request is served per group of `group` lanes (16 = half-warp
//!   on Tesla/GT200, 32 = whole warp on Fermi), lower lanes first;
//! * each pass serves a conflict-free subset of the pending lanes of the
//!   current group:
//!   - multicast (Fermi): in every bank, the word of the lowest pending lane
//!     in that bank; every pending lane addressing that word is served;
//!   - single broadcast (compute 1.x): the word of the lowest pending lane
//!     is the broadcast word, served to every lane addressing it; every
//!     other bank serves its lowest pending lane only;
//!   - atomics: every bank serves its lowest pending lane only, so lanes on
//!     one word are serialized in lane order;
//! * stores: when several served lanes store to one word in a pass, the
//!   highest lane's value is written;
//! * a lane whose address is out of range is not performed, reads 0, and
//!   sets the error flag; so does every lane of a request with an unknown op.

use crate::golden::isa::AtomOp;

/// Operations (the `op_i` encoding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum SmemOp {
    Load = 0,
    Store = 1,
    Add = 2,
    Min = 3,
    Max = 4,
    Exch = 5,
    Cas = 6,
    And = 7,
    Or = 8,
    Xor = 9,
}

impl SmemOp {
    pub const ALL: [SmemOp; 10] = [
        SmemOp::Load,
        SmemOp::Store,
        SmemOp::Add,
        SmemOp::Min,
        SmemOp::Max,
        SmemOp::Exch,
        SmemOp::Cas,
        SmemOp::And,
        SmemOp::Or,
        SmemOp::Xor,
    ];
    pub fn from_code(c: u8) -> Option<SmemOp> {
        SmemOp::ALL.get(c as usize).copied()
    }
    pub fn is_atomic(self) -> bool {
        (self as u8) >= 2
    }
    /// The ISA atomic this request op performs (`None` for load/store):
    /// the codes 2..=9 are `AtomOp`'s 0..=7 in the same order.
    pub fn atom(self) -> Option<AtomOp> {
        (self as u8).checked_sub(2).and_then(AtomOp::from_bits)
    }
    /// New value of a word under an atomic (`d` the lane's data, `c` its
    /// compare value): the ISA's definition, `AtomOp::apply` (min/max
    /// signed 32-bit, CAS writes `d` where the old word equals `c`).
    pub fn apply(self, old: u32, d: u32, c: u32) -> u32 {
        self.atom().expect("not an atomic").apply(old, d, c)
    }
}

/// One warp request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmemReq {
    pub op: u8,
    pub active: u32,
    pub addr: [u16; 32],
    pub data: [u32; 32],
    pub cmp: [u32; 32],
}

/// The outcome of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmemResp {
    /// Per lane: the loaded value or the atomic's old value (0 otherwise).
    pub rdata: [u32; 32],
    pub passes: u32,
    pub err: bool,
    /// Lanes served in each pass.
    pub pass_sets: Vec<u32>,
}

/// Shared-memory geometry and rules.
#[derive(Debug, Clone, Copy)]
pub struct SmemGeom {
    pub words: usize,
    pub banks: usize,
    pub group: usize,
    pub multicast: bool,
}

impl SmemGeom {
    pub fn from_config(c: &crate::config::SmConfig) -> Self {
        SmemGeom {
            words: c.smem_bytes as usize / 4,
            banks: c.smem_banks as usize,
            group: c.smem_request_threads as usize,
            multicast: c.smem_multicast,
        }
    }
}

/// Execute `req` on `mem`.
pub fn execute(g: &SmemGeom, mem: &mut [u32], req: &SmemReq) -> SmemResp {
    let mut rdata = [0u32; 32];
    let op = SmemOp::from_code(req.op);
    let mut err = false;
    let mut pending = [false; 32];
    for k in 0..32 {
        if req.active >> k & 1 == 1 {
            if (req.addr[k] as usize) < g.words && op.is_some() {
                pending[k] = true;
            } else {
                err = true;
            }
        }
    }
    let Some(op) = op else {
        return SmemResp {
            rdata,
            passes: 0,
            err,
            pass_sets: vec![],
        };
    };
    let bank = |k: usize| req.addr[k] as usize % g.banks;
    let mut pass_sets = vec![];
    for grp in (0..32).step_by(g.group) {
        let lanes: Vec<usize> = (grp..grp + g.group).collect();
        while lanes.iter().any(|&k| pending[k]) {
            let live: Vec<usize> = lanes.iter().copied().filter(|&k| pending[k]).collect();
            // Lowest pending lane of each bank.
            let mut first_in_bank = vec![None; g.banks];
            for &k in &live {
                if first_in_bank[bank(k)].is_none() {
                    first_in_bank[bank(k)] = Some(k);
                }
            }
            let served: Vec<usize> = if op.is_atomic() {
                first_in_bank.iter().flatten().copied().collect()
            } else if g.multicast {
                live.iter()
                    .copied()
                    .filter(|&k| req.addr[first_in_bank[bank(k)].unwrap()] == req.addr[k])
                    .collect()
            } else {
                let bcast = req.addr[live[0]];
                live.iter()
                    .copied()
                    .filter(|&k| req.addr[k] == bcast || first_in_bank[bank(k)] == Some(k))
                    .collect()
            };
            let mut set = 0u32;
            let old: Vec<u32> = mem.to_vec();
            for &k in &served {
                set |= 1 << k;
                pending[k] = false;
                let a = req.addr[k] as usize;
                match op {
                    SmemOp::Load => rdata[k] = old[a],
                    // Lanes ascend, so the highest lane's store lands last.
                    SmemOp::Store => mem[a] = req.data[k],
                    _ => {
                        rdata[k] = old[a];
                        mem[a] = op.apply(old[a], req.data[k], req.cmp[k]);
                    }
                }
            }
            pass_sets.push(set);
        }
    }
    SmemResp {
        rdata,
        passes: pass_sets.len() as u32,
        err,
        pass_sets,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geom(multicast: bool) -> SmemGeom {
        if multicast {
            SmemGeom {
                words: 12288,
                banks: 32,
                group: 32,
                multicast,
            }
        } else {
            SmemGeom {
                words: 4096,
                banks: 16,
                group: 16,
                multicast,
            }
        }
    }

    fn strided(stride: usize, op: SmemOp) -> SmemReq {
        SmemReq {
            op: op as u8,
            active: !0,
            addr: std::array::from_fn(|k| (k * stride) as u16),
            data: std::array::from_fn(|k| k as u32 + 1),
            cmp: [0; 32],
        }
    }

    #[test]
    fn pass_counts_follow_the_seed_rules() {
        let (gt, fe) = (geom(false), geom(true));
        let mut m = vec![0u32; 12288];
        // Stride 1: one pass per half-warp (gt200), per warp (fermi).
        assert_eq!(execute(&gt, &mut m, &strided(1, SmemOp::Load)).passes, 2);
        assert_eq!(execute(&fe, &mut m, &strided(1, SmemOp::Load)).passes, 1);
        // Stride 2: two passes per group.
        assert_eq!(execute(&gt, &mut m, &strided(2, SmemOp::Load)).passes, 4);
        assert_eq!(execute(&fe, &mut m, &strided(2, SmemOp::Load)).passes, 2);
        // Stride = banks: every lane in one bank.
        assert_eq!(execute(&gt, &mut m, &strided(16, SmemOp::Load)).passes, 32);
        assert_eq!(execute(&fe, &mut m, &strided(32, SmemOp::Load)).passes, 32);
        // All lanes on one word: broadcast.
        assert_eq!(execute(&gt, &mut m, &strided(0, SmemOp::Load)).passes, 2);
        assert_eq!(execute(&fe, &mut m, &strided(0, SmemOp::Load)).passes, 1);
    }

    #[test]
    fn single_broadcast_versus_multicast() {
        // Lanes 0,1 read word 0; lanes 2,3 read word 17 (bank 1 on both);
        // lanes 4,5 read word 2.
        let mut r = strided(0, SmemOp::Load);
        r.active = 0x3f;
        r.addr[..6].copy_from_slice(&[0, 0, 17, 17, 2, 2]);
        let mut m = vec![0u32; 12288];
        // Compute 1.x: pass 1 = broadcast word 0 + one lane per other bank
        // (lanes 2 and 4); pass 2 = lanes 3 and 5.
        assert_eq!(execute(&geom(false), &mut m, &r).pass_sets, vec![0b010111, 0b101000]);
        // Fermi: every bank broadcasts.
        assert_eq!(execute(&geom(true), &mut m, &r).pass_sets, vec![0b111111]);
    }

    #[test]
    fn colliding_atomics_serialize_in_lane_order() {
        let mut r = strided(0, SmemOp::Add);
        r.active = 0xf;
        let mut m = vec![0u32; 12288];
        m[0] = 100;
        let resp = execute(&geom(true), &mut m, &r);
        assert_eq!(&resp.rdata[..4], &[100, 101, 103, 106]);
        assert_eq!(m[0], 110);
        assert_eq!(resp.passes, 4);
        // CAS: only the lane whose compare value matches succeeds.
        let mut c = strided(0, SmemOp::Cas);
        c.active = 0x7;
        c.cmp[..3].copy_from_slice(&[5, 110, 7]);
        c.data[..3].copy_from_slice(&[1, 2, 3]);
        let resp = execute(&geom(true), &mut m, &c);
        assert_eq!(&resp.rdata[..3], &[110, 110, 2]);
        assert_eq!(m[0], 2);
    }

    #[test]
    fn out_of_range_and_unknown_op() {
        let mut r = strided(1, SmemOp::Load);
        r.addr[3] = 5000;
        let mut m = vec![7u32; 12288];
        let resp = execute(&geom(false), &mut m, &r);
        assert!(resp.err);
        assert_eq!(resp.rdata[3], 0);
        assert_eq!(resp.rdata[4], 7);
        r.op = 12;
        let resp = execute(&geom(false), &mut m, &r);
        assert!(resp.err && resp.passes == 0);
    }
}

#[cfg(test)]
mod atom_map_tests {
    use super::*;

    #[test]
    fn smem_ops_map_to_the_isa_atomics_by_name() {
        assert_eq!(SmemOp::Load.atom(), None);
        assert_eq!(SmemOp::Store.atom(), None);
        for op in SmemOp::ALL.into_iter().filter(|o| o.is_atomic()) {
            let a = op.atom().unwrap();
            assert_eq!(format!("{op:?}").to_ascii_uppercase(), a.suffix(), "{op:?}");
        }
        // CAS: data is written where the old word equals the compare value.
        assert_eq!(SmemOp::Cas.apply(5, 9, 5), 9);
        assert_eq!(SmemOp::Cas.apply(5, 9, 4), 5);
        assert_eq!(SmemOp::Min.apply(3, (-1i32) as u32, 0), (-1i32) as u32);
    }
}
