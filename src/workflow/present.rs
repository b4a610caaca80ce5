//! The end of a run: every file's output and messages, the closing summary or the JSON or
//! SARIF document, and the run's exit code.

use super::options::{Color, Format, RunOptions};
use crate::output::diag::Style;
use crate::output::results::{FileError, FileResult, Summary, Warning};
use crate::vocab::exit::{self, worst};
use std::io::IsTerminal;

pub(super) fn color_on(choice: Color, terminal: bool) -> bool {
    match choice {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// Prints the results and the summary in the chosen format; returns the exit code.
pub(super) fn finish(command: &str, mut results: Vec<FileResult>, run: &RunOptions) -> u8 {
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
    // A directory search that finds no kernel anywhere is most likely the wrong path; a file
    // the user named that holds only host code was noted as such.
    let nothing_found = |r: &FileResult| r.kernels.is_empty() && !r.kernel_free;
    if code == exit::OK && !results.is_empty() && results.iter().all(nothing_found) {
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
