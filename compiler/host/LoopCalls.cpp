//===- LoopCalls.cpp - Loops the runtime repeats, before the phase split --===//

#include "compiler/host/LoopCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;

namespace kiln {

std::optional<LoopCall> loopCallOf(Operation *op) {
  auto call = dyn_cast_or_null<func::CallOp>(op);
  if (!call)
    return std::nullopt;
  auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
      call, call.getCalleeAttr());
  auto body = callee
                  ? callee->getAttrOfType<FlatSymbolRefAttr>(kLoopBodyAttrName)
                  : FlatSymbolRefAttr();
  auto carried = callee
                     ? callee->getAttrOfType<IntegerAttr>(kLoopCarriedAttrName)
                     : IntegerAttr();
  if (!body || !carried)
    return std::nullopt;
  auto function =
      SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, body);
  if (!function)
    return std::nullopt;
  LoopCall loop{function, carried.getInt(), {}};
  if (auto outputs =
          callee->getAttrOfType<DenseI64ArrayAttr>(kLoopOutputsAttrName))
    loop.Outputs.assign(outputs.asArrayRef().begin(),
                        outputs.asArrayRef().end());
  return loop;
}

func::CallOp buildLoopCall(OpBuilder &b, Location loc, func::FuncOp body,
                           StringRef owner, int64_t carried,
                           ArrayRef<Value> values, ValueRange operands,
                           TypeRange resultTypes) {
  // Each value the body computes returned once; an argument or a value
  // returned already is found through kiln.loop_outputs.
  SmallVector<Value> returned;
  SmallVector<int64_t> where;
  for (Value value : values) {
    if (auto arg = dyn_cast<BlockArgument>(value)) {
      where.push_back(-1 - static_cast<int64_t>(arg.getArgNumber()));
      continue;
    }
    auto at = llvm::find(returned, value);
    where.push_back(at - returned.begin());
    if (at == returned.end())
      returned.push_back(value);
  }
  Block &entry = body.getBody().front();
  OpBuilder atEnd = OpBuilder::atBlockEnd(&entry);
  func::ReturnOp::create(atEnd, loc, returned);
  body.setFunctionType(b.getFunctionType(entry.getArgumentTypes(),
                                         ValueRange(returned).getTypes()));
  body->setAttr(kPhaseOfAttrName, b.getStringAttr(owner));
  auto module = body->getParentOfType<ModuleOp>();
  OpBuilder atModuleEnd = OpBuilder::atBlockEnd(module.getBody());
  auto decl =
      func::FuncOp::create(atModuleEnd, loc, (body.getSymName() + "_run").str(),
                           b.getFunctionType(operands.getTypes(), resultTypes));
  decl.setPrivate();
  decl->setAttr(kLoopBodyAttrName,
                FlatSymbolRefAttr::get(body.getSymNameAttr()));
  decl->setAttr(kLoopCarriedAttrName, b.getI64IntegerAttr(carried));
  if (returned.size() != values.size())
    decl->setAttr(kLoopOutputsAttrName, b.getDenseI64ArrayAttr(where));
  return func::CallOp::create(b, loc, decl, operands);
}

SmallVector<Value> buildBranchLoops(OpBuilder &b, Location loc, StringRef owner,
                                    Value cond, TypeRange types,
                                    BranchBody &taken, BranchBody &otherwise) {
  Type i64 = b.getI64Type(), i1 = b.getI1Type();
  auto scalar = [](Type element) { return RankedTensorType::get({}, element); };
  SmallVector<Value> placeholders;
  for (Type t : types) {
    auto type = cast<RankedTensorType>(t);
    // Never read: one element along each dimension the branches differ in.
    SmallVector<int64_t> shape(type.getShape());
    for (int64_t &d : shape)
      d = ShapedType::isDynamic(d) ? 1 : d;
    Value empty = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
    Value zero =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
    Value filled = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
    placeholders.push_back(tensor::CastOp::create(b, loc, type, filled));
  }
  Value once = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(scalar(i64), int64_t(1)));
  Value yes = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(scalar(i1), true));
  Value notCond = arith::XOrIOp::create(b, loc, cond, yes);
  // A branch's function as a loop body: (iteration, condition, carried...)
  // before the arguments it has, its condition passed through.
  auto loopOf = [&](BranchBody &branch, Value runs, ValueRange firsts) {
    func::FuncOp body = branch.Func;
    SmallVector<Type> added = {scalar(i64), scalar(i1)};
    llvm::append_range(added, types);
    SmallVector<unsigned> at(added.size(), 0);
    SmallVector<DictionaryAttr> attrs(added.size());
    SmallVector<Location> locs(added.size(), loc);
    (void)body.insertArguments(at, added, attrs, locs);
    SmallVector<Value> values = {body.getArgument(1)};
    llvm::append_range(values, branch.Values);
    SmallVector<Value> operands = {once, runs};
    llvm::append_range(operands, firsts);
    llvm::append_range(operands, branch.Reads);
    return buildLoopCall(b, loc, body, owner,
                         static_cast<int64_t>(types.size()), values, operands,
                         types);
  };
  func::CallOp first = loopOf(otherwise, notCond, placeholders);
  func::CallOp second = loopOf(taken, cond, first.getResults());
  return SmallVector<Value>(second.getResults());
}

} // namespace kiln
