; fir16.s: 16-tap FP32 FIR filter, y[i] = sum(h[k] * x[i+k], k = 0..15),
; with FFMA (IEEE, one rounding per tap) in the order acc = h[0] * x[i]
; (FMUL), then acc = FFMA(h[k], x[i+k], acc) for k = 1..15.
;
; Params : x        byte address of the FP32 input, n + 15 elements
;          h        byte address of the 16 FP32 taps
;          y        byte address of the FP32 output, n elements
;          n        number of outputs
; Shape  : 1-D, grid (ceil(n / ntid.x), 1), block (ntid.x, 1, 1); thread
;          i = ctaid.x * ntid.x + tid.x computes y[i], i >= n exits.
; Memory : x and h read, y written. Each tap loads h[k] (the same word in
;          every thread) and x[i+k]; the body is one element per thread,
;          so `smrtl gpucc-map` lifts it to GPU-CC mode (docs/gpucc.md
;          section 14).
.kernel fir16
.regs 12
.param x
.param h
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
    IADD R5, R5, R4             ; &x[i]
    LDC R6, c[h]
    LDG R7, [R5]                ; x[i]
    LDG R8, [R6]                ; h[0]
    FMUL R9, R8, R7             ; acc = h[0] * x[i]
    LDG R7, [R5+4]              ; x[i+1]
    LDG R8, [R6+4]              ; h[1]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+8]              ; x[i+2]
    LDG R8, [R6+8]              ; h[2]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+12]             ; x[i+3]
    LDG R8, [R6+12]             ; h[3]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+16]             ; x[i+4]
    LDG R8, [R6+16]             ; h[4]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+20]             ; x[i+5]
    LDG R8, [R6+20]             ; h[5]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+24]             ; x[i+6]
    LDG R8, [R6+24]             ; h[6]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+28]             ; x[i+7]
    LDG R8, [R6+28]             ; h[7]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+32]             ; x[i+8]
    LDG R8, [R6+32]             ; h[8]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+36]             ; x[i+9]
    LDG R8, [R6+36]             ; h[9]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+40]             ; x[i+10]
    LDG R8, [R6+40]             ; h[10]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+44]             ; x[i+11]
    LDG R8, [R6+44]             ; h[11]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+48]             ; x[i+12]
    LDG R8, [R6+48]             ; h[12]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+52]             ; x[i+13]
    LDG R8, [R6+52]             ; h[13]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+56]             ; x[i+14]
    LDG R8, [R6+56]             ; h[14]
    FFMA R9, R8, R7, R9
    LDG R7, [R5+60]             ; x[i+15]
    LDG R8, [R6+60]             ; h[15]
    FFMA R9, R8, R7, R9
    LDC R5, c[y]
    IADD R5, R5, R4
    STG [R5], R9
    EXIT
