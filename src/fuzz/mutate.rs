//! Structured mutators: text (line, token, number and byte edits driven by
//! a dictionary of tokens seen in the corpus) and binary (bit flips,
//! interesting little-endian words, chunk insert/delete/splice).

use rand::rngs::SmallRng;
use rand::Rng;

/// Numbers that sit on the edges parsers and size checks care about.
pub const INTERESTING_NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "8",
    "31",
    "32",
    "33",
    "127",
    "128",
    "255",
    "256",
    "1000",
    "4096",
    "65535",
    "65536",
    "1000000",
    "134217728",
    "2147483647",
    "2147483648",
    "-2147483648",
    "-2147483649",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "0x0",
    "0x7fffffff",
    "0x80000000",
    "0xffffffff",
    "0x100000000",
    "1.5",
    "-0.0",
    "1e39",
    "1e-50",
    "3.4028235e38",
    "1.4e-45",
    "inf",
    "-inf",
    "nan",
    "3f",
    "",
];

/// 32-bit words that sit on the edges of counts, sizes and fields.
pub const INTERESTING_WORDS: &[u32] = &[
    0,
    1,
    2,
    7,
    8,
    31,
    32,
    64,
    127,
    128,
    129,
    255,
    256,
    4095,
    4096,
    65535,
    65536,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    0xffff_ffff,
];

/// Split text into tokens: runs of identifier characters (letters, digits,
/// `_ . $ -`) and single other characters.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-') {
            cur.push(c);
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Byte ranges of the identifier-like tokens of `text`.
fn token_spans(text: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, &b) in text.iter().enumerate() {
        let word = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'$' | b'-');
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                spans.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        spans.push((s, text.len()));
    }
    spans
}

fn line_spans(text: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut s = 0;
    for (i, &b) in text.iter().enumerate() {
        if b == b'\n' {
            spans.push((s, i + 1));
            s = i + 1;
        }
    }
    if s < text.len() {
        spans.push((s, text.len()));
    }
    spans
}

fn pick<'a, T>(rng: &mut SmallRng, v: &'a [T]) -> Option<&'a T> {
    if v.is_empty() {
        None
    } else {
        Some(&v[rng.gen_range(0..v.len())])
    }
}

/// Apply 1..=4 structured edits to text (kept as bytes: some edits insert
/// bytes that are not UTF-8). `dict` holds tokens to insert, `others`
/// whole texts to take lines from.
pub fn mutate_text(rng: &mut SmallRng, text: &[u8], dict: &[String], others: &[&[u8]]) -> Vec<u8> {
    let mut t = text.to_vec();
    let edits = rng.gen_range(1..=4);
    for _ in 0..edits {
        let lines = line_spans(&t);
        let toks = token_spans(&t);
        match rng.gen_range(0..12) {
            // Delete a line.
            0 => {
                if let Some(&(s, e)) = pick(rng, &lines) {
                    t.drain(s..e);
                }
            }
            // Duplicate a line.
            1 => {
                if let Some(&(s, e)) = pick(rng, &lines) {
                    let l = t[s..e].to_vec();
                    t.splice(s..s, l);
                }
            }
            // Swap two lines.
            2 => {
                if lines.len() >= 2 {
                    let a = rng.gen_range(0..lines.len());
                    let b = rng.gen_range(0..lines.len());
                    let (a, b) = (a.min(b), a.max(b));
                    if a != b {
                        let la = t[lines[a].0..lines[a].1].to_vec();
                        let lb = t[lines[b].0..lines[b].1].to_vec();
                        t.splice(lines[b].0..lines[b].1, la);
                        t.splice(lines[a].0..lines[a].1, lb);
                    }
                }
            }
            // Insert a line of another text.
            3 => {
                if let Some(o) = pick(rng, others) {
                    let ol = line_spans(o);
                    if let Some(&(s, e)) = pick(rng, &ol) {
                        let at = pick(rng, &lines).map_or(0, |l| l.0);
                        t.splice(at..at, o[s..e].to_vec());
                    }
                }
            }
            // Replace a token with an interesting number.
            4 | 5 => {
                if let Some(&(s, e)) = pick(rng, &toks) {
                    let n = *pick(rng, INTERESTING_NUMBERS).unwrap_or(&"0");
                    t.splice(s..e, n.bytes());
                }
            }
            // Replace a token with a dictionary token.
            6 | 7 => {
                if let (Some(&(s, e)), Some(d)) = (pick(rng, &toks), pick(rng, dict)) {
                    t.splice(s..e, d.bytes());
                }
            }
            // Insert a dictionary token with a separator.
            8 => {
                if let Some(d) = pick(rng, dict) {
                    let at = rng.gen_range(0..=t.len());
                    let sep = *pick(rng, &[" ", ", ", "", "\n", "."]).unwrap_or(&" ");
                    let mut ins = d.clone().into_bytes();
                    ins.extend_from_slice(sep.as_bytes());
                    t.splice(at..at, ins);
                }
            }
            // Delete a byte range.
            9 => {
                if !t.is_empty() {
                    let s = rng.gen_range(0..t.len());
                    let e = (s + rng.gen_range(1..16)).min(t.len());
                    t.drain(s..e);
                }
            }
            // Insert a random byte: punctuation, control, or not UTF-8.
            10 => {
                let at = rng.gen_range(0..=t.len());
                let b = *pick(
                    rng,
                    &[
                        b'[', b']', b',', b'@', b'!', b'+', b'-', b':', b';', b'=', b'"', b'\'', b'{', b'}', b'\t',
                        b'\r', b'\n', 0, 0x7f, 0xff, 0xc3, 0x80, b'#', b'\\',
                    ],
                )
                .unwrap_or(&b' ');
                t.insert(at, b);
            }
            // Truncate.
            _ => {
                if !t.is_empty() {
                    let n = rng.gen_range(0..t.len());
                    t.truncate(n);
                }
            }
        }
    }
    t
}

/// Apply 1..=4 edits to binary data; `others` are splice sources.
pub fn mutate_bytes(rng: &mut SmallRng, data: &[u8], others: &[&[u8]]) -> Vec<u8> {
    let mut b = data.to_vec();
    let edits = rng.gen_range(1..=4);
    for _ in 0..edits {
        match rng.gen_range(0..8) {
            0 | 1 => {
                if !b.is_empty() {
                    let i = rng.gen_range(0..b.len());
                    b[i] ^= 1 << rng.gen_range(0..8);
                }
            }
            2 | 3 => {
                if b.len() >= 4 {
                    // Aligned (the file's fields are u32/u64 words) most of the time.
                    let mut i = rng.gen_range(0..=b.len() - 4);
                    if rng.gen_bool(0.8) {
                        i &= !3;
                    }
                    let w = *pick(rng, INTERESTING_WORDS).unwrap_or(&0);
                    let w = if rng.gen_bool(0.2) {
                        w.wrapping_add(rng.gen_range(0..4))
                    } else {
                        w
                    };
                    b[i..i + 4].copy_from_slice(&w.to_le_bytes());
                }
            }
            4 => {
                if !b.is_empty() {
                    let i = rng.gen_range(0..b.len());
                    b[i] = rng.gen();
                }
            }
            5 => {
                if !b.is_empty() {
                    let s = rng.gen_range(0..b.len());
                    let e = (s + rng.gen_range(1..32)).min(b.len());
                    b.drain(s..e);
                }
            }
            6 => {
                let at = rng.gen_range(0..=b.len());
                let n = rng.gen_range(1..16);
                let ins: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
                b.splice(at..at, ins);
            }
            _ => {
                if let Some(o) = pick(rng, others) {
                    if !o.is_empty() {
                        let s = rng.gen_range(0..o.len());
                        let e = (s + rng.gen_range(1..64)).min(o.len());
                        let at = rng.gen_range(0..=b.len());
                        let end = (at + (e - s)).min(b.len());
                        if rng.gen_bool(0.5) {
                            b.splice(at..end, o[s..e].iter().copied());
                        } else {
                            b.splice(at..at, o[s..e].iter().copied());
                        }
                    }
                }
            }
        }
    }
    b
}

/// Random bytes: printable-heavy, sometimes fully random, up to `max` long.
pub fn random_bytes(rng: &mut SmallRng, max: usize) -> Vec<u8> {
    let n = rng.gen_range(0..=max);
    let printable = rng.gen_bool(0.7);
    (0..n)
        .map(|_| {
            if printable {
                rng.gen_range(0x20u8..0x7f)
            } else {
                rng.gen()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn tokens_split_identifiers_and_punctuation() {
        assert_eq!(
            tokens("IADD R1, R2, 0x10 ; c"),
            ["IADD", "R1", ",", "R2", ",", "0x10", ";", "c"]
        );
    }

    #[test]
    fn mutations_change_input_and_are_seeded() {
        let text = b"line one\nline two 12\nthree\n";
        let dict = vec!["X".to_string()];
        let a = mutate_text(&mut SmallRng::seed_from_u64(3), text, &dict, &[]);
        let b = mutate_text(&mut SmallRng::seed_from_u64(3), text, &dict, &[]);
        assert_eq!(a, b);
        let changed = (0..50).any(|s| mutate_text(&mut SmallRng::seed_from_u64(s), text, &dict, &[]) != text);
        assert!(changed);
        let bin = [0u8; 40];
        assert!((0..50).any(|s| mutate_bytes(&mut SmallRng::seed_from_u64(s), &bin, &[]) != bin));
    }
}
