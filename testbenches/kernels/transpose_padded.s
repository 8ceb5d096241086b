; transpose_padded.s: out = transpose(in) through a 16x16 shared-memory tile.
; The tile has a row pitch of 17 words (16x17), so a column read spreads
; over all 16 banks (conflict-free).
;
; Params : in, out  byte addresses of 32-bit matrices in[H][W] and out[W][H]
;                   (row-major; the words are moved, never interpreted)
;          W, H     columns and rows of `in` (any, >= 1)
; Shape  : grid (ceil(W/16), ceil(H/16)), block (16, 16, 1). Thread (tx, ty)
;          of CTA (bx, by) loads in[by*16+ty][bx*16+tx] into tile[ty][tx],
;          then after BAR stores tile[tx][ty] to out[bx*16+ty][by*16+tx];
;          both accesses are guarded against the matrix edges (a thread
;          outside `out` exits before reading the tile: its word was never
;          stored, shared memory being undefined at CTA start).
; Memory : in read, out written; shared tile at byte 0, pitch 17 words.
.kernel transpose_padded
.regs 16
.shared 1088
.param in
.param out
.param W
.param H
    S2R R0, SR_TID.X            ; tx
    S2R R1, SR_TID.Y            ; ty
    S2R R2, SR_CTAID.X          ; bx
    S2R R3, SR_CTAID.Y          ; by
    LDC R4, c[W]
    LDC R5, c[H]
    SHL R6, R2, 4
    IADD R6, R6, R0             ; x = bx*16 + tx
    SHL R7, R3, 4
    IADD R7, R7, R1             ; y = by*16 + ty
    ISETP.NE P1, RZ, 0
    ISETP.LT P0, R6, R4
    @P0 ISETP.LT P1, R7, R5     ; x < W && y < H
    IMAD R8, R7, R4, R6
    SHL R8, R8, 2
    LDC R9, c[in]
    IADD R8, R8, R9
    @P1 LDG R10, [R8]
    MOV R11, 17
    IMAD R12, R1, R11, R0
    SHL R12, R12, 2             ; &tile[ty][tx]
    @P1 STS [R12], R10
    BAR
    IMAD R12, R0, R11, R1
    SHL R12, R12, 2             ; &tile[tx][ty]
    SHL R6, R3, 4
    IADD R6, R6, R0             ; ox = by*16 + tx (column of out)
    SHL R7, R2, 4
    IADD R7, R7, R1             ; oy = bx*16 + ty (row of out)
    ISETP.NE P1, RZ, 0
    ISETP.LT P0, R6, R5
    @P0 ISETP.LT P1, R7, R4     ; ox < H && oy < W
    @!P1 EXIT
    LDS R10, [R12]              ; after the edge test: outside, the word was never stored
    IMAD R8, R7, R5, R6
    SHL R8, R8, 2
    LDC R9, c[out]
    IADD R8, R8, R9
    STG [R8], R10
    EXIT
