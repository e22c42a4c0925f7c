//===- GpuStreamCommandBuffer.h - Commands issued at each submission -----===//
//
// Stream mode: the commands are issued, in order, into the queue's stream
// at every submission (dispatches as kernel launches with the bindings'
// device addresses as kernel parameters). One stream runs them one after
// another, so barriers and events need no GPU work, and neither does
// dependOn: every command it names was issued earlier and has finished
// before the next one starts, so commandDependencies() is never read. The
// price is one driver call per command per submission and no concurrency
// between independent commands (the device reports concurrent-commands
// unsupported in this mode).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUSTREAMCOMMANDBUFFER_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUSTREAMCOMMANDBUFFER_H

#include "runtime/hal/drivers/gpu/GpuCommandBuffer.h"

namespace kiln::hal::gpu {

class GpuStreamCommandBuffer final : public GpuCommandBuffer {
public:
  GpuStreamCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity,
                         std::shared_ptr<GpuApi> api,
                         const GpuDeviceLimits &limits)
      : GpuCommandBuffer(GpuCommandBufferKind::Stream, mode, bindingCapacity,
                         std::move(api), limits) {}

  Status execute(GpuStreamHandle stream,
                 std::span<const uint64_t> slotAddresses) override;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUSTREAMCOMMANDBUFFER_H
