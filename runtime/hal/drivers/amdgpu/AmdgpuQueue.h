//===- AmdgpuQueue.h - One HSA queue fed and retired by host threads ------===//
//
// The parts joined: an issue thread (HostQueue) holds a submission back
// until every wait is one the GPU can do (gpuCanWait), plans its barriers
// (planWaits), gives it a completion signal, builds its packets with
// kernargs from the queue's block (buildSubmission, at the write index:
// this thread is the queue's only writer) and submits them (AqlQueue),
// then hands it to InflightSubmissions, which lets other queues' barriers
// name its completion signal. A retire thread (another HostQueue, one
// task a submission, in order) blocks on each completion signal and
// retires what is done. Creating the HSA queue and its kernarg block is
// the device's; this class only uses them.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUQUEUE_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUQUEUE_H

#include "runtime/hal/HostQueue.h"
#include "runtime/hal/drivers/amdgpu/AqlQueue.h"
#include "runtime/hal/drivers/amdgpu/InflightSubmissions.h"
#include "runtime/hal/drivers/amdgpu/KernargRing.h"
#include "runtime/hal/drivers/amdgpu/SubmissionPackets.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::hal::amdgpu {

struct QueueSubmission {
  std::vector<SemaphoreValue> Waits;
  /// Bindings resolved to device addresses; what the spans point into and
  /// the kernels' executables are held by KeepAlive.
  std::vector<KernelDispatch> Dispatches;
  std::vector<SemaphoreValue> Signals;
  std::shared_ptr<const void> KeepAlive;
};

class AmdgpuQueue {
public:
  /// `queue` and `kernargs` stay the caller's and must outlive this.
  AmdgpuQueue(std::shared_ptr<const HsaSymbols> hsa, hsa_queue_t *queue,
              KernargBlock kernargs, const std::string &deviceName);
  /// Submissions still waiting fail with Cancelled; those on the GPU are
  /// waited for and retired.
  ~AmdgpuQueue();
  AmdgpuQueue(const AmdgpuQueue &) = delete;
  AmdgpuQueue &operator=(const AmdgpuQueue &) = delete;

  /// Returns at once; errors reach the submission's signals.
  void submit(QueueSubmission submission);
  /// The queue will run nothing more (HSA reported a queue error): what
  /// is in flight fails with `status` and retires, later submissions fail.
  void fail(const Status &status);
  /// Until every submission so far is retired (DeadlineExceeded after
  /// `timeout`).
  Status waitIdle(Timeout timeout);

private:
  // On the issue thread: the packets into the queue, or why not.
  Status issue(QueueSubmission &submission);

  std::shared_ptr<const HsaSymbols> Hsa;
  hsa_queue_t *Queue;
  AqlQueue Aql;
  KernargBlock Kernargs;
  KernargRing Ring; // the issue thread's alone
  InflightSubmissions Inflight;
  // Destroyed first, issuer before retirer: nothing is issued once the
  // retirer drains.
  std::unique_ptr<HostQueue> Retirer;
  std::unique_ptr<HostQueue> Issuer;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AMDGPUQUEUE_H
