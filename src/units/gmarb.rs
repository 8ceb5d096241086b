//! Global-memory arbiter: the L1's requester side without a cache, for an
//! SM without an L1 (GT200, Tesla) and more than one global-memory
//! requester. It has the L1's ports without the counters.
//!
//! ```text
//!  lsu_req_*_i (requester 0) --+
//!  rq1_req_*_i, rq1_req_fill_i -+-- round robin (rr_q) --> gm_req_*_o, id {r, id}
//!  ...                         -+
//!  gm_resp_*_i --(id's requester bits)--> lsu_resp_*_o / rq<r>_resp_*_o
//! ```
//!
//! * Clock domain: core. Requesters `R = RX + 1` (`gm_requesters`,
//!   1..=4); memory ids `IW = 8 + clog2(R)` bits. Both are const
//!   parameters because they set port counts and widths
//!   (`flows::with_block` maps the config to them).
//! * One request per core cycle: the first valid requester at or after
//!   the pointer `rr_q` is granted; its request goes to `gm_req_*` in the
//!   same cycle with id `{r, id}` and it is told ready when
//!   `gm_req_ready_i` is high; the pointer then moves past it. A granted
//!   request that is not taken keeps the grant, so each waiting requester
//!   is taken after at most `R - 1` others.
//! * Order: a requester's requests reach memory in the order it presents
//!   them, and memory performs them in acceptance order. There is no cache,
//!   so there is no idle rule here (the LSU's own ordering stays).
//! * A fill-only read (`rq<r>_req_fill_i`) has no cache to fill: it is
//!   taken (ready, the pointer moves) and dropped.
//! * Responses: `rq<r>_resp_valid_o` (`lsu_resp_valid_o` for r = 0) when
//!   the id's requester bits are `r`; id (low 8 bits) and data are shared.
//! * With one requester it is wires (the SM then instantiates none).

use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};
use crate::units::gm::{pick_request, resp_for, GmReady, GmReq, GmReqW, GmResp, Picked};
use crate::units::l1::{mem_id_bits, L1In};

crate::ports! {
    /// Ready and responses to the requesters, requests to memory.
    pub struct GmArbOut[RX, IW] {
        lsu_req_ready_o: 1 @ Core,
        lsu_resp: GmResp @ out,
        gm_req: (GmReqW, IW) @ out,
        rq_ready: [GmReady; RX] @ out "rq{+1}_req",
        rq_resp: [GmResp; RX] @ out "rq{+1}_resp",
    }
}

/// The arbiter of `RX + 1` requesters with memory ids of `IW` bits.
#[derive(Debug, Clone)]
pub struct GmArb<const RX: usize, const IW: usize> {
    decl: Decl,
    rr: Reg<2>,
}

impl<const RX: usize, const IW: usize> GmArb<RX, IW> {
    pub fn new() -> Self {
        const {
            assert!(
                RX <= 3 && IW == mem_id_bits(RX),
                "1..=4 requesters, IW = 8 + clog2(RX + 1)"
            )
        };
        let mut decl = Decl::new();
        let rr = decl.reg("rr", Domain::Core, 0);
        GmArb { decl, rr }
    }
}

impl<const RX: usize, const IW: usize> Default for GmArb<RX, IW> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const RX: usize, const IW: usize> Block for GmArb<RX, IW> {
    type In<B: Backend> = L1In<B, RX, IW>;
    type Out<B: Backend> = GmArbOut<B, RX, IW>;
    fn module_name(&self) -> String {
        format!("gmarb_r{}", RX + 1)
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &L1In<C::B, RX, IW>) -> GmArbOut<C::B, RX, IW> {
        let z1 = cx.lit::<1>(0);
        let reqs: Vec<GmReq<C::B>> = std::iter::once(i.lsu_req).chain(i.rq).collect();
        let fills: Vec<S<C, 1>> = std::iter::once(z1).chain(i.rq_fill.iter().map(|f| f.fill)).collect();
        let ptr = cx.q(self.rr);
        let Picked { q, fill, grant, next } = pick_request::<C, IW>(cx, &reqs, &fills, ptr);
        // A fill is taken and dropped; anything else when memory takes it.
        let ready = fill | i.gm_req_ready_i;
        let taken = q.valid & ready;
        cx.d(self.rr, taken.mux(next, ptr));
        let send = q.valid & !fill;
        let z32 = cx.lit::<32>(0);
        let gm_req = GmReqW {
            valid: send,
            id: send.mux(q.id, cx.lit::<IW>(0)),
            write: send & q.write,
            atom: send.mux(q.atom, cx.lit::<4>(0)),
            addr: send.mux(q.addr, z32),
            size: send.mux(q.size, cx.lit::<2>(0)),
            wmask: std::array::from_fn(|k| send & q.wmask[k]),
            wdata: std::array::from_fn(|k| send.mux(q.wdata[k], z32)),
        };
        let r = &i.gm_resp;
        let several = RX > 0;
        GmArbOut {
            lsu_req_ready_o: grant[0] & ready,
            lsu_resp: resp_for(cx, r.valid, r.id, r.rdata, 0, several),
            gm_req,
            rq_ready: std::array::from_fn(|k| GmReady {
                ready: grant[k + 1] & ready,
            }),
            rq_resp: std::array::from_fn(|k| resp_for(cx, r.valid, r.id, r.rdata, k + 1, several)),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_and_three_requesters_match_the_reference() {
        use crate::testbenches::gmarb_tb::gmarb_random;
        for seed in 1..4 {
            let s = gmarb_random::<1, 9>(seed, 3_000).unwrap();
            assert!(
                s.taken.iter().all(|&t| t > 500) && s.fills > 100 && s.responses > 500,
                "{s:?}"
            );
            let s = gmarb_random::<2, 10>(seed, 3_000).unwrap();
            assert!(
                s.taken.iter().all(|&t| t > 300) && s.fills > 100 && s.responses > 500,
                "{s:?}"
            );
            assert_eq!(s.max_wait, 2, "{s:?}");
        }
    }

    #[test]
    fn elaborates() {
        crate::hdl::Sim::new(super::GmArb::<1, 9>::new()).unwrap();
        crate::hdl::Sim::new(super::GmArb::<3, 10>::new()).unwrap();
        crate::hdl::Sim::new(super::GmArb::<0, 8>::new()).unwrap();
    }
}
