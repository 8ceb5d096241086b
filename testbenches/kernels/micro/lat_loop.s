; lat_loop: the loop of the lat_*.s kernels without their chain, to subtract
; the loop-control time (IADD, ISETP, BRA per iteration) from theirs.
;
; In the golden model SR_CLOCK counts warp instructions: delta = 1 + iters x 3.
; Output per lane at out + tid x 8: delta, 0.
; Hardware: no published figure (a calibration helper).
; Launch: grid 1, block 32, params out, iters (>= 1).
.kernel lat_loop
.regs 8
.param out
.param iters
    S2R R0, SR_TID.X
    LDC R1, c[iters]
    S2R R4, SR_CLOCK
loop:
    IADD R1, R1, -1
    ISETP.GT P0, R1, 0
    @P0 BRA loop
    S2R R1, SR_CLOCK
    ISUB R1, R1, R4
    LDC R6, c[out]
    SHL R7, R0, 3
    IADD R6, R6, R7
    STG [R6], R1
    EXIT
