//! The thread geometry of a query: `blockDim`/`gridDim` as terms, the coordinates of a
//! symbolic thread, their range constraints (CUDA's launch limits), and which warp or
//! lock-step group a thread is in.

use super::syntax::for_each_expr;
use crate::ir::*;
use crate::smt::numeral;
use z3::ast::{Bool, BV};

/// The thread geometry shared by both threads of a query.
pub(crate) struct Geometry {
    /// `blockDim` per dimension (32 bits).
    pub bdim: [BV; 3],
    /// `gridDim` per dimension (32 bits).
    pub gdim: [BV; 3],
}

/// The coordinates of one symbolic thread.
#[derive(Clone)]
pub(crate) struct ThreadVars {
    /// Distinguishes the thread's private names (1 or 2).
    pub tag: u8,
    /// `threadIdx`.
    pub tid: [BV; 3],
    /// `blockIdx`.
    pub bid: [BV; 3],
    /// Whether the other thread of the query is in the same block: only then do block-uniform
    /// values (a uniform read, an exit count, a value computed from `blockIdx`) have one name
    /// for both.
    pub same_block: bool,
}

impl ThreadVars {
    /// Thread `tag` of a query on two threads of one block, with its own `threadIdx`.
    pub fn new(tag: u8) -> ThreadVars {
        ThreadVars::with_block(tag, "bid", true)
    }

    /// Thread `tag` with its own `threadIdx` and the block-index names given by `block_prefix`;
    /// `same_block` as in [`ThreadVars::same_block`].
    pub fn with_block(tag: u8, block_prefix: &str, same_block: bool) -> ThreadVars {
        let dims = ["x", "y", "z"];
        ThreadVars {
            tag,
            tid: dims.map(|d| BV::new_const(format!("tid{tag}_{d}"), 32)),
            bid: dims.map(|d| BV::new_const(format!("{block_prefix}_{d}"), 32)),
            same_block,
        }
    }

    /// Names of the thread- and block-index constants.
    pub fn index_names(&self) -> impl Iterator<Item = String> + '_ {
        self.tid.iter().chain(self.bid.iter()).map(|v| v.to_string())
    }
}

/// `blockDim` and `gridDim`: concrete when the launch configuration gives them.
pub(crate) fn geometry(k: &Kernel) -> Geometry {
    let dims = ["x", "y", "z"];
    let pick = |known: Option<[u32; 3]>, name: &str| -> [BV; 3] {
        std::array::from_fn(|i| match known {
            Some(v) => numeral(v[i] as u64, 32),
            None => BV::new_const(format!("{name}_{}", dims[i]), 32),
        })
    };
    Geometry {
        bdim: pick(k.launch.block_dim, "bdim"),
        gdim: pick(k.launch.grid_dim, "gdim"),
    }
}

/// Upper bounds of the launch's dimensions that every query asserts (see
/// [`geometry_constraints`]): a known dimension's value, 1 for one the kernel
/// never mentions (when the launch leaves it unknown), else CUDA's limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DimBounds {
    /// The most `blockDim` may be, per dimension.
    pub block: [u64; 3],
    /// The most `gridDim` may be, per dimension.
    pub grid: [u64; 3],
}

/// [`DimBounds`] of `k`'s launch, as [`geometry_constraints`] bounds them.
pub(crate) fn dim_bounds(k: &Kernel) -> DimBounds {
    let used = used_dims(k);
    let pick = |known: Option<[u32; 3]>, used: [bool; 3], max: [u64; 3]| -> [u64; 3] {
        std::array::from_fn(|i| match known {
            Some(v) => u64::from(v[i]),
            None if used[i] => max[i],
            None => 1,
        })
    };
    DimBounds {
        block: pick(k.launch.block_dim, used.thread, BLOCK_MAX),
        grid: pick(k.launch.grid_dim, used.block, GRID_MAX),
    }
}

/// CUDA's limits: blockDim ≤ (1024, 1024, 64) with ≤ 1024 threads; gridDim.y, z ≤ 65535 (and
/// gridDim.x < 2^31, the assumed limit of threads per grid dimension).
const BLOCK_MAX: [u64; 3] = [1024, 1024, 64];
const GRID_MAX: [u64; 3] = [u32::MAX as u64 >> 1, 65535, 65535];

/// Range constraints of the geometry and of the given threads' coordinates.
pub(crate) fn geometry_constraints(k: &Kernel, g: &Geometry, threads: &[&ThreadVars]) -> Vec<Bool> {
    let mut out = Vec::new();
    let used = used_dims(k);
    let one = numeral(1, 32);
    let (block_max, grid_max) = (BLOCK_MAX, GRID_MAX);
    if k.launch.block_dim.is_none() {
        let wide: Vec<BV> = g.bdim.iter().map(|d| d.zero_ext(32)).collect();
        let total = wide[0].bvmul(&wide[1]).bvmul(&wide[2]);
        for (i, d) in g.bdim.iter().enumerate() {
            if used.thread[i] {
                out.push(d.bvuge(&one));
                out.push(d.bvule(numeral(block_max[i], 32)));
            } else {
                // A dimension the kernel never looks at is assumed to be 1.
                out.push(d.eq(&one));
            }
        }
        out.push(total.bvule(numeral(1024, 64)));
    }
    if k.launch.grid_dim.is_none() {
        for (i, d) in g.gdim.iter().enumerate() {
            if used.block[i] {
                out.push(d.bvuge(&one));
                out.push(d.bvule(numeral(grid_max[i], 32)));
            } else {
                out.push(d.eq(&one));
            }
        }
    }
    // Assumed launch limit: fewer than 2^31 threads per grid dimension, so the usual global
    // index `blockIdx * blockDim + threadIdx` fits in an `int`.
    for (gd, bd) in g.gdim.iter().zip(&g.bdim) {
        out.push(
            gd.zero_ext(32)
                .bvmul(bd.zero_ext(32))
                .bvule(numeral(i32::MAX as u64, 64)),
        );
    }
    for t in threads {
        for i in 0..3 {
            out.push(t.tid[i].bvult(&g.bdim[i]));
            out.push(t.bid[i].bvult(&g.gdim[i]));
        }
    }
    out
}

/// Which thread and block dimensions a kernel mentions.
struct UsedDims {
    thread: [bool; 3],
    block: [bool; 3],
}

fn used_dims(k: &Kernel) -> UsedDims {
    let mut u = UsedDims {
        thread: [false; 3],
        block: [false; 3],
    };
    let mut see = |e: &Expr| {
        e.for_each_builtin(&mut |b| match b {
            Builtin::ThreadIdx(d) | Builtin::BlockDim(d) => u.thread[d.index()] = true,
            Builtin::BlockIdx(d) | Builtin::GridDim(d) => u.block[d.index()] = true,
            Builtin::WarpSize => {}
        })
    };
    crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| for_each_expr(s, &mut see));
    // x always exists; an unused x dimension still may have many threads.
    u.thread[0] = true;
    u.block[0] = true;
    u
}

/// Linear thread index within the block (64 bits).
pub(crate) fn linear_tid(t: &ThreadVars, g: &Geometry) -> BV {
    let w = |x: &BV| x.zero_ext(32);
    w(&t.tid[0]).bvadd(w(&g.bdim[0]).bvmul(w(&t.tid[1]).bvadd(w(&g.bdim[1]).bvmul(w(&t.tid[2])))))
}

/// The warp a thread belongs to.
pub(crate) fn warp_of(t: &ThreadVars, g: &Geometry) -> BV {
    group_of(t, g, 32)
}

/// The lock-step group of `n` consecutive threads a thread belongs to.
pub(crate) fn group_of(t: &ThreadVars, g: &Geometry, n: u32) -> BV {
    linear_tid(t, g).bvudiv(numeral(n.max(1) as u64, 64))
}
