//===- AqlQueue.h - Writing packets into an HSA queue's ring --------------===//
//
// An HSA AQL queue is a ring of `size` 64-byte slots (a power of two) with
// a write index producers advance and a read index the packet processor
// advances; a slot is free once the read index has passed it. Submitting
// is: reserve slots by adding to the write index (so several threads may
// share a queue), wait while the ring is full, write each packet body and
// then its header (publishPacket), and store the last index into the
// queue's doorbell signal. This class is that protocol over the HSA
// functions of HsaSymbols; creating and destroying queues is the device's.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AQLQUEUE_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AQLQUEUE_H

#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"

#include <cstdint>
#include <functional>
#include <span>

namespace kiln::hal::amdgpu {

/// One AQL packet's bytes (dispatch or barrier-AND, AqlPacket.h).
struct AqlSlot {
  alignas(64) uint8_t Bytes[64];
};

class AqlQueue {
public:
  /// `queue` stays the caller's; its size must be a power of two, as HSA
  /// makes them.
  AqlQueue(const HsaSymbols &hsa, hsa_queue_t *queue)
      : Hsa(hsa), Queue(queue) {}

  /// Writes `packets` into consecutive slots, waiting while the ring is
  /// full, and rings the doorbell once; returns the last packet's index
  /// (its completion is what a caller that tracks progress waits for).
  /// InvalidArgument for more packets than the ring holds or none.
  /// While waiting, `stillRunning` (when given) is asked whether the queue
  /// may still move: its failure ends the wait (a queue HSA reported an
  /// error on never frees a slot), the slots reserved left unwritten.
  StatusOr<uint64_t>
  submit(std::span<const AqlSlot> packets,
         const std::function<Status()> &stillRunning = nullptr);

private:
  const HsaSymbols &Hsa;
  hsa_queue_t *Queue;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_AQLQUEUE_H
