//===- GpuGraphCommandBuffer.h - Commands as a GPU graph ------------------===//
//
// Graph mode: each command that does something becomes a node (a fill a
// memset node, a copy a memcpy node, a dispatch a kernel node) whose
// dependencies are what the recording's barriers, events and dependOn
// require and nothing more (GpuGraphDependencies), so independent commands
// may run at once. The graph is built and instantiated at the first
// submission, when binding-table addresses are known, and relaunched after.
// A later submission whose table puts other buffers in some slots patches
// the parameters of just the nodes using those slots into the instance
// (GpuApi::updateGraphNode); only if the driver refuses a patch (a slot
// that moved between device and host memory, say) is the graph rebuilt.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUGRAPHCOMMANDBUFFER_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUGRAPHCOMMANDBUFFER_H

#include "runtime/hal/drivers/gpu/GpuCommandBuffer.h"
#include "runtime/hal/drivers/gpu/GpuGraphDependencies.h"

#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace kiln::hal::gpu {

class GpuGraphCommandBuffer final : public GpuCommandBuffer {
public:
  GpuGraphCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity,
                        std::shared_ptr<GpuApi> api,
                        const GpuDeviceLimits &limits)
      : GpuCommandBuffer(GpuCommandBufferKind::Graph, mode, bindingCapacity,
                         std::move(api), limits) {}
  ~GpuGraphCommandBuffer() override;

  Status execute(GpuStreamHandle stream,
                 std::span<const uint64_t> slotAddresses) override;

  /// The built graph as the driver reports it (GpuApi::graphEdges), for
  /// tests and diagnostics. Commands are numbered by recording order
  /// (fills, copies and dispatches; barriers and events are not commands).
  struct Shape {
    size_t NodeCount = 0;
    /// (from, to): command `to` waits for command `from`; ascending.
    std::vector<std::pair<uint32_t, uint32_t>> Edges;
    /// Those of Edges along which `to` may start early (GpuGraphDependency).
    std::vector<std::pair<uint32_t, uint32_t>> EarlyEdges;
  };
  /// FailedPrecondition until a submission has built the graph.
  StatusOr<Shape> graphShape() const;

  struct Statistics {
    uint64_t Instantiations = 0;
    uint64_t Launches = 0;
    /// Node parameter updates written into the instance.
    uint64_t PatchedNodes = 0;
  };
  Statistics statistics() const;

protected:
  void commandRecorded() override;
  Status recordExecutionBarrier() override;
  Status recordSignalEvent(const std::shared_ptr<Event> &event) override;
  Status recordWaitEvent(const std::shared_ptr<Event> &event) override;

private:
  struct Node {
    uint32_t Command;                   // index into Commands
    std::vector<uint32_t> Dependencies; // earlier nodes
  };

  // Creates the graph from Nodes with these addresses and instantiates it.
  Status build(std::span<const uint64_t> slotAddresses);
  // Writes the parameters of the nodes that use changed slots into Exec.
  Status patch(std::span<const uint64_t> slotAddresses);
  // Destroys Exec and Graph (the context must be current).
  void release();

  GpuGraphDependencies Dependencies;
  std::vector<Node> Nodes;
  // For each binding slot, the nodes whose parameters hold its address.
  std::vector<std::vector<uint32_t>> SlotNodes;

  // Guards everything below: submissions to one device are serialized by
  // its queue, but nothing stops two devices sharing a recording.
  mutable std::mutex Mutex;
  GpuGraphHandle Graph = nullptr;
  GpuGraphExecHandle Exec = nullptr;
  std::vector<GpuGraphNodeHandle> Handles; // Handles[i] is node i in Graph
  // The slot addresses the instance was built or last patched with.
  std::vector<uint64_t> InstanceSlots;
  Statistics Stats;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUGRAPHCOMMANDBUFFER_H
