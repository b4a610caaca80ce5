//! Human and CI renderings of results: diagnostics with source snippets (drawn by
//! `annotate-snippets`, the renderer of rustc and cargo), one line per finding (`concise`),
//! GitHub Actions workflow commands (`github`), and what `fix` says per kernel.

use super::defect::{Defect, Severity};
use super::fixes::KernelFix;
use super::results::KernelResult;
use crate::vocab::rules::{BENIGN_RACE, LAYOUT_RACE};
use crate::vocab::texts::Texts;
use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};

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
    /// Bold (headlines).
    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }
    /// Green (success).
    pub fn good(&self, s: &str) -> String {
        self.paint("32", s)
    }
}

fn level(s: Severity) -> Level<'static> {
    match s {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    }
}

/// Renders one defect: headline, a snippet per file with every location underlined and
/// labelled, then its notes.
pub fn render_defect(out: &mut String, d: &Defect, tx: &Texts, st: Style) {
    let mut group = Group::with_title(level(d.severity).primary_title(d.message.as_str()).id(d.rule.as_str()));
    let mut files: Vec<usize> = d.locations().map(|l| l.location.text_index).collect();
    files.dedup();
    let mut first = true;
    let mut unshown = Vec::new();
    for fi in files {
        let text = tx.texts.get(fi).map_or("", String::as_str);
        // A range the text does not hold (no text for its file, say) is named, not drawn: the
        // renderer panics on it.
        let (here, gone): (Vec<_>, Vec<_>) = d
            .locations()
            .filter(|l| l.location.text_index == fi)
            .partition(|l| fits(text, l.location.bytes));
        unshown.extend(gone.iter().map(|l| {
            let at = &l.location;
            format!("{}: {}:{}:{}", l.label, at.file, at.line, at.column)
        }));
        if here.is_empty() {
            continue;
        }
        // Only the lines the annotations touch go to the renderer (it folds the ones between).
        let lo = here.iter().map(|l| l.location.bytes.0 as usize).min().unwrap_or(0);
        let hi = here.iter().map(|l| l.location.bytes.1 as usize).max().unwrap_or(0);
        let start = text[..lo.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
        let end = text[hi.min(text.len())..].find('\n').map_or(text.len(), |i| hi + i);
        let line_start = text[..start].matches('\n').count() + 1;
        let mut snippet = Snippet::source(&text[start..end])
            .line_start(line_start)
            .path(here[0].location.file.as_str());
        for l in &here {
            let kind = if first {
                AnnotationKind::Primary
            } else {
                AnnotationKind::Context
            };
            first = false;
            let (a, b) = (l.location.bytes.0 as usize - start, l.location.bytes.1 as usize - start);
            snippet = snippet.annotation(kind.span(a..b.max(a)).label(l.label.as_str()));
        }
        group = group.element(snippet);
    }
    for n in unshown.iter().chain(&d.notes) {
        group = group.element(Level::NOTE.message(n.as_str()));
    }
    let report: Vec<Group> = vec![group];
    let renderer = if st.on { Renderer::styled() } else { Renderer::plain() };
    out.push_str(&renderer.render(&report));
    out.push('\n');
}

/// Whether the byte range lies in `text` on character boundaries.
fn fits(text: &str, (a, b): (u32, u32)) -> bool {
    let (a, b) = (a as usize, b as usize);
    a <= b && b <= text.len() && text.is_char_boundary(a) && text.is_char_boundary(b)
}

fn plural(n: usize, w: &str) -> String {
    format!("{n} {w}{}", if n == 1 { "" } else { "s" })
}

/// Renders a `check` kernel result: a headline, every defect, and a line per suppressed finding.
pub fn render_check(k: &KernelResult, tx: &Texts, st: Style) -> String {
    let loc = k
        .location
        .as_ref()
        .map(|l| format!("{}:{}:{}", l.file, l.line, l.column))
        .unwrap_or_else(|| k.file.clone());
    let benign = k
        .defects
        .iter()
        .filter(|d| d.rule == BENIGN_RACE.id && d.races.is_empty())
        .count();
    let layout = k
        .defects
        .iter()
        .filter(|d| d.rule == LAYOUT_RACE.id && d.races.is_empty())
        .count();
    let mut summary = match k.status.as_str() {
        "clean" => st.good("clean"),
        "inconclusive" => st.warning("inconclusive"),
        _ => {
            let races = k.races;
            let others = k.defects.len() - benign - layout - k.defects.iter().filter(|d| !d.races.is_empty()).count();
            let mut parts = Vec::new();
            if races > 0 {
                parts.push(plural(races, "race"));
            }
            if others > 0 {
                parts.push(plural(others, "other defect"));
            }
            st.error(&parts.join(", "))
        }
    };
    if benign > 0 {
        summary.push_str(&st.warning(&format!(" ({} warned)", plural(benign, "benign race"))));
    }
    if layout > 0 {
        summary.push_str(&st.warning(&format!(" ({} warned)", plural(layout, "layout race"))));
    }
    if !k.suppressed.is_empty() {
        summary.push_str(&format!(" ({} suppressed)", k.suppressed.len()));
    }
    let by = match k.checker.as_str() {
        "front end" => "not lowered".to_string(),
        c => format!("{c} checker"),
    };
    let mut out = format!("{loc}: kernel `{}` ({by}): {summary}\n", k.kernel);
    for d in &k.defects {
        render_defect(&mut out, d, tx, st);
    }
    for d in &k.suppressed {
        out.push_str(&suppressed_line(d));
        out.push('\n');
    }
    out
}

/// `k.cu:12:5: note[race]: suppressed by `// autosync: ignore[race]` at k.cu:12: data race ...`
pub fn suppressed_line(d: &Defect) -> String {
    let at = d
        .primary
        .as_ref()
        .map(|p| format!("{}:{}:{}", p.location.file, p.location.line, p.location.column))
        .unwrap_or_default();
    let by = d.suppressed_by.as_ref().map(|b| b.describe()).unwrap_or_default();
    format!("{at}: note[{}]: suppressed by {by}: {}", d.rule, d.message)
}

/// One line per defect: `file:line:col: error[rule]: message`.
pub fn concise(k: &KernelResult) -> String {
    let mut out = String::new();
    for d in &k.defects {
        let at = match &d.primary {
            Some(p) => format!("{}:{}:{}", p.location.file, p.location.line, p.location.column),
            None => k.file.clone(),
        };
        out.push_str(&format!("{at}: {}[{}]: {}\n", d.severity.word(), d.rule, d.message));
    }
    out
}

/// Escapes the message of a workflow command.
fn gh_data(s: &str) -> String {
    s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a property value of a workflow command.
fn gh_prop(s: &str) -> String {
    gh_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// One GitHub Actions workflow command: `::error file=F,line=L,col=C,endLine=E,endColumn=X,title=T::message`.
pub fn github_line(level: &str, file: &str, at: Option<(u32, u32, u32, u32)>, rule: &str, message: &str) -> String {
    let mut props = vec![format!("file={}", gh_prop(file))];
    if let Some((line, col, end_line, end_col)) = at {
        props.push(format!("line={line}"));
        props.push(format!("col={col}"));
        props.push(format!("endLine={end_line}"));
        if end_line == line {
            props.push(format!("endColumn={end_col}"));
        }
    }
    props.push(format!("title={}", gh_prop(&format!("autosync {rule}"))));
    format!("::{level} {}::{}\n", props.join(","), gh_data(message))
}

fn github_defect(d: &Defect, file: &str) -> String {
    let at = d.primary.as_ref().map(|p| {
        (
            p.location.line,
            p.location.column,
            p.location.end_line,
            p.location.end_column,
        )
    });
    let path = d.primary.as_ref().map_or(file, |p| p.location.file.as_str());
    let mut message = d.message.clone();
    for n in &d.notes {
        message.push('\n');
        message.push_str(n);
    }
    github_line(d.severity.word(), path, at, &d.rule, &message)
}

/// `check --format github`: an annotation per defect.
pub fn github_check(k: &KernelResult) -> String {
    k.defects.iter().map(|d| github_defect(d, &k.file)).collect()
}

/// `fix --format github`: where a barrier goes (an error when the run only looked, a notice
/// when it wrote the file), and the defects of kernels it could not fix.
pub fn github_fix(k: &KernelResult, dry: bool) -> String {
    let mut out = String::new();
    for b in &k.barriers {
        let stmt = b.text.lines().next().unwrap_or_default();
        let what = if b.covers.is_empty() {
            b.shares.join(", ")
        } else {
            b.covers.join(", ")
        };
        let (level, verb) = if dry {
            ("error", "missing barrier: `autosync fix` inserts")
        } else {
            ("notice", "autosync inserted")
        };
        out.push_str(&github_line(
            level,
            &k.file,
            Some((b.original_line, 1, b.original_line, 1)),
            "missing-barrier",
            &format!("{verb} `{stmt}` before this line (orders races {what})"),
        ));
    }
    if matches!(k.status.as_str(), "unfixable" | "inconclusive" | "partial") {
        for d in &k.defects {
            out.push_str(&github_defect(d, &k.file));
        }
        for r in &k.reasons {
            out.push_str(&github_line(
                "error",
                &k.file,
                k.location.as_ref().map(|l| (l.line, l.column, l.line, l.column)),
                &k.status,
                &format!("kernel `{}` is {}: {r}", k.kernel, k.status),
            ));
        }
    }
    out
}

/// A cost with at most 4 decimals (`100`, `0.5`, `0.0833`).
fn fmt_cost(c: f64) -> String {
    let s = format!("{c:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A named barrier's ID(s) and count as the text says them: `ID 1, 64 threads`.
fn named_words(b: &super::results::Barrier) -> String {
    if b.kind != "named" {
        return String::new();
    }
    let ids = match (b.ids.first(), b.ids.last()) {
        (Some(a), Some(z)) if a != z => format!("IDs {a}-{z}"),
        _ => format!("ID {}", b.id),
    };
    match b.count {
        Some(n) => format!("{ids}, {n} threads, "),
        None => format!("{ids}, "),
    }
}

/// What `check --stats` counts for a kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckCounts {
    /// Solver queries the checker asked.
    pub queries: u64,
    /// Conflict queries the injectivity test settled without the solver.
    pub injective: u64,
    /// Conflict queries the GCD test settled without the solver.
    pub divisible: u64,
}

/// The stderr line `check --stats` prints for one kernel: its checker, solver queries, the
/// conflict queries settled without the solver and the time (a cached answer's counts are those
/// of the check that made it).
pub fn check_stats(file: &str, kernel: &str, checker: &str, c: CheckCounts, millis: f64, cached: bool) -> String {
    let source = if cached { " (from the cache)" } else { "" };
    format!(
        "{file}: kernel `{kernel}`: {checker} checker, {} solver queries, {} settled without the solver ({} by injectivity, {} by divisibility), {millis:.1} ms{source}",
        c.queries,
        c.injective + c.divisible,
        c.injective,
        c.divisible
    )
}

/// The stderr lines `fix` prints for one kernel in text mode.
pub fn fix_messages(out: &mut Vec<String>, file: &str, k: &KernelFix, kr: &KernelResult, dry: bool, stats: bool) {
    let verb = if dry { "would insert" } else { "inserted" };
    for b in &kr.barriers {
        let mut what = Vec::new();
        if !b.covers.is_empty() {
            what.push(format!(
                "removes {}: {}",
                plural(b.covers.len(), "race"),
                b.covers.join(", ")
            ));
        }
        if !b.shares.is_empty() {
            let lines: Vec<String> = b.shared_with.iter().map(u32::to_string).collect();
            let s = if lines.len() == 1 { "" } else { "s" };
            what.push(format!(
                "orders {} together with the barrier{s} at line{s} {}",
                b.shares.join(", "),
                lines.join(", ")
            ));
        }
        let what = if what.is_empty() {
            String::new()
        } else {
            format!("; {}", what.join("; "))
        };
        out.push(format!(
            "{file}:{}: {verb} {} ({}cost {}{what})",
            b.line,
            b.text.lines().next().unwrap_or_default().trim_end_matches(';'),
            named_words(b),
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
        for r in &kr.reasons {
            out.push(format!("  {r}"));
        }
    }
    if k.status == "partial" {
        let n = kr.reasons.len();
        out.push(format!(
            "{file}: kernel `{}`: {} the barriers that fix what barriers can; {} remain{}:",
            k.kernel,
            if dry { "would write" } else { "wrote" },
            plural(n, "race"),
            if n == 1 { "s" } else { "" }
        ));
        for r in &kr.reasons {
            out.push(format!("  {r}"));
        }
    }
    for d in &kr.suppressed {
        out.push(suppressed_line(d));
    }
    if stats {
        out.push(format!(
            "{file}: kernel `{}`: {} oracle calls, {} MaxSAT calls, {} rounds, {:.1} ms",
            k.kernel, k.stats.oracle_calls, k.stats.maxsat_calls, k.stats.rounds, k.stats.millis
        ));
    }
}

/// `fix`'s lines for a kernel the front end could not lower: left as it is, and why.
pub fn unlowered_fix_lines(kr: &KernelResult) -> Vec<String> {
    let loc = |l: &crate::vocab::texts::Location| format!("{}:{}:{}", l.file, l.line, l.column);
    let at = kr.location.as_ref().map_or_else(|| kr.file.clone(), loc);
    let mut out = vec![format!("{at}: kernel `{}` is inconclusive; left as it is", kr.kernel)];
    for d in &kr.defects {
        let at = d.primary.as_ref().map_or_else(|| kr.file.clone(), |p| loc(&p.location));
        out.push(format!("  {at}: {}", d.message));
        out.extend(d.notes.iter().map(|n| format!("  {n}")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A location whose bytes its text does not hold is named in a note, never drawn (the
    /// renderer would panic on it).
    #[test]
    fn a_location_outside_its_text_is_named_not_drawn() {
        let mut d = Defect::plain(&crate::vocab::rules::INCONCLUSIVE);
        d.message = "needs a value".into();
        use super::super::defect::Labeled;
        use crate::vocab::texts::Location;
        let at = |bytes, text_index| Labeled {
            location: Location {
                file: "h.cuh".into(),
                line: 7,
                column: 1,
                end_line: 7,
                end_column: 2,
                text_index,
                bytes,
            },
            label: "needs a value".into(),
        };
        d.primary = Some(at((19780, 30897), 1));
        d.related = vec![at((0, 1), 0)];
        let texts = vec!["x\n".to_string(), String::new()];
        let mut out = String::new();
        render_defect(&mut out, &d, &Texts { texts: &texts }, Style::new(false));
        assert!(out.contains("needs a value: h.cuh:7:1"), "{out}");
    }

    #[test]
    fn github_commands_escape_properties_and_data() {
        let l = github_line("error", "a,b:c.cu", Some((3, 5, 3, 9)), "race", "50% done\nnext");
        assert_eq!(
            l,
            "::error file=a%2Cb%3Ac.cu,line=3,col=5,endLine=3,endColumn=9,title=autosync race::50%25 done%0Anext\n"
        );
    }
}
