//===- KilnApiTest.cpp - The C API, from C++ and from C -------------------===//

#include "runtime/api/kiln.h"

#include "runtime/module/TestModule.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <unistd.h>

extern "C" int kilnCApiAddVectors(const char *uri, const void *bytes,
                                  size_t size, const char *function,
                                  const float *a, const float *b, float *result,
                                  char *error, size_t errorSize);

namespace {

namespace sc = kiln::schema;
namespace test = kiln::module::test;
using SK = sc::StorageKind;

std::vector<uint8_t> kernelImage() {
  std::ifstream file(KILN_CTS_KERNELS_PATH, std::ios::binary);
  EXPECT_TRUE(file) << KILN_CTS_KERNELS_PATH;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
}

// @add(a: 4xf32, b: 4xf32) -> (4xf32) with the real add_f32 kernel, and
// @iota() -> (2x2xi32) filled with a constant pattern.
std::vector<uint8_t> buildModuleBytes() {
  test::ModuleSpec spec;
  spec.Name = "api";
  spec.Layout = test::ConstantsLayout::None;
  test::EntryPointSpec add{"add_f32", {4, 1, 1}, {1, 1, 1}, 3, 2, 0};
  spec.Executables.push_back(
      {"kernels", {{"cpu-elf-x86_64", "host", kernelImage(), {add}}}});
  test::FunctionSpec addFn;
  addFn.Name = "add";
  addFn.Inputs = {{0, {4}}, {0, {4}}};
  addFn.Outputs = {{0, {4}}};
  test::StepSpec dispatch;
  dispatch.Kind = sc::StepKind::DispatchStep;
  dispatch.Bindings = {test::range(SK::Input, 0, 0, 16),
                       test::range(SK::Input, 1, 0, 16),
                       test::range(SK::Output, 0, 0, 16)};
  dispatch.PushConstants = {4, 4};
  addFn.Steps = {dispatch};
  spec.Functions.push_back(addFn);
  test::FunctionSpec iota;
  iota.Name = "pattern";
  iota.Outputs = {{7, {2, 2}}};
  test::StepSpec fill;
  fill.Kind = sc::StepKind::FillStep;
  fill.Target = test::range(SK::Output, 0, 0, 16);
  fill.Pattern = 0x01020304;
  fill.PatternLength = 4;
  iota.Steps = {fill};
  spec.Functions.push_back(iota);
  return test::buildModule(spec);
}

struct StatusGuard {
  KilnStatus Status;
  ~StatusGuard() { kilnStatusFree(Status); }
};

#define EXPECT_KILN_OK(expr)                                                   \
  do {                                                                         \
    StatusGuard guard{(expr)};                                                 \
    EXPECT_EQ(guard.Status, nullptr) << kilnStatusMessage(guard.Status);       \
  } while (false)

class KilnApiTest : public ::testing::Test {
protected:
  void SetUp() override {
    Bytes = buildModuleBytes();
    EXPECT_KILN_OK(kilnDeviceCreate("local-task", &Device));
    ASSERT_NE(Device, nullptr);
    EXPECT_KILN_OK(
        kilnModuleLoadBytes(Device, Bytes.data(), Bytes.size(), &Module));
    ASSERT_NE(Module, nullptr);
  }
  void TearDown() override {
    kilnModuleRelease(Module);
    kilnDeviceRelease(Device);
  }

  std::vector<uint8_t> Bytes;
  KilnDevice *Device = nullptr;
  KilnModule *Module = nullptr;
};

TEST(KilnApiStatusTest, NullIsOk) {
  EXPECT_EQ(kilnStatusCode(nullptr), KILN_STATUS_OK);
  EXPECT_STREQ(kilnStatusMessage(nullptr), "OK");
  kilnStatusFree(nullptr);
  kilnDeviceRelease(nullptr);
  kilnModuleRelease(nullptr);
  kilnOutputsRelease(nullptr);
}

TEST(KilnApiStatusTest, DriversAndDeviceErrors) {
  ASSERT_GE(kilnDriverCount(), 2u);
  EXPECT_STREQ(kilnDriverName(0), "local-sync");
  EXPECT_STREQ(kilnDriverName(1), "local-task");
  EXPECT_EQ(kilnDriverName(1000), nullptr);

  KilnDevice *device = reinterpret_cast<KilnDevice *>(0x1);
  KilnStatus status = kilnDeviceCreate("nope", &device);
  EXPECT_EQ(device, nullptr);
  EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_NOT_FOUND);
  EXPECT_NE(std::strstr(kilnStatusMessage(status),
                        "unknown device 'nope'; available: local-sync"),
            nullptr)
      << kilnStatusMessage(status);
  kilnStatusFree(status);
  status = kilnDeviceCreate("local-task?workers=zero", &device);
  EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_INVALID_ARGUMENT);
  kilnStatusFree(status);
  status = kilnDeviceCreate(nullptr, &device);
  EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_INVALID_ARGUMENT);
  kilnStatusFree(status);
  status = kilnDeviceCreate("local-sync", nullptr);
  EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_INVALID_ARGUMENT);
  kilnStatusFree(status);
}

TEST(KilnApiStatusTest, ElementTypeSizes) {
  EXPECT_EQ(kilnElementTypeSize(KILN_ELEMENT_TYPE_F32), 4u);
  EXPECT_EQ(kilnElementTypeSize(KILN_ELEMENT_TYPE_BF16), 2u);
  EXPECT_EQ(kilnElementTypeSize(KILN_ELEMENT_TYPE_U64), 8u);
  EXPECT_EQ(kilnElementTypeSize(-1), 0u);
  EXPECT_EQ(kilnElementTypeSize(40), 0u);
}

TEST_F(KilnApiTest, FunctionsAndSignatures) {
  ASSERT_EQ(kilnModuleFunctionCount(Module), 2u);
  EXPECT_STREQ(kilnFunctionName(kilnModuleFunctionAt(Module, 0)), "add");
  EXPECT_STREQ(kilnFunctionName(kilnModuleFunctionAt(Module, 1)), "pattern");
  EXPECT_EQ(kilnModuleFunctionAt(Module, 2), nullptr);

  const KilnFunction *add = nullptr;
  EXPECT_KILN_OK(kilnModuleLookupFunction(Module, "add", &add));
  ASSERT_EQ(add, kilnModuleFunctionAt(Module, 0));
  EXPECT_EQ(kilnFunctionInputCount(add), 2u);
  EXPECT_EQ(kilnFunctionOutputCount(add), 1u);
  KilnTensor type;
  EXPECT_KILN_OK(kilnFunctionInputType(add, 1, &type));
  EXPECT_EQ(type.elementType, KILN_ELEMENT_TYPE_F32);
  ASSERT_EQ(type.rank, 1u);
  EXPECT_EQ(type.shape[0], 4);
  EXPECT_EQ(type.dataSize, 16u);
  EXPECT_EQ(type.data, nullptr);
  KilnStatus status = kilnFunctionInputType(add, 2, &type);
  EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_OUT_OF_RANGE);
  kilnStatusFree(status);
  EXPECT_KILN_OK(kilnFunctionOutputType(add, 0, &type));

  const KilnFunction *missing = add;
  status = kilnModuleLookupFunction(Module, "sub", &missing);
  EXPECT_EQ(missing, nullptr);
  EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_NOT_FOUND);
  EXPECT_NE(std::strstr(kilnStatusMessage(status), "available: add, pattern"),
            nullptr)
      << kilnStatusMessage(status);
  kilnStatusFree(status);
}

TEST_F(KilnApiTest, CallAdd) {
  const KilnFunction *add = nullptr;
  EXPECT_KILN_OK(kilnModuleLookupFunction(Module, "add", &add));
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> value(-10.0f, 10.0f);
  for (int call = 0; call < 3; ++call) {
    float a[4], b[4];
    for (int i = 0; i < 4; ++i) {
      a[i] = value(rng);
      b[i] = value(rng);
    }
    const int64_t shape[] = {4};
    KilnTensor inputs[2] = {{KILN_ELEMENT_TYPE_F32, 1, shape, a, sizeof(a)},
                            {KILN_ELEMENT_TYPE_F32, 1, shape, b, sizeof(b)}};
    KilnOutputs *outputs = nullptr;
    EXPECT_KILN_OK(kilnFunctionCall(add, inputs, 2, &outputs));
    ASSERT_NE(outputs, nullptr);
    ASSERT_EQ(kilnOutputsCount(outputs), 1u);
    KilnTensor out;
    EXPECT_KILN_OK(kilnOutputsGet(outputs, 0, &out));
    EXPECT_EQ(out.elementType, KILN_ELEMENT_TYPE_F32);
    ASSERT_EQ(out.rank, 1u);
    EXPECT_EQ(out.shape[0], 4);
    ASSERT_EQ(out.dataSize, 16u);
    const float *sums = static_cast<const float *>(out.data);
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(sums[i], a[i] + b[i]);
    KilnStatus status = kilnOutputsGet(outputs, 1, &out);
    EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_OUT_OF_RANGE);
    kilnStatusFree(status);
    kilnOutputsRelease(outputs);
  }
}

TEST_F(KilnApiTest, CallWithoutInputs) {
  const KilnFunction *pattern = nullptr;
  EXPECT_KILN_OK(kilnModuleLookupFunction(Module, "pattern", &pattern));
  KilnOutputs *outputs = nullptr;
  EXPECT_KILN_OK(kilnFunctionCall(pattern, nullptr, 0, &outputs));
  KilnTensor out;
  EXPECT_KILN_OK(kilnOutputsGet(outputs, 0, &out));
  EXPECT_EQ(out.elementType, KILN_ELEMENT_TYPE_I32);
  ASSERT_EQ(out.rank, 2u);
  const int32_t *values = static_cast<const int32_t *>(out.data);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(values[i], 0x01020304);
  kilnOutputsRelease(outputs);
}

TEST_F(KilnApiTest, CallErrors) {
  const KilnFunction *add = nullptr;
  EXPECT_KILN_OK(kilnModuleLookupFunction(Module, "add", &add));
  float a[4] = {1, 2, 3, 4};
  int32_t ints[4] = {1, 2, 3, 4};
  const int64_t shape[] = {4};
  KilnTensor good = {KILN_ELEMENT_TYPE_F32, 1, shape, a, sizeof(a)};
  KilnTensor wrongType = {KILN_ELEMENT_TYPE_I32, 1, shape, ints, sizeof(ints)};
  auto expectError = [&](std::vector<KilnTensor> inputs, KilnStatusCode code,
                         const char *text) {
    KilnOutputs *outputs = reinterpret_cast<KilnOutputs *>(0x1);
    KilnStatus status =
        kilnFunctionCall(add, inputs.data(), inputs.size(), &outputs);
    EXPECT_EQ(outputs, nullptr);
    EXPECT_EQ(kilnStatusCode(status), code) << kilnStatusMessage(status);
    EXPECT_NE(std::strstr(kilnStatusMessage(status), text), nullptr)
        << kilnStatusMessage(status);
    kilnStatusFree(status);
  };
  expectError({good}, KILN_STATUS_INVALID_ARGUMENT,
              "function @add expects 2 input(s), got 1");
  expectError({good, wrongType}, KILN_STATUS_INVALID_ARGUMENT,
              "function @add input 1: expected 4xf32, got 4xi32");
  KilnTensor noShape = {KILN_ELEMENT_TYPE_F32, 1, nullptr, a, sizeof(a)};
  expectError({good, noShape}, KILN_STATUS_INVALID_ARGUMENT, "NULL shape");
  KilnTensor noData = {KILN_ELEMENT_TYPE_F32, 1, shape, nullptr, 16};
  expectError({noData, good}, KILN_STATUS_INVALID_ARGUMENT, "NULL data");
  KilnTensor badType = {99, 1, shape, a, 16};
  expectError({badType, good}, KILN_STATUS_INVALID_ARGUMENT,
              "unknown element type 99");
  KilnTensor hugeRank = {KILN_ELEMENT_TYPE_F32, size_t(1) << 40, shape, a, 16};
  expectError({good, hugeRank}, KILN_STATUS_INVALID_ARGUMENT, "rank");
  KilnTensor shortData = {KILN_ELEMENT_TYPE_F32, 1, shape, a, 12};
  expectError({good, shortData}, KILN_STATUS_INVALID_ARGUMENT,
              "needs 16 bytes of data, got 12");

  KilnOutputs *outputs = nullptr;
  KilnStatus status = kilnFunctionCall(nullptr, &good, 1, &outputs);
  EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_INVALID_ARGUMENT);
  kilnStatusFree(status);
}

TEST_F(KilnApiTest, LoadErrors) {
  KilnModule *module = reinterpret_cast<KilnModule *>(0x1);
  const char garbage[] = "this is not a kiln module at all";
  KilnStatus status =
      kilnModuleLoadBytes(Device, garbage, sizeof(garbage), &module);
  EXPECT_EQ(module, nullptr);
  EXPECT_NE(kilnStatusCode(status), KILN_STATUS_OK);
  kilnStatusFree(status);
  status = kilnModuleLoadFile(Device, "/nonexistent/model.kiln", &module);
  EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_NOT_FOUND);
  kilnStatusFree(status);
  status = kilnModuleLoadBytes(nullptr, Bytes.data(), Bytes.size(), &module);
  EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_INVALID_ARGUMENT);
  kilnStatusFree(status);
}

TEST_F(KilnApiTest, LoadFromFile) {
  char path[] = "/tmp/kiln-api-test-XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, Bytes.data(), Bytes.size()),
            static_cast<ssize_t>(Bytes.size()));
  close(fd);
  KilnModule *module = nullptr;
  EXPECT_KILN_OK(kilnModuleLoadFile(Device, path, &module));
  unlink(path);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(kilnModuleFunctionCount(module), 2u);
  kilnModuleRelease(module);
}

TEST_F(KilnApiTest, ModuleOutlivesItsDeviceHandle) {
  kilnDeviceRelease(Device);
  Device = nullptr;
  const KilnFunction *pattern = nullptr;
  EXPECT_KILN_OK(kilnModuleLookupFunction(Module, "pattern", &pattern));
  KilnOutputs *outputs = nullptr;
  EXPECT_KILN_OK(kilnFunctionCall(pattern, nullptr, 0, &outputs));
  kilnOutputsRelease(outputs);
}

TEST(KilnApiCTest, FromC) {
  std::vector<uint8_t> bytes = buildModuleBytes();
  float a[4] = {1.5f, 2.5f, -3.0f, 40.0f}, b[4] = {0.5f, -2.5f, 3.25f, 2.0f};
  float result[4] = {0, 0, 0, 0};
  char error[256] = "";
  for (const char *uri : {"local-sync", "local-task"}) {
    int code = kilnCApiAddVectors(uri, bytes.data(), bytes.size(), "add", a, b,
                                  result, error, sizeof(error));
    ASSERT_EQ(code, 0) << error;
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(result[i], a[i] + b[i]);
  }
  int code = kilnCApiAddVectors("local-task", bytes.data(), bytes.size(),
                                "subtract", a, b, result, error, sizeof(error));
  EXPECT_EQ(code, KILN_STATUS_NOT_FOUND);
  EXPECT_NE(std::strstr(error, "subtract"), nullptr) << error;
}

} // namespace
