#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with clang (ASan + UBSan; the
# runtime's parsers, and the compiler's ONNX importer, which links Debian's
# uninstrumented MLIR and LLVM) and runs each for a while on a working copy
# of its corpus; only the targets asked for and what they link are built.
# Fails on any crash, leak, sanitizer report, timeout or memory blow-up;
# the input that caused it is left in <build>/fuzz-work/<target>/ and
# belongs in fuzz/corpus/<target>/ once fixed.
#
#   scripts/fuzz.sh [build dir] [seconds per target] [target]
#
# `make fuzz FUZZ_SECONDS=300 FUZZ_TARGET=npy` calls this after installing
# clang (scripts/install-deps.sh --fuzz). FUZZ_CC/FUZZ_CXX pick another clang.
# FUZZ_KEEP_GOING=1 runs libFuzzer in fork mode past crashes, OOMs and
# timeouts, to collect every failing input of a run for triage.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-fuzz}"
seconds="${2:-60}"
only="${3:-}"

targets=()
for dir in fuzz/corpus/*/; do
  targets+=("$(basename "$dir")")
done
if [ -n "$only" ]; then
  if [ ! -d "fuzz/corpus/$only" ]; then
    echo "fuzz: unknown target '$only' (known: ${targets[*]})" >&2
    exit 1
  fi
  targets=("$only")
fi

# Debug keeps assertions; -O1 keeps the targets fast enough to fuzz.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_COMPILER="${FUZZ_CC:-clang-22}" \
  -DCMAKE_CXX_COMPILER="${FUZZ_CXX:-clang++-22}" \
  -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" -DKILN_BUILD_COMPILER=ON \
  -DKILN_ENABLE_SANITIZERS=ON -DKILN_ENABLE_LIBFUZZER=ON >/dev/null
cmake --build "$build" -j "${JOBS:-$(nproc)}" \
  --target "${targets[@]/#/fuzz_}"

# What a target needs beyond the defaults (10 s an input, 2 GiB, inputs as
# long as the corpus's longest).
target_options() {
  case "$1" in
  # Models of a few hundred KiB (weights); a dictionary of op types and
  # attribute names, which the importer looks up by hash, so libFuzzer's
  # comparison tracing cannot learn them.
  onnx_importer) echo "-max_len=262144 -dict=fuzz/onnx_importer.dict" ;;
  esac
}

export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# The failing inputs libFuzzer left in a work folder.
findings() {
  find "$1" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' \
    -o -name 'oom-*' -o -name 'timeout-*' \) | wc -l
}
keep_going=()
if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then
  keep_going=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1)
fi
failed=()
for target in "${targets[@]}"; do
  work="$build/fuzz-work/$target"
  rm -rf "$work"
  mkdir -p "$work/corpus"
  cp "fuzz/corpus/$target/"* "$work/corpus/"
  # Seeds the build makes rather than the repository holds.
  if [ "$target" = amd_code_object ]; then
    cmake --build "$build" --target kiln_amd_test_hsaco kiln_cts_hsaco >/dev/null
    cp "$build"/runtime/hal/drivers/amd/*.hsaco \
      "$build"/runtime/hal/cts/*.hsaco "$work/corpus/"
  fi
  echo "fuzz: $target for ${seconds}s"
  # shellcheck disable=SC2046 # the options are words
  if "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/" \
    "${keep_going[@]}" $(target_options "$target") "$work/corpus" \
    >"$work/log" 2>&1 && [ "$(findings "$work")" -eq 0 ]; then
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")"
    # Fork mode prints no final stats: its last progress line has the count.
    [ -n "$runs" ] ||
      runs="$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$work/log" | tail -1)"
    echo "fuzz: $target: ${runs:-?} runs, corpus $(ls "fuzz/corpus/$target" |
      wc -l) -> $(ls "$work/corpus" | wc -l) inputs, nothing found"
  else
    echo "fuzz: $target FAILED; the log is $work/log, the" \
      "$(findings "$work") failing inputs are in $work:" >&2
    grep -E -A30 '^==[0-9]+==ERROR|runtime error|fuzz property failed|ERROR: libFuzzer' \
      "$work/log" >&2 || tail -40 "$work/log" >&2
    failed+=("$target")
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi
