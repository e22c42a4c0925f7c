//===- Pipeline.cpp - kiln-compile's phases -------------------------------===//

#include "compiler/Pipeline.h"
#include "compiler/Passes.h"
#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/host/HostPlan.h"
#include "compiler/module/ModuleWriter.h"
#include "compiler/target/TargetBackend.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Linalg/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Transforms/TilingInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/TensorInferTypeOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/TensorTilingInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/SubsetInsertionOpInterfaceImpl.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kiln {

void registerCompilerDialects(DialectRegistry &registry) {
  registry.insert<affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, cf::ControlFlowDialect,
                  func::FuncDialect, index::IndexDialect, linalg::LinalgDialect,
                  LLVM::LLVMDialect, math::MathDialect, memref::MemRefDialect,
                  scf::SCFDialect, tensor::TensorDialect, tosa::TosaDialect,
                  ub::UBDialect, vector::VectorDialect>();
  // Bounds of partial tiles, which size their masked vectors.
  affine::registerValueBoundsOpInterfaceExternalModels(registry);
  arith::registerValueBoundsOpInterfaceExternalModels(registry);
  linalg::registerValueBoundsOpInterfaceExternalModels(registry);
  scf::registerValueBoundsOpInterfaceExternalModels(registry);
  tensor::registerValueBoundsOpInterfaceExternalModels(registry);
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerSubsetOpInterfaceExternalModels(registry);
  linalg::registerTilingInterfaceExternalModels(registry);
  memref::registerAllocationOpInterfaceExternalModels(registry);
  tensor::registerInferTypeOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerSubsetOpInterfaceExternalModels(registry);
  tensor::registerTilingInterfaceExternalModels(registry);
  vector::registerBufferizableOpInterfaceExternalModels(registry);
  // func.call is accepted input: the inliner must be able to inline func
  // ops, whose inliner interface is a registry extension.
  func::registerInlinerExtension(registry);
  registerTargetBackendDialects(registry);
}

void buildInputPipeline(OpPassManager &pm) {
  pm.addPass(createVerifyInput());
  pm.addPass(createInlinerPass());
  pm.addNestedPass<func::FuncOp>(createTosaUnrollWhileLoops());
  pm.addPass(createTosaOutlineControlFlow());
  pm.addNestedPass<func::FuncOp>(createTosaCondIfToSelect());
  // Kiln accepts every element type its back ends handle, not only the TOSA
  // profiles', so TOSA's profile validation stays off.
  tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions{},
                              TosaToLinalgNamedOptions{}, std::nullopt);
  pm.addNestedPass<func::FuncOp>(createTosaToArithPass());
  pm.addNestedPass<func::FuncOp>(createTosaConcatToTensor());
  pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
  // After TOSA's lowering, which turns tosa.rescale into tosa.apply_scale.
  pm.addNestedPass<func::FuncOp>(createLowerInputOps());
  // arith and math ops applied to whole tensors (the input's, or the
  // expansions') become linalg.generic, the form every back end handles.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createDecomposeOps());
  // Last, on the canonical form: each phase then goes through everything
  // after as a function of its own.
  pm.addPass(createSplitPhases());
}

void buildGlobalOptPipeline(OpPassManager &pm,
                            const GlobalOptOptions &options) {
  // First, so no later pass works on what no one reads.
  pm.addNestedPass<func::FuncOp>(createSliceProducers());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createConvertConvLayout());
  if (options.ChannelsLast) {
    pm.addNestedPass<func::FuncOp>(createConvertToChannelsLast());
    pm.addPass(createCanonicalizerPass());
  }
  if (options.PadConvChannels) {
    pm.addNestedPass<func::FuncOp>(createPadConvChannels());
    pm.addPass(createCanonicalizerPass());
  }
  // Before fusion, so each operand's rounding merges into what computes it.
  if (!options.DemoteTo.empty())
    pm.addNestedPass<func::FuncOp>(
        createDemoteContractions({options.DemoteTo}));
  pm.addPass(createFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (options.SplitReductions) {
    pm.addNestedPass<func::FuncOp>(createSplitReduction());
    pm.addPass(createCanonicalizerPass());
  }
}

void buildDispatchPipeline(OpPassManager &pm, const DispatchOptions &options) {
  pm.addPass(createFormDispatches(
      {/*fuseInputPads=*/options.FuseInputPads,
       /*fuseDynamicInputPads=*/options.FuseDynamicInputPads,
       /*fuseRows=*/options.FuseRows,
       /*fuseAttention=*/options.FuseAttention,
       /*fusePermutedEpilogues=*/options.FusePermutedEpilogues}));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // On canonical bodies (constants folded and uniqued), so equal dispatches
  // look equal; each entry point is compiled once however often it runs.
  pm.addPass(createDedupeDispatches());
  // After CSE, which may have made two values passing between phases one.
  pm.addPass(createDedupePhaseOutputs());
  pm.addPass(createHoistDispatchScalars());
  if (options.RowVariants)
    pm.addPass(createRowVariants());
}

namespace {

LogicalResult runPhase(ModuleOp module, const CompileOptions &options,
                       StringRef name,
                       llvm::function_ref<void(OpPassManager &)> build) {
  if (options.Progress)
    options.Progress(name);
  PassManager pm(module.getContext());
  // Honors --mlir-print-ir-after-all and friends when a tool registered them.
  if (failed(applyPassManagerCLOptions(pm)))
    return failure();
  build(pm);
  return pm.run(module);
}

} // namespace

// Splitting reductions pays on GPUs, which need many workgroups; every
// target shares the dispatches, so a CPU among them keeps them whole.
static bool onlyGpuTargets(ArrayRef<std::string> devices) {
  return llvm::all_of(devices, [](const std::string &d) {
    const TargetBackendInfo *info = findTargetBackend(d);
    return info && info->IsGpu;
  });
}

ArrayRef<StringRef> supportedTargetDevices() {
  static const std::vector<StringRef> kDevices = [] {
    std::vector<StringRef> names;
    for (const TargetBackendInfo &info : targetBackendRegistry())
      names.push_back(info.Name);
    for (const TargetBackendInfo &info : targetBackendRegistry())
      llvm::append_range(names, info.Aliases);
    return names;
  }();
  return kDevices;
}

namespace {

// One backend per --target-device, or an error naming what is unknown.
FailureOr<std::vector<std::unique_ptr<TargetBackend>>>
createBackends(Location loc, const CompileOptions &options) {
  std::vector<std::unique_ptr<TargetBackend>> backends;
  if (options.TargetDevices.empty())
    return emitError(loc) << "no target device given";
  for (const std::string &device : options.TargetDevices) {
    const TargetBackendInfo *info = findTargetBackend(device);
    if (!info)
      return emitError(loc) << "target device '" << device
                            << "' is not supported yet; supported: "
                            << llvm::join(supportedTargetDevices(), ", ");
    FailureOr<std::unique_ptr<TargetBackend>> backend =
        info->Create(loc, options);
    if (failed(backend))
      return failure();
    backends.push_back(std::move(*backend));
  }
  return backends;
}

// Writes `variant`'s image into `dir` as <backend>_<target>.<format>.
LogicalResult dumpBinary(Location loc, StringRef dir,
                         const TargetBackend &backend,
                         const ExecutableVariantInfo &variant) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, backend.name() + "_" + variant.Target + "." +
                                    variant.Format);
  std::error_code error;
  llvm::raw_fd_ostream out(path, error);
  if (!error) {
    out.write(reinterpret_cast<const char *>(variant.Image.data()),
              variant.Image.size());
    out.close();
    error = out.error();
  }
  if (error)
    return emitError(loc) << "cannot write " << path << ": " << error.message();
  return success();
}

// Lowers the dispatches with `backend`; its variants, with their entry
// points in dispatch order.
FailureOr<std::vector<ExecutableVariantInfo>>
compileDispatches(Location loc, ArrayRef<func::FuncOp> dispatches,
                  const TargetBackend &backend, const CompileOptions &options) {
  OwningOpRef<ModuleOp> codegen = ModuleOp::create(loc);
  OpBuilder builder = OpBuilder::atBlockEnd(codegen->getBody());
  for (func::FuncOp func : dispatches)
    builder.clone(*func);
  if (failed(runPhase(
          *codegen, options, ("codegen (" + backend.name() + ")").str(),
          [&](OpPassManager &pm) { backend.buildCodegenPipeline(pm); })))
    return failure();
  std::vector<EntryPointInfo> entries;
  for (func::FuncOp func : dispatches) {
    FailureOr<EntryPointInfo> entry =
        backend.entryPoint(*codegen, func.getSymName());
    if (failed(entry))
      return failure();
    entries.push_back(std::move(*entry));
  }
  if (options.Progress)
    options.Progress(("target (" + backend.name() + ")").str());
  FailureOr<std::vector<ExecutableVariantInfo>> variants =
      backend.serialize(*codegen);
  if (failed(variants))
    return failure();
  for (ExecutableVariantInfo &variant : *variants) {
    variant.EntryPoints = entries;
    if (!options.DumpBinariesDir.empty() &&
        failed(dumpBinary(loc, options.DumpBinariesDir, backend, variant)))
      return failure();
  }
  return variants;
}

} // namespace

FailureOr<std::vector<uint8_t>>
compileToModuleFile(ModuleOp module, const CompileOptions &options) {
  Location loc = module.getLoc();
  FailureOr<std::vector<std::unique_ptr<TargetBackend>>> backends =
      createBackends(loc, options);
  if (failed(backends))
    return failure();
  if (failed(runPhase(module, options, "input", buildInputPipeline)) ||
      failed(runPhase(module, options, "globalopt",
                      [&](OpPassManager &pm) {
                        bool gpus = onlyGpuTargets(options.TargetDevices);
                        using Layout = CompileOptions::ConvLayout;
                        bool channelsLast =
                            options.Convolutions == Layout::Auto
                                ? gpus
                                : options.Convolutions == Layout::ChannelsLast;
                        using Mode = CompileOptions::PrecisionMode;
                        std::string demoteTo =
                            options.Precision == Mode::F16    ? "f16"
                            : options.Precision == Mode::BF16 ? "bf16"
                                                              : "";
                        buildGlobalOptPipeline(pm,
                                               {/*ChannelsLast=*/channelsLast,
                                                /*SplitReductions=*/gpus,
                                                /*DemoteTo=*/demoteTo,
                                                /*PadConvChannels=*/gpus});
                      })) ||
      failed(runPhase(module, options, "dispatch", [&](OpPassManager &pm) {
        bool gpus = onlyGpuTargets(options.TargetDevices);
        bool attention = llvm::all_of(
            *backends, [](const std::unique_ptr<TargetBackend> &backend) {
              return backend->fusesAttention();
            });
        bool dynamicPads = llvm::all_of(
            *backends, [](const std::unique_ptr<TargetBackend> &backend) {
              return backend->fusesDynamicInputPads();
            });
        buildDispatchPipeline(pm, {/*FuseInputPads=*/gpus,
                                   /*FuseDynamicInputPads=*/dynamicPads,
                                   /*FuseRows=*/gpus,
                                   /*FuseAttention=*/attention,
                                   /*FusePermutedEpilogues=*/gpus,
                                   /*RowVariants=*/gpus});
      })))
    return failure();

  if (options.Progress)
    options.Progress("host");
  ConstantPool pool;
  std::vector<HostPlan> plans;
  SmallVector<func::FuncOp> dispatches;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (isDispatchFunc(func)) {
      dispatches.push_back(func);
      continue;
    }
    if (func.isExternal() || func.isPrivate())
      continue;
    FailureOr<HostPlan> plan = planHostFunction(func, pool);
    if (failed(plan))
      return failure();
    plans.push_back(std::move(*plan));
  }
  // Functions split into phases (kiln-split-phases) are no functions of
  // the IR any more: their plans name their phases.
  FailureOr<std::vector<PhaseChain>> chains = phaseChainsOf(module);
  if (failed(chains))
    return failure();
  for (const PhaseChain &chain : *chains)
    plans.push_back(planPhasedFunction(chain));
  if (plans.empty())
    return emitError(loc) << "the module has no public function to export";

  std::vector<ExecutableVariantInfo> variants;
  if (!dispatches.empty()) {
    for (const std::unique_ptr<TargetBackend> &backend : *backends) {
      FailureOr<std::vector<ExecutableVariantInfo>> backendVariants =
          compileDispatches(loc, dispatches, *backend, options);
      if (failed(backendVariants))
        return failure();
      for (ExecutableVariantInfo &variant : *backendVariants)
        variants.push_back(std::move(variant));
    }
  }

  if (options.Progress)
    options.Progress("module");
  return writeModule(loc, plans, variants, pool.data());
}

} // namespace kiln
