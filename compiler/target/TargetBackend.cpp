//===- TargetBackend.cpp --------------------------------------------------===//

#include "compiler/target/TargetBackend.h"
#include "compiler/target/cuda/CudaTarget.h"
#include "compiler/target/rocm/HipTarget.h"

#include "compiler/dispatch/DispatchRegions.h"
#include "compiler/dispatch/PushConstants.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"

using namespace mlir;

namespace kiln {

ArrayRef<TargetBackendInfo> targetBackendRegistry() {
  // ROCm's names for AMD GPUs: the HIP runtime's, the ROCm toolkit's
  // (IREE's --iree-hal-target-backends=rocm) and LLVM's target's.
  static const llvm::StringLiteral kHipAliases[] = {"rocm", "amdgpu"};
  static const TargetBackendInfo kBackends[] = {
      {"cpu", /*IsGpu=*/false, createCpuBackend},
      {"cuda", /*IsGpu=*/true, createCudaBackend},
      {"hip", /*IsGpu=*/true, createRocmBackend, kHipAliases},
  };
  return kBackends;
}

// A vendor table's lookup as the vendor-neutral resolver signature.
template <auto Resolve>
static std::optional<GpuTarget> describeChip(StringRef name) {
  if (auto target = Resolve(name))
    return target->gpuTarget();
  return std::nullopt;
}

void registerGpuTargetTables() {
  // The tables' names are disjoint (sm_* and NVIDIA products; gfx*, AMD code
  // names and products), so the order they are asked in does not matter.
  registerGpuTargetResolver(describeChip<resolveCudaTarget>,
                            knownCudaTargetNames);
  registerGpuTargetResolver(describeChip<resolveHipTarget>,
                            knownHipTargetNames);
}

const TargetBackendInfo *findTargetBackend(StringRef name) {
  for (const TargetBackendInfo &info : targetBackendRegistry())
    if (info.Name == name || llvm::is_contained(info.Aliases, name))
      return &info;
  return nullptr;
}

TargetBackend::~TargetBackend() = default;

void registerTargetBackendDialects(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect, ROCDL::ROCDLDialect,
                  amdgpu::AMDGPUDialect>();
  // The NVVM and ROCDL lowerings (convert-gpu-to-nvvm and the host-side
  // conversions) collects its patterns from these interfaces.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  // gpu-module-to-binary: the #nvvm.target attribute, and translating the
  // kernels to LLVM IR for the NVPTX back end.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  registerROCDLDialectTranslation(registry);
}

FailureOr<EntryPointInfo> readEntryPointInfo(Operation *op, StringRef name) {
  auto count = op->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupCountAttr);
  auto bindings = op->getAttrOfType<IntegerAttr>(kBindingCountAttr);
  if (!count || count.size() != 3 || !bindings)
    return op->emitError("dispatch ")
           << name << " has no lowered entry point metadata";
  EntryPointInfo entry;
  entry.Name = name.str();
  entry.BindingCount = static_cast<uint32_t>(bindings.getInt());
  for (unsigned i = 0; i < 3; ++i)
    entry.WorkgroupCount[i] = static_cast<uint32_t>(count[i]);
  if (auto size = op->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupSizeAttr)) {
    if (size.size() != 3)
      return op->emitError("dispatch ")
             << name << " has a malformed " << kWorkgroupSizeAttr;
    for (unsigned i = 0; i < 3; ++i)
      entry.WorkgroupSize[i] = static_cast<uint32_t>(size[i]);
  }
  if (auto push = op->getAttrOfType<IntegerAttr>(kPushConstantCountAttr))
    entry.PushConstantCount = static_cast<uint32_t>(push.getInt());
  if (auto shared = op->getAttrOfType<IntegerAttr>(kSharedMemoryBytesAttr))
    entry.SharedMemoryBytes = static_cast<uint32_t>(shared.getInt());
  entry.WaitsForPrerequisites = op->hasAttr(kWaitsForPrerequisitesAttr);
  auto program =
      op->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupCountProgramAttr);
  auto nodes = op->getAttrOfType<DenseI64ArrayAttr>(kWorkgroupCountNodesAttr);
  if (program && nodes) {
    if (program.size() % 3 != 0 || nodes.size() != 3)
      return op->emitError("dispatch ")
             << name << " has a malformed " << kWorkgroupCountProgramAttr;
    for (int64_t i = 0; i < program.size(); i += 3)
      entry.WorkgroupCountProgram.push_back(
          {static_cast<schema::ShapeOpcode>(program[i]), program[i + 1],
           program[i + 2]});
    for (unsigned i = 0; i < 3; ++i)
      entry.WorkgroupCountNodes[i] = static_cast<uint32_t>(nodes[i]);
  }
  return entry;
}

} // namespace kiln
