//! Signed division by a product, `x / (a * b)`, walked as `x / a / b`: the form in which a
//! flat index is split into coordinates (`i2 = (i / (ne0 * ne1)) % ne2`), so that the
//! injectivity test can see the index rebuilt from them (`((i3*ne2 + i2)*ne1 + i1)*ne0 + i0`)
//! as the index itself.
//!
//! The two are equal in every execution without undefined behaviour, the executions the
//! checkers reason about (as for signed overflow, see [`super::walker`]): C evaluated `a * b`
//! as a signed product, so it did not overflow and is exact; the division by it is not by
//! zero, so neither factor is zero; and with `x` not the type's minimum (an extension of a
//! narrower value, or a global thread index, below 2^31 by the launch assumption) each
//! quotient is exact and not the minimum either, so `trunc(trunc(x / a) / b) = trunc(x / (a·b))`,
//! an identity of integers. An unsigned product may wrap legally: it is never split.

use super::walker::Walker;
use crate::smt::op_kind;
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::DeclKind;

/// Factors a divisor is split into at most (a longer product is divided as it is).
const MAX_FACTORS: usize = 8;

/// Control predicates opened at most when asking whether one implies another.
const MAX_OPENED: usize = 64;

impl Walker<'_> {
    /// Records `p`, the value of a signed product C evaluates at the current point.
    pub(super) fn note_signed_product(&mut self, p: &BV) {
        self.signed_products
            .entry(p.clone())
            .or_insert_with(|| self.ctrl.clone());
    }

    /// The signed quotient `x / y`, divided factor by factor where `y` is a product that
    /// [`Self::note_signed_product`] saw evaluated on every path to here (see the module's
    /// documentation).
    pub(super) fn signed_quotient(&self, x: &BV, y: &BV) -> BV {
        let global = (0..3).any(|d| super::super::injective::is_global(x, self.th, self.geom, d));
        if !(is_extension(x) || global) {
            return x.bvsdiv(y);
        }
        let factors = self.factors(y);
        let mut q = x.clone();
        for f in &factors {
            q = q.bvsdiv(f);
        }
        q
    }

    /// `y` as the factors of the signed products it is made of, left to right.
    fn factors(&self, y: &BV) -> Vec<BV> {
        let mut out = vec![y.clone()];
        let mut i = 0;
        while i < out.len() && out.len() < MAX_FACTORS {
            match self.split(&out[i]) {
                Some((a, b)) => {
                    out.splice(i..=i, [a, b]);
                }
                None => i += 1,
            }
        }
        out
    }

    /// The two factors of `t` where it is a signed product evaluated on every path to here,
    /// or its sign extension (whose factors are then the extended factors: the product is
    /// exact).
    fn split(&self, t: &BV) -> Option<(BV, BV)> {
        let (inner, by) = match kind(t) {
            Some(k) if k == DeclKind::SignExt as u32 => {
                let inner = t.children().first()?.as_bv()?;
                let by = t.get_size() - inner.get_size();
                (inner, by)
            }
            _ => (t.clone(), 0),
        };
        let ctrl = self.signed_products.get(&inner)?;
        if kind(&inner) != Some(DeclKind::Bmul as u32) || !implies(&self.ctrl, ctrl) {
            return None;
        }
        let ks: Vec<BV> = inner.children().iter().filter_map(|c| c.as_bv()).collect();
        match ks.as_slice() {
            [a, b] if by == 0 => Some((a.clone(), b.clone())),
            [a, b] => Some((a.sign_ext(by), b.sign_ext(by))),
            _ => None,
        }
    }
}

/// Whether `t` is a zero or sign extension of a narrower value (never the minimum of its type).
fn is_extension(t: &BV) -> bool {
    matches!(kind(t), Some(k) if k == DeclKind::ZeroExt as u32 || k == DeclKind::SignExt as u32)
}

fn kind(t: &BV) -> Option<u32> {
    op_kind(&Dynamic::from_ast(t))
}

/// Whether `now` implies `then`, seen in their structure: equal, `then` true, `now` a
/// conjunction with a conjunct that implies it or a disjunction whose every disjunct does
/// (`false` among them: the `or` a jump out of one branch of an `if` leaves).
fn implies(now: &Bool, then: &Bool) -> bool {
    if then.as_bool() == Some(true) {
        return true;
    }
    let mut opened = 0;
    // Each entry must imply `then`; an `and` needs one of its conjuncts to.
    let mut todo = vec![now.clone()];
    while let Some(b) = todo.pop() {
        opened += 1;
        if opened > MAX_OPENED {
            return false;
        }
        if b == *then || b.as_bool() == Some(false) {
            continue;
        }
        let k = op_kind(&Dynamic::from_ast(&b));
        let kids = || b.children().into_iter().filter_map(|c| c.as_bool());
        if k == Some(DeclKind::Or as u32) {
            todo.extend(kids());
        } else if k == Some(DeclKind::And as u32) && kids().any(|c| c == *then) {
            continue;
        } else {
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::implies;
    use z3::ast::{Bool, BV};
    use z3::{SatResult, Solver};

    #[test]
    fn split_quotients_equal_the_quotient_by_the_exact_product() {
        // In 8 bits, exhaustively by the solver: x an extension, a*b exact and nonzero.
        let x = BV::new_const("x", 7).sign_ext(1);
        let (a, b) = (BV::new_const("a", 8), BV::new_const("b", 8));
        let exact = a.sign_ext(8).bvmul(b.sign_ext(8)).eq(a.bvmul(&b).sign_ext(8));
        let nonzero = a.bvmul(&b).eq(BV::from_u64(0, 8)).not();
        let s = Solver::new();
        s.assert(&exact);
        s.assert(&nonzero);
        s.assert(x.bvsdiv(a.bvmul(&b)).eq(x.bvsdiv(&a).bvsdiv(&b)).not());
        assert_eq!(s.check(), SatResult::Unsat);
        // The minimum is why `x` must be an extension: -128 / (-1 · 2) is 64, but
        // -128 / -1 wraps to -128.
        let y = BV::new_const("y", 8);
        let s = Solver::new();
        s.assert(&exact);
        s.assert(&nonzero);
        s.assert(y.bvsdiv(a.bvmul(&b)).eq(y.bvsdiv(&a).bvsdiv(&b)).not());
        assert_eq!(s.check(), SatResult::Sat);
    }

    #[test]
    fn implication_is_read_through_conjunctions_and_jumps() {
        let (c, d) = (Bool::new_const("c"), Bool::new_const("d"));
        let after_return = Bool::or(&[Bool::from_bool(false), Bool::and(&[c.clone(), d.not()])]);
        assert!(implies(&after_return, &c));
        assert!(implies(&c, &Bool::from_bool(true)));
        assert!(!implies(&c, &after_return));
        assert!(!implies(&Bool::or(&[c.clone(), d.clone()]), &c));
    }
}
