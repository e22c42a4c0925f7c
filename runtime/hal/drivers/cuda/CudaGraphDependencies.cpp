//===- CudaGraphDependencies.cpp ------------------------------------------===//

#include "runtime/hal/drivers/cuda/CudaGraphDependencies.h"

#include <algorithm>
#include <iterator>

namespace kiln::hal::cuda {

std::vector<uint32_t> CudaGraphDependencies::addNode() {
  std::vector<uint32_t> dependencies = Required.Sinks;
  // The dependencies stop being sinks; Sinks stays ascending because the
  // new node is the largest.
  std::vector<uint32_t> remaining;
  remaining.reserve(Sinks.size() + 1);
  std::set_difference(Sinks.begin(), Sinks.end(), dependencies.begin(),
                      dependencies.end(), std::back_inserter(remaining));
  remaining.push_back(NodeCount++);
  Sinks = std::move(remaining);
  return dependencies;
}

void CudaGraphDependencies::barrier() {
  // With no node since the last cut, the required prefix is already all.
  if (Required.End == NodeCount)
    return;
  Required = Prefix{NodeCount, Sinks};
}

void CudaGraphDependencies::signal(const void *event) {
  Prefix prefix{NodeCount, Sinks};
  for (auto &[signalled, recorded] : Signalled)
    if (signalled == event) {
      recorded = std::move(prefix);
      return;
    }
  Signalled.emplace_back(event, std::move(prefix));
}

void CudaGraphDependencies::wait(const void *event) {
  for (const auto &[signalled, recorded] : Signalled)
    // Prefixes nest: a shorter one than the one already required (a signal
    // before the last barrier, say) adds nothing.
    if (signalled == event && recorded.End > Required.End)
      Required = recorded;
}

} // namespace kiln::hal::cuda
