//! A statement that may race with itself across a loop's back edge is asked under two
//! relations: its first thread in the earlier iteration ([`IterRelation::AcrossBackEdge`]) and
//! in the later one ([`IterRelation::AcrossBackEdgeReversed`]). Swapping the two threads' names
//! maps every execution of one onto an execution of the other, so one solver call answers both:
//! the second job takes the first's answer, its witness's threads swapped.

use super::query::{Outcome, PathBounds, Query};
use crate::report::{IterRelation, Witness};
use std::collections::HashMap;

/// What [`mirrors`] reads of one conflict job.
pub(super) struct Shape<'j, 'k> {
    /// Indices of the two access sites.
    pub sites: (usize, usize),
    /// The iteration relation (intra-block jobs).
    pub rel: Option<IterRelation>,
    /// An intra-block job, asked as it is (no own-read variant).
    pub plain_intra: bool,
    /// The job's query.
    pub q: &'j Query<'k>,
}

/// For each job, the job whose answer, mirrored, is its own: the `AcrossBackEdge` job of the
/// same site pair, when the reversed job's query is the same up to the threads' names (same
/// access, pairing, shared loops and bounds with threads 1 and 2 swapped; no own-read or
/// different-value variant).
pub(super) fn mirrors(jobs: &[Shape]) -> Vec<Option<usize>> {
    let forward: HashMap<((usize, usize), u32), usize> = jobs
        .iter()
        .enumerate()
        .filter_map(|(n, j)| match j.rel {
            Some(IterRelation::AcrossBackEdge(d)) if self_pair(j) => Some(((j.sites, d), n)),
            _ => None,
        })
        .collect();
    jobs.iter()
        .map(|j| match j.rel {
            Some(IterRelation::AcrossBackEdgeReversed(d)) if self_pair(j) => forward
                .get(&(j.sites, d))
                .copied()
                .filter(|&f| mirror_images(&jobs[f], j)),
            _ => None,
        })
        .collect()
}

/// An intra-block job of one access with itself, asked as it is.
fn self_pair(j: &Shape) -> bool {
    let q = j.q;
    j.plain_intra
        && j.sites.0 == j.sites.1
        && q.a.0 == q.b.0
        && q.a.1 == q.b.1
        && q.also.is_empty()
        && !q.differ
        && q.reads_own.is_none()
}

/// Whether `r`'s query is `f`'s with the threads renamed.
fn mirror_images(f: &Shape, r: &Shape) -> bool {
    let (qf, qr) = (f.q, r.q);
    let sorted = |pb: PathBounds| -> PathBounds {
        let mut pb = pb;
        pb.sort();
        pb
    };
    let mut flipped: Vec<PathBounds> = qf
        .bounds
        .iter()
        .map(|pb| sorted(pb.iter().map(|&(t, b)| (3 - t, b)).collect()))
        .collect();
    flipped.sort();
    let mut reversed: Vec<PathBounds> = qr.bounds.iter().cloned().map(sorted).collect();
    reversed.sort();
    qf.shared == qr.shared
        && qf.pairing == qr.pairing
        && qf.lockstep_group == qr.lockstep_group
        && qf.consecutive == qr.consecutive
        && matches!((qf.other_iteration, qr.other_iteration), (Some((l, true)), Some((m, false))) if l == m)
        && flipped == reversed
}

/// `o` with its witness's two threads swapped.
pub(super) fn mirrored(o: &Outcome) -> Outcome {
    match o {
        Outcome::Sat(w) => Outcome::Sat(swapped(w)),
        other => other.clone(),
    }
}

fn swapped(w: &Witness) -> Witness {
    let mut threads = w.threads.clone();
    threads.reverse();
    let values = w
        .values
        .iter()
        .map(|(name, v1, v2)| match v2 {
            Some(v2) => (name.clone(), *v2, Some(*v1)),
            None => (name.clone(), *v1, None),
        })
        .collect();
    Witness {
        threads,
        values,
        ..w.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::*;
    use super::super::*;
    use super::{mirrored, mirrors};
    use crate::ir::BinOp::*;
    use crate::sdv::jobs::shapes;
    use crate::sdv::query::Outcome;

    /// `for (i = 0; i < n; i++) sh[(tid + i) & 63] = 0;`: the store races with itself across
    /// the back edge, its first thread in the earlier iteration or in the later one.
    fn rotating_store() -> Kernel {
        let mut b = Kb::new(Some([64, 1, 1]));
        let sh = b.array("sh", Space::Shared);
        let (i, n) = (b.local("i"), b.param("n"));
        let w = b.write(sh, ub(BitAnd, ub(Add, tid(), var(i)), u(63)));
        let body = b.for_(i, u(0), ub(Lt, var(i), var(n)), ub(Add, var(i), u(1)), vec![w]);
        b.finish(body)
    }

    /// The jobs [`check`] asks of `k`, with their mirrors.
    fn jobs_and_mirrors(k: &Kernel) -> (Vec<Option<IterRelation>>, Vec<Option<usize>>) {
        crate::smt::fresh_context(|| {
            let unif = uniformity(k);
            let tree = LabelTree::new(k);
            let sites = access_sites(k, &tree);
            let mut labels: Vec<Label> = sites.iter().map(|s| s.label).collect();
            labels.dedup();
            let d = decided::decide(k, &unif, decided::Scope::WithBarriers, 1000);
            let iv = Intervals::compute(k, &unif, &d, &tree, &labels);
            let jobs = jobs(k, &SdvOptions::default(), &sites, &tree, &iv);
            (jobs.iter().map(|j| j.rel).collect(), mirrors(&shapes(&jobs)))
        })
    }

    #[test]
    fn the_reversed_self_pair_takes_the_forward_answer() {
        let k = rotating_store();
        let (rels, mirrors) = jobs_and_mirrors(&k);
        let find = |r: IterRelation| rels.iter().position(|&x| x == Some(r)).expect("a job per order");
        let (fwd, rev) = (
            find(IterRelation::AcrossBackEdge(1)),
            find(IterRelation::AcrossBackEdgeReversed(1)),
        );
        assert_eq!(mirrors[rev], Some(fwd));
        assert_eq!(mirrors.iter().flatten().count(), 1, "{rels:?} {mirrors:?}");
        // The report still has the race under both orders.
        let r = check(&k, &SdvOptions::default());
        assert_eq!(r.races.len(), 1, "{r:#?}");
        assert_eq!(
            r.races[0].relations,
            vec![IterRelation::AcrossBackEdge(1), IterRelation::AcrossBackEdgeReversed(1)]
        );
    }

    /// A pair of two statements has no mirror: renaming the threads swaps the statements too.
    /// In `for (...) { sh[tid] = 0; x = sh[tid + 1]; }` the store's pair with itself has one,
    /// its pair with the load none.
    #[test]
    fn pairs_of_two_statements_have_no_mirror() {
        let (rels, mirrors) = jobs_and_mirrors(&store_then_neighbour_load_in_loop());
        let orders = [
            Some(IterRelation::SameIteration),
            Some(IterRelation::AcrossBackEdge(1)),
            Some(IterRelation::AcrossBackEdgeReversed(1)),
        ];
        // The store with itself, then the store with the load.
        assert_eq!(rels, [orders, orders].concat());
        assert_eq!(mirrors, vec![None, None, Some(1), None, None, None]);
    }

    #[test]
    fn a_mirrored_witness_swaps_the_threads_and_their_values() {
        let t = |x: u32| crate::report::ThreadId {
            thread: [x, 0, 0],
            block: [0; 3],
        };
        let w = Witness {
            threads: vec![t(3), t(5)],
            values: vec![("i".into(), 1, Some(2)), ("n".into(), 7, None)],
            index: Some(4),
            byte_offset: Some(16),
        };
        let Outcome::Sat(m) = mirrored(&Outcome::Sat(w)) else {
            panic!("a race stays a race")
        };
        assert_eq!(m.threads, vec![t(5), t(3)]);
        assert_eq!(m.values, vec![("i".into(), 2, Some(1)), ("n".into(), 7, None)]);
        assert_eq!((m.index, m.byte_offset), (Some(4), Some(16)));
        assert!(matches!(mirrored(&Outcome::Unsat), Outcome::Unsat));
    }
}
