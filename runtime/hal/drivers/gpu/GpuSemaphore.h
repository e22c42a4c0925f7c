//===- GpuSemaphore.h - A timeline the GPU waits on and signals itself ---===//
//
// The value is a 64-bit word of pinned host memory mapped into the GPU's
// address space. A submission's stream writes its signal values there after
// its work and waits there for its wait values (greater-or-equal), with
// stream word operations (GpuApi::enqueueWordOperations), so work on one GPU
// orders itself with no host thread in between, across streams too. The host
// reads the same word: a waiter spins on it and sees the GPU's write directly,
// then sleeps; the device wakes sleepers and wakers (other drivers' queues)
// once it retires the submission that wrote it. A host signal() writes the
// word, which releases GPU waiters.
//
// A stream waits only for a value that is reached or that another stream
// was already told to write (noteQueued); until then its submission waits
// on the host (GpuQueue). So a stream never waits for something only the
// host can still do: vendor calls that quietly wait for the whole context
// (loading a kernel on first launch, instantiating a graph, some
// allocations) cannot deadlock with a host thread that would signal later.
//
// Failure lives on the host (HostSemaphore's status); the word is only for
// the GPU. fail() writes a value above every valid one (kMaxSemaphoreValue
// + 1), which releases every GPU waiter at once, however long the queued
// write would have taken. Their work then runs on meaningless input, so
// before writing it fail() fails the signal lists of the submissions that
// wait here on the GPU for a value not yet reached (registered by
// addDeviceWaiter), and so on down the chain: by the time a GPU can write
// such a signal, its semaphore already reports the failure. A GPU write
// that lands on a failed word afterwards is covered again when its
// submission retires (the word is rewritten).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUSEMAPHORE_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUSEMAPHORE_H

#include "runtime/hal/HostSemaphore.h"
#include "runtime/hal/drivers/gpu/GpuApi.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace kiln::hal::gpu {

/// The signal list of a submission that waits for device semaphores on the
/// GPU, failed as a whole when one of those waits fails.
class GpuPendingSignals {
public:
  explicit GpuPendingSignals(std::vector<SemaphoreValue> signals)
      : Signals(std::move(signals)) {}

  /// Fails every signal with the first status given (every call fails them
  /// again, which rewrites a GPU semaphore's word after a late GPU write).
  void fail(Status status);
  /// The first failure, once fail() was called.
  std::optional<Status> failure() const;

private:
  mutable std::mutex Mutex;
  Status Failure;
  const std::vector<SemaphoreValue> Signals;
};

class GpuSemaphore final : public HostSemaphore {
public:
  /// The word's value once failed: above every valid value, so it releases
  /// every GPU waiter.
  static constexpr uint64_t kFailedValue = kMaxSemaphoreValue + 1;

  static StatusOr<std::shared_ptr<GpuSemaphore>>
  create(std::shared_ptr<GpuApi> api, uint64_t initialValue);
  ~GpuSemaphore() override;

  Status fail(Status status) override;

  /// The context whose streams may wait on and write the word
  /// (GpuApi::contextId).
  const void *contextId() const { return Api->contextId(); }
  /// The word's address for stream word operations.
  uint64_t deviceAddress() const { return DeviceAddress; }

  /// Before a stream waits for `value` on the GPU: true when the value is
  /// already reached (no GPU wait needed), the failure when failed, else
  /// false after registering `waiter` to be failed should this semaphore
  /// fail first.
  StatusOr<bool>
  addDeviceWaiter(uint64_t value,
                  const std::shared_ptr<GpuPendingSignals> &waiter);
  /// Before a stream writes `value`: InvalidArgument unless it advances the
  /// value (only the value now: a write issued earlier may rightly carry a
  /// larger value, when its stream waits for this one's), the failure when
  /// failed (a failed word is not written).
  Status checkDeviceSignal(uint64_t value);
  /// After a stream was told to write `value`: wakes the wakers (queues
  /// waiting to let their GPU wait for it).
  void noteQueued(uint64_t value);
  /// OK once `value` is reached or a stream was told to write it, the
  /// failure when failed, else nullopt: when a GPU may wait for `value`.
  std::optional<Status> pollQueued(uint64_t value);
  /// Wakes host waiters and wakers after a GPU write of the word: called
  /// once the writing submission retired.
  void notifyDeviceSignal();

private:
  GpuSemaphore(std::shared_ptr<GpuApi> api, GpuMappedHostMemory word,
               uint64_t initialValue)
      : HostSemaphore(reinterpret_cast<uint64_t *>(word.Host), initialValue),
        Api(std::move(api)), Word(word.Host), DeviceAddress(word.Device) {}

  std::shared_ptr<GpuApi> Api;
  uint8_t *Word; // pinned, freed with the semaphore
  uint64_t DeviceAddress;
  // The largest value a stream was told to write.
  std::atomic<uint64_t> Queued{0};
  std::mutex WaitersMutex;
  // (value, submission) pairs waiting on the GPU; expired ones are pruned.
  std::vector<std::pair<uint64_t, std::weak_ptr<GpuPendingSignals>>>
      DeviceWaiters;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUSEMAPHORE_H
