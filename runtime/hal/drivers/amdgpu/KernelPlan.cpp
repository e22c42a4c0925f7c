//===- KernelPlan.cpp -----------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/KernelPlan.h"

#include "runtime/hal/DeviceUri.h"

namespace kiln::hal::amdgpu {

StatusOr<std::vector<KernelPlan>> planKernels(const amd::CodeObject &object,
                                              const ExecutableSpec &spec,
                                              uint32_t maxGroupSegmentBytes) {
  std::vector<KernelPlan> plans;
  for (const EntryPointSpec &entry : spec.EntryPoints) {
    auto bad = [&](auto... why) {
      return KILN_ERROR(InvalidArgument, "executable ",
                        quoteForMessage(spec.Name), ", entry point ",
                        quoteForMessage(entry.Name), ": ", why...);
    };
    auto found = amd::findKernel(object, entry.Name);
    if (!found.ok())
      return bad(found.status().message());
    const amd::KernelMetadata &kernel = **found;
    uint64_t threads = uint64_t{entry.WorkgroupSize[0]} *
                       entry.WorkgroupSize[1] * entry.WorkgroupSize[2];
    if (threads > kernel.MaxFlatWorkgroupSize)
      return bad("a workgroup of ", threads, " work-items, the kernel allows ",
                 kernel.MaxFlatWorkgroupSize);
    uint64_t lds =
        uint64_t{kernel.GroupSegmentFixedSize} + entry.SharedMemoryBytes;
    if (lds > maxGroupSegmentBytes)
      return bad(lds, " bytes of LDS, the GPU has ", maxGroupSegmentBytes);
    auto kernargs = KernargLayout::create(kernel, entry.BindingCount,
                                          entry.PushConstantCount);
    if (!kernargs.ok())
      return bad(kernargs.status().message());
    KernelPlan plan;
    plan.Symbol = kernel.Symbol;
    plan.WorkgroupSize = entry.WorkgroupSize;
    plan.GroupSegmentBytes = static_cast<uint32_t>(lds);
    plan.DynamicGroupSegmentBytes = entry.SharedMemoryBytes;
    plan.PrivateSegmentBytes = kernel.PrivateSegmentFixedSize;
    plan.Kernargs = std::move(kernargs).value();
    plans.push_back(std::move(plan));
  }
  return plans;
}

} // namespace kiln::hal::amdgpu
