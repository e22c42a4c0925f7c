//===- ShapeScalars.cpp - Host-side arithmetic on dynamic extents ---------===//

#include "compiler/dispatch/ShapeScalars.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {

bool isShapeScalarOp(Operation *op) {
  if (isa<tensor::DimOp>(op))
    return true;
  // The arithmetic the host plan evaluates (ShapeProgram.h's opcodes).
  // Extents are never negative, so signed and unsigned forms agree.
  if (!isa<arith::ConstantIndexOp, arith::AddIOp, arith::SubIOp, arith::MulIOp,
           arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp,
           arith::CeilDivUIOp, arith::CeilDivSIOp, arith::MaxUIOp,
           arith::MaxSIOp, arith::MinUIOp, arith::MinSIOp>(op))
    return false;
  auto isIndex = [](Type t) { return t.isIndex(); };
  return llvm::all_of(op->getOperandTypes(), isIndex) &&
         llvm::all_of(op->getResultTypes(), isIndex);
}

} // namespace kiln
