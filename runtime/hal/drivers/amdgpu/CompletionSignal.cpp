//===- CompletionSignal.cpp -----------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/CompletionSignal.h"

namespace kiln::hal::amdgpu {

StatusOr<std::shared_ptr<CompletionSignal>>
CompletionSignal::create(std::shared_ptr<const HsaSymbols> hsa,
                         int64_t packets) {
  if (packets < 1 || packets > int64_t(UINT32_MAX))
    return KILN_ERROR(InvalidArgument, "a completion signal for ", packets,
                      " packets (1 to 2^32-1)");
  hsa_signal_t signal = {};
  // No consumer list: any agent may wait on it, the host and every GPU of
  // a logical device.
  KILN_RETURN_IF_ERROR(
      KILN_HSA_CALL(*hsa, hsa_signal_create, packets, 0, nullptr, &signal));
  return std::shared_ptr<CompletionSignal>(
      new CompletionSignal(std::move(hsa), signal.handle));
}

CompletionSignal::~CompletionSignal() {
  // Its holders are done with it, so no packet still names it; a failure
  // here leaves nothing to do.
  (void)Hsa->hsa_signal_destroy(hsa_signal_t{Handle});
}

bool CompletionSignal::done() const {
  return Hsa->hsa_signal_load_scacquire(hsa_signal_t{Handle}) <= 0;
}

void CompletionSignal::waitDone() const {
  // HSA may return before the condition holds, so the loop; no timeout,
  // as a GPU that never finishes is waited for like any stream.
  while (Hsa->hsa_signal_wait_scacquire(hsa_signal_t{Handle},
                                        HSA_SIGNAL_CONDITION_LT, 1, UINT64_MAX,
                                        HSA_WAIT_STATE_BLOCKED) >= 1) {
  }
}

void CompletionSignal::release() const {
  Hsa->hsa_signal_store_screlease(hsa_signal_t{Handle}, 0);
}

} // namespace kiln::hal::amdgpu
