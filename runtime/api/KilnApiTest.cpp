//===- KilnApiTest.cpp - The C API, from C++ and from C -------------------===//

#include "runtime/api/kiln.h"

#include "runtime/hal/DeviceParamName.h"
#include "runtime/module/TestModule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <unistd.h>

extern "C" int kilnCApiAddVectors(const char *uri, const void *bytes,
                                  size_t size, const char *function,
                                  const float *a, const float *b, float *result,
                                  char *error, size_t errorSize);
extern "C" int kilnCApiAddVectorsOnDevice(const char *uri, const void *bytes,
                                          size_t size, const float *a,
                                          const float *b, float *result,
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

// The CTS kernels as PTX, where nvcc was found when building; empty
// otherwise.
std::vector<uint8_t> ptxImage() {
#ifdef KILN_CTS_PTX_INC
  static constexpr std::string_view kPtx =
#include KILN_CTS_PTX_INC
      ;
  // The driver reads PTX as a NUL-terminated string.
  std::vector<uint8_t> bytes(kPtx.begin(), kPtx.end());
  bytes.push_back(0);
  return bytes;
#else
  return {};
#endif
}

// @add(a: 4xf32, b: 4xf32) -> (4xf32) with the real add_f32 kernel (for the
// CPU, and for CUDA where its PTX was built), and @iota() -> (2x2xi32)
// filled with a constant pattern.
std::vector<uint8_t> buildModuleBytes() {
  test::ModuleSpec spec;
  spec.Name = "api";
  spec.Layout = test::ConstantsLayout::None;
  test::EntryPointSpec add{"add_f32", {4, 1, 1}, {1, 1, 1}, 3, 2, 0};
  test::ExecutableSpec kernels{
      "kernels", {{"cpu-elf-x86_64", "host", kernelImage(), {add}}}};
  // One CUDA thread adds all 4 (the kernel loops over its workgroup's part).
  add.WorkgroupSize = {1, 1, 1};
  if (std::vector<uint8_t> ptx = ptxImage(); !ptx.empty())
    kernels.Variants.push_back({"cuda-ptx", "sm_80", ptx, {add}});
  spec.Executables.push_back(kernels);
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

// test::dynamicFillSpec's @fill(?xf32) -> ?xf32 loaded on `uri`; released
// with the object.
struct LoadedFill {
  explicit LoadedFill(const char *uri) {
    std::vector<uint8_t> bytes =
        test::buildModule(test::dynamicFillSpec(kernelImage(), -1.5f));
    EXPECT_KILN_OK(kilnDeviceCreate(uri, &Device));
    if (Device)
      EXPECT_KILN_OK(
          kilnModuleLoadBytes(Device, bytes.data(), bytes.size(), &Module));
    if (Module)
      EXPECT_KILN_OK(kilnModuleLookupFunction(Module, "fill", &Fill));
  }
  ~LoadedFill() {
    kilnModuleRelease(Module);
    kilnDeviceRelease(Device);
  }
  LoadedFill(const LoadedFill &) = delete;
  LoadedFill &operator=(const LoadedFill &) = delete;

  KilnDevice *Device = nullptr;
  KilnModule *Module = nullptr;
  const KilnFunction *Fill = nullptr;
};

// Dynamic shapes (issue 19): a function over ?xf32 describes the dimension
// as -1 and takes each call's shape from its input, on both CPU drivers.
TEST(KilnApiDynamicShapesTest, EachCallTakesItsInputsShapes) {
  for (const char *uri : {"local-sync", "local-task"}) {
    LoadedFill loaded(uri);
    ASSERT_NE(loaded.Fill, nullptr);
    const KilnFunction *fill = loaded.Fill;
    KilnTensor type;
    EXPECT_KILN_OK(kilnFunctionInputType(fill, 0, &type));
    ASSERT_EQ(type.rank, 1u);
    EXPECT_EQ(type.shape[0], -1);
    EXPECT_EQ(type.dataSize, 0u);
    for (int64_t n : {7, 1, 31}) {
      std::vector<float> x(static_cast<size_t>(n), 3.0f);
      const int64_t shape[] = {n};
      KilnTensor input = {KILN_ELEMENT_TYPE_F32, 1, shape, x.data(),
                          x.size() * sizeof(float)};
      KilnOutputs *outputs = nullptr;
      EXPECT_KILN_OK(kilnFunctionCall(fill, &input, 1, &outputs));
      ASSERT_NE(outputs, nullptr);
      KilnTensor out;
      EXPECT_KILN_OK(kilnOutputsGet(outputs, 0, &out));
      ASSERT_EQ(out.rank, 1u);
      EXPECT_EQ(out.shape[0], n);
      ASSERT_EQ(out.dataSize, x.size() * sizeof(float));
      const float *values = static_cast<const float *>(out.data);
      for (int64_t i = 0; i < n; ++i)
        EXPECT_EQ(values[i], -1.5f) << uri << " n=" << n << " i=" << i;
      kilnOutputsRelease(outputs);
    }
  }
}

// A phased function (test::phasedFillSpec: its second phase reads on the
// host what its first computed) through the C API: kilnFunctionCall gives
// outputs at the shapes the call computed, kilnFunctionCallBuffersWithShapes
// writes them beside buffers sized for the largest, and
// kilnFunctionOutputShapes, which would need to run it, is refused.
TEST(KilnApiDynamicShapesTest, PhasedFunctionOutputsTakeComputedShapes) {
  std::vector<uint8_t> bytes =
      test::buildModule(test::phasedFillSpec(kernelImage(), -1.5f));
  for (const char *uri : {"local-sync", "local-task"}) {
    SCOPED_TRACE(uri);
    KilnDevice *device = nullptr;
    KilnModule *module = nullptr;
    const KilnFunction *fn = nullptr;
    EXPECT_KILN_OK(kilnDeviceCreate(uri, &device));
    ASSERT_NE(device, nullptr);
    EXPECT_KILN_OK(
        kilnModuleLoadBytes(device, bytes.data(), bytes.size(), &module));
    ASSERT_NE(module, nullptr);
    EXPECT_KILN_OK(kilnModuleLookupFunction(module, "count_fill", &fn));
    ASSERT_NE(fn, nullptr);
    std::vector<float> x(16, 3.0f);
    const int64_t xShape[] = {16}, nShape[] = {1};
    for (int64_t n : {int64_t(5), int64_t(0), int64_t(16)}) {
      KilnTensor inputs[] = {
          {KILN_ELEMENT_TYPE_F32, 1, xShape, x.data(), x.size() * 4},
          {KILN_ELEMENT_TYPE_I64, 1, nShape, &n, sizeof(n)}};
      KilnOutputs *outputs = nullptr;
      EXPECT_KILN_OK(kilnFunctionCall(fn, inputs, 2, &outputs));
      ASSERT_NE(outputs, nullptr);
      KilnTensor out;
      EXPECT_KILN_OK(kilnOutputsGet(outputs, 0, &out));
      ASSERT_EQ(out.rank, 1u);
      EXPECT_EQ(out.shape[0], n);
      ASSERT_EQ(out.dataSize, static_cast<size_t>(n) * 4);
      for (int64_t i = 0; i < n; ++i)
        EXPECT_EQ(static_cast<const float *>(out.data)[i], -1.5f);
      kilnOutputsRelease(outputs);
    }
    KilnBuffer *xb = nullptr, *nb = nullptr, *yb = nullptr, *cb = nullptr;
    EXPECT_KILN_OK(kilnBufferAllocate(device, 64, &xb));
    EXPECT_KILN_OK(kilnBufferAllocate(device, 8, &nb));
    EXPECT_KILN_OK(kilnBufferAllocate(device, 64, &yb));
    EXPECT_KILN_OK(kilnBufferAllocate(device, 8, &cb));
    EXPECT_KILN_OK(kilnBufferWrite(xb, 0, x.data(), 64));
    const int64_t seven = 7;
    EXPECT_KILN_OK(kilnBufferWrite(nb, 0, &seven, 8));
    KilnBuffer *in[] = {xb, nb}, *out[] = {yb, cb};
    const KilnShape shapes[] = {{1, xShape}, {1, nShape}};
    int64_t yDims[1] = {-1}, cDims[1] = {-1};
    int64_t *dims[] = {yDims, cDims};
    EXPECT_KILN_OK(
        kilnFunctionCallBuffersWithShapes(fn, in, shapes, 2, out, dims, 2));
    EXPECT_EQ(yDims[0], 7);
    EXPECT_EQ(cDims[0], 1);
    std::vector<float> y(7);
    EXPECT_KILN_OK(kilnBufferRead(yb, 0, y.data(), 28));
    EXPECT_EQ(y, std::vector<float>(7, -1.5f));
    size_t sizes[2];
    KilnStatus status = kilnFunctionOutputShapes(fn, shapes, 2, dims, sizes, 2);
    EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_INVALID_ARGUMENT);
    EXPECT_NE(std::strstr(kilnStatusMessage(status), "runs in phases"), nullptr)
        << kilnStatusMessage(status);
    kilnStatusFree(status);
    for (KilnBuffer *buffer : {xb, nb, yb, cb})
      kilnBufferRelease(buffer);
    kilnModuleRelease(module);
    kilnDeviceRelease(device);
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

// Device buffers, on every local device kind (host memory the host maps,
// and device-local memory reached through staging copies as on a GPU) and
// on CUDA where a GPU is present.
class KilnApiBufferTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    KilnStatus status = kilnDeviceCreate(GetParam().c_str(), &Device);
    if (status && GetParam().rfind("cuda", 0) == 0) {
      std::string why = kilnStatusMessage(status);
      kilnStatusFree(status);
      GTEST_SKIP() << "no CUDA device: " << why;
    }
    EXPECT_KILN_OK(status);
    ASSERT_NE(Device, nullptr);
    std::vector<uint8_t> bytes = buildModuleBytes();
    EXPECT_KILN_OK(
        kilnModuleLoadBytes(Device, bytes.data(), bytes.size(), &Module));
    ASSERT_NE(Module, nullptr);
    EXPECT_KILN_OK(kilnModuleLookupFunction(Module, "add", &Add));
  }
  void TearDown() override {
    for (KilnBuffer *buffer : Buffers)
      kilnBufferRelease(buffer);
    kilnModuleRelease(Module);
    kilnDeviceRelease(Device);
  }

  KilnBuffer *allocate(size_t size) {
    KilnBuffer *buffer = nullptr;
    EXPECT_KILN_OK(kilnBufferAllocate(Device, size, &buffer));
    Buffers.push_back(buffer);
    return buffer;
  }

  KilnBuffer *upload(const std::vector<float> &values) {
    KilnBuffer *buffer = allocate(values.size() * sizeof(float));
    EXPECT_KILN_OK(kilnBufferWrite(buffer, 0, values.data(),
                                   values.size() * sizeof(float)));
    return buffer;
  }

  std::vector<float> download(const KilnBuffer *buffer, size_t count) {
    std::vector<float> values(count);
    EXPECT_KILN_OK(kilnBufferRead(buffer, 0, values.data(), count * 4));
    return values;
  }

  void expectError(KilnStatus status, KilnStatusCode code, const char *text) {
    EXPECT_EQ(kilnStatusCode(status), code) << kilnStatusMessage(status);
    EXPECT_NE(std::strstr(kilnStatusMessage(status), text), nullptr)
        << kilnStatusMessage(status) << "\nexpected: " << text;
    kilnStatusFree(status);
  }

  KilnDevice *Device = nullptr;
  KilnModule *Module = nullptr;
  const KilnFunction *Add = nullptr;
  std::vector<KilnBuffer *> Buffers;
};

INSTANTIATE_TEST_SUITE_P(Devices, KilnApiBufferTest,
                         ::testing::Values("local-sync", "local-task",
                                           "local-sync://?unified=0",
                                           "local-task://?unified=0", "cuda"),
                         kiln::hal::deviceParamName);

TEST_P(KilnApiBufferTest, WriteAndReadBack) {
  KilnBuffer *buffer = allocate(64);
  EXPECT_EQ(kilnBufferSize(buffer), 64u);
  std::vector<uint8_t> bytes = test::randomBytes(64, 31);
  EXPECT_KILN_OK(kilnBufferWrite(buffer, 0, bytes.data(), 64));
  std::vector<uint8_t> part = test::randomBytes(24, 32);
  EXPECT_KILN_OK(kilnBufferWrite(buffer, 8, part.data(), part.size()));
  std::copy(part.begin(), part.end(), bytes.begin() + 8);
  std::vector<uint8_t> back(64);
  EXPECT_KILN_OK(kilnBufferRead(buffer, 0, back.data(), 64));
  EXPECT_EQ(back, bytes);
  std::vector<uint8_t> tail(16);
  EXPECT_KILN_OK(kilnBufferRead(buffer, 48, tail.data(), 16));
  EXPECT_EQ(tail, std::vector<uint8_t>(bytes.begin() + 48, bytes.end()));

  expectError(kilnBufferWrite(buffer, 60, bytes.data(), 8),
              KILN_STATUS_OUT_OF_RANGE, "");
  expectError(kilnBufferRead(buffer, 65, back.data(), 0),
              KILN_STATUS_OUT_OF_RANGE, "");
  expectError(kilnBufferWrite(buffer, 0, nullptr, 4),
              KILN_STATUS_INVALID_ARGUMENT, "kilnBufferWrite: data is NULL");
  expectError(kilnBufferRead(nullptr, 0, back.data(), 4),
              KILN_STATUS_INVALID_ARGUMENT, "kilnBufferRead: buffer is NULL");
  KilnBuffer *none = reinterpret_cast<KilnBuffer *>(0x1);
  expectError(kilnBufferAllocate(nullptr, 4, &none),
              KILN_STATUS_INVALID_ARGUMENT, "device is NULL");
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(kilnBufferSize(nullptr), 0u);
  kilnBufferRelease(nullptr);
  EXPECT_EQ(kilnBufferSize(allocate(0)), 0u);
}

// Outputs stay on the device and feed the next call; only the last result
// comes back to the host.
TEST_P(KilnApiBufferTest, CallsChainOnTheDevice) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-10.0f, 10.0f);
  std::vector<float> a(4), b(4);
  for (int i = 0; i < 4; ++i) {
    a[i] = value(rng);
    b[i] = value(rng);
  }
  KilnBuffer *x = upload(a), *y = upload(b);
  KilnBuffer *sum = allocate(16), *twice = allocate(16);
  KilnBuffer *in1[] = {x, y}, *out1[] = {sum};
  EXPECT_KILN_OK(kilnFunctionCallBuffers(Add, in1, 2, out1, 1));
  KilnBuffer *in2[] = {sum, y}, *out2[] = {twice};
  EXPECT_KILN_OK(kilnFunctionCallBuffers(Add, in2, 2, out2, 1));
  std::vector<float> result = download(twice, 4);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(result[i], (a[i] + b[i]) + b[i]) << i;
  // The inputs are untouched, and a new input gives a new result.
  EXPECT_EQ(download(x, 4), a);
  std::vector<float> c = {1.5f, -2.25f, 8.0f, 0.125f};
  EXPECT_KILN_OK(kilnBufferWrite(x, 0, c.data(), 16));
  EXPECT_KILN_OK(kilnFunctionCallBuffers(Add, in1, 2, out1, 1));
  result = download(sum, 4);
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(result[i], c[i] + b[i]) << i;

  const KilnFunction *pattern = nullptr;
  EXPECT_KILN_OK(kilnModuleLookupFunction(Module, "pattern", &pattern));
  KilnBuffer *ints = allocate(16);
  EXPECT_KILN_OK(kilnFunctionCallBuffers(pattern, nullptr, 0, &ints, 1));
  int32_t values[4];
  EXPECT_KILN_OK(kilnBufferRead(ints, 0, values, sizeof(values)));
  for (int32_t v : values)
    EXPECT_EQ(v, 0x01020304);
}

TEST_P(KilnApiBufferTest, CallErrors) {
  KilnBuffer *x = allocate(16), *y = allocate(16), *out = allocate(16);
  KilnBuffer *small = allocate(8);
  KilnBuffer *in[] = {x, y}, *outs[] = {out};
  expectError(kilnFunctionCallBuffers(Add, in, 1, outs, 1),
              KILN_STATUS_INVALID_ARGUMENT,
              "function @add expects 2 input and 1 output buffer(s), got 1 "
              "and 1");
  KilnBuffer *shortIn[] = {x, small};
  expectError(kilnFunctionCallBuffers(Add, shortIn, 2, outs, 1),
              KILN_STATUS_INVALID_ARGUMENT,
              "function @add input 1: 4xf32 needs 16 bytes, the buffer has 8");
  KilnBuffer *aliased[] = {y};
  expectError(kilnFunctionCallBuffers(Add, in, 2, aliased, 1),
              KILN_STATUS_INVALID_ARGUMENT,
              "function @add output 0 is the buffer given as input 1");
  KilnBuffer *nullIn[] = {x, nullptr};
  expectError(kilnFunctionCallBuffers(Add, nullIn, 2, outs, 1),
              KILN_STATUS_INVALID_ARGUMENT, "function @add input 1: NULL");
  expectError(kilnFunctionCallBuffers(Add, nullptr, 2, outs, 1),
              KILN_STATUS_INVALID_ARGUMENT, "inputs is NULL");
  expectError(kilnFunctionCallBuffers(nullptr, in, 2, outs, 1),
              KILN_STATUS_INVALID_ARGUMENT, "function is NULL");

  // A buffer of another device handle, even of the same kind.
  KilnDevice *other = nullptr;
  EXPECT_KILN_OK(kilnDeviceCreate(GetParam().c_str(), &other));
  KilnBuffer *foreign = nullptr;
  EXPECT_KILN_OK(kilnBufferAllocate(other, 16, &foreign));
  kilnDeviceRelease(other); // the buffer keeps its device
  Buffers.push_back(foreign);
  KilnBuffer *foreignOut[] = {foreign};
  expectError(kilnFunctionCallBuffers(Add, in, 2, foreignOut, 1),
              KILN_STATUS_INVALID_ARGUMENT,
              "function @add output 0: the buffer belongs to device");
}

// Dynamic shapes on device buffers (issue 19, item 6): buffers sized once
// for the largest call serve calls at several shapes, each input's shape
// given beside its buffer and each output's given back.
TEST(KilnApiDynamicShapesTest, DeviceBufferCallsTakeShapes) {
  std::vector<uint8_t> staticBytes = buildModuleBytes();
  auto expectError = [](KilnStatus status, const char *text) {
    EXPECT_EQ(kilnStatusCode(status), KILN_STATUS_INVALID_ARGUMENT)
        << kilnStatusMessage(status);
    EXPECT_NE(std::strstr(kilnStatusMessage(status), text), nullptr)
        << kilnStatusMessage(status) << "\nexpected: " << text;
    EXPECT_EQ(std::strchr(kilnStatusMessage(status), '\n'), nullptr);
    kilnStatusFree(status);
  };
  for (const char *uri :
       {"local-sync", "local-task", "local-task://?unified=0"}) {
    SCOPED_TRACE(uri);
    LoadedFill loaded(uri);
    ASSERT_NE(loaded.Fill, nullptr);
    KilnDevice *device = loaded.Device;
    const KilnFunction *fill = loaded.Fill;
    constexpr int64_t kMax = 31;
    KilnBuffer *x = nullptr, *y = nullptr;
    EXPECT_KILN_OK(kilnBufferAllocate(device, kMax * 4, &x));
    EXPECT_KILN_OK(kilnBufferAllocate(device, kMax * 4, &y));
    std::vector<float> threes(kMax, 3.0f);
    EXPECT_KILN_OK(kilnBufferWrite(x, 0, threes.data(), kMax * 4));
    KilnBuffer *in[] = {x}, *out[] = {y};

    for (int64_t n : {int64_t(7), int64_t(1), kMax, int64_t(7)}) {
      const int64_t dims[] = {n};
      const KilnShape shape = {1, dims};
      int64_t outDims[1] = {-7};
      int64_t *outDimsPtr[] = {outDims};
      size_t outSize = 0;
      EXPECT_KILN_OK(
          kilnFunctionOutputShapes(fill, &shape, 1, outDimsPtr, &outSize, 1));
      EXPECT_EQ(outDims[0], n);
      EXPECT_EQ(outSize, static_cast<size_t>(n) * 4);
      // What lies past the call's length must stay as it was.
      std::vector<float> sentinel(kMax, 9.0f);
      EXPECT_KILN_OK(kilnBufferWrite(y, 0, sentinel.data(), kMax * 4));
      outDims[0] = -7;
      EXPECT_KILN_OK(kilnFunctionCallBuffersWithShapes(fill, in, &shape, 1, out,
                                                       outDimsPtr, 1));
      EXPECT_EQ(outDims[0], n);
      std::vector<float> result(kMax);
      EXPECT_KILN_OK(kilnBufferRead(y, 0, result.data(), kMax * 4));
      for (int64_t i = 0; i < kMax; ++i)
        EXPECT_EQ(result[i], i < n ? -1.5f : 9.0f) << "n=" << n << " i=" << i;
    }

    // Buffers carry no shapes: the call without them is refused, naming
    // the one that takes them.
    expectError(kilnFunctionCallBuffers(fill, in, 1, out, 1),
                "kilnFunctionCallBuffers: function @fill has dynamic shapes, "
                "which buffers do not carry; call it with "
                "kilnFunctionCallBuffersWithShapes");
    const int64_t twoDims[] = {2, 3}, negative[] = {-3}, tooLong[] = {kMax + 1},
                  huge[] = {int64_t(1) << 61};
    const KilnShape rank2 = {2, twoDims}, neg = {1, negative},
                    past = {1, tooLong}, overflow = {1, huge},
                    nullDims = {1, nullptr};
    expectError(
        kilnFunctionCallBuffersWithShapes(fill, in, &rank2, 1, out, nullptr, 1),
        "kilnFunctionCallBuffersWithShapes: function @fill input 0 has rank "
        "2, expected 1 (?xf32)");
    expectError(
        kilnFunctionCallBuffersWithShapes(fill, in, &neg, 1, out, nullptr, 1),
        "function @fill input 0 dimension 0 is -3, expected a size >= 0");
    expectError(
        kilnFunctionCallBuffersWithShapes(fill, in, &past, 1, out, nullptr, 1),
        "function @fill input 0: ?xf32 needs 128 bytes, the buffer has 124");
    expectError(kilnFunctionCallBuffersWithShapes(fill, in, &overflow, 1, out,
                                                  nullptr, 1),
                "function @fill input 0 is larger than 2^48 bytes");
    expectError(kilnFunctionCallBuffersWithShapes(fill, in, &nullDims, 1, out,
                                                  nullptr, 1),
                "function @fill input 0: NULL dims for rank 1");
    expectError(kilnFunctionCallBuffersWithShapes(fill, in, nullptr, 1, out,
                                                  nullptr, 1),
                "kilnFunctionCallBuffersWithShapes: inputShapes is NULL");
    expectError(
        kilnFunctionCallBuffersWithShapes(fill, in, &neg, 0, out, nullptr, 1),
        "function @fill takes 1 input(s), got 0 shape(s)");
    expectError(kilnFunctionOutputShapes(fill, &past, 1, nullptr, nullptr, 2),
                "kilnFunctionOutputShapes: function @fill has 1 output(s), got "
                "room for 2");
    expectError(
        kilnFunctionOutputShapes(fill, &overflow, 1, nullptr, nullptr, 1),
        "function @fill input 0 is larger than 2^48 bytes");
    int64_t *noRoom[] = {nullptr};
    expectError(kilnFunctionOutputShapes(fill, &past, 1, noRoom, nullptr, 1),
                "function @fill output 0: NULL outputDims for rank 1");
    // A refused call leaves the function callable.
    const int64_t five[] = {5};
    const KilnShape shape5 = {1, five};
    EXPECT_KILN_OK(kilnFunctionCallBuffersWithShapes(fill, in, &shape5, 1, out,
                                                     nullptr, 1));

    // A static function takes its signature's shapes, and only those.
    KilnModule *staticModule = nullptr;
    EXPECT_KILN_OK(kilnModuleLoadBytes(device, staticBytes.data(),
                                       staticBytes.size(), &staticModule));
    const KilnFunction *add = nullptr;
    EXPECT_KILN_OK(kilnModuleLookupFunction(staticModule, "add", &add));
    KilnBuffer *sum = nullptr;
    EXPECT_KILN_OK(kilnBufferAllocate(device, 16, &sum));
    const int64_t four[] = {4};
    const KilnShape fours[] = {{1, four}, {1, four}},
                    wrong[] = {{1, four}, {1, five}};
    KilnBuffer *addIn[] = {x, x}, *addOut[] = {sum};
    int64_t sumDims[1] = {0};
    int64_t *sumDimsPtr[] = {sumDims};
    EXPECT_KILN_OK(kilnFunctionCallBuffersWithShapes(add, addIn, fours, 2,
                                                     addOut, sumDimsPtr, 1));
    EXPECT_EQ(sumDims[0], 4);
    float sums[4] = {0, 0, 0, 0};
    EXPECT_KILN_OK(kilnBufferRead(sum, 0, sums, sizeof(sums)));
    for (float v : sums)
      EXPECT_EQ(v, 6.0f);
    expectError(kilnFunctionCallBuffersWithShapes(add, addIn, wrong, 2, addOut,
                                                  nullptr, 1),
                "function @add input 1 dimension 0 is 5, expected 4 (4xf32)");

    kilnBufferRelease(sum);
    kilnModuleRelease(staticModule);
    kilnBufferRelease(x);
    kilnBufferRelease(y);
  }
}

TEST(KilnApiCTest, DeviceBuffersFromC) {
  std::vector<uint8_t> bytes = buildModuleBytes();
  float a[4] = {1.5f, 2.5f, -3.0f, 40.0f}, b[4] = {0.5f, -2.5f, 3.25f, 2.0f};
  float result[4] = {0, 0, 0, 0};
  char error[256] = "";
  for (const char *uri : {"local-sync", "local-task://?unified=0"}) {
    int code = kilnCApiAddVectorsOnDevice(uri, bytes.data(), bytes.size(), a, b,
                                          result, error, sizeof(error));
    ASSERT_EQ(code, 0) << error;
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(result[i], a[i] + b[i]);
  }
}

} // namespace
