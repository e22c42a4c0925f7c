#!/bin/bash
# Creates the Python environment bench/onnx_bench.py runs in: Debian's
# /usr/bin/python3 with its own packages (numpy, onnx, torch, torchvision:
# --system-site-packages) plus onnxruntime from PyPI, the CPU reference.
# numpy stays Debian's (pinned for pip), which torch was built against.
#
#   scripts/bench-venv.sh [VENV_DIR]     (default build/bench-venv)
#
# Then: VENV_DIR/bin/python bench/onnx_bench.py ...  (bench/README.md).
# KILN_ORT_VERSION=1.20.1 picks an onnxruntime version. Idempotent.
set -euo pipefail
venv=${1:-build/bench-venv}
python=/usr/bin/python3
if [ ! -x "$venv/bin/python" ]; then
  echo "bench-venv: creating $venv"
  "$python" -m venv --system-site-packages "$venv"
fi
constraints=$(mktemp)
trap 'rm -f "$constraints"' EXIT
"$python" -c 'import numpy; print("numpy==" + numpy.__version__)' >"$constraints"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  --constraint "$constraints" "onnxruntime${KILN_ORT_VERSION:+==$KILN_ORT_VERSION}"
"$venv/bin/python" -c 'import numpy, onnxruntime, torch
print(f"bench-venv: onnxruntime {onnxruntime.__version__}, numpy {numpy.__version__}, torch {torch.__version__}")'
