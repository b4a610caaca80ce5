//! Whether one hunk of a synthesized change is right on its own: the text with only that hunk
//! applied is checked again (the same `check` as the diagnostics), and it must have no finding
//! the original text did not have (and, for an inserted barrier, fewer). A hunk that passes is
//! a verified edit; one that does not is not offered.

use super::hunks::{apply, original_line, Hunk};
use super::job::Job;
use crate::output::results::FileResult;
use crate::workflow::editor::{check_buffer, BufferRun};
use crate::workflow::CheckOptions;

/// A finding as compared across two texts: its rule and places (text index, line, column),
/// lines of the main file counted in the original text.
pub type Key = (String, Vec<(usize, u32, u32)>);

/// What the hunk alone must achieve.
#[derive(Copy, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Fewer findings (an inserted barrier orders some race) and no new one.
    Fewer,
    /// No new finding (a removed barrier was redundant).
    NoNew,
}

/// The findings of a result, with main-file lines mapped by `map`; `None` when one lies on a
/// line `map` does not know (a line the hunk wrote).
pub fn keys(res: &FileResult, map: impl Fn(u32) -> Option<u32>) -> Option<Vec<Key>> {
    let mut out = Vec::new();
    for d in res.kernels.iter().flat_map(|k| k.defects.iter()) {
        let mut places = Vec::new();
        for l in d.locations().map(|p| &p.location) {
            let line = if l.text_index == 0 { map(l.line)? } else { l.line };
            places.push((l.text_index, line, l.column));
        }
        out.push((d.rule.clone(), places));
    }
    Some(out)
}

/// The job's text with only `hunk` applied, when it verifies against `baseline` (the original
/// text's findings).
pub fn verified_alone(job: &Job, o: &CheckOptions, hunk: &Hunk, baseline: &[Key], expect: Expect) -> Option<String> {
    let candidate = apply(&job.text, &[hunk]);
    let BufferRun::Done(res) = check_buffer(&job.path, &candidate, o) else {
        return None;
    };
    if res.error.is_some() {
        return None;
    }
    let found = keys(&res, |l| original_line(hunk, l))?;
    let no_new = found.iter().all(|k| baseline.contains(k));
    let fewer = found.len() < baseline.len();
    (no_new && (fewer || expect == Expect::NoNew)).then_some(candidate)
}
