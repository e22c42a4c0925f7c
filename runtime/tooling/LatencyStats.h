//===- LatencyStats.h - Summary statistics of repeated timings ------------===//
//
// Median and robust spread (p10/p90 and the median absolute deviation),
// which describe a noisy latency distribution better than mean and stddev.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_LATENCYSTATS_H
#define KILN_RUNTIME_TOOLING_LATENCYSTATS_H

#include <cstddef>
#include <string>
#include <vector>

namespace kiln::tooling {

struct LatencyStats {
  size_t Count = 0;
  double Min = 0;
  double Max = 0;
  double Mean = 0;
  double Median = 0;
  double P10 = 0;
  double P90 = 0;
  /// Median absolute deviation from the median.
  double Mad = 0;
};

/// Statistics of `samples` (seconds); all zero when there are none.
LatencyStats computeLatencyStats(std::vector<double> samples);

/// Linear-interpolated percentile (0..100) of sorted samples.
double percentile(const std::vector<double> &sorted, double p);

struct DurationUnit {
  const char *Name; // "s", "ms", "us" or "ns"
  double PerSecond;
};

/// The largest unit that shows `seconds` as a value >= 1.
DurationUnit durationUnit(double seconds);

/// Seconds in `unit` with three decimals: "1.234 ms".
std::string formatDuration(double seconds, DurationUnit unit);

/// Seconds in durationUnit(seconds).
std::string formatDuration(double seconds);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_LATENCYSTATS_H
