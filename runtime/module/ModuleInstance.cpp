//===- ModuleInstance.cpp -------------------------------------------------===//

#include "runtime/module/ModuleInstance.h"
#include "schema/LoopSteps.h"
#include "schema/Specializations.h"

#include "runtime/hal/BufferTransfer.h"
#include "runtime/module/CallShapes.h"
#include "runtime/module/VariantSpec.h"
#include "runtime/module/Verifier.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

namespace kiln::module {

namespace sc = kiln::schema;
using hal::BufferRef;
using hal::BufferUsage;
using hal::MemoryType;

struct ModuleInstance::LoadedExecutable {
  std::shared_ptr<hal::Executable> Handle;
  const sc::ExecutableVariant *Variant;
};

struct ModuleInstance::Function {
  const sc::Function *Def;
  FunctionSignature Signature;
  std::vector<uint64_t> InputBytes;
  std::vector<uint64_t> OutputBytes;
  // Recorded on first use and replayed afterwards. Direct reads and writes
  // the tensor slots only; Staged also copies inputs in from and outputs out
  // to host-visible staging slots (call() without unified memory). With
  // unified memory both kinds of call use Direct.
  std::shared_ptr<hal::CommandBuffer> Direct;
  std::shared_ptr<hal::CommandBuffer> Staged;
  // Shared by both kinds of call: calls are serialized and each waits for
  // its work.
  std::shared_ptr<hal::Buffer> Arena;
  // call()'s binding table, allocated on its first use and reused by every
  // call. With unified memory the input slots wrap the caller's tensors for
  // the length of one call.
  std::vector<std::shared_ptr<hal::Buffer>> Table;
  // A function with dynamic shapes (a shape program): the shapes the
  // recordings, table and arena above are for, and what they resolve to.
  // A call at other shapes drops them and records afresh.
  bool Dynamic = false;
  std::optional<CallShapes> Shapes;
  // The inputs whose values the shape program reads (valueInputsOf), and
  // those values for the Shapes above (indexed by input).
  std::vector<uint32_t> ValueInputs;
  std::vector<std::vector<int64_t>> Values;
  // The arena a call at the inputs' upper bounds needs, where every
  // dynamic dimension has one (--input-shape=NAME:MIN..MAX) and no shape
  // reads values: allocated once, so a call within the bounds reuses it.
  uint64_t BoundArenaSize = 0;
  // The functions standing in for this one on the calls whose input shapes
  // they accept (module.fbs), in order; SpecializationOf is the function
  // this one stands in for, if any (then it is not listed).
  std::vector<uint32_t> Specializations;
  uint32_t SpecializationOf = sc::kNoSpecializationOf;
  // A phased function (module.fbs Function.phases) has no steps: a call
  // runs these functions in turn, each on the values its sources name
  // ((phase, output), or (kFunctionInput, input)), and returns the phase
  // outputs PhaseOutputs names. PhaseOf is the phased function this one
  // is a phase of, if any (then it is not listed).
  struct PhaseCall {
    uint32_t Function = 0; // a loop phase's body
    std::vector<std::pair<uint32_t, uint32_t>> Inputs;
    // A loop phase (module.fbs PhaseLoop) repeats Function, carrying this
    // many values.
    bool Loop = false;
    uint32_t Carried = 0;
    // Where each of the body's values is (module.fbs PhaseLoop.outputs);
    // empty: its results in order.
    std::vector<int32_t> LoopOutputs;
  };
  std::vector<PhaseCall> Phases;
  std::vector<std::pair<uint32_t, uint32_t>> PhaseOutputs;
  uint32_t PhaseOf = sc::kNoSpecializationOf;
  // Host time of its calls while timing is on (setFunctionTiming).
  FunctionTime Timing;
  // The outputs of this phase that a later phase reads on the host (value
  // inputs: a detector's 90 classes' counts). Its direct recording copies
  // them into ReadBack, memory the host maps, after its steps, each at a
  // multiple of 16 bytes (ReadBackOffsets, as recorded), so reading them
  // costs no submission of its own.
  std::vector<uint32_t> HostReadOutputs;
  std::vector<uint64_t> ReadBackOffsets;
  uint64_t ReadBackBytes = 0;
  std::shared_ptr<hal::Buffer> ReadBack;
  bool phased() const { return !Phases.empty(); }
  bool listed() const {
    return SpecializationOf == sc::kNoSpecializationOf &&
           PhaseOf == sc::kNoSpecializationOf;
  }

  // Binding-table layout: inputs, outputs, arena, constants, then (only
  // when staged) host-visible staging for inputs and outputs.
  uint32_t inputCount() const {
    return static_cast<uint32_t>(InputBytes.size());
  }
  uint32_t outputCount() const {
    return static_cast<uint32_t>(OutputBytes.size());
  }
  uint32_t inputSlot(uint32_t i) const { return i; }
  uint32_t outputSlot(uint32_t i) const { return inputCount() + i; }
  uint32_t arenaSlot() const { return inputCount() + outputCount(); }
  uint32_t constantsSlot() const { return arenaSlot() + 1; }
  uint32_t stagingInputSlot(uint32_t i) const {
    return constantsSlot() + 1 + i;
  }
  uint32_t stagingOutputSlot(uint32_t i) const {
    return constantsSlot() + 1 + inputCount() + i;
  }
  // Direct recordings only (phases run so).
  uint32_t readBackSlot() const { return constantsSlot() + 1; }
  uint32_t slotCount(bool staged) const {
    return staged ? constantsSlot() + 1 + inputCount() + outputCount()
                  : constantsSlot() + 1 + (HostReadOutputs.empty() ? 0 : 1);
  }
  uint32_t slotFor(const sc::BufferRange &range) const {
    switch (range.storage()) {
    case sc::StorageKind::Input:
      return inputSlot(range.index());
    case sc::StorageKind::Output:
      return outputSlot(range.index());
    case sc::StorageKind::Constant:
      return constantsSlot();
    case sc::StorageKind::Arena:
      break;
    }
    return arenaSlot();
  }
  BufferRef ref(const sc::BufferRange &range) const {
    return BufferRef::slot(slotFor(range), range.offset(), range.length());
  }
  // Range `index` of step `step` as this call places it.
  BufferRef ref(const sc::BufferRange &range, uint32_t step,
                size_t index) const {
    if (!Shapes)
      return ref(range);
    const ResolvedRange &place = Shapes->Ranges[step][index];
    return BufferRef::slot(slotFor(range), place.Offset, place.Length);
  }
};

namespace {

StatusOr<TensorSpec> toTensorSpec(const sc::TensorType &type) {
  auto raw = static_cast<uint8_t>(type.element_type());
  if (raw > kMaxElementType)
    return KILN_ERROR(InvalidArgument, "unknown element type ", unsigned(raw));
  TensorSpec spec;
  spec.Type = static_cast<ElementType>(raw);
  spec.Shape.assign(type.shape()->begin(), type.shape()->end());
  return spec;
}

std::string functionLabel(const FunctionSignature &signature) {
  return strCat("function @", signature.Name);
}

} // namespace

ModuleInstance::ModuleInstance(std::shared_ptr<hal::Device> device,
                               std::shared_ptr<const ModuleFile> file)
    : Device(std::move(device)), File(std::move(file)) {}

// Every call waits for its submission, and queued work holds its own
// references, so nothing needs draining here.
ModuleInstance::~ModuleInstance() = default;

StatusOr<std::unique_ptr<ModuleInstance>>
ModuleInstance::create(std::shared_ptr<hal::Device> device,
                       std::shared_ptr<const ModuleFile> file) {
  if (!device)
    return KILN_ERROR(InvalidArgument, "ModuleInstance::create: null device");
  if (!file)
    return KILN_ERROR(InvalidArgument, "ModuleInstance::create: null module");
  std::unique_ptr<ModuleInstance> instance(
      new ModuleInstance(std::move(device), std::move(file)));
  instance->Unified = instance->Device->allocator().supportsMemoryType(
      MemoryType::DeviceLocal | MemoryType::HostVisible);
  KILN_RETURN_IF_ERROR(instance->loadExecutables());
  KILN_RETURN_IF_ERROR(instance->loadFunctions());
  // Constants stay in the file's memory on devices that can address it.
  KILN_ASSIGN_OR_RETURN(
      instance->Constants,
      instance->Device->allocator().importHostMemory(
          std::span<const uint8_t>(instance->File->constantsData(),
                                   instance->File->constantsSize()),
          BufferUsage::Transfer | BufferUsage::Dispatch, instance->File));
  KILN_ASSIGN_OR_RETURN(instance->Timeline,
                        instance->Device->createSemaphore(0));
  return instance;
}

Status ModuleInstance::loadExecutables() {
  const sc::Module &root = File->root();
  for (const sc::Executable *executable : *root.executables()) {
    const sc::ExecutableVariant *chosen = nullptr;
    std::string variants;
    for (const sc::ExecutableVariant *variant : *executable->variants()) {
      variants +=
          strCat(variants.empty() ? "" : ", ", variant->format()->string_view(),
                 "/", variant->target()->string_view());
      if (!chosen &&
          Device->supportsExecutable(variant->format()->string_view(),
                                     variant->target()->string_view()))
        chosen = variant;
    }
    if (!chosen)
      return KILN_ERROR(FailedPrecondition, "executable '",
                        executable->name()->string_view(),
                        "' has no variant that device ", Device->info().Uri,
                        " can run; variants: ", variants);
    hal::ExecutableSpec spec = variantSpec(*executable, *chosen);
    StatusOr<std::shared_ptr<hal::Executable>> handle =
        Device->createExecutable(spec);
    if (!handle.ok())
      return Status(handle.status())
          .annotate(strCat("loading executable '", spec.Name, "'"));
    Executables.push_back({std::move(handle).value(), chosen});
  }
  return Status();
}

namespace {
uint64_t boundArenaSize(const sc::Function &def, uint64_t constantsSize);
} // namespace

Status ModuleInstance::loadFunctions() {
  for (const sc::Function *def : *File->root().functions()) {
    Function function;
    function.Def = def;
    function.Dynamic = def->shape_program() != nullptr;
    function.ValueInputs = valueInputsOf(*def);
    function.Signature.Name = def->name()->str();
    for (const sc::TensorType *type : *def->inputs()) {
      KILN_ASSIGN_OR_RETURN(TensorSpec spec, toTensorSpec(*type));
      function.Signature.Inputs.push_back(std::move(spec));
      function.InputBytes.push_back(tensorTypeByteSize(*type));
    }
    for (const sc::TensorType *type : *def->outputs()) {
      KILN_ASSIGN_OR_RETURN(TensorSpec spec, toTensorSpec(*type));
      function.Signature.Outputs.push_back(std::move(spec));
      function.OutputBytes.push_back(tensorTypeByteSize(*type));
    }
    // Slot numbers are uint32; no real function comes near this.
    if (function.InputBytes.size() + function.OutputBytes.size() > (1u << 20))
      return KILN_ERROR(InvalidArgument, functionLabel(function.Signature),
                        " has too many inputs and outputs");
    if (function.Dynamic && function.ValueInputs.empty())
      function.BoundArenaSize = boundArenaSize(*def, File->constantsSize());
    if (const auto *list = def->specializations())
      function.Specializations.assign(list->begin(), list->end());
    function.SpecializationOf = def->specialization_of();
    function.PhaseOf = def->phase_of();
    if (const auto *phases = def->phases()) {
      function.Signature.Phased = true;
      for (const sc::Phase *phase : *phases) {
        Function::PhaseCall call;
        call.Function = phase->function();
        if (const sc::PhaseLoop *loop = phase->loop()) {
          call.Function = loop->body();
          call.Loop = true;
          call.Carried = loop->carried();
          if (const auto *outputs = loop->outputs())
            call.LoopOutputs.assign(outputs->begin(), outputs->end());
        }
        for (const sc::PhaseSource *source : *phase->inputs())
          call.Inputs.emplace_back(source->phase(), source->index());
        function.Phases.push_back(std::move(call));
      }
      for (const sc::PhaseSource *source : *def->phase_outputs())
        function.PhaseOutputs.emplace_back(source->phase(), source->index());
    }
    Functions.push_back(std::move(function));
  }
  // Which outputs of each phase later phases read on the host (the
  // verifier checked the phases' functions and sources). A loop's body
  // reads its values per step through the loop's own buffers.
  for (const Function &function : Functions)
    for (const Function::PhaseCall &call : function.Phases) {
      if (call.Loop)
        continue;
      for (uint32_t input : Functions[call.Function].ValueInputs) {
        if (input >= call.Inputs.size())
          continue;
        auto [from, index] = call.Inputs[input];
        if (from >= function.Phases.size() || function.Phases[from].Loop)
          continue;
        std::vector<uint32_t> &reads =
            Functions[function.Phases[from].Function].HostReadOutputs;
        if (std::find(reads.begin(), reads.end(), index) == reads.end())
          reads.push_back(index);
      }
    }
  return Status();
}

ModuleInstance::Function &
ModuleInstance::specializedFor(Function &function,
                               std::span<const std::vector<int64_t>> shapes) {
  for (uint32_t index : function.Specializations) {
    const std::vector<TensorSpec> &inputs = Functions[index].Signature.Inputs;
    bool fits = inputs.size() == shapes.size();
    for (size_t i = 0; fits && i < inputs.size(); ++i)
      fits = schema::dimsFit(inputs[i].Shape, shapes[i]);
    if (fits)
      return Functions[index];
  }
  return function;
}

std::vector<std::string> ModuleInstance::functionNames() const {
  std::vector<std::string> names;
  for (const Function &function : Functions)
    if (function.listed())
      names.push_back(function.Signature.Name);
  return names;
}

StatusOr<const FunctionSignature *>
ModuleInstance::lookup(std::string_view name) const {
  std::string available;
  for (const Function &function : Functions) {
    if (function.Signature.Name == name)
      return &function.Signature;
    if (function.listed())
      available +=
          strCat(available.empty() ? "" : ", ", function.Signature.Name);
  }
  const flatbuffers::String *moduleName = File->root().name();
  return KILN_ERROR(
      NotFound, "no function '", name, "' in module '",
      moduleName ? moduleName->string_view() : "",
      "'; available: ", available.empty() ? std::string("none") : available);
}

uint64_t ModuleInstance::arenaAllocationCount() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return ArenaAllocations;
}

void ModuleInstance::setFunctionTiming(bool on) {
  std::lock_guard<std::mutex> lock(Mutex);
  Timing = on;
  for (Function &function : Functions)
    function.Timing = FunctionTime{function.Signature.Name};
}

std::vector<FunctionTime> ModuleInstance::functionTimes() const {
  std::lock_guard<std::mutex> lock(Mutex);
  std::vector<FunctionTime> times;
  for (const Function &function : Functions)
    if (function.Timing.Runs > 0)
      times.push_back(function.Timing);
  return times;
}

double *ModuleInstance::timed(Function &function, double FunctionTime::*part) {
  return Timing ? &(function.Timing.*part) : nullptr;
}

uint64_t ModuleInstance::recordingCount() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return Recordings;
}

StatusOr<std::shared_ptr<hal::CommandBuffer>>
ModuleInstance::record(Function &function, bool staged) {
  const std::string label = functionLabel(function.Signature);
  KILN_ASSIGN_OR_RETURN(
      std::shared_ptr<hal::CommandBuffer> commands,
      Device->createCommandBuffer(hal::CommandBufferMode::Reusable,
                                  function.slotCount(staged)));
  KILN_RETURN_IF_ERROR(commands->begin());
  if (staged) {
    for (uint32_t i = 0; i < function.inputCount(); ++i) {
      uint64_t bytes = function.InputBytes[i];
      KILN_RETURN_IF_ERROR(commands->copy(
          BufferRef::slot(function.stagingInputSlot(i), 0, bytes),
          BufferRef::slot(function.inputSlot(i), 0, bytes)));
    }
    // Every step may read an input.
    if (function.inputCount() > 0)
      KILN_RETURN_IF_ERROR(commands->executionBarrier());
  }
  // Step i is command firstStep + i.
  const uint32_t firstStep = commands->commandCount();
  std::vector<uint32_t> dependencies;
  uint32_t stepIndex = 0;
  for (const sc::Step *step : *function.Def->steps()) {
    if (const auto *declared = step->dependencies()) {
      // Exactly the steps the compiler found this one conflicting with
      // (the verifier checked that they order every conflict), so
      // independent steps may run at the same time.
      dependencies.clear();
      for (uint32_t dependency : *declared)
        dependencies.push_back(firstStep + dependency);
      KILN_RETURN_IF_ERROR(commands->dependOn(dependencies));
    } else if (stepIndex > 0) {
      // A module from before dependencies: after every earlier step.
      KILN_RETURN_IF_ERROR(commands->executionBarrier());
    }
    Status recorded;
    if (const sc::DispatchStep *dispatch = step->kind_as_DispatchStep()) {
      const LoadedExecutable &executable = Executables[dispatch->executable()];
      // The kernel chosen for this call's shapes, where the step has
      // choices.
      uint32_t entryIndex = function.Shapes
                                ? function.Shapes->EntryPoints[stepIndex]
                                : dispatch->entry_point();
      const sc::EntryPoint *entry =
          executable.Variant->entry_points()->Get(entryIndex);
      std::vector<BufferRef> bindings;
      bindings.reserve(dispatch->bindings()->size());
      for (flatbuffers::uoffset_t b = 0; b < dispatch->bindings()->size(); ++b)
        bindings.push_back(
            function.ref(*dispatch->bindings()->Get(b), stepIndex, b));
      std::span<const uint32_t> pushConstants;
      if (function.Shapes)
        pushConstants = function.Shapes->PushConstants[stepIndex];
      else if (dispatch->push_constants())
        pushConstants =
            std::span<const uint32_t>(dispatch->push_constants()->data(),
                                      dispatch->push_constants()->size());
      // The variant's grid, computed from the push constants where the
      // shapes decide it.
      StatusOr<std::array<uint32_t, 3>> grid =
          resolveGrid(*entry, pushConstants);
      recorded = grid.ok() ? commands->dispatch(executable.Handle, entryIndex,
                                                *grid, bindings, pushConstants)
                           : grid.status();
    } else if (const sc::CopyStep *copy = step->kind_as_CopyStep()) {
      recorded = commands->copy(function.ref(*copy->source(), stepIndex, 0),
                                function.ref(*copy->target(), stepIndex, 1));
    } else if (const sc::FillStep *fill = step->kind_as_FillStep()) {
      recorded = commands->fill(function.ref(*fill->target(), stepIndex, 0),
                                fill->pattern(), fill->pattern_length());
    } else {
      recorded = KILN_ERROR(InvalidArgument, "unknown step kind");
    }
    if (!recorded.ok())
      return recorded.annotate(strCat(label, " step ", stepIndex));
    ++stepIndex;
  }
  if (staged) {
    // Outputs are read once every step that may write one is done.
    if (stepIndex > 0)
      KILN_RETURN_IF_ERROR(commands->executionBarrier());
    for (uint32_t i = 0; i < function.outputCount(); ++i) {
      uint64_t bytes = function.OutputBytes[i];
      KILN_RETURN_IF_ERROR(commands->copy(
          BufferRef::slot(function.outputSlot(i), 0, bytes),
          BufferRef::slot(function.stagingOutputSlot(i), 0, bytes)));
    }
  } else if (!function.HostReadOutputs.empty()) {
    // The values later phases read on the host, once written.
    if (stepIndex > 0)
      KILN_RETURN_IF_ERROR(commands->executionBarrier());
    function.ReadBackOffsets.clear();
    uint64_t offset = 0;
    for (uint32_t i : function.HostReadOutputs) {
      uint64_t bytes = function.OutputBytes[i];
      function.ReadBackOffsets.push_back(offset);
      if (bytes > 0)
        KILN_RETURN_IF_ERROR(commands->copy(
            BufferRef::slot(function.outputSlot(i), 0, bytes),
            BufferRef::slot(function.readBackSlot(), offset, bytes)));
      // Value inputs are a few integers (the verifier bounds them).
      offset += (bytes + 15) / 16 * 16;
    }
    function.ReadBackBytes = offset;
  }
  KILN_RETURN_IF_ERROR(commands->end());
  ++Recordings;
  return commands;
}

StatusOr<std::shared_ptr<hal::CommandBuffer>>
ModuleInstance::commands(Function &function, bool staged) {
  std::shared_ptr<hal::CommandBuffer> &recorded =
      staged ? function.Staged : function.Direct;
  if (!recorded) {
    ScopedSeconds seconds(timed(function, &FunctionTime::RecordSeconds));
    KILN_ASSIGN_OR_RETURN(recorded, record(function, staged));
  }
  return recorded;
}

namespace {

// Whether every tensor of a signature's list has a static shape.
bool allStatic(const std::vector<TensorSpec> &tensors) {
  for (const TensorSpec &tensor : tensors)
    for (int64_t d : tensor.Shape)
      if (d < 0)
        return false;
  return true;
}

// The arena a call of `def` at its inputs' upper bounds needs, or 0 where a
// dynamic dimension has none (or that call is refused: bounds the checks
// cannot meet together).
uint64_t boundArenaSize(const sc::Function &def, uint64_t constantsSize) {
  std::vector<std::vector<int64_t>> shapes;
  for (const sc::TensorType *type : *def.inputs()) {
    std::vector<int64_t> shape(type->shape()->begin(), type->shape()->end());
    for (size_t d = 0; d < shape.size(); ++d) {
      if (shape[d] >= 0)
        continue;
      if (!type->dim_max())
        return 0;
      shape[d] = type->dim_max()->Get(d);
    }
    shapes.push_back(std::move(shape));
  }
  StatusOr<CallShapes> call = resolveCall(def, "", shapes, {}, constantsSize);
  return call.ok() ? call->ArenaSize : 0;
}

// The values of `valueInputs` among `inputs`, indexed by input
// (resolveCall checks them).
std::vector<std::vector<int64_t>>
valuesOf(std::span<const uint32_t> valueInputs,
         std::span<const HostTensor> inputs) {
  std::vector<std::vector<int64_t>> values(inputs.size());
  for (uint32_t i : valueInputs)
    if (i < inputs.size())
      values[i] = shapeValues(inputs[i].Type, inputs[i].Data);
  return values;
}

} // namespace

ModuleInstance::Function *ModuleInstance::find(std::string_view name) {
  for (Function &candidate : Functions)
    if (candidate.Signature.Name == name)
      return &candidate;
  return nullptr;
}

StatusOr<std::vector<HostTensor>>
ModuleInstance::call(std::string_view name,
                     const std::vector<HostTensor> &inputs) {
  Function *function = find(name);
  if (!function)
    return lookup(name).status();

  // The label is formatted only when a check fails: this is the per-call path.
  if (inputs.size() != function->Signature.Inputs.size())
    return KILN_ERROR(InvalidArgument, functionLabel(function->Signature),
                      " expects ", function->Signature.Inputs.size(),
                      " input(s), got ", inputs.size());
  // A specialization has the same inputs, so the count holds for it too.
  if (!function->Specializations.empty()) {
    std::vector<std::vector<int64_t>> shapes;
    for (const HostTensor &input : inputs)
      shapes.push_back(input.Shape);
    function = &specializedFor(*function, shapes);
  }
  const FunctionSignature &signature = function->Signature;
  if (function->phased()) {
    std::lock_guard<std::mutex> lock(Mutex);
    if (Timing)
      ++function->Timing.Runs;
    ScopedSeconds seconds(timed(*function, &FunctionTime::TotalSeconds));
    return callPhased(*function, inputs);
  }
  if (function->Dynamic)
    return callDynamic(*function, inputs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec &expected = signature.Inputs[i];
    const HostTensor &input = inputs[i];
    if (input.Type != expected.Type || input.Shape != expected.Shape)
      return KILN_ERROR(InvalidArgument, functionLabel(signature), " input ", i,
                        ": expected ",
                        tensorTypeString(expected.Shape, expected.Type),
                        ", got ", input.typeString());
    if (input.Data.size() != function->InputBytes[i])
      return KILN_ERROR(InvalidArgument, functionLabel(signature), " input ", i,
                        ": ", input.typeString(), " needs ",
                        function->InputBytes[i], " bytes of data, got ",
                        input.Data.size());
  }

  std::lock_guard<std::mutex> lock(Mutex);
  return callLocked(*function, inputs);
}

Status
ModuleInstance::bindShapes(Function &function,
                           const std::vector<std::vector<int64_t>> &shapes,
                           const std::vector<std::vector<int64_t>> &values) {
  if (function.Shapes && function.Shapes->InputShapes == shapes &&
      (function.ValueInputs.empty() || function.Values == values))
    return Status();
  KILN_ASSIGN_OR_RETURN(CallShapes resolved,
                        resolveCall(*function.Def,
                                    functionLabel(function.Signature), shapes,
                                    values, File->constantsSize()));
  function.Values = values;
  // What was made for other shapes goes.
  function.Direct.reset();
  function.Staged.reset();
  function.Table.clear();
  // An arena as large as these shapes need stays (one planned at the
  // inputs' upper bounds serves every call within them).
  if (function.Arena && function.Arena->size() < resolved.ArenaSize)
    function.Arena.reset();
  function.InputBytes = resolved.InputBytes;
  function.OutputBytes = resolved.OutputBytes;
  function.Shapes = std::move(resolved);
  return Status();
}

StatusOr<std::vector<TensorSpec>>
ModuleInstance::outputTypes(std::string_view name,
                            std::span<const std::vector<int64_t>> inputShapes,
                            std::span<const HostTensor> inputs) {
  Function *function = find(name);
  if (!function)
    return lookup(name).status();
  function = &specializedFor(*function, inputShapes);
  const FunctionSignature &signature = function->Signature;
  if (function->phased())
    return KILN_ERROR(InvalidArgument, functionLabel(signature),
                      " runs in phases: its output shapes depend on values it "
                      "computes, known only once it is called");
  if (!function->Dynamic) {
    for (size_t i = 0; i < inputShapes.size() && i < signature.Inputs.size();
         ++i)
      if (inputShapes[i] != signature.Inputs[i].Shape)
        return KILN_ERROR(
            InvalidArgument, functionLabel(signature), " input ", i,
            ": expected ",
            tensorTypeString(signature.Inputs[i].Shape,
                             signature.Inputs[i].Type),
            ", got shape ",
            tensorTypeString(inputShapes[i], signature.Inputs[i].Type));
    return signature.Outputs;
  }
  std::vector<std::vector<int64_t>> values =
      valuesOf(function->ValueInputs, inputs);
  KILN_ASSIGN_OR_RETURN(CallShapes resolved,
                        resolveCall(*function->Def, functionLabel(signature),
                                    inputShapes, values,
                                    File->constantsSize()));
  std::vector<TensorSpec> outputs = signature.Outputs;
  for (size_t i = 0; i < outputs.size(); ++i)
    outputs[i].Shape = resolved.OutputShapes[i];
  return outputs;
}

StatusOr<std::vector<HostTensor>>
ModuleInstance::callDynamic(Function &function,
                            const std::vector<HostTensor> &inputs) {
  const FunctionSignature &signature = function.Signature;
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].Type != signature.Inputs[i].Type)
      return KILN_ERROR(
          InvalidArgument, functionLabel(signature), " input ", i,
          ": expected ",
          tensorTypeString(signature.Inputs[i].Shape, signature.Inputs[i].Type),
          ", got ", inputs[i].typeString());
    shapes.push_back(inputs[i].Shape);
  }
  std::lock_guard<std::mutex> lock(Mutex);
  std::vector<std::vector<int64_t>> values =
      valuesOf(function.ValueInputs, inputs);
  KILN_RETURN_IF_ERROR(bindShapes(function, shapes, values));
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].Data.size() != function.InputBytes[i])
      return KILN_ERROR(InvalidArgument, functionLabel(signature), " input ", i,
                        ": ", inputs[i].typeString(), " needs ",
                        function.InputBytes[i], " bytes of data, got ",
                        inputs[i].Data.size());
  return callLocked(function, inputs);
}

Status ModuleInstance::allocateArena(Function &function) {
  if (function.Arena)
    return Status();
  uint64_t size = std::max(function.Shapes ? function.Shapes->ArenaSize
                                           : function.Def->arena_size(),
                           function.BoundArenaSize);
  ++ArenaAllocations;
  ScopedSeconds seconds(timed(function, &FunctionTime::AllocateSeconds));
  KILN_ASSIGN_OR_RETURN(function.Arena,
                        Device->allocator().allocate(
                            size, MemoryType::DeviceLocal,
                            BufferUsage::Transfer | BufferUsage::Dispatch));
  return Status();
}

Status ModuleInstance::allocateTable(Function &function) {
  KILN_RETURN_IF_ERROR(allocateArena(function));
  hal::Allocator &allocator = Device->allocator();
  std::vector<std::shared_ptr<hal::Buffer>> table(function.slotCount(!Unified));
  table[function.arenaSlot()] = function.Arena;
  table[function.constantsSlot()] = Constants;
  // Unified memory: outputs are mapped in place. Otherwise device-local
  // tensors plus host-visible staging, copied by the recording.
  const MemoryType tensorType =
      Unified ? MemoryType::DeviceLocal | MemoryType::HostVisible
              : MemoryType::DeviceLocal;
  const BufferUsage tensorUsage =
      Unified ? BufferUsage::All
              : BufferUsage::Transfer | BufferUsage::Dispatch;
  const BufferUsage stagingUsage = BufferUsage::Transfer | BufferUsage::Mapping;
  for (uint32_t i = 0; i < function.outputCount(); ++i) {
    uint64_t bytes = function.OutputBytes[i];
    KILN_ASSIGN_OR_RETURN(table[function.outputSlot(i)],
                          allocator.allocate(bytes, tensorType, tensorUsage));
    if (!Unified) {
      KILN_ASSIGN_OR_RETURN(
          table[function.stagingOutputSlot(i)],
          allocator.allocate(bytes, MemoryType::HostVisible, stagingUsage));
    }
  }
  if (!Unified) {
    for (uint32_t i = 0; i < function.inputCount(); ++i) {
      uint64_t bytes = function.InputBytes[i];
      KILN_ASSIGN_OR_RETURN(table[function.inputSlot(i)],
                            allocator.allocate(bytes, tensorType, tensorUsage));
      KILN_ASSIGN_OR_RETURN(
          table[function.stagingInputSlot(i)],
          allocator.allocate(bytes, MemoryType::HostVisible, stagingUsage));
    }
  }
  function.Table = std::move(table);
  return Status();
}

Status
ModuleInstance::execute(Function &function,
                        const std::shared_ptr<hal::CommandBuffer> &commands,
                        std::span<const std::shared_ptr<hal::Buffer>> table,
                        const std::shared_ptr<hal::SubmissionTimer> &timer) {
  // A failed semaphore stays failed; a fresh one lets later calls run.
  if (!Timeline) {
    KILN_ASSIGN_OR_RETURN(Timeline, Device->createSemaphore(0));
    TimelineValue = 0;
  }
  hal::SemaphoreValue done{Timeline, ++TimelineValue};
  ScopedSeconds seconds(timed(function, &FunctionTime::RunSeconds));
  Status status = Device->queueExecute({}, commands, table, {&done, 1}, timer);
  if (status.ok())
    status = Timeline->wait(done.Value, hal::kInfiniteTimeout);
  if (!status.ok()) {
    Timeline.reset();
    return status.annotate(functionLabel(function.Signature));
  }
  return Status();
}

namespace {

// The caller's output buffers: each present and writable, and distinct
// from each other and from the inputs. Steps run as a graph ordered by
// what the compiler saw them touch, and it saw every input and output as
// a buffer of its own.
Status
checkOutputBuffers(const FunctionSignature &signature,
                   std::span<const std::shared_ptr<hal::Buffer>> inputs,
                   std::span<const std::shared_ptr<hal::Buffer>> outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i])
      return KILN_ERROR(InvalidArgument, functionLabel(signature), " output ",
                        i, ": no buffer");
    if (outputs[i]->isReadOnly())
      return KILN_ERROR(InvalidArgument, functionLabel(signature), " output ",
                        i, ": the buffer is read-only");
    for (size_t j = 0; j < inputs.size(); ++j)
      if (inputs[j] == outputs[i])
        return KILN_ERROR(InvalidArgument, functionLabel(signature), " output ",
                          i, " is the buffer given as input ", j,
                          "; outputs need buffers of their own");
    for (size_t j = 0; j < i; ++j)
      if (outputs[j] == outputs[i])
        return KILN_ERROR(InvalidArgument, functionLabel(signature), " output ",
                          i, " is the buffer given as output ", j,
                          "; outputs need buffers of their own");
  }
  return Status();
}

} // namespace

Status ModuleInstance::callWithDeviceBuffers(
    std::string_view name, std::span<const std::shared_ptr<hal::Buffer>> inputs,
    std::span<const std::shared_ptr<hal::Buffer>> outputs,
    const std::shared_ptr<hal::SubmissionTimer> &timer,
    std::span<const std::vector<int64_t>> inputShapes,
    std::vector<std::vector<int64_t>> *outputShapes) {
  Function *function = find(name);
  if (!function)
    return lookup(name).status();
  // The shapes pick a specialization; one that is static takes none.
  if (function->Dynamic || function->phased())
    function = &specializedFor(*function, inputShapes);
  std::lock_guard<std::mutex> lock(Mutex);
  if (Timing)
    ++function->Timing.Runs;
  ScopedSeconds seconds(timed(*function, &FunctionTime::TotalSeconds));
  if (function->phased())
    return callPhasedWithBuffers(*function, inputs, outputs, timer, inputShapes,
                                 outputShapes);
  KILN_RETURN_IF_ERROR(bindBufferShapes(*function, inputs, inputShapes));
  return callWithBuffersLocked(*function, inputs, outputs, timer, outputShapes);
}

Status ModuleInstance::bindBufferShapes(
    Function &function, std::span<const std::shared_ptr<hal::Buffer>> inputs,
    std::span<const std::vector<int64_t>> inputShapes,
    std::span<const std::vector<uint8_t>> known) {
  const FunctionSignature &signature = function.Signature;
  // Buffers carry no shapes: a function with dynamic shapes takes them
  // beside the buffers (one whose signature is static, checking values it
  // reads per call, has them there).
  std::vector<std::vector<int64_t>> signatureShapes;
  if (function.Dynamic && inputShapes.empty() && allStatic(signature.Inputs)) {
    for (const TensorSpec &input : signature.Inputs)
      signatureShapes.push_back(input.Shape);
    inputShapes = signatureShapes;
  }
  if (function.Dynamic) {
    if (inputShapes.size() != signature.Inputs.size())
      return KILN_ERROR(InvalidArgument, functionLabel(signature),
                        " has dynamic shapes: a call on device buffers needs "
                        "its ",
                        signature.Inputs.size(), " input shape(s), got ",
                        inputShapes.size());
    // The inputs deciding shapes by their values are read back: a few
    // integers each (the verifier fixed their sizes).
    std::vector<std::vector<int64_t>> values(inputs.size());
    std::optional<ScopedSeconds> reading(
        std::in_place, timed(function, &FunctionTime::ReadSeconds));
    // All in one submission through memory kept for it: a phase may read
    // a count per class of a detector's 90.
    std::vector<std::vector<uint8_t>> bytes(inputs.size());
    std::vector<hal::BufferRead> reads;
    for (uint32_t i : function.ValueInputs) {
      if (i >= inputs.size() || !inputs[i] ||
          inputs[i]->size() < function.InputBytes[i])
        continue; // refused below, naming the input
      if (i < known.size() && known[i].size() == function.InputBytes[i] &&
          !known[i].empty()) {
        bytes[i] = known[i];
        continue;
      }
      bytes[i].resize(function.InputBytes[i]);
      reads.push_back({inputs[i], 0, bytes[i]});
    }
    KILN_RETURN_IF_ERROR(hal::readBuffers(*Device, reads, ReadStaging));
    for (uint32_t i : function.ValueInputs)
      if (i < inputs.size() && !bytes[i].empty())
        values[i] = shapeValues(signature.Inputs[i].Type, bytes[i]);
    reading.reset();
    ScopedSeconds shaping(timed(function, &FunctionTime::ShapeSeconds));
    KILN_RETURN_IF_ERROR(bindShapes(function,
                                    std::vector<std::vector<int64_t>>(
                                        inputShapes.begin(), inputShapes.end()),
                                    values));
  }
  return Status();
}

Status ModuleInstance::callWithBuffersLocked(
    Function &callee, std::span<const std::shared_ptr<hal::Buffer>> inputs,
    std::span<const std::shared_ptr<hal::Buffer>> outputs,
    const std::shared_ptr<hal::SubmissionTimer> &timer,
    std::vector<std::vector<int64_t>> *outputShapes) {
  Function *function = &callee;
  const FunctionSignature &signature = function->Signature;
  if (inputs.size() != signature.Inputs.size() ||
      outputs.size() != signature.Outputs.size())
    return KILN_ERROR(InvalidArgument, functionLabel(signature), " expects ",
                      signature.Inputs.size(), " input and ",
                      signature.Outputs.size(), " output buffer(s), got ",
                      inputs.size(), " and ", outputs.size());
  // The binding table's own check would name slots; these name tensors.
  auto check = [&](const std::shared_ptr<hal::Buffer> &buffer,
                   const TensorSpec &spec, uint64_t bytes, const char *what,
                   size_t index) -> Status {
    if (!buffer)
      return KILN_ERROR(InvalidArgument, functionLabel(signature), " ", what,
                        " ", index, ": no buffer");
    if (buffer->size() < bytes)
      return KILN_ERROR(InvalidArgument, functionLabel(signature), " ", what,
                        " ", index, ": ",
                        tensorTypeString(spec.Shape, spec.Type), " needs ",
                        bytes, " bytes, the buffer has ", buffer->size());
    return Status();
  };
  for (size_t i = 0; i < inputs.size(); ++i)
    KILN_RETURN_IF_ERROR(check(inputs[i], signature.Inputs[i],
                               function->InputBytes[i], "input", i));
  for (size_t i = 0; i < outputs.size(); ++i)
    KILN_RETURN_IF_ERROR(check(outputs[i], signature.Outputs[i],
                               function->OutputBytes[i], "output", i));
  KILN_RETURN_IF_ERROR(checkOutputBuffers(signature, inputs, outputs));

  KILN_RETURN_IF_ERROR(allocateArena(*function));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::CommandBuffer> recorded,
                        commands(*function, /*staged=*/false));
  std::vector<std::shared_ptr<hal::Buffer>> table;
  table.reserve(function->slotCount(/*staged=*/false));
  table.insert(table.end(), inputs.begin(), inputs.end());
  table.insert(table.end(), outputs.begin(), outputs.end());
  table.push_back(function->Arena);
  table.push_back(Constants);
  if (!function->HostReadOutputs.empty()) {
    if (!function->ReadBack ||
        function->ReadBack->size() < function->ReadBackBytes) {
      ScopedSeconds seconds(timed(*function, &FunctionTime::AllocateSeconds));
      function->ReadBack.reset();
      KILN_ASSIGN_OR_RETURN(function->ReadBack,
                            Device->allocator().allocate(
                                std::max<uint64_t>(function->ReadBackBytes, 1),
                                MemoryType::HostVisible,
                                BufferUsage::Transfer | BufferUsage::Mapping));
    }
    table.push_back(function->ReadBack);
  }
  KILN_RETURN_IF_ERROR(execute(*function, recorded, table, timer));
  if (outputShapes) {
    outputShapes->clear();
    for (size_t i = 0; i < signature.Outputs.size(); ++i)
      outputShapes->push_back(function->Shapes
                                  ? function->Shapes->OutputShapes[i]
                                  : signature.Outputs[i].Shape);
  }
  return Status();
}

StatusOr<std::vector<HostTensor>>
ModuleInstance::callLocked(Function &function,
                           const std::vector<HostTensor> &inputs) {
  if (function.Table.empty())
    KILN_RETURN_IF_ERROR(allocateTable(function));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::CommandBuffer> recorded,
                        commands(function, /*staged=*/!Unified));
  std::vector<std::shared_ptr<hal::Buffer>> &table = function.Table;
  for (uint32_t i = 0; i < function.inputCount(); ++i) {
    std::span<const uint8_t> data(inputs[i].Data.data(),
                                  function.InputBytes[i]);
    if (Unified) {
      // The device reads the caller's memory in place; the slot is cleared
      // before this call returns.
      KILN_ASSIGN_OR_RETURN(table[function.inputSlot(i)],
                            Device->allocator().importHostMemory(
                                data,
                                BufferUsage::Transfer | BufferUsage::Dispatch,
                                /*keepAlive=*/nullptr));
      continue;
    }
    KILN_ASSIGN_OR_RETURN(std::span<uint8_t> mapped,
                          table[function.stagingInputSlot(i)]->map());
    if (!data.empty())
      std::memcpy(mapped.data(), data.data(), data.size());
  }
  struct ClearInputs {
    Function &F;
    bool Unified;
    ~ClearInputs() {
      if (Unified)
        for (uint32_t i = 0; i < F.inputCount(); ++i)
          F.Table[F.inputSlot(i)].reset();
    }
  } clearInputs{function, Unified};

  KILN_RETURN_IF_ERROR(execute(function, recorded, table, nullptr));

  std::vector<HostTensor> outputs;
  outputs.reserve(function.outputCount());
  for (uint32_t i = 0; i < function.outputCount(); ++i) {
    const std::shared_ptr<hal::Buffer> &host =
        table[Unified ? function.outputSlot(i) : function.stagingOutputSlot(i)];
    KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> mapped, host->mapRead());
    HostTensor output;
    output.Type = function.Signature.Outputs[i].Type;
    output.Shape = function.Shapes ? function.Shapes->OutputShapes[i]
                                   : function.Signature.Outputs[i].Shape;
    output.Data.assign(mapped.begin(),
                       mapped.begin() + function.OutputBytes[i]);
    outputs.push_back(std::move(output));
  }
  return outputs;
}

namespace {

constexpr uint32_t kFunctionInput = 0xFFFFFFFFu;

// Bytes of a dense tensor of `shape` (checked: a size past 2^48 is an
// error naming the tensor).
StatusOr<uint64_t> denseBytes(const FunctionSignature &signature,
                              const char *what, size_t index,
                              std::span<const int64_t> shape,
                              ElementType type) {
  uint64_t bytes = elementTypeSize(type);
  for (int64_t d : shape)
    if (d < 0 ||
        __builtin_mul_overflow(bytes, static_cast<uint64_t>(d), &bytes) ||
        bytes > (uint64_t(1) << 48))
      return KILN_ERROR(
          InvalidArgument, functionLabel(signature), " ", what, " ", index,
          ": shape ",
          tensorTypeString(std::vector<int64_t>(shape.begin(), shape.end()),
                           type),
          " is negative or past 2^48 bytes");
  return bytes;
}

// Whether a call's input of `shape` fits the signature's (rank, static
// extents), as an error naming it.
Status checkFits(const FunctionSignature &signature, size_t i,
                 std::span<const int64_t> shape) {
  const TensorSpec &expected = signature.Inputs[i];
  if (schema::dimsFit(expected.Shape, shape))
    return Status();
  return KILN_ERROR(
      InvalidArgument, functionLabel(signature), " input ", i, ": expected ",
      tensorTypeString(expected.Shape, expected.Type), ", got shape ",
      tensorTypeString(std::vector<int64_t>(shape.begin(), shape.end()),
                       expected.Type));
}

} // namespace

Status
ModuleInstance::runPhases(Function &function,
                          std::span<const PhaseValue> inputs,
                          std::span<const std::shared_ptr<hal::Buffer>> outputs,
                          const std::shared_ptr<hal::SubmissionTimer> &timer,
                          std::vector<PhaseValue> &results) {
  const FunctionSignature &signature = function.Signature;
  if (timer)
    return KILN_ERROR(Unimplemented, functionLabel(signature),
                      " runs in phases, whose calls the device clock does "
                      "not time as one");
  // The verifier checked every source against the phases and their
  // signatures, so indices hold.
  std::vector<std::vector<PhaseValue>> values(function.Phases.size());
  for (size_t k = 0; k < function.Phases.size(); ++k) {
    const Function::PhaseCall &call = function.Phases[k];
    Function &phase = Functions[call.Function];
    std::vector<std::shared_ptr<hal::Buffer>> in;
    std::vector<std::vector<int64_t>> shapes;
    std::vector<std::vector<uint8_t>> known;
    for (auto [from, index] : call.Inputs) {
      const PhaseValue &value =
          from == kFunctionInput ? inputs[index] : values[from][index];
      in.push_back(value.Buffer);
      shapes.push_back(value.Shape);
      known.push_back(value.HostBytes);
    }
    // An error of a phase names the function called too.
    auto inPhase = [&](Status status) {
      if (!status.ok())
        status.annotate(strCat(functionLabel(signature), " phase ", k));
      return status;
    };
    if (call.Loop) {
      ScopedSeconds seconds(timed(phase, &FunctionTime::TotalSeconds));
      std::vector<PhaseValue> in;
      for (auto [from, index] : call.Inputs)
        in.push_back(from == kFunctionInput ? inputs[index]
                                            : values[from][index]);
      KILN_RETURN_IF_ERROR(inPhase(
          runLoop(phase, call.Carried, call.LoopOutputs, in, values[k])));
      continue;
    }
    if (Timing)
      ++phase.Timing.Runs;
    ScopedSeconds seconds(timed(phase, &FunctionTime::TotalSeconds));
    // The values this phase reads on the host are read back here, so its
    // outputs' sizes are known before it runs.
    KILN_RETURN_IF_ERROR(inPhase(bindBufferShapes(phase, in, shapes, known)));
    std::vector<std::shared_ptr<hal::Buffer>> out(phase.outputCount());
    std::optional<ScopedSeconds> allocating(
        std::in_place, timed(phase, &FunctionTime::AllocateSeconds));
    for (uint32_t i = 0; i < phase.outputCount(); ++i) {
      uint64_t bytes = phase.OutputBytes[i];
      // The caller's buffer where the output is one of the function's.
      for (size_t j = 0; j < function.PhaseOutputs.size() && !out[i]; ++j) {
        if (function.PhaseOutputs[j] != std::make_pair(uint32_t(k), i) ||
            j >= outputs.size())
          continue;
        if (outputs[j]->size() < bytes)
          return KILN_ERROR(
              InvalidArgument, functionLabel(signature), " output ", j,
              ": this call computed ",
              tensorTypeString(phase.Shapes ? phase.Shapes->OutputShapes[i]
                                            : phase.Signature.Outputs[i].Shape,
                               signature.Outputs[j].Type),
              ", which needs ", bytes, " bytes; the buffer has ",
              outputs[j]->size());
        out[i] = outputs[j];
      }
      if (!out[i]) {
        KILN_ASSIGN_OR_RETURN(
            out[i], Device->allocator().allocate(
                        std::max<uint64_t>(bytes, 1), MemoryType::DeviceLocal,
                        BufferUsage::Transfer | BufferUsage::Dispatch));
      }
    }
    allocating.reset();
    std::vector<std::vector<int64_t>> outShapes;
    KILN_RETURN_IF_ERROR(
        inPhase(callWithBuffersLocked(phase, in, out, nullptr, &outShapes)));
    for (uint32_t i = 0; i < phase.outputCount(); ++i)
      values[k].push_back({out[i], std::move(outShapes[i])});
    // What later phases read on the host, copied out by the recording.
    if (!phase.HostReadOutputs.empty()) {
      KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> mapped,
                            phase.ReadBack->mapRead());
      for (size_t j = 0; j < phase.HostReadOutputs.size(); ++j) {
        uint32_t i = phase.HostReadOutputs[j];
        const uint8_t *at = mapped.data() + phase.ReadBackOffsets[j];
        values[k][i].HostBytes.assign(at, at + phase.OutputBytes[i]);
      }
    }
  }
  results.clear();
  std::vector<hal::BufferCopy> copies;
  for (size_t j = 0; j < function.PhaseOutputs.size(); ++j) {
    auto [from, index] = function.PhaseOutputs[j];
    results.push_back(values[from][index]);
    // An output the function returns twice went to the first buffer.
    if (j < outputs.size() && outputs[j] != results.back().Buffer) {
      KILN_ASSIGN_OR_RETURN(uint64_t bytes,
                            denseBytes(signature, "output", j,
                                       results.back().Shape,
                                       signature.Outputs[j].Type));
      if (outputs[j]->size() < bytes)
        return KILN_ERROR(InvalidArgument, functionLabel(signature), " output ",
                          j, ": this call computed ", bytes,
                          " bytes; the buffer has ", outputs[j]->size());
      copies.push_back({results.back().Buffer, outputs[j], bytes});
      results.back().Buffer = outputs[j];
    }
  }
  if (!copies.empty())
    KILN_RETURN_IF_ERROR(hal::copyAndWait(*Device, copies));
  return Status();
}

using schema::kMaxLoopSteps;

Status ModuleInstance::runLoop(Function &body, uint32_t carried,
                               std::span<const int32_t> where,
                               std::span<const PhaseValue> inputs,
                               std::vector<PhaseValue> &results) {
  const FunctionSignature &signature = body.Signature;
  // The body's values (condition, carried..., slices...): its results, or
  // where `where` puts them (the verifier checked every index).
  size_t count = where.empty() ? signature.Outputs.size() : where.size();
  auto spec = [&](size_t j) -> const TensorSpec & {
    int32_t k = where.empty() ? int32_t(j) : where[j];
    return k >= 0 ? signature.Outputs[k] : signature.Inputs[-1 - k];
  };
  auto allocate = [&](uint64_t bytes) {
    return Device->allocator().allocate(
        std::max<uint64_t>(bytes, 1), MemoryType::DeviceLocal,
        BufferUsage::Transfer | BufferUsage::Dispatch);
  };
  // What the host writes or reads every step lives in memory it maps
  // (LoopMapped: the iteration, and two conditions), so a step costs no
  // staged transfer; reused, as every step has finished before the next
  // begins. A loop inside this one's body (run in phases) has its own.
  if (LoopMapped.size() <= LoopDepth)
    LoopMapped.resize(LoopDepth + 1);
  // A copy: a nested loop may grow LoopMapped, which moves its elements.
  std::array<std::shared_ptr<hal::Buffer>, 3> mapped = LoopMapped[LoopDepth];
  for (auto &buffer : mapped)
    if (!buffer) {
      KILN_ASSIGN_OR_RETURN(buffer,
                            Device->allocator().allocate(
                                sizeof(int64_t), MemoryType::HostVisible,
                                BufferUsage::Transfer | BufferUsage::Dispatch |
                                    BufferUsage::Mapping));
    }
  LoopMapped[LoopDepth] = mapped;
  struct Nesting {
    size_t &Depth;
    explicit Nesting(size_t &depth) : Depth(depth) { ++Depth; }
    ~Nesting() { --Depth; }
  } nesting(LoopDepth);
  const std::shared_ptr<hal::Buffer> &iteration = mapped[0];
  // A few bytes of a device buffer, through the iteration's memory.
  auto readSmall = [&](const std::shared_ptr<hal::Buffer> &source,
                       std::span<uint8_t> out) -> Status {
    hal::BufferCopy copy{source, iteration, out.size(), 0, 0};
    KILN_RETURN_IF_ERROR(hal::copyAndWait(*Device, {&copy, 1}));
    return hal::readBuffer(*Device, iteration, 0, out);
  };
  // The trip count (i64) and the condition (one byte), read back; the
  // verifier fixed the body's types and the inputs' count.
  int64_t trips = 0;
  uint8_t condition = 0;
  KILN_RETURN_IF_ERROR(
      readSmall(inputs[0].Buffer,
                std::span(reinterpret_cast<uint8_t *>(&trips), sizeof(trips))));
  KILN_RETURN_IF_ERROR(readSmall(inputs[1].Buffer, std::span(&condition, 1)));
  std::shared_ptr<hal::Buffer> conditionBuffer = inputs[1].Buffer;
  // The carried values, then the values the body only reads.
  std::vector<PhaseValue> state(inputs.begin() + 2, inputs.end());
  size_t scans = count - 1 - carried;
  std::vector<std::vector<PhaseValue>> slices(scans);
  // The condition the body computes goes to one of two mapped buffers in
  // turn (the last step's is this step's input); one passed through from
  // the loop's own stays as it is.
  int32_t conditionAt = where.empty() ? 0 : where[0];
  std::shared_ptr<hal::Buffer> conditions[2];
  if (conditionAt >= 0) {
    conditions[0] = mapped[1];
    conditions[1] = mapped[2];
  }
  int64_t step = 0;
  for (; step < trips && condition; ++step) {
    if (step == kMaxLoopSteps)
      return KILN_ERROR(
          ResourceExhausted, functionLabel(signature),
          ": the loop is still running after ", kMaxLoopSteps,
          " steps, the most one call runs (",
          trips == std::numeric_limits<int64_t>::max()
              ? std::string("no trip count: its condition stayed true")
              : strCat("trip count ", trips),
          ")");
    if (Timing)
      ++body.Timing.Runs;
    KILN_RETURN_IF_ERROR(hal::writeBuffer(
        *Device, iteration, 0,
        std::span(reinterpret_cast<const uint8_t *>(&step), sizeof(step))));
    std::vector<std::shared_ptr<hal::Buffer>> in{iteration, conditionBuffer};
    std::vector<std::vector<int64_t>> shapes{{}, {}};
    for (const PhaseValue &value : state) {
      in.push_back(value.Buffer);
      shapes.push_back(value.Shape);
    }
    std::vector<PhaseValue> outValues;
    if (body.phased()) {
      // A body that reads on the host what it computes, or runs a loop of
      // its own: its phases, outputs in buffers they allocate.
      std::vector<PhaseValue> inValues;
      for (size_t i = 0; i < in.size(); ++i)
        inValues.push_back({in[i], shapes[i]});
      KILN_RETURN_IF_ERROR(runPhases(body, inValues, {}, nullptr, outValues));
    } else {
      KILN_RETURN_IF_ERROR(bindBufferShapes(body, in, shapes));
      std::vector<std::shared_ptr<hal::Buffer>> out;
      for (uint32_t i = 0; i < body.outputCount(); ++i) {
        if (int32_t(i) == conditionAt) {
          out.push_back(conditions[step % 2]);
          continue;
        }
        KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::Buffer> buffer,
                              allocate(body.OutputBytes[i]));
        out.push_back(std::move(buffer));
      }
      std::vector<std::vector<int64_t>> outShapes;
      KILN_RETURN_IF_ERROR(
          callWithBuffersLocked(body, in, out, nullptr, &outShapes));
      for (uint32_t i = 0; i < body.outputCount(); ++i)
        outValues.push_back({out[i], std::move(outShapes[i])});
    }
    std::vector<PhaseValue> got;
    for (size_t j = 0; j < count; ++j) {
      int32_t k = where.empty() ? int32_t(j) : where[j];
      got.push_back(k >= 0 ? outValues[k]
                           : PhaseValue{in[-1 - k], shapes[-1 - k]});
    }
    // A carried value or slice in a buffer reused by the next steps (the
    // iteration passed through, the condition scanned) gets one of its own.
    for (size_t j = 1; j < count; ++j) {
      std::shared_ptr<hal::Buffer> &buffer = got[j].Buffer;
      if (buffer != iteration && buffer != conditions[0] &&
          buffer != conditions[1])
        continue;
      KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::Buffer> copy,
                            allocate(buffer->size()));
      hal::BufferCopy copying{buffer, copy, buffer->size(), 0, 0};
      KILN_RETURN_IF_ERROR(hal::copyAndWait(*Device, {&copying, 1}));
      buffer = std::move(copy);
    }
    if (got[0].Buffer != conditionBuffer)
      KILN_RETURN_IF_ERROR(
          hal::readBuffer(*Device, got[0].Buffer, 0, std::span(&condition, 1)));
    conditionBuffer = got[0].Buffer;
    for (uint32_t i = 0; i < carried; ++i)
      state[i] = got[1 + i];
    for (size_t k = 0; k < scans; ++k) {
      PhaseValue &slice = got[1 + carried + k];
      ElementType type = spec(1 + carried + k).Type;
      if (!slices[k].empty() && slices[k].front().Shape != slice.Shape)
        return KILN_ERROR(
            InvalidArgument, functionLabel(signature), ": scan output ", k,
            " is ", tensorTypeString(slice.Shape, type), " at step ", step,
            " but was ", tensorTypeString(slices[k].front().Shape, type),
            " before; the steps' slices must agree to stack");
      slices[k].push_back(std::move(slice));
    }
  }
  results.assign(state.begin(), state.begin() + carried);
  // Each scan output: its slices one after another, a new first
  // dimension of the steps taken (a slice's static shape after none).
  for (size_t k = 0; k < scans; ++k) {
    const TensorSpec &slice = spec(1 + carried + k);
    std::vector<int64_t> shape =
        slices[k].empty() ? slice.Shape : slices[k].front().Shape;
    for (int64_t &dim : shape)
      dim = std::max<int64_t>(dim, 0);
    KILN_ASSIGN_OR_RETURN(
        uint64_t sliceBytes,
        denseBytes(signature, "scan output", k, shape, slice.Type));
    shape.insert(shape.begin(), step);
    KILN_ASSIGN_OR_RETURN(uint64_t bytes, denseBytes(signature, "scan output",
                                                     k, shape, slice.Type));
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::Buffer> stacked,
                          allocate(bytes));
    std::vector<hal::BufferCopy> copies;
    for (size_t s = 0; s < slices[k].size(); ++s)
      copies.push_back(
          {slices[k][s].Buffer, stacked, sliceBytes, 0, s * sliceBytes});
    KILN_RETURN_IF_ERROR(hal::copyAndWait(*Device, copies));
    results.push_back({std::move(stacked), std::move(shape)});
  }
  return Status();
}

StatusOr<std::vector<HostTensor>>
ModuleInstance::callPhased(Function &function,
                           const std::vector<HostTensor> &inputs) {
  const FunctionSignature &signature = function.Signature;
  std::vector<PhaseValue> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const HostTensor &input = inputs[i];
    if (input.Type != signature.Inputs[i].Type)
      return KILN_ERROR(
          InvalidArgument, functionLabel(signature), " input ", i,
          ": expected ",
          tensorTypeString(signature.Inputs[i].Shape, signature.Inputs[i].Type),
          ", got ", input.typeString());
    KILN_RETURN_IF_ERROR(checkFits(signature, i, input.Shape));
    KILN_ASSIGN_OR_RETURN(uint64_t bytes, denseBytes(signature, "input", i,
                                                     input.Shape, input.Type));
    if (input.Data.size() != bytes)
      return KILN_ERROR(InvalidArgument, functionLabel(signature), " input ", i,
                        ": ", input.typeString(), " needs ", bytes,
                        " bytes of data, got ", input.Data.size());
    KILN_ASSIGN_OR_RETURN(std::shared_ptr<hal::Buffer> buffer,
                          Device->allocator().allocate(
                              std::max<uint64_t>(bytes, 1),
                              MemoryType::DeviceLocal,
                              BufferUsage::Transfer | BufferUsage::Dispatch));
    KILN_RETURN_IF_ERROR(hal::writeBuffer(*Device, buffer, 0, input.Data));
    values.push_back({std::move(buffer), input.Shape});
  }
  std::vector<PhaseValue> results;
  KILN_RETURN_IF_ERROR(runPhases(function, values, {}, nullptr, results));
  std::vector<HostTensor> outputs;
  for (size_t j = 0; j < results.size(); ++j) {
    HostTensor output;
    output.Type = signature.Outputs[j].Type;
    output.Shape = results[j].Shape;
    KILN_ASSIGN_OR_RETURN(
        uint64_t bytes,
        denseBytes(signature, "output", j, output.Shape, output.Type));
    output.Data.resize(bytes);
    KILN_RETURN_IF_ERROR(
        hal::readBuffer(*Device, results[j].Buffer, 0, output.Data));
    outputs.push_back(std::move(output));
  }
  return outputs;
}

Status ModuleInstance::callPhasedWithBuffers(
    Function &function, std::span<const std::shared_ptr<hal::Buffer>> inputs,
    std::span<const std::shared_ptr<hal::Buffer>> outputs,
    const std::shared_ptr<hal::SubmissionTimer> &timer,
    std::span<const std::vector<int64_t>> inputShapes,
    std::vector<std::vector<int64_t>> *outputShapes) {
  const FunctionSignature &signature = function.Signature;
  if (inputs.size() != signature.Inputs.size() ||
      outputs.size() != signature.Outputs.size())
    return KILN_ERROR(InvalidArgument, functionLabel(signature), " expects ",
                      signature.Inputs.size(), " input and ",
                      signature.Outputs.size(), " output buffer(s), got ",
                      inputs.size(), " and ", outputs.size());
  std::vector<std::vector<int64_t>> shapes(inputShapes.begin(),
                                           inputShapes.end());
  if (shapes.empty() && allStatic(signature.Inputs))
    for (const TensorSpec &input : signature.Inputs)
      shapes.push_back(input.Shape);
  if (shapes.size() != signature.Inputs.size())
    return KILN_ERROR(InvalidArgument, functionLabel(signature),
                      " has dynamic shapes: a call on device buffers needs "
                      "its ",
                      signature.Inputs.size(), " input shape(s), got ",
                      shapes.size());
  std::vector<PhaseValue> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    KILN_RETURN_IF_ERROR(checkFits(signature, i, shapes[i]));
    KILN_ASSIGN_OR_RETURN(
        uint64_t bytes,
        denseBytes(signature, "input", i, shapes[i], signature.Inputs[i].Type));
    if (!inputs[i] || inputs[i]->size() < bytes)
      return KILN_ERROR(
          InvalidArgument, functionLabel(signature), " input ", i, ": ",
          tensorTypeString(shapes[i], signature.Inputs[i].Type), " needs ",
          bytes, " bytes, the buffer has ", inputs[i] ? inputs[i]->size() : 0);
    values.push_back({inputs[i], shapes[i]});
  }
  KILN_RETURN_IF_ERROR(checkOutputBuffers(signature, inputs, outputs));
  std::vector<PhaseValue> results;
  KILN_RETURN_IF_ERROR(runPhases(function, values, outputs, timer, results));
  if (outputShapes) {
    outputShapes->clear();
    for (PhaseValue &result : results)
      outputShapes->push_back(std::move(result.Shape));
  }
  return Status();
}

} // namespace kiln::module
