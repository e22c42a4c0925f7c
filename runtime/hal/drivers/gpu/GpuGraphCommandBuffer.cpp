//===- GpuGraphCommandBuffer.cpp -----------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuGraphCommandBuffer.h"

#include <algorithm>
#include <unordered_map>

namespace kiln::hal::gpu {

GpuGraphCommandBuffer::~GpuGraphCommandBuffer() {
  if (!Graph && !Exec)
    return;
  GpuApi::Scope scope(api());
  release();
}

void GpuGraphCommandBuffer::release() {
  if (Exec)
    api().destroyGraphExec(Exec);
  if (Graph)
    api().destroyGraph(Graph);
  Exec = nullptr;
  Graph = nullptr;
  Handles.clear();
}

void GpuGraphCommandBuffer::commandRecorded() {
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

Status GpuGraphCommandBuffer::recordExecutionBarrier() {
  Dependencies.barrier();
  return Status();
}

Status
GpuGraphCommandBuffer::recordSignalEvent(const std::shared_ptr<Event> &event) {
  KILN_RETURN_IF_ERROR(keepEvent(event));
  Dependencies.signal(event.get());
  return Status();
}

Status
GpuGraphCommandBuffer::recordWaitEvent(const std::shared_ptr<Event> &event) {
  KILN_RETURN_IF_ERROR(keepEvent(event));
  Dependencies.wait(event.get());
  return Status();
}

Status GpuGraphCommandBuffer::build(std::span<const uint64_t> slotAddresses) {
  KILN_ASSIGN_OR_RETURN(Graph, api().createGraph());
  Handles.reserve(Nodes.size());
  for (const Node &node : Nodes) {
    // A kernel that waits for its prerequisites itself may start while the
    // kernels before it finish; anything else waits for what it follows.
    const auto *dispatch =
        std::get_if<DispatchCommand>(&Commands[node.Command]);
    bool waits = dispatch && dispatch->WaitsForPrerequisites;
    std::vector<GpuGraphDependency> dependencies;
    dependencies.reserve(node.Dependencies.size());
    for (uint32_t dependency : node.Dependencies)
      dependencies.push_back(
          {Handles[dependency],
           waits && std::holds_alternative<DispatchCommand>(
                        Commands[Nodes[dependency].Command])});
    // The parameter values are copied into the node before this returns.
    std::optional<KernelArguments> arguments;
    StatusOr<GpuGraphNodeHandle> added = api().addGraphNode(
        Graph, operation(Commands[node.Command], slotAddresses, arguments),
        dependencies);
    if (!added.ok()) {
      release();
      Status status = added.status();
      return status.annotate(strCat("adding command ", node.Command, " to a ",
                                    api().name(), " graph"));
    }
    Handles.push_back(*added);
  }
  StatusOr<GpuGraphExecHandle> instantiated = api().instantiateGraph(Graph);
  if (!instantiated.ok()) {
    release();
    return instantiated.status();
  }
  Exec = *instantiated;
  ++Stats.Instantiations;
  InstanceSlots.assign(slotAddresses.begin(), slotAddresses.end());
  return Status();
}

Status GpuGraphCommandBuffer::patch(std::span<const uint64_t> slotAddresses) {
  std::vector<bool> stale(Nodes.size(), false);
  bool any = false;
  for (size_t slot = 0; slot < SlotNodes.size(); ++slot) {
    if (SlotNodes[slot].empty())
      continue;
    uint64_t before = slot < InstanceSlots.size() ? InstanceSlots[slot] : 0;
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
    std::optional<KernelArguments> arguments;
    KILN_RETURN_IF_ERROR(api().updateGraphNode(
        Exec, Handles[node],
        operation(Commands[Nodes[node].Command], slotAddresses, arguments)));
    ++Stats.PatchedNodes;
  }
  InstanceSlots.assign(slotAddresses.begin(), slotAddresses.end());
  return Status();
}

Status GpuGraphCommandBuffer::execute(GpuStreamHandle stream,
                                      std::span<const uint64_t> slotAddresses) {
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
    // Some updates the driver refuses in place; a new instance takes any
    // addresses. Nodes patched before the refusal are rebuilt too.
    release();
    if (Status rebuilt = build(slotAddresses); !rebuilt.ok())
      return rebuilt.annotate(strCat("rebuilding the ", api().name(),
                                     " graph after ", patched.toString()));
  }
  KILN_RETURN_IF_ERROR(api().launchGraph(Exec, stream));
  ++Stats.Launches;
  return Status();
}

StatusOr<GpuGraphCommandBuffer::Shape>
GpuGraphCommandBuffer::graphShape() const {
  std::lock_guard<std::mutex> lock(Mutex);
  Shape shape;
  if (Nodes.empty())
    return shape;
  if (!Graph)
    return KILN_ERROR(FailedPrecondition, "the ", api().name(),
                      " graph is built at the first submission");
  GpuApi::Scope scope(api());
  KILN_ASSIGN_OR_RETURN(GpuGraphEdges edges, api().graphEdges(Graph));
  shape.NodeCount = edges.NodeCount;
  std::unordered_map<GpuGraphNodeHandle, uint32_t> commandOf;
  for (size_t node = 0; node < Handles.size(); ++node)
    commandOf.emplace(Handles[node], Nodes[node].Command);
  for (size_t edge = 0; edge < edges.Edges.size(); ++edge) {
    const auto &[from, to] = edges.Edges[edge];
    auto source = commandOf.find(from);
    auto target = commandOf.find(to);
    if (source == commandOf.end() || target == commandOf.end())
      return KILN_ERROR(Internal, "the ", api().name(),
                        " graph has an edge between nodes this command "
                        "buffer did not add");
    shape.Edges.emplace_back(source->second, target->second);
    if (edge < edges.Early.size() && edges.Early[edge])
      shape.EarlyEdges.emplace_back(source->second, target->second);
  }
  std::sort(shape.Edges.begin(), shape.Edges.end());
  std::sort(shape.EarlyEdges.begin(), shape.EarlyEdges.end());
  return shape;
}

GpuGraphCommandBuffer::Statistics GpuGraphCommandBuffer::statistics() const {
  std::lock_guard<std::mutex> lock(Mutex);
  return Stats;
}

} // namespace kiln::hal::gpu
