#!/usr/bin/env python3
"""Time `autosync server`'s answer to a save of an unchanged file.

    python3 benches/server_save.py --autosync target/release/autosync [--saves N] FILE...

For each FILE: start the server (its result cache in a fresh directory), open the file, wait
for its diagnostics (the cold check) and for the end of its analysis (`$/progress` end: the
code actions), then save it N times unchanged and time each save's
`textDocument/publishDiagnostics` from the moment the notification is sent (waiting for the
analysis to end before the next save, as an editor's user would). Prints the cold
time and the median and maximum of the saves per file. Python 3.11 standard library only.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time


def frame(msg):
    body = json.dumps(msg).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_msg(out):
    length = None
    while True:
        line = out.readline()
        if not line:
            raise EOFError("the server closed its output")
        line = line.strip()
        if not line:
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(out.read(length))


class Server:
    def __init__(self, exe, cache):
        self.p = subprocess.Popen([exe, "server", "--cache-dir", cache], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.next_id = 1

    def send(self, msg):
        self.p.stdin.write(frame(msg))
        self.p.stdin.flush()

    def request(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            m = read_msg(self.p.stdout)
            if m.get("id") == rid and "method" not in m:
                return m
            self.answer(m)

    def answer(self, m):
        # Requests from the server (progress tokens): accept them.
        if "id" in m and "method" in m:
            self.send({"jsonrpc": "2.0", "id": m["id"], "result": None})

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics_for(self, uri):
        while True:
            m = read_msg(self.p.stdout)
            self.answer(m)
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]["diagnostics"]

    def idle(self):
        """Waits for the end of the work in progress (synthesis after the diagnostics)."""
        while True:
            m = read_msg(self.p.stdout)
            self.answer(m)
            if m.get("method") == "$/progress" and m["params"]["value"].get("kind") == "end":
                return

    def close(self):
        self.request("shutdown", None)
        self.notify("exit", None)
        self.p.wait(timeout=30)


def bench(exe, path, saves):
    path = pathlib.Path(path).resolve()
    uri = path.as_uri()
    text = path.read_text()
    with tempfile.TemporaryDirectory(prefix="autosync-server-bench-") as cache:
        s = Server(exe, cache)
        s.request("initialize", {"processId": os.getpid(), "rootUri": path.parent.as_uri(),
                                 "capabilities": {"window": {"workDoneProgress": True}}})
        s.notify("initialized", {})
        t0 = time.monotonic()
        s.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cuda",
                                                           "version": 1, "text": text}})
        s.diagnostics_for(uri)
        cold = time.monotonic() - t0
        s.idle()
        times = []
        for _ in range(saves):
            t0 = time.monotonic()
            s.notify("textDocument/didSave", {"textDocument": {"uri": uri}, "text": text})
            s.diagnostics_for(uri)
            times.append(time.monotonic() - t0)
            s.idle()
        s.close()
    return cold, times


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--autosync", required=True)
    ap.add_argument("--saves", type=int, default=10)
    ap.add_argument("files", nargs="+")
    o = ap.parse_args()
    print("| file | open (cold) ms | save median ms | save max ms |")
    print("| --- | --- | --- | --- |")
    for f in o.files:
        cold, times = bench(os.path.abspath(o.autosync), f, o.saves)
        print(f"| {f} | {1000 * cold:.0f} | {1000 * statistics.median(times):.1f} | "
              f"{1000 * max(times):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
