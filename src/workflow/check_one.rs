//! `check` on one file: each kernel checked within its budget, suppressions split off, the
//! findings rendered in the run's format.

use super::config::front_options_for;
use super::errors::{error_free, error_result, front_error};
use super::inputs::{load, no_kernels, Input};
use super::notes::{describe_unit, render_warnings, suppression_warnings};
use super::options::{CheckOptions, Format};
use super::parallel::Progress;
use super::unlowered::add_unlowered;
use crate::cache::Store;
use crate::output::diag::{self, Style};
use crate::output::results::{self, Checked, FileResult, Findings, Verdict};
use crate::vocab::exit::{self, worst};
use crate::vocab::filter::Filter;
use crate::vocab::texts::Texts;
use rayon::prelude::*;
use std::time::Instant;

pub(super) fn check_one(i: &Input, o: &CheckOptions, style: Style, store: Option<&Store>, p: &Progress) -> FileResult {
    let file = i.name();
    let front_opts = front_options_for(&o.front, i.config.as_deref(), &i.path);
    let unit = match load(i, &front_opts, store) {
        Ok(u) => u,
        Err(e) => return error_result(&front_error(&file, None, &e)),
    };
    let mut res = error_free(&file);
    describe_unit(&mut res, &unit, o.run.verbose);
    if unit.kernels.is_empty() && unit.unlowered.is_empty() {
        return no_kernels(i, unit.texts.first().map_or("", String::as_str));
    }
    let tx = Texts { texts: &unit.texts };
    let sup = i.suppressions(&unit);
    // Kernels in parallel (on the run's pool: `-j` bounds files and kernels together); the
    // results in file order.
    let checked: Vec<_> = unit
        .kernels
        .par_iter()
        .map(|k| {
            p.kernel(&file, &k.name);
            let t0 = Instant::now();
            let (report, checker, hit) = super::cached::check_kernel(store, k, o);
            (report, checker, hit, t0.elapsed().as_secs_f64() * 1000.0)
        })
        .collect();
    for (ki, (k, (mut report, checker, hit, millis))) in unit.kernels.iter().zip(checked).enumerate() {
        // The front end's hazards are the unit's, not the (cached) check's.
        report
            .hazards
            .extend(unit.hazards.get(ki).into_iter().flatten().cloned());
        let (report, gone) = sup.split(k, report);
        let counts = diag::CheckCounts {
            queries: report.queries,
            injective: report.settled_by_injectivity,
            divisible: report.settled_by_divisibility,
        };
        let findings = Findings::of(k, &tx, &report, &gone, &sup);
        let kr = results::from_check(
            &file,
            k,
            &tx,
            Checked {
                report,
                findings,
                checker,
                millis,
            },
        );
        res.exit_code = worst(
            res.exit_code,
            match kr.verdict {
                Some(Verdict::Defects) => exit::DEFECTS,
                Some(Verdict::Inconclusive) => exit::INCONCLUSIVE,
                _ => exit::OK,
            },
        );
        match o.run.format {
            Format::Text => res.stdout.push_str(&diag::render_check(&kr, &tx, style)),
            Format::Concise => res.stdout.push_str(&diag::concise(&kr)),
            Format::Github => res.stdout.push_str(&diag::github_check(&kr)),
            Format::Json | Format::Sarif => {}
        }
        if o.stats {
            res.messages
                .push(diag::check_stats(&file, &k.name, checker, counts, millis, hit));
        } else if o.run.verbose && o.run.format == Format::Text {
            let source = if hit { " (from the cache)" } else { "" };
            res.messages.push(format!(
                "{file}: kernel `{}`: {} checker, {millis:.1} ms{source}",
                k.name, checker
            ));
        }
        res.kernels.push(kr);
    }
    add_unlowered(&mut res, &unit, i.explicit, o.run.format, style, false);
    res.warnings = suppression_warnings(&unit, &res.kernels, &sup, front_opts.kernel.is_some());
    render_warnings(&mut res, o.run.format, true);
    res
}
