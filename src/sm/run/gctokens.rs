//! The token-level check of GPU-CC mode inside the SM: every token a node
//! of the network drives on its lane (`gc_tok_valid_o`, `gc_tok_o`: two
//! hot cycles per core cycle) against the golden dataflow model's tokens
//! of the same `GCRUN` (`Golden::keep_gpucc_tokens`), node by node in
//! order. A dataflow network of FIFOs gives every node the same sequence
//! of firings whatever the timing, so the k-th token of a node is the
//! golden model's k-th result of that node; when the mode ends every node
//! must have driven all of its golden tokens.
//!
//! The golden tokens are the results of `golden::gpucc::flow`, which
//! shares no logic with the RTL network (its arithmetic is
//! `golden::arith`).

use crate::golden::gpucc::node_name;

/// The golden tokens of one `GCRUN` and how far each node has come.
#[derive(Debug, Clone)]
pub struct GcTokens {
    want: Vec<Vec<u32>>,
    seen: Vec<usize>,
    checked: u64,
}

impl GcTokens {
    /// The golden tokens `want`, per node in firing order.
    pub fn new(want: Vec<Vec<u32>>) -> GcTokens {
        let seen = vec![0; want.len()];
        GcTokens { want, seen, checked: 0 }
    }

    /// Tokens compared so far.
    pub fn checked(&self) -> u64 {
        self.checked
    }

    /// Node `node` drove `value`: its next golden token, or an error that
    /// names the node, the token's index and both values.
    pub fn token(&mut self, node: usize, value: u32) -> Result<(), String> {
        let name = node_name(node);
        let Some(w) = self.want.get(node) else {
            return Err(format!(
                "GPU-CC: node {node} drove a token, but the network has no such node"
            ));
        };
        let k = self.seen[node];
        match w.get(k) {
            None => Err(format!(
                "GPU-CC token mismatch: {name} drove token {k} (0x{value:08x}), but the golden dataflow model's {name} drives only {} tokens",
                w.len()
            )),
            Some(&g) if g != value => Err(format!(
                "GPU-CC token mismatch: {name} token {k}: RTL 0x{value:08x}, golden 0x{g:08x}"
            )),
            Some(_) => {
                self.seen[node] += 1;
                self.checked += 1;
                Ok(())
            }
        }
    }

    /// The mode ended: every node must have driven all its golden tokens.
    pub fn end(&self) -> Result<(), String> {
        let short: Vec<String> = (0..self.want.len())
            .filter(|&n| self.seen[n] != self.want[n].len())
            .map(|n| format!("{} drove {} of {}", node_name(n), self.seen[n], self.want[n].len()))
            .collect();
        if short.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "GPU-CC mode ended before every node drove the golden dataflow model's tokens: {}",
                short.join(", ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn want() -> Vec<Vec<u32>> {
        let mut w = vec![Vec::new(); crate::golden::gpucc::NODES];
        w[0] = vec![1, 2, 3];
        w[33] = vec![7];
        w
    }

    #[test]
    fn tokens_in_order_per_node_pass() {
        let mut t = GcTokens::new(want());
        // Interleaved across nodes: only the order within a node counts.
        for (n, v) in [(0, 1), (33, 7), (0, 2), (0, 3)] {
            t.token(n, v).unwrap();
        }
        assert_eq!(t.checked(), 4);
        t.end().unwrap();
    }

    #[test]
    fn a_wrong_value_names_node_index_and_values() {
        let mut t = GcTokens::new(want());
        t.token(0, 1).unwrap();
        let e = t.token(0, 5).unwrap_err();
        assert!(e.contains("core0 token 1: RTL 0x00000005, golden 0x00000002"), "{e}");
    }

    #[test]
    fn an_extra_token_and_a_missing_one_are_errors() {
        let mut t = GcTokens::new(want());
        t.token(33, 7).unwrap();
        let e = t.token(33, 7).unwrap_err();
        assert!(e.contains("lsu1 drove token 1") && e.contains("only 1 tokens"), "{e}");
        let e = t.end().unwrap_err();
        assert!(e.contains("core0 drove 0 of 3"), "{e}");
        let e = t.token(2, 0).unwrap_err();
        assert!(e.contains("core2 drove token 0"), "{e}");
    }
}
