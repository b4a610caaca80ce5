//! Path bounds: where a thread's access is in its loops on the barrier-free path between the
//! two accesses (found by the barrier intervals), and their term over the walks.

use super::super::symex::Walk;
use crate::ir::*;
use crate::smt::numeral;
use z3::ast::Bool;

/// Where one thread's access is in one of its loops, known from the barrier-free path that
/// connects the two accesses (the barrier intervals find the paths; a query narrowed by their
/// bounds considers only the executions one of them allows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Bound {
    /// In the given iteration of the loop (0: the first).
    Iter(Label, u32),
    /// In the loop's last iteration.
    Last(Label),
    /// The loop's first test failed (the path bypassed it): its body never ran there.
    Skipped(Label),
}

/// One path's bounds: (thread 1 or 2, bound); every bound of the set holds.
pub(crate) type PathBounds = Vec<(u8, Bound)>;

/// The disjunction of the paths' bounds, or `None` when some path's bounds say nothing the walks
/// can express.
pub(super) fn bounds_term(alternatives: &[PathBounds], walks: [&Walk; 2]) -> Option<Bool> {
    let mut terms = Vec::new();
    for alt in alternatives {
        let conj: Vec<Bool> = alt
            .iter()
            .filter_map(|(t, b)| {
                let w = walks[(*t as usize).clamp(1, 2) - 1];
                match b {
                    Bound::Iter(l, j) => {
                        let it = w.iters.get(l)?.eq(numeral(*j as u64, 32));
                        match (j, w.first.get(l)) {
                            (0, Some(f)) => Some(Bool::and(&[it, f.clone()])),
                            _ => Some(it),
                        }
                    }
                    Bound::Last(l) => w.last.get(l).cloned(),
                    Bound::Skipped(l) => w.skipped.get(l).cloned(),
                }
            })
            .collect();
        if conj.is_empty() {
            return None;
        }
        terms.push(Bool::and(&conj));
    }
    (!terms.is_empty()).then(|| Bool::or(&terms))
}
