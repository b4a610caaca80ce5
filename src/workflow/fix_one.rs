//! `fix` on one file: its fix options (flags over the config over the defaults), synthesis,
//! the report per kernel, and what the mode does with a changed file (write it back, print
//! the diff or the patched text, or only say it would change).

use super::config::{front_options_for, Config, IgnoreEntry};
use super::errors::{error_free, error_result, front_error};
use super::inputs::{no_kernels, Input};
use super::notes::{describe_unit, render_warnings, suppression_warnings};
use super::options::{FixMode, FixRequest, Format};
use super::suppress::Suppressions;
use super::unlowered::add_unlowered;
use crate::jobs::check::{check_kernel_within, OracleChoice};
use crate::jobs::fix::{fix_file, fix_text, write_back_with, FileFix, FixError, FixOptions};
use crate::output::diag;
use crate::output::results::{self, FileError, FileResult, Findings};
use crate::vocab::exit::{self, worst};
use crate::vocab::filter::{Filter, FilterFor};
use crate::vocab::texts::Texts;
use std::path::Path;
use std::sync::Arc;

/// Fix options for one file: flags over the config's settings over the defaults.
pub(crate) fn fix_options(o: &FixRequest, cfg: Option<&Config>, ignore: Vec<IgnoreEntry>) -> FixOptions {
    let cost = cfg.map(|c| c.cost.clone()).unwrap_or_default();
    let reserved = o
        .reserved_ids
        .clone()
        .or_else(|| cfg.and_then(|c| c.reserved_ids.clone()))
        .unwrap_or_default();
    FixOptions {
        synth: crate::synth::space::SynthOptions {
            cost_loop: o.cost_loop.or(cost.loop_factor).unwrap_or(100.0),
            cost_if: o.cost_if.or(cost.if_factor).unwrap_or(0.5),
            timeout_ms: o.timeout_ms,
            strict: o.strict,
            dump_wcnf: o.dump_wcnf.clone(),
            kernel_timeout: Some(o.kernel_timeout),
            named: crate::synth::named::NamedSettings {
                style: o
                    .named_style
                    .or_else(|| cfg.and_then(|c| c.named_style).and_then(|s| s.setting())),
                ..crate::synth::named::NamedSettings::with_reserved(&reserved)
            },
            ..Default::default()
        },
        strategy: o.strategy,
        annotate: o.annotate,
        minimize: o.minimize,
        suppress: Some(FilterFor(Arc::new(move |texts: &[String]| -> Arc<dyn Filter> {
            Arc::new(Suppressions::new(texts, ignore.clone()))
        }))),
    }
}

pub(super) fn fix_one(i: &Input, o: &FixRequest) -> FileResult {
    let f = &i.path;
    let file = i.name();
    let front_opts = front_options_for(&o.front, i.config.as_deref(), f);
    let opts = fix_options(o, i.config.as_deref(), i.ignores());
    let fixed = match &i.stdin {
        Some(text) => fix_text(f, text, &front_opts, &opts),
        None => fix_file(f, &front_opts, &opts),
    };
    let fixed = match fixed {
        Ok(r) => r,
        Err(FixError::Front(e)) => return stdin_echo(i, error_result(&front_error(&file, None, &e))),
        Err(FixError::Emit(m)) | Err(FixError::Verification(m)) => {
            let e = FileError {
                exit_code: exit::INCONCLUSIVE,
                ..FileError::input(&file, format!("{m}; nothing written"), None)
            };
            return stdin_echo(i, error_result(&e));
        }
    };
    let unlowered = fixed.unit.as_ref().is_some_and(|u| !u.unlowered.is_empty());
    if fixed.kernels.is_empty() && !unlowered {
        return stdin_echo(i, no_kernels(i, &fixed.original));
    }
    let Some(unit) = &fixed.unit else {
        return stdin_echo(i, no_kernels(i, &fixed.original));
    };
    let mut res = error_free(&file);
    describe_unit(&mut res, unit, o.run.verbose);
    let tx = Texts { texts: &unit.texts };
    let sup = i.suppressions(unit);
    let dry = o.mode != FixMode::Write || i.stdin.is_some();
    for kf in &fixed.kernels {
        match kf.status {
            "unfixable" | "partial" => res.exit_code = worst(res.exit_code, exit::UNFIXABLE),
            "inconclusive" => res.exit_code = worst(res.exit_code, exit::INCONCLUSIVE),
            _ => {}
        }
        let k = unit.kernels.iter().find(|k| k.name == kf.kernel);
        // Each defect is located from synthesis' own report on the input; only `--minimize`
        // results carry none, and their kernels are checked once more.
        let found = match (k, &kf.initial) {
            (Some(k), Some(report)) => Some(Findings::of(k, &tx, report, &kf.suppressed, &sup)),
            (Some(k), None) if kf.status != "clean" => {
                let (report, _) =
                    check_kernel_within(k, OracleChoice::Auto, o.timeout_ms, Some(o.kernel_timeout), o.strict);
                let (kept, gone) = sup.split(k, report);
                Some(Findings::of(k, &tx, &kept, &gone, &sup))
            }
            _ => None,
        };
        let kr = results::from_fix(&file, k, &tx, kf, found, fixed.patched.as_deref());
        match o.run.format {
            Format::Text | Format::Concise => {
                diag::fix_messages(&mut res.messages, &file, kf, &kr, dry, o.stats || o.run.verbose)
            }
            Format::Github => res.stdout.push_str(&diag::github_fix(&kr, dry)),
            Format::Json | Format::Sarif => {}
        }
        res.kernels.push(kr);
    }
    add_unlowered(&mut res, unit, i.explicit, o.run.format, diag::Style::new(false), true);
    res.warnings = suppression_warnings(unit, &res.kernels, &sup, front_opts.kernel.is_some());
    render_warnings(&mut res, o.run.format, false);
    let human = o.run.format != Format::Json && o.run.format != Format::Sarif;
    if fixed.changed {
        res.changed = true;
        res.diff = fixed.diff.clone();
        if let Some(p) = &fixed.patched {
            res.replacements = results::replacements(&fixed.original, p);
        }
        match (o.mode, &i.stdin) {
            (FixMode::Check, _) => {
                res.exit_code = worst(res.exit_code, exit::DEFECTS);
                if human {
                    res.messages.push(format!("{file}: would change"));
                }
            }
            (FixMode::Diff, _) => {
                res.exit_code = worst(res.exit_code, exit::DEFECTS);
                if human {
                    res.stdout.push_str(&fixed.diff);
                }
            }
            // Standard input is never written back: the patched text goes to standard output.
            (FixMode::Stdout, _) | (FixMode::Write, Some(_)) => {
                res.stdout.push_str(fixed.patched.as_deref().unwrap_or_default())
            }
            (FixMode::Write, None) => write_back(&mut res, f, &fixed, o.backup),
        }
    } else if o.mode == FixMode::Stdout || (o.mode == FixMode::Write && i.stdin.is_some()) {
        res.stdout.push_str(&fixed.original);
    }
    res
}

/// `fix -` must give an editor its text back even when nothing could be done.
pub(super) fn stdin_echo(i: &Input, mut r: FileResult) -> FileResult {
    if let Some(text) = &i.stdin {
        r.stdout.push_str(text);
    }
    r
}

fn write_back(res: &mut FileResult, path: &Path, fixed: &FileFix, backup: bool) {
    if let Err(m) = write_back_with(path, fixed, backup) {
        let e = FileError::input(&res.file, m.clone(), None);
        res.exit_code = worst(res.exit_code, exit::INPUT);
        res.error = Some(e);
        res.messages.push(format!("error: {m}"));
    }
}
