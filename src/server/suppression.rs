//! "Suppress this finding": the suppression comment the command line honours
//! (`// autosync: ignore[RULE]`, docs/cli.md) written on the finding's line. A rule is added to
//! a directive already there; before a line's own `//` comment the directive is a `/* */`
//! comment (a `//` after it would be part of that comment). The edited text is read back with
//! the workflow's suppression parser: offered only if the directive there covers the rule.

use super::diagnostics::Finding;
use super::offer::{Offer, OfferKind};
use super::positions::Lines;
use crate::workflow::suppress::{comments, Suppressions};

/// The offer that suppresses finding `index` of `text`, if it can be suppressed.
pub fn suppress_offer(text: &str, findings: &[Finding], index: usize) -> Option<Offer> {
    let f = findings.get(index)?;
    let (rule, line) = f.suppress_at.as_ref()?;
    let edited = with_directive(text, *line, rule)?;
    if !covers(&edited, *line, rule) || problems(&edited) > problems(text) {
        return None;
    }
    Some(Offer {
        title: format!("Suppress this finding: // autosync: ignore[{rule}]"),
        text: edited,
        at: vec![f.diagnostic.range, Lines::new(text).line_range(*line)],
        fixes: vec![index],
        kind: OfferKind::Suppression,
    })
}

/// `text` with a directive for `rule` on 1-based `line`.
fn with_directive(text: &str, line: u32, rule: &str) -> Option<String> {
    let start: usize = text.split_inclusive('\n').take(line as usize - 1).map(str::len).sum();
    let full = text[start..].split_inclusive('\n').next()?;
    let body = full.trim_end_matches(['\n', '\r']);
    let end = start + body.len();
    let on_line: Vec<(usize, usize)> = comments(text)
        .into_iter()
        .filter(|&(lo, hi)| lo < end && hi > start)
        .collect();
    // A comment that began above or runs on below: no place to write a directive.
    if on_line.iter().any(|&(lo, hi)| lo < start || hi > end) {
        return None;
    }
    let (at, insert) = match on_line.iter().find(|&&(lo, hi)| is_directive(&text[lo..hi])) {
        Some(&(lo, hi)) => {
            let close = lo + text[lo..hi].find(']')?;
            (close, format!(", {rule}"))
        }
        None => match on_line.iter().find(|&&(lo, _)| text[lo..].starts_with("//")) {
            Some(&(lo, _)) => (lo, format!("/* autosync: ignore[{rule}] */ ")),
            None => (end, format!(" // autosync: ignore[{rule}]")),
        },
    };
    let mut out = text.to_string();
    out.insert_str(at, &insert);
    Some(out)
}

/// A line-level directive with a rule list (`ignore[...]`, not `ignore-kernel`).
fn is_directive(comment: &str) -> bool {
    let body = comment.trim_start_matches(['/', '*']).trim_start();
    body.strip_prefix("autosync:")
        .is_some_and(|r| r.trim_start().starts_with("ignore[") && comment.contains(']'))
}

fn covers(text: &str, line: u32, rule: &str) -> bool {
    let texts = [text.to_string()];
    Suppressions::new(&texts, vec![])
        .comments
        .iter()
        .any(|c| c.line == line && !c.kernel_level && c.rules.as_ref().is_none_or(|r| r.iter().any(|x| x == rule)))
}

fn problems(text: &str) -> usize {
    Suppressions::new(&[text.to_string()], vec![]).problems.len()
}

#[cfg(test)]
mod tests {
    use super::with_directive;

    #[test]
    fn directives_go_at_the_end_before_a_comment_or_into_the_one_there() {
        let t = "a;\n  s[t] = v;\n  x = s[t+1]; // reads\n  y = s[t]; // autosync: ignore[deadlock] why\n";
        let line = |l: u32| {
            with_directive(t, l, "race")
                .unwrap()
                .lines()
                .nth(l as usize - 1)
                .unwrap()
                .to_string()
        };
        assert_eq!(line(2), "  s[t] = v; // autosync: ignore[race]");
        assert_eq!(line(3), "  x = s[t+1]; /* autosync: ignore[race] */ // reads");
        assert_eq!(line(4), "  y = s[t]; // autosync: ignore[deadlock, race] why");
        assert_eq!(with_directive("/* a\n b */ x;\n", 1, "race"), None);
    }
}
