//! Our own C preprocessor: `#define`/`#undef`, local `#include`, conditional compilation.
//! Output positions map back to original file bytes (macro expansions map to the use site).

use autosync_oracle::ir::{FileId, SourceFile, Span};

/// Options for preprocessing.
#[derive(Clone, Debug, Default)]
pub struct PpOptions {
    /// `-D NAME=VALUE` definitions (value `None` means `1`).
    pub defines: Vec<(String, Option<String>)>,
    /// `-I` include directories, searched after the including file's directory.
    pub include_dirs: Vec<std::path::PathBuf>,
}

/// Result of preprocessing one translation unit.
#[derive(Clone, Debug)]
pub struct Preprocessed {
    /// The expanded text handed to the parser.
    pub text: String,
    /// Files that took part (index = `FileId`); file 0 is the main file.
    pub files: Vec<SourceFile>,
    /// Original text of each file (same indexing as `files`).
    pub texts: Vec<String>,
    /// Notes for the user (skipped system includes, ...), with their spans.
    pub notes: Vec<(Span, String)>,
    // map: private, see `origin`
}

impl Preprocessed {
    /// Maps a byte offset of `text` to the original file position it came from.
    pub fn origin(&self, _offset: usize) -> (FileId, u32) {
        unimplemented!()
    }
}

/// A preprocessing error, with the position that caused it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PpError {
    /// Where.
    pub span: Span,
    /// What went wrong and what to do.
    pub message: String,
}
