//===- DeviceLibraries.h - ocml and ockl, linked where kernels call them --===//
//
// ROCm's device libraries are LLVM bitcode (ocml: math, ockl: kernel
// helpers). A kernel that calls none of their functions links neither; one
// that does gets only the functions it reaches, since everything but the
// kernels is internalized and unreferenced code dropped before code
// generation.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGET_ROCM_DEVICELIBRARIES_H
#define KILN_COMPILER_TARGET_ROCM_DEVICELIBRARIES_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/IR/Module.h"

namespace kiln {

/// Links what `module` calls of ocml.bc (`__ocml_*`) and then ockl.bc
/// (`__ockl_*`) from `bitcodeDir` into it. A library that is needed and
/// cannot be read is an error at `loc` naming the file and --hip-bc-dir.
mlir::LogicalResult linkDeviceLibraries(mlir::Location loc,
                                        llvm::Module &module,
                                        llvm::StringRef bitcodeDir);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_ROCM_DEVICELIBRARIES_H
