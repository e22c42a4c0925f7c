//===- CommandBuffer.cpp --------------------------------------------------===//

#include "runtime/hal/CommandBuffer.h"

#include "runtime/hal/Allocator.h"

#include <algorithm>

namespace kiln::hal {

CommandBuffer::~CommandBuffer() = default;

Status CommandBuffer::checkRecording(std::string_view command) const {
  if (CurrentState != State::Recording)
    return KILN_ERROR(FailedPrecondition, "command buffer ", command,
                      ": not recording (call begin() first, and record "
                      "nothing after end())");
  return Status();
}

StatusOr<BufferRef> CommandBuffer::checkRef(const BufferRef &ref,
                                            BufferUsage usage, bool written,
                                            std::string_view what) const {
  if (ref.isIndirect()) {
    if (ref.Slot >= BindingCapacity)
      return KILN_ERROR(OutOfRange, what, ": binding slot ", ref.Slot,
                        " is outside the command buffer's binding capacity ",
                        BindingCapacity);
    if (ref.Length == kWholeBuffer)
      return KILN_ERROR(InvalidArgument, what,
                        ": a binding-slot ref needs an explicit length");
    // The extent must be representable so the per-slot check cannot wrap.
    if (ref.Offset > Allocator::kMaxBufferSize ||
        ref.Length > Allocator::kMaxBufferSize - ref.Offset)
      return KILN_ERROR(OutOfRange, what, ": range [", ref.Offset, ", ",
                        ref.Offset, " + ", ref.Length,
                        ") is larger than any buffer");
    return ref;
  }
  const Buffer &buffer = *ref.Direct;
  if (!hasAll(buffer.usage(), usage))
    return KILN_ERROR(InvalidArgument, what, ": buffer usage ",
                      bufferUsageString(buffer.usage()), " lacks ",
                      bufferUsageString(usage));
  if (written && buffer.isReadOnly())
    return KILN_ERROR(PermissionDenied, what, ": buffer is read-only");
  KILN_ASSIGN_OR_RETURN(
      uint64_t length, checkRange(buffer.size(), ref.Offset, ref.Length, what));
  BufferRef resolved = ref;
  resolved.Length = length;
  return resolved;
}

void CommandBuffer::noteRequirement(const BufferRef &ref, BufferUsage usage,
                                    bool written) {
  if (!ref.isIndirect())
    return;
  if (Requirements.size() <= ref.Slot)
    Requirements.resize(ref.Slot + 1);
  BindingRequirement &requirement = Requirements[ref.Slot];
  requirement.Used = true;
  requirement.MinimumSize =
      std::max(requirement.MinimumSize, ref.Offset + ref.Length);
  requirement.Usage = requirement.Usage | usage;
  requirement.Written = requirement.Written || written;
}

void CommandBuffer::commandAdded() {
  ++CommandCount;
  PendingDependencies.clear();
}

Status CommandBuffer::begin() {
  if (CurrentState != State::Initial)
    return KILN_ERROR(FailedPrecondition,
                      "command buffer begin: already recorded");
  CurrentState = State::Recording;
  return Status();
}

Status CommandBuffer::fill(const BufferRef &target, uint32_t pattern,
                           uint8_t patternLength) {
  KILN_RETURN_IF_ERROR(checkRecording("fill"));
  if (patternLength != 1 && patternLength != 2 && patternLength != 4)
    return KILN_ERROR(InvalidArgument, "fill: pattern length ",
                      unsigned(patternLength), " is not 1, 2 or 4");
  KILN_ASSIGN_OR_RETURN(
      BufferRef resolved,
      checkRef(target, BufferUsage::Transfer, /*written=*/true, "fill target"));
  if (resolved.Offset % patternLength || resolved.Length % patternLength)
    return KILN_ERROR(InvalidArgument, "fill: offset ", resolved.Offset,
                      " and length ", resolved.Length,
                      " must be multiples of the pattern length ",
                      unsigned(patternLength));
  // A pattern with bits above its length is almost always a caller bug.
  if (patternLength < 4 && (pattern >> (8 * patternLength)) != 0)
    return KILN_ERROR(InvalidArgument, "fill: pattern 0x", std::hex, pattern,
                      std::dec, " does not fit in ", unsigned(patternLength),
                      " byte(s)");
  KILN_RETURN_IF_ERROR(recordFill(resolved, pattern, patternLength));
  noteRequirement(resolved, BufferUsage::Transfer, true);
  commandAdded();
  return Status();
}

Status CommandBuffer::copy(const BufferRef &source, const BufferRef &target) {
  KILN_RETURN_IF_ERROR(checkRecording("copy"));
  KILN_ASSIGN_OR_RETURN(BufferRef from, checkRef(source, BufferUsage::Transfer,
                                                 false, "copy source"));
  KILN_ASSIGN_OR_RETURN(BufferRef to, checkRef(target, BufferUsage::Transfer,
                                               true, "copy target"));
  if (from.Length != to.Length)
    return KILN_ERROR(InvalidArgument, "copy: source length ", from.Length,
                      " differs from target length ", to.Length);
  bool sameBuffer =
      from.isIndirect() == to.isIndirect() &&
      (from.isIndirect() ? from.Slot == to.Slot : from.Direct == to.Direct);
  if (sameBuffer && from.Length != 0 && from.Offset < to.Offset + to.Length &&
      to.Offset < from.Offset + from.Length)
    return KILN_ERROR(InvalidArgument, "copy: source [", from.Offset, ", +",
                      from.Length, ") overlaps target [", to.Offset, ", +",
                      to.Length, ")");
  KILN_RETURN_IF_ERROR(recordCopy(from, to));
  noteRequirement(from, BufferUsage::Transfer, false);
  noteRequirement(to, BufferUsage::Transfer, true);
  commandAdded();
  return Status();
}

Status CommandBuffer::dispatch(const std::shared_ptr<Executable> &executable,
                               uint32_t entryPoint,
                               const std::array<uint32_t, 3> &workgroupCount,
                               std::span<const BufferRef> bindings,
                               std::span<const uint32_t> pushConstants) {
  KILN_RETURN_IF_ERROR(checkRecording("dispatch"));
  if (!executable)
    return KILN_ERROR(InvalidArgument, "dispatch: null executable");
  const std::vector<EntryPointSpec> &entries = executable->entryPoints();
  if (entryPoint >= entries.size())
    return KILN_ERROR(OutOfRange, "dispatch: entry point ", entryPoint,
                      " of executable '", executable->name(), "' which has ",
                      entries.size());
  const EntryPointSpec &entry = entries[entryPoint];
  if (bindings.size() != entry.BindingCount)
    return KILN_ERROR(
        InvalidArgument, "dispatch of '", entry.Name, "': ", bindings.size(),
        " bindings given, entry point takes ", entry.BindingCount);
  if (pushConstants.size() != entry.PushConstantCount)
    return KILN_ERROR(InvalidArgument, "dispatch of '", entry.Name,
                      "': ", pushConstants.size(),
                      " push constants given, entry point takes ",
                      entry.PushConstantCount);
  uint64_t total = 1;
  for (uint32_t count : workgroupCount)
    if (__builtin_mul_overflow(total, uint64_t(count), &total))
      return KILN_ERROR(InvalidArgument, "dispatch of '", entry.Name,
                        "': workgroup count overflows");
  std::vector<BufferRef> resolved;
  resolved.reserve(bindings.size());
  for (size_t i = 0; i < bindings.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(
        BufferRef ref,
        checkRef(bindings[i], BufferUsage::Dispatch, false,
                 strCat("dispatch of '", entry.Name, "' binding ", i)));
    resolved.push_back(std::move(ref));
  }
  KILN_RETURN_IF_ERROR(recordDispatch(executable, entryPoint, workgroupCount,
                                      resolved, pushConstants));
  for (const BufferRef &ref : resolved)
    noteRequirement(ref, BufferUsage::Dispatch, false);
  commandAdded();
  return Status();
}

Status CommandBuffer::dependOn(std::span<const uint32_t> commands) {
  KILN_RETURN_IF_ERROR(checkRecording("dependOn"));
  for (uint32_t command : commands)
    if (command >= CommandCount)
      return KILN_ERROR(OutOfRange, "dependOn: command ", command,
                        " is not recorded yet (", CommandCount,
                        " commands so far); a command can only wait for "
                        "earlier ones");
  PendingDependencies.assign(commands.begin(), commands.end());
  std::sort(PendingDependencies.begin(), PendingDependencies.end());
  PendingDependencies.erase(
      std::unique(PendingDependencies.begin(), PendingDependencies.end()),
      PendingDependencies.end());
  return Status();
}

Status CommandBuffer::executionBarrier() {
  KILN_RETURN_IF_ERROR(checkRecording("executionBarrier"));
  return recordExecutionBarrier();
}

Status CommandBuffer::signalEvent(const std::shared_ptr<Event> &event) {
  KILN_RETURN_IF_ERROR(checkRecording("signalEvent"));
  if (!event)
    return KILN_ERROR(InvalidArgument, "signalEvent: null event");
  if (std::find(SignalledEvents.begin(), SignalledEvents.end(), event.get()) !=
      SignalledEvents.end())
    return KILN_ERROR(FailedPrecondition,
                      "signalEvent: event already signalled in this command "
                      "buffer");
  KILN_RETURN_IF_ERROR(recordSignalEvent(event));
  SignalledEvents.push_back(event.get());
  return Status();
}

Status CommandBuffer::waitEvent(const std::shared_ptr<Event> &event) {
  KILN_RETURN_IF_ERROR(checkRecording("waitEvent"));
  if (!event)
    return KILN_ERROR(InvalidArgument, "waitEvent: null event");
  if (std::find(SignalledEvents.begin(), SignalledEvents.end(), event.get()) ==
      SignalledEvents.end())
    return KILN_ERROR(FailedPrecondition,
                      "waitEvent: event not signalled earlier in this command "
                      "buffer");
  return recordWaitEvent(event);
}

Status CommandBuffer::end() {
  KILN_RETURN_IF_ERROR(checkRecording("end"));
  if (!PendingDependencies.empty())
    return KILN_ERROR(FailedPrecondition,
                      "command buffer end: dependOn() named dependencies "
                      "but no command followed them");
  KILN_RETURN_IF_ERROR(recordEnd());
  CurrentState = State::Executable;
  return Status();
}

Status CommandBuffer::validateBindingTable(
    std::span<const std::shared_ptr<Buffer>> table) const {
  if (table.size() > BindingCapacity)
    return KILN_ERROR(InvalidArgument, "binding table has ", table.size(),
                      " entries; the command buffer's capacity is ",
                      BindingCapacity);
  for (size_t slot = 0; slot < Requirements.size(); ++slot) {
    const BindingRequirement &requirement = Requirements[slot];
    if (!requirement.Used)
      continue;
    if (slot >= table.size() || !table[slot])
      return KILN_ERROR(InvalidArgument, "binding slot ", slot,
                        " is used by the command buffer but the binding "
                        "table has no buffer there");
    const Buffer &buffer = *table[slot];
    if (buffer.size() < requirement.MinimumSize)
      return KILN_ERROR(OutOfRange, "binding slot ", slot, " holds a ",
                        buffer.size(), "-byte buffer; the command buffer uses ",
                        requirement.MinimumSize, " bytes of it");
    if (!hasAll(buffer.usage(), requirement.Usage))
      return KILN_ERROR(InvalidArgument, "binding slot ", slot,
                        ": buffer usage ", bufferUsageString(buffer.usage()),
                        " lacks ", bufferUsageString(requirement.Usage));
    if (requirement.Written && buffer.isReadOnly())
      return KILN_ERROR(PermissionDenied, "binding slot ", slot,
                        " is written by the command buffer but holds a "
                        "read-only buffer");
  }
  return Status();
}

Status CommandBuffer::markSubmitted() {
  if (CurrentState != State::Executable)
    return KILN_ERROR(FailedPrecondition,
                      "cannot submit a command buffer before end()");
  if (Submitted.exchange(true) && Mode == CommandBufferMode::OneShot)
    return KILN_ERROR(FailedPrecondition,
                      "a one-shot command buffer was submitted twice");
  return Status();
}

} // namespace kiln::hal
