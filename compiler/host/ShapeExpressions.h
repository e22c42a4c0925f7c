//===- ShapeExpressions.h - Host values' extents as shape nodes -*- C++ -*-===//
//
// The shape of every value of a host function with dynamic dimensions,
// expressed over the function's inputs as nodes of its shape program
// (ShapeProgramBuilder.h). An extent is followed to where it comes from: a
// static dimension is a constant, an input's dynamic one an InputDim node,
// a dispatch result's is reified inside the dispatch (a linalg op's result
// has its init's shape, a tensor.empty the sizes it was given, a pad its
// source's plus the padding, a collapse the product of its group, an
// expansion and a slice the sizes they were given), where the
// dispatch's arguments lead back to the call's operands; host-side index
// arithmetic (ShapeScalars.h) becomes arithmetic nodes, and an element of
// an integer input read on the host (a shape given at call time) becomes
// its positive and negative parts, over which signed arithmetic,
// comparisons and selects are sums and products of parts.
//
// The same walk gives the equalities a call needs of its inputs' shapes:
// every operand dimension a linalg op indexes by one loop alone must equal
// the others indexed by that loop (an elementwise op over two tensors of
// dynamic length reads both at each index), and a concat's operands must
// agree off its axis.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_HOST_SHAPEEXPRESSIONS_H
#define KILN_COMPILER_HOST_SHAPEEXPRESSIONS_H

#include "compiler/host/ShapeProgramBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

namespace kiln {

class ShapeExpressions {
public:
  ShapeExpressions(mlir::func::FuncOp host, ShapeProgramBuilder &program)
      : Host(host), Program(program) {}

  /// The node of dimension `dim` of host tensor `value`; an error at the
  /// op where the extent cannot be followed.
  mlir::FailureOr<uint32_t> dim(mlir::Value value, unsigned dim);
  /// The nodes of every dimension of host tensor `value`.
  mlir::FailureOr<llvm::SmallVector<uint32_t>> dims(mlir::Value value);
  /// The node of host `index` scalar `value`.
  mlir::FailureOr<uint32_t> scalar(mlir::Value value);
  /// The node (0 or 1) of host condition `value` (an i1 comparison of
  /// extents, or their and/or); an error at the op computing it otherwise.
  mlir::FailureOr<uint32_t> condition(mlir::Value value);
  /// The bytes of host tensor `value` (i1: one per element).
  mlir::FailureOr<uint32_t> byteSize(mlir::Value value);

  /// Appends the pairs of nodes the shapes of `call`'s operands must make
  /// equal (the extents one loop of a linalg op indexes; a concat's
  /// operands off its axis); an error when two static extents differ.
  mlir::LogicalResult
  appendLoopChecks(mlir::func::CallOp call,
                   std::vector<std::pair<uint32_t, uint32_t>> &out);

private:
  // `call` is the dispatch call whose body `value` is in, or null for the
  // host function.
  mlir::FailureOr<uint32_t> dimIn(mlir::func::CallOp call, mlir::Value value,
                                  unsigned dim);
  mlir::FailureOr<uint32_t> scalarIn(mlir::func::CallOp call,
                                     mlir::Value value);
  // A host index value that may be negative (it reads an input's elements:
  // a Reshape target or Slice starts given at call time) as the difference
  // Pos - Neg of two nodes, each >= 0 as every node is; scalarIn takes the
  // difference, which fails the call where it is negative.
  struct Signed {
    uint32_t Pos, Neg;
  };
  mlir::FailureOr<Signed> signedIn(mlir::func::CallOp call, mlir::Value value);
  // The real node of an f64 (or f32, where exact: a constant or an
  // element read) host value: arithmetic over extents and input elements
  // as the shape program's real nodes compute it.
  mlir::FailureOr<uint32_t> realIn(mlir::Value value);
  // The node (0 or 1) of an i1 host value: a comparison of index values.
  mlir::FailureOr<uint32_t> conditionIn(mlir::func::CallOp call,
                                        mlir::Value value);
  // `value` as a node when it cannot be negative: a call where it is fails.
  uint32_t nonNegative(Signed value);
  // 1 when a < b, else 0 (each >= 0).
  uint32_t less(uint32_t a, uint32_t b);
  // A constant or an `index` value of the body `call` calls (or the host).
  mlir::FailureOr<uint32_t> extentIn(mlir::func::CallOp call,
                                     mlir::OpFoldResult extent);
  // Where a dispatch body's argument comes from: the call's operand.
  mlir::Value hostOperand(mlir::func::CallOp call, mlir::Value value);

  mlir::func::FuncOp Host;
  ShapeProgramBuilder &Program;
  llvm::DenseMap<std::pair<mlir::Value, unsigned>, uint32_t> HostDims;
};

} // namespace kiln

#endif // KILN_COMPILER_HOST_SHAPEEXPRESSIONS_H
