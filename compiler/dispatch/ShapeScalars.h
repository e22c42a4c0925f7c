//===- ShapeScalars.h - Host-side arithmetic on dynamic extents -*- C++ -*-===//
//
// With dynamic dimensions (issue 19, item 1) a function computes index
// scalars outside any tensor op: `tensor.dim` of its tensors and integer
// arithmetic over those, which size the `tensor.empty` destinations of the
// dispatches. They stay in the host function, where the host plan turns
// them into the function's shape program (compiler/host/ShapeProgram.h),
// and reach a dispatch as `index` operands after its tensors, which travel
// as push constants.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DISPATCH_SHAPESCALARS_H
#define KILN_COMPILER_DISPATCH_SHAPESCALARS_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Operation.h"

namespace kiln {

/// Whether `op` computes an extent on the host: `tensor.dim`, an integer
/// arith op on `index` values only, a comparison or select of those, or an
/// element of an integer function argument read as an index (a shape given
/// at call time).
bool isShapeScalarOp(mlir::Operation *op);

/// Whether `extract`, in a function's body, reads an element on the host
/// only to become an extent: `tensor.extract %t[constant indices]` of a
/// tensor of static shape, each use an index_cast (a float's after its
/// truncation) or real arithmetic toward an extent. Of a function argument
/// it is a shape program leaf (an input element); of a value the function
/// computes, the function is split into phases (compiler/host/Phases.h) so
/// that a later phase reads it as an argument.
bool isHostRead(mlir::tensor::ExtractOp extract);

} // namespace kiln

#endif // KILN_COMPILER_DISPATCH_SHAPESCALARS_H
