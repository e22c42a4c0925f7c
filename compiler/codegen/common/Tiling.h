//===- Tiling.h - Tiling helpers every code generator uses ----------------===//
#ifndef KILN_COMPILER_CODEGEN_COMMON_TILING_H
#define KILN_COMPILER_CODEGEN_COMMON_TILING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"

namespace kiln {

/// Canonicalization of every loaded op and dialect, as the canonicalize pass
/// does, for use inside a pass.
mlir::FrozenRewritePatternSet buildCleanupPatterns(mlir::MLIRContext *ctx);

/// The patterns resolveDims applies (tensor.dim of producer results).
mlir::FrozenRewritePatternSet buildDimPatterns(mlir::MLIRContext *ctx);

/// Erases side-effect-free ops whose results are unused, innermost first.
void eraseDeadOps(mlir::func::FuncOp func);

/// Tiling reads dynamic loop bounds through tensor.dim of producer results;
/// resolving those dims to the producers' inits keeps a producer that was
/// fused into its consumer's loops from staying alive and running a second
/// time, untiled. Only the dims are rewritten: no folding, no region
/// simplification, so tiled ops tracked by pointer stay put.
mlir::LogicalResult resolveDims(mlir::func::FuncOp func,
                                const mlir::FrozenRewritePatternSet &dims);

/// Tiles `op` with `sizes` (0 leaves a loop untiled) into loops of
/// `loopType`, fusing its producers when `fuse` is set, and returns the tiled
/// op (`op` itself when every size is 0). `mapping` (one attribute per tiled
/// loop) is set on an scf.forall. With `yieldStoredProducers`, a fused
/// producer whose result is also stored (materialized in a binding, or
/// inserted into an enclosing scf.forall's result) has its tiles yielded by
/// the loops too, and the store takes them: the caller guarantees those
/// tiles do not overlap.
mlir::FailureOr<mlir::Operation *>
tileOp(mlir::RewriterBase &rewriter, mlir::TilingInterface op,
       llvm::ArrayRef<int64_t> sizes,
       mlir::scf::SCFTilingOptions::LoopType loopType, bool fuse,
       llvm::ArrayRef<mlir::Attribute> mapping = {},
       bool yieldStoredProducers = false);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_COMMON_TILING_H
