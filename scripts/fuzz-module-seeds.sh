#!/usr/bin/env bash
# Regenerates the compiled seeds of fuzz/corpus/module_loader: small modules
# covering dispatches, copies, fills, constants and an arena, each written
# without its 16-byte checksum footer, the form the target takes (it appends
# a matching footer itself). Run it when the module format changes.
#
#   scripts/fuzz-module-seeds.sh [build dir holding bin/kiln-compile]
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${1:-build}/bin"
out=fuzz/corpus/module_loader
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
for src in tests/e2e/cli/add.mlir examples/classifier.mlir \
  fuzz/seeds/steps.mlir fuzz/seeds/dynamic.mlir fuzz/seeds/values.mlir \
  fuzz/seeds/phases.mlir fuzz/seeds/loops.mlir; do
  name="$(basename "$src" .mlir)"
  "$bin/kiln-compile" "$src" --target-device=cpu -o "$tmp/$name.kiln"
  head -c -16 "$tmp/$name.kiln" >"$out/$name.kiln-nofooter"
done
