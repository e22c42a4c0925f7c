//===- CodeObject.h - ROCDL kernels to an AMDGPU code object (hsaco) ------===//
//
// The kernels' gpu.module, lowered to the LLVM and ROCDL dialects, becomes
// LLVM IR for amdgcn-amd-amdhsa; the device libraries it calls are linked
// and their control variables defined; everything but the kernels is
// internalized, so O3 drops what no kernel reaches; LLVM's AMDGPU back end
// emits an object, which lld (in-process, as for the CPU's shared objects)
// links into a code object of version 5: the ELF shared object
// hipModuleLoadData and hsa_executable_load_agent_code_object take, each
// kernel `name` with its descriptor `name.kd` and its metadata in the
// NT_AMDGPU_METADATA note.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGET_ROCM_CODEOBJECT_H
#define KILN_COMPILER_TARGET_ROCM_CODEOBJECT_H

#include "compiler/target/rocm/HipTarget.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include <cstdint>
#include <vector>

namespace kiln {

/// The code object of `kernels` (LLVM and ROCDL dialects) for `target`,
/// linking device libraries from `bitcodeDir` where called.
mlir::FailureOr<std::vector<uint8_t>>
buildAmdgpuCodeObject(mlir::gpu::GPUModuleOp kernels, const HipTarget &target,
                      llvm::StringRef bitcodeDir);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_ROCM_CODEOBJECT_H
