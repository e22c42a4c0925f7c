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
                     std::span<const SemaphoreValue> signalList,
                     const std::shared_ptr<SubmissionTimer> &timer) {
  for (const SemaphoreValue &wait : waitList)
    if (!wait.Timeline)
      return KILN_ERROR(InvalidArgument, "queueExecute: null wait semaphore");
  for (const SemaphoreValue &signal : signalList)
    if (!signal.Timeline)
      return KILN_ERROR(InvalidArgument, "queueExecute: null signal semaphore");
  if (timer && !commandBuffer)
    return KILN_ERROR(InvalidArgument,
                      "queueExecute: a timer without a command buffer");
  if (commandBuffer) {
    KILN_RETURN_IF_ERROR(commandBuffer->validateBindingTable(bindingTable));
    KILN_RETURN_IF_ERROR(commandBuffer->markSubmitted());
  } else if (!bindingTable.empty()) {
    return KILN_ERROR(InvalidArgument,
                      "queueExecute: a binding table without a command "
                      "buffer");
  }
  if (timer)
    return queueExecuteTimedImpl(waitList, commandBuffer, bindingTable,
                                 signalList, timer);
  return queueExecuteImpl(waitList, commandBuffer, bindingTable, signalList);
}

StatusOr<std::shared_ptr<SubmissionTimer>> Device::createSubmissionTimer() {
  return KILN_ERROR(Unimplemented, "device ", info().Uri,
                    " has no clock of its own to time submissions by");
}

Status Device::queueExecuteTimedImpl(std::span<const SemaphoreValue>,
                                     const std::shared_ptr<CommandBuffer> &,
                                     std::span<const std::shared_ptr<Buffer>>,
                                     std::span<const SemaphoreValue>,
                                     const std::shared_ptr<SubmissionTimer> &) {
  return KILN_ERROR(InvalidArgument, "queueExecute: device ", info().Uri,
                    " cannot time submissions");
}

} // namespace kiln::hal
