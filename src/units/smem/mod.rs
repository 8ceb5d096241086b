//! Shared-memory unit: banked storage with broadcast, bank-conflict
//! serialization and atomics.
//!
//! ```text
//!  req_valid_i op_i active_i[32] addr_i[32] data_i[32] cmp_i[32]
//!        |  accepted when ready_o (IDLE)
//!   [request registers: op, pending[32], addr[32], data[32], cmp[32]]
//!        |  per pass: per-bank lowest pending lane -> bank word
//!        v             served set (broadcast / multicast / atomic rules)
//!   bank 0 .. bank NB-1   (RAM, 2^A x 32 bits, 1 read + 1 write port)
//!        |  sync read data -> rdata[32] (per lane)
//!   resp_valid_o rdata_o[32] passes_o err_o      conflict_o pass_o
//! ```
//!
//! * Clock domain: core (`clk_core_i`); registers and banks commit on its
//!   edge. One pass per core cycle ("one step every two hot cycles").
//! * Request ports: `op_i` (0 load, 1 store, 2 add, 3 min, 4 max, 5 exch,
//!   6 CAS, 7 and, 8 or, 9 xor; min/max signed), `active_i[k]`,
//!   `addr_i[k]` (16-bit word address), `data_i[k]` (store data / atomic
//!   operand), `cmp_i[k]` (CAS compare value).
//! * Bank of a word = address mod banks; entry = address / banks.
//! * Passes: lanes are served per group of `group` lanes (16, a half-warp,
//!   on Tesla/GT200; 32 on Fermi), lower group first. Each pass serves, in
//!   every bank, the word of the lowest pending lane of that bank. With
//!   `multicast` (Fermi) every pending lane reading a chosen word is served;
//!   without (compute 1.x) only the word of the lowest pending lane is
//!   broadcast and the other banks serve one lane each. Atomics serve one
//!   lane per bank per pass, so lanes hitting one word are serialized in
//!   lane order and each gets the old value of that order; the new value
//!   comes from one ALU per bank, whose operand is the bank's store-data
//!   select (the served lane's data). When several served lanes store one
//!   word, the highest lane's value is written.
//! * Out-of-range lanes (address >= words) and every lane of an unknown op
//!   are not performed, read 0 and raise `err_o` with the response.
//! * Timing: a request is accepted at the core edge where `req_valid_i &&
//!   ready_o`. A load or store with P passes then takes P cycles (one pass
//!   per cycle: `pass_o` high; `conflict_o` high when pending lanes of the
//!   group lost a bank conflict and another pass follows), one cycle to
//!   collect the last read data, and `resp_valid_o` is high for one cycle
//!   with `rdata_o`, `passes_o` and `err_o`: P + 2 cycles after the accepting
//!   edge. An atomic pass takes two cycles (bank read, then modify and
//!   write): 2P + 2. A request with no performed lane (none active, all out
//!   of range, or an unknown op) answers after 3 cycles. `ready_o` is high
//!   again in the cycle after the response.
//! * Sizes from `SmConfig`: banks = `smem_banks` (2^LB), words per bank =
//!   `smem_bytes / 4 / smem_banks`, stored in 2^A entries (A = log2 of that
//!   rounded up: 256 -> 8 on GT200; Fermi's 384 -> 9, entries >= 384 are
//!   unreachable since their addresses are out of range), `group` =
//!   `smem_request_threads`, `multicast` = `smem_multicast`.

use crate::hdl::logic::{index, or_all, pick};
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Mem, Reg, Sig, S};

/// Lanes per warp request.
pub const LANES: usize = 32;

crate::ports! {
    /// A warp request.
    pub struct SmemIn {
        req_valid_i: 1 @ Core,
        op_i: 4 @ Core,
        active_i: [1; 32] @ Core,
        addr_i: [16; 32] @ Core,
        data_i: [32; 32] @ Core,
        cmp_i: [32; 32] @ Core,
    }
}
crate::ports! {
    /// Status and response.
    pub struct SmemOut {
        ready_o: 1 @ Core,
        resp_valid_o: 1 @ Core,
        rdata_o: [32; 32] @ Core,
        passes_o: 8 @ Core,
        err_o: 1 @ Core,
        pass_o: 1 @ Core,
        conflict_o: 1 @ Core,
    }
}

const IDLE: u64 = 0;
const RUN: u64 = 1;
const ATOMB: u64 = 2;
const DRAIN: u64 = 3;
const RESP: u64 = 4;

/// The shared-memory unit with 2^LB banks of 2^A words.
#[derive(Debug, Clone)]
pub struct Smem<const LB: usize, const A: usize> {
    decl: Decl,
    words: u64,
    group: usize,
    multicast: bool,
    banks: Vec<Mem<32, A>>,
    state: Reg<3>,
    op: Reg<4>,
    err: Reg<1>,
    passes: Reg<8>,
    pending: Vec<Reg<1>>,
    rdserv: Vec<Reg<1>>,
    atom: Vec<Reg<1>>,
    addr: Vec<Reg<16>>,
    data: Vec<Reg<32>>,
    cmp: Vec<Reg<32>>,
    rdata: Vec<Reg<32>>,
}

/// Why a geometry cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
#[error("shared memory geometry: {0}")]
pub struct GeomError(pub String);

impl<const LB: usize, const A: usize> Smem<LB, A> {
    /// Banks.
    pub const BANKS: usize = 1 << LB;

    /// A unit of `words` 32-bit words served per `group` lanes.
    pub fn new(words: usize, group: usize, multicast: bool) -> Result<Self, GeomError> {
        const { assert!(LB + A <= 16, "the 16-bit word address must cover the banks") };
        if words == 0 || !words.is_multiple_of(Self::BANKS) || words / Self::BANKS > 1 << A {
            return Err(GeomError(format!(
                "{words} words do not fit {} banks of {} entries",
                Self::BANKS,
                1 << A
            )));
        }
        if group != 16 && group != 32 {
            return Err(GeomError(format!(
                "request group of {group} lanes (16 or 32 supported)"
            )));
        }
        let mut d = Decl::new();
        let core = Domain::Core;
        let banks = (0..Self::BANKS)
            .map(|b| d.mem::<32, A>(&format!("bank{b}"), core, 1, 1))
            .collect();
        let state = d.reg("state", core, IDLE);
        let op = d.reg("op", core, 0);
        let err = d.reg("err", core, 0);
        let passes = d.reg("passes", core, 0);
        let pending = (0..LANES).map(|k| d.reg(&format!("pending{k}"), core, 0)).collect();
        let rdserv = (0..LANES).map(|k| d.reg(&format!("rdserv{k}"), core, 0)).collect();
        let atom = (0..LANES).map(|k| d.reg(&format!("atom{k}"), core, 0)).collect();
        let addr = (0..LANES).map(|k| d.reg(&format!("addr{k}"), core, 0)).collect();
        let data = (0..LANES).map(|k| d.reg(&format!("data{k}"), core, 0)).collect();
        let cmp = (0..LANES).map(|k| d.reg(&format!("cmp{k}"), core, 0)).collect();
        let rdata = (0..LANES).map(|k| d.reg(&format!("rdata{k}"), core, 0)).collect();
        Ok(Smem {
            decl: d,
            words: words as u64,
            group,
            multicast,
            banks,
            state,
            op,
            err,
            passes,
            pending,
            rdserv,
            atom,
            addr,
            data,
            cmp,
            rdata,
        })
    }
}

impl<const LB: usize, const A: usize> Block for Smem<LB, A> {
    type In<B: Backend> = SmemIn<B>;
    type Out<B: Backend> = SmemOut<B>;

    fn module_name(&self) -> String {
        // Every parameter: words (the range check), banks, entries per bank,
        // group size and broadcast rule.
        format!(
            "smem_w{}_b{}_d{}_g{}_{}",
            self.words,
            Self::BANKS,
            1 << A,
            self.group,
            if self.multicast { "mc" } else { "bc" }
        )
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    /// Random requests that exercise the unit: valid ops (1 in 16 unknown),
    /// addresses in a window of 4, 64 or 1024 words (conflicts, same-word
    /// collisions and broadcasts), about 1 lane in 64 out of range, small
    /// operands half the time (so CAS sometimes succeeds).
    fn constrain(&self, r: u64, i: &mut SmemIn<crate::hdl::Concrete>) {
        use crate::hdl::Bits;
        let op = if r & 0xf == 0xf {
            10 + (r >> 4) % 6
        } else {
            (r >> 4) % 10
        };
        i.op_i = Bits::new(op);
        let window = [4u64, 64, 1024][((r >> 8) % 3) as usize].min(self.words);
        let base = (r >> 12) % (self.words - window + 1);
        let small = (r >> 40) & 1 == 1;
        for k in 0..LANES {
            let a = i.addr_i[k].to_u64();
            let addr = if a & 0x3f00 == 0 {
                self.words + a % (0x1_0000 - self.words)
            } else {
                base + a % window
            };
            i.addr_i[k] = Bits::new(addr);
            if small {
                i.data_i[k] = Bits::new(i.data_i[k].to_u64() & 7);
                i.cmp_i[k] = Bits::new(i.cmp_i[k].to_u64() & 7);
            }
        }
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &SmemIn<C::B>) -> SmemOut<C::B> {
        // Per-lane and per-bank values live in fixed arrays (32 = LANES =
        // the largest bank count), so the simulator never allocates here.
        let nb = Self::BANKS;
        let st = cx.q(self.state);
        let lit3 = |cx: &mut C, v: u64| cx.lit::<3>(v);
        let (s_idle, s_run, s_atomb, s_drain, s_resp) = (
            lit3(cx, IDLE),
            lit3(cx, RUN),
            lit3(cx, ATOMB),
            lit3(cx, DRAIN),
            lit3(cx, RESP),
        );
        let idle = st.eq(s_idle);
        let run = st.eq(s_run);
        let atomb = st.eq(s_atomb);
        let drain = st.eq(s_drain);
        let resp = st.eq(s_resp);
        let op = cx.q(self.op);
        let is_load = op.eq(cx.lit::<4>(0));
        let is_store = op.eq(cx.lit::<4>(1));
        let is_atomic = !is_load & !is_store;
        let zero1 = cx.lit::<1>(0);
        let zero16 = cx.lit::<16>(0);
        let zero32 = cx.lit::<32>(0);

        let pending: [S<C, 1>; LANES] = std::array::from_fn(|k| cx.q(self.pending[k]));
        let addr: [S<C, 16>; LANES] = std::array::from_fn(|k| cx.q(self.addr[k]));
        let data: [S<C, 32>; LANES] = std::array::from_fn(|k| cx.q(self.data[k]));
        let cmp: [S<C, 32>; LANES] = std::array::from_fn(|k| cx.q(self.cmp[k]));
        let atom: [S<C, 1>; LANES] = std::array::from_fn(|k| cx.q(self.atom[k]));
        let rdserv: [S<C, 1>; LANES] = std::array::from_fn(|k| cx.q(self.rdserv[k]));

        // Current group: the lower half while it has pending lanes.
        let lower = or_all(cx, &pending[..16]);
        let lower = cx.name("lower_group", lower);
        let elig: [S<C, 1>; LANES] = std::array::from_fn(|k| {
            if self.group == LANES {
                pending[k]
            } else if k < 16 {
                pending[k] & lower
            } else {
                pending[k] & !lower
            }
        });

        // in_bank[b][k]: lane k addresses bank b.
        let mut in_bank = [[zero1; LANES]; LANES];
        for (b, row) in in_bank.iter_mut().enumerate().take(nb) {
            let bl = cx.lit::<LB>(b as u64);
            for k in 0..LANES {
                row[k] = addr[k].slice::<0, LB>().eq(bl);
            }
        }

        // Per bank: lowest eligible lane (one-hot, and its number) and its
        // word. A bank without an eligible lane (`has` low) takes lane 0's
        // word, which nothing uses: its ports are off and no lane of it is
        // eligible.
        let lane_no: [S<C, 5>; LANES] = std::array::from_fn(|k| cx.lit::<5>(k as u64));
        let mut first_lane = [zero1; LANES];
        let mut has = [zero1; LANES];
        let mut word = [zero16; LANES];
        for b in 0..nb {
            let mut seen = zero1;
            let mut low = lane_no[0];
            for k in (0..LANES).rev() {
                let cand = elig[k] & in_bank[b][k];
                low = cand.mux(lane_no[k], low);
            }
            for k in 0..LANES {
                let cand = elig[k] & in_bank[b][k];
                first_lane[k] = first_lane[k] | (cand & !seen);
                seen = seen | cand;
            }
            word[b] = index(cx, &addr, low);
            has[b] = seen;
        }

        // Served lanes under the broadcast rule of this configuration.
        let served: [S<C, 1>; LANES] = if self.multicast {
            std::array::from_fn(|k| {
                let lane_word = index(cx, &word[..nb], addr[k].slice::<0, LB>());
                elig[k] & addr[k].eq(lane_word)
            })
        } else {
            // Broadcast word: the word of the lowest eligible lane.
            let mut seen = zero1;
            let mut lowest = [zero1; LANES];
            for k in 0..LANES {
                lowest[k] = elig[k] & !seen;
                seen = seen | elig[k];
            }
            let bword = pick(cx, &lowest, &addr);
            let bword = cx.name("bcast_word", bword);
            std::array::from_fn(|k| elig[k] & (addr[k].eq(bword) | first_lane[k]))
        };
        let served: [S<C, 1>; LANES] = std::array::from_fn(|k| is_atomic.mux(first_lane[k], served[k]));
        let any_elig = or_all(cx, &elig);
        let do_pass = cx.name("do_pass", run & any_elig);
        let lost: [S<C, 1>; LANES] = std::array::from_fn(|k| elig[k] & !served[k]);
        let any_lost = or_all(cx, &lost);
        let conflict = do_pass & any_lost;

        // Bank read ports: loads and the read phase of atomics.
        let rd_any = do_pass & !is_store;
        let wr_store = do_pass & is_store;
        let mut bank_rdata = [zero32; LANES];
        for b in 0..nb {
            let entry: S<C, A> = word[b].slice::<LB, A>();
            bank_rdata[b] = cx.mem_read(self.banks[b], 0, rd_any & has[b], entry);
        }
        // Per lane: old value (its bank's read data, a mux on the lane's
        // bank bits) and whether it equals the lane's CAS compare value.
        let old_val: [S<C, 32>; LANES] =
            std::array::from_fn(|k| index(cx, &bank_rdata[..nb], addr[k].slice::<0, LB>()));
        let cas_eq: [S<C, 1>; LANES] = std::array::from_fn(|k| old_val[k].eq(cmp[k]));
        let opl: [S<C, 4>; 10] = std::array::from_fn(|v| cx.lit::<4>(v as u64));
        let is_op: [S<C, 1>; 10] = std::array::from_fn(|v| op.eq(opl[v]));
        // Bank write ports: stores (the highest served lane of the bank
        // wins) and the write phase of atomics. An atomic pass serves the
        // lowest eligible lane of each bank, and that lane is still the
        // served one in the write phase (pending does not change between
        // the two cycles), so the store select gives the bank's atomic
        // lane's operand in that phase: one ALU per bank, on the bank's
        // read data, that operand and that lane's CAS compare.
        for b in 0..nb {
            let entry: S<C, A> = word[b].slice::<LB, A>();
            // The highest served lane of the bank (lane 0 when none is:
            // then the bank does not write).
            let mut high = lane_no[0];
            let mut succ = zero1;
            for k in 0..LANES {
                let sel = served[k] & in_bank[b][k];
                high = sel.mux(lane_no[k], high);
                succ = succ | (sel & cas_eq[k]);
            }
            let sdata = index(cx, &data, high);
            let (old, d) = (bank_rdata[b], sdata);
            let v = old ^ d; // xor, and the default
            let v = is_op[8].mux(old | d, v);
            let v = is_op[7].mux(old & d, v);
            let v = is_op[6].mux(succ.mux(d, old), v);
            let v = is_op[5].mux(d, v);
            let v = is_op[4].mux(old.slt(d).mux(d, old), v);
            let v = is_op[3].mux(d.slt(old).mux(d, old), v);
            let adata = is_op[2].mux(old + d, v);
            let we = (wr_store | atomb) & has[b];
            let wdata = atomb.mux(adata, sdata);
            cx.mem_write(self.banks[b], 0, we, entry, wdata);
        }

        // Lanes still pending after this cycle.
        let remain: [S<C, 1>; LANES] = std::array::from_fn(|k| {
            let p = (do_pass & !is_atomic).mux(pending[k] & !served[k], pending[k]);
            atomb.mux(p & !atom[k], p)
        });

        // Accepting a request; per-lane next state.
        let accept = cx.name("accept", idle & i.req_valid_i);
        let words = cx.lit::<16>(self.words);
        let valid_op = i.op_i.ult(cx.lit::<4>(10));
        let mut bad = [zero1; LANES];
        for k in 0..LANES {
            let in_range = i.addr_i[k].ult(words);
            let ok = i.active_i[k] & in_range & valid_op;
            bad[k] = i.active_i[k] & !(in_range & valid_op);
            cx.d(self.pending[k], accept.mux(ok, remain[k]));
            cx.d(self.addr[k], accept.mux(i.addr_i[k], addr[k]));
            cx.d(self.data[k], accept.mux(i.data_i[k], data[k]));
            cx.d(self.cmp[k], accept.mux(i.cmp_i[k], cmp[k]));
            cx.d(self.atom[k], (do_pass & is_atomic).mux(served[k], zero1));
            cx.d(self.rdserv[k], (do_pass & is_load).mux(served[k], zero1));
            let r = cx.q(self.rdata[k]);
            let r = rdserv[k].mux(old_val[k], r);
            let r = (atomb & atom[k]).mux(old_val[k], r);
            cx.d(self.rdata[k], accept.mux(zero32, r));
        }
        let any_bad = or_all(cx, &bad);
        let err = cx.q(self.err);
        cx.d(self.err, accept.mux(any_bad, err));
        cx.d(self.op, accept.mux(i.op_i, op));
        let passes = cx.q(self.passes);
        let one8 = cx.lit::<8>(1);
        let z8 = cx.lit::<8>(0);
        cx.d(self.passes, accept.mux(z8, do_pass.mux(passes + one8, passes)));

        let any_remain = or_all(cx, &remain);
        let next_work = any_remain.mux(s_run, s_drain);
        let n = resp.mux(s_idle, st);
        let n = drain.mux(s_resp, n);
        let n = atomb.mux(next_work, n);
        let n = run.mux((do_pass & is_atomic).mux(s_atomb, next_work), n);
        let n = accept.mux(s_run, n);
        cx.d(self.state, n);

        let rdata = std::array::from_fn(|k| cx.q(self.rdata[k]));
        SmemOut {
            ready_o: idle,
            resp_valid_o: resp,
            rdata_o: rdata,
            passes_o: passes,
            err_o: err,
            pass_o: do_pass,
            conflict_o: conflict,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SmConfig;
    use crate::hdl::Sim;
    use crate::testbenches::smem_ref::{SmemGeom, SmemOp};
    use crate::testbenches::smem_tb::{check_request, patterns, random_request, strided};
    use rand::SeedableRng;

    fn gt200() -> (Sim<Smem<4, 8>>, SmemGeom) {
        let g = SmemGeom::from_config(&SmConfig::preset("gt200").unwrap());
        (
            Sim::new(Smem::<4, 8>::new(g.words, g.group, g.multicast).unwrap()).unwrap(),
            g,
        )
    }

    fn fermi() -> (Sim<Smem<5, 9>>, SmemGeom) {
        let g = SmemGeom::from_config(&SmConfig::preset("fermi").unwrap());
        (
            Sim::new(Smem::<5, 9>::new(g.words, g.group, g.multicast).unwrap()).unwrap(),
            g,
        )
    }

    #[test]
    fn seed_pass_counts() {
        let (mut s, g) = gt200();
        let mut shadow = vec![0u32; g.words];
        let passes = |s: &mut Sim<Smem<4, 8>>, sh: &mut Vec<u32>, stride| {
            check_request(s, &g, sh, &strided(SmemOp::Load, 0, stride))
                .unwrap()
                .passes
        };
        // Per half-warp: stride 1 -> 1, stride 2 -> 2, stride 16 -> 16, broadcast -> 1.
        assert_eq!(passes(&mut s, &mut shadow, 1), 2);
        assert_eq!(passes(&mut s, &mut shadow, 2), 4);
        assert_eq!(passes(&mut s, &mut shadow, 16), 32);
        assert_eq!(passes(&mut s, &mut shadow, 0), 2);
        let (mut s, g) = fermi();
        let mut shadow = vec![0u32; g.words];
        for (stride, want) in [(1, 1), (2, 2), (32, 32), (0, 1)] {
            assert_eq!(
                check_request(&mut s, &g, &mut shadow, &strided(SmemOp::Load, 0, stride))
                    .unwrap()
                    .passes,
                want
            );
        }
    }

    #[test]
    fn patterns_match_reference() {
        let (mut s, g) = gt200();
        let mut shadow = vec![0u32; g.words];
        for (name, r) in patterns(&g) {
            check_request(&mut s, &g, &mut shadow, &r).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        let (mut s, g) = fermi();
        let mut shadow = vec![0u32; g.words];
        for (name, r) in patterns(&g) {
            check_request(&mut s, &g, &mut shadow, &r).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn random_requests_match_reference() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(5);
        let (mut s, g) = gt200();
        let mut shadow = vec![0u32; g.words];
        for n in 0..1500 {
            let w = [4, 40, 400, 4000][n % 4];
            check_request(&mut s, &g, &mut shadow, &random_request(&mut rng, &g, w, true)).unwrap();
        }
        let (mut s, g) = fermi();
        let mut shadow = vec![0u32; g.words];
        for n in 0..1500 {
            let w = [4, 40, 400, 4000][n % 4];
            check_request(&mut s, &g, &mut shadow, &random_request(&mut rng, &g, w, true)).unwrap();
        }
    }

    #[test]
    fn geometry_errors() {
        assert!(Smem::<4, 8>::new(12288, 16, false)
            .unwrap_err()
            .to_string()
            .contains("12288 words"));
        assert!(Smem::<4, 8>::new(4096, 8, false)
            .unwrap_err()
            .to_string()
            .contains("group of 8"));
    }
}

#[cfg(test)]
mod proptests {
    use super::*;
    use crate::hdl::Sim;
    use crate::testbenches::smem_ref::{SmemGeom, SmemOp, SmemReq};
    use crate::testbenches::smem_tb::check_request;
    use proptest::prelude::*;

    fn req() -> impl Strategy<Value = SmemReq> {
        (
            0u8..12,
            any::<u32>(),
            0u16..64,
            proptest::collection::vec((0u16..48, any::<u32>(), 0u32..4), 32),
        )
            .prop_map(|(op, active, base, lanes)| SmemReq {
                op,
                active,
                addr: std::array::from_fn(|k| base + lanes[k].0),
                data: std::array::from_fn(|k| lanes[k].1 % 5),
                cmp: std::array::from_fn(|k| lanes[k].2),
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Sequences of requests on a small window (many conflicts and
        /// collisions) agree with the reference on both presets.
        #[test]
        fn request_sequences(reqs in proptest::collection::vec(req(), 1..12)) {
            let g = SmemGeom { words: 4096, banks: 16, group: 16, multicast: false };
            let mut s = Sim::new(Smem::<4, 8>::new(g.words, g.group, g.multicast).unwrap()).unwrap();
            let mut shadow = vec![0u32; g.words];
            for r in &reqs {
                check_request(&mut s, &g, &mut shadow, r).map_err(TestCaseError::fail)?;
            }
            let g = SmemGeom { words: 12288, banks: 32, group: 32, multicast: true };
            let mut s = Sim::new(Smem::<5, 9>::new(g.words, g.group, g.multicast).unwrap()).unwrap();
            let mut shadow = vec![0u32; g.words];
            for r in &reqs {
                check_request(&mut s, &g, &mut shadow, r).map_err(TestCaseError::fail)?;
            }
        }
    }

    /// Pass counts of atomics: lanes on one word serialize in lane order.
    #[test]
    fn atomics_on_one_word_take_one_pass_per_lane() {
        let g = SmemGeom {
            words: 12288,
            banks: 32,
            group: 32,
            multicast: true,
        };
        let mut s = Sim::new(Smem::<5, 9>::new(g.words, g.group, g.multicast).unwrap()).unwrap();
        let mut shadow = vec![0u32; g.words];
        let r = crate::testbenches::smem_tb::strided(SmemOp::Add, 3, 0);
        let e = check_request(&mut s, &g, &mut shadow, &r).unwrap();
        assert_eq!(e.passes, 32);
        assert_eq!(shadow[3], (0..32).map(|k| 0x100 + k).sum::<u32>());
    }
}
