; smem_lat: shared-memory load latency, a dependent pointer chase.
;
; One warp. The 1024-word shared array holds s[i] = ((i + stride) mod 1024) x 4;
; each lane starts at its own word and follows the chain with 32 dependent
; `LDS R2, [R2]` per loop iteration, `iters` iterations, between two SR_CLOCK
; reads. The lanes' words stay consecutive (conflict free) for any stride.
; Latency = (delta - delta of lat_loop.s with the same iters) / (32 x iters).
; In the golden model SR_CLOCK counts warp instructions: delta = 1 + iters x 35.
; Output per lane at out + tid x 8: delta, the final pointer.
; Hardware: GT200 and Fermi: no figure sourced (see
; docs/calibration.md).
; Launch: grid 1, block 32, params out, iters (>= 1), stride (words).
.kernel smem_lat
.regs 10
.shared 4096
.param out
.param iters
.param stride
    S2R R0, SR_TID.X
    LDC R2, c[stride]
    MOV R3, R0
init:
    IADD R4, R3, R2
    AND R4, R4, 1023
    SHL R4, R4, 2
    SHL R5, R3, 2
    STS [R5], R4
    IADD R3, R3, 32
    ISETP.LT P0, R3, 1024
    @P0 BRA init
    BAR
    LDC R1, c[iters]
    SHL R2, R0, 2
    S2R R6, SR_CLOCK
loop:
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    LDS R2, [R2]
    IADD R1, R1, -1
    ISETP.GT P0, R1, 0
    @P0 BRA loop
    S2R R1, SR_CLOCK
    ISUB R1, R1, R6
    LDC R6, c[out]
    SHL R7, R0, 3
    IADD R6, R6, R7
    STG [R6], R1
    STG [R6+4], R2
    EXIT
