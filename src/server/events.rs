//! What the main loop waits for: messages from the editor (or why one could not be read),
//! the end of the input, and the stages of background checks.

use super::diagnostics::Finding;
use super::offer::Offer;
use lsp_server::Message;
use lsp_types::Url;

/// One thing for the main loop to handle.
pub enum Event {
    /// A message from the editor.
    Incoming(Message),
    /// Input that is not a message: answered with this JSON-RPC error (id null when none could
    /// be read), and the server reads on.
    Malformed {
        /// The request's id, when the text had one.
        id: Option<serde_json::Value>,
        /// JSON-RPC error code.
        code: i32,
        /// What was wrong.
        message: String,
    },
    /// The editor closed the connection (or it failed).
    InputClosed,
    /// A background check of a document moved on.
    Job(JobEvent),
}

/// A stage of the check of one version of a document.
pub struct JobEvent {
    /// The document.
    pub uri: Url,
    /// Which of its versions (the session's generation counter).
    pub generation: u64,
    /// What happened.
    pub stage: Stage,
}

/// The stages of a check, in order.
pub enum Stage {
    /// `check` ran: the diagnostics, and the code actions that need no synthesis.
    Checked(Vec<Finding>, Vec<Offer>),
    /// What the check is doing now (for `$/progress`).
    Step(String),
    /// Verified edits found by synthesis.
    Offers(Vec<Offer>),
    /// Done: every code action of this version is known.
    Finished,
}
