//===- HipApi.cpp ---------------------------------------------------------===//

#include "runtime/hal/drivers/hip/HipApi.h"

#include "runtime/hal/DeviceUri.h"
#include "runtime/hal/drivers/amd/CodeObject.h"

#include <vector>

namespace kiln::hal::hip {

using namespace gpu;

namespace {

// Handles are HIP's own pointers, cast at the boundary.
template <typename To, typename From> To cast(From handle) {
  return reinterpret_cast<To>(handle);
}

// HIP takes device addresses as pointers; unified addressing lets it tell
// device memory from mapped host memory itself (hipMemcpyDefault).
void *pointer(uint64_t address) {
  return reinterpret_cast<void *>(static_cast<uintptr_t>(address));
}

hipMemsetParams memsetParams(const GpuFill &fill) {
  hipMemsetParams params = {};
  params.dst = pointer(fill.Target);
  params.value = fill.Pattern;
  params.elementSize = fill.PatternLength;
  params.width = fill.Length / fill.PatternLength;
  params.height = 1;
  return params;
}

hipKernelNodeParams kernelParams(const GpuKernelLaunch &launch) {
  hipKernelNodeParams params = {};
  params.func = launch.Function;
  params.gridDim = dim3(launch.Grid[0], launch.Grid[1], launch.Grid[2]);
  params.blockDim = dim3(launch.Block[0], launch.Block[1], launch.Block[2]);
  params.sharedMemBytes = launch.SharedMemoryBytes;
  params.kernelParams = launch.Arguments;
  return params;
}

} // namespace

StatusOr<std::shared_ptr<GpuStreamObject>> HipApi::createStream() {
  hipStream_t raw = nullptr;
  // Non-blocking: the null stream, which other libraries in the process
  // may use, does not serialize with Kiln's work.
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(symbols(), hipStreamCreateWithFlags, &raw,
                                     hipStreamNonBlocking));
  return std::shared_ptr<GpuStreamObject>(
      cast<GpuStreamObject *>(raw),
      [context = Context](GpuStreamObject *doomed) {
        HipContext::Scope scope(*context);
        (void)context->symbols().hipStreamDestroy(cast<hipStream_t>(doomed));
      });
}

Status HipApi::synchronize(GpuStreamHandle stream) {
  return KILN_HIP_CALL(symbols(), hipStreamSynchronize,
                       cast<hipStream_t>(stream));
}

StatusOr<bool> HipApi::isIdle(GpuStreamHandle stream) {
  hipError_t error = symbols().hipStreamQuery(cast<hipStream_t>(stream));
  if (error == hipErrorNotReady)
    return false;
  KILN_RETURN_IF_ERROR(
      hipErrorToStatus(symbols(), error, "hipStreamQuery", __FILE__, __LINE__));
  return true;
}

Status HipApi::enqueue(GpuStreamHandle handle, const GpuOperation &operation) {
  const HipSymbols &hip = symbols();
  auto stream = cast<hipStream_t>(handle);
  if (const auto *launch = std::get_if<GpuKernelLaunch>(&operation))
    return KILN_HIP_CALL(
        hip, hipModuleLaunchKernel, cast<hipFunction_t>(launch->Function),
        launch->Grid[0], launch->Grid[1], launch->Grid[2], launch->Block[0],
        launch->Block[1], launch->Block[2], launch->SharedMemoryBytes, stream,
        launch->Arguments, nullptr);
  if (const auto *copy = std::get_if<GpuCopy>(&operation))
    return KILN_HIP_CALL(hip, hipMemcpyAsync, pointer(copy->Target),
                         pointer(copy->Source), copy->Length, hipMemcpyDefault,
                         stream);
  const auto &fill = std::get<GpuFill>(operation);
  size_t count = fill.Length / fill.PatternLength;
  auto target = cast<hipDeviceptr_t>(pointer(fill.Target));
  switch (fill.PatternLength) {
  case 1:
    return KILN_HIP_CALL(hip, hipMemsetD8Async, target,
                         static_cast<unsigned char>(fill.Pattern), count,
                         stream);
  case 2:
    return KILN_HIP_CALL(hip, hipMemsetD16Async, target,
                         static_cast<unsigned short>(fill.Pattern), count,
                         stream);
  default:
    return KILN_HIP_CALL(hip, hipMemsetD32Async, target,
                         static_cast<int>(fill.Pattern), count, stream);
  }
}

Status
HipApi::enqueueWordOperations(GpuStreamHandle handle,
                              std::span<const GpuWordOperation> operations) {
  // HIP has no batch call: one stream operation each, in order.
  const HipSymbols &hip = symbols();
  auto stream = cast<hipStream_t>(handle);
  for (const GpuWordOperation &word : operations) {
    if (word.Op == GpuWordOperation::Kind::WaitAtLeast) {
      KILN_RETURN_IF_ERROR(KILN_HIP_CALL(hip, hipStreamWaitValue64, stream,
                                         pointer(word.Address), word.Value,
                                         hipStreamWaitValueGte, ~uint64_t{0}));
      continue;
    }
    // Written once the work before it in the stream is done, with the
    // release that makes that work visible to whoever sees the value.
    KILN_RETURN_IF_ERROR(KILN_HIP_CALL(hip, hipStreamWriteValue64, stream,
                                       pointer(word.Address), word.Value, 0));
  }
  return Status();
}

Status HipApi::copyFromHost(GpuStreamHandle stream, uint64_t target,
                            const void *source, uint64_t length) {
  return KILN_HIP_CALL(
      symbols(), hipMemcpyHtoDAsync, cast<hipDeviceptr_t>(pointer(target)),
      const_cast<void *>(source), length, cast<hipStream_t>(stream));
}

StatusOr<uint64_t> HipApi::allocateDevice(uint64_t bytes) {
  void *address = nullptr;
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(symbols(), hipMalloc, &address, bytes));
  return reinterpret_cast<uintptr_t>(address);
}

void HipApi::freeDevice(uint64_t address) {
  (void)symbols().hipFree(pointer(address));
}

StatusOr<std::shared_ptr<GpuPoolObject>> HipApi::createPool() {
  const HipSymbols &hip = symbols();
  // A runtime without stream-ordered pools allocates synchronously.
  if (!hip.hipMemPoolCreate || !hip.hipMemPoolDestroy ||
      !hip.hipMemPoolSetAttribute || !hip.hipMemPoolTrimTo ||
      !hip.hipMallocFromPoolAsync || !hip.hipFreeAsync)
    return std::shared_ptr<GpuPoolObject>();
  int supported = 0;
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(hip, hipDeviceGetAttribute, &supported,
                                     hipDeviceAttributeMemoryPoolsSupported,
                                     Context->ordinal()));
  if (!supported)
    return std::shared_ptr<GpuPoolObject>();
  // A pool of Kiln's own rather than the device's default one, whose
  // settings other libraries in the process share.
  hipMemPoolProps properties = {};
  properties.allocType = hipMemAllocationTypePinned;
  properties.handleTypes = hipMemHandleTypeNone;
  properties.location.type = hipMemLocationTypeDevice;
  properties.location.id = Context->ordinal();
  hipMemPool_t raw = nullptr;
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(hip, hipMemPoolCreate, &raw, &properties));
  std::shared_ptr<GpuPoolObject> pool(
      cast<GpuPoolObject *>(raw), [context = Context](GpuPoolObject *doomed) {
        HipContext::Scope scope(*context);
        (void)context->symbols().hipMemPoolDestroy(cast<hipMemPool_t>(doomed));
      });
  // Freed memory stays in the pool for the next allocation rather than
  // going back to the driver at every synchronization (threshold 0).
  uint64_t threshold = UINT64_MAX;
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(hip, hipMemPoolSetAttribute, raw,
                                     hipMemPoolAttrReleaseThreshold,
                                     &threshold));
  return pool;
}

StatusOr<uint64_t> HipApi::allocateFromPool(GpuPoolHandle pool, uint64_t bytes,
                                            GpuStreamHandle stream) {
  void *address = nullptr;
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(symbols(), hipMallocFromPoolAsync,
                                     &address, bytes, cast<hipMemPool_t>(pool),
                                     cast<hipStream_t>(stream)));
  return reinterpret_cast<uintptr_t>(address);
}

void HipApi::freeToPool(uint64_t address, GpuStreamHandle stream) {
  (void)symbols().hipFreeAsync(pointer(address), cast<hipStream_t>(stream));
}

Status HipApi::trimPool(GpuPoolHandle pool) {
  return KILN_HIP_CALL(symbols(), hipMemPoolTrimTo, cast<hipMemPool_t>(pool),
                       0);
}

StatusOr<GpuMappedHostMemory> HipApi::allocateMappedHost(uint64_t bytes) {
  const HipSymbols &hip = symbols();
  void *host = nullptr;
  KILN_RETURN_IF_ERROR(
      KILN_HIP_CALL(hip, hipHostMalloc, &host, bytes,
                    hipHostMallocMapped | hipHostMallocPortable));
  void *device = nullptr;
  if (Status status =
          KILN_HIP_CALL(hip, hipHostGetDevicePointer, &device, host, 0);
      !status.ok()) {
    (void)hip.hipHostFree(host);
    return status;
  }
  return GpuMappedHostMemory{static_cast<uint8_t *>(host),
                             reinterpret_cast<uintptr_t>(device)};
}

void HipApi::freeMappedHost(uint8_t *host) {
  (void)symbols().hipHostFree(host);
}

StatusOr<GpuEventHandle> HipApi::createTimingEvent() {
  hipEvent_t event = nullptr;
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(symbols(), hipEventCreateWithFlags, &event,
                                     hipEventDefault));
  return cast<GpuEventHandle>(event);
}

void HipApi::destroyEvent(GpuEventHandle event) {
  (void)symbols().hipEventDestroy(cast<hipEvent_t>(event));
}

Status HipApi::recordEvent(GpuEventHandle event, GpuStreamHandle stream) {
  return KILN_HIP_CALL(symbols(), hipEventRecord, cast<hipEvent_t>(event),
                       cast<hipStream_t>(stream));
}

StatusOr<std::optional<double>> HipApi::elapsedSeconds(GpuEventHandle start,
                                                       GpuEventHandle end) {
  float milliseconds = 0;
  hipError_t error = symbols().hipEventElapsedTime(
      &milliseconds, cast<hipEvent_t>(start), cast<hipEvent_t>(end));
  if (error == hipErrorNotReady)
    return std::optional<double>();
  KILN_RETURN_IF_ERROR(hipErrorToStatus(symbols(), error, "hipEventElapsedTime",
                                        __FILE__, __LINE__));
  return std::optional<double>(static_cast<double>(milliseconds) / 1000.0);
}

StatusOr<GpuModuleHandle> HipApi::loadModule(const ExecutableSpec &spec) {
  // Module files are untrusted and HIP's loader is not written for hostile
  // input: the code object and every entry point's kernel are checked
  // first.
  auto object = amd::readCodeObject(spec.Image, TargetId);
  if (!object.ok()) {
    Status status = object.status();
    return status.annotate(strCat("executable ", quoteForMessage(spec.Name)));
  }
  for (const EntryPointSpec &entry : spec.EntryPoints)
    if (auto kernel = amd::findKernel(*object, entry.Name); !kernel.ok()) {
      Status status = kernel.status();
      return status.annotate(strCat("executable ", quoteForMessage(spec.Name)));
    }
  hipModule_t module = nullptr;
  Status loaded =
      KILN_HIP_CALL(symbols(), hipModuleLoadData, &module, spec.Image.data());
  if (!loaded.ok())
    return loaded.annotate(
        strCat("loading ", spec.Format, " for ", quoteForMessage(spec.Target)));
  return cast<GpuModuleHandle>(module);
}

void HipApi::unloadModule(GpuModuleHandle module) {
  // Nothing to report to; unloading fails only for a bad module.
  (void)symbols().hipModuleUnload(cast<hipModule_t>(module));
}

StatusOr<GpuFunctionInfo> HipApi::function(GpuModuleHandle module,
                                           const std::string &name) {
  const HipSymbols &hip = symbols();
  hipFunction_t function = nullptr;
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(hip, hipModuleGetFunction, &function,
                                     cast<hipModule_t>(module), name.c_str()));
  auto attribute = [&](hipFunction_attribute which) -> StatusOr<uint64_t> {
    int value = 0;
    KILN_RETURN_IF_ERROR(
        KILN_HIP_CALL(hip, hipFuncGetAttribute, &value, which, function));
    return static_cast<uint64_t>(value);
  };
  GpuFunctionInfo info;
  info.Handle = cast<GpuFunctionHandle>(function);
  KILN_ASSIGN_OR_RETURN(info.MaxThreadsPerBlock,
                        attribute(HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  KILN_ASSIGN_OR_RETURN(info.StaticSharedBytes,
                        attribute(HIP_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
  return info;
}

Status HipApi::allowDynamicSharedMemory(GpuFunctionHandle, uint64_t) {
  // AMD kernels may use all of a workgroup's LDS without opting in; the
  // shared check against the device's limit is all there is.
  return Status();
}

StatusOr<GpuGraphHandle> HipApi::createGraph() {
  hipGraph_t graph = nullptr;
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(symbols(), hipGraphCreate, &graph, 0));
  return cast<GpuGraphHandle>(graph);
}

void HipApi::destroyGraph(GpuGraphHandle graph) {
  (void)symbols().hipGraphDestroy(cast<hipGraph_t>(graph));
}

StatusOr<GpuGraphNodeHandle>
HipApi::addGraphNode(GpuGraphHandle handle, const GpuOperation &operation,
                     std::span<const GpuGraphDependency> dependencies) {
  const HipSymbols &hip = symbols();
  auto graph = cast<hipGraph_t>(handle);
  // HIP has no early launches: every dependency is an ordinary one.
  std::vector<hipGraphNode_t> after;
  after.reserve(dependencies.size());
  for (const GpuGraphDependency &dependency : dependencies)
    after.push_back(cast<hipGraphNode_t>(dependency.Node));
  hipGraphNode_t node = nullptr;
  if (const auto *launch = std::get_if<GpuKernelLaunch>(&operation)) {
    hipKernelNodeParams params = kernelParams(*launch);
    KILN_RETURN_IF_ERROR(KILN_HIP_CALL(hip, hipGraphAddKernelNode, &node, graph,
                                       after.data(), after.size(), &params));
  } else if (const auto *copy = std::get_if<GpuCopy>(&operation)) {
    KILN_RETURN_IF_ERROR(
        KILN_HIP_CALL(hip, hipGraphAddMemcpyNode1D, &node, graph, after.data(),
                      after.size(), pointer(copy->Target),
                      pointer(copy->Source), copy->Length, hipMemcpyDefault));
  } else {
    hipMemsetParams params = memsetParams(std::get<GpuFill>(operation));
    KILN_RETURN_IF_ERROR(KILN_HIP_CALL(hip, hipGraphAddMemsetNode, &node, graph,
                                       after.data(), after.size(), &params));
  }
  return cast<GpuGraphNodeHandle>(node);
}

StatusOr<GpuGraphExecHandle> HipApi::instantiateGraph(GpuGraphHandle graph) {
  hipGraphExec_t exec = nullptr;
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(symbols(), hipGraphInstantiateWithFlags,
                                     &exec, cast<hipGraph_t>(graph), 0));
  return cast<GpuGraphExecHandle>(exec);
}

void HipApi::destroyGraphExec(GpuGraphExecHandle exec) {
  (void)symbols().hipGraphExecDestroy(cast<hipGraphExec_t>(exec));
}

Status HipApi::updateGraphNode(GpuGraphExecHandle handle,
                               GpuGraphNodeHandle nodeHandle,
                               const GpuOperation &operation) {
  const HipSymbols &hip = symbols();
  auto exec = cast<hipGraphExec_t>(handle);
  auto node = cast<hipGraphNode_t>(nodeHandle);
  if (const auto *launch = std::get_if<GpuKernelLaunch>(&operation)) {
    hipKernelNodeParams params = kernelParams(*launch);
    return KILN_HIP_CALL(hip, hipGraphExecKernelNodeSetParams, exec, node,
                         &params);
  }
  if (const auto *copy = std::get_if<GpuCopy>(&operation))
    return KILN_HIP_CALL(hip, hipGraphExecMemcpyNodeSetParams1D, exec, node,
                         pointer(copy->Target), pointer(copy->Source),
                         copy->Length, hipMemcpyDefault);
  hipMemsetParams params = memsetParams(std::get<GpuFill>(operation));
  return KILN_HIP_CALL(hip, hipGraphExecMemsetNodeSetParams, exec, node,
                       &params);
}

Status HipApi::launchGraph(GpuGraphExecHandle exec, GpuStreamHandle stream) {
  return KILN_HIP_CALL(symbols(), hipGraphLaunch, cast<hipGraphExec_t>(exec),
                       cast<hipStream_t>(stream));
}

StatusOr<GpuGraphEdges> HipApi::graphEdges(GpuGraphHandle handle) {
  const HipSymbols &hip = symbols();
  auto graph = cast<hipGraph_t>(handle);
  GpuGraphEdges edges;
  KILN_RETURN_IF_ERROR(
      KILN_HIP_CALL(hip, hipGraphGetNodes, graph, nullptr, &edges.NodeCount));
  size_t count = 0;
  KILN_RETURN_IF_ERROR(
      KILN_HIP_CALL(hip, hipGraphGetEdges, graph, nullptr, nullptr, &count));
  std::vector<hipGraphNode_t> from(count), to(count);
  KILN_RETURN_IF_ERROR(KILN_HIP_CALL(hip, hipGraphGetEdges, graph, from.data(),
                                     to.data(), &count));
  for (size_t i = 0; i < count; ++i)
    edges.Edges.emplace_back(cast<GpuGraphNodeHandle>(from[i]),
                             cast<GpuGraphNodeHandle>(to[i]));
  return edges;
}

} // namespace kiln::hal::hip
