//===- Recurrent.cpp - ONNX RNN, GRU and LSTM -----------------------------===//
//
// Shapes are static, so the recurrence is unrolled at import time. The
// input projection X * W^T (plus the biases) of every step and direction is
// one matmul before the steps; each step multiplies the previous hidden
// state by R^T (buildMatMul) and computes the gates and the new state in
// elementwise generics over [batch, hidden] that read their gate's columns
// as slices. A sequence_lens input masks each step at run time: past a
// batch entry's length the state is kept and Y is zero. The reverse
// direction walks the steps from the last one, so with the mask each entry
// starts at its own last step, which is ONNX's per-sequence reversal.
//
// activation_alpha and activation_beta are consumed in order by the
// activations that take the parameter (as onnxruntime reads them); the
// others take their op's default. clip bounds the input of every gate's
// activation.
//
//===----------------------------------------------------------------------===//

#include "compiler/onnx/ops/Common.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

enum class Cell { Rnn, Gru, Lstm };

// Input and output positions shared by the three ops.
enum Input : size_t {
  InX,
  InW,
  InR,
  InB,
  InSeqLens,
  InInitialH,
  InInitialC,
  InP
};

/// An activation with its alpha and beta bound.
struct Activation {
  NamedActivation::Fn Apply;
  double Alpha = 0, Beta = 0;
  Value operator()(OpBuilder &b, Location l, Value x) const {
    return Apply(b, l, x, Alpha, Beta);
  }
};

/// What the attributes and operand shapes say about one node.
struct Recurrence {
  Cell Kind;
  int64_t Gates;     // 1, 3 or 4 blocks of `Hidden` rows in W and R
  int64_t SeqLength; // T
  int64_t Batch, InputSize, Hidden, Directions;
  bool BatchFirst = false; // layout 1: X [B, T, I], Y [B, T, D, H]
  bool Reverse = false;    // the only direction runs backwards
  bool LinearBeforeReset = false;
  std::optional<double> Clip;
  // f, g (and h) of each direction.
  llvm::SmallVector<llvm::SmallVector<Activation, 3>, 2> Activations;
};

FailureOr<llvm::SmallVector<Activation>>
readActivations(NodeContext &ctx, int64_t perDirection, int64_t directions,
                llvm::ArrayRef<llvm::StringRef> defaults) {
  llvm::SmallVector<std::string> names = ctx.attrStrings("activations");
  if (names.empty())
    for (int64_t d = 0; d < directions; ++d)
      names.append(defaults.begin(), defaults.end());
  int64_t count = names.size();
  if (count != perDirection && count != perDirection * directions)
    return ctx.emitError() << "activations lists " << count
                           << " functions, want " << perDirection
                           << (directions > 1 ? " per direction" : ""),
           failure();
  llvm::SmallVector<float> alphas = ctx.attrFloats("activation_alpha");
  llvm::SmallVector<float> betas = ctx.attrFloats("activation_beta");
  size_t nextAlpha = 0, nextBeta = 0;
  llvm::SmallVector<Activation> result;
  for (const std::string &name : names) {
    std::optional<NamedActivation> named = namedActivation(name);
    if (!named)
      return ctx.unsupported("activation '" + name + "'");
    Activation a{named->Apply};
    if (named->Alpha)
      a.Alpha = nextAlpha < alphas.size() ? alphas[nextAlpha++] : *named->Alpha;
    if (named->Beta)
      a.Beta = nextBeta < betas.size() ? betas[nextBeta++] : *named->Beta;
    result.push_back(a);
  }
  // One set of functions serves both directions.
  if (count != perDirection * directions)
    result.append(llvm::SmallVector<Activation>(result));
  return result;
}

LogicalResult expectShape(NodeContext &ctx, size_t i, llvm::StringRef what,
                          llvm::ArrayRef<int64_t> want) {
  if (!ctx.hasInput(i) || ctx.inputShape(i) == want)
    return success();
  return ctx.emitError() << what << " is " << shapeString(ctx.inputShape(i))
                         << ", want " << shapeString(want);
}

FailureOr<Recurrence> readRecurrence(NodeContext &ctx, Cell kind) {
  if (ctx.opset() < 7)
    return ctx.unsupported("opset " + llvm::Twine(ctx.opset()) +
                           " (the forms before opset 7)");
  int32_t dtype = ctx.inputDType(InX);
  if (!isFloatDType(dtype))
    return ctx.unsupported("element type " + dtypeName(dtype) +
                           " (floats only)");
  for (size_t i : {InW, InR, InB, InInitialH, InInitialC, InP})
    if (ctx.hasInput(i) && failed(requireSameDType(ctx, i)))
      return failure();
  if (ctx.hasInput(InSeqLens) &&
      failed(ctx.requireDType(InSeqLens, {Int32, Int64})))
    return failure();
  if (kind != Cell::Lstm &&
      (ctx.hasInput(InInitialC) || ctx.hasInput(InP) || ctx.hasOutput(2)))
    return ctx.emitError() << "only LSTM has initial_c, P and Y_c", failure();

  Recurrence r;
  r.Kind = kind;
  r.Gates = kind == Cell::Rnn ? 1 : kind == Cell::Gru ? 3 : 4;
  if (ctx.inputRank(InX) != 3 || ctx.inputRank(InW) != 3 ||
      ctx.inputRank(InR) != 3)
    return ctx.emitError() << "X, W and R must have rank 3", failure();
  r.BatchFirst = ctx.opset() >= 14 && ctx.attrInt("layout", 0) != 0;
  llvm::ArrayRef<int64_t> x = ctx.inputShape(InX);
  r.SeqLength = r.BatchFirst ? x[1] : x[0];
  r.Batch = r.BatchFirst ? x[0] : x[1];
  r.InputSize = x[2];
  if (r.SeqLength == 0)
    return ctx.unsupported("seq_length 0");
  // Each step is unrolled into the IR: bound the work a file can ask for.
  if (r.SeqLength > kMaxRecurrentSteps)
    return ctx.unsupported("seq_length " + llvm::Twine(r.SeqLength) +
                           " (the importer unrolls at most " +
                           llvm::Twine(kMaxRecurrentSteps) + " steps)");
  std::string direction = ctx.attrString("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return ctx.emitError() << "direction '" << direction
                           << "' is not forward, reverse or bidirectional",
           failure();
  r.Directions = direction == "bidirectional" ? 2 : 1;
  r.Reverse = direction == "reverse";
  r.Hidden = ctx.attrInt("hidden_size", ctx.inputShape(InR)[2]);
  // R's shape bounds the hidden size that expectShape checks below.
  if (r.Hidden < 1 || r.Hidden > ctx.inputShape(InR)[2])
    return ctx.emitError() << "hidden_size " << r.Hidden << " does not fit R "
                           << shapeString(ctx.inputShape(InR)),
           failure();
  int64_t d = r.Directions, h = r.Hidden, gh = r.Gates * h;
  if (failed(expectShape(ctx, InW, "W", {d, gh, r.InputSize})) ||
      failed(expectShape(ctx, InR, "R", {d, gh, h})) ||
      failed(expectShape(ctx, InB, "B", {d, 2 * gh})) ||
      failed(expectShape(ctx, InSeqLens, "sequence_lens", {r.Batch})) ||
      failed(expectShape(ctx, InP, "P", {d, 3 * h})))
    return failure();
  llvm::SmallVector<int64_t> stateShape =
      r.BatchFirst ? llvm::SmallVector<int64_t>{r.Batch, d, h}
                   : llvm::SmallVector<int64_t>{d, r.Batch, h};
  if (failed(expectShape(ctx, InInitialH, "initial_h", stateShape)) ||
      failed(expectShape(ctx, InInitialC, "initial_c", stateShape)))
    return failure();
  if (const HostTensor *lens = ctx.constantInput(InSeqLens))
    for (int64_t len : lens->toInt64s())
      if (len < 0 || len > r.SeqLength)
        return ctx.emitError() << "sequence_lens holds " << len
                               << ", outside [0, " << r.SeqLength << "]",
               failure();
  if (ctx.hasAttr("clip")) {
    r.Clip = ctx.attrFloat("clip", 0.0f);
    if (*r.Clip <= 0)
      return ctx.emitError() << "clip " << *r.Clip << " is not positive",
             failure();
  }
  if (kind == Cell::Gru)
    r.LinearBeforeReset = ctx.attrInt("linear_before_reset", 0) != 0;
  if (kind == Cell::Lstm && ctx.attrInt("input_forget", 0) != 0)
    return ctx.unsupported("input_forget 1 (coupled input and forget gates)");

  FailureOr<llvm::SmallVector<Activation>> activations;
  switch (kind) {
  case Cell::Rnn:
    activations = readActivations(ctx, 1, d, {"Tanh"});
    break;
  case Cell::Gru:
    activations = readActivations(ctx, 2, d, {"Sigmoid", "Tanh"});
    break;
  case Cell::Lstm:
    activations = readActivations(ctx, 3, d, {"Sigmoid", "Tanh", "Tanh"});
    break;
  }
  if (failed(activations) || ctx.failedAttributes())
    return failure();
  int64_t perDirection = activations->size() / d;
  for (int64_t i = 0; i < d; ++i)
    r.Activations.emplace_back(
        llvm::ArrayRef(*activations).slice(i * perDirection, perDirection));
  return r;
}

/// The operands of a step's generic, each read by its position.
struct Operands {
  llvm::SmallVector<Value> Values;
  size_t add(Value v) {
    Values.push_back(v);
    return Values.size() - 1;
  }
};

/// Emits the unrolled recurrence of one node.
class Unroller {
public:
  Unroller(NodeContext &ctx, const Recurrence &r)
      : Ctx(ctx), B(ctx.builder()), Loc(ctx.loc()), Spec(r),
        Element(ctx.inputType(InX).getElementType()) {}

  LogicalResult run();

private:
  /// source[offsets, sizes] with its unit dimensions dropped to `shape`.
  Value slice(Value source, llvm::ArrayRef<int64_t> offsets,
              llvm::ArrayRef<int64_t> sizes, llvm::ArrayRef<int64_t> shape) {
    llvm::SmallVector<OpFoldResult> o, s, st;
    for (size_t i = 0; i < offsets.size(); ++i) {
      o.push_back(B.getIndexAttr(offsets[i]));
      s.push_back(B.getIndexAttr(sizes[i]));
      st.push_back(B.getIndexAttr(1));
    }
    return tensor::ExtractSliceOp::create(
        B, Loc, RankedTensorType::get(shape, Element), source, o, s, st);
  }
  /// Direction d's step t of the projection: [B, G*H].
  Value projected(int64_t t, int64_t d) {
    int64_t gh = Spec.Gates * Spec.Hidden;
    return Spec.BatchFirst ? slice(Projection, {0, t, d * gh},
                                   {Spec.Batch, 1, gh}, {Spec.Batch, gh})
                           : slice(Projection, {t, 0, d * gh},
                                   {1, Spec.Batch, gh}, {Spec.Batch, gh});
  }
  /// Columns [col, col + Hidden) of a [B, N] value.
  Value columns(Value v, int64_t col) {
    return slice(v, {0, col}, {Spec.Batch, Spec.Hidden},
                 {Spec.Batch, Spec.Hidden});
  }
  /// Direction d of initial_h or initial_c, zeros when absent.
  Value initialState(size_t input, int64_t d) {
    if (!Ctx.hasInput(input))
      return filledTensor(B, Loc, {Spec.Batch, Spec.Hidden}, Element,
                          scalarAttr(Element, 0));
    Value v = Ctx.input(input);
    return Spec.BatchFirst ? slice(v, {0, d, 0}, {Spec.Batch, 1, Spec.Hidden},
                                   {Spec.Batch, Spec.Hidden})
                           : slice(v, {d, 0, 0}, {1, Spec.Batch, Spec.Hidden},
                                   {Spec.Batch, Spec.Hidden});
  }
  /// Columns [col, col + width) of direction d's R^T: [hidden, width].
  Value recurrentWeights(int64_t d, int64_t col, int64_t width) {
    return slice(RecurrentT, {d, 0, col}, {1, Spec.Hidden, width},
                 {Spec.Hidden, width});
  }
  /// Elements [col, col + Hidden) of row d of a [D, N] input.
  Value rowSlice(size_t input, int64_t d, int64_t col) {
    return slice(Ctx.input(input), {d, col}, {1, Spec.Hidden}, {Spec.Hidden});
  }
  Value concat(llvm::ArrayRef<Value> values, int64_t axis) {
    if (values.size() == 1)
      return values[0];
    return tensor::ConcatOp::create(B, Loc, axis, values);
  }
  Value elementwise(const Operands &ops, ScalarBody body) {
    return buildElementwise(B, Loc, ops.Values, {Spec.Batch, Spec.Hidden},
                            Element, body);
  }
  Value clip(OpBuilder &b, Location l, Value x) const {
    if (!Spec.Clip)
      return x;
    Value hi = scalarConstant(b, l, x.getType(), *Spec.Clip);
    Value lo = scalarConstant(b, l, x.getType(), -*Spec.Clip);
    return arith::MinimumFOp::create(
        b, l, arith::MaximumFOp::create(b, l, x, lo), hi);
  }
  /// Whether step t is inside the sequence of the batch entry whose
  /// sequence_lens element is `len`.
  static Value inside(OpBuilder &b, Location l, Value len, int64_t t) {
    Value step = arith::ConstantIntOp::create(b, l, len.getType(), t);
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, step, len);
  }
  /// Adds the lengths to `ops` when masking.
  std::optional<size_t> addLens(Operands &ops) {
    return Lens ? std::optional<size_t>(ops.add(Lens)) : std::nullopt;
  }
  /// `next` at step t of the entries still in their sequence, else operand
  /// `prev`.
  static Value keepPast(OpBuilder &b, Location l, ValueRange a, Value next,
                        size_t prev, std::optional<size_t> lens, int64_t t) {
    if (!lens)
      return next;
    return arith::SelectOp::create(b, l, inside(b, l, a[*lens], t), next,
                                   a[prev]);
  }

  /// One step of direction d at time t from state (h, c); returns (h, c).
  /// `zeroH`: h is the zero initial state, so it has no product with R.
  FailureOr<std::pair<Value, Value>> step(int64_t d, int64_t t, Value h,
                                          Value c, bool zeroH);

  NodeContext &Ctx;
  OpBuilder &B;
  Location Loc;
  const Recurrence &Spec;
  Type Element;
  Value Projection; // [T, B, D*G*H] or [B, T, D*G*H], biases included
  Value RecurrentT; // [D, H, G*H]
  Value Lens;       // [B, 1] when masking
};

FailureOr<std::pair<Value, Value>> Unroller::step(int64_t d, int64_t t, Value h,
                                                  Value c, bool zeroH) {
  int64_t hs = Spec.Hidden;
  llvm::ArrayRef<Activation> act = Spec.Activations[d];
  auto add = [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::AddFOp::create(b, l, x, y);
  };
  auto mul = [](OpBuilder &b, Location l, Value x, Value y) -> Value {
    return arith::MulFOp::create(b, l, x, y);
  };
  // lhs * R^T's columns [col, col + width); null when lhs is zero (the
  // first step without initial_h: a matmul of zeros saved).
  auto recurrentProduct = [&](Value lhs, int64_t col,
                              int64_t width) -> FailureOr<Value> {
    if (zeroH)
      return Value();
    return buildMatMul(Ctx, lhs, recurrentWeights(d, col, width));
  };
  // Step t's projection, sliced once: the gates' slices of it then have the
  // same offsets at every step, so their dispatches dedupe across steps.
  Value xt = projected(t, d);
  // A gate's input from X (biases included) and from the previous h (none
  // when zero): the operands' positions; `hrCol` is the gate's column in
  // `hr`.
  struct GateIn {
    size_t X;
    std::optional<size_t> H;
  };
  auto gateInputs = [&](Operands &ops, int64_t gate, Value hr, int64_t hrCol) {
    GateIn in{ops.add(columns(xt, gate * hs)), std::nullopt};
    if (hr)
      in.H = ops.add(columns(hr, hrCol));
    return in;
  };
  auto preActivation = [&](OpBuilder &b, Location l, ValueRange a, GateIn g) {
    return g.H ? add(b, l, a[g.X], a[*g.H]) : a[g.X];
  };

  if (Spec.Kind == Cell::Rnn) {
    FailureOr<Value> hr = recurrentProduct(h, 0, hs);
    if (failed(hr))
      return failure();
    Operands ops;
    GateIn in = gateInputs(ops, 0, *hr, 0);
    size_t prev = ops.add(h);
    std::optional<size_t> lens = addLens(ops);
    Value next = elementwise(ops, [&](OpBuilder &b, Location l, ValueRange a) {
      Value y = act[0](b, l, clip(b, l, preActivation(b, l, a, in)));
      return keepPast(b, l, a, y, prev, lens, t);
    });
    return std::make_pair(next, Value());
  }

  if (Spec.Kind == Cell::Gru) {
    // z and r, then the candidate h~ whose recurrent term depends on r.
    int64_t width = Spec.LinearBeforeReset ? 3 * hs : 2 * hs;
    FailureOr<Value> hr = recurrentProduct(h, 0, width);
    if (failed(hr))
      return failure();
    Value candidateHr; // (r . h) R_h^T without linear_before_reset
    if (!Spec.LinearBeforeReset && !zeroH) {
      Operands ops;
      GateIn reset = gateInputs(ops, 1, *hr, hs);
      size_t prev = ops.add(h);
      Value resetH =
          elementwise(ops, [&](OpBuilder &b, Location l, ValueRange a) {
            Value r = act[0](b, l, clip(b, l, preActivation(b, l, a, reset)));
            return mul(b, l, r, a[prev]);
          });
      FailureOr<Value> product = recurrentProduct(resetH, 2 * hs, hs);
      if (failed(product))
        return failure();
      candidateHr = *product;
    }
    Operands ops;
    GateIn update = gateInputs(ops, 0, *hr, 0);
    size_t xh = ops.add(columns(xt, 2 * hs));
    GateIn reset{0, std::nullopt};
    std::optional<size_t> hh;
    size_t rbh = 0;
    if (Spec.LinearBeforeReset) {
      reset = gateInputs(ops, 1, *hr, hs);
      if (*hr)
        hh = ops.add(columns(*hr, 2 * hs));
      if (Ctx.hasInput(InB))
        rbh = ops.add(rowSlice(InB, d, 5 * hs));
    } else if (candidateHr) {
      hh = ops.add(candidateHr);
    }
    size_t prev = ops.add(h);
    std::optional<size_t> lens = addLens(ops);
    bool lbr = Spec.LinearBeforeReset, hasRbh = Ctx.hasInput(InB);
    Value next = elementwise(ops, [&](OpBuilder &b, Location l, ValueRange a) {
      Value z = act[0](b, l, clip(b, l, preActivation(b, l, a, update)));
      Value recurrent = hh ? a[*hh] : Value();
      if (lbr && hasRbh)
        recurrent = recurrent ? add(b, l, recurrent, a[rbh]) : a[rbh];
      if (lbr && recurrent) {
        Value r = act[0](b, l, clip(b, l, preActivation(b, l, a, reset)));
        recurrent = mul(b, l, r, recurrent);
      }
      Value pre = recurrent ? add(b, l, a[xh], recurrent) : a[xh];
      Value candidate = act[1](b, l, clip(b, l, pre));
      // (1 - z) h~ + z h = h~ + z (h - h~)
      Value y =
          add(b, l, candidate,
              mul(b, l, z, arith::SubFOp::create(b, l, a[prev], candidate)));
      return keepPast(b, l, a, y, prev, lens, t);
    });
    return std::make_pair(next, Value());
  }

  // LSTM, gates i, o, f, c: the cell state first, then h from it.
  FailureOr<Value> hr = recurrentProduct(h, 0, 4 * hs);
  if (failed(hr))
    return failure();
  bool peep = Ctx.hasInput(InP);
  Operands cellOps;
  GateIn input = gateInputs(cellOps, 0, *hr, 0);
  GateIn forget = gateInputs(cellOps, 2, *hr, 2 * hs);
  GateIn candidate = gateInputs(cellOps, 3, *hr, 3 * hs);
  size_t prevC = cellOps.add(c);
  size_t pi = 0, pf = 0;
  if (peep) {
    pi = cellOps.add(rowSlice(InP, d, 0));
    pf = cellOps.add(rowSlice(InP, d, 2 * hs));
  }
  std::optional<size_t> cellLens = addLens(cellOps);
  Value nextC =
      elementwise(cellOps, [&](OpBuilder &b, Location l, ValueRange a) {
        Value ip = preActivation(b, l, a, input);
        Value fp = preActivation(b, l, a, forget);
        if (peep) {
          ip = add(b, l, ip, mul(b, l, a[pi], a[prevC]));
          fp = add(b, l, fp, mul(b, l, a[pf], a[prevC]));
        }
        Value i = act[0](b, l, clip(b, l, ip));
        Value f = act[0](b, l, clip(b, l, fp));
        Value g = act[1](b, l, clip(b, l, preActivation(b, l, a, candidate)));
        Value y = add(b, l, mul(b, l, f, a[prevC]), mul(b, l, i, g));
        return keepPast(b, l, a, y, prevC, cellLens, t);
      });
  Operands hOps;
  GateIn output = gateInputs(hOps, 1, *hr, hs);
  size_t cell = hOps.add(nextC);
  size_t po = peep ? hOps.add(rowSlice(InP, d, hs)) : 0;
  size_t prevH = hOps.add(h);
  std::optional<size_t> hLens = addLens(hOps);
  Value nextH = elementwise(hOps, [&](OpBuilder &b, Location l, ValueRange a) {
    Value op = preActivation(b, l, a, output);
    if (peep)
      op = add(b, l, op, mul(b, l, a[po], a[cell]));
    Value o = act[0](b, l, clip(b, l, op));
    Value y = mul(b, l, o, act[2](b, l, a[cell]));
    return keepPast(b, l, a, y, prevH, hLens, t);
  });
  return std::make_pair(nextH, nextC);
}

LogicalResult Unroller::run() {
  int64_t t = Spec.SeqLength, n = Spec.Batch, hs = Spec.Hidden,
          dirs = Spec.Directions;
  int64_t gh = Spec.Gates * hs;
  llvm::ArrayRef<int64_t> xShape = Ctx.inputShape(InX);

  // X * W^T of every step and direction: [T*B, I] x [I, D*G*H].
  Value x2 = reshapeTo(B, Loc, Ctx.input(InX), {t * n, Spec.InputSize});
  Value wt = reshapeTo(B, Loc, transposedInput(Ctx, InW, {2, 0, 1}),
                       {Spec.InputSize, dirs * gh});
  FailureOr<Value> xw = buildMatMul(Ctx, x2, wt);
  if (failed(xw))
    return failure();
  Projection = reshapeTo(B, Loc, *xw, {xShape[0], xShape[1], dirs * gh});
  if (Ctx.hasInput(InB)) {
    // Wb + Rb; GRU's Rb of h~ with linear_before_reset is added inside
    // r . (h R_h^T + Rb_h), so not here.
    Value bias = Ctx.input(InB);
    Value wb = slice(bias, {0, 0}, {dirs, gh}, {dirs, gh});
    Value rb = slice(bias, {0, gh}, {dirs, gh}, {dirs, gh});
    if (Spec.LinearBeforeReset) {
      Value zr = slice(bias, {0, gh}, {dirs, 2 * hs}, {dirs, 2 * hs});
      Value zeros =
          filledTensor(B, Loc, {dirs, hs}, Element, scalarAttr(Element, 0));
      rb = concat({zr, zeros}, 1);
    }
    Value p4 = reshapeTo(B, Loc, Projection, {xShape[0], xShape[1], dirs, gh});
    p4 =
        buildElementwise(B, Loc, {p4, wb, rb}, {xShape[0], xShape[1], dirs, gh},
                         Element, [](OpBuilder &b, Location l, ValueRange a) {
                           Value sum = arith::AddFOp::create(b, l, a[1], a[2]);
                           return Value(arith::AddFOp::create(b, l, a[0], sum));
                         });
    Projection = reshapeTo(B, Loc, p4, {xShape[0], xShape[1], dirs * gh});
  }
  RecurrentT = transposedInput(Ctx, InR, {0, 2, 1});
  if (Ctx.hasInput(InSeqLens))
    Lens = reshapeTo(B, Loc, Ctx.input(InSeqLens), {n, 1});

  bool wantY = Ctx.hasOutput(0);
  // Y pieces [1, 1, B, H] (layout 0) or [B, 1, 1, H] (layout 1) by direction
  // and time; the final states [1, B, H] or [B, 1, H] by direction.
  llvm::SmallVector<int64_t> yPiece =
      Spec.BatchFirst ? llvm::SmallVector<int64_t>{n, 1, 1, hs}
                      : llvm::SmallVector<int64_t>{1, 1, n, hs};
  llvm::SmallVector<int64_t> statePiece =
      Spec.BatchFirst ? llvm::SmallVector<int64_t>{n, 1, hs}
                      : llvm::SmallVector<int64_t>{1, n, hs};
  int64_t timeAxis = Spec.BatchFirst ? 1 : 0, dirAxis = timeAxis + 1;
  int64_t stateAxis = Spec.BatchFirst ? 1 : 0;
  llvm::SmallVector<Value> yByDirection, hFinal, cFinal;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = dirs == 2 ? d == 1 : Spec.Reverse;
    Value h = initialState(InInitialH, d);
    Value c = Spec.Kind == Cell::Lstm ? initialState(InInitialC, d) : Value();
    llvm::SmallVector<Value> ySteps(t);
    for (int64_t s = 0; s < t; ++s) {
      int64_t time = reverse ? t - 1 - s : s;
      FailureOr<std::pair<Value, Value>> next =
          step(d, time, h, c, s == 0 && !Ctx.hasInput(InInitialH));
      if (failed(next))
        return failure();
      std::tie(h, c) = *next;
      if (!wantY)
        continue;
      Value y = h;
      if (Lens) {
        // Zeros past each entry's length.
        Operands ops;
        size_t hi = ops.add(h);
        size_t li = ops.add(Lens);
        y = elementwise(ops, [&](OpBuilder &b, Location l, ValueRange a) {
          Value zero = scalarConstant(b, l, a[hi].getType(), 0);
          return Value(arith::SelectOp::create(b, l, inside(b, l, a[li], time),
                                               a[hi], zero));
        });
      }
      ySteps[time] = reshapeTo(B, Loc, y, yPiece);
    }
    if (wantY)
      yByDirection.push_back(concat(ySteps, timeAxis));
    hFinal.push_back(reshapeTo(B, Loc, h, statePiece));
    if (c)
      cFinal.push_back(reshapeTo(B, Loc, c, statePiece));
  }
  int32_t dtype = Ctx.inputDType(InX);
  if (wantY)
    Ctx.setOutput(0, concat(yByDirection, dirAxis), dtype);
  if (Ctx.hasOutput(1))
    Ctx.setOutput(1, concat(hFinal, stateAxis), dtype);
  if (Ctx.hasOutput(2))
    Ctx.setOutput(2, concat(cFinal, stateAxis), dtype);
  return success();
}

LogicalResult convertRecurrent(NodeContext &ctx, Cell kind) {
  FailureOr<Recurrence> r = readRecurrence(ctx, kind);
  if (failed(r))
    return failure();
  return Unroller(ctx, *r).run();
}

} // namespace

void registerRecurrentOps(OpRegistry &registry) {
  registry.add(
      "RNN", [](NodeContext &ctx) { return convertRecurrent(ctx, Cell::Rnn); });
  registry.add(
      "GRU", [](NodeContext &ctx) { return convertRecurrent(ctx, Cell::Gru); });
  registry.add("LSTM", [](NodeContext &ctx) {
    return convertRecurrent(ctx, Cell::Lstm);
  });
}

} // namespace kiln::onnx_import
