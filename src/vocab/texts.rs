//! Source texts of one unit and places in them: spans turned into 1-based lines and columns
//! counted in Unicode code points (what SARIF calls `unicodeCodePoints`), right for non-ASCII
//! sources too.

use autosync_oracle::ir::{Kernel, SourceFile, Span};
use serde::Serialize;

/// A place in a source file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Path as given on the command line (or of the included file).
    pub file: String,
    /// 1-based line of the start.
    pub line: u32,
    /// 1-based column of the start (code points).
    pub column: u32,
    /// 1-based line of the end.
    pub end_line: u32,
    /// 1-based column one past the end (code points).
    pub end_column: u32,
    /// Index of the text in the unit (for snippets).
    #[serde(skip)]
    pub text_index: usize,
    /// Byte range in that text (for snippets).
    #[serde(skip)]
    pub bytes: (u32, u32),
}

/// Source texts of one unit, to turn spans into locations and show snippets.
pub struct Texts<'a> {
    /// Texts by file id.
    pub texts: &'a [String],
}

impl Texts<'_> {
    /// The line/column of a byte offset in text `file`.
    fn line_col(&self, file: usize, offset: u32) -> Option<(u32, u32)> {
        let t = self.texts.get(file)?;
        let off = (offset as usize).min(t.len());
        let off = (0..=off).rev().find(|&o| t.is_char_boundary(o)).unwrap_or(0);
        let before = &t[..off];
        let line = before.matches('\n').count() as u32 + 1;
        let start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        Some((line, before[start..].chars().count() as u32 + 1))
    }

    /// The location of a span of kernel `k` (None for synthesized spans).
    pub fn location(&self, k: &Kernel, span: Span) -> Option<Location> {
        self.location_in(&k.files, span)
    }

    /// The location of a span in the unit whose files are `files`.
    pub fn location_in(&self, files: &[SourceFile], span: Span) -> Option<Location> {
        if span.is_dummy() {
            return None;
        }
        let fi = span.file.0 as usize;
        let (line, column) = self.line_col(fi, span.lo)?;
        let (end_line, end_column) = self.line_col(fi, span.hi.max(span.lo))?;
        Some(Location {
            file: files.get(fi).map(|f| f.path.clone()).unwrap_or_default(),
            line,
            column,
            end_line,
            end_column,
            text_index: fi,
            bytes: (span.lo, span.hi.max(span.lo)),
        })
    }

    /// The text of 1-based `line` of text `file`, without its line ending.
    pub fn line_text(&self, file: usize, line: u32) -> Option<&str> {
        let t = self.texts.get(file)?;
        t.split('\n')
            .nth(line.checked_sub(1)? as usize)
            .map(|l| l.trim_end_matches('\r'))
    }
}
