//===- PadConvChannels.cpp - A few input channels padded to four ----------===//
//
// The GPU's convolution kernels copy a channels-last input into shared
// memory along its channels with cp.async, 16, 8 or 4 bytes at a time.
// A network's first convolution reads 3 (RGB) channels, 6 bytes of f16 or
// 12 of f32 per window position, which no such copy fits, so its kernel
// gathered the input an element at a time: ResNet50's 7x7 stem at batch 32
// in f16 took 180 µs on an H100, a tenth of the model. With a fourth
// channel of zeros in the input, and zero weights for it in the filter,
// the convolution computes the same sums (each added product is 0 x 0)
// and copies each window position whole (8 bytes of f16, 16 of f32); K
// grows by a third (147 -> 196 for the 7x7 stem).
//
// The channel pad is a dispatch of its own, next to the layout change
// that precedes it on the GPU (NCHW -> NHWC). A spatial pad by zero that
// the convolution read goes around the channel pad, so the convolution
// still reads it in place; one that comes before that layout change (a
// transpose of a pad, as the channels-last rewrite leaves an ONNX stem)
// moves after it first.
//
//===----------------------------------------------------------------------===//

#include "compiler/Passes.h"
#include "compiler/globalopt/ConstantBytes.h"
#include "compiler/globalopt/Transposes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

namespace kiln {
#define GEN_PASS_DEF_PADCONVCHANNELS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// Channels a convolution's input is padded to when it has fewer.
constexpr int64_t kMinChannels = 4;

// `value` padded with zeros at the end of its last dimension to `type`.
Value padLast(OpBuilder &b, Location loc, Value value, RankedTensorType type) {
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  return tensor::createPadHighOp(type, value, zero, /*nofold=*/false, loc, b);
}

// The HWCF filter constant `attr` with zero weights for channels C..C' - 1
// (`type` is H x W x C' x F), if its bytes can be read.
std::optional<ElementsAttr> padFilterConstant(ElementsAttr attr,
                                              RankedTensorType type) {
  auto from = cast<RankedTensorType>(attr.getType());
  int64_t bytes = from.getElementTypeBitWidth() / 8;
  std::optional<ArrayRef<char>> data = constantBytes(attr, bytes);
  if (!data)
    return std::nullopt;
  // Each (h, w, c) row holds F elements; rows of the new channels stay 0.
  int64_t f = from.getDimSize(3), c = from.getDimSize(2),
          paddedC = type.getDimSize(2);
  int64_t rowBytes = f * bytes;
  std::vector<char> result(type.getNumElements() * bytes, 0);
  for (int64_t hw = 0; hw < from.getDimSize(0) * from.getDimSize(1); ++hw)
    std::memcpy(result.data() + hw * paddedC * rowBytes,
                data->data() + hw * c * rowBytes, c * rowBytes);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
    return DenseResourceElementsAttr::get(
        type, (resource.getRawHandle().getKey() + "_channels").str(),
        HeapAsmResourceBlob::allocateAndCopyWithAlign(result, /*align=*/64));
  return DenseElementsAttr::getFromRawBuffer(type, result);
}

// Whether `pad` is static and pads by a constant zero.
bool isStaticZeroPad(tensor::PadOp pad) {
  Value value = pad.getConstantPaddingValue();
  return value && matchPattern(value, m_AnyZeroFloat()) &&
         pad.getLow().empty() && pad.getHigh().empty();
}

// A zero pad of the convolution input's batch and window dimensions (not
// its channels), and what it pads.
struct SpatialPad {
  Value Source;
  SmallVector<int64_t> Low, High;
};

// `input` as a spatial zero pad of something, looking through one
// transpose (transpose(pad(x)) is pad'(transpose(x)), the pad's amounts
// permuted); none if it is not one.
std::optional<SpatialPad> spatialPadOf(OpBuilder &b, Value input) {
  Operation *def = input.getDefiningOp();
  std::optional<SmallVector<int64_t>> perm;
  if (def && (perm = transposePermutation(def)))
    def = def->getOperand(0).getDefiningOp();
  auto pad = dyn_cast_or_null<tensor::PadOp>(def);
  if (!pad || !isStaticZeroPad(pad))
    return std::nullopt;
  SpatialPad result;
  result.Source = pad.getSource();
  result.Low.assign(pad.getStaticLow().begin(), pad.getStaticLow().end());
  result.High.assign(pad.getStaticHigh().begin(), pad.getStaticHigh().end());
  if (perm) {
    result.Low = applyPermutation(result.Low, *perm);
    result.High = applyPermutation(result.High, *perm);
  }
  if (result.Low.size() != 4 || result.Low[3] != 0 || result.High[3] != 0)
    return std::nullopt;
  // Only now that the pad is moved is the transpose made (none left
  // unused).
  if (perm)
    result.Source = createTranspose(b, pad.getLoc(), result.Source, *perm);
  return result;
}

void padChannels(linalg::Conv2DNhwcHwcfOp conv) {
  Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  auto filterType = dyn_cast<RankedTensorType>(filter.getType());
  if (!inputType || !filterType || !inputType.hasStaticShape() ||
      !filterType.hasStaticShape() ||
      !isa<FloatType>(inputType.getElementType()) ||
      inputType.getElementTypeBitWidth() % 8 != 0 ||
      filterType.getElementTypeBitWidth() % 8 != 0)
    return;
  int64_t channels = inputType.getDimSize(3);
  if (channels >= kMinChannels)
    return;

  OpBuilder b(conv);
  Location loc = conv.getLoc();
  auto withChannels = [&](RankedTensorType type, unsigned dim) {
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = kMinChannels;
    return type.clone(shape);
  };
  // The input: a spatial pad by zero is redone around the padded channels.
  Value newInput;
  if (std::optional<SpatialPad> spatial = spatialPadOf(b, input)) {
    Value channelsPadded = padLast(
        b, loc, spatial->Source,
        withChannels(cast<RankedTensorType>(spatial->Source.getType()), 3));
    SmallVector<OpFoldResult> low =
        getAsIndexOpFoldResult(b.getContext(), spatial->Low);
    SmallVector<OpFoldResult> high =
        getAsIndexOpFoldResult(b.getContext(), spatial->High);
    Value zero = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(inputType.getElementType()));
    newInput = tensor::PadOp::create(b, loc, withChannels(inputType, 3),
                                     channelsPadded, low, high, zero);
  } else {
    newInput = padLast(b, loc, input, withChannels(inputType, 3));
  }
  // The filter: a constant padded at compile time, anything else by a pad
  // of its channel dimension.
  RankedTensorType newFilterType = withChannels(filterType, 2);
  Value newFilter;
  ElementsAttr weights;
  if (matchPattern(filter, m_Constant(&weights)))
    if (std::optional<ElementsAttr> folded =
            padFilterConstant(weights, newFilterType))
      newFilter = arith::ConstantOp::create(b, loc, *folded);
  if (!newFilter) {
    Value zero = arith::ConstantOp::create(
        b, loc, b.getZeroAttr(newFilterType.getElementType()));
    SmallVector<OpFoldResult> low(4, b.getIndexAttr(0));
    SmallVector<OpFoldResult> high(4, b.getIndexAttr(0));
    high[2] = b.getIndexAttr(kMinChannels - channels);
    newFilter =
        tensor::PadOp::create(b, loc, newFilterType, filter, low, high, zero);
  }
  conv->setOperand(0, newInput);
  conv->setOperand(1, newFilter);
}

struct PadConvChannelsPass : impl::PadConvChannelsBase<PadConvChannelsPass> {
  void runOnOperation() override {
    SmallVector<linalg::Conv2DNhwcHwcfOp> convs;
    getOperation()->walk(
        [&](linalg::Conv2DNhwcHwcfOp conv) { convs.push_back(conv); });
    for (linalg::Conv2DNhwcHwcfOp conv : convs)
      padChannels(conv);
  }
};

} // namespace
} // namespace kiln
