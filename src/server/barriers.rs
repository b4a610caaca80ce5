//! The code actions that insert barriers: "Insert the barriers autosync synthesized" (one
//! edit with every verified insertion: the text `fix` writes, verified by `fix` itself), and,
//! where the fix has several barriers, "Insert this barrier" for each one whose insertion
//! alone verifies (`verify.rs`).

use super::diagnostics::Finding;
use super::hunks::{hunks, Hunk};
use super::job::Job;
use super::offer::{Offer, OfferKind};
use super::options::ServerOptions;
use super::positions::Lines;
use super::verify::{verified_alone, Expect, Key};
use crate::output::results::{Barrier, KernelResult};
use crate::workflow::editor::{fix_buffer, BufferRun};
use lsp_types::Range;

/// The insertion offers of a job's text; `baseline` are the text's findings.
pub fn barrier_offers(job: &Job, o: &ServerOptions, findings: &[Finding], baseline: &[Key]) -> Vec<Offer> {
    let BufferRun::Done(fixed) = fix_buffer(&job.path, &job.text, &o.fix) else {
        return vec![];
    };
    if !fixed.result.changed || fixed.text == job.text {
        return vec![];
    }
    let lines = Lines::new(&job.text);
    let barriers = distinct_barriers(&fixed.result.kernels);
    let mut all = Offer {
        title: match barriers.len() {
            1 => "Insert the barrier autosync synthesized".to_string(),
            n => format!("Insert the {n} barriers autosync synthesized"),
        },
        text: fixed.text.clone(),
        at: vec![],
        fixes: vec![],
        kind: OfferKind::AllBarriers,
    };
    for (k, b) in &barriers {
        all.fixes.extend(covered(k, b, findings));
        all.at.extend(
            k.location
                .as_ref()
                .map(|l| lines.range((l.line, l.column), (l.end_line, l.end_column))),
        );
    }
    all.fixes.sort_unstable();
    all.fixes.dedup();
    all.at.extend(all.fixes.iter().map(|&i| findings[i].diagnostic.range));
    let mut offers = vec![all];
    if barriers.len() > 1 {
        let hs = hunks(&job.text, &fixed.text);
        for (k, b) in &barriers {
            if job.cancelled() {
                break;
            }
            let alone = Alone {
                job,
                o,
                findings,
                baseline,
            };
            offers.extend(alone.offer(&hs, &barriers, k, b));
        }
    }
    offers
}

/// Each inserted barrier once (the instantiations of one template share theirs), with its kernel.
fn distinct_barriers(kernels: &[KernelResult]) -> Vec<(&KernelResult, &Barrier)> {
    let mut out: Vec<(&KernelResult, &Barrier)> = Vec::new();
    for k in kernels {
        for b in &k.barriers {
            if !out.iter().any(|(_, x)| x.line == b.line && x.text == b.text) {
                out.push((k, b));
            }
        }
    }
    out
}

/// The diagnostics of the races barrier `b` of kernel `k` orders (alone or with others).
fn covered(k: &KernelResult, b: &Barrier, findings: &[Finding]) -> Vec<usize> {
    let places: Vec<(&str, (u32, u32))> = b
        .covers_defects
        .iter()
        .filter_map(|&i| k.defects.get(i))
        .filter_map(|d| {
            let p = d.primary.as_ref().filter(|p| p.location.text_index == 0)?;
            Some((d.rule.as_str(), (p.location.line, p.location.column)))
        })
        .collect();
    (0..findings.len())
        .filter(|&i| {
            let f = &findings[i];
            let rule = f.suppress_at.as_ref().map(|(r, _)| r.as_str());
            places
                .iter()
                .any(|(r, at)| f.at == Some(*at) && rule.is_none_or(|x| x == *r))
        })
        .collect()
}

/// One barrier of a fix with several, inserted alone.
struct Alone<'a> {
    job: &'a Job,
    o: &'a ServerOptions,
    findings: &'a [Finding],
    baseline: &'a [Key],
}

impl Alone<'_> {
    /// "Insert this barrier" for `b`, when its hunk writes no other barrier and verifies alone.
    fn offer(&self, hs: &[Hunk], all: &[(&KernelResult, &Barrier)], k: &KernelResult, b: &Barrier) -> Option<Offer> {
        let written = |h: &Hunk, line: u32| h.new.contains(&(line as usize - 1));
        let h = hs.iter().find(|h| written(h, b.line))?;
        if all.iter().filter(|(_, x)| written(h, x.line)).count() != 1 {
            return None;
        }
        let text = verified_alone(self.job, &self.o.check, h, self.baseline, Expect::Fewer)?;
        let fixes = covered(k, b, self.findings);
        let lines = Lines::new(&self.job.text);
        let mut at: Vec<Range> = fixes.iter().map(|&i| self.findings[i].diagnostic.range).collect();
        at.push(lines.line_range(b.original_line));
        let statement = b.text.lines().next().unwrap_or("").trim();
        let orders = if b.covers.is_empty() { &b.shares } else { &b.covers };
        Some(Offer {
            title: format!(
                "Insert this barrier: {statement} before line {} (orders {})",
                b.original_line,
                orders.join(", ")
            ),
            text,
            at,
            fixes,
            kind: OfferKind::OneBarrier,
        })
    }
}
