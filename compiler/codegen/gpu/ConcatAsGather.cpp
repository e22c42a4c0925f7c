//===- ConcatAsGather.cpp - tensor.concat as an elementwise gather --------===//
//
// A tensor.concat bufferizes to a temporary of its whole result with each
// operand inserted into a slice of it; a kernel cannot allocate one (small
// ones were promoted to registers, larger ones failed to compile), and the
// op has no loops to tile, so it ran as a single thread. Written as a
// linalg.generic over the result that loads each element from the operand
// whose slice holds it, a concat is an elementwise op: tiled to one element
// per thread like any other, with its elementwise consumers fused.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/gpu/GpuCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {

FailureOr<linalg::GenericOp> rewriteConcatAsGather(RewriterBase &rewriter,
                                                   tensor::ConcatOp concat) {
  RankedTensorType type = concat.getResultType();
  if (!type.hasStaticShape() ||
      llvm::any_of(concat.getInputs(), [](Value input) {
        return !cast<RankedTensorType>(input.getType()).hasStaticShape();
      }))
    return rewriter.notifyMatchFailure(concat, "dynamic shape");
  Location loc = concat.getLoc();
  int64_t rank = type.getRank();
  int64_t dim = static_cast<int64_t>(concat.getDim());
  // Where each operand starts along `dim`.
  SmallVector<int64_t> starts;
  int64_t start = 0;
  for (Value input : concat.getInputs()) {
    starts.push_back(start);
    start += cast<RankedTensorType>(input.getType()).getDimSize(dim);
  }

  rewriter.setInsertionPoint(concat);
  Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                       type.getElementType());
  SmallVector<AffineMap> maps = {
      rewriter.getMultiDimIdentityMap(static_cast<unsigned>(rank))};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto build = [&](OpBuilder &b, Location loc, ValueRange) {
    SmallVector<Value> index;
    for (int64_t d = 0; d < rank; ++d)
      index.push_back(linalg::IndexOp::create(b, loc, d));
    // Operand i's element, its index shifted back by the operand's start.
    auto load = [&](OpBuilder &b, Location loc, size_t i) {
      SmallVector<Value> at = index;
      if (starts[i] != 0)
        at[dim] = arith::SubIOp::create(
            b, loc, index[dim],
            arith::ConstantIndexOp::create(b, loc, starts[i]));
      return tensor::ExtractOp::create(b, loc, concat.getInputs()[i], at)
          .getResult();
    };
    // The last operand takes whatever the others do not; each earlier one
    // is chosen by an scf.if, so no load goes outside its operand.
    std::function<Value(OpBuilder &, Location, size_t)> pick =
        [&](OpBuilder &b, Location loc, size_t i) -> Value {
      if (i + 1 == starts.size())
        return load(b, loc, i);
      Value before = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, index[dim],
          arith::ConstantIndexOp::create(b, loc, starts[i + 1]));
      return scf::IfOp::create(
                 b, loc, before,
                 [&](OpBuilder &b, Location loc) {
                   scf::YieldOp::create(b, loc, load(b, loc, i));
                 },
                 [&](OpBuilder &b, Location loc) {
                   scf::YieldOp::create(b, loc, pick(b, loc, i + 1));
                 })
          .getResult(0);
    };
    linalg::YieldOp::create(b, loc, pick(b, loc, 0));
  };
  auto generic =
      linalg::GenericOp::create(rewriter, loc, TypeRange{type}, ValueRange{},
                                ValueRange{init}, maps, iterators, build);
  rewriter.replaceOp(concat, generic.getResults());
  return generic;
}

LogicalResult rewriteConcatsAsGathers(func::FuncOp func) {
  SmallVector<tensor::ConcatOp> concats;
  func.walk([&](tensor::ConcatOp concat) { concats.push_back(concat); });
  IRRewriter rewriter(func.getContext());
  for (tensor::ConcatOp concat : concats)
    if (failed(rewriteConcatAsGather(rewriter, concat)))
      return concat.emitError("the cuda target needs a static tensor.concat");
  return success();
}

} // namespace kiln
