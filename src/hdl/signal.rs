//! The `Backend` and `Sig` traits: what block code may do with a signal.
//!
//! A block's combinational logic is written once, generic over a backend:
//!
//! * [`Concrete`]: a signal is a [`Bits<W>`]; every operation runs natively.
//!   This is the simulator.
//! * [`Tracing`](super::trace::Tracing): a signal is a node id; every
//!   operation records a node of an expression graph, from which the Verilog
//!   emitter writes the module and the elaborator checks clock domains.
//!
//! Control flow on signal values must go through [`Sig::mux`] (both arms are
//! evaluated); loops over constant ranges simply unroll.

use super::bits::Bits;
use std::ops::{Add, BitAnd, BitOr, BitXor, Not, Sub};

/// A family of signal types, one per width.
pub trait Backend: Sized + 'static {
    /// A `W`-bit signal.
    type S<const W: usize>: Sig<W, B = Self>;
    /// A constant.
    fn lit<const W: usize>(v: Bits<W>) -> Self::S<W>;
}

/// Operations on a `W`-bit signal. Results of other widths are signals of the
/// same backend. Widths are checked at compile time where the result width is
/// fixed by the operands (see [`Bits`]).
pub trait Sig<const W: usize>:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
{
    /// The backend this signal belongs to.
    type B: Backend;

    /// The value (low 64 bits) when the backend knows it: the simulator
    /// always, the tracer never. Block code may use it to skip logic whose
    /// result it then knows, giving the same value the full logic gives;
    /// the emitted Verilog is always the full logic.
    #[inline(always)]
    fn known(self) -> Option<u64> {
        None
    }

    /// Bits `LO .. LO+N`.
    fn slice<const LO: usize, const N: usize>(self) -> <Self::B as Backend>::S<N>;
    /// `{self, lo}`; `N == W + M`.
    fn concat<const M: usize, const N: usize>(self, lo: <Self::B as Backend>::S<M>) -> <Self::B as Backend>::S<N>;
    /// Zero extension to `N >= W`.
    fn zext<const N: usize>(self) -> <Self::B as Backend>::S<N>;
    /// The low `N` bits, zero-extended when `N > W`: for a width that is a
    /// block's parameter. At `N == W` it is the value itself (no logic).
    fn resize<const N: usize>(self) -> <Self::B as Backend>::S<N>;
    /// Sign extension to `N >= W`.
    fn sext<const N: usize>(self) -> <Self::B as Backend>::S<N>;
    /// Unsigned product, operands zero-extended, truncated to `N >= max(W, M)`.
    fn mul<const M: usize, const N: usize>(self, o: <Self::B as Backend>::S<M>) -> <Self::B as Backend>::S<N>;
    /// Shift left by an unsigned amount.
    fn shl<const K: usize>(self, n: <Self::B as Backend>::S<K>) -> Self;
    /// Logical shift right.
    fn shr<const K: usize>(self, n: <Self::B as Backend>::S<K>) -> Self;
    /// Arithmetic shift right.
    fn sar<const K: usize>(self, n: <Self::B as Backend>::S<K>) -> Self;
    /// `self == o`.
    fn eq(self, o: Self) -> <Self::B as Backend>::S<1>;
    /// Unsigned `self < o`.
    fn ult(self, o: Self) -> <Self::B as Backend>::S<1>;
    /// Signed `self < o`.
    fn slt(self, o: Self) -> <Self::B as Backend>::S<1>;
    /// OR of all bits.
    fn any(self) -> <Self::B as Backend>::S<1>;
    /// `self ? t : f`; only for `W == 1`.
    fn mux<const N: usize>(
        self,
        t: <Self::B as Backend>::S<N>,
        f: <Self::B as Backend>::S<N>,
    ) -> <Self::B as Backend>::S<N>;

    /// `self != o`.
    fn ne(self, o: Self) -> <Self::B as Backend>::S<1> {
        !self.eq(o)
    }
    /// Unsigned `self >= o`.
    fn uge(self, o: Self) -> <Self::B as Backend>::S<1> {
        !self.ult(o)
    }
}

/// The concrete backend: signals are [`Bits`].
#[derive(Debug, Clone, Copy)]
pub struct Concrete;

impl Backend for Concrete {
    type S<const W: usize> = Bits<W>;
    #[inline(always)]
    fn lit<const W: usize>(v: Bits<W>) -> Bits<W> {
        v
    }
}

macro_rules! bin_ops {
    ($($tr:ident $f:ident $m:ident;)*) => {$(
        impl<const W: usize> $tr for Bits<W> {
            type Output = Self;
            #[inline(always)]
            fn $f(self, o: Self) -> Self {
                Bits::$m(self, o)
            }
        }
    )*};
}
bin_ops! {
    Add add add;
    Sub sub sub;
    BitAnd bitand and;
    BitOr bitor or;
    BitXor bitxor xor;
}
impl<const W: usize> Not for Bits<W> {
    type Output = Self;
    #[inline(always)]
    fn not(self) -> Self {
        Bits::not(self)
    }
}

#[inline(always)]
fn b1(v: bool) -> Bits<1> {
    Bits::new(v as u64)
}

/// Shift amount saturated so that any amount >= 2^64 counts as "all".
#[inline(always)]
fn amount<const K: usize>(n: Bits<K>) -> u64 {
    if K > 64 && n.words()[1..].iter().any(|&w| w != 0) {
        u64::MAX
    } else {
        n.to_u64()
    }
}

impl<const W: usize> Sig<W> for Bits<W> {
    #[inline(always)]
    fn known(self) -> Option<u64> {
        Some(self.to_u64())
    }

    type B = Concrete;
    #[inline(always)]
    fn slice<const LO: usize, const N: usize>(self) -> Bits<N> {
        Bits::slice::<LO, N>(self)
    }
    #[inline(always)]
    fn concat<const M: usize, const N: usize>(self, lo: Bits<M>) -> Bits<N> {
        Bits::concat::<M, N>(self, lo)
    }
    #[inline(always)]
    fn zext<const N: usize>(self) -> Bits<N> {
        Bits::zext::<N>(self)
    }
    #[inline(always)]
    fn resize<const N: usize>(self) -> Bits<N> {
        Bits::resize::<N>(self)
    }
    #[inline(always)]
    fn sext<const N: usize>(self) -> Bits<N> {
        Bits::sext::<N>(self)
    }
    #[inline(always)]
    fn mul<const M: usize, const N: usize>(self, o: Bits<M>) -> Bits<N> {
        Bits::mul::<M, N>(self, o)
    }
    #[inline(always)]
    fn shl<const K: usize>(self, n: Bits<K>) -> Self {
        Bits::shl(self, amount(n))
    }
    #[inline(always)]
    fn shr<const K: usize>(self, n: Bits<K>) -> Self {
        Bits::shr(self, amount(n))
    }
    #[inline(always)]
    fn sar<const K: usize>(self, n: Bits<K>) -> Self {
        Bits::sar(self, amount(n))
    }
    #[inline(always)]
    fn eq(self, o: Self) -> Bits<1> {
        b1(self == o)
    }
    #[inline(always)]
    fn ult(self, o: Self) -> Bits<1> {
        b1(Bits::ult(self, o))
    }
    #[inline(always)]
    fn slt(self, o: Self) -> Bits<1> {
        b1(Bits::slt(self, o))
    }
    #[inline(always)]
    fn any(self) -> Bits<1> {
        b1(Bits::any(self))
    }
    #[inline(always)]
    fn mux<const N: usize>(self, t: Bits<N>, f: Bits<N>) -> Bits<N> {
        const { assert!(W == 1, "mux select must be 1 bit wide") };
        if self.to_u64() & 1 == 1 {
            t
        } else {
            f
        }
    }
}
