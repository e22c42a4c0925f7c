//===- MemoryFaults.cpp ---------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/MemoryFaults.h"

#include <sstream>

namespace kiln::hal::amdgpu {

MemoryFaults &MemoryFaults::process() {
  // Never destroyed: HSA's handler may run while the process exits.
  static auto *faults = new MemoryFaults();
  return *faults;
}

Status MemoryFaults::install(const HsaSymbols &hsa) {
  std::call_once(Installed, [&] {
    auto handler = [](const hsa_amd_event_t *event,
                      void *data) -> hsa_status_t {
      static_cast<MemoryFaults *>(data)->deliver(*event);
      return HSA_STATUS_SUCCESS;
    };
    InstallStatus = KILN_HSA_CALL(hsa, hsa_amd_register_system_event_handler,
                                  handler, this);
  });
  return InstallStatus;
}

std::shared_ptr<void>
MemoryFaults::subscribe(uint64_t agent,
                        std::function<void(const Status &)> onFault) {
  std::lock_guard<std::mutex> lock(Mutex);
  auto entry =
      Subscribers.insert(Subscribers.end(), {agent, std::move(onFault)});
  // Unsubscribing waits for a delivery in progress (the mutex), so no
  // subscriber hears of a fault once it is gone.
  return std::shared_ptr<void>(nullptr, [this, entry](void *) {
    std::lock_guard<std::mutex> lock(Mutex);
    Subscribers.erase(entry);
  });
}

void MemoryFaults::deliver(const hsa_amd_event_t &event) {
  if (event.event_type != HSA_AMD_GPU_MEMORY_FAULT_EVENT)
    return;
  Status fault = describe(event.memory_fault);
  std::lock_guard<std::mutex> lock(Mutex);
  for (const Subscriber &subscriber : Subscribers)
    if (subscriber.Agent == event.memory_fault.agent.handle)
      subscriber.OnFault(fault);
}

Status MemoryFaults::describe(const hsa_amd_gpu_memory_fault_info_t &fault) {
  static const std::pair<uint32_t, const char *> kReasons[] = {
      {HSA_AMD_MEMORY_FAULT_PAGE_NOT_PRESENT, "page not present"},
      {HSA_AMD_MEMORY_FAULT_READ_ONLY, "write to a read-only page"},
      {HSA_AMD_MEMORY_FAULT_NX, "execution of a no-execute page"},
      {HSA_AMD_MEMORY_FAULT_HOST_ONLY, "access to host-only memory"},
      {HSA_AMD_MEMORY_FAULT_DRAMECC, "uncorrectable DRAM ECC error"},
      {HSA_AMD_MEMORY_FAULT_IMPRECISE, "imprecise"},
      {HSA_AMD_MEMORY_FAULT_SRAMECC, "SRAM ECC error"},
      {HSA_AMD_MEMORY_FAULT_HANG, "GPU hang"},
  };
  std::string reasons;
  for (const auto &[bit, text] : kReasons)
    if (fault.fault_reason_mask & bit)
      reasons += strCat(reasons.empty() ? "" : ", ", text);
  std::ostringstream address;
  address << std::hex << fault.virtual_address;
  return KILN_ERROR(Aborted, "GPU memory fault at 0x", address.str(),
                    reasons.empty() ? "" : strCat(" (", reasons, ")"),
                    ": a kernel read or wrote memory it may not");
}

} // namespace kiln::hal::amdgpu
