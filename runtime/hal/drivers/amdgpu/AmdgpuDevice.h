//===- AmdgpuDevice.h - One logical device over one or more AMD GPUs ------===//
//
// The device joins, per GPU agent it spans, an AmdgpuAgent (pools, limits,
// queues) and that GPU's transfer kernels (TransferKernels.h, loaded at
// creation); its HAL queues are every GPU's queues in order (the first
// GPU's first), so a queue affinity picks the GPU. Buffers come from the
// first GPU's pools, open to every GPU (AmdgpuAllocator); executables are
// loaded onto every GPU (AmdgpuDeviceExecutable); command buffers record
// as every GPU driver does and run as AQL packets (AmdgpuCommandBuffer);
// semaphores are AmdgpuSemaphores, which queues of any of the GPUs wait
// for on the GPU.
//
// A queue error HSA reports fails the device: what is in flight on that
// queue fails, and every later submission (failing its signals too) and
// waitIdle returns the error
// (HSA leaves a queue that reported an error unusable, and a kernel that
// faulted may have written anywhere the device's memory reaches).
//
// Device URI parameter: `queues`, the HAL queues per GPU (1 to 8, default
// 2), each an HSA queue of its own.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUDEVICE_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUDEVICE_H

#include "runtime/hal/Device.h"
#include "runtime/hal/DeviceUri.h"
#include "runtime/hal/drivers/amdgpu/AmdgpuAgent.h"
#include "runtime/hal/drivers/amdgpu/AmdgpuAllocator.h"
#include "runtime/hal/drivers/amdgpu/AmdgpuDeviceExecutable.h"

#include <memory>
#include <vector>

namespace kiln::hal::amdgpu {

class AmdgpuDevice final : public Device {
public:
  static constexpr uint32_t kDefaultQueuesPerGpu = 2;
  static constexpr uint32_t kQueuesPerGpuLimit = 8;

  /// The agent options a device URI's parameters ask for (`queues`);
  /// InvalidArgument for any other parameter or a bad value.
  static StatusOr<AmdgpuAgent::Options> optionsFromUri(const DeviceUri &uri);

  /// A device over `gpus` (GPU agents, none twice), `host` a CPU agent.
  /// `info` is completed with the device's properties.
  static StatusOr<std::shared_ptr<AmdgpuDevice>>
  create(std::shared_ptr<const HsaSymbols> hsa, DeviceInfo info,
         std::span<const hsa_agent_t> gpus, hsa_agent_t host,
         const AmdgpuAgent::Options &options);
  ~AmdgpuDevice() override;

  const DeviceInfo &info() const override { return Info; }
  Allocator &allocator() override { return *DeviceAllocator; }
  std::vector<UnsupportedFeature> unsupportedFeatures() const override;
  /// An amdgpu-hsaco for every GPU's processor.
  bool supportsExecutable(std::string_view format,
                          std::string_view target) const override;
  StatusOr<std::shared_ptr<Executable>>
  createExecutable(const ExecutableSpec &spec) override;
  uint32_t queueCount() const override { return QueueCount; }
  StatusOr<std::shared_ptr<Event>> createEvent() override;
  /// Every queue's work retired; then the device's failure, if any.
  Status waitIdle(Timeout timeout) override;

  /// OK until a queue reported an error, then the first one.
  Status failure() const;

protected:
  StatusOr<std::shared_ptr<CommandBuffer>>
  createCommandBufferImpl(CommandBufferMode mode,
                          uint32_t bindingCapacity) override;
  StatusOr<std::shared_ptr<Semaphore>>
  createSemaphoreImpl(uint64_t initialValue) override;
  Status queueExecuteImpl(uint32_t queue,
                          std::span<const SemaphoreValue> waitList,
                          const std::shared_ptr<CommandBuffer> &commandBuffer,
                          std::span<const std::shared_ptr<Buffer>> bindingTable,
                          std::span<const SemaphoreValue> signalList) override;

private:
  AmdgpuDevice(std::shared_ptr<const HsaSymbols> hsa, DeviceInfo info)
      : Hsa(std::move(hsa)), Info(std::move(info)) {}

  std::shared_ptr<const HsaSymbols> Hsa;
  DeviceInfo Info;
  std::vector<LoadTarget> Gpus;
  std::array<uint64_t, 3> MaxGrid = {};
  uint32_t QueuesPerGpu = 0;
  uint32_t QueueCount = 0;
  std::unique_ptr<AmdgpuAllocator> DeviceAllocator;
  // Index i: GPU i's fill and copy kernels.
  std::vector<std::unique_ptr<AmdgpuExecutable>> Transfer;
  // Destroyed first (see the destructor): every submission retires before
  // the kernels and memory it uses go.
  std::vector<std::unique_ptr<AmdgpuAgent>> Agents;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUDEVICE_H
