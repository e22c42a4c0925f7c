//===- PadAsGather.cpp - tensor.pad as an elementwise gather --------------===//
//
// Tiling a tensor.pad yields, per tile, an scf.if between a generated tile
// of padding and a pad of a source slice: both bufferize to temporaries the
// size of the tile, which a kernel cannot allocate. Written as a
// linalg.generic over the padded shape that loads the source element when
// the index is inside it and computes the padding value otherwise, a pad is
// an elementwise op: tiled to one element per thread like any other, with
// no temporary.
//
//===----------------------------------------------------------------------===//

#include "compiler/codegen/gpu/GpuCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace kiln {

FailureOr<linalg::GenericOp> rewritePadAsGather(RewriterBase &rewriter,
                                                tensor::PadOp pad) {
  RankedTensorType type = pad.getResultType();
  RankedTensorType sourceType = pad.getSourceType();
  // Padding given as constant values counts as static.
  std::optional<SmallVector<int64_t>> low =
      getConstantIntValues(pad.getMixedLowPad());
  if (!type.hasStaticShape() || !sourceType.hasStaticShape() || !low)
    return rewriter.notifyMatchFailure(pad, "dynamic shape or padding");
  Location loc = pad.getLoc();
  int64_t rank = type.getRank();
  rewriter.setInsertionPoint(pad);
  Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                       type.getElementType());
  SmallVector<AffineMap> maps = {
      rewriter.getMultiDimIdentityMap(static_cast<unsigned>(rank))};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Block &padBody = pad.getRegion().front();
  auto build = [&](OpBuilder &b, Location loc, ValueRange) {
    SmallVector<Value> index, sourceIndex;
    Value inside;
    for (int64_t d = 0; d < rank; ++d) {
      index.push_back(linalg::IndexOp::create(b, loc, d));
      if ((*low)[d] == 0 && type.getDimSize(d) == sourceType.getDimSize(d)) {
        sourceIndex.push_back(index.back());
        continue;
      }
      // index - low, compared unsigned: one compare checks both bounds.
      Value shifted = arith::SubIOp::create(
          b, loc, index.back(),
          arith::ConstantIndexOp::create(b, loc, (*low)[d]));
      sourceIndex.push_back(shifted);
      Value inBounds = arith::CmpIOp::create(
          b, loc, arith::CmpIPredicate::ult, shifted,
          arith::ConstantIndexOp::create(b, loc, sourceType.getDimSize(d)));
      inside =
          inside ? arith::AndIOp::create(b, loc, inside, inBounds) : inBounds;
    }
    auto load = [&](OpBuilder &b, Location loc) {
      scf::YieldOp::create(b, loc,
                           ValueRange{tensor::ExtractOp::create(
                               b, loc, pad.getSource(), sourceIndex)});
    };
    // The padding value, computed from the element's index as the pad's
    // region does.
    auto padding = [&](OpBuilder &b, Location loc) {
      IRMapping mapping;
      mapping.map(padBody.getArguments(), index);
      for (Operation &op : padBody.without_terminator())
        b.clone(op, mapping);
      auto yield = cast<tensor::YieldOp>(padBody.getTerminator());
      return mapping.lookupOrDefault(yield.getValue());
    };
    Value element;
    if (!inside) {
      // Nothing is padded (all padding zero): a copy.
      element = tensor::ExtractOp::create(b, loc, pad.getSource(), sourceIndex);
    } else {
      element =
          scf::IfOp::create(b, loc, inside, load,
                            [&](OpBuilder &b, Location loc) {
                              scf::YieldOp::create(b, loc, padding(b, loc));
                            })
              .getResult(0);
    }
    linalg::YieldOp::create(b, loc, element);
  };
  auto generic =
      linalg::GenericOp::create(rewriter, loc, TypeRange{type}, ValueRange{},
                                ValueRange{init}, maps, iterators, build);
  rewriter.replaceOp(pad, generic.getResults());
  return generic;
}

LogicalResult rewritePadsAsGathers(func::FuncOp func) {
  SmallVector<tensor::PadOp> pads;
  func.walk([&](tensor::PadOp pad) { pads.push_back(pad); });
  IRRewriter rewriter(func.getContext());
  for (tensor::PadOp pad : pads)
    if (failed(rewritePadAsGather(rewriter, pad)))
      return pad.emitError("the cuda target needs a static tensor.pad");
  return success();
}

} // namespace kiln
