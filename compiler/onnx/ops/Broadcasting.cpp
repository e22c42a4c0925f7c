//===- Broadcasting.cpp - ONNX Expand, Tile and Where ---------------------===//
//
// Expand is a broadcasting copy; Tile reads its input as [1, d0, 1, d1, ...]
// broadcast to [r0, d0, r1, d1, ...] and collapses pairs, so both are one
// elementwise generic and a reshape. Where is a select with numpy
// broadcasting. All three fold on host tensors.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cstring>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

Value copyBody(OpBuilder &, Location, ValueRange args) { return args[0]; }

FailureOr<llvm::SmallVector<int64_t>> expandShape(NodeContext &ctx) {
  FailureOr<llvm::SmallVector<int64_t>> shape = ctx.constantInts(1, "shape");
  if (failed(shape))
    return failure();
  std::optional<llvm::SmallVector<int64_t>> out;
  if (llvm::all_of(*shape, [](int64_t d) { return d >= 0; }))
    out = broadcastShapes({ctx.inputShape(0), *shape});
  if (!out)
    return ctx.emitError() << "cannot expand " << shapeString(ctx.inputShape(0))
                           << " to " << shapeString(*shape),
           failure();
  if (failed(ctx.checkShape(*out, ctx.inputDType(0), "output")))
    return failure();
  return *out;
}

LogicalResult convertExpand(NodeContext &ctx) {
  FailureOr<llvm::SmallVector<int64_t>> shape = expandShape(ctx);
  if (failed(shape))
    return failure();
  ctx.setOutput(0,
                buildElementwise(ctx.builder(), ctx.loc(), ctx.input(0), *shape,
                                 ctx.inputType(0).getElementType(), copyBody),
                ctx.inputDType(0));
  return success();
}

FailureOr<bool> foldExpand(NodeContext &ctx) {
  const HostTensor *c = ctx.constantInput(0);
  if (!c)
    return false;
  FailureOr<llvm::SmallVector<int64_t>> shape = expandShape(ctx);
  if (failed(shape))
    return failure();
  if (numElementsOf(*shape) > kMaxFoldElements)
    return false;
  ctx.setOutput(0, broadcastHost(*c, *shape));
  return true;
}

LogicalResult convertTile(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  FailureOr<llvm::SmallVector<int64_t>> repeats =
      ctx.constantInts(1, "repeats");
  if (failed(repeats))
    return failure();
  if (repeats->size() != shape.size())
    return ctx.emitError() << "repeats has " << repeats->size()
                           << " values for rank " << shape.size();
  llvm::SmallVector<int64_t> spread, tiled, out;
  for (auto [d, r] : llvm::zip(shape, *repeats)) {
    if (r < 0)
      return ctx.emitError() << "negative repeat " << r;
    std::optional<int64_t> size = checkedMul(r, d);
    if (!size)
      return ctx.emitError()
             << "repeat " << r << " of a dimension of " << d << " overflows";
    spread.append({1, d});
    tiled.append({r, d});
    out.push_back(*size);
  }
  if (failed(ctx.checkShape(out, ctx.inputDType(0), "output")))
    return failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value x = reshapeTo(b, loc, ctx.input(0), spread);
  Value t = buildElementwise(b, loc, x, tiled,
                             ctx.inputType(0).getElementType(), copyBody);
  ctx.setOutput(0, reshapeTo(b, loc, t, out), ctx.inputDType(0));
  return success();
}

LogicalResult checkWhere(NodeContext &ctx) {
  if (ctx.inputDType(0) != Bool)
    return ctx.emitError() << "condition must be bool";
  if (ctx.inputDType(1) != ctx.inputDType(2))
    return ctx.emitError() << "X is " << dtypeName(ctx.inputDType(1)) << ", Y "
                           << dtypeName(ctx.inputDType(2));
  return success();
}

LogicalResult convertWhere(NodeContext &ctx) {
  if (failed(checkWhere(ctx)))
    return failure();
  return emitElementwise(ctx, {0, 1, 2}, ctx.inputDType(1),
                         [](OpBuilder &b, Location l, ValueRange a) {
                           return Value(
                               arith::SelectOp::create(b, l, a[0], a[1], a[2]));
                         });
}

FailureOr<bool> foldWhere(NodeContext &ctx) {
  const HostTensor *c = ctx.constantInput(0), *x = ctx.constantInput(1),
                   *y = ctx.constantInput(2);
  if (!c || !x || !y)
    return false;
  if (failed(checkWhere(ctx)))
    return failure();
  std::optional<llvm::SmallVector<int64_t>> shape =
      broadcastShapes({c->shape(), x->shape(), y->shape()});
  if (!shape || numElementsOf(*shape) > kMaxFoldElements)
    return false;
  HostTensor cb = broadcastHost(*c, *shape), xb = broadcastHost(*x, *shape),
             yb = broadcastHost(*y, *shape);
  // Element i of the result is element i of X or Y: gather from both.
  int64_t n = numElementsOf(*shape);
  int64_t size = dtypeByteSize(x->dtype());
  std::vector<char> bytes(n * size);
  for (int64_t i = 0; i < n; ++i)
    std::memcpy(bytes.data() + i * size,
                (cb.intAt(i) ? xb : yb).bytes().data() + i * size, size);
  ctx.setOutput(0, HostTensor(x->dtype(), *shape, std::move(bytes)));
  return true;
}

} // namespace

void registerBroadcastingOps(OpRegistry &registry) {
  registry.add("Expand", convertExpand);
  registry.addFolder("Expand", foldExpand);
  registry.add("Tile", convertTile);
  registry.add("Where", convertWhere);
  registry.addFolder("Where", foldWhere);
  // Where broadcasts as the elementwise ops do (emitElementwise): over
  // dynamic dimensions too (a decoder's mask over its positions, issue 19).
  registry.acceptDynamicShapes({"Where"});
}

} // namespace kiln::onnx_import
