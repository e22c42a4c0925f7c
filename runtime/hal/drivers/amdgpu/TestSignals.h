//===- TestSignals.h - HSA signal functions over host memory, for tests ---===//
//
// Tests of the device's host-side protocols (completion signals, semaphores,
// dependencies) fill HsaSymbols' signal functions with these: a signal is a
// 64-bit word on the heap, its handle the word's address, and a test plays
// the packet processor by decrementing it. Nothing runs on a GPU.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TESTSIGNALS_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TESTSIGNALS_H

#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"

#include <atomic>
#include <memory>

namespace kiln::hal::amdgpu::testing {

/// Signals created and not yet destroyed.
inline std::atomic<int> liveSignals{0};

inline std::atomic<int64_t> &signalWord(uint64_t handle) {
  return *reinterpret_cast<std::atomic<int64_t> *>(handle);
}

inline hsa_status_t createSignal(hsa_signal_value_t initial, uint32_t,
                                 const hsa_agent_t *, hsa_signal_t *signal) {
  signal->handle =
      reinterpret_cast<uint64_t>(new std::atomic<int64_t>(initial));
  ++liveSignals;
  return HSA_STATUS_SUCCESS;
}

inline hsa_status_t destroySignal(hsa_signal_t signal) {
  delete &signalWord(signal.handle);
  --liveSignals;
  return HSA_STATUS_SUCCESS;
}

inline hsa_signal_value_t loadSignal(hsa_signal_t signal) {
  return signalWord(signal.handle).load(std::memory_order_acquire);
}

/// HsaSymbols whose signal functions are the ones above.
inline std::shared_ptr<HsaSymbols> hostSignalSymbols() {
  auto hsa = std::make_shared<HsaSymbols>();
  hsa->hsa_signal_create = createSignal;
  hsa->hsa_signal_destroy = destroySignal;
  hsa->hsa_signal_load_scacquire = loadSignal;
  return hsa;
}

/// What the packet processor does when a packet naming `handle` is done.
inline void completePacket(uint64_t handle) { --signalWord(handle); }

} // namespace kiln::hal::amdgpu::testing

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TESTSIGNALS_H
