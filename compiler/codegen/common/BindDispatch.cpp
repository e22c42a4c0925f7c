//===- BindDispatch.cpp - Tensor dispatches to buffer-binding form --------===//

#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/PushConstants.h"

namespace kiln {
#define GEN_PASS_DEF_BINDDISPATCH
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// Bindings are dense row-major buffers: identity-layout memrefs. Booleans
// are stored one byte each (LLVM would bit-pack vectors of i1 in memory).
// A tensor without elements is bound as a 1-D empty buffer: it is never read
// or written, and the strides of an n-D shape with a zero extent do not
// lower to a bare pointer.
MemRefType bindingType(RankedTensorType type) {
  Type element = type.getElementType();
  if (element.isInteger(1))
    element = IntegerType::get(type.getContext(), 8);
  if (type.getNumElements() == 0)
    return MemRefType::get({0}, element);
  return MemRefType::get(type.getShape(), element);
}

// Elementwise conversion of `value` to `elementType` with an integer cast.
Value castElements(OpBuilder &builder, Location loc, Value value,
                   Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  auto resultType = type.clone(elementType);
  Value init =
      tensor::EmptyOp::create(builder, loc, type.getShape(), elementType);
  AffineMap identity = builder.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, resultType, value, init,
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value cast = elementType.getIntOrFloatBitWidth() <
                             args[0].getType().getIntOrFloatBitWidth()
                         ? arith::TruncIOp::create(b, l, elementType, args[0])
                               .getResult()
                         : arith::ExtUIOp::create(b, l, elementType, args[0])
                               .getResult();
        linalg::YieldOp::create(b, l, cast);
      });
  return generic.getResult(0);
}

LogicalResult bindDispatch(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  // Tensors, then the scalars shared dispatches take as push constants
  // (kiln-hoist-dispatch-scalars), which stay scalar arguments after the
  // bindings.
  unsigned numInputs = 0;
  while (numInputs < type.getNumInputs() &&
         isa<RankedTensorType>(type.getInput(numInputs)))
    ++numInputs;
  ArrayRef<Type> scalarTypes = type.getInputs().drop_front(numInputs);
  for (Type t : scalarTypes)
    if (!isPushConstantType(t))
      return func.emitError("dispatch operands must be static tensors, then "
                            "push constant scalars; got ")
             << t;
  SmallVector<Type> argTypes;
  for (Type t : llvm::concat<const Type>(type.getInputs().take_front(numInputs),
                                         type.getResults())) {
    auto tensorType = dyn_cast<RankedTensorType>(t);
    if (!tensorType || !tensorType.hasStaticShape())
      return func.emitError("dispatch operands must be static tensors, got ")
             << t;
    argTypes.push_back(bindingType(tensorType));
  }

  Block &entry = func.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  for (unsigned i = 0; i < numInputs; ++i) {
    BlockArgument oldArg = entry.getArgument(i);
    BlockArgument newArg = entry.addArgument(argTypes[i], oldArg.getLoc());
    auto oldType = cast<RankedTensorType>(oldArg.getType());
    if (oldType.getNumElements() == 0) {
      oldArg.replaceAllUsesWith(
          tensor::EmptyOp::create(builder, oldArg.getLoc(), oldType.getShape(),
                                  oldType.getElementType()));
      continue;
    }
    Value tensor = bufferization::ToTensorOp::create(
        builder, oldArg.getLoc(),
        oldType.clone(cast<MemRefType>(argTypes[i]).getElementType()), newArg,
        /*restrict=*/true, /*writable=*/false);
    if (tensor.getType() != oldType)
      tensor = castElements(builder, oldArg.getLoc(), tensor,
                            oldType.getElementType());
    oldArg.replaceAllUsesWith(tensor);
  }
  SmallVector<BlockArgument> outputArgs;
  for (unsigned i = numInputs; i < argTypes.size(); ++i)
    outputArgs.push_back(entry.addArgument(argTypes[i], func.getLoc()));
  for (auto [i, scalarType] : llvm::enumerate(scalarTypes)) {
    BlockArgument oldArg = entry.getArgument(numInputs + i);
    oldArg.replaceAllUsesWith(entry.addArgument(scalarType, oldArg.getLoc()));
    argTypes.push_back(scalarType);
  }

  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  builder.setInsertionPoint(ret);
  for (auto [value, arg] : llvm::zip(ret.getOperands(), outputArgs)) {
    if (cast<RankedTensorType>(value.getType()).getNumElements() == 0)
      continue;
    Value stored = value;
    auto memrefType = cast<MemRefType>(arg.getType());
    if (memrefType.getElementType() !=
        cast<RankedTensorType>(value.getType()).getElementType())
      stored = castElements(builder, ret.getLoc(), value,
                            memrefType.getElementType());
    bufferization::MaterializeInDestinationOp::create(
        builder, ret.getLoc(), Type(), stored, arg, /*restrict=*/true,
        /*writable=*/true);
  }
  func::ReturnOp::create(builder, ret.getLoc());
  ret.erase();
  entry.eraseArguments(0, type.getNumInputs());
  func.setType(builder.getFunctionType(argTypes, {}));
  return success();
}

struct BindDispatchPass : impl::BindDispatchBase<BindDispatchPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isDispatchFunc(func) && failed(bindDispatch(func)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
