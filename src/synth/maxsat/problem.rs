//! Weighted partial MaxSAT instances as plain data: hard clauses plus weighted soft literals.

use std::collections::BTreeMap;
use std::io;

use rustsat::{
    instances::{fio::dimacs, Cnf},
    types::{Clause, Lit, Var},
};

/// A weighted partial MaxSAT problem; solvers rebuild from it, so clauses may be added between
/// solves.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MaxSatProblem {
    n_vars: u32,
    hard: Vec<Clause>,
    soft: Vec<(Lit, u64)>,
}

impl MaxSatProblem {
    /// Creates an empty problem (no variables, no constraints).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Allocates a fresh variable.
    pub fn new_var(&mut self) -> Var {
        let var = Var::new(self.n_vars);
        self.n_vars += 1;
        var
    }

    /// Number of variables; every variable mentioned in a constraint is counted.
    #[must_use]
    pub fn num_vars(&self) -> usize {
        self.n_vars as usize
    }

    /// Adds a hard clause (a disjunction that every solution must satisfy).
    pub fn add_hard(&mut self, clause: &[Lit]) {
        for &lit in clause {
            self.cover_var(lit.var());
        }
        self.hard.push(clause.iter().copied().collect());
    }

    /// Adds a soft literal: `weight` is paid when `lit` is false. Zero weights are ignored.
    pub fn add_soft(&mut self, lit: Lit, weight: u64) {
        self.cover_var(lit.var());
        if weight > 0 {
            self.soft.push((lit, weight));
        }
    }

    /// The hard clauses in insertion order.
    #[must_use]
    pub fn hard_clauses(&self) -> &[Clause] {
        &self.hard
    }

    /// The soft literals with their weights in insertion order (duplicates allowed).
    #[must_use]
    pub fn soft_lits(&self) -> &[(Lit, u64)] {
        &self.soft
    }

    /// Soft literals with the weights of repeated literals summed, in literal order.
    ///
    /// # Errors
    ///
    /// [`WeightOverflow`] if a summed weight does not fit in `u64`.
    pub fn merged_softs(&self) -> Result<Vec<(Lit, u64)>, WeightOverflow> {
        let mut merged: BTreeMap<Lit, u64> = BTreeMap::new();
        for &(lit, w) in &self.soft {
            let slot = merged.entry(lit).or_insert(0);
            *slot = slot.checked_add(w).ok_or(WeightOverflow)?;
        }
        Ok(merged.into_iter().collect())
    }

    /// Sum of all soft weights, i.e. the cost of violating every soft literal.
    ///
    /// # Errors
    ///
    /// [`WeightOverflow`] if the sum does not fit in `u64`.
    pub fn total_weight(&self) -> Result<u64, WeightOverflow> {
        self.soft
            .iter()
            .try_fold(0u64, |acc, &(_, w)| acc.checked_add(w).ok_or(WeightOverflow))
    }

    /// Whether `model` (values by variable index; missing variables are false) satisfies every
    /// hard clause.
    #[must_use]
    pub fn satisfies_hard(&self, model: &[bool]) -> bool {
        self.hard.iter().all(|cl| cl.iter().any(|&l| lit_value(model, l)))
    }

    /// Cost of `model`: total weight of the soft literals it falsifies (saturating).
    #[must_use]
    pub fn cost(&self, model: &[bool]) -> u64 {
        self.soft
            .iter()
            .filter(|&&(l, _)| !lit_value(model, l))
            .fold(0u64, |acc, &(_, w)| acc.saturating_add(w))
    }

    /// Writes the problem as WCNF in the 2022+ format (`h` lines for hard clauses, `w lit 0` for
    /// soft literals; repeated soft literals are merged so the file has one line per literal).
    ///
    /// # Errors
    ///
    /// Any I/O error of `w`, or `InvalidData` if a weight does not fit the writer's `usize`.
    pub fn write_wcnf(&self, w: &mut impl io::Write) -> io::Result<()> {
        let bad_weight = || io::Error::new(io::ErrorKind::InvalidData, "soft weight overflow");
        let merged = self.merged_softs().map_err(|_| bad_weight())?;
        let mut softs = Vec::with_capacity(merged.len());
        for (lit, weight) in merged {
            let weight = usize::try_from(weight).map_err(|_| bad_weight())?;
            softs.push((Clause::from([lit].as_slice()), weight));
        }
        let cnf: Cnf = self.hard.iter().cloned().collect();
        dimacs::write_wcnf_annotated(w, &cnf, (softs, 0), Some(self.n_vars))
    }

    fn cover_var(&mut self, var: Var) {
        self.n_vars = self.n_vars.max(var.idx32() + 1);
    }
}

/// The summed soft weights exceed `u64`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("soft weights overflow u64")]
pub struct WeightOverflow;

/// Value of `lit` under `model`; variables beyond the model are false.
#[must_use]
pub fn lit_value(model: &[bool], lit: Lit) -> bool {
    let val = model.get(lit.vidx()).copied().unwrap_or(false);
    val != lit.is_neg()
}
