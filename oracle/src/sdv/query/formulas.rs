//! The pieces of a conflict formula: overlap of byte ranges, stores that differ,
//! and what is added or abstracted to make it easier: products of unknowns abstracted, valid
//! lemmas on mixed-radix and strided offsets.

use super::super::divisible;
use super::super::symex::{self, Product, SiteTerms, Val, Walk};
use crate::smt::{numeral, op_kind, resize};
use std::collections::HashSet;
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::DeclKind;

/// The number of distinct terms of `f`.
pub(super) fn term_count(f: &Bool) -> usize {
    let mut seen: HashSet<Dynamic> = HashSet::new();
    let mut stack = vec![Dynamic::from_ast(f)];
    while let Some(t) = stack.pop() {
        if seen.insert(t.clone()) {
            stack.extend(t.children());
        }
    }
    seen.len()
}

/// The products of two unknowns in the terms, as recorded by the walks (each once).
pub(super) fn products_in(walks: [&Walk; 2], terms: &[&BV]) -> Vec<Product> {
    let mut out: Vec<Product> = Vec::new();
    let mut seen: HashSet<Dynamic> = HashSet::new();
    let mut stack: Vec<Dynamic> = terms.iter().map(|t| Dynamic::from_ast(*t)).collect();
    while let Some(t) = stack.pop() {
        if !seen.insert(t.clone()) {
            continue;
        }
        if let Some(b) = t.as_bv() {
            if let Some(p) = walks.iter().find_map(|w| w.products.get(&b)) {
                out.push(p.clone());
            }
        }
        stack.extend(t.children());
    }
    out
}

/// `formula` with every product of two unknowns that the offsets contain replaced by a fresh
/// value, with facts of integer multiplication about the fresh values; `None` when the offsets
/// contain no such product.
///
/// A fresh value stands for the product exactly when the product does not overflow: always for
/// signed products (overflow is undefined behaviour: their no-overflow conditions, which the
/// formula asserts, become `true`), and for unsigned ones when the operands are small enough
/// ([`unsigned_exact`]); the facts hold under that condition. So the abstraction has a model
/// whenever the formula does. The facts are what separates `row1 * pitch + col1` from
/// `row2 * pitch + col2` with `0 <= col < pitch`: for a shared operand y, different other
/// operands put the products at least |y| apart, in the direction of their difference. A solver
/// proves that with adders and comparators; through two multiplier circuits it times out.
pub(super) fn abstract_products(formula: &Bool, walks: [&Walk; 2], offsets: [&BV; 2]) -> Option<Bool> {
    if walks.iter().all(|w| w.products.is_empty()) {
        return None;
    }
    let products = products_in(walks, &offsets);
    if products.is_empty() {
        return None;
    }
    let fresh: Vec<BV> = (0..products.len())
        .map(|i| BV::fresh_const("prod", products[i].x.get_size()))
        .collect();
    let mut subst: Vec<(Dynamic, Dynamic)> = Vec::new();
    for (p, f) in products.iter().zip(&fresh) {
        subst.push((Dynamic::from_ast(&p.x.bvmul(&p.y)), Dynamic::from_ast(f)));
        if p.signed {
            let nov = crate::smt::signed_mul_facts(&p.x, &p.y);
            subst.push((Dynamic::from_ast(&nov), Dynamic::from_ast(&Bool::from_bool(true))));
        }
    }
    let pairs: Vec<(&Dynamic, &Dynamic)> = subst.iter().map(|(a, b)| (a, b)).collect();
    let mut parts = vec![formula.clone()];
    let exact: Vec<Bool> = products
        .iter()
        .map(|p| {
            if p.signed {
                Bool::from_bool(true)
            } else {
                unsigned_exact(&p.x, &p.y)
            }
        })
        .collect();
    let zero = |v: &BV| numeral(0, v.get_size());
    for ((p, f), e) in products.iter().zip(&fresh).zip(&exact) {
        // Exact products fit their own width: two more bits hold differences and magnitudes.
        let w = |v: &BV| if p.signed { v.sign_ext(2) } else { v.zero_ext(2) };
        let (x, y, fw) = (w(&p.x), w(&p.y), w(f));
        let mut facts = vec![Bool::or(&[p.x.eq(zero(&p.x)), p.y.eq(zero(&p.y))]).eq(f.eq(zero(f)))];
        if p.signed {
            let neg = |v: &BV| v.bvslt(zero(v));
            facts.push(f.eq(zero(f)).not().implies(neg(f).eq(neg(&p.x).xor(neg(&p.y)))));
        }
        let abs = |v: &BV| v.bvslt(zero(v)).ite(&v.bvneg(), v);
        facts.push(p.x.eq(zero(&p.x)).not().implies(abs(&fw).bvsge(abs(&y))));
        facts.push(p.y.eq(zero(&p.y)).not().implies(abs(&fw).bvsge(abs(&x))));
        // Upper bounds by shifts: |x| < 2^k gives |x * y| < |y| * 2^k (in 2w bits, exact), at
        // a few k (each is a wide comparison the solver must carry).
        let wide = |v: &BV| {
            if p.signed {
                v.sign_ext(v.get_size())
            } else {
                v.zero_ext(v.get_size())
            }
        };
        let (xw, yw, pw) = (abs(&wide(&p.x)), abs(&wide(&p.y)), abs(&wide(f)));
        let n = p.x.get_size();
        for k in (4..n).step_by(4) {
            let bound = numeral(1u64 << k.min(63), 2 * n);
            let shift = numeral(k as u64, 2 * n);
            facts.push(xw.bvult(&bound).implies(pw.bvult(yw.bvshl(&shift))));
            facts.push(yw.bvult(&bound).implies(pw.bvult(xw.bvshl(&shift))));
        }
        parts.push(e.implies(Bool::and(&facts)));
    }
    for i in 0..products.len() {
        for j in i + 1..products.len() {
            let (a, b) = (&products[i], &products[j]);
            if a.x.get_size() != b.x.get_size() || a.signed != b.signed {
                continue;
            }
            let Some((xa, xb, y)) = a.shared_operand(b) else {
                continue;
            };
            // Equal operands give equal products, overflow or not.
            parts.push(xa.eq(xb).implies(fresh[i].eq(&fresh[j])));
            // (Pa - Pb) = (xa - xb) * y, exactly.
            let w = |v: &BV| if a.signed { v.sign_ext(2) } else { v.zero_ext(2) };
            let d = w(xa).bvsub(w(xb));
            let gap = w(&fresh[i]).bvsub(w(&fresh[j]));
            let yw = w(y);
            let zw = zero(&yw);
            let pos = |v: &BV| v.bvsgt(zero(v));
            let neg = |v: &BV| v.bvslt(zero(v));
            let facts = [
                y.eq(zero(y)).implies(gap.eq(&zw)),
                Bool::and(&[pos(&d), pos(&yw)]).implies(gap.bvsge(&yw)),
                Bool::and(&[neg(&d), pos(&yw)]).implies(gap.bvsle(yw.bvneg())),
                Bool::and(&[pos(&d), neg(&yw)]).implies(gap.bvsle(&yw)),
                Bool::and(&[neg(&d), neg(&yw)]).implies(gap.bvsge(yw.bvneg())),
            ];
            parts.push(Bool::and(&[exact[i].clone(), exact[j].clone()]).implies(Bool::and(&facts)));
        }
    }
    // The facts too: an operand may itself be a product (`r * (blockDim.x * gridDim.x)`), and
    // each fresh value equals its product in the model the abstraction is built from, so the
    // substituted facts hold where the original ones do; left in, the inner product would
    // bring back the multiplier circuit the abstraction exists to avoid.
    Some(Bool::and(&parts).substitute(&pairs))
}

/// The addends of `t` (nested `bvadd`s flattened).
pub(super) fn addends(t: &BV) -> Vec<BV> {
    let mut out = Vec::new();
    let mut stack = vec![t.clone()];
    while let Some(x) = stack.pop() {
        if op_kind(&Dynamic::from_ast(&x)) == Some(DeclKind::Badd as u32) {
            stack.extend(x.children().iter().rev().filter_map(|c| c.as_bv()));
        } else {
            out.push(x);
        }
    }
    out
}

/// Lemmas of integer arithmetic that equal mixed-radix offsets have equal digits: when
/// `t1 = y1 * w + c1` and `t2 = y2 * w + c2` (products of unknowns with a shared operand `w`, as
/// recorded by the walks), `0 <= ci < w`, and neither product nor sum overflows, then
/// `t1 = t2` gives `y1 = y2` and `c1 = c2`; likewise for the digits, a few levels deep
/// (`(z * h + y) * w + x`).
///
/// Each lemma states its premises, so it is a valid bit-vector formula: conjoined to a query it
/// changes no answer. What it changes is the proof: that a row offset is a multiple of a
/// symbolic row length and a column stays below it is what separates the two rows, and a
/// solver that bit-blasts the multipliers does not find that argument on its own (the
/// inter-block query of a guarded `out[dim * n + i]` store: seconds without the lemma,
/// milliseconds with it).
pub(super) fn radix_lemmas(walks: [&Walk; 2], t1: &BV, t2: &BV, depth: u32, out: &mut Vec<Bool>) {
    const MAX_LEMMAS: usize = 16;
    if depth == 0 || t1.get_size() != t2.get_size() || out.len() >= MAX_LEMMAS {
        return;
    }
    let products = |t: &BV| -> Vec<(BV, Product, BV)> {
        let parts = addends(t);
        let mut found = Vec::new();
        for (i, a) in parts.iter().enumerate() {
            if let Some(p) = walks.iter().find_map(|w| w.products.get(a)).filter(|p| !p.counter) {
                let rest: Vec<&BV> = parts
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, b)| b)
                    .collect();
                let c = match rest.as_slice() {
                    [] => numeral(0, t.get_size()),
                    [one] => (*one).clone(),
                    more => more[1..].iter().fold(more[0].clone(), |acc, b| acc.bvadd(*b)),
                };
                found.push((a.clone(), p.clone(), c));
            }
        }
        found
    };
    let (ps1, ps2) = (products(t1), products(t2));
    for (prod1, p1, c1) in &ps1 {
        for (prod2, p2, c2) in &ps2 {
            if p1.signed != p2.signed || p1.x.get_size() != t1.get_size() || p2.x.get_size() != t1.get_size() {
                continue;
            }
            let Some((y1, y2, w)) = p1.shared_operand(p2) else {
                continue;
            };
            let zero = numeral(0, w.get_size());
            let sites = [(t1, p1, prod1, c1, y1), (t2, p2, prod2, c2, y2)];
            let conclusion = Bool::and(&[y1.eq(y2), c1.eq(c2)]);
            let mut premises = vec![t1.eq(t2)];
            for (t, p, prod, c, y) in sites {
                if p.signed {
                    // Non-negative digits of a signed product: the walks' facts about the
                    // product (the same terms, so these premises cost the solver nothing) are
                    // exact for non-negative operands, so `y * w` and `c` are below 2^31 and
                    // `prod + c` cannot wrap as an unsigned sum (it may overflow as a signed
                    // one when part of it was computed unsigned: no premise about it).
                    premises.extend([
                        crate::smt::signed_mul_facts(&p.x, &p.y),
                        y.bvsge(&zero),
                        w.bvsgt(&zero),
                        c.bvult(w),
                    ]);
                } else {
                    // Unsigned digits: no overflow of the product, `c < w`, no wrap of `prod + c`.
                    premises.extend([p.x.bvmul_no_overflow(&p.y, false), c.bvult(w), t.bvuge(prod)]);
                }
            }
            out.push(Bool::and(&premises).implies(conclusion));
            radix_lemmas(walks, y1, y2, depth - 1, out);
            radix_lemmas(walks, c1, c2, depth - 1, out);
        }
    }
}

/// Stride lemmas: an additive induction variable of one loop in both walks, with the same
/// symbolic step (`i += gridDim.x * blockDim.x`), at equal values in iterations `r1` and `r2`
/// with entry values closer than the step, is in the same iteration: `init1 + r1 * s =
/// init2 + r2 * s` exactly means `(r2 - r1) * s = init1 - init2`, and `|init1 - init2| < |s|`
/// leaves `r1 = r2`. The premises include the walks' no-wrap conditions, so each lemma is a
/// valid formula. Grid-, block- and warp-stride loops (distinct threads start at distinct
/// offsets below the stride) then need no multiplier reasoning to see that two threads never
/// visit the same index. Numeral steps are skipped: `r * c` is linear.
pub(super) fn stride_lemmas(walks: [&Walk; 2], out: &mut Vec<Bool>) {
    for s1 in &walks[0].strides {
        for s2 in &walks[1].strides {
            let same = s1.lp == s2.lp && s1.var == s2.var && s1.step == s2.step;
            if !same || s1.count == s2.count || s1.step.as_u64().is_some() || s1.val.get_size() != s2.val.get_size() {
                continue;
            }
            out.push(stride_lemma(s1, s2));
        }
    }
}

/// The lemma of [`stride_lemmas`] for one pair of strides (same step term).
pub(super) fn stride_lemma(s1: &symex::Stride, s2: &symex::Stride) -> Bool {
    let zero = numeral(0, s1.step.get_size());
    let step = &s1.step;
    let magnitude = step.bvslt(&zero).ite(&step.bvneg(), step);
    let diff = s1.init.bvsub(&s2.init);
    let close = Bool::and(&[diff.bvslt(&magnitude), diff.bvneg().bvslt(&magnitude)]);
    let premises = Bool::and(&[s1.fits.clone(), s2.fits.clone(), s1.val.eq(&s2.val), close]);
    premises.implies(s1.count.eq(&s2.count))
}

/// A condition under which the unsigned product `x * y` does not overflow: one operand below
/// 2^k and the other below 2^(w-k) for one of a few splits k (or an operand at most 1).
pub(super) fn unsigned_exact(x: &BV, y: &BV) -> Bool {
    let w = x.get_size();
    let below = |v: &BV, bits: u32| v.bvult(numeral(1u64.checked_shl(bits).unwrap_or(u64::MAX), w));
    let one = numeral(1, w);
    let mut cases = vec![x.bvule(&one), y.bvule(&one)];
    for k in (4..w).step_by(4) {
        cases.push(Bool::and(&[below(x, k), below(y, w - k)]));
    }
    Bool::or(&cases)
}

/// The reading thread's own earlier store `own` wrote exactly the bytes the load `read` reads,
/// with the value the other thread's `store` writes to them.
pub(super) fn own_store_covers(own: &SiteTerms, read: &SiteTerms, store: &SiteTerms) -> Bool {
    let same_value = match (&own.stored, &store.stored) {
        (Some(Val::Bv(x)), Some(Val::Bv(y))) if x.get_size() == y.get_size() => x.eq(y),
        (Some(Val::B(x)), Some(Val::B(y))) => x.eq(y),
        _ => return Bool::from_bool(false),
    };
    Bool::and(&[
        own.at.ctrl.clone(),
        own.offset.eq(&read.offset),
        store.offset.eq(&read.offset),
        same_value,
    ])
}

/// Two stores write different bytes (another offset or size) or different values; `true`
/// when their values cannot be compared (not both stores, or values of different widths).
pub(super) fn stores_differ(a: &SiteTerms, size_a: u32, b: &SiteTerms, size_b: u32) -> Bool {
    let same_value = match (&a.stored, &b.stored) {
        (Some(Val::Bv(x)), Some(Val::Bv(y))) if x.get_size() == y.get_size() => x.eq(y),
        (Some(Val::B(x)), Some(Val::B(y))) => x.eq(y),
        _ => return Bool::from_bool(true),
    };
    if size_a != size_b {
        return Bool::from_bool(true);
    }
    Bool::and(&[a.offset.eq(&b.offset), same_value]).not()
}

/// The two accesses touch a common byte. Accesses of one size at `base + index * size` with
/// one base term overlap exactly when the indices (extended to 64 bits) are equal, which the
/// solver decides far more easily than the byte ranges.
/// Also whether the GCD test ([`divisible`]) proves they never do.
pub(super) fn overlap(a: &SiteTerms, s1: u32, b: &SiteTerms, s2: u32) -> (Bool, bool) {
    if let Some((i1, i2)) = compared_indices(a, s1, b, s2) {
        return (i1.eq(&i2), divisible::never_equal(&i1, &i2));
    }
    let never = divisible::never_overlap(&a.offset, s1, &b.offset, s2);
    (byte_overlap(&a.offset, s1, &b.offset, s2), never)
}

/// The element indices two accesses overlap exactly when equal: when both are one base plus
/// an index of one access size (widened to 64 bits when their widths or signedness differ).
pub(super) fn compared_indices(a: &SiteTerms, s1: u32, b: &SiteTerms, s2: u32) -> Option<(BV, BV)> {
    let (Some((i1, x1)), Some((i2, x2)), true) = (&a.index, &b.index, s1 == s2 && a.base == b.base) else {
        return None;
    };
    Some(if x1 == x2 && i1.get_size() == i2.get_size() {
        (i1.clone(), i2.clone())
    } else {
        (resize(i1, 64, *x1), resize(i2, 64, *x2))
    })
}

/// `[o1, o1+s1)` and `[o2, o2+s2)` intersect (computed in 66 bits: no wrap-around).
pub(super) fn byte_overlap(o1: &BV, s1: u32, o2: &BV, s2: u32) -> Bool {
    let x1 = o1.sign_ext(2);
    let x2 = o2.sign_ext(2);
    let e1 = x1.bvadd(numeral(s1 as u64, 66));
    let e2 = x2.bvadd(numeral(s2 as u64, 66));
    Bool::and(&[x1.bvslt(&e2), x2.bvslt(&e1)])
}

#[cfg(test)]
mod radix_tests {
    use super::*;
    use crate::ir::{Label, VarId};
    use z3::{SatResult, Solver};

    /// The lemmas about offsets `y * w + c` (signed and unsigned products, one and two levels
    /// of digits) are valid bit-vector formulas: Z3 finds no assignment of 8-bit unknowns
    /// that falsifies one. A lemma that was not valid could make a racy query unsatisfiable.
    #[test]
    fn stride_lemmas_are_valid() {
        // The closed form of `v += step` as the walk builds it, scaled down (a 4-bit variable,
        // a 4-bit iteration counter, the exact sum in 10 bits) so that the check is quick.
        crate::smt::fresh_context(|| {
            for (var_signed, step_signed, sub) in [(true, false, false), (false, false, false), (true, true, true)] {
                let (w, rw, wide) = (4, 4, 10);
                let ext = |x: &BV, s: bool| if s { x.sign_ext(wide - w) } else { x.zero_ext(wide - w) };
                let stride = |tag: &str| {
                    let init = BV::new_const(format!("init{tag}"), w);
                    let step = BV::new_const("step", w);
                    let r = BV::new_const(format!("r{tag}"), rw);
                    let delta = r.bvmul(&step);
                    let val = if sub { init.bvsub(&delta) } else { init.bvadd(&delta) };
                    let d = r.zero_ext(wide - rw).bvmul(ext(&step, step_signed));
                    let exact = if sub {
                        ext(&init, var_signed).bvsub(&d)
                    } else {
                        ext(&init, var_signed).bvadd(&d)
                    };
                    let (lo, hi) = if var_signed {
                        (crate::smt::numeral_i(-8, wide), crate::smt::numeral_i(8, wide))
                    } else {
                        (crate::smt::numeral_i(0, wide), numeral(16, wide))
                    };
                    let step_ext = if sub {
                        ext(&step, step_signed).bvneg()
                    } else {
                        ext(&step, step_signed)
                    };
                    symex::Stride {
                        lp: Label(0),
                        var: VarId(0),
                        val,
                        count: r,
                        init: ext(&init, var_signed),
                        step: step_ext,
                        fits: Bool::and(&[exact.bvsge(&lo), exact.bvslt(&hi)]),
                    }
                };
                let lemma = stride_lemma(&stride("1"), &stride("2"));
                let s = Solver::new();
                s.assert(lemma.not());
                assert_eq!(s.check(), SatResult::Unsat, "valid: {lemma}");
            }
        });
    }

    #[test]
    fn radix_lemmas_are_valid() {
        crate::smt::fresh_context(|| {
            for signed in [true, false] {
                let bv = |n: &str| BV::new_const(format!("{n}_{signed}"), 8);
                let (z1, z2, h, y1, y2, w, c1, c2) = (
                    bv("z1"),
                    bv("z2"),
                    bv("h"),
                    bv("y1"),
                    bv("y2"),
                    bv("w"),
                    bv("c1"),
                    bv("c2"),
                );
                let mut walk = Walk::default();
                let mut product = |x: &BV, y: &BV| {
                    let p = x.bvmul(y);
                    walk.products.insert(
                        p.clone(),
                        Product {
                            x: x.clone(),
                            y: y.clone(),
                            signed,
                            counter: false,
                        },
                    );
                    p
                };
                // Two levels: ((z * h + y) * w + c).
                let r1 = product(&z1, &h).bvadd(&y1);
                let r2 = product(&z2, &h).bvadd(&y2);
                let t1 = product(&r1, &w).bvadd(&c1);
                let t2 = product(&r2, &w).bvadd(&c2);
                let mut lemmas = Vec::new();
                radix_lemmas([&walk, &Walk::default()], &t1, &t2, 3, &mut lemmas);
                assert_eq!(lemmas.len(), 2, "one lemma per level (signed {signed})");
                for l in &lemmas {
                    let s = Solver::new();
                    s.assert(l.not());
                    assert_eq!(s.check(), SatResult::Unsat, "valid (signed {signed}): {l}");
                }
            }
        });
    }
}
