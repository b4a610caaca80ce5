//! How the checkers build their Z3 solvers.

use std::cell::RefCell;
use std::collections::HashMap;
use z3::ast::{Ast, Bool, Dynamic, BV};
use z3::{Context, DeclKind, Params, Solver, Tactic};

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

/// Whether the solver's last `unknown` came from its wall-clock limit (not its deterministic
/// resource budget).
pub(crate) fn stopped_by_clock(solver: &Solver) -> bool {
    solver
        .get_reason_unknown()
        .is_some_and(|r| r.contains("timeout") || r.contains("canceled"))
}

/// The version of the Z3 library autosync runs on (verdicts may change with it).
pub fn solver_version() -> &'static str {
    z3::full_version()
}

/// The operator kind of an application, as the number Z3's API returns. The z3 crate's
/// `FuncDecl::kind` makes it a `DeclKind`, but the installed library's number for some kinds
/// (an uninterpreted constant, the overflow predicates of Z3 4.8) is not one that enum lists:
/// an invalid enum value. Compare with `DeclKind::X as u32`.
pub(crate) fn op_kind(t: &Dynamic) -> Option<u32> {
    extern "C" {
        #[link_name = "Z3_get_decl_kind"]
        fn decl_kind(c: z3_sys::Z3_context, d: z3_sys::Z3_func_decl) -> u32;
    }
    let ctx = Context::thread_local();
    // SAFETY: `t` is a live term of the thread's context; Z3 returns the kind as a C enum (an
    // unsigned number), which is what `decl_kind` is declared to return.
    unsafe {
        let c = ctx.get_z3_context();
        let app = z3_sys::Z3_to_app(c, t.get_z3_ast())?;
        let decl = z3_sys::Z3_get_app_decl(c, app)?;
        Some(decl_kind(c, decl))
    }
}

const AND: u32 = DeclKind::And as u32;
const TRUE: u32 = DeclKind::True as u32;
const IMPLIES: u32 = DeclKind::Implies as u32;

/// The conjuncts of `parts`: nested `and`s opened, `true => x` is `x`, and `c => (x1 and x2)`
/// is `(c => x1) and (c => x2)`; `true` is dropped.
pub(crate) fn conjuncts(parts: &[Bool]) -> Vec<Bool> {
    let mut out = Vec::new();
    let mut stack: Vec<Bool> = parts.iter().rev().cloned().collect();
    while let Some(b) = stack.pop() {
        let kind = op_kind(&Dynamic::from_ast(&b));
        match kind {
            Some(AND) => {
                for c in b.children().into_iter().rev() {
                    stack.push(c.as_bool().expect("and of bools"));
                }
            }
            Some(TRUE) => {}
            Some(IMPLIES) => {
                let ch = b.children();
                let (c, x) = (
                    ch[0].as_bool().expect("implies of bools"),
                    ch[1].as_bool().expect("implies of bools"),
                );
                match (c.as_bool(), op_kind(&Dynamic::from_ast(&x))) {
                    (Some(true), _) => stack.push(x),
                    // `c => (x1 and x2)` is `(c => x1) and (c => x2)`: the facts a walk keeps
                    // under a path condition become separate conjuncts for the slice.
                    (_, Some(AND)) => {
                        for y in x.children().into_iter().rev() {
                            stack.push(c.implies(y.as_bool().expect("and of bools")));
                        }
                    }
                    _ => out.push(b),
                }
            }
            _ => out.push(b),
        }
    }
    out
}

/// `[o, o+s)` lies inside an array of `len` bytes (66-bit arithmetic: no wrap-around).
pub(crate) fn in_bounds(o: &BV, s: u32, len: u64) -> Bool {
    let x = o.sign_ext(2);
    let end = x.bvadd(numeral(s as u64, 66));
    Bool::and(&[x.bvsge(numeral(0, 66)), end.bvsle(numeral(len, 66))])
}

/// Lanes (Z3 contexts on rayon's pool) one check spreads its independent solver work over: a
/// fixed number, so which context asks a query, and so every answer, does not depend on the
/// machine's core count.
pub(crate) const LANES: usize = 2;

/// Runs `f` with a Z3 context of its own. Z3's work on a query (and so whether it fits the
/// resource budget) depends on the terms the context has seen before; a fresh context per
/// checker call keeps a verdict independent of which kernels the thread checked earlier (files
/// run on a thread pool in whatever order the scheduler picks).
pub(crate) fn fresh_context<R: Send + Sync>(f: impl FnOnce() -> R + Send + Sync) -> R {
    keep_freed_heap();
    z3::with_z3_config(&z3::Config::new(), || {
        let r = f();
        // The context ends here: so do the numerals made in it.
        NUMERALS.with(|n| n.borrow_mut().take());
        r
    })
}

/// Asks glibc's allocator, once per process, to keep freed memory for reuse. Every checker
/// call makes a Z3 context and frees it with all its terms; by default glibc gives the freed
/// top of the heap and every freed block of 128 KiB or more (up to a threshold it adjusts) back
/// to the system, and the next context takes it back page by page: 6 ms per context made on
/// the main thread (a fix makes three or four), 0.7 ms with these settings (racy md5_batch
/// fixed in 58 instead of 85 ms; `docs/performance.md`). Blocks under 32 MiB come from the
/// heap, which grows in steps of 64 MiB and is trimmed only past 256 MiB free. Address space
/// more than memory: pages are resident once used, and the peak is what it was.
fn keep_freed_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: `mallopt` only sets parameters of the allocator.
        ONCE.call_once(|| unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
            libc::mallopt(libc::M_TOP_PAD, 64 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
        });
    }
}

/// Numerals by (value, width), and the context they belong to.
type NumeralCache = Option<(Context, HashMap<(u64, u32), BV>)>;

thread_local! {
    /// The numerals made so far in this thread's current context (see [`numeral`]).
    static NUMERALS: RefCell<NumeralCache> = const { RefCell::new(None) };
}

/// The `w`-bit numeral with the low `w` bits of `v`. Each is made once per context: Z3 makes
/// the same term every time, but through a sort and a rational each time (a third of the walk
/// of a long kernel full of constants).
pub(crate) fn numeral(v: u64, w: u32) -> BV {
    if w > 64 {
        return BV::from_u64(v, w);
    }
    let v = v & mask(w);
    NUMERALS.with(|n| {
        let mut n = n.borrow_mut();
        let ctx = Context::thread_local();
        if n.as_ref().is_none_or(|(c, _)| *c != ctx) {
            *n = Some((ctx, HashMap::new()));
        }
        let (_, map) = n.as_mut().expect("just set");
        map.entry((v, w)).or_insert_with(|| BV::from_u64(v, w)).clone()
    })
}

/// The low `w` bits set (`w` at most 64).
pub(crate) fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// Resizes a bit-vector to `bits`, truncating or extending by the source signedness.
pub(crate) fn resize(x: &BV, bits: u32, from_signed: bool) -> BV {
    let w = x.get_size();
    match w.cmp(&bits) {
        std::cmp::Ordering::Equal => x.clone(),
        std::cmp::Ordering::Greater => x.extract(bits - 1, 0),
        std::cmp::Ordering::Less if from_signed => x.sign_ext(bits - w),
        std::cmp::Ordering::Less => x.zero_ext(bits - w),
    }
}

/// The `w`-bit numeral of `v` in two's complement (see [`numeral`]).
pub(crate) fn numeral_i(v: i64, w: u32) -> BV {
    if w > 64 {
        return BV::from_i64(v, w);
    }
    numeral(v as u64, w)
}

/// A condition every signed product `x * y` without overflow meets: exactly "no overflow"
/// when an operand is a numeral or both are non-negative (the shapes of index arithmetic);
/// nothing otherwise. A fact of the walks (executions with signed overflow are undefined
/// behaviour): implied by the exact condition, it never excludes a real execution.
///
/// Z3's own predicates (`bvsmul_noovfl`) are not used: Z3 4.8's simplifier evaluates them
/// wrongly on numerals with a negative operand (`2 * -2` "overflows"), and a product the solver
/// pinned to numerals then made every execution through it infeasible: the races after it were
/// missed. The unsigned predicate it is built from here evaluates correctly; the exact
/// condition, a product of the sign extensions, costs the solver a multiplier four times the
/// size (realistic kernels with 2-D indices checked 1.5-2x slower); a version exact for
/// operands of one sign, with magnitudes, still 1.3-2x.
pub(crate) fn signed_mul_facts(x: &BV, y: &BV) -> Bool {
    let w = x.get_size();
    let value = |v: &BV| {
        v.as_u64()
            .filter(|_| w <= 64)
            .map(|u| (((u << (64 - w)) as i64) >> (64 - w)) as i128)
    };
    let (min, max) = (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1);
    let within = |v: &BV, lo: i128, hi: i128| -> Bool {
        let lo = lo.max(min);
        let hi = hi.min(max);
        if lo > hi {
            return Bool::from_bool(false);
        }
        let num = |n: i128| numeral(n as u64, w);
        Bool::and(&[v.bvsge(num(lo)), v.bvsle(num(hi))])
    };
    match (value(x), value(y)) {
        (Some(a), Some(b)) => Bool::from_bool((min..=max).contains(&(a * b))),
        (Some(c), None) | (None, Some(c)) => {
            let v = if value(x).is_some() { y } else { x };
            match c {
                0 => Bool::from_bool(true),
                // v * c within [min, max]: v within [ceil(min / c), floor(max / c)] for c > 0,
                // [ceil(max / c), floor(min / c)] for c < 0.
                c if c > 0 => within(v, div_ceil(min, c), max.div_euclid(c)),
                c => within(v, div_ceil(max, c), div_floor(min, c)),
            }
        }
        (None, None) if w >= 2 => {
            // Two non-negative operands: exactly "the product fits w-1 unsigned bits".
            let zero = numeral(0, w);
            let low = |v: &BV| v.extract(w - 2, 0);
            Bool::and(&[x.bvsge(&zero), y.bvsge(&zero)]).implies(low(x).bvmul_no_overflow(&low(y), false))
        }
        (None, None) => Bool::from_bool(true),
    }
}

/// `a / b` rounded toward negative infinity.
fn div_floor(a: i128, b: i128) -> i128 {
    let q = a / b;
    if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    }
}

/// `a / b` rounded toward positive infinity.
fn div_ceil(a: i128, b: i128) -> i128 {
    -div_floor(-a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::Ast;
    use z3::{SatResult, Solver};

    /// A cached numeral is the term Z3 makes for the value (wrapped to its width), and each
    /// context gets its own: a numeral of an ended context is never handed out.
    #[test]
    fn numerals_are_z3_numerals_of_the_current_context() {
        for _ in 0..2 {
            fresh_context(|| {
                for w in [1, 8, 32, 64, 66] {
                    for v in [0u64, 1, 5, 255, 256, u64::MAX, 1 << 40] {
                        let expected = BV::from_u64(v, w);
                        assert_eq!(numeral(v, w), expected, "{v} in {w} bits");
                        // The cached term, a second time.
                        assert_eq!(numeral(v, w), expected, "{v} in {w} bits");
                    }
                    assert_eq!(numeral_i(-3, w), BV::from_i64(-3, w), "-3 in {w} bits");
                }
                // Used with fresh terms of this context: a numeral of another one would crash Z3.
                let x = BV::new_const("x", 32);
                let s = Solver::new();
                s.assert(x.bvadd(numeral(1, 32)).eq(numeral(0, 32)));
                assert_eq!(s.check(), SatResult::Sat);
            });
        }
    }

    /// The exact condition: the product of the sign extensions fits.
    fn exact(x: &BV, y: &BV) -> Bool {
        let w = x.get_size();
        x.sign_ext(w).bvmul(y.sign_ext(w)).eq(x.bvmul(y).sign_ext(w))
    }

    /// The facts of a signed product are implied by its exactness, and are exact when the
    /// operands are non-negative (proved by Z3 for unknowns of 8 and 12 bits: the proof for
    /// two 32-bit unknowns takes the solver far too long); against a numeral (8 and 32 bits) and
    /// they are exact, whether the numerals are given or pinned by equations the solver
    /// substitutes (every 8-bit value against a set of edge values).
    #[test]
    fn signed_mul_facts_are_implied_by_exactness() {
        for w in [8u32, 12, 32] {
            let (x, y) = (BV::new_const(format!("x{w}"), w), BV::new_const(format!("y{w}"), w));
            let zero = BV::from_u64(0, w);
            if w <= 12 {
                let f = signed_mul_facts(&x, &y);
                let solver = Solver::new();
                solver.assert(exact(&x, &y).implies(&f).not());
                assert_eq!(solver.check(), SatResult::Unsat, "implied, {w} bits");
                let solver = Solver::new();
                let non_negative = Bool::and(&[x.bvsge(&zero), y.bvsge(&zero)]);
                solver.assert(Bool::and(&[non_negative, f.clone()]).implies(exact(&x, &y)).not());
                assert_eq!(
                    solver.check(),
                    SatResult::Unsat,
                    "exact for non-negative operands, {w} bits"
                );
            }
            for c in [
                0i64,
                1,
                -1,
                2,
                -2,
                3,
                -3,
                7,
                -8,
                1000,
                -1000,
                i64::from(i32::MAX),
                i64::from(i32::MIN),
            ] {
                let c = BV::from_i64(c, w);
                let solver = Solver::new();
                solver.assert(signed_mul_facts(&x, &c).eq(exact(&x, &c)).not());
                assert_eq!(solver.check(), SatResult::Unsat, "{c} in {w} bits");
            }
        }
        let s = |v: u64| ((v as u8) as i8) as i128;
        let (x, y) = (BV::new_const("px", 8), BV::new_const("py", 8));
        let f = signed_mul_facts(&x, &y);
        for a in 0..256u64 {
            for b in [0u64, 1, 2, 3, 0x7f, 0x80, 0x81, 0xfe, 0xff, 0x40, 0xc0, 5, 0xfb] {
                let fits = (-128..=127).contains(&(s(a) * s(b)));
                let (na, nb) = (BV::from_u64(a, 8), BV::from_u64(b, 8));
                assert_eq!(signed_mul_facts(&na, &nb).simplify().as_bool(), Some(fits), "{a} {b}");
                // Pinned by equations: an execution without overflow is never excluded.
                let solver = Solver::new();
                solver.assert(x.eq(&na));
                solver.assert(y.eq(&nb));
                solver.assert(&f);
                if fits {
                    assert_eq!(solver.check(), SatResult::Sat, "{a} {b} pinned");
                }
            }
        }
    }
}
