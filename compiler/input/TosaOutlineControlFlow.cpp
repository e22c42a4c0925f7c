//===- TosaOutlineControlFlow.cpp - tosa.while_loop run by the runtime
//-----===//
//
// Issue 19 item 4: a tosa.while_loop whose trip count the compiler cannot
// follow from constants (kiln-tosa-unroll-while-loops writes those out)
// depends on values known per call, so the runtime repeats its body: a
// loop phase (module.fbs PhaseLoop), as for an ONNX Loop given its trip
// count per call.
//
//===----------------------------------------------------------------------===//

#include "compiler/input/TosaOutlineControlFlow.h"
#include "compiler/Passes.h"
#include "compiler/host/LoopCalls.h"
#include "compiler/input/RegionInlining.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

#include <limits>

namespace kiln {
#define GEN_PASS_DEF_TOSAOUTLINECONTROLFLOW
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// The condition a cond region yields as a 0-d tensor<i1> (TOSA allows one
// element of any rank).
FailureOr<Value> scalarCondition(OpBuilder &b, Location loc, Value cond) {
  auto type = dyn_cast<RankedTensorType>(cond.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1 ||
      !type.getElementType().isInteger(1))
    return failure();
  if (type.getRank() == 0)
    return cond;
  return Value(tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({}, type.getElementType()), cond,
      ArrayRef<ReassociationIndices>{}));
}

struct TosaOutlineControlFlowPass
    : impl::TosaOutlineControlFlowBase<TosaOutlineControlFlowPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    for (func::FuncOp func : funcs) {
      Block &top = func.getBody().front();
      auto loops = llvm::to_vector(top.getOps<tosa::WhileOp>());
      for (auto [k, loop] : llvm::enumerate(loops))
        if (failed(outlineWhileLoop(
                loop, func, (func.getSymName() + "_while" + Twine(k)).str())))
          return signalPassFailure();
      // The ifs a select cannot cover: a result of dynamic shape.
      SmallVector<tosa::IfOp> ifs;
      for (auto op : top.getOps<tosa::IfOp>())
        if (llvm::any_of(op.getResultTypes(), [](Type t) {
              auto type = dyn_cast<RankedTensorType>(t);
              return type && !type.hasStaticShape();
            }))
          ifs.push_back(op);
      for (auto [k, op] : llvm::enumerate(ifs))
        if (failed(outlineCondIf(op, func,
                                 (func.getSymName() + "_if" + Twine(k)).str())))
          return signalPassFailure();
    }
    // A loop left sits inside another op's region: said where.
    WalkResult left = module.walk([](tosa::WhileOp loop) {
      bool inLoop =
          loop->getParentOfType<func::FuncOp>()->hasAttr(kPhaseOfAttrName);
      loop.emitError("tosa.while_loop: a loop whose trip count is data runs "
                     "as the runtime's loop, ")
          << (inLoop ? "which does not run inside another such loop"
                     : "which takes a loop at the top of a function only, "
                       "not inside another op's region");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace

LogicalResult outlineCondIf(tosa::IfOp op, func::FuncOp func, StringRef name) {
  Location loc = op.getLoc();
  OpBuilder b(op);
  FailureOr<Value> cond = scalarCondition(b, loc, op.getCondition());
  if (failed(cond))
    return op.emitError("tosa.cond_if: its condition must be one i1");
  BranchBody bodies[2];
  Region *regions[2] = {&op.getThenGraph(), &op.getElseGraph()};
  OpBuilder atModuleEnd =
      OpBuilder::atBlockEnd(func->getParentOfType<ModuleOp>().getBody());
  for (auto [k, body, region] : llvm::enumerate(bodies, regions)) {
    // Arguments: the if's inputs (the region's own), then what it reads.
    SetVector<Value> read;
    getUsedValuesDefinedAbove(*region, read);
    body.Reads.assign(op.getInputList().begin(), op.getInputList().end());
    llvm::append_range(body.Reads, read.getArrayRef());
    SmallVector<Type> types;
    for (Value v : body.Reads)
      types.push_back(v.getType());
    body.Func = func::FuncOp::create(
        atModuleEnd, loc, (name + (k == 0 ? "_then" : "_else")).str(),
        b.getFunctionType(types, {}));
    Block *entry = body.Func.addEntryBlock();
    OpBuilder inBody = OpBuilder::atBlockEnd(entry);
    IRMapping map;
    size_t inputs = op.getInputList().size();
    for (auto [i, v] : llvm::enumerate(read))
      map.map(v, entry->getArgument(inputs + i));
    body.Values = inlineRegion(inBody, *region,
                               entry->getArguments().take_front(inputs), map);
  }
  SmallVector<Value> results =
      buildBranchLoops(b, loc, func.getSymName(), *cond, op.getResultTypes(),
                       bodies[0], bodies[1]);
  op.replaceAllUsesWith(results);
  op.erase();
  return success();
}

LogicalResult outlineWhileLoop(tosa::WhileOp loop, func::FuncOp func,
                               StringRef name) {
  assert(loop->getBlock() == &func.getBody().front() &&
         "a loop at the top of the function");
  Location loc = loop.getLoc();
  Region &condRegion = loop.getCondGraph(), &bodyRegion = loop.getBodyGraph();
  SetVector<Value> read;
  getUsedValuesDefinedAbove(condRegion, read);
  getUsedValuesDefinedAbove(bodyRegion, read);

  // The body: (iteration, condition, carried..., read...) -> (the
  // condition on the values the body gives, those values).
  OpBuilder b(loop);
  Type i64 = b.getI64Type();
  SmallVector<Type> argTypes = {RankedTensorType::get({}, i64),
                                RankedTensorType::get({}, b.getI1Type())};
  llvm::append_range(argTypes, bodyRegion.front().getArgumentTypes());
  for (Value v : read)
    argTypes.push_back(v.getType());
  OpBuilder atModuleEnd =
      OpBuilder::atBlockEnd(func->getParentOfType<ModuleOp>().getBody());
  auto body = func::FuncOp::create(atModuleEnd, loc, name,
                                   b.getFunctionType(argTypes, {}));
  Block *entry = body.addEntryBlock();
  OpBuilder inBody = OpBuilder::atBlockEnd(entry);
  IRMapping map;
  size_t carried = loop.getInputList().size();
  for (auto [i, v] : llvm::enumerate(read))
    map.map(v, entry->getArgument(2 + carried + i));
  SmallVector<Value> next = inlineRegion(
      inBody, bodyRegion, entry->getArguments().slice(2, carried), map);
  SmallVector<Value> holds = inlineRegion(inBody, condRegion, next, map);
  FailureOr<Value> condition = holds.size() == 1
                                   ? scalarCondition(inBody, loc, holds.front())
                                   : FailureOr<Value>(failure());
  if (failed(condition)) {
    body.erase();
    return loop.emitError("tosa.while_loop: its condition must be one i1");
  }
  SmallVector<Value> values = {*condition};
  llvm::append_range(values, next);

  // Where the loop was: the condition on the first values, and the call.
  IRMapping first;
  SmallVector<Value> start =
      inlineRegion(b, condRegion, loop.getInputList(), first);
  FailureOr<Value> startCondition = scalarCondition(b, loc, start.front());
  Value trips = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, i64),
                             std::numeric_limits<int64_t>::max()));
  SmallVector<Value> operands = {trips, *startCondition};
  llvm::append_range(operands, loop.getInputList());
  llvm::append_range(operands, read.getArrayRef());
  func::CallOp call = buildLoopCall(b, loc, body, func.getSymName(), carried,
                                    values, operands, loop.getResultTypes());
  loop.replaceAllUsesWith(call.getResults());
  loop.erase();
  return success();
}

} // namespace kiln
