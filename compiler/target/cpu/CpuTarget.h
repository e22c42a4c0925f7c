//===- CpuTarget.h - x86-64 shared objects from LLVM-dialect modules ------===//
#ifndef KILN_COMPILER_TARGET_CPU_CPUTARGET_H
#define KILN_COMPILER_TARGET_CPU_CPUTARGET_H

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace kiln {

/// The CPU micro-architecture levels `--cpu-target` accepts; "host" means
/// the machine running the compiler.
llvm::ArrayRef<llvm::StringRef> knownCpuTargets();

/// Resolves "host" to the name the runtime checks (e.g. "x86-64-v4").
std::string resolveCpuTarget(llvm::StringRef target);

/// Translates `module` (LLVM dialect) to LLVM IR, optimizes it for `cpu`,
/// and links the object into a position-independent shared object.
mlir::FailureOr<std::vector<uint8_t>>
buildCpuSharedObject(mlir::ModuleOp module, llvm::StringRef cpu);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_CPU_CPUTARGET_H
