//! Text edits and what emission is asked to write: an [`Edit`] replaces bytes of file 0, a
//! [`Fix`] is a sorted set of them, an [`Insertion`] is a barrier statement at an IR position.

use autosync_oracle::ir::Span;
use autosync_oracle::tree::Position;
use std::fmt;

/// One text change in file 0: delete `delete` bytes at `offset`, then insert `insert` there.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Edit {
    /// Byte offset in the original text.
    pub offset: usize,
    /// Number of original bytes replaced.
    pub delete: usize,
    /// Replacement text.
    pub insert: String,
    /// The barrier statements `insert` writes, in text order (what emission knows; not part
    /// of the edit's serialized form).
    #[serde(skip)]
    pub barriers: Vec<Placed>,
}

impl Edit {
    /// An edit that writes no barrier statement.
    pub fn text(offset: usize, delete: usize, insert: String) -> Edit {
        Edit {
            offset,
            delete,
            insert,
            barriers: vec![],
        }
    }
}

/// Where an edit writes a barrier statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    /// Byte offset in the edit's `insert` where the statement's first line starts (its
    /// indentation included); every barrier statement starts a line of its own.
    pub at: usize,
    /// Byte offset in the original text where that line goes in: the original text after it
    /// starts there.
    pub origin: usize,
}

/// A set of edits for one file: sorted by offset and non-overlapping.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fix {
    /// The edits, in increasing offset order.
    pub edits: Vec<Edit>,
}

impl Fix {
    /// Whether the fix changes nothing.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }
}

/// The statement written for a barrier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BarrierText {
    /// `__syncthreads();`
    SyncThreads,
    /// Any other statement text, e.g. an inline-PTX named barrier or the kernel's own helper.
    Custom(String),
}

impl BarrierText {
    /// The statement text (possibly several lines, without indentation).
    pub fn text(&self) -> &str {
        match self {
            BarrierText::SyncThreads => "__syncthreads();",
            BarrierText::Custom(s) => s,
        }
    }
}

/// One barrier to write at a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Insertion {
    /// Where, in IR terms.
    pub pos: Position,
    /// What to write.
    pub text: BarrierText,
    /// Optional trailing `// comment` (`--annotate`): which races the barrier removes.
    pub comment: Option<String>,
}

/// Why a set of insertions cannot be written into the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmitError {
    /// The position that could not be emitted, when there is one.
    pub pos: Option<Position>,
    /// The source span involved, when known.
    pub span: Option<Span>,
    /// What is wrong.
    pub message: String,
}

impl EmitError {
    pub(super) fn at(pos: Position, span: Option<Span>, message: impl Into<String>) -> Self {
        EmitError {
            pos: Some(pos),
            span,
            message: message.into(),
        }
    }
}

impl fmt::Display for EmitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EmitError {}

/// Applies a fix to the text it was planned for. Edits that fall outside the text, split a
/// UTF-8 character or overlap an earlier edit are skipped (`plan` never produces them).
pub fn apply(src: &str, fix: &Fix) -> String {
    apply_placed(src, fix).0
}

/// [`apply`], and where the applied edits' barrier statements are in its result (`at` an
/// offset into the result, `origin` kept).
pub(super) fn apply_placed(src: &str, fix: &Fix) -> (String, Vec<Placed>) {
    let extra: usize = fix.edits.iter().map(|e| e.insert.len()).sum();
    let mut out = String::with_capacity(src.len() + extra);
    let mut placed = Vec::new();
    let mut cursor = 0;
    for e in &fix.edits {
        let end = e.offset.saturating_add(e.delete);
        let valid =
            e.offset >= cursor && end <= src.len() && src.is_char_boundary(e.offset) && src.is_char_boundary(end);
        if !valid {
            continue;
        }
        out.push_str(&src[cursor..e.offset]);
        let shift = out.len();
        placed.extend(e.barriers.iter().map(|b| Placed { at: shift + b.at, ..*b }));
        out.push_str(&e.insert);
        cursor = end;
    }
    out.push_str(&src[cursor..]);
    (out, placed)
}

/// An edit deleting the statement at `span` (a barrier `--minimize` removes): the whole line when
/// the statement is alone on it (a trailing `//` comment goes with it), else just the statement.
pub fn removal(src: &str, span: Span) -> Result<Edit, EmitError> {
    let (lo, hi) = (span.lo as usize, span.hi as usize);
    if span.is_dummy()
        || span.file.0 != 0
        || hi > src.len()
        || lo > hi
        || !src.is_char_boundary(lo)
        || !src.is_char_boundary(hi)
    {
        return Err(EmitError {
            pos: None,
            span: Some(span),
            message: "statement to remove is not in the main file".into(),
        });
    }
    let line_start = src[..lo].rfind('\n').map_or(0, |i| i + 1);
    let line_end = src[hi..].find('\n').map_or(src.len(), |i| hi + i + 1);
    let before = &src[line_start..lo];
    let after = src[hi..line_end].trim_end_matches(['\n', '\r']);
    let after_trim = after.trim();
    if before.trim().is_empty() && (after_trim.is_empty() || after_trim.starts_with("//")) {
        Ok(Edit::text(line_start, line_end - line_start, String::new()))
    } else {
        Ok(Edit::text(lo, hi - lo, String::new()))
    }
}
