//===- GpuRecording.h - The commands every GPU command buffer records -----===//
//
// Fills, copies and dispatches kept as recorded, over 64-bit device
// addresses: a range is a buffer's address or a binding-table slot,
// resolved at submission. What runs them differs by driver (a CUDA or HIP
// graph or stream through GpuApi, AQL packets for amdgpu), so this knows
// no vendor call: only the vendor's name for messages, the grid limit,
// and, per driver, which executables it dispatches (kernelFunction).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_GPU_GPURECORDING_H
#define KILN_RUNTIME_HAL_DRIVERS_GPU_GPURECORDING_H

#include "runtime/hal/CommandBuffer.h"
#include "runtime/hal/drivers/gpu/GpuApi.h"

#include <array>
#include <memory>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace kiln::hal::gpu {

class GpuRecording : public CommandBuffer {
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
    /// kernelFunction's answer; drivers without function handles look the
    /// kernel up by executable and entry point instead.
    GpuFunctionHandle Function;
    const Executable *Source;
    uint32_t EntryPoint;
    std::array<uint32_t, 3> Grid;
    std::array<uint32_t, 3> Block;
    uint32_t SharedMemoryBytes;
    std::vector<Range> Bindings;
    std::vector<uint32_t> PushConstants;
    /// The entry point's kernel waits for its prerequisites itself
    /// (EntryPointSpec::WaitsForPrerequisites).
    bool WaitsForPrerequisites = false;
  };
  using Command = std::variant<FillCommand, CopyCommand, DispatchCommand>;

  /// `vendor` ("CUDA") names the driver in messages; `maxGrid` bounds a
  /// dispatch's workgroups per dimension.
  GpuRecording(CommandBufferMode mode, uint32_t bindingCapacity,
               std::string vendor, const std::array<uint64_t, 3> &maxGrid)
      : CommandBuffer(mode, bindingCapacity), Vendor(std::move(vendor)),
        MaxGrid(maxGrid) {}

  /// The function `executable`'s `entryPoint` runs as, or InvalidArgument
  /// when this driver's devices did not create the executable.
  virtual StatusOr<GpuFunctionHandle>
  kernelFunction(const Executable &executable, uint32_t entryPoint) = 0;

  /// Called once `Commands.back()` is recorded: graph mode places it in
  /// the graph.
  virtual void commandRecorded() {}

  // Where commands run one after another in recording order (a stream, an
  // AQL queue whose packets all have the barrier bit), barriers and events
  // need no work: everything before them is done already. Graph mode turns
  // them into edges instead.
  Status recordExecutionBarrier() override { return Status(); }
  Status recordSignalEvent(const std::shared_ptr<Event> &event) override {
    return keepEvent(event);
  }
  Status recordWaitEvent(const std::shared_ptr<Event> &event) override {
    return keepEvent(event);
  }

  /// Whether running `command` does nothing (no bytes, no workgroups): GPU
  /// graphs refuse such copy, fill and kernel nodes, and a queue needs no
  /// work for them.
  static bool doesNothing(const Command &command);

  /// Checks that `event` is a GPU event and keeps it alive with the
  /// recording.
  Status keepEvent(const std::shared_ptr<Event> &event);

  const std::string &vendor() const { return Vendor; }

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

  std::string Vendor;
  std::array<uint64_t, 3> MaxGrid;
  // What the commands point into or run, kept alive with the recording.
  std::vector<std::shared_ptr<Buffer>> Buffers;
  std::vector<std::shared_ptr<Event>> Events;
  std::vector<std::shared_ptr<Executable>> Executables;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPURECORDING_H
