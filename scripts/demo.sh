#!/usr/bin/env bash
# Compiles the bundled example and runs it on the best device present.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
bin="$build/bin"
out="$build/demo"
mkdir -p "$out"

# The best device is a GPU once a GPU driver finds one; today the CPU.
device="local-task"
target="cpu"
if "$bin/kiln-run-module" --list_devices 2>/dev/null | grep -q '^cuda'; then
  if "$bin/kiln-compile" --help | grep -q 'cuda'; then
    device="cuda"
    target="cuda"
  fi
fi

echo "== compiling examples/classifier.mlir for $target"
"$bin/kiln-compile" examples/classifier.mlir --target-device="$target" \
  -o "$out/classifier.kiln"
echo "== running @main on $device (an 8x8 image of 0.5s; 10 class probabilities)"
"$bin/kiln-run-module" --device="$device" --module="$out/classifier.kiln" \
  --function=main --input="1x8x8x1xf32=0.5"
