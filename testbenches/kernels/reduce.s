; reduce.s: per-CTA FP32 sum in shared memory, tree order, BAR between steps.
;
; Params : in       byte address of the FP32 input array
;          out      byte address of the FP32 output array (one word per CTA)
;          n        number of input elements
; Shape  : 1-D, grid (g, 1), block (ntid.x, 1, 1) with ntid.x a power of two,
;          2..=1024 (the .shared size holds 1024 words). CTA b sums elements
;          b*ntid.x .. b*ntid.x + ntid.x - 1; elements >= n count as +0.0.
; Order  : s[t] = in[i] (or +0); for (h = ntid.x/2; h > 0; h /= 2)
;          { if (t < h) s[t] = s[t] + s[t + h]; BAR }; out[b] = s[0].
;          FADD follows the preset (Tesla FADD or IEEE add).
; Memory : in[n] read, out[g] written; shared s[ntid.x].
.kernel reduce
.regs 12
.shared 4096
.param in
.param out
.param n
    S2R R0, SR_TID.X
    S2R R1, SR_CTAID.X
    S2R R2, SR_NTID.X
    IMAD R3, R1, R2, R0         ; i
    MOV R4, 0                   ; value (+0.0 when i >= n)
    LDC R5, c[n]
    ISETP.LT P0, R3, R5
    SHL R6, R3, 2
    LDC R7, c[in]
    IADD R7, R7, R6
    @P0 LDG R4, [R7]
    SHL R8, R0, 2               ; &s[t]
    STS [R8], R4
    BAR
    SHR R9, R2, 1               ; h = ntid.x / 2
loop:
    ISETP.LT P1, R0, R9         ; t < h
    SHL R10, R9, 2
    IADD R10, R10, R8           ; &s[t + h]
    @P1 LDS R4, [R8]
    @P1 LDS R11, [R10]
    @P1 FADD R4, R4, R11
    @P1 STS [R8], R4
    BAR
    SHR R9, R9, 1
    ISETP.NE P2, R9, 0
    @P2 BRA loop                ; uniform: h is the same in every thread
    ISETP.NE P3, R0, 0
    @P3 EXIT
    LDS R4, [RZ]
    SHL R6, R1, 2
    LDC R7, c[out]
    IADD R7, R7, R6
    STG [R7], R4
    EXIT
