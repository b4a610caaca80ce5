#!/usr/bin/env bash
# Installs the real CUDA toolkit the tests read kernels with: the pinned NVIDIA pip wheels
# (runtime, CCCL, cuRAND, nvcc's crt headers) and CUTLASS's headers, into a virtualenv under
# target/. Idempotent: does nothing when they are there. Needs python3 with venv and PyPI.
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
stamp="$venv/.autosync-wheels"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${wheels[*]}" ]; then
    exit 0
fi
mkdir -p target
python3 -m venv "$venv"
# --no-deps: only the headers matter; the wheels' runtime dependencies are not needed.
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps "${wheels[@]}"
echo "${wheels[*]}" > "$stamp"
