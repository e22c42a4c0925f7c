//===- BenchmarkLoop.cpp --------------------------------------------------===//

#include "runtime/tooling/BenchmarkLoop.h"

#include "runtime/tooling/BenchmarkBuffers.h"

#include <chrono>

namespace kiln::tooling {

namespace {

using Clock = std::chrono::steady_clock;

double secondsBetween(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double>(end - start).count();
}

// Function timing on for the host-clock pass only (it reads the clock, and
// the device-clock pass should not pay for that), off however it ends.
class FunctionTiming {
public:
  FunctionTiming(module::ModuleInstance &instance, bool on)
      : Instance(on ? &instance : nullptr) {
    if (Instance)
      Instance->setFunctionTiming(true);
  }
  ~FunctionTiming() {
    if (Instance)
      Instance->setFunctionTiming(false);
  }
  std::vector<module::FunctionTime> times() const {
    return Instance ? Instance->functionTimes()
                    : std::vector<module::FunctionTime>();
  }

private:
  module::ModuleInstance *Instance;
};

StatusOr<BenchmarkSamples> benchmarkWithTransfers(
    module::ModuleInstance &instance, const module::FunctionSignature &function,
    const std::vector<HostTensor> &inputs, const BenchmarkOptions &options) {
  BenchmarkSamples samples;
  samples.NoDeviceTime =
      "calls with host tensors are timed by the host's clock only";
  for (int64_t i = 0; i < options.Warmup; ++i)
    KILN_RETURN_IF_ERROR(instance.call(function.Name, inputs).status());
  samples.HostSeconds.reserve(static_cast<size_t>(options.Repetitions));
  FunctionTiming timing(instance, options.FunctionTimes);
  for (int64_t i = 0; i < options.Repetitions; ++i) {
    Clock::time_point start = Clock::now();
    StatusOr<std::vector<HostTensor>> call =
        instance.call(function.Name, inputs);
    Clock::time_point end = Clock::now();
    KILN_RETURN_IF_ERROR(call.status());
    samples.HostSeconds.push_back(secondsBetween(start, end));
    if (options.ReadOutputs)
      samples.Outputs = std::move(call).value();
  }
  samples.FunctionTimes = timing.times();
  return samples;
}

} // namespace

StatusOr<BenchmarkSamples> runBenchmark(
    module::ModuleInstance &instance, const module::FunctionSignature &function,
    const std::vector<HostTensor> &inputs, const BenchmarkOptions &options) {
  if (options.Warmup < 0 || options.Repetitions < 0)
    return KILN_ERROR(InvalidArgument,
                      "warm-up and repetition counts must not be negative");
  if (options.IncludeTransfers)
    return benchmarkWithTransfers(instance, function, inputs, options);

  // call() checks host tensors against the signature; device buffers only
  // carry sizes, so check here, before anything is uploaded. A dynamic
  // dimension (-1) is the input's (issue 19): the outputs' shapes are what
  // the inputs' give.
  KILN_RETURN_IF_ERROR(instance.lookup(function.Name).status());
  if (inputs.size() != function.Inputs.size())
    return KILN_ERROR(InvalidArgument, "function @", function.Name, " expects ",
                      function.Inputs.size(), " input(s), got ", inputs.size());
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    module::TensorSpec spec = function.Inputs[i];
    if (inputs[i].Shape.size() == spec.Shape.size())
      for (size_t d = 0; d < spec.Shape.size(); ++d)
        if (spec.Shape[d] < 0)
          spec.Shape[d] = inputs[i].Shape[d];
    if (inputs[i].Type != spec.Type || inputs[i].Shape != spec.Shape ||
        inputs[i].Data.size() != tensorByteSize(spec))
      return KILN_ERROR(InvalidArgument, "function @", function.Name, " input ",
                        i, ": expected ",
                        tensorTypeString(function.Inputs[i].Shape, spec.Type),
                        ", got ", inputs[i].typeString(), " with ",
                        inputs[i].Data.size(), " bytes of data");
    shapes.push_back(inputs[i].Shape);
  }
  // A phased function's output shapes are known only by calling it: one
  // call on the host tensors gives them (the same inputs give the same
  // shapes), then the timed calls run on device buffers of those sizes.
  std::vector<module::TensorSpec> outputTypes;
  if (function.Phased) {
    KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> first,
                          instance.call(function.Name, inputs));
    for (const HostTensor &output : first)
      outputTypes.push_back({output.Type, output.Shape});
  } else {
    KILN_ASSIGN_OR_RETURN(outputTypes,
                          instance.outputTypes(function.Name, shapes, inputs));
  }

  hal::Device &device = *instance.device();
  KILN_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<hal::Buffer>> inputBuffers,
                        uploadTensors(device, inputs));
  std::vector<uint64_t> outputSizes;
  for (const module::TensorSpec &spec : outputTypes)
    outputSizes.push_back(tensorByteSize(spec));
  KILN_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<hal::Buffer>> outputBuffers,
                        allocateDeviceBuffers(device, outputSizes));
  auto call = [&](const std::shared_ptr<hal::SubmissionTimer> &timer) {
    return instance.callWithDeviceBuffers(function.Name, inputBuffers,
                                          outputBuffers, timer, shapes);
  };

  BenchmarkSamples samples;
  for (int64_t i = 0; i < options.Warmup; ++i)
    KILN_RETURN_IF_ERROR(call(nullptr));
  samples.HostSeconds.reserve(static_cast<size_t>(options.Repetitions));
  FunctionTiming timing(instance, options.FunctionTimes);
  for (int64_t i = 0; i < options.Repetitions; ++i) {
    Clock::time_point start = Clock::now();
    Status status = call(nullptr);
    Clock::time_point end = Clock::now();
    KILN_RETURN_IF_ERROR(status);
    samples.HostSeconds.push_back(secondsBetween(start, end));
  }
  samples.FunctionTimes = timing.times();

  StatusOr<std::shared_ptr<hal::SubmissionTimer>> timer =
      device.createSubmissionTimer();
  if (function.Phased) {
    // Its phases are submissions the host waits for in turn.
    samples.NoDeviceTime =
        "a function run in phases (its output shapes depend on values it "
        "computes) is timed by the host's clock only";
  } else if (timer.ok()) {
    // The host pass just ran: the device is as warm as it gets.
    samples.DeviceSeconds.reserve(static_cast<size_t>(options.Repetitions));
    for (int64_t i = 0; i < options.Repetitions; ++i) {
      KILN_RETURN_IF_ERROR(call(*timer));
      KILN_ASSIGN_OR_RETURN(double seconds, (*timer)->elapsedSeconds());
      samples.DeviceSeconds.push_back(seconds);
    }
  } else if (timer.status().code() == StatusCode::Unimplemented) {
    samples.NoDeviceTime = std::string(timer.status().message());
  } else {
    return timer.status();
  }

  if (options.ReadOutputs) {
    KILN_ASSIGN_OR_RETURN(samples.Outputs,
                          downloadTensors(device, outputBuffers, outputTypes));
  }
  return samples;
}

} // namespace kiln::tooling
