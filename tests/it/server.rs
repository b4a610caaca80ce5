//! `autosync server` on the real binary, spoken to as an editor speaks: JSON-RPC with
//! `Content-Length` framing over its standard input and output. Every read has a deadline, so
//! a server that hangs fails the test instead of stalling it.

use crate::common::{bin, copy_to_temp};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// How long any one answer may take (a loaded machine checks a corpus kernel in well under it).
const DEADLINE: Duration = Duration::from_secs(90);

/// A test editor connected to a server process.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Every message received, in order.
    seen: Vec<Value>,
    next_id: i64,
}

impl Client {
    fn start() -> Client {
        let mut child = Command::new(env!("CARGO_BIN_EXE_autosync"))
            .arg("server")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("autosync server starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, incoming) = channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(stdout);
            while let Some(v) = read_frame(&mut r) {
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            incoming,
            seen: vec![],
            next_id: 0,
        }
    }

    /// Writes raw bytes (a frame, several, or garbage).
    fn write_raw(&mut self, bytes: &[u8]) {
        let w = self.stdin.as_mut().unwrap();
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    fn send(&mut self, v: &Value) {
        self.write_raw(&frame(v));
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next message that satisfies `want`; the server's progress-token requests are
    /// answered on the way.
    fn wait_for(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        let end = Instant::now() + DEADLINE;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let m = self
                .incoming
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no {what} within {DEADLINE:?}; received:\n{:#?}", self.seen));
            self.seen.push(m.clone());
            if m["method"] == "window/workDoneProgress/create" {
                self.send(&json!({"jsonrpc": "2.0", "id": m["id"], "result": null}));
            }
            if want(&m) {
                return m;
            }
        }
    }

    fn response(&mut self, id: i64) -> Value {
        self.wait_for(&format!("response {id}"), |m| {
            m["id"] == id && m.get("method").is_none()
        })
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.request(method, params);
        self.response(id)
    }

    fn diagnostics(&mut self, uri: &str) -> Value {
        self.wait_for("diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri
        })["params"]
            .clone()
    }

    fn initialize(&mut self) {
        let caps = json!({"window": {"workDoneProgress": true}});
        let r = self.call(
            "initialize",
            json!({"processId": null, "rootUri": null, "capabilities": caps}),
        );
        let c = &r["result"]["capabilities"];
        assert_eq!(c["textDocumentSync"]["save"]["includeText"], true, "{r}");
        assert_eq!(c["codeActionProvider"]["codeActionKinds"], json!(["quickfix"]), "{r}");
        self.notify("initialized", json!({}));
    }

    fn open(&mut self, uri: &str, text: &str) {
        let doc = json!({"uri": uri, "languageId": "cuda", "version": 1, "text": text});
        self.notify("textDocument/didOpen", json!({"textDocument": doc}));
    }

    fn code_actions(&mut self, uri: &str, range: Value) -> Vec<Value> {
        let params = json!({"textDocument": {"uri": uri}, "range": range, "context": {"diagnostics": []}});
        let r = self.call("textDocument/codeAction", params);
        r["result"].as_array().unwrap_or_else(|| panic!("{r}")).clone()
    }

    /// shutdown, exit: the process ends with `code`.
    fn shut_down(mut self, code: i32) {
        let r = self.call("shutdown", Value::Null);
        assert!(r.get("error").is_none() && r["result"].is_null(), "{r}");
        self.notify("exit", Value::Null);
        self.exit_code(code);
    }

    fn exit_code(mut self, code: i32) {
        drop(self.stdin.take());
        let end = Instant::now() + DEADLINE;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                assert_eq!(s.code(), Some(code));
                return;
            }
            assert!(Instant::now() < end, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn frame(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fn read_frame(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            length = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn uri_of(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// Applies the text edits of a workspace edit for `uri` to `text`, as an editor does (UTF-16
/// columns; these texts are ASCII, so bytes).
fn apply(text: &str, action: &Value, uri: &str) -> String {
    let edits = action["edit"]["changes"][uri]
        .as_array()
        .unwrap_or_else(|| panic!("{action}"));
    let offset = |p: &Value| -> usize {
        let line = p["line"].as_u64().unwrap() as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        start + p["character"].as_u64().unwrap() as usize
    };
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            let r = &e["range"];
            (offset(&r["start"]), offset(&r["end"]), e["newText"].as_str().unwrap())
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse(s.0));
    let mut out = text.to_string();
    for (lo, hi, new) in spans {
        out.replace_range(lo..hi, new);
    }
    out
}

fn titled<'a>(actions: &'a [Value], prefix: &str) -> Vec<&'a Value> {
    actions
        .iter()
        .filter(|a| a["title"].as_str().unwrap_or("").starts_with(prefix))
        .collect()
}

fn whole(text: &str) -> Value {
    let lines = text.lines().count();
    json!({"start": {"line": 0, "character": 0}, "end": {"line": lines, "character": 0}})
}

/// What `autosync <args> FILE` prints on standard output.
fn stdout_of(args: &[&str], file: &Path) -> String {
    let out = bin().args(args).arg(file).output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_race_gets_both_accesses_and_the_code_action_writes_what_fix_writes() {
    let (_d, f) = copy_to_temp("micro/two_races_two_barriers.cu");
    let uri = uri_of(&f);
    let text = std::fs::read_to_string(&f).unwrap();
    let mut c = Client::start();
    c.initialize();
    c.open(&uri, &text);
    let p = c.diagnostics(&uri);
    assert_eq!(p["version"], 1);
    let diags = p["diagnostics"].as_array().unwrap().clone();
    assert_eq!(diags.len(), 2, "{p}");
    let race = &diags[0];
    assert_eq!(
        (race["code"].as_str(), race["severity"].as_i64()),
        (Some("race"), Some(1))
    );
    assert!(race["message"].as_str().unwrap().contains("witness: thread "), "{race}");
    // The write `a[t]` (line 9) and, related, the read `a[t ^ 1]` (line 10).
    assert_eq!(race["range"]["start"], json!({"line": 8, "character": 4}), "{race}");
    let second = &race["relatedInformation"][0];
    assert_eq!(second["location"]["uri"], uri.as_str());
    assert_eq!(
        second["location"]["range"]["start"],
        json!({"line": 9, "character": 14})
    );
    assert_eq!(second["message"], "read");

    let actions = c.code_actions(&uri, race["range"].clone());
    let all = titled(&actions, "Insert the 2 barriers autosync synthesized");
    assert_eq!(all.len(), 1, "{actions:#?}");
    assert_eq!(all[0]["isPreferred"], true);
    let fixed = apply(&text, all[0], &uri);
    assert_eq!(fixed, stdout_of(&["fix", "--stdout"], &f));
    // Progress was reported around the check.
    let progress: Vec<&str> = c
        .seen
        .iter()
        .filter(|m| m["method"] == "$/progress")
        .filter_map(|m| m["params"]["value"]["kind"].as_str())
        .collect();
    assert_eq!(progress.first(), Some(&"begin"), "{progress:?}");
    assert_eq!(progress.last(), Some(&"end"), "{progress:?}");

    // Each barrier alone, where it orders its own race.
    let everywhere = c.code_actions(&uri, whole(&text));
    let one = titled(&everywhere, "Insert this barrier");
    assert_eq!(one.len(), 2, "{one:#?}");
    for a in one {
        assert_eq!(apply(&text, a, &uri).matches("__syncthreads();").count(), 1, "{a}");
    }

    // The editor applies the fix and saves: no diagnostics are left.
    let change = json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]});
    c.notify("textDocument/didChange", change);
    c.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}, "text": fixed}),
    );
    let p = c.diagnostics(&uri);
    assert_eq!(
        (p["version"].as_i64(), p["diagnostics"].clone()),
        (Some(2), json!([])),
        "{p}"
    );
    c.shut_down(0);
}

#[test]
fn suppressing_a_finding_writes_the_comment_the_cli_honours() {
    let (_d, f) = copy_to_temp("micro/two_races_two_barriers.cu");
    let uri = uri_of(&f);
    let text = std::fs::read_to_string(&f).unwrap();
    let mut c = Client::start();
    c.initialize();
    c.open(&uri, &text);
    let race = c.diagnostics(&uri)["diagnostics"][0].clone();
    let actions = c.code_actions(&uri, race["range"].clone());
    let sup = titled(&actions, "Suppress this finding");
    assert_eq!(sup.len(), 1, "{actions:#?}");
    let edited = apply(&text, sup[0], &uri);
    assert_eq!(
        edited.lines().nth(8),
        Some("    a[t] = in[t]; // autosync: ignore[race]")
    );
    std::fs::write(&f, &edited).unwrap();
    let v: Value = serde_json::from_str(&stdout_of(&["check", "--format", "json"], &f)).unwrap();
    assert_eq!(
        (
            v["summary"]["races_found"].as_u64(),
            v["summary"]["suppressed"].as_u64()
        ),
        (Some(1), Some(1))
    );
    c.shut_down(0);
}

#[test]
fn a_redundant_barrier_is_removed_as_minimize_removes_it_with_the_files_config() {
    let (d, f) = copy_to_temp("regress/redundant_barriers.cu");
    // The config gives the loop bound (autosync.yaml is honoured as by the command line).
    std::fs::write(
        d.path().join("autosync.yaml"),
        "kernels:\n  - name: redundant_barriers\n    params: { n: 4 }\n",
    )
    .unwrap();
    let uri = uri_of(&f);
    let text = std::fs::read_to_string(&f).unwrap();
    let mut c = Client::start();
    c.initialize();
    c.open(&uri, &text);
    assert_eq!(c.diagnostics(&uri)["diagnostics"], json!([]));
    let line10 = json!({"start": {"line": 9, "character": 8}, "end": {"line": 9, "character": 8}});
    let actions = c.code_actions(&uri, line10);
    let rm = titled(&actions, "Remove redundant barrier (line 10)");
    assert_eq!(rm.len(), 1, "{actions:#?}");
    assert_eq!(
        apply(&text, rm[0], &uri),
        stdout_of(&["fix", "--minimize", "--stdout"], &f)
    );
    c.shut_down(0);
}

#[test]
fn a_newer_version_supersedes_the_check_in_flight() {
    let (_d, f) = copy_to_temp("micro/two_races_two_barriers.cu");
    let uri = uri_of(&f);
    let text = std::fs::read_to_string(&f).unwrap();
    let clean = stdout_of(&["fix", "--stdout"], &f);
    let mut c = Client::start();
    c.initialize();
    // Open the racy text, then change and save the clean one at once: the first check is
    // still running when the change arrives, and its result must never be published.
    let doc = json!({"uri": uri, "languageId": "cuda", "version": 1, "text": text});
    let mut bytes =
        frame(&json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": doc}}));
    let change = json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": clean}]});
    bytes.extend(frame(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": change}),
    ));
    let save = json!({"textDocument": {"uri": uri}});
    bytes.extend(frame(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didSave", "params": save}),
    ));
    c.write_raw(&bytes);
    let p = c.diagnostics(&uri);
    assert_eq!(
        (p["version"].as_i64(), p["diagnostics"].clone()),
        (Some(2), json!([])),
        "{p}"
    );
    c.shut_down(0);
}

#[test]
fn malformed_messages_and_unreadable_files_get_errors_and_the_server_lives_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut c = Client::start();
    // Before initialize, requests are refused.
    let r = c.call("textDocument/codeAction", json!({}));
    assert_eq!(r["error"]["code"], -32002, "{r}");
    c.initialize();
    c.write_raw(b"Content-Length: 9\r\n\r\n{\"jsonrpc");
    let r = c.wait_for("parse error", |m| m["error"]["code"] == -32700);
    assert!(r["id"].is_null(), "{r}");
    let r = c.call("textDocument/codeAction", json!(5));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = c.call("no/such/method", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // A document that is not open, and a saved file that cannot be read.
    let missing = uri_of(&dir.path().join("missing.cu"));
    let range = json!({"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}});
    let params = json!({"textDocument": {"uri": missing}, "range": range, "context": {"diagnostics": []}});
    let r = c.call("textDocument/codeAction", params);
    assert_eq!(r["error"]["code"], -32602, "{r}");
    c.notify("textDocument/didSave", json!({"textDocument": {"uri": missing}}));
    let p = c.diagnostics(&missing);
    let message = p["diagnostics"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("cannot read") && message.contains("missing.cu"), "{p}");
    // A file the front end cannot read is located where `check` locates it (1:10).
    let inc = dir.path().join("inc.cu");
    let text = "#include \"missing.h\"\n__global__ void k(float *a) { a[threadIdx.x] = 1; }\n";
    std::fs::write(&inc, text).unwrap();
    c.open(&uri_of(&inc), text);
    let p = c.diagnostics(&uri_of(&inc));
    let d = &p["diagnostics"][0];
    assert_eq!(d["range"]["start"], json!({"line": 0, "character": 9}), "{p}");
    assert!(
        d["message"].as_str().unwrap().contains("'missing.h' file not found"),
        "{p}"
    );
    c.shut_down(0);
}

#[test]
fn exit_without_shutdown_is_exit_code_1() {
    let mut c = Client::start();
    c.initialize();
    c.notify("exit", Value::Null);
    c.exit_code(1);
}

/// A real client: headless Neovim's built-in LSP client attaches `autosync server` to a copy
/// of a racy kernel, waits for its diagnostics, applies "Insert the barriers autosync
/// synthesized" and writes the buffer; the file must then be what `fix` writes.
#[test]
#[ignore = "needs Neovim (`nvim` on PATH); .ci/run installs it and runs this test"]
fn neovim_applies_the_barrier_action_and_writes_what_fix_writes() {
    let (d, f) = copy_to_temp("micro/two_races_two_barriers.cu");
    let want = stdout_of(&["fix", "--stdout"], &f);
    let script = d.path().join("drive.lua");
    std::fs::write(&script, include_str!("server_neovim.lua")).unwrap();
    let mut nvim = Command::new("nvim")
        .args(["--headless", "--clean", "-n", "-c"])
        .arg(format!("luafile {}", script.display()))
        .env("AUTOSYNC_FILE", &f)
        .env("AUTOSYNC_BIN", env!("CARGO_BIN_EXE_autosync"))
        .stdin(Stdio::null())
        .spawn()
        .expect("nvim runs (install Neovim 0.7 or later)");
    let end = Instant::now() + 2 * DEADLINE;
    let status = loop {
        if let Some(s) = nvim.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > end {
            let _ = nvim.kill();
            panic!("Neovim did not finish");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "Neovim: {status}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), want);
}

/// A save of unchanged text keeps the last analysis's code actions (the check, from the result
/// cache, finds what it found); a save after a header it includes changed checks again and
/// offers what the new findings need.
#[test]
fn a_save_of_unchanged_text_keeps_its_actions_unless_a_header_changed() {
    let d = tempfile::tempdir().unwrap();
    let (f, header) = (d.path().join("k.cu"), d.path().join("sync.cuh"));
    let text = "//--blockDim=64 --gridDim=4\n#include \"sync.cuh\"\n\n__global__ void shifted(const float *in, float *out) {\n    __shared__ float s[64];\n    int t = threadIdx.x, g = blockIdx.x * 64 + t;\n    s[t] = in[g];\n    sync_all();\n    out[g] = s[(t + 1) % 64];\n}\n";
    std::fs::write(&f, text).unwrap();
    std::fs::write(&header, "__device__ inline void sync_all() { /*syncthreads*/ }\n").unwrap();
    let uri = uri_of(&f);
    let mut c = Client::start();
    c.initialize();
    c.open(&uri, text);
    let first = c.diagnostics(&uri)["diagnostics"].clone();
    assert_eq!(first.as_array().map(Vec::len), Some(1), "{first}");
    let actions = c.code_actions(&uri, whole(text));
    assert_eq!(titled(&actions, "Insert the").len(), 1, "{actions:#?}");

    let save = json!({"textDocument": {"uri": uri}, "text": text});
    c.notify("textDocument/didSave", save.clone());
    assert_eq!(c.diagnostics(&uri)["diagnostics"], first);
    assert_eq!(c.code_actions(&uri, whole(text)), actions, "the same actions, kept");

    std::fs::write(&header, "__device__ inline void sync_all() { __syncthreads(); }\n").unwrap();
    c.notify("textDocument/didSave", save);
    assert_eq!(
        c.diagnostics(&uri)["diagnostics"],
        json!([]),
        "the header now orders the race"
    );
    assert!(titled(&c.code_actions(&uri, whole(text)), "Insert").is_empty());
    c.shut_down(0);
}

/// A sum of thousands of terms (generated code) is read and checked by the server as by the
/// command line: no stack overflow in the worker or on the pool its kernels run on.
#[test]
fn deep_code_is_checked_without_a_stack_overflow() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("sum.cu");
    let sum = vec!["a"; 3000].join(" + ");
    let text = format!(
        "//--blockDim=64 --gridDim=1\n__global__ void deep_sum(float *out, float a) {{\n    __shared__ float s[64];\n    s[threadIdx.x] = {sum};\n    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];\n}}\n"
    );
    std::fs::write(&f, &text).unwrap();
    let uri = uri_of(&f);
    let mut c = Client::start();
    c.initialize();
    c.open(&uri, &text);
    let p = c.diagnostics(&uri);
    assert_eq!(p["diagnostics"][0]["code"], "race", "{p}");
    c.shut_down(0);
}
