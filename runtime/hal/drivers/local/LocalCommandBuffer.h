//===- LocalCommandBuffer.h - Recorded commands replayed on the host ------===//
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

  /// Runs the commands; `slotBases[i]` is the first byte of binding-table
  /// slot i (every ref was validated when recorded or submitted). With a
  /// pool, the workgroups of all dispatches between two barriers are spread
  /// over its workers; without one everything runs on this thread.
  void execute(std::span<uint8_t *const> slotBases, TaskPool *pool) const;

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
  struct BarrierCommand {};
  using Command =
      std::variant<FillCommand, CopyCommand, DispatchCommand, BarrierCommand>;

  StatusOr<Range> toRange(const BufferRef &ref);
  static void runFill(const FillCommand &fill,
                      std::span<uint8_t *const> slotBases);
  static void runCopy(const CopyCommand &copy,
                      std::span<uint8_t *const> slotBases);
  // Runs commands [begin, end), which contain no barrier.
  void runGroup(size_t begin, size_t end, std::span<uint8_t *const> slotBases,
                TaskPool *pool) const;

  std::vector<Command> Commands;
  // What the commands point into, kept alive with the recording.
  std::vector<std::shared_ptr<Buffer>> Buffers;
  std::vector<std::shared_ptr<Executable>> Executables;
  std::vector<std::shared_ptr<Event>> Events;
};

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALCOMMANDBUFFER_H
