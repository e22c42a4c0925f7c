//===- LocalAllocator.h - Buffers for the local drivers -------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALALLOCATOR_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALALLOCATOR_H

#include "runtime/hal/Allocator.h"

namespace kiln::hal::local {

class LocalAllocator final : public Allocator {
public:
  /// `unified` (the default) lets memory be DeviceLocal and HostVisible at
  /// once, as it is on a CPU. Without it the allocator behaves like a
  /// discrete GPU's: one type per buffer and imports are copies, so code
  /// paths written for GPUs can be tested on any machine.
  explicit LocalAllocator(bool unified) : Unified(unified) {}

  bool isUnified() const { return Unified; }
  bool supportsMemoryType(MemoryType type) const override;

protected:
  StatusOr<std::shared_ptr<Buffer>> allocateImpl(uint64_t size, MemoryType type,
                                                 BufferUsage usage) override;
  StatusOr<std::shared_ptr<Buffer>>
  importHostMemoryImpl(std::span<const uint8_t> data, BufferUsage usage,
                       std::shared_ptr<const void> keepAlive) override;

private:
  bool Unified;
};

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALALLOCATOR_H
