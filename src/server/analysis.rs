//! The background check of one version of a document, in stages, each reported as soon as it
//! is known: `check` (the diagnostics and the suppression actions), then synthesis (the barrier
//! insertions, each verified), then `--minimize` (the redundant barriers). A superseded job
//! stops between stages and reports nothing more. A save of unchanged text that finds what
//! the last finished analysis found keeps that analysis's code actions (see `job::Reuse`).

use super::barriers::barrier_offers;
use super::diagnostics::{findings, MainFile};
use super::events::Stage;
use super::job::Job;
use super::options::ServerOptions;
use super::removals::removal_offers;
use super::suppression::suppress_offer;
use super::verify::keys;
use crate::workflow::editor::{check_buffer, BufferRun};

/// Runs the stages of `job`, handing each to `report`.
pub fn run(job: &Job, o: &ServerOptions, report: &mut dyn FnMut(Stage)) {
    let res = match check_buffer(&job.path, &job.text, &o.check) {
        BufferRun::Done(r) => r,
        BufferRun::Excluded => {
            report(Stage::Checked(vec![], vec![]));
            report(Stage::Finished);
            return;
        }
    };
    let main = MainFile {
        path: &job.path,
        uri: &job.uri,
        text: &job.text,
    };
    let found = findings(&main, &res);
    let suppress = (0..found.len())
        .filter_map(|i| suppress_offer(&job.text, &found, i))
        .collect();
    report(Stage::Checked(found.clone(), suppress));
    let unchanged = job.reuse.as_deref().filter(|r| {
        r.diagnostics.len() == found.len() && r.diagnostics.iter().zip(&found).all(|(d, f)| *d == f.diagnostic)
    });
    if let Some(r) = unchanged {
        report(Stage::Offers(r.offers.clone()));
        report(Stage::Finished);
        return;
    }
    let baseline = keys(&res, Some).unwrap_or_default();
    let checked = res.error.is_none() && !res.kernels.is_empty();
    if checked && res.kernels.iter().any(|k| k.status == "defects") && !job.cancelled() {
        report(Stage::Step("synthesizing barriers".into()));
        report(Stage::Offers(barrier_offers(job, o, &found, &baseline)));
    }
    if checked && !job.cancelled() {
        report(Stage::Step("looking for redundant barriers".into()));
        report(Stage::Offers(removal_offers(job, o, &baseline)));
    }
    if !job.cancelled() {
        report(Stage::Finished);
    }
}
