//! `check` on one file: each kernel checked within its budget, suppressions split off, the
//! findings rendered in the run's format.

use super::config::front_options_for;
use super::errors::{error_free, error_result, front_error};
use super::inputs::{load, no_kernels, Input};
use super::notes::{describe_unit, render_warnings, suppression_warnings};
use super::options::{CheckOptions, Format};
use super::unlowered::add_unlowered;
use crate::jobs::check::check_kernel_within;
use crate::output::diag::{self, Style};
use crate::output::results::{self, Checked, FileResult, Findings, Verdict};
use crate::vocab::exit::{self, worst};
use crate::vocab::filter::Filter;
use crate::vocab::texts::Texts;
use std::time::Instant;

pub(super) fn check_one(i: &Input, o: &CheckOptions, style: Style) -> FileResult {
    let file = i.name();
    let front_opts = front_options_for(&o.front, i.config.as_deref(), &i.path);
    let unit = match load(i, &front_opts) {
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
    for k in &unit.kernels {
        let t0 = Instant::now();
        let (report, checker) = check_kernel_within(k, o.oracle, o.timeout_ms, Some(o.kernel_timeout), o.strict);
        let millis = t0.elapsed().as_secs_f64() * 1000.0;
        let (report, gone) = sup.split(k, report);
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
        if o.run.verbose && o.run.format == Format::Text {
            res.messages.push(format!(
                "{file}: kernel `{}`: {} checker, {millis:.1} ms",
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
