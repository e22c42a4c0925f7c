//===- CudaStreamCommandBuffer.cpp ----------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaStreamCommandBuffer.h"

#include "runtime/hal/drivers/cuda/CudaStatus.h"

namespace kiln::hal::cuda {

Status
CudaStreamCommandBuffer::execute(CUstream stream,
                                 std::span<const CUdeviceptr> slotAddresses) {
  const CudaSymbols &cu = symbols();
  for (const Command &command : Commands) {
    if (doesNothing(command))
      continue;
    if (const auto *dispatch = std::get_if<DispatchCommand>(&command)) {
      // cuLaunchKernel copies the values the parameter pointers point to
      // before it returns.
      KernelArguments arguments(*dispatch, slotAddresses);
      KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(
          cu, cuLaunchKernel, dispatch->Function, dispatch->Grid[0],
          dispatch->Grid[1], dispatch->Grid[2], dispatch->Block[0],
          dispatch->Block[1], dispatch->Block[2], dispatch->SharedMemoryBytes,
          stream, arguments.pointers(), nullptr));
      continue;
    }
    if (const auto *copy = std::get_if<CopyCommand>(&command)) {
      KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(
          cu, cuMemcpyAsync, copy->Target.resolve(slotAddresses),
          copy->Source.resolve(slotAddresses), copy->Target.Length, stream));
      continue;
    }
    const auto &fill = std::get<FillCommand>(command);
    CUdeviceptr target = fill.Target.resolve(slotAddresses);
    // CommandBuffer::fill checked that offset and length are multiples of
    // the pattern, and allocations are at least 256-byte aligned.
    size_t count = fill.Target.Length / fill.PatternLength;
    switch (fill.PatternLength) {
    case 1:
      KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(
          cu, cuMemsetD8Async, target, static_cast<unsigned char>(fill.Pattern),
          count, stream));
      break;
    case 2:
      KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(
          cu, cuMemsetD16Async, target,
          static_cast<unsigned short>(fill.Pattern), count, stream));
      break;
    default:
      KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuMemsetD32Async, target,
                                          fill.Pattern, count, stream));
      break;
    }
  }
  return Status();
}

} // namespace kiln::hal::cuda
