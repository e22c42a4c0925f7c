//===- RowVariants.h - GEMM kernels chosen per call by the batch -*- C++
//-*-===//
//
// Issue 19: a GEMM kernel's tiles are chosen at compile time for the rows
// it will see. Over a batch known per call only, one choice (tiles for 32
// images) leaves most of the chip idle at batch 1, so the dispatch is also
// compiled for a few bounded batches, and each call runs the kernel of the
// first bucket its batch fits (module.fbs EntryPointChoice).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DISPATCH_ROWVARIANTS_H
#define KILN_COMPILER_DISPATCH_ROWVARIANTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// On a dispatch clone: the outer extent its contraction's tiles assume
/// (i64), in place of the default (GPU codegen's ContractionMatch).
inline constexpr llvm::StringLiteral kAssumedOuterRowsAttr =
    "kiln.assumed_outer_rows";
/// On a call: `{callees = [@a, ...], at_most = array<i64: ...>}`, each
/// callee run instead where the outermost extent of the call's result is
/// at most its bound, the first that fits.
inline constexpr llvm::StringLiteral kRowChoicesAttr = "kiln.row_choices";

/// Calls whose outer extent is at most AtMost run a kernel whose tiles
/// assume Assumed (about the middle of the bucket, geometrically: tiles
/// for the bucket's largest batch would leave its smallest few
/// workgroups); larger ones run the dispatch's own kernel.
struct RowBucket {
  int64_t AtMost;
  int64_t Assumed;
};
llvm::ArrayRef<RowBucket> rowBuckets();

/// Whether the outermost dimension of `dispatch`'s one result is its only
/// dynamic one and the outermost loop of its contraction's (or
/// convolution's) rows, each index of it at least `minRowsPerOuter` rows.
bool hasDynamicOuterRows(mlir::func::FuncOp dispatch, int64_t minRowsPerOuter);

/// Clones each dispatch that hasDynamicOuterRows accepts once per bucket and
/// records the choices on its calls in functions with dynamic shapes.
void addRowVariants(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_COMPILER_DISPATCH_ROWVARIANTS_H
