//===- GpuCommandBuffer.h - What both kinds of GPU command buffer record --===//
//
// A GPU command buffer keeps its commands as recorded (ranges are direct
// device addresses or binding-table slots, resolved at submission) and runs
// them in one of two ways:
//   graph  (GpuGraphCommandBuffer, the default): a GPU graph whose edges
//          are exactly the ordering barriers, events and dependOn ask for,
//          built and instantiated at the first submission and relaunched
//          after;
//   stream (GpuStreamCommandBuffer): every command issued into the queue's
//          stream at each submission, one after another.
// The kind is chosen per device, by its URI: `command_buffers=graph|stream`
// (GpuDeviceOptions).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPUCOMMANDBUFFER_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPUCOMMANDBUFFER_H

#include "runtime/hal/CommandBuffer.h"
#include "runtime/hal/drivers/gpu/GpuExecutable.h"

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

namespace kiln::hal::gpu {

enum class GpuCommandBufferKind { Graph, Stream };

/// "graph" or "stream"; anything else is InvalidArgument naming `origin`
/// (where the text came from) and the valid values.
StatusOr<GpuCommandBufferKind>
parseGpuCommandBufferKind(std::string_view text, std::string_view origin);
std::string_view gpuCommandBufferKindName(GpuCommandBufferKind kind);

class GpuCommandBuffer : public CommandBuffer {
public:
  GpuCommandBufferKind kind() const { return Kind; }

  /// Runs the recorded commands on `stream`, the stream of the queue it was
  /// submitted to, with the context current (submissions to one queue reach
  /// this one at a time, in order; two queues may call it at once).
  /// `slotAddresses[i]` is binding-table slot i's device address. Returns
  /// once the work is queued on the stream.
  virtual Status execute(GpuStreamHandle stream,
                         std::span<const uint64_t> slotAddresses) = 0;

protected:
  // A validated range: Base is set for direct refs, else Slot names the
  // binding-table entry.
  struct Range {
    uint64_t Base;
    uint32_t Slot;
    uint64_t Offset;
    uint64_t Length;
    bool isIndirect() const { return Base == 0; }
    uint64_t resolve(std::span<const uint64_t> slotAddresses) const {
      return (Base ? Base : slotAddresses[Slot]) + Offset;
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
    GpuFunctionHandle Function;
    std::array<uint32_t, 3> Grid;
    std::array<uint32_t, 3> Block;
    uint32_t SharedMemoryBytes;
    std::vector<Range> Bindings;
    std::vector<uint32_t> PushConstants;
  };
  using Command = std::variant<FillCommand, CopyCommand, DispatchCommand>;

  GpuCommandBuffer(GpuCommandBufferKind kind, CommandBufferMode mode,
                   uint32_t bindingCapacity, std::shared_ptr<GpuApi> api,
                   const GpuDeviceLimits &limits)
      : CommandBuffer(mode, bindingCapacity), Kind(kind), Api(std::move(api)),
        Limits(limits) {}

  /// Called once `Commands.back()` is recorded: graph mode places it in
  /// the graph.
  virtual void commandRecorded() {}

  /// Whether running `command` does nothing (no bytes, no workgroups): GPU
  /// graphs refuse such copy, fill and kernel nodes, and a stream needs no
  /// call for them.
  static bool doesNothing(const Command &command);

  /// A dispatch's kernel parameters: one device address per binding, then
  /// one 32-bit value per push constant. `pointers()` is valid as long as
  /// this object is and is not moved.
  class KernelArguments {
  public:
    KernelArguments(const DispatchCommand &dispatch,
                    std::span<const uint64_t> slotAddresses);
    void **pointers() { return Pointers.data(); }

  private:
    std::vector<uint64_t> Addresses;
    std::vector<uint32_t> PushConstants;
    std::vector<void *> Pointers;
  };

  /// `command` with `slotAddresses` resolved, for a stream or a graph node;
  /// a dispatch's parameters point into `arguments`, which must outlive
  /// its use.
  static GpuOperation operation(const Command &command,
                                std::span<const uint64_t> slotAddresses,
                                std::optional<KernelArguments> &arguments);

  GpuApi &api() const { return *Api; }
  /// Checks that `event` is a GPU event and keeps it alive with the
  /// recording.
  Status keepEvent(const std::shared_ptr<Event> &event);

  std::vector<Command> Commands;

private:
  Status recordFill(const BufferRef &target, uint32_t pattern,
                    uint8_t patternLength) final;
  Status recordCopy(const BufferRef &source, const BufferRef &target) final;
  Status recordDispatch(const std::shared_ptr<Executable> &executable,
                        uint32_t entryPoint,
                        const std::array<uint32_t, 3> &workgroupCount,
                        std::span<const BufferRef> bindings,
                        std::span<const uint32_t> pushConstants) final;

  StatusOr<Range> toRange(const BufferRef &ref);

  GpuCommandBufferKind Kind;
  // Outlives whatever a subclass creates in it (graphs are destroyed with
  // the context current).
  std::shared_ptr<GpuApi> Api;
  GpuDeviceLimits Limits;
  // What the commands point into or run, kept alive with the recording.
  std::vector<std::shared_ptr<Buffer>> Buffers;
  std::vector<std::shared_ptr<Event>> Events;
  std::vector<std::shared_ptr<Executable>> Executables;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUCOMMANDBUFFER_H
