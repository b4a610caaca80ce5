//! Races collected per (first label, second label, array, scope): relations merged, witnesses
//! kept, harmful and benign races apart.

use super::jobs::{Nature, Site};
use super::query::Outcome;
use crate::ir::*;
use crate::report::*;
use std::collections::HashMap;

/// Races collected per (first label, second label, array, scope).
#[derive(Default)]
pub(super) struct RaceSet {
    pub(super) races: Vec<Race>,
    pub(super) index: HashMap<(Label, Label, ArrayId, bool), usize>,
}

impl RaceSet {
    pub(super) fn record(
        &mut self,
        a: &Site,
        b: &Site,
        scope: RaceScope,
        rel: Option<IterRelation>,
        outcome: Outcome,
        nature: Nature,
    ) {
        let benign = nature == Nature::Benign;
        let overlap = match nature {
            Nature::Overlap(params) => params,
            _ => Vec::new(),
        };
        let (witness, assumed) = match outcome {
            Outcome::Unsat => return,
            Outcome::Sat(w) => (w, false),
            Outcome::Unknown => (Witness::default(), true),
        };
        let key = (a.label, b.label, a.access.array, scope == RaceScope::InterBlock);
        let idx = *self.index.entry(key).or_insert_with(|| {
            self.races.push(Race {
                array: a.access.array,
                first: RaceAccess {
                    label: a.label,
                    span: a.access.span,
                    kind: a.access.kind,
                },
                second: RaceAccess {
                    label: b.label,
                    span: b.access.span,
                    kind: b.access.kind,
                },
                kind: RaceKind::of(a.access.kind, b.access.kind),
                relations: Vec::new(),
                scope,
                witness: witness.clone(),
                assumed,
                benign,
                overlap: overlap.clone(),
                store_in_flight: false,
            });
            self.races.len() - 1
        });
        let r = &mut self.races[idx];
        let excused = |r: &Race| r.benign || !r.overlap.is_empty();
        if excused(r) && !benign && overlap.is_empty() {
            // One harmful relation makes the pair harmful; its witness shows a real conflict.
            r.benign = false;
            r.overlap.clear();
            r.witness = witness.clone();
        }
        if let Some(rel) = rel {
            if !r.relations.contains(&rel) {
                r.relations.push(rel);
            }
        }
        if r.assumed && !assumed {
            // A proven race replaces an assumed one's (empty) witness.
            r.assumed = false;
            r.witness = witness;
            r.first = RaceAccess {
                label: a.label,
                span: a.access.span,
                kind: a.access.kind,
            };
            r.second = RaceAccess {
                label: b.label,
                span: b.access.span,
                kind: b.access.kind,
            };
            r.kind = RaceKind::of(a.access.kind, b.access.kind);
        }
    }

    /// The harmful races, the benign ones and those only overlapping layouts make (with
    /// `strict`, every race is in the first list).
    pub(super) fn finish(mut self, strict: bool) -> (Vec<Race>, Vec<Race>, Vec<Race>) {
        for r in &mut self.races {
            r.relations.sort();
        }
        let (harmful, rest): (Vec<Race>, Vec<Race>) = self
            .races
            .into_iter()
            .partition(|r| strict || !r.benign && r.overlap.is_empty());
        let (benign, overlap) = rest.into_iter().partition(|r| r.benign);
        (harmful, benign, overlap)
    }
}
