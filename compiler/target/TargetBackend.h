//===- TargetBackend.h - What each --target-device contributes ------------===//
//
// A target backend turns the module of outlined dispatch functions (every
// dispatch of the program, in entry-point order) into executable variants:
// it adds its code generation passes, reports each lowered entry point's
// launch metadata, and serializes the lowered module into images. Everything
// before code generation (input, globalopt, dispatch, host planning) is
// shared by all targets.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGET_TARGETBACKEND_H
#define KILN_COMPILER_TARGET_TARGETBACKEND_H

#include "compiler/Pipeline.h"
#include "compiler/module/ModuleWriter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace kiln {

class TargetBackend {
public:
  virtual ~TargetBackend();

  /// The --target-device value ("cpu", "cuda", "hip").
  virtual llvm::StringRef name() const = 0;
  /// Lowers a module holding only dispatch functions (tensor form) to the
  /// form serialize() takes.
  virtual void buildCodegenPipeline(mlir::OpPassManager &pm) const = 0;
  /// Whether its code generation writes every attention dispatch
  /// (Attention.h) as one kernel, so dispatch formation may make them.
  virtual bool fusesAttention() const { return false; }
  /// Whether its GEMM and window kernels read a convolution's or pooling's
  /// padding in place over a batch known per call, so dispatch formation
  /// may fuse it (FormDispatchOptions::FuseDynamicInputPads).
  virtual bool fusesDynamicInputPads() const { return false; }
  /// The launch metadata of dispatch `name` once lowered: binding and push
  /// constant counts, workgroup size and count, shared memory bytes.
  virtual mlir::FailureOr<EntryPointInfo>
  entryPoint(mlir::ModuleOp lowered, llvm::StringRef name) const = 0;
  /// The variants (format, target, image) of the lowered module, most
  /// specific first: the runtime runs the first one its device accepts.
  /// Entry points are filled in by the caller.
  virtual mlir::FailureOr<std::vector<ExecutableVariantInfo>>
  serialize(mlir::ModuleOp lowered) const = 0;
};

/// Reads the metadata code generation records on a lowered entry point
/// `op`: kiln.binding_count, kiln.workgroup_count and (when present)
/// kiln.workgroup_size, kiln.push_constant_count and
/// kiln.shared_memory_bytes.
mlir::FailureOr<EntryPointInfo> readEntryPointInfo(mlir::Operation *op,
                                                   llvm::StringRef name);

/// One --target-device value: a registry entry, so the driver names no
/// backend.
struct TargetBackendInfo {
  llvm::StringLiteral Name;
  /// Generates GPU code (globalopt then splits reductions for it).
  bool IsGpu;
  /// The backend `options` ask for, or an error at `loc` (an unknown chip).
  mlir::FailureOr<std::unique_ptr<TargetBackend>> (*Create)(
      mlir::Location loc, const CompileOptions &options);
  /// Other --target-device values that mean it (IREE's names among them).
  llvm::ArrayRef<llvm::StringLiteral> Aliases = {};
};

/// Every backend of this build, in --help order.
llvm::ArrayRef<TargetBackendInfo> targetBackendRegistry();
/// The entry named `name` or one of its aliases, or null.
const TargetBackendInfo *findTargetBackend(llvm::StringRef name);

/// x86-64 shared objects for options.CpuTarget (a knownCpuTargets() name).
mlir::FailureOr<std::unique_ptr<TargetBackend>>
createCpuBackend(mlir::Location loc, const CompileOptions &options);
/// PTX for options.CudaTarget, and a cubin when ptxas is found (required
/// with options.RequirePtxas).
mlir::FailureOr<std::unique_ptr<TargetBackend>>
createCudaBackend(mlir::Location loc, const CompileOptions &options);

/// AMDGPU code objects for options.HipTarget, linking ROCm's device
/// libraries from options.HipBitcodeDir where the kernels call them.
mlir::FailureOr<std::unique_ptr<TargetBackend>>
createRocmBackend(mlir::Location loc, const CompileOptions &options);

/// Registers each GPU backend's chip table with resolveGpuTarget(), so
/// kiln-gpu-set-target can name chips.
void registerGpuTargetTables();

/// Dialects, interfaces and translations the backends' lowerings use.
void registerTargetBackendDialects(mlir::DialectRegistry &registry);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_TARGETBACKEND_H
