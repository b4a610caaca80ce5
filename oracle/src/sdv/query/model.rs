//! Where a witness's values come from (a solver's model or an assignment found by
//! evaluation), and a model made small before it is shown.

use super::super::guess::Guess;
use super::super::threads::{Geometry, ThreadVars};
use crate::ir::*;
use crate::smt::numeral;
use z3::ast::{Bool, BV};
use z3::{Model, SatResult, Solver};

/// Where a witness's values come from: a solver's model, or an assignment found by
/// evaluation.
pub(super) enum Valuation<'a> {
    Model(&'a Model),
    Guess(&'a Guess),
}

impl Valuation<'_> {
    /// The value of `x` (constants not assigned taken as 0).
    pub(super) fn value(&self, x: &BV) -> Option<u64> {
        match self {
            Valuation::Model(m) => m.eval(x, true).and_then(|v| v.as_u64()),
            Valuation::Guess(g) => g.value(x),
        }
    }

    /// The value of the constant `c`, only when it is assigned one.
    pub(super) fn assigned(&self, c: &BV) -> Option<u64> {
        match self {
            Valuation::Model(m) => m.eval(c, false).and_then(|v| v.as_u64()),
            Valuation::Guess(g) => g.assigns(c).then(|| g.value(c)).flatten(),
        }
    }
}

/// A model of the asserted query whose kernel parameters (and block indices, and grid size
/// when symbolic) are small and non-negative, when one exists at one of a few bounds: a
/// witness a user recognises (`n = 3` rather than `n = 2080374768`). Falls back to `m`.
pub(super) fn smaller_model(
    k: &Kernel,
    solver: &Solver,
    geom: &Geometry,
    m: Model,
    threads: [&ThreadVars; 2],
) -> Model {
    let mut small: Vec<(BV, bool)> = Vec::new();
    for var in k.vars.iter().filter(|v| v.kind == VarKind::Param) {
        if k.launch.params.contains_key(&var.name) {
            continue;
        }
        if let ScalarTy::Int { bits, signed } = var.ty {
            small.push((BV::new_const(format!("param_{}", var.name), bits as u32), signed));
        }
    }
    for t in threads {
        small.extend(t.bid.iter().map(|b| (b.clone(), false)));
    }
    if k.launch.grid_dim.is_none() {
        small.extend(geom.gdim.iter().map(|g| (g.clone(), false)));
    }
    if small.is_empty() {
        return m;
    }
    for bound in [16u64, 1024, 1 << 20] {
        let within: Vec<Bool> = small
            .iter()
            .map(|(x, signed)| {
                let b = numeral(bound, x.get_size());
                if *signed {
                    Bool::and(&[x.bvsge(numeral(0, x.get_size())), x.bvsle(&b)])
                } else {
                    x.bvule(&b)
                }
            })
            .collect();
        solver.push();
        solver.assert(Bool::and(&within));
        let found = match solver.check() {
            SatResult::Sat => solver.get_model(),
            _ => None,
        };
        solver.pop(1);
        if let Some(better) = found {
            return better;
        }
    }
    m
}

/// The model value of `x`, read with the signedness of variable `v`'s type.
pub(super) fn signed_value(k: &Kernel, v: VarId, m: &Valuation, x: &BV) -> i64 {
    let u = m.value(x).unwrap_or(0);
    match k.var(v).ty {
        ty if ty.is_signed() => ty.normalize(u as i64),
        _ => u as i64,
    }
}
