//! Many files at once: input discovery (`walk.rs`), standard input, config discovery and
//! excludes, suppressions, files in parallel (rayon), a progress bar on terminals, results in
//! file order whatever the scheduling, the output formats and the closing summary.
//!
//! It takes plain option structs; only `cli.rs` knows the command line.

pub mod config;
pub mod suppress;
pub mod walk;

use crate::front::{self, FrontError, FrontErrorKind, FrontOptions, SourceUnit};
use crate::jobs::check::{check_kernel_within, OracleChoice};
use crate::jobs::fix::{fix_file, fix_text, write_back_with, FileFix, FixError, FixOptions, Strategy};
use crate::output::diag::{self, Style};
use crate::output::results::{
    self, Checked, CudaJson, EnvironmentJson, FileError, FileResult, Findings, KernelResult, Summary, Verdict, Warning,
};
use crate::synth::named::NamedStyle;
use crate::vocab::exit::{self, worst};
use crate::vocab::filter::{Filter, FilterFor};
use crate::vocab::texts::{Location, Texts};
use config::{front_options_for, Config, ConfigCache, IgnoreEntry};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use suppress::Suppressions;

/// Report formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Human-readable diagnostics with source snippets.
    Text,
    /// One line per finding (`file:line:col: error[rule]: message`).
    Concise,
    /// GitHub Actions workflow commands (`::error file=...::message`): annotations on the PR.
    Github,
    /// JSON (docs/json.md).
    Json,
    /// SARIF 2.1.0.
    Sarif,
}

/// When to colour text output.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Color {
    /// When writing to a terminal and `NO_COLOR` is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// How a multi-file run behaves (shared by `check` and `fix`).
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Use this config file for every input instead of discovering `autosync.yaml`.
    pub config: Option<PathBuf>,
    /// Read no config file.
    pub no_config: bool,
    /// Files in parallel (0: one per CPU).
    pub jobs: usize,
    /// Colour.
    pub color: Color,
    /// Only errors on standard error.
    pub quiet: bool,
    /// Notes, excluded files, the config used, per-kernel statistics.
    pub verbose: bool,
    /// Output format.
    pub format: Format,
    /// The path standard input (`-`) stands for: config lookup, includes and messages use it.
    pub stdin_filename: Option<PathBuf>,
}

/// `autosync check`.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Files and directories (`-` for standard input).
    pub paths: Vec<PathBuf>,
    /// What the kernels are (launch configuration, defines, ...), before the config file.
    pub front: FrontOptions,
    /// Which checker.
    pub oracle: OracleChoice,
    /// Benign races are races (not warnings).
    pub strict: bool,
    /// Solver budget per query (milliseconds of solver work).
    pub timeout_ms: u32,
    /// Wall-clock budget per kernel.
    pub kernel_timeout: Duration,
    /// Run options.
    pub run: RunOptions,
}

/// What `fix` does with a fixed file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FixMode {
    /// Rewrite it in place.
    Write,
    /// Print a unified diff (exit 1 when something would change).
    Diff,
    /// Exit 1 when something would change.
    Check,
    /// Print the patched file.
    Stdout,
}

/// `autosync fix`.
#[derive(Clone, Debug)]
pub struct FixRequest {
    /// Files and directories (`-` for standard input).
    pub paths: Vec<PathBuf>,
    /// What the kernels are, before the config file.
    pub front: FrontOptions,
    /// What to do with the result.
    pub mode: FixMode,
    /// Keep the original as FILE.orig.
    pub backup: bool,
    /// Print per-kernel statistics.
    pub stats: bool,
    /// Comment each inserted barrier.
    pub annotate: bool,
    /// Synthesis strategy.
    pub strategy: Strategy,
    /// Also remove the author's barriers when a verified cheaper placement exists.
    pub minimize: bool,
    /// Cost factor per enclosing loop (over the config's).
    pub cost_loop: Option<f64>,
    /// Cost factor per enclosing if (over the config's).
    pub cost_if: Option<f64>,
    /// Write every MaxSAT instance here.
    pub dump_wcnf: Option<PathBuf>,
    /// Solver budget per query.
    pub timeout_ms: u32,
    /// Also fix benign races.
    pub strict: bool,
    /// Named-barrier IDs synthesis must not use (over the config's).
    pub reserved_ids: Option<Vec<u32>>,
    /// Named-barrier style (over the config's).
    pub named_style: Option<NamedStyle>,
    /// Wall-clock budget per kernel.
    pub kernel_timeout: Duration,
    /// Run options.
    pub run: RunOptions,
}

/// One input with the configuration that applies to it.
struct Input {
    path: PathBuf,
    config: Option<Arc<Config>>,
    /// Named on the command line (not found by a directory search).
    explicit: bool,
    /// The text, when it came from standard input.
    stdin: Option<String>,
}

impl Input {
    fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// The suppressions of a lowered unit of this input.
    fn suppressions(&self, unit: &SourceUnit) -> Suppressions {
        Suppressions::new(&unit.texts, self.ignores())
    }

    fn ignores(&self) -> Vec<IgnoreEntry> {
        self.config
            .as_ref()
            .map(|c| c.ignores_for(&self.path))
            .unwrap_or_default()
    }
}

/// The display name of standard input when `--stdin-filename` is not given.
const STDIN_NAME: &str = "<stdin>";

/// Reads standard input as source text (UTF-8, no NUL bytes).
fn read_stdin(name: &str) -> Result<String, FileError> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| FileError::input(name, format!("cannot read standard input: {e}"), None))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        FileError::input(
            name,
            "standard input is not valid UTF-8",
            Some("autosync reads CUDA sources as UTF-8"),
        )
    })?;
    if text.contains('\0') {
        return Err(FileError::input(name, "standard input contains NUL bytes", None));
    }
    Ok(text)
}

/// Expands the inputs, finds their configs and drops excluded files. Missing paths and config
/// errors become error results (exit 2); config errors are printed once per config file.
fn collect_inputs(paths: &[PathBuf], run: &RunOptions) -> Result<(Vec<Input>, Vec<FileResult>), u8> {
    let stdin = paths.iter().filter(|p| p.as_os_str() == "-").count();
    if stdin > 1 {
        eprintln!("error: `-` (standard input) can be given once");
        return Err(exit::INPUT);
    }
    let files: Vec<PathBuf> = paths.iter().filter(|p| p.as_os_str() != "-").cloned().collect();
    let walk = crate::workflow::walk::expand(&files);
    let mut errors: Vec<FileResult> = walk
        .missing
        .iter()
        .map(|p| {
            let name = p.display().to_string();
            error_result(&FileError::input(&name, "file not found", Some("check the path")))
        })
        .collect();
    if !run.quiet {
        for s in &walk.skipped {
            eprintln!("warning: skipped: {s}");
        }
    }
    if run.verbose {
        for s in &walk.loops {
            eprintln!("note: not followed: {s}");
        }
    }
    let mut found: Vec<(PathBuf, bool, Option<String>)> =
        walk.files.into_iter().map(|f| (f.path, f.explicit, None)).collect();
    if stdin == 1 {
        let path = run.stdin_filename.clone().unwrap_or_else(|| PathBuf::from(STDIN_NAME));
        match read_stdin(&path.display().to_string()) {
            Ok(text) => found.push((path, true, Some(text))),
            Err(e) => errors.push(error_result(&e)),
        }
    }
    if found.is_empty() && errors.is_empty() {
        eprintln!("error: no .cu/.cuh files found in the given paths");
        return Err(exit::INPUT);
    }
    let cache = ConfigCache::new(run.config.clone(), run.no_config);
    let mut reported = BTreeSet::new();
    let mut out = Vec::new();
    for (f, explicit, stdin) in found {
        // Standard input without a name looks for a config from the working directory.
        let lookup = if f.as_os_str() == STDIN_NAME {
            PathBuf::from(".").join(STDIN_NAME)
        } else {
            f.clone()
        };
        match cache.for_file(&lookup) {
            Ok(Some(c)) if c.is_excluded(&lookup) && stdin.is_none() => {
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
                out.push(Input {
                    path: f,
                    config,
                    explicit,
                    stdin,
                });
            }
            Err(e) => {
                if reported.insert(e.path.clone()) {
                    eprintln!("{e}");
                }
                let mut r = error_result(&FileError::input(&f.display().to_string(), "bad config file", None));
                // Already printed once per config file above.
                r.messages.clear();
                errors.push(r);
            }
        }
    }
    Ok((out, errors))
}

fn color_on(choice: Color, terminal: bool) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// Runs `work` over the inputs on a rayon pool with a progress bar; results in input order.
fn process<F>(inputs: &[Input], run: &RunOptions, work: F) -> Vec<FileResult>
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
                    b.set_message(i.name());
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

/// Where the unit was read (JSON), and its front-end notes for `--verbose`.
fn describe_unit(res: &mut FileResult, unit: &SourceUnit, verbose: bool) {
    res.environment = unit.env.as_ref().map(|e| EnvironmentJson {
        clang: e.clang.display().to_string(),
        clang_version: e.clang_version,
        cuda: e.toolkit.as_ref().map(|t| CudaJson {
            version: t.version.to_string(),
            path: t.root.display().to_string(),
            source: t.source.clone(),
        }),
        arch: e.arch.clone(),
    });
    // Notes a verdict rests on are shown always; the others with --verbose.
    let shown = unit
        .notes
        .iter()
        .filter(|(_, n)| verbose || n.starts_with(crate::front::ASSUMPTION));
    res.messages.extend(shown.map(|(s, n)| {
        let at = if s.is_dummy() { res.file.clone() } else { unit.loc(*s) };
        format!("{at}: note: {n}")
    }));
}

fn error_result(e: &FileError) -> FileResult {
    FileResult {
        exit_code: e.exit_code,
        messages: vec![e.render()],
        error: Some(e.clone()),
        ..error_free(&e.file)
    }
}

fn error_free(file: &str) -> FileResult {
    FileResult {
        file: file.to_string(),
        kernels: vec![],
        changed: false,
        diff: String::new(),
        replacements: vec![],
        error: None,
        warnings: vec![],
        environment: None,
        exit_code: exit::OK,
        messages: vec![],
        stdout: String::new(),
    }
}

/// Prints the results and the summary in the chosen format; returns the exit code.
fn finish(command: &str, mut results: Vec<FileResult>, run: &RunOptions) -> u8 {
    results.sort_by(|a, b| a.file.cmp(&b.file));
    for r in &mut results {
        for k in &mut r.kernels {
            k.environment.clone_from(&r.environment);
        }
    }
    let format = run.format;
    let mut code = exit::OK;
    for r in &results {
        code = worst(code, r.exit_code);
    }
    if code == exit::OK && !results.is_empty() && results.iter().all(|r| r.kernels.is_empty()) {
        eprintln!("error: no __global__ kernel in the given paths");
        code = exit::INPUT;
    }
    let summary = Summary::of(&results, code);
    let human = matches!(format, Format::Text | Format::Concise);
    for r in &results {
        print!("{}", r.stdout);
        for m in &r.messages {
            // In machine formats only errors go to stderr; the rest is in the document.
            if r.error.is_some() || (human && !run.quiet) {
                eprintln!("{m}");
            }
        }
    }
    match format {
        Format::Text | Format::Concise => {
            if !run.quiet && (results.len() > 1 || run.verbose || summary.suppressed > 0) {
                let st = Style::new(color_on(run.color, std::io::stderr().is_terminal()));
                eprintln!("{}", st.bold(&summary.text(command == "fix")));
            }
        }
        Format::Github => {}
        Format::Json => {
            let errors: Vec<&FileError> = results.iter().filter_map(|r| r.error.as_ref()).collect();
            let doc = if command == "check" {
                let kernels: Vec<_> = results.iter().flat_map(|r| r.kernels.iter()).collect();
                let warnings: Vec<&Warning> = results.iter().flat_map(|r| r.warnings.iter()).collect();
                serde_json::json!({ "version": 1, "command": command, "kernels": kernels, "warnings": warnings, "errors": errors, "summary": summary })
            } else {
                serde_json::json!({ "version": 1, "command": command, "files": results, "errors": errors, "summary": summary })
            };
            println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        }
        Format::Sarif => {
            println!(
                "{}",
                serde_json::to_string_pretty(&crate::output::sarif::log(&results, code)).unwrap_or_default()
            );
        }
    }
    code
}

/// Loads an input: from its file, or the text read from standard input.
fn load(i: &Input, opts: &FrontOptions) -> Result<SourceUnit, front::FrontError> {
    match &i.stdin {
        Some(text) => front::lower_text(&i.path, text, opts),
        None => front::load(&i.path, opts),
    }
}

/// `autosync check`.
pub fn run_check(o: &CheckOptions) -> u8 {
    let (inputs, errors) = match collect_inputs(&o.paths, &o.run) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let style = Style::new(color_on(o.run.color, std::io::stdout().is_terminal()));
    let mut results = process(&inputs, &o.run, |i| check_one(i, o, style));
    results.extend(errors);
    finish("check", results, &o.run)
}

fn check_one(i: &Input, o: &CheckOptions, style: Style) -> FileResult {
    let file = i.name();
    let front_opts = front_options_for(&o.front, i.config.as_deref(), &i.path);
    let unit = match load(i, &front_opts) {
        Ok(u) => u,
        Err(e) => return error_result(&front_error(&file, None, &e)),
    };
    let mut res = error_free(&file);
    describe_unit(&mut res, &unit, o.run.verbose);
    if unit.kernels.is_empty() {
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
    res.warnings = suppression_warnings(&unit, &res.kernels, &sup, front_opts.kernel.is_some());
    render_warnings(&mut res, o.run.format, true);
    res
}

/// Warnings about suppression comments of the main file: unreadable ones, and ones that
/// suppress nothing. A comment is only called unused when the kernel it belongs to was checked
/// and concluded (an inconclusive kernel may hide the finding it suppresses); one outside every
/// kernel (in a called function) only when all kernels were.
fn suppression_warnings(
    unit: &SourceUnit,
    kernels: &[KernelResult],
    sup: &Suppressions,
    filtered: bool,
) -> Vec<Warning> {
    let tx = Texts { texts: &unit.texts };
    let path_of = |file: usize| {
        unit.kernels
            .first()
            .and_then(|k| k.files.get(file))
            .map(|f| f.path.clone())
            .unwrap_or_else(|| unit.path.display().to_string())
    };
    let at = |file: usize, line: u32, column: u32, end_column: u32| Location {
        file: path_of(file),
        line,
        column,
        end_line: line,
        end_column,
        text_index: file,
        bytes: (0, 0),
    };
    // Unreadable comments anywhere the unit reads (an included header's too: it is never
    // checked on its own).
    let mut out: Vec<Warning> = sup
        .problems
        .iter()
        .map(|p| Warning {
            rule: "invalid-suppression",
            location: at(p.file, p.line, p.column, p.end_column),
            message: p.message.clone(),
        })
        .collect();
    let used: BTreeSet<usize> = kernels
        .iter()
        .flat_map(|k| k.suppressed.iter())
        .filter_map(|d| d.suppressed_by.as_ref().and_then(|b| b.comment))
        .collect();
    let concluded = |name: &str| {
        kernels
            .iter()
            .find(|k| k.kernel == name)
            .is_some_and(|k| k.status != "inconclusive")
    };
    let all_concluded = !filtered && unit.kernels.iter().all(|k| concluded(&k.name));
    for (ci, c) in sup.comments.iter().enumerate() {
        if c.file != 0 || used.contains(&ci) {
            continue;
        }
        let owner = unit.kernels.iter().find(|k| {
            tx.location(k, k.span).is_some_and(|l| {
                if c.kernel_level {
                    (c.lines.0..=c.lines.1).contains(&l.line)
                } else {
                    (l.line..=l.end_line).contains(&c.line)
                }
            })
        });
        let decided = match owner {
            Some(k) => concluded(&k.name),
            None => all_concluded,
        };
        if decided {
            out.push(Warning {
                rule: "unused-suppression",
                location: at(0, c.line, c.column, c.end_column),
                message: format!("`{}` suppresses nothing (remove it)", c.text),
            });
        }
    }
    out.sort_by_key(|w| (w.location.text_index, w.location.line, w.location.column));
    out
}

/// Puts a file's warnings where its format shows them.
fn render_warnings(res: &mut FileResult, format: Format, check: bool) {
    for w in &res.warnings {
        let l = &w.location;
        match format {
            Format::Github => res.stdout.push_str(&diag::github_line(
                "warning",
                &l.file,
                Some((l.line, l.column, l.end_line, l.end_column)),
                w.rule,
                &w.message,
            )),
            Format::Text | Format::Concise => {
                let line = format!("{}:{}:{}: warning[{}]: {}", l.file, l.line, l.column, w.rule, w.message);
                if check {
                    res.stdout.push_str(&line);
                    res.stdout.push('\n');
                } else {
                    res.messages.push(line);
                }
            }
            Format::Json | Format::Sarif => {}
        }
    }
}

/// A file without kernels: an input error when the user named it, a note when a directory
/// search found it (headers have no kernels).
fn no_kernels(i: &Input, text: &str) -> FileResult {
    let what = if text.trim().is_empty() {
        "file is empty"
    } else {
        "no __global__ kernel in this file"
    };
    let file = i.name();
    if i.explicit {
        return error_result(&FileError::input(
            &file,
            what,
            Some("pass a .cu file that defines a __global__ kernel"),
        ));
    }
    let mut r = error_free(&file);
    r.messages.push(format!("{file}: note: {what}"));
    r
}

/// `autosync fix`.
pub fn run_fix(o: &FixRequest) -> u8 {
    let bad = |c: Option<f64>, ok: fn(f64) -> bool| c.is_some_and(|v| !(v.is_finite() && ok(v)));
    if bad(o.cost_loop, |v| v >= 1.0) || bad(o.cost_if, |v| v > 0.0) {
        eprintln!("error: --cost-loop must be >= 1 and --cost-if > 0");
        return exit::INPUT;
    }
    let (inputs, errors) = match collect_inputs(&o.paths, &o.run) {
        Ok(x) => x,
        Err(c) => return c,
    };
    let mut results = process(&inputs, &o.run, |i| fix_one(i, o));
    results.extend(errors);
    finish("fix", results, &o.run)
}

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

fn fix_one(i: &Input, o: &FixRequest) -> FileResult {
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
    if fixed.kernels.is_empty() {
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
fn stdin_echo(i: &Input, mut r: FileResult) -> FileResult {
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

/// A located record (`file:line:col`) of a front-end error, with its exit code; `texts` are the
/// unit's texts when the front end got that far.
pub fn front_error(path: &str, texts: Option<&[String]>, e: &FrontError) -> FileError {
    let (line, column) = if e.span.is_dummy() {
        (None, None)
    } else {
        let owned;
        let text = match texts.and_then(|t| t.get(e.span.file.0 as usize)) {
            Some(t) => t.as_str(),
            None => {
                owned = std::fs::read(path)
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                owned.as_str()
            }
        };
        let f = autosync_oracle::ir::SourceFile::new(path, text);
        let (l, c) = f.line_col(e.span.lo.min(text.len() as u32));
        (Some(l), Some(c))
    };
    let kind = match e.kind {
        FrontErrorKind::Input => "error",
        FrontErrorKind::Unsupported => "unsupported",
        FrontErrorKind::MissingValue => "needs a value",
    };
    FileError {
        file: path.to_string(),
        line,
        column,
        kind: kind.into(),
        message: e.message.clone(),
        help: e.help.clone(),
        exit_code: match e.kind {
            FrontErrorKind::Input => exit::INPUT,
            _ => exit::INCONCLUSIVE,
        },
    }
}
