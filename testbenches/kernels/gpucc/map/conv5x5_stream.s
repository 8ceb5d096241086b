; gpucc/map/conv5x5_stream.s: a measurement variant of gpucc/conv5x5.s
; (docs/gpucc.md section 9), symbolic: map it with `smrtl gpucc-map`.
; NOT a whole convolution: it computes the 5x5 (clamp-to-edge order of
; conv5x5.s) of the rows 2..H-3 at the columns 2..W-3 only.
;
; Params : as gpucc/conv5x5.s (in, w, out, W, H), H >= 5 (else it exits).
; Network: the rows 2..H-3 walked as one stream of n = W*(H-4) positions
;          (`grid n, 1`): one index core (`i`, the position) feeds every
;          LSU, so no clamp cores; filter row dy loads in[i + dy*W]. Rows
;          1 and 2 take three LSUs (taps 0-1, 2-3, 4: spans of two taps),
;          rows 0, 3 and 4 two LSUs and a MOV core that gives tap 2 its
;          pixel one lane pipeline (10 hot cycles) later, so that no LSU
;          feeds taps more than one apart in time: 12 loads, 29 cores.
;          Tap dx reads its pixels 4-dx firings late, as in conv5x5.s.
; Wrong  : without clamping, the columns 0, 1, W-2 and W-1 of each row see
;          the neighbouring row's pixels, and the first two firings store
;          to out row 1, columns W-2 and W-1. A whole kernel would need a
;          second pass for those columns.
; Measured (docs/results.md 13): it is limited by the L1's one request per
;          core cycle, not by credits: 0.64 pixels per hot cycle against
;          the kernel's 0.61 on the same 64 rows.
.kernel conv5x5_stream
.regs 46
.param in
.param w
.param out
.param W
.param H
        LDC R1, c[in]
        LDC R2, c[w]
        LDC R3, c[out]
        LDC R4, c[W]
        LDC R5, c[H]
        LDG R8, [R2+0]
        LDG R9, [R2+4]
        LDG R10, [R2+8]
        LDG R11, [R2+12]
        LDG R12, [R2+16]
        LDG R13, [R2+20]
        LDG R14, [R2+24]
        LDG R15, [R2+28]
        LDG R16, [R2+32]
        LDG R17, [R2+36]
        LDG R18, [R2+40]
        LDG R19, [R2+44]
        LDG R20, [R2+48]
        LDG R21, [R2+52]
        LDG R22, [R2+56]
        LDG R23, [R2+60]
        LDG R24, [R2+64]
        LDG R25, [R2+68]
        LDG R26, [R2+72]
        LDG R27, [R2+76]
        LDG R28, [R2+80]
        LDG R29, [R2+84]
        LDG R30, [R2+88]
        LDG R31, [R2+92]
        LDG R32, [R2+96]
        ISETP.LT P0, R5, 5          ; needs five input rows
        @P0 EXIT
        SHL R42, R4, 2              ; row pitch in bytes
        IADD R34, R5, -4
        IMUL R33, R4, R34           ; n = W*(H-4): rows 2..H-3 as one stream
        MOV R35, R1                 ; filter row dy reads from row dy on
        IADD R36, R35, R42
        IADD R37, R36, R42
        IADD R38, R37, R42
        IADD R39, R38, R42
        IADD R40, R3, R42
        IADD R40, R40, R42
        IADD R44, R40, -8           ; firing i stores position i-2 of row 2 on
.gpucc
        grid R33, 1
i       IADD x, 0                        ; the stream position
r0a    LDG [i*4 + R35]           ; two LSUs, a MOV buffering tap 2
r0b    LDG [i*4 + R35]
m0     MOV r0a
t00    FFMA R8, r0a[-4], 0.0
t01    FFMA R9, r0a[-3], t00
t02    FFMA R10, m0[-2], t01
t03    FFMA R11, r0b[-1], t02
t04    FFMA R12, r0b, t03
r1a    LDG [i*4 + R36]           ; three LSUs: taps 0-1, 2-3, 4
r1b    LDG [i*4 + R36]
r1c    LDG [i*4 + R36]
t10    FFMA R13, r1a[-4], t04
t11    FFMA R14, r1a[-3], t10
t12    FFMA R15, r1b[-2], t11
t13    FFMA R16, r1b[-1], t12
t14    FFMA R17, r1c, t13
r2a    LDG [i*4 + R37]           ; three LSUs: taps 0-1, 2-3, 4
r2b    LDG [i*4 + R37]
r2c    LDG [i*4 + R37]
t20    FFMA R18, r2a[-4], t14
t21    FFMA R19, r2a[-3], t20
t22    FFMA R20, r2b[-2], t21
t23    FFMA R21, r2b[-1], t22
t24    FFMA R22, r2c, t23
r3a    LDG [i*4 + R38]           ; two LSUs, a MOV buffering tap 2
r3b    LDG [i*4 + R38]
m3     MOV r3a
t30    FFMA R23, r3a[-4], t24
t31    FFMA R24, r3a[-3], t30
t32    FFMA R25, m3[-2], t31
t33    FFMA R26, r3b[-1], t32
t34    FFMA R27, r3b, t33
r4a    LDG [i*4 + R39]           ; two LSUs, a MOV buffering tap 2
r4b    LDG [i*4 + R39]
m4     MOV r4a
t40    FFMA R28, r4a[-4], t34
t41    FFMA R29, r4a[-3], t40
t42    FFMA R30, m4[-2], t41
t43    FFMA R31, r4b[-1], t42
t44    FFMA R32, r4b, t43
st      STG [i*4 + R44], t44
.endgpucc
        EXIT
