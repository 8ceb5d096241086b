//! Tests of the GPU-CC configuration format, its assembler's errors (each
//! names the right line) and the dataflow model's firing rule, deadlock
//! and runaway reports. Expected values are written by hand.

use super::flow::{lane_eval, Flow};
use super::text::assemble_block;
use super::*;
use crate::golden::asm::assemble;
use crate::golden::isa::{Instr, Src};

/// Assemble a block given as text (line 1 = first line) and return the
/// first error's (line, message).
fn first_err(block: &str) -> (u32, String) {
    let lines: Vec<(u32, &str)> = block.lines().enumerate().map(|(n, t)| (n as u32 + 1, t)).collect();
    let n = lines.len() as u32 + 1;
    match assemble_block(&lines, n) {
        Ok(code) => panic!("assembled: {code:?}"),
        Err(e) => (e[0].line, e[0].msg.clone()),
    }
}

fn ok(block: &str) -> Vec<(Instr, u32)> {
    let lines: Vec<(u32, &str)> = block.lines().enumerate().map(|(n, t)| (n as u32 + 1, t)).collect();
    assemble_block(&lines, 99).unwrap_or_else(|e| panic!("{e:?}"))
}

/// A small valid chain: a counter core, a load, an add, a store.
const CHAIN: &str = "\
grid 4, 2
core0 IMAD y, 4, x -> A
lsu1 LDG [core0*4 + 0x100] -> B
core2 FADD lsu1, 1.0 -> C
core3 IMAD y, 4, x -> A
lsu2 STG [core3*4 + 0x200], core2";

#[test]
fn positions_interleave_one_lsu_per_two_cores() {
    assert_eq!(
        (position(CORES), position(0), position(1), position(CORES + 1)),
        (0, 1, 2, 3)
    );
    for n in 0..NODES {
        assert_eq!(node_at(position(n)), n);
    }
}

#[test]
fn op_word_layout() {
    let c = NodeCfg {
        op: 0x23,
        m: 0b1001,
        src: [4, 1, 2],
        fifo_lane: [0, 5, 3],
        out_lane: 2,
        ..NodeCfg::default()
    };
    let w = c.op_word();
    assert_eq!(w & 0x7f, 0x23);
    assert_eq!(w >> 7 & 15, 9);
    assert_eq!((w >> 11 & 7, w >> 14 & 7, w >> 17 & 7), (4, 1, 2));
    assert_eq!((w >> 20 & 7, w >> 23 & 7, w >> 26 & 7), (0, 5, 3));
    assert_eq!(w >> 29, 2);
    let mut d = NodeCfg::default();
    d.set_op_word(w);
    assert_eq!(d, c);
    let mut k = NodeCfg::default();
    k.set_counter_word(1 | (0xffu32 << 1) | (2 << 9));
    assert_eq!((k.counter, k.x0, k.y0), (true, -1, 2));
}

#[test]
fn chain_assembles_to_gcset_words() {
    let code = ok(CHAIN);
    // core0: op, imm, counter, nx, ny; lsu1: op, imm; core2: op, imm;
    // core3: op, imm, counter, nx, ny; lsu2: op, imm; GCRUN.
    assert_eq!(code.len(), 5 + 2 + 2 + 5 + 2 + 1);
    let (i, ln) = code[0];
    assert_eq!((i.op, i.d, i.a, ln), (Op::Gcset, 0, 0, 2));
    let mut c = NodeCfg::default();
    c.set_op_word(match i.b {
        Src::Imm(v) => v,
        _ => panic!(),
    });
    // IMAD y, 4, x: a = Y (7), b = IMM (4), c = X (6), out lane A (1).
    assert_eq!((c.op, c.src, c.out_lane), (Op::Imad as u8, [7, 4, 6], 1));
    // lsu1: address FIFO 0 on lane A, shift 2, out lane B.
    let (l, ln) = code[5];
    assert_eq!((l.d as usize, ln), (CORES + 1, 3));
    let mut c = NodeCfg::default();
    c.set_op_word(match l.b {
        Src::Imm(v) => v,
        _ => panic!(),
    });
    assert_eq!(
        (c.op, c.m, c.src[0], c.fifo_lane[0], c.out_lane),
        (Op::Ldg as u8, 2, 1, 1, 2)
    );
    assert_eq!(code.last().unwrap().0.op, Op::Gcrun);
}

#[test]
fn error_two_drivers_on_one_lane_segment() {
    // core1 drives A between core0 and its reader lsu1.
    let (l, m) = first_err("grid 4, 2\ncore0 IMAD y, 4, x -> A\ncore1 IADD x, 1 -> A\nlsu1 LDG [core0*4 + 0x100] -> B\ncore2 FADD lsu1, 1.0 -> C\nlsu2 STG [core1*4], core2");
    assert_eq!(l, 3, "{m}");
    assert!(m.contains("two drivers on one lane segment"), "{m}");
}

#[test]
fn error_input_nobody_feeds() {
    let (l, m) = first_err("grid 4, 2\ncore0 IMAD y, 4, x -> A\nlsu1 LDG [core0*4] -> B\ncore2 FADD lsu1, core1 -> C\nlsu2 STG [core0*4], core2");
    assert_eq!(l, 4, "{m}");
    assert!(m.contains("an input nobody feeds") && m.contains("core1"), "{m}");
}

#[test]
fn error_value_nobody_reads() {
    let (l, m) = first_err(&format!("{CHAIN}\ncore4 IADD x, 1 -> E"));
    assert_eq!(l, 7, "{m}");
    assert!(m.contains("a value nobody reads") && m.contains("core4"), "{m}");
    let (l, m) = first_err(&format!("{CHAIN}\ncore4 IADD x, 1"));
    assert_eq!(l, 7, "{m}");
    assert!(m.contains("goes nowhere"), "{m}");
}

#[test]
fn error_unknown_core_and_lane() {
    let (l, m) = first_err("grid 4, 2\ncore32 IADD x, 1 -> A");
    assert_eq!(l, 2, "{m}");
    assert!(m.contains("unknown node 'core32'"), "{m}");
    let (l, m) = first_err("grid 4, 2\ncore0 IADD x, 1 -> F");
    assert_eq!(l, 2, "{m}");
    assert!(m.contains("unknown lane 'F'"), "{m}");
    let (l, m) = first_err("grid 4, 2\ncore0 IADD x, 1 -> A\nlsu0 STG [lsu17*4], core0");
    assert_eq!(l, 3, "{m}");
    assert!(m.contains("unknown node 'lsu17'"), "{m}");
}

#[test]
fn error_instruction_the_lanes_do_not_have() {
    let (l, m) = first_err("grid 4, 2\ncore0 IADD x, 1 -> A\ncore1 FMAD core0, 2.0, 1.0 -> B");
    assert_eq!(l, 3, "{m}");
    assert!(m.contains("FMAD is not available"), "{m}");
    let (l, m) = first_err("grid 4, 2\ncore0 RCP x -> A");
    assert_eq!(l, 2, "{m}");
    assert!(m.contains("does not run on an SP lane"), "{m}");
    let (l, m) = first_err("grid 4, 2\ncore0 LDG [core1] -> A");
    assert_eq!(l, 2, "{m}");
    assert!(m.contains("runs on an LSU"), "{m}");
    let (l, m) = first_err("grid 4, 2\nlsu0 IADD x, 1 -> A");
    assert_eq!(l, 2, "{m}");
    assert!(m.contains("an LSU runs LDG or STG"), "{m}");
}

#[test]
fn error_fifo_index_out_of_range() {
    let (l, m) = first_err("grid 4, 2\ncore0 IADD x, 1 -> A\ncore1 IADD x, 2 -> B\ncore3 IADD core0.F3, core1 -> C\nlsu2 STG [core3], core3");
    assert_eq!(l, 4, "{m}");
    assert!(m.contains("FIFO index 3 is out of range"), "{m}");
    // Two producers into one named FIFO.
    let (l, m) = first_err("grid 4, 2\ncore0 IADD x, 1 -> A\ncore1 IADD x, 2 -> B\ncore3 IADD core0.F1, core1.F1 -> C\nlsu2 STG [core3], core3");
    assert_eq!(l, 4, "{m}");
    assert!(m.contains("FIFO F1 of core3 already takes core0"), "{m}");
    // A named FIFO is used as written.
    let code = ok("grid 4, 2\ncore0 IADD x, 1 -> A\ncore3 IADD core0.F2, 1 -> C\nlsu2 STG [core3], core3");
    let mut c = NodeCfg::default();
    let w = code.iter().find(|(i, _)| i.d == 3 && i.a == 0).unwrap().0.b;
    c.set_op_word(match w {
        Src::Imm(v) => v,
        _ => panic!(),
    });
    assert_eq!((c.src[0], c.fifo_lane), (Source::Fifo(2).code() as u8, [0, 0, 1]));
}

#[test]
fn error_fires_forever_and_wrong_direction() {
    let (l, m) = first_err("core0 IADD 1, 0 -> A\nlsu1 STG [core0], core0");
    assert_eq!(l, 1, "{m}");
    assert!(m.contains("fire forever"), "{m}");
    let (l, m) = first_err("grid 2, 2\ncore3 IADD x, 1 -> A\ncore0 IADD core3, 1 -> B\nlsu3 STG [core0], core0");
    assert_eq!(l, 3, "{m}");
    assert!(m.contains("cannot reach"), "{m}");
    let (l, m) = first_err("core0 IADD x, 1 -> A\nlsu1 STG [core0], core0");
    assert_eq!(l, 1, "{m}");
    assert!(m.contains("no 'grid"), "{m}");
}

#[test]
fn kernel_block_errors_name_the_file_line() {
    let src = ".regs 4\n MOV R1, 1\n.gpucc\ngrid 2, 2\ncore0 FMAD x, 1.0, 2.0 -> A\n.endgpucc\n EXIT\n";
    let e = assemble(src, "k.s").unwrap_err();
    assert_eq!(e.line, 5, "{e}");
    assert!(e.msg.contains("FMAD"), "{e}");
    let e = assemble(".regs 4\n.gpucc\ngrid 2, 2\n EXIT\n", "k.s").unwrap_err();
    assert_eq!(e.line, 2, "{e}");
    assert!(e.msg.contains("unterminated .gpucc"), "{e}");
}

#[test]
fn lane_eval_spot_values() {
    use crate::units::sp::lane::Flavor;
    // FFMA(2, 3, 1) = 7; with -c: 2*3 - 1 = 5.
    assert_eq!(
        lane_eval(Op::Ffma, 0, [0x4000_0000, 0x4040_0000, 0x3f80_0000], Flavor::Ieee),
        0x40e0_0000
    );
    assert_eq!(
        lane_eval(Op::Ffma, 8, [0x4000_0000, 0x4040_0000, 0x3f80_0000], Flavor::Ieee),
        0x40a0_0000
    );
    assert_eq!(lane_eval(Op::Imad, 0, [3, 5, 7], Flavor::Ieee), 22);
    assert_eq!(lane_eval(Op::Imax, 0, [u32::MAX, 0, 0], Flavor::Ieee), 0);
    assert_eq!(lane_eval(Op::Imin, 1, [u32::MAX, 4, 0], Flavor::Ieee), 4);
}

/// Build a network by hand: core0 counts 0..n-1 (IADD x, 0) on lane A
/// into lsu1, which stores it at 4*x.
fn counter_store(n: u32) -> Vec<NodeCfg> {
    let mut nodes = vec![NodeCfg::default(); NODES];
    nodes[0] = NodeCfg {
        op: Op::Iadd as u8,
        src: [Source::X.code() as u8, Source::Zero.code() as u8, 0],
        out_lane: 1,
        counter: true,
        nx: n,
        ny: 1,
        ..NodeCfg::default()
    };
    nodes[CORES + 1] = NodeCfg {
        op: Op::Stg as u8,
        m: 2,
        src: [Source::Fifo(0).code() as u8, Source::Fifo(1).code() as u8, 0],
        fifo_lane: [1, 1, 0],
        ..NodeCfg::default()
    };
    nodes
}

#[test]
fn flow_runs_and_stores_every_token() {
    let cfg = crate::config::SmConfig::load("gpucc").unwrap();
    let net = Network::build(&counter_store(10), &cfg).unwrap();
    let mut mem = vec![0u8; 64];
    let st = Flow::new(&net, flavor_of(&cfg)).run(&mut mem, 1000, None).unwrap();
    for k in 0..10u32 {
        assert_eq!(mem[4 * k as usize..4 * k as usize + 4], k.to_le_bytes());
    }
    assert_eq!((st.firings[0], st.firings[CORES + 1], st.stores), (10, 10, 10));
}

#[test]
fn flow_deadlock_lists_every_node_and_its_block() {
    let cfg = crate::config::SmConfig::load("gpucc").unwrap();
    // core0 sends 40 tokens, core1 (counted, 2 firings) consumes 2 of them
    // and stores: core0 fills core1's FIFO (16) and waits forever.
    let mut nodes = counter_store(2);
    nodes[0].nx = 40;
    nodes[1] = NodeCfg {
        op: Op::Iadd as u8,
        src: [Source::Fifo(0).code() as u8, Source::Zero.code() as u8, 0],
        fifo_lane: [1, 0, 0],
        out_lane: 2,
        counter: true,
        nx: 2,
        ny: 1,
        ..NodeCfg::default()
    };
    nodes[CORES + 1].fifo_lane = [2, 2, 0];
    let net = Network::build(&nodes, &cfg).unwrap();
    let mut mem = vec![0u8; 64];
    let e = Flow::new(&net, flavor_of(&cfg)).run(&mut mem, 1000, None).unwrap_err();
    assert!(e.starts_with("GPU-CC deadlock"), "{e}");
    assert!(
        e.contains("core0") && e.contains("output full (core1 FIFO 0 holds 16/16)"),
        "{e}"
    );
    assert!(e.contains("core1") && e.contains("done"), "{e}");
    assert!(e.contains("lsu1") && e.contains("input FIFO 0 empty"), "{e}");
}

#[test]
fn flow_runaway_is_an_error() {
    let cfg = crate::config::SmConfig::load("gpucc").unwrap();
    let net = Network::build(&counter_store(1000), &cfg).unwrap();
    let mut mem = vec![0u8; 4096];
    let e = Flow::new(&net, flavor_of(&cfg)).run(&mut mem, 100, None).unwrap_err();
    assert!(e.contains("runaway") && e.contains("100 firings"), "{e}");
}

#[test]
fn network_rejects_bad_words() {
    let cfg = crate::config::SmConfig::load("gpucc").unwrap();
    let mut nodes = counter_store(2);
    nodes[CORES + 1].fifo_lane = [3, 3, 0];
    let e = Network::build(&nodes, &cfg).unwrap_err();
    assert!(e.contains("lsu1") && e.contains("no node upstream drives it"), "{e}");
    let fermi = crate::config::SmConfig::load("fermi").unwrap();
    let e = Network::build(&counter_store(2), &fermi).unwrap_err();
    assert!(e.contains("no GPU-CC network"), "{e}");
    let mut nodes = counter_store(2);
    nodes[0].op = Op::Fmad as u8;
    let e = Network::build(&nodes, &cfg).unwrap_err();
    assert!(e.contains("core0") && e.contains("FMAD"), "{e}");
}

/// `node[-k]`: the FIFO gets k initial tokens (counter word bits 21..17 for
/// FIFO 0), the node is counted; the same node read with two delays takes
/// two FIFOs.
#[test]
fn delayed_sources_assemble_to_initial_tokens() {
    let code = ok("grid 6, 1\ncore0 IADD x, 100 -> A\ncore1 IADD core0[-2], core0[-3] -> B\ncore2 IMAD y, 6, x -> C\nlsu2 STG [core2*4], core1");
    let mut c = NodeCfg::default();
    for (i, _) in code.iter().filter(|(i, _)| i.op == Op::Gcset && i.d == 1) {
        match (i.a, i.b) {
            (0, Src::Imm(v)) => c.set_op_word(v),
            (1, Src::Imm(v)) => c.set_counter_word(v),
            _ => {}
        }
    }
    assert_eq!((c.counter, c.delay, c.fifo_lane), (true, [2, 3, 0], [1, 1, 0]));
    let w = c.counter_word();
    assert_eq!((w & 1, w >> 17 & 31, w >> 22 & 31, w >> 27 & 31), (1, 2, 3, 0));
    // Same delay, same FIFO.
    let code = ok("grid 6, 1\ncore0 IADD x, 100 -> A\ncore1 IMUL core0[-4], core0[-4] -> B\ncore2 IMAD y, 6, x -> C\nlsu2 STG [core2*4], core1");
    let op1 = code
        .iter()
        .find(|(i, _)| i.op == Op::Gcset && i.d == 1 && i.a == 0)
        .unwrap()
        .0;
    let mut c = NodeCfg::default();
    c.set_op_word(match op1.b {
        Src::Imm(v) => v,
        _ => panic!(),
    });
    assert_eq!(c.fifo_lane, [1, 0, 0]);
}

#[test]
fn delayed_source_errors_name_the_line() {
    let (l, m) = first_err("grid 6, 1\ncore0 IADD x, 1 -> A\ncore1 IADD core0[-32], 0 -> B");
    assert_eq!(l, 3, "{m}");
    assert!(m.contains("a delay is 1..=31"), "{m}");
    let (l, m) = first_err("grid 6, 1\ncore0 IADD x, 1 -> A\ncore1 IADD core0[2], 0 -> B");
    assert_eq!(l, 3, "{m}");
    assert!(m.contains("expected a delay [-k]"), "{m}");
    let (l, m) = first_err("grid 6, 1\ncore0 IADD x, 1 -> A\ncore1 IADD core0.F0[-2], core0.F0 -> B");
    assert_eq!(l, 3, "{m}");
    assert!(m.contains("initial token"), "{m}");
    let cfg = crate::config::SmConfig::load("gpucc").unwrap();
    // Network::build: delays only on counted cores whose operand reads the FIFO.
    let mut nodes = counter_store(4);
    nodes[CORES + 1].delay = [1, 0, 0];
    let e = Network::build(&nodes, &cfg).unwrap_err();
    assert!(e.contains("lsu1") && e.contains("only cores"), "{e}");
    let mut nodes = delayed_chain(4, 2);
    nodes[1].counter = false;
    let e = Network::build(&nodes, &cfg).unwrap_err();
    assert!(e.contains("core1") && e.contains("counter is off"), "{e}");
    let mut nodes = delayed_chain(4, 2);
    nodes[1].delay = [2, 3, 0];
    let e = Network::build(&nodes, &cfg).unwrap_err();
    assert!(e.contains("core1") && e.contains("FIFO 1 has initial tokens"), "{e}");
}

/// core0: x for x in 0..n (counted, n firings); core1 (counted, n
/// firings): `x*1 + 0` of core0 read `k` firings late; lsu1 stores it at
/// word x.
fn delayed_chain(n: u32, k: u8) -> Vec<NodeCfg> {
    let mut nodes = counter_store(n);
    nodes[1] = NodeCfg {
        op: Op::Iadd as u8,
        src: [Source::Fifo(0).code() as u8, Source::Zero.code() as u8, 0],
        fifo_lane: [1, 0, 0],
        out_lane: 2,
        counter: true,
        nx: n,
        ny: 1,
        delay: [k, 0, 0],
        ..NodeCfg::default()
    };
    nodes[CORES + 1].fifo_lane = [1, 2, 0];
    nodes
}

/// The value read k firings late, 0 before; the unread tokens dropped at
/// the end, also when the node fires fewer times than its delay.
#[test]
fn flow_delays_and_drops() {
    let cfg = crate::config::SmConfig::load("gpucc").unwrap();
    for (n, k) in [(10u32, 3u8), (40, 31), (10, 15), (2, 5), (1, 1)] {
        let net = Network::build(&delayed_chain(n, k), &cfg).unwrap();
        let mut mem = vec![0xffu8; 256];
        let st = Flow::new(&net, flavor_of(&cfg))
            .run(&mut mem, 1000, None)
            .unwrap_or_else(|e| panic!("n {n} k {k}: {e}"));
        for x in 0..n {
            let want = x.saturating_sub(k as u32);
            let at = 4 * x as usize;
            assert_eq!(mem[at..at + 4], want.to_le_bytes(), "n {n} k {k} x {x}");
        }
        assert_eq!(st.firings[1], n as u64);
    }
}
