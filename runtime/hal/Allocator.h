//===- Allocator.h - Creates buffers for one device -----------------------===//
#ifndef KILN_RUNTIME_HAL_ALLOCATOR_H
#define KILN_RUNTIME_HAL_ALLOCATOR_H

#include "runtime/base/Status.h"
#include "runtime/hal/Buffer.h"
#include "runtime/hal/MemoryType.h"

#include <cstdint>
#include <memory>
#include <span>

namespace kiln::hal {

class Allocator {
public:
  /// Larger requests are ResourceExhausted before any driver sees them, so
  /// size arithmetic (alignment rounding, offsets) cannot overflow.
  static constexpr uint64_t kMaxBufferSize = uint64_t(1) << 48;

  virtual ~Allocator();

  /// Whether buffers of exactly this combination can be allocated.
  virtual bool supportsMemoryType(MemoryType type) const = 0;

  /// A new buffer of `size` bytes (0 is allowed) with unspecified contents.
  /// Bad flags are InvalidArgument; a size the device cannot provide is
  /// ResourceExhausted.
  StatusOr<std::shared_ptr<Buffer>> allocate(uint64_t size, MemoryType type,
                                             BufferUsage usage);

  /// A read-only buffer with the contents of host memory `data`. Devices
  /// that address host memory use it in place (it must then stay valid and
  /// unchanged while `keepAlive` is held by the buffer); others copy it
  /// before this returns. Used for a module's constants, so a CPU device
  /// runs on the loaded file without copying the weights.
  StatusOr<std::shared_ptr<Buffer>>
  importHostMemory(std::span<const uint8_t> data, BufferUsage usage,
                   std::shared_ptr<const void> keepAlive);

protected:
  virtual StatusOr<std::shared_ptr<Buffer>>
  allocateImpl(uint64_t size, MemoryType type, BufferUsage usage) = 0;
  virtual StatusOr<std::shared_ptr<Buffer>>
  importHostMemoryImpl(std::span<const uint8_t> data, BufferUsage usage,
                       std::shared_ptr<const void> keepAlive) = 0;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_ALLOCATOR_H
