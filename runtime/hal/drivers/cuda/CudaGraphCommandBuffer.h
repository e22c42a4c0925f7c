//===- CudaGraphCommandBuffer.h - Commands as a CUDA graph ----------------===//
//
// Graph mode: each command that does something becomes a node (a fill a
// memset node, a copy a memcpy node, a dispatch a kernel node) whose
// dependencies are what the recording's barriers, events and dependOn
// require and nothing more (CudaGraphDependencies), so independent commands
// may run at once. The graph is built and instantiated at the first submission,
// when binding-table addresses are known, and relaunched with cuGraphLaunch
// after. A later submission whose table puts other buffers in some slots
// patches the parameters of just the nodes using those slots into the
// instance (cuGraphExec*SetParams); only if CUDA refuses a patch (a slot
// that moved between device and host memory, say) is the graph rebuilt.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAGRAPHCOMMANDBUFFER_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAGRAPHCOMMANDBUFFER_H

#include "runtime/hal/drivers/cuda/CudaCommandBuffer.h"
#include "runtime/hal/drivers/cuda/CudaGraphDependencies.h"

#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

namespace kiln::hal::cuda {

class CudaGraphCommandBuffer final : public CudaCommandBuffer {
public:
  CudaGraphCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity,
                         std::shared_ptr<CudaContext> context,
                         const CudaDeviceLimits &limits)
      : CudaCommandBuffer(CudaCommandBufferKind::Graph, mode, bindingCapacity,
                          std::move(context), limits) {}
  ~CudaGraphCommandBuffer() override;

  Status execute(CUstream stream,
                 std::span<const CUdeviceptr> slotAddresses) override;

  /// The built graph as CUDA reports it (cuGraphGetNodes, cuGraphGetEdges),
  /// for tests and diagnostics. Commands are numbered by recording order
  /// (fills, copies and dispatches; barriers and events are not commands).
  struct Shape {
    size_t NodeCount = 0;
    /// (from, to): command `to` waits for command `from`; ascending.
    std::vector<std::pair<uint32_t, uint32_t>> Edges;
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

  // The values are read from `arguments` when the node is added or set.
  static CUDA_KERNEL_NODE_PARAMS_v2
  kernelParams(const DispatchCommand &dispatch, KernelArguments &arguments);
  // Creates the graph from Nodes with these addresses and instantiates it.
  Status build(std::span<const CUdeviceptr> slotAddresses);
  Status addNode(CUgraph graph, const Node &node,
                 std::span<const CUdeviceptr> slotAddresses,
                 CUgraphNode *created) const;
  // Writes the parameters of the nodes that use changed slots into Exec.
  Status patch(std::span<const CUdeviceptr> slotAddresses);
  Status patchNode(uint32_t node,
                   std::span<const CUdeviceptr> slotAddresses) const;
  // Destroys Exec and Graph (the context must be current).
  void release();

  CudaGraphDependencies Dependencies;
  std::vector<Node> Nodes;
  // For each binding slot, the nodes whose parameters hold its address.
  std::vector<std::vector<uint32_t>> SlotNodes;

  // Guards everything below: submissions to one device are serialized by
  // its queue, but nothing stops two devices sharing a recording.
  mutable std::mutex Mutex;
  CUgraph Graph = nullptr;
  CUgraphExec Exec = nullptr;
  std::vector<CUgraphNode> Handles; // Handles[i] is node i in Graph
  // The slot addresses the instance was built or last patched with.
  std::vector<CUdeviceptr> InstanceSlots;
  Statistics Stats;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAGRAPHCOMMANDBUFFER_H
