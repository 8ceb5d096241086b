; gpucc/map/saxpy.s: out[i] = a * xs[i] + ys[i] (FP32, one FFMA: one
; rounding) for i in 0..n, in GPU-CC mode, written with symbolic node names
; for the mapper: `smrtl gpucc-map testbenches/kernels/gpucc/map/saxpy.s -o
; saxpy.s` places every node and routes every value (docs/gpucc.md
; section 13); the result runs like the hand-placed kernels:
; `smrtl run saxpy.s --config gpucc --grid 1 --block 32 --param xs=...
; --param ys=... --param out=... --param n=... --param a=...` (a: the FP32
; bits of the factor).
.kernel saxpy_gpucc
.regs 8
.param xs
.param ys
.param out
.param n
.param a
        LDC R1, c[xs]
        LDC R2, c[ys]
        LDC R3, c[out]
        LDC R4, c[n]
        LDC R5, c[a]
.gpucc
        grid R4, 1
i       IADD x, 0                   ; the element index
vx      LDG [i*4 + R1]
vy      LDG [i*4 + R2]
r       FFMA R5, vx, vy             ; a * x + y
st      STG [i*4 + R3], r
.endgpucc
        EXIT
