//! Memory: the address checks, the little-endian byte images of global and
//! shared memory, and the memory instructions (loads, stores, atomics).
//! Shared memory is per CTA (zeroed at CTA start); atomics are performed lane
//! by lane in ascending lane order; of several lanes storing to one address
//! the highest lane wins.

use super::exec::{for_lanes, pair, set_pair, Dec};
use super::report::{Fault, Reason};
use super::warp::Warp;

/// A memory space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Space {
    Global,
    Shared,
}

impl Space {
    pub fn name(self) -> &'static str {
        match self {
            Space::Global => "global",
            Space::Shared => "shared",
        }
    }
}

/// Store/atomic details for [`Retired`] records.
pub(super) struct Scratch {
    pub(super) addrs: [u32; 32],
    pub(super) vals: [u64; 32],
    pub(super) new: [u32; 32],
}

/// Check an access of `bytes` at `addr` in a space of `size` bytes.
#[inline(always)]
pub(super) fn check_addr(space: Space, addr: u32, bytes: u32, size: usize, lane: usize) -> Result<usize, Fault> {
    if addr & (bytes - 1) != 0 {
        return Err(Fault {
            lane: Some(lane as u32),
            reason: Reason::Misaligned {
                space: space.name(),
                addr,
                align: bytes,
                size,
            },
        });
    }
    if addr as u64 + bytes as u64 > size as u64 {
        return Err(Fault {
            lane: Some(lane as u32),
            reason: Reason::OutOfBounds {
                space: space.name(),
                addr,
                bytes,
                size,
            },
        });
    }
    Ok(addr as usize)
}

#[inline(always)]
pub(super) fn rd32(m: &[u8], a: usize) -> u32 {
    u32::from_le_bytes([m[a], m[a + 1], m[a + 2], m[a + 3]])
}

#[inline(always)]
pub(super) fn wr32(m: &mut [u8], a: usize, v: u32) {
    m[a..a + 4].copy_from_slice(&v.to_le_bytes());
}

#[inline(always)]
pub(super) fn rd64(m: &[u8], a: usize) -> u64 {
    rd32(m, a) as u64 | (rd32(m, a + 4) as u64) << 32
}

/// Addresses `a + off` of every lane, checked on the lanes in `mask`:
/// one vectorizable pass, then the first bad lane (ascending) is reported.
#[inline(always)]
pub(super) fn addrs_checked(
    a: &[u32; 32],
    off: u32,
    mask: u32,
    space: Space,
    bytes: u32,
    size: usize,
) -> Result<[u32; 32], Fault> {
    let mut addrs = [0u32; 32];
    for (x, &b) in addrs.iter_mut().zip(a) {
        *x = b.wrapping_add(off);
    }
    let mut bad = 0u32;
    for (l, &x) in addrs.iter().enumerate() {
        let b = (x & (bytes - 1) != 0) | (x as u64 + bytes as u64 > size as u64);
        bad |= (b as u32) << l;
    }
    bad &= mask;
    if bad != 0 {
        let l = bad.trailing_zeros() as usize;
        check_addr(space, addrs[l], bytes, size, l)?;
    }
    Ok(addrs)
}

#[inline(always)]
pub(super) fn rd32s(m: &[u8], a: u32) -> u32 {
    let a = a as usize;
    u32::from_le_bytes(m[a..a + 4].try_into().expect("4 bytes"))
}

#[inline(always)]
pub(super) fn load(w: &mut Warp, i: &Dec, mask: u32, mem: &[u8], space: Space, wide: bool) -> Result<(), Fault> {
    let bytes = if wide { 8 } else { 4 };
    let addrs = addrs_checked(&w.regs[i.a as usize], i.off as u32, mask, space, bytes, mem.len())?;
    if wide {
        let mut v = [0u64; 32];
        for_lanes(mask, |l| v[l] = rd64(mem, addrs[l] as usize));
        for_lanes(mask, |l| set_pair(w, i.d, l, v[l]));
    } else {
        let d = &mut w.regs[i.d as usize];
        for_lanes(mask, |l| d[l] = rd32s(mem, addrs[l]));
    }
    Ok(())
}

#[inline(always)]
pub(super) fn store(
    w: &Warp,
    i: &Dec,
    mask: u32,
    mem: &mut [u8],
    space: Space,
    wide: bool,
    s: &mut Scratch,
) -> Result<(), Fault> {
    let bytes = if wide { 8 } else { 4 };
    s.addrs = addrs_checked(&w.regs[i.a as usize], i.off as u32, mask, space, bytes, mem.len())?;
    // Ascending lanes: the highest lane writing an address wins.
    if wide {
        for_lanes(mask, |l| {
            let v = pair(w, i.b, l);
            s.vals[l] = v;
            let at = s.addrs[l] as usize;
            mem[at..at + 8].copy_from_slice(&v.to_le_bytes());
        });
    } else {
        let b = w.regs[i.b as usize];
        for_lanes(mask, |l| {
            s.vals[l] = b[l] as u64;
            wr32(mem, s.addrs[l] as usize, b[l]);
        });
    }
    Ok(())
}

pub(super) fn atomic(
    w: &mut Warp,
    i: &Dec,
    mask: u32,
    mem: &mut [u8],
    space: Space,
    s: &mut Scratch,
) -> Result<(), Fault> {
    let a = w.regs[i.a as usize];
    let b = w.regs[i.b as usize];
    let c = w.regs[i.c as usize];
    let op = crate::golden::isa::AtomOp::from_bits(i.m).expect("validated at load");
    s.addrs = addrs_checked(&a, i.off as u32, mask, space, 4, mem.len())?;
    let mut old = [0u32; 32];
    for_lanes(mask, |l| {
        let at = s.addrs[l] as usize;
        let o = rd32(mem, at);
        let n = op.apply(o, b[l], c[l]);
        wr32(mem, at, n);
        old[l] = o;
        s.vals[l] = o as u64;
        s.new[l] = n;
    });
    let d = &mut w.regs[i.d as usize];
    for_lanes(mask, |l| d[l] = old[l]);
    Ok(())
}
