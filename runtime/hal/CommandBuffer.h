//===- CommandBuffer.h - Recorded device work -----------------------------===//
//
// Commands are recorded between begin() and end() and run when the buffer is
// submitted with Device::queueExecute. Every argument is checked when it is
// recorded (and indirect refs again, per slot, when submitted), so a bad
// range is an OutOfRange error and never a device-side overrun.
//
// Execution order: commands between two barriers may run in any order or at
// once; executionBarrier() makes everything after it wait for everything
// before it; signalEvent/waitEvent order two groups of commands only;
// dependOn() makes one command wait for exactly the earlier commands it
// names. Barriers and events always order a whole prefix of the recording,
// so only dependOn can say that two chains of work are independent.
//
// Recording is not thread-safe; a recorded buffer may be submitted from any
// thread.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_COMMANDBUFFER_H
#define KILN_RUNTIME_HAL_COMMANDBUFFER_H

#include "runtime/base/Status.h"
#include "runtime/hal/Buffer.h"
#include "runtime/hal/BufferRef.h"
#include "runtime/hal/Event.h"
#include "runtime/hal/Executable.h"
#include "runtime/hal/QueueAffinity.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace kiln::hal {

enum class CommandBufferMode {
  OneShot,  // submitted once
  Reusable, // submitted any number of times, with new binding tables
};

/// What binding-table slot i must hold at submission, gathered while
/// recording so a submission checks slots, not commands.
struct BindingRequirement {
  bool Used = false;
  uint64_t MinimumSize = 0;
  BufferUsage Usage = BufferUsage::None;
  bool Written = false; // a fill or copy target
};

class CommandBuffer {
public:
  enum class State { Initial, Recording, Executable };

  virtual ~CommandBuffer();
  CommandBuffer(const CommandBuffer &) = delete;
  CommandBuffer &operator=(const CommandBuffer &) = delete;

  CommandBufferMode mode() const { return Mode; }
  uint32_t bindingCapacity() const { return BindingCapacity; }
  /// The device queues this buffer may be submitted to (set by
  /// Device::createCommandBuffer). A submission runs the whole buffer on
  /// one queue, so events and barriers order commands within that queue.
  QueueAffinity queueAffinity() const { return Affinity; }
  State state() const { return CurrentState; }

  Status begin();
  /// Fills the range with `pattern`'s low `patternLength` bytes (1, 2 or 4)
  /// repeated, in memory order (little-endian). Offset and length must be
  /// multiples of `patternLength`.
  Status fill(const BufferRef &target, uint32_t pattern, uint8_t patternLength);
  /// Copies between two ranges of equal length that do not overlap.
  Status copy(const BufferRef &source, const BufferRef &target);
  /// Runs every workgroup of `workgroupCount` (x, y, z; any zero means no
  /// work) of entry point `entryPoint`. Binding and push constant counts must
  /// match the entry point.
  Status dispatch(const std::shared_ptr<Executable> &executable,
                  uint32_t entryPoint,
                  const std::array<uint32_t, 3> &workgroupCount,
                  std::span<const BufferRef> bindings,
                  std::span<const uint32_t> pushConstants);
  /// Commands (fills, copies and dispatches, including ones that do no
  /// work) are numbered from 0 in recording order; this is the number the
  /// next one gets.
  uint32_t commandCount() const { return CommandCount; }
  /// The next fill, copy or dispatch also waits for the listed earlier
  /// commands (and for nothing else that barriers and events do not ask
  /// for). Replaces a list given earlier for the same command; an empty
  /// list clears it. A list no command follows is an error at end().
  Status dependOn(std::span<const uint32_t> commands);
  Status executionBarrier();
  Status signalEvent(const std::shared_ptr<Event> &event);
  /// `event` must have been signalled earlier in this command buffer.
  Status waitEvent(const std::shared_ptr<Event> &event);
  Status end();

  const std::vector<BindingRequirement> &bindingRequirements() const {
    return Requirements;
  }
  /// Checks a binding table against bindingRequirements(): every used slot
  /// holds a buffer that is large enough, has the needed usage and is
  /// writable where written.
  Status
  validateBindingTable(std::span<const std::shared_ptr<Buffer>> table) const;

  /// For Device::queueExecute: the buffer is executable and, if one-shot,
  /// not submitted before.
  Status markSubmitted();

protected:
  CommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity)
      : Mode(mode), BindingCapacity(bindingCapacity) {}

  // Driver hooks, called after validation. Direct refs arrive with
  // kWholeBuffer resolved to a length.
  virtual Status recordFill(const BufferRef &target, uint32_t pattern,
                            uint8_t patternLength) = 0;
  virtual Status recordCopy(const BufferRef &source,
                            const BufferRef &target) = 0;
  virtual Status recordDispatch(const std::shared_ptr<Executable> &executable,
                                uint32_t entryPoint,
                                const std::array<uint32_t, 3> &workgroupCount,
                                std::span<const BufferRef> bindings,
                                std::span<const uint32_t> pushConstants) = 0;
  virtual Status recordExecutionBarrier() = 0;
  virtual Status recordSignalEvent(const std::shared_ptr<Event> &event) = 0;
  virtual Status recordWaitEvent(const std::shared_ptr<Event> &event) = 0;
  virtual Status recordEnd() { return Status(); }

  /// For recordFill/recordCopy/recordDispatch: the earlier commands that
  /// dependOn() named for the command being recorded, ascending and
  /// distinct. Drivers that run commands in recording order may ignore it.
  std::span<const uint32_t> commandDependencies() const {
    return PendingDependencies;
  }

private:
  friend class Device; // sets Affinity

  Status checkRecording(std::string_view command) const;
  // Validates `ref` and resolves a direct whole-buffer length.
  StatusOr<BufferRef> checkRef(const BufferRef &ref, BufferUsage usage,
                               bool written, std::string_view what) const;
  // Records what an indirect ref needs of its slot, once its command is in.
  void noteRequirement(const BufferRef &ref, BufferUsage usage, bool written);
  // After a command's driver hook succeeded: numbers it and consumes its
  // dependencies.
  void commandAdded();

  CommandBufferMode Mode;
  uint32_t BindingCapacity;
  QueueAffinity Affinity = kAnyQueue;
  State CurrentState = State::Initial;
  std::atomic<bool> Submitted{false};
  std::vector<BindingRequirement> Requirements;
  std::vector<const Event *> SignalledEvents;
  uint32_t CommandCount = 0;
  std::vector<uint32_t> PendingDependencies;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_COMMANDBUFFER_H
