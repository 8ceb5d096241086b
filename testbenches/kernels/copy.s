; copy.s: streaming copy of n 32-bit words, dst[i] = src[i], grid-stride.
;
; Params : src, dst  byte addresses of two word arrays in global memory
;          n         number of words
; Shape  : 1-D, any grid and block; thread t = ctaid.x * ntid.x + tid.x
;          copies words t, t + T, t + 2T, ... below n (T = all threads of
;          the grid), so any launch covers the array.
; Memory : src[n] read, dst[n] written. Each warp's load and store touch
;          consecutive words: one 128-byte line per warp on Fermi, one
;          64-byte segment per half-warp on Tesla/GT200.
.kernel copy
.regs 8
.param src
.param dst
.param n
    S2R R0, SR_TID.X
    S2R R1, SR_CTAID.X
    S2R R2, SR_NTID.X
    S2R R3, SR_NCTAID.X
    IMAD R0, R1, R2, R0         ; t
    IMUL R3, R3, R2             ; T
    LDC R4, c[n]
    LDC R5, c[src]
    LDC R6, c[dst]
next:
    ISETP.GE P0, R0, R4
    @P0 EXIT
    SHL R7, R0, 2               ; byte offset 4*i
    IADD R1, R5, R7
    LDG R2, [R1]
    IADD R1, R6, R7
    STG [R1], R2
    IADD R0, R0, R3
    BRA next
