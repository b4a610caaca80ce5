#!/usr/bin/env python3
"""Classify the kernels of GPUVerify's CUDA regression suite (testsuite/CUDA).

    python3 benches/suite_classes.py --suite-dir /work/suites/gpuverify > benches/suites/gpuverify_cuda.tsv

Each kernel file starts with a GPUVerify test header:

    //pass                      or  //xfail:NOT_ALL_VERIFIED  (or BUGLE_ERROR, CLANG_ERROR)
    //--blockDim=64 --gridDim=1 -DN=3 --no-inline
    //expected message regex    (xfail only; zero or more consecutive `//` lines)

Rule (first match wins):
  1. `//pass` (any case)                            -> pass
  2. `//xfail:CODE` with CODE != NOT_ALL_VERIFIED    -> other (the verifier's own tool error)
  3. an expected message names a race (`possible ... race`, `Write/Read by thread ...`)
                                                     -> race        (even among other messages)
  4. an expected message names barrier divergence    -> divergence
  5. any other non-empty expected message            -> other (null pointer, assert, constant memory, ...)
  6. no (or only empty) expected messages: the hand-made table MANUAL below, written by
     reading each kernel; a message-less xfail missing from it is an error.

Output: one TSV line per kernel file, sorted by path (relative to testsuite/CUDA):
path, class, header status, flags (line 2 without `//`), expected messages (` | `-joined),
how the class was decided. Standard library only.
"""

import argparse
import os
import re
import sys

RACE_RE = re.compile(r"race|(write|read) by thread", re.I)
DIVERGENCE_RE = re.compile(r"barrier.*(non-uniform|diverg)|barrier divergence", re.I)

# Message-less NOT_ALL_VERIFIED kernels, classified by reading the kernel.
MANUAL = {
    "atomics/add_tid/kernel.cu": ("race", "A[j], j = atomicAdd(i, tid): threads 0 and 1 can get the same j"),
    "atomics/add_zero/kernel.cu": ("race", "A[j], j = atomicAdd(i, 0): every thread gets the same j"),
    "cooperative_groups/fail/race/kernel.cu": ("race", "reads A[idx+1], which the neighbour writes as A[idx]"),
    "cooperative_groups/fail/divergence_thread_block/kernel.cu": ("divergence", "synchronize(thread_block) under idx % 2"),
    "cooperative_groups/fail/divergence_grid_group/kernel.cu": ("divergence", "synchronize(grid_group) under idx % 2"),
    "cooperative_groups/fail/block_divergence_grid_group/kernel.cu": (
        "divergence", "synchronize(grid_group) under bid % 2 (uniform in a block, divergent across the grid)"),
    "fail_tests/race_on_shared/kernel.cu": ("race", "every thread writes __shared__ A[0]"),
    "fail_tests/shared_int/kernel.cu": ("race", "every thread writes __shared__ int a"),
    "globalarray/fail/kernel.cu": ("race", "p[0] written by all threads with A[i] != tid (host may change __constant__ A)"),
    "memcpy/fail_arrayofstruct/kernel.cu": ("race", "source says racy: every thread assigns pairs[42]"),
    "memcpy/fail_overstep/kernel.cu": ("race", "source says racy: memcpy of 12 bytes into 6-byte elements"),
    "memcpy/lentoobig/kernel.cu": ("race", "source says racy: 5-byte memcpy into 4-byte elements"),
    "memcpy/notexactdiv/kernel.cu": ("race", "source says racy: unaligned 6-byte memcpy"),
    "memcpy/null_dst/kernel.cu": ("other", "source says null pointer access (memcpy to 0)"),
    "memcpy/null_src/kernel.cu": ("other", "source says null pointer access (memcpy from 0)"),
    "memset/null_dst/kernel.cu": ("other", "memset(0, 0, 16): null pointer access"),
    "function_pointers/pass_struct/call/kernel.cu": ("other", "call through an unconstrained function-pointer parameter"),
    "pointeranalysistests/testbasicaliasing/kernel.cu": ("race", "every thread writes p[100]"),
    "warpsync/broken_shuffle/kernel.cu": ("race", "--warp-sync=16 but reads B[(tid+1)%32] across half-warps"),
}


def header(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    status = lines[0].strip()[2:].strip() if lines and lines[0].startswith("//") else ""
    flags = lines[1].strip()[2:].strip() if len(lines) > 1 and lines[1].startswith("//") else ""
    messages = []
    for line in lines[2:]:
        if not line.startswith("//"):
            break
        messages.append(line[2:].strip())
    return status, flags, messages


def classify(rel, status, messages):
    low = status.lower()
    if low == "pass":
        return "pass", "header //pass"
    if not low.startswith("xfail:"):
        raise SystemExit(f"{rel}: unknown header status {status!r}")
    code = status.split(":", 1)[1].strip().upper()
    if code != "NOT_ALL_VERIFIED":
        return "other", f"tool error xfail:{code}"
    real = [m for m in messages if m]
    if any(RACE_RE.search(m) for m in real):
        return "race", "message names a race"
    if any(DIVERGENCE_RE.search(m) for m in real):
        return "divergence", "message names barrier divergence"
    if real:
        return "other", "message names another failure"
    if rel not in MANUAL:
        raise SystemExit(f"{rel}: xfail without an expected message and not in MANUAL")
    cls, why = MANUAL[rel]
    return cls, "manual: " + why


def suite_root(d):
    cand = os.path.join(d, "testsuite", "CUDA")
    return cand if os.path.isdir(cand) else d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--suite-dir", required=True, help="the extracted suite (containing testsuite/CUDA) or testsuite/CUDA itself")
    args = ap.parse_args()
    root = suite_root(args.suite_dir)
    rows = []
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith(".cu"):
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                status, flags, messages = header(full)
                cls, why = classify(rel, status, messages)
                rows.append((rel, cls, status, flags, " | ".join(m for m in messages if m), why))
    rows.sort()
    unused = set(MANUAL) - {r[0] for r in rows}
    if unused:
        raise SystemExit(f"MANUAL names kernels not in the suite: {sorted(unused)}")
    counts = {}
    for r in rows:
        counts[r[1]] = counts.get(r[1], 0) + 1
    out = sys.stdout
    out.write("# GPUVerify CUDA regression suite (testsuite/CUDA of github.com/mc-imperial/gpuverify),\n")
    out.write("# classified by benches/suite_classes.py (rule in its docstring; see docs/suites.md).\n")
    out.write("# " + ", ".join(f"{k} {counts[k]}" for k in sorted(counts)) + f", total {len(rows)}\n")
    out.write("# path\tclass\tstatus\tflags\texpected_messages\tclass_reason\n")
    for r in rows:
        out.write("\t".join(x.replace("\t", " ") for x in r) + "\n")


if __name__ == "__main__":
    main()
