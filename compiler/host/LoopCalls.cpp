//===- LoopCalls.cpp - Loops the runtime repeats, before the phase split --===//

#include "compiler/host/LoopCalls.h"

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

} // namespace kiln
