//! Adapter that puts the pure-Rust `varisat` SAT solver behind rustsat's solver traits, so the
//! MaxSAT algorithms can swap backends (e.g. `rustsat-batsat`) without code changes.

use std::time::{Duration, Instant};

use rustsat::{
    solvers::{Solve, SolveIncremental, SolveStats, SolverResult, SolverState, SolverStats},
    types::{Cl, Clause, Lit, TernaryVal, Var},
};
use varisat::ExtendFormula;

/// A `varisat` solver implementing rustsat's [`Solve`] and [`SolveIncremental`] traits; cores are
/// re-checked because varisat 0.2.2 can report incomplete ones.
pub struct VarisatSolver {
    inner: varisat::Solver<'static>,
    state: SolverState,
    /// Values of the last model, indexed by variable; empty unless `state` is `Sat`.
    model: Vec<TernaryVal>,
    /// The last core in rustsat's convention (negated failed assumptions).
    core: Vec<Lit>,
    n_sat: usize,
    n_unsat: usize,
    n_clauses: usize,
    total_clause_len: usize,
    max_var: Option<Var>,
    solve_time: Duration,
}

impl Default for VarisatSolver {
    fn default() -> Self {
        Self {
            inner: varisat::Solver::new(),
            state: SolverState::Input,
            model: Vec::new(),
            core: Vec::new(),
            n_sat: 0,
            n_unsat: 0,
            n_clauses: 0,
            total_clause_len: 0,
            max_var: None,
            solve_time: Duration::ZERO,
        }
    }
}

impl std::fmt::Debug for VarisatSolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VarisatSolver")
            .field("state", &self.state)
            .field("n_clauses", &self.n_clauses)
            .field("max_var", &self.max_var)
            .finish_non_exhaustive()
    }
}

fn to_varisat(lit: Lit) -> varisat::Lit {
    varisat::Lit::from_index(lit.vidx(), lit.is_pos())
}

fn from_varisat(lit: varisat::Lit) -> Option<Lit> {
    let idx = u32::try_from(lit.index()).ok()?;
    Lit::new_with_error(idx, lit.is_negative()).ok()
}

impl VarisatSolver {
    /// Creates a solver with no clauses.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    fn note_var(&mut self, var: Var) {
        if self.max_var.is_none_or(|max| var > max) {
            self.max_var = Some(var);
        }
    }

    /// Adds a clause; infallible because varisat accepts every clause.
    fn push_clause(&mut self, clause: &Cl) {
        let lits: Vec<varisat::Lit> = clause.iter().map(|&l| to_varisat(l)).collect();
        for &l in clause.iter() {
            self.note_var(l.var());
        }
        self.inner.add_clause(&lits);
        self.n_clauses += 1;
        self.total_clause_len += lits.len();
        self.state = SolverState::Input;
        self.model.clear();
        self.core.clear();
    }

    fn run(&mut self, assumps: &[Lit]) -> anyhow::Result<SolverResult> {
        for &l in assumps {
            self.note_var(l.var());
        }
        self.model.clear();
        self.core.clear();
        let start = Instant::now();
        let outcome = self.solve_under(assumps);
        self.solve_time += start.elapsed();
        match outcome {
            Ok(true) => {
                self.state = SolverState::Sat;
                self.n_sat += 1;
                self.store_model()?;
                if let Some(&l) = assumps.iter().find(|&&l| self.value(l) != TernaryVal::True) {
                    self.state = SolverState::Unknown;
                    return Err(anyhow::anyhow!("varisat model falsifies assumption {l}"));
                }
                Ok(SolverResult::Sat)
            }
            Ok(false) => {
                self.state = SolverState::Unsat;
                self.n_unsat += 1;
                let core = self.checked_failed_assumptions(assumps)?;
                self.core = core.into_iter().map(|l| !l).collect();
                Ok(SolverResult::Unsat)
            }
            Err(err) => {
                self.state = SolverState::Unknown;
                Err(err)
            }
        }
    }

    /// One varisat call; assumptions persist in varisat, so they are (re)set before every call.
    fn solve_under(&mut self, assumps: &[Lit]) -> anyhow::Result<bool> {
        let vlits: Vec<varisat::Lit> = assumps.iter().map(|&l| to_varisat(l)).collect();
        self.inner.assume(&vlits);
        self.inner
            .solve()
            .map_err(|err| anyhow::anyhow!("varisat failed: {err}"))
    }

    /// varisat's failed assumptions after an UNSAT call, as sorted rustsat literals.
    fn failed_assumptions(&self) -> anyhow::Result<Vec<Lit>> {
        let failed = self.inner.failed_core().unwrap_or(&[]);
        let mut core = Vec::with_capacity(failed.len());
        for &l in failed {
            core.push(from_varisat(l).ok_or_else(|| anyhow::anyhow!("varisat core literal out of range"))?);
        }
        core.sort_unstable();
        core.dedup();
        Ok(core)
    }

    /// A subset of `assumps` that is unsatisfiable with the formula.
    ///
    /// varisat 0.2.2 occasionally reports a failed-assumption set that is satisfiable on its own
    /// (observed in this project's property tests), so a strict subset is re-checked and replaced
    /// by all assumptions if it turns out satisfiable.
    fn checked_failed_assumptions(&mut self, assumps: &[Lit]) -> anyhow::Result<Vec<Lit>> {
        let candidate = self.failed_assumptions()?;
        let mut all: Vec<Lit> = assumps.to_vec();
        all.sort_unstable();
        all.dedup();
        if candidate.len() == all.len() {
            return Ok(candidate);
        }
        if self.solve_under(&candidate)? {
            Ok(all)
        } else {
            Ok(candidate)
        }
    }

    fn value(&self, lit: Lit) -> TernaryVal {
        let val = self.model.get(lit.vidx()).copied().unwrap_or(TernaryVal::DontCare);
        if lit.is_neg() {
            !val
        } else {
            val
        }
    }

    fn store_model(&mut self) -> anyhow::Result<()> {
        let lits = self
            .inner
            .model()
            .ok_or_else(|| anyhow::anyhow!("varisat reported SAT without a model"))?;
        let len = self.max_var.map_or(0, |v| v.idx() + 1);
        let mut model = vec![TernaryVal::DontCare; len];
        for l in lits {
            let idx = l.index();
            if idx >= model.len() {
                model.resize(idx + 1, TernaryVal::DontCare);
            }
            model[idx] = if l.is_positive() {
                TernaryVal::True
            } else {
                TernaryVal::False
            };
        }
        self.model = model;
        Ok(())
    }

    fn require_state(&self, required: SolverState) -> anyhow::Result<()> {
        if self.state == required {
            Ok(())
        } else {
            Err(rustsat::solvers::StateError {
                required_state: required,
                actual_state: self.state,
            }
            .into())
        }
    }
}

impl Extend<Clause> for VarisatSolver {
    fn extend<T: IntoIterator<Item = Clause>>(&mut self, iter: T) {
        for clause in iter {
            self.push_clause(&clause);
        }
    }
}

impl<'a> Extend<&'a Clause> for VarisatSolver {
    fn extend<T: IntoIterator<Item = &'a Clause>>(&mut self, iter: T) {
        for clause in iter {
            self.push_clause(clause);
        }
    }
}

impl Solve for VarisatSolver {
    fn signature(&self) -> &'static str {
        "varisat-0.2"
    }

    fn solve(&mut self) -> anyhow::Result<SolverResult> {
        self.run(&[])
    }

    fn lit_val(&self, lit: Lit) -> anyhow::Result<TernaryVal> {
        self.require_state(SolverState::Sat)?;
        Ok(self.value(lit))
    }

    fn add_clause_ref<C>(&mut self, clause: &C) -> anyhow::Result<()>
    where
        C: AsRef<Cl> + ?Sized,
    {
        self.push_clause(clause.as_ref());
        Ok(())
    }
}

impl SolveIncremental for VarisatSolver {
    fn solve_assumps(&mut self, assumps: &[Lit]) -> anyhow::Result<SolverResult> {
        self.run(assumps)
    }

    fn core(&mut self) -> anyhow::Result<Vec<Lit>> {
        self.require_state(SolverState::Unsat)?;
        Ok(self.core.clone())
    }
}

impl SolveStats for VarisatSolver {
    fn stats(&self) -> SolverStats {
        #[allow(clippy::cast_precision_loss)] // an average for display only
        let avg_clause_len = if self.n_clauses == 0 {
            0.0
        } else {
            self.total_clause_len as f32 / self.n_clauses as f32
        };
        SolverStats {
            n_sat: self.n_sat,
            n_unsat: self.n_unsat,
            n_terminated: 0,
            n_clauses: self.n_clauses,
            max_var: self.max_var,
            avg_clause_len,
            cpu_solve_time: self.solve_time,
        }
    }
}
