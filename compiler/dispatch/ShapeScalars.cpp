//===- ShapeScalars.cpp - Host-side arithmetic on dynamic extents ---------===//

#include "compiler/dispatch/ShapeScalars.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace kiln {

namespace {

bool feedsRealExtent(Value value);

// An f64 feeding real extents, or an f32 (an integer made a float, f32
// arithmetic rounded) only widened to one.
bool feedsReal(Value value) {
  if (value.getType().isF64())
    return feedsRealExtent(value);
  return value.getType().isF32() && !value.use_empty() &&
         llvm::all_of(value.getUsers(), [](Operation *user) {
           return isa<arith::ExtFOp>(user) &&
                  feedsRealExtent(user->getResult(0));
         });
}

// An integer computed from an extent only to enter real arithmetic:
// `arith.sitofp` of it.
bool feedsRealOnly(Value value) {
  return !value.use_empty() &&
         llvm::all_of(value.getUsers(), [](Operation *user) {
           return isa<arith::SIToFPOp>(user) && feedsReal(user->getResult(0));
         });
}

// An f64 scalar the host computes an extent from (Resize's floor(dim *
// scale), Range's ceil((limit - start) / delta): ONNX sizes computed in
// floating point; the shape program's real nodes): every use more such
// arithmetic, or its truncation to an index.
bool feedsRealExtent(Value value) {
  auto toIndex = [](Operation *user) {
    auto cast = dyn_cast<arith::IndexCastOp>(user);
    return cast && cast.getType().isIndex();
  };
  return value.getType().isF64() && !value.use_empty() &&
         llvm::all_of(value.getUsers(), [&](Operation *user) {
           if (isa<arith::FPToSIOp>(user))
             return !user->use_empty() &&
                    llvm::all_of(user->getUsers(), toIndex);
           if (auto round = dyn_cast<arith::TruncFOp>(user))
             return round.getType().isF32() && feedsReal(round.getResult());
           return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp,
                      arith::DivFOp, arith::MaximumFOp, arith::MinimumFOp,
                      math::FloorOp, math::CeilOp>(user) &&
                  feedsRealExtent(user->getResult(0));
         });
}

// An element of a host function's argument read on the host, only to
// become an index (the ONNX importer's shape given at call time).
bool isInputElementRead(tensor::ExtractOp extract) {
  auto arg = dyn_cast<BlockArgument>(extract.getTensor());
  return arg && isa<func::FuncOp>(arg.getOwner()->getParentOp()) &&
         arg.getOwner()->isEntryBlock() && isHostRead(extract);
}

} // namespace

bool isHostRead(tensor::ExtractOp extract) {
  Type element = extract.getType();
  if (extract->getParentOp() == nullptr ||
      !isa<func::FuncOp>(extract->getParentOp()) ||
      !(element.isSignlessInteger() || element.isF32() || element.isF64()) ||
      !cast<RankedTensorType>(extract.getTensor().getType()).hasStaticShape())
    return false;
  for (Value index : extract.getIndices())
    if (!getConstantIntValue(index))
      return false;
  auto toIndex = [&](Operation *user) {
    auto cast = dyn_cast<arith::IndexCastOp>(user);
    // A bool counts as 0 or 1 (Compress's and NonZero's conditions).
    auto unsignedCast = dyn_cast<arith::IndexCastUIOp>(user);
    return (cast && cast.getType().isIndex()) ||
           (unsignedCast && unsignedCast.getType().isIndex() &&
            element.isInteger(1));
  };
  // A float truncated to an integer first (OneHot's depth).
  auto truncated = [&](Operation *user) {
    return isa<arith::FPToSIOp>(user) && !user->use_empty() &&
           llvm::all_of(user->getUsers(), toIndex);
  };
  // A float made f64 (exactly) for real arithmetic.
  auto widened = [&](Operation *user) {
    return isa<arith::ExtFOp>(user) && feedsRealExtent(user->getResult(0));
  };
  if (feedsRealExtent(extract.getResult()))
    return true;
  return !extract->use_empty() &&
         llvm::all_of(extract->getUsers(), [&](Operation *user) {
           return element.isSignlessInteger()
                      ? toIndex(user) || (isa<arith::SIToFPOp>(user) &&
                                          feedsReal(user->getResult(0)))
                      : truncated(user) || widened(user);
         });
}

bool isShapeScalarOp(Operation *op) {
  if (isa<tensor::DimOp>(op))
    return true;
  if (auto extract = dyn_cast<tensor::ExtractOp>(op))
    return isInputElementRead(extract);
  if (auto cast = dyn_cast<arith::IndexCastOp>(op)) {
    // An extent made an integer for real arithmetic.
    if (cast.getIn().getType().isIndex())
      return feedsRealOnly(cast.getResult());
    Value in = cast.getIn();
    if (auto truncate = in.getDefiningOp<arith::FPToSIOp>())
      in = truncate.getIn();
    auto extract = in.getDefiningOp<tensor::ExtractOp>();
    if (cast.getType().isIndex() && in != cast.getIn() && !extract)
      return isShapeScalarOp(in.getDefiningOp());
    return cast.getType().isIndex() && extract && isInputElementRead(extract);
  }
  if (auto cast = dyn_cast<arith::IndexCastUIOp>(op)) {
    auto extract = cast.getIn().getDefiningOp<tensor::ExtractOp>();
    return cast.getType().isIndex() && cast.getIn().getType().isInteger(1) &&
           extract && isInputElementRead(extract);
  }
  if (auto truncate = dyn_cast<arith::FPToSIOp>(op)) {
    auto extract = truncate.getIn().getDefiningOp<tensor::ExtractOp>();
    return (extract && isInputElementRead(extract)) ||
           (truncate.getIn().getType().isF64() &&
            feedsRealExtent(truncate.getIn()) &&
            isShapeScalarOp(truncate.getIn().getDefiningOp()));
  }
  // Real arithmetic toward an extent, from extents and input elements.
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
          arith::MaximumFOp, arith::MinimumFOp, math::FloorOp, math::CeilOp,
          arith::SIToFPOp, arith::ExtFOp>(op) ||
      (isa<arith::ConstantOp>(op) && op->getResult(0).getType().isF64()))
    return feedsReal(op->getResult(0));
  // An f64 rounded to f32 and back (f32 arithmetic mirrored in f64).
  if (auto round = dyn_cast<arith::TruncFOp>(op))
    return round.getIn().getType().isF64() && round.getType().isF32() &&
           feedsReal(round.getResult());
  // Comparisons and selects of extents (a Reshape's 0 and -1 given at call
  // time), and the conditions they make.
  auto isIndex = [](Type t) { return t.isIndex(); };
  auto isBool = [](Type t) { return t.isInteger(1); };
  if (isa<arith::CmpIOp>(op))
    return llvm::all_of(op->getOperandTypes(), isIndex);
  // A condition on them the host checks per call (a shape check).
  if (isa<cf::AssertOp>(op))
    return true;
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return isBool(select.getCondition().getType()) &&
           select.getType().isIndex();
  if (isa<arith::AndIOp, arith::OrIOp>(op) ||
      (isa<arith::ConstantOp>(op) && isBool(op->getResult(0).getType())))
    return llvm::all_of(op->getResultTypes(), isBool) &&
           llvm::all_of(op->getOperandTypes(), isBool) &&
           llvm::all_of(op->getUsers(), [](Operation *user) {
             return isa<arith::SelectOp, arith::AndIOp, arith::OrIOp,
                        cf::AssertOp>(user);
           });
  // The arithmetic the host plan evaluates (ShapeProgram.h's opcodes; an
  // unsigned form takes only values >= 0 there).
  if (!isa<arith::ConstantIndexOp, arith::AddIOp, arith::SubIOp, arith::MulIOp,
           arith::DivUIOp, arith::DivSIOp, arith::FloorDivSIOp,
           arith::CeilDivUIOp, arith::CeilDivSIOp, arith::MaxUIOp,
           arith::MaxSIOp, arith::MinUIOp, arith::MinSIOp>(op))
    return false;
  return llvm::all_of(op->getOperandTypes(), isIndex) &&
         llvm::all_of(op->getResultTypes(), isIndex);
}

} // namespace kiln
