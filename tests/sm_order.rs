//! Memory ordering on the RTL SM with many loads in flight and stores that
//! do not wait for other warps' loads (docs/lsu.md "Load slots and request
//! tags"): one directed kernel per rule the programming model fixes, run
//! lock-step against the golden model on gt200 and fermi with out-of-order
//! memory of several latencies, and its final image compared with values
//! written down here (not computed by either model).
//!
//! Per thread `t` (64 threads, 2 warps) a record of 8 words at
//! `buf + 32 t`:
//! * read after write: `STG [x], t + 1; LDG r, [x]` -> word 3 = `t + 1`;
//! * write after read: `LDG r, [y]; STG [y], 77` -> word 4 = the initial
//!   `y`, word 1 = 77;
//! * write after write: `STG [z], 1; STG [z], 2` -> word 2 = 2;
//! * after `BAR`: warp 0 stores `vis[lane] = 1000 + lane`, warp 1 loads it
//!   after the barrier -> word 5 = `1000 + lane` for warp 1 (warp 0 leaves
//!   its initial word 5);
//! * fence: `STG [w6], 500 + t; MEMBAR.GL; LDG r, [w6]` -> word 7 = `500 + t`;
//! * a store to a line with a read out in memory (Fermi: a fill pending in
//!   the L1): per thread a line of its own at `buf + 4096 + 128 t`,
//!   `LDG r, [l + 0]; STG [l + 4], 900 + t; MEMBAR; LDG q, [l + 4]` -> word
//!   2 = `900 + t` (the fill, older than the store, must not be cached),
//!   word 3 = the initial word 0.

use smrtl::golden::asm::assemble;
use smrtl::golden::model::Launch;
use smrtl::sm::run::{run_program, RtlOptions};
use smrtl::sm::SmConfig;
use smrtl::testbenches::gmem::GmemConfig;

const ORDER: &str = "
.kernel order
.regs 16
.param buf
    S2R R0, SR_TID.X
    LDC R1, c[buf]
    SHL R2, R0, 5
    IADD R2, R1, R2             ; the thread's record
    IADD R3, R0, 1
    STG [R2+0], R3              ; read after write
    LDG R4, [R2+0]
    STG [R2+12], R4
    LDG R5, [R2+4]              ; write after read
    MOV R6, 77
    STG [R2+4], R6
    STG [R2+16], R5
    MOV R7, 1                   ; write after write
    STG [R2+8], R7
    MOV R7, 2
    STG [R2+8], R7
    S2R R8, SR_LANEID           ; visibility after BAR
    SHL R9, R8, 2
    IADD R9, R9, R1
    IADD R9, R9, 2048           ; vis[lane]
    ISETP.LT P0, R0, 32
    IADD R10, R8, 1000
    @P0 STG [R9+0], R10
    BAR
    @!P0 LDG R11, [R9+0]
    @!P0 STG [R2+20], R11
    IADD R10, R0, 500           ; fence
    STG [R2+24], R10
    MEMBAR.GL
    LDG R11, [R2+24]
    STG [R2+28], R11
    SHL R12, R0, 7              ; a store behind a pending fill
    IADD R12, R12, R1
    IADD R12, R12, 4096
    LDG R13, [R12+0]
    IADD R14, R0, 900
    STG [R12+4], R14
    MEMBAR
    LDG R15, [R12+4]
    STG [R12+8], R15
    STG [R12+12], R13
    EXIT
";

fn word(img: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(img[at..at + 4].try_into().unwrap())
}

#[test]
fn program_order_barrier_and_fence_hold_under_reordering() {
    let prog = assemble(ORDER, "order.s").unwrap();
    let buf = 256usize;
    let mut init = vec![0u8; buf + 4096 + 128 * 64];
    for (k, b) in init.iter_mut().enumerate() {
        *b = (k as u32).wrapping_mul(2654435761).rotate_left(7) as u8;
    }
    let launch = Launch {
        grid: [1, 1],
        block: [64, 1, 1],
        params: vec![buf as u32],
    };
    for preset in ["gt200", "fermi"] {
        let cfg = SmConfig::load(preset).unwrap();
        for (latency, seed) in [(3u32, 5u64), (40, 6), (300, 7)] {
            let opts = RtlOptions {
                gmem: Some(GmemConfig {
                    latency,
                    milli_bytes_per_cycle: cfg.gmem_milli_bytes_per_cycle as u64,
                    out_of_order: true,
                    seed,
                }),
                ..RtlOptions::default()
            };
            let r = run_program(&cfg, &prog, &launch, init.clone(), &opts)
                .unwrap_or_else(|e| panic!("{preset} latency {latency}: {e}\n{}", e.report.render()));
            assert!(
                r.report.checked > 0,
                "{preset}: nothing checked against the golden model"
            );
            for t in 0..64usize {
                let rec = buf + 32 * t;
                let lane = (t % 32) as u32;
                let want5 = if t >= 32 { 1000 + lane } else { word(&init, rec + 20) };
                let want = [
                    t as u32 + 1,
                    77,
                    2,
                    t as u32 + 1,
                    word(&init, rec + 4),
                    want5,
                    500 + t as u32,
                    500 + t as u32,
                ];
                let got: Vec<u32> = (0..8).map(|k| word(&r.gmem, rec + 4 * k)).collect();
                assert_eq!(got, want, "{preset} latency {latency}: thread {t}'s record");
            }
            for t in 0..64usize {
                let l = buf + 4096 + 128 * t;
                let got: Vec<u32> = (1..4).map(|k| word(&r.gmem, l + 4 * k)).collect();
                let want = vec![900 + t as u32, 900 + t as u32, word(&init, l)];
                assert_eq!(got, want, "{preset} latency {latency}: thread {t}'s line");
            }
            for lane in 0..32 {
                assert_eq!(
                    word(&r.gmem, buf + 2048 + 4 * lane),
                    1000 + lane as u32,
                    "{preset}: vis[{lane}]"
                );
            }
        }
    }
}
