//===- BenchmarkLoop.h - Timed calls of one module function ---------------===//
//
// What kiln-benchmark-module measures. By default the inputs are uploaded to
// device buffers once and every call leaves its results there, so a call is
// the function alone: one submission of the recorded steps and the wait for
// it. Each call is timed twice over, in two passes so neither clock's cost
// lands in the other's numbers:
//   host time:   the host's clock around the call (submission, queue
//                hand-off, the device's work, the wait);
//   device time: the device's own clock around the call's commands, on
//                devices that have one (CUDA events); the CPU drivers have
//                none, their time is host time.
// With IncludeTransfers each call is the whole ModuleInstance::call on host
// tensors instead (upload, run, download), which is what an application
// calling with host data sees; only host time is taken then.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_TOOLING_BENCHMARKLOOP_H
#define KILN_RUNTIME_TOOLING_BENCHMARKLOOP_H

#include "runtime/base/HostTensor.h"
#include "runtime/base/Status.h"
#include "runtime/module/ModuleInstance.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::tooling {

struct BenchmarkOptions {
  /// Untimed calls first (the first one also records the function's
  /// steps).
  int64_t Warmup = 3;
  /// Timed calls per pass.
  int64_t Repetitions = 20;
  bool IncludeTransfers = false;
  /// Read the results of the last call back to the host.
  bool ReadOutputs = false;
  /// Sum, per function, where the host-clock pass's time goes
  /// (ModuleInstance::setFunctionTiming).
  bool FunctionTimes = false;
};

struct BenchmarkSamples {
  /// Seconds per call by the host's clock.
  std::vector<double> HostSeconds;
  /// Seconds per call by the device's clock; empty when not measured, and
  /// then NoDeviceTime says why.
  std::vector<double> DeviceSeconds;
  std::string NoDeviceTime;
  /// The last call's results when ReadOutputs.
  std::vector<HostTensor> Outputs;
  /// With FunctionTimes: the host-clock pass's sums, per function.
  std::vector<module::FunctionTime> FunctionTimes;
};

/// Calls `function` of `instance` on `inputs` as `options` say.
StatusOr<BenchmarkSamples> runBenchmark(
    module::ModuleInstance &instance, const module::FunctionSignature &function,
    const std::vector<HostTensor> &inputs, const BenchmarkOptions &options);

} // namespace kiln::tooling

#endif // KILN_RUNTIME_TOOLING_BENCHMARKLOOP_H
