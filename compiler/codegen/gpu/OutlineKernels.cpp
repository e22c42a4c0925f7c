//===- OutlineKernels.cpp - Dispatch functions to gpu.func kernels --------===//

#include "compiler/Passes.h"
#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/codegen/gpu/GpuTarget.h"
#include "compiler/codegen/gpu/LoweringConfig.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/PushConstants.h"

#include "mlir/IR/IRMapping.h"

namespace kiln {
#define GEN_PASS_DEF_GPUOUTLINEKERNELS
#include "compiler/Passes.h.inc"
} // namespace kiln

using namespace mlir;

namespace kiln {

FailureOr<gpu::GPUFuncOp>
outlineKernel(func::FuncOp func, gpu::GPUModuleOp kernels, bool earlyLaunch) {
  auto size = func->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupSizeAttr);
  auto count = func->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupCountAttr);
  if (!size || size.size() != 3 || !count || func.getNumArguments() < 3 ||
      !func.getBody().hasOneBlock())
    return func.emitError("dispatch is not distributed; run "
                          "kiln-distribute-to-workgroups and "
                          "kiln-gpu-distribute-to-threads first");
  // A kernel has no allocator: a temporary that did not fit on the stack
  // would be a malloc per thread.
  WalkResult heap = func.walk([](memref::AllocOp alloc) {
    alloc.emitError("GPU kernels cannot allocate a ")
        << alloc.getType() << " temporary yet";
    return WalkResult::interrupt();
  });
  if (heap.wasInterrupted())
    return failure();

  MLIRContext *ctx = func.getContext();
  // A grid computed per dispatch (issue 19) reads the words of its
  // arguments.
  DenseI64ArrayAttr gridProgram = renumberGridProgram(func);
  auto gridNodes =
      func->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupCountNodesAttr);
  // Scalar arguments arrive as push constant words: one .u32 kernel
  // parameter each, after the binding pointers.
  unsigned numPushConstants = replaceScalarArgumentsByWords(func);
  Block &body = func.getBody().front();
  unsigned numParameters = func.getNumArguments() - 3;
  unsigned numBindings = numParameters - numPushConstants;
  if (!llvm::all_of(func.getArgumentTypes().take_front(numBindings),
                    [](Type t) { return isa<MemRefType>(t); }))
    return func.emitError("dispatch arguments must be bindings, push "
                          "constants and the workgroup ids");
  SmallVector<Type> parameterTypes(
      func.getArgumentTypes().take_front(numParameters));
  OpBuilder builder = OpBuilder::atBlockEnd(kernels.getBody());
  Location loc = func.getLoc();
  auto kernel =
      gpu::GPUFuncOp::create(builder, loc, func.getSymName(),
                             FunctionType::get(ctx, parameterTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  builder.getUnitAttr());
  SmallVector<int32_t> blockSize(size.asArrayRef());
  kernel.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(blockSize));
  // What the module writer records for this entry point.
  kernel->setAttr(kWorkgroupSizeAttr, size);
  kernel->setAttr(kWorkgroupCountAttr, count);
  if (gridProgram && gridNodes) {
    kernel->setAttr(kWorkgroupCountProgramAttr, gridProgram);
    kernel->setAttr(kWorkgroupCountNodesAttr, gridNodes);
  }
  kernel->setAttr(kBindingCountAttr, builder.getI32IntegerAttr(numBindings));
  kernel->setAttr(kPushConstantCountAttr,
                  builder.getI32IntegerAttr(numPushConstants));
  // The launch provides what the kernel takes of gpu.dynamic_shared_memory.
  if (Attribute shared = func->getAttr(kSharedMemoryBytesAttr))
    kernel->setAttr(kSharedMemoryBytesAttr, shared);
  // The back end translates it into its own attribute.
  if (Attribute occupancy = func->getAttr(kWorkgroupsPerProcessorAttr))
    kernel->setAttr(kWorkgroupsPerProcessorAttr, occupancy);
  // Every kernel may then be launched early: the back end makes waiting
  // for its prerequisites its first act.
  if (earlyLaunch)
    kernel->setAttr(kWaitsForPrerequisitesAttr, builder.getUnitAttr());
  // How it was lowered, for whoever reads the kernel.
  if (DictionaryAttr config = getLoweringConfig(func))
    kernel->setAttr(kLoweringConfigAttr, config);

  Block &kernelBody = kernel.getBody().front();
  builder.setInsertionPointToStart(&kernelBody);
  IRMapping mapping;
  for (unsigned i = 0; i < numParameters; ++i)
    mapping.map(body.getArgument(i), kernelBody.getArgument(i));
  const gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                                 gpu::Dimension::z};
  for (unsigned i = 0; i < 3; ++i)
    mapping.map(body.getArgument(numParameters + i),
                gpu::BlockIdOp::create(builder, loc, dims[i]));
  for (Operation &op : body) {
    if (isa<func::ReturnOp>(op))
      gpu::ReturnOp::create(builder, op.getLoc());
    else
      builder.clone(op, mapping);
  }
  // Shared-memory buffers (workgroup-space memref.globals) move with the
  // kernels that use them.
  SmallVector<memref::GlobalOp> globals;
  kernel.walk([&](memref::GetGlobalOp get) {
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        func, get.getNameAttr());
    if (global && !llvm::is_contained(globals, global))
      globals.push_back(global);
  });
  // They are static shared memory, part of the kernel image: the entry
  // point's shared memory (dynamic, given at launch) stays 0.
  for (memref::GlobalOp global : globals)
    global->moveBefore(kernels.getBody(), kernels.getBody()->begin());
  func.erase();
  return kernel;
}

namespace {

struct GpuOutlineKernelsPass
    : impl::GpuOutlineKernelsBase<GpuOutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> dispatches;
    for (auto func : module.getOps<func::FuncOp>())
      if (isDispatchFunc(func))
        dispatches.push_back(func);
    if (dispatches.empty())
      return;
    // Without a target (a test of outlining alone) kernels launch after
    // their prerequisites.
    bool earlyLaunch = false;
    if (auto attr = module->getAttrOfType<DictionaryAttr>(kGpuTargetAttr)) {
      FailureOr<GpuTarget> target = GpuTarget::fromAttr(attr, module);
      if (failed(target))
        return signalPassFailure();
      earlyLaunch = target->EarlyLaunch;
    }
    OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
    auto kernels =
        gpu::GPUModuleOp::create(builder, module.getLoc(), kGpuKernelModule);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    builder.getUnitAttr());
    for (func::FuncOp func : dispatches)
      if (failed(outlineKernel(func, kernels, earlyLaunch)))
        return signalPassFailure();
  }
};

} // namespace
} // namespace kiln
