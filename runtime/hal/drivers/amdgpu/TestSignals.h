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
#include <mutex>
#include <set>
#include <thread>

namespace kiln::hal::amdgpu::testing {

/// Signals created and not yet destroyed.
inline std::atomic<int> liveSignals{0};
// Their handles, so a packet naming one destroyed since is not touched.
inline std::mutex liveHandlesMutex;
inline std::set<uint64_t> liveHandles;

inline std::atomic<int64_t> &signalWord(uint64_t handle) {
  return *reinterpret_cast<std::atomic<int64_t> *>(handle);
}

inline hsa_status_t createSignal(hsa_signal_value_t initial, uint32_t,
                                 const hsa_agent_t *, hsa_signal_t *signal) {
  signal->handle =
      reinterpret_cast<uint64_t>(new std::atomic<int64_t>(initial));
  std::lock_guard<std::mutex> lock(liveHandlesMutex);
  liveHandles.insert(signal->handle);
  ++liveSignals;
  return HSA_STATUS_SUCCESS;
}

inline hsa_status_t destroySignal(hsa_signal_t signal) {
  std::lock_guard<std::mutex> lock(liveHandlesMutex);
  liveHandles.erase(signal.handle);
  delete &signalWord(signal.handle);
  --liveSignals;
  return HSA_STATUS_SUCCESS;
}

inline hsa_signal_value_t loadSignal(hsa_signal_t signal) {
  return signalWord(signal.handle).load(std::memory_order_acquire);
}

/// Waits by spinning: the test's packet processor is another thread of
/// the test, or already done.
inline hsa_signal_value_t waitSignal(hsa_signal_t signal,
                                     hsa_signal_condition_t condition,
                                     hsa_signal_value_t compare, uint64_t,
                                     hsa_wait_state_t) {
  for (;;) {
    hsa_signal_value_t value = loadSignal(signal);
    bool met = condition == HSA_SIGNAL_CONDITION_EQ   ? value == compare
               : condition == HSA_SIGNAL_CONDITION_NE ? value != compare
               : condition == HSA_SIGNAL_CONDITION_LT ? value < compare
                                                      : value >= compare;
    if (met)
      return value;
    std::this_thread::yield();
  }
}

inline void storeSignal(hsa_signal_t signal, hsa_signal_value_t value) {
  signalWord(signal.handle).store(value, std::memory_order_release);
}

/// HsaSymbols whose signal functions are the ones above.
inline std::shared_ptr<HsaSymbols> hostSignalSymbols() {
  auto hsa = std::make_shared<HsaSymbols>();
  hsa->hsa_signal_create = createSignal;
  hsa->hsa_signal_destroy = destroySignal;
  hsa->hsa_signal_load_scacquire = loadSignal;
  hsa->hsa_signal_wait_scacquire = waitSignal;
  hsa->hsa_signal_store_screlease = storeSignal;
  return hsa;
}

/// What the packet processor does when a packet naming `handle` is done
/// (nothing once the signal is destroyed: a test finishing packets of a
/// queue that failed may name one).
inline void completePacket(uint64_t handle) {
  std::lock_guard<std::mutex> lock(liveHandlesMutex);
  if (liveHandles.count(handle))
    --signalWord(handle);
}

} // namespace kiln::hal::amdgpu::testing

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_TESTSIGNALS_H
