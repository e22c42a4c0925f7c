//===- CudaCommandBuffer.h - Stream mode: commands issued at submission ---===//
//
// Commands are kept as recorded and issued, in order, into the queue's
// stream when submitted (dispatches as cuLaunchKernel with the bindings'
// device addresses as kernel parameters). One stream runs them one after
// another, so barriers and events need no CUDA work.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDACOMMANDBUFFER_H
#define KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDACOMMANDBUFFER_H

#include "runtime/hal/CommandBuffer.h"
#include "runtime/hal/drivers/cuda/CudaExecutable.h"

#include <array>
#include <memory>
#include <span>
#include <variant>
#include <vector>

namespace kiln::hal::cuda {

class CudaCommandBuffer final : public CommandBuffer {
public:
  CudaCommandBuffer(CommandBufferMode mode, uint32_t bindingCapacity,
                    const CudaDeviceLimits &limits)
      : CommandBuffer(mode, bindingCapacity), Limits(limits) {}

  /// Issues every command into `stream` (the caller made its context
  /// current); `slotAddresses[i]` is binding-table slot i's device address.
  Status issue(const CudaSymbols &symbols, CUstream stream,
               std::span<const CUdeviceptr> slotAddresses) const;

protected:
  Status recordFill(const BufferRef &target, uint32_t pattern,
                    uint8_t patternLength) override;
  Status recordCopy(const BufferRef &source, const BufferRef &target) override;
  Status recordDispatch(const std::shared_ptr<Executable> &executable,
                        uint32_t entryPoint,
                        const std::array<uint32_t, 3> &workgroupCount,
                        std::span<const BufferRef> bindings,
                        std::span<const uint32_t> pushConstants) override;
  Status recordExecutionBarrier() override { return Status(); }
  Status recordSignalEvent(const std::shared_ptr<Event> &event) override;
  Status recordWaitEvent(const std::shared_ptr<Event> &event) override;

private:
  // A validated range: Base is set for direct refs, else Slot names the
  // binding-table entry.
  struct Range {
    CUdeviceptr Base;
    uint32_t Slot;
    uint64_t Offset;
    uint64_t Length;
    CUdeviceptr resolve(std::span<const CUdeviceptr> slotAddresses) const {
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
    CUfunction Function;
    std::array<uint32_t, 3> Grid;
    std::array<uint32_t, 3> Block;
    uint32_t SharedMemoryBytes;
    std::vector<Range> Bindings;
    std::vector<uint32_t> PushConstants;
  };
  using Command = std::variant<FillCommand, CopyCommand, DispatchCommand>;

  StatusOr<Range> toRange(const BufferRef &ref);
  Status checkEvent(const std::shared_ptr<Event> &event);

  Status issueDispatch(const CudaSymbols &symbols, CUstream stream,
                       std::span<const CUdeviceptr> slotAddresses,
                       const DispatchCommand &dispatch) const;

  CudaDeviceLimits Limits;
  std::vector<Command> Commands;
  // What the commands point into or run, kept alive with the recording.
  std::vector<std::shared_ptr<Buffer>> Buffers;
  std::vector<std::shared_ptr<Event>> Events;
  std::vector<std::shared_ptr<Executable>> Executables;
};

} // namespace kiln::hal::cuda

#endif // KILN_RUNTIME_HAL_DRIVERS_CUDA_CUDACOMMANDBUFFER_H
