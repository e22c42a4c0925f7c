#!/bin/bash
# Compiles the GPU benchmarks (bench/*.mlir) into one directory, for
# bench/run_gpu_bench.py to run there or on another machine.
#
#   bench/compile.sh KILN_COMPILE OUT_DIR [CUDA_TARGET]
#
# KILN_COMPILE is the kiln-compile binary (build/bin/kiln-compile), OUT_DIR
# receives <name>.kiln for every benchmark, CUDA_TARGET is kiln-compile's
# --cuda-target (default sm_90a: H100/H200).
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
  echo "usage: $0 KILN_COMPILE OUT_DIR [CUDA_TARGET]" >&2
  exit 2
fi
compile=$1
out=$2
target=${3:-sm_90a}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for name in matmul_f32 matmul_f16 add chain50 softmax_1x1000 softmax_64x4096 conv \
  conv_f16; do
  echo "compile.sh: $name.mlir -> $out/$name.kiln (--cuda-target=$target)"
  "$compile" "$here/$name.mlir" --target-device=cuda --cuda-target="$target" \
    -o "$out/$name.kiln"
done
