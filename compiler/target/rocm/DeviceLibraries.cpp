//===- DeviceLibraries.cpp ------------------------------------------------===//

#include "compiler/target/rocm/DeviceLibraries.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace mlir;

namespace kiln {
namespace {

// Whether `module` declares (calls without defining) a function whose name
// starts with `prefix`.
bool declaresFunctions(const llvm::Module &module, StringRef prefix) {
  return llvm::any_of(module, [&](const llvm::Function &function) {
    return function.isDeclaration() && function.getName().starts_with(prefix);
  });
}

} // namespace

LogicalResult linkDeviceLibraries(Location loc, llvm::Module &module,
                                  StringRef bitcodeDir) {
  struct Library {
    StringLiteral Prefix, File;
  };
  // ocml first: what it takes of ockl is linked with the kernels' own calls.
  const Library libraries[] = {{"__ocml_", "ocml.bc"}, {"__ockl_", "ockl.bc"}};
  for (const Library &library : libraries) {
    if (!declaresFunctions(module, library.Prefix))
      continue;
    llvm::SmallString<256> path(bitcodeDir);
    llvm::sys::path::append(path, library.File);
    auto fail = [&](const llvm::Twine &why) {
      return emitError(loc) << "the kernels call " << library.Prefix
                            << "* functions, but " << path << " " << why
                            << " (point --hip-bc-dir at ROCm's device "
                               "bitcode, amdgcn/bitcode)";
    };
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
        llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
    if (!buffer)
      return fail("cannot be read: " + buffer.getError().message());
    llvm::Expected<std::unique_ptr<llvm::Module>> parsed =
        llvm::parseBitcodeFile((*buffer)->getMemBufferRef(),
                               module.getContext());
    if (!parsed)
      return fail("is not LLVM bitcode: " + llvm::toString(parsed.takeError()));
    // The libraries are built for any amdgcn chip; they take the kernels'
    // target, so the linker has no layouts to reconcile.
    (*parsed)->setDataLayout(module.getDataLayout());
    (*parsed)->setTargetTriple(module.getTargetTriple());
    if (llvm::Linker::linkModules(module, std::move(*parsed),
                                  llvm::Linker::Flags::LinkOnlyNeeded))
      return fail("does not link with the kernels");
  }
  return success();
}

} // namespace kiln
