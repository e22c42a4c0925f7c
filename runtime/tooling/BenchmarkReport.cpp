//===- BenchmarkReport.cpp ------------------------------------------------===//

#include "runtime/tooling/BenchmarkReport.h"

#include "runtime/tooling/LatencyStats.h"

#include <cstdio>

namespace kiln::tooling {

namespace {

// The median absolute deviation as a share of the median: "1.5%".
std::string madShare(const LatencyStats &stats) {
  char share[32];
  std::snprintf(share, sizeof(share), "%.1f%%",
                stats.Median > 0 ? 100.0 * stats.Mad / stats.Median : 0.0);
  return share;
}

// "12.000 us (MAD 1.5%)".
std::string medianAndSpread(const std::vector<double> &samples) {
  LatencyStats stats = computeLatencyStats(samples);
  return formatDuration(stats.Median) + " (MAD " + madShare(stats) + ")";
}

void printStats(std::ostream &out, std::vector<double> samples) {
  LatencyStats stats = computeLatencyStats(std::move(samples));
  DurationUnit unit = durationUnit(stats.Median);
  auto time = [&](double seconds) { return formatDuration(seconds, unit); };
  out << "  median    " << time(stats.Median) << "\n"
      << "  min       " << time(stats.Min) << "\n"
      << "  max       " << time(stats.Max) << "\n"
      << "  p10-p90   " << time(stats.P10) << " - " << time(stats.P90) << "\n"
      << "  MAD       " << time(stats.Mad) << " (" << madShare(stats)
      << " of the median)\n"
      << "  mean      " << time(stats.Mean) << "\n";
}

} // namespace

void printBenchmarkReport(std::ostream &out, std::string_view function,
                          std::string_view device,
                          const BenchmarkOptions &options,
                          const BenchmarkSamples &samples) {
  out << "EXEC @" << function << " on " << device << ": " << options.Repetitions
      << " timed calls after " << options.Warmup << " warm-up calls\n";
  if (options.IncludeTransfers)
    out << "each call copies its inputs to the device and its results back\n";
  else
    out << "inputs were copied to the device once; results stay there (no "
           "host<->device copies in the timed calls)\n";
  out << "host time per call (the host's clock around each call):\n";
  printStats(out, samples.HostSeconds);
  if (samples.DeviceSeconds.empty()) {
    out << "device time per call: not measured (" << samples.NoDeviceTime
        << ")\n";
    return;
  }
  out << "device time per call (the device's clock around the call's "
         "commands):\n";
  printStats(out, samples.DeviceSeconds);
}

void printInputSetSummary(std::ostream &out,
                          std::span<const std::string> labels,
                          std::span<const BenchmarkSamples> samples) {
  out << "median per input set (host clock; device clock where measured):\n";
  for (size_t i = 0; i < labels.size() && i < samples.size(); ++i) {
    out << "  set " << i + 1 << " (" << labels[i] << "): host "
        << medianAndSpread(samples[i].HostSeconds);
    if (!samples[i].DeviceSeconds.empty())
      out << ", device " << medianAndSpread(samples[i].DeviceSeconds);
    out << "\n";
  }
}

void printFunctionTimes(std::ostream &out,
                        std::span<const module::FunctionTime> times,
                        int64_t calls) {
  if (calls <= 0 || times.empty())
    return;
  out << "host time per call by function, us (a function running phases or "
         "loops includes theirs; other = total less the parts):\n";
  char line[256];
  std::snprintf(line, sizeof(line), "  %10s %10s %9s %9s %9s %9s %9s %9s  %s\n",
                "runs", "total", "read", "shapes", "allocate", "record", "run",
                "other", "function");
  out << line;
  for (const module::FunctionTime &time : times) {
    double perCall = 1e6 / double(calls);
    double parts = time.ReadSeconds + time.ShapeSeconds + time.AllocateSeconds +
                   time.RecordSeconds + time.RunSeconds;
    std::snprintf(line, sizeof(line),
                  "  %10.1f %10.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f  %s\n",
                  double(time.Runs) / double(calls),
                  time.TotalSeconds * perCall, time.ReadSeconds * perCall,
                  time.ShapeSeconds * perCall, time.AllocateSeconds * perCall,
                  time.RecordSeconds * perCall, time.RunSeconds * perCall,
                  (time.TotalSeconds - parts) * perCall, time.Name.c_str());
    out << line;
  }
}

} // namespace kiln::tooling
