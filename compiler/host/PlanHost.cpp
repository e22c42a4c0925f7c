//===- PlanHost.cpp - Record host buffer plans as attributes --------------===//

#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/host/HostPlan.h"

#include "llvm/ADT/StringExtras.h"

namespace kiln {
#define GEN_PASS_DEF_PLANHOST
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {
namespace {

std::string describe(const BufferSlice &slice) {
  const char *kinds[] = {"input", "output", "constant", "arena"};
  std::string s = kinds[static_cast<int>(slice.Kind)];
  if (slice.Kind == Storage::Input || slice.Kind == Storage::Output)
    s += std::to_string(slice.Index);
  if (slice.OffsetNode != schema::kNoShapeNode ||
      slice.LengthNode != schema::kNoShapeNode) {
    // Placed per call: "arena[n3:+n4]".
    auto part = [](uint32_t node, uint64_t value) {
      return node == schema::kNoShapeNode ? std::to_string(value)
                                          : "n" + std::to_string(node);
    };
    return s + "[" + part(slice.OffsetNode, slice.Offset) + ":+" +
           part(slice.LengthNode, slice.Length) + "]";
  }
  return s + "[" + std::to_string(slice.Offset) + ":" +
         std::to_string(slice.Offset + slice.Length) + "]";
}

// "mul n1 n2", "dim 0 1", "const 4".
std::string describe(const schema::ShapeNodeData &node) {
  std::string s = schema::shapeOpcodeName(node.Op);
  if (schema::isBinaryShapeOpcode(node.Op) ||
      schema::isRealBinaryShapeOpcode(node.Op))
    return s + " n" + std::to_string(node.A) + " n" + std::to_string(node.B);
  if (schema::isUnaryShapeOpcode(node.Op))
    return s + " n" + std::to_string(node.A);
  if (node.Op == schema::ShapeOpcode::Constant)
    return s + " " + std::to_string(node.A);
  if (node.Op == schema::ShapeOpcode::RealConstant)
    return s + " " + std::to_string(std::bit_cast<double>(node.A));
  return s + " " + std::to_string(node.A) + " " + std::to_string(node.B);
}

struct PlanHostPass : impl::PlanHostBase<PlanHostPass> {
  void runOnOperation() override {
    ConstantPool pool;
    Builder b(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (isDispatchFunc(func) || func.isExternal())
        continue;
      FailureOr<HostPlan> plan = planHostFunction(func, pool);
      if (failed(plan))
        return signalPassFailure();
      func->setAttr("kiln.arena_size", b.getI64IntegerAttr(plan->ArenaSize));
      SmallVector<Attribute> steps;
      for (const HostStep &step : plan->Steps) {
        std::string text;
        if (auto *d = std::get_if<DispatchStepPlan>(&step)) {
          text = "dispatch @" + d->EntryPoint;
          for (const BufferSlice &s : d->Bindings)
            text += " " + describe(s);
          if (!d->PushConstants.empty()) {
            text += " push";
            for (uint32_t word : d->PushConstants)
              text += " 0x" + llvm::utohexstr(word, /*LowerCase=*/true, 8);
          }
          for (auto [word, node] : d->PushConstantNodes)
            text += " w" + std::to_string(word) + "=n" + std::to_string(node);
          // "@d_rows_1 if n12": the kernel run instead where n12 is not 0.
          for (const auto &[node, entry] : d->EntryPointChoices)
            text += " @" + entry + " if n" + std::to_string(node);
        } else if (auto *c = std::get_if<CopyStepPlan>(&step)) {
          text = "copy " + describe(c->Source) + " -> " + describe(c->Target);
        } else if (auto *f = std::get_if<FillStepPlan>(&step)) {
          text = "fill " + describe(f->Target) + " pattern " +
                 std::to_string(f->Pattern) + "/" +
                 std::to_string(f->PatternLength);
        }
        steps.push_back(b.getStringAttr(text));
      }
      func->setAttr("kiln.steps", b.getArrayAttr(steps));
      SmallVector<Attribute> dependencies;
      for (const std::vector<uint32_t> &list : plan->Dependencies)
        dependencies.push_back(b.getDenseI32ArrayAttr(
            SmallVector<int32_t>(list.begin(), list.end())));
      func->setAttr("kiln.step_dependencies", b.getArrayAttr(dependencies));
      if (plan->ShapeProgram.empty())
        continue;
      // Dynamic shapes: the program, its checks, the arena's and outputs'
      // nodes.
      SmallVector<Attribute> nodes, checks, outputs;
      for (const schema::ShapeNodeData &node : plan->ShapeProgram)
        nodes.push_back(b.getStringAttr(describe(node)));
      for (auto [i, check] : llvm::enumerate(plan->ShapeChecks)) {
        std::string text = "n" + std::to_string(check.first) + " == n" +
                           std::to_string(check.second);
        if (i < plan->ShapeCheckMessages.size() &&
            !plan->ShapeCheckMessages[i].empty())
          text += ": " + plan->ShapeCheckMessages[i];
        checks.push_back(b.getStringAttr(text));
      }
      for (const std::vector<uint32_t> &dims : plan->OutputDimNodes)
        outputs.push_back(b.getDenseI32ArrayAttr(
            SmallVector<int32_t>(dims.begin(), dims.end())));
      func->setAttr("kiln.shape_program", b.getArrayAttr(nodes));
      func->setAttr("kiln.shape_checks", b.getArrayAttr(checks));
      func->setAttr("kiln.output_dim_nodes", b.getArrayAttr(outputs));
      if (plan->ArenaSizeNode != schema::kNoShapeNode)
        func->setAttr("kiln.arena_size_node",
                      b.getI64IntegerAttr(plan->ArenaSizeNode));
    }
  }
};

} // namespace
} // namespace kiln
