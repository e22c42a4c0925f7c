//===- BindDispatch.cpp - Tensor dispatches to buffer-binding form --------===//

#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/PushConstants.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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
// lower to a bare pointer. A tensor of dynamic shape is bound as a pointer
// (`memref<1xT>`: static, so it lowers to a bare pointer) that the body
// views at its extents (viewBinding).
MemRefType bindingType(RankedTensorType type) {
  Type element = type.getElementType();
  if (element.isInteger(1))
    element = IntegerType::get(type.getContext(), 8);
  if (!type.hasStaticShape())
    return MemRefType::get({1}, element);
  if (type.getNumElements() == 0)
    return MemRefType::get({0}, element);
  return MemRefType::get(type.getShape(), element);
}

// A dynamic binding viewed as the dense row-major buffer it is: its
// extents are push constant arguments, strides their suffix products.
Value viewBinding(OpBuilder &builder, Location loc, Value binding,
                  RankedTensorType type, ArrayRef<Value> extents) {
  SmallVector<OpFoldResult> sizes, strides(type.getRank());
  unsigned next = 0;
  for (int64_t dim : type.getShape())
    sizes.push_back(ShapedType::isDynamic(dim)
                        ? OpFoldResult(extents[next++])
                        : OpFoldResult(builder.getIndexAttr(dim)));
  OpFoldResult stride = builder.getIndexAttr(1);
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride = affine::makeComposedFoldedAffineApply(
        builder, loc,
        builder.getAffineSymbolExpr(0) * builder.getAffineSymbolExpr(1),
        {stride, sizes[d]});
  }
  auto viewType = MemRefType::get(
      type.getShape(), cast<MemRefType>(binding.getType()).getElementType());
  return memref::ReinterpretCastOp::create(
      builder, loc, viewType, binding, builder.getIndexAttr(0), sizes, strides);
}

// An `index` value passed as an i64 argument appended to `entry` (push
// constants are integers and floats of known width).
Value indexArgument(OpBuilder &builder, Block &entry, Location loc) {
  BlockArgument arg = entry.addArgument(builder.getI64Type(), loc);
  return arith::IndexCastOp::create(builder, loc, builder.getIndexType(), arg);
}

// Elementwise conversion of `value` to `elementType` with an integer cast.
Value castElements(OpBuilder &builder, Location loc, Value value,
                   Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  auto resultType = type.clone(elementType);
  Value init = tensor::EmptyOp::create(
      builder, loc, tensor::getMixedSizes(builder, loc, value), elementType);
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
    if (!isPushConstantArgumentType(t))
      return func.emitError("dispatch operands must be tensors, then push "
                            "constant scalars; got ")
             << t;
  SmallVector<Type> argTypes;
  for (Type t : llvm::concat<const Type>(type.getInputs().take_front(numInputs),
                                         type.getResults())) {
    auto tensorType = dyn_cast<RankedTensorType>(t);
    if (!tensorType)
      return func.emitError("dispatch operands must be tensors, got ") << t;
    argTypes.push_back(bindingType(tensorType));
  }

  Block &entry = func.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  // Each binding's dynamic extents, in binding order, as i64 arguments
  // after the scalars: push constants the host computes per call
  // (docs/architecture.md, "Dynamic shapes").
  unsigned numBindings = argTypes.size();
  SmallVector<SmallVector<Value>> extents(numBindings);
  SmallVector<Type> extentTypes;
  for (auto [i, t] : llvm::enumerate(llvm::concat<const Type>(
           type.getInputs().take_front(numInputs), type.getResults())))
    for (int64_t dim : cast<RankedTensorType>(t).getShape())
      if (ShapedType::isDynamic(dim)) {
        extents[i].push_back(indexArgument(builder, entry, func.getLoc()));
        extentTypes.push_back(builder.getI64Type());
      }
  unsigned firstExtent = entry.getNumArguments() - extentTypes.size();
  for (unsigned i = 0; i < numInputs; ++i) {
    BlockArgument oldArg = entry.getArgument(i);
    BlockArgument newArg = entry.addArgument(argTypes[i], oldArg.getLoc());
    auto oldType = cast<RankedTensorType>(oldArg.getType());
    if (oldType.hasStaticShape() && oldType.getNumElements() == 0) {
      oldArg.replaceAllUsesWith(
          tensor::EmptyOp::create(builder, oldArg.getLoc(), oldType.getShape(),
                                  oldType.getElementType()));
      continue;
    }
    Value binding = newArg;
    if (!oldType.hasStaticShape())
      binding =
          viewBinding(builder, oldArg.getLoc(), newArg, oldType, extents[i]);
    Value tensor = bufferization::ToTensorOp::create(
        builder, oldArg.getLoc(),
        oldType.clone(cast<MemRefType>(argTypes[i]).getElementType()), binding,
        /*restrict=*/true, /*writable=*/false);
    if (tensor.getType() != oldType) {
      // A boolean read element by element (tensor.extract in a body: a
      // gather) takes its byte and truncates it, so no converted copy of
      // the whole tensor is made for it (on GPUs, a temporary kernels
      // cannot allocate).
      for (OpOperand &use : llvm::make_early_inc_range(oldArg.getUses())) {
        auto extract = dyn_cast<tensor::ExtractOp>(use.getOwner());
        if (!extract || use.getOperandNumber() != 0)
          continue;
        OpBuilder at(extract);
        Value byte = tensor::ExtractOp::create(at, extract.getLoc(), tensor,
                                               extract.getIndices());
        extract.replaceAllUsesWith(
            arith::TruncIOp::create(at, extract.getLoc(),
                                    oldType.getElementType(), byte)
                .getResult());
        extract.erase();
      }
      // One of dynamic shape read by a generic takes bytes too, truncated
      // in the body: a conversion kernel over a per-call extent would not
      // be fused into its consumer, and its result would be a temporary.
      if (!oldType.hasStaticShape())
        for (OpOperand &use : llvm::make_early_inc_range(oldArg.getUses())) {
          auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
          if (!generic || !generic.isDpsInput(&use))
            continue;
          use.set(tensor);
          BlockArgument bodyArg = generic.getMatchingBlockArgument(&use);
          bodyArg.setType(
              cast<RankedTensorType>(tensor.getType()).getElementType());
          OpBuilder at = OpBuilder::atBlockBegin(bodyArg.getOwner());
          Value truncated = arith::TruncIOp::create(
              at, bodyArg.getLoc(), oldType.getElementType(), bodyArg);
          bodyArg.replaceAllUsesExcept(truncated, truncated.getDefiningOp());
        }
      if (oldArg.use_empty())
        continue;
      tensor = castElements(builder, oldArg.getLoc(), tensor,
                            oldType.getElementType());
    }
    oldArg.replaceAllUsesWith(tensor);
  }
  SmallVector<Value> outputArgs;
  for (unsigned i = numInputs; i < numBindings; ++i) {
    Value arg = entry.addArgument(argTypes[i], func.getLoc());
    auto resultType = cast<RankedTensorType>(type.getResult(i - numInputs));
    if (!resultType.hasStaticShape())
      arg = viewBinding(builder, func.getLoc(), arg, resultType, extents[i]);
    outputArgs.push_back(arg);
  }
  for (auto [i, scalarType] : llvm::enumerate(scalarTypes)) {
    BlockArgument oldArg = entry.getArgument(numInputs + i);
    if (scalarType.isIndex()) {
      oldArg.replaceAllUsesWith(indexArgument(builder, entry, oldArg.getLoc()));
      argTypes.push_back(builder.getI64Type());
      continue;
    }
    oldArg.replaceAllUsesWith(entry.addArgument(scalarType, oldArg.getLoc()));
    argTypes.push_back(scalarType);
  }

  // The extents go last.
  for (unsigned i = 0; i < extentTypes.size(); ++i) {
    BlockArgument extent = entry.getArgument(firstExtent);
    extent.replaceAllUsesWith(
        entry.addArgument(extent.getType(), extent.getLoc()));
    entry.eraseArgument(firstExtent);
  }
  llvm::append_range(argTypes, extentTypes);

  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  builder.setInsertionPoint(ret);
  for (auto [value, arg] : llvm::zip(ret.getOperands(), outputArgs)) {
    auto valueType = cast<RankedTensorType>(value.getType());
    if (valueType.hasStaticShape() && valueType.getNumElements() == 0)
      continue;
    Value stored = value;
    auto memrefType = cast<BaseMemRefType>(arg.getType());
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
