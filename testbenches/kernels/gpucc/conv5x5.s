; gpucc/conv5x5.s: 5x5 FP32 convolution (correlation) of a W x H image with
; clamp-to-edge borders in GPU-CC mode (seed 002; docs/gpucc.md):
; out[y][x] = sum over dy, dx in 0..5 of
; w[dy][dx] * in[clamp(y+dy-2, 0, H-1)][clamp(x+dx-2, 0, W-1)].
;
; Params : in, out  byte addresses of row-major FP32 images [H][W]
;          w        byte address of the 25 FP32 filter weights, row-major
;          W, H     image width and height (>= 1)
; Order  : acc = +0.0; for dy in 0..5: for dx in 0..5:
;          acc = FFMA(w[dy][dx], pixel, acc) (IEEE fused multiply-add, one
;          rounding), as conv5x5.s: bit-exact to it and to the host
;          reference.
; Shape  : grid 1, block 32 (one warp). The warp reads the parameters and
;          the weights, then runs five configurations (GCRUN), one per
;          filter row dy: 25 loads per pixel do not fit the 16 LSUs at once.
;          Each pass walks the pixels in row-major order (grid W, H), loads
;          the partial sum of the pass before from out (pass 0 starts at
;          +0.0), adds its five taps and stores the sum back to out. An
;          FP32 sum stored and reloaded is the same value, so the passes
;          give the single chain's result bit for bit; out[i] is stored
;          after it was loaded (the store needs the loaded value).
; Network: core0 the clamped row cy on lane C (row 2: the counter's y);
;          core1 and lsu1 the partial sum on lane E; per tap dx a clamp
;          core (cx on lane A; none for dx = 2), an IMAD core (cy*W + cx
;          on D), an LSU (in[index] on D) and an FFMA core (the sum on E),
;          six positions per tap; core23 and lsu12 store out[y*W + x].
; Memory : in and w read, out written (five times).
.kernel conv5x5_gpucc
.regs 33
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
        LDG R8, [R2]                ; the weights, row-major: w[dy][dx] in R(8 + 5dy + dx)
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
.gpucc                                  ; pass 0: filter row dy = 0
        grid   R4, R5
core0   IMAX   y-2, 0                   -> C    ; cy = clamp(y-2, 0, H-1)
core4   IMAX   x-2, 0                   -> A    ; dx = 0: cx = clamp(x-2, 0, W-1)
core5   IMAD   core0, R4, core4         -> D
lsu3    LDG    [core5*4 + R1]           -> D
core6   FFMA   R8, lsu3, 0.0            -> E
core8   IMAX   x-1, 0                   -> A    ; dx = 1: cx = clamp(x-1, 0, W-1)
core9   IMAD   core0, R4, core8         -> D
lsu5    LDG    [core9*4 + R1]           -> D
core10  FFMA   R9, lsu5, core6          -> E
core13  IMAD   core0, R4, x             -> D
lsu7    LDG    [core13*4 + R1]          -> D
core14  FFMA   R10, lsu7, core10        -> E
core16  IMIN   x+1, R6                  -> A    ; dx = 3: cx = clamp(x+1, 0, W-1)
core17  IMAD   core0, R4, core16        -> D
lsu9    LDG    [core17*4 + R1]          -> D
core18  FFMA   R11, lsu9, core14        -> E
core20  IMIN   x+2, R6                  -> A    ; dx = 4: cx = clamp(x+2, 0, W-1)
core21  IMAD   core0, R4, core20        -> D
lsu11   LDG    [core21*4 + R1]          -> D
core22  FFMA   R12, lsu11, core18       -> E
core23  IMAD   y, R4, x                 -> D
lsu12   STG    [core23*4 + R3], core22
.endgpucc
.gpucc                                  ; pass 1: filter row dy = 1
        grid   R4, R5
core0   IMAX   y-1, 0                   -> C    ; cy = clamp(y-1, 0, H-1)
core1   IMAD   y, R4, x                 -> D    ; the partial sum of the passes before
lsu1    LDG    [core1*4 + R3]           -> E
core4   IMAX   x-2, 0                   -> A    ; dx = 0: cx = clamp(x-2, 0, W-1)
core5   IMAD   core0, R4, core4         -> D
lsu3    LDG    [core5*4 + R1]           -> D
core6   FFMA   R13, lsu3, lsu1          -> E
core8   IMAX   x-1, 0                   -> A    ; dx = 1: cx = clamp(x-1, 0, W-1)
core9   IMAD   core0, R4, core8         -> D
lsu5    LDG    [core9*4 + R1]           -> D
core10  FFMA   R14, lsu5, core6         -> E
core13  IMAD   core0, R4, x             -> D
lsu7    LDG    [core13*4 + R1]          -> D
core14  FFMA   R15, lsu7, core10        -> E
core16  IMIN   x+1, R6                  -> A    ; dx = 3: cx = clamp(x+1, 0, W-1)
core17  IMAD   core0, R4, core16        -> D
lsu9    LDG    [core17*4 + R1]          -> D
core18  FFMA   R16, lsu9, core14        -> E
core20  IMIN   x+2, R6                  -> A    ; dx = 4: cx = clamp(x+2, 0, W-1)
core21  IMAD   core0, R4, core20        -> D
lsu11   LDG    [core21*4 + R1]          -> D
core22  FFMA   R17, lsu11, core18       -> E
core23  IMAD   y, R4, x                 -> D
lsu12   STG    [core23*4 + R3], core22
.endgpucc
.gpucc                                  ; pass 2: filter row dy = 2
        grid   R4, R5
core1   IMAD   y, R4, x                 -> D    ; the partial sum of the passes before
lsu1    LDG    [core1*4 + R3]           -> E
core4   IMAX   x-2, 0                   -> A    ; dx = 0: cx = clamp(x-2, 0, W-1)
core5   IMAD   y, R4, core4             -> D
lsu3    LDG    [core5*4 + R1]           -> D
core6   FFMA   R18, lsu3, lsu1          -> E
core8   IMAX   x-1, 0                   -> A    ; dx = 1: cx = clamp(x-1, 0, W-1)
core9   IMAD   y, R4, core8             -> D
lsu5    LDG    [core9*4 + R1]           -> D
core10  FFMA   R19, lsu5, core6         -> E
core13  IMAD   y, R4, x                 -> D
lsu7    LDG    [core13*4 + R1]          -> D
core14  FFMA   R20, lsu7, core10        -> E
core16  IMIN   x+1, R6                  -> A    ; dx = 3: cx = clamp(x+1, 0, W-1)
core17  IMAD   y, R4, core16            -> D
lsu9    LDG    [core17*4 + R1]          -> D
core18  FFMA   R21, lsu9, core14        -> E
core20  IMIN   x+2, R6                  -> A    ; dx = 4: cx = clamp(x+2, 0, W-1)
core21  IMAD   y, R4, core20            -> D
lsu11   LDG    [core21*4 + R1]          -> D
core22  FFMA   R22, lsu11, core18       -> E
core23  IMAD   y, R4, x                 -> D
lsu12   STG    [core23*4 + R3], core22
.endgpucc
.gpucc                                  ; pass 3: filter row dy = 3
        grid   R4, R5
core0   IMIN   y+1, R7                  -> C    ; cy = clamp(y+1, 0, H-1)
core1   IMAD   y, R4, x                 -> D    ; the partial sum of the passes before
lsu1    LDG    [core1*4 + R3]           -> E
core4   IMAX   x-2, 0                   -> A    ; dx = 0: cx = clamp(x-2, 0, W-1)
core5   IMAD   core0, R4, core4         -> D
lsu3    LDG    [core5*4 + R1]           -> D
core6   FFMA   R23, lsu3, lsu1          -> E
core8   IMAX   x-1, 0                   -> A    ; dx = 1: cx = clamp(x-1, 0, W-1)
core9   IMAD   core0, R4, core8         -> D
lsu5    LDG    [core9*4 + R1]           -> D
core10  FFMA   R24, lsu5, core6         -> E
core13  IMAD   core0, R4, x             -> D
lsu7    LDG    [core13*4 + R1]          -> D
core14  FFMA   R25, lsu7, core10        -> E
core16  IMIN   x+1, R6                  -> A    ; dx = 3: cx = clamp(x+1, 0, W-1)
core17  IMAD   core0, R4, core16        -> D
lsu9    LDG    [core17*4 + R1]          -> D
core18  FFMA   R26, lsu9, core14        -> E
core20  IMIN   x+2, R6                  -> A    ; dx = 4: cx = clamp(x+2, 0, W-1)
core21  IMAD   core0, R4, core20        -> D
lsu11   LDG    [core21*4 + R1]          -> D
core22  FFMA   R27, lsu11, core18       -> E
core23  IMAD   y, R4, x                 -> D
lsu12   STG    [core23*4 + R3], core22
.endgpucc
.gpucc                                  ; pass 4: filter row dy = 4
        grid   R4, R5
core0   IMIN   y+2, R7                  -> C    ; cy = clamp(y+2, 0, H-1)
core1   IMAD   y, R4, x                 -> D    ; the partial sum of the passes before
lsu1    LDG    [core1*4 + R3]           -> E
core4   IMAX   x-2, 0                   -> A    ; dx = 0: cx = clamp(x-2, 0, W-1)
core5   IMAD   core0, R4, core4         -> D
lsu3    LDG    [core5*4 + R1]           -> D
core6   FFMA   R28, lsu3, lsu1          -> E
core8   IMAX   x-1, 0                   -> A    ; dx = 1: cx = clamp(x-1, 0, W-1)
core9   IMAD   core0, R4, core8         -> D
lsu5    LDG    [core9*4 + R1]           -> D
core10  FFMA   R29, lsu5, core6         -> E
core13  IMAD   core0, R4, x             -> D
lsu7    LDG    [core13*4 + R1]          -> D
core14  FFMA   R30, lsu7, core10        -> E
core16  IMIN   x+1, R6                  -> A    ; dx = 3: cx = clamp(x+1, 0, W-1)
core17  IMAD   core0, R4, core16        -> D
lsu9    LDG    [core17*4 + R1]          -> D
core18  FFMA   R31, lsu9, core14        -> E
core20  IMIN   x+2, R6                  -> A    ; dx = 4: cx = clamp(x+2, 0, W-1)
core21  IMAD   core0, R4, core20        -> D
lsu11   LDG    [core21*4 + R1]          -> D
core22  FFMA   R32, lsu11, core18       -> E
core23  IMAD   y, R4, x                 -> D
lsu12   STG    [core23*4 + R3], core22
.endgpucc
        EXIT
