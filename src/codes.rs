//! The SM's numeric codes in one place, with the names reports print:
//! error codes (`err_code_o`, docs/sm.md section 7), error sources
//! (`err_src_o`: which block raised the latched error) and stall causes
//! (`stall<s>_o`: why a scheduler did not issue). Blocks raise the error
//! codes; the SM top latches them with their source; the runner and the
//! report name them. Opcodes and unit codes come from the ISA table
//! (`golden::isa::Op`, `golden::isa::Unit`), not from here.

/// An instruction the unit or preset does not implement.
pub const ERR_OP: u64 = 1;
/// A rounding mode the op does not have.
pub const ERR_ROUNDING: u64 = 2;
/// A register beyond the warp's allocation.
pub const ERR_REG_BEYOND: u64 = 3;
/// An odd register for an FP64 pair.
pub const ERR_ODD_PAIR: u64 = 4;
/// Reconvergence stack overflow, or SYNC on an empty stack.
pub const ERR_STACK: u64 = 5;
/// Barrier deadlock.
pub const ERR_DEADLOCK: u64 = 6;
/// Shared memory out of range.
pub const ERR_SHARED: u64 = 7;
/// Global memory out of range or misaligned.
pub const ERR_GLOBAL: u64 = 8;
/// A CTA that cannot fit even alone.
pub const ERR_FIT: u64 = 9;
/// A pc outside the program.
pub const ERR_PC: u64 = 10;
/// The cycle budget ran out (raised by the runner, not by a block).
pub const ERR_BUDGET: u64 = 11;
/// A register write on the other scheduler's channel.
pub const ERR_CHANNEL: u64 = 12;
/// An LDC index beyond the parameters.
pub const ERR_PARAM: u64 = 13;
/// A write-back queue overflow.
pub const ERR_WB_OVERFLOW: u64 = 14;
/// The GPU-CC network made no progress while work remains.
pub const ERR_GC_DEADLOCK: u64 = 15;
/// A GPU-CC lane raised an error (an operation the lanes do not have).
pub const ERR_GC_LANE: u64 = 16;
/// `GCSET`/`GCRUN` outside a one-warp launch (info 2) or in divergent code
/// (info 1).
pub const ERR_GC_LAUNCH: u64 = 17;

/// Every error code with its name, in code order.
pub const ERRORS: [(u64, &str); 17] = [
    (ERR_OP, "instruction the unit or preset does not implement"),
    (ERR_ROUNDING, "rounding mode the op does not have"),
    (ERR_REG_BEYOND, "register beyond the warp's allocation"),
    (ERR_ODD_PAIR, "odd register for an FP64 pair"),
    (ERR_STACK, "reconvergence stack overflow or SYNC on an empty stack"),
    (ERR_DEADLOCK, "barrier deadlock"),
    (ERR_SHARED, "shared memory out of range"),
    (ERR_GLOBAL, "global memory out of range or misaligned"),
    (ERR_FIT, "CTA cannot fit even alone"),
    (ERR_PC, "pc outside the program"),
    (ERR_BUDGET, "cycle budget exhausted"),
    (ERR_CHANNEL, "register write on the other scheduler's channel"),
    (ERR_PARAM, "LDC index beyond the parameters"),
    (ERR_WB_OVERFLOW, "write-back queue overflow"),
    (ERR_GC_DEADLOCK, "GPU-CC network deadlock: no firing while work remains"),
    (ERR_GC_LANE, "GPU-CC core's operation raised a lane error"),
    (
        ERR_GC_LAUNCH,
        "GCSET/GCRUN outside a launch of one warp (info 2) or in divergent code (info 1)",
    ),
];

/// Name of an error code.
pub fn error_name(code: u64) -> &'static str {
    ERRORS
        .iter()
        .find(|(c, _)| *c == code)
        .map_or("unknown error", |(_, n)| n)
}

/// `err_src_o`: no error latched.
pub const SRC_NONE: u64 = 0;
/// `err_src_o`: the CTA launcher.
pub const SRC_CTA: u64 = 1;
/// `err_src_o`: instruction fetch.
pub const SRC_IFETCH: u64 = 2;
/// `err_src_o` of scheduler 0; scheduler `s` is `SRC_SCHED + s`.
pub const SRC_SCHED: u64 = 3;
/// `err_src_o`: the SIMT stack.
pub const SRC_SIMT: u64 = 5;
/// `err_src_o`: the barrier.
pub const SRC_BARRIER: u64 = 6;
/// `err_src_o`: the operand collectors (and the register file).
pub const SRC_OPCOLL: u64 = 7;
/// `err_src_o` of SP group 0; group `g` is `SRC_SP + g`.
pub const SRC_SP: u64 = 8;
/// `err_src_o`: the SFU.
pub const SRC_SFU: u64 = 10;
/// `err_src_o`: the FP64 unit.
pub const SRC_DPU: u64 = 11;
/// `err_src_o`: the load/store unit.
pub const SRC_LSU: u64 = 12;
/// `err_src_o`: the write-back.
pub const SRC_WB: u64 = 13;
/// `err_src_o`: the GPU-CC network (deadlock, a lane error).
pub const SRC_GPUCC: u64 = 14;
/// Schedulers (and SP groups) the source numbering has room for.
pub const MAX_SCHEDULERS: usize = 2;

/// `err_src_o` values' names, indexed by the value.
pub const ERR_SOURCES: [&str; 15] = [
    "none", "cta", "ifetch", "sched0", "sched1", "simt", "barrier", "opcoll", "sp0", "sp1", "sfu", "dpu", "lsu", "wb",
    "gpucc",
];

/// `stall<s>_o`: the scheduler issued.
pub const STALL_ISSUED: u64 = 0;
/// No resident warp runs.
pub const STALL_NO_WARP: u64 = 1;
/// Every running warp waits at a barrier.
pub const STALL_BARRIER: u64 = 2;
/// No warp has an instruction in its buffer.
pub const STALL_FETCH: u64 = 3;
/// Every candidate waits for a register (scoreboard).
pub const STALL_SCOREBOARD: u64 = 4;
/// The candidates' units are busy.
pub const STALL_UNIT_BUSY: u64 = 5;
/// The candidates wait for registers while the LSU is busy.
pub const STALL_MEMORY: u64 = 6;
/// Every candidate is held by the front end (control op, S2R credit,
/// a redirect).
pub const STALL_CONTROL: u64 = 7;

/// `stall<s>_o` values' names, indexed by the value.
pub const STALL_NAMES: [&str; 8] = [
    "issued",
    "no warp",
    "barrier",
    "instruction fetch",
    "scoreboard",
    "unit busy",
    "memory",
    "control",
];

/// `unit_busy_o` bits of the SM top, in order: SP groups 0 and 1, SFU,
/// DPU, LSU.
pub const UNIT_BUSY_NAMES: [&str; 5] = ["sp0", "sp1", "sfu", "dpu", "lsu"];

/// The `unit_busy_o` bits of the units an SM has: one SP group per
/// scheduler (`sp_groups`), the DPU only with FP64
/// ([`crate::config::SmConfig::has_dpu`]).
pub fn units_present(sp_groups: u32, has_dpu: bool) -> Vec<usize> {
    (0..UNIT_BUSY_NAMES.len())
        .filter(|&k| match k {
            1 => sp_groups > 1,
            3 => has_dpu,
            _ => true,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names index by the constants.
    #[test]
    fn tables_match_the_constants() {
        for (k, &(c, _)) in ERRORS.iter().enumerate() {
            assert_eq!(c, k as u64 + 1);
        }
        assert_eq!(error_name(ERR_BUDGET), "cycle budget exhausted");
        assert_eq!(error_name(99), "unknown error");
        for (v, n) in [
            (SRC_CTA, "cta"),
            (SRC_IFETCH, "ifetch"),
            (SRC_SCHED, "sched0"),
            (SRC_SCHED + 1, "sched1"),
            (SRC_SIMT, "simt"),
            (SRC_BARRIER, "barrier"),
            (SRC_OPCOLL, "opcoll"),
            (SRC_SP, "sp0"),
            (SRC_SP + 1, "sp1"),
            (SRC_SFU, "sfu"),
            (SRC_DPU, "dpu"),
            (SRC_LSU, "lsu"),
            (SRC_WB, "wb"),
        ] {
            assert_eq!(ERR_SOURCES[v as usize], n);
        }
        for (v, n) in [
            (STALL_ISSUED, "issued"),
            (STALL_NO_WARP, "no warp"),
            (STALL_BARRIER, "barrier"),
            (STALL_FETCH, "instruction fetch"),
            (STALL_SCOREBOARD, "scoreboard"),
            (STALL_UNIT_BUSY, "unit busy"),
            (STALL_MEMORY, "memory"),
            (STALL_CONTROL, "control"),
        ] {
            assert_eq!(STALL_NAMES[v as usize], n);
        }
    }
}
