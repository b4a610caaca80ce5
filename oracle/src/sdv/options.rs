//! The SDV checker's options.

use super::guess;

/// Options of the SDV checker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SdvOptions {
    /// Solver time limit per query, in milliseconds (an unanswered query counts as a race).
    pub timeout_ms: u32,
    /// Also look for races between threads of different blocks on global memory.
    pub check_inter_block: bool,
    /// Wall-clock end of the whole check: once it passes, no more queries are asked and the
    /// report says it is inconclusive (never clean).
    pub deadline: Option<std::time::Instant>,
    /// Report benign races (stores of the same value to the same address) as races; otherwise
    /// they go to [`Report::benign`].
    ///
    /// [`Report::benign`]: crate::report::Report::benign
    pub strict: bool,
    /// Prefer witnesses with small non-negative parameter values and block indices (a few more
    /// solver calls per race; synthesis turns it off for the placements it tries).
    pub small_witnesses: bool,
    /// Check as if every read that can give all threads the same value did (see
    /// [`uniformity_if_reads_settle`]): the races a placement must remove besides making those
    /// reads settle. Not a verdict (synthesis uses it to plan, and verifies without it).
    ///
    /// [`uniformity_if_reads_settle`]: crate::sdv::uniformity_if_reads_settle
    pub assume_settled_reads: bool,
    /// Once two accesses are known to race harmfully, ask no other pair written at the same
    /// two source places (statement spans: a macro expanded into many statements, one call of
    /// an inlined function; two calls are two places) with the same
    /// arrays, scope and iteration relation on the same lane: the report then lists one racing
    /// access pair per pair of places (with the relation its own query refined), which is
    /// what synthesis plans with (the barrier positions around such statements are the same);
    /// every placement is verified with a full check. Never used for a verdict.
    pub one_race_per_place_pair: bool,
    /// Report a race from a loop to a statement after it as needing an iteration of that loop
    /// other than its last ([`IterRelation::NotLastIteration`]), or one into a loop from a
    /// statement before it as needing an iteration other than its first
    /// ([`IterRelation::NotFirstIteration`]), unless a short search by evaluation finds the race
    /// in that last (first) iteration; the solver is not asked. It is the relation that offers
    /// a placement the most barrier positions. Never used for a verdict: synthesis verifies
    /// every placement with a full check, which classifies every race it still finds.
    ///
    /// [`IterRelation::NotLastIteration`]: crate::report::IterRelation::NotLastIteration
    /// [`IterRelation::NotFirstIteration`]: crate::report::IterRelation::NotFirstIteration
    pub assume_loop_relations: bool,
    /// Nodes a search for a model by evaluation may evaluate before a conflict query goes to
    /// the solver (about 7 ns each). A miss costs the search; a model found saves a solver
    /// call of 2–30 ms: worth more where most queries are satisfiable (synthesis's planning
    /// call, on a kernel it is asked to fix) than where most are not (a race-free kernel).
    pub search_nodes: usize,
    /// Settle conflict queries whose element indices are one injective function of the
    /// threads' coordinates without the solver (`injective.rs`; element-wise kernels ask no
    /// solver query). Off only to compare verdicts with and without it: it never changes one.
    pub injective_test: bool,
}

/// [`SdvOptions::search_nodes`] by default.
pub const SEARCH_NODES: usize = guess::NODE_BUDGET;

impl Default for SdvOptions {
    fn default() -> Self {
        SdvOptions {
            timeout_ms: 2000,
            check_inter_block: true,
            deadline: None,
            strict: false,
            small_witnesses: true,
            assume_settled_reads: false,
            one_race_per_place_pair: false,
            assume_loop_relations: false,
            search_nodes: SEARCH_NODES,
            injective_test: true,
        }
    }
}
