//! Throughput of the reference arithmetic: IEEE FP32 FMA and add, FP64 FMA
//! (`golden::arith::ieee`) and the Tesla FMAD (`golden::arith::tesla`).
//!
//! Each benchmark runs one operation over 4096 pre-generated operand triples
//! and reports elements (operations) per second. Operands are random
//! normal numbers near 1 (the common case in shaders), mixed with a small
//! share of uniformly random encodings (subnormals, infinities, NaNs).
//!
//! Two groups measure the same loops: `arith` in wall-clock time (criterion's
//! default) and `arith_cpu` in the benchmark thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`), which gives the per-core rate even when the
//! machine is shared and the thread is descheduled part of the time.
//!
//! Run: `cargo bench --bench arith` (about 40 s).
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use smrtl::golden::arith::{ieee, tesla, Round, Tininess};
use std::time::Duration;

const N: usize = 4096;

fn f32_operand(r: &mut SmallRng) -> u32 {
    if r.gen_range(0..16) == 0 {
        r.gen()
    } else {
        // Exponent 2^-16 .. 2^16, random sign and fraction.
        let e: u32 = r.gen_range(111..=143);
        (u32::from(r.gen::<bool>()) << 31) | (e << 23) | (r.gen::<u32>() & 0x7f_ffff)
    }
}

fn f64_operand(r: &mut SmallRng) -> u64 {
    if r.gen_range(0..16) == 0 {
        r.gen()
    } else {
        let e: u64 = r.gen_range(1007..=1039);
        (u64::from(r.gen::<bool>()) << 63) | (e << 52) | (r.gen::<u64>() & ((1 << 52) - 1))
    }
}

/// CPU time consumed by the calling thread.
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Criterion measurement in thread CPU time (formatted like wall time).
struct ThreadCpuTime;
impl Measurement for ThreadCpuTime {
    type Intermediate = Duration;
    type Value = Duration;
    fn start(&self) -> Duration {
        thread_cpu_time()
    }
    fn end(&self, i: Duration) -> Duration {
        thread_cpu_time() - i
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        WallTime.formatter()
    }
}

fn bench(c: &mut Criterion) {
    run_group(c.benchmark_group("arith"));
    let mut cpu = Criterion::default()
        .with_measurement(ThreadCpuTime)
        .configure_from_args();
    run_group(cpu.benchmark_group("arith_cpu"));
}

fn run_group<M: Measurement>(mut g: BenchmarkGroup<'_, M>) {
    let mut r = SmallRng::seed_from_u64(1);
    let t32: Vec<[u32; 3]> = (0..N)
        .map(|_| [f32_operand(&mut r), f32_operand(&mut r), f32_operand(&mut r)])
        .collect();
    let t64: Vec<[u64; 3]> = (0..N)
        .map(|_| [f64_operand(&mut r), f64_operand(&mut r), f64_operand(&mut r)])
        .collect();
    let rm = Round::NearEven;
    let tin = Tininess::AfterRounding;

    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("ieee_f32_fma", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for &[x, y, z] in black_box(&t32) {
                let (v, f) = ieee::f32_fma(x, y, z, rm, tin);
                acc ^= v ^ u32::from(f.0);
            }
            acc
        })
    });
    g.bench_function("ieee_f32_add", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for &[x, y, _] in black_box(&t32) {
                let (v, f) = ieee::f32_add(x, y, rm, tin);
                acc ^= v ^ u32::from(f.0);
            }
            acc
        })
    });
    g.bench_function("ieee_f64_fma", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for &[x, y, z] in black_box(&t64) {
                let (v, f) = ieee::f64_fma(x, y, z, rm, tin);
                acc ^= v ^ u64::from(f.0);
            }
            acc
        })
    });
    g.bench_function("tesla_fmad", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for &[x, y, z] in black_box(&t32) {
                acc ^= tesla::fmad(x, y, z);
            }
            acc
        })
    });
    // The same FP32 FMA with the rounding mode varying per operation (the
    // mode is a per-instruction modifier in the ISA).
    g.bench_function("ieee_f32_fma_mixed_modes", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for (i, &[x, y, z]) in black_box(&t32).iter().enumerate() {
                let (v, f) = ieee::f32_fma(x, y, z, Round::ALL[i % 5], tin);
                acc ^= v ^ u32::from(f.0);
            }
            acc
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
