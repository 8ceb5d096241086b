//! `smrtl fpga --register-ports`: a wrapper around a module of `rtl/`
//! that registers every input and output port on one clock, so that
//! out-of-context place and route times the logic between the module's
//! ports and its own registers (docs/fpga.md, "Registered ports").
//!
//! ```text
//!  ports --> [x_i_q] --> u_dut (the module) --> [y_o_q] --> ports
//!            clk_core_i or clk_hot_i; clocks and rst_ni straight through
//! ```
use std::fmt::Write as _;

/// The clock of the `--register-ports` wrapper's port registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PortClock {
    /// `clk_hot_i` when the module has a register on the hot clock, else
    /// `clk_core_i`.
    Auto,
    Core,
    Hot,
}

/// One port of a module header as the exporter writes it
/// (`input  wire [31:0] a_i,`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    pub input: bool,
    /// `[31:0]`, or empty for one bit.
    pub range: String,
    pub name: String,
}

/// The ports of `module` in an exported file: the lines of its header
/// between `module NAME (` and `);`.
pub fn module_ports(src: &str, module: &str) -> Result<Vec<Port>, String> {
    let head = format!("module {module} (");
    let mut lines = src.lines().skip_while(|l| l.trim() != head.as_str());
    if lines.next().is_none() {
        return Err(format!("no line `{head}` in its file"));
    }
    let mut ports = Vec::new();
    for l in lines {
        let t = l.trim();
        if t == ");" {
            return Ok(ports);
        }
        let words: Vec<&str> = t.trim_end_matches(',').split_whitespace().collect();
        let (dir, range, name) = match words.as_slice() {
            [d, "wire", n] => (*d, "", *n),
            [d, "wire", r, n] if r.starts_with('[') => (*d, *r, *n),
            _ => return Err(format!("unexpected header line `{t}`")),
        };
        let input = match dir {
            "input" => true,
            "output" => false,
            _ => return Err(format!("unexpected port direction in `{t}`")),
        };
        ports.push(Port {
            input,
            range: range.to_string(),
            name: name.to_string(),
        });
    }
    Err(format!("the header of {module} has no closing `);`"))
}

/// Verilog of `NAME_regio`: `module` as `u_dut` with every input and
/// output port registered on `clk` (`clk_core_i` or `clk_hot_i`); the
/// clocks and the asynchronous reset `rst_ni` pass straight through. The
/// wrapper has the module's ports, so the same clock constraints apply.
/// Out-of-context timing covers only register-to-register paths; with the
/// wrapper the logic from the ports to the first registers and from the
/// last registers to the ports is on such paths.
pub fn port_wrapper(module: &str, ports: &[Port], clk: &str) -> String {
    // `[31:0] ` or nothing, before a declared name.
    let range = |p: &Port| {
        if p.range.is_empty() {
            String::new()
        } else {
            format!("{} ", p.range)
        }
    };
    let through = |p: &Port| p.name.starts_with("clk_") || p.name == "rst_ni";
    let mut v = String::new();
    let name = format!("{module}_regio");
    let _ = writeln!(
        v,
        "// {name}: {module} with every input and output port registered on {clk};\n\
         // written by `smrtl fpga --register-ports` to time the logic next to the ports."
    );
    let _ = writeln!(v, "module {name} (");
    for (k, p) in ports.iter().enumerate() {
        let dir = if p.input { "input " } else { "output" };
        let sep = if k + 1 < ports.len() { "," } else { "" };
        let _ = writeln!(v, "  {dir} wire {}{}{sep}", range(p), p.name);
    }
    let _ = writeln!(v, ");\n");
    for p in ports.iter().filter(|p| !through(p)) {
        let r = range(p);
        let _ = writeln!(v, "  reg  {r}{}_q;", p.name);
        if !p.input {
            let _ = writeln!(v, "  wire {r}{}_w;", p.name);
            let _ = writeln!(v, "  assign {0} = {0}_q;", p.name);
        }
    }
    let _ = writeln!(v, "\n  always @(posedge {clk}) begin");
    for p in ports.iter().filter(|p| !through(p)) {
        let src = if p.input {
            p.name.clone()
        } else {
            format!("{}_w", p.name)
        };
        let _ = writeln!(v, "    {}_q <= {src};", p.name);
    }
    let _ = writeln!(v, "  end\n\n  {module} u_dut (");
    for (k, p) in ports.iter().enumerate() {
        let sep = if k + 1 < ports.len() { "," } else { "" };
        let sig = if through(p) {
            p.name.clone()
        } else if p.input {
            format!("{}_q", p.name)
        } else {
            format!("{}_w", p.name)
        };
        let _ = writeln!(v, "    .{}({sig}){sep}", p.name);
    }
    let _ = writeln!(v, "  );\nendmodule");
    v
}

/// The wrapper's clock for `--register-ports` (`Auto`: the hot clock when
/// any of the files declares a hot-clock register, as the exporter's
/// register comments say, else the core clock).
pub(super) fn wrapper_clock(want: PortClock, ports: &[Port], srcs: &[String]) -> Result<&'static str, String> {
    let clk = match want {
        PortClock::Core => "clk_core_i",
        PortClock::Hot => "clk_hot_i",
        PortClock::Auto => {
            let hot = ports.iter().any(|p| p.name == "clk_hot_i")
                && srcs.iter().any(|s| s.lines().any(|l| l.contains("// hot clock")));
            if hot {
                "clk_hot_i"
            } else {
                "clk_core_i"
            }
        }
    };
    if ports.iter().any(|p| p.input && p.name == clk) {
        Ok(clk)
    } else {
        Err(format!("it has no {clk} port"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::process::Command;

    /// Every exported module's header parses (the flow reads each top's
    /// clocks from it), and has ports.
    #[test]
    fn every_rtl_header_parses() {
        let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl");
        let mut n = 0;
        for m in crate::fpga::modules_in(&rtl) {
            let src = std::fs::read_to_string(rtl.join(format!("{m}.v"))).unwrap();
            let ports = module_ports(&src, &m).unwrap_or_else(|e| panic!("{m}: {e}"));
            assert!(ports.iter().any(|p| p.input) && ports.iter().any(|p| !p.input), "{m}");
            n += 1;
        }
        assert!(n > 50, "{n} modules");
    }

    /// The FIFO's header parsed; its wrapper registers every port but the
    /// clocks and the reset, on the clock asked for (auto: the FIFO has no
    /// hot-clock register, so the core clock), and Icarus compiles it with
    /// the FIFO (when `iverilog` is on PATH; CI installs it).
    #[test]
    fn port_wrapper_registers_every_port() {
        let rtl = Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl");
        let src = std::fs::read_to_string(rtl.join("fifo_w32_d16.v")).unwrap();
        let ports = module_ports(&src, "fifo_w32_d16").unwrap();
        let names: Vec<&str> = ports.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "clk_core_i",
                "clk_hot_i",
                "rst_ni",
                "push_i",
                "wdata_i",
                "pop_i",
                "rdata_o",
                "rvalid_o",
                "full_o",
                "empty_o",
                "count_o"
            ]
        );
        assert_eq!(ports[4].range, "[31:0]");
        assert!(ports[4].input && !ports[6].input);
        let srcs = vec![src.clone()];
        assert_eq!(wrapper_clock(PortClock::Auto, &ports, &srcs), Ok("clk_core_i"));
        assert_eq!(wrapper_clock(PortClock::Hot, &ports, &srcs), Ok("clk_hot_i"));
        let lane = std::fs::read_to_string(rtl.join("sp_lane_tesla_l8.v")).unwrap();
        let lp = module_ports(&lane, "sp_lane_tesla_l8").unwrap();
        assert_eq!(wrapper_clock(PortClock::Auto, &lp, &[lane]), Ok("clk_hot_i"));
        let no_hot: Vec<Port> = ports.iter().filter(|p| p.name != "clk_hot_i").cloned().collect();
        assert!(wrapper_clock(PortClock::Hot, &no_hot, &srcs)
            .unwrap_err()
            .contains("no clk_hot_i"));
        assert!(module_ports(&src, "other").unwrap_err().contains("module other ("));

        let w = port_wrapper("fifo_w32_d16", &ports, "clk_core_i");
        for p in ["push_i", "wdata_i", "pop_i"] {
            assert!(w.contains(&format!("    {p}_q <= {p};")), "{p}\n{w}");
            assert!(w.contains(&format!("    .{p}({p}_q)")), "{p}\n{w}");
        }
        for p in ["rdata_o", "rvalid_o", "full_o", "empty_o", "count_o"] {
            assert!(w.contains(&format!("    {p}_q <= {p}_w;")), "{p}\n{w}");
            assert!(w.contains(&format!("  assign {p} = {p}_q;")), "{p}\n{w}");
        }
        assert!(w.contains("    .clk_hot_i(clk_hot_i),") && w.contains("    .rst_ni(rst_ni),"));
        assert!(!w.contains("rst_ni_q") && !w.contains("clk_core_i_q"));
        assert!(w.contains("always @(posedge clk_core_i)"));
        if let Some(iv) = crate::fpga::on_path("iverilog") {
            let d = std::env::temp_dir().join(format!("smrtl_regio_{}", std::process::id()));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("w.v"), &w).unwrap();
            let st = Command::new(iv)
                .args(["-Wall", "-o"])
                .arg(d.join("w.vvp"))
                .arg(d.join("w.v"))
                .arg(rtl.join("fifo_w32_d16.v"))
                .output()
                .unwrap();
            assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
            std::fs::remove_dir_all(&d).unwrap();
        }
    }
}
