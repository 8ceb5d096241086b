//! Random bench of the global-memory arbiter (`units::gmarb`): every
//! requester presents random requests (held until taken; requesters 1..
//! also fills), memory is ready at random and answers with random ids of
//! any requester. Every core cycle every output is compared with the
//! reference (`gmarb_ref.rs`); independently the bench checks that each
//! requester's non-fill requests reach memory in the order it presented
//! them, that one request is taken per cycle, and round-robin fairness.

use super::gmarb_ref::GmArbRef;
use super::gmem::{GmReq, GmResp};
use super::l1_tb::{gm_req_of, outs_of_ports, to_in};
use crate::hdl::Sim;
use crate::units::gmarb::GmArb;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::collections::VecDeque;

/// What the run did.
#[derive(Debug, Clone, Default)]
pub struct GmArbStats {
    pub taken: Vec<u64>,
    pub fills: u64,
    pub responses: u64,
    /// Most other requesters taken while one waited.
    pub max_wait: u32,
}

fn random_req(rng: &mut SmallRng, r: usize) -> (GmReq, bool) {
    let q = GmReq {
        id: rng.gen::<u8>() as u16,
        write: rng.gen_bool(0.3),
        atom: if rng.gen_bool(0.1) { rng.gen_range(1..5) } else { 0 },
        addr: rng.gen(),
        size: rng.gen_range(0..3),
        wmask: rng.gen(),
        wdata: std::array::from_fn(|_| rng.gen()),
    };
    (q, r > 0 && rng.gen_bool(0.2))
}

/// `cycles` core cycles of an arbiter of `RX + 1` requesters.
pub fn gmarb_random<const RX: usize, const IW: usize>(seed: u64, cycles: u64) -> Result<GmArbStats, String> {
    let n = RX + 1;
    let mut sim = Sim::new(GmArb::<RX, IW>::new()).map_err(|e| e.to_string())?;
    let mut rf = GmArbRef::new(n);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut st = GmArbStats {
        taken: vec![0; n],
        ..GmArbStats::default()
    };
    let mut held: Vec<Option<(GmReq, bool)>> = vec![None; n];
    // Per requester: requests taken (not fills), not yet seen at memory.
    let mut order: Vec<VecDeque<GmReq>> = vec![VecDeque::new(); n];
    let mut waited = vec![0u32; n];
    for cycle in 0..cycles {
        for (r, h) in held.iter_mut().enumerate() {
            if h.is_none() && rng.gen_bool(0.6) {
                *h = Some(random_req(&mut rng, r));
            }
        }
        let gm_ready = rng.gen_bool(0.7);
        let resp = rng.gen_bool(0.5).then(|| GmResp {
            id: (rng.gen_range(0..n) as u16) << 8 | rng.gen::<u8>() as u16,
            rdata: std::array::from_fn(|_| rng.gen()),
        });
        let want = rf.step(&held, gm_ready, resp.as_ref());
        let o = sim.step_core(&to_in::<RX, IW>(&held, gm_ready, resp.as_ref()));
        let (gv, greq) = gm_req_of(&o.gm_req);
        let outs = outs_of_ports::<RX>(o.lsu_req_ready_o, &o.lsu_resp, &o.rq_ready, &o.rq_resp);
        let got_ready: Vec<bool> = outs.iter().map(|x| x.0).collect();
        let got_resp: Vec<Option<GmResp>> = outs.iter().map(|x| x.1.then(|| x.2.clone())).collect();
        let want_g = want.gm_req.clone();
        if got_ready != want.ready
            || (gv, gv.then_some(&greq)) != (want_g.is_some(), want_g.as_ref())
            || got_resp != want.resp
        {
            return Err(format!(
                "gmarb cycle {cycle}: rtl ready {got_ready:?} gm_req {:?} resp {:?}; reference {:?} {:?} {:?}",
                gv.then_some(&greq),
                got_resp.iter().map(|r| r.as_ref().map(|r| r.id)).collect::<Vec<_>>(),
                want.ready,
                want_g,
                want.resp.iter().map(|r| r.as_ref().map(|r| r.id)).collect::<Vec<_>>()
            ));
        }
        st.responses += got_resp.iter().flatten().count() as u64;
        let taken: Vec<bool> = (0..n).map(|r| held[r].is_some() && got_ready[r]).collect();
        if taken.iter().filter(|&&t| t).count() > 1 {
            return Err(format!("gmarb cycle {cycle}: more than one request taken"));
        }
        for r in 0..n {
            if taken[r] {
                let (q, fill) = held[r].take().expect("held");
                if fill {
                    st.fills += 1;
                } else {
                    order[r].push_back(q);
                }
                st.taken[r] += 1;
                waited[r] = 0;
            } else if held[r].is_some() && taken.contains(&true) {
                waited[r] += 1;
                st.max_wait = st.max_wait.max(waited[r]);
                if waited[r] > RX as u32 {
                    return Err(format!(
                        "gmarb cycle {cycle}: requester {r} waited while {} others were taken",
                        waited[r]
                    ));
                }
            }
        }
        // Memory takes the request: it must be its requester's oldest.
        if gv && gm_ready {
            let r = greq.id as usize >> 8;
            let want = order[r].pop_front().map(|q| GmReq { id: greq.id, ..q });
            if want.as_ref() != Some(&greq) {
                return Err(format!(
                    "gmarb cycle {cycle}: requester {r}'s request {greq:?} out of order"
                ));
            }
        }
        // Requests taken this cycle reached memory this cycle.
        if let Some((r, q)) = order.iter().enumerate().find(|(_, o)| !o.is_empty()) {
            return Err(format!(
                "gmarb cycle {cycle}: requester {r}'s request {q:?} taken but not sent"
            ));
        }
    }
    Ok(st)
}
