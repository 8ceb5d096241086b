//! The global-memory channel: the request and response bundles of the
//! LSU's memory port, both sides of the L1 and the SM's host port
//! (`gm_req_*_o` with `gm_req_ready_i`, `gm_resp_*_i`). The meaning of the
//! fields (sizes, word order, atomics, ids) is in [`crate::units::lsu`].

crate::bundle! {
    /// A global-memory request, presented while `valid` is high and taken
    /// on a core edge where the receiver's ready is high.
    pub struct GmReq {
        /// A request is presented.
        valid: 1 @ Core,
        /// Id echoed by the response (slot in bits 7:5, request in 4:0).
        id: 8 @ Core,
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
    /// A global-memory response (one core cycle per response, any order).
    pub struct GmResp {
        /// A response is presented.
        valid: 1 @ Core,
        /// The request's id.
        id: 8 @ Core,
        /// Read data, word `i` at `(addr & ~127) + 4 i` (atomics: the old
        /// word in word 0).
        rdata: [32; 32] @ Core,
    }
}
