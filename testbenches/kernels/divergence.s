; divergence.s: divergence-heavy integer kernel: a nested if/else on each
; element's bits, then a data-dependent loop (Collatz steps), every
; divergent branch inside an SSY/SYNC region.
;
; Params : in       byte address of the u32 input array
;          out      byte address of the u32 output array (two words per
;                   element: out[2i] = f(x), out[2i+1] = steps(x))
;          n        number of elements
;          thresh   unsigned threshold of the inner else branch
; Per element x = in[i]:
;          f(x) = x odd  ? (x & 2 ? 3*x + 1 : x ^ 0x5555)
;                        : (x >u thresh ? x >> 1 : x + 7)      (wrapping)
;          steps(x) = number of Collatz steps (v even: v/2, odd: 3v+1) from
;          v = (x & 1023) + 1 down to 1.
; Shape  : 1-D, grid (ceil(n / ntid.x), 1), block (ntid.x, 1, 1); thread i =
;          ctaid.x * ntid.x + tid.x handles element i, i >= n exits.
; Memory : in[n] read, out[2n] written.
.kernel divergence
.regs 12
.param in
.param out
.param n
.param thresh
    S2R R0, SR_TID.X
    S2R R1, SR_CTAID.X
    S2R R2, SR_NTID.X
    IMAD R0, R1, R2, R0         ; i
    LDC R3, c[n]
    ISETP.GE P0, R0, R3
    @P0 EXIT
    SHL R4, R0, 2
    LDC R5, c[in]
    IADD R5, R5, R4
    LDG R6, [R5]                ; x
    LDC R7, c[thresh]
    AND R8, R6, 1
    ISETP.NE P0, R8, 0          ; x odd
    AND R8, R6, 2
    ISETP.NE P1, R8, 0          ; x & 2
    ISETP.GT.U32 P2, R6, R7     ; x >u thresh
    SSY endif
    @P0 BRA odd
    ; even side
    SSY endeven
    @P2 BRA big
    IADD R9, R6, 7
    SYNC
big:
    SHR R9, R6, 1
    SYNC
endeven:
    SYNC
odd:
    SSY endodd
    @P1 BRA bit1
    XOR R9, R6, 0x5555
    SYNC
bit1:
    IMUL R9, R6, 3
    IADD R9, R9, 1
    SYNC
endodd:
    SYNC
endif:
    ; Collatz steps of v = (x & 1023) + 1
    AND R8, R6, 1023
    IADD R8, R8, 1              ; v
    MOV R10, 0                  ; steps
    SSY endloop
loop:
    ISETP.EQ P3, R8, 1
    @P3 BRA done
    AND R11, R8, 1
    ISETP.NE P3, R11, 0
    SSY next
    @P3 BRA vodd
    SHR R8, R8, 1
    SYNC
vodd:
    IMUL R8, R8, 3
    IADD R8, R8, 1
    SYNC
next:
    IADD R10, R10, 1
    BRA loop
done:
    SYNC
endloop:
    SHL R4, R0, 3
    LDC R5, c[out]
    IADD R5, R5, R4
    STG [R5], R9
    STG [R5+4], R10
    EXIT
