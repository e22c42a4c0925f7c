//===- CudaBackend.cpp - --target-device=cuda -----------------------------===//

#include "compiler/codegen/gpu/GpuCodegen.h"
#include "compiler/codegen/gpu/GpuPipeline.h"
#include "compiler/target/TargetBackend.h"
#include "compiler/target/cuda/CudaTarget.h"
#include "compiler/target/cuda/LibdeviceCalls.h"

#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
namespace {

class CudaBackend final : public TargetBackend {
public:
  CudaBackend(CudaTarget target, bool requirePtxas, GpuCodegenOptions codegen)
      : Target(target), RequirePtxas(requirePtxas), Codegen(codegen) {}

  StringRef name() const override { return "cuda"; }

  void buildCodegenPipeline(OpPassManager &pm) const override {
    buildGpuCodegenPipeline(pm, Target.gpuTarget(), Codegen);
  }

  bool fusesAttention() const override {
    return hasAttentionKernel(Target.gpuTarget());
  }

  FailureOr<EntryPointInfo> entryPoint(ModuleOp lowered,
                                       StringRef name) const override {
    auto kernels = lowered.lookupSymbol<gpu::GPUModuleOp>(kGpuKernelModule);
    auto kernel =
        kernels ? kernels.lookupSymbol<gpu::GPUFuncOp>(name) : nullptr;
    if (!kernel)
      return lowered.emitError("dispatch ") << name << " has no kernel";
    return readEntryPointInfo(kernel, name);
  }

  FailureOr<std::vector<ExecutableVariantInfo>>
  serialize(ModuleOp lowered) const override {
    FailureOr<std::string> ptx = emitPtx(lowered);
    if (failed(ptx))
      return failure();
    std::vector<ExecutableVariantInfo> variants;
    auto addVariant = [&](StringRef format, std::vector<uint8_t> image) {
      ExecutableVariantInfo info;
      info.Format = format.str();
      info.Target = Target.Chip.str();
      info.Image = std::move(image);
      variants.push_back(std::move(info));
    };
    std::optional<std::string> ptxas = findPtxas();
    if (!ptxas && RequirePtxas)
      return lowered.emitError("--cuda-use-ptxas: no ptxas on PATH or in "
                               "/usr/local/cuda/bin");
    if (ptxas) {
      PtxasResult cubin = assembleCubin(*ptxas, *ptx, Target.Chip);
      if (cubin.Error.empty())
        addVariant("cuda-cubin", std::move(cubin.Cubin));
      else if (RequirePtxas || !cubin.UnsupportedChip)
        // A toolkit that does not know the chip leaves PTX only; any other
        // failure is a bug in the PTX, which the driver would meet too.
        return lowered.emitError(cubin.Error);
    }
    // cuModuleLoadData reads PTX as a NUL-terminated string.
    std::vector<uint8_t> text(ptx->begin(), ptx->end());
    text.push_back(0);
    addVariant("cuda-ptx", std::move(text));
    return variants;
  }

private:
  // Lowers the gpu.module through upstream NVVM to PTX text.
  FailureOr<std::string> emitPtx(ModuleOp lowered) const {
    MLIRContext *ctx = lowered.getContext();
    // Without it, ptxas refused every kernel using exp or tanh when the
    // environment named no toolkit ("Unresolved extern function
    // '__nv_fmaf'": the polynomials below use fma and floor).
    nameCudaToolkitForLibdevice();
    // exp, tanh, log and friends as polynomials, which need no libdevice;
    // fmod, which has no exact polynomial, as libdevice's.
    RewritePatternSet patterns(ctx);
    populateMathPolynomialApproximationPatterns(patterns);
    populateLibdeviceCallPatterns(patterns);
    if (failed(applyPatternsGreedily(lowered, std::move(patterns))))
      return failure();
    // A kernel that must share a multiprocessor with others of its kind
    // gets `.minnctapersm`, which keeps ptxas's register allocation to its
    // share of the file.
    lowered.walk([](gpu::GPUFuncOp kernel) {
      if (auto count =
              kernel->getAttrOfType<IntegerAttr>(kWorkgroupsPerProcessorAttr))
        kernel->setAttr(
            NVVM::NVVMDialect::getMinctasmAttrName(),
            IntegerAttr::get(IntegerType::get(kernel.getContext(), 32),
                             count.getInt()));
    });
    gpu::GPUToNVVMPipelineOptions options;
    options.cubinChip = Target.Chip.str();
    options.cubinFeatures = "+ptx" + std::to_string(Target.PtxVersion);
    options.cubinFormat = "isa";
    // One pointer per binding, which is what the runtime passes.
    options.kernelUseBarePtrCallConv = true;
    PassManager pm(ctx);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    // Upstream's NVVM pipeline leaves vector ops in kernels unconverted
    // (the contraction kernels build and read mma fragments with them).
    pm.addNestedPass<gpu::GPUModuleOp>(createConvertVectorToLLVMPass());
    gpu::buildLowerToNVVMPassPipeline(pm, options);
    if (failed(pm.run(lowered)))
      return failure();
    for (auto binary : lowered.getOps<gpu::BinaryOp>())
      for (Attribute object : binary.getObjects())
        if (auto ptx = dyn_cast<gpu::ObjectAttr>(object))
          return ptx.getObject().getValue().str();
    return lowered.emitError("the NVVM pipeline produced no PTX");
  }

  CudaTarget Target;
  bool RequirePtxas;
  GpuCodegenOptions Codegen;
};

} // namespace

FailureOr<std::unique_ptr<TargetBackend>>
createCudaBackend(Location loc, const CompileOptions &options) {
  std::optional<CudaTarget> target = resolveCudaTarget(options.CudaTarget);
  if (!target)
    return emitError(loc) << "unknown --cuda-target '" << options.CudaTarget
                          << "'; known: "
                          << llvm::join(knownCudaTargetNames(), ", ");
  return std::unique_ptr<TargetBackend>(std::make_unique<CudaBackend>(
      *target, options.RequirePtxas,
      GpuCodegenOptions{/*AllowTf32=*/options.Precision ==
                        CompileOptions::PrecisionMode::TF32}));
}

} // namespace kiln
