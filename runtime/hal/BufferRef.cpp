//===- BufferRef.cpp ------------------------------------------------------===//

#include "runtime/hal/BufferRef.h"

namespace kiln::hal {

StatusOr<uint64_t> checkRange(uint64_t bufferSize, uint64_t offset,
                              uint64_t length, std::string_view what) {
  if (offset > bufferSize)
    return KILN_ERROR(OutOfRange, what, ": offset ", offset,
                      " is past the end of a ", bufferSize, "-byte buffer");
  if (length == kWholeBuffer)
    return bufferSize - offset;
  if (length > bufferSize - offset)
    return KILN_ERROR(OutOfRange, what, ": range [", offset, ", ", offset,
                      " + ", length, ") overruns a ", bufferSize,
                      "-byte buffer");
  return length;
}

} // namespace kiln::hal
