; bar_lat: barrier latency, back-to-back BAR.
;
; Every warp of the CTA runs 32 `BAR` per loop iteration, `iters`
; iterations, between two SR_CLOCK reads. Latency per barrier = (delta -
; delta of lat_loop.s with the same iters) / (32 x iters); run with 1, 2, 4,
; 8 and 16 warps to see how it grows with the warps to gather.
; In the golden model SR_CLOCK counts warp instructions: delta = 1 + iters x 35.
; Output per thread at out + tid x 4: delta.
; Hardware: no figure sourced (see docs/calibration.md).
; Launch: grid 1, any 1-D block, params out, iters (>= 1).
.kernel bar_lat
.regs 6
.param out
.param iters
    S2R R0, SR_TID.X
    LDC R1, c[iters]
    S2R R2, SR_CLOCK
loop:
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    BAR
    IADD R1, R1, -1
    ISETP.GT P0, R1, 0
    @P0 BRA loop
    S2R R1, SR_CLOCK
    ISUB R1, R1, R2
    LDC R3, c[out]
    SHL R4, R0, 2
    IADD R3, R3, R4
    STG [R3], R1
    EXIT
