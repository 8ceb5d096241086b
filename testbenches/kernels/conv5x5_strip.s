; conv5x5_strip.s: 5x5 FP32 convolution (correlation) with clamp-to-edge
; borders, as conv5x5.s, computed by register strips: each thread
; computes a column of 16 output pixels and keeps the 5 input rows
; one output uses in registers, so each further output loads only the
; 5 pixels of one new input row (naive: 25 pixels and 25 weights).
;
; Params : in, out  byte addresses of row-major FP32 images [H][W]
;          w        byte address of the 25 FP32 filter weights, row-major
;          W, H     image width and height (any >= 1)
; Order  : per output pixel acc = +0.0; for dy in 0..5: for dx in 0..5:
;          acc = FFMA(w[dy][dx], pixel, acc), with FFMA (IEEE fused multiply-add, one rounding, the same on every
;          preset; the flavour of the FFMA presets fermi and gpucc).
; Shape  : grid (ceil(W/32), ceil(H/64)), block (32, 4, 1); thread (tx, ty)
;          of CTA (bx, by) computes the pixels (x, y0+s), s in 0..16, of column
;          x = bx*32+tx from row y0 = by*64+ty*16; a warp covers 32 adjacent
;          columns. Threads with x >= W exit at once, the others after the
;          last row y0+s < H.
; Regs   : weights R0..R24 (loaded once), input window R25..R49
;          (5 rows of 5 pixels, input row i in slot i mod 5), column
;          pointers R50..R54 (in + clamped column * 4).
; Memory : in and w read, out written.
.kernel conv5x5_strip
.regs 62
.param in
.param w
.param out
.param W
.param H
    S2R R25, SR_TID.X
    S2R R26, SR_TID.Y
    S2R R27, SR_CTAID.X
    S2R R28, SR_CTAID.Y
    SHL R27, R27, 5
    IADD R27, R27, R25             ; x = bx*32 + tx
    IMUL.U24 R28, R28, 64
    SHL R25, R26, 4
    IADD R28, R28, R25             ; y0 = by*64 + ty*16
    LDC R29, c[W]
    LDC R30, c[H]
    ISETP.GE P0, R27, R29
    @P0 EXIT
    ISETP.GE P0, R28, R30
    @P0 EXIT
    LDC R31, c[w]
    LDG.64 R0, [R31+0]
    LDG.64 R2, [R31+8]
    LDG.64 R4, [R31+16]
    LDG.64 R6, [R31+24]
    LDG.64 R8, [R31+32]
    LDG.64 R10, [R31+40]
    LDG.64 R12, [R31+48]
    LDG.64 R14, [R31+56]
    LDG.64 R16, [R31+64]
    LDG.64 R18, [R31+72]
    LDG.64 R20, [R31+80]
    LDG.64 R22, [R31+88]
    LDG R24, [R31+96]
    ISUB R56, R30, R28             ; rows left
    SHL R61, R29, 2              ; row pitch in bytes
    IADD R60, R30, -1
    IMUL R60, R60, R61          ; (H-1) * pitch
    IADD R25, R28, -3
    IMUL R58, R25, R61            ; u = (y0-3) * pitch, unclamped
    IMAD R25, R28, R29, R27
    SHL R25, R25, 2
    LDC R34, c[out]
    IADD R57, R25, R34           ; &out[y0][x]
    LDC R32, c[in]
    IADD R33, R29, -1
    IADD R25, R27, -2
    IMAX R25, R25, 0
    IMIN R25, R25, R33
    SHL R25, R25, 2
    IADD R50, R25, R32          ; in + clamp(x-2) * 4
    IADD R25, R27, -1
    IMAX R25, R25, 0
    IMIN R25, R25, R33
    SHL R25, R25, 2
    IADD R51, R25, R32          ; in + clamp(x-1) * 4
    IADD R25, R27, 0
    IMAX R25, R25, 0
    IMIN R25, R25, R33
    SHL R25, R25, 2
    IADD R52, R25, R32          ; in + clamp(x+0) * 4
    IADD R25, R27, 1
    IMAX R25, R25, 0
    IMIN R25, R25, R33
    SHL R25, R25, 2
    IADD R53, R25, R32          ; in + clamp(x+1) * 4
    IADD R25, R27, 2
    IMAX R25, R25, 0
    IMIN R25, R25, R33
    SHL R25, R25, 2
    IADD R54, R25, R32          ; in + clamp(x+2) * 4
    IADD R58, R58, R61             ; input row y0-2
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R25, R50, R59
    IADD R26, R51, R59
    IADD R27, R52, R59
    IADD R28, R53, R59
    IADD R29, R54, R59
    LDG R25, [R25]
    LDG R26, [R26]
    LDG R27, [R27]
    LDG R28, [R28]
    LDG R29, [R29]
    IADD R58, R58, R61             ; input row y0-1
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R30, R50, R59
    IADD R31, R51, R59
    IADD R32, R52, R59
    IADD R33, R53, R59
    IADD R34, R54, R59
    LDG R30, [R30]
    LDG R31, [R31]
    LDG R32, [R32]
    LDG R33, [R33]
    LDG R34, [R34]
    IADD R58, R58, R61             ; input row y0+0
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R35, R50, R59
    IADD R36, R51, R59
    IADD R37, R52, R59
    IADD R38, R53, R59
    IADD R39, R54, R59
    LDG R35, [R35]
    LDG R36, [R36]
    LDG R37, [R37]
    LDG R38, [R38]
    LDG R39, [R39]
    IADD R58, R58, R61             ; input row y0+1
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R40, R50, R59
    IADD R41, R51, R59
    IADD R42, R52, R59
    IADD R43, R53, R59
    IADD R44, R54, R59
    LDG R40, [R40]
    LDG R41, [R41]
    LDG R42, [R42]
    LDG R43, [R43]
    LDG R44, [R44]
; output row y0+0
    IADD R58, R58, R61             ; input row y0+2
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R45, R50, R59
    IADD R46, R51, R59
    IADD R47, R52, R59
    IADD R48, R53, R59
    IADD R49, R54, R59
    LDG R45, [R45]
    LDG R46, [R46]
    LDG R47, [R47]
    LDG R48, [R48]
    LDG R49, [R49]
    MOV R55, 0
    FFMA R55, R0, R25, R55
    FFMA R55, R1, R26, R55
    FFMA R55, R2, R27, R55
    FFMA R55, R3, R28, R55
    FFMA R55, R4, R29, R55
    FFMA R55, R5, R30, R55
    FFMA R55, R6, R31, R55
    FFMA R55, R7, R32, R55
    FFMA R55, R8, R33, R55
    FFMA R55, R9, R34, R55
    FFMA R55, R10, R35, R55
    FFMA R55, R11, R36, R55
    FFMA R55, R12, R37, R55
    FFMA R55, R13, R38, R55
    FFMA R55, R14, R39, R55
    FFMA R55, R15, R40, R55
    FFMA R55, R16, R41, R55
    FFMA R55, R17, R42, R55
    FFMA R55, R18, R43, R55
    FFMA R55, R19, R44, R55
    FFMA R55, R20, R45, R55
    FFMA R55, R21, R46, R55
    FFMA R55, R22, R47, R55
    FFMA R55, R23, R48, R55
    FFMA R55, R24, R49, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+1
    ISETP.LE P0, R56, 1
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+3
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R25, R50, R59
    IADD R26, R51, R59
    IADD R27, R52, R59
    IADD R28, R53, R59
    IADD R29, R54, R59
    LDG R25, [R25]
    LDG R26, [R26]
    LDG R27, [R27]
    LDG R28, [R28]
    LDG R29, [R29]
    MOV R55, 0
    FFMA R55, R0, R30, R55
    FFMA R55, R1, R31, R55
    FFMA R55, R2, R32, R55
    FFMA R55, R3, R33, R55
    FFMA R55, R4, R34, R55
    FFMA R55, R5, R35, R55
    FFMA R55, R6, R36, R55
    FFMA R55, R7, R37, R55
    FFMA R55, R8, R38, R55
    FFMA R55, R9, R39, R55
    FFMA R55, R10, R40, R55
    FFMA R55, R11, R41, R55
    FFMA R55, R12, R42, R55
    FFMA R55, R13, R43, R55
    FFMA R55, R14, R44, R55
    FFMA R55, R15, R45, R55
    FFMA R55, R16, R46, R55
    FFMA R55, R17, R47, R55
    FFMA R55, R18, R48, R55
    FFMA R55, R19, R49, R55
    FFMA R55, R20, R25, R55
    FFMA R55, R21, R26, R55
    FFMA R55, R22, R27, R55
    FFMA R55, R23, R28, R55
    FFMA R55, R24, R29, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+2
    ISETP.LE P0, R56, 2
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+4
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R30, R50, R59
    IADD R31, R51, R59
    IADD R32, R52, R59
    IADD R33, R53, R59
    IADD R34, R54, R59
    LDG R30, [R30]
    LDG R31, [R31]
    LDG R32, [R32]
    LDG R33, [R33]
    LDG R34, [R34]
    MOV R55, 0
    FFMA R55, R0, R35, R55
    FFMA R55, R1, R36, R55
    FFMA R55, R2, R37, R55
    FFMA R55, R3, R38, R55
    FFMA R55, R4, R39, R55
    FFMA R55, R5, R40, R55
    FFMA R55, R6, R41, R55
    FFMA R55, R7, R42, R55
    FFMA R55, R8, R43, R55
    FFMA R55, R9, R44, R55
    FFMA R55, R10, R45, R55
    FFMA R55, R11, R46, R55
    FFMA R55, R12, R47, R55
    FFMA R55, R13, R48, R55
    FFMA R55, R14, R49, R55
    FFMA R55, R15, R25, R55
    FFMA R55, R16, R26, R55
    FFMA R55, R17, R27, R55
    FFMA R55, R18, R28, R55
    FFMA R55, R19, R29, R55
    FFMA R55, R20, R30, R55
    FFMA R55, R21, R31, R55
    FFMA R55, R22, R32, R55
    FFMA R55, R23, R33, R55
    FFMA R55, R24, R34, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+3
    ISETP.LE P0, R56, 3
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+5
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R35, R50, R59
    IADD R36, R51, R59
    IADD R37, R52, R59
    IADD R38, R53, R59
    IADD R39, R54, R59
    LDG R35, [R35]
    LDG R36, [R36]
    LDG R37, [R37]
    LDG R38, [R38]
    LDG R39, [R39]
    MOV R55, 0
    FFMA R55, R0, R40, R55
    FFMA R55, R1, R41, R55
    FFMA R55, R2, R42, R55
    FFMA R55, R3, R43, R55
    FFMA R55, R4, R44, R55
    FFMA R55, R5, R45, R55
    FFMA R55, R6, R46, R55
    FFMA R55, R7, R47, R55
    FFMA R55, R8, R48, R55
    FFMA R55, R9, R49, R55
    FFMA R55, R10, R25, R55
    FFMA R55, R11, R26, R55
    FFMA R55, R12, R27, R55
    FFMA R55, R13, R28, R55
    FFMA R55, R14, R29, R55
    FFMA R55, R15, R30, R55
    FFMA R55, R16, R31, R55
    FFMA R55, R17, R32, R55
    FFMA R55, R18, R33, R55
    FFMA R55, R19, R34, R55
    FFMA R55, R20, R35, R55
    FFMA R55, R21, R36, R55
    FFMA R55, R22, R37, R55
    FFMA R55, R23, R38, R55
    FFMA R55, R24, R39, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+4
    ISETP.LE P0, R56, 4
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+6
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R40, R50, R59
    IADD R41, R51, R59
    IADD R42, R52, R59
    IADD R43, R53, R59
    IADD R44, R54, R59
    LDG R40, [R40]
    LDG R41, [R41]
    LDG R42, [R42]
    LDG R43, [R43]
    LDG R44, [R44]
    MOV R55, 0
    FFMA R55, R0, R45, R55
    FFMA R55, R1, R46, R55
    FFMA R55, R2, R47, R55
    FFMA R55, R3, R48, R55
    FFMA R55, R4, R49, R55
    FFMA R55, R5, R25, R55
    FFMA R55, R6, R26, R55
    FFMA R55, R7, R27, R55
    FFMA R55, R8, R28, R55
    FFMA R55, R9, R29, R55
    FFMA R55, R10, R30, R55
    FFMA R55, R11, R31, R55
    FFMA R55, R12, R32, R55
    FFMA R55, R13, R33, R55
    FFMA R55, R14, R34, R55
    FFMA R55, R15, R35, R55
    FFMA R55, R16, R36, R55
    FFMA R55, R17, R37, R55
    FFMA R55, R18, R38, R55
    FFMA R55, R19, R39, R55
    FFMA R55, R20, R40, R55
    FFMA R55, R21, R41, R55
    FFMA R55, R22, R42, R55
    FFMA R55, R23, R43, R55
    FFMA R55, R24, R44, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+5
    ISETP.LE P0, R56, 5
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+7
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R45, R50, R59
    IADD R46, R51, R59
    IADD R47, R52, R59
    IADD R48, R53, R59
    IADD R49, R54, R59
    LDG R45, [R45]
    LDG R46, [R46]
    LDG R47, [R47]
    LDG R48, [R48]
    LDG R49, [R49]
    MOV R55, 0
    FFMA R55, R0, R25, R55
    FFMA R55, R1, R26, R55
    FFMA R55, R2, R27, R55
    FFMA R55, R3, R28, R55
    FFMA R55, R4, R29, R55
    FFMA R55, R5, R30, R55
    FFMA R55, R6, R31, R55
    FFMA R55, R7, R32, R55
    FFMA R55, R8, R33, R55
    FFMA R55, R9, R34, R55
    FFMA R55, R10, R35, R55
    FFMA R55, R11, R36, R55
    FFMA R55, R12, R37, R55
    FFMA R55, R13, R38, R55
    FFMA R55, R14, R39, R55
    FFMA R55, R15, R40, R55
    FFMA R55, R16, R41, R55
    FFMA R55, R17, R42, R55
    FFMA R55, R18, R43, R55
    FFMA R55, R19, R44, R55
    FFMA R55, R20, R45, R55
    FFMA R55, R21, R46, R55
    FFMA R55, R22, R47, R55
    FFMA R55, R23, R48, R55
    FFMA R55, R24, R49, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+6
    ISETP.LE P0, R56, 6
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+8
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R25, R50, R59
    IADD R26, R51, R59
    IADD R27, R52, R59
    IADD R28, R53, R59
    IADD R29, R54, R59
    LDG R25, [R25]
    LDG R26, [R26]
    LDG R27, [R27]
    LDG R28, [R28]
    LDG R29, [R29]
    MOV R55, 0
    FFMA R55, R0, R30, R55
    FFMA R55, R1, R31, R55
    FFMA R55, R2, R32, R55
    FFMA R55, R3, R33, R55
    FFMA R55, R4, R34, R55
    FFMA R55, R5, R35, R55
    FFMA R55, R6, R36, R55
    FFMA R55, R7, R37, R55
    FFMA R55, R8, R38, R55
    FFMA R55, R9, R39, R55
    FFMA R55, R10, R40, R55
    FFMA R55, R11, R41, R55
    FFMA R55, R12, R42, R55
    FFMA R55, R13, R43, R55
    FFMA R55, R14, R44, R55
    FFMA R55, R15, R45, R55
    FFMA R55, R16, R46, R55
    FFMA R55, R17, R47, R55
    FFMA R55, R18, R48, R55
    FFMA R55, R19, R49, R55
    FFMA R55, R20, R25, R55
    FFMA R55, R21, R26, R55
    FFMA R55, R22, R27, R55
    FFMA R55, R23, R28, R55
    FFMA R55, R24, R29, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+7
    ISETP.LE P0, R56, 7
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+9
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R30, R50, R59
    IADD R31, R51, R59
    IADD R32, R52, R59
    IADD R33, R53, R59
    IADD R34, R54, R59
    LDG R30, [R30]
    LDG R31, [R31]
    LDG R32, [R32]
    LDG R33, [R33]
    LDG R34, [R34]
    MOV R55, 0
    FFMA R55, R0, R35, R55
    FFMA R55, R1, R36, R55
    FFMA R55, R2, R37, R55
    FFMA R55, R3, R38, R55
    FFMA R55, R4, R39, R55
    FFMA R55, R5, R40, R55
    FFMA R55, R6, R41, R55
    FFMA R55, R7, R42, R55
    FFMA R55, R8, R43, R55
    FFMA R55, R9, R44, R55
    FFMA R55, R10, R45, R55
    FFMA R55, R11, R46, R55
    FFMA R55, R12, R47, R55
    FFMA R55, R13, R48, R55
    FFMA R55, R14, R49, R55
    FFMA R55, R15, R25, R55
    FFMA R55, R16, R26, R55
    FFMA R55, R17, R27, R55
    FFMA R55, R18, R28, R55
    FFMA R55, R19, R29, R55
    FFMA R55, R20, R30, R55
    FFMA R55, R21, R31, R55
    FFMA R55, R22, R32, R55
    FFMA R55, R23, R33, R55
    FFMA R55, R24, R34, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+8
    ISETP.LE P0, R56, 8
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+10
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R35, R50, R59
    IADD R36, R51, R59
    IADD R37, R52, R59
    IADD R38, R53, R59
    IADD R39, R54, R59
    LDG R35, [R35]
    LDG R36, [R36]
    LDG R37, [R37]
    LDG R38, [R38]
    LDG R39, [R39]
    MOV R55, 0
    FFMA R55, R0, R40, R55
    FFMA R55, R1, R41, R55
    FFMA R55, R2, R42, R55
    FFMA R55, R3, R43, R55
    FFMA R55, R4, R44, R55
    FFMA R55, R5, R45, R55
    FFMA R55, R6, R46, R55
    FFMA R55, R7, R47, R55
    FFMA R55, R8, R48, R55
    FFMA R55, R9, R49, R55
    FFMA R55, R10, R25, R55
    FFMA R55, R11, R26, R55
    FFMA R55, R12, R27, R55
    FFMA R55, R13, R28, R55
    FFMA R55, R14, R29, R55
    FFMA R55, R15, R30, R55
    FFMA R55, R16, R31, R55
    FFMA R55, R17, R32, R55
    FFMA R55, R18, R33, R55
    FFMA R55, R19, R34, R55
    FFMA R55, R20, R35, R55
    FFMA R55, R21, R36, R55
    FFMA R55, R22, R37, R55
    FFMA R55, R23, R38, R55
    FFMA R55, R24, R39, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+9
    ISETP.LE P0, R56, 9
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+11
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R40, R50, R59
    IADD R41, R51, R59
    IADD R42, R52, R59
    IADD R43, R53, R59
    IADD R44, R54, R59
    LDG R40, [R40]
    LDG R41, [R41]
    LDG R42, [R42]
    LDG R43, [R43]
    LDG R44, [R44]
    MOV R55, 0
    FFMA R55, R0, R45, R55
    FFMA R55, R1, R46, R55
    FFMA R55, R2, R47, R55
    FFMA R55, R3, R48, R55
    FFMA R55, R4, R49, R55
    FFMA R55, R5, R25, R55
    FFMA R55, R6, R26, R55
    FFMA R55, R7, R27, R55
    FFMA R55, R8, R28, R55
    FFMA R55, R9, R29, R55
    FFMA R55, R10, R30, R55
    FFMA R55, R11, R31, R55
    FFMA R55, R12, R32, R55
    FFMA R55, R13, R33, R55
    FFMA R55, R14, R34, R55
    FFMA R55, R15, R35, R55
    FFMA R55, R16, R36, R55
    FFMA R55, R17, R37, R55
    FFMA R55, R18, R38, R55
    FFMA R55, R19, R39, R55
    FFMA R55, R20, R40, R55
    FFMA R55, R21, R41, R55
    FFMA R55, R22, R42, R55
    FFMA R55, R23, R43, R55
    FFMA R55, R24, R44, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+10
    ISETP.LE P0, R56, 10
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+12
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R45, R50, R59
    IADD R46, R51, R59
    IADD R47, R52, R59
    IADD R48, R53, R59
    IADD R49, R54, R59
    LDG R45, [R45]
    LDG R46, [R46]
    LDG R47, [R47]
    LDG R48, [R48]
    LDG R49, [R49]
    MOV R55, 0
    FFMA R55, R0, R25, R55
    FFMA R55, R1, R26, R55
    FFMA R55, R2, R27, R55
    FFMA R55, R3, R28, R55
    FFMA R55, R4, R29, R55
    FFMA R55, R5, R30, R55
    FFMA R55, R6, R31, R55
    FFMA R55, R7, R32, R55
    FFMA R55, R8, R33, R55
    FFMA R55, R9, R34, R55
    FFMA R55, R10, R35, R55
    FFMA R55, R11, R36, R55
    FFMA R55, R12, R37, R55
    FFMA R55, R13, R38, R55
    FFMA R55, R14, R39, R55
    FFMA R55, R15, R40, R55
    FFMA R55, R16, R41, R55
    FFMA R55, R17, R42, R55
    FFMA R55, R18, R43, R55
    FFMA R55, R19, R44, R55
    FFMA R55, R20, R45, R55
    FFMA R55, R21, R46, R55
    FFMA R55, R22, R47, R55
    FFMA R55, R23, R48, R55
    FFMA R55, R24, R49, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+11
    ISETP.LE P0, R56, 11
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+13
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R25, R50, R59
    IADD R26, R51, R59
    IADD R27, R52, R59
    IADD R28, R53, R59
    IADD R29, R54, R59
    LDG R25, [R25]
    LDG R26, [R26]
    LDG R27, [R27]
    LDG R28, [R28]
    LDG R29, [R29]
    MOV R55, 0
    FFMA R55, R0, R30, R55
    FFMA R55, R1, R31, R55
    FFMA R55, R2, R32, R55
    FFMA R55, R3, R33, R55
    FFMA R55, R4, R34, R55
    FFMA R55, R5, R35, R55
    FFMA R55, R6, R36, R55
    FFMA R55, R7, R37, R55
    FFMA R55, R8, R38, R55
    FFMA R55, R9, R39, R55
    FFMA R55, R10, R40, R55
    FFMA R55, R11, R41, R55
    FFMA R55, R12, R42, R55
    FFMA R55, R13, R43, R55
    FFMA R55, R14, R44, R55
    FFMA R55, R15, R45, R55
    FFMA R55, R16, R46, R55
    FFMA R55, R17, R47, R55
    FFMA R55, R18, R48, R55
    FFMA R55, R19, R49, R55
    FFMA R55, R20, R25, R55
    FFMA R55, R21, R26, R55
    FFMA R55, R22, R27, R55
    FFMA R55, R23, R28, R55
    FFMA R55, R24, R29, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+12
    ISETP.LE P0, R56, 12
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+14
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R30, R50, R59
    IADD R31, R51, R59
    IADD R32, R52, R59
    IADD R33, R53, R59
    IADD R34, R54, R59
    LDG R30, [R30]
    LDG R31, [R31]
    LDG R32, [R32]
    LDG R33, [R33]
    LDG R34, [R34]
    MOV R55, 0
    FFMA R55, R0, R35, R55
    FFMA R55, R1, R36, R55
    FFMA R55, R2, R37, R55
    FFMA R55, R3, R38, R55
    FFMA R55, R4, R39, R55
    FFMA R55, R5, R40, R55
    FFMA R55, R6, R41, R55
    FFMA R55, R7, R42, R55
    FFMA R55, R8, R43, R55
    FFMA R55, R9, R44, R55
    FFMA R55, R10, R45, R55
    FFMA R55, R11, R46, R55
    FFMA R55, R12, R47, R55
    FFMA R55, R13, R48, R55
    FFMA R55, R14, R49, R55
    FFMA R55, R15, R25, R55
    FFMA R55, R16, R26, R55
    FFMA R55, R17, R27, R55
    FFMA R55, R18, R28, R55
    FFMA R55, R19, R29, R55
    FFMA R55, R20, R30, R55
    FFMA R55, R21, R31, R55
    FFMA R55, R22, R32, R55
    FFMA R55, R23, R33, R55
    FFMA R55, R24, R34, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+13
    ISETP.LE P0, R56, 13
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+15
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R35, R50, R59
    IADD R36, R51, R59
    IADD R37, R52, R59
    IADD R38, R53, R59
    IADD R39, R54, R59
    LDG R35, [R35]
    LDG R36, [R36]
    LDG R37, [R37]
    LDG R38, [R38]
    LDG R39, [R39]
    MOV R55, 0
    FFMA R55, R0, R40, R55
    FFMA R55, R1, R41, R55
    FFMA R55, R2, R42, R55
    FFMA R55, R3, R43, R55
    FFMA R55, R4, R44, R55
    FFMA R55, R5, R45, R55
    FFMA R55, R6, R46, R55
    FFMA R55, R7, R47, R55
    FFMA R55, R8, R48, R55
    FFMA R55, R9, R49, R55
    FFMA R55, R10, R25, R55
    FFMA R55, R11, R26, R55
    FFMA R55, R12, R27, R55
    FFMA R55, R13, R28, R55
    FFMA R55, R14, R29, R55
    FFMA R55, R15, R30, R55
    FFMA R55, R16, R31, R55
    FFMA R55, R17, R32, R55
    FFMA R55, R18, R33, R55
    FFMA R55, R19, R34, R55
    FFMA R55, R20, R35, R55
    FFMA R55, R21, R36, R55
    FFMA R55, R22, R37, R55
    FFMA R55, R23, R38, R55
    FFMA R55, R24, R39, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+14
    ISETP.LE P0, R56, 14
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+16
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R40, R50, R59
    IADD R41, R51, R59
    IADD R42, R52, R59
    IADD R43, R53, R59
    IADD R44, R54, R59
    LDG R40, [R40]
    LDG R41, [R41]
    LDG R42, [R42]
    LDG R43, [R43]
    LDG R44, [R44]
    MOV R55, 0
    FFMA R55, R0, R45, R55
    FFMA R55, R1, R46, R55
    FFMA R55, R2, R47, R55
    FFMA R55, R3, R48, R55
    FFMA R55, R4, R49, R55
    FFMA R55, R5, R25, R55
    FFMA R55, R6, R26, R55
    FFMA R55, R7, R27, R55
    FFMA R55, R8, R28, R55
    FFMA R55, R9, R29, R55
    FFMA R55, R10, R30, R55
    FFMA R55, R11, R31, R55
    FFMA R55, R12, R32, R55
    FFMA R55, R13, R33, R55
    FFMA R55, R14, R34, R55
    FFMA R55, R15, R35, R55
    FFMA R55, R16, R36, R55
    FFMA R55, R17, R37, R55
    FFMA R55, R18, R38, R55
    FFMA R55, R19, R39, R55
    FFMA R55, R20, R40, R55
    FFMA R55, R21, R41, R55
    FFMA R55, R22, R42, R55
    FFMA R55, R23, R43, R55
    FFMA R55, R24, R44, R55
    STG [R57], R55
    IADD R57, R57, R61
; output row y0+15
    ISETP.LE P0, R56, 15
    @P0 EXIT
    IADD R58, R58, R61             ; input row y0+17
    IMAX R59, R58, 0
    IMIN R59, R59, R60           ; clamped row offset
    IADD R45, R50, R59
    IADD R46, R51, R59
    IADD R47, R52, R59
    IADD R48, R53, R59
    IADD R49, R54, R59
    LDG R45, [R45]
    LDG R46, [R46]
    LDG R47, [R47]
    LDG R48, [R48]
    LDG R49, [R49]
    MOV R55, 0
    FFMA R55, R0, R25, R55
    FFMA R55, R1, R26, R55
    FFMA R55, R2, R27, R55
    FFMA R55, R3, R28, R55
    FFMA R55, R4, R29, R55
    FFMA R55, R5, R30, R55
    FFMA R55, R6, R31, R55
    FFMA R55, R7, R32, R55
    FFMA R55, R8, R33, R55
    FFMA R55, R9, R34, R55
    FFMA R55, R10, R35, R55
    FFMA R55, R11, R36, R55
    FFMA R55, R12, R37, R55
    FFMA R55, R13, R38, R55
    FFMA R55, R14, R39, R55
    FFMA R55, R15, R40, R55
    FFMA R55, R16, R41, R55
    FFMA R55, R17, R42, R55
    FFMA R55, R18, R43, R55
    FFMA R55, R19, R44, R55
    FFMA R55, R20, R45, R55
    FFMA R55, R21, R46, R55
    FFMA R55, R22, R47, R55
    FFMA R55, R23, R48, R55
    FFMA R55, R24, R49, R55
    STG [R57], R55
    EXIT
