//===- CpuTarget.cpp - x86-64 shared objects ------------------------------===//

#include "compiler/target/cpu/CpuTarget.h"

#include "lld/Common/Driver.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/X86TargetParser.h"

#include <dlfcn.h>

LLD_HAS_DRIVER(elf)

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

// Removes a temporary file when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> Path;
  ~TempFile() {
    if (!Path.empty())
      llvm::sys::fs::remove(Path);
  }
};

FailureOr<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(Location loc, llvm::StringRef cpu) {
  static const bool initialized = [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
    return true;
  }();
  (void)initialized;
  llvm::Triple triple("x86_64-unknown-linux-gnu");
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc) << "x86-64 code generation is unavailable: " << error;
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, "", options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return emitError(loc) << "cannot create a target machine for " << cpu;
  return machine;
}

void optimize(llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager passes =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  passes.run(module, mam);
}

// The runtime dlopens the shared object with every symbol bound at once: a
// symbol that neither the object, compiler-rt's builtins linked into it,
// nor the C and math libraries every Kiln process has loaded define would
// make a module that compiles and never loads. This process has those same
// libraries, so each undefined symbol must resolve here too.
LogicalResult checkSymbolsResolve(Location loc,
                                  const llvm::MemoryBuffer &sharedObject) {
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> object =
      llvm::object::ObjectFile::createObjectFile(
          sharedObject.getMemBufferRef());
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
      createTargetMachine(loc, cpuName);
  if (failed(machine))
    return failure();
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  llvmModule->setDataLayout((*machine)->createDataLayout());
  optimize(*llvmModule, **machine);

  llvm::SmallVector<char, 0> object;
  {
    llvm::raw_svector_ostream os(object);
    llvm::legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile))
      return emitError(loc) << "x86-64 object emission is unavailable";
    codegen.run(*llvmModule);
  }

  TempFile objectFile, sharedFile;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("kiln", "o", fd, objectFile.Path))
    return emitError(loc) << "cannot create a temporary object file";
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os.write(object.data(), object.size());
  }
  if (llvm::sys::fs::createTemporaryFile("kiln", "so", sharedFile.Path))
    return emitError(loc) << "cannot create a temporary shared object";

  std::string linkLog;
  llvm::raw_string_ostream logStream(linkLog);
  const char *args[] = {"ld.lld",
                        "-shared",
                        "--build-id=none",
                        "-z",
                        "noexecstack",
                        "--strip-all",
                        "-o",
                        sharedFile.Path.c_str(),
                        objectFile.Path.c_str(),
                        KILN_COMPILER_RT_BUILTINS};
  lld::Result linked =
      lld::lldMain(args, logStream, logStream, {{lld::Gnu, &lld::elf::link}});
  if (linked.retCode != 0)
    return emitError(loc) << "linking the CPU shared object failed: "
                          << linkLog;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(sharedFile.Path, /*IsText=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read the linked shared object";
  if (failed(checkSymbolsResolve(loc, **buffer)))
    return failure();
  llvm::StringRef bytes = (*buffer)->getBuffer();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

} // namespace kiln
