; tput_ffma: throughput of independent FFMA (mul_add = ffma presets).
;
; Every thread keeps four independent accumulators R4, R5, R8, R9 and runs
; 128 instructions per loop iteration (FFMA R4, R4, R6, R7, then R5, R8, R9
; alike, 32 times); the loop's IADD, ISETP and BRA are 3 of its 131 issues,
; so the kernel can show 97.7% of the peak. Registers are chosen as a tuning
; compiler would for a 4-way banked file (docs/regfile.md: register r of a
; warp sits in group r mod 4 plus the warp's skew): the accumulators in
; groups 0 and 1, the constants R6 and R7 in groups 2 and 3, so an FFMA's
; three reads never meet in one group.
; `iters` iterations, between two SR_CLOCK reads. Launch many warps (e.g.
; block 512, several CTAs: the micro case fills the SM) so the pipeline latency is
; hidden: throughput = 128 x iters x threads / (delta in hot cycles).
; In the golden model SR_CLOCK counts warp instructions: delta = 1 + iters x 131.
; Output per thread at out + global tid x 20: delta, R4, R5, R8, R9.
; Hardware: Fermi: 32 FFMA per hot cycle per SM (2 schedulers x 16 lanes; SPEC section 8, CUDA C Programming Guide 3.x-4.x).
; Launch: any grid and 1-D block; params out, iters (>= 1).
.kernel tput_ffma
.regs 12
.param out
.param iters
    S2R R0, SR_TID.X
    LDC R1, c[iters]
    I2F R4, R0
    FADD R5, R4, 1.0
    FADD R8, R4, 2.0
    FADD R9, R4, 3.0
    MOV R6, 0.999
    MOV R7, 0.5
    S2R R11, SR_CLOCK
loop:
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    FFMA R4, R4, R6, R7
    FFMA R5, R5, R6, R7
    FFMA R8, R8, R6, R7
    FFMA R9, R9, R6, R7
    IADD R1, R1, -1
    ISETP.GT P0, R1, 0
    @P0 BRA loop
    S2R R1, SR_CLOCK
    ISUB R1, R1, R11
    S2R R2, SR_CTAID.X
    S2R R10, SR_NTID.X
    IMAD R2, R2, R10, R0
    IMUL R2, R2, 20
    LDC R10, c[out]
    IADD R2, R2, R10
    STG [R2], R1
    STG [R2+4], R4
    STG [R2+8], R5
    STG [R2+12], R8
    STG [R2+16], R9
    EXIT
