//===- CudaCommandBuffer.cpp ----------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaCommandBuffer.h"

#include "runtime/hal/drivers/cuda/CudaEvent.h"
#include "runtime/hal/drivers/cuda/CudaExecutable.h"
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
                                  uint32_t entryPoint,
                                  const std::array<uint32_t, 3> &workgroupCount,
                                  std::span<const BufferRef> bindings,
                                  std::span<const uint32_t> pushConstants) {
  auto *cuda = dynamic_cast<CudaExecutable *>(executable.get());
  if (!cuda)
    return KILN_ERROR(InvalidArgument, "executable '", executable->name(),
                      "' was not created by a CUDA device");
  const EntryPointSpec &entry = executable->entryPoints()[entryPoint];
  for (int i = 0; i < 3; ++i)
    if (workgroupCount[i] > static_cast<uint32_t>(Limits.MaxGridDim[i]))
      return KILN_ERROR(ResourceExhausted, "dispatch of '", entry.Name,
                        "': ", workgroupCount[i], " workgroups in dimension ",
                        i, " exceed the device's ", Limits.MaxGridDim[i]);
  DispatchCommand dispatch{cuda->function(entryPoint),
                           workgroupCount,
                           entry.WorkgroupSize,
                           entry.SharedMemoryBytes,
                           {},
                           {pushConstants.begin(), pushConstants.end()}};
  for (const BufferRef &binding : bindings) {
    KILN_ASSIGN_OR_RETURN(Range range, toRange(binding));
    dispatch.Bindings.push_back(range);
  }
  Executables.push_back(executable);
  Commands.push_back(std::move(dispatch));
  return Status();
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
    if (const auto *dispatch = std::get_if<DispatchCommand>(&command)) {
      KILN_RETURN_IF_ERROR(
          issueDispatch(symbols, stream, slotAddresses, *dispatch));
      continue;
    }
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

Status
CudaCommandBuffer::issueDispatch(const CudaSymbols &symbols, CUstream stream,
                                 std::span<const CUdeviceptr> slotAddresses,
                                 const DispatchCommand &dispatch) const {
  if (dispatch.Grid[0] == 0 || dispatch.Grid[1] == 0 || dispatch.Grid[2] == 0)
    return Status();
  // cuLaunchKernel copies the values the parameter pointers point to before
  // it returns, so they may live on this stack.
  std::vector<CUdeviceptr> addresses;
  addresses.reserve(dispatch.Bindings.size());
  std::vector<void *> params;
  for (const Range &binding : dispatch.Bindings) {
    addresses.push_back(binding.resolve(slotAddresses));
    params.push_back(&addresses.back());
  }
  std::vector<uint32_t> pushConstants = dispatch.PushConstants;
  for (uint32_t &value : pushConstants)
    params.push_back(&value);
  return KILN_CUDA_CALL(symbols, cuLaunchKernel, dispatch.Function,
                        dispatch.Grid[0], dispatch.Grid[1], dispatch.Grid[2],
                        dispatch.Block[0], dispatch.Block[1], dispatch.Block[2],
                        dispatch.SharedMemoryBytes, stream, params.data(),
                        nullptr);
}

} // namespace kiln::hal::cuda
