//===- GpuCommandBuffer.cpp ----------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuCommandBuffer.h"

#include "runtime/hal/DeviceUri.h"

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

StatusOr<GpuFunctionHandle>
GpuCommandBuffer::kernelFunction(const Executable &executable,
                                 uint32_t entryPoint) {
  auto *gpu = dynamic_cast<const GpuExecutable *>(&executable);
  if (!gpu)
    return KILN_ERROR(InvalidArgument, "executable '", executable.name(),
                      "' was not created by a ", Api->name(), " device");
  return gpu->function(entryPoint);
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
