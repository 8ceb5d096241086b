//! `SmallBuf<T, N>`: a vector of at most `N` `Copy` elements kept inline
//! (no heap), for the short lists block code builds on every evaluation
//! (the entries of a queue, the candidates of an arbiter). A `Vec` there
//! allocates and frees once per list per evaluation, which the simulator's
//! speed follows; a `SmallBuf` is a drop-in where the length has a small
//! bound: `collect()` into it, index it, pass it as a slice.
//!
//! ```
//! use smrtl::hdl::small::SmallBuf;
//! let v: SmallBuf<u32, 8> = (1..4).collect();
//! assert_eq!(&v[..], &[1, 2, 3]);
//! ```

use std::mem::MaybeUninit;
use std::ops::{Deref, DerefMut};

/// Up to `N` elements inline; pushing more panics.
#[derive(Clone, Copy)]
pub struct SmallBuf<T: Copy, const N: usize> {
    len: usize,
    v: [MaybeUninit<T>; N],
}

impl<T: Copy, const N: usize> SmallBuf<T, N> {
    /// Empty.
    #[inline(always)]
    pub fn new() -> Self {
        SmallBuf {
            len: 0,
            v: [MaybeUninit::uninit(); N],
        }
    }

    /// `n` copies of `x` (`vec![x; n]`).
    #[inline(always)]
    pub fn filled(x: T, n: usize) -> Self {
        let mut b = Self::new();
        for _ in 0..n {
            b.push(x);
        }
        b
    }

    /// Append `x`; panics when `N` elements are held already.
    #[inline(always)]
    pub fn push(&mut self, x: T) {
        assert!(self.len < N, "SmallBuf: more than {N} elements");
        self.v[self.len] = MaybeUninit::new(x);
        self.len += 1;
    }
}

impl<T: Copy, const N: usize> Default for SmallBuf<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy, const N: usize> Deref for SmallBuf<T, N> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` elements were written by `push`.
        unsafe { std::slice::from_raw_parts(self.v.as_ptr() as *const T, self.len) }
    }
}

impl<T: Copy, const N: usize> DerefMut for SmallBuf<T, N> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`.
        unsafe { std::slice::from_raw_parts_mut(self.v.as_mut_ptr() as *mut T, self.len) }
    }
}

impl<'a, T: Copy, const N: usize> IntoIterator for &'a SmallBuf<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    #[inline(always)]
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy, const N: usize> FromIterator<T> for SmallBuf<T, N> {
    #[inline(always)]
    fn from_iter<I: IntoIterator<Item = T>>(it: I) -> Self {
        let mut b = Self::new();
        for x in it {
            b.push(x);
        }
        b
    }
}

impl<T: Copy + std::fmt::Debug, const N: usize> std::fmt::Debug for SmallBuf<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::SmallBuf;

    #[test]
    fn push_collect_index() {
        let mut b: SmallBuf<u64, 4> = SmallBuf::filled(7, 2);
        b.push(9);
        b[0] = 1;
        assert_eq!(&b[..], &[1, 7, 9]);
        let c: SmallBuf<u64, 4> = b.iter().map(|x| x * 2).collect();
        assert_eq!(c.len(), 3);
        assert_eq!(c.iter().sum::<u64>(), 34);
    }

    #[test]
    #[should_panic(expected = "more than 2")]
    fn overflow_panics() {
        let _: SmallBuf<u8, 2> = (0..3).collect();
    }
}
