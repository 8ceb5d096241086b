//! Assembler and disassembler (issue 4). Placeholder: filled in by the assembler work.
