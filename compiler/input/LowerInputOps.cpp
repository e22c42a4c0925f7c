//===- LowerInputOps.cpp - Accepted ops into ones back ends lower ---------===//
//
// kiln-verify-input accepts a few ops that the back ends do not lower (no
// conversion to LLVM, none on n-D vectors, no bufferization) or whose only
// upstream expansion is inaccurate. Rewriting them here, before any target
// is chosen, gives every back end ops it already lowers.
//
//===----------------------------------------------------------------------===//

#include "compiler/input/LowerInputOps.h"
#include "compiler/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>
#include <limits>
#include <numbers>

namespace kiln {
#define GEN_PASS_DEF_LOWERINPUTOPS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

/// A constant of `type` (a scalar type or a shaped one) with `value` in
/// every element.
Value splat(ImplicitLocOpBuilder &b, Type type, TypedAttr value) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return arith::ConstantOp::create(
        b, cast<TypedAttr>(DenseElementsAttr::get(shaped, value)));
  return arith::ConstantOp::create(b, value);
}

Value intConstant(ImplicitLocOpBuilder &b, Type type, int64_t value) {
  return splat(b, type, b.getIntegerAttr(getElementTypeOrSelf(type), value));
}

Value floatConstant(ImplicitLocOpBuilder &b, Type type, const APFloat &value) {
  return splat(b, type, b.getFloatAttr(getElementTypeOrSelf(type), value));
}

const llvm::fltSemantics &floatSemantics(Type type) {
  return cast<FloatType>(getElementTypeOrSelf(type)).getFloatSemantics();
}

/// `type` with f32 elements where it has f16 or bf16 ones: expansions
/// compute in f32, where their intermediate steps do not round away the
/// result (x * x overflows f16 beyond 256).
Type widenedFloatType(Type type) {
  if (cast<FloatType>(getElementTypeOrSelf(type)).getWidth() >= 32)
    return type;
  Type f32 = Float32Type::get(type.getContext());
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(f32);
  return f32;
}

/// Float arithmetic on scalars or tensors of one type, for writing the
/// expansions below as formulas.
class FloatMath {
public:
  FloatMath(ImplicitLocOpBuilder &b, Type type) : b(b), type(type) {}

  Value constant(double value) {
    bool losesInfo;
    APFloat converted(value);
    converted.convert(floatSemantics(type), APFloat::rmNearestTiesToEven,
                      &losesInfo);
    return floatConstant(b, type, converted);
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, x, y); }
  Value abs(Value x) { return math::AbsFOp::create(b, x); }
  Value sqrt(Value x) { return math::SqrtOp::create(b, x); }
  Value log(Value x) { return math::LogOp::create(b, x); }
  Value copySign(Value magnitude, Value sign) {
    return math::CopySignOp::create(b, magnitude, sign);
  }
  Value select(arith::CmpFPredicate predicate, Value x, Value y, Value ifTrue,
               Value ifFalse) {
    Value condition = arith::CmpFOp::create(b, predicate, x, y);
    return arith::SelectOp::create(b, condition, ifTrue, ifFalse);
  }

  /// log(1 + x) to full precision from log alone (Goldberg's trick): the
  /// back ends' math.log1p is not accurate for every type (f64 becomes
  /// log(1 + x) on CPUs).
  Value log1p(Value x) {
    Value one = constant(1.0);
    Value u = add(one, x);
    Value scaled = mul(log(u), div(x, sub(u, one)));
    // u == 1: x is below half an ulp of 1, and log1p(x) rounds to x.
    // u == inf: the ratio would be inf / inf.
    Value r = select(arith::CmpFPredicate::OEQ, u, one, x, scaled);
    return select(arith::CmpFPredicate::OEQ, u,
                  constant(std::numeric_limits<double>::infinity()), u, r);
  }

  /// Above this magnitude x * x + 1 rounds to x * x (and soon overflows),
  /// so sqrt(x * x +- 1) is replaced by |x|.
  double large() {
    auto elementType = cast<FloatType>(getElementTypeOrSelf(type));
    return std::ldexp(1.0, (elementType.getFPMantissaWidth() - 1) / 2);
  }

private:
  ImplicitLocOpBuilder &b;
  Type type;
};

// Upstream's expansions (math::populateExpansionPatterns) use the textbook
// formulas, log(x + sqrt(x * x +- 1)) and log((1 + x) / (1 - x)) / 2: they
// cancel catastrophically (f32 asinh(-1e4) is -inf), lose all precision
// near 0 and overflow for large x. These keep a few ulps everywhere.

/// asinh(x) = sign(x) * log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), or
/// sign(x) * (log(|x|) + ln 2) for large |x|.
Value expandAsinh(FloatMath &m, Value x) {
  Value a = m.abs(x);
  Value a2 = m.mul(a, a);
  Value one = m.constant(1.0);
  Value near = m.log1p(m.add(a, m.div(a2, m.add(one, m.sqrt(m.add(a2, one))))));
  Value far = m.add(m.log(a), m.constant(std::numbers::ln2));
  Value r =
      m.select(arith::CmpFPredicate::OGT, a, m.constant(m.large()), far, near);
  return m.copySign(r, x);
}

/// acosh(x) = log1p(t + sqrt(t * (t + 2))) with t = x - 1 (exact near 1),
/// or log(x) + ln 2 for large x; NaN below 1, where the formula can round
/// to a number.
Value expandAcosh(FloatMath &m, Value x) {
  Value one = m.constant(1.0);
  Value t = m.sub(x, one);
  Value near = m.log1p(m.add(t, m.sqrt(m.mul(t, m.add(t, m.constant(2.0))))));
  Value far = m.add(m.log(x), m.constant(std::numbers::ln2));
  Value r =
      m.select(arith::CmpFPredicate::OGT, x, m.constant(m.large()), far, near);
  return m.select(arith::CmpFPredicate::OLT, x, one,
                  m.constant(std::numeric_limits<double>::quiet_NaN()), r);
}

/// atanh(x) = sign(x) * log1p(2|x| / (1 - |x|)) / 2.
Value expandAtanh(FloatMath &m, Value x) {
  Value a = m.abs(x);
  Value ratio = m.div(m.mul(m.constant(2.0), a), m.sub(m.constant(1.0), a));
  return m.copySign(m.mul(m.constant(0.5), m.log1p(ratio)), x);
}

/// Rewrites a unary float op with `expand`, in f32 for f16 and bf16.
template <typename OpTy> struct ExpandFloatFunction : OpRewritePattern<OpTy> {
  using Expansion = Value (*)(FloatMath &, Value);

  ExpandFloatFunction(MLIRContext *context, Expansion expand)
      : OpRewritePattern<OpTy>(context), expand(expand) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    Type type = op.getType();
    Type computeType = widenedFloatType(type);
    Value x = op.getOperand();
    if (computeType != type)
      x = arith::ExtFOp::create(b, computeType, x);
    FloatMath m(b, computeType);
    Value result = expand(m, x);
    if (computeType != type)
      result = arith::TruncFOp::create(b, type, result);
    rewriter.replaceOp(op, result);
    return success();
  }

  Expansion expand;
};

/// |x| = maxsi(x, -x); the most negative value stays itself, as in
/// math.absi.
LogicalResult expandAbsI(math::AbsIOp op, PatternRewriter &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  Value x = op.getOperand();
  Value negated = arith::SubIOp::create(b, intConstant(b, x.getType(), 0), x);
  rewriter.replaceOpWithNewOp<arith::MaxSIOp>(op, x, negated);
  return success();
}

/// The number of bits below the lowest set one, ~x & (x - 1), counted; for
/// 0 that is every bit.
LogicalResult expandCttz(math::CountTrailingZerosOp op,
                         PatternRewriter &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  Value x = op.getOperand();
  Type type = x.getType();
  Value inverted = arith::XOrIOp::create(b, x, intConstant(b, type, -1));
  Value belowLowest = arith::AndIOp::create(
      b, inverted, arith::SubIOp::create(b, x, intConstant(b, type, 1)));
  rewriter.replaceOpWithNewOp<math::CtPopOp>(op, belowLowest);
  return success();
}

// Float classifications as comparisons; the ordered ones are false for NaN.
LogicalResult expandIsNaN(math::IsNaNOp op, PatternRewriter &rewriter) {
  rewriter.replaceOpWithNewOp<arith::CmpFOp>(op, arith::CmpFPredicate::UNO,
                                             op.getOperand(), op.getOperand());
  return success();
}

Value belowInfinity(ImplicitLocOpBuilder &b, Value magnitude) {
  Type type = magnitude.getType();
  Value inf = floatConstant(b, type, APFloat::getInf(floatSemantics(type)));
  return arith::CmpFOp::create(b, arith::CmpFPredicate::OLT, magnitude, inf);
}

LogicalResult expandIsInf(math::IsInfOp op, PatternRewriter &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  Value magnitude = math::AbsFOp::create(b, op.getOperand());
  Type type = magnitude.getType();
  Value inf = floatConstant(b, type, APFloat::getInf(floatSemantics(type)));
  rewriter.replaceOpWithNewOp<arith::CmpFOp>(op, arith::CmpFPredicate::OEQ,
                                             magnitude, inf);
  return success();
}

LogicalResult expandIsFinite(math::IsFiniteOp op, PatternRewriter &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  rewriter.replaceOp(
      op, belowInfinity(b, math::AbsFOp::create(b, op.getOperand())));
  return success();
}

LogicalResult expandIsNormal(math::IsNormalOp op, PatternRewriter &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  Value magnitude = math::AbsFOp::create(b, op.getOperand());
  Type type = magnitude.getType();
  Value smallest = floatConstant(
      b, type, APFloat::getSmallestNormalized(floatSemantics(type)));
  Value notSubnormal =
      arith::CmpFOp::create(b, arith::CmpFPredicate::OGE, magnitude, smallest);
  rewriter.replaceOpWithNewOp<arith::AndIOp>(op, notSubnormal,
                                             belowInfinity(b, magnitude));
  return success();
}

LogicalResult expandSincos(math::SincosOp op, PatternRewriter &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  Value x = op.getOperand();
  rewriter.replaceOp(op, {math::SinOp::create(b, x).getResult(),
                          math::CosOp::create(b, x).getResult()});
  return success();
}

/// base^exponent for exponent >= 0 by squaring, over the exponent's low
/// `bits` bits: what LLVM's powi and compiler-rt do, unrolled so it stays
/// elementwise. `mul` multiplies two values of the base's type.
Value powerBySquaring(ImplicitLocOpBuilder &b, Value base, Value exponent,
                      unsigned bits, Value one,
                      function_ref<Value(Value, Value)> mul) {
  Type exponentType = exponent.getType();
  Value zero = intConstant(b, exponentType, 0);
  Value lowBit = intConstant(b, exponentType, 1);
  Value result = one;
  for (unsigned bit = 0; bit < bits; ++bit) {
    Value shifted =
        arith::ShRUIOp::create(b, exponent, intConstant(b, exponentType, bit));
    Value set =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                              arith::AndIOp::create(b, shifted, lowBit), zero);
    result = arith::SelectOp::create(b, set, mul(result, base), result);
    if (bit + 1 < bits)
      base = mul(base, base);
  }
  return result;
}

/// Upstream's expansion computes exp(n * log(x)), NaN for every negative x.
/// Here x^|n| by squaring (in f32 for f16 and bf16), inverted for n < 0.
LogicalResult expandFPowI(math::FPowIOp op, PatternRewriter &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  Type type = op.getType();
  Type computeType = widenedFloatType(type);
  Value x = op.getLhs();
  if (computeType != type)
    x = arith::ExtFOp::create(b, computeType, x);
  Value n = op.getRhs();
  Value zero = intConstant(b, n.getType(), 0);
  Value negative = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, n, zero);
  // Read as unsigned, the most negative n's magnitude is right too.
  Value magnitude = arith::SelectOp::create(
      b, negative, arith::SubIOp::create(b, zero, n), n);
  FloatMath m(b, computeType);
  Value one = m.constant(1.0);
  unsigned bits = getElementTypeOrSelf(n.getType()).getIntOrFloatBitWidth();
  Value power =
      powerBySquaring(b, x, magnitude, bits, one,
                      [&](Value lhs, Value rhs) { return m.mul(lhs, rhs); });
  Value result = arith::SelectOp::create(b, negative, m.div(one, power), power);
  if (computeType != type)
    result = arith::TruncFOp::create(b, type, result);
  rewriter.replaceOp(op, result);
  return success();
}

/// x^n with wrapping multiplication for n >= 0. A negative power truncates
/// to 0 unless |x| is 1; 0 to a negative power (a division by zero in
/// upstream's lowering, math-to-funcs) is 0 too.
LogicalResult expandIPowI(math::IPowIOp op, PatternRewriter &rewriter) {
  ImplicitLocOpBuilder b(op.getLoc(), rewriter);
  Value x = op.getLhs();
  Value n = op.getRhs();
  Type type = op.getType();
  unsigned bits = getElementTypeOrSelf(type).getIntOrFloatBitWidth();
  Value zero = intConstant(b, type, 0);
  Value one = intConstant(b, type, 1);
  Value minusOne = intConstant(b, type, -1);
  // A non-negative n has its sign bit clear.
  Value power = powerBySquaring(b, x, n, bits - 1, one,
                                [&](Value lhs, Value rhs) -> Value {
                                  return arith::MulIOp::create(b, lhs, rhs);
                                });
  auto equal = [&](Value lhs, Value rhs) -> Value {
    return arith::CmpIOp::create(b, arith::CmpIPredicate::eq, lhs, rhs);
  };
  Value odd = arith::CmpIOp::create(b, arith::CmpIPredicate::ne,
                                    arith::AndIOp::create(b, n, one), zero);
  Value ofMinusOne = arith::SelectOp::create(b, odd, minusOne, one);
  Value negativePower = arith::SelectOp::create(
      b, equal(x, one), one,
      arith::SelectOp::create(b, equal(x, minusOne), ofMinusOne, zero));
  Value negative = arith::CmpIOp::create(b, arith::CmpIPredicate::slt, n, zero);
  rewriter.replaceOpWithNewOp<arith::SelectOp>(op, negative, negativePower,
                                               power);
  return success();
}

// pad + expand_shape + transpose, ops every back end already tiles.
struct LowerPack : OpRewritePattern<linalg::PackOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::PackOp op,
                                PatternRewriter &rewriter) const override {
    return linalg::lowerPack(rewriter, op);
  }
};

// transpose + collapse_shape + extract_slice.
struct LowerUnPack : OpRewritePattern<linalg::UnPackOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::UnPackOp op,
                                PatternRewriter &rewriter) const override {
    return linalg::lowerUnPack(rewriter, op);
  }
};

bool isLoweredHere(Operation *op) {
  return isa<math::AbsIOp, math::AcoshOp, math::AsinhOp, math::AtanhOp,
             math::CountLeadingZerosOp, math::CountTrailingZerosOp,
             math::FPowIOp, math::IPowIOp, math::IsFiniteOp, math::IsInfOp,
             math::IsNaNOp, math::IsNormalOp, math::SincosOp,
             tosa::ApplyScaleOp, linalg::PackOp, linalg::UnPackOp>(op);
}

struct LowerInputOpsPass : impl::LowerInputOpsBase<LowerInputOpsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateLowerInputOpsPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation().emitError() << "lowering input ops did not converge";
      return signalPassFailure();
    }
    // A pattern that declined (an unusual pack, say) would otherwise surface
    // as an internal error in some back end.
    bool left = false;
    getOperation().walk([&](Operation *op) {
      if (!isLoweredHere(op))
        return;
      op->emitError() << "cannot lower '" << op->getName() << "'";
      left = true;
    });
    if (left)
      signalPassFailure();
  }
};

} // namespace

void populateLowerInputOpsPatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  patterns.add<ExpandFloatFunction<math::AcoshOp>>(context, expandAcosh);
  patterns.add<ExpandFloatFunction<math::AsinhOp>>(context, expandAsinh);
  patterns.add<ExpandFloatFunction<math::AtanhOp>>(context, expandAtanh);
  // The CPU back end's math-to-llvm leaves these unlowered on n-D vectors
  // (and has nothing for isinf, isnormal, ipowi); as arith they are exact
  // and vectorize everywhere. Upstream's ctlz expansion is a binary search
  // over the bits.
  math::populateExpansionPatterns(patterns, {"ctlz"});
  patterns.add(expandAbsI);
  patterns.add(expandCttz);
  patterns.add(expandIsNaN);
  patterns.add(expandIsInf);
  patterns.add(expandIsFinite);
  patterns.add(expandIsNormal);
  patterns.add(expandSincos);
  patterns.add(expandFPowI);
  patterns.add(expandIPowI);
  // The exact form with 64-bit intermediates; the 32-bit variant trades
  // extra steps for narrower multiplies, which no Kiln target needs.
  tosa::populateTosaRescaleToArithConversionPatterns(&patterns,
                                                     /*include32Bit=*/false);
  patterns.add<LowerPack, LowerUnPack>(context);
}

} // namespace kiln
