//===- KernelDispatch.cpp - Dispatches written whole as one kernel --------===//

#include "compiler/codegen/gpu/KernelDispatch.h"
#include "compiler/codegen/common/Tiling.h"
#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace kiln {
namespace {

// An all-parallel generic with one init it never reads, written in order:
// its loops are its output's dimensions.
bool isElementwiseInOrder(linalg::GenericOp generic) {
  return generic.getNumReductionLoops() == 0 && generic.getNumDpsInits() == 1 &&
         generic.getIndexingMapsArray().back().isIdentity() &&
         !generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0));
}

// An input read through a projected permutation of a binding, whose size-1
// dimensions may be read at index 0 (a broadcast bias of shape Cx1x1, as the
// ONNX importer and tosa's lowering write them).
bool readsBinding(linalg::GenericOp generic, OpOperand *input) {
  return bindingOf(input->get()) &&
         generic.getMatchingIndexingMap(input).isProjectedPermutation(
             /*allowZeroInResults=*/true);
}

// Reads the element of `binding` that `map` gives for the output at the
// loops it is called with.
using BindingLoad = function_ref<Value(Value binding, AffineMap map)>;

// Clones elementwise `generic`'s payload for the output at `outIndices`:
// binding inputs are read there by `load`, input `root` (if set) is
// `rootValue`, and linalg.index is the output index.
Value applyElementwise(OpBuilder &builder, Location loc,
                       linalg::GenericOp generic, ArrayRef<Value> outIndices,
                       OpOperand *root, Value rootValue, BindingLoad load) {
  Block &body = generic.getRegion().front();
  IRMapping map;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    BlockArgument arg = body.getArgument(input->getOperandNumber());
    if (input == root) {
      map.map(arg, rootValue);
      continue;
    }
    map.map(arg, load(bindingOf(input->get()),
                      generic.getMatchingIndexingMap(input)));
  }
  for (Operation &op : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      map.map(index.getResult(), outIndices[index.getDim()]);
      continue;
    }
    builder.clone(op, map);
  }
  return map.lookupOrDefault(body.getTerminator()->getOperand(0));
}

} // namespace

bool collectWindowLoops(AffineExpr e, SmallVectorImpl<unsigned> &loops) {
  if (auto dim = dyn_cast<AffineDimExpr>(e)) {
    loops.push_back(dim.getPosition());
    return true;
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(e);
  if (!binary)
    return false;
  if (e.getKind() == AffineExprKind::Add)
    return collectWindowLoops(binary.getLHS(), loops) &&
           collectWindowLoops(binary.getRHS(), loops);
  auto dim = dyn_cast<AffineDimExpr>(binary.getLHS());
  auto scale = dyn_cast<AffineConstantExpr>(binary.getRHS());
  if (e.getKind() != AffineExprKind::Mul || !dim || !scale ||
      scale.getValue() <= 0)
    return false;
  loops.push_back(dim.getPosition());
  return true;
}

bool isBindingBuffer(Value buffer) {
  if (isa<BlockArgument>(buffer))
    return true;
  // A binding of dynamic shape (issue 19) is accessed through the view
  // kiln-bind-dispatch gives it, its extents the dispatch's push constants.
  auto view = buffer.getDefiningOp<memref::ReinterpretCastOp>();
  return view && isa<BlockArgument>(view.getSource()) &&
         !view.getType().hasStaticShape();
}

Value bindingOf(Value tensor) {
  auto read = tensor.getDefiningOp<bufferization::ToTensorOp>();
  if (!read || !isBindingBuffer(read.getBuffer()))
    return nullptr;
  return read.getBuffer();
}

std::optional<ResultStores> resultStores(func::FuncOp func) {
  using Store = bufferization::MaterializeInDestinationOp;
  SmallVector<Store> stores;
  func.walk([&](Store op) { stores.push_back(op); });
  if (!llvm::all_of(stores,
                    [](Store op) { return isBindingBuffer(op.getDest()); }))
    return std::nullopt;
  // Whether `op` computes a conversion of `value` that is stored.
  auto storedConversion = [&](Operation *op, Value value) {
    return isConversionOf(op, value) && llvm::any_of(stores, [&](Store s) {
             return s.getSource().getDefiningOp() == op;
           });
  };
  ResultStores result;
  for (Store store : stores) {
    Value value = store.getSource();
    bool converts = llvm::any_of(stores, [&](Store other) {
      return storedConversion(value.getDefiningOp(), other.getSource());
    });
    bool readElsewhere = llvm::any_of(value.getUsers(), [&](Operation *u) {
      return !isa<Store>(u) && !storedConversion(u, value);
    });
    if (converts || (readElsewhere && stores.size() > 1))
      continue;
    if (result.Main)
      return std::nullopt;
    result.Main = store;
  }
  if (!result.Main)
    return std::nullopt;
  for (Store store : stores) {
    if (store == result.Main)
      continue;
    if (!result.Side && isConversionOf(store.getSource().getDefiningOp(),
                                       result.Main.getSource()))
      result.Side = store;
    else
      result.Others.push_back(store);
  }
  return result;
}

bufferization::MaterializeInDestinationOp
singleBindingStore(func::FuncOp func) {
  std::optional<ResultStores> stores = resultStores(func);
  return stores && !stores->Side && stores->Others.empty() ? stores->Main
                                                           : nullptr;
}

FailureOr<KernelDispatch>
matchKernelDispatch(func::FuncOp func, bool permutedStore, bool dynamicRanges) {
  bufferization::MaterializeInDestinationOp store = singleBindingStore(func);
  if (!store)
    return failure();
  KernelDispatch d;
  d.Out = store.getDest();
  d.Store = store;
  Value result = store.getSource();
  SmallVector<linalg::GenericOp> epilogues;
  // A last epilogue that reads the value before it transposed: the kernel
  // computes at the root's indices j what Out holds at P^-1(j), for the
  // permutation P it reads through.
  if (auto generic = result.getDefiningOp<linalg::GenericOp>())
    if (AffineMap map = permutedEpilogueRead(generic);
        map && generic.getDpsInputOperand(0)
                   ->get()
                   .getDefiningOp<linalg::LinalgOp>()) {
      if (!permutedStore)
        return failure();
      d.OutPermutation = inversePermutation(map);
      epilogues.push_back(generic);
      result = generic.getDpsInputOperand(0)->get();
    }
  // Elementwise epilogues, outermost first: each reads the value before it
  // (the root, an op with reduction loops, or the previous epilogue) in
  // order and other bindings anyhow (a rounding to f16, then a residual
  // add and a ReLU).
  while (auto generic = result.getDefiningOp<linalg::GenericOp>()) {
    if (!isElementwiseInOrder(generic) ||
        (!epilogues.empty() && !result.hasOneUse()))
      break;
    Value inner;
    bool valid = true;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      auto producer = input->get().getDefiningOp<linalg::LinalgOp>();
      bool computed =
          producer && (producer.getNumReductionLoops() != 0 ||
                       isa<linalg::GenericOp>(producer.getOperation()));
      if (computed && !inner &&
          generic.getMatchingIndexingMap(input).isIdentity()) {
        inner = input->get();
        continue;
      }
      if (!readsBinding(generic, input))
        valid = false;
    }
    if (!valid || !inner)
      break;
    epilogues.push_back(generic);
    result = inner;
  }
  d.Epilogues.assign(epilogues.rbegin(), epilogues.rend());
  auto op = result.getDefiningOp<linalg::LinalgOp>();
  if (!op || op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || op.hasIndexSemantics() ||
      !result.hasOneUse() || op.getNumReductionLoops() == 0)
    return failure();
  d.Op = op;
  // A fill may start other accumulators too (CSE merges equal ones: an
  // attention's scores and output of the same shape); anything else is
  // read by the root alone.
  Value init = op.getDpsInitOperand(0)->get();
  Operation *producer = init.getDefiningOp();
  if (!producer || (!init.hasOneUse() && !isa<linalg::FillOp>(producer)))
    return failure();
  if (auto fill = dyn_cast<linalg::FillOp>(producer)) {
    if (!fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      return failure();
  } else if (auto copy = dyn_cast<linalg::CopyOp>(producer)) {
    if (!bindingOf(copy.getInputs()[0]) ||
        !copy.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      return failure();
  } else if (auto generic = dyn_cast<linalg::GenericOp>(producer)) {
    if (!isElementwiseInOrder(generic) ||
        !generic.getDpsInitOperand(0)->get().getDefiningOp<tensor::EmptyOp>() ||
        !llvm::all_of(generic.getDpsInputOperands(), [&](OpOperand *input) {
          return readsBinding(generic, input);
        }))
      return failure();
  } else {
    return failure();
  }
  d.Init = producer;
  d.Ranges = op.getStaticLoopRanges();
  if (llvm::any_of(d.Ranges, [&](int64_t r) {
        return ShapedType::isDynamic(r) ? !dynamicRanges : r == 0;
      }))
    return failure();
  return d;
}

SmallVector<Value> storeIndices(const KernelDispatch &d,
                                ArrayRef<Value> outIndices) {
  if (!d.OutPermutation)
    return SmallVector<Value>(outIndices);
  SmallVector<Value> indices;
  for (AffineExpr e : d.OutPermutation.getResults())
    indices.push_back(outIndices[cast<AffineDimExpr>(e).getPosition()]);
  return indices;
}

SmallVector<Value> applyToLoops(OpBuilder &builder, Location loc, AffineMap map,
                                ArrayRef<Value> loops) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(e))
      indices.push_back(loops[dim.getPosition()]);
    else
      indices.push_back(
          affine::expandAffineExpr(builder, loc, e, loops, ValueRange{}));
  }
  return indices;
}

SmallVector<Value> delinearize(OpBuilder &builder, Location loc, Value linear,
                               ArrayRef<int64_t> sizes) {
  SmallVector<Value> position(sizes.size());
  for (size_t i = sizes.size(); i-- > 0;) {
    if (i == 0) {
      position[i] = linear;
      break;
    }
    Value size = arith::ConstantIndexOp::create(builder, loc, sizes[i]);
    position[i] = arith::RemUIOp::create(builder, loc, linear, size);
    linear = arith::DivUIOp::create(builder, loc, linear, size);
  }
  return position;
}

Value createSharedBuffer(OpBuilder &builder, Location loc, func::FuncOp func,
                         SymbolTable &symbols, StringRef suffix,
                         ArrayRef<int64_t> shape, Type element) {
  // NVVM's shared address space as a number: upstream's memref.global
  // lowering does not map #gpu.address_space<workgroup>.
  auto space = builder.getI64IntegerAttr(
      static_cast<int64_t>(NVVM::NVVMMemorySpace::Shared));
  auto type = MemRefType::get(shape, element, AffineMap(), space);
  OpBuilder moduleBuilder(func);
  // Vector loads, cp.async and ldmatrix all need 16-byte alignment.
  auto global = memref::GlobalOp::create(
      moduleBuilder, loc, (func.getSymName() + suffix).str(),
      moduleBuilder.getStringAttr("private"), type, Attribute(),
      /*constant=*/false, moduleBuilder.getI64IntegerAttr(16));
  symbols.insert(global);
  return memref::GetGlobalOp::create(builder, loc, type, global.getSymName());
}

Value shuffleXor(OpBuilder &builder, Location loc, Value value, int64_t mask,
                 int64_t width) {
  Type type = value.getType();
  unsigned bits = type.getIntOrFloatBitWidth();
  auto shuffle = [&](Value v) {
    return gpu::ShuffleOp::create(builder, loc, v, mask, width,
                                  gpu::ShuffleMode::XOR)
        .getShuffleResult();
  };
  if (bits == 32 || bits == 64)
    return shuffle(value);
  Type bitsType = builder.getIntegerType(bits);
  Value asInt = isa<FloatType>(type)
                    ? arith::BitcastOp::create(builder, loc, bitsType, value)
                    : value;
  Value moved = shuffle(
      arith::ExtUIOp::create(builder, loc, builder.getI32Type(), asInt));
  Value narrow = arith::TruncIOp::create(builder, loc, bitsType, moved);
  return isa<FloatType>(type)
             ? arith::BitcastOp::create(builder, loc, type, narrow)
             : narrow;
}

Type sharedStorageType(Type type) {
  return type.getIntOrFloatBitWidth() < 8
             ? IntegerType::get(type.getContext(), 8)
             : type;
}

scf::ForallOp createBlockLoop(OpBuilder &builder, Location loc,
                              ArrayRef<int64_t> upper,
                              ArrayRef<int64_t> steps) {
  return createBlockLoop(
      builder, loc, getAsIndexOpFoldResult(builder.getContext(), upper), steps);
}

scf::ForallOp createBlockLoop(OpBuilder &builder, Location loc,
                              ArrayRef<OpFoldResult> upper,
                              ArrayRef<int64_t> steps) {
  MLIRContext *ctx = builder.getContext();
  SmallVector<Attribute> mapping;
  for (size_t i = 0; i < upper.size(); ++i)
    mapping.push_back(gpu::GPUBlockMappingAttr::get(
        ctx, static_cast<gpu::MappingId>(
                 static_cast<uint64_t>(gpu::MappingId::LinearDim0) + i)));
  return scf::ForallOp::create(
      builder, loc,
      getAsIndexOpFoldResult(ctx, SmallVector<int64_t>(upper.size(), 0)), upper,
      getAsIndexOpFoldResult(ctx, steps), ValueRange{},
      builder.getArrayAttr(mapping));
}

Value uniformInit(const KernelDispatch &d) {
  auto fill = dyn_cast<linalg::FillOp>(d.Init);
  return fill ? fill.getInputs()[0] : Value();
}

// initialValue, its bindings read by `load`.
static Value initialValueBy(OpBuilder &builder, Location loc,
                            const KernelDispatch &d, ArrayRef<Value> outIndices,
                            BindingLoad load) {
  if (Value value = uniformInit(d))
    return value;
  if (auto copy = dyn_cast<linalg::CopyOp>(d.Init))
    return load(bindingOf(copy.getInputs()[0]),
                builder.getMultiDimIdentityMap(outIndices.size()));
  return applyElementwise(builder, loc, cast<linalg::GenericOp>(d.Init),
                          outIndices, /*root=*/nullptr, Value(), load);
}

// applyEpilogue, its bindings read by `load`.
static Value applyEpilogueBy(OpBuilder &builder, Location loc,
                             const KernelDispatch &d, Value result,
                             ArrayRef<Value> outIndices, BindingLoad load) {
  Value inner = d.Op->getResult(0);
  for (linalg::GenericOp epilogue : d.Epilogues) {
    OpOperand *root = nullptr;
    for (OpOperand *input : epilogue.getDpsInputOperands())
      if (input->get() == inner)
        root = input;
    result = applyElementwise(builder, loc, epilogue, outIndices, root, result,
                              load);
    inner = epilogue->getResult(0);
  }
  return result;
}

// A binding's element loaded where `map` puts the output at `outIndices`.
static Value loadAt(OpBuilder &builder, Location loc, Value binding,
                    AffineMap map, ArrayRef<Value> outIndices) {
  return memref::LoadOp::create(builder, loc, binding,
                                applyToLoops(builder, loc, map, outIndices));
}

Value initialValue(OpBuilder &builder, Location loc, const KernelDispatch &d,
                   ArrayRef<Value> outIndices) {
  return initialValueBy(builder, loc, d, outIndices,
                        [&](Value binding, AffineMap map) {
                          return loadAt(builder, loc, binding, map, outIndices);
                        });
}

OutputRun::OutputRun(OpBuilder &builder, Location loc, const KernelDispatch &d,
                     ArrayRef<Value> first, int64_t length)
    : Builder(builder), Loc(loc), D(d), First(first), Length(length) {}

SmallVector<Value> OutputRun::indicesOf(int64_t lane) {
  SmallVector<Value> indices(First);
  if (lane)
    indices.back() = arith::AddIOp::create(
        Builder, Loc, indices.back(),
        arith::ConstantIndexOp::create(Builder, Loc, lane));
  return indices;
}

// The result of `map` that reads the innermost loop, when the binding's
// elements along it are consecutive: the last result, or the last before
// results of constant 0 into dimensions of size 1 (a bias of shape Cx1x1).
static std::optional<unsigned> innermostResult(MemRefType type, AffineMap map) {
  unsigned position = map.getNumResults();
  while (position > 0) {
    auto constant = dyn_cast<AffineConstantExpr>(map.getResult(position - 1));
    if (!constant || constant.getValue() != 0 ||
        type.getDimSize(position - 1) != 1)
      break;
    --position;
  }
  unsigned last = map.getNumDims() - 1;
  if (position == 0 ||
      map.getResult(position - 1) != getAffineDimExpr(last, map.getContext()))
    return std::nullopt;
  // The run's other indices are fixed.
  if (llvm::any_of(map.getResults().take_front(position - 1),
                   [&](AffineExpr e) { return e.isFunctionOfDim(last); }))
    return std::nullopt;
  return position - 1;
}

bool OutputRun::readsAlongRun(Value binding, AffineMap map) const {
  auto type = dyn_cast<MemRefType>(binding.getType());
  if (Length < 2 || !type || !type.getLayout().isIdentity() ||
      !type.hasStaticShape() || type.getRank() == 0 ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() % 8 != 0)
    return false;
  std::optional<unsigned> inner = innermostResult(type, map);
  return inner && type.getDimSize(*inner) % Length == 0;
}

Value OutputRun::load(Value binding, AffineMap map, int64_t lane) {
  if (!readsAlongRun(binding, map))
    return loadAt(Builder, Loc, binding, map, indicesOf(lane));
  Value &vector = Vectors[{binding, map}];
  if (!vector) {
    auto type = cast<MemRefType>(binding.getType());
    unsigned inner = *innermostResult(type, map);
    SmallVector<Value> indices = applyToLoops(Builder, Loc, map, First);
    // Trailing unit dimensions folded into the innermost read one, so the
    // vector runs along the memref's innermost dimension.
    if (inner + 1 < type.getRank()) {
      SmallVector<ReassociationIndices> groups;
      for (unsigned i = 0; i < inner; ++i)
        groups.push_back({static_cast<int64_t>(i)});
      groups.emplace_back();
      for (int64_t i = inner; i < type.getRank(); ++i)
        groups.back().push_back(i);
      binding = memref::CollapseShapeOp::create(Builder, Loc, binding, groups);
      indices.resize(inner + 1);
    }
    // Its first element is a multiple of Length elements into a binding
    // aligned to kBindingAlignment bytes.
    int64_t bytes = Length * type.getElementTypeBitWidth() / 8;
    vector = vector::LoadOp::create(
        Builder, Loc, VectorType::get({Length}, type.getElementType()), binding,
        indices, /*nontemporal=*/false,
        llvm::MaybeAlign(std::min<int64_t>(
            bytes & -bytes, static_cast<int64_t>(kBindingAlignment))));
  }
  return vector::ExtractOp::create(Builder, Loc, vector,
                                   ArrayRef<int64_t>{lane});
}

Value OutputRun::initialValue(int64_t lane) {
  return initialValueBy(
      Builder, Loc, D, indicesOf(lane),
      [&](Value binding, AffineMap map) { return load(binding, map, lane); });
}

Value OutputRun::applyEpilogue(Value result, int64_t lane) {
  return applyEpilogueBy(
      Builder, Loc, D, result, indicesOf(lane),
      [&](Value binding, AffineMap map) { return load(binding, map, lane); });
}

// Multiply and add may fuse into one FMA (one rounding instead of two), as
// cuBLAS, cuDNN and every other GPU matmul or convolution do.
static void allowContraction(OpBuilder &builder, Operation *op) {
  if (auto fastMath = dyn_cast<arith::ArithFastMathInterface>(op)) {
    arith::FastMathFlagsAttr flags = fastMath.getFastMathFlagsAttr();
    op->setAttr(fastMath.getFastMathAttrName(),
                arith::FastMathFlagsAttr::get(
                    builder.getContext(),
                    (flags ? flags.getValue() : arith::FastMathFlags::none) |
                        arith::FastMathFlags::contract));
  }
}

Value applyRootPayload(OpBuilder &builder, const KernelDispatch &d,
                       ArrayRef<Value> args) {
  Block &payload = d.Op->getRegion(0).front();
  IRMapping map;
  for (auto [arg, value] : llvm::zip(payload.getArguments(), args))
    if (value)
      map.map(arg, value);
  for (Operation &op : payload.without_terminator())
    allowContraction(builder, builder.clone(op, map));
  return map.lookupOrDefault(payload.getTerminator()->getOperand(0));
}

bool isVectorizablePayload(const KernelDispatch &d) {
  Block &payload = d.Op->getRegion(0).front();
  auto scalar = [](Type t) { return t.isIntOrFloat(); };
  return llvm::all_of(payload.without_terminator(), [&](Operation &op) {
    return (isa<arith::ConstantOp>(op) ||
            op.hasTrait<OpTrait::Elementwise>()) &&
           op.getNumRegions() == 0 &&
           llvm::all_of(op.getOperandTypes(), scalar) &&
           llvm::all_of(op.getResultTypes(), scalar);
  });
}

Value applyRootPayloadToVectors(OpBuilder &builder, Location loc,
                                const KernelDispatch &d, ArrayRef<Value> args,
                                int64_t lanes) {
  Block &payload = d.Op->getRegion(0).front();
  auto vectorOf = [&](Type t) { return VectorType::get({lanes}, t); };
  IRMapping map;
  for (auto [arg, value] : llvm::zip(payload.getArguments(), args))
    if (value)
      map.map(arg, value);
  for (Operation &op : payload.without_terminator()) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      map.map(constant.getResult(),
              arith::ConstantOp::create(
                  builder, loc,
                  DenseElementsAttr::get(vectorOf(constant.getType()),
                                         constant.getValue())));
      continue;
    }
    // A value from outside the payload is the same in every lane.
    for (Value operand : op.getOperands())
      if (!map.contains(operand))
        map.map(operand,
                vector::BroadcastOp::create(
                    builder, loc, vectorOf(operand.getType()), operand));
    Operation *clone = builder.clone(op, map);
    for (OpResult result : clone->getResults())
      result.setType(vectorOf(result.getType()));
    allowContraction(builder, clone);
  }
  return map.lookupOrDefault(payload.getTerminator()->getOperand(0));
}

Value applyEpilogue(OpBuilder &builder, Location loc, const KernelDispatch &d,
                    Value result, ArrayRef<Value> outIndices) {
  return applyEpilogueBy(
      builder, loc, d, result, outIndices, [&](Value binding, AffineMap map) {
        return loadAt(builder, loc, binding, map, outIndices);
      });
}

void eraseTensorProgram(func::FuncOp func) {
  SmallVector<bufferization::MaterializeInDestinationOp> stores;
  func.walk([&](bufferization::MaterializeInDestinationOp op) {
    stores.push_back(op);
  });
  for (auto store : stores)
    store.erase();
  eraseDeadOps(func);
}

void buildKernelsOfDispatches(
    ModuleOp module,
    function_ref<LogicalResult(func::FuncOp, SymbolTable &)> build,
    bool dynamicToo) {
  SymbolTable symbols(module);
  // Collected first: building a kernel adds globals to the module.
  SmallVector<func::FuncOp> dispatches;
  for (auto func : module.getOps<func::FuncOp>())
    if (isDispatchFunc(func) && (dynamicToo || !hasDynamicShapes(func)))
      dispatches.push_back(func);
  for (func::FuncOp func : dispatches)
    (void)build(func, symbols);
}

// compute() where `inBounds` holds, otherwise() (built in the else block)
// elsewhere.
static Value branchUnless(OpBuilder &builder, Location loc, Value inBounds,
                          Type type, function_ref<Value()> compute,
                          function_ref<Value()> otherwise) {
  if (!inBounds)
    return compute();
  auto branch = scf::IfOp::create(builder, loc, type, inBounds,
                                  /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(branch.thenBlock());
  scf::YieldOp::create(builder, loc, compute());
  builder.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(builder, loc, otherwise());
  return branch.getResult(0);
}

Value valueUnless(OpBuilder &builder, Location loc, Value inBounds,
                  Value otherwise, function_ref<Value()> compute) {
  return branchUnless(builder, loc, inBounds, otherwise.getType(), compute,
                      [&] { return otherwise; });
}

Value zeroUnless(OpBuilder &builder, Location loc, Value inBounds, Type type,
                 function_ref<Value()> compute) {
  return branchUnless(builder, loc, inBounds, type, compute, [&] {
    return arith::ConstantOp::create(builder, loc, type,
                                     builder.getZeroAttr(type));
  });
}

bool isRowMajorPastOutermost(MemRefType type) {
  return type.getLayout().isIdentity() && type.getRank() > 0 &&
         llvm::none_of(type.getShape().drop_front(), ShapedType::isDynamic);
}

} // namespace kiln
