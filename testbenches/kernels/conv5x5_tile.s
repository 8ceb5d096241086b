; conv5x5_tile.s: 5x5 FP32 convolution (correlation) with clamp-to-edge
; borders, as conv5x5.s, through a shared-memory tile: each CTA loads
; its 36x12 input tile (32x8 outputs and a halo of 2, clamped
; coordinates at the image borders) and the weights into shared memory,
; BAR, then each thread computes one output from shared memory.
;
; Params : in, out  byte addresses of row-major FP32 images [H][W]
;          w        byte address of the 25 FP32 filter weights, row-major
;          W, H     image width and height (any >= 1)
; Order  : acc = +0.0; for dy in 0..5: for dx in 0..5:
;          acc = FFMA(w[dy][dx], pixel, acc), with FFMA (IEEE fused multiply-add, one rounding, the same on every
;          preset; the flavour of the FFMA presets fermi and gpucc).
; Shape  : grid (ceil(W/32), ceil(H/8)), block (32, 8, 1); thread (tx, ty)
;          of CTA (bx, by) computes pixel (x, y) = (bx*32+tx, by*8+ty); a warp
;          is one row of 32 pixels. Every thread loads tile words
;          (ty, tx), (ty, tx+32) if tx < 4, (ty+8, tx) if ty < 4 and
;          (ty+8, tx+32) if both, of tile word (i, j) = in[clamp(by*8+i-2)]
;          [clamp(bx*32+j-2)]; thread t = ty*32+tx < 25 loads w[t]. Threads
;          outside the image exit after the BAR.
; Memory : in and w read, out written; shared tile [12][36] at byte 0,
;          weights at byte 1728.
.kernel conv5x5_tile
.regs 41
.shared 1828
.param in
.param w
.param out
.param W
.param H
    S2R R0, SR_TID.X
    S2R R1, SR_TID.Y
    S2R R2, SR_CTAID.X
    S2R R3, SR_CTAID.Y
    SHL R37, R2, 5
    IADD R37, R37, R0             ; x = bx*32 + tx
    SHL R38, R3, 3
    IADD R38, R38, R1             ; y = by*8 + ty
    LDC R39, c[W]
    LDC R40, c[H]
    LDC R13, c[in]
    IADD R10, R39, -1
    IADD R11, R40, -1
    SHL R12, R39, 2
    IADD R4, R37, -2
    IMAX R4, R4, 0
    IMIN R4, R4, R10
    SHL R6, R4, 2              ; clamp(x-2) * 4
    IADD R4, R37, 30
    IMAX R4, R4, 0
    IMIN R4, R4, R10
    SHL R7, R4, 2              ; clamp(x+30) * 4
    IADD R4, R38, -2
    IMAX R4, R4, 0
    IMIN R4, R4, R11
    IMAD R8, R4, R12, R13   ; row clamp(y-2)
    IADD R4, R38, 6
    IMAX R4, R4, 0
    IMIN R4, R4, R11
    IMAD R9, R4, R12, R13   ; row clamp(y+6)
    ISETP.LT P1, R0, 4
    ISETP.LT P2, R1, 4
    PSETP.AND P3, P1, P2
    IMUL.U24 R35, R1, 36
    IADD R35, R35, R0
    SHL R35, R35, 2              ; &tile[ty][tx]
    IADD R14, R8, R6
    @P1 IADD R15, R8, R7
    @P2 IADD R16, R9, R6
    @P3 IADD R17, R9, R7
    LDG R14, [R14]
    @P1 LDG R15, [R15]
    @P2 LDG R16, [R16]
    @P3 LDG R17, [R17]
    SHL R4, R1, 5
    IADD R4, R4, R0
    SHL R4, R4, 2              ; t*4, t = ty*32 + tx
    ISETP.LT P0, R4, 100
    LDC R5, c[w]
    IADD R5, R5, R4
    @P0 LDG R5, [R5]
    STS [R35+0], R14
    @P1 STS [R35+128], R15
    @P2 STS [R35+1152], R16
    @P3 STS [R35+1280], R17
    @P0 STS [R4+1728], R5
    BAR
    ISETP.GE P0, R37, R39
    @P0 EXIT
    ISETP.GE P0, R38, R40
    @P0 EXIT
    LDS.64 R0, [1728]
    LDS.64 R2, [1736]
    LDS.64 R4, [1744]
    LDS.64 R6, [1752]
    LDS.64 R8, [1760]
    LDS.64 R10, [1768]
    LDS.64 R12, [1776]
    LDS.64 R14, [1784]
    LDS.64 R16, [1792]
    LDS.64 R18, [1800]
    LDS.64 R20, [1808]
    LDS.64 R22, [1816]
    LDS R24, [1824]
    LDS R25, [R35+0]
    LDS R26, [R35+4]
    LDS R27, [R35+8]
    LDS R28, [R35+12]
    LDS R29, [R35+16]
    MOV R36, 0
    LDS R30, [R35+144]
    LDS R31, [R35+148]
    LDS R32, [R35+152]
    LDS R33, [R35+156]
    LDS R34, [R35+160]
    FFMA R36, R0, R25, R36
    FFMA R36, R1, R26, R36
    FFMA R36, R2, R27, R36
    FFMA R36, R3, R28, R36
    FFMA R36, R4, R29, R36
    LDS R25, [R35+288]
    LDS R26, [R35+292]
    LDS R27, [R35+296]
    LDS R28, [R35+300]
    LDS R29, [R35+304]
    FFMA R36, R5, R30, R36
    FFMA R36, R6, R31, R36
    FFMA R36, R7, R32, R36
    FFMA R36, R8, R33, R36
    FFMA R36, R9, R34, R36
    LDS R30, [R35+432]
    LDS R31, [R35+436]
    LDS R32, [R35+440]
    LDS R33, [R35+444]
    LDS R34, [R35+448]
    FFMA R36, R10, R25, R36
    FFMA R36, R11, R26, R36
    FFMA R36, R12, R27, R36
    FFMA R36, R13, R28, R36
    FFMA R36, R14, R29, R36
    LDS R25, [R35+576]
    LDS R26, [R35+580]
    LDS R27, [R35+584]
    LDS R28, [R35+588]
    LDS R29, [R35+592]
    FFMA R36, R15, R30, R36
    FFMA R36, R16, R31, R36
    FFMA R36, R17, R32, R36
    FFMA R36, R18, R33, R36
    FFMA R36, R19, R34, R36
    FFMA R36, R20, R25, R36
    FFMA R36, R21, R26, R36
    FFMA R36, R22, R27, R36
    FFMA R36, R23, R28, R36
    FFMA R36, R24, R29, R36
    IMAD R25, R38, R39, R37
    SHL R25, R25, 2
    LDC R26, c[out]
    IADD R25, R25, R26
    STG [R25], R36
    EXIT
