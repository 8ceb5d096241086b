; conv5x5_tile.s: 5x5 FP32 convolution (correlation) with clamp-to-edge
; borders, as conv5x5.s, through a shared-memory tile: each CTA loads
; its 36x36 input tile (32x32 outputs and a halo of 2, clamped
; coordinates at the image borders) and the weights into shared memory,
; BAR, then each thread computes a column of 4 outputs from shared memory,
; keeping the 5 tile rows of the current output in registers (5 shared
; loads per further output).
;
; Params : in, out  byte addresses of row-major FP32 images [H][W]
;          w        byte address of the 25 FP32 filter weights, row-major
;          W, H     image width and height (any >= 1)
; Order  : per output pixel acc = +0.0; for dy in 0..5: for dx in 0..5:
;          acc = FFMA(w[dy][dx], pixel, acc), with FFMA (IEEE fused multiply-add, one rounding, the same on every
;          preset; the flavour of the FFMA presets fermi and gpucc).
; Shape  : grid (ceil(W/32), ceil(H/32)), block (32, 8, 1); thread (tx, ty)
;          of CTA (bx, by) computes the pixels (x, y0+j), j in 0..4, x =
;          bx*32+tx, y0 = by*32+ty*4; a warp reads one tile row at a time.
;          Every thread loads the tile words (ty+8m, tx), m in 0..4, and
;          (ty+32, tx) if ty < 4, each also at column tx+32 if tx < 4;
;          tile word (i, j) = in[clamp(by*32+i-2)][clamp(bx*32+j-2)]; thread
;          t = ty*32+tx < 25 loads w[t]. Threads with x >= W or y0 >= H exit
;          after the BAR, the others after their last row y0+j < H.
; Memory : in and w read, out written; shared tile [36][36] at byte 0,
;          weights at byte 5184.
.kernel conv5x5_tile
.regs 59
.shared 5284
.param in
.param w
.param out
.param W
.param H
    S2R R0, SR_TID.X
    S2R R1, SR_TID.Y
    S2R R2, SR_CTAID.X
    S2R R3, SR_CTAID.Y
    SHL R52, R2, 5
    IADD R52, R52, R0             ; x = bx*32 + tx
    SHL R3, R3, 5            ; by*32
    SHL R4, R1, 2
    IADD R53, R3, R4             ; y0 = by*32 + ty*4
    LDC R54, c[W]
    LDC R55, c[H]
    LDC R9, c[in]
    IADD R8, R54, -1
    SHL R56, R54, 2              ; row pitch in bytes
    SHL R11, R54, 5                 ; 8 rows
    IADD R12, R55, -1
    IMUL R12, R12, R56        ; (H-1) * pitch
    IADD R4, R3, R1
    IADD R4, R4, -2
    IMUL R10, R4, R56            ; (by*32+ty-2) * pitch, unclamped
    IADD R4, R52, -2
    IMAX R4, R4, 0
    IMIN R4, R4, R8
    SHL R4, R4, 2
    IADD R6, R4, R9           ; in + clamp(x-2) * 4
    IADD R4, R52, 30
    IMAX R4, R4, 0
    IMIN R4, R4, R8
    SHL R4, R4, 2
    IADD R7, R4, R9           ; in + clamp(x+30) * 4
    ISETP.LT P1, R0, 4
    ISETP.LT P2, R1, 4
    PSETP.AND P3, P1, P2
    IMUL.U24 R13, R1, 36
    IADD R13, R13, R0
    SHL R13, R13, 2              ; &tile[ty][tx]
    IMUL.U24 R50, R1, 144
    IADD R50, R50, R0
    SHL R50, R50, 2              ; &tile[ty*4][tx]
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
    IADD R18, R6, R4
    LDG R18, [R18]
    @P1 IADD R19, R7, R4
    @P1 LDG R19, [R19]
    IADD R10, R10, R11
    IMAX R4, R10, 0
    IMIN R4, R4, R12          ; tile row ty+24
    IADD R20, R6, R4
    LDG R20, [R20]
    @P1 IADD R21, R7, R4
    @P1 LDG R21, [R21]
    IADD R10, R10, R11
    IMAX R4, R10, 0
    IMIN R4, R4, R12          ; tile row ty+32
    @P2 IADD R22, R6, R4
    @P2 LDG R22, [R22]
    @P3 IADD R23, R7, R4
    @P3 LDG R23, [R23]
    SHL R4, R1, 5
    IADD R4, R4, R0
    SHL R4, R4, 2              ; t*4, t = ty*32 + tx
    ISETP.LT P0, R4, 100
    LDC R5, c[w]
    IADD R5, R5, R4
    @P0 LDG R5, [R5]
    STS [R13+0], R14
    @P1 STS [R13+128], R15
    STS [R13+1152], R16
    @P1 STS [R13+1280], R17
    STS [R13+2304], R18
    @P1 STS [R13+2432], R19
    STS [R13+3456], R20
    @P1 STS [R13+3584], R21
    @P2 STS [R13+4608], R22
    @P3 STS [R13+4736], R23
    @P0 STS [R4+5184], R5
    BAR
    ISETP.GE P0, R52, R54
    @P0 EXIT
    ISUB R58, R55, R53            ; rows left
    ISETP.LE P0, R58, 0
    @P0 EXIT
    IMAD R25, R53, R54, R52
    SHL R25, R25, 2
    LDC R26, c[out]
    IADD R57, R25, R26           ; &out[y0][x]
    LDS.64 R0, [5184]
    LDS.64 R2, [5192]
    LDS.64 R4, [5200]
    LDS.64 R6, [5208]
    LDS.64 R8, [5216]
    LDS.64 R10, [5224]
    LDS.64 R12, [5232]
    LDS.64 R14, [5240]
    LDS.64 R16, [5248]
    LDS.64 R18, [5256]
    LDS.64 R20, [5264]
    LDS.64 R22, [5272]
    LDS R24, [5280]
    LDS R25, [R50+0]
    LDS R26, [R50+4]
    LDS R27, [R50+8]
    LDS R28, [R50+12]
    LDS R29, [R50+16]
    LDS R30, [R50+144]
    LDS R31, [R50+148]
    LDS R32, [R50+152]
    LDS R33, [R50+156]
    LDS R34, [R50+160]
    LDS R35, [R50+288]
    LDS R36, [R50+292]
    LDS R37, [R50+296]
    LDS R38, [R50+300]
    LDS R39, [R50+304]
    LDS R40, [R50+432]
    LDS R41, [R50+436]
    LDS R42, [R50+440]
    LDS R43, [R50+444]
    LDS R44, [R50+448]
; output row y0+0
    LDS R45, [R50+576]
    LDS R46, [R50+580]
    LDS R47, [R50+584]
    LDS R48, [R50+588]
    LDS R49, [R50+592]
    MOV R51, 0
    FFMA R51, R0, R25, R51
    FFMA R51, R1, R26, R51
    FFMA R51, R2, R27, R51
    FFMA R51, R3, R28, R51
    FFMA R51, R4, R29, R51
    FFMA R51, R5, R30, R51
    FFMA R51, R6, R31, R51
    FFMA R51, R7, R32, R51
    FFMA R51, R8, R33, R51
    FFMA R51, R9, R34, R51
    FFMA R51, R10, R35, R51
    FFMA R51, R11, R36, R51
    FFMA R51, R12, R37, R51
    FFMA R51, R13, R38, R51
    FFMA R51, R14, R39, R51
    FFMA R51, R15, R40, R51
    FFMA R51, R16, R41, R51
    FFMA R51, R17, R42, R51
    FFMA R51, R18, R43, R51
    FFMA R51, R19, R44, R51
    FFMA R51, R20, R45, R51
    FFMA R51, R21, R46, R51
    FFMA R51, R22, R47, R51
    FFMA R51, R23, R48, R51
    FFMA R51, R24, R49, R51
    STG [R57], R51
    IADD R57, R57, R56
; output row y0+1
    ISETP.LE P0, R58, 1
    @P0 EXIT
    LDS R25, [R50+720]
    LDS R26, [R50+724]
    LDS R27, [R50+728]
    LDS R28, [R50+732]
    LDS R29, [R50+736]
    MOV R51, 0
    FFMA R51, R0, R30, R51
    FFMA R51, R1, R31, R51
    FFMA R51, R2, R32, R51
    FFMA R51, R3, R33, R51
    FFMA R51, R4, R34, R51
    FFMA R51, R5, R35, R51
    FFMA R51, R6, R36, R51
    FFMA R51, R7, R37, R51
    FFMA R51, R8, R38, R51
    FFMA R51, R9, R39, R51
    FFMA R51, R10, R40, R51
    FFMA R51, R11, R41, R51
    FFMA R51, R12, R42, R51
    FFMA R51, R13, R43, R51
    FFMA R51, R14, R44, R51
    FFMA R51, R15, R45, R51
    FFMA R51, R16, R46, R51
    FFMA R51, R17, R47, R51
    FFMA R51, R18, R48, R51
    FFMA R51, R19, R49, R51
    FFMA R51, R20, R25, R51
    FFMA R51, R21, R26, R51
    FFMA R51, R22, R27, R51
    FFMA R51, R23, R28, R51
    FFMA R51, R24, R29, R51
    STG [R57], R51
    IADD R57, R57, R56
; output row y0+2
    ISETP.LE P0, R58, 2
    @P0 EXIT
    LDS R30, [R50+864]
    LDS R31, [R50+868]
    LDS R32, [R50+872]
    LDS R33, [R50+876]
    LDS R34, [R50+880]
    MOV R51, 0
    FFMA R51, R0, R35, R51
    FFMA R51, R1, R36, R51
    FFMA R51, R2, R37, R51
    FFMA R51, R3, R38, R51
    FFMA R51, R4, R39, R51
    FFMA R51, R5, R40, R51
    FFMA R51, R6, R41, R51
    FFMA R51, R7, R42, R51
    FFMA R51, R8, R43, R51
    FFMA R51, R9, R44, R51
    FFMA R51, R10, R45, R51
    FFMA R51, R11, R46, R51
    FFMA R51, R12, R47, R51
    FFMA R51, R13, R48, R51
    FFMA R51, R14, R49, R51
    FFMA R51, R15, R25, R51
    FFMA R51, R16, R26, R51
    FFMA R51, R17, R27, R51
    FFMA R51, R18, R28, R51
    FFMA R51, R19, R29, R51
    FFMA R51, R20, R30, R51
    FFMA R51, R21, R31, R51
    FFMA R51, R22, R32, R51
    FFMA R51, R23, R33, R51
    FFMA R51, R24, R34, R51
    STG [R57], R51
    IADD R57, R57, R56
; output row y0+3
    ISETP.LE P0, R58, 3
    @P0 EXIT
    LDS R35, [R50+1008]
    LDS R36, [R50+1012]
    LDS R37, [R50+1016]
    LDS R38, [R50+1020]
    LDS R39, [R50+1024]
    MOV R51, 0
    FFMA R51, R0, R40, R51
    FFMA R51, R1, R41, R51
    FFMA R51, R2, R42, R51
    FFMA R51, R3, R43, R51
    FFMA R51, R4, R44, R51
    FFMA R51, R5, R45, R51
    FFMA R51, R6, R46, R51
    FFMA R51, R7, R47, R51
    FFMA R51, R8, R48, R51
    FFMA R51, R9, R49, R51
    FFMA R51, R10, R25, R51
    FFMA R51, R11, R26, R51
    FFMA R51, R12, R27, R51
    FFMA R51, R13, R28, R51
    FFMA R51, R14, R29, R51
    FFMA R51, R15, R30, R51
    FFMA R51, R16, R31, R51
    FFMA R51, R17, R32, R51
    FFMA R51, R18, R33, R51
    FFMA R51, R19, R34, R51
    FFMA R51, R20, R35, R51
    FFMA R51, R21, R36, R51
    FFMA R51, R22, R37, R51
    FFMA R51, R23, R38, R51
    FFMA R51, R24, R39, R51
    STG [R57], R51
    EXIT
