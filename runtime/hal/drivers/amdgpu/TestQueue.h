//===- TestQueue.h - An HSA queue in host memory, for tests ---------------===//
//
// Tests of what the device writes into its queues give it a ring, indices
// and a doorbell word the test owns; the test reads what was published and
// plays the packet processor (completing a packet decrements its
// completion signal and advances the read index). Nothing runs a packet.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TESTQUEUE_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TESTQUEUE_H

#include "runtime/hal/drivers/amdgpu/AqlQueue.h"
#include "runtime/hal/drivers/amdgpu/TestSignals.h"

#include <chrono>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

namespace kiln::hal::amdgpu::testing {

/// Whether `holds` becomes true within 10 s.
inline bool eventually(const std::function<bool()> &holds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!holds())
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    else
      std::this_thread::yield();
  return true;
}

// An HSA queue in host memory; the test's HSA functions find it from the
// hsa_queue_t at its start.
struct TestQueue {
  hsa_queue_t Queue = {};
  std::atomic<uint64_t> Read{0};
  std::atomic<uint64_t> Write{0};
  std::atomic<int64_t> Doorbell{-1};
  std::vector<AqlSlot> Ring;

  explicit TestQueue(size_t slots = 16) : Ring(slots) {
    Queue.size = Ring.size();
    Queue.base_address = Ring.data();
    Queue.doorbell_signal.handle = reinterpret_cast<uint64_t>(&Doorbell);
  }
  static TestQueue &of(const hsa_queue_t *queue) {
    return *reinterpret_cast<TestQueue *>(const_cast<hsa_queue_t *>(queue));
  }

  // Waits until the doorbell says packet `index` is published.
  bool published(uint64_t index) {
    return eventually([&] { return Doorbell.load() >= int64_t(index); });
  }
  template <typename Packet> Packet at(uint64_t index) const {
    Packet packet;
    std::memcpy(&packet, &Ring[index % Ring.size()], sizeof(packet));
    return packet;
  }
  // What a packet processor does once packet `index` is done.
  void complete(uint64_t index) {
    uint64_t signal =
        at<hsa_barrier_and_packet_t>(index).completion_signal.handle;
    if (signal)
      completePacket(signal);
    Read = index + 1;
  }
};

/// Points `hsa`'s queue index functions at TestQueues.
inline void useTestQueues(HsaSymbols &hsa) {
  hsa.hsa_queue_load_read_index_scacquire = [](const hsa_queue_t *queue) {
    return TestQueue::of(queue).Read.load();
  };
  hsa.hsa_queue_load_write_index_relaxed = [](const hsa_queue_t *queue) {
    return TestQueue::of(queue).Write.load();
  };
  hsa.hsa_queue_add_write_index_scacq_screl = [](const hsa_queue_t *queue,
                                                 uint64_t count) {
    return TestQueue::of(queue).Write.fetch_add(count);
  };
}

} // namespace kiln::hal::amdgpu::testing

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TESTQUEUE_H
