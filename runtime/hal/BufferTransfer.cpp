//===- BufferTransfer.cpp -------------------------------------------------===//

#include "runtime/hal/BufferTransfer.h"

#include "runtime/hal/BufferRef.h"

#include <cstring>

namespace kiln::hal {

namespace {

// Whether the host can reach `buffer`'s memory itself (a read-only one only
// for reading: map() says so).
bool isMappable(const Buffer &buffer) {
  return hasAll(buffer.memoryType(), MemoryType::HostVisible) &&
         hasAll(buffer.usage(), BufferUsage::Mapping);
}

} // namespace

Status copyAndWait(Device &device, std::span<const BufferCopy> copies) {
  KILN_ASSIGN_OR_RETURN(
      std::shared_ptr<CommandBuffer> commands,
      device.createCommandBuffer(CommandBufferMode::OneShot, 0));
  KILN_RETURN_IF_ERROR(commands->begin());
  for (const BufferCopy &copy : copies)
    if (copy.Bytes > 0)
      KILN_RETURN_IF_ERROR(commands->copy(
          BufferRef::direct(copy.Source, copy.SourceOffset, copy.Bytes),
          BufferRef::direct(copy.Target, copy.TargetOffset, copy.Bytes)));
  KILN_RETURN_IF_ERROR(commands->end());
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<Semaphore> done,
                        device.createSemaphore(0));
  SemaphoreValue signal{done, 1};
  KILN_RETURN_IF_ERROR(device.queueExecute({}, commands, {}, {&signal, 1}));
  return done->wait(1, kInfiniteTimeout);
}

StatusOr<std::shared_ptr<Buffer>> allocateStaging(Device &device,
                                                  uint64_t bytes) {
  return device.allocator().allocate(bytes, MemoryType::HostVisible,
                                     BufferUsage::Transfer |
                                         BufferUsage::Mapping);
}

Status writeBuffer(Device &device, const std::shared_ptr<Buffer> &target,
                   uint64_t offset, std::span<const uint8_t> data) {
  if (!target)
    return KILN_ERROR(InvalidArgument, "writeBuffer: no buffer");
  KILN_RETURN_IF_ERROR(
      checkRange(target->size(), offset, data.size(), "write").status());
  if (data.empty())
    return Status();
  if (isMappable(*target)) {
    KILN_ASSIGN_OR_RETURN(std::span<uint8_t> mapped, target->map());
    std::memcpy(mapped.data() + offset, data.data(), data.size());
    return Status();
  }
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> staging,
                        allocateStaging(device, data.size()));
  KILN_ASSIGN_OR_RETURN(std::span<uint8_t> mapped, staging->map());
  std::memcpy(mapped.data(), data.data(), data.size());
  BufferCopy copy{staging, target, data.size(), 0, offset};
  return copyAndWait(device, {&copy, 1});
}

Status readBuffer(Device &device, const std::shared_ptr<Buffer> &source,
                  uint64_t offset, std::span<uint8_t> out) {
  if (!source)
    return KILN_ERROR(InvalidArgument, "readBuffer: no buffer");
  KILN_RETURN_IF_ERROR(
      checkRange(source->size(), offset, out.size(), "read").status());
  if (out.empty())
    return Status();
  if (isMappable(*source)) {
    KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> mapped, source->mapRead());
    std::memcpy(out.data(), mapped.data() + offset, out.size());
    return Status();
  }
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> staging,
                        allocateStaging(device, out.size()));
  BufferCopy copy{source, staging, out.size(), offset, 0};
  KILN_RETURN_IF_ERROR(copyAndWait(device, {&copy, 1}));
  KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> mapped, staging->mapRead());
  std::memcpy(out.data(), mapped.data(), out.size());
  return Status();
}

} // namespace kiln::hal
