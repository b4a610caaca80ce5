//! Core-guided OLL search with weight stratification.
//!
//! Every soft literal with positive residual weight is an assumption. An unsatisfiable core `K`
//! with minimum residual weight `w` raises the lower bound by `w`, lowers each member's weight by
//! `w`, and relaxes `K` with a totalizer over its violations whose output "at most 1 violated"
//! becomes a new soft literal of weight `w`. When an output "at most k" occurs in a core, the next
//! output "at most k+1" of its totalizer becomes soft with the core's weight. Totalizer outputs are
//! only implied in the direction "k+1 violated ⇒ output false", which keeps every reformulated cost
//! an upper bound of the true cost and exact for some extension; hence a model satisfying all
//! assumptions has true cost ≤ lower bound, i.e. is optimal.

use std::collections::BTreeMap;
use std::marker::PhantomData;

use rustsat::{
    encodings::card::{BoundUpper, BoundUpperIncremental, Totalizer},
    instances::{BasicVarManager, ManageVars},
    solvers::{SolveIncremental, SolveStats as SatSolveStats, SolverResult},
    types::{Clause, Lit},
};

use super::problem::MaxSatProblem;
use super::solver::{
    backend_err, extract_model, load_hard, sat_calls, MaxSatError, MaxSatResult, MaxSatSolver, SolveStats,
};
use super::varisat_backend::VarisatSolver;

/// How many times a core is re-solved to shrink it before relaxation.
const CORE_TRIM_ROUNDS: usize = 3;

/// Core-guided OLL search over backend `S`.
#[derive(Debug)]
pub struct Oll<S = VarisatSolver> {
    stats: SolveStats,
    backend: PhantomData<fn() -> S>,
}

impl<S> Default for Oll<S> {
    fn default() -> Self {
        Self {
            stats: SolveStats::default(),
            backend: PhantomData,
        }
    }
}

impl<S> Oll<S> {
    /// Creates the search with zeroed statistics.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
}

impl<S: SolveIncremental + SatSolveStats + Default> MaxSatSolver for Oll<S> {
    fn solve(&mut self, p: &MaxSatProblem) -> Result<MaxSatResult, MaxSatError> {
        self.stats.solves += 1;
        // Lower bound and residual weights stay below the total, so checking it once suffices.
        p.total_weight()?;
        let (solver, vars) = load_hard::<S>(p)?;
        let mut search = Search {
            solver,
            vars,
            p,
            weights: p.merged_softs()?.into_iter().collect(),
            outputs: BTreeMap::new(),
            totalizers: Vec::new(),
            lower_bound: 0,
            best: None,
            stats: &mut self.stats,
        };
        let outcome = search.run();
        let calls = sat_calls(&search.solver);
        self.stats.sat_calls += calls;
        outcome
    }

    fn stats(&self) -> SolveStats {
        self.stats
    }
}

/// State of one OLL solve.
struct Search<'a, S> {
    solver: S,
    vars: BasicVarManager,
    p: &'a MaxSatProblem,
    /// Residual weight of every assumption literal (original softs and totalizer outputs).
    weights: BTreeMap<Lit, u64>,
    /// For a totalizer output literal "at most k violated": its totalizer index and k.
    outputs: BTreeMap<Lit, (usize, usize)>,
    totalizers: Vec<Totalizer>,
    lower_bound: u64,
    best: Option<(u64, Vec<bool>)>,
    stats: &'a mut SolveStats,
}

impl<S: SolveIncremental + SatSolveStats> Search<'_, S> {
    fn run(&mut self) -> Result<MaxSatResult, MaxSatError> {
        // A plain call first: detects hard UNSAT and gives an initial upper bound.
        if self.solver.solve().map_err(backend_err)? != SolverResult::Sat {
            return Ok(MaxSatResult::Unsat);
        }
        self.record_model()?;
        let mut threshold = self.weights.values().copied().max().unwrap_or(0);
        loop {
            if let Some(done) = self.optimum_if_proved() {
                return Ok(done);
            }
            let assumps: Vec<Lit> = self
                .weights
                .iter()
                .filter(|&(_, &w)| w > 0 && w >= threshold)
                .map(|(&l, _)| l)
                .collect();
            match self.solver.solve_assumps(&assumps).map_err(backend_err)? {
                SolverResult::Sat => {
                    self.record_model()?;
                    let lower = self.weights.values().copied().filter(|&w| w > 0 && w < threshold).max();
                    match lower {
                        Some(next) => threshold = next,
                        None => return self.final_check(),
                    }
                }
                SolverResult::Unsat => {
                    let core = self.trimmed_core()?;
                    if core.is_empty() {
                        return Ok(MaxSatResult::Unsat);
                    }
                    self.relax(&core)?;
                }
                SolverResult::Interrupted => return Err(MaxSatError::Backend("SAT call interrupted".into())),
            }
        }
    }

    /// The optimum, once the best known cost meets the lower bound.
    fn optimum_if_proved(&self) -> Option<MaxSatResult> {
        match &self.best {
            Some((cost, model)) if *cost <= self.lower_bound => Some(MaxSatResult::Optimal {
                cost: *cost,
                model: model.clone(),
            }),
            _ => None,
        }
    }

    /// All assumptions were satisfied, so the best cost must equal the lower bound.
    fn final_check(&self) -> Result<MaxSatResult, MaxSatError> {
        self.optimum_if_proved().ok_or_else(|| {
            MaxSatError::Internal(format!(
                "all assumptions satisfied but best cost {:?} exceeds lower bound {}",
                self.best.as_ref().map(|b| b.0),
                self.lower_bound
            ))
        })
    }

    fn record_model(&mut self) -> Result<(), MaxSatError> {
        let model = extract_model(&self.solver, self.p)?;
        let cost = self.p.cost(&model);
        match &self.best {
            Some((best, _)) if *best <= cost => {}
            Some(_) => {
                self.stats.improvements += 1;
                self.best = Some((cost, model));
            }
            None => self.best = Some((cost, model)),
        }
        Ok(())
    }

    /// The last core as assumption literals, shrunk by re-solving under it a few times.
    fn trimmed_core(&mut self) -> Result<Vec<Lit>, MaxSatError> {
        let mut core = self.core_assumptions()?;
        for _ in 0..CORE_TRIM_ROUNDS {
            if core.len() <= 1 {
                break;
            }
            if self.solver.solve_assumps(&core).map_err(backend_err)? != SolverResult::Unsat {
                return Err(MaxSatError::Internal("core became satisfiable".into()));
            }
            let smaller = self.core_assumptions()?;
            if smaller.len() >= core.len() {
                break;
            }
            core = smaller;
        }
        self.stats.cores += 1;
        Ok(core)
    }

    /// The solver's core (negated assumptions) mapped back to the assumption literals.
    fn core_assumptions(&mut self) -> Result<Vec<Lit>, MaxSatError> {
        let mut core: Vec<Lit> = self
            .solver
            .core()
            .map_err(backend_err)?
            .into_iter()
            .map(|l| !l)
            .collect();
        core.sort_unstable();
        core.dedup();
        if let Some(stray) = core.iter().find(|l| !self.weights.contains_key(l)) {
            return Err(MaxSatError::Internal(format!(
                "core literal {stray} is not an assumption"
            )));
        }
        Ok(core)
    }

    /// Reformulates the objective with `core` (OLL step).
    fn relax(&mut self, core: &[Lit]) -> Result<(), MaxSatError> {
        let min_weight = core
            .iter()
            .map(|l| self.weights[l])
            .min()
            .ok_or_else(|| MaxSatError::Internal("empty core".into()))?;
        self.lower_bound = self.lower_bound.saturating_add(min_weight);
        for lit in core {
            if let Some(w) = self.weights.get_mut(lit) {
                *w -= min_weight;
            }
            if let Some(&(tot, bound)) = self.outputs.get(lit) {
                self.add_output(tot, bound + 1, min_weight)?;
            }
        }
        if core.len() > 1 {
            let violations: Totalizer = core.iter().map(|&l| !l).collect();
            self.totalizers.push(violations);
            self.add_output(self.totalizers.len() - 1, 1, min_weight)?;
        }
        Ok(())
    }

    /// Makes "at most `bound` inputs of totalizer `tot` true" a soft literal of `weight`.
    fn add_output(&mut self, tot: usize, bound: usize, weight: u64) -> Result<(), MaxSatError> {
        let totalizer = &mut self.totalizers[tot];
        totalizer
            .encode_ub_change(bound..=bound, &mut self.solver, &mut self.vars)
            .map_err(backend_err)?;
        let lits = totalizer.enforce_ub(bound).map_err(backend_err)?;
        let lit = match lits.as_slice() {
            // The bound is at least the number of inputs: trivially satisfied, nothing to pay.
            [] => return Ok(()),
            [single] => *single,
            // Several enforcing literals: name their conjunction with a fresh literal.
            many => {
                let name = self.vars.new_lit();
                for &l in many {
                    self.solver.add_clause(Clause::from([!name, l])).map_err(backend_err)?;
                }
                name
            }
        };
        let slot = self.weights.entry(lit).or_insert(0);
        *slot = slot.checked_add(weight).ok_or(MaxSatError::WeightOverflow)?;
        self.outputs.insert(lit, (tot, bound));
        Ok(())
    }
}
