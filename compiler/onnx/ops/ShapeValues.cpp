//===- ShapeValues.cpp - Shapes computed from dynamic dimensions ----------===//
//
// Exporters compute a Reshape's target from the input's own shape
// (`x.view(x.size(0), -1)` is Shape -> Gather -> Unsqueeze -> Concat ->
// Reshape). With static shapes the constant folders evaluate that chain;
// with a dynamic dimension (issue 19) Shape yields a *shape value*
// (NodeContext.h): its elements are constants or host `index` values
// (tensor.dim), and these folders carry it through Gather, Unsqueeze,
// Squeeze, Concat, Cast and Identity, so Reshape receives each target
// dimension as a constant or as the very tensor.dim it copies. A chain
// whose elements all turn out constant (Gather of a static dimension)
// becomes a host tensor again, which the ordinary folders take.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <algorithm>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

using Elements = llvm::SmallVector<OpFoldResult>;

// A shape value is a shape: no longer than the largest rank a tensor may
// have, so a file cannot make one of a billion elements.
bool tooLong(NodeContext &ctx, int64_t elements) {
  return elements > ctx.limits().MaxRank;
}

// Shape of a tensor with dynamic dimensions: tensor.dim for each of them.
FailureOr<bool> foldShape(NodeContext &ctx) {
  if (ctx.constantInput(0) || ctx.inputType(0).hasStaticShape())
    return false;
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  int64_t rank = shape.size();
  // start/end (opset 15) slice the shape, clamped like Slice (as the
  // constant folder does).
  int64_t start = ctx.attrInt("start", 0);
  int64_t end = ctx.attrInt("end", rank);
  if (start < 0)
    start += rank;
  if (end < 0)
    end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  Elements elements;
  for (int64_t i = start; i < end; ++i)
    elements.push_back(
        dimSize(ctx.builder(), ctx.loc(), ctx.input(0), static_cast<int>(i)));
  ctx.setShapeValueOutput(0, elements, /*scalar=*/false);
  return true;
}

// Gather along axis 0 of a 1-D shape value at constant indices (a scalar
// index gives a scalar).
FailureOr<bool> foldGather(NodeContext &ctx) {
  const Elements *data = ctx.shapeValueInput(0);
  if (!data)
    return false;
  const HostTensor *indices = ctx.constantInput(1);
  if (!indices || ctx.inputRank(0) != 1 || indices->shape().size() > 1 ||
      tooLong(ctx, indices->numElements()))
    return false;
  FailureOr<int64_t> axis = ctx.normalizeAxis(ctx.attrInt("axis", 0), 1);
  if (failed(axis))
    return failure();
  int64_t size = data->size();
  Elements picked;
  for (int64_t k = 0; k < indices->numElements(); ++k) {
    int64_t index = indices->intAt(k);
    if (index < -size || index >= size)
      return ctx.emitError() << "index " << index << " is out of range for "
                             << size << " elements",
             failure();
    picked.push_back((*data)[index < 0 ? index + size : index]);
  }
  ctx.setShapeValueOutput(0, picked, indices->shape().empty());
  return true;
}

// A scalar shape value made 1-D (Unsqueeze at axis 0).
FailureOr<bool> foldUnsqueeze(NodeContext &ctx) {
  const Elements *data = ctx.shapeValueInput(0);
  if (!data || ctx.inputRank(0) != 0)
    return false;
  FailureOr<std::optional<llvm::SmallVector<int64_t>>> axes =
      ctx.intsFromAttrOrInput("axes", 1, 13);
  if (failed(axes))
    return failure();
  if (!*axes || (*axes)->size() != 1 || ((**axes)[0] != 0 && (**axes)[0] != -1))
    return false;
  ctx.setShapeValueOutput(0, *data, /*scalar=*/false);
  return true;
}

// A one-element 1-D shape value made a scalar (Squeeze at axis 0).
FailureOr<bool> foldSqueeze(NodeContext &ctx) {
  const Elements *data = ctx.shapeValueInput(0);
  if (!data || ctx.inputRank(0) != 1 || data->size() != 1)
    return false;
  FailureOr<std::optional<llvm::SmallVector<int64_t>>> axes =
      ctx.intsFromAttrOrInput("axes", 1, 13);
  if (failed(axes))
    return failure();
  if (*axes &&
      ((*axes)->size() != 1 || ((**axes)[0] != 0 && (**axes)[0] != -1)))
    return false;
  ctx.setShapeValueOutput(0, *data, /*scalar=*/true);
  return true;
}

// 1-D shape values and int64 constants joined.
FailureOr<bool> foldConcat(NodeContext &ctx) {
  bool any = false;
  Elements joined;
  for (size_t i = 0; i < ctx.numInputs(); ++i) {
    if (!ctx.hasInput(i) || ctx.inputRank(i) != 1 || ctx.inputDType(i) != Int64)
      return false;
    if (const Elements *data = ctx.shapeValueInput(i)) {
      if (tooLong(ctx, static_cast<int64_t>(joined.size() + data->size())))
        return false;
      any = true;
      llvm::append_range(joined, *data);
      continue;
    }
    const HostTensor *c = ctx.constantInput(i);
    if (!c ||
        tooLong(ctx, static_cast<int64_t>(joined.size()) + c->numElements()))
      return false;
    for (int64_t k = 0; k < c->numElements(); ++k)
      joined.push_back(ctx.builder().getIndexAttr(c->intAt(k)));
  }
  if (!any)
    return false;
  ctx.setShapeValueOutput(0, joined, /*scalar=*/false);
  return true;
}

// Cast to int64 and Identity pass a shape value on.
FailureOr<bool> foldPassThrough(NodeContext &ctx) {
  const Elements *data = ctx.shapeValueInput(0);
  if (!data)
    return false;
  if (ctx.opType() == "Cast" && ctx.attrInt("to", 0) != Int64)
    return false;
  ctx.setShapeValueOutput(0, *data, ctx.inputRank(0) == 0);
  return true;
}

} // namespace

void registerShapeValuesOps(OpRegistry &registry) {
  registry.addShapeValueFolder("Shape", foldShape);
  registry.addShapeValueFolder("Gather", foldGather);
  registry.addShapeValueFolder("Unsqueeze", foldUnsqueeze);
  registry.addShapeValueFolder("Squeeze", foldSqueeze);
  registry.addShapeValueFolder("Concat", foldConcat);
  registry.addShapeValueFolder("Cast", foldPassThrough);
  registry.addShapeValueFolder("Identity", foldPassThrough);
}

} // namespace kiln::onnx_import
