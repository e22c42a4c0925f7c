//===- BufferRef.h - A byte range of a buffer, direct or by binding slot --===//
//
// Commands name memory through BufferRefs. A direct ref holds the buffer; an
// indirect ref names a slot of the binding table given to queueExecute, so a
// command buffer is recorded once and replayed over new buffers (on CUDA: a
// graph whose kernel arguments are patched, not re-recorded).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_BUFFERREF_H
#define KILN_RUNTIME_HAL_BUFFERREF_H

#include "runtime/base/Status.h"
#include "runtime/hal/Buffer.h"

#include <cstdint>
#include <memory>
#include <string_view>

namespace kiln::hal {

/// As a length: everything from the offset to the end of the buffer. Only
/// direct refs may use it, so an indirect ref's extent is known when it is
/// recorded and a binding table is checked per slot, not per command.
inline constexpr uint64_t kWholeBuffer = UINT64_MAX;

struct BufferRef {
  // Set for a direct ref; null for a binding-table slot.
  std::shared_ptr<Buffer> Direct;
  uint32_t Slot = 0;
  uint64_t Offset = 0;
  uint64_t Length = kWholeBuffer;

  static BufferRef direct(std::shared_ptr<Buffer> buffer, uint64_t offset = 0,
                          uint64_t length = kWholeBuffer) {
    return BufferRef{std::move(buffer), 0, offset, length};
  }
  static BufferRef slot(uint32_t slot, uint64_t offset, uint64_t length) {
    return BufferRef{nullptr, slot, offset, length};
  }
  bool isIndirect() const { return !Direct; }
};

/// The length of [offset, offset + length) inside a buffer of `bufferSize`
/// bytes, resolving kWholeBuffer; OutOfRange (naming `what`) when the range
/// leaves the buffer, overflow included.
StatusOr<uint64_t> checkRange(uint64_t bufferSize, uint64_t offset,
                              uint64_t length, std::string_view what);

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_BUFFERREF_H
