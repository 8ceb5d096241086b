//! IMUL delay: holds the scoreboard release of a 32-bit integer multiply's
//! destination until `imul32_latency` hot cycles after its issue (GT200
//! and G80 have no 32-bit multiplier; a dependent 32-bit IMUL chain runs at
//! 96 hot cycles per op, Wong et al. 2010, while the SP array returns the
//! result after its normal depth). The SP lanes are not held: a warp IMUL
//! still occupies them for `imul32_passes` passes only, so the throughput
//! stays the CUDA guide's.
//!
//! ```text
//!  set<s> (issue: 32-bit IMUL/IMAD, tag) ---> entry e: v_q, done_q, cnt_q, tag_q
//!  rel<s>_i (wb's release) --+--------------> match tag_q: done_d, not passed on
//!                            |
//!                            +--> rel<s>_o (to u_sb): wb's release, or on a
//!                                 free channel the lowest entry with
//!                                 done_q && cnt_q == 0 (then freed)
//!  full_o (Moore): fewer than NS free entries (the SM holds IMUL issue)
//! ```
//!
//! * Clock domain: core. Sizes: `NS` channels (one per scheduler, as wb's
//!   release channels and the scheduler's issue), `entries` entries
//!   (registers `v<e>_q`, `done<e>_q`, `cnt<e>_q[8]`, `tag<e>_q[32]`), the
//!   count `count` (core cycles, `ceil(imul32_latency / 2)`), fixed per
//!   design.
//! * `set_valid_i[s]`/`set_tag_i[s]`: an issued 32-bit IMUL with a
//!   destination (the SM top decodes op and modifier at issue). The lowest
//!   free entry takes it at that edge with `cnt = count`; with two sets the
//!   second takes the next free entry. A set while `full_o` is a protocol
//!   error the SM prevents; it is dropped (the release then passes through
//!   undelayed).
//! * `rel_valid_i[s]`/`rel_tag_i[s]`: wb's release. A tag held by an entry
//!   with `cnt_q != 0` is not passed on; the entry is marked done. Any other
//!   release (every non-IMUL tag, and an IMUL whose count already ran out)
//!   passes through on its channel in the same cycle (combinational, the
//!   scoreboard sees it at the same edge as without this block).
//! * `rel_valid_o[s]`/`rel_tag_o[s]`: what the scoreboard releases. On a
//!   channel wb does not use this cycle (idle or withheld), the lowest
//!   entry with `done_q` and `cnt_q == 0` not taken by a lower channel is
//!   released and freed at that edge: the latency from issue to release is
//!   `max(count + 1, normal release + 1)` core cycles (one cycle for the
//!   done flag), one more when every channel is busy.
//! * `cnt_q` counts down by one per core cycle to 0 from the edge after the
//!   set. Tags are unique while held: the scoreboard keeps the destination
//!   pending, so no instruction writing it issues (WAW).

use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};

crate::ports! {
    /// Issued IMULs, wb's releases.
    pub struct ImdIn[NS] {
        set_valid_i: [1; NS] @ Core,
        set_tag_i: [32; NS] @ Core,
        rel_valid_i: [1; NS] @ Core,
        rel_tag_i: [32; NS] @ Core,
    }
}
crate::ports! {
    /// Releases to the scoreboard, table full.
    pub struct ImdOut[NS] {
        rel_valid_o: [1; NS] @ Core,
        rel_tag_o: [32; NS] @ Core,
        full_o: 1 @ Core,
    }
}

/// One entry's registers.
#[derive(Debug, Clone, Copy)]
struct Entry {
    v: Reg<1>,
    done: Reg<1>,
    cnt: Reg<8>,
    tag: Reg<32>,
}

/// The IMUL delay table of `NS` channels.
#[derive(Debug, Clone)]
pub struct ImulDelay<const NS: usize> {
    decl: Decl,
    ent: Vec<Entry>,
    count: u32,
}

/// Why an IMUL delay table cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
#[error("IMUL delay: {0}")]
pub struct ImdError(pub String);

impl<const NS: usize> ImulDelay<NS> {
    /// `entries` entries, release `count` core cycles after the set at the
    /// earliest.
    pub fn new(entries: usize, count: u32) -> Result<Self, ImdError> {
        const { assert!(NS >= 1 && NS <= 2) };
        if !(NS..=16).contains(&entries) {
            return Err(ImdError(format!("{entries} entries: must be {NS}..=16")));
        }
        if !(1..=255).contains(&count) {
            return Err(ImdError(format!("count {count} core cycles: must be 1..=255")));
        }
        let mut d = Decl::new();
        let c = Domain::Core;
        let ent = (0..entries)
            .map(|e| Entry {
                v: d.reg(&format!("v{e}"), c, 0),
                done: d.reg(&format!("done{e}"), c, 0),
                cnt: d.reg(&format!("cnt{e}"), c, 0),
                tag: d.reg(&format!("tag{e}"), c, 0),
            })
            .collect();
        Ok(ImulDelay { decl: d, ent, count })
    }

    /// The table of `cfg`, or `None` when `imul32_latency` is 0 (Fermi: a
    /// 32-bit multiplier, no delay). Entries: a group takes one warp IMUL
    /// per `2 * imul32_passes` core cycles (issue occupancy), each is held
    /// about `count` cycles: `ceil(count / (2 * passes)) + 1` per group
    /// (the `+ 1` covers the Moore `full_o` and the done cycle), at most 16.
    pub fn of(cfg: &crate::config::SmConfig) -> Result<Option<Self>, ImdError> {
        if cfg.imul32_latency == 0 {
            return Ok(None);
        }
        let count = cfg.imul32_latency.div_ceil(2);
        let per = 2 * cfg.imul32_passes.max(1);
        let entries = ((count.div_ceil(per) + 1) as usize * NS).clamp(NS, 16);
        Self::new(entries, count).map(Some)
    }
}

impl<const NS: usize> Block for ImulDelay<NS> {
    type In<B: Backend> = ImdIn<B, NS>;
    type Out<B: Backend> = ImdOut<B, NS>;
    fn module_name(&self) -> String {
        format!("imuldly_s{NS}_e{}_c{}", self.ent.len(), self.count)
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    /// Sets mostly into free entries, releases of held tags (so entries
    /// complete) or of other tags.
    fn constrain(&self, r: u64, i: &mut ImdIn<crate::hdl::Concrete, NS>) {
        use crate::hdl::Bits;
        for s in 0..NS {
            // A small tag space so that releases hit held entries.
            i.set_tag_i[s] = Bits::new(i.set_tag_i[s].to_u64() % 24);
            i.rel_tag_i[s] = Bits::new(i.rel_tag_i[s].to_u64() % 24);
            i.set_valid_i[s] = Bits::new((r >> (4 * s) & 3 == 0) as u64);
        }
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &ImdIn<C::B, NS>) -> ImdOut<C::B, NS> {
        let n = self.ent.len();
        let z1 = cx.lit::<1>(0);
        let o1 = cx.lit::<1>(1);
        let z8 = cx.lit::<8>(0);
        let one8 = cx.lit::<8>(1);
        let z32 = cx.lit::<32>(0);
        let v: Vec<S<C, 1>> = self.ent.iter().map(|e| cx.q(e.v)).collect();
        let done: Vec<S<C, 1>> = self.ent.iter().map(|e| cx.q(e.done)).collect();
        let cnt: Vec<S<C, 8>> = self.ent.iter().map(|e| cx.q(e.cnt)).collect();
        let tag: Vec<S<C, 32>> = self.ent.iter().map(|e| cx.q(e.tag)).collect();
        let run: Vec<S<C, 1>> = cnt.iter().map(|c| c.any()).collect();
        // wb's releases: a held tag still counting is withheld.
        let mut hit = vec![z1; n];
        let mut pass_v = [z1; NS];
        for s in 0..NS {
            let mut held = z1;
            for e in 0..n {
                let m = i.rel_valid_i[s] & v[e] & tag[e].eq(i.rel_tag_i[s]);
                hit[e] = hit[e] | m;
                held = held | (m & run[e]);
            }
            pass_v[s] = i.rel_valid_i[s] & !held;
        }
        // Late releases on the channels wb leaves free.
        let mut taken = vec![z1; n];
        let mut rel_v = [z1; NS];
        let mut rel_t = [z32; NS];
        for s in 0..NS {
            let mut found = z1;
            let mut t = z32;
            for e in 0..n {
                let cand = v[e] & done[e] & !run[e] & !taken[e] & !found & !pass_v[s];
                t = cand.mux(tag[e], t);
                taken[e] = taken[e] | cand;
                found = found | cand;
            }
            rel_v[s] = pass_v[s] | found;
            rel_t[s] = pass_v[s].mux(i.rel_tag_i[s], t);
        }
        // An entry whose count ran out when wb releases it is freed now
        // (its release passed through).
        let mut free_now = vec![z1; n];
        for e in 0..n {
            free_now[e] = taken[e] | (hit[e] & !run[e]);
        }
        // Sets into the lowest free entries (free at the clock edge before).
        let mut alloc = vec![z1; n];
        let mut atag = vec![z32; n];
        for s in 0..NS {
            let mut got = z1;
            for e in 0..n {
                let a = i.set_valid_i[s] & !v[e] & !alloc[e] & !got;
                alloc[e] = alloc[e] | a;
                atag[e] = a.mux(i.set_tag_i[s], atag[e]);
                got = got | a;
            }
        }
        let cnt0 = cx.lit::<8>(self.count as u64);
        let mut nfree = cx.lit::<5>(0);
        for e in 0..n {
            let ent = self.ent[e];
            nfree = nfree + (!v[e]).zext::<5>();
            let keep = v[e] & !free_now[e];
            cx.d(ent.v, alloc[e].mux(o1, keep));
            cx.d(ent.done, alloc[e].mux(z1, keep & (done[e] | hit[e])));
            cx.d(ent.cnt, alloc[e].mux(cnt0, run[e].mux(cnt[e] - one8, z8)));
            cx.d(ent.tag, alloc[e].mux(atag[e], tag[e]));
        }
        ImdOut {
            rel_valid_o: rel_v,
            rel_tag_o: rel_t,
            full_o: nfree.ult(cx.lit::<5>(NS as u64)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::testbenches::fe_tb::imuldly_random;

    #[test]
    fn random_matches_reference() {
        imuldly_random::<1>(1, 8, 46, 20_000).unwrap();
        imuldly_random::<1>(2, 4, 3, 20_000).unwrap();
        imuldly_random::<2>(3, 6, 10, 20_000).unwrap();
    }

    #[test]
    fn an_off_by_one_count_is_caught() {
        let e = crate::testbenches::fe_tb::imuldly_against::<1>(4, 8, 46, 47, 5_000).unwrap_err();
        assert!(e.contains("imuldly cycle"), "{e}");
    }

    #[test]
    fn bad_sizes_are_errors() {
        assert!(super::ImulDelay::<1>::new(0, 5).is_err());
        assert!(super::ImulDelay::<1>::new(4, 0).is_err());
        assert!(super::ImulDelay::<2>::new(1, 5).is_err());
        assert!(super::ImulDelay::<1>::new(17, 5).is_err());
    }
}
