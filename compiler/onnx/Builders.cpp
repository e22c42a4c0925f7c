//===- Builders.cpp - IR building blocks shared by ONNX converters --------===//

#include "compiler/onnx/Builders.h"
#include "compiler/onnx/OnnxTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace kiln::onnx_import {

std::optional<llvm::SmallVector<int64_t>>
broadcastShapes(llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (llvm::ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  llvm::SmallVector<int64_t> out(rank, 1);
  for (llvm::ArrayRef<int64_t> s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &o = out[rank - s.size() + i];
      int64_t d = s[i];
      if (d == o || d == 1)
        continue;
      // A dynamic extent is taken not to broadcast (as torch-mlir and IREE
      // take it): against a static one it must equal it, which the host
      // plan checks per call (ShapeExpressions' loop checks).
      if (ShapedType::isDynamic(d)) {
        if (o == 1)
          o = d;
        continue;
      }
      if (ShapedType::isDynamic(o) || o == 1) {
        o = d;
        continue;
      }
      return std::nullopt;
    }
  }
  return out;
}

OpFoldResult dimSize(OpBuilder &b, Location loc, Value value, int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(dim))
    return b.getIndexAttr(type.getDimSize(dim));
  return tensor::DimOp::create(b, loc, value, dim).getResult();
}

Value emptyTensor(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
                  Type elementType, ValueRange like) {
  int64_t rank = shape.size();
  llvm::SmallVector<Value> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    if (!ShapedType::isDynamic(shape[d]))
      continue;
    Value size;
    for (Value source : like) {
      auto type = cast<RankedTensorType>(source.getType());
      int64_t at = d - (rank - type.getRank());
      if (at >= 0 && type.isDynamicDim(at)) {
        size = tensor::DimOp::create(b, loc, source, at);
        break;
      }
    }
    assert(size && "a dynamic dimension no operand has");
    sizes.push_back(size);
  }
  return tensor::EmptyOp::create(b, loc, shape, elementType, sizes);
}

Value buildElementwise(OpBuilder &b, Location loc, ValueRange operands,
                       llvm::ArrayRef<int64_t> shape, Type elementType,
                       ScalarBody body, ValueRange like) {
  int64_t rank = shape.size();
  MLIRContext *ctx = b.getContext();
  llvm::SmallVector<AffineMap> maps;
  for (Value operand : operands) {
    llvm::ArrayRef<int64_t> s =
        cast<RankedTensorType>(operand.getType()).getShape();
    int64_t offset = rank - static_cast<int64_t>(s.size());
    llvm::SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < static_cast<int64_t>(s.size()); ++i)
      exprs.push_back(s[i] == 1 && shape[offset + i] != 1
                          ? getAffineConstantExpr(0, ctx)
                          : getAffineDimExpr(offset + i, ctx));
    maps.push_back(AffineMap::get(rank, 0, exprs, ctx));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  llvm::SmallVector<Value> sources(operands);
  llvm::append_range(sources, like);
  Value init = emptyTensor(b, loc, shape, elementType, sources);
  return linalg::GenericOp::create(
             b, loc, init.getType(), operands, init, maps,
             llvm::SmallVector<utils::IteratorType>(
                 rank, utils::IteratorType::parallel),
             [&](OpBuilder &nested, Location l, ValueRange args) {
               Value result = body(nested, l, args.drop_back());
               linalg::YieldOp::create(nested, l, result);
             })
      .getResult(0);
}

// `value` as the one dimension `flatType` gives (a scalar expanded, a
// tensor of rank 2 or more collapsed whole).
static Value collapseToFlat(OpBuilder &b, Location loc, Value value,
                            RankedTensorType flatType) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  if (rank == 0)
    return tensor::ExpandShapeOp::create(
        b, loc, flatType, value, llvm::ArrayRef<ReassociationIndices>{});
  if (rank == 1)
    return value;
  ReassociationIndices all;
  for (int64_t i = 0; i < rank; ++i)
    all.push_back(i);
  return tensor::CollapseShapeOp::create(b, loc, flatType, value,
                                         llvm::ArrayRef{all});
}

OpFoldResult multiplySizes(OpBuilder &b, Location loc, OpFoldResult x,
                           OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx * *cy);
  if (cx == 1)
    return y;
  if (cy == 1)
    return x;
  return arith::MulIOp::create(b, loc,
                               getValueOrCreateConstantIndexOp(b, loc, x),
                               getValueOrCreateConstantIndexOp(b, loc, y))
      .getResult();
}

OpFoldResult leadingProduct(OpBuilder &b, Location loc, Value value,
                            int64_t count) {
  OpFoldResult product = b.getIndexAttr(1);
  for (int64_t d = 0; d < count; ++d)
    product = multiplySizes(b, loc, product, dimSize(b, loc, value, d));
  return product;
}

Value reshapeTo(OpBuilder &b, Location loc, Value value,
                llvm::ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  assert(type.hasStaticShape() && ShapedType::isStaticShape(shape) &&
         "dynamic reshapes take their sizes (the overload below)");
  Type element = type.getElementType();
  int64_t elements = type.getNumElements();
  auto flatType = RankedTensorType::get({elements}, element);
  Value flat = collapseToFlat(b, loc, value, flatType);
  auto resultType = RankedTensorType::get(shape, element);
  if (shape.size() == 1)
    return flat;
  if (shape.empty())
    return tensor::CollapseShapeOp::create(
        b, loc, resultType, flat, llvm::ArrayRef<ReassociationIndices>{});
  ReassociationIndices all;
  for (size_t i = 0; i < shape.size(); ++i)
    all.push_back(i);
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                       llvm::ArrayRef{all});
}

Value reshapeToSizes(OpBuilder &b, Location loc, Value value,
                     llvm::ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(value.getType());
  llvm::SmallVector<Value> dynamicSizes;
  llvm::SmallVector<int64_t> shape;
  dispatchIndexOpFoldResults(sizes, dynamicSizes, shape);
  if (type.hasStaticShape() && dynamicSizes.empty())
    return reshapeTo(b, loc, value, shape);
  // The same type with one dynamic dimension: as many elements make it the
  // source's own, so no view is needed.
  if (type.getShape() == llvm::ArrayRef<int64_t>(shape) &&
      type.getNumDynamicDims() == 1)
    return value;
  Type element = type.getElementType();
  auto resultType = RankedTensorType::get(shape, element);
  // Dimensions grouped as a collapse or an expansion of the other keep
  // one view (a dynamic batch stays a dimension of its own, the host plan
  // follows it directly); anything else goes through one dimension.
  if (type.getRank() > resultType.getRank()) {
    if (auto groups =
            getReassociationIndicesForCollapse(type.getShape(), shape)) {
      auto collapsed =
          tensor::CollapseShapeOp::inferCollapsedType(type, *groups);
      if (collapsed == resultType)
        return tensor::CollapseShapeOp::create(b, loc, resultType, value,
                                               *groups);
    }
  } else if (type.getRank() < resultType.getRank()) {
    if (auto groups =
            getReassociationIndicesForCollapse(shape, type.getShape())) {
      auto collapsed =
          tensor::CollapseShapeOp::inferCollapsedType(resultType, *groups);
      if (collapsed == type)
        return tensor::ExpandShapeOp::create(b, loc, resultType, value, *groups,
                                             sizes);
    }
  }
  return reshapeThroughFlat(b, loc, value, sizes);
}

Value reshapeThroughFlat(OpBuilder &b, Location loc, Value value,
                         llvm::ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(value.getType());
  Type element = type.getElementType();
  llvm::SmallVector<Value> dynamicSizes;
  llvm::SmallVector<int64_t> shape;
  dispatchIndexOpFoldResults(sizes, dynamicSizes, shape);
  auto resultType = RankedTensorType::get(shape, element);
  OpFoldResult total = leadingProduct(b, loc, value, type.getRank());
  auto flatType = RankedTensorType::get(
      {getConstantIntValue(total).value_or(ShapedType::kDynamic)}, element);
  Value flat = collapseToFlat(b, loc, value, flatType);
  // A static source viewed at sizes known per call (a target given at call
  // time): the flat view is made dynamic first, as an expansion into
  // dynamic dimensions needs.
  if (flatType.hasStaticShape() && !resultType.hasStaticShape())
    flat = tensor::CastOp::create(
        b, loc, RankedTensorType::get({ShapedType::kDynamic}, element), flat);
  if (shape.size() == 1)
    return flat.getType() == resultType
               ? flat
               : tensor::CastOp::create(b, loc, resultType, flat).getResult();
  ReassociationIndices all;
  for (size_t i = 0; i < shape.size(); ++i)
    all.push_back(i);
  return tensor::ExpandShapeOp::create(b, loc, resultType, flat,
                                       llvm::ArrayRef{all}, sizes);
}

Value countedFromEnd(OpBuilder &b, Location loc, Value index, Value extent) {
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index,
                            arith::ConstantIndexOp::create(b, loc, 0));
  return arith::SelectOp::create(
      b, loc, negative, arith::AddIOp::create(b, loc, index, extent), index);
}

Value clampedIndex(OpBuilder &b, Location loc, Value v, Value extent,
                   bool isUnsigned) {
  Value i =
      isUnsigned
          ? Value(arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v))
          : Value(arith::IndexCastOp::create(b, loc, b.getIndexType(), v));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  i = countedFromEnd(b, loc, i, extent);
  i = arith::MaxSIOp::create(b, loc, i, zero);
  return arith::MinSIOp::create(b, loc, i,
                                arith::SubIOp::create(b, loc, extent, one));
}

Value transpose(OpBuilder &b, Location loc, Value value,
                llvm::ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(value.getType());
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perm))
    identity &= static_cast<int64_t>(i) == p;
  if (identity)
    return value;
  llvm::SmallVector<OpFoldResult> sizes;
  for (int64_t p : perm)
    sizes.push_back(dimSize(b, loc, value, p));
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, loc, value, init, perm).getResult()[0];
}

TypedAttr scalarAttr(Type type, double value) {
  if (auto f = dyn_cast<FloatType>(type))
    return FloatAttr::get(f, value);
  auto i = cast<IntegerType>(type);
  if (i.getWidth() == 1)
    return IntegerAttr::get(i, value != 0);
  return IntegerAttr::get(i, static_cast<int64_t>(value));
}

Value scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, scalarAttr(type, value));
}

Type accumulatorType(Type element) {
  if (element.isF16() || element.isBF16())
    return Float32Type::get(element.getContext());
  return element;
}

Value convertFloatElements(OpBuilder &b, Location loc, Value value,
                           Type element) {
  auto type = cast<RankedTensorType>(value.getType());
  Type from = type.getElementType();
  if (from == element)
    return value;
  assert(from.getIntOrFloatBitWidth() != element.getIntOrFloatBitWidth() &&
         "no extf or truncf between floats of one width");
  bool widen = from.getIntOrFloatBitWidth() < element.getIntOrFloatBitWidth();
  return buildElementwise(
      b, loc, value, type.getShape(), element,
      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
        if (widen)
          return arith::ExtFOp::create(nb, l, element, args[0]);
        return arith::TruncFOp::create(nb, l, element, args[0]);
      });
}

Value filledTensor(OpBuilder &b, Location loc, llvm::ArrayRef<int64_t> shape,
                   Type elementType, TypedAttr value, ValueRange like) {
  Value init = emptyTensor(b, loc, shape, elementType, like);
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, scalar, init).getResult(0);
}

Value padConstant(OpBuilder &b, Location loc, Value value,
                  llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                  TypedAttr padValue) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<OpFoldResult> lowAttrs, highAttrs;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    shape.push_back(type.isDynamicDim(i)
                        ? ShapedType::kDynamic
                        : type.getDimSize(i) + low[i] + high[i]);
    lowAttrs.push_back(b.getIndexAttr(low[i]));
    highAttrs.push_back(b.getIndexAttr(high[i]));
  }
  Value pad = arith::ConstantOp::create(b, loc, padValue);
  return tensor::PadOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      lowAttrs, highAttrs, pad);
}

llvm::SmallVector<int64_t> dropAxes(llvm::ArrayRef<int64_t> shape,
                                    llvm::ArrayRef<int64_t> axes) {
  llvm::SmallVector<int64_t> out;
  for (auto [i, d] : llvm::enumerate(shape))
    if (!llvm::is_contained(axes, static_cast<int64_t>(i)))
      out.push_back(d);
  return out;
}

Value buildReduction(
    OpBuilder &b, Location loc, Value value, llvm::ArrayRef<int64_t> axes,
    bool keepDims, TypedAttr init,
    llvm::function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  auto type = cast<RankedTensorType>(value.getType());
  llvm::SmallVector<int64_t> reducedShape = dropAxes(type.getShape(), axes);
  llvm::SmallVector<OpFoldResult> reducedSizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      reducedSizes.push_back(dimSize(b, loc, value, d));
  Value empty = tensor::EmptyOp::create(b, loc, reducedSizes, init.getType());
  Value initScalar = arith::ConstantOp::create(b, loc, init);
  Value acc = linalg::FillOp::create(b, loc, initScalar, empty).getResult(0);
  Value reduced = linalg::ReduceOp::create(
                      b, loc, value, acc, axes,
                      [&](OpBuilder &nested, Location l, ValueRange args) {
                        linalg::YieldOp::create(
                            nested, l, combine(nested, l, args[0], args[1]));
                      })
                      .getResult(0);
  if (!keepDims)
    return reduced;
  llvm::SmallVector<OpFoldResult> kept;
  for (int64_t d = 0; d < type.getRank(); ++d)
    kept.push_back(llvm::is_contained(axes, d) ? b.getIndexAttr(1)
                                               : dimSize(b, loc, value, d));
  return reshapeToSizes(b, loc, reduced, kept);
}

Value convertScalar(OpBuilder &b, Location loc, Value value, int32_t from,
                    int32_t to) {
  if (from == to)
    return value;
  Type toType = elementTypeOf(b.getContext(), to);
  Type fromType = value.getType();
  if (to == Bool) {
    Value zero = scalarConstant(b, loc, fromType, 0);
    if (isa<FloatType>(fromType))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, value,
                                   zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, value, zero);
  }
  bool fromFloat = isa<FloatType>(fromType);
  bool toFloat = isa<FloatType>(toType);
  bool fromUnsigned = isUnsignedDType(from) || from == Bool;
  if (fromFloat && toFloat) {
    unsigned fw = fromType.getIntOrFloatBitWidth();
    unsigned tw = toType.getIntOrFloatBitWidth();
    // bf16 <-> f16 have the same width: go through f32.
    if (fw == tw) {
      Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), value);
      return arith::TruncFOp::create(b, loc, toType, wide);
    }
    if (fw < tw)
      return arith::ExtFOp::create(b, loc, toType, value);
    return arith::TruncFOp::create(b, loc, toType, value);
  }
  if (fromFloat) {
    if (isUnsignedDType(to))
      return arith::FPToUIOp::create(b, loc, toType, value);
    return arith::FPToSIOp::create(b, loc, toType, value);
  }
  if (toFloat) {
    if (fromUnsigned)
      return arith::UIToFPOp::create(b, loc, toType, value);
    return arith::SIToFPOp::create(b, loc, toType, value);
  }
  unsigned fw = fromType.getIntOrFloatBitWidth();
  unsigned tw = toType.getIntOrFloatBitWidth();
  if (fw == tw)
    return value;
  if (fw > tw)
    return arith::TruncIOp::create(b, loc, toType, value);
  if (fromUnsigned)
    return arith::ExtUIOp::create(b, loc, toType, value);
  return arith::ExtSIOp::create(b, loc, toType, value);
}

Value buildLogSoftmax(OpBuilder &b, Location loc, Value x, int64_t axis) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  auto f = cast<FloatType>(element);
  TypedAttr lowest =
      FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics(), true));
  Value max =
      buildReduction(b, loc, x, {axis}, true, lowest,
                     [](OpBuilder &nb, Location l, Value v, Value acc) {
                       return Value(arith::MaximumFOp::create(nb, l, v, acc));
                     });
  llvm::ArrayRef<int64_t> shape = type.getShape();
  Value shifted =
      buildElementwise(b, loc, {x, max}, shape, element,
                       [](OpBuilder &nb, Location l, ValueRange a) {
                         return Value(arith::SubFOp::create(nb, l, a[0], a[1]));
                       });
  Value sum =
      buildReduction(b, loc, shifted, {axis}, true, scalarAttr(element, 0),
                     [](OpBuilder &nb, Location l, Value v, Value acc) {
                       return Value(arith::AddFOp::create(
                           nb, l, math::ExpOp::create(nb, l, v), acc));
                     });
  return buildElementwise(b, loc, {shifted, sum}, shape, element,
                          [](OpBuilder &nb, Location l, ValueRange a) {
                            return Value(arith::SubFOp::create(
                                nb, l, a[0], math::LogOp::create(nb, l, a[1])));
                          });
}

Value buildArgReduction(OpBuilder &b, Location loc, Value x, int64_t axis,
                        bool isMax, bool last, bool isUnsigned) {
  auto type = cast<RankedTensorType>(x.getType());
  llvm::ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  MLIRContext *mctx = b.getContext();
  Type element = type.getElementType();
  bool isFloat = isa<FloatType>(element);
  llvm::SmallVector<int64_t> outShape = dropAxes(shape, {axis});
  TypedAttr initValue;
  if (auto f = dyn_cast<FloatType>(element)) {
    initValue =
        FloatAttr::get(f, APFloat::getInf(f.getFloatSemantics(), isMax));
  } else {
    unsigned w = element.getIntOrFloatBitWidth();
    initValue = IntegerAttr::get(
        element, isUnsigned
                     ? (isMax ? APInt::getMinValue(w) : APInt::getMaxValue(w))
                     : (isMax ? APInt::getSignedMinValue(w)
                              : APInt::getSignedMaxValue(w)));
  }
  // Dynamic dimensions (issue 19) sized as the input's.
  llvm::SmallVector<OpFoldResult> outSizes;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      outSizes.push_back(dimSize(b, loc, x, d));
  auto filled = [&](TypedAttr value) {
    Value empty = tensor::EmptyOp::create(b, loc, outSizes, value.getType());
    Value scalar = arith::ConstantOp::create(b, loc, value);
    return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
  };
  Value values = filled(initValue);
  // -1 marks "nothing seen yet", so the first element always wins (an
  // all -inf or NaN row still gets a valid index).
  Value indices = filled(b.getI64IntegerAttr(-1));
  llvm::SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      outExprs.push_back(getAffineDimExpr(d, mctx));
  AffineMap outMap = AffineMap::get(rank, 0, outExprs, mctx);
  llvm::SmallVector<utils::IteratorType> iterators(
      rank, utils::IteratorType::parallel);
  iterators[axis] = utils::IteratorType::reduction;
  int64_t ax = axis;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{values.getType(), indices.getType()}, x,
      ValueRange{values, indices},
      llvm::ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank), outMap, outMap},
      iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value x = args[0], best = args[1], bestIndex = args[2];
        Value i = arith::IndexCastOp::create(
            nb, l, nb.getI64Type(), linalg::IndexOp::create(nb, l, ax));
        Value better;
        if (isFloat) {
          auto pred = isMax ? (last ? arith::CmpFPredicate::OGE
                                    : arith::CmpFPredicate::OGT)
                            : (last ? arith::CmpFPredicate::OLE
                                    : arith::CmpFPredicate::OLT);
          better = arith::CmpFOp::create(nb, l, pred, x, best);
        } else {
          auto pred = isMax ? (last ? (isUnsigned ? arith::CmpIPredicate::uge
                                                  : arith::CmpIPredicate::sge)
                                    : (isUnsigned ? arith::CmpIPredicate::ugt
                                                  : arith::CmpIPredicate::sgt))
                            : (last ? (isUnsigned ? arith::CmpIPredicate::ule
                                                  : arith::CmpIPredicate::sle)
                                    : (isUnsigned ? arith::CmpIPredicate::ult
                                                  : arith::CmpIPredicate::slt));
          better = arith::CmpIOp::create(nb, l, pred, x, best);
        }
        Value first = arith::CmpIOp::create(
            nb, l, arith::CmpIPredicate::slt, bestIndex,
            arith::ConstantIntOp::create(nb, l, nb.getI64Type(), 0));
        Value take = arith::OrIOp::create(nb, l, better, first);
        Value v = arith::SelectOp::create(nb, l, take, x, best);
        Value idx = arith::SelectOp::create(nb, l, take, i, bestIndex);
        linalg::YieldOp::create(nb, l, ValueRange{v, idx});
      });
  return generic.getResult(1);
}

} // namespace kiln::onnx_import
