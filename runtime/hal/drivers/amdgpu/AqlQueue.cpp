//===- AqlQueue.cpp -------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/AqlQueue.h"

#include "runtime/hal/drivers/amdgpu/AqlPacket.h"

#include <thread>

namespace kiln::hal::amdgpu {

StatusOr<uint64_t>
AqlQueue::submit(std::span<const AqlSlot> packets,
                 const std::function<Status()> &stillRunning) {
  uint64_t size = Queue->size;
  if (packets.empty() || packets.size() > size)
    return KILN_ERROR(InvalidArgument, packets.size(),
                      " packets for a queue of ", size, " slots");
  uint64_t first =
      Hsa.hsa_queue_add_write_index_scacq_screl(Queue, packets.size());
  uint64_t last = first + packets.size() - 1;
  // The slots are ours once the packet processor has read what was there:
  // the read index must be within one ring of the last one. It advances
  // as the GPU works, so this waits only while the GPU is behind.
  while (last - Hsa.hsa_queue_load_read_index_scacquire(Queue) >= size) {
    if (stillRunning)
      KILN_RETURN_IF_ERROR(stillRunning());
    std::this_thread::yield();
  }
  auto *ring = static_cast<AqlSlot *>(Queue->base_address);
  for (uint64_t i = 0; i < packets.size(); ++i)
    publishPacket(&ring[(first + i) & (size - 1)], packets[i].Bytes);
  Hsa.hsa_signal_store_screlease(Queue->doorbell_signal,
                                 static_cast<hsa_signal_value_t>(last));
  return last;
}

} // namespace kiln::hal::amdgpu
