; vadd.s: element-wise FP32 vector add, c[i] = a[i] + b[i].
;
; Params : a, b, c  byte addresses of three FP32 arrays in global memory
;          n        number of elements
; Shape  : 1-D, grid (ceil(n / ntid.x), 1), block (ntid.x, 1, 1), any ntid.x;
;          thread i = ctaid.x * ntid.x + tid.x handles element i, threads
;          with i >= n exit at once (partial last CTA and warp allowed).
; Memory : a[n], b[n] read, c[n] written (little-endian FP32 words).
; FADD follows the preset: Tesla FADD (flush-to-zero) on fmad presets,
; IEEE add on ffma presets.
.kernel vadd
.regs 8
.param a
.param b
.param c
.param n
    S2R R0, SR_TID.X
    S2R R1, SR_CTAID.X
    S2R R2, SR_NTID.X
    IMAD R0, R1, R2, R0         ; i
    LDC R3, c[n]
    ISETP.GE P0, R0, R3
    @P0 EXIT
    SHL R4, R0, 2               ; byte offset 4*i
    LDC R5, c[a]
    IADD R5, R5, R4
    LDG R6, [R5]
    LDC R5, c[b]
    IADD R5, R5, R4
    LDG R7, [R5]
    FADD R6, R6, R7
    LDC R5, c[c]
    IADD R5, R5, R4
    STG [R5], R6
    EXIT
