//! Symbolic execution of one thread over the structured IR, producing Z3 terms.
//!
//! One walk visits every statement once. A loop is summarised by one "arbitrary iteration": the
//! variables it modifies are fresh at its head (and again at its exit), and its guard is part of
//! the control predicate of its body. For every access the walk records the thread's control
//! predicate (if conditions, loop guards, break/continue/return), the facts known there (assumes,
//! loop exit conditions) and the byte offset. Two walks (one per thread) share the names of
//! uniform values: parameters, geometry, and the head values of uniform loop variables of the
//! loops listed as shared (both threads in the same iteration of them).

use super::induction::{exit_tests, guarded_inductions, inductions, Update};
use super::levels::Uniformity;
use super::pow2;
use super::syntax::{has_jump, has_return, modified_vars};
use super::threads::{Geometry, ThreadVars};
use crate::ir::*;
use crate::smt::{mask, numeral, numeral_i, resize};
use std::collections::{BTreeMap, HashMap, HashSet};
use z3::ast::{Ast, Bool, BV};

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
    /// a non-zero multiple of the size smaller than 2^34, also when one of them wraps).
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
    /// Values returned by increments of counters (see [`super::counters`]).
    pub counter_reads: Vec<CounterRead>,
    /// The additive induction variables of every loop at its summarised iteration.
    pub strides: Vec<Stride>,
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

/// `p = x * y` in `x`'s width, signed or unsigned.
#[derive(Clone, Debug)]
pub(crate) struct Product {
    /// First operand.
    pub x: BV,
    /// Second operand.
    pub y: BV,
    /// Signed multiplication (overflow is undefined behaviour).
    pub signed: bool,
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

struct Frame {
    shared: bool,
    var: Option<VarId>,
}

/// How much a walk computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Detail {
    /// Conditions and loops, without access sites (what uniformity and branch decisions use).
    Conditions,
    /// Also every access site with its offset. A variable whose value reaches no address,
    /// condition, assumption or barrier operand (see [`Uniformity::steering_vars`]) gets a
    /// fresh unknown at each assignment, and stored values are not computed: every query but
    /// "can two stores write different values" needs no more (a hash's rounds cost nothing).
    Accesses,
    /// Also every assigned and stored value.
    Stores,
}

/// Walks `k` as thread `th`. `unif` tells which variables are non-uniform and which reads give
/// every thread the same value; `shared` holds the loops in whose current iteration both
/// threads of the query are.
pub(crate) fn walk(
    k: &Kernel,
    unif: &Uniformity,
    geom: &Geometry,
    th: &ThreadVars,
    shared: &HashSet<Label>,
    detail: Detail,
) -> Walk {
    walk_with_params(k, &k.launch.params, unif, geom, th, shared, detail)
}

/// [`walk`] with the scalar parameters given the values `params` (the others unknown) instead
/// of the launch configuration's.
pub(crate) fn walk_with_params(
    k: &Kernel,
    params: &BTreeMap<String, i64>,
    unif: &Uniformity,
    geom: &Geometry,
    th: &ThreadVars,
    shared: &HashSet<Label>,
    detail: Detail,
) -> Walk {
    let mut w = Walker {
        detail,
        k,
        params,
        nu: unif.nu_vars(),
        uniform_reads: unif.uniform_reads(),
        steering: unif.steering_vars(),
        geom,
        th,
        shared,
        env: HashMap::new(),
        ctrl: Bool::from_bool(true),
        facts: Bool::from_bool(true),
        frames: Vec::new(),
        counters: super::counters::counter_arrays(k),
        counter: 0,
        ub: Vec::new(),
        cond_depth: 0,
        pow2: HashMap::new(),
        out: Walk::default(),
    };
    // Parameters get their values up front: one first read inside a branch would otherwise
    // leave the other branch, at the join, with an arbitrary value for them.
    for v in k.vars.iter().filter(|v| v.kind == VarKind::Param) {
        w.var(v.id);
    }
    w.block(&k.body);
    w.out
}

struct Walker<'a> {
    detail: Detail,
    k: &'a Kernel,
    /// The scalar parameters' known values.
    params: &'a BTreeMap<String, i64>,
    nu: &'a HashSet<VarId>,
    uniform_reads: &'a HashSet<(Label, usize)>,
    steering: &'a HashSet<VarId>,
    geom: &'a Geometry,
    th: &'a ThreadVars,
    shared: &'a HashSet<Label>,
    env: HashMap<VarId, Val>,
    ctrl: Bool,
    facts: Bool,
    frames: Vec<Frame>,
    counters: HashSet<ArrayId>,
    counter: u32,
    /// No-signed-overflow conditions of the expressions evaluated since the last flush.
    ub: Vec<Bool>,
    /// Inside an operand that C may not evaluate (`?:` branches, right of `&&`/`||`).
    cond_depth: u32,
    /// Variables known to hold a power of two or zero: (exponent, the value term it was recorded
    /// with). An entry counts only while the variable still holds that term; see [`pow2`].
    pow2: HashMap<VarId, (BV, BV)>,
    out: Walk,
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

impl<'a> Walker<'a> {
    fn point(&self) -> PointTerms {
        PointTerms {
            ctrl: self.ctrl.clone(),
            facts: self.facts.clone(),
        }
    }

    /// Whether both threads of the query are in the same block and the same iteration of every
    /// enclosing loop: then a block-uniform value is one value for both.
    fn context_shared(&self) -> bool {
        self.th.same_block && self.frames.iter().all(|f| f.shared)
    }

    /// A fresh unknown of type `ty`; shared by both threads when it is a deterministic function
    /// of uniform values in a context where both threads are in the same iterations.
    fn unknown(&mut self, kind: &str, ty: ScalarTy, shareable: bool) -> Val {
        self.counter += 1;
        let name = if shareable && self.context_shared() {
            format!("{kind}{}_s", self.counter)
        } else {
            format!("{kind}{}_t{}", self.counter, self.th.tag)
        };
        match ty {
            ScalarTy::Bool => Val::B(Bool::new_const(name)),
            _ => Val::Bv(BV::new_const(name, ty.width())),
        }
    }

    fn uniform_expr(&self, e: &Expr) -> bool {
        !e.may_differ(&|v| self.nu.contains(&v))
    }

    fn var(&mut self, v: VarId) -> Val {
        if let Some(x) = self.env.get(&v) {
            return x.clone();
        }
        let Some(info) = self.k.vars.get(v.0 as usize) else {
            return self.unknown("bad", ScalarTy::I64, false);
        };
        // A parameter's own value only until the walk forgets an untracked one (see
        // [`Walker::forget`]; parameters are in `env` from the start).
        let val = if info.kind == VarKind::Param && self.tracks(v) {
            match (self.params.get(&info.name), info.ty) {
                (Some(&c), ScalarTy::Int { bits, .. }) => Val::Bv(numeral_i(c, bits as u32)),
                (Some(&c), ScalarTy::Bool) => Val::B(Bool::from_bool(c != 0)),
                (_, ScalarTy::Bool) => Val::B(Bool::new_const(format!("param_{}", info.name))),
                (_, ty) => Val::Bv(BV::new_const(format!("param_{}", info.name), ty.width())),
            }
        } else {
            // Read before any assignment: an arbitrary per-thread value.
            self.unknown("uninit", info.ty, false)
        };
        self.env.insert(v, val.clone());
        val
    }

    /// Converts `v` of type `from` to type `to` with C's conversion rules.
    fn convert(&mut self, v: Val, from: ScalarTy, to: ScalarTy, shareable: bool) -> Val {
        if from == to {
            return v;
        }
        match to {
            ScalarTy::Bool => Val::B(v.to_bool()),
            ScalarTy::Int { bits, .. } => {
                let bits = bits as u32;
                match v {
                    _ if from == ScalarTy::Opaque => self.unknown("cast", to, shareable),
                    Val::B(b) => Val::Bv(b.ite(&numeral(1, bits), &numeral(0, bits))),
                    Val::Bv(x) => Val::Bv(resize_folded(&x, bits, from.is_signed())),
                }
            }
            ScalarTy::Opaque => match v {
                Val::B(b) => Val::Bv(b.ite(&numeral(1, 64), &numeral(0, 64))),
                Val::Bv(x) => Val::Bv(resize_folded(&x, 64, from.is_signed())),
            },
        }
    }

    fn eval_as(&mut self, e: &Expr, to: ScalarTy) -> Val {
        let v = self.eval(e);
        let from = e.ty(self.k);
        let sh = self.uniform_expr(e);
        self.convert(v, from, to, sh)
    }

    fn eval_bool(&mut self, e: &Expr) -> Bool {
        self.eval(e).to_bool()
    }

    fn eval(&mut self, e: &Expr) -> Val {
        match e {
            Expr::Const(v, ty) => match ty {
                ScalarTy::Bool => Val::B(Bool::from_bool(*v != 0)),
                _ => Val::Bv(numeral_i(*v, ty.width())),
            },
            Expr::Builtin(b) => Val::Bv(match b {
                Builtin::ThreadIdx(d) => self.th.tid[d.index()].clone(),
                Builtin::BlockIdx(d) => self.th.bid[d.index()].clone(),
                Builtin::BlockDim(d) => self.geom.bdim[d.index()].clone(),
                Builtin::GridDim(d) => self.geom.gdim[d.index()].clone(),
                Builtin::WarpSize => numeral(32, 32),
            }),
            Expr::Var(v) => self.var(*v),
            Expr::Un(op, ty, a) => {
                let sh = self.uniform_expr(e);
                match (op, ty) {
                    (UnOp::Not, _) => Val::B(self.eval_bool(a).not()),
                    (_, ScalarTy::Int { .. }) => {
                        let Val::Bv(x) = self.eval_as(a, *ty) else {
                            unreachable!("int conversion")
                        };
                        Val::Bv(if *op == UnOp::Neg { x.bvneg() } else { x.bvnot() })
                    }
                    (_, ScalarTy::Bool) => Val::B(self.eval_bool(a).not()),
                    _ => self.unknown("op", *ty, sh),
                }
            }
            Expr::Bin(op, ty, a, b) => self.eval_bin(e, *op, *ty, a, b),
            Expr::Cast(ty, a) => self.eval_as(a, *ty),
            Expr::Select(c, a, b) => {
                let c = self.eval_bool(c);
                let ta = a.ty(self.k);
                self.cond_depth += 1;
                let x = self.eval(a);
                let y = self.eval_as(b, ta);
                self.cond_depth -= 1;
                match (x, y) {
                    (Val::Bv(x), Val::Bv(y)) if x.get_size() == y.get_size() => Val::Bv(c.ite(&x, &y)),
                    (Val::B(x), Val::B(y)) => Val::B(c.ite(&x, &y)),
                    _ => {
                        let sh = self.uniform_expr(e);
                        self.unknown("sel", ta, sh)
                    }
                }
            }
            Expr::Opaque(ty, _) => {
                let sh = self.uniform_expr(e);
                self.unknown("opq", *ty, sh)
            }
            Expr::Unknown(ty) => self.unknown("unk", *ty, false),
            Expr::Vote(kind, pred) => self.vote(*kind, pred),
        }
    }

    /// A block-wide vote: one value for both threads where they are in the same iterations
    /// (a fresh one for each thread otherwise), with what the thread's own predicate says of it.
    fn vote(&mut self, kind: VoteKind, pred: &Expr) -> Val {
        let p = self.eval_bool(pred);
        let Val::Bv(r) = self.unknown("vote", ScalarTy::I32, true) else {
            unreachable!("an int unknown")
        };
        let zero = numeral(0, 32);
        let nonzero = r.eq(&zero).not();
        let fact = match kind {
            VoteKind::Or => Bool::and(&[p.implies(&nonzero), r.bvule(numeral(1, 32))]),
            VoteKind::And => Bool::and(&[nonzero.implies(&p), r.bvule(numeral(1, 32))]),
            VoteKind::Count => {
                let [x, y, z] = &self.geom.bdim;
                let threads = x.bvmul(y).bvmul(z);
                Bool::and(&[p.implies(&nonzero), r.bvule(&threads)])
            }
        };
        self.facts = Bool::and(&[self.facts.clone(), self.ctrl.implies(&fact)]);
        Val::Bv(r)
    }

    fn eval_bin(&mut self, e: &Expr, op: BinOp, ty: ScalarTy, a: &Expr, b: &Expr) -> Val {
        use BinOp::*;
        let sh = self.uniform_expr(e);
        if matches!(op, And | Or) {
            let x = self.eval_bool(a);
            self.cond_depth += 1;
            let y = self.eval_bool(b);
            self.cond_depth -= 1;
            return Val::B(if op == And {
                Bool::and(&[x, y])
            } else {
                Bool::or(&[x, y])
            });
        }
        let result_ty = if op.is_predicate() { ScalarTy::Bool } else { ty };
        match ty {
            ScalarTy::Opaque => self.unknown("op", result_ty, sh),
            ScalarTy::Bool => {
                let (x, y) = (self.eval_bool(a), self.eval_bool(b));
                match op {
                    Eq => Val::B(x.eq(&y)),
                    Ne => Val::B(x.eq(&y).not()),
                    BitAnd => Val::B(Bool::and(&[x, y])),
                    BitOr => Val::B(Bool::or(&[x, y])),
                    BitXor => Val::B(x.xor(&y)),
                    _ => self.unknown("op", result_ty, sh),
                }
            }
            ScalarTy::Int { signed: s, .. } => {
                if op == Mul {
                    if let Some(v) = self.pow2_mul(a, b, ty, s) {
                        return v;
                    }
                }
                let (Val::Bv(x), Val::Bv(y)) = (self.eval_as(a, ty), self.eval_as(b, ty)) else {
                    unreachable!("int conversion yields bit-vectors")
                };
                let bv = |r: BV| Val::Bv(r);
                let pb = |r: Bool| Val::B(r);
                if op == Mul && x.as_u64().is_none() && y.as_u64().is_none() {
                    let p = x.bvmul(&y);
                    self.out.products.insert(
                        p,
                        Product {
                            x: x.clone(),
                            y: y.clone(),
                            signed: s,
                        },
                    );
                }
                if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
                    if let Some(v) = fold_numerals(op, a, b, x.get_size(), s) {
                        return v;
                    }
                }
                let constant = x.as_u64().is_some() && y.as_u64().is_some();
                let r = match op {
                    Add | Sub | Mul if s && self.cond_depth == 0 => {
                        self.no_signed_overflow(op, &x, &y);
                        self.eval_bin_bits(op, &x, &y)
                    }
                    Add | Sub | Mul => self.eval_bin_bits(op, &x, &y),
                    Div | Rem if s && pow2_divisor(&y).is_some() => bv(signed_pow2_div_rem(op, &x, &y)),
                    Div if s => bv(x.bvsdiv(&y)),
                    Div => bv(x.bvudiv(&y)),
                    Rem if s => bv(x.bvsrem(&y)),
                    Rem => bv(x.bvurem(&y)),
                    Shl => bv(x.bvshl(&y)),
                    Shr if s => bv(x.bvashr(&y)),
                    Shr => bv(x.bvlshr(&y)),
                    BitAnd => bv(x.bvand(&y)),
                    BitOr => bv(x.bvor(&y)),
                    BitXor => bv(x.bvxor(&y)),
                    Lt if s => pb(x.bvslt(&y)),
                    Lt => pb(x.bvult(&y)),
                    Le if s => pb(x.bvsle(&y)),
                    Le => pb(x.bvule(&y)),
                    Gt if s => pb(x.bvsgt(&y)),
                    Gt => pb(x.bvugt(&y)),
                    Ge if s => pb(x.bvsge(&y)),
                    Ge => pb(x.bvuge(&y)),
                    Eq => pb(x.eq(&y)),
                    Ne => pb(x.eq(&y).not()),
                    And | Or => unreachable!("handled above"),
                };
                // Folded (`64 * 8` from a macro): Z3 builds `bvmul` of two numerals as is, and a
                // product of two numerals would look like a product of unknowns to the queries.
                match r {
                    Val::Bv(v) if constant => Val::Bv(v.simplify()),
                    Val::B(b) if constant => Val::B(b.simplify()),
                    r => r,
                }
            }
        }
    }

    /// Signed overflow is undefined behaviour in C: executions that reach a race do not have it.
    fn no_signed_overflow(&mut self, op: BinOp, x: &BV, y: &BV) {
        let conds = match op {
            BinOp::Add => [x.bvadd_no_overflow(y, true), x.bvadd_no_underflow(y)],
            BinOp::Sub => [x.bvsub_no_overflow(y), x.bvsub_no_underflow(y, true)],
            _ => [crate::smt::signed_mul_facts(x, y), Bool::from_bool(true)],
        };
        self.ub.extend(conds);
    }

    fn eval_bin_bits(&self, op: BinOp, x: &BV, y: &BV) -> Val {
        Val::Bv(match op {
            BinOp::Add => x.bvadd(y),
            BinOp::Sub => x.bvsub(y),
            _ => x.bvmul(y),
        })
    }

    /// Records the pending no-overflow conditions as facts of the current point.
    fn flush_ub(&mut self) {
        if !self.ub.is_empty() {
            let all = Bool::and(&std::mem::take(&mut self.ub));
            self.facts = Bool::and(&[self.facts.clone(), self.ctrl.implies(&all)]);
        }
    }

    fn assign(&mut self, v: VarId, e: &Expr) {
        let ty = self.k.vars.get(v.0 as usize).map(|x| x.ty).unwrap_or(ScalarTy::Opaque);
        if !self.tracks(v) {
            self.forget(v);
            return;
        }
        let val = self.eval_as(e, ty);
        if self.steering.contains(&v) {
            self.flush_ub();
        } else {
            // A value that reaches no address or condition: its no-overflow conditions only
            // narrow executions no query asks about (and would make every later query carry
            // the whole computation, such as a hash's rounds).
            self.ub.clear();
        }
        if let (Some(exp), Val::Bv(x)) = (self.pow2_source(e, ty), &val) {
            self.pow2.insert(v, (exp, x.clone()));
        }
        self.env.insert(v, val);
    }

    /// Gives `v` an arbitrary value of its own, made only if something reads it (see
    /// [`Walker::var`]): values the walk does not track are rarely read, and a long kernel has
    /// thousands of their assignments. Never one unknown per variable: two assignments with
    /// different values would then have to agree, and a real execution could be lost.
    fn forget(&mut self, v: VarId) {
        // Names stay as they were with an unknown made here (both threads' walks count alike).
        self.counter += 1;
        self.env.remove(&v);
    }

    /// Whether the walk computes `v`'s values (see [`Detail`]).
    fn tracks(&self, v: VarId) -> bool {
        self.detail == Detail::Stores || self.steering.contains(&v)
    }

    /// The exponent of `v` while it holds the power of two recorded for it.
    fn pow2_exp(&self, v: VarId) -> Option<BV> {
        let (exp, val) = self.pow2.get(&v)?;
        match self.env.get(&v) {
            Some(Val::Bv(x)) if x == val => Some(exp.clone()),
            _ => None,
        }
    }

    /// The exponent of the value `e` assigned to a variable of type `ty`: a constant power of
    /// two (or zero), or a copy of a variable of the same type that holds one.
    fn pow2_source(&self, e: &Expr, ty: ScalarTy) -> Option<BV> {
        let ScalarTy::Int { bits, .. } = ty else { return None };
        match e {
            Expr::Const(c, _) => pow2::const_exponent(*c, bits as u32, pow2::cap(ty)),
            Expr::Var(w) if self.k.vars.get(w.0 as usize).map(|x| x.ty) == Some(ty) => self.pow2_exp(*w),
            _ => None,
        }
    }

    /// `a * b` in type `ty` when one operand is a variable (possibly widened or re-signed) that
    /// holds 2^e or zero: the other operand shifted left by e. A shift costs the solver far
    /// less than a multiplier circuit (`offset * (2 * tid + 1)` in scans and reductions).
    fn pow2_mul(&mut self, a: &Expr, b: &Expr, ty: ScalarTy, signed: bool) -> Option<Val> {
        let w = ty.width();
        let operand = |x: &Expr| -> Option<(BV, u32)> {
            let v = match x {
                Expr::Var(v) => *v,
                Expr::Cast(_, inner) => match &**inner {
                    Expr::Var(v) => *v,
                    _ => return None,
                },
                _ => return None,
            };
            let src = self.k.vars.get(v.0 as usize)?.ty.width();
            (src <= w).then_some(())?;
            Some((self.pow2_exp(v)?, src))
        };
        let ((exp, src), other) = match (operand(b), operand(a)) {
            (Some(p), _) => (p, a),
            (None, Some(p)) => (p, b),
            (None, None) => return None,
        };
        let Val::Bv(x) = self.eval_as(other, ty) else {
            return None;
        };
        let amount = resize(&exp, w, false);
        let shifted = x.bvshl(&amount);
        // Zero is recorded as exponent `src`: a shift by it in a wider type would not give 0.
        let is_zero = exp.eq(numeral(src as u64, 32));
        let product = if src < w {
            is_zero.ite(&numeral(0, w), &shifted)
        } else {
            shifted.clone()
        };
        if signed && self.cond_depth == 0 {
            // No signed overflow: shifting back gives the operand.
            self.ub.push(Bool::or(&[is_zero, shifted.bvashr(&amount).eq(&x)]));
        }
        Some(Val::Bv(product))
    }

    fn fresh_into(&mut self, v: VarId, kind: &str) {
        if !self.tracks(v) {
            self.forget(v);
            return;
        }
        let ty = self.k.vars.get(v.0 as usize).map(|x| x.ty).unwrap_or(ScalarTy::Opaque);
        let val = self.unknown(kind, ty, false);
        self.env.insert(v, val);
    }

    /// Records the value a counter increment just gave `dst`.
    fn counter_read(&mut self, label: Label, op: usize, array: ArrayId, dst: VarId) {
        let (Some(site), Some(Val::Bv(value))) = (self.out.sites.get(&(label, op)), self.env.get(&dst)) else {
            return;
        };
        self.out.counter_reads.push(CounterRead {
            array,
            offset: site.offset.clone(),
            ctrl: site.at.ctrl.clone(),
            value: value.clone(),
        });
    }

    fn site(&mut self, label: Label, op: usize, acc: &Access, stored: Option<&Expr>) {
        if self.detail == Detail::Conditions {
            return;
        }
        // `base + x * size`: an element of a row (`dst = out + row * width; dst[i]`), or of an
        // array passed by pointer to an inlined function (a base that evaluates to 0).
        let scaled = match &acc.offset {
            Expr::Bin(BinOp::Add, ScalarTy::Int { bits: 64, .. }, a, b) => [(a, b), (b, a)]
                .into_iter()
                .find_map(|(base, rest)| Some((Some(&**base), scaled_index(self.k, rest, acc.size)?))),
            offset => scaled_index(self.k, offset, acc.size).map(|x| (None, x)),
        };
        let (offset, index, base) = match scaled {
            Some((base, (x, ty))) => {
                let base = base.and_then(|b| match self.eval_as(b, ScalarTy::I64) {
                    Val::Bv(v) if v.as_u64() == Some(0) => None,
                    Val::Bv(v) => Some(v),
                    Val::B(_) => unreachable!("int conversion yields bit-vectors"),
                });
                // Evaluated once, so the index is the very term inside the offset.
                let Val::Bv(i) = self.eval_as(x, ty) else {
                    unreachable!("int conversion yields bit-vectors")
                };
                let s = ty.is_signed();
                let scaled = resize(&i, 64, s).bvmul(numeral(acc.size as u64, 64));
                let off = base.as_ref().map_or_else(|| scaled.clone(), |b| b.bvadd(&scaled));
                (off, Some((i, s)), base)
            }
            None => {
                let Val::Bv(o) = self.eval_as(&acc.offset, ScalarTy::I64) else {
                    unreachable!("int conversion yields bit-vectors")
                };
                (o, None, None)
            }
        };
        // The offset's no-overflow conditions concern this access only: keeping them out of
        // the facts of later points keeps later queries small.
        let facts0 = self.facts.clone();
        self.flush_ub();
        let at = self.point();
        self.facts = facts0;
        let mut loop_vals = Vec::new();
        let vars: Vec<VarId> = self.frames.iter().filter_map(|f| f.var).collect();
        for v in vars {
            if let Val::Bv(x) = self.var(v) {
                loop_vals.push((v, x));
            }
        }
        // The stored value's own undefined-behaviour conditions are dropped (fewer facts only
        // widen what a query considers).
        let stored = stored.filter(|_| self.detail == Detail::Stores).map(|e| self.eval(e));
        self.ub.clear();
        self.out.sites.insert(
            (label, op),
            SiteTerms {
                at,
                offset,
                loop_vals,
                stored,
                index,
                base,
            },
        );
    }

    fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Basic(ops) => {
                for (i, op) in ops.iter().enumerate() {
                    match op {
                        Op::Assign(v, e) => self.assign(*v, e),
                        Op::Read(Some(d), acc) if self.uniform_reads.contains(&(s.label, i)) => {
                            self.site(s.label, i, acc, None);
                            // Every thread reads the same value here: shared by both threads
                            // when they are in the same iterations.
                            if self.tracks(*d) {
                                let ty = self.k.vars.get(d.0 as usize).map_or(ScalarTy::Opaque, |x| x.ty);
                                let val = self.unknown("rd", ty, true);
                                self.env.insert(*d, val);
                            } else {
                                self.forget(*d);
                            }
                        }
                        Op::Read(dst, acc) | Op::Atomic(dst, acc, _) => {
                            self.site(s.label, i, acc, None);
                            if let Some(d) = dst {
                                self.fresh_into(*d, "rd");
                                if matches!(op, Op::Atomic(..)) && self.counters.contains(&acc.array) {
                                    self.counter_read(s.label, i, acc.array, *d);
                                }
                            }
                        }
                        Op::Write(acc, e) => self.site(s.label, i, acc, Some(e)),
                        // Async-pipeline ops stop the SDV checker before the walk (`sdv::check`).
                        Op::Mbarrier(..) | Op::AsyncCopy(_) | Op::AsyncGroup(_) | Op::ProxyFence(_) => {}
                    }
                }
            }
            StmtKind::Assume(e) => {
                let c = self.eval_bool(e);
                self.flush_ub();
                self.facts = Bool::and(&[self.facts.clone(), self.ctrl.implies(&c)]);
            }
            StmtKind::Barrier(..) => {}
            StmtKind::Break | StmtKind::Continue | StmtKind::Return => {
                self.ctrl = Bool::from_bool(false);
            }
            StmtKind::If {
                cond,
                then_blk,
                else_blk,
            } => self.if_(s.label, cond, then_blk, else_blk),
            StmtKind::Loop(lp) => self.loop_(s.label, lp),
        }
    }

    fn if_(&mut self, label: Label, cond: &Expr, then_blk: &Block, else_blk: &Block) {
        let c = self.eval_bool(cond);
        self.flush_ub();
        self.out.conds.insert(label, (self.point(), c.clone()));
        let env0 = self.env.clone();
        let ctrl0 = self.ctrl.clone();
        let then_ctrl = Bool::and(&[ctrl0.clone(), c.clone()]);
        let else_ctrl = Bool::and(&[ctrl0.clone(), c.not()]);
        self.ctrl = then_ctrl.clone();
        self.block(then_blk);
        let env_t = std::mem::replace(&mut self.env, env0);
        let ctrl_t = std::mem::replace(&mut self.ctrl, else_ctrl.clone());
        self.block(else_blk);
        let env_e = std::mem::take(&mut self.env);
        let ctrl_e = self.ctrl.clone();
        // Without a jump in either branch the predicate after the `if` is the one before it.
        self.ctrl = if ctrl_t == then_ctrl && ctrl_e == else_ctrl {
            ctrl0
        } else {
            Bool::or(&[ctrl_t, ctrl_e])
        };
        self.env = self.merge(&c, env_t, env_e);
    }

    fn merge(&mut self, c: &Bool, t: HashMap<VarId, Val>, mut e: HashMap<VarId, Val>) -> HashMap<VarId, Val> {
        let mut out = HashMap::new();
        for (v, tv) in t {
            let ev = match e.remove(&v) {
                Some(x) => x,
                None => self.uninit(v),
            };
            out.insert(v, self.ite(c, tv, ev));
        }
        for (v, ev) in e {
            let tv = self.uninit(v);
            out.insert(v, self.ite(c, tv, ev));
        }
        out
    }

    fn uninit(&mut self, v: VarId) -> Val {
        let ty = self.k.vars.get(v.0 as usize).map(|x| x.ty).unwrap_or(ScalarTy::Opaque);
        self.unknown("uninit", ty, false)
    }

    fn ite(&mut self, c: &Bool, t: Val, e: Val) -> Val {
        match (t, e) {
            (Val::Bv(x), Val::Bv(y)) if x.get_size() == y.get_size() => {
                if x == y {
                    Val::Bv(x)
                } else {
                    Val::Bv(c.ite(&x, &y))
                }
            }
            (Val::B(x), Val::B(y)) => {
                if x == y {
                    Val::B(x)
                } else {
                    Val::B(c.ite(&x, &y))
                }
            }
            (x, _) => x,
        }
    }

    fn havoc(&mut self, l: Label, vars: &[VarId], prefix: &str, shared: bool) {
        for &v in vars {
            let ty = self.k.vars.get(v.0 as usize).map(|x| x.ty).unwrap_or(ScalarTy::Opaque);
            let name = if shared && !self.nu.contains(&v) {
                format!("{prefix}{}_{}_s", l.0, v.0)
            } else {
                format!("{prefix}{}_{}_t{}", l.0, v.0, self.th.tag)
            };
            let val = match ty {
                ScalarTy::Bool => Val::B(Bool::new_const(name)),
                _ => Val::Bv(BV::new_const(name, ty.width())),
            };
            self.env.insert(v, val);
        }
    }

    /// Walks a loop as one summarised iteration (see the module documentation).
    fn loop_(&mut self, label: Label, lp: &Loop) {
        let mut lw = self.loop_entry(label, lp);
        self.frames.push(Frame {
            shared: lw.shared,
            var: lp.var,
        });
        self.loop_head_values(&lw);
        let leaves_only_by_test = !has_jump(&lp.body, &|k| matches!(k, StmtKind::Break)) && !has_return(&lp.body);
        let head_test = self.loop_head_test(&mut lw, lp, leaves_only_by_test);
        self.loop_iteration(&lw, lp, leaves_only_by_test);
        self.frames.pop();
        self.loop_exit(&lw, lp, head_test);
    }

    /// What a loop starts from: the entry state, its first test, its iteration counter, the
    /// closed forms of its induction variables at the counter and (for the values after the
    /// loop) at the number of iterations run.
    fn loop_entry<'l>(&mut self, label: Label, lp: &'l Loop) -> LoopWalk<'l> {
        let entry_ctrl = self.ctrl.clone();
        let entry_facts = self.facts.clone();
        // Variables the walk does not track keep the unknowns their assignments give them.
        let mut mods = modified_vars(&lp.header, &lp.body, &lp.step);
        mods.retain(|&v| self.tracks(v));
        // The first test on the entry values: when it fails nothing in the loop runs.
        let first_test = (lp.kind != LoopKind::DoWhile && lp.header.is_empty()).then(|| {
            let c = self.eval_bool(&lp.cond);
            self.ub.clear();
            c
        });
        if let Some(c) = &first_test {
            self.out.skipped.insert(label, entry_ctrl.implies(c.not()));
        }
        let entry_env: Vec<(VarId, Val)> = mods
            .iter()
            .filter_map(|v| self.env.get(v).map(|x| (*v, x.clone())))
            .collect();
        let shared = self.shared.contains(&label) && self.context_shared();
        // Lock step: both threads are in the same iteration r of a shared loop.
        let iter = BV::new_const(
            if shared {
                format!("it{}_s", label.0)
            } else {
                format!("it{}_t{}", label.0, self.th.tag)
            },
            32,
        );
        self.out.iters.insert(label, iter.clone());
        let mut ind = inductions(self.k, lp);
        ind.retain(|(v, _)| self.tracks(*v));
        let mut closed = Vec::new();
        let mut no_wrap = Vec::new();
        let mut limits = Vec::new();
        for (v, upd) in &ind {
            if let Some(c) = self.closed_form(*v, upd, &iter) {
                if let (Some((init, step)), Some(fits)) = (&c.additive, &c.no_wrap) {
                    self.out.strides.push(Stride {
                        lp: label,
                        var: *v,
                        val: c.val.clone(),
                        count: iter.clone(),
                        init: init.clone(),
                        step: step.clone(),
                        fits: fits.clone(),
                    });
                }
                no_wrap.extend(c.no_wrap.clone());
                closed.push((*v, c));
                limits.extend(self.shift_limit(*v, upd));
            }
        }
        let guarded = self.guarded_groups(label, lp, &iter, shared);
        // The number of iterations run, for the induction variables' values after the loop:
        // shared when the test is uniform and both threads reach the loop together.
        let exit_count = BV::new_const(
            if self.context_shared() && self.uniform_expr(&lp.cond) {
                format!("ex{}_s", label.0)
            } else {
                format!("ex{}_t{}", label.0, self.th.tag)
            },
            32,
        );
        let mut exit_vals = Vec::new();
        for (v, upd) in &ind {
            if closed.iter().any(|(w, _)| w == v) {
                if let Some(c) = self.closed_form(*v, upd, &exit_count) {
                    exit_vals.push((*v, c));
                }
            }
        }
        LoopWalk {
            label,
            entry_ctrl,
            entry_facts,
            mods,
            first_test,
            entry_env,
            shared,
            iter,
            closed,
            guarded,
            no_wrap,
            limits,
            exit_count,
            exit_vals,
        }
    }

    /// Fresh head values for the modified variables without a closed form, equal to the entry
    /// values in iteration 0 (said only for a thread's own loop: shared head values stand for
    /// both threads).
    fn loop_head_values(&mut self, lw: &LoopWalk) {
        let havocked: Vec<VarId> = lw
            .mods
            .iter()
            .copied()
            .filter(|v| !lw.closed.iter().any(|(w, _)| w == v))
            .filter(|v| !lw.guarded.iter().any(|g| g.vals.iter().any(|(w, _)| w == v)))
            .collect();
        let entry_vals: Vec<(VarId, Val)> = havocked
            .iter()
            .filter_map(|v| self.env.get(v).map(|x| (*v, x.clone())))
            .collect();
        self.havoc(lw.label, &havocked, "h", lw.shared);
        let mut first = Vec::new();
        if !lw.shared {
            for (v, entry) in &entry_vals {
                match (self.env.get(v), entry) {
                    (Some(Val::Bv(h)), Val::Bv(e)) if h.get_size() == e.get_size() => first.push(h.eq(e)),
                    (Some(Val::B(h)), Val::B(e)) => first.push(h.eq(e)),
                    _ => {}
                }
            }
        }
        self.out.first.insert(lw.label, Bool::and(&first));
    }

    /// Puts the closed forms in the environment and, for a `for`/`while` loop, walks the header
    /// and the test at the head of the summarised iteration. Returns that test when the
    /// iteration counter alone determines it and the loop is left only by it.
    fn loop_head_test(&mut self, lw: &mut LoopWalk, lp: &Loop, leaves_only_by_test: bool) -> Option<Bool> {
        // The test at the next iteration's head is the same formula with the counter one up
        // when nothing but induction variables changes between heads.
        let closed_vars: Vec<VarId> = lw.closed.iter().map(|(v, _)| *v).collect();
        let mut test_determined = lp.header.is_empty() && lp.kind != LoopKind::DoWhile;
        lp.cond
            .for_each_var(&mut |v| test_determined &= closed_vars.contains(&v) || !lw.mods.contains(&v));
        let mut head_test: Option<Bool> = None;
        for (v, c) in &lw.closed {
            self.put_closed(*v, c);
        }
        for g in &lw.guarded {
            lw.no_wrap.extend(self.guarded_facts(g, &lw.iter));
        }
        let stayed = self.stayed_facts(lw, lp);
        lw.no_wrap.extend(stayed);
        let iter = &lw.iter;
        if lp.kind != LoopKind::DoWhile {
            for h in &lp.header {
                self.stmt(h);
            }
            let c = self.eval_bool(&lp.cond);
            self.flush_ub();
            self.out.conds.insert(lw.label, (self.point(), c.clone()));
            if test_determined && leaves_only_by_test {
                let next = iter.bvadd(numeral(1, 32));
                self.out.last.insert(lw.label, c.substitute(&[(iter, &next)]).not());
                head_test = Some(c.clone());
            }
            let test = test_determined.then_some((&c, iter));
            lw.no_wrap.extend(lw.limits.iter().flat_map(|l| l.facts(iter, test)));
            self.ctrl = Bool::and(&[lw.entry_ctrl.clone(), c]);
        }
        if lp.kind == LoopKind::DoWhile {
            lw.no_wrap.extend(lw.limits.iter().flat_map(|l| l.facts(iter, None)));
        }
        head_test
    }

    /// What the exit tests said in the iteration before the summarised one (with the closed
    /// forms in the environment): reaching iteration r ≥ 1 means iteration r-1 ran each test
    /// and stayed. Only tests on induction variables and values the loop does not change, so
    /// the test's value at r-1 is the same formula with the counter one down (CUB's pass loop
    /// `while (true) { ...; begin_bit += RADIX_BITS; ...; if (begin_bit >= end_bit) break; }`
    /// then runs `begin_bit` below `end_bit`).
    fn stayed_facts(&mut self, lw: &LoopWalk, lp: &Loop) -> Vec<Bool> {
        let mods = modified_vars(&lp.header, &lp.body, &lp.step);
        let prev = lw.iter.bvsub(numeral(1, 32));
        let first = lw.iter.eq(numeral(0, 32));
        let mut out = Vec::new();
        for t in exit_tests(lp) {
            if !t.cond.is_plain() {
                continue;
            }
            // Each variable's value at the test in iteration r-1.
            let mut at_test: Vec<(VarId, Val)> = Vec::new();
            let mut known = true;
            t.cond.for_each_var(&mut |v| {
                if !mods.contains(&v) || at_test.iter().any(|(w, _)| *w == v) {
                    return;
                }
                match lw.closed.iter().find(|(w, _)| *w == v) {
                    // Updated before the test: there it already held the next head's value.
                    Some((_, c)) if t.assigned_before.contains(&v) => at_test.push((v, Val::Bv(c.val.clone()))),
                    // A power of two is also read through its exponent, which stays at r.
                    Some((_, c)) if c.exp.is_none() => {
                        at_test.push((v, Val::Bv(c.val.substitute(&[(&lw.iter, &prev)]))))
                    }
                    _ => known = false,
                }
            });
            if !known {
                continue;
            }
            let saved: Vec<(VarId, Option<Val>)> =
                at_test.into_iter().map(|(v, x)| (v, self.env.insert(v, x))).collect();
            let c = self.eval_bool(t.cond);
            self.ub.clear();
            for (v, old) in saved {
                match old {
                    Some(x) => self.env.insert(v, x),
                    None => self.env.remove(&v),
                };
            }
            let stayed = if t.leaves_when { c.not() } else { c };
            out.push(Bool::or(&[first.clone(), stayed]));
        }
        out
    }

    /// The body and step of the summarised iteration under the no-wrap facts (and, for a
    /// do-while loop, its header and test at the iteration's end).
    fn loop_iteration(&mut self, lw: &LoopWalk, lp: &Loop, leaves_only_by_test: bool) {
        let body_ctrl = self.ctrl.clone();
        if !lw.no_wrap.is_empty() {
            let nw = Bool::and(&lw.no_wrap);
            self.facts = Bool::and(&[self.facts.clone(), body_ctrl.implies(&nw)]);
        }
        self.block(&lp.body);
        if has_jump(&lp.body, &|k| matches!(k, StmtKind::Continue)) {
            // Threads arrive at the step from the end of the body and from `continue`s.
            let mut body_mods = modified_vars(&[], &lp.body, &[]);
            body_mods.retain(|&v| self.tracks(v));
            self.havoc(lw.label, &body_mods, "c", false);
        }
        self.ctrl = body_ctrl;
        for st in &lp.step {
            self.stmt(st);
        }
        if lp.kind == LoopKind::DoWhile {
            for h in &lp.header {
                self.stmt(h);
            }
            let c = self.eval_bool(&lp.cond);
            self.ub.clear();
            if leaves_only_by_test {
                self.out.last.insert(lw.label, c.not());
            }
            self.out.conds.insert(lw.label, (self.point(), c));
        }
    }

    /// The state after the loop: fresh values, shared when both threads are in the same
    /// iteration of every enclosing loop; the entry predicate and facts; what the exit says (the
    /// test failed unless the thread may have left by `break`, the induction variables at the
    /// iteration count, nothing changed when the first test failed).
    fn loop_exit(&mut self, lw: &LoopWalk, lp: &Loop, head_test: Option<Bool>) {
        let outer_shared = self.context_shared();
        self.havoc(lw.label, &lw.mods, "x", outer_shared);
        self.ctrl = lw.entry_ctrl.clone();
        // Facts of the summarised iteration speak about its own fresh values, which nothing
        // after the loop refers to: dropping them keeps later queries small.
        self.facts = lw.entry_facts.clone();
        // A loop left only by its test, with a test the counter determines, ran exactly the
        // iterations before the first failing test: its induction variables leave with their
        // closed form at that count (`stride` after a halving loop), not fresh values.
        let (iter, exit_count) = (&lw.iter, &lw.exit_count);
        let counted_exit = match &head_test {
            Some(c) if !lw.exit_vals.is_empty() => {
                let prev = exit_count.bvsub(numeral(1, 32));
                let mut facts = vec![exit_count
                    .eq(numeral(0, 32))
                    .not()
                    .implies(c.substitute(&[(iter, &prev)]))];
                for (v, c) in &lw.exit_vals {
                    self.put_closed(*v, c);
                    facts.extend(c.no_wrap.clone());
                }
                facts.extend(lw.limits.iter().flat_map(|l| l.facts(exit_count, Some((c, iter)))));
                Some(Bool::and(&facts))
            }
            _ => None,
        };
        if !has_jump(&lp.body, &|k| matches!(k, StmtKind::Break)) {
            let c = self.eval_bool(&lp.cond);
            self.flush_ub();
            let mut facts = vec![c.not()];
            facts.extend(counted_exit);
            self.facts = Bool::and(&[self.facts.clone(), self.ctrl.implies(Bool::and(&facts))]);
        }
        if let Some(c) = &lw.first_test {
            // A loop whose first test failed changed nothing.
            let same: Vec<Bool> = lw
                .entry_env
                .iter()
                .filter_map(|(v, before)| match (self.env.get(v), before) {
                    (Some(Val::Bv(a)), Val::Bv(b)) if a.get_size() == b.get_size() => Some(a.eq(b)),
                    (Some(Val::B(a)), Val::B(b)) => Some(a.eq(b)),
                    _ => None,
                })
                .collect();
            if !same.is_empty() {
                let unchanged = c.not().implies(Bool::and(&same));
                self.facts = Bool::and(&[self.facts.clone(), self.ctrl.implies(unchanged)]);
            }
        }
    }
}

/// What the walk of one loop carries from its entry to its exit (see [`Walker::loop_entry`]).
struct LoopWalk<'l> {
    label: Label,
    /// The control predicate and facts before the loop.
    entry_ctrl: Bool,
    entry_facts: Bool,
    /// The tracked variables the loop modifies.
    mods: Vec<VarId>,
    /// The first test on the entry values (`for`/`while` loops without header statements).
    first_test: Option<Bool>,
    /// The entry values of `mods`.
    entry_env: Vec<(VarId, Val)>,
    /// Both threads are in the same iteration of the loop.
    shared: bool,
    /// The iteration counter of the summarised iteration (32 bits).
    iter: BV,
    /// Closed forms of the induction variables at `iter`.
    closed: Vec<(VarId, Closed)>,
    /// The guarded induction groups.
    guarded: Vec<GuardedGroup<'l>>,
    /// Facts that hold in the summarised iteration (no wrap-around, shift limits).
    no_wrap: Vec<Bool>,
    /// Shift limits of the left-shift induction variables.
    limits: Vec<ShiftLimit>,
    /// The number of iterations run (32 bits), and the closed forms at it.
    exit_count: BV,
    exit_vals: Vec<(VarId, Closed)>,
}

/// A closed form (see [`Walker::closed_form`]).
struct Closed {
    val: BV,
    no_wrap: Option<Bool>,
    exp: Option<BV>,
    /// For an additive counter: its entry value and step as they enter the exact sum.
    additive: Option<(BV, BV)>,
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

/// A guarded induction group of one loop with its count and its variables' closed forms.
struct GuardedGroup<'k> {
    info: super::induction::Guarded<'k>,
    count: BV,
    vals: Vec<(VarId, Closed)>,
    no_wrap: Vec<Bool>,
    limits: Vec<ShiftLimit>,
}

/// The last iteration `at` at which a left-shift (doubling) counter still holds every bit of its
/// entry value (and its sign, for a signed doubling), defined by `def`.
struct ShiftLimit {
    at: BV,
    def: Bool,
    signed_mul: bool,
}

impl ShiftLimit {
    /// Facts about a count of iterations (or updates) run: a signed doubling cannot run past its
    /// limit (the next product overflows, undefined behaviour); any other counter's `test` (a
    /// formula over `var`) held at every count below the current one, so at the limit too
    /// when it lies below: `for (s = 1; s < blockDim.x; s *= 2)` does not reach the
    /// wrapped-around `s == 0`.
    fn facts(&self, count: &BV, test: Option<(&Bool, &BV)>) -> Option<Bool> {
        if self.signed_mul {
            return Some(Bool::and(&[self.def.clone(), count.bvule(&self.at)]));
        }
        let (t, var) = test?;
        let at_limit = t.substitute(&[(var, &self.at)]);
        Some(Bool::and(&[self.def.clone(), self.at.bvult(count).implies(&at_limit)]))
    }
}

impl Walker<'_> {
    /// The [`ShiftLimit`] of a left-shift induction variable, from its entry value.
    fn shift_limit(&mut self, v: VarId, upd: &Update) -> Option<ShiftLimit> {
        let Update::Shift {
            amount,
            left: true,
            signed_mul,
            ..
        } = upd
        else {
            return None;
        };
        let Val::Bv(init) = self.var(v) else {
            return None;
        };
        let w = init.get_size();
        self.counter += 1;
        let at = BV::new_const(format!("lim{}_t{}", self.counter, self.th.tag), 32);
        let exact = |j: &BV| {
            let amt = shift_amount(j, *amount, w);
            let back = if *signed_mul {
                init.bvshl(&amt).bvashr(&amt)
            } else {
                init.bvshl(&amt).bvlshr(&amt)
            };
            back.eq(&init)
        };
        let next = at.bvadd(numeral(1, 32));
        let def = Bool::and(&[
            at.bvult(numeral(2 * w as u64, 32)),
            exact(&at),
            Bool::or(&[init.eq(numeral(0, w)), exact(&next).not()]),
        ]);
        Some(ShiftLimit {
            at,
            def,
            signed_mul: *signed_mul,
        })
    }

    /// The guarded induction groups of a loop, with a count per group (the iteration counter
    /// bounds it) and closed forms at that count; entry values are read here.
    fn guarded_groups<'k>(&mut self, label: Label, lp: &'k Loop, iter: &BV, shared: bool) -> Vec<GuardedGroup<'k>> {
        let mut out = Vec::new();
        'groups: for info in guarded_inductions(self.k, lp) {
            if info.updates.iter().all(|(v, _)| !self.tracks(*v)) {
                continue;
            }
            // A uniform group in a loop both threads are in the same iteration of has run the
            // same number of times in both.
            let uniform =
                shared && self.uniform_expr(info.cond) && info.updates.iter().all(|(v, _)| !self.nu.contains(v));
            let count = BV::new_const(
                if uniform {
                    format!("gc{}_{}_s", label.0, info.if_label.0)
                } else {
                    format!("gc{}_{}_t{}", label.0, info.if_label.0, self.th.tag)
                },
                32,
            );
            let mut vals = Vec::new();
            let mut no_wrap = vec![count.bvule(iter)];
            let mut limits = Vec::new();
            for (v, upd) in &info.updates {
                let Some(c) = self.closed_form(*v, upd, &count) else {
                    continue 'groups;
                };
                no_wrap.extend(c.no_wrap.clone());
                vals.push((*v, c));
                limits.extend(self.shift_limit(*v, upd));
            }
            out.push(GuardedGroup {
                info,
                count,
                vals,
                no_wrap,
                limits,
            });
        }
        out
    }

    /// Puts a group's closed forms in the environment and returns what holds at the head of
    /// the summarised iteration `iter`.
    fn guarded_facts(&mut self, g: &GuardedGroup, iter: &BV) -> Vec<Bool> {
        for (v, c) in &g.vals {
            self.put_closed(*v, c);
        }
        let mut facts = g.no_wrap.clone();
        if g.info.reads_only_group {
            let cond = self.eval_bool(g.info.cond);
            self.ub.clear();
            if g.info.every_iteration {
                facts.push(g.count.bvult(iter).implies(cond.not()));
            }
            facts.extend(g.limits.iter().flat_map(|l| l.facts(&g.count, Some((&cond, &g.count)))));
        } else {
            facts.extend(g.limits.iter().flat_map(|l| l.facts(&g.count, None)));
        }
        facts
    }
}

impl Walker<'_> {
    /// Sets `v` to its closed form (and its exponent, when it holds a power of two).
    fn put_closed(&mut self, v: VarId, c: &Closed) {
        self.env.insert(v, Val::Bv(c.val.clone()));
        if let Some(e) = &c.exp {
            self.pow2.insert(v, (e.clone(), c.val.clone()));
        }
    }

    /// The value of induction variable `v` at the head of iteration `r`, the assumption that
    /// an additive counter has not wrapped around on its way there, and the exponent of a
    /// shifted power of two.
    fn closed_form(&mut self, v: VarId, upd: &Update, r: &BV) -> Option<Closed> {
        let Val::Bv(init) = self.var(v) else {
            return None;
        };
        let w = init.get_size();
        match upd {
            Update::Add { step, sub, signed } => {
                let ty = ScalarTy::Int {
                    bits: w as u8,
                    signed: *signed,
                };
                let Val::Bv(e) = self.eval_as(step, ty) else {
                    return None;
                };
                self.ub.clear();
                let delta = resize(r, w, false).bvmul(&e);
                let val = if *sub { init.bvsub(&delta) } else { init.bvadd(&delta) };
                // The same sum without wrap-around, in a width where it cannot overflow. "Does
                // not wrap" is about the variable's own type: `int i; i += blockDim.x` adds in
                // unsigned arithmetic, yet `i` stays within the range of `int`.
                let var_signed = self.k.var(v).ty.is_signed();
                let wide = w + 34;
                let ext = |x: &BV, s: bool| if s { x.sign_ext(wide - w) } else { x.zero_ext(wide - w) };
                let d = r.zero_ext(wide - 32).bvmul(ext(&e, *signed));
                let exact = if *sub {
                    ext(&init, var_signed).bvsub(&d)
                } else {
                    ext(&init, var_signed).bvadd(&d)
                };
                let (lo, hi) = if var_signed {
                    (
                        numeral_i(-(1i64 << (w - 1).min(62)), wide),
                        numeral_i(1i64 << (w - 1).min(62), wide),
                    )
                } else {
                    (numeral_i(0, wide), numeral(1u64 << w.min(63), wide))
                };
                let fits = if w >= 64 {
                    // 64-bit counters: keep only the sign condition (the bound does not fit in i64).
                    if var_signed {
                        Bool::from_bool(true)
                    } else {
                        exact.bvsge(&lo)
                    }
                } else {
                    Bool::and(&[exact.bvsge(&lo), exact.bvslt(&hi)])
                };
                let step = if *sub {
                    ext(&e, *signed).bvneg()
                } else {
                    ext(&e, *signed)
                };
                Some(Closed {
                    val,
                    no_wrap: Some(fits),
                    exp: None,
                    additive: Some((ext(&init, var_signed), step)),
                })
            }
            Update::Shift {
                amount,
                left,
                arith,
                signed_mul,
            } => {
                let ty = self.k.var(v).ty;
                // A signed `<<=` can reach INT_MIN, which the exponent cannot stand for.
                let tracked = !*left || !ty.is_signed() || *signed_mul;
                if let Some(e0) = self.pow2_exp(v).filter(|_| tracked) {
                    let exp = pow2::shifted(&e0, r, *amount, *left, pow2::cap(ty), w);
                    return Some(Closed {
                        val: pow2::value(&exp, w),
                        no_wrap: None,
                        exp: Some(exp),
                        additive: None,
                    });
                }
                let amt = shift_amount(r, *amount, w);
                let val = if *left {
                    init.bvshl(&amt)
                } else if *arith {
                    init.bvashr(&amt)
                } else {
                    init.bvlshr(&amt)
                };
                Some(Closed {
                    val,
                    no_wrap: None,
                    exp: None,
                    additive: None,
                })
            }
        }
    }
}

/// `(x, type of x)` when `offset` is `(64-bit)x * size` (either operand order) with x an
/// integer of at most 32 bits: the product of its extension and the size cannot wrap around.
fn scaled_index<'e>(k: &Kernel, offset: &'e Expr, size: u32) -> Option<(&'e Expr, ScalarTy)> {
    let Expr::Bin(BinOp::Mul, ScalarTy::Int { bits: 64, .. }, a, b) = offset else {
        return None;
    };
    let (cast, c) = match (a.as_const(), b.as_const()) {
        (None, Some(c)) => (&**a, c),
        (Some(c), None) => (&**b, c),
        _ => return None,
    };
    let Expr::Cast(ScalarTy::Int { bits: 64, .. }, x) = cast else {
        return None;
    };
    let ty = x.ty(k);
    (c == size as i64 && matches!(ty, ScalarTy::Int { bits, .. } if bits <= 32)).then_some((&**x, ty))
}

/// The total shift after `r` shifts by `amount` bits of a `w`-bit value: repeated shifts
/// saturate, so it is min(r·amount, w), in `w` bits.
fn shift_amount(r: &BV, amount: u32, w: u32) -> BV {
    let times = r.zero_ext(32).bvmul(numeral(amount as u64, 64));
    let wbv = numeral(w as u64, 64);
    resize(&times.bvuge(&wbv).ite(&wbv, &times), w, false)
}

/// `k` when `y` is the constant 2^k with 0 < k and 2^k positive as a signed value.
fn pow2_divisor(y: &BV) -> Option<u32> {
    let w = y.get_size();
    let c = y.as_u64()?;
    (c > 1 && c.is_power_of_two() && c.trailing_zeros() < w - 1).then_some(c.trailing_zeros())
}

/// Signed `x / 2^k` or `x % 2^k` (C: truncation toward zero) with shifts: the same values as
/// `bvsdiv`/`bvsrem`, without the divider circuit that costs the solver about 7% of its time on
/// generated kernels (`t / 2`, `i % NT`).
fn signed_pow2_div_rem(op: BinOp, x: &BV, y: &BV) -> BV {
    let w = x.get_size();
    let k = pow2_divisor(y).expect("checked by the caller") as u64;
    // Negative dividends round up: add 2^k - 1 before the arithmetic shift.
    let sign = x.bvashr(numeral(w as u64 - 1, w));
    let bias = sign.bvlshr(numeral(w as u64 - k, w));
    let q = x.bvadd(&bias).bvashr(numeral(k, w));
    match op {
        BinOp::Div => q,
        _ => x.bvsub(q.bvshl(numeral(k, w))),
    }
}

/// [`resize`], and a numeral stays a numeral (an extension of one is not, to Z3's term
/// builder; see the folding in [`Walker::eval_bin`]).
fn resize_folded(x: &BV, bits: u32, from_signed: bool) -> BV {
    let w = x.get_size();
    if let (Some(v), true) = (x.as_u64(), bits <= 64 && w <= 64) {
        let negative = from_signed && (v >> (w - 1)) & 1 == 1;
        let extended = if negative { v | !mask(w) } else { v };
        return numeral(extended & mask(bits), bits);
    }
    let r = resize(x, bits, from_signed);
    if x.as_u64().is_some() && r.as_u64().is_none() {
        r.simplify()
    } else {
        r
    }
}

/// `op` on two numerals of `w <= 64` bits, computed here (a Z3 simplifier call per constant
/// expression was a quarter of the walk of a hashing kernel full of constants); the same value
/// the bit-vector operation has. `None` when the result is not a plain numeral: signed
/// overflow (undefined behaviour, which the walk records as a condition), division by zero,
/// or an operation not folded here.
fn fold_numerals(op: BinOp, x: u64, y: u64, w: u32, signed: bool) -> Option<Val> {
    use BinOp::*;
    if w == 0 || w > 64 || matches!(op, And | Or) {
        return None;
    }
    let ty = ScalarTy::Int { bits: w as u8, signed };
    let (sx, sy) = (ty.normalize(x as i64), ty.normalize(y as i64));
    let exact = |r: i128| r >= -(1i128 << (w - 1)) && r < (1i128 << (w - 1));
    let overflows = signed
        && match op {
            Add => !exact(sx as i128 + sy as i128),
            Sub => !exact(sx as i128 - sy as i128),
            Mul => !exact(sx as i128 * sy as i128),
            Div => sy != 0 && !exact(sx as i128 / sy as i128),
            _ => false,
        };
    if overflows {
        return None;
    }
    // Where C is undefined the bit-vector operations still have a value: over-wide shifts
    // give 0, or the sign bits for a signed `>>`.
    let r = match op {
        Shl | Shr if y >= w as u64 => match op {
            Shr if signed => sx >> 63,
            _ => 0,
        },
        _ => op.fold(ty, x as i64, y as i64)?,
    };
    Some(if op.is_predicate() {
        Val::B(Bool::from_bool(r != 0))
    } else {
        Val::Bv(numeral(r as u64 & mask(w), w))
    })
}

#[cfg(test)]
mod pow2_tests {
    use super::*;
    use z3::{SatResult, Solver};

    /// The shift forms equal `bvsdiv`/`bvsrem` for every dividend (proved by Z3) at every
    /// positive power-of-two divisor in 8 and 32 bits, and at a few in 64 bits (the 64-bit
    /// divider proofs are slow).
    #[test]
    fn signed_pow2_div_rem_matches_the_solver_semantics() {
        for w in [8u32, 32, 64] {
            let x = BV::new_const(format!("x{w}"), w);
            let ks: Vec<u32> = if w == 64 { vec![1, 31, 62] } else { (1..w - 1).collect() };
            for k in ks {
                let y = BV::from_u64(1u64 << k, w);
                for (op, exact) in [(BinOp::Div, x.bvsdiv(&y)), (BinOp::Rem, x.bvsrem(&y))] {
                    let s = Solver::new();
                    s.assert(signed_pow2_div_rem(op, &x, &y).eq(&exact).not());
                    assert_eq!(s.check(), SatResult::Unsat, "{op:?} by 2^{k} in {w} bits");
                }
            }
            // Not rewritten: 1, non-powers of two, and 2^(w-1) (negative as a signed value).
            for c in [1u64, 3, 1u64 << (w - 1)] {
                assert_eq!(pow2_divisor(&BV::from_u64(c, w)), None, "{c} in {w} bits");
            }
        }
    }
}

#[cfg(test)]
mod fold_tests {
    use super::*;

    /// Numerals folded here equal what Z3 computes for the same operation, at edge values of
    /// several widths; and folding declines exactly where the operation is undefined (signed
    /// overflow, division by zero).
    #[test]
    fn folded_numerals_equal_the_solver_semantics() {
        use BinOp::*;
        let ops = [
            Add, Sub, Mul, Div, Rem, Shl, Shr, BitAnd, BitOr, BitXor, Lt, Le, Gt, Ge, Eq, Ne,
        ];
        for w in [8u32, 16, 32, 64] {
            let m = mask(w);
            let half = 1u64 << (w - 1);
            let values = [
                0,
                1,
                2,
                3,
                7,
                w as u64 - 1,
                w as u64,
                half - 1,
                half,
                half + 1,
                m - 1,
                m,
                0x5a5a_5a5a_5a5a_5a5a & m,
            ];
            for signed in [false, true] {
                for op in ops {
                    for &a in &values {
                        for &b in &values {
                            let (x, y) = (BV::from_u64(a, w), BV::from_u64(b, w));
                            let folded = fold_numerals(op, a, b, w, signed);
                            let what = format!("{op:?} {a:#x} {b:#x} in {w} bits, signed {signed}");
                            let overflow = match op {
                                Add if signed => {
                                    Some(Bool::and(&[x.bvadd_no_overflow(&y, true), x.bvadd_no_underflow(&y)]))
                                }
                                Sub if signed => {
                                    Some(Bool::and(&[x.bvsub_no_overflow(&y), x.bvsub_no_underflow(&y, true)]))
                                }
                                Mul if signed => Some(x.sign_ext(w).bvmul(y.sign_ext(w)).eq(x.bvmul(&y).sign_ext(w))),
                                Div if signed => Some(x.bvsdiv_no_overflow(&y)),
                                _ => None,
                            }
                            .map(|ok| ok.not().simplify().as_bool() == Some(true));
                            if overflow == Some(true) || (matches!(op, Div | Rem) && b == 0) {
                                assert!(folded.is_none(), "{what}: undefined, yet folded");
                                continue;
                            }
                            let expected = match op {
                                Add => Val::Bv(x.bvadd(&y)),
                                Sub => Val::Bv(x.bvsub(&y)),
                                Mul => Val::Bv(x.bvmul(&y)),
                                Div if signed => Val::Bv(x.bvsdiv(&y)),
                                Div => Val::Bv(x.bvudiv(&y)),
                                Rem if signed => Val::Bv(x.bvsrem(&y)),
                                Rem => Val::Bv(x.bvurem(&y)),
                                Shl => Val::Bv(x.bvshl(&y)),
                                Shr if signed => Val::Bv(x.bvashr(&y)),
                                Shr => Val::Bv(x.bvlshr(&y)),
                                BitAnd => Val::Bv(x.bvand(&y)),
                                BitOr => Val::Bv(x.bvor(&y)),
                                BitXor => Val::Bv(x.bvxor(&y)),
                                Lt if signed => Val::B(x.bvslt(&y)),
                                Lt => Val::B(x.bvult(&y)),
                                Le if signed => Val::B(x.bvsle(&y)),
                                Le => Val::B(x.bvule(&y)),
                                Gt if signed => Val::B(x.bvsgt(&y)),
                                Gt => Val::B(x.bvugt(&y)),
                                Ge if signed => Val::B(x.bvsge(&y)),
                                Ge => Val::B(x.bvuge(&y)),
                                Eq => Val::B(x.eq(&y)),
                                Ne => Val::B(x.eq(&y).not()),
                                And | Or => unreachable!("not in the list"),
                            };
                            match (folded, expected) {
                                (Some(Val::Bv(f)), Val::Bv(e)) => {
                                    assert_eq!(f.as_u64(), e.simplify().as_u64(), "{what}")
                                }
                                (Some(Val::B(f)), Val::B(e)) => {
                                    assert_eq!(f.as_bool(), e.simplify().as_bool(), "{what}")
                                }
                                (f, _) => panic!("{what}: folded to {:?}", f.is_some()),
                            }
                        }
                    }
                }
            }
        }
    }

    /// Resizing a numeral gives the numeral Z3 computes for the extension or truncation.
    #[test]
    fn resized_numerals_equal_the_solver_semantics() {
        for (w, v) in [
            (8u32, 0x80u64),
            (8, 0x7f),
            (32, 0xffff_fffe),
            (32, 5),
            (64, u64::MAX),
            (16, 0x8001),
        ] {
            let x = BV::from_u64(v, w);
            for bits in [8u32, 16, 32, 64] {
                for signed in [false, true] {
                    let r = resize_folded(&x, bits, signed);
                    assert_eq!(r.get_size(), bits);
                    assert_eq!(
                        r.as_u64(),
                        resize(&x, bits, signed).simplify().as_u64(),
                        "{v:#x} {w} -> {bits} {signed}"
                    );
                }
            }
        }
    }
}
