//===- GpuExecutable.cpp --------------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuExecutable.h"

namespace kiln::hal::gpu {

StatusOr<std::shared_ptr<GpuExecutable>>
GpuExecutable::load(std::shared_ptr<GpuApi> api, const GpuDeviceLimits &limits,
                    const ExecutableSpec &spec) {
  GpuApi::Scope scope(*api);
  KILN_ASSIGN_OR_RETURN(GpuModuleHandle module, api->loadModule(spec));
  // Unloads the module on every return below that fails.
  std::shared_ptr<GpuExecutable> executable(
      new GpuExecutable(spec, api, module));
  for (const EntryPointSpec &entry : spec.EntryPoints) {
    StatusOr<GpuFunctionInfo> found = api->function(module, entry.Name);
    // The vendor's message does not say which entry point is missing.
    if (!found.ok()) {
      Status status = found.status();
      return status.annotate(
          strCat("entry point '", entry.Name, "' of ", spec.Name));
    }
    uint64_t threads = 1;
    for (int i = 0; i < 3; ++i) {
      threads *= entry.WorkgroupSize[i];
      if (entry.WorkgroupSize[i] > limits.MaxBlockDim[i])
        return KILN_ERROR(ResourceExhausted, "entry point '", entry.Name,
                          "': workgroup size ", entry.WorkgroupSize[i],
                          " in dimension ", i, " exceeds the device's ",
                          limits.MaxBlockDim[i]);
    }
    if (threads > found->MaxThreadsPerBlock)
      return KILN_ERROR(ResourceExhausted, "entry point '", entry.Name,
                        "': ", threads,
                        " threads per workgroup, the kernel "
                        "allows ",
                        found->MaxThreadsPerBlock);
    uint64_t shared = entry.SharedMemoryBytes + found->StaticSharedBytes;
    if (shared > limits.MaxSharedMemory)
      return KILN_ERROR(ResourceExhausted, "entry point '", entry.Name,
                        "': ", shared,
                        " bytes of shared memory, the device "
                        "allows ",
                        limits.MaxSharedMemory);
    KILN_RETURN_IF_ERROR(
        api->allowDynamicSharedMemory(found->Handle, entry.SharedMemoryBytes));
    executable->Functions.push_back(found->Handle);
  }
  return executable;
}

GpuExecutable::~GpuExecutable() {
  GpuApi::Scope scope(*Api);
  Api->unloadModule(Module);
}

} // namespace kiln::hal::gpu
