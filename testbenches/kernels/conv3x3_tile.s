; conv3x3_tile.s: 3x3 FP32 convolution (correlation) with clamp-to-edge
; borders, as conv3x3.s, through a shared-memory tile: each CTA loads
; its 34x34 input tile (32x32 outputs and a halo of 1, clamped
; coordinates at the image borders) and the weights into shared memory,
; BAR, then each thread computes a column of 4 outputs from shared memory,
; keeping the 3 tile rows of the current output in registers (3 shared
; loads per further output).
;
; Params : in, out  byte addresses of row-major FP32 images [H][W]
;          w        byte address of the 9 FP32 filter weights, row-major
;          W, H     image width and height (any >= 1)
; Order  : per output pixel acc = +0.0; for dy in 0..3: for dx in 0..3:
;          acc = FMAD(w[dy][dx], pixel, acc), with FMAD (Tesla multiply-add,
;          the same on every preset): the flavour of the FMAD presets
;          (tesla, gt200).
; Shape  : grid (ceil(W/32), ceil(H/32)), block (32, 8, 1); thread (tx, ty)
;          of CTA (bx, by) computes the pixels (x, y0+j), j in 0..4, x =
;          bx*32+tx, y0 = by*32+ty*4; a warp reads one tile row at a time.
;          Every thread loads the tile words (ty+8m, tx), m in 0..4, and
;          (ty+32, tx) if ty < 2, each also at column tx+32 if tx < 2;
;          tile word (i, j) = in[clamp(by*32+i-1)][clamp(bx*32+j-1)]; thread
;          t = ty*32+tx < 9 loads w[t]. Threads with x >= W or y0 >= H exit
;          after the BAR, the others after their last row y0+j < H.
; Memory : in and w read, out written; shared tile [34][34] at byte 0,
;          weights at byte 4624.
.kernel conv3x3_tile
.regs 30
.shared 4660
.param in
.param w
.param out
.param W
.param H
    S2R R0, SR_TID.X
    S2R R1, SR_TID.Y
    S2R R2, SR_CTAID.X
    S2R R3, SR_CTAID.Y
    SHL R20, R2, 5
    IADD R20, R20, R0             ; x = bx*32 + tx
    SHL R3, R3, 5            ; by*32
    SHL R4, R1, 2
    IADD R21, R3, R4             ; y0 = by*32 + ty*4
    LDC R22, c[W]
    LDC R23, c[H]
    LDC R9, c[in]
    IADD R8, R22, -1
    SHL R24, R22, 2              ; row pitch in bytes
    SHL R11, R22, 5                 ; 8 rows
    IADD R12, R23, -1
    IMUL R12, R12, R24        ; (H-1) * pitch
    IADD R4, R3, R1
    IADD R4, R4, -1
    IMUL R10, R4, R24            ; (by*32+ty-1) * pitch, unclamped
    IADD R4, R20, -1
    IMAX R4, R4, 0
    IMIN R4, R4, R8
    SHL R4, R4, 2
    IADD R6, R4, R9           ; in + clamp(x-1) * 4
    IADD R4, R20, 31
    IMAX R4, R4, 0
    IMIN R4, R4, R8
    SHL R4, R4, 2
    IADD R7, R4, R9           ; in + clamp(x+31) * 4
    ISETP.LT P1, R0, 2
    ISETP.LT P2, R1, 2
    PSETP.AND P3, P1, P2
    IMUL.U24 R13, R1, 34
    IADD R13, R13, R0
    SHL R13, R13, 2              ; &tile[ty][tx]
    IMUL.U24 R18, R1, 136
    IADD R18, R18, R0
    SHL R18, R18, 2              ; &tile[ty*4][tx]
    IMAX R4, R10, 0
    IMIN R4, R4, R12          ; tile row ty+0
    IADD R14, R6, R4
    LDG R14, [R14]
    @P1 IADD R15, R7, R4
    @P1 LDG R15, [R15]
    IADD R10, R10, R11
    IMAX R4, R10, 0
    IMIN R4, R4, R12          ; tile row ty+8
    IADD R16, R6, R4
    LDG R16, [R16]
    @P1 IADD R17, R7, R4
    @P1 LDG R17, [R17]
    IADD R10, R10, R11
    IMAX R4, R10, 0
    IMIN R4, R4, R12          ; tile row ty+16
    IADD R19, R6, R4
    LDG R19, [R19]
    @P1 IADD R25, R7, R4
    @P1 LDG R25, [R25]
    IADD R10, R10, R11
    IMAX R4, R10, 0
    IMIN R4, R4, R12          ; tile row ty+24
    IADD R26, R6, R4
    LDG R26, [R26]
    @P1 IADD R27, R7, R4
    @P1 LDG R27, [R27]
    IADD R10, R10, R11
    IMAX R4, R10, 0
    IMIN R4, R4, R12          ; tile row ty+32
    @P2 IADD R28, R6, R4
    @P2 LDG R28, [R28]
    @P3 IADD R29, R7, R4
    @P3 LDG R29, [R29]
    SHL R4, R1, 5
    IADD R4, R4, R0
    SHL R4, R4, 2              ; t*4, t = ty*32 + tx
    ISETP.LT P0, R4, 36
    LDC R5, c[w]
    IADD R5, R5, R4
    @P0 LDG R5, [R5]
    STS [R13+0], R14
    @P1 STS [R13+128], R15
    STS [R13+1088], R16
    @P1 STS [R13+1216], R17
    STS [R13+2176], R19
    @P1 STS [R13+2304], R25
    STS [R13+3264], R26
    @P1 STS [R13+3392], R27
    @P2 STS [R13+4352], R28
    @P3 STS [R13+4480], R29
    @P0 STS [R4+4624], R5
    BAR
    ISETP.GE P0, R20, R22
    @P0 EXIT
    ISUB R26, R23, R21            ; rows left
    ISETP.LE P0, R26, 0
    @P0 EXIT
    IMAD R9, R21, R22, R20
    SHL R9, R9, 2
    LDC R10, c[out]
    IADD R25, R9, R10           ; &out[y0][x]
    LDS.64 R0, [4624]
    LDS.64 R2, [4632]
    LDS.64 R4, [4640]
    LDS.64 R6, [4648]
    LDS R8, [4656]
    LDS R9, [R18+0]
    LDS R10, [R18+4]
    LDS R11, [R18+8]
    LDS R12, [R18+136]
    LDS R13, [R18+140]
    LDS R14, [R18+144]
; output row y0+0
    LDS R15, [R18+272]
    LDS R16, [R18+276]
    LDS R17, [R18+280]
    MOV R19, 0
    FMAD R19, R0, R9, R19
    FMAD R19, R1, R10, R19
    FMAD R19, R2, R11, R19
    FMAD R19, R3, R12, R19
    FMAD R19, R4, R13, R19
    FMAD R19, R5, R14, R19
    FMAD R19, R6, R15, R19
    FMAD R19, R7, R16, R19
    FMAD R19, R8, R17, R19
    STG [R25], R19
    IADD R25, R25, R24
; output row y0+1
    ISETP.LE P0, R26, 1
    @P0 EXIT
    LDS R9, [R18+408]
    LDS R10, [R18+412]
    LDS R11, [R18+416]
    MOV R19, 0
    FMAD R19, R0, R12, R19
    FMAD R19, R1, R13, R19
    FMAD R19, R2, R14, R19
    FMAD R19, R3, R15, R19
    FMAD R19, R4, R16, R19
    FMAD R19, R5, R17, R19
    FMAD R19, R6, R9, R19
    FMAD R19, R7, R10, R19
    FMAD R19, R8, R11, R19
    STG [R25], R19
    IADD R25, R25, R24
; output row y0+2
    ISETP.LE P0, R26, 2
    @P0 EXIT
    LDS R12, [R18+544]
    LDS R13, [R18+548]
    LDS R14, [R18+552]
    MOV R19, 0
    FMAD R19, R0, R15, R19
    FMAD R19, R1, R16, R19
    FMAD R19, R2, R17, R19
    FMAD R19, R3, R9, R19
    FMAD R19, R4, R10, R19
    FMAD R19, R5, R11, R19
    FMAD R19, R6, R12, R19
    FMAD R19, R7, R13, R19
    FMAD R19, R8, R14, R19
    STG [R25], R19
    IADD R25, R25, R24
; output row y0+3
    ISETP.LE P0, R26, 3
    @P0 EXIT
    LDS R15, [R18+680]
    LDS R16, [R18+684]
    LDS R17, [R18+688]
    MOV R19, 0
    FMAD R19, R0, R9, R19
    FMAD R19, R1, R10, R19
    FMAD R19, R2, R11, R19
    FMAD R19, R3, R12, R19
    FMAD R19, R4, R13, R19
    FMAD R19, R5, R14, R19
    FMAD R19, R6, R15, R19
    FMAD R19, R7, R16, R19
    FMAD R19, R8, R17, R19
    STG [R25], R19
    EXIT
