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

/// What an allocator has handed out, for a user sizing memory: how much is
/// held now and at most, and how often buffers come and go (churn a
/// recording should have removed).
struct AllocatorStatistics {
  struct Counters {
    uint64_t LiveBytes = 0;   // bytes of the buffers not yet released
    uint64_t LiveBuffers = 0; // buffers not yet released
    uint64_t PeakBytes = 0;   // the most LiveBytes has been
    uint64_t Allocations = 0; // buffers made so far
    uint64_t Frees = 0;       // buffers released so far
    uint64_t TotalBytes = 0;  // bytes of every buffer made so far
  };
  /// Buffers from allocate(), by memory type.
  Counters DeviceLocal;
  Counters HostVisible;
  Counters DeviceLocalHostVisible; // both at once (unified memory)
  /// Buffers from importHostMemory(): copies on devices that cannot address
  /// host memory, the caller's memory used in place on the others.
  Counters Imported;
  /// allocate() calls refused for lack of memory (ResourceExhausted).
  uint64_t OutOfMemory = 0;

  /// The counters of allocate()'s buffers of `type` (one of the three
  /// above; null for any other value).
  const Counters *forMemoryType(MemoryType type) const;
};

class Allocator {
public:
  /// Larger requests are ResourceExhausted before any driver sees them, so
  /// size arithmetic (alignment rounding, offsets) cannot overflow.
  static constexpr uint64_t kMaxBufferSize = uint64_t(1) << 48;

  Allocator();
  virtual ~Allocator();
  Allocator(const Allocator &) = delete;
  Allocator &operator=(const Allocator &) = delete;

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

  /// A snapshot of the counters, kept here for every driver: a buffer
  /// counts as released once its last reference is dropped (and its
  /// driver has freed or queued the freeing of its memory), even after the
  /// allocator itself is gone.
  AllocatorStatistics statistics() const;

protected:
  virtual StatusOr<std::shared_ptr<Buffer>>
  allocateImpl(uint64_t size, MemoryType type, BufferUsage usage) = 0;
  virtual StatusOr<std::shared_ptr<Buffer>>
  importHostMemoryImpl(std::span<const uint8_t> data, BufferUsage usage,
                       std::shared_ptr<const void> keepAlive) = 0;

private:
  class Tracker;
  // Shared with the buffers, which report their release to it.
  std::shared_ptr<Tracker> Statistics;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_ALLOCATOR_H
