//! Assembler, disassembler and binary format: the round trip over random
//! instruction streams (proptest), a fixed point on a kernel that uses every
//! opcode, one test per class of bad input (line, column and message), and
//! the `smrtl asm` / `smrtl disasm` command line.

use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use smrtl::golden::asm::{assemble, disassemble, format_instr, source_from_bytes, AsmError, BinError};
use smrtl::golden::isa::{Form, Guard, Instr, IsaError, ModKind, Op, Program, Src, PT, RZ};
use std::collections::BTreeSet;
use std::process::{Command, Output};

// ---------------------------------------------------------------------------
// Random valid programs
// ---------------------------------------------------------------------------

/// A random register below `regs` (even with room for its partner when
/// `pair`), or sometimes RZ.
fn reg(rng: &mut SmallRng, regs: u32, pair: bool) -> u8 {
    let room = if pair { regs / 2 } else { regs };
    if room == 0 || rng.gen_bool(0.08) {
        return RZ;
    }
    let r = rng.gen_range(0..room) as u8;
    if pair {
        2 * r
    } else {
        r
    }
}

/// A random instruction of opcode `op` that validates and uses registers
/// below `regs`; branch targets inside `0..len`.
fn random_instr(rng: &mut SmallRng, op: Op, regs: u32, len: u32) -> Instr {
    let info = op.info();
    let uses = info.form.uses();
    loop {
        let mut i = Instr::new(op);
        if !matches!(op, Op::Ssy | Op::Sync | Op::Bar) && rng.gen_bool(0.5) {
            let pred = if rng.gen_bool(0.2) { PT } else { rng.gen_range(0..4) };
            i.guard = Guard {
                pred,
                neg: pred != PT && rng.gen(),
            };
        }
        i.m = rng.gen_range(0..16);
        if info.form == Form::PPP {
            let mut p = || [0, 1, 2, 3, PT][rng.gen_range(0..5)];
            i.d = p();
            i.a = p();
            i.b = Src::Reg(p());
            if i.validate().is_ok() {
                return i;
            }
            continue;
        }
        let wide = info.modk == ModKind::Width && i.m & 1 == 1;
        i.d = if info.form == Form::PAB {
            if rng.gen_bool(0.2) {
                PT
            } else {
                rng.gen_range(0..4)
            }
        } else if uses.d {
            reg(rng, regs, info.pairs.d || (wide && info.form == Form::Load))
        } else {
            0
        };
        i.a = if uses.a { reg(rng, regs, info.pairs.a) } else { 0 };
        if info.form == Form::Target {
            // Targets outside the program are assembly errors (and the
            // loader rejects them), so stay inside it.
            i.b = Src::Imm(rng.gen_range(0..len.max(1)));
        } else if uses.b && info.allows_imm() && rng.gen_bool(0.4) {
            i.b = Src::Imm(rng.gen());
        } else if uses.b {
            i.b = Src::Reg(reg(rng, regs, info.pairs.b || (wide && info.form == Form::Store)));
            if uses.c && !(info.form == Form::Atom && i.m != 4) {
                i.c = reg(rng, regs, info.pairs.c);
            }
            if uses.e {
                i.e = if info.form == Form::Sreg {
                    rng.gen_range(0..13)
                } else {
                    rng.gen()
                };
            }
        } else if uses.e {
            i.e = if info.form == Form::Sreg {
                rng.gen_range(0..13)
            } else {
                rng.gen()
            };
        }
        if i.validate().is_ok() {
            return i;
        }
    }
}

fn random_program(seed: u64, len: usize) -> Program {
    let mut rng = SmallRng::seed_from_u64(seed);
    let regs = if rng.gen_bool(0.1) {
        rng.gen_range(1..=3)
    } else {
        rng.gen_range(1..=128)
    };
    let nparams = rng.gen_range(0..5);
    let params = (0..nparams)
        .map(|k| format!("p{k}_{}", rng.gen_range(0..100)))
        .collect();
    let code = (0..len)
        .map(|_| {
            let op = Op::ALL[rng.gen_range(0..Op::ALL.len())];
            random_instr(&mut rng, op, regs, len as u32)
        })
        .collect();
    Program {
        name: format!("k{}", rng.gen_range(0..1000)),
        regs,
        shared_bytes: if rng.gen() { 0 } else { rng.gen() },
        params,
        code,
        src_lines: Vec::new(),
    }
}

fn assert_same_program(q: &Program, p: &Program) {
    assert_eq!(q.name, p.name);
    assert_eq!(q.regs, p.regs);
    assert_eq!(q.shared_bytes, p.shared_bytes);
    assert_eq!(q.params, p.params);
    let words = |p: &Program| p.code.iter().map(|i| i.encode()).collect::<Vec<_>>();
    assert_eq!(words(q), words(p));
    assert_eq!(q.code, p.code);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Program -> binary -> Program -> text -> Program: identical words and
    /// directives.
    #[test]
    fn round_trip_random_streams(seed in any::<u64>(), len in 0usize..80) {
        let p = random_program(seed, len);
        let bytes = p.to_bytes();
        let b = Program::from_bytes(&bytes).expect("from_bytes of to_bytes");
        assert_same_program(&b, &p);
        let text = disassemble(&b);
        let q = match assemble(&text, "rt.s") {
            Ok(q) => q,
            Err(e) => panic!("{}\n--- text ---\n{text}", e.render(&text)),
        };
        assert_same_program(&q, &p);
        prop_assert_eq!(q.to_bytes(), bytes);
        prop_assert_eq!(disassemble(&q), text);
    }
}

/// Token soup: the assembler returns a program or an error, never panics,
/// and every error points inside the source.
fn soup() -> impl Strategy<Value = String> {
    let tok = prop::sample::select(vec![
        "R1",
        "R127",
        "R128",
        "RZ",
        "P0",
        "PT",
        "!",
        "@",
        "-",
        "+",
        ",",
        "[",
        "]",
        ":",
        "c",
        "c[",
        "0x10",
        "7",
        "-3",
        "1.5",
        "1e",
        "inf",
        "nan",
        "FADD.RZ",
        "FFMA",
        "IMUL.HI.U32",
        "ISETP.LT.U32",
        "SEL",
        "LDG.64",
        "STS",
        "ATOMS.CAS",
        "S2R",
        "SR_TID.X",
        "LDC",
        "BRA",
        "SSY",
        "SYNC",
        "EXIT",
        "lbl",
        "lbl:",
        ".regs",
        ".param",
        ".kernel",
        ".shared",
        "; c",
        "//",
        "\t",
        "\u{e9}",
        "99999999999999999999999",
        "0x",
        ".5",
        "DADD",
        "R3",
    ]);
    prop::collection::vec(prop::collection::vec(tok, 0..8).prop_map(|v| v.join(" ")), 0..12)
        .prop_map(|lines| format!(".regs 8\n{}", lines.join("\n")))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn garbage_text_never_panics(src in soup()) {
        if let Err(e) = assemble(&src, "g.s") {
            let n = src.lines().count() as u32;
            prop_assert!(e.line >= 1 && e.line <= n.max(1), "{e}");
            let len = src.lines().nth(e.line as usize - 1).map_or(0, |l| l.chars().count()) as u32;
            prop_assert!(e.col >= 1 && e.col <= len + 1, "{e}");
            let _ = e.render(&src);
        }
    }

    #[test]
    fn damaged_binaries_never_panic(seed in any::<u64>(), flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..4), cut in any::<usize>()) {
        let b = random_program(seed, 8).to_bytes();
        let mut v = b.clone();
        for (at, x) in flips {
            let n = v.len();
            v[at % n] ^= x;
        }
        let _ = Program::from_bytes(&v);
        let _ = Program::from_bytes(&b[..cut % (b.len() + 1)]);
    }
}

/// Many more random programs than the proptest (run with `--ignored`).
#[test]
#[ignore]
fn round_trip_random_streams_long() {
    let t = std::time::Instant::now();
    let mut instrs = 0;
    for seed in 0..20_000u64 {
        let p = random_program(seed ^ 0x5eed, (seed % 200) as usize);
        instrs += p.code.len();
        let q = assemble(&disassemble(&Program::from_bytes(&p.to_bytes()).unwrap()), "l.s").unwrap();
        assert_same_program(&q, &p);
    }
    eprintln!(
        "20000 programs, {instrs} instructions round-tripped in {:.1?}",
        t.elapsed()
    );
}

/// The first example of docs/isa.md's syntax section assembles.
#[test]
fn docs_syntax_example_assembles() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/isa.md")).unwrap();
    let start = doc.find("```asm\n").expect("an asm block") + 7;
    let text = &doc[start..start + doc[start..].find("```").unwrap()];
    let p = assemble(text, "doc.s").unwrap_or_else(|e| panic!("{}", e.render(text)));
    assert_eq!(
        (p.name.as_str(), p.regs, p.shared_bytes, p.code.len()),
        ("vadd", 8, 4096, 5)
    );
    assert_eq!(p.params, ["a", "n"]);
}

/// The generator reaches every opcode and every valid modifier value of
/// each (so the round trip above covers the whole table).
#[test]
fn generator_covers_every_opcode_and_modifier() {
    let mut seen = BTreeSet::new();
    let mut rng = SmallRng::seed_from_u64(1);
    for &op in Op::ALL {
        for _ in 0..400 {
            let i = random_instr(&mut rng, op, 128, 10);
            seen.insert((op as u8, i.m));
        }
    }
    for &op in Op::ALL {
        for m in 0..16u8 {
            let mut i = Instr::new(op);
            i.m = m;
            if op.info().form == Form::Target {
                i.b = Src::Imm(0);
            }
            if i.validate().is_ok() {
                assert!(seen.contains(&(op as u8, m)), "{op} with modifier {m} never generated");
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Text fixed point on a kernel with every opcode
// ---------------------------------------------------------------------------

const EVERY_OP: &str = "\
; every opcode at least once
.kernel every_op
.regs 16
.shared 256
.param src
.param n
        S2R R0, SR_TID.X
        LDC R1, c[src]
        LDC R2, c[R0+n]
        nop
start:  IADD R3, R0, 1
        ISUB R3, R3, -5
        IMUL.HI R4, R3, R0
        IMAD.U24 R4, R3, R0, R4
        IMIN.U32 R5, R4, 0xff
        IMAX R5, R5, R3
        SHL R6, R5, 2
        SHR.S32 R6, R6, 1
        AND R7, R6, R5
        OR R7, R7, 0x10
        XOR R7, R7, R6
        NOT R8, R7
        IABS R8, R8
        ISETP.GE.U32 P0, R8, R2
        SEL R9, R8, R7, !P0
        PSETP.XOR P3, !P0, PT
        IMAD.HI R4, R3, 0x100, R4
        @!P0 BRA skip          // forward reference
        FADD.RZ R9, -R9, 1.5
        FMUL R9, R9, -2e-3
        FMAD R10, -R9, R9, R10
        FFMA.RP R10, R9, R9, -R10
        FMIN R10, R10, inf
        FMAX R10, R10, -inf
        FSETP.LTU P1, R10, 0.0
skip:   RCP R11, R10
        RSQ R11, R11
        LG2 R11, R11
        PREEX2 R11, R11
        EX2 R11, R11
        PRESIN R11, R11
        SIN R12, R11
        COS R13, R11
        I2D.RM R2, R0
        DADD R4, R2, R2
        DMUL.RZ R4, R4, R2
        DFMA R4, -R4, R2, -R4
        DSETP.NEU P2, R4, R2
        D2I.RZ.U32 R6, R4
        D2F.RP R7, R4
        F2D R8, R7
        I2F.RN.U32 R9, R0
        F2I.RZ R9, R9
        MOV R10, 0x3f800000
        MOV R10, 1.0
        SSY join
        @P1 LDG R10, [R1+16]
        @P1 STG [R1-0x8], R10
        LDG.64 R12, [R1]
        STG.64 [R1+8], R12
        ATOMG.ADD R11, [R1], R10
        LDS R10, [0x40]
        STS [R0+4], R10
        ATOMS.CAS R11, [RZ+0x80], R10, R9
        ATOMS.XOR R11, [R0], R10
        MEMBAR
        MEMBAR.GL
        SYNC
join:   BAR
        GCSET 3, 2, R5              // GPU-CC: node 3's immediate from R5
        GCSET 47, 0, 0x20001aa3
        GCRUN
        @P2 EXIT
        BRA start
        EXIT
";

#[test]
fn every_opcode_kernel_is_a_fixed_point() {
    let p = assemble(EVERY_OP, "every.s").unwrap_or_else(|e| panic!("{}", e.render(EVERY_OP)));
    let used: BTreeSet<u8> = p.code.iter().map(|i| i.op as u8).collect();
    let all: BTreeSet<u8> = Op::ALL.iter().map(|&o| o as u8).collect();
    assert_eq!(used, all, "the kernel must use every opcode");
    assert_eq!(p.name, "every_op");
    assert_eq!((p.regs, p.shared_bytes), (16, 256));
    assert_eq!(p.params, ["src", "n"]);
    let t1 = disassemble(&p);
    let q = assemble(&t1, "every.dis").unwrap_or_else(|e| panic!("{}", e.render(&t1)));
    assert_same_program(&q, &p);
    assert_eq!(disassemble(&q), t1);
    // Source lines are kept for the golden model's messages.
    assert_eq!(p.src_lines[0], 7);
    assert_eq!(p.src_lines.len(), p.code.len());
}

/// Words worked out by hand from the field diagram in isa.rs (not from
/// the encoder).
#[test]
fn hand_encoded_words() {
    let p = assemble(
        ".regs 16\nIADD R1, R2, 0x10\n@!P1 FFMA R2, R4, R6, -R8\nLDG.64 R2, [R4-8]\nBRA 3\nS2R R0, SR_LANEID\n",
        "w.s",
    )
    .unwrap();
    let w: Vec<u64> = p.code.iter().map(|i| i.encode()).collect();
    // opcode<<57 | I<<56 | N<<55 | pred<<52 | m<<48 | d<<40 | a<<32 | low 32
    assert_eq!(w[0], 0x01 << 57 | 1 << 56 | 7 << 52 | 1 << 40 | 2 << 32 | 0x10);
    assert_eq!(
        w[1],
        0x23 << 57 | 1 << 55 | 1 << 52 | 8 << 48 | 2 << 40 | 4 << 32 | 6 << 24 | 8 << 16
    );
    assert_eq!(w[2], 0x58 << 57 | 7 << 52 | 1 << 48 | 2 << 40 | 4 << 32 | 0xfff8);
    assert_eq!(w[3], 0x60 << 57 | 1 << 56 | 7 << 52 | 3);
    assert_eq!(w[4], 0x51 << 57 | 7 << 52 | 10);
}

#[test]
fn float_literals_are_fp32_bits_rounded_to_nearest() {
    let p = assemble(
        ".regs 4\nFADD R1, R1, 1.5\nFADD R1, R1, -2e-3\nFMUL R1, R1, 0.1\nMOV R1, nan\nFMAX R1, R1, 1e40\n",
        "f.s",
    )
    .unwrap();
    let imm: Vec<u32> = p
        .code
        .iter()
        .map(|i| match i.b {
            Src::Imm(v) => v,
            Src::Reg(_) => panic!("expected an immediate"),
        })
        .collect();
    // 1.5 = 0x3fc00000; -0.002 rounds to 0xbb03126f; 0.1 rounds to
    // 0x3dcccccd; 1e40 overflows to +inf.
    assert_eq!(imm, [0x3fc0_0000, 0xbb03_126f, 0x3dcc_cccd, 0x7fc0_0000, 0x7f80_0000]);
}

#[test]
fn format_instr_without_labels() {
    let p = assemble(".regs 4\nloop: @!P2 BRA loop\nSEL R1, R2, 7, PT\n", "f.s").unwrap();
    assert_eq!(format_instr(&p.code[0], None), "@!P2 BRA 0");
    assert_eq!(format_instr(&p.code[1], None), "SEL R1, R2, 0x7, PT");
}

// ---------------------------------------------------------------------------
// Bad input: one test per class, asserting line, column and message
// ---------------------------------------------------------------------------

fn err(src: &str) -> AsmError {
    match assemble(src, "bad.s") {
        Ok(p) => panic!("expected an error, assembled {} instructions", p.code.len()),
        Err(e) => e,
    }
}

#[track_caller]
fn check(src: &str, line: u32, col: u32, needles: &[&str]) {
    let e = err(src);
    assert_eq!(e.file, "bad.s");
    assert_eq!((e.line, e.col), (line, col), "wrong place for: {e}");
    for n in needles {
        assert!(e.msg.contains(n), "message lacks `{n}`: {e}");
    }
    assert_eq!(e.to_string(), format!("bad.s:{line}:{col}: {}", e.msg));
}

#[test]
fn bad_unknown_mnemonic_suggests_nearest() {
    check(
        ".regs 4\n    FMULL R1, R2, R3\n",
        2,
        5,
        &["unknown mnemonic 'FMULL'", "did you mean FMUL"],
    );
    check(".regs 4\nfrobnicate\n", 2, 1, &["unknown mnemonic 'FROBNICATE'"]);
    check(".regs 4\nISTEP.EQ P0, R1, R2\n", 2, 1, &["did you mean ISETP"]);
    // No far-fetched suggestion.
    assert!(!err(".regs 4\nFOO R1\n").msg.contains("did you mean"));
}

#[test]
fn bad_modifiers() {
    // Unknown, with the allowed list of the opcode's modifier kind.
    check(
        ".regs 4\nFADD.RX R1, R2, R3\n",
        2,
        5,
        &["unknown modifier .RX for FADD", ".RN .RZ .RM .RP"],
    );
    check(
        ".regs 4\nIADD.U32 R1, R2, R3\n",
        2,
        5,
        &["unknown modifier .U32 for IADD", "allowed: none"],
    );
    // Duplicate.
    check(".regs 4\nISETP.EQ.EQ P0, R1, R2\n", 2, 9, &["duplicate modifier .EQ"]);
    // Conflicting.
    check(".regs 4\nFMUL.RZ.RM R1, R2, R3\n", 2, 8, &["conflicts with .RZ"]);
    // Out of order.
    check(".regs 4\nISETP.U32.LT P0, R1, R2\n", 2, 10, &["out of order", ".U32"]);
    // Missing required.
    check(
        ".regs 4\nISETP P0, R1, R2\n",
        2,
        1,
        &["ISETP needs a modifier", ".EQ .NE .LT .LE .GT .GE"],
    );
    check(
        ".regs 4\nATOMS R1, [R2], R3\n",
        2,
        1,
        &["ATOMS needs a modifier", ".CAS"],
    );
    // Encodable only in some combinations.
    check(".regs 4\nIMUL.U32 R1, R2, R3\n", 2, 1, &["`.U32` only follows `.HI`"]);
    // FMAD rounds to nearest only.
    check(
        ".regs 4\nFMAD.RZ R1, R2, R3, R0\n",
        2,
        5,
        &["unknown modifier .RZ for FMAD", "optional .RN"],
    );
}

#[test]
fn bad_operand_count() {
    check(
        ".regs 4\nIADD R1, R2\n",
        2,
        1,
        &["IADD takes 3 operands (d, a, b), found 2"],
    );
    check(".regs 4\nMOV R1, R2, R3\n", 2, 13, &["MOV takes 2 operands", "found 3"]);
    check(".regs 4\nATOMS.ADD R1, [R2], R3, R0\n", 2, 25, &["takes 3 operands"]);
    check(
        ".regs 4\nATOMS.CAS R1, [R2], R3\n",
        2,
        1,
        &["takes 4 operands (d, [a+offset], b, c)"],
    );
    check(".regs 4\nIADD R1, , R2\n", 2, 10, &["missing operand"]);
}

#[test]
fn bad_operand_kind() {
    check(
        // IMAD takes an immediate (with c = d); FFMA does not.
        ".regs 4\nFFMA R1, R2, 5, R3\n",
        2,
        14,
        &["expected a register for operand b", "immediate 5"],
    );
    check(
        ".regs 4\nIADD R1, foo, R2\n",
        2,
        10,
        &["expected a register for operand a, found 'foo'"],
    );
    check(
        ".regs 4\nIADD P1, R1, R2\n",
        2,
        6,
        &["expected a register for operand d, found predicate P1"],
    );
    check(
        ".regs 4\nISETP.EQ R1, R1, R2\n",
        2,
        10,
        &["expected a predicate", "found register R1"],
    );
    check(
        ".regs 4\nLDG R1, R2\n",
        2,
        9,
        &["expected a memory operand like [R4+16], found 'R2'"],
    );
    check(".regs 4\nLDG R1, []\n", 2, 10, &["empty memory operand"]);
    check(
        ".regs 4\nLDC R1, [R2]\n",
        2,
        9,
        &["expected a parameter operand like c[n]"],
    );
    check(
        ".regs 4\nIADD R1, R200, R2\n",
        2,
        10,
        &["R200 is not a register", "R0-R127"],
    );
    check(".regs 4\n@P4 EXIT\n", 2, 2, &["P4 is not a predicate"]);
    check(
        ".regs 4\nIADD R1, R2, 1.5\n",
        2,
        14,
        &["float literal 1.5 is only allowed on FP32"],
    );
    check(".regs 4\nIADD R1, R2, R3 R0\n", 2, 17, &["unexpected 'R0'"]);
    check(".regs 4\nIADD R1, R2, R3 # x\n", 2, 17, &["unexpected character '#'"]);
}

#[test]
fn bad_register_beyond_regs() {
    check(".regs 8\nIADD R1, R12, R2\n", 2, 10, &["R12 but .regs 8"]);
    // A pair needs both registers.
    check(
        ".regs 8\nDADD R6, R2, R4\nDADD R2, R4, R8\n",
        3,
        14,
        &["register pair R8:R9 but .regs 8"],
    );
    check(".regs 7\nLDG.64 R6, [R0]\n", 2, 8, &["register pair R6:R7 but .regs 7"]);
    // `.regs` may come after the code.
    check("IADD R1, R2, R9\n.regs 8\n", 1, 14, &["R9 but .regs 8"]);
}

#[test]
fn bad_odd_pair() {
    check(
        ".regs 16\nDADD R2, R3, R4\n",
        2,
        10,
        &["operand a of DADD", "even register, found R3"],
    );
    check(".regs 16\nSTS.64 [R0], R5\n", 2, 14, &["operand b of STS", "found R5"]);
}

#[test]
fn bad_immediate_range() {
    check(
        ".regs 4\nMOV R1, 4294967296\n",
        2,
        9,
        &["immediate 4294967296 does not fit in 32 bits"],
    );
    check(".regs 4\nMOV R1, -2147483649\n", 2, 9, &["does not fit in 32 bits"]);
    check(".regs 4\nMOV R1, 0x100000000\n", 2, 9, &["does not fit in 32 bits"]);
    check(
        ".regs 4\nLDS R1, [R2+32768]\n",
        2,
        13,
        &["offset 32768 is out of range", "-32768..=32767"],
    );
    check(".regs 4\nMOV R1, 12xy\n", 2, 9, &["malformed number '12xy'"]);
    check(
        ".regs 4\nMOV R1, 99999999999999999999999\n",
        2,
        9,
        &["does not fit in 32 bits"],
    );
    check(
        ".regs 4\nMOV R1, -99999999999999999999999\n",
        2,
        9,
        &["does not fit in 32 bits"],
    );
    check(
        ".regs 4\nLDC R1, c[70000]\n",
        2,
        11,
        &["word index 70000 is out of range"],
    );
    check(".regs 4\nBRA 0x100000000\n", 2, 5, &["does not fit in 32 bits"]);
}

#[test]
fn bad_labels() {
    check(
        ".regs 4\nBRA lop\nloop: EXIT\n",
        2,
        5,
        &["unknown label 'lop'", "did you mean loop"],
    );
    check(".regs 4\nx: NOP\nx: EXIT\n", 3, 1, &["duplicate label 'x'", "line 2"]);
    check(".regs 4\nBRA R1\n", 2, 5, &["unknown label 'R1'"]);
}

#[test]
fn bad_special_register_and_parameter() {
    check(
        ".regs 4\nS2R R1, SR_TID.W\n",
        2,
        9,
        &["unknown special register 'SR_TID.W'", "did you mean SR_TID"],
    );
    check(
        ".regs 4\n.param a\nLDC R1, c[b]\n",
        3,
        11,
        &["unknown parameter 'b'", "declared: a"],
    );
    check(
        ".regs 4\nLDC R1, c[R2+x]\n",
        2,
        14,
        &["unknown parameter 'x'", "no .param declared"],
    );
}

#[test]
fn bad_directives() {
    check("NOP\nEXIT\n", 1, 1, &["missing .regs directive"]);
    check(".regs 0\n", 1, 7, &[".regs 0 is out of range"]);
    check(".regs 200\n", 1, 7, &["out of range: 1..=128"]);
    check(".regs 4\n.regs 8\n", 2, 1, &["duplicate .regs (first at line 1)"]);
    check(".regs 4\n.param a\n.param a\n", 3, 8, &["duplicate parameter 'a'"]);
    check(".regs 4\n.param R3\n", 2, 8, &["looks like a register"]);
    check(
        ".regs 4\n.stack 64\n",
        2,
        1,
        &["unknown directive .stack", ".kernel .regs .shared .param"],
    );
    check(".regs\n", 1, 6, &[".regs needs a register count"]);
    check(".regs 4\n.shared 1 2\n", 2, 11, &["unexpected '2'"]);
}

#[test]
fn bad_negation_and_guards() {
    check(
        ".regs 4\nIADD R1, -R2, R3\n",
        2,
        10,
        &["operand a of IADD cannot be negated"],
    );
    check(
        ".regs 4\nFFMA R1, R2, -R3, R0\n",
        2,
        14,
        &["operand b of FFMA cannot be negated"],
    );
    check(".regs 4\nFSETP.LT P0, -R1, R2\n", 2, 14, &["cannot be negated"]);
    check(".regs 4\n@!PT NOP\n", 2, 1, &["@!PT"]);
    check(".regs 4\n@P0 SSY x\nx: SYNC\n", 2, 1, &["SSY", "cannot have a guard"]);
    check(
        ".regs 4\n  @!P1 SYNC\n",
        2,
        3,
        &["SYNC acts on the whole warp", "cannot have a guard"],
    );
    check(".regs 4\n@P3 BAR\n", 2, 1, &["BAR", "cannot have a guard"]);
    // @PT is no guard at all.
    assert!(assemble(".regs 4\n@PT SYNC\n@PT BAR\n", "ok.s").is_ok());
    check(".regs 4\n@R1 NOP\n", 2, 2, &["expected a guard predicate"]);
}

#[test]
fn several_errors_are_reported_in_order() {
    let src = ".regs 4\nFOO\nIADD R1, R9, R2\nBRA nowhere\n";
    let errs = smrtl::golden::asm::assemble_all(src, "m.s").unwrap_err();
    let places: Vec<(u32, u32)> = errs.iter().map(|e| (e.line, e.col)).collect();
    assert_eq!(places, [(2, 1), (3, 10), (4, 5)]);
}

#[test]
fn bad_binaries() {
    let p = assemble(".regs 4\n.param a\nMOV R1, 7\nEXIT\n", "b.s").unwrap();
    let b = p.to_bytes();
    assert_eq!(Program::from_bytes(b"ELF\x7f....."), Err(BinError::BadMagic));
    let mut v = b.clone();
    v[8] = 9;
    assert_eq!(Program::from_bytes(&v), Err(BinError::Version(9)));
    for cut in [10, 20, b.len() - 1] {
        let e = Program::from_bytes(&b[..cut]).unwrap_err();
        assert!(matches!(e, BinError::Truncated { .. }), "{e}");
    }
    // Word 0 with an unknown opcode (0x1f).
    let mut v = b.clone();
    let at = b.len() - 16;
    v[at..at + 8].copy_from_slice(&(0x1fu64 << 57).to_le_bytes());
    let e = Program::from_bytes(&v).unwrap_err();
    assert_eq!(
        e,
        BinError::Word {
            index: 0,
            word: 0x1f << 57,
            err: IsaError::UnknownOpcode(0x1f)
        }
    );
    assert!(e.to_string().contains("instruction word 0"), "{e}");
}

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

fn smrtl(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_smrtl")).args(args).output().unwrap()
}

#[test]
fn cli_asm_then_disasm() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("every.s");
    std::fs::write(&src, EVERY_OP).unwrap();
    let o = smrtl(&["asm", src.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let n = assemble(EVERY_OP, "x").unwrap().code.len();
    assert!(out.contains(&format!("{n} instructions")), "{out}");
    let bin = dir.path().join("every.bin");
    assert!(bin.exists());
    let o = smrtl(&["disasm", bin.to_str().unwrap()]);
    assert!(o.status.success());
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(text, disassemble(&assemble(EVERY_OP, "x").unwrap()));
    // -o for both.
    let bin2 = dir.path().join("o.bin");
    let txt = dir.path().join("o.s");
    assert!(smrtl(&["asm", src.to_str().unwrap(), "-o", bin2.to_str().unwrap()])
        .status
        .success());
    assert!(smrtl(&["disasm", bin2.to_str().unwrap(), "-o", txt.to_str().unwrap()])
        .status
        .success());
    assert_eq!(std::fs::read_to_string(&txt).unwrap(), text);
    assert_eq!(std::fs::read(&bin2).unwrap(), std::fs::read(&bin).unwrap());
}

#[test]
fn cli_disasm_words_still_assembles() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("w.s");
    std::fs::write(&src, ".regs 4\nloop: IADD R1, R2, 0x10\nBRA loop\n").unwrap();
    assert!(smrtl(&["asm", src.to_str().unwrap()]).status.success());
    let o = smrtl(&["disasm", "--words", dir.path().join("w.bin").to_str().unwrap()]);
    let text = String::from_utf8(o.stdout).unwrap();
    // IADD R1, R2, 0x10 by hand: opcode 0x01, I, pred 7, d 1, a 2, imm 0x10.
    assert!(text.contains("; 0000: 0x0370010200000010"), "{text}");
    let q = assemble(&text, "w.dis").unwrap();
    assert_eq!(
        q.code,
        assemble(".regs 4\nloop: IADD R1, R2, 0x10\nBRA loop\n", "w")
            .unwrap()
            .code
    );
}

#[test]
fn cli_asm_error_shows_place_and_caret() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("bad.s");
    std::fs::write(&src, ".regs 4\n    IADD R1, R2, R7\n").unwrap();
    let o = smrtl(&["asm", src.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(!e.contains("panicked"));
    let place = format!("{}:2:18: IADD uses R7 but .regs 4", src.display());
    assert!(e.contains(&place), "{e}");
    assert!(e.contains("\n    IADD R1, R2, R7\n                 ^"), "{e}");
    assert!(!dir.path().join("bad.bin").exists(), "nothing written on error");
}

#[test]
fn cli_disasm_rejects_bad_file() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("x.bin");
    std::fs::write(&f, b"not a program").unwrap();
    let o = smrtl(&["disasm", f.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1));
    assert!(e.contains("not an smrtl program file"), "{e}");
    let o = smrtl(&["asm", "/nonexistent/k.s"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot read /nonexistent/k.s"));
}

// ---------------------------------------------------------------------------
// Regressions (each failed before its fix)
// ---------------------------------------------------------------------------

#[test]
fn branch_and_ssy_targets_outside_the_program_are_errors() {
    let mut src = String::from(".regs 4\n");
    for _ in 0..18 {
        src.push_str("NOP\n");
    }
    src.push_str("BRA 1000\nEXIT\n");
    check(&src, 20, 5, &["BRA target 1000 is outside the program", "0..=19"]);
    check(".regs 4\nSSY 2\nEXIT\n", 2, 5, &["SSY target 2 is outside the program"]);
    // A label after the last instruction is past the end too.
    check(".regs 4\nBRA end\nEXIT\nend:\n", 2, 5, &["BRA target 2 is outside"]);
    // The rendered error carries the caret under the target.
    let e = err(".regs 4\nBRA 1000\nEXIT\n");
    assert!(e.render(".regs 4\nBRA 1000\nEXIT\n").ends_with("BRA 1000\n    ^"));
}

/// Write a program (built in memory, so the assembler's checks are not in
/// the way) and load it back.
fn load_built(p: &Program) -> Result<Program, BinError> {
    Program::from_bytes(&p.to_bytes())
}

#[test]
fn loader_rejects_what_the_assembler_cannot_express() {
    let ok = assemble(
        ".kernel k\n.regs 4\n.param a\n.param b\nMOV R1, 7\nBRA 0\nEXIT\n",
        "b.s",
    )
    .unwrap();
    assert!(load_built(&ok).is_ok());
    let mut p = ok.clone();
    p.params = vec!["a".into(), "a".into()];
    assert_eq!(load_built(&p), Err(BinError::DuplicateParam("a".into())));
    for bad in ["x y", "1a", "", "R3", "a\nEXIT"] {
        let mut p = ok.clone();
        p.params[1] = bad.into();
        let e = load_built(&p).unwrap_err();
        assert!(
            matches!(
                e,
                BinError::Name {
                    what: "parameter name",
                    ..
                }
            ),
            "{bad:?}: {e}"
        );
    }
    let mut p = ok.clone();
    p.name = "k;".into();
    assert!(matches!(
        load_built(&p),
        Err(BinError::Name {
            what: "kernel name",
            ..
        })
    ));
    // A register beyond .regs, and a branch outside the program.
    let mut p = ok.clone();
    p.code[0].d = 9;
    let e = load_built(&p).unwrap_err().to_string();
    assert!(
        e.contains("instruction 0") && e.contains("R9") && e.contains(".regs 4"),
        "{e}"
    );
    let mut p = ok.clone();
    p.code[1].b = Src::Imm(3);
    let e = load_built(&p).unwrap_err().to_string();
    assert!(e.contains("instruction 1") && e.contains("outside the program"), "{e}");
}

#[test]
fn cli_disasm_of_any_loadable_file_reassembles() {
    let dir = tempfile::tempdir().unwrap();
    let mut p = assemble(".regs 4\n.param a\nEXIT\n", "b.s").unwrap();
    p.params = vec!["not an identifier".into()];
    let bin = dir.path().join("p.bin");
    std::fs::write(&bin, p.to_bytes()).unwrap();
    let o = smrtl(&["disasm", bin.to_str().unwrap()]);
    assert!(!o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("parameter name") && e.contains("not an identifier"), "{e}");
}

#[test]
fn non_utf8_source_error_names_line_and_column() {
    let e = source_from_bytes(b".regs 4\nNOP\nMOV R1, \xff\nEXIT\n", "u.s").unwrap_err();
    assert_eq!((e.line, e.col), (3, 9), "{e}");
    assert!(e.to_string().starts_with("u.s:3:9:") && e.msg.contains("0xff"), "{e}");
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("u.s");
    std::fs::write(&f, b".regs 4\n\xc3(\nEXIT\n").unwrap();
    for cmd in ["asm", "run"] {
        let o = smrtl(&[cmd, f.to_str().unwrap()]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success() && e.contains("u.s:2:1:") && e.contains("UTF-8"),
            "{cmd}: {e}"
        );
    }
}

// ---------------------------------------------------------------------------
// PSETP and IMAD with an immediate
// ---------------------------------------------------------------------------

#[test]
fn psetp_and_imad_immediate_assemble_encode_and_print() {
    let p = asm_ok(".regs 8\nPSETP.AND P1, !P0, P2\nPSETP.OR PT, P3, !PT\n@P1 IMAD R3, R1, 0x10, R3\nIMAD.U24 R4, R1, -1, R4\nEXIT\n");
    let i = p.code[0];
    assert_eq!((i.op, i.d, i.a, i.b, i.m), (Op::Psetp, 1, 0, Src::Reg(2), 4));
    // Hand-encoded from the field diagram: opcode 0x10, pred PT, m = 4, d = 1, a = 0, b = 2.
    assert_eq!(i.encode(), 0x10u64 << 57 | 7 << 52 | 4 << 48 | 1 << 40 | 2 << 24);
    assert_eq!(p.code[1].m, 1 | 8);
    let k = p.code[2];
    assert_eq!((k.op, k.d, k.a, k.b, k.c), (Op::Imad, 3, 1, Src::Imm(0x10), 0));
    assert_eq!(k.addend(), 3);
    assert_eq!(k.encode(), 0x04u64 << 57 | 1 << 56 | 1 << 52 | 3 << 40 | 1 << 32 | 0x10);
    assert_eq!(p.code[3].b, Src::Imm(0xffff_ffff));
    let text = disassemble(&p);
    assert!(text.contains("PSETP.AND P1, !P0, P2"), "{text}");
    assert!(text.contains("PSETP.OR PT, P3, !PT"), "{text}");
    assert!(text.contains("@P1 IMAD R3, R1, 0x10, R3"), "{text}");
    assert!(text.contains("IMAD.U24 R4, R1, 0xffffffff, R4"), "{text}");
    assert_eq!(assemble(&text, "rt.s").unwrap().to_bytes(), p.to_bytes());
    for w in p.code.iter().map(|i| i.encode()) {
        assert_eq!(Instr::decode(w).unwrap().encode(), w);
    }
}

fn asm_ok(s: &str) -> Program {
    assemble(s, "t.s").unwrap_or_else(|e| panic!("{}", e.render(s)))
}

#[test]
fn bad_psetp_and_imad_immediate() {
    check(
        ".regs 8\nIMAD R3, R1, 0x10, R4\n",
        2,
        20,
        &["adds into its destination", "must be R3"],
    );
    check(
        ".regs 8\nPSETP.AND P1, R0, P2\n",
        2,
        15,
        &["expected a predicate", "R0"],
    );
    let e = err(".regs 8\nPSETP P1, P0, P2\n");
    assert!(e.line == 2 && e.msg.contains(".AND"), "{e}");
    check(".regs 8\nPSETP.AND !P1, P0, P2\n", 2, 11, &["predicate"]);
    check(".regs 8\nPSETP.AND P1, P0, 1\n", 2, 19, &["predicate"]);
    // Words the table rejects: modifier 3 (no operation), a predicate 5.
    let ok = Instr::decode(0x10u64 << 57 | 7 << 52 | 1 << 40 | 2 << 24).unwrap();
    assert_eq!(ok.plogic(), smrtl::golden::isa::PLogic::And);
    assert!(Instr::decode(0x10u64 << 57 | 7 << 52 | 3 << 48).is_err());
    assert!(Instr::decode(0x10u64 << 57 | 7 << 52 | 5 << 32).is_err());
    assert!(Instr::decode(0x10u64 << 57 | 1 << 56 | 7 << 52).is_err());
    // IMAD's immediate form has no c field: a word with c bits set reads them as the immediate.
    let w = 0x04u64 << 57 | 1 << 56 | 7 << 52 | 3 << 40 | 0x00ff_0000;
    assert_eq!(Instr::decode(w).unwrap().b, Src::Imm(0x00ff_0000));
}
