//===- Activation.cpp - ONNX activation functions -------------------------===//
//
// Each is one elementwise generic; attributes (alpha, beta, ...) become
// scalar constants in its body. Clip's bounds are attributes before opset
// 11 and optional inputs from it on.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cfloat>
#include <cmath>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

Value cst(OpBuilder &b, Location l, Value like, double v) {
  return scalarConstant(b, l, like.getType(), v);
}
Value add(OpBuilder &b, Location l, Value x, Value y) {
  return arith::AddFOp::create(b, l, x, y);
}
Value sub(OpBuilder &b, Location l, Value x, Value y) {
  return arith::SubFOp::create(b, l, x, y);
}
Value mul(OpBuilder &b, Location l, Value x, Value y) {
  return arith::MulFOp::create(b, l, x, y);
}
Value fmax(OpBuilder &b, Location l, Value x, Value y) {
  return arith::MaximumFOp::create(b, l, x, y);
}
Value fmin(OpBuilder &b, Location l, Value x, Value y) {
  return arith::MinimumFOp::create(b, l, x, y);
}
Value less(OpBuilder &b, Location l, Value x, Value y) {
  return arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, y);
}
Value select(OpBuilder &b, Location l, Value c, Value x, Value y) {
  return arith::SelectOp::create(b, l, c, x, y);
}
// log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|)).
Value softplus(OpBuilder &b, Location l, Value x) {
  Value negAbs = arith::NegFOp::create(b, l, math::AbsFOp::create(b, l, x));
  Value tail = math::Log1pOp::create(b, l, math::ExpOp::create(b, l, negAbs));
  return add(b, l, fmax(b, l, x, cst(b, l, x, 0)), tail);
}
Value sigmoid(OpBuilder &b, Location l, Value x) {
  Value e = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
  Value one = cst(b, l, x, 1);
  return arith::DivFOp::create(b, l, one, add(b, l, one, e));
}
Value relu(OpBuilder &b, Location l, Value x) {
  return fmax(b, l, x, cst(b, l, x, 0));
}
Value leakyRelu(OpBuilder &b, Location l, Value x, double alpha) {
  return select(b, l, less(b, l, x, cst(b, l, x, 0)),
                mul(b, l, x, cst(b, l, x, alpha)), x);
}
Value elu(OpBuilder &b, Location l, Value x, double alpha) {
  Value em1 = math::ExpM1Op::create(b, l, x);
  return select(b, l, less(b, l, x, cst(b, l, x, 0)),
                mul(b, l, em1, cst(b, l, x, alpha)), x);
}
Value hardSigmoid(OpBuilder &b, Location l, Value x, double alpha,
                  double beta) {
  Value y = add(b, l, mul(b, l, x, cst(b, l, x, alpha)), cst(b, l, x, beta));
  return fmin(b, l, fmax(b, l, y, cst(b, l, x, 0)), cst(b, l, x, 1));
}
Value softsign(OpBuilder &b, Location l, Value x) {
  Value d = add(b, l, cst(b, l, x, 1), math::AbsFOp::create(b, l, x));
  return arith::DivFOp::create(b, l, x, d);
}
Value thresholdedRelu(OpBuilder &b, Location l, Value x, double alpha) {
  Value gt = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x,
                                   cst(b, l, x, alpha));
  return select(b, l, gt, x, cst(b, l, x, 0));
}

LogicalResult convertRelu(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  if (isFloatDType(dtype))
    return emitUnaryFloat(ctx, [](OpBuilder &b, Location l, ValueRange a) {
      return relu(b, l, a[0]);
    });
  if (dtype != Int8 && dtype != Int16 && dtype != Int32 && dtype != Int64)
    return ctx.unsupported("element type " + dtypeName(dtype));
  return emitElementwise(
      ctx, {0}, dtype, [](OpBuilder &b, Location l, ValueRange a) {
        return Value(arith::MaxSIOp::create(b, l, a[0], cst(b, l, a[0], 0)));
      });
}

LogicalResult convertLeakyRelu(NodeContext &ctx) {
  double alpha = ctx.attrFloat("alpha", 0.01f);
  return emitUnaryFloat(ctx, [&](OpBuilder &b, Location l, ValueRange a) {
    return leakyRelu(b, l, a[0], alpha);
  });
}

LogicalResult convertPRelu(NodeContext &ctx) {
  if (failed(requireSameDType(ctx, 1)))
    return failure();
  std::optional<llvm::SmallVector<int64_t>> shape =
      broadcastShapes({ctx.inputShape(0), ctx.inputShape(1)});
  if (!shape || *shape != llvm::ArrayRef<int64_t>(ctx.inputShape(0)))
    return ctx.emitError() << "slope " << shapeString(ctx.inputShape(1))
                           << " does not broadcast to X "
                           << shapeString(ctx.inputShape(0));
  int32_t dtype = ctx.inputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  return emitElementwise(ctx, {0, 1}, dtype,
                         [](OpBuilder &b, Location l, ValueRange a) {
                           Value x = a[0];
                           return select(b, l, less(b, l, x, cst(b, l, x, 0)),
                                         mul(b, l, x, a[1]), x);
                         });
}

LogicalResult convertElu(NodeContext &ctx) {
  double alpha = ctx.attrFloat("alpha", 1.0f);
  return emitUnaryFloat(ctx, [&](OpBuilder &b, Location l, ValueRange a) {
    return elu(b, l, a[0], alpha);
  });
}

LogicalResult convertSelu(NodeContext &ctx) {
  double alpha = ctx.attrFloat("alpha", 1.67326319217681884765625f);
  double gamma = ctx.attrFloat("gamma", 1.05070102214813232421875f);
  return emitUnaryFloat(ctx, [&](OpBuilder &b, Location l, ValueRange a) {
    Value x = a[0];
    Value neg = mul(b, l, cst(b, l, x, alpha),
                    sub(b, l, math::ExpOp::create(b, l, x), cst(b, l, x, 1)));
    Value le = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, x,
                                     cst(b, l, x, 0));
    return mul(b, l, cst(b, l, x, gamma), select(b, l, le, neg, x));
  });
}

LogicalResult convertCelu(NodeContext &ctx) {
  double alpha = ctx.attrFloat("alpha", 1.0f);
  return emitUnaryFloat(ctx, [&](OpBuilder &b, Location l, ValueRange a) {
    Value x = a[0];
    Value scaled = arith::DivFOp::create(b, l, x, cst(b, l, x, alpha));
    Value neg =
        mul(b, l, cst(b, l, x, alpha), math::ExpM1Op::create(b, l, scaled));
    return add(b, l, fmax(b, l, x, cst(b, l, x, 0)),
               fmin(b, l, neg, cst(b, l, x, 0)));
  });
}

LogicalResult convertHardSigmoid(NodeContext &ctx) {
  double alpha = ctx.attrFloat("alpha", 0.2f);
  double beta = ctx.attrFloat("beta", 0.5f);
  return emitUnaryFloat(ctx, [&](OpBuilder &b, Location l, ValueRange a) {
    return hardSigmoid(b, l, a[0], alpha, beta);
  });
}

LogicalResult convertHardSwish(NodeContext &ctx) {
  return emitUnaryFloat(ctx, [&](OpBuilder &b, Location l, ValueRange a) {
    Value x = a[0];
    Value y =
        add(b, l, mul(b, l, x, cst(b, l, x, 1.0 / 6.0)), cst(b, l, x, 0.5));
    Value gate = fmin(b, l, fmax(b, l, y, cst(b, l, x, 0)), cst(b, l, x, 1));
    return mul(b, l, x, gate);
  });
}

LogicalResult convertSigmoid(NodeContext &ctx) {
  return emitUnaryFloat(ctx, [](OpBuilder &b, Location l, ValueRange a) {
    return sigmoid(b, l, a[0]);
  });
}

LogicalResult convertSoftplus(NodeContext &ctx) {
  return emitUnaryFloat(ctx, [](OpBuilder &b, Location l, ValueRange a) {
    return softplus(b, l, a[0]);
  });
}

LogicalResult convertSoftsign(NodeContext &ctx) {
  return emitUnaryFloat(ctx, [](OpBuilder &b, Location l, ValueRange a) {
    return softsign(b, l, a[0]);
  });
}

LogicalResult convertMish(NodeContext &ctx) {
  return emitUnaryFloat(ctx, [](OpBuilder &b, Location l, ValueRange a) {
    Value x = a[0];
    return mul(b, l, x, math::TanhOp::create(b, l, softplus(b, l, x)));
  });
}

LogicalResult convertGelu(NodeContext &ctx) {
  std::string approximate = ctx.attrString("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return ctx.unsupported("approximate '" + approximate + "'");
  if (approximate == "none" && ctx.inputDType(0) == Double)
    return ctx.unsupported("element type double (Kiln has no f64 erf)");
  bool tanh = approximate == "tanh";
  return emitUnaryFloat(ctx, [&](OpBuilder &b, Location l, ValueRange a) {
    Value x = a[0];
    Value inner;
    if (tanh) {
      Value cube = mul(b, l, mul(b, l, x, x), x);
      Value poly = add(b, l, x, mul(b, l, cube, cst(b, l, x, 0.044715)));
      inner = math::TanhOp::create(
          b, l, mul(b, l, poly, cst(b, l, x, std::sqrt(2.0 / M_PI))));
    } else {
      inner = math::ErfOp::create(b, l, mul(b, l, x, cst(b, l, x, M_SQRT1_2)));
    }
    Value half = mul(b, l, x, cst(b, l, x, 0.5));
    return mul(b, l, half, add(b, l, cst(b, l, x, 1), inner));
  });
}

LogicalResult convertThresholdedRelu(NodeContext &ctx) {
  double alpha = ctx.attrFloat("alpha", 1.0f);
  return emitUnaryFloat(ctx, [&](OpBuilder &b, Location l, ValueRange a) {
    return thresholdedRelu(b, l, a[0], alpha);
  });
}

LogicalResult convertShrink(NodeContext &ctx) {
  double bias = ctx.attrFloat("bias", 0.0f);
  double lambd = ctx.attrFloat("lambd", 0.5f);
  return emitUnaryFloat(ctx, [&](OpBuilder &b, Location l, ValueRange a) {
    Value x = a[0];
    Value below = less(b, l, x, cst(b, l, x, -lambd));
    Value above = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x,
                                        cst(b, l, x, lambd));
    Value high =
        select(b, l, above, sub(b, l, x, cst(b, l, x, bias)), cst(b, l, x, 0));
    return select(b, l, below, add(b, l, x, cst(b, l, x, bias)), high);
  });
}

LogicalResult convertClip(NodeContext &ctx) {
  int32_t dtype = ctx.inputDType(0);
  bool isFloat = isFloatDType(dtype);
  if (!isFloat && !isIntegerDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype));
  bool isUnsigned = isUnsignedDType(dtype);
  auto maxOf = [&](OpBuilder &b, Location l, Value x, Value y) -> Value {
    if (isFloat)
      return fmax(b, l, x, y);
    return isUnsigned ? Value(arith::MaxUIOp::create(b, l, x, y))
                      : Value(arith::MaxSIOp::create(b, l, x, y));
  };
  auto minOf = [&](OpBuilder &b, Location l, Value x, Value y) -> Value {
    if (isFloat)
      return fmin(b, l, x, y);
    return isUnsigned ? Value(arith::MinUIOp::create(b, l, x, y))
                      : Value(arith::MinSIOp::create(b, l, x, y));
  };
  if (ctx.opset() < 11) {
    double lo = ctx.attrFloat("min", -FLT_MAX);
    double hi = ctx.attrFloat("max", FLT_MAX);
    return emitElementwise(ctx, {0}, dtype,
                           [&](OpBuilder &b, Location l, ValueRange a) {
                             Value x = maxOf(b, l, a[0], cst(b, l, a[0], lo));
                             return minOf(b, l, x, cst(b, l, a[0], hi));
                           });
  }
  // Bounds known at import time are constants in the body; others are
  // scalar operands.
  std::optional<double> constLo, constHi;
  llvm::SmallVector<size_t> inputs = {0};
  int loIndex = -1, hiIndex = -1;
  for (size_t i : {size_t(1), size_t(2)}) {
    if (!ctx.hasInput(i))
      continue;
    if (failed(requireSameDType(ctx, i)))
      return failure();
    if (numElementsOf(ctx.inputShape(i)) != 1)
      return ctx.emitError() << (i == 1 ? "min" : "max") << " must be a scalar";
    if (const HostTensor *c = ctx.constantInput(i); c && isFloat) {
      (i == 1 ? constLo : constHi) = c->doubleAt(0);
      continue;
    }
    (i == 1 ? loIndex : hiIndex) = inputs.size();
    inputs.push_back(i);
  }
  // Scalar operands read as rank-0 or 1-element tensors broadcast fine.
  return emitElementwise(ctx, inputs, dtype,
                         [&](OpBuilder &b, Location l, ValueRange a) {
                           Value x = a[0];
                           if (constLo)
                             x = maxOf(b, l, x, cst(b, l, a[0], *constLo));
                           if (loIndex >= 0)
                             x = maxOf(b, l, x, a[loIndex]);
                           if (constHi)
                             x = minOf(b, l, x, cst(b, l, a[0], *constHi));
                           if (hiIndex >= 0)
                             x = minOf(b, l, x, a[hiIndex]);
                           return x;
                         });
}

} // namespace

std::optional<NamedActivation> namedActivation(llvm::StringRef name) {
  using Fn = NamedActivation::Fn;
  // Defaults are those of the op of the same name (Affine and ScaledTanh
  // were ops before opset 10: alpha 1, beta 0; alpha 1, beta 1).
  static const std::pair<const char *, NamedActivation> table[] = {
      {"Relu",
       {Fn([](OpBuilder &b, Location l, Value x, double, double) {
          return relu(b, l, x);
        }),
        std::nullopt, std::nullopt}},
      {"Tanh",
       {Fn([](OpBuilder &b, Location l, Value x, double, double) {
          return Value(math::TanhOp::create(b, l, x));
        }),
        std::nullopt, std::nullopt}},
      {"Sigmoid",
       {Fn([](OpBuilder &b, Location l, Value x, double, double) {
          return sigmoid(b, l, x);
        }),
        std::nullopt, std::nullopt}},
      {"Affine",
       {Fn([](OpBuilder &b, Location l, Value x, double alpha, double beta) {
          return add(b, l, mul(b, l, x, cst(b, l, x, alpha)),
                     cst(b, l, x, beta));
        }),
        1.0, 0.0}},
      {"LeakyRelu",
       {Fn([](OpBuilder &b, Location l, Value x, double alpha, double) {
          return leakyRelu(b, l, x, alpha);
        }),
        0.01f, std::nullopt}},
      {"ThresholdedRelu",
       {Fn([](OpBuilder &b, Location l, Value x, double alpha, double) {
          return thresholdedRelu(b, l, x, alpha);
        }),
        1.0, std::nullopt}},
      {"ScaledTanh",
       {Fn([](OpBuilder &b, Location l, Value x, double alpha, double beta) {
          Value t =
              math::TanhOp::create(b, l, mul(b, l, x, cst(b, l, x, beta)));
          return mul(b, l, t, cst(b, l, x, alpha));
        }),
        1.0, 1.0}},
      {"HardSigmoid",
       {Fn([](OpBuilder &b, Location l, Value x, double alpha, double beta) {
          return hardSigmoid(b, l, x, alpha, beta);
        }),
        0.2f, 0.5f}},
      {"Elu",
       {Fn([](OpBuilder &b, Location l, Value x, double alpha, double) {
          return elu(b, l, x, alpha);
        }),
        1.0, std::nullopt}},
      {"Softsign",
       {Fn([](OpBuilder &b, Location l, Value x, double, double) {
          return softsign(b, l, x);
        }),
        std::nullopt, std::nullopt}},
      {"Softplus",
       {Fn([](OpBuilder &b, Location l, Value x, double, double) {
          return softplus(b, l, x);
        }),
        std::nullopt, std::nullopt}},
  };
  for (const auto &[n, activation] : table)
    if (name.equals_insensitive(n))
      return activation;
  return std::nullopt;
}

void registerActivationOps(OpRegistry &registry) {
  registry.add("Relu", convertRelu);
  registry.add("LeakyRelu", convertLeakyRelu);
  registry.add("PRelu", convertPRelu);
  registry.add("Elu", convertElu);
  registry.add("Selu", convertSelu);
  registry.add("Celu", convertCelu);
  registry.add("HardSigmoid", convertHardSigmoid);
  registry.add("HardSwish", convertHardSwish);
  registry.add("Sigmoid", convertSigmoid);
  registry.add("Softplus", convertSoftplus);
  registry.add("Softsign", convertSoftsign);
  registry.add("Mish", convertMish);
  registry.add("Gelu", convertGelu);
  registry.add("ThresholdedRelu", convertThresholdedRelu);
  registry.add("Shrink", convertShrink);
  registry.add("Clip", convertClip);
  // One elementwise generic each (issue 19: over dynamic shapes too).
  registry.acceptDynamicShapes({"Relu", "LeakyRelu", "PRelu", "Elu", "Selu",
                                "Celu", "HardSigmoid", "HardSwish", "Sigmoid",
                                "Softplus", "Softsign", "Mish", "Gelu",
                                "ThresholdedRelu", "Shrink", "Clip"});
}

} // namespace kiln::onnx_import
