//===- ContractionMatch.cpp - Dispatches the GEMM kernels take ------------===//

#include "compiler/codegen/gpu/ContractionMatch.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/RowVariants.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace kiln {

SmallVector<int64_t> Contraction::sizes(ArrayRef<int64_t> dims) const {
  SmallVector<int64_t> result;
  for (int64_t dim : dims)
    result.push_back(Ranges[dim]);
  return result;
}

// The rows a dynamic outermost m loop is assumed to hold, for choosing
// tiles: kAssumedOuterRows images, at least 1024 tokens.
constexpr int64_t kAssumedMinRows = 1024;

FailureOr<Contraction> matchContraction(func::FuncOp func, bool dynamicRows) {
  // Both GEMM kernels store through a transposing epilogue.
  FailureOr<KernelDispatch> dispatch = matchKernelDispatch(
      func, /*permutedStore=*/true, /*dynamicRanges=*/dynamicRows);
  if (failed(dispatch))
    return failure();
  Contraction c;
  static_cast<KernelDispatch &>(c) = *dispatch;
  linalg::LinalgOp op = c.Op;
  if (!linalg::isaContractionOpInterface(op) &&
      !linalg::isaConvolutionOpInterface(op))
    return failure();
  Value lhs = op.getDpsInputOperand(0)->get();
  if (auto pad = lhs.getDefiningOp<tensor::PadOp>()) {
    if (!isZeroWindowPad(pad,
                         op.getMatchingIndexingMap(op.getDpsInputOperand(0))))
      return failure();
    c.LhsPadLow = llvm::to_vector(pad.getStaticLow());
    lhs = pad.getSource();
  }
  c.Lhs = bindingOf(lhs);
  c.Rhs = bindingOf(op.getDpsInputOperand(1)->get());
  // Shared-memory tiles are addressed in whole bytes.
  auto byteSized = [](Value v) {
    return cast<MemRefType>(v.getType()).getElementTypeBitWidth() % 8 == 0;
  };
  if (!c.Lhs || !c.Rhs || !byteSized(c.Lhs) || !byteSized(c.Rhs))
    return failure();

  AffineMap mapA = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap mapB = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  AffineMap mapC = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!mapB.isProjectedPermutation() || !mapC.isProjectedPermutation())
    return failure();
  // Each loop appears in A at most once; `own` marks loops that are an
  // index of A by themselves (not part of a window).
  unsigned loops = op.getNumLoops();
  SmallVector<unsigned> inA(loops, 0);
  SmallVector<bool> own(loops, false);
  for (AffineExpr e : mapA.getResults()) {
    SmallVector<unsigned> dims;
    if (!collectWindowLoops(e, dims))
      return failure();
    for (unsigned dim : dims)
      ++inA[dim];
    if (auto dim = dyn_cast<AffineDimExpr>(e))
      own[dim.getPosition()] = true;
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d = 0; d < loops; ++d) {
    bool a = inA[d] == 1, b = mapB.isFunctionOfDim(d),
         out = mapC.isFunctionOfDim(d);
    if (inA[d] > 1)
      return failure();
    if (iterators[d] == utils::IteratorType::reduction ? out || !a || !b
                                                       : !out || (!a && !b))
      return failure();
  }
  for (AffineExpr e : mapC.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    bool a = inA[d] != 0, b = mapB.isFunctionOfDim(d);
    (a && b ? c.BatchDims : a ? c.MDims : c.NDims).push_back(d);
  }
  for (AffineExpr e : mapB.getResults()) {
    unsigned d = cast<AffineDimExpr>(e).getPosition();
    if (iterators[d] == utils::IteratorType::reduction)
      c.KDims.push_back(d);
  }
  // Without a reduction over input channels (an index of A by itself) it is
  // a depthwise convolution: a window kernel's, not a GEMM.
  if (c.MDims.empty() || c.NDims.empty() ||
      !llvm::any_of(c.KDims, [&](int64_t d) { return own[d]; }))
    return failure();
  auto product = [&](ArrayRef<int64_t> dims) {
    int64_t p = 1;
    for (int64_t size : c.sizes(dims))
      p *= size;
    return p;
  };
  // A dynamic loop only as the outermost m loop, not permuted on store.
  int64_t dynamicLoops = llvm::count_if(c.Ranges, ShapedType::isDynamic);
  if (dynamicLoops != 0) {
    if (dynamicLoops != 1 ||
        !ShapedType::isDynamic(c.Ranges[c.MDims.front()]) || c.OutPermutation)
      return failure();
    c.DynamicM = true;
    c.MPerOuter = product(ArrayRef<int64_t>(c.MDims).drop_front());
    c.M = std::max(kAssumedOuterRows * c.MPerOuter, kAssumedMinRows);
    // A variant for calls of a bounded outer extent (kiln-row-variants).
    if (auto assumed = func->getAttrOfType<IntegerAttr>(kAssumedOuterRowsAttr))
      c.M = assumed.getInt() * c.MPerOuter;
  }
  c.Batch = product(c.BatchDims);
  if (!c.DynamicM)
    c.M = product(c.MDims);
  c.N = product(c.NDims);
  c.K = product(c.KDims);
  c.ImplicitGemm = !mapA.isProjectedPermutation();
  return c;
}

SmallVector<Value> contractionLoops(OpBuilder &builder, Location loc,
                                    const Contraction &c, Value batch, Value m,
                                    Value n, Value k) {
  SmallVector<Value> loops(linalg::LinalgOp(c.Op).getNumLoops(),
                           arith::ConstantIndexOp::create(builder, loc, 0));
  auto assign = [&](ArrayRef<int64_t> dims, Value linear) {
    if (!linear)
      return;
    for (auto [dim, value] :
         llvm::zip(dims, delinearize(builder, loc, linear, c.sizes(dims))))
      loops[dim] = value;
  };
  assign(c.BatchDims, batch);
  assign(c.MDims, m);
  assign(c.NDims, n);
  assign(c.KDims, k);
  return loops;
}

bool isLhsDimPadded(const Contraction &c, unsigned dim) {
  if (c.LhsPadLow.empty())
    return false;
  auto padded = cast<ShapedType>(
      linalg::LinalgOp(c.Op).getDpsInputOperand(0)->get().getType());
  return c.LhsPadLow[dim] != 0 ||
         padded.getDimSize(dim) !=
             cast<MemRefType>(c.Lhs.getType()).getDimSize(dim);
}

LhsAccess lhsAccess(OpBuilder &builder, Location loc, const Contraction &c,
                    ArrayRef<Value> indices) {
  LhsAccess access{llvm::to_vector(indices), nullptr};
  if (c.LhsPadLow.empty())
    return access;
  auto type = cast<MemRefType>(c.Lhs.getType());
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  for (size_t i = 0; i < access.Indices.size(); ++i) {
    Value &index = access.Indices[i];
    int64_t size = type.getDimSize(i);
    if (!isLhsDimPadded(c, i))
      continue;
    // Unsigned: an index left of the padding wraps past the size.
    Value shifted = arith::SubIOp::create(
        builder, loc, index,
        arith::ConstantIndexOp::create(builder, loc, c.LhsPadLow[i]));
    Value inside = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, shifted,
        arith::ConstantIndexOp::create(builder, loc, size));
    index = arith::SelectOp::create(builder, loc, inside, shifted, zero);
    access.InBounds =
        access.InBounds
            ? arith::AndIOp::create(builder, loc, access.InBounds, inside)
            : inside;
  }
  return access;
}

bool isInnermostIn(const Contraction &c, OpOperand *operand,
                   ArrayRef<int64_t> dims) {
  auto innermost = dyn_cast<AffineDimExpr>(linalg::LinalgOp(c.Op)
                                               .getMatchingIndexingMap(operand)
                                               .getResults()
                                               .back());
  return innermost &&
         static_cast<int64_t>(innermost.getPosition()) == dims.back();
}

Value rowCount(OpBuilder &builder, Location loc, const Contraction &c) {
  if (!c.DynamicM)
    return nullptr;
  // Out's dimension indexed by the outermost m loop (Out is stored as the
  // root's output is: no permutation).
  AffineMap mapC = linalg::LinalgOp(c.Op).getMatchingIndexingMap(
      linalg::LinalgOp(c.Op).getDpsInitOperand(0));
  std::optional<unsigned> position =
      mapC.getResultPosition(builder.getAffineDimExpr(c.MDims.front()));
  Value outer = memref::DimOp::create(builder, loc, c.Out, *position);
  // Affine, so the grid program reads it (kiln-distribute-to-workgroups).
  AffineMap times =
      AffineMap::get(0, 1, builder.getAffineSymbolExpr(0) * c.MPerOuter);
  return affine::AffineApplyOp::create(builder, loc, times, ValueRange{outer});
}

scf::ForallOp createWorkgroupLoop(OpBuilder &builder, Location loc,
                                  const Contraction &c, int64_t rows,
                                  int64_t columns, Value rowCount) {
  if (!rowCount)
    return createBlockLoop(builder, loc, {c.Batch, c.M, c.N},
                           {1, rows, columns});
  return createBlockLoop(
      builder, loc,
      {builder.getIndexAttr(c.Batch), rowCount, builder.getIndexAttr(c.N)},
      {1, rows, columns});
}

} // namespace kiln
