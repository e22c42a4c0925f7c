//===- Allocator.cpp ------------------------------------------------------===//

#include "runtime/hal/Allocator.h"

#include <algorithm>
#include <mutex>

namespace kiln::hal {

namespace {
constexpr uint32_t kKnownMemoryBits = 3;
constexpr uint32_t kKnownUsageBits = 7;

Status checkUsage(BufferUsage usage) {
  uint32_t bits = static_cast<uint32_t>(usage);
  if (bits == 0 || (bits & ~kKnownUsageBits))
    return KILN_ERROR(InvalidArgument, "invalid buffer usage ",
                      bufferUsageString(usage));
  return Status();
}

using CountersOf = AllocatorStatistics::Counters AllocatorStatistics::*;

CountersOf countersOf(MemoryType type) {
  if (type == MemoryType::DeviceLocal)
    return &AllocatorStatistics::DeviceLocal;
  if (type == MemoryType::HostVisible)
    return &AllocatorStatistics::HostVisible;
  return &AllocatorStatistics::DeviceLocalHostVisible;
}
} // namespace

const AllocatorStatistics::Counters *
AllocatorStatistics::forMemoryType(MemoryType type) const {
  uint32_t bits = static_cast<uint32_t>(type);
  if (bits == 0 || (bits & ~kKnownMemoryBits))
    return nullptr;
  return &(this->*countersOf(type));
}

class Allocator::Tracker {
public:
  // Counts `buffer` and returns it with a reference that reports its
  // release: the driver's buffer is freed first, then counted as freed.
  std::shared_ptr<Buffer> track(const std::shared_ptr<Tracker> &self,
                                CountersOf kind,
                                std::shared_ptr<Buffer> buffer) {
    uint64_t size = buffer->size();
    {
      std::lock_guard<std::mutex> lock(Mutex);
      AllocatorStatistics::Counters &counters = Stats.*kind;
      counters.LiveBytes += size;
      ++counters.LiveBuffers;
      counters.PeakBytes = std::max(counters.PeakBytes, counters.LiveBytes);
      ++counters.Allocations;
      counters.TotalBytes += size;
    }
    Buffer *raw = buffer.get();
    return std::shared_ptr<Buffer>(raw, [inner = std::move(buffer),
                                         tracker = self, kind,
                                         size](Buffer *) mutable {
      inner.reset();
      std::lock_guard<std::mutex> lock(tracker->Mutex);
      AllocatorStatistics::Counters &counters = tracker->Stats.*kind;
      counters.LiveBytes -= size;
      --counters.LiveBuffers;
      ++counters.Frees;
    });
  }

  void countOutOfMemory() {
    std::lock_guard<std::mutex> lock(Mutex);
    ++Stats.OutOfMemory;
  }

  AllocatorStatistics snapshot() {
    std::lock_guard<std::mutex> lock(Mutex);
    return Stats;
  }

private:
  std::mutex Mutex;
  AllocatorStatistics Stats;
};

Allocator::Allocator() : Statistics(std::make_shared<Tracker>()) {}

Allocator::~Allocator() = default;

StatusOr<std::shared_ptr<Buffer>>
Allocator::allocate(uint64_t size, MemoryType type, BufferUsage usage) {
  uint32_t typeBits = static_cast<uint32_t>(type);
  if (typeBits == 0 || (typeBits & ~kKnownMemoryBits))
    return KILN_ERROR(InvalidArgument, "invalid memory type ",
                      memoryTypeString(type));
  KILN_RETURN_IF_ERROR(checkUsage(usage));
  if (hasAll(usage, BufferUsage::Mapping) &&
      !hasAll(type, MemoryType::HostVisible))
    return KILN_ERROR(InvalidArgument,
                      "BufferUsage::Mapping needs HostVisible memory, got ",
                      memoryTypeString(type));
  if (!supportsMemoryType(type))
    return KILN_ERROR(InvalidArgument, "this device cannot allocate ",
                      memoryTypeString(type), " memory");
  if (size > kMaxBufferSize) {
    Statistics->countOutOfMemory();
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size,
                      " bytes: larger than the ", kMaxBufferSize,
                      "-byte buffer limit");
  }
  StatusOr<std::shared_ptr<Buffer>> buffer = allocateImpl(size, type, usage);
  if (!buffer.ok()) {
    if (buffer.status().code() == StatusCode::ResourceExhausted)
      Statistics->countOutOfMemory();
    return buffer;
  }
  return Statistics->track(Statistics, countersOf(type),
                           std::move(buffer).value());
}

StatusOr<std::shared_ptr<Buffer>>
Allocator::importHostMemory(std::span<const uint8_t> data, BufferUsage usage,
                            std::shared_ptr<const void> keepAlive) {
  KILN_RETURN_IF_ERROR(checkUsage(usage));
  if (data.size() > kMaxBufferSize)
    return KILN_ERROR(ResourceExhausted, "cannot import ", data.size(),
                      " bytes: larger than the ", kMaxBufferSize,
                      "-byte buffer limit");
  if (!data.data() && !data.empty())
    return KILN_ERROR(InvalidArgument, "cannot import null host memory");
  KILN_ASSIGN_OR_RETURN(
      std::shared_ptr<Buffer> buffer,
      importHostMemoryImpl(data, usage, std::move(keepAlive)));
  return Statistics->track(Statistics, &AllocatorStatistics::Imported,
                           std::move(buffer));
}

AllocatorStatistics Allocator::statistics() const {
  return Statistics->snapshot();
}

} // namespace kiln::hal
