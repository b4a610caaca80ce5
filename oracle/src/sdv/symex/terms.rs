//! What a walk produces: symbolic values, the terms recorded at program points and accesses,
//! and the per-loop facts (iteration counters, first/last iterations, strides) queries use.

use crate::ir::*;
use crate::smt::numeral;
use std::collections::HashMap;
use z3::ast::{Bool, BV};

/// A symbolic value: a bit-vector (integers, opaque values as 64 bits) or a boolean.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    /// Integer or opaque bits.
    Bv(BV),
    /// `bool`.
    B(Bool),
}

/// Control predicate and known facts at a program point.
#[derive(Clone, Debug)]
pub(crate) struct PointTerms {
    /// The thread executes this point iff `ctrl` holds.
    pub ctrl: Bool,
    /// Facts that hold whenever the thread reaches this point.
    pub facts: Bool,
}

/// What a walk records about one memory access.
#[derive(Clone, Debug)]
pub(crate) struct SiteTerms {
    /// Control predicate and facts at the access.
    pub at: PointTerms,
    /// Byte offset (64 bits).
    pub offset: BV,
    /// Values of the enclosing loops' induction variables.
    pub loop_vals: Vec<(VarId, BV)>,
    /// The value a store writes (none for loads and atomics).
    pub stored: Option<Val>,
    /// When the offset is `base + (64-bit)index * size` (an element of the access's own size):
    /// the index, and whether it is sign-extended. Two such accesses with the same base term
    /// overlap exactly when their extended indices are equal (the 64-bit offsets then differ by
    /// a non-zero multiple of the size smaller than 2^34 for a 32-bit index, also when one of
    /// them wraps; below 2^63 for a 64-bit index under the launch's index bound, which the
    /// access's facts state).
    pub index: Option<(BV, bool)>,
    /// The base of `index`; `None` for 0.
    pub base: Option<BV>,
}

/// The result of walking a kernel as one thread.
#[derive(Default)]
pub(crate) struct Walk {
    /// Accesses by (statement label, op index).
    pub sites: HashMap<(Label, usize), SiteTerms>,
    /// The iteration counter of every loop (32 bits).
    pub iters: HashMap<Label, BV>,
    /// Every loop: what holds when its summarised iteration is the first besides the counter
    /// being 0 (the values it changes are still those of the loop's entry).
    pub first: HashMap<Label, Bool>,
    /// Loops left only by their test: the summarised iteration is the last (the test fails
    /// after it). Missing when the walk cannot say (`break`, `return`, a test on values the
    /// iteration counter does not determine).
    pub last: HashMap<Label, Bool>,
    /// The value of every `if` and loop condition, with the point where it is evaluated (for a
    /// loop: at the head of the summarised iteration).
    pub conds: HashMap<Label, (PointTerms, Bool)>,
    /// `for`/`while` loops without header statements: the thread, if it reaches the loop, finds
    /// its first test false.
    pub skipped: HashMap<Label, Bool>,
    /// Products of two non-constant integers, by product term (see [`Product`]).
    pub products: HashMap<BV, Product>,
    /// Values returned by increments of counters (see `sdv::counters`).
    pub counter_reads: Vec<CounterRead>,
    /// The additive induction variables of every loop at its summarised iteration.
    pub strides: Vec<Stride>,
    /// Results of butterfly reductions two threads of one lane group share.
    pub group_reads: Vec<GroupRead>,
}

/// A value one atomic increment of a counter returned to the walking thread.
#[derive(Clone, Debug)]
pub(crate) struct CounterRead {
    /// The counter array.
    pub array: ArrayId,
    /// Byte offset of the incremented element.
    pub offset: BV,
    /// The thread executes the increment iff this holds.
    pub ctrl: Bool,
    /// The value it returned.
    pub value: BV,
}

/// The value an [`Expr::GroupValue`] gave the walking thread, where the walk may pair it with
/// the other thread's: both threads in the same iterations, the statement warp-uniform.
#[derive(Clone, Debug)]
pub(crate) struct GroupRead {
    /// Which evaluation (the walk's unknown counter: both threads' walks count alike).
    pub id: u32,
    /// The thread's lane group (64 bits).
    pub group: BV,
    /// The thread executes the statement and every lane of its group exists.
    pub ok: Bool,
    /// The value it got.
    pub value: BV,
}

/// One store of the walking thread to a local array.
#[derive(Clone, Debug)]
pub(crate) struct LocalStore {
    /// It ran iff this holds.
    pub ctrl: Bool,
    /// The element's index (64 bits), when the offset is `index * size`.
    pub index: Option<BV>,
    /// Bytes stored.
    pub size: u32,
    /// The value stored.
    pub value: Val,
}

/// `p = x * y` in `x`'s width, signed or unsigned.
#[derive(Clone, Debug)]
pub(crate) struct Product {
    /// First operand.
    pub x: BV,
    /// Second operand.
    pub y: BV,
    /// Signed multiplication (overflow is undefined behaviour).
    pub signed: bool,
    /// A loop's closed form `r * step`: abstracted like the others, but no digit of a
    /// mixed-radix offset (the stride lemmas relate its counters; a radix lemma's unsigned
    /// no-overflow premise would cost a multiplier circuit).
    pub counter: bool,
}

impl Product {
    /// When `self` and `other` have an operand in common (multiplication commutes): their
    /// other operands and the common one.
    pub fn shared_operand<'p>(&'p self, other: &'p Product) -> Option<(&'p BV, &'p BV, &'p BV)> {
        if self.y == other.y {
            Some((&self.x, &other.x, &self.y))
        } else if self.x == other.x {
            Some((&self.y, &other.y, &self.x))
        } else if self.x == other.y {
            Some((&self.y, &other.x, &self.x))
        } else if self.y == other.x {
            Some((&self.x, &other.y, &self.y))
        } else {
            None
        }
    }
}

/// How much a walk computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Detail {
    /// Conditions and loops, without access sites (what uniformity and branch decisions use).
    Conditions,
    /// Also every access site with its offset. A variable whose value reaches no address,
    /// condition, assumption or barrier operand (see `Uniformity::steering_vars`) gets a
    /// fresh unknown at each assignment, and stored values are not computed: every query but
    /// "can two stores write different values" needs no more (a hash's rounds cost nothing).
    Accesses,
    /// Also every assigned and stored value.
    Stores,
}

impl Val {
    /// As a boolean (`!= 0` for bit-vectors).
    pub fn to_bool(&self) -> Bool {
        match self {
            Val::B(b) => b.clone(),
            Val::Bv(x) => x.eq(numeral(0, x.get_size())).not(),
        }
    }
}

/// An additive induction variable at the head of a loop's summarised iteration:
/// `val = init + count * step`, exactly when `fits` holds (the walk's no-wrap fact). Two threads
/// whose entry values differ by less than the step and whose values are equal are in the same
/// iteration: the lemma that makes grid-, block- and warp-stride loops easy (see
/// `query::stride_lemmas`).
#[derive(Clone, Debug)]
pub(crate) struct Stride {
    /// The loop.
    pub lp: Label,
    /// The variable.
    pub var: VarId,
    /// Its value at the summarised iteration (the variable's width).
    pub val: BV,
    /// The iteration counter (32 bits).
    pub count: BV,
    /// The entry value, extended to the exact sum's width.
    pub init: BV,
    /// The step added per iteration (negated for `-=`), extended likewise.
    pub step: BV,
    /// `val` equals `init + count * step` without wrap-around.
    pub fits: Bool,
}
