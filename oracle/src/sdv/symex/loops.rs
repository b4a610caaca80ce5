//! Loops walked as one summarised iteration: fresh values at the head, the iteration counter,
//! closed forms of induction variables (additive, shifted, guarded groups) with their no-wrap
//! facts, the first and last iterations, and the values at the exit.

use super::super::induction::{exit_tests, guarded_inductions, inductions, Update};
use super::super::pow2;
use super::super::syntax::{has_jump, has_return, modified_vars};
use super::terms::{Product, Stride, Val};
use super::walker::{Frame, Walker};
use crate::ir::*;
use crate::smt::{numeral, numeral_i, resize};
use z3::ast::{Ast, Bool, BV};

impl Walker<'_> {
    /// Walks a loop as one summarised iteration (see the module documentation).
    pub(super) fn loop_(&mut self, label: Label, lp: &Loop) {
        let mut lw = self.loop_entry(label, lp);
        // The summarised iteration does not know earlier iterations' stores.
        self.forget_locals_written(lp);
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
        self.forget_locals_written(lp);
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

/// A guarded induction group of one loop with its count and its variables' closed forms.
struct GuardedGroup<'k> {
    info: super::super::induction::Guarded<'k>,
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
                let count = resize(r, w, false);
                let delta = count.bvmul(&e);
                if e.as_u64().is_none() {
                    // `r * step` with a symbolic step (a grid stride): the product abstraction
                    // then knows that equal counters give equal products.
                    let p = Product {
                        x: count,
                        y: e.clone(),
                        signed: false,
                        counter: true,
                    };
                    self.out.products.insert(delta.clone(), p);
                }
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

/// The total shift after `r` shifts by `amount` bits of a `w`-bit value: repeated shifts
/// saturate, so it is min(r·amount, w), in `w` bits.
fn shift_amount(r: &BV, amount: u32, w: u32) -> BV {
    let times = r.zero_ext(32).bvmul(numeral(amount as u64, 64));
    let wbv = numeral(w as u64, 64);
    resize(&times.bvuge(&wbv).ite(&wbv, &times), w, false)
}
