//===- AmdgpuCommandBuffer.h - Recorded commands as AQL dispatches --------===//
//
// Records what every GPU command buffer records (gpu::GpuRecording) and, at
// each submission, turns it into the kernel dispatches an AmdgpuQueue
// writes as AQL packets: a dispatch with its bindings resolved to device
// addresses, a fill or copy as a dispatch of the device's transfer kernels
// (TransferKernels.h). Every packet of a submission has the barrier bit
// (SubmissionPackets.h), so commands run one after another in recording
// order: barriers, events and dependOn need nothing more, and the device
// reports concurrent-commands unsupported. A command that does nothing is
// left out.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUCOMMANDBUFFER_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUCOMMANDBUFFER_H

#include "runtime/hal/drivers/amdgpu/AmdgpuExecutable.h"
#include "runtime/hal/drivers/amdgpu/SubmissionPackets.h"
#include "runtime/hal/drivers/gpu/GpuRecording.h"

#include <deque>
#include <memory>

namespace kiln::hal::amdgpu {

/// One submission's dispatches and the arguments their spans point into.
struct PreparedDispatches {
  std::vector<KernelDispatch> Dispatches;
  // Deques: growing them keeps earlier elements where the spans saw them.
  std::deque<std::vector<uint64_t>> Bindings;
  std::deque<std::vector<uint32_t>> PushConstants;
};

class AmdgpuCommandBuffer final : public gpu::GpuRecording {
public:
  AmdgpuCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity,
                      const std::array<uint64_t, 3> &maxGrid)
      : GpuRecording(mode, bindingCapacity, "amdgpu", maxGrid) {}

  /// The dispatches for a queue of GPU `gpu` (an index among the device's
  /// GPUs), whose transfer kernels `transfer` are; `slotAddresses[i]` is
  /// binding slot i's device address.
  std::shared_ptr<PreparedDispatches>
  prepare(size_t gpu, const AmdgpuExecutable &transfer,
          std::span<const uint64_t> slotAddresses) const;

protected:
  /// AmdgpuDeviceExecutables only; kernels are found per GPU at prepare.
  StatusOr<gpu::GpuFunctionHandle> kernelFunction(const Executable &executable,
                                                  uint32_t entryPoint) override;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUCOMMANDBUFFER_H
