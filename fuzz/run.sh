#!/usr/bin/env bash
# Coverage-guided fuzzing of the AST reader and lowering (on mutated Clang dumps of the corpus),
# the front end from source text through Clang, and the whole fix pipeline.
# Usage: fuzz/run.sh [SECONDS_PER_TARGET] (default 60). Seeds each target with corpus/**/*.cu;
# a crash leaves its input in fuzz/artifacts/<target>/ and fails the run.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-60}"
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
# cargo-fuzz needs nightly flags; the stable toolchain accepts them with RUSTC_BOOTSTRAP.
export RUSTC_BOOTSTRAP=1
# Seeds for the AST target: Clang's dumps of the corpus files (as autosync reads them, minus
# the shim), small enough for libFuzzer.
mkdir -p corpus/ast
clang_bin="${AUTOSYNC_CLANG:-clang}"
for f in ../corpus/*/*.cu; do
    out="corpus/ast/$(basename "$f").json"
    [ -s "$out" ] || "$clang_bin" -x cuda --cuda-device-only -nocudainc -nocudalib --cuda-gpu-arch=sm_80 \
        -fsyntax-only -w -Xclang -ast-dump=json -D'__global__=__attribute__((global))' \
        -D'__device__=__attribute__((device))' -D'__shared__=__attribute__((shared))' \
        -D'__syncthreads()=' "$f" > "$out" 2>/dev/null || rm -f "$out"
done
for target in ast lower fix; do
    mkdir -p "corpus/$target"
    [ "$target" = ast ] || find ../corpus -name '*.cu' -exec cp {} "corpus/$target/" \;
    # No sanitizer: the fuzzed code is safe Rust; speed matters more.
    cargo fuzz run --sanitizer none "$target" "corpus/$target" -- \
        -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -max_len=262144 -print_final_stats=1
done
