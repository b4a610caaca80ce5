//! Unit and property tests: both algorithms against brute force, the varisat adapter, WCNF output.

use proptest::prelude::*;
use rustsat::{
    instances::OptInstance,
    solvers::{Solve, SolveIncremental, SolverResult},
    types::{Clause, Lit, TernaryVal},
};

use super::*;

/// Cases of a randomized sweep: a share of `full` on the merge gate, all of them with
/// `AUTOSYNC_FULL_SWEEPS=1` (`autosync_devtools::sweep`).
fn sweep(full: u32) -> u32 {
    autosync_devtools::sweep::cases(full.into()) as u32
}

fn algorithms() -> Vec<(&'static str, Box<dyn MaxSatSolver>)> {
    vec![("linear", Algorithm::Linear.solver()), ("oll", Algorithm::Oll.solver())]
}

/// Minimum cost over all assignments satisfying the hard clauses, or `None` if there is none.
fn brute_force(p: &MaxSatProblem) -> Option<u64> {
    let n = p.num_vars();
    assert!(n <= 16, "brute force is exponential");
    (0u32..1 << n)
        .map(|bits| (0..n).map(|i| bits >> i & 1 == 1).collect::<Vec<bool>>())
        .filter(|m| p.satisfies_hard(m))
        .map(|m| p.cost(&m))
        .min()
}

/// Solves with every algorithm and checks the answer against brute force.
fn assert_optimal(p: &MaxSatProblem) -> Option<u64> {
    let expected = brute_force(p);
    for (name, mut solver) in algorithms() {
        match solver.solve(p).expect("solver error") {
            MaxSatResult::Optimal { cost, model } => {
                assert_eq!(Some(cost), expected, "{name}: wrong optimum");
                assert_eq!(model.len(), p.num_vars(), "{name}: model length");
                assert!(p.satisfies_hard(&model), "{name}: model violates hard");
                assert_eq!(p.cost(&model), cost, "{name}: model cost mismatch");
            }
            MaxSatResult::Unsat => assert_eq!(expected, None, "{name}: claimed UNSAT"),
        }
    }
    expected
}

fn vars(p: &mut MaxSatProblem, n: usize) -> Vec<Lit> {
    (0..n).map(|_| p.new_var().pos_lit()).collect()
}

#[test]
fn empty_problem_costs_nothing() {
    let p = MaxSatProblem::new();
    for (name, mut solver) in algorithms() {
        let res = solver.solve(&p).unwrap();
        assert_eq!(res, MaxSatResult::Optimal { cost: 0, model: vec![] }, "{name}");
    }
}

#[test]
fn all_softs_satisfiable_costs_nothing() {
    let mut p = MaxSatProblem::new();
    let x = vars(&mut p, 4);
    p.add_hard(&[x[0], x[1]]);
    p.add_hard(&[!x[2], x[3]]);
    for &l in &x {
        p.add_soft(l, 7);
    }
    assert_eq!(assert_optimal(&p), Some(0));
}

#[test]
fn unsat_hard_clauses_are_reported() {
    let mut p = MaxSatProblem::new();
    let x = vars(&mut p, 2);
    p.add_hard(&[x[0], x[1]]);
    p.add_hard(&[!x[0], x[1]]);
    p.add_hard(&[x[0], !x[1]]);
    p.add_hard(&[!x[0], !x[1]]);
    p.add_soft(x[0], 3);
    assert_eq!(assert_optimal(&p), None);
}

#[test]
fn empty_hard_clause_is_unsat() {
    let mut p = MaxSatProblem::new();
    let x = vars(&mut p, 1);
    p.add_soft(x[0], 1);
    p.add_hard(&[]);
    assert_eq!(assert_optimal(&p), None);
}

#[test]
fn weighted_choice_prefers_cheaper_violation() {
    // Exactly one barrier candidate must be chosen; choosing costs its weight.
    let mut p = MaxSatProblem::new();
    let b = vars(&mut p, 3);
    p.add_hard(&[b[0], b[1], b[2]]);
    p.add_soft(!b[0], 100);
    p.add_soft(!b[1], 5);
    p.add_soft(!b[2], 50);
    assert_eq!(assert_optimal(&p), Some(5));
    let MaxSatResult::Optimal { model, .. } = Algorithm::Oll.solver().solve(&p).unwrap() else {
        panic!("expected optimum");
    };
    assert_eq!(model, vec![false, true, false]);
}

#[test]
fn several_conflicts_combine_weights() {
    // Two races each need a barrier; b1 fixes both, b0 and b2 one each.
    let mut p = MaxSatProblem::new();
    let b = vars(&mut p, 3);
    p.add_hard(&[b[0], b[1]]);
    p.add_hard(&[b[1], b[2]]);
    p.add_soft(!b[0], 4);
    p.add_soft(!b[1], 7);
    p.add_soft(!b[2], 4);
    assert_eq!(assert_optimal(&p), Some(7));
    p.add_soft(!b[1], 2); // duplicate soft literals add up
    assert_eq!(assert_optimal(&p), Some(8));
}

#[test]
fn complementary_softs_pay_the_cheaper_one() {
    let mut p = MaxSatProblem::new();
    let x = vars(&mut p, 1);
    p.add_soft(x[0], 9);
    p.add_soft(!x[0], 4);
    assert_eq!(assert_optimal(&p), Some(4));
}

#[test]
fn clauses_can_be_added_between_solves() {
    let mut p = MaxSatProblem::new();
    let b = vars(&mut p, 3);
    for &l in &b {
        p.add_soft(!l, 10);
    }
    for (_, mut solver) in algorithms() {
        let mut q = p.clone();
        assert!(matches!(
            solver.solve(&q).unwrap(),
            MaxSatResult::Optimal { cost: 0, .. }
        ));
        q.add_hard(&[b[0], b[1]]);
        assert!(matches!(
            solver.solve(&q).unwrap(),
            MaxSatResult::Optimal { cost: 10, .. }
        ));
        q.add_hard(&[b[2]]);
        q.add_hard(&[!b[0]]);
        assert!(matches!(
            solver.solve(&q).unwrap(),
            MaxSatResult::Optimal { cost: 20, .. }
        ));
        let stats = solver.stats();
        assert_eq!(stats.solves, 3);
        assert!(stats.sat_calls >= 3);
    }
}

#[test]
fn oll_extracts_cores_and_linear_improves() {
    let mut p = MaxSatProblem::new();
    let x = vars(&mut p, 6);
    for pair in x.chunks(2) {
        p.add_hard(&[pair[0], pair[1]]);
    }
    for (i, &l) in x.iter().enumerate() {
        p.add_soft(!l, 1 + i as u64);
    }
    let mut oll = Oll::<VarisatSolver>::new();
    let MaxSatResult::Optimal { cost, .. } = oll.solve(&p).unwrap() else {
        panic!("expected optimum");
    };
    assert_eq!(cost, 1 + 3 + 5);
    assert!(oll.stats().cores >= 3, "one core per hard pair");
}

#[test]
fn at_least_k_of_n_needs_repeated_relaxation() {
    // Every 3 of 5 variables contain a chosen one, so at least 3 are chosen.
    let mut p = MaxSatProblem::new();
    let x = vars(&mut p, 5);
    for i in 0..5 {
        for j in i + 1..5 {
            for k in j + 1..5 {
                p.add_hard(&[x[i], x[j], x[k]]);
            }
        }
    }
    for (i, &l) in x.iter().enumerate() {
        p.add_soft(!l, 10 + i as u64);
    }
    assert_eq!(assert_optimal(&p), Some(10 + 11 + 12));
}

#[test]
fn huge_weights_are_rejected_not_wrapped() {
    let mut p = MaxSatProblem::new();
    let x = vars(&mut p, 2);
    p.add_soft(x[0], u64::MAX);
    p.add_soft(x[1], 2);
    for (name, mut solver) in algorithms() {
        assert!(matches!(solver.solve(&p), Err(MaxSatError::WeightOverflow)), "{name}");
    }
}

#[test]
fn varisat_adapter_reports_models_and_cores() {
    let mut s = VarisatSolver::new();
    let a = Lit::positive(0);
    let b = Lit::positive(1);
    let c = Lit::positive(2);
    s.add_clause(Clause::from([!a, !b])).unwrap();
    s.add_clause(Clause::from([c])).unwrap();
    assert!(s.lit_val(a).is_err(), "no model before solving");
    assert_eq!(s.solve_assumps(&[a]).unwrap(), SolverResult::Sat);
    assert_eq!(s.lit_val(a).unwrap(), TernaryVal::True);
    assert_eq!(s.lit_val(!b).unwrap(), TernaryVal::True);
    assert_eq!(s.lit_val(c).unwrap(), TernaryVal::True);
    assert_eq!(s.solve_assumps(&[a, b, c]).unwrap(), SolverResult::Unsat);
    let mut core = s.core().unwrap();
    core.sort_unstable();
    assert_eq!(core, vec![!a, !b], "core is the negated failed assumptions");
    // Assumptions do not persist into the next call.
    assert_eq!(s.solve().unwrap(), SolverResult::Sat);
    assert!(s.core().is_err(), "no core after SAT");
}

#[test]
fn wcnf_output_has_hard_and_soft_lines() {
    let mut p = MaxSatProblem::new();
    let x = vars(&mut p, 2);
    p.add_hard(&[x[0], !x[1]]);
    p.add_soft(x[1], 5);
    let mut out = Vec::new();
    p.write_wcnf(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('c')).collect();
    assert_eq!(lines, vec!["h 1 -2 0", "5 2 0"]);
}

/// Random weighted instance: (variables, hard clauses, soft literals) as signed DIMACS-style ids.
fn instance() -> impl Strategy<Value = MaxSatProblem> {
    (1usize..=12).prop_flat_map(|n| {
        let lit = (0..n, any::<bool>()).prop_map(|(v, neg)| Lit::new(v as u32, neg));
        let clause = prop::collection::vec(lit.clone(), 1..=3);
        (
            Just(n),
            prop::collection::vec(clause, 0..=20),
            prop::collection::vec((lit, 1u64..=1000), 0..=20),
        )
            .prop_map(|(n, hard, soft)| {
                let mut p = MaxSatProblem::new();
                for _ in 0..n {
                    p.new_var();
                }
                for cl in &hard {
                    p.add_hard(cl);
                }
                for &(l, w) in &soft {
                    p.add_soft(l, w);
                }
                p
            })
    })
}

/// Random weighted set cover, the shape of barrier placement: every hard clause is positive
/// ("some barrier between these accesses") and every variable costs its weight when chosen.
fn covering_instance() -> impl Strategy<Value = MaxSatProblem> {
    // Few variables and many short clauses, so optima must pick several members of one core.
    (2usize..=8).prop_flat_map(|n| {
        let clause = prop::collection::vec((0..n).prop_map(|v| Lit::positive(v as u32)), 2..=3);
        (
            prop::collection::vec(1u64..=1000, n),
            prop::collection::vec(clause, 0..=20),
        )
            .prop_map(|(weights, hard)| {
                let mut p = MaxSatProblem::new();
                for &w in &weights {
                    let v = p.new_var();
                    p.add_soft(v.neg_lit(), w);
                }
                for cl in &hard {
                    p.add_hard(cl);
                }
                p
            })
    })
}

/// Random "at least k of these" constraints (as clauses over all (|S|-k+1)-subsets) with weighted
/// costs, so optima violate several members of one relaxed core and OLL must raise its bounds.
fn cardinality_instance() -> impl Strategy<Value = MaxSatProblem> {
    (3usize..=8).prop_flat_map(|n| {
        let constraint = (prop::collection::btree_set(0..n, 2..=n.min(5)), 1usize..=3);
        (
            prop::collection::vec(1u64..=1000, n),
            prop::collection::vec(constraint, 1..=3),
        )
            .prop_map(|(weights, constraints)| {
                let mut p = MaxSatProblem::new();
                let x: Vec<Lit> = weights.iter().map(|_| p.new_var().pos_lit()).collect();
                for (i, &w) in weights.iter().enumerate() {
                    p.add_soft(!x[i], w);
                }
                for (set, k) in constraints {
                    let members: Vec<Lit> = set.iter().map(|&v| x[v]).collect();
                    let k = k.min(members.len());
                    add_at_least(&mut p, &members, k);
                }
                p
            })
    })
}

/// Adds "at least `k` of `lits` are true": every subset of size |lits|-k+1 has a true member.
fn add_at_least(p: &mut MaxSatProblem, lits: &[Lit], k: usize) {
    let size = lits.len() + 1 - k;
    for mask in 0u32..1 << lits.len() {
        if mask.count_ones() as usize == size {
            let clause: Vec<Lit> = (0..lits.len())
                .filter(|&i| mask >> i & 1 == 1)
                .map(|i| lits[i])
                .collect();
            p.add_hard(&clause);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(sweep(300)))]

    #[test]
    fn algorithms_match_brute_force(p in instance()) {
        assert_optimal(&p);
    }

    #[test]
    fn algorithms_match_brute_force_on_covering(p in covering_instance()) {
        assert_optimal(&p);
    }

    #[test]
    fn algorithms_match_brute_force_on_cardinality(p in cardinality_instance()) {
        assert_optimal(&p);
    }

    #[test]
    fn wcnf_round_trips_through_rustsat_parser(p in instance()) {
        let mut out = Vec::new();
        p.write_wcnf(&mut out).unwrap();
        let parsed: OptInstance = OptInstance::from_dimacs(&mut out.as_slice()).unwrap();
        let (constraints, objective) = parsed.decompose();
        let hard: Vec<Clause> = constraints.cnf().iter().cloned().collect();
        prop_assert_eq!(hard, p.hard_clauses().to_vec());
        let mut softs: Vec<(Clause, usize)> = objective.iter_soft_cls().into_iter().collect();
        softs.sort();
        let mut expected: Vec<(Clause, usize)> = p
            .merged_softs()
            .unwrap()
            .into_iter()
            .map(|(l, w)| (Clause::from([l]), w as usize))
            .collect();
        expected.sort();
        prop_assert_eq!(softs, expected);
    }
}

#[test]
fn larger_instances_agree_across_algorithms() {
    // Barrier-like costs (powers of the loop factor) over 300 candidates and 500 races.
    let mut state = 12345u64;
    let mut rnd = move |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    let weights = [1u64, 2, 50, 100, 200, 10_000, 20_000, 1_000_000];
    let mut p = MaxSatProblem::new();
    let n = 300;
    let x: Vec<Lit> = (0..n).map(|_| p.new_var().pos_lit()).collect();
    for &l in &x {
        p.add_soft(!l, weights[rnd(weights.len() as u64) as usize]);
    }
    for _ in 0..500 {
        let start = rnd(n as u64) as usize;
        let len = 1 + rnd(8) as usize;
        let clause: Vec<Lit> = (start..(start + len).min(n)).map(|i| x[i]).collect();
        p.add_hard(&clause);
    }
    let costs: Vec<u64> = algorithms()
        .into_iter()
        .map(|(name, mut solver)| match solver.solve(&p).unwrap() {
            MaxSatResult::Optimal { cost, model } => {
                assert!(p.satisfies_hard(&model), "{name}");
                assert_eq!(p.cost(&model), cost, "{name}");
                cost
            }
            MaxSatResult::Unsat => panic!("{name}: covering instance is satisfiable"),
        })
        .collect();
    assert_eq!(costs[0], costs[1]);
}

#[test]
fn incomplete_varisat_core_is_repaired() {
    // Shrunk from a property-test failure: varisat 0.2.2 returned a satisfiable "core" here.
    let mut p = MaxSatProblem::new();
    let x = vars(&mut p, 8);
    for [a, b] in [[6, 4], [6, 7], [3, 1], [0, 0], [5, 7], [7, 4]] {
        p.add_hard(&[x[a], x[b]]);
    }
    p.add_hard(&[x[4], x[2], x[3]]);
    for (i, w) in [852u64, 780, 852, 853, 853, 73, 781, 853].into_iter().enumerate() {
        p.add_soft(!x[i], w);
    }
    assert!(assert_optimal(&p).is_some());
}
