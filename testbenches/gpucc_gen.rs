//! Random legal GPU-CC configurations ([`Network`]) and images for the
//! network's testbench (`gpucc_tb`): the stimulus of the RTL-against-golden
//! proptest and of the long ignored run.
//!
//! A configuration is built along the line, position by position, so every
//! value is read downstream of its producer:
//!
//! * every counted node shares one grid `nx x ny` (1..=12 x 1..=6), so
//!   every token stream carries `nx * ny` tokens and no node waits for a
//!   token that never comes;
//! * before LSU `j`, core `2j - 1` and the LSU form a memory pair with
//!   some probability: a load (`AND value, 0xff` gives an index into the
//!   256-word input region, the LSU loads from it) or a store (`IMAD y, nx,
//!   x` gives a unique index, the LSU stores an open value into its own
//!   output region: LSUs never write the same word or a word that is
//!   read, so the final image does not depend on the order between LSUs);
//! * other cores get a random lane operation (the ops a core runs, valid
//!   random modifiers) whose operands read open values through FIFOs
//!   (unread ones first; a quarter of them with 1..=15 initial tokens,
//!   which makes the core counted), the immediate, zero, x or y;
//! * an output lane is one whose current value has been read (or that no
//!   one drives), so driving it orphans nothing; towards the end of the
//!   line only stores are placed, to read what is still unread.
//!
//! An attempt that leaves a value unread, or that [`Network::build`]
//! rejects, is retried with the next random numbers.

use crate::config::SmConfig;
use crate::golden::gpucc::{node_at, operand_slots, Network, NodeCfg, Source, CORES, NODES};
use crate::golden::isa::Op;

/// Bytes of the image a generated configuration uses: the 256-word input
/// region, then a 128-word output region per LSU.
pub const IMAGE_BYTES: usize = IN_WORDS * 4 + 16 * OUT_WORDS * 4;
const IN_WORDS: usize = 256;
const OUT_WORDS: usize = 128;

/// The ops a generated core runs.
const CORE_OPS: [Op; 19] = [
    Op::Iadd,
    Op::Isub,
    Op::Imul,
    Op::Imad,
    Op::Imin,
    Op::Imax,
    Op::Shl,
    Op::Shr,
    Op::And,
    Op::Or,
    Op::Xor,
    Op::Fadd,
    Op::Fmul,
    Op::Ffma,
    Op::Fmin,
    Op::Fmax,
    Op::I2f,
    Op::F2i,
    Op::Mov,
];

/// xorshift64*.
pub struct Rng(pub u64);
impl Rng {
    pub fn word(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.word() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// The value a lane carries at the current position.
#[derive(Clone, Copy)]
struct Open {
    readers: u32,
}

/// A random legal configuration for `cfg` (the gpucc preset) from `seed`,
/// with the number of configured nodes.
pub fn network(cfg: &SmConfig, seed: u64) -> (Network, usize) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    for _ in 0..10_000 {
        if let Some(n) = attempt(&mut rng) {
            if let Ok(net) = Network::build(&n, cfg) {
                let used = n.iter().filter(|c| c.op != 0).count();
                return (net, used);
            }
        }
    }
    panic!("no legal configuration in 10,000 attempts (seed {seed})")
}

fn attempt(rng: &mut Rng) -> Option<Vec<NodeCfg>> {
    let nx = 1 + rng.below(12) as u32;
    let ny = 1 + rng.below(6) as u32;
    let mut nodes = vec![NodeCfg::default(); NODES];
    // Per lane 1..=5: the value it carries here, if any.
    let mut lanes: [Option<Open>; 6] = [None; 6];
    let counted = |c: &mut NodeCfg, rng: &mut Rng, zero_origin: bool| {
        c.counter = true;
        c.nx = nx;
        c.ny = ny;
        if !zero_origin {
            c.x0 = rng.below(5) as i8 - 2;
            c.y0 = rng.below(5) as i8 - 2;
        }
    };
    // A lane a new driver may take: free, or its value already read, and
    // not one of `keep`.
    let free_lane = |lanes: &[Option<Open>; 6], rng: &mut Rng, keep: &[u8]| -> Option<u8> {
        let ok: Vec<u8> = (1..=5u8)
            .filter(|l| !keep.contains(l) && lanes[*l as usize].is_none_or(|o| o.readers > 0))
            .collect();
        (!ok.is_empty()).then(|| ok[rng.below(ok.len() as u64) as usize])
    };
    // An open value to read: an unread one first.
    let pick = |lanes: &[Option<Open>; 6], rng: &mut Rng| -> Option<u8> {
        let unread: Vec<u8> = (1..=5u8)
            .filter(|l| lanes[*l as usize].is_some_and(|o| o.readers == 0))
            .collect();
        let any: Vec<u8> = (1..=5u8).filter(|l| lanes[*l as usize].is_some()).collect();
        let from = if !unread.is_empty() && rng.chance(80) {
            unread
        } else {
            any
        };
        (!from.is_empty()).then(|| from[rng.below(from.len() as u64) as usize])
    };
    for pos in 0..NODES {
        let n = node_at(pos);
        if n >= CORES {
            continue; // LSUs are placed with the core before them.
        }
        let unread = (1..=5).filter(|&l| lanes[l].is_some_and(|o| o.readers == 0)).count();
        let pair_next = n % 2 == 1 && n + 1 < CORES; // the LSU of the next position
        let lsu = CORES + n.div_ceil(2);
        let late = pos > 36;
        if pair_next && (rng.chance(45) || (late && unread > 0)) {
            // A memory pair: core n, then LSU `lsu` at the next position.
            let store = late || rng.chance(50);
            if store {
                let Some(data) = pick(&lanes, rng) else { continue };
                let Some(il) = free_lane(&lanes, rng, &[data]) else {
                    continue;
                };
                let c = &mut nodes[n];
                c.op = Op::Imad as u8;
                c.src = [Source::Y.code() as u8, Source::Imm.code() as u8, Source::X.code() as u8];
                c.imm = nx;
                c.out_lane = il;
                counted(c, rng, true);
                lanes[il as usize] = Some(Open { readers: 0 });
                let s = &mut nodes[lsu];
                s.op = Op::Stg as u8;
                s.m = 2;
                s.imm = (IN_WORDS * 4 + (lsu - CORES) * OUT_WORDS * 4) as u32;
                s.src = [Source::Fifo(0).code() as u8, Source::Fifo(1).code() as u8, 0];
                s.fifo_lane = [il, data, 0];
                for l in [il, data] {
                    if let Some(o) = lanes[l as usize].as_mut() {
                        o.readers += 1;
                    }
                }
            } else {
                // Index: AND of an open value (or x) with 0xff.
                let c = &mut nodes[n];
                c.op = Op::And as u8;
                let from = if rng.chance(70) { pick(&lanes, rng) } else { None };
                let mut keep = vec![];
                match from {
                    Some(l) => {
                        c.src = [Source::Fifo(0).code() as u8, Source::Imm.code() as u8, 0];
                        c.fifo_lane[0] = l;
                        keep.push(l);
                    }
                    None => {
                        c.src = [Source::X.code() as u8, Source::Imm.code() as u8, 0];
                        counted(c, rng, false);
                    }
                }
                c.imm = 0xff;
                let Some(il) = free_lane(&lanes, rng, &[]) else {
                    nodes[n] = NodeCfg::default();
                    continue;
                };
                if let Some(l) = from {
                    if let Some(o) = lanes[l as usize].as_mut() {
                        o.readers += 1;
                    }
                }
                nodes[n].out_lane = il;
                lanes[il as usize] = Some(Open { readers: 0 });
                let ol = free_lane(&lanes, rng, &[il])?;
                let s = &mut nodes[lsu];
                s.op = Op::Ldg as u8;
                s.m = 2;
                s.imm = 0;
                s.src = [Source::Fifo(0).code() as u8, 0, 0];
                s.fifo_lane = [il, 0, 0];
                s.out_lane = ol;
                lanes[il as usize].as_mut().expect("driven").readers += 1;
                lanes[ol as usize] = Some(Open { readers: 0 });
            }
            continue;
        }
        if late || !rng.chance(70) {
            continue;
        }
        // A compute core.
        let op = CORE_OPS[rng.below(CORE_OPS.len() as u64) as usize];
        let slots = operand_slots(op);
        let c = &mut nodes[n];
        c.op = op as u8;
        c.m = loop {
            let m = rng.below(16) as u8;
            if op.info().modk.accepts(m) {
                break m;
            }
        };
        let mut fifo = 0usize;
        let mut reads = vec![];
        let mut ctr = false;
        for (k, &on) in slots.iter().enumerate() {
            if !on {
                continue;
            }
            let src = match rng.below(10) {
                0..=5 if fifo < 3 => match pick(&lanes, rng) {
                    Some(l) => {
                        c.fifo_lane[fifo] = l;
                        // Some inputs read late, through initial tokens.
                        // At most 15 (below the FIFO depth): two streams of
                        // one producer read with delays more than a FIFO
                        // apart deadlock, whatever the timing.
                        if rng.chance(25) {
                            c.delay[fifo] = 1 + rng.below(15) as u8;
                            ctr = true;
                        }
                        reads.push(l);
                        fifo += 1;
                        Source::Fifo(fifo as u8 - 1)
                    }
                    None => Source::Imm,
                },
                6 => Source::Zero,
                7 => {
                    ctr = true;
                    Source::X
                }
                8 => {
                    ctr = true;
                    Source::Y
                }
                _ => Source::Imm,
            };
            c.src[k] = src.code() as u8;
        }
        c.imm = rng.word() as u32;
        if ctr || fifo == 0 {
            counted(c, rng, false);
        }
        let Some(ol) = free_lane(&lanes, rng, &[]) else {
            nodes[n] = NodeCfg::default();
            continue;
        };
        for &l in &reads {
            lanes[l as usize].as_mut().expect("read lane").readers += 1;
        }
        nodes[n].out_lane = ol;
        lanes[ol as usize] = Some(Open { readers: 0 });
    }
    // Every driven value must have been read.
    let orphan = (1..=5).any(|l| lanes[l].is_some_and(|o| o.readers == 0));
    let any = nodes.iter().any(|c| c.op != 0);
    (!orphan && any).then_some(nodes)
}

/// A random image of [`IMAGE_BYTES`]: the input region holds FP32 values
/// and integers, the output regions zero.
pub fn image(seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed.wrapping_mul(0xd1b5_4a32_d192_ed03) | 1);
    let mut m = vec![0u8; IMAGE_BYTES];
    for w in 0..IN_WORDS {
        let v = match rng.below(4) {
            0 => rng.word() as u32,
            1 => rng.below(1000) as u32,
            _ => ((rng.below(20_000) as f32 - 10_000.0) / 64.0).to_bits(),
        };
        m[4 * w..4 * w + 4].copy_from_slice(&v.to_le_bytes());
    }
    m
}
