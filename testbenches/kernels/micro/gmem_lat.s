; gmem_lat: global load latency, a dependent pointer chase.
;
; One thread follows a chain of global words, each holding the byte address
; of the next (laid out by the host: consecutive links 65 words apart, so
; every load touches a new 256-byte segment): 32 dependent `LDG R2, [R2]`
; per loop iteration, `iters` iterations, between two SR_CLOCK reads.
; Latency = (delta - delta of lat_loop.s with the same iters) / (32 x iters).
; In the golden model SR_CLOCK counts warp instructions: delta = 1 + iters x 35.
; Output at out: delta, the final pointer.
; Hardware: GT200 about 435-450 hot cycles; Fermi 400-800 (SPEC section 8,
; from Wong et al., ISPASS 2010 and the CUDA C Programming Guide).
; Launch: grid 1, block 1, params out, chain (byte address of the first
; link), iters (>= 1).
.kernel gmem_lat
.regs 8
.param out
.param chain
.param iters
    LDC R2, c[chain]
    LDC R1, c[iters]
    S2R R6, SR_CLOCK
loop:
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    LDG R2, [R2]
    IADD R1, R1, -1
    ISETP.GT P0, R1, 0
    @P0 BRA loop
    S2R R1, SR_CLOCK
    ISUB R1, R1, R6
    LDC R3, c[out]
    STG [R3], R1
    STG [R3+4], R2
    EXIT
