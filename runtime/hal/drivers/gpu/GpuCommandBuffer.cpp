//===- GpuCommandBuffer.cpp ----------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuCommandBuffer.h"

#include "runtime/hal/DeviceUri.h"
#include "runtime/hal/drivers/gpu/GpuBuffer.h"
#include "runtime/hal/drivers/gpu/GpuEvent.h"

namespace kiln::hal::gpu {

StatusOr<GpuCommandBufferKind>
parseGpuCommandBufferKind(std::string_view text, std::string_view origin) {
  if (text == "graph")
    return GpuCommandBufferKind::Graph;
  if (text == "stream")
    return GpuCommandBufferKind::Stream;
  return KILN_ERROR(InvalidArgument, origin, " is ", quoteForMessage(text),
                    "; the GPU command buffer kinds are graph (the default) "
                    "and stream");
}

std::string_view gpuCommandBufferKindName(GpuCommandBufferKind kind) {
  return kind == GpuCommandBufferKind::Graph ? "graph" : "stream";
}

StatusOr<GpuCommandBuffer::Range>
GpuCommandBuffer::toRange(const BufferRef &ref) {
  if (ref.isIndirect())
    return Range{0, ref.Slot, ref.Offset, ref.Length};
  auto *buffer = dynamic_cast<GpuBuffer *>(ref.Direct.get());
  if (!buffer)
    return KILN_ERROR(InvalidArgument, "buffer was not allocated by a ",
                      Api->name(), " device");
  Buffers.push_back(ref.Direct);
  return Range{buffer->deviceAddress(), 0, ref.Offset, ref.Length};
}

bool GpuCommandBuffer::doesNothing(const Command &command) {
  if (const auto *fill = std::get_if<FillCommand>(&command))
    return fill->Target.Length == 0;
  if (const auto *copy = std::get_if<CopyCommand>(&command))
    return copy->Target.Length == 0;
  const auto &grid = std::get<DispatchCommand>(command).Grid;
  return grid[0] == 0 || grid[1] == 0 || grid[2] == 0;
}

Status GpuCommandBuffer::recordFill(const BufferRef &target, uint32_t pattern,
                                    uint8_t patternLength) {
  KILN_ASSIGN_OR_RETURN(Range range, toRange(target));
  Commands.push_back(FillCommand{range, pattern, patternLength});
  commandRecorded();
  return Status();
}

Status GpuCommandBuffer::recordCopy(const BufferRef &source,
                                    const BufferRef &target) {
  KILN_ASSIGN_OR_RETURN(Range from, toRange(source));
  KILN_ASSIGN_OR_RETURN(Range to, toRange(target));
  Commands.push_back(CopyCommand{from, to});
  commandRecorded();
  return Status();
}

Status
GpuCommandBuffer::recordDispatch(const std::shared_ptr<Executable> &executable,
                                 uint32_t entryPoint,
                                 const std::array<uint32_t, 3> &workgroupCount,
                                 std::span<const BufferRef> bindings,
                                 std::span<const uint32_t> pushConstants) {
  auto *gpu = dynamic_cast<GpuExecutable *>(executable.get());
  if (!gpu)
    return KILN_ERROR(InvalidArgument, "executable '", executable->name(),
                      "' was not created by a ", Api->name(), " device");
  const EntryPointSpec &entry = executable->entryPoints()[entryPoint];
  for (int i = 0; i < 3; ++i)
    if (workgroupCount[i] > Limits.MaxGridDim[i])
      return KILN_ERROR(ResourceExhausted, "dispatch of '", entry.Name,
                        "': ", workgroupCount[i], " workgroups in dimension ",
                        i, " exceed the device's ", Limits.MaxGridDim[i]);
  DispatchCommand dispatch{gpu->function(entryPoint),
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

Status GpuCommandBuffer::keepEvent(const std::shared_ptr<Event> &event) {
  if (!dynamic_cast<GpuEvent *>(event.get()))
    return KILN_ERROR(InvalidArgument, "event was not created by a ",
                      Api->name(), " device");
  Events.push_back(event);
  return Status();
}

GpuCommandBuffer::KernelArguments::KernelArguments(
    const DispatchCommand &dispatch, std::span<const uint64_t> slotAddresses)
    : PushConstants(dispatch.PushConstants) {
  // Both vectors are complete before any pointer into them is taken.
  Addresses.reserve(dispatch.Bindings.size());
  for (const Range &binding : dispatch.Bindings)
    Addresses.push_back(binding.resolve(slotAddresses));
  Pointers.reserve(Addresses.size() + PushConstants.size());
  for (uint64_t &address : Addresses)
    Pointers.push_back(&address);
  for (uint32_t &value : PushConstants)
    Pointers.push_back(&value);
}

GpuOperation
GpuCommandBuffer::operation(const Command &command,
                            std::span<const uint64_t> slotAddresses,
                            std::optional<KernelArguments> &arguments) {
  if (const auto *dispatch = std::get_if<DispatchCommand>(&command)) {
    arguments.emplace(*dispatch, slotAddresses);
    return GpuKernelLaunch{dispatch->Function, dispatch->Grid, dispatch->Block,
                           dispatch->SharedMemoryBytes, arguments->pointers()};
  }
  if (const auto *copy = std::get_if<CopyCommand>(&command))
    return GpuCopy{copy->Source.resolve(slotAddresses),
                   copy->Target.resolve(slotAddresses), copy->Target.Length};
  // CommandBuffer::fill checked that the pattern fits its length and that
  // offset and length are multiples of it.
  const auto &fill = std::get<FillCommand>(command);
  return GpuFill{fill.Target.resolve(slotAddresses), fill.Target.Length,
                 fill.Pattern, fill.PatternLength};
}

} // namespace kiln::hal::gpu
