//===- ControlFlow.cpp - ONNX If and Scan ---------------------------------===//
//
// Subgraphs are imported inline (ImportScope::ImportBody), with the
// enclosing graph's values visible to them:
//
// - If: a condition known at import imports only its branch. One known per
//   call (a graph input, or computed) imports both branches and selects each
//   output elementwise by the condition, which the kernel reads as data; so
//   the branches' outputs must agree in type and static shape. Both branches
//   run: a check of the one not taken (an index out of range) fails the call
//   too.
// - Loop: a constant trip count unrolls it as Scan, the step number a
//   constant of each step; a condition known per call masks each step (a
//   step after it turned false keeps the loop-carried values). A trip
//   count known per call (or absent, or long), or scan outputs whose length
//   such a condition decides, make the body a function the runtime repeats
//   (convertRuntimeLoop; compiler/host/Phases.h).
// - Scan: the sequence length is static, so the body is imported once per
//   step (as RNN, GRU and LSTM are unrolled), reading each scan input's
//   slice at the step along its axis (from the end for a reverse direction)
//   and stacking each scan output's per-step values along its axis. Opset
//   8's batch dimension runs the steps per batch entry and stacks those.
//
//===----------------------------------------------------------------------===//

#include "compiler/host/LoopCalls.h"
#include "compiler/onnx/ops/Common.h"
#include "schema/LoopSteps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "onnx/onnx_pb.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// The graph attribute `name`, or null after an error.
const onnx::GraphProto *graphAttr(NodeContext &ctx, llvm::StringRef name) {
  const onnx::AttributeProto *attr = ctx.attr(name);
  if (!attr || attr->type() != onnx::AttributeProto::GRAPH || !attr->has_g()) {
    (void)(ctx.emitError() << "needs a graph attribute '" << name << "'");
    return nullptr;
  }
  return &attr->g();
}

/// Imports `body` with `inputs`; failure after an error, or when it gives
/// another number of outputs than `outputs`.
FailureOr<llvm::SmallVector<OnnxValue>>
importBody(NodeContext &ctx, const onnx::GraphProto &body,
           llvm::ArrayRef<OnnxValue> inputs, size_t outputs) {
  FailureOr<llvm::SmallVector<OnnxValue>> results =
      ctx.scope().ImportBody(body, inputs, ctx.displayName());
  if (failed(results))
    return failure();
  if (results->size() != outputs)
    return ctx.emitError() << "its subgraph gives " << results->size()
                           << " output(s), the node has " << outputs,
           failure();
  return results;
}

/// `value` as a tensor at the builder's point (a constant materialized).
Value tensorOf(NodeContext &ctx, OnnxValue value) {
  return materialize(ctx.builder(), value);
}

/// Sets output `i` to a subgraph's output as it is (a constant stays one).
void forward(NodeContext &ctx, size_t i, const OnnxValue &value) {
  if (value.Constant)
    ctx.setOutput(i, *value.Constant);
  else
    ctx.setOutput(i, value.Value, value.DType);
}

FailureOr<bool> convertIfByLoops(NodeContext &ctx,
                                 const onnx::GraphProto &thenBranch,
                                 const onnx::GraphProto &elseBranch);

LogicalResult convertIf(NodeContext &ctx) {
  const onnx::GraphProto *thenBranch = graphAttr(ctx, "then_branch");
  const onnx::GraphProto *elseBranch = graphAttr(ctx, "else_branch");
  if (!thenBranch || !elseBranch)
    return failure();
  if (ctx.inputDType(0) != Bool || !ctx.inputType(0).hasStaticShape() ||
      ctx.inputType(0).getNumElements() != 1)
    return ctx.emitError() << "cond must be one bool, not "
                           << dtypeName(ctx.inputDType(0)) << " "
                           << shapeString(ctx.inputShape(0));
  size_t outputs = ctx.numOutputs();
  if (const HostTensor *cond = ctx.constantInput(0)) {
    FailureOr<llvm::SmallVector<OnnxValue>> taken = importBody(
        ctx, cond->intAt(0) ? *thenBranch : *elseBranch, {}, outputs);
    if (failed(taken))
      return failure();
    for (auto [i, value] : llvm::enumerate(*taken))
      forward(ctx, i, value);
    return success();
  }
  // Branches whose outputs differ in shape: one of two loops of at most
  // one step runs, by the condition.
  FailureOr<bool> byLoops = convertIfByLoops(ctx, *thenBranch, *elseBranch);
  if (failed(byLoops) || *byLoops)
    return byLoops;
  FailureOr<llvm::SmallVector<OnnxValue>> thenOut =
      importBody(ctx, *thenBranch, {}, outputs);
  if (failed(thenOut))
    return failure();
  FailureOr<llvm::SmallVector<OnnxValue>> elseOut =
      importBody(ctx, *elseBranch, {}, outputs);
  if (failed(elseOut))
    return failure();
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  // The condition read by every element: viewed as 0-d.
  Value cond = reshapeTo(b, loc, ctx.input(0), {});
  for (size_t i = 0; i < outputs; ++i) {
    const OnnxValue &a = (*thenOut)[i], &c = (*elseOut)[i];
    llvm::ArrayRef<int64_t> shape = a.Type.getShape();
    if (a.DType != c.DType || a.Type != c.Type || !a.Type.hasStaticShape())
      return ctx.unsupported(
          "output " + std::to_string(i) +
          " of a condition known per call from branches giving " +
          dtypeName(a.DType) + "[" + shapeString(shape) + "] and " +
          dtypeName(c.DType) + "[" + shapeString(c.Type.getShape()) +
          "] (one element type and rank)");
    Value selected = buildElementwise(
        b, loc, {cond, tensorOf(ctx, a), tensorOf(ctx, c)}, shape,
        a.Type.getElementType(), [](OpBuilder &nb, Location l, ValueRange v) {
          return Value(arith::SelectOp::create(nb, l, v[0], v[1], v[2]));
        });
    ctx.setOutput(i, selected, a.DType);
  }
  return success();
}

/// `value`'s element `index` along `axis`, that axis dropped.
Value sliceAt(OpBuilder &b, Location loc, Value value, int64_t axis,
              int64_t index) {
  auto type = cast<RankedTensorType>(value.getType());
  llvm::SmallVector<OpFoldResult> offsets, sizes, strides;
  llvm::SmallVector<int64_t> shape;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    offsets.push_back(b.getIndexAttr(d == axis ? index : 0));
    sizes.push_back(b.getIndexAttr(d == axis ? 1 : type.getDimSize(d)));
    strides.push_back(b.getIndexAttr(1));
    if (d != axis)
      shape.push_back(type.getDimSize(d));
  }
  return tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      offsets, sizes, strides);
}

/// `values` (one shape) stacked along a new dimension `axis`.
Value stack(OpBuilder &b, Location loc, llvm::ArrayRef<Value> values,
            int64_t axis) {
  llvm::SmallVector<Value> parts;
  for (Value v : values) {
    llvm::SmallVector<int64_t> shape(
        cast<RankedTensorType>(v.getType()).getShape());
    shape.insert(shape.begin() + axis, 1);
    parts.push_back(reshapeTo(b, loc, v, shape));
  }
  if (parts.size() == 1)
    return parts.front();
  return tensor::ConcatOp::create(b, loc, axis, parts);
}

/// How a Scan walks its inputs and stacks its outputs (opset 9's
/// attributes; opset 8's are axis 0 and its directions for both).
struct ScanSpec {
  int64_t States = 0, ScanInputs = 0, ScanOutputs = 0;
  llvm::SmallVector<int64_t> InputAxes, InputDirections;
  llvm::SmallVector<int64_t> OutputAxes, OutputDirections;
};

/// The body run over `steps` steps from `states` over `scans`: the final
/// states, then each scan output stacked.
FailureOr<llvm::SmallVector<OnnxValue>>
unrollScan(NodeContext &ctx, const onnx::GraphProto &body, const ScanSpec &spec,
           llvm::SmallVector<OnnxValue> states, llvm::ArrayRef<Value> scans,
           int64_t steps) {
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  llvm::SmallVector<llvm::SmallVector<Value>> perStep(spec.ScanOutputs);
  llvm::SmallVector<int32_t> outTypes(spec.ScanOutputs, 0);
  for (int64_t t = 0; t < steps; ++t) {
    llvm::SmallVector<OnnxValue> inputs = states;
    for (auto [j, scan] : llvm::enumerate(scans)) {
      int64_t at = spec.InputDirections[j] ? steps - 1 - t : t;
      Value slice = sliceAt(b, loc, scan, spec.InputAxes[j], at);
      inputs.push_back(
          OnnxValue{cast<RankedTensorType>(slice.getType()),
                    ctx.inputDType(ctx.numInputs() - spec.ScanInputs + j),
                    slice, std::nullopt, ""});
    }
    FailureOr<llvm::SmallVector<OnnxValue>> out = importBody(
        ctx, body, inputs, static_cast<size_t>(spec.States + spec.ScanOutputs));
    if (failed(out))
      return failure();
    for (int64_t s = 0; s < spec.States; ++s) {
      const OnnxValue &next = (*out)[s];
      if (next.Type != states[s].Type || next.DType != states[s].DType)
        return ctx.emitError() << "its body changes state " << s << " from "
                               << dtypeName(states[s].DType) << " "
                               << shapeString(states[s].Type.getShape())
                               << " to " << dtypeName(next.DType) << " "
                               << shapeString(next.Type.getShape()),
               failure();
      states[s] = next;
    }
    for (int64_t k = 0; k < spec.ScanOutputs; ++k) {
      const OnnxValue &v = (*out)[spec.States + k];
      if (t > 0 &&
          (v.Type != cast<RankedTensorType>(perStep[k].front().getType()) ||
           v.DType != outTypes[k]))
        return ctx.emitError() << "its body's scan output " << k
                               << " changes type between steps",
               failure();
      if (!v.Type.hasStaticShape())
        return (void)ctx.unsupported("scan output " + std::to_string(k) +
                                     " of dynamic shape"),
               failure();
      outTypes[k] = v.DType;
      perStep[k].push_back(tensorOf(ctx, v));
    }
  }
  llvm::SmallVector<OnnxValue> results = states;
  for (int64_t k = 0; k < spec.ScanOutputs; ++k) {
    llvm::SmallVector<Value> ordered = perStep[k];
    // A reverse direction stacks the last step's value first.
    if (spec.OutputDirections[k])
      std::reverse(ordered.begin(), ordered.end());
    int64_t rank =
        cast<RankedTensorType>(ordered.front().getType()).getRank() + 1;
    int64_t axis =
        spec.OutputAxes[k] < 0 ? spec.OutputAxes[k] + rank : spec.OutputAxes[k];
    if (axis < 0 || axis >= rank)
      return ctx.emitError() << "scan_output_axes " << spec.OutputAxes[k]
                             << " is outside rank " << rank,
             failure();
    Value stacked = stack(b, loc, ordered, axis);
    results.push_back(OnnxValue{cast<RankedTensorType>(stacked.getType()),
                                outTypes[k], stacked, std::nullopt, ""});
  }
  return results;
}

/// An attribute list of `count` entries, each `fallback` when absent.
FailureOr<llvm::SmallVector<int64_t>> perEntry(NodeContext &ctx,
                                               llvm::StringRef name,
                                               int64_t count,
                                               int64_t fallback) {
  llvm::SmallVector<int64_t> values = ctx.attrInts(name);
  if (values.empty())
    values.assign(count, fallback);
  if (static_cast<int64_t>(values.size()) != count)
    return ctx.emitError() << name << " has " << values.size()
                           << " entries for " << count,
           failure();
  return values;
}

LogicalResult convertScan(NodeContext &ctx) {
  const onnx::GraphProto *body = graphAttr(ctx, "body");
  if (!body)
    return failure();
  bool batched = ctx.opset() < 9;
  // Opset 8's first input is sequence_lens (all steps when absent).
  size_t first = batched ? 1 : 0;
  if (batched && ctx.hasInput(0))
    return ctx.unsupported("sequence_lens");
  ScanSpec spec;
  spec.ScanInputs = ctx.attrInt("num_scan_inputs", -1);
  int64_t inputs = static_cast<int64_t>(ctx.numInputs()) - first;
  spec.States = inputs - spec.ScanInputs;
  if (ctx.failedAttributes())
    return failure();
  if (spec.ScanInputs < 1 || spec.States < 0)
    return ctx.emitError() << "num_scan_inputs " << spec.ScanInputs
                           << " does not fit its " << inputs << " inputs";
  spec.ScanOutputs = static_cast<int64_t>(ctx.numOutputs()) - spec.States;
  if (spec.ScanOutputs < 0)
    return ctx.emitError() << "has fewer outputs than its " << spec.States
                           << " states";
  FailureOr<llvm::SmallVector<int64_t>> inAxes =
      batched ? FailureOr<llvm::SmallVector<int64_t>>(
                    llvm::SmallVector<int64_t>(spec.ScanInputs, 0))
              : perEntry(ctx, "scan_input_axes", spec.ScanInputs, 0);
  FailureOr<llvm::SmallVector<int64_t>> inDirs =
      perEntry(ctx, batched ? "directions" : "scan_input_directions",
               spec.ScanInputs, 0);
  FailureOr<llvm::SmallVector<int64_t>> outAxes =
      batched ? FailureOr<llvm::SmallVector<int64_t>>(
                    llvm::SmallVector<int64_t>(spec.ScanOutputs, 0))
              : perEntry(ctx, "scan_output_axes", spec.ScanOutputs, 0);
  FailureOr<llvm::SmallVector<int64_t>> outDirs =
      batched ? FailureOr<llvm::SmallVector<int64_t>>(
                    llvm::SmallVector<int64_t>(spec.ScanOutputs, 0))
              : perEntry(ctx, "scan_output_directions", spec.ScanOutputs, 0);
  if (failed(inAxes) || failed(inDirs) || failed(outAxes) || failed(outDirs))
    return failure();
  spec.InputDirections = *inDirs;
  spec.OutputAxes = *outAxes;
  spec.OutputDirections = *outDirs;
  for (size_t i = first; i < ctx.numInputs(); ++i)
    if (!ctx.hasInput(i) || !ctx.inputType(i).hasStaticShape())
      return ctx.unsupported(
          "input " + std::to_string(i) +
          (ctx.hasInput(i) ? " of dynamic shape" : " left out"));
  // Opset 8 runs the steps per batch entry (dimension 0 of every input),
  // each scan input's sequence then along its dimension 1.
  int64_t batch = 1;
  if (batched) {
    batch = ctx.inputShape(first)[0];
    for (size_t i = first; i < ctx.numInputs(); ++i)
      if (ctx.inputRank(i) < 1 || ctx.inputShape(i)[0] != batch)
        return ctx.emitError()
               << "input " << i << " has no batch dimension of " << batch;
  }
  // Every scan input's sequence length along its axis: one static T.
  int64_t steps = -1;
  for (int64_t j = 0; j < spec.ScanInputs; ++j) {
    size_t i = first + spec.States + j;
    int64_t rank = ctx.inputRank(i) - (batched ? 1 : 0);
    int64_t axis = (*inAxes)[j] < 0 ? (*inAxes)[j] + rank : (*inAxes)[j];
    if (axis < 0 || axis >= rank)
      return ctx.emitError() << "scan input " << j << " axis " << (*inAxes)[j]
                             << " is outside rank " << rank;
    spec.InputAxes.push_back(axis);
    int64_t length = ctx.inputShape(i)[axis + (batched ? 1 : 0)];
    if (steps >= 0 && length != steps)
      return ctx.emitError()
             << "scan inputs of " << steps << " and " << length << " steps";
    steps = length;
  }
  if (steps < 1)
    return ctx.unsupported("scan of no steps");
  if (steps * batch > kMaxRecurrentSteps)
    return ctx.unsupported("scan of " + std::to_string(steps * batch) +
                           " steps (the importer unrolls at most " +
                           std::to_string(kMaxRecurrentSteps) + ")");
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  llvm::SmallVector<llvm::SmallVector<OnnxValue>> perBatch;
  for (int64_t n = 0; n < batch; ++n) {
    llvm::SmallVector<OnnxValue> states;
    llvm::SmallVector<Value> scans;
    for (int64_t s = 0; s < spec.States; ++s) {
      OnnxValue state = ctx.inputInfo(first + s);
      if (batched) {
        Value slice = sliceAt(b, loc, ctx.input(first + s), 0, n);
        state = OnnxValue{cast<RankedTensorType>(slice.getType()), state.DType,
                          slice, std::nullopt, ""};
      }
      states.push_back(state);
    }
    for (int64_t j = 0; j < spec.ScanInputs; ++j) {
      Value scan = ctx.input(first + spec.States + j);
      scans.push_back(batched ? sliceAt(b, loc, scan, 0, n) : scan);
    }
    FailureOr<llvm::SmallVector<OnnxValue>> results =
        unrollScan(ctx, *body, spec, states, scans, steps);
    if (failed(results))
      return failure();
    perBatch.push_back(std::move(*results));
  }
  for (int64_t i = 0; i < spec.States + spec.ScanOutputs; ++i) {
    if (!batched) {
      forward(ctx, i, perBatch.front()[i]);
      continue;
    }
    llvm::SmallVector<Value> entries;
    for (auto &results : perBatch)
      entries.push_back(tensorOf(ctx, results[i]));
    ctx.setOutput(i, stack(b, loc, entries, 0), perBatch.front()[i].DType);
  }
  return success();
}

/// `value` as a 0-d bool tensor (a condition of one element).
Value conditionTensor(NodeContext &ctx, const OnnxValue &value) {
  return reshapeTo(ctx.builder(), ctx.loc(), tensorOf(ctx, value), {});
}

/// A type both `a` and `b` fit: their dimensions where they agree, `?`
/// elsewhere (one rank).
RankedTensorType joinTypes(RankedTensorType a, RankedTensorType b) {
  llvm::SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip_equal(a.getShape(), b.getShape()))
    shape.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(shape, a.getElementType());
}

/// Whether a value of type `value` fits where `slot` is declared: one rank,
/// the slot's static dimensions kept.
bool fitsIn(RankedTensorType value, RankedTensorType slot) {
  if (value.getRank() != slot.getRank())
    return false;
  for (auto [v, s] : llvm::zip_equal(value.getShape(), slot.getShape()))
    if (!ShapedType::isDynamic(s) && v != s)
      return false;
  return true;
}

/// A 0-d constant tensor of `type` holding `value`.
Value scalarTensor(OpBuilder &b, Location loc, Type type, int64_t value) {
  auto shaped = RankedTensorType::get({}, type);
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(
          shaped, IntegerAttr::get(
                      type, APInt(type.getIntOrFloatBitWidth(), value, true))));
}

/// A Loop the runtime repeats (compiler/host/Phases.h): the trip count or
/// the condition is known per call. The body becomes a function of the
/// module, on (iteration, condition, carried..., the enclosing values it
/// reads...) giving (condition, carried..., scan slices...); the node a
/// call of a declaration standing for the loop, which kiln-split-phases
/// makes a loop phase. A carried value whose shape the body changes is
/// declared with `?` where it does (the body imported again so).
LogicalResult convertRuntimeLoop(NodeContext &ctx, const onnx::GraphProto &body,
                                 int64_t carried, int64_t scanned) {
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  Type i64 = b.getI64Type(), i1 = b.getI1Type();
  auto scalar = [](Type t) { return RankedTensorType::get({}, t); };
  Value trips;
  if (ctx.hasInput(0)) {
    if (ctx.inputDType(0) != Int64 || !ctx.inputType(0).hasStaticShape() ||
        ctx.inputType(0).getNumElements() != 1)
      return ctx.emitError() << "trip count must be one int64, not "
                             << dtypeName(ctx.inputDType(0)) << " "
                             << shapeString(ctx.inputShape(0));
    trips = reshapeTo(b, loc, ctx.input(0), {});
  } else {
    // No trip count: the condition alone ends the loop (and the runtime's
    // bound on steps).
    trips = scalarTensor(b, loc, i64, std::numeric_limits<int64_t>::max());
  }
  Value cond = ctx.hasInput(1) ? reshapeTo(b, loc, ctx.input(1), {})
                               : scalarTensor(b, loc, i1, 1);
  llvm::SmallVector<OnnxValue> inputs = {
      OnnxValue{scalar(i64), Int64, Value(), std::nullopt, ""},
      OnnxValue{scalar(i1), Bool, Value(), std::nullopt, ""}};
  llvm::SmallVector<Value> operands = {trips, cond};
  for (int64_t k = 0; k < carried; ++k) {
    if (!ctx.hasInput(2 + k))
      return ctx.emitError() << "loop-carried value " << k << " is missing";
    OnnxValue value = ctx.inputInfo(2 + k);
    operands.push_back(tensorOf(ctx, value));
    inputs.push_back(
        OnnxValue{value.Type, value.DType, Value(), std::nullopt, ""});
  }
  std::optional<ImportScope::BodyFunction> imported;
  for (int attempt = 0; attempt < 2 && !imported; ++attempt) {
    FailureOr<ImportScope::BodyFunction> function =
        ctx.scope().ImportBodyFunction(body, inputs, ctx.displayName());
    if (failed(function))
      return failure();
    if (function->Outputs.size() !=
        static_cast<size_t>(1 + carried + scanned)) {
      function->Func.erase();
      return ctx.emitError()
             << "its subgraph gives " << function->Outputs.size()
             << " output(s), the node has " << ctx.numOutputs() << " and "
             << carried << " loop-carried value(s)";
    }
    bool refit = false;
    for (int64_t k = 0; k < carried; ++k) {
      OnnxValue &slot = inputs[2 + k];
      const OnnxValue &next = function->Outputs[1 + k];
      if (next.DType != slot.DType ||
          next.Type.getRank() != slot.Type.getRank()) {
        function->Func.erase();
        return ctx.emitError() << "its body changes loop-carried value " << k
                               << " from " << dtypeName(slot.DType) << " "
                               << shapeString(slot.Type.getShape()) << " to "
                               << dtypeName(next.DType) << " "
                               << shapeString(next.Type.getShape());
      }
      if (!fitsIn(next.Type, slot.Type)) {
        slot.Type = joinTypes(slot.Type, next.Type);
        refit = true;
      }
    }
    if (!refit)
      imported = std::move(*function);
    else
      function->Func.erase();
  }
  if (!imported)
    return ctx.unsupported("a loop whose body changes a loop-carried value's "
                           "shape again once declared with `?` dimensions");
  func::FuncOp bodyFunc = imported->Func;
  Block &entry = bodyFunc.getBody().front();
  OpBuilder fb = OpBuilder::atBlockEnd(&entry);
  llvm::SmallVector<Value> results;
  OnnxValue &condOut = imported->Outputs[0];
  if (ctx.hasInput(1)) {
    if (condOut.DType != Bool || !condOut.Type.hasStaticShape() ||
        condOut.Type.getNumElements() != 1) {
      bodyFunc.erase();
      return ctx.emitError() << "its body's condition must be one bool";
    }
    results.push_back(reshapeTo(fb, loc, materialize(fb, condOut), {}));
  } else {
    // Without a loop condition the body's is ignored.
    results.push_back(scalarTensor(fb, loc, i1, 1));
  }
  llvm::SmallVector<Type> resultTypes;
  llvm::SmallVector<int32_t> dtypes;
  for (int64_t k = 0; k < carried; ++k) {
    results.push_back(materialize(fb, imported->Outputs[1 + k]));
    resultTypes.push_back(inputs[2 + k].Type);
    dtypes.push_back(inputs[2 + k].DType);
  }
  for (int64_t k = 0; k < scanned; ++k) {
    OnnxValue &slice = imported->Outputs[1 + carried + k];
    results.push_back(materialize(fb, slice));
    llvm::SmallVector<int64_t> shape(slice.Type.getShape());
    shape.insert(shape.begin(), ShapedType::kDynamic);
    resultTypes.push_back(
        RankedTensorType::get(shape, slice.Type.getElementType()));
    dtypes.push_back(slice.DType);
  }
  auto enclosing = cast<func::FuncOp>(b.getInsertionBlock()->getParentOp());
  for (OnnxValue &capture : imported->Captures)
    operands.push_back(tensorOf(ctx, capture));
  func::CallOp call = buildLoopCall(b, loc, bodyFunc, enclosing.getSymName(),
                                    carried, results, operands, resultTypes);
  for (auto [i, dtype] : llvm::enumerate(dtypes))
    ctx.setOutput(i, call.getResult(i), dtype);
  return success();
}

/// An If on a condition known per call whose branches' outputs differ in
/// shape (one element type and rank), as two loops the runtime repeats at
/// most once (compiler/host/LoopCalls.h): the else branch's body runs when
/// the condition is false, carrying placeholders of the outputs' joined
/// types (`?` where they differ) otherwise; the then branch's runs when it
/// is true, carrying the else loop's values otherwise. So exactly one
/// branch runs and its values come out. False, leaving nothing, where the
/// outputs agree (one static type: the caller selects) or a branch cannot
/// be a function of its own (the caller imports it inline and says why).
FailureOr<bool> convertIfByLoops(NodeContext &ctx,
                                 const onnx::GraphProto &thenBranch,
                                 const onnx::GraphProto &elseBranch) {
  size_t outputs = ctx.numOutputs();
  // Branches declaring every output of one static type alike (what
  // exporters write) take the select without a trial import of each.
  auto declared = [](const onnx::ValueInfoProto &v) {
    std::optional<std::pair<int32_t, llvm::SmallVector<int64_t>>> type;
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
      return type;
    llvm::SmallVector<int64_t> shape;
    for (const auto &dim : v.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_value())
        return type;
      shape.push_back(dim.dim_value());
    }
    type.emplace(v.type().tensor_type().elem_type(), std::move(shape));
    return type;
  };
  bool alike = thenBranch.output_size() == elseBranch.output_size();
  for (int i = 0; alike && i < thenBranch.output_size(); ++i) {
    auto a = declared(thenBranch.output(i)), c = declared(elseBranch.output(i));
    alike = a && c && *a == *c;
  }
  if (alike)
    return false;
  std::optional<ImportScope::BodyFunction> branches[2];
  {
    // A trial: what goes wrong here is said by the inline import.
    ScopedDiagnosticHandler quiet(ctx.context(),
                                  [](Diagnostic &) { return success(); });
    const onnx::GraphProto *graphs[2] = {&thenBranch, &elseBranch};
    for (auto [k, graph] : llvm::enumerate(graphs)) {
      FailureOr<ImportScope::BodyFunction> function =
          ctx.scope().ImportBodyFunction(*graph, {}, ctx.displayName());
      if (succeeded(function))
        branches[k] = std::move(*function);
    }
  }
  auto dropBoth = [&] {
    for (auto &branch : branches)
      if (branch)
        branch->Func.erase();
  };
  bool agree = branches[0] && branches[1] &&
               branches[0]->Outputs.size() == outputs &&
               branches[1]->Outputs.size() == outputs;
  bool fit = agree;
  for (size_t i = 0; fit && i < outputs; ++i) {
    const OnnxValue &a = branches[0]->Outputs[i], &c = branches[1]->Outputs[i];
    agree = agree && a.DType == c.DType && a.Type == c.Type &&
            a.Type.hasStaticShape();
    fit = a.DType == c.DType && a.Type.getRank() == c.Type.getRank();
  }
  if (agree || !fit) {
    dropBoth();
    return false;
  }
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  llvm::SmallVector<Type> joined;
  for (size_t i = 0; i < outputs; ++i)
    joined.push_back(
        joinTypes(branches[0]->Outputs[i].Type, branches[1]->Outputs[i].Type));
  BranchBody bodies[2];
  for (auto [body, branch] : llvm::zip(bodies, branches)) {
    body.Func = branch->Func;
    OpBuilder fb = OpBuilder::atBlockEnd(&body.Func.getBody().front());
    for (OnnxValue &output : branch->Outputs)
      body.Values.push_back(materialize(fb, output));
    for (OnnxValue &capture : branch->Captures)
      body.Reads.push_back(tensorOf(ctx, capture));
  }
  auto enclosing = cast<func::FuncOp>(b.getInsertionBlock()->getParentOp());
  llvm::SmallVector<Value> results = buildBranchLoops(
      b, loc, enclosing.getSymName(), reshapeTo(b, loc, ctx.input(0), {}),
      joined, bodies[0], bodies[1]);
  for (size_t i = 0; i < outputs; ++i)
    ctx.setOutput(i, results[i], branches[0]->Outputs[i].DType);
  return true;
}

LogicalResult convertLoop(NodeContext &ctx) {
  const onnx::GraphProto *body = graphAttr(ctx, "body");
  if (!body)
    return failure();
  int64_t carried = static_cast<int64_t>(ctx.numInputs()) - 2;
  int64_t scanned = static_cast<int64_t>(ctx.numOutputs()) - carried;
  if (carried < 0 || scanned < 0)
    return ctx.emitError() << "has " << ctx.numInputs() << " inputs and "
                           << ctx.numOutputs() << " outputs";
  // A constant trip count unrolls the body, unless it is long or the
  // condition, known per call, decides how long the scan outputs are: then
  // the runtime repeats it, as it does where the trip count is data.
  const HostTensor *trips = ctx.hasInput(0) ? ctx.constantInput(0) : nullptr;
  if (trips && (trips->numElements() != 1 || !isIntegerDType(trips->dtype())))
    return ctx.emitError() << "trip count must be one integer";
  bool conditionPerCall = ctx.hasInput(1) && !ctx.constantInput(1);
  if (trips && trips->intAt(0) > schema::kMaxLoopSteps)
    return ctx.unsupported("loop of " + std::to_string(trips->intAt(0)) +
                           " steps (the runtime runs at most " +
                           std::to_string(schema::kMaxLoopSteps) +
                           " per call)");
  if (!trips || trips->intAt(0) > kMaxRecurrentSteps ||
      (conditionPerCall && scanned > 0))
    return convertRuntimeLoop(ctx, *body, carried, scanned);
  int64_t steps = std::max<int64_t>(trips->intAt(0), 0);
  // The condition: absent (the body's is ignored), constant, or data. A
  // condition known per call masks each step (a step after it turned
  // false keeps the values), which scan outputs, as long as the steps
  // taken, cannot follow.
  bool useCondition = ctx.hasInput(1);
  std::optional<OnnxValue> cond;
  if (useCondition) {
    cond = ctx.inputInfo(1);
    if (cond->DType != Bool || !cond->Type.hasStaticShape() ||
        cond->Type.getNumElements() != 1)
      return ctx.emitError() << "cond must be one bool";
  }
  llvm::SmallVector<OnnxValue> values;
  for (int64_t k = 0; k < carried; ++k) {
    if (!ctx.hasInput(2 + k))
      return ctx.emitError() << "loop-carried value " << k << " is missing";
    values.push_back(ctx.inputInfo(2 + k));
  }
  OpBuilder &b = ctx.builder();
  Location loc = ctx.loc();
  llvm::SmallVector<llvm::SmallVector<Value>> perStep(scanned);
  llvm::SmallVector<int32_t> scanTypes(scanned, 0);
  auto constantTrue = [](const std::optional<OnnxValue> &c) {
    return c && c->Constant && c->Constant->intAt(0) != 0;
  };
  auto constantFalse = [](const std::optional<OnnxValue> &c) {
    return c && c->Constant && c->Constant->intAt(0) == 0;
  };
  for (int64_t t = 0; t < steps && !constantFalse(cond); ++t) {
    llvm::SmallVector<OnnxValue> inputs;
    inputs.push_back(OnnxValue{RankedTensorType::get({}, b.getI64Type()), Int64,
                               Value(), HostTensor::fromInt64s(Int64, {}, {t}),
                               ""});
    inputs.push_back(
        cond ? *cond
             : OnnxValue{RankedTensorType::get({}, b.getI1Type()), Bool,
                         Value(), HostTensor::fromInt64s(Bool, {}, {1}), ""});
    llvm::append_range(inputs, values);
    FailureOr<llvm::SmallVector<OnnxValue>> out = importBody(
        ctx, *body, inputs, static_cast<size_t>(1 + carried + scanned));
    if (failed(out))
      return failure();
    bool masked = useCondition && !constantTrue(cond);
    // A condition computed inside the body and known per call: the scan
    // outputs' length is data, which only the runtime's loop follows.
    if (masked && scanned > 0)
      return ctx.unsupported("scan outputs of a loop whose body computes "
                             "its condition per call under a trip count "
                             "known at import");
    for (int64_t k = 0; k < carried; ++k) {
      const OnnxValue &next = (*out)[1 + k];
      if (next.Type != values[k].Type || next.DType != values[k].DType)
        return ctx.emitError() << "its body changes loop-carried value " << k
                               << " from " << dtypeName(values[k].DType) << " "
                               << shapeString(values[k].Type.getShape())
                               << " to " << dtypeName(next.DType) << " "
                               << shapeString(next.Type.getShape());
      if (!masked) {
        values[k] = next;
        continue;
      }
      if (!next.Type.hasStaticShape())
        return ctx.unsupported("loop-carried value of dynamic shape under "
                               "a condition known per call");
      Value kept = buildElementwise(
          b, loc,
          {conditionTensor(ctx, *cond), tensorOf(ctx, next),
           tensorOf(ctx, values[k])},
          next.Type.getShape(), next.Type.getElementType(),
          [](OpBuilder &nb, Location l, ValueRange v) {
            return Value(arith::SelectOp::create(nb, l, v[0], v[1], v[2]));
          });
      values[k] = OnnxValue{next.Type, next.DType, kept, std::nullopt, ""};
    }
    for (int64_t k = 0; k < scanned; ++k) {
      const OnnxValue &v = (*out)[1 + carried + k];
      if (!v.Type.hasStaticShape() ||
          (t > 0 &&
           (v.Type != cast<RankedTensorType>(perStep[k].front().getType()) ||
            v.DType != scanTypes[k])))
        return ctx.unsupported("scan output " + std::to_string(k) +
                               " of dynamic shape or changing type");
      scanTypes[k] = v.DType;
      perStep[k].push_back(tensorOf(ctx, v));
    }
    if (!useCondition)
      continue;
    // The next step runs while both conditions hold.
    const OnnxValue &next = (*out)[0];
    if (next.DType != Bool || !next.Type.hasStaticShape() ||
        next.Type.getNumElements() != 1)
      return ctx.emitError() << "its body's condition must be one bool";
    if (constantTrue(cond) || constantFalse(next))
      cond = next;
    else if (!constantTrue(next))
      cond = OnnxValue{
          RankedTensorType::get({}, b.getI1Type()), Bool,
          buildElementwise(
              b, loc, {conditionTensor(ctx, *cond), conditionTensor(ctx, next)},
              {}, b.getI1Type(),
              [](OpBuilder &nb, Location l, ValueRange v) {
                return Value(arith::AndIOp::create(nb, l, v[0], v[1]));
              }),
          std::nullopt, ""};
  }
  for (int64_t k = 0; k < carried; ++k)
    forward(ctx, k, values[k]);
  for (int64_t k = 0; k < scanned; ++k) {
    if (perStep[k].empty())
      return ctx.unsupported("scan output " + std::to_string(k) +
                             " of a loop of no steps");
    ctx.setOutput(carried + k, stack(b, loc, perStep[k], 0), scanTypes[k]);
  }
  return success();
}

} // namespace

void registerControlFlowOps(OpRegistry &registry) {
  registry.add("If", convertIf);
  registry.add("Scan", convertScan);
  registry.add("Loop", convertLoop);
  // Values of dynamic shape: carried through a loop the runtime repeats
  // (its body a function over `?`), or unrolled as they are (masking and
  // scan outputs refuse them).
  registry.acceptDynamicShapes({"Loop"});
}

} // namespace kiln::onnx_import
