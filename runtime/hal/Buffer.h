//===- Buffer.h - A range of device or host memory ------------------------===//
#ifndef KILN_RUNTIME_HAL_BUFFER_H
#define KILN_RUNTIME_HAL_BUFFER_H

#include "runtime/base/Status.h"
#include "runtime/hal/MemoryType.h"

#include <cstdint>
#include <span>

namespace kiln::hal {

class Buffer {
public:
  virtual ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;

  uint64_t size() const { return Size; }
  MemoryType memoryType() const { return Type; }
  BufferUsage usage() const { return Usage; }
  /// Imported memory (a module's constants) is never written by transfers
  /// and cannot be mapped for writing.
  bool isReadOnly() const { return ReadOnly; }

  /// The whole buffer for host reads and writes. Needs HostVisible memory,
  /// BufferUsage::Mapping and a writable buffer. The mapping stays valid for
  /// the buffer's lifetime; the host must not touch it while submitted work
  /// that uses the buffer is in flight.
  StatusOr<std::span<uint8_t>> map();
  /// Like map() but read-only, so it also works on read-only buffers.
  StatusOr<std::span<const uint8_t>> mapRead();

protected:
  Buffer(uint64_t size, MemoryType type, BufferUsage usage, bool readOnly)
      : Size(size), Type(type), Usage(usage), ReadOnly(readOnly) {}

  /// Host address of the first byte; called only when mapping is allowed.
  virtual StatusOr<uint8_t *> mapImpl() = 0;

private:
  Status checkMappable() const;

  uint64_t Size;
  MemoryType Type;
  BufferUsage Usage;
  bool ReadOnly;
};

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_BUFFER_H
