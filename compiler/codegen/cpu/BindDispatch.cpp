//===- BindDispatch.cpp - Tensor dispatches to buffer-binding form --------===//

#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"

namespace kiln {
#define GEN_PASS_DEF_CPUBINDDISPATCH
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// Bindings are dense row-major buffers: identity-layout memrefs.
MemRefType bindingType(RankedTensorType type) {
  return MemRefType::get(type.getShape(), type.getElementType());
}

LogicalResult bindDispatch(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  SmallVector<Type> argTypes;
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults())) {
    auto tensorType = dyn_cast<RankedTensorType>(t);
    if (!tensorType || !tensorType.hasStaticShape())
      return func.emitError("dispatch operands must be static tensors, got ")
             << t;
    argTypes.push_back(bindingType(tensorType));
  }

  Block &entry = func.getBody().front();
  unsigned numInputs = type.getNumInputs();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  for (unsigned i = 0; i < numInputs; ++i) {
    BlockArgument oldArg = entry.getArgument(i);
    BlockArgument newArg = entry.addArgument(argTypes[i], oldArg.getLoc());
    auto tensor = bufferization::ToTensorOp::create(
        builder, oldArg.getLoc(), oldArg.getType(), newArg,
        /*restrict=*/true, /*writable=*/false);
    oldArg.replaceAllUsesWith(tensor.getResult());
  }
  SmallVector<BlockArgument> outputArgs;
  for (unsigned i = numInputs; i < argTypes.size(); ++i)
    outputArgs.push_back(entry.addArgument(argTypes[i], func.getLoc()));

  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  builder.setInsertionPoint(ret);
  for (auto [value, arg] : llvm::zip(ret.getOperands(), outputArgs)) {
    bufferization::MaterializeInDestinationOp::create(
        builder, ret.getLoc(), Type(), value, arg, /*restrict=*/true,
        /*writable=*/true);
  }
  func::ReturnOp::create(builder, ret.getLoc());
  ret.erase();
  entry.eraseArguments(0, numInputs);
  func.setType(builder.getFunctionType(argTypes, {}));
  return success();
}

struct CpuBindDispatchPass : impl::CpuBindDispatchBase<CpuBindDispatchPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isDispatchFunc(func) && failed(bindDispatch(func)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
