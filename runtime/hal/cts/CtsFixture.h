//===- CtsFixture.h - Shared set-up of the HAL conformance suite ----------===//
//
// Every case is a TEST_P over CtsTest, instantiated once per registered
// driver with that driver's first device. Cases move data through helpers
// that work for host-visible and device-local memory alike, so they hold for
// GPU drivers unchanged. A case that needs an optional behaviour calls
// KILN_CTS_REQUIRE(feature): a device that declares it unsupported skips the
// case, printing the reason.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_CTS_CTSFIXTURE_H
#define KILN_RUNTIME_HAL_CTS_CTSFIXTURE_H

#include "runtime/base/StatusTesting.h"
#include "runtime/hal/Device.h"
#include "runtime/hal/DeviceParamName.h"
#include "runtime/hal/DriverRegistry.h"
#include "runtime/hal/Feature.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::hal::cts {

/// Long enough for a loaded machine under sanitizers; a hang fails instead
/// of stalling the suite.
inline constexpr Timeout kWaitTimeout = std::chrono::seconds(30);

/// Skips the running case when the device lacks `feature`.
#define KILN_CTS_REQUIRE(feature)                                              \
  do {                                                                         \
    if (auto reason = device()->unsupportedReason(feature))                    \
      GTEST_SKIP() << GetParam() << " does not support " << (feature) << ": "  \
                   << *reason;                                                 \
  } while (false)

class CtsTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override;
  void TearDown() override;

  const std::shared_ptr<Device> &device() const { return TestDevice; }
  /// The driver under test: the parameter up to any '?'.
  std::string driverName() const;

  /// A buffer the host can fill and read (HostVisible, all usages).
  StatusOr<std::shared_ptr<Buffer>> hostBuffer(uint64_t size);
  /// A DeviceLocal buffer for transfers and dispatches.
  StatusOr<std::shared_ptr<Buffer>> deviceBuffer(uint64_t size);

  /// Writes `bytes` at the start of any buffer (staging if not mappable).
  Status upload(const std::shared_ptr<Buffer> &buffer,
                const std::vector<uint8_t> &bytes);
  /// Reads a whole buffer (staging if not mappable).
  StatusOr<std::vector<uint8_t>>
  download(const std::shared_ptr<Buffer> &buffer);

  /// A new command buffer, already begun.
  StatusOr<std::shared_ptr<CommandBuffer>>
  beginCommands(CommandBufferMode mode = CommandBufferMode::OneShot,
                uint32_t capacity = 0);

  /// Submits `commands` with `table` and waits for completion.
  Status submitAndWait(const std::shared_ptr<CommandBuffer> &commands,
                       std::vector<std::shared_ptr<Buffer>> table = {});

  /// Creates the CTS kernel executable (see kernels/CtsKernels.c) with the
  /// entry points below, or nullptr plus a skip reason when the device runs
  /// none of the formats the suite has images for.
  StatusOr<std::shared_ptr<Executable>> kernels(std::string *skipReason);

  std::mt19937 &rng() { return Rng; }
  std::vector<uint8_t> randomBytes(size_t size);
  std::vector<float> randomFloats(size_t count);

private:
  std::shared_ptr<Device> TestDevice;
  std::mt19937 Rng;
};

/// Entry point ordinals of kernels().
enum CtsEntry : uint32_t {
  kAddF32 = 0,          // bindings a, b, out; push n, perGroup
  kCountWorkgroups = 1, // bindings counters; push countX, countY
  kRendezvous = 2,      // bindings state[2]; push parties, timeoutMs
  kScaleBiasF32 = 3,    // bindings in, out; push n, scale bits, bias bits
};

/// A case that runs the suite's kernels: SetUp loads them (Kernels), and
/// skips, saying why, on a device that runs none of their formats.
class KernelCtsTest : public CtsTest {
protected:
  void SetUp() override;

  // Rendezvous timeouts. Two dispatches running at once meet within
  // microseconds, so kMeetMs only has to outlast a loaded machine; when one
  // is ordered after the other the first waits out kOrderedMs, which every
  // such case pays on every concurrent device.
  static constexpr uint32_t kMeetMs = 10000;
  static constexpr uint32_t kOrderedMs = 300;

  /// A zeroed rendezvous state (arrived, met).
  StatusOr<std::shared_ptr<Buffer>> meetingState();
  /// Records one workgroup of a two-party rendezvous on `state` that gives
  /// up after `timeoutMs`.
  Status meet(CommandBuffer &commands, const std::shared_ptr<Buffer> &state,
              uint32_t timeoutMs);
  /// How many parties arrived at `state` and how many of them met another.
  StatusOr<std::pair<uint32_t, uint32_t>>
  readMeeting(const std::shared_ptr<Buffer> &state);
  /// Ends and runs `commands`, then reads `state`.
  StatusOr<std::pair<uint32_t, uint32_t>>
  runMeeting(const std::shared_ptr<CommandBuffer> &commands,
             const std::shared_ptr<Buffer> &state);

  std::shared_ptr<Executable> Kernels;
};

/// Two one-workgroup rendezvous parties that ran at once both meet; when
/// the second ran after the first, the first waited in vain and only the
/// second saw both arrivals.
inline constexpr std::pair<uint32_t, uint32_t> kBothMet{2, 2};
inline constexpr std::pair<uint32_t, uint32_t> kOnlySecondMet{2, 1};

std::vector<uint8_t> toBytes(const std::vector<float> &values);
std::vector<float> toFloats(const std::vector<uint8_t> &bytes);
/// The suite's kernels as an image of `format` for `target`: the shared
/// object (KILN_CTS_KERNELS_PATH) for cpu-elf-x86_64, the PTX (with its
/// NUL) for cuda-ptx where nvcc was found at build time, the target chip's
/// code object for amdgpu-hsaco where llc was; NotFound otherwise.
StatusOr<std::vector<uint8_t>> readCtsKernelImage(std::string_view format,
                                                  std::string_view target);

/// Every registered driver, then each of its conformance variants as
/// "driver?params" (named for gtest by deviceParamName).
std::vector<std::string> ctsDrivers();

#define KILN_CTS_INSTANTIATE(fixture)                                          \
  INSTANTIATE_TEST_SUITE_P(                                                    \
      Drivers, fixture, ::testing::ValuesIn(::kiln::hal::cts::ctsDrivers()),   \
      ::kiln::hal::deviceParamName)

} // namespace kiln::hal::cts

#endif // KILN_RUNTIME_HAL_CTS_CTSFIXTURE_H
