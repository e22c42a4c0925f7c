//===- TestModule.h - Builds module files for tests -----------------------===//
//
// A plain description of a module that tests can edit field by field (to
// break exactly one rule) and then serialize with the flatbuffers builder.
// Header-only so it stays out of the kiln_module library.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_MODULE_TESTMODULE_H
#define KILN_RUNTIME_MODULE_TESTMODULE_H

#include "schema/ConstantsSegment.h"
#include "schema/ModuleChecksum.h"
#include "schema/module_generated.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kiln::module::test {

namespace sc = kiln::schema;

struct RangeSpec {
  sc::StorageKind Storage = sc::StorageKind::Arena;
  uint32_t Index = 0;
  uint64_t Offset = 0;
  uint64_t Length = 0;
};

struct StepSpec {
  sc::StepKind Kind = sc::StepKind::FillStep;
  // Dispatch.
  uint32_t Executable = 0;
  uint32_t EntryPoint = 0;
  std::vector<RangeSpec> Bindings;
  std::vector<uint32_t> PushConstants;
  // One per binding; empty leaves binding_access out.
  std::vector<sc::BindingAccess> Access;
  // Copy (Source, Target) and fill (Target).
  RangeSpec Source;
  RangeSpec Target;
  uint32_t Pattern = 0;
  uint8_t PatternLength = 4;
  // Absent: the step waits for every earlier one (minor version 0).
  std::optional<std::vector<uint32_t>> Dependencies;
  // Dynamic shapes (minor version 3): (offset, length) nodes per binding,
  // empty leaves them out; (word, node) per push constant computed per call.
  std::vector<std::pair<uint32_t, uint32_t>> BindingNodes;
  std::vector<std::pair<uint32_t, uint32_t>> PushConstantNodes;
  // (node, entry point) choices (minor version 9); empty leaves them out.
  std::vector<std::pair<uint32_t, uint32_t>> EntryPointChoices;
};

/// A shape program node (module.fbs ShapeNode).
struct ShapeNodeSpec {
  sc::ShapeOp Op = sc::ShapeOp::Constant;
  int64_t A = 0;
  int64_t B = 0;
};

struct TensorTypeSpec {
  uint8_t ElementType = 0;
  std::vector<int64_t> Shape;
};

struct FunctionSpec {
  std::string Name;
  std::vector<TensorTypeSpec> Inputs;
  std::vector<TensorTypeSpec> Outputs;
  uint64_t ArenaSize = 0;
  std::vector<StepSpec> Steps;
  // Dynamic shapes: a program (leaves the field out when absent unless
  // HasShapeProgram), checks and the arena's node.
  std::vector<ShapeNodeSpec> ShapeProgram;
  bool HasShapeProgram = false;
  std::vector<std::pair<uint32_t, uint32_t>> ShapeChecks;
  uint32_t ArenaSizeNode = 0xFFFFFFFFu;
  // Each output's dimension nodes, by output; missing or empty leaves them
  // out.
  std::vector<std::vector<uint32_t>> OutputDimNodes;
  // Specializations (minor version 6): empty leaves the list out.
  std::vector<uint32_t> Specializations;
  uint32_t SpecializationOf = 0xFFFFFFFFu;
  // One per shape check when not empty (minor version 7).
  std::vector<std::string> ShapeCheckMessages;
  // Input i's bounds when InputDimMax[i] is not empty (minor version 5).
  std::vector<std::vector<int64_t>> InputDimMin, InputDimMax;
  // A phased function (minor version 10) when Phases is not empty: each
  // phase's function and sources ((phase, index), phase 0xFFFFFFFF for an
  // input), the outputs' sources; Steps are then left out.
  std::vector<std::pair<uint32_t, std::vector<std::pair<uint32_t, uint32_t>>>>
      Phases;
  std::vector<std::pair<uint32_t, uint32_t>> PhaseOutputs;
  uint32_t PhaseOf = 0xFFFFFFFFu;
  // Loop phases (minor version 11), by phase index: that phase repeats
  // its function (written as PhaseLoop.body, the phase's own function
  // 0xFFFFFFFF), carrying `Carried` values; `Outputs` where not empty.
  struct LoopSpec {
    uint32_t Carried = 0;
    std::vector<int32_t> Outputs;
  };
  std::map<uint32_t, LoopSpec> Loops;
};

struct EntryPointSpec {
  std::string Name;
  std::vector<uint32_t> WorkgroupSize = {1, 1, 1};
  std::vector<uint32_t> WorkgroupCount = {1, 1, 1};
  uint32_t BindingCount = 0;
  uint32_t PushConstantCount = 0;
  uint32_t SharedMemoryBytes = 0;
};

/// A grid computed per dispatch for one entry point of one variant.
struct GridSpec {
  uint32_t Executable = 0;
  uint32_t Variant = 0;
  uint32_t EntryPoint = 0;
  std::vector<ShapeNodeSpec> Program;
  std::vector<uint32_t> Nodes;
};

struct VariantSpec {
  std::string Format;
  std::string Target;
  std::vector<uint8_t> Image;
  std::vector<EntryPointSpec> EntryPoints;
};

struct ExecutableSpec {
  std::string Name;
  std::vector<VariantSpec> Variants;
};

/// Where a test module keeps its constants.
enum class ConstantsLayout {
  None,    // neither a vector nor a segment
  Vector,  // Module.constants inside the flatbuffer (versions 1.0 and 1.1)
  Segment, // Module.constants_segment after the flatbuffer (1.2)
  Both,    // the same constants both ways, which no module may do
};

/// What the constants segment declares, where a test breaks a rule. The
/// bytes are laid out as a writer would (at the declared alignment where it
/// is a power of two); unset fields declare that layout.
struct SegmentSpec {
  std::optional<uint64_t> Offset;
  std::optional<uint64_t> Size;
  uint32_t Alignment = schema::kConstantsSegmentAlignment;
};

struct ModuleSpec {
  uint16_t VersionMajor = 1;
  uint16_t VersionMinor = 0;
  std::string Name = "test";
  std::vector<FunctionSpec> Functions;
  std::vector<ExecutableSpec> Executables;
  ConstantsLayout Layout = ConstantsLayout::Segment;
  std::vector<uint8_t> Constants;
  SegmentSpec Segment;
  // Real modules end with a checksum footer; fuzzing the verifier's other
  // checks needs files without one (any flip would fail the checksum).
  bool AppendChecksum = true;
  // Entry points whose grid is computed per dispatch (dynamic shapes).
  std::vector<GridSpec> Grids;
};

inline std::vector<uint8_t> randomBytes(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(size);
  for (uint8_t &b : bytes)
    b = static_cast<uint8_t>(rng());
  return bytes;
}

inline RangeSpec range(sc::StorageKind storage, uint32_t index, uint64_t offset,
                       uint64_t length) {
  return RangeSpec{storage, index, offset, length};
}

/// A valid module exercising every step kind: function "main"
/// (4xf32, 4xf32) -> (4xf32) with a fill, a copy and two dispatches; function
/// "second" (2x3xi32) -> (i8); one executable with two variants; 256 bytes
/// of constants.
/// `second(2x3xi32) -> i8`: fills its output byte with 0x2a.
inline FunctionSpec fillByteFunctionSpec() {
  FunctionSpec second;
  second.Name = "second";
  second.Inputs = {{static_cast<uint8_t>(sc::ElementType::I32), {2, 3}}};
  second.Outputs = {{static_cast<uint8_t>(sc::ElementType::I8), {}}};
  StepSpec fillByte;
  fillByte.Kind = sc::StepKind::FillStep;
  fillByte.Target = range(sc::StorageKind::Output, 0, 0, 1);
  fillByte.Pattern = 0x2a;
  fillByte.PatternLength = 1;
  second.Steps = {fillByte};
  return second;
}

inline ModuleSpec validModuleSpec() {
  using SK = sc::StorageKind;
  ModuleSpec spec;
  spec.Constants = randomBytes(256, 7);

  EntryPointSpec add{"add", {64, 1, 1}, {1, 1, 1}, 3, 1, 0};
  EntryPointSpec scale{"scale", {32, 2, 1}, {2, 1, 1}, 2, 0, 1024};
  VariantSpec cpu{
      "cpu-elf-x86_64", "x86-64-v3", randomBytes(100, 1), {add, scale}};
  add.WorkgroupSize = {128, 1, 1};
  scale.WorkgroupCount = {1, 3, 1};
  VariantSpec gpu{"cuda-ptx", "sm_90", randomBytes(37, 2), {add, scale}};
  spec.Executables.push_back({"exe0", {cpu, gpu}});

  FunctionSpec mainFn;
  mainFn.Name = "main";
  mainFn.Inputs = {{0, {4}}, {0, {4}}};
  mainFn.Outputs = {{0, {4}}};
  mainFn.ArenaSize = 64;
  StepSpec fill;
  fill.Kind = sc::StepKind::FillStep;
  fill.Target = range(SK::Arena, 0, 0, 16);
  fill.Pattern = 0x3f800000;
  fill.PatternLength = 4;
  StepSpec copy;
  copy.Kind = sc::StepKind::CopyStep;
  copy.Source = range(SK::Input, 0, 0, 16);
  copy.Target = range(SK::Arena, 0, 16, 16);
  StepSpec dispatchAdd;
  dispatchAdd.Kind = sc::StepKind::DispatchStep;
  dispatchAdd.Executable = 0;
  dispatchAdd.EntryPoint = 0;
  dispatchAdd.Bindings = {range(SK::Arena, 0, 16, 16),
                          range(SK::Input, 1, 0, 16),
                          range(SK::Output, 0, 0, 16)};
  dispatchAdd.PushConstants = {4};
  StepSpec dispatchScale;
  dispatchScale.Kind = sc::StepKind::DispatchStep;
  dispatchScale.Executable = 0;
  dispatchScale.EntryPoint = 1;
  dispatchScale.Bindings = {range(SK::Constant, 0, 240, 16),
                            range(SK::Arena, 0, 32, 32)};
  mainFn.Steps = {fill, copy, dispatchAdd, dispatchScale};
  spec.Functions.push_back(mainFn);

  spec.Functions.push_back(fillByteFunctionSpec());
  return spec;
}

inline sc::BufferRange toRange(const RangeSpec &r) {
  return sc::BufferRange(r.Storage, r.Index, r.Offset, r.Length);
}

inline std::vector<sc::ShapeNode>
shapeNodes(const std::vector<ShapeNodeSpec> &nodes) {
  std::vector<sc::ShapeNode> out;
  for (const ShapeNodeSpec &n : nodes)
    out.emplace_back(n.Op, n.A, n.B);
  return out;
}

/// The flatbuffer of `spec`, without its constants segment's bytes or the
/// checksum footer; a segment is declared as spec.Segment says, at offset 0
/// unless it gives one.
inline std::vector<uint8_t> buildFlatbuffer(const ModuleSpec &spec) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<sc::Function>> functions;
  for (const FunctionSpec &f : spec.Functions) {
    auto types = [&](const std::vector<TensorTypeSpec> &list,
                     const std::vector<std::vector<uint32_t>> &dimNodes,
                     bool bounds) {
      std::vector<flatbuffers::Offset<sc::TensorType>> out;
      for (size_t i = 0; i < list.size(); ++i) {
        const TensorTypeSpec &t = list[i];
        bool nodes = i < dimNodes.size() && !dimNodes[i].empty();
        bool bounded =
            bounds && i < f.InputDimMax.size() && !f.InputDimMax[i].empty();
        out.push_back(sc::CreateTensorTypeDirect(
            fbb, static_cast<sc::ElementType>(t.ElementType), &t.Shape,
            nodes ? &dimNodes[i] : nullptr,
            bounded ? &f.InputDimMin[i] : nullptr,
            bounded ? &f.InputDimMax[i] : nullptr));
      }
      return out;
    };
    auto inputs = types(f.Inputs, {}, /*bounds=*/true);
    auto outputs = types(f.Outputs, f.OutputDimNodes, /*bounds=*/false);
    std::vector<flatbuffers::Offset<sc::Step>> steps;
    for (const StepSpec &s : f.Steps) {
      flatbuffers::Offset<void> kind;
      switch (s.Kind) {
      case sc::StepKind::DispatchStep: {
        std::vector<sc::BufferRange> bindings;
        for (const RangeSpec &r : s.Bindings)
          bindings.push_back(toRange(r));
        std::vector<sc::BindingNodes> bindingNodes;
        for (auto [offset, length] : s.BindingNodes)
          bindingNodes.emplace_back(offset, length);
        std::vector<sc::PushConstantNode> pushNodes;
        for (auto [word, node] : s.PushConstantNodes)
          pushNodes.emplace_back(word, node);
        std::vector<sc::EntryPointChoice> choices;
        for (auto [node, entry] : s.EntryPointChoices)
          choices.emplace_back(node, entry);
        kind = sc::CreateDispatchStepDirect(
                   fbb, s.Executable, s.EntryPoint, &bindings,
                   s.PushConstants.empty() ? nullptr : &s.PushConstants,
                   s.Access.empty() ? nullptr : &s.Access,
                   bindingNodes.empty() ? nullptr : &bindingNodes,
                   pushNodes.empty() ? nullptr : &pushNodes,
                   choices.empty() ? nullptr : &choices)
                   .Union();
        break;
      }
      case sc::StepKind::CopyStep: {
        sc::BufferRange source = toRange(s.Source);
        sc::BufferRange target = toRange(s.Target);
        kind = sc::CreateCopyStep(fbb, &source, &target).Union();
        break;
      }
      default: {
        // Fill, and also the payload for deliberately bad kinds.
        sc::BufferRange target = toRange(s.Target);
        kind = sc::CreateFillStep(fbb, &target, s.Pattern, s.PatternLength)
                   .Union();
        break;
      }
      }
      steps.push_back(sc::CreateStep(
          fbb, s.Kind, kind,
          s.Dependencies ? fbb.CreateVector(*s.Dependencies) : 0));
    }
    std::vector<sc::ShapeNode> program = shapeNodes(f.ShapeProgram);
    std::vector<sc::ShapeCheck> checks;
    for (auto [lhs, rhs] : f.ShapeChecks)
      checks.emplace_back(lhs, rhs);
    bool hasProgram = f.HasShapeProgram || !program.empty();
    std::vector<flatbuffers::Offset<flatbuffers::String>> messages;
    for (const std::string &m : f.ShapeCheckMessages)
      messages.push_back(fbb.CreateString(m));
    std::vector<flatbuffers::Offset<sc::Phase>> phases;
    auto sources = [](const std::vector<std::pair<uint32_t, uint32_t>> &list) {
      std::vector<sc::PhaseSource> out;
      for (auto [phase, index] : list)
        out.emplace_back(phase, index);
      return out;
    };
    for (uint32_t p = 0; p < f.Phases.size(); ++p) {
      const auto &[function, inputs] = f.Phases[p];
      std::vector<sc::PhaseSource> list = sources(inputs);
      auto loop = f.Loops.find(p);
      if (loop == f.Loops.end()) {
        phases.push_back(sc::CreatePhaseDirect(fbb, function, &list));
        continue;
      }
      const std::vector<int32_t> &where = loop->second.Outputs;
      auto body = sc::CreatePhaseLoopDirect(fbb, function, loop->second.Carried,
                                            where.empty() ? nullptr : &where);
      phases.push_back(sc::CreatePhaseDirect(fbb, 0xFFFFFFFFu, &list, body));
    }
    std::vector<sc::PhaseSource> phaseOutputs = sources(f.PhaseOutputs);
    functions.push_back(sc::CreateFunctionDirect(
        fbb, f.Name.c_str(), &inputs, &outputs, f.ArenaSize,
        f.Phases.empty() ? &steps : nullptr, hasProgram ? &program : nullptr,
        checks.empty() ? nullptr : &checks, f.ArenaSizeNode,
        f.Specializations.empty() ? nullptr : &f.Specializations,
        f.SpecializationOf, messages.empty() ? nullptr : &messages,
        f.Phases.empty() ? nullptr : &phases,
        f.Phases.empty() ? nullptr : &phaseOutputs, f.PhaseOf));
  }
  std::vector<flatbuffers::Offset<sc::Executable>> executables;
  for (uint32_t ei = 0; ei < spec.Executables.size(); ++ei) {
    const ExecutableSpec &e = spec.Executables[ei];
    std::vector<flatbuffers::Offset<sc::ExecutableVariant>> variants;
    for (uint32_t vi = 0; vi < e.Variants.size(); ++vi) {
      const VariantSpec &v = e.Variants[vi];
      std::vector<flatbuffers::Offset<sc::EntryPoint>> entryPoints;
      for (uint32_t pi = 0; pi < v.EntryPoints.size(); ++pi) {
        const EntryPointSpec &ep = v.EntryPoints[pi];
        const GridSpec *grid = nullptr;
        for (const GridSpec &g : spec.Grids)
          if (g.Executable == ei && g.Variant == vi && g.EntryPoint == pi)
            grid = &g;
        std::vector<sc::ShapeNode> program =
            grid ? shapeNodes(grid->Program) : std::vector<sc::ShapeNode>{};
        entryPoints.push_back(sc::CreateEntryPointDirect(
            fbb, ep.Name.c_str(), &ep.WorkgroupSize, &ep.WorkgroupCount,
            ep.BindingCount, ep.PushConstantCount, ep.SharedMemoryBytes,
            program.empty() ? nullptr : &program,
            grid && !grid->Nodes.empty() ? &grid->Nodes : nullptr));
      }
      variants.push_back(sc::CreateExecutableVariantDirect(
          fbb, v.Format.c_str(), v.Target.c_str(), &v.Image, &entryPoints));
    }
    executables.push_back(
        sc::CreateExecutableDirect(fbb, e.Name.c_str(), &variants));
  }
  // CreateModuleDirect would call ForceVectorAlignment(..., 64), which
  // flatbuffers 2.0.8 asserts against (its FLATBUFFERS_MAX_ALIGNMENT is 32);
  // PreAlign gives the same layout without the check.
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> constants;
  bool vector = spec.Layout == ConstantsLayout::Vector ||
                spec.Layout == ConstantsLayout::Both;
  bool segmented = spec.Layout == ConstantsLayout::Segment ||
                   spec.Layout == ConstantsLayout::Both;
  if (vector) {
    fbb.PreAlign(spec.Constants.size(), 64);
    constants = fbb.CreateVector(spec.Constants);
  }
  sc::ConstantsSegment segment(
      spec.Segment.Offset.value_or(0),
      spec.Segment.Size.value_or(spec.Constants.size()),
      spec.Segment.Alignment);
  auto name = spec.Name.empty() ? 0 : fbb.CreateString(spec.Name);
  auto root = sc::CreateModule(fbb, spec.VersionMajor, spec.VersionMinor, name,
                               fbb.CreateVector(functions),
                               fbb.CreateVector(executables), constants,
                               segmented ? &segment : nullptr);
  sc::FinishModuleBuffer(fbb, root);
  return std::vector<uint8_t>(fbb.GetBufferPointer(),
                              fbb.GetBufferPointer() + fbb.GetSize());
}

/// Dynamic shapes (issue 19): @fill(x: ?xf32) -> ?xf32 runs the CTS kernel
/// scale_bias_f32 of `image` (push words: n, scale bits, bias bits) over a
/// grid of n workgroups computed per call from words 0 and 1, where the
/// call's n lands as 64 bits (so the scale, word 1, is n's high half: 0).
/// Each output element is the bias: what was computed, and at which length,
/// shows which shapes the recording was made for.
inline ModuleSpec dynamicFillSpec(std::vector<uint8_t> image, float bias) {
  using Op = sc::ShapeOp;
  using SK = sc::StorageKind;
  ModuleSpec spec;
  spec.VersionMinor = 3;
  spec.Layout = ConstantsLayout::None;
  EntryPointSpec entry{"scale_bias_f32", {1, 1, 1}, {1, 1, 1}, 2, 3, 0};
  spec.Executables.push_back(
      {"kernels", {{"cpu-elf-x86_64", "x86-64", std::move(image), {entry}}}});
  spec.Grids = {
      {0, 0, 0, {{Op::PushConstant, 0, 0}, {Op::Constant, 1, 0}}, {0, 1, 1}}};
  FunctionSpec f;
  f.Name = "fill";
  f.Inputs = {{0, {-1}}};
  f.Outputs = {{0, {-1}}};
  f.OutputDimNodes = {{1}};
  f.ShapeProgram = {
      {Op::Constant, 4, 0}, {Op::InputDim, 0, 0}, {Op::Mul, 0, 1}};
  StepSpec step;
  step.Kind = sc::StepKind::DispatchStep;
  step.Bindings = {range(SK::Input, 0, 0, 0), range(SK::Output, 0, 0, 0)};
  step.Access = {sc::BindingAccess::Read, sc::BindingAccess::Write};
  uint32_t biasBits;
  std::memcpy(&biasBits, &bias, sizeof(biasBits));
  step.PushConstants = {0, 0, biasBits};
  step.BindingNodes = {{0xFFFFFFFFu, 2}, {0xFFFFFFFFu, 2}};
  step.PushConstantNodes = {{0, 1}};
  step.Dependencies = std::vector<uint32_t>{};
  f.Steps = {step};
  spec.Functions = {f};
  return spec;
}

/// dynamicFillSpec's kernel twice, through the arena: @chain (?xf32) ->
/// ?xf32, the first result in an arena slot of 4n bytes (arena_size_node),
/// with the input's bounds `low`..`high` when high >= 0 (minor version 5).
inline ModuleSpec dynamicChainSpec(std::vector<uint8_t> image, float bias,
                                   int64_t low = 0, int64_t high = -1) {
  using SK = sc::StorageKind;
  ModuleSpec spec = dynamicFillSpec(std::move(image), bias);
  spec.VersionMinor = 5;
  FunctionSpec &f = spec.Functions[0];
  f.Name = "chain";
  if (high >= 0) {
    f.InputDimMin = {{low}};
    f.InputDimMax = {{high}};
  }
  f.ArenaSizeNode = 2;
  StepSpec first = f.Steps[0], second = f.Steps[0];
  first.Bindings = {range(SK::Input, 0, 0, 0), range(SK::Arena, 0, 0, 0)};
  second.Bindings = {range(SK::Arena, 0, 0, 0), range(SK::Output, 0, 0, 0)};
  second.Dependencies = std::vector<uint32_t>{0};
  f.Steps = {first, second};
  return spec;
}

/// @fill_n (16xf32, 1xi64) -> ?xf32: dynamicFillSpec's kernel over the
/// first n elements, n the value of input 1 read per call (minor version
/// 7, shape nodes InputElementPos/Neg): a shape given at call time.
inline ModuleSpec valueFillSpec(std::vector<uint8_t> image, float bias) {
  using Op = sc::ShapeOp;
  ModuleSpec spec = dynamicFillSpec(std::move(image), bias);
  spec.VersionMinor = 7;
  FunctionSpec &f = spec.Functions[0];
  f.Name = "fill_n";
  f.Inputs = {{0, {16}}, {static_cast<uint8_t>(sc::ElementType::I64), {1}}};
  f.OutputDimNodes = {{2}};
  f.ShapeProgram = {{Op::InputElementPos, 1, 0},
                    {Op::InputElementNeg, 1, 0},
                    {Op::Sub, 0, 1},
                    {Op::Constant, 4, 0},
                    {Op::Mul, 2, 3}};
  f.Steps[0].BindingNodes = {{0xFFFFFFFFu, 4}, {0xFFFFFFFFu, 4}};
  f.Steps[0].PushConstantNodes = {{0, 2}};
  return spec;
}

/// dynamicFillSpec's @fill and its specialization @fill_4 (4xf32) ->
/// 4xf32, which fills its output with `special` (minor version 6): a call
/// with 4 elements runs @fill_4, any other @fill.
inline ModuleSpec specializedFillSpec(std::vector<uint8_t> image, float bias,
                                      float special) {
  ModuleSpec spec = dynamicFillSpec(std::move(image), bias);
  spec.VersionMinor = 6;
  FunctionSpec four;
  four.Name = "fill_4";
  four.Inputs = {{0, {4}}};
  four.Outputs = {{0, {4}}};
  StepSpec fill;
  fill.Kind = sc::StepKind::FillStep;
  fill.Target = range(sc::StorageKind::Output, 0, 0, 16);
  std::memcpy(&fill.Pattern, &special, sizeof(special));
  fill.PatternLength = 4;
  four.Steps = {fill};
  four.SpecializationOf = 0;
  spec.Functions[0].Specializations = {1};
  spec.Functions.push_back(four);
  return spec;
}

/// @count_fill (16xf32, 1xi64) -> (?xf32, 1xi64) in two phases (minor
/// version 10): @copy_count copies input 1 out, and valueFillSpec's
/// @fill_n reads that copy on the host as its length. The result is
/// fill_n's, and the copy is returned too.
inline ModuleSpec phasedFillSpec(std::vector<uint8_t> image, float bias) {
  ModuleSpec spec = valueFillSpec(std::move(image), bias);
  spec.VersionMinor = 10;
  const uint8_t i64 = static_cast<uint8_t>(sc::ElementType::I64);
  FunctionSpec &fill = spec.Functions[0];
  fill.PhaseOf = 0;
  FunctionSpec copy;
  copy.Name = "copy_count";
  copy.Inputs = {{i64, {1}}};
  copy.Outputs = {{i64, {1}}};
  StepSpec step;
  step.Kind = sc::StepKind::CopyStep;
  step.Source = range(sc::StorageKind::Input, 0, 0, 8);
  step.Target = range(sc::StorageKind::Output, 0, 0, 8);
  copy.Steps = {step};
  copy.PhaseOf = 0;
  FunctionSpec chain;
  chain.Name = "count_fill";
  chain.Inputs = {{0, {16}}, {i64, {1}}};
  chain.Outputs = {{0, {-1}}, {i64, {1}}};
  constexpr uint32_t kInput = 0xFFFFFFFFu;
  chain.Phases = {{2, {{kInput, 1}}}, {1, {{kInput, 0}, {0, 0}}}};
  chain.PhaseOutputs = {{1, 0}, {0, 0}};
  FunctionSpec fillCopy = fill;
  spec.Functions = {chain, fillCopy, copy};
  return spec;
}

/// @count_loop (n: i64[], go: i1[], first: i64[]) -> (i64[], ?xi64): one
/// loop phase (minor version 11) repeating @count_body, which copies its
/// iteration into the carried value and the scan slice (copy steps only),
/// so n steps give n - 1 and 0..n-1 (none: `first` and no rows). With
/// `mapped`, the body returns those two only and PhaseLoop.outputs passes
/// the loop's condition through (input 1); else the body copies it out.
/// A step copying `bytes` of input `from` to output `to`.
inline StepSpec copyInput(uint32_t from, uint32_t to, uint64_t bytes) {
  StepSpec step;
  step.Kind = sc::StepKind::CopyStep;
  step.Source = range(sc::StorageKind::Input, from, 0, bytes);
  step.Target = range(sc::StorageKind::Output, to, 0, bytes);
  return step;
}

inline ModuleSpec loopCountSpec(bool mapped) {
  ModuleSpec spec;
  spec.VersionMinor = 11;
  const uint8_t i64 = static_cast<uint8_t>(sc::ElementType::I64);
  const uint8_t i1 = static_cast<uint8_t>(sc::ElementType::I1);
  FunctionSpec loop;
  loop.Name = "count_loop";
  loop.Inputs = {{i64, {}}, {i1, {}}, {i64, {}}};
  loop.Outputs = {{i64, {}}, {i64, {-1}}};
  constexpr uint32_t kInput = 0xFFFFFFFFu;
  loop.Phases = {{1, {{kInput, 0}, {kInput, 1}, {kInput, 2}}}};
  loop.Loops[0] = {1, mapped ? std::vector<int32_t>{-2, 0, 1}
                             : std::vector<int32_t>{}};
  loop.PhaseOutputs = {{0, 0}, {0, 1}};
  FunctionSpec body;
  body.Name = "count_body";
  body.Inputs = loop.Inputs;
  body.PhaseOf = 0;
  if (mapped) {
    body.Outputs = {{i64, {}}, {i64, {}}};
    body.Steps = {copyInput(0, 0, 8), copyInput(0, 1, 8)};
  } else {
    body.Outputs = {{i1, {}}, {i64, {}}, {i64, {}}};
    body.Steps = {copyInput(1, 0, 1), copyInput(0, 1, 8), copyInput(0, 2, 8)};
  }
  spec.Functions = {loop, body};
  return spec;
}

/// A loop whose body runs in phases of its own (minor version 12), one of
/// them a loop: `nest(trips, cond, x)` repeats `nest_body` `trips` times,
/// and step i runs `nest_inner` i times, each of its steps carrying its
/// iteration on. So the carried value after N steps is N - 2 (x while N is
/// at most 1: steps 0 and 1 run the inner loop 0 times and once).
inline ModuleSpec nestedLoopSpec() {
  ModuleSpec spec;
  spec.VersionMinor = 12;
  const uint8_t i64 = static_cast<uint8_t>(sc::ElementType::I64);
  const uint8_t i1 = static_cast<uint8_t>(sc::ElementType::I1);
  constexpr uint32_t kInput = 0xFFFFFFFFu;
  FunctionSpec outer;
  outer.Name = "nest";
  outer.Inputs = {{i64, {}}, {i1, {}}, {i64, {}}};
  outer.Outputs = {{i64, {}}};
  outer.Phases = {{1, {{kInput, 0}, {kInput, 1}, {kInput, 2}}}};
  outer.Loops[0] = {1, {}};
  outer.PhaseOutputs = {{0, 0}};
  // (iteration, condition, v) -> (condition, v): the inner loop over
  // `iteration` steps carries (condition, v) and gives them.
  FunctionSpec body;
  body.Name = "nest_body";
  body.Inputs = outer.Inputs;
  body.Outputs = {{i1, {}}, {i64, {}}};
  body.PhaseOf = 0;
  body.Phases = {{2, {{kInput, 0}, {kInput, 1}, {kInput, 1}, {kInput, 2}}}};
  body.Loops[0] = {2, {}};
  body.PhaseOutputs = {{0, 0}, {0, 1}};
  // (iteration, condition, c, v) -> (condition, c, iteration).
  FunctionSpec inner;
  inner.Name = "nest_inner";
  inner.Inputs = {{i64, {}}, {i1, {}}, {i1, {}}, {i64, {}}};
  inner.Outputs = {{i1, {}}, {i1, {}}, {i64, {}}};
  inner.PhaseOf = 1;
  inner.Steps = {copyInput(1, 0, 1), copyInput(2, 1, 1), copyInput(0, 2, 8)};
  spec.Functions = {outer, body, inner};
  return spec;
}

/// Serializes `spec` as the compiler does: the flatbuffer, its constants
/// segment and the checksum footer; then declares what spec.Segment says.
inline std::vector<uint8_t> buildModule(const ModuleSpec &spec) {
  std::vector<uint8_t> bytes = buildFlatbuffer(spec);
  if (spec.Layout == ConstantsLayout::Segment ||
      spec.Layout == ConstantsLayout::Both) {
    auto segment = [&] {
      return sc::GetMutableModule(bytes.data())->mutable_constants_segment();
    };
    uint32_t declared = spec.Segment.Alignment;
    // A test that breaks the alignment rule still gets its bytes placed.
    if (declared == 0 || (declared & (declared - 1)) != 0)
      segment()->mutate_alignment(64);
    schema::appendConstantsSegment(bytes, spec.Constants.data(),
                                   spec.Constants.size());
    segment()->mutate_alignment(declared);
    if (spec.Segment.Offset)
      segment()->mutate_offset(*spec.Segment.Offset);
  }
  if (spec.AppendChecksum)
    schema::appendModuleChecksum(bytes);
  return bytes;
}

/// An independent re-check of what verifyModule() promises for the `size`
/// bytes at `base` (footer included), reading every byte a runtime could
/// read (so ASan catches anything out of bounds). Returns the first broken
/// promise, or "" when there is none.
/// Whether a shape program's nodes read only earlier nodes, have known
/// opcodes and non-negative constants, and leaves `leafOk` accepts.
template <typename LeafOk>
bool wellFormedProgram(const flatbuffers::Vector<const sc::ShapeNode *> &nodes,
                       LeafOk leafOk) {
  // Which nodes are real (opcodes 12 to 22 and 24): read only by real
  // opcodes and by 23 (to an integer); 14 reads an integer.
  std::vector<bool> real(nodes.size(), false);
  auto earlier = [&](int64_t n, flatbuffers::uoffset_t i, bool wantReal) {
    return n >= 0 && n < int64_t(i) && real[n] == wantReal;
  };
  for (flatbuffers::uoffset_t i = 0; i < nodes.size(); ++i) {
    const sc::ShapeNode &n = *nodes.Get(i);
    uint8_t op = static_cast<uint8_t>(n.op());
    if (op > 24)
      return false;
    real[i] = (op >= 12 && op <= 22) || op == 24;
    if (n.op() == sc::ShapeOp::Constant) {
      if (n.a() < 0)
        return false;
    } else if (op == 12) {
      if (!std::isfinite(std::bit_cast<double>(n.a())))
        return false;
    } else if (op >= 3 && op <= 9) {
      if (!earlier(n.a(), i, false) || !earlier(n.b(), i, false))
        return false;
    } else if (op >= 15 && op <= 20) {
      if (!earlier(n.a(), i, true) || !earlier(n.b(), i, true))
        return false;
    } else if (op == 14) {
      if (!earlier(n.a(), i, false))
        return false;
    } else if (op >= 21) {
      if (!earlier(n.a(), i, true))
        return false;
    } else if (!leafOk(n)) {
      return false;
    }
  }
  return true;
}

inline std::string checkVerifiedModule(const uint8_t *base, size_t size) {
  const sc::Module &m = *sc::GetModule(base);
  volatile uint64_t sink = 0;
  auto touch = [&](const uint8_t *data, size_t n) {
    for (size_t i = 0; i < n; ++i)
      sink = sink + data[i];
  };
  if (m.version_major() != 1)
    return "version";
  if (size < schema::kChecksumFooterSize)
    return "size";
  uint64_t constantsSize = 0;
  if (m.constants()) {
    constantsSize = m.constants()->size();
    touch(m.constants()->data(), constantsSize);
    if (constantsSize && (m.constants()->data() - base) % 64 != 0)
      return "constants alignment";
  }
  if (const sc::ConstantsSegment *segment = m.constants_segment()) {
    if (m.constants())
      return "both constants layouts";
    uint64_t alignment = segment->alignment();
    if (alignment < 64 || alignment > 65536 ||
        (alignment & (alignment - 1)) != 0 ||
        segment->offset() % alignment != 0)
      return "constants segment alignment";
    if (static_cast<unsigned __int128>(segment->offset()) + segment->size() >
        size - schema::kChecksumFooterSize)
      return "constants segment bounds";
    constantsSize = segment->size();
    touch(base + segment->offset(), constantsSize);
  }
  const auto &executables = *m.executables();
  for (const sc::Executable *e : executables) {
    touch(reinterpret_cast<const uint8_t *>(e->name()->c_str()),
          e->name()->size() + 1);
    if (e->variants()->size() == 0)
      return "no variants";
    for (const sc::ExecutableVariant *v : *e->variants()) {
      touch(reinterpret_cast<const uint8_t *>(v->format()->c_str()),
            v->format()->size() + 1);
      touch(reinterpret_cast<const uint8_t *>(v->target()->c_str()),
            v->target()->size() + 1);
      touch(v->image()->data(), v->image()->size());
      if (v->entry_points()->size() !=
          e->variants()->Get(0)->entry_points()->size())
        return "entry point count";
      for (const sc::EntryPoint *ep : *v->entry_points()) {
        touch(reinterpret_cast<const uint8_t *>(ep->name()->c_str()),
              ep->name()->size() + 1);
        if (ep->workgroup_size()->size() != 3 ||
            ep->workgroup_count()->size() != 3)
          return "grid rank";
        unsigned __int128 size = 1, count = 1;
        for (int i = 0; i < 3; ++i) {
          if (ep->workgroup_size()->Get(i) == 0 ||
              ep->workgroup_count()->Get(i) == 0)
            return "zero grid";
          size *= ep->workgroup_size()->Get(i);
          count *= ep->workgroup_count()->Get(i);
        }
        if (count > (uint64_t(1) << 32) || size > (uint64_t(1) << 32))
          return "grid product";
        // A grid program reads existing push constant word pairs.
        if (ep->workgroup_count_program() || ep->workgroup_count_nodes()) {
          if (!ep->workgroup_count_program() || !ep->workgroup_count_nodes() ||
              ep->workgroup_count_nodes()->size() != 3)
            return "grid program";
          const auto &nodes = *ep->workgroup_count_program();
          if (!wellFormedProgram(nodes, [&](const sc::ShapeNode &n) {
                return n.op() == sc::ShapeOp::PushConstant && n.a() >= 0 &&
                       n.a() + 1 < int64_t(ep->push_constant_count());
              }))
            return "grid program nodes";
          for (uint32_t node : *ep->workgroup_count_nodes())
            if (node >= nodes.size())
              return "grid node";
        }
      }
    }
  }
  for (const sc::Function *f : *m.functions()) {
    if (f->name()->size() == 0)
      return "empty function name";
    touch(reinterpret_cast<const uint8_t *>(f->name()->c_str()),
          f->name()->size() + 1);
    auto sizes =
        [&](const flatbuffers::Vector<flatbuffers::Offset<sc::TensorType>>
                &types,
            std::vector<uint64_t> &out) {
          for (const sc::TensorType *t : types) {
            if (static_cast<uint8_t>(t->element_type()) > 12 ||
                t->shape()->size() > 16)
              return false;
            static const uint64_t kSizes[] = {4, 2, 2, 8, 1, 1, 2,
                                              4, 8, 1, 2, 4, 8};
            unsigned __int128 bytes =
                kSizes[static_cast<uint8_t>(t->element_type())];
            for (int64_t d : *t->shape()) {
              // A dynamic dimension (-1) only with a shape program or
              // phases; its size is the call's.
              if (d < 0 && !(d == -1 && (f->shape_program() || f->phases())))
                return false;
              if (d < 0)
                continue;
              bytes *= static_cast<uint64_t>(d);
              if (bytes > (uint64_t(1) << 48))
                return false;
            }
            out.push_back(static_cast<uint64_t>(bytes));
          }
          return true;
        };
    std::vector<uint64_t> inputs, outputs;
    if (!sizes(*f->inputs(), inputs) || !sizes(*f->outputs(), outputs))
      return "tensor type";
    // Phases: functions that name this one back, sources earlier than
    // their phase, one per input and output; nothing else of its own.
    if (const auto *phases = f->phases()) {
      const auto &all = *m.functions();
      if (f->steps() || f->shape_program() || phases->size() == 0 ||
          !f->phase_outputs() ||
          f->phase_outputs()->size() != f->outputs()->size())
        return "phased function";
      uint32_t self = 0;
      while (all.Get(self) != f)
        ++self;
      // The function a phase runs: a loop phase's body.
      auto runs = [&](const sc::Phase *phase) {
        return phase->loop() ? phase->loop()->body() : phase->function();
      };
      // A loop's values (condition, carried..., slices...): the body's
      // results, or where its outputs map says.
      auto loopValues = [&](const sc::Phase *phase) -> uint64_t {
        const auto *where = phase->loop()->outputs();
        return where ? where->size() : all.Get(runs(phase))->outputs()->size();
      };
      // A phase's outputs: a loop gives its values but the condition.
      auto outputCount = [&](uint32_t p) -> uint64_t {
        const sc::Phase *phase = phases->Get(p);
        return phase->loop() ? loopValues(phase) - 1
                             : all.Get(runs(phase))->outputs()->size();
      };
      auto sourceOk = [&](const sc::PhaseSource *s, uint32_t before,
                          bool inputs) {
        if (s->phase() == 0xFFFFFFFFu)
          return inputs && s->index() < f->inputs()->size();
        return s->phase() < before && s->index() < outputCount(s->phase());
      };
      for (uint32_t p = 0; p < phases->size(); ++p) {
        uint32_t g = runs(phases->Get(p));
        if (g >= all.size() || all.Get(g)->phase_of() != self ||
            phases->Get(p)->inputs()->size() != all.Get(g)->inputs()->size())
          return "phase";
        if (const sc::PhaseLoop *loop = phases->Get(p)->loop()) {
          // The body takes (i64[], i1[], carried...) and gives a one-byte
          // condition first; every mapped value is inside it.
          const sc::Function &body = *all.Get(g);
          auto scalar = [](const sc::TensorType *t, sc::ElementType e) {
            return t->element_type() == e && t->shape()->size() == 0;
          };
          if (phases->Get(p)->function() != 0xFFFFFFFFu ||
              body.inputs()->size() < 2 + uint64_t(loop->carried()) ||
              loopValues(phases->Get(p)) < 1 + uint64_t(loop->carried()) ||
              !scalar(body.inputs()->Get(0), sc::ElementType::I64) ||
              !scalar(body.inputs()->Get(1), sc::ElementType::I1))
            return "loop phase";
          if (const auto *where = loop->outputs())
            for (int32_t k : *where)
              if (k >= 0 ? uint32_t(k) >= body.outputs()->size()
                         : uint64_t(-1 - int64_t(k)) >= body.inputs()->size())
                return "loop output";
          int64_t first = loop->outputs() ? loop->outputs()->Get(0) : 0;
          const sc::TensorType *condition =
              first >= 0 && uint64_t(first) < body.outputs()->size()
                  ? body.outputs()->Get(first)
              : first < 0 ? body.inputs()->Get(-1 - first)
                          : nullptr;
          if (!condition || !scalar(condition, sc::ElementType::I1))
            return "loop condition";
        }
        for (const sc::PhaseSource *s : *phases->Get(p)->inputs())
          if (!sourceOk(s, p, true))
            return "phase input";
      }
      for (const sc::PhaseSource *s : *f->phase_outputs())
        if (!sourceOk(s, phases->size(), false))
          return "phase output";
      continue;
    }
    if (!f->steps())
      return "no steps";
    if (f->arena_size() > (uint64_t(1) << 48))
      return "arena size";
    // Dynamic shapes: every reference names a node of a well-formed
    // program; ranges are the call's, checked then.
    const size_t programSize =
        f->shape_program() ? f->shape_program()->size() : 0;
    const bool dynamic = f->shape_program() != nullptr;
    auto isNode = [&](uint32_t node, bool allowNone) {
      return node < programSize || (allowNone && node == 0xFFFFFFFFu);
    };
    if (dynamic) {
      if (!wellFormedProgram(*f->shape_program(), [&](const sc::ShapeNode &n) {
            if (n.a() < 0 || n.a() >= int64_t(f->inputs()->size()) || n.b() < 0)
              return false;
            const sc::TensorType &in = *f->inputs()->Get(n.a());
            if (n.op() == sc::ShapeOp::InputDim)
              return n.b() < int64_t(in.shape()->size());
            if (n.op() != sc::ShapeOp::InputElementPos &&
                n.op() != sc::ShapeOp::InputElementNeg &&
                n.op() != sc::ShapeOp::InputElementReal)
              return false;
            // An integer input of static shape holding element b.
            if (in.element_type() != sc::ElementType::I32 &&
                in.element_type() != sc::ElementType::I64 &&
                in.element_type() != sc::ElementType::I1 &&
                in.element_type() != sc::ElementType::F32 &&
                in.element_type() != sc::ElementType::F64)
              return false;
            int64_t count = 1;
            for (int64_t d : *in.shape()) {
              if (d < 0)
                return false;
              count *= d;
            }
            return n.b() < count;
          }))
        return "shape program";
      if (f->shape_checks())
        for (const sc::ShapeCheck *c : *f->shape_checks())
          if (!isNode(c->lhs(), false) || !isNode(c->rhs(), false))
            return "shape check";
      if (!isNode(f->arena_size_node(), true))
        return "arena size node";
      for (const sc::TensorType *t : *f->outputs()) {
        bool anyDynamic = false;
        for (int64_t d : *t->shape())
          anyDynamic |= d < 0;
        if (!t->dim_nodes()) {
          if (anyDynamic)
            return "output dimension nodes";
          continue;
        }
        if (t->dim_nodes()->size() != t->shape()->size())
          return "output dimension node count";
        for (uint32_t node : *t->dim_nodes())
          if (!isNode(node, false))
            return "output dimension node";
      }
    } else if (f->shape_checks() || f->arena_size_node() != 0xFFFFFFFFu) {
      return "shape nodes without a program";
    }
    auto inBounds = [&](const sc::BufferRange &r) {
      uint64_t limit;
      switch (static_cast<uint8_t>(r.storage())) {
      case 0:
        if (r.index() >= inputs.size())
          return false;
        limit = inputs[r.index()];
        break;
      case 1:
        if (r.index() >= outputs.size())
          return false;
        limit = outputs[r.index()];
        break;
      case 2:
        limit = constantsSize;
        break;
      case 3:
        limit = f->arena_size();
        break;
      default:
        return false;
      }
      return static_cast<unsigned __int128>(r.offset()) + r.length() <= limit;
    };
    for (const sc::Step *step : *f->steps()) {
      if (const auto *d = step->kind_as_DispatchStep()) {
        if (d->executable() >= executables.size())
          return "executable index";
        for (const sc::ExecutableVariant *v :
             *executables.Get(d->executable())->variants()) {
          if (d->entry_point() >= v->entry_points()->size())
            return "entry point index";
          const sc::EntryPoint *ep = v->entry_points()->Get(d->entry_point());
          if (d->bindings()->size() != ep->binding_count())
            return "binding count";
          uint32_t pushCount =
              d->push_constants() ? d->push_constants()->size() : 0;
          if (pushCount != ep->push_constant_count())
            return "push constant count";
        }
        if (const auto *nodes = d->binding_nodes()) {
          if (nodes->size() != d->bindings()->size())
            return "binding node count";
          for (const sc::BindingNodes *n : *nodes)
            if (!isNode(n->offset(), true) || !isNode(n->length(), true))
              return "binding node";
        }
        if (const auto *nodes = d->push_constant_nodes()) {
          uint32_t pushCount =
              d->push_constants() ? d->push_constants()->size() : 0;
          for (const sc::PushConstantNode *n : *nodes)
            if (!isNode(n->node(), false) ||
                uint64_t(n->word()) + 1 >= pushCount)
              return "push constant node";
        }
        if (const auto *choices = d->entry_point_choices())
          for (const sc::EntryPointChoice *c : *choices) {
            if (!dynamic || !isNode(c->node(), false))
              return "entry point choice node";
            for (const sc::ExecutableVariant *v :
                 *executables.Get(d->executable())->variants()) {
              if (c->entry_point() >= v->entry_points()->size())
                return "entry point choice index";
              const sc::EntryPoint *own =
                  v->entry_points()->Get(d->entry_point());
              const sc::EntryPoint *chosen =
                  v->entry_points()->Get(c->entry_point());
              if (chosen->binding_count() != own->binding_count() ||
                  chosen->push_constant_count() != own->push_constant_count())
                return "entry point choice signature";
            }
          }
        for (const sc::BufferRange *r : *d->bindings())
          if (!dynamic && !inBounds(*r))
            return "binding range";
      } else if (const auto *c = step->kind_as_CopyStep()) {
        if ((!dynamic &&
             (!inBounds(*c->source()) || !inBounds(*c->target()))) ||
            c->source()->length() != c->target()->length())
          return "copy";
      } else if (const auto *fl = step->kind_as_FillStep()) {
        uint8_t n = fl->pattern_length();
        if ((!dynamic && !inBounds(*fl->target())) ||
            (n != 1 && n != 2 && n != 4) || fl->target()->length() % n != 0)
          return "fill";
      } else {
        return "step kind";
      }
    }
  }
  return "";
}

} // namespace kiln::module::test

#endif // KILN_RUNTIME_MODULE_TESTMODULE_H
