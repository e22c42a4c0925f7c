//===- LlvmObject.cpp -----------------------------------------------------===//

#include "compiler/target/LlvmObject.h"

#include "lld/Common/Driver.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

LLD_HAS_DRIVER(elf)

using namespace mlir;

namespace kiln {
namespace {

// Removes a temporary file when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> Path;
  ~TempFile() {
    if (!Path.empty())
      llvm::sys::fs::remove(Path);
  }
};

} // namespace

FailureOr<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(Location loc, StringRef tripleName, StringRef cpu,
                    StringRef features) {
  llvm::Triple triple(tripleName);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc) << tripleName
                          << " code generation is unavailable: " << error;
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return emitError(loc) << "cannot create a target machine for " << cpu;
  return machine;
}

void setTargetOf(llvm::Module &module, const llvm::TargetMachine &machine) {
  module.setTargetTriple(machine.getTargetTriple());
  module.setDataLayout(machine.createDataLayout());
}

void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine) {
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

FailureOr<llvm::SmallVector<char, 0>>
emitObject(Location loc, llvm::Module &module, llvm::TargetMachine &machine) {
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return emitError(loc) << machine.getTargetTriple().str()
                          << " object emission is unavailable";
  codegen.run(module);
  return object;
}

FailureOr<std::unique_ptr<llvm::MemoryBuffer>>
linkSharedObject(Location loc, StringRef what, ArrayRef<char> object,
                 ArrayRef<const char *> options,
                 ArrayRef<const char *> libraries) {
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

  llvm::SmallVector<const char *> args = {"ld.lld", "-shared"};
  llvm::append_range(args, options);
  args.append({"-o", sharedFile.Path.c_str(), objectFile.Path.c_str()});
  llvm::append_range(args, libraries);
  std::string linkLog;
  llvm::raw_string_ostream logStream(linkLog);
  lld::Result linked =
      lld::lldMain(args, logStream, logStream, {{lld::Gnu, &lld::elf::link}});
  if (linked.retCode != 0)
    return emitError(loc) << "linking the " << what << " failed: " << linkLog;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(sharedFile.Path, /*IsText=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read the linked " << what;
  return std::move(*buffer);
}

} // namespace kiln
