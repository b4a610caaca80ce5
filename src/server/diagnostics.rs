//! A file's `check` result as LSP diagnostics: one per finding (the rule as its code, the
//! CLI's severity, the witness and notes in the message, the other access of a race as related
//! information), suppressed findings as hints, warnings about suppression comments, and the
//! file's error where the CLI locates it. A finding in an included file is shown on the line
//! of the main file that reaches it, its own place as related information.

use super::positions::Lines;
use crate::output::defect::{Defect, Labeled, Severity};
use crate::output::results::{FileError, FileResult, KernelResult, Warning};
use crate::vocab::exit;
use crate::vocab::rules::check_rule;
use lsp_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, Location, NumberOrString, Range, Url,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One diagnostic and what a code action needs to know about it.
#[derive(Clone, Debug)]
pub struct Finding {
    /// What the editor shows.
    pub diagnostic: Diagnostic,
    /// Its rule and the 1-based main-file line where `// autosync: ignore[rule]` silences it
    /// (absent when it cannot be suppressed).
    pub suppress_at: Option<(String, u32)>,
    /// Its primary place in the main file, 1-based (line, column): how `fix`'s report of the
    /// same finding is recognised.
    pub at: Option<(u32, u32)>,
}

/// The source of every diagnostic.
pub const SOURCE: &str = "autosync";

/// The file a result is for, to tell its own locations from those of included files.
pub struct MainFile<'a> {
    /// Its path (what the results name it).
    pub path: &'a Path,
    /// Its URI.
    pub uri: &'a Url,
    /// The text that was checked.
    pub text: &'a str,
}

/// Every diagnostic of a file's `check` result.
pub fn findings(main: &MainFile, res: &FileResult) -> Vec<Finding> {
    let mut conv = Converter {
        main,
        lines: Lines::new(main.text),
        others: HashMap::new(),
    };
    let mut out = Vec::new();
    if let Some(e) = &res.error {
        out.push(conv.file_error(e));
    }
    for k in &res.kernels {
        for d in &k.defects {
            out.push(conv.defect(k, d, false));
        }
        for d in &k.suppressed {
            out.push(conv.defect(k, d, true));
        }
    }
    out.extend(res.warnings.iter().map(|w| conv.warning(w)));
    out
}

/// Turns autosync's locations into LSP ones, reading included files once for their columns.
struct Converter<'a> {
    main: &'a MainFile<'a>,
    lines: Lines<'a>,
    others: HashMap<String, String>,
}

impl Converter<'_> {
    fn is_main(&self, file: &str) -> bool {
        Path::new(file) == self.main.path
    }

    fn defect(&mut self, k: &KernelResult, d: &Defect, suppressed: bool) -> Finding {
        let mut message = d.message.clone();
        for n in &d.notes {
            message.push('\n');
            message.push_str(n);
        }
        let mut related: Vec<DiagnosticRelatedInformation> = d.related.iter().map(|l| self.related(l)).collect();
        let primary = d.primary.as_ref().filter(|p| p.location.text_index == 0);
        let range = match primary {
            Some(p) => self.main_range(p),
            None => {
                // Elsewhere (an included file) or nowhere: shown where the kernel reaches it.
                if let Some(p) = &d.primary {
                    related.insert(0, self.related(p));
                }
                let line = d.reached_from.first().copied().or(k.location.as_ref().map(|l| l.line));
                self.lines.line_range(line.unwrap_or(1))
            }
        };
        let severity = match (suppressed, d.severity) {
            (true, _) => DiagnosticSeverity::HINT,
            (false, Severity::Error) => DiagnosticSeverity::ERROR,
            (false, Severity::Warning) => DiagnosticSeverity::WARNING,
        };
        if let Some(by) = d.suppressed_by.as_ref().filter(|_| suppressed) {
            message = format!("suppressed by `{}`: {message}", by.text);
        }
        let suppress_at = primary
            .filter(|_| !suppressed && check_rule(&d.rule).is_ok())
            .map(|p| (d.rule.clone(), p.location.line));
        Finding {
            diagnostic: diagnostic(range, severity, &d.rule, message, related),
            suppress_at,
            at: primary.map(|p| (p.location.line, p.location.column)),
        }
    }

    fn warning(&mut self, w: &Warning) -> Finding {
        let l = &w.location;
        let mut d = diagnostic(
            self.lines.range((l.line, l.column), (l.end_line, l.end_column)),
            DiagnosticSeverity::WARNING,
            w.rule,
            w.message.clone(),
            vec![],
        );
        if w.rule == "unused-suppression" {
            d.tags = Some(vec![DiagnosticTag::UNNECESSARY]);
        }
        Finding {
            diagnostic: d,
            suppress_at: None,
            at: None,
        }
    }

    /// A file that could not be checked: at the error's place when it is in the main file, else
    /// at the file's start with the place (an included file) as related information.
    fn file_error(&mut self, e: &FileError) -> Finding {
        let mut message = format!("{}: {}", e.kind, e.message);
        if let Some(h) = &e.help {
            message.push_str(&format!("\nhelp: {h}"));
        }
        let at = e.line.zip(e.column);
        let mut related = vec![];
        let range = match at {
            Some((l, c)) if self.is_main(&e.file) => self.lines.range((l, c), (l, c + 1)),
            Some((l, c)) => {
                let text = self.other_text(&e.file);
                let pos = Lines::new(&text).position(l, c);
                related.push(DiagnosticRelatedInformation {
                    location: Location::new(file_url(&e.file), Range::new(pos, pos)),
                    message: format!("{}:{l}:{c}", e.file),
                });
                self.lines.line_range(1)
            }
            None => self.lines.line_range(1),
        };
        let severity = if e.exit_code == exit::INPUT {
            DiagnosticSeverity::ERROR
        } else {
            DiagnosticSeverity::WARNING
        };
        Finding {
            diagnostic: diagnostic(range, severity, &e.kind, message, related),
            suppress_at: None,
            at: None,
        }
    }

    fn main_range(&self, p: &Labeled) -> Range {
        let l = &p.location;
        self.lines.range((l.line, l.column), (l.end_line, l.end_column))
    }

    fn related(&mut self, p: &Labeled) -> DiagnosticRelatedInformation {
        let l = &p.location;
        let (uri, range) = if l.text_index == 0 {
            (self.main.uri.clone(), self.main_range(p))
        } else {
            let text = self.other_text(&l.file);
            let lines = Lines::new(&text);
            (
                file_url(&l.file),
                lines.range((l.line, l.column), (l.end_line, l.end_column)),
            )
        };
        DiagnosticRelatedInformation {
            location: Location::new(uri, range),
            message: p.label.clone(),
        }
    }

    /// An included file's text (empty when unreadable: columns then count from the start).
    fn other_text(&mut self, file: &str) -> String {
        self.others
            .entry(file.to_string())
            .or_insert_with(|| std::fs::read_to_string(file).unwrap_or_default())
            .clone()
    }
}

fn diagnostic(
    range: Range,
    severity: DiagnosticSeverity,
    code: &str,
    message: String,
    related: Vec<DiagnosticRelatedInformation>,
) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(code.to_string())),
        source: Some(SOURCE.to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..Default::default()
    }
}

/// The URI of a path autosync names (relative paths are relative to the working directory).
pub fn file_url(file: &str) -> Url {
    let p = PathBuf::from(file);
    let abs = std::path::absolute(&p).unwrap_or(p);
    Url::from_file_path(&abs).unwrap_or_else(|()| Url::parse("file:///").expect("a valid URL"))
}

/// A check that failed inside autosync (a bug): said on the file's first line, not hidden.
pub fn internal_error(text: &str, what: &str) -> Finding {
    let message = format!("autosync failed on this file (please report it): {what}");
    at_start(text, "internal-error", message)
}

/// A file the server could not read, as `check` reports one (an input error).
pub fn cannot_read(path: &Path, e: &std::io::Error) -> Finding {
    at_start("", "error", format!("error: cannot read {}: {e}", path.display()))
}

/// An error about the whole file, on its first line.
fn at_start(text: &str, code: &str, message: String) -> Finding {
    Finding {
        diagnostic: diagnostic(
            Lines::new(text).line_range(1),
            DiagnosticSeverity::ERROR,
            code,
            message,
            vec![],
        ),
        suppress_at: None,
        at: None,
    }
}
