//===- Phases.cpp - Functions split where the host reads computed values --===//

#include "compiler/host/Phases.h"
#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/ShapeScalars.h"
#include "compiler/host/HostPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringSet.h"

namespace kiln {
#define GEN_PASS_DEF_SPLITPHASES
#define GEN_PASS_DEF_DEDUPEPHASEOUTPUTS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {

namespace {

// A host read of an element the function computes: the host knows it only
// once the steps computing it have run.
bool isComputedRead(Operation *op) {
  auto extract = dyn_cast<tensor::ExtractOp>(op);
  return extract && !isa<BlockArgument>(extract.getTensor()) &&
         isHostRead(extract);
}

// Computed again in each phase that uses it rather than passed between
// phases: constants, destinations (a tensor.empty holds no values), and
// host scalars (no tensor result, no region).
bool isRecomputed(Operation *op) {
  if (op->getNumRegions() != 0 || op->getNumResults() == 0)
    return false;
  if (isa<arith::ConstantOp, tensor::EmptyOp>(op))
    return true;
  if (llvm::any_of(op->getResultTypes(),
                   [](Type t) { return isa<ShapedType>(t); }))
    return false;
  return isMemoryEffectFree(op) || isa<tensor::ExtractOp, tensor::DimOp>(op);
}

struct Phase {
  func::FuncOp Func;         // null for a loop phase
  Operation *Loop = nullptr; // the loop call a loop phase runs
  unsigned Level = 0;
  IRMapping Map;
  std::vector<PhaseSource> Inputs;
  // Values of the original function this phase returns, in order.
  SmallVector<Value> Exports;
};

class Splitter {
public:
  explicit Splitter(func::FuncOp func) : Func(func) {}

  FailureOr<std::optional<PhaseChain>> run();

private:
  // The level from which `value` is known: a loop's results only after its
  // level's loop phases, which follow that level's ordinary phase.
  unsigned levelOf(Value value) const {
    Operation *def = value.getDefiningOp();
    if (!def)
      return 0;
    return Levels.lookup(def) + (LoopPhase.count(def) ? 1 : 0);
  }
  // The phase computing `def`'s results (not a recomputed op).
  unsigned phaseOf(Operation *def) const {
    auto loop = LoopPhase.find(def);
    return loop != LoopPhase.end() ? loop->second
                                   : NormalPhase.lookup(Levels.lookup(def));
  }
  // `value` (of the original function) in ordinary phase `p`, bringing it
  // in as an input or computing it again there as needed.
  Value lookup(unsigned p, Value value);
  // Where loop phase `p` takes `value` from.
  PhaseSource sourceFor(unsigned p, Value value);
  unsigned exportFrom(unsigned p, Value value);
  // Drops ordinary phases left empty and renumbers the rest and every
  // source naming them.
  void compact(PhaseChain &chain);

  func::FuncOp Func;
  DenseMap<Operation *, unsigned> Levels;
  DenseMap<unsigned, unsigned> NormalPhase;  // level -> its ordinary phase
  DenseMap<Operation *, unsigned> LoopPhase; // loop call -> its phase
  std::vector<Phase> Phases;
};

unsigned Splitter::exportFrom(unsigned p, Value value) {
  // A loop phase's outputs are its call's results.
  if (Phases[p].Loop)
    return cast<OpResult>(value).getResultNumber();
  SmallVector<Value> &exports = Phases[p].Exports;
  auto it = llvm::find(exports, value);
  if (it != exports.end())
    return it - exports.begin();
  exports.push_back(value);
  return exports.size() - 1;
}

Value Splitter::lookup(unsigned p, Value value) {
  Phase &phase = Phases[p];
  if (Value mapped = phase.Map.lookupOrNull(value))
    return mapped;
  Block &body = phase.Func.getBody().front();
  auto addInput = [&](PhaseSource source) {
    Value arg = body.addArgument(value.getType(), value.getLoc());
    phase.Inputs.push_back(source);
    phase.Map.map(value, arg);
    return arg;
  };
  if (auto arg = dyn_cast<BlockArgument>(value))
    return addInput({PhaseSource::kFunctionInput, arg.getArgNumber()});
  Operation *def = value.getDefiningOp();
  if (isRecomputed(def)) {
    for (Value operand : def->getOperands())
      (void)lookup(p, operand);
    OpBuilder b = OpBuilder::atBlockEnd(&body);
    b.clone(*def, phase.Map);
    return phase.Map.lookup(value);
  }
  unsigned from = phaseOf(def);
  assert(from < p && "a value of this phase is mapped before its uses");
  return addInput({static_cast<int64_t>(from), exportFrom(from, value)});
}

PhaseSource Splitter::sourceFor(unsigned p, Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return {PhaseSource::kFunctionInput, arg.getArgNumber()};
  Operation *def = value.getDefiningOp();
  unsigned from;
  if (isRecomputed(def)) {
    // A constant the loop takes comes from the first ordinary phase that
    // knows all it is computed from, which runs before the loop.
    from = NormalPhase.lookup(Levels.lookup(def));
    (void)lookup(from, value);
  } else {
    from = phaseOf(def);
  }
  assert(from < p && "a loop's operands are computed before it");
  return {static_cast<int64_t>(from), exportFrom(from, value)};
}

void Splitter::compact(PhaseChain &chain) {
  std::vector<int64_t> renumbered(Phases.size(), -1);
  std::vector<Phase> kept;
  for (auto [p, phase] : llvm::enumerate(Phases)) {
    bool empty = !phase.Loop && phase.Inputs.empty() && phase.Exports.empty() &&
                 phase.Func.getBody().front().without_terminator().empty();
    if (empty) {
      phase.Func.erase();
      continue;
    }
    renumbered[p] = kept.size();
    kept.push_back(std::move(phase));
  }
  auto renumber = [&](std::vector<PhaseSource> &sources) {
    for (PhaseSource &s : sources)
      if (s.Phase != PhaseSource::kFunctionInput)
        s.Phase = renumbered[s.Phase];
  };
  Phases = std::move(kept);
  for (Phase &phase : Phases)
    renumber(phase.Inputs);
  renumber(chain.Outputs);
}

FailureOr<std::optional<PhaseChain>> Splitter::run() {
  Block &block = Func.getBody().front();
  unsigned last = 0;
  bool split = false;
  SmallVector<Operation *> loops;
  for (Operation &op : block.without_terminator()) {
    unsigned level = 0;
    for (Value operand : op.getOperands())
      level = std::max(level, levelOf(operand));
    visitUsedValuesDefinedAbove(op.getRegions(), [&](OpOperand *use) {
      level = std::max(level, levelOf(use->get()));
    });
    if (isComputedRead(&op)) {
      level = levelOf(cast<tensor::ExtractOp>(op).getTensor()) + 1;
      split = true;
    }
    Levels[&op] = level;
    if (std::optional<LoopCall> loop = loopCallOf(&op)) {
      // A body repeating a loop of itself would never end its nesting.
      if (loop->Body == Func)
        return op.emitError() << "runs a loop whose body is the function "
                                 "itself, "
                              << Func.getSymName(),
               failure();
      // Marked now so that its users' levels follow its phase.
      LoopPhase[&op] = 0;
      loops.push_back(&op);
      split = true;
    }
    last = std::max(last, level);
  }
  if (!split)
    return std::optional<PhaseChain>();

  // Per level, its ordinary phase, then its loops, placed where the
  // function was; ordinary phases are named once empty ones are dropped.
  OpBuilder b(Func);
  for (unsigned level = 0; level <= last; ++level) {
    auto func = func::FuncOp::create(
        b, Func.getLoc(), (Func.getSymName() + "_level" + Twine(level)).str(),
        b.getFunctionType({}, {}));
    func.addEntryBlock();
    func->setAttr(kPhaseOfAttrName, Func.getSymNameAttr());
    NormalPhase[level] = Phases.size();
    Phases.push_back({func, nullptr, level, {}, {}, {}});
    for (Operation *loop : loops)
      if (Levels.lookup(loop) == level) {
        LoopPhase[loop] = Phases.size();
        Phases.push_back({nullptr, loop, level, {}, {}, {}});
      }
  }
  for (Operation &op : block.without_terminator()) {
    if (isRecomputed(&op))
      continue;
    if (auto loop = LoopPhase.find(&op); loop != LoopPhase.end()) {
      for (Value operand : op.getOperands())
        Phases[loop->second].Inputs.push_back(sourceFor(loop->second, operand));
      continue;
    }
    unsigned p = NormalPhase.lookup(Levels.lookup(&op));
    for (Value operand : op.getOperands())
      (void)lookup(p, operand);
    visitUsedValuesDefinedAbove(
        op.getRegions(), [&](OpOperand *use) { (void)lookup(p, use->get()); });
    OpBuilder::atBlockEnd(&Phases[p].Func.getBody().front())
        .clone(op, Phases[p].Map);
  }

  PhaseChain chain;
  chain.Name = Func.getSymName().str();
  chain.Type = Func.getFunctionType();
  chain.ArgAttrs = Func.getAllArgAttrs();
  chain.ResAttrs = Func.getAllResultAttrs();
  if (auto general = Func->getAttrOfType<StringAttr>(kSpecializationOfAttrName))
    chain.SpecializationOf = general.str();
  // A loop's body that reads values it computes, or runs a loop itself,
  // becomes a phased function repeated by its owner's loop phase.
  if (auto owner = Func->getAttrOfType<StringAttr>(kPhaseOfAttrName))
    chain.PhaseOf = owner.str();
  auto returnOp = cast<func::ReturnOp>(block.getTerminator());
  // Result attributes (an unsigned output) go with the phase's output.
  DenseMap<std::pair<unsigned, unsigned>, DictionaryAttr> resultAttrs;
  for (auto [i, result] : llvm::enumerate(returnOp.getOperands())) {
    if (auto arg = dyn_cast<BlockArgument>(result))
      return returnOp.emitError()
             << "returns its input " << arg.getArgNumber()
             << " unchanged, which a function split into phases (it reads "
                "values it computes on the host or runs a loop per call) "
                "does not do yet";
    Operation *def = result.getDefiningOp();
    unsigned p = isRecomputed(def) ? NormalPhase.lookup(last) : phaseOf(def);
    if (!Phases[p].Loop)
      (void)lookup(p, result);
    unsigned index = exportFrom(p, result);
    chain.Outputs.push_back({p, index});
    if (DictionaryAttr attrs = Func.getResultAttrDict(i))
      resultAttrs[{p, index}] = attrs;
  }

  for (auto [p, phase] : llvm::enumerate(Phases)) {
    if (phase.Loop)
      continue;
    Block &body = phase.Func.getBody().front();
    SmallVector<Value> results;
    for (Value value : phase.Exports)
      results.push_back(phase.Map.lookup(value));
    OpBuilder atEnd = OpBuilder::atBlockEnd(&body);
    func::ReturnOp::create(atEnd, returnOp.getLoc(), results);
    phase.Func.setFunctionType(b.getFunctionType(
        body.getArgumentTypes(), ValueRange(results).getTypes()));
    for (auto [i, source] : llvm::enumerate(phase.Inputs))
      if (source.Phase == PhaseSource::kFunctionInput)
        if (DictionaryAttr attrs = Func.getArgAttrDict(source.Index))
          phase.Func.setArgAttrs(i, attrs);
    for (unsigned r = 0; r < results.size(); ++r)
      if (DictionaryAttr attrs = resultAttrs.lookup({p, r}))
        phase.Func.setResultAttrs(r, attrs);
  }
  compact(chain);

  for (auto [p, phase] : llvm::enumerate(Phases))
    if (!phase.Loop)
      phase.Func.setSymName((Func.getSymName() + "_phase" + Twine(p)).str());
  SymbolTable symbols(Func->getParentOfType<ModuleOp>());
  for (auto [p, phase] : llvm::enumerate(Phases)) {
    int64_t carried = -1;
    std::vector<int64_t> loopOutputs;
    func::FuncOp function = phase.Func;
    if (phase.Loop) {
      std::optional<LoopCall> loop = loopCallOf(phase.Loop);
      carried = loop->Carried;
      loopOutputs = loop->Outputs;
      function = loop->Body;
      // A body another function's loop runs already (a specialization's
      // copy of the call) is copied: a phase belongs to one function.
      auto owner = function->getAttrOfType<StringAttr>(kPhaseOfAttrName);
      if (owner && owner != Func.getSymNameAttr()) {
        function = function.clone();
        symbols.insert(function, Block::iterator(Func));
      }
      function->setAttr(kPhaseOfAttrName, Func.getSymNameAttr());
    }
    chain.Phases.push_back(function.getSymName().str());
    chain.PhaseInputs.push_back(phase.Inputs);
    chain.LoopCarried.push_back(carried);
    chain.LoopOutputs.push_back(std::move(loopOutputs));
  }
  Func.erase();
  return std::optional<PhaseChain>(std::move(chain));
}

DenseI64ArrayAttr sourcesAttr(Builder &b, ArrayRef<PhaseSource> sources) {
  SmallVector<int64_t> flat;
  for (const PhaseSource &s : sources)
    flat.append({s.Phase, s.Index});
  return b.getDenseI64ArrayAttr(flat);
}

FailureOr<std::vector<PhaseSource>> sourcesOf(Location loc, Attribute attr) {
  auto flat = dyn_cast_or_null<DenseI64ArrayAttr>(attr);
  if (!flat || flat.size() % 2 != 0)
    return emitError(loc) << kPhaseChainsAttrName
                          << ": sources must be an array of (phase, index) "
                             "pairs";
  std::vector<PhaseSource> sources;
  for (int64_t i = 0; i < flat.size(); i += 2)
    sources.push_back({flat[i], flat[i + 1]});
  return sources;
}

DictionaryAttr chainAttr(Builder &b, const PhaseChain &chain) {
  SmallVector<NamedAttribute> fields;
  fields.push_back(b.getNamedAttr("name", b.getStringAttr(chain.Name)));
  fields.push_back(b.getNamedAttr("function_type", TypeAttr::get(chain.Type)));
  if (chain.ArgAttrs)
    fields.push_back(b.getNamedAttr("arg_attrs", chain.ArgAttrs));
  if (chain.ResAttrs)
    fields.push_back(b.getNamedAttr("res_attrs", chain.ResAttrs));
  if (!chain.SpecializationOf.empty())
    fields.push_back(b.getNamedAttr("specialization_of",
                                    b.getStringAttr(chain.SpecializationOf)));
  if (!chain.PhaseOf.empty())
    fields.push_back(
        b.getNamedAttr("phase_of", b.getStringAttr(chain.PhaseOf)));
  SmallVector<Attribute> phases;
  for (auto [name, inputs, carried, loopOutputs] :
       llvm::zip_equal(chain.Phases, chain.PhaseInputs, chain.LoopCarried,
                       chain.LoopOutputs)) {
    SmallVector<NamedAttribute> phase = {
        b.getNamedAttr("function", b.getStringAttr(name)),
        b.getNamedAttr("inputs", sourcesAttr(b, inputs))};
    if (carried >= 0)
      phase.push_back(
          b.getNamedAttr("loop_carried", b.getI64IntegerAttr(carried)));
    if (!loopOutputs.empty())
      phase.push_back(
          b.getNamedAttr("loop_outputs", b.getDenseI64ArrayAttr(loopOutputs)));
    phases.push_back(b.getDictionaryAttr(phase));
  }
  fields.push_back(b.getNamedAttr("phases", b.getArrayAttr(phases)));
  fields.push_back(b.getNamedAttr("outputs", sourcesAttr(b, chain.Outputs)));
  return b.getDictionaryAttr(fields);
}

struct SplitPhasesPass : impl::SplitPhasesBase<SplitPhasesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder b(&getContext());
    SmallVector<Attribute> chains;
    if (auto existing = module->getAttrOfType<ArrayAttr>(kPhaseChainsAttrName))
      llvm::append_range(chains, existing);
    // Until every function is seen: splitting one may copy a loop's body
    // for it (a specialization's), which is split in turn when it reads
    // values it computes; the phases made read none, so they stay.
    llvm::StringSet<> seen;
    for (bool more = true; more;) {
      more = false;
      SmallVector<func::FuncOp> funcs;
      for (auto func : module.getOps<func::FuncOp>())
        if (!func.isExternal() && !func.isPrivate() && !isDispatchFunc(func) &&
            seen.insert(func.getSymName()).second)
          funcs.push_back(func);
      for (func::FuncOp func : funcs) {
        more = true;
        FailureOr<std::optional<PhaseChain>> chain = splitIntoPhases(func);
        if (failed(chain))
          return signalPassFailure();
        if (*chain)
          chains.push_back(chainAttr(b, **chain));
      }
    }
    if (!chains.empty())
      module->setAttr(kPhaseChainsAttrName, b.getArrayAttr(chains));
    // The loops' declarations stood for the loop phases now made.
    for (auto decl : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
      if (decl.isExternal() && decl->hasAttr(kLoopBodyAttrName))
        decl.erase();
  }
};

struct DedupePhaseOutputsPass
    : impl::DedupePhaseOutputsBase<DedupePhaseOutputsPass> {
  void runOnOperation() override {
    if (failed(dedupePhaseOutputs(getOperation())))
      signalPassFailure();
  }
};

} // namespace

FailureOr<std::optional<PhaseChain>> splitIntoPhases(func::FuncOp func) {
  return Splitter(func).run();
}

FailureOr<std::vector<PhaseChain>> phaseChainsOf(ModuleOp module) {
  std::vector<PhaseChain> chains;
  Attribute attr = module->getAttr(kPhaseChainsAttrName);
  if (!attr)
    return chains;
  Location loc = module.getLoc();
  auto list = dyn_cast<ArrayAttr>(attr);
  if (!list)
    return emitError(loc) << kPhaseChainsAttrName << " must be an array";
  for (Attribute entry : list) {
    auto dict = dyn_cast<DictionaryAttr>(entry);
    auto name = dict ? dict.getAs<StringAttr>("name") : StringAttr();
    auto type = dict ? dict.getAs<TypeAttr>("function_type") : TypeAttr();
    auto phases = dict ? dict.getAs<ArrayAttr>("phases") : ArrayAttr();
    if (!name || !type || !isa<FunctionType>(type.getValue()) || !phases)
      return emitError(loc) << kPhaseChainsAttrName
                            << ": each entry needs a name, a function_type "
                               "and phases";
    PhaseChain chain;
    chain.Name = name.str();
    chain.Type = cast<FunctionType>(type.getValue());
    chain.ArgAttrs = dict.getAs<ArrayAttr>("arg_attrs");
    chain.ResAttrs = dict.getAs<ArrayAttr>("res_attrs");
    if (auto general = dict.getAs<StringAttr>("specialization_of"))
      chain.SpecializationOf = general.str();
    if (auto owner = dict.getAs<StringAttr>("phase_of"))
      chain.PhaseOf = owner.str();
    for (Attribute phaseAttr : phases) {
      auto phase = dyn_cast<DictionaryAttr>(phaseAttr);
      auto function =
          phase ? phase.getAs<StringAttr>("function") : StringAttr();
      if (!function)
        return emitError(loc)
               << kPhaseChainsAttrName << ": each phase needs a function";
      FailureOr<std::vector<PhaseSource>> inputs =
          sourcesOf(loc, phase.get("inputs"));
      if (failed(inputs))
        return failure();
      chain.Phases.push_back(function.str());
      chain.PhaseInputs.push_back(std::move(*inputs));
      auto carried = phase.getAs<IntegerAttr>("loop_carried");
      chain.LoopCarried.push_back(carried ? carried.getInt() : -1);
      std::vector<int64_t> loopOutputs;
      if (auto list = phase.getAs<DenseI64ArrayAttr>("loop_outputs"))
        loopOutputs.assign(list.asArrayRef().begin(), list.asArrayRef().end());
      chain.LoopOutputs.push_back(std::move(loopOutputs));
    }
    FailureOr<std::vector<PhaseSource>> outputs =
        sourcesOf(loc, dict.get("outputs"));
    if (failed(outputs))
      return failure();
    chain.Outputs = std::move(*outputs);
    chains.push_back(std::move(chain));
  }
  return chains;
}

LogicalResult dedupePhaseOutputs(ModuleOp module) {
  FailureOr<std::vector<PhaseChain>> chains = phaseChainsOf(module);
  if (failed(chains))
    return failure();
  bool changed = false;
  for (PhaseChain &chain : *chains) {
    for (size_t p = 0; p < chain.Phases.size(); ++p) {
      auto func = module.lookupSymbol<func::FuncOp>(chain.Phases[p]);
      // A loop's body in phases of its own: its chain has its functions.
      if (!func && llvm::any_of(*chains, [&](const PhaseChain &other) {
            return other.Name == chain.Phases[p];
          }))
        continue;
      if (!func || func.isExternal())
        return module.emitError() << kPhaseChainsAttrName << ": phase '"
                                  << chain.Phases[p] << "' is no function";
      auto ret = cast<func::ReturnOp>(func.getBody().back().getTerminator());
      // first[i]: the first result returning what result i does.
      SmallVector<int64_t> first, kept;
      SmallVector<Value> operands;
      for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
        auto at = llvm::find(operands, value);
        if (at == operands.end()) {
          first.push_back(operands.size());
          operands.push_back(value);
          kept.push_back(i);
        } else {
          first.push_back(at - operands.begin());
        }
      }
      if (operands.size() == ret.getNumOperands())
        continue;
      changed = true;
      ret->setOperands(operands);
      SmallVector<Type> types;
      SmallVector<DictionaryAttr> resAttrs;
      for (int64_t i : kept) {
        types.push_back(func.getResultTypes()[i]);
        resAttrs.push_back(func.getResultAttrDict(i));
      }
      func.setFunctionType(FunctionType::get(module.getContext(),
                                             func.getArgumentTypes(), types));
      func.setAllResultAttrs(resAttrs);
      if (chain.LoopCarried[p] >= 0) {
        // A loop's body: its values are found through loop_outputs.
        std::vector<int64_t> &where = chain.LoopOutputs[p];
        if (where.empty())
          for (size_t i = 0; i < first.size(); ++i)
            where.push_back(static_cast<int64_t>(i));
        for (int64_t &k : where)
          if (k >= 0)
            k = first[k];
        continue;
      }
      // An ordinary phase's outputs, read by later phases and the function.
      auto remap = [&](PhaseSource &source) {
        if (source.Phase == static_cast<int64_t>(p))
          source.Index = first[source.Index];
      };
      for (std::vector<PhaseSource> &inputs : chain.PhaseInputs)
        llvm::for_each(inputs, remap);
      llvm::for_each(chain.Outputs, remap);
    }
  }
  if (changed) {
    Builder b(module.getContext());
    SmallVector<Attribute> attrs;
    for (const PhaseChain &chain : *chains)
      attrs.push_back(chainAttr(b, chain));
    module->setAttr(kPhaseChainsAttrName, b.getArrayAttr(attrs));
  }
  return success();
}

} // namespace kiln
