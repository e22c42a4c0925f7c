//===- CudaCommandBuffer.cpp ----------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaCommandBuffer.h"

#include "runtime/hal/DeviceUri.h"
#include "runtime/hal/drivers/cuda/CudaEvent.h"
#include "runtime/hal/drivers/gpu/GpuBuffer.h"

#include <cstdlib>

namespace kiln::hal::cuda {

StatusOr<CudaCommandBufferKind>
parseCudaCommandBufferKind(std::string_view text, std::string_view origin) {
  if (text == "graph")
    return CudaCommandBufferKind::Graph;
  if (text == "stream")
    return CudaCommandBufferKind::Stream;
  return KILN_ERROR(InvalidArgument, origin, " is ", quoteForMessage(text),
                    "; the CUDA command buffer kinds are graph (the default) "
                    "and stream");
}

StatusOr<CudaCommandBufferKind> cudaCommandBufferKindFromEnvironment() {
  const char *value = std::getenv(kCudaCommandBuffersEnv);
  if (!value || !*value)
    return CudaCommandBufferKind::Graph;
  return parseCudaCommandBufferKind(value, kCudaCommandBuffersEnv);
}

std::string_view cudaCommandBufferKindName(CudaCommandBufferKind kind) {
  return kind == CudaCommandBufferKind::Graph ? "graph" : "stream";
}

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

bool CudaCommandBuffer::doesNothing(const Command &command) {
  if (const auto *fill = std::get_if<FillCommand>(&command))
    return fill->Target.Length == 0;
  if (const auto *copy = std::get_if<CopyCommand>(&command))
    return copy->Target.Length == 0;
  const auto &grid = std::get<DispatchCommand>(command).Grid;
  return grid[0] == 0 || grid[1] == 0 || grid[2] == 0;
}

Status CudaCommandBuffer::recordFill(const BufferRef &target, uint32_t pattern,
                                     uint8_t patternLength) {
  KILN_ASSIGN_OR_RETURN(Range range, toRange(target));
  Commands.push_back(FillCommand{range, pattern, patternLength});
  commandRecorded();
  return Status();
}

Status CudaCommandBuffer::recordCopy(const BufferRef &source,
                                     const BufferRef &target) {
  KILN_ASSIGN_OR_RETURN(Range from, toRange(source));
  KILN_ASSIGN_OR_RETURN(Range to, toRange(target));
  Commands.push_back(CopyCommand{from, to});
  commandRecorded();
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
  commandRecorded();
  return Status();
}

Status CudaCommandBuffer::keepEvent(const std::shared_ptr<Event> &event) {
  if (!dynamic_cast<CudaEvent *>(event.get()))
    return KILN_ERROR(InvalidArgument,
                      "event was not created by a CUDA device");
  Events.push_back(event);
  return Status();
}

CudaCommandBuffer::KernelArguments::KernelArguments(
    const DispatchCommand &dispatch, std::span<const CUdeviceptr> slotAddresses)
    : PushConstants(dispatch.PushConstants) {
  // Both vectors are complete before any pointer into them is taken.
  Addresses.reserve(dispatch.Bindings.size());
  for (const Range &binding : dispatch.Bindings)
    Addresses.push_back(binding.resolve(slotAddresses));
  Pointers.reserve(Addresses.size() + PushConstants.size());
  for (CUdeviceptr &address : Addresses)
    Pointers.push_back(&address);
  for (uint32_t &value : PushConstants)
    Pointers.push_back(&value);
}

} // namespace kiln::hal::cuda
