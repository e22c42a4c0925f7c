//===- BufferTransfer.cpp -------------------------------------------------===//

#include "runtime/hal/BufferTransfer.h"

#include "runtime/hal/BufferRef.h"

#include <cstring>
#include <vector>

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
  std::shared_ptr<Buffer> staging;
  BufferRead read{source, offset, out};
  return readBuffers(device, {&read, 1}, staging);
}

Status readBuffers(Device &device, std::span<const BufferRead> reads,
                   std::shared_ptr<Buffer> &staging) {
  // Each staged range at an offset aligned for any element type.
  constexpr uint64_t kAlignment = 16;
  std::vector<BufferCopy> copies;
  std::vector<uint64_t> at(reads.size(), 0);
  uint64_t stagedBytes = 0;
  for (size_t i = 0; i < reads.size(); ++i) {
    const BufferRead &read = reads[i];
    if (!read.Source)
      return KILN_ERROR(InvalidArgument, "readBuffer: no buffer");
    KILN_RETURN_IF_ERROR(
        checkRange(read.Source->size(), read.Offset, read.Out.size(), "read")
            .status());
    if (read.Out.empty())
      continue;
    if (isMappable(*read.Source)) {
      KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> mapped,
                            read.Source->mapRead());
      std::memcpy(read.Out.data(), mapped.data() + read.Offset,
                  read.Out.size());
      continue;
    }
    at[i] = stagedBytes;
    // checkRange bounded each size by its buffer's; the same buffer may be
    // read many times, so the sum is checked.
    uint64_t padded =
        (read.Out.size() + kAlignment - 1) / kAlignment * kAlignment;
    if (__builtin_add_overflow(stagedBytes, padded, &stagedBytes))
      return KILN_ERROR(InvalidArgument,
                        "readBuffers: the reads' sizes overflow 64 bits");
    copies.push_back(
        {read.Source, nullptr, read.Out.size(), read.Offset, at[i]});
  }
  if (copies.empty())
    return Status();
  if (!staging || staging->size() < stagedBytes) {
    staging.reset();
    KILN_ASSIGN_OR_RETURN(staging, allocateStaging(device, stagedBytes));
  }
  for (BufferCopy &copy : copies)
    copy.Target = staging;
  KILN_RETURN_IF_ERROR(copyAndWait(device, copies));
  KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> mapped, staging->mapRead());
  for (size_t i = 0; i < reads.size(); ++i) {
    const BufferRead &read = reads[i];
    if (!read.Out.empty() && !isMappable(*read.Source))
      std::memcpy(read.Out.data(), mapped.data() + at[i], read.Out.size());
  }
  return Status();
}

} // namespace kiln::hal
