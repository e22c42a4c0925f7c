//===- CodeObject.h - An AMD code object, checked before any loader -------===//
//
// What both AMD drivers do with an `amdgpu-hsaco` image before handing it
// to HIP or HSA: read its ELF (AmdElf.h) and metadata
// (CodeObjectMetadata.h), check that it was built for the device's
// processor and that every kernel the metadata lists has its `.kd`
// descriptor among the dynamic symbols, which is how loaders find it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMD_CODEOBJECT_H
#define KILN_RUNTIME_HAL_DRIVERS_AMD_CODEOBJECT_H

#include "runtime/hal/drivers/amd/AmdElf.h"
#include "runtime/hal/drivers/amd/CodeObjectMetadata.h"

#include <span>
#include <string_view>

namespace kiln::hal::amd {

struct CodeObject {
  AmdElf Elf;
  CodeObjectMetadata Metadata;
};

/// Reads and checks `image`; `deviceTarget` is the GPU's target id
/// ("gfx90a:sramecc+:xnack-"), which the code object's must be compatible
/// with (AmdTarget.h). InvalidArgument (FailedPrecondition for another
/// processor) on one line.
StatusOr<CodeObject> readCodeObject(std::span<const uint8_t> image,
                                    std::string_view deviceTarget);

/// The kernel `name` of `object`, NotFound naming the kernels it has.
StatusOr<const KernelMetadata *> findKernel(const CodeObject &object,
                                            std::string_view name);

} // namespace kiln::hal::amd

#endif // KILN_RUNTIME_HAL_DRIVERS_AMD_CODEOBJECT_H
