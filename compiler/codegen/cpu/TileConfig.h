//===- TileConfig.h - CPU tile sizes for one dispatch ---------------------===//
#ifndef KILN_COMPILER_CODEGEN_CPU_TILECONFIG_H
#define KILN_COMPILER_CODEGEN_CPU_TILECONFIG_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace kiln {

/// Tile sizes over the loops of the op that anchors a dispatch (its
/// contraction, convolution or reduction, else its root). 0 leaves a loop
/// untiled. A size that does not divide its loop range leaves a partial last
/// tile, which TileAndVectorize peels off the loop.
struct CpuTileConfig {
  /// Parallel loops split across workgroups.
  llvm::SmallVector<int64_t> Workgroup;
  /// Parallel loops inside a workgroup, one vector tile at a time.
  llvm::SmallVector<int64_t> Vector;
  /// Reduction loops of the anchor.
  llvm::SmallVector<int64_t> Reduction;
};

/// Chooses tile sizes for `anchor`; returns std::nullopt if its loop ranges
/// are not static.
std::optional<CpuTileConfig> chooseCpuTileConfig(mlir::linalg::LinalgOp anchor);

/// Largest divisor of `n` that is at most `cap` (at least 1).
int64_t largestDivisorAtMost(int64_t n, int64_t cap);

/// A tile size for a loop of `n` iterations, at most `cap`: all of `n` when it
/// fits, else a divisor of `n` of at least cap/2, else `cap` itself (leaving a
/// partial tile rather than tiles too narrow to use the vector units).
int64_t tileSizeAtMost(int64_t n, int64_t cap);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_CPU_TILECONFIG_H
