//! The main loop: the protocol's lifecycle (`initialize`, `shutdown`, `exit`), requests and
//! notifications dispatched to their handlers, stages of background checks handed on. Nothing
//! here checks code: the loop only ever waits for the next event, so the editor is answered
//! while files are checked.

use super::code_actions::{cancel_request, code_action};
use super::document_events::{did_change, did_close, did_open, did_save, job_event};
use super::events::Event;
use super::state::State;
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId};
use lsp_types::notification::{
    Cancel, DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument, Exit, LogMessage,
    Notification as _,
};
use lsp_types::request::{CodeActionRequest, Initialize, Request as _, Shutdown};
use lsp_types::{
    CancelParams, CodeActionKind, CodeActionOptions, CodeActionProviderCapability, InitializeParams, InitializeResult,
    LogMessageParams, MessageType, NumberOrString, SaveOptions, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
};
use serde::de::DeserializeOwned;
use std::sync::mpsc::Receiver;

/// The session: the shared state and where the lifecycle stands.
pub struct Session {
    st: State,
    initialized: bool,
    shutdown: bool,
}

impl Session {
    /// A session that has not been initialized yet.
    pub fn new(st: State) -> Session {
        Session {
            st,
            initialized: false,
            shutdown: false,
        }
    }

    /// Handles events until `exit` (or the end of the input); returns the exit code: 0 after
    /// `shutdown`, 1 without (as the protocol asks).
    pub fn run(mut self, events: Receiver<Event>) -> u8 {
        for e in events {
            if let Some(code) = self.handle(e) {
                return code;
            }
        }
        self.exit_code()
    }

    fn exit_code(&self) -> u8 {
        u8::from(!self.shutdown)
    }

    fn handle(&mut self, e: Event) -> Option<u8> {
        match e {
            Event::Incoming(Message::Request(r)) => self.request(r),
            Event::Incoming(Message::Notification(n)) => return self.notification(n),
            Event::Incoming(Message::Response(r)) => {
                self.st
                    .progress
                    .answered(&self.st.out, &r.id, r.response_result.is_ok());
            }
            Event::Malformed { id, code, message } => {
                self.st.log.line(|| format!("malformed input: {message}"));
                self.st.out.error_raw(id, code, &message);
            }
            Event::InputClosed => return Some(self.exit_code()),
            Event::Job(j) => job_event(&mut self.st, j),
        }
        None
    }

    fn request(&mut self, r: Request) {
        let out = &self.st.out;
        match (self.initialized, self.shutdown, r.method.as_str()) {
            (false, _, Initialize::METHOD) => self.initialize(r),
            (false, _, _) => out.error(r.id, ErrorCode::ServerNotInitialized, "initialize first"),
            (true, _, Initialize::METHOD) => out.error(r.id, ErrorCode::InvalidRequest, "already initialized"),
            (true, true, _) => out.error(r.id, ErrorCode::InvalidRequest, "the server is shutting down"),
            (true, false, Shutdown::METHOD) => {
                self.shutdown = true;
                out.ok(r.id, ());
            }
            (true, false, CodeActionRequest::METHOD) => match params(r.params) {
                Ok(p) => code_action(&mut self.st, r.id, p),
                Err(e) => out.error(r.id, ErrorCode::InvalidParams, e),
            },
            _ => out.error(
                r.id,
                ErrorCode::MethodNotFound,
                format!("unknown method `{}`", r.method),
            ),
        }
    }

    fn initialize(&mut self, r: Request) {
        let p: InitializeParams = match params(r.params) {
            Ok(p) => p,
            Err(e) => return self.st.out.error(r.id, ErrorCode::InvalidParams, e),
        };
        let window = p.capabilities.window.as_ref();
        self.st.progress.enabled = window.and_then(|w| w.work_done_progress) == Some(true);
        self.st.out.ok(r.id, initialize_result());
        self.initialized = true;
    }

    /// A notification; `Some(exit code)` for `exit`. Before `initialize` and after `shutdown`
    /// notifications are dropped, as the protocol asks.
    fn notification(&mut self, n: Notification) -> Option<u8> {
        if n.method == Exit::METHOD {
            return Some(self.exit_code());
        }
        if !self.initialized || self.shutdown {
            return None;
        }
        let st = &mut self.st;
        let done = match n.method.as_str() {
            DidOpenTextDocument::METHOD => params(n.params).map(|p| did_open(st, p)),
            DidChangeTextDocument::METHOD => params(n.params).map(|p| did_change(st, p)),
            DidSaveTextDocument::METHOD => params(n.params).map(|p| did_save(st, p)),
            DidCloseTextDocument::METHOD => params(n.params).map(|p| did_close(st, p)),
            Cancel::METHOD => params(n.params).map(|p: CancelParams| cancel_request(st, &request_id(p.id))),
            _ => Ok(()),
        };
        if let Err(e) = done {
            // A notification has no answer: the editor's log says what was wrong.
            let message = format!("autosync: bad `{}` notification: {e}", n.method);
            st.log.line(|| message.clone());
            st.out.notify::<LogMessage>(LogMessageParams {
                typ: MessageType::ERROR,
                message,
            });
        }
        None
    }
}

fn params<P: DeserializeOwned>(v: serde_json::Value) -> Result<P, String> {
    serde_json::from_value(v).map_err(|e| format!("invalid params: {e}"))
}

fn request_id(id: NumberOrString) -> RequestId {
    match id {
        NumberOrString::Number(n) => RequestId::from(n),
        NumberOrString::String(s) => RequestId::from(s),
    }
}

/// What the server can do: full-text sync with the text on save, quick fixes.
fn initialize_result() -> InitializeResult {
    let sync = TextDocumentSyncOptions {
        open_close: Some(true),
        change: Some(TextDocumentSyncKind::FULL),
        save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
            include_text: Some(true),
        })),
        ..Default::default()
    };
    let actions = CodeActionOptions {
        code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
        ..Default::default()
    };
    InitializeResult {
        capabilities: ServerCapabilities {
            text_document_sync: Some(TextDocumentSyncCapability::Options(sync)),
            code_action_provider: Some(CodeActionProviderCapability::Options(actions)),
            ..Default::default()
        },
        server_info: Some(ServerInfo {
            name: "autosync".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    }
}
