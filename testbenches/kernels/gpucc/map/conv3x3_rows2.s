; gpucc/map/conv3x3_rows2.s: a variant of gpucc/conv3x3.s (docs/gpucc.md
; section 12.1) with two pixel streams, symbolic: map it with
; `smrtl gpucc-map`. A whole 3x3 convolution, the same parameters, borders,
; order and results as conv3x3.s (bit for bit), for any W x H >= 1 x 1.
;
; Params : as gpucc/conv3x3.s (in, w, out, W, H).
; Network: 30 cores, 8 LSUs, one run. The run walks padded rows, x over
;          0..W+1 (`grid W+2, n`, n = ceil(H/2)); c0 gives
;          clamp(x-1, 0, ...) to two index chains, one per stream, so
;          neither stream's loads wait for the other's (cx/ix/ya/iu for
;          A, dx/jx/yb/jd for B; o0 gives the stores' x to ox and px).
;          Two streams of nine FFMA cores (a.., b..) compute two image
;          rows at once: A the rows 0..n-1, B the rows H-n..H-1 (for an
;          odd H both compute the middle row, the same words). One LSU per
;          filter row and stream loads each pixel once and its three taps
;          read it 2, 1 and 0 firings late (`la0[-2]`), as the 5x5 does
;          (section 9). The row clamp is in the index (ya = max(y-1, 0),
;          yb = min(y+1, n-1)) and in the base addresses (A's row y+1 from
;          row min(1, H-1), B's row above from row max(H-n-1, 0)). The
;          firings x = 0, 1 of a row store to out[y*W + 0], which firing
;          x = 2 overwrites (one LSU stores in order).
; Order  : acc = +0.0; for dy in 0..3: for dx in 0..3:
;          acc = FFMA(w[dy][dx], pixel, acc), as conv3x3.s.
; Why    : conv3x3.s is one FFMA chain, at most one pixel per hot cycle;
;          two chains can pass that, up to the memory bandwidth (measured
;          in docs/results.md 13: 1.93x the strip kernel on 512 x 512).
;          The L1 must keep three input rows per stream, six in all (24 W
;          bytes in 16 KB) and the prefetched lines: from W = 576 on
;          conv3x3.s is faster, from W = 768 several times (the rows
;          thrash).
.kernel conv3x3_rows2
.regs 34
.param in
.param w
.param out
.param W
.param H
        LDC R1, c[in]
        LDC R2, c[w]
        LDC R3, c[out]
        LDC R4, c[W]
        LDC R5, c[H]
        IADD R6, R4, -1             ; W-1
        LDG R8, [R2]                ; the weights, row-major
        LDG R9, [R2+4]
        LDG R10, [R2+8]
        LDG R11, [R2+12]
        LDG R12, [R2+16]
        LDG R13, [R2+20]
        LDG R14, [R2+24]
        LDG R15, [R2+28]
        LDG R16, [R2+32]
        IADD R17, R4, 2             ; nx = W + 2: the padded row
        SHL R18, R4, 2              ; row pitch in bytes
        IADD R20, R5, 1
        SHR R20, R20, 1             ; n = ceil(H/2) rows per stream
        IADD R7, R20, -1            ; n-1: B's last run row
        ISUB R26, R5, R20           ; s = H - n: B's first image row
        IADD R19, R5, -1
        IMIN R19, R19, 1            ; min(1, H-1)
        IMAD R23, R19, R18, R1      ; A, row y+1 (row 0 when H = 1)
        IADD R19, R26, -1
        IMAX R19, R19, 0            ; max(s-1, 0)
        IMAD R27, R19, R18, R1      ; B, row s+y-1
        IMAD R28, R26, R18, R1      ; B, row s+y and row s+min(y+1, n-1)
        IMAD R30, R26, R18, R3      ; B's output row s+y
.gpucc
        grid   R17, R20
c0      IMAX   x-1, 0
cx      IMIN   c0, R6
ix      IMAD   y, R4, cx
ya      IMAX   y-1, 0
iu      IMAD   ya, R4, cx
o0      IMAX   x-2, 0
ox      IMAD   y, R4, o0
dx      IMIN   c0, R6
jx      IMAD   y, R4, dx
yb      IMIN   y+1, R7
jd      IMAD   yb, R4, dx
px      IMAD   y, R4, o0
la0     LDG    [iu*4 + R1]
a00     FFMA   R8, la0[-2], 0.0
a01     FFMA   R9, la0[-1], a00
a02     FFMA   R10, la0, a01
la1     LDG    [ix*4 + R1]
a10     FFMA   R11, la1[-2], a02
a11     FFMA   R12, la1[-1], a10
a12     FFMA   R13, la1, a11
la2     LDG    [ix*4 + R23]
a20     FFMA   R14, la2[-2], a12
a21     FFMA   R15, la2[-1], a20
a22     FFMA   R16, la2, a21
sa      STG    [ox*4 + R3], a22
lb0     LDG    [jx*4 + R27]
b00     FFMA   R8, lb0[-2], 0.0
b01     FFMA   R9, lb0[-1], b00
b02     FFMA   R10, lb0, b01
lb1     LDG    [jx*4 + R28]
b10     FFMA   R11, lb1[-2], b02
b11     FFMA   R12, lb1[-1], b10
b12     FFMA   R13, lb1, b11
lb2     LDG    [jd*4 + R28]
b20     FFMA   R14, lb2[-2], b12
b21     FFMA   R15, lb2[-1], b20
b22     FFMA   R16, lb2, b21
sb      STG    [px*4 + R30], b22
.endgpucc
        EXIT
