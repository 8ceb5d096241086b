; smem_stride: shared-memory bank conflicts of a strided access.
;
; Every lane reads word (tid x stride) mod 1024 of a 1024-word shared array,
; 32 independent `LDS` per loop iteration, `iters` iterations, between two
; SR_CLOCK reads. With 16 banks per half-warp (GT200) a stride of s words is a
; gcd(s, 16)-way conflict, with 32 banks per warp (Fermi) gcd(s, 32)-way;
; run strides 1, 2, 4, 8, 16 and compare cycles per LDS.
; In the golden model SR_CLOCK counts warp instructions: delta = 1 + iters x 35.
; Output per lane at out + tid x 8: delta, the loaded word (tid of the last
; lane that wrote it).
; Hardware: GT200: 16 banks, conflicts serialized per half-warp (CUDA C
; Programming Guide 2.x, compute capability 1.x); Fermi: 32 banks per warp
; (CUDA C Programming Guide 3.x-4.x, compute capability 2.x).
; Launch: grid 1, block 32 (or more warps), params out, iters (>= 1), stride.
.kernel smem_stride
.regs 10
.shared 4096
.param out
.param iters
.param stride
    S2R R0, SR_TID.X
    LDC R2, c[stride]
    IMUL R3, R0, R2
    AND R3, R3, 1023
    SHL R3, R3, 2
    STS [R3], R0
    BAR
    LDC R1, c[iters]
    S2R R6, SR_CLOCK
loop:
    LDS R4, [R3]
    LDS R5, [R3]
    LDS R7, [R3]
    LDS R8, [R3]
    LDS R4, [R3]
    LDS R5, [R3]
    LDS R7, [R3]
    LDS R8, [R3]
    LDS R4, [R3]
    LDS R5, [R3]
    LDS R7, [R3]
    LDS R8, [R3]
    LDS R4, [R3]
    LDS R5, [R3]
    LDS R7, [R3]
    LDS R8, [R3]
    LDS R4, [R3]
    LDS R5, [R3]
    LDS R7, [R3]
    LDS R8, [R3]
    LDS R4, [R3]
    LDS R5, [R3]
    LDS R7, [R3]
    LDS R8, [R3]
    LDS R4, [R3]
    LDS R5, [R3]
    LDS R7, [R3]
    LDS R8, [R3]
    LDS R4, [R3]
    LDS R5, [R3]
    LDS R7, [R3]
    LDS R8, [R3]
    IADD R1, R1, -1
    ISETP.GT P0, R1, 0
    @P0 BRA loop
    S2R R1, SR_CLOCK
    ISUB R1, R1, R6
    LDC R6, c[out]
    SHL R7, R0, 3
    IADD R6, R6, R7
    STG [R6], R1
    STG [R6+4], R4
    EXIT
