//! Races that only overlapping tensor layouts make: a byte offset written as
//! `Σ strideₖ · coordₖ + coord₀`, the strides products of the kernel's parameters (`nb1`,
//! `stride_col`), is split by stride; a race in which both threads touch the same coordinates
//! happens for every layout, one in which they cannot needs strides that put two distinct
//! elements at one address (a zero stride, rows closer than their length).

use crate::smt::{numeral, op_kind};
use std::collections::BTreeMap;
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::DeclKind;

/// At most this many terms are taken apart (larger offsets are not classified).
const MAX_TERMS: usize = 4096;

/// At most this many nestings of constant choices are taken out.
const MAX_ROUNDS: usize = 16;

/// One offset split by stride: the coordinate that multiplies each stride (keyed by the stride's
/// factors as Z3 prints them; `[]` for the part no parameter scales).
#[derive(Default)]
struct ByStride {
    coords: BTreeMap<Vec<String>, Vec<BV>>,
    params: Vec<String>,
    /// Whether each opened extension gets a key of its own (by its rank in the offset), or
    /// shares one with the extensions under the same stride (their coordinates then only
    /// agree in sum: a weaker condition, so never a race wrongly called a layout race).
    numbered: bool,
    opened: usize,
}

/// The constraint that both offsets have the same coordinate for every stride, and the
/// parameters that make up the strides; `None` when no parameter scales either offset or an
/// offset cannot be split.
pub(crate) fn same_coordinates(a: &BV, b: &BV) -> Option<(Bool, Vec<String>)> {
    if a.get_size() != b.get_size() {
        return None;
    }
    let (a, b) = (&without_constant_choices(a)?, &without_constant_choices(b)?);
    // Offsets of one shape (a statement racing with itself) compare each extension apart.
    let (sa, sb) = match (split(a, true)?, split(b, true)?) {
        (x, y) if x.coords.keys().eq(y.coords.keys()) => (x, y),
        _ => (split(a, false)?, split(b, false)?),
    };
    let mut params: Vec<String> = sa.params.iter().chain(&sb.params).cloned().collect();
    params.sort();
    params.dedup();
    if params.is_empty() {
        return None;
    }
    let mut keys: Vec<&Vec<String>> = sa.coords.keys().chain(sb.coords.keys()).collect();
    keys.sort();
    keys.dedup();
    let sum = |s: &ByStride, k: &Vec<String>, width: u32| match s.coords.get(k) {
        Some(ts) => ts.iter().skip(1).fold(ts[0].clone(), |acc, t| acc.bvadd(t)),
        None => numeral(0, width),
    };
    let mut eqs: Vec<Bool> = Vec::new();
    for k in keys {
        let width = sa.coords.get(k).or(sb.coords.get(k))?[0].get_size();
        let (x, y) = (sum(&sa, k, width), sum(&sb, k, width));
        if x.get_size() != y.get_size() {
            return None;
        }
        eqs.push(x.eq(y));
    }
    Some((Bool::and(&eqs), params))
}

/// `t` with every choice under a condition that is constant (`ite(true, (int)cols, uninit)`, left
/// anywhere in a term by merged assignments) replaced by the value chosen; the rest keeps its
/// shape (Z3's rewriter would turn the extensions the split opens into concatenations).
fn without_constant_choices(t: &BV) -> Option<BV> {
    let mut t = t.clone();
    for _ in 0..MAX_ROUNDS {
        let mut pairs: Vec<(Dynamic, Dynamic)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut stack = vec![Dynamic::from_ast(&t)];
        while let Some(d) = stack.pop() {
            if !seen.insert(d.clone()) {
                continue;
            }
            if seen.len() > MAX_TERMS {
                return None;
            }
            let kids = d.children();
            let chosen = (op_kind(&d) == Some(DeclKind::Ite as u32))
                .then(|| kids.first()?.as_bool()?.simplify().as_bool())
                .flatten();
            match chosen {
                Some(c) => pairs.push((d.clone(), kids[if c { 1 } else { 2 }].clone())),
                None => stack.extend(kids),
            }
        }
        if pairs.is_empty() {
            return Some(t);
        }
        let refs: Vec<(&Dynamic, &Dynamic)> = pairs.iter().map(|(a, b)| (a, b)).collect();
        t = t.substitute(&refs);
    }
    None
}

/// Splits `t` into stride-scaled coordinates.
fn split(t: &BV, numbered: bool) -> Option<ByStride> {
    let mut out = ByStride {
        numbered,
        ..ByStride::default()
    };
    let mut steps = 0;
    out.sum(t, "", &mut steps)?;
    Some(out)
}

/// How a term is made: of parameters (and numerals) only, without any parameter, or both.
#[derive(PartialEq)]
enum Made {
    Parameters(Vec<String>),
    NoParameter,
    Mixed,
}

impl ByStride {
    /// Adds the summands of `t` under `prefix` (the path into an extension of a sum: the
    /// coordinates inside one are compared on their own).
    fn sum(&mut self, t: &BV, prefix: &str, steps: &mut usize) -> Option<()> {
        let mut terms = Vec::new();
        self.summands(t, false, &mut terms, steps)?;
        // A summand that is a product is flattened into its factors by `product` itself.
        for (u, negated) in terms {
            self.product(std::slice::from_ref(&u), negated, prefix, steps)?;
        }
        Some(())
    }

    /// The summands of `t` (`±u`), in order.
    fn summands(&self, t: &BV, negated: bool, out: &mut Vec<(BV, bool)>, steps: &mut usize) -> Option<()> {
        let mut stack = vec![(t.clone(), negated)];
        while let Some((t, negated)) = stack.pop() {
            *steps += 1;
            if *steps > MAX_TERMS {
                return None;
            }
            let kids = || t.children().iter().filter_map(|c| c.as_bv()).collect::<Vec<_>>();
            match op_kind(&Dynamic::from_ast(&t)) {
                Some(k) if k == DeclKind::Badd as u32 => stack.extend(kids().into_iter().rev().map(|c| (c, negated))),
                Some(k) if k == DeclKind::Bsub as u32 => {
                    for (i, c) in kids().into_iter().enumerate().rev() {
                        stack.push((c, negated ^ (i > 0)));
                    }
                }
                Some(k) if k == DeclKind::Bneg as u32 => stack.extend(kids().into_iter().map(|c| (c, !negated))),
                // A choice under a constant condition (a pointer picked by `if constexpr`).
                Some(k) if k == DeclKind::Ite as u32 && constant_choice(&t).is_some() => {
                    stack.push((constant_choice(&t).expect("checked"), negated))
                }
                _ => out.push((t, negated)),
            }
        }
        Some(())
    }

    /// Adds `±Π factors`: the parameter-only factors are the stride, the parameter-free ones
    /// its coordinate. A factor that mixes both is distributed when it is a sum, opened when it
    /// extends a narrower sum (an `int` index widened to 64 bits: its own coordinates must then
    /// agree); any other mixed factor (a division by a size) is a coordinate as a whole.
    fn product(&mut self, factors: &[BV], negated: bool, prefix: &str, steps: &mut usize) -> Option<()> {
        let width = factors.first()?.get_size();
        // Choices under constant conditions are the value chosen.
        if factors.iter().any(|f| constant_choice(f).is_some()) {
            let chosen: Vec<BV> = factors
                .iter()
                .map(|f| constant_choice(f).unwrap_or_else(|| f.clone()))
                .collect();
            return self.product(&chosen, negated, prefix, steps);
        }
        // Nested products are one product.
        if factors.iter().any(is_product) {
            let mut flat = Vec::new();
            let mut stack: Vec<BV> = factors.iter().rev().cloned().collect();
            while let Some(f) = stack.pop() {
                *steps += 1;
                if *steps > MAX_TERMS {
                    return None;
                }
                if is_product(&f) {
                    stack.extend(f.children().iter().rev().filter_map(|c| c.as_bv()));
                } else {
                    flat.push(f);
                }
            }
            return self.product(&flat, negated, prefix, steps);
        }
        if let Some(i) = factors.iter().position(|f| is_sum(f) && made_of(f) == Made::Mixed) {
            // c · (a + b) = c·a + c·b, exactly in modular arithmetic.
            let rest: Vec<BV> = factors
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|x| x.1.clone())
                .collect();
            let mut terms = Vec::new();
            self.summands(&factors[i], negated, &mut terms, steps)?;
            for (u, neg) in terms {
                let mut fs = rest.clone();
                fs.push(u);
                self.product(&fs, neg, prefix, steps)?;
            }
            return Some(());
        }
        let mut stride: Vec<String> = Vec::new();
        let mut coord: Option<BV> = None;
        let mut opened = Vec::new();
        let (mut names, mut varying) = (Vec::new(), false);
        for f in factors {
            match made_of(f) {
                Made::Parameters(ns) => {
                    stride.push(f.to_string());
                    names.extend(ns);
                }
                Made::Mixed if is_extension(f) => opened.push(f.children()[0].as_bv()?),
                Made::NoParameter | Made::Mixed => {
                    varying |= op_kind(&Dynamic::from_ast(f)) != Some(DeclKind::Bnum as u32);
                    coord = Some(coord.map_or(f.clone(), |c| c.bvmul(f)));
                }
            }
        }
        // Only a parameter that scales a coordinate is a stride; one added as it is (an offset
        // both threads share, `dim / 2`) cannot put two elements at one address.
        if varying || !opened.is_empty() {
            self.params.extend(names);
        }
        stride.sort();
        let key = format!("{prefix}[{}]", stride.join("*"));
        if opened.is_empty() {
            let mut coord = coord.unwrap_or_else(|| numeral(1, width));
            if negated {
                coord = coord.bvneg();
            }
            self.coords.entry(vec![key]).or_default().push(coord);
            return Some(());
        }
        if let Some(c) = coord {
            self.coords.entry(vec![format!("{key}·")]).or_default().push(c);
        }
        for (i, inner) in opened.iter().enumerate() {
            let rank = if self.numbered { self.opened } else { i };
            self.opened += 1;
            self.sum(inner, &format!("{key}·ext{rank}:{}/", inner.get_size()), steps)?;
        }
        Some(())
    }
}

/// The branch an `ite` with a literal condition takes (`ite true a b` is `a`), followed through
/// nested ones.
fn constant_choice(t: &BV) -> Option<BV> {
    let mut t = t.clone();
    let mut chose = false;
    while op_kind(&Dynamic::from_ast(&t)) == Some(DeclKind::Ite as u32) {
        let kids = t.children();
        let branch = match kids.first().and_then(|c| c.as_bool()).and_then(|c| c.as_bool()) {
            Some(true) => 1,
            Some(false) => 2,
            None => break,
        };
        t = kids.get(branch)?.as_bv()?;
        chose = true;
    }
    chose.then_some(t)
}

/// Whether a term is a product.
fn is_product(t: &BV) -> bool {
    op_kind(&Dynamic::from_ast(t)) == Some(DeclKind::Bmul as u32)
}

/// Whether a term is a sum or difference.
fn is_sum(t: &BV) -> bool {
    let k = op_kind(&Dynamic::from_ast(t));
    [DeclKind::Badd, DeclKind::Bsub, DeclKind::Bneg]
        .iter()
        .any(|d| k == Some(*d as u32))
}

/// Whether a term widens another (`sign_extend`, `zero_extend`).
fn is_extension(t: &BV) -> bool {
    let k = op_kind(&Dynamic::from_ast(t));
    k == Some(DeclKind::SignExt as u32) || k == Some(DeclKind::ZeroExt as u32)
}

/// Whether a term is made of parameters (and values computed from uniform ones) and numerals
/// only (with the parameters' names), of neither, or of both.
fn made_of(t: &BV) -> Made {
    let (mut names, mut other) = (Vec::new(), false);
    let mut stack = vec![Dynamic::from_ast(t)];
    while let Some(d) = stack.pop() {
        let children = d.children();
        if children.is_empty() && op_kind(&d) != Some(DeclKind::Bnum as u32) {
            let name = d.decl().name();
            match name.strip_prefix("param_") {
                Some(p) => names.push(p.to_string()),
                // A value computed from uniform ones in both threads' shared context.
                None if name.ends_with("_s") => {}
                None => other = true,
            }
        }
        stack.extend(children);
    }
    match (names.is_empty(), other) {
        (false, false) => Made::Parameters(names),
        (true, _) => Made::NoParameter,
        (false, true) => Made::Mixed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::{SatResult, Solver};

    fn bv(name: &str) -> BV {
        BV::new_const(name, 64)
    }

    #[test]
    fn splits_a_strided_offset_by_its_parameters() {
        let (t1, t2, s) = (bv("tid1"), bv("tid2"), bv("param_stride"));
        let row = bv("param_row");
        // tid·stride + row, for two threads.
        let (a, b) = (t1.bvmul(&s).bvadd(&row), t2.bvmul(&s).bvadd(&row));
        let (same, params) = same_coordinates(&a, &b).unwrap();
        // `row` is added as it is (an offset both threads share), not a stride.
        assert_eq!(params, vec!["stride".to_string()]);
        // Same coordinates means the same thread index.
        let solver = Solver::new();
        solver.assert(&same);
        solver.assert(&t1.eq(&t2).not());
        assert_eq!(solver.check(), SatResult::Unsat);
    }

    #[test]
    fn opens_an_int_index_widened_to_64_bits() {
        let t32 = |n: &str| BV::new_const(n, 32);
        let (s, row) = (t32("param_stride_col"), t32("blk_x"));
        // 4 · sext(tid · stride_col + row) + sext(blk_y · stride_channel)
        let off = |tid: &BV, blk_y: &BV| {
            numeral(4, 64)
                .bvmul(tid.bvmul(&s).bvadd(&row).sign_ext(32))
                .bvadd(blk_y.bvmul(t32("param_stride_channel")).sign_ext(32))
        };
        let (t1, t2, y1, y2) = (t32("tid1"), t32("tid2"), t32("y1"), t32("y2"));
        let (same, params) = same_coordinates(&off(&t1, &y1), &off(&t2, &y2)).unwrap();
        assert_eq!(params, vec!["stride_channel".to_string(), "stride_col".to_string()]);
        let solver = Solver::new();
        solver.assert(&same);
        solver.assert(&Bool::or(&[t1.eq(&t2).not(), y1.eq(&y2).not()]));
        assert_eq!(solver.check(), SatResult::Unsat);
    }

    #[test]
    fn a_choice_under_a_constant_condition_is_the_value_chosen() {
        let (t1, t2, s) = (bv("tid1"), bv("tid2"), bv("param_stride"));
        let off = |t: &BV| {
            Bool::from_bool(true)
                .ite(&t.bvmul(&s), &bv("uninit"))
                .bvadd(numeral(8, 64))
        };
        let (same, params) = same_coordinates(&off(&t1), &off(&t2)).unwrap();
        assert_eq!(params, vec!["stride".to_string()]);
        let solver = Solver::new();
        solver.assert(&same);
        solver.assert(&t1.eq(&t2).not());
        assert_eq!(solver.check(), SatResult::Unsat);
    }

    #[test]
    fn offsets_without_parameters_are_not_split() {
        let (t1, t2) = (bv("tid1"), bv("tid2"));
        assert!(same_coordinates(&t1.bvmul(numeral(4, 64)), &t2.bvmul(numeral(4, 64))).is_none());
        // A parameter mixed with a thread index in one factor is a coordinate, not a stride.
        let mixed = |t: &BV| t.bvudiv(bv("param_n"));
        assert!(same_coordinates(&mixed(&t1), &mixed(&t2)).is_none());
    }
}
