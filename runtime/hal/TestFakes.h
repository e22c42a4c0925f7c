//===- TestFakes.h - Minimal HAL objects for driver-independent tests -----===//
//
// Just enough of Buffer, Allocator, Executable, CommandBuffer and Device to
// exercise the checks the HAL base classes make before any driver runs.
// Test-only; header-only so it stays out of kiln_hal.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_TESTFAKES_H
#define KILN_RUNTIME_HAL_TESTFAKES_H

#include "runtime/hal/Allocator.h"
#include "runtime/hal/CommandBuffer.h"
#include "runtime/hal/Device.h"
#include "runtime/hal/Driver.h"
#include "runtime/hal/HostSemaphore.h"

#include <string>
#include <vector>

namespace kiln::hal::test {

class FakeBuffer final : public Buffer {
public:
  FakeBuffer(uint64_t size, MemoryType type = MemoryType::HostVisible,
             BufferUsage usage = BufferUsage::All, bool readOnly = false)
      : Buffer(size, type, usage, readOnly), Bytes(size) {}
  std::vector<uint8_t> Bytes;

protected:
  StatusOr<uint8_t *> mapImpl() override { return Bytes.data(); }
};

class FakeAllocator final : public Allocator {
public:
  bool supportsMemoryType(MemoryType type) const override {
    return type != (MemoryType::DeviceLocal | MemoryType::HostVisible);
  }
  std::vector<uint64_t> Requests; // sizes that reached allocateImpl
  // Larger requests are refused as a full device refuses them.
  uint64_t Capacity = kMaxBufferSize;

protected:
  StatusOr<std::shared_ptr<Buffer>> allocateImpl(uint64_t size, MemoryType type,
                                                 BufferUsage usage) override {
    Requests.push_back(size);
    if (size > Capacity)
      return KILN_ERROR(ResourceExhausted, "the fake device is full");
    return std::shared_ptr<Buffer>(
        std::make_shared<FakeBuffer>(size, type, usage));
  }
  StatusOr<std::shared_ptr<Buffer>>
  importHostMemoryImpl(std::span<const uint8_t> data, BufferUsage usage,
                       std::shared_ptr<const void>) override {
    auto buffer = std::make_shared<FakeBuffer>(
        data.size(), MemoryType::HostVisible, usage, /*readOnly=*/true);
    buffer->Bytes.assign(data.begin(), data.end());
    return std::shared_ptr<Buffer>(buffer);
  }
};

class FakeExecutable final : public Executable {
public:
  explicit FakeExecutable(const ExecutableSpec &spec) : Executable(spec) {}
};

class FakeEvent final : public Event {};

/// Records a line per command so tests see exactly what reached the driver.
class FakeCommandBuffer final : public CommandBuffer {
public:
  FakeCommandBuffer(CommandBufferMode mode, uint32_t capacity)
      : CommandBuffer(mode, capacity) {}
  std::vector<std::string> Log;

protected:
  static std::string describe(const BufferRef &ref) {
    return strCat(ref.isIndirect() ? strCat("slot", ref.Slot) : "direct", "+",
                  ref.Offset, ":", ref.Length);
  }
  // " after 0,2" when dependOn() named commands for this one.
  std::string dependencies() const {
    std::string text;
    for (uint32_t command : commandDependencies())
      text += strCat(text.empty() ? " after " : ",", command);
    return text;
  }
  Status recordFill(const BufferRef &target, uint32_t pattern,
                    uint8_t length) override {
    Log.push_back(strCat("fill ", describe(target), " ", pattern, "/",
                         unsigned(length), dependencies()));
    return Status();
  }
  Status recordCopy(const BufferRef &source, const BufferRef &target) override {
    Log.push_back(strCat("copy ", describe(source), " ", describe(target),
                         dependencies()));
    return Status();
  }
  Status recordDispatch(const std::shared_ptr<Executable> &, uint32_t entry,
                        const std::array<uint32_t, 3> &grid,
                        std::span<const BufferRef> bindings,
                        std::span<const uint32_t> push) override {
    std::string line =
        strCat("dispatch ", entry, " ", grid[0], "x", grid[1], "x", grid[2]);
    for (const BufferRef &ref : bindings)
      line += " " + describe(ref);
    line += strCat(" push", push.size(), dependencies());
    Log.push_back(line);
    return Status();
  }
  Status recordExecutionBarrier() override {
    Log.push_back("barrier");
    return Status();
  }
  Status recordSignalEvent(const std::shared_ptr<Event> &) override {
    Log.push_back("signal");
    return Status();
  }
  Status recordWaitEvent(const std::shared_ptr<Event> &) override {
    Log.push_back("wait");
    return Status();
  }
};

/// A device whose queue only counts submissions that passed the checks.
class FakeDevice final : public Device {
public:
  explicit FakeDevice(std::string uri) { Info.Uri = std::move(uri); }
  const DeviceInfo &info() const override { return Info; }
  Allocator &allocator() override { return DeviceAllocator; }
  std::vector<UnsupportedFeature> unsupportedFeatures() const override {
    return {{"teleport", "physics"}};
  }
  bool supportsExecutable(std::string_view format,
                          std::string_view) const override {
    return format == "fake";
  }
  StatusOr<std::shared_ptr<Executable>>
  createExecutable(const ExecutableSpec &spec) override {
    KILN_RETURN_IF_ERROR(validateExecutableSpec(spec));
    return std::shared_ptr<Executable>(std::make_shared<FakeExecutable>(spec));
  }
  uint32_t queueCount() const override { return 3; }
  StatusOr<std::shared_ptr<Event>> createEvent() override {
    return std::shared_ptr<Event>(std::make_shared<FakeEvent>());
  }
  Status waitIdle(Timeout) override { return Status(); }
  int Submissions = 0;
  /// The queue each submission went to, in order.
  std::vector<uint32_t> SubmissionQueues;
  /// Every command buffer created, so tests can read what was recorded.
  std::vector<std::shared_ptr<FakeCommandBuffer>> CommandBuffers;

protected:
  StatusOr<std::shared_ptr<CommandBuffer>>
  createCommandBufferImpl(CommandBufferMode mode, uint32_t capacity) override {
    auto commands = std::make_shared<FakeCommandBuffer>(mode, capacity);
    CommandBuffers.push_back(commands);
    return std::shared_ptr<CommandBuffer>(commands);
  }
  StatusOr<std::shared_ptr<Semaphore>>
  createSemaphoreImpl(uint64_t initialValue) override {
    return std::shared_ptr<Semaphore>(
        std::make_shared<HostSemaphore>(initialValue));
  }
  // Runs nothing; signals at once so callers that wait can go on.
  Status queueExecuteImpl(uint32_t queue, std::span<const SemaphoreValue>,
                          const std::shared_ptr<CommandBuffer> &,
                          std::span<const std::shared_ptr<Buffer>>,
                          std::span<const SemaphoreValue> signal) override {
    ++Submissions;
    SubmissionQueues.push_back(queue);
    for (const SemaphoreValue &value : signal)
      KILN_RETURN_IF_ERROR(value.Timeline->signal(value.Value));
    return Status();
  }

private:
  DeviceInfo Info;
  FakeAllocator DeviceAllocator;
};

class FakeDriver final : public Driver {
public:
  explicit FakeDriver(std::string name) : Name(std::move(name)) {}
  std::string_view name() const override { return Name; }
  StatusOr<std::vector<DeviceInfo>> enumerateDevices() override {
    return std::vector<DeviceInfo>{{Name + "://", "Fake", {}}};
  }
  StatusOr<std::shared_ptr<Device>>
  createDevice(const DeviceUri &uri) override {
    KILN_RETURN_IF_ERROR(uri.checkParams({}));
    return std::shared_ptr<Device>(std::make_shared<FakeDevice>(uri.text()));
  }

private:
  std::string Name;
};

} // namespace kiln::hal::test

#endif // KILN_RUNTIME_HAL_TESTFAKES_H
