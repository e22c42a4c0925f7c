//===- AmdgpuCommandBuffer.cpp --------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuCommandBuffer.h"

#include "runtime/hal/drivers/amdgpu/AmdgpuDeviceExecutable.h"
#include "runtime/hal/drivers/amdgpu/TransferKernels.h"

namespace kiln::hal::amdgpu {

StatusOr<gpu::GpuFunctionHandle>
AmdgpuCommandBuffer::kernelFunction(const Executable &executable, uint32_t) {
  if (!dynamic_cast<const AmdgpuDeviceExecutable *>(&executable))
    return KILN_ERROR(InvalidArgument, "executable '", executable.name(),
                      "' was not created by an amdgpu device");
  return gpu::GpuFunctionHandle(nullptr);
}

std::shared_ptr<PreparedDispatches>
AmdgpuCommandBuffer::prepare(size_t gpu, const AmdgpuExecutable &transfer,
                             std::span<const uint64_t> slotAddresses) const {
  auto prepared = std::make_shared<PreparedDispatches>();
  auto add =
      [&](const AmdgpuKernel &kernel, const std::array<uint32_t, 3> &workgroups,
          std::vector<uint64_t> bindings, std::vector<uint32_t> pushConstants) {
        prepared->Bindings.push_back(std::move(bindings));
        prepared->PushConstants.push_back(std::move(pushConstants));
        prepared->Dispatches.push_back({&kernel, workgroups,
                                        prepared->Bindings.back(),
                                        prepared->PushConstants.back()});
      };
  auto addTransfer = [&](TransferDispatch planned) {
    add(transfer.kernel(static_cast<uint32_t>(planned.Kernel)),
        {planned.Workgroups, 1, 1}, std::move(planned.Bindings),
        std::move(planned.PushConstants));
  };
  for (const Command &command : Commands) {
    if (doesNothing(command))
      continue;
    if (const auto *fill = std::get_if<FillCommand>(&command)) {
      addTransfer(planFill(fill->Target.resolve(slotAddresses),
                           fill->Target.Length, fill->Pattern,
                           fill->PatternLength));
    } else if (const auto *copy = std::get_if<CopyCommand>(&command)) {
      addTransfer(planCopy(copy->Source.resolve(slotAddresses),
                           copy->Target.resolve(slotAddresses),
                           copy->Target.Length));
    } else {
      const auto &dispatch = std::get<DispatchCommand>(command);
      // kernelFunction let only these through.
      const auto &executable =
          static_cast<const AmdgpuDeviceExecutable &>(*dispatch.Source);
      std::vector<uint64_t> bindings;
      for (const Range &binding : dispatch.Bindings)
        bindings.push_back(binding.resolve(slotAddresses));
      add(executable.kernel(gpu, dispatch.EntryPoint), dispatch.Grid,
          std::move(bindings), dispatch.PushConstants);
    }
  }
  return prepared;
}

} // namespace kiln::hal::amdgpu
