//===- MemoryFaults.h - GPU memory faults to the agents they happened on --===//
//
// HSA reports a kernel's access to memory it may not touch as a system
// event, to handlers registered for the whole process and never removed;
// without one, the runtime prints the fault and aborts the process. So the
// driver registers one handler when it starts HSA (install), and each
// AmdgpuAgent subscribes for its GPU: a fault fails that GPU's device
// (AmdgpuAgent::failAll), whose waiters then see the error instead of the
// process ending or hanging.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_AMDGPU_MEMORYFAULTS_H
#define KILN_RUNTIME_HAL_DRIVERS_AMDGPU_MEMORYFAULTS_H

#include "runtime/hal/drivers/amdgpu/HsaSymbols.h"

#include <functional>
#include <list>
#include <memory>
#include <mutex>

namespace kiln::hal::amdgpu {

class MemoryFaults {
public:
  /// The process's: HSA's handler may run until the process ends.
  static MemoryFaults &process();

  /// Registers the handler with `hsa`'s runtime (once; later calls return
  /// the first one's outcome).
  Status install(const HsaSymbols &hsa);

  /// Until the returned object is destroyed, `onFault` hears of faults on
  /// `agent` (on HSA's thread).
  [[nodiscard]] std::shared_ptr<void>
  subscribe(uint64_t agent, std::function<void(const Status &)> onFault);

  /// What the handler does with an event: a memory fault, as an Aborted
  /// Status naming the address and the reasons, to its agent's
  /// subscribers.
  void deliver(const hsa_amd_event_t &event);

  /// "GPU memory fault at 0x1000 (page not present, write)".
  static Status describe(const hsa_amd_gpu_memory_fault_info_t &fault);

private:
  struct Subscriber {
    uint64_t Agent;
    std::function<void(const Status &)> OnFault;
  };

  std::mutex Mutex;
  std::list<Subscriber> Subscribers; // Mutex, held while delivering
  std::once_flag Installed;
  Status InstallStatus;
};

} // namespace kiln::hal::amdgpu

#endif // KILN_RUNTIME_HAL_DRIVERS_AMDGPU_MEMORYFAULTS_H
