//===- LlvmObject.h - LLVM IR to a linked ELF image -----------------------===//
//
// The steps the CPU and AMD backends share once their code is LLVM IR:
// optimize it for the target machine, emit an object, and link the object
// with lld, in-process, into a shared object (an x86-64 .so, an AMDGPU
// code object).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGET_LLVMOBJECT_H
#define KILN_COMPILER_TARGET_LLVMOBJECT_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>

namespace kiln {

/// Runs one LLVM target's initializers (LLVMInitialize<T>TargetInfo,
/// Target, TargetMC, AsmPrinter) once per process.
template <void (*Info)(), void (*Target)(), void (*MC)(), void (*Printer)()>
void initializeLlvmTarget() {
  static const bool initialized = [] {
    Info();
    Target();
    MC();
    Printer();
    return true;
  }();
  (void)initialized;
}

/// The target machine for `triple` and `cpu` (with `features`) at the
/// highest optimization level, or an error at `loc`. The caller has
/// initialized the target.
mlir::FailureOr<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(mlir::Location loc, llvm::StringRef triple,
                    llvm::StringRef cpu, llvm::StringRef features);

/// Gives `module` the machine's triple and data layout.
void setTargetOf(llvm::Module &module, const llvm::TargetMachine &machine);

/// LLVM's O3 module pipeline for `machine`.
void optimizeModule(llvm::Module &module, llvm::TargetMachine &machine);

/// The relocatable object `machine` emits for `module`.
mlir::FailureOr<llvm::SmallVector<char, 0>>
emitObject(mlir::Location loc, llvm::Module &module,
           llvm::TargetMachine &machine);

/// Links `object` into a shared object with lld's ELF driver in this
/// process: `ld.lld -shared <options> -o OUT OBJECT <libraries>`. The error
/// at `loc` names `what` and carries lld's messages.
mlir::FailureOr<std::unique_ptr<llvm::MemoryBuffer>>
linkSharedObject(mlir::Location loc, llvm::StringRef what,
                 llvm::ArrayRef<char> object,
                 llvm::ArrayRef<const char *> options,
                 llvm::ArrayRef<const char *> libraries = {});

} // namespace kiln

#endif // KILN_COMPILER_TARGET_LLVMOBJECT_H
