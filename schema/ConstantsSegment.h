//===- ConstantsSegment.h - Where a module file keeps its constants -------===//
//
// Since module version 1.2 the constant data (weights) follows the
// flatbuffer instead of living inside it: a flatbuffer is limited to 2 GiB,
// and bytes outside it can be mapped from the file at a page boundary.
// Module.constants_segment (module.fbs) records the segment's offset, size
// and alignment; this header places it, for every writer (the compiler's
// module writer and the tests' module builder).
//
// Header-only and dependency-free beyond the generated schema: like
// module.fbs, it is part of the file format.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SCHEMA_CONSTANTSSEGMENT_H
#define KILN_SCHEMA_CONSTANTSSEGMENT_H

#include "schema/module_generated.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kiln::schema {

/// The alignment writers give the segment: the page size of the machines
/// Kiln runs on, so a loader that maps the file finds the constants on a
/// page boundary (and a device could import or map those pages directly).
inline constexpr uint32_t kConstantsSegmentAlignment = 4096;

/// The offset of a segment aligned to `alignment` (a power of two) placed
/// right after `flatbufferSize` bytes. 64-bit: only the flatbuffer before
/// it is limited to 2 GiB.
inline uint64_t constantsSegmentOffset(uint64_t flatbufferSize,
                                       uint64_t alignment) {
  return (flatbufferSize + alignment - 1) & ~(alignment - 1);
}

/// Appends the segment to `module`, a finished Module flatbuffer built with
/// a constants_segment of `size` bytes (its offset is filled in here): zero
/// padding up to the segment's alignment, then the `size` bytes at `data`.
/// The checksum footer (ModuleChecksum.h) comes after.
inline void appendConstantsSegment(std::vector<uint8_t> &module,
                                   const uint8_t *data, size_t size) {
  ConstantsSegment *segment =
      GetMutableModule(module.data())->mutable_constants_segment();
  uint64_t offset = constantsSegmentOffset(module.size(), segment->alignment());
  segment->mutate_offset(offset);
  module.resize(offset, 0);
  module.insert(module.end(), data, data + size);
}

} // namespace kiln::schema

#endif // KILN_SCHEMA_CONSTANTSSEGMENT_H
