; sm_demo.s: a small kernel for the README's main job: every thread makes a
; value from its ids (integer and FP32 arithmetic, an SFU reciprocal),
; exchanges it with its neighbour through shared memory across a barrier,
; and stores the pair sum to out[global id]. No input image is needed.
;
; Params : out  byte address of the output array (grid x block words)
; Shape  : 1-D, any grid and block up to the preset's thread limit.
.kernel sm_demo
.regs 12
.shared 4096
.param out
    S2R R0, SR_TID.X
    S2R R1, SR_CTAID.X
    S2R R2, SR_NTID.X
    IMAD R3, R1, R2, R0         ; global id
    I2F R4, R3
    IADD R5, R3, 1
    I2F R5, R5
    RCP R6, R5                  ; 1 / (gid + 1)
    FMUL R7, R4, R6             ; gid / (gid + 1)
    SHL R8, R0, 2
    STS [R8], R7
    BAR
    IADD R9, R0, 1
    ISETP.GE P0, R9, R2
    @P0 MOV R9, 0               ; the last thread wraps to thread 0
    SHL R9, R9, 2
    LDS R10, [R9]
    FADD R11, R7, R10
    LDC R9, c[out]
    SHL R8, R3, 2
    IADD R9, R9, R8
    STG [R9], R11
    EXIT
