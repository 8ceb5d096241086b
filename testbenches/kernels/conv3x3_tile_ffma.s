; conv3x3_tile_ffma.s: 3x3 FP32 convolution (correlation) with clamp-to-edge
; borders, as conv3x3.s, through a shared-memory tile: each CTA loads
; its 34x10 input tile (32x8 outputs and a halo of 1, clamped
; coordinates at the image borders) and the weights into shared memory,
; BAR, then each thread computes one output from shared memory.
;
; Params : in, out  byte addresses of row-major FP32 images [H][W]
;          w        byte address of the 9 FP32 filter weights, row-major
;          W, H     image width and height (any >= 1)
; Order  : acc = +0.0; for dy in 0..3: for dx in 0..3:
;          acc = FFMA(w[dy][dx], pixel, acc), with FFMA (IEEE fused multiply-add, one rounding, the same on every
;          preset; the flavour of the FFMA presets fermi and gpucc).
; Shape  : grid (ceil(W/32), ceil(H/8)), block (32, 8, 1); thread (tx, ty)
;          of CTA (bx, by) computes pixel (x, y) = (bx*32+tx, by*8+ty); a warp
;          is one row of 32 pixels. Every thread loads tile words
;          (ty, tx), (ty, tx+32) if tx < 2, (ty+8, tx) if ty < 2 and
;          (ty+8, tx+32) if both, of tile word (i, j) = in[clamp(by*8+i-1)]
;          [clamp(bx*32+j-1)]; thread t = ty*32+tx < 9 loads w[t]. Threads
;          outside the image exit after the BAR.
; Memory : in and w read, out written; shared tile [10][34] at byte 0,
;          weights at byte 1360.
.kernel conv3x3_tile_ffma
.regs 23
.shared 1396
.param in
.param w
.param out
.param W
.param H
    S2R R0, SR_TID.X
    S2R R1, SR_TID.Y
    S2R R2, SR_CTAID.X
    S2R R3, SR_CTAID.Y
    SHL R17, R2, 5
    IADD R17, R17, R0             ; x = bx*32 + tx
    SHL R18, R3, 3
    IADD R18, R18, R1             ; y = by*8 + ty
    LDC R19, c[W]
    LDC R20, c[H]
    LDC R13, c[in]
    IADD R10, R19, -1
    IADD R11, R20, -1
    SHL R12, R19, 2
    IADD R4, R17, -1
    IMAX R4, R4, 0
    IMIN R4, R4, R10
    SHL R6, R4, 2              ; clamp(x-1) * 4
    IADD R4, R17, 31
    IMAX R4, R4, 0
    IMIN R4, R4, R10
    SHL R7, R4, 2              ; clamp(x+31) * 4
    IADD R4, R18, -1
    IMAX R4, R4, 0
    IMIN R4, R4, R11
    IMAD R8, R4, R12, R13   ; row clamp(y-1)
    IADD R4, R18, 7
    IMAX R4, R4, 0
    IMIN R4, R4, R11
    IMAD R9, R4, R12, R13   ; row clamp(y+7)
    ISETP.LT P1, R0, 2
    ISETP.LT P2, R1, 2
    PSETP.AND P3, P1, P2
    IMUL.U24 R15, R1, 34
    IADD R15, R15, R0
    SHL R15, R15, 2              ; &tile[ty][tx]
    IADD R14, R8, R6
    @P1 IADD R16, R8, R7
    @P2 IADD R21, R9, R6
    @P3 IADD R22, R9, R7
    LDG R14, [R14]
    @P1 LDG R16, [R16]
    @P2 LDG R21, [R21]
    @P3 LDG R22, [R22]
    SHL R4, R1, 5
    IADD R4, R4, R0
    SHL R4, R4, 2              ; t*4, t = ty*32 + tx
    ISETP.LT P0, R4, 36
    LDC R5, c[w]
    IADD R5, R5, R4
    @P0 LDG R5, [R5]
    STS [R15+0], R14
    @P1 STS [R15+128], R16
    @P2 STS [R15+1088], R21
    @P3 STS [R15+1216], R22
    @P0 STS [R4+1360], R5
    BAR
    ISETP.GE P0, R17, R19
    @P0 EXIT
    ISETP.GE P0, R18, R20
    @P0 EXIT
    LDS.64 R0, [1360]
    LDS.64 R2, [1368]
    LDS.64 R4, [1376]
    LDS.64 R6, [1384]
    LDS R8, [1392]
    LDS R9, [R15+0]
    LDS R10, [R15+4]
    LDS R11, [R15+8]
    MOV R16, 0
    LDS R12, [R15+136]
    LDS R13, [R15+140]
    LDS R14, [R15+144]
    FFMA R16, R0, R9, R16
    FFMA R16, R1, R10, R16
    FFMA R16, R2, R11, R16
    LDS R9, [R15+272]
    LDS R10, [R15+276]
    LDS R11, [R15+280]
    FFMA R16, R3, R12, R16
    FFMA R16, R4, R13, R16
    FFMA R16, R5, R14, R16
    FFMA R16, R6, R9, R16
    FFMA R16, R7, R10, R16
    FFMA R16, R8, R11, R16
    IMAD R9, R18, R19, R17
    SHL R9, R9, 2
    LDC R10, c[out]
    IADD R9, R9, R10
    STG [R9], R16
    EXIT
