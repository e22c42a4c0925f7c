//===- Elementwise.cpp - ONNX arithmetic, comparisons, logic, math, Cast --===//
//
// Binary ops broadcast numpy-style into one linalg.generic; variadic ones
// (Sum, Mean, Max, Min) combine every input in one generic. Signedness comes
// from the ONNX element type. Add/Sub/Mul/Div, comparisons, logic and Cast
// also fold at import time when their inputs are known (shape arithmetic).
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

using BuildFn = Value (*)(OpBuilder &, Location, Value, Value, int32_t);

struct BinaryOp {
  const char *Name;
  /// Which operand types it takes.
  enum Operands { Numbers, Integers, Bools } Takes;
  bool ReturnsBool;
  BuildFn Build;
  /// Import-time evaluation on values as doubles (float inputs) or int64s
  /// (integer and bool inputs); null: not folded.
  double (*HostFloat)(double, double);
  int64_t (*HostInt)(int64_t, int64_t, bool isUnsigned);
};

bool isF(Value v) { return isa<FloatType>(v.getType()); }

Value cmp(OpBuilder &b, Location l, Value x, Value y, int32_t dtype,
          arith::CmpFPredicate f, arith::CmpIPredicate s,
          arith::CmpIPredicate u) {
  if (isF(x))
    return arith::CmpFOp::create(b, l, f, x, y);
  return arith::CmpIOp::create(b, l, isUnsignedDType(dtype) ? u : s, x, y);
}

const BinaryOp kBinaryOps[] = {
    {"Add", BinaryOp::Numbers, false,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t) -> Value {
       return isF(x) ? Value(arith::AddFOp::create(b, l, x, y))
                     : Value(arith::AddIOp::create(b, l, x, y));
     },
     [](double x, double y) { return x + y; },
     [](int64_t x, int64_t y, bool) {
       return static_cast<int64_t>(static_cast<uint64_t>(x) +
                                   static_cast<uint64_t>(y));
     }},
    {"Sub", BinaryOp::Numbers, false,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t) -> Value {
       return isF(x) ? Value(arith::SubFOp::create(b, l, x, y))
                     : Value(arith::SubIOp::create(b, l, x, y));
     },
     [](double x, double y) { return x - y; },
     [](int64_t x, int64_t y, bool) {
       return static_cast<int64_t>(static_cast<uint64_t>(x) -
                                   static_cast<uint64_t>(y));
     }},
    {"Mul", BinaryOp::Numbers, false,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t) -> Value {
       return isF(x) ? Value(arith::MulFOp::create(b, l, x, y))
                     : Value(arith::MulIOp::create(b, l, x, y));
     },
     [](double x, double y) { return x * y; },
     [](int64_t x, int64_t y, bool) {
       return static_cast<int64_t>(static_cast<uint64_t>(x) *
                                   static_cast<uint64_t>(y));
     }},
    {"Div", BinaryOp::Numbers, false,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t dtype) -> Value {
       if (isF(x))
         return arith::DivFOp::create(b, l, x, y);
       if (isUnsignedDType(dtype))
         return arith::DivUIOp::create(b, l, x, y);
       return arith::DivSIOp::create(b, l, x, y);
     },
     [](double x, double y) { return x / y; },
     [](int64_t x, int64_t y, bool isUnsigned) -> int64_t {
       if (y == 0)
         return 0;
       if (isUnsigned)
         return static_cast<int64_t>(static_cast<uint64_t>(x) /
                                     static_cast<uint64_t>(y));
       if (x == INT64_MIN && y == -1)
         return x;
       return x / y;
     }},
    {"Max", BinaryOp::Numbers, false,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t dtype) -> Value {
       if (isF(x))
         return arith::MaximumFOp::create(b, l, x, y);
       if (isUnsignedDType(dtype))
         return arith::MaxUIOp::create(b, l, x, y);
       return arith::MaxSIOp::create(b, l, x, y);
     },
     nullptr, nullptr},
    {"Min", BinaryOp::Numbers, false,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t dtype) -> Value {
       if (isF(x))
         return arith::MinimumFOp::create(b, l, x, y);
       if (isUnsignedDType(dtype))
         return arith::MinUIOp::create(b, l, x, y);
       return arith::MinSIOp::create(b, l, x, y);
     },
     nullptr, nullptr},
    {"Equal", BinaryOp::Numbers, true,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t dtype) {
       return cmp(b, l, x, y, dtype, arith::CmpFPredicate::OEQ,
                  arith::CmpIPredicate::eq, arith::CmpIPredicate::eq);
     },
     [](double x, double y) -> double { return x == y; },
     [](int64_t x, int64_t y, bool) -> int64_t { return x == y; }},
    {"Less", BinaryOp::Numbers, true,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t dtype) {
       return cmp(b, l, x, y, dtype, arith::CmpFPredicate::OLT,
                  arith::CmpIPredicate::slt, arith::CmpIPredicate::ult);
     },
     [](double x, double y) -> double { return x < y; },
     [](int64_t x, int64_t y, bool u) -> int64_t {
       return u ? static_cast<uint64_t>(x) < static_cast<uint64_t>(y) : x < y;
     }},
    {"LessOrEqual", BinaryOp::Numbers, true,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t dtype) {
       return cmp(b, l, x, y, dtype, arith::CmpFPredicate::OLE,
                  arith::CmpIPredicate::sle, arith::CmpIPredicate::ule);
     },
     [](double x, double y) -> double { return x <= y; },
     [](int64_t x, int64_t y, bool u) -> int64_t {
       return u ? static_cast<uint64_t>(x) <= static_cast<uint64_t>(y) : x <= y;
     }},
    {"Greater", BinaryOp::Numbers, true,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t dtype) {
       return cmp(b, l, x, y, dtype, arith::CmpFPredicate::OGT,
                  arith::CmpIPredicate::sgt, arith::CmpIPredicate::ugt);
     },
     [](double x, double y) -> double { return x > y; },
     [](int64_t x, int64_t y, bool u) -> int64_t {
       return u ? static_cast<uint64_t>(x) > static_cast<uint64_t>(y) : x > y;
     }},
    {"GreaterOrEqual", BinaryOp::Numbers, true,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t dtype) {
       return cmp(b, l, x, y, dtype, arith::CmpFPredicate::OGE,
                  arith::CmpIPredicate::sge, arith::CmpIPredicate::uge);
     },
     [](double x, double y) -> double { return x >= y; },
     [](int64_t x, int64_t y, bool u) -> int64_t {
       return u ? static_cast<uint64_t>(x) >= static_cast<uint64_t>(y) : x >= y;
     }},
    {"And", BinaryOp::Bools, true,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t) -> Value {
       return arith::AndIOp::create(b, l, x, y);
     },
     nullptr, [](int64_t x, int64_t y, bool) -> int64_t { return x && y; }},
    {"Or", BinaryOp::Bools, true,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t) -> Value {
       return arith::OrIOp::create(b, l, x, y);
     },
     nullptr, [](int64_t x, int64_t y, bool) -> int64_t { return x || y; }},
    {"Xor", BinaryOp::Bools, true,
     [](OpBuilder &b, Location l, Value x, Value y, int32_t) -> Value {
       return arith::XOrIOp::create(b, l, x, y);
     },
     nullptr, [](int64_t x, int64_t y, bool) -> int64_t { return !x != !y; }},
};

LogicalResult checkOperands(NodeContext &ctx, const BinaryOp &op) {
  // Before opset 7 broadcasting was opt-in with an axis; ONNX 7 made it
  // numpy's.
  if (ctx.opset() < 7 && ctx.attrInt("broadcast", 0) != 0)
    return ctx.unsupported("legacy 'broadcast' attribute (opset " +
                           llvm::Twine(ctx.opset()) + ")");
  for (size_t i = 1; i < ctx.numInputs(); ++i)
    if (failed(requireSameDType(ctx, i)))
      return failure();
  int32_t dtype = ctx.inputDType(0);
  bool ok = op.Takes == BinaryOp::Bools ? dtype == Bool
            : op.Takes == BinaryOp::Integers
                ? isIntegerDType(dtype)
                : isFloatDType(dtype) || isIntegerDType(dtype);
  if (!ok)
    return ctx.unsupported("element type " + dtypeName(dtype));
  return success();
}

FailureOr<bool> foldBinary(NodeContext &ctx, const BinaryOp &op) {
  if (ctx.numInputs() != 2 || !ctx.hasInput(0) || !ctx.hasInput(1))
    return false;
  const HostTensor *a = ctx.constantInput(0);
  const HostTensor *b = ctx.constantInput(1);
  if (!a || !b || a->dtype() != b->dtype())
    return false;
  bool isFloat = isFloatDType(a->dtype());
  if ((isFloat && !op.HostFloat) || (!isFloat && !op.HostInt) ||
      dtypeByteSize(a->dtype()) == 0 || a->dtype() == String)
    return false;
  std::optional<llvm::SmallVector<int64_t>> shape =
      broadcastShapes({a->shape(), b->shape()});
  if (!shape || numElementsOf(*shape) > kMaxFoldElements)
    return false;
  HostTensor x = broadcastHost(*a, *shape), y = broadcastHost(*b, *shape);
  int32_t dtype = op.ReturnsBool ? Bool : a->dtype();
  int64_t n = numElementsOf(*shape);
  if (isFloat) {
    std::vector<double> out(n);
    for (int64_t i = 0; i < n; ++i)
      out[i] = op.HostFloat(x.doubleAt(i), y.doubleAt(i));
    ctx.setOutput(0, HostTensor::fromDoubles(dtype, *shape, out));
  } else {
    llvm::SmallVector<int64_t> out(n);
    bool isUnsigned = isUnsignedDType(a->dtype());
    for (int64_t i = 0; i < n; ++i)
      out[i] = op.HostInt(x.intAt(i), y.intAt(i), isUnsigned);
    ctx.setOutput(0, HostTensor::fromInt64s(dtype, *shape, out));
  }
  return true;
}

/// Sum, Mean, Max, Min (variadic) and the binary ops: every input combined
/// left to right in one generic.
LogicalResult convertBinary(NodeContext &ctx, const BinaryOp &op,
                            bool mean = false) {
  if (ctx.numInputs() < 1)
    return ctx.emitError() << "needs at least one input";
  if (failed(checkOperands(ctx, op)))
    return failure();
  llvm::SmallVector<size_t> inputs;
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    inputs.push_back(i);
  int32_t dtype = ctx.inputDType(0);
  int32_t resultDType = op.ReturnsBool ? Bool : dtype;
  size_t count = inputs.size();
  return emitElementwise(
      ctx, inputs, resultDType, [&](OpBuilder &b, Location l, ValueRange args) {
        Value acc = args[0];
        for (Value arg : args.drop_front())
          acc = op.Build(b, l, acc, arg, dtype);
        if (mean) {
          Value n = scalarConstant(b, l, acc.getType(), count);
          acc = isF(acc) ? Value(arith::DivFOp::create(b, l, acc, n))
                         : Value(arith::DivSIOp::create(b, l, acc, n));
        }
        return acc;
      });
}

const BinaryOp &binaryOp(llvm::StringRef name) {
  for (const BinaryOp &op : kBinaryOps)
    if (name == op.Name)
      return op;
  llvm_unreachable("unknown binary op");
}

LogicalResult convertPow(NodeContext &ctx) {
  int32_t base = ctx.inputDType(0), exponent = ctx.inputDType(1);
  if (!(isFloatDType(base) || base == Int32 || base == Int64) ||
      !(isFloatDType(exponent) || isIntegerDType(exponent)))
    return ctx.unsupported("element types " + dtypeName(base) + " ^ " +
                           dtypeName(exponent));
  return emitElementwise(ctx, {0, 1}, base,
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           Value x = args[0], y = args[1];
                           if (isF(x)) {
                             if (!isF(y))
                               y = convertScalar(b, l, y, exponent, base);
                             else if (y.getType() != x.getType())
                               y = convertScalar(b, l, y, exponent, base);
                             return Value(math::PowFOp::create(b, l, x, y));
                           }
                           // Integer bases: integer exponents stay exact; float
                           // exponents go through double and truncate back, as
                           // numpy's reference does.
                           if (!isF(y)) {
                             y = convertScalar(b, l, y, exponent, base);
                             return Value(math::IPowIOp::create(b, l, x, y));
                           }
                           Value xf = convertScalar(b, l, x, base, Double);
                           Value yf = convertScalar(b, l, y, exponent, Double);
                           Value p = math::PowFOp::create(b, l, xf, yf);
                           return convertScalar(b, l, p, Double, base);
                         });
}

LogicalResult convertMod(NodeContext &ctx) {
  if (failed(requireSameDType(ctx, 1)))
    return failure();
  int32_t dtype = ctx.inputDType(0);
  bool fmod = ctx.attrInt("fmod", 0) != 0;
  if (isFloatDType(dtype) && !fmod)
    return ctx.emitError() << "fmod must be 1 for floating-point inputs";
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  bool isUnsigned = isUnsignedDType(dtype);
  return emitElementwise(
      ctx, {0, 1}, dtype, [&](OpBuilder &b, Location l, ValueRange args) {
        Value x = args[0], y = args[1];
        if (isF(x))
          return Value(arith::RemFOp::create(b, l, x, y));
        if (isUnsigned)
          return Value(arith::RemUIOp::create(b, l, x, y));
        Value r = arith::RemSIOp::create(b, l, x, y);
        if (fmod)
          return r;
        // Python's remainder takes the divisor's sign.
        Value zero = scalarConstant(b, l, x.getType(), 0);
        Value nonzero =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, r, zero);
        Value rNeg =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, r, zero);
        Value yNeg =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, y, zero);
        Value differ = arith::XOrIOp::create(b, l, rNeg, yNeg);
        Value fix = arith::AndIOp::create(b, l, nonzero, differ);
        Value adjusted = arith::AddIOp::create(b, l, r, y);
        return Value(arith::SelectOp::create(b, l, fix, adjusted, r));
      });
}

LogicalResult convertBitShift(NodeContext &ctx) {
  if (failed(requireSameDType(ctx, 1)))
    return failure();
  int32_t dtype = ctx.inputDType(0);
  if (!isUnsignedDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  std::string direction = ctx.attrString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return ctx.emitError() << "direction must be LEFT or RIGHT, not '"
                           << direction << "'";
  bool left = direction == "LEFT";
  return emitElementwise(
      ctx, {0, 1}, dtype, [&](OpBuilder &b, Location l, ValueRange args) {
        return left ? Value(arith::ShLIOp::create(b, l, args[0], args[1]))
                    : Value(arith::ShRUIOp::create(b, l, args[0], args[1]));
      });
}

// Unary math on floats, one MLIR op each.
template <typename OpTy> Converter unaryFloat() {
  return [](NodeContext &ctx) {
    return emitUnaryFloat(ctx, [](OpBuilder &b, Location l, ValueRange args) {
      return Value(OpTy::create(b, l, args[0]));
    });
  };
}

LogicalResult convertAbs(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (isUnsignedDType(dtype))
    return emitElementwise(
        ctx, {0}, dtype,
        [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  return emitElementwise(
      ctx, {0}, dtype, [](OpBuilder &b, Location l, ValueRange args) {
        return isF(args[0]) ? Value(math::AbsFOp::create(b, l, args[0]))
                            : Value(math::AbsIOp::create(b, l, args[0]));
      });
}

LogicalResult convertNeg(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  return emitElementwise(
      ctx, {0}, dtype, [](OpBuilder &b, Location l, ValueRange args) {
        if (isF(args[0]))
          return Value(arith::NegFOp::create(b, l, args[0]));
        Value zero = scalarConstant(b, l, args[0].getType(), 0);
        return Value(arith::SubIOp::create(b, l, zero, args[0]));
      });
}

LogicalResult convertSign(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  bool isUnsigned = isUnsignedDType(dtype);
  return emitElementwise(
      ctx, {0}, dtype, [&](OpBuilder &b, Location l, ValueRange args) {
        Value x = args[0];
        Type t = x.getType();
        Value zero = scalarConstant(b, l, t, 0);
        Value one = scalarConstant(b, l, t, 1);
        Value minusOne = scalarConstant(b, l, t, -1);
        Value pos = cmp(b, l, x, zero, dtype, arith::CmpFPredicate::OGT,
                        arith::CmpIPredicate::sgt, arith::CmpIPredicate::ugt);
        if (isUnsigned)
          return Value(arith::SelectOp::create(b, l, pos, one, zero));
        Value neg = cmp(b, l, x, zero, dtype, arith::CmpFPredicate::OLT,
                        arith::CmpIPredicate::slt, arith::CmpIPredicate::ult);
        // 0 and NaN stay themselves.
        Value other = arith::SelectOp::create(b, l, neg, minusOne, x);
        return Value(arith::SelectOp::create(b, l, pos, one, other));
      });
}

LogicalResult convertReciprocal(NodeContext &ctx) {
  return emitUnaryFloat(ctx, [](OpBuilder &b, Location l, ValueRange args) {
    Value one = scalarConstant(b, l, args[0].getType(), 1);
    return Value(arith::DivFOp::create(b, l, one, args[0]));
  });
}

LogicalResult convertErf(NodeContext &ctx) {
  // Kiln's CPU back end approximates erf in f32 and has no f64 form.
  if (ctx.inputDType(0) == Double)
    return ctx.unsupported("element type double (Kiln has no f64 erf)");
  return unaryFloat<math::ErfOp>()(ctx);
}

LogicalResult convertNot(NodeContext &ctx) {
  if (ctx.inputDType(0) != Bool)
    return ctx.unsupported("element type " + dtypeName(ctx.inputDType(0)));
  return emitElementwise(
      ctx, {0}, Bool, [](OpBuilder &b, Location l, ValueRange args) {
        Value t = scalarConstant(b, l, args[0].getType(), 1);
        return Value(arith::XOrIOp::create(b, l, args[0], t));
      });
}

LogicalResult convertIsNaN(NodeContext &ctx) {
  if (!isFloatDType(ctx.inputDType(0)))
    return ctx.unsupported("element type " + dtypeName(ctx.inputDType(0)));
  return emitElementwise(
      ctx, {0}, Bool, [](OpBuilder &b, Location l, ValueRange args) {
        return Value(arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO,
                                           args[0], args[0]));
      });
}

LogicalResult convertIsInf(NodeContext &ctx) {
  if (!isFloatDType(ctx.inputDType(0)))
    return ctx.unsupported("element type " + dtypeName(ctx.inputDType(0)));
  bool negative = ctx.attrInt("detect_negative", 1) != 0;
  bool positive = ctx.attrInt("detect_positive", 1) != 0;
  return emitElementwise(
      ctx, {0}, Bool, [&](OpBuilder &b, Location l, ValueRange args) {
        Type t = args[0].getType();
        Value inf = scalarConstant(b, l, t, INFINITY);
        Value ninf = scalarConstant(b, l, t, -INFINITY);
        Value isPos = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                            args[0], inf);
        Value isNeg = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                            args[0], ninf);
        if (negative && positive)
          return Value(arith::OrIOp::create(b, l, isPos, isNeg));
        if (positive)
          return isPos;
        if (negative)
          return isNeg;
        return scalarConstant(b, l, b.getI1Type(), 0);
      });
}

// CastLike casts to its second input's element type.
int32_t castTarget(NodeContext &ctx) {
  if (ctx.opType() == "CastLike")
    return ctx.inputDType(1);
  return ctx.attrInt("to", 0);
}

LogicalResult convertCast(NodeContext &ctx) {
  int32_t from = ctx.inputDType(0), to = castTarget(ctx);
  if (!elementTypeOf(ctx.context(), from) || !elementTypeOf(ctx.context(), to))
    return ctx.unsupported("cast from " + dtypeName(from) + " to " +
                           dtypeName(to));
  return emitElementwise(ctx, {0}, to,
                         [&](OpBuilder &b, Location l, ValueRange args) {
                           return convertScalar(b, l, args[0], from, to);
                         });
}

FailureOr<bool> foldCast(NodeContext &ctx) {
  const HostTensor *x = ctx.constantInput(0);
  int32_t to = castTarget(ctx);
  if (!x || !dtypeByteSize(to) || x->numElements() > kMaxFoldElements)
    return false;
  ctx.setOutput(0, x->castTo(to));
  return true;
}

FailureOr<bool> foldNot(NodeContext &ctx) {
  const HostTensor *x = ctx.constantInput(0);
  if (!x || x->dtype() != Bool || x->numElements() > kMaxFoldElements)
    return false;
  llvm::SmallVector<int64_t> values = x->toInt64s();
  for (int64_t &v : values)
    v = !v;
  ctx.setOutput(0, HostTensor::fromInt64s(Bool, x->shape(), values));
  return true;
}

} // namespace

void registerElementwiseOps(OpRegistry &registry) {
  for (const BinaryOp &op : kBinaryOps) {
    registry.add(op.Name,
                 [&op](NodeContext &ctx) { return convertBinary(ctx, op); });
    if (op.HostFloat || op.HostInt)
      registry.addFolder(
          op.Name, [&op](NodeContext &ctx) { return foldBinary(ctx, op); });
  }
  registry.add("Sum", [](NodeContext &ctx) {
    return convertBinary(ctx, binaryOp("Add"));
  });
  registry.add("Mean", [](NodeContext &ctx) {
    return convertBinary(ctx, binaryOp("Add"), /*mean=*/true);
  });
  registry.add("Pow", convertPow);
  registry.add("Mod", convertMod);
  registry.add("BitShift", convertBitShift);

  registry.add("Abs", convertAbs);
  registry.add("Neg", convertNeg);
  registry.add("Sign", convertSign);
  registry.add("Reciprocal", convertReciprocal);
  registry.add("Erf", convertErf);
  registry.add("Not", convertNot);
  registry.addFolder("Not", foldNot);
  registry.add("IsNaN", convertIsNaN);
  registry.add("IsInf", convertIsInf);
  registry.add("Cast", convertCast);
  registry.addFolder("Cast", foldCast);
  registry.add("CastLike", convertCast);
  registry.addFolder("CastLike", foldCast);
  registry.add("Exp", unaryFloat<math::ExpOp>());
  registry.add("Log", unaryFloat<math::LogOp>());
  registry.add("Sqrt", unaryFloat<math::SqrtOp>());
  registry.add("Floor", unaryFloat<math::FloorOp>());
  registry.add("Ceil", unaryFloat<math::CeilOp>());
  // ONNX rounds halves to even.
  registry.add("Round", unaryFloat<math::RoundEvenOp>());
  registry.add("Tanh", unaryFloat<math::TanhOp>());
  registry.add("Sin", unaryFloat<math::SinOp>());
  registry.add("Cos", unaryFloat<math::CosOp>());
  registry.add("Tan", unaryFloat<math::TanOp>());
  registry.add("Asin", unaryFloat<math::AsinOp>());
  registry.add("Acos", unaryFloat<math::AcosOp>());
  registry.add("Atan", unaryFloat<math::AtanOp>());
  registry.add("Sinh", unaryFloat<math::SinhOp>());
  registry.add("Cosh", unaryFloat<math::CoshOp>());
  registry.add("Asinh", unaryFloat<math::AsinhOp>());
  registry.add("Acosh", unaryFloat<math::AcoshOp>());
  registry.add("Atanh", unaryFloat<math::AtanhOp>());
}

} // namespace kiln::onnx_import
