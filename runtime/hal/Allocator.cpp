//===- Allocator.cpp ------------------------------------------------------===//

#include "runtime/hal/Allocator.h"

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
} // namespace

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
  if (size > kMaxBufferSize)
    return KILN_ERROR(ResourceExhausted, "cannot allocate ", size,
                      " bytes: larger than the ", kMaxBufferSize,
                      "-byte buffer limit");
  return allocateImpl(size, type, usage);
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
  return importHostMemoryImpl(data, usage, std::move(keepAlive));
}

} // namespace kiln::hal
