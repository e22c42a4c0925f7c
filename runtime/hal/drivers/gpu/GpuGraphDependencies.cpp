//===- GpuGraphDependencies.cpp ------------------------------------------===//

#include "runtime/hal/drivers/gpu/GpuGraphDependencies.h"

#include <algorithm>
#include <iterator>

namespace kiln::hal::gpu {

std::vector<uint32_t>
GpuGraphDependencies::namedNodes(std::span<const uint32_t> commands) const {
  std::vector<uint32_t> nodes;
  for (uint32_t command : commands)
    for (uint32_t node : CommandNodes[command])
      if (node >= Required.End)
        nodes.push_back(node);
  // Empty commands can stand for overlapping sets of nodes.
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

void GpuGraphDependencies::dropReached(
    std::vector<uint32_t> &candidates) const {
  if (candidates.size() < 2)
    return;
  // Edges only point back to lower numbers, so only a higher candidate can
  // reach a lower one: walk down from the highest, marking what each kept
  // candidate reaches. A dropped candidate's reach is inside a kept one's.
  uint32_t lowest = candidates.front();
  std::vector<bool> reached(NodeCount - lowest, false);
  // Every node below `covered` is reached: a visited node follows that
  // whole prefix, which also spares walking into it.
  uint32_t covered = 0;
  std::vector<uint32_t> kept, stack;
  for (auto candidate = candidates.rbegin(); candidate != candidates.rend();
       ++candidate) {
    if (*candidate < covered || reached[*candidate - lowest])
      continue;
    kept.push_back(*candidate);
    stack.push_back(*candidate);
    while (!stack.empty()) {
      uint32_t node = stack.back();
      stack.pop_back();
      covered = std::max(covered, FollowsEnd[node]);
      for (uint32_t dependency : NodeDependencies[node]) {
        if (dependency < std::max(lowest, covered) ||
            reached[dependency - lowest])
          continue;
        reached[dependency - lowest] = true;
        stack.push_back(dependency);
      }
    }
  }
  candidates.assign(kept.rbegin(), kept.rend());
}

std::vector<uint32_t>
GpuGraphDependencies::addNode(std::span<const uint32_t> commands) {
  std::vector<uint32_t> named = namedNodes(commands);
  std::vector<uint32_t> dependencies;
  if (named.empty()) {
    // Sinks never reach each other: nothing to drop.
    dependencies = Required.Sinks;
  } else if (std::any_of(named.begin(), named.end(), [&](uint32_t node) {
               return FollowsEnd[node] == Required.End;
             })) {
    // That named node followed the same required prefix, so it reaches the
    // prefix's sinks already (the usual case: the next link of a chain).
    dependencies = std::move(named);
    dropReached(dependencies);
  } else {
    std::set_union(Required.Sinks.begin(), Required.Sinks.end(), named.begin(),
                   named.end(), std::back_inserter(dependencies));
    dropReached(dependencies);
  }
  // The dependencies stop being sinks (a candidate dropped above was no
  // sink: something it reaches through depends on it). Sinks stays
  // ascending because the new node is the largest.
  std::vector<uint32_t> remaining;
  remaining.reserve(Sinks.size() + 1);
  std::set_difference(Sinks.begin(), Sinks.end(), dependencies.begin(),
                      dependencies.end(), std::back_inserter(remaining));
  uint32_t node = NodeCount++;
  remaining.push_back(node);
  Sinks = std::move(remaining);
  CommandNodes.push_back({node});
  NodeDependencies.push_back(dependencies);
  FollowsEnd.push_back(Required.End);
  return dependencies;
}

void GpuGraphDependencies::addEmptyCommand(std::span<const uint32_t> commands) {
  // Nodes inside today's required prefix can be left out: every later
  // command's required prefix contains them too.
  CommandNodes.push_back(namedNodes(commands));
}

void GpuGraphDependencies::barrier() {
  // With no node since the last cut, the required prefix is already all.
  if (Required.End == NodeCount)
    return;
  Required = Prefix{NodeCount, Sinks};
}

void GpuGraphDependencies::signal(const void *event) {
  Prefix prefix{NodeCount, Sinks};
  for (auto &[signalled, recorded] : Signalled)
    if (signalled == event) {
      recorded = std::move(prefix);
      return;
    }
  Signalled.emplace_back(event, std::move(prefix));
}

void GpuGraphDependencies::wait(const void *event) {
  for (const auto &[signalled, recorded] : Signalled)
    // Prefixes nest: a shorter one than the one already required (a signal
    // before the last barrier, say) adds nothing.
    if (signalled == event && recorded.End > Required.End)
      Required = recorded;
}

} // namespace kiln::hal::gpu
