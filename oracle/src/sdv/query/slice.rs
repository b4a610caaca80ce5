//! Slices of a query: the conjuncts connected to the two offsets through shared constants,
//! asked first (an unsatisfiable slice settles the query).

use super::super::symex::SiteTerms;
use crate::smt::{conjuncts, op_kind};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use z3::ast::{Ast, Bool, Dynamic};
use z3::DeclKind;

/// Names of the uninterpreted constants in `root` (memoized per term; an explicit stack, as
/// terms of long straight-line kernels are deep).
pub(super) fn constants(root: &Dynamic, memo: &mut HashMap<Dynamic, Rc<HashSet<String>>>) -> Rc<HashSet<String>> {
    let mut stack = vec![(root.clone(), false)];
    while let Some((t, expanded)) = stack.pop() {
        if memo.contains_key(&t) {
            continue;
        }
        if t.kind() == z3::AstKind::App && t.num_children() == 0 {
            let name = t.to_string();
            let mut out = HashSet::new();
            // `true`, `false` and an empty `and`/`or` are applications without arguments too.
            if !matches!(name.as_str(), "true" | "false" | "and" | "or") {
                out.insert(name);
            }
            memo.insert(t, Rc::new(out));
        } else if expanded {
            let mut out = HashSet::new();
            for c in t.children() {
                out.extend(memo[&c].iter().cloned());
            }
            memo.insert(t, Rc::new(out));
        } else {
            let children = t.children();
            stack.push((t, true));
            stack.extend(
                children
                    .into_iter()
                    .filter(|c| !memo.contains_key(c))
                    .map(|c| (c, false)),
            );
        }
    }
    memo[root].clone()
}

/// The two offsets of a query, as the roots of its slice.
pub(super) fn offset_roots(s1: &SiteTerms, s2: &SiteTerms) -> [Dynamic; 2] {
    [Dynamic::from_ast(&s1.offset), Dynamic::from_ast(&s2.offset)]
}

/// The conjuncts of `parts` connected to the terms `roots` through constants other than the
/// thread and block indices named in `hubs` (nearly every conjunct mentions those); `None` when
/// that is all of them. Dropping conjuncts only relaxes the query, so an unsatisfiable slice
/// proves the whole query unsatisfiable.
pub(crate) fn slice(
    parts: &[Bool],
    roots: &[Dynamic],
    hubs: &HashSet<String>,
    memo: &mut HashMap<Dynamic, Rc<HashSet<String>>>,
) -> Option<Slice> {
    let all = conjuncts(parts);
    let hub = |n: &str| hubs.contains(n);
    let names = |t: &Dynamic, memo: &mut HashMap<Dynamic, Rc<HashSet<String>>>| -> HashSet<String> {
        constants(t, memo).iter().filter(|n| !hub(n)).cloned().collect()
    };
    // A conjunct is taken when its anchor meets what the roots depend on; taking it adds all
    // its constants. The anchor of `c => x` is `x` alone: a path condition says when a fact
    // holds, not what it is about (most facts of a kernel sit under conditions on its
    // parameters, which would otherwise connect every fact to every offset).
    let (vars, anchors): (Vec<HashSet<String>>, Vec<HashSet<String>>) = all
        .iter()
        .map(|c| {
            let vars = names(&Dynamic::from_ast(c), memo);
            let anchor = if op_kind(&Dynamic::from_ast(c)) == Some(DeclKind::Implies as u32) {
                names(&c.children()[1], memo)
            } else {
                vars.clone()
            };
            (vars, anchor)
        })
        .unzip();
    let mut live: HashSet<String> = HashSet::new();
    for o in roots {
        live.extend(constants(o, memo).iter().filter(|n| !hub(n)).cloned());
    }
    let mut taken = vec![false; all.len()];
    loop {
        let mut grew = false;
        for (i, (v, a)) in vars.iter().zip(&anchors).enumerate() {
            if !taken[i] && (a.is_empty() || a.iter().any(|n| live.contains(n))) {
                taken[i] = true;
                grew = true;
                live.extend(v.iter().cloned());
            }
        }
        if !grew {
            break;
        }
    }
    let total = all.len();
    let kept: Vec<Bool> = all.into_iter().zip(taken).filter(|(_, t)| *t).map(|(c, _)| c).collect();
    (kept.len() < total).then(|| Slice {
        formula: Bool::and(&kept),
        small: kept.len() * 2 <= total,
    })
}

/// What [`slice`] keeps of a formula.
pub(crate) struct Slice {
    /// The kept conjuncts.
    pub formula: Bool,
    /// At most half of the conjuncts are kept: worth a solver call of its own (a slice that
    /// keeps most of the query costs about as much as the query).
    pub small: bool,
}
#[cfg(test)]
mod slice_tests {
    use super::super::super::threads::ThreadVars;
    use super::*;
    use z3::ast::BV;

    #[test]
    fn slice_keeps_what_the_offsets_depend_on_and_drops_the_rest() {
        crate::smt::fresh_context(|| {
            let bv = |n: &str| BV::new_const(n, 32);
            let (tid, it, n, other, more) = (bv("tid1_x"), bv("it5_s"), bv("param_n"), bv("x9_s"), bv("x10_s"));
            let offset = tid.bvadd(&it);
            let c = |v: u64| BV::from_u64(v, 32);
            let parts = vec![
                // Connected to the offset through `it`, and `n` through `it`.
                Bool::and(&[it.bvult(&n), Bool::from_bool(true).implies(n.bvult(c(8)))]),
                // Only thread indices: kept.
                tid.bvult(c(32)),
                // About other values: dropped.
                other.bvadd(&more).eq(c(3)),
                more.bvult(c(5)),
                other.bvugt(&tid),
            ];
            let memo = &mut HashMap::new();
            let hubs: HashSet<String> = ThreadVars::new(1).index_names().collect();
            let s = slice(&parts, &[Dynamic::from_ast(&offset)], &hubs, memo).expect("drops conjuncts");
            assert!(s.small, "drops half of the conjuncts");
            let text = s.formula.to_string();
            assert!(text.contains("param_n") && text.contains("tid1_x"), "{text}");
            assert!(!text.contains("x9_s") && !text.contains("x10_s"), "{text}");
            // Nothing to drop: no slice.
            assert!(slice(&parts[..2], &[Dynamic::from_ast(&offset)], &hubs, memo).is_none());
        });
    }

    #[test]
    fn facts_under_a_path_condition_are_sliced_by_what_they_say() {
        crate::smt::fresh_context(|| {
            let bv = |n: &str| BV::new_const(n, 32);
            let (tid, n, it, ex) = (bv("tid1_x"), bv("param_n"), bv("it5_s"), bv("ex9_s"));
            let c = |v: u64| BV::from_u64(v, 32);
            let offset = tid.bvadd(&it);
            // The path condition mentions `n`, which the offset's own guard connects to; the
            // facts under it are about `it` (kept) and about another loop's exit count (dropped).
            let guard = it.bvult(&n);
            let parts = vec![
                guard.clone(),
                guard.implies(Bool::and(&[it.bvult(c(8)), ex.bvult(c(32)), ex.bvugt(c(0))])),
                n.bvugt(c(0)).implies(ex.eq(c(4))),
            ];
            let memo = &mut HashMap::new();
            let hubs: HashSet<String> = ThreadVars::new(1).index_names().collect();
            let s = slice(&parts, &[Dynamic::from_ast(&offset)], &hubs, memo).expect("drops conjuncts");
            let text = s.formula.to_string();
            assert!(text.contains("it5_s") && text.contains("param_n"), "{text}");
            assert!(!text.contains("ex9_s"), "{text}");
            // 2 of 5 conjuncts kept: small enough for a call of its own.
            assert!(s.small);
        });
    }
}
