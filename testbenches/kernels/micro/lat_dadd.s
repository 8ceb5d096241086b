; lat_dadd: dependent DADD (FP64) issue-to-issue latency (presets with fp64_rate_divisor > 0).
;
; One warp; each lane runs a chain of 32 dependent instructions per loop
; iteration (32 x `DADD R2, R2, R4`), `iters` iterations, and reads SR_CLOCK before
; and after the loop. Latency per op = (delta - delta of lat_loop.s with the
; same iters) / (32 x iters): lat_loop.s is the same loop without the chain.
; In the golden model SR_CLOCK counts warp instructions: delta = 1 + iters x 35.
; Output per lane at out + tid x 16: 4 words: delta, 0, value (low, high).
; Hardware: GT200: 48 hot cycles (SPEC section 8 from Wong et al., ISPASS 2010). Fermi: no figure sourced.
; Launch: grid 1, block 32, params out, iters (>= 1).
.kernel lat_dadd
.regs 8
.param out
.param iters
    S2R R0, SR_TID.X
    LDC R1, c[iters]
    I2D R2, R0
    MOV R4, 0
    MOV R5, 0x3ff80000
    S2R R6, SR_CLOCK
loop:
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    DADD R2, R2, R4
    IADD R1, R1, -1
    ISETP.GT P0, R1, 0
    @P0 BRA loop
    S2R R1, SR_CLOCK
    ISUB R1, R1, R6
    LDC R6, c[out]
    IMUL R7, R0, 16
    IADD R6, R6, R7
    STG [R6], R1
    STG.64 [R6+8], R2
    EXIT
