//===- CpuTarget.cpp - x86-64 shared objects ------------------------------===//

#include "compiler/target/cpu/CpuTarget.h"
#include "compiler/target/LlvmObject.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/X86TargetParser.h"

#include <dlfcn.h>

using namespace mlir;

namespace kiln {

llvm::ArrayRef<llvm::StringRef> knownCpuTargets() {
  static const llvm::StringRef targets[] = {"host", "x86-64", "x86-64-v2",
                                            "x86-64-v3", "x86-64-v4"};
  return targets;
}

std::string resolveCpuTarget(llvm::StringRef target) {
  if (target != "host")
    return target.str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  auto has = [&](const char *f) { return features.lookup(f); };
  if (has("avx512f") && has("avx512bw") && has("avx512dq") && has("avx512vl") &&
      has("avx512cd"))
    return "x86-64-v4";
  if (has("avx2") && has("fma") && has("bmi2") && has("f16c"))
    return "x86-64-v3";
  if (has("sse4.2") && has("popcnt") && has("ssse3"))
    return "x86-64-v2";
  return "x86-64";
}

namespace {

FailureOr<std::unique_ptr<llvm::TargetMachine>>
createX86TargetMachine(Location loc, llvm::StringRef cpu) {
  initializeLlvmTarget<LLVMInitializeX86TargetInfo, LLVMInitializeX86Target,
                       LLVMInitializeX86TargetMC,
                       LLVMInitializeX86AsmPrinter>();
  return createTargetMachine(loc, "x86_64-unknown-linux-gnu", cpu, "");
}

// The runtime dlopens the shared object with every symbol bound at once: a
// symbol that neither the object, compiler-rt's builtins linked into it,
// nor the C and math libraries every Kiln process has loaded define would
// make a module that compiles and never loads. This process has those same
// libraries, so each undefined symbol must resolve here too.
LogicalResult checkSymbolsResolve(Location loc,
                                  llvm::MemoryBufferRef sharedObject) {
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> object =
      llvm::object::ObjectFile::createObjectFile(sharedObject);
  if (!object)
    return emitError(loc) << "cannot read the linked shared object: "
                          << llvm::toString(object.takeError());
  auto *elf = dyn_cast<llvm::object::ELFObjectFileBase>(object->get());
  if (!elf)
    return emitError(loc) << "the linked shared object is not ELF";
  for (const llvm::object::ELFSymbolRef &symbol :
       elf->getDynamicSymbolIterators()) {
    llvm::Expected<uint32_t> flags = symbol.getFlags();
    if (!flags) {
      llvm::consumeError(flags.takeError());
      continue;
    }
    if (!(*flags & llvm::object::SymbolRef::SF_Undefined) ||
        (*flags & llvm::object::SymbolRef::SF_Weak))
      continue;
    llvm::Expected<llvm::StringRef> name = symbol.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (name->empty())
      continue;
    if (!::dlsym(RTLD_DEFAULT, name->str().c_str()))
      return emitError(loc)
             << "the CPU code calls '" << *name
             << "', which no library the runtime loads defines (the module "
                "would not load)";
  }
  return success();
}

/// LLVM's loop strength reduction took 989 of a 1000-second compile: a
/// detector's dispatch concatenating 90 per-class tensors holds 90 copy
/// loops whose offsets are running sums of extents known per call, and
/// LSR's formulae over those sums grow with every loop (12 s for such a
/// concat alone, 2 s without LSR). On the CPU kernels it measured nothing
/// (MobileNetV2 and the encoder, local-task: within noise), so the CPU
/// object is emitted without it. Its switch is a process-wide LLVM option,
/// `-disable-lsr`: set only around the emission, and restored.
class WithoutLoopStrengthReduction {
public:
  WithoutLoopStrengthReduction() {
    auto &options = llvm::cl::getRegisteredOptions();
    auto it = options.find("disable-lsr");
    if (it == options.end())
      return;
    Flag = static_cast<llvm::cl::opt<bool> *>(it->second);
    Before = Flag->getValue();
    Flag->setValue(true);
  }
  ~WithoutLoopStrengthReduction() {
    if (Flag)
      Flag->setValue(Before);
  }

private:
  llvm::cl::opt<bool> *Flag = nullptr;
  bool Before = false;
};

} // namespace

FailureOr<std::vector<uint8_t>> buildCpuSharedObject(ModuleOp module,
                                                     llvm::StringRef cpu) {
  Location loc = module.getLoc();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "kiln_dispatches");
  if (!llvmModule)
    return emitError(loc) << "failed to translate dispatches to LLVM IR";

  std::string cpuName = resolveCpuTarget(cpu);
  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createX86TargetMachine(loc, cpuName);
  if (failed(machine))
    return failure();
  setTargetOf(*llvmModule, **machine);
  optimizeModule(*llvmModule, **machine);
  WithoutLoopStrengthReduction noLsr;
  FailureOr<llvm::SmallVector<char, 0>> object =
      emitObject(loc, *llvmModule, **machine);
  if (failed(object))
    return failure();
  FailureOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      linkSharedObject(loc, "CPU shared object", *object,
                       {"--build-id=none", "-z", "noexecstack", "--strip-all"},
                       {KILN_COMPILER_RT_BUILTINS});
  if (failed(buffer) ||
      failed(checkSymbolsResolve(loc, (*buffer)->getMemBufferRef())))
    return failure();
  llvm::StringRef bytes = (*buffer)->getBuffer();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

} // namespace kiln
