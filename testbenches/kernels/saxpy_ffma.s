; saxpy_ffma.s: y[i] = alpha * x[i] + y[i] with FFMA (IEEE fused multiply-add,
; one rounding): saxpy.s for the FFMA presets (fermi, gpucc).
;
; Params : alpha    FP32 bits of the scalar
;          x, y     byte addresses of two FP32 arrays in global memory
;          n        number of elements
; Shape  : 1-D, grid (ceil(n / ntid.x), 1), block (ntid.x, 1, 1); thread
;          i = ctaid.x * ntid.x + tid.x handles element i, i >= n exits.
; Memory : x[n] read, y[n] read and overwritten in place.
.kernel saxpy_ffma
.regs 8
.param alpha
.param x
.param y
.param n
    S2R R0, SR_TID.X
    S2R R1, SR_CTAID.X
    S2R R2, SR_NTID.X
    IMAD R0, R1, R2, R0         ; i
    LDC R3, c[n]
    ISETP.GE P0, R0, R3
    @P0 EXIT
    SHL R4, R0, 2
    LDC R5, c[x]
    IADD R5, R5, R4
    LDG R6, [R5]                ; x[i]
    LDC R5, c[y]
    IADD R5, R5, R4
    LDG R7, [R5]                ; y[i]
    LDC R1, c[alpha]
    FFMA R7, R1, R6, R7         ; alpha * x + y
    STG [R5], R7
    EXIT
