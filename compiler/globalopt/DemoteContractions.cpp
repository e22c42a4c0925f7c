//===- DemoteContractions.cpp - f32 matmuls and convolutions in halves ----===//
//
// --precision=f16 and bf16 (as trtexec's --fp16 and --bf16): every
// contraction and convolution that multiplies f32 by f32 into an f32
// accumulator multiplies the operands rounded to the half type instead,
// still accumulating in f32, so the GPU back ends run it on tensor cores.
// Everything else (softmax, normalizations, reductions, elementwise ops)
// and the function's inputs and results keep their types.
//
// A constant operand (a weight) is rounded at compile time, dense_resource
// blobs included; another is rounded by an elementwise truncf, which
// elementwise fusion then merges into the op that computes it. A padded
// operand is rounded before the pad, so the pad still joins the
// convolution's dispatch on GPUs.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "compiler/globalopt/ConstantBytes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {
#define GEN_PASS_DEF_DEMOTECONTRACTIONS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// The payload is `out + a * b` on its f32 block arguments, in any order.
bool isF32MultiplyAccumulate(linalg::LinalgOp op) {
  if (op->getNumRegions() != 1 || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return false;
  Block &body = op->getRegion(0).front();
  if (body.getNumArguments() != 3 ||
      !llvm::all_of(body.getArgumentTypes(), [](Type t) { return t.isF32(); }))
    return false;
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  BlockArgument out = body.getArgument(2);
  Value product = add.getLhs() == out   ? add.getRhs()
                  : add.getRhs() == out ? add.getLhs()
                                        : Value();
  auto mul = product ? product.getDefiningOp<arith::MulFOp>() : nullptr;
  if (!mul)
    return false;
  BlockArgument a = body.getArgument(0), b = body.getArgument(1);
  return (mul.getLhs() == a && mul.getRhs() == b) ||
         (mul.getLhs() == b && mul.getRhs() == a);
}

APInt roundedBits(const APFloat &value, FloatType type) {
  APFloat rounded = value;
  bool losesInfo;
  rounded.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
  return rounded.bitcastToAPInt();
}

// `attr` (f32) rounded to `type`'s elements, if its values can be read.
std::optional<ElementsAttr> roundConstant(ElementsAttr attr,
                                          RankedTensorType type) {
  auto half = cast<FloatType>(type.getElementType());
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return DenseElementsAttr::get(
          type, APFloat(half.getFloatSemantics(),
                        roundedBits(dense.getSplatValue<APFloat>(), half)));
    return dense.mapValues(
        half, [&](const APFloat &v) { return roundedBits(v, half); });
  }
  auto resource = dyn_cast<DenseResourceElementsAttr>(attr);
  std::optional<ArrayRef<char>> bytes = constantBytes(attr, 4);
  if (!resource || !bytes)
    return std::nullopt;
  std::vector<char> result(bytes->size() / 2);
  for (size_t i = 0; i < bytes->size() / 4; ++i) {
    float value;
    std::memcpy(&value, bytes->data() + 4 * i, 4);
    uint16_t bits =
        static_cast<uint16_t>(roundedBits(APFloat(value), half).getZExtValue());
    std::memcpy(result.data() + 2 * i, &bits, 2);
  }
  return DenseResourceElementsAttr::get(
      type,
      (resource.getRawHandle().getKey() + "_" + (half.isF16() ? "f16" : "bf16"))
          .str(),
      HeapAsmResourceBlob::allocateAndCopyWithAlign(result, /*align=*/64));
}

// Rounds f32 tensors to one half type, once each: q, k and v sliced from
// one tensor are rounded together, before the slices.
class Rounder {
public:
  Rounder(RewriterBase &rewriter, FloatType half)
      : Rewriter(rewriter), Half(half) {}

  // `value` rounded, placed right after it (so every later reader may use
  // it): a constant folded; an op that only moves elements (a pad by a
  // constant, a slice, a reshape, a transpose) applied to its rounded
  // source, so the rounding joins the op that computes the source and a
  // transpose can still fold into the contraction; anything else by an
  // elementwise truncf.
  Value round(Value value);

  // Replaces `op` (an f32 multiply-accumulate) by its demoted generic.
  void demote(linalg::LinalgOp op);

private:
  Value roundAfter(Value value);

  RewriterBase &Rewriter;
  FloatType Half;
  llvm::DenseMap<Value, Value> Rounded;
};

Value Rounder::round(Value value) {
  if (Value done = Rounded.lookup(value))
    return done;
  Value result = roundAfter(value);
  Rounded[value] = result;
  return result;
}

Value Rounder::roundAfter(Value value) {
  // Sources first: their roundings go right after them.
  Operation *def = value.getDefiningOp();
  auto pad = dyn_cast_if_present<tensor::PadOp>(def);
  FloatAttr padding;
  if (pad &&
      !(pad.getConstantPaddingValue() &&
        matchPattern(pad.getConstantPaddingValue(), m_Constant(&padding))))
    pad = nullptr;
  auto transpose = dyn_cast_if_present<linalg::TransposeOp>(def);
  if (transpose && !transpose.hasPureTensorSemantics())
    transpose = nullptr;
  Value source;
  if (pad || transpose ||
      isa_and_present<tensor::ExtractSliceOp, tensor::ExpandShapeOp,
                      tensor::CollapseShapeOp>(def))
    source = round(def->getOperand(0));

  OpBuilder::InsertionGuard guard(Rewriter);
  Rewriter.setInsertionPointAfterValue(value);
  Location loc = value.getLoc();
  auto type = cast<RankedTensorType>(value.getType());
  auto rounded = type.clone(Half);
  if (auto constant = dyn_cast_if_present<arith::ConstantOp>(def))
    if (auto attr = dyn_cast<ElementsAttr>(constant.getValue()))
      if (std::optional<ElementsAttr> folded = roundConstant(attr, rounded))
        return arith::ConstantOp::create(Rewriter, loc, *folded);
  if (pad) {
    Value paddingValue = arith::ConstantOp::create(
        Rewriter, loc,
        FloatAttr::get(Half, APFloat(Half.getFloatSemantics(),
                                     roundedBits(padding.getValue(), Half))));
    return tensor::PadOp::create(Rewriter, loc, rounded, source,
                                 pad.getMixedLowPad(), pad.getMixedHighPad(),
                                 paddingValue);
  }
  if (auto slice = dyn_cast_if_present<tensor::ExtractSliceOp>(def))
    return tensor::ExtractSliceOp::create(
        Rewriter, loc, rounded, source, slice.getMixedOffsets(),
        slice.getMixedSizes(), slice.getMixedStrides());
  if (auto expand = dyn_cast_if_present<tensor::ExpandShapeOp>(def))
    return tensor::ExpandShapeOp::create(Rewriter, loc, rounded, source,
                                         expand.getReassociationIndices(),
                                         expand.getMixedOutputShape());
  if (auto collapse = dyn_cast_if_present<tensor::CollapseShapeOp>(def))
    return tensor::CollapseShapeOp::create(Rewriter, loc, rounded, source,
                                           collapse.getReassociationIndices());
  // Dynamic dimensions (issue 19) take their sizes from the rounded
  // value's source: a transpose's are its input's, permuted.
  if (transpose) {
    SmallVector<OpFoldResult> sourceSizes =
        tensor::getMixedSizes(Rewriter, loc, source);
    SmallVector<OpFoldResult> sizes;
    for (int64_t d : transpose.getPermutation())
      sizes.push_back(sourceSizes[d]);
    Value init = tensor::EmptyOp::create(Rewriter, loc, sizes, Half);
    return linalg::TransposeOp::create(Rewriter, loc, source, init,
                                       transpose.getPermutation())
        ->getResult(0);
  }
  Value empty = tensor::EmptyOp::create(
      Rewriter, loc, tensor::getMixedSizes(Rewriter, loc, value), Half);
  AffineMap identity = Rewriter.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             Rewriter, loc, rounded, value, empty,
             ArrayRef<AffineMap>{identity, identity}, parallel,
             [&](OpBuilder &b, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   b, l,
                   arith::TruncFOp::create(b, l, Half, args[0]).getResult());
             })
      .getResult(0);
}

void Rounder::demote(linalg::LinalgOp op) {
  Value a = round(op.getDpsInputOperand(0)->get());
  Value b = round(op.getDpsInputOperand(1)->get());
  OpBuilder::InsertionGuard guard(Rewriter);
  Rewriter.setInsertionPoint(op);
  auto demoted = linalg::GenericOp::create(
      Rewriter, op.getLoc(), op->getResultTypes(), ValueRange{a, b},
      op.getDpsInits(), op.getIndexingMapsArray(), op.getIteratorTypesArray(),
      [&](OpBuilder &builder, Location l, ValueRange args) {
        Type f32 = builder.getF32Type();
        Value x = arith::ExtFOp::create(builder, l, f32, args[0]);
        Value y = arith::ExtFOp::create(builder, l, f32, args[1]);
        Value product = arith::MulFOp::create(builder, l, x, y);
        linalg::YieldOp::create(
            builder, l,
            arith::AddFOp::create(builder, l, args[2], product).getResult());
      });
  Rewriter.replaceOp(op, demoted->getResults());
}

struct DemoteContractionsPass
    : impl::DemoteContractionsBase<DemoteContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    FloatType half;
    if (type == "f16")
      half = Float16Type::get(context);
    else if (type == "bf16")
      half = BFloat16Type::get(context);
    else {
      getOperation()->emitError()
          << "kiln-demote-contractions: type must be f16 or bf16, not '" << type
          << "'";
      return signalPassFailure();
    }
    // In program order, each replaced after its operands are: no value
    // the rounder keeps is erased while it runs.
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if ((linalg::isaContractionOpInterface(op) ||
           linalg::isaConvolutionOpInterface(op)) &&
          op.hasPureTensorSemantics() && isF32MultiplyAccumulate(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(context);
    Rounder rounder(rewriter, half);
    for (linalg::LinalgOp op : ops)
      rounder.demote(op);
  }
};

} // namespace
} // namespace kiln
