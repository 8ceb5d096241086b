//! The HDL substrate end to end: design checks, hierarchy, exported Verilog
//! (current, lint-clean, synthesizable, RAM inference), VCD contents.

use smrtl::cosim::{self, require_tools, Options};
use smrtl::hdl::fifo::{Fifo, FifoIn};
use smrtl::hdl::sim::zero_ports;
use smrtl::hdl::{elaborate, verilog, Backend, Bits, Block, Concrete, Ctx, Decl, Domain, Reg, Sig, Sim};
use smrtl::testbenches::fifo_pair::{FifoPair, PairIn};
use smrtl::units::mad_rf::MadRf;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

smrtl::ports! {
    pub struct OneIn { x_i: 8 @ Core }
}
smrtl::ports! {
    pub struct OneOut { y_o: 8 @ Hot }
}

/// A hot register fed straight from a core register: must be rejected
/// unless `cross` is used.
#[derive(Clone)]
struct Crossing {
    decl: Decl,
    a: Reg<8>,
    b: Reg<8>,
    explicit: bool,
}

impl Crossing {
    fn new(explicit: bool) -> Self {
        let mut decl = Decl::new();
        let a = decl.reg("a", Domain::Core, 0);
        let b = decl.reg("b", Domain::Hot, 0);
        Crossing { decl, a, b, explicit }
    }
}

impl Block for Crossing {
    type In<B: Backend> = OneIn<B>;
    type Out<B: Backend> = OneOut<B>;
    fn module_name(&self) -> String {
        format!("crossing_{}", self.explicit as u8)
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &OneIn<C::B>) -> OneOut<C::B> {
        cx.d(self.a, i.x_i);
        let a = cx.q(self.a);
        let a = if self.explicit { cx.cross(a, Domain::Hot) } else { a };
        cx.d(self.b, a);
        OneOut { y_o: cx.q(self.b) }
    }
}

#[test]
fn wrong_domain_crossing_is_rejected() {
    let e = Sim::new(Crossing::new(false))
        .err()
        .expect("implicit core->hot path must be rejected")
        .to_string();
    assert!(
        e.contains("register `b_q` is in the hot domain") && e.contains("`a_q`") && e.contains("cross"),
        "{e}"
    );
    Sim::new(Crossing::new(true)).expect("explicit crossing is accepted");
}

/// A Mealy block (output = input) used through instance_fb: rejected.
#[derive(Clone)]
struct Mealy(Decl);
smrtl::ports! { pub struct MIn { m_i: 4 @ Core } }
smrtl::ports! { pub struct MOut { m_o: 4 @ Core } }
impl Block for Mealy {
    type In<B: Backend> = MIn<B>;
    type Out<B: Backend> = MOut<B>;
    fn module_name(&self) -> String {
        "mealy".into()
    }
    fn decl(&self) -> &Decl {
        &self.0
    }
    fn eval<C: Ctx>(&self, _cx: &mut C, i: &MIn<C::B>) -> MOut<C::B> {
        MOut { m_o: i.m_i }
    }
}
#[derive(Clone)]
struct UsesMealy(Decl, Mealy);
impl Block for UsesMealy {
    type In<B: Backend> = MIn<B>;
    type Out<B: Backend> = MOut<B>;
    fn module_name(&self) -> String {
        "uses_mealy".into()
    }
    fn decl(&self) -> &Decl {
        &self.0
    }
    fn eval<C: Ctx>(&self, cx: &mut C, _i: &MIn<C::B>) -> MOut<C::B> {
        cx.instance_fb("u_m", &self.1, |_cx, o| MIn { m_i: !o.m_o })
    }
}

#[test]
fn feedback_through_a_mealy_block_is_rejected() {
    let e = Sim::new(UsesMealy(Decl::new(), Mealy(Decl::new())))
        .err()
        .expect("comb loop")
        .to_string();
    assert!(e.contains("instance_fb") && e.contains("mealy"), "{e}");
}

/// A block with one Moore output (a counter) and one Mealy output
/// (input + counter): feedback from the Moore output is accepted, the
/// Mealy output is usable after the call, and it simulates as wired.
#[derive(Clone)]
struct Mixed(Decl, smrtl::hdl::Reg<4>);
smrtl::ports! { pub struct XIn { x_i: 4 @ Core, en_i: 1 @ Core } }
smrtl::ports! { pub struct XOut { cnt_o: 4 @ Core, sum_o: 4 @ Core } }
impl Mixed {
    fn new() -> Self {
        let mut d = Decl::new();
        let r = d.reg::<4>("cnt", Domain::Core, 0);
        Mixed(d, r)
    }
}
impl Block for Mixed {
    type In<B: Backend> = XIn<B>;
    type Out<B: Backend> = XOut<B>;
    fn module_name(&self) -> String {
        "mixed".into()
    }
    fn decl(&self) -> &Decl {
        &self.0
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &XIn<C::B>) -> XOut<C::B> {
        let c = cx.q(self.1);
        let one = cx.lit::<4>(1);
        cx.d(self.1, i.en_i.mux(c + one, c));
        XOut {
            cnt_o: c,
            sum_o: c + i.x_i,
        }
    }
}
#[derive(Clone)]
struct UsesMixed(Decl, Mixed, bool);
impl Block for UsesMixed {
    type In<B: Backend> = MIn<B>;
    type Out<B: Backend> = MOut<B>;
    fn module_name(&self) -> String {
        format!("uses_mixed_{}", self.2 as u8)
    }
    fn decl(&self) -> &Decl {
        &self.0
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &MIn<C::B>) -> MOut<C::B> {
        let bad = self.2;
        let o = cx.instance_fb("u_x", &self.1, |cx, o| {
            // Count while the counter is below 5 (Moore feedback).
            let five = cx.lit::<4>(5);
            let en = if bad { o.sum_o.ult(five) } else { o.cnt_o.ult(five) };
            XIn { x_i: i.m_i, en_i: en }
        });
        MOut { m_o: o.sum_o }
    }
}

#[test]
fn feedback_from_the_moore_outputs_of_a_mealy_block() {
    let mut sim = Sim::new(UsesMixed(Decl::new(), Mixed::new(), false)).expect("moore feedback is accepted");
    let mut outs = vec![];
    for k in 0..8u64 {
        let o = sim.step_core(&MIn {
            m_i: smrtl::hdl::Bits::new(k),
        });
        outs.push(o.m_o.to_u64());
    }
    // cnt = 0,1,2,3,4,5,5,5; sum = cnt + k.
    assert_eq!(outs, vec![0, 2, 4, 6, 8, 10, 11, 12]);
    let e = Sim::new(UsesMixed(Decl::new(), Mixed::new(), true))
        .err()
        .expect("the Mealy output in the closure must be rejected")
        .to_string();
    assert!(e.contains("u_x.sum_o") && e.contains("instance_fb"), "{e}");
}

#[test]
fn constant_too_wide_is_rejected() {
    #[derive(Clone)]
    struct Wide(Decl);
    impl Block for Wide {
        type In<B: Backend> = MIn<B>;
        type Out<B: Backend> = MOut<B>;
        fn module_name(&self) -> String {
            "wide".into()
        }
        fn decl(&self) -> &Decl {
            &self.0
        }
        fn eval<C: Ctx>(&self, cx: &mut C, i: &MIn<C::B>) -> MOut<C::B> {
            MOut {
                m_o: i.m_i + cx.lit::<4>(0x1f),
            }
        }
    }
    let e = Sim::new(Wide(Decl::new())).err().unwrap().to_string();
    assert!(e.contains("does not fit in 4 bits"), "{e}");
}

fn pair_in(push: bool, v: u8, pop: bool) -> PairIn<Concrete> {
    PairIn {
        push_i: Bits::new(push as u64),
        wdata_i: Bits::new(v as u64),
        pop_i: Bits::new(pop as u64),
    }
}

#[test]
fn hierarchy_keeps_order_and_state_per_instance() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(9);
    let mut sim = Sim::new(FifoPair::new()).unwrap();
    let d = sim.design();
    let names: Vec<&str> = d.modules.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(
        names,
        ["fifo_w8_d4", "fifo_pair"],
        "one module per block and parameter set"
    );
    assert_eq!(d.modules[1].insts.len(), 2);
    let (mut sent, mut got, mut valid_cycles) = (vec![], vec![], 0u64);
    let mut next = 0u8;
    for _ in 0..5_000 {
        let push = rng.gen_bool(0.6);
        let o = sim.step_core(&pair_in(push, next, rng.gen_bool(0.5)));
        if push && o.full_o.to_u64() == 0 {
            sent.push(next);
            next = next.wrapping_add(1);
        }
        if o.rvalid_o.to_u64() == 1 {
            got.push(o.rdata_o.to_u64() as u8);
            valid_cycles += 1;
        }
    }
    assert!(got.len() > 1000);
    assert_eq!(
        &sent[..got.len()],
        &got[..],
        "words leave in order, none lost or duplicated"
    );
    // The hot-domain counter counted one per core cycle with rvalid_o. A
    // core-domain value is visible in the hot cycle right after its core
    // edge, so the counter has also seen the cycle after the last one the
    // test observed.
    let count = sim.peek("count").unwrap()[0];
    assert!(
        count == valid_cycles || count == valid_cycles + 1,
        "count {count} vs {valid_cycles}"
    );
    // Per-instance state is separate.
    let a = sim.peek("u_first.wr_ptr").unwrap();
    let b = sim.peek("u_second.wr_ptr").unwrap();
    assert!(a[0] < 4 && b[0] < 4);
    assert!(sim.peek("u_third.wr_ptr").is_none());
}

fn rtl_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("rtl")
}

/// Everything kept in rtl/ (the proof blocks and the smem presets).
fn exported() -> Vec<(String, String)> {
    smrtl::flows::rtl_set_texts().unwrap()
}

#[test]
fn rtl_folder_is_current() {
    for (name, text) in exported() {
        let path = rtl_dir().join(format!("{name}.v"));
        let on_disk = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}; run `smrtl export` (see README)", path.display()));
        assert!(
            on_disk == text,
            "{} is stale: run `cargo run --release -- export-all`",
            path.display()
        );
    }
}

#[test]
fn verilog_lints_clean_with_wall() {
    require_tools(&["verilator"]);
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lint");
    let mut texts = exported();
    texts.extend(verilog::emit(&elaborate(&FifoPair::new()).unwrap()));
    texts.extend(verilog::emit(&elaborate(&Crossing::new(true)).unwrap()));
    texts.extend(verilog::emit(
        &elaborate(&smrtl::testbenches::mem_ports::MemPorts::new()).unwrap(),
    ));
    cosim::write_rtl(&texts, &tmp).unwrap();
    for (name, _) in &texts {
        let o = Command::new("verilator")
            .args(["--lint-only", "-Wall"])
            .arg(format!("-I{}", tmp.display()))
            .arg(tmp.join(format!("{name}.v")))
            .output()
            .unwrap();
        let log = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            o.status.success() && !log.contains("%Warning") && !log.contains("%Error"),
            "{name}:\n{log}"
        );
    }
}

fn yosys(script: &str) -> String {
    let o = Command::new("yosys")
        .args(["-q", "-p", script])
        .output()
        .expect("yosys");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "yosys failed: {script}\n{log}");
    log
}

/// Yosys front end and memory inference of `<tmp>/<name>.v`: the number
/// of `$mem` cells.
fn front_end_mems(tmp: &Path, name: &str) -> u64 {
    let f = tmp.join(format!("{name}.v"));
    yosys(&format!(
        "read_verilog {}; synth -top {name} -run begin:fine; tee -o {}/{name}.mem stat",
        f.display(),
        tmp.display()
    ));
    let stat = std::fs::read_to_string(tmp.join(format!("{name}.mem"))).unwrap();
    stat.lines()
        .find(|l| l.trim_start().starts_with("$mem"))
        .and_then(|l| l.split_whitespace().last()?.parse().ok())
        .unwrap_or(0)
}

#[test]
fn yosys_synthesizes_and_infers_ram() {
    require_tools(&["yosys"]);
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("yosys");
    let texts = exported();
    cosim::write_rtl(&texts, &tmp).unwrap();
    // Every module of rtl/: the Yosys front end and elaboration of the whole
    // hierarchy in one run (submodules resolved, processes lowered).
    let files: Vec<String> = texts
        .iter()
        .map(|(n, _)| tmp.join(format!("{n}.v")).display().to_string())
        .collect();
    yosys(&format!("read_verilog {}; hierarchy -check; proc", files.join(" ")));
    let synth_all = std::env::var_os("SMRTL_SYNTH_ALL").is_some();
    for (name, _) in &texts {
        if name.starts_with("regfile") && !synth_all {
            // One $mem per lane memory: 8 per bank, 32 per group of 4 banks.
            let groups: u64 = name.split('_').find_map(|f| f.strip_prefix('g')?.parse().ok()).unwrap();
            assert_eq!(
                front_end_mems(&tmp, name),
                32 * groups,
                "{name}: one memory per lane of each bank"
            );
            continue;
        }
        if name.starts_with("smem") && !synth_all {
            // Full synthesis takes minutes of ABC (figures in docs/smem.md;
            // `SMRTL_SYNTH_ALL=1` runs it). Here: the front end and memory
            // inference, one $mem per bank.
            let banks: u64 = name.split('_').find_map(|f| f.strip_prefix('b')?.parse().ok()).unwrap();
            assert_eq!(
                front_end_mems(&tmp, name),
                banks,
                "{name}: one memory per bank expected"
            );
            continue;
        }
        // Full generic and Xilinx synthesis with RAM inference: the proof
        // blocks (seconds). The SM blocks' synth_xilinx figures take minutes
        // to hours each and are recorded in their docs (docs/sp.md,
        // docs/regfile.md, docs/frontend.md, ...), not run here.
        let ram_block = name.starts_with("fifo") || name.starts_with("mad_rf");
        if !(ram_block || synth_all && (name.starts_with("smem") || name.starts_with("regfile"))) {
            continue;
        }
        let f = tmp.join(format!("{name}.v"));
        yosys(&format!("read_verilog {}; synth -top {name}", f.display()));
        yosys(&format!(
            "read_verilog {}; synth_xilinx -top {name}; tee -o {}/{name}.stat stat",
            f.display(),
            tmp.display()
        ));
        let stat = std::fs::read_to_string(tmp.join(format!("{name}.stat"))).unwrap();
        let rams: u64 = stat
            .lines()
            .filter(|l| l.trim_start().starts_with("RAM"))
            .filter_map(|l| l.split_whitespace().last()?.parse::<u64>().ok())
            .sum();
        assert!(rams > 0, "{name}: no RAM primitive inferred:\n{stat}");
    }
}

#[test]
fn vcd_has_clocks_and_every_register_by_hierarchical_name() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("vcd");
    let path = dir.join("fifo_pair.vcd");
    let mut sim = Sim::new(FifoPair::new()).unwrap();
    sim.open_vcd(&path).unwrap();
    for k in 0..300u64 {
        sim.step(&pair_in(k % 3 != 0, k as u8, k % 5 < 3));
    }
    sim.close_vcd().unwrap();
    let f = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
    let mut p = vcd::Parser::new(f);
    let h = p.parse_header().unwrap();
    let names = common::vcd_names(&h);
    let has = |n: &str| names.iter().any(|(x, _)| x == n);
    for n in [
        "fifo_pair.clk_core_i",
        "fifo_pair.clk_hot_i",
        "fifo_pair.rst_ni",
        "fifo_pair.push_i",
        "fifo_pair.count_o",
        "fifo_pair.count_q",
        "fifo_pair.seen_q",
        "fifo_pair.u_first.wr_ptr_q",
        "fifo_pair.u_first.rd_ptr_q",
        "fifo_pair.u_first.full_q",
        "fifo_pair.u_first.mem_rdata0_q",
        "fifo_pair.u_second.rvalid_q",
    ] {
        assert!(has(n), "VCD lacks {n}; has {names:?}");
    }
    // Replay the value changes: the final value of every register equals the
    // simulator's state, and both clocks toggle at the expected rates.
    let mut last: std::collections::HashMap<vcd::IdCode, u64> = Default::default();
    let (mut hot_edges, mut core_edges) = (0, 0);
    let id = |n: &str| names.iter().find(|(x, _)| x == n).unwrap().1;
    let (ch, cc) = (id("fifo_pair.clk_hot_i"), id("fifo_pair.clk_core_i"));
    for cmd in p {
        match cmd.unwrap() {
            vcd::Command::ChangeScalar(i, v) => {
                let b = (v == vcd::Value::V1) as u64;
                if b == 1 && last.get(&i) != Some(&1) {
                    hot_edges += (i == ch) as u64;
                    core_edges += (i == cc) as u64;
                }
                last.insert(i, b);
            }
            vcd::Command::ChangeVector(i, v) => {
                let n = v.iter().fold(0u64, |a, b| (a << 1) | (b == vcd::Value::V1) as u64);
                last.insert(i, n);
            }
            _ => {}
        }
    }
    let gtkw = std::fs::read_to_string(dir.join("fifo_pair.vcd.gtkw")).unwrap();
    // The dump and the save file as the simulator was given them
    // (src/hdl/gtkw.rs: GTKWave finds the dump from any directory).
    let dump = dir.join("fifo_pair.vcd");
    assert!(
        gtkw.starts_with(&format!(
            "[dumpfile] \"{}\"\n[savefile] \"{}.gtkw\"\n",
            dump.display(),
            dump.display()
        )) && gtkw.contains("fifo_pair.count_q[15:0]"),
        "{gtkw}"
    );
    // One collapsed group per child instance, and every trace the save
    // file names is a signal of the VCD (GTKWave drops unknown names).
    assert!(gtkw.contains("-u_first ("), "{gtkw}");
    assert!(gtkw.contains("fifo_pair.u_first.wr_ptr_q"), "{gtkw}");
    let traces: Vec<&str> = gtkw
        .lines()
        .filter(|l| !l.starts_with(['@', '-', '[']))
        .map(|l| l.split('[').next().unwrap())
        .collect();
    assert!(traces.len() > 10, "{gtkw}");
    for t in traces {
        assert!(has(t), "{t} of the .gtkw is not in the VCD");
    }
    assert_eq!(hot_edges, 300);
    assert_eq!(core_edges, 150);
    for reg in [
        "count",
        "u_first.wr_ptr",
        "u_first.rd_ptr",
        "u_second.wr_ptr",
        "u_second.rd_ptr",
        "u_second.full",
    ] {
        let v = last[&id(&format!("fifo_pair.{reg}_q"))];
        assert_eq!(v, sim.peek(reg).unwrap()[0], "{reg}");
    }
    if std::env::var_os("CI").is_some() {
        require_tools(&["vcd2fst"]);
    }
    if cosim::have_tool("vcd2fst") {
        let fst = dir.join("fifo_pair.fst");
        let o = Command::new("vcd2fst").arg(&path).arg(&fst).output().unwrap();
        assert!(
            o.status.success() && fst.metadata().unwrap().len() > 0,
            "vcd2fst failed: {o:?}"
        );
    }
}

/// Every proof block's VCD has both clocks and every register and memory
/// read register under the module's scope, and converts with vcd2fst.
#[test]
fn proof_block_vcds_parse_and_convert() {
    fn check<K: Block>(blk: K, dir: &Path) {
        let mut sim = Sim::new(blk).unwrap();
        let m = sim.design().modules[sim.design().top].clone();
        let path = dir.join(format!("{}.vcd", m.name));
        sim.open_vcd(&path).unwrap();
        let z = zero_ports::<K::In<Concrete>>();
        for _ in 0..100 {
            sim.step(&z);
        }
        sim.close_vcd().unwrap();
        let mut p = vcd::Parser::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
        let h = p.parse_header().unwrap();
        let scope = h.find_scope(&[m.name.clone()]).expect("top scope");
        let vars: Vec<String> = scope
            .items
            .iter()
            .filter_map(|i| {
                if let vcd::ScopeItem::Var(v) = i {
                    Some(v.reference.clone())
                } else {
                    None
                }
            })
            .collect();
        let mut want = vec!["clk_core_i".to_string(), "clk_hot_i".into(), "rst_ni".into()];
        want.extend(m.decl.regs.iter().map(|r| format!("{}_q", r.name)));
        for mem in &m.decl.mems {
            want.extend((0..mem.read_ports).map(|p| format!("{}_rdata{p}_q", mem.name)));
        }
        want.extend(m.inputs.iter().chain(&m.outputs).map(|p| p.name.clone()));
        for w in want {
            assert!(vars.contains(&w), "{}: VCD lacks {w}", m.name);
        }
        for c in p {
            c.unwrap();
        }
        if std::env::var_os("CI").is_some() {
            require_tools(&["vcd2fst"]);
        }
        if cosim::have_tool("vcd2fst") {
            let fst = path.with_extension("fst");
            let o = Command::new("vcd2fst").arg(&path).arg(&fst).output().unwrap();
            assert!(
                o.status.success() && fst.metadata().unwrap().len() > 0,
                "vcd2fst {}: {o:?}",
                path.display()
            );
        }
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("vcd_blocks");
    check(Fifo::<32, 4, 5>::new(), &dir);
    check(MadRf::new(), &dir);
}

#[test]
fn hierarchical_block_cosimulates() {
    require_tools(&["verilator"]);
    let o = Options {
        hot_cycles: 50_000,
        seed: 3,
        p_one: 0.6,
        wave_dir: PathBuf::from(env!("CARGO_TARGET_TMPDIR")),
        window: 16,
    };
    let r = cosim::lockstep(&FifoPair::new(), None, &o).unwrap();
    assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
}

#[test]
fn zero_inputs_and_fifo_in_helpers() {
    let z: FifoIn<Concrete, 32, 0> = zero_ports();
    assert_eq!(z.wdata_i, Bits::zero());
}

mod mem_ports {
    use super::*;
    use smrtl::testbenches::mem_ports::{MemPorts, MemPortsIn, ROM};

    fn cfg_in() -> MemPortsIn<Concrete> {
        zero_ports()
    }

    #[test]
    fn rom_ram_ports_and_priorities() {
        let mut s = Sim::new(MemPorts::new()).unwrap();
        // Hot-domain ROM: the address of hot cycle t is on rom_o at t+1.
        let mut i = cfg_in();
        for a in 0..16u64 {
            i.rom_addr_i = Bits::new(a);
            s.step(&i);
            let o = s.eval(&i);
            assert_eq!(o.rom_o.to_u64(), ROM[a as usize]);
        }
        // Two writes to one word at one edge: port 1 wins. Read-first.
        let mut w = cfg_in();
        (w.we0_i, w.wa0_i, w.wd0_i) = (Bits::new(1), Bits::new(5), Bits::new(0x1111));
        (w.we1_i, w.wa1_i, w.wd1_i) = (Bits::new(1), Bits::new(5), Bits::new(0x2222));
        (w.re0_i, w.ra0_i) = (Bits::new(1), Bits::new(5));
        s.step_core(&w);
        let o = s.eval(&cfg_in());
        assert_eq!(o.rd0_o.to_u64(), 0, "read-first: old contents");
        let mut r = cfg_in();
        (r.re0_i, r.ra0_i, r.re1_i, r.ra1_i) = (Bits::new(1), Bits::new(5), Bits::new(1), Bits::new(6));
        s.step_core(&r);
        let o = s.eval(&cfg_in());
        assert_eq!((o.rd0_o.to_u64(), o.rd1_o.to_u64()), (0x2222, 0));
    }

    #[test]
    fn rom_and_multiport_ram_cosimulate_and_infer() {
        require_tools(&["verilator", "yosys"]);
        let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mem_ports");
        let o = Options {
            hot_cycles: 100_000,
            seed: 8,
            p_one: 0.5,
            wave_dir: tmp.clone(),
            window: 16,
        };
        let r = cosim::lockstep(&MemPorts::new(), None, &o).unwrap();
        assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
        let texts = verilog::emit(&elaborate(&MemPorts::new()).unwrap());
        cosim::write_rtl(&texts, &tmp).unwrap();
        let f = tmp.join("mem_ports.v");
        // The ROM and the RAM stay memories through Yosys' memory passes.
        yosys(&format!(
            "read_verilog {}; synth -top mem_ports -run begin:fine; tee -o {}/mem.stat stat",
            f.display(),
            tmp.display()
        ));
        let stat = std::fs::read_to_string(tmp.join("mem.stat")).unwrap();
        assert!(stat.contains("$mem"), "no $mem cells:\n{stat}");
    }

    #[test]
    fn icarus_flags_x_from_a_register_without_reset() {
        require_tools(&["iverilog"]);
        let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("mem_ports_icarus");
        let r = smrtl::cosim::icarus::check(MemPorts::new(), None, 200, 1, 0.5, &tmp).unwrap();
        assert!(
            r.mismatches > 0,
            "latched_q has no reset: Icarus must see X before its first core edge"
        );
        assert!(
            r.first[0].contains("port=latched_o") && r.first[0].contains("got=xxxx"),
            "{:?}",
            r.first
        );
        assert!(
            r.first.iter().all(|l| l.contains("latched_o")),
            "only the no-reset register differs: {:?}",
            r.first
        );
    }
}

mod array_ports {
    use super::*;
    use smrtl::testbenches::lanes::{LanesIn, LanesTop};

    #[test]
    fn lanes_compute_per_lane() {
        let mut s = Sim::new(LanesTop::new()).unwrap();
        let mut i: LanesIn<Concrete> = zero_ports();
        for k in 0..32 {
            i.a_i[k] = Bits::new(1000 + k as u64);
            i.b_i[k] = Bits::new(7 * k as u64);
        }
        i.en_i = Bits::new(1);
        s.step_core(&i);
        let o = s.eval(&i);
        for k in 0..32u64 {
            assert_eq!(o.sum_o[k as usize].to_u64(), (1000 + 8 * k) ^ k, "lane {k}");
        }
        let v = &verilog::emit(s.design())[1].1;
        assert!(
            v.contains("input  wire [511:0] a_i") && v.contains("output wire [511:0] sum_o"),
            "{v}"
        );
    }

    #[test]
    fn array_ports_cosimulate_and_lint() {
        require_tools(&["verilator", "iverilog"]);
        let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lanes");
        let o = Options {
            hot_cycles: 20_000,
            seed: 4,
            p_one: 0.5,
            wave_dir: tmp.clone(),
            window: 8,
        };
        let r = cosim::lockstep(&LanesTop::new(), None, &o).unwrap();
        assert!(r.mismatch.is_none(), "{}", r.mismatch.unwrap());
        let ir = smrtl::cosim::icarus::check(LanesTop::new(), None, 2_000, 5, 0.5, &tmp.join("icarus")).unwrap();
        assert_eq!(ir.mismatches, 0, "{:?}", ir.first);
        // A flipped bit in one lane is reported with its lane index.
        let mut texts = verilog::emit(&elaborate(&LanesTop::new()).unwrap());
        texts[0].1 = cosim::flip_one_bit(&texts[0].1).unwrap().0;
        let r = cosim::lockstep(&LanesTop::new(), Some(texts), &o).unwrap();
        let m = r.mismatch.expect("caught");
        assert_eq!(m.signal, "sum_o[0]", "{m}");
        let texts = verilog::emit(&elaborate(&LanesTop::new()).unwrap());
        cosim::write_rtl(&texts, &tmp.join("rtl")).unwrap();
        for (name, _) in &texts {
            let out = Command::new("verilator")
                .args(["--lint-only", "-Wall"])
                .arg(format!("-I{}", tmp.join("rtl").display()))
                .arg(tmp.join("rtl").join(format!("{name}.v")))
                .output()
                .unwrap();
            assert!(
                out.status.success() && out.stderr.is_empty(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        // The VCD shows the 512-bit buses packed, element 0 in the low bits.
        let mut s = Sim::new(LanesTop::new()).unwrap();
        s.open_vcd(tmp.join("lanes.vcd")).unwrap();
        let mut i: LanesIn<Concrete> = zero_ports();
        i.a_i[0] = Bits::new(0x8001);
        i.a_i[31] = Bits::new(0x4000);
        s.step(&i);
        s.close_vcd().unwrap();
        let text = std::fs::read_to_string(tmp.join("lanes.vcd")).unwrap();
        let want = format!("b1{}1000000000000001 ", "0".repeat(14 + 30 * 16));
        assert!(text.contains(&want), "packed a_i not found");
    }
}

#[test]
fn two_blocks_with_one_module_name_are_rejected() {
    #[derive(Clone)]
    struct Twice(Decl, Fifo<8, 2, 3>, Fifo<8, 3, 4>);
    impl Block for Twice {
        type In<B: Backend> = MIn<B>;
        type Out<B: Backend> = MOut<B>;
        fn module_name(&self) -> String {
            "twice".into()
        }
        fn decl(&self) -> &Decl {
            &self.0
        }
        fn eval<C: Ctx>(&self, cx: &mut C, i: &MIn<C::B>) -> MOut<C::B> {
            let z8 = cx.lit::<8>(0);
            let z1 = cx.lit::<1>(0);
            let f = FifoIn {
                push_i: z1,
                wdata_i: z8,
                pop_i: z1,
            };
            cx.instance("u_a", &self.1, &f);
            cx.instance("u_b", &Renamed(self.2.clone()), &f);
            MOut { m_o: i.m_i }
        }
    }
    /// A depth-8 FIFO that claims the depth-4 FIFO's module name.
    #[derive(Clone)]
    struct Renamed(Fifo<8, 3, 4>);
    impl Block for Renamed {
        type In<B: Backend> = FifoIn<B, 8, 0>;
        type Out<B: Backend> = smrtl::hdl::fifo::FifoOut<B, 8, 4, 0>;
        fn module_name(&self) -> String {
            "fifo_w8_d4".into()
        }
        fn decl(&self) -> &Decl {
            self.0.decl()
        }
        fn eval<C: Ctx>(&self, cx: &mut C, i: &FifoIn<C::B, 8, 0>) -> smrtl::hdl::fifo::FifoOut<C::B, 8, 4, 0> {
            self.0.eval(cx, i)
        }
    }
    let e = Sim::new(Twice(Decl::new(), Fifo::new(), Fifo::new()))
        .err()
        .expect("name clash")
        .to_string();
    assert!(e.contains("fifo_w8_d4") && e.contains("two different blocks"), "{e}");
}
