//! JSON-RPC over a byte stream with `Content-Length` framing, on two threads: the reader turns
//! the input into [`Event`]s (a message, or the error that answers input that is not one), the
//! writer writes what the [`Outbox`] is given. Unlike `lsp_server`'s own stdio transport, a
//! malformed message does not end the connection: it is answered and the reader reads on.

use super::events::Event;
use super::log::Log;
use lsp_server::{ErrorCode, Message, Notification, RequestId, Response};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

/// What the writer writes.
enum Outgoing {
    Message(Message),
    /// A message `lsp_server` cannot express (an error response with a null id).
    Raw(Value),
}

/// Sends messages to the editor (cheap to clone).
#[derive(Clone)]
pub struct Outbox {
    tx: Sender<Outgoing>,
    log: Log,
}

impl Outbox {
    /// Sends a message.
    pub fn send(&self, m: impl Into<Message>) {
        let m = m.into();
        self.log.line(|| format!("> {}", summary(&m)));
        // The writer ends only when every outbox is gone.
        let _ = self.tx.send(Outgoing::Message(m));
    }

    /// Sends notification `N`.
    pub fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_string(), params));
    }

    /// Answers request `id` with `result`.
    pub fn ok(&self, id: RequestId, result: impl serde::Serialize) {
        self.send(Response::new_ok(id, result));
    }

    /// Answers request `id` with an error.
    pub fn error(&self, id: RequestId, code: ErrorCode, message: impl Into<String>) {
        self.send(Response::new_err(id, code as i32, message.into()));
    }

    /// Answers input that was not a request with a known id.
    pub fn error_raw(&self, id: Option<Value>, code: i32, message: &str) {
        self.log.line(|| format!("> error {code}: {message}"));
        let v = json!({"jsonrpc": "2.0", "id": id.unwrap_or(Value::Null), "error": {"code": code, "message": message}});
        let _ = self.tx.send(Outgoing::Raw(v));
    }
}

/// A message in a log line: its method or id, not its (possibly large) parameters.
fn summary(m: &Message) -> String {
    match m {
        Message::Request(r) => format!("request {} {}", r.id, r.method),
        Message::Notification(n) => format!("notification {}", n.method),
        Message::Response(r) => match &r.response_result {
            Err(e) => format!("response {} error {}: {}", r.id, e.code, e.message),
            Ok(_) => format!("response {}", r.id),
        },
    }
}

/// Starts the reader (sending to `events`) and the writer; the writer's handle ends once every
/// [`Outbox`] is dropped and all was written.
pub fn start(
    input: impl Read + Send + 'static,
    output: impl Write + Send + 'static,
    events: Sender<Event>,
    log: &Log,
) -> (Outbox, JoinHandle<()>) {
    let (tx, rx) = channel::<Outgoing>();
    let writer_log = log.clone();
    let writer = std::thread::spawn(move || {
        let mut output = output;
        for m in rx {
            if let Err(e) = write_one(&mut output, m) {
                writer_log.line(|| format!("cannot write to the editor: {e}"));
                break;
            }
        }
    });
    let reader_log = log.clone();
    std::thread::spawn(move || read_all(BufReader::new(input), &events, &reader_log));
    (Outbox { tx, log: log.clone() }, writer)
}

fn write_one(out: &mut impl Write, m: Outgoing) -> std::io::Result<()> {
    match m {
        Outgoing::Message(m) => m.write(out),
        Outgoing::Raw(v) => {
            let text = v.to_string();
            write!(out, "Content-Length: {}\r\n\r\n{text}", text.len())?;
            out.flush()
        }
    }
}

/// Reads messages until the input ends; each becomes an event.
fn read_all(mut input: impl BufRead, events: &Sender<Event>, log: &Log) {
    loop {
        let event = match read_frame(&mut input) {
            Ok(Some(body)) => parse(&body),
            Ok(None) => break,
            Err(Frame::Bad(message)) => Event::Malformed {
                id: None,
                code: ErrorCode::ParseError as i32,
                message,
            },
            Err(Frame::Io(e)) => {
                log.line(|| format!("cannot read from the editor: {e}"));
                break;
            }
        };
        if let Event::Incoming(m) = &event {
            log.line(|| format!("< {}", summary(m)));
        }
        if events.send(event).is_err() {
            return;
        }
    }
    let _ = events.send(Event::InputClosed);
}

/// Why a frame could not be read.
enum Frame {
    /// Its header or body is not a frame: answered, and reading goes on.
    Bad(String),
    /// The input failed.
    Io(std::io::Error),
}

/// One frame's body; `None` at the end of the input.
fn read_frame(input: &mut impl BufRead) -> Result<Option<String>, Frame> {
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line).map_err(Frame::Io)? == 0 {
            return Ok(None);
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Err(Frame::Bad(format!("malformed header `{header}`")));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let n = value.trim().parse::<usize>();
            length = Some(n.map_err(|_| Frame::Bad(format!("bad Content-Length `{}`", value.trim())))?);
        }
    }
    let n = length.ok_or_else(|| Frame::Bad("a message without Content-Length".into()))?;
    let mut body = vec![0; n];
    input.read_exact(&mut body).map_err(Frame::Io)?;
    String::from_utf8(body)
        .map(Some)
        .map_err(|_| Frame::Bad("a message that is not UTF-8".into()))
}

/// A frame's body as a message, or the error that answers it.
fn parse(body: &str) -> Event {
    let value: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => {
            return Event::Malformed {
                id: None,
                code: ErrorCode::ParseError as i32,
                message: format!("not JSON: {e}"),
            }
        }
    };
    let id = value.get("id").cloned();
    match serde_json::from_value::<Message>(value) {
        Ok(m) => Event::Incoming(m),
        Err(e) => Event::Malformed {
            id,
            code: ErrorCode::InvalidRequest as i32,
            message: format!("not a JSON-RPC request, response or notification: {e}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events_of(input: &'static str) -> Vec<Event> {
        let (tx, rx) = channel();
        read_all(input.as_bytes(), &tx, &Log::off());
        drop(tx);
        rx.into_iter().collect()
    }

    #[test]
    fn bad_frames_are_answered_and_reading_goes_on() {
        let ok = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let input = format!(
            "Content-Length: 5\r\n\r\n{{oops\
             Content-Length: 13\r\n\r\n{{\"jsonrpc\":1}}\
             Content-Length: {}\r\n\r\n{ok}",
            ok.len()
        );
        let events = events_of(Box::leak(input.into_boxed_str()));
        let kinds: Vec<String> = events
            .iter()
            .map(|e| match e {
                Event::Incoming(Message::Notification(n)) => n.method.clone(),
                Event::Malformed { code, .. } => code.to_string(),
                Event::InputClosed => "closed".into(),
                _ => "other".into(),
            })
            .collect();
        assert_eq!(kinds, ["-32700", "-32600", "initialized", "closed"]);
    }
}
