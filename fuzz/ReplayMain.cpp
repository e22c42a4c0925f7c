//===- ReplayMain.cpp - Runs a fuzz target over saved inputs --------------===//
//
// Without libFuzzer (the g++ build, `make test`, `make test-asan`) each fuzz
// target is linked with this main, which calls LLVMFuzzerTestOneInput once
// on every file in the directories (or on the files) it is given, so the
// corpus, crash regressions included, replays as a test:
//
//   fuzz_npy_replay fuzz/corpus/npy
//
// Each input is passed as an exact-size heap copy, so a sanitizer build
// sees any read past its end, as under libFuzzer.
//
//===----------------------------------------------------------------------===//

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <corpus dir or file>...\n", argv[0]);
    return 2;
  }
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    std::error_code error;
    if (!fs::is_directory(argv[i], error)) {
      inputs.emplace_back(argv[i]);
      continue;
    }
    for (const fs::directory_entry &entry :
         fs::directory_iterator(argv[i], error))
      if (entry.is_regular_file())
        inputs.push_back(entry.path());
    if (error) {
      std::fprintf(stderr, "error: cannot list %s: %s\n", argv[i],
                   error.message().c_str());
      return 1;
    }
  }
  // An empty corpus would make the test pass without testing anything.
  if (inputs.empty()) {
    std::fprintf(stderr, "error: no inputs to replay\n");
    return 1;
  }
  std::sort(inputs.begin(), inputs.end());
  for (const fs::path &path : inputs) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
      std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
      return 1;
    }
    std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    // The name first: if the input crashes, the log says which.
    std::printf("%s\n", path.c_str());
    std::fflush(stdout);
    auto copy = std::make_unique<uint8_t[]>(bytes.size());
    std::copy(bytes.begin(), bytes.end(), copy.get());
    LLVMFuzzerTestOneInput(copy.get(), bytes.size());
  }
  std::printf("replayed %zu inputs\n", inputs.size());
  return 0;
}
