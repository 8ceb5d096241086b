//! Micro-benchmark kernels (`testbenches/kernels/micro/*.s`) for the timing
//! calibration of the SM against published hardware measurements
//! (`docs/calibration.md`), with bit-exact host references of what they
//! leave in global memory.
//!
//! Each kernel reads `SR_CLOCK` before and after a loop of 32 identical
//! instructions per iteration (the throughput kernels: 128, `TPUT_OPS`)
//! and stores the difference beside its result. In the golden model
//! `SR_CLOCK` counts the warp's instructions, so the references predict
//! the golden delta exactly (`1 + iters x 35`, `1 + iters x 131` for the
//! throughput kernels, `1 + iters x 3` for `lat_loop`); on the SM it counts cycles, which is the
//! measurement. The lock-step checker therefore does not compare the
//! values of `S2R SR_CLOCK`: it hands the SM's to the golden model, which
//! computes on from them (docs/calibration.md).
//!
//! [`micro_cases`] gives the cases for a preset: only the kernels the
//! preset can run (FMAD or FFMA per `mul_add`, FP64 only when
//! `fp64_rate_divisor > 0`, the MAD+MUL mix only with `sfu_fmul`).

use crate::config::{MulAdd, SmConfig};
use crate::golden::arith::{ieee, sfu, Round, Tininess};
use crate::golden::model::Launch;

use super::{ffma, fmad, Fp32};

/// One micro-benchmark launch with its reference image.
#[derive(Debug, Clone)]
pub struct MicroCase {
    /// Kernel name (the `.kernel` and the file stem).
    pub name: &'static str,
    /// Kernel and launch, e.g. `smem_stride stride=4`.
    pub label: String,
    /// The assembly text.
    pub source: &'static str,
    pub launch: Launch,
    /// Global memory at launch.
    pub gmem: Vec<u8>,
    /// Global memory the golden model must leave behind.
    pub expected: Vec<u8>,
}

macro_rules! micro_src {
    ($f:literal) => {
        include_str!(concat!("micro/", $f))
    };
}

/// Every kernel file: (name, source).
pub const MICRO_KERNELS: [(&str, &str); 18] = [
    ("lat_loop", micro_src!("lat_loop.s")),
    ("lat_fadd", micro_src!("lat_fadd.s")),
    ("lat_fmad", micro_src!("lat_fmad.s")),
    ("lat_ffma", micro_src!("lat_ffma.s")),
    ("lat_iadd", micro_src!("lat_iadd.s")),
    ("lat_imul", micro_src!("lat_imul.s")),
    ("lat_rsq", micro_src!("lat_rsq.s")),
    ("lat_lg2", micro_src!("lat_lg2.s")),
    ("lat_dadd", micro_src!("lat_dadd.s")),
    ("lat_dfma", micro_src!("lat_dfma.s")),
    ("tput_fmad", micro_src!("tput_fmad.s")),
    ("tput_ffma", micro_src!("tput_ffma.s")),
    ("mix_mad_mul", micro_src!("mix_mad_mul.s")),
    ("tput_imul", micro_src!("tput_imul.s")),
    ("smem_lat", micro_src!("smem_lat.s")),
    ("smem_stride", micro_src!("smem_stride.s")),
    ("bar_lat", micro_src!("bar_lat.s")),
    ("gmem_lat", micro_src!("gmem_lat.s")),
];

fn src(name: &str) -> &'static str {
    MICRO_KERNELS.iter().find(|k| k.0 == name).expect("micro kernel").1
}

fn words(img: &mut [u8], at: usize, w: &[u32]) {
    for (i, v) in w.iter().enumerate() {
        img[at + 4 * i..at + 4 * i + 4].copy_from_slice(&v.to_le_bytes());
    }
}

/// Golden `SR_CLOCK` difference around a loop of `per_iter` warp
/// instructions per iteration (the first `S2R` itself counts once).
fn delta(iters: u32, per_iter: u32) -> u32 {
    1 + iters * per_iter
}

const ITERS: u32 = 3;
/// Loop iterations of the throughput cases: long enough that the skew of
/// the warps' start (CTA launch, the header's constant loads) and of their
/// stores is small beside the overlapped loops (with 3, a full Fermi SM's
/// 48 warps spent most of the window on the LSU and measured 14 of 32).
/// 4 iterations of 128 operations: the 512 per thread of 16 x 32 before.
const TPUT_ITERS: u32 = 8;
/// Operations per loop iteration of the throughput kernels (32 groups of
/// 4 accumulators), and issues per iteration with the loop's IADD, ISETP
/// and BRA.
pub const TPUT_OPS: u32 = 128;
const TPUT_ISSUES: u32 = TPUT_OPS + 3;
const RN: Round = Round::NearEven;
const TIN: Tininess = Tininess::AfterRounding;

fn f32c(x: f32) -> u32 {
    x.to_bits()
}

/// A one-warp dependent chain: lane `l` starts from `x0(l)` and applies
/// `f` 32 x ITERS times; 32-bit results at out + l x 8.
fn chain32(name: &'static str, x0: impl Fn(u32) -> u32, f: impl Fn(u32) -> u32) -> MicroCase {
    let mut exp = vec![0u8; 32 * 8];
    for l in 0..32 {
        let mut x = x0(l);
        for _ in 0..32 * ITERS {
            x = f(x);
        }
        words(&mut exp, 8 * l as usize, &[delta(ITERS, 35), x]);
    }
    one_warp(name, vec![0, ITERS], 32 * 8, exp)
}

/// The FP64 chains: results as pairs at out + l x 16 + 8.
fn chain64(name: &'static str, f: impl Fn(u64) -> u64) -> MicroCase {
    let mut exp = vec![0u8; 32 * 16];
    for l in 0..32 {
        let mut x = ieee::i32_to_f64(l, true);
        for _ in 0..32 * ITERS {
            x = f(x);
        }
        words(
            &mut exp,
            16 * l as usize,
            &[delta(ITERS, 35), 0, x as u32, (x >> 32) as u32],
        );
    }
    one_warp(name, vec![0, ITERS], 32 * 16, exp)
}

fn one_warp(name: &'static str, params: Vec<u32>, bytes: usize, expected: Vec<u8>) -> MicroCase {
    MicroCase {
        name,
        label: name.to_string(),
        source: src(name),
        launch: Launch {
            grid: [1, 1],
            block: [32, 1, 1],
            params,
        },
        gmem: vec![0; bytes],
        expected,
    }
}

/// The throughput kernels: four accumulators per thread, `ops` applied to
/// them in the kernel's order (TPUT_OPS / 4 x TPUT_ITERS times), `grid` CTAs of `block`.
fn tput(name: &'static str, fp: Fp32, grid: u32, block: u32, ops: [fn(Fp32, u32) -> u32; 4]) -> MicroCase {
    let n = (grid * block) as usize;
    let mut exp = vec![0u8; n * 20];
    for t in 0..n {
        let a0 = ieee::i32_to_f32((t as u32) % block, true, RN);
        let mut a = [
            a0,
            fp.fadd(a0, f32c(1.0)),
            fp.fadd(a0, f32c(2.0)),
            fp.fadd(a0, f32c(3.0)),
        ];
        for _ in 0..TPUT_OPS / 4 * TPUT_ITERS {
            for (k, x) in a.iter_mut().enumerate() {
                *x = ops[k](fp, *x);
            }
        }
        words(
            &mut exp,
            20 * t,
            &[delta(TPUT_ITERS, TPUT_ISSUES), a[0], a[1], a[2], a[3]],
        );
    }
    MicroCase {
        name,
        label: format!("{name} grid={grid} block={block}"),
        source: src(name),
        launch: Launch {
            grid: [grid, 1],
            block: [block, 1, 1],
            params: vec![0, TPUT_ITERS],
        },
        gmem: vec![0; n * 20],
        expected: exp,
    }
}

/// `tput_imul`: four integer products per thread starting at tid.x + 1..4,
/// each multiplied by 0x2545f491 (TPUT_OPS / 4 x TPUT_ITERS times).
fn tput_imul(grid: u32, block: u32) -> MicroCase {
    let n = (grid * block) as usize;
    let mut exp = vec![0u8; n * 20];
    for t in 0..n {
        let tid = t as u32 % block;
        let mut a = [tid + 1, tid + 2, tid + 3, tid + 4];
        for _ in 0..TPUT_OPS / 4 * TPUT_ITERS {
            for x in a.iter_mut() {
                *x = x.wrapping_mul(0x2545_f491);
            }
        }
        words(
            &mut exp,
            20 * t,
            &[delta(TPUT_ITERS, TPUT_ISSUES), a[0], a[1], a[2], a[3]],
        );
    }
    MicroCase {
        name: "tput_imul",
        label: format!("tput_imul grid={grid} block={block}"),
        source: src("tput_imul"),
        launch: Launch {
            grid: [grid, 1],
            block: [block, 1, 1],
            params: vec![0, TPUT_ITERS],
        },
        gmem: vec![0; n * 20],
        expected: exp,
    }
}

fn mad(_: Fp32, x: u32) -> u32 {
    fmad(x, f32c(0.999), f32c(0.5))
}
fn fma(_: Fp32, x: u32) -> u32 {
    ffma(x, f32c(0.999), f32c(0.5))
}
fn mul(fp: Fp32, x: u32) -> u32 {
    fp.fmul(x, f32c(0.999))
}

/// `smem_lat` with a chain stride of `stride` words.
pub fn smem_lat(stride: u32) -> MicroCase {
    let mut exp = vec![0u8; 32 * 8];
    for l in 0..32u32 {
        let end = (l + stride.wrapping_mul(32 * ITERS)) & 1023;
        words(&mut exp, 8 * l as usize, &[delta(ITERS, 35), end * 4]);
    }
    let mut c = one_warp("smem_lat", vec![0, ITERS, stride], 32 * 8, exp);
    c.label = format!("smem_lat stride={stride}");
    c
}

/// `smem_stride` with lanes `stride` words apart.
pub fn smem_stride(stride: u32) -> MicroCase {
    let mut exp = vec![0u8; 32 * 8];
    let word = |l: u32| l.wrapping_mul(stride) & 1023;
    for l in 0..32u32 {
        // Of several lanes storing one word, the highest wins.
        let v = (0..32).filter(|&m| word(m) == word(l)).max().unwrap_or(l);
        words(&mut exp, 8 * l as usize, &[delta(ITERS, 35), v]);
    }
    let mut c = one_warp("smem_stride", vec![0, ITERS, stride], 32 * 8, exp);
    c.label = format!("smem_stride stride={stride}");
    c
}

/// `bar_lat` with `warps` warps.
pub fn bar_lat(warps: u32) -> MicroCase {
    let n = 32 * warps as usize;
    let mut exp = vec![0u8; n * 4];
    for t in 0..n {
        words(&mut exp, 4 * t, &[delta(ITERS, 35)]);
    }
    MicroCase {
        name: "bar_lat",
        label: format!("bar_lat warps={warps}"),
        source: src("bar_lat"),
        launch: Launch {
            grid: [1, 1],
            block: [32 * warps, 1, 1],
            params: vec![0, ITERS],
        },
        gmem: vec![0; n * 4],
        expected: exp,
    }
}

/// `gmem_lat` on a chain of 128 links (4 lines of 128 bytes, 65 words
/// apart modulo 128), 24 iterations: after the first 4 loads every load
/// finds its line in an L1 (Fermi); without one every load goes to memory.
pub fn gmem_lat_l1() -> MicroCase {
    const N: u32 = 128;
    const BASE: u32 = 256;
    const IT: u32 = 24;
    let mut img = vec![0u8; (BASE + 4 * N) as usize];
    for i in 0..N {
        words(&mut img, (BASE + 4 * i) as usize, &[BASE + 4 * ((i + 65) % N)]);
    }
    let mut exp = img.clone();
    let end = BASE + 4 * ((65 * 32 * IT) % N);
    words(&mut exp, 0, &[delta(IT, 35), end]);
    MicroCase {
        name: "gmem_lat",
        label: "gmem_lat l1 (4 lines, 24 iters)".into(),
        source: src("gmem_lat"),
        launch: Launch {
            grid: [1, 1],
            block: [1, 1, 1],
            params: vec![0, BASE, IT],
        },
        gmem: img,
        expected: exp,
    }
}

/// `gmem_lat`: a chain of 16384 links 65 words apart at byte 256. The
/// `32 x ITERS` loads touch as many different 128-byte lines (65 words
/// apart, no wrap before link 252), so an L1 (Fermi) never holds the next
/// one: every load goes to memory. With 4096 links (16 KB, the Fermi L1's
/// size) the chain came back to its first lines after 64 loads, and the
/// later ones hit the L1.
pub fn gmem_lat() -> MicroCase {
    const N: u32 = 16384;
    const BASE: u32 = 256;
    let mut img = vec![0u8; (BASE + 4 * N) as usize];
    for i in 0..N {
        words(&mut img, (BASE + 4 * i) as usize, &[BASE + 4 * ((i + 65) % N)]);
    }
    let mut exp = img.clone();
    let end = BASE + 4 * ((65 * 32 * ITERS) % N);
    words(&mut exp, 0, &[delta(ITERS, 35), end]);
    MicroCase {
        name: "gmem_lat",
        label: "gmem_lat".into(),
        source: src("gmem_lat"),
        launch: Launch {
            grid: [1, 1],
            block: [1, 1, 1],
            params: vec![0, BASE, ITERS],
        },
        gmem: img,
        expected: exp,
    }
}

/// Every micro-benchmark case the preset can run.
pub fn micro_cases(cfg: &SmConfig) -> Vec<MicroCase> {
    let fp = Fp32::of(cfg);
    let fmad_preset = cfg.mul_add == MulAdd::Fmad;
    let i2f = |l: u32| ieee::i32_to_f32(l, true, RN);
    let mut v = vec![];
    let mut lp = vec![0u8; 32 * 8];
    for l in 0..32 {
        words(&mut lp, 8 * l, &[delta(ITERS, 3)]);
    }
    v.push(one_warp("lat_loop", vec![0, ITERS], 32 * 8, lp));
    v.push(chain32("lat_fadd", i2f, move |x| fp.fadd(x, f32c(1.5))));
    if fmad_preset {
        v.push(chain32("lat_fmad", i2f, |x| fmad(x, f32c(0.75), f32c(0.75))));
        v.push(tput("tput_fmad", fp, 2, 128, [mad; 4]));
        v.push(tput_imul(2, 128));
    } else {
        v.push(chain32("lat_ffma", i2f, |x| ffma(x, f32c(0.75), f32c(0.75))));
        // A full SM (fermi: 3 x 512 threads, 24 warps per scheduler): with
        // 4 warps per scheduler the dependent latency is not covered.
        v.push(tput("tput_ffma", fp, (cfg.max_threads / 512).max(1), 512, [fma; 4]));
        v.push(tput_imul((cfg.max_threads / 512).max(1), 512));
    }
    if cfg.sfu_fmul {
        v.push(tput("mix_mad_mul", fp, 2, 128, [mad, mad, mul, mul]));
    }
    v.push(chain32("lat_iadd", |l| l, |x| x.wrapping_add(0x9e37_79b9)));
    v.push(chain32("lat_imul", |l| l + 1, |x| x.wrapping_mul(0x2545_f491)));
    v.push(chain32("lat_rsq", move |l| fp.fadd(i2f(l), f32c(2.0)), sfu::rsqrt));
    v.push(chain32("lat_lg2", move |l| fp.fadd(i2f(l), f32c(1e30)), sfu::lg2));
    if cfg.fp64_rate_divisor > 0 {
        let (c15, c075) = (1.5f64.to_bits(), 0.75f64.to_bits());
        v.push(chain64("lat_dadd", move |x| ieee::f64_add(x, c15, RN, TIN).0));
        v.push(chain64("lat_dfma", move |x| ieee::f64_fma(x, c075, c075, RN, TIN).0));
    }
    v.extend([1, 2, 4, 8, 16].map(smem_stride));
    v.push(smem_stride(1024));
    v.push(smem_lat(1));
    v.push(smem_lat(37));
    v.extend([1, 4, 16].map(bar_lat));
    v.push(gmem_lat());
    v.push(gmem_lat_l1());
    v
}
