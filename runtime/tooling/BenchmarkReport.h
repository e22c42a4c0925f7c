//===- BenchmarkReport.h - What kiln-benchmark-module prints --------------===//
//
// A header saying what was timed, then per clock the median with its spread
// (min, max, p10-p90, median absolute deviation, mean), in one unit per
// clock so the lines compare at a glance. bench/run_gpu_bench.py reads the
// "median" line of each section, so the section titles are part of the
// contract:
//   host time per call (...)
//   device time per call (...)      or   device time per call: not measured
//   (why)
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_BENCHMARKREPORT_H
#define KILN_RUNTIME_TOOLING_BENCHMARKREPORT_H

#include "runtime/tooling/BenchmarkLoop.h"

#include <ostream>
#include <span>
#include <string>
#include <string_view>

namespace kiln::tooling {

void printBenchmarkReport(std::ostream &out, std::string_view function,
                          std::string_view device,
                          const BenchmarkOptions &options,
                          const BenchmarkSamples &samples);

/// After one report per input set (kiln-benchmark-module --input_set, a
/// function with dynamic shapes timed at several): a line per set naming
/// its inputs' types (`labels`) with the median and the MAD's share of it
/// by each clock measured, so the shapes compare at a glance.
void printInputSetSummary(std::ostream &out,
                          std::span<const std::string> labels,
                          std::span<const BenchmarkSamples> samples);

/// With --function_times: a row per function that ran in the host-clock
/// pass (a phase, a loop's body, the function called), its runs per call
/// and the mean host time per call of its total and of each part
/// (module::FunctionTime), in microseconds; `calls` is that pass's count.
void printFunctionTimes(std::ostream &out,
                        std::span<const module::FunctionTime> times,
                        int64_t calls);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_BENCHMARKREPORT_H
