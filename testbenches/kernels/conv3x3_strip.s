; conv3x3_strip.s: 3x3 FP32 convolution (correlation) with clamp-to-edge
; borders, as conv3x3.s, computed by register strips: each thread
; computes a column of 16 output pixels and keeps the 3 input rows
; one output uses in registers, so each further output loads only the
; 3 pixels of one new input row (naive: 9 pixels and 9 weights).
;
; Params : in, out  byte addresses of row-major FP32 images [H][W]
;          w        byte address of the 9 FP32 filter weights, row-major
;          W, H     image width and height (any >= 1)
; Order  : per output pixel acc = +0.0; for dy in 0..3: for dx in 0..3:
;          acc = FMAD(w[dy][dx], pixel, acc), with FMAD (Tesla multiply-add,
;          the same on every preset): the flavour of the FMAD presets
;          (tesla, gt200).
; Shape  : grid (ceil(W/32), ceil(H/64)), block (32, 4, 1); thread (tx, ty)
;          of CTA (bx, by) computes the pixels (x, y0+s), s in 0..16, of column
;          x = bx*32+tx from row y0 = by*64+ty*16; a warp covers 32 adjacent
;          columns. Threads with x >= W exit at once, the others after the
;          last row y0+s < H.
; Regs   : weights R0..R8 (loaded once), input window R9..R17
;          (3 rows of 3 pixels, input row i in slot i mod 3), column
;          pointers R18..R20 (in + clamped column * 4).
; Memory : in and w read, out written.
.kernel conv3x3_strip
.regs 28
.param in
.param w
.param out
.param W
.param H
    S2R R9, SR_TID.X
    S2R R10, SR_TID.Y
    S2R R11, SR_CTAID.X
    S2R R12, SR_CTAID.Y
    SHL R11, R11, 5
    IADD R11, R11, R9             ; x = bx*32 + tx
    IMUL.U24 R12, R12, 64
    SHL R9, R10, 4
    IADD R12, R12, R9             ; y0 = by*64 + ty*16
    LDC R13, c[W]
    LDC R14, c[H]
    ISETP.GE P0, R11, R13
    @P0 EXIT
    ISETP.GE P0, R12, R14
    @P0 EXIT
    LDC R15, c[w]
    LDG.64 R0, [R15+0]
    LDG.64 R2, [R15+8]
    LDG.64 R4, [R15+16]
    LDG.64 R6, [R15+24]
    LDG R8, [R15+32]
    ISUB R22, R14, R12             ; rows left
    SHL R27, R13, 2              ; row pitch in bytes
    IADD R26, R14, -1
    IMUL R26, R26, R27          ; (H-1) * pitch
    IADD R9, R12, -2
    IMUL R24, R9, R27            ; u = (y0-2) * pitch, unclamped
    IMAD R9, R12, R13, R11
    SHL R9, R9, 2
    LDC R21, c[out]
    IADD R23, R9, R21           ; &out[y0][x]
    LDC R16, c[in]
    IADD R17, R13, -1
    IADD R9, R11, -1
    IMAX R9, R9, 0
    IMIN R9, R9, R17
    SHL R9, R9, 2
    IADD R18, R9, R16          ; in + clamp(x-1) * 4
    IADD R9, R11, 0
    IMAX R9, R9, 0
    IMIN R9, R9, R17
    SHL R9, R9, 2
    IADD R19, R9, R16          ; in + clamp(x+0) * 4
    IADD R9, R11, 1
    IMAX R9, R9, 0
    IMIN R9, R9, R17
    SHL R9, R9, 2
    IADD R20, R9, R16          ; in + clamp(x+1) * 4
    IADD R24, R24, R27             ; input row y0-1
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R9, R18, R25
    IADD R10, R19, R25
    IADD R11, R20, R25
    LDG R9, [R9]
    LDG R10, [R10]
    LDG R11, [R11]
    IADD R24, R24, R27             ; input row y0+0
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R12, R18, R25
    IADD R13, R19, R25
    IADD R14, R20, R25
    LDG R12, [R12]
    LDG R13, [R13]
    LDG R14, [R14]
; output row y0+0
    IADD R24, R24, R27             ; input row y0+1
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R15, R18, R25
    IADD R16, R19, R25
    IADD R17, R20, R25
    LDG R15, [R15]
    LDG R16, [R16]
    LDG R17, [R17]
    MOV R21, 0
    FMAD R21, R0, R9, R21
    FMAD R21, R1, R10, R21
    FMAD R21, R2, R11, R21
    FMAD R21, R3, R12, R21
    FMAD R21, R4, R13, R21
    FMAD R21, R5, R14, R21
    FMAD R21, R6, R15, R21
    FMAD R21, R7, R16, R21
    FMAD R21, R8, R17, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+1
    ISETP.LE P0, R22, 1
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+2
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R9, R18, R25
    IADD R10, R19, R25
    IADD R11, R20, R25
    LDG R9, [R9]
    LDG R10, [R10]
    LDG R11, [R11]
    MOV R21, 0
    FMAD R21, R0, R12, R21
    FMAD R21, R1, R13, R21
    FMAD R21, R2, R14, R21
    FMAD R21, R3, R15, R21
    FMAD R21, R4, R16, R21
    FMAD R21, R5, R17, R21
    FMAD R21, R6, R9, R21
    FMAD R21, R7, R10, R21
    FMAD R21, R8, R11, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+2
    ISETP.LE P0, R22, 2
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+3
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R12, R18, R25
    IADD R13, R19, R25
    IADD R14, R20, R25
    LDG R12, [R12]
    LDG R13, [R13]
    LDG R14, [R14]
    MOV R21, 0
    FMAD R21, R0, R15, R21
    FMAD R21, R1, R16, R21
    FMAD R21, R2, R17, R21
    FMAD R21, R3, R9, R21
    FMAD R21, R4, R10, R21
    FMAD R21, R5, R11, R21
    FMAD R21, R6, R12, R21
    FMAD R21, R7, R13, R21
    FMAD R21, R8, R14, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+3
    ISETP.LE P0, R22, 3
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+4
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R15, R18, R25
    IADD R16, R19, R25
    IADD R17, R20, R25
    LDG R15, [R15]
    LDG R16, [R16]
    LDG R17, [R17]
    MOV R21, 0
    FMAD R21, R0, R9, R21
    FMAD R21, R1, R10, R21
    FMAD R21, R2, R11, R21
    FMAD R21, R3, R12, R21
    FMAD R21, R4, R13, R21
    FMAD R21, R5, R14, R21
    FMAD R21, R6, R15, R21
    FMAD R21, R7, R16, R21
    FMAD R21, R8, R17, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+4
    ISETP.LE P0, R22, 4
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+5
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R9, R18, R25
    IADD R10, R19, R25
    IADD R11, R20, R25
    LDG R9, [R9]
    LDG R10, [R10]
    LDG R11, [R11]
    MOV R21, 0
    FMAD R21, R0, R12, R21
    FMAD R21, R1, R13, R21
    FMAD R21, R2, R14, R21
    FMAD R21, R3, R15, R21
    FMAD R21, R4, R16, R21
    FMAD R21, R5, R17, R21
    FMAD R21, R6, R9, R21
    FMAD R21, R7, R10, R21
    FMAD R21, R8, R11, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+5
    ISETP.LE P0, R22, 5
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+6
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R12, R18, R25
    IADD R13, R19, R25
    IADD R14, R20, R25
    LDG R12, [R12]
    LDG R13, [R13]
    LDG R14, [R14]
    MOV R21, 0
    FMAD R21, R0, R15, R21
    FMAD R21, R1, R16, R21
    FMAD R21, R2, R17, R21
    FMAD R21, R3, R9, R21
    FMAD R21, R4, R10, R21
    FMAD R21, R5, R11, R21
    FMAD R21, R6, R12, R21
    FMAD R21, R7, R13, R21
    FMAD R21, R8, R14, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+6
    ISETP.LE P0, R22, 6
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+7
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R15, R18, R25
    IADD R16, R19, R25
    IADD R17, R20, R25
    LDG R15, [R15]
    LDG R16, [R16]
    LDG R17, [R17]
    MOV R21, 0
    FMAD R21, R0, R9, R21
    FMAD R21, R1, R10, R21
    FMAD R21, R2, R11, R21
    FMAD R21, R3, R12, R21
    FMAD R21, R4, R13, R21
    FMAD R21, R5, R14, R21
    FMAD R21, R6, R15, R21
    FMAD R21, R7, R16, R21
    FMAD R21, R8, R17, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+7
    ISETP.LE P0, R22, 7
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+8
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R9, R18, R25
    IADD R10, R19, R25
    IADD R11, R20, R25
    LDG R9, [R9]
    LDG R10, [R10]
    LDG R11, [R11]
    MOV R21, 0
    FMAD R21, R0, R12, R21
    FMAD R21, R1, R13, R21
    FMAD R21, R2, R14, R21
    FMAD R21, R3, R15, R21
    FMAD R21, R4, R16, R21
    FMAD R21, R5, R17, R21
    FMAD R21, R6, R9, R21
    FMAD R21, R7, R10, R21
    FMAD R21, R8, R11, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+8
    ISETP.LE P0, R22, 8
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+9
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R12, R18, R25
    IADD R13, R19, R25
    IADD R14, R20, R25
    LDG R12, [R12]
    LDG R13, [R13]
    LDG R14, [R14]
    MOV R21, 0
    FMAD R21, R0, R15, R21
    FMAD R21, R1, R16, R21
    FMAD R21, R2, R17, R21
    FMAD R21, R3, R9, R21
    FMAD R21, R4, R10, R21
    FMAD R21, R5, R11, R21
    FMAD R21, R6, R12, R21
    FMAD R21, R7, R13, R21
    FMAD R21, R8, R14, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+9
    ISETP.LE P0, R22, 9
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+10
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R15, R18, R25
    IADD R16, R19, R25
    IADD R17, R20, R25
    LDG R15, [R15]
    LDG R16, [R16]
    LDG R17, [R17]
    MOV R21, 0
    FMAD R21, R0, R9, R21
    FMAD R21, R1, R10, R21
    FMAD R21, R2, R11, R21
    FMAD R21, R3, R12, R21
    FMAD R21, R4, R13, R21
    FMAD R21, R5, R14, R21
    FMAD R21, R6, R15, R21
    FMAD R21, R7, R16, R21
    FMAD R21, R8, R17, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+10
    ISETP.LE P0, R22, 10
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+11
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R9, R18, R25
    IADD R10, R19, R25
    IADD R11, R20, R25
    LDG R9, [R9]
    LDG R10, [R10]
    LDG R11, [R11]
    MOV R21, 0
    FMAD R21, R0, R12, R21
    FMAD R21, R1, R13, R21
    FMAD R21, R2, R14, R21
    FMAD R21, R3, R15, R21
    FMAD R21, R4, R16, R21
    FMAD R21, R5, R17, R21
    FMAD R21, R6, R9, R21
    FMAD R21, R7, R10, R21
    FMAD R21, R8, R11, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+11
    ISETP.LE P0, R22, 11
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+12
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R12, R18, R25
    IADD R13, R19, R25
    IADD R14, R20, R25
    LDG R12, [R12]
    LDG R13, [R13]
    LDG R14, [R14]
    MOV R21, 0
    FMAD R21, R0, R15, R21
    FMAD R21, R1, R16, R21
    FMAD R21, R2, R17, R21
    FMAD R21, R3, R9, R21
    FMAD R21, R4, R10, R21
    FMAD R21, R5, R11, R21
    FMAD R21, R6, R12, R21
    FMAD R21, R7, R13, R21
    FMAD R21, R8, R14, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+12
    ISETP.LE P0, R22, 12
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+13
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R15, R18, R25
    IADD R16, R19, R25
    IADD R17, R20, R25
    LDG R15, [R15]
    LDG R16, [R16]
    LDG R17, [R17]
    MOV R21, 0
    FMAD R21, R0, R9, R21
    FMAD R21, R1, R10, R21
    FMAD R21, R2, R11, R21
    FMAD R21, R3, R12, R21
    FMAD R21, R4, R13, R21
    FMAD R21, R5, R14, R21
    FMAD R21, R6, R15, R21
    FMAD R21, R7, R16, R21
    FMAD R21, R8, R17, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+13
    ISETP.LE P0, R22, 13
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+14
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R9, R18, R25
    IADD R10, R19, R25
    IADD R11, R20, R25
    LDG R9, [R9]
    LDG R10, [R10]
    LDG R11, [R11]
    MOV R21, 0
    FMAD R21, R0, R12, R21
    FMAD R21, R1, R13, R21
    FMAD R21, R2, R14, R21
    FMAD R21, R3, R15, R21
    FMAD R21, R4, R16, R21
    FMAD R21, R5, R17, R21
    FMAD R21, R6, R9, R21
    FMAD R21, R7, R10, R21
    FMAD R21, R8, R11, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+14
    ISETP.LE P0, R22, 14
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+15
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R12, R18, R25
    IADD R13, R19, R25
    IADD R14, R20, R25
    LDG R12, [R12]
    LDG R13, [R13]
    LDG R14, [R14]
    MOV R21, 0
    FMAD R21, R0, R15, R21
    FMAD R21, R1, R16, R21
    FMAD R21, R2, R17, R21
    FMAD R21, R3, R9, R21
    FMAD R21, R4, R10, R21
    FMAD R21, R5, R11, R21
    FMAD R21, R6, R12, R21
    FMAD R21, R7, R13, R21
    FMAD R21, R8, R14, R21
    STG [R23], R21
    IADD R23, R23, R27
; output row y0+15
    ISETP.LE P0, R22, 15
    @P0 EXIT
    IADD R24, R24, R27             ; input row y0+16
    IMAX R25, R24, 0
    IMIN R25, R25, R26           ; clamped row offset
    IADD R15, R18, R25
    IADD R16, R19, R25
    IADD R17, R20, R25
    LDG R15, [R15]
    LDG R16, [R16]
    LDG R17, [R17]
    MOV R21, 0
    FMAD R21, R0, R9, R21
    FMAD R21, R1, R10, R21
    FMAD R21, R2, R11, R21
    FMAD R21, R3, R12, R21
    FMAD R21, R4, R13, R21
    FMAD R21, R5, R14, R21
    FMAD R21, R6, R15, R21
    FMAD R21, R7, R16, R21
    FMAD R21, R8, R17, R21
    STG [R23], R21
    EXIT
