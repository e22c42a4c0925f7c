//===- GpuGraphDependencies.h - HAL ordering as graph edges --------------===//
//
// A command buffer orders its commands through barriers, events and
// dependOn. Barriers and events order a prefix of the recording before a
// suffix of it: a barrier splits at one point, signalEvent(e) ...
// waitEvent(e) puts everything before the signal ahead of everything after
// the wait. So each node has to follow one prefix of the nodes before it
// (the longest one any barrier or waited event recorded before it names),
// plus whatever earlier commands dependOn named for it.
//
// The direct dependencies that make a whole prefix run first are that
// prefix's sinks (its nodes that no other node of the prefix follows):
// every other node of the prefix reaches one of them. A node's
// dependencies are those sinks and the nodes of its named commands, less
// every one of them that another already reaches: a named node inside the
// required prefix (a sink reaches it), the sinks when a named node already
// follows the whole prefix, a named node behind another named one. So the
// graph holds no edge the recording does not ask for, implied ones
// included, and two chains that only dependOn links get no edge between
// them.
//
// Commands and nodes are numbered apart: a command that does no work is no
// node (CUDA and HIP refuse empty nodes), but later commands may still name it.
// Such a command passes its own named dependencies through: naming it
// means naming the nodes it would have waited for, resolved when it is
// recorded (so a chain of empty commands collapses to the nodes at its
// start). What barriers and events required of it needs no passing on: a
// later command's required prefix is at least as long.
//
// Nothing here calls a GPU: this is the part of graph recording that can be
// tested without a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUGRAPHDEPENDENCIES_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUGRAPHDEPENDENCIES_H

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace kiln::hal::gpu {

class GpuGraphDependencies {
public:
  /// Adds the next command as the next node (both numbered from 0 in the
  /// order added) that also waits for the earlier commands `commands`
  /// (ascending and distinct, as CommandBuffer::commandDependencies gives
  /// them), and returns the earlier nodes it depends on directly, in
  /// ascending order.
  std::vector<uint32_t> addNode(std::span<const uint32_t> commands = {});
  /// Adds the next command, one that does no work and so is no node; a
  /// later command naming it waits for what `commands` resolve to.
  void addEmptyCommand(std::span<const uint32_t> commands = {});
  /// Everything added from now on follows everything added before.
  void barrier();
  /// Remembers the nodes added so far under `event`; a second signal of the
  /// same event replaces the first.
  void signal(const void *event);
  /// Everything added from now on follows the nodes added before
  /// signal(event); an event never signalled orders nothing.
  void wait(const void *event);

  uint32_t nodeCount() const { return NodeCount; }
  uint32_t commandCount() const {
    return static_cast<uint32_t>(CommandNodes.size());
  }

private:
  // The nodes before `End`, represented by the sinks among them.
  struct Prefix {
    uint32_t End = 0;
    std::vector<uint32_t> Sinks;
  };

  // The nodes `commands` stand for that are not inside the required prefix
  // (those the prefix's sinks reach already), ascending and distinct.
  std::vector<uint32_t> namedNodes(std::span<const uint32_t> commands) const;
  // Drops from `candidates` (ascending) every node another one reaches.
  void dropReached(std::vector<uint32_t> &candidates) const;

  uint32_t NodeCount = 0;
  // For each command, the nodes naming it stands for: itself if it is a
  // node, else what its own named commands resolved to.
  std::vector<std::vector<uint32_t>> CommandNodes;
  // For each node, its direct dependencies and the end of the prefix it
  // was required to follow (it reaches every node before that end). No
  // node it reaches had a longer one: required prefixes only grow.
  std::vector<std::vector<uint32_t>> NodeDependencies;
  std::vector<uint32_t> FollowsEnd;
  // Nodes no other node depends on yet, ascending.
  std::vector<uint32_t> Sinks;
  // The prefix the next node must follow.
  Prefix Required;
  std::vector<std::pair<const void *, Prefix>> Signalled;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUGRAPHDEPENDENCIES_H
