//===- DeviceLibraryCalls.cpp ---------------------------------------------===//

#include "compiler/target/gpu/DeviceLibraryCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
namespace {

// The private declaration of `name` : (type, type) -> type in the symbol
// table holding `from`, created on first use.
func::FuncOp declareBinary(PatternRewriter &rewriter, Operation *from,
                           StringRef name, Type type) {
  Operation *table = SymbolTable::getNearestSymbolTable(from);
  if (auto existing = dyn_cast_or_null<func::FuncOp>(
          SymbolTable::lookupSymbolIn(table, name)))
    return existing;
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(&table->getRegion(0).front());
  auto decl =
      func::FuncOp::create(rewriter, from->getLoc(), name,
                           rewriter.getFunctionType({type, type}, {type}));
  decl.setPrivate();
  return decl;
}

struct RemFToFmod : OpRewritePattern<arith::RemFOp> {
  RemFToFmod(MLIRContext *context, const DeviceLibraryNames &names)
      : OpRewritePattern(context), Names(names) {}
  LogicalResult matchAndRewrite(arith::RemFOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type type = op.getType();
    if (auto vector = dyn_cast<VectorType>(type)) {
      // One element at a time: neither library has a vector fmod.
      if (vector.getRank() != 1 || vector.isScalable())
        return failure();
      SmallVector<Value> elements;
      for (int64_t i = 0; i < vector.getDimSize(0); ++i) {
        Value lhs = vector::ExtractOp::create(rewriter, loc, op.getLhs(), i);
        Value rhs = vector::ExtractOp::create(rewriter, loc, op.getRhs(), i);
        elements.push_back(arith::RemFOp::create(rewriter, loc, lhs, rhs));
      }
      rewriter.replaceOpWithNewOp<vector::FromElementsOp>(op, vector, elements);
      return success();
    }
    auto floatType = dyn_cast<FloatType>(type);
    if (!floatType || floatType.getWidth() > 64)
      return failure();
    bool isDouble = floatType.isF64();
    // fmod's result is exactly representable in the operands' type, so f16
    // and bf16 lose nothing by going through f32.
    Type computeType = isDouble ? type : rewriter.getF32Type();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    if (computeType != type) {
      lhs = arith::ExtFOp::create(rewriter, loc, computeType, lhs);
      rhs = arith::ExtFOp::create(rewriter, loc, computeType, rhs);
    }
    func::FuncOp callee = declareBinary(
        rewriter, op, isDouble ? Names.FmodF64 : Names.FmodF32, computeType);
    Value result =
        func::CallOp::create(rewriter, loc, callee, ValueRange{lhs, rhs})
            .getResult(0);
    if (computeType != type)
      result = arith::TruncFOp::create(rewriter, loc, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }

  DeviceLibraryNames Names;
};

// Marks every division the approximations insert (tanh's rational
// function, for one) as approximate: the polynomial's own error is a few
// ulp already, and an approximate division is a reciprocal and a multiply
// where an IEEE one is ten instructions and a branch, for every element of
// a GEMM's epilogue. The program's own divisions stay IEEE.
struct ApproximateInsertedDivisions : RewriterBase::Listener {
  void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
    if (auto division = dyn_cast<arith::DivFOp>(op))
      division.setFastmath(division.getFastmath() | arith::FastMathFlags::afn);
  }
};

} // namespace

void populateDeviceLibraryCallPatterns(RewritePatternSet &patterns,
                                       const DeviceLibraryNames &names) {
  patterns.add<RemFToFmod>(patterns.getContext(), names);
}

LogicalResult lowerKernelMath(ModuleOp lowered,
                              const DeviceLibraryNames &names) {
  RewritePatternSet patterns(lowered.getContext());
  // Half-precision math through f32, and the polynomials, for what MLIR's
  // own approximations cover (as its legacy entry point chooses: asin and
  // acos approximated in their own type), except erf's polynomial: its
  // rational approximation picks 21 coefficients per element by selects
  // and divides, where the vendor library's erf (which the NVVM and ROCDL
  // lowerings call for math.erf) is two short polynomials and an exp2, and
  // in a GELU epilogue that is most of the GEMM's extra time.
  StringRef common[] = {
      math::AtanOp::getOperationName(),  math::Atan2Op::getOperationName(),
      math::TanhOp::getOperationName(),  math::LogOp::getOperationName(),
      math::Log2Op::getOperationName(),  math::Log1pOp::getOperationName(),
      math::ErfcOp::getOperationName(),  math::ExpOp::getOperationName(),
      math::ExpM1Op::getOperationName(), math::CbrtOp::getOperationName(),
      math::SinOp::getOperationName(),   math::CosOp::getOperationName()};
  auto expandInF32 = [&](StringRef name) {
    return llvm::is_contained(common, name) ||
           name == math::ErfOp::getOperationName();
  };
  auto approximate = [&](StringRef name) {
    return llvm::is_contained(common, name) ||
           name == math::AsinOp::getOperationName() ||
           name == math::AcosOp::getOperationName();
  };
  populateMathF32ExpansionPatterns(patterns, expandInF32);
  populateMathPolynomialApproximationPatterns(patterns, approximate);
  populateDeviceLibraryCallPatterns(patterns, names);
  ApproximateInsertedDivisions listener;
  GreedyRewriteConfig config;
  config.setListener(&listener);
  return applyPatternsGreedily(lowered, std::move(patterns), config);
}

} // namespace kiln
