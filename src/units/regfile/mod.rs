//! Banked register file: per-warp allocation table, the (warp, register,
//! lane) -> (bank, row) mapping, `reg_banks` single-ported (1RW) banks, two
//! write channels that win over reads, and one read per bank group per core
//! cycle for the operand collectors (`src/units/opcoll`, its parent).
//!
//! ```text
//!  al_* ---------------------> table: base[w], nregs[w] ----> tab_*_o (Moore)
//!  rf_wr<w>_* --> map(warp, reg[, reg+1]) --> group, row, errors (3, 4, 12)
//!                        |  write wins the group's banks
//!  rd_en_i[g] rd_row_i[g] --> group g = banks 4g..4g+3 (lanes 0-7, 8-15,
//!                        |    16-23, 24-31 of one warp register, one row)
//!                        v    lane memories: 2^A x 32 bits, one port
//!                   rd_data_o[32g + lane] rd_done_o[g]  (the cycle after)
//! ```
//!
//! * Clock domain: core. Every output is a register (Moore), so the opcoll
//!   instantiates it with `instance_fb`.
//! * Bank organisation: a bank row holds 8 lanes (8 x 32 bits); a warp
//!   register is 4 rows, one in each bank of a *group* of 4 banks (bank
//!   `4g + lane / 8`), all at the same row, so the 4 banks of a group always
//!   see the same requests and the block decides per group: `G = reg_banks
//!   / 4` groups. Each bank is 8 lane memories (`bank<b>_l<k>`, 32 bits x
//!   2^A) sharing one address: per-lane memories give the per-lane write
//!   mask of SIMT writes. One port per bank per cycle (1RW): a read or a
//!   write.
//! * Mapping (docs/regfile.md): `S = warp_schedulers`, `H = G / S` groups per
//!   scheduler half, warp `w`, register `r`:
//!   `group = (w mod S) * H + ((r mod H) + (w div S)) mod H`,
//!   `row = base[w] + r div H`, bank = `4 * group + lane / 8`. A warp's rows
//!   `base .. base + ceil(nregs / H)` belong to it alone (in its half).
//! * Writes: channel `w` (`rf_wr<w>_*`), a register or an even/odd pair; a
//!   pair writes two groups (`H >= 2`). A write of warp `v` must come on
//!   channel `v mod S` (error 12 otherwise). Register 255 (RZ) is
//!   discarded. A bad write (code 3 beyond the allocation or the file, 4
//!   odd pair, 12 wrong channel) is dropped whole and reported: `err_o` one
//!   cycle after, with `err_code_o`, `err_warp_o`, `err_reg_o`; channel 0
//!   before channel 1.
//! * Reads: `rd_en_i[g]`, `rd_row_i[g]` at edge e; data on `rd_data_o`
//!   (lanes 32g..32g+31) and `rd_done_o[g] = 1` after it. A write to group
//!   g at the same edge wins: the read is not done (`rd_done_o[g] = 0`) and
//!   the opcoll asks again.
//! * Sizes from `SmConfig`: `G = reg_banks / 4`, rows per bank
//!   `registers / (32 G)` (2^A >= rows; 24 banks on 16K registers: 85 rows
//!   of 128, 16320 usable registers), table entries `max_warps`.

use crate::config::SmConfig;
use crate::hdl::logic::{index, or_all, pick};
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Mem, Reg, Sig, S};

/// Lanes per warp.
pub const LANES: usize = 32;
/// Lanes in one bank row (8 x 32 bits: see the module doc).
pub const ROW_LANES: usize = 8;
/// Banks per group (one warp register = 4 rows of 8 lanes).
pub const GROUP_BANKS: usize = LANES / ROW_LANES;
/// Entries of the allocation table outputs (6-bit warp id).
pub const TABLE: usize = 64;
/// Register number meaning "none" (RZ).
pub const RZ: u64 = 255;

/// Error codes (docs/sm.md section 7).
pub const ERR_BEYOND: u64 = crate::codes::ERR_REG_BEYOND;
pub const ERR_ODD_PAIR: u64 = crate::codes::ERR_ODD_PAIR;
pub const ERR_CHANNEL: u64 = crate::codes::ERR_CHANNEL;

crate::bundle! {
    /// One write channel (`rf_wr<w>_*`): `mask` lanes of warp `warp`'s
    /// register `reg` (and `reg + 1` from `hi` when `pair`).
    pub struct RfWr {
        valid: 1 @ Core,
        warp: 6 @ Core,
        reg: 8 @ Core,
        pair: 1 @ Core,
        mask: [1; 32] @ Core,
        lo: [32; 32] @ Core,
        hi: [32; 32] @ Core,
    }
}

crate::ports! {
    /// Allocation, write channels, group reads.
    pub struct RegfileIn[G] {
        al_valid_i: 1 @ Core,
        al_warp_i: 6 @ Core,
        al_base_i: 16 @ Core,
        al_nregs_i: 8 @ Core,
        rf_wr: [RfWr; 2] @ in,
        rd_en_i: [1; G] @ Core,
        rd_row_i: [8; G] @ Core,
    }
}

crate::ports! {
    /// Read data, table, errors (all registered).
    pub struct RegfileOut[G, NL] {
        rd_done_o: [1; G] @ Core,
        rd_data_o: [32; NL] @ Core,
        tab_base_o: [16; 64] @ Core,
        tab_nregs_o: [8; 64] @ Core,
        err_o: 1 @ Core,
        err_code_o: 8 @ Core,
        err_warp_o: 6 @ Core,
        err_reg_o: 8 @ Core,
    }
}

/// The geometry every width and the mapping derive from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RfGeom {
    /// Bank groups (`reg_banks / 4`).
    pub groups: usize,
    /// Schedulers (write channels, halves of the groups).
    pub scheds: usize,
    /// Groups per scheduler half.
    pub half: usize,
    /// Rows per bank in use.
    pub rows: usize,
    /// Allocation-table entries.
    pub max_warps: usize,
    /// Operand collectors (opcoll).
    pub collectors: usize,
    /// 1R1W banks (`reg_bank_ports = 2`): a read and a write of one group
    /// in the same cycle both happen; else 1RW, the write wins.
    pub dual_port: bool,
}

/// Why a geometry cannot be built.
#[derive(Debug, Clone, thiserror::Error)]
#[error("register file geometry: {0}")]
pub struct GeomError(pub String);

impl RfGeom {
    /// From a config.
    pub fn from_config(c: &SmConfig) -> Result<Self, GeomError> {
        let banks = c.reg_banks as usize;
        let s = c.warp_schedulers as usize;
        if !banks.is_multiple_of(GROUP_BANKS * s) || banks / GROUP_BANKS / s < 2 || banks > 32 {
            return Err(GeomError(format!(
                "reg_banks = {banks} must be a multiple of {} (4 banks per group, 2+ groups per scheduler) and at most 32",
                2 * GROUP_BANKS * s
            )));
        }
        let groups = banks / GROUP_BANKS;
        let rows = c.registers as usize / (LANES * groups);
        if rows == 0 || rows > 256 {
            return Err(GeomError(format!("{rows} rows per bank (1..=256 supported)")));
        }
        let n = c.opcoll_units as usize;
        if !n.is_multiple_of(s) || n / s < 1 {
            return Err(GeomError(format!(
                "opcoll_units = {n} must be a multiple of warp_schedulers = {s}"
            )));
        }
        Ok(RfGeom {
            groups,
            scheds: s,
            half: groups / s,
            rows,
            max_warps: c.max_warps as usize,
            collectors: n,
            dual_port: c.reg_bank_ports == 2,
        })
    }

    /// Row address bits needed.
    pub fn addr_bits(&self) -> usize {
        (self.rows.next_power_of_two().trailing_zeros() as usize).max(1)
    }

    /// Usable 32-bit registers (rows x groups x 32 lanes).
    pub fn usable_registers(&self) -> usize {
        self.rows * self.groups * LANES
    }
}

/// Integer quotient and remainder of `x` by the constant `d` (1..=16),
/// exact for every 8-bit `x` (multiply by `ceil(2^16 / d)`, keep bits
/// 16..; checked exhaustively by a unit test).
pub(crate) fn divmod<C: Ctx>(cx: &mut C, x: S<C, 8>, d: usize) -> (S<C, 8>, S<C, 8>) {
    if d.is_power_of_two() {
        let sh = cx.lit::<8>(d.trailing_zeros() as u64);
        let m = cx.lit::<8>(d as u64 - 1);
        return (x.shr(sh), x & m);
    }
    let m = cx.lit::<17>(65536_u64.div_ceil(d as u64));
    let p: S<C, 25> = x.zext::<25>().mul::<25, 25>(m.zext::<25>());
    let q: S<C, 8> = p.slice::<16, 8>();
    let dq: S<C, 8> = q.mul::<8, 8>(cx.lit::<8>(d as u64));
    (q, x - dq)
}

/// Where a register of a warp lives, and whether it is beyond the warp's
/// allocation or the file.
pub struct Placed<B: Backend> {
    pub group: B::S<3>,
    pub row: B::S<8>,
    pub beyond: B::S<1>,
}

/// The mapping of the module doc: `reg9` is the register number (9 bits so
/// that `reg + 1` of a pair does not wrap), `base`/`nregs` the warp's table
/// entry.
pub fn place<C: Ctx>(
    cx: &mut C,
    g: &RfGeom,
    warp: S<C, 6>,
    reg9: S<C, 9>,
    base: S<C, 16>,
    nregs: S<C, 8>,
) -> Placed<C::B> {
    let reg: S<C, 8> = reg9.slice::<0, 8>();
    let (q, r) = divmod(cx, reg, g.half);
    let (wq, half_idx) = if g.scheds == 1 {
        (warp.zext::<8>(), cx.lit::<8>(0))
    } else {
        (warp.slice::<1, 5>().zext::<8>(), warp.slice::<0, 1>().zext::<8>())
    };
    let (_, skew) = divmod(cx, wq, g.half);
    let h = cx.lit::<8>(g.half as u64);
    let sum = r + skew;
    let local = sum.uge(h).mux(sum - h, sum);
    let grp8 = half_idx.mul::<8, 8>(h) + local;
    // 17 bits: base + quotient never wraps below `rows`.
    let row17 = base.zext::<17>() + q.zext::<17>();
    let rows = cx.lit::<17>(g.rows as u64);
    let beyond = !reg9.ult(nregs.zext::<9>()) | !row17.ult(rows);
    Placed {
        group: grp8.slice::<0, 3>(),
        row: row17.slice::<0, 8>(),
        beyond,
    }
}

/// The register file with `G` groups (`NL = 32 G` lanes of read data) of
/// `2^A`-row banks.
#[derive(Debug, Clone)]
pub struct Regfile<const G: usize, const NL: usize, const A: usize> {
    decl: Decl,
    pub geom: RfGeom,
    /// `mems[g][lane]`: lane memory of group g (bank `4g + lane/8`).
    mems: Vec<Vec<Mem<32, A>>>,
    base: Vec<Reg<16>>,
    nregs: Vec<Reg<8>>,
    done: Vec<Reg<1>>,
    err: Reg<1>,
    err_code: Reg<8>,
    err_warp: Reg<6>,
    err_reg: Reg<8>,
}

impl<const G: usize, const NL: usize, const A: usize> Regfile<G, NL, A> {
    pub fn new(geom: RfGeom) -> Result<Self, GeomError> {
        const { assert!(NL == 32 * G && G <= 8 && A <= 8) };
        if geom.groups != G || geom.rows > 1 << A || geom.max_warps > TABLE {
            return Err(GeomError(format!(
                "{} groups of {} rows, {} warps do not fit a block of {G} groups of {} rows",
                geom.groups,
                geom.rows,
                geom.max_warps,
                1 << A
            )));
        }
        let mut d = Decl::new();
        let core = Domain::Core;
        let mems = (0..G)
            .map(|g| {
                (0..LANES)
                    .map(|l| {
                        let bank = GROUP_BANKS * g + l / ROW_LANES;
                        d.mem::<32, A>(&format!("bank{bank}_l{}", l % ROW_LANES), core, 1, 1)
                    })
                    .collect()
            })
            .collect();
        let base = (0..geom.max_warps)
            .map(|w| d.reg(&format!("base{w}"), core, 0))
            .collect();
        let nregs = (0..geom.max_warps)
            .map(|w| d.reg(&format!("nregs{w}"), core, 0))
            .collect();
        let done = (0..G).map(|g| d.reg(&format!("done{g}"), core, 0)).collect();
        let err = d.reg("err", core, 0);
        let err_code = d.reg("err_code", core, 0);
        let err_warp = d.reg("err_warp", core, 0);
        let err_reg = d.reg("err_reg", core, 0);
        Ok(Regfile {
            decl: d,
            geom,
            mems,
            base,
            nregs,
            done,
            err,
            err_code,
            err_warp,
            err_reg,
        })
    }
}

impl<const G: usize, const NL: usize, const A: usize> Block for Regfile<G, NL, A> {
    type In<B: Backend> = RegfileIn<B, G>;
    type Out<B: Backend> = RegfileOut<B, G, NL>;

    fn module_name(&self) -> String {
        let g = &self.geom;
        let ports = if g.dual_port { "_1r1w" } else { "" };
        format!("regfile_g{G}_r{}_s{}_w{}{ports}", g.rows, g.scheds, g.max_warps)
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &RegfileIn<C::B, G>) -> RegfileOut<C::B, G, NL> {
        let g = &self.geom;
        let zero1 = cx.lit::<1>(0);
        let base: Vec<S<C, 16>> = self.base.iter().map(|&r| cx.q(r)).collect();
        let nregs: Vec<S<C, 8>> = self.nregs.iter().map(|&r| cx.q(r)).collect();

        // Allocation table.
        for w in 0..g.max_warps {
            let hit = i.al_valid_i & i.al_warp_i.eq(cx.lit::<6>(w as u64));
            cx.d(self.base[w], hit.mux(i.al_base_i, base[w]));
            cx.d(self.nregs[w], hit.mux(i.al_nregs_i, nregs[w]));
        }

        // Write channels: placement of lo (reg) and hi (reg + 1), errors.
        // hit[w][h][grp]: channel w, half h writes group grp.
        let mut hit = [[[zero1; 8]; 2]; 2];
        let mut rowsel = [[cx.lit::<8>(0); 2]; 2];
        let mut err_any = zero1;
        let mut err_code = cx.lit::<8>(0);
        let mut err_warp = cx.lit::<6>(0);
        let mut err_reg = cx.lit::<8>(0);
        for w in (0..g.scheds).rev() {
            let p = i.rf_wr[w];
            let b = index(cx, &base, p.warp);
            let n = index(cx, &nregs, p.warp);
            let reg9 = p.reg.zext::<9>();
            let rz = p.reg.eq(cx.lit::<8>(RZ));
            let lo = place(cx, g, p.warp, reg9, b, n);
            let one9 = cx.lit::<9>(1);
            let hi = place(cx, g, p.warp, reg9 + one9, b, n);
            let odd = p.pair & p.reg.slice::<0, 1>();
            let wrong = if g.scheds == 1 {
                zero1
            } else {
                !p.warp.slice::<0, 1>().eq(cx.lit::<1>(w as u64))
            };
            let beyond_lo = lo.beyond;
            let beyond = beyond_lo | (p.pair & hi.beyond);
            let live = p.valid & !rz;
            let bad = live & (odd | wrong | beyond);
            let ok = live & !bad;
            let code = odd.mux(
                cx.lit::<8>(ERR_ODD_PAIR),
                wrong.mux(cx.lit::<8>(ERR_CHANNEL), cx.lit::<8>(ERR_BEYOND)),
            );
            // The register named: the odd one, or the first beyond.
            let ereg = (!odd & !wrong & !beyond_lo).mux(p.reg + cx.lit::<8>(1), p.reg);
            err_code = bad.mux(code, err_code);
            err_warp = bad.mux(p.warp, err_warp);
            err_reg = bad.mux(ereg, err_reg);
            err_any = err_any | bad;
            for k in 0..G {
                let gk = cx.lit::<3>(k as u64);
                hit[w][0][k] = ok & lo.group.eq(gk);
                hit[w][1][k] = ok & p.pair & hi.group.eq(gk);
            }
            rowsel[w] = [lo.row, hi.row];
        }
        cx.d(self.err, err_any);
        cx.d(self.err_code, err_code);
        cx.d(self.err_warp, err_warp);
        cx.d(self.err_reg, err_reg);

        // Banks: a write to a group takes its banks; else the read.
        // By reference: the channels' lane arrays are not copied.
        let (lo, hi, mask) = (
            [&i.rf_wr[0].lo, &i.rf_wr[1].lo],
            [&i.rf_wr[0].hi, &i.rf_wr[1].hi],
            [&i.rf_wr[0].mask, &i.rf_wr[1].mask],
        );
        let mut rd_data = [cx.lit::<32>(0); NL];
        let mut done_o = [zero1; G];
        for k in 0..G {
            let sel: Vec<S<C, 1>> = (0..g.scheds).flat_map(|w| [hit[w][0][k], hit[w][1][k]]).collect();
            let busy = or_all(cx, &sel);
            let rows: Vec<S<C, 8>> = (0..g.scheds).flat_map(|w| rowsel[w]).collect();
            let wrow = pick(cx, &sel, &rows);
            let ren = if g.dual_port {
                i.rd_en_i[k]
            } else {
                i.rd_en_i[k] & !busy
            };
            let raddr8 = if g.dual_port {
                i.rd_row_i[k]
            } else {
                busy.mux(wrow, i.rd_row_i[k])
            };
            let waddr8 = if g.dual_port { wrow } else { raddr8 };
            let addr: S<C, A> = raddr8.slice::<0, A>();
            let waddr: S<C, A> = waddr8.slice::<0, A>();
            let ns = 2 * g.scheds;
            // Simulation only: no write to this group, so the picks are 0.
            let no_write = sel.iter().all(|&x| cx.known_low(x));
            for l in 0..LANES {
                let (wd, we) = if no_write {
                    (cx.lit::<32>(0), zero1)
                } else {
                    // Fixed arrays: no allocation per lane.
                    let data = [lo[0][l], hi[0][l], lo[1][l], hi[1][l]];
                    let masks = [mask[0][l], mask[0][l], mask[1][l], mask[1][l]];
                    (pick(cx, &sel, &data[..ns]), pick(cx, &sel, &masks[..ns]))
                };
                rd_data[k * LANES + l] = cx.mem_read(self.mems[k][l], 0, ren, addr);
                cx.mem_write(self.mems[k][l], 0, we, waddr, wd);
            }
            cx.d(self.done[k], ren);
            done_o[k] = cx.q(self.done[k]);
        }

        let z16 = cx.lit::<16>(0);
        let z8 = cx.lit::<8>(0);
        RegfileOut {
            rd_done_o: done_o,
            rd_data_o: rd_data,
            tab_base_o: std::array::from_fn(|w| base.get(w).copied().unwrap_or(z16)),
            tab_nregs_o: std::array::from_fn(|w| nregs.get(w).copied().unwrap_or(z8)),
            err_o: cx.q(self.err),
            err_code_o: cx.q(self.err_code),
            err_warp_o: cx.q(self.err_warp),
            err_reg_o: cx.q(self.err_reg),
        }
    }
}
