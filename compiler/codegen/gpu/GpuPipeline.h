//===- GpuPipeline.h - The GPU code generation pipeline -------------------===//
//
// One pipeline for every GPU backend: dispatches in tensor form become the
// kernels of `gpu.module @kiln_kernels` in the gpu, scf, memref, arith,
// vector (and, for matrix instructions, nvgpu) dialects, each chosen and
// sized from the target description. A backend adds only its final
// lowering (NVVM to PTX, ROCDL to a code object) and serialization.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_CODEGEN_GPU_GPUPIPELINE_H
#define KILN_COMPILER_CODEGEN_GPU_GPUPIPELINE_H

#include "compiler/codegen/gpu/GpuTarget.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <memory>

namespace kiln {

/// kiln-gpu-set-target recording `target`.
std::unique_ptr<mlir::Pass> createGpuSetTarget(const GpuTarget &target);

/// What a GPU backend's user chose beyond the chip.
struct GpuCodegenOptions {
  /// f32 contractions may round their operands to tf32 on the tensor cores
  /// (--precision=tf32).
  bool AllowTf32 = false;
};

/// Records `target` on the module, then lowers its dispatches to GPU
/// kernels for it.
void buildGpuCodegenPipeline(mlir::OpPassManager &pm, const GpuTarget &target,
                             const GpuCodegenOptions &options);

} // namespace kiln

#endif // KILN_COMPILER_CODEGEN_GPU_GPUPIPELINE_H
