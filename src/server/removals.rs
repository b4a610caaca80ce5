//! "Remove redundant barrier": the author's barriers `fix --minimize` removes, each offered
//! where removing it alone verifies (no finding appears that the text did not have).

use super::hunks::hunks;
use super::job::Job;
use super::offer::{Offer, OfferKind};
use super::options::ServerOptions;
use super::positions::Lines;
use super::verify::{verified_alone, Expect, Key};
use crate::workflow::editor::{fix_buffer, BufferRun};
use crate::workflow::FixRequest;

/// The removal offers of a job's text; `baseline` are the text's findings.
pub fn removal_offers(job: &Job, o: &ServerOptions, baseline: &[Key]) -> Vec<Offer> {
    let request = FixRequest {
        minimize: true,
        ..o.fix.clone()
    };
    let BufferRun::Done(fixed) = fix_buffer(&job.path, &job.text, &request) else {
        return vec![];
    };
    let mut removed: Vec<u32> = fixed
        .result
        .kernels
        .iter()
        .filter_map(|k| k.minimized.as_ref())
        .flat_map(|m| m.removed_lines.iter().copied())
        .collect();
    removed.sort_unstable();
    removed.dedup();
    if removed.is_empty() || fixed.text == job.text {
        return vec![];
    }
    let lines = Lines::new(&job.text);
    let mut offers = Vec::new();
    for h in hunks(&job.text, &fixed.text) {
        // Only deletions of removed barriers' lines: a hunk that also writes (a barrier moved
        // elsewhere) is not a removal.
        let gone: Vec<u32> = (h.old.start as u32 + 1..=h.old.end as u32).collect();
        if !h.new.is_empty() || gone.is_empty() || !gone.iter().all(|l| removed.contains(l)) || job.cancelled() {
            continue;
        }
        let Some(text) = verified_alone(job, &o.check, &h, baseline, Expect::NoNew) else {
            continue;
        };
        let title = match gone.as_slice() {
            [l] => format!("Remove redundant barrier (line {l})"),
            _ => format!(
                "Remove {} redundant barriers (lines {}-{})",
                gone.len(),
                gone[0],
                gone[gone.len() - 1]
            ),
        };
        offers.push(Offer {
            title,
            text,
            at: gone.iter().map(|&l| lines.line_range(l)).collect(),
            fixes: vec![],
            kind: OfferKind::Removal,
        });
    }
    offers
}
