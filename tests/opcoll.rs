//! Operand collectors + register file against the reference model:
//! proptest over random traffic (default), and the long runs (ignored:
//! `cargo test --release --test opcoll -- --ignored --nocapture`):
//! 1,000,000 random core cycles per preset (gt200, fermi, 24 banks) and
//! Verilator lock-step.

use proptest::prelude::*;
use smrtl::sm::SmConfig;
use smrtl::testbenches::opcoll_tb::random_run_geom;
use smrtl::units::regfile::RfGeom;

fn geoms() -> Vec<(&'static str, RfGeom)> {
    let c24 = SmConfig::load(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/gt200_24banks.toml")).unwrap();
    vec![
        (
            "gt200",
            RfGeom::from_config(&SmConfig::preset("gt200").unwrap()).unwrap(),
        ),
        (
            "fermi",
            RfGeom::from_config(&SmConfig::preset("fermi").unwrap()).unwrap(),
        ),
        ("gt200_24banks", RfGeom::from_config(&c24).unwrap()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// Random issue, write-back and FP64-pair traffic from any seed agrees
    /// with the reference on every output of every cycle, on every preset.
    #[test]
    fn random_traffic_matches_reference(seed in any::<u64>(), which in 0usize..3) {
        let (name, g) = geoms()[which];
        let st = random_run_geom(&g, 300, seed).map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
        prop_assert!(st.dispatched > 50, "{name}: {st:?}");
    }
}

#[test]
#[ignore]
fn million_random_cycles_per_preset() {
    for (k, (name, g)) in geoms().into_iter().enumerate() {
        let t = std::time::Instant::now();
        let st = random_run_geom(&g, 1_000_000, 100 + k as u64).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!(
            "{name}: {} core cycles, 0 mismatches; issued {}, dispatched {}, writes {}, errors {}, \
             counters rr {} wr {} stall {} ({:.1} s)",
            st.cycles,
            st.issued,
            st.dispatched,
            st.writes,
            st.errors,
            st.cnt[0],
            st.cnt[1],
            st.cnt[2],
            t.elapsed().as_secs_f64()
        );
        assert_eq!(st.cycles, 1_000_000);
    }
}
