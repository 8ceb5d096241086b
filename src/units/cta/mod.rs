//! CTA launcher (seed 001: "the controller creates CTAs ... when it can
//! create all CTA warps and allocate all CTA resources", "monitors when all
//! threads of a CTA have exited and frees the CTA shared resources and its
//! warp resources"): computes how many CTAs fit at once, launches the grid's
//! CTAs in linear order into free CTA slots, starts their warps one per core
//! cycle, releases a slot when its warps are done, and answers S2R with the
//! special registers.
//!
//! ```text
//!  launch_* --> IDLE --> CALC: n = largest c <= max_ctas that fits -----> err 9
//!                         |    (warps, threads, registers, rows, smem)   (n = 0)
//!                         v
//!                        RUN: free slot i and CTAs left -> launch CTA:
//!                             warps i*wpc .. i*wpc+wpc-1, one per cycle:
//!                             st_* + al_* pulses, wv[w], per-warp tid base
//!                             slot i released when its warps exited,
//!                             scoreboards idle and lsu idle
//!                         v
//!                        DONE (done_o) when every CTA launched and released
//!  s2r_*[s] --> special register of every lane --> fe_res_*[s] (next cycle)
//! ```
//!
//! * Clock domain: core, every port and register.
//! * Static partition: with `wpc` warps per CTA, slot `i` owns warp slots
//!   `i*wpc .. (i+1)*wpc - 1`, the shared window `i * round(smem,
//!   smem_alloc_unit)` (`sbase_o[w]`, `ssize_o` = the declared bytes) and
//!   each warp `w` the register rows `(w div S) * ceil(nregs / H)` ..
//!   (`al_base_o`, docs/regfile.md: `H = reg_banks / 4 / S` groups per
//!   scheduler half, rows per bank `R = registers / (32 * reg_banks / 4)`).
//! * Occupancy `n` (`occ_ctas_o`): the largest `c <= max_ctas` with
//!   `c * wpc <= max_warps`, `c * threads <= max_threads`, `c * regs_cta <=
//!   registers` (`regs_cta` = `round(nregs * 32 * wpc, reg_alloc_unit)` per
//!   CTA, or `round(nregs * 32, reg_alloc_unit) * wpc` when
//!   `reg_alloc_per_warp`; CUDA occupancy calculator), `ceil(c * wpc / S) *
//!   ceil(nregs / H) <= R` (the rows exist in the register file's mapping)
//!   and `c * round(smem, smem_alloc_unit) <= smem_bytes`.
//! * Errors (`err_o` pulse, `err_code_o` = 9, `err_reason_o` held): 1 the
//!   block has more threads than `max_threads`; 2 registers (`nregs` 0 or
//!   above `max_regs_per_thread`, or one CTA does not fit the register file);
//!   3 shared memory (one CTA does not fit); 4 an empty launch (a zero grid
//!   or block dimension). The launcher returns to idle: no CTA starts.
//! * Ports: host `launch_valid_i` (taken when `launch_ready_o`),
//!   `launch_grid_x_i[16]`, `launch_grid_y_i[16]`, `launch_block_x_i[11]`,
//!   `launch_block_y_i[11]`, `launch_block_z_i[7]`, `launch_nregs_i[8]`,
//!   `launch_smem_i[17]`; `launch_ready_o` (idle or done), `busy_o`,
//!   `done_o` (held until the next launch). Warps: `wv_o[w]` (Moore; set with
//!   the start, cleared by the exit), `st_valid_o`, `st_warp_o`,
//!   `st_mask_o[1;32]` (lanes holding threads), `st_cta_o[4]` and in the
//!   same cycle `al_valid_o`, `al_warp_o`, `al_base_o[16]`, `al_nregs_o[8]`
//!   (registered pulses); `sbase_o[17; MW]`, `ssize_o[17]`. Exits:
//!   `exit_valid_i`, `exit_warp_i`, `idle_i[w]` (scoreboard), `lsu_idle_i`.
//!   S2R, two port sets (one per Fermi scheduler; the second is unused with
//!   one scheduler): `s2r_valid_i`, `s2r_warp_i`, `s2r_idx_i[8]`,
//!   `s2r_mask_i[1;32]`, `s2r_tag_i[32]` at the issuing edge ->
//!   `fe_res_valid_o`, `fe_res_tag_o`, `fe_res_mask_o`, `fe_res_data_o[32;
//!   32]` one cycle later; `s2r1_*` -> `fe_res1_*` likewise. Report:
//!   `occ_ctas_o[5]`, `res_ctas_o[5]`, `res_warps_o[7]`.
//! * Special registers (numbers of `golden::isa::Sreg`): tid x/y/z of lane
//!   `l` of warp `k` of the CTA from the linear index `32k + l` (x fastest,
//!   as the golden model, also for lanes past the last thread), ntid,
//!   ctaid, nctaid, laneid, warpid = `k` (the warp's index in its CTA, the
//!   golden model's numbering), clock = core cycles since reset (the golden
//!   model, untimed, counts the warp's instructions there). Unknown
//!   numbers read 0 (decode rejects them).
//! * Latency (pinned by `tests/cta.rs` `directed_launch_timing`): launch
//!   at edge e, CALC in cycle e+1, the first CTA begins in cycle e+2 and its
//!   first warp start pulse is visible in cycle e+4; then one warp per cycle
//!   within a CTA and one idle cycle between CTAs (a CTA begins in the cycle
//!   after the previous one's last warp started). A slot is released at the
//!   edge after its last warp's exit edge (scoreboards and LSU idle), the
//!   next CTA begins at the following edge, and its first warp's start pulse
//!   is visible 4 cycles after that exit edge.
//! * Block dimensions: x and y ports are 11 bits (up to 1,024, the compute
//!   2.x limit), z 7 bits (up to 64); `smrtl run --rtl` rejects a launch
//!   whose dimension does not fit a port before it starts.
//! * Sizes: `MW` = `max_warps`, `NC` = `max_ctas` slots, `NS` =
//!   `warp_schedulers`; limits are constants from `SmConfig`.

use crate::config::SmConfig;
use crate::hdl::logic::index;
use crate::hdl::small::SmallBuf;
use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig, S};
use crate::units::simt::{pack32, unpack32};

/// Error code of a CTA that cannot fit (docs/sm.md 7).
pub const ERR_FIT: u64 = crate::codes::ERR_FIT;
/// `err_reason_o` values.
pub const WHY_THREADS: u64 = 1;
pub const WHY_REGS: u64 = 2;
pub const WHY_SMEM: u64 = 3;
pub const WHY_EMPTY: u64 = 4;

crate::bundle! {
    /// A kernel launch from the host, taken on a core edge where
    /// `launch_ready_o` is high (the SM passes it to the CTA launcher).
    pub struct LaunchPorts {
        /// A launch is presented.
        valid: 1 @ Core,
        /// Grid size in CTAs (x, y).
        grid_x: 16 @ Core,
        grid_y: 16 @ Core,
        /// CTA size in threads (x, y, z).
        block_x: 11 @ Core,
        block_y: 11 @ Core,
        block_z: 7 @ Core,
        /// Registers per thread.
        nregs: 8 @ Core,
        /// Shared-memory bytes per CTA.
        smem: 17 @ Core,
    }
}

impl LaunchPorts<crate::hdl::Concrete> {
    /// A presented launch: a grid of `grid` CTAs of `block` threads, `nregs`
    /// registers per thread, `smem` shared bytes per CTA.
    pub fn presented(grid: [u32; 2], block: [u32; 3], nregs: u32, smem: u32) -> Self {
        use crate::hdl::Bits;
        LaunchPorts {
            valid: Bits::new(1),
            grid_x: Bits::new(grid[0] as u64),
            grid_y: Bits::new(grid[1] as u64),
            block_x: Bits::new(block[0] as u64),
            block_y: Bits::new(block[1] as u64),
            block_z: Bits::new(block[2] as u64),
            nregs: Bits::new(nregs as u64),
            smem: Bits::new(smem as u64),
        }
    }
}

crate::ports! {
    /// Host launch, exits, S2R requests.
    pub struct CtaIn[MW] {
        launch: LaunchPorts @ in,
        exit_valid_i: 1 @ Core,
        exit_warp_i: 6 @ Core,
        idle_i: [1; MW] @ Core,
        lsu_idle_i: 1 @ Core,
        s2r_valid_i: 1 @ Core,
        s2r_warp_i: 6 @ Core,
        s2r_idx_i: 8 @ Core,
        s2r_mask_i: [1; 32] @ Core,
        s2r_tag_i: 32 @ Core,
        s2r1_valid_i: 1 @ Core,
        s2r1_warp_i: 6 @ Core,
        s2r1_idx_i: 8 @ Core,
        s2r1_mask_i: [1; 32] @ Core,
        s2r1_tag_i: 32 @ Core,
    }
}
crate::ports! {
    /// Status, warp starts, allocation, S2R results, occupancy, errors.
    pub struct CtaOut[MW] {
        launch_ready_o: 1 @ Core,
        busy_o: 1 @ Core,
        done_o: 1 @ Core,
        wv_o: [1; MW] @ Core,
        st_valid_o: 1 @ Core,
        st_warp_o: 6 @ Core,
        st_mask_o: [1; 32] @ Core,
        st_cta_o: 4 @ Core,
        al_valid_o: 1 @ Core,
        al_warp_o: 6 @ Core,
        al_base_o: 16 @ Core,
        al_nregs_o: 8 @ Core,
        sbase_o: [17; MW] @ Core,
        ssize_o: 17 @ Core,
        fe_res_valid_o: 1 @ Core,
        fe_res_tag_o: 32 @ Core,
        fe_res_mask_o: [1; 32] @ Core,
        fe_res_data_o: [32; 32] @ Core,
        fe_res1_valid_o: 1 @ Core,
        fe_res1_tag_o: 32 @ Core,
        fe_res1_mask_o: [1; 32] @ Core,
        fe_res1_data_o: [32; 32] @ Core,
        occ_ctas_o: 5 @ Core,
        res_ctas_o: 5 @ Core,
        res_warps_o: 7 @ Core,
        err_o: 1 @ Core,
        err_code_o: 8 @ Core,
        err_reason_o: 3 @ Core,
    }
}

const ST_IDLE: u64 = 0;
const ST_CALC: u64 = 1;
const ST_RUN: u64 = 2;
const ST_DONE: u64 = 3;

/// The limits the launcher checks (constants of the preset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CtaLimits {
    pub max_threads: u32,
    pub registers: u32,
    pub max_regs_per_thread: u32,
    pub reg_alloc_unit: u32,
    pub reg_alloc_per_warp: bool,
    pub smem_bytes: u32,
    pub smem_alloc_unit: u32,
    /// Register-file groups per scheduler half (`reg_banks / 4 / S`).
    pub half_groups: u32,
    /// Rows per bank (`registers / (32 * reg_banks / 4)`).
    pub rows: u32,
}

impl CtaLimits {
    pub fn of(cfg: &SmConfig) -> CtaLimits {
        let groups = cfg.reg_banks / 4;
        CtaLimits {
            max_threads: cfg.max_threads,
            registers: cfg.registers,
            max_regs_per_thread: cfg.max_regs_per_thread,
            reg_alloc_unit: cfg.reg_alloc_unit,
            reg_alloc_per_warp: cfg.reg_alloc_per_warp,
            smem_bytes: cfg.smem_bytes,
            smem_alloc_unit: cfg.smem_alloc_unit,
            half_groups: groups / cfg.warp_schedulers.max(1),
            rows: cfg.registers / (32 * groups.max(1)),
        }
    }
}

#[derive(Debug, Clone)]
struct WarpRegs {
    wv: Reg<1>,
    slot: Reg<4>,
    idx: Reg<6>,
    tx: Reg<11>,
    ty: Reg<11>,
    tz: Reg<8>,
    sb: Reg<17>,
}

#[derive(Debug, Clone)]
struct SlotRegs {
    act: Reg<1>,
    cx: Reg<16>,
    cy: Reg<16>,
}

#[derive(Debug, Clone)]
struct ResRegs {
    v: Reg<1>,
    tag: Reg<32>,
    mask: Reg<32>,
    data: [Reg<32>; 32],
}

/// The CTA launcher of `MW` warp slots, `NC` CTA slots, `NS` schedulers.
#[derive(Debug, Clone)]
pub struct Cta<const MW: usize, const NC: usize, const NS: usize> {
    decl: Decl,
    lim: CtaLimits,
    /// `ceil(2^16 / H)`: `x div H = (x * recip) >> 16` for the row count.
    recip: u64,
    w: Vec<WarpRegs>,
    c: Vec<SlotRegs>,
    st: Reg<2>,
    gx: Reg<16>,
    gy: Reg<16>,
    bx: Reg<11>,
    by: Reg<11>,
    bz: Reg<7>,
    nregs: Reg<8>,
    smem: Reg<17>,
    n: Reg<5>,
    wpc: Reg<7>,
    threads: Reg<11>,
    rpw: Reg<8>,
    smem_r: Reg<18>,
    // launch sequencing
    ln: Reg<1>,
    lslot: Reg<4>,
    lk: Reg<6>,
    nx: Reg<16>,
    ny: Reg<16>,
    fin: Reg<1>,
    tx: Reg<11>,
    ty: Reg<11>,
    tz: Reg<8>,
    // pulses
    st_v: Reg<1>,
    st_w: Reg<6>,
    st_m: Reg<32>,
    st_c: Reg<4>,
    al_base: Reg<16>,
    res: [ResRegs; 2],
    err_v: Reg<1>,
    err_why: Reg<3>,
    cyc: Reg<32>,
}

impl<const MW: usize, const NC: usize, const NS: usize> Cta<MW, NC, NS> {
    pub fn new(lim: CtaLimits) -> Result<Self, String> {
        const { assert!(MW >= 1 && MW <= 64 && NC >= 1 && NC <= 16 && (NS == 1 || NS == 2)) };
        let h = lim.half_groups as u64;
        if h == 0 || h > 16 {
            return Err(format!(
                "{h} register groups per scheduler: the cta block supports 1..=16"
            ));
        }
        let recip = 65536_u64.div_ceil(h);
        if (0..512u64).any(|x| (x * recip) >> 16 != x / h) {
            return Err(format!("row count: no exact reciprocal for {h} groups"));
        }
        if lim.registers >= 1 << 20 || lim.smem_bytes >= 1 << 20 || lim.max_threads > 2047 || lim.rows > 255 {
            return Err("preset limits beyond the cta block's widths".into());
        }
        if !lim.reg_alloc_unit.is_power_of_two() || !lim.smem_alloc_unit.is_power_of_two() {
            return Err("allocation units must be powers of two".into());
        }
        let mut d = Decl::new();
        let k = Domain::Core;
        let w = (0..MW)
            .map(|i| WarpRegs {
                wv: d.reg(&format!("wv{i}"), k, 0),
                slot: d.reg(&format!("wslot{i}"), k, 0),
                idx: d.reg(&format!("widx{i}"), k, 0),
                tx: d.reg(&format!("wtx{i}"), k, 0),
                ty: d.reg(&format!("wty{i}"), k, 0),
                tz: d.reg(&format!("wtz{i}"), k, 0),
                sb: d.reg(&format!("wsb{i}"), k, 0),
            })
            .collect();
        let c = (0..NC)
            .map(|i| SlotRegs {
                act: d.reg(&format!("act{i}"), k, 0),
                cx: d.reg(&format!("ctax{i}"), k, 0),
                cy: d.reg(&format!("ctay{i}"), k, 0),
            })
            .collect();
        let res = std::array::from_fn(|p| ResRegs {
            v: d.reg(&format!("r{p}_v"), k, 0),
            tag: d.reg(&format!("r{p}_tag"), k, 0),
            mask: d.reg(&format!("r{p}_mask"), k, 0),
            data: std::array::from_fn(|l| d.reg(&format!("r{p}_d{l}"), k, 0)),
        });
        Ok(Cta {
            lim,
            recip,
            w,
            c,
            st: d.reg("state", k, ST_IDLE),
            gx: d.reg("gx", k, 0),
            gy: d.reg("gy", k, 0),
            bx: d.reg("bx", k, 0),
            by: d.reg("by", k, 0),
            bz: d.reg("bz", k, 0),
            nregs: d.reg("nregs", k, 0),
            smem: d.reg("smem", k, 0),
            n: d.reg("n", k, 0),
            wpc: d.reg("wpc", k, 0),
            threads: d.reg("threads", k, 0),
            rpw: d.reg("rpw", k, 0),
            smem_r: d.reg("smem_r", k, 0),
            ln: d.reg("ln", k, 0),
            lslot: d.reg("lslot", k, 0),
            lk: d.reg("lk", k, 0),
            nx: d.reg("nx", k, 0),
            ny: d.reg("ny", k, 0),
            fin: d.reg("fin", k, 0),
            tx: d.reg("tx", k, 0),
            ty: d.reg("ty", k, 0),
            tz: d.reg("tz", k, 0),
            st_v: d.reg("st_v", k, 0),
            st_w: d.reg("st_w", k, 0),
            st_m: d.reg("st_m", k, 0),
            st_c: d.reg("st_c", k, 0),
            al_base: d.reg("al_base", k, 0),
            res,
            err_v: d.reg("err_v", k, 0),
            err_why: d.reg("err_why", k, 0),
            cyc: d.reg("cyc", k, 0),
            decl: d,
        })
    }

    pub fn limits(&self) -> CtaLimits {
        self.lim
    }
}

/// Step a thread index (x, y, z) by one thread in a `bx` x `by` block.
fn tid_next<C: Ctx>(
    cx: &mut C,
    t: (S<C, 11>, S<C, 11>, S<C, 8>),
    bx: S<C, 11>,
    by: S<C, 11>,
) -> (S<C, 11>, S<C, 11>, S<C, 8>) {
    let one10 = cx.lit::<11>(1);
    let z10 = cx.lit::<11>(0);
    let x1 = t.0 + one10;
    let wx = x1.uge(bx);
    let y1 = t.1 + one10;
    let wy = wx & y1.uge(by);
    let nx = wx.mux(z10, x1);
    let ny = wx.mux(wy.mux(z10, y1), t.1);
    let nz = wy.mux(t.2 + cx.lit::<8>(1), t.2);
    (nx, ny, nz)
}

/// Popcount of bits.
fn count<C: Ctx, const W: usize>(cx: &mut C, b: &[S<C, 1>]) -> S<C, W> {
    let mut acc = cx.lit::<W>(0);
    for x in b {
        acc = acc + x.zext::<W>();
    }
    acc
}

impl<const MW: usize, const NC: usize, const NS: usize> Block for Cta<MW, NC, NS> {
    type In<B: Backend> = CtaIn<B, MW>;
    type Out<B: Backend> = CtaOut<B, MW>;

    fn module_name(&self) -> String {
        format!(
            "cta_w{MW}_c{NC}_s{NS}_t{}_r{}",
            self.lim.max_threads, self.lim.registers
        )
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    /// Small grids and blocks (a zero now and then), register counts and
    /// shared sizes around the limits, exits of valid-looking warps, idle
    /// mostly high, S2R of warps in range.
    fn constrain(&self, r: u64, i: &mut CtaIn<crate::hdl::Concrete, MW>) {
        use crate::hdl::Bits;
        let mw = MW as u64;
        i.launch.valid = Bits::new((r & 63 == 0) as u64);
        i.launch.grid_x = Bits::new(i.launch.grid_x.to_u64() % 7 + (r >> 6 & 1));
        i.launch.grid_y = Bits::new(i.launch.grid_y.to_u64() % 3 + 1);
        i.launch.block_x = Bits::new(i.launch.block_x.to_u64() % 200 + 1);
        i.launch.block_y = Bits::new(i.launch.block_y.to_u64() % 3 + 1);
        i.launch.block_z = Bits::new(i.launch.block_z.to_u64() % 2 + (r >> 7 & 1));
        i.launch.nregs = Bits::new(i.launch.nregs.to_u64() % 70);
        i.launch.smem = Bits::new(i.launch.smem.to_u64() % 20000);
        i.exit_valid_i = Bits::new(r >> 8 & 1);
        i.exit_warp_i = Bits::new(i.exit_warp_i.to_u64() % mw);
        for k in 0..MW {
            i.idle_i[k] = Bits::new((r >> (9 + k % 8) & 7 != 0) as u64);
        }
        i.lsu_idle_i = Bits::new((r >> 20 & 3 != 0) as u64);
        i.s2r_warp_i = Bits::new(i.s2r_warp_i.to_u64() % mw);
        i.s2r_idx_i = Bits::new(i.s2r_idx_i.to_u64() % 14);
        i.s2r1_warp_i = Bits::new(i.s2r1_warp_i.to_u64() % mw);
        i.s2r1_idx_i = Bits::new(i.s2r1_idx_i.to_u64() % 14);
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &CtaIn<C::B, MW>) -> CtaOut<C::B, MW> {
        let lim = self.lim;
        let z1 = cx.lit::<1>(0);
        let o1 = cx.lit::<1>(1);
        let st = cx.q(self.st);
        let s_idle = st.eq(cx.lit::<2>(ST_IDLE));
        let s_calc = st.eq(cx.lit::<2>(ST_CALC));
        let s_run = st.eq(cx.lit::<2>(ST_RUN));
        let s_done = st.eq(cx.lit::<2>(ST_DONE));
        let ready = s_idle | s_done;
        let launch = cx.name("launch", i.launch.valid & ready);
        let gx = cx.q(self.gx);
        let gy = cx.q(self.gy);
        let bx = cx.q(self.bx);
        let by = cx.q(self.by);
        let bz = cx.q(self.bz);
        let nregs = cx.q(self.nregs);
        let smem = cx.q(self.smem);
        let n = cx.q(self.n);
        let wpc = cx.q(self.wpc);
        let rpw = cx.q(self.rpw);
        let smem_r = cx.q(self.smem_r);
        cx.d(self.gx, launch.mux(i.launch.grid_x, gx));
        cx.d(self.gy, launch.mux(i.launch.grid_y, gy));
        cx.d(self.bx, launch.mux(i.launch.block_x, bx));
        cx.d(self.by, launch.mux(i.launch.block_y, by));
        cx.d(self.bz, launch.mux(i.launch.block_z, bz));
        cx.d(self.nregs, launch.mux(i.launch.nregs, nregs));
        cx.d(self.smem, launch.mux(i.launch.smem, smem));

        // ---- CALC: occupancy from the latched launch
        // 11 + 11 + 7 bits: the product of the three dimensions never wraps.
        let bx29: S<C, 29> = bx.zext();
        let by29: S<C, 29> = by.zext();
        let bz29: S<C, 29> = bz.zext();
        let thr: S<C, 29> = bx29.mul::<29, 29>(by29).mul::<29, 29>(bz29);
        let too_many = thr.ugt_lit(cx, lim.max_threads as u64);
        let thr11: S<C, 11> = thr.slice::<0, 11>();
        let c_wpc: S<C, 7> = (thr11 + cx.lit::<11>(31)).shr(cx.lit::<4>(5)).slice::<0, 7>();
        let z16 = cx.lit::<16>(0);
        let empty = gx.eq(z16) | gy.eq(z16) | bx.eq(cx.lit::<11>(0)) | by.eq(cx.lit::<11>(0)) | bz.eq(cx.lit::<7>(0));
        let bad_regs = nregs.eq(cx.lit::<8>(0)) | nregs.ugt_lit(cx, lim.max_regs_per_thread as u64);
        // Registers per CTA (occupancy-calculator rule), 24 bits.
        let ru = lim.reg_alloc_unit as u64;
        let nr24: S<C, 24> = nregs.zext();
        let wpc24: S<C, 24> = c_wpc.zext();
        let t32 = nr24.shl(cx.lit::<3>(5));
        let round = |cx: &mut C, x: S<C, 24>, u: u64| -> S<C, 24> {
            (x + cx.lit::<24>(u - 1)) & cx.lit::<24>(!(u - 1) & 0xff_ffff)
        };
        let regs_cta = if lim.reg_alloc_per_warp {
            let pw = round(cx, t32, ru);
            pw.mul::<24, 24>(wpc24)
        } else {
            let x = t32.mul::<24, 24>(wpc24);
            round(cx, x, ru)
        };
        // Rows per warp: ceil(nregs / H).
        let nr24b: S<C, 24> = nregs.zext();
        let c_rpw24: S<C, 24> = (nr24b + cx.lit::<24>(lim.half_groups as u64 - 1))
            .mul::<24, 24>(cx.lit::<24>(self.recip))
            .shr(cx.lit::<5>(16));
        let c_rpw: S<C, 8> = c_rpw24.slice::<0, 8>();
        let su = lim.smem_alloc_unit as u64;
        let sm24: S<C, 24> = smem.zext();
        let c_smem_r = round(cx, sm24, su);
        let mut nfit = cx.lit::<5>(0);
        let mut fit1_regs = z1;
        let mut fit1_smem = z1;
        for c in 1..=NC as u64 {
            let cl = cx.lit::<24>(c);
            let warps = cl.mul::<24, 24>(wpc24);
            let f_w = warps.ule_lit(cx, MW as u64);
            let thr24: S<C, 24> = thr11.zext();
            let f_t = cl.mul::<24, 24>(thr24).ule_lit(cx, lim.max_threads as u64);
            let f_r = cl.mul::<24, 24>(regs_cta).ule_lit(cx, lim.registers as u64);
            let half = (warps + cx.lit::<24>(NS as u64 - 1)).shr(cx.lit::<2>(NS as u64 - 1));
            let rp24: S<C, 24> = c_rpw.zext();
            let f_rows = half.mul::<24, 24>(rp24).ule_lit(cx, lim.rows as u64);
            let f_s = cl.mul::<24, 24>(c_smem_r).ule_lit(cx, lim.smem_bytes as u64);
            let fits = f_w & f_t & f_r & f_rows & f_s;
            nfit = fits.mux(cx.lit::<5>(c), nfit);
            if c == 1 {
                fit1_regs = f_r & f_rows;
                fit1_smem = f_s;
            }
        }
        let why = empty.mux(
            cx.lit::<3>(WHY_EMPTY),
            too_many.mux(
                cx.lit::<3>(WHY_THREADS),
                (bad_regs | !fit1_regs).mux(
                    cx.lit::<3>(WHY_REGS),
                    (!fit1_smem).mux(cx.lit::<3>(WHY_SMEM), cx.lit::<3>(0)),
                ),
            ),
        );
        let z3 = cx.lit::<3>(0);
        let fail = cx.name("fit_fail", s_calc & why.ne(z3));
        let calc_ok = s_calc & !fail;
        cx.d(self.n, calc_ok.mux(nfit, n));
        cx.d(self.wpc, calc_ok.mux(c_wpc, wpc));
        let thr_q = cx.q(self.threads);
        cx.d(self.threads, calc_ok.mux(thr11, thr_q));
        cx.d(self.rpw, calc_ok.mux(c_rpw, rpw));
        let c_smem_r18: S<C, 18> = c_smem_r.slice::<0, 18>();
        cx.d(self.smem_r, calc_ok.mux(c_smem_r18, smem_r));
        let ew = cx.q(self.err_why);
        cx.d(self.err_v, fail);
        cx.d(self.err_why, fail.mux(why, ew));

        // ---- RUN: release, launch sequencing
        let ln = cx.q(self.ln);
        let lslot = cx.q(self.lslot);
        let lk = cx.q(self.lk);
        let nxq = cx.q(self.nx);
        let nyq = cx.q(self.ny);
        let fin = cx.q(self.fin);
        let wv: SmallBuf<S<C, 1>, 64> = self.w.iter().map(|w| cx.q(w.wv)).collect();
        let wslot: SmallBuf<S<C, 4>, 64> = self.w.iter().map(|w| cx.q(w.slot)).collect();
        let act: SmallBuf<S<C, 1>, 16> = self.c.iter().map(|c| cx.q(c.act)).collect();
        // A slot is busy while a warp of it is valid or its scoreboard is not idle.
        let mut rel: SmallBuf<S<C, 1>, 16> = SmallBuf::filled(z1, NC);
        let mut free_idx = cx.lit::<4>(0);
        let mut any_free = z1;
        for c in (0..NC).rev() {
            let cl = cx.lit::<4>(c as u64);
            let mut held = z1;
            for w in 0..MW {
                held = held | (wslot[w].eq(cl) & (wv[w] | !i.idle_i[w]));
            }
            let launching = ln & lslot.eq(cl);
            rel[c] = s_run & act[c] & !launching & !held & i.lsu_idle_i;
            let usable = !act[c] & cx.lit::<5>(c as u64).ult(n);
            free_idx = usable.mux(cl, free_idx);
            any_free = any_free | usable;
        }
        let begin = cx.name("cta_begin", s_run & !ln & !fin & any_free);
        // Next CTA of the grid (x fastest).
        let one16 = cx.lit::<16>(1);
        let nx1 = nxq + one16;
        let xw = nx1.eq(gx);
        let ny1 = nyq + one16;
        let last = xw & ny1.eq(gy);
        cx.d(self.nx, launch.mux(z16, begin.mux(xw.mux(z16, nx1), nxq)));
        cx.d(self.ny, launch.mux(z16, begin.mux(xw.mux(ny1, nyq), nyq)));
        cx.d(self.fin, launch.mux(z1, (begin & last).mux(o1, fin)));
        // Warp launch: one per cycle while ln.
        let wpc6: S<C, 6> = wpc.slice::<0, 6>();
        let lslot6: S<C, 6> = lslot.zext();
        let lw: S<C, 6> = lslot6.mul::<6, 6>(wpc6) + lk;
        let lw = cx.name("launch_warp", lw);
        let lk_last = (lk + cx.lit::<6>(1)).eq(wpc6);
        cx.d(self.ln, begin.mux(o1, (ln & lk_last).mux(z1, ln)) & !launch);
        cx.d(self.lslot, begin.mux(free_idx, lslot));
        let z6 = cx.lit::<6>(0);
        let one6 = cx.lit::<6>(1);
        cx.d(self.lk, begin.mux(z6, ln.mux(lk + one6, lk)));
        let txq = cx.q(self.tx);
        let tyq = cx.q(self.ty);
        let tzq = cx.q(self.tz);
        // Thread index of lane 0 of the next warp: 32 steps on.
        let mut t = (txq, tyq, tzq);
        for _ in 0..32 {
            t = tid_next(cx, t, bx, by);
        }
        let z10 = cx.lit::<11>(0);
        let z8 = cx.lit::<8>(0);
        cx.d(self.tx, begin.mux(z10, ln.mux(t.0, txq)));
        cx.d(self.ty, begin.mux(z10, ln.mux(t.1, tyq)));
        cx.d(self.tz, begin.mux(z8, ln.mux(t.2, tzq)));
        // Lanes of the launched warp: min(32, threads - 32 k).
        let thr_q16: S<C, 16> = thr_q.zext();
        let lk16: S<C, 16> = lk.zext();
        let done_thr = lk16.shl(cx.lit::<3>(5));
        let left = thr_q16 - done_thr;
        let full = left.uge(cx.lit::<16>(32));
        let left5: S<C, 5> = left.slice::<0, 5>();
        let part = cx.lit::<32>(1).shl(left5) - cx.lit::<32>(1);
        let m = full.mux(cx.lit::<32>(0xffff_ffff), part);
        cx.d(self.st_v, ln);
        let sw = cx.q(self.st_w);
        cx.d(self.st_w, ln.mux(lw, sw));
        let sm = cx.q(self.st_m);
        cx.d(self.st_m, ln.mux(m, sm));
        let sc = cx.q(self.st_c);
        cx.d(self.st_c, ln.mux(lslot, sc));
        let lw16: S<C, 16> = lw.zext();
        let half_w = lw16.shr(cx.lit::<2>(NS as u64 - 1));
        let rpw16: S<C, 16> = rpw.zext();
        let base = half_w.mul::<16, 16>(rpw16);
        let ab = cx.q(self.al_base);
        cx.d(self.al_base, ln.mux(base, ab));
        let lslot18: S<C, 18> = lslot.zext();
        let sbase18 = lslot18.mul::<18, 18>(smem_r);
        let sbase: S<C, 17> = sbase18.slice::<0, 17>();

        // Slots.
        for (c, sr) in self.c.iter().enumerate() {
            let cl = cx.lit::<4>(c as u64);
            let b = begin & free_idx.eq(cl);
            let a = b.mux(o1, rel[c].mux(z1, act[c]));
            cx.d(sr.act, a & !launch);
            let q = cx.q(sr.cx);
            cx.d(sr.cx, b.mux(nxq, q));
            let q = cx.q(sr.cy);
            cx.d(sr.cy, b.mux(nyq, q));
        }
        // Warps.
        let mut wv_o = [z1; MW];
        let mut sbase_o = [cx.lit::<17>(0); MW];
        for (w, wr) in self.w.iter().enumerate() {
            let wl = cx.lit::<6>(w as u64);
            let s = ln & lw.eq(wl);
            let ex = i.exit_valid_i & i.exit_warp_i.eq(wl);
            cx.d(wr.wv, s.mux(o1, ex.mux(z1, wv[w])) & !launch);
            cx.d(wr.slot, s.mux(lslot, wslot[w]));
            let q = cx.q(wr.idx);
            cx.d(wr.idx, s.mux(lk, q));
            let q = cx.q(wr.tx);
            cx.d(wr.tx, s.mux(txq, q));
            let q = cx.q(wr.ty);
            cx.d(wr.ty, s.mux(tyq, q));
            let q = cx.q(wr.tz);
            cx.d(wr.tz, s.mux(tzq, q));
            let q = cx.q(wr.sb);
            cx.d(wr.sb, s.mux(sbase, q));
            wv_o[w] = wv[w];
            sbase_o[w] = q;
        }
        // State machine.
        let any_act = act.iter().fold(z1, |a, x| a | *x);
        let all_done = s_run & fin & !ln & !any_act;
        let nst = launch.mux(cx.lit::<2>(ST_CALC), st);
        let nst = fail.mux(cx.lit::<2>(ST_IDLE), calc_ok.mux(cx.lit::<2>(ST_RUN), nst));
        let nst = all_done.mux(cx.lit::<2>(ST_DONE), nst);
        cx.d(self.st, nst);
        let cyc = cx.q(self.cyc);
        let one32 = cx.lit::<32>(1);
        cx.d(self.cyc, cyc + one32);

        // ---- S2R
        let idx: SmallBuf<S<C, 6>, 64> = self.w.iter().map(|w| cx.q(w.idx)).collect();
        let wtx: SmallBuf<S<C, 11>, 64> = self.w.iter().map(|w| cx.q(w.tx)).collect();
        let wty: SmallBuf<S<C, 11>, 64> = self.w.iter().map(|w| cx.q(w.ty)).collect();
        let wtz: SmallBuf<S<C, 8>, 64> = self.w.iter().map(|w| cx.q(w.tz)).collect();
        let ctax: SmallBuf<S<C, 16>, 16> = self.c.iter().map(|c| cx.q(c.cx)).collect();
        let ctay: SmallBuf<S<C, 16>, 16> = self.c.iter().map(|c| cx.q(c.cy)).collect();
        let ports = [
            (i.s2r_valid_i, i.s2r_warp_i, i.s2r_idx_i, i.s2r_mask_i, i.s2r_tag_i),
            (i.s2r1_valid_i, i.s2r1_warp_i, i.s2r1_idx_i, i.s2r1_mask_i, i.s2r1_tag_i),
        ];
        for (p, (v, w, sr, mask, tag)) in ports.into_iter().enumerate() {
            let rr = &self.res[p];
            cx.d(rr.v, v);
            let q = cx.q(rr.tag);
            cx.d(rr.tag, v.mux(tag, q));
            let mk = pack32(cx, &mask);
            let q = cx.q(rr.mask);
            cx.d(rr.mask, v.mux(mk, q));
            let slot = {
                let ws: SmallBuf<S<C, 4>, 64> = wslot;
                index(cx, &ws, w)
            };
            let mut cxv = cx.lit::<16>(0);
            let mut cyv = cx.lit::<16>(0);
            for c in 0..NC {
                let h = slot.eq(cx.lit::<4>(c as u64));
                cxv = h.mux(ctax[c], cxv);
                cyv = h.mux(ctay[c], cyv);
            }
            let k = index(cx, &idx, w);
            let mut t = (index(cx, &wtx, w), index(cx, &wty, w), index(cx, &wtz, w));
            let z32 = cx.lit::<32>(0);
            let is = |cx: &mut C, n: u64| sr.eq(cx.lit::<8>(n));
            let (i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12) = (
                is(cx, 0),
                is(cx, 1),
                is(cx, 2),
                is(cx, 3),
                is(cx, 4),
                is(cx, 5),
                is(cx, 6),
                is(cx, 7),
                is(cx, 8),
                is(cx, 9),
                is(cx, 10),
                is(cx, 11),
                is(cx, 12),
            );
            // Lane-independent values.
            let mut u = z32;
            u = i3.mux(bx.zext(), u);
            u = i4.mux(by.zext(), u);
            u = i5.mux(bz.zext(), u);
            u = i6.mux(cxv.zext(), u);
            u = i7.mux(cyv.zext(), u);
            u = i8.mux(gx.zext(), u);
            u = i9.mux(gy.zext(), u);
            u = i11.mux(k.zext(), u);
            u = i12.mux(cyc, u);
            for l in 0..32 {
                let mut d = u;
                d = i0.mux(t.0.zext(), d);
                d = i1.mux(t.1.zext(), d);
                d = i2.mux(t.2.zext(), d);
                d = i10.mux(cx.lit::<32>(l as u64), d);
                let q = cx.q(rr.data[l]);
                cx.d(rr.data[l], v.mux(d, q));
                if l < 31 {
                    t = tid_next(cx, t, bx, by);
                }
            }
        }
        let res_out = |cx: &mut C, p: usize| {
            let rr = &self.res[p];
            let v = cx.q(rr.v);
            let tag = cx.q(rr.tag);
            let m = cx.q(rr.mask);
            let mask = unpack32(cx, m);
            let data: [S<C, 32>; 32] = std::array::from_fn(|l| cx.q(rr.data[l]));
            (v, tag, mask, data)
        };
        let (r0v, r0t, r0m, r0d) = res_out(cx, 0);
        let (r1v, r1t, r1m, r1d) = res_out(cx, 1);
        let sm_q = cx.q(self.st_m);
        let ev = cx.q(self.err_v);
        let res_ctas: S<C, 5> = count(cx, &act);
        let res_warps: S<C, 7> = count(cx, &wv);
        CtaOut {
            launch_ready_o: ready,
            busy_o: s_calc | s_run,
            done_o: s_done,
            wv_o,
            st_valid_o: cx.q(self.st_v),
            st_warp_o: sw,
            st_mask_o: unpack32(cx, sm_q),
            st_cta_o: sc,
            al_valid_o: cx.q(self.st_v),
            al_warp_o: sw,
            al_base_o: ab,
            al_nregs_o: nregs,
            sbase_o,
            ssize_o: smem,
            fe_res_valid_o: r0v,
            fe_res_tag_o: r0t,
            fe_res_mask_o: r0m,
            fe_res_data_o: r0d,
            fe_res1_valid_o: r1v,
            fe_res1_tag_o: r1t,
            fe_res1_mask_o: r1m,
            fe_res1_data_o: r1d,
            occ_ctas_o: n,
            res_ctas_o: res_ctas,
            res_warps_o: res_warps,
            err_o: ev,
            err_code_o: ev.mux(cx.lit::<8>(ERR_FIT), cx.lit::<8>(0)),
            err_reason_o: ew,
        }
    }
}

/// Comparisons with a constant.
trait CmpLit<C: Ctx, const W: usize> {
    fn ugt_lit(self, cx: &mut C, v: u64) -> S<C, 1>;
    fn ule_lit(self, cx: &mut C, v: u64) -> S<C, 1>;
}

impl<C: Ctx, const W: usize> CmpLit<C, W> for S<C, W> {
    fn ugt_lit(self, cx: &mut C, v: u64) -> S<C, 1> {
        let l = cx.lit::<W>(v);
        l.ult(self)
    }
    fn ule_lit(self, cx: &mut C, v: u64) -> S<C, 1> {
        let l = cx.lit::<W>(v);
        !l.ult(self)
    }
}

/// Build the launcher for `cfg` (warps, CTA slots and schedulers are type
/// parameters, from the config's warp shape: `crate::shapes`) and hand it
/// to `f`.
pub fn with_cta<F: crate::blocks::BlockFn>(cfg: &SmConfig, f: &mut F) -> anyhow::Result<F::Out> {
    let lim = CtaLimits::of(cfg);
    let e = |e: String| anyhow::anyhow!("config `{}`: {e}", cfg.name);
    crate::with_warp_shape!(cfg, "cta", |MW, NS, NC| f.call(Cta::<MW, NC, NS>::new(lim).map_err(e)?))
}

#[cfg(test)]
mod tests {
    use crate::config::SmConfig;
    use crate::testbenches::cta_tb::cta_random;

    #[test]
    fn random_matches_reference() {
        let g = cta_random::<32, 8, 1>(&SmConfig::preset("gt200").unwrap(), 1, 3000).unwrap();
        assert!(
            g.warps > 100 && g.errors > 0 && g.grids_done > 0 && g.s2r > 100,
            "{g:?}"
        );
        cta_random::<48, 8, 2>(&SmConfig::preset("fermi").unwrap(), 2, 2000).unwrap();
        cta_random::<16, 8, 1>(&SmConfig::preset("tesla").unwrap(), 3, 2000).unwrap();
    }
}
