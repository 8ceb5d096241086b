//! One FP32 multiplier of an SFU, used for FMUL co-issue (seed 000: the
//! SFU's interpolation multipliers take multiply instructions, a warp
//! instruction in 4 hot cycles, "in the same 4 cycles as in the FMAD
//! unit"). Bit exact to the Tesla FMUL of the SP lane: it is the shared
//! datapath [`crate::units::fp::tesla_fmul`] (flushed denormal inputs,
//! canonical NaN, the four rounding modes, results below 2^-126 flushed to
//! a signed zero), with the ISA's FMUL modifier (`mod[1:0]` rounding,
//! `mod[2]` negates `a`, `mod[3]` negates `b`).
//!
//! ```text
//!  valid_i mod_i a_i b_i --[A regs: operands]--> tesla_fmul --[B regs]--
//!    --[C regs]--[sfu_latency - 4 delays]--> valid_o res_o
//! ```
//!
//! * Ports: `valid_i`, `mod_i` (4), `a_i`, `b_i` (32) in; `valid_o`,
//!   `res_o` out; all hot domain, one thread per hot cycle.
//! * Latency: `sfu_latency - 1` hot cycles from `valid_i` to `valid_o`,
//!   the depth of the interpolator ([`super::SfuUnit`]), so the
//!   multipliers and the interpolator of one SFU share the result path and
//!   results leave in issue order.
//! * Every data register loads only when its stage holds a valid
//!   multiply (a clock enable), so an idle multiplier keeps its values.
//! * Config: `sfu_latency` sets the delay stages; the number of these
//!   multipliers per SFU is `8 / sfu_units` (see [`super::Sfu`]).

use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig};
use crate::units::fp;

crate::ports! {
    /// One multiply into the multiplier.
    pub struct SfuMulIn {
        valid_i: 1 @ Hot,
        mod_i: 4 @ Hot,
        a_i: 32 @ Hot,
        b_i: 32 @ Hot,
    }
}
crate::ports! {
    /// Its product, `sfu_latency - 1` hot cycles later.
    pub struct SfuMulOut {
        valid_o: 1 @ Hot,
        res_o: 32 @ Hot,
    }
}

/// The Tesla FMUL with the ISA modifier: `mod[1:0]` the rounding mode,
/// `mod[2]` negates `a`, `mod[3]` negates `b`.
pub fn fmul_mod<B: Backend>(md: B::S<4>, a: B::S<32>, b: B::S<32>) -> B::S<32> {
    let sign = fp::k::<B, 32>(0x8000_0000);
    let z = fp::k::<B, 32>(0);
    let fa = a ^ md.slice::<2, 1>().mux(sign, z);
    let fb = b ^ md.slice::<3, 1>().mux(sign, z);
    fp::tesla_fmul::<B>(fa, fb, md.slice::<0, 2>())
}

/// One SFU multiplier lane, pipelined like the interpolator.
#[derive(Debug, Clone)]
pub struct SfuMul {
    decl: Decl,
    extra: usize,
    va: Reg<1>,
    mod_a: Reg<4>,
    a_a: Reg<32>,
    b_a: Reg<32>,
    vb: Reg<1>,
    res_b: Reg<32>,
    vc: Reg<1>,
    res_c: Reg<32>,
    delay: Vec<(Reg<1>, Reg<32>)>,
}

impl SfuMul {
    /// A multiplier whose input-to-result depth is `latency - 1` hot
    /// cycles (`latency` even and >= 4, checked by [`super::SfuUnit::new`]).
    pub fn new(latency: usize) -> Self {
        let mut d = Decl::new();
        let hot = Domain::Hot;
        let delay = super::delay_regs(&mut d, latency.saturating_sub(4));
        SfuMul {
            extra: latency.saturating_sub(4),
            va: d.reg("va", hot, 0),
            mod_a: d.reg_noreset("mod_a", hot),
            a_a: d.reg_noreset("a_a", hot),
            b_a: d.reg_noreset("b_a", hot),
            vb: d.reg("vb", hot, 0),
            res_b: d.reg_noreset("res_b", hot),
            vc: d.reg("vc", hot, 0),
            res_c: d.reg_noreset("res_c", hot),
            delay,
            decl: d,
        }
    }
}

impl Block for SfuMul {
    type In<B: Backend> = SfuMulIn<B>;
    type Out<B: Backend> = SfuMulOut<B>;

    fn module_name(&self) -> String {
        format!("sfu_mul_x{}", self.extra)
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &SfuMulIn<C::B>) -> SfuMulOut<C::B> {
        // Every data register loads only with its stage's valid (a clock
        // enable): an idle multiplier holds, and the simulator skips the
        // datapath of a stage it knows is empty (docs/substrate.md).
        // Stage A: the operands.
        cx.d(self.va, i.valid_i);
        if !cx.known_low(i.valid_i) {
            let (md, a, b) = (cx.q(self.mod_a), cx.q(self.a_a), cx.q(self.b_a));
            cx.d(self.mod_a, i.valid_i.mux(i.mod_i, md));
            cx.d(self.a_a, i.valid_i.mux(i.a_i, a));
            cx.d(self.b_a, i.valid_i.mux(i.b_i, b));
        }
        // Stage B: the multiplier, rounding and packing.
        let va = cx.q(self.va);
        cx.d(self.vb, va);
        if !cx.known_low(va) {
            let (md, a, b) = (cx.q(self.mod_a), cx.q(self.a_a), cx.q(self.b_a));
            let p = fmul_mod::<C::B>(md, a, b);
            let p = cx.name("prod", p);
            let rb = cx.q(self.res_b);
            cx.d(self.res_b, va.mux(p, rb));
        }
        // Stage C and the delays.
        let (vb, rb) = (cx.q(self.vb), cx.q(self.res_b));
        cx.d(self.vc, vb);
        if !cx.known_low(vb) {
            let rc = cx.q(self.res_c);
            cx.d(self.res_c, vb.mux(rb, rc));
        }
        let (v, r) = (cx.q(self.vc), cx.q(self.res_c));
        let (v, r) = super::delay_chain(cx, &self.delay, v, r);
        SfuMulOut { valid_o: v, res_o: r }
    }
}
