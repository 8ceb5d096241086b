//! Test block for array ports (per-lane buses wider than 256 bits) through a
//! level of hierarchy: `lanes_top` passes 32 lanes of 16-bit operands to
//! `lane_add` (one register per lane, `sum_q[k] = a[k] + b[k]`) and returns
//! the sums, each XORed with its lane number.

use crate::hdl::{Backend, Block, Ctx, Decl, Domain, Reg, Sig};

/// Lanes.
pub const LANES: usize = 32;

crate::ports! {
    /// Per-lane operands.
    pub struct LanesIn { a_i: [16; 32] @ Core, b_i: [16; 32] @ Core, en_i: 1 @ Core }
}
crate::ports! {
    /// Per-lane results.
    pub struct LanesOut { sum_o: [16; 32] @ Core }
}

/// One register per lane.
#[derive(Debug, Clone)]
pub struct LaneAdd {
    decl: Decl,
    sum: [Reg<16>; LANES],
}

impl Default for LaneAdd {
    fn default() -> Self {
        Self::new()
    }
}

impl LaneAdd {
    pub fn new() -> Self {
        let mut decl = Decl::new();
        let sum = std::array::from_fn(|k| decl.reg::<16>(&format!("sum{k}"), Domain::Core, 0));
        LaneAdd { decl, sum }
    }
}

impl Block for LaneAdd {
    type In<B: Backend> = LanesIn<B>;
    type Out<B: Backend> = LanesOut<B>;
    fn module_name(&self) -> String {
        "lane_add".into()
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &LanesIn<C::B>) -> LanesOut<C::B> {
        let mut out = i.a_i;
        for k in 0..LANES {
            let q = cx.q(self.sum[k]);
            cx.d(self.sum[k], i.en_i.mux(i.a_i[k] + i.b_i[k], q));
            out[k] = q;
        }
        LanesOut { sum_o: out }
    }
}

/// The parent.
#[derive(Debug, Clone)]
pub struct LanesTop {
    decl: Decl,
    child: LaneAdd,
}

impl Default for LanesTop {
    fn default() -> Self {
        Self::new()
    }
}

impl LanesTop {
    pub fn new() -> Self {
        LanesTop {
            decl: Decl::new(),
            child: LaneAdd::new(),
        }
    }
}

impl Block for LanesTop {
    type In<B: Backend> = LanesIn<B>;
    type Out<B: Backend> = LanesOut<B>;
    fn module_name(&self) -> String {
        "lanes_top".into()
    }
    fn decl(&self) -> &Decl {
        &self.decl
    }
    fn eval<C: Ctx>(&self, cx: &mut C, i: &LanesIn<C::B>) -> LanesOut<C::B> {
        let o = cx.instance("u_lanes", &self.child, i);
        let mut sum = o.sum_o;
        for (k, s) in sum.iter_mut().enumerate() {
            let lane = cx.lit::<16>(k as u64);
            *s = *s ^ lane;
        }
        LanesOut { sum_o: sum }
    }
}
