//! Named-barrier placement for warp-specialized kernels.
//!
//! Races are turned into requirements ([`needs`]): in-region races need a block-wide or
//! sub-block `bar.sync` between the accesses; cross-role races need a producer/consumer channel
//! (`bar.arrive` after the write in one role, `bar.sync` before the read in the other, or syncs on
//! both sides). A weighted MaxSAT instance picks the cheapest set of options, IDs are assigned
//! from the allowed set, and the named-barrier checker verifies the candidate. New races become
//! new requirements; synchronization defects (deadlock, recycling, counts) forbid the current
//! choice. Nothing unverified is ever returned as fixed.
//!
//! For role loops, two probe checks decide whether anything flows back from the consumer side to
//! a later producer iteration, and at which distance (1 or at least 2), so that double-buffered
//! loops get one synchronizing channel instead of a full/empty pair.

pub mod guard;
pub mod needs;
pub mod roles;
pub mod settings;
pub mod style;

#[cfg(test)]
mod tests;

use super::maxsat::{lit_value, MaxSatError, MaxSatProblem, MaxSatResult};
use super::space::{key, RaceKey, Space, SynthOptions, SynthStats};
use crate::vocab::defects::sync_rule;
use autosync_oracle::ir::{Barrier, BinOp, Block, Expr, Kernel, Label, Loop, Op, ScalarTy, StmtKind, VarId};
use autosync_oracle::named::{self, NamedOptions};
use autosync_oracle::report::{Race, Report, SyncDefectKind};
use autosync_oracle::sdv::{self, Level};
use autosync_oracle::tree::{for_each_stmt, insert_barriers, insert_guarded_barriers, LabelTree, Position};
use needs::{ChanKey, Cross, Ctx, Need, NoOption, Side};
use roles::{Roles, WARP};
use rustsat::types::{Lit, Var};
pub use settings::{parse_id_set, NamedKind, NamedSettings, NamedStyle};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::ControlFlow;
use std::time::Instant;

/// One inserted statement.
#[derive(Clone, Debug)]
pub struct NamedPlaced {
    /// Where.
    pub pos: Position,
    /// What.
    pub kind: NamedKind,
    /// Its cost under the cost model.
    pub cost: f64,
    /// Indices of the initial report's races it helps order.
    pub covers: Vec<usize>,
    /// Whether it is one end of a producer/consumer channel.
    pub channel: bool,
    /// The condition it is written under (a shifted channel end), if any.
    pub guard: Option<guard::Guard>,
    /// When the ID cycles with the role loop's counter: the kind's ID is the first of them.
    pub rotation: Option<guard::Rotation>,
}

impl NamedPlaced {
    /// The IDs it uses.
    pub fn ids(&self) -> Vec<u32> {
        let (NamedKind::Sync { id, .. } | NamedKind::Arrive { id, .. }) = self.kind else {
            return vec![];
        };
        (id..id + self.rotation.as_ref().map_or(1, |r| r.by)).collect()
    }

    /// The IR statement's barrier (the guard is separate).
    pub fn barrier(&self) -> Barrier {
        let (NamedKind::Sync { id, .. } | NamedKind::Arrive { id, .. }) = self.kind else {
            return self.kind.barrier();
        };
        self.kind.barrier_with(self.rotation.as_ref().map(|r| r.id_expr(id)))
    }

    /// The source text, guard included.
    pub fn text(&self, style: NamedStyle) -> String {
        self.guarded(self.kind.text_with(style, self.id_text().as_deref()))
    }

    /// The source text written as `e` says (the kernel's helpers), guard included.
    pub fn text_in(&self, e: &style::Emission) -> String {
        self.guarded(e.statement(self.kind, self.id_text().as_deref()))
    }

    /// The ID as an expression of the loop counter, for a rotating ID.
    fn id_text(&self) -> Option<String> {
        match (self.kind, &self.rotation) {
            (NamedKind::Sync { id, .. } | NamedKind::Arrive { id, .. }, Some(r)) => Some(r.id_text(id)),
            _ => None,
        }
    }

    fn guarded(&self, stmt: String) -> String {
        match &self.guard {
            Some(g) => format!("if ({}) {stmt}", g.text),
            None => stmt,
        }
    }
}

/// Why named synthesis cannot fix a kernel.
#[derive(Clone, Debug, PartialEq)]
pub enum NamedUnfixable {
    /// The input has a synchronization defect (deadlock, count mismatch, divergent barrier...).
    SyncDefect(String),
    /// One statement races with itself within one iteration.
    SameStatement(Box<Race>),
    /// A race with no option.
    NoOption(Box<Race>, NoOption),
    /// More barriers than free IDs.
    NotEnoughIds {
        /// IDs the placement needs.
        needed: usize,
        /// IDs available.
        available: usize,
    },
    /// The requirements have no solution.
    NoPlacement,
    /// A race with an asynchronous copy: a barrier orders threads, not a copy in flight (that
    /// takes a `cp.async.wait_group` or an mbarrier wait, which synthesis does not write yet).
    AsyncCopy(Box<Race>),
}

impl NamedUnfixable {
    /// Short machine-readable reason.
    pub fn reason(&self) -> &'static str {
        match self {
            NamedUnfixable::SyncDefect(_) => "sync-error",
            NamedUnfixable::SameStatement(_) => "same-statement",
            NamedUnfixable::NoOption(_, NoOption::LaneDivergent) => "lane-divergent",
            NamedUnfixable::NoOption(_, NoOption::RoleLoops) => "role-loop-mismatch",
            NamedUnfixable::NoOption(_, NoOption::UnknownTrips) => "unknown-trip-count",
            NamedUnfixable::NoOption(_, NoOption::NoMatchedPair) => "no-matched-pair",
            NamedUnfixable::NotEnoughIds { .. } => "not-enough-ids",
            NamedUnfixable::NoPlacement => "no-placement",
            NamedUnfixable::AsyncCopy(_) => "async-copy",
        }
    }

    /// A human sentence.
    pub fn describe(&self, k: &Kernel) -> String {
        let at = |r: &Race| format!("{} and {}", k.loc(r.first.span), k.loc(r.second.span));
        match self {
            NamedUnfixable::SyncDefect(s) => format!("the kernel's own barriers are defective: {s}"),
            NamedUnfixable::SameStatement(r) => format!(
                "{}: one statement races on `{}` with itself; no barrier can go inside a statement",
                k.loc(r.first.span),
                k.array(r.array).name
            ),
            NamedUnfixable::NoOption(r, NoOption::LaneDivergent) => format!(
                "{}: every position between these accesses is lane-divergent or not executed by both racing warps",
                at(r)
            ),
            NamedUnfixable::NoOption(r, NoOption::RoleLoops) => format!(
                "{}: the accesses are in role loops with different trip counts; no barrier generations can match",
                at(r)
            ),
            NamedUnfixable::NoOption(r, NoOption::UnknownTrips) => format!(
                "{}: the role loops' trip counts are not known for this launch; give the loop bounds with --param",
                at(r)
            ),
            NamedUnfixable::NoOption(r, NoOption::NoMatchedPair) => format!(
                "{}: no pair of positions in the two roles executes equally often in the lock-step order",
                at(r)
            ),
            NamedUnfixable::NotEnoughIds { needed, available } => format!(
                "the placement needs {needed} barrier IDs in flight but only {available} are free (see --reserved-ids)"
            ),
            NamedUnfixable::NoPlacement => "no named-barrier placement orders every race".into(),
            NamedUnfixable::AsyncCopy(r) => format!(
                "{}: an asynchronous copy races on `{}`; no barrier orders a copy in flight: it needs a cp.async.wait_group or an mbarrier wait first",
                at(r),
                k.array(r.array).name
            ),
        }
    }
}

/// The result of named synthesis.
#[derive(Clone, Debug)]
pub enum NamedOutcome {
    /// No race to begin with.
    AlreadyClean,
    /// A verified placement.
    Fixed {
        /// Statements to insert, in text order (at one position: arrives, then syncs).
        barriers: Vec<NamedPlaced>,
        /// Total cost.
        cost: f64,
    },
    /// Barriers cannot fix it.
    Unfixable(Vec<NamedUnfixable>),
    /// The oracle or solver could not decide.
    Inconclusive(String),
}

/// Named synthesis result with the initial report and counters.
#[derive(Clone, Debug)]
pub struct NamedSynthesis {
    /// The named checker's report on the input (suppressed findings removed).
    pub initial: Report,
    /// The suppressed findings of the input.
    pub suppressed: Report,
    /// What to do.
    pub outcome: NamedOutcome,
    /// Counters.
    pub stats: SynthStats,
    /// Emission style for the kernel.
    pub style: NamedStyle,
}

/// The emission style for `k`: the setting, else CUTLASS when the kernel already uses it.
pub fn style_for(k: &Kernel, s: &NamedSettings) -> NamedStyle {
    if let Some(st) = s.style {
        return st;
    }
    if style::uses_cutlass(k) {
        NamedStyle::Cutlass
    } else {
        NamedStyle::Asm
    }
}

/// Constant IDs of the kernel's own named barriers (never reused by the tool).
pub fn used_ids(k: &Kernel) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Barrier(Barrier::NamedSync { id, .. } | Barrier::NamedArrive { id, .. }, _) = &s.kind {
            if let Some(v) = id.as_const() {
                out.insert(v as u32);
            }
        }
    });
    out
}

/// Whether some named barrier of the kernel has an ID that is not a constant.
pub fn has_computed_ids(k: &Kernel) -> bool {
    let mut found = false;
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Barrier(Barrier::NamedSync { id, .. } | Barrier::NamedArrive { id, .. }, _) = &s.kind {
            found |= id.as_const().is_none();
        }
    });
    found
}

fn named_options(k: &Kernel, opts: &SynthOptions) -> NamedOptions {
    NamedOptions {
        warp_sync: k.launch.warp_sync.is_some(),
        timeout_ms: opts.timeout_ms,
    }
}

/// The cost of a statement at `pos` before its kind factor: LC^loops · IC^conds.
pub fn base_cost(tree: &LabelTree, pos: Position, opts: &SynthOptions) -> f64 {
    let info = tree.get(pos.label());
    opts.cost_loop.powi(info.cost_loops() as i32) * opts.cost_if.powi(info.conds() as i32)
}

/// The kind factor of a sync run by `k` of the block's `total` warps (at least the setting's
/// minimum); an arrive costs `arrive_factor` times it.
pub fn sync_factor(k: u32, total: u32, s: &NamedSettings) -> f64 {
    (k as f64 / total.max(1) as f64).max(s.min_sync_factor)
}

/// Number and cost of the synchronization statements already in a kernel, under the named cost
/// model (for comparison with a synthesized placement).
pub fn existing_cost(k: &Kernel, opts: &SynthOptions) -> (u32, f64) {
    let tree = LabelTree::new(k);
    let total = k
        .launch
        .threads_per_block()
        .map_or(1, |t| t.div_ceil(WARP as u64) as u32);
    let s = &opts.named;
    let mut n = 0;
    let mut cost = 0.0;
    for_each_stmt(&k.body, &mut |st| {
        let StmtKind::Barrier(b, _) = &st.kind else { return };
        let base = base_cost(&tree, Position::After(st.label), opts);
        let warps = |c: &Expr| c.as_const().map_or(total, |v| (v as u32).div_ceil(WARP));
        let f = match b {
            Barrier::Block | Barrier::NamedSync { count: None, .. } => 1.0,
            Barrier::NamedSync { count: Some(c), .. } => sync_factor(warps(c), total, s),
            Barrier::NamedArrive { count, .. } => s.arrive_factor * sync_factor(warps(count), total, s),
            Barrier::Warp => return,
        };
        n += 1;
        cost += base * f;
    });
    (n, cost)
}

/// A decision variable of the encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Decision {
    /// A sync at space position i.
    Sub(usize),
    /// A channel exists (both ends at least arrive).
    Chan(ChanKey),
    /// One end of a channel synchronizes.
    ChanSync(ChanKey, Side),
}

/// An unfixable outcome whose races include asynchronous copies, said in their terms.
///
/// A copy's race is placed for like any other, at the statement that issues the copy: a barrier
/// between an access and a *later* copy's issue orders them, since the copy reads and writes
/// only after it is issued (the reads of the previous tile before the next tile's copy). When
/// the copy is the earlier of the two, its data may land after any barrier: no placement
/// verifies, and the reason is the copy (it needs a `cp.async.wait_group` or an mbarrier wait).
fn blame_copies(k: &Kernel, races: &[Race], outcome: NamedOutcome) -> NamedOutcome {
    let copies = async_copy_labels(k);
    let touches = |r: &Race| touches_copy(&copies, r);
    let copy_races: Vec<NamedUnfixable> = races
        .iter()
        .filter(|r| touches(r))
        .map(|r| NamedUnfixable::AsyncCopy(Box::new(r.clone())))
        .collect();
    if copy_races.is_empty() {
        return outcome;
    }
    let why = match outcome {
        NamedOutcome::Unfixable(why) => why,
        // The rounds for a copy that lands first only ever move barriers around.
        NamedOutcome::Inconclusive(m) if m == NOT_CONVERGED => return NamedOutcome::Unfixable(copy_races),
        other => return other,
    };
    let mut out = Vec::new();
    for w in why {
        match w {
            NamedUnfixable::NoOption(r, _) | NamedUnfixable::SameStatement(r) if touches(&r) => {
                out.push(NamedUnfixable::AsyncCopy(r))
            }
            NamedUnfixable::NoPlacement => out.extend(copy_races.iter().cloned()),
            other => out.push(other),
        }
    }
    NamedOutcome::Unfixable(out)
}

/// The inconclusive outcome of a refinement that ran out of rounds.
const NOT_CONVERGED: &str = "named-barrier refinement did not converge";

/// Rounds a placement may take when some race involves an asynchronous copy: a copy whose data
/// may land after any barrier keeps the refinement moving barriers around until it runs out.
const COPY_ROUNDS: u32 = 8;

/// Whether one of the race's accesses is at a statement that issues an asynchronous copy.
fn touches_copy(copies: &BTreeSet<Label>, r: &Race) -> bool {
    copies.contains(&r.first.label) || copies.contains(&r.second.label)
}

/// The statements that issue an asynchronous copy (whose writes land later, at its completion).
fn async_copy_labels(k: &Kernel) -> BTreeSet<Label> {
    let mut out = BTreeSet::new();
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Basic(ops) = &s.kind {
            if ops.iter().any(|o| matches!(o, Op::AsyncCopy(_))) {
                out.insert(s.label);
            }
        }
    });
    out
}

/// Mutable state of the refinement loop.
#[derive(Default)]
struct State {
    crosses: BTreeMap<RaceKey, Cross>,
    backward: BTreeMap<RaceKey, u32>,
    regions: BTreeMap<RaceKey, Race>,
    narrow: BTreeSet<(RaceKey, u32)>,
    forbidden: Vec<Vec<(Decision, bool)>>,
}

impl State {
    /// The state for the input's races, each a cross-role or in-region requirement; `Err` is the
    /// outcome when some race has no option.
    fn from_races(cx: &Ctx, races: &[Race]) -> Result<State, NamedOutcome> {
        let mut st = State::default();
        let mut why = Vec::new();
        for r in races {
            match st.add(cx, r) {
                // Not a property of the kernel: the launch leaves the loop bounds open.
                Err(NamedUnfixable::NoOption(r, NoOption::UnknownTrips)) => {
                    return Err(NamedOutcome::Inconclusive(unknown_trips_message(cx.k, &cx.tree, &r)))
                }
                Err(e) => why.push(e),
                Ok(()) => {}
            }
        }
        if !why.is_empty() {
            return Err(NamedOutcome::Unfixable(why));
        }
        Ok(st)
    }

    /// Adds a race; `Err` when it has no option.
    fn add(&mut self, cx: &Ctx, r: &Race) -> Result<(), NamedUnfixable> {
        let (a, b) = (r.first.label, r.second.label);
        if let Some((x, y, bx, by)) = cx.split(a, b) {
            let c = cx
                .cross(x, y, bx, by)
                .map_err(|e| NamedUnfixable::NoOption(Box::new(r.clone()), e))?;
            self.crosses.insert(key(r), c);
            return Ok(());
        }
        let common = cx.tree.get(a).loops().min(cx.tree.get(b).loops());
        if a == b && common == 0 {
            return Err(NamedUnfixable::SameStatement(Box::new(r.clone())));
        }
        self.regions.insert(key(r), r.clone());
        Ok(())
    }

    fn needs(&self, cx: &Ctx) -> Result<BTreeMap<RaceKey, Vec<Need>>, (RaceKey, NoOption)> {
        let mut out = BTreeMap::new();
        for (k, c) in &self.crosses {
            let n = cx.cross_needs(c, self.backward.get(k).copied()).map_err(|e| (*k, e))?;
            out.insert(*k, n);
        }
        for (k, r) in &self.regions {
            let n = cx.region_needs(r, &self.narrow).map_err(|e| (*k, e))?;
            out.insert(*k, n);
        }
        Ok(out)
    }
}

/// Synthesizes a verified named-barrier placement for `k` (requires a concrete blockDim).
pub fn synthesize(k: &Kernel, opts: &SynthOptions) -> NamedSynthesis {
    let start = Instant::now();
    let mut stats = SynthStats::default();
    let style = style_for(k, &opts.named);
    let nopts = named_options(k, opts);
    let (initial, suppressed) = opts.split_suppressed(k, named::check(k, &nopts));
    stats.oracle_calls += 1;
    let outcome = match screen(k, opts, &initial, &nopts, &mut stats) {
        Some(outcome) => outcome,
        None => blame_copies(k, &initial.races, place(k, opts, &initial, &nopts, &mut stats)),
    };
    stats.time = start.elapsed();
    NamedSynthesis {
        initial,
        suppressed,
        outcome,
        stats,
        style,
    }
}

/// The outcome the input's report decides alone (undecided findings, the kernel's own
/// synchronization defects, repaired by back-pressure where possible, or no race); `None` when
/// there are races to place barriers for.
fn screen(
    k: &Kernel,
    opts: &SynthOptions,
    initial: &Report,
    nopts: &NamedOptions,
    stats: &mut SynthStats,
) -> Option<NamedOutcome> {
    if let Some(i) = initial.inconclusive.first() {
        return Some(NamedOutcome::Inconclusive(i.message.clone()));
    }
    if !initial.sync_defects.is_empty() || !initial.divergences.is_empty() {
        if let Some(placed) = back_pressure(k, opts, initial, nopts, stats) {
            let cost = placed.iter().map(|p| p.cost).sum();
            return Some(NamedOutcome::Fixed { barriers: placed, cost });
        }
        let mut why: Vec<NamedUnfixable> = initial
            .sync_defects
            .iter()
            .map(|d| NamedUnfixable::SyncDefect(sync_rule(&d.kind).noun.into()))
            .collect();
        why.extend(
            initial
                .divergences
                .iter()
                .map(|d| NamedUnfixable::SyncDefect(format!("divergent barrier at {}", k.loc(d.span)))),
        );
        return Some(NamedOutcome::Unfixable(why));
    }
    if initial.races.is_empty() {
        return Some(NamedOutcome::AlreadyClean);
    }
    if initial.races.iter().any(|r| r.assumed) {
        return Some(NamedOutcome::Inconclusive(
            "the solver could not decide a race; the placement could not be verified".into(),
        ));
    }
    None
}

/// Places barriers for the input's races: a requirement per race, back-flow probes for role
/// loops, then rounds of solving, checking and refining.
fn place(
    k: &Kernel,
    opts: &SynthOptions,
    initial: &Report,
    nopts: &NamedOptions,
    stats: &mut SynthStats,
) -> NamedOutcome {
    let unif = sdv::uniformity(k);
    let Some(roles) = Roles::new(k, &unif) else {
        return NamedOutcome::Inconclusive("named-barrier synthesis needs a concrete blockDim".into());
    };
    let cx = Ctx {
        k,
        tree: LabelTree::new(k),
        roles: &roles,
        unif: &unif,
        space: Space::build(k, opts, Level::Warp),
        cands: needs::emittable(k),
    };
    let avail = available_ids(k, opts);
    let mut st = match State::from_races(&cx, &initial.races) {
        Ok(st) => st,
        Err(outcome) => return outcome,
    };
    probe_back_flow(&cx, &mut st, &avail, nopts, stats);
    let mut refinement = Refinement {
        cx: &cx,
        opts,
        nopts,
        avail: &avail,
        races: &initial.races,
        st,
        max_rounds: opts.max_rounds,
        copy_races: false,
    };
    let copies = async_copy_labels(k);
    if initial.races.iter().any(|r| touches_copy(&copies, r)) {
        refinement.copy_races = true;
        refinement.max_rounds = refinement.max_rounds.min(COPY_ROUNDS);
    }
    refinement.run(stats)
}

/// The IDs new barriers may take: the allowed ones the kernel does not use itself.
fn available_ids(k: &Kernel, opts: &SynthOptions) -> Vec<u32> {
    let used = used_ids(k);
    let mut avail: Vec<u32> = opts
        .named
        .allowed_ids
        .iter()
        .copied()
        .filter(|i| *i != 0 && *i <= 15 && !used.contains(i))
        .collect();
    if has_computed_ids(k) {
        // The kernel picks some IDs at run time (`FULL0 + slot`); such kernels conventionally
        // count up from low IDs, so take new ones from the top (the checker verifies anyway).
        avail.reverse();
    }
    avail
}

/// The rounds of [`place`]: what they read, and the refinement [`State`] they grow.
struct Refinement<'a> {
    cx: &'a Ctx<'a>,
    opts: &'a SynthOptions,
    nopts: &'a NamedOptions,
    /// The IDs new barriers may take.
    avail: &'a [u32],
    /// The input's races (what each barrier is said to cover).
    races: &'a [Race],
    st: State,
    /// Rounds before giving up.
    max_rounds: u32,
    /// Some race of the input involves an asynchronous copy (see [`Refinement::prune`]).
    copy_races: bool,
}

impl Refinement<'_> {
    /// Rounds until a placement verifies or none can.
    fn run(&mut self, stats: &mut SynthStats) -> NamedOutcome {
        let mut round = 0;
        loop {
            round += 1;
            stats.rounds = round;
            if round > self.max_rounds {
                return NamedOutcome::Inconclusive(NOT_CONVERGED.into());
            }
            if let ControlFlow::Break(outcome) = self.round(stats) {
                return outcome;
            }
        }
    }

    /// One round: solve the requirements, give the choice IDs, check the candidate, and learn
    /// from what the checker still reports; `Break` ends the search with its outcome.
    fn round(&mut self, stats: &mut SynthStats) -> ControlFlow<NamedOutcome> {
        let needs = self.needs()?;
        stats.maxsat_calls += 1;
        let chosen = match solve(self.cx, self.opts, &needs, &self.st.forbidden) {
            Ok(Some(c)) => c,
            Ok(None) => return ControlFlow::Break(NamedOutcome::Unfixable(vec![NamedUnfixable::NoPlacement])),
            Err(msg) => return ControlFlow::Break(NamedOutcome::Inconclusive(msg)),
        };
        let (placed, shared) = self.with_ids(&chosen, &needs)?;
        let Some(candidate) = apply(self.cx.k, &placed) else {
            return ControlFlow::Break(NamedOutcome::Inconclusive(
                "internal: a chosen position is not in the kernel".into(),
            ));
        };
        let report = self.opts.unsuppressed(self.cx.k, named::check(&candidate, self.nopts));
        stats.oracle_calls += 1;
        if report.is_clean() {
            let placed = self.prune(placed, stats);
            let cost = placed.iter().map(|p| p.cost).sum();
            return ControlFlow::Break(NamedOutcome::Fixed { barriers: placed, cost });
        }
        if let Some(i) = report.inconclusive.first() {
            return ControlFlow::Break(NamedOutcome::Inconclusive(i.message.clone()));
        }
        if let (Some(needed), false) = (shared, report.sync_defects.is_empty()) {
            let why = NamedUnfixable::NotEnoughIds {
                needed,
                available: self.avail.len(),
            };
            return ControlFlow::Break(NamedOutcome::Unfixable(vec![why]));
        }
        if !report.sync_defects.is_empty() || !report.divergences.is_empty() {
            let clause = self.defect_clause(chosen, &report);
            self.st.forbidden.push(clause);
            return ControlFlow::Continue(());
        }
        if !self.learn(&report.races)? {
            self.st.forbidden.push(chosen);
        }
        ControlFlow::Continue(())
    }

    /// A verified placement without the barriers it does not need, when some race involves an
    /// asynchronous copy. The checker cannot say in which order a copy and an access race (a
    /// copy's accesses happen after its issue, at no statement), so the race's requirement asks
    /// for both orders and the placement may order one the copy's wait already orders. Each
    /// barrier, costliest first, is dropped when the kernel still checks clean without it.
    fn prune(&self, placed: Vec<NamedPlaced>, stats: &mut SynthStats) -> Vec<NamedPlaced> {
        if placed.len() < 2 || !self.copy_races {
            return placed;
        }
        let mut order: Vec<usize> = (0..placed.len()).collect();
        order.sort_by(|&a, &b| placed[b].cost.total_cmp(&placed[a].cost));
        let mut keep = vec![true; placed.len()];
        for i in order {
            keep[i] = false;
            let rest: Vec<NamedPlaced> = placed
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(p, _)| p.clone())
                .collect();
            let clean = apply(self.cx.k, &rest).is_some_and(|c| {
                stats.oracle_calls += 1;
                self.opts
                    .unsuppressed(self.cx.k, named::check(&c, self.nopts))
                    .is_clean()
            });
            keep[i] = !clean;
        }
        placed
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(p, _)| p)
            .collect()
    }

    /// What a candidate with synchronization defects rules out: the whole assignment, or, when
    /// every defect is a deadlock, only its inserted barriers (see [`deadlock_persists`]), so
    /// adding unrelated channels to a deadlocking one is not tried again (a kernel whose races
    /// have several cheap deadlocking options otherwise needs a round per combination of them).
    fn defect_clause(&self, chosen: Vec<(Decision, bool)>, report: &Report) -> Vec<(Decision, bool)> {
        if deadlock_persists(report) {
            chosen.into_iter().filter(|(_, on)| *on).collect()
        } else {
            chosen
        }
    }

    /// Every race's options under the current state; `Break` when a race has none.
    fn needs(&self) -> ControlFlow<NamedOutcome, BTreeMap<RaceKey, Vec<Need>>> {
        let (rk, e) = match self.st.needs(self.cx) {
            Ok(n) => return ControlFlow::Continue(n),
            Err(x) => x,
        };
        let r = self
            .races
            .iter()
            .find(|r| key(r) == rk)
            .or_else(|| self.st.regions.get(&rk))
            .cloned();
        let why = match r {
            Some(r) => NamedUnfixable::NoOption(Box::new(r), e),
            None => NamedUnfixable::NoPlacement,
        };
        ControlFlow::Break(NamedOutcome::Unfixable(vec![why]))
    }

    /// The chosen decisions as statements, with distinct IDs first; when they run out, barriers
    /// share IDs in text order and the checker decides whether the shared ones are never in
    /// flight at once (then also how many IDs a distinct assignment needs).
    fn with_ids(
        &self,
        chosen: &[(Decision, bool)],
        needs: &BTreeMap<RaceKey, Vec<Need>>,
    ) -> ControlFlow<NamedOutcome, (Vec<NamedPlaced>, Option<usize>)> {
        let unfixable = |u| ControlFlow::Break(NamedOutcome::Unfixable(vec![u]));
        match self.realize(chosen, needs, false) {
            Ok((p, _)) => ControlFlow::Continue((p, None)),
            Err(NamedUnfixable::NotEnoughIds { .. }) if !self.avail.is_empty() => {
                match self.realize(chosen, needs, true) {
                    Ok((p, n)) => ControlFlow::Continue((p, Some(n))),
                    Err(u) => unfixable(u),
                }
            }
            Err(u) => unfixable(u),
        }
    }

    /// Learns from a candidate's races: a cross-role race in role loops needs distance 1, an
    /// in-region race its narrow options, a new race becomes a requirement. `Continue(false)`
    /// when nothing changed.
    fn learn(&mut self, races: &[Race]) -> ControlFlow<NamedOutcome, bool> {
        let mut progress = false;
        for r in races {
            let rk = key(r);
            if r.assumed {
                return ControlFlow::Break(NamedOutcome::Inconclusive(
                    "the solver could not decide a race of a candidate placement".into(),
                ));
            }
            if let Some(c) = self.st.crosses.get(&rk) {
                let d = self.st.backward.get(&rk).copied();
                if c.loops.is_some() && d != Some(1) {
                    self.st.backward.insert(rk, 1);
                    progress = true;
                }
            } else if self.st.regions.contains_key(&rk) {
                let tree = &self.cx.tree;
                let common = tree.get(r.first.label).loops().min(tree.get(r.second.label).loops()) as u32;
                for d in 1..=common {
                    progress |= self.st.narrow.insert((rk, d));
                }
            } else {
                match self.st.add(self.cx, r) {
                    Ok(()) => progress = true,
                    Err(e) => return ControlFlow::Break(NamedOutcome::Unfixable(vec![e])),
                }
            }
        }
        ControlFlow::Continue(progress)
    }
}

/// Whether a candidate's defects stay in every candidate that inserts more: true when all of
/// them are deadlocks. Inserted barriers take IDs the kernel does not use (and no two share
/// one: a candidate that shares IDs ends the search before this is asked), so inserting a
/// barrier only adds a place to wait: its generations either complete, and the warps go on as
/// before, or block them earlier, so no warp gets further than in the deadlocking candidate;
/// turning an arrive into a sync only adds a wait too. (The kernel's own barriers were checked
/// defect-free before placement, so which arrivals make up their generations does not depend
/// on how the inserted waits shift the schedule.) A kernel that computes IDs at run time
/// may use one of the "free" IDs itself; then a superset that gives the deadlocking channel
/// another ID might not deadlock, and ruling it out only costs that fix (never soundness: every
/// placement is still checked), the same assumption [`available_ids`] makes.
fn deadlock_persists(report: &Report) -> bool {
    !report.sync_defects.is_empty()
        && report.divergences.is_empty()
        && report
            .sync_defects
            .iter()
            .all(|d| matches!(d.kind, SyncDefectKind::Deadlock { .. }))
}

/// Repairs a producer that reuses one of the kernel's own barriers every iteration without
/// back-pressure (reported as unsafe recycling, or as a deadlock of the schedule it allows) by
/// insertion: for each such ID X whose producer registration (it registers for generation k+1
/// before generation k completed) and consumer registration are in role loops, a back-pressure
/// channel on a new ID Y of the same thread count: `bar.arrive Y` at the end of the consumer's
/// iteration (after everything it does with the data) and `bar.sync Y` in the producer's
/// iteration after its registration on X, so the producer's next iteration starts only after
/// the consumer's iteration ended. The author's barriers stay as they are. Returns the
/// insertions when the named checker verifies the repaired kernel clean.
fn back_pressure(
    k: &Kernel,
    opts: &SynthOptions,
    initial: &Report,
    nopts: &NamedOptions,
    stats: &mut SynthStats,
) -> Option<Vec<NamedPlaced>> {
    if !initial.divergences.is_empty() || !initial.inconclusive.is_empty() {
        return None;
    }
    // The registrations (statements) of every constant named-barrier ID.
    let mut on_id: BTreeMap<u32, Vec<Label>> = BTreeMap::new();
    for_each_stmt(&k.body, &mut |s| {
        if let StmtKind::Barrier(Barrier::NamedSync { id, .. } | Barrier::NamedArrive { id, .. }, _) = &s.kind {
            if let Some(v) = id.as_const().and_then(|v| u32::try_from(v).ok()) {
                on_id.entry(v).or_default().push(s.label);
            }
        }
    });
    let id_of = |l: &Label| on_id.iter().find(|(_, ls)| ls.contains(l)).map(|(id, _)| *id);
    let mut recycled: BTreeSet<u32> = BTreeSet::new();
    for d in &initial.sync_defects {
        match &d.kind {
            SyncDefectKind::UnsafeRecycling { id } => {
                recycled.insert(*id);
            }
            SyncDefectKind::Deadlock { .. } => recycled.extend(d.labels.iter().filter_map(&id_of)),
            _ => return None,
        }
    }
    let tree = LabelTree::new(k);
    let used = used_ids(k);
    let mut free = opts
        .named
        .allowed_ids
        .iter()
        .copied()
        .filter(|i| *i != 0 && *i <= 15 && !used.contains(i));
    let total = k.launch.threads_per_block()?.div_ceil(WARP as u64) as u32;
    let end_of_iteration = |l: Label| -> Option<Position> {
        let (body, _) = loop_parts(k, *tree.get(l).loop_owners().last()?)?;
        let last = body.stmts.last()?;
        last.emit_after.then_some(Position::After(last.label))
    };
    // Per recycled ID: the (consumer arrive, producer sync) positions to try, for every
    // ordered pair of its registrations in different loops. The producer's sync goes right
    // after its registration, or at the end of its iteration.
    let mut plans = Vec::new();
    for id in &recycled {
        let regs = on_id.get(id)?;
        let innermost = |l: &Label| tree.get(*l).loop_owners().last().copied();
        let mut options = Vec::new();
        for completer in regs {
            for early in regs {
                if innermost(completer).is_none() || innermost(completer) == innermost(early) {
                    continue;
                }
                let Some(consumer) = end_of_iteration(*completer) else {
                    continue;
                };
                let mut producer = vec![Position::After(*early)];
                producer.extend(end_of_iteration(*early).filter(|p| *p != Position::After(*early)));
                options.extend(producer.into_iter().map(|p| (consumer, p)));
            }
        }
        if options.is_empty() {
            return None;
        }
        plans.push((free.next()?, barrier_count(k, regs[0])?, options));
    }
    let choices = plans.iter().map(|p| p.2.len()).max().unwrap_or(0);
    for choice in 0..choices {
        let mut placed = Vec::new();
        for (id, count, options) in &plans {
            let (consumer, producer) = options[choice.min(options.len() - 1)];
            let f = sync_factor(count.div_ceil(WARP), total, &opts.named);
            let at = |pos: Position, kind: NamedKind, factor: f64| NamedPlaced {
                pos,
                kind,
                cost: base_cost(&tree, pos, opts) * f * factor,
                covers: vec![],
                channel: true,
                guard: None,
                rotation: None,
            };
            let (id, count) = (*id, *count);
            placed.push(at(consumer, NamedKind::Arrive { id, count }, opts.named.arrive_factor));
            placed.push(at(producer, NamedKind::Sync { id, count }, 1.0));
        }
        placed.sort_by_key(|p| (tree.get(p.pos.label()).post, p.pos, p.kind.rank()));
        let candidate = apply(k, &placed)?;
        stats.oracle_calls += 1;
        if named::check(&candidate, nopts).is_clean() {
            return Some(placed);
        }
    }
    None
}

/// The constant thread count of the named barrier statement `l`.
fn barrier_count(k: &Kernel, l: Label) -> Option<u32> {
    let mut found = None;
    for_each_stmt(&k.body, &mut |s| {
        if s.label == l {
            if let StmtKind::Barrier(
                Barrier::NamedArrive { count, .. } | Barrier::NamedSync { count: Some(count), .. },
                _,
            ) = &s.kind
            {
                found = count.as_const().and_then(|c| u32::try_from(c).ok());
            }
        }
    });
    found
}

/// "needs a concrete value for iters (use --param iters=V)", naming the parameters the bounds
/// of the loops around race `r` read.
fn unknown_trips_message(k: &Kernel, tree: &LabelTree, r: &Race) -> String {
    let mut params = BTreeSet::new();
    for l in [r.first.label, r.second.label] {
        for lp in tree.get(l).loop_owners() {
            for_each_stmt(&k.body, &mut |s| {
                if let (true, StmtKind::Loop(Loop { cond, .. })) = (s.label == lp, &s.kind) {
                    collect_params(k, cond, &mut params);
                }
            });
        }
    }
    let names: Vec<String> = params.into_iter().collect();
    if names.is_empty() {
        return "named-barrier synthesis needs concrete trip counts for the role loops around the race".into();
    }
    let flags: Vec<String> = names.iter().map(|n| format!("--param {n}=V")).collect();
    format!(
        "named-barrier synthesis needs a concrete value for {} (use {})",
        names.join(", "),
        flags.join(" ")
    )
}

fn collect_params(k: &Kernel, e: &Expr, out: &mut BTreeSet<String>) {
    e.for_each_var(&mut |v| {
        if k.var(v).kind == autosync_oracle::ir::VarKind::Param {
            out.insert(k.var(v).name.clone());
        }
    });
}

/// The body block and induction variable of loop statement `l`.
fn loop_parts(k: &Kernel, l: Label) -> Option<(&Block, Option<VarId>)> {
    let mut found = None;
    for_each_stmt(&k.body, &mut |s| {
        if s.label == l {
            if let StmtKind::Loop(Loop { body, var, .. }) = &s.kind {
                found = Some((body, *var));
            }
        }
    });
    found
}

/// Decides, per aligned role-loop pair, whether the else side's iteration k must precede the
/// then side's iteration k + 1 (distance 1), only k + 2 (distance 2), or nothing flows back.
///
/// Probe 1 orders every then-side iteration before the same else-side iteration and nothing
/// backward: an arrive at the end of the then body and a sync at the start of the else body, on
/// a different ID per iteration (`base + i` for induction variable i, so no generation is
/// recycled). Races left flow backward. Probe 2 makes both ends syncs on one ID, which also
/// orders else iteration k before then iteration k + 2: races left need distance 1. A probe that
/// cannot be built or checked leaves the conservative distance 1.
fn probe_back_flow(cx: &Ctx, st: &mut State, avail: &[u32], nopts: &NamedOptions, stats: &mut SynthStats) {
    for ((lx, ly), keys) in needs::loop_pairs(&st.crosses) {
        let conservative = |st: &mut State| {
            for k in &keys {
                st.backward.insert(*k, 1);
            }
        };
        let (Some((bx, vx)), Some((by, vy)), Some(&first_id)) =
            (loop_parts(cx.k, lx), loop_parts(cx.k, ly), avail.first())
        else {
            conservative(st);
            continue;
        };
        let (Some(wx), Some(wy)) = (cx.roles.warps_of(bx.label), cx.roles.warps_of(by.label)) else {
            conservative(st);
            continue;
        };
        let n = WARP * (wx.len() + wy.len()) as u32;
        let end_x = bx
            .stmts
            .last()
            .map_or(Position::BlockStart(bx.label), |s| Position::After(s.label));
        let start_y = Position::BlockStart(by.label);
        let trips = wx.first().and_then(|&w| cx.roles.trips(lx, w)).unwrap_or(u64::MAX);
        let run = |inserts: &[(Position, Barrier)], stats: &mut SynthStats| -> Option<BTreeSet<RaceKey>> {
            let (probe, _) = insert_barriers(cx.k, inserts).ok()?;
            stats.oracle_calls += 1;
            let r = named::check(&probe, nopts);
            if !r.sync_defects.is_empty() || !r.inconclusive.is_empty() || !r.divergences.is_empty() {
                return None;
            }
            Some(r.races.iter().map(key).collect())
        };
        // Probe 1 needs `trips` consecutive free IDs.
        let base = avail
            .iter()
            .copied()
            .find(|&b| (0..trips.min(16) as u32).all(|i| avail.contains(&(b + i))));
        let left1 = match (vx, vy, base) {
            (Some(vx), Some(vy), Some(base)) if trips <= 15 => {
                let id = |v: VarId| {
                    Expr::Bin(
                        BinOp::Add,
                        ScalarTy::I32,
                        Box::new(Expr::int(base as i64)),
                        Box::new(Expr::Cast(ScalarTy::I32, Box::new(Expr::Var(v)))),
                    )
                };
                let count = Expr::int(n as i64);
                run(
                    &[
                        (
                            end_x,
                            Barrier::NamedArrive {
                                id: id(vx),
                                count: count.clone(),
                            },
                        ),
                        (
                            start_y,
                            Barrier::NamedSync {
                                id: id(vy),
                                count: Some(count),
                            },
                        ),
                    ],
                    stats,
                )
            }
            _ => None,
        };
        let sync = NamedKind::Sync { id: first_id, count: n }.barrier();
        let left2 = run(&[(end_x, sync.clone()), (start_y, sync)], stats);
        for k in keys {
            match (&left1, &left2) {
                (Some(l1), _) if !l1.contains(&k) => {}
                (_, Some(l2)) if !l2.contains(&k) => {
                    st.backward.insert(k, 2);
                }
                _ => {
                    st.backward.insert(k, 1);
                }
            }
        }
    }
}

/// Builds and solves the MaxSAT instance; returns the value of every decision.
fn solve(
    cx: &Ctx,
    opts: &SynthOptions,
    needs: &BTreeMap<RaceKey, Vec<Need>>,
    forbidden: &[Vec<(Decision, bool)>],
) -> Result<Option<Vec<(Decision, bool)>>, String> {
    let mut p = MaxSatProblem::new();
    let mut vars: BTreeMap<Decision, Var> = BTreeMap::new();
    let mut var = |p: &mut MaxSatProblem, d: Decision| *vars.entry(d).or_insert_with(|| p.new_var());
    let mut hard: Vec<Vec<Lit>> = Vec::new();
    for ns in needs.values() {
        for n in ns {
            let lits: Vec<Lit> = match n {
                Need::Sync(v) => v.iter().map(|&i| var(&mut p, Decision::Sub(i)).pos_lit()).collect(),
                Need::Chan(v) => v
                    .iter()
                    .map(|&(c, s)| {
                        var(&mut p, Decision::Chan(c));
                        var(&mut p, Decision::ChanSync(c, Side::First));
                        var(&mut p, Decision::ChanSync(c, Side::Second));
                        var(&mut p, Decision::ChanSync(c, s)).pos_lit()
                    })
                    .collect(),
            };
            hard.push(lits);
        }
    }
    for f in forbidden {
        let lits: Vec<Lit> = f
            .iter()
            .map(|&(d, val)| {
                let v = var(&mut p, d);
                if val {
                    v.neg_lit()
                } else {
                    v.pos_lit()
                }
            })
            .collect();
        hard.push(lits);
    }
    // Costs in integer units: the cheapest option weighs at least 1000.
    let mut costs: Vec<(Var, f64)> = Vec::new();
    let decisions: Vec<(Decision, Var)> = vars.iter().map(|(d, v)| (*d, *v)).collect();
    for &(d, v) in &decisions {
        match d {
            Decision::Sub(i) => costs.push((v, sub_cost(cx, opts, i).0)),
            Decision::Chan(c) => {
                let (a, b) = chan_costs(cx, opts, c);
                costs.push((v, opts.named.arrive_factor * (a + b)));
            }
            Decision::ChanSync(c, s) => {
                let (a, b) = chan_costs(cx, opts, c);
                let full = if s == Side::First { a } else { b };
                costs.push((v, (1.0 - opts.named.arrive_factor) * full));
                // A synchronizing end implies the channel.
                let e = vars[&Decision::Chan(c)];
                hard.push(vec![v.neg_lit(), e.pos_lit()]);
            }
        }
    }
    for h in &hard {
        p.add_hard(h);
    }
    let min = costs
        .iter()
        .map(|c| c.1)
        .filter(|c| *c > 0.0)
        .fold(f64::INFINITY, f64::min);
    let scale = if min.is_finite() { 1000.0 / min.min(1.0) } else { 1.0 };
    for (v, c) in &costs {
        if *c > 0.0 {
            p.add_soft(v.neg_lit(), (c * scale).round().max(1.0) as u64);
        }
    }
    if let Some(dir) = &opts.dump_wcnf {
        let _ = std::fs::create_dir_all(dir);
        if let Ok(mut f) = std::fs::File::create(dir.join(format!("{}-named.wcnf", cx.k.name))) {
            let _ = p.write_wcnf(&mut f);
        }
    }
    match opts.algorithm.solver().solve(&p) {
        Ok(MaxSatResult::Optimal { model, .. }) => Ok(Some(
            decisions
                .iter()
                .map(|(d, v)| (*d, lit_value(&model, v.pos_lit())))
                .collect(),
        )),
        Ok(MaxSatResult::Unsat) => Ok(None),
        Err(MaxSatError::WeightOverflow) => Err("cost weights overflow; lower --cost-loop".into()),
        Err(e) => Err(format!("MaxSAT solver failed: {e}")),
    }
}

/// Cost and kind of a sync at space position `i`: `__syncthreads` where the whole block runs
/// it at a block-uniform position, else a sub-block `bar.sync` over its warps.
fn sub_cost(cx: &Ctx, opts: &SynthOptions, i: usize) -> (f64, Option<Vec<u32>>) {
    let (pos, base) = cx.space.positions[i];
    let warps = cx.roles.warps_at(pos).unwrap_or_default();
    let all = warps.len() as u32 == cx.roles.nwarps;
    if all && cx.unif.position_level(pos) == Level::Block {
        (base, None)
    } else {
        (
            base * sync_factor(warps.len() as u32, cx.roles.nwarps, &opts.named),
            Some(warps),
        )
    }
}

fn chan_warps(cx: &Ctx, c: ChanKey) -> Vec<u32> {
    let mut w = cx.roles.warps_at(c.0).unwrap_or_default();
    w.extend(cx.roles.warps_at(c.1).unwrap_or_default());
    w.sort_unstable();
    w.dedup();
    w
}

/// Cost of a sync at each end of a channel (a shifted channel's ends sit under a guard).
fn chan_costs(cx: &Ctx, opts: &SynthOptions, c: ChanKey) -> (f64, f64) {
    let mut f = sync_factor(chan_warps(cx, c).len() as u32, cx.roles.nwarps, &opts.named);
    if c.2 > 0 {
        f *= opts.cost_if;
    }
    (base_cost(&cx.tree, c.0, opts) * f, base_cost(&cx.tree, c.1, opts) * f)
}

/// The innermost loop around position `p`.
fn role_loop(cx: &Ctx, p: Position) -> Option<Label> {
    cx.tree.get(p.label()).loop_owners().last().copied()
}

/// The guards of a shifted channel's ends: the then-side end skips the first `c.2`
/// iterations of its role loop, the else-side end the last `c.2`.
fn chan_guards(cx: &Ctx, c: ChanKey) -> Option<(guard::Guard, guard::Guard)> {
    let gx = guard::counter(cx.k, role_loop(cx, c.0)?)?.from_iteration(cx.k, c.2)?;
    let gy = guard::counter(cx.k, role_loop(cx, c.1)?)?.before_last(cx.k, c.2)?;
    Some((gx, gy))
}

impl Refinement<'_> {
    /// Turns the chosen decisions into statements with IDs (distinct, or cycling through the
    /// available ones when `share_ids`); also returns how many IDs a distinct assignment needs.
    fn realize(
        &self,
        chosen: &[(Decision, bool)],
        needs: &BTreeMap<RaceKey, Vec<Need>>,
        share_ids: bool,
    ) -> Result<(Vec<NamedPlaced>, usize), NamedUnfixable> {
        let on: BTreeSet<Decision> = chosen.iter().filter(|x| x.1).map(|x| x.0).collect();
        let choice = Choice {
            cx: self.cx,
            opts: self.opts,
            cycle: cycle_widths(self.cx, &on),
            on,
            needs,
            races: self.races,
        };
        let (mut out, items) = choice.block_syncs_and_id_items();
        let needed: usize = items.iter().map(|(_, d)| choice.width(d) as usize).sum();
        let avail = self.avail;
        if avail.is_empty() && !items.is_empty() || needed > avail.len() && !share_ids {
            return Err(NamedUnfixable::NotEnoughIds {
                needed,
                available: avail.len(),
            });
        }
        let mut ids = Ids {
            avail,
            free: avail.to_vec(),
            share_ids,
            needed,
        };
        for (n, (_, d)) in items.iter().enumerate() {
            let w = choice.width(d);
            let id = ids.take(n, w)?;
            match *d {
                Decision::Sub(i) => out.push(choice.sub_sync(i, id)),
                Decision::Chan(c) => out.extend(choice.channel(c, id, w)?),
                Decision::ChanSync(..) => {}
            }
        }
        // Text order; at one position arrives first (they never block), then syncs.
        out.sort_by_key(|p| (self.cx.tree.get(p.pos.label()).post, p.pos, p.kind.rank()));
        Ok((out, items.len()))
    }
}

/// Per pair of role loops: how many IDs its channels cycle through. A channel in role loops
/// where some chosen channel is shifted by e >= 2 cycles through e IDs: a warp may then run e
/// iterations ahead, so e generations can be in flight at once.
fn cycle_widths(cx: &Ctx, on: &BTreeSet<Decision>) -> BTreeMap<(Option<Label>, Option<Label>), u32> {
    let mut cycle = BTreeMap::new();
    for d in on {
        if let Decision::Chan(c) = *d {
            if c.2 >= 2 {
                let e = cycle.entry((role_loop(cx, c.0), role_loop(cx, c.1))).or_insert(1);
                *e = (*e).max(c.2);
            }
        }
    }
    cycle
}

/// One choice of decisions on its way to statements: what each statement reads.
struct Choice<'a> {
    cx: &'a Ctx<'a>,
    opts: &'a SynthOptions,
    /// The decisions set.
    on: BTreeSet<Decision>,
    /// What each race needs (which races a statement covers).
    needs: &'a BTreeMap<RaceKey, Vec<Need>>,
    /// The input's races.
    races: &'a [Race],
    /// IDs cycled through per pair of role loops (see [`cycle_widths`]).
    cycle: BTreeMap<(Option<Label>, Option<Label>), u32>,
}

impl Choice<'_> {
    /// Indices of the input's races with a need `pred` accepts.
    fn covers(&self, pred: &dyn Fn(&Need) -> bool) -> Vec<usize> {
        self.races
            .iter()
            .enumerate()
            .filter(|(_, r)| self.needs.get(&key(r)).is_some_and(|ns| ns.iter().any(pred)))
            .map(|(i, _)| i)
            .collect()
    }

    /// How many IDs decision `d` cycles through (1 unless a channel of shifted role loops).
    fn width(&self, d: &Decision) -> u32 {
        match *d {
            Decision::Chan(c) => self
                .cycle
                .get(&(role_loop(self.cx, c.0), role_loop(self.cx, c.1)))
                .copied()
                .unwrap_or(1),
            _ => 1,
        }
    }

    /// The `__syncthreads` of syncs the whole block runs (they take no ID), and the decisions
    /// that take IDs, in text order of their first position.
    fn block_syncs_and_id_items(&self) -> (Vec<NamedPlaced>, Vec<(u32, Decision)>) {
        let mut items: Vec<(u32, Decision)> = Vec::new();
        let mut out = Vec::new();
        for d in &self.on {
            match *d {
                Decision::Sub(i) => {
                    let (cost, warps) = sub_cost(self.cx, self.opts, i);
                    let pos = self.cx.space.positions[i].0;
                    if warps.is_none() {
                        out.push(NamedPlaced {
                            pos,
                            kind: NamedKind::SyncThreads,
                            cost,
                            covers: self.covers(&|n| matches!(n, Need::Sync(v) if v.contains(&i))),
                            channel: false,
                            guard: None,
                            rotation: None,
                        });
                    } else {
                        items.push((self.cx.tree.get(pos.label()).post, *d));
                    }
                }
                Decision::Chan(c) => items.push((self.cx.tree.get(c.0.label()).post, *d)),
                Decision::ChanSync(..) => {}
            }
        }
        items.sort();
        (out, items)
    }

    /// The sub-block `bar.sync` at space position `i` on `id`.
    fn sub_sync(&self, i: usize, id: u32) -> NamedPlaced {
        let (cost, warps) = sub_cost(self.cx, self.opts, i);
        let count = WARP * warps.map_or(self.cx.roles.nwarps, |w| w.len() as u32);
        NamedPlaced {
            pos: self.cx.space.positions[i].0,
            kind: NamedKind::Sync { id, count },
            cost,
            covers: self.covers(&|n| matches!(n, Need::Sync(v) if v.contains(&i))),
            channel: false,
            guard: None,
            rotation: None,
        }
    }

    /// The two ends of channel `c` on `id` (the first of `w` it cycles through): each a sync
    /// where the choice says so, else an arrive; a shifted channel's ends under their guards.
    fn channel(&self, c: ChanKey, id: u32, w: u32) -> Result<Vec<NamedPlaced>, NamedUnfixable> {
        let (cx, opts) = (self.cx, self.opts);
        let count = WARP * chan_warps(cx, c).len() as u32;
        let (ca, cb) = chan_costs(cx, opts, c);
        let cov = self.covers(&|n| matches!(n, Need::Chan(v) if v.iter().any(|x| x.0 == c)));
        let (gx, gy) = if c.2 > 0 {
            let (gx, gy) = chan_guards(cx, c).ok_or(NamedUnfixable::NoPlacement)?;
            (Some(gx), Some(gy))
        } else {
            (None, None)
        };
        let rotate = |p: Position| -> Result<Option<guard::Rotation>, NamedUnfixable> {
            if w == 1 {
                return Ok(None);
            }
            role_loop(cx, p)
                .and_then(|l| guard::counter(cx.k, l))
                .and_then(|c| c.rotation(cx.k, w))
                .map(Some)
                .ok_or(NamedUnfixable::NoPlacement)
        };
        let (rx, ry) = (rotate(c.0)?, rotate(c.1)?);
        let mut out = Vec::new();
        for (side, pos, full, guard, rotation) in [(Side::First, c.0, ca, gx, rx), (Side::Second, c.1, cb, gy, ry)] {
            let sync = self.on.contains(&Decision::ChanSync(c, side));
            let (kind, cost) = if sync {
                (NamedKind::Sync { id, count }, full)
            } else {
                (NamedKind::Arrive { id, count }, full * opts.named.arrive_factor)
            };
            out.push(NamedPlaced {
                pos,
                kind,
                cost,
                covers: cov.clone(),
                channel: true,
                guard,
                rotation,
            });
        }
        Ok(out)
    }
}

/// The IDs a choice's statements take, in text order.
struct Ids<'a> {
    /// The IDs new barriers may take.
    avail: &'a [u32],
    /// Those not taken yet.
    free: Vec<u32>,
    /// Cycle through `avail` instead of taking distinct IDs.
    share_ids: bool,
    /// How many IDs a distinct assignment needs (for the error).
    needed: usize,
}

impl Ids<'_> {
    /// The ID of the `n`th item: the first of `w` consecutive free IDs for an item cycling
    /// through `w` (its ID is `base + counter % w`), else the next free one, or the next
    /// available one in turn when IDs are shared.
    fn take(&mut self, n: usize, w: u32) -> Result<u32, NamedUnfixable> {
        if w > 1 {
            let base = self
                .free
                .iter()
                .copied()
                .find(|&b| (b..b + w).all(|i| self.free.contains(&i)))
                .ok_or(NamedUnfixable::NotEnoughIds {
                    needed: self.needed,
                    available: self.avail.len(),
                })?;
            self.free.retain(|i| !(base..base + w).contains(i));
            Ok(base)
        } else if self.share_ids {
            Ok(self.avail[n % self.avail.len().max(1)])
        } else {
            Ok(self.free.remove(0))
        }
    }
}

/// The kernel with the statements inserted in the order emission writes them.
pub fn apply(k: &Kernel, placed: &[NamedPlaced]) -> Option<Kernel> {
    // `insert_guarded_barriers` puts each `After` insertion right after its statement, so a
    // group at one such position is inserted in reverse to keep the written order.
    type Item = (Barrier, Option<Expr>);
    let mut groups: Vec<(Position, Vec<Item>)> = Vec::new();
    for p in placed {
        let item = (p.barrier(), p.guard.as_ref().map(|g| g.cond.clone()));
        match groups.last_mut() {
            Some((pos, v)) if *pos == p.pos => v.push(item),
            _ => groups.push((p.pos, vec![item])),
        }
    }
    let mut inserts = Vec::new();
    for (pos, mut v) in groups {
        if matches!(pos, Position::After(_)) {
            v.reverse();
        }
        inserts.extend(v.into_iter().map(|(b, g)| (pos, b, g)));
    }
    insert_guarded_barriers(k, &inserts).ok().map(|x| x.0)
}
