//! The Verilog text of the prototyping top `sm_<preset>_proto`: the
//! exported SM of a preset with an on-chip instruction memory, an on-chip
//! global memory, a launch ROM and the sequencer that writes the kernel
//! parameters, launches the grid and reports `done_o` / `error_o`.
//!
//! The SM's ports come from its elaborated design ([`PortInfo`]), so the
//! widths follow the preset; SM outputs the top does not use (monitors,
//! counters) end on wires kept apart under a lint waiver, SM inputs it
//! does not know are tied to 0. Timing and memory layout: docs/fpga.md,
//! "The prototyping top".

use crate::hdl::trace::PortInfo;
use crate::hdl::verilog::range;
use std::fmt::Write as _;

/// Words of the launch ROM before the kernel parameters: grid x, grid y,
/// block x, y, z, registers per thread, shared bytes, program length,
/// global-memory bytes, parameter count.
pub const LAUNCH_HEAD: usize = 10;
/// Parameter words the ROM holds (the LSU's parameter memory).
pub const MAX_PARAMS: usize = 256;

/// Error code the top reports when its global memory refuses a request
/// (outside the image, misaligned, an unknown atomic); the SM's own codes
/// are below 32 (docs/sm.md section 7).
pub const ERR_GMEM_MODEL: u8 = 255;

/// The sizes and latencies the top is generated with (its parameters'
/// defaults).
#[derive(Debug, Clone)]
pub struct TopParams {
    /// Instruction-memory line-address bits (2^n lines of 64 bytes).
    pub im_aw: u32,
    /// Global-memory line-address bits (2^n lines of 128 bytes).
    pub gm_aw: u32,
    /// Global-memory bytes the SM may touch (`gm_size_i`).
    pub gm_bytes: u32,
    /// Core cycles from taking an instruction fetch to its line.
    pub im_latency: u32,
    /// Core cycles from taking a read or atomic to its response (>= 2).
    pub gm_latency: u32,
}

/// How the top drives an SM input: a named signal of the top, else 0.
fn input_source(p: &PortInfo) -> String {
    let launch_word = |k: usize| format!("launch_rom_q[{k}][{}:0]", p.bits() - 1);
    match p.name.as_str() {
        "launch_valid_i" => "launch_valid".into(),
        "launch_grid_x_i" => launch_word(0),
        "launch_grid_y_i" => launch_word(1),
        "launch_block_x_i" => launch_word(2),
        "launch_block_y_i" => launch_word(3),
        "launch_block_z_i" => launch_word(4),
        "launch_nregs_i" => launch_word(5),
        "launch_smem_i" => launch_word(6),
        "plen_i" => launch_word(7),
        "gm_size_i" => launch_word(8),
        "param_we_i" => "param_we".into(),
        "param_addr_i" => "param_addr".into(),
        "param_data_i" => "param_data".into(),
        "im_req_ready_i" => "im_ready".into(),
        "im_resp_valid_i" => "im_resp_valid".into(),
        "im_resp_data_i" => "im_resp_data".into(),
        "gm_req_ready_i" => "gm_ready".into(),
        "gm_resp_valid_i" => "gm_resp_valid".into(),
        "gm_resp_id_i" => "gm_resp_id".into(),
        "gm_resp_rdata_i" => "gm_resp_rdata".into(),
        _ => format!("{}'d0", p.bits()),
    }
}

/// The SM outputs the top reads, with the width it expects (0: any).
const USED_OUTPUTS: [(&str, usize); 16] = [
    ("launch_ready_o", 1),
    ("done_o", 1),
    ("im_req_valid_o", 1),
    ("im_req_addr_o", 16),
    ("gm_req_valid_o", 1),
    ("gm_req_id_o", 0),
    ("gm_req_write_o", 1),
    ("gm_req_atom_o", 4),
    ("gm_req_addr_o", 32),
    ("gm_req_size_o", 2),
    ("gm_req_wmask_o", 32),
    ("gm_req_wdata_o", 1024),
    ("err_o", 1),
    ("err_code_o", 8),
    ("err_src_o", 0),
    ("err_pc_o", 0),
];

/// The SM inputs the top must drive, with their widths (0: any).
const NEEDED_INPUTS: [(&str, usize); 8] = [
    ("launch_valid_i", 1),
    ("param_we_i", 1),
    ("param_addr_i", 8),
    ("param_data_i", 32),
    ("im_resp_data_i", 512),
    ("gm_resp_id_i", 0),
    ("gm_resp_rdata_i", 1024),
    ("gm_req_ready_i", 1),
];

/// Check that the SM has the host ports the top drives, with the widths
/// it is written for.
fn check_ports(inputs: &[PortInfo], outputs: &[PortInfo]) -> Result<(), String> {
    for (list, wanted) in [(inputs, &NEEDED_INPUTS[..]), (outputs, &USED_OUTPUTS[..])] {
        for &(name, w) in wanted {
            match list.iter().find(|p| p.name == name) {
                None => return Err(format!("the SM has no port `{name}`")),
                Some(p) if w != 0 && p.bits() != w => {
                    return Err(format!("the SM's `{name}` is {} bits, the top expects {w}", p.bits()))
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// The width of port `name` in `list`.
fn width(list: &[PortInfo], name: &str) -> usize {
    list.iter().find(|p| p.name == name).map_or(1, |p| p.bits())
}

/// The Verilog of `<sm>_proto` around the SM module `sm` with host ports
/// `inputs` / `outputs` (clocks and reset apart).
pub fn proto_top(sm: &str, inputs: &[PortInfo], outputs: &[PortInfo], p: &TopParams) -> Result<String, String> {
    check_ports(inputs, outputs)?;
    let idw = width(outputs, "gm_req_id_o");
    if width(inputs, "gm_resp_id_i") != idw {
        return Err("the SM's request and response ids differ in width".into());
    }
    let (srcw, pcw) = (width(outputs, "err_src_o"), width(outputs, "err_pc_o"));
    let mut v = String::new();
    let w = &mut v;
    let _ = write!(
        w,
        "// {sm}_proto: prototyping top written by `smrtl export-proto` (docs/fpga.md,
// \"The prototyping top\"). The SM `{sm}` with an on-chip instruction memory
// (IMEM_HEX, 64-byte lines), an on-chip global memory (GMEM_HEX, 128-byte
// lines), a launch ROM (LAUNCH_HEX: grid x, grid y, block x, y, z, registers,
// shared bytes, program length, global-memory bytes, parameter count, then the
// parameter words) and a sequencer: after reset it writes the parameter words
// one per core cycle, presents the launch until the SM takes it, then waits
// for the SM's done_o (done_o here) or first error (error_o, err_code_o: the
// SM's code, or {ERR_GMEM_MODEL} when the global memory refused a request).
// Global memory: one request per core cycle, performed when taken; reads and
// atomics answered in request order GM_LATENCY core cycles later (>= 2);
// an atomic holds the port for one more cycle (read, then write).
// Instruction memory: one fetch at a time, its line IM_LATENCY core cycles later.
module {sm}_proto #(
  parameter IMEM_HEX = \"imem.hex\",
  parameter GMEM_HEX = \"gmem.hex\",
  parameter LAUNCH_HEX = \"launch.hex\",
  parameter integer IM_AW = {im_aw},
  parameter integer GM_AW = {gm_aw},
  parameter [15:0] IM_LATENCY = 16'd{im_lat},
  parameter [15:0] GM_LATENCY = 16'd{gm_lat}
) (
  input  wire clk_core_i,
  input  wire clk_hot_i,
  input  wire rst_ni,
  output wire done_o,
  output wire error_o,
  output wire [7:0] err_code_o
);
  localparam integer LAUNCH_WORDS = {lw};
  localparam integer GM_QAW = $clog2({{16'd0, GM_LATENCY}} + 32'd2);
  localparam [GM_QAW:0] GM_QD = {{1'b1, {{GM_QAW{{1'b0}}}}}};

",
        im_aw = p.im_aw,
        gm_aw = p.gm_aw,
        im_lat = p.im_latency.max(1),
        gm_lat = p.gm_latency.max(2),
        lw = LAUNCH_HEAD + MAX_PARAMS,
    );
    // The SM's ports as wires.
    let _ = writeln!(w, "  // The SM's host ports the top drives and reads.");
    for q in inputs {
        let _ = writeln!(w, "  wire {}sm_{};", range(q.bits()), q.name);
    }
    for q in outputs.iter().filter(|q| USED_OUTPUTS.iter().any(|u| u.0 == q.name)) {
        let _ = writeln!(w, "  wire {}sm_{};", range(q.bits()), q.name);
    }
    let _ = writeln!(
        w,
        "  // Monitors and counters: not used by the top.\n  /* verilator lint_off UNUSEDSIGNAL */"
    );
    for q in outputs.iter().filter(|q| !USED_OUTPUTS.iter().any(|u| u.0 == q.name)) {
        let _ = writeln!(w, "  wire {}sm_{};", range(q.bits()), q.name);
    }
    let _ = writeln!(
        w,
        "  // The launch ROM: only the low bits of its words reach the SM.
  reg [31:0] launch_rom_q [0:LAUNCH_WORDS-1];
  /* verilator lint_on UNUSEDSIGNAL */
  initial $readmemh(LAUNCH_HEX, launch_rom_q);
"
    );
    let _ = writeln!(w, "{}", sequencer(srcw, pcw));
    let _ = writeln!(w, "{}", imem());
    let _ = writeln!(w, "{}", gmem(idw));
    // The SM instance.
    let mut conns = vec![
        "    .clk_core_i(clk_core_i)".to_string(),
        "    .clk_hot_i(clk_hot_i)".into(),
        "    .rst_ni(rst_ni)".into(),
    ];
    conns.extend(
        inputs
            .iter()
            .chain(outputs)
            .map(|q| format!("    .{0}(sm_{0})", q.name)),
    );
    let _ = writeln!(w, "  {sm} u_sm (\n{}\n  );\n", conns.join(",\n"));
    for q in inputs {
        let _ = writeln!(w, "  assign sm_{} = {};", q.name, input_source(q));
    }
    let _ = writeln!(w, "\nendmodule");
    Ok(v)
}

/// The sequencer: parameter words, launch, then wait for done or error.
fn sequencer(srcw: usize, pcw: usize) -> String {
    format!(
        "  // Sequencer: PARAM (one parameter word per core cycle), LAUNCH (until
  // the SM takes it), RUN, then DONE or ERROR for good.
  localparam [2:0] S_PARAM = 3'd0, S_LAUNCH = 3'd1, S_RUN = 3'd2, S_DONE = 3'd3, S_ERROR = 3'd4;
  reg [2:0] state_q, state_d;
  reg [8:0] pidx_q, pidx_d;
  reg [7:0] err_code_q, err_code_d;
  // The SM's first error in full, for a testbench or a logic analyser.
  /* verilator lint_off UNUSEDSIGNAL */
  reg [{sw}:0] err_src_q;
  reg [{pw}:0] err_pc_q;
  /* verilator lint_on UNUSEDSIGNAL */
  wire [8:0] nparams = launch_rom_q[9][8:0];
  wire gm_err;
  wire param_we = (state_q == S_PARAM) && (pidx_q < nparams);
  wire [7:0] param_addr = pidx_q[7:0];
  wire [31:0] param_data = launch_rom_q[pidx_q + 9'd{head}];
  wire launch_valid = (state_q == S_LAUNCH);

  always @(*) begin
    state_d = state_q;
    pidx_d = pidx_q;
    err_code_d = err_code_q;
    if (state_q != S_DONE && state_q != S_ERROR && sm_err_o) begin
      state_d = S_ERROR;
      err_code_d = sm_err_code_o;
    end else if (state_q != S_DONE && state_q != S_ERROR && gm_err) begin
      state_d = S_ERROR;
      err_code_d = 8'd{gm_code};
    end else begin
      case (state_q)
        S_PARAM: begin
          if (pidx_q < nparams) pidx_d = pidx_q + 9'd1;
          else state_d = S_LAUNCH;
        end
        S_LAUNCH: if (sm_launch_ready_o) state_d = S_RUN;
        S_RUN: if (sm_done_o) state_d = S_DONE;
        default: ;
      endcase
    end
  end

  always @(posedge clk_core_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= S_PARAM;
      pidx_q <= 9'd0;
      err_code_q <= 8'd0;
      err_src_q <= {srcw}'d0;
      err_pc_q <= {pcw}'d0;
    end else begin
      state_q <= state_d;
      pidx_q <= pidx_d;
      err_code_q <= err_code_d;
      if (state_q != S_ERROR && state_d == S_ERROR && sm_err_o) begin
        err_src_q <= sm_err_src_o;
        err_pc_q <= sm_err_pc_o;
      end
    end
  end

  assign done_o = (state_q == S_DONE);
  assign error_o = (state_q == S_ERROR);
  assign err_code_o = err_code_q;
",
        sw = srcw - 1,
        pw = pcw - 1,
        head = LAUNCH_HEAD,
        gm_code = ERR_GMEM_MODEL,
    )
}

/// The instruction memory: one fetch at a time, a registered line read.
fn imem() -> String {
    "  // Instruction memory: 2^IM_AW lines of 8 instruction words (word k in
  // bits 64k+63:64k); lines beyond it read 0.
  reg [511:0] imem_q [0:(1<<IM_AW)-1];
  initial $readmemh(IMEM_HEX, imem_q);
  reg im_pend_q;
  reg [15:0] im_cnt_q;
  reg [511:0] im_line_q;
  wire im_ready = ~im_pend_q;
  wire im_take = sm_im_req_valid_o & im_ready;
  wire im_inside = ((sm_im_req_addr_o >> IM_AW) == 16'd0);
  wire im_resp_valid = im_pend_q && (im_cnt_q == 16'd0);
  wire [511:0] im_resp_data = im_resp_valid ? im_line_q : 512'd0;

  always @(posedge clk_core_i or negedge rst_ni) begin
    if (!rst_ni) begin
      im_pend_q <= 1'b0;
      im_cnt_q <= 16'd0;
    end else if (im_pend_q) begin
      if (im_cnt_q == 16'd0) im_pend_q <= 1'b0;
      else im_cnt_q <= im_cnt_q - 16'd1;
    end else if (im_take) begin
      im_pend_q <= 1'b1;
      im_cnt_q <= IM_LATENCY - 16'd1;
    end
  end

  always @(posedge clk_core_i) begin
    if (im_take) im_line_q <= im_inside ? imem_q[sm_im_req_addr_o[IM_AW-1:0]] : 512'd0;
  end
"
    .into()
}

/// The global memory: a line-wide array with a 32-bit write enable per
/// word, one request per cycle, and an in-order response queue.
fn gmem(idw: usize) -> String {
    format!(
        "  // Global memory: 2^GM_AW lines of 32 words (word k of a line in bits
  // 32k+31:32k, the word at byte (line << 7) + 4k). Port as the SM's gm_*
  // (docs/sm.md 5.6): word k of wmask/wdata/rdata is word k of the line.
  reg [1023:0] gmem_q [0:(1<<GM_AW)-1];
  initial $readmemh(GMEM_HEX, gmem_q);
  wire [31:0] gm_bytes = launch_rom_q[8];
  reg [31:0] cyc_q;
  // Request decode.
  wire [31:0] rq_addr = sm_gm_req_addr_o;
  wire rq_atom = (sm_gm_req_atom_o != 4'd0);
  wire [4:0] rq_first = rq_addr[6:2];
  wire [5:0] rq_words = (sm_gm_req_size_o == 2'd0) ? 6'd8 : (sm_gm_req_size_o == 2'd1) ? 6'd16 : 6'd32;
  wire [6:0] rq_bytes_m1 = {{rq_words, 1'b0}} + {{rq_words, 1'b0}} - 7'd1;
  wire [32:0] rq_end4 = {{1'b0, rq_addr}} + 33'd4;
  reg [31:0] rq_seg;
  reg [31:0] rq_beyond;
  integer k;
  always @(*) begin
    for (k = 0; k < 32; k = k + 1) begin
      rq_seg[k] = (k[5:0] >= {{1'b0, rq_first}}) && (k[5:0] < {{1'b0, rq_first}} + rq_words);
      rq_beyond[k] = ({{1'b0, rq_addr[31:7], k[4:0], 2'b00}} + 33'd4) > {{1'b0, gm_bytes}};
    end
  end
  wire rq_bad_atom = (rq_addr[1:0] != 2'b00) || (rq_end4 > {{1'b0, gm_bytes}}) || (sm_gm_req_atom_o > 4'd8);
  wire rq_bad_seg = (sm_gm_req_size_o == 2'd3) || ((rq_addr[6:0] & rq_bytes_m1) != 7'd0)
                  || (rq_addr >= gm_bytes)
                  || (sm_gm_req_write_o && ((sm_gm_req_wmask_o & rq_seg & rq_beyond) != 32'd0));
  wire rq_bad = rq_atom ? rq_bad_atom : rq_bad_seg;
  wire rq_inside = ((rq_addr >> (GM_AW + 7)) == 32'd0);
  // Port state.
  reg gm_err_q;
  reg atom_q;
  reg [4:0] atom_word_q;
  reg [3:0] atom_op_q;
  reg [31:0] atom_b_q, atom_c_q;
  reg [GM_AW-1:0] atom_line_q;
  reg st_v_q, st_atom_q;
  reg [{idm}:0] st_id_q;
  reg [31:0] st_seg_q;
  reg [1023:0] gm_line_q;
  reg [GM_QAW:0] q_cnt_q;
  reg [GM_QAW-1:0] q_wp_q, q_rp_q;
  wire gm_ready = ~atom_q & ~gm_err_q & (({{1'b0, q_cnt_q}} + {{{{(GM_QAW+1){{1'b0}}}}, st_v_q}}) < {{1'b0, GM_QD}});
  wire gm_take = sm_gm_req_valid_o & gm_ready;
  wire gm_ok = gm_take & ~rq_bad & rq_inside;
  assign gm_err = gm_err_q;
  // The atomic's new value, from the line read at the cycle it was taken.
  wire [31:0] atom_old = gm_line_q[{{atom_word_q, 5'd0}} +: 32];
  reg [31:0] atom_new;
  always @(*) begin
    case (atom_op_q)
      4'd1: atom_new = atom_old + atom_b_q;
      4'd2: atom_new = ($signed(atom_old) < $signed(atom_b_q)) ? atom_old : atom_b_q;
      4'd3: atom_new = ($signed(atom_old) > $signed(atom_b_q)) ? atom_old : atom_b_q;
      4'd4: atom_new = atom_b_q;
      4'd5: atom_new = (atom_old == atom_c_q) ? atom_b_q : atom_old;
      4'd6: atom_new = atom_old & atom_b_q;
      4'd7: atom_new = atom_old | atom_b_q;
      default: atom_new = atom_old ^ atom_b_q;
    endcase
  end
  // One port: the request's line, or the atomic's write the cycle after.
  wire [GM_AW-1:0] mem_line = atom_q ? atom_line_q : rq_addr[GM_AW+6:7];
  wire mem_rd = gm_ok & (rq_atom | ~sm_gm_req_write_o);
  wire [31:0] mem_we = atom_q ? (32'd1 << atom_word_q)
                     : ((gm_ok & sm_gm_req_write_o & ~rq_atom) ? (sm_gm_req_wmask_o & rq_seg) : 32'd0);
  wire [1023:0] mem_wdata = atom_q ? {{32{{atom_new}}}} : sm_gm_req_wdata_o;
  integer j;
  always @(posedge clk_core_i) begin
    for (j = 0; j < 32; j = j + 1) begin
      if (mem_we[j]) gmem_q[mem_line][32*j +: 32] <= mem_wdata[32*j +: 32];
    end
    if (mem_rd) gm_line_q <= gmem_q[mem_line];
  end
  // Response queue: pushed the cycle after the request was taken, due
  // GM_LATENCY core cycles after it was taken, popped when due.
  reg [1023:0] q_data [0:(1<<GM_QAW)-1];
  reg [{idm}:0] q_id [0:(1<<GM_QAW)-1];
  reg [31:0] q_due [0:(1<<GM_QAW)-1];
  reg [1023:0] st_data;
  integer m;
  always @(*) begin
    for (m = 0; m < 32; m = m + 1) begin
      st_data[32*m +: 32] = st_seg_q[m] ? gm_line_q[32*m +: 32] : 32'd0;
    end
    if (st_atom_q) st_data = {{992'd0, atom_old}};
  end
  wire gm_resp_valid = (q_cnt_q != {{(GM_QAW+1){{1'b0}}}}) && ($signed(cyc_q - q_due[q_rp_q]) >= 32'sd0);
  wire [{idm}:0] gm_resp_id = gm_resp_valid ? q_id[q_rp_q] : {idw}'d0;
  wire [1023:0] gm_resp_rdata = gm_resp_valid ? q_data[q_rp_q] : 1024'd0;

  always @(posedge clk_core_i) begin
    if (st_v_q) begin
      q_data[q_wp_q] <= st_data;
      q_id[q_wp_q] <= st_id_q;
      q_due[q_wp_q] <= cyc_q + {{16'd0, GM_LATENCY}} - 32'd1;
    end
  end

  always @(posedge clk_core_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cyc_q <= 32'd0;
      gm_err_q <= 1'b0;
      atom_q <= 1'b0;
      atom_word_q <= 5'd0;
      atom_op_q <= 4'd0;
      atom_b_q <= 32'd0;
      atom_c_q <= 32'd0;
      atom_line_q <= {{GM_AW{{1'b0}}}};
      st_v_q <= 1'b0;
      st_atom_q <= 1'b0;
      st_id_q <= {idw}'d0;
      st_seg_q <= 32'd0;
      q_cnt_q <= {{(GM_QAW+1){{1'b0}}}};
      q_wp_q <= {{GM_QAW{{1'b0}}}};
      q_rp_q <= {{GM_QAW{{1'b0}}}};
    end else begin
      cyc_q <= cyc_q + 32'd1;
      if (gm_take && (rq_bad || !rq_inside)) gm_err_q <= 1'b1;
      atom_q <= gm_ok & rq_atom;
      if (gm_ok & rq_atom) begin
        atom_word_q <= rq_addr[6:2];
        atom_op_q <= sm_gm_req_atom_o;
        atom_b_q <= sm_gm_req_wdata_o[31:0];
        atom_c_q <= sm_gm_req_wdata_o[63:32];
        atom_line_q <= rq_addr[GM_AW+6:7];
      end
      st_v_q <= mem_rd;
      st_atom_q <= rq_atom;
      st_id_q <= sm_gm_req_id_o;
      st_seg_q <= rq_seg;
      if (st_v_q) q_wp_q <= q_wp_q + {{{{(GM_QAW-1){{1'b0}}}}, 1'b1}};
      if (gm_resp_valid) q_rp_q <= q_rp_q + {{{{(GM_QAW-1){{1'b0}}}}, 1'b1}};
      q_cnt_q <= q_cnt_q + {{{{GM_QAW{{1'b0}}}}, st_v_q}} - {{{{GM_QAW{{1'b0}}}}, gm_resp_valid}};
    end
  end
",
        idm = idw - 1,
    )
}
