//===- CudaApi.h - The shared GPU layer's calls, made through libcuda -----===//
//
// Implements gpu::GpuApi for one device's primary context: the only place
// besides discovery (CudaDriver) and the executable checks (CudaDevice)
// where the runtime calls CUDA. Handles are CUDA's own (a GpuStreamHandle is
// a CUstream, a GpuFunctionHandle a CUfunction, ...), cast at the boundary.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAAPI_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAAPI_H

#include "runtime/hal/drivers/cuda/CudaContext.h"
#include "runtime/hal/drivers/gpu/GpuApi.h"

#include <memory>

namespace kiln::hal::cuda {

class CudaApi final : public gpu::GpuApi {
public:
  explicit CudaApi(std::shared_ptr<CudaContext> context)
      : Context(std::move(context)) {}

  const CudaContext &context() const { return *Context; }

  std::string_view name() const override { return "CUDA"; }
  const void *contextId() const override { return Context->context(); }
  void bindThread() const override;

  StatusOr<std::shared_ptr<gpu::GpuStreamObject>> createStream() override;
  Status synchronize(gpu::GpuStreamHandle stream) override;
  StatusOr<bool> isIdle(gpu::GpuStreamHandle stream) override;
  Status enqueue(gpu::GpuStreamHandle stream,
                 const gpu::GpuOperation &operation) override;
  Status enqueueWordOperations(
      gpu::GpuStreamHandle stream,
      std::span<const gpu::GpuWordOperation> operations) override;
  Status copyFromHost(gpu::GpuStreamHandle stream, uint64_t target,
                      const void *source, uint64_t length) override;

  StatusOr<uint64_t> allocateDevice(uint64_t bytes) override;
  void freeDevice(uint64_t address) override;
  StatusOr<std::shared_ptr<gpu::GpuPoolObject>> createPool() override;
  StatusOr<uint64_t> allocateFromPool(gpu::GpuPoolHandle pool, uint64_t bytes,
                                      gpu::GpuStreamHandle stream) override;
  void freeToPool(uint64_t address, gpu::GpuStreamHandle stream) override;
  Status trimPool(gpu::GpuPoolHandle pool) override;
  StatusOr<gpu::GpuMappedHostMemory>
  allocateMappedHost(uint64_t bytes) override;
  void freeMappedHost(uint8_t *host) override;

  StatusOr<gpu::GpuEventHandle> createTimingEvent() override;
  void destroyEvent(gpu::GpuEventHandle event) override;
  Status recordEvent(gpu::GpuEventHandle event,
                     gpu::GpuStreamHandle stream) override;
  StatusOr<std::optional<double>>
  elapsedSeconds(gpu::GpuEventHandle start, gpu::GpuEventHandle end) override;

  StatusOr<gpu::GpuModuleHandle>
  loadModule(const ExecutableSpec &spec) override;
  void unloadModule(gpu::GpuModuleHandle module) override;
  StatusOr<gpu::GpuFunctionInfo> function(gpu::GpuModuleHandle module,
                                          const std::string &name) override;
  Status allowDynamicSharedMemory(gpu::GpuFunctionHandle function,
                                  uint64_t bytes) override;

  StatusOr<gpu::GpuGraphHandle> createGraph() override;
  void destroyGraph(gpu::GpuGraphHandle graph) override;
  StatusOr<gpu::GpuGraphNodeHandle>
  addGraphNode(gpu::GpuGraphHandle graph, const gpu::GpuOperation &operation,
               std::span<const gpu::GpuGraphNodeHandle> dependencies) override;
  StatusOr<gpu::GpuGraphExecHandle>
  instantiateGraph(gpu::GpuGraphHandle graph) override;
  void destroyGraphExec(gpu::GpuGraphExecHandle exec) override;
  Status updateGraphNode(gpu::GpuGraphExecHandle exec,
                         gpu::GpuGraphNodeHandle node,
                         const gpu::GpuOperation &operation) override;
  Status launchGraph(gpu::GpuGraphExecHandle exec,
                     gpu::GpuStreamHandle stream) override;
  StatusOr<gpu::GpuGraphEdges> graphEdges(gpu::GpuGraphHandle graph) override;

private:
  void pushContext() const override;
  void popContext() const override;
  const CudaSymbols &symbols() const { return Context->symbols(); }

  std::shared_ptr<CudaContext> Context;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAAPI_H
