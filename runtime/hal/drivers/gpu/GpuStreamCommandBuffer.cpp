//===- GpuStreamCommandBuffer.cpp -----------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuStreamCommandBuffer.h"

namespace kiln::hal::gpu {

Status
GpuStreamCommandBuffer::execute(GpuStreamHandle stream,
                                std::span<const uint64_t> slotAddresses) {
  for (const Command &command : Commands) {
    if (doesNothing(command))
      continue;
    // A launch copies the values the parameter pointers point to before it
    // returns.
    std::optional<KernelArguments> arguments;
    KILN_RETURN_IF_ERROR(
        api().enqueue(stream, operation(command, slotAddresses, arguments)));
  }
  return Status();
}

} // namespace kiln::hal::gpu
