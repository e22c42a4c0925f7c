//===- kiln-benchmark-module.cpp - Time calls of a Kiln module function ---===//
//
// Calls a function repeatedly with the same inputs and reports the median
// time per call and its spread, by the host's clock and, on devices that
// have one, by the device's (runtime/tooling/BenchmarkLoop.h). Inputs are
// copied to the device once and results stay there, so a timed call is the
// function alone; --benchmark_include_transfers times whole calls on host
// tensors instead.
//
//===----------------------------------------------------------------------===//

#include "runtime/tooling/AllocatorStatisticsReport.h"
#include "runtime/tooling/BenchmarkLoop.h"
#include "runtime/tooling/BenchmarkReport.h"
#include "runtime/tooling/CommonFlags.h"
#include "runtime/tooling/InvocationIo.h"
#include "runtime/tooling/ToolMain.h"
#include "runtime/tooling/ToolSession.h"

#include <algorithm>
#include <iostream>

using namespace kiln;
using namespace kiln::tooling;

int main(int argc, char **argv) {
  return runToolMain([&]() -> Status {
    CommonFlags flags;
    BenchmarkOptions options;
    FlagParser parser(
        "kiln-benchmark-module --module=<file.kiln> [--function=<name>] "
        "[--input=<tensor>]... [flags]",
        "Calls one function of a Kiln module repeatedly and reports the\n"
        "median time per call with min, max, p10-p90 and the median\n"
        "absolute deviation: by the host's clock, and on devices with a\n"
        "clock of their own (cuda) also by the device's. Inputs are copied\n"
        "to the device once before timing and results stay there, so the\n"
        "timed calls copy nothing between host and device. Results are not\n"
        "printed unless --output asks.\n\n"
        "Example:\n"
        "  kiln-benchmark-module --device=cuda --module=mlp.kiln "
        "--function=main \\\n"
        "      --input=1x784xf32=0.5 --benchmark_repetitions=100");
    registerCommonFlags(parser, flags, /*unmatchedOutputsPrinted=*/false);
    parser.addInt("benchmark_repetitions", &options.Repetitions, 1,
                  "Timed calls (per clock).", "100");
    parser.addInt("warmup", &options.Warmup, 0,
                  "Untimed calls made first (the first call also records "
                  "the function's steps).",
                  "5");
    parser.addBool("benchmark_include_transfers", &options.IncludeTransfers,
                   "Time whole calls on host tensors instead: each copies "
                   "its inputs to the device and its results back (host "
                   "clock only).");
    KILN_ASSIGN_OR_RETURN(std::optional<PreparedCall> prepared,
                          prepareCall(parser, flags, argc, argv));
    if (!prepared)
      return Status();
    options.ReadOutputs =
        std::any_of(prepared->Targets.begin(), prepared->Targets.end(),
                    [](const OutputTarget &target) {
                      return target.TargetKind != OutputTarget::Kind::Ignore;
                    });
    const module::FunctionSignature &function = *prepared->Loaded.Signature;
    KILN_ASSIGN_OR_RETURN(BenchmarkSamples samples,
                          runBenchmark(*prepared->Loaded.Instance, function,
                                       prepared->Inputs, options));
    printBenchmarkReport(std::cout, function.Name, flags.Device, options,
                         samples);
    KILN_RETURN_IF_ERROR(
        emitOutputs(samples.Outputs, prepared->Targets, std::cout));
    if (flags.PrintStatistics) {
      hal::Device &device = *prepared->Loaded.Instance->device();
      printAllocatorStatistics(std::cerr, device.info().Uri,
                               device.allocator());
    }
    return Status();
  });
}
