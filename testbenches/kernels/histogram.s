; histogram.s: 64-bin histogram of 32-bit keys, bin = (key >> shift) & 63.
; Each CTA counts into a shared histogram with ATOMS.ADD, then adds its
; non-zero bins into the global histogram with ATOMG.ADD.
;
; Params : keys     byte address of the u32 key array
;          hist     byte address of the global u32 histogram[64] (the kernel
;                   adds to it: zero it first for a plain histogram)
;          n        number of keys
;          shift    right shift applied to a key before taking 6 bits
; Shape  : 1-D, any grid (g, 1) and block (ntid.x, 1, 1). Grid-stride loop:
;          thread i = ctaid.x * ntid.x + tid.x counts keys i, i + T, i + 2T,
;          .. < n where T = g * ntid.x (a data-dependent trip count, in an
;          SSY/SYNC region). Bins are zeroed and flushed by a block-stride
;          loop over tid.x, so any ntid.x >= 1 works.
; Memory : keys[n] read, hist[64] read-modify-written atomically; shared
;          histogram of 64 words at byte 0.
.kernel histogram
.regs 16
.shared 256
.param keys
.param hist
.param n
.param shift
    S2R R0, SR_TID.X
    S2R R1, SR_CTAID.X
    S2R R2, SR_NTID.X
    S2R R3, SR_NCTAID.X
    IMAD R4, R1, R2, R0         ; i
    IMUL R5, R3, R2             ; T = total threads
    SHL R5, R5, 2               ; 4*T
    LDC R6, c[n]
    LDC R7, c[shift]
    LDC R8, c[keys]
    MOV R9, 1
    SHL R15, R2, 2              ; 4*ntid.x
    ; zero the shared bins: for (j = tid; j < 64; j += ntid)
    SHL R10, R0, 2
    SSY zeroed
zero:
    ISETP.GE P0, R10, 256
    @P0 BRA zdone
    STS [R10], RZ
    IADD R10, R10, R15
    BRA zero
zdone:
    SYNC
zeroed:
    BAR
    ; count: for (k = i; k < n; k += T)
    SHL R11, R4, 2
    IADD R11, R11, R8           ; &keys[i]
    SHL R12, R6, 2
    IADD R12, R12, R8           ; &keys[n]
    SSY counted
count:
    ISETP.GE.U32 P0, R11, R12
    @P0 BRA cdone
    LDG R13, [R11]
    SHR R13, R13, R7
    AND R13, R13, 63
    SHL R13, R13, 2
    ATOMS.ADD RZ, [R13], R9
    IADD R11, R11, R5
    BRA count
cdone:
    SYNC
counted:
    BAR
    ; flush: for (j = tid; j < 64; j += ntid) if (bin[j] != 0) hist[j] += bin[j]
    LDC R14, c[hist]
    SHL R10, R0, 2
    SSY flushed
flush:
    ISETP.GE P0, R10, 256
    @P0 BRA fdone
    LDS R13, [R10]
    ISETP.NE P1, R13, 0
    IADD R11, R14, R10
    @P1 ATOMG.ADD RZ, [R11], R13
    IADD R10, R10, R15
    BRA flush
fdone:
    SYNC
flushed:
    EXIT
