//===- NpyFuzzer.cpp - .npy files through the reader ----------------------===//
//
// An input is a whole .npy file. It is decoded from memory (decodeNpy) and
// read as a file (readNpy, through a memfd, which reads the header before
// the data), and the two must agree. A decoded tensor must encode and decode
// back to itself. The reader's allocations are bounded by the input: the
// data must be as large as the header says.
//
//===----------------------------------------------------------------------===//

#include "fuzz/FuzzCheck.h"
#include "runtime/tooling/Npy.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

bool sameTensor(const kiln::HostTensor &a, const kiln::HostTensor &b) {
  return a.Type == b.Type && a.Shape == b.Shape && a.Data == b.Data;
}

// One memfd, rewritten for each input, so no file is left behind.
struct Memfd {
  int Fd;
  std::string Path;
};

const Memfd &memfd() {
  static const Memfd file = [] {
    int fd = ::memfd_create("kiln-npy-fuzz", MFD_CLOEXEC);
    KILN_FUZZ_CHECK(fd >= 0, "memfd_create works");
    return Memfd{fd, "/proc/self/fd/" + std::to_string(fd)};
  }();
  return file;
}

void writeMemfd(const uint8_t *data, size_t size) {
  int fd = memfd().Fd;
  KILN_FUZZ_CHECK(::ftruncate(fd, 0) == 0, "the memfd truncates");
  size_t done = 0;
  while (done < size) {
    ssize_t n =
        ::pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    KILN_FUZZ_CHECK(n > 0, "the memfd takes the input");
    done += static_cast<size_t>(n);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto decoded = kiln::tooling::decodeNpy(data, size);
  writeMemfd(data, size);
  auto read = kiln::tooling::readNpy(memfd().Path);
  KILN_FUZZ_CHECK(decoded.ok() == read.ok(),
                  "decoding from memory and reading a file agree");
  if (!decoded.ok())
    return 0;
  KILN_FUZZ_CHECK(sameTensor(*decoded, *read),
                  "decoding from memory and reading a file agree");
  auto encoded = kiln::tooling::encodeNpy(*decoded);
  KILN_FUZZ_CHECK(encoded.ok(), "a decoded tensor encodes");
  auto again = kiln::tooling::decodeNpy(encoded->data(), encoded->size());
  KILN_FUZZ_CHECK(again.ok() && sameTensor(*again, *decoded),
                  "an encoded tensor decodes to itself");
  return 0;
}
