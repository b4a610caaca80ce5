//! A file's result when it fails: the error record (a front-end error located as
//! `file:line:col`, with its exit code) and the empty result the others start from.

use crate::front::{FrontError, FrontErrorKind};
use crate::output::results::{FileError, FileResult};
use crate::vocab::exit;

pub(super) fn error_result(e: &FileError) -> FileResult {
    FileResult {
        exit_code: e.exit_code,
        messages: vec![e.render()],
        error: Some(e.clone()),
        ..error_free(&e.file)
    }
}

pub(super) fn error_free(file: &str) -> FileResult {
    FileResult {
        file: file.to_string(),
        kernels: vec![],
        changed: false,
        diff: String::new(),
        replacements: vec![],
        error: None,
        warnings: vec![],
        environment: None,
        exit_code: exit::OK,
        kernel_free: false,
        messages: vec![],
        stdout: String::new(),
    }
}

/// A located record (`file:line:col`) of a front-end error, with its exit code; `texts` are the
/// unit's texts when the front end got that far.
pub fn front_error(path: &str, texts: Option<&[String]>, e: &FrontError) -> FileError {
    // An error in an included file is located in that file.
    let header = e.header.as_ref().map(|h| h.display().to_string());
    let (path, texts) = match &header {
        Some(h) => (h.as_str(), None),
        None => (path, texts),
    };
    let (line, column) = if e.span.is_dummy() {
        (None, None)
    } else {
        let owned;
        let text = match texts.and_then(|t| t.get(e.span.file.0 as usize)) {
            Some(t) => t.as_str(),
            None => {
                owned = std::fs::read(path)
                    .ok()
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                owned.as_str()
            }
        };
        let f = autosync_oracle::ir::SourceFile::new(path, text);
        let (l, c) = f.line_col(e.span.lo.min(text.len() as u32));
        (Some(l), Some(c))
    };
    let kind = kind_word(e.kind);
    FileError {
        file: path.to_string(),
        line,
        column,
        kind: kind.into(),
        message: e.message.clone(),
        help: e.help.clone(),
        exit_code: match e.kind {
            FrontErrorKind::Input => exit::INPUT,
            _ => exit::INCONCLUSIVE,
        },
    }
}

/// How a front-end error's kind is named in messages.
pub(super) fn kind_word(k: FrontErrorKind) -> &'static str {
    match k {
        FrontErrorKind::Input => "error",
        FrontErrorKind::Unsupported => "unsupported",
        FrontErrorKind::MissingValue | FrontErrorKind::Uninstantiated => "needs a value",
    }
}
