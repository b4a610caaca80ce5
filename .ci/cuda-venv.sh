#!/usr/bin/env bash
# Installs the real CUDA toolkit the tests read kernels with: the pinned NVIDIA pip wheels
# (runtime, CCCL, cuRAND, nvcc's crt headers) and CUTLASS's headers, into a virtualenv under
# target/. Idempotent: does nothing when they are there. Needs python3 with venv and PyPI.
# `--cublas` also adds cuBLAS's headers (only the headers: the wheel's 600 MB of libraries are not
# kept), which the production development suite (docs/production.md) includes.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/cuda-venv
wheels=(
    nvidia-cuda-runtime-cu12==12.9.79
    nvidia-cuda-cccl-cu12==12.9.27
    nvidia-curand-cu12==10.3.10.19
    nvidia-cuda-nvcc-cu12==12.9.86
    nvidia-cutlass==4.2.0.0
)
cublas=nvidia-cublas-cu12==12.9.1.4
stamp="$venv/.autosync-wheels"
if ! { [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${wheels[*]}" ]; }; then
    mkdir -p target
    python3 -m venv "$venv"
    # --no-deps: only the headers matter; the wheels' runtime dependencies are not needed.
    "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "${wheels[@]}"
    echo "${wheels[*]}" > "$stamp"
fi
if [ "${1:-}" = "--cublas" ] && [ "$(cat "$venv/.autosync-cublas" 2>/dev/null)" != "$cublas" ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary=:all: -d "$tmp" "$cublas"
    site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    "$venv/bin/python" - "$tmp"/*.whl "$site" <<'PY'
import sys, zipfile
wheel, site = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    z.extractall(site, [n for n in z.namelist() if n.startswith("nvidia/cublas/include/")])
PY
    echo "$cublas" > "$venv/.autosync-cublas"
fi
