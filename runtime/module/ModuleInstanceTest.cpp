//===- ModuleInstanceTest.cpp ---------------------------------------------===//

#include "runtime/module/ModuleInstance.h"
#include "runtime/hal/BufferTransfer.h"
#include "runtime/hal/DeviceParamName.h"

#include "runtime/base/PeakMemory.h"
#include "runtime/hal/DriverRegistry.h"
#include "runtime/hal/TestFakes.h"
#include "runtime/module/TestModule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <sys/mman.h>
#include <thread>

namespace kiln::module {
namespace {

namespace sc = kiln::schema;
using SK = sc::StorageKind;
using test::range;

constexpr uint8_t kF32 = static_cast<uint8_t>(ElementType::F32);
constexpr uint8_t kI32 = static_cast<uint8_t>(ElementType::I32);

// The hand-written kernels of runtime/hal/cts/kernels/CtsKernels.c.
std::vector<uint8_t> kernelImage() {
  std::ifstream file(KILN_CTS_KERNELS_PATH, std::ios::binary);
  EXPECT_TRUE(file) << KILN_CTS_KERNELS_PATH;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

// memcpy with a null pointer is undefined even for 0 bytes, and an empty
// vector's data() may be null (UBSan reported it for a 0-element tensor).
std::vector<uint8_t> floatBytes(const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  if (!bytes.empty())
    std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<float> asFloats(const HostTensor &tensor) {
  std::vector<float> values(tensor.Data.size() / 4);
  if (!values.empty())
    std::memcpy(values.data(), tensor.Data.data(), values.size() * 4);
  return values;
}

std::vector<float> randomFloats(std::mt19937 &rng, size_t count) {
  std::uniform_real_distribution<float> value(-50.0f, 50.0f);
  std::vector<float> values(count);
  for (float &v : values)
    v = value(rng);
  return values;
}

HostTensor tensor(ElementType type, std::vector<int64_t> shape,
                  std::vector<uint8_t> data) {
  HostTensor result;
  result.Type = type;
  result.Shape = std::move(shape);
  result.Data = std::move(data);
  return result;
}

// A 0-d int64 tensor holding `v`.
HostTensor i64Scalar(int64_t v) {
  std::vector<uint8_t> data(sizeof(v));
  std::memcpy(data.data(), &v, sizeof(v));
  return tensor(ElementType::I64, {}, std::move(data));
}

constexpr size_t kN = 16;

// Module "demo":
//   @main(a: 16xf32, b: 16xf32) -> (sum: 16xf32, affine: 16xf32, twos: 4xf32)
//     arena[0:64)   = a + b              (add_f32, 4 workgroups of 4)
//     sum           = arena[0:64) + c    (c: 16 f32 constants)
//     affine        = a * 2 - 1          (scale_bias_f32, 16 workgroups)
//     arena[64:80)  = fill 2.0f
//     twos          = copy arena[64:80)
//   @second(x: 2x3xi32) -> (i8) = fill 0x2a
// Executable "kernels" lists a CUDA variant first, which a CPU device must
// skip.
test::ModuleSpec demoSpec(const std::vector<float> &constants) {
  test::ModuleSpec spec;
  spec.Name = "demo";
  spec.Constants = floatBytes(constants);
  test::EntryPointSpec add{"add_f32", {4, 1, 1}, {4, 1, 1}, 3, 2, 0};
  test::EntryPointSpec scale{"scale_bias_f32", {1, 1, 1}, {16, 1, 1}, 2, 3, 0};
  test::VariantSpec cuda{
      "cuda-ptx", "sm_90", test::randomBytes(64, 3), {add, scale}};
  test::VariantSpec cpu{
      "cpu-elf-x86_64", "x86-64", kernelImage(), {add, scale}};
  spec.Executables.push_back({"kernels", {cuda, cpu}});

  test::FunctionSpec mainFn;
  mainFn.Name = "main";
  mainFn.Inputs = {{kF32, {16}}, {kF32, {16}}};
  mainFn.Outputs = {{kF32, {16}}, {kF32, {16}}, {kF32, {4}}};
  mainFn.ArenaSize = 128;
  test::StepSpec addAB;
  addAB.Kind = sc::StepKind::DispatchStep;
  addAB.EntryPoint = 0;
  addAB.Bindings = {range(SK::Input, 0, 0, 64), range(SK::Input, 1, 0, 64),
                    range(SK::Arena, 0, 0, 64)};
  addAB.PushConstants = {kN, 4};
  test::StepSpec addC = addAB;
  addC.Bindings = {range(SK::Arena, 0, 0, 64), range(SK::Constant, 0, 0, 64),
                   range(SK::Output, 0, 0, 64)};
  test::StepSpec affine;
  affine.Kind = sc::StepKind::DispatchStep;
  affine.EntryPoint = 1;
  affine.Bindings = {range(SK::Input, 0, 0, 64), range(SK::Output, 1, 0, 64)};
  affine.PushConstants = {kN, std::bit_cast<uint32_t>(2.0f),
                          std::bit_cast<uint32_t>(-1.0f)};
  test::StepSpec fill;
  fill.Kind = sc::StepKind::FillStep;
  fill.Target = range(SK::Arena, 0, 64, 16);
  fill.Pattern = std::bit_cast<uint32_t>(2.0f);
  fill.PatternLength = 4;
  test::StepSpec copy;
  copy.Kind = sc::StepKind::CopyStep;
  copy.Source = range(SK::Arena, 0, 64, 16);
  copy.Target = range(SK::Output, 2, 0, 16);
  mainFn.Steps = {addAB, addC, affine, fill, copy};
  spec.Functions.push_back(mainFn);

  spec.Functions.push_back(test::fillByteFunctionSpec());
  return spec;
}

StatusOr<std::shared_ptr<const ModuleFile>>
loadSpec(const test::ModuleSpec &spec) {
  std::vector<uint8_t> bytes = test::buildModule(spec);
  return ModuleFile::fromBytes(bytes.data(), bytes.size());
}

class ModuleInstanceTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    Rng.seed(1234);
    Constants = randomFloats(Rng, kN);
    auto device = hal::DriverRegistry::global().createDevice(GetParam());
    ASSERT_TRUE(device.ok()) << device.status().toString();
    Device = *device;
    auto file = loadSpec(demoSpec(Constants));
    ASSERT_TRUE(file.ok()) << file.status().toString();
    auto instance = ModuleInstance::create(Device, *file);
    ASSERT_TRUE(instance.ok()) << instance.status().toString();
    Instance = std::move(instance).value();
  }

  // Calls @main on fresh random inputs and checks every output.
  void callMainAndCheck() {
    std::vector<float> a = randomFloats(Rng, kN), b = randomFloats(Rng, kN);
    auto outputs =
        Instance->call("main", {tensor(ElementType::F32, {16}, floatBytes(a)),
                                tensor(ElementType::F32, {16}, floatBytes(b))});
    ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
    ASSERT_EQ(outputs->size(), 3u);
    const HostTensor &sum = (*outputs)[0];
    EXPECT_EQ(sum.Type, ElementType::F32);
    EXPECT_EQ(sum.Shape, std::vector<int64_t>{16});
    std::vector<float> sums = asFloats(sum);
    std::vector<float> affine = asFloats((*outputs)[1]);
    for (size_t i = 0; i < kN; ++i) {
      EXPECT_EQ(sums[i], (a[i] + b[i]) + Constants[i]) << i;
      EXPECT_EQ(affine[i], a[i] * 2.0f + -1.0f) << i;
    }
    EXPECT_EQ(asFloats((*outputs)[2]), std::vector<float>(4, 2.0f));
  }

  std::mt19937 Rng;
  std::vector<float> Constants;
  std::shared_ptr<hal::Device> Device;
  std::unique_ptr<ModuleInstance> Instance;
};

INSTANTIATE_TEST_SUITE_P(Devices, ModuleInstanceTest,
                         // Both drivers, a single worker, and memory that needs
                         // staging copies as on a discrete GPU.
                         ::testing::Values("local-sync", "local-task",
                                           "local-task://?workers=1",
                                           "local-sync://?unified=0",
                                           "local-task://?unified=0"),
                         hal::deviceParamName);

TEST_P(ModuleInstanceTest, Signatures) {
  EXPECT_EQ(Instance->functionNames(),
            (std::vector<std::string>{"main", "second"}));
  auto main = Instance->lookup("main");
  ASSERT_TRUE(main.ok());
  EXPECT_EQ((*main)->Name, "main");
  ASSERT_EQ((*main)->Inputs.size(), 2u);
  ASSERT_EQ((*main)->Outputs.size(), 3u);
  EXPECT_EQ((*main)->Outputs[2].Shape, std::vector<int64_t>{4});
  auto second = Instance->lookup("second");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*second)->Inputs[0].Type, ElementType::I32);
  EXPECT_EQ((*second)->Inputs[0].Shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ((*second)->Outputs[0].Type, ElementType::I8);
  EXPECT_TRUE((*second)->Outputs[0].Shape.empty());

  auto missing = Instance->lookup("mian");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::NotFound);
  EXPECT_EQ(missing.status().message(),
            "no function 'mian' in module 'demo'; available: main, second");
  EXPECT_EQ(Instance->call("mian", {}).status().code(), StatusCode::NotFound);
}

TEST_P(ModuleInstanceTest, CallComputesEveryOutput) { callMainAndCheck(); }

TEST_P(ModuleInstanceTest, RecordsOnceAndReplaysWithNewInputs) {
  EXPECT_EQ(Instance->recordingCount(), 0u);
  for (int call = 0; call < 5; ++call) {
    SCOPED_TRACE(call);
    callMainAndCheck();
    EXPECT_EQ(Instance->recordingCount(), 1u);
  }
  HostTensor x = tensor(ElementType::I32, {2, 3}, test::randomBytes(24, 9));
  for (int call = 0; call < 2; ++call) {
    auto outputs = Instance->call("second", {x});
    ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
    ASSERT_EQ(outputs->size(), 1u);
    EXPECT_EQ((*outputs)[0].Type, ElementType::I8);
    EXPECT_EQ((*outputs)[0].Data, std::vector<uint8_t>{0x2a});
  }
  EXPECT_EQ(Instance->recordingCount(), 2u);
  callMainAndCheck();
  EXPECT_EQ(Instance->recordingCount(), 2u);
}

// Buffers are reused from call to call and inputs may be read in place:
// neither may leak into what callers hold.
TEST_P(ModuleInstanceTest, CallsLeaveInputsAndEarlierOutputsAlone) {
  std::vector<float> a = randomFloats(Rng, kN), b = randomFloats(Rng, kN);
  std::vector<HostTensor> inputs = {
      tensor(ElementType::F32, {16}, floatBytes(a)),
      tensor(ElementType::F32, {16}, floatBytes(b))};
  auto first = Instance->call("main", inputs);
  ASSERT_TRUE(first.ok()) << first.status().toString();
  std::vector<float> firstSums = asFloats((*first)[0]);
  for (int call = 0; call < 3; ++call)
    callMainAndCheck();
  EXPECT_EQ(asFloats((*first)[0]), firstSums);
  EXPECT_EQ(asFloats(inputs[0]), a);
  EXPECT_EQ(asFloats(inputs[1]), b);
  for (size_t i = 0; i < kN; ++i)
    EXPECT_EQ(firstSums[i], (a[i] + b[i]) + Constants[i]) << i;
}

TEST_P(ModuleInstanceTest, InputErrors) {
  std::vector<uint8_t> sixteen = floatBytes(randomFloats(Rng, kN));
  HostTensor good = tensor(ElementType::F32, {16}, sixteen);
  auto message = [&](const std::vector<HostTensor> &inputs) {
    auto result = Instance->call("main", inputs);
    EXPECT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), StatusCode::InvalidArgument);
    return std::string(result.status().message());
  };
  EXPECT_EQ(message({good}), "function @main expects 2 input(s), got 1");
  EXPECT_EQ(message({good, good, good}),
            "function @main expects 2 input(s), got 3");
  EXPECT_EQ(message({good, tensor(ElementType::I32, {16}, sixteen)}),
            "function @main input 1: expected 16xf32, got 16xi32");
  EXPECT_EQ(message({tensor(ElementType::F32, {4, 4}, sixteen), good}),
            "function @main input 0: expected 16xf32, got 4x4xf32");
  EXPECT_EQ(message({tensor(ElementType::F32, {}, sixteen), good}),
            "function @main input 0: expected 16xf32, got f32");
  std::vector<uint8_t> short12(sixteen.begin(), sixteen.begin() + 60);
  EXPECT_EQ(message({good, tensor(ElementType::F32, {16}, short12)}),
            "function @main input 1: 16xf32 needs 64 bytes of data, got 60");
  // Nothing was recorded or run for the rejected calls; a good call works.
  EXPECT_EQ(Instance->recordingCount(), 0u);
  callMainAndCheck();
}

TEST_P(ModuleInstanceTest, ModuleFileMayBeDroppedByTheCaller) {
  // The instance keeps the file (and so the constants it may use in place)
  // alive on its own.
  auto file = loadSpec(demoSpec(Constants));
  ASSERT_TRUE(file.ok());
  std::weak_ptr<const ModuleFile> weak = *file;
  auto instance = ModuleInstance::create(Device, std::move(file).value());
  ASSERT_TRUE(instance.ok());
  EXPECT_FALSE(weak.expired());
  Instance = std::move(instance).value();
  callMainAndCheck();
  Instance.reset();
  EXPECT_TRUE(weak.expired());
}

TEST_P(ModuleInstanceTest, ConcurrentCallsAreSerialized) {
  std::vector<std::thread> threads;
  std::vector<std::vector<float>> results(4);
  std::vector<std::vector<float>> expected(4);
  for (int t = 0; t < 4; ++t) {
    std::vector<float> a = randomFloats(Rng, kN), b = randomFloats(Rng, kN);
    for (size_t i = 0; i < kN; ++i)
      expected[t].push_back((a[i] + b[i]) + Constants[i]);
    threads.emplace_back([&, t, a, b] {
      for (int call = 0; call < 10; ++call) {
        auto outputs = Instance->call(
            "main", {tensor(ElementType::F32, {16}, floatBytes(a)),
                     tensor(ElementType::F32, {16}, floatBytes(b))});
        if (!outputs.ok())
          return;
        results[t] = asFloats((*outputs)[0]);
        if (results[t] != expected[t])
          return;
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(results, expected);
  EXPECT_EQ(Instance->recordingCount(), 1u);
}

// Device buffers for callWithDeviceBuffers, filled and read through
// host-visible staging, as on a discrete GPU.
class DeviceBufferCallTest : public ModuleInstanceTest {
protected:
  std::shared_ptr<hal::Buffer> deviceBuffer(uint64_t size) {
    auto buffer = Device->allocator().allocate(
        size, hal::MemoryType::DeviceLocal,
        hal::BufferUsage::Transfer | hal::BufferUsage::Dispatch);
    EXPECT_TRUE(buffer.ok()) << buffer.status().toString();
    return buffer.ok() ? *buffer : nullptr;
  }

  // Copies `size` bytes from `source` to `target` and waits.
  void copy(const std::shared_ptr<hal::Buffer> &source,
            const std::shared_ptr<hal::Buffer> &target, uint64_t size) {
    auto commands =
        Device->createCommandBuffer(hal::CommandBufferMode::OneShot, 0);
    ASSERT_TRUE(commands.ok());
    ASSERT_TRUE((*commands)->begin().ok());
    Status recorded =
        (*commands)->copy(hal::BufferRef::direct(source, 0, size),
                          hal::BufferRef::direct(target, 0, size));
    ASSERT_TRUE(recorded.ok()) << recorded.toString();
    ASSERT_TRUE((*commands)->end().ok());
    auto done = Device->createSemaphore(0);
    ASSERT_TRUE(done.ok());
    hal::SemaphoreValue signal{*done, 1};
    Status status = Device->queueExecute({}, *commands, {}, {&signal, 1});
    ASSERT_TRUE(status.ok()) << status.toString();
    status = (*done)->wait(1, hal::kInfiniteTimeout);
    ASSERT_TRUE(status.ok()) << status.toString();
  }

  std::shared_ptr<hal::Buffer> staging(uint64_t size) {
    auto buffer = Device->allocator().allocate(
        size, hal::MemoryType::HostVisible,
        hal::BufferUsage::Transfer | hal::BufferUsage::Mapping);
    EXPECT_TRUE(buffer.ok()) << buffer.status().toString();
    return buffer.ok() ? *buffer : nullptr;
  }

  std::shared_ptr<hal::Buffer> upload(const std::vector<float> &values) {
    std::shared_ptr<hal::Buffer> host = staging(values.size() * 4);
    auto mapped = host->map();
    EXPECT_TRUE(mapped.ok());
    std::memcpy(mapped->data(), values.data(), values.size() * 4);
    std::shared_ptr<hal::Buffer> buffer = deviceBuffer(values.size() * 4);
    copy(host, buffer, values.size() * 4);
    return buffer;
  }

  std::vector<float> download(const std::shared_ptr<hal::Buffer> &buffer,
                              size_t count) {
    std::shared_ptr<hal::Buffer> host = staging(count * 4);
    copy(buffer, host, count * 4);
    auto mapped = host->mapRead();
    EXPECT_TRUE(mapped.ok());
    std::vector<float> values(count);
    std::memcpy(values.data(), mapped->data(), count * 4);
    return values;
  }

  std::vector<std::shared_ptr<hal::Buffer>> mainOutputs() {
    return {deviceBuffer(64), deviceBuffer(64), deviceBuffer(16)};
  }
};

INSTANTIATE_TEST_SUITE_P(Devices, DeviceBufferCallTest,
                         ::testing::Values("local-sync", "local-task",
                                           "local-sync://?unified=0",
                                           "local-task://?unified=0"),
                         hal::deviceParamName);

TEST_P(DeviceBufferCallTest, ResultsStayInTheCallersBuffers) {
  for (int call = 0; call < 3; ++call) {
    SCOPED_TRACE(call);
    std::vector<float> a = randomFloats(Rng, kN), b = randomFloats(Rng, kN);
    std::vector<std::shared_ptr<hal::Buffer>> inputs = {upload(a), upload(b)};
    std::vector<std::shared_ptr<hal::Buffer>> outputs = mainOutputs();
    Status status = Instance->callWithDeviceBuffers("main", inputs, outputs);
    ASSERT_TRUE(status.ok()) << status.toString();
    std::vector<float> sums = download(outputs[0], kN);
    std::vector<float> affine = download(outputs[1], kN);
    for (size_t i = 0; i < kN; ++i) {
      EXPECT_EQ(sums[i], (a[i] + b[i]) + Constants[i]) << i;
      EXPECT_EQ(affine[i], a[i] * 2.0f + -1.0f) << i;
    }
    EXPECT_EQ(download(outputs[2], 4), std::vector<float>(4, 2.0f));
  }
}

TEST_P(DeviceBufferCallTest, MixesWithHostTensorCalls) {
  callMainAndCheck();
  std::vector<float> a = randomFloats(Rng, kN), b = randomFloats(Rng, kN);
  std::vector<std::shared_ptr<hal::Buffer>> outputs = mainOutputs();
  // Buffers longer than the tensors are fine.
  std::vector<std::shared_ptr<hal::Buffer>> inputs = {upload(a), upload(b)};
  inputs[1] = upload([&] {
    std::vector<float> longer = b;
    longer.resize(kN + 8, 7.0f);
    return longer;
  }());
  Status status = Instance->callWithDeviceBuffers("main", inputs, outputs);
  ASSERT_TRUE(status.ok()) << status.toString();
  callMainAndCheck();
  std::vector<float> sums = download(outputs[0], kN);
  for (size_t i = 0; i < kN; ++i)
    EXPECT_EQ(sums[i], (a[i] + b[i]) + Constants[i]) << i;
  // With unified memory both kinds of call replay one recording; without,
  // only call() copies through staging, so each kind has its own.
  bool unified = GetParam().find("unified=0") == std::string::npos;
  EXPECT_EQ(Instance->recordingCount(), unified ? 1u : 2u);
}

TEST_P(DeviceBufferCallTest, Errors) {
  std::vector<std::shared_ptr<hal::Buffer>> inputs = {deviceBuffer(64),
                                                      deviceBuffer(64)};
  std::vector<std::shared_ptr<hal::Buffer>> outputs = mainOutputs();
  auto message = [&](std::string_view function,
                     std::vector<std::shared_ptr<hal::Buffer>> in,
                     std::vector<std::shared_ptr<hal::Buffer>> out) {
    Status status = Instance->callWithDeviceBuffers(function, in, out);
    EXPECT_FALSE(status.ok());
    return std::string(status.message());
  };
  EXPECT_EQ(message("nope", inputs, outputs),
            "no function 'nope' in module 'demo'; available: main, second");
  EXPECT_EQ(message("main", {inputs[0]}, outputs),
            "function @main expects 2 input and 3 output buffer(s), got 1 "
            "and 3");
  EXPECT_EQ(message("main", inputs, {outputs[0]}),
            "function @main expects 2 input and 3 output buffer(s), got 2 "
            "and 1");
  EXPECT_EQ(message("main", {inputs[0], nullptr}, outputs),
            "function @main input 1: no buffer");
  EXPECT_EQ(message("main", {inputs[0], deviceBuffer(60)}, outputs),
            "function @main input 1: 16xf32 needs 64 bytes, the buffer has "
            "60");
  EXPECT_EQ(message("main", inputs, {outputs[0], outputs[1], deviceBuffer(8)}),
            "function @main output 2: 4xf32 needs 16 bytes, the buffer has 8");
  std::vector<uint8_t> bytes(64);
  auto readOnly = Device->allocator().importHostMemory(
      bytes, hal::BufferUsage::Transfer | hal::BufferUsage::Dispatch, nullptr);
  ASSERT_TRUE(readOnly.ok()) << readOnly.status().toString();
  EXPECT_EQ(message("main", inputs, {*readOnly, outputs[1], outputs[2]}),
            "function @main output 0: the buffer is read-only");
  EXPECT_EQ(message("main", inputs, {outputs[0], inputs[1], outputs[2]}),
            "function @main output 1 is the buffer given as input 1; outputs "
            "need buffers of their own");
  EXPECT_EQ(message("main", inputs, {outputs[0], outputs[1], outputs[0]}),
            "function @main output 2 is the buffer given as output 0; outputs "
            "need buffers of their own");
  // A read-only input is fine.
  std::vector<std::shared_ptr<hal::Buffer>> readOnlyInput = {*readOnly,
                                                             inputs[1]};
  Status status =
      Instance->callWithDeviceBuffers("main", readOnlyInput, outputs);
  EXPECT_TRUE(status.ok()) << status.toString();
}

TEST_P(DeviceBufferCallTest, LocalDevicesHaveNoClockOfTheirOwn) {
  auto timer = Device->createSubmissionTimer();
  ASSERT_FALSE(timer.ok());
  EXPECT_EQ(timer.status().code(), StatusCode::Unimplemented);
}

// Two chains x -> a -> out0 and y -> b -> out1 of one two-binding kernel,
// written as the compiler writes them: each step names only the step whose
// result it reads.
test::ModuleSpec twoChainsSpec(bool declareDependencies) {
  using Access = sc::BindingAccess;
  test::ModuleSpec spec;
  test::EntryPointSpec copy{"k", {1, 1, 1}, {1, 1, 1}, 2, 0, 0};
  spec.Executables.push_back(
      {"exe", {{"fake", "any", std::vector<uint8_t>(8), {copy}}}});
  test::FunctionSpec function;
  function.Name = "two_chains";
  function.Inputs = {{kF32, {4}}, {kF32, {4}}};
  function.Outputs = {{kF32, {4}}, {kF32, {4}}};
  function.ArenaSize = 128;
  auto step = [&](test::RangeSpec in, test::RangeSpec out,
                  std::vector<uint32_t> dependencies) {
    test::StepSpec s;
    s.Kind = sc::StepKind::DispatchStep;
    s.Bindings = {in, out};
    s.Access = {Access::Read, Access::Write};
    if (declareDependencies)
      s.Dependencies = std::move(dependencies);
    return s;
  };
  function.Steps = {
      step(range(SK::Input, 0, 0, 16), range(SK::Arena, 0, 0, 16), {}),
      step(range(SK::Arena, 0, 0, 16), range(SK::Output, 0, 0, 16), {0}),
      step(range(SK::Input, 1, 0, 16), range(SK::Arena, 0, 64, 16), {}),
      step(range(SK::Arena, 0, 64, 16), range(SK::Output, 1, 0, 16), {2})};
  spec.Functions.push_back(function);
  return spec;
}

// What a call records, as the fake command buffer logs it.
std::vector<std::string> recordedSteps(bool declareDependencies) {
  auto device = std::make_shared<hal::test::FakeDevice>("fake://");
  auto file = loadSpec(twoChainsSpec(declareDependencies));
  EXPECT_TRUE(file.ok()) << file.status().toString();
  auto instance = ModuleInstance::create(device, std::move(file).value());
  EXPECT_TRUE(instance.ok()) << instance.status().toString();
  std::vector<HostTensor> inputs = {
      tensor(ElementType::F32, {4}, floatBytes({1, 2, 3, 4})),
      tensor(ElementType::F32, {4}, floatBytes({5, 6, 7, 8}))};
  auto outputs = (*instance)->call("two_chains", inputs);
  EXPECT_TRUE(outputs.ok()) << outputs.status().toString();
  EXPECT_EQ(device->CommandBuffers.size(), 1u);
  return device->CommandBuffers.empty() ? std::vector<std::string>()
                                        : device->CommandBuffers[0]->Log;
}

TEST(ModuleInstanceRecordingTest, IndependentChainsShareNoDependency) {
  // Slots: inputs 0-1, outputs 2-3, arena 4, constants 5, staging 6-9 (the
  // fake device has no unified memory). Two staging copies in (commands 0
  // and 1), a barrier, the steps (commands 2 to 5), a barrier, two staging
  // copies out. Each step waits for its own chain's step only.
  std::vector<std::string> log = recordedSteps(/*declareDependencies=*/true);
  std::vector<std::string> expected = {
      "copy slot6+0:16 slot0+0:16",
      "copy slot7+0:16 slot1+0:16",
      "barrier",
      "dispatch 0 1x1x1 slot0+0:16 slot4+0:16 push0",
      "dispatch 0 1x1x1 slot4+0:16 slot2+0:16 push0 after 2",
      "dispatch 0 1x1x1 slot1+0:16 slot4+64:16 push0",
      "dispatch 0 1x1x1 slot4+64:16 slot3+0:16 push0 after 4",
      "barrier",
      "copy slot2+0:16 slot8+0:16",
      "copy slot3+0:16 slot9+0:16"};
  EXPECT_EQ(log, expected);
}

TEST(ModuleInstanceRecordingTest, StepsWithoutDependenciesFollowEverything) {
  // Modules from before dependencies existed: a barrier before each step.
  std::vector<std::string> log = recordedSteps(/*declareDependencies=*/false);
  size_t barriers = std::count(log.begin(), log.end(), "barrier");
  EXPECT_EQ(barriers, 5u) << ::testing::PrintToString(log);
  for (const std::string &line : log)
    EXPECT_EQ(line.find("after"), std::string::npos) << line;
}

TEST(ModuleInstanceErrorsTest, NoRunnableVariant) {
  auto device = hal::DriverRegistry::global().createDevice("local-sync");
  ASSERT_TRUE(device.ok());
  test::ModuleSpec spec = demoSpec(std::vector<float>(kN, 1.0f));
  spec.Executables[0].Variants.pop_back(); // only the CUDA variant is left
  auto file = loadSpec(spec);
  ASSERT_TRUE(file.ok()) << file.status().toString();
  auto instance = ModuleInstance::create(*device, *file);
  ASSERT_FALSE(instance.ok());
  EXPECT_EQ(instance.status().code(), StatusCode::FailedPrecondition);
  EXPECT_EQ(instance.status().message(),
            "executable 'kernels' has no variant that device local-sync can "
            "run; variants: cuda-ptx/sm_90");
}

TEST(ModuleInstanceErrorsTest, MissingEntryPointSymbol) {
  auto device = hal::DriverRegistry::global().createDevice("local-task");
  ASSERT_TRUE(device.ok());
  test::ModuleSpec spec = demoSpec(std::vector<float>(kN, 1.0f));
  for (test::VariantSpec &variant : spec.Executables[0].Variants)
    variant.EntryPoints[1].Name = "scale_bias_f64";
  auto file = loadSpec(spec);
  ASSERT_TRUE(file.ok()) << file.status().toString();
  auto instance = ModuleInstance::create(*device, *file);
  ASSERT_FALSE(instance.ok());
  EXPECT_EQ(instance.status().code(), StatusCode::NotFound);
  std::string message(instance.status().message());
  EXPECT_NE(message.find("scale_bias_f64"), std::string::npos) << message;
  EXPECT_NE(message.find("kernels"), std::string::npos) << message;
}

TEST(ModuleInstanceErrorsTest, NullArguments) {
  auto device = hal::DriverRegistry::global().createDevice("local-sync");
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(ModuleInstance::create(*device, nullptr).status().code(),
            StatusCode::InvalidArgument);
  auto file = loadSpec(demoSpec(std::vector<float>(kN, 1.0f)));
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(ModuleInstance::create(nullptr, *file).status().code(),
            StatusCode::InvalidArgument);
}

TEST(ModuleInstanceErrorsTest, ModuleWithoutConstantsOrExecutables) {
  auto device = hal::DriverRegistry::global().createDevice("local-task");
  ASSERT_TRUE(device.ok());
  test::ModuleSpec spec;
  spec.Layout = test::ConstantsLayout::None;
  test::FunctionSpec fn;
  fn.Name = "copy";
  fn.Inputs = {{kI32, {3}}};
  fn.Outputs = {{kI32, {3}}, {kI32, {0}}};
  test::StepSpec copy;
  copy.Kind = sc::StepKind::CopyStep;
  copy.Source = range(SK::Input, 0, 0, 12);
  copy.Target = range(SK::Output, 0, 0, 12);
  fn.Steps = {copy};
  spec.Functions.push_back(fn);
  auto file = loadSpec(spec);
  ASSERT_TRUE(file.ok()) << file.status().toString();
  auto instance = ModuleInstance::create(*device, *file);
  ASSERT_TRUE(instance.ok()) << instance.status().toString();
  std::vector<uint8_t> data = test::randomBytes(12, 5);
  auto outputs =
      (*instance)->call("copy", {tensor(ElementType::I32, {3}, data)});
  ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
  EXPECT_EQ((*outputs)[0].Data, data);
  EXPECT_TRUE((*outputs)[1].Data.empty());
  EXPECT_EQ((*outputs)[1].Shape, std::vector<int64_t>{0});
}

// A module of 8 GiB: a constants segment of 2^32 + 64 bytes at an offset
// past 2^32, whose last 64 bytes a dispatch and a copy read, so every file
// offset and constant offset on the way needs 64 bits (a truncation to 32
// bits would read the zeros at the start instead). The file is an anonymous
// mapping whose untouched pages are the kernel's shared zero page: 8 GiB to
// the verifier and the device, next to no memory. The constants are used
// in place (local-sync addresses host memory), never copied.
TEST(ModuleInstanceLargeTest, ConstantsPastFourGiB) {
  constexpr uint64_t kSegmentOffset = (uint64_t(1) << 32) + 4096;
  constexpr uint64_t kTailOffset = uint64_t(1) << 32; // in the segment
  constexpr uint64_t kSegmentSize = kTailOffset + 64;
  constexpr uint64_t kFileSize =
      kSegmentOffset + kSegmentSize + schema::kChecksumFooterSize;
  std::mt19937 rng(77);
  std::vector<float> tail = randomFloats(rng, kN);

  test::ModuleSpec spec = demoSpec({});
  spec.Segment.Offset = kSegmentOffset;
  spec.Segment.Size = kSegmentSize;
  test::FunctionSpec fn;
  fn.Name = "tail";
  fn.Inputs = {{kF32, {16}}};
  fn.Outputs = {{kF32, {16}}, {kF32, {16}}};
  test::StepSpec add = spec.Functions[0].Steps[0];
  add.Bindings = {range(SK::Input, 0, 0, 64),
                  range(SK::Constant, 0, kTailOffset, 64),
                  range(SK::Output, 0, 0, 64)};
  test::StepSpec copy;
  copy.Kind = sc::StepKind::CopyStep;
  copy.Source = range(SK::Constant, 0, kTailOffset, 64);
  copy.Target = range(SK::Output, 1, 0, 64);
  fn.Steps = {add, copy};
  spec.Functions = {fn};
  std::vector<uint8_t> flatbuffer = test::buildFlatbuffer(spec);

  void *memory = ::mmap(nullptr, kFileSize, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  ASSERT_NE(memory, MAP_FAILED);
  // Reads of huge pages map the huge zero page: 4096 times fewer faults.
  ::madvise(memory, kFileSize, MADV_HUGEPAGE);
  std::shared_ptr<uint8_t> bytes(static_cast<uint8_t *>(memory),
                                 [](uint8_t *p) { ::munmap(p, kFileSize); });
  uint8_t *base = bytes.get();
  std::memcpy(base, flatbuffer.data(), flatbuffer.size());
  std::memcpy(base + kSegmentOffset + kTailOffset, tail.data(), 64);
  uint64_t payload = kFileSize - schema::kChecksumFooterSize;
  auto footer =
      schema::moduleChecksumFooter(schema::moduleChecksum(base, payload));
  std::memcpy(base + payload, footer.data(), footer.size());

  uint64_t before = peakResidentBytes();
  auto file = ModuleFile::wrap(bytes, base, kFileSize);
  ASSERT_TRUE(file.ok()) << file.status().toString();
  EXPECT_EQ((*file)->constantsData(), base + kSegmentOffset);
  EXPECT_EQ((*file)->constantsSize(), kSegmentSize);
  auto device = hal::DriverRegistry::global().createDevice("local-sync");
  ASSERT_TRUE(device.ok()) << device.status().toString();
  auto instance = ModuleInstance::create(*device, *file);
  ASSERT_TRUE(instance.ok()) << instance.status().toString();
  std::vector<float> x = randomFloats(rng, kN);
  auto outputs = (*instance)->call(
      "tail", {tensor(ElementType::F32, {16}, floatBytes(x))});
  ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
  std::vector<float> sums = asFloats((*outputs)[0]);
  for (size_t i = 0; i < kN; ++i)
    EXPECT_EQ(sums[i], x[i] + tail[i]) << i;
  EXPECT_EQ(asFloats((*outputs)[1]), tail);
  EXPECT_LT(peakResidentBytes() - before, uint64_t(256) << 20);
}

} // namespace
} // namespace kiln::module

namespace kiln::module {
namespace {

class DynamicShapesTest : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Devices, DynamicShapesTest,
                         ::testing::Values("local-sync", "local-task",
                                           "local-task://?unified=0"),
                         hal::deviceParamName);

TEST_P(DynamicShapesTest, OneModuleRunsAtEachCallsShapes) {
  auto device = hal::DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  std::vector<uint8_t> bytes =
      test::buildModule(test::dynamicFillSpec(kernelImage(), 2.5f));
  auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  auto instance = ModuleInstance::create(*device, *file);
  ASSERT_TRUE(instance.ok()) << instance.status().toString();
  auto signature = (*instance)->lookup("fill");
  ASSERT_TRUE(signature.ok());
  EXPECT_EQ((*signature)->Inputs[0].Shape, std::vector<int64_t>{-1});
  // A new shape records afresh; the same shape again replays.
  const std::vector<std::pair<int64_t, uint64_t>> callsAndRecordings = {
      {5, 1}, {1, 2}, {13, 3}, {13, 3}, {5, 4}};
  for (auto [n, expectedRecordings] : callsAndRecordings) {
    std::vector<float> x(static_cast<size_t>(n), 7.0f);
    auto outputs = (*instance)->call(
        "fill", {tensor(ElementType::F32, {n}, floatBytes(x))});
    ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
    ASSERT_EQ(outputs->size(), 1u);
    EXPECT_EQ((*outputs)[0].Shape, std::vector<int64_t>{n});
    EXPECT_EQ(asFloats((*outputs)[0]),
              std::vector<float>(static_cast<size_t>(n), 2.5f));
    EXPECT_EQ((*instance)->recordingCount(), expectedRecordings) << n;
  }
  // Wrong element type or rank: one-line errors naming the input.
  auto wrong = (*instance)->call(
      "fill", {tensor(ElementType::I32, {2}, std::vector<uint8_t>(8))});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "function @fill input 0: expected ?xf32, got 2xi32");
  wrong = (*instance)->call(
      "fill", {tensor(ElementType::F32, {2, 2}, std::vector<uint8_t>(16))});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message(),
            "function @fill input 0 has rank 2, expected 1");
  // Device buffers carry sizes only: the call names the inputs' shapes, and
  // outputTypes gives the outputs' for them.
  const int64_t n = 9;
  const std::vector<std::vector<int64_t>> shapes = {{n}};
  auto outputTypes = (*instance)->outputTypes("fill", shapes);
  ASSERT_TRUE(outputTypes.ok()) << outputTypes.status().toString();
  EXPECT_EQ((*outputTypes)[0].Shape, std::vector<int64_t>{n});
  hal::Device &dev = **device;
  auto buffer = [&]() {
    return dev.allocator().allocate(n * 4, hal::MemoryType::DeviceLocal,
                                    hal::BufferUsage::Transfer |
                                        hal::BufferUsage::Dispatch);
  };
  auto in = buffer(), out = buffer();
  ASSERT_TRUE(in.ok() && out.ok());
  std::vector<float> x(n, 1.0f);
  ASSERT_TRUE(hal::writeBuffer(dev, *in, 0, floatBytes(x)).ok());
  std::vector<std::shared_ptr<hal::Buffer>> ins = {*in}, outs = {*out};
  Status status = (*instance)->callWithDeviceBuffers("fill", ins, outs);
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument) << status.toString();
  status =
      (*instance)->callWithDeviceBuffers("fill", ins, outs, nullptr, shapes);
  ASSERT_TRUE(status.ok()) << status.toString();
  std::vector<uint8_t> read(n * 4);
  ASSERT_TRUE(hal::readBuffer(dev, *out, 0, read).ok());
  HostTensor result = tensor(ElementType::F32, {n}, read);
  EXPECT_EQ(asFloats(result), std::vector<float>(n, 2.5f));
  // Shapes needing more than the buffers hold are refused.
  status = (*instance)->callWithDeviceBuffers(
      "fill", ins, outs, nullptr, std::vector<std::vector<int64_t>>{{n + 1}});
  EXPECT_EQ(status.code(), StatusCode::InvalidArgument) << status.toString();
}

// A shape given at call time: the output's length is the value of input 1,
// read from host tensors or back from a device buffer; a recording is
// replayed while shapes and values repeat.
TEST_P(DynamicShapesTest, ShapesFromInputValues) {
  auto device = hal::DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  std::vector<uint8_t> bytes =
      test::buildModule(test::valueFillSpec(kernelImage(), 2.5f));
  auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  auto instance = ModuleInstance::create(*device, *file);
  ASSERT_TRUE(instance.ok()) << instance.status().toString();
  std::vector<float> x(16, 7.0f);
  auto length = [](int64_t n) {
    std::vector<uint8_t> data(sizeof(n));
    std::memcpy(data.data(), &n, sizeof(n));
    return tensor(ElementType::I64, {1}, data);
  };
  const std::vector<std::pair<int64_t, uint64_t>> callsAndRecordings = {
      {3, 1}, {3, 1}, {16, 2}, {0, 3}, {3, 4}};
  for (auto [n, expectedRecordings] : callsAndRecordings) {
    auto outputs = (*instance)->call(
        "fill_n", {tensor(ElementType::F32, {16}, floatBytes(x)), length(n)});
    ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
    EXPECT_EQ((*outputs)[0].Shape, std::vector<int64_t>{n});
    EXPECT_EQ(asFloats((*outputs)[0]),
              std::vector<float>(static_cast<size_t>(n), 2.5f));
    EXPECT_EQ((*instance)->recordingCount(), expectedRecordings) << n;
  }
  // A negative length, or one past the input: one-line errors of the call.
  for (int64_t n : {-1, 17}) {
    auto wrong = (*instance)->call(
        "fill_n", {tensor(ElementType::F32, {16}, floatBytes(x)), length(n)});
    ASSERT_FALSE(wrong.ok()) << n;
    EXPECT_EQ(wrong.status().message().find('\n'), std::string::npos);
  }
  // Output types need the values; device-buffer calls read them back.
  const std::vector<std::vector<int64_t>> shapes = {{16}, {1}};
  auto noValues = (*instance)->outputTypes("fill_n", shapes);
  ASSERT_FALSE(noValues.ok());
  EXPECT_NE(noValues.status().message().find("values of input 1"),
            std::string::npos)
      << noValues.status().message();
  std::vector<HostTensor> inputs = {
      tensor(ElementType::F32, {16}, floatBytes(x)), length(5)};
  auto types = (*instance)->outputTypes("fill_n", shapes, inputs);
  ASSERT_TRUE(types.ok()) << types.status().toString();
  EXPECT_EQ((*types)[0].Shape, std::vector<int64_t>{5});
  hal::Device &dev = **device;
  auto buffer = [&](uint64_t size) {
    return dev.allocator().allocate(size, hal::MemoryType::DeviceLocal,
                                    hal::BufferUsage::Transfer |
                                        hal::BufferUsage::Dispatch);
  };
  auto in = buffer(64), n = buffer(8), out = buffer(64);
  ASSERT_TRUE(in.ok() && n.ok() && out.ok());
  ASSERT_TRUE(hal::writeBuffer(dev, *in, 0, floatBytes(x)).ok());
  ASSERT_TRUE(hal::writeBuffer(dev, *n, 0, inputs[1].Data).ok());
  std::vector<float> sentinel(16, -1.0f);
  ASSERT_TRUE(hal::writeBuffer(dev, *out, 0, floatBytes(sentinel)).ok());
  std::vector<std::shared_ptr<hal::Buffer>> ins = {*in, *n}, outs = {*out};
  std::vector<std::vector<int64_t>> written;
  Status status = (*instance)->callWithDeviceBuffers("fill_n", ins, outs,
                                                     nullptr, shapes, &written);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(written, (std::vector<std::vector<int64_t>>{{5}}));
  std::vector<uint8_t> read(64);
  ASSERT_TRUE(hal::readBuffer(dev, *out, 0, read).ok());
  std::vector<float> got = asFloats(tensor(ElementType::F32, {16}, read));
  for (size_t i = 0; i < 16; ++i)
    EXPECT_EQ(got[i], i < 5 ? 2.5f : -1.0f) << i;
}

// A float input read as a size (OneHot's depth): truncated toward zero; one
// that is not finite is a one-line error naming the input.
TEST_P(DynamicShapesTest, FloatValuesTruncated) {
  auto device = hal::DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  test::ModuleSpec spec = test::valueFillSpec(kernelImage(), 2.5f);
  spec.Functions[0].Inputs[1] = {static_cast<uint8_t>(sc::ElementType::F32),
                                 {1}};
  std::vector<uint8_t> bytes = test::buildModule(spec);
  auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  auto instance = ModuleInstance::create(*device, *file);
  ASSERT_TRUE(instance.ok()) << instance.status().toString();
  std::vector<float> x(16, 7.0f);
  for (float n : {3.7f, 0.5f, std::nanf(""), INFINITY}) {
    auto outputs = (*instance)->call(
        "fill_n", {tensor(ElementType::F32, {16}, floatBytes(x)),
                   tensor(ElementType::F32, {1}, floatBytes({n}))});
    if (!std::isfinite(n)) {
      ASSERT_FALSE(outputs.ok()) << n;
      EXPECT_NE(
          outputs.status().message().find("function @fill_n input 1 holds"),
          std::string::npos)
          << outputs.status().message();
      continue;
    }
    ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
    EXPECT_EQ((*outputs)[0].Shape,
              std::vector<int64_t>{static_cast<int64_t>(n)});
  }
}

// Memory planned at the upper bound (--input-shape=NAME:MIN..MAX): the
// arena is allocated once for the largest call; without bounds it grows
// with the calls and is never taken back for a smaller one.
TEST_P(DynamicShapesTest, ArenaPlannedAtTheUpperBound) {
  auto device = hal::DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  for (bool bounded : {true, false}) {
    std::vector<uint8_t> bytes = test::buildModule(
        test::dynamicChainSpec(kernelImage(), 2.5f, 1, bounded ? 64 : -1));
    auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
    ASSERT_TRUE(file.ok()) << file.status().toString();
    auto instance = ModuleInstance::create(*device, *file);
    ASSERT_TRUE(instance.ok()) << instance.status().toString();
    for (int64_t n : {5, 64, 1, 13}) {
      std::vector<float> x(static_cast<size_t>(n), 7.0f);
      auto outputs = (*instance)->call(
          "chain", {tensor(ElementType::F32, {n}, floatBytes(x))});
      ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
      EXPECT_EQ(asFloats((*outputs)[0]),
                std::vector<float>(static_cast<size_t>(n), 2.5f));
    }
    EXPECT_EQ((*instance)->arenaAllocationCount(), bounded ? 1u : 2u)
        << (bounded ? "bounded" : "unbounded");
  }
}

// A function of static shapes checking a value it reads per call (axes
// given at call time): device-buffer calls need no shapes, and a value the
// check refuses is a one-line error with the check's message.
TEST_P(DynamicShapesTest, StaticSignatureCheckingValues) {
  using Op = sc::ShapeOp;
  auto device = hal::DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  test::ModuleSpec spec = test::valueFillSpec(kernelImage(), 2.5f);
  test::FunctionSpec &f = spec.Functions[0];
  f.Outputs = {{0, {16}}};
  f.OutputDimNodes = {};
  f.ShapeProgram = {{Op::InputElementPos, 1, 0},
                    {Op::InputElementNeg, 1, 0},
                    {Op::Constant, 3, 0},
                    {Op::Constant, 64, 0},
                    {Op::Constant, 16, 0}};
  f.ShapeChecks = {{0, 2}};
  f.ShapeCheckMessages = {"input 1 must be 3"};
  f.Steps[0].BindingNodes = {{0xFFFFFFFFu, 3}, {0xFFFFFFFFu, 3}};
  f.Steps[0].PushConstantNodes = {{0, 4}};
  std::vector<uint8_t> bytes = test::buildModule(spec);
  auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  auto instance = ModuleInstance::create(*device, *file);
  ASSERT_TRUE(instance.ok()) << instance.status().toString();
  hal::Device &dev = **device;
  auto buffer = [&](uint64_t size) {
    return dev.allocator().allocate(size, hal::MemoryType::DeviceLocal,
                                    hal::BufferUsage::Transfer |
                                        hal::BufferUsage::Dispatch);
  };
  auto in = buffer(64), n = buffer(8), out = buffer(64);
  ASSERT_TRUE(in.ok() && n.ok() && out.ok());
  std::vector<float> x(16, 1.0f);
  ASSERT_TRUE(hal::writeBuffer(dev, *in, 0, floatBytes(x)).ok());
  std::vector<std::shared_ptr<hal::Buffer>> ins = {*in, *n}, outs = {*out};
  for (int64_t value : {3, 4}) {
    std::vector<uint8_t> data(sizeof(value));
    std::memcpy(data.data(), &value, sizeof(value));
    ASSERT_TRUE(hal::writeBuffer(dev, *n, 0, data).ok());
    std::vector<std::vector<int64_t>> written;
    Status status = (*instance)->callWithDeviceBuffers("fill_n", ins, outs,
                                                       nullptr, {}, &written);
    if (value == 3) {
      ASSERT_TRUE(status.ok()) << status.toString();
      EXPECT_EQ(written, (std::vector<std::vector<int64_t>>{{16}}));
      continue;
    }
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.message(), "function @fill_n: input 1 must be 3 (shape "
                                "nodes 0 and 2 are 4 and 3)");
  }
}

// A specialization (kiln-compile --specialize) runs the calls whose shapes
// its signature accepts, by every kind of call; the others run the general
// function, and only the general function is listed.
TEST_P(DynamicShapesTest, SpecializationRunsTheCallsItAccepts) {
  auto device = hal::DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  std::vector<uint8_t> bytes =
      test::buildModule(test::specializedFillSpec(kernelImage(), 2.5f, -1.0f));
  auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  auto instance = ModuleInstance::create(*device, *file);
  ASSERT_TRUE(instance.ok()) << instance.status().toString();
  EXPECT_EQ((*instance)->functionNames(), std::vector<std::string>{"fill"});
  for (int64_t n : {4, 5, 4, 1}) {
    std::vector<float> x(static_cast<size_t>(n), 7.0f);
    auto outputs = (*instance)->call(
        "fill", {tensor(ElementType::F32, {n}, floatBytes(x))});
    ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
    EXPECT_EQ((*outputs)[0].Shape, std::vector<int64_t>{n});
    EXPECT_EQ(asFloats((*outputs)[0]),
              std::vector<float>(static_cast<size_t>(n), n == 4 ? -1.0f : 2.5f))
        << n;
  }
  const std::vector<std::vector<int64_t>> four = {{4}};
  auto types = (*instance)->outputTypes("fill", four);
  ASSERT_TRUE(types.ok()) << types.status().toString();
  EXPECT_EQ((*types)[0].Shape, std::vector<int64_t>{4});
  hal::Device &dev = **device;
  auto in = dev.allocator().allocate(16, hal::MemoryType::DeviceLocal,
                                     hal::BufferUsage::Transfer |
                                         hal::BufferUsage::Dispatch);
  auto out = dev.allocator().allocate(16, hal::MemoryType::DeviceLocal,
                                      hal::BufferUsage::Transfer |
                                          hal::BufferUsage::Dispatch);
  ASSERT_TRUE(in.ok() && out.ok());
  std::vector<std::shared_ptr<hal::Buffer>> ins = {*in}, outs = {*out};
  Status status =
      (*instance)->callWithDeviceBuffers("fill", ins, outs, nullptr, four);
  ASSERT_TRUE(status.ok()) << status.toString();
  std::vector<uint8_t> read(16);
  ASSERT_TRUE(hal::readBuffer(dev, *out, 0, read).ok());
  EXPECT_EQ(asFloats(tensor(ElementType::F32, {4}, read)),
            std::vector<float>(4, -1.0f));
  status = (*instance)->callWithDeviceBuffers(
      "fill", ins, outs, nullptr, std::vector<std::vector<int64_t>>{{3}});
  ASSERT_TRUE(status.ok()) << status.toString();
  ASSERT_TRUE(hal::readBuffer(dev, *out, 0, read).ok());
  std::vector<float> got = asFloats(tensor(ElementType::F32, {4}, read));
  EXPECT_EQ(std::vector<float>(got.begin(), got.begin() + 3),
            std::vector<float>(3, 2.5f));
}

// A phased function (minor version 10) runs its phases in turn, the
// second reading on the host what the first computed; its outputs come
// from both, through call() and on device buffers alike.
TEST_P(DynamicShapesTest, PhasedFunctionRunsItsPhasesInTurn) {
  auto device = hal::DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  std::vector<uint8_t> bytes =
      test::buildModule(test::phasedFillSpec(kernelImage(), 2.5f));
  auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  auto instance = ModuleInstance::create(*device, *file);
  ASSERT_TRUE(instance.ok()) << instance.status().toString();
  EXPECT_EQ((*instance)->functionNames(),
            std::vector<std::string>{"count_fill"});
  std::vector<float> x(16, 7.0f);
  auto length = [](int64_t n) {
    std::vector<uint8_t> data(sizeof(n));
    std::memcpy(data.data(), &n, sizeof(n));
    return tensor(ElementType::I64, {1}, data);
  };
  for (int64_t n : {3, 16, 0, 3}) {
    auto outputs = (*instance)->call(
        "count_fill",
        {tensor(ElementType::F32, {16}, floatBytes(x)), length(n)});
    ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
    ASSERT_EQ(outputs->size(), 2u);
    EXPECT_EQ((*outputs)[0].Shape, std::vector<int64_t>{n});
    EXPECT_EQ(asFloats((*outputs)[0]),
              std::vector<float>(static_cast<size_t>(n), 2.5f));
    EXPECT_EQ((*outputs)[1].Data, length(n).Data);
  }
  // A length past the input fails in the second phase, in one line.
  auto wrong = (*instance)->call(
      "count_fill",
      {tensor(ElementType::F32, {16}, floatBytes(x)), length(17)});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message().find('\n'), std::string::npos);
  // Output shapes are known only by running it.
  const std::vector<std::vector<int64_t>> shapes = {{16}, {1}};
  auto types = (*instance)->outputTypes("count_fill", shapes);
  ASSERT_FALSE(types.ok());
  EXPECT_NE(types.status().message().find("runs in phases"), std::string::npos);

  hal::Device &dev = **device;
  auto buffer = [&](uint64_t size) {
    auto b = dev.allocator().allocate(size, hal::MemoryType::DeviceLocal,
                                      hal::BufferUsage::Transfer |
                                          hal::BufferUsage::Dispatch);
    EXPECT_TRUE(b.ok()) << b.status().toString();
    return b.ok() ? *b : nullptr;
  };
  std::vector<std::shared_ptr<hal::Buffer>> ins = {buffer(64), buffer(8)};
  ASSERT_TRUE(hal::writeBuffer(dev, ins[0], 0, floatBytes(x)).ok());
  ASSERT_TRUE(hal::writeBuffer(dev, ins[1], 0, length(5).Data).ok());
  std::vector<std::shared_ptr<hal::Buffer>> outs = {buffer(64), buffer(8)};
  std::vector<std::vector<int64_t>> written;
  Status status = (*instance)->callWithDeviceBuffers("count_fill", ins, outs,
                                                     nullptr, shapes, &written);
  ASSERT_TRUE(status.ok()) << status.toString();
  EXPECT_EQ(written, (std::vector<std::vector<int64_t>>{{5}, {1}}));
  std::vector<uint8_t> read(20), count(8);
  ASSERT_TRUE(hal::readBuffer(dev, outs[0], 0, read).ok());
  ASSERT_TRUE(hal::readBuffer(dev, outs[1], 0, count).ok());
  EXPECT_EQ(asFloats(tensor(ElementType::F32, {5}, read)),
            std::vector<float>(5, 2.5f));
  EXPECT_EQ(count, length(5).Data);
  // An output buffer smaller than what the call computed is refused,
  // naming the function's output; so is one given twice.
  std::vector<std::shared_ptr<hal::Buffer>> small = {buffer(16), buffer(8)};
  status = (*instance)->callWithDeviceBuffers("count_fill", ins, small, nullptr,
                                              shapes);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("@count_fill"), std::string::npos)
      << status.toString();
  EXPECT_NE(status.message().find("output 0"), std::string::npos);
  std::vector<std::shared_ptr<hal::Buffer>> twice = {outs[0], outs[0]};
  status = (*instance)->callWithDeviceBuffers("count_fill", ins, twice, nullptr,
                                              shapes);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("is the buffer given as output 0"),
            std::string::npos)
      << status.toString();
}

// A loop phase (minor version 11) repeats its body while the iteration is
// below the trip count and the condition holds, carrying the body's value
// on and stacking its scan slices; no steps leave the first value and no
// rows. Its condition comes from the body or, mapped, passes through.
TEST_P(DynamicShapesTest, LoopPhaseRepeatsItsBody) {
  auto device = hal::DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  auto i64 = i64Scalar;
  auto flag = [](bool v) {
    return tensor(ElementType::I1, {}, {static_cast<uint8_t>(v)});
  };
  auto values = [](const HostTensor &t) {
    std::vector<int64_t> out(t.Data.size() / 8);
    if (!out.empty()) // no rows: nothing to copy (and no pointer)
      std::memcpy(out.data(), t.Data.data(), t.Data.size());
    return out;
  };
  for (bool mapped : {false, true}) {
    std::vector<uint8_t> bytes = test::buildModule(test::loopCountSpec(mapped));
    auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
    ASSERT_TRUE(file.ok()) << file.status().toString();
    auto instance = ModuleInstance::create(*device, *file);
    ASSERT_TRUE(instance.ok()) << instance.status().toString();
    EXPECT_EQ((*instance)->functionNames(),
              std::vector<std::string>{"count_loop"});
    for (auto [n, go] : {std::pair{int64_t(5), true},
                         {int64_t(0), true},
                         {int64_t(3), false},
                         {int64_t(1), true}}) {
      auto outputs =
          (*instance)->call("count_loop", {i64(n), flag(go), i64(42)});
      ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
      ASSERT_EQ(outputs->size(), 2u);
      int64_t steps = go ? n : 0;
      std::vector<int64_t> iterations(static_cast<size_t>(steps));
      for (int64_t i = 0; i < steps; ++i)
        iterations[i] = i;
      EXPECT_EQ(values((*outputs)[0]),
                std::vector<int64_t>{steps ? steps - 1 : 42});
      EXPECT_EQ((*outputs)[1].Shape, std::vector<int64_t>{steps});
      EXPECT_EQ(values((*outputs)[1]), iterations) << "mapped " << mapped;
    }
  }
}

// With timing on, each phase and loop body sums where its host time went
// (kiln-benchmark-module --function_times): runs per call as called, parts
// within the total, the phase reading a value back timed doing so. Turning
// it on again starts from zero; off, nothing is summed.
TEST_P(DynamicShapesTest, FunctionTimingSumsEachPhase) {
  auto device = hal::DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  // Null (and the failure reported) where the module does not load.
  auto load = [&](const test::ModuleSpec &spec) {
    std::vector<uint8_t> bytes = test::buildModule(spec);
    auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
    EXPECT_TRUE(file.ok()) << file.status().toString();
    if (!file.ok())
      return std::unique_ptr<ModuleInstance>();
    auto instance = ModuleInstance::create(*device, *file);
    EXPECT_TRUE(instance.ok()) << instance.status().toString();
    return instance.ok() ? std::move(instance).value()
                         : std::unique_ptr<ModuleInstance>();
  };
  auto byName = [](const std::vector<FunctionTime> &times) {
    std::map<std::string, FunctionTime> named;
    for (const FunctionTime &time : times)
      named[time.Name] = time;
    return named;
  };
  std::unique_ptr<ModuleInstance> phased =
      load(test::phasedFillSpec(kernelImage(), 2.5f));
  ASSERT_TRUE(phased);
  std::vector<float> x(16, 7.0f);
  std::vector<uint8_t> three(8);
  int64_t n = 3;
  std::memcpy(three.data(), &n, sizeof(n));
  std::vector<HostTensor> inputs = {
      tensor(ElementType::F32, {16}, floatBytes(x)),
      tensor(ElementType::I64, {1}, three)};
  ASSERT_TRUE(phased->call("count_fill", inputs).ok());
  EXPECT_TRUE(phased->functionTimes().empty());
  phased->setFunctionTiming(true);
  for (int i = 0; i < 2; ++i)
    ASSERT_TRUE(phased->call("count_fill", inputs).ok());
  std::map<std::string, FunctionTime> times = byName(phased->functionTimes());
  ASSERT_EQ(times.size(), 3u);
  for (const char *name : {"count_fill", "copy_count", "fill_n"}) {
    const FunctionTime &time = times[name];
    EXPECT_EQ(time.Runs, 2u) << name;
    EXPECT_GT(time.TotalSeconds, 0) << name;
    EXPECT_LE(time.ReadSeconds + time.ShapeSeconds + time.AllocateSeconds +
                  time.RecordSeconds + time.RunSeconds,
              time.TotalSeconds)
        << name;
  }
  // fill_n reads its length back and resolves its shapes every call; the
  // phases' totals are within the function's.
  EXPECT_GT(times["fill_n"].ReadSeconds, 0);
  EXPECT_GT(times["fill_n"].ShapeSeconds, 0);
  EXPECT_GT(times["copy_count"].RunSeconds, 0);
  EXPECT_LE(times["fill_n"].TotalSeconds + times["copy_count"].TotalSeconds,
            times["count_fill"].TotalSeconds);
  phased->setFunctionTiming(true);
  EXPECT_TRUE(phased->functionTimes().empty());
  phased->setFunctionTiming(false);
  ASSERT_TRUE(phased->call("count_fill", inputs).ok());
  EXPECT_TRUE(phased->functionTimes().empty());

  // A loop's body counts a run per step; the loop's total is its body's.
  std::unique_ptr<ModuleInstance> loop = load(test::loopCountSpec(false));
  ASSERT_TRUE(loop);
  loop->setFunctionTiming(true);
  ASSERT_TRUE(
      loop->call("count_loop", {i64Scalar(5), tensor(ElementType::I1, {}, {1}),
                                i64Scalar(42)})
          .ok());
  times = byName(loop->functionTimes());
  EXPECT_EQ(times["count_loop"].Runs, 1u);
  EXPECT_EQ(times["count_body"].Runs, 5u);
  EXPECT_GT(times["count_body"].RunSeconds, 0);
  EXPECT_LE(times["count_body"].TotalSeconds, times["count_loop"].TotalSeconds);
}

// A loop's body in phases of its own, one of them a loop (an If decided per
// call around NonMaxSuppression's rounds): each depth of loops keeps its
// own iteration and conditions, so the inner loop's steps do not overwrite
// the outer loop's iteration its body still reads.
TEST_P(DynamicShapesTest, LoopBodyRunsALoopOfItsOwn) {
  auto device = hal::DriverRegistry::global().createDevice(GetParam());
  ASSERT_TRUE(device.ok()) << device.status().toString();
  auto i64 = i64Scalar;
  std::vector<uint8_t> bytes = test::buildModule(test::nestedLoopSpec());
  auto file = ModuleFile::fromBytes(bytes.data(), bytes.size());
  ASSERT_TRUE(file.ok()) << file.status().toString();
  auto instance = ModuleInstance::create(*device, *file);
  ASSERT_TRUE(instance.ok()) << instance.status().toString();
  EXPECT_EQ((*instance)->functionNames(), std::vector<std::string>{"nest"});
  for (int64_t n : {0, 1, 2, 5, 9}) {
    auto outputs = (*instance)->call(
        "nest", {i64(n), tensor(ElementType::I1, {}, {1}), i64(42)});
    ASSERT_TRUE(outputs.ok()) << outputs.status().toString();
    ASSERT_EQ(outputs->size(), 1u);
    int64_t got = 0;
    ASSERT_EQ((*outputs)[0].Data.size(), sizeof(got));
    std::memcpy(&got, (*outputs)[0].Data.data(), sizeof(got));
    EXPECT_EQ(got, n <= 1 ? 42 : n - 2) << n << " steps";
  }
}

} // namespace
} // namespace kiln::module
