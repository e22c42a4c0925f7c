//===- MemoryType.h - Where a buffer lives and what it may be used for ----===//
#ifndef KILN_RUNTIME_HAL_MEMORYTYPE_H
#define KILN_RUNTIME_HAL_MEMORYTYPE_H

#include <cstdint>
#include <string>

namespace kiln::hal {

/// Bit flags. DeviceLocal: fast for the device (cuMemAlloc). HostVisible:
/// the host can map it (cuMemHostAlloc). Both at once only where the device
/// reports feature::kHostVisibleDeviceLocal.
enum class MemoryType : uint32_t {
  None = 0,
  DeviceLocal = 1,
  HostVisible = 2,
};

/// Bit flags saying how a buffer will be used, checked when recorded.
enum class BufferUsage : uint32_t {
  None = 0,
  Transfer = 1, // fill/copy source or target
  Dispatch = 2, // bound to a dispatch
  Mapping = 4,  // Buffer::map (needs HostVisible memory)
  All = 7,
};

constexpr MemoryType operator|(MemoryType a, MemoryType b) {
  return static_cast<MemoryType>(static_cast<uint32_t>(a) |
                                 static_cast<uint32_t>(b));
}
constexpr BufferUsage operator|(BufferUsage a, BufferUsage b) {
  return static_cast<BufferUsage>(static_cast<uint32_t>(a) |
                                  static_cast<uint32_t>(b));
}
/// True when every bit of `required` is in `value`.
constexpr bool hasAll(MemoryType value, MemoryType required) {
  return (static_cast<uint32_t>(value) & static_cast<uint32_t>(required)) ==
         static_cast<uint32_t>(required);
}
constexpr bool hasAll(BufferUsage value, BufferUsage required) {
  return (static_cast<uint32_t>(value) & static_cast<uint32_t>(required)) ==
         static_cast<uint32_t>(required);
}

/// "DeviceLocal|HostVisible", for messages.
std::string memoryTypeString(MemoryType type);
/// "Transfer|Dispatch", for messages.
std::string bufferUsageString(BufferUsage usage);

} // namespace kiln::hal

#endif // KILN_RUNTIME_HAL_MEMORYTYPE_H
