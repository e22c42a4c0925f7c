//===- BenchmarkLoopTest.cpp ----------------------------------------------===//

#include "runtime/tooling/BenchmarkLoop.h"
#include "runtime/hal/DeviceParamName.h"

#include "runtime/hal/DriverRegistry.h"
#include "runtime/module/ModuleFile.h"
#include "runtime/module/TestModule.h"
#include "runtime/tooling/BenchmarkTestModule.h"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::tooling {
namespace {

using test::hostTensor;

class BenchmarkLoopTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    auto device = hal::DriverRegistry::global().createDevice(GetParam());
    ASSERT_TRUE(device.ok()) << device.status().toString();
    auto file = test::benchmarkTestModule();
    ASSERT_TRUE(file.ok()) << file.status().toString();
    auto instance = module::ModuleInstance::create(*device, *file);
    ASSERT_TRUE(instance.ok()) << instance.status().toString();
    Instance = std::move(instance).value();
    auto main = Instance->lookup("main");
    ASSERT_TRUE(main.ok());
    Main = *main;
    float y[2] = {1.5f, -2.0f};
    std::vector<uint8_t> yBytes(8);
    std::memcpy(yBytes.data(), y, 8);
    Inputs = {
        hostTensor(ElementType::I32, {3}, module::test::randomBytes(12, 4)),
        hostTensor(ElementType::F32, {2}, yBytes)};
  }

  void expectOutputs(const std::vector<HostTensor> &outputs) {
    ASSERT_EQ(outputs.size(), 3u);
    EXPECT_EQ(outputs[0].Data, Inputs[0].Data);
    EXPECT_EQ(outputs[1].Type, ElementType::I8);
    EXPECT_EQ(outputs[1].Shape, std::vector<int64_t>{4});
    EXPECT_EQ(outputs[1].Data, std::vector<uint8_t>(4, 0x2a));
    EXPECT_EQ(outputs[2].Data, Inputs[1].Data);
  }

  std::unique_ptr<module::ModuleInstance> Instance;
  const module::FunctionSignature *Main = nullptr;
  std::vector<HostTensor> Inputs;
};

INSTANTIATE_TEST_SUITE_P(Devices, BenchmarkLoopTest,
                         ::testing::Values("local-sync", "local-task",
                                           "local-sync://?unified=0"),
                         hal::deviceParamName);

TEST_P(BenchmarkLoopTest, DeviceResidentCallsTimeTheHostOnly) {
  BenchmarkOptions options;
  options.Warmup = 2;
  options.Repetitions = 5;
  auto samples = runBenchmark(*Instance, *Main, Inputs, options);
  ASSERT_TRUE(samples.ok()) << samples.status().toString();
  EXPECT_EQ(samples->HostSeconds.size(), 5u);
  for (double seconds : samples->HostSeconds)
    EXPECT_GE(seconds, 0.0);
  // The CPU drivers have no clock of their own.
  EXPECT_TRUE(samples->DeviceSeconds.empty());
  EXPECT_NE(samples->NoDeviceTime.find("no clock of its own"),
            std::string::npos)
      << samples->NoDeviceTime;
  EXPECT_TRUE(samples->Outputs.empty());
}

TEST_P(BenchmarkLoopTest, ReadsResultsBackOnlyWhenAsked) {
  BenchmarkOptions options;
  options.Warmup = 0;
  options.Repetitions = 2;
  options.ReadOutputs = true;
  auto samples = runBenchmark(*Instance, *Main, Inputs, options);
  ASSERT_TRUE(samples.ok()) << samples.status().toString();
  expectOutputs(samples->Outputs);
}

TEST_P(BenchmarkLoopTest, IncludeTransfersTimesWholeCalls) {
  BenchmarkOptions options;
  options.Warmup = 1;
  options.Repetitions = 3;
  options.IncludeTransfers = true;
  options.ReadOutputs = true;
  auto samples = runBenchmark(*Instance, *Main, Inputs, options);
  ASSERT_TRUE(samples.ok()) << samples.status().toString();
  EXPECT_EQ(samples->HostSeconds.size(), 3u);
  EXPECT_TRUE(samples->DeviceSeconds.empty());
  EXPECT_FALSE(samples->NoDeviceTime.empty());
  expectOutputs(samples->Outputs);
  // Warm-up plus timed calls, one recording.
  EXPECT_EQ(Instance->recordingCount(), 1u);
}

// A phased function's output shapes are known only by calling it: one
// call on the host tensors sizes the outputs, then the timed calls run on
// device buffers (the host's clock only, which it says).
TEST_P(BenchmarkLoopTest, PhasedFunctionsRunOnDeviceBuffers) {
  auto device = hal::DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  std::vector<uint8_t> bytes =
      module::test::buildModule(module::test::loopCountSpec(false));
  auto file = module::ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  auto instance = module::ModuleInstance::create(*device, *file);
  ASSERT_TRUE(instance.ok()) << instance.status().toString();
  auto loop = (*instance)->lookup("count_loop");
  ASSERT_TRUE(loop.ok());
  auto i64 = [](int64_t v) {
    std::vector<uint8_t> data(8);
    std::memcpy(data.data(), &v, 8);
    return hostTensor(ElementType::I64, {}, data);
  };
  BenchmarkOptions options;
  options.Warmup = 1;
  options.Repetitions = 3;
  options.ReadOutputs = true;
  auto samples = runBenchmark(
      **instance, **loop,
      {i64(4), hostTensor(ElementType::I1, {}, {1}), i64(7)}, options);
  ASSERT_TRUE(samples.ok()) << samples.status().toString();
  EXPECT_EQ(samples->HostSeconds.size(), 3u);
  EXPECT_TRUE(samples->DeviceSeconds.empty());
  EXPECT_NE(samples->NoDeviceTime.find("run in phases"), std::string::npos)
      << samples->NoDeviceTime;
  ASSERT_EQ(samples->Outputs.size(), 2u);
  EXPECT_EQ(samples->Outputs[0].Data, i64(3).Data);
  EXPECT_EQ(samples->Outputs[1].Shape, std::vector<int64_t>{4});
  std::vector<int64_t> rows(4);
  std::memcpy(rows.data(), samples->Outputs[1].Data.data(), 32);
  EXPECT_EQ(rows, (std::vector<int64_t>{0, 1, 2, 3}));
}

TEST_P(BenchmarkLoopTest, InputsAreCheckedBeforeAnythingRuns) {
  BenchmarkOptions options;
  std::vector<HostTensor> wrong = Inputs;
  wrong.pop_back();
  auto samples = runBenchmark(*Instance, *Main, wrong, options);
  EXPECT_EQ(samples.status().message(),
            "function @main expects 2 input(s), got 1");
  wrong = Inputs;
  wrong[1].Shape = {1, 2};
  samples = runBenchmark(*Instance, *Main, wrong, options);
  EXPECT_EQ(samples.status().message(),
            "function @main input 1: expected 2xf32, got 1x2xf32 with 8 "
            "bytes of data");
  wrong = Inputs;
  wrong[0].Data.pop_back();
  samples = runBenchmark(*Instance, *Main, wrong, options);
  EXPECT_EQ(samples.status().message(),
            "function @main input 0: expected 3xi32, got 3xi32 with 11 "
            "bytes of data");
  EXPECT_EQ(Instance->recordingCount(), 0u);
  options.Repetitions = -1;
  samples = runBenchmark(*Instance, *Main, Inputs, options);
  EXPECT_EQ(samples.status().code(), StatusCode::InvalidArgument);
}

} // namespace
} // namespace kiln::tooling
