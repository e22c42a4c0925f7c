//===- GpuPipeline.cpp ----------------------------------------------------===//

#include "compiler/codegen/gpu/GpuPipeline.h"
#include "compiler/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace kiln {

void buildGpuCodegenPipeline(OpPassManager &pm, const GpuTarget &target,
                             const GpuCodegenOptions &options) {
  pm.addPass(createGpuSetTarget(target));
  // Binding form and fresh destinations are shared with the CPU: buffers
  // are dense row-major arrays of the same element types everywhere.
  pm.addPass(createBindDispatch());
  pm.addPass(createMaterializeInits());
  // Kernels written whole, most specific first; what none takes is tiled.
  pm.addPass(createGpuContractionKernels({options.AllowTf32}));
  pm.addPass(createGpuWindowKernels());
  pm.addPass(createGpuAttentionKernels({options.AllowTf32}));
  pm.addPass(createGpuRowKernels());
  pm.addPass(createGpuReductionKernels());
  pm.addNestedPass<func::FuncOp>(createGpuTile());
  pm.addPass(createBufferize());
  pm.addPass(createCanonicalizerPass());
  // One-element temporaries live in registers (after SROA) instead of
  // memory allocated per thread.
  pm.addNestedPass<func::FuncOp>(
      bufferization::createPromoteBuffersToStackPass());
  pm.addPass(createDistributeToWorkgroups());
  pm.addPass(createGpuDistributeToThreads());
  // The vendors' lowerings start from loops, not linalg.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createGpuUnrollReductions());
  pm.addPass(createGpuOutlineKernels());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

} // namespace kiln
