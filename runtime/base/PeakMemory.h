//===- PeakMemory.h - Peak resident memory of this process, for tests -----===//
//
// Tests that a large input is refused before its size is allocated or read
// compare the process's peak resident memory before and after: an allocation
// that was filled or read into shows up there, under ASan too.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_BASE_PEAKMEMORY_H
#define KILN_RUNTIME_BASE_PEAKMEMORY_H

#include <cstdint>
#include <sys/resource.h>

namespace kiln {

/// The most memory this process has had resident so far, in bytes.
inline uint64_t peakResidentBytes() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  // Linux reports kilobytes.
  return static_cast<uint64_t>(usage.ru_maxrss) * 1024;
}

} // namespace kiln

#endif // KILN_RUNTIME_BASE_PEAKMEMORY_H
