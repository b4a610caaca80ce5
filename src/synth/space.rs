//! The placement space both syntheses share: candidate barrier positions with their costs and
//! the race clauses over them ([`Space`], [`clauses`]), the options of a synthesis run
//! ([`SynthOptions`]) and its counters ([`SynthStats`]).

use super::maxsat::Algorithm;
use super::named::settings::NamedSettings;
use autosync_oracle::ir::{Block, Kernel, Label, Loop, Stmt, StmtKind};
use autosync_oracle::report::{IterRelation, Race, Report};
use autosync_oracle::sdv::{self, Level};
use autosync_oracle::tree::{candidate_positions, leaves_early, LabelTree, Position, Scope, ScopeKind};
use std::collections::{BTreeSet, HashSet};
use std::path::PathBuf;
use std::time::Duration;

/// Cost model and search options.
#[derive(Clone, Debug)]
pub struct SynthOptions {
    /// Cost factor per enclosing loop (LC).
    pub cost_loop: f64,
    /// Cost factor per enclosing conditional (IC).
    pub cost_if: f64,
    /// Solver time limit per oracle query.
    pub timeout_ms: u32,
    /// Upper bound on refinement rounds (a safety net; each round removes a placement).
    pub max_rounds: u32,
    /// MaxSAT algorithm.
    pub algorithm: Algorithm,
    /// Write every MaxSAT instance as WCNF into this directory.
    pub dump_wcnf: Option<PathBuf>,
    /// Named-barrier synthesis settings (allowed IDs, style, kind factors).
    pub named: NamedSettings,
    /// Wall-clock budget for all oracle calls on one kernel; past it the kernel is inconclusive.
    pub kernel_timeout: Option<std::time::Duration>,
    /// Benign races (every thread stores the same value) are races to fix, not warnings.
    pub strict: bool,
    /// Findings the user suppressed: synthesis treats them as absent (no barrier for them).
    pub suppress: Option<std::sync::Arc<dyn crate::vocab::filter::Filter>>,
}

impl SynthOptions {
    /// Splits an oracle report into what synthesis must fix and what the user suppressed.
    pub fn split_suppressed(&self, k: &Kernel, r: Report) -> (Report, Report) {
        match &self.suppress {
            Some(s) => s.split(k, r),
            None => (r, Report::default()),
        }
    }

    /// An oracle report without the suppressed findings.
    pub fn unsuppressed(&self, k: &Kernel, r: Report) -> Report {
        self.split_suppressed(k, r).0
    }
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            cost_loop: 100.0,
            cost_if: 0.5,
            timeout_ms: 2000,
            max_rounds: 64,
            algorithm: Algorithm::Oll,
            dump_wcnf: None,
            named: Default::default(),
            kernel_timeout: None,
            strict: false,
            suppress: None,
        }
    }
}

/// Counters for `--stats`.
#[derive(Clone, Debug, Default)]
pub struct SynthStats {
    /// Oracle calls (including the initial check).
    pub oracle_calls: u32,
    /// MaxSAT solves.
    pub maxsat_calls: u32,
    /// Refinement rounds.
    pub rounds: u32,
    /// Time spent.
    pub time: Duration,
    /// Time of the first oracle call (block-wide synthesis: the check that plans).
    pub planning: Duration,
}

/// Facts about positions needed by the encoding (shared with named-barrier synthesis).
pub struct Space {
    pub tree: LabelTree,
    /// Candidate positions at or below the space's uniformity level, in text order, with cost.
    pub positions: Vec<(Position, f64)>,
    /// `post` order index and enclosing block labels per position.
    pos_post: Vec<u32>,
    pos_blocks: Vec<Vec<Label>>,
    /// Bodies of loops that run at least one iteration, start to end, whenever the loop runs:
    /// a position at their top level runs whenever the loop statement does.
    transparent: HashSet<Label>,
    /// Bodies of loops with a `continue` of their own: an iteration may skip the positions
    /// after it, so not every iteration passes the body's top level.
    continued: HashSet<Label>,
    /// The uniformity the positions were chosen by.
    pub unif: sdv::Uniformity,
}

impl Space {
    pub fn new(k: &Kernel, opts: &SynthOptions) -> Space {
        Space::build(k, opts, Level::Block)
    }

    /// The candidate positions whose uniformity is at least `max_level` (Block < Warp < Thread).
    pub fn build(k: &Kernel, opts: &SynthOptions, max_level: Level) -> Space {
        let unif = sdv::uniformity(k);
        let feasible = Space::feasibility(k, &unif);
        Space::build_with(k, opts, max_level, unif, &feasible)
    }

    /// What [`Space::build_with`] needs to know of `k`'s branches and loops (`unif`: as
    /// [`sdv::uniformity`] finds it): only those around candidate positions matter (whether a
    /// barrier there always runs), so only those are asked about.
    pub fn feasibility(k: &Kernel, unif: &sdv::Uniformity) -> sdv::Feasibility {
        let tree = LabelTree::new(k);
        let blocks: HashSet<Label> = candidate_positions(k)
            .into_iter()
            .flat_map(|p| tree.get(p.label()).scopes.iter().map(|s| s.block).collect::<Vec<_>>())
            .collect();
        sdv::feasibility_with(k, unif, Some(&blocks))
    }

    /// [`Space::build`] with the positions' uniformity and the kernel's feasibility given.
    pub fn build_with(
        k: &Kernel,
        opts: &SynthOptions,
        max_level: Level,
        unif: sdv::Uniformity,
        feasible: &sdv::Feasibility,
    ) -> Space {
        let tree = LabelTree::new(k);
        let mut positions = Vec::new();
        let mut pos_post = Vec::new();
        let mut pos_blocks = Vec::new();
        for p in candidate_positions(k) {
            if unif.position_level(p) > max_level {
                continue;
            }
            let info = tree.get(p.label());
            let cost = opts.cost_loop.powi(info.cost_loops() as i32) * opts.cost_if.powi(info.conds() as i32);
            positions.push((p, cost));
            pos_post.push(info.post);
            pos_blocks.push(info.scopes.iter().map(|s| s.block).collect());
        }
        let mut transparent = HashSet::new();
        let mut continued = HashSet::new();
        autosync_oracle::tree::for_each_stmt(&k.body, &mut |s: &Stmt| match &s.kind {
            StmtKind::Loop(Loop { body, .. }) => {
                if feasible.entered_loops.contains(&s.label) && !leaves_early(body, true, true) {
                    transparent.insert(body.label);
                }
                if continues(body) {
                    continued.insert(body.label);
                }
            }
            StmtKind::If { then_blk, else_blk, .. } => {
                let taken = match feasible.branches.get(&s.label) {
                    Some(true) => then_blk,
                    Some(false) => else_blk,
                    None => return,
                };
                if !leaves_early(taken, true, true) {
                    transparent.insert(taken.label);
                }
            }
            _ => {}
        });
        Space {
            tree,
            positions,
            pos_post,
            pos_blocks,
            transparent,
            continued,
            unif,
        }
    }

    fn blocks_of(&self, l: Label) -> Vec<Label> {
        self.tree.get(l).scopes.iter().map(|s| s.block).collect()
    }

    /// Positions in the label interval `[lo, hi)`: text order between the bounds, and every
    /// enclosing block shared with one of the bounds (so the barrier runs whenever both do).
    fn interval(&self, lo: Label, hi_post: u32, lo_blocks: &[Label], hi_blocks: &[Label]) -> Vec<usize> {
        let lo_post = self.tree.get(lo).post;
        (0..self.positions.len())
            .filter(|&i| {
                let p = self.pos_post[i];
                lo_post <= p
                    && p < hi_post
                    && self.pos_blocks[i]
                        .iter()
                        .all(|b| lo_blocks.contains(b) || hi_blocks.contains(b) || self.transparent.contains(b))
            })
            .collect()
    }

    /// The loop statement at depth `d` (1 = outermost) common to `a` and `b`, with its body block.
    fn common_loop(&self, a: Label, b: Label, d: u32) -> Option<(Label, Label)> {
        let s = self.loop_at(a, d)?;
        if self.loop_at(b, d) != Some(s) {
            return None;
        }
        Some((s.owner?, s.block))
    }

    /// The body scope of `l`'s enclosing loop at depth `d` (1 = outermost).
    fn loop_at(&self, l: Label, d: u32) -> Option<Scope> {
        self.tree
            .get(l)
            .scopes
            .iter()
            .filter(|s| s.kind == ScopeKind::LoopBody)
            .nth((d as usize).checked_sub(1)?)
            .copied()
    }

    /// Positions every iteration of `x`'s loop at depth `d` (1 = outermost) passes: its body at
    /// the top level.
    fn every_iteration(&self, x: Label, d: u32) -> Vec<usize> {
        let Some((owner, body)) = self.loop_at(x, d).and_then(|s| Some((s.owner?, s.block))) else {
            return vec![];
        };
        let body_blocks = self.blocks_of(body);
        self.interval(body, self.tree.get(owner).post, &body_blocks, &body_blocks)
    }

    /// Positions that every path into an iteration other than the first of `x`'s loop at depth
    /// `d` passes: its body at the top level, unless a `continue` can skip part of it.
    fn every_earlier_iteration(&self, x: Label, d: u32) -> Vec<usize> {
        match self.loop_at(x, d) {
            Some(s) if !self.continued.contains(&s.block) => self.every_iteration(x, d),
            _ => vec![],
        }
    }

    /// Options for a race across the back edge of loop depth `d`, from `x` (earlier iteration)
    /// to `y` (later iteration): after `x` to the end of the body, or from its start to `y`.
    fn across(&self, x: Label, y: Label, d: u32) -> Vec<usize> {
        let Some((loop_stmt, body)) = self.common_loop(x, y, d) else {
            return vec![];
        };
        let end_post = self.tree.get(loop_stmt).post;
        let xb = self.blocks_of(x);
        let yb = self.blocks_of(y);
        let mut v = self.interval(x, end_post, &xb, &xb);
        v.extend(self.interval(body, self.tree.get(y).post, &yb, &yb));
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// Whether a loop body has a `continue` of its own (not one of a nested loop).
fn continues(b: &Block) -> bool {
    b.stmts.iter().any(|s| match &s.kind {
        StmtKind::Continue => true,
        StmtKind::If { then_blk, else_blk, .. } => continues(then_blk) || continues(else_blk),
        _ => false,
    })
}

/// Identity of a race for refinement: (first, second, array) labels.
pub type RaceKey = (Label, Label, u32);

pub fn key(r: &Race) -> RaceKey {
    (r.first.label, r.second.label, r.array.0)
}

/// The `narrow` marker of a `NotLastIteration` race whose loop-body option did not verify.
pub const NOT_LAST_NARROWED: u32 = u32::MAX;

/// The `narrow` marker of a `NotFirstIteration` race whose loop-body option did not verify.
pub const NOT_FIRST_NARROWED: u32 = u32::MAX - 1;

/// The constraint options of one race at a refinement level: one clause per needed relation.
pub fn clauses(space: &Space, r: &Race, narrow: &BTreeSet<(RaceKey, u32)>) -> Vec<Vec<usize>> {
    let (a, b) = (r.first.label, r.second.label);
    let common_depth = space.tree.get(a).common_loops(space.tree.get(b)) as u32;
    let mut out = Vec::new();
    // `[a, b)`, with the positions of `extra` besides.
    let same_or = |extra: Option<Vec<usize>>| {
        let ab = space.blocks_of(a);
        let bb = space.blocks_of(b);
        let mut c = space.interval(a, space.tree.get(b).post, &ab, &bb);
        c.extend(extra.unwrap_or_default());
        c.sort_unstable();
        c.dedup();
        c
    };
    let same = |out: &mut Vec<Vec<usize>>| out.push(same_or(None));
    for rel in &r.relations {
        match *rel {
            IterRelation::SameIteration => same(&mut out),
            IterRelation::AcrossBackEdge(d) => {
                if narrow.contains(&(key(r), d)) {
                    out.push(space.across(b, a, d));
                } else {
                    out.push(space.across(a, b, d));
                }
            }
            IterRelation::AcrossBackEdgeReversed(d) => out.push(space.across(b, a, d)),
            IterRelation::NotLastIteration(d) => {
                let extra = (!narrow.contains(&(key(r), NOT_LAST_NARROWED))).then(|| space.every_iteration(a, d));
                out.push(same_or(extra));
            }
            IterRelation::NotFirstIteration(d) => {
                let extra =
                    (!narrow.contains(&(key(r), NOT_FIRST_NARROWED))).then(|| space.every_earlier_iteration(b, d));
                out.push(same_or(extra));
            }
            IterRelation::Unknown => {
                // Unclassified: demand what every relation would need.
                same(&mut out);
                for d in 1..=common_depth {
                    out.push(space.across(b, a, d));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// A slot seeded before a loop whose body is `BODY`.
    const SEEDED: &str = "//--blockDim=64 --gridDim=1
__global__ void seeded(const float *in, float *out, int n) {
  __shared__ float s[64];
  int t = threadIdx.x;
  s[t] = in[t];
  for (int i = 0; i < n; i++) {
    BODY
  }
  out[t] = s[t];
}
";

    /// The race of the seed (line 5) with the loop of `SEEDED` around `body`: its relations,
    /// and whether its options (narrowed or not) include the position right after the loop's
    /// access.
    fn seed_options(body: &str, narrowed: bool) -> (Vec<IterRelation>, bool) {
        let text = SEEDED.replace("BODY", body);
        let mut opts = crate::front::FrontOptions::default();
        opts.params.insert("n".into(), 4);
        let k = crate::front::lower_text(Path::new("seeded.cu"), &text, &opts)
            .unwrap()
            .kernels
            .remove(0);
        let report = sdv::check(&k, &Default::default());
        let race = report
            .races
            .iter()
            .find(|r| k.line(r.first.span) == 5)
            .expect("the seed races");
        let space = Space::new(&k, &SynthOptions::default());
        let narrow: BTreeSet<(RaceKey, u32)> = narrowed.then(|| (key(race), NOT_FIRST_NARROWED)).into_iter().collect();
        let options = clauses(&space, race, &narrow).concat();
        let after_access = options
            .iter()
            .any(|&i| space.positions[i].0 == Position::After(race.second.label));
        (race.relations.clone(), after_access)
    }

    #[test]
    fn a_race_into_later_iterations_may_be_cut_at_the_end_of_the_body() {
        // Iteration 0 touches the thread's own slot: the end of the body (after the access) is
        // an option, unless the race was narrowed.
        let own = "s[(t + i) % 64] += 1.0f;";
        let (rels, after) = seed_options(own, false);
        assert_eq!(rels, vec![IterRelation::NotFirstIteration(1)]);
        assert!(after);
        assert!(!seed_options(own, true).1);
        // A `continue` may skip the end of the body in every earlier iteration: no option there.
        assert!(!seed_options("if (i == 2) continue;\n    s[(t + i) % 64] += 1.0f;", false).1);
        // Iteration 0 touches a neighbour's slot: only positions between the two accesses.
        let (rels, after) = seed_options("s[(t + i + 1) % 64] += 1.0f;", false);
        assert_eq!(rels, vec![IterRelation::SameIteration]);
        assert!(!after);
    }
}
