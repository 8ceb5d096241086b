//! Helpers shared by integration tests (`mod common;`).
#![allow(dead_code)]

/// Every variable of a VCD header by its hierarchical name
/// (`top.u_child.reg_q`), with its identifier code.
pub fn vcd_names(h: &vcd::Header) -> Vec<(String, vcd::IdCode)> {
    fn walk(items: &[vcd::ScopeItem], prefix: &str, out: &mut Vec<(String, vcd::IdCode)>) {
        for it in items {
            match it {
                vcd::ScopeItem::Scope(s) => walk(&s.items, &format!("{prefix}{}.", s.identifier), out),
                vcd::ScopeItem::Var(v) => out.push((format!("{prefix}{}", v.reference), v.code)),
                _ => {}
            }
        }
    }
    let mut names = vec![];
    walk(&h.items, "", &mut names);
    names
}

/// Operand sets per op and mode of the long sweep (`SP_SWEEP_N`, default
/// 10,000,000).
pub fn sweep_n() -> u64 {
    std::env::var("SP_SWEEP_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000)
}

/// Run `jobs` on two threads, printing one line per job.
pub fn par(jobs: Vec<(String, Box<dyn Fn() -> Result<(), String> + Send + Sync>)>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    let fails = std::sync::Mutex::new(vec![]);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((name, f)) = jobs.get(i) else { break };
                let t = std::time::Instant::now();
                match f() {
                    Ok(()) => println!("{name}: 0 mismatches ({:.0} s)", t.elapsed().as_secs_f64()),
                    Err(e) => {
                        println!("{name}: MISMATCH {e}");
                        fails.lock().unwrap().push(e);
                    }
                }
            });
        }
    });
    let f = fails.into_inner().unwrap();
    assert!(f.is_empty(), "{} failing sweeps, first: {}", f.len(), f[0]);
}
