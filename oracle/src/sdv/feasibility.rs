//! Which branches and loop bodies certainly run whenever their statement runs (decided
//! without barriers in mind), for synthesis.

use super::decided;
use super::intervals;
use super::levels::Uniformity;
use super::options::SdvOptions;
use super::uniform::uniformity;
use crate::ir::*;
use std::collections::{HashMap, HashSet};

/// Which branches and loop bodies run whenever their statement runs.
#[derive(Clone, Debug, Default)]
pub struct Feasibility {
    /// Loops whose body certainly runs at least once whenever the loop statement runs: a
    /// do-while, a first test that folds to true with the constants known there (launch
    /// configuration, `--param` values, constant assignments), or one the solver proves true.
    pub entered_loops: HashSet<Label>,
    /// `if`s whose condition has the same value in every thread that evaluates it (proved by
    /// the solver): the branch it names runs whenever the `if` does.
    pub branches: HashMap<Label, bool>,
}

/// The [`Feasibility`] of every `if` and loop of `k`.
pub fn feasibility(k: &Kernel) -> Feasibility {
    feasibility_with(k, &uniformity(k), None)
}

/// [`feasibility`] with `k`'s uniformity (as [`uniformity`] finds it) given; with `blocks`,
/// only of the `if`s and loops with one of those blocks as a branch or body (the others are
/// left undecided: each costs a solver call).
pub fn feasibility_with(k: &Kernel, unif: &Uniformity, blocks: Option<&HashSet<Label>>) -> Feasibility {
    crate::smt::fresh_context(|| {
        let scope = blocks.map_or(decided::Scope::All, decided::Scope::Blocks);
        let d = decided::decide(k, unif, scope, SdvOptions::default().timeout_ms);
        Feasibility {
            entered_loops: intervals::Cfg::build(k, unif, &d).entered,
            branches: d.branches,
        }
    })
}
