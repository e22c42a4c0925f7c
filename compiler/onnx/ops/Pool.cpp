//===- Pool.cpp - ONNX MaxPool, AveragePool, global pools, MaxUnpool ------===//
//
// 2-D pools are linalg's pooling_nchw_max/sum (which the CPU back end
// decomposes and vectorizes), 1-D and 3-D ones generics of the same shape.
// Padding is explicit (-inf or the lowest integer for max, 0 for sum), and
// an average divides the sum by a host-computed count per output position,
// so count_include_pad and ceil_mode's partial windows need nothing at run
// time but one fused division. MaxPool's Indices output is an argmax generic
// over the windows; MaxUnpool a reduction over the pooled plane comparing
// each index with the output position.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"
#include "compiler/onnx/ops/ConvCommon.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

enum class PoolKind { Max, Sum };

template <typename OpTy>
Value namedPool(OpBuilder &b, Location loc, Value input, Value window,
                Value init, const WindowGeometry &g) {
  return OpTy::create(b, loc, TypeRange{init.getType()},
                      ValueRange{input, window}, ValueRange{init},
                      b.getI64TensorAttr(g.Strides),
                      b.getI64TensorAttr(g.Dilations))
      .getResult(0);
}

/// out[n, c, o...] = combine over w... of in[n, c, o * s + w * d], `input`
/// already padded.
Value pool(OpBuilder &b, Location loc, Value input, PoolKind kind,
           const WindowGeometry &g, bool isUnsigned) {
  auto type = cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  int64_t spatial = g.Kernel.size();
  llvm::SmallVector<int64_t> outShape = {type.getDimSize(0),
                                         type.getDimSize(1)};
  llvm::append_range(outShape, g.Output);
  TypedAttr initValue;
  if (kind == PoolKind::Sum)
    initValue = scalarAttr(element, 0);
  else if (auto f = dyn_cast<FloatType>(element))
    initValue = FloatAttr::get(
        f, APFloat::getInf(f.getFloatSemantics(), /*Negative=*/true));
  else
    initValue = IntegerAttr::get(
        element,
        isUnsigned ? APInt::getMinValue(element.getIntOrFloatBitWidth())
                   : APInt::getSignedMinValue(element.getIntOrFloatBitWidth()));
  Value init = filledTensor(b, loc, outShape, element, initValue, input);
  Value window = tensor::EmptyOp::create(b, loc, g.Kernel, element);
  bool isFloat = isa<FloatType>(element);
  if (spatial == 2 && (isFloat || !isUnsigned)) {
    if (kind == PoolKind::Max)
      return namedPool<linalg::PoolingNchwMaxOp>(b, loc, input, window, init,
                                                 g);
    return namedPool<linalg::PoolingNchwSumOp>(b, loc, input, window, init, g);
  }
  MLIRContext *ctx = b.getContext();
  int64_t loops = 2 + 2 * spatial;
  llvm::SmallVector<AffineExpr> inExprs = {getAffineDimExpr(0, ctx),
                                           getAffineDimExpr(1, ctx)};
  llvm::SmallVector<AffineExpr> windowExprs, outExprs = inExprs;
  for (int64_t i = 0; i < spatial; ++i) {
    AffineExpr o = getAffineDimExpr(2 + i, ctx);
    AffineExpr w = getAffineDimExpr(2 + spatial + i, ctx);
    inExprs.push_back(o * g.Strides[i] + w * g.Dilations[i]);
    windowExprs.push_back(w);
    outExprs.push_back(o);
  }
  llvm::SmallVector<utils::IteratorType> iterators(
      2 + spatial, utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  llvm::SmallVector<AffineMap> maps = {
      AffineMap::get(loops, 0, inExprs, ctx),
      AffineMap::get(loops, 0, windowExprs, ctx),
      AffineMap::get(loops, 0, outExprs, ctx)};
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{input, window}, init, maps,
             iterators,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               Value x = args[0], acc = args[2];
               Value r;
               if (kind == PoolKind::Sum)
                 r = isFloat ? Value(arith::AddFOp::create(nb, l, x, acc))
                             : Value(arith::AddIOp::create(nb, l, x, acc));
               else if (isFloat)
                 r = arith::MaximumFOp::create(nb, l, x, acc);
               else if (isUnsigned)
                 r = arith::MaxUIOp::create(nb, l, x, acc);
               else
                 r = arith::MaxSIOp::create(nb, l, x, acc);
               linalg::YieldOp::create(nb, l, r);
             })
      .getResult(0);
}

FailureOr<WindowGeometry> poolGeometry(NodeContext &ctx) {
  llvm::ArrayRef<int64_t> x = ctx.inputShape(0);
  // A dynamic batch passes through; channels and windows are known.
  if (failed(requireStaticDims(ctx, 0, {0})))
    return failure();
  if (x.size() < 3 || x.size() > 5)
    return (void)ctx.unsupported(
               std::to_string(static_cast<int64_t>(x.size()) - 2) +
               "-D pooling (1-D to 3-D are)"),
           failure();
  if (!ctx.hasAttr("kernel_shape"))
    return ctx.emitError() << "needs kernel_shape", failure();
  bool ceilMode = ctx.attrInt("ceil_mode", 0) != 0;
  return windowGeometry(ctx, x.drop_front(2), {}, ceilMode);
}

Value padded(NodeContext &ctx, const WindowGeometry &g, TypedAttr value) {
  llvm::SmallVector<int64_t> low = {0, 0}, high = {0, 0};
  llvm::append_range(low, g.PadLow);
  llvm::append_range(high, g.PadHigh);
  return padConstant(ctx.builder(), ctx.loc(), ctx.input(0), low, high, value);
}

/// MaxPool with its Indices output: one generic reducing each window to its
/// largest element (the first of equals, never the padding) and that
/// element's index in the flattened unpadded input, [N, C, spatial...]
/// row-major, the spatial part column-major with `columnMajor`
/// (storage_order 1).
std::pair<Value, Value>
maxPoolWithIndices(OpBuilder &b, Location loc, Value input,
                   llvm::ArrayRef<int64_t> unpadded, const WindowGeometry &g,
                   TypedAttr lowest, bool columnMajor, bool isUnsigned) {
  auto type = cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  int64_t spatial = g.Kernel.size();
  llvm::SmallVector<int64_t> outShape = {type.getDimSize(0),
                                         type.getDimSize(1)};
  llvm::append_range(outShape, g.Output);
  Value values = filledTensor(b, loc, outShape, element, lowest);
  // -1 marks "nothing seen yet": a window's first element inside the input
  // wins even when it is the lowest value.
  Value indices =
      filledTensor(b, loc, outShape, b.getI64Type(), b.getI64IntegerAttr(-1));
  Value window = tensor::EmptyOp::create(b, loc, g.Kernel, element);
  MLIRContext *ctx = b.getContext();
  int64_t loops = 2 + 2 * spatial;
  llvm::SmallVector<AffineExpr> inExprs = {getAffineDimExpr(0, ctx),
                                           getAffineDimExpr(1, ctx)};
  llvm::SmallVector<AffineExpr> windowExprs, outExprs = inExprs;
  for (int64_t i = 0; i < spatial; ++i) {
    AffineExpr o = getAffineDimExpr(2 + i, ctx);
    AffineExpr w = getAffineDimExpr(2 + spatial + i, ctx);
    inExprs.push_back(o * g.Strides[i] + w * g.Dilations[i]);
    windowExprs.push_back(w);
    outExprs.push_back(o);
  }
  llvm::SmallVector<utils::IteratorType> iterators(
      2 + spatial, utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  AffineMap outMap = AffineMap::get(loops, 0, outExprs, ctx);
  bool isFloat = isa<FloatType>(element);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{values.getType(), indices.getType()},
      ValueRange{input, window}, ValueRange{values, indices},
      llvm::ArrayRef<AffineMap>{AffineMap::get(loops, 0, inExprs, ctx),
                                AffineMap::get(loops, 0, windowExprs, ctx),
                                outMap, outMap},
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = args[0], best = args[2], bestIndex = args[3];
        auto index = [&](int64_t v) {
          return Value(arith::ConstantIndexOp::create(nb, l, v));
        };
        // The element's position in the unpadded input, and whether it is
        // inside it.
        Value inside;
        llvm::SmallVector<Value> position;
        for (int64_t i = 0; i < spatial; ++i) {
          Value o = linalg::IndexOp::create(nb, l, 2 + i);
          Value w = linalg::IndexOp::create(nb, l, 2 + spatial + i);
          Value p = arith::SubIOp::create(
              nb, l,
              arith::AddIOp::create(
                  nb, l, arith::MulIOp::create(nb, l, o, index(g.Strides[i])),
                  arith::MulIOp::create(nb, l, w, index(g.Dilations[i]))),
              index(g.PadLow[i]));
          Value low = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, p,
                                            index(0));
          Value high = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt,
                                             p, index(unpadded[2 + i]));
          Value in = arith::AndIOp::create(nb, l, low, high);
          inside =
              inside ? Value(arith::AndIOp::create(nb, l, inside, in)) : in;
          position.push_back(p);
        }
        // ((n * C + c) * spatial size) + the spatial offset.
        Value flat = arith::AddIOp::create(
            nb, l,
            arith::MulIOp::create(nb, l, linalg::IndexOp::create(nb, l, 0),
                                  index(unpadded[1])),
            linalg::IndexOp::create(nb, l, 1));
        Value offset = index(0);
        for (int64_t k = 0; k < spatial; ++k) {
          int64_t i = columnMajor ? spatial - 1 - k : k;
          offset = arith::AddIOp::create(
              nb, l,
              arith::MulIOp::create(nb, l, offset, index(unpadded[2 + i])),
              position[i]);
        }
        flat = arith::AddIOp::create(
            nb, l,
            arith::MulIOp::create(nb, l, flat,
                                  index(numElementsOf(unpadded.drop_front(2)))),
            offset);
        Value better;
        if (isFloat)
          better =
              arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT, x, best);
        else
          better = arith::CmpIOp::create(nb, l,
                                         isUnsigned ? arith::CmpIPredicate::ugt
                                                    : arith::CmpIPredicate::sgt,
                                         x, best);
        Value first = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::slt, bestIndex,
            arith::ConstantIntOp::create(nb, l, nb.getI64Type(), 0));
        Value take = arith::AndIOp::create(
            nb, l, inside, arith::OrIOp::create(nb, l, better, first));
        Value flatI64 =
            arith::IndexCastOp::create(nb, l, nb.getI64Type(), flat);
        linalg::YieldOp::create(
            nb, l,
            ValueRange{
                arith::SelectOp::create(nb, l, take, x, best),
                arith::SelectOp::create(nb, l, take, flatI64, bestIndex)});
      });
  return {generic.getResult(0), generic.getResult(1)};
}

LogicalResult convertMaxPool(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype) && dtype != Int8 && dtype != UInt8)
    return ctx.unsupported("element type " + dtypeName(dtype));
  int64_t storageOrder = ctx.attrInt("storage_order", 0);
  if (storageOrder != 0 && storageOrder != 1)
    return ctx.emitError() << "storage_order " << storageOrder
                           << " is neither 0 nor 1";
  FailureOr<WindowGeometry> g = poolGeometry(ctx);
  if (failed(g))
    return failure();
  Type element = ctx.inputType(0).getElementType();
  bool isUnsigned = isUnsignedDType(dtype);
  TypedAttr lowest;
  if (auto f = dyn_cast<FloatType>(element))
    lowest = FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics(), true));
  else
    lowest =
        IntegerAttr::get(element, isUnsigned ? APInt::getMinValue(8)
                                             : APInt::getSignedMinValue(8));
  Value input = padded(ctx, *g, lowest);
  if (ctx.hasOutput(1)) {
    if (failed(requireStaticDims(ctx, 0)))
      return failure();
    auto [values, indices] =
        maxPoolWithIndices(ctx.builder(), ctx.loc(), input, ctx.inputShape(0),
                           *g, lowest, storageOrder == 1, isUnsigned);
    ctx.setOutput(0, values, dtype);
    ctx.setOutput(1, indices, Int64);
    return success();
  }
  ctx.setOutput(
      0, pool(ctx.builder(), ctx.loc(), input, PoolKind::Max, *g, isUnsigned),
      dtype);
  return success();
}

/// MaxUnpool scatters X to the flat (row-major over the whole output)
/// positions Indices names, zeros elsewhere: each output element takes the
/// last X element of its own (n, c) plane whose index names it (a reduction
/// over the plane, quadratic in its size). MaxPool's indices always name
/// their own plane; an index into another plane writes nothing. An
/// output_shape given at call time (a graph input read on the host) sizes
/// the output's spatial dimensions per call and the flat positions with
/// them, as a constant one does (the indices name positions of the whole
/// output, as PyTorch and ONNX Runtime take them).
LogicalResult convertMaxUnpool(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> x = ctx.inputShape(0);
  int64_t rank = x.size(), spatial = rank - 2;
  if (rank < 3)
    return ctx.emitError() << "input " << shapeString(x)
                           << " has no spatial dimensions";
  if (ctx.inputShape(1) != x || !isIntegerDType(ctx.inputDType(1)))
    return ctx.emitError() << "indices must be integers of X's shape "
                           << shapeString(x);
  llvm::SmallVector<int64_t> kernel = ctx.attrInts("kernel_shape");
  llvm::SmallVector<int64_t> strides =
      ctx.attrInts("strides", llvm::SmallVector<int64_t>(spatial, 1));
  llvm::SmallVector<int64_t> pads =
      ctx.attrInts("pads", llvm::SmallVector<int64_t>(2 * spatial, 0));
  if (ctx.failedAttributes())
    return failure();
  if (static_cast<int64_t>(kernel.size()) != spatial ||
      static_cast<int64_t>(strides.size()) != spatial ||
      static_cast<int64_t>(pads.size()) != 2 * spatial)
    return ctx.emitError() << "kernel_shape, strides and pads must match the "
                           << spatial << " spatial dimensions";
  llvm::SmallVector<int64_t> outShape = {x[0], x[1]};
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  // The spatial extents when output_shape is given at call time: its N and
  // C checked per call to be X's and its extents not negative, each kept
  // >= 0 in a call the check refuses, so the refusal is the check's message.
  llvm::SmallVector<Value> outSizes;
  if (std::optional<llvm::SmallVector<Value>> read =
          ctx.intsReadAtCallTime(2)) {
    if (static_cast<int64_t>(read->size()) != rank)
      return ctx.emitError() << "output_shape has " << read->size()
                             << " elements for input " << shapeString(x);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value fits;
    for (int64_t d = 0; d < rank; ++d) {
      Value ok = d < 2
                     ? arith::CmpIOp::create(
                           b, loc, arith::CmpIPredicate::eq, (*read)[d],
                           arith::ConstantIndexOp::create(b, loc, x[d]))
                     : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                             (*read)[d], zero);
      fits = fits ? arith::AndIOp::create(b, loc, fits, ok) : ok;
      if (d >= 2) {
        outShape.push_back(ShapedType::kDynamic);
        outSizes.push_back(arith::MaxSIOp::create(b, loc, (*read)[d], zero));
      }
    }
    cf::AssertOp::create(b, loc, fits,
                         ctx.describe() + ": output_shape must be " +
                             std::to_string(x[0]) + "x" + std::to_string(x[1]) +
                             "x... with no negative extent");
  } else if (ctx.hasInput(2)) {
    FailureOr<llvm::SmallVector<int64_t>> shape =
        ctx.constantInts(2, "output_shape");
    if (failed(shape))
      return failure();
    if (static_cast<int64_t>(shape->size()) != rank || (*shape)[0] != x[0] ||
        (*shape)[1] != x[1])
      return ctx.emitError() << "output_shape " << shapeString(*shape)
                             << " does not fit input " << shapeString(x);
    outShape = *shape;
  } else {
    for (int64_t i = 0; i < spatial; ++i)
      outShape.push_back((x[2 + i] - 1) * strides[i] + kernel[i] - pads[i] -
                         pads[spatial + i]);
  }
  for (int64_t d : outShape)
    if (d < 0 && !ShapedType::isDynamic(d))
      return ctx.emitError()
             << "output shape " << shapeString(outShape) << " is negative";
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(0).getElementType();
  // Loops: n, c, the output's spatial ones, X's spatial ones (reduced).
  int64_t loops = 2 + 2 * spatial;
  llvm::SmallVector<AffineExpr> inExprs = {getAffineDimExpr(0, mctx),
                                           getAffineDimExpr(1, mctx)};
  llvm::SmallVector<AffineExpr> outExprs = inExprs;
  for (int64_t i = 0; i < spatial; ++i) {
    outExprs.push_back(getAffineDimExpr(2 + i, mctx));
    inExprs.push_back(getAffineDimExpr(2 + spatial + i, mctx));
  }
  llvm::SmallVector<utils::IteratorType> iterators(
      2 + spatial, utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  AffineMap inMap = AffineMap::get(loops, 0, inExprs, mctx);
  Value init =
      outSizes.empty()
          ? filledTensor(b, loc, outShape, element, scalarAttr(element, 0))
          : linalg::FillOp::create(b, loc,
                                   ValueRange{arith::ConstantOp::create(
                                       b, loc, scalarAttr(element, 0))},
                                   ValueRange{tensor::EmptyOp::create(
                                       b, loc, outShape, element, outSizes)})
                .getResult(0);
  bool indexUnsigned = isUnsignedDType(ctx.inputDType(1));
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{ctx.input(0), ctx.input(1)}, init,
          llvm::ArrayRef<AffineMap>{inMap, inMap,
                                    AffineMap::get(loops, 0, outExprs, mctx)},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            // The output element's flat index.
            Value flat = linalg::IndexOp::create(nb, l, 0);
            for (int64_t d = 1; d < 2 + spatial; ++d)
              flat = arith::AddIOp::create(
                  nb, l,
                  arith::MulIOp::create(
                      nb, l, flat,
                      outSizes.empty() || d < 2
                          ? Value(arith::ConstantIndexOp::create(nb, l,
                                                                 outShape[d]))
                          : outSizes[d - 2]),
                  linalg::IndexOp::create(nb, l, d));
            Value target = indexUnsigned
                               ? Value(arith::IndexCastUIOp::create(
                                     nb, l, nb.getIndexType(), args[1]))
                               : Value(arith::IndexCastOp::create(
                                     nb, l, nb.getIndexType(), args[1]));
            Value hit = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                              target, flat);
            linalg::YieldOp::create(
                nb, l,
                Value(arith::SelectOp::create(nb, l, hit, args[0], args[2])));
          })
          .getResult(0);
  ctx.setOutput(0, result, dtype);
  return success();
}

LogicalResult convertAveragePool(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  FailureOr<WindowGeometry> g = poolGeometry(ctx);
  if (failed(g))
    return failure();
  bool includePad = ctx.attrInt("count_include_pad", 0) != 0;
  // The divisor table below is built on the host, one count per output
  // position from a walk over each dimension's windows.
  int64_t walk = 0;
  for (size_t i = 0; i < g->Output.size(); ++i)
    walk = std::max(walk, numElementsOf({g->Output[i], g->Kernel[i]}));
  if (numElementsOf(g->Output) > kMaxFoldElements || walk > kMaxFoldElements)
    return ctx.unsupported("AveragePool with " +
                           llvm::Twine(numElementsOf(g->Output)) +
                           " output positions (the importer computes window "
                           "counts for up to " +
                           llvm::Twine(kMaxFoldElements) + ")");
  Type element = ctx.inputType(0).getElementType();
  Value input = padded(ctx, *g, scalarAttr(element, 0));
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value sum = pool(b, loc, input, PoolKind::Sum, *g, false);
  // Elements each window covers: inside the input, or inside the padding
  // the model asked for with count_include_pad (never ceil_mode's extra).
  llvm::ArrayRef<int64_t> spatial = ctx.inputShape(0).drop_front(2);
  int64_t dims = spatial.size();
  llvm::SmallVector<std::vector<int64_t>> perDim(dims);
  for (int64_t i = 0; i < dims; ++i) {
    int64_t lo = includePad ? -g->PadLow[i] : 0;
    int64_t hi =
        includePad ? spatial[i] + g->PadHigh[i] - g->CeilExtra[i] : spatial[i];
    for (int64_t o = 0; o < g->Output[i]; ++o) {
      int64_t count = 0;
      for (int64_t k = 0; k < g->Kernel[i]; ++k) {
        int64_t pos = o * g->Strides[i] + k * g->Dilations[i] - g->PadLow[i];
        count += pos >= lo && pos < hi;
      }
      perDim[i].push_back(count);
    }
  }
  std::vector<double> counts(numElementsOf(g->Output), 1.0);
  for (size_t flat = 0; flat < counts.size(); ++flat) {
    size_t rest = flat;
    for (int64_t i = dims - 1; i >= 0; --i) {
      counts[flat] *= perDim[i][rest % g->Output[i]];
      rest /= g->Output[i];
    }
  }
  OnnxValue divisor{RankedTensorType(), dtype, Value(),
                    HostTensor::fromDoubles(dtype, g->Output, counts),
                    ctx.name().str() + "_divisor"};
  Value d = materialize(b, divisor);
  auto shape = cast<RankedTensorType>(sum.getType()).getShape();
  ctx.setOutput(
      0,
      buildElementwise(b, loc, {sum, d}, shape, element,
                       [](OpBuilder &nb, Location l, ValueRange a) {
                         return Value(arith::DivFOp::create(nb, l, a[0], a[1]));
                       }),
      dtype);
  return success();
}

LogicalResult convertGlobalPool(NodeContext &ctx, PoolKind kind) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  llvm::ArrayRef<int64_t> x = ctx.inputShape(0);
  if (x.size() < 3)
    return ctx.emitError() << "input " << shapeString(x)
                           << " has no spatial dimensions";
  if (failed(requireStaticDims(ctx, 0, {0})))
    return failure();
  llvm::SmallVector<int64_t> axes;
  for (size_t i = 2; i < x.size(); ++i)
    axes.push_back(i);
  Type element = ctx.inputType(0).getElementType();
  auto f = cast<FloatType>(element);
  TypedAttr init =
      kind == PoolKind::Sum
          ? scalarAttr(element, 0)
          : FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics(), true));
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Value reduced = buildReduction(
      b, loc, ctx.input(0), axes, /*keepDims=*/true, init,
      [&](OpBuilder &nb, Location l, Value x, Value acc) -> Value {
        if (kind == PoolKind::Sum)
          return arith::AddFOp::create(nb, l, x, acc);
        return arith::MaximumFOp::create(nb, l, x, acc);
      });
  if (kind == PoolKind::Sum) {
    double count = numElementsOf(x.drop_front(2));
    auto shape = cast<RankedTensorType>(reduced.getType()).getShape();
    reduced =
        buildElementwise(b, loc, reduced, shape, element,
                         [&](OpBuilder &nb, Location l, ValueRange a) {
                           Value n = scalarConstant(nb, l, element, count);
                           return Value(arith::DivFOp::create(nb, l, a[0], n));
                         });
  }
  ctx.setOutput(0, reduced, dtype);
  return success();
}

} // namespace

void registerPoolOps(OpRegistry &registry) {
  registry.add("MaxPool", convertMaxPool);
  registry.add("AveragePool", convertAveragePool);
  registry.add("MaxUnpool", convertMaxUnpool);
  registry.add("GlobalAveragePool", [](NodeContext &ctx) {
    return convertGlobalPool(ctx, PoolKind::Sum);
  });
  registry.add("GlobalMaxPool", [](NodeContext &ctx) {
    return convertGlobalPool(ctx, PoolKind::Max);
  });
  // A dynamic batch (issue 19); the converters refuse other dynamic
  // dimensions.
  registry.acceptDynamicShapes(
      {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"});
}

} // namespace kiln::onnx_import
