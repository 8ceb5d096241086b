//! Golden-model speed: thread-instructions per second on a tiled FP32
//! matrix multiply (C = A * B, N x N, 16 x 16 tiles staged through shared
//! memory, FMAD, BAR around each tile) on the gt200 preset.
//!
//! `cargo bench --bench golden`; criterion reports the throughput in
//! elements/s where one element is one thread instruction. The kernel is
//! assembled from the text below, and its result is checked once against
//! a host loop using the reference `arith::tesla::fmad` in the kernel's
//! order before timing.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use smrtl::golden::arith::tesla;
use smrtl::golden::asm::assemble;
use smrtl::golden::model::{Golden, Launch, DEFAULT_BUDGET};
use smrtl::sm::SmConfig;
use std::fmt::Write as _;

/// The matmul kernel: grid (N/16, N/16), block (16, 16); N a multiple of
/// 16. Global image: A at 0, B at 4N^2, C at 8N^2.
fn matmul_source() -> String {
    let mut s = String::from(
        "
.kernel matmul16
.regs 16
.shared 2048
.param A
.param B
.param C
.param N
    S2R R0, SR_TID.X
    S2R R1, SR_TID.Y
    S2R R2, SR_CTAID.X
    S2R R3, SR_CTAID.Y
    LDC R4, c[N]
    SHL R5, R3, 4
    IADD R5, R5, R1          ; row
    SHL R6, R2, 4
    IADD R6, R6, R0          ; col
    IMAD R7, R5, R4, R0
    SHL R7, R7, 2
    LDC R8, c[A]
    IADD R7, R7, R8          ; &A[row][tx], +64 bytes per tile
    IMAD R8, R1, R4, R6
    SHL R8, R8, 2
    LDC R9, c[B]
    IADD R8, R8, R9          ; &B[ty][col], +64N bytes per tile
    SHL R9, R4, 6
    SHL R10, R1, 4
    IADD R10, R10, R0
    SHL R10, R10, 2          ; &As[ty][tx]
    SHL R11, R1, 6           ; &As[ty][0]
    SHL R12, R0, 2
    IADD R12, R12, 1024      ; &Bs[0][tx]
    MOV R13, 0               ; acc = +0.0
    SHR R14, R4, 4           ; tiles left
tile:
    LDG R15, [R7]
    STS [R10], R15
    LDG R15, [R8]
    STS [R10+1024], R15
    BAR
",
    );
    for k in 0..16 {
        let _ = writeln!(s, "    LDS R2, [R11+{}]", 4 * k);
        let _ = writeln!(s, "    LDS R3, [R12+{}]", 64 * k);
        let _ = writeln!(s, "    FMAD R13, R2, R3, R13");
    }
    s.push_str(
        "    BAR
    IADD R7, R7, 64
    IADD R8, R8, R9
    ISUB R14, R14, 1
    ISETP.NE P0, R14, 0
    @P0 BRA tile
    IMAD R15, R5, R4, R6
    SHL R15, R15, 2
    LDC R2, c[C]
    IADD R15, R15, R2
    STG [R15], R13
    EXIT
",
    );
    s
}

/// Inputs: small integers-and-halves so the products are exact-ish, but
/// the check is bit-exact against the reference FMAD anyway.
fn image(n: usize) -> Vec<u8> {
    let mut g = vec![0u8; 12 * n * n];
    for i in 0..2 * n * n {
        let v = ((i * 7 + 3) % 17) as f32 * 0.25 - 2.0;
        g[4 * i..4 * i + 4].copy_from_slice(&v.to_bits().to_le_bytes());
    }
    g
}

fn word(g: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(g[4 * i..4 * i + 4].try_into().unwrap())
}

fn check(n: usize, out: &[u8]) {
    let nn = n * n;
    for r in 0..n {
        for c in 0..n {
            let mut acc = 0u32;
            for k in 0..n {
                acc = tesla::fmad(word(out, r * n + k), word(out, nn + k * n + c), acc);
            }
            assert_eq!(word(out, 2 * nn + r * n + c), acc, "C[{r}][{c}]");
        }
    }
}

fn bench(c: &mut Criterion) {
    let cfg = SmConfig::load("gt200").unwrap();
    let prog = assemble(&matmul_source(), "matmul16.s").unwrap();
    let mut group = c.benchmark_group("golden");
    group.sample_size(10);
    for n in [64usize, 128] {
        let nn = (n * n) as u32;
        let launch = Launch {
            grid: [n as u32 / 16, n as u32 / 16],
            block: [16, 16, 1],
            params: vec![0, 4 * nn, 8 * nn, n as u32],
        };
        let img = image(n);
        let mut g = Golden::new(&cfg, &prog, &launch, img.clone()).unwrap();
        let stats = g.run(DEFAULT_BUDGET).unwrap();
        check(n, g.gmem());
        eprintln!(
            "matmul {n}x{n}: {} warp instructions, {} thread instructions",
            stats.warp_instrs, stats.thread_instrs
        );
        group.throughput(Throughput::Elements(stats.thread_instrs));
        group.bench_with_input(BenchmarkId::new("matmul_fmad", n), &n, |b, _| {
            b.iter(|| {
                let mut g = Golden::new(&cfg, &prog, &launch, img.clone()).unwrap();
                g.run(DEFAULT_BUDGET).unwrap();
                g.into_gmem()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
