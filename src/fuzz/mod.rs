//! Fuzz driver (stable toolchain, no libFuzzer): structured mutation of the
//! project's own inputs (the kernels in `testbenches/kernels`, their
//! program files, the presets, TestFloat vector lines) plus random bytes,
//! run through every tool that reads user input. See `docs/fuzz.md`.
//!
//! * [`targets`]: the [`Target`] trait and the targets (assembler,
//!   program loader + disassembler, config loader, TestFloat parser,
//!   `smrtl run` on the golden model, `smrtl run --rtl` on the RTL SM in
//!   [`rtl`]). A new tool plugs in by implementing
//!   `Target` and adding it to [`all_targets`].
//! * [`mutate`]: the text and binary mutators.
//!
//! Case `i` of a run with seed `s` is target `i % T` fed the input its
//! generator makes from a `SmallRng` seeded with `(s, i)`: any case can be
//! regenerated from its number alone, which is what lets the supervisor
//! write a reproducer for a case whose worker process died.
//!
//! Two ways to run:
//! * [`run_in_process`]: every case under `catch_unwind`; a case slower than
//!   the timeout counts as a hang once it returns. Used by `cargo test`.
//! * [`supervise`]: `smrtl fuzz` spawns a worker process (`smrtl fuzz
//!   --worker`) that prints `S <case>` before each case and `F <case> <kind>
//!   <message>` for a finding; the supervisor kills the worker when a case
//!   passes the timeout (hang) and notices when it dies (abort: allocation
//!   failure, stack overflow, a signal), records the case, and restarts the
//!   worker after it.

pub mod mutate;
pub mod rtl;
pub mod targets;

use std::cell::RefCell;
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

pub use targets::{all_targets, Corpus, Failure, Target};

/// What went wrong in a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Panic,
    Abort,
    Hang,
    /// A round-trip property failed (disassembly, config printing).
    RoundTrip,
    /// An error message that names no place (`rtl::names_place`).
    NoPlace,
    /// A valid program failed on the RTL SM (divergence from the golden
    /// model, an SM error, or no end within the cycle budget).
    Lockstep,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Panic,
        Kind::Abort,
        Kind::Hang,
        Kind::RoundTrip,
        Kind::NoPlace,
        Kind::Lockstep,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Kind::Panic => "panic",
            Kind::Abort => "abort",
            Kind::Hang => "hang",
            Kind::RoundTrip => "roundtrip",
            Kind::NoPlace => "noplace",
            Kind::Lockstep => "lockstep",
        }
    }
    fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// One finding: the case, its target, what happened, and the reproducer.
#[derive(Debug, Clone)]
pub struct Finding {
    pub case: u64,
    pub target: &'static str,
    pub kind: Kind,
    pub message: String,
    /// Reproducer file (when an output folder was given).
    pub file: Option<PathBuf>,
}

/// Cases tried and findings, per target.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// (target, cases tried) in target order.
    pub tried: Vec<(&'static str, u64)>,
    pub findings: Vec<Finding>,
    pub elapsed: Duration,
    pub seed: u64,
}

impl Report {
    fn new(targets: &[Box<dyn Target>], seed: u64) -> Report {
        Report {
            tried: targets.iter().map(|t| (t.name(), 0)).collect(),
            seed,
            ..Report::default()
        }
    }
    /// Findings of one kind.
    pub fn count(&self, k: Kind) -> usize {
        self.findings.iter().filter(|f| f.kind == k).count()
    }
    /// Total cases tried.
    pub fn total(&self) -> u64 {
        self.tried.iter().map(|t| t.1).sum()
    }
    /// `target cases, ...` on one line (progress display).
    pub fn tried_line(&self) -> String {
        self.tried
            .iter()
            .map(|(n, c)| format!("{n} {c}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "fuzz seed {}: {} cases in {:.1} s",
            self.seed,
            self.total(),
            self.elapsed.as_secs_f64()
        )?;
        writeln!(f, "{:<10} {:>12}", "target", "cases")?;
        for (n, c) in &self.tried {
            writeln!(f, "{n:<10} {c:>12}")?;
        }
        let counts: Vec<String> = Kind::ALL
            .iter()
            .map(|k| format!("{} {}", self.count(*k), k.name()))
            .collect();
        writeln!(f, "findings: {}", counts.join(", "))?;
        for x in &self.findings {
            let first = x.message.lines().next().unwrap_or("");
            write!(f, "  case {} [{}] {}: {first}", x.case, x.target, x.kind.name())?;
            if let Some(p) = &x.file {
                write!(f, " (reproducer {})", p.display())?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Target index and input of case `case` (deterministic).
pub fn case_input(targets: &[Box<dyn Target>], corpus: &Corpus, seed: u64, case: u64) -> (usize, Vec<u8>) {
    let t = (case % targets.len() as u64) as usize;
    // SplitMix-style mixing so that neighbouring cases get unrelated streams.
    let mut z = seed ^ case.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    let mut rng = SmallRng::seed_from_u64(z ^ (z >> 31));
    (t, targets[t].generate(&mut rng, corpus))
}

thread_local! {
    static PANIC_MSG: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Install a panic hook that records the message (with its location) for
/// [`execute_case`] instead of printing it. Idempotent.
fn quiet_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let mut captured = false;
            PANIC_MSG.with(|m| {
                if let Ok(mut m) = m.try_borrow_mut() {
                    if m.is_none() {
                        *m = Some(info.to_string());
                        captured = true;
                    }
                }
            });
            if !captured {
                prev(info);
            }
        }));
    });
}

/// Run one input through one target; a panic or a failed property is a
/// finding. Only panics in fuzzed code are silenced: the hook records while
/// a case is running.
pub fn execute_case(target: &dyn Target, input: &[u8], corpus: &Corpus) -> Option<(Kind, String)> {
    quiet_panics();
    PANIC_MSG.with(|m| *m.borrow_mut() = None);
    let r = catch_unwind(AssertUnwindSafe(|| target.execute(input, corpus)));
    let msg = PANIC_MSG.with(|m| m.borrow_mut().take());
    match r {
        Ok(Ok(())) => None,
        Ok(Err(f)) => Some((f.kind, f.msg)),
        Err(_) => Some((Kind::Panic, msg.unwrap_or_else(|| "panic".into()))),
    }
}

/// Write a reproducer (`<target>-<case>.<ext>` and a `.txt` with the
/// finding) into `dir`.
pub fn write_reproducer(dir: &Path, target: &dyn Target, case: u64, input: &[u8], kind: Kind, msg: &str) -> PathBuf {
    let _ = std::fs::create_dir_all(dir);
    let file = dir.join(format!("{}-{case}.{}", target.name(), target.ext()));
    let _ = std::fs::write(&file, input);
    let _ = std::fs::write(
        file.with_extension(format!("{}.txt", target.ext())),
        format!("{} in target {} (case {case}):\n{msg}\n", kind.name(), target.name()),
    );
    file
}

/// Which targets to run: those named (error names the unknown one), or
/// with no names every target of the default run (all but `rtl`).
pub fn select_targets(names: &[String]) -> Result<Vec<Box<dyn Target>>, String> {
    let all = all_targets();
    if names.is_empty() {
        return Ok(all.into_iter().filter(|t| t.in_default_run()).collect());
    }
    let known: Vec<&str> = all.iter().map(|t| t.name()).collect();
    for n in names {
        if !known.contains(&n.as_str()) {
            return Err(format!("unknown fuzz target `{n}` (known: {})", known.join(", ")));
        }
    }
    Ok(all
        .into_iter()
        .filter(|t| names.iter().any(|n| n == t.name()))
        .collect())
}

/// Run cases `0..cases` in this process. A case that takes longer than
/// `timeout` is reported as a hang after it returns (an in-process run
/// cannot stop it; `smrtl fuzz` can).
pub fn run_in_process(
    targets: &[Box<dyn Target>],
    seed: u64,
    cases: u64,
    timeout: Duration,
    out: Option<&Path>,
) -> Report {
    let corpus = Corpus::new();
    let mut rep = Report::new(targets, seed);
    let start = Instant::now();
    for case in 0..cases {
        let (t, input) = case_input(targets, &corpus, seed, case);
        let t0 = Instant::now();
        let mut found = execute_case(targets[t].as_ref(), &input, &corpus);
        if found.is_none() && t0.elapsed() > timeout {
            found = Some((Kind::Hang, format!("took {:.1} s", t0.elapsed().as_secs_f64())));
        }
        rep.tried[t].1 += 1;
        if let Some((kind, message)) = found {
            let file = out.map(|d| write_reproducer(d, targets[t].as_ref(), case, &input, kind, &message));
            rep.findings.push(Finding {
                case,
                target: targets[t].name(),
                kind,
                message,
                file,
            });
        }
    }
    rep.elapsed = start.elapsed();
    rep
}

/// The worker loop of `smrtl fuzz --worker`: cases `start..end`, one
/// protocol line per event on `out` (see the module doc).
pub fn worker<W: Write>(
    targets: &[Box<dyn Target>],
    seed: u64,
    start: u64,
    end: u64,
    out: &mut W,
) -> std::io::Result<()> {
    let corpus = Corpus::new();
    for case in start..end {
        let (t, input) = case_input(targets, &corpus, seed, case);
        writeln!(out, "S {case}")?;
        out.flush()?;
        if let Some((kind, msg)) = execute_case(targets[t].as_ref(), &input, &corpus) {
            // One line: the message with newlines escaped.
            writeln!(
                out,
                "F {case} {} {}",
                kind.name(),
                msg.replace('\\', "\\\\").replace('\n', "\\n")
            )?;
        }
    }
    writeln!(out, "E")?;
    out.flush()
}

/// Options of a supervised run.
pub struct Supervise<'a> {
    /// The executable to spawn as worker (the `smrtl` binary).
    pub exe: PathBuf,
    /// Target names passed on to the worker (empty: all).
    pub target_names: Vec<String>,
    pub seed: u64,
    /// Stop after this many cases...
    pub cases: u64,
    /// ...or after this long, whichever comes first.
    pub duration: Duration,
    /// Per-case timeout (a case over it is a hang).
    pub timeout: Duration,
    /// Folder for reproducers.
    pub out: PathBuf,
    /// Called after every case with the report so far (progress display).
    pub progress: &'a mut dyn FnMut(&Report),
}

enum Msg {
    Line(String),
    Eof,
}

/// Run cases in worker processes, catching panics, aborts and hangs.
pub fn supervise(targets: &[Box<dyn Target>], opts: Supervise) -> std::io::Result<Report> {
    let corpus = Corpus::new();
    let mut rep = Report::new(targets, opts.seed);
    let start = Instant::now();
    let mut next = 0u64;
    let record = |rep: &mut Report, case: u64, kind: Kind, message: String| {
        let (t, input) = case_input(targets, &corpus, opts.seed, case);
        let file = write_reproducer(&opts.out, targets[t].as_ref(), case, &input, kind, &message);
        rep.findings.push(Finding {
            case,
            target: targets[t].name(),
            kind,
            message,
            file: Some(file),
        });
    };
    'outer: while next < opts.cases && start.elapsed() < opts.duration {
        let mut cmd = Command::new(&opts.exe);
        cmd.args(["fuzz", "--worker", "--seed", &opts.seed.to_string()]).args([
            "--start",
            &next.to_string(),
            "--cases",
            &opts.cases.to_string(),
        ]);
        if !opts.target_names.is_empty() {
            cmd.args(["--targets", &opts.target_names.join(",")]);
        }
        let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::null()).spawn()?;
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(Msg::Line(l)).is_err() {
                            return;
                        }
                    }
                    Err(_) => break,
                }
            }
            let _ = tx.send(Msg::Eof);
        });
        let mut current: Option<u64> = None;
        let mut finished = false;
        loop {
            if start.elapsed() >= opts.duration {
                break;
            }
            match rx.recv_timeout(opts.timeout) {
                Ok(Msg::Line(l)) => {
                    let mut w = l.splitn(4, ' ');
                    match (w.next(), w.next().and_then(|c| c.parse::<u64>().ok())) {
                        (Some("S"), Some(c)) => {
                            current = Some(c);
                            next = c + 1;
                            rep.tried[(c % targets.len() as u64) as usize].1 += 1;
                            (opts.progress)(&rep);
                        }
                        (Some("F"), Some(c)) => {
                            let kind = w.next().and_then(Kind::parse).unwrap_or(Kind::Panic);
                            let msg = w.next().unwrap_or("").replace("\\n", "\n").replace("\\\\", "\\");
                            record(&mut rep, c, kind, msg);
                        }
                        (Some("E"), _) => {
                            finished = true;
                        }
                        _ => {}
                    }
                }
                Ok(Msg::Eof) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = child.wait()?;
                    let _ = reader.join();
                    if !finished {
                        if let Some(c) = current {
                            record(&mut rep, c, Kind::Abort, format!("worker died: {status}"));
                        } else {
                            rep.elapsed = start.elapsed();
                            return Err(std::io::Error::other(format!("fuzz worker failed to start: {status}")));
                        }
                    }
                    continue 'outer;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(c) = current {
                        record(
                            &mut rep,
                            c,
                            Kind::Hang,
                            format!("no progress for {:.1} s", opts.timeout.as_secs_f64()),
                        );
                    }
                    break;
                }
            }
        }
        // Out of time or a hang: stop this worker (our own child, by handle).
        let _ = child.kill();
        let _ = child.wait();
        let _ = reader.join();
        if current.is_none() {
            break;
        }
    }
    rep.elapsed = start.elapsed();
    Ok(rep)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Boom;
    impl Target for Boom {
        fn name(&self) -> &'static str {
            "boom"
        }
        fn ext(&self) -> &'static str {
            "txt"
        }
        fn generate(&self, _rng: &mut SmallRng, _c: &Corpus) -> Vec<u8> {
            b"x".to_vec()
        }
        fn execute(&self, input: &[u8], _c: &Corpus) -> Result<(), Failure> {
            let v: Vec<u8> = Vec::new();
            // Index out of bounds: a panic the driver must catch and report.
            let _ = v[input.len()];
            Ok(())
        }
    }

    #[test]
    fn driver_catches_a_panic_and_writes_a_reproducer() {
        let dir = tempfile::tempdir().unwrap();
        let targets: Vec<Box<dyn Target>> = vec![Box::new(Boom)];
        let rep = run_in_process(&targets, 1, 3, Duration::from_secs(5), Some(dir.path()));
        assert_eq!(rep.count(Kind::Panic), 3, "{rep}");
        assert!(rep.findings[0].message.contains("index out of bounds"), "{rep}");
        let f = rep.findings[0].file.clone().unwrap();
        assert_eq!(std::fs::read(f).unwrap(), b"x");
    }

    #[test]
    fn cases_are_deterministic() {
        let c = Corpus::new();
        let t = all_targets();
        for case in 0..20 {
            assert_eq!(case_input(&t, &c, 7, case), case_input(&t, &c, 7, case));
        }
        assert_ne!(case_input(&t, &c, 7, 0).1, case_input(&t, &c, 8, 0).1);
    }
}
