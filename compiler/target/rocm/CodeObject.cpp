//===- CodeObject.cpp -----------------------------------------------------===//

#include "compiler/target/rocm/CodeObject.h"
#include "compiler/target/LlvmObject.h"
#include "compiler/target/rocm/ControlVariables.h"
#include "compiler/target/rocm/DeviceLibraries.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/ROCDL/ROCDLToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Transforms/IPO/Internalize.h"

using namespace mlir;

namespace kiln {
namespace {

// Collects the errors LLVM reports through its context (the linker's, the
// back end's: LDS or registers beyond the chip's), which would otherwise
// print and end the process.
struct LlvmErrors {
  std::string Text;

  static void handle(const llvm::DiagnosticInfo *info, void *context) {
    if (info->getSeverity() != llvm::DS_Error)
      return;
    auto *errors = static_cast<LlvmErrors *>(context);
    llvm::raw_string_ostream os(errors->Text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    if (!errors->Text.empty())
      os << "; ";
    info->print(printer);
  }
};

} // namespace

FailureOr<std::vector<uint8_t>> buildAmdgpuCodeObject(gpu::GPUModuleOp kernels,
                                                      const HipTarget &target,
                                                      StringRef bitcodeDir) {
  Location loc = kernels.getLoc();
  MLIRContext *context = kernels.getContext();
  registerBuiltinDialectTranslation(*context);
  registerGPUDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);
  registerROCDLDialectTranslation(*context);
  initializeLlvmTarget<LLVMInitializeAMDGPUTargetInfo,
                       LLVMInitializeAMDGPUTarget, LLVMInitializeAMDGPUTargetMC,
                       LLVMInitializeAMDGPUAsmPrinter>();

  llvm::LLVMContext llvmContext;
  LlvmErrors errors;
  llvmContext.setDiagnosticHandlerCallBack(LlvmErrors::handle, &errors);
  std::unique_ptr<llvm::Module> module =
      translateModuleToLLVMIR(kernels, llvmContext, "kiln_kernels");
  if (!module)
    return emitError(loc) << "failed to translate the kernels to LLVM IR";
  // The wavefront size code generation assumed (subgroup shuffles, the
  // reductions' partials) is the one the code runs in: wave64 on GCN and
  // CDNA, wave32 on RDNA.
  std::string features =
      target.WavefrontSize == 64 ? "+wavefrontsize64" : "+wavefrontsize32";
  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createTargetMachine(loc, "amdgcn-amd-amdhsa", target.Chip, features);
  if (failed(machine))
    return failure();
  setTargetOf(*module, **machine);
  module->addModuleFlag(llvm::Module::Error, "amdhsa_code_object_version",
                        kAmdgpuCodeObjectVersion);
  if (failed(linkDeviceLibraries(loc, *module, bitcodeDir)) ||
      failed(defineControlVariables(loc, *module, target.Chip,
                                    target.WavefrontSize)))
    return failure();
  if (!errors.Text.empty())
    return emitError(loc) << errors.Text;
  llvm::internalizeModule(*module, [](const llvm::GlobalValue &value) {
    auto *function = dyn_cast<llvm::Function>(&value);
    return function &&
           function->getCallingConv() == llvm::CallingConv::AMDGPU_KERNEL;
  });
  optimizeModule(*module, **machine);
  FailureOr<llvm::SmallVector<char, 0>> object =
      emitObject(loc, *module, **machine);
  if (!errors.Text.empty())
    return emitError(loc) << "AMDGPU code generation for " << target.Chip
                          << " failed: " << errors.Text;
  if (failed(object))
    return failure();
  // No undefined symbol: a code object is loaded with nothing to bind
  // against.
  FailureOr<std::unique_ptr<llvm::MemoryBuffer>> linked =
      linkSharedObject(loc, "AMDGPU code object", *object,
                       {"--no-undefined", "--build-id=none"});
  if (failed(linked))
    return failure();
  StringRef bytes = (*linked)->getBuffer();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

} // namespace kiln
