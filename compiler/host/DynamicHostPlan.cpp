//===- DynamicHostPlan.cpp - Plans of functions with dynamic shapes -------===//
//
// A function with dynamic dimensions (issue 19, item 1) cannot have its
// buffers placed at compile time: every size is a node of the function's
// shape program (ShapeExpressions.h), evaluated per call. Its arena holds
// each dispatch result in a slot, 64-byte aligned, offsets and lengths as
// nodes: a dead value's slot (no step after this one reads it or a view of
// it) is taken again by a later result whose byte size is the very same
// node (the program hash-conses, so equal expressions are one node: a
// network's blocks at one resolution share their sizes), else a new slot
// goes after the last. Comparing sizes that are different expressions
// needs bounds (item 2's plan at the largest shape). Results are written
// straight into the output buffers, whose dimensions are nodes too.
//
// Step dependencies are derived from what each step touches, slot by
// slot: each slot stands for a range of its own, so a step writing a
// reused slot follows every step that read its earlier value and steps
// conflict exactly where they touch one slot with a write, which
// StepDependencies.h sees. The runtime checks the real ranges against the
// same rule on each call.
//
// A dispatch's push constants are its scalar operands, as in static plans:
// constants as words, host-computed extents (`index` operands) as nodes;
// then each binding's dynamic extents, in binding and dimension order, the
// arguments kiln-bind-dispatch gave the body.
//
//===----------------------------------------------------------------------===//

#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/PushConstants.h"
#include "compiler/dispatch/RowVariants.h"
#include "compiler/dispatch/ShapeScalars.h"
#include "compiler/host/HostPlan.h"
#include "compiler/host/ShapeExpressions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln {
namespace {

// A byte size as coefficient x the product of its other factors (input
// dimensions, or nodes other than a product: a sum, a division), so that
// sizes of one shape's tensors compare: a slot of 4 x 64 x n bytes holds
// a value of 4 x 32 x n.
struct Monomial {
  int64_t Coefficient = 1;
  llvm::SmallVector<uint32_t> Factors; // sorted
};

Monomial monomialOf(const ShapeProgramBuilder &program, uint32_t node) {
  Monomial m;
  llvm::SmallVector<uint32_t> work = {node};
  while (!work.empty()) {
    uint32_t n = work.pop_back_val();
    const schema::ShapeNodeData &data = program.nodes()[n];
    if (data.Op == schema::ShapeOpcode::Mul) {
      work.push_back(static_cast<uint32_t>(data.A));
      work.push_back(static_cast<uint32_t>(data.B));
    } else if (std::optional<int64_t> c = program.constantValue(n);
               c &&
               !__builtin_mul_overflow(m.Coefficient, *c, &m.Coefficient)) {
      continue;
    } else {
      m.Factors.push_back(n);
    }
  }
  llvm::sort(m.Factors);
  return m;
}

} // namespace

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
    while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                           tensor::CastOp>(value.getDefiningOp()))
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

  // The last step reading each value, views (reshapes and contiguous
  // static slices) read as their source, which stays live through them.
  auto viewedValue = [](Value value) {
    while (Operation *def = value.getDefiningOp()) {
      if (!isAliasOp(def))
        break;
      value = def->getOperand(0);
    }
    return value;
  };
  llvm::DenseMap<Value, int64_t> lastRead;
  {
    int64_t index = 0;
    // Returned values need no entry: each is a dispatch's result computed
    // in its output buffer (checked below), never in the arena.
    for (Operation &op : block)
      if (auto call = dyn_cast<func::CallOp>(op)) {
        for (Value operand : call.getOperands())
          lastRead[viewedValue(operand)] = index;
        ++index;
      }
  }
  // Arena slots: their offset and length nodes and the range standing for
  // each when deriving dependencies; the values in them, and the free ones.
  struct Slot {
    uint32_t OffsetNode, LengthNode;
    uint64_t Range;
    Monomial Size; // of LengthNode
  };
  std::vector<Slot> slots;
  std::vector<std::pair<Value, size_t>> occupied; // value, slot
  std::vector<size_t> freeSlots;

  std::vector<std::vector<schema::StepAccess>> accesses;
  for (Operation &op : block) {
    if (&op == returnOp.getOperation())
      break;
    // A condition the model puts on the values it reads per call (a
    // Squeeze's axes given at call time must be those its declared output
    // type implies): a check that the condition's node is 1.
    if (auto check = dyn_cast<cf::AssertOp>(op)) {
      FailureOr<uint32_t> holds = shapes.condition(check.getArg());
      if (failed(holds))
        return failure();
      if (program.constantValue(*holds) == 0)
        return check.emitError() << "never holds: " << check.getMsg();
      if (program.constantValue(*holds) == 1)
        continue;
      plan.ShapeCheckMessages.resize(plan.ShapeChecks.size());
      plan.ShapeChecks.push_back({*holds, program.constant(1)});
      plan.ShapeCheckMessages.push_back(check.getMsg().str());
      continue;
    }
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
      // Copies first: inserting into a DenseMap may move its entries, so a
      // reference into the same map (`it`, or `map[source]` evaluated
      // before `map[result]`) would be read after it was freed (valgrind
      // showed the module then bound garbage: "unknown storage kind 192").
      BufferSlice slice = it->second;
      schema::StepAccess range = virtualRanges.lookup(source);
      slices[op.getResult(0)] = slice;
      virtualRanges[op.getResult(0)] = range;
      continue;
    }
    if (std::optional<uint64_t> offset = aliasByteOffset(&op)) {
      // A contiguous slice of a static tensor (a fused projection's q, k
      // and v, split on the host): a view of its source's bytes at a
      // constant offset, dependencies derived as for the whole source.
      Value source = op.getOperand(0);
      auto it = slices.find(source);
      if (it == slices.end())
        return op.emitError("a slice of a value whose storage is unknown");
      BufferSlice view = it->second;
      if (view.OffsetNode == schema::kNoShapeNode)
        view.Offset += *offset;
      else if (*offset != 0)
        view.OffsetNode =
            program.add(view.OffsetNode, program.constant(*offset));
      view.Length =
          tensorByteSize(cast<RankedTensorType>(op.getResult(0).getType()));
      view.LengthNode = schema::kNoShapeNode;
      slices[op.getResult(0)] = view;
      // A copy first, as for reshapes above.
      schema::StepAccess range = virtualRanges.lookup(source);
      virtualRanges[op.getResult(0)] = range;
      continue;
    }
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      return op.emitError()
             << "'" << op.getName()
             << "' cannot run on the host of a function with dynamic shapes "
                "yet (issue 19); it was expected inside a dispatch";

    // Slots whose values no step from this one on reads are free.
    int64_t stepIndex = static_cast<int64_t>(plan.Steps.size());
    llvm::erase_if(occupied, [&](const std::pair<Value, size_t> &entry) {
      auto it = lastRead.find(entry.first);
      if (it != lastRead.end() && it->second >= stepIndex)
        return false;
      freeSlots.push_back(entry.second);
      return true;
    });
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
        // The smallest free slot whose size is this one's, or a multiple
        // of it by a constant at least 1: the same product of dimensions
        // with a coefficient at least this one's.
        Monomial need = monomialOf(program, *bytes);
        auto reusable = freeSlots.end();
        int64_t best = 0;
        for (auto it = freeSlots.begin(); it != freeSlots.end(); ++it) {
          const Monomial &have = slots[*it].Size;
          if (have.Factors != need.Factors ||
              have.Coefficient < need.Coefficient)
            continue;
          if (reusable == freeSlots.end() || have.Coefficient < best) {
            reusable = it;
            best = have.Coefficient;
          }
        }
        size_t slot;
        if (reusable != freeSlots.end()) {
          slot = *reusable;
          freeSlots.erase(reusable);
        } else {
          slot = slots.size();
          slots.push_back({arenaEnd, *bytes, arenaValues++, need});
          arenaEnd = program.alignTo(program.add(arenaEnd, *bytes),
                                     static_cast<int64_t>(kBufferAlignment));
        }
        occupied.push_back({result, slot});
        slice = {Storage::Arena, 0, 0, 0};
        slice.OffsetNode = slots[slot].OffsetNode;
        virtualRanges[result] = {static_cast<uint8_t>(Storage::Arena), 0,
                                 slots[slot].Range, 1, false};
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
    if (auto choices = call->getAttrOfType<DictionaryAttr>(kRowChoicesAttr)) {
      // Each kernel where the result's outermost extent is at most its bound:
      // bound + 1 - min(extent, bound + 1) is then at least 1, else 0.
      auto callees = choices.getAs<ArrayAttr>("callees");
      auto atMost = choices.getAs<DenseI64ArrayAttr>("at_most");
      if (!callees || !atMost || call.getNumResults() != 1 ||
          static_cast<int64_t>(callees.size()) != atMost.size() ||
          !llvm::all_of(callees, llvm::IsaPred<FlatSymbolRefAttr>))
        return call.emitError() << "malformed " << kRowChoicesAttr;
      FailureOr<uint32_t> rows = shapes.dim(call.getResult(0), 0);
      if (failed(rows))
        return failure();
      for (auto [callee, bound] : llvm::zip(callees, atMost.asArrayRef())) {
        uint32_t past = program.constant(bound + 1);
        uint32_t fits = program.sub(
            past, program.binary(schema::ShapeOpcode::Min, *rows, past));
        step.EntryPointChoices.push_back(
            {fits, cast<FlatSymbolRefAttr>(callee).getValue().str()});
      }
    }
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
  // Messages for every check, or none at all.
  if (!plan.ShapeCheckMessages.empty())
    plan.ShapeCheckMessages.resize(plan.ShapeChecks.size());
  return plan;
}

} // namespace kiln
