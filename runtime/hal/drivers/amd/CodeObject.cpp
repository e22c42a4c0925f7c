//===- CodeObject.cpp -----------------------------------------------------===//

#include "runtime/hal/drivers/amd/CodeObject.h"

#include "runtime/hal/DeviceUri.h"
#include "runtime/hal/drivers/amd/AmdTarget.h"

#include <unordered_set>

namespace kiln::hal::amd {

StatusOr<CodeObject> readCodeObject(std::span<const uint8_t> image,
                                    std::string_view deviceTarget) {
  CodeObject object;
  KILN_ASSIGN_OR_RETURN(object.Elf, readAmdElf(image));
  KILN_ASSIGN_OR_RETURN(object.Metadata,
                        parseCodeObjectMetadata(object.Elf.Metadata));
  std::string_view target = object.Metadata.targetId();
  if (!amdSupportsExecutable(kHsacoFormat, target, deviceTarget))
    return KILN_ERROR(FailedPrecondition, "the code object is for ", target,
                      ", the device is a ", deviceTarget);
  std::unordered_set<std::string_view> symbols(
      object.Elf.DynamicSymbols.begin(), object.Elf.DynamicSymbols.end());
  for (const KernelMetadata &kernel : object.Metadata.Kernels)
    if (!symbols.count(kernel.Symbol))
      return KILN_ERROR(InvalidArgument,
                        "not a valid AMD code object: "
                        "kernel '",
                        kernel.Name, "' has no dynamic symbol ", kernel.Symbol);
  return object;
}

StatusOr<const KernelMetadata *> findKernel(const CodeObject &object,
                                            std::string_view name) {
  if (const KernelMetadata *kernel = object.Metadata.kernel(name))
    return kernel;
  std::string known;
  for (const KernelMetadata &kernel : object.Metadata.Kernels)
    known += strCat(known.empty() ? "" : ", ", kernel.Name);
  return KILN_ERROR(NotFound, "the code object has no kernel ",
                    quoteForMessage(name),
                    " (it has: ", known.empty() ? "none" : known, ")");
}

} // namespace kiln::hal::amd
