//===- LinearAlgebra.cpp - ONNX Det ---------------------------------------===//
//
// Det of [..., n, n] for a static, small n: one generic over the batch whose
// body is Gaussian elimination with partial pivoting unrolled at import
// time (the pivot row is chosen and swapped with selects, so the code is the
// same for every input). The determinant is the product of the pivots, its
// sign flipped per swap; a zero pivot (a singular matrix) makes it 0 without
// dividing by zero.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// Largest n unrolled (about n^3 / 3 operations each).
constexpr int64_t kMaxDetOrder = 16;

/// The determinant of the n x n matrix `a` (row-major scalars of `type`),
/// eliminating in place; 1 for n = 0.
Value unrolledDet(OpBuilder &b, Location l, Type type,
                  llvm::SmallVector<llvm::SmallVector<Value>> &a) {
  int64_t n = a.size();
  Value zero = scalarConstant(b, l, type, 0);
  Value det = scalarConstant(b, l, type, 1);
  for (int64_t k = 0; k < n; ++k) {
    // The row (k or below) with the largest |a[i][k]|, the first of equals.
    Value best = math::AbsFOp::create(b, l, a[k][k]);
    Value chosen = arith::ConstantIndexOp::create(b, l, k);
    llvm::SmallVector<Value> pivotRow(a[k]);
    for (int64_t i = k + 1; i < n; ++i) {
      Value magnitude = math::AbsFOp::create(b, l, a[i][k]);
      Value better = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT,
                                           magnitude, best);
      best = arith::SelectOp::create(b, l, better, magnitude, best);
      chosen = arith::SelectOp::create(
          b, l, better, arith::ConstantIndexOp::create(b, l, i), chosen);
      for (int64_t j = k; j < n; ++j)
        pivotRow[j] =
            arith::SelectOp::create(b, l, better, a[i][j], pivotRow[j]);
    }
    // Row `chosen` receives row k's old values.
    for (int64_t i = k + 1; i < n; ++i) {
      Value isChosen =
          arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, chosen,
                                arith::ConstantIndexOp::create(b, l, i));
      for (int64_t j = k; j < n; ++j)
        a[i][j] = arith::SelectOp::create(b, l, isChosen, a[k][j], a[i][j]);
    }
    a[k] = pivotRow;
    Value swapped =
        arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, chosen,
                              arith::ConstantIndexOp::create(b, l, k));
    det = arith::SelectOp::create(b, l, swapped,
                                  arith::NegFOp::create(b, l, det), det);
    Value pivot = a[k][k];
    det = arith::MulFOp::create(b, l, det, pivot);
    Value singular =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, pivot, zero);
    for (int64_t i = k + 1; i < n; ++i) {
      Value factor = arith::SelectOp::create(
          b, l, singular, zero, arith::DivFOp::create(b, l, a[i][k], pivot));
      for (int64_t j = k + 1; j < n; ++j)
        a[i][j] = arith::SubFOp::create(
            b, l, a[i][j], arith::MulFOp::create(b, l, factor, a[k][j]));
    }
  }
  return det;
}

LogicalResult convertDet(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  if (rank < 2 || shape[rank - 1] != shape[rank - 2])
    return ctx.emitError() << "input " << shapeString(shape)
                           << " is not a batch of square matrices";
  int64_t n = shape.back();
  if (n > kMaxDetOrder)
    return ctx.unsupported(llvm::Twine(n) + "x" + llvm::Twine(n) +
                           " matrices (at most " + llvm::Twine(kMaxDetOrder) +
                           "x" + llvm::Twine(kMaxDetOrder) + ")");
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type element = ctx.inputType(0).getElementType();
  // Halfs eliminate in f32.
  Type compute =
      element.getIntOrFloatBitWidth() < 32 ? b.getF32Type() : element;
  llvm::ArrayRef<int64_t> batch = shape.drop_back(2);
  int64_t batchRank = batch.size();
  Value source = ctx.input(0);
  Value init = tensor::EmptyOp::create(b, loc, batch, element);
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{}, init,
          llvm::ArrayRef<AffineMap>{b.getMultiDimIdentityMap(batchRank)},
          llvm::SmallVector<utils::IteratorType>(batchRank,
                                                 utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange) {
            llvm::SmallVector<Value> position;
            for (int64_t d = 0; d < batchRank; ++d)
              position.push_back(linalg::IndexOp::create(nb, l, d));
            llvm::SmallVector<llvm::SmallVector<Value>> a(n);
            for (int64_t i = 0; i < n; ++i) {
              for (int64_t j = 0; j < n; ++j) {
                llvm::SmallVector<Value> at(position);
                at.push_back(arith::ConstantIndexOp::create(nb, l, i));
                at.push_back(arith::ConstantIndexOp::create(nb, l, j));
                Value v = tensor::ExtractOp::create(nb, l, source, at);
                if (compute != element)
                  v = arith::ExtFOp::create(nb, l, compute, v);
                a[i].push_back(v);
              }
            }
            Value det = unrolledDet(nb, l, compute, a);
            if (compute != element)
              det = arith::TruncFOp::create(nb, l, element, det);
            linalg::YieldOp::create(nb, l, det);
          })
          .getResult(0);
  ctx.setOutput(0, result, dtype);
  return success();
}

} // namespace

void registerLinearAlgebraOps(OpRegistry &registry) {
  registry.add("Det", convertDet);
}

} // namespace kiln::onnx_import
