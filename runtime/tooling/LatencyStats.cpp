//===- LatencyStats.cpp ---------------------------------------------------===//

#include "runtime/tooling/LatencyStats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace kiln::tooling {

double percentile(const std::vector<double> &sorted, double p) {
  if (sorted.empty())
    return 0;
  double rank = std::clamp(p, 0.0, 100.0) / 100.0 *
                static_cast<double>(sorted.size() - 1);
  auto below = static_cast<size_t>(std::floor(rank));
  size_t above = std::min(below + 1, sorted.size() - 1);
  double fraction = rank - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

LatencyStats computeLatencyStats(std::vector<double> samples) {
  LatencyStats stats;
  if (samples.empty())
    return stats;
  std::sort(samples.begin(), samples.end());
  stats.Count = samples.size();
  stats.Min = samples.front();
  stats.Max = samples.back();
  stats.Mean = std::accumulate(samples.begin(), samples.end(), 0.0) /
               static_cast<double>(samples.size());
  stats.Median = percentile(samples, 50);
  stats.P10 = percentile(samples, 10);
  stats.P90 = percentile(samples, 90);
  std::vector<double> deviations;
  deviations.reserve(samples.size());
  for (double sample : samples)
    deviations.push_back(std::fabs(sample - stats.Median));
  std::sort(deviations.begin(), deviations.end());
  stats.Mad = percentile(deviations, 50);
  return stats;
}

DurationUnit durationUnit(double seconds) {
  double magnitude = std::fabs(seconds);
  if (magnitude < 1e-6)
    return {"ns", 1e9};
  if (magnitude < 1e-3)
    return {"us", 1e6};
  if (magnitude < 1)
    return {"ms", 1e3};
  return {"s", 1};
}

std::string formatDuration(double seconds, DurationUnit unit) {
  char buffer[64];
  // Three decimals: enough to compare runs, and a fixed shape that lines up
  // in a terminal.
  std::snprintf(buffer, sizeof(buffer), "%.3f %s", seconds * unit.PerSecond,
                unit.Name);
  return buffer;
}

std::string formatDuration(double seconds) {
  return formatDuration(seconds, durationUnit(seconds));
}

} // namespace kiln::tooling
