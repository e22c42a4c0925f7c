//===- Transposes.cpp - Creating, folding and moving transposes -----------===//

#include "compiler/globalopt/Transposes.h"
#include "compiler/globalopt/ConstantBytes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

#include <numeric>

using namespace mlir;

namespace kiln {

std::optional<SmallVector<int64_t>> transposePermutation(Operation *op) {
  if (auto transpose = dyn_cast_or_null<linalg::TransposeOp>(op)) {
    if (isIdentityPermutation(transpose.getPermutation()))
      return std::nullopt;
    return SmallVector<int64_t>(transpose.getPermutation());
  }
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0)
    return std::nullopt;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  if (!maps[1].isIdentity() || !maps[0].isPermutation() || maps[0].isIdentity())
    return std::nullopt;
  Block &body = generic.getRegion().front();
  if (body.getTerminator()->getNumOperands() != 1 ||
      body.getTerminator()->getOperand(0) != body.getArgument(0))
    return std::nullopt;
  // The input's dimension k is read at loop (= result dimension) inv[k].
  SmallVector<int64_t> perm(maps[0].getNumResults());
  for (auto [k, e] : llvm::enumerate(maps[0].getResults()))
    perm[cast<AffineDimExpr>(e).getPosition()] = k;
  return perm;
}

// `value`'s extents; a dynamic one (issue 19: a batch) as its producer
// reifies it (a linalg op's from its init), so the value itself gains no
// use: a fill transposed once still has one user and folds.
static SmallVector<OpFoldResult> extentsOf(OpBuilder &builder, Location loc,
                                           Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.hasStaticShape())
    if (auto result = dyn_cast<OpResult>(value)) {
      ReifiedRankedShapedTypeDims dims;
      if (succeeded(reifyResultShapes(builder, result.getOwner(), dims)))
        return dims[result.getResultNumber()];
    }
  return tensor::getMixedSizes(builder, loc, value);
}

Value createTranspose(OpBuilder &builder, Location loc, Value source,
                      ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<OpFoldResult> sizes =
      applyPermutation(extentsOf(builder, loc, source), perm);
  Value init =
      tensor::EmptyOp::create(builder, loc, sizes, type.getElementType());
  MLIRContext *ctx = builder.getContext();
  AffineMap read =
      AffineMap::getPermutationMap(invertPermutationVector(perm), ctx);
  return linalg::GenericOp::create(
             builder, loc, init.getType(), source, init,
             ArrayRef<AffineMap>{
                 read, builder.getMultiDimIdentityMap(type.getRank())},
             SmallVector<utils::IteratorType>(type.getRank(),
                                              utils::IteratorType::parallel),
             [](OpBuilder &b, Location l, ValueRange args) {
               linalg::YieldOp::create(b, l, args[0]);
             })
      .getResult(0);
}

namespace {

Value transposeSource(Operation *transpose) {
  return cast<linalg::LinalgOp>(transpose).getDpsInputOperand(0)->get();
}

// An all-parallel generic with one result written in its loop order whose
// payload ignores the result's old value and the loop indices: it computes
// the same elements whatever order its loops run in.
bool isLayoutFree(linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 0 || op.getNumDpsInits() != 1 ||
      op.hasIndexSemantics())
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  return op.getMatchingIndexingMap(init).isIdentity() &&
         !op.payloadUsesValueFromOperand(init);
}

// The input `op` reads through an identity map from a transpose, if any:
// the transpose sinks through such an op.
OpOperand *sinkableInput(linalg::GenericOp op) {
  if (!isLayoutFree(op) || transposePermutation(op))
    return nullptr;
  for (OpOperand *input : op.getDpsInputOperands())
    if (op.getMatchingIndexingMap(input).isIdentity() &&
        transposePermutation(input->get().getDefiningOp()))
      return input;
  return nullptr;
}

// `op` with its loops renumbered by `loops` (old loop d = loops(new
// loops)), its one result written in the new order; the input at
// `replaced` (if any) becomes `replacement` read through an identity map.
linalg::GenericOp relayout(PatternRewriter &rewriter, linalg::GenericOp op,
                           AffineMap loops, ArrayRef<OpFoldResult> sizes,
                           OpOperand *replaced = nullptr,
                           Value replacement = nullptr) {
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (input == replaced) {
      inputs.push_back(replacement);
      maps.push_back(rewriter.getMultiDimIdentityMap(loops.getNumDims()));
    } else {
      inputs.push_back(input->get());
      maps.push_back(map.compose(loops));
    }
  }
  maps.push_back(rewriter.getMultiDimIdentityMap(loops.getNumDims()));
  Type element = getElementTypeOrSelf(op.getResult(0).getType());
  Value init = tensor::EmptyOp::create(rewriter, op.getLoc(), sizes, element);
  auto result = linalg::GenericOp::create(
      rewriter, op.getLoc(), TypeRange{init.getType()}, inputs, init, maps,
      op.getIteratorTypesArray());
  rewriter.cloneRegionBefore(op.getRegion(), result.getRegion(),
                             result.getRegion().end());
  return result;
}

// Whether `perm` is an image layout's: the batch first, the leading
// dimensions after it (channels, or channel groups) moved behind the rest
// in order, the rest in any order ([0, 3, 1, 2] from channels-last,
// [0, 2, 3, 1] to it, [0, 4, 3, 1, 2] with a channel shuffle). Reshapes,
// slices and concatenations only move such transposes, so the ones of
// attention ([0, 2, 1, 3]) keep their places.
bool isLayoutTranspose(ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  if (rank < 4 || perm[0] != 0)
    return false;
  int64_t moved = perm.back();
  if (moved < 1 || moved > rank - 2)
    return false;
  for (int64_t t = 0; t < moved; ++t)
    if (perm[rank - moved + t] != t + 1)
      return false;
  return true;
}

std::optional<SmallVector<int64_t>> layoutPermutation(Operation *op) {
  std::optional<SmallVector<int64_t>> perm = transposePermutation(op);
  if (!perm || !isLayoutTranspose(*perm))
    return std::nullopt;
  return perm;
}

// elementwise(transpose(x), y...) -> transpose(elementwise'(x, y'...)),
// where elementwise' runs over x's layout and reads y through maps
// composed with the permutation.
struct SinkThroughElementwise : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    OpOperand *input = sinkableInput(op);
    if (!input)
      return failure();
    Operation *transpose = input->get().getDefiningOp();
    SmallVector<int64_t> perm = *transposePermutation(transpose);
    Value source = transposeSource(transpose);
    // Old loop j is the source's dimension perm[j].
    AffineMap loops = AffineMap::getPermutationMap(perm, getContext());
    linalg::GenericOp relaid =
        relayout(rewriter, op, loops, extentsOf(rewriter, op.getLoc(), source),
                 input, source);
    rewriter.replaceOp(
        op, createTranspose(rewriter, op.getLoc(), relaid.getResult(0), perm));
    return success();
  }
};

// generic(transpose(x)) -> generic reading x through a permuted map, for
// the generics the transpose cannot sink through (reductions, broadcasting
// reads).
struct FoldIntoConsumer : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (sinkableInput(op) || transposePermutation(op))
      return failure();
    for (OpOperand *input : op.getDpsInputOperands()) {
      Operation *transpose = input->get().getDefiningOp();
      std::optional<SmallVector<int64_t>> perm =
          transposePermutation(transpose);
      if (!perm)
        continue;
      // The transpose's element r is its source's element s with
      // s[perm[j]] = r[j]: the source's index k is the old map's result
      // inv[k].
      AffineMap map = op.getMatchingIndexingMap(input);
      SmallVector<AffineExpr> results;
      for (int64_t j : invertPermutationVector(*perm))
        results.push_back(map.getResult(j));
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      maps[input->getOperandNumber()] = AffineMap::get(
          map.getNumDims(), map.getNumSymbols(), results, getContext());
      Value source = transposeSource(transpose);
      rewriter.modifyOpInPlace(op, [&] {
        input->set(source);
        op.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      });
      return success();
    }
    return failure();
  }
};

// transpose(transpose(x)) -> x, or one transpose.
struct ComposeTransposes : RewritePattern {
  ComposeTransposes(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> outer = transposePermutation(op);
    if (!outer)
      return failure();
    Operation *producer = transposeSource(op).getDefiningOp();
    std::optional<SmallVector<int64_t>> inner = transposePermutation(producer);
    if (!inner)
      return failure();
    SmallVector<int64_t> perm = applyPermutation(*inner, *outer);
    Value source = transposeSource(producer);
    if (isIdentityPermutation(perm))
      rewriter.replaceOp(op, source);
    else
      rewriter.replaceOp(op,
                         createTranspose(rewriter, op->getLoc(), source, perm));
    return success();
  }
};

// concat(transpose(a), transpose(b), ...) -> transpose(concat'(a, b, ...)),
// every operand transposed alike, joined along the concatenated dimension
// in their layout (DenseNet's and Inception's channel concatenations of
// channels-last convolutions).
struct SinkThroughConcat : OpRewritePattern<tensor::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    if (!concat.getResultType().hasStaticShape())
      return failure();
    std::optional<SmallVector<int64_t>> perm;
    SmallVector<Value> sources;
    for (Value input : concat.getInputs()) {
      Operation *transpose = input.getDefiningOp();
      std::optional<SmallVector<int64_t>> p = layoutPermutation(transpose);
      if (!p || (perm && *p != *perm))
        return failure();
      perm = p;
      sources.push_back(transposeSource(transpose));
    }
    Value joined = tensor::ConcatOp::create(rewriter, concat.getLoc(),
                                            (*perm)[concat.getDim()], sources);
    rewriter.replaceOp(
        concat, createTranspose(rewriter, concat.getLoc(), joined, *perm));
    return success();
  }
};

// extract_slice(transpose(x)) -> transpose(extract_slice'(x)), the slice's
// offsets and sizes in x's order (a channel split).
struct SinkThroughExtractSlice : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    Operation *transpose = slice.getSource().getDefiningOp();
    std::optional<SmallVector<int64_t>> perm = layoutPermutation(transpose);
    RankedTensorType type = slice.getResultType();
    if (!perm || type.getRank() != slice.getSourceType().getRank() ||
        !type.hasStaticShape() || !slice.getOffsets().empty() ||
        !slice.hasUnitStride())
      return failure();
    SmallVector<int64_t> inv = invertPermutationVector(*perm);
    SmallVector<OpFoldResult> offsets, sizes,
        strides(type.getRank(), rewriter.getIndexAttr(1));
    for (int64_t k = 0; k < type.getRank(); ++k) {
      offsets.push_back(
          rewriter.getIndexAttr(slice.getStaticOffsets()[inv[k]]));
      sizes.push_back(rewriter.getIndexAttr(type.getDimSize(inv[k])));
    }
    Value cut = tensor::ExtractSliceOp::create(rewriter, slice.getLoc(),
                                               transposeSource(transpose),
                                               offsets, sizes, strides);
    rewriter.replaceOp(slice,
                       createTranspose(rewriter, slice.getLoc(), cut, *perm));
    return success();
  }
};

// expand_shape(transpose(x)) -> transpose'(expand_shape'(x)): each
// dimension splits the same way in x's layout (a channel shuffle's
// [N, C, H, W] -> [N, G, C / G, H, W] of a channels-last result).
struct SinkThroughExpand : OpRewritePattern<tensor::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExpandShapeOp expand,
                                PatternRewriter &rewriter) const override {
    Operation *transpose = expand.getSrc().getDefiningOp();
    std::optional<SmallVector<int64_t>> perm = layoutPermutation(transpose);
    RankedTensorType type = expand.getResultType();
    if (!perm || !type.hasStaticShape())
      return failure();
    SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
    SmallVector<int64_t> inv = invertPermutationVector(*perm);
    // x's dimension k splits as the transpose's dimension inv[k] does.
    SmallVector<ReassociationIndices> sourceGroups;
    SmallVector<int64_t> shape, start(perm->size());
    for (int64_t k = 0, e = perm->size(); k < e; ++k) {
      start[k] = static_cast<int64_t>(shape.size());
      ReassociationIndices group;
      for (int64_t d : groups[inv[k]]) {
        group.push_back(static_cast<int64_t>(shape.size()));
        shape.push_back(type.getDimSize(d));
      }
      sourceGroups.push_back(group);
    }
    SmallVector<int64_t> newPerm;
    for (auto [j, group] : llvm::enumerate(groups))
      for (size_t t = 0; t < group.size(); ++t)
        newPerm.push_back(start[(*perm)[j]] + static_cast<int64_t>(t));
    Value split = tensor::ExpandShapeOp::create(
        rewriter, expand.getLoc(),
        RankedTensorType::get(shape, type.getElementType()),
        transposeSource(transpose), sourceGroups);
    rewriter.replaceOp(expand, isIdentityPermutation(newPerm)
                                   ? split
                                   : createTranspose(rewriter, expand.getLoc(),
                                                     split, newPerm));
    return success();
  }
};

// collapse_shape(transpose(x)) -> transpose'(collapse'(within(x))): the
// collapse's groups taken in the order they lie in x, each one's
// dimensions first brought together in its order by a transpose within
// them (`within`, a channel shuffle's own permutation), so what is left of
// the transpose moves whole groups and keeps moving down, toward a
// transpose it cancels with: the next convolution's, or the one a ViT's
// patch embedding makes of its flattened channels-last result (no
// transpose left at all).
struct SinkThroughCollapse : OpRewritePattern<tensor::CollapseShapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::CollapseShapeOp collapse,
                                PatternRewriter &rewriter) const override {
    Operation *transpose = collapse.getSrc().getDefiningOp();
    std::optional<SmallVector<int64_t>> perm = layoutPermutation(transpose);
    if (!perm || !collapse.getSrcType().hasStaticShape())
      return failure();
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    // Groups in the order of their first dimension in x.
    SmallVector<int64_t> order(groups.size());
    std::iota(order.begin(), order.end(), 0);
    auto first = [&](int64_t g) {
      int64_t m = INT64_MAX;
      for (int64_t d : groups[g])
        m = std::min(m, (*perm)[d]);
      return m;
    };
    llvm::stable_sort(
        order, [&](int64_t a, int64_t b) { return first(a) < first(b); });
    SmallVector<int64_t> within, outer(groups.size());
    SmallVector<ReassociationIndices> newGroups;
    for (auto [position, g] : llvm::enumerate(order)) {
      outer[g] = static_cast<int64_t>(position);
      ReassociationIndices group;
      for (int64_t d : groups[g]) {
        group.push_back(static_cast<int64_t>(within.size()));
        within.push_back((*perm)[d]);
      }
      newGroups.push_back(group);
    }
    if (isIdentityPermutation(outer))
      return failure();
    Location loc = collapse.getLoc();
    Value source = transposeSource(transpose);
    if (!isIdentityPermutation(within))
      source = createTranspose(rewriter, loc, source, within);
    Value collapsed =
        tensor::CollapseShapeOp::create(rewriter, loc, source, newGroups);
    rewriter.replaceOp(collapse,
                       createTranspose(rewriter, loc, collapsed, outer));
    return success();
  }
};

// pad(transpose(x)) -> transpose(pad'(x)), pad' padding the same
// dimensions in x's order.
struct SinkThroughPad : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    Operation *transpose = pad.getSource().getDefiningOp();
    std::optional<SmallVector<int64_t>> perm = transposePermutation(transpose);
    Value padValue = pad.getConstantPaddingValue();
    if (!perm || !padValue || !pad.getLow().empty() || !pad.getHigh().empty())
      return failure();
    Value source = transposeSource(transpose);
    auto sourceType = cast<RankedTensorType>(source.getType());
    SmallVector<int64_t> inv = invertPermutationVector(*perm);
    SmallVector<OpFoldResult> low, high;
    SmallVector<int64_t> shape;
    for (int64_t k = 0; k < sourceType.getRank(); ++k) {
      int64_t l = pad.getStaticLow()[inv[k]], h = pad.getStaticHigh()[inv[k]];
      low.push_back(rewriter.getIndexAttr(l));
      high.push_back(rewriter.getIndexAttr(h));
      shape.push_back(sourceType.isDynamicDim(k)
                          ? ShapedType::kDynamic
                          : sourceType.getDimSize(k) + l + h);
    }
    Value padded = tensor::PadOp::create(
        rewriter, pad.getLoc(),
        RankedTensorType::get(shape, sourceType.getElementType()), source, low,
        high, padValue, pad.getNofold());
    rewriter.replaceOp(pad,
                       createTranspose(rewriter, pad.getLoc(), padded, *perm));
    return success();
  }
};

// transpose(broadcast(y)) -> broadcast'(y): a generic none of whose inputs
// spans the result (a bias spread over an image) computes its result in
// any layout at the same cost, so it writes the transposed one.
struct TransposeBroadcast : RewritePattern {
  TransposeBroadcast(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> perm = transposePermutation(op);
    if (!perm)
      return failure();
    Value source = transposeSource(op);
    if (!source.hasOneUse())
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    // The result's extents: the transpose's own init's (dynamic ones read
    // off it, issue 19).
    SmallVector<OpFoldResult> sizes =
        extentsOf(rewriter, op->getLoc(),
                  cast<linalg::LinalgOp>(op).getDpsInitOperand(0)->get());
    if (auto fill = source.getDefiningOp<linalg::FillOp>()) {
      Value init = tensor::EmptyOp::create(rewriter, op->getLoc(), sizes,
                                           resultType.getElementType());
      rewriter.replaceOp(op, linalg::FillOp::create(rewriter, op->getLoc(),
                                                    fill.getInputs(), init)
                                 .getResult(0));
      return success();
    }
    auto generic = source.getDefiningOp<linalg::GenericOp>();
    if (!generic || !isLayoutFree(generic) ||
        llvm::any_of(generic.getDpsInputOperands(), [&](OpOperand *input) {
          return generic.getMatchingIndexingMap(input).getNumResults() ==
                 generic.getNumLoops();
        }))
      return failure();
    // The result's element r is the broadcast's element s with s[k] =
    // r[inv[k]].
    AffineMap loops = AffineMap::getPermutationMap(
        invertPermutationVector(*perm), getContext());
    rewriter.replaceOp(op,
                       relayout(rewriter, generic, loops, sizes).getResult(0));
    return success();
  }
};

// transpose(constant) -> constant, the bytes permuted at compile time
// (upstream's linalg constant folding does not read dense_resource blobs,
// the form model weights take).
struct FoldConstantTranspose : RewritePattern {
  FoldConstantTranspose(MLIRContext *ctx, int64_t maxBytes)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/3, ctx),
        MaxBytes(maxBytes) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    std::optional<SmallVector<int64_t>> perm = transposePermutation(op);
    if (!perm)
      return failure();
    // A reshape of a constant (a depthwise filter's [C, 1, KH, KW]
    // collapsed) has the same bytes under the reshaped type.
    Value source = transposeSource(op);
    auto sourceType = cast<RankedTensorType>(source.getType());
    if (auto collapse = source.getDefiningOp<tensor::CollapseShapeOp>())
      source = collapse.getSrc();
    else if (auto expand = source.getDefiningOp<tensor::ExpandShapeOp>())
      source = expand.getSrc();
    auto constant = source.getDefiningOp<arith::ConstantOp>();
    if (!constant)
      return failure();
    auto attr = dyn_cast<ElementsAttr>(constant.getValue());
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (!attr || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat())
      return failure();
    if (auto dense = dyn_cast<DenseElementsAttr>(attr);
        dense && dense.isSplat()) {
      rewriter.replaceOp(op, arith::ConstantOp::create(
                                 rewriter, op->getLoc(),
                                 cast<TypedAttr>(dense.resizeSplat(type))));
      return success();
    }
    unsigned bits = type.getElementTypeBitWidth();
    int64_t elementBytes = bits / 8;
    if (bits % 8 != 0 || type.getNumElements() * elementBytes > MaxBytes)
      return failure();
    std::optional<ArrayRef<char>> bytes = constantBytes(attr, elementBytes);
    if (!bytes || !sourceType.hasStaticShape())
      return failure();
    SmallVector<int64_t> strides = computeStrides(sourceType.getShape());
    // Walks the result in order; result index r reads source offset
    // sum over j of r[j] * strides[perm[j]].
    int64_t rank = type.getRank();
    SmallVector<int64_t> index(rank, 0);
    std::vector<char> result(bytes->size());
    int64_t offset = 0;
    for (int64_t i = 0, n = type.getNumElements(); i < n; ++i) {
      std::memcpy(result.data() + i * elementBytes,
                  bytes->data() + offset * elementBytes, elementBytes);
      for (int64_t j = rank - 1; j >= 0; --j) {
        offset += strides[(*perm)[j]];
        if (++index[j] < type.getDimSize(j))
          break;
        offset -= index[j] * strides[(*perm)[j]];
        index[j] = 0;
      }
    }
    ElementsAttr folded;
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
      folded = DenseResourceElementsAttr::get(
          type, (resource.getRawHandle().getKey() + "_t").str(),
          HeapAsmResourceBlob::allocateAndCopyWithAlign(result,
                                                        /*align=*/64));
    else
      folded = DenseElementsAttr::getFromRawBuffer(type, result);
    rewriter.replaceOp(op, arith::ConstantOp::create(rewriter, op->getLoc(),
                                                     cast<TypedAttr>(folded)));
    return success();
  }
  int64_t MaxBytes;
};

} // namespace

void populateTransposePropagationPatterns(RewritePatternSet &patterns,
                                          int64_t maxConstantBytes) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<SinkThroughElementwise, FoldIntoConsumer, SinkThroughPad>(ctx);
  patterns.add<ComposeTransposes, TransposeBroadcast>(ctx);
  patterns.add<SinkThroughConcat, SinkThroughExtractSlice, SinkThroughExpand,
               SinkThroughCollapse>(ctx);
  patterns.add<FoldConstantTranspose>(ctx, maxConstantBytes);
}

} // namespace kiln
