//===- CudaBackend.cpp - --target-device=cuda -----------------------------===//

#include "compiler/target/ChipTable.h"
#include "compiler/target/cuda/CudaTarget.h"
#include "compiler/target/gpu/DeviceLibraryCalls.h"
#include "compiler/target/gpu/GpuBackend.h"

#include "compiler/dispatch/DispatchRegions.h"

#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

using namespace mlir;

namespace kiln {
namespace {

class CudaBackend final : public GpuBackend {
public:
  CudaBackend(CudaTarget target, bool requirePtxas, GpuCodegenOptions codegen)
      : GpuBackend(target.gpuTarget(), codegen), Target(target),
        RequirePtxas(requirePtxas) {}

  StringRef name() const override { return "cuda"; }

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
    if (failed(lowerKernelMath(lowered, kLibdeviceNames)))
      return failure();
    // A kernel that must share a multiprocessor with others of its kind
    // gets `.minnctapersm`, which keeps ptxas's register allocation to its
    // share of the file.
    lowered.walk([](gpu::GPUFuncOp kernel) {
      // A kernel launched early (a programmatic dependency in the runtime's
      // graph) touches no memory before its prerequisites are done and
      // their writes visible; launched normally, the wait returns at once.
      if (kernel->hasAttr(kWaitsForPrerequisitesAttr)) {
        auto b = OpBuilder::atBlockBegin(&kernel.getBody().front());
        NVVM::GriddepcontrolOp::create(b, kernel.getLoc(),
                                       NVVM::GridDepActionKind::wait);
      }
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
};

} // namespace

FailureOr<std::unique_ptr<TargetBackend>>
createCudaBackend(Location loc, const CompileOptions &options) {
  std::optional<CudaTarget> target = resolveCudaTarget(options.CudaTarget);
  if (!target)
    return emitError(loc) << unknownChipMessage(
               "cuda-target", options.CudaTarget, knownCudaTargetNames());
  return std::unique_ptr<TargetBackend>(std::make_unique<CudaBackend>(
      *target, options.RequirePtxas, gpuCodegenOptions(options)));
}

} // namespace kiln
