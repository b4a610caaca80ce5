//! The walker: one thread's symbolic state (values, control predicate, facts) and its walk
//! over statements and expressions, recording every access site. Loops are summarised in
//! [`super::loops`]; numerals are folded by [`super::numerals`].

use super::super::levels::{Level, Uniformity};
use super::super::pow2;
use super::super::threads::{group_of, Geometry, ThreadVars};
use super::numerals::{fold_numerals, pow2_divisor, resize_folded, signed_pow2_div_rem};
use super::terms::{CounterRead, Detail, GroupRead, LocalStore, PointTerms, Product, SiteTerms, Val, Walk};
use crate::ir::*;
use crate::smt::{numeral, numeral_i, resize};
use std::collections::{BTreeMap, HashMap, HashSet};
use z3::ast::{Ast, Bool, BV};

/// An enclosing loop of the current point: whether both threads share its iteration, and its
/// induction variable.
pub(super) struct Frame {
    pub(super) shared: bool,
    pub(super) var: Option<VarId>,
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
        unif,
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
        counters: super::super::counters::counter_arrays(k),
        counter: 0,
        ub: Vec::new(),
        cond_depth: 0,
        pow2: HashMap::new(),
        locals: HashMap::new(),
        signed_products: HashMap::new(),
        out: Walk::default(),
    };
    // Parameters get their values up front: one first read inside a branch would otherwise
    // leave the other branch, at the join, with an arbitrary value for them.
    for v in k.vars.iter().filter(|v| v.kind == VarKind::Param) {
        w.var(v.id);
    }
    // What the launch says about the block holds from the entry on, as an `assume` there would.
    for f in &k.launch.facts {
        let c = w.eval_bool(f);
        w.flush_ub();
        w.facts = Bool::and(&[w.facts.clone(), c]);
    }
    w.block(&k.body);
    w.out
}

/// One thread's walk: its symbolic state at the current point and what it has recorded.
pub(super) struct Walker<'a> {
    pub(super) detail: Detail,
    pub(super) k: &'a Kernel,
    /// The scalar parameters' known values.
    pub(super) params: &'a BTreeMap<String, i64>,
    /// The uniformity analysis (levels of statements' predicates).
    pub(super) unif: &'a Uniformity,
    pub(super) nu: &'a HashSet<VarId>,
    pub(super) uniform_reads: &'a HashSet<(Label, usize)>,
    pub(super) steering: &'a HashSet<VarId>,
    pub(super) geom: &'a Geometry,
    pub(super) th: &'a ThreadVars,
    pub(super) shared: &'a HashSet<Label>,
    pub(super) env: HashMap<VarId, Val>,
    pub(super) ctrl: Bool,
    pub(super) facts: Bool,
    pub(super) frames: Vec<Frame>,
    pub(super) counters: HashSet<ArrayId>,
    pub(super) counter: u32,
    /// No-signed-overflow and nonzero-divisor conditions of the expressions evaluated since
    /// the last flush.
    pub(super) ub: Vec<Bool>,
    /// Inside an operand that C may not evaluate (`?:` branches, right of `&&`/`||`).
    pub(super) cond_depth: u32,
    /// Variables known to hold a power of two or zero: (exponent, the value term it was recorded
    /// with). An entry counts only while the variable still holds that term; see [`pow2`].
    pub(super) pow2: HashMap<VarId, (BV, BV)>,
    /// The thread's stores to local arrays that loads may still read (see [`super::locals`]).
    pub(super) locals: HashMap<ArrayId, Vec<LocalStore>>,
    /// Signed products C evaluated, with the control predicate where (see [`super::quotients`]).
    pub(super) signed_products: HashMap<BV, Bool>,
    pub(super) out: Walk,
}

impl<'a> Walker<'a> {
    pub(super) fn point(&self) -> PointTerms {
        PointTerms {
            ctrl: self.ctrl.clone(),
            facts: self.facts.clone(),
        }
    }

    /// Whether both threads of the query are in the same block and the same iteration of every
    /// enclosing loop: then a block-uniform value is one value for both.
    pub(super) fn context_shared(&self) -> bool {
        self.th.same_block && self.frames.iter().all(|f| f.shared)
    }

    /// A fresh unknown of type `ty`; shared by both threads when it is a deterministic function
    /// of uniform values in a context where both threads are in the same iterations.
    pub(super) fn unknown(&mut self, kind: &str, ty: ScalarTy, shareable: bool) -> Val {
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

    pub(super) fn uniform_expr(&self, e: &Expr) -> bool {
        !e.may_differ(&|v| self.nu.contains(&v))
    }

    pub(super) fn var(&mut self, v: VarId) -> Val {
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
    pub(super) fn convert(&mut self, v: Val, from: ScalarTy, to: ScalarTy, shareable: bool) -> Val {
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

    pub(super) fn eval_as(&mut self, e: &Expr, to: ScalarTy) -> Val {
        let v = self.eval(e);
        let from = e.ty(self.k);
        let sh = self.uniform_expr(e);
        self.convert(v, from, to, sh)
    }

    pub(super) fn eval_bool(&mut self, e: &Expr) -> Bool {
        self.eval(e).to_bool()
    }

    pub(super) fn eval(&mut self, e: &Expr) -> Val {
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
            // Only the whole right-hand side of an assignment is a group's value (`group_value`).
            Expr::GroupValue(ty, _) => self.unknown("grp", *ty, false),
            Expr::Vote(kind, pred) => self.vote(*kind, pred),
        }
    }

    /// A block-wide vote: one value for both threads where they are in the same iterations
    /// (a fresh one for each thread otherwise), with what the thread's own predicate says of it.
    pub(super) fn vote(&mut self, kind: VoteKind, pred: &Expr) -> Val {
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

    pub(super) fn eval_bin(&mut self, e: &Expr, op: BinOp, ty: ScalarTy, a: &Expr, b: &Expr) -> Val {
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
                            counter: false,
                        },
                    );
                }
                if let (Some(a), Some(b)) = (x.as_u64(), y.as_u64()) {
                    if let Some(v) = fold_numerals(op, a, b, x.get_size(), s) {
                        return v;
                    }
                }
                let constant = x.as_u64().is_some() && y.as_u64().is_some();
                if matches!(op, Div | Rem) && self.cond_depth == 0 && y.as_u64().is_none() {
                    // Division by zero is undefined behaviour too.
                    self.ub.push(y.eq(numeral(0, y.get_size())).not());
                }
                let r = match op {
                    Add | Sub | Mul if s && self.cond_depth == 0 => {
                        self.no_signed_overflow(op, &x, &y);
                        let r = self.eval_bin_bits(op, &x, &y);
                        if let (Mul, Val::Bv(p)) = (op, &r) {
                            self.note_signed_product(p);
                        }
                        r
                    }
                    Add | Sub | Mul => self.eval_bin_bits(op, &x, &y),
                    Div | Rem if s && pow2_divisor(&y).is_some() => bv(signed_pow2_div_rem(op, &x, &y)),
                    Div if s => bv(self.signed_quotient(&x, &y)),
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
    pub(super) fn no_signed_overflow(&mut self, op: BinOp, x: &BV, y: &BV) {
        let conds = match op {
            BinOp::Add => [x.bvadd_no_overflow(y, true), x.bvadd_no_underflow(y)],
            BinOp::Sub => [x.bvsub_no_overflow(y), x.bvsub_no_underflow(y, true)],
            _ => [crate::smt::signed_mul_facts(x, y), Bool::from_bool(true)],
        };
        self.ub.extend(conds);
    }

    pub(super) fn eval_bin_bits(&self, op: BinOp, x: &BV, y: &BV) -> Val {
        Val::Bv(match op {
            BinOp::Add => x.bvadd(y),
            BinOp::Sub => x.bvsub(y),
            _ => x.bvmul(y),
        })
    }

    /// Records the pending no-overflow conditions as facts of the current point.
    pub(super) fn flush_ub(&mut self) {
        if !self.ub.is_empty() {
            let all = Bool::and(&std::mem::take(&mut self.ub));
            self.facts = Bool::and(&[self.facts.clone(), self.ctrl.implies(&all)]);
        }
    }

    pub(super) fn assign(&mut self, v: VarId, e: &Expr) {
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
    pub(super) fn forget(&mut self, v: VarId) {
        // Names stay as they were with an unknown made here (both threads' walks count alike).
        self.counter += 1;
        self.env.remove(&v);
    }

    /// Whether the walk computes `v`'s values (see [`Detail`]).
    pub(super) fn tracks(&self, v: VarId) -> bool {
        self.detail == Detail::Stores || self.steering.contains(&v)
    }

    /// The exponent of `v` while it holds the power of two recorded for it.
    pub(super) fn pow2_exp(&self, v: VarId) -> Option<BV> {
        let (exp, val) = self.pow2.get(&v)?;
        match self.env.get(&v) {
            Some(Val::Bv(x)) if x == val => Some(exp.clone()),
            _ => None,
        }
    }

    /// The exponent of the value `e` assigned to a variable of type `ty`: a constant power of
    /// two (or zero), or a copy of a variable of the same type that holds one.
    pub(super) fn pow2_source(&self, e: &Expr, ty: ScalarTy) -> Option<BV> {
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
    pub(super) fn pow2_mul(&mut self, a: &Expr, b: &Expr, ty: ScalarTy, signed: bool) -> Option<Val> {
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

    pub(super) fn fresh_into(&mut self, v: VarId, kind: &str) {
        if !self.tracks(v) {
            self.forget(v);
            return;
        }
        let ty = self.k.vars.get(v.0 as usize).map(|x| x.ty).unwrap_or(ScalarTy::Opaque);
        let val = self.unknown(kind, ty, false);
        self.env.insert(v, val);
    }

    /// `v = ` the result of a butterfly reduction over groups of `width` lanes: a value of the
    /// thread's own, recorded for pairing with the other thread's (the query asserts that two
    /// threads of one group get the same) when both threads are in the same iterations and
    /// the whole warp runs this statement together: its predicate is warp-uniform and the
    /// group's lanes all exist. A lane that exited or skipped the reduction would make its
    /// partners' shuffles read undefined values.
    fn group_value(&mut self, label: Label, v: VarId, ty: ScalarTy, width: u32) {
        let val = self.unknown("grp", ty, false);
        let pairable =
            self.context_shared() && self.unif.level(label) <= Level::Warp && width.is_power_of_two() && width <= 32;
        if let (true, Val::Bv(value)) = (pairable, &val) {
            let g = self.geom;
            let n = g.bdim.iter().map(|d| d.zero_ext(32)).reduce(|a, b| a.bvmul(b));
            let group = group_of(self.th, g, width);
            let w = numeral(width as u64, 64);
            // The group's last lane exists: (group + 1) * width <= threads of the block.
            let complete = n.map_or(Bool::from_bool(false), |n| group.bvmul(&w).bvadd(&w).bvule(&n));
            self.out.group_reads.push(GroupRead {
                id: self.counter,
                group,
                ok: Bool::and(&[self.ctrl.clone(), complete]),
                value: value.clone(),
            });
        }
        if self.tracks(v) {
            self.env.insert(v, val);
        } else {
            self.forget(v);
        }
    }

    /// Records the value a counter increment just gave `dst`.
    pub(super) fn counter_read(&mut self, label: Label, op: usize, array: ArrayId, dst: VarId) {
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

    pub(super) fn site(&mut self, label: Label, op: usize, acc: &Access, stored: Option<&Expr>) {
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
        let bits = self.k.launch.index_bits;
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
                // The launch's index bound (what makes a 64-bit index's offset exact); byte
                // offsets of other shapes are left unbounded.
                if let Some(n) = bits {
                    self.ub.push(index_within(&i, s, n));
                }
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

    pub(super) fn block(&mut self, b: &Block) {
        for s in &b.stmts {
            self.stmt(s);
        }
    }

    pub(super) fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Basic(ops) => {
                for (i, op) in ops.iter().enumerate() {
                    match op {
                        Op::Assign(v, Expr::GroupValue(ty, width)) => self.group_value(s.label, *v, *ty, *width),
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
                        Op::Read(Some(d), acc) if self.tracks(*d) && self.k.array(acc.array).space == Space::Local => {
                            self.site(s.label, i, acc, None);
                            let ty = self.k.vars.get(d.0 as usize).map_or(ScalarTy::Opaque, |x| x.ty);
                            match self.local_load(s.label, i, acc, ty) {
                                Some(v) => {
                                    self.env.insert(*d, v);
                                }
                                None => self.fresh_into(*d, "rd"),
                            }
                        }
                        Op::Read(dst, acc) | Op::Atomic(dst, acc, _) => {
                            self.site(s.label, i, acc, None);
                            if matches!(op, Op::Atomic(..)) {
                                self.local_clobber(acc.array);
                            }
                            if let Some(d) = dst {
                                self.fresh_into(*d, "rd");
                                if matches!(op, Op::Atomic(..)) && self.counters.contains(&acc.array) {
                                    self.counter_read(s.label, i, acc.array, *d);
                                }
                            }
                        }
                        Op::Write(acc, e) => {
                            self.site(s.label, i, acc, Some(e));
                            self.local_store(s.label, i, acc);
                        }
                        // Async-pipeline ops stop the SDV checker before the walk (`sdv::check`).
                        Op::Mbarrier(..) | Op::AsyncCopy(_) | Op::Wgmma(_) | Op::AsyncGroup(_) | Op::ProxyFence(_) => {}
                    }
                }
            }
            StmtKind::Assume(e) => {
                let c = self.eval_bool(e);
                self.flush_ub();
                self.facts = Bool::and(&[self.facts.clone(), self.ctrl.implies(&c)]);
            }
            StmtKind::Barrier(..) => {}
            StmtKind::Break | StmtKind::Continue | StmtKind::Return { .. } => {
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

    pub(super) fn if_(&mut self, label: Label, cond: &Expr, then_blk: &Block, else_blk: &Block) {
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

    pub(super) fn merge(
        &mut self,
        c: &Bool,
        t: HashMap<VarId, Val>,
        mut e: HashMap<VarId, Val>,
    ) -> HashMap<VarId, Val> {
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

    pub(super) fn uninit(&mut self, v: VarId) -> Val {
        let ty = self.k.vars.get(v.0 as usize).map(|x| x.ty).unwrap_or(ScalarTy::Opaque);
        self.unknown("uninit", ty, false)
    }

    pub(super) fn ite(&mut self, c: &Bool, t: Val, e: Val) -> Val {
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

    pub(super) fn havoc(&mut self, l: Label, vars: &[VarId], prefix: &str, shared: bool) {
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
}

/// The launch's index bound on an element index `x`: within `[-2^n, 2^n)`, or below `2^n`
/// when unsigned (`true` when `x` is too narrow to leave it).
fn index_within(x: &BV, signed: bool, n: u32) -> Bool {
    let w = x.get_size();
    if n + u32::from(signed) >= w {
        return Bool::from_bool(true);
    }
    let hi = numeral(1u64 << n, w);
    if signed {
        Bool::and(&[x.bvslt(&hi), x.bvsge(hi.bvneg())])
    } else {
        x.bvult(&hi)
    }
}

/// `(x, type of x)` when `offset` is `(64-bit)x * size` (either operand order) with x an
/// integer of at most 32 bits, or of 64 bits under the launch's index bound: the product of its
/// extension and the size cannot wrap around; a byte's offset is `(64-bit)x` alone.
fn scaled_index<'e>(k: &Kernel, offset: &'e Expr, size: u32) -> Option<(&'e Expr, ScalarTy)> {
    let (cast, c) = match offset {
        Expr::Bin(BinOp::Mul, ScalarTy::Int { bits: 64, .. }, a, b) => match (a.as_const(), b.as_const()) {
            (None, Some(c)) => (&**a, c),
            (Some(c), None) => (&**b, c),
            _ => return None,
        },
        // Bytes (`unsigned char`, `int8_t`) are indexed unscaled: `(u64)i`.
        Expr::Cast(..) if size == 1 => (offset, 1),
        _ => return None,
    };
    let Expr::Cast(ScalarTy::Int { bits: 64, .. }, x) = cast else {
        return None;
    };
    let ty = x.ty(k);
    let max_bits = if k.launch.index_bits.is_some() { 64 } else { 32 };
    (c == size as i64 && matches!(ty, ScalarTy::Int { bits, .. } if bits <= max_bits)).then_some((&**x, ty))
}
