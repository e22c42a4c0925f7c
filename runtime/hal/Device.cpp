//===- Device.cpp ---------------------------------------------------------===//

#include "runtime/hal/Device.h"

namespace kiln::hal {

Device::~Device() = default;

std::optional<std::string>
Device::unsupportedReason(std::string_view feature) const {
  for (const UnsupportedFeature &unsupported : unsupportedFeatures())
    if (unsupported.Feature == feature)
      return unsupported.Reason;
  return std::nullopt;
}

Status
Device::queueExecute(std::span<const SemaphoreValue> waitList,
                     const std::shared_ptr<CommandBuffer> &commandBuffer,
                     std::span<const std::shared_ptr<Buffer>> bindingTable,
                     std::span<const SemaphoreValue> signalList) {
  for (const SemaphoreValue &wait : waitList)
    if (!wait.Timeline)
      return KILN_ERROR(InvalidArgument, "queueExecute: null wait semaphore");
  for (const SemaphoreValue &signal : signalList)
    if (!signal.Timeline)
      return KILN_ERROR(InvalidArgument, "queueExecute: null signal semaphore");
  if (commandBuffer) {
    KILN_RETURN_IF_ERROR(commandBuffer->validateBindingTable(bindingTable));
    KILN_RETURN_IF_ERROR(commandBuffer->markSubmitted());
  } else if (!bindingTable.empty()) {
    return KILN_ERROR(InvalidArgument,
                      "queueExecute: a binding table without a command "
                      "buffer");
  }
  return queueExecuteImpl(waitList, commandBuffer, bindingTable, signalList);
}

} // namespace kiln::hal
