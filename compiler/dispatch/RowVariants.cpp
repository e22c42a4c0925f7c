//===- RowVariants.cpp - GEMM kernels chosen per call by the batch --------===//

#include "compiler/dispatch/RowVariants.h"
#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln {
#define GEN_PASS_DEF_ROWVARIANTS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {

namespace {

// The fewest rows of a GEMM per index of the outer extent for variants:
// the GEMM kernels' smallest tile edge, so every bucket's kernel (one image
// at least) is still one of them.
constexpr int64_t kMinRowsPerOuter = 32;

} // namespace

ArrayRef<RowBucket> rowBuckets() {
  // Buckets of a factor of 4; past the last, the dispatch's own kernel
  // (tiles for a batch of 32).
  static constexpr RowBucket kBuckets[] = {{1, 1}, {4, 2}, {16, 8}};
  return kBuckets;
}

bool hasDynamicOuterRows(func::FuncOp dispatch, int64_t minRowsPerOuter) {
  if (dispatch.getNumResults() != 1)
    return false;
  auto type = dyn_cast<RankedTensorType>(dispatch.getResultTypes().front());
  if (!type || type.getRank() == 0 || type.getNumDynamicDims() != 1 ||
      !type.isDynamicDim(0))
    return false;
  // The one contraction or convolution of the dispatch.
  linalg::LinalgOp root;
  WalkResult walk = dispatch.walk([&](linalg::LinalgOp op) {
    if (!linalg::isaContractionOpInterface(op) &&
        !linalg::isaConvolutionOpInterface(op))
      return WalkResult::advance();
    if (root)
      return WalkResult::interrupt();
    root = op;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted() || !root || root.getNumDpsInputs() != 2 ||
      root.getNumDpsInits() != 1)
    return false;
  AffineMap a = root.getMatchingIndexingMap(root.getDpsInputOperand(0));
  AffineMap b = root.getMatchingIndexingMap(root.getDpsInputOperand(1));
  AffineMap c = root.getMatchingIndexingMap(root.getDpsInitOperand(0));
  if (!c.isProjectedPermutation() || c.getNumResults() != type.getRank())
    return false;
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  // The output's outermost index: a dynamic loop of A's rows (not B's).
  unsigned outer = cast<AffineDimExpr>(c.getResult(0)).getPosition();
  if (!ShapedType::isDynamic(ranges[outer]) || !a.isFunctionOfDim(outer) ||
      b.isFunctionOfDim(outer))
    return false;
  int64_t rows = 1;
  bool ownChannel = false;
  for (unsigned d = 0; d < ranges.size(); ++d) {
    if (d == outer)
      continue;
    if (ShapedType::isDynamic(ranges[d]))
      return false;
    if (iterators[d] == utils::IteratorType::parallel && a.isFunctionOfDim(d) &&
        !b.isFunctionOfDim(d))
      rows *= ranges[d];
    // A GEMM reduces over a loop that A indexes by itself (input
    // channels); a depthwise convolution or a pooling only over windows.
    if (iterators[d] == utils::IteratorType::reduction && b.isFunctionOfDim(d))
      ownChannel |= llvm::any_of(a.getResults(), [&](AffineExpr e) {
        auto dim = dyn_cast<AffineDimExpr>(e);
        return dim && dim.getPosition() == d;
      });
  }
  return ownChannel && rows >= minRowsPerOuter;
}

void addRowVariants(ModuleOp module) {
  SymbolTable symbols(module);
  SmallVector<func::FuncOp> hosts;
  for (auto func : module.getOps<func::FuncOp>())
    if (!isDispatchFunc(func) && !func.isExternal() && hasDynamicShapes(func))
      hosts.push_back(func);
  Builder builder(module.getContext());
  SmallVector<int64_t> bounds;
  for (const RowBucket &bucket : rowBuckets())
    bounds.push_back(bucket.AtMost);
  // Null where the dispatch takes no variants.
  llvm::DenseMap<Operation *, DictionaryAttr> choicesOf;
  for (func::FuncOp host : hosts) {
    host.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || !isDispatchFunc(callee))
        return;
      auto [it, inserted] = choicesOf.try_emplace(callee.getOperation());
      if (inserted) {
        if (!hasDynamicOuterRows(callee, kMinRowsPerOuter))
          return;
        SmallVector<Attribute> callees;
        for (const RowBucket &bucket : rowBuckets()) {
          func::FuncOp clone = callee.clone();
          clone.setSymName(
              (callee.getSymName() + "_rows_" + Twine(bucket.AtMost)).str());
          clone->setAttr(kAssumedOuterRowsAttr,
                         builder.getI64IntegerAttr(bucket.Assumed));
          // Beside the dispatch (renamed where the name is taken).
          symbols.insert(clone, std::next(Block::iterator(callee)));
          callees.push_back(FlatSymbolRefAttr::get(clone));
        }
        it->second = builder.getDictionaryAttr(
            {builder.getNamedAttr("callees", builder.getArrayAttr(callees)),
             builder.getNamedAttr("at_most",
                                  builder.getDenseI64ArrayAttr(bounds))});
      }
      if (it->second)
        call->setAttr(kRowChoicesAttr, it->second);
    });
  }
}

namespace {

struct RowVariantsPass : impl::RowVariantsBase<RowVariantsPass> {
  void runOnOperation() override { addRowVariants(getOperation()); }
};

} // namespace
} // namespace kiln
