//===- Device.cpp ---------------------------------------------------------===//

#include "runtime/hal/Device.h"

#include <bit>
#include <cstdio>

namespace kiln::hal {

namespace {

std::string hexMask(QueueAffinity affinity) {
  char text[19];
  std::snprintf(text, sizeof(text), "0x%llx",
                static_cast<unsigned long long>(affinity));
  return text;
}

Status noQueue(std::string_view call, QueueAffinity affinity,
               const Device &device) {
  return KILN_ERROR(InvalidArgument, call, ": queue affinity ",
                    hexMask(affinity), " names none of the ",
                    device.queueCount(), " queue(s) of device ",
                    device.info().Uri);
}

} // namespace

Device::~Device() = default;

std::optional<std::string>
Device::unsupportedReason(std::string_view feature) const {
  for (const UnsupportedFeature &unsupported : unsupportedFeatures())
    if (unsupported.Feature == feature)
      return unsupported.Reason;
  return std::nullopt;
}

QueueAffinity Device::validQueues(QueueAffinity affinity) const {
  uint32_t count = queueCount();
  return count >= kMaxQueues ? affinity : affinity & (queueAffinity(count) - 1);
}

StatusOr<std::shared_ptr<CommandBuffer>>
Device::createCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity,
                            QueueAffinity affinity) {
  QueueAffinity valid = validQueues(affinity);
  if (valid == 0)
    return noQueue("createCommandBuffer", affinity, *this);
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<CommandBuffer> commands,
                        createCommandBufferImpl(mode, bindingCapacity));
  commands->Affinity = valid;
  return commands;
}

StatusOr<std::shared_ptr<Semaphore>>
Device::createSemaphore(uint64_t initialValue) {
  KILN_RETURN_IF_ERROR(
      checkSemaphoreValue(initialValue, "createSemaphore: initial value"));
  return createSemaphoreImpl(initialValue);
}

Status
Device::queueExecute(std::span<const SemaphoreValue> waitList,
                     const std::shared_ptr<CommandBuffer> &commandBuffer,
                     std::span<const std::shared_ptr<Buffer>> bindingTable,
                     std::span<const SemaphoreValue> signalList,
                     const std::shared_ptr<SubmissionTimer> &timer,
                     QueueAffinity affinity) {
  for (const SemaphoreValue &wait : waitList) {
    if (!wait.Timeline)
      return KILN_ERROR(InvalidArgument, "queueExecute: null wait semaphore");
    KILN_RETURN_IF_ERROR(
        checkSemaphoreValue(wait.Value, "queueExecute: wait value"));
  }
  for (const SemaphoreValue &signal : signalList) {
    if (!signal.Timeline)
      return KILN_ERROR(InvalidArgument, "queueExecute: null signal semaphore");
    KILN_RETURN_IF_ERROR(
        checkSemaphoreValue(signal.Value, "queueExecute: signal value"));
  }
  if (timer && !commandBuffer)
    return KILN_ERROR(InvalidArgument,
                      "queueExecute: a timer without a command buffer");
  QueueAffinity queues = validQueues(affinity);
  if (queues == 0)
    return noQueue("queueExecute", affinity, *this);
  if (commandBuffer) {
    queues &= commandBuffer->queueAffinity();
    if (queues == 0)
      return KILN_ERROR(InvalidArgument, "queueExecute: queue affinity ",
                        hexMask(affinity),
                        " shares no queue with the command buffer's ",
                        hexMask(commandBuffer->queueAffinity()));
    KILN_RETURN_IF_ERROR(commandBuffer->validateBindingTable(bindingTable));
    KILN_RETURN_IF_ERROR(commandBuffer->markSubmitted());
  } else if (!bindingTable.empty()) {
    return KILN_ERROR(InvalidArgument,
                      "queueExecute: a binding table without a command "
                      "buffer");
  }
  auto queue = static_cast<uint32_t>(std::countr_zero(queues));
  if (timer)
    return queueExecuteTimedImpl(queue, waitList, commandBuffer, bindingTable,
                                 signalList, timer);
  return queueExecuteImpl(queue, waitList, commandBuffer, bindingTable,
                          signalList);
}

StatusOr<std::shared_ptr<SubmissionTimer>> Device::createSubmissionTimer() {
  return KILN_ERROR(Unimplemented, "device ", info().Uri,
                    " has no clock of its own to time submissions by");
}

Status Device::queueExecuteTimedImpl(uint32_t, std::span<const SemaphoreValue>,
                                     const std::shared_ptr<CommandBuffer> &,
                                     std::span<const std::shared_ptr<Buffer>>,
                                     std::span<const SemaphoreValue>,
                                     const std::shared_ptr<SubmissionTimer> &) {
  return KILN_ERROR(InvalidArgument, "queueExecute: device ", info().Uri,
                    " cannot time submissions");
}

} // namespace kiln::hal
