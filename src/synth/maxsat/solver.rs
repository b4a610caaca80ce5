//! What every exact MaxSAT algorithm here shares: the [`MaxSatSolver`] trait, its result,
//! error and statistics types, and loading a problem's hard clauses into a SAT backend.

use super::problem::{MaxSatProblem, WeightOverflow};
use rustsat::{
    instances::BasicVarManager,
    solvers::{Solve, SolveStats as SatSolveStats},
    types::{TernaryVal, Var},
};

/// Outcome of a MaxSAT solve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MaxSatResult {
    /// An optimal solution: its cost and the value of every problem variable by index.
    Optimal {
        /// Total weight of the falsified soft literals.
        cost: u64,
        /// Variable values indexed by `Var::idx()`, length [`MaxSatProblem::num_vars`].
        model: Vec<bool>,
    },
    /// The hard clauses are unsatisfiable.
    Unsat,
}

/// Failures of a MaxSAT solve (never a property of a satisfiable or unsatisfiable instance).
#[derive(Debug, thiserror::Error)]
pub enum MaxSatError {
    /// Soft weights sum past what the encodings can represent.
    #[error("soft weights overflow the supported range")]
    WeightOverflow,
    /// The SAT backend or an encoding reported an error.
    #[error("SAT backend error: {0}")]
    Backend(String),
    /// An internal consistency check failed (a bug in the backend or the algorithm).
    #[error("MaxSAT internal error: {0}")]
    Internal(String),
}

impl From<WeightOverflow> for MaxSatError {
    fn from(_: WeightOverflow) -> Self {
        MaxSatError::WeightOverflow
    }
}

/// Cumulative counters of a MaxSAT solver over all its solves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SolveStats {
    /// Number of MaxSAT solves.
    pub solves: usize,
    /// Number of SAT oracle calls.
    pub sat_calls: usize,
    /// Number of unsatisfiable cores extracted (core-guided search only).
    pub cores: usize,
    /// Number of times a strictly better solution was found.
    pub improvements: usize,
}

/// An exact weighted MaxSAT algorithm.
pub trait MaxSatSolver {
    /// Solves `p` to optimality.
    ///
    /// # Errors
    ///
    /// [`MaxSatError`] on weight overflow or backend failure.
    fn solve(&mut self, p: &MaxSatProblem) -> Result<MaxSatResult, MaxSatError>;
    /// Counters accumulated over all solves so far.
    fn stats(&self) -> SolveStats;
}

pub(super) fn backend_err(err: impl std::fmt::Display) -> MaxSatError {
    MaxSatError::Backend(err.to_string())
}

/// Converts a soft weight to the `usize` rustsat's encodings take.
pub(super) fn weight_usize(w: u64) -> Result<usize, MaxSatError> {
    usize::try_from(w).map_err(|_| MaxSatError::WeightOverflow)
}

/// A fresh solver holding `p`'s hard clauses, and a variable manager past `p`'s variables.
pub(super) fn load_hard<S: Solve + Default>(p: &MaxSatProblem) -> Result<(S, BasicVarManager), MaxSatError> {
    let mut solver = S::default();
    for clause in p.hard_clauses() {
        solver.add_clause_ref(clause).map_err(backend_err)?;
    }
    let next_free = u32::try_from(p.num_vars()).map_err(|_| MaxSatError::Internal("too many vars".into()))?;
    Ok((solver, BasicVarManager::from_next_free(Var::new(next_free))))
}

/// Reads the problem variables from a satisfied solver and checks the hard clauses, so a faulty
/// backend cannot produce a wrong "optimum" silently.
pub(super) fn extract_model<S: Solve>(solver: &S, p: &MaxSatProblem) -> Result<Vec<bool>, MaxSatError> {
    let mut model = Vec::with_capacity(p.num_vars());
    for idx in 0..p.num_vars() {
        let var = Var::new(u32::try_from(idx).map_err(|_| MaxSatError::Internal("var".into()))?);
        let val = solver.var_val(var).map_err(backend_err)?;
        model.push(val == TernaryVal::True);
    }
    if !p.satisfies_hard(&model) {
        return Err(MaxSatError::Internal(
            "SAT backend returned a model violating a hard clause".into(),
        ));
    }
    Ok(model)
}

/// Number of SAT calls a rustsat solver has answered.
pub(super) fn sat_calls<S: SatSolveStats>(solver: &S) -> usize {
    solver.n_sat_solves() + solver.n_unsat_solves() + solver.n_terminated()
}
