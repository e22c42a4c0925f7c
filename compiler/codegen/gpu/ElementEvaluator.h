//===- ElementEvaluator.h - One element of a dispatch's tensor ------------===//
//
// Kernels written whole compute a dispatch's tensors one element at a time,
// straight from the bindings: an element of a tensor read from a binding is a
// load, and an element of an elementwise linalg op's result (generic, named
// elementwise ops, fill, copy, broadcast, transpose) is its payload applied
// to its operands' elements, loaded or computed the same way. One tensor may
// be *given* instead (a reduction's result, which the kernel computes
// itself): it must be read at exactly the indices asked for (through identity
// maps all the way), so one value the caller passes stands for it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_ELEMENTEVALUATOR_H
#define KILN_COMPILER_CODEGEN_GPU_ELEMENTEVALUATOR_H

#include "compiler/dispatch/RowPrograms.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

namespace kiln {

class ElementEvaluator {
public:
  /// `given` (may be null) is the tensor whose element evaluate() takes from
  /// its caller.
  explicit ElementEvaluator(mlir::Value given = nullptr) : Given(given) {}

  /// Whether every element of `tensor` can be computed this way.
  bool canEvaluate(mlir::Value tensor) const {
    return canEvaluate(tensor, /*sameIndices=*/true);
  }

  /// Emits the computation of `tensor[indices]` (canEvaluate must hold);
  /// `givenElement` is the given tensor's element at `indices`.
  mlir::Value evaluate(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Value tensor, mlir::ValueRange indices,
                       mlir::Value givenElement = nullptr) const;

private:
  bool canEvaluate(mlir::Value tensor, bool sameIndices) const;

  mlir::Value Given;
};

/// The indices `map` (whose results are loops or constants) reads, given
/// the value of every loop.
llvm::SmallVector<mlir::Value> indicesOf(mlir::OpBuilder &builder,
                                         mlir::Location loc,
                                         mlir::AffineMap map,
                                         mlir::ValueRange loops);

/// Clones `op`'s payload at `builder` with its block arguments replaced by
/// `args` (null for an argument the payload does not read) and linalg.index
/// by `loops`; returns the value it yields first.
mlir::Value clonePayload(mlir::OpBuilder &builder, mlir::linalg::LinalgOp op,
                         mlir::ValueRange args, mlir::ValueRange loops);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_ELEMENTEVALUATOR_H
