//===- HsaQueue.cpp -------------------------------------------------------===//

#include "runtime/hal/drivers/amdgpu/HsaQueue.h"

#include <bit>

namespace kiln::hal::amdgpu {

StatusOr<uint32_t> chooseQueueSlots(uint64_t requested, uint32_t minSlots,
                                    uint32_t maxSlots) {
  if (!std::has_single_bit(minSlots) || !std::has_single_bit(maxSlots) ||
      minSlots > maxSlots)
    return KILN_ERROR(InvalidArgument, "the GPU's queue sizes ", minSlots,
                      " to ", maxSlots, " are not powers of two in order");
  if (requested >= maxSlots)
    return maxSlots;
  uint64_t slots = std::bit_ceil(std::max<uint64_t>(requested, 1));
  return static_cast<uint32_t>(std::max<uint64_t>(slots, minSlots));
}

StatusOr<std::unique_ptr<HsaQueue>>
HsaQueue::create(std::shared_ptr<const HsaSymbols> hsa, hsa_agent_t gpu,
                 hsa_amd_memory_pool_t kernargPool, const Options &options,
                 std::function<void(Status)> onError) {
  if (options.KernargBytes == 0 || options.KernargBytes > (uint64_t(1) << 32))
    return KILN_ERROR(InvalidArgument, "a kernarg block of ",
                      options.KernargBytes, " bytes (1 to 4 GiB)");
  std::unique_ptr<HsaQueue> result(new HsaQueue(hsa, std::move(onError)));
  uint32_t minSlots = 0, maxSlots = 0;
  KILN_RETURN_IF_ERROR(KILN_HSA_CALL(*hsa, hsa_agent_get_info, gpu,
                                     HSA_AGENT_INFO_QUEUE_MIN_SIZE, &minSlots));
  KILN_RETURN_IF_ERROR(KILN_HSA_CALL(*hsa, hsa_agent_get_info, gpu,
                                     HSA_AGENT_INFO_QUEUE_MAX_SIZE, &maxSlots));
  KILN_ASSIGN_OR_RETURN(uint32_t slots,
                        chooseQueueSlots(options.Slots, minSlots, maxSlots));
  KILN_RETURN_IF_ERROR(KILN_HSA_CALL(*hsa, hsa_amd_memory_pool_allocate,
                                     kernargPool, options.KernargBytes, 0,
                                     &result->Kernargs));
  result->KernargBytes = options.KernargBytes;
  KILN_RETURN_IF_ERROR(KILN_HSA_CALL(*hsa, hsa_amd_agents_allow_access, 1, &gpu,
                                     nullptr, result->Kernargs));
  // Scratch and LDS sizes of UINT32_MAX: no limit below the agent's, as
  // each packet asks for its own.
  KILN_RETURN_IF_ERROR(KILN_HSA_CALL(
      *hsa, hsa_queue_create, gpu, slots, HSA_QUEUE_TYPE_SINGLE, queueError,
      result.get(), UINT32_MAX, UINT32_MAX, &result->Queue));
  return result;
}

HsaQueue::~HsaQueue() {
  // Nothing can be done about failures on the way out.
  if (Queue)
    (void)Hsa->hsa_queue_destroy(Queue);
  if (Kernargs)
    (void)Hsa->hsa_amd_memory_pool_free(Kernargs);
}

KernargBlock HsaQueue::kernargs() const {
  return {{static_cast<uint8_t *>(Kernargs), KernargBytes},
          reinterpret_cast<uintptr_t>(Kernargs)};
}

void HsaQueue::queueError(hsa_status_t status, hsa_queue_t *, void *data) {
  auto *self = static_cast<HsaQueue *>(data);
  if (self->OnError)
    self->OnError(
        hsaStatusToStatus(*self->Hsa, status, "AQL queue", __FILE__, __LINE__));
}

} // namespace kiln::hal::amdgpu
