//! Front-end errors: every one names a span and says what to do.

use autosync_oracle::ir::Span;

/// Why the front end stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontErrorKind {
    /// The input is malformed (parse error, missing include, bad launch config): exit code 2.
    Input,
    /// A construct that touches memory or synchronizes and that we cannot model: exit code 4.
    Unsupported,
    /// A value that must be concrete is not given (template argument, ...): exit code 4.
    MissingValue,
}

/// A front-end error with its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrontError {
    /// Category (decides the exit code).
    pub kind: FrontErrorKind,
    /// Where in the original source.
    pub span: Span,
    /// What is wrong.
    pub message: String,
    /// What the user can do about it.
    pub help: Option<String>,
}

impl FrontError {
    /// An input error.
    pub fn input(span: Span, message: impl Into<String>) -> Self {
        FrontError {
            kind: FrontErrorKind::Input,
            span,
            message: message.into(),
            help: None,
        }
    }
    /// An unsupported construct.
    pub fn unsupported(span: Span, message: impl Into<String>) -> Self {
        FrontError {
            kind: FrontErrorKind::Unsupported,
            span,
            message: message.into(),
            help: None,
        }
    }
    /// A missing concrete value.
    pub fn missing(span: Span, message: impl Into<String>, help: impl Into<String>) -> Self {
        FrontError {
            kind: FrontErrorKind::MissingValue,
            span,
            message: message.into(),
            help: Some(help.into()),
        }
    }
    /// Adds a hint.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

/// Result alias for the front end.
pub type FResult<T> = Result<T, FrontError>;
