#!/usr/bin/env bash
# Coverage-guided fuzzing of the preprocessor, the lowering and the whole fix pipeline.
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
for target in preprocess lower fix; do
    mkdir -p "corpus/$target"
    find ../corpus -name '*.cu' -exec cp {} "corpus/$target/" \;
    # No sanitizer: the fuzzed code is safe Rust (plus tree-sitter's C parser); speed matters more.
    cargo fuzz run --sanitizer none "$target" "corpus/$target" -- \
        -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -max_len=8192 -print_final_stats=1
done
