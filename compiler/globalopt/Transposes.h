//===- Transposes.h - Creating, folding and moving transposes ---*- C++ -*-===//
//
// A transpose here is a linalg.transpose, or a linalg.generic that only
// permutes its one input (identity output map, a permutation input map,
// a body yielding the input). Its permutation `perm` says which input
// dimension each result dimension is: result dim j = input dim perm[j]
// (linalg.transpose's convention).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_GLOBALOPT_TRANSPOSES_H
#define KILN_COMPILER_GLOBALOPT_TRANSPOSES_H

#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace kiln {

/// The permutation of `op` if it is a transpose (identity permutations
/// excluded), else nothing.
std::optional<llvm::SmallVector<int64_t>>
transposePermutation(mlir::Operation *op);

/// `source` transposed by `perm`, as a linalg.generic.
mlir::Value createTranspose(mlir::OpBuilder &builder, mlir::Location loc,
                            mlir::Value source, llvm::ArrayRef<int64_t> perm);

/// Patterns that move transposes down the graph, toward others they cancel
/// with, and fold them away where they can:
///  - an elementwise generic reading a transpose runs in the transpose's
///    input layout instead, and the transpose moves to its result;
///  - a transpose of a transpose is one transpose, or none;
///  - a tensor.pad of a transpose is a transpose of the padded input;
///  - any other generic reading a transpose reads its input through a
///    permuted map;
///  - a transpose of a broadcast (a generic none of whose inputs has the
///    result's rank, or a linalg.fill) is that broadcast in the transposed
///    layout;
///  - a transpose of a constant, or of a reshape of one, is a transposed
///    constant (dense elements or dense_resource blobs, up to
///    `maxConstantBytes`);
///  - an image layout's transpose (batch first, the channels moved behind
///    the rest: not attention's) sinks through a concatenation of such
///    transposes, a slice, an expand_shape and a collapse_shape (whose
///    groups a transpose within them first brings together: a channel
///    shuffle), so channel splits, joins and shuffles run in the
///    convolutions' layout.
void populateTransposePropagationPatterns(mlir::RewritePatternSet &patterns,
                                          int64_t maxConstantBytes = 1 << 30);

} // namespace kiln

#endif // KILN_COMPILER_GLOBALOPT_TRANSPOSES_H
