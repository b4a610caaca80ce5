#!/usr/bin/env python3
"""Run autosync over a production CUDA code base (ggml's `src/ggml-cuda`) and tabulate it.

    python3 benches/production.py --autosync target/release/autosync \\
        --root /work/suites/ggml --files 'src/ggml-cuda/*.cu' \\
        --cuda-path TOOLKIT [-I include -I src] [--timeout S] [--jobs N] \\
        [--clang-baseline] [--warm] [--repeat N] [--json-out FILE] [--markdown FILE]
        [--extra-arg ARG ...]

Every file is checked on its own, as a user would run it from the code base's root:
`autosync check --format json -j 1 --no-config --cuda-path TOOLKIT -I ... FILE`, cold
(`--no-cache`). With --warm, each file is then checked once more to fill a fresh result cache
and --repeat times from it (`--cache-dir`): the warm time per file, and whether any kernel's
result differs from the cold run's (`moved`: must be 0).

Per kernel instantiation the table says: clean / defects (the rules found) / inconclusive (with
the reason) / elsewhere (a kernel template the file neither instantiates nor launches: the code
base instantiates it in another file, where it is checked; not counted as this file's); per file: kernels, seconds (median of --repeat runs), the file error if the file
stopped before any kernel was checked (its kind and message), and with --clang-baseline the
time of Clang's own `-fsyntax-only` on the same file with the same toolkit, flags and
architecture (what autosync's front end costs at least) and the ratio.

Outcome per file: `ok` (exit 0/1 with a JSON document), `inconclusive` (exit 4, some kernels
inconclusive), `error` (exit 2), `timeout`, `crash` (a signal, a panic, or no JSON document).

Exit status: 0, or 1 when any file crashed. Python 3.11 standard library only.
"""

import argparse
import concurrent.futures
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time


def run_autosync(path, opts, cache=None):
    cmd = [opts.autosync, "check", "--format", "json", "-j", "1", "--no-config",
           "--cuda-path", opts.cuda_path]
    cmd += ["--cache-dir", cache] if cache else ["--no-cache"]
    for d in opts.include:
        cmd += ["-I", d]
    cmd += [*opts.extra_arg, path]
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=opts.root, capture_output=True, text=True, errors="replace",
                           timeout=opts.timeout)
    except subprocess.TimeoutExpired:
        return {"outcome": "timeout", "seconds": time.monotonic() - t0, "command": cmd}
    secs = time.monotonic() - t0
    res = {"exit": p.returncode, "seconds": secs, "command": cmd}
    if p.returncode < 0 or "panicked" in p.stderr:
        res.update(outcome="crash", stderr=p.stderr[-2000:])
        return res
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        res.update(outcome="crash", stderr=p.stderr[-2000:])
        return res
    res["outcome"] = {0: "ok", 1: "ok", 4: "inconclusive", 2: "error"}.get(p.returncode, "crash")
    res["kernels"] = [kernel_row(k) for k in doc.get("kernels", [])]
    res["errors"] = [{"kind": e.get("kind"), "message": e.get("message"),
                      "line": e.get("line"), "column": e.get("column")}
                     for e in doc.get("errors", [])]
    env = next((k.get("environment") for k in doc.get("kernels", []) if k.get("environment")), None)
    res["environment"] = env
    return res


def kernel_row(k):
    rules = sorted({d.get("rule") for d in k.get("defects", []) if d.get("rule") != "inconclusive"})
    reasons = [d.get("message", "") for d in k.get("defects", []) if d.get("rule") == "inconclusive"]
    verdict = k.get("verdict") or k.get("status")
    # A kernel template this file neither instantiates nor launches is checked where the code
    # base instantiates it: not one of this file's kernel instantiations.
    if k.get("checker") == "front end" and any("has no instantiation in this file" in r for r in reasons):
        verdict = "elsewhere"
    return {"kernel": k.get("kernel"), "verdict": verdict,
            "rules": rules, "reason": reasons[0] if reasons else "",
            "errors": sum(1 for d in k.get("defects", []) if d.get("severity") == "error"
                          and d.get("rule") != "inconclusive"),
            "warnings": sum(1 for d in k.get("defects", []) if d.get("severity") == "warning"),
            "millis": (k.get("stats") or {}).get("millis")}


def clang_baseline(path, opts, env):
    """Clang's own -fsyntax-only of the file in the device pass autosync runs."""
    clang = (env or {}).get("clang") or "clang-19"
    cuda = ((env or {}).get("cuda") or {}).get("path") or opts.cuda_path
    arch = (env or {}).get("arch") or "sm_80"
    cmd = [clang, "-x", "cuda", "--cuda-device-only", "-nocudalib", f"--cuda-gpu-arch={arch}",
           f"--cuda-path={cuda}", "-std=c++17", "-fsyntax-only", "-Wno-unknown-cuda-version"]
    for d in opts.include:
        cmd += ["-I", d]
    cmd.append(path)
    t0 = time.monotonic()
    try:
        subprocess.run(cmd, cwd=opts.root, capture_output=True, timeout=opts.timeout)
    except subprocess.TimeoutExpired:
        return None
    return time.monotonic() - t0


def run_file(path, opts):
    runs = [run_autosync(path, opts) for _ in range(opts.repeat)]
    res = dict(runs[-1])
    res["path"] = path
    res["seconds"] = statistics.median(r["seconds"] for r in runs)
    if opts.warm:
        cache = os.path.join(opts.cache_root, re.sub(r"[^A-Za-z0-9_.-]", "_", path))
        run_autosync(path, opts, cache)
        warm = [run_autosync(path, opts, cache) for _ in range(opts.repeat)]
        res["warm_seconds"] = statistics.median(r["seconds"] for r in warm)
        plain = lambda rows: [{k: v for k, v in row.items() if k != "millis"} for row in rows or []]
        res["moved"] = plain(warm[-1].get("kernels")) != plain(res.get("kernels"))
    if opts.clang_baseline:
        times = [clang_baseline(path, opts, res.get("environment")) for _ in range(opts.repeat)]
        times = [t for t in times if t is not None]
        res["clang_seconds"] = statistics.median(times) if times else None
    return res


def short(s, n=90):
    s = re.sub(r"\s+", " ", s or "").strip()
    return s if len(s) <= n else s[: n - 1] + "…"


def summarize(results):
    every = [k for r in results for k in r.get("kernels", [])]
    elsewhere = sum(1 for k in every if k["verdict"] == "elsewhere")
    kernels = [k for k in every if k["verdict"] != "elsewhere"]
    verdicts = {}
    for k in kernels:
        verdicts[k["verdict"]] = verdicts.get(k["verdict"], 0) + 1
    files = {}
    for r in results:
        files[r["outcome"]] = files.get(r["outcome"], 0) + 1
    secs = sorted(r["seconds"] for r in results)
    p90 = secs[min(len(secs) - 1, int(0.9 * len(secs)))] if secs else 0
    decided = verdicts.get("clean", 0) + verdicts.get("defects", 0)
    warm = sorted(r["warm_seconds"] for r in results if "warm_seconds" in r)
    warm_stats = {"warm_median_seconds": statistics.median(warm), "warm_max_seconds": warm[-1],
                  "warm_total_seconds": sum(warm),
                  "moved": sum(1 for r in results if r.get("moved"))} if warm else {}
    return warm_stats | {"files": len(results), "file_outcomes": files, "kernels": len(kernels),
            "templates_instantiated_elsewhere": elsewhere,
            "verdicts": verdicts, "decided": decided,
            "decided_share": decided / len(kernels) if kernels else 0.0,
            "files_all_decided": sum(1 for r in results if r.get("kernels") and
                                     all(k["verdict"] in ("clean", "defects", "elsewhere")
                                         for k in r["kernels"])),
            "median_seconds": statistics.median(secs) if secs else 0, "p90_seconds": p90,
            "max_seconds": secs[-1] if secs else 0}


def markdown(results, summary):
    out = ["| file | kernel | verdict | rules / reason | s (file) | clang s | ratio |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in results:
        name = os.path.basename(r["path"])
        secs = f"{r['seconds']:.2f}"
        cs = r.get("clang_seconds")
        clang = f"{cs:.2f}" if cs else ""
        ratio = f"{r['seconds'] / cs:.2f}" if cs else ""
        if not r.get("kernels"):
            why = r["outcome"]
            if r.get("errors"):
                e = r["errors"][0]
                why = f"{r['outcome']}: {e.get('kind')}: {short(e.get('message'))}"
            out.append(f"| {name} | — | {r['outcome']} | {why} | {secs} | {clang} | {ratio} |")
            continue
        for i, k in enumerate(r["kernels"]):
            what = ", ".join(k["rules"]) if k["verdict"] == "defects" else short(k["reason"])
            tail = f"{secs} | {clang} | {ratio}" if i == 0 else " | | "
            out.append(f"| {name} | `{short(k['kernel'], 60)}` | {k['verdict']} | {what} | {tail} |")
    s = summary
    out.append("")
    out.append(f"Files: {s['files']} ({s['file_outcomes']}); kernel instantiations: {s['kernels']} "
               f"(and {s['templates_instantiated_elsewhere']} kernel templates instantiated in other files) "
               f"({s['verdicts']}); with a verdict: {s['decided']} ({100 * s['decided_share']:.1f} %); "
               f"files with a verdict for every kernel: {s['files_all_decided']}; seconds per file: "
               f"median {s['median_seconds']:.2f}, p90 {s['p90_seconds']:.2f}, max {s['max_seconds']:.2f}.")
    if "warm_median_seconds" in s:
        out.append(f"From the result cache: seconds per file median {s['warm_median_seconds']:.3f}, "
                   f"max {s['warm_max_seconds']:.3f}, all files {s['warm_total_seconds']:.2f}; "
                   f"files whose results moved: {s['moved']}.")
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--autosync", required=True)
    ap.add_argument("--root", required=True, help="the code base's root (commands run there)")
    ap.add_argument("--files", default="src/ggml-cuda/*.cu", help="glob under --root")
    ap.add_argument("--cuda-path", required=True)
    ap.add_argument("-I", dest="include", action="append", default=None)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--clang-baseline", action="store_true")
    ap.add_argument("--warm", action="store_true", help="also time checks answered from the result cache")
    ap.add_argument("--extra-arg", action="append", default=[])
    ap.add_argument("--json-out")
    ap.add_argument("--markdown")
    opts = ap.parse_args(argv)
    if opts.include is None:
        opts.include = ["include", "src"]
    opts.autosync = os.path.abspath(opts.autosync)
    files = sorted(os.path.relpath(p, opts.root) for p in glob.glob(os.path.join(opts.root, opts.files)))
    if not files:
        sys.exit(f"production.py: no file matches {opts.files} under {opts.root}")
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="autosync-bench-cache-") as cache_root:
        opts.cache_root = cache_root
        with concurrent.futures.ThreadPoolExecutor(max_workers=opts.jobs) as pool:
            results = list(pool.map(lambda f: run_file(f, opts), files))
    summary = summarize(results)
    summary["wall_seconds"] = time.monotonic() - t0
    text = markdown(results, summary)
    print(text)
    if opts.markdown:
        with open(opts.markdown, "w", encoding="utf-8") as f:
            f.write(text)
    if opts.json_out:
        with open(opts.json_out, "w", encoding="utf-8") as f:
            json.dump({"summary": summary, "files": results}, f, indent=1)
    return 1 if any(r["outcome"] == "crash" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
