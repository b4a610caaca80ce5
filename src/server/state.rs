//! The session's state shared by the handlers: the editor's outbox, the log, the open
//! documents, the background worker, progress tokens and the code-action requests waiting for
//! a check to finish. Starting a check and publishing diagnostics live here.

use super::diagnostics::Finding;
use super::documents::Documents;
use super::job::Job;
use super::log::Log;
use super::progress::Progress;
use super::transport::Outbox;
use super::worker::Worker;
use lsp_server::RequestId;
use lsp_types::notification::PublishDiagnostics;
use lsp_types::{CodeActionParams, PublishDiagnosticsParams, Url};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A code-action request answered once the check of its document's text has finished.
pub struct Pending {
    /// The request.
    pub id: RequestId,
    /// What it asks.
    pub params: CodeActionParams,
}

/// Everything the handlers share.
pub struct State {
    /// To the editor.
    pub out: Outbox,
    /// `--log`.
    pub log: Log,
    /// Open documents.
    pub docs: Documents,
    /// The background checks.
    pub worker: Worker,
    /// `$/progress` tokens.
    pub progress: Progress,
    /// Code-action requests waiting for a check.
    pub pending: Vec<Pending>,
}

impl State {
    /// Starts a check of the document's current text (superseding one in flight).
    pub fn check(&mut self, uri: &Url) {
        let Some(doc) = self.docs.get_mut(uri) else { return };
        doc.supersede();
        let reuse = doc.analysis.as_ref().and_then(|a| a.reuse(&doc.text)).map(Arc::new);
        let job = Job {
            uri: uri.clone(),
            path: doc.path.clone(),
            generation: doc.generation,
            text: doc.text.clone(),
            cancel: Arc::new(AtomicBool::new(false)),
            reuse,
        };
        doc.job = Some(job.clone());
        let name = doc
            .path
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        self.worker.submit(job);
        self.progress
            .begin(&self.out, doc.generation, format!("autosync: checking {name}"));
        self.end_superseded_progress();
    }

    /// Ends the progress of checks no document waits for any more.
    pub fn end_superseded_progress(&mut self) {
        let docs = &self.docs;
        let live = |g: u64| docs.live_job(g);
        self.progress.end_superseded(&self.out, live);
    }

    /// Publishes a document's diagnostics (`version`: the text they are for).
    pub fn publish(&self, uri: &Url, findings: &[Finding], version: Option<i32>) {
        self.out.notify::<PublishDiagnostics>(PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics: findings.iter().map(|f| f.diagnostic.clone()).collect(),
            version,
        });
    }
}
