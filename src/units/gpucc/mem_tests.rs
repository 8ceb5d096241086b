//! Tests of `gpucc_mem` against a plain word-addressed reference memory:
//! random LSU traffic (roles, address patterns, request gaps), an L1 model
//! with random ready stalls and out-of-order responses of random latency.
//! The reference shares nothing with the block: it is a `Vec<u32>` of
//! words, loads' expected words are read from it in each LSU's program
//! order as the traffic is generated, stores are applied to it.

use super::mem::{GpuccMem, MemIn, MemOut, PORTS};
use crate::hdl::sim::zero_ports;
use crate::hdl::{Bits, Concrete, Sim};
use std::collections::VecDeque;

/// Words of the test memory (64 KB).
const WORDS: usize = 1 << 14;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn b<const W: usize>(v: u64) -> Bits<W> {
    Bits::new(v)
}

/// One LSU request: a load (expected word) or a store (data).
#[derive(Debug, Clone, Copy)]
struct Op {
    we: bool,
    addr: u32,
    data: u32,
}

/// The L1 model's settings.
#[derive(Debug, Clone, Copy)]
struct L1Model {
    /// Percent of core cycles the L1 is ready.
    ready_pct: u64,
    /// Latency of a read response, core cycles: 1 + random below this.
    lat: u64,
}

/// What the L1 model saw.
#[derive(Debug, Default)]
struct Seen {
    line_reads: u64,
    line_writes: u64,
    prefetches: u64,
}

/// The harness: the block, the L1 model over `mem` (the memory the block
/// writes), per LSU the ops to present and the loads' expected words.
struct Harness {
    sim: Sim<GpuccMem>,
    inp: MemIn<Concrete>,
    t: u64,
    rng: Rng,
    l1: L1Model,
    mem: Vec<u32>,
    /// Reads out: (due core cycle, id, the line's words when it was read).
    out: Vec<(u64, u8, Vec<u32>)>,
    ids_out: [bool; 256],
    seen: Seen,
}

impl Harness {
    /// The paper's front end (`ahead` 0, no read-ahead) or ours.
    fn new(seed: u64, l1: L1Model, mem: Vec<u32>, mode: Mode) -> Harness {
        let mut sim = Sim::new(GpuccMem::new(64, mode.ahead, mode.read_ahead, mode.join).unwrap()).unwrap();
        sim.reset();
        let mut inp: MemIn<Concrete> = zero_ports();
        inp.gm_size_i = b(4 * mem.len() as u64);
        Harness {
            sim,
            inp,
            t: 0,
            rng: Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1),
            l1,
            mem,
            out: Vec::new(),
            ids_out: [false; 256],
            seen: Seen::default(),
        }
    }

    /// One hot step; at an odd step the core-domain inputs change (a core
    /// cycle is the odd step and the even one after it; its edge ends the
    /// even step). Returns the outputs; the L1 model acts at the core edge.
    fn step(&mut self) -> Result<MemOut<Concrete>, String> {
        let t = self.t;
        if t % 2 == 1 {
            let c = t / 2;
            self.inp.l1_req_ready_i = b((self.rng.below(100) < self.l1.ready_pct) as u64);
            // One response per core cycle: a random one of those due.
            let due: Vec<usize> = (0..self.out.len()).filter(|&k| self.out[k].0 <= c).collect();
            self.inp.l1_resp.valid = b(0);
            self.inp.l1_resp.id = b(0);
            if !due.is_empty() {
                let k = due[self.rng.below(due.len() as u64) as usize];
                let (_, id, words) = self.out.swap_remove(k);
                self.ids_out[id as usize] = false;
                self.inp.l1_resp.valid = b(1);
                self.inp.l1_resp.id = b(id as u64);
                for (w, &v) in words.iter().enumerate() {
                    self.inp.l1_resp.rdata[w] = b(v as u64);
                }
            }
        }
        let o = self.sim.step(&self.inp);
        if t.is_multiple_of(2) && o.l1_req.valid.any() && self.inp.l1_req_ready_i.any() {
            let c = t / 2;
            let q = &o.l1_req;
            let (id, addr) = (q.id.to_u64() as u8, q.addr.to_u64() as u32);
            if q.size.to_u64() != 2 || q.atom.to_u64() != 0 || addr % 128 != 0 {
                return Err(format!(
                    "hot {t}: request size {} atom {} addr 0x{addr:x}",
                    q.size.to_u64(),
                    q.atom.to_u64()
                ));
            }
            let line = addr / 128;
            if line as usize * 32 >= self.mem.len() {
                return Err(format!("hot {t}: line 0x{addr:x} out of memory"));
            }
            if q.write.any() {
                self.seen.line_writes += 1;
                for w in 0..32 {
                    if q.wmask[w].any() {
                        self.mem[line as usize * 32 + w] = q.wdata[w].to_u64() as u32;
                    }
                }
            } else {
                if self.ids_out[id as usize] {
                    return Err(format!("hot {t}: id {id} reused while out"));
                }
                if id >= 64 {
                    return Err(format!("hot {t}: id {id} >= 64"));
                }
                if id >= 32 {
                    self.seen.prefetches += 1;
                } else {
                    self.seen.line_reads += 1;
                }
                self.ids_out[id as usize] = true;
                let lat = 1 + self.rng.below(self.l1.lat);
                // The line as memory holds it now: a store taken later is
                // not in this read's answer.
                let l = line as usize * 32;
                self.out.push((c + lat, id, self.mem[l..l + 32].to_vec()));
            }
        }
        self.t += 1;
        Ok(o)
    }
}

/// Per LSU: its ops and a pointer; expected load words in order.
struct Lsu {
    ops: Vec<Op>,
    next: usize,
    /// Hot cycles to wait before presenting the next op.
    gap: u64,
    expect: VecDeque<u32>,
    /// Hints to give: (before op index, line).
    hints: VecDeque<(usize, u32)>,
}

/// Run every LSU's ops to the end, flush, wait for idle. Errors name the
/// first difference.
fn run_ops(h: &mut Harness, lsus: &mut [Lsu], gap_pct: u64, limit: u64) -> Result<(), String> {
    let start = h.t;
    loop {
        let mut busy = false;
        for (j, l) in lsus.iter_mut().enumerate() {
            h.inp.pf_valid_i[j] = b(0);
            if let Some(&(at, line)) = l.hints.front() {
                if at <= l.next {
                    h.inp.pf_valid_i[j] = b(1);
                    h.inp.pf_line_i[j] = b(line as u64);
                    l.hints.pop_front();
                }
            }
            let present = l.gap == 0 && l.next < l.ops.len();
            h.inp.mem_req_valid_i[j] = b(present as u64);
            if present {
                let op = l.ops[l.next];
                h.inp.mem_req_we_i[j] = b(op.we as u64);
                h.inp.mem_req_addr_i[j] = b(op.addr as u64);
                h.inp.mem_req_wdata_i[j] = b(op.data as u64);
            }
            busy |= l.next < l.ops.len() || !l.expect.is_empty();
        }
        h.inp.flush_i = b(!busy as u64);
        let t = h.t;
        let o = h.step()?;
        for (j, l) in lsus.iter_mut().enumerate() {
            if o.mem_resp_valid_o[j].any() {
                let got = o.mem_resp_data_o[j].to_u64() as u32;
                match l.expect.pop_front() {
                    Some(e) if e == got => {}
                    e => return Err(format!("hot {t}: LSU {j} load word 0x{got:08x}, expected {e:x?}")),
                }
            }
            if l.gap > 0 {
                l.gap -= 1;
            } else if h.inp.mem_req_valid_i[j].any() && o.mem_req_ready_o[j].any() {
                l.next += 1;
                // Back to back (one request per hot cycle, as the LSU's
                // pipeline makes them), sometimes with a gap.
                l.gap = if h.rng.below(100) < gap_pct { h.rng.below(6) } else { 0 };
            }
        }
        if !busy && o.idle_o.any() && h.out.is_empty() {
            return Ok(());
        }
        if h.t - start > limit {
            let left: Vec<_> = lsus.iter().map(|l| (l.ops.len() - l.next, l.expect.len())).collect();
            return Err(format!(
                "no end after {limit} hot cycles: per LSU (ops, loads) left {left:?}"
            ));
        }
    }
}

/// Random traffic for one run over `reference`: roles per LSU (load from
/// the shared read area, store to its own area, both in its own area),
/// address patterns (sequential, strided, random in a few lines).
fn gen_run(rng: &mut Rng, reference: &mut [u32], n_ops: usize) -> Vec<Lsu> {
    // Areas: words [0, 4096) shared reads; LSU j owns [4096 + 768 j, +768).
    let mut lsus = Vec::new();
    for j in 0..PORTS {
        let role = rng.below(4); // 0, 1: load; 2: store; 3: mixed
        let (base, span) = if role <= 1 {
            (0usize, 4096usize)
        } else {
            (4096 + 768 * j, 768)
        };
        let pattern = rng.below(3);
        let start = rng.below(span as u64) as usize;
        let stride = 1 + rng.below(3) as usize;
        let n = rng.below(n_ops as u64) as usize;
        let mut ops = Vec::with_capacity(n);
        let mut expect = VecDeque::new();
        let mut hints = VecDeque::new();
        let mut last_line = u32::MAX;
        for k in 0..n {
            let off = match pattern {
                0 => (start + k) % span,
                1 => (start + k * stride) % span,
                _ => (start + rng.below(128) as usize) % span,
            };
            let w = base + off;
            let we = match role {
                0 | 1 => false,
                2 => true,
                _ => rng.below(2) == 0,
            };
            let data = rng.next() as u32;
            if we {
                reference[w] = data;
            } else {
                expect.push_back(reference[w]);
            }
            let addr = (w * 4) as u32;
            // Hints some ops ahead of the loads, and now and then a bogus one.
            if !we && addr / 128 != last_line {
                last_line = addr / 128;
                hints.push_back((k.saturating_sub(24), last_line));
            }
            if rng.below(50) == 0 {
                hints.push_back((k, rng.below(WORDS as u64 / 32) as u32));
            }
            ops.push(Op { we, addr, data });
        }
        lsus.push(Lsu {
            ops,
            next: 0,
            gap: 0,
            expect,
            hints,
        });
    }
    lsus
}

/// Prefetch distance and read-ahead of the front end under test.
#[derive(Debug, Clone, Copy)]
struct Mode {
    ahead: u32,
    read_ahead: bool,
    join: bool,
}
/// The paper's prefetcher: the hinted line, no read-ahead.
const PAPER: Mode = Mode {
    ahead: 0,
    read_ahead: false,
    join: false,
};
/// The gpucc preset's.
const PRESET: Mode = Mode {
    ahead: 16,
    read_ahead: true,
    join: true,
};

fn random_traffic(seed: u64, l1: L1Model, gap_pct: u64, runs: usize, mode: Mode) {
    let mut rng = Rng(seed ^ 0x5555_aaaa_1234_5678);
    let init: Vec<u32> = (0..WORDS).map(|_| rng.next() as u32).collect();
    let mut reference = init.clone();
    let mut h = Harness::new(seed, l1, init, mode);
    let mut total_loads = 0u64;
    let mut total_stores = 0u64;
    for r in 0..runs {
        let mut lsus = gen_run(&mut rng, &mut reference, 200);
        total_loads += lsus.iter().map(|l| l.expect.len() as u64).sum::<u64>();
        total_stores += lsus
            .iter()
            .map(|l| l.ops.iter().filter(|o| o.we).count() as u64)
            .sum::<u64>();
        run_ops(&mut h, &mut lsus, gap_pct, 2_000_000).unwrap_or_else(|e| panic!("seed {seed} run {r}: {e}"));
        if let Some(w) = (0..WORDS).find(|&w| h.mem[w] != reference[w]) {
            panic!(
                "seed {seed} run {r}: memory word {w} is 0x{:08x}, reference 0x{:08x}",
                h.mem[w], reference[w]
            );
        }
        // The end of the run.
        h.inp.flush_i = b(0);
        h.inp.clear_i = b(1);
        h.step().unwrap();
        h.inp.clear_i = b(0);
    }
    // The counters against what the harness counted itself (read at a
    // step after the last events: the outputs cross to the core domain).
    let o = h.step().unwrap();
    let o = if h.t % 2 == 1 { h.step().unwrap() } else { o };
    assert_eq!(o.cnt_loads_o.to_u64(), total_loads, "seed {seed}");
    assert_eq!(o.cnt_stores_o.to_u64(), total_stores, "seed {seed}");
    assert_eq!(o.cnt_line_reads_o.to_u64(), h.seen.line_reads, "seed {seed}");
    assert_eq!(o.cnt_line_writes_o.to_u64(), h.seen.line_writes, "seed {seed}");
    assert_eq!(o.cnt_prefetch_o.to_u64(), h.seen.prefetches, "seed {seed}");
    // Every load hit a buffered line or made a line read (sent, or joined
    // onto another LSU's); the other line reads are read-aheads.
    let joins = o.cnt_joins_o.to_u64();
    assert_eq!(
        o.cnt_buf_hits_o.to_u64() + h.seen.line_reads + joins,
        total_loads + o.cnt_read_ahead_o.to_u64(),
        "seed {seed}"
    );
    if !mode.read_ahead {
        assert_eq!(o.cnt_read_ahead_o.to_u64(), 0);
    }
    if !mode.join {
        assert_eq!(joins, 0);
    }
    eprintln!(
        "seed {seed}: {total_loads} loads, {total_stores} stores, {} line reads, {joins} joined, {} line writes, {} prefetches in {} hot cycles",
        h.seen.line_reads, h.seen.line_writes, h.seen.prefetches, h.t
    );
}

#[test]
fn random_traffic_matches_the_reference_memory() {
    let cases = [
        (1, L1Model { ready_pct: 100, lat: 1 }, 0),
        (2, L1Model { ready_pct: 60, lat: 40 }, 30),
        (
            3,
            L1Model {
                ready_pct: 30,
                lat: 200,
            },
            10,
        ),
        (4, L1Model { ready_pct: 90, lat: 8 }, 80),
    ];
    for (seed, l1, gap) in cases {
        random_traffic(seed, l1, gap, 3, PAPER);
        random_traffic(seed, l1, gap, 3, PRESET);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 6, ..Default::default() })]
    #[test]
    fn random_traffic_any_seed(seed in 5u64..u64::MAX, ready in 20u64..=100, lat in 1u64..100, gap in 0u64..100) {
        random_traffic(seed, L1Model { ready_pct: ready, lat }, gap, 2, if seed % 2 == 0 { PAPER } else { PRESET });
    }
}

/// Sequential words: one line read per 32 loads, every load after the
/// line's first a buffer hit; stores: one line write per 32 stores. With
/// read-ahead every line after a stream's first is read ahead, and one
/// line past its end.
#[test]
fn sequential_words_make_one_line_request_per_32() {
    sequential_words(PAPER);
    sequential_words(PRESET);
}

fn sequential_words(mode: Mode) {
    let mut rng = Rng(77);
    let init: Vec<u32> = (0..WORDS).map(|_| rng.next() as u32).collect();
    let mut h = Harness::new(
        9,
        L1Model {
            ready_pct: 100,
            lat: 30,
        },
        init.clone(),
        mode,
    );
    let lines_per_lsu = 4usize;
    let mut lsus: Vec<Lsu> = (0..PORTS)
        .map(|j| {
            // LSU j: loads of 4 lines (even j) or stores to 4 lines (odd j),
            // word after word from a line boundary.
            let base = j * lines_per_lsu * 32;
            let we = j % 2 == 1;
            let ops: Vec<Op> = (0..lines_per_lsu * 32)
                .map(|k| Op {
                    we,
                    addr: ((base + k) * 4) as u32,
                    data: (j * 1000 + k) as u32,
                })
                .collect();
            let expect = if we {
                VecDeque::new()
            } else {
                (0..lines_per_lsu * 32).map(|k| init[base + k]).collect()
            };
            Lsu {
                ops,
                next: 0,
                gap: 0,
                expect,
                hints: VecDeque::new(),
            }
        })
        .collect();
    run_ops(&mut h, &mut lsus, 0, 200_000).unwrap();
    let loads = (PORTS / 2 * lines_per_lsu * 32) as u64;
    let streams = (PORTS / 2) as u64;
    let extra = if mode.read_ahead { streams } else { 0 };
    assert_eq!(h.seen.line_reads, streams * lines_per_lsu as u64 + extra);
    assert_eq!(h.seen.line_writes, (PORTS / 2 * lines_per_lsu) as u64);
    assert_eq!(h.seen.prefetches, 0);
    for j in (1..PORTS).step_by(2) {
        for k in 0..lines_per_lsu * 32 {
            assert_eq!(h.mem[j * lines_per_lsu * 32 + k], (j * 1000 + k) as u32);
        }
    }
    let o = h.step().unwrap();
    let o = if h.t % 2 == 1 { h.step().unwrap() } else { o };
    assert_eq!(o.cnt_loads_o.to_u64(), loads);
    let ra = o.cnt_read_ahead_o.to_u64();
    if mode.read_ahead {
        assert_eq!(ra, streams * lines_per_lsu as u64);
        assert_eq!(o.cnt_buf_hits_o.to_u64(), loads - streams);
    } else {
        assert_eq!(ra, 0);
        assert_eq!(o.cnt_buf_hits_o.to_u64(), loads - loads / 32);
    }
}

/// Three LSUs loading the same sequential words (as the three LSUs of one
/// image row of the 3x3 convolution do): with joins they share their line
/// reads, without joins each reads every line. Beside them an LSU stores
/// into lines another LSU's reads are out for, then loads its words: it
/// must not join those reads (they are older than its stores).
#[test]
fn lsus_reading_the_same_lines_join_one_read() {
    for mode in [PAPER, PRESET] {
        let mut rng = Rng(5);
        let init: Vec<u32> = (0..WORDS).map(|_| rng.next() as u32).collect();
        let mut h = Harness::new(
            4,
            L1Model {
                ready_pct: 100,
                lat: 300,
            },
            init.clone(),
            mode,
        );
        let lines = 8usize;
        let (base, sbase) = (64 * 32, 256 * 32);
        let idle = || Lsu {
            ops: Vec::new(),
            next: 0,
            gap: 0,
            expect: VecDeque::new(),
            hints: VecDeque::new(),
        };
        let mut lsus: Vec<Lsu> = (0..PORTS).map(|_| idle()).collect();
        for j in [2, 3, 4] {
            lsus[j].ops = (0..lines * 32)
                .map(|k| Op {
                    we: false,
                    addr: ((base + k) * 4) as u32,
                    data: 0,
                })
                .collect();
            lsus[j].expect = (0..lines * 32).map(|k| init[base + k]).collect();
        }
        // LSU 10 loads words 16..31 of two lines; LSU 9 stores words 0..15
        // of the same lines, then loads them while LSU 10's reads are
        // still out (a long L1 latency): LSU 9 must not join those reads,
        // sent before its stores, or it would load the old words.
        lsus[10].ops = (0..2 * 16)
            .map(|k| Op {
                we: false,
                addr: ((sbase + (k / 16) * 32 + 16 + k % 16) * 4) as u32,
                data: 0,
            })
            .collect();
        lsus[10].expect = (0..2 * 16).map(|k| init[sbase + (k / 16) * 32 + 16 + k % 16]).collect();
        let word9 = |k: usize| sbase + (k / 16) * 32 + k % 16;
        let mut ops9: Vec<Op> = (0..2 * 16)
            .map(|k| Op {
                we: true,
                addr: (word9(k) * 4) as u32,
                data: 0xabc0_0000 + k as u32,
            })
            .collect();
        ops9.extend((0..2 * 16).map(|k| Op {
            we: false,
            addr: (word9(k) * 4) as u32,
            data: 0,
        }));
        lsus[9].expect = (0..2 * 16).map(|k| 0xabc0_0000 + k as u32).collect();
        lsus[9].ops = ops9;
        run_ops(&mut h, &mut lsus, 0, 200_000).unwrap();
        let o = h.step().unwrap();
        let o = if h.t % 2 == 1 { h.step().unwrap() } else { o };
        let joins = o.cnt_joins_o.to_u64();
        // Lines each reading LSU reads, the read-ahead past its end included.
        let per_lsu = |n: u64| n + mode.read_ahead as u64;
        let wanted = 3 * per_lsu(lines as u64) + 2 * per_lsu(2);
        assert_eq!(h.seen.line_reads + joins, wanted, "{mode:?}");
        if mode.join {
            // At most one read per line of the shared stream.
            assert!(joins >= 2 * per_lsu(lines as u64), "{mode:?}: {joins} joins");
        } else {
            assert_eq!(joins, 0);
        }
    }
}

/// A hint becomes a prefetch (an id of the pool, 32..63) before the load
/// of its line asks; a hint of a line already buffered does not.
#[test]
fn hints_become_prefetches() {
    let init: Vec<u32> = (0..WORDS as u32).collect();
    let mut h = Harness::new(
        3,
        L1Model {
            ready_pct: 100,
            lat: 50,
        },
        init,
        PAPER,
    );
    let mut lsus: Vec<Lsu> = (0..PORTS)
        .map(|_| Lsu {
            ops: Vec::new(),
            next: 0,
            gap: 0,
            expect: VecDeque::new(),
            hints: VecDeque::new(),
        })
        .collect();
    // LSU 3 hints lines 10 and 11 (4 hot cycles apart), then loads a
    // word of each.
    for line in [10u64, 11] {
        h.inp.pf_valid_i[3] = b(1);
        h.inp.pf_line_i[3] = b(line);
        h.step().unwrap();
        h.inp.pf_valid_i[3] = b(0);
        for _ in 0..3 {
            h.step().unwrap();
        }
    }
    assert_eq!(h.seen.prefetches, 2);
    let ids: Vec<u8> = h.out.iter().map(|o| o.1).collect();
    assert!(ids.iter().all(|&id| (32..64).contains(&id)), "{ids:?}");
    lsus[3].ops = vec![
        Op {
            we: false,
            addr: 10 * 128 + 8,
            data: 0,
        },
        Op {
            we: false,
            addr: 11 * 128 + 4,
            data: 0,
        },
    ];
    lsus[3].expect = VecDeque::from([10 * 32 + 2, 11 * 32 + 1]);
    // A hint of a line the LSU holds is not sent.
    lsus[3].hints = VecDeque::from([(2, 11)]);
    run_ops(&mut h, &mut lsus, 0, 10_000).unwrap();
    assert_eq!(h.seen.prefetches, 2);
    assert_eq!(h.seen.line_reads, 2);
}

/// Replay every GPU-CC run of a kernel case: on the network alone with a
/// per-LSU memory port (`gpucc_tb::run`, `shared` false: the ideal; true:
/// one uncoalesced word port), or behind `gpucc_mem` and the L1
/// (`gpucc_mem_tb::run_mem`); each run checked against the golden model,
/// the last image against the host reference. Hot cycles per run.
fn replay(case: &crate::testbenches::kernels::Case, how: &str, latency: u64) -> Vec<u64> {
    use crate::config::SmConfig;
    use crate::golden::asm::assemble;
    use crate::golden::model::{Golden, DEFAULT_BUDGET};
    use crate::testbenches::gpucc_mem_tb::{run_mem, MemTbOpts};
    use crate::testbenches::gpucc_tb::{run, TbOpts};
    let cfg = SmConfig::load("gpucc").unwrap();
    let prog = assemble(case.source, case.file).unwrap();
    let mut g = Golden::new(&cfg, &prog, &case.launch(), case.gmem.clone()).unwrap();
    g.keep_gpucc_runs(true);
    g.run(DEFAULT_BUDGET).unwrap();
    let mut mem = Vec::new();
    let mut cycles = Vec::new();
    for (k, (net, start)) in g.gpucc_kept().iter().enumerate() {
        mem = start.clone();
        let hot = if how == "mem" {
            let o = MemTbOpts {
                latency,
                ..MemTbOpts::of(&cfg)
            };
            let r = run_mem(net, &cfg, &mut mem, &o).unwrap_or_else(|e| panic!("{} run {k}: {e}", case.label));
            eprintln!(
                "  run {k}: loads {} stores {} line reads {} line writes {} prefetches {} buffer hits {} L1 hits {} L1 misses {}",
                r.counters[0], r.counters[1], r.counters[2], r.counters[3], r.counters[4], r.counters[5], r.counters[6], r.counters[7]
            );
            assert_eq!(r.counters[0], r.net.loads, "front-end loads against the LSUs' requests");
            assert_eq!(r.counters[1], r.net.stores);
            r.net.hot_cycles
        } else {
            let o = TbOpts {
                latency: 2 * latency,
                shared_port: how == "shared",
                ..TbOpts::default()
            };
            run(net, &cfg, &mut mem, &o)
                .unwrap_or_else(|e| panic!("{} run {k}: {e}", case.label))
                .hot_cycles
        };
        cycles.push(hot);
    }
    case.check(&mem).unwrap_or_else(|e| panic!("{e}"));
    cycles
}

/// The 3x3 convolution at a global-memory latency of 300 core cycles: the
/// network with one uncoalesced word port, behind `gpucc_mem` and the L1
/// (the preset's bandwidth), and with an ideal port per LSU.
#[test]
fn conv3x3_through_the_front_end() {
    use crate::testbenches::kernels::conv_gpucc;
    let case = conv_gpucc(3, 37, 21, 1);
    let shared = replay(&case, "shared", 300);
    let mem = replay(&case, "mem", 300);
    let ideal = replay(&case, "ideal", 300);
    eprintln!("conv3x3 37x21, gmem latency 300 core cycles, hot cycles per run: one word port {shared:?}, gpucc_mem + L1 {mem:?}, a port per LSU {ideal:?}");
    let s: u64 = shared.iter().sum();
    let m: u64 = mem.iter().sum();
    assert!(m < s, "coalescing ({m}) is not faster than one word port ({s})");
}

/// The network's random configurations behind the front end and the L1
/// (short memory latency, unlimited bandwidth) against the golden model.
#[test]
fn random_configurations_through_the_front_end() {
    use crate::testbenches::gpucc_gen;
    use crate::testbenches::gpucc_mem_tb::{run_mem, MemTbOpts};
    let cfg = crate::config::SmConfig::load("gpucc").unwrap();
    for seed in 0..12u64 {
        let (net, _) = gpucc_gen::network(&cfg, seed);
        let mut mem = gpucc_gen::image(seed);
        let o = MemTbOpts {
            latency: [3, 40, 300][seed as usize % 3],
            milli_bytes_per_cycle: [0, 16895][seed as usize % 2],
            ..MemTbOpts::of(&cfg)
        };
        run_mem(&net, &cfg, &mut mem, &o).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}

/// The LSU's hint: an index pushed into a load LSU's address FIFO whose
/// line differs from the previous hint's raises `pf_valid_o` for one
/// cycle, the cycle after the push, with the line; a store LSU gives none;
/// `clear_i` forgets the previous line.
#[test]
fn lsu_hints_each_new_line() {
    use super::lsu::{GpuccLsu, LsuIn};
    use crate::golden::gpucc::NodeCfg;
    use crate::golden::isa::Op as IsaOp;
    for (op, imm) in [(IsaOp::Ldg, 0x1f0u32), (IsaOp::Stg, 0x40)] {
        let mut sim = Sim::new(GpuccLsu::new()).unwrap();
        sim.reset();
        let mut i: LsuIn<Concrete> = zero_ports();
        let c = NodeCfg {
            op: op as u8,
            m: 2,
            fifo_lane: [1, 2, 0],
            out_lane: 3,
            imm,
            ..NodeCfg::default()
        };
        let configure = |sim: &mut Sim<GpuccLsu>, i: &mut LsuIn<Concrete>| {
            for (sel, w) in [(0u64, c.op_word()), (2, c.imm)] {
                i.cfg_we_i = b(1);
                i.cfg_sel_i = b(sel);
                i.cfg_data_i = b(w as u64);
                sim.step(i);
            }
            i.cfg_we_i = b(0);
        };
        configure(&mut sim, &mut i);
        // Indices pushed on lane A (run_i low: nothing fires); a clear
        // (which also clears the configuration: configured again), then
        // the last hinted line again. What a hint should say, by hand.
        let mut got = Vec::new();
        let mut push = |sim: &mut Sim<GpuccLsu>, i: &mut LsuIn<Concrete>, xs: &[u64]| {
            for (k, &x) in xs.iter().enumerate() {
                i.lane_valid_i[0] = b(1);
                i.lane_data_i[0] = b(x);
                sim.step(i);
                i.lane_valid_i[0] = b(0);
                let o = sim.step(i);
                if o.pf_valid_o.any() {
                    got.push((x, k, o.pf_line_o.to_u64()));
                }
            }
        };
        push(&mut sim, &mut i, &[0, 1, 2, 3, 4, 35, 36, 36]);
        i.clear_i = b(1);
        sim.step(&i);
        i.clear_i = b(0);
        configure(&mut sim, &mut i);
        push(&mut sim, &mut i, &[36, 100, 101, 0]);
        let want: Vec<(u64, usize, u64)> = if op == IsaOp::Ldg {
            // imm 0x1f0 + 4 x: x = 0..3 line 3; x = 4 (0x200) and 35
            // (0x27c) line 4; x = 36 (0x280) line 5; after the clear 36
            // again line 5, 100 (0x380) and 101 line 7, 0 line 3.
            vec![(0, 0, 3), (4, 4, 4), (36, 6, 5), (36, 0, 5), (100, 1, 7), (0, 3, 3)]
        } else {
            vec![]
        };
        assert_eq!(got, want, "{op:?}");
    }
}
