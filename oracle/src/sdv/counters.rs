//! Counters: arrays whose atomic increments hand every caller a value no other call gets.
//!
//! `slot = atomicAdd(&n, 1); buf[slot] = v;` is race-free because the values an atomic adds a
//! positive constant to are strictly increasing: two calls on one address never return the
//! same value. That holds for every address of an array when every atomic on it is such an
//! increment and no plain store changes it once the increments may have begun. Plain stores
//! are allowed only in shared memory, at the top level of the kernel before a block-wide
//! barrier that precedes every increment (the usual `if (t == 0) n = 0; __syncthreads();`);
//! a global counter must never be stored to (another block could reset it at any time).
//! Assumed: what one launch adds to one address stays below 2^bits (no wrap-around); steps are
//! at most [`MAX_STEP`](crate::ir::AtomicOp::MAX_STEP), so a huge constant that wraps in a few
//! calls (`atomicAdd(p, 0x80000000)`) is never a counter.

use crate::ir::*;
use std::collections::HashSet;

/// The arrays whose atomics all return distinct values per address.
pub(crate) fn counter_arrays(k: &Kernel) -> HashSet<ArrayId> {
    let mut candidates: HashSet<ArrayId> = HashSet::new();
    let mut excluded: HashSet<ArrayId> = HashSet::new();
    crate::tree::for_each_stmt(&k.body, &mut |s: &Stmt| {
        if let StmtKind::Basic(ops) = &s.kind {
            for op in ops {
                match op {
                    Op::Atomic(_, a, AtomicOp::Increment(c)) if (1..=AtomicOp::MAX_STEP).contains(c) => {
                        candidates.insert(a.array);
                    }
                    Op::Atomic(_, a, _) => {
                        excluded.insert(a.array);
                    }
                    _ => {}
                }
            }
        }
    });
    candidates.retain(|a| !excluded.contains(a) && stores_settle(k, *a));
    candidates
}

/// Whether every plain store to `a` happens before every atomic on it, with a block-wide
/// barrier in between (both at the kernel's top level; never for global memory).
fn stores_settle(k: &Kernel, a: ArrayId) -> bool {
    let top = &k.body.stmts;
    let has = |s: &Stmt, atomic: bool| {
        let mut found = false;
        crate::tree::visit_stmt(s, &mut |x: &Stmt| {
            if let StmtKind::Basic(ops) = &x.kind {
                found |= ops.iter().any(|op| match op {
                    Op::Atomic(_, acc, _) => atomic && acc.array == a,
                    Op::Write(acc, _) => !atomic && acc.array == a,
                    _ => false,
                });
            }
        });
        found
    };
    let Some(last_store) = top.iter().rposition(|s| has(s, false)) else {
        return true;
    };
    if k.array(a).space != Space::Shared {
        return false;
    }
    let Some(first_atomic) = top.iter().position(|s| has(s, true)) else {
        return true;
    };
    // A store in or after the first statement with an increment may follow increments.
    last_store < first_atomic
        && top[last_store..first_atomic]
            .iter()
            .any(|s| matches!(&s.kind, StmtKind::Barrier(b, _) if b.is_block_wide()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sdv::testkit::*;

    /// `[n = 0;] [__syncthreads();] atomic(n)` with the atomic's kind.
    fn counter_kernel(reset: bool, barrier: bool, space: Space, op: AtomicOp) -> (Kernel, ArrayId) {
        let mut kb = Kb::new(Some([64, 1, 1]));
        let n = kb.array("n", space);
        let mut body = Vec::new();
        if reset {
            body.push(kb.store(n, u(0), u(0)));
        }
        if barrier {
            body.push(kb.sync());
        }
        let acc = kb.acc(n, AccessKind::Atomic, u(0));
        body.push(kb.basic(vec![Op::Atomic(None, acc, op)]));
        (kb.finish(body), n)
    }

    #[test]
    fn increments_after_a_reset_and_a_barrier_are_a_counter() {
        let (k, n) = counter_kernel(true, true, Space::Shared, AtomicOp::Increment(1));
        assert!(counter_arrays(&k).contains(&n));
    }

    #[test]
    fn a_reset_without_a_barrier_is_not() {
        let (k, _) = counter_kernel(true, false, Space::Shared, AtomicOp::Increment(1));
        assert!(counter_arrays(&k).is_empty());
    }

    #[test]
    fn global_counters_must_never_be_stored_to() {
        let (k, _) = counter_kernel(true, true, Space::Global, AtomicOp::Increment(1));
        assert!(counter_arrays(&k).is_empty());
        let (k, n) = counter_kernel(false, false, Space::Global, AtomicOp::Increment(4));
        assert!(counter_arrays(&k).contains(&n));
    }

    #[test]
    fn a_store_after_the_increments_is_not() {
        let mut kb = Kb::new(Some([64, 1, 1]));
        let n = kb.array("n", Space::Shared);
        let acc = kb.acc(n, AccessKind::Atomic, u(0));
        let body = vec![
            kb.basic(vec![Op::Atomic(None, acc, AtomicOp::Increment(1))]),
            kb.sync(),
            kb.store(n, u(0), u(0)),
        ];
        assert!(counter_arrays(&kb.finish(body)).is_empty());
    }

    #[test]
    fn other_atomics_are_not_counters() {
        let (k, _) = counter_kernel(false, false, Space::Shared, AtomicOp::Other);
        assert!(counter_arrays(&k).is_empty());
    }
}
