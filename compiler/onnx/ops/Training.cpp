//===- Training.cpp - ONNX ai.onnx.preview.training optimizers ------------===//
//
// Adagrad, Adam and Momentum (domain ai.onnx.preview.training, opset 1) are
// one step of an optimizer over n groups: inputs R (the learning rate), T
// (the step count), then X_1..X_n, G_1..G_n and each state's n tensors;
// outputs the new X_1..X_n, then each state's new n tensors. R and T are
// data (a training loop feeds them per call), so the step's scalar
// coefficients (the decayed or bias-corrected rate, Momentum's first-step
// beta) are computed from them by one 0-d generic, in double as ONNX's
// numpy reference computes them; each group is then one elementwise
// generic with a result per output, in the tensors' element type.
//
// The domain is not checked against libonnx's schemas (GraphChecks checks
// the default domain only), so every count, type, shape and required
// attribute is checked here.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"
#include "compiler/onnx/ops/ScalarMath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

constexpr llvm::StringLiteral kTrainingDomain = "ai.onnx.preview.training";

/// The element computations of one step, on values of one float type.
struct StepMath : ScalarMath {
  /// The gradient with its regularization term: norm x + g.
  Value regularized(double norm, Value x, Value g) {
    return add(mul(cst(norm), x), g);
  }
  /// t > 0 for the step count `t` (i64).
  Value positive(Value t) {
    Value zero = arith::ConstantOp::create(B, L, B.getI64IntegerAttr(0));
    return arith::CmpIOp::create(B, L, arith::CmpIPredicate::sgt, t, zero);
  }
};

/// What distinguishes the optimizers: how many state tensors a group has,
/// the (NumCoefficients) scalar coefficients computed once from R and T (in
/// f64; `r` f64, `t` i64), and the update of one element from the coefficients,
/// x, g and the states, returning the new x followed by the new states.
struct Optimizer {
  int64_t States;
  /// The group's tensors, for messages: "X, G and H".
  llvm::StringRef Tensors;
  size_t NumCoefficients;
  std::function<llvm::SmallVector<Value>(StepMath &, Value r, Value t)>
      Coefficients;
  std::function<llvm::SmallVector<Value>(StepMath &, ValueRange coefficients,
                                         Value x, Value g, ValueRange states)>
      Update;
};

/// A required attribute (Momentum's are all required; the schema cannot
/// say so here, as the domain is not checked against it).
LogicalResult requireAttrs(NodeContext &ctx,
                           llvm::ArrayRef<llvm::StringRef> names) {
  for (llvm::StringRef name : names)
    if (!ctx.hasAttr(name))
      return ctx.emitError() << "missing required attribute '" << name << "'";
  return success();
}

/// Input `i` (R or T) as a 0-d tensor: a scalar, or one element of any rank
/// viewed as one.
FailureOr<Value> scalarInput(NodeContext &ctx, size_t i, llvm::StringRef name,
                             llvm::ArrayRef<int32_t> dtypes,
                             llvm::StringRef allowed) {
  if (!llvm::is_contained(dtypes, ctx.inputDType(i)))
    return ctx.emitError() << name << " is " << dtypeName(ctx.inputDType(i))
                           << ", not " << allowed,
           failure();
  if (llvm::any_of(ctx.inputShape(i), [](int64_t d) { return d != 1; }))
    return ctx.emitError() << name << " must be a scalar, not "
                           << shapeString(ctx.inputShape(i)),
           failure();
  Value v = ctx.input(i);
  return ctx.inputRank(i) == 0 ? v : reshapeTo(ctx.builder(), ctx.loc(), v, {});
}

LogicalResult emitOptimizer(NodeContext &ctx, const Optimizer &opt) {
  if (ctx.opset() != 1)
    return ctx.unsupported("opset " + llvm::Twine(ctx.opset()) +
                           " of domain '" + kTrainingDomain + "' (1 is)");
  // R, T, then X, G and the states, n tensors each.
  int64_t perGroup = 2 + opt.States;
  int64_t tensors = static_cast<int64_t>(ctx.numInputs()) - 2;
  if (tensors < perGroup || tensors % perGroup != 0)
    return ctx.emitError() << "takes R, T and " << perGroup << "n tensors ("
                           << opt.Tensors << ", n each), not "
                           << ctx.numInputs() << " inputs";
  int64_t groups = tensors / perGroup;
  if (static_cast<int64_t>(ctx.numOutputs()) > (1 + opt.States) * groups)
    return ctx.emitError() << ctx.numOutputs() << " outputs, more than the "
                           << (1 + opt.States) * groups << " of " << groups
                           << " group(s)";
  for (size_t i = 0; i < ctx.numInputs(); ++i)
    if (!ctx.hasInput(i))
      return ctx.emitError() << "input " << i << " is empty";
  FailureOr<Value> r =
      scalarInput(ctx, 0, "R", {Float, Double}, "float or double");
  if (failed(r))
    return failure();
  FailureOr<Value> t = scalarInput(ctx, 1, "T", {Int64}, "int64");
  if (failed(t))
    return failure();
  int32_t dtype = ctx.inputDType(2);
  if (dtype != Float && dtype != Double)
    return ctx.unsupported("element type " + dtypeName(dtype) +
                           " (float or double)");
  for (int64_t i = 0; i < groups; ++i)
    for (int64_t k = 1; k < perGroup; ++k) {
      size_t in = 2 + k * groups + i;
      if (ctx.inputDType(in) != dtype)
        return ctx.emitError()
               << "input " << in << " is " << dtypeName(ctx.inputDType(in))
               << ", input 2 " << dtypeName(dtype);
      if (ctx.inputShape(in) != ctx.inputShape(2 + i))
        return ctx.emitError()
               << "input " << in << " is " << shapeString(ctx.inputShape(in))
               << ", but its X (input " << 2 + i << ") is "
               << shapeString(ctx.inputShape(2 + i));
    }
  if (ctx.failedAttributes())
    return failure();

  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  MLIRContext *mctx = ctx.context();
  Type element = ctx.inputType(2).getElementType();
  Type f64 = b.getF64Type();
  // The coefficients, each a 0-d tensor of the element type.
  size_t count = opt.NumCoefficients;
  llvm::SmallVector<Value> inits;
  llvm::SmallVector<Type> initTypes;
  for (size_t k = 0; k < count; ++k) {
    inits.push_back(
        tensor::EmptyOp::create(b, loc, llvm::ArrayRef<int64_t>{}, element));
    initTypes.push_back(inits.back().getType());
  }
  AffineMap scalarMap = AffineMap::get(0, 0, {}, mctx);
  auto scalars = linalg::GenericOp::create(
      b, loc, initTypes, ValueRange{*r, *t}, inits,
      llvm::SmallVector<AffineMap>(2 + count, scalarMap),
      llvm::ArrayRef<utils::IteratorType>{},
      [&](OpBuilder &nb, Location l, ValueRange args) {
        StepMath m{{nb, l, f64}};
        Value rate = convertScalar(nb, l, args[0], ctx.inputDType(0), Double);
        llvm::SmallVector<Value> values;
        for (Value v : opt.Coefficients(m, rate, args[1]))
          values.push_back(convertScalar(nb, l, v, Double, dtype));
        linalg::YieldOp::create(nb, l, values);
      });
  llvm::SmallVector<Value> coefficients(scalars.getResults());

  for (int64_t i = 0; i < groups; ++i) {
    auto type = ctx.inputType(2 + i);
    int64_t rank = type.getRank();
    llvm::SmallVector<Value> ins(coefficients);
    for (int64_t k = 0; k < perGroup; ++k)
      ins.push_back(ctx.input(2 + k * groups + i));
    llvm::SmallVector<Value> outs;
    for (int64_t k = 0; k <= opt.States; ++k)
      outs.push_back(tensor::EmptyOp::create(b, loc, type.getShape(), element));
    llvm::SmallVector<AffineMap> maps(count, AffineMap::get(rank, 0, {}, mctx));
    maps.append(perGroup + 1 + opt.States, b.getMultiDimIdentityMap(rank));
    auto step = linalg::GenericOp::create(
        b, loc, ValueRange(outs).getTypes(), ins, outs, maps,
        llvm::SmallVector<utils::IteratorType>(rank,
                                               utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location l, ValueRange args) {
          StepMath m{{nb, l, element}};
          ValueRange c = args.take_front(count);
          ValueRange tensorArgs = args.drop_front(count);
          linalg::YieldOp::create(nb, l,
                                  opt.Update(m, c, tensorArgs[0], tensorArgs[1],
                                             tensorArgs.slice(2, opt.States)));
        });
    // Output k * n + i is the k-th result of group i.
    for (int64_t k = 0; k <= opt.States; ++k)
      ctx.setOutput(k * groups + i, step.getResult(k), dtype);
  }
  return success();
}

/// Adagrad: r' = R / (1 + T decay_factor); g' = norm_coefficient x + g;
/// h' = h + g'^2; x' = x - r' g' / (sqrt(h') + epsilon).
LogicalResult convertAdagrad(NodeContext &ctx) {
  double decay = ctx.attrFloat("decay_factor", 0.0f);
  double epsilon = ctx.attrFloat("epsilon", 1e-6f);
  double norm = ctx.attrFloat("norm_coefficient", 0.0f);
  if (ctx.failedAttributes())
    return failure();
  auto coefficients = [&](StepMath &m, Value r, Value t) {
    Value steps = arith::SIToFPOp::create(m.B, m.L, m.Element, t);
    return llvm::SmallVector<Value>{
        m.div(r, m.add(m.cst(1), m.mul(steps, m.cst(decay))))};
  };
  auto update = [&](StepMath &m, ValueRange c, Value x, Value g,
                    ValueRange states) {
    Value reg = m.regularized(norm, x, g);
    Value h = m.add(states[0], m.mul(reg, reg));
    Value scale = m.add(m.sqrt(h), m.cst(epsilon));
    return llvm::SmallVector<Value>{m.sub(x, m.div(m.mul(c[0], reg), scale)),
                                    h};
  };
  return emitOptimizer(ctx, {1, "X, G and H", 1, coefficients, update});
}

/// Adam: g' = norm_coefficient x + g; v' = alpha v + (1 - alpha) g';
/// h' = beta h + (1 - beta) g'^2; r' = R sqrt(1 - beta^T) / (1 - alpha^T)
/// for T > 0, else R; x' = (1 - norm_coefficient_post)
/// (x - r' v' / (sqrt(h') + epsilon)).
LogicalResult convertAdam(NodeContext &ctx) {
  double alpha = ctx.attrFloat("alpha", 0.9f);
  double beta = ctx.attrFloat("beta", 0.999f);
  double epsilon = ctx.attrFloat("epsilon", 1e-6f);
  double norm = ctx.attrFloat("norm_coefficient", 0.0f);
  double normPost = ctx.attrFloat("norm_coefficient_post", 0.0f);
  if (ctx.failedAttributes())
    return failure();
  auto coefficients = [&](StepMath &m, Value r, Value t) {
    // alpha^T and beta^T by an integer power: T is a count, and a negative
    // alpha or beta is raised as numpy does.
    auto power = [&](double base) {
      return Value(math::FPowIOp::create(m.B, m.L, m.cst(base), t));
    };
    Value betaT = power(beta), alphaT = power(alpha);
    Value corrected = m.div(m.mul(r, m.sqrt(m.sub(m.cst(1), betaT))),
                            m.sub(m.cst(1), alphaT));
    return llvm::SmallVector<Value>{
        arith::SelectOp::create(m.B, m.L, m.positive(t), corrected, r)};
  };
  auto update = [&](StepMath &m, ValueRange c, Value x, Value g,
                    ValueRange states) {
    Value reg = m.regularized(norm, x, g);
    Value v =
        m.add(m.mul(m.cst(alpha), states[0]), m.mul(m.cst(1 - alpha), reg));
    Value h = m.add(m.mul(m.cst(beta), states[1]),
                    m.mul(m.cst(1 - beta), m.mul(reg, reg)));
    Value scale = m.add(m.sqrt(h), m.cst(epsilon));
    Value xNew = m.sub(x, m.mul(c[0], m.div(v, scale)));
    return llvm::SmallVector<Value>{m.mul(m.cst(1 - normPost), xNew), v, h};
  };
  return emitOptimizer(ctx, {2, "X, G, V and H", 1, coefficients, update});
}

/// Momentum: g' = norm_coefficient x + g; v' = alpha v + beta' g' with
/// beta' = beta for T > 0, else 1; x' = x - R v' (standard) or
/// x - R (g' + alpha v') (nesterov).
LogicalResult convertMomentum(NodeContext &ctx) {
  if (failed(requireAttrs(ctx, {"alpha", "beta", "mode", "norm_coefficient"})))
    return failure();
  double alpha = ctx.attrFloat("alpha", 0.0f);
  double beta = ctx.attrFloat("beta", 0.0f);
  double norm = ctx.attrFloat("norm_coefficient", 0.0f);
  std::string mode = ctx.attrString("mode", "");
  if (ctx.failedAttributes())
    return failure();
  if (mode != "standard" && mode != "nesterov")
    return ctx.unsupported("mode '" + mode + "' (standard or nesterov)");
  bool nesterov = mode == "nesterov";
  // The rate and beta': two coefficients.
  auto coefficients = [&](StepMath &m, Value r, Value t) {
    Value first = m.cst(1), later = m.cst(beta);
    return llvm::SmallVector<Value>{
        r, arith::SelectOp::create(m.B, m.L, m.positive(t), later, first)};
  };
  auto update = [&](StepMath &m, ValueRange c, Value x, Value g,
                    ValueRange states) {
    Value reg = m.regularized(norm, x, g);
    Value v = m.add(m.mul(m.cst(alpha), states[0]), m.mul(c[1], reg));
    Value step = nesterov ? m.add(reg, m.mul(m.cst(alpha), v)) : v;
    return llvm::SmallVector<Value>{m.sub(x, m.mul(c[0], step)), v};
  };
  return emitOptimizer(ctx, {1, "X, G and V", 2, coefficients, update});
}

} // namespace

void registerTrainingOps(OpRegistry &registry) {
  registry.add("Adagrad", convertAdagrad, kTrainingDomain);
  registry.add("Adam", convertAdam, kTrainingDomain);
  registry.add("Momentum", convertMomentum, kTrainingDomain);
}

} // namespace kiln::onnx_import
