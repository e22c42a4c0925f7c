//===- CudaGraphDependencies.h - HAL ordering as graph edges --------------===//
//
// A command buffer orders its commands only through barriers and events,
// and both order a prefix of the recording before a suffix of it: a barrier
// splits at one point, signalEvent(e) ... waitEvent(e) puts everything
// before the signal ahead of everything after the wait. A node therefore
// has to follow one prefix of the nodes before it: the longest one any
// barrier or waited event recorded before it names.
//
// The direct dependencies that make a whole prefix run first are that
// prefix's sinks (its nodes that no other node of the prefix follows):
// every other node of the prefix reaches one of them. So each node gets
// exactly those edges, and the graph holds no edge the recording does not
// ask for, implied ones included. Nothing here calls CUDA: this is the
// part of graph recording that can be tested without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAGRAPHDEPENDENCIES_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAGRAPHDEPENDENCIES_H

#include <cstdint>
#include <utility>
#include <vector>

namespace kiln::hal::cuda {

class CudaGraphDependencies {
public:
  /// Adds the next node (numbered from 0 in the order added) and returns
  /// the earlier nodes it depends on directly, in ascending order.
  std::vector<uint32_t> addNode();
  /// Everything added from now on follows everything added before.
  void barrier();
  /// Remembers the nodes added so far under `event`; a second signal of the
  /// same event replaces the first.
  void signal(const void *event);
  /// Everything added from now on follows the nodes added before
  /// signal(event); an event never signalled orders nothing.
  void wait(const void *event);

  uint32_t nodeCount() const { return NodeCount; }

private:
  // The nodes before `End`, represented by the sinks among them.
  struct Prefix {
    uint32_t End = 0;
    std::vector<uint32_t> Sinks;
  };

  uint32_t NodeCount = 0;
  // Nodes no other node depends on yet, ascending.
  std::vector<uint32_t> Sinks;
  // The prefix the next node must follow.
  Prefix Required;
  std::vector<std::pair<const void *, Prefix>> Signalled;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDAGRAPHDEPENDENCIES_H
