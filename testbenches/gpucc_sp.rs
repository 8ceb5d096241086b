//! `gpucc_on_sp`: the GPU-CC network whose cores drive external lanes
//! ([`GpuccNetX`]) wired to the SP array of the same preset with lane
//! ports ([`SpArray2Ln16`]), as the SM connects them: core `j` drives the
//! array's lane `j` (`ln<j>_*`, lane `j % 16` of group `j / 16`), both
//! groups in lane mode. Its ports are [`GpuccNet`]'s (the network with
//! its own lanes), so `testbenches::gpucc_tb` runs either block with the
//! same stimulus and checks.
//!
//! ```text
//!   cfg_* clear_i run_i mem<j>_*            (the gpucc_net ports)
//!        |                 ^
//!   +----v-----------------+----+  ln<j>_{valid,op,mod,a,b,c,pa}_o
//!   | u_net: gpucc_net_*_x      |------------------+
//!   |  32 cores (no own lane),  |                  v
//!   |  16 LSUs, lanes A-E       |   +-------------------------------+
//!   +---------------------------+   | u_sp: sp_array_*_ln           |
//!        ^  ln<j>_{valid,res,pred,  |  sp<g>_ln_mode_i = 1, sp<g>_* |
//!        |     err,err_code}_i      |  (warp dispatch) = 0          |
//!        +--------------------------+-------------------------------+
//! ```
//!
//! * The SP array's lane outputs are registered (the valid pipeline and
//!   the lane's last stage), so the array is begun first and its lane
//!   outputs feed the network in the same cycle; the network's lane
//!   operations then end the array.
//! * Lane mode is constant 1: out of reset both groups are idle and no
//!   warp instruction is ever dispatched (the SP groups' rule: `ln_mode_i`
//!   changes only while the group is idle).

use crate::config::SmConfig;
use crate::hdl::block::ZeroPorts;
use crate::hdl::{Backend, Block, Bundle, Ctx, Decl};
use crate::units::fp::k;
use crate::units::gpucc::{GpuccNet, GpuccNetX, NetIn, NetOut};
use crate::units::sp::{SpArray2Ln16, SpArrayIn, SpGeom, SpIssue, SpLnMode};

/// The network with external lanes on the SP array of its preset.
#[derive(Debug, Clone)]
pub struct GpuccOnSp {
    decl: Decl,
    net: GpuccNetX,
    sp: SpArray2Ln16,
    mode: bool,
}

impl GpuccOnSp {
    /// The pair for `cfg` (a GPU-CC preset with two groups of 16 SP
    /// lanes), or why not.
    pub fn new(cfg: &SmConfig) -> Result<GpuccOnSp, String> {
        let net = GpuccNet::external(cfg)?;
        let sp = SpArray2Ln16::new(SpGeom::of(cfg)).map_err(|e| format!("the {} preset: {e}", cfg.name))?;
        Ok(GpuccOnSp {
            decl: Decl::new(),
            net,
            sp,
            mode: true,
        })
    }
    /// The groups' lane mode (1 unless asked: 0 is a wiring fault the
    /// testbench's tests plant).
    pub fn lane_mode(mut self, on: bool) -> Self {
        self.mode = on;
        self
    }
}

impl Block for GpuccOnSp {
    type In<B: Backend> = NetIn<B, 0>;
    type Out<B: Backend> = NetOut<B, 0>;

    fn module_name(&self) -> String {
        format!(
            "gpucc_on_{}{}",
            self.sp.module_name(),
            if self.mode { "" } else { "_off" }
        )
    }

    fn decl(&self) -> &Decl {
        &self.decl
    }

    fn eval<C: Ctx>(&self, cx: &mut C, i: &NetIn<C::B, 0>) -> NetOut<C::B, 0> {
        let (h, so) = cx.instance_begin("u_sp", &self.sp);
        let ni = NetIn {
            cfg_we_i: i.cfg_we_i,
            cfg_node_i: i.cfg_node_i,
            cfg_sel_i: i.cfg_sel_i,
            cfg_data_i: i.cfg_data_i,
            clear_i: i.clear_i,
            run_i: i.run_i,
            mem_req_ready_i: i.mem_req_ready_i,
            mem_resp_valid_i: i.mem_resp_valid_i,
            mem_resp_data_i: i.mem_resp_data_i,
            ln: so.ln,
        };
        let no = cx.instance("u_net", &self.net, &ni);
        let si: SpArrayIn<C::B, 2, 2, 32> = SpArrayIn {
            sp: std::array::from_fn(|g| <SpIssue<C::B> as Bundle<C::B>>::build(&mut ZeroPorts, "sp", Some(g), "_i")),
            mode: std::array::from_fn(|_| SpLnMode {
                ln_mode: k::<C::B, 1>(self.mode as u64),
            }),
            ln: no.ln,
        };
        let _ = cx.instance_end(h, &self.sp, &si);
        NetOut {
            mem_req_valid_o: no.mem_req_valid_o,
            mem_req_we_o: no.mem_req_we_o,
            mem_req_addr_o: no.mem_req_addr_o,
            mem_req_wdata_o: no.mem_req_wdata_o,
            done_o: no.done_o,
            err_o: no.err_o,
            fire_o: no.fire_o,
            stall_in_o: no.stall_in_o,
            stall_out_o: no.stall_out_o,
            tok_valid_o: no.tok_valid_o,
            tok_o: no.tok_o,
            pf_valid_o: no.pf_valid_o,
            pf_line_o: no.pf_line_o,
            ln: [],
        }
    }
}
