; lat_iadd: dependent IADD issue-to-issue latency.
;
; One warp; each lane runs a chain of 32 dependent instructions per loop
; iteration (32 x `IADD R2, R2, R3`), `iters` iterations, and reads SR_CLOCK before
; and after the loop. Latency per op = (delta - delta of lat_loop.s with the
; same iters) / (32 x iters): lat_loop.s is the same loop without the chain.
; In the golden model SR_CLOCK counts warp instructions: delta = 1 + iters x 35.
; Output per lane at out + tid x 8: 2 words: delta, value.
; Hardware: GT200: 24 hot cycles (SPEC section 8 from Wong et al., ISPASS 2010). Fermi: about 22 (SPEC section 8).
; Launch: grid 1, block 32, params out, iters (>= 1).
.kernel lat_iadd
.regs 8
.param out
.param iters
    S2R R0, SR_TID.X
    LDC R1, c[iters]
    MOV R2, R0
    MOV R3, 0x9e3779b9
    S2R R4, SR_CLOCK
loop:
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R2, R2, R3
    IADD R1, R1, -1
    ISETP.GT P0, R1, 0
    @P0 BRA loop
    S2R R1, SR_CLOCK
    ISUB R1, R1, R4
    LDC R6, c[out]
    SHL R7, R0, 3
    IADD R6, R6, R7
    STG [R6], R1
    STG [R6+4], R2
    EXIT
