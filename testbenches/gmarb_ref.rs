//! Reference model of the global-memory arbiter (`units::gmarb`), from its
//! specification: requesters are served from a pointer (the requester
//! first in line), a fill is taken and dropped, anything else goes to
//! memory with id `r << 8 | id`; a response goes to the requester named
//! by its id's upper bits.

use super::gmem::{GmReq, GmResp};

/// Outputs of one core cycle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GmArbRefOut {
    /// Per requester: taken at the edge.
    pub ready: Vec<bool>,
    /// To memory (memory id).
    pub gm_req: Option<GmReq>,
    /// Per requester: the response (its own id).
    pub resp: Vec<Option<GmResp>>,
}

/// The model.
#[derive(Debug, Clone)]
pub struct GmArbRef {
    first: usize,
    n: usize,
}

impl GmArbRef {
    pub fn new(requesters: usize) -> GmArbRef {
        GmArbRef {
            first: 0,
            n: requesters,
        }
    }

    /// One core cycle: `reqs[r]` is requester r's request and fill flag.
    pub fn step(&mut self, reqs: &[Option<(GmReq, bool)>], gm_ready: bool, resp: Option<&GmResp>) -> GmArbRefOut {
        let n = self.n;
        let mut ready = vec![false; n];
        let mut gm_req = None;
        let chosen = (0..n).map(|j| (self.first + j) % n).find(|&r| reqs[r].is_some());
        if let Some(r) = chosen {
            let (q, fill) = reqs[r].clone().expect("chosen");
            ready[r] = fill || gm_ready;
            if !fill {
                gm_req = Some(GmReq {
                    id: (r as u16) << 8 | q.id,
                    ..q
                });
            }
            if ready[r] {
                self.first = (r + 1) % n;
            }
        }
        let mut out = vec![None; n];
        if let Some(p) = resp {
            out[p.id as usize >> 8] = Some(GmResp {
                id: p.id & 0xff,
                rdata: p.rdata,
            });
        }
        GmArbRefOut {
            ready,
            gm_req,
            resp: out,
        }
    }
}
