//! The SFU block against the golden SFU functions: the clocked block on
//! random warp instructions (results, tags, masks, error codes, timing;
//! a quarter of them FMUL, checked against the golden Tesla FMUL on the
//! `sfu_fmul` presets and as error code 1 on the others),
//! and the combinational datapath on slices of the input space. The full
//! 2^32 sweep per function is `smrtl sfu-exhaustive` (run in release, see
//! docs/sfu.md).

use rand::{rngs::SmallRng, SeedableRng};
use smrtl::hdl::Sim;
use smrtl::sm::SmConfig;
use smrtl::testbenches::sfu_tb::{exhaustive, run_random};
use smrtl::units::sfu::Sfu;

fn block(preset: &str) -> Sim<Sfu> {
    let c = SmConfig::preset(preset).unwrap();
    Sim::new(Sfu::from_config(&c).unwrap()).unwrap()
}

/// Fermi with the deepest datapath its 8-cycle stream allows (8 hot
/// cycles; the tag copy behind the stream is read last then).
fn fermi_deep() -> Sim<Sfu> {
    let mut c = SmConfig::preset("fermi").unwrap();
    c.sfu_latency = 8;
    Sim::new(Sfu::from_config(&c).unwrap()).unwrap()
}

/// 100,000 threads (3125 warps) in total over GT200 and Fermi, back to back
/// and with gaps.
#[test]
fn clocked_block_matches_golden_100k_threads() {
    let mut rng = SmallRng::seed_from_u64(1);
    let mut threads = 0;
    for (preset, p, n) in [
        ("gt200", 1.0, 1000),
        ("gt200", 0.3, 400),
        ("fermi-lat8", 1.0, 200),
        ("fermi", 1.0, 1200),
        ("fermi", 0.5, 325),
    ] {
        let mut sim = if preset == "fermi-lat8" {
            fermi_deep()
        } else {
            block(preset)
        };
        let st = run_random(&mut sim, n, p, &mut rng).unwrap_or_else(|e| panic!("{preset}: {e}"));
        assert_eq!(st.warps, n);
        assert_eq!(st.fmul_warps > 0, preset.starts_with("gt200"), "{preset}: {st:?}");
        threads += st.threads;
    }
    assert_eq!(threads, 100_000);
}

/// The same, 10,000,000 threads (run: cargo test --release --test sfu_rtl -- --ignored).
#[test]
#[ignore]
fn clocked_block_matches_golden_10m_threads() {
    let mut rng = SmallRng::seed_from_u64(2);
    let mut threads = 0;
    for preset in ["gt200", "fermi"] {
        let mut sim = block(preset);
        let st = run_random(&mut sim, 156_250, 0.9, &mut rng).unwrap_or_else(|e| panic!("{preset}: {e}"));
        threads += st.threads;
        eprintln!(
            "{preset}: {} warps ({} FMUL on the multipliers), {} threads, {} hot cycles",
            st.warps, st.fmul_warps, st.threads, st.hot_cycles
        );
    }
    assert_eq!(threads, 10_000_000);
}

/// A slice of every function's input space through the combinational path.
#[test]
fn datapath_slices_match_golden() {
    for op in 0x30u8..=0x37 {
        // 2^16 inputs around 1.0 and around the PRESIN/PREEX2 codes.
        for base in [0x3f80_0000u64, 0x4080_0000, 0xbf7f_8000] {
            let (n, bad, first) = exhaustive(op, base, base + (1 << 15), 2, false);
            assert_eq!(bad, 0, "op {op:#x}: {bad} of {n} differ: {first:?}");
        }
    }
}
