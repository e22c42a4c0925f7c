//===- kiln-benchmark-module.cpp - Time calls of a Kiln module function ---===//
//
// Calls a function repeatedly with the same inputs and reports the median
// latency and its spread. Each timed call is the whole ModuleInstance::call:
// input upload, the recorded steps and the result download.
//
//===----------------------------------------------------------------------===//

#include "runtime/tooling/CommonFlags.h"
#include "runtime/tooling/InvocationIo.h"
#include "runtime/tooling/LatencyStats.h"
#include "runtime/tooling/ToolMain.h"
#include "runtime/tooling/ToolSession.h"

#include <chrono>
#include <cstdio>
#include <iostream>

using namespace kiln;
using namespace kiln::tooling;

namespace {

void printStats(const LatencyStats &stats) {
  // One unit for every line, so the numbers compare at a glance.
  DurationUnit unit = durationUnit(stats.Median);
  auto time = [&](double seconds) { return formatDuration(seconds, unit); };
  char share[32];
  std::snprintf(share, sizeof(share), "%.1f%%",
                stats.Median > 0 ? 100.0 * stats.Mad / stats.Median : 0.0);
  std::cout << "median    " << time(stats.Median) << "\n"
            << "min       " << time(stats.Min) << "\n"
            << "max       " << time(stats.Max) << "\n"
            << "p10-p90   " << time(stats.P10) << " - " << time(stats.P90)
            << "\n"
            << "MAD       " << time(stats.Mad) << " (" << share
            << " of the median)\n"
            << "mean      " << time(stats.Mean) << "\n";
}

} // namespace

int main(int argc, char **argv) {
  return runToolMain([&]() -> Status {
    CommonFlags flags;
    int64_t repetitions = 20;
    int64_t warmup = 3;
    FlagParser parser(
        "kiln-benchmark-module --module=<file.kiln> [--function=<name>] "
        "[--input=<tensor>]... [flags]",
        "Calls one function of a Kiln module repeatedly and reports the\n"
        "median latency per call with min, max, p10-p90 and the median\n"
        "absolute deviation. A call includes copying inputs to the device\n"
        "and results back. Results are not printed unless --output asks.\n\n"
        "Example:\n"
        "  kiln-benchmark-module --device=local-task --module=mlp.kiln "
        "--function=main \\\n"
        "      --input=1x784xf32=0.5 --benchmark_repetitions=100");
    registerCommonFlags(parser, flags, /*unmatchedOutputsPrinted=*/false);
    parser.addInt("benchmark_repetitions", &repetitions, 1, "Timed calls.",
                  "100");
    parser.addInt("warmup", &warmup, 0,
                  "Untimed calls made first (the first call also records "
                  "the function's steps).",
                  "5");
    KILN_ASSIGN_OR_RETURN(std::optional<PreparedCall> prepared,
                          prepareCall(parser, flags, argc, argv));
    if (!prepared)
      return Status();
    module::ModuleInstance &instance = *prepared->Loaded.Instance;
    const std::string &name = prepared->Loaded.Signature->Name;
    const std::vector<HostTensor> &inputs = prepared->Inputs;
    for (int64_t i = 0; i < warmup; ++i)
      KILN_RETURN_IF_ERROR(instance.call(name, inputs).status());

    std::vector<double> samples;
    samples.reserve(static_cast<size_t>(repetitions));
    std::vector<HostTensor> results;
    for (int64_t i = 0; i < repetitions; ++i) {
      auto start = std::chrono::steady_clock::now();
      auto call = instance.call(name, inputs);
      auto end = std::chrono::steady_clock::now();
      KILN_RETURN_IF_ERROR(call.status());
      samples.push_back(std::chrono::duration<double>(end - start).count());
      results = std::move(*call);
    }

    std::cout << "EXEC @" << name << " on " << flags.Device << ": "
              << repetitions << " timed calls after " << warmup
              << " warm-up calls\n";
    printStats(computeLatencyStats(std::move(samples)));
    return emitOutputs(results, prepared->Targets, std::cout);
  });
}
