//! Plain-Rust reference of the FIFO's cycle behaviour (see `hdl::fifo`),
//! written from its documented contract with a `VecDeque`, not from the
//! block's code.

use std::collections::VecDeque;

/// Outputs of one core cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FifoRefOut {
    pub rdata: u64,
    pub rvalid: bool,
    pub full: bool,
    pub empty: bool,
}

/// The reference FIFO.
#[derive(Debug, Clone)]
pub struct FifoRef {
    depth: usize,
    q: VecDeque<u64>,
    rdata: u64,
    rvalid: bool,
}

impl FifoRef {
    pub fn new(depth: usize) -> Self {
        FifoRef {
            depth,
            q: VecDeque::new(),
            rdata: 0,
            rvalid: false,
        }
    }

    /// One core cycle: outputs before the edge, then the edge.
    pub fn step(&mut self, push: bool, wdata: u64, pop: bool) -> FifoRefOut {
        let (full, empty) = (self.q.len() == self.depth, self.q.is_empty());
        let out = FifoRefOut {
            rdata: self.rdata,
            rvalid: self.rvalid,
            full,
            empty,
        };
        self.rvalid = pop && !empty;
        if self.rvalid {
            self.rdata = self.q.pop_front().unwrap();
        }
        if push && !full {
            self.q.push_back(wdata);
        }
        out
    }
}
