//===- CudaCommandBuffer.cpp ----------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaCommandBuffer.h"

#include "runtime/hal/drivers/cuda/CudaEvent.h"
#include "runtime/hal/drivers/cuda/CudaStatus.h"
#include "runtime/hal/drivers/gpu/GpuBuffer.h"

namespace kiln::hal::cuda {

StatusOr<CudaCommandBuffer::Range>
CudaCommandBuffer::toRange(const BufferRef &ref) {
  if (ref.isIndirect())
    return Range{0, ref.Slot, ref.Offset, ref.Length};
  auto *buffer = dynamic_cast<gpu::GpuBuffer *>(ref.Direct.get());
  if (!buffer)
    return KILN_ERROR(InvalidArgument,
                      "buffer was not allocated by a CUDA device");
  Buffers.push_back(ref.Direct);
  return Range{buffer->deviceAddress(), 0, ref.Offset, ref.Length};
}

Status CudaCommandBuffer::recordFill(const BufferRef &target, uint32_t pattern,
                                     uint8_t patternLength) {
  KILN_ASSIGN_OR_RETURN(Range range, toRange(target));
  Commands.push_back(FillCommand{range, pattern, patternLength});
  return Status();
}

Status CudaCommandBuffer::recordCopy(const BufferRef &source,
                                     const BufferRef &target) {
  KILN_ASSIGN_OR_RETURN(Range from, toRange(source));
  KILN_ASSIGN_OR_RETURN(Range to, toRange(target));
  Commands.push_back(CopyCommand{from, to});
  return Status();
}

Status
CudaCommandBuffer::recordDispatch(const std::shared_ptr<Executable> &executable,
                                  uint32_t, const std::array<uint32_t, 3> &,
                                  std::span<const BufferRef>,
                                  std::span<const uint32_t>) {
  // Unreachable through CudaDevice, which creates no executables yet.
  return KILN_ERROR(Unimplemented, "cannot dispatch '", executable->name(),
                    "': the cuda driver does not run executables yet");
}

Status CudaCommandBuffer::checkEvent(const std::shared_ptr<Event> &event) {
  if (!dynamic_cast<CudaEvent *>(event.get()))
    return KILN_ERROR(InvalidArgument,
                      "event was not created by a CUDA device");
  Events.push_back(event);
  return Status();
}

Status
CudaCommandBuffer::recordSignalEvent(const std::shared_ptr<Event> &event) {
  return checkEvent(event);
}

Status CudaCommandBuffer::recordWaitEvent(const std::shared_ptr<Event> &event) {
  return checkEvent(event);
}

Status
CudaCommandBuffer::issue(const CudaSymbols &symbols, CUstream stream,
                         std::span<const CUdeviceptr> slotAddresses) const {
  for (const Command &command : Commands) {
    if (const auto *copy = std::get_if<CopyCommand>(&command)) {
      if (copy->Target.Length == 0)
        continue;
      KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(
          symbols, cuMemcpyAsync, copy->Target.resolve(slotAddresses),
          copy->Source.resolve(slotAddresses), copy->Target.Length, stream));
      continue;
    }
    const auto &fill = std::get<FillCommand>(command);
    CUdeviceptr target = fill.Target.resolve(slotAddresses);
    // CommandBuffer::fill checked that offset and length are multiples of
    // the pattern, and allocations are at least 256-byte aligned.
    size_t count = fill.Target.Length / fill.PatternLength;
    if (count == 0)
      continue;
    switch (fill.PatternLength) {
    case 1:
      KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(
          symbols, cuMemsetD8Async, target,
          static_cast<unsigned char>(fill.Pattern), count, stream));
      break;
    case 2:
      KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(
          symbols, cuMemsetD16Async, target,
          static_cast<unsigned short>(fill.Pattern), count, stream));
      break;
    default:
      KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(symbols, cuMemsetD32Async, target,
                                          fill.Pattern, count, stream));
      break;
    }
  }
  return Status();
}

} // namespace kiln::hal::cuda
