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

namespace kiln {
#define GEN_PASS_DEF_SPLITPHASES
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
  func::FuncOp Func;
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
  // The first phase in which `op` can run.
  unsigned levelOf(Value value) const {
    Operation *def = value.getDefiningOp();
    return def ? Levels.lookup(def) : 0;
  }
  // `value` (of the original function) in phase `p`, bringing it in as an
  // input or computing it again there as needed.
  Value lookup(unsigned p, Value value);
  unsigned exportFrom(unsigned p, Value value);

  func::FuncOp Func;
  DenseMap<Operation *, unsigned> Levels;
  std::vector<Phase> Phases;
};

unsigned Splitter::exportFrom(unsigned p, Value value) {
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
  unsigned from = Levels.lookup(def);
  assert(from < p && "a value of this phase is mapped before its uses");
  return addInput({static_cast<int64_t>(from), exportFrom(from, value)});
}

FailureOr<std::optional<PhaseChain>> Splitter::run() {
  Block &block = Func.getBody().front();
  unsigned last = 0;
  bool reads = false;
  for (Operation &op : block.without_terminator()) {
    unsigned level = 0;
    for (Value operand : op.getOperands())
      level = std::max(level, levelOf(operand));
    visitUsedValuesDefinedAbove(op.getRegions(), [&](OpOperand *use) {
      level = std::max(level, levelOf(use->get()));
    });
    if (isComputedRead(&op)) {
      level = levelOf(cast<tensor::ExtractOp>(op).getTensor()) + 1;
      reads = true;
    }
    Levels[&op] = level;
    last = std::max(last, level);
  }
  if (!reads)
    return std::optional<PhaseChain>();

  // The phases, placed where the function was.
  OpBuilder b(Func);
  for (unsigned p = 0; p <= last; ++p) {
    auto func = func::FuncOp::create(
        b, Func.getLoc(), (Func.getSymName() + "_phase" + Twine(p)).str(),
        b.getFunctionType({}, {}));
    func.addEntryBlock();
    func->setAttr(kPhaseOfAttrName, Func.getSymNameAttr());
    Phases.push_back({func, {}, {}, {}});
  }
  for (Operation &op : block.without_terminator()) {
    if (isRecomputed(&op))
      continue;
    unsigned p = Levels.lookup(&op);
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
  auto returnOp = cast<func::ReturnOp>(block.getTerminator());
  // Result attributes (an unsigned output) go with the phase's output.
  DenseMap<std::pair<unsigned, unsigned>, DictionaryAttr> resultAttrs;
  for (auto [i, result] : llvm::enumerate(returnOp.getOperands())) {
    if (auto arg = dyn_cast<BlockArgument>(result))
      return returnOp.emitError()
             << "returns its input " << arg.getArgNumber()
             << " unchanged, which a function split into phases (it reads "
                "values it computes on the host) does not do yet";
    Operation *def = result.getDefiningOp();
    unsigned p = isRecomputed(def) ? last : Levels.lookup(def);
    (void)lookup(p, result);
    unsigned index = exportFrom(p, result);
    chain.Outputs.push_back({p, index});
    if (DictionaryAttr attrs = Func.getResultAttrDict(i))
      resultAttrs[{p, index}] = attrs;
  }

  for (auto [p, phase] : llvm::enumerate(Phases)) {
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
    chain.Phases.push_back(phase.Func.getSymName().str());
    chain.PhaseInputs.push_back(phase.Inputs);
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
  SmallVector<Attribute> phases;
  for (auto [name, inputs] : llvm::zip_equal(chain.Phases, chain.PhaseInputs))
    phases.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("function", b.getStringAttr(name)),
         b.getNamedAttr("inputs", sourcesAttr(b, inputs))}));
  fields.push_back(b.getNamedAttr("phases", b.getArrayAttr(phases)));
  fields.push_back(b.getNamedAttr("outputs", sourcesAttr(b, chain.Outputs)));
  return b.getDictionaryAttr(fields);
}

struct SplitPhasesPass : impl::SplitPhasesBase<SplitPhasesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func.isPrivate() && !isDispatchFunc(func))
        funcs.push_back(func);
    Builder b(&getContext());
    SmallVector<Attribute> chains;
    if (auto existing = module->getAttrOfType<ArrayAttr>(kPhaseChainsAttrName))
      llvm::append_range(chains, existing);
    for (func::FuncOp func : funcs) {
      FailureOr<std::optional<PhaseChain>> chain = splitIntoPhases(func);
      if (failed(chain))
        return signalPassFailure();
      if (*chain)
        chains.push_back(chainAttr(b, **chain));
    }
    if (!chains.empty())
      module->setAttr(kPhaseChainsAttrName, b.getArrayAttr(chains));
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

} // namespace kiln
