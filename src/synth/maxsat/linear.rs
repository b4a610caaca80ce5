//! Linear SAT-UNSAT (solution-improving) search: find a model, require a strictly smaller cost
//! through a pseudo-Boolean bound over the violation indicators, repeat until UNSAT.
//!
//! The bound is rustsat's dynamic polynomial watchdog: its size grows with the number of bits of
//! the weights rather than with the number of distinct subset sums (which makes the generalized
//! totalizer explode on barrier costs like 1, 100, 10 000). Its bounds are enforced through
//! assumptions (tare literals), so learnt clauses stay valid across iterations.

use std::marker::PhantomData;

use rustsat::{
    encodings::pb::{BoundUpper, BoundUpperIncremental, DynamicPolyWatchdog},
    solvers::{SolveIncremental, SolveStats as SatSolveStats, SolverResult},
};

use super::problem::MaxSatProblem;
use super::solver::{
    backend_err, extract_model, load_hard, sat_calls, weight_usize, MaxSatError, MaxSatResult, MaxSatSolver, SolveStats,
};
use super::varisat_backend::VarisatSolver;

/// Solution-improving linear search over backend `S`.
#[derive(Debug)]
pub struct LinearSearch<S = VarisatSolver> {
    stats: SolveStats,
    backend: PhantomData<fn() -> S>,
}

impl<S> Default for LinearSearch<S> {
    fn default() -> Self {
        Self {
            stats: SolveStats::default(),
            backend: PhantomData,
        }
    }
}

impl<S> LinearSearch<S> {
    /// Creates the search with zeroed statistics.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl<S: SolveIncremental + SatSolveStats + Default> MaxSatSolver for LinearSearch<S> {
    fn solve(&mut self, p: &MaxSatProblem) -> Result<MaxSatResult, MaxSatError> {
        self.stats.solves += 1;
        // The encodings sum weights in usize; reject instances whose total cannot be represented.
        weight_usize(p.total_weight()?)?;
        let (mut solver, mut vars) = load_hard::<S>(p)?;
        let outcome = improve(&mut solver, &mut vars, p, &mut self.stats);
        self.stats.sat_calls += sat_calls(&solver);
        outcome
    }

    fn stats(&self) -> SolveStats {
        self.stats
    }
}

fn improve<S: SolveIncremental + SatSolveStats>(
    solver: &mut S,
    vars: &mut rustsat::instances::BasicVarManager,
    p: &MaxSatProblem,
    stats: &mut SolveStats,
) -> Result<MaxSatResult, MaxSatError> {
    if solver.solve().map_err(backend_err)? != SolverResult::Sat {
        return Ok(MaxSatResult::Unsat);
    }
    let mut model = extract_model(solver, p)?;
    let mut cost = p.cost(&model);
    // Indicator !lit is true exactly when the soft literal's weight is paid.
    let mut indicators = Vec::new();
    for (lit, w) in p.merged_softs()? {
        indicators.push((!lit, weight_usize(w)?));
    }
    let mut bound: DynamicPolyWatchdog = indicators.into_iter().collect();
    while cost > 0 {
        let ub = weight_usize(cost - 1)?;
        bound.encode_ub_change(ub..=ub, solver, vars).map_err(backend_err)?;
        let assumps = bound.enforce_ub(ub).map_err(backend_err)?;
        if solver.solve_assumps(&assumps).map_err(backend_err)? != SolverResult::Sat {
            break;
        }
        let better = extract_model(solver, p)?;
        let better_cost = p.cost(&better);
        if better_cost >= cost {
            return Err(MaxSatError::Internal(format!(
                "bound cost < {cost} violated by a model of cost {better_cost}"
            )));
        }
        stats.improvements += 1;
        model = better;
        cost = better_cost;
    }
    Ok(MaxSatResult::Optimal { cost, model })
}
