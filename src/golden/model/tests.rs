//! Unit tests of the golden model.

use super::*;
use crate::config::SmConfig;
use crate::golden::isa::{Form, Guard, Instr, Op, Op::*, Program, Src, Sreg, PT};

fn cfg(name: &str) -> SmConfig {
    SmConfig::load(name).unwrap()
}
/// `op d, a, b` with register b.
fn rr(op: Op, d: u8, a: u8, b: u8) -> Instr {
    let mut i = Instr::new(op);
    let u = op.info().form.uses();
    if u.d || op.info().form == Form::PAB {
        i.d = d;
    }
    if u.a {
        i.a = a;
    }
    if u.b {
        i.b = Src::Reg(b);
    }
    i
}
/// `op d, a, imm`.
fn ri(op: Op, d: u8, a: u8, v: u32) -> Instr {
    let mut i = rr(op, d, a, 0);
    i.b = Src::Imm(v);
    i
}
fn mov(d: u8, v: u32) -> Instr {
    ri(Mov, d, 0, v)
}
fn s2r(d: u8, s: Sreg) -> Instr {
    let mut i = Instr::new(S2r);
    i.d = d;
    i.e = s as u16;
    i
}
fn bra(t: u32) -> Instr {
    let mut i = Instr::new(Bra);
    i.b = Src::Imm(t);
    i
}
fn ssy(t: u32) -> Instr {
    let mut i = Instr::new(Ssy);
    i.b = Src::Imm(t);
    i
}
fn guard(mut i: Instr, pred: u8, neg: bool) -> Instr {
    i.guard = Guard { pred, neg };
    i
}
fn with_m(mut i: Instr, m: u8) -> Instr {
    i.m = m;
    i
}
fn mem(op: Op, reg: u8, a: u8, off: i16) -> Instr {
    let mut i = Instr::new(op);
    if op.info().form == Form::Store {
        i.b = Src::Reg(reg);
    } else {
        i.d = reg;
    }
    i.a = a;
    i.e = off as u16;
    i
}
fn prog(regs: u32, shared: u32, params: usize, code: Vec<Instr>) -> Program {
    Program {
        name: "t".into(),
        regs,
        shared_bytes: shared,
        params: (0..params).map(|i| format!("p{i}")).collect(),
        code,
        src_lines: vec![],
    }
}
fn launch(grid: [u32; 2], block: [u32; 3], params: Vec<u32>) -> Launch {
    Launch { grid, block, params }
}
/// Run one CTA of `threads` threads on gt200 and return the model.
fn run1(code: Vec<Instr>, threads: u32) -> Golden {
    let p = prog(16, 256, 0, code);
    let mut g = Golden::new(
        &cfg("gt200"),
        &p,
        &launch([1, 1], [threads, 1, 1], vec![]),
        vec![0; 4096],
    )
    .unwrap();
    g.run(10_000).unwrap();
    g
}
fn lanes(f: impl Fn(u32) -> u32) -> [u32; 32] {
    std::array::from_fn(|l| f(l as u32))
}

#[test]
fn integer_alu_rules() {
    let g = run1(
        vec![
            mov(1, 0xffff_fff0),
            ri(Iadd, 2, 1, 0x20),         // wraps: 0x10
            ri(Shl, 3, 1, 32),            // >= 32 gives 0
            ri(Shr, 4, 1, 40),            // logical: 0
            with_m(ri(Shr, 5, 1, 40), 1), // arithmetic: all sign
            ri(Shr, 6, 1, 4),             // 0x0fffffff
            mov(7, 0x8000_0000),
            rr(Iabs, 8, 7, 0),             // abs(MIN) = MIN
            ri(Imin, 9, 1, 5),             // signed: -16
            with_m(ri(Imin, 10, 1, 5), 1), // unsigned: 5
            ri(Iadd, RZ, 1, 5),            // dropped
            rr(Iadd, 11, RZ, RZ),          // RZ reads 0
            ri(Isub, 12, RZ, 1),           // 0 - 1
            with_m(ri(Imul, 13, 1, 2), 2), // HI.U32
            ri(Not, 14, 0, 0xf0f0_f0f0),
            Instr::new(Exit),
        ],
        32,
    );
    let all = |v: u32| [v; 32];
    assert_eq!(g.reg(0, 2), all(0x10));
    assert_eq!(g.reg(0, 3), all(0));
    assert_eq!(g.reg(0, 4), all(0));
    assert_eq!(g.reg(0, 5), all(0xffff_ffff));
    assert_eq!(g.reg(0, 6), all(0x0fff_ffff));
    assert_eq!(g.reg(0, 8), all(0x8000_0000));
    assert_eq!(g.reg(0, 9), all(0xffff_fff0));
    assert_eq!(g.reg(0, 10), all(5));
    assert_eq!(g.reg(0, 11), all(0));
    assert_eq!(g.reg(0, 12), all(0xffff_ffff));
    assert_eq!(g.reg(0, 13), all(1));
    assert_eq!(g.reg(0, 14), all(0x0f0f_0f0f));
}

#[test]
fn guards_predicates_and_select() {
    let g = run1(
        vec![
            s2r(0, Sreg::TidX),
            with_m(ri(Isetp, 1, 0, 10), ICmp::Lt as u8), // P1 = tid < 10
            guard(mov(2, 7), 1, false),                  // only tid < 10
            guard(mov(3, 9), 1, true),                   // only tid >= 10
            with_m(ri(Sel, 4, 0, 100), 1),               // P1 ? tid : 100
            with_m(ri(Isetp, PT, 0, 0), 0),              // to PT: dropped
            with_m(ri(Isetp, 2, 0, 0xffff_ffff), ICmp::Lt as u8 | 8), // unsigned
            Instr::new(Exit),
        ],
        32,
    );
    assert_eq!(g.pred(0, 1), 0x3ff);
    assert_eq!(g.pred(0, 2), FULL);
    assert_eq!(g.reg(0, 2), lanes(|l| if l < 10 { 7 } else { 0 }));
    assert_eq!(g.reg(0, 3), lanes(|l| if l < 10 { 0 } else { 9 }));
    assert_eq!(g.reg(0, 4), lanes(|l| if l < 10 { l } else { 100 }));
}
use crate::golden::isa::ICmp;

/// if (tid < 16) r1 = 1 else r1 = 2; r2 = r1 + 10 (after reconvergence).
#[test]
fn divergence_reconverges_at_sync() {
    let code = vec![
        s2r(0, Sreg::TidX),
        ssy(7),
        with_m(ri(Isetp, 0, 0, 16), ICmp::Ge as u8),
        guard(bra(6), 0, false), // 3
        mov(1, 1),
        Instr::new(Sync), // 5
        mov(1, 2),        // 6 (falls into 7? no: SYNC below)
        Instr::new(Sync), // 7: reconvergence point reached by pops
        ri(Iadd, 2, 1, 10),
        Instr::new(Exit),
    ];
    // Fix the layout: else-side at 6 must SYNC at 7, and the SSY target
    // is the instruction after that SYNC.
    let mut code = code;
    code[1] = ssy(8);
    let g = run1(code, 32);
    assert_eq!(g.reg(0, 1), lanes(|l| if l < 16 { 1 } else { 2 }));
    assert_eq!(g.reg(0, 2), lanes(|l| if l < 16 { 11 } else { 12 }));
    let (_, _, done, depth) = g.warp_state(0);
    assert!(done);
    assert_eq!(depth, 0);
    // IADD at pc 8 ran once, with all 32 lanes.
    let s = g.stats();
    assert_eq!(s.per_class[&Class::Int].warp, 2); // ISETP + IADD
    assert_eq!(s.per_class[&Class::Int].thread, 64);
}

/// Per-lane loop trip counts: r1 = sum_{k < tid % 5} 1, by a loop with
/// a divergent back branch; afterwards all lanes are active again.
#[test]
fn divergent_loop() {
    let code = vec![
        s2r(0, Sreg::TidX),
        ri(And, 2, 0, 3), // r2 = tid & 3 = trip count
        mov(1, 0),
        ssy(9),
        with_m(ri(Isetp, 0, 2, 0), ICmp::Eq as u8), // 4: loop head
        guard(bra(8), 0, false),
        ri(Iadd, 1, 1, 1),
        ri(Isub, 2, 2, 1),
        // 8: done lanes wait here; loop lanes jump back.
        Instr::new(Sync),
        ri(Iadd, 3, 1, 100), // 9
        Instr::new(Exit),
    ];
    // Lanes still looping need a back branch before pc 8: insert it.
    let mut code = code;
    code.insert(8, bra(4));
    code[3] = ssy(10);
    code[5] = guard(bra(9), 0, false);
    let g = run1(code, 32);
    assert_eq!(g.reg(0, 1), lanes(|l| l & 3));
    assert_eq!(g.reg(0, 3), lanes(|l| (l & 3) + 100));
    assert_eq!(g.warp_state(0).3, 0);
}

#[test]
fn exit_in_divergent_code_and_partial_warps() {
    let code = vec![
        s2r(0, Sreg::TidX),
        ssy(6),
        with_m(ri(Isetp, 0, 0, 4), ICmp::Lt as u8),
        guard(bra(5), 0, true),
        Instr::new(Exit),  // 4: lanes < 4 exit
        Instr::new(Sync),  // 5
        ri(Iadd, 1, 0, 1), // 6
        Instr::new(Exit),
    ];
    // 40 threads: warp 1 has 8 lanes.
    let p = prog(4, 0, 0, code);
    let mut g = Golden::new(&cfg("gt200"), &p, &launch([1, 1], [40, 1, 1], vec![]), vec![]).unwrap();
    let s = g.run(1000).unwrap();
    assert_eq!(g.reg(0, 1), lanes(|l| if l < 4 { 0 } else { l + 1 }));
    assert_eq!(g.reg(1, 1)[..8], lanes(|l| l + 33)[..8]);
    assert_eq!(g.reg(1, 1)[8..], [0; 24]);
    // IADD at 6: 28 lanes of warp 0, 8 of warp 1.
    assert_eq!(s.per_class[&Class::Int].thread, 32 + 8 + 28 + 8);
    assert_eq!(s.ctas, 1);
}

#[test]
fn barrier_orders_shared_memory() {
    // Warp 1 spins 50 iterations then stores; warp 0 reads after BAR.
    let code = vec![
        s2r(0, Sreg::WarpId),
        with_m(ri(Isetp, 0, 0, 1), ICmp::Eq as u8),
        guard(bra(8), 0, true), // warp 0 skips the spin
        mov(1, 50),
        ri(Isub, 1, 1, 1), // 4
        with_m(ri(Isetp, 1, 1, 0), ICmp::Ne as u8),
        guard(bra(4), 1, false),
        mem(Sts, 1, RZ, 0x40), // 7: store 0... use 1234 below
        Instr::new(Bar),       // 8
        mem(Lds, 2, RZ, 0x40),
        Instr::new(Exit),
    ];
    let mut code = code;
    code.insert(7, mov(1, 1234));
    code[2] = guard(bra(9), 0, true);
    let g = run1(code, 64);
    assert_eq!(g.reg(0, 2), [1234; 32]);
    assert_eq!(g.reg(1, 2), [1234; 32]);
}

#[test]
fn atomics_in_lane_order_and_store_conflicts() {
    let code = vec![
        s2r(0, Sreg::LaneId),
        mov(1, 1),
        with_m(mem(Atoms, 2, RZ, 0x10), AtomOp::Add as u8),
        // CAS: every lane tries to change 32 -> lane+100; lane 0 wins.
        mov(3, 32),
        ri(Iadd, 4, 0, 100),
        Instr::new(Nop),
        mem(Sts, 0, RZ, 0x20), // all lanes to one address: lane 31 wins
        mem(Lds, 6, RZ, 0x20),
        mem(Lds, 7, RZ, 0x10),
        mem(Lds, 8, RZ, 0x14),
        Instr::new(Exit),
    ];
    let mut code = code;
    code[2].b = Src::Reg(1);
    let mut cas = with_m(mem(Atoms, 5, RZ, 0x14), AtomOp::Cas as u8);
    cas.b = Src::Reg(4);
    cas.c = 3;
    code[5] = cas;
    // Put 32 at 0x14 first via the ADD results: store r1*32.
    code.insert(5, ri(Shl, 9, 1, 5));
    code.insert(6, mem(Sts, 9, RZ, 0x14));
    let g = run1(code, 32);
    assert_eq!(g.reg(0, 2), lanes(|l| l)); // old values 0..31
    assert_eq!(g.reg(0, 7), [32; 32]);
    assert_eq!(g.reg(0, 5), lanes(|l| if l == 0 { 32 } else { 100 }));
    assert_eq!(g.reg(0, 8), [100; 32]);
    assert_eq!(g.reg(0, 6), [31; 32]);
}
use crate::golden::isa::AtomOp;

#[test]
fn ctas_special_registers_params_and_global_memory() {
    // out[(ctaid.y * nctaid.x + ctaid.x) * ntid + tid] = tid + p0 + 1000*ctaid.x
    let code = vec![
        s2r(0, Sreg::TidX),
        s2r(1, Sreg::CtaidX),
        s2r(2, Sreg::CtaidY),
        s2r(3, Sreg::NctaidX),
        s2r(4, Sreg::NtidX),
        rr(Imad, 5, 2, 3), // c filled below
        rr(Imad, 5, 5, 4), // (cy*nx+cx)*ntid + tid
        ri(Shl, 6, 5, 2),
        {
            let mut i = Instr::new(Ldc);
            i.d = 7;
            i.a = RZ;
            i.e = 1;
            i
        },
        ri(Imul, 8, 1, 1000),
        rr(Iadd, 8, 8, 0),
        rr(Iadd, 8, 8, 7),
        mem(Lds, 9, 6, 0), // shared is zero at every CTA start
        rr(Iadd, 8, 8, 9),
        mem(Sts, 8, 6, 0),
        mem(Stg, 8, 6, 0),
        Instr::new(Exit),
    ];
    let mut code = code;
    code[5].c = 1;
    code[6].c = 0;
    let p = prog(10, 4 * 64 * 6, 2, code);
    let (out, s) = run_kernel(
        &cfg("gt200"),
        &p,
        &launch([3, 2], [64, 1, 1], vec![0, 5]),
        vec![0; 4 * 64 * 6],
    )
    .unwrap();
    assert_eq!(s.ctas, 6);
    for cta in 0..6u32 {
        for t in 0..64u32 {
            let k = (cta * 64 + t) as usize * 4;
            let v = u32::from_le_bytes(out[k..k + 4].try_into().unwrap());
            assert_eq!(v, t + 5 + 1000 * (cta % 3), "cta {cta} t {t}");
        }
    }
    assert_eq!(s.thread_instrs, 17 * 64 * 6);
    assert_eq!(s.warp_instrs, 17 * 2 * 6);
}

#[test]
fn wide_memory_and_fp64_pairs() {
    let one = 1.0f64.to_bits();
    let code = vec![
        mem(Ldg, 2, RZ, 0), // .64 below
        mem(Ldg, 4, RZ, 8),
        rr(Dadd, 6, 2, 4),
        mem(Stg, 6, RZ, 16),
        with_m(rr(Dsetp, 0, 6, 2), 4), // GT
        with_m(rr(Fadd, 8, 2, 3), 0),
        Instr::new(Exit),
    ];
    let mut code = code;
    code[0].m = 1;
    code[1].m = 1;
    code[3].m = 1;
    let mut gm = vec![0u8; 24];
    gm[0..8].copy_from_slice(&one.to_le_bytes());
    gm[8..16].copy_from_slice(&2.5f64.to_bits().to_le_bytes());
    let p = prog(10, 0, 0, code);
    let mut g = Golden::new(&cfg("fermi"), &p, &launch([1, 1], [1, 1, 1], vec![]), gm).unwrap();
    let mut writes = vec![];
    while let Some(r) = g.step().unwrap() {
        writes.push(r);
    }
    assert_eq!(&g.gmem()[16..24], &3.5f64.to_bits().to_le_bytes());
    assert_eq!(g.pred(0, 0) & 1, 1);
    match &writes[2].write {
        Some(Write::RegPair { reg: 6, values }) => assert_eq!(values[0], 3.5f64.to_bits()),
        w => panic!("unexpected {w:?}"),
    }
    match &writes[3].write {
        Some(Write::MemPair {
            space: Space::Global,
            addrs,
            values,
        }) => {
            assert_eq!(addrs[0], 16);
            assert_eq!(values[0], 3.5f64.to_bits());
        }
        w => panic!("unexpected {w:?}"),
    }
    assert_eq!(writes[0].active, 1);
    assert_eq!(writes.len(), 7);
}

#[test]
fn fadd_flavour_follows_the_preset() {
    // Smallest denormal + 0: Tesla flushes it, IEEE keeps it.
    let code = vec![mov(1, 1), ri(Fadd, 2, 1, 0), Instr::new(Exit)];
    let p = prog(4, 0, 0, code);
    let l = launch([1, 1], [1, 1, 1], vec![]);
    let mut t = Golden::new(&cfg("gt200"), &p, &l, vec![]).unwrap();
    t.run(100).unwrap();
    let mut f = Golden::new(&cfg("fermi"), &p, &l, vec![]).unwrap();
    f.run(100).unwrap();
    assert_eq!(t.reg(0, 2)[0], 0);
    assert_eq!(f.reg(0, 2)[0], 1);
}

#[test]
fn step_reports_every_warp_instruction_round_robin() {
    let code = vec![
        s2r(0, Sreg::TidX),
        ri(Iadd, 1, 0, 1),
        mem(Sts, 1, RZ, 0),
        Instr::new(Exit),
    ];
    let p = prog(4, 16, 0, code);
    let mut g = Golden::new(&cfg("gt200"), &p, &launch([2, 1], [48, 1, 1], vec![]), vec![]).unwrap();
    let mut seen = vec![];
    while let Some(r) = g.step().unwrap() {
        seen.push((r.cta, r.warp, r.pc, r.active));
        if r.pc == 1 && r.warp == 1 {
            assert_eq!(
                r.write,
                Some(Write::Reg {
                    reg: 1,
                    values: lanes(|l| if l < 16 { l + 33 } else { 0 })
                })
            );
        }
        if r.pc == 2 && r.warp == 0 {
            match r.write {
                Some(Write::Mem { space, addrs, values }) => {
                    assert_eq!(space, Space::Shared);
                    assert_eq!(addrs, [0; 32]);
                    assert_eq!(values, lanes(|l| l + 1));
                }
                w => panic!("{w:?}"),
            }
        }
    }
    let expect: Vec<_> = (0..2)
        .flat_map(|c| (0..4).flat_map(move |pc| [(c, 0, pc, FULL), (c, 1, pc, 0xffff)]))
        .collect();
    assert_eq!(seen, expect);
    assert!(g.step().unwrap().is_none());
    assert_eq!(g.stats().ctas, 2);
    assert_eq!(g.stats().warp_instrs, 16);
}

#[test]
fn step_and_run_agree_and_step_warp_checks_its_warp() {
    // A divergent, barrier-using kernel over 3 CTAs of 40 threads.
    let code = vec![
        s2r(0, Sreg::TidX),
        s2r(1, Sreg::CtaidX),
        ssy(6),
        with_m(ri(Isetp, 0, 0, 7), ICmp::Lt as u8),
        guard(ri(Iadd, 0, 0, 100), 0, false),
        Instr::new(Sync),
        Instr::new(Bar), // 6
        ri(Imul, 2, 1, 40),
        rr(Iadd, 2, 2, 0),
        ri(Shl, 3, 2, 2),
        with_m(mem(Atomg, 4, 3, 0), AtomOp::Add as u8),
        Instr::new(Exit),
    ];
    let mut code = code;
    code[10].b = Src::Reg(2);
    code[4] = guard(bra(5), 0, false);
    let p = prog(8, 0, 0, code);
    let l = launch([3, 1], [40, 1, 1], vec![]);
    let c = cfg("gt200");
    let mut a = Golden::new(&c, &p, &l, vec![0; 4 * 120 + 400]).unwrap();
    let sa = a.run(10_000).unwrap();
    let mut b = Golden::new(&c, &p, &l, vec![0; 4 * 120 + 400]).unwrap();
    let mut n = 0;
    while b.step().unwrap().is_some() {
        n += 1;
    }
    assert_eq!(n, sa.warp_instrs);
    assert_eq!(b.stats(), &sa);
    assert_eq!(a.gmem(), b.gmem());
    assert_eq!(sa.ctas, 3);
    // step_warp on a warp that does not exist or is done: an error.
    let mut g = Golden::new(&c, &p, &l, vec![0; 880]).unwrap();
    assert_eq!(g.step_warp(5).unwrap_err().reason, Reason::NotRunnable);
    let r = g.step_warp(1).unwrap();
    assert_eq!((r.warp, r.pc, r.active), (1, 0, 0xff));
    assert_eq!(g.step_warp(1).unwrap().pc, 1);
    assert_eq!(g.step().unwrap().unwrap().warp, 0);
}

/// Nested if/else and a per-lane loop on random lane patterns and
/// partial warps: every lane gets its own result and the warp
/// reconverges (stack empty, all lanes at the final store).
const NESTED: &str = "
.regs 8
.param m1
.param m2
S2R R0, SR_TID.X
LDC R1, c[m1]
LDC R2, c[m2]
SHR R3, R1, R0
AND R3, R3, 1
SHR R4, R2, R0
AND R4, R4, 1
MOV R5, 0
SSY outer_join
ISETP.NE P0, R3, 0
@P0 BRA then1
MOV R5, 1              ; bit1 = 0
SYNC
then1:
SSY inner_join
ISETP.NE P1, R4, 0
@!P1 BRA else2
AND R6, R0, 3          ; bit1 = 1, bit2 = 1: loop tid & 3 times
loop:
ISETP.EQ P2, R6, 0
@P2 BRA loop_done
IADD R5, R5, 10
ISUB R6, R6, 1
BRA loop
loop_done:
SYNC
else2:
MOV R5, 2
SYNC
inner_join:
IADD R5, R5, 1000
SYNC
outer_join:
SHL R7, R0, 2
STG [R7], R5
EXIT
";

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    #[test]
    fn nested_divergence_matches_per_lane_reference(m1: u32, m2: u32, threads in 1u32..=32) {
        let p = crate::golden::asm::assemble(NESTED, "nested.s").unwrap();
        let (out, s) = run_kernel(&cfg("gt200"), &p, &launch([1, 1], [threads, 1, 1], vec![m1, m2]), vec![0; 128]).unwrap();
        for t in 0..32u32 {
            let got = u32::from_le_bytes(out[4 * t as usize..4 * t as usize + 4].try_into().unwrap());
            let want = if t >= threads {
                0
            } else if m1 >> t & 1 == 0 {
                1
            } else if m2 >> t & 1 == 0 {
                1002
            } else {
                1000 + 10 * (t & 3)
            };
            proptest::prop_assert_eq!(got, want, "lane {}", t);
        }
        // The final STG runs once, with every thread.
        proptest::prop_assert_eq!(s.per_class[&Class::Global], ClassCount { warp: 1, thread: threads as u64 });
    }
}

#[test]
fn clock_counts_warp_instructions() {
    let code = vec![
        Instr::new(Nop),
        Instr::new(Nop),
        s2r(1, Sreg::Clock),
        s2r(2, Sreg::NtidY),
        Instr::new(Exit),
    ];
    let p = prog(4, 0, 0, code);
    let mut g = Golden::new(&cfg("gt200"), &p, &launch([1, 1], [4, 2, 1], vec![]), vec![]).unwrap();
    g.run(100).unwrap();
    assert_eq!(g.reg(0, 1)[0], 2);
    assert_eq!(g.reg(0, 2)[0], 2);
}

#[test]
fn cli_value_parsing() {
    assert_eq!(parse_param_value("-5"), Ok(0xffff_fffb));
    assert_eq!(parse_param_value("4294967295"), Ok(u32::MAX));
    assert_eq!(parse_param_value("0x3f800000"), Ok(0x3f80_0000));
    assert_eq!(parse_param_value("1.5"), Ok(0x3fc0_0000));
    assert_eq!(parse_param_value("3f"), Ok(0x4040_0000));
    assert_eq!(parse_param_value("-2e0"), Ok(0xc000_0000));
    assert_eq!(parse_param_value("inf"), Ok(0x7f80_0000));
    assert!(parse_param_value("4294967296").is_err());
    assert!(parse_param_value("abc").is_err());
    let names = vec!["a".to_string(), "n".to_string()];
    assert_eq!(
        resolve_params(&names, &["n=3".into(), "a=0x10".into()]),
        Ok(vec![16, 3])
    );
    assert_eq!(resolve_params(&names, &["7".into()]), Ok(vec![7]));
    assert!(resolve_params(&names, &["a=1".into()])
        .unwrap_err()
        .contains("missing --param for: n"));
    assert!(resolve_params(&names, &["b=1".into(), "a=1".into()])
        .unwrap_err()
        .contains("no parameter `b`"));
    assert!(resolve_params(&names, &["a=1".into(), "2".into()]).is_err());
    assert_eq!(parse_dims::<2>("4"), Ok([4, 1]));
    assert_eq!(parse_dims::<3>("4,2,3"), Ok([4, 2, 3]));
    assert!(parse_dims::<2>("1,2,3").is_err());
    assert!(parse_dims::<2>("x").is_err());
}

#[test]
fn stats_table_names_every_class() {
    let g = run1(vec![mov(1, 1), Instr::new(Exit)], 32);
    let t = g.stats().to_string();
    for c in Class::ALL {
        assert!(t.contains(c.name()), "{t}");
    }
    assert!(t.contains("CTAs completed: 1"), "{t}");
}
