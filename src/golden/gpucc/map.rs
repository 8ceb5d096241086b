//! Automatic placement and routing of GPU-CC configurations
//! (`smrtl gpucc-map`, docs/gpucc.md section 13): a `.gpucc` block whose
//! nodes carry symbolic names (`ax  LDG [i*4 + R1]`) instead of `core3` /
//! `lsu1`, and no output lanes, becomes a block the configuration
//! assembler takes: every node placed on a core or an LSU of the line and
//! every value routed on one of the lanes A-E.
//!
//! The problem (docs/gpucc.md section 2): nodes sit on 48 positions, an LSU
//! at every third (`3j`), cores between; a value flows only downstream; a
//! producer drives one lane from its position to its farthest reader, and
//! no other node may drive that lane in between. With `p(n)` the position
//! of node `n` and `f(n)` that of its farthest reader, a producer occupies
//! the half-open interval `[p(n), f(n))` of its lane, so a placement is
//! routable on `L` lanes exactly when no position lies in more than `L`
//! intervals (interval graphs are perfect; the greedy colouring by start
//! position reaches that bound). The number of intervals open after a node
//! is placed depends only on the set of nodes placed so far (a producer is
//! open while one of its readers is not placed), so the search is over
//! topological orders: depth first, each node put at the first free
//! position of its kind after the previous one (which is optimal for a
//! given order), pruned when more than `L` values are open or the line
//! ends, with every failed state (placed set, next position) remembered.
//! It is complete: it returns a mapping whenever one exists, and when it
//! finishes without one none exists. Latency does not depend on distance
//! (a segment is a wire), so every legal mapping runs alike: the first one
//! found is returned. A time limit stops the search (an error saying so).
//!
//! Lines keep their numbers (one output line per input line), so the
//! configuration assembler's errors on the result name the input's lines.

use super::{node_at, node_name, CORES, LSUS, NODES};
use std::collections::HashSet;
use std::time::{Duration, Instant};

/// Options of the mapper.
#[derive(Debug, Clone)]
pub struct MapOptions {
    /// Lanes available (5: A-E).
    pub lanes: usize,
    /// Stop the search after this long.
    pub time_limit: Duration,
}

impl Default for MapOptions {
    fn default() -> Self {
        MapOptions {
            lanes: super::LANES as usize,
            time_limit: Duration::from_secs(10),
        }
    }
}

/// What the mapper did with one `.gpucc` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockMap {
    /// Line of the `.gpucc` directive.
    pub line: u32,
    /// Symbolic nodes mapped (0: the block was already placed and is kept).
    pub cores: usize,
    pub lsus: usize,
    /// Lanes the routing uses.
    pub lanes: usize,
    /// Search states visited.
    pub states: u64,
    pub micros: u64,
}

/// An error of the mapper: the line and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapError {
    pub line: u32,
    pub msg: String,
}

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.msg)
    }
}

/// One node line of a block.
struct Line {
    line: u32,
    label: String,
    mnemonic: String,
    /// The operands, without a `-> lane`.
    rest: String,
    comment: String,
    lsu: bool,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// Identifiers of `s` with their byte ranges, skipping number literals
/// (`0x1f`, `1.5e3`) and FIFO suffixes (`.F2`).
fn idents(s: &str) -> Vec<(usize, usize)> {
    let b = s.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_digit() {
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'.' || b[i] == b'_') {
                i += 1;
            }
        } else if c == '.' {
            // `.F2` after a node.
            i += 1;
            while i < b.len() && (b[i] as char).is_ascii_alphanumeric() {
                i += 1;
            }
        } else if is_ident_start(c) {
            let s0 = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            v.push((s0, i));
        } else {
            i += 1;
        }
    }
    v
}

/// Names a symbolic node may not take: registers, the counter's `x`/`y`,
/// `grid`, and the placed nodes' own names.
fn reserved(w: &str) -> Option<&'static str> {
    let l = w.to_ascii_lowercase();
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if l == "x" || l == "y" || l == "grid" {
        Some("the counter's coordinates and `grid` are keywords")
    } else if l == "rz" || l.strip_prefix('r').is_some_and(digits) {
        Some("it names a register")
    } else if l.strip_prefix("core").is_some_and(digits) || l.strip_prefix("lsu").is_some_and(digits) {
        Some("it names a placed node (a block is either placed by hand or all symbolic)")
    } else {
        None
    }
}

/// Map every `.gpucc` block of kernel source `src` whose nodes are
/// symbolic; blocks placed by hand are kept. Returns the new source and a
/// record per block, or every error (the mapped source is then also
/// checked by the assembler, whose errors come back at the same lines).
pub fn map_source(src: &str, opts: &MapOptions) -> Result<(String, Vec<BlockMap>), Vec<MapError>> {
    let lines: Vec<&str> = src.lines().collect();
    let mut out: Vec<String> = lines.iter().map(|s| s.to_string()).collect();
    let mut maps = Vec::new();
    let mut errs = Vec::new();
    let mut k = 0;
    while k < lines.len() {
        let first = |t: &str| t.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
        if first(lines[k]) != ".gpucc" {
            k += 1;
            continue;
        }
        let start = k;
        let mut end = k + 1;
        while end < lines.len() && first(lines[end]) != ".endgpucc" {
            end += 1;
        }
        let body: Vec<(u32, &str)> = (start + 1..end.min(lines.len()))
            .map(|j| (j as u32 + 1, lines[j]))
            .collect();
        match map_block(&body, start as u32 + 1, opts) {
            Ok((new, m)) => {
                for (ln, text) in new {
                    out[ln as usize - 1] = text;
                }
                maps.push(m);
            }
            Err(mut e) => errs.append(&mut e),
        }
        k = end + 1;
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let mut text = out.join("\n");
    if src.ends_with('\n') {
        text.push('\n');
    }
    // The configuration assembler checks what the mapper does not
    // (operands, FIFO counts, registers, instructions the lanes lack).
    if let Err(es) = crate::golden::asm::assemble_all(&text, "mapped") {
        return Err(es
            .iter()
            .map(|e| MapError {
                line: e.line,
                msg: format!("after mapping: {}", e.msg),
            })
            .collect());
    }
    Ok((text, maps))
}

/// Parse, place and route one block (`body`: its lines with numbers):
/// the new node lines with their numbers (none when the block is placed
/// by hand) and what was done.
#[allow(clippy::type_complexity)]
fn map_block(
    body: &[(u32, &str)],
    at: u32,
    opts: &MapOptions,
) -> Result<(Vec<(u32, String)>, BlockMap), Vec<MapError>> {
    let t0 = Instant::now();
    let mut nodes: Vec<Line> = Vec::new();
    let mut errs = Vec::new();
    let mut placed_by_hand = 0;
    for &(ln, text) in body {
        let (code, comment) = match text.find(';') {
            Some(j) => (&text[..j], text[j..].to_string()),
            None => (text, String::new()),
        };
        let code = code.trim();
        let mut w = code.splitn(2, char::is_whitespace);
        let label = w.next().unwrap_or("");
        if label.is_empty() || label.eq_ignore_ascii_case("grid") {
            continue;
        }
        if super::text::node_word(label).is_some() {
            placed_by_hand += 1;
            continue;
        }
        let tail = w.next().unwrap_or("").trim();
        let mut w2 = tail.splitn(2, char::is_whitespace);
        let mnemonic = w2.next().unwrap_or("").to_string();
        let rest = w2.next().unwrap_or("").trim();
        let rest = rest.split("->").next().unwrap_or("").trim().to_string();
        if !label.chars().next().is_some_and(is_ident_start)
            || !label.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            errs.push(MapError {
                line: ln,
                msg: format!("'{label}' is not a node name (a letter, then letters, digits or _)"),
            });
            continue;
        }
        if let Some(why) = reserved(label) {
            errs.push(MapError {
                line: ln,
                msg: format!("'{label}' cannot name a symbolic node: {why}"),
            });
            continue;
        }
        if mnemonic.is_empty() {
            errs.push(MapError {
                line: ln,
                msg: format!("node '{label}' has no instruction"),
            });
            continue;
        }
        if let Some(n) = nodes.iter().find(|n| n.label.eq_ignore_ascii_case(label)) {
            errs.push(MapError {
                line: ln,
                msg: format!("node '{label}' is defined twice (first at line {})", n.line),
            });
            continue;
        }
        let m = mnemonic.to_ascii_uppercase();
        let lsu = m.starts_with("LDG") || m.starts_with("STG");
        nodes.push(Line {
            line: ln,
            label: label.to_string(),
            mnemonic,
            rest,
            comment,
            lsu,
        });
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    if nodes.is_empty() {
        return Ok((
            Vec::new(),
            BlockMap {
                line: at,
                cores: 0,
                lsus: 0,
                lanes: 0,
                states: 0,
                micros: 0,
            },
        ));
    }
    if placed_by_hand > 0 {
        return Err(vec![MapError {
            line: at,
            msg: format!(
                "the block mixes {placed_by_hand} placed node(s) (coreN / lsuN) with symbolic ones: name every node symbolically or place every node by hand"
            ),
        }]);
    }
    let n = nodes.len();
    let (cores, lsus) = (
        nodes.iter().filter(|l| !l.lsu).count(),
        nodes.iter().filter(|l| l.lsu).count(),
    );
    if cores > CORES || lsus > LSUS {
        let what = if cores > CORES {
            format!("{cores} core operations for {CORES} cores")
        } else {
            format!("{lsus} loads and stores for {LSUS} LSUs")
        };
        return Err(vec![MapError {
            line: at,
            msg: format!("too many operations: {what}"),
        }]);
    }
    // Edges: who reads whom.
    let find = |w: &str| nodes.iter().position(|l| l.label.eq_ignore_ascii_case(w));
    let mut preds: Vec<u64> = vec![0; n];
    let mut succs: Vec<u64> = vec![0; n];
    for (c, l) in nodes.iter().enumerate() {
        for (a, b) in idents(&l.rest) {
            if let Some(p) = find(&l.rest[a..b]) {
                if p == c {
                    errs.push(MapError {
                        line: l.line,
                        msg: format!(
                            "node '{}' reads its own value: the network is acyclic (loops are counters)",
                            l.label
                        ),
                    });
                }
                if nodes[p].mnemonic.to_ascii_uppercase().starts_with("STG") {
                    errs.push(MapError {
                        line: l.line,
                        msg: format!(
                            "node '{}' reads the store '{}', which drives no value",
                            l.label, nodes[p].label
                        ),
                    });
                }
                preds[c] |= 1 << p;
                succs[p] |= 1 << c;
            }
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    if let Some(cyc) = find_cycle(&preds) {
        let names: Vec<String> = cyc
            .iter()
            .map(|&k| format!("'{}' (line {})", nodes[k].label, nodes[k].line))
            .collect();
        return Err(vec![MapError {
            line: nodes[cyc[0]].line,
            msg: format!(
                "the values form a loop ({}): values flow only downstream, so the network is acyclic",
                names.join(" -> ")
            ),
        }]);
    }
    let lsu: Vec<bool> = nodes.iter().map(|l| l.lsu).collect();
    let mut s = Search {
        preds: &preds,
        succs: &succs,
        lsu: &lsu,
        lanes: opts.lanes,
        failed: HashSet::new(),
        order: Vec::new(),
        states: 0,
        start: t0,
        limit: opts.time_limit,
        timed_out: false,
        best: (0, 0),
    };
    if !s.dfs(0, 0) {
        if s.timed_out {
            return Err(vec![MapError {
                line: at,
                msg: format!(
                    "the search stopped at its time limit ({} ms) after {} states without a mapping",
                    opts.time_limit.as_millis(),
                    s.states
                ),
            }]);
        }
        let (k, mask) = s.best;
        let live: Vec<String> = (0..n)
            .filter(|&p| mask >> p & 1 == 1 && succs[p] & !mask != 0)
            .map(|p| format!("'{}' (line {})", nodes[p].label, nodes[p].line))
            .collect();
        let msg = if live.len() >= opts.lanes {
            format!(
                "no placement routes on {} lanes: every order of the {n} nodes has more than {} values on the lanes at once (the best placed {k} nodes with {} live: {})",
                opts.lanes,
                opts.lanes,
                live.len(),
                live.join(", ")
            )
        } else {
            format!("no placement fits the line of {NODES} positions (the best placed {k} of {n} nodes)")
        };
        return Err(vec![MapError { line: at, msg }]);
    }
    // Positions, then lanes: intervals [p, farthest reader) by start.
    let mut pos = vec![0usize; n];
    let mut next = 0;
    for &k in &s.order {
        let p = first_slot(next, lsu[k]).expect("the search placed it");
        pos[k] = p;
        next = p + 1;
    }
    let mut lane = vec![None; n];
    let mut free_at = vec![0usize; opts.lanes];
    let mut used = 0;
    for &k in &s.order {
        if succs[k] == 0 {
            continue;
        }
        let far = (0..n)
            .filter(|&c| succs[k] >> c & 1 == 1)
            .map(|c| pos[c])
            .max()
            .unwrap_or(pos[k]);
        let l = (0..opts.lanes)
            .find(|&l| free_at[l] <= pos[k])
            .expect("at most `lanes` values open");
        free_at[l] = far;
        lane[k] = Some(l);
        used = used.max(l + 1);
    }
    let name = |k: usize| node_name(node_at(pos[k]));
    let mut out = Vec::new();
    for (k, l) in nodes.iter().enumerate() {
        let mut rest = String::new();
        let mut last = 0;
        for (a, b) in idents(&l.rest) {
            if let Some(p) = find(&l.rest[a..b]) {
                rest.push_str(&l.rest[last..a]);
                rest.push_str(&name(p));
                last = b;
            }
        }
        rest.push_str(&l.rest[last..]);
        let to = lane[k].map_or(String::new(), |x| format!(" -> {}", (b'A' + x as u8) as char));
        let mut text = format!("{:<7} {:<6} {rest}{to}", name(k), l.mnemonic);
        if !l.comment.is_empty() {
            text = format!("{text:<40} {}", l.comment);
        }
        out.push((l.line, text.trim_end().to_string()));
    }
    Ok((
        out,
        BlockMap {
            line: at,
            cores,
            lsus,
            lanes: used,
            states: s.states,
            micros: t0.elapsed().as_micros() as u64,
        },
    ))
}

/// The first position at or after `from` of an LSU (`3j`) or a core.
fn first_slot(from: usize, lsu: bool) -> Option<usize> {
    (from..NODES).find(|p| (p % 3 == 0) == lsu)
}

/// A loop among the nodes (`preds` as bit sets), if there is one.
fn find_cycle(preds: &[u64]) -> Option<Vec<usize>> {
    let n = preds.len();
    // 0 new, 1 on the stack, 2 done.
    let mut st = vec![0u8; n];
    let mut stack: Vec<usize> = Vec::new();
    fn go(v: usize, preds: &[u64], st: &mut [u8], stack: &mut Vec<usize>) -> Option<Vec<usize>> {
        st[v] = 1;
        stack.push(v);
        for p in (0..preds.len()).filter(|&p| preds[v] >> p & 1 == 1) {
            if st[p] == 1 {
                let k = stack.iter().position(|&x| x == p).unwrap_or(0);
                let mut c: Vec<usize> = stack[k..].to_vec();
                c.reverse();
                return Some(c);
            }
            if st[p] == 0 {
                if let Some(c) = go(p, preds, st, stack) {
                    return Some(c);
                }
            }
        }
        stack.pop();
        st[v] = 2;
        None
    }
    (0..n).find_map(|v| {
        if st[v] == 0 {
            go(v, preds, &mut st, &mut stack)
        } else {
            None
        }
    })
}

/// The depth-first search over topological orders.
struct Search<'a> {
    preds: &'a [u64],
    succs: &'a [u64],
    lsu: &'a [bool],
    lanes: usize,
    /// States (placed set, next position) known to lead nowhere.
    failed: HashSet<(u64, u8)>,
    order: Vec<usize>,
    states: u64,
    start: Instant,
    limit: Duration,
    timed_out: bool,
    /// The most nodes placed in one order, and that placed set.
    best: (usize, u64),
}

impl Search<'_> {
    /// Do the unplaced nodes fit the positions from `next` on (counting
    /// each kind, and those with readers before the last position)?
    fn room(&self, mask: u64, next: usize) -> bool {
        let slots = |lsu: bool, end: usize| (next..end).filter(|p| (p % 3 == 0) == lsu).count();
        let (mut l, mut c, mut l_read, mut c_read) = (0, 0, 0, 0);
        for k in (0..self.preds.len()).filter(|&k| mask >> k & 1 == 0) {
            let read = self.succs[k] != 0;
            if self.lsu[k] {
                l += 1;
                l_read += read as usize;
            } else {
                c += 1;
                c_read += read as usize;
            }
        }
        l <= slots(true, NODES)
            && c <= slots(false, NODES)
            && l_read <= slots(true, NODES - 1)
            && c_read <= slots(false, NODES - 1)
    }

    fn open(&self, mask: u64) -> usize {
        (0..self.preds.len())
            .filter(|&p| mask >> p & 1 == 1 && self.succs[p] & !mask != 0)
            .count()
    }

    fn dfs(&mut self, mask: u64, next: usize) -> bool {
        let n = self.preds.len();
        if self.order.len() == n {
            return true;
        }
        self.states += 1;
        if self.states.is_multiple_of(1024) && self.start.elapsed() > self.limit {
            self.timed_out = true;
        }
        if self.timed_out || self.failed.contains(&(mask, next as u8)) {
            return false;
        }
        // A bound: the nodes left must find free positions of their kind
        // from `next` on, and a node with a reader one before the line's end.
        if !self.room(mask, next) {
            self.failed.insert((mask, next as u8));
            return false;
        }
        if self.order.len() > self.best.0 {
            self.best = (self.order.len(), mask);
        }
        // Ready nodes; those that close the most values first.
        let mut ready: Vec<(usize, usize)> = (0..n)
            .filter(|&k| mask >> k & 1 == 0 && self.preds[k] & !mask == 0)
            .map(|k| {
                let m2 = mask | 1 << k;
                (self.open(m2), k)
            })
            .collect();
        ready.sort();
        for (open, k) in ready {
            if open > self.lanes {
                continue;
            }
            let Some(p) = first_slot(next, self.lsu[k]) else {
                continue;
            };
            self.order.push(k);
            if self.dfs(mask | 1 << k, p + 1) {
                return true;
            }
            self.order.pop();
            if self.timed_out {
                return false;
            }
        }
        self.failed.insert((mask, next as u8));
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(lanes: usize) -> MapOptions {
        MapOptions {
            lanes,
            ..MapOptions::default()
        }
    }

    /// The symbolic SAXPY of the testbenches (its `.gpucc` block: lines
    /// 21-28; i 23, vx 24, vy 25, r 26, st 27).
    const SAXPY: &str = include_str!("../../../testbenches/kernels/gpucc/map/saxpy.s");

    #[test]
    fn saxpy_maps_and_assembles() {
        let (text, maps) = map_source(SAXPY, &MapOptions::default()).unwrap();
        assert_eq!(maps.len(), 1);
        assert_eq!((maps[0].cores, maps[0].lsus), (2, 3));
        assert!(maps[0].lanes >= 1 && maps[0].lanes <= 5, "{maps:?}");
        // Same line count, nodes renamed, lanes given to every producer.
        assert_eq!(text.lines().count(), SAXPY.lines().count());
        assert!(!text.contains(" vx") && text.contains("-> "), "{text}");
        crate::golden::asm::assemble_all(&text, "t").unwrap();
    }

    #[test]
    fn errors_name_the_line_and_the_reason() {
        // i -> vx -> r -> i.
        let loopy = SAXPY.replace("i       IADD x, 0", "i       IADD r, 0");
        let e = map_source(&loopy, &opts(5)).unwrap_err();
        assert!(e[0].msg.contains("loop") && e[0].msg.contains("'i'"), "{e:?}");
        let dup = SAXPY.replace("vy      LDG", "vx      LDG");
        let e = map_source(&dup, &opts(5)).unwrap_err();
        assert!(
            e[0].line == 25 && e[0].msg.contains("defined twice (first at line 24)"),
            "{e:?}"
        );
        let reg = SAXPY.replace("vy      LDG", "R7      LDG");
        let e = map_source(&reg, &opts(5)).unwrap_err();
        assert!(e[0].msg.contains("names a register"), "{e:?}");
        let mixed = SAXPY.replace("st      STG", "lsu3    STG");
        let e = map_source(&mixed, &opts(5)).unwrap_err();
        assert!(e[0].line == 21 && e[0].msg.contains("mixes 1 placed"), "{e:?}");
        // Three values live at once need three lanes.
        let e = map_source(SAXPY, &opts(1)).unwrap_err();
        assert!(e[0].msg.contains("no placement routes on 1 lanes"), "{e:?}");
        let unknown = SAXPY.replace("FFMA R5, vx, vy", "FFMA R5, vx, vz");
        let e = map_source(&unknown, &opts(5)).unwrap_err();
        assert!(
            e.iter()
                .any(|e| e.line == 26 && e.msg.starts_with("after mapping") && e.msg.contains("vz")),
            "{e:?}"
        );
    }

    #[test]
    fn too_many_loads_is_refused() {
        let mut s = String::from(".kernel k\n.regs 4\n.gpucc\n grid 4, 1\ni IADD x, 0\n");
        for k in 0..17 {
            s.push_str(&format!("v{k} LDG [i*4 + 0]\n"));
        }
        s.push_str(".endgpucc\n EXIT\n");
        let e = map_source(&s, &opts(5)).unwrap_err();
        assert!(e[0].msg.contains("17 loads and stores for 16 LSUs"), "{e:?}");
    }

    /// Completeness: on random small graphs the search finds a mapping
    /// exactly when some topological order (brute force over all
    /// permutations) keeps at most `lanes` values open and fits the line.
    #[test]
    fn search_is_complete_on_small_graphs() {
        let mut rng = 0x1234_5678_9abc_def1u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let (mut found, mut none) = (0, 0);
        for _ in 0..300 {
            let n = 2 + (next() % 6) as usize;
            let mut preds = vec![0u64; n];
            let mut succs = vec![0u64; n];
            for c in 1..n {
                for p in 0..c {
                    if next() % 3 == 0 {
                        preds[c] |= 1 << p;
                        succs[p] |= 1 << c;
                    }
                }
            }
            let lsu: Vec<bool> = (0..n).map(|_| next() % 4 == 0).collect();
            let lanes = 1 + (next() % 3) as usize;
            let mut s = Search {
                preds: &preds,
                succs: &succs,
                lsu: &lsu,
                lanes,
                failed: HashSet::new(),
                order: Vec::new(),
                states: 0,
                start: Instant::now(),
                limit: Duration::from_secs(10),
                timed_out: false,
                best: (0, 0),
            };
            let got = s.dfs(0, 0);
            // Brute force: every permutation that is a topological order.
            let mut perm: Vec<usize> = (0..n).collect();
            let mut exists = false;
            permute(&mut perm, 0, &mut |o| {
                let mut mask = 0u64;
                let mut next = 0;
                for &k in o {
                    if preds[k] & !mask != 0 {
                        return;
                    }
                    mask |= 1 << k;
                    let open = (0..n).filter(|&p| mask >> p & 1 == 1 && succs[p] & !mask != 0).count();
                    if open > lanes {
                        return;
                    }
                    match first_slot(next, lsu[k]) {
                        Some(p) => next = p + 1,
                        None => return,
                    }
                }
                exists = true;
            });
            assert_eq!(got, exists, "preds {preds:?} lsu {lsu:?} lanes {lanes}");
            if got {
                found += 1;
            } else {
                none += 1;
            }
        }
        // Both outcomes occur, so the comparison means something.
        assert!(found > 50 && none > 10, "{found} mapped, {none} not");
    }

    fn permute(v: &mut Vec<usize>, k: usize, f: &mut dyn FnMut(&[usize])) {
        if k == v.len() {
            f(v);
            return;
        }
        for j in k..v.len() {
            v.swap(k, j);
            permute(v, k + 1, f);
            v.swap(k, j);
        }
    }
}
