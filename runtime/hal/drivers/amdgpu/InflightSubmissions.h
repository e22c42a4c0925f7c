//===- InflightSubmissions.h - What an amdgpu queue retires, in order -----===//
//
// Once a submission's packets are in its queue (SubmissionPackets,
// AqlQueue), the issue thread hands it here: its AmdgpuSemaphore signals
// are then noted as queued with its completion signal, so submissions on
// other queues may wait for them on the GPU. The retire thread polls the
// oldest submissions' completion signals (a queue runs its packets in
// order, so they complete in order) and retires each that is zero: a wait
// that failed meanwhile fails its signals (its work ran on whatever was
// there), else its values are signalled, AmdgpuSemaphores through
// signalFromDevice. Then it lets go of the completion signals its barriers
// named. The kernarg memory is the issue thread's: it comes back by the
// queue's read index there, with no hand-over.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_INFLIGHTSUBMISSIONS_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_INFLIGHTSUBMISSIONS_H

#include "runtime/hal/Semaphore.h"
#include "runtime/hal/drivers/amdgpu/CompletionSignal.h"

#include <deque>
#include <memory>
#include <mutex>
#include <vector>

namespace kiln::hal::amdgpu {

/// One submission whose packets are in a queue.
struct InflightSubmission {
  /// Decremented by its last packet.
  std::shared_ptr<CompletionSignal> Done;
  /// Its whole wait list, checked for failures when it retires.
  std::vector<SemaphoreValue> Waits;
  /// What its barriers name (WaitPlan::Signals), held until it retires.
  std::vector<std::shared_ptr<CompletionSignal>> Barriers;
  std::vector<SemaphoreValue> Signals;
  /// What its dispatches read or run (executables, buffers, binding
  /// tables), let go of before anyone is told it is done.
  std::shared_ptr<const void> KeepAlive;
};

class InflightSubmissions {
public:
  /// In queue order, after its packets were submitted. A signal that
  /// cannot be queued (a value that does not advance its semaphore, which
  /// its waiters would wait for forever) fails that semaphore, as a host
  /// signal would. InvalidArgument, adding nothing, for one without a
  /// completion signal; after failAll, its failure (the queue will never
  /// run the packets), its signals failed and its completion signal
  /// released.
  Status add(InflightSubmission submission);

  /// Retires the oldest submissions whose completion signals are zero;
  /// how many.
  size_t retireDone();

  /// The GPU will not finish what is in flight (a queue error, a lost
  /// device): every submission's signals fail with `status` (an OK one is
  /// taken as Internal), then its completion signal is released, so retire
  /// threads and other queues' barriers waiting for it go on. Later adds
  /// fail; the first failure stays.
  void failAll(const Status &status);

  size_t size() const;
  /// OK until failAll, then its failure.
  Status failure() const;

private:
  mutable std::mutex Mutex;
  std::deque<InflightSubmission> Submissions;
  Status Failure; // set by failAll
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_INFLIGHTSUBMISSIONS_H
