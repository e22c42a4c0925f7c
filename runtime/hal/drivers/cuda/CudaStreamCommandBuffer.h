//===- CudaStreamCommandBuffer.h - Commands issued at each submission -----===//
//
// Stream mode: the commands are issued, in order, into the queue's stream
// at every submission (dispatches as cuLaunchKernel with the bindings'
// device addresses as kernel parameters). One stream runs them one after
// another, so barriers and events need no CUDA work, and neither does
// dependOn: every command it names was issued earlier and has finished
// before the next one starts, so commandDependencies() is never read. The
// price is one driver call per command per submission and no concurrency
// between independent commands (the device reports concurrent-commands
// unsupported in this mode).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASTREAMCOMMANDBUFFER_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASTREAMCOMMANDBUFFER_H

#include "runtime/hal/drivers/cuda/CudaCommandBuffer.h"

namespace kiln::hal::cuda {

class CudaStreamCommandBuffer final : public CudaCommandBuffer {
public:
  CudaStreamCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity,
                          std::shared_ptr<CudaContext> context,
                          const CudaDeviceLimits &limits)
      : CudaCommandBuffer(CudaCommandBufferKind::Stream, mode, bindingCapacity,
                          std::move(context), limits) {}

  Status execute(CUstream stream,
                 std::span<const CUdeviceptr> slotAddresses) override;

protected:
  Status recordExecutionBarrier() override { return Status(); }
  Status recordSignalEvent(const std::shared_ptr<Event> &event) override {
    return keepEvent(event);
  }
  Status recordWaitEvent(const std::shared_ptr<Event> &event) override {
    return keepEvent(event);
  }
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDASTREAMCOMMANDBUFFER_H
