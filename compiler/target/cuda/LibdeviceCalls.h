//===- LibdeviceCalls.h - Ops the NVVM path computes through libdevice ----===//
//
// Upstream's NVVM pipeline converts arith to LLVM before its libdevice
// patterns run, so an arith.remf reaches them as llvm.frem, which NVVM marks
// illegal. These patterns turn such ops into calls of libdevice's functions
// (linked from the toolkit's libdevice.10.bc) while they are still arith.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGET_CUDA_LIBDEVICECALLS_H
#define KILN_COMPILER_TARGET_CUDA_LIBDEVICECALLS_H

#include "mlir/IR/PatternMatch.h"

namespace kiln {

/// arith.remf (C's fmod: exact, the sign of the dividend) as a call of
/// `__nv_fmodf` (f32; f16 and bf16 through f32, where the remainder is
/// exact too) or `__nv_fmod` (f64); vectors one element at a time. The
/// callee is declared in the nearest symbol table (the gpu.module).
void populateLibdeviceCallPatterns(mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_CUDA_LIBDEVICECALLS_H
