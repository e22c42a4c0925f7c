#!/bin/bash
# The GPU tests (`make test-gpu`): the HAL conformance suite over the cuda
# driver, and every e2e case compiled for the GPU found and run on it against
# the same numpy references as the CPU drivers.
#
#   scripts/test-gpu.sh [BUILD_DIR] [MODULES_DIR]
#
# BUILD_DIR (default build) holds bin/kiln-run-module and
# tests/kiln_hal_cts_tests. With bin/kiln-compile there, the e2e cases are
# compiled for the device's --cuda-target; without it (a machine with the
# CUDA driver but no LLVM), MODULES_DIR holds cases compiled elsewhere with
# `tests/e2e/run_e2e.py --target-device cuda --save-modules MODULES_DIR`.
#
# The e2e cases (and models, where kits are given) also run compiled with
# each --precision mode (tf32, f16, bf16). KILN_GPU_SANITIZE=1 also runs
# the e2e cases and the model kits under compute-sanitizer's memcheck and
# racecheck (slow).
#
# With an AMD GPU (a `hip://` device), it first runs the conformance suite
# over hip and amdgpu and the e2e cases compiled for the GPU's gpu-arch-name
# (--target-device=hip) on hip. This part has not been run yet: no machine
# Kiln is tested on has an AMD GPU.
#
# Without an NVIDIA GPU and driver it prints `skipped: no CUDA device` (and
# without an AMD one `skipped: no AMD GPU`) and succeeds, so CI (no GPU) can
# call it.
set -u
build=${1:-build}
modules=${2:-}
bin=$build/bin
here=$(cd "$(dirname "$0")/.." && pwd)
# Debian's python3 has numpy (scripts/install-deps.sh); a GPU machine
# without it may have another python3 that does.
python=${KILN_TEST_PYTHON:-/usr/bin/python3}
if ! "$python" -c 'import numpy' 2>/dev/null; then
  python=python3
fi

if [ ! -x "$bin/kiln-run-module" ]; then
  echo "test-gpu: no $bin/kiln-run-module; build first (make build)" >&2
  exit 2
fi
failed=()
run() { # NAME COMMAND...: runs a step, remembering its failure
  echo "== $1"
  local name=$1
  shift
  "$@" || failed+=("$name")
}

# AMD: the first hip device's description, if there is one.
amd=$("$bin/kiln-run-module" --dump_devices 2>/dev/null | sed -n '/^hip:\/\//,$p')
if [ -n "$amd" ]; then
  arch=$(sed -n 's/^ *gpu-arch-name: *//p' <<<"$amd" | head -1)
  echo "test-gpu: $(sed -n 's/^ *name: *//p' <<<"$amd" | head -1) ($arch)"
  run "cts over hip (graph and stream command buffers) and amdgpu" \
    "$build/tests/kiln_hal_cts_tests" --gtest_filter='*hip*:*amdgpu*' \
    --gtest_brief=1
  amdModules=${modules:+$modules/hip}
  if [ -x "$bin/kiln-compile" ] && [ -z "$modules" ]; then
    amdModules=$build/e2e-hip
    run "compile e2e cases for $arch" "$python" "$here/tests/e2e/run_e2e.py" \
      --bin-dir "$bin" --target-device hip --hip-target "$arch" \
      --save-modules "$amdModules" --jobs "${JOBS:-2}"
  fi
  if [ -d "$amdModules" ]; then
    run "e2e on hip" "$python" "$here/tests/e2e/run_e2e.py" --bin-dir "$bin" \
      --driver hip --jobs "${JOBS:-2}" --prebuilt-modules "$amdModules"
  fi
else
  echo "skipped: no AMD GPU"
fi

report() { # the summary, and the exit status
  if [ ${#failed[@]} -ne 0 ]; then
    printf 'test-gpu: FAILED: %s\n' "${failed[@]}"
    exit 1
  fi
  echo "test-gpu: all passed"
  exit 0
}

if ! "$bin/kiln-run-module" --list_devices 2>/dev/null | grep -q '^cuda://'; then
  echo "skipped: no CUDA device"
  [ -n "$amd" ] && report
  exit 0
fi
# The first CUDA device's description.
dump=$("$bin/kiln-run-module" --dump_devices 2>&1 | sed -n '/cuda:\/\//,$p')
# The arch-specific target when the chip has one (sm_90a on an H100): what
# --cuda-target=h100 compiles for.
target=$(sed -n 's/^ *cuda_target_arch_specific: *//p' <<<"$dump" | head -1)
[ -n "$target" ] || target=$(sed -n 's/^ *cuda_target: *//p' <<<"$dump" | head -1)
echo "test-gpu: $(sed -n 's/^ *name: *//p' <<<"$dump" | head -1) ($target)"

# Both command-buffer modes: the suite runs every case over `cuda` (graph)
# and over its conformance variant `cuda?command_buffers=stream`.
run "cts (graph and stream command buffers)" \
  "$build/tests/kiln_hal_cts_tests" --gtest_filter='*cuda*' --gtest_brief=1

e2e=("$python" "$here/tests/e2e/run_e2e.py" --bin-dir "$bin" --driver cuda
     --jobs "${JOBS:-2}")
if [ -x "$bin/kiln-compile" ] && [ -z "$modules" ]; then
  modules=$build/e2e-cuda
  run "compile e2e cases for $target" "$python" "$here/tests/e2e/run_e2e.py" \
    --bin-dir "$bin" --target-device cuda --cuda-target "$target" \
    --save-modules "$modules" --jobs "${JOBS:-2}"
fi
if [ -z "$modules" ]; then
  echo "test-gpu: no kiln-compile in $bin: give MODULES_DIR" >&2
  exit 2
fi
run "e2e on cuda" "${e2e[@]}" --prebuilt-modules "$modules"
# The ONNX suites, from kits compiled where the compiler is:
# tests/onnx/run_node_tests.py and tests/models/run_models.py with
# --target-device cuda --save-modules MODULES_DIR/onnx-node (onnx-models).
if [ -f "$modules/onnx-node/manifest.json" ]; then
  run "ONNX node tests on cuda" "$python" "$here/tests/onnx/run_node_tests.py" \
    --bin-dir "$bin" --device cuda --prebuilt-modules "$modules/onnx-node" \
    --jobs "${JOBS:-2}"
fi
if [ -f "$modules/onnx-models/manifest.json" ]; then
  run "ONNX models on cuda" "$python" "$here/tests/models/run_models.py" \
    --bin-dir "$bin" --device cuda --prebuilt-modules "$modules/onnx-models"
fi
# Each --precision mode: the e2e cases compiled so (MODULES_DIR/precision-P,
# compiled here when kiln-compile is), held to the mode's tolerance; the
# models from MODULES_DIR/onnx-models-P, compiled with run_models.py
# --compile-arg=--precision=P --float-tolerance P.
precisions=(tf32 f16 bf16)
for p in "${precisions[@]}"; do
  if [ -x "$bin/kiln-compile" ] && [ "$modules" = "$build/e2e-cuda" ]; then
    run "compile e2e cases for $target, --precision=$p" "$python" \
      "$here/tests/e2e/run_e2e.py" --bin-dir "$bin" --target-device cuda \
      --cuda-target "$target" --precision "$p" \
      --save-modules "$modules/precision-$p" --jobs "${JOBS:-2}"
  fi
  if [ -d "$modules/precision-$p" ]; then
    run "e2e on cuda, --precision=$p" "${e2e[@]}" --precision "$p" \
      --prebuilt-modules "$modules/precision-$p"
  fi
  if [ -f "$modules/onnx-models-$p/manifest.json" ]; then
    run "ONNX models on cuda, --precision=$p" "$python" \
      "$here/tests/models/run_models.py" --bin-dir "$bin" --device cuda \
      --prebuilt-modules "$modules/onnx-models-$p"
  fi
done
if [ "${KILN_GPU_SANITIZE:-0}" = 1 ]; then
  for tool in memcheck racecheck; do
    run "e2e on cuda under compute-sanitizer $tool" "${e2e[@]}" \
      --prebuilt-modules "$modules" \
      --wrapper "compute-sanitizer --tool $tool --error-exitcode 99"
    for p in "${precisions[@]}"; do
      [ -d "$modules/precision-$p" ] || continue
      run "e2e on cuda, --precision=$p, under compute-sanitizer $tool" \
        "${e2e[@]}" --precision "$p" --prebuilt-modules "$modules/precision-$p" \
        --wrapper "compute-sanitizer --tool $tool --error-exitcode 99"
    done
    # The model kits too, as written and in each mode.
    for kit in "$modules"/onnx-models "$modules"/onnx-models-{tf32,f16,bf16}; do
      [ -f "$kit/manifest.json" ] || continue
      run "ONNX models on cuda ($(basename "$kit")) under compute-sanitizer $tool" \
        "$python" "$here/tests/models/run_models.py" --bin-dir "$bin" \
        --device cuda --prebuilt-modules "$kit" \
        --wrapper "compute-sanitizer --tool $tool --error-exitcode 99"
    done
  done
fi

report
