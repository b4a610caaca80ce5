//! Proofs one check keeps for a later check of the same kernel with block-wide barriers added
//! (synthesis verifies every candidate placement so): a conflict query the first check proved
//! unsatisfiable is not asked again when the later check's query implies it.
//!
//! Why skipping is sound. A conflict query is the conjunction of the two threads' walks of the
//! kernel (`symex`) and conditions on them: the accesses overlap, how the threads pair, which
//! iterations of which loops they are in, and the path bounds. A walk passes over every barrier
//! statement; besides the kernel's other statements it reads only the uniformity analysis's
//! non-uniform variables, uniform reads and steering variables and the counter arrays. The
//! later kernel is the earlier one plus barrier statements (the later check inserts them
//! itself). A barrier may make a read uniform (and the variables it feeds), or an array a
//! counter: where a walk of the earlier kernel had one unknown per thread for such a value,
//! the later one has one unknown both threads share, and a counter adds facts; nothing else
//! of a walk depends on them (`WalkInputs::covered_by` checks that it went only that way).
//! Any model of the later formula is then one of the earlier formula (give both per-thread
//! unknowns the shared one's value), for a query of the same access pair, scope, relation,
//! shared loops, other-iteration loop and lock-step group, when its other conditions are at
//! least as strong:
//! `consecutive` only added; `DifferentWarps` in place of `AnyThreads` (it adds a conjunct);
//! path bounds that are a disjunction of conjunctions each containing one of the earlier
//! query's (or the earlier query had no bounds). Adding barriers only removes barrier-free
//! paths and adds `Skipped` bounds, so that is the usual case; when the CFG changes otherwise
//! (unrolling stops at a size limit), the check below says so and the query is asked. A
//! formula that implies an unsatisfiable one is unsatisfiable: the race-free answer stands.
//! Queries that raced, were never asked or came back unknown are asked again.

use super::levels::Uniformity;
use super::query::{Pairing, PathBounds, Query};
use crate::ir::{ArrayId, Kernel, Label};
use crate::report::{IterRelation, RaceScope};
use std::collections::{HashMap, HashSet};

/// Which conflict query: the parts that must be equal for one query to imply another.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    a: (Label, usize),
    b: (Label, usize),
    scope: RaceScope,
    rel: Option<IterRelation>,
    shared: Vec<Label>,
    other_iteration: Option<(Label, bool)>,
    lockstep_group: Option<u32>,
}

/// The parts of a query that may only get stronger from a proved query to one it implies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Narrowing {
    consecutive: bool,
    pairing: Pairing,
    bounds: Vec<PathBounds>,
}

/// A conflict query as the proofs see it.
pub(crate) type Asked = (Key, Narrowing);

/// The query `q` of a job of `scope` and relation `rel` (a main query: no extra bounds, not a
/// "stores differ" or own-read query).
pub(crate) fn asked(q: &Query, scope: RaceScope, rel: Option<IterRelation>) -> Asked {
    debug_assert!(q.also.is_empty() && !q.differ && q.reads_own.is_none());
    let key = Key {
        a: (q.a.0, q.a.1),
        b: (q.b.0, q.b.1),
        scope,
        rel,
        shared: q.shared.clone(),
        other_iteration: q.other_iteration,
        lockstep_group: q.lockstep_group,
    };
    let narrowing = Narrowing {
        consecutive: q.consecutive,
        pairing: q.pairing,
        bounds: q.bounds.clone(),
    };
    (key, narrowing)
}

/// Whether a query narrowed by `new` implies the same query narrowed by `old` (see the module
/// documentation).
fn implies(new: &Narrowing, old: &Narrowing) -> bool {
    let consecutive = new.consecutive || !old.consecutive;
    let pairing =
        new.pairing == old.pairing || (old.pairing == Pairing::AnyThreads && new.pairing == Pairing::DifferentWarps);
    // An empty list is no constraint; a path's bounds are a conjunction.
    let bounds = old.bounds.is_empty()
        || (!new.bounds.is_empty()
            && new
                .bounds
                .iter()
                .all(|n| old.bounds.iter().any(|o| o.iter().all(|b| n.contains(b)))));
    consecutive && pairing && bounds
}

/// What the walks of a kernel read besides its statements (see the module documentation): the
/// uniformity analysis (of which only the non-uniform variables, uniform reads and steering
/// variables) and the counter arrays.
#[derive(Clone, Debug)]
pub(crate) struct WalkInputs {
    unif: Uniformity,
    counters: HashSet<ArrayId>,
}

impl WalkInputs {
    /// The walk inputs of `k` under `unif`.
    pub(crate) fn of(k: &Kernel, unif: &Uniformity) -> WalkInputs {
        WalkInputs {
            unif: unif.clone(),
            counters: super::counters::counter_arrays(k),
        }
    }

    /// Whether every walk made with `later` is one made with `self` with some pairs of
    /// per-thread unknowns made one shared unknown, or more counter facts: fewer non-uniform
    /// variables, more uniform reads, more counters (each only names an unknown `_s` instead
    /// of `_t1`/`_t2`, or adds a conjunct), the same steering variables (those decide what a
    /// walk computes at all).
    fn covered_by(&self, later: &WalkInputs) -> bool {
        let (a, b) = (&self.unif, &later.unif);
        a.steering == b.steering
            && b.nu_vars.is_subset(&a.nu_vars)
            && a.uniform_reads.is_subset(&b.uniform_reads)
            && self.counters.is_subset(&later.counters)
    }
}

/// The conflict queries one check of a kernel proved unsatisfiable, for a check of the same
/// kernel with block-wide barriers added ([`super::check_with_barriers`]).
#[derive(Clone, Debug)]
pub struct Proofs<'k> {
    /// The kernel checked.
    pub(crate) kernel: &'k Kernel,
    inputs: WalkInputs,
    proved: HashMap<Key, Vec<Narrowing>>,
}

impl<'k> Proofs<'k> {
    /// No proofs yet for `kernel`, checked with walk inputs `inputs`.
    pub(crate) fn new(kernel: &'k Kernel, inputs: WalkInputs) -> Proofs<'k> {
        Proofs {
            kernel,
            inputs,
            proved: HashMap::new(),
        }
    }

    /// Records that the query `q` is unsatisfiable.
    pub(crate) fn add(&mut self, (key, narrowing): Asked) {
        self.proved.entry(key).or_default().push(narrowing);
    }

    /// Whether the proofs apply to a kernel whose walks read `inputs` (it must be this
    /// kernel with barrier statements added).
    pub(crate) fn applies(&self, inputs: &WalkInputs) -> bool {
        self.inputs.covered_by(inputs)
    }

    /// Whether query `q` implies one of the proved ones (only meaningful where
    /// [`Proofs::applies`]).
    pub(crate) fn settles(&self, (key, narrowing): &Asked) -> bool {
        self.proved
            .get(key)
            .is_some_and(|old| old.iter().any(|o| implies(narrowing, o)))
    }

    /// The uniformity analysis the check used (as [`super::uniformity`] finds it, unless it
    /// assumed settled reads).
    pub fn uniformity(&self) -> &Uniformity {
        &self.inputs.unif
    }

    /// The counter arrays the check's walks read.
    pub(crate) fn counters(&self) -> &HashSet<ArrayId> {
        &self.inputs.counters
    }

    /// How many queries were proved.
    pub fn len(&self) -> usize {
        self.proved.values().map(Vec::len).sum()
    }

    /// Whether no query was proved.
    pub fn is_empty(&self) -> bool {
        self.proved.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdv::query::Bound;

    fn narrowing(consecutive: bool, pairing: Pairing, bounds: Vec<PathBounds>) -> Narrowing {
        Narrowing {
            consecutive,
            pairing,
            bounds,
        }
    }

    #[test]
    fn only_stronger_narrowings_imply_a_proved_one() {
        use Pairing::*;
        let (l1, l2) = (Label(1), Label(2));
        let b1 = vec![(1, Bound::Last(l1))];
        let b12 = vec![(1, Bound::Last(l1)), (2, Bound::Skipped(l2))];
        let b2 = vec![(2, Bound::Iter(l2, 0))];
        let old = narrowing(false, AnyThreads, vec![b1.clone(), b2.clone()]);
        // Fewer paths, more bounds on a path, consecutive, different warps: stronger.
        assert!(implies(&narrowing(true, DifferentWarps, vec![b12.clone()]), &old));
        assert!(implies(&old, &old));
        // No bounds: weaker than a disjunction of bound sets.
        assert!(!implies(&narrowing(false, AnyThreads, vec![]), &old));
        // A path with bounds no proved path's bounds are within.
        assert!(!implies(
            &narrowing(false, AnyThreads, vec![vec![(2, Bound::Last(l2))]]),
            &old
        ));
        // Weaker pairing or dropped `consecutive`.
        let strong = narrowing(true, DifferentWarps, vec![]);
        assert!(!implies(&narrowing(true, AnyThreads, vec![]), &strong));
        assert!(!implies(&narrowing(false, DifferentWarps, vec![]), &strong));
        assert!(!implies(&narrowing(true, InterBlock, vec![]), &strong));
        // An unbounded proved query is implied by any bounds.
        assert!(implies(
            &narrowing(false, AnyThreads, vec![b1]),
            &narrowing(false, AnyThreads, vec![])
        ));
    }
}
