//===- GpuCommandBuffer.h - What both kinds of GPU command buffer record --===//
//
// A GPU command buffer keeps its commands as recorded (GpuRecording) and
// runs them through GpuApi in one of two ways:
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

#include "runtime/hal/drivers/gpu/GpuExecutable.h"
#include "runtime/hal/drivers/gpu/GpuRecording.h"

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

class GpuCommandBuffer : public GpuRecording {
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
  GpuCommandBuffer(GpuCommandBufferKind kind, CommandBufferMode mode,
                   uint32_t bindingCapacity, std::shared_ptr<GpuApi> api,
                   const GpuDeviceLimits &limits)
      : GpuRecording(mode, bindingCapacity, std::string(api->name()),
                     limits.MaxGridDim),
        Kind(kind), Api(std::move(api)) {}

  /// A GpuExecutable's function.
  StatusOr<GpuFunctionHandle> kernelFunction(const Executable &executable,
                                             uint32_t entryPoint) final;

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

private:
  GpuCommandBufferKind Kind;
  // Outlives whatever a subclass creates in it (graphs are destroyed with
  // the context current).
  std::shared_ptr<GpuApi> Api;
};

} // namespace kiln::hal::gpu

#endif // KILN_RUNTIME_HAL_DRIVERS_GPU_GPUCOMMANDBUFFER_H
