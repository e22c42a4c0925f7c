//===- AmdgpuQueue.cpp ----------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AmdgpuQueue.h"

namespace kiln::hal::amdgpu {

AmdgpuQueue::AmdgpuQueue(std::shared_ptr<const HsaSymbols> hsa,
                         hsa_queue_t *queue, KernargBlock kernargs,
                         const std::string &deviceName)
    : Hsa(std::move(hsa)), Queue(queue), Aql(*Hsa, queue), Kernargs(kernargs),
      Ring(kernargs.Host.size()), Retirer(std::make_unique<HostQueue>(
                                      deviceName, HostQueue::Mode::Threaded)),
      Issuer(
          std::make_unique<HostQueue>(deviceName, HostQueue::Mode::Threaded)) {}

AmdgpuQueue::~AmdgpuQueue() {
  Issuer.reset();
  Retirer.reset();
}

void AmdgpuQueue::submit(QueueSubmission submission) {
  auto work = std::make_shared<QueueSubmission>(std::move(submission));
  HostSubmission waiting;
  waiting.Waits = work->Waits;
  waiting.Ready = gpuCanWait;
  waiting.Run = [this, work](Status waited) {
    Status issued = waited.ok() ? issue(*work) : std::move(waited);
    if (!issued.ok())
      signalOrFail(work->Signals, issued);
  };
  Issuer->submit(std::move(waiting));
}

Status AmdgpuQueue::issue(QueueSubmission &work) {
  KILN_RETURN_IF_ERROR(Inflight.failure());
  KILN_ASSIGN_OR_RETURN(WaitPlan plan, planWaits(work.Waits));
  // gpuCanWait let every wait through, and a value reached or queued
  // stays so (or fails, which planWaits returned).
  if (!plan.HostWaits.empty())
    return KILN_ERROR(Internal, "an amdgpu submission was issued with ",
                      plan.HostWaits.size(), " waits the GPU cannot do");
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<CompletionSignal> done,
                        CompletionSignal::create(Hsa, 1));
  SubmissionInput input;
  input.Waits = &plan;
  input.Dispatches = work.Dispatches;
  input.CompletionSignal = done->handle();
  input.FirstPacket = Hsa->hsa_queue_load_write_index_relaxed(Queue);
  KILN_ASSIGN_OR_RETURN(std::vector<AqlSlot> packets,
                        buildSubmission(input, Ring, Kernargs, [this] {
                          // A failed queue reads nothing more: its kernarg
                          // memory is free.
                          if (!Inflight.failure().ok())
                            return UINT64_MAX;
                          return Hsa->hsa_queue_load_read_index_scacquire(
                              Queue);
                        }));
  // Waiting for ring slots ends should the queue fail meanwhile.
  KILN_RETURN_IF_ERROR(
      Aql.submit(packets, [this] { return Inflight.failure(); }).status());
  InflightSubmission flight;
  flight.Done = done;
  flight.Waits = std::move(work.Waits);
  flight.Barriers = std::move(plan.Signals);
  flight.Signals = std::move(work.Signals);
  flight.KeepAlive = std::move(work.KeepAlive);
  KILN_RETURN_IF_ERROR(Inflight.add(std::move(flight)));
  HostSubmission retirement;
  retirement.Run = [this, done](Status) {
    // Retirement tasks run in submission order, as the queue completes.
    done->waitDone();
    Inflight.retireDone();
  };
  Retirer->submit(std::move(retirement));
  return Status();
}

void AmdgpuQueue::fail(const Status &status) { Inflight.failAll(status); }

Status AmdgpuQueue::waitIdle(Timeout timeout) {
  auto deadline = deadlineAfter(timeout);
  KILN_RETURN_IF_ERROR(Issuer->waitIdle(timeLeft(deadline)));
  return Retirer->waitIdle(timeLeft(deadline));
}

} // namespace kiln::hal::amdgpu
