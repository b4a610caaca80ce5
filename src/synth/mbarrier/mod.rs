//! Synthesis of missing mbarrier operations in async pipelines (issue 26): the consumer's
//! release arrive on "empty", the producer's wait on "empty" before it refills a stage, the
//! consumer's wait on "full" before it reads one.
//!
//! [`protocol`] finds the gaps (an mbarrier array arrived on but never waited on, or waited on
//! but never arrived on), [`candidates`] the statements that could close each (positions of
//! the other role loops, written in the file's [`style`] with the operand and parity the
//! kernel's own [`text`] uses), and a weighted MaxSAT instance picks the cheapest combination.
//! The caller writes the choice into the source and lowers it again (`realize`); the named
//! checker checks that kernel, and the reference executor [`replay`]s what the checker
//! accepts. A choice that does not lower or does not verify is ruled out for the next round;
//! one the checker accepts and the executor rejects too, and if no other choice verifies the
//! kernel is inconclusive (the two disagree). Nothing unverified is ever returned as fixed.

pub mod candidates;
pub mod protocol;
pub mod replay;
pub mod style;
pub mod text;

use super::maxsat::{lit_value, MaxSatError, MaxSatProblem, MaxSatResult};
use super::named::roles::Roles;
use super::space::{SynthOptions, SynthStats};
use autosync_oracle::ir::Kernel;
use autosync_oracle::named::{self, NamedOptions};
use autosync_oracle::report::Report;
use autosync_oracle::sdv;
use autosync_oracle::tree::{LabelTree, Position};
use candidates::{Candidate, Env};
use replay::Replay;
use std::time::Instant;
use style::MbarStyle;
use text::Source;

/// One inserted mbarrier operation.
#[derive(Clone, Debug, PartialEq)]
pub struct MbarPlaced {
    /// Where.
    pub pos: Position,
    /// The statement as written.
    pub text: String,
    /// What it does, in words.
    pub what: String,
    /// Its cost.
    pub cost: f64,
}

/// The result of mbarrier synthesis.
#[derive(Clone, Debug, PartialEq)]
pub enum MbarOutcome {
    /// The protocol has no gap this synthesis can close.
    NoGap,
    /// A placement that lowers again and verifies.
    Fixed {
        /// The statements, in text order.
        placed: Vec<MbarPlaced>,
        /// Total cost.
        cost: f64,
    },
    /// Every candidate was tried and none verifies.
    Unfixable(String),
    /// The checker or the solver could not decide.
    Inconclusive(String),
}

/// Writes statements at positions of the kernel into its source and lowers the patched text
/// again: the kernel as the front end reads it back, or why it does not.
pub type Realize<'a> = dyn FnMut(&[(Position, String)]) -> Result<Kernel, String> + 'a;

/// The second verification of a patched kernel the named checker reported clean (the
/// reference executor, [`replay::replay`]; tests put a stand-in here).
type Second = dyn Fn(&Kernel, &Report) -> Replay;

/// Closes the gaps of `k`'s mbarrier protocol; `texts` are the unit's source texts and
/// `kernel_at` the byte offset of the kernel in the main file (helpers before it are callable).
pub fn synthesize(
    k: &Kernel,
    texts: &[String],
    kernel_at: usize,
    opts: &SynthOptions,
    realize: &mut Realize,
    stats: &mut SynthStats,
) -> MbarOutcome {
    synthesize_with(k, texts, kernel_at, opts, realize, stats, &replay::replay)
}

/// [`synthesize`] with `second` as the second verification.
fn synthesize_with(
    k: &Kernel,
    texts: &[String],
    kernel_at: usize,
    opts: &SynthOptions,
    realize: &mut Realize,
    stats: &mut SynthStats,
    second: &Second,
) -> MbarOutcome {
    let start = Instant::now();
    let tree = LabelTree::new(k);
    let uses = protocol::uses(k, &tree);
    let gaps = protocol::gaps(&uses);
    if gaps.is_empty() {
        return MbarOutcome::NoGap;
    }
    let Some(roles) = Roles::new(k, &sdv::uniformity(k)) else {
        return MbarOutcome::Inconclusive("mbarrier synthesis needs a concrete blockDim".into());
    };
    let src = Source { k, tree: &tree, texts };
    let style = MbarStyle::of(texts.first().map_or("", String::as_str), kernel_at);
    let env = Env {
        src: &src,
        uses: &uses,
        style: &style,
        roles: &roles,
        opts,
    };
    let cands = candidates::candidates(&env, &gaps);
    let mut search = Search {
        cands: &cands,
        gaps: gaps.len(),
        opts,
        forbidden: Vec::new(),
        last: None,
        second,
        disagreed: None,
    };
    let outcome = search.run(k, realize, stats);
    stats.time += start.elapsed();
    outcome
}

/// The refinement rounds over one kernel's candidates.
struct Search<'a> {
    cands: &'a [Candidate],
    gaps: usize,
    opts: &'a SynthOptions,
    /// Choices ruled out (candidate indices).
    forbidden: Vec<Vec<usize>>,
    /// Why the last choice failed.
    last: Option<String>,
    second: &'a Second,
    /// Why the executor rejected a choice the named checker accepted, if it did.
    disagreed: Option<String>,
}

impl Search<'_> {
    /// Rounds until a choice verifies, none is left, or the round limit.
    fn run(&mut self, k: &Kernel, realize: &mut Realize, stats: &mut SynthStats) -> MbarOutcome {
        let nopts = NamedOptions {
            warp_sync: k.launch.warp_sync.is_some(),
            timeout_ms: self.opts.timeout_ms,
        };
        for round in 1..=self.opts.max_rounds {
            stats.rounds = round;
            stats.maxsat_calls += 1;
            let chosen = match self.solve() {
                Ok(Some(c)) => c,
                Ok(None) => return self.none_left(),
                Err(msg) => return MbarOutcome::Inconclusive(msg),
            };
            let placed: Vec<(Position, String)> = chosen
                .iter()
                .map(|&i| (self.cands[i].pos, self.cands[i].text.clone()))
                .collect();
            let candidate = match realize(&placed) {
                Ok(c) => c,
                Err(e) => {
                    self.last = Some(format!("does not lower: {e}"));
                    self.forbidden.push(chosen);
                    continue;
                }
            };
            stats.oracle_calls += 1;
            let (report, hidden) = self.opts.split_suppressed(&candidate, named::check(&candidate, &nopts));
            if report.is_clean() {
                let Some(why) = self.second_opinion(&candidate, &report, &hidden) else {
                    return self.fixed(&chosen);
                };
                self.last = Some(format!("is rejected: {why}"));
                self.disagreed = self.last.clone();
                self.forbidden.push(chosen);
                continue;
            }
            if let Some(i) = report.inconclusive.first() {
                return MbarOutcome::Inconclusive(i.message.clone());
            }
            self.last = Some(format!(
                "still has {} race(s) and {} synchronization defect(s)",
                report.races.len(),
                report.sync_defects.len() + report.divergences.len()
            ));
            self.forbidden.push(chosen);
        }
        match &self.disagreed {
            Some(_) => self.none_left(),
            None => MbarOutcome::Inconclusive("mbarrier synthesis did not converge (raise the round limit)".into()),
        }
    }

    /// Why the reference executor rejects `k`, which the named checker reported clean
    /// (`report`, with `hidden` suppressed by the user), if it does.
    fn second_opinion(&self, k: &Kernel, report: &Report, hidden: &Report) -> Option<String> {
        // The executor knows no suppressions: what the user suppressed would reject.
        if !(hidden.is_clean() && hidden.benign.is_empty()) {
            return None;
        }
        match (self.second)(k, report) {
            Replay::Rejected(why) => Some(why),
            Replay::Clean(_) | Replay::NotRun(_) => None,
        }
    }

    /// No choice is left: unfixable, or inconclusive where the named checker accepted a choice
    /// the reference executor rejected (a checker that misses a defect there cannot be trusted
    /// with the others either).
    fn none_left(&self) -> MbarOutcome {
        match &self.disagreed {
            Some(why) => MbarOutcome::Inconclusive(format!(
                "the named checker verifies a placement of the missing mbarrier operations that the reference executor rejects ({why}); nothing written"
            )),
            None => MbarOutcome::Unfixable(self.none_verifies()),
        }
    }

    fn none_verifies(&self) -> String {
        let tried = self.forbidden.len();
        match &self.last {
            Some(why) => {
                format!("no placement of the missing mbarrier operations verifies ({tried} tried; the last {why})")
            }
            None => "no position can take the missing mbarrier operations".into(),
        }
    }

    fn fixed(&self, chosen: &[usize]) -> MbarOutcome {
        let placed: Vec<MbarPlaced> = chosen
            .iter()
            .map(|&i| {
                let c = &self.cands[i];
                MbarPlaced {
                    pos: c.pos,
                    text: c.text.clone(),
                    what: c.what.clone(),
                    cost: c.cost,
                }
            })
            .collect();
        let cost = placed.iter().map(|p| p.cost).sum();
        MbarOutcome::Fixed { placed, cost }
    }

    /// The cheapest choice with a candidate for every gap, none ruled out; among equal costs the
    /// preferred ranks. Returns candidate indices in text order of the candidates.
    fn solve(&self) -> Result<Option<Vec<usize>>, String> {
        let mut p = MaxSatProblem::new();
        let vars: Vec<_> = self.cands.iter().map(|_| p.new_var()).collect();
        for g in 0..self.gaps {
            let lits: Vec<_> = (0..self.cands.len())
                .filter(|&i| self.cands[i].gap == g)
                .map(|i| vars[i].pos_lit())
                .collect();
            p.add_hard(&lits);
        }
        for f in &self.forbidden {
            let lits: Vec<_> = f.iter().map(|&i| vars[i].neg_lit()).collect();
            p.add_hard(&lits);
        }
        let min = self
            .cands
            .iter()
            .map(|c| c.cost)
            .filter(|c| *c > 0.0)
            .fold(f64::INFINITY, f64::min);
        let scale = if min.is_finite() { 1000.0 / min } else { 1.0 };
        // Ranks break ties only: one cost unit outweighs every rank of every gap together.
        let unit = (self.cands.len() as u64 + 1) * self.gaps as u64;
        for (c, v) in self.cands.iter().zip(&vars) {
            let w = ((c.cost * scale).round().max(1.0) as u64).saturating_mul(unit) + c.rank as u64;
            p.add_soft(v.neg_lit(), w);
        }
        match self.opts.algorithm.solver().solve(&p) {
            Ok(MaxSatResult::Optimal { model, .. }) => Ok(Some(
                (0..self.cands.len())
                    .filter(|&i| lit_value(&model, vars[i].pos_lit()))
                    .collect(),
            )),
            Ok(MaxSatResult::Unsat) => Ok(None),
            Err(MaxSatError::WeightOverflow) => Err("cost weights overflow; lower --cost-loop".into()),
            Err(e) => Err(format!("MaxSAT solver failed: {e}")),
        }
    }
}

#[cfg(test)]
mod tests;
