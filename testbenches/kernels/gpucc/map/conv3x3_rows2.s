; gpucc/map/conv3x3_rows2.s: a variant of gpucc/conv3x3.s (docs/gpucc.md
; section 12.1) with two pixel streams, symbolic: map it with
; `smrtl gpucc-map`. A whole 3x3 convolution, the same parameters, borders,
; order and results as conv3x3.s (bit for bit), for any W x H >= 1 x 1.
;
; Params : as gpucc/conv3x3.s (in, w, out, W, H).
; Network: 23 cores, 8 LSUs. Each run walks padded rows, x over 0..W+1
;          (`grid W+2, rows`): c0/cx give cx = clamp(x-1, 0, W-1), ix the
;          index y*W + cx that six LSUs load, one per filter row and
;          stream, the base address being the input row. Two streams of
;          nine FFMA cores (a.., b..) each compute their own image row at
;          the same time: tap dx of a filter row reads its LSU's pixels
;          2-dx firings late (`la0[-2]`), as the 5x5 does (section 9), so
;          one load per filter row serves its three taps. The firings
;          x = 0, 1 of a row store to out[y*W + 0] (o0/ox), which firing
;          x = 2 overwrites (one LSU stores in order).
; Runs   : rows 1..H-2 split between the streams (A from row 1, B ending at
;          row H-2, ceil((H-2)/2) rows each; for an odd count both compute
;          the middle row, the same words); then rows 0 (A) and H-1 (B) in
;          a run of one row, with the row clamp in the base addresses.
; Order  : acc = +0.0; for dy in 0..3: for dx in 0..3:
;          acc = FFMA(w[dy][dx], pixel, acc), as conv3x3.s.
; Why    : conv3x3.s is one FFMA chain, at most one pixel per hot cycle;
;          two chains can pass that, up to the memory bandwidth (measured
;          in docs/results.md 13). The L1 must keep three input rows per
;          stream, six in all (24 W bytes in 16 KB, W <= 682): above that
;          width (measured from W = 768) the rows thrash and conv3x3.s is
;          several times faster.
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
        IADD R7, R5, -1             ; H-1
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
        IADD R19, R5, -2            ; the rows 1..H-2
        ISETP.LT P0, R19, 1
        @P0 BRA border
        IADD R20, R19, 1
        SHR R20, R20, 1             ; nA = ceil((H-2)/2) rows per stream
        MOV R21, R1                 ; A: run row y is image row y+1
        IADD R22, R21, R18
        IADD R23, R22, R18
        IADD R24, R3, R18
        ISUB R26, R5, R20
        IADD R26, R26, -2           ; B: run row y is image row H-1-nA+y, read from the row above
        IMAD R27, R26, R18, R1
        IADD R28, R27, R18
        IADD R29, R28, R18
        IMAD R30, R26, R18, R3
        IADD R30, R30, R18
        MOV R32, 0                  ; the border run comes next
        BRA run
border:
        MOV R20, 1                  ; rows 0 (A) and H-1 (B)
        MOV R32, 1
        MOV R21, R1
        MOV R22, R1
        IMIN R33, R7, 1
        IMAD R23, R33, R18, R1      ; A reads rows 0, 0, min(1, H-1)
        MOV R24, R3
        IADD R33, R5, -2
        IMAX R33, R33, 0
        IMAD R27, R33, R18, R1      ; B reads rows max(H-2, 0), H-1, H-1
        IMAD R28, R7, R18, R1
        MOV R29, R28
        IMAD R30, R7, R18, R3
run:
.gpucc
        grid   R17, R20
c0      IMAX   x-1, 0
cx      IMIN   c0, R6
ix      IMAD   y, R4, cx
o0      IMAX   x-2, 0
ox      IMAD   y, R4, o0
la0     LDG    [ix*4 + R21]
a00     FFMA   R8, la0[-2], 0.0
a01     FFMA   R9, la0[-1], a00
a02     FFMA   R10, la0, a01
la1     LDG    [ix*4 + R22]
a10     FFMA   R11, la1[-2], a02
a11     FFMA   R12, la1[-1], a10
a12     FFMA   R13, la1, a11
la2     LDG    [ix*4 + R23]
a20     FFMA   R14, la2[-2], a12
a21     FFMA   R15, la2[-1], a20
a22     FFMA   R16, la2, a21
sa      STG    [ox*4 + R24], a22
lb0     LDG    [ix*4 + R27]
b00     FFMA   R8, lb0[-2], 0.0
b01     FFMA   R9, lb0[-1], b00
b02     FFMA   R10, lb0, b01
lb1     LDG    [ix*4 + R28]
b10     FFMA   R11, lb1[-2], b02
b11     FFMA   R12, lb1[-1], b10
b12     FFMA   R13, lb1, b11
lb2     LDG    [ix*4 + R29]
b20     FFMA   R14, lb2[-2], b12
b21     FFMA   R15, lb2[-1], b20
b22     FFMA   R16, lb2, b21
sb      STG    [ox*4 + R30], b22
.endgpucc
        ISETP.EQ P0, R32, 0
        @P0 BRA border
        EXIT
