#!/usr/bin/env python3
"""Run autosync on a classified kernel suite (GPUVerify's CUDA regression suite) and count outcomes.

    python3 benches/suite.py --autosync target/release/autosync \\
        --suite-dir /work/suites/gpuverify --classes benches/suites/gpuverify_cuda.tsv \\
        [--jobs N] [--timeout S] [--extra-arg ARG ...] [--json-out FILE] [--verbose]

Every kernel file of the class list is checked on its own with
`autosync check --format json -j 1 --no-config --no-compile-commands FILE` plus the file's
GPUVerify header flags, translated (see translate_flags), plus every --extra-arg.

Outcome per kernel:
  clean         exit 0 and no finding that counts
  race          a race finding (rule `race` or `benign-race`, any severity)
A false alarm is a pass kernel with an error finding (exit 1/3); pass kernels with only
benign-race warnings (exit 0) are counted apart.
  divergence    a barrier-divergence finding
  other-defect  another finding (deadlock, count-mismatch, bad-id, ...)
  inconclusive  exit 4        error  exit 2        unfixable  exit 3
  timeout       ran past --timeout
  crash         any other exit status, a signal, or exit 0/1 without a JSON document
When a kernel has findings of several kinds, the expected class wins if it is among them,
otherwise race > divergence > other-defect. With `--only-divergence` in the header only
barrier-divergence findings count (races are ignored for that file, as GPUVerify does).

Exit status: 0, or 1 when an expected race/divergence kernel came back clean (MISSED).
Python 3.11 standard library only.
"""

import argparse
import concurrent.futures
import json
import os
import re
import statistics
import subprocess
import sys
import time

CLASSES = ["pass", "race", "divergence", "other"]
OUTCOMES = ["clean", "race", "divergence", "other-defect", "inconclusive", "error", "unfixable",
            "timeout", "crash"]

# GPUVerify flags that steer its own pipeline (Bugle, Boogie, invariant inference) and have no
# autosync counterpart; they are dropped. `--only-divergence` is handled by the runner.
IGNORED_FLAGS = {
    "--no-inline", "--inline", "--loop-unwind", "--equality-abstraction", "--boogie-file",
    "--no-infer", "--adversarial-abstraction", "--array-equalities", "--asymmetric-asserts",
    "--no-barrier-access-checks", "--no-loop-predicate-invariants", "--no-smart-predication",
    "--no-source-loc-infer", "--no-uniformity-analysis", "--call-site-analysis", "--math-int",
    "--clang-opt", "--opt-opt", "--bugle-opt", "--vcgen-opt", "--cruncher-opt", "--boogie-opt",
    "--silent", "--verify", "--findbugs", "--verbose", "--time", "--timeout",
    "--no-refined-atomics", "--kernel-args", "--kernel-arrays", "--only-log",
}


def translate_flags(flags):
    """GPUVerify header flags -> (autosync args, only_divergence, ignored, unknown)."""
    args, ignored, unknown = [], [], []
    only_div = False
    for tok in flags.split():
        name, _, val = tok.partition("=")
        if name in ("--blockDim", "--gridDim"):
            # autosync reads the launch from the file's header line itself, as a user running it
            # on the file gets it (a verifier's header may give more than 1024 threads, which
            # autosync checks as given; the same block from --block-dim is a launch error).
            pass
        elif name == "--warp-sync":
            args += ["--warp-sync", val or "32"]
        elif tok.startswith("-D") and len(tok) > 2:
            args += ["-D", tok[2:]]
        elif tok == "--only-divergence":
            only_div = True
        elif name in IGNORED_FLAGS:
            ignored.append(tok)
        else:
            unknown.append(tok)
    return args, only_div, ignored, unknown


def read_classes(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cols = line.rstrip("\n").split("\t")
            cols += [""] * (6 - len(cols))
            rows.append({"path": cols[0], "class": cols[1], "status": cols[2], "flags": cols[3],
                         "expected": cols[4]})
    return rows


def suite_root(d):
    cand = os.path.join(d, "testsuite", "CUDA")
    return cand if os.path.isdir(cand) else d


def finding_kind(rule):
    if rule in ("race", "benign-race"):
        return "race"
    if rule == "barrier-divergence":
        return "divergence"
    if rule == "inconclusive":
        return None
    return "other-defect"


def run_one(row, opts, root):
    tr_args, only_div, ignored, unknown = translate_flags(row["flags"])
    cmd = [opts.autosync, "check", "--format", "json", "-j", str(opts.autosync_jobs), "--no-config",
           "--no-compile-commands", *tr_args, *opts.extra_arg, row["path"]]
    res = {"path": row["path"], "class": row["class"], "command": cmd, "only_divergence": only_div,
           "ignored_flags": ignored, "unknown_flags": unknown}
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=root, capture_output=True, text=True, errors="replace",
                           timeout=opts.timeout)
    except subprocess.TimeoutExpired:
        res.update(outcome="timeout", exit=None, seconds=round(time.monotonic() - t0, 3),
                   kinds=[], messages=[f"timeout after {opts.timeout} s"], stderr_tail="")
        return res
    res["seconds"] = round(time.monotonic() - t0, 3)
    res["exit"] = p.returncode
    res["stderr_tail"] = p.stderr[-2000:]
    doc = None
    try:
        doc = json.loads(p.stdout) if p.stdout.strip() else None
    except json.JSONDecodeError:
        pass
    kinds, findings, messages = set(), [], []
    if doc:
        for err in doc.get("errors", []):
            msg = f"[{err.get('kind', 'error')}] {err.get('message', '')}"
            if err.get("help"):
                msg += f" (help: {err['help']})"
            messages.append(msg)
        for k in doc.get("kernels", []):
            for d in k.get("defects", []):
                rule = d.get("rule", "")
                kind = finding_kind(rule)
                if rule == "inconclusive":
                    messages.append(f"[inconclusive {k.get('kernel')}] {d.get('message', '')}")
                    continue
                findings.append({"kernel": k.get("kernel"), "rule": rule,
                                 "severity": d.get("severity"), "message": d.get("message", ""),
                                 "inter_block": d.get("inter_block", False)})
                if only_div and kind != "divergence":
                    continue
                kinds.add(kind)
            for r in k.get("reasons", []) or []:
                messages.append(f"[reason {k.get('kernel')}] {r}")
    elif p.returncode not in (0, 1):
        tail = [l for l in p.stderr.splitlines() if l.strip()]
        messages.extend(tail[:3])
    res["kinds"] = sorted(kinds)
    res["findings"] = findings
    res["messages"] = messages
    code = p.returncode
    if code in (0, 1) and doc is None:
        res["outcome"] = "crash"
        res["messages"] = [f"exit status {code} without a JSON document on stdout"] + messages
    elif code in (0, 1):
        if row["class"] in kinds:
            res["outcome"] = row["class"]
        else:
            res["outcome"] = next((k for k in ("race", "divergence", "other-defect") if k in kinds),
                                  "clean")
        if code == 1 and not kinds and not only_div:
            res["outcome"] = "other-defect"  # exit 1 without a finding we recognise
    elif code == 2:
        res["outcome"] = "error"
    elif code == 3:
        res["outcome"] = "unfixable"
    elif code == 4:
        res["outcome"] = "inconclusive"
    else:
        res["outcome"] = "crash"
        if not messages:
            res["messages"] = [f"exit status {code}"]
    return res


def normalise(msg):
    """A message with locations, numbers and quoted names blurred, to group failures by cause."""
    m = re.sub(r" \(help: .*\)$", "", msg)
    m = re.sub(r"\S+\.cuh?:\d+(:\d+)?:?", "FILE:L:", m)
    m = re.sub(r"`[^`]*`", "`X`", m)
    m = re.sub(r"'[^']*'", "'X'", m)
    m = re.sub(r"\b\d+\b", "N", m)
    return m[:160]


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def report(results, opts, out=sys.stdout):
    w = out.write
    classes = [c for c in CLASSES if any(r["class"] == c for r in results)]
    classes += sorted({r["class"] for r in results} - set(classes))
    cols = [o for o in OUTCOMES if any(r["outcome"] == o for r in results)]
    w(f"\n{'class':<11}" + "".join(f"{o:>13}" for o in cols) + f"{'total':>8}\n")
    for c in classes:
        row = [sum(1 for r in results if r["class"] == c and r["outcome"] == o) for o in cols]
        w(f"{c:<11}" + "".join(f"{n:>13}" for n in row) + f"{sum(row):>8}\n")
    tot = [sum(1 for r in results if r["outcome"] == o) for o in cols]
    w(f"{'total':<11}" + "".join(f"{n:>13}" for n in tot) + f"{len(results):>8}\n\n")

    main = [r for r in results if r["class"] in ("pass", "race", "divergence")]
    read = [r for r in main if r["exit"] in (0, 1, 3) and r["outcome"] != "crash"]
    w(f"read (exit 0/1/3): {len(read)} of {len(main)} pass/race/divergence kernels\n")
    missed = [r for r in main if r["class"] in ("race", "divergence") and r["outcome"] == "clean"]
    w(f"MISSED (expected race/divergence, reported clean): {len(missed)}\n")
    for r in missed:
        w(f"  MISSED {r['path']} ({r['class']})\n")
    wrong = [r for r in main if r["class"] in ("race", "divergence")
             and r["outcome"] in ("race", "divergence", "other-defect") and r["outcome"] != r["class"]]
    if wrong:
        w(f"expected race/divergence, found another kind: {len(wrong)}\n")
        for r in wrong:
            w(f"  {r['path']} ({r['class']} -> {r['outcome']})\n")
    found = sum(1 for r in main if r["class"] in ("race", "divergence") and r["outcome"] == r["class"])
    n_bad = sum(1 for r in main if r["class"] in ("race", "divergence"))
    w(f"expected race/divergence found: {found} of {n_bad}\n")
    # A false alarm is an error on a pass kernel (exit 1 or 3). A benign-race warning alone
    # (exit 0: every thread stores the value the others store) is listed apart: it is not an
    # error unless --strict asks for one.
    flagged = [r for r in main if r["class"] == "pass" and r["outcome"] in ("race", "divergence", "other-defect")]
    alarms = [r for r in flagged if r["exit"] != 0]
    warned = [r for r in flagged if r["exit"] == 0]
    w(f"false alarms on pass kernels (errors): {len(alarms)}\n")
    for r in alarms:
        first = next((f for f in r["findings"] if finding_kind(f["rule"]) in r["kinds"]), None)
        desc = f"{first['rule']}/{first['severity']}: {first['message']}" if first else ""
        w(f"  {r['path']} ({r['outcome']}) {desc[:200]}\n")
    w(f"benign-race warnings only on pass kernels (exit 0): {len(warned)}\n")
    for r in warned:
        first = next((f for f in r["findings"] if finding_kind(f["rule"]) in r["kinds"]), None)
        w(f"  {r['path']} {(first['message'] if first else '')[:160]}\n")
    benign_only = [r for r in results if r["outcome"] == "race" and r["exit"] == 0]
    if benign_only:
        w(f"  (race outcomes from benign-race warnings only, exit 0: "
          f"{', '.join(r['path'] + ' [' + r['class'] + ']' for r in benign_only)})\n")
    other = [r for r in results if r["class"] == "other"]
    if other:
        agg = {}
        for r in other:
            agg[r["outcome"]] = agg.get(r["outcome"], 0) + 1
        w(f"'other' kernels ({len(other)}): " + ", ".join(f"{k} {v}" for k, v in sorted(agg.items())) + "\n")
        if opts.verbose:
            for r in other:
                w(f"  {r['path']}: {r['outcome']}\n")

    fails = [r for r in results if r["outcome"] in ("error", "inconclusive", "unfixable", "timeout", "crash")]
    if fails:
        groups = {}
        for r in fails:
            key = (r["outcome"], normalise(r["messages"][0]) if r["messages"] else "(no message)")
            groups.setdefault(key, []).append(r)
        w(f"\nnot read ({len(fails)}), grouped by first message:\n")
        for (outcome, key), rs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            w(f"  {len(rs):>3} {outcome}: {key}\n      e.g. {', '.join(r['path'] for r in rs[:2])}\n")
        if opts.verbose:
            w("\nevery failure:\n")
            for r in fails:
                w(f"  {r['path']} [{r['class']}] {r['outcome']}: {' || '.join(r['messages'])[:400]}\n")

    times = [r["seconds"] for r in results]
    if times:
        w(f"\nper-kernel time: median {statistics.median(times):.3f} s, p90 {pct(times, 0.9):.3f} s, "
          f"max {max(times):.3f} s, total {sum(times):.1f} s\n")
        slow = sorted(results, key=lambda r: -r["seconds"])[:5]
        w("slowest: " + ", ".join(f"{r['path']} {r['seconds']:.2f} s ({r['outcome']})" for r in slow) + "\n")
    unknown = sorted({f for r in results for f in r["unknown_flags"]})
    if unknown:
        w(f"unknown header flags (dropped): {' '.join(unknown)}\n")
    return missed


def parse_args(argv):
    # `--extra-arg --cuda-path=DIR` must not be read as an option of this script.
    fixed, i = [], 0
    while i < len(argv):
        if argv[i] == "--extra-arg" and i + 1 < len(argv):
            fixed.append("--extra-arg=" + argv[i + 1])
            i += 2
        else:
            fixed.append(argv[i])
            i += 1
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--autosync", required=True, help="the autosync binary")
    ap.add_argument("--suite-dir", required=True,
                    help="the extracted suite (containing testsuite/CUDA) or the kernel root itself")
    ap.add_argument("--classes", required=True, help="TSV of path, class, status, flags, ...")
    ap.add_argument("--jobs", type=int, default=1, help="kernels checked at once (default 1)")
    ap.add_argument("--autosync-jobs", type=int, default=1, help="autosync's own -j (default 1)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per kernel (default 300)")
    ap.add_argument("--extra-arg", action="append", default=[],
                    help="argument added to every autosync command (repeatable)")
    ap.add_argument("--only", default=None, help="only paths containing this substring")
    ap.add_argument("--json-out", default=None, help="write per-kernel results here")
    ap.add_argument("--verbose", action="store_true",
                    help="per-kernel lines, dropped header flags, every failure message")
    return ap.parse_args(fixed)


def main(argv=None):
    opts = parse_args(sys.argv[1:] if argv is None else argv)
    opts.autosync = os.path.abspath(opts.autosync) if os.sep in opts.autosync else opts.autosync
    root = suite_root(opts.suite_dir)
    rows = read_classes(opts.classes)
    if opts.only:
        rows = [r for r in rows if opts.only in r["path"]]
    missing = [r["path"] for r in rows if not os.path.isfile(os.path.join(root, r["path"]))]
    if missing:
        sys.exit(f"suite.py: {len(missing)} kernels of {opts.classes} not under {root}, e.g. {missing[0]}")
    if opts.verbose:
        for r in rows:
            _, _, ignored, unknown = translate_flags(r["flags"])
            if unknown:
                print(f"{r['path']}: unknown header flags dropped: {' '.join(unknown)}", file=sys.stderr)
    t0 = time.monotonic()
    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs)) as pool:
        futs = {pool.submit(run_one, r, opts, root): r for r in rows}
        for n, fut in enumerate(concurrent.futures.as_completed(futs), 1):
            res = fut.result()
            results.append(res)
            if opts.verbose:
                print(f"[{n}/{len(rows)}] {res['path']} [{res['class']}] {res['outcome']} "
                      f"(exit {res['exit']}, {res['seconds']:.2f} s)", file=sys.stderr, flush=True)
    results.sort(key=lambda r: r["path"])
    wall = time.monotonic() - t0
    try:
        version = subprocess.run([opts.autosync, "--version"], capture_output=True, text=True,
                                 timeout=60).stdout.strip().split("\n")[0]
    except OSError as e:
        sys.exit(f"suite.py: cannot run {opts.autosync}: {e}")
    print(f"autosync: {opts.autosync} ({version})  extra args: {' '.join(opts.extra_arg) or '(none)'}")
    print(f"suite: {root}  kernels: {len(results)}  wall: {wall:.1f} s  jobs: {opts.jobs}")
    missed = report(results, opts)
    if opts.json_out:
        with open(opts.json_out, "w", encoding="utf-8") as f:
            json.dump({"autosync": opts.autosync, "version": version,
                       "date": time.strftime("%Y-%m-%d"), "extra_args": opts.extra_arg, "suite": root,
                       "classes": opts.classes, "wall_seconds": round(wall, 1),
                       "results": results}, f, indent=1)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
