//===- LocalCommandBuffer.h - Recorded commands replayed on the host ------===//
//
// Every command gets a level when it is recorded, and execute() runs the
// levels in ascending order, the commands of one level as one group with
// no order among them. A command's level is one more than the highest
// level of the commands dependOn() named for it, and at least its region's
// base: a barrier (or a waitEvent, which is conservatively a barrier)
// starts a region whose base is one more than every level given so far.
// So whatever a command must wait for is in an earlier level, while
// commands that nothing orders share a level and run at once: two chains
// that only dependOn links advance side by side, a level per step.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALCOMMANDBUFFER_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALCOMMANDBUFFER_H

#include "runtime/hal/CommandBuffer.h"
#include "runtime/hal/drivers/local/CpuAbi.h"

#include <array>
#include <memory>
#include <span>
#include <variant>
#include <vector>

namespace kiln::hal::local {

class TaskPool;

class LocalCommandBuffer final : public CommandBuffer {
public:
  LocalCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity)
      : CommandBuffer(mode, bindingCapacity) {}

  /// Runs the commands, level by level; `slotBases[i]` is the first byte of
  /// binding-table slot i (every ref was validated when recorded or
  /// submitted). With a pool, the workgroups of all dispatches of a level
  /// are spread over its workers; without one everything runs on this
  /// thread.
  void execute(std::span<uint8_t *const> slotBases, TaskPool *pool) const;

  /// The level command `command` (numbered as commandCount() numbers them)
  /// runs at; tests check the schedule through it.
  uint32_t level(uint32_t command) const { return Levels[command]; }

protected:
  Status recordFill(const BufferRef &target, uint32_t pattern,
                    uint8_t patternLength) override;
  Status recordCopy(const BufferRef &source, const BufferRef &target) override;
  Status recordDispatch(const std::shared_ptr<Executable> &executable,
                        uint32_t entryPoint,
                        const std::array<uint32_t, 3> &workgroupCount,
                        std::span<const BufferRef> bindings,
                        std::span<const uint32_t> pushConstants) override;
  Status recordExecutionBarrier() override;
  Status recordSignalEvent(const std::shared_ptr<Event> &event) override;
  Status recordWaitEvent(const std::shared_ptr<Event> &event) override;
  Status recordEnd() override;

private:
  // A validated range: Base is set for direct refs, else Slot names the
  // binding-table entry.
  struct Range {
    uint8_t *Base;
    uint32_t Slot;
    uint64_t Offset;
    uint64_t Length;
    uint8_t *resolve(std::span<uint8_t *const> slotBases) const {
      return (Base ? Base : slotBases[Slot]) + Offset;
    }
  };
  struct FillCommand {
    Range Target;
    uint32_t Pattern;
    uint8_t PatternLength;
  };
  struct CopyCommand {
    Range Source;
    Range Target;
  };
  struct DispatchCommand {
    KilnCpuEntryPoint Function;
    std::array<uint32_t, 3> Grid;
    uint64_t WorkgroupTotal;
    std::vector<Range> Bindings;
    std::vector<uint32_t> PushConstants;
  };
  using Command = std::variant<FillCommand, CopyCommand, DispatchCommand>;

  StatusOr<Range> toRange(const BufferRef &ref);
  // Appends the command being recorded, at its level.
  void addCommand(Command command);
  // Ends the current region: later commands go above every level so far.
  void startRegion() { RegionBase = LevelCount; }
  static void runFill(const FillCommand &fill,
                      std::span<uint8_t *const> slotBases);
  static void runCopy(const CopyCommand &copy,
                      std::span<uint8_t *const> slotBases);
  // Runs the commands of one level (indices into Commands).
  void runLevel(std::span<const uint32_t> commands,
                std::span<uint8_t *const> slotBases, TaskPool *pool) const;

  // Indexed by command number: the hooks add exactly one command each time
  // they succeed, which is when CommandBuffer numbers one.
  std::vector<Command> Commands;
  std::vector<uint32_t> Levels;
  // One more than the highest level so far (0 while nothing is recorded).
  uint32_t LevelCount = 0;
  // The lowest level the current region's commands may get.
  uint32_t RegionBase = 0;
  // Built by recordEnd(): command numbers by level (in recording order
  // within one), and where each level starts in Schedule (LevelCount + 1
  // entries).
  std::vector<uint32_t> Schedule;
  std::vector<size_t> LevelStarts;
  // What the commands point into, kept alive with the recording.
  std::vector<std::shared_ptr<Buffer>> Buffers;
  std::vector<std::shared_ptr<Executable>> Executables;
  std::vector<std::shared_ptr<Event>> Events;
};

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALCOMMANDBUFFER_H
