# The two set-up commands for a fresh machine: `make demo` and `make test`.
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_TARGET ?=

.PHONY: all deps build demo test test-gpu test-asan fuzz format clean

all: build

deps:
	@scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@scripts/demo.sh $(BUILD)

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The GPU tests on a machine with an NVIDIA GPU: the HAL conformance suite
# over cuda in both command-buffer modes and every e2e case on the GPU
# (scripts/test-gpu.sh; KILN_GPU_SANITIZE=1 adds compute-sanitizer).
test-gpu: build
	@scripts/test-gpu.sh $(BUILD)

# The GPU benchmarks against PyTorch on the same GPU (bench/README.md):
# needs python3 with torch and numpy, and an NVIDIA GPU.
.PHONY: bench-gpu
bench-gpu: build
	@bench/compile.sh $(BUILD)/bin/kiln-compile $(BUILD)/bench-modules
	@python3 bench/run_gpu_bench.py --bin-dir $(BUILD)/bin \
	  --modules-dir $(BUILD)/bench-modules

# Runtime and its tests only (no compiler) and the fuzz corpus replays,
# under AddressSanitizer + UBSan.
test-asan: deps
	@cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DKILN_BUILD_COMPILER=OFF -DKILN_ENABLE_SANITIZERS=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)
	@cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) -L 'runtime|fuzz'

# The libFuzzer targets (fuzz/), built with clang in $(FUZZ_BUILD) and run
# for FUZZ_SECONDS each on a copy of their corpus; FUZZ_TARGET= picks one.
fuzz:
	@scripts/install-deps.sh --fuzz
	@JOBS=$(JOBS) scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGET)

format:
	@git ls-files '*.h' '*.cpp' | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)

# --- differential testing (tests/difftest) ---------------------------------
# N random programs drawn from SEED, compiled by $(BUILD)/bin/kiln-compile,
# run on every driver kiln-run-module lists and compared with numpy; failing
# programs are saved under $(BUILD)/difftest-failures/.
SEED ?= 1
N ?= 1000

.PHONY: fuzz-compiler
fuzz-compiler: build
	@/usr/bin/python3 tests/difftest/run_difftest.py --bin-dir $(BUILD)/bin \
	  --seed $(SEED) --count $(N) --jobs $(JOBS) \
	  --keep-failures $(BUILD)/difftest-failures
