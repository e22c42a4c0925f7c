//===- RowEvaluator.h - Elements of a row program from the bindings -------===//
//
// Kernels that run a row program (RowPrograms.h) compute each element they
// need again from the bindings instead of storing the tensors between the
// reductions and the sink: an element of a reshape is its source's element,
// one of an elementwise op its payload applied to its operands' elements,
// one of a fill its scalar and one of a binding a load, and one of an
// inline reduction its accumulator's element combined with each of its
// elements in turn. The kernel gives the
// value of each dim (the row's position, the reduced element) and the
// elements it computes itself: each reduction's row value and, for an
// attention kernel, the scores it holds in registers.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_ROWEVALUATOR_H
#define KILN_COMPILER_CODEGEN_GPU_ROWEVALUATOR_H

#include "compiler/dispatch/RowPrograms.h"

#include "mlir/IR/Builders.h"

namespace kiln {

class RowEvaluator {
public:
  RowEvaluator(mlir::OpBuilder &builder, mlir::Location loc,
               const RowProgram &program)
      : Dims(program.numDims()), B(builder), Loc(loc), P(program) {}

  /// The current value of each dim (RowPrograms.h); null while unknown.
  llvm::SmallVector<mlir::Value> Dims;
  /// Tensors whose element the kernel provides: wherever the program reads
  /// one, the value given here is its element (the analysis made sure it is
  /// read at the element the kernel means).
  llvm::DenseMap<mlir::Value, mlir::Value> Given;

  /// The value of an index expression at the dims' current values.
  mlir::Value materialize(mlir::AffineExpr e);
  llvm::SmallVector<mlir::Value> materialize(llvm::ArrayRef<mlir::AffineExpr>);
  /// `tensor` at `indices`: given, computed or loaded.
  mlir::Value element(mlir::Value tensor,
                      llvm::ArrayRef<mlir::AffineExpr> indices);
  /// `op`'s payload at loops `loops`, its init argument `out` (null when it
  /// does not read it).
  mlir::Value payload(mlir::linalg::LinalgOp op,
                      llvm::ArrayRef<mlir::AffineExpr> loops, mlir::Value out);

private:
  mlir::OpBuilder &B;
  mlir::Location Loc;
  const RowProgram &P;
};

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_ROWEVALUATOR_H
