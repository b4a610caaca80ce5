//! The kernel IR: a structured, labeled language in the spirit of KPL.
//!
//! Every statement carries a [`Label`] and the byte [`Span`] of the source text it came from,
//! so that decisions made on the IR (a barrier after label ℓ) can be turned back into exact edits
//! of the user's file. Blocks carry a label too: it names the block-start position (AutoSync's ℓ_s).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

mod source;
pub use source::{FileId, SourceFile, Span};

/// A statement label, unique within a kernel. Labels are dense indices in creation order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Label(pub u32);

/// A local variable (including scalar kernel parameters and loop variables).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct VarId(pub u32);

/// An array (shared, global or local memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ArrayId(pub u32);

/// A thread/block dimension.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Dim {
    /// `.x`
    X,
    /// `.y`
    Y,
    /// `.z`
    Z,
}

impl Dim {
    /// All three dimensions in order.
    pub const ALL: [Dim; 3] = [Dim::X, Dim::Y, Dim::Z];
    /// 0 for x, 1 for y, 2 for z.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Scalar types of IR values. Integers are bit-vectors; floats and anything else are opaque.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ScalarTy {
    /// An integer of `bits` (8, 16, 32 or 64) with the given signedness.
    Int {
        /// Width in bits.
        bits: u8,
        /// Signed (two's complement) or unsigned.
        signed: bool,
    },
    /// `bool` (a 1-bit value in the checkers).
    Bool,
    /// A floating-point or other value whose bits the checkers never interpret.
    Opaque,
}

impl ScalarTy {
    /// `int`.
    pub const I32: ScalarTy = ScalarTy::Int { bits: 32, signed: true };
    /// `unsigned int`.
    pub const U32: ScalarTy = ScalarTy::Int {
        bits: 32,
        signed: false,
    };
    /// `long long`.
    pub const I64: ScalarTy = ScalarTy::Int { bits: 64, signed: true };
    /// `unsigned long long` / `size_t`.
    pub const U64: ScalarTy = ScalarTy::Int {
        bits: 64,
        signed: false,
    };
    /// Whether this is an integer type.
    pub fn is_int(self) -> bool {
        matches!(self, ScalarTy::Int { .. })
    }
}

/// Built-in thread-geometry values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Builtin {
    /// `threadIdx.d`
    ThreadIdx(Dim),
    /// `blockIdx.d`
    BlockIdx(Dim),
    /// `blockDim.d`
    BlockDim(Dim),
    /// `gridDim.d`
    GridDim(Dim),
    /// `warpSize` (32).
    WarpSize,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnOp {
    /// `-e`
    Neg,
    /// `~e`
    BitNot,
    /// `!e` (result is `Bool`)
    Not,
}

/// Binary operators. Arithmetic is on the operand type given in [`Expr::Bin`] (after C's usual
/// conversions); comparisons and logical operators yield `Bool`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (signed or unsigned per the operand type)
    Div,
    /// `%`
    Rem,
    /// `<<`
    Shl,
    /// `>>` (arithmetic for signed operands)
    Shr,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&` (operands are `Bool`; no memory access inside, so no short-circuit needed)
    And,
    /// `||`
    Or,
}

impl BinOp {
    /// Whether the result is a `Bool`.
    pub fn is_predicate(self) -> bool {
        use BinOp::*;
        matches!(self, Lt | Le | Gt | Ge | Eq | Ne | And | Or)
    }
}

/// A side-effect-free expression. Expressions never access memory: reads are statements.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Expr {
    /// An integer or boolean constant of the given type.
    Const(i64, ScalarTy),
    /// A thread-geometry built-in (`u32`).
    Builtin(Builtin),
    /// A local variable or scalar parameter.
    Var(VarId),
    /// A unary operation on the given type.
    Un(UnOp, ScalarTy, Box<Expr>),
    /// A binary operation whose operands have the given type.
    Bin(BinOp, ScalarTy, Box<Expr>, Box<Expr>),
    /// Conversion to the given type (truncation, sign or zero extension; `Bool` means `!= 0`).
    Cast(ScalarTy, Box<Expr>),
    /// `c ? a : b` over pure operands.
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A value the checkers do not interpret (float arithmetic, pure math calls), a
    /// deterministic function of its operands: uniform when they all are.
    Opaque(ScalarTy, Vec<Expr>),
    /// A value nothing is known about, possibly different in every thread and evaluation
    /// (uninitialized bytes, an asm output, an uninterpreted library result): never uniform.
    Unknown(ScalarTy),
    /// A block-wide vote (`__syncthreads_or/and/count`): `pred` of every thread that runs it,
    /// combined; the same in each. Only the whole right-hand side of an [`Op::Assign`] right
    /// after its block-wide barrier (so its threads are the ones that reached the barrier).
    Vote(VoteKind, Box<Expr>),
    /// A collective's result, the same bits in every lane of an aligned group of `width`
    /// consecutive threads (a power of two ≤ 32) that ran it together: a commutative xor
    /// butterfly, a full-mask warp vote or reduction. Only the whole right-hand side of an
    /// [`Op::Assign`] (at the call, or right after the reduction's loop); relied on only
    /// where the warp runs that statement together (warp-uniform predicate, whole group).
    GroupValue(ScalarTy, u32),
}

/// How a block-wide vote combines its threads' predicates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum VoteKind {
    /// `__syncthreads_or`: 1 when some thread's predicate is non-zero, else 0 (`int`).
    Or,
    /// `__syncthreads_and`: 1 when every thread's predicate is non-zero, else 0 (`int`).
    And,
    /// `__syncthreads_count`: how many threads' predicates are non-zero (`int`).
    Count,
}

impl Expr {
    /// A signed 32-bit constant.
    pub fn int(v: i64) -> Expr {
        Expr::Const(v, ScalarTy::I32)
    }
    /// A boolean constant.
    pub fn bool(b: bool) -> Expr {
        Expr::Const(b as i64, ScalarTy::Bool)
    }
    /// The constant value, if this is a constant.
    pub fn as_const(&self) -> Option<i64> {
        match self {
            Expr::Const(v, _) => Some(*v),
            _ => None,
        }
    }
    /// `__mul24(a, b)` (`signed`) or `__umul24(a, b)` over 32-bit operands: the low 32 bits of
    /// the product of the operands' low 24 bits (sign-extended for `__mul24`). Written with
    /// shifts, a mask and a wrapping unsigned multiply, it is exact for every operand (the
    /// hardware ignores the high 8 bits; the 48-bit product's high part is dropped).
    pub fn mul24(a: Expr, b: Expr, signed: bool) -> Expr {
        let low24 = |e: Expr| {
            if signed {
                let up = Expr::Bin(BinOp::Shl, ScalarTy::I32, Box::new(e), Box::new(Expr::int(8)));
                Expr::Cast(
                    ScalarTy::U32,
                    Box::new(Expr::Bin(
                        BinOp::Shr,
                        ScalarTy::I32,
                        Box::new(up),
                        Box::new(Expr::int(8)),
                    )),
                )
            } else {
                Expr::Bin(
                    BinOp::BitAnd,
                    ScalarTy::U32,
                    Box::new(e),
                    Box::new(Expr::Const(0xFF_FFFF, ScalarTy::U32)),
                )
            }
        };
        let product = Expr::Bin(BinOp::Mul, ScalarTy::U32, Box::new(low24(a)), Box::new(low24(b)));
        if signed {
            Expr::Cast(ScalarTy::I32, Box::new(product))
        } else {
            product
        }
    }
    /// Whether this expression is a function of its variables and built-ins alone: no unknown,
    /// opaque value or vote, which stand for a value of one evaluation.
    pub fn is_plain(&self) -> bool {
        match self {
            Expr::Var(_) | Expr::Const(..) | Expr::Builtin(_) => true,
            Expr::Un(_, _, e) | Expr::Cast(_, e) => e.is_plain(),
            Expr::Bin(_, _, a, b) => a.is_plain() && b.is_plain(),
            Expr::Select(c, a, b) => c.is_plain() && a.is_plain() && b.is_plain(),
            Expr::Opaque(..) | Expr::Unknown(_) | Expr::Vote(..) | Expr::GroupValue(..) => false,
        }
    }
    /// Calls `f` on every variable this expression mentions.
    pub fn for_each_var(&self, f: &mut impl FnMut(VarId)) {
        match self {
            Expr::Var(v) => f(*v),
            Expr::Const(..) | Expr::Builtin(_) => {}
            Expr::Un(_, _, e) | Expr::Cast(_, e) => e.for_each_var(f),
            Expr::Bin(_, _, a, b) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
            Expr::Select(c, a, b) => {
                c.for_each_var(f);
                a.for_each_var(f);
                b.for_each_var(f);
            }
            Expr::Opaque(_, args) => args.iter().for_each(|a| a.for_each_var(f)),
            Expr::Unknown(_) | Expr::GroupValue(..) => {}
            Expr::Vote(_, p) => p.for_each_var(f),
        }
    }
    /// Calls `f` on every built-in this expression mentions.
    pub fn for_each_builtin(&self, f: &mut impl FnMut(Builtin)) {
        match self {
            Expr::Builtin(b) => f(*b),
            Expr::Const(..) | Expr::Var(_) => {}
            Expr::Un(_, _, e) | Expr::Cast(_, e) => e.for_each_builtin(f),
            Expr::Bin(_, _, a, b) => {
                a.for_each_builtin(f);
                b.for_each_builtin(f);
            }
            Expr::Select(c, a, b) => {
                c.for_each_builtin(f);
                a.for_each_builtin(f);
                b.for_each_builtin(f);
            }
            Expr::Opaque(_, args) => args.iter().for_each(|a| a.for_each_builtin(f)),
            Expr::Unknown(_) | Expr::GroupValue(..) => {}
            Expr::Vote(_, p) => p.for_each_builtin(f),
        }
    }

    /// Whether two threads of the grid (of different blocks, too) may evaluate this expression
    /// to different values, given which variables may (`var_differs`).
    pub fn may_differ_between_blocks(&self, var_differs: &impl Fn(VarId) -> bool) -> bool {
        match self {
            // A vote is the same within a block only.
            Expr::Unknown(_) | Expr::Vote(..) | Expr::GroupValue(..) => true,
            Expr::Const(..) => false,
            Expr::Builtin(b) => matches!(b, Builtin::ThreadIdx(_) | Builtin::BlockIdx(_)),
            Expr::Var(v) => var_differs(*v),
            Expr::Un(_, _, e) | Expr::Cast(_, e) => e.may_differ_between_blocks(var_differs),
            Expr::Bin(_, _, a, b) => {
                a.may_differ_between_blocks(var_differs) || b.may_differ_between_blocks(var_differs)
            }
            Expr::Select(c, a, b) => [c, a, b].iter().any(|e| e.may_differ_between_blocks(var_differs)),
            Expr::Opaque(_, args) => args.iter().any(|a| a.may_differ_between_blocks(var_differs)),
        }
    }

    /// Whether two threads of a block may evaluate this expression to different values, given
    /// which variables may differ (`var_differs`): it mentions `threadIdx`, such a variable, or
    /// an [`Expr::Unknown`]. A [`Expr::Vote`] is one value for the whole block whatever its
    /// predicate mentions.
    pub fn may_differ(&self, var_differs: &impl Fn(VarId) -> bool) -> bool {
        match self {
            Expr::Unknown(_) | Expr::GroupValue(..) => true,
            Expr::Vote(..) | Expr::Const(..) => false,
            Expr::Builtin(b) => matches!(b, Builtin::ThreadIdx(_)),
            Expr::Var(v) => var_differs(*v),
            Expr::Un(_, _, e) | Expr::Cast(_, e) => e.may_differ(var_differs),
            Expr::Bin(_, _, a, b) => a.may_differ(var_differs) || b.may_differ(var_differs),
            Expr::Select(c, a, b) => {
                c.may_differ(var_differs) || a.may_differ(var_differs) || b.may_differ(var_differs)
            }
            Expr::Opaque(_, args) => args.iter().any(|a| a.may_differ(var_differs)),
        }
    }
}

/// The memory space of an array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Space {
    /// `__shared__` (one copy per block).
    Shared,
    /// Global memory (pointer parameters, `__device__` globals; one copy per grid).
    Global,
    /// Thread-private memory (local arrays); never races.
    Local,
}

/// An array the kernel accesses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Array {
    /// Its id (index in [`Kernel::arrays`]).
    pub id: ArrayId,
    /// Source name (`tile`, `g_out`, ...).
    pub name: String,
    /// Memory space.
    pub space: Space,
    /// Size in bytes of one element of the declared element type.
    pub elem_size: u32,
    /// Declared extents, outermost first (`None` for unsized: `extern __shared__ s[]`, pointers).
    pub dims: Vec<Option<u64>>,
    /// Span of the declaration.
    pub span: Span,
}

impl Array {
    /// Size in bytes when every extent is known (`None` for unsized arrays and pointers).
    pub fn byte_len(&self) -> Option<u64> {
        self.dims
            .iter()
            .try_fold(self.elem_size as u64, |acc, d| d.and_then(|d| acc.checked_mul(d)))
    }
}

/// How a memory access touches memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AccessKind {
    /// A plain load.
    Read,
    /// A plain store.
    Write,
    /// An atomic read-modify-write (`atomicAdd` and family): does not race with other atomics.
    Atomic,
}

impl AccessKind {
    /// Whether accesses of these kinds to one address conflict: at least one writes, and they
    /// are not both atomic.
    pub fn conflicts_with(self, other: AccessKind) -> bool {
        use AccessKind::*;
        !matches!((self, other), (Read, Read) | (Atomic, Atomic))
    }
}

/// One memory access: `size` bytes at byte `offset` of `array`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    /// The array.
    pub array: ArrayId,
    /// Load, store or atomic.
    pub kind: AccessKind,
    /// Byte offset from the array base (64-bit).
    pub offset: Expr,
    /// Number of bytes accessed.
    pub size: u32,
    /// Span of the access expression (`tile[ty][tx]`).
    pub span: Span,
}

/// One step of a [`StmtKind::Basic`] statement, executed in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Op {
    /// `var = value`.
    Assign(VarId, Expr),
    /// `dst = load(access)` — `dst` receives a fresh unknown value (reads are opaque).
    Read(Option<VarId>, Access),
    /// `store(access, value)`.
    Write(Access, Expr),
    /// An atomic read-modify-write; `dst` receives the old (unknown) value.
    Atomic(Option<VarId>, Access, AtomicOp),
    /// An operation on an mbarrier object (Ampere/Hopper async pipelines).
    Mbarrier(MbarRef, MbarOp),
    /// An asynchronous copy into shared memory (`cp.async`, `cp.async.bulk`, TMA).
    AsyncCopy(AsyncCopy),
    /// A `wgmma.mma_async`: its shared-memory operands are read asynchronously until the
    /// thread's wgmma group holding it retires (`wgmma.wait_group`).
    Wgmma(Vec<WgmmaOperand>),
    /// `cp.async.commit_group` / `cp.async.wait_group N` of the thread's Ampere copies.
    AsyncGroup(AsyncGroupOp),
    /// A proxy or mbarrier-initialization fence (`fence.mbarrier_init`, `fence.proxy.async`):
    /// recorded, since whether one is needed depends on the async proxy, which autosync does
    /// not model.
    ProxyFence(ProxyFence),
}

impl Op {
    /// Whether this is an async-pipeline op (mbarrier, async copy, commit group, proxy fence):
    /// only the named-barrier checker models them.
    pub fn is_async(&self) -> bool {
        matches!(
            self,
            Op::Mbarrier(..) | Op::AsyncCopy(_) | Op::Wgmma(_) | Op::AsyncGroup(_) | Op::ProxyFence(_)
        )
    }
    /// The variable the op assigns, if any.
    pub fn assigned_var(&self) -> Option<VarId> {
        match self {
            Op::Assign(v, _) | Op::Read(Some(v), _) | Op::Atomic(Some(v), _, _) => Some(*v),
            Op::Mbarrier(_, MbarOp::Arrive { token: Some(v), .. }) => Some(*v),
            Op::Mbarrier(_, MbarOp::Test { dst: Some(v), .. }) => Some(*v),
            _ => None,
        }
    }
    /// Calls `f` on every expression of the op (values, offsets, counts, phases).
    pub fn for_each_expr(&self, f: &mut impl FnMut(&Expr)) {
        match self {
            Op::Assign(_, e) => f(e),
            Op::Read(_, a) | Op::Atomic(_, a, _) => f(&a.offset),
            Op::Write(a, e) => {
                f(&a.offset);
                f(e)
            }
            Op::Mbarrier(b, m) => {
                f(&b.offset);
                match m {
                    MbarOp::Init { count } => f(count),
                    MbarOp::Arrive { count, tx, .. } => {
                        f(count);
                        if let Some(t) = tx {
                            f(t)
                        }
                    }
                    MbarOp::ExpectTx { bytes } | MbarOp::CompleteTx { bytes } => f(bytes),
                    MbarOp::Test { phase, .. } | MbarOp::Wait { phase } => match phase {
                        MbarPhase::Parity(e) | MbarPhase::Token(e) => f(e),
                    },
                    MbarOp::ArriveOnCopies { .. } | MbarOp::Inval => {}
                }
            }
            Op::AsyncCopy(c) => {
                f(&c.dst.offset);
                if let Some(s) = &c.src {
                    f(&s.offset);
                }
                if let Some(b) = &c.bytes {
                    f(b);
                }
                if let AsyncCompletion::Mbarrier(b) = &c.completion {
                    f(&b.offset);
                }
            }
            Op::Wgmma(ops) => {
                for o in ops {
                    f(&o.desc);
                    f(&o.base);
                }
            }
            Op::AsyncGroup(_) | Op::ProxyFence(_) => {}
        }
    }
}

/// An mbarrier: 8 bytes of shared memory, one element of a `uint64_t` array (also an array
/// indexed by pipeline stage).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MbarRef {
    /// The array the barrier object lives in (shared memory).
    pub array: ArrayId,
    /// Byte offset of the object in the array.
    pub offset: Expr,
    /// Span of the barrier operand as written.
    pub span: Span,
}

/// The phase a wait or test names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MbarPhase {
    /// `.parity p`: the phase of parity `p & 1` completed.
    Parity(Expr),
    /// A state token an `arrive` on the same barrier returned: the phase it arrived in.
    Token(Expr),
}

/// What an mbarrier operation does.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum MbarOp {
    /// `mbarrier.init [bar], count`: phase 0 expects `count` arrivals, no transactions.
    Init {
        /// Expected arrival count per phase.
        count: Expr,
    },
    /// `mbarrier.arrive{.expect_tx}{.noComplete}`, `arrive_drop`: raises the transaction count
    /// by `tx` bytes, then arrives `count` times.
    Arrive {
        /// Arrivals (1 unless written).
        count: Expr,
        /// `.expect_tx` bytes.
        tx: Option<Expr>,
        /// `arrive_drop`: the thread also leaves the expected count of later phases.
        drop: bool,
        /// The variable receiving the state token (the phase arrived in).
        token: Option<VarId>,
    },
    /// `mbarrier.expect_tx [bar], bytes`.
    ExpectTx {
        /// Bytes the current phase waits for.
        bytes: Expr,
    },
    /// `mbarrier.complete_tx [bar], bytes`, performed by the thread itself.
    CompleteTx {
        /// Bytes completed.
        bytes: Expr,
    },
    /// `test_wait`/`try_wait`: `dst` receives whether the phase completed. A loop that spins on
    /// it until it is true is a wait; any other use is not modelled.
    Test {
        /// The result (`None` when discarded).
        dst: Option<VarId>,
        /// The phase tested.
        phase: MbarPhase,
    },
    /// A whole wait (a PTX loop around `try_wait` inside one asm statement): blocks until the
    /// phase completed.
    Wait {
        /// The phase waited for.
        phase: MbarPhase,
    },
    /// `cp.async.mbarrier.arrive{.noinc}`: an arrival once the thread's earlier `cp.async`
    /// copies completed (without `.noinc` the pending count is raised first, so the arrival
    /// is not one of the `init` count).
    ArriveOnCopies {
        /// `.noinc`.
        noinc: bool,
    },
    /// `mbarrier.inval [bar]`.
    Inval,
}

/// How an asynchronous copy completes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AsyncCompletion {
    /// A bulk copy or TMA load: completes its bytes as transactions on this mbarrier.
    Mbarrier(MbarRef),
    /// An Ampere `cp.async`: completes with the thread's commit group.
    Group,
    /// A bulk store: with the thread's bulk group (`wait_group.read` ends its reads).
    BulkGroup,
}

/// An asynchronous copy: it reads `src` and writes `dst` between its issue and its completion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AsyncCopy {
    /// The bytes written (kind `Write`): shared memory for loads, global for bulk stores.
    pub dst: Access,
    /// The bytes read, when known (a TMA load reads through a tensor map: `None`).
    pub src: Option<Access>,
    /// Bytes the copy completes; `None` for a TMA load (box from the host's tensor map): from
    /// `dst.offset`, the bytes its thread announced on the mbarrier not yet taken (named.md).
    pub bytes: Option<Expr>,
    /// How it completes.
    pub completion: AsyncCompletion,
}

/// One shared-memory operand of a `wgmma.mma_async`, read through its matrix descriptor
/// (PTX ISA, "Matrix Descriptor Format"): the start address, leading- and stride-dimension
/// byte offsets (14 bits each, in units of 16 bytes) and the swizzle mode are fields of a
/// 64-bit number the kernel computes, so the checkers decode it per thread.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WgmmaOperand {
    /// The shared array the descriptor's address is computed from.
    pub array: ArrayId,
    /// The descriptor (64 bits).
    pub desc: Expr,
    /// The array's address as a 64-bit number: the operand starts at `start(desc) - base`.
    pub base: Expr,
    /// Rows of the operand: M (64) for A, N for B.
    pub rows: u32,
    /// Bytes of one element.
    pub elem_bytes: u32,
    /// Whether the operand is MN-major (transposed: `imm-trans` 1).
    pub mn_major: bool,
    /// The instruction.
    pub span: Span,
}

/// The commit groups of a thread's asynchronous copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum AsyncGroupOp {
    /// `cp.async.commit_group`: the copies issued since the last commit form a group.
    Commit,
    /// `cp.async.wait_group n`: at most `n` committed groups stay pending (`wait_all`: 0).
    Wait(u32),
    /// `cp.async.bulk.commit_group`: the bulk stores issued since the last one form a group.
    BulkCommit,
    /// `cp.async.bulk.wait_group{.read} n`: at most `n` bulk groups stay pending (`.read`: the others only read).
    BulkWait(u32, bool),
    /// `wgmma.commit_group`: the `wgmma.mma_async`s issued since the last one form a group.
    WgmmaCommit,
    /// `wgmma.wait_group n`: at most `n` wgmma groups stay pending.
    WgmmaWait(u32),
}

/// A fence between proxies or for mbarrier initialization.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProxyFence {
    /// `fence.mbarrier_init.release.cluster`.
    MbarrierInit,
    /// `fence.proxy.async{.space}`.
    Async,
}

/// What an atomic read-modify-write does to the value it updates, as far as the checker uses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AtomicOp {
    /// Adds a positive constant: on a counter nothing else writes, each call returns its own value.
    Increment(u64),
    /// Anything else (exchange, min/max, compare-and-swap, a variable amount, ...).
    Other,
}

impl AtomicOp {
    /// The largest step the checker treats as a counter increment (larger constants wrap
    /// around in few calls).
    pub const MAX_STEP: u64 = 1 << 16;
}

/// How a barrier statement was written in the source (emission reuses the kernel's own style).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BarrierSyntax {
    /// `__syncthreads()` and its `_count/_and/_or` forms.
    SyncThreads,
    /// Cooperative groups `block.sync()`.
    CoopGroups,
    /// Cooperative groups `grid.sync()`: a barrier of the whole grid. Within a block it is a
    /// block-wide barrier ([`Barrier::Block`]); at the kernel's top level it also orders the
    /// accesses of different blocks before it with those after it.
    GridSync,
    /// Inline PTX asm.
    Asm,
    /// CUTLASS-style `NamedBarrier::sync/arrive`.
    Cutlass,
    /// `__syncwarp()`.
    SyncWarp,
    /// A barrier inserted by autosync (no source).
    Synthesized,
}

/// Which barrier a [`BarrierHelper`] performs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum HelperKind {
    /// `bar.sync id, count`.
    Sync,
    /// `bar.arrive id, count`.
    Arrive,
}

/// A barrier helper the kernel's translation unit defines: a `__device__` function or a
/// function-like macro whose body is exactly one named-barrier asm statement with the ID and the
/// thread count taken unchanged from two of its parameters. Emission writes inserted barriers
/// through it (`helper(ID, N);`) instead of raw asm.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BarrierHelper {
    /// Function or macro name.
    pub name: String,
    /// Sync or arrive.
    pub kind: HelperKind,
    /// Number of parameters.
    pub arity: usize,
    /// Position (0-based) of the barrier-ID argument.
    pub id_arg: usize,
    /// Position (0-based) of the thread-count argument.
    pub count_arg: usize,
    /// A function-like macro rather than a `__device__` function.
    pub is_macro: bool,
    /// Whether the kernel's own text calls it.
    pub used: bool,
}

/// Synchronization statements.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Barrier {
    /// A block-wide barrier: `__syncthreads()`, `bar.sync 0`, `block.sync()`.
    Block,
    /// `bar.sync id, count` (count `None`: all threads of the block).
    NamedSync {
        /// Barrier id (0..=15).
        id: Expr,
        /// Participating threads, a multiple of the warp size.
        count: Option<Expr>,
    },
    /// `bar.arrive id, count`: registers without waiting.
    NamedArrive {
        /// Barrier id (0..=15).
        id: Expr,
        /// Participating threads (required by PTX).
        count: Expr,
    },
    /// `__syncwarp(mask)`: orders the lanes of one warp.
    Warp,
}

impl Barrier {
    /// Whether this is a block-wide barrier (explicit, or `bar.sync` with no count).
    pub fn is_block_wide(&self) -> bool {
        matches!(self, Barrier::Block | Barrier::NamedSync { count: None, .. })
    }
    /// Whether this is a named barrier that is not simply block-wide barrier 0.
    pub fn is_named(&self) -> bool {
        match self {
            Barrier::Block | Barrier::Warp => false,
            Barrier::NamedSync { id, count } => !(id.as_const() == Some(0) && count.is_none()),
            Barrier::NamedArrive { .. } => true,
        }
    }
}

/// A loop's syntactic form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LoopKind {
    /// `for (init; cond; step) body`
    For,
    /// `while (cond) body`
    While,
    /// `do body while (cond);` — the body runs before the first test.
    DoWhile,
}

/// A loop statement. Each iteration: `header` stmts, test `cond` (exit when false), `body`,
/// `step`. For `DoWhile` the body runs first: `body`, `header`, test.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loop {
    /// Syntactic form.
    pub kind: LoopKind,
    /// Statements evaluated before every test of `cond` (reads in the source condition).
    pub header: Vec<Stmt>,
    /// Loop guard.
    pub cond: Expr,
    /// Loop body.
    pub body: Block,
    /// Step statements (`i++` of a `for`), run after the body and after `continue`.
    pub step: Vec<Stmt>,
    /// The induction variable when the loop is `for (v = a; v < b; v += c)`-like.
    pub var: Option<VarId>,
}

/// A statement of the IR.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stmt {
    /// Unique label.
    pub label: Label,
    /// Source span (the whole statement; for macros and inlined code, the use/call site).
    pub span: Span,
    /// Whether a barrier may be written into the source right after this statement.
    /// False for statements synthesized by lowering (condition pre-reads, short-circuit
    /// guards) and for statements of inlined function bodies.
    pub emit_after: bool,
    /// What it does.
    pub kind: StmtKind,
}

/// Statement kinds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StmtKind {
    /// Straight-line operations (assignments and memory accesses of one source statement).
    Basic(Vec<Op>),
    /// `if (cond) then else`.
    If {
        /// Guard (pure; reads in the source condition are lowered to a preceding `Basic`).
        cond: Expr,
        /// Then block.
        then_blk: Block,
        /// Else block (empty when absent).
        else_blk: Block,
    },
    /// A loop (see [`Loop`]).
    Loop(Loop),
    /// `break` out of the innermost loop.
    Break,
    /// `continue` the innermost loop.
    Continue,
    /// `return` from the kernel (PTX `exit`), or a trap that ends the thread's path.
    Return {
        /// The trap (`brkpt`, `trap`, `__trap()`: the launch fails there).
        trap: Option<Trap>,
    },
    /// A barrier.
    Barrier(Barrier, BarrierSyntax),
    /// `assume(e)` from `__requires`, `__assume`.
    Assume(Expr),
}

/// A trap that ends a thread's path (libraries often trap below the architecture they need).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Trap {
    /// As written: `brkpt`, `trap`, `__trap()`.
    pub instr: String,
    /// The (inlined) function it is in (`cutlass::arch::NamedBarrier::arrive_internal`).
    pub function: String,
    /// The architecture the code was read for (`sm_80`).
    pub arch: String,
}

/// A block of statements with its own label, which names the block-start position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Block {
    /// Label of the block start (ℓ_s).
    pub label: Label,
    /// The source span of the block (braces included when present).
    pub span: Span,
    /// Whether the block is written with braces in the source (emission adds them otherwise).
    pub braced: bool,
    /// Whether a barrier may be written at the start of this block in the source.
    pub emit_start: bool,
    /// Statements in order.
    pub stmts: Vec<Stmt>,
}

/// How a variable came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum VarKind {
    /// A scalar kernel parameter (uniform, symbolic unless given).
    Param,
    /// A local variable (thread-private).
    Local,
    /// A temporary introduced by lowering.
    Temp,
}

/// A variable.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Var {
    /// Its id (index in [`Kernel::vars`]).
    pub id: VarId,
    /// Source name (temps get `$tN`).
    pub name: String,
    /// Type.
    pub ty: ScalarTy,
    /// Origin.
    pub kind: VarKind,
}

/// The index bound [`LaunchConfig::index_bits`] the tool assumes unless told otherwise: 2^40
/// elements, above any device's memory.
pub const DEVICE_INDEX_BITS: u32 = 40;

/// The concrete launch configuration and known parameter values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaunchConfig {
    /// `blockDim` (x, y, z), when known.
    pub block_dim: Option<[u32; 3]>,
    /// `gridDim` (x, y, z), when known (may stay symbolic).
    pub grid_dim: Option<[u32; 3]>,
    /// `--warp-sync=N`: warps of N threads run in lock step.
    pub warp_sync: Option<u32>,
    /// Concrete values of scalar parameters, by name.
    pub params: BTreeMap<String, i64>,
    /// Conditions on the block every thread may assume at entry, from what the host code's
    /// launches say about a block they do not fix (`blockDim.x == p` for a launch
    /// `k<<<g, dim3(p, 1, 1)>>>(…, p)`, `blockDim.y == 1`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub facts: Vec<Expr>,
    /// Every access's element index lies in `[-2^n, 2^n)` (no allocation on a device comes
    /// near 2^40 elements, so index arithmetic that only wraps above that is no witness);
    /// `None`: full 64-bit wrap-around semantics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_bits: Option<u32>,
}

impl LaunchConfig {
    /// Number of threads in a block, if blockDim is known.
    pub fn threads_per_block(&self) -> Option<u64> {
        self.block_dim.map(|d| d.iter().map(|&x| x as u64).product())
    }
}

/// A kernel in IR form.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kernel {
    /// Kernel function name.
    pub name: String,
    /// Source files referenced by spans.
    pub files: Vec<SourceFile>,
    /// Span of the kernel's definition.
    pub span: Span,
    /// Variables (parameters, locals, temps).
    pub vars: Vec<Var>,
    /// Arrays.
    pub arrays: Vec<Array>,
    /// The body.
    pub body: Block,
    /// Launch configuration and parameter values.
    pub launch: LaunchConfig,
    /// One past the largest label in use (fresh labels start here).
    pub next_label: u32,
}

impl Kernel {
    /// The variable with this id.
    pub fn var(&self, v: VarId) -> &Var {
        &self.vars[v.0 as usize]
    }
    /// The array with this id.
    pub fn array(&self, a: ArrayId) -> &Array {
        &self.arrays[a.0 as usize]
    }
    /// A fresh label.
    pub fn fresh_label(&mut self) -> Label {
        let l = Label(self.next_label);
        self.next_label += 1;
        l
    }
    /// `path:line:col` of the start of a span (or `<synthesized>`).
    pub fn loc(&self, span: Span) -> String {
        if span.is_dummy() {
            return "<synthesized>".into();
        }
        let f = &self.files[span.file.0 as usize];
        let (l, c) = f.line_col(span.lo);
        format!("{}:{}:{}", f.path, l, c)
    }
    /// 1-based line of the start of a span (0 for synthesized spans).
    pub fn line(&self, span: Span) -> u32 {
        if span.is_dummy() {
            return 0;
        }
        self.files[span.file.0 as usize].line_col(span.lo).0
    }
}
