//===- DeviceLibraryCalls.h - Math a GPU computes through its vendor library =//
//
// The vendors' lowerings (NVVM, ROCDL) convert arith to LLVM before their
// device-library patterns run, so an arith.remf reaches them as llvm.frem,
// which NVVM marks illegal. These patterns turn such ops into calls of the
// vendor library's functions (libdevice's `__nv_*`, ocml's `__ocml_*`)
// while they are still arith; the backend names the functions and links
// the library.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGET_GPU_DEVICELIBRARYCALLS_H
#define KILN_COMPILER_TARGET_GPU_DEVICELIBRARYCALLS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {

/// A vendor library's names for the functions the patterns call.
struct DeviceLibraryNames {
  /// C's fmodf and fmod.
  llvm::StringLiteral FmodF32, FmodF64;
};

/// libdevice (CUDA).
inline constexpr DeviceLibraryNames kLibdeviceNames = {"__nv_fmodf",
                                                       "__nv_fmod"};
/// ROCm's ocml.
inline constexpr DeviceLibraryNames kOcmlNames = {"__ocml_fmod_f32",
                                                  "__ocml_fmod_f64"};

/// arith.remf (C's fmod: exact, the sign of the dividend) as a call of
/// `names.FmodF32` (f32; f16 and bf16 through f32, where the remainder is
/// exact too) or `names.FmodF64` (f64); vectors one element at a time. The
/// callee is declared in the nearest symbol table (the gpu.module).
void populateDeviceLibraryCallPatterns(mlir::RewritePatternSet &patterns,
                                       const DeviceLibraryNames &names);

/// What every GPU backend does to kernels' math before its vendor lowering:
/// exp, tanh, log and friends as polynomials, which need no library; fmod,
/// which has no exact polynomial, as the library's (above); erf left to the
/// vendor lowering, which calls the library's (shorter than the polynomial).
mlir::LogicalResult lowerKernelMath(mlir::ModuleOp lowered,
                                    const DeviceLibraryNames &names);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_GPU_DEVICELIBRARYCALLS_H
