//===- HostPlan.cpp - Buffer planning for host functions ------------------===//

#include "compiler/host/HostPlan.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/PushConstants.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/BitVector.h"

using namespace mlir;

namespace kiln {

uint64_t tensorByteSize(RankedTensorType type) {
  return static_cast<uint64_t>(type.getNumElements()) *
         elementByteSize(type.getElementType());
}

namespace {

// Element bytes as the runtime stores them, little-endian.
std::vector<uint8_t> denseElementBytes(DenseElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  uint64_t count = type.getNumElements();
  uint64_t elementBytes = tensorByteSize(type) / std::max<uint64_t>(count, 1);
  // Non-splat data of whole-byte elements is already stored densely in
  // little-endian order (x86-64 hosts); i1 is bit-packed, and splats hold one
  // element, so those are expanded element by element.
  Type element = type.getElementType();
  if (!attr.isSplat() && !element.isIndex() &&
      element.getIntOrFloatBitWidth() % 8 == 0) {
    ArrayRef<char> raw = attr.getRawData();
    return std::vector<uint8_t>(raw.begin(), raw.end());
  }
  std::vector<uint8_t> bytes;
  bytes.reserve(count * elementBytes);
  auto appendBits = [&](const APInt &bits) {
    APInt wide = bits.zextOrTrunc(elementBytes * 8);
    for (uint64_t b = 0; b < elementBytes; ++b)
      bytes.push_back(
          static_cast<uint8_t>(wide.extractBitsAsZExtValue(8, b * 8)));
  };
  if (isa<FloatType>(type.getElementType())) {
    for (APFloat v : attr.getValues<APFloat>())
      appendBits(v.bitcastToAPInt());
  } else {
    for (APInt v : attr.getValues<APInt>())
      appendBits(v);
  }
  return bytes;
}

// The bytes of a dense_resource blob, or failure when the blob is missing or
// its size does not match the type (i1 blobs hold one byte per element).
FailureOr<ArrayRef<char>> resourceElementBytes(DenseResourceElementsAttr attr) {
  AsmResourceBlob *blob = attr.getRawHandle().getBlob();
  if (!blob)
    return failure();
  ArrayRef<char> data = blob->getData();
  if (data.size() != tensorByteSize(cast<RankedTensorType>(attr.getType())))
    return failure();
  return data;
}

} // namespace

FailureOr<uint64_t> ConstantPool::add(ElementsAttr attr) {
  auto it = Offsets.find(attr);
  if (it != Offsets.end())
    return it->second;
  std::vector<uint8_t> denseBytes;
  ArrayRef<uint8_t> bytes;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    denseBytes = denseElementBytes(dense);
    bytes = denseBytes;
  } else if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    FailureOr<ArrayRef<char>> blob = resourceElementBytes(resource);
    if (failed(blob))
      return failure();
    bytes = ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(blob->data()),
                              blob->size());
  } else {
    return failure();
  }
  // Equal bytes under another attribute (a weight imported twice, once per
  // function of a module compiled with --specialize) are stored once.
  llvm::hash_code hash = llvm::hash_combine_range(bytes.begin(), bytes.end());
  for (uint64_t offset : ByContent[hash])
    if (offset + bytes.size() <= Data.size() &&
        std::equal(bytes.begin(), bytes.end(), Data.begin() + offset)) {
      Offsets[attr] = offset;
      return offset;
    }
  uint64_t offset = llvm::alignTo(Data.size(), kBufferAlignment);
  Data.resize(offset);
  Data.insert(Data.end(), bytes.begin(), bytes.end());
  Offsets[attr] = offset;
  ByContent[hash].push_back(offset);
  return offset;
}

namespace {

constexpr size_t kEnd = std::numeric_limits<size_t>::max();

// Where a tensor value lives, before arena offsets are known.
struct ValueInfo {
  Storage Kind = Storage::Arena;
  uint32_t Index = 0;
  uint64_t Offset = 0;
  uint64_t Length = 0;
  size_t Start = 0, End = 0;           // liveness over op positions
  std::optional<uint32_t> FillPattern; // splat values materialized by a fill
  uint8_t FillLength = 0;
  bool FillEmitted = false;
  // Arena values: the dispatch that writes the value (for a splat, its
  // first user, which its fill step precedes) and every dispatch that
  // writes or reads it.
  Operation *Writer = nullptr;
  SmallVector<Operation *> Touchers;
};

// The splat a fill step can write: a 1, 2 or 4 byte element.
std::optional<std::pair<uint32_t, uint8_t>> splatPattern(Attribute value) {
  uint64_t bytes;
  APInt bits;
  if (auto f = dyn_cast<FloatAttr>(value)) {
    bits = f.getValue().bitcastToAPInt();
    bytes = llvm::divideCeil(bits.getBitWidth(), 8);
  } else if (auto i = dyn_cast<IntegerAttr>(value)) {
    bits = i.getValue();
    bytes = llvm::divideCeil(bits.getBitWidth(), 8);
  } else {
    return std::nullopt;
  }
  if (bytes != 1 && bytes != 2 && bytes != 4)
    return std::nullopt;
  return std::make_pair(
      static_cast<uint32_t>(bits.zextOrTrunc(bytes * 8).getZExtValue()),
      static_cast<uint8_t>(bytes));
}

std::optional<std::pair<uint32_t, uint8_t>> fillPatternOf(Operation *op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
    if (dense && dense.isSplat())
      return splatPattern(dense.getSplatValue<Attribute>());
    return std::nullopt;
  }
  if (auto fill = dyn_cast<linalg::FillOp>(op)) {
    auto scalar = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
    if (scalar)
      return splatPattern(scalar.getValue());
  }
  return std::nullopt;
}

} // namespace

namespace {

// The attributes of argument or result `i` in `all` (func's arg_attrs or
// res_attrs), or null.
DictionaryAttr attrsAt(ArrayAttr all, size_t i) {
  return all && i < all.size() ? dyn_cast<DictionaryAttr>(all[i])
                               : DictionaryAttr();
}

void setBoundaryTypes(FunctionType type, ArrayAttr argAttrs, ArrayAttr resAttrs,
                      HostPlan &plan) {
  // Integers are signless inside; a `kiln.unsigned` argument or result (the
  // ONNX importer's uint8...uint64) is declared unsigned in the module, so
  // callers pass unsigned data. The bytes are the same either way.
  auto boundaryType = [](Type t, DictionaryAttr attrs) {
    auto type = cast<RankedTensorType>(t);
    auto integer = dyn_cast<IntegerType>(type.getElementType());
    if (!integer || !attrs || !attrs.get("kiln.unsigned"))
      return type;
    return type.clone(IntegerType::get(t.getContext(), integer.getWidth(),
                                       IntegerType::Unsigned));
  };
  for (auto [i, t] : llvm::enumerate(type.getInputs())) {
    DictionaryAttr attrs = attrsAt(argAttrs, i);
    plan.Inputs.push_back(boundaryType(t, attrs));
    auto low = attrs ? attrs.getAs<DenseI64ArrayAttr>("kiln.dim_min")
                     : DenseI64ArrayAttr();
    auto high = attrs ? attrs.getAs<DenseI64ArrayAttr>("kiln.dim_max")
                      : DenseI64ArrayAttr();
    plan.InputDimMin.emplace_back();
    plan.InputDimMax.emplace_back();
    if (low && high && low.size() == cast<RankedTensorType>(t).getRank() &&
        high.size() == low.size()) {
      plan.InputDimMin.back().assign(low.asArrayRef().begin(),
                                     low.asArrayRef().end());
      plan.InputDimMax.back().assign(high.asArrayRef().begin(),
                                     high.asArrayRef().end());
    }
  }
  for (auto [i, t] : llvm::enumerate(type.getResults()))
    plan.Outputs.push_back(boundaryType(t, attrsAt(resAttrs, i)));
}

} // namespace

void setBoundaryTypes(func::FuncOp func, HostPlan &plan) {
  setBoundaryTypes(func.getFunctionType(), func.getAllArgAttrs(),
                   func.getAllResultAttrs(), plan);
  if (auto general = func->getAttrOfType<StringAttr>(kSpecializationOfAttrName))
    plan.SpecializationOf = general.str();
  if (auto chain = func->getAttrOfType<StringAttr>(kPhaseOfAttrName))
    plan.PhaseOf = chain.str();
}

HostPlan planPhasedFunction(const PhaseChain &chain) {
  HostPlan plan;
  plan.Name = chain.Name;
  setBoundaryTypes(chain.Type, chain.ArgAttrs, chain.ResAttrs, plan);
  plan.SpecializationOf = chain.SpecializationOf;
  plan.PhaseOf = chain.PhaseOf;
  plan.Phases = chain.Phases;
  plan.PhaseInputs = chain.PhaseInputs;
  plan.PhaseLoopCarried = chain.LoopCarried;
  plan.PhaseLoopOutputs = chain.LoopOutputs;
  plan.PhaseOutputs = chain.Outputs;
  return plan;
}

FailureOr<HostPlan> planHostFunction(func::FuncOp func, ConstantPool &pool) {
  // Static functions keep the plan below unchanged: buffers placed once, at
  // compile time.
  if (hasDynamicShapes(func))
    return planDynamicHostFunction(func, pool);
  HostPlan plan;
  plan.Name = func.getSymName().str();
  setBoundaryTypes(func, plan);
  Block &block = func.getBody().front();

  llvm::DenseMap<Operation *, size_t> position;
  size_t pos = 1;
  for (Operation &op : block)
    position[&op] = pos++;

  // Every tensor value maps to the value that owns its storage, and an
  // alias of part of it (a contiguous slice) to where in it its bytes start.
  llvm::DenseMap<Value, Value> owner;
  llvm::DenseMap<Value, uint64_t> offsetInOwner;
  llvm::MapVector<Value, ValueInfo> infos;
  for (BlockArgument arg : block.getArguments()) {
    ValueInfo info;
    info.Kind = Storage::Input;
    info.Index = arg.getArgNumber();
    info.Length = tensorByteSize(cast<RankedTensorType>(arg.getType()));
    info.End = kEnd;
    infos[arg] = info;
    owner[arg] = arg;
  }

  auto returnOp = cast<func::ReturnOp>(block.getTerminator());
  for (Operation &op : block) {
    if (&op == returnOp.getOperation())
      break;
    if (std::optional<uint64_t> offset = aliasByteOffset(&op)) {
      owner[op.getResult(0)] = owner.lookup(op.getOperand(0));
      offsetInOwner[op.getResult(0)] =
          offsetInOwner.lookup(op.getOperand(0)) + *offset;
      continue;
    }
    if (auto call = dyn_cast<func::CallOp>(op)) {
      for (Value result : call.getResults()) {
        ValueInfo info;
        info.Length = tensorByteSize(cast<RankedTensorType>(result.getType()));
        info.Start = info.End = position[&op];
        infos[result] = info;
        owner[result] = result;
      }
      continue;
    }
    if (isa<arith::ConstantOp, linalg::FillOp>(op) && op.getNumResults() == 1 &&
        isa<RankedTensorType>(op.getResult(0).getType())) {
      Value result = op.getResult(0);
      ValueInfo info;
      info.Length = tensorByteSize(cast<RankedTensorType>(result.getType()));
      if (auto pattern = fillPatternOf(&op)) {
        info.FillPattern = pattern->first;
        info.FillLength = pattern->second;
        info.Start = kEnd; // from its first use
      } else if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
        auto elements = dyn_cast<ElementsAttr>(constant.getValue());
        FailureOr<uint64_t> offset =
            elements ? pool.add(elements) : FailureOr<uint64_t>(failure());
        if (failed(offset))
          return op.emitError()
                 << "constant data of type " << constant.getType()
                 << " is missing or malformed (an elided or undefined "
                    "dense_resource blob, or one of the wrong size)";
        info.Kind = Storage::Constant;
        info.Offset = *offset;
        info.End = kEnd;
      } else {
        return op.emitError("fill of a non-constant value in host function");
      }
      infos[result] = info;
      owner[result] = result;
      continue;
    }
    // Producers of a host fill's destination (tensor.empty) carry no data.
    if (isa<arith::ConstantOp>(op) || op.use_empty() || isClonableProducer(&op))
      continue;
    return op.emitError() << "'" << op.getName()
                          << "' cannot run on the host; it was expected "
                             "inside a dispatch";
  }

  // Liveness: a value lives until its last use, through aliases.
  for (Operation &op : block) {
    auto call = dyn_cast<func::CallOp>(op);
    if (call)
      for (Value result : call.getResults()) {
        infos[result].Writer = call;
        infos[result].Touchers.push_back(call);
      }
    for (Value operand : op.getOperands()) {
      auto it = owner.find(operand);
      if (it == owner.end())
        continue;
      ValueInfo &info = infos[it->second];
      size_t at = isa<func::ReturnOp>(op) ? kEnd : position[&op];
      if (info.Kind == Storage::Arena) {
        info.End = std::max(info.End, at);
        if (info.FillPattern)
          info.Start = std::min(info.Start, at);
        if (call) {
          if (info.FillPattern && !info.Writer)
            info.Writer = call;
          info.Touchers.push_back(call);
        }
      }
    }
  }

  // Which dispatches each one follows through the data it reads (through
  // aliases, transitively), by op position.
  llvm::DenseMap<Operation *, llvm::BitVector> ancestors;
  for (Operation &op : block) {
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      continue;
    llvm::BitVector bits(pos);
    for (Value operand : call.getOperands()) {
      Value root = owner.lookup(operand);
      Operation *producer = root ? root.getDefiningOp() : nullptr;
      if (producer && isa<func::CallOp>(producer)) {
        bits |= ancestors[producer];
        bits.set(position[producer]);
      }
    }
    ancestors[call] = std::move(bits);
  }
  // Steps are ordered by the bytes they touch (schema/StepDependencies.h),
  // so a value placed over a dead one's bytes makes its writer wait for
  // every dispatch that touched the dead one. That is free when the writer
  // follows them through its data anyway, and otherwise serializes work
  // that could run at once (two branches of a block): such values get bytes
  // of their own.
  auto mayReuse = [&](const ValueInfo &dead, const ValueInfo &next) {
    if (!next.Writer)
      return false;
    const llvm::BitVector &follows = ancestors[next.Writer];
    return llvm::all_of(dead.Touchers, [&](Operation *toucher) {
      return toucher == next.Writer || follows.test(position[toucher]);
    });
  };

  // Results computed here are written straight into output buffers.
  std::vector<std::optional<Value>> copyFrom(returnOp.getNumOperands());
  llvm::DenseSet<Value> directOutputs;
  // Part of a value (a slice) is copied out.
  auto isWhole = [&](Value v) {
    return offsetInOwner.lookup(v) == 0 &&
           tensorByteSize(cast<RankedTensorType>(v.getType())) ==
               infos[owner.lookup(v)].Length;
  };
  for (auto [index, operand] : llvm::enumerate(returnOp.getOperands())) {
    Value root = owner.lookup(operand);
    ValueInfo &info = infos[root];
    if (info.Kind == Storage::Arena && !directOutputs.contains(root) &&
        isWhole(operand)) {
      info.Kind = Storage::Output;
      info.Index = index;
      info.Offset = 0;
      directOutputs.insert(root);
    } else {
      copyFrom[index] = root;
    }
  }

  // First-fit arena placement over live ranges.
  struct Placed {
    uint64_t Offset, Length;
    size_t Start, End;
    Value Owner;
  };
  std::vector<Placed> placed;
  SmallVector<Value> arenaValues;
  for (auto &[value, info] : infos)
    if (info.Kind == Storage::Arena)
      arenaValues.push_back(value);
  llvm::stable_sort(arenaValues, [&](Value a, Value b) {
    return infos[a].Start < infos[b].Start;
  });
  for (Value value : arenaValues) {
    ValueInfo &info = infos[value];
    if (info.Start == kEnd)
      info.Start = info.End; // a splat returned directly
    std::vector<Placed> overlapping;
    // Placed in order of Start, so an earlier value either is live at
    // the same time or died before this one is written.
    for (const Placed &p : placed)
      if ((p.Start <= info.End && info.Start <= p.End) ||
          !mayReuse(infos[p.Owner], info))
        overlapping.push_back(p);
    llvm::sort(overlapping, [](const Placed &a, const Placed &b) {
      return a.Offset < b.Offset;
    });
    uint64_t offset = 0;
    for (const Placed &p : overlapping) {
      if (offset + info.Length <= p.Offset)
        break;
      offset = std::max(offset,
                        llvm::alignTo(p.Offset + p.Length, kBufferAlignment));
    }
    info.Offset = offset;
    placed.push_back({offset, std::max<uint64_t>(info.Length, 1), info.Start,
                      info.End, value});
    plan.ArenaSize = std::max(
        plan.ArenaSize, llvm::alignTo(offset + info.Length, kBufferAlignment));
  }

  auto sliceOf = [&](Value v) {
    const ValueInfo &info = infos[owner.lookup(v)];
    return BufferSlice{info.Kind, info.Index,
                       info.Offset + offsetInOwner.lookup(v),
                       tensorByteSize(cast<RankedTensorType>(v.getType()))};
  };
  auto emitFill = [&](Value root) {
    ValueInfo &info = infos[root];
    if (!info.FillPattern || info.FillEmitted)
      return;
    info.FillEmitted = true;
    plan.Steps.push_back(FillStepPlan{
        BufferSlice{info.Kind, info.Index, info.Offset, info.Length},
        *info.FillPattern, info.FillLength});
  };

  for (Operation &op : block) {
    auto call = dyn_cast<func::CallOp>(op);
    if (!call)
      continue;
    DispatchStepPlan step;
    step.EntryPoint = call.getCallee().str();
    // Dispatch bodies take fresh destinations (kiln-materialize-inits), so
    // no result binding reads what was there before.
    for (Value operand : call.getOperands()) {
      if (!isa<RankedTensorType>(operand.getType())) {
        // A scalar argument of a dispatch shared by calls that differ in it
        // (kiln-hoist-dispatch-scalars): the call's constant is a push
        // constant.
        Attribute value;
        if (!matchPattern(operand, m_Constant(&value)) ||
            failed(appendPushConstantWords(value, step.PushConstants)))
          return call.emitError()
                 << "scalar dispatch operand of type " << operand.getType()
                 << " is not a constant a push constant can carry";
        continue;
      }
      emitFill(owner.lookup(operand));
      step.Bindings.push_back(sliceOf(operand));
      step.Access.push_back(BindingAccess::Read);
    }
    for (Value result : call.getResults()) {
      step.Bindings.push_back(sliceOf(result));
      step.Access.push_back(BindingAccess::Write);
    }
    plan.Steps.push_back(std::move(step));
  }
  for (auto [index, operand] : llvm::enumerate(returnOp.getOperands())) {
    emitFill(owner.lookup(operand));
    if (!copyFrom[index])
      continue;
    BufferSlice target{Storage::Output, static_cast<uint32_t>(index), 0,
                       tensorByteSize(plan.Outputs[index])};
    plan.Steps.push_back(CopyStepPlan{sliceOf(operand), target});
  }
  std::vector<std::vector<schema::StepAccess>> accesses;
  accesses.reserve(plan.Steps.size());
  for (const HostStep &step : plan.Steps)
    accesses.push_back(stepAccesses(step));
  plan.Dependencies = schema::deriveStepDependencies(accesses);
  return plan;
}

std::vector<schema::StepAccess> stepAccesses(const HostStep &step) {
  auto access = [](const BufferSlice &slice, bool written) {
    // Only inputs and outputs are several buffers.
    bool indexed =
        slice.Kind == Storage::Input || slice.Kind == Storage::Output;
    return schema::StepAccess{static_cast<uint8_t>(slice.Kind),
                              indexed ? slice.Index : 0, slice.Offset,
                              slice.Length, written};
  };
  std::vector<schema::StepAccess> accesses;
  if (const auto *dispatch = std::get_if<DispatchStepPlan>(&step)) {
    for (auto [slice, kind] :
         llvm::zip_equal(dispatch->Bindings, dispatch->Access))
      accesses.push_back(access(slice, kind != BindingAccess::Read));
  } else if (const auto *copy = std::get_if<CopyStepPlan>(&step)) {
    accesses.push_back(access(copy->Source, false));
    accesses.push_back(access(copy->Target, true));
  } else {
    accesses.push_back(access(std::get<FillStepPlan>(step).Target, true));
  }
  return accesses;
}

} // namespace kiln
