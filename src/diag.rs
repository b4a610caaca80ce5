//! Text diagnostics: a defect with source snippets, each location underlined and labelled
//! (both accesses of a race), followed by the witness; optional ANSI colour.

use crate::results::{Defect, KernelResult, Labeled, Severity, Texts};

/// Colours for the terminal (all empty when colour is off).
#[derive(Clone, Copy, Debug)]
pub struct Style {
    on: bool,
}

impl Style {
    /// Colour on or off.
    pub fn new(on: bool) -> Self {
        Style { on }
    }
    fn paint(&self, code: &str, s: &str) -> String {
        if self.on {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }
    /// Bold red.
    pub fn error(&self, s: &str) -> String {
        self.paint("1;31", s)
    }
    /// Bold yellow.
    pub fn warning(&self, s: &str) -> String {
        self.paint("1;33", s)
    }
    /// Bold blue (gutters, line numbers).
    pub fn gutter(&self, s: &str) -> String {
        self.paint("1;34", s)
    }
    /// Bold (headlines).
    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    /// Green (success).
    pub fn good(&self, s: &str) -> String {
        self.paint("32", s)
    }
}

/// Renders one defect with its snippets.
pub fn render_defect(out: &mut String, d: &Defect, tx: &Texts, st: Style) {
    let sev = match d.severity {
        Severity::Error => st.error("error"),
        Severity::Warning => st.warning("warning"),
    };
    out.push_str(&format!("{sev}[{}]: {}\n", d.rule, st.bold(&d.message)));
    let mut labels: Vec<&Labeled> = d.primary.iter().chain(d.related.iter()).collect();
    if let Some(p) = labels.first() {
        out.push_str(&format!(
            "  {} {}:{}:{}\n",
            st.gutter("-->"),
            p.location.file,
            p.location.line,
            p.location.column
        ));
    }
    // Snippets in source order, grouped by file so a jump between files is visible.
    labels.sort_by_key(|l| (l.location.text_index, l.location.line, l.location.column));
    let width = labels
        .iter()
        .map(|l| l.location.line.to_string().len())
        .max()
        .unwrap_or(1);
    let pad = " ".repeat(width);
    if !labels.is_empty() {
        out.push_str(&format!("  {pad} {}\n", st.gutter("|")));
    }
    let mut last: Option<(usize, u32)> = None;
    for l in &labels {
        let loc = &l.location;
        let Some(text) = tx.line_text(loc.text_index, loc.line) else {
            continue;
        };
        let here = (loc.text_index, loc.line);
        if last.is_some_and(|(f, _)| f != loc.text_index) {
            out.push_str(&format!("  {pad} {} {}:\n", st.gutter("::"), loc.file));
        }
        if last != Some(here) {
            if last.is_some_and(|(f, n)| f == loc.text_index && loc.line > n + 1) {
                out.push_str(&format!("  {}\n", st.gutter(&format!("{:>width$}", "..."))));
            }
            let num = format!("{:>width$}", loc.line);
            out.push_str(&format!("  {} {} {text}\n", st.gutter(&num), st.gutter("|")));
        }
        last = Some(here);
        let line_len = text.chars().count() as u32;
        let start = loc.column.saturating_sub(1).min(line_len);
        let end = if loc.end_line == loc.line {
            loc.end_column.saturating_sub(1).min(line_len)
        } else {
            line_len
        };
        let carets = "^".repeat(end.saturating_sub(start).max(1) as usize);
        // Keep tabs so the carets line up under tab-indented code.
        let lead: String = text
            .chars()
            .take(start as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        let mark = match d.severity {
            Severity::Error => st.error(&format!("{carets} {}", l.label)),
            Severity::Warning => st.warning(&format!("{carets} {}", l.label)),
        };
        out.push_str(&format!("  {pad} {} {lead}{mark}\n", st.gutter("|")));
    }
    for n in &d.notes {
        out.push_str(&format!("  {pad} {} {n}\n", st.gutter("=")));
    }
}

/// Renders a `check` kernel result: a headline and every defect.
pub fn render_check(k: &KernelResult, tx: &Texts, st: Style) -> String {
    let loc = k
        .location
        .as_ref()
        .map(|l| format!("{}:{}:{}", l.file, l.line, l.column))
        .unwrap_or_else(|| k.file.clone());
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    let benign = k
        .defects
        .iter()
        .filter(|d| d.rule == "benign-race" && d.severity == Severity::Warning)
        .count();
    let benign_note = if benign > 0 {
        st.warning(&format!(" ({benign} benign race{} warned)", plural(benign)))
    } else {
        String::new()
    };
    let summary = match k.status.as_str() {
        "clean" => format!("{}{benign_note}", st.good("clean")),
        "inconclusive" => st.warning("inconclusive"),
        _ => {
            let races = k.races;
            let race_defects = k
                .defects
                .iter()
                .filter(|d| d.rule == "race" || d.rule == "benign-race")
                .count();
            let others = k.defects.len() - race_defects;
            let mut parts = Vec::new();
            if races > 0 {
                parts.push(format!("{races} race{}", plural(races)));
            }
            if others > 0 {
                parts.push(format!("{others} other defect{}", plural(others)));
            }
            format!("{}{benign_note}", st.error(&parts.join(", ")))
        }
    };
    let mut out = format!("{loc}: kernel `{}` ({} checker): {summary}\n", k.kernel, k.checker);
    for d in &k.defects {
        render_defect(&mut out, d, tx, st);
    }
    out
}
