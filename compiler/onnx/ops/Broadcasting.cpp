//===- Broadcasting.cpp - ONNX Expand, Tile and Where ---------------------===//
//
// Expand is a broadcasting copy; Tile reads its input as [1, d0, 1, d1, ...]
// broadcast to [r0, d0, r1, d1, ...] and collapses pairs, so both are one
// elementwise generic and a reshape; a shape or repeats given at call time
// (issue 19) size that generic per call. Where is a select with numpy
// broadcasting. All three fold on host tensors.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

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

// A broadcasting copy of `input` (static) to `shape`, whose entries
// may be host index values (a shape given at call time): numpy-aligned from
// the innermost, each input dimension of 1 read at index 0.
Value broadcastTo(OpBuilder &b, Location loc, Value input,
                  llvm::ArrayRef<OpFoldResult> shape) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = shape.size(), offset = rank - type.getRank();
  llvm::SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    std::optional<int64_t> out = getConstantIntValue(shape[offset + i]);
    exprs.push_back(type.getDimSize(i) == 1 && out != 1
                        ? b.getAffineConstantExpr(0)
                        : b.getAffineDimExpr(offset + i));
  }
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  llvm::SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, exprs, b.getContext()),
      b.getMultiDimIdentityMap(rank)};
  return linalg::GenericOp::create(
             b, loc, init.getType(), input, init, maps,
             llvm::SmallVector<utils::IteratorType>(
                 rank, utils::IteratorType::parallel),
             [](OpBuilder &nested, Location l, ValueRange args) {
               linalg::YieldOp::create(nested, l, args[0]);
             })
      .getResult(0);
}

// Expand to a shape known per call (a graph input, as ONNX's backend tests
// give every input, or a shape computed from dynamic dimensions): a dimension
// the input has as 1, or lacks, takes the given size per call; any other keeps
// the input's (the given one must be 1 or equal it, as ONNX requires of a
// model).
LogicalResult convertExpandAtCallTime(NodeContext &ctx,
                                      llvm::ArrayRef<OpFoldResult> given) {
  llvm::ArrayRef<int64_t> in = ctx.inputShape(0);
  int64_t rank = std::max<int64_t>(in.size(), given.size());
  int64_t inOffset = rank - in.size(), givenOffset = rank - given.size();
  llvm::SmallVector<OpFoldResult> shape;
  OpBuilder &b = ctx.builder();
  for (int64_t k = 0; k < rank; ++k) {
    int64_t i = k - inOffset, g = k - givenOffset;
    // A dynamic input dimension is taken as it is, never broadcast (as
    // exporters write a mask expanded over a dynamic batch).
    if (i >= 0 && (g < 0 || in[i] != 1))
      shape.push_back(dimSize(b, ctx.loc(), ctx.input(0), i));
    else
      shape.push_back(given[g]);
  }
  ctx.setOutput(0, broadcastTo(b, ctx.loc(), ctx.input(0), shape),
                ctx.inputDType(0));
  return success();
}

LogicalResult convertExpand(NodeContext &ctx) {
  std::optional<llvm::SmallVector<OpFoldResult>> given =
      ctx.intsKnownPerCall(1);
  if (!given && !ctx.inputType(0).hasStaticShape()) {
    // A dynamic input to a constant shape: the same broadcast.
    FailureOr<llvm::SmallVector<int64_t>> shape = ctx.constantInts(1, "shape");
    if (failed(shape))
      return failure();
    given.emplace();
    for (int64_t d : *shape) {
      if (d < 0)
        return ctx.emitError() << "shape has dimension " << d;
      given->push_back(ctx.builder().getIndexAttr(d));
    }
  }
  if (given)
    return convertExpandAtCallTime(ctx, *given);
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
  // A constant expanded to a shape known per call (a box head's class
  // labels over its detections) is converted, not folded.
  if (!c || !ctx.constantInput(1))
    return false;
  FailureOr<llvm::SmallVector<int64_t>> shape = expandShape(ctx);
  if (failed(shape))
    return failure();
  if (numElementsOf(*shape) > kMaxFoldElements)
    return false;
  ctx.setOutput(0, broadcastHost(*c, *shape));
  return true;
}

// Tile by repeats known per call (NodeContext::intsKnownPerCall): the input
// read as [1, d0, 1, d1, ...] broadcast to [r0, d0, r1, d1, ...] per call, then
// each pair collapsed (a negative repeat fails the call).
LogicalResult convertTileAtCallTime(NodeContext &ctx,
                                    llvm::ArrayRef<OpFoldResult> repeats) {
  llvm::ArrayRef<int64_t> shape = ctx.inputShape(0);
  if (!ctx.inputType(0).hasStaticShape())
    return ctx.unsupported("Tile of a dynamic input by repeats given at call "
                           "time");
  if (repeats.size() != shape.size())
    return ctx.emitError() << "repeats has " << repeats.size()
                           << " values for rank " << shape.size();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  llvm::SmallVector<int64_t> spread;
  llvm::SmallVector<OpFoldResult> tiled;
  llvm::SmallVector<ReassociationIndices> pairs;
  for (auto [k, d] : llvm::enumerate(shape)) {
    spread.append({1, d});
    tiled.append({repeats[k], b.getIndexAttr(d)});
    pairs.push_back(
        {static_cast<int64_t>(2 * k), static_cast<int64_t>(2 * k + 1)});
  }
  Value t = broadcastTo(b, loc, reshapeTo(b, loc, ctx.input(0), spread), tiled);
  ctx.setOutput(0, tensor::CollapseShapeOp::create(b, loc, t, pairs),
                ctx.inputDType(0));
  return success();
}

// Tile of a constant by constant repeats (a detector's anchors), computed
// while importing so what reads it can fold too; anything the converter
// would refuse is left to it.
FailureOr<bool> foldTile(NodeContext &ctx) {
  const HostTensor *x = ctx.constantInput(0);
  const HostTensor *r = ctx.hasInput(1) ? ctx.constantInput(1) : nullptr;
  if (!x || !r || r->numElements() != x->rank() || !isIntegerDType(r->dtype()))
    return false;
  llvm::ArrayRef<int64_t> shape = x->shape();
  llvm::SmallVector<int64_t> repeats = r->toInt64s(), out;
  for (auto [d, n] : llvm::zip(shape, repeats)) {
    std::optional<int64_t> size = checkedMul(n, d);
    if (n < 0 || !size)
      return false;
    out.push_back(*size);
  }
  if (numElementsOf(out) > kMaxFoldElements)
    return false;
  // Output element at (i0, i1, ...) reads (i0 mod d0, i1 mod d1, ...).
  llvm::SmallVector<int64_t> flat(numElementsOf(out), 0);
  llvm::SmallVector<int64_t> at(out.size(), 0);
  for (int64_t &index : flat) {
    for (size_t d = 0; d < out.size(); ++d)
      index = index * shape[d] + at[d] % shape[d];
    for (size_t d = out.size(); d-- > 0;) {
      if (++at[d] < out[d])
        break;
      at[d] = 0;
    }
  }
  ctx.setOutput(0, x->gathered(out, flat));
  return true;
}

LogicalResult convertTile(NodeContext &ctx) {
  if (std::optional<llvm::SmallVector<OpFoldResult>> repeats =
          ctx.intsKnownPerCall(1))
    return convertTileAtCallTime(ctx, *repeats);
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
  registry.addFolder("Tile", foldTile);
  registry.add("Where", convertWhere);
  registry.addFolder("Where", foldWhere);
  // Where broadcasts as the elementwise ops do (emitElementwise): over
  // dynamic dimensions too (a decoder's mask over its positions, issue 19).
  registry.acceptDynamicShapes({"Where", "Expand"});
}

} // namespace kiln::onnx_import
