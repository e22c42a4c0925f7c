//===- ContractionMatch.cpp - Dispatches the contraction kernels take -----===//

#include "compiler/codegen/gpu/ContractionMatch.h"
#include "compiler/codegen/common/Tiling.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace kiln {
namespace {

bool isIdentityMap(AffineMap map) { return map.isIdentity(); }

} // namespace

Value bindingOf(Value tensor) {
  auto read = tensor.getDefiningOp<bufferization::ToTensorOp>();
  if (!read || !isa<BlockArgument>(read.getBuffer()))
    return nullptr;
  return read.getBuffer();
}

FailureOr<Contraction> matchContraction(func::FuncOp func) {
  SmallVector<bufferization::MaterializeInDestinationOp> stores;
  func.walk([&](bufferization::MaterializeInDestinationOp op) {
    stores.push_back(op);
  });
  if (stores.size() != 1 || !isa<BlockArgument>(stores.front().getDest()))
    return failure();
  Contraction c;
  c.Out = stores.front().getDest();
  c.Store = stores.front();
  Value result = stores.front().getSource();
  if (auto generic = result.getDefiningOp<linalg::GenericOp>();
      generic && !linalg::isaContractionOpInterface(generic)) {
    // An elementwise epilogue: every loop parallel, writing its output in
    // order, reading the contraction in order and other bindings anyhow.
    if (generic.getNumReductionLoops() != 0 || generic.getNumDpsInits() != 1 ||
        !isIdentityMap(generic.getIndexingMapsArray().back()) ||
        generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
      return failure();
    Value contraction;
    for (OpOperand *input : generic.getDpsInputOperands()) {
      Value value = input->get();
      if (value.getDefiningOp<linalg::LinalgOp>()) {
        if (contraction ||
            !isIdentityMap(generic.getMatchingIndexingMap(input)))
          return failure();
        contraction = value;
      } else if (!bindingOf(value) || !generic.getMatchingIndexingMap(input)
                                           .isProjectedPermutation()) {
        return failure();
      }
    }
    if (!contraction)
      return failure();
    c.Epilogue = generic;
    result = contraction;
  }
  auto op = result.getDefiningOp<linalg::LinalgOp>();
  if (!op || !linalg::isaContractionOpInterface(op) ||
      op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() || !result.hasOneUse())
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.size() > 1 ||
      op.getNumLoops() != 3 + dims->batch.size())
    return failure();
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isProjectedPermutation(); }))
    return failure();
  c.Op = op;
  c.Lhs = bindingOf(op.getDpsInputOperand(0)->get());
  c.Rhs = bindingOf(op.getDpsInputOperand(1)->get());
  // Shared-memory tiles are addressed in whole bytes.
  auto byteSized = [](Value v) {
    return cast<MemRefType>(v.getType()).getElementTypeBitWidth() % 8 == 0;
  };
  if (!c.Lhs || !c.Rhs || !byteSized(c.Lhs) || !byteSized(c.Rhs))
    return failure();
  Value init = op.getDpsInitOperand(0)->get();
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    if (!fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      return failure();
    c.InitValue = fill.getInputs()[0];
  } else if (auto copy = init.getDefiningOp<linalg::CopyOp>()) {
    c.InitBinding = bindingOf(copy.getInputs()[0]);
    if (!c.InitBinding ||
        !copy.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      return failure();
  } else {
    return failure();
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(
          ranges, [](int64_t r) { return ShapedType::isDynamic(r) || r == 0; }))
    return failure();
  c.MDim = dims->m.front();
  c.NDim = dims->n.front();
  c.KDim = dims->k.front();
  c.M = ranges[c.MDim];
  c.N = ranges[c.NDim];
  c.K = ranges[c.KDim];
  if (!dims->batch.empty()) {
    c.BatchDim = dims->batch.front();
    c.Batch = ranges[c.BatchDim];
  }
  return c;
}

SmallVector<Value> applyToLoops(AffineMap map, ArrayRef<Value> loops) {
  SmallVector<Value> indices;
  for (AffineExpr e : map.getResults())
    indices.push_back(loops[cast<AffineDimExpr>(e).getPosition()]);
  return indices;
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

scf::ForallOp createWorkgroupLoop(OpBuilder &builder, Location loc,
                                  const Contraction &c, int64_t rows,
                                  int64_t columns) {
  MLIRContext *ctx = builder.getContext();
  SmallVector<Attribute> mapping;
  for (int i = 0; i < 3; ++i)
    mapping.push_back(gpu::GPUBlockMappingAttr::get(
        ctx, static_cast<gpu::MappingId>(
                 static_cast<uint64_t>(gpu::MappingId::LinearDim0) + i)));
  return scf::ForallOp::create(builder, loc,
                               getAsIndexOpFoldResult(ctx, {0, 0, 0}),
                               getAsIndexOpFoldResult(ctx, {c.Batch, c.M, c.N}),
                               getAsIndexOpFoldResult(ctx, {1, rows, columns}),
                               ValueRange{}, builder.getArrayAttr(mapping));
}

Value applyEpilogue(OpBuilder &builder, Location loc, const Contraction &c,
                    Value result, ArrayRef<Value> outIndices) {
  if (!c.Epilogue)
    return result;
  // The epilogue's loops are the output's dimensions.
  linalg::GenericOp epilogue = c.Epilogue;
  Block &body = epilogue.getRegion().front();
  IRMapping map;
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    BlockArgument arg = body.getArgument(input->getOperandNumber());
    Value binding = bindingOf(input->get());
    map.map(arg, binding
                     ? Value(memref::LoadOp::create(
                           builder, loc, binding,
                           applyToLoops(epilogue.getMatchingIndexingMap(input),
                                        outIndices)))
                     : result);
  }
  for (Operation &op : body.without_terminator())
    builder.clone(op, map);
  return map.lookupOrDefault(body.getTerminator()->getOperand(0));
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

} // namespace kiln
