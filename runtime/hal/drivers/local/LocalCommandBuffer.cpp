//===- LocalCommandBuffer.cpp ---------------------------------------------===//

#include "runtime/hal/drivers/local/LocalCommandBuffer.h"

#include "runtime/hal/drivers/local/LocalBuffer.h"
#include "runtime/hal/drivers/local/LocalEvent.h"
#include "runtime/hal/drivers/local/LocalExecutable.h"
#include "runtime/hal/drivers/local/TaskPool.h"

#include <algorithm>
#include <cstring>

namespace kiln::hal::local {

StatusOr<LocalCommandBuffer::Range>
LocalCommandBuffer::toRange(const BufferRef &ref) {
  if (ref.isIndirect())
    return Range{nullptr, ref.Slot, ref.Offset, ref.Length};
  auto *buffer = dynamic_cast<LocalBuffer *>(ref.Direct.get());
  if (!buffer)
    return KILN_ERROR(InvalidArgument,
                      "buffer was not allocated by a local device");
  Buffers.push_back(ref.Direct);
  return Range{buffer->data(), 0, ref.Offset, ref.Length};
}

void LocalCommandBuffer::addCommand(Command command) {
  uint32_t level = RegionBase;
  for (uint32_t dependency : commandDependencies())
    level = std::max(level, Levels[dependency] + 1);
  Commands.push_back(std::move(command));
  Levels.push_back(level);
  LevelCount = std::max(LevelCount, level + 1);
}

Status LocalCommandBuffer::recordFill(const BufferRef &target, uint32_t pattern,
                                      uint8_t patternLength) {
  KILN_ASSIGN_OR_RETURN(Range range, toRange(target));
  addCommand(FillCommand{range, pattern, patternLength});
  return Status();
}

Status LocalCommandBuffer::recordCopy(const BufferRef &source,
                                      const BufferRef &target) {
  KILN_ASSIGN_OR_RETURN(Range from, toRange(source));
  KILN_ASSIGN_OR_RETURN(Range to, toRange(target));
  addCommand(CopyCommand{from, to});
  return Status();
}

Status LocalCommandBuffer::recordDispatch(
    const std::shared_ptr<Executable> &executable, uint32_t entryPoint,
    const std::array<uint32_t, 3> &workgroupCount,
    std::span<const BufferRef> bindings,
    std::span<const uint32_t> pushConstants) {
  auto *local = dynamic_cast<LocalExecutable *>(executable.get());
  if (!local)
    return KILN_ERROR(InvalidArgument, "executable '", executable->name(),
                      "' was not created by a local device");
  DispatchCommand dispatch;
  dispatch.Function = local->function(entryPoint);
  dispatch.Grid = workgroupCount;
  // CommandBuffer::dispatch checked that the product fits.
  dispatch.WorkgroupTotal =
      uint64_t(workgroupCount[0]) * workgroupCount[1] * workgroupCount[2];
  for (const BufferRef &binding : bindings) {
    KILN_ASSIGN_OR_RETURN(Range range, toRange(binding));
    dispatch.Bindings.push_back(range);
  }
  dispatch.PushConstants.assign(pushConstants.begin(), pushConstants.end());
  Executables.push_back(executable);
  addCommand(std::move(dispatch));
  return Status();
}

Status LocalCommandBuffer::recordExecutionBarrier() {
  startRegion();
  return Status();
}

Status
LocalCommandBuffer::recordSignalEvent(const std::shared_ptr<Event> &event) {
  if (!dynamic_cast<LocalEvent *>(event.get()))
    return KILN_ERROR(InvalidArgument,
                      "event was not created by a local device");
  Events.push_back(event);
  return Status();
}

Status
LocalCommandBuffer::recordWaitEvent(const std::shared_ptr<Event> &event) {
  if (!dynamic_cast<LocalEvent *>(event.get()))
    return KILN_ERROR(InvalidArgument,
                      "event was not created by a local device");
  // Everything before the signal is before this point too, so a barrier
  // is a correct (if conservative) wait.
  startRegion();
  return Status();
}

Status LocalCommandBuffer::recordEnd() {
  // A counting sort by level, stable so a level keeps recording order.
  LevelStarts.assign(LevelCount + 1, 0);
  for (uint32_t level : Levels)
    ++LevelStarts[level + 1];
  for (uint32_t level = 0; level < LevelCount; ++level)
    LevelStarts[level + 1] += LevelStarts[level];
  Schedule.resize(Commands.size());
  std::vector<size_t> next(LevelStarts.begin(), LevelStarts.end() - 1);
  for (uint32_t command = 0; command < Commands.size(); ++command)
    Schedule[next[Levels[command]]++] = command;
  return Status();
}

void LocalCommandBuffer::runFill(const FillCommand &fill,
                                 std::span<uint8_t *const> slotBases) {
  if (fill.Target.Length == 0)
    return;
  uint8_t *target = fill.Target.resolve(slotBases);
  if (fill.PatternLength == 1) {
    std::memset(target, static_cast<int>(fill.Pattern), fill.Target.Length);
    return;
  }
  uint8_t bytes[4];
  for (int i = 0; i < 4; ++i)
    bytes[i] = static_cast<uint8_t>(fill.Pattern >> (8 * i));
  for (uint64_t offset = 0; offset < fill.Target.Length;
       offset += fill.PatternLength)
    std::memcpy(target + offset, bytes, fill.PatternLength);
}

void LocalCommandBuffer::runCopy(const CopyCommand &copy,
                                 std::span<uint8_t *const> slotBases) {
  if (copy.Source.Length == 0)
    return;
  // Two slots may hold the same buffer, so ranges may still overlap here.
  std::memmove(copy.Target.resolve(slotBases), copy.Source.resolve(slotBases),
               copy.Source.Length);
}

void LocalCommandBuffer::runLevel(std::span<const uint32_t> commands,
                                  std::span<uint8_t *const> slotBases,
                                  TaskPool *pool) const {
  struct Work {
    const DispatchCommand *Dispatch;
    std::vector<void *> Bindings;
    uint64_t First; // index of its first workgroup in the combined range
  };
  std::vector<Work> work;
  uint64_t total = 0;

  // Runs [first, last) of the combined workgroup range of `work`.
  auto runRange = [&](uint64_t first, uint64_t last) {
    auto it = std::upper_bound(
        work.begin(), work.end(), first,
        [](uint64_t index, const Work &item) { return index < item.First; });
    size_t item = static_cast<size_t>(it - work.begin()) - 1;
    for (uint64_t index = first; index < last; ++index) {
      while (index - work[item].First >= work[item].Dispatch->WorkgroupTotal)
        ++item;
      const DispatchCommand &dispatch = *work[item].Dispatch;
      uint64_t local = index - work[item].First;
      uint32_t x = static_cast<uint32_t>(local % dispatch.Grid[0]);
      uint64_t rest = local / dispatch.Grid[0];
      uint32_t y = static_cast<uint32_t>(rest % dispatch.Grid[1]);
      uint32_t z = static_cast<uint32_t>(rest / dispatch.Grid[1]);
      dispatch.Function(work[item].Bindings.data(),
                        dispatch.PushConstants.empty()
                            ? nullptr
                            : dispatch.PushConstants.data(),
                        x, y, z);
    }
  };
  auto flush = [&]() {
    if (total == 0)
      return;
    if (pool && pool->workerCount() > 1) {
      // Several chunks per worker balance uneven workgroups; one workgroup
      // per chunk when there are few.
      uint64_t grain = std::max<uint64_t>(1, total / (pool->workerCount() * 4));
      pool->parallelFor(total, grain, runRange);
    } else {
      runRange(0, total);
    }
    work.clear();
    total = 0;
  };

  // Fills and copies run here, one after another, as the loop meets them;
  // the dispatches are gathered and run together after them (some earlier
  // if the combined workgroup count would overflow). Both are orders the
  // recording allows: no command of a level is ordered against another
  // (whatever a command waits for is in an earlier level), so any order,
  // or overlap, of one level's commands is correct.
  for (uint32_t index : commands) {
    const Command &command = Commands[index];
    if (const auto *fill = std::get_if<FillCommand>(&command)) {
      runFill(*fill, slotBases);
    } else if (const auto *copy = std::get_if<CopyCommand>(&command)) {
      runCopy(*copy, slotBases);
    } else if (const auto *dispatch = std::get_if<DispatchCommand>(&command)) {
      if (dispatch->WorkgroupTotal == 0)
        continue;
      uint64_t newTotal;
      if (__builtin_add_overflow(total, dispatch->WorkgroupTotal, &newTotal)) {
        flush();
        newTotal = dispatch->WorkgroupTotal;
      }
      Work item{dispatch, {}, total};
      item.Bindings.reserve(dispatch->Bindings.size());
      for (const Range &range : dispatch->Bindings)
        item.Bindings.push_back(range.resolve(slotBases));
      work.push_back(std::move(item));
      total = newTotal;
    }
  }
  flush();
}

void LocalCommandBuffer::execute(std::span<uint8_t *const> slotBases,
                                 TaskPool *pool) const {
  std::span<const uint32_t> schedule = Schedule;
  for (uint32_t level = 0; level < LevelCount; ++level)
    runLevel(schedule.subspan(LevelStarts[level],
                              LevelStarts[level + 1] - LevelStarts[level]),
             slotBases, pool);
}

} // namespace kiln::hal::local
