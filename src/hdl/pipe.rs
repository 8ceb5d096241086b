//! Pipeline cuts: a group of signals that crosses from one pipeline stage to
//! the next as one set of registers with a shared load enable.
//!
//! [`pipe_stage!`](crate::pipe_stage) declares the group twice: as a value
//! struct of signals (what a stage function returns) and as a struct of
//! registers (`<prefix>_<field>_q`, no reset unless a field gives one).
//! A datapath written as stage functions runs in two ways:
//!
//! * through [`Comb`]: no registers, the stages composed in one cycle (the
//!   bit-exact sweeps drive this, and a block whose latency is too short
//!   for a cut);
//! * through [`Clocked`] inside a block's `eval`: each cut that has
//!   registers loads its stage's value when its enable is high and holds
//!   otherwise (an FPGA flip-flop's clock enable).
//!
//! A stage whose enable is known low is not computed at all in the
//! simulator (its registers hold; without registers the value is all
//! zeros, which no later stage reads, since their enables are low too); the
//! Verilog is always the full logic.

use super::{Backend, Ctx, Sig, S};

/// The registers of one cut, and the value type that crosses it.
pub trait PipeRegs {
    /// The signals of the cut in backend `B`.
    type V<B: Backend>: Copy;
    /// All fields zero.
    fn zero<B: Backend>() -> Self::V<B>;
    /// Load `f()` when `en` is high, hold otherwise; returns the registers'
    /// outputs (the value loaded one edge earlier).
    fn cut<C: Ctx, F: FnOnce() -> Self::V<C::B>>(&self, cx: &mut C, en: S<C, 1>, f: F) -> Self::V<C::B>;
}

/// How a datapath written as stages is run: with or without registers.
pub trait Cutter<B: Backend> {
    /// Cross cut `r` (`None`: no registers there, the value passes through
    /// in the same cycle).
    fn cut<R: PipeRegs, F: FnOnce() -> R::V<B>>(&mut self, r: Option<&R>, en: B::S<1>, f: F) -> R::V<B>;
}

/// Every cut combinational.
pub struct Comb;

impl<B: Backend> Cutter<B> for Comb {
    #[inline(always)]
    fn cut<R: PipeRegs, F: FnOnce() -> R::V<B>>(&mut self, _r: Option<&R>, en: B::S<1>, f: F) -> R::V<B> {
        if en.known() == Some(0) {
            R::zero::<B>()
        } else {
            f()
        }
    }
}

/// Cuts with registers in a block's evaluation context.
pub struct Clocked<'a, C: Ctx>(pub &'a mut C);

impl<C: Ctx> Cutter<C::B> for Clocked<'_, C> {
    #[inline(always)]
    fn cut<R: PipeRegs, F: FnOnce() -> R::V<C::B>>(&mut self, r: Option<&R>, en: S<C, 1>, f: F) -> R::V<C::B> {
        match r {
            Some(r) => r.cut(self.0, en, f),
            None => Comb.cut::<R, F>(None, en, f),
        }
    }
}

/// Declare a pipeline cut: `pub struct Name, NameRegs [CONSTS] { field:
/// WIDTH, field: WIDTH = RESET, ... }`. `Name<B>` holds the signals,
/// `NameRegs` the registers (`NameRegs::new(decl, prefix, domain)` declares
/// `<prefix>_<field>`) and implements [`PipeRegs`].
#[macro_export]
macro_rules! pipe_stage {
    ($(#[$m:meta])* $vis:vis struct $name:ident, $regs:ident $([$($g:ident),*])? {
        $($(#[$fm:meta])* $f:ident : $w:tt $(= $rst:expr)?),* $(,)?
    }) => {
        $(#[$m])*
        $vis struct $name<B: $crate::hdl::Backend $($(, const $g: usize)*)?> {
            $($(#[$fm])* pub $f: <B as $crate::hdl::Backend>::S<$w>,)*
        }
        impl<B: $crate::hdl::Backend $($(, const $g: usize)*)?> Clone for $name<B $($(, $g)*)?> {
            fn clone(&self) -> Self { *self }
        }
        impl<B: $crate::hdl::Backend $($(, const $g: usize)*)?> Copy for $name<B $($(, $g)*)?> {}
        #[doc = concat!("The registers of a [`", stringify!($name), "`] cut.")]
        #[derive(Debug, Clone)]
        $vis struct $regs $(<$(const $g: usize),*>)? {
            $($f: $crate::hdl::Reg<$w>,)*
        }
        impl $(<$(const $g: usize),*>)? $regs $(<$($g),*>)? {
            /// Declare the registers `<prefix>_<field>` in domain `dom`.
            pub fn new(d: &mut $crate::hdl::Decl, prefix: &str, dom: $crate::hdl::Domain) -> Self {
                Self { $($f: $crate::__pipe_reg!(d, &format!("{prefix}_{}", stringify!($f)), dom $(, $rst)?),)* }
            }
        }
        impl $(<$(const $g: usize),*>)? $crate::hdl::pipe::PipeRegs for $regs $(<$($g),*>)? {
            type V<B: $crate::hdl::Backend> = $name<B $($(, $g)*)?>;
            #[inline(always)]
            fn zero<B: $crate::hdl::Backend>() -> Self::V<B> {
                $name { $($f: B::lit($crate::hdl::Bits::new(0)),)* }
            }
            #[inline(always)]
            fn cut<C: $crate::hdl::Ctx, F: FnOnce() -> Self::V<C::B>>(
                &self,
                cx: &mut C,
                en: $crate::hdl::S<C, 1>,
                f: F,
            ) -> Self::V<C::B> {
                use $crate::hdl::Sig as _;
                match cx.known(en) {
                    Some(0) => { $(cx.hold(self.$f);)* }
                    Some(_) => {
                        let v = f();
                        $(cx.d(self.$f, v.$f);)*
                    }
                    None => {
                        let v = f();
                        $(let q = cx.q(self.$f); cx.d(self.$f, en.mux(v.$f, q));)*
                    }
                }
                $name { $($f: cx.q(self.$f),)* }
            }
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __pipe_reg {
    ($d:ident, $name:expr, $dom:expr) => {
        $d.reg_noreset($name, $dom)
    };
    ($d:ident, $name:expr, $dom:expr, $rst:expr) => {
        $d.reg($name, $dom, $rst)
    };
}
