; tput_fmad: throughput of independent FMAD (mul_add = fmad presets).
;
; Every thread keeps four independent accumulators R2..R5 and runs 128
; instructions per loop iteration (FMAD R2, R2, R6, R7, FMAD R3, R3, R6,
; R7, FMAD R4, R4, R6, R7, FMAD R5, R5, R6, R7, 32 times); the loop's
; IADD, ISETP and BRA are 3 of its 131 issues, so the kernel can show
; 97.7% of the peak;
; `iters` iterations, between two SR_CLOCK reads. Launch many warps (e.g.
; block 512 on gt200, 1024 on fermi, several CTAs) so the pipeline latency is
; hidden: throughput = 128 x iters x threads / (delta in hot cycles).
; In the golden model SR_CLOCK counts warp instructions: delta = 1 + iters x 131.
; Output per thread at out + global tid x 20: delta, R2, R3, R4, R5.
; Hardware: GT200: 8 FMAD per hot cycle per SM (8 SPs, one warp instruction per 4 hot cycles; SPEC section 8, CUDA C Programming Guide 2.x).
; Launch: any grid and 1-D block; params out, iters (>= 1).
.kernel tput_fmad
.regs 12
.param out
.param iters
    S2R R0, SR_TID.X
    LDC R1, c[iters]
    I2F R2, R0
    FADD R3, R2, 1.0
    FADD R4, R2, 2.0
    FADD R5, R2, 3.0
    MOV R6, 0.999
    MOV R7, 0.5
    S2R R8, SR_CLOCK
loop:
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    FMAD R2, R2, R6, R7
    FMAD R3, R3, R6, R7
    FMAD R4, R4, R6, R7
    FMAD R5, R5, R6, R7
    IADD R1, R1, -1
    ISETP.GT P0, R1, 0
    @P0 BRA loop
    S2R R1, SR_CLOCK
    ISUB R1, R1, R8
    S2R R9, SR_CTAID.X
    S2R R10, SR_NTID.X
    IMAD R9, R9, R10, R0
    IMUL R9, R9, 20
    LDC R10, c[out]
    IADD R9, R9, R10
    STG [R9], R1
    STG [R9+4], R2
    STG [R9+8], R3
    STG [R9+12], R4
    STG [R9+16], R5
    EXIT
