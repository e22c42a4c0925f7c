//===- CtsFixture.cpp -----------------------------------------------------===//

#include "runtime/hal/cts/CtsFixture.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string_view>

namespace kiln::hal::cts {

std::vector<std::string> ctsDrivers() {
  std::vector<std::string> drivers = DriverRegistry::global().driverNames();
  for (size_t i = 0, count = drivers.size(); i < count; ++i) {
    auto driver = DriverRegistry::global().getDriver(drivers[i]);
    if (!driver.ok())
      continue;
    for (const std::string &params : (*driver)->conformanceVariants())
      drivers.push_back(strCat(drivers[i], "?", params));
  }
  return drivers;
}

std::string CtsTest::driverName() const {
  const std::string &param = GetParam();
  return param.substr(0, param.find('?'));
}

void CtsTest::SetUp() {
  const auto *test = ::testing::UnitTest::GetInstance()->current_test_info();
  Rng.seed(static_cast<uint32_t>(std::hash<std::string>()(
      std::string(test->test_suite_name()) + "." + test->name())));
  auto driver = DriverRegistry::global().getDriver(driverName());
  ASSERT_TRUE(driver.ok()) << driver.status().toString();
  auto devices = (*driver)->enumerateDevices();
  if (!devices.ok())
    GTEST_SKIP() << GetParam()
                 << " is unavailable: " << devices.status().toString();
  if (devices->empty())
    GTEST_SKIP() << "no " << GetParam() << " device";
  // A variant's parameters go onto the first device's URI.
  std::string text = devices->front().Uri;
  if (size_t params = GetParam().find('?'); params != std::string::npos)
    text += (text.find('?') == std::string::npos ? "?" : "&") +
            GetParam().substr(params + 1);
  auto uri = DeviceUri::parse(text);
  ASSERT_TRUE(uri.ok()) << uri.status().toString();
  auto created = (*driver)->createDevice(*uri);
  // A driver that finds devices it cannot run on yet says so.
  if (!created.ok() && created.status().code() == StatusCode::Unimplemented)
    GTEST_SKIP() << GetParam() << ": " << created.status().toString();
  ASSERT_TRUE(created.ok()) << created.status().toString();
  TestDevice = std::move(created).value();
}

void CtsTest::TearDown() {
  if (TestDevice) {
    Status idle = TestDevice->waitIdle(kWaitTimeout);
    EXPECT_TRUE(idle.ok()) << idle.toString();
  }
}

StatusOr<std::shared_ptr<Buffer>> CtsTest::hostBuffer(uint64_t size) {
  return TestDevice->allocator().allocate(size, MemoryType::HostVisible,
                                          BufferUsage::All);
}

StatusOr<std::shared_ptr<Buffer>> CtsTest::deviceBuffer(uint64_t size) {
  return TestDevice->allocator().allocate(size, MemoryType::DeviceLocal,
                                          BufferUsage::Transfer |
                                              BufferUsage::Dispatch);
}

StatusOr<std::shared_ptr<CommandBuffer>>
CtsTest::beginCommands(CommandBufferMode mode, uint32_t capacity) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<CommandBuffer> commands,
                        TestDevice->createCommandBuffer(mode, capacity));
  KILN_RETURN_IF_ERROR(commands->begin());
  return commands;
}

Status CtsTest::upload(const std::shared_ptr<Buffer> &buffer,
                       const std::vector<uint8_t> &bytes) {
  if (bytes.size() > buffer->size())
    return KILN_ERROR(InvalidArgument, "upload larger than the buffer");
  if (hasAll(buffer->memoryType(), MemoryType::HostVisible) &&
      hasAll(buffer->usage(), BufferUsage::Mapping)) {
    KILN_ASSIGN_OR_RETURN(std::span<uint8_t> mapped, buffer->map());
    if (!bytes.empty())
      std::memcpy(mapped.data(), bytes.data(), bytes.size());
    return Status();
  }
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> staging,
                        hostBuffer(bytes.size()));
  KILN_RETURN_IF_ERROR(upload(staging, bytes));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<CommandBuffer> commands,
                        beginCommands());
  KILN_RETURN_IF_ERROR(commands->copy(
      BufferRef::direct(staging), BufferRef::direct(buffer, 0, bytes.size())));
  KILN_RETURN_IF_ERROR(commands->end());
  return submitAndWait(commands);
}

StatusOr<std::vector<uint8_t>>
CtsTest::download(const std::shared_ptr<Buffer> &buffer) {
  if (hasAll(buffer->memoryType(), MemoryType::HostVisible) &&
      hasAll(buffer->usage(), BufferUsage::Mapping)) {
    KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> mapped, buffer->mapRead());
    return std::vector<uint8_t>(mapped.begin(), mapped.end());
  }
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> staging,
                        hostBuffer(buffer->size()));
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<CommandBuffer> commands,
                        beginCommands());
  KILN_RETURN_IF_ERROR(
      commands->copy(BufferRef::direct(buffer), BufferRef::direct(staging)));
  KILN_RETURN_IF_ERROR(commands->end());
  KILN_RETURN_IF_ERROR(submitAndWait(commands));
  return download(staging);
}

Status CtsTest::submitAndWait(const std::shared_ptr<CommandBuffer> &commands,
                              std::vector<std::shared_ptr<Buffer>> table) {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<Semaphore> done,
                        TestDevice->createSemaphore(0));
  SemaphoreValue signal{done, 1};
  KILN_RETURN_IF_ERROR(
      TestDevice->queueExecute({}, commands, table, {&signal, 1}));
  return done->wait(1, kWaitTimeout);
}

StatusOr<std::vector<uint8_t>> readCtsKernelImage(std::string_view format,
                                                  std::string_view target) {
  if (format == "cpu-elf-x86_64") {
    std::ifstream file(KILN_CTS_KERNELS_PATH, std::ios::binary);
    if (!file)
      return KILN_ERROR(NotFound, "cannot read ", KILN_CTS_KERNELS_PATH);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
  }
#ifdef KILN_CTS_PTX_INC
  if (format == "cuda-ptx") {
    static constexpr std::string_view kPtx =
#include KILN_CTS_PTX_INC
        ;
    // The driver reads PTX as a NUL-terminated string.
    std::vector<uint8_t> bytes(kPtx.begin(), kPtx.end());
    bytes.push_back(0);
    return bytes;
  }
#endif
#ifdef KILN_CTS_HSACO_DIR
  if (format == "amdgpu-hsaco") {
    std::string path =
        strCat(KILN_CTS_HSACO_DIR, "/CtsKernels-", target, ".hsaco");
    std::ifstream file(path, std::ios::binary);
    if (!file)
      return KILN_ERROR(NotFound, "cannot read ", path);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(file), {});
  }
#endif
  return KILN_ERROR(NotFound, "the suite has no ", format, " kernels for ",
                    target);
}

StatusOr<std::shared_ptr<Executable>>
CtsTest::kernels(std::string *skipReason) {
  // kernels/CtsKernels.c as a CPU shared object, kernels/CtsKernels.cu as
  // PTX for CUDA (where nvcc was found at build time), kernels/CtsKernels.ll
  // as a code object per AMD processor (where llc was).
  std::vector<std::pair<std::string, std::string>> formats = {
      {"cpu-elf-x86_64", "x86-64"},
#ifdef KILN_CTS_PTX_INC
      {"cuda-ptx", "sm_80"},
#endif
  };
#ifdef KILN_CTS_HSACO_CHIPS
  std::string_view chips = KILN_CTS_HSACO_CHIPS;
  for (size_t begin = 0; begin <= chips.size();) {
    size_t end = std::min(chips.find(',', begin), chips.size());
    formats.emplace_back("amdgpu-hsaco", chips.substr(begin, end - begin));
    begin = end + 1;
  }
#endif
  ExecutableSpec spec;
  spec.Name = "cts_kernels";
  for (const auto &[format, target] : formats)
    if (TestDevice->supportsExecutable(format, target)) {
      spec.Format = format;
      spec.Target = target;
      break;
    }
  if (spec.Format.empty()) {
    *skipReason =
        strCat(GetParam(), " runs none of the formats the suite has kernels "
                           "for (cpu-elf-x86_64/x86-64, cuda-ptx/sm_80 where "
                           "nvcc was found at build time, amdgpu-hsaco for "
                           "AMD processors where llc was)");
    return std::shared_ptr<Executable>();
  }
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> image,
                        readCtsKernelImage(spec.Format, spec.Target));
  spec.Image = image;
  auto entry = [](const char *name, uint32_t bindings, uint32_t push) {
    EntryPointSpec spec;
    spec.Name = name;
    spec.BindingCount = bindings;
    spec.PushConstantCount = push;
    return spec;
  };
  spec.EntryPoints = {entry("add_f32", 3, 2), entry("count_workgroups", 1, 2),
                      entry("rendezvous", 1, 2), entry("scale_bias_f32", 2, 3)};
  return TestDevice->createExecutable(spec);
}

void KernelCtsTest::SetUp() {
  CtsTest::SetUp();
  if (IsSkipped() || HasFatalFailure())
    return;
  std::string skipReason;
  auto loaded = kernels(&skipReason);
  ASSERT_TRUE(loaded.ok()) << loaded.status().toString();
  if (!*loaded)
    GTEST_SKIP() << skipReason;
  Kernels = *loaded;
}

StatusOr<std::shared_ptr<Buffer>> KernelCtsTest::meetingState() {
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<Buffer> state, deviceBuffer(8));
  KILN_RETURN_IF_ERROR(upload(state, std::vector<uint8_t>(8, 0)));
  return state;
}

Status KernelCtsTest::meet(CommandBuffer &commands,
                           const std::shared_ptr<Buffer> &state,
                           uint32_t timeoutMs) {
  BufferRef bindings[] = {BufferRef::direct(state)};
  uint32_t push[] = {2, timeoutMs};
  return commands.dispatch(Kernels, kRendezvous, {1, 1, 1}, bindings, push);
}

StatusOr<std::pair<uint32_t, uint32_t>>
KernelCtsTest::readMeeting(const std::shared_ptr<Buffer> &state) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> back, download(state));
  std::pair<uint32_t, uint32_t> result;
  std::memcpy(&result.first, back.data(), 4);
  std::memcpy(&result.second, back.data() + 4, 4);
  return result;
}

StatusOr<std::pair<uint32_t, uint32_t>>
KernelCtsTest::runMeeting(const std::shared_ptr<CommandBuffer> &commands,
                          const std::shared_ptr<Buffer> &state) {
  KILN_RETURN_IF_ERROR(commands->end());
  KILN_RETURN_IF_ERROR(submitAndWait(commands));
  return readMeeting(state);
}

std::vector<uint8_t> CtsTest::randomBytes(size_t size) {
  std::uniform_int_distribution<int> byte(0, 255);
  std::vector<uint8_t> bytes(size);
  for (uint8_t &b : bytes)
    b = static_cast<uint8_t>(byte(Rng));
  return bytes;
}

std::vector<float> CtsTest::randomFloats(size_t count) {
  std::uniform_real_distribution<float> value(-100.0f, 100.0f);
  std::vector<float> values(count);
  for (float &v : values)
    v = value(Rng);
  return values;
}

std::vector<uint8_t> toBytes(const std::vector<float> &values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  if (!values.empty())
    std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<float> toFloats(const std::vector<uint8_t> &bytes) {
  std::vector<float> values(bytes.size() / sizeof(float));
  if (!values.empty())
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  return values;
}

} // namespace kiln::hal::cts
