//! The GCD test of dependence analysis, on bit-vector terms: two accesses whose offsets differ
//! by a sum of multiples of 2^k plus a constant that no such sum can make up never overlap.
//!
//! `row[4 * t + 1]` and `row[4 * u + 2]` are the common case: the difference is `4t - 4u - 1`,
//! which is odd for every `t` and `u`, so the indices are never equal. Z3 proves that too, in
//! 1–2 ms after a model search that misses; this test settles it in microseconds, before either.
//!
//! Bit-vector arithmetic is arithmetic modulo 2^w, so a term built from sums, differences,
//! negations and products or left shifts by numerals is exactly `Σ aᵢ·xᵢ + c (mod 2^w)` over its
//! other subterms `xᵢ` (the atoms). `Σ aᵢ·xᵢ ≡ d (mod 2^w)` has a solution for some values of
//! the atoms exactly when `gcd(a₁, …, 2^w)`, the smallest power of two among the `aᵢ`, divides
//! `d`. Atoms are treated as independent unknowns: whatever they really range over is a subset,
//! so a congruence without solutions proves the accesses disjoint, and one with solutions says
//! nothing.

use crate::bv_eval::{mask, numeral};
use crate::smt::op_kind;
use std::collections::HashMap;
use z3::ast::{Ast, Dynamic, BV};
use z3::DeclKind;

/// Subterms visited per offset at most (offsets are DAGs: sharing could make a tree walk long).
const MAX_STEPS: usize = 512;

/// A term as `Σ coefficient·atom + constant (mod 2^width)`, each atom with the number of low
/// bits known to be zero in it (a product of factors with low zero bits has their sum; an
/// extension's atom stands for what is left once its operand's known low bits are moved to the
/// constant).
struct Linear {
    atoms: HashMap<Dynamic, (u128, u32)>,
    constant: u128,
    width: u32,
}

/// Whether the bytes `[o1, o1 + s1)` and `[o2, o2 + s2)` are disjoint for every value of the
/// offsets' atoms (offsets of one width, read as signed, as the checkers' overlap test does).
pub(crate) fn never_overlap(o1: &BV, s1: u32, o2: &BV, s2: u32) -> bool {
    // Bulk accesses (a copy of a whole tile) would make the loop below long: no conclusion.
    const MAX_SPAN: u32 = 4096;
    if s1.saturating_add(s2) > MAX_SPAN {
        return false;
    }
    let Some(diff) = difference(o1, o2) else {
        return false;
    };
    // They overlap exactly when o1 - o2 lies strictly between -s1 and s2; each such value of
    // the difference must be out of reach.
    (-(i128::from(s1)) + 1..i128::from(s2)).all(|d| !diff.reaches(d as u128))
}

/// Whether `i1 = i2` has no solution.
pub(crate) fn never_equal(i1: &BV, i2: &BV) -> bool {
    difference(i1, i2).is_some_and(|d| !d.reaches(0))
}

/// `a - b` as a linear form; `None` when the widths differ or a term is too large to read.
fn difference(a: &BV, b: &BV) -> Option<Linear> {
    if a.get_size() != b.get_size() || a.get_size() > 127 {
        return None;
    }
    let mut steps = 0;
    let mut l = Linear::new(a.get_size());
    l.add(a, 1, &mut steps)?;
    l.add(b, mask(a.get_size()), &mut steps)?;
    Some(l)
}

impl Linear {
    fn new(width: u32) -> Linear {
        Linear {
            atoms: HashMap::new(),
            constant: 0,
            width,
        }
    }

    /// Adds `factor · t`.
    fn add(&mut self, t: &BV, factor: u128, steps: &mut usize) -> Option<()> {
        let m = mask(self.width);
        let mut stack = vec![(t.clone(), factor & m)];
        while let Some((t, f)) = stack.pop() {
            *steps += 1;
            if *steps > MAX_STEPS {
                return None;
            }
            if f == 0 {
                continue;
            }
            let d = Dynamic::from_ast(&t);
            let kids = || t.children().iter().filter_map(|c| c.as_bv()).collect::<Vec<_>>();
            match op_kind(&d) {
                Some(k) if k == DeclKind::Bnum as u32 => {
                    self.constant = (self.constant + f.wrapping_mul(numeral(&d)?)) & m;
                }
                Some(k) if k == DeclKind::Badd as u32 => stack.extend(kids().into_iter().map(|c| (c, f))),
                Some(k) if k == DeclKind::Bsub as u32 => {
                    for (i, c) in kids().into_iter().enumerate() {
                        stack.push((c, if i == 0 { f } else { f.wrapping_neg() & m }));
                    }
                }
                Some(k) if k == DeclKind::Bneg as u32 => {
                    stack.extend(kids().into_iter().map(|c| (c, f.wrapping_neg() & m)));
                }
                Some(k) if k == DeclKind::Bmul as u32 => self.product(&t, f, &mut stack, steps)?,
                Some(k) if k == DeclKind::Bshl as u32 => {
                    let ks = kids();
                    match ks.get(1).and_then(|s| number(&Dynamic::from_ast(s))) {
                        Some(s) if s >= u128::from(self.width) => {}
                        Some(s) => stack.push((ks[0].clone(), (f << s) & m)),
                        None => self.atom(d, f, 0),
                    }
                }
                Some(k) if k == DeclKind::ZeroExt as u32 || k == DeclKind::SignExt as u32 => {
                    // An extension keeps the low bits of its operand: when the operand is
                    // `c (mod 2^s)`, so is the extension, which is `c mod 2^s + 2^s·y`.
                    let (low, zeros) = match kids().first() {
                        Some(x) => {
                            let l = Linear::of(x, steps)?;
                            (l.constant & mask(l.step()), l.step())
                        }
                        None => (0, 0),
                    };
                    self.constant = (self.constant + f.wrapping_mul(low)) & m;
                    self.atom(d, f, zeros);
                }
                _ => self.atom(d, f, 0),
            }
        }
        Some(())
    }

    /// `t` as a linear form.
    fn of(t: &BV, steps: &mut usize) -> Option<Linear> {
        let mut l = Linear::new(t.get_size());
        l.add(t, 1, steps)?;
        Some(l)
    }

    /// Adds `f · t` for a product `t`: its numeral factors scale the one other factor, if there
    /// is only one; otherwise the product is an atom, with the low zero bits of its factors.
    fn product(&mut self, t: &BV, f: u128, stack: &mut Vec<(BV, u128)>, steps: &mut usize) -> Option<()> {
        let m = mask(self.width);
        let mut scale = f;
        let mut rest = Vec::new();
        for c in t.children() {
            match number(&c) {
                Some(n) => scale = scale.wrapping_mul(n) & m,
                None => rest.push(c.as_bv()?),
            }
        }
        match rest.as_slice() {
            [] => self.constant = (self.constant + scale) & m,
            [x] => stack.push((x.clone(), scale)),
            _ => {
                let mut zeros = 0;
                for x in &rest {
                    zeros += Linear::of(x, steps)?.zeros();
                }
                self.atom(Dynamic::from_ast(&Self::unscaled(&rest)), scale, zeros.min(self.width));
            }
        }
        Some(())
    }

    /// The product of `factors` (the atom of a product scaled by numerals).
    fn unscaled(factors: &[BV]) -> BV {
        factors[1..].iter().fold(factors[0].clone(), |p, x| p.bvmul(x))
    }

    fn atom(&mut self, d: Dynamic, f: u128, zeros: u32) {
        let m = mask(self.width);
        let a = self.atoms.entry(d).or_insert((0, zeros));
        a.0 = (a.0 + f) & m;
    }

    /// The smallest power of two (as an exponent) that divides every term `aᵢ·xᵢ` for every value
    /// of the atoms: the width when there are none.
    fn step(&self) -> u32 {
        self.atoms
            .values()
            .filter(|(a, _)| *a != 0)
            .map(|(a, z)| a.trailing_zeros() + z)
            .min()
            .unwrap_or(self.width)
            .min(self.width)
    }

    /// How many low bits of the form are zero for every value of its atoms.
    fn zeros(&self) -> u32 {
        let c = if self.constant == 0 {
            self.width
        } else {
            self.constant.trailing_zeros()
        };
        c.min(self.step())
    }

    /// Whether the form takes the value `v` (mod 2^width) for some values of its atoms:
    /// `2^step` must divide `v - constant`.
    fn reaches(&self, v: u128) -> bool {
        let need = v.wrapping_sub(self.constant) & mask(self.width);
        need == 0 || need.trailing_zeros() >= self.step()
    }
}

/// The value of `d` when it is a numeral.
fn number(d: &Dynamic) -> Option<u128> {
    (op_kind(d)? == DeclKind::Bnum as u32).then(|| numeral(d))?
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::BV;

    fn n(v: u64) -> BV {
        BV::from_u64(v, 32)
    }

    #[test]
    fn strided_elements_of_one_thread_row_never_meet() {
        let (t, u) = (BV::new_const("t", 32), BV::new_const("u", 32));
        // 4t + 1 = 4u + 2: the difference is odd.
        assert!(never_equal(&(&t * n(4) + n(1)), &(&u * n(4) + n(2))));
        // 4t + 1 = 4u + 5 has solutions (u = t - 1).
        assert!(!never_equal(&(&t * n(4) + n(1)), &(&u * n(4) + n(5))));
        // Distributed products and shifts: (t * 8 + u) * 4 + 2 against u << 2.
        let a = (&t * n(8) + &u) * n(4) + n(2);
        assert!(never_equal(&a, &u.bvshl(n(2))));
        // A product of unknowns is an atom with coefficient one: no conclusion.
        assert!(!never_equal(&(&t * &u), &(&u * n(2) + n(1))));
        // t - t + 1 = 0: the atoms cancel.
        assert!(never_equal(&(&t - &t + n(1)), &n(0)));
    }

    #[test]
    fn extensions_and_products_keep_the_low_zero_bits_of_their_operands() {
        let (t, u) = (BV::new_const("t", 32), BV::new_const("u", 32));
        let n64 = |v: u64| BV::from_u64(v, 64);
        // zext(4t) * 4 and zext(4u) * 4 + 4: sixteen-byte strides, four bytes apart.
        let a = (&t * n(4)).zero_ext(32) * n64(4);
        let b = (&u * n(4)).zero_ext(32) * n64(4) + n64(4);
        assert!(never_overlap(&a, 4, &b, 4));
        assert!(!never_overlap(&a, 8, &b, 4));
        // sext(2t + 1) is odd.
        assert!(never_equal(
            &(&t * n(2) + n(1)).sign_ext(32),
            &((&u * n(2)).sign_ext(32))
        ));
        // (2t) * (2u) is a multiple of 4.
        assert!(never_equal(&((&t * n(2)) * (&u * n(2))), &(&t * n(4) + n(2))));
        assert!(!never_equal(&((&t * n(2)) * &u), &(&t * n(4) + n(2))));
    }

    #[test]
    fn byte_ranges_are_disjoint_only_when_every_difference_is_out_of_reach() {
        let (t, u) = (BV::new_const("t", 64), BV::new_const("u", 64));
        let n = |v: u64| BV::from_u64(v, 64);
        // 16t + 4 and 16u + 8, 4 bytes each: differences 16k - 4 never in (-4, 4).
        assert!(never_overlap(&(&t * n(16) + n(4)), 4, &(&u * n(16) + n(8)), 4));
        // The same with 8-byte accesses: 16t + 4 .. 16t + 12 covers 8.
        assert!(!never_overlap(&(&t * n(16) + n(4)), 8, &(&u * n(16) + n(8)), 4));
        // Unrelated offsets: anything may overlap.
        assert!(!never_overlap(&t, 4, &u, 4));
    }

    #[test]
    fn the_verdicts_agree_with_z3() {
        use z3::{SatResult, Solver};
        let (t, u) = (BV::new_const("t", 32), BV::new_const("u", 32));
        let (h, g) = (BV::new_const("h", 16), BV::new_const("g", 16));
        let short = |v: u64| BV::from_u64(v, 16);
        let terms = [
            &t * n(4) + n(1),
            &u * n(4) + n(2),
            (&t * n(6) - &u * n(2)).bvshl(n(1)),
            -(&u * n(12)) + n(3),
            &t * &u + n(1),
            n(7),
            (&h * short(2) + short(1)).sign_ext(16) * n(2),
            (&g * short(4) + short(3)).zero_ext(16) + n(1),
            (&t * n(2)) * (&u * n(6)) + n(2),
        ];
        let mut refuted = 0;
        for a in &terms {
            for b in &terms {
                let s = Solver::new();
                s.assert(a.eq(b));
                if never_equal(a, b) {
                    refuted += 1;
                    assert_eq!(s.check(), SatResult::Unsat, "{a} = {b}");
                }
            }
        }
        // The test refutes pairs of these, not only trivially nothing.
        assert!(refuted >= 10, "{refuted}");
    }
}
