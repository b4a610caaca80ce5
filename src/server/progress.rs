//! `$/progress` while a document is checked, when the editor supports work-done progress: the
//! server asks the editor to create a token (`window/workDoneProgress/create`), and once it
//! answers sends `begin`, a `report` per stage and `end`. A check that ends (or is superseded)
//! before the editor answers gets its `begin` and `end` together.

use super::transport::Outbox;
use lsp_server::{Request, RequestId};
use lsp_types::notification::Progress as ProgressNotification;
use lsp_types::request::{Request as _, WorkDoneProgressCreate};
use lsp_types::{
    NumberOrString, ProgressParams, ProgressParamsValue, WorkDoneProgress, WorkDoneProgressBegin,
    WorkDoneProgressCreateParams, WorkDoneProgressEnd, WorkDoneProgressReport,
};
use std::collections::HashMap;

/// One check's progress token.
struct Token {
    title: String,
    created: bool,
    ended: bool,
}

/// The progress tokens of the checks in flight, by generation.
#[derive(Default)]
pub struct Progress {
    /// The editor supports work-done progress.
    pub enabled: bool,
    tokens: HashMap<u64, Token>,
    creating: HashMap<RequestId, u64>,
    requests: u32,
}

fn token(generation: u64) -> NumberOrString {
    NumberOrString::String(format!("autosync/check/{generation}"))
}

fn send(out: &Outbox, generation: u64, value: WorkDoneProgress) {
    out.notify::<ProgressNotification>(ProgressParams {
        token: token(generation),
        value: ProgressParamsValue::WorkDone(value),
    });
}

impl Progress {
    /// A check of `generation` starts.
    pub fn begin(&mut self, out: &Outbox, generation: u64, title: String) {
        if !self.enabled {
            return;
        }
        self.requests += 1;
        let id = RequestId::from(format!("autosync/progress/{}", self.requests));
        let params = WorkDoneProgressCreateParams {
            token: token(generation),
        };
        out.send(Request::new(
            id.clone(),
            WorkDoneProgressCreate::METHOD.to_string(),
            params,
        ));
        self.creating.insert(id, generation);
        let t = Token {
            title,
            created: false,
            ended: false,
        };
        self.tokens.insert(generation, t);
    }

    /// The editor answered request `id`; whether it was one of ours.
    pub fn answered(&mut self, out: &Outbox, id: &RequestId, ok: bool) -> bool {
        let Some(generation) = self.creating.remove(id) else {
            return false;
        };
        let Some(t) = self.tokens.get_mut(&generation) else {
            return true;
        };
        if !ok {
            self.tokens.remove(&generation);
            return true;
        }
        t.created = true;
        let begin = WorkDoneProgressBegin {
            title: t.title.clone(),
            ..Default::default()
        };
        send(out, generation, WorkDoneProgress::Begin(begin));
        if t.ended {
            self.end(out, generation);
        }
        true
    }

    /// What the check of `generation` does now.
    pub fn report(&self, out: &Outbox, generation: u64, message: String) {
        if self.tokens.get(&generation).is_some_and(|t| t.created) {
            let r = WorkDoneProgressReport {
                message: Some(message),
                ..Default::default()
            };
            send(out, generation, WorkDoneProgress::Report(r));
        }
    }

    /// The check of `generation` ended.
    pub fn end(&mut self, out: &Outbox, generation: u64) {
        let Some(t) = self.tokens.get_mut(&generation) else {
            return;
        };
        if !t.created {
            t.ended = true;
            return;
        }
        self.tokens.remove(&generation);
        send(
            out,
            generation,
            WorkDoneProgress::End(WorkDoneProgressEnd { message: None }),
        );
    }

    /// Ends the progress of every check whose generation is not `live` any more.
    pub fn end_superseded(&mut self, out: &Outbox, live: impl Fn(u64) -> bool) {
        let stale: Vec<u64> = self.tokens.keys().copied().filter(|g| !live(*g)).collect();
        for g in stale {
            self.end(out, g);
        }
    }
}
