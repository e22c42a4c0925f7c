//===- GatherOps.cpp - Tensor data movement as elementwise gathers --------===//
//
// tensor.pad, tensor.concat, tensor.extract_slice and tensor.insert_slice
// have no loops to tile: tiled, a pad yields per tile an scf.if between a
// generated tile and a pad of a source slice, a concat bufferizes to a
// temporary of its whole result, and a slice or an insert stored by a
// dispatch was left to a single thread. A kernel cannot allocate those
// temporaries, and a single thread copying a tensor is slow. Each is
// rewritten here as a linalg.generic over its result whose payload loads
// the element at its index from wherever it lives (computing a pad's
// padding value in place): an elementwise op, tiled to threads like any
// other, with its elementwise consumers fused.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/gpu/GpuCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kiln {
namespace {

/// Computes one element of a gather from its index and the elements of the
/// gather's identity-mapped inputs at that index.
using ElementFn =
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>, ValueRange)>;

/// Replaces `op` by a linalg.generic over `type` whose payload is
/// `element`; `inputs` (shaped like the result) are read at the element's
/// own index, so they stay fusable and vectorizable.
linalg::GenericOp replaceByGather(RewriterBase &rewriter, Operation *op,
                                  RankedTensorType type, ValueRange inputs,
                                  ElementFn element) {
  Location loc = op->getLoc();
  auto rank = static_cast<unsigned>(type.getRank());
  rewriter.setInsertionPoint(op);
  Value init;
  if (type.hasStaticShape()) {
    init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                   type.getElementType());
  } else {
    // A dynamic extent (issue 19) is the op's own, as it reifies it.
    ReifiedRankedShapedTypeDims sizes;
    if (failed(reifyResultShapes(rewriter, op, sizes)))
      return nullptr;
    init = tensor::EmptyOp::create(rewriter, loc, sizes.front(),
                                   type.getElementType());
  }
  SmallVector<AffineMap> maps(inputs.size() + 1,
                              rewriter.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto build = [&](OpBuilder &b, Location loc, ValueRange args) {
    SmallVector<Value> index;
    for (unsigned d = 0; d < rank; ++d)
      index.push_back(linalg::IndexOp::create(b, loc, d));
    linalg::YieldOp::create(b, loc, element(b, loc, index, args.drop_back()));
  };
  auto generic =
      linalg::GenericOp::create(rewriter, loc, TypeRange{type}, inputs,
                                ValueRange{init}, maps, iterators, build);
  rewriter.replaceOp(op, generic.getResults());
  return generic;
}

/// The gather replacing `op`, or a failure naming why it could not be
/// built.
FailureOr<linalg::GenericOp>
gatherOrFailure(RewriterBase &rewriter, Operation *op, RankedTensorType type,
                ValueRange inputs, ElementFn element) {
  linalg::GenericOp generic =
      replaceByGather(rewriter, op, type, inputs, element);
  if (!generic)
    return rewriter.notifyMatchFailure(op, "dynamic extent not reified");
  return generic;
}

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// `inside ? then() : otherwise()`, loading nothing on the other side.
Value select(OpBuilder &b, Location loc, Value inside,
             function_ref<Value(OpBuilder &, Location)> then,
             function_ref<Value(OpBuilder &, Location)> otherwise) {
  return scf::IfOp::create(
             b, loc, inside,
             [&](OpBuilder &b, Location loc) {
               scf::YieldOp::create(b, loc, then(b, loc));
             },
             [&](OpBuilder &b, Location loc) {
               scf::YieldOp::create(b, loc, otherwise(b, loc));
             })
      .getResult(0);
}

Value conjunction(OpBuilder &b, Location loc, Value all, Value one) {
  return all ? arith::AndIOp::create(b, loc, all, one).getResult() : one;
}

bool allStatic(ValueRange values) {
  return llvm::all_of(values, [](Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.hasStaticShape();
  });
}

/// Where a slice's dimension `d` of the full tensor is, given the element
/// index `at` along it: the slice index and whether `at` lies on the slice.
/// `kept` is false for a dimension the slice drops (size 1, no index).
struct SliceDim {
  int64_t Offset, Size, Stride;
};

std::pair<Value, Value> locateInSlice(OpBuilder &b, Location loc, Value at,
                                      SliceDim dim, bool check) {
  Value shifted =
      dim.Offset == 0
          ? at
          : arith::SubIOp::create(b, loc, at, constantIndex(b, loc, dim.Offset))
                .getResult();
  if (!check)
    return {dim.Stride == 1
                ? shifted
                : arith::DivUIOp::create(b, loc, shifted,
                                         constantIndex(b, loc, dim.Stride))
                      .getResult(),
            Value()};
  // Unsigned: one compare checks both ends.
  int64_t span = (dim.Size - 1) * dim.Stride + 1;
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       shifted, constantIndex(b, loc, span));
  if (dim.Stride == 1)
    return {shifted, inside};
  Value stride = constantIndex(b, loc, dim.Stride);
  Value onStride =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            arith::RemUIOp::create(b, loc, shifted, stride),
                            constantIndex(b, loc, 0));
  return {arith::DivUIOp::create(b, loc, shifted, stride),
          arith::AndIOp::create(b, loc, inside, onStride)};
}

/// The static offsets, sizes and strides of a slice, over the full
/// tensor's dimensions. With `wholeDynamic`, a dimension of dynamic size
/// (issue 19) is accepted where it starts at 0 with stride 1, its Size
/// then kDynamic: a gather that needs no bounds check along it (an
/// extract_slice's) reads it at the result's own index.
template <typename SliceOp>
std::optional<SmallVector<SliceDim>>
staticSliceDims(SliceOp slice, bool wholeDynamic = false) {
  if (ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
      ShapedType::isDynamicShape(slice.getStaticStrides()))
    return std::nullopt;
  SmallVector<SliceDim> dims;
  for (auto [offset, size, stride] :
       llvm::zip(slice.getStaticOffsets(), slice.getStaticSizes(),
                 slice.getStaticStrides())) {
    if (ShapedType::isDynamic(size) &&
        (!wholeDynamic || offset != 0 || stride != 1))
      return std::nullopt;
    dims.push_back({offset, size, stride});
  }
  return dims;
}

/// The source index of a static extract_slice's element at `index`: each
/// kept source dimension takes the next result index (times its stride,
/// plus its offset); a dropped one stays at its offset.
SmallVector<Value> sliceSourceIndex(OpBuilder &b, Location loc,
                                    ArrayRef<SliceDim> dims,
                                    const llvm::SmallBitVector &dropped,
                                    ArrayRef<Value> index) {
  SmallVector<Value> sourceIndex;
  const Value *next = index.begin();
  for (auto [d, dim] : llvm::enumerate(dims)) {
    if (dropped.test(d)) {
      sourceIndex.push_back(constantIndex(b, loc, dim.Offset));
      continue;
    }
    Value at = *next++;
    if (dim.Stride != 1)
      at = arith::MulIOp::create(b, loc, at, constantIndex(b, loc, dim.Stride));
    if (dim.Offset != 0)
      at = arith::AddIOp::create(b, loc, at, constantIndex(b, loc, dim.Offset));
    sourceIndex.push_back(at);
  }
  return sourceIndex;
}

/// A static extract_slice in the dispatch that only concatenations read
/// (kiln-form-dispatches puts such slices in their concatenation's
/// dispatch: torch.roll's halves): the concatenation reads its source
/// through it, and it is not computed on its own.
std::optional<SmallVector<SliceDim>> sliceReadByConcats(Value value) {
  auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || !slice.getResultType().hasStaticShape() ||
      !llvm::all_of(slice->getUsers(), [](Operation *user) {
        return isa<tensor::ConcatOp>(user);
      }))
    return std::nullopt;
  return staticSliceDims(slice);
}

} // namespace

FailureOr<linalg::GenericOp> rewritePadAsGather(RewriterBase &rewriter,
                                                tensor::PadOp pad) {
  RankedTensorType type = pad.getResultType();
  RankedTensorType sourceType = pad.getSourceType();
  // Padding given as constant values counts as static.
  std::optional<SmallVector<int64_t>> low =
      getConstantIntValues(pad.getMixedLowPad());
  if (!low)
    return rewriter.notifyMatchFailure(pad, "dynamic padding");
  // A dynamic dimension (issue 19) must be copied, not padded: its index
  // is the source's.
  for (auto [d, high] : llvm::enumerate(pad.getMixedHighPad()))
    if ((sourceType.isDynamicDim(d) || type.isDynamicDim(d)) &&
        (!sourceType.isDynamicDim(d) || !type.isDynamicDim(d) ||
         (*low)[d] != 0 || !isConstantIntValue(high, 0)))
      return rewriter.notifyMatchFailure(pad, "padded dynamic dimension");
  Block &padBody = pad.getRegion().front();
  auto element = [&](OpBuilder &b, Location loc, ArrayRef<Value> index,
                     ValueRange) -> Value {
    SmallVector<Value> sourceIndex;
    Value inside;
    for (auto [d, at] : llvm::enumerate(index)) {
      SliceDim dim{(*low)[d], sourceType.getDimSize(d), 1};
      bool padded = dim.Offset != 0 ||
                    (!type.isDynamicDim(d) && type.getDimSize(d) != dim.Size);
      auto [local, in] = locateInSlice(b, loc, at, dim, padded);
      sourceIndex.push_back(local);
      if (in)
        inside = conjunction(b, loc, inside, in);
    }
    auto load = [&](OpBuilder &b, Location loc) -> Value {
      return tensor::ExtractOp::create(b, loc, pad.getSource(), sourceIndex);
    };
    // Nothing is padded (all padding zero): a copy.
    if (!inside)
      return load(b, loc);
    // The padding value, computed from the element's index as the pad's
    // region does.
    auto padding = [&](OpBuilder &b, Location) -> Value {
      IRMapping mapping;
      mapping.map(padBody.getArguments(), index);
      for (Operation &op : padBody.without_terminator())
        b.clone(op, mapping);
      auto yield = cast<tensor::YieldOp>(padBody.getTerminator());
      return mapping.lookupOrDefault(yield.getValue());
    };
    return select(b, loc, inside, load, padding);
  };
  return gatherOrFailure(rewriter, pad, type, {}, element);
}

FailureOr<linalg::GenericOp> rewriteConcatAsGather(RewriterBase &rewriter,
                                                   tensor::ConcatOp concat) {
  RankedTensorType type = concat.getResultType();
  int64_t dim = static_cast<int64_t>(concat.getDim());
  Location loc = concat.getLoc();
  // Where each operand starts along `dim`: a constant while every operand
  // before it is static along `dim`, else (issue 19: a key/value cache
  // grown by the new positions) the sum of their extents, computed once
  // before the gather. Other dimensions may be dynamic too: each operand's
  // is the result's, read at the element's own index.
  rewriter.setInsertionPoint(concat);
  SmallVector<OpFoldResult> starts;
  OpFoldResult start = rewriter.getIndexAttr(0);
  for (Value input : concat.getInputs()) {
    starts.push_back(start);
    OpFoldResult extent = tensor::getMixedSize(rewriter, loc, input, dim);
    std::optional<int64_t> before = getConstantIntValue(start);
    std::optional<int64_t> size = getConstantIntValue(extent);
    if (before && size) {
      start = rewriter.getIndexAttr(*before + *size);
      continue;
    }
    start = arith::AddIOp::create(
                rewriter, loc,
                getValueOrCreateConstantIndexOp(rewriter, loc, start),
                getValueOrCreateConstantIndexOp(rewriter, loc, extent))
                .getResult();
  }
  // A start inside the payload: a static one as a constant there, as the
  // static gathers always had it.
  auto startAt = [&](OpBuilder &b, Location loc, size_t i) -> Value {
    if (std::optional<int64_t> value = getConstantIntValue(starts[i]))
      return constantIndex(b, loc, *value);
    return cast<Value>(starts[i]);
  };
  auto element = [&](OpBuilder &b, Location loc, ArrayRef<Value> index,
                     ValueRange) -> Value {
    // Operand i's element, its index shifted back by the operand's start.
    auto load = [&](OpBuilder &b, Location loc, size_t i) -> Value {
      // A filled operand is its value: the fill then has no reader and no
      // buffer (a detector's label per class, a splat of a per-call count,
      // would otherwise be a temporary the kernel cannot allocate).
      if (auto fill = concat.getInputs()[i].getDefiningOp<linalg::FillOp>())
        return fill.getInputs()[0];
      SmallVector<Value> at(index);
      if (!isConstantIntValue(starts[i], 0))
        at[dim] = arith::SubIOp::create(b, loc, index[dim], startAt(b, loc, i));
      Value input = concat.getInputs()[i];
      if (std::optional<SmallVector<SliceDim>> dims =
              sliceReadByConcats(input)) {
        auto slice = input.getDefiningOp<tensor::ExtractSliceOp>();
        return tensor::ExtractOp::create(
            b, loc, slice.getSource(),
            sliceSourceIndex(b, loc, *dims, slice.getDroppedDims(), at));
      }
      return tensor::ExtractOp::create(b, loc, input, at);
    };
    // The last operand takes whatever the others do not; each earlier one
    // is chosen by an scf.if, so no load goes outside its operand.
    std::function<Value(OpBuilder &, Location, size_t)> pick =
        [&](OpBuilder &b, Location loc, size_t i) -> Value {
      if (i + 1 == starts.size())
        return load(b, loc, i);
      Value before = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           index[dim], startAt(b, loc, i + 1));
      return select(
          b, loc, before,
          [&](OpBuilder &b, Location loc) { return load(b, loc, i); },
          [&](OpBuilder &b, Location loc) { return pick(b, loc, i + 1); });
    };
    return pick(b, loc, 0);
  };
  return gatherOrFailure(rewriter, concat, type, {}, element);
}

/// A slice at offsets known per call (issue 19: a decoder's rows of a
/// causal bias, past .. past + new), unit strides: each index reads the
/// source at itself plus the offset, clamped inside the source along those
/// dimensions (the importer's offsets are in range; a hand-written one is
/// never read past).
FailureOr<linalg::GenericOp>
rewriteDynamicSliceAsGather(RewriterBase &rewriter,
                            tensor::ExtractSliceOp slice) {
  if (!slice.hasUnitStride() || slice.getDroppedDims().any())
    return rewriter.notifyMatchFailure(slice, "dynamic slice");
  Location loc = slice.getLoc();
  rewriter.setInsertionPoint(slice);
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  // The last index of each dimension read at a dynamic offset.
  SmallVector<Value> last(offsets.size());
  for (auto [d, offset] : llvm::enumerate(offsets)) {
    if (isa<Attribute>(offset))
      continue;
    Value extent = getValueOrCreateConstantIndexOp(
        rewriter, loc,
        tensor::getMixedSize(rewriter, loc, slice.getSource(), d));
    last[d] = arith::SubIOp::create(rewriter, loc, extent,
                                    constantIndex(rewriter, loc, 1));
  }
  auto element = [&](OpBuilder &b, Location loc, ArrayRef<Value> index,
                     ValueRange) -> Value {
    SmallVector<Value> sourceIndex;
    for (auto [d, offset] : llvm::enumerate(offsets)) {
      Value at = index[d];
      if (std::optional<int64_t> c = getConstantIntValue(offset)) {
        if (*c != 0)
          at = arith::AddIOp::create(b, loc, at, constantIndex(b, loc, *c));
      } else {
        at = arith::AddIOp::create(b, loc, at, cast<Value>(offset));
        at = arith::MinUIOp::create(b, loc, at, last[d]);
      }
      sourceIndex.push_back(at);
    }
    return tensor::ExtractOp::create(b, loc, slice.getSource(), sourceIndex);
  };
  return gatherOrFailure(rewriter, slice, slice.getResultType(), {}, element);
}

FailureOr<linalg::GenericOp>
rewriteExtractSliceAsGather(RewriterBase &rewriter,
                            tensor::ExtractSliceOp slice) {
  RankedTensorType type = slice.getResultType();
  // A dynamic dimension (issue 19) must be taken whole from 0 with stride
  // 1; a static one may come from a dynamic source (a batch's rows, each
  // sliced alike): the slice reads inside the source the call checked.
  std::optional<SmallVector<SliceDim>> dims =
      staticSliceDims(slice, /*wholeDynamic=*/true);
  if (!dims)
    return rewriteDynamicSliceAsGather(rewriter, slice);
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  auto element = [&](OpBuilder &b, Location loc, ArrayRef<Value> index,
                     ValueRange) -> Value {
    return tensor::ExtractOp::create(
        b, loc, slice.getSource(),
        sliceSourceIndex(b, loc, *dims, dropped, index));
  };
  return gatherOrFailure(rewriter, slice, type, {}, element);
}

FailureOr<linalg::GenericOp>
rewriteInsertSliceAsGather(RewriterBase &rewriter,
                           tensor::InsertSliceOp insert) {
  RankedTensorType type = insert.getDestType();
  std::optional<SmallVector<SliceDim>> dims = staticSliceDims(insert);
  if (!type.hasStaticShape() || !allStatic(insert.getSource()) || !dims)
    return rewriter.notifyMatchFailure(insert, "dynamic shape or slice");
  llvm::SmallBitVector dropped = insert.getDroppedDims();
  auto element = [&](OpBuilder &b, Location loc, ArrayRef<Value> index,
                     ValueRange destElement) -> Value {
    // The element comes from the source where the index lies on the slice
    // (a dropped dimension only at its offset), else from the destination.
    SmallVector<Value> sourceIndex;
    Value inside;
    for (auto [d, dim] : llvm::enumerate(*dims)) {
      auto [local, in] = locateInSlice(b, loc, index[d], dim, /*check=*/true);
      inside = conjunction(b, loc, inside, in);
      if (!dropped.test(d))
        sourceIndex.push_back(local);
    }
    return select(
        b, loc, inside,
        [&](OpBuilder &b, Location loc) -> Value {
          return tensor::ExtractOp::create(b, loc, insert.getSource(),
                                           sourceIndex);
        },
        [&](OpBuilder &, Location) { return destElement.front(); });
  };
  return gatherOrFailure(rewriter, insert, type, insert.getDest(), element);
}

LogicalResult rewriteTensorOpsAsGathers(func::FuncOp func) {
  SmallVector<Operation *> ops;
  SmallVector<Operation *> readThrough;
  func.walk([&](Operation *op) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(op);
    if (slice && sliceReadByConcats(slice.getResult()))
      readThrough.push_back(op);
    else if (isa<tensor::PadOp, tensor::ConcatOp, tensor::ExtractSliceOp,
                 tensor::InsertSliceOp>(op))
      ops.push_back(op);
  });
  IRRewriter rewriter(func.getContext());
  for (Operation *op : ops) {
    FailureOr<linalg::GenericOp> rewritten =
        TypeSwitch<Operation *, FailureOr<linalg::GenericOp>>(op)
            .Case([&](tensor::PadOp pad) {
              return rewritePadAsGather(rewriter, pad);
            })
            .Case([&](tensor::ConcatOp concat) {
              return rewriteConcatAsGather(rewriter, concat);
            })
            .Case([&](tensor::ExtractSliceOp slice) {
              return rewriteExtractSliceAsGather(rewriter, slice);
            })
            .Case([&](tensor::InsertSliceOp insert) {
              return rewriteInsertSliceAsGather(rewriter, insert);
            })
            .Default(failure());
    if (failed(rewritten))
      return op->emitError("GPU kernels need static offsets, sizes and "
                           "strides here, and static shapes along the "
                           "dimensions padded, joined or sliced");
  }
  // The concatenations read through these slices now.
  for (Operation *op : readThrough)
    if (op->use_empty())
      rewriter.eraseOp(op);
  return success();
}

} // namespace kiln
