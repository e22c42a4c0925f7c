//===- CudaApi.cpp --------------------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaApi.h"

#include <algorithm>
#include <vector>

namespace kiln::hal::cuda {

using namespace gpu;

namespace {

// Handles are CUDA's own pointers, cast at the boundary.
template <typename To, typename From> To cast(From handle) {
  return reinterpret_cast<To>(handle);
}

// A 1-D copy: one row, so pitches and heights stay 0 (a pitch would be
// capped at the device's maximum, far below the largest copy). Unified
// addressing lets CUDA tell device memory from pinned host memory itself,
// as cuMemcpyAsync does in stream mode.
CUDA_MEMCPY3D copyParams(const GpuCopy &copy) {
  CUDA_MEMCPY3D params = {};
  params.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  params.srcDevice = copy.Source;
  params.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  params.dstDevice = copy.Target;
  params.WidthInBytes = copy.Length;
  params.Height = 1;
  params.Depth = 1;
  return params;
}

CUDA_MEMSET_NODE_PARAMS memsetParams(const GpuFill &fill) {
  CUDA_MEMSET_NODE_PARAMS params = {};
  params.dst = fill.Target;
  params.value = fill.Pattern;
  params.elementSize = fill.PatternLength;
  params.width = fill.Length / fill.PatternLength;
  params.height = 1;
  return params;
}

CUDA_KERNEL_NODE_PARAMS_v2 kernelParams(const GpuKernelLaunch &launch) {
  CUDA_KERNEL_NODE_PARAMS_v2 params = {};
  params.func = cast<CUfunction>(launch.Function);
  params.gridDimX = launch.Grid[0];
  params.gridDimY = launch.Grid[1];
  params.gridDimZ = launch.Grid[2];
  params.blockDimX = launch.Block[0];
  params.blockDimY = launch.Block[1];
  params.blockDimZ = launch.Block[2];
  params.sharedMemBytes = launch.SharedMemoryBytes;
  params.kernelParams = launch.Arguments;
  return params;
}

CUstreamBatchMemOpParams wordOperation(const GpuWordOperation &word) {
  CUstreamBatchMemOpParams operation = {};
  if (word.Op == GpuWordOperation::Kind::WaitAtLeast) {
    operation.waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_64;
    operation.waitValue.address = word.Address;
    operation.waitValue.value64 = word.Value;
    operation.waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
    return operation;
  }
  // The default flags put a memory barrier before the write: whoever sees
  // the value sees the results of the work before it.
  operation.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
  operation.writeValue.address = word.Address;
  operation.writeValue.value64 = word.Value;
  return operation;
}

// The largest dynamic shared memory a kernel may use without opting in.
constexpr uint64_t kDefaultDynamicSharedBytes = 48 * 1024;

} // namespace

void CudaApi::pushContext() const {
  // Push fails only for an invalid context, which retain() rules out.
  symbols().cuCtxPushCurrent_v2(Context->context());
}

void CudaApi::popContext() const {
  CUcontext popped = nullptr;
  symbols().cuCtxPopCurrent_v2(&popped);
}

void CudaApi::bindThread() const {
  symbols().cuCtxSetCurrent(Context->context());
}

StatusOr<std::shared_ptr<GpuStreamObject>> CudaApi::createStream() {
  CUstream raw = nullptr;
  // Non-blocking: the legacy default stream, which other libraries in the
  // process may use, does not serialize with Kiln's work.
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(symbols(), cuStreamCreate, &raw, CU_STREAM_NON_BLOCKING));
  // Destroyed with its last user, after the context is current again.
  return std::shared_ptr<GpuStreamObject>(
      cast<GpuStreamObject *>(raw),
      [context = Context](GpuStreamObject *doomed) {
        CudaContext::Scope scope(*context);
        context->symbols().cuStreamDestroy_v2(cast<CUstream>(doomed));
      });
}

Status CudaApi::synchronize(GpuStreamHandle stream) {
  return KILN_CUDA_CALL(symbols(), cuStreamSynchronize, cast<CUstream>(stream));
}

StatusOr<bool> CudaApi::isIdle(GpuStreamHandle stream) {
  CUresult result = symbols().cuStreamQuery(cast<CUstream>(stream));
  if (result == CUDA_ERROR_NOT_READY)
    return false;
  KILN_RETURN_IF_ERROR(cudaResultToStatus(symbols(), result, "cuStreamQuery",
                                          __FILE__, __LINE__));
  return true;
}

Status CudaApi::enqueue(GpuStreamHandle handle, const GpuOperation &operation) {
  const CudaSymbols &cu = symbols();
  auto stream = cast<CUstream>(handle);
  if (const auto *launch = std::get_if<GpuKernelLaunch>(&operation))
    return KILN_CUDA_CALL(
        cu, cuLaunchKernel, cast<CUfunction>(launch->Function), launch->Grid[0],
        launch->Grid[1], launch->Grid[2], launch->Block[0], launch->Block[1],
        launch->Block[2], launch->SharedMemoryBytes, stream, launch->Arguments,
        nullptr);
  if (const auto *copy = std::get_if<GpuCopy>(&operation))
    return KILN_CUDA_CALL(cu, cuMemcpyAsync, copy->Target, copy->Source,
                          copy->Length, stream);
  // Allocations are at least 256-byte aligned, and GpuFill's offset and
  // length are multiples of the pattern.
  const auto &fill = std::get<GpuFill>(operation);
  size_t count = fill.Length / fill.PatternLength;
  switch (fill.PatternLength) {
  case 1:
    return KILN_CUDA_CALL(cu, cuMemsetD8Async, fill.Target,
                          static_cast<unsigned char>(fill.Pattern), count,
                          stream);
  case 2:
    return KILN_CUDA_CALL(cu, cuMemsetD16Async, fill.Target,
                          static_cast<unsigned short>(fill.Pattern), count,
                          stream);
  default:
    return KILN_CUDA_CALL(cu, cuMemsetD32Async, fill.Target, fill.Pattern,
                          count, stream);
  }
}

Status
CudaApi::enqueueWordOperations(GpuStreamHandle stream,
                               std::span<const GpuWordOperation> operations) {
  // As few calls as CUDA allows.
  constexpr size_t kMostPerCall = 255;
  std::vector<CUstreamBatchMemOpParams> batch;
  for (size_t begin = 0; begin < operations.size(); begin += kMostPerCall) {
    size_t count = std::min(kMostPerCall, operations.size() - begin);
    batch.clear();
    for (const GpuWordOperation &word : operations.subspan(begin, count))
      batch.push_back(wordOperation(word));
    KILN_RETURN_IF_ERROR(
        KILN_CUDA_CALL(symbols(), cuStreamBatchMemOp_v2, cast<CUstream>(stream),
                       static_cast<unsigned>(count), batch.data(), 0));
  }
  return Status();
}

Status CudaApi::copyFromHost(GpuStreamHandle stream, uint64_t target,
                             const void *source, uint64_t length) {
  return KILN_CUDA_CALL(symbols(), cuMemcpyHtoDAsync_v2, target, source, length,
                        cast<CUstream>(stream));
}

StatusOr<uint64_t> CudaApi::allocateDevice(uint64_t bytes) {
  CUdeviceptr address = 0;
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(symbols(), cuMemAlloc_v2, &address, bytes));
  return address;
}

void CudaApi::freeDevice(uint64_t address) { symbols().cuMemFree_v2(address); }

StatusOr<std::shared_ptr<GpuPoolObject>> CudaApi::createPool() {
  const CudaSymbols &cu = symbols();
  int supported = 0;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(
      cu, cuDeviceGetAttribute, &supported,
      CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, Context->device()));
  if (!supported)
    return std::shared_ptr<GpuPoolObject>();
  // A pool of Kiln's own rather than the device's default one, whose
  // settings other libraries in the process share.
  CUmemPoolProps properties = {};
  properties.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  properties.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  properties.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  properties.location.id = Context->device();
  CUmemoryPool raw = nullptr;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuMemPoolCreate, &raw, &properties));
  // Destroyed once its last allocation is freed, even if that is later.
  std::shared_ptr<GpuPoolObject> pool(
      cast<GpuPoolObject *>(raw), [context = Context](GpuPoolObject *doomed) {
        CudaContext::Scope scope(*context);
        context->symbols().cuMemPoolDestroy(cast<CUmemoryPool>(doomed));
      });
  // Freed memory stays in the pool for the next allocation. With the
  // default threshold (0) every stream synchronization, so every call,
  // returns it to the driver, and the next allocation maps memory anew.
  cuuint64_t threshold = UINT64_MAX;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuMemPoolSetAttribute, raw,
                                      CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                                      &threshold));
  return pool;
}

StatusOr<uint64_t> CudaApi::allocateFromPool(GpuPoolHandle pool, uint64_t bytes,
                                             GpuStreamHandle stream) {
  CUdeviceptr address = 0;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(symbols(), cuMemAllocFromPoolAsync,
                                      &address, bytes, cast<CUmemoryPool>(pool),
                                      cast<CUstream>(stream)));
  return address;
}

void CudaApi::freeToPool(uint64_t address, GpuStreamHandle stream) {
  symbols().cuMemFreeAsync(address, cast<CUstream>(stream));
}

Status CudaApi::trimPool(GpuPoolHandle pool) {
  return KILN_CUDA_CALL(symbols(), cuMemPoolTrimTo, cast<CUmemoryPool>(pool),
                        0);
}

StatusOr<GpuMappedHostMemory> CudaApi::allocateMappedHost(uint64_t bytes) {
  const CudaSymbols &cu = symbols();
  void *host = nullptr;
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(cu, cuMemHostAlloc, &host, bytes,
                     CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP));
  CUdeviceptr device = 0;
  if (Status status =
          KILN_CUDA_CALL(cu, cuMemHostGetDevicePointer_v2, &device, host, 0);
      !status.ok()) {
    cu.cuMemFreeHost(host);
    return status;
  }
  return GpuMappedHostMemory{static_cast<uint8_t *>(host), device};
}

void CudaApi::freeMappedHost(uint8_t *host) { symbols().cuMemFreeHost(host); }

StatusOr<GpuEventHandle> CudaApi::createTimingEvent() {
  // Default flags: timing enabled (CU_EVENT_DISABLE_TIMING would drop the
  // timestamps) and no blocking sync, which only matters to host waits.
  CUevent event = nullptr;
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(symbols(), cuEventCreate, &event, CU_EVENT_DEFAULT));
  return cast<GpuEventHandle>(event);
}

void CudaApi::destroyEvent(GpuEventHandle event) {
  symbols().cuEventDestroy_v2(cast<CUevent>(event));
}

Status CudaApi::recordEvent(GpuEventHandle event, GpuStreamHandle stream) {
  return KILN_CUDA_CALL(symbols(), cuEventRecord, cast<CUevent>(event),
                        cast<CUstream>(stream));
}

StatusOr<std::optional<double>> CudaApi::elapsedSeconds(GpuEventHandle start,
                                                        GpuEventHandle end) {
  float milliseconds = 0;
  CUresult result = symbols().cuEventElapsedTime(
      &milliseconds, cast<CUevent>(start), cast<CUevent>(end));
  if (result == CUDA_ERROR_NOT_READY)
    return std::optional<double>();
  KILN_RETURN_IF_ERROR(cudaResultToStatus(
      symbols(), result, "cuEventElapsedTime", __FILE__, __LINE__));
  return std::optional<double>(static_cast<double>(milliseconds) / 1000.0);
}

StatusOr<GpuModuleHandle> CudaApi::loadModule(const ExecutableSpec &spec) {
  if (spec.Format == "cuda-ptx" && spec.Image.back() != 0)
    return KILN_ERROR(InvalidArgument, "executable '", spec.Name,
                      "': PTX image is not NUL-terminated");
  // The JIT's own message says what in the PTX it rejected.
  char log[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(uintptr_t{sizeof(log)})};
  CUmodule module = nullptr;
  Status loaded = KILN_CUDA_CALL(symbols(), cuModuleLoadDataEx, &module,
                                 spec.Image.data(), 2, options, values);
  if (!loaded.ok())
    return loaded.annotate(strCat("loading ", spec.Format, " for ", spec.Target,
                                  log[0] ? ": " : "", log));
  return cast<GpuModuleHandle>(module);
}

void CudaApi::unloadModule(GpuModuleHandle module) {
  // Nothing to report to; unloading fails only for a bad module.
  symbols().cuModuleUnload(cast<CUmodule>(module));
}

StatusOr<GpuFunctionInfo> CudaApi::function(GpuModuleHandle module,
                                            const std::string &name) {
  const CudaSymbols &cu = symbols();
  CUfunction function = nullptr;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuModuleGetFunction, &function,
                                      cast<CUmodule>(module), name.c_str()));
  auto attribute = [&](CUfunction_attribute which) -> StatusOr<uint64_t> {
    int value = 0;
    KILN_RETURN_IF_ERROR(
        KILN_CUDA_CALL(cu, cuFuncGetAttribute, &value, which, function));
    return static_cast<uint64_t>(value);
  };
  GpuFunctionInfo info;
  info.Handle = cast<GpuFunctionHandle>(function);
  KILN_ASSIGN_OR_RETURN(info.MaxThreadsPerBlock,
                        attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK));
  KILN_ASSIGN_OR_RETURN(info.StaticSharedBytes,
                        attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES));
  return info;
}

Status CudaApi::allowDynamicSharedMemory(GpuFunctionHandle function,
                                         uint64_t bytes) {
  if (bytes <= kDefaultDynamicSharedBytes)
    return Status();
  return KILN_CUDA_CALL(
      symbols(), cuFuncSetAttribute, cast<CUfunction>(function),
      CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(bytes));
}

StatusOr<GpuGraphHandle> CudaApi::createGraph() {
  CUgraph graph = nullptr;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(symbols(), cuGraphCreate, &graph, 0));
  return cast<GpuGraphHandle>(graph);
}

void CudaApi::destroyGraph(GpuGraphHandle graph) {
  // Nothing to report to: destroying a valid handle does not fail.
  symbols().cuGraphDestroy(cast<CUgraph>(graph));
}

StatusOr<GpuGraphNodeHandle>
CudaApi::addGraphNode(GpuGraphHandle handle, const GpuOperation &operation,
                      std::span<const GpuGraphDependency> dependencies) {
  const CudaSymbols &cu = symbols();
  auto graph = cast<CUgraph>(handle);
  // Ordinary dependencies go with the node; early ones are added after it
  // as programmatic edges.
  std::vector<CUgraphNode> after, early;
  for (const GpuGraphDependency &dependency : dependencies)
    (dependency.Early ? early : after)
        .push_back(cast<CUgraphNode>(dependency.Node));
  CUgraphNode node = nullptr;
  if (const auto *launch = std::get_if<GpuKernelLaunch>(&operation)) {
    CUDA_KERNEL_NODE_PARAMS_v2 params = kernelParams(*launch);
    KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuGraphAddKernelNode_v2, &node,
                                        graph, after.data(), after.size(),
                                        &params));
  } else if (const auto *copy = std::get_if<GpuCopy>(&operation)) {
    CUDA_MEMCPY3D params = copyParams(*copy);
    KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuGraphAddMemcpyNode, &node, graph,
                                        after.data(), after.size(), &params,
                                        Context->context()));
  } else {
    CUDA_MEMSET_NODE_PARAMS params = memsetParams(std::get<GpuFill>(operation));
    KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuGraphAddMemsetNode, &node, graph,
                                        after.data(), after.size(), &params,
                                        Context->context()));
  }
  if (!early.empty()) {
    // The kernel may start once every workgroup of the earlier one has
    // finished (no kernel of ours triggers sooner), before that kernel's
    // completion is flushed and its successor launched the usual way; its
    // griddepcontrol.wait holds it until the earlier kernel is done.
    // Kernels that wait exist for sm_90 and later only, where these edges
    // exist too.
    CUgraphEdgeData data = {};
    data.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
    data.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
    std::vector<CUgraphEdgeData> edges(early.size(), data);
    std::vector<CUgraphNode> to(early.size(), node);
    KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuGraphAddDependencies_v2, graph,
                                        early.data(), to.data(), edges.data(),
                                        early.size()));
  }
  return cast<GpuGraphNodeHandle>(node);
}

StatusOr<GpuGraphExecHandle> CudaApi::instantiateGraph(GpuGraphHandle graph) {
  CUgraphExec exec = nullptr;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(symbols(), cuGraphInstantiateWithFlags,
                                      &exec, cast<CUgraph>(graph), 0));
  return cast<GpuGraphExecHandle>(exec);
}

void CudaApi::destroyGraphExec(GpuGraphExecHandle exec) {
  symbols().cuGraphExecDestroy(cast<CUgraphExec>(exec));
}

Status CudaApi::updateGraphNode(GpuGraphExecHandle handle,
                                GpuGraphNodeHandle nodeHandle,
                                const GpuOperation &operation) {
  const CudaSymbols &cu = symbols();
  auto exec = cast<CUgraphExec>(handle);
  auto node = cast<CUgraphNode>(nodeHandle);
  if (const auto *launch = std::get_if<GpuKernelLaunch>(&operation)) {
    CUDA_KERNEL_NODE_PARAMS_v2 params = kernelParams(*launch);
    return KILN_CUDA_CALL(cu, cuGraphExecKernelNodeSetParams_v2, exec, node,
                          &params);
  }
  if (const auto *copy = std::get_if<GpuCopy>(&operation)) {
    CUDA_MEMCPY3D params = copyParams(*copy);
    return KILN_CUDA_CALL(cu, cuGraphExecMemcpyNodeSetParams, exec, node,
                          &params, Context->context());
  }
  CUDA_MEMSET_NODE_PARAMS params = memsetParams(std::get<GpuFill>(operation));
  return KILN_CUDA_CALL(cu, cuGraphExecMemsetNodeSetParams, exec, node, &params,
                        Context->context());
}

Status CudaApi::launchGraph(GpuGraphExecHandle exec, GpuStreamHandle stream) {
  return KILN_CUDA_CALL(symbols(), cuGraphLaunch, cast<CUgraphExec>(exec),
                        cast<CUstream>(stream));
}

StatusOr<GpuGraphEdges> CudaApi::graphEdges(GpuGraphHandle handle) {
  const CudaSymbols &cu = symbols();
  auto graph = cast<CUgraph>(handle);
  GpuGraphEdges edges;
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(cu, cuGraphGetNodes, graph, nullptr, &edges.NodeCount));
  size_t count = 0;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuGraphGetEdges_v2, graph, nullptr,
                                      nullptr, nullptr, &count));
  std::vector<CUgraphNode> from(count), to(count);
  std::vector<CUgraphEdgeData> data(count);
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuGraphGetEdges_v2, graph,
                                      from.data(), to.data(), data.data(),
                                      &count));
  for (size_t i = 0; i < count; ++i) {
    edges.Edges.emplace_back(cast<GpuGraphNodeHandle>(from[i]),
                             cast<GpuGraphNodeHandle>(to[i]));
    edges.Early.push_back(data[i].type ==
                          CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC);
  }
  return edges;
}

} // namespace kiln::hal::cuda
