//! How the checkers build their Z3 solvers.

use z3::ast::{Bool, BV};
use z3::{Params, Solver, Tactic};

/// A solver for one-shot conflict queries (`push`, assert, `check`, `pop`), limited to
/// `timeout_ms` per `check`.
///
/// Z3's default solver switches to its incremental core after the first `push`, which skips the
/// preprocessing (equation solving, bit-vector simplification) that the index arithmetic of
/// kernels needs; the `smt` tactic re-solves the whole stack with preprocessing on every check.
/// On the corpus this is 37% faster overall and up to 4x on nonlinear indices (`i * m + j`).
pub(crate) fn query_solver(timeout_ms: u32) -> Solver {
    let solver = Tactic::new("smt").solver();
    set_timeout(&solver, timeout_ms);
    solver
}

/// A second solver for the queries [`query_solver`] gives up on: the `qfbv` tactic (bit-vector
/// preprocessing, then bit-blasting to SAT). It is about 3 times slower than `smt` on the
/// corpus as a whole, but decides some queries with many linear constraints over products
/// (2-D indices with a symbolic row length, between blocks) in well under a second where `smt`
/// needs several.
pub(crate) fn fallback_solver(timeout_ms: u32) -> Solver {
    let solver = Tactic::new("qfbv").solver();
    set_timeout(&solver, timeout_ms);
    solver
}

/// Z3 resource units per millisecond of solver work, measured on the corpus (7k–9.5k on a
/// 2-core x86-64 machine; the lower end is taken so the budget is at most about the time asked).
const RLIMIT_PER_MS: u64 = 7000;

/// The milliseconds of solver work `units` Z3 resource units stand for (at least 1).
pub(crate) fn millis_of(units: u64) -> u32 {
    units.div_ceil(RLIMIT_PER_MS).clamp(1, u64::from(u32::MAX)) as u32
}

/// How much longer than its budget a check may take on the wall clock before it is cut off.
const WALL_CLOCK_SLACK: u64 = 10;

/// Limits each `check` of `solver` to about `timeout_ms` of solver work.
///
/// The binding limit is Z3's deterministic resource count, so a query's answer does not depend on
/// how loaded the machine is (a CI run and a laptop run agree); the wall clock only stops a check
/// that runs `WALL_CLOCK_SLACK` times longer than asked, as a safety net.
pub(crate) fn set_timeout(solver: &Solver, timeout_ms: u32) {
    set_limits(solver, timeout_ms, None);
}

/// As [`set_timeout`], and never past `wall_left_ms` of wall-clock time (what is left of a
/// kernel's budget).
pub(crate) fn set_limits(solver: &Solver, timeout_ms: u32, wall_left_ms: Option<u64>) {
    let ms = u64::from(timeout_ms.max(1));
    let wall = (ms * WALL_CLOCK_SLACK).min(wall_left_ms.unwrap_or(u64::MAX)).max(1);
    let mut p = Params::new();
    p.set_u32("rlimit", (ms * RLIMIT_PER_MS).min(u64::from(u32::MAX)) as u32);
    p.set_u32("timeout", wall.min(u64::from(u32::MAX)) as u32);
    solver.set_params(&p);
}

/// `[o, o+s)` lies inside an array of `len` bytes (66-bit arithmetic: no wrap-around).
pub(crate) fn in_bounds(o: &BV, s: u32, len: u64) -> Bool {
    let x = o.sign_ext(2);
    let end = x.bvadd(BV::from_u64(s as u64, 66));
    Bool::and(&[x.bvsge(BV::from_u64(0, 66)), end.bvsle(BV::from_u64(len, 66))])
}

/// Runs `f` with a Z3 context of its own. Z3's work on a query (and so whether it fits the
/// resource budget) depends on the terms the context has seen before; a fresh context per
/// checker call keeps a verdict independent of which kernels the thread checked earlier (files
/// run on a thread pool in whatever order the scheduler picks).
pub(crate) fn fresh_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    z3::with_z3_config(&z3::Config::new(), f)
}
