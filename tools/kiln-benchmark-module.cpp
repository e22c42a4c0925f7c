//===- kiln-benchmark-module.cpp - Time calls of a Kiln module function ---===//
//
// Calls a function repeatedly with the same inputs and reports the median
// time per call and its spread, by the host's clock and, on devices that
// have one, by the device's (runtime/tooling/BenchmarkLoop.h). Inputs are
// copied to the device once and results stay there, so a timed call is the
// function alone; --benchmark_include_transfers times whole calls on host
// tensors instead. Repeated --input_set flags time the function at each set
// of inputs in turn (a function with dynamic shapes at several shapes), a
// report per set and a line per set at the end.
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
#include <string>
#include <vector>

using namespace kiln;
using namespace kiln::tooling;

int main(int argc, char **argv) {
  return runToolMain([&]() -> Status {
    CommonFlags flags;
    BenchmarkOptions options;
    FlagParser parser(
        "kiln-benchmark-module --module=<file.kiln> [--function=<name>] "
        "[--input=<tensor>... | --input_set=<tensor,...>...] [flags]",
        "Calls one function of a Kiln module repeatedly and reports the\n"
        "median time per call with min, max, p10-p90 and the median\n"
        "absolute deviation: by the host's clock, and on devices with a\n"
        "clock of their own (cuda) also by the device's. Inputs are copied\n"
        "to the device once before timing and results stay there, so the\n"
        "timed calls copy nothing between host and device. Results are not\n"
        "printed unless --output asks.\n\n"
        "A function with dynamic shapes is timed at several in one run by\n"
        "giving each call's inputs as an --input_set: each set is timed in\n"
        "turn (its own warm-up calls first, which also record the steps at\n"
        "its shapes), with a report per set and at the end a line per set\n"
        "with the median and MAD.\n\n"
        "Examples:\n"
        "  kiln-benchmark-module --device=cuda --module=mlp.kiln "
        "--function=main \\\n"
        "      --input=1x784xf32=0.5 --benchmark_repetitions=100\n"
        "  kiln-benchmark-module --module=dynamic.kiln --function=add_1d \\\n"
        "      --input_set='1000xf32=1, 1000xf32=2' "
        "--input_set='4096xf32=1, 4096xf32=2'");
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
    parser.addBool("function_times", &options.FunctionTimes,
                   "After each report, where the host-clock pass's time "
                   "went, per function: each phase and loop body of a "
                   "function run in phases, split into reading back values "
                   "that decide shapes, resolving shapes, allocating, "
                   "recording steps and running them.");
    parser.addList("input_set", &flags.InputSets,
                   "All inputs of one timed call, separated by commas "
                   "outside brackets (as --function_inputs); repeat it to "
                   "time the function at each set in turn. Not with "
                   "--input. --output then applies to each set's results "
                   "(a file keeps the last set's).",
                   "7xf32=1, 7xf32=2");
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
    const bool sets = !prepared->InputSets.empty();
    if (!sets)
      prepared->InputSets.push_back(std::move(prepared->Inputs));
    std::vector<std::string> labels;
    std::vector<BenchmarkSamples> timings;
    for (const std::vector<HostTensor> &inputs : prepared->InputSets) {
      std::string label;
      for (const HostTensor &input : inputs)
        label += (label.empty() ? "" : ", ") + input.typeString();
      if (label.empty())
        label = "no inputs";
      if (sets)
        std::cout << "input set " << labels.size() + 1 << " of "
                  << prepared->InputSets.size() << ": " << label << "\n";
      StatusOr<BenchmarkSamples> timed =
          runBenchmark(*prepared->Loaded.Instance, function, inputs, options);
      if (!timed.ok()) {
        Status status = timed.status();
        return sets ? status.annotate(strCat("--input_set ", labels.size() + 1))
                    : status;
      }
      BenchmarkSamples &samples = *timed;
      printBenchmarkReport(std::cout, function.Name, flags.Device, options,
                           samples);
      printFunctionTimes(std::cout, samples.FunctionTimes, options.Repetitions);
      KILN_RETURN_IF_ERROR(
          emitOutputs(samples.Outputs, prepared->Targets, std::cout));
      labels.push_back(std::move(label));
      timings.push_back(std::move(samples));
    }
    if (sets)
      printInputSetSummary(std::cout, labels, timings);
    if (flags.PrintStatistics) {
      hal::Device &device = *prepared->Loaded.Instance->device();
      printAllocatorStatistics(std::cerr, device.info().Uri,
                               device.allocator());
    }
    return Status();
  });
}
