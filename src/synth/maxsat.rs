//! Exact weighted partial MaxSAT over rustsat's solver traits.
//!
//! [`MaxSatProblem`] is plain data (hard clauses, weighted soft literals). Two exact algorithms
//! solve it: [`LinearSearch`] (solution-improving SAT-UNSAT search with a dynamic polynomial
//! watchdog bound) and [`Oll`] (core-guided search with totalizer relaxation and weight
//! stratification).
//! Both rebuild their SAT solver per call, so callers may keep adding hard clauses between solves.
//! The SAT engine is any rustsat solver; [`VarisatSolver`] is the default.

mod linear;
mod oll;
mod problem;
mod solver;
mod varisat_backend;

#[cfg(test)]
mod tests;

pub use linear::LinearSearch;
pub use oll::Oll;
pub use problem::{lit_value, MaxSatProblem, WeightOverflow};
pub use solver::{MaxSatError, MaxSatResult, MaxSatSolver, SolveStats};
pub use varisat_backend::VarisatSolver;

/// Selects one of the exact MaxSAT algorithms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Algorithm {
    /// Solution-improving linear search ([`LinearSearch`]).
    Linear,
    /// Core-guided OLL search ([`Oll`]).
    #[default]
    Oll,
}

impl Algorithm {
    /// Creates a solver for this algorithm on the default SAT backend.
    #[must_use]
    pub fn solver(self) -> Box<dyn MaxSatSolver> {
        match self {
            Algorithm::Linear => Box::new(LinearSearch::<VarisatSolver>::default()),
            Algorithm::Oll => Box::new(Oll::<VarisatSolver>::default()),
        }
    }
}
