; conv5x5_fmad.s: 5x5 FP32 convolution (correlation) of a W x H image with
; clamp-to-edge borders: out[y][x] = sum over dy, dx in 0..5 of
; w[dy][dx] * in[clamp(y+dy-2, 0, H-1)][clamp(x+dx-2, 0, W-1)].
;
; Params : in, out  byte addresses of row-major FP32 images [H][W]
;          w        byte address of the 25 FP32 filter weights, row-major
;          W, H     image width and height (>= 1; the tests use 512x512)
; Order  : acc = +0.0; for dy in 0..5: for dx in 0..5:
;          acc = FMAD(w[dy][dx], pixel, acc), with FMAD (Tesla multiply-add):
;          conv5x5.s for the FMAD presets (tesla, gt200).
; Shape  : grid (ceil(W/16), ceil(H/16)), block (16, 16, 1); thread (tx, ty)
;          of CTA (bx, by) computes pixel (x, y) = (bx*16+tx, by*16+ty);
;          threads outside the image exit.
; Memory : in and w read, out written.
.kernel conv5x5_fmad
.regs 24
.param in
.param w
.param out
.param W
.param H
    S2R R0, SR_TID.X
    S2R R1, SR_TID.Y
    S2R R2, SR_CTAID.X
    S2R R3, SR_CTAID.Y
    SHL R4, R2, 4
    IADD R4, R4, R0             ; x
    SHL R5, R3, 4
    IADD R5, R5, R1             ; y
    LDC R6, c[W]
    LDC R7, c[H]
    ISETP.GE P0, R4, R6
    @P0 EXIT
    ISETP.GE P0, R5, R7
    @P0 EXIT
    IADD R2, R6, -1             ; W - 1
    IADD R3, R7, -1             ; H - 1
    SHL R1, R6, 2               ; row pitch in bytes
    LDC R8, c[in]
    LDC R9, c[w]
    IADD R0, R5, -2
    IMAX R0, R0, 0
    IMIN R0, R0, R3
    IMAD R10, R0, R1, R8        ; row y-2
    IADD R0, R5, -1
    IMAX R0, R0, 0
    IMIN R0, R0, R3
    IMAD R11, R0, R1, R8        ; row y-1
    IADD R0, R5, 0
    IMAX R0, R0, 0
    IMIN R0, R0, R3
    IMAD R12, R0, R1, R8        ; row y+0
    IADD R0, R5, 1
    IMAX R0, R0, 0
    IMIN R0, R0, R3
    IMAD R13, R0, R1, R8        ; row y+1
    IADD R0, R5, 2
    IMAX R0, R0, 0
    IMIN R0, R0, R3
    IMAD R14, R0, R1, R8        ; row y+2
    IADD R0, R4, -2
    IMAX R0, R0, 0
    IMIN R0, R0, R2
    SHL R15, R0, 2             ; column x-2
    IADD R0, R4, -1
    IMAX R0, R0, 0
    IMIN R0, R0, R2
    SHL R16, R0, 2             ; column x-1
    IADD R0, R4, 0
    IMAX R0, R0, 0
    IMIN R0, R0, R2
    SHL R17, R0, 2             ; column x+0
    IADD R0, R4, 1
    IMAX R0, R0, 0
    IMIN R0, R0, R2
    SHL R18, R0, 2             ; column x+1
    IADD R0, R4, 2
    IMAX R0, R0, 0
    IMIN R0, R0, R2
    SHL R19, R0, 2             ; column x+2
    MOV R20, 0
    IADD R21, R10, R15
    LDG R22, [R21]
    LDG R23, [R9+0]
    FMAD R20, R23, R22, R20
    IADD R21, R10, R16
    LDG R22, [R21]
    LDG R23, [R9+4]
    FMAD R20, R23, R22, R20
    IADD R21, R10, R17
    LDG R22, [R21]
    LDG R23, [R9+8]
    FMAD R20, R23, R22, R20
    IADD R21, R10, R18
    LDG R22, [R21]
    LDG R23, [R9+12]
    FMAD R20, R23, R22, R20
    IADD R21, R10, R19
    LDG R22, [R21]
    LDG R23, [R9+16]
    FMAD R20, R23, R22, R20
    IADD R21, R11, R15
    LDG R22, [R21]
    LDG R23, [R9+20]
    FMAD R20, R23, R22, R20
    IADD R21, R11, R16
    LDG R22, [R21]
    LDG R23, [R9+24]
    FMAD R20, R23, R22, R20
    IADD R21, R11, R17
    LDG R22, [R21]
    LDG R23, [R9+28]
    FMAD R20, R23, R22, R20
    IADD R21, R11, R18
    LDG R22, [R21]
    LDG R23, [R9+32]
    FMAD R20, R23, R22, R20
    IADD R21, R11, R19
    LDG R22, [R21]
    LDG R23, [R9+36]
    FMAD R20, R23, R22, R20
    IADD R21, R12, R15
    LDG R22, [R21]
    LDG R23, [R9+40]
    FMAD R20, R23, R22, R20
    IADD R21, R12, R16
    LDG R22, [R21]
    LDG R23, [R9+44]
    FMAD R20, R23, R22, R20
    IADD R21, R12, R17
    LDG R22, [R21]
    LDG R23, [R9+48]
    FMAD R20, R23, R22, R20
    IADD R21, R12, R18
    LDG R22, [R21]
    LDG R23, [R9+52]
    FMAD R20, R23, R22, R20
    IADD R21, R12, R19
    LDG R22, [R21]
    LDG R23, [R9+56]
    FMAD R20, R23, R22, R20
    IADD R21, R13, R15
    LDG R22, [R21]
    LDG R23, [R9+60]
    FMAD R20, R23, R22, R20
    IADD R21, R13, R16
    LDG R22, [R21]
    LDG R23, [R9+64]
    FMAD R20, R23, R22, R20
    IADD R21, R13, R17
    LDG R22, [R21]
    LDG R23, [R9+68]
    FMAD R20, R23, R22, R20
    IADD R21, R13, R18
    LDG R22, [R21]
    LDG R23, [R9+72]
    FMAD R20, R23, R22, R20
    IADD R21, R13, R19
    LDG R22, [R21]
    LDG R23, [R9+76]
    FMAD R20, R23, R22, R20
    IADD R21, R14, R15
    LDG R22, [R21]
    LDG R23, [R9+80]
    FMAD R20, R23, R22, R20
    IADD R21, R14, R16
    LDG R22, [R21]
    LDG R23, [R9+84]
    FMAD R20, R23, R22, R20
    IADD R21, R14, R17
    LDG R22, [R21]
    LDG R23, [R9+88]
    FMAD R20, R23, R22, R20
    IADD R21, R14, R18
    LDG R22, [R21]
    LDG R23, [R9+92]
    FMAD R20, R23, R22, R20
    IADD R21, R14, R19
    LDG R22, [R21]
    LDG R23, [R9+96]
    FMAD R20, R23, R22, R20
    IMAD R0, R5, R6, R4
    SHL R0, R0, 2
    LDC R8, c[out]
    IADD R0, R0, R8
    STG [R0], R20
    EXIT
