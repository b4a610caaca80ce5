//! The back-flow probes of role loops: two checks decide whether anything flows back from
//! the consumer side to a later producer iteration, and at which distance (1 or at least 2).

use super::facts::loop_parts;
use super::needs::{self, Ctx};
use super::roles::WARP;
use super::settings::NamedKind;
use super::state::State;
use crate::synth::space::{key, RaceKey, SynthStats};
use autosync_oracle::ir::{Barrier, BinOp, Expr, ScalarTy, VarId};
use autosync_oracle::named::{self, NamedOptions};
use autosync_oracle::tree::{insert_barriers, Position};
use std::collections::BTreeSet;

/// Decides, per aligned role-loop pair, whether the else side's iteration k must precede the
/// then side's iteration k + 1 (distance 1), only k + 2 (distance 2), or nothing flows back.
///
/// Probe 1 orders every then-side iteration before the same else-side iteration and nothing
/// backward: an arrive at the end of the then body and a sync at the start of the else body, on
/// a different ID per iteration (`base + i` for induction variable i, so no generation is
/// recycled). Races left flow backward. Probe 2 makes both ends syncs on one ID, which also
/// orders else iteration k before then iteration k + 2: races left need distance 1. A probe that
/// cannot be built or checked leaves the conservative distance 1.
pub(super) fn probe_back_flow(cx: &Ctx, st: &mut State, avail: &[u32], nopts: &NamedOptions, stats: &mut SynthStats) {
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
