//! `textDocument/codeAction`: the verified edits of the document's current text whose place
//! the requested range touches. A request that comes while the text is being checked waits for
//! the check (answered when it finishes); one whose text changes meanwhile gets
//! `ContentModified`.

use super::documents::Analysis;
use super::state::{Pending, State};
use lsp_server::{ErrorCode, RequestId};
use lsp_types::{CodeActionKind, CodeActionOrCommand, CodeActionParams, Url};

/// Answers a code-action request now, or once the document's check finishes.
pub fn code_action(st: &mut State, id: RequestId, params: CodeActionParams) {
    let uri = &params.text_document.uri;
    let Some(doc) = st.docs.get(uri) else {
        st.out.error(id, ErrorCode::InvalidParams, format!("{uri} is not open"));
        return;
    };
    match doc.current() {
        Some(a) if a.finished => st.out.ok(id, actions(uri, a, &params)),
        _ if doc.job.is_some() => st.pending.push(Pending { id, params }),
        // Changed since the last check, and not saved: nothing verified for this text.
        _ => st.out.ok(id, Vec::<CodeActionOrCommand>::new()),
    }
}

/// The actions of a finished analysis for the request's range: the synthesized barriers
/// first, then single barriers, removals and suppressions.
fn actions(uri: &Url, a: &Analysis, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
    let wanted = params.context.only.as_ref().is_none_or(|only| {
        only.iter()
            .any(|k| k.as_str().is_empty() || *k == CodeActionKind::QUICKFIX)
    });
    if !wanted {
        return vec![];
    }
    let mut offers: Vec<_> = a.offers.iter().filter(|o| o.applies(&params.range)).collect();
    offers.sort_by_key(|o| o.kind);
    offers
        .into_iter()
        .map(|o| CodeActionOrCommand::CodeAction(o.action(uri, &a.text, &a.findings)))
        .collect()
}

/// Answers the requests that waited for the check of `uri`.
pub fn answer_pending(st: &mut State, uri: &Url) {
    let (mine, rest) = std::mem::take(&mut st.pending)
        .into_iter()
        .partition(|p| p.params.text_document.uri == *uri);
    st.pending = rest;
    for p in mine {
        code_action(st, p.id, p.params);
    }
}

/// Answers the requests waiting for `uri` with an error (the text they asked about is gone).
pub fn cancel_pending(st: &mut State, uri: &Url, code: ErrorCode, message: &str) {
    let (mine, rest): (Vec<Pending>, Vec<Pending>) = std::mem::take(&mut st.pending)
        .into_iter()
        .partition(|p| p.params.text_document.uri == *uri);
    st.pending = rest;
    for p in mine {
        st.out.error(p.id, code, message);
    }
}

/// `$/cancelRequest`: a waiting request is answered `RequestCanceled`.
pub fn cancel_request(st: &mut State, id: &RequestId) {
    if let Some(i) = st.pending.iter().position(|p| p.id == *id) {
        let p = st.pending.remove(i);
        st.out.error(p.id, ErrorCode::RequestCanceled, "canceled");
    }
}
