//! The candidate insertions for each gap of the protocol: every emittable position of the role
//! loop (not in a loop nested in it, and after the declarations the statement names), the
//! statement written in the file's style, and its cost under the named-barrier cost model (a
//! wait costs like a `bar.sync` of the warps running it, an arrive like a `bar.arrive`).

use super::protocol::{Gap, GapKind, MbarUse};
use super::style::MbarStyle;
use super::text::{flip, Source};
use crate::synth::named::roles::Roles;
use crate::synth::named::{base_cost, sync_factor};
use crate::synth::space::SynthOptions;
use autosync_oracle::ir::{ArrayId, Label};
use autosync_oracle::tree::{candidate_positions, Position};

/// One way to close a gap.
#[derive(Clone, Debug)]
pub struct Candidate {
    /// The gap (index into the gaps).
    pub gap: usize,
    /// Where.
    pub pos: Position,
    /// The statement.
    pub text: String,
    /// What it does, in words (`arrive on empty[s]`).
    pub what: String,
    /// Its cost.
    pub cost: f64,
    /// Preference among equal costs (0 first): an arrive as late as possible in its loop (the
    /// stage is released after its last use), a wait as early as possible, with the parity a
    /// wait of that kind of barrier takes (a fill's, or a free stage's flipped one) first.
    pub rank: usize,
}

/// What candidate generation reads.
pub struct Env<'a> {
    /// The kernel's text.
    pub src: &'a Source<'a>,
    /// The kernel's mbarrier uses.
    pub uses: &'a [MbarUse],
    /// How statements are written.
    pub style: &'a MbarStyle,
    /// Which warps run where.
    pub roles: &'a Roles,
    /// Costs.
    pub opts: &'a SynthOptions,
}

/// The candidates of every gap.
pub fn candidates(env: &Env, gaps: &[Gap]) -> Vec<Candidate> {
    let fills = |a: ArrayId| gaps.iter().any(|g| g.array == a && g.fills) || filled(env.uses, a);
    let mut out = Vec::new();
    for (gi, g) in gaps.iter().enumerate() {
        let mut mine: Vec<(bool, Candidate)> = Vec::new();
        for &lp in &g.loops {
            for (text, what, preferred) in statements(env, g, lp, &fills) {
                for pos in positions(env, lp, &text) {
                    let cost = cost(env, g.kind, pos);
                    let c = Candidate {
                        gap: gi,
                        pos,
                        text: text.clone(),
                        what: what.clone(),
                        cost,
                        rank: 0,
                    };
                    mine.push((preferred, c));
                }
            }
        }
        let post = |c: &Candidate| env.src.tree.get(c.pos.label()).post as i64;
        match g.kind {
            GapKind::Arrive => mine.sort_by_key(|(_, c)| -post(c)),
            GapKind::Wait => mine.sort_by_key(|(p, c)| (!p, post(c))),
        }
        out.extend(
            mine.into_iter()
                .enumerate()
                .map(|(rank, (_, c))| Candidate { rank, ..c }),
        );
    }
    out
}

/// Whether some arrival on `a` fills a stage.
fn filled(uses: &[MbarUse], a: ArrayId) -> bool {
    uses.iter()
        .any(|u| u.array == a && u.what == super::protocol::Use::Arrival { fills: true })
}

/// The statements closing gap `g` in loop `lp`, with their words and whether they are the
/// preferred variant.
fn statements(env: &Env, g: &Gap, lp: Label, fills: &dyn Fn(ArrayId) -> bool) -> Vec<(String, String, bool)> {
    let Some(bar) = env.src.operand(env.uses, g.array, lp) else {
        return vec![];
    };
    let shown = bar.trim_start_matches('&');
    match g.kind {
        GapKind::Arrive => vec![(env.style.arrive(&bar), format!("arrive on {shown}"), true)],
        GapKind::Wait => {
            let Some(p) = env.src.parity(env.uses, fills, lp) else {
                return vec![];
            };
            [(p.clone(), g.fills), (flip(&p), !g.fills)]
                .into_iter()
                .map(|(par, pref)| {
                    (
                        env.style.wait(&bar, &par),
                        format!("wait on {shown} for parity {par}"),
                        pref,
                    )
                })
                .collect()
        }
    }
}

/// The emittable positions of loop `lp` (its own body and the branches in it) after the
/// declarations of the local variables `text` names.
fn positions(env: &Env, lp: Label, text: &str) -> Vec<Position> {
    let tree = env.src.tree;
    let bound = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .filter_map(|w| env.src.declaration(lp, w))
        .map(|l| tree.get(l).post)
        .max();
    candidate_positions(env.src.k)
        .into_iter()
        .filter(|p| tree.get(p.label()).loop_owners().last() == Some(&lp))
        .filter(|p| bound.is_none_or(|b| tree.get(p.label()).post >= b))
        .collect()
}

/// The cost of a wait (`bar.sync`-like) or an arrive (`bar.arrive`-like) at `pos`, run by the
/// warps of the innermost block around it whose warps are known.
fn cost(env: &Env, kind: GapKind, pos: Position) -> f64 {
    let tree = env.src.tree;
    let warps = tree
        .get(pos.label())
        .scopes
        .iter()
        .rev()
        .find_map(|s| env.roles.warps_of(s.block))
        .map_or(env.roles.nwarps, |w| w.len() as u32);
    let s = &env.opts.named;
    let f = sync_factor(warps, env.roles.nwarps, s);
    let f = match kind {
        GapKind::Wait => f,
        GapKind::Arrive => f * s.arrive_factor,
    };
    base_cost(tree, pos, env.opts) * f
}
