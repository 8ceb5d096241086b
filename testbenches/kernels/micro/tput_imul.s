; tput_imul: throughput of independent 32-bit IMUL.
;
; Every thread keeps four independent products R2..R5 and runs 128
; instructions per loop iteration (IMUL R2, R2, R6, IMUL R3, R3, R6, IMUL
; R4, R4, R6, IMUL R5, R5, R6, 32 times); the loop's IADD, ISETP and BRA
; are 3 of its 131 issues. `iters` iterations between two SR_CLOCK reads;
; launch many warps so the latency is hidden: throughput = 128 x iters x
; threads / (delta in hot cycles).
; In the golden model SR_CLOCK counts warp instructions: delta = 1 + iters x 131.
; Output per thread at out + global tid x 20: delta, R2, R3, R4, R5.
; Hardware: 32-bit integer multiply, CUDA C Programming Guide (arithmetic
; instruction throughput): compute 1.x 16 clock cycles per warp (2 per hot
; cycle per SM of 8 SPs), compute 2.0 16 operations per clock per SM.
; Launch: any grid and 1-D block; params out, iters (>= 1).
.kernel tput_imul
.regs 12
.param out
.param iters
    S2R R0, SR_TID.X
    LDC R1, c[iters]
    IADD R2, R0, 1
    IADD R3, R0, 2
    IADD R4, R0, 3
    IADD R5, R0, 4
    MOV R6, 0x2545f491
    S2R R8, SR_CLOCK
loop:
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IMUL R2, R2, R6
    IMUL R3, R3, R6
    IMUL R4, R4, R6
    IMUL R5, R5, R6
    IADD R1, R1, -1
    ISETP.GT P0, R1, 0
    @P0 BRA loop
    S2R R1, SR_CLOCK
    ISUB R1, R1, R8
    S2R R9, SR_CTAID.X
    S2R R10, SR_NTID.X
    IMAD R9, R9, R10, R0
    IMUL R9, R9, 20
    LDC R10, c[out]
    IADD R9, R9, R10
    STG [R9], R1
    STG [R9+4], R2
    STG [R9+8], R3
    STG [R9+12], R4
    STG [R9+16], R5
    EXIT
