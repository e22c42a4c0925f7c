//===- LoweringConfig.h - How a dispatch became a GPU kernel --------------===//
//
// Each GPU kernel builder records what it chose on the dispatch as the
// dictionary attribute `kiln.lowering_config`: the kernel kind, then the
// parameters of that kind. Keys used across kinds:
//
//   kernel          "mma_contraction", "simt_contraction", "window",
//                   "reduction", "tiled" or "one_thread"
//   workgroup_tile  the output tile of a workgroup ([BM, BN, BK] for GEMMs,
//                   one size per output dimension otherwise)
//   thread_tile     the outputs of one thread
//   warp_tile       the outputs of one subgroup (matrix-instruction kernels)
//   stages          shared-memory buffers in flight over K (0: none)
//   instruction     the matrix instruction (GpuMatrixInstruction::str())
//   vector_width    elements a thread moves per access ("tiled")
//
// The attribute travels to the outlined kernel, so it is what lit tests
// check and what a reader of the IR sees next to the code.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_LOWERINGCONFIG_H
#define KILN_COMPILER_CODEGEN_GPU_LOWERINGCONFIG_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"

namespace kiln {

inline constexpr llvm::StringLiteral kLoweringConfigAttr =
    "kiln.lowering_config";

/// Records `{kernel = <kernel>, <entries>...}` on `op`.
void setLoweringConfig(mlir::Operation *op, llvm::StringRef kernel,
                       llvm::ArrayRef<mlir::NamedAttribute> entries = {});

/// The recorded configuration, or null.
mlir::DictionaryAttr getLoweringConfig(mlir::Operation *op);

/// Integer entry `key` of `op`'s configuration, or `fallback` when there
/// is no such entry.
int64_t getLoweringConfigInt(mlir::Operation *op, llvm::StringRef key,
                             int64_t fallback);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_LOWERINGCONFIG_H
