//! Many files at once: config discovery and excludes, files in parallel (rayon), a progress bar
//! on terminals, results in file order whatever the scheduling, and the closing summary.

use crate::check::{check_kernel_within, Verdict};
use crate::cli::{
    exit, expand_inputs, front_error_record, render_file_error, CheckArgs, ColorChoice, FixArgs, OutFormat, RunArgs,
};
use crate::config::Config;
use crate::diag::{render_check, Style};
use crate::fix::{fix_file, write_back_with, FixError, FixOptions};
use crate::front;
use crate::results::{self, FileError, FileResult, Summary, Texts};
use rayon::prelude::*;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Severity order of exit codes: the worst file decides the run's code.
fn rank(c: u8) -> u8 {
    match c {
        exit::INPUT => 5,
        exit::INCONCLUSIVE => 4,
        exit::UNFIXABLE => 3,
        exit::DEFECTS => 2,
        _ => 0,
    }
}

/// The worse of two exit codes.
pub fn worst(a: u8, b: u8) -> u8 {
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

/// One input file with the configuration that applies to it.
struct Input {
    path: PathBuf,
    config: Option<Arc<Config>>,
    /// Named on the command line (not found by a directory search).
    explicit: bool,
}

/// Expands the inputs, finds their configs and drops excluded files. Config errors are printed
/// once per config file; files under a broken config are skipped (exit 2).
fn collect_inputs(paths: &[PathBuf], run: &RunArgs) -> Result<(Vec<Input>, u8), u8> {
    let mut files = expand_inputs(paths);
    if files.is_empty() {
        eprintln!("error: no .cu/.cuh files found in the given paths");
        return Err(exit::INPUT);
    }
    files.sort();
    files.dedup();
    let cache = run.config.cache();
    let mut code = exit::OK;
    let mut reported = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for f in files {
        match cache.for_file(&f) {
            Ok(Some(c)) if c.is_excluded(&f) => {
                if run.verbose {
                    eprintln!("{}: excluded by {}", f.display(), c.path.display());
                }
            }
            Ok(config) => {
                if run.verbose {
                    if let Some(c) = &config {
                        if reported.insert(c.path.clone()) {
                            eprintln!("note: using {}", c.path.display());
                        }
                    }
                }
                let explicit = paths.contains(&f);
                out.push(Input {
                    path: f,
                    config,
                    explicit,
                });
            }
            Err(e) => {
                if reported.insert(e.path.clone()) {
                    eprintln!("{e}");
                }
                code = exit::INPUT;
            }
        }
    }
    Ok((out, code))
}

fn color_on(choice: ColorChoice, terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// Runs `work` over the inputs on a rayon pool with a progress bar; results in input order.
fn process<F>(inputs: &[Input], run: &RunArgs, work: F) -> Vec<FileResult>
where
    F: Fn(&Input) -> FileResult + Sync,
{
    let bar = if inputs.len() > 1 && !run.quiet && std::io::stderr().is_terminal() {
        let pb = indicatif::ProgressBar::new(inputs.len() as u64);
        let style = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} files {elapsed} {wide_msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
        pb.set_style(style);
        Some(pb)
    } else {
        None
    };
    let job = || {
        inputs
            .par_iter()
            .map(|i| {
                if let Some(b) = &bar {
                    b.set_message(i.path.display().to_string());
                }
                let r = work(i);
                if let Some(b) = &bar {
                    b.inc(1);
                }
                r
            })
            .collect::<Vec<_>>()
    };
    let results = match rayon::ThreadPoolBuilder::new().num_threads(run.jobs).build() {
        Ok(pool) => pool.install(job),
        Err(_) => job(),
    };
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    results
}

fn error_result(path: &Path, e: FileError) -> FileResult {
    FileResult {
        file: path.display().to_string(),
        kernels: vec![],
        changed: false,
        diff: String::new(),
        replacements: vec![],
        exit_code: e.exit_code,
        messages: vec![render_file_error(&e)],
        error: Some(e),
        stdout: String::new(),
    }
}

/// Prints the results and the summary in the chosen format; returns the exit code.
fn finish(command: &str, results: &[FileResult], format: OutFormat, run: &RunArgs, mut code: u8) -> u8 {
    for r in results {
        code = worst(code, r.exit_code);
    }
    if code == exit::OK && !results.is_empty() && results.iter().all(|r| r.kernels.is_empty()) {
        eprintln!("error: no __global__ kernel in the given paths");
        code = exit::INPUT;
    }
    let summary = Summary::of(results, code);
    for r in results {
        print!("{}", r.stdout);
        for m in &r.messages {
            // In machine formats only errors go to stderr; the rest is in the document.
            let shown = r.error.is_some() || (format == OutFormat::Text && !run.quiet);
            if shown {
                eprintln!("{m}");
            }
        }
    }
    match format {
        OutFormat::Text => {
            if !run.quiet && (results.len() > 1 || run.verbose) {
                let st = Style::new(color_on(run.color, std::io::stderr().is_terminal()));
                eprintln!("{}", st.bold(&summary.text(command == "fix")));
            }
        }
        OutFormat::Json => {
            let errors: Vec<&FileError> = results.iter().filter_map(|r| r.error.as_ref()).collect();
            let doc = if command == "check" {
                let kernels: Vec<_> = results.iter().flat_map(|r| r.kernels.iter()).collect();
                serde_json::json!({ "version": 1, "command": command, "kernels": kernels, "errors": errors, "summary": summary })
            } else {
                serde_json::json!({ "version": 1, "command": command, "files": results, "errors": errors, "summary": summary })
            };
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        OutFormat::Sarif => {
            println!(
                "{}",
                serde_json::to_string_pretty(&crate::sarif::log(results, code)).unwrap_or_default()
            );
        }
    }
    code
}

/// `autosync check`.
pub fn run_check(a: &CheckArgs) -> u8 {
    let (inputs, code) = match collect_inputs(&a.files, &a.run) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let style = Style::new(color_on(a.run.color, std::io::stdout().is_terminal()));
    let results = process(&inputs, &a.run, |i| check_one(i, a, style));
    finish("check", &results, a.format, &a.run, code)
}

fn check_one(i: &Input, a: &CheckArgs, style: Style) -> FileResult {
    let f = &i.path;
    let unit = match front::load(f, &a.input.front_options_for(i.config.as_deref(), f)) {
        Ok(u) => u,
        Err(e) => return error_result(f, front_error_record(f, None, &e)),
    };
    let file = f.display().to_string();
    let mut res = error_free(&file);
    if a.run.verbose {
        res.messages
            .extend(unit.notes.iter().map(|(s, n)| format!("{}: note: {n}", unit.loc(*s))));
    }
    if unit.kernels.is_empty() {
        return no_kernels(i, unit.texts.first().map_or("", String::as_str));
    }
    let tx = Texts { texts: &unit.texts };
    for k in &unit.kernels {
        let t0 = Instant::now();
        let (report, checker) = check_kernel_within(k, a.oracle, a.timeout, Some(a.kernel_timeout), a.strict);
        let millis = t0.elapsed().as_secs_f64() * 1000.0;
        let kr = results::from_check(&file, k, &tx, report, checker, millis);
        res.exit_code = worst(
            res.exit_code,
            match kr.verdict {
                Some(Verdict::Defects) => exit::DEFECTS,
                Some(Verdict::Inconclusive) => exit::INCONCLUSIVE,
                _ => exit::OK,
            },
        );
        if a.format == OutFormat::Text {
            res.stdout.push_str(&render_check(&kr, &tx, style));
            if a.run.verbose {
                res.messages.push(format!(
                    "{file}: kernel `{}`: {} checker, {millis:.1} ms",
                    k.name, checker
                ));
            }
        }
        res.kernels.push(kr);
    }
    res
}

/// A file without kernels: an input error when the user named it, a note when a directory
/// search found it (headers have no kernels).
fn no_kernels(i: &Input, text: &str) -> FileResult {
    let what = if text.trim().is_empty() {
        "file is empty"
    } else {
        "no __global__ kernel in this file"
    };
    let file = i.path.display().to_string();
    if i.explicit {
        return error_result(
            &i.path,
            FileError {
                file,
                line: None,
                column: None,
                kind: "error".into(),
                message: what.into(),
                help: Some("pass a .cu file that defines a __global__ kernel".into()),
                exit_code: exit::INPUT,
            },
        );
    }
    let mut r = error_free(&file);
    r.messages.push(format!("{file}: note: {what}"));
    r
}

fn error_free(file: &str) -> FileResult {
    FileResult {
        file: file.to_string(),
        kernels: vec![],
        changed: false,
        diff: String::new(),
        replacements: vec![],
        error: None,
        exit_code: exit::OK,
        messages: vec![],
        stdout: String::new(),
    }
}

/// `autosync fix`.
pub fn run_fix(a: &FixArgs) -> u8 {
    let bad = |c: Option<f64>, ok: fn(f64) -> bool| c.is_some_and(|v| !(v.is_finite() && ok(v)));
    if bad(a.cost_loop, |v| v >= 1.0) || bad(a.cost_if, |v| v > 0.0) {
        eprintln!("error: --cost-loop must be >= 1 and --cost-if > 0");
        return exit::INPUT;
    }
    let (inputs, code) = match collect_inputs(&a.files, &a.run) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let results = process(&inputs, &a.run, |i| fix_one(i, a));
    finish("fix", &results, a.format, &a.run, code)
}

/// Fix options for one file: flags over the config's cost constants over the defaults.
fn fix_options(a: &FixArgs, cfg: Option<&Config>) -> FixOptions {
    let cost = cfg.map(|c| c.cost.clone()).unwrap_or_default();
    FixOptions {
        synth: crate::synth::block::SynthOptions {
            cost_loop: a.cost_loop.or(cost.loop_factor).unwrap_or(100.0),
            cost_if: a.cost_if.or(cost.if_factor).unwrap_or(0.5),
            timeout_ms: a.timeout,
            strict: a.strict,
            dump_wcnf: a.dump_wcnf.clone(),
            kernel_timeout: Some(a.kernel_timeout),
            named: {
                // Flags over the config file; a bad --reserved-ids was rejected by clap already.
                let reserved = a
                    .reserved_ids
                    .as_deref()
                    .and_then(|r| crate::synth::named::parse_id_set(r).ok())
                    .or_else(|| cfg.and_then(|c| c.reserved_ids.clone()))
                    .unwrap_or_default();
                crate::synth::named::NamedSettings {
                    style: a
                        .named_style
                        .or_else(|| cfg.and_then(|c| c.named_style).and_then(|s| s.setting())),
                    ..crate::synth::named::NamedSettings::with_reserved(&reserved)
                }
            },
            ..Default::default()
        },
        strategy: a.strategy,
        annotate: a.annotate,
        minimize: a.minimize,
    }
}

fn fmt_cost(c: f64) -> String {
    if c.fract() == 0.0 {
        format!("{c:.0}")
    } else {
        format!("{c}")
    }
}

fn fix_one(i: &Input, a: &FixArgs) -> FileResult {
    let f = &i.path;
    let front_opts = a.input.front_options_for(i.config.as_deref(), f);
    let opts = fix_options(a, i.config.as_deref());
    let fixed = match fix_file(f, &front_opts, &opts) {
        Ok(r) => r,
        Err(FixError::Front(e)) => return error_result(f, front_error_record(f, None, &e)),
        Err(FixError::Emit(m)) | Err(FixError::Verification(m)) => {
            let e = FileError {
                file: f.display().to_string(),
                line: None,
                column: None,
                kind: "error".into(),
                message: format!("{m}; nothing written"),
                help: None,
                exit_code: exit::INCONCLUSIVE,
            };
            return error_result(f, e);
        }
    };
    if fixed.kernels.is_empty() {
        return no_kernels(i, &fixed.original);
    }
    let file = f.display().to_string();
    let mut res = error_free(&file);
    let text = a.format == OutFormat::Text;
    let dry = a.diff || a.check || a.stdout;
    // Machine formats locate each defect from synthesis' own report on the input, lowered again
    // here for its texts and spans (deterministic: the same labels). Only `--minimize` results
    // carry no report; those kernels are checked once more.
    let unit = if text { None } else { front::load(f, &front_opts).ok() };
    let tx_texts = unit.as_ref().map(|u| u.texts.clone()).unwrap_or_default();
    let tx = Texts { texts: &tx_texts };
    for kf in &fixed.kernels {
        match kf.status {
            "unfixable" | "partial" => res.exit_code = worst(res.exit_code, exit::UNFIXABLE),
            "inconclusive" => res.exit_code = worst(res.exit_code, exit::INCONCLUSIVE),
            _ => {}
        }
        let k = unit
            .as_ref()
            .and_then(|u| u.kernels.iter().find(|k| k.name == kf.kernel));
        let found = match (k, &kf.initial) {
            (Some(k), Some(report)) if kf.status != "clean" => results::defects(k, &tx, report),
            (Some(k), None) if kf.status != "clean" => {
                let (report, _) = check_kernel_within(
                    k,
                    crate::check::OracleChoice::Auto,
                    a.timeout,
                    Some(a.kernel_timeout),
                    a.strict,
                );
                results::defects(k, &tx, &report)
            }
            _ => vec![],
        };
        let kr = results::from_fix(&file, k, &tx, kf, found, fixed.patched.as_deref());
        if text {
            fix_messages(&mut res.messages, &file, kf, dry, a.stats || a.run.verbose);
        }
        res.kernels.push(kr);
    }
    if fixed.changed {
        res.changed = true;
        res.diff = fixed.diff.clone();
        if let Some(p) = &fixed.patched {
            res.replacements = results::replacements(&fixed.original, p);
        }
        if a.check {
            res.exit_code = worst(res.exit_code, exit::DEFECTS);
            if text {
                res.messages.push(format!("{file}: would change"));
            }
        } else if a.diff {
            if text {
                res.stdout.push_str(&fixed.diff);
            }
        } else if a.stdout {
            res.stdout.push_str(fixed.patched.as_deref().unwrap_or_default());
        } else if let Err(m) = write_back_with(f, &fixed, a.backup) {
            res.exit_code = worst(res.exit_code, exit::INPUT);
            res.error = Some(FileError {
                file: file.clone(),
                line: None,
                column: None,
                kind: "error".into(),
                message: m.clone(),
                help: None,
                exit_code: exit::INPUT,
            });
            res.messages.push(format!("error: {m}"));
        }
    } else if a.stdout {
        res.stdout.push_str(&fixed.original);
    }
    res
}

/// The stderr lines `fix` prints for one kernel in text mode.
fn fix_messages(out: &mut Vec<String>, file: &str, k: &crate::fix::KernelFix, dry: bool, stats: bool) {
    let verb = if dry { "would insert" } else { "inserted" };
    for b in &k.barriers {
        let covers = if b.covers.is_empty() {
            String::new()
        } else {
            format!(
                ", covers {} race{}: {}",
                b.covers.len(),
                if b.covers.len() == 1 { "" } else { "s" },
                b.covers.join(", ")
            )
        };
        out.push(format!(
            "{file}:{}: {verb} {} (cost {}{covers})",
            b.line,
            b.text.trim_end_matches(';'),
            fmt_cost(b.cost)
        ));
    }
    for n in &k.notes {
        out.push(format!("{file}: kernel `{}`: note: {n}", k.kernel));
    }
    if let Some(m) = &k.minimized {
        let verb = if dry { "would remove" } else { "removed" };
        for l in &m.removed_lines {
            out.push(format!(
                "{file}:{l}: {verb} __syncthreads() (not needed by the cheaper placement)"
            ));
        }
        out.push(format!(
            "{file}: kernel `{}`: barrier cost {} -> {}",
            k.kernel,
            fmt_cost(m.old_cost),
            fmt_cost(m.new_cost)
        ));
    }
    if k.status == "unfixable" || k.status == "inconclusive" {
        out.push(format!(
            "{file}: kernel `{}` is {}; nothing written",
            k.kernel, k.status
        ));
        for r in &k.reasons {
            out.push(format!("  {r}"));
        }
    }
    if k.status == "partial" {
        out.push(format!(
            "{file}: kernel `{}`: {} the barriers that fix what barriers can; {} race{} remain{}:",
            k.kernel,
            if dry { "would write" } else { "wrote" },
            k.reasons.len(),
            if k.reasons.len() == 1 { "" } else { "s" },
            if k.reasons.len() == 1 { "s" } else { "" }
        ));
        for r in &k.reasons {
            out.push(format!("  {r}"));
        }
    }
    if stats {
        out.push(format!(
            "{file}: kernel `{}`: {} oracle calls, {} MaxSAT calls, {} rounds, {:.1} ms",
            k.kernel, k.stats.oracle_calls, k.stats.maxsat_calls, k.stats.rounds, k.stats.millis
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// `autosync fix`'s flags alone, to parse a command line without the subcommand.
    #[derive(Parser)]
    struct Fix {
        #[command(flatten)]
        args: FixArgs,
    }

    #[test]
    fn fix_options_default_is_the_cli_without_flags_and_without_a_kernel_budget() {
        let a = Fix::try_parse_from(["autosync", "k.cu"]).unwrap().args;
        let mut cli = fix_options(&a, None);
        assert_eq!(cli.synth.kernel_timeout, Some(std::time::Duration::from_secs(60)));
        cli.synth.kernel_timeout = None;
        assert_eq!(format!("{cli:?}"), format!("{:?}", FixOptions::default()));
    }
}
