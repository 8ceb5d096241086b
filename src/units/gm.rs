//! The global-memory channel: the request and response bundles of the
//! LSU's memory port, both sides of the L1 and the SM's host port
//! (`gm_req_*_o` with `gm_req_ready_i`, `gm_resp_*_i`). The meaning of the
//! fields (sizes, word order, atomics, ids) is in [`crate::units::lsu`].
//!
//! The memory side of an L1 or arbiter with `R` requesters carries ids of
//! `8 + clog2(R)` bits (`{r, id}`): [`GmReqW`] / [`GmRespW`] with the id
//! width `IW` as a parameter; [`GmReq`] / [`GmResp`] are the 8-bit ones.

use crate::hdl::{Ctx, Sig, S};

crate::bundle! {
    /// A global-memory request, presented while `valid` is high and taken
    /// on a core edge where the receiver's ready is high; ids of `IW` bits.
    pub struct GmReqW[IW] {
        /// A request is presented.
        valid: 1 @ Core,
        /// Id echoed by the response (slot in bits 7:5, request in 4:0;
        /// above them the requester when there are several).
        id: IW @ Core,
        /// Store (no response).
        write: 1 @ Core,
        /// Atomic operation + 1, 0 for a load or store.
        atom: 4 @ Core,
        /// Segment base, or the lane's word address for an atomic.
        addr: 32 @ Core,
        /// 0/1/2 = 32/64/128 bytes.
        size: 2 @ Core,
        /// Store byte-word enables, word `i` at `(addr & ~127) + 4 i`.
        wmask: [1; 32] @ Core,
        /// Store data (atomics: operand in word 0, CAS compare in word 1).
        wdata: [32; 32] @ Core,
    }
}

crate::bundle! {
    /// A global-memory response (one core cycle per response, any order);
    /// ids of `IW` bits.
    pub struct GmRespW[IW] {
        /// A response is presented.
        valid: 1 @ Core,
        /// The request's id.
        id: IW @ Core,
        /// Read data, word `i` at `(addr & ~127) + 4 i` (atomics: the old
        /// word in word 0).
        rdata: [32; 32] @ Core,
    }
}

/// A request with an 8-bit id (the LSU's port, the SM's host port).
pub type GmReq<B> = GmReqW<B, 8>;
/// A response with an 8-bit id.
pub type GmResp<B> = GmRespW<B, 8>;

crate::bundle! {
    /// The fill flag beside a requester's [`GmReq`] (`rq<r>_req_fill_i`): a
    /// line read that fills the L1 and returns nothing (a prefetch).
    pub struct GmFill { fill: 1 @ Core }
}
crate::bundle! {
    /// A requester's ready (`rq<r>_req_ready_o`): its request is taken at
    /// this core edge.
    pub struct GmReady { ready: 1 @ Core }
}

/// Round robin among up to four requesters: the one-hot grant of the
/// first valid one at or after `ptr`, cyclically (none when none is
/// valid), and the pointer after that requester is taken
/// (`grant + 1 mod R`).
pub fn rr_grant<C: Ctx>(cx: &mut C, valid: &[S<C, 1>], ptr: S<C, 2>) -> (Vec<S<C, 1>>, S<C, 2>) {
    let n = valid.len();
    assert!((1..=4).contains(&n), "1..=4 requesters");
    let z1 = cx.lit::<1>(0);
    let mut grant = vec![z1; n];
    for p in 0..n {
        let at = ptr.eq(cx.lit::<2>(p as u64));
        let mut seen = z1;
        for j in 0..n {
            let r = (p + j) % n;
            grant[r] = grant[r] | (at & valid[r] & !seen);
            seen = seen | valid[r];
        }
    }
    let nexts: Vec<S<C, 2>> = (0..n).map(|r| cx.lit::<2>(((r + 1) % n) as u64)).collect();
    let next = crate::hdl::logic::pick(cx, &grant, &nexts);
    (grant, next)
}

/// An 8-bit-id request with its id at the memory side's width `IW` (no
/// logic at `IW` = 8).
pub fn widen<C: Ctx, const IW: usize>(q: &GmReq<C::B>) -> GmReqW<C::B, IW> {
    GmReqW {
        valid: q.valid,
        id: q.id.resize::<IW>(),
        write: q.write,
        atom: q.atom,
        addr: q.addr,
        size: q.size,
        wmask: q.wmask,
        wdata: q.wdata,
    }
}

/// The request presented to memory this cycle when several requesters
/// share a port: the round-robin pick among `reqs` (requester `r` at index
/// `r`) with memory id `{r, id}`, its fill flag (`fills[r]`), the one-hot
/// grant and the pointer after it.
pub struct Picked<C: Ctx, const IW: usize> {
    pub q: GmReqW<C::B, IW>,
    pub fill: S<C, 1>,
    pub grant: Vec<S<C, 1>>,
    pub next: S<C, 2>,
}

/// See [`Picked`]; `ptr` is the requester first in line.
pub fn pick_request<C: Ctx, const IW: usize>(
    cx: &mut C,
    reqs: &[GmReq<C::B>],
    fills: &[S<C, 1>],
    ptr: S<C, 2>,
) -> Picked<C, IW> {
    use crate::hdl::logic::{or_all, pick};
    let valid: Vec<S<C, 1>> = reqs.iter().map(|q| q.valid).collect();
    let (grant, next) = rr_grant(cx, &valid, ptr);
    let ids: Vec<S<C, IW>> = reqs
        .iter()
        .enumerate()
        .map(|(r, q)| q.id.resize::<IW>() | cx.lit::<IW>((r as u64) << 8))
        .collect();
    let bit = |cx: &mut C, f: &dyn Fn(&GmReq<C::B>) -> S<C, 1>| {
        let v: Vec<S<C, 1>> = reqs.iter().map(f).collect();
        pick(cx, &grant, &v)
    };
    let write = bit(cx, &|q| q.write);
    let atoms: Vec<S<C, 4>> = reqs.iter().map(|q| q.atom).collect();
    let addrs: Vec<S<C, 32>> = reqs.iter().map(|q| q.addr).collect();
    let sizes: Vec<S<C, 2>> = reqs.iter().map(|q| q.size).collect();
    let q = GmReqW {
        valid: or_all(cx, &grant),
        id: pick(cx, &grant, &ids),
        write,
        atom: pick(cx, &grant, &atoms),
        addr: pick(cx, &grant, &addrs),
        size: pick(cx, &grant, &sizes),
        wmask: std::array::from_fn(|k| bit(cx, &|q| q.wmask[k])),
        wdata: std::array::from_fn(|k| {
            let v: Vec<S<C, 32>> = reqs.iter().map(|q| q.wdata[k]).collect();
            pick(cx, &grant, &v)
        }),
    };
    let fill = pick(cx, &grant, fills);
    Picked { q, fill, grant, next }
}

/// Requester `r`'s response port from a response with memory id `id`:
/// valid when the id's requester bits are `r` (always with one requester,
/// `several` false), the id's low 8 bits and the data, shared by all.
pub fn resp_for<C: Ctx, const IW: usize>(
    cx: &mut C,
    valid: S<C, 1>,
    id: S<C, IW>,
    rdata: [S<C, 32>; 32],
    r: usize,
    several: bool,
) -> GmResp<C::B> {
    let mine = if several {
        let hi = cx.lit::<IW>(((1u64 << IW) - 1) & !0xff);
        valid & (id & hi).eq(cx.lit::<IW>((r as u64) << 8))
    } else {
        valid
    };
    GmResp {
        valid: mine,
        id: id.resize::<8>(),
        rdata,
    }
}
