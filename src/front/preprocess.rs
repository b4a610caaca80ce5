//! Our own C preprocessor: `#define`/`#undef`, local `#include`, conditional compilation.
//! Output positions map back to original file bytes (macro expansions map to the use site).
//!
//! Text that no directive or macro touches is copied byte for byte, so on a file without
//! directives and macro uses the output is the input and the position map is the identity.
//! Directive lines and inactive `#if` branches become blank lines that keep their own line
//! endings; `#pragma` lines are kept verbatim; included files are spliced in place of the
//! `#include` line.

mod driver;
mod expand;
mod expr;
mod lex;
mod macros;
mod output;
#[cfg(test)]
mod tests;

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
    /// Function-like macros defined at the end of the translation unit.
    pub macros: Vec<FnMacro>,
    /// Output ranges → original positions.
    map: output::SegMap,
}

/// A function-like macro definition, as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnMacro {
    /// Macro name.
    pub name: String,
    /// Parameter names.
    pub params: Vec<String>,
    /// Replacement list (tokens separated as in the definition).
    pub body: String,
    /// Offset in the output text where the definition takes effect (0 for `-D` macros).
    pub at: usize,
}

impl Preprocessed {
    /// Maps a byte offset of `text` to the original file position it came from.
    pub fn origin(&self, offset: usize) -> (FileId, u32) {
        self.map.origin(offset)
    }

    /// Whether byte `offset` of `text` was produced by a macro expansion rather than copied from
    /// a file (edits must not be placed inside expansions).
    pub fn is_expanded(&self, offset: usize) -> bool {
        self.map.is_expanded(offset)
    }

    /// Maps the output range `lo..hi` to an original span: `lo` maps through [`Self::origin`],
    /// the end to the end of the source byte or macro use that produced byte `hi - 1` (so a range
    /// covering a whole macro use maps to the whole use). If the ends lie in different files, the
    /// span is clamped to the file of `lo`.
    pub fn origin_span(&self, lo: usize, hi: usize) -> Span {
        self.map.origin_span(lo, hi)
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

impl std::fmt::Display for PpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PpError {}

/// Preprocesses the file at `path` whose contents are `text`; included files are read from disk.
pub fn preprocess(path: &std::path::Path, text: &str, opts: &PpOptions) -> Result<Preprocessed, PpError> {
    let mut d = driver::Driver::new(path, text, opts)?;
    d.run()?;
    Ok(Preprocessed {
        map: output::SegMap::new(std::mem::take(&mut d.out.segs), d.out.text.len()),
        text: std::mem::take(&mut d.out.text),
        files: std::mem::take(&mut d.files),
        texts: d.texts.iter().map(|t| t.to_string()).collect(),
        notes: std::mem::take(&mut d.notes),
        macros: d
            .exp
            .table
            .function_like()
            .into_iter()
            .map(|m| FnMacro {
                at: d.macro_at.get(&m.name).copied().unwrap_or(0),
                ..m
            })
            .collect(),
    })
}
