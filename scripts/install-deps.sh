#!/usr/bin/env bash
# Installs Kiln's build and test dependencies from Debian packages.
# Idempotent: prints nothing and touches nothing when all are present.
#
#   scripts/install-deps.sh          what `make build`/`make test` need
#   scripts/install-deps.sh --fuzz   also clang with libFuzzer (`make fuzz`)
set -euo pipefail

packages=(
  cmake ninja-build g++ make
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  lld-22 liblld-22-dev libclang-rt-22-dev
  libflatbuffers-dev flatbuffers-compiler
  libgtest-dev
  python3 python3-numpy
  strace
  libonnx-dev libprotobuf-dev libonnx-testdata python3-onnx python3-torch python3-torchvision
  # AMD (issue 18): HIP and HSA headers for the hip and amdgpu drivers'
  # declarations, and the device bitcode (ocml, ockl) AMD kernels link.
  # The runtime opens the libraries at run time and links none of them.
  libamdhip64-dev libhsa-runtime-dev rocm-device-libs
  # The AMD drivers decode code-object metadata (a msgpack note) with
  # msgpack-c's header-only C++ library, used without Boost.
  libmsgpack-cxx-dev
)
# libFuzzer's runtime is in libclang-rt-22-dev, which the build needs
# anyway (compiler-rt's builtins for CPU modules).
if [ "${1:-}" = "--fuzz" ]; then
  packages+=(clang-22)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
