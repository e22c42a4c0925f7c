//===- ScalarMath.h - Float arithmetic in a generic's body ------*- C++ -*-===//
//
// Converters that compute several steps per element (coordinates, optimizer
// updates) build long chains of arith and math ops; these wrap the builder,
// the location and the float type so that a formula reads as one line.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_ONNX_OPS_SCALARMATH_H
#define KILN_COMPILER_ONNX_OPS_SCALARMATH_H

#include "compiler/onnx/Builders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

namespace kiln::onnx_import {

/// Scalar ops on values of the float type `Element`.
struct ScalarMath {
  mlir::OpBuilder &B;
  mlir::Location L;
  mlir::Type Element;

  mlir::Value cst(double v) { return scalarConstant(B, L, Element, v); }
  mlir::Value add(mlir::Value a, mlir::Value b) {
    return mlir::arith::AddFOp::create(B, L, a, b);
  }
  mlir::Value sub(mlir::Value a, mlir::Value b) {
    return mlir::arith::SubFOp::create(B, L, a, b);
  }
  mlir::Value mul(mlir::Value a, mlir::Value b) {
    return mlir::arith::MulFOp::create(B, L, a, b);
  }
  mlir::Value div(mlir::Value a, mlir::Value b) {
    return mlir::arith::DivFOp::create(B, L, a, b);
  }
  /// NaN-propagating, as numpy's maximum and minimum.
  mlir::Value max(mlir::Value a, mlir::Value b) {
    return mlir::arith::MaximumFOp::create(B, L, a, b);
  }
  mlir::Value sqrt(mlir::Value a) {
    return mlir::math::SqrtOp::create(B, L, a);
  }
  mlir::Value floor(mlir::Value a) {
    return mlir::math::FloorOp::create(B, L, a);
  }
  mlir::Value ceil(mlir::Value a) {
    return mlir::math::CeilOp::create(B, L, a);
  }
  mlir::Value cmp(mlir::arith::CmpFPredicate predicate, mlir::Value a,
                  mlir::Value b) {
    return mlir::arith::CmpFOp::create(B, L, predicate, a, b);
  }
  mlir::Value select(mlir::Value condition, mlir::Value a, mlir::Value b) {
    return mlir::arith::SelectOp::create(B, L, condition, a, b);
  }
};

} // namespace kiln::onnx_import

#endif // KILN_COMPILER_ONNX_OPS_SCALARMATH_H
