; gpucc/conv5x5.s: 5x5 FP32 convolution (correlation) of a W x H image with
; clamp-to-edge borders in GPU-CC mode (seed 002; docs/gpucc.md section 9):
; out[y][x] = sum over dy, dx in 0..5 of
; w[dy][dx] * in[clamp(y+dy-2, 0, H-1)][clamp(x+dx-2, 0, W-1)].
;
; Params : in, out  byte addresses of row-major FP32 images [H][W]
;          w        byte address of the 25 FP32 filter weights, row-major
;          W, H     image width and height (>= 1)
; Order  : acc = +0.0; for dy in 0..5: for dx in 0..5:
;          acc = FFMA(w[dy][dx], pixel, acc) (IEEE fused multiply-add, one
;          rounding), as conv5x5.s: bit-exact to it and to the host
;          reference. The 25 FFMA cores (core5..core29) form that chain.
; Shape  : grid 1, block 32 (one warp). The warp reads the parameters and
;          the weights, then runs one configuration several times: once
;          for the rows 2..H-3, whose five input rows need no clamping
;          (when H >= 5), and once for each border row 0, 1, H-2, H-1
;          (every row when H < 5), with the five row base addresses
;          clamped by the SIMT code.
; Network: each run walks the padded rows: x over 0..W+3, y over its rows
;          (grid W+4, rows). core0/core1 give the clamped column
;          cx = clamp(x-2, 0, W-1), core2 the index y*W + cx, which ten
;          LSUs (two per filter row, base address = its input row; one
;          feeds taps 0-2, the other taps 3-4) load. Placed and routed by
;          `smrtl gpucc-map` from the symbolic block (docs/gpucc.md 9).
;          Tap dx of a row reads that row's pixels 4-dx firings late,
;          through 4-dx initial tokens in its FIFO (`lsuN[-k]`): at firing
;          x the taps see the padded columns x-4..x, the window of output
;          x-4. The firings x < 4 of a row give no output pixel: core3/core4
;          send them to out[y*W + 0], which firing x = 4 then overwrites
;          (one LSU stores in order).
; Memory : in and w read, out written (4 extra stores per row).
.kernel conv5x5_gpucc
.regs 46
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
        LDG R8, [R2+0]                ; the weights, row-major: w[dy][dx] in R(8 + 5dy + dx)
        LDG R9, [R2+4]
        LDG R10, [R2+8]
        LDG R11, [R2+12]
        LDG R12, [R2+16]
        LDG R13, [R2+20]
        LDG R14, [R2+24]
        LDG R15, [R2+28]
        LDG R16, [R2+32]
        LDG R17, [R2+36]
        LDG R18, [R2+40]
        LDG R19, [R2+44]
        LDG R20, [R2+48]
        LDG R21, [R2+52]
        LDG R22, [R2+56]
        LDG R23, [R2+60]
        LDG R24, [R2+64]
        LDG R25, [R2+68]
        LDG R26, [R2+72]
        LDG R27, [R2+76]
        LDG R28, [R2+80]
        LDG R29, [R2+84]
        LDG R30, [R2+88]
        LDG R31, [R2+92]
        LDG R32, [R2+96]
        IADD R33, R4, 4             ; nx = W + 4: the padded row
        SHL R42, R4, 2              ; row pitch in bytes
        MOV R41, 0                  ; the next border row
        ISETP.LT P0, R5, 5          ; H < 5: border rows only
        @P0 BRA border
        IADD R34, R5, -4            ; rows 2..H-3: run y = 0..H-5 is row y + 2
        MOV R35, R1                 ; filter row dy reads row y + dy
        IADD R36, R35, R42
        IADD R37, R36, R42
        IADD R38, R37, R42
        IADD R39, R38, R42
        IADD R40, R3, R42           ; stores to row y + 2
        IADD R40, R40, R42
        BRA run
border:
        ISETP.GE P0, R41, R5
        @P0 BRA done
        MOV R34, 1                  ; one row: R41
        IADD R43, R41, -2
        IMAX R43, R43, 0
        IMIN R43, R43, R7
        IMAD R35, R43, R42, R1       ; filter row 0 reads row clamp(Y-2)
        IADD R43, R41, -1
        IMAX R43, R43, 0
        IMIN R43, R43, R7
        IMAD R36, R43, R42, R1       ; filter row 1 reads row clamp(Y-1)
        IADD R43, R41, 0
        IMAX R43, R43, 0
        IMIN R43, R43, R7
        IMAD R37, R43, R42, R1       ; filter row 2 reads row clamp(Y+0)
        IADD R43, R41, 1
        IMAX R43, R43, 0
        IMIN R43, R43, R7
        IMAD R38, R43, R42, R1       ; filter row 3 reads row clamp(Y+1)
        IADD R43, R41, 2
        IMAX R43, R43, 0
        IMIN R43, R43, R7
        IMAD R39, R43, R42, R1       ; filter row 4 reads row clamp(Y+2)
        IMAD R40, R41, R42, R3
        IADD R41, R41, 1            ; next: Y + 1, or H - 2 after row 1
        ISETP.NE P0, R41, 2
        @P0 BRA run
        IADD R43, R5, -2
        IMAX R41, R41, R43
run:
.gpucc
        grid   R33, R34
core0   IMAX   x-2, 0                   -> A
core1   IMIN   core0, R6                -> A ; cx = clamp(x-2, 0, W-1)
core2   IMAD   y, R4, core1             -> A ; the pixel index in each row
core3   IMAX   x-4, 0                   -> B
core4   IMAD   y, R4, core3             -> B ; the output index
lsu2    LDG    [core2*4 + R35]          -> C ; filter row 0, taps 0-2
lsu4    LDG    [core2*4 + R35]          -> D ; filter row 0, taps 3-4
core5   FFMA   R8, lsu2[-4], 0.0        -> D
core6   FFMA   R9, lsu2[-3], core5      -> D
core7   FFMA   R10, lsu2[-2], core6     -> C
core8   FFMA   R11, lsu4[-1], core7     -> C
core9   FFMA   R12, lsu4, core8         -> C
lsu5    LDG    [core2*4 + R36]          -> D ; filter row 1, taps 0-2
lsu6    LDG    [core2*4 + R36]          -> E ; filter row 1, taps 3-4
core10  FFMA   R13, lsu5[-4], core9     -> C
core11  FFMA   R14, lsu5[-3], core10    -> C
core12  FFMA   R15, lsu5[-2], core11    -> C
core13  FFMA   R16, lsu6[-1], core12    -> C
core14  FFMA   R17, lsu6, core13        -> C
lsu7    LDG    [core2*4 + R37]          -> D ; filter row 2, taps 0-2
lsu9    LDG    [core2*4 + R37]          -> D ; filter row 2, taps 3-4
core15  FFMA   R18, lsu7[-4], core14    -> C
core16  FFMA   R19, lsu7[-3], core15    -> C
core17  FFMA   R20, lsu7[-2], core16    -> C
core18  FFMA   R21, lsu9[-1], core17    -> C
core19  FFMA   R22, lsu9, core18        -> C
lsu10   LDG    [core2*4 + R38]          -> D ; filter row 3, taps 0-2
lsu11   LDG    [core2*4 + R38]          -> E ; filter row 3, taps 3-4
core20  FFMA   R23, lsu10[-4], core19   -> C
core21  FFMA   R24, lsu10[-3], core20   -> C
core22  FFMA   R25, lsu10[-2], core21   -> C
core23  FFMA   R26, lsu11[-1], core22   -> C
core24  FFMA   R27, lsu11, core23       -> C
lsu12   LDG    [core2*4 + R39]          -> D ; filter row 4, taps 0-2
lsu13   LDG    [core2*4 + R39]          -> A ; filter row 4, taps 3-4
core25  FFMA   R28, lsu12[-4], core24   -> C
core26  FFMA   R29, lsu12[-3], core25   -> C
core27  FFMA   R30, lsu12[-2], core26   -> C
core28  FFMA   R31, lsu13[-1], core27   -> C
core29  FFMA   R32, lsu13, core28       -> A
lsu15   STG    [core4*4 + R40], core29
.endgpucc
        BRA border
done:
        EXIT
