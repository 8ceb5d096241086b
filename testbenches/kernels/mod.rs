//! The benchmark kernels (assembly in `testbenches/kernels/*.s`) with
//! bit-exact host references.
//!
//! Each kernel has a [`Kernel`] entry in [`all_kernels`] (name, file, the
//! source through `include_str!`, a summary and the shapes the tests run)
//! and a case builder (`vadd`, `saxpy`, `reduce`, `matmul`, `histogram`,
//! `transpose`, `divergence`, `conv`, `sfu`) that makes a [`Case`]: the
//! launch shape, the parameter words, a global-memory image filled from a
//! seeded random generator, and the image the kernel must leave behind,
//! computed here in plain Rust.
//!
//! The FP references perform the kernel's operations in the kernel's order
//! through the golden arithmetic (`arith::tesla`, `arith::ieee`,
//! `arith::sfu`), never through host f32 operators, so a match is bit-exact.
//! FADD/FMUL depend on the preset ([`Fp32::of`]); FMAD and FFMA do not.
//!
//! ```ignore
//! let cfg = SmConfig::load("gt200")?;
//! let case = kernels::vadd(Fp32::of(&cfg), 1000, 256, 1);
//! let prog = asm::assemble(case.source, case.file)?;
//! let (out, _) = model::run_kernel(&cfg, &prog, &case.launch(), case.gmem.clone())?;
//! case.check(&out)?;
//! ```

pub mod micro;

use std::fmt;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::config::{MulAdd, SmConfig};
use crate::golden::arith::{ieee, sfu, tesla, Round, Tininess};
use crate::golden::model::Launch;

/// FP32 add/multiply flavour of a preset (the contract: Tesla FADD/FMUL on
/// `mul_add = "fmad"` presets, IEEE add/mul on `"ffma"` presets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fp32 {
    /// `arith::tesla::fadd/fmul` (denormals flushed, canonical NaN).
    Tesla,
    /// `arith::ieee::f32_add/f32_mul`, round to nearest even.
    Ieee,
}

impl Fp32 {
    /// The flavour a preset's FADD/FMUL use.
    pub fn of(cfg: &SmConfig) -> Fp32 {
        match cfg.mul_add {
            MulAdd::Fmad => Fp32::Tesla,
            MulAdd::Ffma => Fp32::Ieee,
        }
    }
    /// `FADD` (RN).
    pub fn fadd(self, a: u32, b: u32) -> u32 {
        match self {
            Fp32::Tesla => tesla::fadd(a, b, Round::NearEven),
            Fp32::Ieee => ieee::f32_add(a, b, Round::NearEven, Tininess::AfterRounding).0,
        }
    }
    /// `FMUL` (RN).
    pub fn fmul(self, a: u32, b: u32) -> u32 {
        match self {
            Fp32::Tesla => tesla::fmul(a, b, Round::NearEven),
            Fp32::Ieee => ieee::f32_mul(a, b, Round::NearEven, Tininess::AfterRounding).0,
        }
    }
}

/// `FMAD a, b, c` (Tesla multiply-add on every preset).
pub fn fmad(a: u32, b: u32, c: u32) -> u32 {
    tesla::fmad(a, b, c)
}

/// `FFMA a, b, c` (IEEE fused multiply-add, RN, tininess after rounding).
pub fn ffma(a: u32, b: u32, c: u32) -> u32 {
    ieee::f32_fma(a, b, c, Round::NearEven, Tininess::AfterRounding).0
}

/// How an output element is shown in a mismatch report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    F32,
    U32,
}

/// One output array of a case.
#[derive(Debug, Clone)]
pub struct Region {
    /// The array's name (a kernel parameter name).
    pub name: &'static str,
    /// Byte address in global memory.
    pub addr: u32,
    /// Number of 32-bit elements.
    pub len: usize,
    pub elem: Elem,
}

/// The first difference between a kernel's output image and the reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Case label (kernel and shape).
    pub case: String,
    /// Output array name, or `"<outside outputs>"`.
    pub region: String,
    /// Element index in the array (word index from 0 outside outputs).
    pub index: usize,
    /// Byte address.
    pub addr: u32,
    pub expected: u32,
    pub got: u32,
    pub elem: Elem,
    /// How many words differ in total.
    pub total: usize,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |w: u32| match self.elem {
            Elem::F32 => format!("0x{w:08x} ({:e})", f32::from_bits(w)),
            Elem::U32 => format!("0x{w:08x} ({w})"),
        };
        write!(
            f,
            "{}: {}[{}] at 0x{:x}: expected {}, got {} ({} word(s) differ)",
            self.case,
            self.region,
            self.index,
            self.addr,
            show(self.expected),
            show(self.got),
            self.total
        )
    }
}

impl std::error::Error for Mismatch {}

/// One launch of a kernel with its inputs and the reference result.
#[derive(Debug, Clone)]
pub struct Case {
    /// Kernel name (also the `.kernel` name).
    pub kernel: &'static str,
    /// Kernel and shape, e.g. `vadd n=1000 grid=4x1 block=256`.
    pub label: String,
    /// Source file name (for error messages).
    pub file: &'static str,
    /// The assembly text.
    pub source: &'static str,
    pub grid: [u32; 2],
    pub block: [u32; 3],
    /// Parameter words in `.param` order, with their names.
    pub params: Vec<(&'static str, u32)>,
    /// Global memory at launch.
    pub gmem: Vec<u8>,
    /// Global memory the kernel must leave behind.
    pub expected: Vec<u8>,
    /// The arrays the kernel writes.
    pub outputs: Vec<Region>,
}

impl Case {
    /// Parameter values in `.param` order.
    pub fn param_values(&self) -> Vec<u32> {
        self.params.iter().map(|p| p.1).collect()
    }

    /// The golden model's launch description.
    pub fn launch(&self) -> Launch {
        Launch {
            grid: self.grid,
            block: self.block,
            params: self.param_values(),
        }
    }

    /// Arguments of `smrtl run` for this case (after `run`), with the input
    /// image in `input` and the result written to `output`.
    pub fn cli_args(&self, kernel_path: &str, config: &str, input: &str, output: &str) -> Vec<String> {
        let mut v = vec![
            kernel_path.to_string(),
            "--config".into(),
            config.into(),
            "--grid".into(),
            format!("{},{}", self.grid[0], self.grid[1]),
            "--block".into(),
            format!("{},{},{}", self.block[0], self.block[1], self.block[2]),
        ];
        for (name, val) in &self.params {
            v.push("--param".into());
            v.push(format!("{name}=0x{val:x}"));
        }
        v.extend(["--input".into(), input.into(), "--output".into(), output.into()]);
        v
    }

    /// Compare a result image with the reference: the output arrays first
    /// (reporting the first differing element), then every other byte
    /// (inputs must be left unchanged).
    pub fn check(&self, out: &[u8]) -> Result<(), Mismatch> {
        if out.len() != self.expected.len() {
            return Err(Mismatch {
                case: self.label.clone(),
                region: "<image size>".into(),
                index: 0,
                addr: 0,
                expected: self.expected.len() as u32,
                got: out.len() as u32,
                elem: Elem::U32,
                total: 1,
            });
        }
        let word = |img: &[u8], a: usize| u32::from_le_bytes(img[a..a + 4].try_into().unwrap());
        let mut first: Option<Mismatch> = None;
        let mut total = 0;
        let mut in_region = vec![false; self.expected.len() / 4];
        for r in &self.outputs {
            for i in 0..r.len {
                let a = r.addr as usize + 4 * i;
                in_region[a / 4] = true;
                let (e, g) = (word(&self.expected, a), word(out, a));
                if e != g {
                    total += 1;
                    first.get_or_insert(Mismatch {
                        case: self.label.clone(),
                        region: r.name.to_string(),
                        index: i,
                        addr: a as u32,
                        expected: e,
                        got: g,
                        elem: r.elem,
                        total: 0,
                    });
                }
            }
        }
        for (w, inside) in in_region.iter().enumerate() {
            let a = 4 * w;
            if !inside && word(&self.expected, a) != word(out, a) {
                total += 1;
                first.get_or_insert(Mismatch {
                    case: self.label.clone(),
                    region: "<outside outputs>".into(),
                    index: w,
                    addr: a as u32,
                    expected: word(&self.expected, a),
                    got: word(out, a),
                    elem: Elem::U32,
                    total: 0,
                });
            }
        }
        match first {
            None => Ok(()),
            Some(mut m) => {
                m.total = total;
                Err(m)
            }
        }
    }
}

/// A global-memory image under construction: arrays at 256-byte aligned
/// addresses, the first 256 bytes left unused (so address 0 is never data).
struct Image {
    bytes: Vec<u8>,
}

impl Image {
    fn new() -> Image {
        Image { bytes: vec![0; 256] }
    }
    /// Reserve `words` zeroed words; returns the byte address.
    fn alloc(&mut self, words: usize) -> u32 {
        let addr = self.bytes.len().next_multiple_of(256);
        self.bytes.resize(addr + 4 * words, 0);
        addr as u32
    }
    /// Reserve and fill an array.
    fn array(&mut self, data: &[u32]) -> u32 {
        let addr = self.alloc(data.len());
        write_words(&mut self.bytes, addr, data);
        addr
    }
}

fn write_words(img: &mut [u8], addr: u32, data: &[u32]) {
    for (i, w) in data.iter().enumerate() {
        let a = addr as usize + 4 * i;
        img[a..a + 4].copy_from_slice(&w.to_le_bytes());
    }
}

/// Shared tail of every case builder: the expected image is the input
/// image with the output arrays replaced by the reference results.
fn finish(
    kernel: &Kernel,
    label: String,
    grid: [u32; 2],
    block: [u32; 3],
    params: Vec<(&'static str, u32)>,
    img: Image,
    outputs: Vec<(Region, Vec<u32>)>,
) -> Case {
    let mut expected = img.bytes.clone();
    let mut regions = Vec::new();
    for (r, data) in outputs {
        assert_eq!(r.len, data.len(), "reference size of {}", r.name);
        write_words(&mut expected, r.addr, &data);
        regions.push(r);
    }
    Case {
        kernel: kernel.name,
        label,
        file: kernel.file,
        source: kernel.source,
        grid,
        block,
        params,
        gmem: img.bytes,
        expected,
        outputs: regions,
    }
}

fn rng(seed: u64) -> SmallRng {
    SmallRng::seed_from_u64(seed)
}

/// A float in `[lo, hi)` as FP32 bits (inputs only; the generator's
/// rounding does not matter, the value is what the kernel gets).
fn uniform(r: &mut SmallRng, lo: f32, hi: f32) -> u32 {
    r.gen_range(lo..hi).to_bits()
}

/// Mostly ordinary values in [-1000, 1000), with some subnormals and signed
/// zeros (where Tesla's flush-to-zero and IEEE differ) and some arbitrary
/// bit patterns (infinities, NaNs, extreme exponents).
fn mixed_f32(r: &mut SmallRng) -> u32 {
    match r.gen_range(0..32) {
        0 | 1 => r.gen::<u32>() & 0x807f_ffff,    // subnormal or zero
        2 => [0, 0x8000_0000][r.gen_range(0..2)], // signed zero
        3..=5 => r.gen::<u32>(),                  // anything
        _ => uniform(r, -1000.0, 1000.0),
    }
}

fn ceil_div(a: u32, b: u32) -> u32 {
    a.div_ceil(b)
}

/// A benchmark kernel: its source and the shapes the tests run.
pub struct Kernel {
    /// The `.kernel` name.
    pub name: &'static str,
    /// File name in `testbenches/kernels/`.
    pub file: &'static str,
    /// The assembly text.
    pub source: &'static str,
    /// One line: what it computes.
    pub summary: &'static str,
    /// The test cases (at least two launch shapes) for a preset's FP32
    /// flavour.
    pub cases: fn(Fp32) -> Vec<Case>,
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("file", &self.file)
            .finish()
    }
}

macro_rules! src {
    ($f:literal) => {
        ($f, include_str!($f))
    };
}

const fn kernel(
    name: &'static str,
    (file, source): (&'static str, &'static str),
    summary: &'static str,
    cases: fn(Fp32) -> Vec<Case>,
) -> Kernel {
    Kernel {
        name,
        file,
        source,
        summary,
        cases,
    }
}

static KERNELS: [Kernel; 27] = [
    kernel("vadd", src!("vadd.s"), "c[i] = a[i] + b[i] (FADD)", |fp| {
        vec![vadd(fp, 1000, 256, 1), vadd(fp, 4096, 256, 2), vadd(fp, 77, 32, 3)]
    }),
    kernel("saxpy", src!("saxpy.s"), "y[i] = alpha * x[i] + y[i] (FMAD)", |_| {
        vec![saxpy(false, 777, 128, 11), saxpy(false, 2048, 64, 12)]
    }),
    kernel(
        "saxpy_ffma",
        src!("saxpy_ffma.s"),
        "y[i] = alpha * x[i] + y[i] (FFMA)",
        |_| vec![saxpy(true, 777, 128, 13), saxpy(true, 2048, 64, 14)],
    ),
    kernel(
        "fir8",
        src!("fir8.s"),
        "8-tap FIR filter, y[i] = sum h[k] * x[i+k] (FMUL, then FFMA)",
        |_| vec![fir(8, 300, 64, 15), fir(8, 45, 32, 16)],
    ),
    kernel(
        "fir16",
        src!("fir16.s"),
        "16-tap FIR filter, y[i] = sum h[k] * x[i+k] (FMUL, then FFMA)",
        |_| vec![fir(16, 300, 64, 17), fir(16, 45, 32, 18)],
    ),
    kernel(
        "reduce",
        src!("reduce.s"),
        "per-CTA FP32 tree sum in shared memory with BAR",
        |fp| {
            vec![
                reduce(fp, 1000, 256, 21),
                reduce(fp, 5000, 1024, 22),
                reduce(fp, 100, 32, 23),
            ]
        },
    ),
    kernel(
        "matmul_fmad",
        src!("matmul_fmad.s"),
        "C = A * B, 16x16 shared-memory tiles, FMAD",
        |_| {
            vec![
                matmul(false, 32, 32, 32, 31),
                matmul(false, 64, 48, 40, 32),
                matmul(false, 20, 13, 7, 33),
            ]
        },
    ),
    kernel(
        "matmul_ffma",
        src!("matmul_ffma.s"),
        "C = A * B, 16x16 shared-memory tiles, FFMA",
        |_| {
            vec![
                matmul(true, 32, 32, 32, 41),
                matmul(true, 64, 48, 40, 42),
                matmul(true, 20, 13, 7, 43),
            ]
        },
    ),
    kernel(
        "copy",
        src!("copy.s"),
        "streaming copy, grid-stride loop (global-memory bandwidth)",
        |_| vec![copy(4096, 4, 128, 111), copy(1000, 3, 96, 112)],
    ),
    kernel(
        "histogram",
        src!("histogram.s"),
        "64-bin histogram: ATOMS.ADD in shared memory, ATOMG.ADD to global",
        |_| {
            vec![
                histogram(1000, 2, 96, 3, 51),
                histogram(10000, 4, 256, 0, 52),
                histogram(50, 3, 40, 7, 53),
            ]
        },
    ),
    kernel(
        "transpose_naive",
        src!("transpose_naive.s"),
        "transpose through a 16x16 shared tile (bank conflicts)",
        |_| vec![transpose(false, 64, 48, 61), transpose(false, 37, 50, 62)],
    ),
    kernel(
        "transpose_padded",
        src!("transpose_padded.s"),
        "transpose through a 16x17 padded shared tile",
        |_| vec![transpose(true, 64, 48, 71), transpose(true, 37, 50, 72)],
    ),
    kernel(
        "divergence",
        src!("divergence.s"),
        "nested if/else and a Collatz loop per element (SSY/SYNC)",
        |_| {
            vec![
                divergence(1000, 128, 0x8000_0000, 81),
                divergence(300, 96, 0x1234_5678, 82),
            ]
        },
    ),
    kernel(
        "conv3x3",
        src!("conv3x3.s"),
        "3x3 convolution, clamp-to-edge, FMAD",
        |_| {
            vec![
                conv(ConvForm::Naive, 3, false, 512, 512, 91),
                conv(ConvForm::Naive, 3, false, 37, 21, 92),
            ]
        },
    ),
    kernel(
        "conv3x3_ffma",
        src!("conv3x3_ffma.s"),
        "3x3 convolution, clamp-to-edge, FFMA",
        |_| {
            vec![
                conv(ConvForm::Naive, 3, true, 512, 512, 93),
                conv(ConvForm::Naive, 3, true, 37, 21, 94),
            ]
        },
    ),
    kernel(
        "conv5x5",
        src!("conv5x5.s"),
        "5x5 convolution, clamp-to-edge, FFMA",
        |_| {
            vec![
                conv(ConvForm::Naive, 5, true, 512, 512, 101),
                conv(ConvForm::Naive, 5, true, 37, 21, 102),
            ]
        },
    ),
    kernel(
        "conv5x5_fmad",
        src!("conv5x5_fmad.s"),
        "5x5 convolution, clamp-to-edge, FMAD",
        |_| {
            vec![
                conv(ConvForm::Naive, 5, false, 512, 512, 103),
                conv(ConvForm::Naive, 5, false, 37, 21, 104),
            ]
        },
    ),
    kernel(
        "conv3x3_strip",
        src!("conv3x3_strip.s"),
        "3x3 convolution, register strips of 16 outputs, FMAD",
        |_| {
            vec![
                conv(ConvForm::Strip, 3, false, 512, 512, 121),
                conv(ConvForm::Strip, 3, false, 37, 21, 122),
            ]
        },
    ),
    kernel(
        "conv3x3_strip_ffma",
        src!("conv3x3_strip_ffma.s"),
        "3x3 convolution, register strips of 16 outputs, FFMA",
        |_| {
            vec![
                conv(ConvForm::Strip, 3, true, 512, 512, 123),
                conv(ConvForm::Strip, 3, true, 37, 21, 124),
            ]
        },
    ),
    kernel(
        "conv5x5_strip_fmad",
        src!("conv5x5_strip_fmad.s"),
        "5x5 convolution, register strips of 16 outputs, FMAD",
        |_| {
            vec![
                conv(ConvForm::Strip, 5, false, 512, 512, 125),
                conv(ConvForm::Strip, 5, false, 37, 21, 126),
            ]
        },
    ),
    kernel(
        "conv5x5_strip",
        src!("conv5x5_strip.s"),
        "5x5 convolution, register strips of 16 outputs, FFMA",
        |_| {
            vec![
                conv(ConvForm::Strip, 5, true, 512, 512, 127),
                conv(ConvForm::Strip, 5, true, 37, 21, 128),
            ]
        },
    ),
    kernel(
        "conv3x3_tile",
        src!("conv3x3_tile.s"),
        "3x3 convolution, shared-memory tile with halo, FMAD",
        |_| {
            vec![
                conv(ConvForm::Tile, 3, false, 512, 512, 129),
                conv(ConvForm::Tile, 3, false, 37, 21, 130),
            ]
        },
    ),
    kernel(
        "conv3x3_tile_ffma",
        src!("conv3x3_tile_ffma.s"),
        "3x3 convolution, shared-memory tile with halo, FFMA",
        |_| {
            vec![
                conv(ConvForm::Tile, 3, true, 512, 512, 131),
                conv(ConvForm::Tile, 3, true, 37, 21, 132),
            ]
        },
    ),
    kernel(
        "conv5x5_tile_fmad",
        src!("conv5x5_tile_fmad.s"),
        "5x5 convolution, shared-memory tile with halo, FMAD",
        |_| {
            vec![
                conv(ConvForm::Tile, 5, false, 512, 512, 133),
                conv(ConvForm::Tile, 5, false, 37, 21, 134),
            ]
        },
    ),
    kernel(
        "conv5x5_tile",
        src!("conv5x5_tile.s"),
        "5x5 convolution, shared-memory tile with halo, FFMA",
        |_| {
            vec![
                conv(ConvForm::Tile, 5, true, 512, 512, 135),
                conv(ConvForm::Tile, 5, true, 37, 21, 136),
            ]
        },
    ),
    kernel(
        "sfu",
        src!("sfu.s"),
        "RCP, RSQ, LG2, EX2 (PREEX2), SIN and COS (PRESIN) per element",
        |_| vec![sfu(false, 1000, 256, 111), sfu(false, 64, 32, 112)],
    ),
    kernel(
        "sfu_ffma",
        src!("sfu_ffma.s"),
        "sfu.s with FFMA for the argument scaling",
        |_| vec![sfu(true, 1000, 256, 113), sfu(true, 64, 32, 114)],
    ),
];

/// Every benchmark kernel.
pub fn all_kernels() -> &'static [Kernel] {
    &KERNELS
}

/// Look a kernel up by name.
pub fn by_name(name: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.name == name)
}

fn k(name: &str) -> &'static Kernel {
    by_name(name).expect("kernel in the table")
}

/// `vadd.s`: `n` elements, 1-D blocks of `block` threads.
pub fn vadd(fp: Fp32, n: u32, block: u32, seed: u64) -> Case {
    let mut r = rng(seed);
    let a: Vec<u32> = (0..n).map(|_| mixed_f32(&mut r)).collect();
    let b: Vec<u32> = (0..n).map(|_| mixed_f32(&mut r)).collect();
    let c_ref: Vec<u32> = a.iter().zip(&b).map(|(&x, &y)| fp.fadd(x, y)).collect();
    let mut img = Image::new();
    let (pa, pb) = (img.array(&a), img.array(&b));
    let pc = img.alloc(n as usize);
    let grid = [ceil_div(n, block), 1];
    finish(
        k("vadd"),
        format!("vadd {fp:?} n={n} grid={}x1 block={block}", grid[0]),
        grid,
        [block, 1, 1],
        vec![("a", pa), ("b", pb), ("c", pc), ("n", n)],
        img,
        vec![(
            Region {
                name: "c",
                addr: pc,
                len: n as usize,
                elem: Elem::F32,
            },
            c_ref,
        )],
    )
}

/// `copy.s`: `dst[i] = src[i]` for `n` words with `grid` CTAs of `block`
/// threads (grid-stride loop).
pub fn copy(n: u32, grid: u32, block: u32, seed: u64) -> Case {
    let mut r = rng(seed);
    let src: Vec<u32> = (0..n).map(|_| r.gen()).collect();
    let mut img = Image::new();
    let ps = img.array(&src);
    let pd = img.alloc(n as usize);
    finish(
        k("copy"),
        format!("copy n={n} grid={grid}x1 block={block}"),
        [grid, 1],
        [block, 1, 1],
        vec![("src", ps), ("dst", pd), ("n", n)],
        img,
        vec![(
            Region {
                name: "dst",
                addr: pd,
                len: n as usize,
                elem: Elem::U32,
            },
            src,
        )],
    )
}

/// `saxpy.s` (`fused == false`, FMAD) or `saxpy_ffma.s`: `y = alpha * x +
/// y` on `n` elements.
pub fn saxpy(fused: bool, n: u32, block: u32, seed: u64) -> Case {
    let mut r = rng(seed);
    let alpha = uniform(&mut r, -4.0, 4.0);
    let x: Vec<u32> = (0..n).map(|_| mixed_f32(&mut r)).collect();
    let y: Vec<u32> = (0..n).map(|_| mixed_f32(&mut r)).collect();
    let op = if fused { ffma } else { fmad };
    let y_ref: Vec<u32> = x.iter().zip(&y).map(|(&xi, &yi)| op(alpha, xi, yi)).collect();
    let mut img = Image::new();
    let (px, py) = (img.array(&x), img.array(&y));
    let name = if fused { "saxpy_ffma" } else { "saxpy" };
    let grid = [ceil_div(n, block), 1];
    finish(
        k(name),
        format!("{name} n={n} grid={}x1 block={block}", grid[0]),
        grid,
        [block, 1, 1],
        vec![("alpha", alpha), ("x", px), ("y", py), ("n", n)],
        img,
        vec![(
            Region {
                name: "y",
                addr: py,
                len: n as usize,
                elem: Elem::F32,
            },
            y_ref,
        )],
    )
}

/// `fir8.s` / `fir16.s`: `y[i] = h[0] * x[i]` (FMUL), then `y[i] =
/// FFMA(h[k], x[i+k], y[i])` for the other taps, on `n` outputs.
pub fn fir(taps: u32, n: u32, block: u32, seed: u64) -> Case {
    let mut r = rng(seed);
    let x: Vec<u32> = (0..n + taps - 1).map(|_| mixed_f32(&mut r)).collect();
    let h: Vec<u32> = (0..taps).map(|_| uniform(&mut r, -1.0, 1.0)).collect();
    let y_ref: Vec<u32> = (0..n as usize)
        .map(|i| {
            let mut acc = Fp32::Ieee.fmul(h[0], x[i]);
            for k in 1..taps as usize {
                acc = ffma(h[k], x[i + k], acc);
            }
            acc
        })
        .collect();
    let mut img = Image::new();
    let (px, ph) = (img.array(&x), img.array(&h));
    let py = img.alloc(n as usize);
    let name = if taps == 8 { "fir8" } else { "fir16" };
    let grid = [ceil_div(n, block), 1];
    finish(
        k(name),
        format!("{name} n={n} grid={}x1 block={block}", grid[0]),
        grid,
        [block, 1, 1],
        vec![("x", px), ("h", ph), ("y", py), ("n", n)],
        img,
        vec![(
            Region {
                name: "y",
                addr: py,
                len: n as usize,
                elem: Elem::F32,
            },
            y_ref,
        )],
    )
}

/// `reduce.s`: one sum per CTA of `block` (a power of two) elements.
pub fn reduce(fp: Fp32, n: u32, block: u32, seed: u64) -> Case {
    assert!(block.is_power_of_two() && (2..=1024).contains(&block));
    let mut r = rng(seed);
    let input: Vec<u32> = (0..n)
        .map(|_| match r.gen_range(0..16) {
            0 => r.gen::<u32>() & 0x807f_ffff, // subnormals
            _ => uniform(&mut r, -100.0, 100.0),
        })
        .collect();
    let grid = ceil_div(n, block);
    let sums: Vec<u32> = (0..grid)
        .map(|b| {
            let mut s: Vec<u32> = (0..block)
                .map(|t| input.get((b * block + t) as usize).copied().unwrap_or(0))
                .collect();
            let mut h = block / 2;
            while h > 0 {
                for t in 0..h as usize {
                    s[t] = fp.fadd(s[t], s[t + h as usize]);
                }
                h /= 2;
            }
            s[0]
        })
        .collect();
    let mut img = Image::new();
    let pin = img.array(&input);
    let pout = img.alloc(grid as usize);
    finish(
        k("reduce"),
        format!("reduce {fp:?} n={n} grid={grid}x1 block={block}"),
        [grid, 1],
        [block, 1, 1],
        vec![("in", pin), ("out", pout), ("n", n)],
        img,
        vec![(
            Region {
                name: "out",
                addr: pout,
                len: grid as usize,
                elem: Elem::F32,
            },
            sums,
        )],
    )
}

/// `matmul_fmad.s` (`fused == false`) or `matmul_ffma.s`: `C[m][n] =
/// A[m][kd] * B[kd][n]`.
pub fn matmul(fused: bool, m: u32, n: u32, kd: u32, seed: u64) -> Case {
    assert!(kd >= 1);
    let mut r = rng(seed);
    let gen = |r: &mut SmallRng| match r.gen_range(0..64) {
        0 => r.gen::<u32>() & 0x807f_ffff,
        _ => uniform(r, -1.0, 1.0),
    };
    let a: Vec<u32> = (0..m * kd).map(|_| gen(&mut r)).collect();
    let b: Vec<u32> = (0..kd * n).map(|_| gen(&mut r)).collect();
    let op = if fused { ffma } else { fmad };
    let mut c = vec![0u32; (m * n) as usize];
    for row in 0..m {
        for col in 0..n {
            let mut acc = 0u32;
            let mut t = 0;
            while t < kd {
                for kk in t..t + 16 {
                    let (x, y) = if kk < kd {
                        (a[(row * kd + kk) as usize], b[(kk * n + col) as usize])
                    } else {
                        (0, 0)
                    };
                    acc = op(x, y, acc);
                }
                t += 16;
            }
            c[(row * n + col) as usize] = acc;
        }
    }
    let mut img = Image::new();
    let (pa, pb) = (img.array(&a), img.array(&b));
    let pc = img.alloc(c.len());
    let name = if fused { "matmul_ffma" } else { "matmul_fmad" };
    let grid = [ceil_div(n, 16), ceil_div(m, 16)];
    finish(
        k(name),
        format!("{name} M={m} N={n} K={kd} grid={}x{} block=16x16", grid[0], grid[1]),
        grid,
        [16, 16, 1],
        vec![("A", pa), ("B", pb), ("C", pc), ("M", m), ("N", n), ("K", kd)],
        img,
        vec![(
            Region {
                name: "C",
                addr: pc,
                len: c.len(),
                elem: Elem::F32,
            },
            c,
        )],
    )
}

/// `histogram.s`: `n` keys, `grid` CTAs of `block` threads, bins of
/// `(key >> shift) & 63` (`shift` <= 26 here); the global histogram starts
/// with small counts.
pub fn histogram(n: u32, grid: u32, block: u32, shift: u32, seed: u64) -> Case {
    assert!(shift <= 26, "the key generator needs shift <= 26");
    let mut r = rng(seed);
    // Skewed keys: a quarter land in bin 5 (contention on one address).
    let keys: Vec<u32> = (0..n)
        .map(|_| {
            if r.gen_range(0..4) == 0 {
                (5 << shift) | (r.gen::<u32>() & ((1 << shift) - 1))
            } else {
                r.gen()
            }
        })
        .collect();
    let init: Vec<u32> = (0..64).map(|_| r.gen_range(0..1000)).collect();
    let mut hist = init.clone();
    for &key in &keys {
        let bin = (key >> shift) & 63;
        hist[bin as usize] = hist[bin as usize].wrapping_add(1);
    }
    let mut img = Image::new();
    let pk = img.array(&keys);
    let ph = img.array(&init);
    finish(
        k("histogram"),
        format!("histogram n={n} shift={shift} grid={grid}x1 block={block}"),
        [grid, 1],
        [block, 1, 1],
        vec![("keys", pk), ("hist", ph), ("n", n), ("shift", shift)],
        img,
        vec![(
            Region {
                name: "hist",
                addr: ph,
                len: 64,
                elem: Elem::U32,
            },
            hist,
        )],
    )
}

/// `transpose_naive.s` / `transpose_padded.s`: `in[h][w]` to `out[w][h]`.
pub fn transpose(padded: bool, w: u32, h: u32, seed: u64) -> Case {
    let mut r = rng(seed);
    let input: Vec<u32> = (0..w * h).map(|_| r.gen()).collect();
    let mut out = vec![0u32; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            out[(x * h + y) as usize] = input[(y * w + x) as usize];
        }
    }
    let mut img = Image::new();
    let pin = img.array(&input);
    let pout = img.alloc(out.len());
    let name = if padded { "transpose_padded" } else { "transpose_naive" };
    let grid = [ceil_div(w, 16), ceil_div(h, 16)];
    finish(
        k(name),
        format!("{name} W={w} H={h} grid={}x{} block=16x16", grid[0], grid[1]),
        grid,
        [16, 16, 1],
        vec![("in", pin), ("out", pout), ("W", w), ("H", h)],
        img,
        vec![(
            Region {
                name: "out",
                addr: pout,
                len: out.len(),
                elem: Elem::U32,
            },
            out,
        )],
    )
}

/// The `f` of `divergence.s`.
pub fn divergence_f(x: u32, thresh: u32) -> u32 {
    if x & 1 != 0 {
        if x & 2 != 0 {
            x.wrapping_mul(3).wrapping_add(1)
        } else {
            x ^ 0x5555
        }
    } else if x > thresh {
        x >> 1
    } else {
        x.wrapping_add(7)
    }
}

/// The Collatz step count of `divergence.s`: from `(x & 1023) + 1` to 1.
pub fn collatz_steps(x: u32) -> u32 {
    let mut v = (x & 1023) + 1;
    let mut steps = 0u32;
    while v != 1 {
        v = if v & 1 != 0 {
            v.wrapping_mul(3).wrapping_add(1)
        } else {
            v >> 1
        };
        steps += 1;
    }
    steps
}

/// `divergence.s`: `n` elements, 1-D blocks of `block` threads.
pub fn divergence(n: u32, block: u32, thresh: u32, seed: u64) -> Case {
    let mut r = rng(seed);
    let input: Vec<u32> = (0..n).map(|_| r.gen()).collect();
    let out: Vec<u32> = input
        .iter()
        .flat_map(|&x| [divergence_f(x, thresh), collatz_steps(x)])
        .collect();
    let mut img = Image::new();
    let pin = img.array(&input);
    let pout = img.alloc(out.len());
    let grid = [ceil_div(n, block), 1];
    finish(
        k("divergence"),
        format!("divergence n={n} thresh=0x{thresh:x} grid={}x1 block={block}", grid[0]),
        grid,
        [block, 1, 1],
        vec![("in", pin), ("out", pout), ("n", n), ("thresh", thresh)],
        img,
        vec![(
            Region {
                name: "out",
                addr: pout,
                len: out.len(),
                elem: Elem::U32,
            },
            out,
        )],
    )
}

/// How a convolution kernel is organised; each form has the same
/// parameters, data and results and its own launch shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvForm {
    /// `conv3x3.s`, `conv5x5.s` and their flavours: one output per thread,
    /// every pixel and weight loaded from global memory; block 16x16.
    Naive,
    /// `conv*_strip*.s`: a column of [`CONV_STRIP`] outputs per thread, the
    /// input rows in registers; block 32x4.
    Strip,
    /// `conv*_tile*.s`: a 32x32 output tile per CTA through a shared-memory
    /// tile with halo, a column of 4 outputs per thread; block 32x8.
    Tile,
}

/// Outputs per thread (a column) of the strip kernels.
pub const CONV_STRIP: u32 = 16;

/// A convolution kernel of form `form`: `conv3x3*.s` (`ksize` 3, FMAD
/// unless `_ffma`) or `conv5x5*.s` (`ksize` 5, FFMA unless `_fmad`;
/// `fused` picks FFMA or FMAD) on a `w` x `h` image with clamp-to-edge
/// borders. Every form has the same data and reference for the same
/// arguments.
pub fn conv(form: ConvForm, ksize: u32, fused: bool, w: u32, h: u32, seed: u64) -> Case {
    let (image, wts, out) = conv_ref(ksize, fused, w, h, seed);
    let mut img = Image::new();
    let pin = img.array(&image);
    let pw = img.array(&wts);
    let pout = img.alloc(out.len());
    let (form_name, block, cta) = match form {
        ConvForm::Naive => ("", [16, 16, 1], [16, 16]),
        ConvForm::Strip => ("_strip", [32, 4, 1], [32, 4 * CONV_STRIP]),
        ConvForm::Tile => ("_tile", [32, 8, 1], [32, 32]),
    };
    let flavour = match (ksize, fused) {
        (3, false) | (5, true) => "",
        (3, true) => "_ffma",
        _ => "_fmad",
    };
    let name = format!("conv{ksize}x{ksize}{form_name}{flavour}");
    let grid = [ceil_div(w, cta[0]), ceil_div(h, cta[1])];
    conv_case(k(&name), grid, block, (w, h), pin, pw, pout, out, img)
}

/// The GPU-CC convolution kernels (`testbenches/kernels/gpucc/`): run in
/// GPU-CC mode (docs/gpucc.md), so on the gpucc preset's golden model
/// only; kept out of [`all_kernels`], whose kernels also run on the RTL SM.
pub fn gpucc_kernels() -> &'static [Kernel] {
    &GPUCC_KERNELS
}

static GPUCC_KERNELS: [Kernel; 2] = [
    kernel(
        "conv3x3_gpucc",
        src!("gpucc/conv3x3.s"),
        "3x3 convolution, clamp-to-edge, FFMA, in GPU-CC mode (one CTA of one warp)",
        |_| {
            vec![
                conv_gpucc(3, 5, 3, 121),
                conv_gpucc(3, 37, 21, 122),
                conv_gpucc(3, 100, 37, 123),
                conv_gpucc(3, 1000, 7, 124),
            ]
        },
    ),
    kernel(
        "conv5x5_gpucc",
        src!("gpucc/conv5x5.s"),
        "5x5 convolution, clamp-to-edge, FFMA, in GPU-CC mode: pixels passed along each filter row through delays",
        |_| {
            vec![
                conv_gpucc(5, 5, 3, 131),
                conv_gpucc(5, 37, 21, 132),
                conv_gpucc(5, 100, 37, 133),
                conv_gpucc(5, 1000, 7, 134),
            ]
        },
    ),
];

/// A GPU-CC convolution case (`gpucc/conv<k>x<k>.s`, FFMA): the same data
/// and host reference as [`conv`] with `fused`, launched as one CTA of one
/// warp.
pub fn conv_gpucc(ksize: u32, w: u32, h: u32, seed: u64) -> Case {
    let (image, wts, out) = conv_ref(ksize, true, w, h, seed);
    let mut img = Image::new();
    let pin = img.array(&image);
    let pw = img.array(&wts);
    let pout = img.alloc(out.len());
    let name = format!("conv{ksize}x{ksize}_gpucc");
    let kern = GPUCC_KERNELS.iter().find(|k| k.name == name).expect("GPU-CC kernel");
    conv_case(kern, [1, 1], [32, 1, 1], (w, h), pin, pw, pout, out, img)
}

#[allow(clippy::too_many_arguments)]
fn conv_case(
    kern: &Kernel,
    grid: [u32; 2],
    block: [u32; 3],
    (w, h): (u32, u32),
    pin: u32,
    pw: u32,
    pout: u32,
    out: Vec<u32>,
    img: Image,
) -> Case {
    finish(
        kern,
        format!(
            "{} {w}x{h} grid={}x{} block={}x{}",
            kern.name, grid[0], grid[1], block[0], block[1]
        ),
        grid,
        block,
        vec![("in", pin), ("w", pw), ("out", pout), ("W", w), ("H", h)],
        img,
        vec![(
            Region {
                name: "out",
                addr: pout,
                len: out.len(),
                elem: Elem::F32,
            },
            out,
        )],
    )
}

/// The input image, the weights and the host reference output of a
/// `ksize` x `ksize` clamp-to-edge convolution: acc = +0.0, then over the
/// taps in row-major order acc = FFMA (or FMAD) (w, pixel, acc).
fn conv_ref(ksize: u32, fused: bool, w: u32, h: u32, seed: u64) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    assert!(ksize == 3 || ksize == 5);
    let mut r = rng(seed);
    let image: Vec<u32> = (0..w * h)
        .map(|_| match r.gen_range(0..256) {
            0 => r.gen::<u32>() & 0x807f_ffff,
            _ => uniform(&mut r, 0.0, 1.0),
        })
        .collect();
    let wts: Vec<u32> = (0..ksize * ksize).map(|_| uniform(&mut r, -1.0, 1.0)).collect();
    let op = if fused { ffma } else { fmad };
    let rad = (ksize / 2) as i64;
    let clamp = |v: i64, hi: u32| v.clamp(0, hi as i64 - 1) as u32;
    let mut out = vec![0u32; (w * h) as usize];
    for y in 0..h {
        for x in 0..w {
            let mut acc = 0u32;
            for dy in 0..ksize {
                let sy = clamp(y as i64 + dy as i64 - rad, h);
                for dx in 0..ksize {
                    let sx = clamp(x as i64 + dx as i64 - rad, w);
                    acc = op(wts[(dy * ksize + dx) as usize], image[(sy * w + sx) as usize], acc);
                }
            }
            out[(y * w + x) as usize] = acc;
        }
    }
    (image, wts, out)
}

/// The six results of `sfu.s` (`fused == false`) or `sfu_ffma.s` for one
/// input.
pub fn sfu_ref(fused: bool, x: u32) -> [u32; 6] {
    let op = if fused { ffma } else { fmad };
    let z = op(x, 0xbe00_0000, 0x4000_0000); // x * -0.125 + 2.0
    let s = sfu::presin(op(x, 0x3f00_0000, 0xc1c8_0000)); // x * 0.5 - 25.0
    [
        sfu::rcp(x),
        sfu::rsqrt(x),
        sfu::lg2(x),
        sfu::ex2(sfu::preex2(z)),
        sfu::sin(s),
        sfu::cos(s),
    ]
}

/// `sfu.s` (`fused == false`) or `sfu_ffma.s`: `n` elements in (0, 100],
/// 1-D blocks of `block` threads.
pub fn sfu(fused: bool, n: u32, block: u32, seed: u64) -> Case {
    let mut r = rng(seed);
    let input: Vec<u32> = (0..n).map(|_| uniform(&mut r, 1e-3, 100.0)).collect();
    let out: Vec<u32> = input.iter().flat_map(|&x| sfu_ref(fused, x)).collect();
    let name = if fused { "sfu_ffma" } else { "sfu" };
    let mut img = Image::new();
    let pin = img.array(&input);
    let pout = img.alloc(out.len());
    let grid = [ceil_div(n, block), 1];
    finish(
        k(name),
        format!("{name} n={n} grid={}x1 block={block}", grid[0]),
        grid,
        [block, 1, 1],
        vec![("in", pin), ("out", pout), ("n", n)],
        img,
        vec![(
            Region {
                name: "out",
                addr: pout,
                len: out.len(),
                elem: Elem::F32,
            },
            out,
        )],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collatz_reference_known_values() {
        // Steps from v = (x & 1023) + 1: v=1 -> 0, v=2 -> 1, v=3 -> 7,
        // v=27 -> 111, v=1024 -> 10.
        assert_eq!(collatz_steps(0), 0);
        assert_eq!(collatz_steps(1), 1);
        assert_eq!(collatz_steps(2), 7);
        assert_eq!(collatz_steps(26), 111);
        assert_eq!(collatz_steps(1023), 10);
        assert_eq!(collatz_steps(1024 + 26), 111);
    }

    #[test]
    fn divergence_reference_branches() {
        assert_eq!(divergence_f(3, 0), 10); // odd, bit 1: 3*3+1
        assert_eq!(divergence_f(5, 0), 5 ^ 0x5555); // odd, no bit 1
        assert_eq!(divergence_f(100, 50), 50); // even, above
        assert_eq!(divergence_f(100, 100), 107); // even, not above
        assert_eq!(divergence_f(0xffff_ffff, 0), 0xffff_fffe); // wraps
    }

    #[test]
    fn check_reports_first_mismatch() {
        let case = vadd(Fp32::Tesla, 10, 32, 7);
        assert!(case.check(&case.expected).is_ok());
        let mut bad = case.expected.clone();
        let r = &case.outputs[0];
        let a = r.addr as usize + 4 * 3;
        bad[a] ^= 1;
        let m = case.check(&bad).unwrap_err();
        assert_eq!((m.region.as_str(), m.index, m.total), ("c", 3, 1));
        // An input clobbered outside the outputs is reported too.
        let mut bad = case.expected.clone();
        bad[256] ^= 0x80;
        let m = case.check(&bad).unwrap_err();
        assert_eq!((m.region.as_str(), m.index), ("<outside outputs>", 64));
        // The unrun image differs from the reference (outputs start zeroed).
        assert!(case.check(&case.gmem).is_err());
    }

    #[test]
    fn every_kernel_has_two_shapes_and_its_source() {
        assert_eq!(all_kernels().len(), 27);
        for k in all_kernels() {
            assert!(k.source.contains(&format!(".kernel {}", k.name)), "{}", k.file);
            let cases = (k.cases)(Fp32::Tesla);
            assert!(cases.len() >= 2, "{}", k.name);
            let shapes: std::collections::HashSet<_> = cases.iter().map(|c| (c.grid, c.block)).collect();
            assert!(shapes.len() >= 2, "{}: two different grid shapes", k.name);
        }
    }

    #[test]
    fn reference_uses_preset_fadd() {
        // A subnormal plus zero: Tesla flushes it, IEEE keeps it.
        assert_eq!(Fp32::Tesla.fadd(1, 0), 0);
        assert_eq!(Fp32::Ieee.fadd(1, 0), 1);
    }
}
