//! The files `smrtl export-proto` writes beside the prototyping top: the
//! plain Verilog testbench `tb_proto.v` (clocks, reset, run until done,
//! error or a cycle limit, dump of the final global memory) and the
//! scripts `run_icarus.sh` / `run_verilator.sh` that build and run it and
//! turn the dump into `gmem_out.bin`.

/// The testbench around `<proto>`: the hot clock toggles every 1 ns, the
/// core clock rises with every second hot edge, the first edge after reset
/// being a core edge (hot cycle `t` ends with a core edge when `t` is even,
/// the substrate's timing); `rst_ni` is pulsed low before the first edge. It stops at `done_o`, `error_o` or after
/// `+max_cycles=N` core cycles (default `max_cycles`), prints one status
/// line (`PROTO DONE`, `PROTO ERROR`, `PROTO LIMIT`) and writes the global
/// memory's `lines` lines to `gmem_out.hex` (or `+dump=PATH`), one
/// 128-byte line per text line, most significant byte first.
pub fn testbench(proto: &str, lines: u64, max_cycles: u64) -> String {
    format!(
        "// tb_proto.v: testbench of {proto} written by `smrtl export-proto`.
// Runs the kernel from the memory images until done_o, error_o or the cycle
// limit (+max_cycles=N, core cycles), prints a status line and writes the final
// global memory to gmem_out.hex or +dump=PATH (one 128-byte line per text line,
// the byte at the highest address first); run_icarus.sh and run_verilator.sh
// turn it into gmem_out.bin.
`timescale 1ns/1ps
module tb_proto;
  reg clk_core_i, clk_hot_i, rst_ni;
  wire done_o, error_o;
  wire [7:0] err_code_o;
  integer t, core, max_cycles, fd, i;
  reg [8*256-1:0] dump;

  {proto} dut (
    .clk_core_i(clk_core_i),
    .clk_hot_i(clk_hot_i),
    .rst_ni(rst_ni),
    .done_o(done_o),
    .error_o(error_o),
    .err_code_o(err_code_o)
  );

  initial begin
    if (!$value$plusargs(\"max_cycles=%d\", max_cycles)) max_cycles = {max_cycles};
    if (!$value$plusargs(\"dump=%s\", dump)) dump = \"gmem_out.hex\";
    clk_core_i = 1'b0;
    clk_hot_i = 1'b0;
    rst_ni = 1'b1;
    #1 rst_ni = 1'b0;
    #1 rst_ni = 1'b1;
    #1;
    core = 0;
    t = 0;
    // One core cycle = two hot cycles: the first hot edge after reset comes
    // with a core edge (the hot blocks' phase starts there), the second alone.
    while (!done_o && !error_o && core < max_cycles) begin
      #1 clk_hot_i = 1'b1; clk_core_i = 1'b1;
      #1 clk_hot_i = 1'b0;
      #1 clk_hot_i = 1'b1; clk_core_i = 1'b0;
      #1 clk_hot_i = 1'b0;
      t = t + 2;
      core = core + 1;
    end
    if (done_o)
      $display(\"PROTO DONE core_cycles=%0d\", core);
    else if (error_o)
      $display(\"PROTO ERROR code=%0d source=%0d pc=%0d core_cycles=%0d\", err_code_o, dut.err_src_q, dut.err_pc_q, core);
    else
      $display(\"PROTO LIMIT core_cycles=%0d (no done_o or error_o within the limit)\", core);
    fd = $fopen(dump, \"w\");
    for (i = 0; i < {lines}; i = i + 1) $fdisplay(fd, \"%h\", dut.gmem_q[i]);
    $fclose(fd);
    $finish;
  end
endmodule
"
    )
}

/// The end shared by both scripts: the status line of the log decides the
/// exit code, and the dump becomes `gmem_out.bin` (`bytes` bytes) whatever
/// the status.
fn script_tail(tool: &str, bytes: u64) -> String {
    format!(
        "if [ -f build/gmem_out_{tool}.hex ]; then
  python3 - \"{bytes}\" build/gmem_out_{tool}.hex build/gmem_out_{tool}.bin <<'PY' || {{ echo \"{tool}: converting the dump failed\" >&2; exit 1; }}
import sys
n = int(sys.argv[1])
out = bytearray()
for line in open(sys.argv[2]):
    line = line.strip()
    if line:
        out += bytes.fromhex(line)[::-1]
open(sys.argv[3], 'wb').write(bytes(out[:n]))
PY
  cp build/gmem_out_{tool}.bin gmem_out.bin || exit 1
  echo \"{tool}: wrote gmem_out.bin ($(wc -c < gmem_out.bin) bytes)\"
else
  echo \"{tool}: the simulation wrote no build/gmem_out_{tool}.hex\" >&2
  exit 1
fi
status=$(grep '^PROTO ' build/{tool}.log | tail -n 1)
case \"$status\" in
  'PROTO DONE'*) echo \"{tool}: the kernel finished ($status)\"; exit 0 ;;
  'PROTO ERROR'*) echo \"{tool}: the run ended in an error ($status); gmem_out.bin holds the memory at that point\" >&2; exit 2 ;;
  'PROTO LIMIT'*) echo \"{tool}: the run hit the cycle limit ($status); gmem_out.bin holds the memory at that point\" >&2; exit 3 ;;
  *) echo \"{tool}: the simulation printed no status line (see build/{tool}.log)\" >&2; exit 1 ;;
esac
"
    )
}

/// The head shared by both scripts: work in the script's folder, check the
/// tools.
fn script_head(tool: &str, what: &str, tools: &[(&str, &str)]) -> String {
    let mut s = format!(
        "#!/bin/sh
# {tool}.sh: {what}, runs tb_proto and writes the final global memory to
# gmem_out.bin (the bytes `smrtl run --output` writes for the same launch).
# Exit 0: the kernel finished; 2: it ended in an error; 3: cycle limit;
# 1: a build or tool failure; 127: a tool is missing. Extra arguments go to
# the simulation (e.g. +max_cycles=N).
set -u
cd \"$(dirname \"$0\")\" || exit 1
"
    );
    for (t, pkg) in tools {
        s.push_str(&format!(
            "command -v {t} >/dev/null 2>&1 || {{ echo \"{tool}: '{t}' not found; install it ({pkg})\" >&2; exit 127; }}\n"
        ));
    }
    s.push_str(&format!("mkdir -p build\nrm -f build/gmem_out_{tool}.hex\n"));
    s
}

/// `run_icarus.sh`.
pub fn run_icarus(bytes: u64) -> String {
    let mut s = script_head(
        "run_icarus",
        "builds the prototyping top with Icarus Verilog",
        &[
            ("iverilog", "apt-get install iverilog"),
            ("vvp", "apt-get install iverilog"),
            ("python3", "apt-get install python3"),
        ],
    );
    s.push_str(
        "iverilog -g2005 -s tb_proto -o build/proto.vvp tb_proto.v rtl/*.v > build/iverilog.log 2>&1 || {
  cat build/iverilog.log >&2; echo \"run_icarus: iverilog failed\" >&2; exit 1; }
start=$(date +%s)
vvp -n build/proto.vvp +dump=build/gmem_out_run_icarus.hex \"$@\" > build/run_icarus.log 2>&1
echo \"run_icarus: simulated in $(( $(date +%s) - start )) s\"
grep -v '^VCD' build/run_icarus.log | tail -n 5
",
    );
    s.push_str(&script_tail("run_icarus", bytes));
    s
}

/// `run_verilator.sh`.
pub fn run_verilator(bytes: u64) -> String {
    let mut s = script_head(
        "run_verilator",
        "builds the prototyping top with Verilator (--binary --timing)",
        &[
            ("verilator", "apt-get install verilator, version 5 or later"),
            ("make", "apt-get install make"),
            ("g++", "apt-get install g++"),
            ("python3", "apt-get install python3"),
        ],
    );
    s.push_str(
        "jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
start=$(date +%s)
verilator --binary --timing -j \"$jobs\" --top-module tb_proto -Mdir build/verilator \\
  -CFLAGS -O1 tb_proto.v rtl/*.v > build/verilator.log 2>&1 || {
  tail -n 30 build/verilator.log >&2; echo \"run_verilator: the Verilator build failed (build/verilator.log)\" >&2; exit 1; }
echo \"run_verilator: built in $(( $(date +%s) - start )) s\"
start=$(date +%s)
build/verilator/Vtb_proto +dump=build/gmem_out_run_verilator.hex \"$@\" > build/run_verilator.log 2>&1
echo \"run_verilator: simulated in $(( $(date +%s) - start )) s\"
tail -n 5 build/run_verilator.log
",
    );
    s.push_str(&script_tail("run_verilator", bytes));
    s
}
