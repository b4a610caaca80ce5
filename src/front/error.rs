//! Front-end errors: every one names a span and says what to do.

use autosync_oracle::ir::Span;

/// Why the front end stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FrontErrorKind {
    /// The input is malformed (parse error, missing include, bad launch config): exit code 2.
    Input,
    /// A construct that touches memory or synchronizes and that we cannot model: exit code 4.
    Unsupported,
    /// A value that must be concrete is not given (template argument, ...): exit code 4.
    MissingValue,
    /// A kernel template the file neither instantiates nor launches, with no values given: the
    /// code base instantiates it elsewhere. Exit code 4 for a file named on the command line,
    /// a note when a directory is checked.
    Uninstantiated,
}

/// A front-end error with its location.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FrontError {
    /// Category (decides the exit code).
    pub kind: FrontErrorKind,
    /// Where in the original source.
    pub span: Span,
    /// What is wrong.
    pub message: String,
    /// What the user can do about it.
    pub help: Option<String>,
    /// The included file the span is in, when it is not the main file (known once the unit's
    /// files are: set where the error leaves the front end).
    pub header: Option<std::path::PathBuf>,
}

impl FrontError {
    /// An input error.
    pub fn input(span: Span, message: impl Into<String>) -> Self {
        FrontError {
            kind: FrontErrorKind::Input,
            span,
            message: message.into(),
            help: None,
            header: None,
        }
    }
    /// An unsupported construct.
    pub fn unsupported(span: Span, message: impl Into<String>) -> Self {
        FrontError {
            kind: FrontErrorKind::Unsupported,
            span,
            message: message.into(),
            help: None,
            header: None,
        }
    }
    /// A missing concrete value.
    pub fn missing(span: Span, message: impl Into<String>, help: impl Into<String>) -> Self {
        FrontError {
            kind: FrontErrorKind::MissingValue,
            span,
            message: message.into(),
            help: Some(help.into()),
            header: None,
        }
    }
    /// Names the main file where Clang's spellings call it `<stdin>` (autosync feeds it to
    /// Clang on standard input; anonymous types print as `(unnamed struct at <stdin>:5:3)`).
    pub fn naming_main_file(mut self, path: &std::path::Path) -> Self {
        self.message = name_main_file(&self.message, path);
        self.help = self.help.map(|h| name_main_file(&h, path));
        self
    }
    /// Adds a hint.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// Result alias for the front end.
pub type FResult<T> = Result<T, FrontError>;

/// `text` with Clang's `<stdin>:` locations naming `path` instead.
pub fn name_main_file(text: &str, path: &std::path::Path) -> String {
    text.replace("<stdin>:", &format!("{}:", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clang_stdin_locations_name_the_main_file() {
        let e = FrontError::unsupported(
            Span::DUMMY,
            "the size of `S::(unnamed struct at <stdin>:5:3)` is unknown",
        )
        .with_help("see <stdin>:5:3");
        let e = e.naming_main_file(std::path::Path::new("src/k.cu"));
        assert_eq!(
            e.message,
            "the size of `S::(unnamed struct at src/k.cu:5:3)` is unknown"
        );
        assert_eq!(e.help.as_deref(), Some("see src/k.cu:5:3"));
    }
}
