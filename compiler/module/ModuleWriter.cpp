//===- ModuleWriter.cpp - Flatbuffer module output ------------------------===//

#include "compiler/module/ModuleWriter.h"
#include "schema/Specializations.h"

#include "mlir/IR/Diagnostics.h"
#include "schema/ConstantsSegment.h"
#include "schema/ModuleChecksum.h"
#include "schema/module_generated.h"

using namespace mlir;
namespace fbs = kiln::schema;

namespace kiln {

namespace {

constexpr uint16_t kVersionMajor = 1;
// 1: step dependencies and binding access. 2: the constants segment.
// 3: dynamic shapes (shape programs); written only by modules that use
// them, so static modules stay readable by 1.2 runtimes.
// 4: entry points that wait for their prerequisites (early launches);
// written only when one does, and safe for older readers to skip: they
// launch the kernel after its prerequisites, where its wait returns at once.
constexpr uint16_t kVersionMinor = 2;
constexpr uint16_t kVersionMinorDynamic = 3;
constexpr uint16_t kVersionMinorEarlyLaunch = 4;
constexpr uint16_t kVersionMinorBounds = 5;
constexpr uint16_t kVersionMinorSpecializations = 6;
// 7: shape nodes reading input elements (InputElementPos/Neg), which a 1.6
// reader refuses as unknown opcodes rather than misreads.
constexpr uint16_t kVersionMinorInputValues = 7;
// 8: real shape nodes (RealConstant .. RealToInt), unknown opcodes to a 1.7
// reader.
constexpr uint16_t kVersionMinorRealShapes = 8;
// 9: dispatches' entry point choices, safe for older readers to skip (they
// run each step's own kernel, right at every shape).
constexpr uint16_t kVersionMinorEntryChoices = 9;
// 10: phased functions (no steps; readers before it required them, so
// they refuse such a module).
constexpr uint16_t kVersionMinorPhases = 10;
// Loop phases (Phase.loop): a function repeated per call.
constexpr uint16_t kVersionMinorLoops = 11;
// 12: a loop's body in phases of its own (a phased function that is a
// phase; a 1.11 reader refuses it).
constexpr uint16_t kVersionMinorNestedPhases = 12;

FailureOr<fbs::ElementType> elementTypeOf(Location loc, Type type) {
  if (type.isF32())
    return fbs::ElementType::F32;
  if (type.isF16())
    return fbs::ElementType::F16;
  if (type.isBF16())
    return fbs::ElementType::BF16;
  if (type.isF64())
    return fbs::ElementType::F64;
  if (auto i = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = i.isUnsigned();
    switch (i.getWidth()) {
    case 1:
      return fbs::ElementType::I1;
    case 8:
      return isUnsigned ? fbs::ElementType::U8 : fbs::ElementType::I8;
    case 16:
      return isUnsigned ? fbs::ElementType::U16 : fbs::ElementType::I16;
    case 32:
      return isUnsigned ? fbs::ElementType::U32 : fbs::ElementType::I32;
    case 64:
      return isUnsigned ? fbs::ElementType::U64 : fbs::ElementType::I64;
    }
  }
  return emitError(loc) << "element type " << type
                        << " cannot cross a function boundary";
}

fbs::BufferRange toRange(const BufferSlice &slice) {
  return fbs::BufferRange(static_cast<fbs::StorageKind>(slice.Kind),
                          slice.Index, slice.Offset, slice.Length);
}

std::vector<fbs::ShapeNode>
toShapeNodes(const std::vector<schema::ShapeNodeData> &nodes) {
  std::vector<fbs::ShapeNode> out;
  for (const schema::ShapeNodeData &node : nodes)
    out.emplace_back(static_cast<fbs::ShapeOp>(node.Op), node.A, node.B);
  return out;
}

} // namespace

FailureOr<std::vector<uint8_t>>
writeModule(Location loc, ArrayRef<HostPlan> functions,
            ArrayRef<ExecutableVariantInfo> variants,
            const std::vector<uint8_t> &constants) {
  // Steps name their entry point by the dispatch function they call
  // (several steps may call one: kiln-dedupe-dispatches and
  // kiln-hoist-dispatch-scalars), not by position.
  llvm::StringMap<uint32_t> entryOrdinal;
  if (!variants.empty())
    for (auto [i, entry] : llvm::enumerate(variants.front().EntryPoints))
      entryOrdinal[entry.Name] = i;

  flatbuffers::FlatBufferBuilder fbb(1 << 16);
  bool bounded = false;
  auto tensorTypes = [&](ArrayRef<RankedTensorType> types,
                         ArrayRef<std::vector<uint32_t>> dimNodes,
                         ArrayRef<std::vector<int64_t>> dimMin = {},
                         ArrayRef<std::vector<int64_t>> dimMax = {})
      -> FailureOr<flatbuffers::Offset<
          flatbuffers::Vector<flatbuffers::Offset<fbs::TensorType>>>> {
    std::vector<flatbuffers::Offset<fbs::TensorType>> out;
    for (auto [i, t] : llvm::enumerate(types)) {
      FailureOr<fbs::ElementType> element =
          elementTypeOf(loc, t.getElementType());
      if (failed(element))
        return failure();
      // A dynamic dimension is -1 in the module.
      std::vector<int64_t> shape;
      for (int64_t dim : t.getShape())
        shape.push_back(ShapedType::isDynamic(dim) ? -1 : dim);
      flatbuffers::Offset<flatbuffers::Vector<uint32_t>> nodes = 0;
      if (i < dimNodes.size() && !dimNodes[i].empty())
        nodes = fbb.CreateVector(dimNodes[i]);
      flatbuffers::Offset<flatbuffers::Vector<int64_t>> low = 0, high = 0;
      if (i < dimMin.size() && !dimMin[i].empty()) {
        low = fbb.CreateVector(dimMin[i]);
        high = fbb.CreateVector(dimMax[i]);
        bounded = true;
      }
      out.push_back(fbs::CreateTensorType(
          fbb, *element, fbb.CreateVector(shape), nodes, low, high));
    }
    return fbb.CreateVector(out);
  };
  bool dynamic = false;
  bool readsValues = false, realShapes = false, entryChoices = false;
  bool earlyLaunch = false;

  std::vector<flatbuffers::Offset<fbs::Function>> fns;
  // Specializations (kiln-compile --specialize): each names its general
  // function, which lists them in module order.
  llvm::StringMap<uint32_t> functionIndex;
  for (auto [i, plan] : llvm::enumerate(functions))
    functionIndex[plan.Name] = static_cast<uint32_t>(i);
  std::vector<std::vector<uint32_t>> specializations(functions.size());
  std::vector<uint32_t> specializationOf(functions.size(),
                                         fbs::kNoSpecializationOf);
  for (auto [i, plan] : llvm::enumerate(functions)) {
    if (plan.SpecializationOf.empty())
      continue;
    auto general = functionIndex.find(plan.SpecializationOf);
    if (general == functionIndex.end() || general->second == i ||
        !functions[general->second].SpecializationOf.empty())
      return emitError(loc) << "function '" << plan.Name << "' specializes '"
                            << plan.SpecializationOf
                            << "', which is not a general function of the "
                               "module";
    specializations[general->second].push_back(static_cast<uint32_t>(i));
    specializationOf[i] = general->second;
  }
  bool specialized = llvm::any_of(specializationOf, [](uint32_t g) {
    return g != fbs::kNoSpecializationOf;
  });
  // Phased functions (kiln-split-phases): each phase names its function.
  std::vector<uint32_t> phaseOf(functions.size(), fbs::kNoSpecializationOf);
  for (auto [i, plan] : llvm::enumerate(functions))
    for (const std::string &phase : plan.Phases) {
      auto it = functionIndex.find(phase);
      if (it == functionIndex.end() ||
          functions[it->second].PhaseOf != plan.Name ||
          phaseOf[it->second] != fbs::kNoSpecializationOf)
        return emitError(loc) << "function '" << plan.Name << "' runs '"
                              << phase << "', which is not one of its phases";
      phaseOf[it->second] = static_cast<uint32_t>(i);
    }
  bool phased = false, loops = false, nested = false;
  auto phaseSources = [&](ArrayRef<PhaseSource> sources) {
    std::vector<fbs::PhaseSource> out;
    for (const PhaseSource &s : sources)
      out.emplace_back(s.Phase == PhaseSource::kFunctionInput
                           ? 0xFFFFFFFFu
                           : static_cast<uint32_t>(s.Phase),
                       static_cast<uint32_t>(s.Index));
    return fbb.CreateVectorOfStructs(out);
  };
  uint32_t functionNumber = 0;
  for (const HostPlan &plan : functions) {
    uint32_t index = functionNumber++;
    std::vector<flatbuffers::Offset<fbs::Step>> steps;
    for (auto [step, dependencyList] :
         llvm::zip_equal(plan.Steps, plan.Dependencies)) {
      // Always written, even when empty: an absent list means "after every
      // earlier step".
      auto dependencies = fbb.CreateVector(dependencyList);
      if (auto *d = std::get_if<DispatchStepPlan>(&step)) {
        auto it = entryOrdinal.find(d->EntryPoint);
        if (it == entryOrdinal.end())
          return emitError(loc) << "no entry point for " << d->EntryPoint;
        uint32_t expected =
            variants.front().EntryPoints[it->second].PushConstantCount;
        if (d->PushConstants.size() != expected)
          return emitError(loc)
                 << "a dispatch of " << d->EntryPoint << " passes "
                 << d->PushConstants.size() << " push constant words; its "
                 << "entry point takes " << expected;
        std::vector<fbs::BufferRange> bindings;
        for (const BufferSlice &s : d->Bindings)
          bindings.push_back(toRange(s));
        std::vector<fbs::BindingAccess> access;
        for (BindingAccess kind : d->Access)
          access.push_back(
              kind == BindingAccess::Read    ? fbs::BindingAccess::Read
              : kind == BindingAccess::Write ? fbs::BindingAccess::Write
                                             : fbs::BindingAccess::ReadWrite);
        // Per-call places and words of a function with dynamic shapes.
        flatbuffers::Offset<flatbuffers::Vector<const fbs::BindingNodes *>>
            bindingNodes = 0;
        if (llvm::any_of(d->Bindings, [](const BufferSlice &b) {
              return b.OffsetNode != schema::kNoShapeNode ||
                     b.LengthNode != schema::kNoShapeNode;
            })) {
          std::vector<fbs::BindingNodes> nodes;
          for (const BufferSlice &b : d->Bindings)
            nodes.emplace_back(b.OffsetNode, b.LengthNode);
          bindingNodes = fbb.CreateVectorOfStructs(nodes);
        }
        flatbuffers::Offset<flatbuffers::Vector<const fbs::PushConstantNode *>>
            pushNodes = 0;
        if (!d->PushConstantNodes.empty()) {
          std::vector<fbs::PushConstantNode> nodes;
          for (auto [word, node] : d->PushConstantNodes)
            nodes.emplace_back(word, node);
          pushNodes = fbb.CreateVectorOfStructs(nodes);
        }
        flatbuffers::Offset<flatbuffers::Vector<const fbs::EntryPointChoice *>>
            choices = 0;
        if (!d->EntryPointChoices.empty()) {
          std::vector<fbs::EntryPointChoice> chosen;
          for (const auto &[node, name] : d->EntryPointChoices) {
            auto choice = entryOrdinal.find(name);
            if (choice == entryOrdinal.end())
              return emitError(loc) << "no entry point for " << name;
            if (variants.front()
                    .EntryPoints[choice->second]
                    .PushConstantCount != expected)
              return emitError(loc)
                     << name << " takes other push constants than "
                     << d->EntryPoint << ", which it may replace";
            chosen.emplace_back(node, choice->second);
          }
          choices = fbb.CreateVectorOfStructs(chosen);
          entryChoices = true;
        }
        auto dispatch = fbs::CreateDispatchStep(
            fbb, /*executable=*/0, it->second,
            fbb.CreateVectorOfStructs(bindings),
            d->PushConstants.empty() ? 0 : fbb.CreateVector(d->PushConstants),
            fbb.CreateVector(access), bindingNodes, pushNodes, choices);
        steps.push_back(fbs::CreateStep(fbb, fbs::StepKind::DispatchStep,
                                        dispatch.Union(), dependencies));
      } else if (auto *c = std::get_if<CopyStepPlan>(&step)) {
        fbs::BufferRange source = toRange(c->Source),
                         target = toRange(c->Target);
        auto copy = fbs::CreateCopyStep(fbb, &source, &target);
        steps.push_back(fbs::CreateStep(fbb, fbs::StepKind::CopyStep,
                                        copy.Union(), dependencies));
      } else if (auto *f = std::get_if<FillStepPlan>(&step)) {
        fbs::BufferRange target = toRange(f->Target);
        auto fill =
            fbs::CreateFillStep(fbb, &target, f->Pattern, f->PatternLength);
        steps.push_back(fbs::CreateStep(fbb, fbs::StepKind::FillStep,
                                        fill.Union(), dependencies));
      }
    }
    auto inputs =
        tensorTypes(plan.Inputs, {}, plan.InputDimMin, plan.InputDimMax);
    auto outputs = tensorTypes(plan.Outputs, plan.OutputDimNodes);
    if (failed(inputs) || failed(outputs))
      return failure();
    flatbuffers::Offset<flatbuffers::Vector<const fbs::ShapeNode *>> program =
        0;
    flatbuffers::Offset<flatbuffers::Vector<const fbs::ShapeCheck *>> checks =
        0;
    flatbuffers::Offset<
        flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>>
        messages = 0;
    if (!plan.ShapeProgram.empty()) {
      dynamic = true;
      for (const schema::ShapeNodeData &node : plan.ShapeProgram) {
        readsValues |= schema::isInputElementOpcode(node.Op);
        realShapes |= schema::isRealShapeOpcode(node.Op) ||
                      node.Op == schema::ShapeOpcode::RealToInt;
      }
      program = fbb.CreateVectorOfStructs(toShapeNodes(plan.ShapeProgram));
      std::vector<fbs::ShapeCheck> pairs;
      for (auto [lhs, rhs] : plan.ShapeChecks)
        pairs.emplace_back(lhs, rhs);
      checks = fbb.CreateVectorOfStructs(pairs);
      if (!plan.ShapeCheckMessages.empty()) {
        readsValues = true;
        messages = fbb.CreateVectorOfStrings(plan.ShapeCheckMessages);
      }
    }
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::Phase>>>
        phases = 0;
    flatbuffers::Offset<flatbuffers::Vector<const fbs::PhaseSource *>>
        phaseOutputs = 0;
    if (!plan.Phases.empty()) {
      phased = true;
      nested |= !plan.PhaseOf.empty();
      std::vector<flatbuffers::Offset<fbs::Phase>> list;
      for (auto [name, sources, carried, loopOutputs] :
           llvm::zip_equal(plan.Phases, plan.PhaseInputs, plan.PhaseLoopCarried,
                           plan.PhaseLoopOutputs)) {
        uint32_t function = functionIndex.lookup(name);
        if (carried < 0) {
          list.push_back(
              fbs::CreatePhase(fbb, function, phaseSources(sources)));
          continue;
        }
        // A loop phase names no function, so that a reader before 1.11
        // refuses it.
        loops = true;
        std::vector<int32_t> outputs(loopOutputs.begin(), loopOutputs.end());
        auto loop = fbs::CreatePhaseLoop(
            fbb, function, static_cast<uint32_t>(carried),
            outputs.empty() ? 0 : fbb.CreateVector(outputs));
        list.push_back(
            fbs::CreatePhase(fbb, 0xFFFFFFFFu, phaseSources(sources), loop));
      }
      phases = fbb.CreateVector(list);
      phaseOutputs = phaseSources(plan.PhaseOutputs);
    }
    fns.push_back(fbs::CreateFunction(
        fbb, fbb.CreateString(plan.Name), *inputs, *outputs, plan.ArenaSize,
        plan.Phases.empty() ? fbb.CreateVector(steps) : 0, program, checks,
        plan.ArenaSizeNode,
        specializations[index].empty()
            ? 0
            : fbb.CreateVector(specializations[index]),
        specializationOf[index], messages, phases, phaseOutputs,
        phaseOf[index]));
  }

  std::vector<flatbuffers::Offset<fbs::ExecutableVariant>> variantOffsets;
  for (const ExecutableVariantInfo &variant : variants) {
    std::vector<flatbuffers::Offset<fbs::EntryPoint>> entries;
    for (const EntryPointInfo &e : variant.EntryPoints) {
      std::vector<uint32_t> size(e.WorkgroupSize.begin(),
                                 e.WorkgroupSize.end());
      std::vector<uint32_t> count(e.WorkgroupCount.begin(),
                                  e.WorkgroupCount.end());
      // Push constants carry the scalars in which dispatches sharing this
      // entry point differ (kiln-hoist-dispatch-scalars); every other
      // scalar is a constant folded into the body, so most entry points
      // take none.
      flatbuffers::Offset<flatbuffers::Vector<const fbs::ShapeNode *>>
          gridProgram = 0;
      flatbuffers::Offset<flatbuffers::Vector<uint32_t>> gridNodes = 0;
      if (!e.WorkgroupCountProgram.empty()) {
        dynamic = true;
        gridProgram =
            fbb.CreateVectorOfStructs(toShapeNodes(e.WorkgroupCountProgram));
        gridNodes = fbb.CreateVector(std::vector<uint32_t>(
            e.WorkgroupCountNodes.begin(), e.WorkgroupCountNodes.end()));
      }
      entries.push_back(fbs::CreateEntryPoint(
          fbb, fbb.CreateString(e.Name), fbb.CreateVector(size),
          fbb.CreateVector(count), e.BindingCount, e.PushConstantCount,
          e.SharedMemoryBytes, gridProgram, gridNodes,
          e.WaitsForPrerequisites));
      earlyLaunch |= e.WaitsForPrerequisites;
    }
    fbb.ForceVectorAlignment(variant.Image.size(), 1, 16);
    auto image = fbb.CreateVector(variant.Image);
    variantOffsets.push_back(fbs::CreateExecutableVariant(
        fbb, fbb.CreateString(variant.Format), fbb.CreateString(variant.Target),
        image, fbb.CreateVector(entries)));
  }
  // A program with no dispatch (it only moves its inputs) has no executable.
  std::vector<flatbuffers::Offset<fbs::Executable>> executables;
  if (!variantOffsets.empty())
    executables.push_back(fbs::CreateExecutable(
        fbb, fbb.CreateString("dispatches"), fbb.CreateVector(variantOffsets)));

  // The constants follow the flatbuffer (schema/ConstantsSegment.h), so
  // they may exceed its 2 GiB; what is left in it (the executables' images)
  // must not.
  fbs::ConstantsSegment segment(/*offset=*/0, constants.size(),
                                fbs::kConstantsSegmentAlignment);
  auto module = fbs::CreateModule(
      fbb, kVersionMajor,
      nested         ? kVersionMinorNestedPhases
      : loops        ? kVersionMinorLoops
      : phased       ? kVersionMinorPhases
      : entryChoices ? kVersionMinorEntryChoices
      : realShapes   ? kVersionMinorRealShapes
      : readsValues  ? kVersionMinorInputValues
      : specialized  ? kVersionMinorSpecializations
      : bounded      ? kVersionMinorBounds
      : earlyLaunch  ? kVersionMinorEarlyLaunch
      : dynamic      ? kVersionMinorDynamic
                     : kVersionMinor,
      fbb.CreateString("module"), fbb.CreateVector(fns),
      fbb.CreateVector(executables),
      /*constants=*/0, constants.empty() ? nullptr : &segment);
  fbs::FinishModuleBuffer(fbb, module);
  std::vector<uint8_t> bytes(fbb.GetBufferPointer(),
                             fbb.GetBufferPointer() + fbb.GetSize());
  if (!constants.empty())
    fbs::appendConstantsSegment(bytes, constants.data(), constants.size());
  schema::appendModuleChecksum(bytes);
  return bytes;
}

} // namespace kiln
