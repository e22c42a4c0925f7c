//===- AmdgpuExecutable.cpp -----------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuExecutable.h"

#include "runtime/hal/DeviceUri.h"
namespace kiln::hal::amdgpu {

StatusOr<std::unique_ptr<AmdgpuExecutable>>
AmdgpuExecutable::load(std::shared_ptr<const HsaSymbols> hsa, hsa_agent_t agent,
                       std::string_view targetId, uint32_t maxLds,
                       const ExecutableSpec &spec) {
  auto annotated = [&](Status status) {
    return status.annotate(strCat("executable ", quoteForMessage(spec.Name)));
  };
  auto object = amd::readCodeObject(spec.Image, targetId);
  if (!object.ok())
    return annotated(object.status());
  KILN_ASSIGN_OR_RETURN(std::vector<KernelPlan> plans,
                        planKernels(*object, spec, maxLds));

  // Everything created below is released by the destructor on any return.
  std::unique_ptr<AmdgpuExecutable> loaded(new AmdgpuExecutable(hsa));
  const HsaSymbols &api = *hsa;
  if (Status status =
          KILN_HSA_CALL(api, hsa_code_object_reader_create_from_memory,
                        spec.Image.data(), spec.Image.size(), &loaded->Reader);
      !status.ok())
    return annotated(status);
  if (Status status =
          KILN_HSA_CALL(api, hsa_executable_create_alt, HSA_PROFILE_FULL,
                        HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
                        &loaded->Executable);
      !status.ok())
    return annotated(status);
  if (Status status = KILN_HSA_CALL(api, hsa_executable_load_agent_code_object,
                                    loaded->Executable, agent, loaded->Reader,
                                    nullptr, nullptr);
      !status.ok())
    return annotated(status);
  if (Status status = KILN_HSA_CALL(api, hsa_executable_freeze,
                                    loaded->Executable, nullptr);
      !status.ok())
    return annotated(status);
  // The reader reads the image, which the caller keeps only for this call;
  // the frozen executable holds what it loaded.
  (void)api.hsa_code_object_reader_destroy(loaded->Reader);
  loaded->Reader = {0};
  for (KernelPlan &plan : plans) {
    hsa_executable_symbol_t symbol;
    if (Status status = KILN_HSA_CALL(api, hsa_executable_get_symbol_by_name,
                                      loaded->Executable, plan.Symbol.c_str(),
                                      &agent, &symbol);
        !status.ok())
      return annotated(status.annotate(plan.Symbol));
    AmdgpuKernel kernel;
    if (Status status = KILN_HSA_CALL(
            api, hsa_executable_symbol_get_info, symbol,
            HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernel.KernelObject);
        !status.ok())
      return annotated(status.annotate(plan.Symbol));
    kernel.Plan = std::move(plan);
    loaded->Kernels.push_back(std::move(kernel));
  }
  return loaded;
}

AmdgpuExecutable::~AmdgpuExecutable() {
  // Nothing to report to: both fail only for handles HSA never gave out.
  if (Executable.handle)
    (void)Hsa->hsa_executable_destroy(Executable);
  if (Reader.handle)
    (void)Hsa->hsa_code_object_reader_destroy(Reader);
}

} // namespace kiln::hal::amdgpu
