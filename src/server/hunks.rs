//! The change from one text to another as line hunks: what a code action's workspace edit
//! holds (its text edits), what a single-barrier candidate applies alone, and how a line of
//! the changed text maps back to the original.

use super::positions::Lines;
use lsp_types::{Position, Range, TextEdit};
use std::ops::Range as Span;

/// Lines `old` of the original replaced by `text` (lines `new` of the changed text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// 0-based original lines replaced.
    pub old: Span<usize>,
    /// 0-based lines of the changed text that replace them.
    pub new: Span<usize>,
    /// Those lines' text, line endings included.
    pub text: String,
}

/// The hunks that turn `old` into `new`, in text order; neighbouring changes merge into one.
pub fn hunks(old: &str, new: &str) -> Vec<Hunk> {
    let diff = similar::TextDiff::from_lines(old, new);
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    diff.grouped_ops(0)
        .iter()
        .filter_map(|group| {
            let (first, last) = (group.first()?, group.last()?);
            let old = first.old_range().start..last.old_range().end;
            let new = first.new_range().start..last.new_range().end;
            let text = new_lines[new.start.min(new_lines.len())..new.end.min(new_lines.len())].concat();
            Some(Hunk { old, new, text })
        })
        .collect()
}

/// `old` with only `chosen` applied (each a hunk of `old`, in text order).
pub fn apply(old: &str, chosen: &[&Hunk]) -> String {
    let lines: Vec<&str> = old.split_inclusive('\n').collect();
    let mut out = String::with_capacity(old.len());
    let mut at = 0;
    for h in chosen {
        out.extend(lines[at.min(lines.len())..h.old.start.min(lines.len())].iter().copied());
        out.push_str(&h.text);
        at = h.old.end;
    }
    out.extend(lines[at.min(lines.len())..].iter().copied());
    out
}

/// The text edits of `hunks` of `old`, as a workspace edit holds them.
pub fn text_edits(old: &str, hunks: &[&Hunk]) -> Vec<TextEdit> {
    let index = Lines::new(old);
    let count = old.split_inclusive('\n').count();
    let start_of = |line: usize| -> Position {
        if line < count {
            Position::new(line as u32, 0)
        } else {
            // Past the last line: the end of the text (a last line without `\n` included).
            let last = old.rsplit('\n').next().unwrap_or("");
            index.position(old.split('\n').count() as u32, last.chars().count() as u32 + 1)
        }
    };
    hunks
        .iter()
        .map(|h| TextEdit::new(Range::new(start_of(h.old.start), start_of(h.old.end)), h.text.clone()))
        .collect()
}

/// The original 1-based line of 1-based `line` of the text `hunk` alone made (`apply` with
/// only it), or `None` for a line the hunk wrote.
pub fn original_line(hunk: &Hunk, line: u32) -> Option<u32> {
    let l = line.checked_sub(1)? as usize;
    // Alone, the hunk's lines start where the original lines it replaces started.
    let written = hunk.old.start..hunk.old.start + hunk.new.len();
    if l < written.start {
        Some(line)
    } else if l >= written.end {
        Some((l - written.end + hunk.old.end) as u32 + 1)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a client does with text edits: replace each range, last first.
    fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
        let offset = |p: Position| -> usize {
            let line_start: usize = text.split_inclusive('\n').take(p.line as usize).map(str::len).sum();
            line_start + p.character as usize
        };
        let mut out = text.to_string();
        for e in edits.iter().rev() {
            out.replace_range(offset(e.range.start)..offset(e.range.end), &e.new_text);
        }
        out
    }

    #[test]
    fn edits_turn_the_old_text_into_the_new_one() {
        let cases = [
            ("a\nb\nc\n", "a\nx\nb\nc\ny\n"),
            ("a\nb\nc", "a\nc"),
            ("a\nb", "a\nb\nc"),
            ("{\n  s;\n}\n", "{\n  s;\n  __syncthreads();\n}\n"),
        ];
        for (old, new) in cases {
            let hs = hunks(old, new);
            let all: Vec<&Hunk> = hs.iter().collect();
            assert_eq!(apply(old, &all), new);
            assert_eq!(apply_edits(old, &text_edits(old, &all)), new, "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn one_hunk_alone_and_its_line_map() {
        let old = "a\nb\nc\n";
        let hs = hunks(old, "x\na\nb\nc\ny\n");
        assert_eq!(hs.len(), 2);
        assert_eq!(apply(old, &[&hs[1]]), "a\nb\nc\ny\n");
        let first = apply(old, &[&hs[0]]);
        assert_eq!(first, "x\na\nb\nc\n");
        assert_eq!(original_line(&hs[0], 1), None);
        assert_eq!(original_line(&hs[0], 3), Some(2));
        assert_eq!(original_line(&hs[1], 2), Some(2));
        assert_eq!(original_line(&hs[1], 4), None);
    }
}
