//===- CudaGraphCommandBuffer.cpp -----------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaGraphCommandBuffer.h"

#include "runtime/hal/drivers/cuda/CudaStatus.h"

#include <algorithm>
#include <unordered_map>

namespace kiln::hal::cuda {
namespace {

// A 1-D copy: one row, so pitches and heights stay 0 (a pitch would be
// capped at the device's maximum, far below the largest copy). Unified
// addressing lets CUDA tell device memory from pinned host memory itself,
// as cuMemcpyAsync does in stream mode.
CUDA_MEMCPY3D copyParams(CUdeviceptr source, CUdeviceptr target,
                         uint64_t length) {
  CUDA_MEMCPY3D params = {};
  params.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  params.srcDevice = source;
  params.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  params.dstDevice = target;
  params.WidthInBytes = length;
  params.Height = 1;
  params.Depth = 1;
  return params;
}

CUDA_MEMSET_NODE_PARAMS memsetParams(CUdeviceptr target, uint64_t length,
                                     uint32_t pattern, uint8_t patternLength) {
  CUDA_MEMSET_NODE_PARAMS params = {};
  params.dst = target;
  // CommandBuffer::fill checked that the pattern fits its length and that
  // offset and length are multiples of it.
  params.value = pattern;
  params.elementSize = patternLength;
  params.width = length / patternLength;
  params.height = 1;
  return params;
}

} // namespace

CudaGraphCommandBuffer::~CudaGraphCommandBuffer() {
  if (!Graph && !Exec)
    return;
  CudaContext::Scope scope(context());
  release();
}

void CudaGraphCommandBuffer::release() {
  // Nothing to report to: destroying a valid handle does not fail.
  if (Exec)
    symbols().cuGraphExecDestroy(Exec);
  if (Graph)
    symbols().cuGraphDestroy(Graph);
  Exec = nullptr;
  Graph = nullptr;
  Handles.clear();
}

CUDA_KERNEL_NODE_PARAMS_v2
CudaGraphCommandBuffer::kernelParams(const DispatchCommand &dispatch,
                                     KernelArguments &arguments) {
  CUDA_KERNEL_NODE_PARAMS_v2 params = {};
  params.func = dispatch.Function;
  params.gridDimX = dispatch.Grid[0];
  params.gridDimY = dispatch.Grid[1];
  params.gridDimZ = dispatch.Grid[2];
  params.blockDimX = dispatch.Block[0];
  params.blockDimY = dispatch.Block[1];
  params.blockDimZ = dispatch.Block[2];
  params.sharedMemBytes = dispatch.SharedMemoryBytes;
  params.kernelParams = arguments.pointers();
  return params;
}

void CudaGraphCommandBuffer::commandRecorded() {
  const Command &command = Commands.back();
  // Commands.size() is the HAL's command count: the dependencies name
  // indices into Commands.
  if (doesNothing(command)) {
    // No node, but a later command may name it.
    Dependencies.addEmptyCommand(commandDependencies());
    return;
  }
  auto index = static_cast<uint32_t>(Nodes.size());
  auto noteSlot = [&](const Range &range) {
    if (!range.isIndirect())
      return;
    if (SlotNodes.size() <= range.Slot)
      SlotNodes.resize(range.Slot + 1);
    std::vector<uint32_t> &nodes = SlotNodes[range.Slot];
    if (nodes.empty() || nodes.back() != index)
      nodes.push_back(index);
  };
  if (const auto *fill = std::get_if<FillCommand>(&command)) {
    noteSlot(fill->Target);
  } else if (const auto *copy = std::get_if<CopyCommand>(&command)) {
    noteSlot(copy->Source);
    noteSlot(copy->Target);
  } else {
    for (const Range &binding : std::get<DispatchCommand>(command).Bindings)
      noteSlot(binding);
  }
  Nodes.push_back({static_cast<uint32_t>(Commands.size() - 1),
                   Dependencies.addNode(commandDependencies())});
}

Status CudaGraphCommandBuffer::recordExecutionBarrier() {
  Dependencies.barrier();
  return Status();
}

Status
CudaGraphCommandBuffer::recordSignalEvent(const std::shared_ptr<Event> &event) {
  KILN_RETURN_IF_ERROR(keepEvent(event));
  Dependencies.signal(event.get());
  return Status();
}

Status
CudaGraphCommandBuffer::recordWaitEvent(const std::shared_ptr<Event> &event) {
  KILN_RETURN_IF_ERROR(keepEvent(event));
  Dependencies.wait(event.get());
  return Status();
}

Status
CudaGraphCommandBuffer::addNode(CUgraph graph, const Node &node,
                                std::span<const CUdeviceptr> slotAddresses,
                                CUgraphNode *created) const {
  const CudaSymbols &cu = symbols();
  std::vector<CUgraphNode> dependencies;
  dependencies.reserve(node.Dependencies.size());
  for (uint32_t dependency : node.Dependencies)
    dependencies.push_back(Handles[dependency]);
  const Command &command = Commands[node.Command];
  if (const auto *dispatch = std::get_if<DispatchCommand>(&command)) {
    // The parameter values are copied into the node before this returns.
    KernelArguments arguments(*dispatch, slotAddresses);
    CUDA_KERNEL_NODE_PARAMS_v2 params = kernelParams(*dispatch, arguments);
    return KILN_CUDA_CALL(cu, cuGraphAddKernelNode_v2, created, graph,
                          dependencies.data(), dependencies.size(), &params);
  }
  if (const auto *copy = std::get_if<CopyCommand>(&command)) {
    CUDA_MEMCPY3D params =
        copyParams(copy->Source.resolve(slotAddresses),
                   copy->Target.resolve(slotAddresses), copy->Target.Length);
    return KILN_CUDA_CALL(cu, cuGraphAddMemcpyNode, created, graph,
                          dependencies.data(), dependencies.size(), &params,
                          context().context());
  }
  const auto &fill = std::get<FillCommand>(command);
  CUDA_MEMSET_NODE_PARAMS params =
      memsetParams(fill.Target.resolve(slotAddresses), fill.Target.Length,
                   fill.Pattern, fill.PatternLength);
  return KILN_CUDA_CALL(cu, cuGraphAddMemsetNode, created, graph,
                        dependencies.data(), dependencies.size(), &params,
                        context().context());
}

Status
CudaGraphCommandBuffer::build(std::span<const CUdeviceptr> slotAddresses) {
  const CudaSymbols &cu = symbols();
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuGraphCreate, &Graph, 0));
  Handles.reserve(Nodes.size());
  for (const Node &node : Nodes) {
    CUgraphNode created = nullptr;
    if (Status added = addNode(Graph, node, slotAddresses, &created);
        !added.ok()) {
      release();
      return added.annotate(
          strCat("adding command ", node.Command, " to a CUDA graph"));
    }
    Handles.push_back(created);
  }
  if (Status instantiated =
          KILN_CUDA_CALL(cu, cuGraphInstantiateWithFlags, &Exec, Graph, 0);
      !instantiated.ok()) {
    Exec = nullptr;
    release();
    return instantiated;
  }
  ++Stats.Instantiations;
  InstanceSlots.assign(slotAddresses.begin(), slotAddresses.end());
  return Status();
}

Status CudaGraphCommandBuffer::patchNode(
    uint32_t node, std::span<const CUdeviceptr> slotAddresses) const {
  const CudaSymbols &cu = symbols();
  CUgraphNode handle = Handles[node];
  const Command &command = Commands[Nodes[node].Command];
  if (const auto *dispatch = std::get_if<DispatchCommand>(&command)) {
    KernelArguments arguments(*dispatch, slotAddresses);
    CUDA_KERNEL_NODE_PARAMS_v2 params = kernelParams(*dispatch, arguments);
    return KILN_CUDA_CALL(cu, cuGraphExecKernelNodeSetParams_v2, Exec, handle,
                          &params);
  }
  if (const auto *copy = std::get_if<CopyCommand>(&command)) {
    CUDA_MEMCPY3D params =
        copyParams(copy->Source.resolve(slotAddresses),
                   copy->Target.resolve(slotAddresses), copy->Target.Length);
    return KILN_CUDA_CALL(cu, cuGraphExecMemcpyNodeSetParams, Exec, handle,
                          &params, context().context());
  }
  const auto &fill = std::get<FillCommand>(command);
  CUDA_MEMSET_NODE_PARAMS params =
      memsetParams(fill.Target.resolve(slotAddresses), fill.Target.Length,
                   fill.Pattern, fill.PatternLength);
  return KILN_CUDA_CALL(cu, cuGraphExecMemsetNodeSetParams, Exec, handle,
                        &params, context().context());
}

Status
CudaGraphCommandBuffer::patch(std::span<const CUdeviceptr> slotAddresses) {
  std::vector<bool> stale(Nodes.size(), false);
  bool any = false;
  for (size_t slot = 0; slot < SlotNodes.size(); ++slot) {
    if (SlotNodes[slot].empty())
      continue;
    CUdeviceptr before = slot < InstanceSlots.size() ? InstanceSlots[slot] : 0;
    if (slotAddresses[slot] == before)
      continue;
    for (uint32_t node : SlotNodes[slot])
      stale[node] = true;
    any = true;
  }
  if (!any)
    return Status();
  for (uint32_t node = 0; node < Nodes.size(); ++node) {
    if (!stale[node])
      continue;
    KILN_RETURN_IF_ERROR(patchNode(node, slotAddresses));
    ++Stats.PatchedNodes;
  }
  InstanceSlots.assign(slotAddresses.begin(), slotAddresses.end());
  return Status();
}

Status
CudaGraphCommandBuffer::execute(CUstream stream,
                                std::span<const CUdeviceptr> slotAddresses) {
  std::lock_guard<std::mutex> lock(Mutex);
  // An empty graph would still cost an instantiation and a launch.
  if (Nodes.empty())
    return Status();
  // Device::queueExecute checked that the table holds a buffer in every
  // slot a command uses; resolving addresses relies on it.
  if (SlotNodes.size() > slotAddresses.size())
    return KILN_ERROR(Internal, "the binding table has ", slotAddresses.size(),
                      " slots; the command buffer uses ", SlotNodes.size());
  if (!Exec) {
    KILN_RETURN_IF_ERROR(build(slotAddresses));
  } else if (Status patched = patch(slotAddresses); !patched.ok()) {
    // Some updates CUDA refuses in place; a new instance takes any
    // addresses. Nodes patched before the refusal are rebuilt too.
    release();
    if (Status rebuilt = build(slotAddresses); !rebuilt.ok())
      return rebuilt.annotate(
          strCat("rebuilding the CUDA graph after ", patched.toString()));
  }
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(symbols(), cuGraphLaunch, Exec, stream));
  ++Stats.Launches;
  return Status();
}

StatusOr<CudaGraphCommandBuffer::Shape>
CudaGraphCommandBuffer::graphShape() const {
  std::lock_guard<std::mutex> lock(Mutex);
  Shape shape;
  if (Nodes.empty())
    return shape;
  if (!Graph)
    return KILN_ERROR(FailedPrecondition,
                      "the CUDA graph is built at the first submission");
  const CudaSymbols &cu = symbols();
  CudaContext::Scope scope(context());
  KILN_RETURN_IF_ERROR(
      KILN_CUDA_CALL(cu, cuGraphGetNodes, Graph, nullptr, &shape.NodeCount));
  size_t count = 0;
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuGraphGetEdges_v2, Graph, nullptr,
                                      nullptr, nullptr, &count));
  std::vector<CUgraphNode> from(count), to(count);
  KILN_RETURN_IF_ERROR(KILN_CUDA_CALL(cu, cuGraphGetEdges_v2, Graph,
                                      from.data(), to.data(), nullptr, &count));
  std::unordered_map<CUgraphNode, uint32_t> commandOf;
  for (size_t node = 0; node < Handles.size(); ++node)
    commandOf.emplace(Handles[node], Nodes[node].Command);
  for (size_t i = 0; i < count; ++i) {
    auto source = commandOf.find(from[i]);
    auto target = commandOf.find(to[i]);
    if (source == commandOf.end() || target == commandOf.end())
      return KILN_ERROR(Internal, "the CUDA graph has an edge between nodes "
                                  "this command buffer did not add");
    shape.Edges.emplace_back(source->second, target->second);
  }
  std::sort(shape.Edges.begin(), shape.Edges.end());
  return shape;
}

CudaGraphCommandBuffer::Statistics CudaGraphCommandBuffer::statistics() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return Stats;
}

} // namespace kiln::hal::cuda
