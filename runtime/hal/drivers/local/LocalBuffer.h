//===- LocalBuffer.h - Host memory as device memory -----------------------===//
#ifndef KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALBUFFER_H
#define KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALBUFFER_H

#include "runtime/hal/Buffer.h"

#include <cstddef>
#include <functional>
#include <memory>

namespace kiln::hal::local {

class LocalBuffer final : public Buffer {
public:
  /// Allocated memory is at least this aligned, so kernels may assume it.
  static constexpr size_t kAlignment = 64;

  /// New memory; ResourceExhausted when the host cannot provide it.
  static StatusOr<std::shared_ptr<LocalBuffer>>
  allocate(uint64_t size, MemoryType type, BufferUsage usage);

  /// Wraps memory owned elsewhere; `keepAlive` is held until destruction.
  static std::shared_ptr<LocalBuffer>
  wrap(const uint8_t *data, uint64_t size, MemoryType type, BufferUsage usage,
       std::shared_ptr<const void> keepAlive);

  ~LocalBuffer() override;

  /// The first byte, for the executor.
  uint8_t *data() const { return Data; }

protected:
  StatusOr<uint8_t *> mapImpl() override { return Data; }

private:
  enum class Storage { Heap, Mapped, Wrapped };

  LocalBuffer(uint8_t *data, uint64_t size, MemoryType type, BufferUsage usage,
              bool readOnly, Storage storage, size_t mappedBytes,
              std::shared_ptr<const void> keepAlive)
      : Buffer(size, type, usage, readOnly), Data(data), Kind(storage),
        MappedBytes(mappedBytes), KeepAlive(std::move(keepAlive)) {}

  uint8_t *Data;
  Storage Kind;
  size_t MappedBytes;
  std::shared_ptr<const void> KeepAlive;
};

} // namespace kiln::hal::local

#endif // KILN_RUNTIME_HAL_DRIVERS_LOCAL_LOCALBUFFER_H
