; matmul_ffma.s: tiled FP32 matrix multiply C = A * B with FFMA,
; 16x16 tiles of A and B staged through shared memory, BAR around each tile.
; Multiply-add: FFMA (IEEE 754-2008 fused multiply-add, round to nearest even; the
; same on every preset).
;
; Params : A, B, C  byte addresses of row-major FP32 matrices A[M][K],
;                   B[K][N], C[M][N] in global memory
;          M, N, K  dimensions (any, K >= 1; tiles past an edge are padded
;                   with +0.0)
; Shape  : grid (ceil(N/16), ceil(M/16)), block (16, 16, 1); thread (tx, ty)
;          of CTA (bx, by) computes C[by*16+ty][bx*16+tx].
; Order  : acc = +0.0; for t in 0, 16, .. < K: for k in 0..16:
;          acc = FFMA(As[ty][k], Bs[k][tx], acc) where As[ty][k] = A[row][t+k]
;          and Bs[k][tx] = B[t+k][col] (+0.0 outside the matrices).
; Memory : A and B read, C written; shared As at byte 0, Bs at byte 1024.
.kernel matmul_ffma
.regs 20
.shared 2048
.param A
.param B
.param C
.param M
.param N
.param K
    S2R R0, SR_TID.X            ; tx
    S2R R1, SR_TID.Y            ; ty
    S2R R2, SR_CTAID.X
    S2R R3, SR_CTAID.Y
    SHL R4, R3, 4
    IADD R4, R4, R1             ; row = by*16 + ty
    SHL R5, R2, 4
    IADD R5, R5, R0             ; col = bx*16 + tx
    LDC R6, c[M]
    LDC R7, c[N]
    LDC R8, c[K]
    ISETP.LT P0, R4, R6         ; row < M
    ISETP.LT P2, R5, R7         ; col < N
    SHL R11, R1, 4
    IADD R11, R11, R0
    SHL R11, R11, 2             ; &As[ty][tx] (= &Bs[ty][tx] - 1024)
    SHL R16, R1, 6              ; &As[ty][0]
    SHL R17, R0, 2
    IADD R17, R17, 1024         ; &Bs[0][tx]
    MOV R10, 0                  ; acc = +0.0
    MOV R9, 0                   ; t
tile:
    IADD R13, R9, R0            ; ka = t + tx
    ISETP.NE P1, RZ, 0          ; P1 = false
    @P0 ISETP.LT P1, R13, R8    ; P1 = row < M && ka < K
    MOV R14, 0
    IMAD R15, R4, R8, R13
    SHL R15, R15, 2
    LDC R19, c[A]
    IADD R15, R15, R19
    @P1 LDG R14, [R15]          ; A[row][ka]
    STS [R11], R14
    IADD R13, R9, R1            ; kb = t + ty
    ISETP.NE P1, RZ, 0
    @P2 ISETP.LT P1, R13, R8    ; P1 = col < N && kb < K
    MOV R14, 0
    IMAD R15, R13, R7, R5
    SHL R15, R15, 2
    LDC R19, c[B]
    IADD R15, R15, R19
    @P1 LDG R14, [R15]          ; B[kb][col]
    STS [R11+1024], R14
    BAR
    LDS R18, [R16+0]
    LDS R19, [R17+0]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+4]
    LDS R19, [R17+64]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+8]
    LDS R19, [R17+128]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+12]
    LDS R19, [R17+192]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+16]
    LDS R19, [R17+256]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+20]
    LDS R19, [R17+320]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+24]
    LDS R19, [R17+384]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+28]
    LDS R19, [R17+448]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+32]
    LDS R19, [R17+512]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+36]
    LDS R19, [R17+576]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+40]
    LDS R19, [R17+640]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+44]
    LDS R19, [R17+704]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+48]
    LDS R19, [R17+768]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+52]
    LDS R19, [R17+832]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+56]
    LDS R19, [R17+896]
    FFMA R10, R18, R19, R10
    LDS R18, [R16+60]
    LDS R19, [R17+960]
    FFMA R10, R18, R19, R10
    BAR
    IADD R9, R9, 16
    ISETP.LT P3, R9, R8
    @P3 BRA tile                ; uniform: t is the same in every thread
    ISETP.NE P1, RZ, 0
    @P0 ISETP.LT P1, R5, R7     ; row < M && col < N
    @!P1 EXIT
    IMAD R15, R4, R7, R5
    SHL R15, R15, 2
    LDC R19, c[C]
    IADD R15, R15, R19
    STG [R15], R10
    EXIT
