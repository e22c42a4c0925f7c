//===- ControlVariables.h - The __oclc_* constants ocml and ockl read -----===//
//
// ocml and ockl branch on `__oclc_*` constants (the chip's ISA version, its
// wavefront size, the math flags, the code-object ABI) that ROCm's compiler
// defines by linking one oclc_*.bc file each. Kiln defines them itself from
// the chip table and LLVM's processor list: ROCm 5.2's bitcode (Debian's)
// has no oclc_isa_version file for gfx950 or gfx12, and defining only what
// the linked code reads needs no files at all.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGET_ROCM_CONTROLVARIABLES_H
#define KILN_COMPILER_TARGET_ROCM_CONTROLVARIABLES_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/IR/Module.h"

namespace kiln {

/// The code-object version Kiln writes (amdhsa_code_object_version), which
/// __oclc_ABI_version reports to ockl.
inline constexpr int kAmdgpuCodeObjectVersion = 500;

/// Defines every `__oclc_*` variable `module` declares for `chip` (an LLVM
/// AMDGPU processor) running `wavefrontSize`-wide wavefronts; a control
/// variable Kiln does not know is an error at `loc`.
mlir::LogicalResult defineControlVariables(mlir::Location loc,
                                           llvm::Module &module,
                                           llvm::StringRef chip,
                                           int64_t wavefrontSize);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_ROCM_CONTROLVARIABLES_H
