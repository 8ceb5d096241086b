//! LSU: random runs of the RTL block (with the RTL shared-memory unit and
//! the global-memory model) against the cycle reference and the golden
//! model's memory semantics, coalescing worked examples, and the long run
//! (ignored: `cargo test --release --test lsu -- --ignored`).

use proptest::prelude::*;
use smrtl::golden::isa::Op;
use smrtl::sm::SmConfig;
use smrtl::testbenches::gmem::GmemConfig;
use smrtl::testbenches::lsu_tb::{random_run, Inst, LsuBench, RunCfg};

fn run_cfg(latency: u32, bw: u64, ooo: bool, seed: u64) -> RunCfg {
    RunCfg {
        gmem: GmemConfig {
            latency,
            milli_bytes_per_cycle: bw,
            out_of_order: ooo,
            seed,
        },
        gm_bytes: 1 << 14,
        ssize: 1024,
        p_valid: 0.7,
        p_bad: 0.05,
        seed,
    }
}

#[test]
fn random_runs_every_preset() {
    let mut reordered = 0;
    for (preset, seed) in [("gt200", 1u64), ("fermi", 2), ("tesla", 4)] {
        let cfg = SmConfig::preset(preset).unwrap();
        for (lat, bw, ooo) in [(3, 64_000, false), (9, 8_000, true)] {
            let s = random_run(&cfg, 150, run_cfg(lat, bw, ooo, seed)).unwrap_or_else(|e| panic!("{preset}: {e}"));
            assert!(
                s.global > 20 && s.shared > 20 && s.params > 5 && s.errors > 0,
                "{preset}: {s:?}"
            );
            assert!(s.max_out > 1 && s.res_stalled > 0, "{preset}: {s:?}");
            reordered += s.reordered;
        }
    }
    // Loads of different slots finishing out of order (out-of-order memory
    // or, on fermi, L1 hits overtaking misses).
    assert!(reordered > 0, "no load result out of acceptance order");
}

/// Streams of global loads: with one request per load as many loads are
/// in flight as there are load slots; with many requests per load as many
/// reads are out in memory as there are request tags (the bench checks
/// that no id is reused while out, every cycle against the reference and
/// every result against the golden model).
#[test]
fn loads_overlap_in_slots_and_tags() {
    for (preset, slots, tags) in [("gt200", 24u64, 32u64), ("fermi", 48, 48)] {
        let cfg = SmConfig::preset(preset).unwrap();
        assert_eq!((cfg.lsu_slots as u64, cfg.lsu_tags as u64), (slots, tags));
        let run = RunCfg {
            p_valid: 1.0,
            p_bad: 0.0,
            ..run_cfg(300, 200_000, true, 11)
        };
        for one_request in [true, false] {
            let stats = match cfg.max_warps {
                32 => {
                    let mut b = LsuBench::<32, 4, 8>::new(&cfg, run).unwrap();
                    loads(&mut b, 120, one_request);
                    b.finish().unwrap();
                    b.stats.clone()
                }
                _ => {
                    let mut b = LsuBench::<48, 5, 9>::new(&cfg, run).unwrap();
                    loads(&mut b, 120, one_request);
                    b.finish().unwrap();
                    b.stats.clone()
                }
            };
            assert_eq!(stats.global, 120, "{preset}: {stats:?}");
            if one_request {
                assert_eq!(stats.max_out, slots, "{preset}: {stats:?}");
            } else {
                assert_eq!(stats.max_reads, tags, "{preset}: {stats:?}");
            }
        }
    }
}

/// Queue `n` global loads: with `one_request`, 16 lanes reading 64
/// consecutive bytes (one request on every preset), else random addresses
/// and strides, some `.64` (several requests each).
fn loads<const MW: usize, const LB: usize, const A: usize>(b: &mut LsuBench<MW, LB, A>, n: u32, one_request: bool) {
    for k in 0..n {
        let wide = k % 3 == 0 && !one_request;
        let stride = if one_request {
            4
        } else {
            [4u32, 4, 8, 4, 132][k as usize % 5]
        };
        let base = ((k * 389) % 4096) & !if one_request { 63 } else { 7 };
        let a = std::array::from_fn(|l| ((base + l as u32 * stride) % 8192) & if wide { !7 } else { !3 });
        b.push(Inst {
            op: Op::Ldg as u8,
            md: wide as u8,
            mask: if one_request { 0xffff } else { 0xffff_ffff >> (k % 5) },
            a,
            b: [0; 32],
            c: [0; 32],
            e: 0,
            tag: k << 6 | (k % 32),
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]
    #[test]
    fn proptest_random_runs(seed in any::<u64>(), lat in 1u32..30, bw in 2_000u64..200_000, ooo: bool, fermi: bool) {
        let cfg = SmConfig::preset(if fermi { "fermi" } else { "gt200" }).unwrap();
        let r = random_run(&cfg, 60, run_cfg(lat, bw, ooo, seed));
        prop_assert!(r.is_ok(), "{:?}", r.err());
    }
}

/// One instruction with addresses `a` (byte) on a fresh bench; returns the
/// (address, size code) of every global request.
fn requests(preset: &str, a: [u32; 32], wide: bool, mask: u32) -> Vec<(u32, u8)> {
    let cfg = SmConfig::preset(preset).unwrap();
    let run = run_cfg(5, 1_000_000, false, 9);
    let inst = Inst {
        op: Op::Ldg as u8,
        md: wide as u8,
        mask,
        a,
        b: [0; 32],
        c: [0; 32],
        e: 0,
        tag: 0,
    };
    macro_rules! go {
        ($mw:literal, $lb:literal, $a:literal) => {{
            let mut b = LsuBench::<$mw, $lb, $a>::new(&cfg, run).unwrap();
            b.push(inst);
            b.run(1, 2_000).unwrap();
            b.log.iter().map(|r| (r.addr, r.size)).collect()
        }};
    }
    if preset == "fermi" {
        go!(48, 5, 9)
    } else {
        go!(32, 4, 8)
    }
}

/// The worked examples of docs/lsu.md (compute 1.2/1.3 rules per half-warp;
/// Fermi 128-byte lines per warp).
#[test]
fn coalescing_worked_examples() {
    let stride = |base: u32, step: u32| std::array::from_fn(|l| base + step * l as u32);
    let half = 0xffff;
    // 16 words from 256: bytes 256..320, the low half of segment 256 -> 64 B.
    assert_eq!(requests("gt200", stride(256, 4), false, half), vec![(256, 1)]);
    // From 288: bytes 288..352 use both halves of segment 256 -> 128 B.
    assert_eq!(requests("gt200", stride(288, 4), false, half), vec![(256, 2)]);
    // From 352: 352..384 (segment 256, upper 32) and 384..416 -> 2 x 32 B.
    assert_eq!(requests("gt200", stride(352, 4), false, half), vec![(352, 0), (384, 0)]);
    // All lanes one word -> 32 B.
    assert_eq!(requests("gt200", [1000; 32], false, half), vec![(992, 0)]);
    // 8-byte stride, 16 lanes from 256: 128 B.
    assert_eq!(requests("gt200", stride(256, 8), true, half), vec![(256, 2)]);
    // Full warp unit stride from 256: one 64 B request per half-warp.
    assert_eq!(
        requests("gt200", stride(256, 4), false, u32::MAX),
        vec![(256, 1), (320, 1)]
    );
    // Stride 128: one 32 B request per lane.
    assert_eq!(requests("gt200", stride(0, 128), false, half).len(), 16);
    // Fermi: a warp's unit stride from 256 is one line; from 288 two.
    assert_eq!(requests("fermi", stride(256, 4), false, u32::MAX), vec![(256, 2)]);
    assert_eq!(
        requests("fermi", stride(288, 4), false, u32::MAX),
        vec![(256, 2), (384, 2)]
    );
}

/// The long run: random instructions per preset, every output every cycle
/// against the reference, every result against the golden model.
#[test]
#[ignore]
fn long_random_run() {
    let n: u64 = std::env::var("LSU_LONG_INSTRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40_000);
    for (preset, seed) in [("gt200", 11u64), ("fermi", 12), ("tesla", 13)] {
        let cfg = SmConfig::preset(preset).unwrap();
        for (lat, bw, ooo) in [(20, 7_846, true), (3, 100_000, false)] {
            let s = random_run(&cfg, n / 2, run_cfg(lat, bw, ooo, seed)).unwrap_or_else(|e| panic!("{preset}: {e}"));
            println!("{preset} latency {lat} bw {bw} ooo {ooo}: {s:?}");
        }
    }
}
