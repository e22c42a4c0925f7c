//===- DistributeToWorkgroups.cpp - scf.forall to workgroup ids -----------===//

#include "compiler/Passes.h"
#include "compiler/codegen/common/Distribution.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/host/ShapeProgramBuilder.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"

namespace kiln {
#define GEN_PASS_DEF_DISTRIBUTETOWORKGROUPS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

// The node of `value`, an extent in a dispatch body: a constant, an i64
// argument cast to index (an extent the host computes, kiln-bind-dispatch;
// PushConstant names the argument until kiln-cpu-lower-to-llvm numbers its
// words) or affine arithmetic over those.
FailureOr<uint32_t> gridNode(ShapeProgramBuilder &program, Block &entry,
                             Value value) {
  if (std::optional<int64_t> c = getConstantIntValue(value))
    return program.constant(*c);
  if (auto cast = value.getDefiningOp<arith::IndexCastOp>())
    if (auto arg = dyn_cast<BlockArgument>(cast.getIn());
        arg && arg.getOwner() == &entry && arg.getType().isInteger(64))
      return program.pushConstant(arg.getArgNumber());
  // A binding's extent, read off its view (kiln-bind-dispatch).
  if (auto dim = value.getDefiningOp<memref::DimOp>()) {
    auto view = dim.getSource().getDefiningOp<memref::ReinterpretCastOp>();
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!view || !index)
      return failure();
    OpFoldResult size = view.getMixedSizes()[*index];
    if (std::optional<int64_t> c = getConstantIntValue(size))
      return program.constant(*c);
    return gridNode(program, entry, cast<Value>(size));
  }
  auto apply = value.getDefiningOp<affine::AffineApplyOp>();
  if (!apply)
    return failure();
  SmallVector<uint32_t> operands;
  for (Value operand : apply.getOperands()) {
    FailureOr<uint32_t> node = gridNode(program, entry, operand);
    if (failed(node))
      return failure();
    operands.push_back(*node);
  }
  AffineMap map = apply.getAffineMap();
  using Opcode = ShapeProgramBuilder::Opcode;
  std::function<FailureOr<uint32_t>(AffineExpr)> visit =
      [&](AffineExpr expr) -> FailureOr<uint32_t> {
    if (auto c = dyn_cast<AffineConstantExpr>(expr))
      return c.getValue() < 0 ? FailureOr<uint32_t>(failure())
                              : program.constant(c.getValue());
    if (auto d = dyn_cast<AffineDimExpr>(expr))
      return operands[d.getPosition()];
    if (auto s = dyn_cast<AffineSymbolExpr>(expr))
      return operands[map.getNumDims() + s.getPosition()];
    auto binary = cast<AffineBinaryOpExpr>(expr);
    // a - b arrives as a + b * -1.
    if (auto mul = dyn_cast<AffineBinaryOpExpr>(binary.getRHS());
        binary.getKind() == AffineExprKind::Add && mul &&
        mul.getKind() == AffineExprKind::Mul)
      if (auto c = dyn_cast<AffineConstantExpr>(mul.getRHS());
          c && c.getValue() == -1) {
        FailureOr<uint32_t> a = visit(binary.getLHS()), b = visit(mul.getLHS());
        if (failed(a) || failed(b))
          return failure();
        return program.binary(Opcode::Sub, *a, *b);
      }
    FailureOr<uint32_t> a = visit(binary.getLHS()), b = visit(binary.getRHS());
    if (failed(a) || failed(b))
      return failure();
    switch (binary.getKind()) {
    case AffineExprKind::Add:
      return program.add(*a, *b);
    case AffineExprKind::Mul:
      return program.mul(*a, *b);
    case AffineExprKind::FloorDiv:
      return program.binary(Opcode::FloorDiv, *a, *b);
    case AffineExprKind::CeilDiv:
      return program.binary(Opcode::CeilDiv, *a, *b);
    default:
      return failure();
    }
  };
  if (map.getNumResults() != 1)
    return failure();
  return visit(map.getResult(0));
}

// Records the grid of a workgroup loop with dynamic trip counts `counts` as
// a program over the dispatch's push constants: (product of the counts, 1,
// 1), computed per dispatch by the runtime.
LogicalResult recordGridProgram(func::FuncOp func, scf::ForallOp forall,
                                ArrayRef<OpFoldResult> counts) {
  ShapeProgramBuilder program;
  uint32_t total = program.constant(1);
  Block &entry = func.getBody().front();
  OpBuilder builder(forall);
  for (OpFoldResult count : counts) {
    Value value =
        getValueOrCreateConstantIndexOp(builder, forall.getLoc(), count);
    FailureOr<uint32_t> node = gridNode(program, entry, value);
    if (failed(node))
      return forall.emitError("the workgroup loop's trip count is not "
                              "computable from the push constants");
    total = program.mul(total, *node);
  }
  uint32_t one = program.constant(1);
  SmallVector<int64_t> flat;
  for (const schema::ShapeNodeData &node : program.nodes())
    llvm::append_range(
        flat, ArrayRef<int64_t>{static_cast<int64_t>(node.Op), node.A, node.B});
  Builder b(func.getContext());
  func->setAttr(kWorkgroupCountProgramAttr, b.getDenseI64ArrayAttr(flat));
  func->setAttr(kWorkgroupCountNodesAttr,
                b.getDenseI64ArrayAttr({total, one, one}));
  return success();
}

LogicalResult distribute(func::FuncOp func) {
  Block &entry = func.getBody().front();
  MLIRContext *ctx = func.getContext();
  IndexType indexType = IndexType::get(ctx);
  Value wgX = entry.addArgument(indexType, func.getLoc());
  entry.addArgument(indexType, func.getLoc());
  entry.addArgument(indexType, func.getLoc());
  SmallVector<Type> argTypes(entry.getArgumentTypes());
  func.setType(FunctionType::get(ctx, argTypes, {}));

  SmallVector<scf::ForallOp> foralls;
  for (auto forall : entry.getOps<scf::ForallOp>())
    foralls.push_back(forall);
  int64_t total = 1;
  if (foralls.size() > 1)
    return func.emitError("expected at most one workgroup loop, found ")
           << foralls.size();
  if (foralls.size() == 1) {
    scf::ForallOp forall = foralls.front();
    if (forall.getNumResults() != 0)
      return forall.emitError("workgroup loop still has tensor results");
    if (writesBindingOutside(entry, {forall.getOperation()})) {
      // Correct before parallel: one workgroup runs the tiles in sequence.
      IRRewriter rewriter(ctx);
      rewriter.setInsertionPoint(forall);
      if (failed(scf::forallToForLoop(rewriter, forall)))
        return forall.emitError("cannot sequentialize the workgroup loop");
      foralls.clear();
    }
  }
  if (foralls.size() == 1) {
    scf::ForallOp forall = foralls.front();
    OpBuilder builder(forall);
    Location loc = forall.getLoc();
    // Trip counts: static ones as numbers, dynamic ones (extents a push
    // constant gives) computed in the body and, for the grid, by the
    // entry point's grid program.
    SmallVector<OpFoldResult> counts;
    SmallVector<int64_t> staticCounts;
    bool dynamic = false;
    for (auto [lb, ub, step] :
         llvm::zip(forall.getMixedLowerBound(), forall.getMixedUpperBound(),
                   forall.getMixedStep())) {
      std::optional<int64_t> l = getConstantIntValue(lb),
                             u = getConstantIntValue(ub),
                             s = getConstantIntValue(step);
      if (l && u && s) {
        int64_t count = llvm::divideCeil(*u - *l, *s);
        counts.push_back(builder.getIndexAttr(count));
        staticCounts.push_back(count);
        total *= count;
        continue;
      }
      dynamic = true;
      AffineExpr d0 = builder.getAffineSymbolExpr(0),
                 d1 = builder.getAffineSymbolExpr(1),
                 d2 = builder.getAffineSymbolExpr(2);
      counts.push_back(affine::makeComposedFoldedAffineApply(
          builder, loc, (d1 - d0).ceilDiv(d2), {lb, ub, step}));
      staticCounts.push_back(ShapedType::kDynamic);
    }
    if (dynamic) {
      if (failed(recordGridProgram(func, forall, counts)))
        return failure();
    } else if (total > std::numeric_limits<uint32_t>::max()) {
      return forall.emitError("too many workgroups: ") << total;
    }

    IRMapping mapping;
    if (!dynamic) {
      auto ids = affine::AffineDelinearizeIndexOp::create(
          builder, loc, wgX, ArrayRef<int64_t>(staticCounts),
          /*hasOuterBound=*/true);
      for (auto [iv, id, lb, step] :
           llvm::zip(forall.getInductionVars(), ids.getResults(),
                     forall.getStaticLowerBound(), forall.getStaticStep())) {
        Value scaled = arith::MulIOp::create(
            builder, loc, id,
            arith::ConstantIndexOp::create(builder, loc, step));
        Value offset = arith::AddIOp::create(
            builder, loc, scaled,
            arith::ConstantIndexOp::create(builder, loc, lb));
        mapping.map(iv, offset);
      }
    } else {
      auto ids = affine::AffineDelinearizeIndexOp::create(
          builder, loc, wgX, counts, /*hasOuterBound=*/true);
      for (auto [iv, id, lb, step] :
           llvm::zip(forall.getInductionVars(), ids.getResults(),
                     forall.getMixedLowerBound(), forall.getMixedStep())) {
        AffineExpr s0 = builder.getAffineSymbolExpr(0),
                   s1 = builder.getAffineSymbolExpr(1),
                   s2 = builder.getAffineSymbolExpr(2);
        mapping.map(iv, getValueOrCreateConstantIndexOp(
                            builder, loc,
                            affine::makeComposedFoldedAffineApply(
                                builder, loc, s0 * s1 + s2, {id, step, lb})));
      }
    }
    for (Operation &op : forall.getBody()->without_terminator())
      builder.clone(op, mapping);
    forall.erase();
    if (dynamic)
      total = 1; // the grid program's
  }
  Builder b(ctx);
  func->setAttr(kWorkgroupCountAttr, b.getDenseI64ArrayAttr({total, 1, 1}));
  return success();
}

struct DistributeToWorkgroupsPass
    : impl::DistributeToWorkgroupsBase<DistributeToWorkgroupsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (isDispatchFunc(func) && failed(distribute(func)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
