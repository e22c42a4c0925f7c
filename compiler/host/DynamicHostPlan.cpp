//===- DynamicHostPlan.cpp - Plans of functions with dynamic shapes -------===//
//
// A function with dynamic dimensions (issue 19, item 1) cannot have its
// buffers placed at compile time: every size is a node of the function's
// shape program (ShapeExpressions.h), evaluated per call. Its arena holds
// each dispatch result in a slice of its own, one after another in program
// order, 64-byte aligned, offsets and lengths as nodes; reusing dead
// values' bytes, as static plans do, needs sizes to compare, which item 2's
// bounds will give (a plan at the largest shape). Results are written
// straight into the output buffers, whose dimensions are nodes too.
//
// Step dependencies are derived from what each step touches, value by
// value: no two values share bytes, so steps conflict exactly where they
// touch one value with a write, which StepDependencies.h sees when each
// value stands for a range of its own. The runtime checks the real ranges
// against the same rule on each call.
//
// A dispatch's push constants are its scalar operands, as in static plans:
// constants as words, host-computed extents (`index` operands) as nodes;
// then each binding's dynamic extents, in binding and dimension order, the
// arguments kiln-bind-dispatch gave the body.
//
//===----------------------------------------------------------------------===//

#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/PushConstants.h"
#include "compiler/dispatch/ShapeScalars.h"
#include "compiler/host/HostPlan.h"
#include "compiler/host/ShapeExpressions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln {

FailureOr<HostPlan> planDynamicHostFunction(func::FuncOp func,
                                            ConstantPool &pool) {
  HostPlan plan;
  plan.Name = func.getSymName().str();
  setBoundaryTypes(func, plan);
  ShapeProgramBuilder program;
  ShapeExpressions shapes(func, program);
  Block &block = func.getBody().front();
  auto returnOp = cast<func::ReturnOp>(block.getTerminator());

  // Where each tensor lives, and the range standing for it when deriving
  // dependencies (a value of its own, whole buffers for inputs and
  // outputs).
  llvm::DenseMap<Value, BufferSlice> slices;
  llvm::DenseMap<Value, schema::StepAccess> virtualRanges;
  uint32_t arenaEnd = program.constant(0);
  uint64_t arenaValues = 0;

  auto sliceOfWhole = [&](Value value, Storage kind,
                          uint32_t index) -> FailureOr<BufferSlice> {
    FailureOr<uint32_t> bytes = shapes.byteSize(value);
    if (failed(bytes))
      return failure();
    BufferSlice slice{kind, index, 0, 0};
    if (std::optional<int64_t> length = program.constantValue(*bytes))
      slice.Length = *length;
    else
      slice.LengthNode = *bytes;
    return slice;
  };

  for (BlockArgument arg : block.getArguments()) {
    FailureOr<BufferSlice> slice =
        sliceOfWhole(arg, Storage::Input, arg.getArgNumber());
    if (failed(slice))
      return failure();
    slices[arg] = *slice;
    virtualRanges[arg] = {static_cast<uint8_t>(Storage::Input),
                          arg.getArgNumber(), 0, 1, false};
  }

  // Results returned once, whole, are computed into their output buffer;
  // so is a result returned through host reshapes (a flatten at the end),
  // which are views of the same bytes.
  auto producingResult = [](Value value) {
    while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
        value.getDefiningOp()))
      value = value.getDefiningOp()->getOperand(0);
    return value;
  };
  llvm::DenseMap<Value, uint32_t> directOutput;
  llvm::DenseSet<Value> returnedTwice;
  for (auto [index, returned] : llvm::enumerate(returnOp.getOperands())) {
    Value operand = producingResult(returned);
    if (!isa_and_nonnull<func::CallOp>(operand.getDefiningOp()) ||
        returnedTwice.contains(operand))
      continue;
    if (!directOutput.try_emplace(operand, index).second) {
      directOutput.erase(operand);
      returnedTwice.insert(operand);
    }
  }

  std::vector<std::vector<schema::StepAccess>> accesses;
  for (Operation &op : block) {
    if (&op == returnOp.getOperation())
      break;
    if (isShapeScalarOp(&op) || isClonableProducer(&op) || op.use_empty())
      continue;
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto elements = dyn_cast<ElementsAttr>(constant.getValue());
      if (!elements)
        continue; // a scalar, read where it is used
      FailureOr<uint64_t> offset = pool.add(elements);
      if (failed(offset))
        return op.emitError()
               << "constant data of type " << constant.getType()
               << " is missing or malformed (an elided or undefined "
                  "dense_resource blob, or one of the wrong size)";
      Value result = constant.getResult();
      slices[result] = {
          Storage::Constant, 0, *offset,
          tensorByteSize(cast<RankedTensorType>(result.getType()))};
      virtualRanges[result] = {static_cast<uint8_t>(Storage::Constant), 0,
                               *offset, slices[result].Length, false};
      continue;
    }
    if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(op)) {
      // A reshape is a view of its source's bytes (dense row-major either
      // way): the same slice, the same value when deriving dependencies.
      Value source = op.getOperand(0);
      auto it = slices.find(source);
      if (it == slices.end())
        return op.emitError("a reshape of a value whose storage is unknown");
      // Its sizes come from the host's arithmetic, which the verifier
      // cannot tie to the source's: each call checks that the view holds
      // as many bytes, so no dispatch reads past the source's slice.
      FailureOr<uint32_t> viewBytes = shapes.byteSize(op.getResult(0));
      FailureOr<uint32_t> sourceBytes = shapes.byteSize(source);
      if (failed(viewBytes) || failed(sourceBytes))
        return failure();
      if (*viewBytes != *sourceBytes) {
        std::optional<int64_t> a = program.constantValue(*viewBytes),
                               b = program.constantValue(*sourceBytes);
        if (a && b)
          return op.emitError() << "reshape of " << *b << " bytes into " << *a;
        plan.ShapeChecks.push_back({*viewBytes, *sourceBytes});
      }
      slices[op.getResult(0)] = it->second;
      virtualRanges[op.getResult(0)] = virtualRanges[source];
      continue;
    }
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      return op.emitError()
             << "'" << op.getName()
             << "' cannot run on the host of a function with dynamic shapes "
                "yet (issue 19); it was expected inside a dispatch";

    DispatchStepPlan step;
    step.EntryPoint = call.getCallee().str();
    std::vector<schema::StepAccess> stepAccesses;
    // Scalars: constants as words, extents as nodes, in operand order.
    for (Value operand : call.getOperands()) {
      if (isa<RankedTensorType>(operand.getType()))
        continue;
      Attribute value;
      if (matchPattern(operand, m_Constant(&value))) {
        if (failed(appendPushConstantWords(value, step.PushConstants)))
          return call.emitError()
                 << "scalar dispatch operand of type " << operand.getType()
                 << " is not a constant a push constant can carry";
        continue;
      }
      if (!operand.getType().isIndex())
        return call.emitError()
               << "scalar dispatch operand of type " << operand.getType()
               << " is neither a constant nor an extent";
      FailureOr<uint32_t> node = shapes.scalar(operand);
      if (failed(node))
        return failure();
      step.PushConstantNodes.push_back(
          {static_cast<uint32_t>(step.PushConstants.size()), *node});
      step.PushConstants.insert(step.PushConstants.end(), 2, 0);
    }
    // Results: an output buffer, or the arena's next slice.
    for (Value result : call.getResults()) {
      FailureOr<uint32_t> bytes = shapes.byteSize(result);
      if (failed(bytes))
        return failure();
      BufferSlice slice;
      if (auto it = directOutput.find(result); it != directOutput.end()) {
        slice = {Storage::Output, it->second, 0, 0};
        virtualRanges[result] = {static_cast<uint8_t>(Storage::Output),
                                 it->second, 0, 1, false};
      } else {
        slice = {Storage::Arena, 0, 0, 0};
        slice.OffsetNode = arenaEnd;
        arenaEnd = program.alignTo(program.add(arenaEnd, *bytes),
                                   static_cast<int64_t>(kBufferAlignment));
        virtualRanges[result] = {static_cast<uint8_t>(Storage::Arena), 0,
                                 arenaValues++, 1, false};
      }
      slice.LengthNode = *bytes;
      slices[result] = slice;
    }
    // Bindings, and their dynamic extents after the scalars.
    auto bind = [&](Value value, bool written) -> LogicalResult {
      auto it = slices.find(value);
      if (it == slices.end())
        return call.emitError("an operand's storage is unknown; in functions "
                              "with dynamic shapes, dispatches read inputs, "
                              "constants and other dispatches' results");
      BufferSlice slice = it->second;
      // Nodes that fold to constants are static values.
      for (auto [node, field] : {std::pair(&slice.OffsetNode, &slice.Offset),
                                 std::pair(&slice.LengthNode, &slice.Length)})
        if (*node != schema::kNoShapeNode)
          if (std::optional<int64_t> c = program.constantValue(*node)) {
            *field = *c;
            *node = schema::kNoShapeNode;
          }
      step.Bindings.push_back(slice);
      step.Access.push_back(written ? BindingAccess::Write
                                    : BindingAccess::Read);
      schema::StepAccess access = virtualRanges[value];
      access.Written = written;
      stepAccesses.push_back(access);
      return success();
    };
    SmallVector<Value> tensors;
    for (Value operand : call.getOperands())
      if (isa<RankedTensorType>(operand.getType())) {
        tensors.push_back(operand);
        if (failed(bind(operand, false)))
          return failure();
      }
    for (Value result : call.getResults()) {
      tensors.push_back(result);
      if (failed(bind(result, true)))
        return failure();
    }
    for (Value tensor : tensors) {
      auto type = cast<RankedTensorType>(tensor.getType());
      for (unsigned d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d))
          continue;
        FailureOr<uint32_t> node = shapes.dim(tensor, d);
        if (failed(node))
          return failure();
        step.PushConstantNodes.push_back(
            {static_cast<uint32_t>(step.PushConstants.size()), *node});
        step.PushConstants.insert(step.PushConstants.end(), 2, 0);
      }
    }
    if (step.PushConstants.size() > kMaxPushConstantWords)
      return call.emitError()
             << "dispatch needs " << step.PushConstants.size()
             << " push constant words, at most " << kMaxPushConstantWords;
    if (failed(shapes.appendLoopChecks(call, plan.ShapeChecks)))
      return failure();
    plan.Steps.push_back(std::move(step));
    accesses.push_back(std::move(stepAccesses));
  }

  for (auto [index, operand] : llvm::enumerate(returnOp.getOperands())) {
    auto type = cast<RankedTensorType>(operand.getType());
    if (!directOutput.contains(producingResult(operand)))
      return returnOp.emitError()
             << "result " << index
             << " is not a dispatch's result returned once; functions with "
                "dynamic shapes cannot copy values into outputs yet (issue "
                "19)";
    if (!type.hasStaticShape()) {
      FailureOr<SmallVector<uint32_t>> dims = shapes.dims(operand);
      if (failed(dims))
        return failure();
      plan.OutputDimNodes.resize(returnOp.getNumOperands());
      plan.OutputDimNodes[index].assign(dims->begin(), dims->end());
    }
  }
  plan.OutputDimNodes.resize(returnOp.getNumOperands());
  plan.ArenaSizeNode = arenaEnd;
  if (std::optional<int64_t> size = program.constantValue(arenaEnd)) {
    plan.ArenaSize = *size;
    plan.ArenaSizeNode = schema::kNoShapeNode;
  }
  plan.Dependencies = schema::deriveStepDependencies(accesses);
  plan.ShapeProgram = program.nodes();
  return plan;
}

} // namespace kiln
