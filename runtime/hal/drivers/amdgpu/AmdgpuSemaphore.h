//===- AmdgpuSemaphore.h - Timeline semaphores of the amdgpu device -------===//
//
// A HAL timeline takes any value a submission signals, but AQL gives the
// GPU only two operations on an HSA signal: a packet's completion
// decrements it by one, and a barrier-AND packet waits for it to be zero.
// Writing an arbitrary value from the GPU would need a kernel of its own
// per signal. So the value lives on the host (HostSemaphore: host waits,
// wakers and failures as every driver has them), and what the GPU orders
// itself on are the completion signals of the submissions queued to
// advance it: each queued submission is noted with the value it signals
// and its CompletionSignal, a later submission that waits for a value not
// yet reached waits on the GPU for the first queued one that reaches it,
// and the device's retire thread advances the value once a completion
// signal is zero (signalFromDevice).
//
// A wait for a value no submission was queued for yet cannot be on the
// GPU (nothing will ever zero a signal for it); the submission waits on
// the host until the value is reached or queued (the wakers are told of
// each noteQueued), so a GPU never waits for something only the host can
// still do.
//
// Failure stays on the host too. A GPU waiter is released only by the real
// completion of what it waits for, never early by a failure, so nothing
// runs before its input is written; the device fails a submission's
// signals when it retires and finds one of its waits failed.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUSEMAPHORE_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUSEMAPHORE_H

#include "runtime/hal/HostSemaphore.h"
#include "runtime/hal/drivers/amdgpu/CompletionSignal.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace kiln::hal::amdgpu {

/// How a submission waits for one value of an AmdgpuSemaphore.
struct DeviceWait {
  /// The value is reached: no wait.
  bool Reached = false;
  /// Else, when set: a barrier-AND on this signal (held by the waiting
  /// submission until it retires). Neither: wait on the host.
  std::shared_ptr<CompletionSignal> Signal;
};

class AmdgpuSemaphore final : public HostSemaphore {
public:
  explicit AmdgpuSemaphore(uint64_t initialValue)
      : HostSemaphore(initialValue) {}

  Status fail(Status status) override;

  /// After a submission that signals `value` was put into a queue, its
  /// last packet decrementing `done`. InvalidArgument for a value out of
  /// range or reached already; the failure when failed.
  Status noteQueued(uint64_t value, std::shared_ptr<CompletionSignal> done);

  /// How to wait for `value`: reached, the first queued submission whose
  /// value reaches it, or neither; the failure when failed.
  StatusOr<DeviceWait> deviceWait(uint64_t value);

  /// OK once `value` is reached or queued, the failure when failed, else
  /// nullopt: when a submission waiting for it may go to the GPU.
  std::optional<Status> pollQueued(uint64_t value);

  /// Once a submission that signals `value` is done (its completion signal
  /// is zero): advances the value to it unless a later signal got there
  /// first (retire threads of several queues need not retire in value
  /// order), and forgets the queued submissions it reaches. The failure
  /// when failed.
  Status signalFromDevice(uint64_t value);

private:
  // Drops queued submissions at or below the value now; Mutex held.
  void forgetReached();

  std::mutex Mutex;
  // Queued submissions by the value each signals (a second one queued for
  // the same value is not noted: either one done reaches it).
  std::map<uint64_t, std::shared_ptr<CompletionSignal>> Queued;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUSEMAPHORE_H
