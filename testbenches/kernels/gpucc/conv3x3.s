; gpucc/conv3x3.s: 3x3 FP32 convolution (correlation) of a W x H image with
; clamp-to-edge borders in GPU-CC mode (seed 002; docs/gpucc.md):
; out[y][x] = sum over dy, dx in 0..3 of
; w[dy][dx] * in[clamp(y+dy-1, 0, H-1)][clamp(x+dx-1, 0, W-1)].
;
; Params : in, out  byte addresses of row-major FP32 images [H][W]
;          w        byte address of the 9 FP32 filter weights, row-major
;          W, H     image width and height (>= 1)
; Order  : acc = +0.0; for dy in 0..3: for dx in 0..3:
;          acc = FFMA(w[dy][dx], pixel, acc) (IEEE fused multiply-add, one
;          rounding), as conv3x3_ffma.s: bit-exact to it and to the host
;          reference. The nine FFMA cores form that chain on lane E.
; Shape  : grid 1, block 32 (one warp). The warp reads the parameters and
;          the weights, configures the network and runs it (GCRUN); the
;          network walks the pixels in row-major order: every counted node
;          counts x over 0..W-1 and y over 0..H-1 (grid W, H).
; Network: per tap (dy, dx) an IMAD core forms the element index
;          cy*W + cx, an LSU loads in[index] and an FFMA core accumulates;
;          clamp cores give cx = max(x-1, 0) on lane A, min(x+1, W-1) on B,
;          cy = max(y-1, 0) on C (row 0), later min(y+1, H-1) on C (row 2);
;          index and pixel share lane D, the sum runs on lane E; the last
;          IMAD and LSU store out[y*W + x].
; Memory : in and w read, out written.
.kernel conv3x3_gpucc
.regs 20
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
.gpucc
        grid   R4, R5
; clamped coordinates
core0   IMAX   x-1, 0                  -> A    ; cx0 = max(x-1, 0)
core1   IMIN   x+1, R6                 -> B    ; cx2 = min(x+1, W-1)
core2   IMAX   y-1, 0                  -> C    ; cy0 = max(y-1, 0)
; row 0 (dy = 0)
core3   IMAD   core2, R4, core0        -> D
lsu2    LDG    [core3*4 + R1]          -> D
core4   FFMA   R8, lsu2, 0.0           -> E
core5   IMAD   core2, R4, x            -> D
lsu3    LDG    [core5*4 + R1]          -> D
core6   FFMA   R9, lsu3, core4         -> E
core7   IMAD   core2, R4, core1        -> D
lsu4    LDG    [core7*4 + R1]          -> D
core8   FFMA   R10, lsu4, core6        -> E
; row 1 (dy = 1)
core9   IMAD   y, R4, core0            -> D
lsu5    LDG    [core9*4 + R1]          -> D
core10  FFMA   R11, lsu5, core8        -> E
core11  IMAD   y, R4, x                -> D
lsu6    LDG    [core11*4 + R1]         -> D
core12  FFMA   R12, lsu6, core10       -> E
core13  IMAD   y, R4, core1            -> D
lsu7    LDG    [core13*4 + R1]         -> D
core14  FFMA   R13, lsu7, core12       -> E
; row 2 (dy = 2): cy2 = min(y+1, H-1) takes over lane C
core15  IMIN   y+1, R7                 -> C
core17  IMAD   core15, R4, core0       -> D
lsu9    LDG    [core17*4 + R1]         -> D
core18  FFMA   R14, lsu9, core14       -> E
core19  IMAD   core15, R4, x           -> D
lsu10   LDG    [core19*4 + R1]         -> D
core20  FFMA   R15, lsu10, core18      -> E
core21  IMAD   core15, R4, core1       -> D
lsu11   LDG    [core21*4 + R1]         -> D
core22  FFMA   R16, lsu11, core20      -> E
; out[y*W + x]
core23  IMAD   y, R4, x                -> D
lsu12   STG    [core23*4 + R3], core22
.endgpucc
        EXIT
