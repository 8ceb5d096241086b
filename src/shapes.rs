//! The warp shapes the blocks are built for: one registry.
//!
//! The number of warps (`max_warps`), of warp schedulers
//! (`warp_schedulers`) and of CTA slots (`max_ctas`) size per-warp state
//! and select trees in the front end, the SIMT stack, the barrier, the CTA
//! launcher, the LSU, the write-back and the whole SM top. They are const
//! generics of those blocks (a width in a type is checked by the compiler),
//! so every supported combination is one monomorphized instance, and a
//! config can only be built if its combination is one of them.
//!
//! [`WARP_SHAPES`] lists the combinations; [`with_warp_shape!`] turns a
//! config into the constants `MW` (warps), `NS` (schedulers) and `NC` (CTA
//! slots) of its row, or into a [`ShapeError`] naming the block and the
//! supported rows. Every builder of a shaped block (`flows::with_block`,
//! the units' `with_*`, `sm::top::with_sm`) and every testbench that
//! instantiates one for a config dispatches through it, so all of them
//! accept the same configs. Geometry beyond the warp shape (register-file
//! groups, shared-memory banks, cache sets) stays with the block that has
//! it.
//!
//! To add a shape: add a row to [`WARP_SHAPES`] and the same arm to
//! [`with_warp_shape!`] (`shapes::tests::every_row_dispatches` checks that
//! the two agree).

use crate::config::SmConfig;

/// One supported combination of warps, schedulers and CTA slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarpShape {
    /// `max_warps`: warp slots of the SM.
    pub warps: u32,
    /// `warp_schedulers`: schedulers, SP groups, issue and write ports.
    pub schedulers: u32,
    /// `max_ctas`: CTA slots (barriers).
    pub ctas: u32,
    /// The presets of this shape (for error messages).
    pub presets: &'static str,
}

/// The supported warp shapes: the presets' (docs/presets.md).
pub const WARP_SHAPES: [WarpShape; 3] = [
    WarpShape {
        warps: 16,
        schedulers: 1,
        ctas: 8,
        presets: "tesla",
    },
    WarpShape {
        warps: 32,
        schedulers: 1,
        ctas: 8,
        presets: "gt200",
    },
    WarpShape {
        warps: 48,
        schedulers: 2,
        ctas: 8,
        presets: "fermi, gpucc",
    },
];

/// A config whose warp shape no block is built for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    pub config: String,
    pub block: &'static str,
    pub warps: u32,
    pub schedulers: u32,
    pub ctas: u32,
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "config `{}`: {} warps, {} and {} CTA slots are not a supported shape of the {} block (supported: {})",
            self.config,
            self.warps,
            schedulers(self.schedulers),
            self.ctas,
            self.block,
            supported()
        )
    }
}

impl std::error::Error for ShapeError {}

/// "1 warp scheduler", "2 warp schedulers".
fn schedulers(n: u32) -> String {
    format!("{n} warp scheduler{}", if n == 1 { "" } else { "s" })
}

impl From<ShapeError> for String {
    fn from(e: ShapeError) -> String {
        e.to_string()
    }
}

/// "16 warps, 1 warp scheduler, 8 CTA slots (tesla); ..." for error messages.
pub fn supported() -> String {
    WARP_SHAPES
        .iter()
        .map(|s| {
            format!(
                "{} warps, {}, {} CTA slots ({})",
                s.warps,
                schedulers(s.schedulers),
                s.ctas,
                s.presets
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

impl WarpShape {
    /// The row of `cfg`, or the error for `block`.
    pub fn of(cfg: &SmConfig, block: &'static str) -> Result<WarpShape, ShapeError> {
        WARP_SHAPES
            .iter()
            .find(|s| (s.warps, s.schedulers, s.ctas) == (cfg.max_warps, cfg.warp_schedulers, cfg.max_ctas))
            .copied()
            .ok_or_else(|| ShapeError {
                config: cfg.name.clone(),
                block,
                warps: cfg.max_warps,
                schedulers: cfg.warp_schedulers,
                ctas: cfg.max_ctas,
            })
    }
}

/// `with_warp_shape!(cfg, "block", |MW, NS, NC| body)`: evaluate `body`
/// (a `Result`) with the constants `MW`, `NS`, `NC` (usize) of `cfg`'s warp
/// shape, or return `Err` of the [`ShapeError`] (converted with `into`:
/// to `anyhow::Error` or `String`).
#[macro_export]
macro_rules! with_warp_shape {
    ($cfg:expr, $block:expr, |$mw:ident, $ns:ident, $nc:ident| $body:expr) => {{
        let cfg: &$crate::config::SmConfig = $cfg;
        match $crate::shapes::WarpShape::of(cfg, $block) {
            Err(e) => Err(e.into()),
            Ok(s) => match (s.warps, s.schedulers, s.ctas) {
                (16, 1, 8) => $crate::with_warp_shape!(@arm 16, 1, 8, $mw, $ns, $nc, $body),
                (32, 1, 8) => $crate::with_warp_shape!(@arm 32, 1, 8, $mw, $ns, $nc, $body),
                (48, 2, 8) => $crate::with_warp_shape!(@arm 48, 2, 8, $mw, $ns, $nc, $body),
                // A row of WARP_SHAPES without an arm here (the unit test
                // catches it).
                _ => Err($crate::shapes::ShapeError {
                    config: cfg.name.clone(),
                    block: $block,
                    warps: s.warps,
                    schedulers: s.schedulers,
                    ctas: s.ctas,
                }
                .into()),
            },
        }
    }};
    (@arm $w:literal, $s:literal, $c:literal, $mw:ident, $ns:ident, $nc:ident, $body:expr) => {{
        #[allow(dead_code)]
        const $mw: usize = $w;
        #[allow(dead_code)]
        const $ns: usize = $s;
        #[allow(dead_code)]
        const $nc: usize = $c;
        $body
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_dispatches() {
        for s in WARP_SHAPES {
            let mut c = SmConfig::preset("gt200").unwrap();
            (c.max_warps, c.warp_schedulers, c.max_ctas) = (s.warps, s.schedulers, s.ctas);
            let got: Result<(usize, usize, usize), String> =
                crate::with_warp_shape!(&c, "test", |MW, NS, NC| Ok((MW, NS, NC)));
            assert_eq!(got, Ok((s.warps as usize, s.schedulers as usize, s.ctas as usize)));
        }
    }

    #[test]
    fn presets_have_a_shape_and_others_get_a_clear_error() {
        for p in ["tesla", "gt200", "fermi", "gpucc"] {
            let c = SmConfig::preset(p).unwrap();
            let s = WarpShape::of(&c, "test").unwrap();
            assert!(s.presets.contains(p), "{p}: {s:?}");
        }
        let mut c = SmConfig::preset("fermi").unwrap();
        c.max_warps = 64;
        let got: Result<(), String> = crate::with_warp_shape!(&c, "simt", |MW, NS, NC| Ok(()));
        let e = got.unwrap_err();
        assert!(
            e.contains("config `fermi`: 64 warps, 2 warp schedulers and 8 CTA slots are not a supported shape of the simt block")
                && e.contains("48 warps, 2 warp schedulers, 8 CTA slots (fermi, gpucc)"),
            "{e}"
        );
    }

    /// Every builder of a shaped block goes through the registry: all of
    /// them build the presets' shapes and reject another with the same error.
    #[test]
    fn every_shaped_block_accepts_the_same_configs() {
        use crate::blocks::{BlockFn, BlockName};
        struct Nop;
        impl BlockFn for Nop {
            type Out = ();
            fn call<K: crate::hdl::Block + Clone>(&mut self, _: K) -> anyhow::Result<()> {
                Ok(())
            }
        }
        use BlockName as B;
        let shaped = [
            B::Scoreboard,
            B::Predfile,
            B::Sched,
            B::Ibuffer,
            B::Simt,
            B::Barrier,
            B::Cta,
            B::Lsu,
            B::Wb,
            B::Imuldly,
            B::Ifetch,
            B::Sm,
        ];
        for b in shaped {
            // IMUL delay table: the presets with one (imul32_latency > 0).
            let presets: &[&str] = if b == B::Imuldly {
                &["tesla", "gt200"]
            } else {
                &["tesla", "gt200", "fermi"]
            };
            for p in presets {
                let c = SmConfig::preset(p).unwrap();
                crate::flows::with_block(b, &c, &mut Nop).unwrap_or_else(|e| panic!("{b:?} on {p}: {e}"));
            }
            let mut c = SmConfig::preset("gt200").unwrap();
            (c.max_warps, c.max_threads) = (48, 1536);
            let e = crate::flows::with_block(b, &c, &mut Nop).unwrap_err().to_string();
            assert!(
                e.contains("config `gt200`: 48 warps, 1 warp scheduler and 8 CTA slots are not a supported shape"),
                "{b:?}: {e}"
            );
        }
    }
}
