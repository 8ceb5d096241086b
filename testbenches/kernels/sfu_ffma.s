; sfu_ffma.s: SFU-heavy kernel: six transcendentals per element; sfu.s with
; FFMA for the argument scaling (the FFMA presets: fermi, gpucc).
;
; Params : in       byte address of the FP32 input array (the tests use x in
;                   (0, 100])
;          out      byte address of the FP32 output array, six words per
;                   element: out[6i + k]
;          n        number of elements
; Per element x = in[i]:
;          out[6i+0] = RCP(x)
;          out[6i+1] = RSQ(x)
;          out[6i+2] = LG2(x)
;          out[6i+3] = EX2(PREEX2(z)),  z = FFMA(x, -0.125, 2.0)
;          out[6i+4] = SIN(PRESIN(s)),  s = FFMA(x, 0.5, -25.0)
;          out[6i+5] = COS(PRESIN(s))
;          (FFMA: IEEE fused multiply-add, one rounding.)
; Shape  : 1-D, grid (ceil(n / ntid.x), 1), block (ntid.x, 1, 1); thread i =
;          ctaid.x * ntid.x + tid.x handles element i, i >= n exits.
; Memory : in[n] read, out[6n] written.
.kernel sfu_ffma
.regs 16
.param in
.param out
.param n
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
    IMUL R4, R0, 24
    LDC R5, c[out]
    IADD R5, R5, R4             ; &out[6i]
    RCP R7, R6
    STG [R5], R7
    RSQ R8, R6
    STG [R5+4], R8
    LG2 R9, R6
    STG [R5+8], R9
    MOV R10, 0xbe000000         ; -0.125
    MOV R11, 0x40000000         ; 2.0
    FFMA R12, R6, R10, R11
    PREEX2 R12, R12
    EX2 R12, R12
    STG [R5+12], R12
    MOV R10, 0x3f000000         ; 0.5
    MOV R11, 0xc1c80000         ; -25.0
    FFMA R13, R6, R10, R11
    PRESIN R13, R13
    SIN R14, R13
    STG [R5+16], R14
    COS R15, R13
    STG [R5+20], R15
    EXIT
