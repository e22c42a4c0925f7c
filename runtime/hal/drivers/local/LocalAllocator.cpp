//===- LocalAllocator.cpp -------------------------------------------------===//

#include "runtime/hal/drivers/local/LocalAllocator.h"

#include "runtime/hal/drivers/local/LocalBuffer.h"

#include <cstring>

namespace kiln::hal::local {

bool LocalAllocator::supportsMemoryType(MemoryType type) const {
  if (type == MemoryType::DeviceLocal || type == MemoryType::HostVisible)
    return true;
  return Unified && type == (MemoryType::DeviceLocal | MemoryType::HostVisible);
}

StatusOr<std::shared_ptr<Buffer>>
LocalAllocator::allocateImpl(uint64_t size, MemoryType type,
                             BufferUsage usage) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<LocalBuffer> buffer,
                        LocalBuffer::allocate(size, type, usage));
  return std::shared_ptr<Buffer>(std::move(buffer));
}

StatusOr<std::shared_ptr<Buffer>>
LocalAllocator::importHostMemoryImpl(std::span<const uint8_t> data,
                                     BufferUsage usage,
                                     std::shared_ptr<const void> keepAlive) {
  // Kernels get a valid address even for an empty buffer.
  alignas(LocalBuffer::kAlignment) static const uint8_t kEmpty[1] = {0};
  if (data.empty())
    data = std::span<const uint8_t>(kEmpty, 0);
  if (Unified)
    return std::shared_ptr<Buffer>(
        LocalBuffer::wrap(data.data(), data.size(),
                          MemoryType::DeviceLocal | MemoryType::HostVisible,
                          usage, std::move(keepAlive)));
  // Like a discrete GPU: the device gets its own copy, which the host can
  // map only if it asked for Mapping.
  MemoryType type = hasAll(usage, BufferUsage::Mapping)
                        ? MemoryType::HostVisible
                        : MemoryType::DeviceLocal;
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<LocalBuffer> copy,
                        LocalBuffer::allocate(data.size(), type, usage));
  if (!data.empty())
    std::memcpy(copy->data(), data.data(), data.size());
  std::shared_ptr<const void> holder = copy;
  return std::shared_ptr<Buffer>(LocalBuffer::wrap(
      copy->data(), data.size(), type, usage, std::move(holder)));
}

} // namespace kiln::hal::local
