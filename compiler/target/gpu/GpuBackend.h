//===- GpuBackend.h - What every GPU target backend shares ----------------===//
//
// A GPU backend runs the one GPU pipeline (codegen/gpu/GpuPipeline.h) for
// its chip's GpuTarget and reads each entry point from the kernel that
// outlining made of it; only its final lowering and serialization (PTX and a
// cubin, a code object) are its own.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_TARGET_GPU_GPUBACKEND_H
#define KILN_COMPILER_TARGET_GPU_GPUBACKEND_H

#include "compiler/codegen/gpu/GpuPipeline.h"
#include "compiler/target/TargetBackend.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace kiln {

class GpuBackend : public TargetBackend {
public:
  GpuBackend(GpuTarget target, GpuCodegenOptions codegen)
      : Target(std::move(target)), Codegen(codegen) {}

  void buildCodegenPipeline(mlir::OpPassManager &pm) const override;
  bool fusesAttention() const override;
  bool fusesDynamicInputPads() const override;
  mlir::FailureOr<EntryPointInfo> entryPoint(mlir::ModuleOp lowered,
                                             llvm::StringRef name) const final;

protected:
  /// The gpu.module holding every kernel of `lowered`, or an error on it.
  static mlir::FailureOr<mlir::gpu::GPUModuleOp>
  kernelModule(mlir::ModuleOp lowered);

  const GpuTarget &gpuTarget() const { return Target; }

private:
  GpuTarget Target;
  GpuCodegenOptions Codegen;
};

/// What the user's options ask of any GPU backend's code generation.
GpuCodegenOptions gpuCodegenOptions(const CompileOptions &options);

} // namespace kiln

#endif // KILN_COMPILER_TARGET_GPU_GPUBACKEND_H
