//===- DispatchEquivalence.cpp - When two dispatches compute the same -----===//

#include "compiler/dispatch/DispatchEquivalence.h"
#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/PushConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/SmallBitVector.h"

namespace kiln {
#define GEN_PASS_DEF_DEDUPEDISPATCHES
#define GEN_PASS_DEF_HOISTDISPATCHSCALARS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {

bool isHoistableScalarConstant(Operation *op) {
  auto constant = dyn_cast_or_null<arith::ConstantOp>(op);
  return constant && isPushConstantType(constant.getType());
}

llvm::hash_code hashDispatch(func::FuncOp func, bool ignoreScalarValues) {
  llvm::hash_code hash =
      llvm::hash_value(func.getFunctionType().getAsOpaquePointer());
  func.getBody().walk([&](Operation *op) {
    hash = llvm::hash_combine(hash, op->getName().getAsOpaquePointer(),
                              op->getNumOperands(), op->getNumRegions());
    for (Type type : op->getResultTypes())
      hash = llvm::hash_combine(hash, type.getAsOpaquePointer());
    if (!(ignoreScalarValues && isHoistableScalarConstant(op)))
      hash = llvm::hash_combine(hash,
                                op->getAttrDictionary().getAsOpaquePointer());
  });
  return hash;
}

namespace {

// Compares two bodies op by op, mapping each value of `a` to the value of
// `b` in the same place.
class BodyMatcher {
public:
  explicit BodyMatcher(
      SmallVectorImpl<std::pair<Operation *, Operation *>> *scalarPairs)
      : ScalarPairs(scalarPairs) {}

  bool regions(Region &a, Region &b) {
    if (a.getBlocks().size() != b.getBlocks().size())
      return false;
    // Successors may name later blocks: map every block first.
    for (auto [blockA, blockB] : llvm::zip_equal(a, b)) {
      if (blockA.getNumArguments() != blockB.getNumArguments())
        return false;
      Blocks[&blockA] = &blockB;
      for (auto [argA, argB] :
           llvm::zip_equal(blockA.getArguments(), blockB.getArguments())) {
        if (argA.getType() != argB.getType())
          return false;
        Values[argA] = argB;
      }
    }
    for (auto [blockA, blockB] : llvm::zip_equal(a, b)) {
      if (blockA.getOperations().size() != blockB.getOperations().size())
        return false;
      for (auto [opA, opB] : llvm::zip_equal(blockA, blockB))
        if (!ops(opA, opB))
          return false;
    }
    return true;
  }

private:
  bool ops(Operation &a, Operation &b) {
    if (a.getName() != b.getName() ||
        a.getNumOperands() != b.getNumOperands() ||
        a.getNumResults() != b.getNumResults() ||
        a.getNumRegions() != b.getNumRegions() ||
        a.getNumSuccessors() != b.getNumSuccessors() ||
        a.getResultTypes() != b.getResultTypes())
      return false;
    if (ScalarPairs && isHoistableScalarConstant(&a)) {
      // Same name and result type, so `b` is a hoistable constant too.
      ScalarPairs->emplace_back(&a, &b);
    } else if (a.getAttrDictionary() != b.getAttrDictionary()) {
      return false;
    }
    // Operands are defined before their uses (the bodies are SSA CFG
    // regions), so an unmapped one is a difference, not a forward use.
    for (auto [operandA, operandB] :
         llvm::zip_equal(a.getOperands(), b.getOperands()))
      if (Values.lookup(operandA) != operandB)
        return false;
    for (auto [successorA, successorB] :
         llvm::zip_equal(a.getSuccessors(), b.getSuccessors()))
      if (Blocks.lookup(successorA) != successorB)
        return false;
    for (auto [resultA, resultB] :
         llvm::zip_equal(a.getResults(), b.getResults()))
      Values[resultA] = resultB;
    for (auto [regionA, regionB] :
         llvm::zip_equal(a.getRegions(), b.getRegions()))
      if (!regions(regionA, regionB))
        return false;
    return true;
  }

  SmallVectorImpl<std::pair<Operation *, Operation *>> *ScalarPairs;
  llvm::DenseMap<Value, Value> Values;
  llvm::DenseMap<Block *, Block *> Blocks;
};

// The calls of each dispatch, found in one walk of the module (looking up
// each function's uses would walk it once per dispatch).
using CallMap = llvm::DenseMap<StringAttr, SmallVector<func::CallOp>>;

CallMap callsByCallee(ModuleOp module) {
  CallMap calls;
  module.walk([&](func::CallOp call) {
    calls[call.getCalleeAttr().getAttr()].push_back(call);
  });
  return calls;
}

SmallVector<func::FuncOp> dispatchesOf(ModuleOp module) {
  SmallVector<func::FuncOp> dispatches;
  for (auto func : module.getOps<func::FuncOp>())
    if (isDispatchFunc(func))
      dispatches.push_back(func);
  return dispatches;
}

// Dispatches that are equivalent (up to scalar values with
// `ignoreScalarValues`), the first of each class first, in module order.
struct DispatchClass {
  func::FuncOp Leader;
  // For each other member, the hoistable constant pairs (leader's, its).
  SmallVector<
      std::pair<func::FuncOp, SmallVector<std::pair<Operation *, Operation *>>>>
      Members;
};

SmallVector<DispatchClass> classify(ModuleOp module, bool ignoreScalarValues) {
  SmallVector<DispatchClass> classes;
  llvm::DenseMap<llvm::hash_code, SmallVector<unsigned>> buckets;
  for (func::FuncOp func : dispatchesOf(module)) {
    SmallVector<unsigned> &bucket =
        buckets[hashDispatch(func, ignoreScalarValues)];
    bool placed = false;
    for (unsigned index : bucket) {
      SmallVector<std::pair<Operation *, Operation *>> pairs;
      if (areDispatchesEquivalent(classes[index].Leader, func,
                                  ignoreScalarValues ? &pairs : nullptr)) {
        classes[index].Members.emplace_back(func, std::move(pairs));
        placed = true;
        break;
      }
    }
    if (!placed) {
      bucket.push_back(classes.size());
      classes.push_back(DispatchClass{func, {}});
    }
  }
  return classes;
}

// Replaces every call of `from` by a call of `to` with `extra` constants
// after its own operands; the new calls are recorded as calls of `to`.
void redirectCalls(func::FuncOp from, func::FuncOp to, CallMap &calls,
                   ArrayRef<Attribute> extra) {
  SmallVector<func::CallOp> old = std::move(calls[from.getSymNameAttr()]);
  calls.erase(from.getSymNameAttr());
  SmallVector<func::CallOp> &target = calls[to.getSymNameAttr()];
  for (func::CallOp call : old) {
    OpBuilder builder(call);
    SmallVector<Value> operands(call.getOperands());
    for (Attribute value : extra)
      operands.push_back(arith::ConstantOp::create(builder, call.getLoc(),
                                                   cast<TypedAttr>(value)));
    auto replacement =
        func::CallOp::create(builder, call.getLoc(), to, operands);
    call.replaceAllUsesWith(replacement.getResults());
    call.erase();
    target.push_back(replacement);
  }
}

} // namespace

bool areDispatchesEquivalent(
    func::FuncOp a, func::FuncOp b,
    SmallVectorImpl<std::pair<Operation *, Operation *>> *scalarPairs) {
  if (a.getFunctionType() != b.getFunctionType() ||
      a->getDiscardableAttrDictionary() != b->getDiscardableAttrDictionary() ||
      a.getArgAttrsAttr() != b.getArgAttrsAttr() ||
      a.getResAttrsAttr() != b.getResAttrsAttr())
    return false;
  size_t before = scalarPairs ? scalarPairs->size() : 0;
  BodyMatcher matcher(scalarPairs);
  if (matcher.regions(a.getBody(), b.getBody()))
    return true;
  if (scalarPairs)
    scalarPairs->truncate(before);
  return false;
}

unsigned dedupeDispatches(ModuleOp module) {
  unsigned erased = 0;
  CallMap calls = callsByCallee(module);
  for (DispatchClass &cls : classify(module, /*ignoreScalarValues=*/false))
    for (auto &[member, pairs] : cls.Members) {
      redirectCalls(member, cls.Leader, calls, {});
      member.erase();
      ++erased;
    }
  return erased;
}

unsigned mergeDispatchesDifferingInScalars(ModuleOp module) {
  unsigned erased = 0;
  CallMap calls = callsByCallee(module);
  for (DispatchClass &cls : classify(module, /*ignoreScalarValues=*/true)) {
    if (cls.Members.empty())
      continue;
    // The leader's constants in walk order (every member's pairs list them
    // in that order), and which of them some member gives another value.
    SmallVector<Operation *> scalars;
    for (auto &pair : cls.Members.front().second)
      scalars.push_back(pair.first);
    llvm::SmallBitVector hoisted(scalars.size());
    for (auto &[member, pairs] : cls.Members)
      for (auto [index, pair] : llvm::enumerate(pairs))
        if (cast<arith::ConstantOp>(pair.first).getValue() !=
            cast<arith::ConstantOp>(pair.second).getValue())
          hoisted.set(index);
    unsigned words = 0;
    for (unsigned index : hoisted.set_bits())
      words += pushConstantWordCount(scalars[index]->getResult(0).getType());
    if (words > kMaxPushConstantWords)
      continue;

    // Each member's values of the hoisted constants, then the leader's own
    // as its calls' arguments, before the leader's constants are replaced.
    auto valuesOf = [&](auto &pairs, bool second) {
      SmallVector<Attribute> values;
      for (unsigned index : hoisted.set_bits())
        values.push_back(cast<arith::ConstantOp>(second ? pairs[index].second
                                                        : pairs[index].first)
                             .getValue());
      return values;
    };
    SmallVector<SmallVector<Attribute>> memberValues;
    for (auto &[member, pairs] : cls.Members)
      memberValues.push_back(valuesOf(pairs, /*second=*/true));
    SmallVector<Attribute> leaderValues =
        valuesOf(cls.Members.front().second, /*second=*/false);

    func::FuncOp leader = cls.Leader;
    Block &entry = leader.getBody().front();
    for (unsigned index : hoisted.set_bits()) {
      Operation *constant = scalars[index];
      BlockArgument arg = entry.addArgument(constant->getResult(0).getType(),
                                            constant->getLoc());
      constant->getResult(0).replaceAllUsesWith(arg);
      constant->erase();
    }
    // The leader's own calls pass its values.
    leader.setType(FunctionType::get(leader.getContext(),
                                     entry.getArgumentTypes(),
                                     leader.getResultTypes()));
    if (hoisted.any())
      redirectCalls(leader, leader, calls, leaderValues);
    for (auto [member, values] : llvm::zip_equal(cls.Members, memberValues)) {
      redirectCalls(member.first, leader, calls, values);
      member.first.erase();
      ++erased;
    }
  }
  return erased;
}

namespace {

struct DedupeDispatchesPass : impl::DedupeDispatchesBase<DedupeDispatchesPass> {
  void runOnOperation() override { dedupeDispatches(getOperation()); }
};

struct HoistDispatchScalarsPass
    : impl::HoistDispatchScalarsBase<HoistDispatchScalarsPass> {
  void runOnOperation() override {
    mergeDispatchesDifferingInScalars(getOperation());
  }
};

} // namespace
} // namespace kiln
