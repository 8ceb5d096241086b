//! The golden functional model: the oracle every RTL block and the SM top
//! are checked against.
//!
//! * [`arith`]: reference arithmetic written for clarity: Tesla FADD/FMUL/
//!   FMAD, IEEE 754-2008 FP32/FP64 add/mul/FMA with every rounding mode and
//!   flag, conversions, and the SFU's table-interpolation algorithm.
//! * [`isa`]: the one description of the instruction set (opcodes, operand
//!   forms, modifiers, the 64-bit encoding) that the assembler, the
//!   disassembler, the golden model and the RTL decoder all use.
//! * [`asm`]: assembler and disassembler (text <-> [`isa::Program`]).
//! * [`gpucc`]: GPU-CC configurations, their text format and the golden
//!   dataflow model of GPU-CC mode (`docs/gpucc.md`).
//! * [`model`]: the SIMT interpreter: a grid of CTAs, warps of 32, a
//!   reconvergence stack, barriers, shared and global memory.
//! * [`testfloat`]: the Berkeley TestFloat-compatible vector checker behind
//!   `smrtl testfloat`.

pub mod arith;
pub mod asm;
pub mod gpucc;
pub mod isa;
pub mod model;
pub mod testfloat;
