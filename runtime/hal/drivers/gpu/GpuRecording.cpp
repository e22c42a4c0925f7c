//===- GpuRecording.cpp ---------------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuRecording.h"

#include "runtime/hal/drivers/gpu/GpuBuffer.h"
#include "runtime/hal/drivers/gpu/GpuEvent.h"

namespace kiln::hal::gpu {

StatusOr<GpuRecording::Range> GpuRecording::toRange(const BufferRef &ref) {
  if (ref.isIndirect())
    return Range{0, ref.Slot, ref.Offset, ref.Length};
  auto *buffer = dynamic_cast<GpuBuffer *>(ref.Direct.get());
  if (!buffer)
    return KILN_ERROR(InvalidArgument, "buffer was not allocated by a ", Vendor,
                      " device");
  Buffers.push_back(ref.Direct);
  return Range{buffer->deviceAddress(), 0, ref.Offset, ref.Length};
}

bool GpuRecording::doesNothing(const Command &command) {
  if (const auto *fill = std::get_if<FillCommand>(&command))
    return fill->Target.Length == 0;
  if (const auto *copy = std::get_if<CopyCommand>(&command))
    return copy->Target.Length == 0;
  const auto &grid = std::get<DispatchCommand>(command).Grid;
  return grid[0] == 0 || grid[1] == 0 || grid[2] == 0;
}

Status GpuRecording::recordFill(const BufferRef &target, uint32_t pattern,
                                uint8_t patternLength) {
  KILN_ASSIGN_OR_RETURN(Range range, toRange(target));
  Commands.push_back(FillCommand{range, pattern, patternLength});
  commandRecorded();
  return Status();
}

Status GpuRecording::recordCopy(const BufferRef &source,
                                const BufferRef &target) {
  KILN_ASSIGN_OR_RETURN(Range from, toRange(source));
  KILN_ASSIGN_OR_RETURN(Range to, toRange(target));
  Commands.push_back(CopyCommand{from, to});
  commandRecorded();
  return Status();
}

Status
GpuRecording::recordDispatch(const std::shared_ptr<Executable> &executable,
                             uint32_t entryPoint,
                             const std::array<uint32_t, 3> &workgroupCount,
                             std::span<const BufferRef> bindings,
                             std::span<const uint32_t> pushConstants) {
  KILN_ASSIGN_OR_RETURN(GpuFunctionHandle function,
                        kernelFunction(*executable, entryPoint));
  const EntryPointSpec &entry = executable->entryPoints()[entryPoint];
  for (int i = 0; i < 3; ++i)
    if (workgroupCount[i] > MaxGrid[i])
      return KILN_ERROR(ResourceExhausted, "dispatch of '", entry.Name,
                        "': ", workgroupCount[i], " workgroups in dimension ",
                        i, " exceed the device's ", MaxGrid[i]);
  DispatchCommand dispatch{function,
                           executable.get(),
                           entryPoint,
                           workgroupCount,
                           entry.WorkgroupSize,
                           entry.SharedMemoryBytes,
                           {},
                           {pushConstants.begin(), pushConstants.end()},
                           entry.WaitsForPrerequisites};
  for (const BufferRef &binding : bindings) {
    KILN_ASSIGN_OR_RETURN(Range range, toRange(binding));
    dispatch.Bindings.push_back(range);
  }
  Executables.push_back(executable);
  Commands.push_back(std::move(dispatch));
  commandRecorded();
  return Status();
}

Status GpuRecording::keepEvent(const std::shared_ptr<Event> &event) {
  if (!dynamic_cast<GpuEvent *>(event.get()))
    return KILN_ERROR(InvalidArgument, "event was not created by a ", Vendor,
                      " device");
  Events.push_back(event);
  return Status();
}

} // namespace kiln::hal::gpu
