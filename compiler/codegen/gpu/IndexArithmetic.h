//===- IndexArithmetic.h - Index math for kernels written whole -----------===//
//
// The kernel builders compute thread, lane, tile and element positions with
// the same few index operations on constants; a builder derives from this
// for them, and for the OpBuilder and location it emits at.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_INDEXARITHMETIC_H
#define KILN_COMPILER_CODEGEN_GPU_INDEXARITHMETIC_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace kiln {

class IndexArithmetic {
protected:
  IndexArithmetic(mlir::MLIRContext *context, mlir::Location loc)
      : B(context), Loc(loc) {}

  mlir::Value idx(int64_t v) {
    return mlir::arith::ConstantIndexOp::create(B, Loc, v);
  }
  mlir::Value add(mlir::Value a, mlir::Value b) {
    return mlir::arith::AddIOp::create(B, Loc, a, b);
  }
  mlir::Value add(mlir::Value a, int64_t b) { return add(a, idx(b)); }
  mlir::Value mul(mlir::Value a, int64_t b) {
    return mlir::arith::MulIOp::create(B, Loc, a, idx(b));
  }
  // Unsigned: positions are never negative.
  mlir::Value div(mlir::Value a, int64_t b) {
    return mlir::arith::DivUIOp::create(B, Loc, a, idx(b));
  }
  mlir::Value rem(mlir::Value a, int64_t b) {
    return mlir::arith::RemUIOp::create(B, Loc, a, idx(b));
  }

  // a < bound, unsigned.
  mlir::Value lessThan(mlir::Value a, int64_t bound) {
    return mlir::arith::CmpIOp::create(B, Loc, mlir::arith::CmpIPredicate::ult,
                                       a, idx(bound));
  }
  // Both conditions, where a null one always holds.
  mlir::Value both(mlir::Value a, mlir::Value b) {
    if (!a)
      return b;
    if (!b)
      return a;
    return mlir::arith::AndIOp::create(B, Loc, a, b);
  }

  mlir::OpBuilder B;
  mlir::Location Loc;
};

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_INDEXARITHMETIC_H
