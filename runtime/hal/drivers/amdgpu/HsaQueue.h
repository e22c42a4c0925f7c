//===- HsaQueue.h - An HSA queue and its kernarg block, owned -------------===//
//
// What AmdgpuQueue works over, made for one GPU agent: an AQL queue
// (hsa_queue_create; single-producer, as one issue thread writes it) and
// a block of kernarg memory from the host's kernarg pool, which the GPU
// is given access to. The queue's size is a power of two within the
// agent's limits (chooseQueueSlots, pure). HSA reports a queue's
// asynchronous errors (a kernel's memory fault, an invalid packet) on a
// thread of its own through a callback; here they go to `onError` as a
// Status, for the device to fail what is in flight.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_HSAQUEUE_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_HSAQUEUE_H

#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"
#include "runtime/hal/drivers/amdgpu/SubmissionPackets.h"

#include <functional>
#include <memory>

namespace kiln::hal::amdgpu {

/// `requested` slots rounded up to a power of two and kept within the
/// agent's `minSlots` and `maxSlots` (HSA_AGENT_INFO_QUEUE_MIN_SIZE and
/// MAX_SIZE, powers of two); InvalidArgument for limits that are not.
StatusOr<uint32_t> chooseQueueSlots(uint64_t requested, uint32_t minSlots,
                                    uint32_t maxSlots);

class HsaQueue {
public:
  struct Options {
    uint64_t Slots = 4096;
    /// Kernarg bytes for the queue's dispatches in flight.
    uint64_t KernargBytes = 1 << 20;
  };

  static StatusOr<std::unique_ptr<HsaQueue>>
  create(std::shared_ptr<const HsaSymbols> hsa, hsa_agent_t gpu,
         hsa_amd_memory_pool_t kernargPool, const Options &options,
         std::function<void(Status)> onError);
  ~HsaQueue();
  HsaQueue(const HsaQueue &) = delete;
  HsaQueue &operator=(const HsaQueue &) = delete;

  hsa_queue_t *queue() const { return Queue; }
  /// Host and device address are the same: kernarg memory is host memory
  /// the GPU maps.
  KernargBlock kernargs() const;

private:
  HsaQueue(std::shared_ptr<const HsaSymbols> hsa,
           std::function<void(Status)> onError)
      : Hsa(std::move(hsa)), OnError(std::move(onError)) {}

  static void queueError(hsa_status_t status, hsa_queue_t *queue, void *data);

  std::shared_ptr<const HsaSymbols> Hsa;
  std::function<void(Status)> OnError;
  // Null until made; the destructor releases what is not.
  hsa_queue_t *Queue = nullptr;
  void *Kernargs = nullptr;
  uint64_t KernargBytes = 0;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_HSAQUEUE_H
