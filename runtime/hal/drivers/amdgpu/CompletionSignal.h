//===- CompletionSignal.h - An HSA signal the GPU counts down -------------===//
//
// AQL packets name an HSA signal as their completion signal, and the packet
// processor subtracts one from it when the packet is done. The amdgpu
// driver gives each submission one, set to the number of packets that
// decrement it (usually its last), so zero means the submission is done:
// the host's retire thread polls for that, and other queues wait for it on
// the GPU with barrier-AND packets, which wait for their signals to be zero.
// Every packet that names the signal must be done before it is destroyed,
// so it is shared: the submission that decrements it and every submission
// whose barrier waits for it each hold it until they retire.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_COMPLETIONSIGNAL_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_COMPLETIONSIGNAL_H

#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"

#include <cstdint>
#include <memory>

namespace kiln::hal::amdgpu {

class CompletionSignal {
public:
  /// A signal at `packets`, the number of packets that will decrement it
  /// (1 to 2^32-1: one submission's, not a count anything else reaches).
  static StatusOr<std::shared_ptr<CompletionSignal>>
  create(std::shared_ptr<const HsaSymbols> hsa, int64_t packets);
  ~CompletionSignal();
  CompletionSignal(const CompletionSignal &) = delete;
  CompletionSignal &operator=(const CompletionSignal &) = delete;

  /// The hsa_signal_t handle packets name.
  uint64_t handle() const { return Handle; }
  /// Whether every packet that decrements it is done (its value is zero;
  /// below zero would mean more packets named it than it was made for,
  /// which counts as done rather than never).
  bool done() const;
  /// Blocks until done (HSA puts the thread to sleep, woken by the
  /// packet processor's decrement): for a retire thread, which has nothing
  /// else to do until then.
  void waitDone() const;
  /// Sets it to zero from the host, for a queue that will never run the
  /// packets that would: whoever waits for it (a retire thread, other
  /// queues' barriers) goes on, and must have been told of the failure
  /// first.
  void release() const;

private:
  CompletionSignal(std::shared_ptr<const HsaSymbols> hsa, uint64_t handle)
      : Hsa(std::move(hsa)), Handle(handle) {}

  std::shared_ptr<const HsaSymbols> Hsa;
  uint64_t Handle;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_COMPLETIONSIGNAL_H
