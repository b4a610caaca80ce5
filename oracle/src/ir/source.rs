//! Where IR comes from: source files, their line tables, and byte spans in them.

use serde::{Deserialize, Serialize};

/// Index of a source file in [`Kernel::files`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FileId(pub u32);

/// A half-open byte range `[lo, hi)` in one original (un-preprocessed) source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Span {
    /// File the bytes belong to.
    pub file: FileId,
    /// First byte.
    pub lo: u32,
    /// One past the last byte.
    pub hi: u32,
}

impl Span {
    /// A span covering `lo..hi` of `file`.
    pub fn new(file: FileId, lo: u32, hi: u32) -> Self {
        Span { file, lo, hi }
    }
    /// The placeholder span of synthetic statements that have no source (e.g. inserted barriers).
    pub const DUMMY: Span = Span {
        file: FileId(u32::MAX),
        lo: 0,
        hi: 0,
    };
    /// Whether this is [`Span::DUMMY`].
    pub fn is_dummy(&self) -> bool {
        self.file.0 == u32::MAX
    }
}

/// A source file known to the kernel, with line starts so spans can be shown as line:col.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceFile {
    /// Path as given by the user (or resolved include path).
    pub path: String,
    /// Byte offset of the start of every line.
    pub line_starts: Vec<u32>,
}

impl SourceFile {
    /// Builds the line table for `text`.
    pub fn new(path: impl Into<String>, text: &str) -> Self {
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        SourceFile {
            path: path.into(),
            line_starts,
        }
    }
    /// 1-based (line, column) of a byte offset; the column counts bytes.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        (line as u32 + 1, offset - self.line_starts[line] + 1)
    }
}
